//! `--ub-guard`: the undefined-behaviour guard of wrong-code reductions on the command
//! line. The checks themselves are `lopper_reduce::oracle::ub_guard`'s; here they are
//! configured, checked on the original, and put in front of the user's test: each test run
//! runs `lopper ub-guard-check … "$1"` first (a hidden subcommand, in the run's process
//! group and time limit) and the test only if that passes.

use crate::{exit, Fail};
use clap::Args;
use lopper_reduce::oracle::shell_quote;
use lopper_reduce::oracle::ub_guard::{Compiler, Family, Refusal, Stage, UbGuard, UB_EXIT};
use lopper_reduce::TestCommand;
use std::path::{Path, PathBuf};

/// The options of the guard, part of the reduction's arguments.
#[derive(Args, Debug, Clone)]
pub struct UbGuardArgs {
    /// Refuse candidates with undefined behaviour (C and C++; for wrong-code bugs, with a
    /// test as naive as "-O0 and -O2 print differently"). Each candidate must: compile with the first compiler at -O0 with the warnings that signal
    /// UB made errors (uninitialized use, missing return value, implicit declarations and
    /// int, int/pointer conversions, incompatible pointers, non-int main) and run to a
    /// normal end within 10 times the original's run (at least 1 s, at most --timeout or
    /// 10 s); print and exit the same when built by every other compiler at -O0; run
    /// with no report and the same output under every sanitizer build the machine has
    /// (clang -fsanitize=undefined,address and, for C, memory; gcc -fsanitize=undefined)
    /// and under valgrind's memcheck where installed; printf formats must match. The
    /// reference build runs before the test; the rest, only once the test said interesting.
    /// It cannot see UB no sanitizer reports (a pointer used or compared after its object's
    /// lifetime, strict aliasing, data races) nor paths the run does not take. A test exit
    /// status of 125 then counts as the guard's refusal; a candidate that does not build
    /// (an error no such warning made) as a failed test.
    #[arg(long)]
    pub ub_guard: bool,
    /// A compiler for --ub-guard (repeatable, in order; the first makes the reference
    /// build). Default: gcc (g++) and the newest clang or clang-NN (clang++) on PATH.
    #[arg(long, value_name = "CC", requires = "ub_guard")]
    pub ub_guard_cc: Vec<String>,
    /// Flags for every --ub-guard build, as one shell-quoted string (e.g. '-I include
    /// -DNDEBUG').
    #[arg(long, value_name = "FLAGS", requires = "ub_guard", allow_hyphen_values = true)]
    pub ub_guard_flags: Option<String>,
}

/// The hidden subcommand a test run starts with under `--ub-guard`.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The compilers, in order, each FAMILY:COMMAND (gcc or clang).
    #[arg(long = "cc", required = true)]
    cc: Vec<String>,
    /// The program is C++.
    #[arg(long)]
    cpp: bool,
    /// One build flag (repeatable).
    #[arg(long = "flag", allow_hyphen_values = true)]
    flags: Vec<String>,
    /// The sanitizer builds, as COMPILER_INDEX:KIND (repeatable).
    #[arg(long = "sanitizer")]
    sanitizers: Vec<String>,
    /// Seconds one program run may take.
    #[arg(long, default_value_t = 10.0)]
    run_seconds: f64,
    /// The address space a plain run may take, KiB.
    #[arg(long)]
    memory_kib: Option<u64>,
    /// Run the reference build under valgrind's memcheck too.
    #[arg(long)]
    valgrind: bool,
    /// Where verdicts are kept.
    #[arg(long)]
    cache: PathBuf,
    /// Which checks: `reference` (the reference build and run, before the test), `others`
    /// (second compilers, valgrind, sanitizers: after a test that said interesting), `all`.
    #[arg(long, default_value = "all", value_parser = ["all", "reference", "others"])]
    stage: String,
    /// The candidate.
    file: PathBuf,
}

/// The guard set up for a reduction: its configuration and where its verdicts go.
#[derive(Debug, Clone)]
pub struct Guarded {
    /// The configuration, found on this machine.
    pub guard: UbGuard,
    /// The directory of its verdicts.
    pub cache: PathBuf,
}

