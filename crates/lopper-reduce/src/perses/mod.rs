//! The Perses reducer (Sun et al., ICSE 2018, Algorithm 2) over lopper's PNF trees.
//!
//! A max-heap of nodes keyed by token count (largest first; ties: smaller node id first)
//! starts with the root. Popping a node applies the transformation its PNF kind allows:
//! Kleene star and optional nodes get the empty list tried, then ddmin over their children;
//! Kleene plus nodes get ddmin keeping at least one child; regular (and opaque) nodes get
//! replaced by the smallest interesting compatible descendant found by a bounded BFS
//! (`reduceRegular`, Perses §4.3). The node's children (or its replacement) then join the
//! heap. In fixpoint mode the best program is re-parsed and reduced again until a round
//! removes nothing.

use crate::judge::{Batch, GrammarCheck, Judge, LocalKey, Memo, Progress, Stats};
use crate::minimize::{Ddmin, ListMinimizer, ListRequest};
use crate::oracle::{Oracle, OracleError, Verdict};
use crate::passes;
use lopper_grammar::{PnfGrammar, SymbolId};
use lopper_parse::{Frontend, ParseError};
use lopper_tree::{Edit, EditSet, NodeId, NodeKind, RenderOptions, Tree};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet, VecDeque};

/// How Perses' own deletions and replacements are keyed in the memo of local changes.
const PERSES_KEY: LocalKey<'static> = LocalKey { pass: passes::PERSES, modulo_words: true };

/// Reducer settings.
#[derive(Clone, Debug)]
pub struct Options {
    /// Repeat rounds until one removes nothing (Perses' fixpoint mode). Default: on.
    pub fixpoint: bool,
    /// Depth bound of the BFS for replacement candidates (Perses 2.0 uses 5).
    pub bfs_depth: usize,
    /// At most this many replacement candidates per regular node, smallest first
    /// (Perses 2.0 uses 100).
    pub max_replacements: usize,
    /// What to do with candidates with new syntax errors (more tree-sitter ERROR/MISSING
    /// nodes than the current best, or text a grammar file's parser rejects). Default:
    /// [`GrammarCheck::Reject`].
    pub grammar_check: GrammarCheck,
    /// The reduction algorithm. Default: [`Algorithm::Perses`].
    pub algorithm: Algorithm,
    /// Candidates handed to the oracle at once (the next ones in order, each assuming the
    /// ones before fail), so a parallel oracle can test them together. The result does not
    /// depend on it. Default: 1.
    pub jobs: usize,
    /// The passes, in order: [`passes::PERSES`] for Perses' own search (list deletion and
    /// replacement), and names of [`passes::BUILT_IN`] passes, run after it in each round.
    /// Default: Perses alone.
    pub passes: Vec<String>,
    /// The list minimizer of list deletion and the ddmin/HDD baselines. Default: [`Ddmin`].
    pub minimizer: &'static dyn ListMinimizer,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            fixpoint: true,
            bfs_depth: 5,
            max_replacements: 100,
            grammar_check: GrammarCheck::Reject,
            algorithm: Algorithm::Perses,
            jobs: 1,
            passes: vec![passes::PERSES.to_string()],
            minimizer: &Ddmin,
        }
    }
}

/// A reduction algorithm. All share the oracle, the cache and the statistics, so a
/// benchmark compares the algorithms and nothing else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    /// Perses (Sun et al., ICSE 2018): priority worklist over the PNF tree, ddmin on
    /// Kleene lists, subsumption-based replacement, fixpoint.
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

/// The result of a reduction.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The smallest interesting program found.
    pub text: String,
    /// The counts.
    pub stats: Stats,
    /// Whether the run was stopped early by an interrupt.
    pub interrupted: bool,
}

/// Why a reduction could not run.
#[derive(Debug, thiserror::Error)]
pub enum ReduceError {
    /// The original input does not pass the interestingness test.
    #[error("the original input is not interesting (the test said {0:?})")]
    NotInteresting(Verdict),
    /// The program could not be parsed.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The oracle failed.
    #[error(transparent)]
    Oracle(OracleError),
}

