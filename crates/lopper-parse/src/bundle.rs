//! A project bundle ([`lopper_bundle`]) through the one front end: which language each
//! file is parsed in, and the bundle's tree ([`Tree::bundle`]) of the files' own trees.

use crate::{Frontend, Language, MatchStats, ParseError, Parsed};
use lopper_tree::Tree;
use std::sync::Arc;

/// A path's extension, without the dot (empty for none).
fn extension(path: &str) -> &str {
    std::path::Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("")
}

impl Frontend {
    /// Whether a project's file at `path` is in this language: a built-in language's
    /// extensions; every file for a language loaded from a grammar.
    pub fn owns(&self, path: &str) -> bool {
        let ext = extension(path);
        match Language::ALL.iter().find(|l| l.name() == self.name) {
            Some(l) => l.extensions().contains(&ext) || (l.name() == "cpp" && matches!(ext, "h" | "inl" | "ipp" | "tpp")),
            None => true,
        }
    }

    /// With the languages of a project's other files: `others` pairs an extension (without
    /// the dot) with the language its files are parsed in. Each such file gets its own
    /// language's tree (its lists, optionals and tokens; no symbols of this grammar, so
    /// the passes that know symbols leave it alone) and its own language's syntax check.
    pub fn with_others(mut self, others: Vec<(String, Frontend)>) -> Frontend {
        self.others = Arc::new(others);
        self
    }

    /// The language a project's file at `path` is parsed in: this one if it
    /// [owns](Frontend::owns) the file, else the one [`Frontend::with_others`] gave for its
    /// extension; `None` for a file reduced by lines.
    pub fn for_file(&self, path: &str) -> Option<&Frontend> {
        if self.owns(path) {
            return Some(self);
        }
        let ext = extension(path);
        self.others.iter().find(|(e, _)| e == ext).map(|(_, f)| f)
    }

    /// The tree of a project bundle ([`lopper_bundle`]): each file parsed on its own in its
    /// language ([`Frontend::for_file`]; plain trees when `plain`), the others reduced by
    /// lines (a star of line tokens), under [`Tree::bundle`]'s star of files; the files'
    /// statistics added up.
    pub(crate) fn parse_bundle(&self, text: &str, plain: bool) -> Result<Parsed, ParseError> {
        let mut stats = MatchStats::default();
        let mut files = Vec::new();
        for f in lopper_bundle::split(text) {
            let language = self.for_file(f.path);
            let tree = match language {
                None => None,
                Some(l) if plain => Some(l.parse_plain(f.text)?),
                Some(l) => {
                    let p = l.parse(f.text)?;
                    stats.inner_nodes += p.stats.inner_nodes;
                    stats.matched += p.stats.matched;
                    stats.opaque += p.stats.opaque;
                    stats.syntax_errors += p.stats.syntax_errors;
                    Some(p.tree)
                }
            };
            let foreign = language.is_some_and(|l| !std::ptr::eq(l, self));
            files.push(lopper_tree::BundleFile { header: f.header, offset: f.offset, len: f.text.len(), tree, foreign });
        }
        Ok(Parsed { tree: Tree::bundle(text.to_string(), files), stats })
    }
}
