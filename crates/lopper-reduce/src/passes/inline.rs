//! Definition inlining (what C-Vise's `replace-simple-typedef` and `copy-propagation` do for
//! C, as one pass that knows no language): a short list element `D` (a child of a Kleene
//! star, plus or optional: a declaration, statement or member of at most
//! [`MAX_DEFINITION`] tokens) holding the first occurrence of an identifier `X`, not as its
//! first token, where `X` occurs again after `D`, is deleted, and every later `X` becomes
//! the text of one other word of `D` (an identifier, keyword or literal token; never
//! punctuation). So `typedef __builtin_va_list b; … b e;` becomes `… __builtin_va_list e;` and
//! `var a = f; a();` becomes `f();`. Identifiers are the grammar's identifier tokens (as in
//! [`super::identifiers`]). Instance `k` is the `k`-th (identifier, word) pair, identifiers
//! in order of first occurrence, words in `D`'s order; the reducer screens variants with
//! new syntax errors out before any test, as for every pass.

use super::{Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_grammar::{PnfRule, Terminal};
use lopper_tree::{Edit, EditSet, NodeId};
use std::collections::HashSet;

/// The largest definition, in tokens, that is inlined: a typedef or a variable with a
/// simple initializer, not a function.
pub const MAX_DEFINITION: u32 = 8;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Inline {
    instances: Vec<EditSet>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo { name: "inline", plain: "inlining short definitions", about: "definition inlining: delete a short definition and put one of its words in place of its name everywhere, e.g. a typedef (C-Vise's replace-simple-typedef and copy-propagation, without the language)", group: Group::Main, grows: false, kind: Kind::Transformation(create) };

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Inline::default())
}

impl Pass for Inline {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Inline::default()))
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        // A word: an identifier, a literal (not a string of the grammar), or an alphanumeric
        // keyword such as `int`; punctuation would not stand for a name.
        let word = |id: NodeId| {
            let text = t.token_text(id);
            let keyword = t.node(id).symbol.is_some_and(|s| matches!(g.symbol(s).rule, PnfRule::Terminal(Terminal::Str(_))));
            !text.is_empty() && (!keyword || text.chars().all(|c| c.is_alphanumeric() || c == '_'))
        };
        let (order, occurrences) = super::occurrences(cx);
        for name in order {
            let x = occurrences[name][0];
            let Some(d) = super::list_element(t, x).filter(|&d| t.node(d).tokens <= MAX_DEFINITION) else { continue };
            // A definition names its identifier after a keyword or type (`typedef T x;`,
            // `var x = …`, `int x = …`); one that starts with it is a use or a parameter's
            // default (`x = c`), whose value is no stand-in for it.
            if t.subtree_token_ids(d).first() == Some(&x) {
                continue;
            }
            let inside: HashSet<NodeId> = t.subtree_token_ids(d).iter().copied().collect();
            let uses: Vec<NodeId> = occurrences[name].iter().copied().filter(|u| !inside.contains(u)).collect();
            // A name used nowhere else is Perses' to delete with its definition.
            if uses.is_empty() {
                continue;
            }
            let mut words = HashSet::new();
            for &y in t.subtree_token_ids(d) {
                let text = t.token_text(y);
                if text == name || !word(y) || !words.insert(text) {
                    continue;
                }
                let mut e = EditSet::default().with(d, Edit::Delete);
                e.extend(uses.iter().map(|&u| (u, Edit::Text(text.to_string()))));
                self.instances.push(e);
            }
        }
    }

    fn instance(&self, _cx: Context<'_>, k: usize) -> Instance {
        self.instances.get(k).map_or(Instance::Exhausted, |e| Instance::Variant(e.clone()))
    }
}
