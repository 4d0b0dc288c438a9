//! The script oracle: an executable interestingness test (or a shell line) judged by its
//! [`Criteria`], run on a [`LocalExecutor`] by the speculating scheduler.

use crate::speculation::{Scheduler, Slots, Speculation, Wasted};
use crate::{io_at, is_runnable, Batch, Criteria, Encoding, Ending, Finished, Judged, LocalExecutor, Oracle, OracleError, RunReport, TestCommand, Verdict};
use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// Runs an executable interestingness test: the criteria that judge a run, and the
/// speculative scheduler that keeps up to `jobs` runs of an [`Executor`] going in candidate
/// order (it knows nothing of processes; the [`LocalExecutor`] spawns them).
#[derive(Debug)]
pub struct ScriptOracle {
    exec: LocalExecutor,
    criteria: Criteria,
    jobs: usize,
    wasted: Wasted,
    /// Speculation on success between calls (successor runs carried to the next).
    spec: Speculation,
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
        Ok(ScriptOracle { exec, criteria: Criteria::default(), jobs: 1, wasted: Wasted::default(), spec: Speculation::default() })
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

    /// Limits each run's address space to `mib` MiB (`ulimit -v`, for the test and every
    /// process it starts: a test that allocates without end fails instead of taking the
    /// machine's memory); `None`: no limit.
    pub fn set_memory_limit(&mut self, mib: Option<u64>) {
        self.exec.memory_limit_kib = mib.map(|m| m.saturating_mul(1024));
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

    /// Carries a project's `kept` files (binary files, symlinks) as they are into every
    /// run's tree, beside the candidate's files.
    pub fn with_kept(mut self, kept: Vec<lopper_bundle::Kept>) -> Self {
        self.exec.kept = kept.into();
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
    pub fn wasted(&self) -> Wasted {
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
        let mut slots = Slots::default();
        let mut started = 0;
        let result = (|| {
            while reports.iter().any(Option::is_none) {
                while slots.len() < self.jobs.max(1) && started < times {
                    slots.start(&mut self.exec, candidate, capture, started)?;
                    started += 1;
                }
                if let Some((slot, f)) = slots.wait(&mut self.exec, &mut self.spec, Duration::from_millis(50))? {
                    let report = judge(&self.criteria, f);
                    self.spec.record(report.elapsed, report.verdict == Verdict::Interesting);
                    reports[slot] = Some(report);
                }
            }
            Ok(())
        })();
        if let Err(e) = result {
            slots.cancel_all(&mut self.exec);
            return Err(e);
        }
        Ok(reports.into_iter().map(|r| r.expect("every run reported")).collect())
    }
}

/// Judges a finished run by `criteria`.
fn judge(criteria: &Criteria, f: Finished) -> RunReport {
    let verdict = match f.ending {
        Ending::TimedOut => Verdict::TimedOut,
        Ending::Exited(status) if criteria.ub_guard && status.code() == Some(crate::ub_guard::UB_EXIT) => Verdict::Undefined,
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
    /// ([`Speculation`]).
    fn judge(&mut self, batch: Batch<'_>) -> Result<Vec<Judged>, OracleError> {
        let capture = self.criteria.needs_output();
        let criteria = &self.criteria;
        let scheduler = Scheduler { exec: &mut self.exec, spec: &mut self.spec, jobs: self.jobs, capture };
        let (result, wasted) = scheduler.first_interesting(batch, &mut |f| judge(criteria, f).verdict);
        self.wasted += wasted;
        Ok(result?.into_iter().map(|(index, verdict)| Judged { index, verdict, remembered: false }).collect())
    }
}
