//! Checks of the original before any reduction, as C-Reduce and C-Vise make them: the test
//! runs on the unchanged input [`SANITY_RUNS`] times; a test that says no, says both, or
//! does not finish is refused with its own error, and the per-run time limit can be derived
//! from how long the test took.

use crate::{OracleError, RunReport, ScriptOracle, Verdict};
use std::time::Duration;

/// Runs of the original before reducing (the reducer's own first test makes one more).
pub const SANITY_RUNS: usize = 2;

/// Runs more when every sanity run said no, to tell a flaky test from an original that is
/// not interesting.
pub const NOT_INTERESTING_RUNS: usize = 2;

/// The sanity runs' time limit when none is given, and the most a derived one may be.
pub const MAX_DERIVED_TIMEOUT: Duration = Duration::from_secs(300);

/// The least a derived time limit may be.
pub const MIN_DERIVED_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the original is not a usable starting point. Each carries the captured output
/// (stdout then stderr) of the run that showed it.
#[derive(Debug, thiserror::Error)]
pub enum SanityError {
    /// The test ran out of time on the original.
    #[error("the test did not finish within {} s", .limit.as_secs_f64())]
    TooSlow {
        /// The time limit that passed.
        limit: Duration,
        /// The run's output.
        output: String,
    },
    /// Every run said "not interesting".
    #[error("the original is not interesting ({runs} runs)")]
    NotInteresting {
        /// Runs made.
        runs: usize,
        /// The first run's output.
        output: String,
    },
    /// Runs disagreed on the unchanged original.
    #[error("the test is flaky: yes {yes} times, no {no} times on the unchanged original")]
    Flaky {
        /// Interesting runs.
        yes: usize,
        /// Other runs.
        no: usize,
        /// Output of a run that said no.
        output: String,
    },
    /// The test could not be run, or the user interrupted.
    #[error(transparent)]
    Oracle(#[from] OracleError),
}

/// What the sanity runs measured.
#[derive(Clone, Copy, Debug)]
pub struct Sanity {
    /// Runs made.
    pub runs: usize,
    /// The slowest run's wall time.
    pub slowest: Duration,
    /// Where the runs disagreed: how many said yes and how many no (a flaky test, which a
    /// reduction can still use by confirming each accepted candidate).
    pub flaky: Option<(usize, usize)>,
}

/// The time limit derived from the original's slowest run: 10x, within
/// [`MIN_DERIVED_TIMEOUT`]..=[`MAX_DERIVED_TIMEOUT`].
pub fn derived_timeout(slowest: Duration) -> Duration {
    (slowest * 10).clamp(MIN_DERIVED_TIMEOUT, MAX_DERIVED_TIMEOUT)
}

/// Runs the test on `original` [`SANITY_RUNS`] times (output captured; as many at once as
/// the oracle's jobs) and judges the runs: a timeout first, then all no (after
/// [`NOT_INTERESTING_RUNS`] more runs that also say no); a mix is reported in
/// [`Sanity::flaky`], for the caller to decide. With `derive_timeout`, sets the oracle's time
/// limit to [`derived_timeout`] of the slowest run.
///
/// # Errors
/// [`SanityError`]: too slow, not interesting, flaky, or the oracle's own error
/// ([`OracleError::Interrupted`] on Ctrl-C).
pub fn check_original(oracle: &mut ScriptOracle, original: &str, derive_timeout: bool) -> Result<Sanity, SanityError> {
    let mut runs: Vec<RunReport> = oracle.run_times(original, SANITY_RUNS, true)?;
    if let Some(r) = runs.iter().find(|r| r.verdict == Verdict::TimedOut) {
        return Err(SanityError::TooSlow { limit: oracle.timeout(), output: r.output.clone() });
    }
    if runs.iter().all(|r| r.verdict != Verdict::Interesting) {
        // A test that says yes at random says no twice a quarter of the time: a few more
        // runs tell it from an original that is not interesting.
        let more: Vec<RunReport> = oracle.run_times(original, NOT_INTERESTING_RUNS, true)?;
        if more.iter().all(|r| r.verdict != Verdict::Interesting) {
            return Err(SanityError::NotInteresting { runs: runs.len() + more.len(), output: runs[0].output.clone() });
        }
        runs.extend(more);
    }
    let yes = runs.iter().filter(|r| r.verdict == Verdict::Interesting).count();
    let flaky = (yes < runs.len()).then_some((yes, runs.len() - yes));
    let slowest = runs.iter().map(|r| r.elapsed).max().unwrap_or_default();
    if derive_timeout {
        oracle.set_timeout(derived_timeout(slowest));
    }
    Ok(Sanity { runs: runs.len(), slowest, flaky })
}
