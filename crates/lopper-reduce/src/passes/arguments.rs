//! A parameter removed together with the matching argument of every call (point 3 of our
//! validity work; C-Vise reaches it through `param-to-local` and `remove-unused-var`, two
//! steps with a larger program between them). For a function name `f` with at least one
//! parameter list (`f(int a, int b)`: a definition or declaration) and calls `f(x, y)`, all
//! with the same number of items, instance `(f, i)` deletes item `i` of every one of those
//! lists in one candidate. Only a parameter its function's body and parameter list do not
//! name is removed, so a compiler that accepted the program accepts the candidate (a
//! parameter the body uses first becomes a local through `params`' inverse, or stays). A
//! name whose lists differ in length (variadic calls, default arguments, overloads) or
//! whose calls pass a keyword argument (`f(x=1)`) is left alone. Instance `k` is the
//! `k`-th `(f, i)` in order of `f`'s first parameter list, then of `i`.

use super::{span, Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_tree::{NodeId, Tree};
use std::collections::HashMap;
use std::ops::Range;

/// The grammar symbols of a parameter list (tree-sitter's names in C, C++, Go; Java and
/// JavaScript; Rust and Python).
const PARAMETER_LISTS: [&str; 3] = ["parameter_list", "formal_parameters", "parameters"];
/// The grammar symbols of a call's argument list.
const ARGUMENT_LISTS: [&str; 2] = ["argument_list", "arguments"];
/// The grammar symbols whose `<` and `>` bracket a list (templates and generics).
const ANGLE_LISTS: [&str; 4] = ["template_argument_list", "template_parameter_list", "type_arguments", "type_parameters"];

/// The pass; see the module docs.
#[derive(Default)]
pub struct Arguments {
    /// Each instance's cuts: byte ranges of the best deleted.
    instances: Vec<Vec<Range<usize>>>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "arguments",
    plain: "deleting unused parameters with their arguments",
    about: "a parameter no body uses removed with the matching argument of every call, in one candidate (a function's lists all of one length)",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Arguments::default())
}

/// A bracketed list of the tree, by token positions (indices into [`Tree::token_ids`]).
pub(crate) struct List {
    /// The opening bracket's position.
    pub(crate) open: usize,
    /// The closing bracket's position.
    pub(crate) close: usize,
    /// Each item's first and last position (inclusive), between the brackets.
    pub(crate) items: Vec<(usize, usize)>,
}

impl List {
    /// The bytes that go when item `i` is deleted: the item and the comma after it (before
    /// it, for the last of several); the whole inside for the only one.
    pub(crate) fn cut(&self, t: &Tree, i: usize) -> Range<usize> {
        let ids = t.token_ids();
        let (first, last) = self.items[i];
        if i + 1 < self.items.len() {
            span(t, ids[first]).start..span(t, ids[self.items[i + 1].0]).start
        } else if i > 0 {
            span(t, ids[self.items[i - 1].1]).end..span(t, ids[last]).end
        } else {
            span(t, ids[first]).start..span(t, ids[last]).end
        }
    }
}

/// The symbol name of the node holding token `id` (its parent), if it has one.
pub(crate) fn parent_name<'g>(t: &Tree, g: &'g lopper_grammar::PnfGrammar, id: NodeId) -> Option<&'g str> {
    t.node(id).parent.and_then(|p| t.node(p).symbol).map(|s| g.symbol(s).name.as_str())
}

/// The list whose opening bracket is at position `open`: its items split at the commas of
/// its own level (brackets `()`, `[]`, `{}` and the `<>` of [`ANGLE_LISTS`] nest).
/// `None` when the brackets do not match.
pub(crate) fn list_at(cx: Context<'_>, open: usize) -> Option<List> {
    let (close, commas) = brackets(cx, open, true)?;
    let mut items = Vec::new();
    let mut start = open + 1;
    for &c in &commas {
        items.push((start, c.checked_sub(1)?));
        start = c + 1;
    }
    if close > start || !items.is_empty() {
        items.push((start, close.checked_sub(1)?));
    }
    // An empty item (`f(a,)`, a trailing comma) is not an item of the call.
    if items.iter().any(|&(a, b)| a > b) {
        return None;
    }
    Some(List { open, close, items })
}

/// The position of the token that closes the bracket opened at `open` (`()`, `[]`, `{}`
/// nest; angle brackets do not).
fn matching(cx: Context<'_>, open: usize) -> Option<usize> {
    brackets(cx, open, false).map(|(close, _)| close)
}

