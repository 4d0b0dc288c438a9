//! ddmin (Zeller & Hildebrandt, "Simplifying and Isolating Failure-Inducing Input",
//! TSE 2002): the list minimizer behind Perses' `reduceStar` / `reducePlus`, in the
//! complement-only, no-restart form (Hodován & Kiss, "Practical Improvements to the
//! Minimizing Delta Debugging Algorithm", ICSOFT 2016).

/// Minimizes `items` to a 1-minimal subsequence on which `test` holds (removing any single
/// remaining item makes it fail), assuming it holds on `items` itself.
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
/// # Errors
/// The first error `test` returns stops the search and is returned.
pub fn ddmin<T: Clone, E>(items: Vec<T>, test: &mut dyn FnMut(&[T]) -> Result<bool, E>) -> Result<Vec<T>, E> {
    let mut c = items;
    if c.len() < 2 {
        return Ok(c);
    }
    let mut size = c.len().div_ceil(2);
    loop {
        let mut removed = false;
        let mut start = 0;
        while start < c.len() && c.len() > 1 {
            let end = (start + size).min(c.len());
            if end - start == c.len() {
                break; // never test the empty list
            }
            let comp: Vec<T> = c[..start].iter().chain(&c[end..]).cloned().collect();
            if test(&comp)? {
                c = comp;
                removed = true;
            } else {
                start = end;
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
        let mut tests = 0;
        let out = ddmin(items, &mut |s: &[u32]| -> Result<bool, Infallible> {
            tests += 1;
            Ok(pred(s))
        })
        .unwrap();
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
        let r: Result<Vec<u32>, &str> = ddmin((0..10).collect(), &mut |_| Err("stop"));
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
        let out = ddmin((0..1000u32).collect(), &mut |s: &[u32]| -> Result<bool, Infallible> {
            tests += 1;
            Ok([3, 500, 998].iter().all(|x| s.contains(x)))
        })
        .unwrap();
        assert_eq!(out, vec![3, 500, 998]);
        assert!(tests < 80, "{tests} tests");
    }

    #[test]
    fn dependent_removals_reach_a_one_minimal_result() {
        // Item 5 is removable only after item 9 is gone (a use after its declaration).
        let pred = |s: &[u32]| s.contains(&1) && (!s.contains(&9) || s.contains(&5));
        let out = ddmin((0..12u32).collect(), &mut |s: &[u32]| -> Result<bool, Infallible> { Ok(pred(s)) }).unwrap();
        assert_eq!(out, vec![1]);
    }
}
