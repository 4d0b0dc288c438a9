//! The members each C++ class body declares ([`Members`]), for the reference graph's
//! lookup: inside a class body, an unqualified name finds a member of that class (or of
//! an enclosing one) before anything at namespace scope (C++ [basic.lookup.unqual]).

use crate::symbols::{is, INNER_SCOPES};
use foldhash::{HashSet, HashSetExt};
use lopper_grammar::{PnfGrammar, SymbolId};
use lopper_tree::{NodeId, NodeKind, Tree};

/// Per class body of a tree, the names it declares as members (its own, not a nested
/// class's): tree-sitter's member names (`field_identifier`) and the names of its
/// using-declarations. Inherited members are not known (a base's `swap` used unqualified
/// in a derived class still reaches every `swap` at namespace scope: more kept, never a
/// wrong deletion).
pub(crate) struct Members<'t> {
    tree: &'t Tree,
    /// Per token position: the innermost class body holding it (index into `bodies`), or
    /// `u32::MAX`.
    body: Vec<u32>,
    /// Per class body: its node, the body enclosing it (`u32::MAX`: none), and its
    /// members' names.
    bodies: Vec<(NodeId, u32, HashSet<&'t str>)>,
}

impl<'t> Members<'t> {
    /// The class bodies of `tree` under the live nodes `live`; `member` are the grammar
    /// symbols of a member's name, `using` the token positions of the names the
    /// using-declarations declare, ascending.
    pub(crate) fn scan(tree: &'t Tree, live: &[bool], g: &PnfGrammar, member: &[SymbolId], using: &[usize]) -> Members<'t> {
        let ids = tree.token_ids();
        let mut body = vec![u32::MAX; ids.len()];
        let mut bodies: Vec<(NodeId, u32, HashSet<&str>)> = Vec::new();
        // Pre-order: an outer body is filled before the bodies inside it overwrite theirs.
        let mut stack = vec![tree.root()];
        while let Some(n) = stack.pop() {
            let node = tree.node(n);
            if !live[n.0 as usize] || node.kind == NodeKind::Token {
                continue;
            }
            if is(tree, g, n, &INNER_SCOPES) {
                let range = tree.subtree_token_range(n);
                let outer = range.clone().next().map_or(u32::MAX, |p| body[p]);
                let k = bodies.len() as u32;
                bodies.push((n, outer, HashSet::new()));
                body[range].fill(k);
            }
            stack.extend(node.children.iter().rev().copied());
        }
        if bodies.is_empty() {
            return Members { tree, body, bodies };
        }
        for (pos, &id) in ids.iter().enumerate() {
            let k = body[pos];
            let declares = tree.node(id).symbol.is_some_and(|s| member.contains(&s)) || using.binary_search(&pos).is_ok();
            if k != u32::MAX && live[id.0 as usize] && declares {
                bodies[k as usize].2.insert(tree.token_text(id));
            }
        }
        Members { tree, body, bodies }
    }

    /// The innermost class body holding token position `pos`, if any.
    pub(crate) fn body_at(&self, pos: usize) -> Option<NodeId> {
        self.index_at(pos).map(|k| self.bodies[k as usize].0)
    }

    /// The index in `bodies` of the innermost class body holding token position `pos`.
    fn index_at(&self, pos: usize) -> Option<u32> {
        self.body.get(pos).copied().filter(|&k| k != u32::MAX)
    }

    /// Whether the use of `name` at token position `at` is unqualified (no `::` or `.` or
    /// `->` before it) inside a class body that, or whose enclosing class body, declares a
    /// member `name`.
    pub(crate) fn member_of_enclosing(&self, name: &str, at: usize) -> bool {
        let Some(mut k) = self.index_at(at) else { return false };
        let ids = self.tree.token_ids();
        if at > 0 && matches!(self.tree.token_text(ids[at - 1]), "::" | "." | "->") {
            return false;
        }
        loop {
            let (_, outer, members) = &self.bodies[k as usize];
            if members.contains(name) {
                return true;
            }
            if *outer == u32::MAX {
                return false;
            }
            k = *outer;
        }
    }
}
