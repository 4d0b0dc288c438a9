//! lopper-oracle: runs the interestingness test on candidates — the only part of lopper
//! that spawns processes (tests, external transformation commands, generators), and one
//! that never sees a tree: candidates are text.
//!
//! Each run gets a fresh working directory under one temporary root, holding the candidate
//! under the input's own file name (the C-Reduce / Perses convention); the test gets the
//! candidate's path as `$1`, runs in its own process group, and the whole group is killed
//! on timeout, on interrupt, and after the test exits (so no grandchild outlives it); a run
//! ended early also takes the groups its descendants made (`timeout`'s).

use std::path::{Path, PathBuf};
use std::time::Duration;

pub mod cache;
pub mod executor;
pub mod generator;
mod process;
pub mod sanity;
mod script;
pub mod speculation;
mod transform;
pub mod ub_guard;

pub use executor::{Executor, Finished, LocalExecutor, RunId};
pub(crate) use process::{failure_message, kill_group, poll_child, private_tmp, wait_for_exit};
pub use process::{is_runnable, shell_quote, Ending, KILL_GRACE};
pub use script::ScriptOracle;
pub use speculation::{Speculation, Wasted};
pub use transform::{TransformOutcome, TransformRunner};

pub use sanity::{check_original, derived_timeout, Sanity, SanityError};

/// The verdict of one test run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Exit status 0: the candidate still shows the behaviour.
    Interesting,
    /// Any other exit status, or death by a signal.
    NotInteresting,
    /// The time limit passed; the process group was killed. Counts as not interesting.
    TimedOut,
    /// The undefined-behaviour guard refused the candidate ([`ub_guard`], exit status
    /// [`ub_guard::UB_EXIT`]). Counts as not interesting.
    Undefined,
}

impl std::fmt::Display for Verdict {
    /// The verdict in a user's words: "interesting", "not interesting", "timed out",
    /// "refused by --ub-guard".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Interesting => "interesting",
            Verdict::NotInteresting => "not interesting",
            Verdict::TimedOut => "timed out",
            Verdict::Undefined => "refused by --ub-guard",
        })
    }
}

/// Why the oracle could not give a verdict.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// The user asked to stop (Ctrl-C); the running test was killed.
    #[error("interrupted")]
    Interrupted,
    /// The test file does not exist.
    #[error("interestingness test {0} does not exist")]
    TestMissing(PathBuf),
    /// The test path is a directory.
    #[error("interestingness test {0} is a directory, not an executable file")]
    TestIsDirectory(PathBuf),
    /// The test file is not executable.
    #[error("interestingness test {0} is not executable (try: chmod +x {0})")]
    TestNotExecutable(PathBuf),
    /// The test is executable but neither a `#!` script nor a binary, so the kernel cannot
    /// run it ("Exec format error").
    #[error("interestingness test {0} has no `#!` line: start it with `#!/bin/sh` (or the interpreter it needs)")]
    TestNoInterpreter(PathBuf),
    /// A file-system or process error, with the path it concerns (a run directory, a
    /// candidate file, the test).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file, directory or program.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Keeping a new best program failed (the reducer's progress sink; its message
    /// names the file).
    #[error("cannot keep the new best program: {0}")]
    Keep(#[source] std::io::Error),
    /// The reducer stopped its search: the replays of accepted candidates showed a test
    /// that answers at random (Wald's sequential test past its upper bound; lopper-reduce's
    /// `judge::answers_at_random`), so no result could be trusted.
    #[error("the test answers at random")]
    AtRandom,
    /// The `--launcher` prefix is not a valid shell-like word list (an open quote).
    #[error("cannot split the launcher `{0}` into words (an unclosed quote?)")]
    Launcher(String),
}

/// Maps an I/O error to [`OracleError::Io`] naming `path`.
pub(crate) fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> OracleError + '_ {
    move |source| OracleError::Io { path: path.to_path_buf(), source }
}

