//! ddmin (Zeller & Hildebrandt, "Simplifying and Isolating Failure-Inducing Input",
//! TSE 2002): the list minimizer behind Perses' `reduceStar` / `reducePlus`, in the
//! complement-only, no-restart form (Hodován & Kiss, "Practical Improvements to the
//! Minimizing Delta Debugging Algorithm", ICSOFT 2016).

/// Given candidate lists in order, the index of the first on which the test passes.
pub type FirstPassing<'a, T, E> = dyn FnMut(&[Vec<T>]) -> Result<Option<usize>, E> + 'a;

/// Minimizes `items` to a 1-minimal subsequence on which the test holds (removing any
/// single remaining item makes it fail), assuming it holds on `items` itself.
///
/// Order is kept. The list is cut into chunks of half its size, then a quarter, down to
/// single items; at each size every chunk's removal is tried once, left to right, and a
/// removal that keeps the test passing is kept at once (no restart from the first chunk).
/// Subset tests ("keep only this chunk") are skipped: on lists where several items are
/// needed they almost never pass, and at two chunks they equal the complements. The final
/// size-1 pass repeats until it removes nothing, which makes the result 1-minimal. The
/// empty list is never tested (callers that may empty a list test that first). Tests:
/// about `4·k·log2(n)` for `k` needed items among `n`; at most `n` per pass at size 1.
///
/// `first` gets up to `lookahead` candidates at once — the next removals in order, each
/// assuming the ones before it fail, across the end of a chunk size into the next — and
/// answers the index of the first that passes, so a parallel oracle can keep its slots busy;
/// the candidates judged and the result are the same for any `lookahead`.
///
/// # Errors
/// The first error `first` returns stops the search and is returned.
pub fn ddmin<T: Clone, E>(items: Vec<T>, lookahead: usize, first: &mut FirstPassing<T, E>) -> Result<Vec<T>, E> {
    minimize(items, false, lookahead, &mut |c: &[Vec<T>], _: &dyn Fn(usize) -> Vec<Vec<T>>| first(c))
}

/// [`ddmin`] as a list minimizer: with `may_empty` the empty list is the first candidate
/// (Perses tries a star's or optional's empty list before its elements; here it shares
/// ddmin's first window instead of costing a window of its own; its passing ends the
/// search), and `first` gets each candidate's successors too ([`super::windows`]).
///
/// # Errors
/// The first error `first` returns.
pub fn minimize<T: Clone, E>(items: Vec<T>, may_empty: bool, lookahead: usize, first: &mut super::FirstPassingThen<T, E>) -> Result<Vec<T>, E> {
    let size = items.len().div_ceil(2).max(1);
    super::windows(State { c: items, size, start: 0, tried: 0, gone: 0, empty_due: may_empty, floor: 1, deep: false }, lookahead, first)
}

/// [`minimize`] stopped after `levels` chunk sizes (halves, quarters, …, `n / 2^levels`):
/// the big steps of ddmin without its long tail, at most about `2^(levels + 1)` tests
/// whatever the number of needed items. The result is not 1-minimal (with `levels` at
/// least `log2 n` it is [`minimize`]'s).
///
/// With `deep`, the chunks go on halving past `levels` (down to single items, without
/// ddmin's repeated last pass) while at least half of a level's removals passed: with few
/// items needed among many, each level then costs about `2·k` tests for `k` needed items
/// and takes half of what is left; once most chunks hold a needed item, it stops as
/// without `deep`.
///
/// # Errors
/// The first error `first` returns.
pub fn coarse<T: Clone, E>(
    items: Vec<T>,
    may_empty: bool,
    levels: u32,
    deep: bool,
    lookahead: usize,
    first: &mut super::FirstPassingThen<T, E>,
) -> Result<Vec<T>, E> {
    let n = items.len();
    let size = n.div_ceil(2).max(1);
    let floor = n.div_ceil(1usize.checked_shl(levels).unwrap_or(usize::MAX)).max(1);
    super::windows(State { c: items, size, start: 0, tried: 0, gone: 0, empty_due: may_empty, floor, deep }, lookahead, first)
}

/// Where ddmin stands: the current list, its level's chunk size, where the next removal
/// starts, how many removals this level tried and how many passed, and whether the empty
/// list is still to try.
#[derive(Clone)]
struct State<T> {
    c: Vec<T>,
    size: usize,
    start: usize,
    tried: usize,
    gone: usize,
    empty_due: bool,
    /// The last chunk size (1: to a 1-minimal result).
    floor: usize,
    /// Past `floor` while at least half of a level's removals pass ([`coarse`]).
    deep: bool,
}

impl<T: Clone> super::Path for State<T> {
    type Item = T;

    fn into_kept(self) -> Vec<T> {
        self.c
    }

