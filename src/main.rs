//! The `lopper` command line: argument parsing, progress, summary and exit codes. All
//! reduction logic lives in the library crates.

use clap::{Args, Parser, Subcommand};
mod languages;
mod output;

use languages::Registry;
use lopper_parse::Frontend;
use lopper_reduce::{reduce, Criteria, GrammarCheck, Options, ReduceError, ScriptOracle, Stats, TestCommand, Verdict};
use std::fs;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Exit codes, documented in docs/cli.md.
/// The sanity runs' limit when --timeout is not given, and the most a derived one may be.
const MAX_DERIVED_TIMEOUT: f64 = 300.0;

mod exit {
    pub const ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const BAD_INPUT: u8 = 3;
    pub const BAD_TEST: u8 = 4;
    pub const NOT_INTERESTING: u8 = 5;
    pub const FLAKY: u8 = 6;
    pub const TOO_SLOW: u8 = 7;
    pub const OUTPUT: u8 = 8;
    pub const INTERRUPTED: u8 = 130;
}

#[derive(Parser, Debug)]
#[command(
    name = "lopper",
    version,
    about = "Reduce a program to a small one that still passes an interestingness test (Perses-style, syntax-guided).",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    override_usage = "lopper [OPTIONS] TEST FILE\n       lopper [OPTIONS] --test-cmd 'SHELL COMMAND' FILE\n       lopper <COMMAND>"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    reduce: ReduceArgs,
}

#[derive(Args, Debug)]
struct ReduceArgs {
    /// TEST FILE: the interestingness test (an executable that gets the candidate's path as
    /// $1 and exits 0 while the candidate is still interesting) and the program to reduce,
    /// in place (the original kept as FILE.orig) unless -o. With --test-cmd, FILE alone.
    // More than two are accepted here so that the message can say "one FILE at a time".
    #[arg(required_unless_present = "list_algorithms", num_args = 1.., value_names = ["TEST", "FILE"])]
    args: Vec<PathBuf>,
    /// List the reduction algorithms with their sources, and exit.
    #[arg(long)]
    list_algorithms: bool,
    /// A shell command line to use as the test instead of a TEST file; the candidate's path
    /// is $1 (e.g. --test-cmd 'gcc -c "$1" 2>&1 | grep -q ICE').
    #[arg(long, value_name = "SHELL COMMAND")]
    test_cmd: Option<String>,
    /// Exit status that counts as interesting (repeatable; default 0).
    #[arg(long, value_name = "N")]
    interesting_exit_code: Vec<i32>,
    /// Interesting only if the test's standard output matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    stdout_regex: Option<String>,
    /// Interesting only if the test's standard error matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    stderr_regex: Option<String>,
    /// Also give the candidate to the test on standard input.
    #[arg(long)]
    stdin: bool,
    /// Keep every test run's temporary directory (their root is printed) for debugging.
    #[arg(long)]
    keep_temps: bool,
    /// Write the result here instead of reducing FILE in place.
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// The language (default: from FILE's extension: .c .h .i, .java, .js .mjs .cjs, and
    /// those the grammars declare; `lopper languages` lists them).
    #[arg(long, value_name = "LANG")]
    lang: Option<String>,
    /// A grammar to use: a pest grammar file (NAME.pest) or a tree-sitter grammar folder
    /// (with src/grammar.json and src/parser.c). Without --lang, FILE is in this language.
    #[arg(long, value_name = "PATH")]
    grammar: Option<PathBuf>,
    /// Time limit of one test run, in seconds; the test's process group is killed then.
    /// Default: 10x the original's slowest sanity run, at least 10 s, at most 300 s.
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// Run up to N tests at once (speculatively, in candidate order; the result is the
    /// same for every N). Default: the number of cores. C-Vise's `--n N` and `-n N` work too.
    #[arg(short, long, value_name = "N", alias = "n", short_alias = 'n')]
    jobs: Option<usize>,
    /// The reduction algorithm: perses, or a baseline (ddmin-lines, ddmin-tokens, hdd,
    /// hdd-fixpoint); see --list-algorithms.
    #[arg(long, default_value = "perses", value_parser = parse_algorithm)]
    algorithm: lopper_reduce::Algorithm,
    /// Stop after one round instead of repeating until a round removes nothing.
    #[arg(long)]
    no_fixpoint: bool,
    /// Also test candidates that tree-sitter parses with new syntax errors.
    #[arg(long)]
    test_invalid: bool,
    /// Write the run's statistics as JSON to this file.
    #[arg(long, value_name = "PATH")]
    stats: Option<PathBuf>,
    /// Print only errors.
    #[arg(short, long, conflicts_with = "verbose")]
    quiet: bool,
    /// Without a terminal, log every new best program instead of a line every 2 s.
    #[arg(short, long)]
    verbose: bool,
}

