//! What both subcommands (`lopper` and `lopper generate`) set up the same way, written once
//! (ripgrep's high-level arguments that build the configured objects): the interrupt flag
//! Ctrl-C sets, the job count and the candidate window, the persistent verdict cache, and
//! atomic writes of results and of the `--stats` JSON.

use lopper_reduce::oracle::cache::{PersistentCache, TestIdentity};
use lopper_reduce::Oracle;
use rustix::fs::{flock, FlockOperation};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The flag a Ctrl-C (or SIGTERM) sets: every running test or command is killed and the
/// reduction stops with its best so far.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let flag = interrupt.clone();
    // A second Ctrl-C while the first is being handled has nothing left to stop.
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    interrupt
}

/// Tests at once: `-j`, else the machine's cores; at least 1.
pub fn jobs(given: Option<usize>) -> usize {
    given.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1)
}

/// Candidates per test slot handed to the oracle at once.
pub const LOOKAHEAD: usize = 4;

/// The candidate window for `jobs` tests at once: the reducer hands the oracle
/// [`LOOKAHEAD`] times as many candidates as tests may run, so a slot that frees starts
/// the next candidate at once instead of idling until the whole batch is judged; the
/// result and the counts do not depend on it.
pub fn window(jobs: usize) -> usize {
    if jobs > 1 {
        jobs * LOOKAHEAD
    } else {
        1
    }
}

/// The persistent verdict cache's directory: `--cache-dir`, else `lopper_parse::cache_home()/verdicts`;
/// `None` with `--no-cache`.
pub fn verdict_dir(no_cache: bool, given: Option<&Path>) -> Option<PathBuf> {
    (!no_cache).then(|| given.map_or_else(|| lopper_parse::cache_home().join("verdicts"), Path::to_path_buf))
}

/// Runs `reduce` with `oracle` behind the persistent verdict cache in `dir` (under the
/// test's `identity`), or with `oracle` itself when `dir` is `None`. A store that cannot be
/// opened is said at once; one that failed during the run is handed back, to be said once
/// at the end.
pub fn with_verdicts<R>(oracle: &mut dyn Oracle, dir: Option<&Path>, identity: TestIdentity, reduce: impl FnOnce(&mut dyn Oracle) -> R) -> (R, Option<String>) {
    let Some(dir) = dir else { return (reduce(oracle), None) };
    let mut cached = PersistentCache::new(oracle, dir, identity);
    if let Some(w) = cached.warning() {
        eprintln!("lopper: warning: {w}");
    }
    let opened = cached.warning().is_none();
    let result = reduce(&mut cached);
    (result, cached.warning().filter(|_| opened).map(str::to_string))
}

