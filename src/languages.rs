//! Which languages lopper knows, and where each comes from.
//!
//! Search order (the first language of a name wins): `--grammar PATH`; each directory of
//! `LOPPER_GRAMMARS` (colon-separated); the user's grammars directory
//! (`~/.config/lopper/grammars` on Linux); the repository's `grammars/`; then the languages
//! built into the binary (C, Java, JavaScript by tree-sitter, and the shipped grammar files).
//! In a grammars directory, `NAME.pest` is a pest grammar file and a folder with
//! `src/grammar.json` and `src/parser.c` is a tree-sitter grammar, compiled once into
//! `~/.cache/lopper/tree-sitter` (or `$LOPPER_CACHE`).

use lopper_parse::{find_tree_sitter_src, load_tree_sitter_folder, tree_sitter_grammar_name, Frontend, Language};
use std::path::{Path, PathBuf};

/// The grammar files shipped with lopper, built into the binary so it works anywhere.
const SHIPPED_PEST: &[(&str, &str)] =
    &[("json", include_str!("../grammars/json.pest")), ("smtlib", include_str!("../grammars/smtlib.pest")), ("lua", include_str!("../grammars/lua.pest"))];

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
    /// The grammar's own error, with its path: syntax errors with line and column,
    /// undefined rules, compiler output.
    pub fn load(&self) -> Result<Frontend, String> {
        match &self.kind {
            Kind::BuiltIn(l) => Frontend::new(*l).map_err(|e| e.to_string()),
            Kind::ShippedPest(text) => Frontend::from_pest(&self.name, text).map_err(|e| grammar_error(&format!("built-in grammar {}", self.name), e)),
            Kind::Pest(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read grammar {}: {e}", path.display()))?;
                Frontend::from_pest(&self.name, &text).map_err(|e| grammar_error(&format!("grammar {}", path.display()), e))
            }
            Kind::TreeSitter(dir) => load_tree_sitter_folder(dir, &cache_dir()).map_err(|e| e.to_string()),
        }
    }
}

/// "grammar PATH: why", with pest's multi-line messages starting on their own line.
fn grammar_error(what: &str, e: lopper_parse::ParseError) -> String {
    let why = match e {
        lopper_parse::ParseError::Grammar(g) => g.to_string(),
        other => other.to_string(),
    };
    if why.contains('\n') {
        format!("{what}:\n{why}")
    } else {
        format!("{what}: {why}")
    }
}

/// The cache of compiled tree-sitter grammars: `$LOPPER_CACHE`, else the user cache.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("LOPPER_CACHE") {
        return PathBuf::from(d);
    }
    use etcetera::BaseStrategy;
    match etcetera::choose_base_strategy() {
        Ok(s) => s.cache_dir().join("lopper").join("tree-sitter"),
        Err(_) => std::env::temp_dir().join("lopper-tree-sitter"),
    }
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
}

impl Registry {
    /// Searches `--grammar` paths, `LOPPER_GRAMMARS`, the user directory, the repository's
    /// `grammars/`, then the built-in languages.
    ///
    /// # Errors
    /// A `--grammar` path that is neither a `.pest` file nor a tree-sitter folder.
    pub fn discover(explicit: &[PathBuf]) -> Result<Registry, String> {
        let mut r = Registry::default();
        for p in explicit {
            let e = entry_for(p, "--grammar")
                .ok_or_else(|| format!("--grammar {}: not a .pest file nor a folder with src/grammar.json and src/parser.c", p.display()))?;
            r.entries.push(e);
        }
        if let Some(v) = std::env::var_os("LOPPER_GRAMMARS") {
            for d in std::env::split_paths(&v) {
                r.scan(&d, "LOPPER_GRAMMARS");
            }
        }
        if let Some(d) = user_dir() {
            r.scan(&d, "user grammars directory");
        }
        r.scan(&Path::new(env!("CARGO_MANIFEST_DIR")).join("grammars"), "lopper's grammars/");
        for l in Language::ALL {
            let ext = match l {
                Language::C => vec!["c", "h", "i"],
                Language::Java => vec!["java"],
                Language::JavaScript => vec!["js", "mjs", "cjs"],
            };
            r.entries.push(Entry {
                name: l.name().into(),
                extensions: ext.into_iter().map(String::from).collect(),
                kind: Kind::BuiltIn(l),
                origin: "built-in".into(),
            });
        }
        for (name, text) in SHIPPED_PEST {
            r.entries.push(Entry {
                name: (*name).into(),
                extensions: lopper_grammar::pest_extensions(text),
                kind: Kind::ShippedPest(text),
                origin: "built-in".into(),
            });
        }
        Ok(r)
    }

    fn scan(&mut self, dir: &Path, origin: &str) {
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
/// `grammars[].file-types`, else `package.json`'s `tree-sitter[].file-types`.
fn tree_sitter_file_types(dir: &Path) -> Vec<String> {
    let read = |f: &str| -> Option<serde_json::Value> { serde_json::from_str(&std::fs::read_to_string(dir.join(f)).ok()?).ok() };
    let list = read("tree-sitter.json").and_then(|v| v.get("grammars").cloned()).or_else(|| read("package.json").and_then(|v| v.get("tree-sitter").cloned()));
    let mut out = Vec::new();
    for g in list.as_ref().and_then(|l| l.as_array()).into_iter().flatten() {
        for t in g.get("file-types").and_then(|t| t.as_array()).into_iter().flatten() {
            if let Some(s) = t.as_str() {
                out.push(s.trim_start_matches('.').to_string());
            }
        }
    }
    out
}
