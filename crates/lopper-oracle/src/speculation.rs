//! Speculation on success and the speculating scheduler: deterministic acceptance over
//! any [`Executor`], with successor runs carried between calls. Knows nothing of
//! processes.

use crate::{Executor, Finished, OracleError, RunId, Screened, Verdict};
use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;

/// Speculative runs whose work was thrown away because an earlier candidate was interesting
/// (or, for a successor, because its candidate was not), and successor runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wasted {
    /// Runs killed before they ended.
    pub cancelled: usize,
    /// Runs that ended, with a verdict past the answer.
    pub finished: usize,
    /// Successor runs started on speculation of a success ([`Speculation`]); those not
    /// used are in `cancelled` or `finished` too.
    pub successors: usize,
    /// Successor runs whose verdict a later call used, as its test of that candidate.
    pub successors_used: usize,
    /// Runs of later candidates cancelled to free a slot for a successor (in `cancelled`
    /// too); their candidates run again if the search needs their verdicts.
    pub preempted: usize,
}

impl std::ops::AddAssign for Wasted {
    fn add_assign(&mut self, o: Wasted) {
        self.cancelled += o.cancelled;
        self.finished += o.finished;
        self.successors += o.successors;
        self.successors_used += o.successors_used;
        self.preempted += o.preempted;
    }
}

/// Speculation on success (lopper's own; the scheduler's state between calls): when a
/// candidate's run has lasted long enough that it is probably interesting (tests that pass
/// often take longer: a compiler crashing prints its stack), free slots start the
/// candidates the search would judge next if it is (its successors, in order) instead of
/// more candidates that are useful only if it is not; when no slot is free and the run has
/// lasted so long that it passes at odds of 3 to 1 or more, the run of the latest later
/// candidate yields its slot to the first successor (once per candidate; that candidate
/// runs again if its verdict is still needed). While most recent verdicts were interesting
/// (a reduction's first steps, where whole unused functions go one after another), a
/// candidate's successors take the free slots as soon as it starts: before the durations
/// can tell the verdicts apart, and whatever they say. Those runs are carried into the next calls;
/// when a later call reaches a candidate with the same text, its run is adopted (or its
/// finished verdict used) instead of a new one, so the verdicts, their order and the
/// counts stay those of `-j 1`.
#[derive(Debug, Default)]
pub struct Speculation {
    /// Wall times of recent runs that were not interesting, and of interesting ones.
    rejected: std::collections::VecDeque<Duration>,
    interesting: std::collections::VecDeque<Duration>,
    /// Successor runs started and not yet adopted.
    carried: Vec<Carried>,
    /// Runs recorded so far: rejected, interesting.
    seen: (usize, usize),
    /// The last [`RECENT`] verdicts, oldest first (`true`: interesting).
    recent: std::collections::VecDeque<bool>,
}

/// A successor's run carried between calls of [`first_interesting`].
#[derive(Debug)]
struct Carried {
    id: RunId,
    text: String,
    /// Its ending, once known.
    done: Option<Finished>,
    /// Started in this call, on speculation that this call's answer is its parent.
    fresh: bool,
    /// Calls that ended without adopting it (it is dropped after [`CARRY_CALLS`]).
    age: usize,
}

/// How many calls a successor's run waits to be adopted (the search may judge one other
/// candidate first, e.g. a follow-up of the one that passed).
const CARRY_CALLS: usize = 2;
/// Durations kept per kind, and the fewest of each before speculating.
const HISTORY: usize = 64;
const MIN_HISTORY: usize = 3;
/// The odds (interesting to rejected) a long run must have before a later run yields its
/// slot to its successors.
const CERTAIN: f64 = 3.0;
/// Verdicts whose majority decides [`Speculation::eager`].
const RECENT: usize = 8;

impl Speculation {
    /// How long a run must have lasted before its success is speculated on: longer than
    /// nine in ten recent rejected runs (and at most halfway between the median rejected and
    /// the median interesting run), when interesting runs take at least 1.5 times as long
    /// as rejected ones; `None` (never) otherwise or before enough runs of each.
    fn patience(&self) -> Option<Duration> {
        if self.rejected.len() < MIN_HISTORY || self.interesting.len() < MIN_HISTORY {
            return None;
        }
        let quantile = |q: &std::collections::VecDeque<Duration>, at: f64| {
            let mut v: Vec<Duration> = q.iter().copied().collect();
            v.sort();
            v[((v.len() - 1) as f64 * at) as usize]
        };
        let (r, i) = (quantile(&self.rejected, 0.5), quantile(&self.interesting, 0.5));
        (i.as_secs_f64() >= 1.5 * r.as_secs_f64()).then(|| quantile(&self.rejected, 0.9).min((r + i) / 2))
    }

