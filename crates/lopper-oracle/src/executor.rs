//! Where test runs happen, behind one small seam: an [`Executor`] starts a run of the test on
//! a candidate, reports runs as they end, and cancels runs (treereduce's start / try_wait /
//! cancel `Check` is the nearest model). The speculative scheduler of
//! [`crate::ScriptOracle`] drives any executor and knows nothing of processes; the
//! [`LocalExecutor`] spawns them, here or through a cluster launcher such as `srun`.

use crate::{io_at, kill_group, private_tmp, wait_for_exit, Encoding, Ending, OracleError, Screened, TestCommand};
use std::ffi::OsString;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A run's number within its executor, from 1.
pub type RunId = u64;

/// A run that has ended.
#[derive(Clone, Debug)]
pub struct Finished {
    /// How it ended.
    pub ending: Ending,
    /// Its wall time.
    pub elapsed: Duration,
    /// Its standard output (the last MiB), when captured.
    pub stdout: String,
    /// Its standard error (the last MiB), when captured.
    pub stderr: String,
}

/// Runs tests. Runs are independent; an executor may hold any number in flight.
pub trait Executor {
    /// Starts a run of the test on `candidate`, keeping its output when `capture`.
    ///
    /// # Errors
    /// [`OracleError::Interrupted`] once the user asked to stop; I/O errors starting it.
    fn submit(&mut self, candidate: &str, capture: bool) -> Result<RunId, OracleError>;

    /// Waits up to about `slice` for any run in flight to end; the first that has, with how
    /// it ended. `None` when none ended meanwhile (or none is in flight).
    ///
    /// # Errors
    /// [`OracleError::Interrupted`] once the user asked to stop (the runs stay in flight
    /// until cancelled); I/O errors.
    fn wait_any(&mut self, slice: Duration) -> Result<Option<(RunId, Finished)>, OracleError>;

    /// Ends run `id` now, if it is still in flight, leaving nothing of it behind.
    fn cancel(&mut self, id: RunId);

    /// Runs in flight.
    fn in_flight(&self) -> usize;

    /// How long run `id` has been in flight, by the executor's clock; `None` once it is
    /// not.
    fn elapsed(&self, id: RunId) -> Option<Duration>;
}

/// One test process in flight.
struct Running {
    id: RunId,
    child: std::process::Child,
    dir: PathBuf,
    started: Instant,
    capture: bool,
}

/// Runs each test as a process of this machine, in a fresh directory under one temporary
/// root, in its own process group; optionally through a launcher prefix (`srun --quiet
/// --ntasks=1`), which makes it a cluster's job.
#[derive(Debug)]
pub struct LocalExecutor {
    pub(crate) test: TestCommand,
    pub(crate) file_name: OsString,
    pub(crate) timeout: Duration,
    pub(crate) root: tempfile::TempDir,
    pub(crate) keep_temps: bool,
    pub(crate) interrupt: Arc<AtomicBool>,
    pub(crate) encoding: Encoding,
    /// Words run before the test, empty to run it directly.
    pub(crate) launcher: Vec<String>,
    /// Whether the test reads the candidate on standard input too.
    pub(crate) stdin: bool,
    runs: u64,
    running: Vec<Running>,
}

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Running").field("id", &self.id).field("dir", &self.dir).finish()
    }
}

impl LocalExecutor {
    /// An executor for `test`, writing candidates as `file_name` under a new temporary root
    /// in `parent`, each run limited to `timeout`; setting `interrupt` stops every run.
    ///
    /// # Errors
    /// [`OracleError::Io`] creating the root.
    pub fn new(test: TestCommand, file_name: OsString, timeout: Duration, interrupt: Arc<AtomicBool>, parent: &Path) -> Result<LocalExecutor, OracleError> {
        let root = new_root(parent)?;
        Ok(LocalExecutor {
            test,
            file_name,
            timeout,
            root,
            keep_temps: false,
            interrupt,
            encoding: Encoding::Utf8,
            launcher: Vec::new(),
            stdin: false,
            runs: 0,
            running: Vec::new(),
        })
    }