impl Guarded {
    /// The guard for `file` in `language` (`c` or `cpp`), checked on the original text in
    /// `file`; `memory_mib`: the tests' memory limit; `cache`: the persistent cache's
    /// directory, if any (the guard's verdicts go beside it, else under the process's
    /// temporary directory).
    ///
    /// # Errors
    /// Usage (exit 2) for another language or no compiler; a bad input (exit 3) when the
    /// original itself fails the guard, with why.
    pub fn set_up(a: &UbGuardArgs, language: &str, file: &Path, run_seconds: f64, memory_mib: Option<u64>, cache: Option<&Path>) -> Result<Guarded, Fail> {
        let cpp = match language {
            "c" => false,
            "cpp" => true,
            other => return Err(Fail(exit::USAGE, format!("--ub-guard checks C and C++ programs; {} is {other}", file.display()))),
        };
        let flags = match &a.ub_guard_flags {
            Some(f) => shlex::split(f).ok_or_else(|| Fail(exit::USAGE, format!("--ub-guard-flags: cannot split {f:?} into words")))?,
            None => Vec::new(),
        };
        let mut guard = UbGuard::detect(cpp, &a.ub_guard_cc, flags, run_seconds).map_err(|e| Fail(exit::USAGE, e))?;
        guard.memory_kib = memory_mib.map(|m| m * 1024);
        let work = tempfile::tempdir().map_err(|e| Fail(exit::ERROR, format!("--ub-guard: {e}")))?;
        let fails = |why: Refusal| Fail(exit::BAD_INPUT, format!("the original fails --ub-guard: {why}"));
        guard.calibrate(file, work.path()).map_err(fails)?;
        guard.check(file, work.path()).map_err(fails)?;
        let cache = cache.and_then(Path::parent).map_or_else(|| std::env::temp_dir().join("ub-guard"), |d| d.join("ub-guard"));
        Ok(Guarded { guard, cache })
    }

    /// `test` inside the guard: a shell script that runs the reference build's check on
    /// `$1`, then the test (under `ulimit -v` where the tests have a memory limit: the
    /// executor's own would stop the sanitizers), then, if the test said interesting, the
    /// guard's other checks; it exits [`UB_EXIT`] on a refusal (1 where the candidate does
    /// not build: a failed test), else as the test did. The verdicts are those of the
    /// whole guard before the test; a candidate the test rejects costs one build and run
    /// of the guard's, not all of them ([`Stage`]).
    pub fn wrap(&self, test: &TestCommand) -> TestCommand {
        let me = std::env::current_exe().map_or_else(|_| "lopper".to_string(), |p| p.display().to_string());
        let g = &self.guard;
        let mut check = vec![shell_quote(&me), "ub-guard-check".into()];
        for c in &g.compilers {
            let family = if c.family == Family::Clang { "clang" } else { "gcc" };
            check.extend(["--cc".into(), shell_quote(&format!("{family}:{}", c.command))]);
        }
        if g.cpp {
            check.push("--cpp".into());
        }
        for f in &g.flags {
            check.push(format!("--flag={}", shell_quote(f)));
        }
        for (i, k) in &g.sanitizers {
            check.extend(["--sanitizer".into(), shell_quote(&format!("{i}:{k}"))]);
        }
        check.extend(["--run-seconds".into(), g.run_seconds.to_string()]);
        if let Some(k) = g.memory_kib {
            check.extend(["--memory-kib".into(), k.to_string()]);
        }
        if g.valgrind {
            check.push("--valgrind".into());
        }
        check.extend(["--cache".into(), shell_quote(&self.cache.display().to_string())]);
        let check = check.join(" ");
        let limit = g.memory_kib.map_or_else(String::new, |k| format!("ulimit -v {k} && "));
        let run = match test {
            TestCommand::Script(t) => format!("exec {} \"$1\"", shell_quote(&std::fs::canonicalize(t).unwrap_or_else(|_| t.clone()).display().to_string())),
            TestCommand::Shell(cmd) => format!("exec sh -c {} lopper-test \"$1\"", shell_quote(cmd)),
        };
        TestCommand::Shell(format!("{check} --stage reference \"$1\" || exit $?\n({limit}{run}) || exit $?\nexec {check} --stage others \"$1\""))
    }
}

/// `lopper ub-guard-check`: exit 0 when the candidate passes the guard, else [`UB_EXIT`]
/// with the refusal on standard error (1 where it does not build: no undefined behaviour
/// shown, a failed test as the user's would be).
///
/// # Errors
/// The refusal, with exit status [`UB_EXIT`].
pub fn check_cmd(a: CheckArgs) -> Result<(), Fail> {
    let compilers =
        a.cc.iter()
            .map(|c| match c.split_once(':') {
                Some(("clang", cmd)) => Compiler { command: cmd.to_string(), family: Family::Clang },
                Some((_, cmd)) => Compiler { command: cmd.to_string(), family: Family::Gcc },
                None => Compiler { command: c.clone(), family: Family::Gcc },
            })
            .collect();
    let sanitizers = a.sanitizers.iter().filter_map(|s| s.split_once(':')).filter_map(|(i, k)| Some((i.parse().ok()?, k.to_string()))).collect();
    let guard = UbGuard { cpp: a.cpp, compilers, sanitizers, flags: a.flags, run_seconds: a.run_seconds, valgrind: a.valgrind, memory_kib: a.memory_kib };
    let work = tempfile::tempdir().map_err(|e| Fail(UB_EXIT as u8, format!("ub-guard-check: {e}")))?;
    let stage = match a.stage.as_str() {
        "reference" => Stage::Reference,
        "others" => Stage::Others,
        _ => Stage::All,
    };
    guard.check_cached(&a.file, work.path(), &a.cache, stage).map_err(|r| match r {
        Refusal::Undefined(why) => Fail(UB_EXIT as u8, format!("undefined behaviour: {why}")),
        // A failed test, as the user's would be: no undefined behaviour shown.
        Refusal::Invalid(why) => Fail(1, format!("does not build: {why}")),
    })
}
