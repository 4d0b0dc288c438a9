//! lopper-parse: front ends that build a PNF tree from program text.
//!
//! The built-in languages (C, C++, Java, JavaScript, Rust, Python, Go) parse with tree-sitter. A tree-sitter CST
//! hides `_rules`, inlined rules and quantifier groups, so each named node's children are
//! matched against that node's normalized (PNF) rule — hidden rules expanded, named children
//! matched by kind, anonymous ones by text — to rebuild the Kleene star / plus / optional
//! groups the reducer needs (so deleting an argument also deletes its comma). Nodes whose
//! children do not match (ERROR nodes, grammar gaps) become opaque nodes; they are counted
//! in [`MatchStats`].

mod bundle;
mod checker;
mod dynamic;
mod edits;
mod language;
mod matcher;
mod pest_front;
pub mod registry;

use checker::Checker;
pub use checker::{Damage, SyntaxChecker, TextKey};
pub use dynamic::{find_tree_sitter_src, load_tree_sitter_folder, tree_sitter_grammar_name, FolderError};
pub use language::Language;
use lopper_grammar::{load_pest, load_tree_sitter_json, normalize, perses_normalize, GrammarError, PnfGrammar};
use lopper_tree::Tree;
use pest_front::PestBackend;
pub use registry::{cache_dir, cache_home, Entry, LoadError, Registry, RegistryError};
use std::sync::Arc;

/// Why a program could not be parsed.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The grammar failed to load or normalize (for a built-in language: a build defect).
    #[error(transparent)]
    Grammar(#[from] GrammarError),
    /// tree-sitter refused the language (ABI version mismatch).
    #[error("tree-sitter: {0}")]
    Language(#[from] tree_sitter::LanguageError),
    /// tree-sitter returned no tree (it does so only when cancelled or out of time).
    #[error("tree-sitter: the parser returned no tree")]
    NoTree,
    /// A grammar-file language rejected the program.
    #[error("the program does not parse with its grammar:\n{message}")]
    Syntax {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// pest's message, showing the line with a caret and what was expected.
        message: String,
    },
    /// A tree-sitter grammar folder could not be compiled or loaded.
    #[error("cannot load tree-sitter grammar {path}: {source}")]
    Load {
        /// The folder.
        path: std::path::PathBuf,
        /// Why.
        source: FolderError,
    },
}

/// How well the CST matched the PNF grammar.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MatchStats {
    /// Named CST nodes with children (the ones that need matching).
    pub inner_nodes: usize,
    /// Of those, how many matched their rule.
    pub matched: usize,
    /// Of those, how many stayed opaque.
    pub opaque: usize,
    /// ERROR and MISSING nodes tree-sitter reported.
    pub syntax_errors: usize,
}

impl MatchStats {
    /// Share of inner nodes that matched their rule, in `[0, 1]` (1 for a tree without any).
    pub fn matched_share(&self) -> f64 {
        if self.inner_nodes == 0 {
            1.0
        } else {
            self.matched as f64 / self.inner_nodes as f64
        }
    }
}

/// A parsed program: the PNF tree and how it was matched.
#[derive(Debug)]
pub struct Parsed {
    /// The PNF tree over the program text.
    pub tree: Tree,
    /// Matching statistics.
    pub stats: MatchStats,
}

/// A loaded language: its PNF grammar and the parser that builds trees for it.
#[derive(Clone)]
pub struct Frontend {
    name: String,
    grammar: PnfGrammar,
    backend: Backend,
    /// For a project: the languages of its other files, by extension (see
    /// [`Frontend::with_others`]).
    others: Arc<Vec<(String, Frontend)>>,
}

#[derive(Clone)]
enum Backend {
    /// A tree-sitter parser whose CST is matched against the PNF grammar; with each
    /// grammar symbol's tree-sitter kind id (0 for none), which the matcher compares
    /// instead of kind names.
    TreeSitter(tree_sitter::Language, Vec<u16>),
    /// A grammar file run by pest_vm: the parse tree is the PNF tree.
    Pest(Arc<PestBackend>),
}

impl Frontend {
    /// Loads a built-in language: normalizes its vendored `grammar.json` (a few ms).
    ///
    /// # Errors
    /// [`ParseError::Grammar`] if the vendored grammar does not normalize.
    pub fn new(lang: Language) -> Result<Frontend, ParseError> {
        Frontend::from_tree_sitter(lang.name(), lang.grammar_json(), lang.tree_sitter())
    }

