//! The Perses reducer (Sun et al., ICSE 2018, Algorithm 2) over lopper's PNF trees.
//!
//! A max-heap of nodes keyed by token count (largest first; ties: smaller node id first)
//! starts with the root. Popping a node applies the transformation its PNF kind allows:
//! Kleene star and optional nodes get the empty list tried, then ddmin over their children;
//! Kleene plus nodes get ddmin keeping at least one child; regular (and opaque) nodes get
//! replaced by the smallest interesting compatible descendant found by a bounded BFS
//! (`reduceRegular`, Perses §4.3). The node's children (or its replacement) then join the
//! heap. In fixpoint mode the best program is re-parsed and reduced again until a round
//! removes nothing.

use crate::minimize::{Ddmin, ListMinimizer};
use crate::oracle::{Oracle, OracleError, Verdict};
use crate::passes;
use lopper_grammar::{PnfGrammar, SymbolId};
use lopper_parse::{Frontend, ParseError, SyntaxChecker};
use lopper_tree::{Edit, EditSet, NodeId, NodeKind, RenderOptions, Tree};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet, VecDeque};
use std::time::Instant;

/// Reducer settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Repeat rounds until one removes nothing (Perses' fixpoint mode). Default: on.
    pub fixpoint: bool,
    /// Depth bound of the BFS for replacement candidates (Perses 2.0 uses 5).
    pub bfs_depth: usize,
    /// At most this many replacement candidates per regular node, smallest first
    /// (Perses 2.0 uses 100).
    pub max_replacements: usize,
    /// What to do with candidates with new syntax errors (more tree-sitter ERROR/MISSING
    /// nodes than the current best, or text a grammar file's parser rejects). Default:
    /// [`GrammarCheck::Reject`].
    pub grammar_check: GrammarCheck,
    /// The reduction algorithm. Default: [`Algorithm::Perses`].
    pub algorithm: Algorithm,
    /// Candidates handed to the oracle at once (the next ones in order, each assuming the
    /// ones before fail), so a parallel oracle can test them together. The result does not
    /// depend on it. Default: 1.
    pub jobs: usize,
    /// The passes, in order: [`passes::PERSES`] for Perses' own search (list deletion and
    /// replacement), and names of [`passes::BUILT_IN`] passes, run after it in each round.
    /// Default: Perses alone.
    pub passes: Vec<String>,
    /// The list minimizer of list deletion and the ddmin/HDD baselines. Default: [`Ddmin`].
    pub minimizer: &'static dyn ListMinimizer,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            fixpoint: true,
            bfs_depth: 5,
            max_replacements: 100,
            grammar_check: GrammarCheck::Reject,
            algorithm: Algorithm::Perses,
            jobs: 1,
            passes: vec![passes::PERSES.to_string()],
            minimizer: &Ddmin,
        }
    }
}

/// Handling of candidates with new syntax errors: more tree-sitter ERROR/MISSING nodes than
/// the current best, or, for a grammar-file language, text its parser rejects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrammarCheck {
    /// Reject them without a test (counted as invalid).
    Reject,
    /// Test them anyway, but count them as invalid (for baselines that know no grammar).
    Count,
}

/// A reduction algorithm. All share the oracle, the cache and the statistics, so a
/// benchmark compares the algorithms and nothing else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Perses (Sun et al., ICSE 2018): priority worklist over the PNF tree, ddmin on
    /// Kleene lists, subsumption-based replacement, fixpoint.
    Perses,
    /// ddmin (Zeller & Hildebrandt, TSE 2002) over the lines of the program.
    DdminLines,
    /// ddmin over the program's tokens.
    DdminTokens,
    /// HDD (Misherghi & Su, ICSE 2006): level by level over the plain tree-sitter parse
    /// tree (no PNF), ddmin over each level's nodes.
    Hdd,
    /// HDD* : HDD repeated on the re-parsed result until a pass removes nothing.
    HddFixpoint,
}

