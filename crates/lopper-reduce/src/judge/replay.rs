//! The judge's check of a nondeterministic test (after Shrink Ray's): the first, the eighth
//! and every `every`-th accepted candidate are replayed once (past every cache); after a
//! replay that disagrees, every accepted candidate is confirmed by [`CONFIRM_RUNS`] more
//! runs. Replays count as tests. Once their disagreements show a test that answers at
//! random (Wald's test, [`answers_at_random`]), the search stops with
//! [`OracleError::AtRandom`].

use super::Judge;
use crate::oracle::{OracleError, Verdict};

/// Runs that confirm an accepted candidate once the test was seen to be flaky.
pub const CONFIRM_RUNS: usize = 2;

/// Wald's sequential probability ratio test on the replays (past every cache) of accepted
/// candidates, the original and the result, once the test is known to be flaky: is it a
/// flaky check of a real property, where an interesting program's replay says no at most
/// [`FLAKY_NO`] of the time (a crash that shows 4 times in 5), or a test that answers at
/// random, where a replay says no [`RANDOM_NO`] of the time or more?
pub const FLAKY_NO: f64 = 0.2;

/// The share of "no" on replays of a test that answers at random (a coin).
pub const RANDOM_NO: f64 = 0.5;

/// The error bounds of the decision (Wald's α and β): a test that answers at random ends
/// in a result with a chance of at most about 1% (β / (1 − α)), and a flaky check of a
/// real property is taken for random about as rarely.
pub const ERROR_BOUND: f64 = 0.01;

/// The log-likelihood ratio of "random" against "flaky but right" after `no` of `runs`
/// replays said no (Wald's SPRT statistic; 0 before any replay).
pub fn randomness(no: usize, runs: usize) -> f64 {
    let yes = runs.saturating_sub(no);
    no as f64 * (RANDOM_NO / FLAKY_NO).ln() + yes as f64 * ((1.0 - RANDOM_NO) / (1.0 - FLAKY_NO)).ln()
}

/// Wald's bounds on [`randomness`], `(lower, upper)`: past the upper one the test answers
/// at random; below the lower one it is a flaky check of a real property.
pub fn wald_bounds() -> (f64, f64) {
    ((ERROR_BOUND / (1.0 - ERROR_BOUND)).ln(), ((1.0 - ERROR_BOUND) / ERROR_BOUND).ln())
}

/// Whether `no` of `runs` replays already show a test that answers at random.
pub fn answers_at_random(no: usize, runs: usize) -> bool {
    randomness(no, runs) >= wald_bounds().1
}

/// The replay schedule and whether the test is known to be flaky.
#[derive(Debug, Default)]
pub(super) struct Replay {
    /// Every how many accepted candidates one is replayed; 0: never.
    every: usize,
    /// Accepted candidates since the last replay.
    since: usize,
    /// Accepted candidates in all (the 1st and the 8th are replayed).
    accepted: usize,
    /// Whether each accepted candidate is confirmed (the test is known to be flaky).
    confirm: bool,
}

impl Judge<'_> {
    /// Sets how often accepted candidates are replayed ([`crate::Options::replay_every`]),
    /// and whether each is confirmed from the start ([`crate::Options::confirm`]).
    pub(crate) fn set_replays(&mut self, every: usize, confirm: bool) {
        self.replay.every = every;
        self.replay.confirm = confirm;
    }

    /// Runs the original up to `times` more (past every cache) after its first test said
    /// no: the first yes makes the test known to be flaky (each accepted candidate is
    /// confirmed from then on, with a warning) and is the verdict; else the last no.
    ///
    /// # Errors
    /// The oracle's.
    pub(crate) fn retest_original(&mut self, times: usize) -> Result<Verdict, OracleError> {
        let original = self.best.clone();
        let mut v = Verdict::NotInteresting;
        for _ in 0..times {
            v = self.replay_once(&original, 0)?;
            if v == Verdict::Interesting {
                self.stats.replay_disagreements += 1;
                self.known_flaky("it said no to the original once");
                break;
            }
        }
        Ok(v)
    }

    /// Whether the accepted candidate `text` still passes where it is replayed (see the
    /// module docs). Replays count as tests of pass `pass` (the running one if `None`).
    ///
    /// # Errors
    /// The oracle's.
    pub(super) fn replay_agrees(&mut self, text: &str, pass: Option<usize>) -> Result<bool, OracleError> {
        if self.replay.every == 0 && !self.replay.confirm {
            return Ok(true);
        }
        let runs = if self.replay.confirm {
            CONFIRM_RUNS
        } else {
            // The first and the eighth accepted candidates (a test that says yes at random
            // shows itself early, on small programs too), then every `every`-th.
            self.replay.since += 1;
            self.replay.accepted += 1;
            let early = matches!(self.replay.accepted, 1 | 8);
            if self.replay.since < self.replay.every && !early {
                return Ok(true);
            }
            self.replay.since = 0;
            1
        };
        let pass = pass.unwrap_or(self.pass);
        for _ in 0..runs {
            if self.replay_once(text, pass)? != Verdict::Interesting {
                self.stats.replay_disagreements += 1;
                self.known_flaky("a candidate it accepted failed when run again");
                // The search stops as soon as the evidence decides: no result of a test
                // that answers at random is kept, so the tests left would be wasted.
                if answers_at_random(self.stats.replay_disagreements, self.stats.replays) {
                    return Err(OracleError::AtRandom);
                }
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// One replay of `text`, counted as a test of pass index `pass`.
    fn replay_once(&mut self, text: &str, pass: usize) -> Result<Verdict, OracleError> {
        self.stats.tests += 1;
        self.stats.replays += 1;
        self.stats.pass_stats[pass].tests += 1;
        self.oracle.replay(text)
    }

    /// From now on each accepted candidate is confirmed; the first time, a warning says
    /// `why`.
    fn known_flaky(&mut self, why: &str) {
        if !self.replay.confirm {
            self.replay.confirm = true;
            self.warn(format!("the test is flaky: {why}; from then on each accepted candidate was confirmed by {CONFIRM_RUNS} more runs"));
        }
    }
}
