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
//!
//! Nor is the last `return` of a value taken from a non-void function other than `main`
//! (its expression, keyword or statement deleted): the function may then fall off its
//! end, and its caller read a value never returned.

use crate::symbols::{in_body, is, INIT_DECLARATOR};
use lopper_grammar::PnfGrammar;
use lopper_tree::{Edit, EditSet, NodeId, NodeKind, Tree};

/// Whether `candidate` (an edit set of `tree`, whose current state is `state`) takes a
/// value the program reads (see the module docs): the one candidate check the engine asks.
pub(crate) fn drops_value(tree: &Tree, g: &PnfGrammar, state: &EditSet, candidate: &EditSet) -> bool {
    drops_local_initializer(tree, g, state, candidate) || drops_return_value(tree, g, state, candidate)
}

/// Whether `candidate` (an edit set of `tree`, whose current state is `state`) takes the
/// initializer from a variable declared in a function body that `state` initializes.
pub(crate) fn drops_local_initializer(tree: &Tree, g: &PnfGrammar, state: &EditSet, candidate: &EditSet) -> bool {
    let initializes = |n: NodeId| is(tree, g, n, &[INIT_DECLARATOR]) && in_body(tree, g, n);
    candidate.ids().filter(|&n| state.get(n) != candidate.get(n)).any(|n| match candidate.get(n) {
        Some(Edit::Replace(_)) => initializes(n),
        Some(Edit::Delete) => {
            token(tree, n, "=")
                && tree.node(n).parent.is_some_and(|p| initializes(p) && !candidate.contains(p) && tree.ancestors(p).all(|a| !candidate.contains(a)))
        }
        _ => false,
    })
}

/// Whether `candidate` (as for [`drops_local_initializer`]) leaves a non-void function
/// other than `main` (which `state` keeps, with a `return` of a value) without any
/// `return` of a value: its expression, keyword or statement deleted, or a statement list
/// holding it.
pub(crate) fn drops_return_value(tree: &Tree, g: &PnfGrammar, state: &EditSet, candidate: &EditSet) -> bool {
    let mut seen = Vec::new();
    candidate.ids().filter(|&n| state.get(n) != candidate.get(n)).any(|n| {
        let Some(f) = tree.ancestors(n).find(|&a| is(tree, g, a, &[FUNCTION])) else { return false };
        if seen.contains(&f) {
            return false;
        }
        seen.push(f);
        let standing = |edits: &EditSet| std::iter::once(f).chain(tree.ancestors(f)).all(|a| !matches!(edits.get(a), Some(Edit::Delete)));
        standing(candidate) && returns_value(tree, g, f) && returns_something(tree, g, state, f) && !returns_something(tree, g, candidate, f)
    })
}

/// Whether function definition `f`, under `edits`, holds a `return` of a value: the
/// statement, its keyword and an expression all standing.
fn returns_something(tree: &Tree, g: &PnfGrammar, edits: &EditSet, f: NodeId) -> bool {
    let mut stack = vec![f];
    while let Some(n) = stack.pop() {
        let Some(n) = tree.effective(edits, n) else { continue };
        if is(tree, g, n, &[RETURN]) {
            let parts: Vec<NodeId> = tree.node(n).children.iter().filter_map(|&c| tree.effective(edits, c)).collect();
            if parts.iter().any(|&c| token(tree, c, "return")) && parts.iter().any(|&c| !token(tree, c, "return") && !token(tree, c, ";")) {
                return true;
            }
            continue;
        }
        stack.extend(tree.node(n).children.iter().copied());
    }
    false
}

/// The grammar symbols (tree-sitter-c/-cpp) of a return statement and a function definition.
const RETURN: &str = "return_statement";
const FUNCTION: &str = "function_definition";

/// Whether function definition `f` returns a value its callers may read: its type is not
/// plain `void` (a `void *` returns one), and it is not `main` (which returns 0 when it
/// falls off its end).
fn returns_value(tree: &Tree, g: &PnfGrammar, f: NodeId) -> bool {
    let children = &tree.node(f).children;
    let declarators = || children.iter().filter(|&&c| is(tree, g, c, &["function_declarator"]));
    let plain_void = children.iter().any(|&c| token(tree, c, "void")) && declarators().next().is_some();
    let main = declarators().any(|&d| tree.node(d).children.first().is_some_and(|&name| token(tree, name, "main")));
    !plain_void && !main
}

/// Whether node `n` is a token with this text.
fn token(tree: &Tree, n: NodeId, text: &str) -> bool {
    tree.node(n).kind == NodeKind::Token && tree.token_text(n) == text
}
