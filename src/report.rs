//! What the user sees while and after lopper reduces: the progress line (indicatif on a
//! terminal, plain log lines otherwise), the `--events` stream, the closing summary, and
//! the `--stats` JSON. The progress line and the stream's `new_best` events show the same
//! [`Status`]; `--stats` is the `end` event's object.

use crate::config::{Reduction, Verbosity};
use crate::events::{Event, Events, PassCounts, Start, Status};
use crate::output::Output;
use lopper_reduce::oracle::Wasted;
use lopper_reduce::{Algorithm, GrammarCheck, Outcome, PassStats, Progress, Stats};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Listens to the reducer: keeps every new best on disk through [`Output`], shows progress
/// and writes the event stream.
pub struct Reporter<'a> {
    output: &'a mut Output,
    events: &'a mut Events,
    start: Start,
    bar: Option<indicatif::ProgressBar>,
    verbosity: Verbosity,
    started: Instant,
    last_line: Option<Instant>,
    /// A project's files in the best so far.
    files: Option<usize>,
}

/// Log lines without a terminal come at most this often (every new best with `-v`).
const LOG_EVERY: Duration = Duration::from_secs(2);

impl<'a> Reporter<'a> {
    /// A reporter writing bests to `output` and events to `events`; a live line on a
    /// terminal unless quiet.
    pub fn new(output: &'a mut Output, events: &'a mut Events, start: Start, verbosity: Verbosity) -> Reporter<'a> {
        let bar = spinner(verbosity);
        Reporter { output, events, start, bar, verbosity, started: Instant::now(), last_line: None, files: None }
    }

    /// The status `s` describes: a new best's point in `s.progress` when `new_best`.
    fn status(&self, s: &Stats, new_best: bool) -> Status {
        let point = s.progress.last().filter(|_| new_best);
        Status {
            seconds: point.map_or_else(|| self.started.elapsed().as_secs_f64(), |p| p.seconds),
            tokens: s.tokens_after,
            tokens_before: s.tokens_before,
            bytes: point.map_or(self.start.bytes, |p| p.bytes),
            pass: s.pass.clone(),
            tests: s.tests,
            cache_hits: s.cache_hits,
            round: s.rounds,
            files: self.files,
        }
    }

    fn line(&self, s: &Status) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-9);
        let files = s.files.map_or(String::new(), |n| format!(", {}", plural(n, "file")));
        format!(
            "{} / {} tokens ({:.1}%{files}) | {} tests, {} cache hits, {:.1} tests/s | round {} {}",
            s.tokens,
            s.tokens_before,
            percent(s.tokens, s.tokens_before),
            s.tests,
            s.cache_hits,
            s.tests as f64 / secs,
            s.round,
            s.pass
        )
    }

    fn show(&mut self, s: &Status, new_best: bool) {
        if let Some(b) = &self.bar {
            b.set_message(bar_line(s));
            return;
        }
        let due = self.last_line.is_none_or(|t| t.elapsed() >= LOG_EVERY);
        let wanted = match self.verbosity {
            Verbosity::Quiet => false,
            Verbosity::Normal => due,
            Verbosity::Verbose => due || new_best,
        };
        if wanted {
            self.last_line = Some(Instant::now());
            eprintln!("[{:7.1}s] {}", self.started.elapsed().as_secs_f64(), self.line(s));
        }
    }

    /// Clears the live line.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// The live line on a terminal: with the spinner and the elapsed time, at most 80 columns
/// for counts below a million and pass names up to 12 characters.
fn bar_line(s: &Status) -> String {
    // A project's files take the percentage's place.
    let share = s.files.map_or_else(|| format!("{:.1}%", percent(s.tokens, s.tokens_before)), |n| plural(n, "file"));
    let rate = s.tests as f64 / s.seconds.max(1e-9);
    format!("{}/{} {share} | {} tests, {} hits, {rate:.1}/s | round {} {}", s.tokens, s.tokens_before, s.tests, s.cache_hits, s.round, s.pass)
}

