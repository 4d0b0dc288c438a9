//! `lopper generate`: generator-based reduction (GReduce). Records the generator's failing
//! run through the trace shims, reduces its choices in the library
//! (`lopper_reduce::generator`), and, when the output's language is known, finishes with the
//! usual pipeline on the smallest output.

use crate::trust::sanity_failure_message;
use crate::{exit, runtime, Fail};
use clap::Args;
use lopper_reduce::generator::trace::Trace;
use lopper_reduce::generator::{self, GenOptions, GenProgress, GenStats, Strategy};
use lopper_reduce::oracle::cache::TestIdentity;
use lopper_reduce::oracle::generator::{Align, GeneratorRunner};
use lopper_reduce::{check_original, sanity, Criteria, Options, Pipeline, ScriptOracle, TestCommand};
use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `lopper generate [OPTIONS] TEST -- CMD [ARGS...]`.
#[derive(Args, Debug)]
#[command(override_usage = "lopper generate [OPTIONS] -o OUT TEST -- CMD [ARGS...]\n       lopper generate --replay OUT.trace [-o OUT] -- CMD [ARGS...]")]
pub struct GenerateArgs {
    /// The interestingness test: an executable that gets the generated output's path as $1
    /// and exits 0 while it still shows the behaviour.
    #[arg(value_name = "TEST", required_unless_present = "replay")]
    pub test: Option<PathBuf>,
    /// The generator, exactly as it produced the failing output (with its seed): what it
    /// writes to standard output is the test input. Python (`random`) and Node.js
    /// (`Math.random`) generators are traced without changes (docs/generators.md).
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<OsString>,
    /// Write the smallest interesting output here; the trace that makes it goes to
    /// OUT.trace (replay it with --replay).
    #[arg(short, long, value_name = "OUT", required_unless_present = "replay")]
    pub output: Option<PathBuf>,
    /// The file name under which the test sees each output (its extension can name the
    /// language). Default: OUT's file name.
    #[arg(long, value_name = "FILE")]
    pub name: Option<String>,
    /// Replay this trace (e.g. OUT.trace) once and print what the generator writes (or
    /// write it to -o), then exit.
    #[arg(long, value_name = "TRACE")]
    pub replay: Option<PathBuf>,
    /// What a re-execution does with a choice the reduced trace does not line up with:
    /// halt (drop the candidate), bypass (also drop the loop iteration around it), re-align
    /// (the smallest value that fits, then resume at the next matching choice).
    #[arg(long, default_value = "re-align", value_parser = parse_align)]
    pub align: Align,
    /// The search over the trace: tree (loops, selections, values; GReduce's tree-based
    /// strategy), sequence (ddmin over the flat list of choices), or tree-then-sequence
    /// (tree to its fixpoint, then sequence rounds on the short trace, tree again after
    /// one that found something).
    #[arg(long, default_value = "tree", value_parser = parse_strategy)]
    pub algorithm: Strategy,
    /// After the generator's choices, reduce the output further with the usual passes when
    /// its language is known (--lang, or the extension of --name / OUT). On by default.
    #[arg(long)]
    pub no_then_perses: bool,
    /// The output's language for the final pass (default: from the file name's extension).
    #[arg(long, value_name = "LANG")]
    pub lang: Option<String>,
    /// Time limit of one test run and of one generator run, in seconds. Default: 10x the
    /// slowest sanity run, at least 10 s, at most 300 s.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Generator runs and tests at once (the result is the same for every N). Default:
    /// the number of cores.
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Write the run's statistics as JSON to this file.
    #[arg(long, value_name = "PATH")]
    pub stats: Option<PathBuf>,
    /// Where verdicts are kept between runs (as for `lopper TEST FILE`).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Do not use or fill the persistent verdict cache.
    #[arg(long, conflicts_with = "cache_dir")]
    pub no_cache: bool,
    /// Print only errors.
    #[arg(short, long)]
    pub quiet: bool,
}

fn parse_align(name: &str) -> Result<Align, String> {
    by_name(&Align::ALL, "alignment", name)
}

fn parse_strategy(name: &str) -> Result<Strategy, String> {
    by_name(&Strategy::ALL, "algorithm", name)
}

/// The value named `name` in `all`, or an error naming every value (so a new one is listed
/// as soon as it is in `all`).
fn by_name<T: Copy>(all: &[(T, &'static str)], what: &str, name: &str) -> Result<T, String> {
    all.iter().find(|(_, n)| *n == name).map(|(v, _)| *v).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|(_, n)| *n).collect();
        format!("unknown {what} `{name}` ({})", names.join(", "))
    })
}

/// Writes `text` to `path` atomically ([`runtime::write_atomic`]).
fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    runtime::write_atomic(path, text.as_bytes(), |_| Ok(()))
}

/// `OUT.trace`.
fn trace_path(out: &Path) -> PathBuf {
    let mut p = out.as_os_str().to_os_string();
    p.push(".trace");
    PathBuf::from(p)
}