/// Something that judges candidates. The reducer only sees this trait, so tests can use
/// synthetic predicates and the real runner spawns processes. One required method,
/// [`Oracle::judge`], takes a whole request ([`Batch`]); the others are helpers over it.
pub trait Oracle {
    /// Judges `batch.candidates` in order until one is interesting: the candidates judged
    /// (screened ones left out), in order, up to and including the first interesting one;
    /// all not interesting but possibly the last. The answer is the one a sequential run
    /// gives; a parallel oracle may start later candidates (and a candidate's successors)
    /// speculatively, but cancels them once they cannot matter, and drops their verdicts.
    ///
    /// # Errors
    /// [`OracleError::Interrupted`] when the user stopped the run; I/O errors otherwise.
    fn judge(&mut self, batch: Batch<'_>) -> Result<Vec<Judged>, OracleError>;

    /// Judges one candidate text.
    ///
    /// # Errors
    /// As [`Oracle::judge`].
    fn test(&mut self, candidate: &str) -> Result<Verdict, OracleError> {
        Ok(self.judge(Batch::new(&[candidate]))?[0].verdict)
    }

    /// Runs the test on `candidate` once more, past every cache (a replay: Shrink Ray's
    /// check of a nondeterministic test); for an oracle without a cache, [`Oracle::test`].
    ///
    /// # Errors
    /// As [`Oracle::judge`].
    fn replay(&mut self, candidate: &str) -> Result<Verdict, OracleError> {
        self.test(candidate)
    }

    /// Judges `candidates` in order until one is interesting, with no screen and no
    /// successors ([`Oracle::judge`]).
    ///
    /// # Errors
    /// As [`Oracle::judge`].
    fn first_interesting(&mut self, candidates: &[&str]) -> Result<Vec<Judged>, OracleError> {
        self.judge(Batch::new(candidates))
    }
}

/// One request to an [`Oracle`]: candidates in order, each assuming the ones before it
/// fail, with the caller's optional screen and successors.
pub struct Batch<'a> {
    /// The candidate texts. Candidate `i`'s text is read only once the screen admitted it
    /// (never for a skipped candidate), so texts made on demand ([`Texts`]) are made only
    /// for the candidates judged.
    pub candidates: Candidates<'a>,
    /// `screen(i)` is asked in order, once each, only when candidate `i` is about to be
    /// judged (so a parallel oracle asks it when a slot frees, and never for candidates
    /// past a known answer); a [`Screened::Skip`]ped candidate is neither run nor looked
    /// up. The screen is where a caller's costly checks (a grammar re-parse) go, so that
    /// candidates past the answer never pay for them. `None`: every candidate runs.
    pub screen: Option<&'a mut dyn FnMut(usize) -> Screened>,
    /// `successors(i)`: the texts the caller would judge next, in order, if candidate `i`
    /// is the answer (each assuming the ones before it fail; already screened; empty when
    /// unknown). A parallel oracle may start them early, speculating on that success, and
    /// use their runs when later calls judge those texts; the answers and what counts as a
    /// test run stay those of a sequential run. `None`: no successors.
    pub successors: Option<&'a mut dyn FnMut(usize) -> Successors<'a>>,
}

/// The candidate texts of a [`Batch`], by index.
#[derive(Clone, Copy)]
pub enum Candidates<'a> {
    /// Texts at hand.
    Given(&'a [&'a str]),
    /// Texts made when first read.
    Made(&'a Texts<'a>),
}

impl<'a> Candidates<'a> {
    /// How many candidates there are.
    pub fn len(&self) -> usize {
        match self {
            Candidates::Given(t) => t.len(),
            Candidates::Made(t) => t.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Candidate `i`'s text (made now if it was not yet).
    ///
    /// # Panics
    /// If `i` is out of range.
    pub fn get(&self, i: usize) -> &'a str {
        match self {
            Candidates::Given(t) => t[i],
            Candidates::Made(t) => t.get(i),
        }
    }
}

/// Candidate texts made when first read, each at most once: a caller whose texts are
/// costly (a large program rendered from its tree under an edit set) pays only for the
/// candidates an oracle screens, not for those past the answer.
pub struct Texts<'a> {
    made: Box<[std::cell::OnceCell<String>]>,
    make: &'a dyn Fn(usize) -> String,
}

