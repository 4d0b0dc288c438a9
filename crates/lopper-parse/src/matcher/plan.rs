//! Build plans: how a matched CST node's items become PNF nodes, worked out from the
//! matcher's memo without building anything ([`Matcher::plan_top`]), then carried out
//! ([`Conv::execute`]). A plan depends only on the candidate symbols and the items' kinds
//! (and the text of a token whose kind an alias of keywords shares), not on where they
//! are, so [`Conv`] keeps the plan of each such signature and a node like one seen before
//! is built without matching again: a 150k-token translation unit holds a few thousand
//! distinct signatures.

use super::{Conv, Item, Matcher};
use lopper_grammar::{PnfRule, SymbolId};
use lopper_tree::{NodeId, NodeKind};
use std::collections::VecDeque;

/// What building a symbol over a run of items does (see the module docs). Positions are
/// item indices of the node the plan was made for.
pub(super) enum Plan {
    /// Nothing: an empty match.
    Nothing,
    /// The item at this position as a node of the symbol: a child converted with the
    /// symbol as its parent's choice, or a gap's token.
    Item(u32, SymbolId),
    /// A terminal symbol's token over the item at this position.
    Terminal(u32, SymbolId),
    /// A sequence: each part built and slotted as its symbol; one part or none collapses
    /// into it.
    Regular(SymbolId, Vec<(SymbolId, Plan)>),
    /// A Kleene star or plus: the elements, each slotted as the element symbol.
    List(NodeKind, SymbolId, SymbolId, Vec<Plan>),
    /// An optional's present element.
    Optional(SymbolId, SymbolId, Box<Plan>),
}

impl Matcher<'_, '_, '_> {
    /// The plan of the node's own subtree over all its items, once `top_ends` said `sym`
    /// matches them; `None` if the memo does not hold a derivation (it always should).
    pub(super) fn plan_top(&mut self, sym: SymbolId, end: u32) -> Option<Plan> {
        let s = self.top_symbol(sym);
        self.plan_expanded(s, 0, end)
    }

    /// The plan of `sym` over items `pos..end` (known to match).
    fn plan(&mut self, sym: SymbolId, pos: u32, end: u32) -> Option<Plan> {
        let s = self.g.symbol(sym);
        if s.cst.is_some() || matches!(s.rule, PnfRule::Terminal(_)) {
            return Some(if pos == end { Plan::Nothing } else { Plan::Item(pos, sym) });
        }
        self.plan_expanded(sym, pos, end)
    }

    fn plan_expanded(&mut self, sym: SymbolId, pos: u32, end: u32) -> Option<Plan> {
        let g = self.g;
        Some(match &g.symbol(sym).rule {
            PnfRule::Terminal(_) if end > pos && (pos as usize) < self.items.len() => Plan::Terminal(pos, sym),
            PnfRule::Terminal(_) => Plan::Nothing,
            PnfRule::Regular(alts) => {
                let ai = (0..alts.len()).find(|&ai| self.seq_ends(sym, ai as u32, 0, pos).contains(&end))?;
                let mut parts = Vec::with_capacity(alts[ai].len());
                let mut p = pos;
                for (i, &x) in alts[ai].iter().enumerate() {
                    let ends = self.ends(x, p);
                    let e = *ends.iter().rev().find(|&&e| self.seq_ends(sym, ai as u32, i as u32 + 1, e).contains(&end))?;
                    parts.push((x, self.plan(x, p, e)?));
                    p = e;
                }
                Plan::Regular(sym, parts)
            }
            PnfRule::Star(x) | PnfRule::Plus(x) => {
                let kind = if matches!(g.symbol(sym).rule, PnfRule::Star(_)) { NodeKind::Star } else { NodeKind::Plus };
                Plan::List(kind, sym, *x, self.plan_elements(*x, pos, end)?)
            }
            PnfRule::Optional(_) if pos == end => Plan::Nothing,
            PnfRule::Optional(x) => Plan::Optional(sym, *x, Box::new(self.plan(*x, pos, end)?)),
        })
    }

    /// The plans of the elements of a list of `x` over items `pos..end` (known to match):
    /// a breadth-first path of element matches from `pos` to `end`.
    pub(super) fn plan_elements(&mut self, x: SymbolId, pos: u32, end: u32) -> Option<Vec<Plan>> {
        let mut prev: foldhash::HashMap<u32, u32> = foldhash::HashMap::default();
        let mut queue = VecDeque::from([pos]);
        while let Some(p) = queue.pop_front() {
            if p == end {
                break;
            }
            for &e in self.ends(x, p).iter() {
                if e > p && e <= end && !prev.contains_key(&e) {
                    prev.insert(e, p);
                    queue.push_back(e);
                }
            }
        }
        let mut cuts = vec![end];
        while *cuts.last().unwrap() != pos {
            let p = *prev.get(cuts.last().unwrap())?;
            cuts.push(p);
        }
        cuts.reverse();
        cuts.windows(2).map(|w| self.plan(x, w[0], w[1])).collect()
    }
}

impl Conv<'_> {
    /// Builds what `plan` says over `items` (the node's items, as when it was made): the
    /// subtree's root, `None` if it is empty.
    pub(super) fn execute(&mut self, plan: &Plan, items: &[Item]) -> Option<NodeId> {
        match plan {
            Plan::Nothing => None,
            Plan::Item(at, sym) => match items[*at as usize] {
                Item::Child(n) => self.convert(n, Some(*sym), Some(*sym)),
                Item::Gap(a, b) => Some(self.b.token(Some(*sym), Some(*sym), a..b)),
            },
            Plan::Terminal(at, sym) => {
                let range = match items[*at as usize] {
                    Item::Gap(a, b) => a..b,
                    Item::Child(n) => n.start_byte()..n.end_byte(),
                };
                Some(self.b.token(Some(*sym), Some(*sym), range))
            }
            Plan::Regular(sym, parts) => {
                let mut children = Vec::new();
                for (x, part) in parts {
                    if let Some(id) = self.execute(part, items) {
                        self.b.set_slot(id, Some(*x));
                        children.push(id);
                    }
                }
                if children.len() <= 1 {
                    // A unit derivation (the other symbols derived ε): collapse into the child.
                    return children.pop();
                }
                Some(self.b.node(NodeKind::Regular, Some(*sym), Some(*sym), children))
            }
            Plan::List(kind, sym, x, elements) => {
                let children = self.execute_elements(*x, elements, items);
                (!children.is_empty()).then(|| self.b.node(*kind, Some(*sym), Some(*sym), children))
            }
            Plan::Optional(sym, x, inner) => {
                let id = self.execute(inner, items)?;
                self.b.set_slot(id, Some(*x));
                Some(self.b.node(NodeKind::Optional, Some(*sym), Some(*sym), vec![id]))
            }
        }
    }

    /// The elements of a list of `x` built from their plans, each slotted as `x`.
    pub(super) fn execute_elements(&mut self, x: SymbolId, elements: &[Plan], items: &[Item]) -> Vec<NodeId> {
        elements
            .iter()
            .filter_map(|p| {
                let id = self.execute(p, items)?;
                self.b.set_slot(id, Some(x));
                Some(id)
            })
            .collect()
    }
}
