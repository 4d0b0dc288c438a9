//! Sub-tree replacement (Vulcan, Xu et al., OOPSLA'23): replace a node by the smallest
//! program text that the symbol expected at its position derives — an expression by `0` or
//! `a`, a block by `{}` — where Perses can only use the node's own descendants.
//!
//! Minimal derivations are computed per symbol by a shortest-derivation fixpoint (Knuth's
//! generalization of Dijkstra to grammars, by relaxation): a literal terminal is its text;
//! a lexical terminal (identifier, number pattern) is the shortest token of that symbol in
//! the current program (tokens carry their named symbol, e.g. `identifier`, so that symbol
//! gets the example), or has none; Kleene star and optional derive nothing; a Kleene
//! plus its element; a regular rule its cheapest alternative. Instance `k` is the `k`-th
//! node, largest first, whose expected symbol derives fewer tokens than the node has.

use super::{Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_grammar::{PnfRule, SymbolId, Terminal};
use lopper_tree::{Edit, EditSet, NodeId, NodeKind};
use std::collections::HashMap;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Subtrees {
    instances: Vec<EditSet>,
}

/// The cheapest derivation of every symbol: token count and text, `None` if the symbol
/// derives no text the program shows an example of.
fn minimal(cx: Context<'_>) -> Vec<Option<(usize, String)>> {
    let g = cx.grammar;
    let mut examples: HashMap<SymbolId, &str> = HashMap::new();
    for &id in cx.tree.token_ids() {
        if let Some(s) = cx.tree.node(id).symbol {
            let t = cx.tree.token_text(id);
            let e = examples.entry(s).or_insert(t);
            if (t.len(), t) < (e.len(), *e) {
                *e = t;
            }
        }
    }
    let n = g.symbols.len();
    // A symbol the program has a token of (an identifier, a number: tokens carry the named
    // symbol, not the hidden pattern under it) derives that token's text.
    let mut best: Vec<Option<(usize, String)>> = (0..n).map(|i| examples.get(&(i as SymbolId)).map(|t| (1, t.to_string()))).collect();
    loop {
        let mut changed = false;
        for i in 0..n {
            let cand: Option<(usize, String)> = match &g.symbols[i].rule {
                PnfRule::Terminal(Terminal::Str(s)) => Some((1, s.clone())),
                PnfRule::Terminal(_) => examples.get(&(i as SymbolId)).map(|t| (1, t.to_string())),
                PnfRule::Star(_) | PnfRule::Optional(_) => Some((0, String::new())),
                PnfRule::Plus(x) => best[*x as usize].clone(),
                PnfRule::Regular(alts) => alts
                    .iter()
                    .filter_map(|alt| {
                        let parts: Option<Vec<&(usize, String)>> = alt.iter().map(|x| best[*x as usize].as_ref()).collect();
                        let parts = parts?;
                        let text: Vec<&str> = parts.iter().map(|p| p.1.as_str()).filter(|t| !t.is_empty()).collect();
                        Some((parts.iter().map(|p| p.0).sum(), text.join(" ")))
                    })
                    .min_by(|a, b| (a.0, a.1.len(), &a.1).cmp(&(b.0, b.1.len(), &b.1))),
            };
            if let Some(c) = cand {
                if best[i].as_ref().is_none_or(|b| (c.0, c.1.len()) < (b.0, b.1.len())) {
                    best[i] = Some(c);
                    changed = true;
                }
            }
        }
        if !changed {
            return best;
        }
    }
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "subtrees",
    plain: "replacing subtrees by the smallest text",
    about:
        "sub-tree replacement: a node becomes the smallest text its expected symbol derives, e.g. an expression `0`, a block `{}` (Vulcan, Xu et al. OOPSLA'23)",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Subtrees::default())
}

impl Pass for Subtrees {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Subtrees::default()))
    }

    fn keeps_words(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let min = minimal(cx);
        let t = cx.tree;
        let mut nodes: Vec<NodeId> = Vec::new();
        t.walk(&EditSet::default(), |id| {
            if !matches!(t.node(id).kind, NodeKind::Token) {
                nodes.push(id);
            }
            true
        });
        // Largest first; ties in source order.
        nodes.sort_by_key(|&id| std::cmp::Reverse(t.node(id).tokens));
        for id in nodes {
            let node = t.node(id);
            let Some(expected) = node.slot.or(node.symbol) else { continue };
            let Some((cost, text)) = &min[expected as usize] else { continue };
            if *cost >= node.tokens as usize {
                continue;
            }
            let tokens = t.subtree_token_ids(id);
            let Some((&first, rest)) = tokens.split_first() else { continue };
            let mut e = if text.is_empty() { EditSet::default().with(first, Edit::Delete) } else { EditSet::default().with(first, Edit::Text(text.clone())) };
            for &x in rest {
                e.insert(x, Edit::Delete);
            }
            self.instances.push(e);
        }
    }

    fn instance(&self, _cx: Context<'_>, k: usize) -> Instance {
        self.instances.get(k).map_or(Instance::Exhausted, |e| Instance::Variant(e.clone()))
    }
}
