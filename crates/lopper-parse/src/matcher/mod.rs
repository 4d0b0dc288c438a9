//! CST-to-PNF matching: rebuilds the quantified groups a tree-sitter CST hides.
//!
//! For each named CST node, its children (extras skipped, uncovered non-blank text kept as
//! "gap" items for invisible tokens) are recognized against the node's PNF rule by a
//! memoized set-of-end-positions recognizer (hidden symbols expanded, visible symbols
//! matched one item each), then one derivation is rebuilt. Unit chains collapse into their
//! innermost node, which keeps the outer symbol as its slot.

mod memo;
mod plan;
mod recovery;

use crate::MatchStats;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use lopper_grammar::{CstKind, PnfGrammar, PnfRule, SymbolId, Terminal};
use lopper_tree::{NodeId, NodeKind, Tree, TreeBuilder};
use memo::{Ends, Tables};
use plan::Plan;
use std::rc::Rc;

/// Converts a tree-sitter CST over `src` into a PNF tree. `kinds`: per symbol of `g`, the
/// tree-sitter kind id of its CST kind (`Language::id_for_node_kind`; 0 for none).
pub(crate) fn convert(g: &PnfGrammar, kinds: &[u16], src: &str, root: tree_sitter::Node) -> (Tree, MatchStats) {
    convert_with(g, kinds, src, root, false)
}

/// Converts a tree-sitter CST into a tree of opaque nodes that mirrors it (no matching).
pub(crate) fn convert_plain(g: &PnfGrammar, kinds: &[u16], src: &str, root: tree_sitter::Node) -> Tree {
    convert_with(g, kinds, src, root, true).0
}

fn convert_with(g: &PnfGrammar, kinds: &[u16], src: &str, root: tree_sitter::Node, plain: bool) -> (Tree, MatchStats) {
    // Token kinds whose text the matcher reads: those an alias of keywords has.
    let text_kinds = (0..kinds.len()).filter(|&s| g.symbol(s as SymbolId).cst.is_some() && !fits(g, s as SymbolId, "\0")).map(|s| kinds[s]).collect();
    let mut c = Conv {
        g,
        kinds,
        src,
        b: TreeBuilder::new(src.to_string()),
        stats: MatchStats::default(),
        plain,
        spare: Vec::new(),
        plans: HashMap::new(),
        text_kinds,
        texts: HashMap::new(),
    };
    let root_id = match c.convert(root, None, None) {
        Some(id) => id,
        // An empty program: one opaque node without tokens.
        None => c.b.node(NodeKind::Opaque, None, None, Vec::new()),
    };
    let stats = c.stats;
    (c.b.finish(root_id), stats)
}

/// A node's candidate symbols and what the matcher reads of its items ([`Conv::signature`]).
type Signature = (Vec<SymbolId>, Vec<u64>);

#[derive(Clone, Copy)]
enum Item<'t> {
    Child(tree_sitter::Node<'t>),
    /// Non-blank text no child covers: an invisible token.
    Gap(usize, usize),
}

struct Conv<'a> {
    g: &'a PnfGrammar,
    kinds: &'a [u16],
    src: &'a str,
    b: TreeBuilder,
    stats: MatchStats,
    /// Skip matching: every inner node stays opaque (the plain parse tree).
    plain: bool,
    /// Memo tables free for the next matcher (matchers nest: a node's children are
    /// converted while its own matcher builds).
    spare: Vec<Tables>,
    /// The outcome of matching each signature seen (see [`plan`]): the plan of the first
    /// candidate that matched, or none.
    plans: HashMap<Signature, Option<Rc<Plan>>>,
    /// Kinds of tokens whose text is part of a signature ([`Conv::signature`]).
    text_kinds: HashSet<u16>,
    /// Those texts, numbered.
    texts: HashMap<String, u64>,
}

impl<'a> Conv<'a> {
    /// Converts one CST node standing at a position that expects `slot`. `known` is the
    /// symbol the parent's match already decided on, tried before the others of its kind.
    fn convert(&mut self, n: tree_sitter::Node, slot: Option<SymbolId>, known: Option<SymbolId>) -> Option<NodeId> {
        // One level of the CST per call, through the matcher's build: a grown stack on the
        // heap for deep inputs (1,000,000 nested parentheses) instead of an overflow.
        stacker::maybe_grow(256 * 1024, 16 * 1024 * 1024, || self.convert_here(n, slot, known))
    }

