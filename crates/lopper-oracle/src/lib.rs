//! lopper-oracle: runs the interestingness test on candidates — the only part of lopper
//! that spawns processes (tests, external transformation commands, generators), and one
//! that never sees a tree: candidates are text.
//!
//! Each run gets a fresh working directory under one temporary root, holding the candidate
//! under the input's own file name (the C-Reduce / Perses convention); the test gets the
//! candidate's path as `$1`, runs in its own process group, and the whole group is killed
//! on timeout, on interrupt, and after the test exits (so no grandchild outlives it); a run
//! ended early also takes the groups its descendants made (`timeout`'s).

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub mod cache;
pub mod executor;
pub mod generator;
pub mod sanity;

pub use executor::{first_interesting, Executor, Finished, LocalExecutor, RunId, Wasted};

pub use sanity::{check_original, derived_timeout, Sanity, SanityError};

/// The verdict of one test run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Exit status 0: the candidate still shows the behaviour.
    Interesting,
    /// Any other exit status, or death by a signal.
    NotInteresting,
    /// The time limit passed; the process group was killed. Counts as not interesting.
    TimedOut,
}

/// Why the oracle could not give a verdict.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// The user asked to stop (Ctrl-C); the running test was killed.
    #[error("interrupted")]
    Interrupted,
    /// The test file does not exist.
    #[error("interestingness test {0} does not exist")]
    TestMissing(PathBuf),
    /// The test path is a directory.
    #[error("interestingness test {0} is a directory, not an executable file")]
    TestIsDirectory(PathBuf),
    /// The test file is not executable.
    #[error("interestingness test {0} is not executable (try: chmod +x {0})")]
    TestNotExecutable(PathBuf),
    /// The test is executable but neither a `#!` script nor a binary, so the kernel cannot
    /// run it ("Exec format error").
    #[error("interestingness test {0} has no `#!` line: start it with `#!/bin/sh` (or the interpreter it needs)")]
    TestNoInterpreter(PathBuf),
    /// A file-system or process error, with the path it concerns (a run directory, a
    /// candidate file, the test).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file, directory or program.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Keeping a new best program failed (the reducer's progress sink; its message
    /// names the file).
    #[error("cannot keep the new best program: {0}")]
    Keep(#[source] std::io::Error),
    /// The `--launcher` prefix is not a valid shell-like word list (an open quote).
    #[error("cannot split the launcher `{0}` into words (an unclosed quote?)")]
    Launcher(String),
}

/// Maps an I/O error to [`OracleError::Io`] naming `path`.
fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> OracleError + '_ {
    move |source| OracleError::Io { path: path.to_path_buf(), source }
}

/// Something that judges candidates. The reducer only sees this trait, so tests can use
/// synthetic predicates and the real runner spawns processes.
pub trait Oracle {
    /// Judges one candidate text.
    ///
    /// # Errors
    /// [`OracleError::Interrupted`] when the user stopped the run; I/O errors otherwise.
    fn test(&mut self, candidate: &str) -> Result<Verdict, OracleError>;

    /// Judges `candidates` in order until one is interesting, and returns the verdicts of
    /// that prefix: all not interesting but possibly the last. The answer is the one a
    /// sequential run gives; a parallel oracle may start later candidates speculatively,
    /// but cancels them once an earlier one is interesting, and drops their verdicts.
    ///
    /// # Errors
    /// As [`Oracle::test`].
    fn first_interesting(&mut self, candidates: &[&str]) -> Result<Vec<Verdict>, OracleError> {
        Ok(self.first_interesting_screened(candidates, &mut |_| Screened::Run)?.into_iter().map(|(_, v, _)| v).collect())
    }

    /// As [`Oracle::first_interesting`], each verdict paired with whether it was remembered
    /// (answered from a persistent store, [`cache::PersistentCache`]) instead of run, so
    /// that statistics count only real test runs.
    ///
    /// # Errors
    /// As [`Oracle::test`].
    fn first_interesting_remembered(&mut self, candidates: &[&str]) -> Result<Vec<(Verdict, bool)>, OracleError> {
        Ok(self.first_interesting_screened(candidates, &mut |_| Screened::Run)?.into_iter().map(|(_, v, r)| (v, r)).collect())
    }

    /// As [`Oracle::first_interesting_remembered`], with the caller's own screen: `screen(i)`
    /// is asked in order, once each, only when candidate `i` is about to be judged (so a
    /// parallel oracle asks it when a slot frees, and never for candidates past a known
    /// answer); a [`Screened::Skip`]ped candidate is neither run nor looked up. Answers
    /// (index, verdict, remembered) for the candidates judged, in order, up to and
    /// including the first interesting one. The screen is where a caller's costly checks
    /// (a grammar re-parse) go, so that candidates past the answer never pay for them.
    ///
    /// # Errors
    /// As [`Oracle::test`].
    fn first_interesting_screened(
        &mut self,
        candidates: &[&str],
        screen: &mut dyn FnMut(usize) -> Screened,
    ) -> Result<Vec<(usize, Verdict, bool)>, OracleError> {
        self.first_interesting_speculating(candidates, screen, &mut |_| Vec::new())
    }

