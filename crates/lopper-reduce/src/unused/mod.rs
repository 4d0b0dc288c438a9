//! Unused declarations, removed together (what C-Vise's `remove-unused-function` and
//! `remove-unused-var` do for C, without the language): in a list, the elements that declare
//! a name nothing else uses can all go at once, and deleting any subset of them leaves every
//! remaining use of a name with its declaration. So a list minimizer over just those
//! elements fails only where an element is needed by the test itself, not where a deletion
//! broke a reference: where Perses' ddmin over a translation unit needs one accepted test
//! per unused typedef it cannot delete together with its neighbours, this needs a few per
//! level of the declarations' dependency chain. The search runs at the start of each Perses
//! round, and its follow-up inside Perses' ddmin deletes what each interesting deletion
//! left unused: both plug into Perses through [`RoundHooks`]. Where tests pass it takes
//! bigger steps (issue 32, point 3): when the outermost list lost its whole first level,
//! the levels of all the others as one candidate, until that fails once; and in a list
//! whose level went whole, all its later levels at once.
//!
//! Without a symbol table, a name's *declaration* is taken to be the list element holding
//! its first occurrence (true of C, where a name is declared before use; elsewhere a wrong
//! guess costs a failed test, never a wrong result). An element is *unreferenced* when it
//! declares at least one name this way and every occurrence of each such name lies inside
//! it. Names are the grammar's identifier tokens (as in [`crate::passes::identifiers`]).

use crate::engine::{Deletion, Empty, Engine, FollowUp, Round};
use crate::graph::{Names, Units};
use crate::oracle::OracleError;
use crate::passes::{Group, Kind, PassInfo};
use crate::perses::RoundHooks;
use crate::symbols::in_body;
use lopper_grammar::PnfGrammar;
use lopper_tree::{EditSet, NodeId, NodeKind, Tree};
use std::cell::OnceCell;
use std::collections::HashSet;

mod dependents;
pub(crate) use dependents::{Dependents, DEPENDENTS_MIN_ITEMS};

/// The search in the registry (its place in `--passes` does not matter: it is part of
/// each Perses round).
pub const INFO: PassInfo = PassInfo {
    name: "unused",
    plain: "removing unused declarations",
    about: "unused declarations: ddmin over the list elements that declare a name used nowhere else, which can go in any combination (C-Vise's remove-unused-function/-var, without the language); at the start of each Perses round, and after each interesting deletion of Perses' ddmin what it left unused",
    group: Group::Main,
    grows: false,
    kind: Kind::Unused,
};

/// The search runs on a list only when what it may delete holds at least 1/`MIN_SHARE` of
/// the list's tokens (measured on the corpus: 8 was best of 4, 8 and none).
const MIN_SHARE: usize = 8;

/// Nor when it may delete fewer than `MIN_TOKENS` tokens: a small inner list often goes
/// whole in Perses' ddmin over the list around it, and an accepted test costs as much
/// whatever it removes (measured on the C corpus cases: 16 saved 1–13 tests against none).
const MIN_TOKENS: usize = 16;

/// The search's state across the rounds of a reduction.
#[derive(Debug, Default)]
pub(crate) struct UnusedSearch {
    /// The names declared by list elements the search found needed (by the test itself).
    pinned: HashSet<String>,
    /// Whether every list's levels at once ([`UnusedSearch::together`]) failed once: it is
    /// not tried again.
    together_refused: bool,
    /// The groups of files ([`Engine::file_groups`]) tried so far, by their paths.
    file_groups_tried: HashSet<Vec<String>>,
}

impl RoundHooks for UnusedSearch {
    fn round_start(&mut self, e: &mut Engine<'_>, r: &mut Round) -> Result<(), OracleError> {
        e.file_groups(r, &mut self.file_groups_tried)?;
        self.remove_unused_all(e, r)
    }

