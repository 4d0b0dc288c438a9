//! The Perses reducer (Sun et al., ICSE 2018, Algorithm 2) over lopper's PNF trees.
//!
//! A max-heap of nodes keyed by token count (largest first; ties: smaller node id first)
//! starts with the root. Popping a node applies the transformation its PNF kind allows:
//! Kleene star and optional nodes get the empty list tried, then ddmin over their children;
//! Kleene plus nodes get ddmin keeping at least one child; regular (and opaque) nodes get
//! replaced by the smallest interesting compatible descendant found by a bounded BFS
//! (`reduceRegular`, Perses §4.3). The node's children (or its replacement) then join the
//! heap. In fixpoint mode the best program is re-parsed and reduced again until a round
//! removes nothing. Another search takes part in each round only through [`RoundHooks`].

use crate::engine::{Deletion, Empty, Engine, FollowUp, Round, LIST, REPLACE};
use crate::oracle::OracleError;
use crate::passes::{Group, Kind, PassInfo};
use lopper_grammar::{PnfGrammar, SymbolId};
use lopper_tree::{Edit, EditSet, NodeId, NodeKind, Tree};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Perses' own search in the pass registry.
pub const INFO: PassInfo = PassInfo {
    name: "perses",
    about: "Perses (Sun et al., ICSE 2018): ddmin over Kleene star/plus/optional children, replacement by subsumed descendants, to its fixpoint",
    group: Group::Main,
    grows: false,
    kind: Kind::Perses,
};

/// What another search adds to Perses' rounds (the unused-declarations search): work at the
/// start of each round, and a follow-up of each interesting deletion of a list's ddmin.
pub(crate) trait RoundHooks {
    /// Runs at the start of each round, before Algorithm 2, on the round's state.
    ///
    /// # Errors
    /// The judge's.
    fn round_start(&mut self, e: &mut Engine<'_>, r: &mut Round) -> Result<(), OracleError>;

    /// The follow-ups of a ddmin over `items` (a list's live elements, deleted one by one)
    /// from the round's state `base`.
    fn follow_up<'s>(&self, g: &'s PnfGrammar, items: &'s [NodeId], base: &'s EditSet) -> Box<dyn FollowUp + 's>;
}

/// `hooks`, reborrowed for one call.
pub(crate) fn reborrow<'s>(hooks: &'s mut Option<&mut dyn RoundHooks>) -> Option<&'s mut dyn RoundHooks> {
    hooks.as_mut().map(|h| &mut **h as &mut dyn RoundHooks)
}

