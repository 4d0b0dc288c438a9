//! What every search over the tree shares: the settings, the [`Engine`] (the judge, the
//! language, the render options) and a round's reduction state ([`Round`]), with the two
//! moves the searches are made of — judging a batch of edit sets in order
//! ([`Engine::try_batch`]) and deleting list items with a list minimizer
//! ([`Engine::ddmin_delete`], into which another search's follow-ups plug through
//! [`FollowUp`]). Perses (`perses/`), the baselines (`baselines/`) and the unused search
//! (`unused.rs`) are built from these; the pipeline (`pipeline/`) runs them.

use crate::dangling::DanglingUses;
use crate::judge::{Batch, GrammarCheck, Judge, Memo};
use crate::minimize::{ListMinimizer, ListRequest};
use crate::oracle::{OracleError, Texts};
use lopper_grammar::PnfGrammar;
use lopper_parse::Frontend;
use lopper_tree::{BaseRendering, Edit, EditSet, NodeId, RenderOptions, Tree};
use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};

/// Pipeline settings: what runs and how the rounds end. Every caller states them (there is
/// no default): `lopper` and `lopper generate` build them the same way.
#[derive(Clone, Debug)]
pub struct Options {
    /// Repeat rounds until one removes nothing (Perses' fixpoint mode).
    pub fixpoint: bool,
    /// What to do with candidates with new syntax errors (more tree-sitter ERROR/MISSING
    /// nodes than the current best, or text a grammar file's parser rejects).
    pub grammar_check: GrammarCheck,
    /// The reduction algorithm.
    pub algorithm: Algorithm,
    /// The searches' own settings.
    pub search: SearchOptions,
    /// Threads that prepare slow passes (external count commands) side by side: `-j`, at
    /// most the machine's cores.
    pub threads: usize,
    /// Every how many accepted candidates one is replayed (tested once more, past the
    /// caches) to catch a nondeterministic test; 0: never (`--assume-deterministic`).
    pub replay_every: usize,
    /// Confirm each accepted candidate by more runs from the start (the test was flaky on
    /// the original).
    pub confirm: bool,
    /// Make no candidate that takes a value the program reads (a local variable's
    /// initializer or only write, a non-void function's return value: `crate::ub_safe`; C, C++; under
    /// `--ub-guard`, whose guard would refuse it).
    pub ub_safe_edits: bool,
}

impl Options {
    /// Perses in fixpoint mode with the grammar screen on, Perses 2.0's search settings
    /// ([`SearchOptions::perses`]) and a window of `window` candidates, one thread, no
    /// replays.
    pub fn perses(window: usize) -> Options {
        Options {
            fixpoint: true,
            grammar_check: GrammarCheck::Reject,
            algorithm: Algorithm::Perses,
            search: SearchOptions::perses(window),
            ub_safe_edits: false,
            threads: 1,
            replay_every: 0,
            confirm: false,
        }
    }
}

/// A reduction algorithm. All share the oracle, the cache and the statistics, so a
/// benchmark compares the algorithms and nothing else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Perses (Sun et al., ICSE 2018) and the pipeline's passes: priority worklist over
    /// the PNF tree, ddmin on Kleene lists, subsumption-based replacement, fixpoint.
    Perses,
    /// ddmin (Zeller & Hildebrandt, TSE 2002) over the lines of the program.
    DdminLines,
    /// ddmin over the program's tokens.
    DdminTokens,
    /// HDD (Misherghi & Su, ICSE 2006): level by level over the plain tree-sitter parse
    /// tree (no PNF), ddmin over each level's nodes.
    Hdd,
    /// HDD* : HDD repeated on the re-parsed result until a pass removes nothing.
    HddFixpoint,
}