    /// As [`Oracle::first_interesting_screened`], with `successors(i)`: the texts the caller
    /// would judge next, in order, if candidate `i` is the answer (each assuming the ones
    /// before it fail; already screened; empty when unknown). A parallel oracle may start
    /// them early, speculating on that success, and use their runs when later calls judge
    /// those texts; the answers and what counts as a test run stay those of a sequential
    /// run. The default judges in order with [`Oracle::test`] and ignores the successors.
    ///
    /// # Errors
    /// As [`Oracle::test`].
    fn first_interesting_speculating(
        &mut self,
        candidates: &[&str],
        screen: &mut dyn FnMut(usize) -> Screened,
        successors: &mut dyn FnMut(usize) -> Vec<String>,
    ) -> Result<Vec<(usize, Verdict, bool)>, OracleError> {
        let _ = successors;
        let mut out = Vec::new();
        for (i, c) in candidates.iter().enumerate() {
            if screen(i) == Screened::Skip {
                continue;
            }
            let v = self.test(c)?;
            out.push((i, v, false));
            if v == Verdict::Interesting {
                break;
            }
        }
        Ok(out)
    }
}

/// What a caller's screen says of a candidate just before an oracle would judge it
/// ([`Oracle::first_interesting_screened`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screened {
    /// Judge it.
    Run,
    /// Leave it out: the caller has its answer without a test.
    Skip,
}

impl<F: FnMut(&str) -> bool> Oracle for F {
    fn test(&mut self, candidate: &str) -> Result<Verdict, OracleError> {
        Ok(if self(candidate) { Verdict::Interesting } else { Verdict::NotInteresting })
    }
}

/// How a program's bytes map to the text lopper works on, and back: UTF-8 when the input
/// is valid UTF-8, else Latin-1 (every byte one character, so any bytes round-trip). Test
/// runs, transformation runs and the result get the original encoding back, byte for byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    /// Valid UTF-8, used as is.
    #[default]
    Utf8,
    /// Anything else: byte `b` is the character `U+00bb`.
    Latin1,
}

impl Encoding {
    /// The text of `bytes`, and the encoding that gives the bytes back.
    pub fn decode(bytes: Vec<u8>) -> (String, Encoding) {
        match String::from_utf8(bytes) {
            Ok(s) => (s, Encoding::Utf8),
            Err(e) => (e.into_bytes().iter().map(|&b| b as char).collect(), Encoding::Latin1),
        }
    }

    /// `bytes` read in this encoding (output of a transformation, say).
    pub fn decode_as(self, bytes: &[u8]) -> String {
        match self {
            Encoding::Utf8 => String::from_utf8_lossy(bytes).into_owned(),
            Encoding::Latin1 => bytes.iter().map(|&b| b as char).collect(),
        }
    }

    /// The bytes of `text` in this encoding. Under Latin-1 a character above U+00FF (which
    /// no pass introduces) is written as UTF-8.
    pub fn encode(self, text: &str) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Encoding::Utf8 => std::borrow::Cow::Borrowed(text.as_bytes()),
            Encoding::Latin1 => {
                let mut out = Vec::with_capacity(text.len());
                for c in text.chars() {
                    match u8::try_from(u32::from(c)) {
                        Ok(b) => out.push(b),
                        Err(_) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                    }
                }
                std::borrow::Cow::Owned(out)
            }
        }
    }
}

/// One run's verdict, duration and (if captured) combined output.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The verdict.
    pub verdict: Verdict,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// The test's stdout then stderr, when captured (at most 64 KiB each).
    pub output: String,
}

/// Runs an executable interestingness test: the criteria that judge a run, and the
/// speculative scheduler that keeps up to `jobs` runs of an [`Executor`] going in candidate
/// order (it knows nothing of processes; the [`LocalExecutor`] spawns them).
#[derive(Debug)]
pub struct ScriptOracle {
    exec: LocalExecutor,
    criteria: Criteria,
    jobs: usize,
    wasted: executor::Wasted,
    /// Speculation on success between calls (successor runs carried to the next).
    spec: executor::Speculation,
}

/// What runs as the interestingness test.
#[derive(Clone, Debug)]
pub enum TestCommand {
    /// An executable file, run with the candidate's path as its one argument.
    Script(PathBuf),
    /// A shell command line, run by `sh -c` with the candidate's path as `$1`.
    Shell(String),
}

