//! Runs the user's generator under lopper's trace shims (docs/generators.md): recording its
//! random choices, or replaying a (reduced) trace of them. Like test runs, each run has its
//! own directory under one temporary root, a private `TMPDIR`, a time limit and its own
//! process group, killed whole afterwards.

use super::{failure_message, io_at, kill_group, poll_child, private_tmp, Ending, OracleError};
use std::ffi::OsString;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The Python shim's start-up part: a `sitecustomize.py` that lopper puts first on
/// `PYTHONPATH`, which imports [`PYTHON_SHIM`] when a trace is asked for.
pub const PYTHON_SITECUSTOMIZE: &str = include_str!("../shims/python/sitecustomize.py");
/// The Python shim itself (`_lopper_trace.py`, beside [`PYTHON_SITECUSTOMIZE`]).
pub const PYTHON_SHIM: &str = include_str!("../shims/python/_lopper_trace.py");
/// The Node.js shim, loaded with `NODE_OPTIONS=--require`.
pub const NODE_SHIM: &str = include_str!("../shims/node/lopper_trace.js");
/// The exit status with which a shim stops a replay that `halt` alignment gave up on.
pub const HALT_STATUS: i32 = 86;

/// How a replay treats a choice the trace does not line up with (GReduce §4.4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Stop the run: the candidate is dropped untested.
    Halt,
    /// Stop the run, then retry without the loop iteration around the misaligned entry
    /// (the reducer does this; the shim halts).
    Bypass,
    /// Answer the smallest value that fits the call and resume at the next trace entry for
    /// the same call sites and invocations.
    Realign,
}

impl Align {
    /// Every strategy with its name on the command line.
    pub const ALL: [(Align, &'static str); 3] = [(Align::Halt, "halt"), (Align::Bypass, "bypass"), (Align::Realign, "re-align")];

    /// Its name on the command line and in `LOPPER_TRACE_ALIGN`.
    pub fn name(self) -> &'static str {
        Align::ALL.iter().find(|(a, _)| *a == self).map_or("re-align", |(_, n)| n)
    }
}

/// What one generator run produced.
#[derive(Clone, Debug)]
pub struct GeneratorRun {
    /// Its standard output (lossily decoded), if it exited with status 0.
    pub output: Result<String, RunFailure>,
    /// The trace of the choices it made (JSON lines), as far as the shim wrote it.
    pub trace: String,
    /// Trace entries at which the replay was misaligned (empty when recording).
    pub misaligned: Vec<usize>,
    /// Wall time of the run.
    pub elapsed: Duration,
}

/// Why a generator run has no output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunFailure {
    /// `halt` alignment stopped it at this trace entry.
    Halted(usize),
    /// It exited with another status, died by a signal, or ran out of time: the message,
    /// with the end of its standard error.
    Failed(String),
}

/// Runs a generator command (argv, no shell) in the caller's working directory, with the
/// shims on `PYTHONPATH` and `NODE_OPTIONS`.
#[derive(Debug)]
pub struct GeneratorRunner {
    argv: Vec<OsString>,
    timeout: Duration,
    interrupt: Arc<AtomicBool>,
    root: tempfile::TempDir,
    python: PathBuf,
    node: PathBuf,
    runs: AtomicUsize,
}

impl GeneratorRunner {
    /// A runner for `argv` (program and arguments) with a per-run `timeout`; setting
    /// `interrupt` kills a running generator. The shims are written into a temporary root,
    /// removed on drop.
    ///
    /// # Errors
    /// [`OracleError::Io`] for the temporary root or the shims.
    pub fn new(argv: Vec<OsString>, timeout: Duration, interrupt: Arc<AtomicBool>) -> Result<GeneratorRunner, OracleError> {
        let root = tempfile::Builder::new().prefix("lopper-generate-").tempdir().map_err(io_at(&std::env::temp_dir()))?;
        let python = root.path().join("python");
        fs::create_dir(&python).map_err(io_at(&python))?;
        for (name, text) in [("sitecustomize.py", PYTHON_SITECUSTOMIZE), ("_lopper_trace.py", PYTHON_SHIM)] {
            let py = python.join(name);
            fs::write(&py, text).map_err(io_at(&py))?;
        }
        let node = root.path().join("lopper_trace.js");
        fs::write(&node, NODE_SHIM).map_err(io_at(&node))?;
        Ok(GeneratorRunner { argv, timeout, interrupt, root, python, node, runs: AtomicUsize::new(0) })
    }