/// Keeps every new best on disk (OUT and OUT.trace) and says so unless quiet.
struct Keeper<'a> {
    out: &'a Path,
    quiet: bool,
}

impl GenProgress for Keeper<'_> {
    fn new_best(&mut self, output: &str, trace: &Trace, stats: &GenStats) -> std::io::Result<()> {
        write_atomic(&trace_path(self.out), &trace.to_jsonl())?;
        write_atomic(self.out, output)?;
        if !self.quiet {
            eprintln!("lopper: {} bytes, {} choices ({} tests so far)", output.len(), trace.len(), stats.tests);
        }
        Ok(())
    }
}

/// Keeps each new best of the final pipeline in OUT.
struct OutputKeeper<'a>(&'a Path);

impl lopper_reduce::Progress for OutputKeeper<'_> {
    fn new_best(&mut self, program: &str, _: &lopper_reduce::Stats) -> std::io::Result<()> {
        write_atomic(self.0, program)
    }
}

/// Runs `lopper generate`.
pub fn generate_cmd(a: GenerateArgs) -> Result<(), Fail> {
    let interrupt = runtime::interrupt_flag();
    let jobs = runtime::jobs(a.jobs);
    let given_timeout = a.timeout.map(Duration::from_secs_f64);
    let mut runner = GeneratorRunner::new(a.command.clone(), given_timeout.unwrap_or(sanity::MAX_DERIVED_TIMEOUT), interrupt.clone())
        .map_err(|e| Fail(exit::ERROR, e.to_string()))?;
    if let Some(trace) = &a.replay {
        let text = fs::read_to_string(trace).map_err(|e| Fail(exit::BAD_INPUT, format!("cannot read {}: {e}", trace.display())))?;
        let out = generator::replay(&runner, &text, a.align).map_err(|e| Fail(exit::BAD_INPUT, e.to_string()))?;
        return match &a.output {
            Some(o) => write_atomic(o, &out).map_err(|e| Fail(exit::OUTPUT, format!("cannot write {}: {e}", o.display()))),
            None => {
                let _ = std::io::stdout().lock().write_all(out.as_bytes());
                Ok(())
            }
        };
    }
    let (Some(test), Some(out)) = (&a.test, &a.output) else { return Err(Fail(exit::USAGE, "TEST and -o OUT are needed".into())) };
    let name = a.name.clone().or_else(|| out.file_name().map(|n| n.to_string_lossy().into_owned())).unwrap_or_else(|| "output.txt".into());
    if fs::canonicalize(out).ok().is_some_and(|o| fs::canonicalize(test).ok() == Some(o)) {
        return Err(Fail(exit::OUTPUT, format!("-o {} is the test itself; choose another path", out.display())));
    }
    let mut oracle = ScriptOracle::new(test, OsString::from(&name), given_timeout.unwrap_or(sanity::MAX_DERIVED_TIMEOUT), interrupt.clone())
        .map_err(|e| Fail(exit::BAD_TEST, e.to_string()))?
        .with_jobs(jobs);
    if !a.quiet {
        eprintln!("lopper: recording {} ...", a.command.iter().map(|w| w.to_string_lossy()).collect::<Vec<_>>().join(" "));
    }
    let generator::Recording { output, trace, slowest } = generator::record(&runner).map_err(|e| match e {
        generator::GenError::Oracle(lopper_reduce::OracleError::Interrupted) => Fail(exit::INTERRUPTED, "interrupted; nothing was written".into()),
        e => Fail(exit::BAD_INPUT, e.to_string()),
    })?;
    let sane = check_original(&mut oracle, &output, given_timeout.is_none())
        .map_err(|e| sanity_failure_message(e, &format!("the generator's output ({name})"), ""))?;
    // Generator mode judges by output bytes and choices, with no confirmation runs: a
    // flaky test is refused here.
    if let Some((yes, no)) = sane.flaky {
        return Err(Fail(exit::FLAKY, format!("the test is flaky: on the generator's output ({name}), unchanged, it said yes {yes} times and no {no} times; generator mode needs a deterministic test")));
    }
    if given_timeout.is_none() {
        // Its own pace, not the test's: a replay fed small values can loop (rejection
        // sampling), and each such run should cost seconds, not the test's limit.
        runner.set_timeout((slowest * 10).clamp(Duration::from_secs(2), oracle.timeout().max(Duration::from_secs(2))));
    }
    if !a.quiet {
        eprintln!(
            "lopper: {} bytes from {} random choices; the output is interesting ({} sanity runs); reducing the trace ({}, {}), {} at a time ...",
            output.len(),
            trace.len(),
            sane.runs,
            Strategy::ALL.iter().find(|(s, _)| *s == a.algorithm).map_or("", |(_, n)| n),
            a.align.name(),
            jobs
        );
    }
    write_atomic(out, &output).map_err(|e| Fail(exit::OUTPUT, format!("cannot write {}: {e}", out.display())))?;
    write_atomic(&trace_path(out), &trace.to_jsonl()).map_err(|e| Fail(exit::OUTPUT, format!("cannot write {}: {e}", trace_path(out).display())))?;
    let cache_dir = runtime::verdict_dir(a.no_cache, a.cache_dir.as_deref());
    let identity = TestIdentity::of(&TestCommand::Script(fs::canonicalize(test).unwrap_or(test.clone())), &Criteria::default(), std::ffi::OsStr::new(&name));
    let mut direct = oracle;
    let run = Generated { a: &a, runner: &runner, out, name: &name, jobs };
    let (result, cache_warning) = runtime::with_verdicts(&mut direct, cache_dir.as_deref(), identity, |oracle| run.reduce(oracle, output, trace));
    if let Some(w) = cache_warning {
        eprintln!("lopper: warning: {w}");
    }
    let (generated, then, interrupted) = result?;
    let mut final_stats = serde_json::json!({ "generator": generated, "sanity_runs": sane.runs });
    if let Some(then) = then {
        final_stats["then"] = then;
    }
    if !a.quiet {
        eprintln!("lopper: result {} (trace {})", out.display(), trace_path(out).display());
    }
    if let Some(path) = &a.stats {
        runtime::write_json(path, &final_stats).map_err(|e| Fail(exit::ERROR, format!("cannot write {}: {e}", path.display())))?;
    }
    if interrupted {
        return Err(Fail(exit::INTERRUPTED, String::new()));
    }
    Ok(())
}

