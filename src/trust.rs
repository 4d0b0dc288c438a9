//! What makes a result trustworthy once the reduction ends (after Shrink Ray's checks): the
//! result replayed, so that a nondeterministic test cannot hand back a program that does
//! not reproduce, and a trivial result (an empty program, or a test that accepts the empty
//! file) reported as the mistake in the test it almost always is. Either failure puts the
//! original back where the results went, so the user's input is as it was. Also what an
//! original that fails its sanity runs (not interesting, flaky, too slow) is told.

use crate::config::Reduction;
use crate::{exit, Fail};
use lopper_reduce::oracle::{Oracle, ScriptOracle};
use lopper_reduce::{randomness, wald_bounds, OracleError, Outcome, SanityError, Verdict, ERROR_BOUND, FLAKY_NO};

/// Replays of the result at the end.
const RESULT_REPLAYS: usize = 2;

/// More replays of the result once the test is known to be flaky: it must pass one.
const FLAKY_RESULT_REPLAYS: usize = 3;

/// Runs on the empty file, once a flaky test ended with a result that is not tiny.
const EMPTY_REPLAYS: usize = 5;

/// Replays of the original when the result is tiny.
const ORIGINAL_REPLAYS: usize = 5;

/// A result this short (bytes, without surrounding whitespace) is checked against the
/// empty file (a test that accepts that accepts anything), and the original is replayed
/// (a test that says yes at random ends this small too).
const SHORT: usize = 16;

/// Replays the result twice (unless `--assume-deterministic`) and flags a trivial result
/// (unless `--allow-trivial`). On either failure the original is written back.
///
/// # Errors
/// [`exit::FLAKY`] when the result fails its replay, when a flaky test (`flaky_at_start`:
/// on the original's sanity runs; or a replay that disagreed) left nothing smaller, or left
/// a tiny result or one a test that says yes whatever the input explains; [`exit::TRIVIAL`] for a trivial result; the oracle's errors.
pub fn check_result(r: &mut Reduction, oracle: &mut ScriptOracle, outcome: &Outcome, flaky_at_start: bool) -> Result<(), Fail> {
    let oracle_err = |e: lopper_reduce::OracleError| Fail(exit::ERROR, e.to_string());
    if outcome.at_random {
        // The search stopped as soon as the replays decided.
        return Err(at_random(r, outcome.stats.replay_disagreements, outcome.stats.replays, "of accepted candidates and of the original")?);
    }
    let flaky_seen = flaky_at_start || outcome.stats.replay_disagreements > 0;
    if flaky_seen && outcome.text == r.text {
        return Err(Fail(
            exit::FLAKY,
            format!("the test is flaky, and no smaller program passed its confirming runs; the original is as it was.\n  reproduce: {}", r.reproduce_command()),
        ));
    }
    let mut flaky_seen = flaky_seen;
    if !r.assume_deterministic && outcome.text != r.text {
        // Every replay must pass on a test not known to be flaky; one that fails makes it
        // known, and then the result must reproduce at least once in a few more runs.
        let (mut yes, mut runs) = (0, 0);
        while runs < RESULT_REPLAYS || (yes == 0 && runs < RESULT_REPLAYS + FLAKY_RESULT_REPLAYS) {
            runs += 1;
            if oracle.replay(&outcome.text).map_err(oracle_err)? == Verdict::Interesting {
                yes += 1;
            } else {
                flaky_seen = true;
            }
            if flaky_seen && yes > 0 && runs >= RESULT_REPLAYS {
                break;
            }
        }
        if yes == 0 {
            let back = restore(r)?;
            return Err(Fail(
                exit::FLAKY,
                format!(
                    "the test is flaky: the result did not pass when run again ({runs} runs; {} of {} replays during the run disagreed); {back}.\n  reproduce: {}",
                    outcome.stats.replay_disagreements,
                    outcome.stats.replays,
                    r.reproduce_command()
                ),
            ));
        }
    }
    if flaky_seen && !r.assume_deterministic && outcome.text != r.text {
        random_test(r, oracle, outcome)?;
    }
    let body = outcome.text.trim();
    let short = body.len() <= SHORT;
    if r.allow_trivial && !short {
        return Ok(());
    }
    // A test that says yes at random also ends in a tiny result: the original, run a few
    // times more, tells the two apart.
    if short && !flaky_seen && !r.assume_deterministic {
        for _ in 0..ORIGINAL_REPLAYS {
            if oracle.replay(&r.text).map_err(oracle_err)? != Verdict::Interesting {
                flaky_seen = true;
                break;
            }
        }
    }
    let trivial = !r.allow_trivial && (body.is_empty() || (short && oracle.replay("").map_err(oracle_err)? == Verdict::Interesting));
    if !trivial && !flaky_seen {
        return Ok(());
    }
    if !trivial && !short && !r.assume_deterministic {
        // Replays disagreed during the run and each accepted candidate was confirmed since.
        // A flaky check of a real property never passes the empty file; a test that says
        // yes whatever the input does, now and then.
        let mut random = false;
        for _ in 0..EMPTY_REPLAYS {
            if oracle.replay("").map_err(oracle_err)? == Verdict::Interesting {
                random = true;
                break;
            }
        }
        if !random {
            // The result passed its replays: kept, with the warning the summary prints.
            return Ok(());
        }
    }
    let back = restore(r)?;
    if flaky_seen {
        return Err(Fail(
            exit::FLAKY,
            format!(
                "the test is flaky (it said no to the original, or to {} accepted candidates, when run again) and the result is tiny; {back}.\n  reproduce: {}",
                outcome.stats.replay_disagreements,
                r.reproduce_command()
            ),
        ));
    }
    let what = if body.is_empty() { "the result is empty".to_string() } else { format!("the test accepts the empty file (the result was {body:?})") };
    Err(Fail(
        exit::TRIVIAL,
        format!("{what}: the test accepts too much, so this result says nothing about the bug; {back}. Make the test check for the bug itself (the crash's message, a stack frame), or pass --allow-trivial if this is expected.\n  reproduce: {}", r.reproduce_command()),
    ))
}

