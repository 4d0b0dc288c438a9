//! ddmin (Zeller & Hildebrandt, "Simplifying and Isolating Failure-Inducing Input",
//! TSE 2002, Fig. 5): the list minimizer behind Perses' `reduceStar` / `reducePlus`.

/// Minimizes `items` to a 1-minimal subsequence on which `test` holds (removing any single
/// remaining item makes it fail), assuming it holds on `items` itself.
///
/// Order is kept. Each round splits the current list into `n` chunks, tries each chunk alone
/// ("reduce to subset"), then each complement ("reduce to complement"), and doubles `n` when
/// neither helps. The empty list is never tested (callers that may empty a list test that
/// first). `test` errors stop the search and are returned.
///
/// # Errors
/// The first error `test` returns.
pub fn ddmin<T: Clone, E>(items: Vec<T>, test: &mut dyn FnMut(&[T]) -> Result<bool, E>) -> Result<Vec<T>, E> {
    let mut c = items;
    let mut n = 2usize;
    while c.len() >= 2 {
        let chunks = split(&c, n);
        let mut reduced = false;
        for chunk in &chunks {
            if chunk.len() < c.len() && test(chunk)? {
                c = chunk.clone();
                n = 2;
                reduced = true;
                break;
            }
        }
        if !reduced && n > 2 {
            for i in 0..chunks.len() {
                let comp: Vec<T> = chunks.iter().enumerate().filter(|(j, _)| *j != i).flat_map(|(_, ch)| ch.iter().cloned()).collect();
                if test(&comp)? {
                    c = comp;
                    n = (n - 1).max(2);
                    reduced = true;
                    break;
                }
            }
        }
        if !reduced {
            if n >= c.len() {
                break;
            }
            n = (2 * n).min(c.len());
        }
    }
    Ok(c)
}

/// Splits `c` into `n` contiguous chunks whose sizes differ by at most one.
fn split<T: Clone>(c: &[T], n: usize) -> Vec<Vec<T>> {
    let n = n.min(c.len()).max(1);
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let end = start + (c.len() - start) / (n - i);
        out.push(c[start..end].to_vec());
        start = end;
    }
    out
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
        assert!(tests < 60, "{tests} tests");
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
        assert_eq!((out, tests), (vec![9], 0));
        let (out, _) = run(vec![1, 2], |s| s.len() == 2);
        assert_eq!(out, vec![1, 2]);
    }

    #[test]
    fn errors_stop_the_search() {
        let r: Result<Vec<u32>, &str> = ddmin((0..10).collect(), &mut |_| Err("stop"));
        assert_eq!(r, Err("stop"));
    }

    #[test]
    fn split_is_balanced() {
        let s = split(&[1, 2, 3, 4, 5, 6, 7], 3);
        assert_eq!(s, vec![vec![1, 2], vec![3, 4], vec![5, 6, 7]]);
        assert_eq!(split(&[1, 2], 4), vec![vec![1], vec![2]]);
    }
}
