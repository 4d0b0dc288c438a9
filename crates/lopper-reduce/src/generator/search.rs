//! The search over a generator's trace (see the [module docs](super)): loops, selections
//! and values by the tree strategy, ddmin over the flat sequence, each to its fixpoint.

use super::patterns::{self, Loop};
use super::trace::{Trace, HIGH, LOW};
use super::{GenError, GenOptions, GenOutcome, GenProgress, GenStats, Strategy};
use crate::minimize::ddmin::ddmin;
use crate::oracle::generator::{Align, GeneratorRun, GeneratorRunner, RunFailure};
use crate::oracle::{Oracle, OracleError, Verdict};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// A candidate: a trace to replay, each entry's index in the base trace it was cut from, and
/// (for bypass) the loops of that base.
struct Candidate {
    trace: Trace,
    origin: Vec<usize>,
    /// Never run: a count below what its call allows.
    skip: bool,
}

/// The search state: the best output and trace, the verdict cache, the counts.
struct Search<'a> {
    runner: &'a GeneratorRunner,
    oracle: &'a mut dyn Oracle,
    opts: &'a GenOptions,
    progress: &'a mut dyn GenProgress,
    best_output: String,
    best: Trace,
    cache: HashMap<blake3::Hash, Verdict>,
    stats: GenStats,
}

/// Reduces the generator's trace (GReduce), starting from the recorded `output` and `trace`,
/// which the caller has found interesting (sanity runs). Every new best goes to `progress`
/// before the search goes on.
///
/// # Errors
/// Oracle errors other than an interrupt (which ends the search with `interrupted` set).
pub fn reduce_trace(
    runner: &GeneratorRunner,
    oracle: &mut dyn Oracle,
    output: String,
    trace: Trace,
    opts: &GenOptions,
    progress: &mut dyn GenProgress,
) -> Result<GenOutcome, GenError> {
    let started = Instant::now();
    let runs_before = runner.runs();
    let mut cache = HashMap::new();
    cache.insert(blake3::hash(output.as_bytes()), Verdict::Interesting);
    let stats = GenStats { choices_before: trace.len(), bytes_before: output.len(), ..GenStats::default() };
    let mut s = Search { runner, oracle, opts, progress, best_output: output, best: trace, cache, stats };
    let result = s.run();
    s.stats.choices_after = s.best.len();
    s.stats.bytes_after = s.best_output.len();
    s.stats.speculative_runs = runner.runs() - runs_before - s.stats.generator_runs;
    s.stats.seconds = started.elapsed().as_secs_f64();
    let interrupted = match result {
        Ok(()) => false,
        Err(OracleError::Interrupted) => true,
        Err(e) => return Err(e.into()),
    };
    Ok(GenOutcome { output: s.best_output, trace: s.best.to_jsonl(), stats: s.stats, interrupted })
}

