//! The reduction pipeline: [`reduce`] tests the original, parses it, drops its comments
//! when the test allows, and runs the algorithm — a baseline, or the [`Pipeline`]'s
//! groups: `first` once, `main` to the global fixpoint, `last` once (the layout step).
//! Comments the test needed at the start are tried once more after the global fixpoint.
//!
//! The global fixpoint runs the main group's stages in order — Perses (with the unused
//! search in its rounds when the pipeline has it) and runs of consecutive passes in
//! Regehr's contract (`schedule.rs`) — and again while a run of passes changes the best.
//! Perses runs again only when tokens went since it last ended: renaming and literal
//! rewrites keep every token and the tree's shape, and the deletions and replacements
//! Perses already tried fail on the renamed program as a rule, so re-trying them would cost
//! tests for nothing. When Perses runs again, a deletion or replacement whose local change
//! (the lines it touches, with a line of context) was not interesting in its first run is
//! presumed not interesting, as for the passes: the first run learns those changes and
//! presumes nothing, so Perses' own 1-minimal result is the same as without passes.

pub mod registry;
mod schedule;

use crate::dangling::DanglingUses;
pub use crate::engine::Algorithm;
use crate::engine::{Engine, Options};
use crate::judge::{Batch, Judge, LocalKey, Memo};
use crate::oracle::{Oracle, OracleError, Texts, Verdict};
use crate::passes::CoarseSearch;
use crate::perses::{reborrow, RoundHooks};
use crate::stats::{Progress, Stats};
use crate::unused::UnusedSearch;
use crate::{passes, perses};
use lopper_parse::{Frontend, ParseError};
use lopper_tree::{EditSet, RenderOptions, Tree};
pub use registry::{Pipeline, Step, UnknownPass, REGISTRY};
use schedule::PassStage;

/// Runs more of the original when its first test says no while replays are on (the
/// caller's sanity runs said yes).
const ORIGINAL_RETRIES: usize = 3;

/// How Perses' own deletions and replacements are keyed in the memo of local changes.
const PERSES_KEY: LocalKey<'static> = LocalKey { pass: perses::INFO.name, modulo_words: true };

/// The result of a reduction.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The smallest interesting program found.
    pub text: String,
    /// The counts.
    pub stats: Stats,
    /// Whether the run was stopped early by an interrupt.
    pub interrupted: bool,
    /// Whether the search stopped early because the replays showed a test that answers at
    /// random ([`crate::answers_at_random`]); `text` is then the best so far, which no
    /// caller should hand on as a result.
    pub at_random: bool,
}

/// Why a reduction could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReduceError {
    /// The original input does not pass the interestingness test.
    #[error("the original input is not interesting (the test said {0:?})")]
    NotInteresting(Verdict),
    /// The program could not be parsed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The oracle failed.
    #[error(transparent)]
    Oracle(OracleError),
}

/// Reduces `input` with `opts.algorithm`; for Perses, with the steps of `pipeline` (a
/// pass from outside this crate joins through [`Pipeline::push_main`], with the same
/// scheduler, cache and grammar check).
///
/// The original must be interesting (checked first: one test). Every accepted candidate is
/// passed to `progress` before the search goes on, so a caller can keep it on disk.
///
/// # Errors
/// [`ReduceError::NotInteresting`] if the original fails the test; parse and oracle errors.
/// An interrupt is not an error: the outcome has `interrupted` set and the best so far.
pub fn reduce(
    frontend: &Frontend,
    input: &str,
    oracle: &mut dyn Oracle,
    opts: &Options,
    pipeline: Pipeline,
    progress: &mut dyn Progress,
) -> Result<Outcome, ReduceError> {
    let mut judge = Judge::new(frontend, input, oracle, opts.grammar_check, progress)?;
    judge.set_replays(opts.replay_every, opts.confirm);
    let mut e = Engine {
        frontend,
        g: frontend.grammar(),
        opts,
        j: judge,
        perses_memo: Memo::Off,
        render: RenderOptions::default(),
        dangling: DanglingUses::Probing(0, 0),
        slices_kept: Default::default(),
    };
    let mut v = e.j.test_original().map_err(ReduceError::Oracle)?;
    if v != Verdict::Interesting && (opts.replay_every > 0 || opts.confirm) {
        // The caller's sanity runs said yes: a flaky test, which confirming runs can use.
        v = e.j.retest_original(ORIGINAL_RETRIES).map_err(ReduceError::Oracle)?;
    }
    if v != Verdict::Interesting {
        return Err(ReduceError::NotInteresting(v));
    }
    let parsed = frontend.parse_with(&e.j.checker, input)?;
    e.j.start(parsed.tree.token_count(), parsed.stats.matched_share(), parsed.stats.opaque);
    let (interrupted, at_random) = match run(&mut e, parsed.tree, pipeline) {
        Ok(()) => (false, false),
        Err(OracleError::Interrupted) => (true, false),
        Err(OracleError::AtRandom) => (false, true),
        Err(err) => return Err(ReduceError::Oracle(err)),
    };
    let (text, stats) = e.j.finish();
    Ok(Outcome { text, stats, interrupted, at_random })
}

