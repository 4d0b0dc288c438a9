//! List minimizers: the search behind Perses' `reduceStar` / `reducePlus` and the ddmin
//! baselines, behind one trait so that newer minimizers (ProbDD, CDD, WDD, which use the
//! elements' weights) can be added as files of their own.
//!
//! A minimizer sees a list only as positions `0..n` with weights (the elements' token
//! counts) and a test that judges candidate sublists in order; it never sees the tree.

pub(crate) mod bisect;
pub mod ddmin;
pub mod probdd;

use crate::oracle::OracleError;

/// A list minimizer's state, stepped along the path on which every candidate fails.
pub(crate) trait Path: Clone {
    /// What the list holds.
    type Item;
    /// The next candidate (moving `self` past it, as if it failed), with the state its
    /// passing leads to; `None` once the search is done.
    fn advance(&mut self) -> Option<(Vec<Self::Item>, Self)>;
    /// The kept list.
    fn into_kept(self) -> Vec<Self::Item>;
}

/// Runs a minimizer from `start`, handing `first` up to `lookahead` candidates at once: the
/// next ones on the path where every candidate so far fails. It answers the index of the
/// first that passes, and the search goes on from the state that one leads to; so the
/// candidates judged and the result are the same for every lookahead, and a parallel
/// oracle keeps its slots busy. With a lookahead above 1, `first` also gets each
/// candidate's successors: the next `lookahead` candidates the search judges if that one
/// passes, so an oracle that speculates on a success can start them early.
///
/// # Errors
/// The first error `first` returns.
pub(crate) fn windows<P: Path, E>(start: P, lookahead: usize, first: &mut FirstPassingThen<P::Item, E>) -> Result<Vec<P::Item>, E> {
    let mut at = start;
    loop {
        let mut failed = at.clone();
        let (mut cands, mut passed) = (Vec::new(), Vec::new());
        while cands.len() < lookahead.max(1) {
            let Some((cand, then)) = failed.advance() else { break };
            cands.push(cand);
            passed.push(then);
        }
        if cands.is_empty() {
            return Ok(at.into_kept());
        }
        // Worked out only for a candidate the oracle speculates on.
        let next = |i: usize| if lookahead > 1 { passed.get(i).map_or_else(Vec::new, |p| successors(p.clone(), lookahead)) } else { Vec::new() };
        at = match first(&cands, &next)? {
            Some(i) => passed.swap_remove(i),
            None => failed,
        };
    }
}

/// The first `n` candidates on the failure path from `state`.
fn successors<P: Path>(mut state: P, n: usize) -> Vec<Vec<P::Item>> {
    std::iter::from_fn(|| state.advance().map(|(c, _)| c)).take(n).collect()
}

/// Given candidate lists in order and each one's successors on demand (see [`windows`];
/// empty where unknown), the index of the first on which the test passes.
pub type FirstPassingThen<'a, T, E> = dyn FnMut(&[Vec<T>], &dyn Fn(usize) -> Vec<Vec<T>>) -> Result<Option<usize>, E> + 'a;

/// Judges candidate sublists (each a list of kept positions, in order), given each one's
/// successors on demand ([`windows`]), and answers the index of the first interesting one.
pub type FirstInteresting<'a> = FirstPassingThen<'a, usize, OracleError>;

/// One list to minimize, as a [`ListMinimizer`] sees it.
#[derive(Clone, Copy, Debug)]
pub struct ListRequest<'a> {
    /// Each element's size in tokens; the list is positions `0..weights.len()`.
    pub weights: &'a [usize],
    /// Whether the empty list (an empty keep, which the caller renders as its empty list)
    /// is the first candidate.
    pub may_empty: bool,
    /// Candidates handed to the judge at once; the candidates judged and the result must
    /// not depend on it.
    pub lookahead: usize,
}

/// A list minimizer.
pub trait ListMinimizer: std::fmt::Debug + Sync {
    /// Its name, with the source it follows.
    fn name(&self) -> &'static str;