impl Algorithm {
    /// Every algorithm with its `--algorithm` name and a one-line description with its
    /// source.
    pub const ALL: [(Algorithm, &'static str, &'static str); 5] = [
        (Algorithm::Perses, "perses", "Perses (Sun et al., ICSE 2018): PNF tree, largest node first, ddmin on lists, subsumption replacement, fixpoint"),
        (Algorithm::DdminLines, "ddmin-lines", "ddmin (Zeller & Hildebrandt, TSE 2002) over lines"),
        (Algorithm::DdminTokens, "ddmin-tokens", "ddmin (Zeller & Hildebrandt, TSE 2002) over tokens"),
        (Algorithm::Hdd, "hdd", "HDD (Misherghi & Su, ICSE 2006): ddmin level by level over the plain parse tree"),
        (Algorithm::HddFixpoint, "hdd-fixpoint", "HDD* (Misherghi & Su, ICSE 2006): HDD repeated until nothing changes"),
    ];
}

/// Search settings: how Perses looks for replacements, which list minimizer deletes, and
/// how many candidates go to the oracle at once.
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Depth bound of the BFS for replacement candidates (Perses 2.0 uses 5), counted in
    /// regular nodes only.
    pub bfs_depth: usize,
    /// At most this many replacement candidates per regular node, smallest first (Perses
    /// 2.0 uses 100).
    pub max_replacements: usize,
    /// The list minimizer of list deletion and the ddmin/HDD baselines.
    pub minimizer: &'static dyn ListMinimizer,
    /// Candidates handed to the oracle at once (the next ones in order, each assuming the
    /// ones before fail), so a parallel oracle can test them together. The result does not
    /// depend on it.
    pub window: usize,
}

impl SearchOptions {
    /// Perses 2.0's settings (BFS depth 5, 100 replacements, ddmin) with a window of
    /// `window` candidates.
    pub fn perses(window: usize) -> SearchOptions {
        SearchOptions { bfs_depth: 5, max_replacements: 100, minimizer: &crate::minimize::Ddmin, window }
    }
}

/// What every search shares: the language, the settings, the judging layer and how
/// candidates are rendered.
pub(crate) struct Engine<'a> {
    pub(crate) frontend: &'a Frontend,
    pub(crate) g: &'a PnfGrammar,
    pub(crate) opts: &'a Options,
    /// The judging layer: oracle, cache, grammar screen, statistics, best so far.
    pub(crate) j: Judge<'a>,
    /// The memo of Perses' own candidates (see the pipeline's global fixpoint).
    pub(crate) perses_memo: Memo<'static>,
    pub(crate) render: RenderOptions,
    /// Whether the test accepts a program that names what a deletion removed, as learned
    /// from the list deletions' probes ([`DanglingUses`]).
    pub(crate) dangling: DanglingUses,
    /// The names declared by the heads a `slices` search kept (the test needs those
    /// declarations): kept by every later one, which would otherwise judge them again.
    pub(crate) slices_kept: std::collections::HashSet<String>,
}

/// One round's tree and reduction state: the edits accepted so far over the tree, and
/// which nodes they leave live.
pub(crate) struct Round {
    pub(crate) tree: Tree,
    pub(crate) state: EditSet,
    pub(crate) live: Vec<bool>,
    /// Whether any candidate was accepted in this round.
    pub(crate) progress: bool,
    /// The texts of the last successors rendered for the oracle.
    rendered: Rendered,
    /// The rendering of `state` with where each token went, from which candidates that
    /// delete more are spliced ([`Tree::render_more`]); made when first needed.
    base: RefCell<Option<BaseRendering>>,
}

impl Round {
    /// A round over `tree` with no edits yet.
    pub(crate) fn new(tree: Tree) -> Round {
        Round {
            live: tree.live(&EditSet::default()),
            tree,
            state: EditSet::default(),
            progress: false,
            rendered: Rendered::default(),
            base: RefCell::new(None),
        }
    }

    /// The text of `edits`, an edit set of the round's tree: spliced from the state's
    /// rendering where `edits` only deletes more, else rendered in full.
    fn render(&self, edits: &EditSet, opts: RenderOptions) -> String {
        let mut base = self.base.borrow_mut();
        // The state's rendering is made for the first candidate that can be spliced.
        if base.as_ref().is_none_or(|b| b.opts() != opts) && edits.deletes_beyond(&self.state) {
            *base = Some(self.tree.render_base(&self.state, opts));
        }
        match base.as_ref().filter(|b| b.opts() == opts).and_then(|b| self.tree.render_more(b, &self.state, &self.live, edits)) {
            Some(text) => text,
            None => self.tree.render(edits, opts),
        }
    }