    /// Whether more of the last [`RECENT`] verdicts were interesting than not: then a
    /// running candidate's successors are the better bet for a free slot than the next
    /// candidate, which matters only if it fails.
    fn eager(&self) -> bool {
        let yes = self.recent.iter().filter(|&&v| v).count();
        2 * yes > self.recent.len()
    }

    /// How long a run must have lasted before a later candidate's run yields its slot to
    /// its successors (a wrong guess there costs a run started again): the shortest recent
    /// rejected duration past which a run is interesting at least [`CERTAIN`] to 1, by the
    /// recent durations of each kind weighted by how often each verdict came; `None` when
    /// [`Speculation::patience`] does not speculate or no such duration exists.
    fn certainty(&self) -> Option<Duration> {
        self.patience()?;
        let longer = |q: &std::collections::VecDeque<Duration>, e: Duration| q.iter().filter(|&&d| d > e).count() as f64 / q.len() as f64;
        let mut cuts: Vec<Duration> = self.rejected.iter().copied().collect();
        cuts.sort();
        cuts.into_iter().find(|&e| {
            let yes = self.seen.1 as f64 * longer(&self.interesting, e);
            yes > 0.0 && yes >= CERTAIN * self.seen.0 as f64 * longer(&self.rejected, e)
        })
    }

    /// Remembers how long a run with this verdict took.
    pub fn record(&mut self, elapsed: Duration, interesting: bool) {
        if interesting {
            self.seen.1 += 1;
        } else {
            self.seen.0 += 1;
        }
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(interesting);
        let q = if interesting { &mut self.interesting } else { &mut self.rejected };
        if q.len() == HISTORY {
            q.pop_front();
        }
        q.push_back(elapsed);
    }

    /// Keeps the ending of run `id` if it is a carried one (it may end while the executor
    /// is waited on for something else); otherwise hands the ending back.
    pub fn ended(&mut self, id: RunId, f: Finished) -> Option<Finished> {
        match self.carried.iter_mut().find(|c| c.id == id) {
            Some(c) => {
                c.done = Some(f);
                None
            }
            None => Some(f),
        }
    }

    /// Carried runs still in flight.
    fn in_flight(&self) -> usize {
        self.carried.iter().filter(|c| c.done.is_none()).count()
    }

    /// Drops the carried runs `which` selects (cancelling those in flight), counting them
    /// as wasted.
    fn drop_carried(&mut self, exec: &mut dyn Executor, wasted: &mut Wasted, which: impl Fn(&Carried) -> bool) {
        let (gone, kept): (Vec<Carried>, Vec<Carried>) = std::mem::take(&mut self.carried).into_iter().partition(|c| which(c));
        self.carried = kept;
        for c in gone {
            match c.done {
                Some(_) => wasted.finished += 1,
                None => {
                    exec.cancel(c.id);
                    wasted.cancelled += 1;
                }
            }
        }
    }
}

/// Runs in flight, each for an index of its caller's: the slot loop that the scheduler
/// and [`crate::ScriptOracle::run_times`] share (start runs into free slots, wait for one
/// to end while a carried successor's ending goes to the [`Speculation`], cancel the rest).
#[derive(Debug, Default)]
pub(crate) struct Slots {
    /// (run, index).
    running: Vec<(RunId, usize)>,
}

impl Slots {
    /// Runs in flight.
    pub(crate) fn len(&self) -> usize {
        self.running.len()
    }

    /// Whether no run is in flight.
    pub(crate) fn is_empty(&self) -> bool {
        self.running.is_empty()
    }

    /// Starts a run of `text` for `index`.
    ///
    /// # Errors
    /// The executor's.
    pub(crate) fn start(&mut self, exec: &mut dyn Executor, text: &str, capture: bool, index: usize) -> Result<(), OracleError> {
        let id = exec.submit(text, capture)?;
        self.running.push((id, index));
        Ok(())
    }