    /// Minimizes `list` to kept positions on which the test holds, assuming it holds on the
    /// whole list. `first` gets up to `list.lookahead` candidates at once, with each one's
    /// successors (the candidates judged next if it passes) where the minimizer knows them.
    ///
    /// # Errors
    /// The first error `first` returns.
    fn minimize(&self, list: ListRequest<'_>, first: &mut FirstInteresting) -> Result<Vec<usize>, OracleError>;
}

/// ddmin (Zeller & Hildebrandt, TSE 2002), complement-only and without restart (see
/// [`ddmin::ddmin`]); it does not use the weights.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ddmin;

impl ListMinimizer for Ddmin {
    fn name(&self) -> &'static str {
        "ddmin (Zeller & Hildebrandt, TSE 2002; complement-only, no restart)"
    }

    fn minimize(&self, list: ListRequest<'_>, first: &mut FirstInteresting) -> Result<Vec<usize>, OracleError> {
        ddmin::minimize((0..list.weights.len()).collect(), list.may_empty, list.lookahead, first)
    }
}

/// [`ddmin::coarse`]: ddmin's first `levels` chunk sizes only, for searches that take the
/// big steps and leave the rest to Perses (C-Vise's binary-search passes stop the same way
/// at their smallest chunk).
#[derive(Clone, Copy, Debug)]
pub struct CoarseDdmin {
    /// Chunk sizes tried: halves, quarters, … down to `n / 2^levels`.
    pub levels: u32,
    /// Past `levels` while at least half of a level's removals pass ([`ddmin::coarse`]).
    pub deep: bool,
}

impl ListMinimizer for CoarseDdmin {
    fn name(&self) -> &'static str {
        "ddmin's first levels (Zeller & Hildebrandt, TSE 2002; complement-only)"
    }

    fn minimize(&self, list: ListRequest<'_>, first: &mut FirstInteresting) -> Result<Vec<usize>, OracleError> {
        ddmin::coarse((0..list.weights.len()).collect(), list.may_empty, self.levels, self.deep, list.lookahead, first)
    }
}

/// ProbDD (Wang et al., ESEC/FSE 2021; see [`probdd`]): subsets chosen by each element's
/// probability of being needed, updated by Bayes' rule after a failed removal; it does not
/// use the weights.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProbDd;

impl ListMinimizer for ProbDd {
    fn name(&self) -> &'static str {
        "ProbDD (Wang et al., ESEC/FSE 2021, Algorithm 1; p0 = 0.1)"
    }

    fn minimize(&self, list: ListRequest<'_>, first: &mut FirstInteresting) -> Result<Vec<usize>, OracleError> {
        probdd::probdd(list.weights.len(), list.may_empty, list.lookahead, first)
    }
}

/// Every list minimizer with its name on the command line (`--minimizer`).
pub const ALL: [(&str, &dyn ListMinimizer); 2] = [("ddmin", &Ddmin), ("probdd", &ProbDd)];

/// Test help for minimizers.
#[cfg(test)]
pub(crate) mod testing {
    use super::ddmin::FirstPassing;
    use std::convert::Infallible;

    /// Runs `minimize` with `lookahead` under the synchronous test `pred`: the result, and
    /// the candidates judged, in order (those a sequential run judges: up to each answer).
    pub(crate) fn judged<T: Clone>(
        lookahead: usize,
        pred: &dyn Fn(&[T]) -> bool,
        minimize: impl FnOnce(usize, &mut FirstPassing<T, Infallible>) -> Result<Vec<T>, Infallible>,
    ) -> (Vec<T>, Vec<Vec<T>>) {
        let mut seen = Vec::new();
        let out = minimize(lookahead, &mut |c: &[Vec<T>]| {
            let i = c.iter().position(|s| pred(s));
            seen.extend(c[..i.map_or(c.len(), |i| i + 1)].iter().cloned());
            Ok(i)
        })
        .unwrap();
        (out, seen)
    }
}
