//! The grammar symbols (the tree-sitter grammars' rule names) that the searches following
//! names and scopes recognize, in one leaf module that imports nothing of the crate.

use lopper_grammar::PnfGrammar;
use lopper_tree::{NodeId, NodeKind, Tree};

/// Whether node `n` of `tree` is one of `symbols` (a token's symbol too).
pub(crate) fn is(tree: &Tree, g: &PnfGrammar, n: NodeId, symbols: &[&str]) -> bool {
    tree.node(n).symbol.is_some_and(|s| symbols.contains(&g.symbol(s).name.as_str()))
}

/// Whether `n` lies inside a function body ([`is_body`]): a local scope.
pub(crate) fn in_body(tree: &Tree, g: &PnfGrammar, n: NodeId) -> bool {
    tree.ancestors(n).any(|a| is_body(tree, g, a))
}

/// Whether `n` is a function body or block ([`BODIES`]), not the body of a construct the
/// parser could not read, which it glues to that construct's head in one opaque node
/// (`namespace std __attribute__ ((…)) {…}`: a namespace scope).
pub(crate) fn is_body(tree: &Tree, g: &PnfGrammar, n: NodeId) -> bool {
    is(tree, g, n, &BODIES) && !tree.node(n).parent.is_some_and(|p| tree.node(p).kind == NodeKind::Opaque)
}

/// The grammar symbols of a function body: a scope of its own.
pub(crate) const BODIES: [&str; 3] = ["compound_statement", "block", "constructor_body"];

/// The grammar symbols of parameter lists: a name declared inside one is local to its
/// function.
pub(crate) const PARAMETERS: [&str; 5] = ["parameter_list", "formal_parameters", "parameters", "template_parameter_list", "type_parameters"];

/// The grammar symbol of a name that a parameter list declares (type names there are
/// `type_identifier`s in these grammars).
pub(crate) const DECLARED_NAME: &str = "identifier";

/// The grammar symbol of a C or C++ declarator with an initializer.
pub(crate) const INIT_DECLARATOR: &str = "init_declarator";

/// The grammar symbols whose direct identifier child a declaration inside a body declares
/// as a local variable (C and C++ declarators, Java's and JavaScript's
/// `variable_declarator`, Rust's `let`).
pub(crate) const LOCAL_DECLARATORS: [&str; 7] =
    ["init_declarator", "declaration", "pointer_declarator", "array_declarator", "reference_declarator", "variable_declarator", "let_declaration"];