    fn advance(&mut self) -> Option<(Vec<T>, State<T>)> {
        if std::mem::take(&mut self.empty_due) {
            // Nothing is left to try after the empty list.
            return Some((Vec::new(), State { c: Vec::new(), size: 1, start: 0, tried: 1, gone: 1, empty_due: false, floor: self.floor, deep: false }));
        }
        loop {
            let n = self.c.len();
            if n < 2 {
                return None;
            }
            let (s, end) = (self.start, (self.start + self.size).min(n));
            // Never the empty list (a chunk as long as the list ends the level).
            if s < n && end - s < n {
                let cand: Vec<T> = self.c[..s].iter().chain(&self.c[end..]).cloned().collect();
                self.start = end;
                self.tried += 1;
                // No restart: after a removal the same chunk size goes on from where it was.
                let then = State { c: cand.clone(), start: s, gone: self.gone + 1, ..*self };
                return Some((cand, then));
            }
            // The level is over: halve the chunks, or end once size 1 removed nothing.
            let most_went = self.deep && self.gone * 2 >= self.tried.max(1);
            if self.size == 1 {
                if self.gone == 0 || self.floor > 1 {
                    return None;
                }
            } else if self.size <= self.floor && !most_went {
                return None;
            } else {
                self.size = self.size.div_ceil(2).min(n.div_ceil(2)).max(1);
            }
            self.start = 0;
            self.tried = 0;
            self.gone = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    fn run(items: Vec<u32>, pred: impl Fn(&[u32]) -> bool) -> (Vec<u32>, usize) {
        let pred = &pred;
        let mut tests = 0;
        let out = ddmin(items.clone(), 1, &mut |c: &[Vec<u32>]| -> Result<Option<usize>, Infallible> {
            tests += 1;
            Ok(pred(&c[0]).then_some(0))
        })
        .unwrap();
        // Any lookahead gives the same result after judging the same candidates in order.
        let judged = |lookahead: usize| super::super::testing::judged(lookahead, pred, |l, first| ddmin(items.clone(), l, first));
        let sequential = judged(1);
        assert_eq!((sequential.0.clone(), sequential.1.len()), (out.clone(), tests));
        for lookahead in [2, 3, 8, 64] {
            assert_eq!(judged(lookahead), sequential, "lookahead {lookahead}");
        }
        (out, tests)
    }

    fn assert_one_minimal(out: &[u32], pred: &dyn Fn(&[u32]) -> bool) {
        assert!(pred(out));
        for i in 0..out.len() {
            let mut less = out.to_vec();
            less.remove(i);
            assert!(less.is_empty() || !pred(&less), "removing {} still passes: not 1-minimal", out[i]);
        }
    }

    #[test]
    fn finds_the_needed_pair_among_many() {
        let pred = |s: &[u32]| s.contains(&17) && s.contains(&83);
        let (out, tests) = run((0..100).collect(), pred);
        assert_eq!(out, vec![17, 83]);
        assert!(tests < 40, "{tests} tests");
        assert_one_minimal(&out, &pred);
    }

    #[test]
    fn result_is_one_minimal_for_a_sum_threshold() {
        // Interesting while the kept numbers sum to at least 40: many 1-minimal answers.
        let pred = |s: &[u32]| s.iter().sum::<u32>() >= 40;
        let (out, _) = run((1..=20).collect(), pred);
        assert_one_minimal(&out, &pred);
    }

    #[test]
    fn keeps_order_and_handles_tiny_lists() {
        let (out, _) = run(vec![5, 4, 3, 2, 1], |s| s.contains(&4) && s.contains(&2));
        assert_eq!(out, vec![4, 2]);
        let (out, tests) = run(vec![9], |_| true);
        assert_eq!((out.clone(), tests), (vec![9], 0));
        let (out, tests) = run(vec![1, 2, 3], |_| true);
        assert_eq!(out.len(), 1, "an always-true test leaves one item (never the empty list)");
        assert!(tests <= 4, "{tests} tests");
        let (out, tests) = run(vec![9], |_| true);
        assert_eq!((out, tests), (vec![9], 0));
        let (out, _) = run(vec![1, 2], |s| s.len() == 2);
        assert_eq!(out, vec![1, 2]);
    }

    #[test]
    fn the_empty_list_comes_first_when_allowed_and_ends_the_search() {
        for lookahead in [1, 2, 8] {
            let mut judged = Vec::new();
            let mut first = |c: &[Vec<u32>]| -> Result<Option<usize>, Infallible> {
                judged.extend(c.iter().cloned());
                Ok(c.iter().position(|s| s.is_empty()))
            };
            assert_eq!(
                minimize(vec![1, 2, 3], true, lookahead, &mut |c: &[Vec<u32>], _: &dyn Fn(usize) -> Vec<Vec<u32>>| first(c)).unwrap(),
                Vec::<u32>::new()
            );
            assert_eq!(judged[0], Vec::<u32>::new(), "lookahead {lookahead}");
        }
        // When it fails, ddmin goes on exactly as without it, one single item included.
        let pred = |s: &[u32]| s.contains(&2);
        let mut seen = Vec::new();
        let out = minimize(vec![1, 2, 3], true, 1, &mut |c: &[Vec<u32>], _: &dyn Fn(usize) -> Vec<Vec<u32>>| -> Result<Option<usize>, Infallible> {
            seen.push(c[0].clone());
            Ok(pred(&c[0]).then_some(0))
        })
        .unwrap();
        assert_eq!((out, seen[0].clone()), (vec![2], vec![]));
        let (plain, tests) = run(vec![1, 2, 3], pred);
        assert_eq!((vec![2], tests + 1), (plain, seen.len()));
        let mut one = 0;
        let out = minimize(vec![7], true, 4, &mut |c: &[Vec<u32>], _: &dyn Fn(usize) -> Vec<Vec<u32>>| -> Result<Option<usize>, Infallible> {
            one += c.len();
            Ok(None)
        })
        .unwrap();
        assert_eq!((out, one), (vec![7], 1));
    }

    #[test]
    fn errors_stop_the_search() {
        let r: Result<Vec<u32>, &str> = ddmin((0..10).collect(), 1, &mut |_| Err("stop"));
        assert_eq!(r, Err("stop"));
    }
}

#[cfg(test)]
mod more_tests {
    use super::*;
    use std::convert::Infallible;

    #[test]
    fn coarse_stops_after_its_levels_and_costs_a_bounded_number_of_tests() {
        // Every tenth item needed: plain ddmin needs many tests to reach them all.
        let pred = |s: &[u32]| (0..1000).step_by(10).all(|x| s.contains(&x));
        let count = |levels: Option<u32>| {
            let mut tests = 0;
            let mut first = |c: &[Vec<u32>], _: &dyn Fn(usize) -> Vec<Vec<u32>>| -> Result<Option<usize>, Infallible> {
                tests += 1;
                Ok(pred(&c[0]).then_some(0))
            };
            let out = match levels {
                Some(l) => coarse((0..1000u32).collect(), true, l, false, 1, &mut first),
                None => minimize((0..1000u32).collect(), true, 1, &mut first),
            }
            .unwrap();
            assert!(pred(&out));
            (out.len(), tests)
        };
        let (full_len, full_tests) = count(None);
        let (coarse_len, coarse_tests) = count(Some(4));
        assert_eq!(full_len, 100);
        assert!(coarse_len > full_len, "4 levels stop at chunks of 63 items");
        assert!(coarse_tests <= 1 + 2 + 4 + 8 + 16, "{coarse_tests} tests");
        assert!(full_tests > 10 * coarse_tests, "{full_tests} against {coarse_tests}");
        // With levels enough to reach single items, it is ddmin.
        assert_eq!(count(Some(10)), (full_len, full_tests));
    }

    #[test]
    fn deep_coarse_goes_on_while_most_chunks_go_and_stops_where_most_are_needed() {
        let run = |needed: &dyn Fn(u32) -> bool, deep: bool| {
            let mut tests = 0;
            let mut first = |c: &[Vec<u32>], _: &dyn Fn(usize) -> Vec<Vec<u32>>| -> Result<Option<usize>, Infallible> {
                tests += 1;
                Ok((0..1000).filter(|&x| needed(x)).all(|x| c[0].contains(&x)).then_some(0))
            };
            let out = coarse((0..1000u32).collect(), true, 4, deep, 1, &mut first).unwrap();
            (out, tests)
        };
        // Three needed among a thousand: down to the three, a few tests per level.
        let three = |x: u32| [17, 500, 901].contains(&x);
        let (shallow, _) = run(&three, false);
        let (deep, tests) = run(&three, true);
        assert!(shallow.len() > 100, "{}", shallow.len());
        assert_eq!(deep, [17, 500, 901]);
        assert!(tests <= 1 + 30 + 6 * 3 * 2, "{tests} tests");
        // Every tenth needed: after the fourth level most chunks hold one; it stops there.
        let tenth = |x: u32| x % 10 == 0;
        let (shallow, shallow_tests) = run(&tenth, false);
        let (deep, deep_tests) = run(&tenth, true);
        assert_eq!((deep.len(), deep_tests), (shallow.len(), shallow_tests));
    }

    #[test]
    fn a_thousand_items_with_three_needed_take_few_tests() {
        let mut tests = 0;
        let out = ddmin((0..1000u32).collect(), 1, &mut |c: &[Vec<u32>]| -> Result<Option<usize>, Infallible> {
            tests += 1;
            Ok([3, 500, 998].iter().all(|x| c[0].contains(x)).then_some(0))
        })
        .unwrap();
        assert_eq!(out, vec![3, 500, 998]);
        assert!(tests < 80, "{tests} tests");
    }

    #[test]
    fn dependent_removals_reach_a_one_minimal_result() {
        // Item 5 is removable only after item 9 is gone (a use after its declaration).
        let pred = |s: &[u32]| s.contains(&1) && (!s.contains(&9) || s.contains(&5));
        let out = ddmin((0..12u32).collect(), 4, &mut |c: &[Vec<u32>]| -> Result<Option<usize>, Infallible> { Ok(c.iter().position(|s| pred(s))) }).unwrap();
        assert_eq!(out, vec![1]);
    }
}
