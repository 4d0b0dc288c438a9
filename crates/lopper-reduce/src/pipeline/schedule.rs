//! The scheduler of the passes in Regehr's contract: his semantics over the shared judge.

use crate::engine::Engine;
use crate::judge::{Batch, LocalKey, Memo};
use crate::oracle::{no_successors, OracleError, Successors, Texts};
use crate::passes::{self, Context, Instance, Measure};
use lopper_parse::Frontend;
use lopper_tree::{RenderOptions, Tree};
use std::collections::HashSet;
use std::time::Instant;

/// Consecutive passes of a pipeline group, run as one round of the scheduler.
pub(crate) struct PassStage {
    pub(crate) passes: Vec<Box<dyn passes::Pass>>,
    /// Passes that failed: reported once, not run again.
    disabled: HashSet<usize>,
    /// Seconds of external commands that ran side by side with others (counted once).
    overlap: f64,
}

impl PassStage {
    /// A stage of `passes`, in order.
    pub(crate) fn new(passes: Vec<Box<dyn passes::Pass>>) -> PassStage {
        PassStage { passes, disabled: HashSet::new(), overlap: 0.0 }
    }

    /// Seconds its external commands took, time side by side counted once.
    pub(crate) fn process_seconds(&self) -> f64 {
        self.passes.iter().map(|p| p.process_seconds()).sum::<f64>() - self.overlap
    }
}

impl Engine<'_> {
    /// One round of the passes after Perses, each with Regehr's scheduling: instance `k` from
    /// 0; after an accepted variant the same `k` again (on the new best), after a rejected
    /// one `k + 1`; the pass ends at its first missing instance. Variants not smaller than
    /// the best under [`Measure`] are skipped untested. With `jobs > 1` the next instances
    /// are judged as one batch, each assuming the ones before fail, so the result is the
    /// sequential one; a built-in pass names each variant's successors (the same pass's
    /// instances on that variant, from its number), for an oracle that speculates. A
    /// variant whose local change (the lines it touches, with one line of context) was not
    /// interesting in an earlier round is presumed not interesting and not tested again:
    /// after Perses has shrunk the program elsewhere, the same edit in the same
    /// neighbourhood nearly always fails again. Returns whether any pass changed the best;
    /// `tree` is then the new best's (`false` also when the new best no longer parses).
    pub(crate) fn run_passes(&mut self, stage: &mut PassStage, tree: &mut Tree) -> Result<bool, OracleError> {
        self.j.new_round();
        let PassStage { passes: after, disabled, overlap } = stage;
        let mut changed = false;
        // Passes already prepared over the current best, ahead of their turn.
        let mut ready = vec![false; after.len()];
        for i in 0..after.len() {
            if disabled.contains(&i) {
                continue;
            }
            self.j.set_pass(after[i].name());
            if !ready[i] {
                self.prepare_ahead(after, disabled, overlap, i, tree, &mut ready);
            }
            ready[i] = false;
            let pass = &mut after[i];
            let mut k = 0;
            'pass: loop {
                let cx = Context { best: &self.j.best, tree, grammar: self.g };
                let ub_safe = self.opts.ub_safe_edits;
                let batch = variants(pass.as_ref(), cx, k, self.opts.search.window.max(1), self.render, self.frontend, ub_safe);
                self.j.stats.ub_avoided += batch.avoided;
                if pass.interrupted() {
                    return Err(OracleError::Interrupted);
                }
                if let Some(why) = &batch.error {
                    self.j.warn(format!("pass {} failed and is disabled: {why}", pass.name()));
                    disabled.insert(i);
                }
                if batch.texts.is_empty() {
                    break;
                }
                let Variants { texts, ks, tokens, next, exhausted, .. } = batch;
                let texts = Texts::given(texts);
                // If variant `w` is accepted, the same pass numbers its instances from
                // `ks[w]` over it: those are its successors.
                // One fresh pass serves every candidate: `prepare` renumbers it from scratch.
                let (mut fresh, frontend, g, render, jobs) = (pass.fresh(), self.frontend, self.g, self.render, self.opts.search.window.max(1));
                let mut successors = |w: usize| -> Successors<'_> {
                    let (Some(p), Ok(parsed)) = (fresh.as_mut(), frontend.parse(texts.get(w))) else { return no_successors() };
                    let cx = Context { best: texts.get(w), tree: &parsed.tree, grammar: g };
                    p.prepare(cx);
                    Box::new(variants(p.as_ref(), cx, ks[w], jobs, render, frontend, ub_safe).texts.into_iter())
                };
                let memo = Memo::Presume(LocalKey { pass: pass.name(), modulo_words: pass.keeps_words() });
                let count = |w: usize| tokens[w];
                let winner = self.j.judge(Batch { texts: &texts, passes: &[], memo, tokens: &count, successors: Some(&mut successors) })?;
                match winner {
                    Some(w) => {
                        changed = true;
                        k = ks[w];
                        let Some(t) = self.parse_best() else { return Ok(false) };
                        *tree = t;
                        ready.fill(false);
                        pass.prepare(Context { best: &self.j.best, tree, grammar: self.g });
                    }
                    None if exhausted => break 'pass,
                    None => k = next,
                }
            }
        }
        Ok(changed)
    }

    /// Prepares pass `i` over the best; when its preparation waits on a process, the slow
    /// passes that follow it (up to the first that is not slow) are prepared with it, `-j`
    /// at a time on this machine's cores, and marked `ready`: the round's later passes
    /// usually meet the same best, and the count commands of clang_delta's 19
    /// transformations otherwise run one by one while the test slots idle. Their time
    /// side by side is counted once in [`crate::judge::Stats::transform_seconds`].
    fn prepare_ahead(&self, after: &mut [Box<dyn passes::Pass>], disabled: &HashSet<usize>, overlap: &mut f64, i: usize, tree: &Tree, ready: &mut [bool]) {
        let cx = Context { best: &self.j.best, tree, grammar: self.g };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let jobs = self.opts.threads.min(cores);
        let slow = |j: usize| after[j].prepares_slowly() && !disabled.contains(&j);
        if jobs < 2 || !slow(i) {
            after[i].prepare(cx);
            return;
        }
        let end = (i..after.len()).find(|&j| !slow(j)).unwrap_or(after.len());
        let spent = |passes: &[Box<dyn passes::Pass>]| passes.iter().map(|p| p.process_seconds()).sum::<f64>();
        let before = spent(&after[i..end]);
        let started = Instant::now();
        passes::prepare_together(&mut after[i..end].iter_mut().collect::<Vec<_>>(), cx, jobs);
        *overlap += (spent(&after[i..end]) - before - started.elapsed().as_secs_f64()).max(0.0);
        ready[i..end].fill(true);
    }
}