/// Reduces `input` with the Perses algorithm.
///
/// The original must be interesting (checked first: one test). Every accepted candidate is
/// passed to `progress` before the search goes on, so a caller can keep it on disk.
///
/// # Errors
/// [`ReduceError::NotInteresting`] if the original fails the test; parse and oracle errors.
/// An interrupt is not an error: the outcome has `interrupted` set and the best so far.
pub fn reduce(frontend: &Frontend, input: &str, oracle: &mut dyn Oracle, opts: &Options, progress: &mut dyn Progress) -> Result<Outcome, ReduceError> {
    let after = opts.passes.iter().filter_map(|p| passes::create(p)).collect();
    reduce_with_passes(frontend, input, oracle, opts, after, progress)
}

/// [`reduce`] with these passes after Perses instead of the built-in ones `opts.passes`
/// names (whether Perses' own search runs still follows `opts.passes`): the seam through
/// which a pass from outside this crate joins the same scheduler, cache and grammar check.
///
/// # Errors
/// As [`reduce`].
pub fn reduce_with_passes(
    frontend: &Frontend,
    input: &str,
    oracle: &mut dyn Oracle,
    opts: &Options,
    after: Vec<Box<dyn passes::Pass>>,
    progress: &mut dyn Progress,
) -> Result<Outcome, ReduceError> {
    let judge = Judge::new(frontend, input, oracle, opts.grammar_check, progress)?;
    let mut r = Reducer {
        frontend,
        g: frontend.grammar(),
        opts,
        j: judge,
        disabled: HashSet::new(),
        transform_overlap: 0.0,
        perses_memo: Memo::Off,
        render: RenderOptions::default(),
        pinned: HashSet::new(),
        unused: opts.passes.iter().any(|p| p == passes::unused::UNUSED.0),
    };
    let v = r.j.test_original().map_err(ReduceError::Oracle)?;
    if v != Verdict::Interesting {
        return Err(ReduceError::NotInteresting(v));
    }
    let parsed = frontend.parse_with(&r.j.checker, input)?;
    r.j.stats.tokens_before = parsed.tree.token_count();
    r.j.stats.tokens_after = r.j.stats.tokens_before;
    r.j.stats.matched_share = parsed.stats.matched_share();
    r.j.stats.opaque_nodes = parsed.stats.opaque;
    let interrupted = match r.run(parsed.tree, after) {
        Ok(()) => false,
        Err(OracleError::Interrupted) => true,
        Err(e) => return Err(ReduceError::Oracle(e)),
    };
    let (text, stats) = r.j.finish();
    Ok(Outcome { text, stats, interrupted })
}

/// The searches' names for what they count under in [`Stats::pass_stats`].
const LIST: &str = "list";
const REPLACE: &str = "replace";

/// Perses' search (and the baselines') over the shared [`Judge`].
struct Reducer<'a> {
    frontend: &'a Frontend,
    g: &'a PnfGrammar,
    opts: &'a Options,
    /// The judging layer: oracle, cache, grammar screen, statistics, best so far.
    j: Judge<'a>,
    /// Passes after Perses that failed: reported once, not run again.
    disabled: HashSet<usize>,
    /// Seconds of external commands that ran side by side with others (counted once).
    transform_overlap: f64,
    /// The memo of Perses' own candidates (see [`Self::global_fixpoint`]).
    perses_memo: Memo<'static>,
    render: RenderOptions,
    /// The names declared by list elements the unused-declarations search found needed.
    pinned: HashSet<String>,
    /// Whether the unused-declarations search ([`passes::unused`]) runs: at the start of
    /// each round, and as follow-ups inside Perses' list ddmin.
    unused: bool,
}

/// Whether [`Reducer::ddmin_delete`] tries deleting every item first, and how.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Empty {
    /// Never: at least one item stays (a Kleene plus, a baseline's level).
    Never,
    /// Yes, as the deletion of this list node (Perses' empty list).
    DeleteList(NodeId),
    /// Yes, as the deletion of each item (some of a list's elements).
    DeleteItems,
}

/// What a search judges first from a state of the round's tree (`done` of
/// [`Reducer::ddmin_delete_then`]).
type Continuation<'a> = dyn Fn(&Tree, &EditSet) -> Vec<EditSet> + 'a;

/// One round's tree and state.
struct Round {
    tree: Tree,
    state: EditSet,
    live: Vec<bool>,
    progress: bool,
}