    /// Moves the (still empty) temporary root into `parent`: run directories go there
    /// from now on.
    ///
    /// # Errors
    /// [`OracleError::Io`] creating the new root.
    pub fn move_root(&mut self, parent: &Path) -> Result<(), OracleError> {
        self.root = new_root(parent)?;
        self.root.disable_cleanup(self.keep_temps);
        Ok(())
    }

    /// The first run in flight that has ended (exited, or past its time limit), finished
    /// and removed; `None` if all still run. [`OracleError::Interrupted`] once the user
    /// asked to stop.
    fn take_ended(&mut self) -> Result<Option<(RunId, Finished)>, OracleError> {
        if self.interrupt.load(Ordering::SeqCst) {
            return Err(OracleError::Interrupted);
        }
        for i in 0..self.running.len() {
            let r = &mut self.running[i];
            let ending =
                if r.started.elapsed() >= self.timeout { Some(Ending::TimedOut) } else { r.child.try_wait().map_err(io_at(&r.dir))?.map(Ending::Exited) };
            if let Some(ending) = ending {
                let r = self.running.remove(i);
                let id = r.id;
                return Ok(Some((id, self.finish(r, ending))));
            }
        }
        Ok(None)
    }

    /// Kills `r`'s process group, reads what it captured, and removes its directory unless
    /// temporaries are kept.
    fn finish(&self, mut r: Running, ending: Ending) -> Finished {
        kill_group(&mut r.child);
        let elapsed = r.started.elapsed();
        let read = |name: &str| -> String {
            fs::read(r.dir.join(name)).map(|b| String::from_utf8_lossy(&b[b.len().saturating_sub(1 << 20)..]).into_owned()).unwrap_or_default()
        };
        let (stdout, stderr) = if r.capture { (read(".lopper-stdout"), read(".lopper-stderr")) } else { Default::default() };
        if !self.keep_temps {
            let _ = fs::remove_dir_all(&r.dir);
        }
        tracing::debug!(dir = %r.dir.display(), ?ending, seconds = elapsed.as_secs_f64(), "test run");
        Finished { ending, elapsed, stdout, stderr }
    }
}

/// A temporary root for run directories in `parent`, removed when dropped.
fn new_root(parent: &Path) -> Result<tempfile::TempDir, OracleError> {
    tempfile::Builder::new().prefix("lopper-").tempdir_in(parent).map_err(io_at(parent))
}

impl Executor for LocalExecutor {
    fn submit(&mut self, candidate: &str, capture: bool) -> Result<RunId, OracleError> {
        if self.interrupt.load(Ordering::SeqCst) {
            return Err(OracleError::Interrupted);
        }
        self.runs += 1;
        let dir = self.root.path().join(format!("t{}", self.runs));
        fs::create_dir(&dir).map_err(io_at(&dir))?;
        let path = dir.join(&self.file_name);
        fs::write(&path, self.encoding.encode(candidate)).map_err(io_at(&path))?;
        let out = |name: &str| -> std::io::Result<Stdio> { Ok(if capture { Stdio::from(fs::File::create(dir.join(name))?) } else { Stdio::null() }) };
        let mut argv: Vec<OsString> = self.launcher.iter().map(OsString::from).collect();
        match &self.test {
            TestCommand::Script(p) => argv.push(p.into()),
            TestCommand::Shell(line) => argv.extend(["sh", "-c", line, "lopper-test"].map(OsString::from)),
        }
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]);
        private_tmp(&mut cmd, &dir)?;
        let stdin = if self.stdin { Stdio::from(fs::File::open(&path).map_err(io_at(&path))?) } else { Stdio::null() };
        let (stdout, stderr) = (out(".lopper-stdout").map_err(io_at(&dir))?, out(".lopper-stderr").map_err(io_at(&dir))?);
        let child = cmd.arg(&path).current_dir(&dir).stdin(stdin).stdout(stdout).stderr(stderr).process_group(0).spawn().map_err(io_at(Path::new(&argv[0])))?;
        self.running.push(Running { id: self.runs, child, dir, started: Instant::now(), capture });
        Ok(self.runs)
    }

    fn wait_any(&mut self, slice: Duration) -> Result<Option<(RunId, Finished)>, OracleError> {
        // Look, then sleep until any run ends (or the nearest time limit, or `slice`), then
        // look again: no polling loop spends CPU while the tests run.
        if let Some(done) = self.take_ended()? {
            return Ok(Some(done));
        }
        if self.running.is_empty() {
            return Ok(None);
        }
        let nearest = self.running.iter().map(|r| self.timeout.saturating_sub(r.started.elapsed())).min().unwrap_or(slice);
        let children: Vec<&std::process::Child> = self.running.iter().map(|r| &r.child).collect();
        wait_for_exit(&children, nearest.min(slice));
        self.take_ended()
    }

    fn cancel(&mut self, id: RunId) {
        if let Some(i) = self.running.iter().position(|r| r.id == id) {
            let r = self.running.remove(i);
            self.finish(r, Ending::TimedOut);
        }
    }

    fn in_flight(&self) -> usize {
        self.running.len()
    }

    fn elapsed(&self, id: RunId) -> Option<Duration> {
        self.running.iter().find(|r| r.id == id).map(|r| r.started.elapsed())
    }
}