    /// Makes `state` the round's state (a candidate found interesting), its rendering
    /// spliced from the old one's where it only deletes more.
    fn advance(&mut self, state: EditSet) {
        let next = self.base.get_mut().take().and_then(|b| self.tree.render_more_base(&b, &self.state, &self.live, &state));
        *self.base.get_mut() = next;
        self.live = self.tree.live(&state);
        self.state = state;
        self.progress = true;
    }
}

/// The texts of the edit sets last rendered as successors (see [`Engine::try_batch`]): the
/// successors an oracle started are the next batch's first candidates, rendered once. A
/// text is taken out when a batch uses it; at most [`Rendered::KEPT`] are kept (each a
/// whole program).
#[derive(Default)]
struct Rendered(RefCell<VecDeque<(EditSet, String)>>);

impl Rendered {
    const KEPT: usize = 16;

    /// The text kept for `edits`, taken out, if there is one.
    fn take(&self, edits: &EditSet) -> Option<String> {
        let mut kept = self.0.borrow_mut();
        let i = kept.iter().position(|(e, _)| e == edits)?;
        kept.remove(i).map(|(_, t)| t)
    }

    /// Keeps `text` as the rendering of `edits`, forgetting the oldest past the bound.
    fn keep(&self, edits: EditSet, text: String) {
        let mut kept = self.0.borrow_mut();
        if kept.len() == Self::KEPT {
            kept.pop_front();
        }
        kept.push_back((edits, text));
    }
}

/// Whether [`Engine::ddmin_delete`] tries deleting every item first, and how.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Empty {
    /// Never: at least one item stays (a Kleene plus, a baseline's level).
    Never,
    /// Yes, as the deletion of this list node (Perses' empty list).
    DeleteList(NodeId),
    /// Yes, as the deletion of each item (some of a list's elements).
    DeleteItems,
}

/// The successors of candidate `i` of a batch over the round's tree (see
/// [`Engine::try_batch`]).
pub(crate) type Successors<'a> = dyn Fn(&Tree, usize) -> Vec<EditSet> + 'a;

/// What a search judges first from a state of the round's tree (`done` of a [`Deletion`]).
pub(crate) type Continuation<'a> = dyn Fn(&Tree, &EditSet) -> Vec<EditSet> + 'a;

/// A search that follows each interesting deletion of a list ddmin with one candidate of
/// its own (the unused search's: what the deletion left unused), plugged into
/// [`Engine::ddmin_delete`] by whoever starts the ddmin. The ddmin's later candidates keep
/// what an accepted follow-up deleted deleted.
pub(crate) trait FollowUp {
    /// The pass its candidates count for.
    fn pass(&self) -> &'static str;
    /// The follow-up of `state` (a state of the ddmin's tree, `live` its live nodes):
    /// `state` with more deleted, and those nodes; `None` when there is none.
    fn after(&self, tree: &Tree, state: &EditSet, live: &[bool]) -> Option<(EditSet, Vec<NodeId>)>;
    /// The verdict on a follow-up that deleted `nodes`.
    fn judged(&mut self, nodes: Vec<NodeId>, accepted: bool);
    /// What its accepted follow-ups deleted (the ddmin still counts these items kept).
    fn gone(&self) -> &HashSet<NodeId>;
}

/// What else each deletion of a list minimizer takes (the unused search's `Dependents`:
/// the items, and the statements outside the list, that use what it deletes).
pub(crate) trait Closure {
    /// Marks in `deleted` (one flag per item) every item that must go with those marked,
    /// and returns the nodes outside the list that must go too.
    fn close(&self, deleted: &mut [bool]) -> Vec<NodeId>;

    /// Whether what it takes are users of the deleted items (a deletion alone would leave
    /// them dangling), as opposed to what only the deleted items used.
    fn takes_users(&self) -> bool;
}

