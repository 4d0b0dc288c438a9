//! Edit sets over a tree: the reduction state, the index a walk looks edits up by, and the
//! outermost of the nodes a set is to delete.

use crate::{NodeId, Tree};
use std::collections::BTreeMap;

/// An edit of one node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Edit {
    /// The node and its subtree disappear.
    Delete,
    /// The node is replaced by one of its descendants (which may itself be edited).
    Replace(NodeId),
    /// A token node's text becomes this text (renaming, literal canonicalization: T-Rec's
    /// lexical edits). It keeps its place, leading whitespace and count as one token; on a
    /// node that is not a token it has no effect.
    Text(String),
}

/// A reduction state: edits keyed by node, ordered so iteration is deterministic.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct EditSet(BTreeMap<NodeId, Edit>);

impl EditSet {
    /// A copy of this set with one more edit.
    pub fn with(&self, id: NodeId, e: Edit) -> EditSet {
        let mut s = self.clone();
        s.0.insert(id, e);
        s
    }

    /// Deletes each of `ids` too (replacing any edit they had). Many at once (a ddmin
    /// candidate over the tens of thousands of declarations of a preprocessed TU) are
    /// merged with the set in one sorted pass and the map built in bulk, linear in the
    /// set's size, rather than inserted one by one.
    pub fn delete(&mut self, ids: impl IntoIterator<Item = NodeId>) {
        /// Below this many, and below an eighth of the set, inserts are cheaper.
        const BULK: usize = 64;
        let mut added: Vec<NodeId> = ids.into_iter().collect();
        if added.len() < BULK || added.len() < self.0.len() / 8 {
            self.0.extend(added.into_iter().map(|id| (id, Edit::Delete)));
            return;
        }
        added.sort_unstable();
        added.dedup();
        let mut merged = Vec::with_capacity(self.0.len() + added.len());
        let mut added = added.into_iter().peekable();
        for (id, e) in std::mem::take(&mut self.0) {
            while let Some(n) = added.next_if(|&n| n < id) {
                merged.push((n, Edit::Delete));
            }
            let e = if added.next_if_eq(&id).is_some() { Edit::Delete } else { e };
            merged.push((id, e));
        }
        merged.extend(added.map(|n| (n, Edit::Delete)));
        // Already sorted and unique: `from_iter`'s sort finds one run, then builds in bulk.
        self.0 = merged.into_iter().collect();
    }

    /// Number of edits.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no edits.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Sets node `id`'s edit (replacing any it had).
    pub fn insert(&mut self, id: NodeId, e: Edit) {
        self.0.insert(id, e);
    }

    /// Node `id`'s edit, if it has one.
    pub fn get(&self, id: NodeId) -> Option<&Edit> {
        self.0.get(&id)
    }

    /// Whether node `id` has an edit.
    pub fn contains(&self, id: NodeId) -> bool {
        self.0.contains_key(&id)
    }

    /// The edited nodes, in id order.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.0.keys().copied()
    }

    /// Whether this set is `base` plus deletions of nodes `base` has no edit for (every
    /// edit of `base` kept as it is): a list minimizer's candidates over its state.
    pub fn deletes_beyond(&self, base: &EditSet) -> bool {
        self.deletions_beyond(base).is_some()
    }

    /// The nodes this set deletes beyond `base`, in id order, where it is `base` plus
    /// deletions ([`EditSet::deletes_beyond`]); `None` otherwise. One walk over both sets.
    pub(crate) fn deletions_beyond(&self, base: &EditSet) -> Option<Vec<NodeId>> {
        if self.0.len() < base.0.len() {
            return None;
        }
        let mut added = Vec::with_capacity(self.0.len() - base.0.len());
        let mut theirs = base.0.iter().peekable();
        for (id, e) in &self.0 {
            match theirs.peek() {
                Some(&(b, be)) if b == id => {
                    if be != e {
                        return None;
                    }
                    theirs.next();
                }
                Some(&(b, _)) if b < id => return None,
                _ if *e != Edit::Delete => return None,
                _ => added.push(*id),
            }
        }
        theirs.next().is_none().then_some(added)
    }
}

