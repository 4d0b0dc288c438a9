//! A project (a directory, or several files) as one text, so that one reduction carries
//! the whole tree: each file is a header line, [`MARKER`] then its path relative to the
//! project's root and a line feed, followed by the file's text. The reducer reduces the
//! text (deleting a file is deleting its header with its text), the parser parses each
//! file on its own, and the oracle writes the files back into a run directory before each
//! test (C-Reduce and C-Vise take several files the same way: one search over all).
//!
//! A text without a marker at its start is no bundle: single files never change form. A
//! header needs nothing before it on its line; text a layout put before a marker belongs
//! to the file before.

/// Starts every header; NUL cannot occur in the text files a bundle holds.
pub const MARKER: &str = "\0lopper-file ";

/// Whether `text` is a bundle.
pub fn is_bundle(text: &str) -> bool {
    text.starts_with(MARKER)
}

/// One file of a bundle: its path (relative, `/`-separated) and text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct File<'a> {
    /// The path under the project's root.
    pub path: &'a str,
    /// The file's text.
    pub text: &'a str,
    /// Where the text starts in the bundle, in bytes.
    pub offset: usize,
    /// The header's byte range in the bundle.
    pub header: std::ops::Range<usize>,
}

/// The files of bundle `text` in order; a header without its line feed ends the bundle.
/// Text before the first header (none in a bundle) is dropped.
pub fn split(text: &str) -> Vec<File<'_>> {
    let mut files = Vec::new();
    let mut at = match text.find(MARKER) {
        Some(i) => i,
        None => return files,
    };
    while at < text.len() {
        let path_start = at + MARKER.len();
        let Some(nl) = text[path_start..].find('\n') else { break };
        let body = path_start + nl + 1;
        let end = text[body..].find(MARKER).map_or(text.len(), |i| body + i);
        files.push(File { path: &text[path_start..path_start + nl], text: &text[body..end], offset: body, header: at..body });
        at = end;
    }
    files
}

/// The bundle of `files` (path, text) in the order given.
pub fn join<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = String::new();
    for (path, text) in files {
        out.push_str(MARKER);
        out.push_str(path);
        out.push('\n');
        out.push_str(text);
    }
    out
}

/// Whether `path` is one a bundle may hold: relative, no `..`, no empty or `.` part, no
/// NUL or line feed.
pub fn safe_path(path: &str) -> bool {
    !path.is_empty() && !path.starts_with('/') && !path.contains(['\0', '\n']) && path.split('/').all(|p| !p.is_empty() && p != "." && p != "..")
}

/// A file of a project that is not reduced but carried as it is into every run directory
/// and every output: a binary file, a symlink, or a file the user asked to keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kept {
    /// The path under the project's root ([`safe_path`]).
    pub path: String,
    /// What is there.
    pub file: KeptFile,
    /// Whether the reduction may delete it (whole: it is never changed). Such a file is
    /// in the bundle as its header with no text, and written where the bundle holds it
    /// ([`present`]); the others are in every tree.
    pub deletable: bool,
}

/// The files of `kept` a tree made from a bundle's `files` ([`split`]) holds: those not
/// deletable, and the deletable ones whose header is among `files`.
pub fn present<'a>(kept: &'a [Kept], files: &'a [File<'_>]) -> impl Iterator<Item = &'a Kept> {
    kept.iter().filter(move |k| !k.deletable || files.iter().any(|f| f.path == k.path))
}

/// Whether the bundle's file at `path` is a deletable kept file's header (its text is
/// empty; the file is written from `kept`).
pub fn stands_in(kept: &[Kept], path: &str) -> bool {
    kept.iter().any(|k| k.deletable && k.path == path)
}

/// What a [`Kept`] path holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeptFile {
    /// A regular file's bytes.
    Bytes(Vec<u8>),
    /// A symlink's target, as the link holds it.
    Symlink(std::path::PathBuf),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bundle_splits_into_the_files_it_joined() {
        let b = join([("src/a.rs", "mod b;\nfn main() {}\n"), ("src/b.rs", ""), ("c.h", "int x;")]);
        assert!(is_bundle(&b));
        let files = split(&b);
        let got: Vec<(&str, &str)> = files.iter().map(|f| (f.path, f.text)).collect();
        assert_eq!(got, [("src/a.rs", "mod b;\nfn main() {}\n"), ("src/b.rs", ""), ("c.h", "int x;")]);
        for f in &files {
            assert_eq!(&b[f.offset..f.offset + f.text.len()], f.text);
            assert!(b[f.header.clone()].starts_with(MARKER));
        }
    }

    #[test]
    fn a_plain_text_is_no_bundle_and_a_torn_header_ends_one() {
        assert!(!is_bundle("int main() {}"));
        assert!(split("int main() {}").is_empty());
        let b = format!("{MARKER}a.c\nint x;{MARKER}b.c");
        assert_eq!(split(&b).len(), 1);
    }

    #[test]
    fn a_deletable_kept_file_is_present_while_its_header_is() {
        let kept = |path: &str, deletable| Kept { path: path.into(), file: KeptFile::Bytes(vec![0, 1]), deletable };
        let all = [kept("always.bin", false), kept("blob.bin", true), kept("gone.bin", true)];
        let b = join([("a.c", "int x;"), ("blob.bin", "")]);
        let files = split(&b);
        let got: Vec<&str> = present(&all, &files).map(|k| k.path.as_str()).collect();
        assert_eq!(got, ["always.bin", "blob.bin"]);
        assert!(stands_in(&all, "blob.bin") && !stands_in(&all, "always.bin") && !stands_in(&all, "a.c"));
    }

    #[test]
    fn paths_outside_the_root_are_refused() {
        assert!(safe_path("src/a.rs"));
        for p in ["", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a\nb"] {
            assert!(!safe_path(p), "{p:?}");
        }
    }
}
