//! External transformation commands in Regehr's protocol, run with the same time limit
//! and process-group discipline as tests.

use crate::{failure_message, io_at, kill_group, poll_child, private_tmp, shell_quote, Encoding, Ending, OracleError};
use std::ffi::OsString;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

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
/// `{out}` a path it may write the variant to instead, `{n}` the instance number from 1
/// (and `{to}` the last of a range of instances applied together, C-Vise's binary-search
/// mode; `{n}` when the run is one instance). Each run has its own directory under one temporary root, a time limit, and its own
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
        self.run_range(program, n..=n)
    }

    /// Runs instances `n` to `to` (from 1, inclusive) together on `program`: `{n}` and
    /// `{to}` are their bounds (`clang_delta --counter={n} --to-counter={to}`).
    ///
    /// # Errors
    /// As for [`TransformRunner::run`].
    pub fn run_range(&self, program: &str, range: std::ops::RangeInclusive<usize>) -> Result<TransformOutcome, OracleError> {
        let run = self.execute(&self.command, program, range)?;
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
        let run = self.execute(command, program, 0..=0)?;
        if run.status.and_then(|s| s.code()) != Some(0) {
            return Ok(Err(run.failure()));
        }
        let stdout = fs::read_to_string(run.dir.join(".lopper-stdout")).unwrap_or_default();
        let last = stdout.split(|c: char| !c.is_ascii_digit()).rfind(|w| !w.is_empty());
        Ok(last.and_then(|w| w.parse().ok()).ok_or_else(|| format!("`{}` printed no instance count: {:?}", run.line, stdout.trim())))
    }

    /// Runs the command line `command` with `{file}` (holding `program`), `{out}`, `{n}` and
    /// `{to}` (the bounds of `range`) substituted, in a fresh run directory (removed when the [`TransformRun`] is dropped),
    /// with the time limit and the process-group discipline of test runs.
    fn execute(&self, command: &str, program: &str, range: std::ops::RangeInclusive<usize>) -> Result<TransformRun, OracleError> {
        let run = self.runs.fetch_add(1, Ordering::SeqCst) + 1;
        let dir = self.root.path().join(format!("x{run}"));
        fs::create_dir(&dir).map_err(io_at(&dir))?;
        let file = dir.join(&self.file_name);
        let out = dir.join(".lopper-out");
        fs::write(&file, self.encoding.encode(program)).map_err(io_at(&file))?;
        let quote = |p: &Path| shell_quote(&p.to_string_lossy());
        let line = command
            .replace("{file}", &quote(&file))
            .replace("{out}", &quote(&out))
            .replace("{n}", &range.start().to_string())
            .replace("{to}", &range.end().to_string());
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