/// Parses an `--algorithm` name (the names `--list-algorithms` prints).
fn parse_algorithm(name: &str) -> Result<lopper_reduce::Algorithm, String> {
    lopper_reduce::Algorithm::ALL
        .iter()
        .find(|(_, n, _)| *n == name)
        .map(|(a, _, _)| *a)
        .ok_or_else(|| format!("unknown algorithm `{name}` (see --list-algorithms)"))
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the PNF tree of a program and the share of CST nodes matched to their rule.
    Parse {
        /// The program.
        file: PathBuf,
        /// The language (default: from the extension).
        #[arg(long)]
        lang: Option<String>,
        /// A grammar file or tree-sitter grammar folder to parse with.
        #[arg(long, value_name = "PATH")]
        grammar: Option<PathBuf>,
    },
    /// List the languages lopper can load: name, extensions, where each comes from.
    Languages,
    /// Inspect a language's grammar.
    Grammar {
        #[command(subcommand)]
        command: GrammarCommand,
    },
}

#[derive(Subcommand, Debug)]
enum GrammarCommand {
    /// Print a grammar's PNF rules and subsumption relation.
    Show {
        /// A language name (see `lopper languages`), a pest grammar file, a tree-sitter
        /// grammar folder, or a tree-sitter grammar.json file.
        grammar: String,
    },
}

/// An error with its exit code; printed as one line.
struct Fail(u8, String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Deep parse trees (long expression chains) recurse; give the work a large stack.
    let worker = std::thread::Builder::new().stack_size(1 << 30).spawn(move || run(cli));
    match worker.map(|h| h.join()) {
        Ok(Ok(Ok(()))) => ExitCode::SUCCESS,
        Ok(Ok(Err(Fail(code, msg)))) => {
            if !msg.is_empty() {
                eprintln!("lopper: {msg}");
            }
            ExitCode::from(code)
        }
        _ => {
            eprintln!("lopper: internal error");
            ExitCode::from(exit::ERROR)
        }
    }
}

fn run(cli: Cli) -> Result<(), Fail> {
    match cli.command {
        Some(Command::Parse { file, lang, grammar }) => parse_cmd(&file, lang.as_deref(), grammar.as_deref()),
        Some(Command::Languages) => languages_cmd(),
        Some(Command::Grammar { command: GrammarCommand::Show { grammar } }) => grammar_show(&grammar),
        None => reduce_cmd(cli.reduce),
    }
}

/// Finds and loads FILE's language: `--lang`, else `--grammar`, else by extension.
fn language(file: &Path, lang: Option<&str>, grammar: Option<&Path>) -> Result<Frontend, Fail> {
    let explicit: Vec<PathBuf> = grammar.map(Path::to_path_buf).into_iter().collect();
    let reg = Registry::discover(&explicit).map_err(|e| Fail(exit::BAD_INPUT, e))?;
    let entry = match (lang, grammar) {
        (Some(l), _) => reg.by_name(l).ok_or_else(|| Fail(exit::BAD_INPUT, format!("unknown language `{l}` (known: {})", reg.names())))?,
        (None, Some(_)) => &reg.entries[0],
        (None, None) => reg.by_path(file).ok_or_else(|| {
            Fail(
                exit::BAD_INPUT,
                format!("cannot tell the language of {} from its extension; use --lang (known: {}) or --grammar PATH", file.display(), reg.names()),
            )
        })?,
    };
    entry.load().map_err(|e| Fail(exit::BAD_INPUT, e))
}

