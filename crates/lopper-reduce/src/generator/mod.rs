//! Generator-based reduction (GReduce: Ren et al., "Validity-Preserving Delta Debugging via
//! Generator", 2024): instead of editing the failing input, lopper edits the trace of random
//! choices that made it and re-runs the generator aligned to the edited trace, so every
//! candidate is an output the generator itself can produce.
//!
//! - [`trace`]: the choices, as the shims write them, and their edits;
//! - [`patterns`]: the reducible loop and selection patterns, from call stacks;
//! - this module: the options, counts and errors, recording and replaying;
//! - [`search`]: the search. The *tree* strategy (GReduce's best) deletes loop iterations
//!   largest loop first with the list minimizer, flips selections, then lowers the other
//!   choices (all; then ddmin over call sites, then over the choices of each site that made
//!   few; then bisection of those that must stay above their lowest); the *sequence*
//!   strategy runs ddmin over the flat list of choices. Both repeat to a fixpoint. A
//!   candidate is accepted when its output is interesting and smaller (bytes, then the
//!   number of choices, then choices not at their smallest value, so that canonical values
//!   win at equal size); the new best trace is the one the re-execution recorded, so
//!   misalignments never accumulate.
//!
//! Generator runs go through [`crate::oracle::generator::GeneratorRunner`], tests through the
//! [`Oracle`]; this module spawns nothing itself.

pub mod patterns;
pub mod search;
pub mod trace;

pub use search::{reduce_trace, BISECT_GROUP_LIMIT, VALUE_GROUP_LIMIT};

use crate::oracle::generator::{Align, GeneratorRunner, RunFailure};
use crate::oracle::OracleError;
use trace::Trace;

/// How the trace is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Loops (iterations deleted, largest loop first), selections (flipped), then the other
    /// choices (lowered): GReduce's tree-based strategy.
    Tree,
    /// ddmin over the flat sequence of choices: GReduce's sequence-based strategy.
    Sequence,
    /// [`Strategy::Tree`] to its fixpoint, then one [`Strategy::Sequence`] round on the
    /// (now short) trace, and again while that round finds something: deleting choices
    /// out of order shifts the later ones to other calls, which reaches outputs that no
    /// single loop, selection or value edit does (a graph's coins shifted against its node
    /// count).
    TreeThenSequence,
}

impl Strategy {
    /// Every strategy with its name on the command line.
    pub const ALL: [(Strategy, &'static str); 3] =
        [(Strategy::Tree, "tree"), (Strategy::Sequence, "sequence"), (Strategy::TreeThenSequence, "tree-then-sequence")];
}

/// Options of a generator reduction.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Misalignment handling. Default: re-align (GReduce's best).
    pub align: Align,
    /// The search. Default: tree.
    pub strategy: Strategy,
    /// Candidates generated and judged at once (the result does not depend on it).
    pub jobs: usize,
    /// Repeat until a round changes nothing. Default: on.
    pub fixpoint: bool,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions { align: Align::Realign, strategy: Strategy::Tree, jobs: 1, fixpoint: true }
    }
}

/// Counts of a generator reduction (all in `--stats`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct GenStats {
    /// Choices in the first trace.
    pub choices_before: usize,
    /// Choices in the final trace.
    pub choices_after: usize,
    /// Bytes of the first output.
    pub bytes_before: usize,
    /// Bytes of the final output.
    pub bytes_after: usize,
    /// Generator replays a one-at-a-time search makes (bypass retries included); the same
    /// for every `jobs`.
    pub generator_runs: usize,
    /// Replays of candidates after the accepted one in a batch (`jobs` > 1 only): the price
    /// of speculation.
    pub speculative_runs: usize,
    /// Candidates whose replay failed: halted by alignment, or the generator failed.
    pub infeasible: usize,
    /// Replays that had to re-align at least once.
    pub realigned: usize,
    /// Candidates whose output was not smaller than the best's (not tested).
    pub not_smaller: usize,
    /// Interestingness tests run by the search (the sanity runs are the caller's).
    pub tests: usize,
    /// Candidates answered from the verdict cache (same output seen before).
    pub cache_hits: usize,
    /// Outputs judged by an earlier run (the persistent verdict cache): not tests.
    pub remembered: usize,
    /// Candidates accepted.
    pub accepted: usize,
    /// Rounds run.
    pub rounds: usize,
    /// Seconds of the whole search.
    pub seconds: f64,
}

