//! `--events PATH`: the reduction as it goes, one JSON object a line (JSON Lines), for
//! tools that drive lopper (a CI job, an editor, a fuzzing harness). The progress line and
//! `--stats` are made from the same values as these events: a new best's [`Status`] is what
//! the progress line shows, and the `end` event's fields are the `--stats` JSON.
//!
//! Schema (docs/cli.md, "Events"): every line has `version` ([`VERSION`]) and `event`, one
//! of `start`, `new_best`, `pass`, `warning`, `error`, `end`. Fields are only ever added
//! within a version.

use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// The schema's version; raised only when a field changes meaning or goes away.
pub const VERSION: u32 = 1;

/// Where a reduction stands: the progress line shows these, and each `new_best` event
/// carries them.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Status {
    /// Seconds since the reduction started (the original's first test included).
    pub seconds: f64,
    /// The best program's tokens now.
    pub tokens: usize,
    /// The original's tokens.
    pub tokens_before: usize,
    /// The best program's length in bytes.
    pub bytes: usize,
    /// The pass running.
    pub pass: String,
    /// Tests run so far.
    pub tests: usize,
    /// Candidates answered by the in-memory cache so far.
    pub cache_hits: usize,
    /// Rounds begun so far.
    pub round: usize,
    /// A project's files left in the best (absent for a single file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<usize>,
}

/// What the `start` event says.
#[derive(Clone, Debug, Serialize)]
pub struct Start {
    /// FILE as given.
    pub file: String,
    /// The language's name.
    pub language: String,
    /// The original's tokens (known once it is parsed).
    pub tokens: usize,
    /// The original's bytes (as the test sees them).
    pub bytes: usize,
    /// The interestingness test (a script's path, or `sh -c '…'`).
    pub test: String,
    /// Tests run at once.
    pub jobs: usize,
    /// A project's files (absent for a single file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<usize>,
}

/// A pass's counts, summed over every time it ran: each `pass` event, and each entry of
/// `--stats`' `passes`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct PassCounts {
    /// Tests run for its variants.
    pub tests: usize,
    /// Variants accepted.
    pub accepted: usize,
    /// Wall seconds it ran.
    pub seconds: f64,
    /// Of those, seconds in tests.
    pub test_seconds: f64,
    /// Of its tests, candidates `--ub-guard` refused (only under it).
    #[serde(skip_serializing_if = "is_zero")]
    pub undefined: usize,
}

/// Whether `n` is 0 (a count only some runs have).
fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl From<&lopper_reduce::PassStats> for PassCounts {
    fn from(p: &lopper_reduce::PassStats) -> PassCounts {
        PassCounts { tests: p.tests, accepted: p.accepted, seconds: p.time.seconds, test_seconds: p.time.test_seconds, undefined: p.undefined }
    }
}

/// One line of the event stream.
#[derive(Debug, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// The original passed its sanity runs and was parsed; before the first candidate.
    Start(Start),
    /// A smaller interesting program was found (and written). Its `seconds`, `tokens` and
    /// `bytes` are the `progress` point `--stats` lists for it.
    NewBest(Status),
    /// A pass stopped running (another starts); counts summed over every time it ran. At
    /// the end, one for every pass, with its final counts (those of `--stats`).
    Pass {
        /// The pass's name, as `--stats`' `passes` has it.
        pass: String,
        /// Its counts.
        #[serde(flatten)]
        counts: PassCounts,
    },
    /// Something the user should know; the reduction goes on.
    Warning {
        /// The warning, as the summary prints it.
        message: String,
    },
    /// The run failed; `code` is lopper's exit code (docs/cli.md, "Exit codes").
    Error {
        /// The exit code.
        code: u8,
        /// The message lopper prints.
        message: String,
    },
    /// The reduction ended: the `--stats` JSON's fields, every one.
    End {
        /// The `--stats` object.
        #[serde(flatten)]
        stats: serde_json::Map<String, serde_json::Value>,
    },
}

/// One line: the version first, then the event.
#[derive(Serialize)]
struct Line<'a> {
    version: u32,
    #[serde(flatten)]
    event: &'a Event,
}

/// The event stream's sink: a file, stderr (`-`), or nothing.
#[derive(Default)]
pub struct Events {
    out: Option<Box<dyn Write + Send>>,
    failed: Option<String>,
}

impl Events {
    /// The stream to `path` (created or truncated; `-` is standard output, which carries
    /// nothing else, so the stream never mixes with the log on stderr), or none.
    ///
    /// # Errors
    /// Creating the file.
    pub fn open(path: Option<&Path>) -> std::io::Result<Events> {
        let out: Option<Box<dyn Write + Send>> = match path {
            None => None,
            Some(p) if p.as_os_str() == "-" => Some(Box::new(std::io::stdout())),
            Some(p) => Some(Box::new(std::io::LineWriter::new(std::fs::File::create(p)?))),
        };
        Ok(Events { out, failed: None })
    }

    /// Writes `event` as one line. A write that fails stops the stream (the reduction goes
    /// on; [`Events::failure`] says why, once, at the end).
    pub fn emit(&mut self, event: &Event) {
        let Some(out) = &mut self.out else { return };
        let line = serde_json::to_string(&Line { version: VERSION, event }).expect("events serialize");
        if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
            self.failed = Some(format!("--events: writing failed ({e}); no more events were written"));
            self.out = None;
        }
    }

    /// Why the stream stopped early, if it did.
    pub fn failure(&self) -> Option<&str> {
        self.failed.as_deref()
    }
}