impl Round {
    /// A round over `tree` with no edits yet.
    fn new(tree: Tree) -> Round {
        Round { live: tree.live(&EditSet::default()), tree, state: EditSet::default(), progress: false }
    }
}

impl Reducer<'_> {
    fn run(&mut self, tree: Tree, mut after: Vec<Box<dyn passes::Pass>>) -> Result<(), OracleError> {
        // Comments are trivia: drop them all at once if the test allows.
        let plain = tree.render(&EditSet::default(), self.render);
        let tokens = tree.token_count();
        if plain != self.j.best && self.j.judge(Batch::new(&[plain], &|_| tokens))?.is_none() {
            self.render.keep_comments = true;
        }
        match self.opts.algorithm {
            Algorithm::Perses => {}
            Algorithm::DdminLines => return self.ddmin_lines(),
            Algorithm::DdminTokens => {
                let mut r = Round::new(tree);
                self.j.stats.rounds += 1;
                self.j.set_pass(LIST);
                let tokens: Vec<NodeId> = (0..r.tree.len() as u32).map(NodeId).filter(|&n| r.tree.node(n).kind == NodeKind::Token).collect();
                return self.ddmin_delete(&mut r, tokens, None, Empty::Never).map(drop);
            }
            Algorithm::Hdd | Algorithm::HddFixpoint => return self.hdd(),
        }
        let fixpoint = self.global_fixpoint(tree, &mut after);
        // External commands' run time is neither tests nor lopper's own work.
        self.j.stats.transform_seconds = (after.iter().map(|p| p.process_seconds()).sum::<f64>() - self.transform_overlap).max(0.0);
        if fixpoint? && self.opts.passes.iter().any(|p| p == passes::layout::LAYOUT.0) {
            self.layout()?;
        }
        Ok(())
    }

    /// The global fixpoint: Perses to its own fixpoint, then every other pass; again while
    /// the other passes change the best. Perses runs again only after a round of passes that
    /// removed tokens: renaming and literal rewrites keep every token and the tree's shape,
    /// and the deletions and replacements Perses already tried fail on the renamed program as
    /// a rule, so re-trying them would cost tests for nothing. When Perses runs again after
    /// the passes, a deletion or replacement whose local change (the lines it touches, with
    /// a line of context) was not interesting in an earlier Perses run is presumed not
    /// interesting, as for the passes: the first run learns those changes and presumes
    /// nothing, so Perses' own 1-minimal result is the same as without passes. `false` when
    /// the best no longer parses (nothing more can run on it).
    fn global_fixpoint(&mut self, mut tree: Tree, after: &mut [Box<dyn passes::Pass>]) -> Result<bool, OracleError> {
        let perses = self.opts.passes.iter().any(|p| p == passes::PERSES);
        let mut perses_due = perses;
        if !after.is_empty() {
            self.perses_memo = Memo::Record(PERSES_KEY);
        }
        loop {
            if perses_due {
                let Some(t) = self.perses_rounds(tree)? else { return Ok(false) };
                tree = t;
            }
            let tokens = self.j.stats.tokens_after;
            if after.is_empty() || !self.run_passes(after, tree)? || !self.opts.fixpoint {
                return Ok(true);
            }
            perses_due = perses && self.j.stats.tokens_after < tokens;
            self.perses_memo = Memo::Presume(PERSES_KEY);
            let Some(t) = self.parse_best() else { return Ok(false) };
            tree = t;
        }
    }

    /// The layout step (`passes::layout`): the best laid out readably, tested once; kept if
    /// interesting and free of new syntax errors, whatever its size.
    fn layout(&mut self) -> Result<(), OracleError> {
        let Some(tree) = self.parse_best() else { return Ok(()) };
        self.j.set_pass(passes::layout::LAYOUT.0);
        let text = passes::layout::layout(&tree);
        let tokens = tree.token_count();
        self.j.judge(Batch::new(&[text], &|_| tokens))?;
        Ok(())
    }

    /// Perses rounds from `tree` until one removes nothing (or one round without fixpoint
    /// mode). Returns the tree of the best program, `None` if it no longer parses.
    fn perses_rounds(&mut self, mut tree: Tree) -> Result<Option<Tree>, OracleError> {
        loop {
            self.j.stats.rounds += 1;
            let mut round = Round::new(tree);
            if self.unused {
                self.remove_unused_all(&mut round)?;
            }
            self.round(&mut round)?;
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

    /// The PNF tree of the current best; `None`, with a warning, if it no longer parses.
    fn parse_best(&mut self) -> Option<Tree> {
        match self.frontend.parse(&self.j.best) {
            Ok(p) => Some(p.tree),
            Err(e) => {
                let rounds = self.j.stats.rounds;
                self.j.warn(format!("stopped after round {rounds}: the best program no longer parses: {e}"));
                None
            }
        }
    }

    /// One Perses round: nodes in order of size (largest first, Perses §4.3, Algorithm 1),
    /// each reduced by its kind. Nodes whose candidates are known before any of them is
    /// judged (replacements, a one-element list's removal) share lookahead windows with the
    /// nodes after them (see [`Self::reduce_simple`]); a list of several elements runs
    /// ddmin.
    fn round(&mut self, r: &mut Round) -> Result<(), OracleError> {
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
            self.reduce_list(r, n, r.tree.node(n).kind != NodeKind::Plus)?;
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
        let lookahead = self.opts.jobs.max(1);
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
            if let Some(i) = self.try_batch_as(r, window.into_iter().map(|w| w.1).collect(), &passes)? {
                let (m, taken) = group.swap_remove(owners[i]);
                if let Some(taken) = taken {
                    *heap = taken;
                }
                Self::push_after(r, m, heap);
                return Ok(());
            }
        }
    }

    /// Tests candidate edit sets in order; the first interesting one becomes the round's
    /// state, and its index is returned.
    fn try_batch(&mut self, r: &mut Round, batch: Vec<EditSet>) -> Result<Option<usize>, OracleError> {
        self.try_batch_as(r, batch, &[])
    }

    /// [`Self::try_batch`], each candidate counted for the pass named in `passes` (the
    /// running pass where `passes` is empty).
    fn try_batch_as(&mut self, r: &mut Round, batch: Vec<EditSet>, passes: &[&str]) -> Result<Option<usize>, OracleError> {
        self.try_batch_then(r, batch, passes, &|_, _| Vec::new())
    }

    /// [`Self::try_batch_as`], with `then(tree, i)`: candidate `i`'s successors where known
    /// (the edit sets judged next, in order, if that one is interesting), built and
    /// rendered only if the oracle speculates on that candidate's success.
    fn try_batch_then(
        &mut self,
        r: &mut Round,
        batch: Vec<EditSet>,
        passes: &[&str],
        then: &dyn Fn(&Tree, usize) -> Vec<EditSet>,
    ) -> Result<Option<usize>, OracleError> {
        let texts: Vec<String> = batch.iter().map(|e| r.tree.render(e, self.render)).collect();
        let (tree, render) = (&r.tree, self.render);
        let mut successors = |i: usize| then(tree, i).iter().map(|e| tree.render(e, render)).collect();
        let tokens = |i: usize| r.tree.count_tokens(&batch[i]);
        let request = Batch { texts: &texts, passes, memo: self.perses_memo, tokens: &tokens, successors: Some(&mut successors) };
        let winner = self.j.judge(request)?;
        if let Some(i) = winner {
            r.state = batch.into_iter().nth(i).expect("winner is in the batch");
            r.live = r.tree.live(&r.state);
            r.progress = true;
        }
        Ok(winner)
    }

    /// `reduceStar` / `reducePlus` / optional: the empty list first (unless plus), then
    /// ddmin over the children.
    ///
    /// A star that follows the head of a separated list (`x ("," x)*`, the PNF of every
    /// comma list) is minimized together with that head: when the head goes, the first kept
    /// element is replaced by its `x`, dropping its separator. Plain PNF cannot delete the
    /// first argument of a call; this can, and every such candidate is still grammatical.
    fn reduce_list(&mut self, r: &mut Round, n: NodeId, may_empty: bool) -> Result<(), OracleError> {
        let children: Vec<NodeId> = r.tree.node(n).children.iter().copied().filter(|c| r.live[c.0 as usize]).collect();
        if children.is_empty() {
            return Ok(());
        }
        let head = if may_empty { self.separated_list_head(r, n, &children) } else { None };
        let empty = if may_empty { Empty::DeleteList(n) } else { Empty::Never };
        self.ddmin_delete(r, children, head, empty).map(drop)
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

    /// ddmin over `items` of the round's tree, deleting the ones not kept; returns the kept
    /// ones. With `head` (a separated list's first element, see
    /// [`Self::separated_list_head`]) it joins the items, and when it goes the first kept
    /// element loses its separator. `empty` says whether deleting every item is the first
    /// candidate, in ddmin's first window (Perses' empty list), and how it is written.
    fn ddmin_delete(&mut self, r: &mut Round, items: Vec<NodeId>, head: Option<NodeId>, empty: Empty) -> Result<Vec<NodeId>, OracleError> {
        self.ddmin_delete_then(r, items, head, empty, None)
    }

    /// [`Self::ddmin_delete`], with `done(tree, state)`: what the caller judges next when
    /// the ddmin ends having deleted every item, from that state (successors of the
    /// candidate that deletes them all, once no ddmin candidate follows it).
    fn ddmin_delete_then(
        &mut self,
        r: &mut Round,
        mut items: Vec<NodeId>,
        head: Option<NodeId>,
        empty: Empty,
        done: Option<&Continuation>,
    ) -> Result<Vec<NodeId>, OracleError> {
        if let Some(h) = head {
            items.insert(0, h);
        }
        let base = r.state.clone();
        let all = items;
        let weights: Vec<usize> = all.iter().map(|&n| r.tree.node(n).tokens as usize).collect();
        // The unused search's follow-ups, on a list whose elements are deleted one by one.
        let follow = self.unused && head.is_none() && matches!(empty, Empty::DeleteList(_)) && all.len() > 1;
        let mut freed = Freed::new(self.g, follow, &all, &base);
        let list = ListRequest { weights: &weights, may_empty: empty != Empty::Never, lookahead: self.opts.jobs };
        let kept = self.opts.minimizer.minimize(list, &mut |keeps: &[Vec<usize>], next: &dyn Fn(usize) -> Vec<Vec<usize>>| {
            let edits = |tree: &Tree, keep: &Vec<usize>| {
                if let (true, Empty::DeleteList(n)) = (keep.is_empty(), empty) {
                    return base.with(n, Edit::Delete);
                }
                let keep: Vec<NodeId> = keep.iter().map(|&i| all[i]).collect();
                let kept: HashSet<NodeId> = keep.iter().copied().filter(|k| !freed.gone.contains(k)).collect();
                let mut e = base.clone();
                e.delete(all.iter().copied().filter(|c| !kept.contains(c)));
                if head.is_some_and(|h| !kept.contains(&h)) {
                    // keep is never empty and h is its only non-element: promote the first.
                    let first = keep[0];
                    e.insert(first, Edit::Replace(tree.node(first).children[1]));
                }
                e
            };
            let batch: Vec<EditSet> = keeps.iter().map(|k| edits(&r.tree, k)).collect();
            // Built only when the oracle speculates on candidate `i`'s success: its
            // follow-up if there is one (judged next), then ddmin's next candidates as
            // they are once that follow-up passed.
            let then = |tree: &Tree, i: usize| {
                let state = edits(tree, &keeps[i]);
                let next = next(i);
                if let (Some(done), true, true) = (done, next.is_empty(), keeps[i].is_empty()) {
                    return done(tree, &state);
                }
                let after = if follow { freed.after(tree, &state, &tree.live(&state)) } else { None };
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
            let winner = match self.try_batch_then(r, batch.into_iter().take(tested).collect(), &[], &then)? {
                Some(i) => Some(i),
                None => return Ok(same),
            };
            freed.follow_up(self, r)?;
            Ok(winner)
        })?;
        Ok(kept.into_iter().map(|i| all[i]).collect())
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
            } else if depth < self.opts.bfs_depth {
                queue.extend(dn.children.iter().map(|&c| (c, depth + 1)));
            }
        }
        found.sort_by_key(|&d| (r.tree.node(d).tokens, d));
        found.truncate(self.opts.max_replacements);
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

mod baselines;
mod schedule;
mod unused;
use unused::Freed;
