//! Whole files deleted with the lines that name them (a project's reduction, issue 44): every
//! file of a project bundle ([`lopper_bundle`]) in one candidate, then a coarse ddmin over
//! the files (C-Vise's binary-search passes). Deleting a file also deletes, in the files
//! that stay, each short top-level element that names it — Rust's `mod x;` and `use
//! crate::x::…;`, C's `#include "x.h"`, JavaScript's `import … from './x.js'` and
//! `require('./x')`, Java's `import p.X;` — so that the build does not fail on the name of
//! a file that is gone. Recognized by their first word and a token that is the file's
//! name, its stem, or a path ending in either (a folder's name for `mod.rs` and
//! `index.js`); a wrong guess costs a failed test.

use crate::engine::{Engine, Round};
use crate::oracle::OracleError;
use crate::passes::{CoarseSearch, Group, Kind, PassInfo};
use lopper_tree::{Edit, NodeId, NodeKind, Tree};
use std::path::Path;

/// The search in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "files",
    about: "for a project (a DIR or several FILEs): every file deleted with one test, with the lines that name it in the others (mod x;, #include \"x.h\", import ... from './x', import p.X;), then a coarse ddmin over the files; once, before the rest",
    group: Group::First,
    grows: false,
    kind: Kind::Coarse(CoarseSearch::Files),
};

/// The coarse ddmin's chunk sizes: halves down to 1/64 of the files.
const LEVELS: u32 = 6;

/// An element naming a file has at most this many tokens.
const NAMING_MAX_TOKENS: u32 = 24;

/// First words of the elements that name a file.
const NAMING_WORDS: [&str; 10] = ["mod", "pub", "use", "#include", "import", "export", "const", "let", "var", "require"];

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
        let places: Vec<Vec<(NodeId, Edit)>> = files
            .iter()
            .map(|(f, path)| {
                let mut edits = vec![(*f, Edit::Delete)];
                for (g, _) in files.iter().filter(|(g, _)| g != f) {
                    edits.extend(naming(&r.tree, *g, path).into_iter().map(|e| (e, Edit::Delete)));
                }
                edits
            })
            .collect();
        let weights: Vec<usize> = files.iter().map(|(f, _)| r.tree.node(*f).tokens as usize).collect();
        let slices: Vec<&[(NodeId, Edit)]> = places.iter().map(|p| p.as_slice()).collect();
        self.apply_places(&mut r, &slices, &weights, LEVELS)?;
        if !r.progress {
            return Ok(Some(r.tree));
        }
        Ok(self.parse_best())
    }
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
    let mut stem = p.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if stem == "mod" || stem == "index" {
        stem = p.parent().and_then(|d| d.file_name()).map(|n| n.to_string_lossy().into_owned()).unwrap_or(stem);
    }
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
    node.children
        .iter()
        .copied()
        .filter(|&e| {
            let n = t.node(e);
            if n.tokens == 0 || n.tokens > NAMING_MAX_TOKENS {
                return false;
            }
            let toks: Vec<&str> = t.subtree_token_ids(e).iter().map(|&id| t.token_text(id)).collect();
            NAMING_WORDS.contains(&toks[0]) && toks[1..].iter().any(|tok| names(tok))
        })
        .collect()
}
