//! The counts of a reduction ([`Stats`], the `--stats` JSON) and the [`Progress`] that
//! hears of it as it goes.

/// Counts of one reduction. Times are wall-clock seconds. Serialized as the `--stats` JSON
/// (field names as here, but `invalid` is `invalid_candidates`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Token count of the input.
    pub tokens_before: usize,
    /// Token count of the result.
    pub tokens_after: usize,
    /// Interestingness tests run (the original's check included).
    pub tests: usize,
    /// Candidates answered from the verdict cache (same text seen before).
    pub cache_hits: usize,
    /// Candidates skipped untested because the same local change (the same lines before and
    /// after it, see `local_change`) was not interesting in an earlier round: the passes'
    /// candidates, and Perses' own once it runs again after the passes.
    pub presumed: usize,
    /// Candidates answered from the persistent verdict cache (judged by an earlier run):
    /// neither tests nor in-run cache hits.
    pub remembered: usize,
    /// Candidates generated (tested, cached or rejected).
    pub candidates: usize,
    /// Candidates rejected (or, for baselines and `--test-invalid`, only counted) because
    /// the front end found new syntax errors (tree-sitter ERROR/MISSING nodes, or a
    /// grammar file's parser rejecting the text) or more of the text inside ERROR nodes
    /// than the best had ([`lopper_parse::Damage`]).
    #[serde(rename = "invalid_candidates")]
    pub invalid: usize,
    /// Tests that hit the time limit.
    pub timeouts: usize,
    /// Candidates the undefined-behaviour guard (`--ub-guard`) refused: at its reference
    /// build, before the test, or at its other checks, after the test said interesting
    /// (counted in `tests` too).
    pub undefined: usize,
    /// Candidates not made because they would take a value the program reads (a local
    /// variable's initializer or only write, a return value: `Options::ub_safe_edits`); not judged, not
    /// in `candidates`.
    pub ub_avoided: usize,
    /// Replays of accepted candidates (counted in `tests` too): the periodic check of a
    /// nondeterministic test, and the confirmations once one disagreed.
    pub replays: usize,
    /// Replays that disagreed (said no to an accepted candidate): the test is flaky.
    pub replay_disagreements: usize,
    /// Candidates accepted (each a new best).
    pub accepted: usize,
    /// Rounds run (fixpoint iterations).
    pub rounds: usize,
    /// Share of the input's named CST nodes that matched their PNF rule, first round.
    pub matched_share: f64,
    /// Opaque nodes in the first round's tree.
    pub opaque_nodes: usize,
    /// Seconds spent waiting for tests.
    pub test_seconds: f64,
    /// Seconds spent running external transformation commands (clang_delta, `--transform`):
    /// part of `total_seconds`, neither tests nor lopper's own work.
    pub transform_seconds: f64,
    /// Seconds of the whole reduction.
    pub total_seconds: f64,
    /// CPU seconds of lopper's own process during the reduction (all its threads: parsing,
    /// rendering, grammar checks, scheduling, waiting for tests), not of the tests or the
    /// transformation commands it runs: the measure of lopper's own cost.
    pub own_cpu_seconds: f64,
    /// Seconds of the first test of the original.
    pub first_test_seconds: f64,
    /// Problems that did not stop the reduction but may have cut it short (e.g. the best
    /// program no longer parses, so no further fixpoint round ran); the CLI prints them.
    pub warnings: Vec<String>,
    /// The transformation now running (a name in `pass_stats`), for progress displays; not
    /// in the `--stats` JSON.
    #[serde(skip)]
    pub pass: String,
    /// Per pass, in the order they first ran: `other` (the original's test, comment
    /// removal, re-parsing between rounds), Perses' `list` (star, plus and optional
    /// deletion; the baselines' deletions too) and `replace` (regular and opaque nodes),
    /// then each pass after Perses by its name, and `layout`. The `--stats` JSON shows them
    /// as its `passes` map.
    #[serde(skip)]
    pub pass_stats: Vec<PassStats>,
    /// Size over time: one point per new best program (for plots of a run's progress).
    pub progress: Vec<ProgressPoint>,
}

