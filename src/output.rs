//! Where the result goes, and the rules that keep the user's files safe.
//!
//! - With `-o OUT`, OUT must not be the input or the test (same file after resolving
//!   links, hard links included); its directory must exist and be writable. Both are
//!   checked before any test runs.
//! - In place, the original is kept as `FILE.orig` before the first smaller program is
//!   written. An existing `FILE.orig` is trusted only when FILE equals it or is a program
//!   lopper itself wrote while reducing it (a [`ReductionLog`] remembers the BLAKE3 hash of
//!   every program written in place, per original), or likewise the newest `FILE.orig.N`
//!   an earlier run left; otherwise this run's original goes to the next free `FILE.orig.N`.
//! - Every write is a complete file renamed over the target, with the target's mode (and,
//!   where permitted, owner); a new `-o` file gets the input's mode, as `cp` does. A
//!   target that is no regular file (`-o /dev/null`, a pipe) is written into, never
//!   replaced.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Why an output plan was refused; each names the path concerned.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// `-o` names the input itself.
    #[error("-o {0} is the input file itself (after resolving links); lopper never overwrites its input with -o. Leave out -o to reduce in place (the original is kept as {1}.orig), or give another output path")]
    SameAsInput(PathBuf, PathBuf),
    /// `-o` names the interestingness test.
    #[error("-o {0} is the interestingness test itself; give another output path")]
    SameAsTest(PathBuf),
    /// The output is a directory.
    #[error("-o {0} is a directory; give a file path")]
    IsDirectory(PathBuf),
    /// The directory an output would go to is missing or not writable.
    #[error("cannot write into {dir} (for {path}): {source}")]
    Directory {
        /// The file to be written.
        path: PathBuf,
        /// Its directory.
        dir: PathBuf,
        /// Why the probe file could not be created.
        source: std::io::Error,
    },
    /// Reading the input's metadata or an existing backup failed.
    #[error("cannot read {0}: {1}")]
    Read(PathBuf, std::io::Error),
    /// Writing the result or the backup failed.
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, std::io::Error),
    /// `--stats` or `--events` names the input, the test or the `-o` output.
    #[error("{option} {path} is {what}; give another path")]
    Clash {
        /// The option (`--stats`, `--events`).
        option: &'static str,
        /// Its path.
        path: PathBuf,
        /// What it would overwrite ("the input file", …).
        what: &'static str,
    },
    /// Another lopper reduces the same file in place.
    #[error("{0} is being reduced in place by another lopper ({1}); wait for it to finish, or give -o OUT")]
    Busy(PathBuf, String),
}

/// The lock an in-place reduction holds on its file (`.NAME.lopper-lock` beside it, locked
/// with `flock`, so a killed run's lock goes with its process): a second run on the same
/// file is refused while the first is alive. The lock file holds the owner's pid, for the
/// message, and is removed at the end.
#[derive(Debug)]
struct InPlaceLock {
    path: PathBuf,
    _file: fs::File,
}

impl InPlaceLock {
    fn acquire(input: &Path) -> Result<InPlaceLock, OutputError> {
        use rustix::fs::{flock, FlockOperation};
        use std::io::{Read, Seek, Write};
        let name = input.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let path = parent_dir(input).join(format!(".{name}.lopper-lock"));
        let io = |e: std::io::Error| OutputError::Write(path.clone(), e);
        let mut file = fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
        if flock(&file, FlockOperation::NonBlockingLockExclusive).is_err() {
            let mut owner = String::new();
            let _ = file.read_to_string(&mut owner);
            let owner = owner.trim().parse::<u32>().map_or("another process".to_string(), |pid| format!("pid {pid}"));
            return Err(OutputError::Busy(input.to_path_buf(), owner));
        }
        file.set_len(0).and_then(|()| file.rewind()).and_then(|()| write!(file, "{}", std::process::id())).map_err(io)?;
        Ok(InPlaceLock { path, _file: file })
    }
}

impl Drop for InPlaceLock {
    fn drop(&mut self) {
        // Removed while still locked: a run waiting on it would find a fresh file.
        let _ = fs::remove_file(&self.path);
    }
}

