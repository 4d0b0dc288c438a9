//! tree-sitter-cpp 0.23.4's C++ grammar, with the two changes its `SOURCE` file lists.

use tree_sitter_language::LanguageFn;

extern "C" {
    fn tree_sitter_cpp() -> *const ();
}

/// The tree-sitter [`LanguageFn`] for this grammar.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_cpp) };
