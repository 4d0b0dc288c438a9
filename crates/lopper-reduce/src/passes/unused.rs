//! Unused declarations, removed together (what C-Vise's `remove-unused-function` and
//! `remove-unused-var` do for C, without the language): in a list, the elements that declare
//! a name nothing else uses can all go at once, and deleting any subset of them leaves every
//! remaining use of a name with its declaration. So a list minimizer over just those
//! elements fails only where an element is needed by the test itself, not where a deletion
//! broke a reference: where Perses' ddmin over a translation unit needs one accepted test
//! per unused typedef it cannot delete together with its neighbours, this needs a few per
//! level of the declarations' dependency chain (the reducer's search,
//! `perses/unused.rs`, runs it at the start of each Perses round, and its follow-up
//! inside Perses' ddmin deletes what each interesting deletion left unused).
//!
//! Without a symbol table, a name's *declaration* is taken to be the list element holding
//! its first occurrence (true of C, where a name is declared before use; elsewhere a wrong
//! guess costs a failed test, never a wrong result). An element is *unreferenced* when it
//! declares at least one name this way and every occurrence of each such name lies inside
//! it. Names are the grammar's identifier tokens (as in [`super::identifiers`]).

use lopper_grammar::PnfGrammar;
use lopper_tree::{EditSet, NodeId, NodeKind, Tree};
// foldhash: a map of every live identifier is built for each state the search looks at.
use foldhash::{HashMap, HashMapExt};
use std::ops::Range;

/// The search's name in `--passes`, and its source.
pub const UNUSED: (&str, &str) = (
    "unused",
    "unused declarations: ddmin over the list elements that declare a name used nowhere else, which can go in any combination (C-Vise's remove-unused-function/-var, without the language); at the start of each Perses round, and after each interesting deletion of Perses' ddmin what it left unused",
);

/// Where each live identifier of a program occurs: built once per state of the edits.
pub struct Names<'t> {
    tree: &'t Tree,
    /// Per name: its live occurrences, and the token position of the first.
    names: HashMap<&'t str, (u32, usize)>,
    /// Per token position: whether that token is a live identifier.
    identifier: Vec<bool>,
}

impl<'t> Names<'t> {
    /// The live identifiers of `tree` (`live`: one flag per node, as [`Tree::live`] gives).
    pub fn new(tree: &'t Tree, live: &[bool], g: &PnfGrammar) -> Names<'t> {
        let mut names: HashMap<&str, (u32, usize)> = HashMap::new();
        let mut identifier = vec![false; tree.token_count()];
        for (pos, &id) in tree.token_ids().iter().enumerate() {
            if !live[id.0 as usize] || !tree.node(id).symbol.is_some_and(|s| g.is_identifier(s)) {
                continue;
            }
            identifier[pos] = true;
            names.entry(tree.token_text(id)).or_insert((0, pos)).0 += 1;
        }
        Names { tree, names, identifier }
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

    /// Node `e`'s tokens with their positions in [`Tree::token_ids`] (a subtree's tokens
    /// are contiguous); `None` for a node without tokens.
    fn positions(&self, e: NodeId) -> Option<(Range<usize>, &'t [NodeId])> {
        let ids = self.tree.subtree_token_ids(e);
        let start = self.tree.token_position(*ids.first()?)?;
        Some((start..start + ids.len(), ids))
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

/// The Kleene star and plus nodes of `tree` under `edits` with at least two children, in
/// pre-order: the lists the search visits, outer ones first.
pub fn lists(tree: &Tree, edits: &EditSet) -> Vec<NodeId> {
    let mut found = Vec::new();
    tree.walk(edits, |n| {
        let node = tree.node(n);
        if matches!(node.kind, NodeKind::Star | NodeKind::Plus) && node.children.len() > 1 {
            found.push(n);
        }
        node.kind != NodeKind::Token
    });
    found
}