impl Search<'_> {
    fn run(&mut self) -> Result<(), OracleError> {
        let mut sequence_round = false;
        loop {
            self.stats.rounds += 1;
            let before = self.stats.accepted;
            match self.opts.strategy {
                Strategy::Sequence => self.sequence()?,
                Strategy::TreeThenSequence if sequence_round => self.sequence()?,
                Strategy::Tree | Strategy::TreeThenSequence => {
                    self.loops()?;
                    self.selections()?;
                    self.values()?;
                }
            }
            let progress = self.stats.accepted != before;
            if !self.opts.fixpoint {
                return Ok(());
            }
            // tree-then-sequence: a sequence round after the tree's fixpoint, tree rounds
            // again after a sequence round that found something.
            sequence_round = self.opts.strategy == Strategy::TreeThenSequence && !sequence_round && !progress;
            if !progress && !sequence_round {
                return Ok(());
            }
        }
    }

    /// Deletes loop iterations, largest loop first, each loop with ddmin over its iterations
    /// (after trying the fewest the count allows).
    fn loops(&mut self) -> Result<(), OracleError> {
        let mut done: HashSet<(String, usize)> = HashSet::new();
        loop {
            let base = self.best.clone();
            let mut loops = patterns::loops(&base);
            loops.sort_by_key(|l| std::cmp::Reverse(l.span()));
            let id = |l: &Loop| {
                let key = base.choices[l.count].key();
                (key.clone(), base.choices[..l.count].iter().filter(|c| c.key() == key).count())
            };
            let Some(l) = loops.iter().find(|l| l.iterations.len() > l.min && !done.contains(&id(l))).cloned() else { return Ok(()) };
            done.insert(id(&l));
            let n = l.iterations.len();
            // The fewest iterations first (the first `min`), then ddmin.
            let fewest: Vec<usize> = (0..l.min).collect();
            let c = patterns::keep_iterations(&base, &l, &fewest);
            if self.first(vec![Candidate { trace: c.0, origin: c.1, skip: false }], &loops)?.is_some() {
                continue;
            }
            let min = l.min;
            let jobs = self.opts.jobs;
            ddmin((0..n).collect(), jobs, &mut |cands: &[Vec<usize>]| {
                let built: Vec<Candidate> = cands
                    .iter()
                    .map(|kept| {
                        if kept.len() < min {
                            // Fewer iterations than the count allows: never generated.
                            Candidate { trace: Trace::default(), origin: Vec::new(), skip: true }
                        } else {
                            let (trace, origin) = patterns::keep_iterations(&base, &l, kept);
                            Candidate { trace, origin, skip: false }
                        }
                    })
                    .collect();
                self.first(built, &loops)
            })?;
        }
    }

    /// Flips each selection to its largest value (the smallest is the values pass's), one at
    /// a time in trace order.
    fn selections(&mut self) -> Result<(), OracleError> {
        let mut from = 0;
        loop {
            let base = self.best.clone();
            let picks: Vec<usize> = (from..base.len()).filter(|&j| base.choices[j].is_selection() && !base.choices[j].value.get().contains("lopper")).collect();
            if picks.is_empty() {
                return Ok(());
            }
            let mut answered = None;
            for chunk in picks.chunks(self.opts.jobs.max(1)) {
                let cands = chunk
                    .iter()
                    .map(|&j| {
                        let mut t = base.clone();
                        t.choices[j] = t.choices[j].with_value(HIGH);
                        Candidate { trace: t, origin: (0..base.len()).collect(), skip: false }
                    })
                    .collect();
                if let Some(i) = self.first(cands, &[])? {
                    answered = Some(chunk[i]);
                    break;
                }
            }
            match answered {
                Some(j) => from = j + 1,
                None => return Ok(()),
            }
        }
    }

    /// Lowers choices to the smallest value their call allows: all at once first, then, as
    /// HDD does level by level, ddmin over the call sites (every choice a call site made
    /// lowered together), then ddmin over the choices of each call site that made at most
    /// [`VALUE_GROUP_LIMIT`] (a site that made hundreds, a coin per pair of nodes, is left
    /// to the selections pass: ddmin over hundreds of choices that nearly all must stay
    /// costs a generator run per choice many times over), then bisection.
    fn values(&mut self) -> Result<(), OracleError> {
        let base = self.best.clone();
        let movable: Vec<usize> = (0..base.len()).filter(|&j| !base.choices[j].is_low()).collect();
        if movable.is_empty() {
            return Ok(());
        }
        if self.first(vec![lowered(&base, &movable, &[])], &[])?.is_some() {
            return Ok(());
        }
        let jobs = self.opts.jobs;
        let sites = call_sites(&base, &movable);
        if sites.len() > 1 {
            let all: Vec<usize> = (0..sites.len()).collect();
            ddmin(all, jobs, &mut |cands: &[Vec<usize>]| {
                let built = cands.iter().map(|k| lowered(&base, &movable, &k.iter().flat_map(|&g| sites[g].1.iter().copied()).collect::<Vec<_>>())).collect();
                self.first(built, &[])
            })?;
        }
        let keys: Vec<String> = sites.into_iter().map(|(k, _)| k).collect();
        for key in keys {
            let base = self.best.clone();
            let members: Vec<usize> = (0..base.len()).filter(|&j| !base.choices[j].is_low() && base.choices[j].key() == key).collect();
            if members.len() < 2 || members.len() > VALUE_GROUP_LIMIT {
                continue;
            }
            ddmin(members.clone(), jobs, &mut |cands: &[Vec<usize>]| {
                let built = cands.iter().map(|k| lowered(&base, &members, k)).collect();
                self.first(built, &[])
            })?;
        }
        self.bisect()
    }

    /// Bisects each scalar choice still above its smallest value toward it (at most 8 steps
    /// each): a count drawn as `Math.random() * n` or a `randint` length that must stay
    /// above some value gets the smallest one that keeps the output interesting. Only the
    /// choices of call sites that made at most [`BISECT_GROUP_LIMIT`]: counts and lengths
    /// are drawn a few times, coins many.
    fn bisect(&mut self) -> Result<(), OracleError> {
        let site_sizes =
            |t: &Trace| -> HashMap<String, usize> { call_sites(t, &(0..t.len()).collect::<Vec<_>>()).into_iter().map(|(k, js)| (k, js.len())).collect() };
        let mut sizes = site_sizes(&self.best);
        let mut j = 0;
        while j < self.best.len() {
            let Some((mut lo, mut hi, int)) = self.best.choices[j].bisect_bounds() else {
                j += 1;
                continue;
            };
            if sizes.get(&self.best.choices[j].key()).is_none_or(|&n| n > BISECT_GROUP_LIMIT) {
                j += 1;
                continue;
            }
            let accepted = self.stats.accepted;
            for _ in 0..8 {
                let mid = if int { ((lo + hi) / 2.0).floor() } else { (lo + hi) / 2.0 };
                if mid <= lo || mid >= hi || j >= self.best.len() {
                    break;
                }
                let text = if int { format!("{}", mid as i64) } else { format!("{mid:?}") };
                let mut t = self.best.clone();
                t.choices[j] = t.choices[j].with_value(&text);
                let n = t.len();
                if self.first(vec![Candidate { trace: t, origin: (0..n).collect(), skip: false }], &[])?.is_some() {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            if self.stats.accepted != accepted {
                // A new best trace may have other call sites and counts.
                sizes = site_sizes(&self.best);
            }
            j += 1;
        }
        Ok(())
    }

    /// ddmin over the flat sequence of choices (deleted choices get the smallest value when
    /// the generator still asks for them, under re-align).
    fn sequence(&mut self) -> Result<(), OracleError> {
        let base = self.best.clone();
        let keep = |kept: &[usize]| Candidate {
            trace: Trace { choices: kept.iter().map(|&j| base.choices[j].clone()).collect() },
            origin: kept.to_vec(),
            skip: false,
        };
        if self.first(vec![keep(&[])], &[])?.is_some() {
            return Ok(());
        }
        let jobs = self.opts.jobs;
        ddmin((0..base.len()).collect(), jobs, &mut |cands: &[Vec<usize>]| {
            let built = cands.iter().map(|k| keep(k)).collect();
            self.first(built, &[])
        })?;
        Ok(())
    }

    /// Replays the candidates (up to `jobs` generator runs at once), judges their outputs in
    /// order, and accepts the first interesting one that is smaller than the best; answers
    /// its index. Candidates with an empty trace and no origin are never run (infeasible).
    fn first(&mut self, cands: Vec<Candidate>, loops: &[Loop]) -> Result<Option<usize>, OracleError> {
        let jobs = self.opts.jobs.max(1);
        let mut replayed: Vec<Option<(usize, Result<GeneratorRun, OracleError>)>> = Vec::with_capacity(cands.len());
        for chunk in cands.chunks(jobs) {
            let runner = self.runner;
            let (align, bypass_loops) = (self.opts.align, if self.opts.align == Align::Bypass { loops } else { &[] });
            let results: Vec<Option<(usize, Result<GeneratorRun, OracleError>)>> = std::thread::scope(|scope| {
                let handles: Vec<_> = chunk.iter().map(|c| scope.spawn(move || (!c.skip).then(|| replay_candidate(runner, c, bypass_loops, align)))).collect();
                handles.into_iter().map(|h| h.join().expect("a replay thread does not panic")).collect()
            });
            replayed.extend(results);
        }
        // Verdicts known without a test, in order; the first interesting one bounds the tests.
        // Each candidate's counts are added only if a sequential run would have judged it.
        let mut known: Vec<Option<Verdict>> = Vec::with_capacity(cands.len());
        let mut outputs: Vec<Option<(String, String)>> = Vec::with_capacity(cands.len());
        let mut tallies: Vec<GenStats> = Vec::with_capacity(cands.len());
        for r in replayed {
            let mut t = GenStats::default();
            let Some((runs, r)) = r else {
                t.infeasible += 1;
                tallies.push(t);
                known.push(Some(Verdict::NotInteresting));
                outputs.push(None);
                continue;
            };
            let run = r?;
            t.generator_runs += runs;
            t.realigned += usize::from(!run.misaligned.is_empty());
            match run.output {
                Err(_) => {
                    t.infeasible += 1;
                    known.push(Some(Verdict::NotInteresting));
                    outputs.push(None);
                }
                Ok(out) => {
                    let smaller = Trace::parse(&run.trace).is_ok_and(|tr| measure(&out, &tr) < measure(&self.best_output, &self.best));
                    if !smaller {
                        t.not_smaller += 1;
                        known.push(Some(Verdict::NotInteresting));
                        outputs.push(None);
                    } else {
                        let cached = self.cache.get(&blake3::hash(out.as_bytes())).copied();
                        t.cache_hits += usize::from(cached.is_some());
                        known.push(cached);
                        outputs.push(Some((out, run.trace)));
                    }
                }
            }
            tallies.push(t);
        }
        let stop = known.iter().position(|v| *v == Some(Verdict::Interesting)).unwrap_or(known.len());
        let untested: Vec<usize> = (0..stop).filter(|&i| known[i].is_none()).collect();
        let mut winner = (stop < known.len()).then_some(stop);
        if !untested.is_empty() {
            let texts: Vec<&str> = untested.iter().map(|&i| outputs[i].as_ref().expect("untested candidates have output").0.as_str()).collect();
            let verdicts = self.oracle.first_interesting(&texts)?;
            let remembered = verdicts.iter().filter(|j| j.remembered).count();
            self.stats.remembered += remembered;
            self.stats.tests += verdicts.len() - remembered;
            for j in &verdicts {
                let i = untested[j.index];
                self.cache.insert(blake3::hash(texts[j.index].as_bytes()), j.verdict);
                if j.verdict == Verdict::Interesting {
                    winner = Some(i);
                }
            }
        }
        for t in &tallies[..winner.map_or(tallies.len(), |w| w + 1)] {
            self.stats.generator_runs += t.generator_runs;
            self.stats.infeasible += t.infeasible;
            self.stats.realigned += t.realigned;
            self.stats.not_smaller += t.not_smaller;
            self.stats.cache_hits += t.cache_hits;
        }
        let Some(w) = winner else { return Ok(None) };
        let (out, trace) = outputs[w].take().expect("the winner has output");
        let trace = match Trace::parse(&trace) {
            Ok(t) => t,
            // An unreadable recorded trace cannot be built on; the candidate is dropped.
            Err(_) => return Ok(None),
        };
        self.best_output = out;
        self.best = trace;
        self.stats.accepted += 1;
        self.progress.new_best(&self.best_output, &self.best, &self.stats).map_err(OracleError::Keep)?;
        tracing::debug!(bytes = self.best_output.len(), choices = self.best.len(), "new best generator output");
        Ok(Some(w))
    }
}

/// Call sites that made more choices than this are not searched choice by choice when
/// lowering values (see `Search::values`).
pub const VALUE_GROUP_LIMIT: usize = 32;

/// Call sites that made more choices than this are not bisected (see `Search::bisect`).
pub const BISECT_GROUP_LIMIT: usize = 16;

/// `base` with every choice of `movable` not in `kept` lowered to its smallest value.
fn lowered(base: &Trace, movable: &[usize], kept: &[usize]) -> Candidate {
    let mut t = base.clone();
    for j in movable {
        if !kept.contains(j) {
            t.choices[*j] = t.choices[*j].with_value(LOW);
        }
    }
    Candidate { trace: t, origin: (0..base.len()).collect(), skip: false }
}

/// The choices `of` grouped by call sites (their stacks' sites), in order of first occurrence.
fn call_sites(t: &Trace, of: &[usize]) -> Vec<(String, Vec<usize>)> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for &j in of {
        let key = t.choices[j].key();
        match index.get(&key) {
            Some(&g) => groups[g].1.push(j),
            None => {
                index.insert(key.clone(), groups.len());
                groups.push((key, vec![j]));
            }
        }
    }
    groups
}

