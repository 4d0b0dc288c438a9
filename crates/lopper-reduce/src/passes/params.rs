//! Local declaration to parameter (the inverse of C-Vise's `param-to-local`, without the
//! language): a short list element `D` of a block that directly follows a closing `)` — a
//! statement or declaration of a function's body — is deleted and put, without its final
//! punctuation token (`;`), at the end of that parameter list. So
//! `void a() { T c; c[0] = 0; }` becomes `void a(T c) { c[0] = 0; }`: the declaration's
//! terminator goes, and the variable keeps its type and its uses. What the language does
//! not accept as a parameter (`if (x) { y = 1; }` → `if (x, y = 1) {}`) is screened out by
//! the grammar check before any test, as for every pass. Instance `k` is the `k`-th such
//! element in source order. Variants are whole texts (the parameter is more than one token,
//! so the reducer counts the variant's tokens by parsing it): a move that only trades the
//! `;` for a `,` is no smaller and never tested.

use super::{span, Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_tree::{EditSet, NodeId, NodeKind};

/// The largest element, in tokens, that is moved: a declaration, not a whole statement.
pub const MAX_DECLARATION: u32 = 6;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Params {
    instances: Vec<String>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo { name: "params", plain: "moving declarations into parameter lists", about: "local declaration to parameter: a short declaration of a function's body moves into its parameter list without its `;` (the inverse of C-Vise's param-to-local)", group: Group::Main, grows: false, kind: Kind::Transformation(create) };

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Params::default())
}

impl Pass for Params {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Params::default()))
    }

    fn keeps_words(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let t = cx.tree;
        let order = t.token_ids();
        let first_token = |id: NodeId| t.subtree_token_ids(id).first().and_then(|&f| t.token_position(f));
        // Every list node, in source order.
        let mut lists = Vec::new();
        t.walk(&EditSet::default(), |n| {
            if matches!(t.node(n).kind, NodeKind::Star | NodeKind::Plus) {
                lists.push(n);
            }
            true
        });
        let src = t.source();
        for list in lists {
            // The block the list is the body of, and the `)` right before the block.
            let Some(block) = t.node(list).parent else { continue };
            let Some(close) = first_token(block).and_then(|i| i.checked_sub(1)) else { continue };
            if t.token_text(order[close]) != ")" {
                continue;
            }
            let comma = if close > 0 && t.token_text(order[close - 1]) == "(" { "" } else { ", " };
            let at = span(t, order[close]).start;
            for &d in &t.node(list).children {
                if t.node(d).tokens < 2 || t.node(d).tokens > MAX_DECLARATION {
                    continue;
                }
                let tokens = t.subtree_token_ids(d);
                // Without a final punctuation token (a terminator such as `;`).
                let last = t.token_text(tokens[tokens.len() - 1]);
                let keep = if last.chars().any(|c| c.is_alphanumeric() || c == '_') { tokens } else { &tokens[..tokens.len() - 1] };
                let parameter = span(t, keep[0]).start..span(t, keep[keep.len() - 1]).end;
                let moved = span(t, tokens[0]).start..span(t, tokens[tokens.len() - 1]).end;
                self.instances.push(format!("{}{comma}{}{}{}", &src[..at], &src[parameter], &src[at..moved.start], &src[moved.end..]));
            }
        }
    }

    fn instance(&self, _cx: Context<'_>, k: usize) -> Instance {
        self.instances.get(k).map_or(Instance::Exhausted, |text| Instance::Text(text.clone()))
    }
}