impl<'a> Texts<'a> {
    /// `n` texts, text `i` made by `make(i)` when first read.
    pub fn new(n: usize, make: &'a dyn Fn(usize) -> String) -> Texts<'a> {
        Texts { made: (0..n).map(|_| std::cell::OnceCell::new()).collect(), make }
    }

    /// Texts already made.
    pub fn given(texts: Vec<String>) -> Texts<'static> {
        Texts { made: texts.into_iter().map(std::cell::OnceCell::from).collect(), make: &|_| unreachable!("every text is given") }
    }

    /// How many texts there are.
    pub fn len(&self) -> usize {
        self.made.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.made.is_empty()
    }

    /// Text `i` (made now if it was not yet).
    ///
    /// # Panics
    /// If `i` is out of range.
    pub fn get(&self, i: usize) -> &str {
        self.made[i].get_or_init(|| (self.make)(i))
    }
}

/// The successors of one candidate (see [`Batch::successors`]), made one at a time as the
/// oracle takes them: a caller whose texts are costly to build (a large program rendered
/// from its tree) pays only for those a free slot starts, not for the whole list.
pub type Successors<'a> = Box<dyn Iterator<Item = String> + 'a>;

/// No successors (an empty [`Successors`]).
pub fn no_successors<'a>() -> Successors<'a> {
    Box::new(std::iter::empty())
}

impl<'a> Batch<'a> {
    /// A request for `candidates`, every one judged, no successors.
    pub fn new(candidates: &'a [&'a str]) -> Batch<'a> {
        Batch { candidates: Candidates::Given(candidates), screen: None, successors: None }
    }

    /// A request for texts made on demand, every one judged, no successors.
    pub fn of(texts: &'a Texts<'a>) -> Batch<'a> {
        Batch { candidates: Candidates::Made(texts), screen: None, successors: None }
    }

    /// The same request with the caller's screen.
    pub fn screened(mut self, screen: &'a mut dyn FnMut(usize) -> Screened) -> Batch<'a> {
        self.screen = Some(screen);
        self
    }

    /// The same request with the candidates' successors.
    pub fn with_successors(mut self, successors: &'a mut dyn FnMut(usize) -> Successors<'a>) -> Batch<'a> {
        self.successors = Some(successors);
        self
    }

    /// Judges the request one candidate after another with `test` (no speculation): what
    /// an oracle that runs one test at a time answers.
    ///
    /// # Errors
    /// `test`'s.
    pub fn judge_in_order(self, mut test: impl FnMut(&str) -> Result<Verdict, OracleError>) -> Result<Vec<Judged>, OracleError> {
        let mut run_all = |_| Screened::Run;
        let screen = self.screen.unwrap_or(&mut run_all);
        let mut out = Vec::new();
        for index in 0..self.candidates.len() {
            if screen(index) == Screened::Skip {
                continue;
            }
            let verdict = test(self.candidates.get(index))?;
            out.push(Judged { index, verdict, remembered: false });
            if verdict == Verdict::Interesting {
                break;
            }
        }
        Ok(out)
    }
}

/// The verdict on one candidate of a [`Batch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Judged {
    /// Its index in the batch.
    pub index: usize,
    /// The verdict.
    pub verdict: Verdict,
    /// Whether it was remembered (answered from a persistent store,
    /// [`cache::PersistentCache`]) instead of run, so that statistics count only real runs.
    pub remembered: bool,
}

