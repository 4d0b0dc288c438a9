//! ProbDD (Wang, Zhang, Tang, Jiang, Xiong, Zhang, Lyu, "Probabilistic Delta Debugging",
//! ESEC/FSE 2021, Algorithm 1): every element carries the probability that it is needed;
//! each step removes the subset whose removal is expected to delete the most elements, and a
//! failed removal raises the probabilities of the subset's elements by Bayes' rule.
//!
//! - selection (the paper's `SelectSubset`): the elements sorted by probability, lowest
//!   first (ties in list order), and the prefix of length `k` that maximizes
//!   `k · Π (1 − p_i)` over it: the expected number of elements a removal deletes;
//! - a removal that keeps the test passing deletes the subset for good;
//! - a failed removal of `S` sets each `p_i` of `S` to `p_i / (1 − Π_{j∈S} (1 − p_j))`, so
//!   a failed single element becomes 1 (needed) and is never selected again;
//! - the search ends when every remaining element is needed (p = 1) or one element is left.
//!
//! The empty list is never proposed (callers that may empty a list try it first, as with
//! ddmin). Everything depends only on the verdicts, so the candidates judged are the same
//! for every lookahead: a window is the path on which every candidate in it fails.

/// The paper's initial probability that an element is needed.
pub const P0: f64 = 0.1;

/// Where ProbDD stands: the kept positions and each one's probability of being needed.
#[derive(Clone, Debug)]
struct State {
    kept: Vec<usize>,
    p: Vec<f64>,
    empty_due: bool,
}

impl super::Path for State {
    type Item = usize;

    fn into_kept(self) -> Vec<usize> {
        self.kept
    }

    fn advance(&mut self) -> Option<(Vec<usize>, State)> {
        if std::mem::take(&mut self.empty_due) {
            return Some((Vec::new(), State { kept: Vec::new(), p: Vec::new(), empty_due: false }));
        }
        if self.kept.len() < 2 {
            return None;
        }
        // Positions (into `kept`) not yet known to be needed, lowest probability first.
        let mut order: Vec<usize> = (0..self.kept.len()).filter(|&i| self.p[i] < 1.0).collect();
        if order.is_empty() {
            return None;
        }
        order.sort_by(|&a, &b| self.p[a].total_cmp(&self.p[b]).then(a.cmp(&b)));
        // Never the whole list: that would be the empty list.
        order.truncate(self.kept.len() - 1);
        let (mut best_k, mut best_gain, mut survive) = (0, 0.0, 1.0);
        for (k, &i) in order.iter().enumerate() {
            survive *= 1.0 - self.p[i];
            let gain = (k + 1) as f64 * survive;
            if gain > best_gain {
                (best_k, best_gain) = (k + 1, gain);
            }
        }
        let mut chosen = vec![false; self.kept.len()];
        for &i in &order[..best_k] {
            chosen[i] = true;
        }
        let candidate: Vec<usize> = (0..self.kept.len()).filter(|&i| !chosen[i]).map(|i| self.kept[i]).collect();
        let passed = State { kept: candidate.clone(), p: (0..self.kept.len()).filter(|&i| !chosen[i]).map(|i| self.p[i]).collect(), empty_due: false };
        // Failed: Bayes' update of the subset's probabilities.
        let none_needed: f64 = order[..best_k].iter().map(|&i| 1.0 - self.p[i]).product();
        for &i in &order[..best_k] {
            self.p[i] = if best_k == 1 || none_needed <= 0.0 { 1.0 } else { (self.p[i] / (1.0 - none_needed)).min(1.0) };
        }
        Some((candidate, passed))
    }
}

/// Minimizes positions `0..n` with ProbDD (see the module documentation): `first` gets up to
/// `lookahead` candidates (kept positions, in order) at once, with each one's successors
/// ([`super::windows`]), and answers the index of the first interesting one; with
/// `may_empty` the empty list is the first candidate.
///
/// # Errors
/// The first error `first` returns.
pub fn probdd<E>(n: usize, may_empty: bool, lookahead: usize, first: &mut super::FirstPassingThen<usize, E>) -> Result<Vec<usize>, E> {
    super::windows(State { kept: (0..n).collect(), p: vec![P0; n], empty_due: may_empty && n > 0 }, lookahead, first)
}

#[cfg(test)]
mod tests {
    use super::super::Path;
    use super::*;
    use std::convert::Infallible;

    /// ProbDD on `0..n` under `pred`, with every lookahead giving the same candidates and
    /// result as a sequential run: (result, tests).
    fn run(n: usize, may_empty: bool, pred: impl Fn(&[usize]) -> bool) -> (Vec<usize>, usize) {
        let judged = |lookahead: usize| {
            super::super::testing::judged(lookahead, &pred, |l, first| {
                probdd(n, may_empty, l, &mut |c: &[Vec<usize>], _: &dyn Fn(usize) -> Vec<Vec<usize>>| first(c))
            })
        };
        let sequential = judged(1);
        for lookahead in [2, 3, 8] {
            assert_eq!(judged(lookahead), sequential, "lookahead {lookahead}");
        }
        (sequential.0, sequential.1.len())
    }

    #[test]
    fn finds_three_needed_among_a_thousand() {
        let (out, tests) = run(1000, false, |s: &[usize]| [3, 500, 998].iter().all(|x| s.contains(x)));
        assert_eq!(out, vec![3, 500, 998]);
        // Subsets of about 1/p0 = 10 elements first: about n/10 tests for the first sweep.
        assert!((100..150).contains(&tests), "{tests} tests");
    }

    #[test]
    fn every_kept_element_is_needed_alone() {
        // Interesting while the kept numbers sum to at least 40: many answers; ProbDD's
        // ends where removing any one kept element fails.
        let pred = |s: &[usize]| s.iter().sum::<usize>() >= 40;
        let (out, _) = run(20, false, pred);
        assert!(pred(&out));
        for i in 0..out.len() {
            let mut less = out.clone();
            less.remove(i);
            assert!(!pred(&less), "{out:?} without {}", out[i]);
        }
    }

    #[test]
    fn the_empty_list_first_and_never_otherwise() {
        let (out, tests) = run(5, true, |_| true);
        assert_eq!((out, tests), (vec![], 1));
        let mut saw_empty = false;
        let out = probdd(5, false, 1, &mut |c: &[Vec<usize>], _: &dyn Fn(usize) -> Vec<Vec<usize>>| -> Result<Option<usize>, Infallible> {
            saw_empty |= c[0].is_empty();
            Ok(Some(0))
        })
        .unwrap();
        assert!(!saw_empty);
        assert_eq!(out.len(), 1, "an always-true test leaves one element");
        assert_eq!(run(1, false, |_| true), (vec![0], 0));
        assert_eq!(run(0, true, |_| true), (vec![], 0));
    }

    #[test]
    fn a_failed_single_removal_marks_the_element_needed() {
        let mut s = State { kept: vec![0, 1], p: vec![0.5, 0.9], empty_due: false };
        let (cand, _) = s.advance().unwrap();
        assert_eq!(cand, vec![1], "the likelier-unneeded element goes first, alone");
        assert_eq!(s.p[0], 1.0);
        let (cand, _) = s.advance().unwrap();
        assert_eq!(cand, vec![0]);
        assert!(s.advance().is_none(), "both needed: done");
    }
}
