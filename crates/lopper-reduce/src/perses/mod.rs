//! The Perses reducer (Sun et al., ICSE 2018, Algorithm 2) over lopper's PNF trees.
//!
//! A max-heap of nodes keyed by token count (largest first; ties: smaller node id first)
//! starts with the root. A replacement that saves a node only a few of its tokens (a
//! wrapper such as `namespace std { … }` around a list) waits in the heap, keyed by what it
//! saves, until the deletions inside that are worth more are done (no priority inversion:
//! PARDiS, Gharachorlu & Sumner, FASE'19). Popping a node applies the transformation its
//! PNF kind allows: Kleene star and optional nodes get the empty list tried, then ddmin
//! over their children; Kleene plus nodes get ddmin keeping at least one child; regular
//! (and opaque) nodes get replaced by the smallest interesting compatible descendant found
//! by a bounded BFS (`reduceRegular`, Perses §4.3). The node's children (or its replacement) then join the
//! heap. In fixpoint mode the best program is re-parsed and reduced again until a round
//! removes nothing. Another search takes part in each round only through [`RoundHooks`].

mod bulk;

use crate::engine::{Deletion, Empty, Engine, FollowUp, Round};
use crate::oracle::OracleError;
use crate::passes::{Group, Kind, PassInfo};
use crate::stats::{LIST, REPLACE};
use lopper_grammar::{PnfGrammar, SymbolId};
use lopper_tree::{Edit, EditSet, NodeId, NodeKind, Tree};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Perses' own search in the pass registry.
pub const INFO: PassInfo = PassInfo {
    name: "perses",
    plain: "Perses' deletion and replacement",
    about: "Perses (Sun et al., ICSE 2018): ddmin over Kleene star/plus/optional children, replacement by subsumed descendants, to its fixpoint",
    group: Group::Main,
    grows: false,
    kind: Kind::Perses,
};

/// Chains shorter than this are replaced one level at a time, as Perses does (bisection
/// judges the same levels there, in another order).
const CHAIN_MIN: usize = 3;

/// A regular node's replacements wait behind its children only when one of them holds at
/// least this many tokens: the inversion PARDiS avoids is a test spent on a few tokens
/// before deletions worth far more (a wrapper such as `namespace std { … }` around most of
/// a preprocessed program); around a small child Perses' own order, replacements first,
/// costs fewer tests (measured on the corpus, the same tokens on all 15 cases: javac 271 →
/// 239 tests, ecj-cce −2, decltype +17, the rest within 1; a bound of 1,000 gave the same
/// javac and decltype and more tests on consteval; Perses alone ends decltype at 49 tokens
/// instead of 44, another local minimum).
const POSTPONE_MIN: u32 = 100;

/// What the round does with a node it takes from its heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Task {
    /// Reduce it by its kind.
    Reduce,
    /// Reduce it, its replacements waiting in the heap keyed by what the first of them
    /// saves (its children go first): what [`Engine::plan`] makes of `Reduce` then.
    Postpone(u32),
    /// Try its replacements, waited for (see `Postpone`).
    Replace,
}

/// The round's order: the largest first (tokens, or tokens saved for a waiting
/// replacement), ties: the smaller node id.
type Heap = BinaryHeap<(u32, Reverse<NodeId>, Task)>;

