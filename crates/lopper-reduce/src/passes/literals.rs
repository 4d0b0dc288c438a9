//! Literal canonicalization (T-Rec): a number token becomes `0`, or else `1`; a string
//! literal becomes empty (`""`, `''`, or an empty template). Numbers are tokens that are
//! not literal strings of the grammar (keywords, punctuation) and start with a digit;
//! strings are nodes whose first and last tokens are the same quote character, or single
//! tokens quoted so (grammar files' atomic string rules).

use super::{Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_grammar::{PnfRule, Terminal};
use lopper_tree::{Edit, EditSet, NodeId, NodeKind};

/// The pass; see the module docs.
#[derive(Default)]
pub struct Literals {
    instances: Vec<EditSet>,
}

const QUOTES: [&str; 3] = ["\"", "'", "`"];

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "literals",
    plain: "simplifying literals",
    about: "literal canonicalization: every literal at once, then one at a time: numbers to 0 or 1, strings to empty (T-Rec, TOSEM'24)",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Literals::default())
}

impl Pass for Literals {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Literals::default()))
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        // Not a keyword or punctuation: those are literal strings of the grammar.
        let lexical = |id: NodeId| t.node(id).symbol.is_none_or(|s| !matches!(g.symbol(s).rule, PnfRule::Terminal(Terminal::Str(_))));
        // Strings made of several tokens: the outermost node that is quoted on both ends.
        let mut in_string = vec![false; t.len()];
        let mut order = vec![t.root()];
        while let Some(n) = order.pop() {
            let node = t.node(n);
            if node.kind != NodeKind::Token && node.tokens >= 3 {
                let toks = t.subtree_token_ids(n);
                let (first, last) = (t.token_text(toks[0]), t.token_text(toks[toks.len() - 1]));
                // Only the ends may be quotes: `"a" + "b"` is not one string.
                let inner_quote = toks[1..toks.len() - 1].iter().any(|&x| t.token_text(x) == first);
                if first == last && QUOTES.contains(&first) && !inner_quote {
                    let mut e = EditSet::default();
                    e.insert(toks[0], Edit::Text(format!("{first}{first}")));
                    for &x in &toks[1..] {
                        e.insert(x, Edit::Delete);
                        in_string[x.0 as usize] = true;
                    }
                    in_string[toks[0].0 as usize] = true;
                    self.instances.push(e);
                    continue;
                }
            }
            order.extend(node.children.iter().rev());
        }
        for &id in t.token_ids() {
            if in_string[id.0 as usize] || !lexical(id) {
                continue;
            }
            let text = t.token_text(id);
            let q = text.get(..1).unwrap_or("");
            if text.len() > 2 && QUOTES.contains(&q) && text.ends_with(q) {
                self.instances.push(EditSet::default().with(id, Edit::Text(format!("{q}{q}"))));
            } else if text.starts_with(|c: char| c.is_ascii_digit()) {
                for small in ["0", "1"] {
                    if text != small {
                        self.instances.push(EditSet::default().with(id, Edit::Text(small.into())));
                    }
                }
            }
        }
    }

    /// Instance 0 rewrites every literal at once where there are two or more; then one
    /// literal per instance.
    fn instance(&self, _cx: Context<'_>, k: usize) -> Instance {
        if self.instances.len() < 2 {
            return self.instances.get(k).map_or(Instance::Exhausted, |e| Instance::Variant(e.clone()));
        }
        if k == 0 {
            let mut all = EditSet::default();
            for e in &self.instances {
                // A number's first rewrite (to 0) wins over its second (to 1).
                for id in e.ids() {
                    if let (Some(edit), false) = (e.get(id), all.contains(id)) {
                        all.insert(id, edit.clone());
                    }
                }
            }
            return Instance::Variant(all);
        }
        self.instances.get(k - 1).map_or(Instance::Exhausted, |e| Instance::Variant(e.clone()))
    }
}
