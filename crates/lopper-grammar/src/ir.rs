//! The grammar IR: an EBNF expression per rule, as a tree-sitter `grammar.json` states it.

use indexmap::IndexMap;

/// One EBNF expression. `FIELD` and `PREC*` wrappers are dropped at load time because they
/// do not change the language, only tree-sitter's conflict resolution and field names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// The empty string (ε).
    Blank,
    /// A literal token, e.g. `","`. In a tree-sitter CST it is an anonymous node of that kind.
    Str(String),
    /// A regular-expression token. Inline patterns are invisible in a tree-sitter CST.
    Pattern(String),
    /// A reference to a rule or an external token by name.
    Symbol(String),
    /// `A B C`.
    Seq(Vec<Expr>),
    /// `A | B | C`.
    Choice(Vec<Expr>),
    /// `A*`.
    Repeat(Box<Expr>),
    /// `A+`.
    Repeat1(Box<Expr>),
    /// `TOKEN(...)` / `IMMEDIATE_TOKEN(...)`: the content is lexed as one token.
    Token(Box<Expr>),
    /// `ALIAS`: the content appears in the CST under the kind `value`.
    Alias {
        /// What is parsed.
        content: Box<Expr>,
        /// The kind the CST shows for it.
        value: String,
        /// Whether that kind is a named node (`true`) or an anonymous one.
        named: bool,
    },
}

/// A grammar as loaded, before normalization: rules in file order (the first is the start
/// rule), plus the tree-sitter metadata that decides what a CST shows.
#[derive(Clone, Debug, Default)]
pub struct Grammar {
    /// The language name, e.g. `"c"`.
    pub name: String,
    /// Rules in file order; the first rule is the start symbol.
    pub rules: IndexMap<String, Expr>,
    /// Tokens that may appear between any two tokens (whitespace patterns, comments).
    pub extras: Vec<Expr>,
    /// Tokens produced by an external scanner; named ones have no entry in `rules`.
    pub externals: Vec<Expr>,
    /// Rules that tree-sitter inlines: never visible in the CST.
    pub inline: Vec<String>,
    /// Supertype rules: hidden in the CST, but they define subsumption.
    pub supertypes: Vec<String>,
    /// Names of tokens defined outside the IR (a pest grammar's atomic rules and synthetic
    /// lexical rules): each is one terminal that its front end knows how to match.
    pub lexical: Vec<String>,
    /// The rule whose tokens are identifiers (tree-sitter's `word`; a grammar file's
    /// `//! lopper: identifier = rule`), if the grammar says.
    pub word: Option<String>,
}

impl Grammar {
    /// Whether a rule named `name` appears as its own node in a tree-sitter CST: not
    /// `_hidden`, not inlined, not a supertype.
    pub fn is_visible_rule(&self, name: &str) -> bool {
        !name.starts_with('_') && !self.inline.iter().any(|n| n == name) && !self.supertypes.iter().any(|n| n == name)
    }
}
