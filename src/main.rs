//! The `lopper` command line: argument parsing, dispatch, messages and exit codes. The
//! validated configuration lives in `config`, output safety in `output`, progress and the
//! summary in `report`; all reduction logic (and the sanity policy for the original) lives
//! in the library crates.

use clap::{Args, Parser, Subcommand};
mod config;
mod events;
mod generate;
mod inspect;
mod output;
mod project;
mod report;
mod runtime;
mod template;
mod trust;
mod ub;
mod values;
use values::{language_names, parse_algorithm, parse_minimizer, Offered};

use config::{Reduction, Verbosity};
use lopper_reduce::oracle::cache::TestIdentity;
use lopper_reduce::{check_original, reduce, sanity, OracleError, ReduceError, SanityError, ScriptOracle, TestCommand};
use report::Reporter;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Exit codes, documented in docs/cli.md.
mod exit {
    pub const ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const BAD_INPUT: u8 = 3;
    pub const BAD_TEST: u8 = 4;
    pub const NOT_INTERESTING: u8 = 5;
    pub const FLAKY: u8 = 6;
    pub const TOO_SLOW: u8 = 7;
    pub const OUTPUT: u8 = 8;
    pub const TRIVIAL: u8 = 9;
    pub const INTERRUPTED: u8 = 130;
}

#[derive(Parser, Debug)]
#[command(
    name = "lopper",
    version,
    long_version = inspect::long_version(),
    about = "Reduce a program to a small one that still passes an interestingness test (Perses-style, syntax-guided).",
    args_conflicts_with_subcommands = true,
    subcommand_negates_reqs = true,
    override_usage = "lopper [OPTIONS] TEST FILE\n       lopper [OPTIONS] TEST DIR | FILE FILE...\n       lopper [OPTIONS] --test-cmd 'SHELL COMMAND' FILE\n       lopper <COMMAND>"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    reduce: ReduceArgs,
}