    fn follow_up<'s>(&self, g: &'s PnfGrammar, items: &'s [NodeId], base: &'s EditSet) -> Box<dyn FollowUp + 's> {
        Box::new(Freed::new(g, items, base))
    }

    fn dependents(&self, tree: &Tree, live: &[bool], g: &PnfGrammar, list: NodeId, items: &[NodeId]) -> Option<Box<dyn crate::engine::Closure>> {
        if items.len() < DEPENDENTS_MIN_ITEMS {
            return None;
        }
        Dependents::new(tree, live, g, list, items).map(|d| Box::new(d) as Box<dyn crate::engine::Closure>)
    }

    /// Groups of files a list's deletions left unnamed go at once, not at the next
    /// round's start: a project's first round can take hundreds of tests. So do the
    /// declarations at namespace scope that the statements `main` lost were the last to
    /// reach ([`crate::slices`]): a driver's calls into a library, gone, leave the library
    /// unused, which Perses would otherwise reduce body by body until the next round.
    fn after_list(&mut self, e: &mut Engine<'_>, r: &mut Round, list: NodeId) -> Result<(), OracleError> {
        e.file_groups(r, &mut self.file_groups_tried)?;
        if crate::slices::is_entry_body(&r.tree, e.g, &r.live, list) {
            e.slice(r, &self.pinned, false)?;
        }
        Ok(())
    }
}

impl UnusedSearch {
    /// The search at the start of a Perses round: the slices of the declarations at
    /// namespace scope first ([`crate::slices`], with this search's pinned names kept), then [`Self::remove_unused`] on every list
    /// of the round's tree with two children or more, outer lists first. The lists where
    /// it would stop at once are skipped with one name table per state, not one per list:
    /// a table covers the whole program, so one per list made the scan quadratic
    /// (measured: 5.8 s of a 205k-token input's 8.0 s, 177 s at 1M tokens).
    ///
    /// When the first list searched (the outermost, such as a translation unit) lost its
    /// whole first level (the test needed none of it: tests pass here), the levels of all
    /// the lists after it go as one candidate ([`Self::together`]), until that fails once.
    /// (Where the test needed some of it, such as C's `main`, the candidate failed on the
    /// corpus: one test more on scev.)
    fn remove_unused_all(&mut self, e: &mut Engine<'_>, r: &mut Round) -> Result<(), OracleError> {
        e.slice(r, &self.pinned, false)?;
        e.j.set_pass(INFO.name);
        let lists = lists(&r.tree, &r.state);
        let (mut i, mut first) = (0, true);
        while i < lists.len() {
            let found = {
                let names = names_of(&r.tree, &r.live, e.g, None);
                lists[i..].iter().position(|&l| Step::of(&names, &self.pinned, &r.tree, &r.live, l, 2).is_some())
            };
            let Some(k) = found else { break };
            let whole = self.remove_unused(e, r, lists[i + k], &lists[i + k + 1..])?;
            i += k + 1;
            if std::mem::take(&mut first) && whole && !self.together_refused {
                self.together_refused = !self.together(e, r, &lists[i..])?;
            }
        }
        Ok(())
    }

