//! GReduce's reducible patterns (Ren et al. 2024, §4.2), recognized on a trace from its call
//! stacks alone, without changing the generator:
//!
//! - the *reducible loop*: a random count `n` (`randint`, `randrange`) followed, in the same
//!   invocation of the same function, by exactly `n` iterations — found as `n` occurrences
//!   of the call sites of the choice right after the count, before that invocation returns
//!   or the count's own call site comes round again. The iterations are a Kleene star: the
//!   reducer deletes them and lowers the count (never below the call's smallest value).
//! - the *reducible selection*: a coin (see [`super::trace::Choice::is_selection`]); the
//!   reducer flips it, and the block it guarded leaves the trace on re-execution.

use super::trace::Trace;
use std::ops::Range;

/// A reducible loop: the count's entry and its iterations (entry ranges, in order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    /// Index of the count's choice.
    pub count: usize,
    /// The iterations: consecutive, non-empty ranges of entries after the count.
    pub iterations: Vec<Range<usize>>,
    /// The smallest count the call allows (its range's start).
    pub min: usize,
}

impl Loop {
    /// Entries the loop spans (its iterations), for largest-first order.
    pub fn span(&self) -> usize {
        self.iterations.last().map_or(0, |l| l.end) - self.iterations.first().map_or(0, |f| f.start)
    }
}

/// The call sites of entry `j` from frame `depth` inward: its position relative to that frame.
fn label(t: &Trace, j: usize, depth: usize) -> Vec<&str> {
    t.choices[j].stack[depth..].iter().map(|(_, s)| s.as_str()).collect()
}

/// Whether entry `j` runs inside the same invocations as frames `0..=depth` of `stack`.
fn inside(t: &Trace, j: usize, stack: &[(u64, String)], depth: usize) -> bool {
    let s = &t.choices[j].stack;
    s.len() > depth && s[..=depth].iter().zip(&stack[..=depth]).all(|(a, b)| a.0 == b.0)
}

/// Every reducible loop of `t`, in trace order.
pub fn loops(t: &Trace) -> Vec<Loop> {
    let mut out = Vec::new();
    for (i, c) in t.choices.iter().enumerate() {
        if !matches!(c.api.as_str(), "randint" | "randrange") || c.int_arg(2).is_some_and(|s| s != 1) || c.stack.is_empty() {
            continue;
        }
        let (Some(n), Some(min)) = (c.int_value(), c.int_arg(0)) else { continue };
        if n < 1 || min < 0 || i + 1 >= t.len() {
            continue;
        }
        let depth = c.stack.len() - 1;
        let own = label(t, i, depth);
        // The scope: later entries in the same invocation, up to the count's own site again.
        let mut end = i + 1;
        while end < t.len() && inside(t, end, &c.stack, depth) && !(t.choices[end].api == c.api && label(t, end, depth) == own) {
            end += 1;
        }
        if end == i + 1 {
            continue;
        }
        let first = label(t, i + 1, depth);
        let starts: Vec<usize> = (i + 1..end).filter(|&j| label(t, j, depth) == first).collect();
        if starts.len() as i64 != n {
            continue;
        }
        let mut iterations: Vec<Range<usize>> = starts.windows(2).map(|w| w[0]..w[1]).collect();
        let last = *starts.last().expect("n >= 1");
        // The last iteration: while its entries' sites occur in the earlier iterations (all
        // of the scope when there is only one).
        let last_end = if iterations.is_empty() {
            end
        } else {
            let body: std::collections::HashSet<Vec<&str>> = (starts[0]..last).map(|j| label(t, j, depth)).collect();
            (last + 1..end).find(|&j| !body.contains(&label(t, j, depth))).unwrap_or(end)
        };
        iterations.push(last..last_end);
        out.push(Loop { count: i, iterations, min: min as usize });
    }
    out
}

/// `t` without the iterations of `l` not in `kept` (positions into `l.iterations`), its count
/// lowered to match; with, for each entry of the result, its index in `t`.
pub fn keep_iterations(t: &Trace, l: &Loop, kept: &[usize]) -> (Trace, Vec<usize>) {
    let mut drop = vec![false; t.len()];
    for (k, it) in l.iterations.iter().enumerate() {
        if !kept.contains(&k) {
            drop[it.clone()].iter_mut().for_each(|d| *d = true);
        }
    }
    let mut out = Trace::default();
    let mut origin = Vec::new();
    for (j, c) in t.choices.iter().enumerate() {
        if drop[j] {
            continue;
        }
        let c = if j == l.count { c.with_value(&(kept.len()).to_string()) } else { c.clone() };
        out.choices.push(c);
        origin.push(j);
    }
    (out, origin)
}

/// The innermost loop iteration of `loops` that contains entry `j`: (loop index, iteration).
pub fn iteration_at(loops: &[Loop], j: usize) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize, usize)> = None;
    for (li, l) in loops.iter().enumerate() {
        for (k, it) in l.iterations.iter().enumerate() {
            if it.contains(&j) && best.is_none_or(|(_, _, len)| it.len() < len) {
                best = Some((li, k, it.len()));
            }
        }
    }
    best.map(|(li, k, _)| (li, k))
}
