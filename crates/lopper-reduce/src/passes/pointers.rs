//! A local pointer to one object replaced by that object (C, C++): a declarator `*p = &x`
//! in a function body, where every other occurrence of `p` in that function is a
//! dereference `*p` at the start of an operand, is deleted and each `*p` becomes `x`
//! (`int *g = &c; … *g = a[b];` → `… c = a[b];`). The program means the same while `p`
//! is never made to point elsewhere, which the rule ensures by allowing no other use of
//! it. C-Vise's `reduce-pointer-level` makes `int g = c` there, a copy, and the stores
//! through the pointer no longer reach `c`.
//!
//! Instance `k` is the `k`-th such declarator in source order; variants are whole texts.

use super::{all_named, span, splice, Context, Group, Instance, Kind, Pass, PassInfo};
use crate::symbols::{in_body, is, is_name, token_text_at, DECLARATION, FUNCTION_DEFINITION, INIT_DECLARATOR};
use std::ops::Range;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Pointers {
    /// Per instance: the source ranges to replace and their new texts.
    instances: Vec<Vec<(Range<usize>, String)>>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "pointers",
    plain: "replacing local pointers by their objects",
    about: "a local pointer declared *p = &x and otherwise only dereferenced (*p) deleted, each *p becoming x",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Pointers::default())
}

impl Pass for Pointers {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Pointers::default()))
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        for d in all_named(cx, &[INIT_DECLARATOR]) {
            let toks = t.subtree_token_ids(d);
            let texts: Vec<&str> = toks.iter().map(|&x| t.token_text(x)).collect();
            let ["*", p, "=", "&", x] = texts[..] else { continue };
            if !is_name(p) || !is_name(x) || !in_body(t, g, d) {
                continue;
            }
            let Some(f) = t.ancestors(d).find(|&a| is(t, g, a, &[FUNCTION_DEFINITION])) else { continue };
            let body = t.subtree_token_ids(f);
            let Some(at) = body.iter().position(|&y| y == toks[0]) else { continue };
            let word = |k: usize| token_text_at(t, body, k);
            // Every other `p` dereferenced where an operand starts.
            let mut cuts = Vec::new();
            let only_dereferenced = (0..body.len()).filter(|&k| word(k) == p && !toks.contains(&body[k])).all(|k| {
                let ok = k >= 2 && word(k - 1) == "*" && matches!(word(k - 2), "{" | "}" | ";" | "(" | "," | "=" | "return");
                if ok {
                    cuts.push((span(t, body[k - 1]).start..span(t, body[k]).end, x.to_string()));
                }
                ok
            });
            if !only_dereferenced || cuts.is_empty() {
                continue;
            }
            let (before, after) = (word(at.wrapping_sub(1)), word(at + 5));
            let last = span(t, toks[4]).end;
            let declarator = match (before, after) {
                // `T *p = &x, q …;`: the declarator and its comma.
                (_, ",") => span(t, toks[0]).start..span(t, body[at + 5]).end,
                // `T q, *p = &x;`: the comma before it and the declarator.
                (",", _) => span(t, body[at - 1]).start..last,
                // `T *p = &x;`: the whole declaration.
                (_, ";") => match t.ancestors(d).find(|&a| is(t, g, a, &[DECLARATION])) {
                    Some(decl) => span(t, t.subtree_token_ids(decl)[0]).start..span(t, body[at + 5]).end,
                    None => continue,
                },
                _ => continue,
            };
            cuts.push((declarator, String::new()));
            self.instances.push(cuts);
        }
    }

    fn instance(&self, cx: Context<'_>, k: usize) -> Instance {
        let Some(cuts) = self.instances.get(k) else { return Instance::Exhausted };
        Instance::Text(splice(cx.tree.source(), cuts.iter().map(|(r, w)| (r.clone(), w.as_str())).collect()))
    }
}