    /// A tree-sitter language given at run time: its `grammar.json` text and its compiled
    /// parser (see [`load_tree_sitter_folder`]).
    ///
    /// # Errors
    /// [`ParseError::Grammar`] if `grammar.json` does not load or normalize.
    pub fn from_tree_sitter(name: &str, grammar_json: &str, ts: tree_sitter::Language) -> Result<Frontend, ParseError> {
        let g = load_tree_sitter_json(grammar_json)?;
        let grammar = normalize(&g)?;
        let kinds = grammar.symbols.iter().map(|s| s.cst.as_ref().map_or(0, |k| ts.id_for_node_kind(&k.kind, k.named))).collect();
        Ok(Frontend { name: name.to_string(), grammar, backend: Backend::TreeSitter(ts, kinds), others: Arc::default() })
    }

    /// A grammar-file language from the text of a pest grammar: loaded, normalized with the
    /// full Perses Algorithm 1 ([`perses_normalize`]) and run by pest_vm.
    ///
    /// # Errors
    /// [`ParseError::Grammar`] with a clear message for a grammar that does not load or
    /// normalize (syntax with line and column, undefined rules, rules that never end, …).
    pub fn from_pest(name: &str, text: &str) -> Result<Frontend, ParseError> {
        let file = load_pest(name, text)?;
        let grammar = perses_normalize(&normalize(&file.ir)?)?;
        let backend = PestBackend::new(&file, &grammar)?;
        Ok(Frontend { name: name.to_string(), grammar, backend: Backend::Pest(Arc::new(backend)), others: Arc::default() })
    }

    /// Checks that `text` is a program of this language where that is required: a
    /// grammar-file language must parse it, a tree-sitter language takes any text (syntax
    /// errors become opaque nodes).
    ///
    /// # Errors
    /// [`ParseError::Syntax`] with pest's message when a grammar file rejects `text`.
    pub fn check(&self, text: &str) -> Result<(), ParseError> {
        if lopper_bundle::is_bundle(text) {
            return lopper_bundle::split(text).iter().try_for_each(|f| self.for_file(f.path).map_or(Ok(()), |l| l.check(f.text)));
        }
        match &self.backend {
            Backend::TreeSitter(..) => Ok(()),
            Backend::Pest(p) => p.check(text),
        }
    }

    /// The language's name (`c`, `json`, …).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether indentation is syntax in this language (Python's blocks, also when its
    /// grammar folder is dropped in under the name `python`): whitespace between tokens is
    /// then not the layout step's to rewrite.
    pub fn indentation_is_syntax(&self) -> bool {
        Language::ALL.iter().any(|l| l.name() == self.name && l.indentation_is_syntax())
    }

    /// The PNF grammar.
    pub fn grammar(&self) -> &PnfGrammar {
        &self.grammar
    }

    fn cst(ts: &tree_sitter::Language, text: &str) -> Result<tree_sitter::Tree, ParseError> {
        let mut p = tree_sitter::Parser::new();
        p.set_language(ts)?;
        p.parse(text, None).ok_or(ParseError::NoTree)
    }

    /// Parses `text` into a PNF tree. For tree-sitter languages, syntax errors do not fail:
    /// they become opaque nodes, counted in [`MatchStats::syntax_errors`].
    ///
    /// # Errors
    /// [`ParseError::TreeSitter`] if tree-sitter itself fails; [`ParseError::Syntax`] if a
    /// grammar-file language rejects the text.
    pub fn parse(&self, text: &str) -> Result<Parsed, ParseError> {
        if lopper_bundle::is_bundle(text) {
            return self.parse_bundle(text, false);
        }
        let (tree, stats) = match &self.backend {
            Backend::TreeSitter(ts, kinds) => matcher::convert(&self.grammar, kinds, text, Self::cst(ts, text)?.root_node()),
            Backend::Pest(p) => p.parse(&self.grammar, text, false)?,
        };
        Ok(Parsed { tree, stats })
    }

