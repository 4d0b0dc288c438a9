//! The symbols of a PNF grammar: a symbol's rule (terminal, regular, Kleene star, Kleene
//! plus, optional), its terminal form and the CST kind that stands for it. Shared by the
//! normalizer ([`crate::normalize`]) and the subsumption closure, which both build on them.

/// Index of a symbol in `PnfGrammar::symbols`.
pub type SymbolId = u32;

/// What kind of CST node, if any, stands for a symbol in a tree-sitter tree.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CstKind {
    /// The node kind as `tree_sitter::Node::kind` reports it.
    pub kind: String,
    /// Named node (`true`) or anonymous node (`false`).
    pub named: bool,
}

/// A terminal's lexical form.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Terminal {
    /// A literal string.
    Str(String),
    /// A regular expression (tree-sitter syntax).
    Pattern(String),
    /// A `TOKEN(...)` whose content is more than one literal.
    Token,
    /// A token from an external scanner; may be zero-width.
    External,
    /// A token of a grammar file defined by the front end's own lexical rule of the same
    /// name (a pest atomic rule); zero-width for predicates.
    Lexical,
}

/// The PNF rule of one symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PnfRule {
    /// A terminal: it derives one token.
    Terminal(Terminal),
    /// `A ::= B1 … Bn | C1 … Cm | …`: a regular rule with its alternatives.
    Regular(Vec<Vec<SymbolId>>),
    /// `A ::= B*` (Kleene star).
    Star(SymbolId),
    /// `A ::= B+` (Kleene plus).
    Plus(SymbolId),
    /// `A ::= B?` (optional).
    Optional(SymbolId),
}

impl PnfRule {
    /// The element symbol of a quantified rule (star, plus, optional), `None` otherwise.
    pub fn element(&self) -> Option<SymbolId> {
        match self {
            PnfRule::Star(x) | PnfRule::Plus(x) | PnfRule::Optional(x) => Some(*x),
            _ => None,
        }
    }
}

/// One symbol of a PNF grammar.
#[derive(Clone, Debug)]
pub struct Symbol {
    /// Unique, printable name (`argument_list`, `argument_list__star1`, `","`).
    pub name: String,
    /// Its rule.
    pub rule: PnfRule,
    /// The CST node kind that stands for this symbol, `None` for hidden symbols (rules named
    /// `_x`, inlined rules, supertypes, auxiliary rules, inline patterns).
    pub cst: Option<CstKind>,
}