/// A live line while the test runs on the original (the sanity runs), from the first
/// second: `runs` at once within `limit`; `None` without a terminal or when quiet. The
/// caller clears it.
pub fn sanity_line(runs: usize, limit: Duration, verbosity: Verbosity) -> Option<indicatif::ProgressBar> {
    let b = spinner(verbosity)?;
    b.set_message(format!("testing the original: {runs} runs, time limit {:.0} s each", limit.as_secs_f64()));
    Some(b)
}

/// The live line's spinner with the elapsed time, on a terminal unless quiet.
fn spinner(verbosity: Verbosity) -> Option<indicatif::ProgressBar> {
    (std::io::stderr().is_terminal() && verbosity != Verbosity::Quiet).then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_style(indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}").expect("a valid template"));
        b.enable_steady_tick(Duration::from_millis(120));
        b
    })
}

impl Progress for Reporter<'_> {
    fn new_best(&mut self, program: &str, stats: &Stats) -> std::io::Result<()> {
        self.output.write(program).map_err(std::io::Error::other)?;
        self.files = project_files(program);
        tracing::debug!(tokens = stats.tokens_after, tests = stats.tests, "new best written");
        let status = self.status(stats, true);
        self.show(&status, true);
        self.events.emit(&Event::NewBest(status));
        Ok(())
    }

    fn tested(&mut self, stats: &Stats) {
        let status = self.status(stats, false);
        self.show(&status, false);
    }

    fn started(&mut self, stats: &Stats) {
        self.start.tokens = stats.tokens_before;
        self.files = self.start.files;
        self.events.emit(&Event::Start(self.start.clone()));
    }

    fn pass_ended(&mut self, p: &PassStats) {
        self.events.emit(&Event::Pass { pass: p.name.clone(), counts: p.into() });
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    100.0 * part as f64 / whole.max(1) as f64
}

/// The number of files of a project bundle; `None` for a single file.
pub fn project_files(text: &str) -> Option<usize> {
    lopper_bundle::is_bundle(text).then(|| lopper_bundle::split(text).len())
}

/// A resumed run's true original (the backup it kept): its tokens and path; `None` when the
/// run started from the original, or the backup cannot be read or parsed.
fn original_tokens(r: &Reduction) -> Option<(usize, &std::path::Path)> {
    let backup = r.output.backup.as_deref().filter(|_| r.output.resumed)?;
    let text = if backup.is_dir() {
        crate::project::Project::read(&[backup.to_path_buf()], &[], false).ok()?.bundle()
    } else {
        r.encoding.decode_as(&std::fs::read(backup).ok()?)
    };
    Some((r.frontend.parse(&text).ok()?.tree.token_count(), backup))
}

