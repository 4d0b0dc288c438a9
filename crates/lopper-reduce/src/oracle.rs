//! The oracle: runs the interestingness test on a candidate.
//!
//! Each run gets a fresh working directory under one temporary root, holding the candidate
//! under the input's own file name (the C-Reduce / Perses convention); the test gets the
//! candidate's path as `$1`, runs in its own process group, and the whole group is killed
//! on timeout, on interrupt, and after the test exits (so no grandchild outlives it).

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
use wait_timeout::ChildExt;

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
    /// The test file is not executable.
    #[error("interestingness test {0} is not executable (try: chmod +x {0})")]
    TestNotExecutable(PathBuf),
    /// A file-system or process error.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Something that judges candidates. The reducer only sees this trait, so tests can use
/// synthetic predicates and the real runner spawns processes.
pub trait Oracle {
    /// Judges one candidate text.
    ///
    /// # Errors
    /// [`OracleError::Interrupted`] when the user stopped the run; I/O errors otherwise.
    fn test(&mut self, candidate: &str) -> Result<Verdict, OracleError>;
}

impl<F: FnMut(&str) -> bool> Oracle for F {
    fn test(&mut self, candidate: &str) -> Result<Verdict, OracleError> {
        Ok(if self(candidate) { Verdict::Interesting } else { Verdict::NotInteresting })
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

/// Runs an executable interestingness test.
#[derive(Debug)]
pub struct ScriptOracle {
    test: PathBuf,
    file_name: OsString,
    timeout: Duration,
    root: tempfile::TempDir,
    runs: u64,
    interrupt: Arc<AtomicBool>,
}

impl ScriptOracle {
    /// A runner for `test`, writing candidates as `file_name`, with a per-run `timeout`;
    /// setting `interrupt` kills the running test and makes [`Oracle::test`] fail with
    /// [`OracleError::Interrupted`]. Temporary directories live under one root in the
    /// system temp dir, removed when the runner is dropped.
    ///
    /// # Errors
    /// [`OracleError::TestMissing`], [`OracleError::TestNotExecutable`], or an I/O error
    /// creating the temporary root.
    pub fn new(test: &Path, file_name: OsString, timeout: Duration, interrupt: Arc<AtomicBool>) -> Result<Self, OracleError> {
        let meta = fs::metadata(test).map_err(|_| OracleError::TestMissing(test.to_path_buf()))?;
        if !meta.is_file() {
            return Err(OracleError::TestMissing(test.to_path_buf()));
        }
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(OracleError::TestNotExecutable(test.to_path_buf()));
        }
        let test = fs::canonicalize(test)?;
        let root = tempfile::Builder::new().prefix("lopper-").tempdir()?;
        Ok(ScriptOracle { test, file_name, timeout, root, runs: 0, interrupt })
    }

    /// The temporary root (removed on drop).
    pub fn temp_root(&self) -> &Path {
        self.root.path()
    }

    /// Runs the test once on `candidate`; with `capture`, keeps its output.
    ///
    /// # Errors
    /// As [`Oracle::test`].
    pub fn run(&mut self, candidate: &str, capture: bool) -> Result<RunReport, OracleError> {
        if self.interrupt.load(Ordering::SeqCst) {
            return Err(OracleError::Interrupted);
        }
        self.runs += 1;
        let dir = self.root.path().join(format!("t{}", self.runs));
        fs::create_dir(&dir)?;
        let path = dir.join(&self.file_name);
        fs::write(&path, candidate)?;
        let out = |name: &str| -> std::io::Result<Stdio> {
            Ok(if capture { Stdio::from(fs::File::create(dir.join(name))?) } else { Stdio::null() })
        };
        let start = Instant::now();
        let mut child = Command::new(&self.test)
            .arg(&path)
            .current_dir(&dir)
            .stdin(Stdio::null())
            .stdout(out(".lopper-stdout")?)
            .stderr(out(".lopper-stderr")?)
            .process_group(0)
            .spawn()?;
        let pgid = Pid::from_raw(child.id() as i32);
        let result = loop {
            let left = self.timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                break Ok(Verdict::TimedOut);
            }
            if self.interrupt.load(Ordering::SeqCst) {
                break Err(OracleError::Interrupted);
            }
            match child.wait_timeout(left.min(Duration::from_millis(50)))? {
                Some(status) => break Ok(if status.success() { Verdict::Interesting } else { Verdict::NotInteresting }),
                None => continue,
            }
        };
        // Kill the whole group: on timeout or interrupt the test itself, and in every case
        // any grandchild it left behind. ESRCH (nobody left) is fine.
        let _ = killpg(pgid, Signal::SIGKILL);
        let _ = child.wait();
        let elapsed = start.elapsed();
        let mut output = String::new();
        if capture {
            for name in [".lopper-stdout", ".lopper-stderr"] {
                if let Ok(bytes) = fs::read(dir.join(name)) {
                    let tail = &bytes[bytes.len().saturating_sub(64 * 1024)..];
                    output.push_str(&String::from_utf8_lossy(tail));
                }
            }
        }
        let _ = fs::remove_dir_all(&dir);
        Ok(RunReport { verdict: result?, elapsed, output })
    }
}

impl Oracle for ScriptOracle {
    fn test(&mut self, candidate: &str) -> Result<Verdict, OracleError> {
        Ok(self.run(candidate, false)?.verdict)
    }
}