/// One list deletion by the list minimizer ([`Engine::ddmin_delete`]).
pub(crate) struct Deletion<'d> {
    /// The items of the round's tree to minimize.
    pub(crate) items: Vec<NodeId>,
    /// A separated list's first element (see Perses' `separated_list_head`): it joins the
    /// items, and when it goes the first kept element loses its separator.
    pub(crate) head: Option<NodeId>,
    /// Whether deleting every item is the first candidate, in the minimizer's first window
    /// (Perses' empty list), and how it is written.
    pub(crate) empty: Empty,
    /// What the caller judges next when the ddmin ends having deleted every item, from that
    /// state (successors of the candidate that deletes them all, once no ddmin candidate
    /// follows it).
    pub(crate) done: Option<&'d Continuation<'d>>,
    /// Another search's follow-up of each interesting deletion.
    pub(crate) follow: Option<&'d mut dyn FollowUp>,
    /// The list minimizer, where not the search options' own.
    pub(crate) minimizer: Option<&'d dyn ListMinimizer>,
    /// Each deletion also takes the items that use what it deletes (no head then).
    pub(crate) dependents: Option<&'d dyn Closure>,
}

impl<'d> Deletion<'d> {
    /// A deletion of `items` with no head, no continuation and no follow-ups.
    pub(crate) fn of(items: Vec<NodeId>, empty: Empty) -> Deletion<'d> {
        Deletion { items, head: None, empty, done: None, follow: None, minimizer: None, dependents: None }
    }
}

