//! The program's names and the reference graph (issue 52, point 1), the one home the
//! searches that follow names read: where each identifier occurs ([`Names`]: a name is
//! declared by the element holding its first occurrence, as the unused search and
//! `Dependents` take it), and the *dependency-closed units* a list splits into.
//!
//! A unit is a head with everything only the head reaches: its subtree in the dominator
//! tree of the graph, rooted at a virtual source that reaches every root (what no other
//! element names), every element named from outside the list or kept, and one element of
//! each group of elements that name only each other (a strongly connected group no root
//! reaches). Deleting any set of units leaves every remaining use of a name with its
//! declaration: a remaining element naming one inside a deleted unit would itself be
//! reached only through that unit's head, and so be in it. So a list minimizer over the
//! heads, each deletion taking its unit ([`Closure`]), removes a root with every
//! declaration only it needs, a whole chain in one candidate, where deleting roots alone
//! takes one level of the chain per test. By name, not by symbol table: a wrong guess costs
//! a failed test, never a wrong result.
//!
//! Dominators by Cooper, Harvey and Kennedy, *A Simple, Fast Dominance Algorithm* (2001).

use crate::engine::Closure;
use crate::namespaces::Namespaces;
use crate::symbols::{declares, is, is_body, DECLARED_NAME, INNER_SCOPES, LOCAL_DECLARATORS, PARAMETERS};
use lopper_grammar::PnfGrammar;
use lopper_tree::{NodeId, NodeKind, Tree};
// foldhash: a map of every live identifier is built for each state a search looks at.
use foldhash::{HashMap, HashMapExt, HashSet};
use std::borrow::Cow;
use std::ops::Range;

/// Where each live identifier of a program occurs: built once per state of the edits.
pub struct Names<'t> {
    pub(crate) tree: &'t Tree,
    /// Per name: its live occurrences, and the token position of the first.
    pub(crate) names: HashMap<&'t str, (u32, usize)>,
    /// Per token position: whether that token is a live identifier.
    pub(crate) identifier: Vec<bool>,
    /// Per name: the token positions (ascending) where a declaration at namespace scope
    /// declares it ([`declares`](crate::symbols::declares)); a name without any is declared by its first occurrence.
    decls: HashMap<&'t str, Vec<usize>>,
    /// Per member's name (no declaration at namespace scope, first seen in a class body):
    /// that class body.
    members: HashMap<&'t str, NodeId>,
    /// The C++ namespaces, which narrow what a use sees (`None`: the program opens none).
    namespaces: Option<Namespaces<'t>>,
}