impl Tree {
    /// Of `nodes`, those no other of them contains (no proper ancestor among them), each
    /// once, in the order first given: the subtrees an edit set deletes when it deletes all
    /// of `nodes`, as splicing wants them. One flag byte per node of the tree; each ancestor
    /// chain is climbed once and its answer kept, so a call costs the nodes and their
    /// ancestors, not the nodes times their depth (a closure of tens of thousands of
    /// declarations and members in a preprocessed C++ file).
    pub fn outermost(&self, nodes: impl IntoIterator<Item = NodeId>) -> Vec<NodeId> {
        // Given; answered (for a node not given: whether it or an ancestor is given); that
        // answer; already in the output.
        const GIVEN: u8 = 1;
        const KNOWN: u8 = 2;
        const COVERED: u8 = 4;
        const OUT: u8 = 8;
        let nodes: Vec<NodeId> = nodes.into_iter().collect();
        let mut flags = vec![0u8; self.nodes.len()];
        for n in &nodes {
            flags[n.0 as usize] |= GIVEN;
        }
        let (mut out, mut path) = (Vec::new(), Vec::new());
        for &n in &nodes {
            if flags[n.0 as usize] & OUT != 0 {
                continue;
            }
            path.clear();
            let mut up = self.node(n).parent;
            let covered = loop {
                let Some(a) = up else { break false };
                let f = flags[a.0 as usize];
                if f & GIVEN != 0 {
                    break true;
                }
                if f & KNOWN != 0 {
                    break f & COVERED != 0;
                }
                path.push(a);
                up = self.node(a).parent;
            };
            for a in &path {
                flags[a.0 as usize] |= KNOWN | if covered { COVERED } else { 0 };
            }
            if !covered {
                flags[n.0 as usize] |= OUT;
                out.push(n);
            }
        }
        out
    }
}

impl Extend<(NodeId, Edit)> for EditSet {
    fn extend<I: IntoIterator<Item = (NodeId, Edit)>>(&mut self, edits: I) {
        self.0.extend(edits);
    }
}

/// An edit set looked up by node during a walk: a bit per node says which nodes have an
/// edit, so the walk over a large tree asks the ordered map only at edited nodes (the
/// reducer's states hold hundreds of deletions, and every node of every candidate is
/// visited).
pub(crate) struct EditIndex<'e> {
    edits: &'e EditSet,
    /// One bit per node id; empty when the set is small enough to ask the map directly.
    marked: Vec<u64>,
}

impl<'e> EditIndex<'e> {
    /// Below this many edits the map is asked directly.
    const SMALL: usize = 8;

    pub(crate) fn new(edits: &'e EditSet, nodes: usize) -> EditIndex<'e> {
        let mut marked = Vec::new();
        if edits.len() > Self::SMALL {
            marked = vec![0u64; nodes.div_ceil(64)];
            for id in edits.ids() {
                if let Some(word) = marked.get_mut(id.0 as usize / 64) {
                    *word |= 1 << (id.0 % 64);
                }
            }
        }
        EditIndex { edits, marked }
    }

    pub(crate) fn get(&self, id: NodeId) -> Option<&'e Edit> {
        if self.edits.is_empty() {
            return None;
        }
        if !self.marked.is_empty() && self.marked.get(id.0 as usize / 64).is_none_or(|w| w & (1 << (id.0 % 64)) == 0) {
            return None;
        }
        self.edits.get(id)
    }
}

/// One bit per node id (empty: no node set).
pub(crate) struct NodeBits(pub(crate) Vec<u64>);

impl NodeBits {
    pub(crate) fn contains(&self, id: NodeId) -> bool {
        self.0.get(id.0 as usize / 64).is_some_and(|w| w & (1 << (id.0 % 64)) != 0)
    }
}