    fn convert_here(&mut self, n: tree_sitter::Node, slot: Option<SymbolId>, known: Option<SymbolId>) -> Option<NodeId> {
        if n.is_missing() {
            self.stats.syntax_errors += 1;
            return None;
        }
        let (start, end) = (n.start_byte(), n.end_byte());
        let candidates: Vec<SymbolId> =
            known.into_iter().chain(self.g.symbols_for_cst(n.kind(), n.is_named()).iter().copied().filter(|s| Some(*s) != known)).collect();
        if n.child_count() == 0 {
            if start >= end {
                return None;
            }
            if n.is_error() {
                self.stats.syntax_errors += 1;
            }
            // A leaf's symbol: the parent's choice, or the first of its kind whose literals
            // (if it is an alias of keywords) hold its text.
            let text = &self.src[start..end];
            let sym = known.or_else(|| candidates.iter().copied().find(|&s| fits(self.g, s, text)));
            return Some(self.b.token(sym.or(candidates.first().copied()), slot, start..end));
        }
        let items = self.items(n);
        if n.is_error() {
            self.stats.syntax_errors += 1;
        } else if !self.plain {
            // Anonymous nodes with children (unnamed aliases of a rule) are matched too, but
            // only named nodes count in the statistics.
            let named = n.is_named();
            self.stats.inner_nodes += named as usize;
            if let Some(id) = self.match_rules(&candidates, &items, slot) {
                self.stats.matched += named as usize;
                return id;
            }
            if let Some(id) = self.star_around_errors(&candidates, &items, slot) {
                self.stats.matched += named as usize;
                return Some(id);
            }
            self.stats.opaque += named as usize;
        }
        let children = self.convert_items(&items);
        Some(self.b.node(NodeKind::Opaque, candidates.first().copied(), slot, children))
    }

    /// Tries each candidate symbol's rule on `items`; the first that derives them all is
    /// built. `None` when no rule matches; `Some(None)` when the match is empty. The
    /// outcome of a signature seen before (see [`plan`]) is built without matching.
    fn match_rules(&mut self, candidates: &[SymbolId], items: &[Item], slot: Option<SymbolId>) -> Option<Option<NodeId>> {
        let key = (candidates.to_vec(), self.signature(items));
        let plan = match self.plans.get(&key) {
            Some(plan) => plan.clone(),
            None => {
                let mut found = None;
                for &sym in candidates {
                    let mut m = Matcher::new(self.g, self.kinds, self.src, items, self.spare.pop().unwrap_or_default());
                    let matched = m.top_ends(sym, 0).contains(&(items.len() as u32));
                    let plan = matched.then(|| m.plan_top(sym, items.len() as u32).unwrap_or(Plan::Nothing));
                    self.spare.push(m.t.reset());
                    if let Some(plan) = plan {
                        found = Some(Rc::new(plan));
                        break;
                    }
                }
                self.plans.insert(key, found.clone());
                found
            }
        }?;
        let id = self.execute(&plan, items);
        if let Some(id) = id {
            self.b.set_slot(id, slot);
        }
        Some(id)
    }

    /// What the matcher reads of `items`: each child's kind and namedness (and the text of
    /// a token whose kind an alias of keywords shares), each gap as a gap.
    fn signature(&mut self, items: &[Item]) -> Vec<u64> {
        let mut sig = Vec::with_capacity(items.len());
        for it in items {
            match it {
                Item::Gap(..) => sig.push(0),
                Item::Child(c) => {
                    sig.push((c.kind_id() as u64) << 2 | (c.is_named() as u64) << 1 | 1);
                    if c.child_count() == 0 && self.text_kinds.contains(&c.kind_id()) {
                        let text = &self.src[c.start_byte()..c.end_byte()];
                        let next = self.texts.len() as u64;
                        sig.push(*self.texts.entry(text.to_string()).or_insert(next) << 2 | 2);
                    }
                }
            }
        }
        sig
    }

