//! Whole projects (`lopper TEST DIR`, `lopper TEST FILE FILE...`): the files read into one
//! bundle ([`lopper_bundle`]) that the one pipeline reduces, and each new best written
//! back as a tree of files.

use crate::{exit, Fail};
use lopper_bundle::{Kept, KeptFile};
use std::fs;
use std::path::{Path, PathBuf};

/// Where a project came from.
#[derive(Clone, Debug)]
pub enum Origin {
    /// A directory: the files under it, by their paths below it.
    Dir(PathBuf),
    /// Files given one by one, by their paths relative to the current directory.
    Files(Vec<PathBuf>),
}

/// A project read from disk: each text file's path (relative, `/`-separated, sorted for a
/// directory, as given for files) and text, and the files carried as they are.
#[derive(Debug)]
pub struct Project {
    /// Where it came from.
    pub origin: Origin,
    /// (path, text) per file reduced.
    pub files: Vec<(String, String)>,
    /// The files not reduced: binary files (NUL bytes, not UTF-8), symlinks, and those
    /// `--keep` names; in every run's tree and every output as they are (with
    /// `--delete-binaries`, the binary files and symlinks while the reduction keeps them:
    /// they are in `files` too, each as a path with no text).
    pub kept: Vec<Kept>,
}

impl Project {
    /// Reads the project at `inputs`: one directory, or several files; the paths at or
    /// under one of `keep` (relative to the directory, or as the files are given) are kept;
    /// binary files and symlinks are kept too, and with `delete_binaries` may be deleted.
    ///
    /// # Errors
    /// A [`Fail`] (exit code for a bad input) naming a path outside the current directory,
    /// a folder that cannot be read, or a project with no text file to reduce; a usage
    /// [`Fail`] for a `keep` path that names no file of the project.
    pub fn read(inputs: &[PathBuf], keep: &[PathBuf], delete_binaries: bool) -> Result<Project, Fail> {
        let bad = |m: String| Fail(exit::BAD_INPUT, m);
        let kept_by_user = |rel: &str| keep.iter().any(|k| at_or_under(rel, k));
        let mut project = Project { origin: Origin::Files(inputs.to_vec()), files: Vec::new(), kept: Vec::new() };
        let mut texts = 0;
        let mut add = |rel: String, path: &Path, link: bool| -> Result<(), Fail> {
            let file = if link {
                KeptFile::Symlink(fs::read_link(path).map_err(|e| bad(format!("cannot read {}: {e}", path.display())))?)
            } else {
                let bytes = fs::read(path).map_err(|e| bad(format!("cannot read {}: {e}", path.display())))?;
                match String::from_utf8(bytes) {
                    Ok(text) if !text.contains('\0') && !kept_by_user(&rel) => {
                        project.files.push((rel, text));
                        texts += 1;
                        return Ok(());
                    }
                    Ok(text) => KeptFile::Bytes(text.into_bytes()),
                    Err(e) => KeptFile::Bytes(e.into_bytes()),
                }
            };
            let deletable = delete_binaries && !kept_by_user(&rel);
            if deletable {
                project.files.push((rel.clone(), String::new()));
            }
            project.kept.push(Kept { path: rel, file, deletable });
            Ok(())
        };
        if let [dir] = inputs {
            let mut paths = Vec::new();
            walk(dir, Path::new(""), &mut paths).map_err(|e| bad(format!("cannot read {}: {e}", dir.display())))?;
            paths.sort();
            for (p, link) in paths {
                add(p.clone(), &dir.join(&p), link)?;
            }
            project.origin = Origin::Dir(dir.clone());
        } else {
            for f in inputs {
                let rel = f.to_string_lossy().trim_start_matches("./").to_string();
                if !lopper_bundle::safe_path(&rel) {
                    return Err(Fail(exit::USAGE, format!("{}: give several FILEs by paths below the current directory (or one DIR)", f.display())));
                }
                if !f.is_file() {
                    return Err(bad(format!("{} is not a file", f.display())));
                }
                add(rel, f, false)?;
            }
        }
        if texts == 0 {
            let what = if project.kept.is_empty() { "no file" } else { "no text file" };
            return Err(bad(format!("{} holds {what} to reduce", inputs[0].display())));
        }
        if let Some(k) = keep.iter().find(|k| !project.kept.iter().any(|f| at_or_under(&f.path, k))) {
            return Err(Fail(exit::USAGE, format!("--keep {}: no file of the project is there", k.display())));
        }
        Ok(project)
    }
}