impl Drop for LocalExecutor {
    fn drop(&mut self) {
        for r in std::mem::take(&mut self.running) {
            self.finish(r, Ending::TimedOut);
        }
    }
}

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

/// The speculative scheduler (deterministic acceptance): keeps up to `jobs` runs of `exec`
/// going, starting candidates in order, each speculating that the ones before it fail;
/// returns the verdicts of the shortest prefix whose last verdict is interesting (or of
/// all candidates), the same for every `jobs` and every order in which runs end. Runs
/// started after the answer are cancelled; the second value counts them, and the runs that
/// ended with a verdict past the answer (both are work that `-j 1` does not do).
///
/// `screen(i)` is asked, in order and once each, just before candidate `i` would start (so
/// never for candidates past a known answer): [`Screened::Skip`] leaves it out without a
/// run. The verdicts come with their candidates' indices, skipped candidates left out.
///
/// `successors(i)` are the texts the caller would judge next, in order, if candidate `i`
/// is the answer (each assuming the ones before it fail; empty if unknown); with `jobs` >
/// 1, `spec` decides when free slots run them instead (see [`Speculation`]), and keeps
/// those runs for the next calls.
///
/// # Errors
/// The executor's (every run in flight is cancelled first).
#[allow(clippy::too_many_arguments)]
pub fn first_interesting(
    exec: &mut dyn Executor,
    jobs: usize,
    candidates: &[&str],
    capture: bool,
    screen: &mut dyn FnMut(usize) -> Screened,
    successors: &mut dyn FnMut(usize) -> Vec<String>,
    spec: &mut Speculation,
    mut judge: impl FnMut(Finished) -> crate::Verdict,
) -> (Result<Vec<(usize, crate::Verdict)>, OracleError>, Wasted) {
    use crate::Verdict;
    let mut wasted = Wasted::default();
    // Per candidate: `None` until known; skipped candidates count as known, not interesting.
    let mut verdicts: Vec<Option<Option<Verdict>>> = vec![None; candidates.len()];
    // Runs in flight: (run, candidate index).
    let mut running: Vec<(RunId, usize)> = Vec::new();
    // The candidate whose success this call speculates on, and its successors not started.
    let mut parent: Option<usize> = None;
    let mut pending: std::collections::VecDeque<String> = std::collections::VecDeque::new();
    // Whether a later candidate's run yielded its slot to this parent's successors, and
    // the screened candidates whose runs did (to run again, in order, before `next`).
    let mut preempted = false;
    let mut requeued = std::collections::BTreeSet::new();
    let patience = if jobs > 1 { spec.patience() } else { None };
    let certainty = if jobs > 1 { spec.certainty() } else { None };
    // A run's verdict, its duration remembered for the patience.
    let mut verdict_of = |f: Finished, spec: &mut Speculation| {
        let elapsed = f.elapsed;
        let v = judge(f);
        spec.record(elapsed, v == Verdict::Interesting);
        v
    };
    let mut next = 0;
    let result = loop {
        // The answer is known once the first unknown verdict comes after an interesting one.
        let known = verdicts.iter().take_while(|v| v.is_some()).count();
        if let Some(i) = verdicts[..known].iter().position(|v| *v == Some(Some(Verdict::Interesting))) {
            break Ok(i + 1);
        }
        if known == candidates.len() {
            break Ok(known);
        }
        // Successors of a candidate that failed are of no use.
        if parent.is_some_and(|p| verdicts[p].is_some()) {
            parent = None;
            pending.clear();
            spec.drop_carried(exec, &mut wasted, |c| c.fresh);
        }
        let first_yes = verdicts.iter().position(|v| *v == Some(Some(Verdict::Interesting))).unwrap_or(usize::MAX);
        // How long the first unknown candidate's run has lasted, if it is running.
        let known_for = |exec: &dyn Executor, running: &[(RunId, usize)]| running.iter().find(|r| r.1 == known).map(|r| exec.elapsed(r.0).unwrap_or_default());
        let outlasted = |t: Option<Duration>, exec: &dyn Executor, running: &[(RunId, usize)]| t.zip(known_for(exec, running)).is_some_and(|(t, e)| e > t);
        // The first unknown candidate has run long (or runs, while most verdicts pass): what
        // follows its success goes first.
        let eager = jobs > 1 && spec.eager() && known_for(exec, &running).is_some();
        if parent.is_none() && (eager || outlasted(patience, exec, &running)) && !spec.carried.iter().any(|c| c.fresh) {
            // Asked once per call: with none, the failure path goes on as usual.
            pending = successors(known).into();
            parent = Some(known);
            preempted = false;
            if !pending.is_empty() {
                tracing::debug!(candidate = known, successors = pending.len(), "speculating on a success");
            }
        }
        // With every slot taken and the first run so long that it probably passes, the
        // latest later candidate yields its slot to the first successor, once: its run
        // matters only if the long one fails, and it runs again then.
        if parent.is_some() && !pending.is_empty() && !preempted && running.len() + spec.in_flight() >= jobs.max(1) && outlasted(certainty, exec, &running) {
            if let Some(at) = (0..running.len()).filter(|&at| running[at].1 > known).max_by_key(|&at| running[at].1) {
                let (id, idx) = running.swap_remove(at);
                tracing::debug!(candidate = idx, "run yields its slot to a successor");
                exec.cancel(id);
                wasted.cancelled += 1;
                wasted.preempted += 1;
                requeued.insert(idx);
                preempted = true;
            }
        }
        let mut failed = None;
        // Set when the first unknown candidate just started and its successors should have
        // the next slots: the speculation above decides before any later candidate starts.
        let mut recheck = false;
        while running.len() + spec.in_flight() < jobs.max(1) {
            if let Some(text) = parent.and_then(|_| pending.pop_front()) {
                match exec.submit(&text, capture) {
                    Ok(id) => {
                        wasted.successors += 1;
                        spec.carried.push(Carried { id, text, done: None, fresh: true, age: 0 });
                        continue;
                    }
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            // A candidate that yielded its slot, already screened, runs again first.
            if let Some(i) = requeued.pop_first() {
                if i < first_yes {
                    match exec.submit(candidates[i], capture) {
                        Ok(id) => running.push((id, i)),
                        Err(e) => {
                            failed = Some(e);
                            break;
                        }
                    }
                }
                continue;
            }
            if next >= candidates.len() || next >= first_yes {
                break;
            }
            let i = next;
            next += 1;
            if screen(i) == Screened::Skip {
                verdicts[i] = Some(None);
                continue;
            }
            // A successor run of an earlier call (or of this one) with this text: adopted.
            if let Some(k) = spec.carried.iter().position(|c| c.text == candidates[i]) {
                let c = spec.carried.remove(k);
                tracing::debug!(candidate = i, finished = c.done.is_some(), "successor used");
                wasted.successors_used += 1;
                match c.done {
                    Some(f) => {
                        verdicts[i] = Some(Some(verdict_of(f, spec)));
                        continue;
                    }
                    None => running.push((c.id, i)),
                }
            } else {
                match exec.submit(candidates[i], capture) {
                    Ok(id) => running.push((id, i)),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
            }
            if jobs > 1 && parent.is_none() && spec.eager() && verdicts[..i].iter().all(Option::is_some) {
                recheck = true;
                break;
            }
        }
        if let Some(e) = failed {
            break Err(e);
        }
        if recheck {
            continue;
        }
        if running.is_empty() && spec.in_flight() == 0 {
            // Everything left was skipped or answered by a carried run.
            continue;
        }
        // Wake when the first candidate's run reaches the patience, to speculate then.
        // Or when it reaches the certainty, for a later run to yield its slot.
        let yielding = !pending.is_empty() && !preempted && running.iter().any(|r| r.1 > known);
        let wake = match parent {
            None => patience,
            Some(_) if yielding => certainty,
            Some(_) => None,
        };
        let slice = match (wake, known_for(exec, &running)) {
            (Some(t), Some(e)) => t.saturating_sub(e).clamp(Duration::from_millis(1), Duration::from_millis(50)),
            _ => Duration::from_millis(50),
        };
        match exec.wait_any(slice) {
            Ok(Some((id, f))) => {
                let Some(f) = spec.ended(id, f) else { continue };
                let at = running.iter().position(|r| r.0 == id).expect("a run this scheduler started");
                let (_, idx) = running.swap_remove(at);
                verdicts[idx] = Some(Some(verdict_of(f, spec)));
            }
            Ok(None) => {}
            Err(e) => break Err(e),
        }
    };
    for (id, idx) in running {
        // Speculative runs past the answer (or all runs, on an error) are cancelled.
        wasted.cancelled += verdicts[idx].is_none() as usize;
        exec.cancel(id);
    }
    // This call's successor runs stay only if their candidate is the answer; earlier ones
    // while they have calls left.
    let parent_won = match (&result, parent) {
        (Ok(n), Some(p)) => *n == p + 1 && verdicts[p] == Some(Some(Verdict::Interesting)),
        _ => false,
    };
    if result.is_err() {
        spec.drop_carried(exec, &mut wasted, |_| true);
    } else {
        spec.drop_carried(exec, &mut wasted, |c| if c.fresh { !parent_won } else { c.age + 1 >= CARRY_CALLS });
        for c in &mut spec.carried {
            c.age = if c.fresh { 0 } else { c.age + 1 };
            c.fresh = false;
        }
    }
    if let Ok(n) = result {
        wasted.finished += verdicts[n..].iter().filter(|v| matches!(v, Some(Some(_)))).count();
    }
    let answer = |n: usize| verdicts[..n].iter().enumerate().filter_map(|(i, v)| v.expect("a known prefix").map(|v| (i, v))).collect();
    (result.map(answer), wasted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Verdict;
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
        let interesting = |f: Finished| {
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
                first_interesting(&mut sim, jobs, &texts, false, &mut |_| Screened::Run, &mut |_| Vec::new(), &mut Speculation::default(), interesting);
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
        let interesting = |f: Finished| if f.stdout.starts_with("candidate 23 ") { Verdict::Interesting } else { Verdict::NotInteresting };
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
            let (verdicts, _) = first_interesting(&mut sim, jobs, &texts, false, &mut screen, &mut |_| Vec::new(), &mut Speculation::default(), interesting);
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
            let interesting = |f: Finished| if f.stdout.contains(" yes ") { Verdict::Interesting } else { Verdict::NotInteresting };
            let (verdicts, wasted) = first_interesting(&mut sim, jobs, &refs, false, &mut |_| Screened::Run, &mut successor, &mut spec, interesting);
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
        let interesting = |f: Finished| if f.stdout.contains("yes") { Verdict::Interesting } else { Verdict::NotInteresting };
        // Candidate 0 runs long and fails; 1 passes; 0's successor would pass too.
        let texts = ["c0 no d10", "c1 yes d6"];
        let mut successors = |i: usize| if i == 0 { vec!["s0 yes d2".to_string()] } else { Vec::new() };
        let (verdicts, wasted) = first_interesting(&mut sim, 2, &texts, false, &mut |_| Screened::Run, &mut successors, &mut spec, interesting);
        assert_eq!(verdicts.unwrap(), [(0, Verdict::NotInteresting), (1, Verdict::Interesting)]);
        // c1 yielded its slot to s0 once c0 outlasted the patience (c1's run cancelled);
        // s0 ended unused, as c0 failed; c1 ran again: four runs.
        assert_eq!((wasted.preempted, wasted.successors, wasted.cancelled, wasted.finished), (1, 1, 1, 1), "{wasted:?}");
        assert_eq!(sim.next, 4);
        assert_eq!(sim.in_flight(), 0, "nothing left running");
    }
}