impl Algorithm {
    /// Every algorithm with its `--algorithm` name and a one-line description with its
    /// source.
    pub const ALL: [(Algorithm, &'static str, &'static str); 5] = [
        (Algorithm::Perses, "perses", "Perses (Sun et al., ICSE 2018): PNF tree, largest node first, ddmin on lists, subsumption replacement, fixpoint"),
        (Algorithm::DdminLines, "ddmin-lines", "ddmin (Zeller & Hildebrandt, TSE 2002) over lines"),
        (Algorithm::DdminTokens, "ddmin-tokens", "ddmin (Zeller & Hildebrandt, TSE 2002) over tokens"),
        (Algorithm::Hdd, "hdd", "HDD (Misherghi & Su, ICSE 2006): ddmin level by level over the plain parse tree"),
        (Algorithm::HddFixpoint, "hdd-fixpoint", "HDD* (Misherghi & Su, ICSE 2006): HDD repeated until nothing changes"),
    ];
}

/// Counts of one reduction. Times are wall-clock seconds. Serialized as the `--stats` JSON
/// (field names as here, but `invalid` is `invalid_candidates`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Token count of the input.
    pub tokens_before: usize,
    /// Token count of the result.
    pub tokens_after: usize,
    /// Interestingness tests run (the original's check included).
    pub tests: usize,
    /// Candidates answered from the verdict cache (same text seen before).
    pub cache_hits: usize,
    /// Candidates answered from the persistent verdict cache (judged by an earlier run):
    /// neither tests nor in-run cache hits.
    pub remembered: usize,
    /// Candidates generated (tested, cached or rejected).
    pub candidates: usize,
    /// Candidates rejected (or, for baselines and `--test-invalid`, only counted) because
    /// the front end found new syntax errors: tree-sitter ERROR/MISSING nodes, or a
    /// grammar file's parser rejecting the text.
    #[serde(rename = "invalid_candidates")]
    pub invalid: usize,
    /// Tests that hit the time limit.
    pub timeouts: usize,
    /// Tests run for list deletions (star, plus, optional: empty list and ddmin).
    pub list_tests: usize,
    /// Tests run for replacements of regular and opaque nodes.
    pub replace_tests: usize,
    /// Candidates accepted from replacements.
    pub replace_accepted: usize,
    /// Candidates accepted (each a new best).
    pub accepted: usize,
    /// Rounds run (fixpoint iterations).
    pub rounds: usize,
    /// Share of the input's named CST nodes that matched their PNF rule, first round.
    pub matched_share: f64,
    /// Opaque nodes in the first round's tree.
    pub opaque_nodes: usize,
    /// Seconds spent waiting for tests.
    pub test_seconds: f64,
    /// Seconds of the whole reduction.
    pub total_seconds: f64,
    /// Seconds of the first test of the original.
    pub first_test_seconds: f64,
    /// The transformation now running: `"comments"`, `"list"` (star/plus/optional
    /// deletion) or `"replace"` (regular-node replacement).
    pub pass: &'static str,
    /// Time in list deletions (star, plus, optional; the baselines' deletions too).
    pub list_time: PassTime,
    /// Time in replacements of regular and opaque nodes.
    pub replace_time: PassTime,
    /// Time in everything else: the original's test, comment removal, re-parsing between
    /// rounds.
    pub other_time: PassTime,
    /// Problems that did not stop the reduction but may have cut it short (e.g. the best
    /// program no longer parses, so no further fixpoint round ran); the CLI prints them.
    pub warnings: Vec<String>,
    /// Per pass after Perses, in pass order: tests, accepted variants, time.
    #[serde(skip)]
    pub pass_stats: Vec<PassStats>,
    /// Size over time: one point per new best program (for plots of a run's progress).
    pub progress: Vec<ProgressPoint>,
}

/// The size of the best program when it was found.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ProgressPoint {
    /// Seconds since the reduction started.
    pub seconds: f64,
    /// Its token count.
    pub tokens: usize,
    /// Its length in bytes.
    pub bytes: usize,
}

/// The counts of one pass after Perses.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PassStats {
    /// The pass's name.
    pub name: String,
    /// Tests run for its variants.
    pub tests: usize,
    /// Variants accepted (each a new best).
    pub accepted: usize,
    /// Its time.
    pub time: PassTime,
}

