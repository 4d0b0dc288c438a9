//! Whether the interestingness test accepts a program left naming what a deletion removed:
//! learned by the list deletions' probes (`engine::Engine::ddmin_delete`), so that deletions
//! take their users along only where the test needs valid programs.

use crate::engine::{Engine, Round, Successors};
use crate::oracle::OracleError;
use lopper_tree::{EditSet, Tree};
use std::cell::Cell;

/// Whether the interestingness test accepts candidates left naming what they deleted (a
/// permissive test: grep a diagnostic) or needs them valid (a crash-on-valid test).
/// Deletions that take their uses along (`engine::Closure`) pay off only under the latter; under
/// the former they delete what the test needs (measured on the permissive C++ toy of
/// `benches/search_cost.sh`: 986 tests with them always, 105 with none, 120 with this
/// probe). So while undecided, when all of a list deletion's candidates fail, the first
/// whose closure took more is retried without it: [`DANGLING_TOLERATED`] such retries passing first decide "tolerated" (no
/// closures any more), [`DANGLING_REJECTED`] failing first decide "rejected" (no retries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DanglingUses {
    /// Undecided, with the retries so far that (passed, failed).
    Probing(u32, u32),
    /// The test accepted dangling uses: deletions no longer take their uses.
    Tolerated,
    /// The test rejected them: deletions take their uses, without retries.
    Rejected,
}

/// Retries of a closed deletion without its closure that pass before the test is taken to
/// accept dangling uses.
pub(crate) const DANGLING_TOLERATED: u32 = 2;
/// Retries that fail before the test is taken to reject dangling uses.
pub(crate) const DANGLING_REJECTED: u32 = 3;

impl DanglingUses {
    /// Whether deletions take their uses along.
    pub(crate) fn closes(self) -> bool {
        self != DanglingUses::Tolerated
    }

    /// Whether a failed closed deletion is retried without its closure.
    pub(crate) fn probes(self) -> bool {
        matches!(self, DanglingUses::Probing(..))
    }

    /// The state after a retry that `passed` or not.
    fn after(self, passed: bool) -> DanglingUses {
        let DanglingUses::Probing(p, f) = self else { return self };
        let (p, f) = if passed { (p + 1, f) } else { (p, f + 1) };
        if p >= DANGLING_TOLERATED {
            DanglingUses::Tolerated
        } else if f >= DANGLING_REJECTED {
            DanglingUses::Rejected
        } else {
            DanglingUses::Probing(p, f)
        }
    }
}

impl Engine<'_> {
    /// Judges a list deletion's candidates `batch` in order, as [`Engine::try_batch`] does
    /// (`then`: their successors), but while the probe is undecided in pieces, each ending
    /// at a candidate whose closure took more (`plains[i]`: that candidate without its
    /// closure). When such a piece fails, the candidate without its closure is judged once
    /// and its verdict goes to [`DanglingUses::after`] (`closing` cleared once the test is
    /// seen to tolerate dangling uses). So the retry comes where a one-at-a-time run makes
    /// it, whatever the batch's size (`-j`). Returns the index of the winner (a passing
    /// retry stands for its candidate), `None` when every candidate failed.
    ///
    /// # Errors
    /// The judge's.
    pub(crate) fn try_batch_probing(
        &mut self,
        r: &mut Round,
        batch: Vec<EditSet>,
        mut plains: Vec<Option<EditSet>>,
        then: &Successors<'_>,
        closing: &Cell<bool>,
    ) -> Result<Option<usize>, OracleError> {
        let tested = batch.len();
        let mut batch: Vec<Option<EditSet>> = batch.into_iter().map(Some).collect();
        let mut start = 0;
        while start < tested {
            let end = if self.dangling.probes() { (start..tested).find(|&i| plains[i].is_some()).map_or(tested, |k| k + 1) } else { tested };
            let piece: Vec<EditSet> = batch[start..end].iter_mut().map(|e| e.take().expect("judged once")).collect();
            let offset_then = |tree: &Tree, i: usize| then(tree, start + i);
            if let Some(i) = self.try_batch(r, piece, &[], Some(&offset_then))? {
                return Ok(Some(start + i));
            }
            let last = end - 1;
            if let Some(plain) = plains[last].take().filter(|_| self.dangling.probes()) {
                // Does the test accept what the closure kept out?
                let passed = self.try_batch(r, vec![plain], &[], None)?.is_some();
                self.dangling = self.dangling.after(passed);
                closing.set(self.dangling.closes());
                if passed {
                    return Ok(Some(last));
                }
            }
            start = end;
        }
        Ok(None)
    }
}