impl<'t> Names<'t> {
    /// The live identifiers of `tree` (`live`: one flag per node, as [`Tree::live`] gives).
    pub fn new(tree: &'t Tree, live: &[bool], g: &PnfGrammar) -> Names<'t> {
        Names::build(tree, live, g, &[])
    }

    /// As [`Names::new`], without the names that function parameter lists declare (C's
    /// `size_t __n`, Java's `int x`), and without their uses in that function's body, nor
    /// the names declared in a body (`int i = 0;`) in that body: a parameter's name is
    /// local to its function, so a declaration holding its first occurrence declares
    /// nothing by it, and the next function with a parameter of that name does not use it.
    /// (Measured on consteval: the libc prototypes' `__s`, `__n`, `__dest` made every
    /// prototype after the first use the first; without them it took 2,531 tests, not 2,730. Leaving out every
    /// occurrence of such names, and template parameters too, took more than 4,000.)
    ///
    /// With `locals` false, a local variable's name stays a name like any other: the table
    /// for a list inside a body, where a local's declaration is an element that may go.
    pub fn without_parameters(tree: &'t Tree, live: &[bool], g: &PnfGrammar, locals: bool) -> Names<'t> {
        let mut local = vec![false; tree.token_count()];
        for n in (0..tree.len() as u32).map(NodeId) {
            let node = tree.node(n);
            if live[n.0 as usize] && node.kind != NodeKind::Token && node.symbol.is_some_and(|s| PARAMETERS.contains(&g.symbol(s).name.as_str())) {
                local[tree.subtree_token_range(n)].fill(true);
            }
        }
        let ids = tree.token_ids();
        for (pos, flag) in local.iter_mut().enumerate() {
            *flag = *flag && tree.node(ids[pos]).symbol.is_some_and(|s| g.symbol(s).name == DECLARED_NAME);
        }
        // A parameter's uses in its function's body are local too, and so are a local
        // variable's in its block: otherwise the first body naming `startRef` or `i`
        // declares it, and every later function using a parameter or local of that name
        // names the first.
        for b in (0..tree.len() as u32).map(NodeId) {
            let node = tree.node(b);
            if !live[b.0 as usize] || node.kind == NodeKind::Token || !is_body(tree, g, b) {
                continue;
            }
            let Some(function) = node.parent else { continue };
            let (all, body) = (tree.subtree_token_range(function), tree.subtree_token_range(b));
            let declares_local = |i: usize| {
                let id = ids[i];
                locals && live[id.0 as usize] && is(tree, g, id, &[DECLARED_NAME]) && tree.node(id).parent.is_some_and(|p| is(tree, g, p, &LOCAL_DECLARATORS))
            };
            let names: HashSet<&str> =
                (all.start..body.start).filter(|&i| local[i]).chain(body.clone().filter(|&i| declares_local(i))).map(|i| tree.token_text(ids[i])).collect();
            if names.is_empty() {
                continue;
            }
            for i in body {
                if !local[i] && names.contains(tree.token_text(ids[i])) {
                    local[i] = true;
                }
            }
        }
        Names::build(tree, live, g, &local)
    }

    /// The live identifiers of `tree` but those at the positions `skip` marks (empty: none).
    fn build(tree: &'t Tree, live: &[bool], g: &PnfGrammar, skip: &[bool]) -> Names<'t> {
        let mut names: HashMap<&str, (u32, usize)> = HashMap::new();
        let mut identifier = vec![false; tree.token_count()];
        for (pos, &id) in tree.token_ids().iter().enumerate() {
            if !live[id.0 as usize] || !tree.node(id).symbol.is_some_and(|s| g.is_identifier(s)) || skip.get(pos) == Some(&true) {
                continue;
            }
            identifier[pos] = true;
            names.entry(tree.token_text(id)).or_insert((0, pos)).0 += 1;
        }
        let mut decls: HashMap<&str, Vec<usize>> = HashMap::new();
        for (pos, &id) in tree.token_ids().iter().enumerate() {
            if identifier[pos] && declares(tree, g, id, pos) {
                decls.entry(tree.token_text(id)).or_default().push(pos);
            }
        }
        // A name first seen in a class body, with no declaration at namespace scope, is a
        // member's: a use reaches it through its class, which the use names otherwise.
        let ids = tree.token_ids();
        let mut members = HashMap::new();
        for (&name, &(_, first)) in &names {
            if !decls.contains_key(name) {
                if let Some(body) = tree.ancestors(ids[first]).find(|&a| is(tree, g, a, &INNER_SCOPES)) {
                    members.insert(name, body);
                }
            }
        }
        Names { tree, names, identifier, decls, members, namespaces: Namespaces::scan(tree, live) }
    }

    /// Where `name` is declared, for its use at token position `at` in `list`: the token
    /// positions of its declarations at namespace scope (several for a forward declaration
    /// and a definition, overloads, a name in two namespaces), those the use's namespace
    /// sees ([`Namespaces::visible`]); none for a member's name (first seen in a class
    /// body) where `list` is outside that body; else its first occurrence's.
    pub(crate) fn declarations<'a>(&'a self, name: &'a str, first: &'a usize, list: Option<NodeId>, at: usize) -> Cow<'a, [usize]> {
        let decls = self.decls.get(name).map(Vec::as_slice);
        if let Some(ns) = &self.namespaces {
            if decls.is_some() || ns.is_namespace(name) {
                return ns.visible(at, name, decls.unwrap_or(std::slice::from_ref(first)));
            }
        }
        if let Some(d) = decls {
            return Cow::Borrowed(d);
        }
        Cow::Borrowed(match (self.members.get(name), list) {
            (Some(&body), Some(l)) if body != l && !self.tree.ancestors(l).any(|a| a == body) => &[],
            _ => std::slice::from_ref(first),
        })
    }

    /// The first name element `e` declares (holds the first occurrence of), if any: what
    /// the search remembers an element the test needs by, since it stays the same while
    /// the element's body shrinks.
    pub fn declared(&self, e: NodeId, live: &[bool]) -> Option<&'t str> {
        let t = self.tree;
        let (span, ids) = self.positions(e)?;
        span.zip(ids).find_map(|(pos, &id)| {
            let name = t.token_text(id);
            (self.identifier[pos] && live[id.0 as usize] && self.names[name].1 == pos).then_some(name)
        })
    }

