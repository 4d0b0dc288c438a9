//! The edits that turn a checker's base text into a candidate, as tree-sitter's
//! `InputEdit`s, so that an incremental re-parse re-lexes only what changed (issue 32,
//! point 4: a step costs what its edit costs).
//!
//! A candidate differs from its base in one span (a Perses deletion) or in many far apart
//! (every function body emptied at once, every unused declaration deleted). One edit over
//! the span from the first difference to the last would make tree-sitter copy and re-parse
//! everything between them; a line diff of that span (imara-diff's Histogram algorithm,
//! git's) gives one edit per changed run of lines instead, and the subtrees between them
//! are reused. Any edit list that turns the base into the candidate gives a correct parse;
//! the diff only decides how much is re-parsed.

use crate::{common_prefix, common_suffix};
use imara_diff::{Algorithm, Diff, InternedInput};
use tree_sitter::{InputEdit, Point};

/// Spans shorter than this (bytes) go as one edit: a diff would not pay for itself.
const ONE_EDIT_BELOW: usize = 4096;

/// The edits from `old` to `new`, in descending order of position (so each is given in the
/// coordinates of the text before any other was applied), and the number of bytes of `old`
/// they replace in all.
pub(crate) fn edits(old: &[u8], new: &[u8]) -> (Vec<InputEdit>, usize) {
    let prefix = common_prefix(old, new);
    let suffix = common_suffix(&old[prefix..], &new[prefix..]);
    let (old_mid, new_mid) = (&old[prefix..old.len() - suffix], &new[prefix..new.len() - suffix]);
    // Byte ranges within the middles: one, or one per hunk of the line diff.
    let hunks: Vec<(std::ops::Range<usize>, std::ops::Range<usize>)> = if old_mid.len().max(new_mid.len()) < ONE_EDIT_BELOW {
        vec![(0..old_mid.len(), 0..new_mid.len())]
    } else {
        let input = InternedInput::new(old_mid, new_mid);
        let diff = Diff::compute(Algorithm::Histogram, &input);
        let offsets = |tokens: &[imara_diff::Token]| {
            let mut at = Vec::with_capacity(tokens.len() + 1);
            at.push(0usize);
            for &t in tokens {
                at.push(at[at.len() - 1] + input.interner[t].len());
            }
            at
        };
        let (ob, nb) = (offsets(&input.before), offsets(&input.after));
        diff.hunks().map(|h| (ob[h.before.start as usize]..ob[h.before.end as usize], nb[h.after.start as usize]..nb[h.after.end as usize])).collect()
    };
    // Points by one forward sweep over `old` (each hunk's start and old end).
    let mut out = Vec::with_capacity(hunks.len());
    let (mut at, mut at_point) = (0usize, Point { row: 0, column: 0 });
    let mut replaced = 0;
    for (o, n) in hunks {
        let (start, old_end) = (prefix + o.start, prefix + o.end);
        let start_position = point(old, at, at_point, start);
        let old_end_position = point(old, start, start_position, old_end);
        let new_end_position = point(new, prefix + n.start, start_position, prefix + n.end);
        out.push(InputEdit { start_byte: start, old_end_byte: old_end, new_end_byte: start + n.len(), start_position, old_end_position, new_end_position });
        replaced += o.len();
        (at, at_point) = (old_end, old_end_position);
    }
    out.reverse();
    (out, replaced)
}

/// The row and column of byte `at` of `bytes`, given those of byte `from` (`at >= from`).
pub(crate) fn point(bytes: &[u8], from: usize, at_from: Point, at: usize) -> Point {
    let between = &bytes[from..at];
    match between.iter().rposition(|&b| b == b'\n') {
        Some(last) => Point { row: at_from.row + between.iter().filter(|&&b| b == b'\n').count(), column: at - (from + last + 1) },
        None => Point { row: at_from.row, column: at_from.column + (at - from) },
    }
}