/// When a finished run counts as interesting. The default: exit status 0, any output.
#[derive(Clone, Debug)]
pub struct Criteria {
    /// Exit statuses that count as interesting (death by a signal never does).
    pub exit_codes: Vec<i32>,
    /// A pattern the test's standard output must match.
    pub stdout: Option<regex::Regex>,
    /// A pattern the test's standard error must match.
    pub stderr: Option<regex::Regex>,
    /// Also feed the candidate to the test's standard input.
    pub stdin: bool,
}

impl Default for Criteria {
    fn default() -> Self {
        Criteria { exit_codes: vec![0], stdout: None, stderr: None, stdin: false }
    }
}

impl Criteria {
    fn needs_output(&self) -> bool {
        self.stdout.is_some() || self.stderr.is_some()
    }
}

/// Waits up to `slice` for `child`, started at `started`: how it ended, once it has (a
/// `timeout` that passed is an end too); [`OracleError::Interrupted`] once `interrupt` is set.
/// The caller kills the process group afterwards ([`kill_group`]).
fn poll_child(
    child: &mut std::process::Child,
    started: Instant,
    timeout: Duration,
    interrupt: &AtomicBool,
    slice: Duration,
    dir: &Path,
) -> Result<Option<Ending>, OracleError> {
    let left = timeout.saturating_sub(started.elapsed());
    if left.is_zero() {
        return Ok(Some(Ending::TimedOut));
    }
    if interrupt.load(Ordering::SeqCst) {
        return Err(OracleError::Interrupted);
    }
    if let Some(s) = child.try_wait().map_err(io_at(dir))? {
        return Ok(Some(Ending::Exited(s)));
    }
    wait_for_exit(&[&*child], left.min(slice));
    Ok(child.try_wait().map_err(io_at(dir))?.map(Ending::Exited))
}

/// Blocks until one of `children` (started, not yet reaped) has exited, or `timeout` has
/// passed; reaps none of them. Sleeps in the kernel on the children's pidfds (Linux 5.3+),
/// so waiting costs no CPU and wakes the moment a test ends; where a pidfd cannot be had,
/// it sleeps at most 2 ms and the caller looks again.
pub(crate) fn wait_for_exit(children: &[&std::process::Child], timeout: Duration) {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    use rustix::process::{pidfd_open, PidfdFlags};
    let fds: Vec<_> = children.iter().filter_map(|c| pidfd_open(rustix::process::Pid::from_child(c), PidfdFlags::empty()).ok()).collect();
    if fds.len() < children.len() || fds.is_empty() {
        std::thread::sleep(timeout.min(Duration::from_millis(2)));
        return;
    }
    let mut polled: Vec<PollFd> = fds.iter().map(|f| PollFd::new(f, PollFlags::IN)).collect();
    let limit = Timespec::try_from(timeout).ok();
    // EINTR or any other error: the caller looks at its children again either way.
    let _ = poll(&mut polled, limit.as_ref());
}

/// How long a test's process group has between SIGTERM and SIGKILL to clean up after
/// itself (its own traps) when it is cancelled, timed out, or left processes behind.
pub const KILL_GRACE: Duration = Duration::from_millis(500);