    /// `items` as an opaque node's children: each child converted on its own, each gap a
    /// token.
    fn convert_items(&mut self, items: &[Item]) -> Vec<NodeId> {
        items
            .iter()
            .filter_map(|it| match *it {
                Item::Child(c) => self.convert(c, None, None),
                Item::Gap(s, e) => Some(self.b.token(None, None, s..e)),
            })
            .collect()
    }

    fn items<'t>(&mut self, n: tree_sitter::Node<'t>) -> Vec<Item<'t>> {
        let mut items = Vec::new();
        let mut at = n.start_byte();
        let mut cur = n.walk();
        for c in n.children(&mut cur) {
            self.gap(at, c.start_byte(), &mut items);
            at = at.max(c.end_byte());
            if c.is_extra() && !c.is_error() {
                if !self.src[c.start_byte()..c.end_byte()].trim().is_empty() {
                    self.b.comment(c.start_byte()..c.end_byte());
                }
                continue;
            }
            items.push(Item::Child(c));
        }
        self.gap(at, n.end_byte(), &mut items);
        items
    }

    fn gap(&self, from: usize, to: usize, items: &mut Vec<Item>) {
        if from >= to {
            return;
        }
        let text = &self.src[from..to];
        let trimmed = text.trim_start();
        let s = from + (text.len() - trimmed.len());
        let e = s + trimmed.trim_end().len();
        if s < e {
            items.push(Item::Gap(s, e));
        }
    }
}

struct Matcher<'g, 'i, 't> {
    g: &'g PnfGrammar,
    kinds: &'g [u16],
    src: &'g str,
    items: &'i [Item<'t>],
    t: Tables,
}

/// Whether a token with `text` may be of symbol `sym`: unless `sym` is an alias of a choice
/// of literals (tree-sitter-go's `alias(choice('new', 'make'), $.identifier)`), whose
/// tokens are those literals only, any token of its kind may.
fn fits(g: &PnfGrammar, sym: SymbolId, text: &str) -> bool {
    let mut s = sym;
    // Through the alias's own rule (`identifier@x ::= x`) to the choice.
    for _ in 0..4 {
        match &g.symbol(s).rule {
            PnfRule::Regular(alts) if alts.len() == 1 && alts[0].len() == 1 => s = alts[0][0],
            _ => break,
        }
    }
    let PnfRule::Regular(alts) = &g.symbol(s).rule else { return true };
    let literal = |a: &Vec<SymbolId>| match a.as_slice() {
        [t] => match &g.symbol(*t).rule {
            PnfRule::Terminal(Terminal::Str(x)) => Some(x.as_str()),
            _ => None,
        },
        _ => None,
    };
    alts.is_empty() || !alts.iter().all(|a| literal(a).is_some()) || alts.iter().any(|a| literal(a) == Some(text))
}

/// Whether `it` is a CST node of kind `k`, whose tree-sitter id is `id` (0: none in the
/// language, so no node is of it). tree-sitter gives every node with the same kind name
/// and namedness the same (public) id, so the ids compare as the names would.
fn cst_matches(it: &Item, k: &CstKind, id: u16) -> bool {
    matches!(it, Item::Child(c) if id != 0 && c.kind_id() == id && c.is_named() == k.named)
}