impl Engine<'_> {
    /// Judges `batch` (edit sets of the round's tree) in order; the first interesting one
    /// becomes the round's state, and its index is returned. Each counts for the pass
    /// `passes` names (the running pass where it is empty). `then(tree, i)`: candidate
    /// `i`'s successors where known (the edit sets judged next, in order, if that one is
    /// interesting), built and rendered only if the oracle speculates on its success.
    ///
    /// # Errors
    /// The judge's.
    pub(crate) fn try_batch(
        &mut self,
        r: &mut Round,
        batch: Vec<EditSet>,
        passes: &[&str],
        then: Option<&Successors<'_>>,
    ) -> Result<Option<usize>, OracleError> {
        if self.opts.ub_safe_edits {
            // Edits that would create undefined behaviour are not made (crate::ub_safe).
            let made: Vec<usize> = (0..batch.len()).filter(|&i| !crate::ub_safe::drops_value(&r.tree, self.g, &r.state, &batch[i])).collect();
            if made.len() < batch.len() {
                self.j.stats.ub_avoided += batch.len() - made.len();
                let mut slots: Vec<Option<EditSet>> = batch.into_iter().map(Some).collect();
                let kept: Vec<EditSet> = made.iter().map(|&i| slots[i].take().expect("each once")).collect();
                let made = &made;
                let then_made = then.map(|t| move |tree: &Tree, j: usize| t(tree, made[j]));
                let winner = self.try_made(r, kept, passes, then_made.as_ref().map(|t| t as &Successors<'_>))?;
                return Ok(winner.map(|j| made[j]));
            }
        }
        self.try_made(r, batch, passes, then)
    }

    /// [`Engine::try_batch`] once the candidates are made.
    fn try_made(&mut self, r: &mut Round, batch: Vec<EditSet>, passes: &[&str], then: Option<&Successors<'_>>) -> Result<Option<usize>, OracleError> {
        let round: &Round = r;
        let (tree, render, rendered) = (&round.tree, self.render, &round.rendered);
        // Rendered when the oracle is about to judge them, not those past the answer.
        let make = |i: usize| rendered.take(&batch[i]).unwrap_or_else(|| round.render(&batch[i], render));
        let texts = Texts::new(batch.len(), &make);
        let none = |_: &Tree, _: usize| Vec::new();
        let then = then.unwrap_or(&none);
        // Rendered one at a time, as the oracle starts them, and kept for the next batch;
        // under `ub_safe_edits`, not those that edit would not make either.
        let (g, ub_safe, batch_ref) = (self.g, self.opts.ub_safe_edits, &batch);
        let mut successors = |i: usize| -> crate::oracle::Successors<'_> {
            let made = move |e: &EditSet| !(ub_safe && crate::ub_safe::drops_value(tree, g, &batch_ref[i], e));
            Box::new(then(tree, i).into_iter().filter(made).map(move |e| {
                let text = round.render(&e, render);
                rendered.keep(e, text.clone());
                text
            }))
        };
        let tokens = |i: usize| tree.count_tokens(&batch[i]);
        let request = Batch { texts: &texts, passes, memo: self.perses_memo, tokens: &tokens, successors: Some(&mut successors) };
        let winner = self.j.judge(request)?;
        if let Some(i) = winner {
            r.advance(batch.into_iter().nth(i).expect("winner is in the batch"));
        }
        Ok(winner)
    }

    /// The list minimizer over `d.items` of the round's tree, deleting the ones not kept;
    /// returns the kept ones (see [`Deletion`]).
    ///
    /// # Errors
    /// The judge's.
    pub(crate) fn ddmin_delete(&mut self, r: &mut Round, d: Deletion<'_>) -> Result<Vec<NodeId>, OracleError> {
        let Deletion { mut items, head, empty, done, mut follow, minimizer, dependents } = d;
        let dependents = dependents.filter(|_| head.is_none());
        // Cleared when the test is seen to accept dangling uses, within this ddmin too.
        let closing = std::cell::Cell::new(dependents.is_some_and(|d| !d.takes_users() || self.dangling.closes()));
        if let Some(h) = head {
            items.insert(0, h);
        }
        let base = r.state.clone();
        let all = items;
        let weights: Vec<usize> = all.iter().map(|&n| r.tree.node(n).tokens as usize).collect();
        let list = ListRequest { weights: &weights, may_empty: empty != Empty::Never, lookahead: self.opts.search.window };
        let kept = minimizer.unwrap_or(self.opts.search.minimizer).minimize(list, &mut |keeps: &[Vec<usize>], next: &dyn Fn(usize) -> Vec<Vec<usize>>| {
            let gone = |k: &NodeId| follow.as_deref().is_some_and(|f| f.gone().contains(k));
            let closed = |tree: &Tree, keep: &Vec<usize>, closure: Option<&dyn Closure>| {
                if let (true, Empty::DeleteList(n)) = (keep.is_empty(), empty) {
                    return base.with(n, Edit::Delete);
                }
                // By index, not by a set of ids: one flag per element, however many.
                let mut deleted = vec![true; all.len()];
                for &i in keep {
                    deleted[i] = gone(&all[i]);
                }
                let head_gone = head.is_some() && deleted[0];
                let mut e = base.clone();
                let outside = closure.map(|d| d.close(&mut deleted)).unwrap_or_default();
                let items = all.iter().zip(&deleted).filter(|(_, &d)| d).map(|(&c, _)| c);
                if outside.is_empty() {
                    e.delete(items);
                } else {
                    // A closure may take a node inside another it takes (a class and one of
                    // its members): only the outermost are deleted, as splicing expects.
                    e.delete(tree.outermost(items.chain(outside)));
                }
                if head_gone {
                    // keep is never empty and h is its only non-element: promote the first.
                    let first = all[keep[0]];
                    e.insert(first, Edit::Replace(tree.node(first).children[1]));
                }
                e
            };
            let edits = |tree: &Tree, keep: &Vec<usize>| closed(tree, keep, dependents.filter(|_| closing.get()));
            let mut batch: Vec<EditSet> = keeps.iter().map(|k| edits(&r.tree, k)).collect();
            // Built only when the oracle speculates on candidate `i`'s success: its
            // follow-up if there is one (judged next), then ddmin's next candidates as
            // they are once that follow-up passed.
            let then = |tree: &Tree, i: usize| {
                let state = edits(tree, &keeps[i]);
                let next = next(i);
                if let (Some(done), true, true) = (done, next.is_empty(), keeps[i].is_empty()) {
                    return done(tree, &state);
                }
                let after = follow.as_deref().and_then(|f| f.after(tree, &state, &tree.live(&state)));
                let next = next.into_iter().map(|k| {
                    let mut e = edits(tree, &k);
                    if let Some((_, dead)) = &after {
                        e.delete(dead.iter().copied());
                    }
                    e
                });
                after.iter().map(|(follow_up, _)| follow_up.clone()).chain(next).collect()
            };
            // A keep whose deletions the follow-ups already made is the current best:
            // interesting, without a test, once every candidate before it failed.
            let same = batch.iter().position(|e| *e == r.state);
            let tested = same.unwrap_or(batch.len());
            let probing = closing.get() && dependents.is_some_and(|d| d.takes_users()) && self.dangling.probes() && same.is_none();
            // Each candidate without its closure, where that differs (while probing).
            let plains: Vec<Option<EditSet>> = (0..tested).map(|i| probing.then(|| closed(&r.tree, &keeps[i], None)).filter(|p| *p != batch[i])).collect();
            batch.truncate(tested);
            let winner = self.try_batch_probing(r, batch, plains, &then, &closing)?;
            if winner.is_none() {
                return Ok(same);
            }
            // After an interesting candidate: one candidate deleting what it left unused.
            if let Some(f) = follow.as_deref_mut() {
                if let Some((all, dead)) = f.after(&r.tree, &r.state, &r.live) {
                    let pass = self.j.stats.pass.clone();
                    self.j.set_pass(f.pass());
                    let accepted = self.try_batch(r, vec![all], &[], None)?.is_some();
                    self.j.set_pass(&pass);
                    f.judged(dead, accepted);
                }
            }
            Ok(winner)
        })?;
        Ok(kept.into_iter().map(|i| all[i]).collect())
    }

    /// Every place's edits in one candidate, then, where that fails, a coarse ddmin
    /// ([`crate::minimize::CoarseDdmin`], `levels` chunk sizes, then more while most go
    /// where `deep`) over the places: a
    /// candidate applies the edits of the places it does not keep (C-Vise's binary-search
    /// passes over one transformation's instances). `weights`: what each place saves.
    ///
    /// # Errors
    /// The judge's.
    pub(crate) fn apply_places(&mut self, r: &mut Round, places: &[&[(NodeId, Edit)]], weights: &[usize], levels: u32, deep: bool) -> Result<(), OracleError> {
        use crate::minimize::CoarseDdmin;
        let base = r.state.clone();
        let edits = |keep: &[usize]| {
            let mut e = base.clone();
            let mut k = keep.iter().peekable();
            for (i, p) in places.iter().enumerate() {
                if k.peek() == Some(&&i) {
                    k.next();
                    continue;
                }
                for (n, edit) in p.iter() {
                    e.insert(*n, edit.clone());
                }
            }
            e
        };
        let list = ListRequest { weights, may_empty: true, lookahead: self.opts.search.window };
        CoarseDdmin { levels, deep }.minimize(list, &mut |keeps: &[Vec<usize>], next: &dyn Fn(usize) -> Vec<Vec<usize>>| {
            let batch: Vec<EditSet> = keeps.iter().map(|k| edits(k)).collect();
            let then = |_: &Tree, i: usize| next(i).iter().map(|k| edits(k)).collect();
            self.try_batch(r, batch, &[], Some(&then))
        })?;
        Ok(())
    }

    /// The PNF tree of the current best; `None`, with a warning, if it no longer parses.
    /// From the grammar screen's CST of the best where that is a fresh parse's or has no
    /// syntax error (`Frontend::parse_with`): one tree-sitter parse fewer per pass.
    pub(crate) fn parse_best(&mut self) -> Option<Tree> {
        match self.frontend.parse_with(&self.j.checker, &self.j.best) {
            Ok(p) => Some(p.tree),
            Err(e) => {
                let rounds = self.j.stats.rounds;
                self.j.warn(format!("stopped after round {rounds}: the best program no longer parses: {e}"));
                None
            }
        }
    }
}