/// The next variants of a pass, as one window of the oracle.
struct Variants {
    /// Up to the window's size, the variants smaller than the best under [`Measure`].
    texts: Vec<String>,
    /// Each one's instance number.
    ks: Vec<usize>,
    /// Each one's token count.
    tokens: Vec<usize>,
    /// The instance after the last one asked for.
    next: usize,
    /// Whether the pass ran out (or failed).
    exhausted: bool,
    /// The pass's failure, if it failed.
    error: Option<String>,
    /// Variants not made: they took a value the program reads.
    avoided: usize,
}

/// Instances `k`, `k + 1`, … of `pass` over `cx` until `want` variants smaller than the
/// best (tokens, then bytes, then shortlex) or the pass runs out; a text variant that does
/// not parse counts as the largest, never tested.
/// With `ub_safe`, a variant that takes a value the program reads ([`crate::ub_safe`]) is
/// not made either: counted in `avoided`.
fn variants(pass: &dyn passes::Pass, cx: Context<'_>, k: usize, want: usize, render: RenderOptions, frontend: &Frontend, ub_safe: bool) -> Variants {
    let best = Measure::of(cx.best, cx.tree.token_count());
    let mut b = Variants { texts: Vec::new(), ks: Vec::new(), tokens: Vec::new(), next: k, exhausted: false, error: None, avoided: 0 };
    let none = lopper_tree::EditSet::default();
    while b.texts.len() < want {
        let variant = match pass.instance(cx, b.next) {
            Instance::Exhausted => {
                b.exhausted = true;
                break;
            }
            Instance::Error(why) => {
                b.error = Some(why);
                b.exhausted = true;
                break;
            }
            Instance::Skip => None,
            Instance::Variant(e) if ub_safe && crate::ub_safe::drops_value(cx.tree, cx.grammar, &none, &e) => {
                b.avoided += 1;
                None
            }
            Instance::Variant(e) => Some((cx.tree.render(&e, render), cx.tree.count_tokens(&e))),
            Instance::Text(text) => match frontend.parse_plain(&text) {
                Ok(t) if ub_safe && crate::ub_safe::variant_drops_value(cx.tree, &t, cx.grammar) => {
                    b.avoided += 1;
                    None
                }
                parsed => {
                    let n = parsed.map_or(usize::MAX, |t| t.token_count());
                    Some((text, n))
                }
            },
        };
        if let Some((text, n)) = variant {
            if Measure::of(&text, n) < best {
                b.texts.push(text);
                b.ks.push(b.next);
                b.tokens.push(n);
            }
        }
        b.next += 1;
    }
    b
}