/// The closing summary, on stderr.
pub fn print_summary(r: &Reduction, outcome: &Outcome, wasted: Wasted) {
    let s = &outcome.stats;
    let own = (s.total_seconds - s.test_seconds - s.transform_seconds).max(0.0);
    let done = if outcome.interrupted { "interrupted" } else { "done" };
    let transforms = if s.transform_seconds > 0.0 { format!(", {:.1} s in transformation commands", s.transform_seconds) } else { String::new() };
    eprintln!(
        "lopper: {done} in {:.1} s ({:.1} s in tests{transforms}, {own:.2} s in lopper = {:.1}%; lopper's own CPU {:.2} s = {:.1}%)",
        s.total_seconds,
        s.test_seconds,
        100.0 * own / s.total_seconds.max(1e-9),
        s.own_cpu_seconds,
        100.0 * s.own_cpu_seconds / s.total_seconds.max(1e-9)
    );
    match original_tokens(r) {
        Some((n, path)) => eprintln!(
            "  tokens    {} -> {} ({:.2}% of this run's start; {:.2}% of the original, {n} tokens in {})",
            s.tokens_before,
            s.tokens_after,
            percent(s.tokens_after, s.tokens_before),
            percent(s.tokens_after, n),
            path.display()
        ),
        None => eprintln!("  tokens    {} -> {} ({:.2}% of the original)", s.tokens_before, s.tokens_after, percent(s.tokens_after, s.tokens_before)),
    }
    let replays = if s.replays > 0 { format!(" ({} of them replays, {} disagreed)", s.replays, s.replay_disagreements) } else { String::new() };
    eprintln!(
        "  tests     {} run{replays}, {} accepted, {} cache hits, {} skipped as a change that failed before, {} remembered from earlier runs, {} timed out; {}",
        s.tests,
        s.accepted,
        s.cache_hits,
        s.presumed,
        s.remembered,
        s.timeouts,
        plural(s.rounds, "round")
    );
    if r.criteria.ub_guard {
        eprintln!(
            "  undefined behaviour: {} candidates refused by --ub-guard; {} not made (they took a value the program reads: a local's initializer or only write, a return value)",
            s.undefined, s.ub_avoided
        );
    }
    if let Some(files) = project_files(&r.text).zip(project_files(&outcome.text)) {
        eprintln!("  files     {} -> {}", files.0, files.1);
    }
    let verbose = r.verbosity == Verbosity::Verbose;
    if verbose {
        eprintln!(
            "  parallel  {:.3} s the first test; {} runs started ahead of the answer were cancelled ({} of them for a successor) and {} finished past it; {} successors started on a probable success, {} of them used",
            s.first_test_seconds, wasted.cancelled, wasted.preempted, wasted.finished, wasted.successors, wasted.successors_used
        );
    }
    // Passes that tested nothing are only counted, so that the line stays readable.
    let (mut ran, idle): (Vec<_>, Vec<_>) = s.pass_stats.iter().partition(|p| p.tests > 0);
    if verbose {
        let mut each: Vec<String> = ran
            .iter()
            .map(|p| {
                format!("{}: {}, {} accepted, {:.1} s ({:.1} s in tests)", p.name, plural(p.tests, "test"), p.accepted, p.time.seconds, p.time.test_seconds)
            })
            .collect();
        if !idle.is_empty() {
            each.push(format!("{} more without a test ({:.1} s)", idle.len(), idle.iter().map(|p| p.time.seconds).sum::<f64>()));
        }
        eprintln!("  passes    {}", each.join("; "));
    } else {
        // Where the tests went, in plain words: the three steps that took the most.
        ran.sort_by_key(|p| std::cmp::Reverse(p.tests));
        let top: Vec<String> = ran.iter().take(3).map(|p| format!("{} {}", lopper_reduce::pipeline::registry::plain(&p.name), p.tests)).collect();
        if !top.is_empty() {
            eprintln!("  most tests went to {} (every step: --verbose)", top.join(", "));
        }
    }
    let fate = match r.options.grammar_check {
        GrammarCheck::Reject => "were not tested",
        GrammarCheck::Count => "were tested anyway",
    };
    eprintln!(
        "  syntax    {} of {} candidates ({:.2}%) had new syntax errors or more unparsed text and {fate}",
        s.invalid,
        s.candidates,
        100.0 * s.invalid_share()
    );
    if verbose {
        eprintln!("  matched   {:.1}% of named CST nodes to their PNF rule ({} opaque)", 100.0 * s.matched_share, s.opaque_nodes);
    }
    for w in &s.warnings {
        eprintln!("  warning   {w}");
    }
    let original = match &r.output.backup {
        Some(b) if r.output.backup_written() => format!(" (original: {})", b.display()),
        _ => String::new(),
    };
    eprintln!("  result    {}{original}", r.output.path.display());
}

