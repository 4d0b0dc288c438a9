//! Tree-sitter grammars loaded at run time: a grammar folder's `src/` (`grammar.json`,
//! `parser.c`, optional `scanner.c`) is compiled once with the machine's C compiler into a
//! shared library in a cache directory, by tree-sitter's own loader crate, and reused while
//! the sources are older than the library.

use crate::{Frontend, ParseError};
use std::path::{Path, PathBuf};

/// The `src/` directory of a tree-sitter grammar folder: `dir/src` or `dir` itself, whichever
/// holds `grammar.json` and `parser.c`; `None` if neither does.
pub fn find_tree_sitter_src(dir: &Path) -> Option<PathBuf> {
    [dir.join("src"), dir.to_path_buf()].into_iter().find(|d| d.join("grammar.json").is_file() && d.join("parser.c").is_file())
}

/// Loads the tree-sitter grammar in folder `dir` (see [`find_tree_sitter_src`]), compiling
/// its parser into `cache` (a directory; created if missing) on first use. Returns the
/// language, named by `grammar.json`'s `name`. The first load compiles C (seconds for a
/// large grammar); later loads only `dlopen` the cached library.
///
/// # Errors
/// [`ParseError::Load`] when the folder has no grammar, the C compiler fails or the library
/// does not load; [`ParseError::Grammar`] when `grammar.json` does not normalize.
pub fn load_tree_sitter_folder(dir: &Path, cache: &Path) -> Result<Frontend, ParseError> {
    let fail = |source: FolderError| ParseError::Load { path: dir.to_path_buf(), source };
    let src = find_tree_sitter_src(dir).ok_or(fail(FolderError::NoSources))?;
    let json_path = src.join("grammar.json");
    let json = std::fs::read_to_string(&json_path).map_err(|e| fail(FolderError::Io { path: json_path, source: e }))?;
    let name = tree_sitter_grammar_name(&json).ok_or(fail(FolderError::NoName))?;
    std::fs::create_dir_all(cache).map_err(|e| fail(FolderError::Io { path: cache.to_path_buf(), source: e }))?;
    let loader = tree_sitter_loader::Loader::with_parser_lib_path(cache.to_path_buf());
    let config = tree_sitter_loader::CompileConfig::new(&src, None, None);
    // `{:#}` keeps the loader's context chain (the compiler's output) in one message.
    let ts = loader.load_language_at_path(config).map_err(|e| fail(FolderError::Compile(format!("{e:#}").into())))?;
    Frontend::from_tree_sitter(&name, &json, ts)
}

/// Why a tree-sitter grammar folder did not load.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// Neither `dir/src` nor `dir` holds `grammar.json` and `parser.c`.
    #[error("no src/grammar.json with src/parser.c beside it")]
    NoSources,
    /// `grammar.json` has no `"name"`.
    #[error("grammar.json has no \"name\"")]
    NoName,
    /// Reading the grammar or creating the cache failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The C compiler failed or the library did not load (tree-sitter-loader's message with
    /// its context chain, e.g. the compiler's output).
    #[error("{0}")]
    Compile(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// The `name` of a tree-sitter `grammar.json` text, `None` if it is not JSON or has none.
pub fn tree_sitter_grammar_name(json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    v.get("name")?.as_str().map(str::to_string)
}