/// What `kept` holds, for a notice at the start: `None` when nothing is kept.
pub fn kept_notice(kept: &[Kept]) -> Option<String> {
    let links = kept.iter().filter(|k| matches!(k.file, KeptFile::Symlink(_))).count();
    let names: Vec<&str> = kept.iter().take(3).map(|k| k.path.as_str()).collect();
    let more = if kept.len() > 3 { ", ..." } else { "" };
    let how = if kept.iter().any(|k| k.deletable) { "unreduced (binary files and symlinks deleted where the test does not need them)" } else { "unreduced" };
    (!kept.is_empty()).then(|| format!("keeping {} file(s) and {links} symlink(s) as they are, {how}: {}{more}", kept.len() - links, names.join(", ")))
}

impl Project {
    /// The bundle of every file.
    pub fn bundle(&self) -> String {
        lopper_bundle::join(self.files.iter().map(|(p, t)| (p.as_str(), t.as_str())))
    }

    /// The file that stands for the project's language: the extension most of its bytes
    /// have. Headers (`.h`) count only where no other file is there to tell C from C++.
    pub fn main_file(&self) -> PathBuf {
        let ext_of = |p: &str| Path::new(p).extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
        let only_headers = self.files.iter().all(|(p, _)| ext_of(p) == "h");
        let mut by_ext: Vec<(String, usize)> = Vec::new();
        for (p, t) in self.files.iter().filter(|(p, _)| only_headers || ext_of(p) != "h") {
            let ext = ext_of(p);
            match by_ext.iter_mut().find(|(e, _)| *e == ext) {
                Some((_, n)) => *n += t.len(),
                None => by_ext.push((ext, t.len())),
            }
        }
        let ext = by_ext.into_iter().max_by_key(|(e, n)| (*n, !e.is_empty())).map(|(e, _)| e).unwrap_or_default();
        let (p, _) = self.files.iter().find(|(p, _)| ext_of(p) == ext).expect("a file has it");
        PathBuf::from(p)
    }
}

/// Whether the project's path `path` is `at` or lies under it (`at` as the user gave it:
/// a leading `./` or a final `/` allowed).
fn at_or_under(path: &str, at: &Path) -> bool {
    let at = at.to_string_lossy();
    let at = at.trim_start_matches("./").trim_end_matches('/');
    path == at || path.strip_prefix(at).is_some_and(|r| r.starts_with('/'))
}

/// The regular files and symlinks under `root/rel`, by path below `root`, each with whether
/// it is a symlink (never followed); special files (FIFOs, sockets) are left out.
fn walk(root: &Path, rel: &Path, out: &mut Vec<(String, bool)>) -> std::io::Result<()> {
    for entry in fs::read_dir(root.join(rel))? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let path = rel.join(entry.file_name());
        if kind.is_dir() {
            walk(root, &path, out)?;
        } else if kind.is_file() || kind.is_symlink() {
            out.push((path.to_string_lossy().into_owned(), kind.is_symlink()));
        }
    }
    Ok(())
}

/// Where a project's bests go: in place (each file's original kept: `DIR.orig` as a copy of
/// the tree, or `FILE.orig` beside each file), or into `-o OUTDIR`.
#[derive(Debug)]
pub struct ProjectOutput {
    origin: Origin,
    /// The folder the files' paths are relative to.
    root: PathBuf,
    /// Every path the project had, so that a file the reduction deleted goes.
    paths: Vec<String>,
    /// In place: the backup still has to be made before the first write.
    backup_pending: bool,
    /// In place.
    in_place: bool,
    /// The files kept as they are, still to be written to `-o OUTDIR` (in place they stay).
    kept_pending: Vec<Kept>,
    /// The kept files the reduction may delete (`--delete-binaries`), written while the
    /// result holds them.
    deletable: Vec<Kept>,
}

