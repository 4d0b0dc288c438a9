//! Passes past Perses' 1-minimality, behind one small trait in the spirit of Regehr's
//! pluggable reducers ("Pluggable Domain-Specific Testcase Reducers"): a transformation
//! numbers its instances over the current best from 0; instance `k` is a variant, a skip,
//! or "no instance `k`" (the pass has run out). The reducer owns the search, the test and
//! the fixpoint: after an accepted variant it retries the same `k` (on the new best), after
//! a rejected one it moves to `k + 1`, and it stops the pass at the first `k` without an
//! instance. A round runs every pass; rounds (with Perses' own search between them) repeat
//! until nothing changes the best.
//!
//! Passes see the current best as its PNF tree and grammar, and describe a variant as an
//! [`EditSet`] over that tree (deletions and text edits), never as a process: only the
//! oracle runs the test. A variant must be smaller than the best under [`Measure`] (tokens,
//! then bytes, then shortlex), which the reducer checks, so same-size rewrites such as
//! renaming still terminate.
//!
//! One module per pass, each declaring itself once as a [`PassInfo`] named `INFO` (the
//! pipeline's registry lists them): [`identifiers`] and [`literals`] (T-Rec's lexical
//! canonicalization, Vulcan's identifier replacement), [`inline`] (a short definition
//! inlined where its name is used), [`aliases`] (type aliases inlined whatever their
//! length), [`bodies`] (a one-expression function inlined at its uses), [`calls`] (a function called once as a statement inlined there), [`pointers`] (a local pointer to one object replaced by it), [`params`] (a local declaration moved into the
//! parameter list), [`arguments`] (an unused parameter removed with its arguments),
//! [`aggregates`] (an aggregate's member removed with its initializer elements and binding names),
//! [`templates`] (a template type parameter made `int`), [`zeros`] (a zero-filled array given its length), [`hoist`] (a C++ namespace or linkage specification replaced by its
//! declarations), [`headers`] (a project's header included once inlined), [`subtrees`] (Vulcan's sub-tree
//! replacement by minimal derivations), [`tokens`] (Vulcan's local exhaustive deletion), and [`external`] (a command in the same contract, such as C-Vise's
//! `clang_delta`). [`layout`] is no transformation in that sense: it lays the final result
//! out readably, once, after the fixpoint.

pub mod aggregates;
pub mod aliases;
pub mod arguments;
pub mod bodies;
pub mod calls;
pub mod external;
pub mod headers;
pub mod hoist;
pub mod identifiers;
pub mod inline;
pub mod layout;
pub mod literals;
pub mod params;
pub mod pointers;
pub mod subtrees;
pub mod templates;
pub mod tokens;
pub mod zeros;

use lopper_grammar::PnfGrammar;
use lopper_tree::{EditSet, NodeId, Tree};

/// What a pass sees: the current best program, its PNF tree and its grammar.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// The current best program's text (what the tree renders to without edits).
    pub best: &'a str,
    /// The tree of the current best (parsed from its text).
    pub tree: &'a Tree,
    /// The language's PNF grammar.
    pub grammar: &'a PnfGrammar,
}

/// Transformation instance `k` of a pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instance {
    /// A variant: these edits over the current tree.
    Variant(EditSet),
    /// A variant given as text (an external transformation's output).
    Text(String),
    /// Instance `k` exists but has nothing to offer here; go on with `k + 1`.
    Skip,
    /// There is no instance `k` (nor any later one): the pass has run out.
    Exhausted,
    /// The pass failed (an external command's error, with its message): the reducer
    /// reports it once and runs the pass no more; nothing is lost.
    Error(String),
}

/// A transformation in Regehr's contract. Implementations are deterministic: the same tree
/// and `k` give the same instance. `Send`, so that slow preparations can run side by side
/// ([`prepare_together`]).
pub trait Pass: Send {
    /// The pass's name, as `--passes` takes it (external passes: their command).
    fn name(&self) -> &str;