    /// Whether list element `e` is unreferenced (see the module docs): it holds the first
    /// occurrence of some name, and all occurrences of every such name. `live` as for
    /// [`Names::new`].
    pub fn unreferenced(&self, e: NodeId, live: &[bool]) -> bool {
        let t = self.tree;
        let Some((span, ids)) = self.positions(e) else { return false };
        let mut inside: HashMap<&str, u32> = HashMap::new();
        for (pos, &id) in span.clone().zip(ids) {
            if self.identifier[pos] && live[id.0 as usize] {
                *inside.entry(t.token_text(id)).or_default() += 1;
            }
        }
        let mut declares = false;
        for (name, n) in inside {
            let (all, first) = self.names[name];
            if span.contains(&first) {
                if n < all {
                    return false;
                }
                declares = true;
            }
        }
        declares
    }

    /// Whether the token at position `pos` of [`Tree::token_ids`] is a live identifier.
    pub(crate) fn is_identifier(&self, pos: usize) -> bool {
        self.identifier[pos]
    }

    /// The token position of `name`'s first live occurrence (`name` must be one).
    pub(crate) fn first(&self, name: &str) -> usize {
        self.names[name].1
    }

    /// Node `e`'s tokens with their positions in [`Tree::token_ids`] (a subtree's tokens
    /// are contiguous); `None` for a node without tokens.
    pub(crate) fn positions(&self, e: NodeId) -> Option<(Range<usize>, &'t [NodeId])> {
        let span = self.tree.subtree_token_range(e);
        (!span.is_empty()).then(|| (span.clone(), &self.tree.token_ids()[span]))
    }
    /// The largest set of `elements` (a list's live children, in order) outside `keep`
    /// that declare some name and whose names are used only inside the set: what stays
    /// unused once all of it is gone, cycles and chains of declarations included (a
    /// mark-and-sweep over the uses, from every element that declares nothing, every
    /// element in `keep` and every use outside the list). A use keeps every element that
    /// holds the name, not only the one with its first occurrence, as if each might
    /// declare it (a struct's field `top` after another struct's `top`: measured, keeping
    /// only the first holder made this candidate fail on every level of va-arg). `live` as
    /// for [`Names::new`].
    pub fn dead(&self, elements: &[NodeId], keep: &dyn Fn(NodeId) -> bool, live: &[bool]) -> Vec<NodeId> {
        let t = self.tree;
        // Per token position: the element (index) holding it.
        let mut owner = vec![usize::MAX; self.identifier.len()];
        for (i, &e) in elements.iter().enumerate() {
            if let Some((span, _)) = self.positions(e) {
                owner[span].fill(i);
            }
        }
        let declarer = |name: &str| self.names.get(name).map_or(usize::MAX, |&(_, first)| owner[first]);
        // Per name, the elements that hold it: each may declare it.
        let mut holders: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut dead = vec![false; elements.len()];
        for (pos, &id) in t.token_ids().iter().enumerate() {
            let i = owner[pos];
            if i == usize::MAX || !self.identifier[pos] || !live[id.0 as usize] {
                continue;
            }
            let name = t.token_text(id);
            if declarer(name) == i {
                dead[i] = !keep(elements[i]);
            }
            let h = holders.entry(name).or_default();
            if h.last() != Some(&i) {
                h.push(i);
            }
        }
        loop {
            let mut changed = false;
            for (pos, &id) in t.token_ids().iter().enumerate() {
                let user = owner[pos];
                if !self.identifier[pos] || !live[id.0 as usize] || (user != usize::MAX && dead[user]) {
                    continue;
                }
                let name = t.token_text(id);
                let mut revive = |d: usize| {
                    if d != usize::MAX && dead[d] && d != user {
                        dead[d] = false;
                        changed = true;
                    }
                };
                holders.get(name).into_iter().flatten().for_each(|&d| revive(d));
            }
            if !changed {
                return elements.iter().zip(dead).filter(|(_, d)| *d).map(|(&e, _)| e).collect();
            }
        }
    }
}

