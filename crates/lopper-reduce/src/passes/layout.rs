//! Layout: the final result laid out readably, tested once like every other candidate.
//!
//! Deletions leave their marks on the whitespace of what stays: a token that lost its
//! neighbour sits glued to the next operator (`() =>url`), lines keep the indentation of a
//! nesting that is gone, one space becomes a run of them. The layout keeps the tokens and
//! the line structure of the best program and rewrites only the whitespace between tokens:
//! a gap with a line break becomes one line break plus the indentation of its level (one
//! more inside each line's open brackets `{ ( [`, however many that line opened; a line
//! that starts with closers goes back to the level of the line that opened them); whitespace
//! after `(` and `[` and before `)`, `]`, a comma or a semicolon goes (the leftovers of
//! deleted code: `f( )`, `x ;`); any other whitespace becomes one space, and an
//! empty gap stays empty except around assignment, comparison and logical operators and
//! after a comma. Gaps holding comments (kept because the test
//! needs them) stay as they are. The indentation unit is the source's own (its tab, or its
//! smallest indentation step).
//!
//! Unlike the passes in Regehr's contract this one does not make the program smaller (it may
//! add bytes), so the reducer runs it once, after the global fixpoint, and keeps its text
//! only if it is interesting and has no new syntax errors.

use super::{span, Group, Kind, PassInfo};
use lopper_tree::Tree;
use std::ops::Range;

/// The layout step in the registry: after the global fixpoint, and the one step whose
/// text may grow.
pub const INFO: PassInfo = PassInfo {
    name: "layout",
    plain: "laying the result out",
    about: "the final result laid out readably: one line break and the bracket depth's indentation where the best had a line break, single spaces, no token glued to an operator; tested once (not for Python, whose indentation is syntax)",
    group: Group::Last,
    grows: true,
    kind: Kind::Layout,
};

/// Operators that read better with a space on each side (`a = b`, `() => x`, `a && b`).
const SPACED: [&str; 27] = [
    "=", "==", "===", "!=", "!==", "=>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>=", "&&", "||", "??", "<=", ">=", "**=", "&&=",
    "||=", "??=", ":=",
];

/// The best program `tree` (parsed from its text) laid out as the module docs say. The tokens
/// and their order are unchanged.
pub fn layout(tree: &Tree) -> String {
    let src = tree.source();
    let tokens = tree.token_ids();
    // What goes before each token, and each line's level with its old indentation. Each
    // open bracket holds the level of the lines inside it: one more than the line it was
    // opened on, however many brackets that line opened (`f(() => {` indents its body once).
    let mut gaps = Vec::with_capacity(tokens.len());
    let mut lines = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut level = 0usize;
    let mut prev_end = 0usize;
    let mut prev_text = "";
    for (i, &id) in tokens.iter().enumerate() {
        let text = tree.token_text(id);
        let here = span(tree, id);
        let start = here.start;
        let gap = &src[prev_end..start];
        gaps.push(if i == 0 {
            Gap::Empty
        } else if !gap.chars().all(char::is_whitespace) {
            // A comment the test needs: untouched.
            Gap::Verbatim(prev_end..start)
        } else if let Some(at) = gap.rfind('\n') {
            let same_line = |j: usize| j == i || !src[span(tree, tokens[j - 1]).end..span(tree, tokens[j]).start].contains('\n');
            let closing = (i..tokens.len()).take_while(|&j| same_line(j) && is_closer(tree.token_text(tokens[j]))).count();
            // A line that starts by closing brackets sits at the level of the line that opened
            // the outermost of them.
            level = match closing {
                0 => open.last().copied().unwrap_or(0),
                k => open.len().checked_sub(k).map_or(0, |o| open[o] - 1),
            };
            // Preprocessor lines stay at column 0.
            let d = if text.starts_with('#') { 0 } else { level };
            lines.push((&gap[at + 1..], d));
            Gap::Line(d)
        } else if matches!(prev_text, "(" | "[") || matches!(text, ")" | "]" | "," | ";") {
            // Leftovers of deleted code inside parentheses and brackets and before
            // separators: `f( )`, `x ;` (braces keep their space: `{ return; }`).
            Gap::Empty
        } else if !gap.is_empty() || SPACED.contains(&prev_text) || SPACED.contains(&text) || prev_text == "," {
            Gap::Space
        } else {
            Gap::Empty
        });
        if is_opener(text) {
            open.push(level + 1);
        } else if is_closer(text) {
            open.pop();
        }
        prev_end = here.end;
        prev_text = text;
    }
    let unit = indent_unit(&lines);
    let nl = tree.line_break();
    let mut out = String::with_capacity(src.len());
    for (&id, gap) in tokens.iter().zip(gaps) {
        match gap {
            Gap::Empty => {}
            Gap::Space => out.push(' '),
            Gap::Line(d) => {
                out.push_str(nl);
                out.push_str(&unit.repeat(d));
            }
            Gap::Verbatim(r) => out.push_str(&src[r]),
        }
        out.push_str(tree.token_text(id));
    }
    let tail = &src[prev_end..];
    if !tail.chars().all(char::is_whitespace) {
        out.push_str(tail);
    } else if tail.contains('\n') {
        out.push_str(nl);
    }
    out
}

/// The whitespace before a token in the layout.
enum Gap {
    Empty,
    Space,
    /// A line break, then this many indentation units.
    Line(usize),
    /// This part of the source, as it is.
    Verbatim(Range<usize>),
}

fn is_opener(t: &str) -> bool {
    matches!(t, "{" | "(" | "[" | "${")
}

fn is_closer(t: &str) -> bool {
    matches!(t, "}" | ")" | "]")
}

/// The source's indentation unit, from its lines' old indentation and new level: a tab if
/// indented lines start with one, else the step (2-8 spaces) that most lines with level
/// `d > 0` were indented by (`width / d`), the smaller on a tie, else two spaces.
fn indent_unit(lines: &[(&str, usize)]) -> String {
    let mut votes = [0usize; 9];
    for &(indent, d) in lines.iter().filter(|l| l.1 > 0) {
        if indent.starts_with('\t') {
            return "\t".into();
        }
        if indent.len() % d == 0 && (2..=8).contains(&(indent.len() / d)) {
            votes[indent.len() / d] += 1;
        }
    }
    let best = (2..=8).rev().max_by_key(|&w| votes[w]).filter(|&w| votes[w] > 0);
    " ".repeat(best.unwrap_or(2))
}