/// From the bracket opened at position `open`: the position of the one that closes it and
/// those of the commas of its own level. Brackets `()`, `[]`, `{}` nest, and with `angles`
/// the `<>` of [`ANGLE_LISTS`] too (a `>>` closing two of them is refused: `None`).
fn brackets(cx: Context<'_>, open: usize, angles: bool) -> Option<(usize, Vec<usize>)> {
    let (t, g) = (cx.tree, cx.grammar);
    let mut depth = 0usize;
    let mut commas = Vec::new();
    for (p, &id) in t.token_ids().iter().enumerate().skip(open) {
        let angle = || angles && parent_name(t, g, id).is_some_and(|n| ANGLE_LISTS.contains(&n));
        match t.token_text(id) {
            "(" | "[" | "{" => depth += 1,
            "<" if angle() => depth += 1,
            ")" | "]" | "}" => depth = depth.checked_sub(1)?,
            ">" if angle() => depth = depth.checked_sub(1)?,
            ">>" if angle() => return None,
            "," if depth == 1 => commas.push(p),
            _ => {}
        }
        if depth == 0 {
            return Some((p, commas));
        }
    }
    None
}

impl Pass for Arguments {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Arguments::default()))
    }

    fn keeps_words(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        let ids = t.token_ids();
        // Each name's lists, parameter lists flagged, in source order of the names.
        let mut order: Vec<&str> = Vec::new();
        let mut lists: HashMap<&str, Vec<(bool, List)>> = HashMap::new();
        for p in 1..ids.len() {
            if t.token_text(ids[p]) != "(" {
                continue;
            }
            let Some(kind) = parent_name(t, g, ids[p]) else { continue };
            let parameters = PARAMETER_LISTS.contains(&kind);
            if !parameters && !ARGUMENT_LISTS.contains(&kind) {
                continue;
            }
            let name = ids[p - 1];
            if !t.node(name).symbol.is_some_and(|s| g.is_identifier(s)) {
                continue;
            }
            let Some(list) = list_at(cx, p) else { continue };
            let entry = lists.entry(t.token_text(name)).or_default();
            if entry.is_empty() {
                order.push(t.token_text(name));
            }
            entry.push((parameters, list));
        }
        for name in order {
            let found = &lists[name];
            let n = found[0].1.items.len();
            let keyword = |l: &List| l.items.iter().any(|&(a, b)| (a..=b).any(|q| t.token_text(ids[q]) == "=" && l.open < q));
            if !found.iter().any(|(p, _)| *p) || found.iter().any(|(p, l)| l.items.len() != n || (!p && keyword(l))) {
                continue;
            }
            for i in 0..n {
                if found.iter().all(|(p, l)| !p || unused(cx, l, i)) {
                    self.instances.push(found.iter().map(|(_, l)| l.cut(t, i)).collect());
                }
            }
        }
    }

    fn instance(&self, cx: Context<'_>, k: usize) -> Instance {
        let Some(cuts) = self.instances.get(k) else { return Instance::Exhausted };
        Instance::Text(super::splice(cx.best, cuts.iter().map(|r| (r.clone(), "")).collect()))
    }
}

/// Whether parameter `i` of parameter list `l` can go: no identifier of it (at its own
/// level, not inside a nested declarator's brackets) is named elsewhere in the list or in
/// the body that follows it (the first `{ … }` before any `;`).
fn unused(cx: Context<'_>, l: &List, i: usize) -> bool {
    let (t, g) = (cx.tree, cx.grammar);
    let ids = t.token_ids();
    let (first, last) = l.items[i];
    let mut depth = 0usize;
    let mut names = Vec::new();
    for &id in &ids[first..=last] {
        match t.token_text(id) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth = depth.saturating_sub(1),
            "..." => return false,
            _ if depth == 0 && t.node(id).symbol.is_some_and(|s| g.symbol(s).name == "identifier") => names.push(t.token_text(id)),
            _ => {}
        }
    }
    let body = (l.close + 1..ids.len()).take(64).find(|&q| matches!(t.token_text(ids[q]), "{" | ";")).filter(|&q| t.token_text(ids[q]) == "{");
    let body = body.and_then(|open| Some(open..matching(cx, open)? + 1)).unwrap_or_default();
    let mut elsewhere = (l.open..=l.close).filter(|q| !(first..=last).contains(q)).chain(body);
    !elsewhere.any(|q| names.contains(&t.token_text(ids[q])))
}
