//! The search of [`passes::unused`]: at the start of a Perses round, each list's unused
//! declarations are minimized together, again while that frees more.

use super::{Empty, Reducer, Round};
use crate::oracle::OracleError;
use crate::passes::{self, unused::Names};
use lopper_grammar::PnfGrammar;
use lopper_tree::{EditSet, NodeId, Tree};
use std::cell::OnceCell;
use std::collections::HashSet;

/// The search runs on a list only when what it may delete holds at least 1/`MIN_SHARE` of
/// the list's tokens (measured on the corpus: 8 was best of 4, 8 and none).
const MIN_SHARE: usize = 8;

/// Nor when it may delete fewer than `MIN_TOKENS` tokens: a small inner list often goes
/// whole in Perses' ddmin over the list around it, and an accepted test costs as much
/// whatever it removes (measured on the C corpus cases: 16 saved 1–13 tests against none).
const MIN_TOKENS: usize = 16;

impl Reducer<'_> {
    /// The search at the start of a Perses round: [`Self::remove_unused`] on every list
    /// of the round's tree with two children or more, outer lists first. The lists where
    /// it would stop at once are skipped with one name table per state, not one per list:
    /// a table covers the whole program, so one per list made the scan quadratic
    /// (measured: 5.8 s of a 205k-token input's 8.0 s, 177 s at 1M tokens).
    pub(super) fn remove_unused_all(&mut self, r: &mut Round) -> Result<(), OracleError> {
        self.j.set_pass(passes::unused::UNUSED.0);
        let lists = passes::unused::lists(&r.tree, &r.state);
        let mut i = 0;
        while i < lists.len() {
            let found = {
                let names = Names::new(&r.tree, &r.live, self.g);
                lists[i..].iter().position(|&l| Step::of(&names, &self.pinned, &r.tree, &r.live, l, 2).is_some())
            };
            let Some(k) = found else { break };
            self.remove_unused(r, lists[i + k], &lists[i + k + 1..])?;
            i += k + 1;
        }
        Ok(())
    }

    /// The search on `list`, a list of the round's tree (the round's start visits every
    /// list with two children or more, outer lists first): ddmin over its unreferenced
    /// elements (see [`passes::unused`]) when there are at least two holding at least
    /// 1/[`MIN_SHARE`] of the list's tokens, deleting all of them the first candidate; then,
    /// as long as that deleted some, again over the elements the deletions left
    /// unreferenced, even one. An element ddmin kept is needed by the test itself: the
    /// name it declares first is pinned, for the rest of the reduction. In a list with a
    /// pinned element, the first candidate deletes every element that only the unpinned
    /// others use ([`Names::dead`]: whole chains of declarations at once), and ddmin over
    /// the unreferenced elements runs only when that fails.
    ///
    /// `later`: the lists the round searches after this one, in order, so that a candidate
    /// that ends this list's search names the next list's first candidates as successors.
    fn remove_unused(&mut self, r: &mut Round, list: NodeId, later: &[NodeId]) -> Result<(), OracleError> {
        self.j.set_pass(passes::unused::UNUSED.0);
        // A list's first level needs two elements (one alone is Perses' to delete);
        // a level that deletions freed goes on from one.
        let mut least = 2;
        loop {
            let names = Names::new(&r.tree, &r.live, self.g);
            let Some(step) = Step::of(&names, &self.pinned, &r.tree, &r.live, list, least) else { break };
            least = 1;
            // What the search judges first from a state its candidate leads to: the
            // successors of a candidate that ends a level, or this list's search.
            let pinned = self.pinned.clone();
            let g = self.g;
            let next = move |tree: &Tree, state: &EditSet| {
                let live = tree.live(state);
                let names = Names::new(tree, &live, g);
                let step = Step::of(&names, &pinned, tree, &live, list, 1);
                let step = step.or_else(|| later.iter().find_map(|&l| Step::of(&names, &pinned, tree, &live, l, 2)));
                step.map_or_else(Vec::new, |s| s.first(state))
            };
            // Once what the test needs is pinned, all that only the rest uses goes in
            // one candidate first, a whole chain at once.
            if step.dead.len() > step.unreferenced.len() {
                let mut all = r.state.clone();
                all.delete(step.dead.iter().copied());
                let after = all.clone();
                if self.try_batch_then(r, vec![all], &[], &|tree, _| next(tree, &after))?.is_some() {
                    continue;
                }
            }
            let offered = step.unreferenced.len();
            let kept = self.ddmin_delete_then(r, step.unreferenced, None, Empty::DeleteItems, Some(&next))?;
            let names = Names::new(&r.tree, &r.live, self.g);
            self.pinned.extend(kept.iter().filter_map(|&e| names.declared(e, &r.live)).map(str::to_string));
            if kept.len() == offered {
                break;
            }
        }
        Ok(())
    }
}

/// One level of the search on a list: its unreferenced elements (none of them pinned),
/// and what only unpinned elements use ([`Names::dead`], when an element is pinned).
struct Step {
    unreferenced: Vec<NodeId>,
    dead: Vec<NodeId>,
}

