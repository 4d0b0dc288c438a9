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
    let fail = |why: String| ParseError::Load { path: dir.display().to_string(), why };
    let src = find_tree_sitter_src(dir).ok_or_else(|| fail("no src/grammar.json with src/parser.c beside it".into()))?;
    let json = std::fs::read_to_string(src.join("grammar.json")).map_err(|e| fail(e.to_string()))?;
    let name = tree_sitter_grammar_name(&json).ok_or_else(|| fail("grammar.json has no \"name\"".into()))?;
    std::fs::create_dir_all(cache).map_err(|e| fail(format!("cannot create cache {}: {e}", cache.display())))?;
    let loader = tree_sitter_loader::Loader::with_parser_lib_path(cache.to_path_buf());
    let config = tree_sitter_loader::CompileConfig::new(&src, None, None);
    let ts = loader.load_language_at_path(config).map_err(|e| fail(format!("{e:#}")))?;
    Frontend::from_tree_sitter(&name, &json, ts)
}

/// The `name` of a tree-sitter `grammar.json` text, `None` if it is not JSON or has none.
pub fn tree_sitter_grammar_name(json: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    v.get("name")?.as_str().map(str::to_string)
}