/// Ends `child`'s run: its process group (itself, if still running, and any grandchild it
/// left behind) and, while it still runs, the process groups its descendants made for
/// themselves (GNU `timeout` puts itself and the command it times in a group of its own,
/// so a compiler under `timeout` would compile on after its test was cancelled): SIGTERM,
/// up to [`KILL_GRACE`] for the groups to go, then SIGKILL (ESRCH is fine), and reaps the
/// child. A test that has already ended left nothing to find its descendants by; its
/// own group is all there is to end.
fn kill_group(child: &mut std::process::Child) {
    let own = Pid::from_raw(child.id() as i32);
    let (groups, members) = if matches!(child.try_wait(), Ok(None)) { run_groups(own) } else { (vec![own], Vec::new()) };
    let mut signalled = false;
    for &g in &groups {
        signalled |= killpg(g, Signal::SIGTERM).is_ok();
    }
    if signalled {
        let until = Instant::now() + KILL_GRACE;
        loop {
            // Reap the child once it ends, so that its zombie does not count as alive.
            let _ = child.try_wait();
            if !any_alive(&groups, &members) || Instant::now() >= until {
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
    for &g in &groups {
        let _ = killpg(g, Signal::SIGKILL);
    }
    let _ = child.wait();
}

/// Process `pid`'s state, parent and process group, from `/proc/PID/stat`.
fn proc_stat(pid: i32) -> Option<(char, i32, i32)> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp …`: comm may hold spaces and parentheses.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
    let state = fields.next()?.chars().next()?;
    Some((state, fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
}

/// The processes in `/proc`, by pid; `None` where `/proc` cannot be read.
fn procs() -> Option<impl Iterator<Item = i32>> {
    let dir = fs::read_dir("/proc").ok()?;
    Some(dir.flatten().filter_map(|e| e.file_name().to_str()?.parse().ok()))
}

/// The descendants of process `root`, from its threads' `/proc/PID/task/TID/children`
/// lists and theirs, recursively (a few reads per process, where `/proc` holds every
/// process of the machine); `None` where the kernel has no such lists (built without
/// `CONFIG_PROC_CHILDREN`). A process that has ended lists no children.
fn descendants(root: i32) -> Option<Vec<i32>> {
    let leader = PathBuf::from(format!("/proc/{root}/task/{root}"));
    if leader.exists() && !leader.join("children").exists() {
        return None;
    }
    let mut found = Vec::new();
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        let Ok(tasks) = fs::read_dir(format!("/proc/{p}/task")) else { continue };
        for task in tasks.flatten() {
            let Ok(list) = fs::read_to_string(task.path().join("children")) else { continue };
            for child in list.split_whitespace().filter_map(|c| c.parse::<i32>().ok()) {
                if !found.contains(&child) {
                    found.push(child);
                    frontier.push(child);
                }
            }
        }
    }
    Some(found)
}

/// Process group `own` and the groups of the descendants of process `own` (its leader),
/// never lopper's own group; and the processes then in those groups that the snapshot
/// saw. The snapshot is of `own`'s descendants ([`descendants`]), or, where the kernel
/// cannot list children, of one pass over `/proc`; just `own` where `/proc` cannot be read.
fn run_groups(own: Pid) -> (Vec<Pid>, Vec<i32>) {
    let pids: Vec<i32> = match descendants(own.as_raw()) {
        Some(pids) => pids.into_iter().chain([own.as_raw()]).collect(),
        None => procs().into_iter().flatten().collect(),
    };
    let table: Vec<(i32, i32, i32)> = pids.into_iter().filter_map(|pid| proc_stat(pid).map(|(_, ppid, pgrp)| (pid, ppid, pgrp))).collect();
    let mine = nix::unistd::getpgrp().as_raw();
    let mut groups = vec![own.as_raw()];
    let mut frontier = vec![own.as_raw()];
    while let Some(parent) = frontier.pop() {
        for &(pid, ppid, pgrp) in &table {
            if ppid == parent && pid != parent {
                frontier.push(pid);
                if pgrp != mine && !groups.contains(&pgrp) {
                    groups.push(pgrp);
                }
            }
        }
    }
    let members = table.iter().filter(|p| groups.contains(&p.2)).map(|p| p.0).collect();
    (groups.into_iter().map(Pid::from_raw).collect(), members)
}

/// Whether any of process groups `groups` has a member that is not a zombie. A zombie is
/// dead already and waits only for its parent, or for init, to reap it; where init reaps
/// slowly (a container's), `srun`'s exited helper, or a test's `timeout` whose shell was
/// killed first, lingers as one, and waiting for it would cost [`KILL_GRACE`] per test.
/// `members`: processes known to have been in the groups, asked first (a few reads, where
/// the whole of `/proc` is many: hundreds of processes on a workstation). Only where a group
/// still has members and none of the known ones is left in it (alive or a zombie) is all
/// of `/proc` searched for the others; a process that joined a group after the snapshot
/// while a known zombie stays in it is not waited for (the SIGKILL that follows the grace
/// takes it). Where `/proc` cannot be read, any member counts.
fn any_alive(groups: &[Pid], members: &[i32]) -> bool {
    let left: Vec<i32> = groups.iter().filter(|&&g| killpg(g, None).is_ok()).map(|g| g.as_raw()).collect();
    if left.is_empty() {
        return false;
    }
    let mut explained = vec![false; left.len()];
    for pid in members {
        let Some((state, _, pgrp)) = proc_stat(*pid) else { continue };
        let Some(g) = left.iter().position(|&g| g == pgrp) else { continue };
        if state != 'Z' {
            return true;
        }
        explained[g] = true;
    }
    if explained.iter().all(|&e| e) {
        return false;
    }
    let alive = |(state, _, pgrp): (char, i32, i32)| left.contains(&pgrp) && state != 'Z';
    procs().is_none_or(|mut all| all.any(|pid| proc_stat(pid).is_some_and(alive)))
}

/// What went wrong with a command that did not succeed, for the user: `who` and how it
/// ended (time limit, exit status, signal), then the last lines of its standard error (in
/// the file `stderr`), joined by ` | `.
fn failure_message(who: &str, ending: Ending, timeout: Duration, stderr: &Path) -> String {
    let how = match ending {
        Ending::TimedOut => format!("did not finish within {} s", timeout.as_secs_f64()),
        Ending::Exited(s) => s.code().map_or("was killed by a signal".to_string(), |c| format!("exited with status {c}")),
    };
    let err = fs::read_to_string(stderr).unwrap_or_default();
    let last: Vec<&str> = err.trim().lines().rev().take(5).collect();
    let last: Vec<&str> = last.into_iter().rev().collect();
    format!("{who} {how}{}", if last.is_empty() { String::new() } else { format!(": {}", last.join(" | ")) })
}

/// Points the command's `TMPDIR` (and `TMP`, `TEMP`) into `run_dir/tmp`, so that what it
/// makes there (`mktemp -d`) goes with the run directory even when it is killed before its
/// own cleanup can run.
fn private_tmp(cmd: &mut Command, run_dir: &Path) -> Result<(), OracleError> {
    let tmp = run_dir.join("tmp");
    fs::create_dir(&tmp).map_err(io_at(&tmp))?;
    cmd.env("TMPDIR", &tmp).env("TMP", &tmp).env("TEMP", &tmp);
    Ok(())
}

/// Quotes a word (a path, a command line) for a POSIX shell: for commands lopper builds and
/// commands it prints for the user to paste.
pub fn shell_quote(word: &str) -> String {
    // try_quote fails only on NUL, which neither paths nor arguments hold.
    shlex::try_quote(word).map_or_else(|_| word.to_string(), |q| q.into_owned())
}

/// Whether an executable file starts as the kernel can run it: a `#!` line or an ELF header.
/// An unreadable file passes; running it will say why.
pub fn is_runnable(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    let Ok(n) = fs::File::open(path).and_then(|mut f| f.read(&mut head)) else { return true };
    head[..n].starts_with(b"#!") || head[..n].starts_with(b"\x7fELF")
}

/// How a run ended, before the criteria judge it.
#[derive(Clone, Copy, Debug)]
pub enum Ending {
    /// The process exited (or died of a signal) with this status.
    Exited(std::process::ExitStatus),
    /// It hit the time limit, or was cancelled, and was killed.
    TimedOut,
}

impl ScriptOracle {
    /// A runner for `test`, writing candidates as `file_name`, with a per-run `timeout`;
    /// setting `interrupt` kills the running test and makes [`Oracle::test`] fail with
    /// [`OracleError::Interrupted`]. Temporary directories live under one root in the
    /// system temp dir, removed when the runner is dropped.
    ///
    /// # Errors
    /// [`OracleError::TestMissing`], [`OracleError::TestIsDirectory`],
    /// [`OracleError::TestNotExecutable`], [`OracleError::TestNoInterpreter`], or an I/O
    /// error creating the temporary root.
    pub fn new(test: &Path, file_name: OsString, timeout: Duration, interrupt: Arc<AtomicBool>) -> Result<Self, OracleError> {
        let meta = fs::metadata(test).map_err(|_| OracleError::TestMissing(test.to_path_buf()))?;
        if meta.is_dir() {
            return Err(OracleError::TestIsDirectory(test.to_path_buf()));
        }
        if !meta.is_file() {
            return Err(OracleError::TestMissing(test.to_path_buf()));
        }
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(OracleError::TestNotExecutable(test.to_path_buf()));
        }
        if !is_runnable(test) {
            return Err(OracleError::TestNoInterpreter(test.to_path_buf()));
        }
        let test = TestCommand::Script(fs::canonicalize(test).map_err(io_at(test))?);
        Self::with_command(test, file_name, timeout, interrupt)
    }

    /// A runner for a shell command line (`sh -c COMMAND` with the candidate's path as
    /// `$1`); otherwise as [`ScriptOracle::new`].
    ///
    /// # Errors
    /// An I/O error creating the temporary root.
    pub fn shell(command: &str, file_name: OsString, timeout: Duration, interrupt: Arc<AtomicBool>) -> Result<Self, OracleError> {
        Self::with_command(TestCommand::Shell(command.to_string()), file_name, timeout, interrupt)
    }

    fn with_command(test: TestCommand, file_name: OsString, timeout: Duration, interrupt: Arc<AtomicBool>) -> Result<Self, OracleError> {
        let exec = LocalExecutor::new(test, file_name, timeout, interrupt, &std::env::temp_dir())?;
        Ok(ScriptOracle { exec, criteria: Criteria::default(), jobs: 1, wasted: executor::Wasted::default(), spec: executor::Speculation::default() })
    }

    /// Runs every test as `LAUNCHER... TEST FILE` (or `LAUNCHER... sh -c LINE lopper-test
    /// FILE`): `launcher` is a shell-like word list such as `srun --quiet --ntasks=1`, so
    /// that a cluster scheduler runs the tests and `--jobs` may exceed the local cores.
    /// Cancelling a run sends SIGTERM (then SIGKILL) to the launcher's process group;
    /// `srun` cancels its job step on SIGTERM.
    ///
    /// # Errors
    /// [`OracleError::Launcher`] when `launcher` is not a valid word list.
    pub fn with_launcher(mut self, launcher: &str) -> Result<Self, OracleError> {
        self.exec.launcher = shlex::split(launcher).ok_or_else(|| OracleError::Launcher(launcher.to_string()))?;
        Ok(self)
    }

    /// Puts the run directories under `dir` instead of the system temp dir (a filesystem
    /// that the nodes of a cluster share, for [`ScriptOracle::with_launcher`]).
    ///
    /// # Errors
    /// [`OracleError::Io`] creating the temporary root in `dir`.
    pub fn with_work_dir(mut self, dir: &Path) -> Result<Self, OracleError> {
        self.exec.move_root(dir)?;
        Ok(self)
    }

    /// Judges runs by `criteria` instead of "exit status 0".
    pub fn with_criteria(mut self, criteria: Criteria) -> Self {
        self.exec.stdin = criteria.stdin;
        self.criteria = criteria;
        self
    }

    /// Keeps every run's directory and the temporary root (for debugging a test).
    pub fn keep_temps(mut self, keep: bool) -> Self {
        self.exec.keep_temps = keep;
        self.exec.root.disable_cleanup(keep);
        self
    }

    /// Writes candidates in `encoding` (the input's).
    pub fn with_encoding(mut self, encoding: Encoding) -> Self {
        self.exec.encoding = encoding;
        self
    }

    /// Runs up to `jobs` tests at once in [`Oracle::first_interesting`] (at least 1).
    pub fn with_jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        self
    }

    /// The per-run time limit.
    pub fn timeout(&self) -> Duration {
        self.exec.timeout
    }

    /// Changes the per-run time limit (e.g. once the original's run time is known).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.exec.timeout = timeout;
    }

    /// Speculative test runs whose work was thrown away because an earlier candidate was
    /// interesting: killed, or ended with a verdict past the answer.
    pub fn wasted(&self) -> executor::Wasted {
        self.wasted
    }

    /// The temporary root (removed on drop).
    pub fn temp_root(&self) -> &Path {
        self.exec.root.path()
    }

    /// Runs the test once on `candidate`; with `capture`, keeps its output.
    ///
    /// # Errors
    /// As [`Oracle::test`].
    pub fn run(&mut self, candidate: &str, capture: bool) -> Result<RunReport, OracleError> {
        Ok(self.run_times(candidate, 1, capture)?.remove(0))
    }

    /// Runs the test `times` times on `candidate`, up to the oracle's jobs at once (the
    /// sanity runs of the original); with `capture`, keeps the outputs. The reports come
    /// in the order the runs were started.
    ///
    /// # Errors
    /// As [`Oracle::test`]; runs still going are cancelled first.
    pub fn run_times(&mut self, candidate: &str, times: usize, capture: bool) -> Result<Vec<RunReport>, OracleError> {
        let capture = capture || self.criteria.needs_output();
        let mut reports: Vec<Option<RunReport>> = vec![None; times];
        let mut going: Vec<(executor::RunId, usize)> = Vec::new();
        let mut started = 0;
        let result = loop {
            if reports.iter().all(Option::is_some) {
                break Ok(());
            }
            let mut failed = None;
            while going.len() < self.jobs.max(1) && started < times {
                match self.exec.submit(candidate, capture) {
                    Ok(id) => going.push((id, started)),
                    Err(e) => {
                        failed = Some(e);
                        break;
                    }
                }
                started += 1;
            }
            if let Some(e) = failed {
                break Err(e);
            }
            match self.exec.wait_any(Duration::from_millis(50)) {
                Ok(Some((ended, f))) => match going.iter().position(|g| g.0 == ended) {
                    Some(k) => {
                        let (_, slot) = going.remove(k);
                        let report = judge(&self.criteria, f);
                        self.spec.record(report.elapsed, report.verdict == Verdict::Interesting);
                        reports[slot] = Some(report);
                    }
                    // A successor run carried from a speculating call ended meanwhile.
                    None => {
                        self.spec.ended(ended, f);
                    }
                },
                Ok(None) => {}
                Err(e) => break Err(e),
            }
        };
        if let Err(e) = result {
            for (id, _) in going {
                self.exec.cancel(id);
            }
            return Err(e);
        }
        Ok(reports.into_iter().map(|r| r.expect("every run reported")).collect())
    }
}