    /// Called whenever the best changes (and before the first instance), so the pass can
    /// number its instances over the new tree once.
    fn prepare(&mut self, cx: Context<'_>);

    /// Instance `k` (from 0) over the tree last given to [`Pass::prepare`].
    fn instance(&self, cx: Context<'_>, k: usize) -> Instance;

    /// Whether the user interrupted the pass's last instance (an external command killed
    /// on Ctrl-C); the reducer then stops as on any interrupt.
    fn interrupted(&self) -> bool {
        false
    }

    /// Whether every variant only deletes, replaces or moves text (no word renamed or
    /// rewritten), so that a change that failed is keyed modulo a renaming of words and
    /// still presumed to fail after the identifier pass renamed the program (see the
    /// reducer's memo of local changes). `false` unless a pass says so.
    fn keeps_words(&self) -> bool {
        false
    }

    /// Seconds this pass has spent so far waiting for processes it ran (an external
    /// command), which the reducer counts apart from tests and from its own work.
    fn process_seconds(&self) -> f64 {
        0.0
    }

    /// A new pass of this kind with nothing prepared, to number instances over a tree the
    /// best may become, so that the oracle can start them while the current candidate's
    /// test runs (its *successors*); `None` (the default) for passes whose preparation
    /// or instances are costly, such as external commands.
    fn fresh(&self) -> Option<Box<dyn Pass>> {
        None
    }

    /// Whether [`Pass::prepare`] waits on a process (an external count command), so that
    /// the scheduler prepares a run of such passes side by side on idle cores.
    fn prepares_slowly(&self) -> bool {
        false
    }
}

/// Prepares every pass of `passes` over `cx`, at most `jobs` at once, on a rayon pool of
/// that many threads: what one pass's [`Pass::prepare`] computes does not depend on
/// another's, so the result is that of preparing them one after another. For passes whose
/// preparation waits on a process (`clang_delta --query-instances`, 0.05–0.1 s a run),
/// while the test slots are idle.
pub fn prepare_together(passes: &mut [&mut Box<dyn Pass>], cx: Context<'_>, jobs: usize) {
    use rayon::prelude::*;
    let prepare = |passes: &mut [&mut Box<dyn Pass>]| passes.par_iter_mut().with_max_len(1).for_each(|p| p.prepare(cx));
    match rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build() {
        Ok(pool) => pool.install(|| prepare(passes)),
        // No thread could be started: one after another, here.
        Err(_) => passes.iter_mut().for_each(|p| p.prepare(cx)),
    }
}

/// The size order under which every accepted variant is smaller: token count, then bytes,
/// then the text itself (shortlex), so that rewrites of equal size still make progress and
/// terminate.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Measure<'a> {
    /// Token count.
    pub tokens: usize,
    /// Length in bytes.
    pub bytes: usize,
    /// The text, compared last.
    pub text: &'a str,
}

impl<'a> Measure<'a> {
    /// The measure of `text` with `tokens` tokens.
    pub fn of(text: &'a str, tokens: usize) -> Measure<'a> {
        Measure { tokens, bytes: text.len(), text }
    }
}

/// A pass as the registry declares it (after C-Vise's pass table and Perses'
/// `ReducerAnnotation`): each built-in pass's module holds one, named `INFO`, and the
/// pipeline's registry lists them in the default order.
#[derive(Clone, Copy, Debug)]
pub struct PassInfo {
    /// Its `--passes` name.
    pub name: &'static str,
    /// What it does in a compiler engineer's words, a few of them (the summary's "most
    /// tests went to …").
    pub plain: &'static str,
    /// One line: what it does, with its source.
    pub about: &'static str,
    /// Where in the pipeline it runs.
    pub group: Group,
    /// Whether its variants may be larger than the best (only then is it exempt from the
    /// size order [`Measure`]).
    pub grows: bool,
    /// How it is built.
    pub kind: Kind,
}

/// The pipeline's pass groups (after C-Vise's first / main / last pass groups).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Once, before the global fixpoint.
    First,
    /// In every round of the global fixpoint, in `--passes` order.
    Main,
    /// Once, after the global fixpoint.
    Last,
}

/// The searches that try every instance of one transformation in one candidate, then a
/// coarse ddmin over the instances (C-Vise's binary-search passes), once, in the `first`
/// group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoarseSearch {
    /// Every file of a project deleted, with the lines naming it (`files`).
    Files,
    /// Every function definition made a declaration (`definitions`).
    Definitions,
    /// Every place of one kind of list emptied (`instances`).
    Instances,
    /// The outermost list's reference-graph heads, each with what only it reaches (`slices`).
    Slices,
}

