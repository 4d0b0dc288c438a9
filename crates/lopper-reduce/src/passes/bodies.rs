//! Function bodies inlined at their uses (what clang_delta's `simple-inliner` does for C,
//! as one pass that knows no language): a function without parameters whose body is one
//! expression — Rust's `fn g() -> T { E }`, C's and C++'s `T g() { return E; }`, Go's
//! `func g() T { return E }`, JavaScript's and Java's `return E;` — is deleted, and each
//! use of its name becomes `E`: a call `g()` as a whole, a bare `g` (a function used as a
//! value) alone. So `fn f() -> impl A { g } fn g() -> impl A { D(f) }` becomes
//! `fn f() -> impl A { D(f) }`, the one self-referring function a reduction of mutually
//! returning functions ends with. No parentheses are added around `E`: the grammar screen
//! and the test judge what the text means.
//!
//! Functions are recognized by their grammar symbol (`function_item`, `function_definition`,
//! `function_declaration`, `method_declaration`, the tree-sitter grammars' names) as a whole
//! list element; the name is the first identifier followed by `( )`, and the body is the
//! bracketed block that ends the function and opens at its top level. A body that mentions
//! the function itself is left alone. Instance `k` is the `k`-th such function in source
//! order; variants are whole texts, whose tokens the reducer counts by parsing them, so an
//! inlining that adds tokens (a long body used often) is never tested.

use super::{span, Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_tree::{NodeId, Tree};
use std::ops::Range;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Bodies {
    instances: Vec<Inlining>,
}

/// One function inlined: its definition's source range (deleted), its body expression's,
/// and each use's (the name, or the name through its call's `)`), each replaced by the
/// expression's text.
struct Inlining {
    definition: Range<usize>,
    body: Range<usize>,
    uses: Vec<Range<usize>>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "bodies",
    plain: "inlining one-expression functions",
    about: "function bodies inlined: a function without parameters whose body is one expression (Rust's { E }, return E;) is deleted and each use of its name (a call g(), or g as a value) becomes E (clang_delta's simple-inliner, without the language)",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Bodies::default())
}

/// The grammar symbols of a function definition.
const FUNCTIONS: [&str; 4] = ["function_item", "function_definition", "function_declaration", "method_declaration"];

impl Pass for Bodies {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Bodies::default()))
    }

    fn keeps_words(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        let functions = super::outermost_named(cx, &FUNCTIONS);
        if functions.is_empty() {
            return;
        }
        let identifier = |id: NodeId| t.node(id).symbol.is_some_and(|s| g.is_identifier(s));
        let (_, occurrences) = super::occurrences(cx);
        for (f, _) in functions {
            // The function is a whole list element (a declaration, an item, a member), or
            // one with its terminator (Go's line break, a `;`), which stays.
            let Some(d) = super::list_element(t, f) else { continue };
            let (own, outer) = (t.subtree_token_ids(f), t.subtree_token_ids(d));
            let rest = outer.strip_prefix(own).unwrap_or(&[]);
            if outer.first() != own.first() || !(rest.is_empty() || rest.len() == 1 && matches!(t.token_text(rest[0]).trim(), "" | ";")) {
                continue;
            }
            let Some((name, body)) = parts(t, own, &identifier) else { continue };
            let all = &occurrences[t.token_text(name)];
            let definition = span(t, own[0]).start..span(t, own[own.len() - 1]).end;
            let mut uses = Vec::new();
            let mut recursive = false;
            for &u in all {
                let here = span(t, u);
                if here.start >= definition.start && here.end <= definition.end {
                    recursive |= u != name;
                    continue;
                }
                // A call without arguments goes as a whole; any other use is the name alone.
                uses.push(here.start..here.end + empty_call(&t.source()[here.end..]));
            }
            if !recursive && !uses.is_empty() {
                self.instances.push(Inlining { definition, body, uses });
            }
        }
    }

    fn instance(&self, cx: Context<'_>, k: usize) -> Instance {
        let Some(i) = self.instances.get(k) else { return Instance::Exhausted };
        let src = cx.tree.source();
        let mut cuts: Vec<(Range<usize>, &str)> = i.uses.iter().map(|u| (u.clone(), &src[i.body.clone()])).collect();
        cuts.push((i.definition.clone(), ""));
        Instance::Text(super::splice(src, cuts))
    }
}

/// The length of the `( )` that `rest` starts with (whitespace allowed), or 0.
fn empty_call(rest: &str) -> usize {
    let open = rest.len() - rest.trim_start().len();
    let Some(after) = rest[open..].strip_prefix('(') else { return 0 };
    let close = after.len() - after.trim_start().len();
    if after[close..].starts_with(')') {
        open + 1 + close + 1
    } else {
        0
    }
}

/// A function's name (the first identifier followed by `( )`) and its body expression's
/// source range: the tokens of the final `{ … }` block (opened at the function's top
/// level), without a leading `return` and a trailing `;`; `None` when the function has
/// parameters or its body is not one expression.
fn parts(t: &Tree, own: &[NodeId], identifier: &dyn Fn(NodeId) -> bool) -> Option<(NodeId, Range<usize>)> {
    let text = |i: usize| t.token_text(own[i]);
    let n = own.len();
    let at = (0..n.saturating_sub(2)).find(|&i| identifier(own[i]) && text(i + 1) == "(")?;
    if text(at + 2) != ")" || text(n - 1) != "}" {
        return None;
    }
    // The body's `{`: the first one at depth 0 after the parameters; it must close last.
    let mut depth = 0i32;
    let mut open = None;
    for i in at + 3..n {
        match text(i) {
            "{" if depth == 0 && open.is_none() => {
                open = Some(i);
                depth += 1;
            }
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => {
                depth -= 1;
                if depth == 0 && open.is_some() && i != n - 1 {
                    return None;
                }
            }
            _ => {}
        }
    }
    let open = open?;
    let mut body = open + 1..n - 1;
    if body.start < body.end && text(body.start) == "return" {
        body.start += 1;
    }
    if body.start < body.end && text(body.end - 1) == ";" {
        body.end -= 1;
    }
    if body.is_empty() {
        return None;
    }
    // One expression: no statement separator or `return` at its own level.
    let mut depth = 0i32;
    for i in body.clone() {
        match text(i) {
            "{" | "(" | "[" => depth += 1,
            "}" | ")" | "]" => depth -= 1,
            ";" | "return" | "let" if depth == 0 => return None,
            _ => {}
        }
    }
    Some((own[at], span(t, own[body.start]).start..span(t, own[body.end - 1]).end))
}