    /// Waits up to `slice` for a run to end: `(index, ending)` for one of these slots;
    /// `None` when none did (a carried run's ending is kept by `spec`).
    ///
    /// # Errors
    /// The executor's.
    pub(crate) fn wait(&mut self, exec: &mut dyn Executor, spec: &mut Speculation, slice: Duration) -> Result<Option<(usize, Finished)>, OracleError> {
        let Some((id, f)) = exec.wait_any(slice)? else { return Ok(None) };
        let Some(f) = spec.ended(id, f) else { return Ok(None) };
        let at = self.running.iter().position(|r| r.0 == id).expect("a run these slots started");
        Ok(Some((self.running.swap_remove(at).1, f)))
    }

    /// Cancels every run in flight; their indices.
    pub(crate) fn cancel_all(&mut self, exec: &mut dyn Executor) -> Vec<usize> {
        std::mem::take(&mut self.running)
            .into_iter()
            .map(|(id, i)| {
                exec.cancel(id);
                i
            })
            .collect()
    }

    /// How long the run for `index` has lasted, if it is in flight.
    fn lasted(&self, exec: &dyn Executor, index: usize) -> Option<Duration> {
        self.running.iter().find(|r| r.1 == index).map(|r| exec.elapsed(r.0).unwrap_or_default())
    }

    /// Cancels the run of the latest index after `index`; that index.
    fn yield_latest_after(&mut self, exec: &mut dyn Executor, index: usize) -> Option<usize> {
        let at = (0..self.running.len()).filter(|&at| self.running[at].1 > index).max_by_key(|&at| self.running[at].1)?;
        let (id, idx) = self.running.swap_remove(at);
        exec.cancel(id);
        Some(idx)
    }
}

/// The speculative scheduler (deterministic acceptance) over an executor: keeps up to
/// `jobs` runs going, starting candidates in order, each speculating that the ones before
/// it fail, and with `jobs` > 1 lets [`Speculation`] start a candidate's successors in
/// free slots (carrying those runs to the next calls).
pub struct Scheduler<'s> {
    /// Where the runs happen.
    pub exec: &'s mut dyn Executor,
    /// The speculation state kept between calls.
    pub spec: &'s mut Speculation,
    /// Runs at once (at least 1).
    pub jobs: usize,
    /// Whether runs keep their output (the judge reads it).
    pub capture: bool,
}

impl Scheduler<'_> {
    /// Judges `batch`: the verdicts of the shortest prefix whose last verdict is
    /// interesting (or of all candidates), with their indices (skipped candidates left
    /// out), the same for every `jobs` and every order in which runs end; `judge` turns a
    /// run's ending into its verdict. Runs started after the answer are cancelled; the
    /// [`Wasted`] counts them, and the runs that ended with a verdict past the answer (work
    /// that `-j 1` does not do).
    ///
    /// The screen is asked, in order and once each, just before a candidate would start (so
    /// never for candidates past a known answer). A candidate's successors are the texts
    /// the caller would judge next if it is the answer (see [`crate::Batch`]).
    ///
    /// # Errors
    /// The executor's (every run in flight is cancelled first).
    pub fn first_interesting(
        self,
        batch: crate::Batch<'_>,
        judge: &mut dyn FnMut(Finished) -> Verdict,
    ) -> (Result<Vec<(usize, Verdict)>, OracleError>, Wasted) {
        let jobs = self.jobs.max(1);
        let (patience, certainty) = if jobs > 1 { (self.spec.patience(), self.spec.certainty()) } else { (None, None) };
        let n = batch.candidates.len();
        let mut call = Call {
            exec: self.exec,
            spec: self.spec,
            jobs,
            capture: self.capture,
            candidates: batch.candidates,
            judge,
            verdicts: vec![None; n],
            slots: Slots::default(),
            parent: None,
            pending: VecDeque::new(),
            preempted: false,
            requeued: BTreeSet::new(),
            patience,
            certainty,
            next: 0,
            wasted: Wasted::default(),
        };
        let mut run_all = |_| Screened::Run;
        let mut none = |_| Vec::new();
        let screen = batch.screen.unwrap_or(&mut run_all);
        let successors = batch.successors.unwrap_or(&mut none);
        let result = call.run(screen, successors);
        call.finish(result)
    }
}

/// One call of the scheduler: its candidates' verdicts and the speculation under way.
struct Call<'c> {
    exec: &'c mut dyn Executor,
    spec: &'c mut Speculation,
    jobs: usize,
    capture: bool,
    candidates: &'c [&'c str],
    judge: &'c mut dyn FnMut(Finished) -> Verdict,
    /// Per candidate: `None` until known; skipped candidates count as known, not
    /// interesting.
    verdicts: Vec<Option<Option<Verdict>>>,
    slots: Slots,
    /// The candidate whose success this call speculates on, and its successors not started.
    parent: Option<usize>,
    pending: VecDeque<String>,
    /// Whether a later candidate's run yielded its slot to this parent's successors, and
    /// the screened candidates whose runs did (to run again, in order, before `next`).
    preempted: bool,
    requeued: BTreeSet<usize>,
    patience: Option<Duration>,
    certainty: Option<Duration>,
    /// The next candidate to screen.
    next: usize,
    wasted: Wasted,
}