/// The result of a generator reduction.
#[derive(Clone, Debug)]
pub struct GenOutcome {
    /// The smallest interesting output found.
    pub output: String,
    /// The trace that makes it (JSON lines).
    pub trace: String,
    /// The counts.
    pub stats: GenStats,
    /// Whether Ctrl-C stopped the search.
    pub interrupted: bool,
}

/// Receives each new best (to keep it on disk).
pub trait GenProgress {
    /// A new best output and the trace that makes it (its file form: [`Trace::to_jsonl`]).
    ///
    /// # Errors
    /// Whatever keeping it failed with; it stops the search.
    fn new_best(&mut self, output: &str, trace: &Trace, stats: &GenStats) -> std::io::Result<()>;
}

/// Why a generator reduction cannot start or go on.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// Running the generator or the test failed.
    #[error(transparent)]
    Oracle(#[from] OracleError),
    /// The recording run did not produce an output.
    #[error("{0}")]
    Generator(String),
    /// The recording run made no choices the shims see.
    #[error("the generator made no random choices that lopper can see (Python's `random` module, Node's Math.random; see docs/generators.md)")]
    NoChoices,
    /// Replaying the recorded trace did not give the same output.
    #[error("replaying the generator's own trace gave a different output: it uses randomness the shim does not see (numpy, os.urandom, hash order, time) or reads something that changed")]
    NotReplayable,
    /// A shim wrote a trace lopper cannot read.
    #[error("the trace shim wrote an unreadable line {0}: {1}")]
    BadTrace(usize, serde_json::Error),
}

/// Records the generator's failing run: its output and trace, checked by replaying the trace
/// once (the same output must come out).
///
/// # Errors
/// [`GenError::Generator`] if it fails, [`GenError::NoChoices`], [`GenError::NotReplayable`].
pub fn record(runner: &GeneratorRunner) -> Result<Recording, GenError> {
    let run = runner.run(None, Align::Realign)?;
    let elapsed = run.elapsed;
    let output = match run.output {
        Ok(o) => o,
        Err(RunFailure::Failed(m)) => return Err(GenError::Generator(m)),
        Err(RunFailure::Halted(at)) => return Err(GenError::Generator(format!("the recording run halted at entry {at}"))),
    };
    let trace = Trace::parse(&run.trace).map_err(|(l, e)| GenError::BadTrace(l, e))?;
    if trace.is_empty() {
        return Err(GenError::NoChoices);
    }
    let again = runner.run(Some(&trace.to_jsonl()), Align::Halt)?;
    if again.output.as_ref().ok() != Some(&output) {
        return Err(GenError::NotReplayable);
    }
    Ok(Recording { output, trace, slowest: elapsed.max(again.elapsed) })
}

/// The generator's recorded failing run.
#[derive(Clone, Debug)]
pub struct Recording {
    /// Its output.
    pub output: String,
    /// Its choices.
    pub trace: Trace,
    /// The slower of the recording run and its check replay.
    pub slowest: std::time::Duration,
}

/// Replays `trace` (JSON lines) once and returns what the generator wrote.
///
/// # Errors
/// [`GenError::Generator`] if the generator fails or alignment halts it.
pub fn replay(runner: &GeneratorRunner, trace: &str, align: Align) -> Result<String, GenError> {
    match runner.run(Some(trace), align)?.output {
        Ok(o) => Ok(o),
        Err(RunFailure::Halted(at)) => Err(GenError::Generator(format!("the replay halted at trace entry {at}: the generator asked for a different choice"))),
        Err(RunFailure::Failed(m)) => Err(GenError::Generator(m)),
    }
}

#[cfg(test)]
mod tests;