    /// [`Frontend::parse`] of `text`, from the CST `checker` (one of this frontend's) holds
    /// when `text` is its base: the same tree without parsing the text again, and without
    /// two CSTs of a large input in memory at once. The checker's CST serves when it is a
    /// fresh parse's or has no syntax error; an incremental re-parse of a text with errors
    /// may have recovered into another shape than a fresh parse's (the same text and
    /// error count, found by the property tests), so that text is parsed afresh.
    ///
    /// # Errors
    /// As [`Frontend::parse`].
    pub fn parse_with(&self, checker: &SyntaxChecker, text: &str) -> Result<Parsed, ParseError> {
        match (&self.backend, &checker.0) {
            _ if lopper_bundle::is_bundle(text) => self.parse(text),
            (Backend::TreeSitter(_, kinds), Checker::TreeSitter { base, tree, base_fresh, .. })
                if base == text && (*base_fresh || !tree.root_node().has_error()) =>
            {
                let (tree, stats) = matcher::convert(&self.grammar, kinds, text, tree.root_node());
                Ok(Parsed { tree, stats })
            }
            _ => self.parse(text),
        }
    }

    /// Parses `text` into the plain parse tree, without PNF knowledge: every inner node is
    /// an opaque node over its children (the tree HDD works on).
    ///
    /// # Errors
    /// As [`Frontend::parse`].
    pub fn parse_plain(&self, text: &str) -> Result<Tree, ParseError> {
        if lopper_bundle::is_bundle(text) {
            return Ok(self.parse_bundle(text, true)?.tree);
        }
        match &self.backend {
            Backend::TreeSitter(ts, kinds) => Ok(matcher::convert_plain(&self.grammar, kinds, text, Self::cst(ts, text)?.root_node())),
            Backend::Pest(p) => Ok(p.parse(&self.grammar, text, true)?.0),
        }
    }

    /// Counts syntax errors in `text`: ERROR and MISSING nodes of tree-sitter's parse, or
    /// 1 if a grammar-file language rejects it; 0 for a program the grammar accepts.
    ///
    /// # Errors
    /// [`ParseError::TreeSitter`] if tree-sitter itself fails.
    pub fn syntax_errors(&self, text: &str) -> Result<usize, ParseError> {
        Ok(self.damage(text)?.errors)
    }

    /// The syntax errors of `text` and the bytes its parse could not read ([`Damage`]); a
    /// project bundle's are the sum of its files'.
    ///
    /// # Errors
    /// [`ParseError::TreeSitter`] if tree-sitter itself fails.
    pub fn damage(&self, text: &str) -> Result<Damage, ParseError> {
        if lopper_bundle::is_bundle(text) {
            let files = lopper_bundle::split(text);
            return files.iter().filter_map(|f| Some(self.for_file(f.path)?.damage(f.text))).sum();
        }
        match &self.backend {
            Backend::TreeSitter(ts, _) => Ok(checker::damage(&Self::cst(ts, text)?)),
            Backend::Pest(p) => Ok(p.damage(text)),
        }
    }

    /// A checker that counts syntax errors of texts close to `base`; for tree-sitter by
    /// incremental re-parsing (only the span where a candidate differs from the base is
    /// re-lexed).
    ///
    /// # Errors
    /// [`ParseError::TreeSitter`] if tree-sitter itself fails.
    pub fn checker(&self, base: &str) -> Result<SyntaxChecker, ParseError> {
        if lopper_bundle::is_bundle(base) {
            return Ok(SyntaxChecker(Checker::Bundle(Box::new(self.clone()))));
        }
        match &self.backend {
            Backend::TreeSitter(ts, _) => {
                let mut parser = tree_sitter::Parser::new();
                parser.set_language(ts)?;
                let tree = parser.parse(base, None).ok_or(ParseError::NoTree)?;
                let base_damage = checker::damage(&tree);
                Ok(SyntaxChecker(Checker::TreeSitter { parser, base: base.to_string(), tree, screened: Vec::new(), base_damage, base_fresh: true }))
            }
            Backend::Pest(p) => Ok(SyntaxChecker(Checker::Pest(p.clone()))),
        }
    }
}

/// The length of the longest common prefix of `a` and `b`; compared a block at a time (a
/// `memcmp` each, not byte by byte): the grammar check's incremental re-parse and the
/// reducer's local-change keys compare every candidate of a large input with its base.
pub fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    i + a[i..n].iter().zip(&b[i..n]).take_while(|(x, y)| x == y).count()
}

/// The length of the longest common suffix of `a` and `b` (see [`common_prefix`]).
pub fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + BLOCK <= n && a[n - i - BLOCK..n - i] == b[n - i - BLOCK..n - i] {
        i += BLOCK;
    }
    i + a[..n - i].iter().rev().zip(b[..n - i].iter().rev()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests;