/// What a caller's screen says of a candidate just before an oracle would judge it
/// ([`Batch::screen`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screened {
    /// Judge it.
    Run,
    /// Leave it out: the caller has its answer without a test.
    Skip,
}

impl<F: FnMut(&str) -> bool> Oracle for F {
    fn judge(&mut self, batch: Batch<'_>) -> Result<Vec<Judged>, OracleError> {
        batch.judge_in_order(|c| Ok(if self(c) { Verdict::Interesting } else { Verdict::NotInteresting }))
    }
}

/// How a program's bytes map to the text lopper works on, and back: UTF-8 when the input
/// is valid UTF-8, else Latin-1 (every byte one character, so any bytes round-trip). Test
/// runs, transformation runs and the result get the original encoding back, byte for byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Encoding {
    /// Valid UTF-8, used as is.
    #[default]
    Utf8,
    /// Anything else: byte `b` is the character `U+00bb`.
    Latin1,
}

impl Encoding {
    /// The text of `bytes`, and the encoding that gives the bytes back.
    pub fn decode(bytes: Vec<u8>) -> (String, Encoding) {
        match String::from_utf8(bytes) {
            Ok(s) => (s, Encoding::Utf8),
            Err(e) => (e.into_bytes().iter().map(|&b| b as char).collect(), Encoding::Latin1),
        }
    }

    /// `bytes` read in this encoding (output of a transformation, say).
    pub fn decode_as(self, bytes: &[u8]) -> String {
        match self {
            Encoding::Utf8 => String::from_utf8_lossy(bytes).into_owned(),
            Encoding::Latin1 => bytes.iter().map(|&b| b as char).collect(),
        }
    }

    /// The bytes of `text` in this encoding. Under Latin-1 a character above U+00FF (which
    /// no pass introduces) is written as UTF-8.
    pub fn encode(self, text: &str) -> std::borrow::Cow<'_, [u8]> {
        match self {
            Encoding::Utf8 => std::borrow::Cow::Borrowed(text.as_bytes()),
            Encoding::Latin1 => {
                let mut out = Vec::with_capacity(text.len());
                for c in text.chars() {
                    match u8::try_from(u32::from(c)) {
                        Ok(b) => out.push(b),
                        Err(_) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                    }
                }
                std::borrow::Cow::Owned(out)
            }
        }
    }
}

/// One run's verdict, duration and (if captured) combined output.
#[derive(Clone, Debug)]
pub struct RunReport {
    /// The verdict.
    pub verdict: Verdict,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// The test's stdout then stderr, when captured (at most 64 KiB each).
    pub output: String,
}

/// What runs as the interestingness test.
#[derive(Clone, Debug)]
pub enum TestCommand {
    /// An executable file, run with the candidate's path as its one argument.
    Script(PathBuf),
    /// A shell command line, run by `sh -c` with the candidate's path as `$1`.
    Shell(String),
}

/// When a finished run counts as interesting. The default: exit status 0, any output.
#[derive(Clone, Debug)]
pub struct Criteria {
    /// Exit statuses that count as interesting (death by a signal never does).
    pub exit_codes: Vec<i32>,
    /// A pattern the test's standard output must match.
    pub stdout: Option<regex::Regex>,
    /// A pattern the test's standard error must match.
    pub stderr: Option<regex::Regex>,
    /// Also feed the candidate to the test's standard input.
    pub stdin: bool,
    /// Whether the undefined-behaviour guard runs around the test: its refusal
    /// ([`ub_guard::UB_EXIT`]) is then [`Verdict::Undefined`].
    pub ub_guard: bool,
}

impl Default for Criteria {
    fn default() -> Self {
        Criteria { exit_codes: vec![0], stdout: None, stderr: None, stdin: false, ub_guard: false }
    }
}

impl Criteria {
    /// Whether judging a run needs its output (a pattern is set).
    pub(crate) fn needs_output(&self) -> bool {
        self.stdout.is_some() || self.stderr.is_some()
    }
}
