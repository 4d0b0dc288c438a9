//! Rendering a base state plus further deletions by splicing the base's text (issue 32,
//! point 4: a step costs what its edit costs, not the whole program).
//!
//! [`Tree::render`] writes each live token as its *contribution*: the whitespace before it
//! (which depends only on the live token before it, whether either was edited, and the
//! last character written) and its text. A [`BaseRendering`] keeps where each live
//! token's contribution lies in the base's text. Deleting more tokens changes only the
//! contribution of the first live token after each run of newly deleted ones (and the
//! ending, where a run reaches the end), so [`Tree::render_more`] copies the base's text
//! around those runs and writes those few contributions anew: the same text as
//! [`Tree::render`], at the cost of the runs.

use crate::edits::EditIndex;
use crate::render::{RenderOptions, Rendering};
use crate::{EditSet, Tree};

/// A base state's text, with where each live token's contribution lies in it.
#[derive(Clone, Debug)]
pub struct BaseRendering {
    /// The text ([`Tree::render`] of the base state).
    pub text: String,
    /// Per live token, in order: its index in the source's token order, where its
    /// contribution starts and ends in `text` (bytes), and whether its text is edited.
    spans: Vec<Span>,
    opts: RenderOptions,
    /// Whether every live token's text is non-empty: then the character a contribution
    /// depends on is the previous token's last, and splicing is exact.
    exact: bool,
}

impl BaseRendering {
    /// The options it was rendered with (a splice keeps them).
    pub fn opts(&self) -> RenderOptions {
        self.opts
    }
}

#[derive(Clone, Copy, Debug)]
struct Span {
    token: u32,
    start: u32,
    end: u32,
    edited: bool,
}

impl Tree {
    /// Renders `edits` token by token, keeping where each token went: the same text as
    /// [`Tree::render`], at the cost of every live token.
    pub fn render_base(&self, edits: &EditSet, opts: RenderOptions) -> BaseRendering {
        let index = EditIndex::new(edits, self.nodes.len());
        let mut r = Rendering::new(self, opts, self.source.len());
        let mut spans = Vec::new();
        let mut exact = true;
        self.walk_indexed(&index, |id| {
            if self.node(id).text.is_none() {
                return true;
            }
            let (text, edited) = self.edited_text(id, index.get(id));
            exact &= !text.is_empty();
            let start = r.out.len() as u32;
            r.token(id, text, edited);
            spans.push(Span { token: self.token_index[id.0 as usize], start, end: r.out.len() as u32, edited });
            false
        });
        BaseRendering { text: r.finish(), spans, opts, exact }
    }

    /// The text of `edits`, spliced from `base` (the rendering of `base_edits`, whose live
    /// nodes are `live`, as [`Tree::live`] gives): the same as [`Tree::render`] of `edits`.
    /// `None` where splicing does not apply and the caller renders in full: `edits` is
    /// not `base_edits` plus deletions of nodes without an edit there, or the base has an
    /// empty token text.
    pub fn render_more(&self, base: &BaseRendering, base_edits: &EditSet, live: &[bool], edits: &EditSet) -> Option<String> {
        let dead = self.dead_runs(base, base_edits, live, edits)?;
        Some(self.splice(base, &dead, edits, false).0)
    }

    /// [`Tree::render_more`] as a base of its own: the text with where each live token's
    /// contribution lies in it.
    pub fn render_more_base(&self, base: &BaseRendering, base_edits: &EditSet, live: &[bool], edits: &EditSet) -> Option<BaseRendering> {
        let dead = self.dead_runs(base, base_edits, live, edits)?;
        let (text, spans) = self.splice(base, &dead, edits, true);
        Some(BaseRendering { text, spans, opts: base.opts, exact: base.exact })
    }

    /// The ranges of `base`'s spans that the deletions `edits` adds to `base_edits` take
    /// away, sorted; `None` where splicing does not apply (see [`Tree::render_more`]).
    fn dead_runs(&self, base: &BaseRendering, base_edits: &EditSet, live: &[bool], edits: &EditSet) -> Option<Vec<(usize, usize)>> {
        if !base.exact {
            return None;
        }
        let mut dead = Vec::new();
        for id in edits.deletions_beyond(base_edits)? {
            // A node the base does not render (deleted, or skipped by a replacement) takes
            // nothing away; one it renders takes its subtree's live tokens.
            if !live.get(id.0 as usize).copied().unwrap_or(false) {
                continue;
            }
            let tokens = self.subtree_token_range(id);
            let from = base.spans.partition_point(|s| (s.token as usize) < tokens.start);
            let to = base.spans.partition_point(|s| (s.token as usize) < tokens.end);
            if from < to {
                dead.push((from, to));
            }
        }
        dead.sort_unstable();
        Some(dead)
    }

    /// `base`'s text without the contributions of the spans in `dead` (sorted ranges of
    /// span positions), each live token that follows a run written anew after the live
    /// token before the run; with `with_spans`, the spans of the new text too. The base's
    /// contributions lie back to back from byte 0, and its ending (after the last one)
    /// depends only on its last live token.
    fn splice(&self, base: &BaseRendering, dead: &[(usize, usize)], edits: &EditSet, with_spans: bool) -> (String, Vec<Span>) {
        let m = base.spans.len();
        let mut r = Rendering::new(self, base.opts, base.text.len());
        let mut spans: Vec<Span> = Vec::new();
        // Copies the base's contributions of spans `from..to` (and, with `to == m`, the
        // ending), keeping their spans shifted to where they land.
        let copy = |r: &mut Rendering<'_>, spans: &mut Vec<Span>, from: usize, to: usize| {
            let start = base.spans[from].start as usize;
            let end = if to == m { base.text.len() } else { base.spans[to].start as usize };
            let shift = r.out.len() as i64 - start as i64;
            r.out.push_str(&base.text[start..end]);
            if with_spans {
                let moved = |x: u32| (x as i64 + shift) as u32;
                spans.extend(base.spans[from..to].iter().map(|s| Span { start: moved(s.start), end: moved(s.end), ..*s }));
            }
        };
        // The next span position not yet written.
        let mut k = 0;
        let mut i = 0;
        while i < dead.len() {
            // A maximal run of dead positions: overlapping and touching ranges merged.
            let (from, mut to) = dead[i];
            i += 1;
            while i < dead.len() && dead[i].0 <= to {
                to = to.max(dead[i].1);
                i += 1;
            }
            if from > k {
                copy(&mut r, &mut spans, k, from);
            }
            // The live token before the run (none at the start).
            match from.checked_sub(1).map(|p| base.spans[p]) {
                Some(p) => (r.last, r.last_edited) = (Some(p.token), p.edited),
                None => (r.last, r.last_edited) = (None, false),
            }
            let Some(&n) = base.spans.get(to) else {
                // The run reaches the end: the ending follows the live token before it.
                return (r.finish(), spans);
            };
            let id = self.token_order[n.token as usize];
            let (text, edited) = self.edited_text(id, edits.get(id));
            let start = r.out.len() as u32;
            r.token(id, text, edited);
            if with_spans {
                spans.push(Span { token: n.token, start, end: r.out.len() as u32, edited });
            }
            k = to + 1;
        }
        if k < m {
            copy(&mut r, &mut spans, k, m);
        } else if m > 0 {
            // The last token was written anew: the base's ending after it.
            r.out.push_str(&base.text[base.spans[m - 1].end as usize..]);
        } else {
            r.out.push_str(&base.text);
        }
        (r.out, spans)
    }
}