impl<'g, 'i, 't> Matcher<'g, 'i, 't> {
    fn new(g: &'g PnfGrammar, kinds: &'g [u16], src: &'g str, items: &'i [Item<'t>], t: Tables) -> Self {
        Matcher { g, kinds, src, items, t }
    }

    /// The symbol whose rule the node's own children match: an alias of a visible rule
    /// shows that rule's children under the alias kind, so look through it.
    fn top_symbol(&self, sym: SymbolId) -> SymbolId {
        let mut s = sym;
        for _ in 0..8 {
            match &self.g.symbol(s).rule {
                PnfRule::Regular(alts)
                    if alts.len() == 1
                        && alts[0].len() == 1
                        && self.g.symbol(alts[0][0]).cst.is_some()
                        && !matches!(self.g.symbol(alts[0][0]).rule, PnfRule::Terminal(_)) =>
                {
                    s = alts[0][0]
                }
                _ => break,
            }
        }
        s
    }

    fn top_ends(&mut self, sym: SymbolId, pos: u32) -> Ends {
        let s = self.top_symbol(sym);
        self.expand(s, pos)
    }

    /// End positions of `sym` starting at item `pos`.
    fn ends(&mut self, sym: SymbolId, pos: u32) -> Ends {
        let s = self.g.symbol(sym);
        if let Some(k) = &s.cst {
            let hit = self.items.get(pos as usize).is_some_and(|it| {
                cst_matches(it, k, self.kinds[sym as usize])
                    && matches!(it, Item::Child(c) if c.child_count() > 0 || fits(self.g, sym, &self.src[c.start_byte()..c.end_byte()]))
            });
            return if hit { Ends::one(pos + 1) } else { Ends::NONE };
        }
        match &s.rule {
            PnfRule::Terminal(t) => {
                let gap = matches!(self.items.get(pos as usize), Some(Item::Gap(..)));
                let mut v = Vec::new();
                if !matches!(t, Terminal::Str(_)) {
                    // External tokens may be zero-width (automatic semicolons); invisible
                    // pattern tokens may be blank (a preprocessor line's newline).
                    v.push(pos);
                }
                if gap {
                    v.push(pos + 1);
                }
                Ends::of(v)
            }
            _ => self.expand(sym, pos),
        }
    }

    fn expand(&mut self, sym: SymbolId, pos: u32) -> Ends {
        if let Some(e) = self.t.memo.get(&(sym, pos)) {
            return e.clone();
        }
        if !self.t.busy.insert((sym, pos)) {
            return Ends::NONE; // left recursion through hidden rules: under-approximate
        }
        let g = self.g;
        let out: Vec<u32> = match &g.symbol(sym).rule {
            PnfRule::Terminal(_) => self.ends(sym, pos).to_vec(),
            PnfRule::Regular(alts) => {
                let mut v = Vec::new();
                for ai in 0..alts.len() {
                    v.extend_from_slice(&self.seq_ends(sym, ai as u32, 0, pos));
                }
                v
            }
            PnfRule::Star(x) => self.closure(*x, pos, true),
            PnfRule::Plus(x) => self.closure(*x, pos, false),
            PnfRule::Optional(x) => {
                let mut v = vec![pos];
                v.extend_from_slice(&self.ends(*x, pos));
                v
            }
        };
        let out = Ends::of(out);
        self.t.busy.remove(&(sym, pos));
        self.t.memo.insert((sym, pos), out.clone());
        out
    }

    /// Positions reachable from `pos` by zero (if `star`) or more matches of `x`.
    fn closure(&mut self, x: SymbolId, pos: u32, star: bool) -> Vec<u32> {
        let mut reach = vec![pos];
        let mut seen = HashSet::new();
        seen.insert(pos);
        let mut self_loop = false;
        let mut i = 0;
        while i < reach.len() {
            let p = reach[i];
            for &e in self.ends(x, p).iter() {
                if e == p {
                    self_loop |= p == pos;
                } else if seen.insert(e) {
                    reach.push(e);
                }
            }
            i += 1;
        }
        if !star && !self_loop {
            reach.remove(0);
        }
        reach
    }

    /// End positions of alternative `alt` of `sym` from its `idx`-th symbol on.
    fn seq_ends(&mut self, sym: SymbolId, alt: u32, idx: u32, pos: u32) -> Ends {
        let key = (sym, alt, idx, pos);
        if let Some(e) = self.t.seq_memo.get(&key) {
            return e.clone();
        }
        let PnfRule::Regular(alts) = &self.g.symbol(sym).rule else { unreachable!() };
        let seq = &alts[alt as usize];
        let out: Ends = if idx as usize == seq.len() {
            Ends::one(pos)
        } else {
            let first = self.ends(seq[idx as usize], pos);
            let mut v = Vec::new();
            for &e in first.iter() {
                v.extend_from_slice(&self.seq_ends(sym, alt, idx + 1, e));
            }
            Ends::of(v)
        };
        self.t.seq_memo.insert(key, out.clone());
        out
    }
}
