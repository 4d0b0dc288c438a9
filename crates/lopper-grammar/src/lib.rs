//! lopper-grammar: the grammar IR, the tree-sitter `grammar.json` loader, the Perses Normal
//! Form (PNF) normalizer and the subsumption relation.
//!
//! This crate never sees a program: it turns a grammar into a [`PnfGrammar`] that the
//! parser and the reducer consult. Use it alone to print a grammar's PNF:
//!
//! ```
//! let g = lopper_grammar::load_tree_sitter_json(
//!     r#"{"name":"tiny","rules":{"list":{"type":"REPEAT","content":{"type":"STRING","value":"x"}}}}"#,
//! ).unwrap();
//! let pnf = lopper_grammar::normalize(&g).unwrap();
//! assert!(pnf.show().contains(r#"list ::= "x"*"#));
//! ```

mod ir;
mod normal_form;
mod pest_file;
mod pnf;
mod subsumption;
mod symbol;
mod tree_sitter_json;

pub use ir::{Expr, Grammar};
pub use normal_form::perses_normalize;
pub use pest_file::{is_trivia, load_pest, pest_extensions, pest_nullable, show as show_pest_expr, PestGrammar};
pub use pest_meta;
pub use pnf::{grammar_from_rules, normalize, PnfGrammar};
pub use subsumption::{nullable, nullable_from, Subsumption};
pub use symbol::{CstKind, PnfRule, Symbol, SymbolId, Terminal};
pub use tree_sitter_json::load_tree_sitter_json;

/// Why a grammar could not be loaded or normalized.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GrammarError {
    /// The grammar file is not valid JSON.
    #[error("grammar is not valid JSON: {0}")]
    Json(String),
    /// The JSON is not a tree-sitter grammar.
    #[error("not a tree-sitter grammar: {0}")]
    Format(String),
    /// A rule refers to a name that is neither a rule nor an external token.
    #[error("rule `{rule}` refers to undefined symbol `{name}`")]
    UndefinedSymbol {
        /// The undefined name.
        name: String,
        /// The rule that refers to it.
        rule: String,
    },
    /// The grammar has no rules, so no start symbol.
    #[error("grammar has no start rule")]
    NoStartRule,
    /// A grammar file's syntax is wrong, or it uses a rule it does not define (pest's
    /// message, with line and column).
    #[error("{0}")]
    Syntax(String),
    /// The grammar uses a construct lopper cannot normalize.
    #[error("rule `{rule}`: {what}")]
    Unsupported {
        /// The rule that uses it.
        rule: String,
        /// What it is.
        what: String,
    },
    /// A rule derives no finite text: every alternative refers back to it.
    #[error("rule `{rule}` can never end: every alternative refers back to it (add an alternative without it)")]
    NeverEnds {
        /// The rule.
        rule: String,
    },
    /// Left recursion that normalization cannot remove (through a Kleene star or optional).
    #[error("left recursion through a repetition or optional among rules {}: write the recursion as `a = {{ a ~ … | … }}`", rules.join(", "))]
    LeftRecursion {
        /// The rules on the cycle.
        rules: Vec<String>,
    },
}

#[cfg(test)]
mod tests;
