//! A function called once, inlined at its call (C, C++; what C-Vise's `simple-inliner`
//! does for functions with a value, here for those without): a function definition with
//! no parameters (`()` or `(void)`) and no `return` in its body, whose name the program
//! has at one other place only, a call statement `f();`, is deleted, and its body takes
//! the call's place — a block, or the statements alone where the call was its block's only
//! statement (`int main() { f(); }` becomes `int main() { … }`). Perses cannot do this:
//! it deletes or replaces nodes within their place and never moves a subtree. A wrong-code
//! program is often a library driven from `main`; the driver's one-call layers go here.
//! The body's names may then mean something else (a local of the caller's shadowing a
//! global the body used): the test judges the variant like any other.
//!
//! Instance `k` is the `k`-th such function in source order; variants are whole texts.

use super::{occurrences, outermost_named, span, splice, Context, Group, Instance, Kind, Pass, PassInfo};
use crate::symbols::{token_text_at, FUNCTION_DEFINITION};
use std::ops::Range;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Calls {
    /// Per instance: the definition's source range, the call statement's, and the text
    /// that takes the call's place.
    instances: Vec<(Range<usize>, Range<usize>, String)>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "calls",
    plain: "inlining functions called once",
    about: "a function with no parameters and no return, called once as a statement (f();), deleted and its body put in the call's place",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Calls::default())
}

impl Pass for Calls {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Calls::default()))
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let t = cx.tree;
        let (_, uses) = occurrences(cx);
        let all = t.token_ids();
        let src = t.source();
        for (f, _) in outermost_named(cx, &[FUNCTION_DEFINITION]) {
            let toks = t.subtree_token_ids(f);
            let text = |k: usize| token_text_at(t, toks, k);
            let Some(open) = (0..toks.len()).find(|&k| text(k) == "(") else { continue };
            let close = match (text(open + 1), text(open + 2)) {
                (")", _) => open + 1,
                ("void", ")") => open + 2,
                _ => continue,
            };
            if open == 0 || text(close + 1) != "{" || text(toks.len() - 1) != "}" || toks[close + 1..].iter().any(|&x| t.token_text(x) == "return") {
                continue;
            }
            let name = toks[open - 1];
            let Some(&[a, b]) = uses.get(t.token_text(name)).map(Vec::as_slice) else { continue };
            let call = if a == name { b } else { a };
            if toks.contains(&call) {
                continue;
            }
            let Some(at) = all.iter().position(|&x| x == call) else { continue };
            let word = |k: usize| token_text_at(t, all, k);
            let statement_start = at > 0 && matches!(word(at - 1), "{" | "}" | ";" | ")" | "else" | ":");
            if !statement_start || (word(at + 1), word(at + 2), word(at + 3)) != ("(", ")", ";") {
                continue;
            }
            let body = span(t, toks[close + 1]).start..span(t, toks[toks.len() - 1]).end;
            // The call alone in its block: the body's statements, not a block inside it.
            let alone = word(at - 1) == "{" && word(at + 4) == "}";
            let with = if alone { &src[body.start + 1..body.end - 1] } else { &src[body] };
            let definition = span(t, toks[0]).start..span(t, toks[toks.len() - 1]).end;
            self.instances.push((definition, span(t, call).start..span(t, all[at + 3]).end, with.trim().to_string()));
        }
    }

    fn instance(&self, cx: Context<'_>, k: usize) -> Instance {
        let Some((definition, call, with)) = self.instances.get(k) else { return Instance::Exhausted };
        Instance::Text(splice(cx.tree.source(), vec![(definition.clone(), ""), (call.clone(), with.as_str())]))
    }
}