impl Engine<'_> {
    /// Perses rounds from `tree` until one removes nothing (or one round without fixpoint
    /// mode). Returns the tree of the best program, `None` if it no longer parses.
    /// `hooks`: another search's part in each round (the unused search).
    pub(crate) fn perses_rounds(&mut self, mut tree: Tree, mut hooks: Option<&mut dyn RoundHooks>) -> Result<Option<Tree>, OracleError> {
        loop {
            self.j.new_round();
            let mut round = Round::new(tree);
            if let Some(h) = reborrow(&mut hooks) {
                h.round_start(self, &mut round)?;
            }
            self.round(&mut round, reborrow(&mut hooks))?;
            if !round.progress {
                return Ok(Some(round.tree));
            }
            let Some(t) = self.parse_best() else { return Ok(None) };
            if !self.opts.fixpoint {
                return Ok(Some(t));
            }
            tree = t;
        }
    }

    /// One Perses round: nodes in order of size (largest first, Perses §4.3, Algorithm 1),
    /// each reduced by its kind. Nodes whose candidates are known before any of them is
    /// judged (replacements, a one-element list's removal) share lookahead windows with the
    /// nodes after them (see [`Self::reduce_simple`]); a list of several elements runs
    /// ddmin.
    fn round(&mut self, r: &mut Round, mut hooks: Option<&mut dyn RoundHooks>) -> Result<(), OracleError> {
        let mut heap = BinaryHeap::new();
        let root = r.tree.root();
        heap.push((r.tree.node(root).tokens, Reverse(root)));
        while let Some((_, Reverse(n))) = heap.pop() {
            if !r.live[n.0 as usize] {
                continue;
            }
            if let Some(first) = self.simple_candidates(r, n) {
                self.reduce_simple(r, n, first, &mut heap)?;
                continue;
            }
            self.j.set_pass(LIST);
            self.reduce_list(r, n, r.tree.node(n).kind != NodeKind::Plus, reborrow(&mut hooks))?;
            Self::push_after(r, n, &mut heap);
        }
        Ok(())
    }

    /// What follows node `n` in the round's order, under the round's state: its replacement
    /// if it was replaced, else its live children; nothing if it was deleted.
    fn push_after(r: &Round, n: NodeId, heap: &mut BinaryHeap<(u32, Reverse<NodeId>)>) {
        match r.tree.effective(&r.state, n) {
            Some(d) if d != n => heap.push((r.tree.node(d).tokens, Reverse(d))),
            Some(_) => {
                for &c in &r.tree.node(n).children {
                    if let Some(e) = r.tree.effective(&r.state, c) {
                        if r.tree.node(e).tokens > 0 {
                            heap.push((r.tree.node(e).tokens, Reverse(e)));
                        }
                    }
                }
            }
            None => {}
        }
    }

    /// The candidates of node `n`, with the pass they count for, when they are all known
    /// before any is judged: a token's none, a regular node's replacements by compatible
    /// descendants (`reduceRegular`), a one-element star's or optional's removal. `None` for
    /// a list that runs ddmin.
    fn simple_candidates(&self, r: &Round, n: NodeId) -> Option<(Vec<EditSet>, &'static str)> {
        let kind = r.tree.node(n).kind;
        match kind {
            NodeKind::Token => Some((Vec::new(), REPLACE)),
            NodeKind::Regular | NodeKind::Opaque => Some((self.replacements(r, n).into_iter().map(|d| r.state.with(n, Edit::Replace(d))).collect(), REPLACE)),
            NodeKind::Star | NodeKind::Optional | NodeKind::Plus => {
                let children: Vec<NodeId> = r.tree.node(n).children.iter().copied().filter(|c| r.live[c.0 as usize]).collect();
                let may_empty = kind != NodeKind::Plus;
                match children.len() {
                    0 => Some((Vec::new(), LIST)),
                    1 if !may_empty => Some((Vec::new(), LIST)),
                    1 if self.separated_list_head(r, n, &children).is_none() => Some((vec![r.state.with(n, Edit::Delete)], LIST)),
                    _ => None,
                }
            }
        }
    }

    /// Reduces node `n` (just taken from `heap`), whose candidates `first` are known, and
    /// while a lookahead window is not full, the next nodes of the round's order that are
    /// like it: the order goes on as if every candidate failed (the state does not change
    /// then), so the windows hold exactly the candidates a sequential run judges, in its
    /// order. On an interesting candidate the heap goes back to where its node was taken
    /// and the round goes on from there with the new state. The heap is copied only to
    /// look ahead (never with a lookahead of 1), once per node that has candidates.
    fn reduce_simple(
        &mut self,
        r: &mut Round,
        n: NodeId,
        first: (Vec<EditSet>, &'static str),
        heap: &mut BinaryHeap<(u32, Reverse<NodeId>)>,
    ) -> Result<(), OracleError> {
        type Heap = BinaryHeap<(u32, Reverse<NodeId>)>;
        let lookahead = self.opts.search.window.max(1);
        // Per node of the group: the node, and the heap right after it was taken (`None`
        // for `n`: that is `heap` itself, untouched while `ahead` looks further).
        let mut group: Vec<(NodeId, Option<Heap>)> = vec![(n, None)];
        let mut stream: VecDeque<(usize, EditSet, &'static str)> = first.0.into_iter().map(|e| (0, e, first.1)).collect();
        // The order past the group, as if every candidate failed: built on first need.
        let mut ahead: Option<Heap> = None;
        let mut grows = true;
        loop {
            while grows && !stream.is_empty() && stream.len() < lookahead {
                let next = ahead.get_or_insert_with(|| {
                    let mut a = heap.clone();
                    Self::push_after(r, n, &mut a);
                    a
                });
                let Some((size, Reverse(m))) = next.pop() else { break };
                if !r.live[m.0 as usize] {
                    continue;
                }
                let Some((cands, pass)) = self.simple_candidates(r, m) else {
                    next.push((size, Reverse(m)));
                    grows = false;
                    break;
                };
                if !cands.is_empty() {
                    group.push((m, Some(next.clone())));
                    stream.extend(cands.into_iter().map(|e| (group.len() - 1, e, pass)));
                }
                Self::push_after(r, m, next);
            }
            if stream.is_empty() {
                match ahead {
                    Some(a) => *heap = a,
                    None => Self::push_after(r, n, heap),
                }
                return Ok(());
            }
            let window: Vec<(usize, EditSet, &'static str)> = stream.drain(..stream.len().min(lookahead)).collect();
            let passes: Vec<&'static str> = window.iter().map(|w| w.2).collect();
            let owners: Vec<usize> = window.iter().map(|w| w.0).collect();
            if let Some(i) = self.try_batch(r, window.into_iter().map(|w| w.1).collect(), &passes, None)? {
                let (m, taken) = group.swap_remove(owners[i]);
                if let Some(taken) = taken {
                    *heap = taken;
                }
                Self::push_after(r, m, heap);
                return Ok(());
            }
        }
    }

    /// `reduceStar` / `reducePlus` / optional: the empty list first (unless plus), then
    /// ddmin over the children.
    ///
    /// A star that follows the head of a separated list (`x ("," x)*`, the PNF of every
    /// comma list) is minimized together with that head: when the head goes, the first kept
    /// element is replaced by its `x`, dropping its separator. Plain PNF cannot delete the
    /// first argument of a call; this can, and every such candidate is still grammatical.
    ///
    /// With `hooks`, a list whose elements are deleted one by one (no head) gets their
    /// follow-ups ([`RoundHooks::follow_up`]).
    fn reduce_list(&mut self, r: &mut Round, n: NodeId, may_empty: bool, hooks: Option<&mut dyn RoundHooks>) -> Result<(), OracleError> {
        let children: Vec<NodeId> = r.tree.node(n).children.iter().copied().filter(|c| r.live[c.0 as usize]).collect();
        if children.is_empty() {
            return Ok(());
        }
        let head = if may_empty { self.separated_list_head(r, n, &children) } else { None };
        let empty = if may_empty { Empty::DeleteList(n) } else { Empty::Never };
        let base = r.state.clone();
        let g = self.g;
        let mut follow = hooks.filter(|_| may_empty && head.is_none() && children.len() > 1).map(|h| h.follow_up(g, &children, &base));
        let deletion = Deletion { items: children.clone(), head, empty, done: None, follow: follow.as_mut().map(|f| &mut **f as &mut dyn FollowUp) };
        self.ddmin_delete(r, deletion).map(drop)
    }

    /// For a star `n` whose elements are all `sep x` pairs and whose left sibling is a live,
    /// unedited `x` of the same slot, that sibling (the head of the separated list).
    fn separated_list_head(&self, r: &Round, n: NodeId, elements: &[NodeId]) -> Option<NodeId> {
        let t = &r.tree;
        let parent = t.node(t.node(n).parent?);
        if parent.kind != NodeKind::Regular {
            return None;
        }
        let i = parent.children.iter().position(|&c| c == n)?;
        let h = *parent.children.get(i.checked_sub(1)?)?;
        if !r.live[h.0 as usize] || r.state.contains(h) {
            return None;
        }
        let slot = t.node(h).slot?;
        let pair_ok = |e: NodeId| {
            let en = t.node(e);
            en.kind == NodeKind::Regular
                && en.children.len() == 2
                && t.node(en.children[0]).kind == NodeKind::Token
                && !r.state.contains(en.children[1])
                && t.node(en.children[1]).symbol.is_some_and(|s| self.g.subsumes(slot, s))
        };
        elements.iter().all(|&e| pair_ok(e)).then_some(h)
    }

    /// `reduceRegular`'s candidates: the node's compatible descendants (smallest first, at
    /// most `max_replacements`), each of which may replace it.
    fn replacements(&self, r: &Round, n: NodeId) -> Vec<NodeId> {
        let node = r.tree.node(n);
        let Some(expected) = node.slot.or(node.symbol) else { return Vec::new() };
        let list_element = self.list_element_of_parent(&r.tree, n);
        let mut found: Vec<NodeId> = Vec::new();
        let mut queue: VecDeque<(NodeId, usize)> = node.children.iter().map(|&c| (c, 1)).collect();
        while let Some((d, depth)) = queue.pop_front() {
            if !r.live[d.0 as usize] {
                continue;
            }
            let dn = r.tree.node(d);
            if dn.tokens < node.tokens && dn.tokens > 0 && self.compatible(&r.tree, d, expected, list_element) {
                found.push(d);
                continue;
            }
            // A list or optional node is PNF bookkeeping, not a level of the language: going
            // through one does not use up the depth bound.
            if matches!(dn.kind, NodeKind::Star | NodeKind::Plus | NodeKind::Optional) {
                queue.extend(dn.children.iter().map(|&c| (c, depth)));
            } else if depth < self.opts.search.bfs_depth {
                queue.extend(dn.children.iter().map(|&c| (c, depth + 1)));
            }
        }
        found.sort_by_key(|&d| (r.tree.node(d).tokens, d));
        found.truncate(self.opts.search.max_replacements);
        found
    }

    /// If `n` is an element of a star/plus list, that list's element symbol.
    fn list_element_of_parent(&self, t: &Tree, n: NodeId) -> Option<SymbolId> {
        let p = t.node(t.node(n).parent?);
        if !matches!(p.kind, NodeKind::Star | NodeKind::Plus) {
            return None;
        }
        self.g.symbol(p.symbol?).rule.element()
    }

    /// Whether descendant `d` may stand where `expected` is expected: its symbol is
    /// subsumed, or (for a list element) it is a list whose elements are subsumed by the
    /// element symbol, so its elements splice into the parent list.
    fn compatible(&self, t: &Tree, d: NodeId, expected: SymbolId, list_element: Option<SymbolId>) -> bool {
        let dn = t.node(d);
        let Some(sym) = dn.symbol else { return false };
        if self.g.subsumes(expected, sym) {
            return true;
        }
        if let (Some(el), NodeKind::Star | NodeKind::Plus | NodeKind::Optional) = (list_element, dn.kind) {
            if let Some(inner) = self.g.symbol(sym).rule.element() {
                return self.g.subsumes(el, inner);
            }
        }
        false
    }
}