fn languages_cmd() -> Result<(), Fail> {
    let reg = Registry::discover(&[]).map_err(|e| Fail(exit::BAD_INPUT, e))?;
    let rows: Vec<[String; 4]> = reg
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let ext = if e.extensions.is_empty() { "-".to_string() } else { e.extensions.iter().map(|x| format!(".{x}")).collect::<Vec<_>>().join(" ") };
            let shadow = reg.shadowed(i).map_or(String::new(), |s| format!(" (shadowed by {})", s.origin));
            [e.name.clone(), ext, e.origin.clone(), format!("{}{shadow}", e.location())]
        })
        .collect();
    let header = ["language", "extensions", "found in", "location"].map(String::from);
    // Each column as wide as its widest cell, so long origins do not push others out of line.
    let width = |c: usize| rows.iter().chain([&header]).map(|r| r[c].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let mut out = std::io::stdout().lock();
    for r in std::iter::once(&header).chain(&rows) {
        let _ = writeln!(out, "{:<w0$}  {:<w1$}  {:<w2$}  {}", r[0], r[1], r[2], r[3]);
    }
    let _ = writeln!(out, "# tree-sitter grammar folders are compiled once into {}", languages::cache_dir().display());
    Ok(())
}

fn read_program(file: &Path) -> Result<String, Fail> {
    let bytes = fs::read(file).map_err(|e| Fail(exit::BAD_INPUT, format!("cannot read {}: {e}", file.display())))?;
    String::from_utf8(bytes).map_err(|e| Fail(exit::BAD_INPUT, format!("{} is not UTF-8 text (byte {})", file.display(), e.utf8_error().valid_up_to())))
}

fn parse_cmd(file: &Path, lang: Option<&str>, grammar: Option<&Path>) -> Result<(), Fail> {
    let f = language(file, lang, grammar)?;
    let text = read_program(file)?;
    let p = f.parse(&text).map_err(|e| Fail(exit::BAD_INPUT, e.to_string()))?;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(p.tree.dump(f.grammar()).as_bytes());
    let s = p.stats;
    let _ = writeln!(
        out,
        "# {} tokens, {} nodes; {} of {} named nodes matched their PNF rule ({:.1}%), {} opaque, {} syntax errors",
        p.tree.token_count(),
        p.tree.len(),
        s.matched,
        s.inner_nodes,
        100.0 * s.matched_share(),
        s.opaque,
        s.syntax_errors
    );
    Ok(())
}

fn grammar_show(grammar: &str) -> Result<(), Fail> {
    let path = Path::new(grammar);
    // A tree-sitter grammar's PNF needs only its grammar.json, not a compiled parser.
    let json = if path.is_dir() { lopper_parse::find_tree_sitter_src(path).map(|s| s.join("grammar.json")) } else { None };
    let json = json.or_else(|| (path.extension().is_some_and(|e| e == "json") && path.is_file()).then(|| path.to_path_buf()));
    let pnf = if let Some(json) = json {
        let grammar = json.display().to_string();
        let text = fs::read_to_string(&json).map_err(|e| Fail(exit::BAD_INPUT, format!("cannot read grammar {grammar}: {e}")))?;
        let g = lopper_grammar::load_tree_sitter_json(&text).map_err(|e| Fail(exit::BAD_INPUT, format!("{grammar}: {e}")))?;
        lopper_grammar::normalize(&g).map_err(|e| Fail(exit::BAD_INPUT, format!("{grammar}: {e}")))?
    } else if path.exists() {
        language(path, None, Some(path))?.grammar().clone()
    } else {
        language(path, Some(grammar), None)?.grammar().clone()
    };
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().lock().write_all(pnf.show().as_bytes());
    Ok(())
}