/// The `--stats` JSON: the run's identity, then every [`Stats`] field.
#[derive(serde::Serialize)]
struct StatsReport<'a> {
    file: String,
    language: &'a str,
    algorithm: &'a str,
    interrupted: bool,
    jobs: usize,
    cancelled_speculative_runs: usize,
    /// Speculative runs that ended, but with a verdict past the answer (wasted like the
    /// cancelled ones; both are 0 with `-j 1`).
    finished_speculative_runs_past_answer: usize,
    /// Successor runs started while a candidate's run lasted as long as passing ones do
    /// (speculation on its success), and those whose verdict was used.
    successor_runs: usize,
    successor_runs_used: usize,
    /// Runs of later candidates cancelled to free a slot for a successor (in
    /// `cancelled_speculative_runs` too).
    preempted_runs: usize,
    /// Test runs on the original before the reduction (not in `tests`).
    sanity_runs: usize,
    invalid_share: f64,
    /// Per pass, in the order they first ran (`other` first; Perses' own as `list` and
    /// `replace`): tests, accepted variants, wall seconds, seconds in tests.
    passes: serde_json::Map<String, serde_json::Value>,
    /// A project's files, each with its tokens and bytes before and after (tokens where
    /// the language owns the file; a file the reduction deleted has `null` after).
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<Vec<FileCounts>>,
    #[serde(flatten)]
    stats: &'a Stats,
}

/// One file of a project in `--stats`: `[tokens, bytes]` before and after.
#[derive(serde::Serialize)]
struct FileCounts {
    path: String,
    tokens_before: Option<usize>,
    bytes_before: usize,
    tokens_after: Option<usize>,
    bytes_after: Option<usize>,
}

/// Per file of the original bundle, its counts there and in `result`.
fn file_counts(r: &Reduction, result: &str) -> Vec<FileCounts> {
    let tokens = |path: &str, text: &str| r.frontend.for_file(path).and_then(|l| l.parse(text).ok()).map(|p| p.tree.token_count());
    let after = lopper_bundle::split(result);
    lopper_bundle::split(&r.text)
        .into_iter()
        .map(|f| {
            let now = after.iter().find(|a| a.path == f.path);
            FileCounts {
                path: f.path.to_string(),
                tokens_before: tokens(f.path, f.text),
                bytes_before: f.text.len(),
                tokens_after: now.and_then(|a| tokens(a.path, a.text)),
                bytes_after: now.map(|a| a.text.len()),
            }
        })
        .collect()
}

/// The `--stats` object for `outcome`: the run's identity, then every [`Stats`] field (the
/// `end` event's fields too).
pub fn stats_report(r: &Reduction, outcome: &Outcome, wasted: Wasted, sanity_runs: usize) -> serde_json::Map<String, serde_json::Value> {
    let s = &outcome.stats;
    let report = StatsReport {
        file: r.file.display().to_string(),
        language: r.frontend.name(),
        algorithm: Algorithm::ALL.iter().find(|x| x.0 == r.options.algorithm).map_or("?", |x| x.1),
        interrupted: outcome.interrupted,
        jobs: r.jobs,
        cancelled_speculative_runs: wasted.cancelled,
        finished_speculative_runs_past_answer: wasted.finished,
        successor_runs: wasted.successors,
        successor_runs_used: wasted.successors_used,
        preempted_runs: wasted.preempted,
        sanity_runs,
        invalid_share: outcome.stats.invalid_share(),
        passes: s.pass_stats.iter().map(|p| (p.name.clone(), serde_json::to_value(PassCounts::from(p)).expect("pass stats serialize"))).collect(),
        files: r.bundle.then(|| file_counts(r, &outcome.text)),
        stats: s,
    };
    match serde_json::to_value(report).expect("stats serialize") {
        serde_json::Value::Object(m) => m,
        _ => unreachable!("a struct serializes to an object"),
    }
}

/// `n` and `word`, with an `s` unless `n` is 1 ("1 round", "2 rounds").
pub fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}