    /// The search on `list`, a list of the round's tree (the round's start visits every
    /// list with two children or more, outer lists first): when it has at least two
    /// unreferenced elements (see the module docs) holding at least 1/[`MIN_SHARE`] of the
    /// list's tokens, ddmin over the heads of its dependency-closed units ([`Units`]: each
    /// such element, and each taking the elements only it reaches, so that a chain goes in
    /// one candidate), deleting all of them the first candidate; then,
    /// as long as that deleted some, again over the elements the deletions left
    /// unreferenced, even one. An element ddmin kept is needed by the test itself: the
    /// name it declares first is pinned, for the rest of the reduction. In a list with a
    /// pinned element, the first candidate deletes every element that only the unpinned
    /// others use ([`Names::dead`]: whole chains of declarations at once), and ddmin over
    /// the unreferenced elements runs only when that fails. After a level that went whole,
    /// the later levels ([`Self::levels`]) go first as one candidate, until that fails.
    ///
    /// `later`: the lists the round searches after this one, in order, so that a candidate
    /// that ends this list's search names the next list's first candidates as successors.
    ///
    /// Returns whether its first level went whole (ddmin kept none of it).
    fn remove_unused(&mut self, e: &mut Engine<'_>, r: &mut Round, list: NodeId, later: &[NodeId]) -> Result<bool, OracleError> {
        e.j.set_pass(INFO.name);
        // A list's first level needs two elements (one alone is Perses' to delete);
        // a level that deletions freed goes on from one.
        let mut least = 2;
        // Whether the last level went whole (its first candidate passed), and whether
        // all later levels at once failed already.
        let (mut whole, mut refused) = (false, false);
        // Whether the first level went whole: the test needs none of its elements.
        let mut first_whole = None;
        loop {
            if whole && !refused {
                // Tests pass here: every later level at once first (issue 32, point 3).
                let later = self.levels(e.g, r, &[list], 1);
                if later.count > 1 {
                    if e.try_batch(r, vec![later.state], &[], None)?.is_some() {
                        continue;
                    }
                    refused = true;
                }
            }
            let names = names_of(&r.tree, &r.live, e.g, Some(list));
            let Some(step) = Step::of(&names, &self.pinned, &r.tree, &r.live, list, least) else { break };
            least = 1;
            // The units the ddmin below runs over, from the same names (crate::graph).
            let units = {
                let is_pinned = |x: NodeId| names.declared(x, &r.live).is_some_and(|n| self.pinned.contains(n));
                let elements: Vec<NodeId> = r.tree.node(list).children.iter().copied().filter(|x| r.live[x.0 as usize]).collect();
                Units::of(&names, &r.tree, &r.live, &elements, &is_pinned)
            };
            // What the search judges first from a state its candidate leads to: the
            // successors of a candidate that ends a level, or this list's search.
            let pinned = self.pinned.clone();
            let g = e.g;
            let next = move |tree: &Tree, state: &EditSet| {
                let live = tree.live(state);
                let names = names_of(tree, &live, g, Some(list));
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
                if e.try_batch(r, vec![all], &[], Some(&|tree, _| next(tree, &after)))?.is_some() {
                    continue;
                }
            }
            // ddmin over the units' heads, each taking what only it reaches.
            let heads = units.heads().to_vec();
            let offered = heads.len();
            let kept = e.ddmin_delete(r, Deletion { done: Some(&next), dependents: Some(&units), ..Deletion::of(heads, Empty::DeleteItems) })?;
            whole = kept.is_empty();
            first_whole.get_or_insert(whole);
            let names = names_of(&r.tree, &r.live, e.g, Some(list));
            self.pinned.extend(kept.iter().filter_map(|&e| names.declared(e, &r.live)).map(str::to_string));
            if kept.len() == offered {
                break;
            }
        }
        Ok(first_whole.unwrap_or(false))
    }

    /// The levels of all `lists` at once, as one candidate (issue 32, point 3: where tests
    /// pass, as in a preprocessed C++ program's dozens of `namespace std { … }` bodies and
    /// classes, the search otherwise spends an accepted test per list and per level): the
    /// first level of every list that has one, then what those deletions left
    /// unreferenced in any of them, to the fixpoint. Judged only when it spans more than
    /// one list's first level. Returns `false` when it was judged and failed.
    ///
    /// # Errors
    /// The judge's.
    fn together(&mut self, e: &mut Engine<'_>, r: &mut Round, all_lists: &[NodeId]) -> Result<bool, OracleError> {
        let all = self.levels(e.g, r, all_lists, 2);
        if all.first_lists < 2 && all.count < 2 {
            return Ok(true);
        }
        Ok(e.try_batch(r, vec![all.state], &[], None)?.is_some())
    }

