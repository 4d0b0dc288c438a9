//! Edits that do not create undefined behaviour (issue 53, point 2): under `--ub-guard`, a
//! candidate that would leave a local variable of C or C++ without its initializer is never
//! made. Such a variable, read before it is written, is undefined behaviour the guard
//! would refuse, at the cost of a guard run; a global keeps its implicit zero and may lose
//! its initializer.
//!
//! An initializer goes in two ways in a PNF tree of tree-sitter-c/-cpp: an `init_declarator`
//! replaced by its declarator (Perses' replacement by a subsumed descendant), or its `=`
//! token deleted (the tokens pass deletes `= 5` as tokens). Deleting the whole declaration
//! is fine: what still uses the variable no longer compiles.

use crate::symbols::{BODIES, INIT_DECLARATOR};
use lopper_grammar::PnfGrammar;
use lopper_tree::{Edit, EditSet, NodeId, Tree};

/// Whether `candidate` (an edit set of `tree`, whose current state is `state`) takes the
/// initializer from a variable declared in a function body that `state` initializes.
pub(crate) fn drops_local_initializer(tree: &Tree, g: &PnfGrammar, state: &EditSet, candidate: &EditSet) -> bool {
    let is = |n: NodeId, symbol: &str| tree.node(n).symbol.is_some_and(|s| g.symbol(s).name == symbol);
    let local = |n: NodeId| tree.ancestors(n).any(|a| BODIES.iter().any(|b| is(a, b)));
    candidate.ids().filter(|&n| state.get(n) != candidate.get(n)).any(|n| match candidate.get(n) {
        Some(Edit::Replace(_)) => is(n, INIT_DECLARATOR) && local(n),
        Some(Edit::Delete) => {
            tree.node(n).kind == lopper_tree::NodeKind::Token
                && tree.token_text(n) == "="
                && tree
                    .node(n)
                    .parent
                    .is_some_and(|p| is(p, INIT_DECLARATOR) && !candidate.contains(p) && local(p) && tree.ancestors(p).all(|a| !candidate.contains(a)))
        }
        _ => false,
    })
}