/// Judges a finished run by `criteria`.
fn judge(criteria: &Criteria, f: Finished) -> RunReport {
    let verdict = match f.ending {
        Ending::TimedOut => Verdict::TimedOut,
        Ending::Exited(status) => {
            let code_ok = status.code().is_some_and(|c| criteria.exit_codes.contains(&c));
            let out_ok = criteria.stdout.as_ref().is_none_or(|re| re.is_match(&f.stdout));
            let err_ok = criteria.stderr.as_ref().is_none_or(|re| re.is_match(&f.stderr));
            if code_ok && out_ok && err_ok {
                Verdict::Interesting
            } else {
                Verdict::NotInteresting
            }
        }
    };
    RunReport { verdict, elapsed: f.elapsed, output: format!("{}{}", tail(&f.stdout), tail(&f.stderr)) }
}

/// The last 64 KiB of `s`, cut at a character boundary.
fn tail(s: &str) -> &str {
    let mut i = s.len().saturating_sub(64 * 1024);
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

impl Oracle for ScriptOracle {
    fn test(&mut self, candidate: &str) -> Result<Verdict, OracleError> {
        Ok(self.run(candidate, false)?.verdict)
    }

    /// Keeps up to `jobs` tests running, in candidate order, each candidate screened when a
    /// slot is free for it; returns as soon as the verdicts of a prefix are known and its
    /// last one is interesting (or all are known). Tests of later candidates still running
    /// then are killed, process group and all. With more than one slot a candidate's
    /// successors are started once its run has lasted as long as passing runs tend to
    /// ([`executor::Speculation`]).
    fn first_interesting_speculating(
        &mut self,
        candidates: &[&str],
        screen: &mut dyn FnMut(usize) -> Screened,
        successors: &mut dyn FnMut(usize) -> Vec<String>,
    ) -> Result<Vec<(usize, Verdict, bool)>, OracleError> {
        let capture = self.criteria.needs_output();
        let criteria = &self.criteria;
        let (result, wasted) =
            executor::first_interesting(&mut self.exec, self.jobs, candidates, capture, screen, successors, &mut self.spec, |f| judge(criteria, f).verdict);
        self.wasted += wasted;
        Ok(result?.into_iter().map(|(i, v)| (i, v, false)).collect())
    }
}

/// What one run of an external transformation made of instance `n`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TransformOutcome {
    /// Exit 0 with a changed program: the variant's text.
    Variant(String),
    /// Exit 0 and nothing changed: this instance has nothing to offer.
    Unchanged,
    /// Exit 255 or 1: there is no instance `n`.
    NoInstance,
    /// Any other ending (another exit status, a signal, the time limit): what went wrong,
    /// with the end of the command's standard error.
    Failed(String),
}