/// Where one pass's time went, in seconds: wall time while it ran, and the part of it spent
/// waiting for tests (the rest is lopper's own work: rendering, re-parsing, bookkeeping).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct PassTime {
    /// Wall seconds while the pass ran.
    pub seconds: f64,
    /// Of those, seconds waiting for tests.
    pub test_seconds: f64,
}

impl Stats {
    /// Share of generated candidates that were syntactically invalid, in `[0, 1]`.
    pub fn invalid_share(&self) -> f64 {
        if self.candidates == 0 {
            0.0
        } else {
            self.invalid as f64 / self.candidates as f64
        }
    }
}

/// The result of a reduction.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The smallest interesting program found.
    pub text: String,
    /// The counts.
    pub stats: Stats,
    /// Whether the run was stopped early by an interrupt.
    pub interrupted: bool,
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

/// Hears of a reduction as it goes: every new best program (so a caller can keep it on
/// disk) and every batch of tests (for progress displays), each time with the counts so far.
pub trait Progress {
    /// A new best program was accepted. An error stops the reduction.
    ///
    /// # Errors
    /// Whatever keeping the program failed with (e.g. writing it to disk).
    fn new_best(&mut self, program: &str, stats: &Stats) -> std::io::Result<()>;

    /// A batch of tests ended without a new best.
    fn tested(&mut self, _stats: &Stats) {}
}

/// A [`Progress`] that ignores everything (tests, benchmarks).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn new_best(&mut self, _: &str, _: &Stats) -> std::io::Result<()> {
        Ok(())
    }
}

/// Reduces `input` with the Perses algorithm.
///
/// The original must be interesting (checked first: one test). Every accepted candidate is
/// passed to `progress` before the search goes on, so a caller can keep it on disk.
///
/// # Errors
/// [`ReduceError::NotInteresting`] if the original fails the test; parse and oracle errors.
/// An interrupt is not an error: the outcome has `interrupted` set and the best so far.
pub fn reduce(frontend: &Frontend, input: &str, oracle: &mut dyn Oracle, opts: &Options, progress: &mut dyn Progress) -> Result<Outcome, ReduceError> {
    let after = opts.passes.iter().filter_map(|p| passes::create(p)).collect();
    reduce_with_passes(frontend, input, oracle, opts, after, progress)
}

/// [`reduce`] with these passes after Perses instead of the built-in ones `opts.passes`
/// names (whether Perses' own search runs still follows `opts.passes`): the seam through
/// which a pass from outside this crate joins the same scheduler, cache and grammar check.
///
/// # Errors
/// As [`reduce`].
pub fn reduce_with_passes(
    frontend: &Frontend,
    input: &str,
    oracle: &mut dyn Oracle,
    opts: &Options,
    after: Vec<Box<dyn passes::Pass>>,
    progress: &mut dyn Progress,
) -> Result<Outcome, ReduceError> {
    let started = Instant::now();
    let mut checker = frontend.checker(input)?;
    // The checker already parsed `input`: counting its errors re-uses that tree.
    let best_errors = checker.errors(input)?;
    let mut r = Reducer {
        frontend,
        g: frontend.grammar(),
        oracle,
        opts,
        progress,
        rejected: HashSet::new(),
        disabled: HashSet::new(),
        best: input.to_string(),
        best_errors,
        checker,
        stats: Stats::default(),
        render: RenderOptions::default(),
        pass: Pass::Other,
        pass_since: started,
        started,
    };
    let t0 = Instant::now();
    let (v, remembered) = r.oracle.first_interesting_remembered(&[input]).map_err(ReduceError::Oracle)?[0];
    r.stats.tests = usize::from(!remembered);
    r.stats.remembered = usize::from(remembered);
    r.stats.first_test_seconds = t0.elapsed().as_secs_f64();
    r.stats.test_seconds = r.stats.first_test_seconds;
    if v != Verdict::Interesting {
        return Err(ReduceError::NotInteresting(v));
    }
    let parsed = frontend.parse(input)?;
    r.stats.tokens_before = parsed.tree.token_count();
    r.stats.tokens_after = r.stats.tokens_before;
    r.stats.matched_share = parsed.stats.matched_share();
    r.stats.opaque_nodes = parsed.stats.opaque;
    let interrupted = match r.run(parsed.tree, after) {
        Ok(()) => false,
        Err(OracleError::Interrupted) => true,
        Err(e) => return Err(ReduceError::Oracle(e)),
    };
    r.add_pass_time();
    r.stats.other_time.test_seconds += r.stats.first_test_seconds;
    r.stats.total_seconds = started.elapsed().as_secs_f64();
    Ok(Outcome { text: r.best, stats: r.stats, interrupted })
}

