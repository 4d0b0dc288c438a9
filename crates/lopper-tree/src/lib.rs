//! lopper-tree: the PNF tree as an immutable arena, edit sets over it, and rendering to text.
//!
//! Every node is a Kleene star, Kleene plus, optional, regular, token or opaque node. The
//! tree is a value: no interior mutability, no I/O, and it knows no parser. A reduction
//! state is an [`EditSet`] over a tree; a candidate is that set plus one more edit, rendered
//! with [`Tree::render`].
//!
//! Rendering keeps each kept token's original leading whitespace, and inserts one space
//! where two tokens that were not adjacent in the original would otherwise touch, so two
//! tokens never merge into one.
//!
//! Rendering keeps line breaks that followed a token and drops comments (unless the test
//! needs them); the space between two tokens that were not adjacent goes where they could
//! lex as one (`int` `x`, `+` `+`, `1` `.5`). Costs: an edit set of more than 8 edits is
//! looked up through a bit per node during a walk, so the ordered map is asked only at
//! edited nodes; `render` and `count_tokens` take a subtree with no edit inside (found by
//! marking each edited node's ancestors) as one span of the source, and `live` as one
//! range of ids, since the arena is in post-order (which `TreeBuilder::finish` checks).
//! A state plus further deletions (a list minimizer's candidates) is spliced from the
//! state's [`BaseRendering`] ([`Tree::render_more`]): the base's text copied around the
//! deleted runs, at the cost of the runs, not of the state's other edits.

mod edits;
mod render;
mod splice;

pub use edits::{Edit, EditSet};
use edits::{EditIndex, NodeBits};
use lopper_grammar::{PnfGrammar, SymbolId};
pub use render::RenderOptions;
pub use splice::BaseRendering;
use std::fmt::Write as _;
use std::ops::Range;

/// Index of a node in its [`Tree`]. Ids are assigned in creation order (children before
/// parents), which is deterministic for a given input, so they break ties in schedulers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u32);

/// The PNF shape of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// A regular rule `A ::= B1 … Bn`: children are fixed; reducible by replacement.
    Regular,
    /// `A ::= B*`: children are the elements; any subset may be deleted.
    Star,
    /// `A ::= B+`: children are the elements; at least one must stay.
    Plus,
    /// `A ::= B?`: at most one child, which may be deleted.
    Optional,
    /// One lexical token (a leaf).
    Token,
    /// A node whose children did not match its rule (ERROR nodes, grammar gaps): rendered
    /// as its children in order, reducible only by replacement, never split.
    Opaque,
}

/// One node of the arena.
#[derive(Clone, Debug)]
pub struct Node {
    /// Its PNF shape.
    pub kind: NodeKind,
    /// The most specific grammar symbol this node derives (after collapsing unit chains);
    /// `None` for nodes the grammar does not know (tree-sitter `ERROR`).
    pub symbol: Option<SymbolId>,
    /// The symbol the parent's rule expects at this position (the top of the collapsed
    /// unit chain); a replacement must be subsumed by it. `None` for the root and for
    /// children of opaque nodes.
    pub slot: Option<SymbolId>,
    /// The parent in the original tree.
    pub parent: Option<NodeId>,
    /// Children in source order.
    pub children: Box<[NodeId]>,
    /// Token count of the subtree (the size measure).
    pub tokens: u32,
    /// For token nodes: byte range of the token text in the source.
    pub text: Option<Range<u32>>,
}

/// A PNF tree over a source text.
#[derive(Clone, Debug)]
pub struct Tree {
    source: String,
    nodes: Vec<Node>,
    root: NodeId,
    /// Token nodes in source order.
    token_order: Vec<NodeId>,
    /// For each node: the index in `token_order` of its subtree's first token (a token's
    /// own index); `u32::MAX` where the subtree has no token.
    token_index: Vec<u32>,
    /// Comment byte ranges, sorted.
    comments: Vec<Range<u32>>,
    /// Whether the ids number the arena in post-order from the root (children before
    /// parents, left to right, no other node): then a subtree's nodes are the ids from its
    /// leftmost descendant's to its own ([`Tree::subtree_ids`]).
    postorder: bool,
    /// Whether the source has a CRLF ([`Tree::line_break`]).
    crlf: bool,
}

