//! The scheduler in simulated time: answers, screens and speculation against `-j 1`.

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
    // How many successor lists were asked for, and how many successors were made.
    let (asked, made) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let (asked, made) = (&asked, &made);
    for s in 0..40 {
        let texts: Vec<String> = (0..4).map(|j| text(s, from, j)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut successor = |i: usize| -> crate::Successors<'_> {
            if !speculate {
                return crate::no_successors();
            }
            asked.set(asked.get() + 1);
            Box::new((0..4).map(move |j| {
                made.set(made.get() + 1);
                text(s + 1, i, j)
            }))
        };
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
    // Successors are made as slots take them: at most one more per list than started.
    assert!(made.get() <= total.successors + asked.get(), "{} made, {} started, {} lists", made.get(), total.successors, asked.get());
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
    let mut successors = |i: usize| -> crate::Successors<'_> { Box::new((i == 0).then(|| "s0 yes d2".to_string()).into_iter()) };
    let (verdicts, wasted) = Scheduler { exec: &mut sim, spec: &mut spec, jobs: 2, capture: false }
        .first_interesting(Batch::new(&texts).with_successors(&mut successors), &mut interesting);
    assert_eq!(verdicts.unwrap(), [(0, Verdict::NotInteresting), (1, Verdict::Interesting)]);
    // c1 yielded its slot to s0 once c0 outlasted the patience (c1's run cancelled);
    // s0 ended unused, as c0 failed; c1 ran again: four runs.
    assert_eq!((wasted.preempted, wasted.successors, wasted.cancelled, wasted.finished), (1, 1, 1, 1), "{wasted:?}");
    assert_eq!(sim.next, 4);
    assert_eq!(sim.in_flight(), 0, "nothing left running");
}

#[test]
fn texts_made_on_demand_are_made_only_for_the_candidates_started() {
    // Candidate 3 of 20 is interesting; a text is made when its candidate starts, so past
    // the answer at most the runs that were already under way when it was known.
    for jobs in [1, 2, 5] {
        let made = std::cell::Cell::new(0);
        let make = |i: usize| {
            made.set(made.get() + 1);
            format!("c{i} {} d{}", if i == 3 { "yes" } else { "no" }, 2 + i % 3)
        };
        let texts = crate::Texts::new(20, &make);
        let mut sim = Simulated { now: 0, runs: BTreeMap::new(), next: 0, most_in_flight: 0, ended: Vec::new() };
        let mut interesting = |f: Finished| if f.stdout.contains(" yes ") { Verdict::Interesting } else { Verdict::NotInteresting };
        let (verdicts, _) =
            Scheduler { exec: &mut sim, spec: &mut Speculation::default(), jobs, capture: false }.first_interesting(Batch::of(&texts), &mut interesting);
        assert_eq!(verdicts.unwrap().last(), Some(&(3, Verdict::Interesting)), "jobs {jobs}");
        assert_eq!(made.get(), sim.next as usize, "jobs {jobs}: one text per run started");
        assert!(made.get() < 4 + jobs, "jobs {jobs}: {} texts made", made.get());
    }
}