/// Runs an external transformation command in Regehr's protocol (docs/transformations.md):
/// `{file}` is a private copy of the current best that the command may rewrite in place,
/// `{out}` a path it may write the variant to instead, `{n}` the instance number from 1.
/// Each run has its own directory under one temporary root, a time limit, and its own
/// process group, killed whole afterwards — the same discipline as test runs, so
/// transformations themselves never spawn processes.
#[derive(Debug)]
pub struct TransformRunner {
    command: String,
    file_name: OsString,
    timeout: Duration,
    interrupt: Arc<AtomicBool>,
    root: tempfile::TempDir,
    runs: std::sync::atomic::AtomicUsize,
    encoding: Encoding,
}

impl TransformRunner {
    /// A runner for the shell command line `command` (placeholders `{file}`, `{out}`, `{n}`),
    /// writing the program as `file_name`, with a per-run `timeout`; setting `interrupt`
    /// kills a running command.
    ///
    /// # Errors
    /// [`OracleError::Io`] creating the temporary root.
    pub fn new(command: &str, file_name: OsString, timeout: Duration, interrupt: Arc<AtomicBool>) -> Result<TransformRunner, OracleError> {
        let root = tempfile::Builder::new().prefix("lopper-transform-").tempdir().map_err(io_at(&std::env::temp_dir()))?;
        Ok(TransformRunner { command: command.to_string(), file_name, timeout, interrupt, root, runs: Default::default(), encoding: Encoding::Utf8 })
    }