/// Whether `nodes` holds exactly the tree under `root`, numbered in post-order.
fn postorder(nodes: &[Node], root: NodeId) -> bool {
    let mut next = 0u32;
    // (node, children visited)
    let mut stack = vec![(root, 0usize)];
    while let Some((n, i)) = stack.pop() {
        let children = &nodes[n.0 as usize].children;
        if i < children.len() {
            stack.push((n, i + 1));
            stack.push((children[i], 0));
        } else {
            if n.0 != next {
                return false;
            }
            next += 1;
        }
    }
    next as usize == nodes.len()
}

/// Builds a [`Tree`] bottom-up: add tokens and nodes, children before parents.
#[derive(Debug)]
pub struct TreeBuilder {
    source: String,
    nodes: Vec<Node>,
    comments: Vec<Range<u32>>,
}

impl TreeBuilder {
    /// Starts a tree over `source`.
    pub fn new(source: String) -> TreeBuilder {
        TreeBuilder { source, nodes: Vec::new(), comments: Vec::new() }
    }

    /// Adds a token leaf covering `range` (bytes of the source; must be non-empty).
    pub fn token(&mut self, symbol: Option<SymbolId>, slot: Option<SymbolId>, range: Range<usize>) -> NodeId {
        debug_assert!(range.start < range.end && range.end <= self.source.len());
        self.push(Node {
            kind: NodeKind::Token,
            symbol,
            slot,
            parent: None,
            children: Box::default(),
            tokens: 1,
            text: Some(range.start as u32..range.end as u32),
        })
    }

    /// Adds an inner node over already added children (in source order).
    pub fn node(&mut self, kind: NodeKind, symbol: Option<SymbolId>, slot: Option<SymbolId>, children: Vec<NodeId>) -> NodeId {
        let tokens = children.iter().map(|c| self.nodes[c.0 as usize].tokens).sum();
        let id = NodeId(self.nodes.len() as u32);
        for c in &children {
            self.nodes[c.0 as usize].parent = Some(id);
        }
        self.push(Node { kind, symbol, slot, parent: None, children: children.into_boxed_slice(), tokens, text: None })
    }

    /// Changes the slot of a node already added (used when a unit chain is collapsed into
    /// its innermost node, which then stands at the outer position).
    pub fn set_slot(&mut self, id: NodeId, slot: Option<SymbolId>) {
        self.nodes[id.0 as usize].slot = slot;
    }

    /// The node added under `id`.
    pub fn get(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// Records a comment's byte range, so rendering can drop it.
    pub fn comment(&mut self, range: Range<usize>) {
        self.comments.push(range.start as u32..range.end as u32);
    }

    fn push(&mut self, n: Node) -> NodeId {
        self.nodes.push(n);
        NodeId(self.nodes.len() as u32 - 1)
    }

    /// Finishes the tree with `root` as its root. Tokens must not overlap.
    pub fn finish(self, root: NodeId) -> Tree {
        let mut token_order = Vec::new();
        let mut token_index = vec![u32::MAX; self.nodes.len()];
        let mut stack = vec![root];
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n.0 as usize];
            // Pre-order, tokens in source order: a subtree's first token is the next one.
            if node.tokens > 0 {
                token_index[n.0 as usize] = token_order.len() as u32;
            }
            if node.kind == NodeKind::Token {
                token_order.push(n);
            }
            stack.extend(node.children.iter().rev());
        }
        let mut comments = self.comments;
        comments.sort_by_key(|r| r.start);
        let postorder = postorder(&self.nodes, root);
        let crlf = self.source.contains("\r\n");
        Tree { source: self.source, nodes: self.nodes, root, token_order, token_index, comments, postorder, crlf }
    }
}

impl Tree {
    /// The root node.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The proper ancestors of `id` in the original tree, innermost first.
    pub fn ancestors(&self, id: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        std::iter::successors(self.node(id).parent, |&p| self.node(p).parent)
    }

    /// Number of nodes in the arena.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the arena is empty (never, for a finished tree).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The source text the tree was built over.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Token count of the unedited tree.
    pub fn token_count(&self) -> usize {
        self.token_order.len()
    }

    /// The unedited tree's token nodes, in source order.
    pub fn token_ids(&self) -> &[NodeId] {
        &self.token_order
    }

