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
/// assuming the ones before it fail — and answers the index of the first that passes, so
/// a parallel oracle can test them together; the result is the same for any `lookahead`.
///
/// # Errors
/// The first error `first` returns stops the search and is returned.
pub fn ddmin<T: Clone, E>(items: Vec<T>, lookahead: usize, first: &mut FirstPassing<T, E>) -> Result<Vec<T>, E> {
    let mut c = items;
    if c.len() < 2 {
        return Ok(c);
    }
    let mut size = c.len().div_ceil(2);
    loop {
        let mut removed = false;
        let mut start = 0;
        while start < c.len() && c.len() > 1 {
            let (mut cands, mut starts) = (Vec::new(), Vec::new());
            let mut s = start;
            while cands.len() < lookahead.max(1) && s < c.len() {
                let end = (s + size).min(c.len());
                if end - s == c.len() {
                    break; // never test the empty list
                }
                cands.push(c[..s].iter().chain(&c[end..]).cloned().collect::<Vec<T>>());
                starts.push(s);
                s = end;
            }
            if cands.is_empty() {
                break;
            }
            match first(&cands)? {
                Some(i) => {
                    c = cands.swap_remove(i);
                    start = starts[i];
                    removed = true;
                }
                None => start = s,
            }
        }
        if size == 1 {
            if !removed || c.len() < 2 {
                return Ok(c);
            }
        } else {
            size = size.div_ceil(2).min(c.len().div_ceil(2)).max(1);
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
        // Any lookahead gives the same result.
        for lookahead in [2, 3, 8] {
            let again =
                ddmin(items.clone(), lookahead, &mut |c: &[Vec<u32>]| -> Result<Option<usize>, Infallible> { Ok(c.iter().position(|s| pred(s))) }).unwrap();
            assert_eq!(again, out, "lookahead {lookahead}");
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