/// Where the best program so far goes, with the backup of the original when in place.
#[derive(Debug)]
pub struct Output {
    /// The file every new best replaces.
    pub path: PathBuf,
    /// In place: where the original is (or will be) kept.
    pub backup: Option<PathBuf>,
    /// In place: the backup still has to be written before the first best.
    backup_pending: bool,
    /// In place: this run wrote the backup (not one kept from an earlier run).
    made_backup: bool,
    input: PathBuf,
    mode: u32,
    owner: Option<(u32, u32)>,
    /// A line for the user about a stale `.orig` that was set aside, if any.
    pub notice: Option<String>,
    /// The bytes each text is written as.
    encoding: lopper_reduce::Encoding,
    /// In place: where the programs written are remembered.
    log: Option<ReductionLog>,
    /// In place: the locks that keep a second run off the same file (a project's folder,
    /// or each of its files).
    _lock: Vec<InPlaceLock>,
    /// A project's tree of files, written instead of `path` (`path` is its folder).
    project: Option<crate::project::ProjectOutput>,
    /// In place, an existing backup kept as the original: this run goes on from a
    /// reduction of it (after Ctrl-C, say).
    pub resumed: bool,
}

/// The directory a path's file lives in (`.` for a bare name).
fn parent_dir(path: &Path) -> &Path {
    path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."))
}