    /// The position of token node `id` in [`Tree::token_ids`]; `None` for inner nodes.
    pub fn token_position(&self, id: NodeId) -> Option<usize> {
        self.token_index.get(id.0 as usize).filter(|&&i| i != u32::MAX && self.node(id).kind == NodeKind::Token).map(|&i| i as usize)
    }

    /// The positions in [`Tree::token_ids`] of `id`'s subtree's tokens (a subtree's tokens
    /// are contiguous); empty for a subtree without tokens.
    pub fn subtree_token_range(&self, id: NodeId) -> Range<usize> {
        match self.token_index[id.0 as usize] {
            u32::MAX => 0..0,
            start => start as usize..start as usize + self.node(id).tokens as usize,
        }
    }

    /// The token nodes of `id`'s subtree, in source order (a slice of [`Tree::token_ids`]).
    pub fn subtree_token_ids(&self, id: NodeId) -> &[NodeId] {
        &self.token_order[self.subtree_token_range(id)]
    }

    /// The source's line break: `"\r\n"` when it has any CRLF, else `"\n"`. Rendering
    /// uses it for the line breaks it inserts, so CRLF files stay CRLF throughout.
    pub fn line_break(&self) -> &'static str {
        if self.crlf {
            "\r\n"
        } else {
            "\n"
        }
    }

    /// The text of a token node (empty for inner nodes).
    pub fn token_text(&self, id: NodeId) -> &str {
        match &self.node(id).text {
            Some(r) => &self.source[r.start as usize..r.end as usize],
            None => "",
        }
    }

    /// Visits, in pre-order, the nodes that are part of the program under `edits`: a
    /// deleted node is skipped with its subtree; a replaced node is visited as the node
    /// that replaces it. `f` returns whether to descend into the node's children.
    pub fn walk(&self, edits: &EditSet, f: impl FnMut(NodeId) -> bool) {
        self.walk_indexed(&EditIndex::new(edits, self.nodes.len()), f);
    }

    /// [`Tree::walk`] with the edits already indexed.
    fn walk_indexed(&self, edits: &EditIndex<'_>, mut f: impl FnMut(NodeId) -> bool) {
        let mut stack = vec![self.root];
        while let Some(mut n) = stack.pop() {
            loop {
                match edits.get(n) {
                    Some(Edit::Delete) => break,
                    Some(Edit::Replace(d)) => n = *d,
                    Some(Edit::Text(_)) | None => {
                        if f(n) {
                            stack.extend(self.node(n).children.iter().rev());
                        }
                        break;
                    }
                }
            }
        }
    }

    /// What stands at `id`'s position under `edits`: `None` if deleted, else the node
    /// reached by following replacements.
    pub fn effective(&self, edits: &EditSet, mut id: NodeId) -> Option<NodeId> {
        loop {
            match edits.get(id) {
                Some(Edit::Delete) => return None,
                Some(Edit::Replace(d)) => id = *d,
                Some(Edit::Text(_)) | None => return Some(id),
            }
        }
    }

    /// Token count of the program under `edits`.
    pub fn count_tokens(&self, edits: &EditSet) -> usize {
        let touched = self.touched(edits);
        let mut n = 0;
        self.walk(edits, |id| {
            // A subtree with no edit inside keeps all its tokens.
            if touched.contains(id) {
                n += (self.node(id).kind == NodeKind::Token) as usize;
                true
            } else {
                n += self.node(id).tokens as usize;
                false
            }
        });
        n
    }

    /// Marks the nodes that are part of the program under `edits` (one flag per node).
    /// A subtree with no edit inside is marked as one range of ids where the arena is in
    /// post-order.
    pub fn live(&self, edits: &EditSet) -> Vec<bool> {
        let mut live = vec![false; self.nodes.len()];
        let touched = if self.postorder { self.touched(edits) } else { NodeBits(Vec::new()) };
        self.walk(edits, |id| match self.subtree_ids(id).filter(|_| !touched.contains(id)) {
            Some(ids) => {
                live[ids].fill(true);
                false
            }
            None => {
                live[id.0 as usize] = true;
                true
            }
        });
        live
    }

    /// The ids of `id`'s subtree, `id` last, where the arena is in post-order; else `None`.
    fn subtree_ids(&self, id: NodeId) -> Option<std::ops::RangeInclusive<usize>> {
        if !self.postorder {
            return None;
        }
        let mut first = id;
        while let Some(&c) = self.node(first).children.first() {
            first = c;
        }
        Some(first.0 as usize..=id.0 as usize)
    }

    /// An indented dump of the tree, one node a line: `kind symbol [tokens]` and token text.
    pub fn dump(&self, g: &PnfGrammar) -> String {
        const MAX_INDENT: usize = 40;
        let mut out = String::new();
        let mut stack = vec![(self.root, 0usize)];
        while let Some((n, depth)) = stack.pop() {
            let node = self.node(n);
            let name = node.symbol.map_or("?", |s| g.symbol(s).name.as_str());
            // Past MAX_INDENT levels the depth is written out instead: a deep tree's dump
            // stays linear in its size.
            out.extend(std::iter::repeat_n(' ', depth.min(MAX_INDENT) * 2));
            if depth > MAX_INDENT {
                let _ = write!(out, "[depth {depth}] ");
            }
            let _ = match node.kind {
                NodeKind::Token => writeln!(out, "{name} {:?}", self.token_text(n)),
                k => writeln!(out, "{k:?} {name} [{}]", node.tokens),
            };
            for c in node.children.iter().rev() {
                stack.push((*c, depth + 1));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;

/// One file of a project tree for [`Tree::bundle`].
#[derive(Debug)]
pub struct BundleFile {
    /// The header's byte range in the bundle's source (one token, never split).
    pub header: Range<usize>,
    /// Where the file's text starts in the bundle's source, in bytes.
    pub offset: usize,
    /// The file's text's length, in bytes.
    pub len: usize,
    /// The file's own tree (its source the file's text); `None` for a file of a kind no
    /// language claims, reduced by lines: a Kleene star of its non-blank lines, each one
    /// token.
    pub tree: Option<Tree>,
    /// Whether `tree` is another grammar's (a project's file in a second language): its
    /// nodes keep their shape — lists, optionals, tokens — but lose their symbols, which
    /// name the other grammar's.
    pub foreign: bool,
}

impl Tree {
    /// The tree of a project bundle (`source`, the bundle's text): a Kleene star of files,
    /// each a regular node of its header token and its file's tree, the file trees' nodes
    /// and comments moved to their place in `source`. Deleting a file's node deletes the
    /// file; the files' own nodes keep their symbols (one grammar for all of them), those of
    /// a `foreign` file none.
    pub fn bundle(source: String, files: Vec<BundleFile>) -> Tree {
        let mut b = TreeBuilder::new(source);
        let mut elements = Vec::with_capacity(files.len());
        for f in files {
            let header = b.token(None, None, f.header.clone());
            let mut children = vec![header];
            match f.tree {
                Some(t) => {
                    let base = b.nodes.len() as u32;
                    let shift = |r: &Range<u32>| r.start + f.offset as u32..r.end + f.offset as u32;
                    // The file tree's arena is in post-order when `t.postorder`; either way
                    // children come before parents, so ids shift by `base`.
                    for n in &t.nodes {
                        b.nodes.push(Node {
                            parent: n.parent.map(|p| NodeId(p.0 + base)),
                            children: n.children.iter().map(|c| NodeId(c.0 + base)).collect(),
                            text: n.text.as_ref().map(shift),
                            symbol: if f.foreign { None } else { n.symbol },
                            slot: if f.foreign { None } else { n.slot },
                            ..n.clone()
                        });
                    }
                    b.comments.extend(t.comments.iter().map(shift));
                    children.push(NodeId(t.root.0 + base));
                }
                None => {
                    // Reduced by lines: a Kleene star of its non-blank lines, each one token.
                    let mut lines = Vec::new();
                    let mut at = f.offset;
                    for line in b.source[f.offset..f.offset + f.len].split_inclusive('\n') {
                        let start = at + (line.len() - line.trim_start().len());
                        let end = at + line.trim_end().len();
                        at += line.len();
                        if start < end {
                            lines.push(start..end);
                        }
                    }
                    match lines.len() {
                        0 => {}
                        1 => children.push(b.token(None, None, lines[0].clone())),
                        _ => {
                            let tokens = lines.into_iter().map(|r| b.token(None, None, r)).collect();
                            children.push(b.node(NodeKind::Star, None, None, tokens));
                        }
                    }
                }
            }
            elements.push(b.node(NodeKind::Regular, None, None, children));
        }
        let root = b.node(NodeKind::Star, None, None, elements);
        b.finish(root)
    }
}