/// Candidates all known before any is judged, the pass they count for, and the task they
/// carry out.
type Candidates = (Vec<EditSet>, &'static str, Task);

/// How a node of the round's order is reduced.
enum Plan {
    /// Candidates all known before any is judged.
    Simple(Candidates),
    /// Replacement by the deepest interesting level of a chain of nested compatible nodes.
    Chain(Vec<NodeId>),
    /// ddmin over a list's elements.
    List,
}

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

    /// What each deletion of `items` (list `list`'s live elements of `tree`, whose live
    /// nodes are `live`) takes along: the items, and the statements elsewhere, that use
    /// what it deletes; `None` where none does.
    fn dependents(&self, tree: &Tree, live: &[bool], g: &PnfGrammar, list: NodeId, items: &[NodeId]) -> Option<Box<dyn crate::engine::Closure>>;

    /// Runs after the ddmin over `list` accepted a candidate, on the round's state.
    ///
    /// # Errors
    /// The judge's.
    fn after_list(&mut self, e: &mut Engine<'_>, r: &mut Round, list: NodeId) -> Result<(), OracleError>;
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
        let mut heap = Heap::new();
        let root = r.tree.root();
        heap.push((r.tree.node(root).tokens, Reverse(root), Task::Reduce));
        let mut streak = bulk::Streak::new();
        while let Some((_, Reverse(n), task)) = heap.pop() {
            if !r.live[n.0 as usize] {
                continue;
            }
            match self.plan(r, n, task) {
                Plan::Simple(first) => {
                    if streak.size > 1 {
                        if let Some(c) = first.0.first() {
                            if self.try_bulk(r, (n, first.2), c, &mut heap, &mut streak)? {
                                continue;
                            }
                        }
                    }
                    // Observed node by node, as a run with a lookahead of 1 sees them.
                    let (before, judged, won) = self.reduce_simple(r, (n, task), first, &mut heap)?;
                    streak.observe(before, false);
                    streak.observe(judged, won);
                    continue;
                }
                Plan::Chain(chain) => self.reduce_chain(r, n, &chain)?,
                Plan::List => {
                    self.j.set_pass(LIST);
                    let accepted = self.j.stats.accepted;
                    self.reduce_list(r, n, r.tree.node(n).kind != NodeKind::Plus, reborrow(&mut hooks))?;
                    if let Some(h) = reborrow(&mut hooks).filter(|_| self.j.stats.accepted > accepted) {
                        h.after_list(self, r, n)?;
                    }
                }
            }
            Self::push_after(r, (n, task), &mut heap);
        }
        Ok(())
    }

    /// What follows task `t` of node `n` in the round's order, under the round's state: its
    /// replacement if it was replaced, else its live children, and its postponed replacement
    /// (see [`Plan::Simple`]); nothing if it was deleted. A postponed replacement is
    /// followed by nothing: the node's children were queued when it was postponed.
    fn push_after(r: &Round, (n, t): (NodeId, Task), heap: &mut Heap) {
        let postponed = match t {
            Task::Replace => return,
            Task::Reduce => None,
            Task::Postpone(saves) => Some(saves),
        };
        match r.tree.effective(&r.state, n) {
            Some(d) if d != n => heap.push((r.tree.node(d).tokens, Reverse(d), Task::Reduce)),
            Some(_) => {
                if let Some(saves) = postponed {
                    heap.push((saves, Reverse(n), Task::Replace));
                }
                for &c in &r.tree.node(n).children {
                    if let Some(e) = r.tree.effective(&r.state, c) {
                        if r.tree.node(e).tokens > 0 {
                            heap.push((r.tree.node(e).tokens, Reverse(e), Task::Reduce));
                        }
                    }
                }
            }
            None => {}
        }
    }

    /// How node `n` is reduced ([`Plan`]): a token has no candidates; a regular node's
    /// are its replacements by compatible descendants (`reduceRegular`), or a bisection
    /// when they form a chain of at least [`CHAIN_MIN`] levels; a one-element star's or
    /// optional's is its removal; a longer list runs ddmin.
    ///
    /// A regular node's replacements wait (the plan is [`Task::Postpone`], with no
    /// candidates now) when the most the first of them saves is less than the size of one
    /// of the node's children, and that child holds at least [`POSTPONE_MIN`] tokens: those
    /// children go first.
    fn plan(&self, r: &Round, n: NodeId, task: Task) -> Plan {
        let node = r.tree.node(n);
        match node.kind {
            NodeKind::Token => Plan::Simple((Vec::new(), REPLACE, Task::Reduce)),
            NodeKind::Regular | NodeKind::Opaque => {
                let found = self.replacements(r, n);
                if task == Task::Reduce {
                    if let [only] = found[..] {
                        let chain = self.chain(r, n, only);
                        if chain.len() >= CHAIN_MIN {
                            return Plan::Chain(chain);
                        }
                    }
                    if let Some(&smallest) = found.first() {
                        let saves = node.tokens - r.tree.node(smallest).tokens;
                        let largest_child = node.children.iter().filter_map(|&c| r.tree.effective(&r.state, c)).map(|c| r.tree.node(c).tokens).max();
                        if largest_child.is_some_and(|c| saves < c && c >= POSTPONE_MIN) {
                            return Plan::Simple((Vec::new(), REPLACE, Task::Postpone(saves)));
                        }
                    }
                }
                Plan::Simple((found.into_iter().map(|d| r.state.with(n, Edit::Replace(d))).collect(), REPLACE, task))
            }
            NodeKind::Star | NodeKind::Optional | NodeKind::Plus => {
                let children: Vec<NodeId> = node.children.iter().copied().filter(|c| r.live[c.0 as usize]).collect();
                let may_empty = node.kind != NodeKind::Plus;
                match children.len() {
                    0 => Plan::Simple((Vec::new(), LIST, Task::Reduce)),
                    1 if !may_empty => Plan::Simple((Vec::new(), LIST, Task::Reduce)),
                    1 if self.separated_list_head(r, n, &children).is_none() => Plan::Simple((vec![r.state.with(n, Edit::Delete)], LIST, Task::Reduce)),
                    _ => Plan::List,
                }
            }
        }
    }

    /// Replaces regular node `n` by the deepest level of `chain` found interesting, by
    /// bisection ([`crate::minimize::bisect`]): `O(log depth)` tests where replacing one
    /// level at a time costs one test per level.
    fn reduce_chain(&mut self, r: &mut Round, n: NodeId, chain: &[NodeId]) -> Result<(), OracleError> {
        self.j.set_pass(REPLACE);
        // Every candidate replaces `n` in the state before the search (an accepted one
        // changes only `n`'s edit).
        let base = r.state.clone();
        let at = |level: usize| base.with(n, Edit::Replace(chain[level - 1]));
        let lookahead = self.opts.search.window;
        crate::minimize::bisect::deepest(chain.len(), lookahead, &mut |levels: &[Vec<usize>], next: &dyn Fn(usize) -> Vec<Vec<usize>>| {
            let batch = levels.iter().map(|l| at(l[0])).collect();
            let then = |_: &Tree, i: usize| next(i).iter().map(|l| at(l[0])).collect();
            self.try_batch(r, batch, &[], Some(&then))
        })?;
        Ok(())
    }

    /// The chain below regular node `n` whose one compatible descendant is `top`: `top`,
    /// then while the last level has exactly one compatible descendant (for `n`'s slot), that
    /// one; top level first.
    fn chain(&self, r: &Round, n: NodeId, top: NodeId) -> Vec<NodeId> {
        let Some((expected, list_element)) = self.expected(r, n) else { return Vec::new() };
        let mut chain = vec![top];
        loop {
            let last = chain[chain.len() - 1];
            match self.first_compatible(r, last, expected, list_element)[..] {
                [one] => chain.push(one),
                _ => return chain,
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
    ///
    /// Returns how many candidates were judged before the last node judged (all failed),
    /// how many of that node's, and whether its last was interesting: what a sequential
    /// run observes node by node, whatever the lookahead.
    fn reduce_simple(&mut self, r: &mut Round, n: (NodeId, Task), first: Candidates, heap: &mut Heap) -> Result<(usize, usize, bool), OracleError> {
        let lookahead = self.opts.search.window.max(1);
        let n = (n.0, first.2);
        // Per node of the group: the node and its task, and the heap right after it was
        // taken (`None` for `n`: that is `heap` itself, untouched while `ahead` looks
        // further).
        let mut group: Vec<((NodeId, Task), Option<Heap>)> = vec![(n, None)];
        let mut stream: VecDeque<(usize, EditSet, &'static str)> = first.0.into_iter().map(|e| (0, e, first.1)).collect();
        // The order past the group, as if every candidate failed: built on first need.
        let mut ahead: Option<Heap> = None;
        let mut grows = true;
        // Judged so far, per node of the group.
        let mut judged: Vec<usize> = vec![0];
        loop {
            while grows && !stream.is_empty() && stream.len() < lookahead {
                let next = ahead.get_or_insert_with(|| {
                    let mut a = heap.clone();
                    Self::push_after(r, n, &mut a);
                    a
                });
                let Some((size, Reverse(m), task)) = next.pop() else { break };
                if !r.live[m.0 as usize] {
                    continue;
                }
                let Plan::Simple((cands, pass, task)) = self.plan(r, m, task) else {
                    next.push((size, Reverse(m), task));
                    grows = false;
                    break;
                };
                if !cands.is_empty() {
                    group.push(((m, task), Some(next.clone())));
                    judged.push(0);
                    stream.extend(cands.into_iter().map(|e| (group.len() - 1, e, pass)));
                }
                Self::push_after(r, (m, task), next);
            }
            if stream.is_empty() {
                match ahead {
                    Some(a) => *heap = a,
                    None => Self::push_after(r, n, heap),
                }
                let last = judged.iter().rposition(|&j| j > 0).unwrap_or(0);
                return Ok((judged[..last].iter().sum(), judged[last], false));
            }
            let window: Vec<(usize, EditSet, &'static str)> = stream.drain(..stream.len().min(lookahead)).collect();
            let passes: Vec<&'static str> = window.iter().map(|w| w.2).collect();
            let owners: Vec<usize> = window.iter().map(|w| w.0).collect();
            let size = window.len();
            let winner = self.try_batch(r, window.into_iter().map(|w| w.1).collect(), &passes, None)?;
            // A sequential run judges up to the winner, not the window past it.
            for &o in &owners[..winner.map_or(size, |i| i + 1)] {
                judged[o] += 1;
            }
            if let Some(i) = winner {
                let (m, taken) = group.swap_remove(owners[i]);
                if let Some(taken) = taken {
                    *heap = taken;
                }
                Self::push_after(r, m, heap);
                return Ok((judged[..owners[i]].iter().sum(), judged[owners[i]], true));
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
        let hooks = hooks.filter(|_| may_empty && head.is_none() && children.len() > 1);
        // With the unused search: deletions take their uses along, where names are
        // resolved before the program runs.
        let dependents = hooks.as_ref().filter(|_| self.static_names()).and_then(|h| h.dependents(&r.tree, &r.live, g, n, &children));
        let mut follow = hooks.map(|h| h.follow_up(g, &children, &base));
        let deletion = Deletion {
            items: children.clone(),
            head,
            empty,
            done: None,
            follow: follow.as_mut().map(|f| &mut **f as &mut dyn FollowUp),
            minimizer: None,
            dependents: dependents.as_deref(),
        };
        self.ddmin_delete(r, deletion).map(drop)
    }

    /// Whether the language resolves names before the program runs (C, C++, Java, Rust,
    /// Go), so that a deletion leaving a use of what it deleted fails at compile time.
    fn static_names(&self) -> bool {
        matches!(self.frontend.name(), "c" | "cpp" | "java" | "rust" | "go")
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
        let Some((expected, list_element)) = self.expected(r, n) else { return Vec::new() };
        let mut found = self.first_compatible(r, n, expected, list_element);
        found.sort_by_key(|&d| (r.tree.node(d).tokens, d));
        found.truncate(self.opts.search.max_replacements);
        found
    }

    /// What may replace node `n`: the symbol its position expects, and the element symbol
    /// of the list it is an element of (see [`Self::compatible`]); `None` for a node
    /// without a symbol.
    fn expected(&self, r: &Round, n: NodeId) -> Option<(SymbolId, Option<SymbolId>)> {
        let node = r.tree.node(n);
        Some((node.slot.or(node.symbol)?, self.list_element_of_parent(&r.tree, n)))
    }

    /// The live descendants of `n` that may stand where `expected` is expected (see
    /// [`Self::compatible`]) and are smaller than `n`, the first on each path of a BFS
    /// bounded by the search's depth, in BFS order.
    fn first_compatible(&self, r: &Round, n: NodeId, expected: SymbolId, list_element: Option<SymbolId>) -> Vec<NodeId> {
        let node = r.tree.node(n);
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
