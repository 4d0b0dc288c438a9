//! Whole files deleted with the lines that name them (a project's reduction, issue 44): every
//! file of a project bundle ([`lopper_bundle`]) in one candidate, then a coarse ddmin over
//! the files (C-Vise's binary-search passes). Deleting a file also deletes, in the files
//! that stay, each short top-level element that names it — Rust's `mod x;` and `use
//! crate::x::…;`, C's `#include "x.h"`, JavaScript's `import … from './x.js'` and
//! `require('./x')`, Java's `import p.X;`, Python's `import x` and `from x import y` — so that the build does not fail on the name of
//! a file that is gone. Recognized by their first word and a token that is the file's
//! name, its stem, or a path ending in either (a folder's name for `mod.rs` and
//! `index.js`); a wrong guess costs a failed test.

use crate::engine::{Engine, Round};
use crate::oracle::OracleError;
use crate::passes::{CoarseSearch, Group, Kind, PassInfo};
use lopper_tree::{Edit, NodeId, NodeKind, Tree};
use std::collections::HashSet;
use std::path::Path;

/// The search in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "files",
    plain: "deleting files",
    about: "for a project (a DIR or several FILEs): every file deleted with one test, with the lines that name it in the others (mod x;, #include \"x.h\", import ... from './x', import p.X;, from x import y), then a coarse ddmin over the files; once, after definitions (whose declarations free the files only bodies used); in Java and Rust projects also during Perses' rounds, each file with the files that name it, as one group",
    group: Group::First,
    grows: false,
    kind: Kind::Coarse(CoarseSearch::Files),
};

/// The coarse ddmin's chunk sizes: halves down to 1/64 of the files.
const LEVELS: u32 = 6;

/// An element naming a file has at most this many tokens.
const NAMING_MAX_TOKENS: u32 = 24;

/// First words of the elements that name a file.
const NAMING_WORDS: [&str; 11] = ["mod", "pub", "use", "#include", "import", "from", "export", "const", "let", "var", "require"];

impl Engine<'_> {
    /// The search over `tree` (the best's): the tree of the best after it, `None` if the
    /// best no longer parses. Nothing to do on a single file.
    ///
    /// # Errors
    /// The judge's.
    pub(crate) fn files(&mut self, tree: Tree) -> Result<Option<Tree>, OracleError> {
        let files = bundle_files(&tree);
        if files.len() < 2 {
            return Ok(Some(tree));
        }
        self.j.set_pass(INFO.name);
        let mut r = Round::new(tree);
        let places: Vec<Vec<(NodeId, Edit)>> = (0..files.len()).map(|i| deletion(&r.tree, &files, &[i])).collect();
        let weights: Vec<usize> = files.iter().map(|(f, _)| r.tree.node(*f).tokens as usize).collect();
        let slices: Vec<&[(NodeId, Edit)]> = places.iter().map(|p| p.as_slice()).collect();
        self.apply_places(&mut r, &slices, &weights, LEVELS, false)?;
        if !r.progress {
            return Ok(Some(r.tree));
        }
        Ok(self.parse_best())
    }
}

impl Engine<'_> {
    /// Orphan files and groups of files, at the start of each Perses round (the unused
    /// search's, at the granularity of files): in Java and Rust, where a file's stem names
    /// what it declares (a class, a module), each file's *group* — the file and every file
    /// that names it outside the lines that name files, transitively ([`groups`]) — can go
    /// without leaving a reference to what went; the groups are deleted with the lines
    /// that name their files, all in one candidate, then by a short coarse ddmin. A file
    /// no other names is a group of one (an orphan). Declarations made bodies and uses
    /// disappear as the reduction goes, so files the first search had to keep become
    /// orphans later; a cycle of files naming each other (a package's classes) goes only
    /// as a group. A group tried once (`tried`, by its paths) is not tried again: what the
    /// test needs in it stays needed.
    ///
    /// # Errors
    /// The judge's.
    pub(crate) fn file_groups(&mut self, r: &mut Round, tried: &mut HashSet<Vec<String>>) -> Result<(), OracleError> {
        if !matches!(self.frontend.name(), "java" | "rust") {
            return Ok(());
        }
        let files: Vec<(NodeId, String)> = bundle_files(&r.tree).into_iter().filter(|(f, _)| r.live[f.0 as usize]).collect();
        if files.len() < 2 {
            return Ok(());
        }
        let mut places = Vec::new();
        let mut weights = Vec::new();
        let mut keys = Vec::new();
        for group in groups(&r.tree, &r.live, &files) {
            // The whole project is never a candidate: the test needs something.
            let key: Vec<String> = group.iter().map(|&i| files[i].1.clone()).collect();
            if group.len() == files.len() || tried.contains(&key) {
                continue;
            }
            weights.push(group.iter().map(|&i| r.tree.node(files[i].0).tokens as usize).sum());
            places.push(deletion(&r.tree, &files, &group));
            keys.push(key);
        }
        if places.is_empty() {
            return Ok(());
        }
        self.j.set_pass(INFO.name);
        let slices: Vec<&[(NodeId, Edit)]> = places.iter().map(|p| p.as_slice()).collect();
        self.apply_places(r, &slices, &weights, ORPHAN_LEVELS, false)?;
        tried.extend(keys);
        Ok(())
    }
}