    /// The per-run time limit.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Changes the per-run time limit.
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Generator runs so far.
    pub fn runs(&self) -> usize {
        self.runs.load(Ordering::SeqCst)
    }

    /// Runs the generator once: recording (`replay` = `None`) or replaying the trace `replay`
    /// (JSON lines) with `align` (`Bypass` halts; the reducer retries).
    ///
    /// # Errors
    /// [`OracleError::Interrupted`] on Ctrl-C; [`OracleError::Io`] for the run directory or
    /// starting the program.
    pub fn run(&self, replay: Option<&str>, align: Align) -> Result<GeneratorRun, OracleError> {
        let run = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
        let dir = self.root.path().join(format!("g{run}"));
        fs::create_dir(&dir).map_err(io_at(&dir))?;
        let result = self.run_in(&dir, replay, align);
        let _ = fs::remove_dir_all(&dir);
        result
    }

    fn run_in(&self, dir: &Path, replay: Option<&str>, align: Align) -> Result<GeneratorRun, OracleError> {
        let (stdout_path, stderr_path) = (dir.join("stdout"), dir.join("stderr"));
        let (trace_out, report) = (dir.join("trace.jsonl"), dir.join("report.json"));
        let stdout = fs::File::create(&stdout_path).map_err(io_at(&stdout_path))?;
        let stderr = fs::File::create(&stderr_path).map_err(io_at(&stderr_path))?;
        let mut cmd = Command::new(&self.argv[0]);
        cmd.args(&self.argv[1..]).stdin(Stdio::null()).stdout(stdout).stderr(stderr).process_group(0);
        private_tmp(&mut cmd, dir)?;
        let pythonpath = match std::env::var_os("PYTHONPATH") {
            Some(p) if !p.is_empty() => {
                let mut v = self.python.clone().into_os_string();
                v.push(":");
                v.push(p);
                v
            }
            _ => self.python.clone().into_os_string(),
        };
        let mut node_options = OsString::from("--require=");
        node_options.push(&self.node);
        if let Some(o) = std::env::var_os("NODE_OPTIONS") {
            node_options.push(" ");
            node_options.push(o);
        }
        cmd.env("PYTHONPATH", pythonpath).env("NODE_OPTIONS", node_options).env_remove("LOPPER_TRACE_ACTIVE");
        cmd.env("LOPPER_TRACE_OUT", &trace_out).env("LOPPER_TRACE_REPORT", &report);
        match replay {
            None => {
                cmd.env("LOPPER_TRACE_MODE", "record");
            }
            Some(trace) => {
                let trace_in = dir.join("trace-in.jsonl");
                fs::write(&trace_in, trace).map_err(io_at(&trace_in))?;
                let align = if align == Align::Realign { "re-align" } else { "halt" };
                cmd.env("LOPPER_TRACE_MODE", "replay").env("LOPPER_TRACE_IN", &trace_in).env("LOPPER_TRACE_ALIGN", align);
            }
        }
        let program = PathBuf::from(&self.argv[0]);
        let mut child = cmd.spawn().map_err(io_at(&program))?;
        let started = Instant::now();
        let ending = loop {
            match poll_child(&mut child, started, self.timeout, &self.interrupt, Duration::from_millis(20), dir) {
                Ok(Some(e)) => break e,
                Ok(None) => {}
                Err(e) => {
                    kill_group(&mut child);
                    return Err(e);
                }
            }
        };
        kill_group(&mut child);
        let trace = fs::read_to_string(&trace_out).unwrap_or_default();
        let misaligned: Vec<usize> = fs::read_to_string(&report)
            .ok()
            .and_then(|r| serde_json::from_str::<serde_json::Value>(&r).ok())
            .and_then(|r| r.get("misaligned").and_then(|m| m.as_array()).map(|m| m.iter().filter_map(|i| i.as_u64()).map(|i| i as usize).collect()))
            .unwrap_or_default();
        let output = match ending {
            Ending::Exited(s) if s.success() => {
                let bytes = fs::read(&stdout_path).map_err(io_at(&stdout_path))?;
                Ok(String::from_utf8_lossy(&bytes).into_owned())
            }
            Ending::Exited(s) if s.code() == Some(HALT_STATUS) && replay.is_some() => Err(RunFailure::Halted(misaligned.last().copied().unwrap_or(0))),
            other => Err(RunFailure::Failed(failure_message("the generator", other, self.timeout, &stderr_path))),
        };
        Ok(GeneratorRun { output, trace, misaligned, elapsed: started.elapsed() })
    }
}
