//! The language registry: which languages lopper knows, and where each comes from.
//!
//! Search order (the first language of a name wins): `--grammar PATH`; each directory of
//! `LOPPER_GRAMMARS` (colon-separated); the user's grammars directory
//! (`~/.config/lopper/grammars` on Linux); then the languages built into the binary (C, C++, Java, JavaScript, Rust, Python, Go by tree-sitter, and the
//! shipped grammar files).
//! In a grammars directory, `NAME.pest` is a pest grammar file and a folder with
//! `src/grammar.json` and `src/parser.c` is a tree-sitter grammar, compiled once into
//! `~/.cache/lopper/tree-sitter` (or `$LOPPER_CACHE/tree-sitter`) as tree-sitter's loader crate does.

use crate::{find_tree_sitter_src, load_tree_sitter_folder, tree_sitter_grammar_name, Frontend, Language, ParseError};
use std::path::{Path, PathBuf};

/// The grammar files shipped with lopper, built into the binary so it works anywhere.
const SHIPPED_PEST: &[(&str, &str)] = &[
    ("json", include_str!("../grammars/json.pest")),
    ("smtlib", include_str!("../grammars/smtlib.pest")),
    ("lua", include_str!("../grammars/lua.pest")),
    (TEXT, include_str!("../grammars/text.pest")),
];

/// The languages built into the binary, in `lopper languages`' order, each with its
/// extensions (without dots): the tree-sitter ones, then the shipped grammar files. Reads
/// no grammars directory.
pub fn built_in() -> Vec<(String, Vec<String>)> {
    let compiled = Language::ALL.iter().map(|l| (l.name().to_string(), l.extensions().iter().map(|x| x.to_string()).collect()));
    compiled.chain(SHIPPED_PEST.iter().map(|(name, text)| (name.to_string(), lopper_grammar::pest_extensions(text)))).collect()
}

/// The shipped language of plain text by lines: a FILE whose extension no language claims
/// is reduced in it.
pub const TEXT: &str = "text";

/// Why no language could be chosen.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// A `--grammar` path that is neither a pest file nor a tree-sitter grammar folder.
    #[error("--grammar {0}: not a .pest file nor a folder with src/grammar.json and src/parser.c")]
    NotAGrammar(PathBuf),
    /// `--lang NAME` names no language found.
    #[error("unknown language `{name}` (known: {known})")]
    UnknownLanguage {
        /// The name asked for.
        name: String,
        /// The names known, comma-separated.
        known: String,
    },
    /// No language claims the file's extension.
    #[error("cannot tell the language of {path} from its extension; use --lang (known: {known}) or --grammar PATH")]
    UnknownExtension {
        /// The program file.
        path: PathBuf,
        /// The names known, comma-separated.
        known: String,
    },
}

/// Why a language found in the registry did not load.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A grammar file could not be read.
    #[error("cannot read grammar {path}: {source}")]
    Read {
        /// The grammar file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The grammar has errors, or a grammar folder did not compile; `what` names it
    /// (`grammar PATH`, `built-in grammar NAME`). Multi-line reasons start on a new line.
    #[error("{what}:{}{source}", if source.to_string().contains('\n') { "\n" } else { " " })]
    Grammar {
        /// Which grammar.
        what: String,
        /// Why it failed (pest's message with line and column, the compiler's output, …).
        source: ParseError,
    },
}

/// What a language is made of.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A tree-sitter language compiled into lopper.
    BuiltIn(Language),
    /// A pest grammar file shipped inside the binary.
    ShippedPest(&'static str),
    /// A pest grammar file on disk.
    Pest(PathBuf),
    /// A tree-sitter grammar folder on disk.
    TreeSitter(PathBuf),
}

/// One language lopper can load.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its name, as `--lang` takes it.
    pub name: String,
    /// File extensions it claims, without dots.
    pub extensions: Vec<String>,
    /// What it is made of.
    pub kind: Kind,
    /// Where it was found (`--grammar`, `LOPPER_GRAMMARS`, a directory, `built-in`).
    pub origin: String,
}

impl Entry {
    /// Where the grammar lives, for listings.
    pub fn location(&self) -> String {
        match &self.kind {
            Kind::BuiltIn(_) => "tree-sitter, compiled in".into(),
            Kind::ShippedPest(_) => "pest grammar, compiled in".into(),
            Kind::Pest(p) => format!("pest grammar {}", p.display()),
            Kind::TreeSitter(p) => format!("tree-sitter folder {}", p.display()),
        }
    }

