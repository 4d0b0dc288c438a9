//! Rendering a tree under an edit set to text (the whitespace rules are in the crate docs).

use crate::edits::{EditIndex, NodeBits};
use crate::{Edit, EditSet, NodeId, Tree};
use std::ops::Range;

/// [`Tree::render`]'s output so far: the text, the last token written (its index in the
/// source order) and whether that token's text was edited.
pub(crate) struct Rendering<'t> {
    pub(crate) tree: &'t Tree,
    pub(crate) opts: RenderOptions,
    /// The source's line break ([`Tree::line_break`]).
    pub(crate) nl: &'static str,
    pub(crate) out: String,
    pub(crate) last: Option<u32>,
    pub(crate) last_edited: bool,
}

impl<'t> Rendering<'t> {
    /// An empty rendering of `tree`, with room for `capacity` bytes.
    pub(crate) fn new(tree: &'t Tree, opts: RenderOptions, capacity: usize) -> Rendering<'t> {
        Rendering { tree, opts, nl: tree.line_break(), out: String::with_capacity(capacity), last: None, last_edited: false }
    }

    /// The text: after the source's last token its trailing trivia, after an earlier one a
    /// line break.
    pub(crate) fn finish(self) -> String {
        let Rendering { tree: t, mut out, last, nl, opts, .. } = self;
        match last {
            Some(l) if l as usize + 1 == t.token_order.len() => {
                let end = t.node(t.token_order[l as usize]).text.as_ref().unwrap().end;
                t.push_trivia(&mut out, end..t.source.len() as u32, opts);
            }
            Some(_) => out.push_str(nl),
            None => {}
        }
        out
    }

    /// Writes token `id` as `text`: its leading whitespace from the source, a line break
    /// or a space where deleted code in between requires one, then the text.
    pub(crate) fn token(&mut self, id: NodeId, text: &str, edited: bool) {
        let t = self.tree;
        let out = &mut self.out;
        let r = t.node(id).text.as_ref().expect("a token node has text");
        let i = t.token_index[id.0 as usize];
        let gap_start = if i == 0 { 0 } else { t.node(t.token_order[i as usize - 1]).text.as_ref().unwrap().end };
        let adjacent = match self.last {
            None => i == 0,
            Some(l) => l + 1 == i,
        };
        if adjacent || self.last.is_some() {
            let before = out.len();
            t.push_trivia(out, gap_start..r.start, self.opts);
            if let (false, Some(l)) = (adjacent, self.last) {
                // Keep a line break that followed the previous token: it may end a
                // preprocessor line or a line comment's line.
                let l_end = t.node(t.token_order[l as usize]).text.as_ref().unwrap().end as usize;
                let next = t.token_order.get(l as usize + 1).map_or(t.source.len(), |n| t.node(*n).text.as_ref().unwrap().start as usize);
                if t.source[l_end..next].contains('\n') && !out[before..].contains('\n') {
                    out.truncate(before);
                    out.push_str(self.nl);
                } else if let Some(at) = out[before..].rfind('\n') {
                    // Blank lines left by deleted code go; the token's indentation stays
                    // (and a CRLF's `\r` with its `\n`).
                    let at = if out[..before + at].ends_with('\r') { at - 1 } else { at };
                    out.replace_range(before..before + at, "");
                }
            }
            // New text next to a token it touched in the original merges with it only
            // where two word characters meet.
            let glue = if adjacent { (edited || self.last_edited) && word_meets_word(out, text) } else { may_glue(out, text) };
            if glue && out.len() == before {
                out.push(' ');
            }
        }
        out.push_str(text);
        self.last = Some(i);
        self.last_edited = edited;
    }
}

/// How to render.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Keep comments (tree-sitter extras other than whitespace) in the output. When off,
    /// each comment becomes one space.
    pub keep_comments: bool,
}

impl Tree {
    /// Renders the program under `edits` (see the crate docs for the whitespace rules).
    /// A subtree with no edit inside is copied from the source as one span (its tokens
    /// keep their gaps), so the cost grows with the edits, not with the tree.
    pub fn render(&self, edits: &EditSet, opts: RenderOptions) -> String {
        let index = EditIndex::new(edits, self.nodes.len());
        let touched = self.touched(edits);
        let mut r = Rendering::new(self, opts, self.source.len());
        self.walk_indexed(&index, |id| {
            let node = self.node(id);
            if node.text.is_some() {
                let (text, edited) = self.edited_text(id, index.get(id));
                r.token(id, text, edited);
                return false;
            }
            if node.tokens < 2 || touched.contains(id) {
                return true;
            }
            // Unedited: every later token of the subtree is adjacent to the one before it
            // and nothing glues, so the source from the first token's end to the last
            // token's end is what the token-by-token rendering would give.
            let tokens = self.subtree_token_ids(id);
            let (first, last) = (tokens[0], tokens[tokens.len() - 1]);
            r.token(first, self.token_text(first), false);
            let (from, to) = (self.node(first).text.as_ref().unwrap().end, self.node(last).text.as_ref().unwrap().end);
            self.push_trivia(&mut r.out, from..to, opts);
            r.last = Some(self.token_index[last.0 as usize]);
            false
        });
        r.finish()
    }

    /// Token `id`'s text under its edit `edit`, and whether the edit changed it (an
    /// [`Edit::Text`]).
    pub(crate) fn edited_text<'e>(&'e self, id: NodeId, edit: Option<&'e Edit>) -> (&'e str, bool) {
        match edit {
            Some(Edit::Text(t)) => (t, true),
            _ => (self.token_text(id), false),
        }
    }

    /// The nodes whose subtree holds an edit (themselves included): each edited node and
    /// its ancestors in the original tree.
    pub(crate) fn touched(&self, edits: &EditSet) -> NodeBits {
        let mut bits = NodeBits(vec![0; if edits.is_empty() { 0 } else { self.nodes.len().div_ceil(64) }]);
        for id in edits.ids() {
            let mut n = Some(id);
            while let Some(m) = n.filter(|m| (m.0 as usize) < self.nodes.len() && !bits.contains(*m)) {
                bits.0[m.0 as usize / 64] |= 1 << (m.0 % 64);
                n = self.node(m).parent;
            }
        }
        bits
    }

    fn push_trivia(&self, out: &mut String, gap: Range<u32>, opts: RenderOptions) {
        if opts.keep_comments {
            out.push_str(&self.source[gap.start as usize..gap.end as usize]);
            return;
        }
        let mut at = gap.start;
        let first = self.comments.partition_point(|c| c.end <= gap.start);
        for c in &self.comments[first..] {
            if c.start >= gap.end {
                break;
            }
            out.push_str(&self.source[at as usize..c.start.max(at) as usize]);
            out.push(' ');
            at = c.end.min(gap.end);
        }
        out.push_str(&self.source[at as usize..gap.end as usize]);
    }
}

/// Whether `next` written right after `out` could lex differently from the two tokens
/// apart: word characters run together (`int` `x`), operators combine (`+` `+`, `/` `*`),
/// and a `.` joins numbers (`1` `.5`).
fn word_meets_word(out: &str, next: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    out.chars().next_back().is_some_and(word) && next.chars().next().is_some_and(word)
}

pub(crate) fn may_glue(out: &str, next: &str) -> bool {
    let (Some(a), Some(b)) = (out.chars().next_back(), next.chars().next()) else { return false };
    // Brackets and separators are one-character tokens in every language we target.
    if a.is_whitespace() || "()[]{};,".contains(a) || "()[]{};,".contains(b) {
        return false;
    }
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    word(a) == word(b) || a == '.' || b == '.'
}
