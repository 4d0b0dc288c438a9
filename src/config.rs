//! Raw command-line arguments turned into a validated reduction: every check that can fail
//! without running the test happens here, in order, before any test runs (ripgrep's
//! low-level args → high-level args).

use crate::output::{self, Output};
use crate::{exit, Fail, ReduceArgs};
use lopper_parse::{Frontend, Registry};
use lopper_reduce::oracle::{shell_quote, TransformRunner};
use lopper_reduce::passes::{external, external::External, Kind, Pass, PassInfo};
use lopper_reduce::{Algorithm, Criteria, Encoding, GrammarCheck, Options, Pipeline, SearchOptions, TestCommand};
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// How much the CLI prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// Errors only (`-q`).
    Quiet,
    /// Start, sanity and summary lines, and progress.
    Normal,
    /// Also a log line for every new best and the library's diagnostic events (`-v`).
    Verbose,
}

/// A reduction, validated and ready to run.
pub struct Reduction {
    /// The program file.
    pub file: PathBuf,
    /// Its file name, under which each test run sees the candidate.
    pub file_name: OsString,
    /// The interestingness test.
    pub test: TestCommand,
    /// The test as the user named it, for messages.
    pub test_name: String,
    /// What counts as interesting.
    pub criteria: Criteria,
    /// The program's language.
    pub frontend: Frontend,
    /// The program text (a project's: its bundle, [`lopper_bundle`]).
    pub text: String,
    /// Whether `text` is a project's bundle (a DIR or several FILEs).
    pub bundle: bool,
    /// A project's files carried as they are (binary files, symlinks, `--keep`).
    pub kept: Vec<lopper_bundle::Kept>,
    /// How the text maps back to the file's bytes.
    pub encoding: Encoding,
    /// Where results go (refused if unsafe).
    pub output: Output,
    /// The time limit the user gave, if any (else derived from the sanity runs).
    pub timeout: Option<Duration>,
    /// Tests at once.
    pub jobs: usize,
    /// Reducer settings.
    pub options: Options,
    /// The passes `--passes` names, in order (the pipeline is built once the time limit
    /// of external commands is known).
    pub passes: Vec<&'static PassInfo>,
    /// Where to write `--stats` JSON.
    pub stats_path: Option<PathBuf>,
    /// Where to write the `--events` stream (`-`: stderr).
    pub events_path: Option<PathBuf>,
    /// `--keep-temps`.
    pub keep_temps: bool,
    /// `--launcher`: the command prefix every test runs under.
    pub launcher: Option<String>,
    /// `--work-dir`: where run directories go.
    pub work_dir: Option<PathBuf>,
    /// The persistent verdict cache's directory (`None`: `--no-cache`).
    pub cache_dir: Option<PathBuf>,
    /// How much to print.
    pub verbosity: Verbosity,
    /// `--memory-limit` in MiB, if given (0: none).
    pub memory_limit: Option<u64>,
    /// The undefined-behaviour guard in front of the test (`--ub-guard`), if asked for.
    pub ub_guard: Option<crate::ub::Guarded>,
    /// `--assume-deterministic`: no replays.
    pub assume_deterministic: bool,
    /// `--allow-trivial`.
    pub allow_trivial: bool,
    /// `--transform` commands.
    pub transforms: Vec<String>,
    /// `--transform-count` commands: the i-th counts the i-th transform's instances.
    pub transform_counts: Vec<String>,
}

/// Every how many accepted candidates one is replayed during a reduction (one test each,
/// besides the first and the eighth accepted: see `Judge`).
pub const REPLAY_EVERY: usize = 32;

/// Finds and loads FILE's language: `--lang`, else `--grammar`, else by extension, else
/// plain text by lines.
///
/// # Errors
/// Exit code 3 with the registry's or the grammar's message.
pub fn language(file: &Path, lang: Option<&str>, grammar: Option<&Path>) -> Result<Frontend, Fail> {
    let explicit: Vec<PathBuf> = grammar.map(Path::to_path_buf).into_iter().collect();
    let bad = |e: &dyn std::fmt::Display| Fail(exit::BAD_INPUT, e.to_string());
    let reg = Registry::discover(&explicit).map_err(|e| bad(&e))?;
    let entry = reg.choose(file, lang, grammar.is_some()).map_err(|e| bad(&e))?;
    if lang.is_none() && grammar.is_none() && reg.by_path(file).is_none() {
        tracing::info!(file = %file.display(), "no language claims its extension: reduced by lines as plain text");
    }
    entry.load().map_err(|e| bad(&e))
}