/// The progress measure: output bytes, then choices, then choices not at their smallest
/// value; every accepted candidate lowers it, so the search ends.
fn measure(output: &str, trace: &Trace) -> (usize, usize, usize) {
    (output.len(), trace.len(), trace.choices.iter().filter(|c| !c.is_low()).count())
}

/// Replays one candidate; under bypass, a halted replay is retried without the loop
/// iteration (of `base`) around the misaligned entry, up to three times.
fn replay_candidate(runner: &GeneratorRunner, c: &Candidate, loops: &[Loop], align: Align) -> (usize, Result<GeneratorRun, OracleError>) {
    let mut runs = 0;
    let result = replay_with_bypass(runner, c, loops, align, &mut runs);
    (runs, result)
}

fn replay_with_bypass(runner: &GeneratorRunner, c: &Candidate, loops: &[Loop], align: Align, runs: &mut usize) -> Result<GeneratorRun, OracleError> {
    let mut trace = c.trace.clone();
    let mut origin = c.origin.clone();
    let mut dropped: Vec<(usize, usize)> = Vec::new();
    for _ in 0..4 {
        *runs += 1;
        let run = runner.run(Some(&trace.to_jsonl()), align)?;
        let Err(RunFailure::Halted(at)) = &run.output else { return Ok(run) };
        if align != Align::Bypass {
            return Ok(run);
        }
        let at_base = origin.get(*at).copied().or_else(|| origin.last().map(|o| o + 1)).unwrap_or(0);
        let Some((li, k)) = patterns::iteration_at(loops, at_base).filter(|p| !dropped.contains(p)) else { return Ok(run) };
        dropped.push((li, k));
        let l = &loops[li];
        let gone = l.iterations[k].clone();
        let kept_here = l.iterations.len() - dropped.iter().filter(|(x, _)| *x == li).count();
        if kept_here < l.min {
            return Ok(run);
        }
        let mut t = Trace::default();
        let mut o = Vec::new();
        for (j, ch) in trace.choices.iter().enumerate() {
            let b = origin[j];
            if gone.contains(&b) {
                continue;
            }
            t.choices.push(if b == l.count { ch.with_value(&kept_here.to_string()) } else { ch.clone() });
            o.push(b);
        }
        trace = t;
        origin = o;
    }
    *runs += 1;
    runner.run(Some(&trace.to_jsonl()), Align::Halt)
}
