//! Bisection on a chain: the deepest interesting level of a chain of nested candidates in
//! O(log depth) tests: the chain search of Perses' `reduceRegular` when each level holds
//! exactly one compatible node, as in `[[[…]]]`.
//!
//! Levels are `1..=depth`; level 0 (the chain's top) is known interesting. Level 1 is
//! judged first. If it passes, the search assumes the levels that pass are those above
//! some depth `k` (a monotone chain), keeps `lo` (deepest level known to pass) and `hi`
//! (shallowest known to fail, `depth + 1` at first) and tests the middle level: at most
//! `1 + ⌈log2(depth)⌉` tests. If it fails, only the deepest level is judged: chains are
//! not always monotone (a wrapper such as a block or parentheses fails where the level
//! inside, spliced, passes), and a chain failing throughout costs two tests. On any chain
//! the search ends on a level that passes with the level below it failing, or on 0.

/// Where the search stands.
#[derive(Clone, Debug)]
enum Bisect {
    /// Level 1 not judged yet.
    Top { depth: usize },
    /// Level 1 failed: the deepest level is judged, and the search ends.
    Deepest { depth: usize },
    /// Bisection: `lo` passed, `hi` failed (or is past the end).
    Between { lo: usize, hi: usize },
}

impl super::Path for Bisect {
    type Item = usize;

    fn advance(&mut self) -> Option<(Vec<usize>, Bisect)> {
        match *self {
            Bisect::Top { depth } if depth > 0 => {
                *self = Bisect::Deepest { depth };
                Some((vec![1], Bisect::Between { lo: 1, hi: depth + 1 }))
            }
            Bisect::Deepest { depth } if depth > 1 => {
                *self = Bisect::Between { lo: 0, hi: 1 };
                Some((vec![depth], Bisect::Between { lo: depth, hi: depth + 1 }))
            }
            Bisect::Between { lo, hi } if hi - lo >= 2 => {
                let mid = lo + (hi - lo) / 2;
                *self = Bisect::Between { lo, hi: mid };
                Some((vec![mid], Bisect::Between { lo: mid, hi }))
            }
            _ => None,
        }
    }

    fn into_kept(self) -> Vec<usize> {
        match self {
            Bisect::Between { lo, .. } => vec![lo],
            _ => vec![0],
        }
    }
}

/// The deepest level of a chain of `depth` levels found to pass (0: none did). `first`
/// gets candidates as one-element lists (the level), up to `lookahead` at once: the next
/// levels on the path where each fails, so the levels judged and the result are the same
/// for every lookahead (see [`super::windows`]).
///
/// # Errors
/// The first error `first` returns.
pub(crate) fn deepest<E>(depth: usize, lookahead: usize, first: &mut super::FirstPassingThen<usize, E>) -> Result<usize, E> {
    let kept = super::windows(Bisect::Top { depth }, lookahead, first)?;
    Ok(kept[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    /// The deepest passing level and the levels judged, for a chain of `depth` whose
    /// levels pass while `pass(level)`.
    fn run(depth: usize, lookahead: usize, pass: &dyn Fn(usize) -> bool) -> (usize, Vec<usize>) {
        let mut judged = Vec::new();
        let found = deepest(depth, lookahead, &mut |c: &[Vec<usize>], _: &dyn Fn(usize) -> Vec<Vec<usize>>| -> Result<Option<usize>, Infallible> {
            let i = c.iter().position(|l| pass(l[0]));
            judged.extend(c[..i.map_or(c.len(), |i| i + 1)].iter().map(|l| l[0]));
            Ok(i)
        })
        .unwrap();
        (found, judged)
    }

    #[test]
    fn a_chain_of_a_thousand_finds_its_deepest_passing_level_in_log_tests() {
        let bound = (1000f64).log2().ceil() as usize + 1;
        for k in [0, 1, 2, 499, 500, 998, 999, 1000] {
            let (found, judged) = run(1000, 1, &|level| level <= k);
            assert_eq!(found, k, "deepest passing level");
            assert!(judged.len() <= bound, "k = {k}: {} tests", judged.len());
        }
    }

    #[test]
    fn the_result_and_the_levels_judged_do_not_depend_on_the_lookahead() {
        for k in [0, 7, 63, 64, 100] {
            let one = run(100, 1, &|level| level <= k);
            for lookahead in [2, 3, 8, 64] {
                assert_eq!(run(100, lookahead, &|level| level <= k), one, "k = {k}, lookahead {lookahead}");
            }
        }
    }

    #[test]
    fn a_chain_that_is_not_monotone_ends_on_a_passing_level_whose_next_fails() {
        let pass = |level: usize| level % 3 != 2;
        let (found, _) = run(50, 1, &pass);
        assert!(found == 0 || pass(found));
        assert!(found == 50 || !pass(found + 1));
    }

    #[test]
    fn a_failing_top_level_leaves_only_the_deepest_to_judge() {
        assert_eq!(run(40, 1, &|level| level == 40), (40, vec![1, 40]), "a wrapper level fails, the level inside passes");
        assert_eq!(run(40, 4, &|_| false), (0, vec![1, 40]), "a chain failing throughout: two tests");
        assert_eq!(run(2, 1, &|level| level == 2), (2, vec![1, 2]));
    }

    #[test]
    fn empty_and_single_chains() {
        assert_eq!(run(0, 4, &|_| true), (0, vec![]));
        assert_eq!(run(1, 4, &|_| true), (1, vec![1]));
        assert_eq!(run(1, 4, &|_| false), (0, vec![1]));
    }
}