/// How a registry entry becomes part of a reduction.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// Perses' own search (Algorithm 2), to its own fixpoint.
    Perses,
    /// The unused-declarations search: part of each Perses round.
    Unused,
    /// One of the searches that try every instance of one transformation at once, then a
    /// coarse ddmin over the instances.
    Coarse(CoarseSearch),
    /// A built-in transformation in Regehr's contract: a new instance.
    Transformation(fn() -> Box<dyn Pass>),
    /// External transformation commands (clang_delta's), which the caller builds: they run
    /// processes with the test's time limit.
    External,
    /// The layout step.
    Layout,
}

#[cfg(test)]
mod tests;

/// Each identifier's occurrences (tokens of the grammar's identifier symbols, as
/// [`identifiers`] renames them) in source order, and the names in order of their first
/// occurrence: one pass over the tokens.
pub(crate) fn occurrences(cx: Context<'_>) -> (Vec<&str>, std::collections::HashMap<&str, Vec<NodeId>>) {
    let (t, g) = (cx.tree, cx.grammar);
    let mut order: Vec<&str> = Vec::new();
    let mut occurrences: std::collections::HashMap<&str, Vec<NodeId>> = std::collections::HashMap::new();
    for &id in t.token_ids().iter().filter(|&&id| t.node(id).symbol.is_some_and(|s| g.is_identifier(s))) {
        let ids = occurrences.entry(t.token_text(id)).or_default();
        if ids.is_empty() {
            order.push(t.token_text(id));
        }
        ids.push(id);
    }
    (order, occurrences)
}

/// The innermost list element (a child of a star, plus or optional node) that holds node
/// `n` (or is it).
pub(crate) fn list_element(tree: &Tree, n: NodeId) -> Option<NodeId> {
    std::iter::once(n).chain(tree.ancestors(n)).find(|&m| {
        tree.node(m)
            .parent
            .is_some_and(|p| matches!(tree.node(p).kind, lopper_tree::NodeKind::Star | lopper_tree::NodeKind::Plus | lopper_tree::NodeKind::Optional))
    })
}

/// Where token `id` is in the tree's source, in bytes (`0..0` for a node without text).
pub(crate) fn span(tree: &Tree, id: NodeId) -> std::ops::Range<usize> {
    tree.node(id).text.as_ref().map_or(0..0, |r| r.start as usize..r.end as usize)
}

/// The outermost nodes of the tree whose grammar symbol is named one of `names` (the
/// tree-sitter grammars' names, e.g. `function_item`), with that name, in source order.
pub(crate) fn outermost_named<'g>(cx: Context<'g>, names: &[&str]) -> Vec<(NodeId, &'g str)> {
    let (t, g) = (cx.tree, cx.grammar);
    let mut found = Vec::new();
    t.walk(&EditSet::default(), |n| {
        let node = t.node(n);
        if let Some(name) = node.symbol.map(|s| g.symbol(s).name.as_str()).filter(|name| names.contains(name)) {
            found.push((n, name));
            return false;
        }
        node.kind != lopper_tree::NodeKind::Token
    });
    found
}

/// Every node of the tree whose grammar symbol is named one of `names`, nested ones
/// included, in source order (pre-order).
pub(crate) fn all_named(cx: Context<'_>, names: &[&str]) -> Vec<NodeId> {
    let (t, g) = (cx.tree, cx.grammar);
    let mut found = Vec::new();
    t.walk(&EditSet::default(), |n| {
        if t.node(n).symbol.is_some_and(|s| names.contains(&g.symbol(s).name.as_str())) {
            found.push(n);
        }
        true
    });
    found
}

/// `src` with each range of `cuts` replaced by its text; a range that starts inside an
/// earlier one (an edit inside a deleted list, `f(f(a, b), c)`) goes with it.
pub(crate) fn splice(src: &str, mut cuts: Vec<(std::ops::Range<usize>, &str)>) -> String {
    cuts.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(src.len());
    let mut at = 0;
    for (r, with) in cuts {
        if r.start < at {
            continue;
        }
        out.push_str(&src[at..r.start]);
        out.push_str(with);
        at = r.end;
    }
    out.push_str(&src[at..]);
    out
}