    /// Writes programs and reads variants in `encoding` (the input's).
    pub fn with_encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// The command line, as given.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// Runs instance `n` (from 1) on `program`.
    ///
    /// # Errors
    /// [`OracleError::Interrupted`] on Ctrl-C; [`OracleError::Io`] for the run directory or
    /// the shell.
    pub fn run(&self, program: &str, n: usize) -> Result<TransformOutcome, OracleError> {
        let run = self.execute(&self.command, program, n)?;
        let (file, out) = (run.dir.join(&self.file_name), run.dir.join(".lopper-out"));
        let outcome = match run.status.and_then(|s| s.code()) {
            Some(0) => {
                let variant = fs::read(&out).or_else(|_| fs::read(&file)).map_err(io_at(&file))?;
                let variant = self.encoding.decode_as(&variant);
                if variant == program {
                    TransformOutcome::Unchanged
                } else {
                    TransformOutcome::Variant(variant)
                }
            }
            Some(1 | 255) => TransformOutcome::NoInstance,
            _ => TransformOutcome::Failed(run.failure()),
        };
        Ok(outcome)
    }

    /// Runs the count command `command` (Regehr's optional `get_count`; `{file}` as for
    /// [`TransformRunner::run`], no `{n}`) on `program`: the number of instances, the last
    /// integer it prints on standard output (`clang_delta --query-instances` prints
    /// `Available transformation instances: 3`).
    ///
    /// # Errors
    /// `Ok(Err(why))` when the command fails or prints no number; [`OracleError`] as for
    /// [`TransformRunner::run`].
    pub fn count(&self, command: &str, program: &str) -> Result<Result<usize, String>, OracleError> {
        let run = self.execute(command, program, 0)?;
        if run.status.and_then(|s| s.code()) != Some(0) {
            return Ok(Err(run.failure()));
        }
        let stdout = fs::read_to_string(run.dir.join(".lopper-stdout")).unwrap_or_default();
        let last = stdout.split(|c: char| !c.is_ascii_digit()).rfind(|w| !w.is_empty());
        Ok(last.and_then(|w| w.parse().ok()).ok_or_else(|| format!("`{}` printed no instance count: {:?}", run.line, stdout.trim())))
    }