impl Step {
    /// The level of `list` under `live` (`names`: its live identifiers); `None` when the
    /// search stops there: the list is gone, fewer than `least` elements are
    /// unreferenced, or what may go is under 1/[`MIN_SHARE`] of the list's tokens or
    /// under [`MIN_TOKENS`].
    fn of(names: &Names<'_>, pinned: &HashSet<String>, tree: &Tree, live: &[bool], list: NodeId, least: usize) -> Option<Step> {
        if !live[list.0 as usize] {
            return None;
        }
        let is_pinned = |e: NodeId| names.declared(e, live).is_some_and(|n| pinned.contains(n));
        let elements: Vec<NodeId> = tree.node(list).children.iter().copied().filter(|e| live[e.0 as usize]).collect();
        let unreferenced: Vec<NodeId> = elements.iter().copied().filter(|&e| names.unreferenced(e, live) && !is_pinned(e)).collect();
        if unreferenced.len() < least {
            return None;
        }
        let dead = if elements.iter().any(|&e| is_pinned(e)) { names.dead(&elements, &is_pinned, live) } else { Vec::new() };
        // A deletion that frees little of the list is left to Perses' ddmin: a passing
        // test costs as much whatever it removes.
        let size = |v: &[NodeId]| v.iter().map(|&e| tree.node(e).tokens as usize).sum::<usize>();
        let most = size(&unreferenced).max(size(&dead));
        (most * MIN_SHARE >= size(&elements) && most >= MIN_TOKENS).then_some(Step { unreferenced, dead })
    }

    /// The candidates this level judges first from `state`: the dead ones together (when
    /// more than the unreferenced), then every unreferenced one (ddmin's empty keep).
    fn first(&self, state: &EditSet) -> Vec<EditSet> {
        let with = |v: &[NodeId]| {
            let mut e = state.clone();
            e.delete(v.iter().copied());
            e
        };
        let mut out = Vec::new();
        if self.dead.len() > self.unreferenced.len() {
            out.push(with(&self.dead));
        }
        out.push(with(&self.unreferenced));
        out
    }
}

/// The search's follow-up inside Perses' ddmin over a list: after each interesting
/// deletion, the elements it left unused (the declarations only the deleted elements
/// used, chains included, [`Names::dead`]) go in one more candidate when there are at
/// least two of them, instead of one accepted test each later. Elements unreferenced
/// before the ddmin began (what the test itself may need) and those of a refused
/// follow-up are never offered again in this ddmin.
pub(super) struct Freed<'a> {
    on: bool,
    g: &'a PnfGrammar,
    /// The list's live elements, and the round's state, when the ddmin began.
    items: &'a [NodeId],
    base: &'a EditSet,
    /// What was unreferenced then (computed at first need: most ddmins delete nothing).
    unreferenced: OnceCell<HashSet<NodeId>>,
    /// The elements of refused follow-ups.
    refused: HashSet<NodeId>,
    /// What the follow-ups deleted: ddmin still counts these items kept.
    pub(super) gone: HashSet<NodeId>,
}

impl<'a> Freed<'a> {
    /// For a ddmin over `items`, a list's live elements under the round's state `base`;
    /// `on`: whether follow-ups run (the unused search runs, and the list's elements are
    /// deleted one by one, not with a separated list's head).
    pub(super) fn new(g: &'a PnfGrammar, on: bool, items: &'a [NodeId], base: &'a EditSet) -> Freed<'a> {
        Freed { on, g, items, base, unreferenced: OnceCell::new(), refused: HashSet::new(), gone: HashSet::new() }
    }

    /// The follow-up of `state` (a state of this ddmin's tree, `live` its live nodes):
    /// `state` with the elements it leaves unused deleted too, and those elements; `None`
    /// when fewer than two.
    pub(super) fn after(&self, tree: &Tree, state: &EditSet, live: &[bool]) -> Option<(EditSet, Vec<NodeId>)> {
        if !self.on {
            return None;
        }
        let protect = self.unreferenced.get_or_init(|| {
            let live = tree.live(self.base);
            let names = Names::new(tree, &live, self.g);
            self.items.iter().copied().filter(|&e| names.unreferenced(e, &live)).collect()
        });
        let names = Names::new(tree, live, self.g);
        let rest: Vec<NodeId> = self.items.iter().copied().filter(|e| live[e.0 as usize]).collect();
        let dead = names.dead(&rest, &|e| protect.contains(&e) || self.refused.contains(&e), live);
        (dead.len() >= 2).then(|| {
            let mut all = state.clone();
            all.delete(dead.iter().copied());
            (all, dead)
        })
    }

    /// After an interesting candidate of the ddmin: one candidate deleting what it left
    /// unused ([`Freed::after`]), counted for the unused search.
    pub(super) fn follow_up(&mut self, red: &mut Reducer<'_>, r: &mut Round) -> Result<(), OracleError> {
        let Some((all, dead)) = self.after(&r.tree, &r.state, &r.live) else { return Ok(()) };
        let pass = red.j.stats.pass.clone();
        red.j.set_pass(passes::unused::UNUSED.0);
        let accepted = red.try_batch(r, vec![all])?.is_some();
        red.j.set_pass(&pass);
        if accepted {
            self.gone.extend(dead);
        } else {
            self.refused.extend(dead);
        }
        Ok(())
    }
}