/// A stage of a pipeline group: what runs one after another.
enum Stage {
    Perses,
    Coarse(CoarseSearch),
    Passes(PassStage),
    Layout,
}

/// The stages of `steps`: consecutive passes as one stage; the unused search is no stage
/// of its own but part of Perses' rounds.
fn stages(steps: Vec<Step>) -> Vec<Stage> {
    let mut out: Vec<Stage> = Vec::new();
    for step in steps {
        match step {
            Step::Perses => out.push(Stage::Perses),
            Step::Unused => {}
            Step::Coarse(s) => out.push(Stage::Coarse(s)),
            Step::Layout => out.push(Stage::Layout),
            Step::Pass(p) => match out.last_mut() {
                Some(Stage::Passes(s)) => s.passes.push(p),
                _ => out.push(Stage::Passes(PassStage::new(vec![p]))),
            },
        }
    }
    out
}

/// Runs the algorithm on the original's `tree`.
fn run(e: &mut Engine<'_>, tree: Tree, pipeline: Pipeline) -> Result<(), OracleError> {
    drop_comments(e, &tree)?;
    match e.opts.algorithm {
        Algorithm::Perses => {}
        Algorithm::DdminLines => return e.ddmin_lines(),
        Algorithm::DdminTokens => return e.ddmin_tokens(tree),
        Algorithm::Hdd | Algorithm::HddFixpoint => return e.hdd(),
    }
    let mut unused = pipeline.has(|s| matches!(s, Step::Unused)).then(UnusedSearch::default);
    let mut groups = [stages(pipeline.first), stages(pipeline.main), stages(pipeline.last)];
    let mut fixpoint = Fixpoint { perses_end: None, presume_after_perses: groups[1].iter().any(|s| matches!(s, Stage::Passes(_))) };
    if fixpoint.presume_after_perses {
        e.perses_memo = Memo::Record(PERSES_KEY);
    }
    let hooks = unused.as_mut().map(|u| u as &mut dyn RoundHooks);
    let result = fixpoint.run(e, tree, &mut groups, hooks);
    // External commands' run time is neither tests nor lopper's own work.
    let spent = groups.iter().flatten().map(|s| if let Stage::Passes(p) = s { p.process_seconds() } else { 0.0 }).sum::<f64>();
    e.j.set_transform_seconds(spent.max(0.0));
    result
}

/// The state of the global fixpoint across the groups.
struct Fixpoint {
    /// The best's token count when Perses last ended.
    perses_end: Option<usize>,
    /// Whether Perses' later runs presume what its first run learnt (when the main group
    /// has passes).
    presume_after_perses: bool,
}

impl Fixpoint {
    /// `first` once, `main` until a round of it changes nothing (or once, without fixpoint
    /// mode), then `last` once, while the best still parses.
    fn run(&mut self, e: &mut Engine<'_>, tree: Tree, groups: &mut [Vec<Stage>; 3], mut hooks: Option<&mut dyn RoundHooks>) -> Result<(), OracleError> {
        let [first, main, last] = groups;
        let Some((mut tree, _)) = self.group(e, tree, first, reborrow(&mut hooks))? else { return Ok(()) };
        loop {
            let Some((t, changed)) = self.group(e, tree, main, reborrow(&mut hooks))? else { return Ok(()) };
            tree = t;
            if !changed || !e.opts.fixpoint {
                break;
            }
        }
        // What made the test need its comments (`#![deny(missing_docs)]`) may be gone now.
        if e.render.keep_comments {
            drop_comments(e, &tree)?;
            if !e.render.keep_comments {
                let Some(t) = e.parse_best() else { return Ok(()) };
                tree = t;
            }
        }
        self.group(e, tree, last, hooks).map(drop)
    }