impl ProjectOutput {
    /// Plans the output of `project`: `out` (a folder that does not exist or is empty), or
    /// in place. Returns it, where the original is kept (in place), and a notice.
    ///
    /// # Errors
    /// [`Fail`] for an `out` that is a file or a folder with files in it.
    pub fn plan(project: &Project, out: Option<&Path>) -> Result<(ProjectOutput, Option<PathBuf>, Option<String>), Fail> {
        let paths = project.files.iter().map(|(p, _)| p.clone()).collect();
        if let Some(out) = out {
            if out.exists() && !(out.is_dir() && fs::read_dir(out).map(|mut d| d.next().is_none()).unwrap_or(false)) {
                return Err(Fail(exit::OUTPUT, format!("-o {}: for a project, -o names a folder that does not exist yet or is empty", out.display())));
            }
            let o = ProjectOutput {
                origin: project.origin.clone(),
                root: out.to_path_buf(),
                paths,
                backup_pending: false,
                in_place: false,
                kept_pending: project.kept.iter().filter(|k| !k.deletable).cloned().collect(),
                deletable: project.kept.iter().filter(|k| k.deletable).cloned().collect(),
            };
            return Ok((o, None, None));
        }
        let (root, backup) = match &project.origin {
            Origin::Dir(d) => (d.clone(), PathBuf::from(format!("{}.orig", d.display()))),
            Origin::Files(_) => (PathBuf::from("."), PathBuf::from("FILE.orig")),
        };
        let (pending, notice) = match &project.origin {
            Origin::Dir(_) if backup.exists() => (false, Some(format!("keeping the existing {} as the original", backup.display()))),
            _ => (true, None),
        };
        Ok((
            ProjectOutput {
                origin: project.origin.clone(),
                root,
                paths,
                backup_pending: pending,
                in_place: true,
                kept_pending: Vec::new(),
                deletable: project.kept.iter().filter(|k| k.deletable).cloned().collect(),
            },
            Some(backup),
            notice,
        ))
    }

    /// Whether the originals are kept (in place) and made.
    pub fn backup_written(&self) -> bool {
        self.in_place && !self.backup_pending
    }

    /// Writes bundle `text` as the tree: each file by an atomic rename, and the files it
    /// no longer holds removed; in place, the originals kept first.
    ///
    /// # Errors
    /// The first write that fails.
    pub fn write(&mut self, text: &str) -> std::io::Result<()> {
        if self.backup_pending {
            match &self.origin {
                Origin::Dir(d) => copy_tree(d, Path::new(&format!("{}.orig", d.display())))?,
                Origin::Files(fs_) => {
                    for f in fs_ {
                        let orig = PathBuf::from(format!("{}.orig", f.display()));
                        if !orig.exists() {
                            crate::runtime::write_atomic(&orig, &fs::read(f)?, |_| Ok(()))?;
                        }
                    }
                }
            }
            self.backup_pending = false;
        }
        if !self.kept_pending.is_empty() {
            lopper_reduce::oracle::executor::write_kept(&self.root, &self.kept_pending).map_err(std::io::Error::other)?;
            self.kept_pending.clear();
        }
        let files = lopper_bundle::split(text);
        // A deletable kept file the result holds: as it is, once (in place it is there).
        let missing = lopper_bundle::present(&self.deletable, &files).filter(|k| fs::symlink_metadata(self.root.join(&k.path)).is_err());
        lopper_reduce::oracle::executor::write_kept(&self.root, missing).map_err(std::io::Error::other)?;
        for f in files.iter().filter(|f| lopper_bundle::safe_path(f.path) && !lopper_bundle::stands_in(&self.deletable, f.path)) {
            let path = self.root.join(f.path);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)?;
            }
            let mode = fs::metadata(&path).map(|m| m.permissions()).ok();
            crate::runtime::write_atomic(&path, f.text.as_bytes(), |tmp| mode.map_or(Ok(()), |m| tmp.set_permissions(m)))?;
        }
        for gone in self.paths.iter().filter(|p| !files.iter().any(|f| f.path == p.as_str())) {
            let path = self.root.join(gone);
            match (&self.origin, self.in_place) {
                // Files named one by one stay, empty: the user's command line names them.
                (Origin::Files(_), true) => crate::runtime::write_atomic(&path, b"", |_| Ok(()))?,
                _ if fs::symlink_metadata(&path).is_ok() => fs::remove_file(&path)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// The folder the result is in.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What an in-place run locks: the folder, or every file named.
    pub fn inputs(&self) -> Vec<PathBuf> {
        match &self.origin {
            Origin::Dir(d) => vec![d.clone()],
            Origin::Files(f) => f.clone(),
        }
    }
}

/// Copies the regular files, symlinks (as symlinks) and folders under `from` to `to` (made
/// here).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(fs::read_link(entry.path())?, to.join(entry.file_name()))?;
        } else if kind.is_file() {
            fs::copy(entry.path(), to.join(entry.file_name()))?;
        }
    }
    Ok(())
}