/// The languages of a project's files that `main` does not own, by extension: each
/// extension a language of the registry claims (plain text aside), each language loaded
/// once. The other files are reduced by lines.
///
/// # Errors
/// Exit code 3 with the registry's or the grammar's message.
fn other_languages(p: &crate::project::Project, main: &Frontend) -> Result<Vec<(String, Frontend)>, Fail> {
    let bad = |e: &dyn std::fmt::Display| Fail(exit::BAD_INPUT, e.to_string());
    let reg = Registry::discover(&[]).map_err(|e| bad(&e))?;
    let mut out: Vec<(String, Frontend)> = Vec::new();
    for (path, _) in &p.files {
        let Some(ext) = Path::new(path).extension().and_then(|e| e.to_str()) else { continue };
        if main.owns(path) || out.iter().any(|(e, _)| e == ext) {
            continue;
        }
        let Some(entry) = reg.by_path(Path::new(path)).filter(|e| e.name != lopper_parse::registry::TEXT && e.name != main.name()) else { continue };
        let language = match out.iter().find(|(_, f)| f.name() == entry.name) {
            Some((_, f)) => f.clone(),
            None => entry.load().map_err(|e| bad(&e))?,
        };
        out.push((ext.to_string(), language));
    }
    Ok(out)
}

/// Reads a program: UTF-8 text, or any other bytes as Latin-1 (each byte one character), with
/// the encoding that writes it back byte for byte.
///
/// # Errors
/// Exit code 3 naming the file.
pub fn read_program(file: &Path) -> Result<(String, Encoding), Fail> {
    let bytes = fs::read(file).map_err(|e| Fail(exit::BAD_INPUT, format!("cannot read {}: {e}", file.display())))?;
    Ok(Encoding::decode(bytes))
}

/// Whether `path` looks like an interestingness test: executable, and a `#!` script or a
/// binary.
fn looks_like_test(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0) && lopper_reduce::oracle::is_runnable(path)
}