#[derive(Args, Debug)]
pub struct ReduceArgs {
    /// TEST FILE: the interestingness test (an executable that gets the candidate's path as
    /// $1 and exits 0 while the candidate is still interesting) and the program to reduce,
    /// in place (the original kept as FILE.orig) unless -o. A DIR, or several FILEs, is a
    /// project reduced as a whole (DIR.orig kept; -o OUTDIR). With --test-cmd, no TEST.
    #[arg(required_unless_present_any = ["list_algorithms", "list_passes"], num_args = 1.., value_names = ["TEST", "FILE"])]
    pub args: Vec<PathBuf>,
    /// List the reduction algorithms with their sources, and exit.
    #[arg(long)]
    pub list_algorithms: bool,
    #[arg(long, help = values::passes_help(), value_name = "LIST", value_delimiter = ',', hide_default_value = true, hide_possible_values = true, value_parser = Offered { parse: |s| Ok(s.to_string()), names: || lopper_reduce::pipeline::REGISTRY.iter().map(|p| p.name).collect() }, default_values_t = lopper_reduce::pipeline::REGISTRY.map(|p| p.name.to_string()))]
    pub passes: Vec<String>,
    /// An external transformation (repeatable), run after the passes: a shell command in
    /// Regehr's protocol with `{file}` (a private copy of the current best, which it may
    /// rewrite), `{out}` (where it may write the variant instead) and the instance number
    /// (`n` in braces, from 1); exit 0 = a variant, 255 or 1 = no instance n. See docs/transformations.md.
    #[arg(long, value_name = "CMD")]
    pub transform: Vec<String>,
    /// The instance count of the --transform in the same position (Regehr's get_count): a
    /// shell command with `{file}` that prints the number of instances. With it the
    /// transformation runs backwards, the instance number from the count down to 1.
    #[arg(long, value_name = "CMD")]
    pub transform_count: Vec<String>,
    /// List the passes with their sources, and exit.
    #[arg(long)]
    pub list_passes: bool,
    /// A shell command line to use as the test instead of a TEST file; the candidate's path
    /// is $1 (e.g. --test-cmd 'gcc -c "$1" 2>&1 | grep -q ICE').
    #[arg(long, value_name = "SHELL COMMAND")]
    pub test_cmd: Option<String>,
    /// Exit status that counts as interesting (repeatable; default 0).
    #[arg(long, value_name = "N")]
    pub interesting_exit_code: Vec<i32>,
    /// Interesting only if the test's standard output matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub stdout_regex: Option<String>,
    /// Interesting only if the test's standard error matches this regular expression.
    #[arg(long, value_name = "REGEX")]
    pub stderr_regex: Option<String>,
    /// Also give the candidate to the test on standard input.
    #[arg(long)]
    pub stdin: bool,
    /// Keep every test run's temporary directory (their root is printed) for debugging.
    #[arg(long)]
    pub keep_temps: bool,
    /// Run every test through this command prefix, e.g. `srun --quiet --ntasks=1` for a
    /// Slurm cluster: `PREFIX TEST FILE` (or `PREFIX sh -c LINE lopper-test FILE`). -j may
    /// then exceed the local cores. See docs/cluster.md.
    #[arg(long, value_name = "PREFIX")]
    pub launcher: Option<String>,
    /// Put the tests' run directories under DIR (default: the system temp dir); with
    /// --launcher, a directory that every node sees at the same path.
    #[arg(long, value_name = "DIR")]
    pub work_dir: Option<PathBuf>,
    /// Write the result here instead of reducing FILE in place.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// For a project: keep the files at or under PATH (relative to DIR, or as given) as
    /// they are, carried into every test run unreduced, as binary files and symlinks always
    /// are (repeatable).
    #[arg(long, value_name = "PATH")]
    pub keep: Vec<PathBuf>,
    /// For a project: binary files and symlinks may be deleted, whole, where the test does
    /// not need them (never changed otherwise); without it they are in every test run and
    /// in the result.
    #[arg(long)]
    pub delete_binaries: bool,
    #[arg(long, help = values::lang_help(), value_name = "LANG", hide_possible_values = true, value_parser = Offered { parse: |s| Ok(s.to_string()), names: language_names })]
    pub lang: Option<String>,
    /// A grammar to use: a pest grammar file (NAME.pest) or a tree-sitter grammar folder
    /// (with src/grammar.json and src/parser.c). Without --lang, FILE is in this language.
    #[arg(long, value_name = "PATH")]
    pub grammar: Option<PathBuf>,
    /// The address space each test run may take (`ulimit -v` around the test; a run past
    /// it fails and counts as not interesting): 512M, 1G, 1.5G, 1T, or a plain number of
    /// MiB. Default: the machine's memory, dropped (with a warning) when the original
    /// passes only without it, as sanitizer builds that reserve huge address ranges do. 0:
    /// no limit.
    #[arg(long, value_name = "SIZE", value_parser = values::parse_mib)]
    pub memory_limit: Option<u64>,
    #[command(flatten)]
    pub ub: ub::UbGuardArgs,
    /// Skip the replays that catch a nondeterministic test (the 1st, the 8th and every 32nd
    /// accepted candidate tested once more, the result twice more).
    #[arg(long)]
    pub assume_deterministic: bool,
    /// Accept a trivial result (an empty program, or a test that accepts the empty file)
    /// instead of ending with exit code 9.
    #[arg(long)]
    pub allow_trivial: bool,
    /// Time limit of one test run, in seconds; the test's process group is killed then.
    /// Default: 10x the original's slowest sanity run, at least 10 s, at most 300 s.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Run up to N tests at once (speculatively, in candidate order; the result is the
    /// same for every N). Default: the number of cores. C-Vise's `--n N` and `-n N` work too.
    #[arg(short, long, value_name = "N", alias = "n", short_alias = 'n')]
    pub jobs: Option<usize>,
    /// The reduction algorithm: perses, or a baseline (ddmin-lines, ddmin-tokens, hdd,
    /// hdd-fixpoint); see --list-algorithms.
    #[arg(long, default_value = "perses", hide_possible_values = true, value_parser = Offered { parse: parse_algorithm, names: || lopper_reduce::Algorithm::ALL.iter().map(|(_, n, _)| *n).collect() })]
    pub algorithm: lopper_reduce::Algorithm,
    /// The list minimizer of Perses' list deletion and of the ddmin baselines: ddmin
    /// (Zeller & Hildebrandt 2002) or probdd (Wang et al. 2021); see --list-algorithms.
    #[arg(long, default_value = "ddmin", hide_possible_values = true, value_parser = Offered { parse: parse_minimizer, names: || lopper_reduce::minimize::ALL.iter().map(|(n, _)| *n).collect() })]
    pub minimizer: &'static dyn lopper_reduce::minimize::ListMinimizer,
    /// Stop after one round instead of repeating until a round removes nothing.
    #[arg(long)]
    pub no_fixpoint: bool,
    /// Also test candidates that tree-sitter parses with new syntax errors.
    #[arg(long)]
    pub test_invalid: bool,
    /// Write the run's statistics as JSON to this file.
    #[arg(long, value_name = "PATH")]
    pub stats: Option<PathBuf>,
    /// Write the run as it goes to this file, one JSON object a line (start, each new best,
    /// each pass's end, warnings, the end with the --stats fields); `-` for standard output.
    #[arg(long, value_name = "PATH")]
    pub events: Option<PathBuf>,
    /// Where verdicts are kept between runs (so a repeated or resumed reduction re-tests
    /// nothing already judged). Default: `verdicts` in $LOPPER_CACHE, else in the user's
    /// cache dir's `lopper` ($XDG_CACHE_HOME/lopper/verdicts, ~/.cache/lopper/verdicts).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Do not use or fill the persistent verdict cache.
    #[arg(long, conflicts_with = "cache_dir")]
    pub no_cache: bool,
    /// Print only errors.
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Show diagnostic events (every test run with its verdict and time, every accepted
    /// candidate) and, without a terminal, a log line for every new best program.
    #[arg(short, long)]
    pub verbose: bool,
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
    /// Reduce a generator's random choices instead of its output (GReduce): every candidate
    /// is an output the generator itself makes (docs/generators.md).
    Generate(generate::GenerateArgs),
    /// Inspect a language's grammar.
    Grammar {
        #[command(subcommand)]
        command: GrammarCommand,
    },
    /// Print a completion script for SHELL, generated from lopper's own options (e.g.
    /// `source <(lopper completions bash)`).
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print lopper's man page (roff), generated from its options (`lopper man | man -l -`).
    Man,
    /// Print a careful interestingness test for a bug kind (crash, crash-on-valid,
    /// wrong-code), filled in with your compilers and flags: `lopper template wrong-code
    /// --cc gcc-12 > test.sh`.
    Template(template::TemplateArgs),
    /// The check --ub-guard runs before each test (internal).
    #[command(hide = true)]
    UbGuardCheck(ub::CheckArgs),
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
pub struct Fail(u8, String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Diagnostics (every test run, every accepted candidate) with -v; warnings always.
    let level = if cli.reduce.verbose { tracing::Level::DEBUG } else { tracing::Level::WARN };
    tracing_subscriber::fmt().with_max_level(level).with_writer(std::io::stderr).with_target(false).without_time().init();
    // Commands that run processes keep their temporary files in one directory of their own.
    let _home = match &cli.command {
        None | Some(Command::Generate(_)) => {
            let quiet = cli.reduce.quiet || matches!(&cli.command, Some(Command::Generate(g)) if g.quiet);
            runtime::TempHome::enter(quiet).map(|mut h| {
                if cli.reduce.keep_temps {
                    h.keep();
                }
                h
            })
        }
        _ => None,
    };
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
        Some(Command::Parse { file, lang, grammar }) => inspect::parse_cmd(&file, lang.as_deref(), grammar.as_deref()),
        Some(Command::Languages) => inspect::languages_cmd(),
        Some(Command::Generate(args)) => generate::generate_cmd(args),
        Some(Command::Grammar { command: GrammarCommand::Show { grammar } }) => inspect::grammar_show(&grammar),
        Some(Command::Completions { shell }) => {
            clap_complete::generate(shell, &mut <Cli as clap::CommandFactory>::command(), "lopper", &mut std::io::stdout());
            Ok(())
        }
        Some(Command::Man) => inspect::man_page(),
        Some(Command::UbGuardCheck(args)) => ub::check_cmd(args),
        Some(Command::Template(args)) => template::template_cmd(args),
        None => reduce_cmd(cli.reduce),
    }
}

/// Ctrl-C before the original's first verdict: nothing was written.
pub const INTERRUPTED_EARLY: &str = "interrupted before the first test finished; nothing was changed";

fn reduce_cmd(a: ReduceArgs) -> Result<(), Fail> {
    if a.list_algorithms {
        for (_, name, about) in lopper_reduce::Algorithm::ALL {
            println!("{name:14} {about}");
        }
        println!("\nList minimizers (--minimizer):");
        for (name, m) in lopper_reduce::minimize::ALL {
            println!("{name:14} {}", m.name());
        }
        return Ok(());
    }
    if a.list_passes {
        print!("{}", inspect::list_passes());
        return Ok(());
    }
    let mut r = Reduction::from_args(a)?;
    let quiet = r.verbosity == Verbosity::Quiet;
    let interrupt = runtime::interrupt_flag();
    let timeout = r.timeout.unwrap_or(sanity::MAX_DERIVED_TIMEOUT);
    let oracle = match &r.test {
        TestCommand::Script(t) => ScriptOracle::new(t, r.file_name.clone(), timeout, interrupt.clone()),
        TestCommand::Shell(cmd) => ScriptOracle::shell(cmd, r.file_name.clone(), timeout, interrupt.clone()),
    };
    let mut oracle = oracle
        .map_err(|e| Fail(exit::BAD_TEST, e.to_string()))?
        .with_jobs(r.jobs)
        .with_criteria(r.criteria.clone())
        .with_encoding(r.encoding)
        .with_kept(r.kept.clone())
        .keep_temps(r.keep_temps);
    if let Some(dir) = &r.work_dir {
        oracle = oracle.with_work_dir(dir).map_err(|e| Fail(exit::USAGE, format!("--work-dir: {e}")))?;
    }
    if let Some(prefix) = &r.launcher {
        oracle = oracle.with_launcher(prefix).map_err(|e| Fail(exit::USAGE, format!("--launcher: {e}")))?;
    }
    if !quiet {
        if r.keep_temps {
            eprintln!("lopper: keeping test directories under {}", oracle.temp_root().display());
        }
        eprintln!("lopper: reducing {} ({}) with {}, {} at a time ...", r.file.display(), r.frontend.name(), r.test_name, report::plural(r.jobs, "test"));
        if r.encoding == lopper_reduce::Encoding::Latin1 {
            eprintln!("lopper: {} is not UTF-8; reducing it as Latin-1 bytes (written back byte for byte)", r.file.display());
        }
        if let Some(n) = r.output.notice.take() {
            eprintln!("lopper: {n}");
        }
        if let Some(n) = project::kept_notice(&r.kept) {
            eprintln!("lopper: {n}");
        }
        if let Some(g) = &r.ub_guard {
            eprintln!("lopper: --ub-guard: the original passes; each candidate must pass the reference build before the test, and the rest after a test that said interesting:");
            g.guard.describe().iter().for_each(|l| eprintln!("  {l}"));
        }
    }
    let mut events = events::Events::open(r.events_path.as_deref()).map_err(|e| Fail(exit::OUTPUT, format!("cannot write --events file: {e}")))?;
    let result = reduce_with_events(&mut r, &mut oracle, &interrupt, &mut events);
    if let Err(Fail(code, message)) = &result {
        events.emit(&events::Event::Error { code: *code, message: message.clone() });
    }
    if let Some(w) = events.failure() {
        eprintln!("lopper: warning: {w}");
    }
    result
}

/// The reduction once the test is set up: the sanity runs, the reduction, the result, the
/// summary, `--stats` and the stream's events (an `error` event, if this fails, is the
/// caller's).
fn reduce_with_events(r: &mut Reduction, oracle: &mut ScriptOracle, interrupt: &Arc<AtomicBool>, events: &mut events::Events) -> Result<(), Fail> {
    let quiet = r.verbosity == Verbosity::Quiet;
    let line = report::sanity_line(sanity::SANITY_RUNS, oracle.timeout(), r.verbosity);
    // Under --ub-guard the test's own line applies the limit (ub::Guarded::wrap).
    let limit = r.memory_limit.or_else(runtime::machine_memory_mib).filter(|&m| m > 0 && !r.criteria.ub_guard);
    oracle.set_memory_limit(limit);
    let mut sane = check_original(oracle, &r.text, r.timeout.is_none());
    if r.memory_limit.is_none() && limit.is_some() && matches!(sane, Err(sanity::SanityError::NotInteresting { .. })) {
        // The default limit must not make an original uninteresting (ASan's shadow memory).
        oracle.set_memory_limit(None);
        sane = check_original(oracle, &r.text, r.timeout.is_none());
        if sane.is_ok() && !quiet {
            eprintln!("lopper: the original passes only without the default memory limit; running the tests without one");
        }
    }
    if let Some(l) = line {
        l.finish_and_clear();
    }
    let sane = sane.map_err(|e| trust::sanity_failure(r, e))?;
    if let Some((yes, no)) = sane.flaky {
        if r.assume_deterministic {
            let output = String::new();
            return Err(trust::sanity_failure(r, SanityError::Flaky { yes, no, output }));
        }
        // Shrink Ray's answer to a nondeterministic test: go on, confirming each accepted
        // candidate by more runs; the end checks decide whether the result stands.
        r.options.confirm = true;
        if !quiet {
            eprintln!(
                "lopper: warning: the test is flaky: on the original, unchanged, it said yes {yes} times and no {no} times; each accepted candidate is confirmed by {} more runs",
                lopper_reduce::CONFIRM_RUNS
            );
        }
    }
    if !quiet {
        // A resumed run tests the partly reduced program it goes on from, not the original.
        let what = if r.output.resumed { format!("{}, which this run goes on from,", r.file.display()) } else { "the original".to_string() };
        eprintln!(
            "lopper: {what} is interesting ({} sanity runs, {:.2} s each at most); time limit per test {:.1} s",
            sane.runs,
            sane.slowest.as_secs_f64(),
            oracle.timeout().as_secs_f64()
        );
        // Say it before the counts show it: verdicts an earlier run kept answer this one.
        if let Some(dir) = &r.cache_dir {
            eprintln!("lopper: verdicts of earlier runs of this test are reused from {} (--no-cache: none)", dir.display());
        }
    }
    let pipeline = r.pipeline(oracle.timeout(), interrupt).map_err(|e| Fail(exit::ERROR, e.to_string()))?;
    let start = events::Start {
        file: r.file.display().to_string(),
        language: r.frontend.name().to_string(),
        tokens: 0,
        bytes: r.encoding.encode(&r.text).len(),
        test: r.test_name.clone(),
        jobs: r.jobs,
        files: report::project_files(&r.text),
    };
    let mut reporter = Reporter::new(&mut r.output, events, start, r.verbosity);
    let identity = TestIdentity::of(&r.test, &r.criteria, &r.file_name).with_kept(&r.kept);
    let (result, cache_warning) =
        runtime::with_verdicts(oracle, r.cache_dir.as_deref(), identity, |oracle| reduce(&r.frontend, &r.text, oracle, &r.options, pipeline, &mut reporter));
    reporter.finish();
    drop(reporter);
    if let Some(w) = cache_warning {
        eprintln!("lopper: warning: {w}");
        events.emit(&events::Event::Warning { message: w });
    }
    let mut outcome = match result {
        Ok(o) => o,
        // The sanity runs said yes; this one did not.
        Err(ReduceError::NotInteresting(v)) => {
            let msg =
                format!("the test is flaky: it said yes on the original {} times, then {v}.\n  reproduce: {}", sanity::SANITY_RUNS, r.reproduce_command());
            return Err(Fail(exit::FLAKY, msg));
        }
        Err(ReduceError::Oracle(OracleError::Interrupted)) => return Err(Fail(exit::INTERRUPTED, INTERRUPTED_EARLY.into())),
        Err(e) => return Err(Fail(exit::ERROR, e.to_string())),
    };
    if !outcome.interrupted {
        trust::check_result(r, oracle, &outcome, sane.flaky.is_some())?;
    } else if !r.output.in_place() {
        // The -o result laid out; in place the file stays as tested, where a resumed run
        // goes on from (and finds its candidates' verdicts in the cache).
        if !quiet {
            eprintln!("lopper: interrupted; laying the best out (one more test; Ctrl-C again keeps it as it is)");
        }
        if let Some(text) = runtime::lay_out_interrupted(&r.frontend, &outcome.text, oracle, interrupt) {
            outcome.text = text;
        }
    }
    if !r.output.in_place() {
        // -o always gets the result, also when nothing smaller was found.
        r.output.write(&outcome.text).map_err(|e| Fail(exit::OUTPUT, e.to_string()))?;
    }
    if !quiet {
        report::print_summary(r, &outcome, oracle.wasted());
    }
    for w in &outcome.stats.warnings {
        events.emit(&events::Event::Warning { message: w.clone() });
    }
    let stats = report::stats_report(r, &outcome, oracle.wasted(), sane.runs);
    if let Some(path) = &r.stats_path {
        runtime::write_json(path, &stats).map_err(|e| Fail(exit::ERROR, format!("cannot write {}: {e}", path.display())))?;
    }
    events.emit(&events::Event::End { stats });
    if outcome.interrupted {
        let next = if r.output.in_place() {
            format!("the best so far is in {}; run the same command again to go on from it", r.file.display())
        } else {
            "the best so far is in the -o output; a new run starts from the input again".to_string()
        };
        return Err(Fail(exit::INTERRUPTED, if quiet { String::new() } else { next }));
    }
    Ok(())
}