    /// Loads the language (compiling a tree-sitter folder on first use).
    ///
    /// # Errors
    /// [`LoadError::Read`], or [`LoadError::Grammar`] with the grammar's own error: syntax
    /// errors with line and column, undefined rules, compiler output.
    pub fn load(&self) -> Result<Frontend, LoadError> {
        let grammar = |what: String| move |source| LoadError::Grammar { what, source };
        match &self.kind {
            Kind::BuiltIn(l) => Frontend::new(*l).map_err(grammar(format!("built-in language {}", self.name))),
            Kind::ShippedPest(text) => Frontend::from_pest(&self.name, text).map_err(grammar(format!("built-in grammar {}", self.name))),
            Kind::Pest(path) => {
                let text = std::fs::read_to_string(path).map_err(|source| LoadError::Read { path: path.clone(), source })?;
                Frontend::from_pest(&self.name, &text).map_err(grammar(format!("grammar {}", path.display())))
            }
            Kind::TreeSitter(dir) => load_tree_sitter_folder(dir, &cache_dir()).map_err(grammar(format!("tree-sitter grammar {}", dir.display()))),
        }
    }
}

/// lopper's cache directory: `$LOPPER_CACHE`, else the user's cache dir's `lopper`
/// (`$XDG_CACHE_HOME/lopper`, `~/.cache/lopper`). It holds `tree-sitter/` (compiled
/// grammars, [`cache_dir`]) and the CLI's `verdicts/` and `reductions/`.
pub fn cache_home() -> PathBuf {
    if let Some(d) = std::env::var_os("LOPPER_CACHE") {
        return PathBuf::from(d);
    }
    use etcetera::BaseStrategy;
    etcetera::choose_base_strategy().map_or_else(|_| std::env::temp_dir().join("lopper-cache"), |s| s.cache_dir().join("lopper"))
}

/// The cache of compiled tree-sitter grammars: `tree-sitter` in [`cache_home`].
pub fn cache_dir() -> PathBuf {
    cache_home().join("tree-sitter")
}

/// The user's grammars directory (`~/.config/lopper/grammars` on Linux).
fn user_dir() -> Option<PathBuf> {
    use etcetera::BaseStrategy;
    etcetera::choose_base_strategy().ok().map(|s| s.config_dir().join("lopper").join("grammars"))
}

/// All languages found, in search order.
#[derive(Debug, Default)]
pub struct Registry {
    /// Entries in search order; an earlier one shadows a later one of the same name.
    pub entries: Vec<Entry>,
    /// The grammars directories searched, in order: where each was looked for and whether
    /// it exists (`lopper languages` lists them).
    pub searched: Vec<(String, PathBuf, bool)>,
}

impl Registry {
    /// Searches `--grammar` paths, `LOPPER_GRAMMARS`, the user directory, then the built-in
    /// languages. No path is fixed at build time: a binary copied or installed anywhere
    /// finds the same languages.
    ///
    /// # Errors
    /// [`RegistryError::NotAGrammar`] for a `--grammar` path that is neither a `.pest` file
    /// nor a tree-sitter folder.
    pub fn discover(explicit: &[PathBuf]) -> Result<Registry, RegistryError> {
        let mut r = Registry::default();
        for p in explicit {
            r.entries.push(entry_for(p, "--grammar").ok_or_else(|| RegistryError::NotAGrammar(p.clone()))?);
        }
        if let Some(v) = std::env::var_os("LOPPER_GRAMMARS") {
            for d in std::env::split_paths(&v) {
                r.scan(&d, "LOPPER_GRAMMARS");
            }
        }
        if let Some(d) = user_dir() {
            r.scan(&d, "user grammars directory");
        }
        for l in Language::ALL {
            let extensions = l.extensions().iter().map(|x| x.to_string()).collect();
            r.entries.push(Entry { name: l.name().into(), extensions, kind: Kind::BuiltIn(l), origin: "built-in".into() });
        }
        for (name, text) in SHIPPED_PEST {
            let extensions = lopper_grammar::pest_extensions(text);
            r.entries.push(Entry { name: (*name).into(), extensions, kind: Kind::ShippedPest(text), origin: "built-in".into() });
        }
        Ok(r)
    }