impl Reduction {
    /// Validates `a`: the TEST FILE pair (one file; not swapped), the criteria, the
    /// language and the program, the output paths, the time limit.
    ///
    /// # Errors
    /// A [`Fail`] with the exit code docs/cli.md gives for each problem.
    pub fn from_args(a: ReduceArgs) -> Result<Reduction, Fail> {
        let (test, inputs) = match (&a.test_cmd, a.args.as_slice()) {
            (Some(cmd), files @ [_, ..]) => (TestCommand::Shell(cmd.clone()), files.to_vec()),
            (None, [test, files @ ..]) if !files.is_empty() => (TestCommand::Script(test.clone()), files.to_vec()),
            (Some(_), _) => return Err(Fail(exit::USAGE, "with --test-cmd, give FILE (or DIR, or several FILEs)".into())),
            (None, _) => return Err(Fail(exit::USAGE, "give TEST and FILE (or DIR, or several FILEs; or --test-cmd 'COMMAND' FILE)".into())),
        };
        // A directory or several files: a project, one bundle through the one pipeline.
        let project = (inputs.len() > 1 || inputs[0].is_dir()).then(|| crate::project::Project::read(&inputs, &a.keep, a.delete_binaries)).transpose()?;
        if project.is_none() && !a.keep.is_empty() {
            return Err(Fail(exit::USAGE, "--keep names files of a project: give a DIR or several FILEs".into()));
        }
        if project.is_none() && a.delete_binaries {
            return Err(Fail(exit::USAGE, "--delete-binaries is for a project: give a DIR or several FILEs".into()));
        }
        let file = match &project {
            Some(p) => match &p.origin {
                crate::project::Origin::Dir(d) => d.clone(),
                crate::project::Origin::Files(_) => p.main_file(),
            },
            None => inputs[0].clone(),
        };
        if let TestCommand::Script(t) = &test {
            if looks_like_test(&file) && !looks_like_test(t) {
                let (t, f) = (shell_quote(&t.to_string_lossy()), shell_quote(&file.to_string_lossy()));
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
            ub_guard: a.ub.ub_guard,
        };
        let language_of = project.as_ref().map_or(file.clone(), |p| p.main_file());
        let mut frontend = language(&language_of, a.lang.as_deref(), a.grammar.as_deref())?;
        if let Some(p) = project.as_ref().filter(|_| a.lang.is_none() && a.grammar.is_none()) {
            let others = other_languages(p, &frontend)?;
            frontend = frontend.with_others(others);
        }
        let (text, encoding) = match &project {
            Some(p) => (p.bundle(), Encoding::Utf8),
            None => read_program(&file)?,
        };
        // A binary file (an object file copied under a source name) is no program: said
        // plainly rather than reduced slowly as Latin-1 text.
        if project.is_none() && a.lang.is_none() && a.grammar.is_none() && text.contains('\0') {
            return Err(Fail(
                exit::BAD_INPUT,
                format!(
                    "{} is not text (it holds NUL bytes); lopper reduces programs by their grammar. Pass --lang LANG to reduce it as that language anyway",
                    file.display()
                ),
            ));
        }
        frontend.check(&text).map_err(|e| Fail(exit::BAD_INPUT, format!("{}: {e}", file.display())))?;
        let script = match &test {
            TestCommand::Script(t) => Some(t.as_path()),
            TestCommand::Shell(_) => None,
        };
        let output = match &project {
            Some(p) => {
                let (o, backup, notice) = crate::project::ProjectOutput::plan(p, a.output.as_deref())?;
                Output::project(o, backup, notice).map_err(|e| Fail(exit::OUTPUT, e.to_string()))?
            }
            None => Output::plan(&file, &encoding.encode(&text), a.output.as_deref(), script, &output::ReductionLog::default_dir())
                .map_err(|e| Fail(exit::OUTPUT, e.to_string()))?
                .with_encoding(encoding),
        };
        let sides = a.stats.iter().map(|p| ("--stats", p)).chain(a.events.iter().filter(|p| p.as_os_str() != "-").map(|p| ("--events", p)));
        for (option, path) in sides {
            output::check_side_file(option, path, &file, script, a.output.as_deref()).map_err(|e| Fail(exit::OUTPUT, e.to_string()))?;
        }
        if a.timeout.is_some_and(|t| !t.is_finite() || t <= 0.0) {
            return Err(Fail(exit::USAGE, "--timeout must be a positive number of seconds".into()));
        }
        let file_name = file.file_name().ok_or_else(|| Fail(exit::BAD_INPUT, format!("{} is not a file", file.display())))?.to_os_string();
        let jobs = crate::runtime::jobs(a.jobs);
        let test_name = match &test {
            TestCommand::Script(t) => t.display().to_string(),
            TestCommand::Shell(cmd) => format!("sh -c '{cmd}'"),
        };
        let cache_dir = crate::runtime::verdict_dir(a.no_cache, a.cache_dir.as_deref());
        let ub_guard = if a.ub.ub_guard {
            if project.is_some() {
                return Err(Fail(exit::USAGE, "--ub-guard takes a single C or C++ FILE".into()));
            }
            let memory = a.memory_limit.or_else(crate::runtime::machine_memory_mib).filter(|&m| m > 0);
            let run_seconds = a.timeout.unwrap_or(10.0);
            Some(crate::ub::Guarded::set_up(&a.ub, frontend.name(), &file, run_seconds, memory, cache_dir.as_deref())?)
        } else {
            None
        };
        let test = match &ub_guard {
            Some(g) => g.wrap(&test),
            None => test,
        };
        // Baselines know no grammar: their invalid candidates are tested, and counted.
        let baseline = a.algorithm != Algorithm::Perses;
        let grammar_check = if a.test_invalid || baseline { GrammarCheck::Count } else { GrammarCheck::Reject };
        let passes = Pipeline::parse(&a.passes).map_err(|e| Fail(exit::USAGE, e.to_string()))?;
        let transforms = a.transform.clone();
        // External commands see one file; a bundle is none they can parse.
        if project.is_some() && !transforms.is_empty() {
            return Err(Fail(exit::USAGE, "--transform takes a single FILE; a DIR or several FILEs are reduced by the built-in passes".into()));
        }
        if a.transform_count.len() > transforms.len() {
            return Err(Fail(
                exit::USAGE,
                format!(
                    "{} --transform-count for {} --transform: each count command belongs to the --transform in the same position",
                    a.transform_count.len(),
                    transforms.len()
                ),
            ));
        }
        let options = Options {
            fixpoint: !a.no_fixpoint,
            grammar_check,
            algorithm: a.algorithm,
            search: SearchOptions { minimizer: a.minimizer, ..SearchOptions::perses(crate::runtime::window(jobs)) },
            threads: jobs,
            replay_every: if a.assume_deterministic { 0 } else { REPLAY_EVERY },
            confirm: false,
            ub_safe_edits: a.ub.ub_guard,
        };
        let verbosity = match (a.quiet, a.verbose) {
            (true, _) => Verbosity::Quiet,
            (false, true) => Verbosity::Verbose,
            (false, false) => Verbosity::Normal,
        };
        Ok(Reduction {
            file,
            file_name,
            test,
            test_name,
            criteria,
            frontend,
            text,
            bundle: project.is_some(),
            kept: project.as_ref().map_or_else(Vec::new, |p| p.kept.clone()),
            encoding,
            output,
            timeout: a.timeout.map(Duration::from_secs_f64),
            jobs,
            options,
            passes,
            stats_path: a.stats,
            events_path: a.events,
            keep_temps: a.keep_temps,
            launcher: a.launcher.clone(),
            work_dir: a.work_dir.clone(),
            cache_dir,
            ub_guard,
            verbosity,
            memory_limit: a.memory_limit,
            assume_deterministic: a.assume_deterministic,
            allow_trivial: a.allow_trivial,
            transforms,
            transform_counts: a.transform_count.clone(),
        })
    }

    /// The pipeline `--passes` names, in order: clang_delta's transformations where it
    /// stands (when the program is C or C++ and clang_delta is installed), then every
    /// `--transform` command at the end of the main group. External commands get the
    /// test's time limit `timeout`.
    ///
    /// # Errors
    /// Creating an external runner's temporary directory.
    pub fn pipeline(&self, timeout: Duration, interrupt: &Arc<AtomicBool>) -> Result<Pipeline, lopper_reduce::OracleError> {
        // A command with a count that takes a range (`{to}`) runs in binary-search mode.
        let external = |name: String, cmd: &str, count: Option<&String>| -> Result<Box<dyn Pass>, lopper_reduce::OracleError> {
            let runner = TransformRunner::new(cmd, self.file_name.clone(), timeout, interrupt.clone())?.with_encoding(self.encoding);
            let pass = External::new(name, runner);
            Ok(Box::new(match count {
                Some(c) if cmd.contains("{to}") => pass.in_binary_search(c),
                Some(c) => pass.with_count(c),
                None => pass,
            }))
        };
        let mut failed = None;
        let mut pipeline = Pipeline::build(&self.passes, &mut |info| {
            debug_assert!(matches!(info.kind, Kind::External));
            let transformations = external::clang_delta_transformations(self.frontend.name());
            // clang_delta parses one C or C++ file, not a project's bundle.
            if info.name != external::CLANG_DELTA.name || transformations.is_empty() || self.bundle {
                return Vec::new();
            }
            let Some(bin) = external::find_clang_delta() else {
                if self.verbosity != Verbosity::Quiet {
                    eprintln!("lopper: clang_delta not found (apt-get install cvise); its passes are skipped");
                }
                return Vec::new();
            };
            let built: Result<Vec<_>, _> = transformations
                .iter()
                .map(|t| {
                    let (cmd, count) = external::clang_delta(&bin, t);
                    external(format!("clang_delta:{t}"), &cmd, Some(&count))
                })
                .collect();
            built.unwrap_or_else(|e| {
                failed = Some(e);
                Vec::new()
            })
        });
        if let Some(e) = failed {
            return Err(e);
        }
        for (i, cmd) in self.transforms.iter().enumerate() {
            pipeline.push_main(external(cmd.clone(), cmd, self.transform_counts.get(i))?);
        }
        Ok(pipeline)
    }

    /// A command that reproduces one test run in a fresh directory, every path quoted; the
    /// directory is removed when the command ends, so pasting it leaves nothing in the temp dir.
    pub fn reproduce_command(&self) -> String {
        let quote = |p: &Path| shell_quote(&p.to_string_lossy());
        let name = quote(Path::new(&self.file_name));
        let run = match &self.test {
            TestCommand::Script(t) => format!("{} \"$d\"/{name}", quote(&fs::canonicalize(t).unwrap_or(t.clone()))),
            TestCommand::Shell(cmd) => format!("sh -c {} lopper-test \"$d\"/{name}", shell_quote(cmd)),
        };
        let abs = fs::canonicalize(&self.file).unwrap_or(self.file.clone());
        format!("(d=$(mktemp -d) && trap 'rm -rf \"$d\"' EXIT && cp {} \"$d/\" && cd \"$d\" && {run}); echo \"exit $?\"", quote(&abs))
    }
}