/// A list's elements split into dependency-closed units (see the module docs).
#[derive(Debug)]
pub(crate) struct Units {
    /// The heads that may go, in list order.
    heads: Vec<NodeId>,
    /// Per head (same order), the other elements of its unit.
    members: Vec<Vec<NodeId>>,
}

impl Units {
    /// The units of `items` (a list's live elements, in order) of `tree` under a state whose
    /// live nodes are `live` and whose identifiers `names` holds. An element is never a
    /// head that `keep` holds, that declares no name, or whose name is used outside the
    /// list; it stays, and so does all it names.
    pub(crate) fn of(names: &Names<'_>, tree: &Tree, live: &[bool], items: &[NodeId], keep: &dyn Fn(NodeId) -> bool) -> Units {
        let n = items.len();
        let source = n;
        let ids = tree.token_ids();
        let list = items.first().and_then(|&e| tree.node(e).parent);
        // Per token position: the element (index) holding it.
        let mut owner = vec![usize::MAX; ids.len()];
        for (i, &e) in items.iter().enumerate() {
            owner[tree.subtree_token_range(e)].fill(i);
        }
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        let mut declares = vec![false; n];
        let mut outside = vec![false; n];
        let mut named = vec![false; n];
        for (pos, &id) in ids.iter().enumerate() {
            if !names.is_identifier(pos) || !live[id.0 as usize] {
                continue;
            }
            let name = tree.token_text(id);
            let first = names.first(name);
            let targets = names.declarations(name, &first, list, pos);
            let u = owner[pos];
            // A declaration is no use; a use needs every declaration of its name.
            if targets.binary_search(&pos).is_ok() {
                if u != usize::MAX {
                    declares[u] = true;
                }
                continue;
            }
            for &t in targets.iter() {
                let d = owner[t];
                if d == usize::MAX {
                    continue;
                }
                if u == usize::MAX {
                    outside[d] = true;
                } else if u != d {
                    edges[u].push(d);
                    named[d] = true;
                }
            }
        }
        let stays: Vec<bool> = (0..n).map(|i| !declares[i] || outside[i] || keep(items[i])).collect();
        for i in 0..n {
            if stays[i] || !named[i] {
                edges[source].push(i);
            }
            edges[i].sort_unstable();
            edges[i].dedup();
        }
        // Groups no root reaches (cycles): one element each, in list order.
        let mut reached = vec![false; n + 1];
        reach(&edges, source, &mut reached);
        for i in 0..n {
            if !reached[i] {
                edges[source].push(i);
                reach(&edges, i, &mut reached);
            }
        }
        let idom = dominators(&edges, source);
        // The dominator tree's children, then each head's subtree.
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for i in 0..n {
            children[idom[i]].push(i);
        }
        // Per element, the source's child whose subtree holds it.
        let mut top = vec![usize::MAX; n];
        for &h in &children[source] {
            let mut stack = vec![h];
            while let Some(m) = stack.pop() {
                top[m] = h;
                stack.extend(&children[m]);
            }
        }
        // A head goes with its unit only where every element naming it is in the unit (an
        // element the source reaches through other roots, such as a declaration two roots
        // name, is a child of the source too, but not one that may go alone).
        let mut closed = vec![true; n];
        for (u, vs) in edges.iter().enumerate().take(n) {
            for &v in vs {
                if top[v] == v && top[u] != v {
                    closed[v] = false;
                }
            }
        }
        let (mut heads, mut members) = (Vec::new(), Vec::new());
        for &h in &children[source] {
            if stays[h] || !closed[h] {
                continue;
            }
            let mut unit = Vec::new();
            let mut stack = children[h].clone();
            while let Some(m) = stack.pop() {
                unit.push(items[m]);
                stack.extend(&children[m]);
            }
            unit.sort_unstable();
            heads.push(items[h]);
            members.push(unit);
        }
        Units { heads, members }
    }