/// What filling the free slots ended with.
enum Filled {
    /// Slots are full, or nothing is left to start.
    Done,
    /// The first unknown candidate just started: decide on speculation before any later
    /// candidate starts.
    Recheck,
}

impl Call<'_> {
    /// The loop: until the answer is known, speculate where it pays, fill the free slots,
    /// wait for a run. The length of the answered prefix.
    fn run(&mut self, screen: &mut dyn FnMut(usize) -> Screened, successors: &mut dyn FnMut(usize) -> Vec<String>) -> Result<usize, OracleError> {
        loop {
            // The answer is known once the first unknown verdict comes after an interesting one.
            let known = self.verdicts.iter().take_while(|v| v.is_some()).count();
            if let Some(i) = self.verdicts[..known].iter().position(|v| *v == Some(Some(Verdict::Interesting))) {
                return Ok(i + 1);
            }
            if known == self.candidates.len() {
                return Ok(known);
            }
            // Successors of a candidate that failed are of no use.
            if self.parent.is_some_and(|p| self.verdicts[p].is_some()) {
                self.parent = None;
                self.pending.clear();
                self.spec.drop_carried(self.exec, &mut self.wasted, |c| c.fresh);
            }
            self.speculate(known, successors);
            self.preempt(known);
            if let Filled::Recheck = self.fill(screen)? {
                continue;
            }
            if self.slots.is_empty() && self.spec.in_flight() == 0 {
                // Everything left was skipped or answered by a carried run.
                continue;
            }
            self.wait(known)?;
        }
    }

    /// Whether the first unknown candidate (`known`) has run longer than `t`.
    fn outlasted(&self, t: Option<Duration>, known: usize) -> bool {
        t.zip(self.slots.lasted(self.exec, known)).is_some_and(|(t, e)| e > t)
    }

    /// When the first unknown candidate has run long (or runs, while most verdicts pass),
    /// what follows its success goes first: its successors, asked once per call.
    fn speculate(&mut self, known: usize, successors: &mut dyn FnMut(usize) -> Vec<String>) {
        let eager = self.jobs > 1 && self.spec.eager() && self.slots.lasted(self.exec, known).is_some();
        if self.parent.is_none() && (eager || self.outlasted(self.patience, known)) && !self.spec.carried.iter().any(|c| c.fresh) {
            // With none, the failure path goes on as usual.
            self.pending = successors(known).into();
            self.parent = Some(known);
            self.preempted = false;
            if !self.pending.is_empty() {
                tracing::debug!(candidate = known, successors = self.pending.len(), "speculating on a success");
            }
        }
    }

    /// With every slot taken and the first run so long that it probably passes, the latest
    /// later candidate yields its slot to the first successor, once: its run matters only
    /// if the long one fails, and it runs again then.
    fn preempt(&mut self, known: usize) {
        let full = self.slots.len() + self.spec.in_flight() >= self.jobs;
        if self.parent.is_some() && !self.pending.is_empty() && !self.preempted && full && self.outlasted(self.certainty, known) {
            if let Some(idx) = self.slots.yield_latest_after(self.exec, known) {
                tracing::debug!(candidate = idx, "run yields its slot to a successor");
                self.wasted.cancelled += 1;
                self.wasted.preempted += 1;
                self.requeued.insert(idx);
                self.preempted = true;
            }
        }
    }

    /// A finished run's verdict, its duration remembered for the patience.
    fn verdict_of(&mut self, f: Finished) -> Verdict {
        let elapsed = f.elapsed;
        let v = (self.judge)(f);
        self.spec.record(elapsed, v == Verdict::Interesting);
        v
    }

    /// Starts runs into the free slots: the parent's successors first, then candidates that
    /// yielded their slot, then the next candidates in order (screened now; a carried run
    /// with the same text is adopted instead of a new one).
    fn fill(&mut self, screen: &mut dyn FnMut(usize) -> Screened) -> Result<Filled, OracleError> {
        let first_yes = self.verdicts.iter().position(|v| *v == Some(Some(Verdict::Interesting))).unwrap_or(usize::MAX);
        while self.slots.len() + self.spec.in_flight() < self.jobs {
            if let Some(text) = self.parent.and_then(|_| self.pending.pop_front()) {
                let id = self.exec.submit(&text, self.capture)?;
                self.wasted.successors += 1;
                self.spec.carried.push(Carried { id, text, done: None, fresh: true, age: 0 });
                continue;
            }
            // A candidate that yielded its slot, already screened, runs again first.
            if let Some(i) = self.requeued.pop_first() {
                if i < first_yes {
                    self.slots.start(self.exec, self.candidates[i], self.capture, i)?;
                }
                continue;
            }
            if self.next >= self.candidates.len() || self.next >= first_yes {
                break;
            }
            let i = self.next;
            self.next += 1;
            if screen(i) == Screened::Skip {
                self.verdicts[i] = Some(None);
                continue;
            }
            // A successor run of an earlier call (or of this one) with this text: adopted.
            if let Some(k) = self.spec.carried.iter().position(|c| c.text == self.candidates[i]) {
                let c = self.spec.carried.remove(k);
                tracing::debug!(candidate = i, finished = c.done.is_some(), "successor used");
                self.wasted.successors_used += 1;
                match c.done {
                    Some(f) => {
                        self.verdicts[i] = Some(Some(self.verdict_of(f)));
                        continue;
                    }
                    None => self.slots.running.push((c.id, i)),
                }
            } else {
                self.slots.start(self.exec, self.candidates[i], self.capture, i)?;
            }
            if self.jobs > 1 && self.parent.is_none() && self.spec.eager() && self.verdicts[..i].iter().all(Option::is_some) {
                return Ok(Filled::Recheck);
            }
        }
        Ok(Filled::Done)
    }

    /// Waits for a run to end, waking when the first candidate's run reaches the patience
    /// (to speculate then) or the certainty (for a later run to yield its slot).
    fn wait(&mut self, known: usize) -> Result<(), OracleError> {
        let yielding = !self.pending.is_empty() && !self.preempted && self.slots.running.iter().any(|r| r.1 > known);
        let wake = match self.parent {
            None => self.patience,
            Some(_) if yielding => self.certainty,
            Some(_) => None,
        };
        let slice = match (wake, self.slots.lasted(self.exec, known)) {
            (Some(t), Some(e)) => t.saturating_sub(e).clamp(Duration::from_millis(1), Duration::from_millis(50)),
            _ => Duration::from_millis(50),
        };
        if let Some((idx, f)) = self.slots.wait(self.exec, self.spec, slice)? {
            self.verdicts[idx] = Some(Some(self.verdict_of(f)));
        }
        Ok(())
    }

    /// Cancels what still runs, keeps the successor runs that may serve the next calls,
    /// and answers with the verdicts of the prefix of length `result`.
    fn finish(mut self, result: Result<usize, OracleError>) -> (Result<Vec<(usize, Verdict)>, OracleError>, Wasted) {
        for idx in self.slots.cancel_all(self.exec) {
            // Speculative runs past the answer (or all runs, on an error) are cancelled.
            self.wasted.cancelled += self.verdicts[idx].is_none() as usize;
        }
        // This call's successor runs stay only if their candidate is the answer; earlier
        // ones while they have calls left.
        let parent_won = match (&result, self.parent) {
            (Ok(n), Some(p)) => *n == p + 1 && self.verdicts[p] == Some(Some(Verdict::Interesting)),
            _ => false,
        };
        if result.is_err() {
            self.spec.drop_carried(self.exec, &mut self.wasted, |_| true);
        } else {
            self.spec.drop_carried(self.exec, &mut self.wasted, |c| if c.fresh { !parent_won } else { c.age + 1 >= CARRY_CALLS });
            for c in &mut self.spec.carried {
                c.age = if c.fresh { 0 } else { c.age + 1 };
                c.fresh = false;
            }
        }
        if let Ok(n) = result {
            self.wasted.finished += self.verdicts[n..].iter().filter(|v| matches!(v, Some(Some(_)))).count();
        }
        let verdicts = &self.verdicts;
        let answer = |n: usize| verdicts[..n].iter().enumerate().filter_map(|(i, v)| v.expect("a known prefix").map(|v| (i, v))).collect();
        (result.map(answer), self.wasted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Batch, Ending};
    use std::collections::BTreeMap;

    /// Runs in simulated time: a run of candidate `c` takes `delay(c)` ticks; `wait_any`
    /// ends the run that finishes first (or lets its slice pass), so runs end in an order
    /// unlike their start order.
    struct Simulated {
        now: u64,
        runs: BTreeMap<RunId, (u64, String)>,
        next: RunId,
        most_in_flight: usize,
        ended: Vec<RunId>,
    }

    fn delay(c: &str) -> u64 {
        // Varied: a function of the text that is not monotone in its position.
        (c.bytes().map(u64::from).sum::<u64>() * 7919) % 13 + 1
    }

    impl Executor for Simulated {
        fn submit(&mut self, candidate: &str, _capture: bool) -> Result<RunId, OracleError> {
            self.next += 1;
            self.runs.insert(self.next, (self.now + delay_of(candidate), candidate.to_string()));
            self.most_in_flight = self.most_in_flight.max(self.runs.len());
            Ok(self.next)
        }
        fn wait_any(&mut self, slice: Duration) -> Result<Option<(RunId, Finished)>, OracleError> {
            let Some((&id, &(at, _))) = self.runs.iter().min_by_key(|(id, (at, _))| (*at, **id)) else { return Ok(None) };
            // The slice passes first if no run ends within it (ticks are milliseconds).
            let until = self.now + (slice.as_millis() as u64).max(1);
            if at > until {
                self.now = until;
                return Ok(None);
            }
            let (_, text) = self.runs.remove(&id).unwrap();
            self.now = at;
            self.ended.push(id);
            let status = std::process::Command::new("true").status().unwrap();
            let elapsed = Duration::from_millis(delay_of(&text));
            Ok(Some((id, Finished { ending: Ending::Exited(status), elapsed, stdout: text, stderr: String::new() })))
        }
        fn cancel(&mut self, id: RunId) {
            self.runs.remove(&id);
        }
        fn in_flight(&self) -> usize {
            self.runs.len()
        }
        fn elapsed(&self, id: RunId) -> Option<Duration> {
            // Simulated ticks as milliseconds: started at (end - delay).
            self.runs.get(&id).map(|(at, text)| Duration::from_millis(self.now + delay_of(text) - at))
        }
    }

    /// A run's delay in ticks: the search model's own when its text names one, else [`delay`].
    fn delay_of(c: &str) -> u64 {
        match c.rsplit_once(" d") {
            Some((_, d)) if d.parse::<u64>().is_ok() => d.parse().unwrap(),
            _ => delay(c),
        }
    }

    #[test]
    fn the_answer_is_the_sequential_one_whatever_the_order_runs_end_in() {
        let candidates: Vec<String> = (0..40).map(|i| format!("candidate {i} {}", "x".repeat(i * 3 % 11))).collect();
        let texts: Vec<&str> = candidates.iter().map(String::as_str).collect();
        // Interesting: candidates 23 and 31 (the answer is the prefix up to 23).
        let mut interesting = |f: Finished| {
            if f.stdout.starts_with("candidate 23 ") || f.stdout.starts_with("candidate 31 ") {
                Verdict::Interesting
            } else {
                Verdict::NotInteresting
            }
        };
        let mut answers = Vec::new();
        for jobs in [1, 2, 5] {
            let mut sim = Simulated { now: 0, runs: BTreeMap::new(), next: 0, most_in_flight: 0, ended: Vec::new() };
            let (verdicts, wasted) =
                Scheduler { exec: &mut sim, spec: &mut Speculation::default(), jobs, capture: false }.first_interesting(Batch::new(&texts), &mut interesting);
            // What was started and neither ended nor needed is counted as cancelled; what
            // ended past the answer as finished.
            assert_eq!(wasted.cancelled + sim.ended.len(), sim.next as usize, "jobs {jobs}");
            let verdicts: Vec<Verdict> = verdicts.unwrap().into_iter().map(|(_, v)| v).collect();
            assert_eq!(wasted.finished + verdicts.len(), sim.ended.len(), "jobs {jobs}");
            assert_eq!(verdicts.len(), 24, "jobs {jobs}");
            assert_eq!(verdicts.last(), Some(&Verdict::Interesting));
            // The pipeline overlapped, and runs ended out of their start order.
            assert_eq!(sim.most_in_flight, jobs);
            if jobs > 1 {
                assert!(sim.ended.windows(2).any(|w| w[0] > w[1]), "jobs {jobs}: {:?}", sim.ended);
            }
            assert_eq!(sim.in_flight(), 0, "nothing left running");
            answers.push(verdicts);
        }
        assert_eq!(answers[0], answers[1]);
        assert_eq!(answers[0], answers[2]);
    }

    #[test]
    fn candidates_are_screened_only_when_a_slot_frees_and_skipped_ones_never_run() {
        let candidates: Vec<String> = (0..40).map(|i| format!("candidate {i} {}", "x".repeat(i * 3 % 11))).collect();
        let texts: Vec<&str> = candidates.iter().map(String::as_str).collect();
        let mut interesting = |f: Finished| if f.stdout.starts_with("candidate 23 ") { Verdict::Interesting } else { Verdict::NotInteresting };
        let mut answers = Vec::new();
        for jobs in [1, 2, 5] {
            let mut sim = Simulated { now: 0, runs: BTreeMap::new(), next: 0, most_in_flight: 0, ended: Vec::new() };
            let mut screened = Vec::new();
            // Even candidates are judged by the caller without a run.
            let mut screen = |i: usize| {
                screened.push(i);
                if i.is_multiple_of(2) {
                    Screened::Skip
                } else {
                    Screened::Run
                }
            };
            let (verdicts, _) = Scheduler { exec: &mut sim, spec: &mut Speculation::default(), jobs, capture: false }
                .first_interesting(Batch::new(&texts).screened(&mut screen), &mut interesting);
            let verdicts = verdicts.unwrap();
            let judged: Vec<usize> = verdicts.iter().map(|v| v.0).collect();
            assert_eq!(judged, (1..=23).step_by(2).collect::<Vec<_>>(), "jobs {jobs}");
            assert_eq!(verdicts.last().unwrap().1, Verdict::Interesting);
            // In order, once each; past the answer only what free slots asked for.
            assert_eq!(screened, (0..screened.len()).collect::<Vec<_>>(), "jobs {jobs}");
            assert!(screened.len() >= 24 && screened.len() <= 24 + 2 * (jobs - 1), "jobs {jobs}: screened {}", screened.len());
            if jobs == 1 {
                assert_eq!(screened.len(), 24, "one slot screens nothing past the answer");
            }
            // One run per candidate screened to run, none for the skipped.
            assert_eq!(sim.next as usize, screened.iter().filter(|i| !i.is_multiple_of(2)).count(), "jobs {jobs}");
            answers.push(verdicts);
        }
        assert_eq!(answers[0], answers[1]);
        assert_eq!(answers[0], answers[2]);
    }

    /// Per call of a search: the (candidate, verdict) pairs judged.
    type Calls = Vec<Vec<(usize, Verdict)>>;

    /// A search of steps, as a reducer's list minimizer makes them: each call judges a
    /// window of 4 candidates of step `s` (`s{s} from{a} c{j}`, after the step's answer
    /// `a`); candidate `j` of a step is interesting when `j == s % 5` (none at 4), and
    /// interesting runs take 10 ticks, rejected ones 2. A candidate's successor is the
    /// next step's first candidate after it. Returns the verdicts of every call, the
    /// simulated time, and the counts.
    fn search(jobs: usize, speculate: bool) -> (Calls, u64, Wasted, usize) {
        search_with(jobs, speculate, |s| s % 5, 10, 2)
    }

    /// [`search`] with step `s`'s interesting candidate `passing(s)` (none at 4 or more),
    /// interesting runs taking `yes` ticks and rejected ones `no`.
    fn search_with(jobs: usize, speculate: bool, passing: impl Fn(usize) -> usize, yes: u64, no: u64) -> (Calls, u64, Wasted, usize) {
        let mut sim = Simulated { now: 0, runs: BTreeMap::new(), next: 0, most_in_flight: 0, ended: Vec::new() };
        let mut spec = Speculation::default();
        let (mut all, mut total) = (Vec::new(), Wasted::default());
        let text = |s: usize, from: usize, j: usize| {
            let (verdict, d) = if j == passing(s) { ("yes", yes) } else { ("no", no) };
            format!("s{s} from{from} c{j} {verdict} d{d}")
        };
        let mut from = 0;
        for s in 0..40 {
            let texts: Vec<String> = (0..4).map(|j| text(s, from, j)).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let mut successor = |i: usize| if speculate { (0..4).map(|j| text(s + 1, i, j)).collect() } else { Vec::new() };
            let mut interesting = |f: Finished| if f.stdout.contains(" yes ") { Verdict::Interesting } else { Verdict::NotInteresting };
            let (verdicts, wasted) = Scheduler { exec: &mut sim, spec: &mut spec, jobs, capture: false }
                .first_interesting(Batch::new(&refs).with_successors(&mut successor), &mut interesting);
            let verdicts = verdicts.unwrap();
            total += wasted;
            from = verdicts.last().filter(|v| v.1 == Verdict::Interesting).map_or(4, |v| v.0);
            all.push(verdicts);
        }
        spec.drop_carried(&mut sim, &mut total, |_| true);
        assert_eq!(sim.in_flight(), 0, "nothing left running");
        (all, sim.now, total, sim.next as usize)
    }

    #[test]
    fn a_successor_started_on_a_probable_success_is_used_and_changes_no_verdict() {
        let (sequential, t1, w1, runs1) = search(1, true);
        assert_eq!((w1.successors, w1.successors_used), (0, 0), "one slot never speculates");
        let judged: usize = sequential.iter().map(Vec::len).sum();
        assert_eq!(runs1, judged);
        let (plain, t_plain, w_plain, _) = search(2, false);
        let (spec, t_spec, w, _) = search(2, true);
        assert_eq!(plain, sequential);
        assert_eq!(spec, sequential);
        assert_eq!(w_plain.successors, 0);
        // Once three runs of each kind are known, each long run's successor starts early and
        // the next call uses it.
        assert!(w.successors >= 20 && w.successors_used == w.successors, "{w:?}");
        assert!(t_spec < t_plain && t_plain < t1, "simulated time: {t_spec} with successors, {t_plain} without, {t1} at -j 1");
        let (five, _, _, _) = search(5, true);
        assert_eq!(five, sequential);
    }

    #[test]
    fn while_most_verdicts_pass_successors_start_at_once_whatever_the_durations() {
        // Every step's first candidate passes, and runs take as long whatever their verdict:
        // no duration tells a passing run apart, only the verdicts so far.
        let (sequential, t1, _, _) = search_with(1, true, |_| 0, 5, 5);
        let (plain, t_plain, _, _) = search_with(2, false, |_| 0, 5, 5);
        let (spec, t_spec, w, _) = search_with(2, true, |_| 0, 5, 5);
        assert_eq!(plain, sequential);
        assert_eq!(spec, sequential);
        assert_eq!(t_plain, t1, "without successors the second slot runs only wasted candidates");
        assert!(w.successors_used >= 30, "{w:?}");
        assert!(t_spec * 10 <= t1 * 6, "simulated time: {t_spec} with successors, {t1} at -j 1");
        // Where most verdicts fail, the durations decide, and equal ones never speculate:
        // one successor, after the first verdict (a pass) alone.
        let (_, _, w, _) = search_with(2, true, |s| if s % 4 == 0 { 0 } else { 4 }, 5, 5);
        assert_eq!(w.successors, 1, "{w:?}");
    }

    #[test]
    fn a_later_run_yields_its_slot_to_a_successor_and_runs_again_when_the_long_one_fails() {
        let mut sim = Simulated { now: 0, runs: BTreeMap::new(), next: 0, most_in_flight: 0, ended: Vec::new() };
        let mut spec = Speculation::default();
        // Rejected runs take 2 ticks, interesting ones 10: a run past 2 is probably a pass.
        for _ in 0..MIN_HISTORY {
            spec.record(Duration::from_millis(2), false);
            spec.record(Duration::from_millis(10), true);
        }
        let mut interesting = |f: Finished| if f.stdout.contains("yes") { Verdict::Interesting } else { Verdict::NotInteresting };
        // Candidate 0 runs long and fails; 1 passes; 0's successor would pass too.
        let texts = ["c0 no d10", "c1 yes d6"];
        let mut successors = |i: usize| if i == 0 { vec!["s0 yes d2".to_string()] } else { Vec::new() };
        let (verdicts, wasted) = Scheduler { exec: &mut sim, spec: &mut spec, jobs: 2, capture: false }
            .first_interesting(Batch::new(&texts).with_successors(&mut successors), &mut interesting);
        assert_eq!(verdicts.unwrap(), [(0, Verdict::NotInteresting), (1, Verdict::Interesting)]);
        // c1 yielded its slot to s0 once c0 outlasted the patience (c1's run cancelled);
        // s0 ended unused, as c0 failed; c1 ran again: four runs.
        assert_eq!((wasted.preempted, wasted.successors, wasted.cancelled, wasted.finished), (1, 1, 1, 1), "{wasted:?}");
        assert_eq!(sim.next, 4);
        assert_eq!(sim.in_flight(), 0, "nothing left running");
    }
}