/// The most replays of the result the decision ([`lopper_reduce::randomness`]) may add.
const MAX_RANDOMNESS_REPLAYS: usize = 60;

/// Ends the run with [`exit::FLAKY`] (the original put back) when the replays show a test
/// that answers at random ([`randomness`] past Wald's upper bound), replaying the result
/// while the evidence is between the bounds.
///
/// # Errors
/// [`exit::FLAKY`] for a random test; the oracle's errors.
fn random_test(r: &mut Reduction, oracle: &mut ScriptOracle, outcome: &Outcome) -> Result<(), Fail> {
    let (lower, upper) = wald_bounds();
    let (mut no, mut runs) = (outcome.stats.replay_disagreements, outcome.stats.replays);
    let mut added = 0;
    while (lower..upper).contains(&randomness(no, runs)) && added < MAX_RANDOMNESS_REPLAYS {
        added += 1;
        runs += 1;
        no += (oracle.replay(&outcome.text).map_err(|e| Fail(exit::ERROR, e.to_string()))? != Verdict::Interesting) as usize;
    }
    // Past the upper bound, or still undecided after the most replays but leaning random.
    let evidence = randomness(no, runs);
    if evidence < upper && (added < MAX_RANDOMNESS_REPLAYS || evidence < 0.0) {
        return Ok(());
    }
    Err(at_random(r, no, runs, "of accepted candidates and of the result")?)
}

/// The failure for a test that answers at random: `no` of `runs` replays of `what` said no.
/// The original is put back.
///
/// # Errors
/// [`exit::OUTPUT`] when the original cannot be put back.
fn at_random(r: &mut Reduction, no: usize, runs: usize, what: &str) -> Result<Fail, Fail> {
    let back = restore(r)?;
    Ok(Fail(
        exit::FLAKY,
        format!(
            "the test answers at random: {no} of {runs} runs again {what} said no, where a flaky check of a real property says no at most {:.0}% of the time; no result is trustworthy (the chance of a result from such a test is bounded by about {:.0}%); {back}.\n  reproduce: {}",
            FLAKY_NO * 100.0,
            ERROR_BOUND * 100.0,
            r.reproduce_command()
        ),
    ))
}

/// Undoes the results ([`crate::output::Output::restore`]) and says what is left.
fn restore(r: &mut Reduction) -> Result<String, Fail> {
    r.output.restore(&r.text).map_err(|e| Fail(exit::OUTPUT, e.to_string()))
}

/// The last lines of a test's output, indented, for an error message ("" if none).
fn output_tail(output: &str) -> String {
    if output.trim().is_empty() {
        return String::new();
    }
    let lines: Vec<&str> = output.lines().rev().take(15).collect();
    let mut s = String::from("\n  the test's last output lines:");
    for l in lines.iter().rev() {
        s.push_str("\n    ");
        s.push_str(l);
    }
    s
}

/// The message and exit code for an original that failed its sanity runs.
pub fn sanity_failure(r: &Reduction, e: SanityError) -> Fail {
    sanity_failure_message(e, &format!("the original {}", r.file.display()), &format!("\n  reproduce: {}", r.reproduce_command()))
}

/// The message and exit code for a failed sanity check of `what` ("the original FILE"),
/// with `reproduce` ("" or a line starting with a newline) after the first line.
pub fn sanity_failure_message(e: SanityError, what: &str, reproduce: &str) -> Fail {
    match e {
        SanityError::TooSlow { limit, output } => Fail(
            exit::TOO_SLOW,
            format!("the test is too slow on {what}: it did not finish within {} s (--timeout).{reproduce}{}", limit.as_secs_f64(), output_tail(&output)),
        ),
        SanityError::NotInteresting { runs, output } => {
            Fail(exit::NOT_INTERESTING, format!("{what} is not interesting: the test said no ({runs} runs).{reproduce}{}", output_tail(&output)))
        }
        SanityError::Flaky { yes, no, output } => Fail(
            exit::FLAKY,
            format!(
                "the test is flaky: on {what}, unchanged, it said yes {yes} times and no {no} times; a reducer needs a deterministic test.{reproduce}{}",
                output_tail(&output)
            ),
        ),
        SanityError::Oracle(OracleError::Interrupted) => Fail(exit::INTERRUPTED, crate::INTERRUPTED_EARLY.into()),
        // A file-system error (a full disk, say) is no fault of the test's.
        SanityError::Oracle(e @ OracleError::Io { .. }) => Fail(exit::ERROR, format!("cannot run the test: {e}")),
        SanityError::Oracle(e) => Fail(exit::BAD_TEST, format!("cannot run the test: {e}")),
    }
}
