//! Lists around the ERROR nodes of tree-sitter's error recovery: the list's matched runs
//! stay its elements and each ERROR an opaque element of it; an ERROR that closes one block
//! and opens the next is split, and a block the recovery left open is grouped with the
//! elements up to its closer, so that deleting an element never unbalances braces.

use super::{Conv, Item, Matcher};
use lopper_grammar::{PnfRule, SymbolId};
use lopper_tree::{NodeId, NodeKind};

impl Conv<'_> {
    /// A list (a Kleene star rule) with ERROR children tree-sitter recovered from: the runs
    /// of items between them are matched as the list's elements and each ERROR stays an
    /// opaque element, so the other elements can still be deleted — one unsupported
    /// attribute or stray `}` in a 100k-token translation unit must not make the whole file
    /// one opaque node. `None` when there is no ERROR child or a run does not match.
    pub(super) fn star_around_errors(&mut self, candidates: &[SymbolId], items: &[Item], slot: Option<SymbolId>) -> Option<NodeId> {
        let is_error = |it: &Item| matches!(it, Item::Child(c) if c.is_error());
        if !items.iter().any(is_error) {
            return None;
        }
        let runs: Vec<&[Item]> = items.split(is_error).collect();
        for &sym in candidates {
            let PnfRule::Star(x) = self.g.symbol(sym).rule else { continue };
            // Recognize every run first, so nothing is built for a symbol that fails.
            let mut matchers = Vec::new();
            let mut all = true;
            for run in &runs {
                let mut m = Matcher::new(self.g, self.kinds, self.src, run, self.spare.pop().unwrap_or_default());
                all &= run.is_empty() || m.expand(sym, 0).contains(&(run.len() as u32));
                matchers.push(m);
            }
            if !all {
                self.spare.extend(matchers.into_iter().map(|m| m.t.reset()));
                continue;
            }
            let mut errors = items.iter().filter_map(|it| match it {
                Item::Child(c) if c.is_error() => Some(*c),
                _ => None,
            });
            let mut children = Vec::new();
            // An ERROR right before a `{…}` block is glued to it as one opaque element: the
            // head of a construct tree-sitter could not read, with its body (libstdc++'s
            // `namespace std __attribute__ ((__visibility__ ("default"))) {…}`), so that a
            // deletion never leaves the body as a stray block or the head without it.
            let mut head: Option<NodeId> = None;
            for (i, mut m) in matchers.into_iter().enumerate() {
                let plans = if m.items.is_empty() { Vec::new() } else { m.plan_elements(x, 0, m.items.len() as u32).unwrap_or_default() };
                self.spare.push(m.t.reset());
                let mut elements = self.execute_elements(x, &plans, runs[i]).into_iter();
                if let Some(e) = head.take() {
                    match elements.next() {
                        Some(body) => children.push(self.b.node(NodeKind::Opaque, None, Some(x), vec![e, body])),
                        None => children.push(e),
                    }
                }
                children.extend(elements);
                if i + 1 < runs.len() {
                    let Some(error) = errors.next() else { continue };
                    for e in self.error_parts(error, x) {
                        if self.net_braces(e) == 0 && matches!(runs[i + 1].first(), Some(Item::Child(c)) if c.kind() == "compound_statement") {
                            head = Some(e);
                        } else {
                            children.push(e);
                        }
                    }
                }
            }
            // A matched element may open a block too, where tree-sitter recovered with a
            // MISSING `}` (`extern "C++" {` whose `}` is an ERROR further on).
            let braces: Vec<i32> = children.iter().map(|&c| self.net_braces(c)).collect();
            let children = self.bracket_groups(sym, x, children, &braces);
            return Some(self.b.node(NodeKind::Star, Some(sym), slot, children));
        }
        None
    }

    /// An ERROR child of a list as the list's opaque elements: one, or two where it closes
    /// one block and opens the next (`} namespace std __attribute__ ((…)) {`: its leading
    /// `}` apart).
    fn error_parts(&mut self, error: tree_sitter::Node<'_>, x: SymbolId) -> Vec<NodeId> {
        let first = error.child(0);
        let closes = first.filter(|c| c.child_count() == 0 && c.kind() == "}" && error.child_count() > 1);
        let mut parts = Vec::new();
        if let Some(c) = closes {
            self.stats.syntax_errors += 1;
            parts.push(self.b.token(None, Some(x), c.start_byte()..c.end_byte()));
            let items: Vec<Item> = self.items(error).into_iter().skip_while(|it| !matches!(it, Item::Child(k) if *k == c)).skip(1).collect();
            let children = self.convert_items(&items);
            if !children.is_empty() {
                parts.push(self.b.node(NodeKind::Opaque, None, Some(x), children));
            }
        } else if let Some(e) = self.convert(error, Some(x), None) {
            self.b.set_slot(e, Some(x));
            parts.push(e);
        }
        parts
    }

    /// `{` tokens less `}` tokens in built node `n`'s subtree.
    fn net_braces(&self, n: NodeId) -> i32 {
        let mut net = 0;
        let mut stack = vec![n];
        while let Some(m) = stack.pop() {
            let node = self.b.get(m);
            if let Some(r) = &node.text {
                net += match &self.src[r.start as usize..r.end as usize] {
                    "{" => 1,
                    "}" => -1,
                    _ => 0,
                };
            }
            stack.extend(node.children.iter());
        }
        net
    }

    /// `children` (a list's elements, `braces` each one's net braces) with every element
    /// that opens one block (`namespace std __attribute__ ((…)) {`, an ERROR) grouped with
    /// the elements up to the one that closes it (`}`): one opaque element holding the
    /// opener, the elements between as a list of symbol `sym`, and the closer. Deleting the
    /// opener or the closer alone leaves braces that do not balance, which tree-sitter
    /// accepts and a compiler rejects; deleting the group deletes the block.
    fn bracket_groups(&mut self, sym: SymbolId, x: SymbolId, children: Vec<NodeId>, braces: &[i32]) -> Vec<NodeId> {
        if !braces.iter().any(|&b| b != 0) {
            return children;
        }
        // Per open group: the index in `out` of its opener.
        let mut out: Vec<NodeId> = Vec::with_capacity(children.len());
        let mut open: Vec<usize> = Vec::new();
        for (&c, &b) in children.iter().zip(braces) {
            match b {
                0 => out.push(c),
                1 => {
                    open.push(out.len());
                    out.push(c);
                }
                -1 if !open.is_empty() => {
                    let at = open.pop().expect("an open group");
                    let inside: Vec<NodeId> = out.drain(at + 1..).collect();
                    let opener = out.pop().expect("the opener");
                    let list = self.b.node(NodeKind::Star, Some(sym), None, inside);
                    out.push(self.b.node(NodeKind::Opaque, None, Some(x), vec![opener, list, c]));
                }
                // An element that opens or closes more than one block, or a closer without
                // its opener: an element as it is, which ends the groups still open.
                _ => {
                    open.clear();
                    out.push(c);
                }
            }
        }
        out
    }
}