    /// Runs each stage of a group once, in order: the best's tree after them and whether a
    /// run of passes changed the best; `None` once the best no longer parses.
    fn group(
        &mut self,
        e: &mut Engine<'_>,
        mut tree: Tree,
        stages: &mut [Stage],
        mut hooks: Option<&mut dyn RoundHooks>,
    ) -> Result<Option<(Tree, bool)>, OracleError> {
        let mut changed = false;
        for stage in stages {
            match stage {
                Stage::Perses => {
                    if self.perses_end.is_some_and(|t| e.j.stats.tokens_after >= t) {
                        continue;
                    }
                    let Some(t) = e.perses_rounds(tree, reborrow(&mut hooks))? else { return Ok(None) };
                    tree = t;
                    self.perses_end = Some(e.j.stats.tokens_after);
                    if self.presume_after_perses {
                        e.perses_memo = Memo::Presume(PERSES_KEY);
                    }
                }
                // `tree` follows the best through the passes' accepted variants.
                Stage::Passes(s) => changed |= e.run_passes(s, &mut tree)?,
                Stage::Coarse(s) => {
                    let result = match s {
                        CoarseSearch::Files => e.files(tree),
                        CoarseSearch::Definitions => e.definitions(tree),
                        CoarseSearch::Instances => e.instances(tree),
                        CoarseSearch::Slices => e.slices(tree),
                    };
                    let Some(t) = result? else { return Ok(None) };
                    tree = t;
                }
                Stage::Layout => layout(e)?,
            }
        }
        Ok(Some((tree, changed)))
    }
}

/// Comments are trivia: drops them all from the best (`tree`) at once, one test, and keeps
/// them in every later candidate (`keep_comments`) if the test needs them.
fn drop_comments(e: &mut Engine<'_>, tree: &Tree) -> Result<(), OracleError> {
    let plain = Texts::given(vec![tree.render(&EditSet::default(), RenderOptions { keep_comments: false })]);
    let tokens = tree.token_count();
    e.render.keep_comments = plain.get(0) != e.j.best && e.j.judge(Batch::new(&plain, &|_| tokens))?.is_none();
    Ok(())
}

/// The layout step ([`passes::layout`]): the best laid out readably, tested once; kept if
/// interesting and free of new syntax errors, whatever its size.
fn layout(e: &mut Engine<'_>) -> Result<(), OracleError> {
    let Some(tree) = e.parse_best() else { return Ok(()) };
    let Some(laid_out) = laid_out(e.frontend, &e.j.best, &tree) else { return Ok(()) };
    e.j.set_pass(passes::layout::INFO.name);
    let text = Texts::given(vec![laid_out]);
    let tokens = tree.token_count();
    e.j.judge(Batch::new(&text, &|_| tokens))?;
    Ok(())
}

/// `text` (whose tree is `tree`) laid out readably ([`passes::layout`]), untested; `None`
/// where indentation is syntax (Python: the layout's indentation follows brackets). A
/// project's files are laid out one by one, each with its own language.
pub fn laid_out(frontend: &Frontend, text: &str, tree: &Tree) -> Option<String> {
    if !lopper_bundle::is_bundle(text) {
        return (!frontend.indentation_is_syntax()).then(|| passes::layout::layout(tree));
    }
    let files: Vec<(&str, String)> = lopper_bundle::split(text)
        .into_iter()
        .map(|f| {
            let own = frontend.for_file(f.path).filter(|l| !l.indentation_is_syntax()).and_then(|l| l.parse(f.text).ok());
            (f.path, own.map_or_else(|| f.text.to_string(), |p| passes::layout::layout(&p.tree)))
        })
        .collect();
    Some(lopper_bundle::join(files.iter().map(|(p, t)| (*p, t.as_str()))))
}
