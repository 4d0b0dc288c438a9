//! The built-in languages: their names, extensions, vendored grammars and tree-sitter
//! parsers.

/// A built-in language.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Language {
    /// C (tree-sitter-c); extensions `.c .h .i`.
    C,
    /// C++ (tree-sitter-cpp); extensions `.cc .cpp .cxx .c++ .hh .hpp .hxx .ii` (`.h` stays
    /// C unless `--lang cpp`).
    Cpp,
    /// Java (tree-sitter-java); extension `.java`.
    Java,
    /// JavaScript (tree-sitter-javascript); extensions `.js .mjs .cjs`.
    JavaScript,
    /// Rust (tree-sitter-rust); extension `.rs`.
    Rust,
    /// Python (tree-sitter-python); extensions `.py .pyi`.
    Python,
    /// Go (tree-sitter-go); extension `.go`.
    Go,
}

impl Language {
    /// All built-in languages.
    pub const ALL: [Language; 7] = [Language::C, Language::Cpp, Language::Java, Language::JavaScript, Language::Rust, Language::Python, Language::Go];

    /// The language's name as `--lang` takes it: `c`, `cpp`, `java`, `javascript`, `rust`,
    /// `python`, `go`.
    pub fn name(self) -> &'static str {
        match self {
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::Java => "java",
            Language::JavaScript => "javascript",
            Language::Rust => "rust",
            Language::Python => "python",
            Language::Go => "go",
        }
    }

    /// The file extensions the language claims, without dots (the registry's only list).
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Language::C => &["c", "h", "i"],
            Language::Cpp => &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "ii"],
            Language::Java => &["java"],
            Language::JavaScript => &["js", "mjs", "cjs"],
            Language::Rust => &["rs"],
            Language::Python => &["py", "pyi"],
            Language::Go => &["go"],
        }
    }

    /// Whether indentation is syntax (Python's blocks): a pass that rewrites whitespace
    /// between tokens must leave such a language alone.
    pub fn indentation_is_syntax(self) -> bool {
        self == Language::Python
    }

    /// The crates.io package the vendored grammar comes from, `NAME-VERSION`
    /// (`tree-sitter-c-0.24.2`), as its `SOURCE` file records it.
    pub fn grammar_package(self) -> &'static str {
        let source = match self {
            Language::C => include_str!("../grammars/c/SOURCE"),
            Language::Cpp => include_str!("../grammars/cpp/SOURCE"),
            Language::Java => include_str!("../grammars/java/SOURCE"),
            Language::JavaScript => include_str!("../grammars/javascript/SOURCE"),
            Language::Rust => include_str!("../grammars/rust/SOURCE"),
            Language::Python => include_str!("../grammars/python/SOURCE"),
            Language::Go => include_str!("../grammars/go/SOURCE"),
        };
        source.split_whitespace().find(|w| w.starts_with("tree-sitter-")).unwrap_or("unknown")
    }

    /// The vendored tree-sitter `grammar.json` (its licence beside it in `grammars/NAME/`).
    pub fn grammar_json(self) -> &'static str {
        match self {
            Language::C => include_str!("../grammars/c/grammar.json"),
            Language::Cpp => include_str!("../grammars/cpp/grammar.json"),
            Language::Java => include_str!("../grammars/java/grammar.json"),
            Language::JavaScript => include_str!("../grammars/javascript/grammar.json"),
            Language::Rust => include_str!("../grammars/rust/grammar.json"),
            Language::Python => include_str!("../grammars/python/grammar.json"),
            Language::Go => include_str!("../grammars/go/grammar.json"),
        }
    }

    /// The compiled tree-sitter parser (the `tree-sitter-NAME` crate).
    pub fn tree_sitter(self) -> tree_sitter::Language {
        match self {
            Language::C => tree_sitter_c::LANGUAGE.into(),
            Language::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
            Language::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Go => tree_sitter_go::LANGUAGE.into(),
        }
    }
}
