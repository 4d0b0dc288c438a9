//! Whether the interestingness test accepts a program left naming what a deletion removed:
//! learned by the list deletions' probes (`engine::Engine::ddmin_delete`), so that deletions
//! take their users along only where the test needs valid programs.

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
    pub(crate) fn after(self, passed: bool) -> DanglingUses {
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