    /// The language of `file`: the one named `lang` if given, else the first `--grammar`
    /// entry if `grammar_given`, else the one claiming `file`'s extension, else plain text
    /// by lines ([`TEXT`]).
    ///
    /// # Errors
    /// [`RegistryError::UnknownLanguage`] or [`RegistryError::UnknownExtension`], with the
    /// names known.
    pub fn choose(&self, file: &Path, lang: Option<&str>, grammar_given: bool) -> Result<&Entry, RegistryError> {
        match (lang, grammar_given) {
            (Some(l), _) => self.by_name(l).ok_or_else(|| RegistryError::UnknownLanguage { name: l.to_string(), known: self.names() }),
            (None, true) if !self.entries.is_empty() => Ok(&self.entries[0]),
            (None, _) => self
                .by_path(file)
                .or_else(|| self.by_name(TEXT))
                .ok_or_else(|| RegistryError::UnknownExtension { path: file.to_path_buf(), known: self.names() }),
        }
    }

    fn scan(&mut self, dir: &Path, origin: &str) {
        self.searched.push((origin.to_string(), dir.to_path_buf(), dir.is_dir()));
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if let Some(e) = entry_for(&p, &format!("{origin} {}", dir.display())) {
                self.entries.push(e);
            }
        }
    }

    /// The language named `name` (`js` also names JavaScript).
    pub fn by_name(&self, name: &str) -> Option<&Entry> {
        let name = if name.eq_ignore_ascii_case("js") { "javascript" } else { name };
        self.entries.iter().find(|e| e.name.eq_ignore_ascii_case(name))
    }

    /// The language that claims `file`'s extension.
    pub fn by_path(&self, file: &Path) -> Option<&Entry> {
        let ext = file.extension()?.to_str()?;
        self.entries.iter().find(|e| e.extensions.iter().any(|x| x == ext))
    }

    /// Whether an earlier entry has the same name as entry `i`.
    pub fn shadowed(&self, i: usize) -> Option<&Entry> {
        self.entries[..i].iter().find(|e| e.name == self.entries[i].name)
    }

    /// Names of the languages, without duplicates, for messages.
    pub fn names(&self) -> String {
        let mut v: Vec<&str> = Vec::new();
        for e in &self.entries {
            if !v.contains(&e.name.as_str()) {
                v.push(&e.name);
            }
        }
        v.join(", ")
    }
}

/// An entry for a `.pest` file or a tree-sitter grammar folder; `None` for anything else
/// (the vendored `grammar.json` folders of the built-in languages have no `parser.c`).
fn entry_for(p: &Path, origin: &str) -> Option<Entry> {
    if p.is_file() && p.extension().is_some_and(|e| e == "pest") {
        let name = p.file_stem()?.to_string_lossy().into_owned();
        let extensions = std::fs::read_to_string(p).map(|t| lopper_grammar::pest_extensions(&t)).unwrap_or_default();
        return Some(Entry { name, extensions, kind: Kind::Pest(p.to_path_buf()), origin: origin.to_string() });
    }
    let src = find_tree_sitter_src(p)?;
    let name = tree_sitter_grammar_name(&std::fs::read_to_string(src.join("grammar.json")).ok()?)?;
    Some(Entry { name, extensions: tree_sitter_file_types(p), kind: Kind::TreeSitter(p.to_path_buf()), origin: origin.to_string() })
}

/// File types a tree-sitter grammar folder declares: `tree-sitter.json`'s
/// `grammars[].file-types`, else `package.json`'s `tree-sitter[].file-types`, each read with
/// tree-sitter's own loader types.
fn tree_sitter_file_types(dir: &Path) -> Vec<String> {
    let lists: Vec<Option<Vec<String>>> = if let Ok(ts) = tree_sitter_loader::TreeSitterJSON::from_file(dir) {
        ts.grammars.into_iter().map(|g| g.file_types).collect()
    } else {
        std::fs::read_to_string(dir.join("package.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<tree_sitter_loader::PackageJSON>(&t).ok())
            .and_then(|p| p.tree_sitter)
            .into_iter()
            .flatten()
            .map(|c| c.file_types)
            .collect()
    };
    lists.into_iter().flatten().flatten().map(|t| t.trim_start_matches('.').to_string()).collect()
}