/// A recorded generator run to reduce.
struct Generated<'a> {
    a: &'a GenerateArgs,
    runner: &'a GeneratorRunner,
    out: &'a Path,
    name: &'a str,
    jobs: usize,
}

impl Generated<'_> {
    /// The trace reduced with `oracle`, then (when the output's language is known) the
    /// output with the usual passes: the stats of each (the second only when it ran), and
    /// whether the run was interrupted.
    fn reduce(&self, oracle: &mut dyn lopper_reduce::Oracle, output: String, trace: Trace) -> Result<(GenStats, Option<serde_json::Value>, bool), Fail> {
        let (a, out, jobs) = (self.a, self.out, self.jobs);
        let opts = GenOptions { align: a.align, strategy: a.algorithm, jobs, fixpoint: true };
        let mut keeper = Keeper { out, quiet: a.quiet };
        let outcome = generator::reduce_trace(self.runner, oracle, output, trace, &opts, &mut keeper).map_err(|e| Fail(exit::ERROR, e.to_string()))?;
        let s = &outcome.stats;
        if !a.quiet {
            eprintln!(
                "lopper: generator: bytes {} -> {}, choices {} -> {}; {} tests, {} generator runs ({} infeasible, {} re-aligned), {} rounds, {:.1} s",
                s.bytes_before, s.bytes_after, s.choices_before, s.choices_after, s.tests, s.generator_runs, s.infeasible, s.realigned, s.rounds, s.seconds
            );
        }
        let mut then = None;
        let mut interrupted = outcome.interrupted;
        // Then the grammar, if there is one: syntax-guided reduction finishes the last tokens.
        if !a.no_then_perses && !interrupted {
            let frontend = match crate::config::language(Path::new(self.name), a.lang.as_deref(), None) {
                // Lines are no grammar: deleting them would undo what the generator keeps
                // valid by construction.
                Ok(f) if f.name() == lopper_parse::registry::TEXT && a.lang.is_none() => None,
                Ok(f) => Some(f),
                Err(e) if a.lang.is_some() => return Err(e),
                Err(_) => None,
            };
            if let Some(frontend) = frontend {
                let names = ["perses", "subtrees", "tokens", "identifiers", "literals"];
                let options = Options { threads: jobs, ..Options::perses(runtime::window(jobs)) };
                let pipeline = Pipeline::built_in(&names).expect("built-in passes");
                let mut keep = OutputKeeper(out);
                match lopper_reduce::reduce(&frontend, &outcome.output, oracle, &options, pipeline, &mut keep) {
                    Ok(o) => {
                        if !a.quiet {
                            eprintln!(
                                "lopper: then {}: tokens {} -> {}, bytes {} -> {}; {} tests",
                                frontend.name(),
                                o.stats.tokens_before,
                                o.stats.tokens_after,
                                outcome.output.len(),
                                o.text.len(),
                                o.stats.tests
                            );
                        }
                        write_atomic(out, &o.text).map_err(|e| Fail(exit::OUTPUT, format!("cannot write {}: {e}", out.display())))?;
                        interrupted |= o.interrupted;
                        then = Some(
                            serde_json::json!({ "language": frontend.name(), "tokens_before": o.stats.tokens_before, "tokens_after": o.stats.tokens_after, "bytes_after": o.text.len(), "tests": o.stats.tests }),
                        );
                    }
                    // The generator's output need not parse (or may parse with errors); keep it.
                    Err(e) => {
                        if !a.quiet {
                            eprintln!("lopper: not reduced further as {}: {e}", frontend.name());
                        }
                    }
                }
            }
        }
        Ok((outcome.stats, then, interrupted))
    }
}