/// Writes `bytes` to `path` through a temporary file beside it (`.NAME.*.lopper-tmp`),
/// renamed over `path`, so a reader never sees half a file and a crash leaves the old one;
/// `prepare` may set the temporary file's owner and mode before the rename. Where `path`
/// is (or links to) something other than a regular file, `/dev/null`, a pipe or a
/// terminal, `bytes` go straight into it, and nothing is renamed or prepared: a rename
/// would put a regular file in place of the device.
///
/// # Errors
/// Creating, writing, preparing or renaming the temporary file; opening or writing a
/// non-regular `path`.
pub fn write_atomic(path: &Path, bytes: &[u8], prepare: impl FnOnce(&std::fs::File) -> std::io::Result<()>) -> std::io::Result<()> {
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        return std::fs::OpenOptions::new().write(true).open(path)?.write_all(bytes);
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut tmp = tempfile::Builder::new().prefix(&format!(".{name}.")).suffix(".lopper-tmp").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    prepare(tmp.as_file())?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Writes `value` as pretty JSON and a line break to `path`, atomically (the `--stats`
/// file).
///
/// # Errors
/// Serializing (not expected) or writing.
pub fn write_json(path: &Path, value: &impl serde::Serialize) -> std::io::Result<()> {
    let json = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
    write_atomic(path, (json + "\n").as_bytes(), |_| Ok(()))
}

/// The one directory a lopper process keeps its temporary files in (`TMPDIR/lopper-run-*`):
/// test runs, transformation and generator runs all go under it, since `TMPDIR` points at
/// it for the rest of the process. It holds a `.owner` file locked while the process
/// lives, so a later run can tell the directories of runs that were killed (`kill -9`)
/// from those of runs still going, and removes them. Removed when dropped.
pub struct TempHome {
    dir: Option<tempfile::TempDir>,
    _owner: std::fs::File,
}

/// Prefix of the per-process directories.
const HOME_PREFIX: &str = "lopper-run-";

impl TempHome {
    /// Sweeps the directories of killed runs out of the system temp dir (one line on
    /// stderr unless `quiet`), then makes this process's directory and points `TMPDIR` at
    /// it. `None` where it cannot be made (the temp dir itself is unusable): lopper then
    /// works in the temp dir as it is, and its first run there says why it cannot.
    pub fn enter(quiet: bool) -> Option<TempHome> {
        let tmp = std::env::temp_dir();
        let swept = sweep(&tmp);
        if swept > 0 && !quiet {
            eprintln!(
                "lopper: removed {swept} temporary director{} left in {} by lopper runs that were killed",
                if swept == 1 { "y" } else { "ies" },
                tmp.display()
            );
        }
        let dir = tempfile::Builder::new().prefix(HOME_PREFIX).tempdir_in(&tmp).ok()?;
        // Locked before it is named `.owner`: a run sweeping at the same moment never finds
        // it unlocked.
        let owner = std::fs::File::create(dir.path().join(".owner.new")).ok()?;
        flock(&owner, FlockOperation::NonBlockingLockExclusive).ok()?;
        std::fs::rename(dir.path().join(".owner.new"), dir.path().join(".owner")).ok()?;
        // Set before any other thread runs: every later temporary file goes here.
        std::env::set_var("TMPDIR", dir.path());
        Some(TempHome { dir: Some(dir), _owner: owner })
    }

    /// Keeps the directory after the process (`--keep-temps`).
    pub fn keep(&mut self) {
        if let Some(d) = self.dir.take() {
            let _ = d.keep();
        }
    }
}

/// Removes the per-process directories in `tmp` whose owner is gone (their `.owner` can be
/// locked); the number removed.
fn sweep(tmp: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(tmp) else { return 0 };
    let mut removed = 0;
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with(HOME_PREFIX) {
            continue;
        }
        let Ok(owner) = std::fs::File::open(e.path().join(".owner")) else { continue };
        if flock(&owner, FlockOperation::NonBlockingLockExclusive).is_ok() && std::fs::remove_dir_all(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The machine's memory in MiB (`MemTotal` of `/proc/meminfo`), the default limit of each
/// test's address space; `None` where it cannot be read.
pub fn machine_memory_mib() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: u64 = info.lines().find_map(|l| l.strip_prefix("MemTotal:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some(kib / 1024)
}

/// After Ctrl-C, the best (`best`, in `frontend`'s language) laid out readably, if one more
/// test says it is still interesting: the layout step the interrupt skipped. The flag is
/// cleared for that test, so a second Ctrl-C stops it and the best stays as tested.
/// `None`: nothing to lay out (already laid out, a language whose indentation is syntax, a
/// text that no longer parses) or the test said no or was stopped.
pub fn lay_out_interrupted(frontend: &lopper_parse::Frontend, best: &str, oracle: &mut dyn Oracle, interrupt: &AtomicBool) -> Option<String> {
    let parsed = frontend.parse(best).ok()?;
    let laid_out = lopper_reduce::pipeline::laid_out(frontend, best, &parsed.tree).filter(|t| t != best)?;
    interrupt.store(false, Ordering::SeqCst);
    matches!(oracle.test(&laid_out), Ok(lopper_reduce::Verdict::Interesting)).then_some(laid_out)
}