/// A candidate's identity in the verdict cache: its BLAKE3 hash, stable across Rust
/// releases and machines (so a persistent cache can trust it).
fn hash(text: &str) -> [u8; 32] {
    blake3::hash(text.as_bytes()).into()
}

struct Reducer<'a> {
    frontend: &'a Frontend,
    g: &'a PnfGrammar,
    oracle: &'a mut dyn Oracle,
    opts: &'a Options,
    progress: &'a mut dyn Progress,
    rejected: HashSet<[u8; 32]>,
    /// Passes after Perses that failed: reported once, not run again.
    disabled: HashSet<usize>,
    best: String,
    best_errors: usize,
    checker: SyntaxChecker,
    stats: Stats,
    render: RenderOptions,
    pass: Pass,
    /// When the current pass started (or its time was last added up).
    pass_since: Instant,
    /// When the reduction started.
    started: Instant,
}

/// Which transformation a test serves, for the per-pass counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    List,
    Replace,
    Other,
    /// The pass after Perses with this index in `Stats::pass_stats`.
    After(usize),
}

/// One round's tree and state.
struct Round {
    tree: Tree,
    state: EditSet,
    live: Vec<bool>,
    progress: bool,
}

impl Round {
    /// A round over `tree` with no edits yet.
    fn new(tree: Tree) -> Round {
        Round { live: tree.live(&EditSet::default()), tree, state: EditSet::default(), progress: false }
    }
}