/// Ctrl-C before the original's first verdict: nothing was written.
const INTERRUPTED_EARLY: &str = "interrupted before the first test finished; nothing was changed";

/// Runs of the original before reducing (the reducer's own first test makes one more).
const SANITY_RUNS: usize = 2;

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

/// Whether `path` looks like an interestingness test: executable, and a `#!` script or a
/// binary.
fn looks_like_test(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0) && lopper_reduce::oracle::is_runnable(path)
}

/// Whether `now` could be a reduction of `old` in language `f`: its tokens are a
/// subsequence of `old`'s (what deletion and replacement by descendants leave).
fn is_token_reduction(f: &Frontend, old: &str, now: &str) -> bool {
    let (Ok(old), Ok(now)) = (f.parse_plain(old), f.parse_plain(now)) else { return false };
    let mut old = old.tokens();
    let subsequence = now.tokens().all(|t| old.any(|o| o == t));
    subsequence
}

fn reduce_cmd(a: ReduceArgs) -> Result<(), Fail> {
    if a.list_algorithms {
        for (_, name, about) in lopper_reduce::Algorithm::ALL {
            println!("{name:14} {about}");
        }
        return Ok(());
    }
    let (test, file) = match (&a.test_cmd, a.args.as_slice()) {
        (Some(cmd), [file]) => (TestCommand::Shell(cmd.clone()), file.clone()),
        (None, [test, file]) => (TestCommand::Script(test.clone()), file.clone()),
        (Some(_), _) => return Err(Fail(exit::USAGE, "with --test-cmd, give only FILE".into())),
        (None, [_, _, rest @ ..]) => {
            let extra: Vec<String> = rest.iter().map(|p| p.display().to_string()).collect();
            return Err(Fail(exit::USAGE, format!("one FILE at a time, after TEST (also given: {}); run lopper once per file", extra.join(" "))));
        }
        (None, _) => return Err(Fail(exit::USAGE, "give TEST and FILE (or --test-cmd 'COMMAND' FILE)".into())),
    };
    if let TestCommand::Script(t) = &test {
        if looks_like_test(&file) && !looks_like_test(t) {
            let (t, f) = (output::shell_quote(&t.to_string_lossy()), output::shell_quote(&file.to_string_lossy()));
            return Err(Fail(
                exit::USAGE,
                format!("the arguments are in the order TEST FILE, and {f} looks like the test while {t} does not; try: lopper [OPTIONS] {f} {t}"),
            ));
        }
    }
    let regex = |r: &Option<String>, flag: &str| -> Result<Option<regex::Regex>, Fail> {
        r.as_deref().map(|r| regex::Regex::new(r).map_err(|e| Fail(exit::USAGE, format!("{flag}: {e}")))).transpose()
    };
    let criteria = Criteria {
        exit_codes: if a.interesting_exit_code.is_empty() { vec![0] } else { a.interesting_exit_code.clone() },
        stdout: regex(&a.stdout_regex, "--stdout-regex")?,
        stderr: regex(&a.stderr_regex, "--stderr-regex")?,
        stdin: a.stdin,
    };
    let f = language(&file, a.lang.as_deref(), a.grammar.as_deref())?;
    let text = read_program(&file)?;
    f.check(&text).map_err(|e| Fail(exit::BAD_INPUT, format!("{}: {e}", file.display())))?;
    let script = match &test {
        TestCommand::Script(t) => Some(t.as_path()),
        TestCommand::Shell(_) => None,
    };
    // Where results go is settled, and refused if unsafe, before any test runs.
    let mut output =
        output::Output::plan(&file, a.output.as_deref(), script, |old, now| is_token_reduction(&f, old, now)).map_err(|e| Fail(exit::OUTPUT, e.to_string()))?;
    let notice = output.notice.take();
    if let Some(stats) = &a.stats {
        output::check_writable_dir(stats).map_err(|e| Fail(exit::OUTPUT, e.to_string()))?;
    }
    if a.timeout.is_some_and(|t| !t.is_finite() || t <= 0.0) {
        return Err(Fail(exit::USAGE, "--timeout must be a positive number of seconds".into()));
    }
    let interrupt = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupt.clone();
        // A second Ctrl-C while the first is being handled has nothing left to stop.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    let file_name = file.file_name().ok_or_else(|| Fail(exit::BAD_INPUT, format!("{} is not a file", file.display())))?.to_os_string();
    let timeout = Duration::from_secs_f64(a.timeout.unwrap_or(MAX_DERIVED_TIMEOUT));
    let jobs = a.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let oracle = match &test {
        TestCommand::Script(t) => ScriptOracle::new(t, file_name.clone(), timeout, interrupt.clone()),
        TestCommand::Shell(cmd) => ScriptOracle::shell(cmd, file_name.clone(), timeout, interrupt.clone()),
    };
    let mut oracle = oracle.map_err(|e| Fail(exit::BAD_TEST, e.to_string()))?.with_jobs(jobs).with_criteria(criteria).keep_temps(a.keep_temps);
    if a.keep_temps && !a.quiet {
        eprintln!("lopper: keeping test directories under {}", oracle.temp_root().display());
    }
    let test_name = match &test {
        TestCommand::Script(t) => t.display().to_string(),
        TestCommand::Shell(cmd) => format!("sh -c '{cmd}'"),
    };
    let quiet = a.quiet;
    let tty = std::io::stderr().is_terminal();
    let started = Instant::now();
    let mut last_report = Instant::now() - Duration::from_secs(10);
    // A live progress line on a terminal; plain log lines (every 2 s, or every new best
    // with -v) otherwise.
    let bar = (tty && !quiet).then(|| {
        let b = indicatif::ProgressBar::new_spinner();
        b.set_style(indicatif::ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}").expect("a valid template"));
        b.enable_steady_tick(Duration::from_millis(120));
        b
    });
    let verbose = a.verbose;
    let progress = |s: &Stats| {
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        format!(
            "{} / {} tokens ({:.1}%) | {} tests, {} cache hits, {:.1} tests/s | round {} {}",
            s.tokens_after,
            s.tokens_before,
            100.0 * s.tokens_after as f64 / s.tokens_before.max(1) as f64,
            s.tests,
            s.cache_hits,
            s.tests as f64 / secs,
            s.rounds,
            s.pass
        )
    };
    let mut on_best = |best: Option<&str>, s: &Stats| -> std::io::Result<()> {
        if let Some(best) = best {
            output.write(best).map_err(std::io::Error::other)?;
        }
        if let Some(b) = &bar {
            b.set_message(progress(s));
        } else if !quiet && ((verbose && best.is_some()) || last_report.elapsed() >= Duration::from_secs(2)) {
            last_report = Instant::now();
            eprintln!("[{:7.1}s] {}", started.elapsed().as_secs_f64(), progress(s));
        }
        Ok(())
    };
    let algorithm = a.algorithm;
    let baseline = algorithm != lopper_reduce::Algorithm::Perses;
    // Baselines know no grammar: their invalid candidates are tested, and counted.
    let grammar_check = if a.test_invalid || baseline { GrammarCheck::Count } else { GrammarCheck::Reject };
    let opts = Options { fixpoint: !a.no_fixpoint, grammar_check, algorithm, jobs, ..Options::default() };
    if !quiet {
        eprintln!("lopper: reducing {} ({}) with {test_name}, {jobs} test(s) at a time ...", file.display(), f.name());
        if let Some(n) = &notice {
            eprintln!("lopper: {n}");
        }
    }
    let reproduce = {
        let quote = |p: &Path| output::shell_quote(&p.to_string_lossy());
        let name = quote(Path::new(&file_name));
        let run = match &test {
            TestCommand::Script(t) => format!("{} \"$d\"/{name}", quote(&fs::canonicalize(t).unwrap_or(t.clone()))),
            TestCommand::Shell(cmd) => format!("sh -c {} lopper-test \"$d\"/{name}", output::shell_quote(cmd)),
        };
        let abs = fs::canonicalize(&file).unwrap_or(file.clone());
        format!("  reproduce: d=$(mktemp -d) && cp {} \"$d/\" && (cd \"$d\" && {run}); echo \"exit $?\"", quote(&abs))
    };
    // Sanity runs of the original, before any reduction: not interesting, too slow and
    // flaky each get their own message and exit code.
    let mut sanity: Vec<lopper_reduce::RunReport> = Vec::new();
    for _ in 0..SANITY_RUNS {
        match oracle.run(&text, true) {
            Ok(r) => sanity.push(r),
            Err(lopper_reduce::OracleError::Interrupted) => return Err(Fail(exit::INTERRUPTED, INTERRUPTED_EARLY.into())),
            Err(e) => return Err(Fail(exit::BAD_TEST, format!("cannot run the test: {e}"))),
        }
    }
    let limit = oracle.timeout().as_secs_f64();
    if let Some(r) = sanity.iter().find(|r| r.verdict == Verdict::TimedOut) {
        let msg = format!(
            "the test is too slow on the original {}: it did not finish within {limit} s (--timeout).\n{reproduce}{}",
            file.display(),
            output_tail(&r.output)
        );
        return Err(Fail(exit::TOO_SLOW, msg));
    }
    let yes = sanity.iter().filter(|r| r.verdict == Verdict::Interesting).count();
    if yes == 0 {
        let msg = format!(
            "the original {} is not interesting: the test said no ({} runs).\n{reproduce}{}",
            file.display(),
            sanity.len(),
            output_tail(&sanity[0].output)
        );
        return Err(Fail(exit::NOT_INTERESTING, msg));
    }
    if yes < sanity.len() {
        let no = sanity.iter().find(|r| r.verdict != Verdict::Interesting).expect("a no");
        let msg = format!(
            "the test is flaky: on the unchanged original {} it said yes {yes} times and no {} times; a reducer needs a deterministic test.\n{reproduce}{}",
            file.display(),
            sanity.len() - yes,
            output_tail(&no.output)
        );
        return Err(Fail(exit::FLAKY, msg));
    }
    if a.timeout.is_none() {
        let slowest = sanity.iter().map(|r| r.elapsed.as_secs_f64()).fold(0.0, f64::max);
        oracle.set_timeout(Duration::from_secs_f64((10.0 * slowest).clamp(10.0, MAX_DERIVED_TIMEOUT)));
    }
    if !quiet {
        eprintln!(
            "lopper: the original is interesting ({} sanity runs, {:.2} s each at most); time limit per test {:.1} s",
            sanity.len(),
            sanity.iter().map(|r| r.elapsed.as_secs_f64()).fold(0.0, f64::max),
            oracle.timeout().as_secs_f64()
        );
    }
    let result = reduce(&f, &text, &mut oracle, &opts, &mut on_best);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let outcome = match result {
        Ok(o) => o,
        Err(ReduceError::NotInteresting(v)) => {
            // The sanity runs said yes; this one did not.
            let msg = format!("the test is flaky: it said yes on the original {SANITY_RUNS} times, then {v:?}.\n{reproduce}");
            return Err(Fail(exit::FLAKY, msg));
        }
        Err(ReduceError::Oracle(lopper_reduce::OracleError::Interrupted)) => {
            return Err(Fail(exit::INTERRUPTED, INTERRUPTED_EARLY.into()));
        }
        Err(e) => return Err(Fail(exit::ERROR, e.to_string())),
    };
    if !output.in_place() {
        // -o always gets the result, also when nothing smaller was found.
        output.write(&outcome.text).map_err(|e| Fail(exit::OUTPUT, e.to_string()))?;
    }
    let s = &outcome.stats;
    if !quiet {
        let own = (s.total_seconds - s.test_seconds).max(0.0);
        eprintln!(
            "lopper: {} in {:.1} s ({:.1} s in tests, {:.2} s in lopper = {:.1}%)",
            if outcome.interrupted { "interrupted" } else { "done" },
            s.total_seconds,
            s.test_seconds,
            own,
            100.0 * own / s.total_seconds.max(1e-9)
        );
        eprintln!(
            "  tokens    {} -> {} ({:.2}% of the original)",
            s.tokens_before,
            s.tokens_after,
            100.0 * s.tokens_after as f64 / s.tokens_before.max(1) as f64
        );
        eprintln!(
            "  tests     {} run ({:.3} s the first), {} cache hits, {} timed out, {} accepted, {} rounds, {} speculative runs cancelled",
            s.tests,
            s.first_test_seconds,
            s.cache_hits,
            s.timeouts,
            s.accepted,
            s.rounds,
            oracle.cancelled()
        );
        eprintln!(
            "  passes    list: {} tests, {:.1} s ({:.1} s in tests); replace: {} tests, {:.1} s ({:.1} s in tests)",
            s.list_tests, s.list_time.seconds, s.list_time.test_seconds, s.replace_tests, s.replace_time.seconds, s.replace_time.test_seconds
        );
        eprintln!("  invalid   {} of {} candidates ({:.2}%) had new syntax errors and were not tested", s.invalid, s.candidates, 100.0 * s.invalid_share());
        eprintln!("  matched   {:.1}% of named CST nodes to their PNF rule ({} opaque)", 100.0 * s.matched_share, s.opaque_nodes);
        let original = match &output.backup {
            Some(b) if output.backup_written() => format!(" (original: {})", b.display()),
            _ => String::new(),
        };
        eprintln!("  result    {}{original}", output.path.display());
    }
    if let Some(path) = &a.stats {
        let json = serde_json::json!({
            "file": file.display().to_string(),
            "language": f.name(),
            "algorithm": lopper_reduce::Algorithm::ALL.iter().find(|x| x.0 == algorithm).map_or("?", |x| x.1),
            "interrupted": outcome.interrupted,
            "tokens_before": s.tokens_before,
            "tokens_after": s.tokens_after,
            "tests": s.tests,
            "cache_hits": s.cache_hits,
            "candidates": s.candidates,
            "invalid_candidates": s.invalid,
            "invalid_share": s.invalid_share(),
            "timeouts": s.timeouts,
            "jobs": jobs,
            "cancelled_speculative_runs": oracle.cancelled(),
            "list_tests": s.list_tests,
            "replace_tests": s.replace_tests,
            "replace_accepted": s.replace_accepted,
            "accepted": s.accepted,
            "rounds": s.rounds,
            "matched_share": s.matched_share,
            "opaque_nodes": s.opaque_nodes,
            "first_test_seconds": s.first_test_seconds,
            "test_seconds": s.test_seconds,
            "total_seconds": s.total_seconds,
            "passes": {
                "list": {"tests": s.list_tests, "seconds": s.list_time.seconds, "test_seconds": s.list_time.test_seconds},
                "replace": {"tests": s.replace_tests, "seconds": s.replace_time.seconds, "test_seconds": s.replace_time.test_seconds},
                "other": {"tests": s.tests - s.list_tests - s.replace_tests, "seconds": s.other_time.seconds, "test_seconds": s.other_time.test_seconds},
            },
        });
        fs::write(path, format!("{json:#}\n")).map_err(|e| Fail(exit::ERROR, format!("cannot write {}: {e}", path.display())))?;
    }
    if outcome.interrupted {
        return Err(Fail(exit::INTERRUPTED, String::new()));
    }
    Ok(())
}