/// Checks that a file can be created beside `path`, by creating and removing a probe.
///
/// # Errors
/// [`OutputError::Directory`] naming `path` and its directory.
pub fn check_writable_dir(path: &Path) -> Result<(), OutputError> {
    let dir = parent_dir(path);
    let fail = |source| OutputError::Directory { path: path.to_path_buf(), dir: dir.to_path_buf(), source };
    if !dir.is_dir() {
        return Err(fail(std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory")));
    }
    // The probe's own name in tempfile's message would only confuse: keep the error kind.
    tempfile::Builder::new().prefix(".lopper-probe").tempfile_in(dir).map(drop).map_err(|e| fail(e.kind().into()))
}

/// Checks that `option`'s `path` (`--stats`, `--events`) is none of the files the run reads
/// or writes (`input`, `test`, `out`: the same path, or the same file after links) and that
/// its directory is writable.
///
/// # Errors
/// [`OutputError::Clash`] or [`OutputError::Directory`]; nothing is written.
pub fn check_side_file(option: &'static str, path: &Path, input: &Path, test: Option<&Path>, out: Option<&Path>) -> Result<(), OutputError> {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let meta = fs::metadata(path).ok();
    let files = [(Some(input), "the input file"), (test, "the interestingness test"), (out, "the -o output")];
    for (file, what) in files {
        let Some(file) = file else { continue };
        let same = absolute(file) == absolute(path) || meta.as_ref().zip(fs::metadata(file).ok()).is_some_and(|(a, b)| same_file(a, &b));
        if same {
            return Err(OutputError::Clash { option, path: path.to_path_buf(), what });
        }
    }
    check_writable_dir(path)
}

fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    a.dev() == b.dev() && a.ino() == b.ino()
}

impl Output {
    /// Plans where results go for `input`, whose bytes are `now`: `-o out`, or in place. `test` is the test
    /// script, if any. `log_dir` holds the [`ReductionLog`]s that tell an earlier reduction
    /// of a backup from a stale backup.
    ///
    /// # Errors
    /// Any [`OutputError`]; nothing has been written then.
    pub fn plan(input: &Path, now: &[u8], out: Option<&Path>, test: Option<&Path>, log_dir: &Path) -> Result<Output, OutputError> {
        let meta = fs::metadata(input).map_err(|e| OutputError::Read(input.to_path_buf(), e))?;
        let mut plan = Output {
            path: input.to_path_buf(),
            backup: None,
            backup_pending: false,
            made_backup: false,
            input: input.to_path_buf(),
            mode: meta.permissions().mode() & 0o7777,
            owner: Some((meta.uid(), meta.gid())),
            notice: None,
            log: None,
            encoding: lopper_reduce::Encoding::Utf8,
            _lock: Vec::new(),
            project: None,
            resumed: false,
        };
        if let Some(out) = out {
            if let Ok(o) = fs::metadata(out) {
                if same_file(&o, &meta) {
                    return Err(OutputError::SameAsInput(out.to_path_buf(), input.to_path_buf()));
                }
                if test.and_then(|t| fs::metadata(t).ok()).is_some_and(|t| same_file(&o, &t)) {
                    return Err(OutputError::SameAsTest(out.to_path_buf()));
                }
                if o.is_dir() {
                    return Err(OutputError::IsDirectory(out.to_path_buf()));
                }
                plan.mode = o.permissions().mode() & 0o7777;
                plan.owner = Some((o.uid(), o.gid()));
            } else {
                // A new file: the input's mode, our own owner.
                plan.owner = None;
            }
            check_writable_dir(out)?;
            plan.path = out.to_path_buf();
            return Ok(plan);
        }
        check_writable_dir(input)?;
        plan._lock = vec![InPlaceLock::acquire(input)?];
        let orig = PathBuf::from(format!("{}.orig", input.display()));
        // FILE.orig, then FILE.orig.1, .2, ... as earlier runs that met a stale one left them.
        let existing: Vec<PathBuf> =
            std::iter::once(orig.clone()).chain((1..).map(|n| PathBuf::from(format!("{}.{n}", orig.display())))).take_while(|p| p.exists()).collect();
        // The newest backup that FILE is, or that lopper wrote FILE from, is the original.
        for old_path in existing.iter().rev() {
            let old = fs::read(old_path).map_err(|e| OutputError::Read(old_path.clone(), e))?;
            if now == old || ReductionLog::new(log_dir, &old).contains(now) {
                plan.notice = Some(format!("keeping the existing {} as the original ({} is it or a reduction of it)", old_path.display(), input.display()));
                plan.log = Some(ReductionLog::new(log_dir, &old));
                plan.backup = Some(old_path.clone());
                plan.resumed = now != old;
                return Ok(plan);
            }
        }
        let fresh = if existing.is_empty() { orig.clone() } else { PathBuf::from(format!("{}.{}", orig.display(), existing.len())) };
        if !existing.is_empty() {
            plan.notice = Some(format!(
                "{} holds another program ({} is not a reduction of it); it is left alone, and this run's original goes to {} before the first smaller program is written",
                orig.display(),
                input.display(),
                fresh.display()
            ));
        }
        plan.log = Some(ReductionLog::new(log_dir, now));
        plan.backup = Some(fresh);
        plan.backup_pending = true;
        Ok(plan)
    }

    /// The output of a project ([`crate::project::ProjectOutput::plan`]'s); in place, its
    /// inputs (the folder, or every file named) locked as a single file's run locks it.
    ///
    /// # Errors
    /// [`OutputError::Busy`] when another lopper reduces one of them in place.
    pub fn project(project: crate::project::ProjectOutput, backup: Option<PathBuf>, notice: Option<String>) -> Result<Output, OutputError> {
        let lock = if backup.is_some() { project.inputs().iter().map(|p| InPlaceLock::acquire(p)).collect::<Result<_, _>>()? } else { Vec::new() };
        let resumed = project.backup_written();
        Ok(Output {
            path: project.root().to_path_buf(),
            backup,
            backup_pending: false,
            made_backup: false,
            input: project.root().to_path_buf(),
            mode: 0o644,
            owner: None,
            notice,
            log: None,
            encoding: lopper_reduce::Encoding::Utf8,
            _lock: lock,
            project: Some(project),
            resumed,
        })
    }

    /// Whether results replace the input (no `-o`).
    pub fn in_place(&self) -> bool {
        self.backup.is_some()
    }

    /// Writes texts in `encoding` (the input's).
    pub fn with_encoding(mut self, encoding: lopper_reduce::Encoding) -> Output {
        self.encoding = encoding;
        self
    }

    /// Writes a new best: first, in place, the backup of the original (a copy, keeping
    /// its mode), then `text` (in the input's encoding) over the target by rename.
    ///
    /// # Errors
    /// [`OutputError::Write`] naming the file that could not be written.
    pub fn write(&mut self, text: &str) -> Result<(), OutputError> {
        if let Some(p) = &mut self.project {
            return p.write(text).map_err(|e| OutputError::Write(self.path.clone(), e));
        }
        if self.backup_pending {
            let backup = self.backup.as_ref().expect("pending implies a backup");
            // Whole or not at all: on a full disk no empty or partial backup is left.
            let keep = |backup: &Path| -> std::io::Result<()> {
                let (bytes, mode) = (fs::read(&self.input)?, fs::metadata(&self.input)?.permissions());
                crate::runtime::write_atomic(backup, &bytes, |tmp| tmp.set_permissions(mode))
            };
            keep(backup).map_err(|e| OutputError::Write(backup.clone(), e))?;
            self.backup_pending = false;
            self.made_backup = true;
        }
        if let Some(log) = &self.log {
            // Before the write: a crash in between leaves a logged hash, never an unlogged file.
            if let Err(e) = log.record(&self.encoding.encode(text)) {
                tracing::warn!("cannot record the reduction in {}: {e}; a later run will keep a second backup", log.path.display());
            }
        }
        self.write_atomically(text).map_err(|e| OutputError::Write(self.path.clone(), e))
    }

    /// Undoes the results after one that cannot stand, and says what the user finds: in
    /// place, the original `text` goes back and the backup this run made goes too (FILE is
    /// the original again, and an identical FILE.orig beside it would only be taken for a
    /// reduction's backup); a single file's `-o` is removed, so that no file there passes
    /// for a result; a project's `-o` gets the original back.
    ///
    /// # Errors
    /// As [`Output::write`], and a `-o` file that cannot be removed.
    pub fn restore(&mut self, text: &str) -> Result<String, OutputError> {
        if self.project.is_none() && !self.in_place() {
            return match fs::remove_file(&self.path) {
                Ok(()) => Ok(format!("no result: {} is removed", self.path.display())),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok("no result was written".to_string()),
                Err(e) => Err(OutputError::Write(self.path.clone(), e)),
            };
        }
        self.write(text)?;
        if self.project.is_none() && self.made_backup {
            if let Some(b) = &self.backup {
                let _ = fs::remove_file(b);
            }
        }
        Ok("the original is back in place".to_string())
    }

    /// Whether [`Output::write`] has made the backup (or there was one to keep).
    pub fn backup_written(&self) -> bool {
        if let Some(p) = &self.project {
            return p.backup_written();
        }
        self.in_place() && !self.backup_pending
    }

    fn write_atomically(&self, text: &str) -> std::io::Result<()> {
        crate::runtime::write_atomic(&self.path, &self.encoding.encode(text), |tmp| {
            if let Some((uid, gid)) = self.owner {
                // Only root may give a file away; keeping our own ownership is the fallback.
                let _ = std::os::unix::fs::fchown(tmp, Some(uid), Some(gid));
            }
            // After the owner: chown clears set-id bits.
            tmp.set_permissions(fs::Permissions::from_mode(self.mode))
        })
    }
}

/// The programs lopper wrote in place while reducing one original: a file named by the
/// original's BLAKE3 hash, one hex hash per written program. It lets a later run tell "FILE
/// is an earlier reduction of FILE.orig" (resume) from "FILE.orig is stale" exactly.
#[derive(Debug)]
pub struct ReductionLog {
    path: PathBuf,
}

impl ReductionLog {
    /// `$LOPPER_CACHE/reductions`, else the user cache's `lopper/reductions`.
    pub fn default_dir() -> PathBuf {
        lopper_parse::cache_home().join("reductions")
    }

    /// The log of the original with these bytes, in `dir`.
    pub fn new(dir: &Path, original: &[u8]) -> ReductionLog {
        ReductionLog { path: dir.join(blake3::hash(original).to_hex().as_str()) }
    }

    /// Whether a program with these bytes was written from this original.
    pub fn contains(&self, program: &[u8]) -> bool {
        let hash = blake3::hash(program).to_hex();
        fs::read_to_string(&self.path).is_ok_and(|t| t.lines().any(|l| l == hash.as_str()))
    }

    /// Remembers a program written from this original.
    ///
    /// # Errors
    /// Creating the directory or appending to the log.
    pub fn record(&self, program: &[u8]) -> std::io::Result<()> {
        fs::create_dir_all(parent_dir(&self.path))?;
        let mut f = fs::OpenOptions::new().create(true).append(true).open(&self.path)?;
        writeln!(f, "{}", blake3::hash(program).to_hex())
    }
}