/// The size of the best program when it was found.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct ProgressPoint {
    /// Seconds since the reduction started.
    pub seconds: f64,
    /// Its token count.
    pub tokens: usize,
    /// Its length in bytes.
    pub bytes: usize,
}

/// The counts of one pass.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct PassStats {
    /// The pass's name.
    pub name: String,
    /// Tests run for its variants.
    pub tests: usize,
    /// Variants accepted (each a new best).
    pub accepted: usize,
    /// Of its tests, the candidates `--ub-guard` refused (undefined behaviour).
    pub undefined: usize,
    /// Its time.
    pub time: PassTime,
}

/// Where one pass's time went, in seconds: wall time while it ran, and the part of it spent
/// waiting for tests (the rest is lopper's own work: rendering, re-parsing, bookkeeping).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct PassTime {
    /// Wall seconds while the pass ran.
    pub seconds: f64,
    /// Of those, seconds waiting for tests.
    pub test_seconds: f64,
}

impl Stats {
    /// The counts of the pass named `name`, if it ran.
    pub fn pass_named(&self, name: &str) -> Option<&PassStats> {
        self.pass_stats.iter().find(|p| p.name == name)
    }

    /// Share of generated candidates that were syntactically invalid, in `[0, 1]`.
    pub fn invalid_share(&self) -> f64 {
        if self.candidates == 0 {
            0.0
        } else {
            self.invalid as f64 / self.candidates as f64
        }
    }
}

/// Hears of a reduction as it goes: every new best program (so a caller can keep it on
/// disk) and every batch of tests (for progress displays), each time with the counts so far.
pub trait Progress {
    /// A new best program was accepted. An error stops the reduction.
    ///
    /// # Errors
    /// Whatever keeping the program failed with (e.g. writing it to disk).
    fn new_best(&mut self, program: &str, stats: &Stats) -> std::io::Result<()>;

    /// A batch of tests ended without a new best.
    fn tested(&mut self, _stats: &Stats) {}

    /// The original was tested and parsed: `stats.tokens_before` is its token count. Once,
    /// before any candidate.
    fn started(&mut self, _stats: &Stats) {}

    /// The pass `pass` stopped running (another one starts); its counts so far, summed
    /// over every time it ran. At the end, once for every pass, with its final counts.
    fn pass_ended(&mut self, _pass: &PassStats) {}
}

/// A [`Progress`] that ignores everything (tests, benchmarks).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn new_best(&mut self, _: &str, _: &Stats) -> std::io::Result<()> {
        Ok(())
    }
}

/// The name under which the original's test, comment removal and re-parsing are counted.
pub const OTHER: &str = "other";

/// The names the searches count under in `Stats::pass_stats`: Perses' (and the
/// baselines') list deletion, and Perses' replacement.
pub(crate) const LIST: &str = "list";
/// See [`LIST`].
pub(crate) const REPLACE: &str = "replace";
/// The name Perses' combined candidates (`perses::bulk`) count under.
pub(crate) const BULK: &str = "bulk";

/// The names `Stats::pass_stats` counts under that are not passes of the registry, each
/// in plain words (as `PassInfo::plain`) and in one sentence: Perses' parts, counted
/// apart, and [`OTHER`].
pub const COUNTED_APART: [(&str, &str, &str); 4] = [
    (LIST, "deleting list elements", "part of perses: ddmin over the elements of a Kleene star/plus list (also the baselines' list deletion)"),
    (REPLACE, "replacing a node by a smaller one", "part of perses: a node replaced by a descendant its symbol subsumes"),
    (BULK, "several deletions at once", "part of perses: the first candidates of several nodes judged as one while tests pass"),
    (OTHER, "checking the original", "not a pass: the original's first test, comment removal and re-parsing"),
];