/// The edits deleting the files `group` (indices into `files`) with the elements of the
/// other files that name them ([`naming`]).
fn deletion(t: &Tree, files: &[(NodeId, String)], group: &[usize]) -> Vec<(NodeId, Edit)> {
    let mut edits = Vec::new();
    for &i in group {
        let (f, path) = &files[i];
        edits.push((*f, Edit::Delete));
        for (j, (g, _)) in files.iter().enumerate() {
            if !group.contains(&j) {
                edits.extend(naming(t, *g, path).into_iter().map(|e| (e, Edit::Delete)));
            }
        }
    }
    edits
}

/// Per live file of `files` (indices), its group: the file and every file that names it
/// outside the elements that may name a file (a word equal to its [`stem`]), transitively;
/// distinct groups only, each sorted, in the order of their first file. A crate's root
/// (`lib.rs`, `main.rs`) names no module and starts no group.
fn groups(t: &Tree, live: &[bool], files: &[(NodeId, String)]) -> Vec<Vec<usize>> {
    // Each file's live words outside the elements that may name a file.
    let words: Vec<HashSet<&str>> = files
        .iter()
        .map(|(f, _)| {
            let mut skip = HashSet::new();
            if let Some(&content) = t.node(*f).children.get(1) {
                for &e in t.node(content).children.iter().filter(|&&e| names_a_file(t, e)) {
                    skip.extend(t.subtree_token_ids(e).iter().copied());
                }
            }
            t.subtree_token_ids(*f).iter().filter(|&&id| live[id.0 as usize] && !skip.contains(&id)).map(|&id| t.token_text(id)).collect()
        })
        .collect();
    let stems: Vec<String> = files.iter().map(|(_, p)| stem(p)).collect();
    let roots = |s: &str| s.is_empty() || s == "lib" || s == "main";
    // namers[i]: the files that name file i.
    let namers: Vec<Vec<usize>> = stems
        .iter()
        .enumerate()
        .map(|(i, s)| if roots(s) { Vec::new() } else { (0..files.len()).filter(|&j| j != i && words[j].contains(s.as_str())).collect() })
        .collect();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for i in (0..files.len()).filter(|&i| !roots(&stems[i])) {
        let mut group = vec![i];
        let mut k = 0;
        while k < group.len() {
            for &j in &namers[group[k]] {
                if !group.contains(&j) {
                    group.push(j);
                }
            }
            k += 1;
        }
        group.sort_unstable();
        if !out.contains(&group) {
            out.push(group);
        }
    }
    out
}

/// The orphan files' coarse ddmin: halves down to 1/8.
const ORPHAN_LEVELS: u32 = 3;

/// A file's stem as names in code spell it: a folder's name for `mod.rs` and `index.js`.
fn stem(path: &str) -> String {
    let p = Path::new(path);
    let stem = p.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if stem == "mod" || stem == "index" {
        return p.parent().and_then(|d| d.file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or(stem);
    }
    stem
}

/// Whether top-level element `e` may name a file (its first word, its length).
fn names_a_file(t: &Tree, e: NodeId) -> bool {
    let n = t.node(e);
    n.tokens > 0 && n.tokens <= NAMING_MAX_TOKENS && t.subtree_token_ids(e).first().is_some_and(|&id| NAMING_WORDS.contains(&t.token_text(id)))
}

/// The file nodes of a bundle's tree ([`Tree::bundle`]) with their paths; empty for a tree
/// that is no bundle.
pub(crate) fn bundle_files(t: &Tree) -> Vec<(NodeId, String)> {
    let root = t.node(t.root());
    if root.kind != NodeKind::Star || root.symbol.is_some() {
        return Vec::new();
    }
    let mut files = Vec::new();
    for &f in root.children.iter() {
        let Some(&header) = t.node(f).children.first() else { return Vec::new() };
        let text = t.token_text(header);
        let Some(path) = text.strip_prefix(lopper_bundle::MARKER) else { return Vec::new() };
        files.push((f, path.trim_end().to_string()));
    }
    files
}

/// The top-level elements of file node `g` that name the file at `path`.
fn naming(t: &Tree, g: NodeId, path: &str) -> Vec<NodeId> {
    let Some(&content) = t.node(g).children.get(1) else { return Vec::new() };
    let p = Path::new(path);
    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = stem(path);
    if stem.is_empty() {
        return Vec::new();
    }
    let names = |tok: &str| {
        let s = tok.trim_matches(|c| matches!(c, '"' | '\'' | '`' | '<' | '>'));
        let s = s.strip_suffix(".js").or_else(|| s.strip_suffix(".mjs")).unwrap_or(s);
        s == stem || s == name || s.ends_with(&format!("/{stem}")) || s.ends_with(&format!("/{name}"))
    };
    let node = t.node(content);
    if !matches!(node.kind, NodeKind::Star | NodeKind::Plus) {
        return Vec::new();
    }
    node.children.iter().copied().filter(|&e| names_a_file(t, e) && t.subtree_token_ids(e)[1..].iter().any(|&id| names(t.token_text(id)))).collect()
}