    /// Runs the command line `command` with `{file}` (holding `program`), `{out}` and `{n}`
    /// substituted, in a fresh run directory (removed when the [`TransformRun`] is dropped),
    /// with the time limit and the process-group discipline of test runs.
    fn execute(&self, command: &str, program: &str, n: usize) -> Result<TransformRun, OracleError> {
        let run = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
        let dir = self.root.path().join(format!("x{run}"));
        fs::create_dir(&dir).map_err(io_at(&dir))?;
        let file = dir.join(&self.file_name);
        let out = dir.join(".lopper-out");
        fs::write(&file, self.encoding.encode(program)).map_err(io_at(&file))?;
        let quote = |p: &Path| shell_quote(&p.to_string_lossy());
        let line = command.replace("{file}", &quote(&file)).replace("{out}", &quote(&out)).replace("{n}", &n.to_string());
        let mut run = TransformRun { dir, line, status: None, timeout: self.timeout };
        let open = |name: &str| {
            let path = run.dir.join(name);
            fs::File::create(&path).map_err(io_at(&path))
        };
        let (stdout, stderr) = (open(".lopper-stdout")?, open(".lopper-stderr")?);
        let mut cmd = Command::new("sh");
        cmd.arg("-c").arg(&run.line).current_dir(&run.dir).stdin(Stdio::null()).stdout(stdout).stderr(stderr).process_group(0);
        private_tmp(&mut cmd, &run.dir)?;
        let mut child = cmd.spawn().map_err(io_at(Path::new("sh")))?;
        let started = Instant::now();
        let ending = loop {
            match poll_child(&mut child, started, self.timeout, &self.interrupt, Duration::from_millis(50), &run.dir) {
                Ok(Some(e)) => break Ok(e),
                Ok(None) => {}
                Err(e) => break Err(e),
            }
        };
        kill_group(&mut child);
        run.status = match ending? {
            Ending::Exited(s) => Some(s),
            Ending::TimedOut => None,
        };
        Ok(run)
    }
}

/// One finished run of a transformation command; its directory goes when it is dropped.
struct TransformRun {
    dir: PathBuf,
    /// The command line as run.
    line: String,
    /// Its exit status; `None` if it hit the time limit.
    status: Option<std::process::ExitStatus>,
    timeout: Duration,
}

impl TransformRun {
    /// Why the run counts as failed: how it ended, with the last lines of its stderr.
    fn failure(&self) -> String {
        let ending = self.status.map_or(Ending::TimedOut, Ending::Exited);
        failure_message(&format!("`{}`", self.line), ending, self.timeout, &self.dir.join(".lopper-stderr"))
    }
}

impl Drop for TransformRun {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_groups_are_found_by_walking_its_descendants() {
        // A test-like tree: a shell in its own group, a background sleep in that group, and
        // under a subshell a sleep in a group of its own (as GNU `timeout` makes one).
        let mut child =
            Command::new("sh").args(["-c", "sleep 30 & (perl -e 'setpgrp(0,0); exec \"sleep\", \"31\"'; true) & wait"]).process_group(0).spawn().unwrap();
        let own = Pid::from_raw(child.id() as i32);
        let t = Instant::now();
        let (groups, members) = loop {
            let (groups, members) = run_groups(own);
            if groups.len() == 2 && members.len() == 4 || t.elapsed() > Duration::from_secs(10) {
                break (groups, members);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let found = descendants(own.as_raw()).expect("this kernel lists children");
        kill_group(&mut child);
        assert_eq!(found.len(), 3, "the two sleeps and the subshell: {found:?}");
        assert_eq!(groups.len(), 2, "the shell's group and the one its child made: {groups:?}");
        assert_eq!(groups[0], own);
        assert!(members.contains(&own.as_raw()) && found.iter().all(|p| members.contains(p)), "{members:?} {found:?}");
        // Nothing of either group lives on (zombies waiting for init may).
        assert!(!any_alive(&groups, &members));
    }
}