    /// The heads that may go, in list order.
    pub(crate) fn heads(&self) -> &[NodeId] {
        &self.heads
    }

    /// Per head, the number of elements its unit holds besides it.
    #[cfg(test)]
    pub(crate) fn members(&self) -> &[Vec<NodeId>] {
        &self.members
    }
}

impl Closure for Units {
    /// The other elements of each marked head's unit (`deleted`: one flag per head).
    fn close(&self, deleted: &mut [bool]) -> Vec<NodeId> {
        deleted.iter().zip(&self.members).filter(|(d, _)| **d).flat_map(|(_, m)| m.iter().copied()).collect()
    }

    /// A unit takes what only its head uses, never a user: its head alone goes validly too.
    fn takes_users(&self) -> bool {
        false
    }
}

/// Marks in `reached` every node reachable from `from` along `edges`.
fn reach(edges: &[Vec<usize>], from: usize, reached: &mut [bool]) {
    if std::mem::replace(&mut reached[from], true) {
        return;
    }
    let mut stack = vec![from];
    while let Some(u) = stack.pop() {
        for &v in &edges[u] {
            if !std::mem::replace(&mut reached[v], true) {
                stack.push(v);
            }
        }
    }
}

/// The immediate dominator of every node reachable from `root` (the root's own is itself;
/// an unreachable node's is `root`), by Cooper, Harvey and Kennedy's iteration over the
/// reverse postorder.
fn dominators(edges: &[Vec<usize>], root: usize) -> Vec<usize> {
    let n = edges.len();
    // Postorder by an explicit stack (lists of thousands of elements nest deeply).
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(root, 0usize)];
    seen[root] = true;
    while let Some((u, k)) = stack.pop() {
        if let Some(&v) = edges[u].get(k) {
            stack.push((u, k + 1));
            if !std::mem::replace(&mut seen[v], true) {
                stack.push((v, 0));
            }
        } else {
            order.push(u);
        }
    }
    let mut rank = vec![usize::MAX; n];
    for (r, &u) in order.iter().enumerate() {
        rank[u] = r;
    }
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (u, vs) in edges.iter().enumerate() {
        if rank[u] != usize::MAX {
            vs.iter().for_each(|&v| preds[v].push(u));
        }
    }
    const NONE: usize = usize::MAX;
    let mut idom = vec![NONE; n];
    idom[root] = root;
    let intersect = |idom: &[usize], mut a: usize, mut b: usize| {
        while a != b {
            while rank[a] < rank[b] {
                a = idom[a];
            }
            while rank[b] < rank[a] {
                b = idom[b];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for &u in order.iter().rev().filter(|&&u| u != root) {
            let mut new = NONE;
            for &p in &preds[u] {
                if idom[p] != NONE {
                    new = if new == NONE { p } else { intersect(&idom, p, new) };
                }
            }
            if new != NONE && idom[u] != new {
                idom[u] = new;
                changed = true;
            }
        }
    }
    idom.iter().map(|&d| if d == NONE { root } else { d }).collect()
}

#[cfg(test)]
mod tests {
    use super::dominators;

    #[test]
    fn a_node_reached_two_ways_is_dominated_by_where_they_meet() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3, 3 -> 4: 3 and 4 belong to neither 1 nor 2.
        let edges = vec![vec![1, 2], vec![3], vec![3], vec![4], vec![]];
        assert_eq!(dominators(&edges, 0), [0, 0, 0, 0, 3]);
    }

    #[test]
    fn a_cycle_below_one_node_is_that_node_s() {
        // 0 -> 1 -> 2 <-> 3: 2 and 3 go with 1.
        let edges = vec![vec![1], vec![2], vec![3], vec![2]];
        assert_eq!(dominators(&edges, 0), [0, 0, 1, 2]);
    }
}