    /// The levels of the search on `lists` from the round's state, as if each went whole:
    /// the unreferenced elements of every list that has at least `least` (see
    /// [`Step::of`]), then those their deletion leaves unreferenced (from one), and so on
    /// while a list has a level (pinned elements stay). A chain of declarations
    /// (libstdc++'s typedefs and templates, each used only by the next) is one level per
    /// link: with tests passing, one candidate instead of one test per link.
    fn levels(&self, g: &PnfGrammar, r: &Round, lists: &[NodeId], least: usize) -> Levels {
        let mut all = Levels { state: r.state.clone(), count: 0, first_lists: 0 };
        let mut least = least;
        loop {
            let live = r.tree.live(&all.state);
            let names = names_of(&r.tree, &live, g, None);
            let steps: Vec<Step> = lists.iter().filter_map(|&l| Step::of(&names, &self.pinned, &r.tree, &live, l, least)).collect();
            if steps.is_empty() {
                return all;
            }
            if all.count == 0 {
                all.first_lists = steps.len();
            }
            all.count += 1;
            least = 1;
            all.state.delete(steps.into_iter().flat_map(|s| s.unreferenced));
        }
    }
}

/// What [`UnusedSearch::levels`] found: the round's state with every level deleted, the
/// number of levels, and the number of lists the first level spans.
struct Levels {
    state: EditSet,
    count: usize,
    first_lists: usize,
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
struct Freed<'a> {
    g: &'a PnfGrammar,
    /// The list's live elements, and the round's state, when the ddmin began.
    items: &'a [NodeId],
    base: &'a EditSet,
    /// What was unreferenced then (computed at first need: most ddmins delete nothing).
    unreferenced: OnceCell<HashSet<NodeId>>,
    /// The elements of refused follow-ups.
    refused: HashSet<NodeId>,
    /// What the follow-ups deleted: ddmin still counts these items kept.
    gone: HashSet<NodeId>,
}

impl<'a> Freed<'a> {
    /// The list the ddmin runs over.
    fn list(&self, tree: &Tree) -> Option<NodeId> {
        self.items.first().and_then(|&e| tree.node(e).parent)
    }

    /// For a ddmin over `items`, a list's live elements under the round's state `base`
    /// (deleted one by one, not with a separated list's head).
    fn new(g: &'a PnfGrammar, items: &'a [NodeId], base: &'a EditSet) -> Freed<'a> {
        Freed { g, items, base, unreferenced: OnceCell::new(), refused: HashSet::new(), gone: HashSet::new() }
    }
}

impl FollowUp for Freed<'_> {
    fn pass(&self) -> &'static str {
        INFO.name
    }

    /// `state` with the elements it leaves unused deleted too, and those elements; `None`
    /// when fewer than two.
    fn after(&self, tree: &Tree, state: &EditSet, live: &[bool]) -> Option<(EditSet, Vec<NodeId>)> {
        let protect = self.unreferenced.get_or_init(|| {
            let live = tree.live(self.base);
            let names = names_of(tree, &live, self.g, self.list(tree));
            self.items.iter().copied().filter(|&e| names.unreferenced(e, &live)).collect()
        });
        let names = names_of(tree, live, self.g, self.list(tree));
        let rest: Vec<NodeId> = self.items.iter().copied().filter(|e| live[e.0 as usize]).collect();
        let dead = names.dead(&rest, &|e| protect.contains(&e) || self.refused.contains(&e), live);
        (dead.len() >= 2).then(|| {
            let mut all = state.clone();
            all.delete(dead.iter().copied());
            (all, dead)
        })
    }

    fn judged(&mut self, nodes: Vec<NodeId>, accepted: bool) {
        if accepted {
            self.gone.extend(nodes);
        } else {
            self.refused.extend(nodes);
        }
    }

    fn gone(&self) -> &HashSet<NodeId> {
        &self.gone
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

/// The name tables the search reads: without the names parameter lists declare, and, for
/// a list outside every function body (`list`; `None`: several lists), without locals.
fn names_of<'t>(tree: &'t Tree, live: &[bool], g: &'t PnfGrammar, list: Option<NodeId>) -> Names<'t> {
    Names::without_parameters(tree, live, g, list.is_some_and(|l| !in_body(tree, g, l)))
}
