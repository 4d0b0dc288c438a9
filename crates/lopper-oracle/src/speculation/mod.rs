//! Speculation on success and the speculating scheduler: deterministic acceptance over
//! any [`Executor`], with successor runs carried between calls. Knows nothing of
//! processes.

mod slots;

use crate::{Candidates, Executor, Finished, OracleError, RunId, Screened, Successors, Verdict};
pub(crate) use slots::Slots;
use std::collections::BTreeSet;
use std::iter::Peekable;
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
            pending: None,
            preempted: false,
            requeued: BTreeSet::new(),
            patience,
            certainty,
            next: 0,
            wasted: Wasted::default(),
        };
        let mut run_all = |_| Screened::Run;
        let mut none = |_| crate::no_successors();
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
    candidates: Candidates<'c>,
    judge: &'c mut dyn FnMut(Finished) -> Verdict,
    /// Per candidate: `None` until known; skipped candidates count as known, not
    /// interesting.
    verdicts: Vec<Option<Option<Verdict>>>,
    slots: Slots,
    /// The candidate whose success this call speculates on, and its successors not started.
    parent: Option<usize>,
    pending: Option<Peekable<Successors<'c>>>,
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

impl<'c> Call<'c> {
    /// The loop: until the answer is known, speculate where it pays, fill the free slots,
    /// wait for a run. The length of the answered prefix.
    fn run<'b: 'c>(&mut self, screen: &mut dyn FnMut(usize) -> Screened, successors: &mut dyn FnMut(usize) -> Successors<'b>) -> Result<usize, OracleError> {
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
                self.pending = None;
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

    /// Whether a successor of the parent is left to start (the next one is made now, if it
    /// was not yet).
    fn has_pending(&mut self) -> bool {
        self.pending.as_mut().is_some_and(|p| p.peek().is_some())
    }

    /// Whether the first unknown candidate (`known`) has run longer than `t`.
    fn outlasted(&self, t: Option<Duration>, known: usize) -> bool {
        t.zip(self.slots.lasted(self.exec, known)).is_some_and(|(t, e)| e > t)
    }

    /// When the first unknown candidate has run long (or runs, while most verdicts pass),
    /// what follows its success goes first: its successors, asked once per call.
    fn speculate<'b: 'c>(&mut self, known: usize, successors: &mut dyn FnMut(usize) -> Successors<'b>) {
        let eager = self.jobs > 1 && self.spec.eager() && self.slots.lasted(self.exec, known).is_some();
        if self.parent.is_none() && (eager || self.outlasted(self.patience, known)) && !self.spec.carried.iter().any(|c| c.fresh) {
            // With none, the failure path goes on as usual.
            let next: Successors<'c> = successors(known);
            self.pending = Some(next.peekable());
            self.parent = Some(known);
            self.preempted = false;
            if self.has_pending() {
                tracing::debug!(candidate = known, "speculating on a success");
            }
        }
    }

    /// With every slot taken and the first run so long that it probably passes, the latest
    /// later candidate yields its slot to the first successor, once: its run matters only
    /// if the long one fails, and it runs again then.
    fn preempt(&mut self, known: usize) {
        let full = self.slots.len() + self.spec.in_flight() >= self.jobs;
        if self.parent.is_some() && !self.preempted && full && self.outlasted(self.certainty, known) && self.has_pending() {
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
            if let Some(text) = self.parent.and(self.pending.as_mut()).and_then(Iterator::next) {
                let id = self.exec.submit(&text, self.capture)?;
                self.wasted.successors += 1;
                self.spec.carried.push(Carried { id, text, done: None, fresh: true, age: 0 });
                continue;
            }
            // A candidate that yielded its slot, already screened, runs again first.
            if let Some(i) = self.requeued.pop_first() {
                if i < first_yes {
                    self.slots.start(self.exec, self.candidates.get(i), self.capture, i)?;
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
            if let Some(k) = self.spec.carried.iter().position(|c| c.text == self.candidates.get(i)) {
                let c = self.spec.carried.remove(k);
                tracing::debug!(candidate = i, finished = c.done.is_some(), "successor used");
                self.wasted.successors_used += 1;
                match c.done {
                    Some(f) => {
                        self.verdicts[i] = Some(Some(self.verdict_of(f)));
                        continue;
                    }
                    None => self.slots.adopt(c.id, i),
                }
            } else {
                self.slots.start(self.exec, self.candidates.get(i), self.capture, i)?;
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
        let yielding = !self.preempted && self.slots.any_after(known) && self.has_pending();
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
mod tests;
