//! Where test runs happen, behind one small seam: an [`Executor`] starts a run of the test on
//! a candidate, reports runs as they end, and cancels runs (treereduce's start / try_wait /
//! cancel `Check` is the nearest model). The speculative scheduler of
//! [`crate::ScriptOracle`] drives any executor and knows nothing of processes; the
//! [`LocalExecutor`] spawns them, here or through a cluster launcher such as `srun`.

use crate::process::read_tail;
use crate::{io_at, kill_group, private_tmp, wait_for_exit, Encoding, Ending, OracleError, TestCommand};
use std::ffi::OsString;
use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How much of a test's standard output and of its standard error is kept (the last MiB
/// of each): what `--stdout-regex` and `--stderr-regex` see. However much a test prints,
/// it goes to a file in its run directory and only this much is read back.
pub const OUTPUT_TAIL: u64 = 1 << 20;

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
    /// The address space each run may take, in KiB (`ulimit -v`); `None`: no limit.
    pub(crate) memory_limit_kib: Option<u64>,
    /// Whether the test reads the candidate on standard input too.
    pub(crate) stdin: bool,
    /// A project's files carried as they are into every run's tree.
    pub(crate) kept: Arc<[lopper_bundle::Kept]>,
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
            memory_limit_kib: None,
            stdin: false,
            kept: Arc::new([]),
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
        let read = |name: &str| read_tail(&r.dir.join(name), OUTPUT_TAIL);
        let (stdout, stderr) = if r.capture { (read(".lopper-stdout"), read(".lopper-stderr")) } else { Default::default() };
        if !self.keep_temps {
            let _ = fs::remove_dir_all(&r.dir);
        }
        tracing::debug!(dir = %r.dir.display(), ?ending, seconds = elapsed.as_secs_f64(), "test run");
        Finished { ending, elapsed, stdout, stderr }
    }
}

/// Writes the tree of project bundle `text` under `root` (made here): its files, and the
/// files of `kept` it holds ([`lopper_bundle::present`]) as they are, a deletable one in
/// place of its header's empty text.
///
/// # Errors
/// [`OracleError`] naming the file or folder that could not be written.
pub fn write_tree(root: &Path, text: &str, kept: &[lopper_bundle::Kept]) -> Result<(), OracleError> {
    fs::create_dir_all(root).map_err(io_at(root))?;
    let files = lopper_bundle::split(text);
    for f in files.iter().filter(|f| lopper_bundle::safe_path(f.path) && !lopper_bundle::stands_in(kept, f.path)) {
        let path = root.join(f.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(io_at(parent))?;
        }
        fs::write(&path, f.text).map_err(io_at(&path))?;
    }
    write_kept(root, lopper_bundle::present(kept, &files))
}

/// Writes the files `kept` under `root` as they are: bytes, or symlinks to their targets.
///
/// # Errors
/// [`OracleError`] naming the file that could not be written.
pub fn write_kept<'k>(root: &Path, kept: impl IntoIterator<Item = &'k lopper_bundle::Kept>) -> Result<(), OracleError> {
    for k in kept.into_iter().filter(|k| lopper_bundle::safe_path(&k.path)) {
        let path = root.join(&k.path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(io_at(parent))?;
        }
        match &k.file {
            lopper_bundle::KeptFile::Bytes(b) => fs::write(&path, b),
            lopper_bundle::KeptFile::Symlink(target) => std::os::unix::fs::symlink(target, &path),
        }
        .map_err(io_at(&path))?;
    }
    Ok(())
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
        let path = if lopper_bundle::is_bundle(candidate) {
            // A project: its files under `tree/`, which is the test's `$1` and working
            // directory (C-Vise runs a test for several files in their folder).
            let root = dir.join("tree");
            write_tree(&root, candidate, &self.kept)?;
            root
        } else {
            let path = dir.join(&self.file_name);
            fs::write(&path, self.encoding.encode(candidate)).map_err(io_at(&path))?;
            path
        };
        let cwd = if path.is_dir() { path.clone() } else { dir.clone() };
        let out = |name: &str| -> std::io::Result<Stdio> { Ok(if capture { Stdio::from(fs::File::create(dir.join(name))?) } else { Stdio::null() }) };
        let mut argv: Vec<OsString> = self.launcher.iter().map(OsString::from).collect();
        if let Some(kib) = self.memory_limit_kib {
            // The shell's ulimit: a limit on the test and all it starts, without unsafe code
            // between fork and exec.
            argv.extend(["sh".into(), "-c".into(), format!("ulimit -v {kib} && exec \"$@\"").into(), "lopper-limit".into()]);
        }
        match &self.test {
            TestCommand::Script(p) => argv.push(p.into()),
            TestCommand::Shell(line) => argv.extend(["sh", "-c", line, "lopper-test"].map(OsString::from)),
        }
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..]);
        private_tmp(&mut cmd, &dir)?;
        let stdin = if self.stdin { Stdio::from(fs::File::open(&path).map_err(io_at(&path))?) } else { Stdio::null() };
        let (stdout, stderr) = (out(".lopper-stdout").map_err(io_at(&dir))?, out(".lopper-stderr").map_err(io_at(&dir))?);
        let child = cmd.arg(&path).current_dir(&cwd).stdin(stdin).stdout(stdout).stderr(stderr).process_group(0).spawn().map_err(io_at(Path::new(&argv[0])))?;
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