impl Reducer<'_> {
    fn run(&mut self, mut tree: Tree, mut after: Vec<Box<dyn passes::Pass>>) -> Result<(), OracleError> {
        // Comments are trivia: drop them all at once if the test allows.
        self.set_pass(Pass::Other);
        let plain = tree.render(&EditSet::default(), self.render);
        let tokens = tree.token_count();
        if plain != self.best && self.first_interesting(&[plain], |_| tokens)?.is_none() {
            self.render.keep_comments = true;
        }
        match self.opts.algorithm {
            Algorithm::Perses => {}
            Algorithm::DdminLines => return self.ddmin_lines(),
            Algorithm::DdminTokens => {
                let mut r = Round::new(tree);
                self.stats.rounds += 1;
                self.set_pass(Pass::List);
                let tokens: Vec<NodeId> = (0..r.tree.len() as u32).map(NodeId).filter(|&n| r.tree.node(n).kind == NodeKind::Token).collect();
                return self.ddmin_delete(&mut r, tokens, None);
            }
            Algorithm::Hdd | Algorithm::HddFixpoint => return self.hdd(),
        }
        let perses = self.opts.passes.iter().any(|p| p == passes::PERSES);
        self.stats.pass_stats = after.iter().map(|p| PassStats { name: p.name().to_string(), ..PassStats::default() }).collect();
        // The global fixpoint: Perses to its own fixpoint, then every other pass; again
        // while the other passes change the best.
        loop {
            if perses {
                let Some(t) = self.perses_rounds(tree)? else { return Ok(()) };
                tree = t;
            }
            if after.is_empty() || !self.run_passes(&mut after, tree)? || !self.opts.fixpoint {
                break;
            }
            let Some(t) = self.parse_best() else { return Ok(()) };
            tree = t;
        }
        if self.opts.passes.iter().any(|p| p == passes::layout::LAYOUT.0) {
            self.layout()?;
        }
        Ok(())
    }

    /// The layout step (`passes::layout`): the best laid out readably, tested once; kept if
    /// interesting and free of new syntax errors, whatever its size.
    fn layout(&mut self) -> Result<(), OracleError> {
        let Some(tree) = self.parse_best() else { return Ok(()) };
        self.stats.pass_stats.push(PassStats { name: passes::layout::LAYOUT.0.to_string(), ..PassStats::default() });
        self.set_pass(Pass::After(self.stats.pass_stats.len() - 1));
        let text = passes::layout::layout(&tree);
        let tokens = tree.token_count();
        self.first_interesting(&[text], |_| tokens)?;
        Ok(())
    }

    /// Perses rounds from `tree` until one removes nothing (or one round without fixpoint
    /// mode). Returns the tree of the best program, `None` if it no longer parses.
    fn perses_rounds(&mut self, mut tree: Tree) -> Result<Option<Tree>, OracleError> {
        loop {
            self.stats.rounds += 1;
            let mut round = Round::new(tree);
            self.round(&mut round)?;
            if !round.progress {
                return Ok(Some(round.tree));
            }
            let Some(t) = self.parse_best() else { return Ok(None) };
            if !self.opts.fixpoint {
                return Ok(Some(t));
            }
            tree = t;
        }
    }

    /// The PNF tree of the current best; `None`, with a warning, if it no longer parses.
    fn parse_best(&mut self) -> Option<Tree> {
        match self.frontend.parse(&self.best) {
            Ok(p) => Some(p.tree),
            Err(e) => {
                self.stats.warnings.push(format!("stopped after round {}: the best program no longer parses: {e}", self.stats.rounds));
                None
            }
        }
    }

    fn round(&mut self, r: &mut Round) -> Result<(), OracleError> {
        let mut heap = BinaryHeap::new();
        let root = r.tree.root();
        heap.push((r.tree.node(root).tokens, Reverse(root)));
        while let Some((_, Reverse(n))) = heap.pop() {
            if !r.live[n.0 as usize] {
                continue;
            }
            match r.tree.node(n).kind {
                NodeKind::Star | NodeKind::Optional => {
                    self.set_pass(Pass::List);
                    self.reduce_list(r, n, true)?
                }
                NodeKind::Plus => {
                    self.set_pass(Pass::List);
                    self.reduce_list(r, n, false)?
                }
                NodeKind::Regular | NodeKind::Opaque => {
                    self.set_pass(Pass::Replace);
                    self.reduce_regular(r, n)?
                }
                NodeKind::Token => {}
            }
            match r.tree.effective(&r.state, n) {
                Some(d) if d != n => heap.push((r.tree.node(d).tokens, Reverse(d))),
                Some(_) => {
                    for &c in &r.tree.node(n).children {
                        if let Some(e) = r.tree.effective(&r.state, c) {
                            if r.tree.node(e).tokens > 0 {
                                heap.push((r.tree.node(e).tokens, Reverse(e)));
                            }
                        }
                    }
                }
                None => {}
            }
        }
        Ok(())
    }

    fn pass_time(&mut self) -> &mut PassTime {
        match self.pass {
            Pass::List => &mut self.stats.list_time,
            Pass::Replace => &mut self.stats.replace_time,
            Pass::Other => &mut self.stats.other_time,
            Pass::After(i) => &mut self.stats.pass_stats[i].time,
        }
    }

    /// Adds the wall time since the last call to the current pass.
    fn add_pass_time(&mut self) {
        let now = Instant::now();
        let dt = now.duration_since(self.pass_since).as_secs_f64();
        self.pass_since = now;
        self.pass_time().seconds += dt;
    }

    fn set_pass(&mut self, p: Pass) {
        self.add_pass_time();
        self.pass = p;
        self.stats.pass = match p {
            Pass::List => "list",
            Pass::Replace => "replace",
            Pass::Other => "comments",
            Pass::After(i) => passes::BUILT_IN.iter().chain([&passes::layout::LAYOUT]).find(|b| b.0 == self.stats.pass_stats[i].name).map_or("pass", |b| b.0),
        };
    }

    /// Tests `edits` as a candidate; on success it becomes the round's state.
    fn try_edits(&mut self, r: &mut Round, edits: EditSet) -> Result<bool, OracleError> {
        Ok(self.try_batch(r, vec![edits])?.is_some())
    }

    /// Tests candidate edit sets in order; the first interesting one becomes the round's
    /// state, and its index is returned.
    fn try_batch(&mut self, r: &mut Round, batch: Vec<EditSet>) -> Result<Option<usize>, OracleError> {
        let texts: Vec<String> = batch.iter().map(|e| r.tree.render(e, self.render)).collect();
        let winner = self.first_interesting(&texts, |i| r.tree.count_tokens(&batch[i]))?;
        if let Some(i) = winner {
            r.state = batch.into_iter().nth(i).expect("winner is in the batch");
            r.live = r.tree.live(&r.state);
            r.progress = true;
        }
        Ok(winner)
    }

    /// Judges candidate texts in order (the same text as the best, cached rejections and
    /// texts with new syntax errors are screened out without a test; the rest go to the
    /// oracle as one batch). The first interesting one becomes the best, with `tokens(i)` as
    /// its token count, and `on_best` hears of it. Counts cover exactly what a sequential
    /// run would have judged, so statistics do not depend on `--jobs`.
    fn first_interesting(&mut self, texts: &[String], tokens: impl FnOnce(usize) -> usize) -> Result<Option<usize>, OracleError> {
        enum Screen {
            Same,
            Cached,
            Invalid,
            Test(usize),
        }
        let mut screens = Vec::with_capacity(texts.len());
        let mut in_batch = HashSet::new();
        for t in texts {
            let h = hash(t);
            // Every accepted text is strictly smaller than all later candidates, so only
            // rejections need remembering.
            let s = if *t == self.best {
                Screen::Same
            } else if self.rejected.contains(&h) || !in_batch.insert(h) {
                Screen::Cached
            } else {
                let errors = self.checker.errors(t).unwrap_or(usize::MAX);
                if self.opts.grammar_check == GrammarCheck::Reject && errors > self.best_errors {
                    Screen::Invalid
                } else {
                    Screen::Test(errors)
                }
            };
            screens.push((h, s));
        }
        let to_test: Vec<usize> = (0..texts.len()).filter(|&i| matches!(screens[i].1, Screen::Test(_))).collect();
        let verdicts = if to_test.is_empty() {
            Vec::new()
        } else {
            let t = Instant::now();
            let v = self.oracle.first_interesting_remembered(&to_test.iter().map(|&i| texts[i].as_str()).collect::<Vec<_>>());
            let dt = t.elapsed().as_secs_f64();
            self.stats.test_seconds += dt;
            self.pass_time().test_seconds += dt;
            v?
        };
        let winner = (verdicts.last().map(|v| v.0) == Some(Verdict::Interesting)).then(|| to_test[verdicts.len() - 1]);
        let mut tested = verdicts.iter();
        for (h, s) in &screens[..winner.map_or(texts.len(), |w| w + 1)] {
            self.stats.candidates += 1;
            match s {
                Screen::Same => {}
                Screen::Cached => self.stats.cache_hits += 1,
                Screen::Invalid => {
                    self.stats.invalid += 1;
                    self.rejected.insert(*h);
                }
                Screen::Test(errors) => {
                    let (v, remembered) = *tested.next().expect("one verdict per tested candidate");
                    if remembered {
                        // Judged by an earlier run (the persistent cache): not a test run.
                        self.stats.remembered += 1;
                        if v != Verdict::Interesting {
                            self.rejected.insert(*h);
                        }
                        continue;
                    }
                    self.stats.tests += 1;
                    // Only reachable with GrammarCheck::Count: tested, but invalid.
                    self.stats.invalid += (*errors > self.best_errors) as usize;
                    match self.pass {
                        Pass::List => self.stats.list_tests += 1,
                        Pass::Replace => self.stats.replace_tests += 1,
                        Pass::Other => {}
                        Pass::After(i) => self.stats.pass_stats[i].tests += 1,
                    }
                    self.stats.timeouts += (v == Verdict::TimedOut) as usize;
                    if v != Verdict::Interesting {
                        self.rejected.insert(*h);
                    }
                }
            }
        }
        if let Some(w) = winner {
            let Screen::Test(errors) = screens[w].1 else { unreachable!("only tested candidates win") };
            self.best = texts[w].clone();
            self.best_errors = errors;
            if let Err(e) = self.checker.set_base(&self.best) {
                // The checker keeps comparing against the previous best: still sound, only
                // more candidates may be judged invalid.
                self.stats.warnings.push(format!("the grammar check could not take the new best as its base: {e}"));
            }
            self.stats.accepted += 1;
            self.stats.replace_accepted += (self.pass == Pass::Replace) as usize;
            if let Pass::After(i) = self.pass {
                self.stats.pass_stats[i].accepted += 1;
            }
            self.stats.tokens_after = tokens(w);
            let at = self.started.elapsed().as_secs_f64();
            self.stats.progress.push(ProgressPoint { seconds: at, tokens: self.stats.tokens_after, bytes: self.best.len() });
            tracing::debug!(tokens = self.stats.tokens_after, pass = self.stats.pass, "candidate accepted");
            self.progress.new_best(&self.best, &self.stats).map_err(OracleError::Keep)?;
        } else if !to_test.is_empty() {
            self.progress.tested(&self.stats);
        }
        Ok(winner)
    }

    /// `reduceStar` / `reducePlus` / optional: the empty list first (unless plus), then
    /// ddmin over the children.
    ///
    /// A star that follows the head of a separated list (`x ("," x)*`, the PNF of every
    /// comma list) is minimized together with that head: when the head goes, the first kept
    /// element is replaced by its `x`, dropping its separator. Plain PNF cannot delete the
    /// first argument of a call; this can, and every such candidate is still grammatical.
    fn reduce_list(&mut self, r: &mut Round, n: NodeId, may_empty: bool) -> Result<(), OracleError> {
        let children: Vec<NodeId> = r.tree.node(n).children.iter().copied().filter(|c| r.live[c.0 as usize]).collect();
        if children.is_empty() {
            return Ok(());
        }
        if may_empty && self.try_edits(r, r.state.with(n, Edit::Delete))? {
            return Ok(());
        }
        let head = if may_empty { self.separated_list_head(r, n, &children) } else { None };
        self.ddmin_delete(r, children, head)
    }

    /// For a star `n` whose elements are all `sep x` pairs and whose left sibling is a live,
    /// unedited `x` of the same slot, that sibling (the head of the separated list).
    fn separated_list_head(&self, r: &Round, n: NodeId, elements: &[NodeId]) -> Option<NodeId> {
        let t = &r.tree;
        let parent = t.node(t.node(n).parent?);
        if parent.kind != NodeKind::Regular {
            return None;
        }
        let i = parent.children.iter().position(|&c| c == n)?;
        let h = *parent.children.get(i.checked_sub(1)?)?;
        if !r.live[h.0 as usize] || r.state.0.contains_key(&h) {
            return None;
        }
        let slot = t.node(h).slot?;
        let pair_ok = |e: NodeId| {
            let en = t.node(e);
            en.kind == NodeKind::Regular
                && en.children.len() == 2
                && t.node(en.children[0]).kind == NodeKind::Token
                && !r.state.0.contains_key(&en.children[1])
                && t.node(en.children[1]).symbol.is_some_and(|s| self.g.subsumes(slot, s))
        };
        elements.iter().all(|&e| pair_ok(e)).then_some(h)
    }

    /// ddmin over `items` of the round's tree, deleting the ones not kept. With `head` (a
    /// separated list's first element, see [`Self::separated_list_head`]) it joins the
    /// items, and when it goes the first kept element loses its separator.
    fn ddmin_delete(&mut self, r: &mut Round, mut items: Vec<NodeId>, head: Option<NodeId>) -> Result<(), OracleError> {
        if let Some(h) = head {
            items.insert(0, h);
        }
        let base = r.state.clone();
        let all = items;
        let weights: Vec<usize> = all.iter().map(|&n| r.tree.node(n).tokens as usize).collect();
        self.opts.minimizer.minimize(&weights, self.opts.jobs, &mut |keeps: &[Vec<usize>]| {
            let batch = keeps
                .iter()
                .map(|keep| {
                    let keep: Vec<NodeId> = keep.iter().map(|&i| all[i]).collect();
                    let kept: HashSet<NodeId> = keep.iter().copied().collect();
                    let mut e = base.clone();
                    e.0.extend(all.iter().filter(|c| !kept.contains(c)).map(|c| (*c, Edit::Delete)));
                    if head.is_some_and(|h| !kept.contains(&h)) {
                        // keep is never empty and h is its only non-element: promote the first.
                        let first = keep[0];
                        e.0.insert(first, Edit::Replace(r.tree.node(first).children[1]));
                    }
                    e
                })
                .collect();
            self.try_batch(r, batch)
        })?;
        Ok(())
    }

    /// `reduceRegular`: replace the node by its smallest interesting compatible descendant.
    fn reduce_regular(&mut self, r: &mut Round, n: NodeId) -> Result<(), OracleError> {
        let node = r.tree.node(n);
        let Some(expected) = node.slot.or(node.symbol) else { return Ok(()) };
        let list_element = self.list_element_of_parent(&r.tree, n);
        let mut found: Vec<NodeId> = Vec::new();
        let mut queue: VecDeque<(NodeId, usize)> = node.children.iter().map(|&c| (c, 1)).collect();
        while let Some((d, depth)) = queue.pop_front() {
            if !r.live[d.0 as usize] {
                continue;
            }
            let dn = r.tree.node(d);
            if dn.tokens < node.tokens && dn.tokens > 0 && self.compatible(&r.tree, d, expected, list_element) {
                found.push(d);
                continue;
            }
            // A list or optional node is PNF bookkeeping, not a level of the language: going
            // through one does not use up the depth bound.
            if matches!(dn.kind, NodeKind::Star | NodeKind::Plus | NodeKind::Optional) {
                queue.extend(dn.children.iter().map(|&c| (c, depth)));
            } else if depth < self.opts.bfs_depth {
                queue.extend(dn.children.iter().map(|&c| (c, depth + 1)));
            }
        }
        found.sort_by_key(|&d| (r.tree.node(d).tokens, d));
        found.truncate(self.opts.max_replacements);
        for chunk in found.chunks(self.opts.jobs.max(1)) {
            let batch = chunk.iter().map(|&d| r.state.with(n, Edit::Replace(d))).collect();
            if self.try_batch(r, batch)?.is_some() {
                return Ok(());
            }
        }
        Ok(())
    }

    /// If `n` is an element of a star/plus list, that list's element symbol.
    fn list_element_of_parent(&self, t: &Tree, n: NodeId) -> Option<SymbolId> {
        let p = t.node(t.node(n).parent?);
        if !matches!(p.kind, NodeKind::Star | NodeKind::Plus) {
            return None;
        }
        self.g.symbol(p.symbol?).rule.element()
    }

    /// Whether descendant `d` may stand where `expected` is expected: its symbol is
    /// subsumed, or (for a list element) it is a list whose elements are subsumed by the
    /// element symbol, so its elements splice into the parent list.
    fn compatible(&self, t: &Tree, d: NodeId, expected: SymbolId, list_element: Option<SymbolId>) -> bool {
        let dn = t.node(d);
        let Some(sym) = dn.symbol else { return false };
        if self.g.subsumes(expected, sym) {
            return true;
        }
        if let (Some(el), NodeKind::Star | NodeKind::Plus | NodeKind::Optional) = (list_element, dn.kind) {
            if let Some(inner) = self.g.symbol(sym).rule.element() {
                return self.g.subsumes(el, inner);
            }
        }
        false
    }
}

mod baselines;
mod schedule;
