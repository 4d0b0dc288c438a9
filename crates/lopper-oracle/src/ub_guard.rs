//! The undefined-behaviour guard (`--ub-guard`): what a careful wrong-code test checks
//! before it asks whether the bug still shows (C-Reduce's recipe, Regehr et al., PLDI'12),
//! owned by lopper so that the user's test can be the naive one ("the two builds differ").
//!
//! A candidate passes when all of these hold, in this order (the cheapest refusals first):
//! 1. the *reference build* — the first compiler at `-O0` with the warnings that signal
//!    undefined or unspecified behaviour made errors ([`warning_errors`]: uninitialized
//!    use, a missing return value, implicit declarations and `int`, int/pointer
//!    conversions, incompatible pointers, a `main` not returning `int`, a `printf` format
//!    its arguments do not match) — compiles, and
//!    its run ends normally (no signal, within the run limit, which [`UbGuard::calibrate`]
//!    sets from the original's own run);
//! 2. every other compiler at `-O0`, with its own such errors, compiles a program that
//!    prints the same standard output and exits with the same status (unspecified and
//!    implementation-defined behaviour the compilers resolve differently);
//! 3. where valgrind is installed, memcheck reports no error on the reference build
//!    (uninitialized values, bad reads and writes, where no MSan build is at hand);
//! 4. every sanitizer build the machine has ([`UbGuard::detect`] probes them: clang's
//!    `undefined,address` and, for C, `memory`; gcc's `undefined`), with no recovery,
//!    runs with no sanitizer report and prints and exits as the reference run did.
//!
//! What it cannot see: undefined behaviour no sanitizer reports (a pointer compared or
//! used after its object's lifetime ended, where ASan's quarantine has recycled it; a
//! data race without TSan; strict-aliasing violations; unsequenced modifications a
//! compiler does not warn about), and paths the reference run does not take.
//!
//! It runs as part of each test run (the CLI's hidden `ub-guard-check`, in the same process
//! group, under the same time limit), so it runs in parallel with `-j` and is killed with
//! the run, in two [`Stage`]s around the user's test: check 1 before it (a candidate that
//! warns of UB, does not build or does not end never reaches the test), checks 2–4 after
//! it, only where the test said interesting (they cost most, and a candidate the test
//! rejects is rejected whatever they say: the verdicts are the same as all before the
//! test). Its verdicts are kept apart from the test's, by a hash of the candidate, the
//! guard's configuration and the stage ([`UbGuard::check_cached`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The exit status of a test run whose candidate the guard refused: the verdict is then
/// [`crate::Verdict::Undefined`], not the test's.
pub const UB_EXIT: i32 = 125;

/// How many times the original's reference run a candidate's run may take under
/// [`UbGuard::calibrate`].
pub const RUN_FACTOR: f64 = 10.0;

/// The least run limit [`UbGuard::calibrate`] sets, in seconds: process start-up and a
/// loaded machine's noise stay well inside it.
pub const MIN_RUN_SECONDS: f64 = 1.0;

/// Why the guard refused a candidate, in words (which build or run showed what).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// It does not build: a compiler rejected it for an error none of [`warning_errors`]
    /// made (a syntax or type error, an undefined reference at link). It shows no
    /// undefined behaviour, and any test that builds it fails on it too: a failed test,
    /// not one of the guard's refusals.
    Invalid(String),
    /// Undefined or unspecified behaviour: a UB warning made an error, a run that did not
    /// end normally, two compilers that disagree, a sanitizer's or valgrind's report.
    Undefined(String),
}

impl Refusal {
    /// The refusal in words.
    pub fn why(&self) -> &str {
        match self {
            Refusal::Invalid(w) | Refusal::Undefined(w) => w,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.why())
    }
}

/// Which of the guard's checks (the module docs' numbering) one call makes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stage {
    /// Checks 1 to 4, in order.
    #[default]
    All,
    /// Check 1: the reference build and its run (one compile and one run).
    Reference,
    /// Checks 2 to 4 (the reference build made and run again, for the output the others
    /// must match): a second compiler, valgrind, the sanitizer builds.
    Others,
}

/// A compiler family: which warning flags and sanitizers it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// GCC (`gcc`, `g++`, `gcc-12`).
    Gcc,
    /// Clang (`clang`, `clang-16`, `clang++-14`).
    Clang,
}

/// A compiler the guard runs: a command name or path, and its family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiler {
    /// The command (found on PATH or a path).
    pub command: String,
    /// Its family, from its `--version`.
    pub family: Family,
}

/// The guard's configuration: the compilers, the sanitizer builds that work here, the
/// user's extra flags and the time one program run may take.
#[derive(Clone, Debug)]
pub struct UbGuard {
    /// Whether the candidate is C++ (else C).
    pub cpp: bool,
    /// The compilers; the first makes the reference build.
    pub compilers: Vec<Compiler>,
    /// The sanitizer builds: a compiler (index into `compilers`) and its `-fsanitize=`
    /// value.
    pub sanitizers: Vec<(usize, String)>,
    /// Flags for every build (`-I`, `-D`, `-std=`), before the file.
    pub flags: Vec<String>,
    /// Seconds one run of a built program may take (valgrind's run ten times as long).
    pub run_seconds: f64,
    /// Whether valgrind's memcheck runs the reference build too (where it is installed: it
    /// sees uninitialized values where no MSan build is at hand).
    pub valgrind: bool,
    /// The address space a run of an unsanitized build may take, in KiB; sanitized runs
    /// get it as their resident-set limit instead (they reserve terabytes of address
    /// space).
    pub memory_kib: Option<u64>,
}

/// The warnings of `family` that signal undefined or unspecified behaviour, as errors.
pub fn warning_errors(family: Family) -> &'static [&'static str] {
    match family {
        Family::Gcc => &[
            "-Werror=uninitialized",
            "-Werror=maybe-uninitialized",
            "-Werror=return-type",
            "-Werror=implicit-function-declaration",
            "-Werror=implicit-int",
            "-Werror=int-conversion",
            "-Werror=incompatible-pointer-types",
            "-Werror=main",
            "-Werror=format",
        ],
        Family::Clang => &[
            "-Werror=uninitialized",
            "-Werror=sometimes-uninitialized",
            "-Werror=return-type",
            "-Werror=implicit-function-declaration",
            "-Werror=implicit-int",
            "-Werror=int-conversion",
            "-Werror=incompatible-pointer-types",
            "-Werror=main-return-type",
            "-Werror=format",
        ],
    }
}

/// How a built program's run ended.
#[derive(Debug, PartialEq, Eq)]
struct RunOutput {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

impl UbGuard {
    /// The guard for a C (`cpp` false) or C++ program: the compilers named (`named`, in
    /// order), or else those on PATH — `gcc` (`g++`) then the newest of `clang`,
    /// `clang-NN` (`clang++`, `clang++-NN`) — and the sanitizer builds each has here,
    /// each probed once on a tiny program.
    ///
    /// # Errors
    /// A message when no compiler is found or a named one does not run.
    pub fn detect(cpp: bool, named: &[String], flags: Vec<String>, run_seconds: f64) -> Result<UbGuard, String> {
        let commands: Vec<String> = if named.is_empty() { on_path(cpp) } else { named.to_vec() };
        let mut compilers = Vec::new();
        for c in commands {
            let family = family_of(&c).ok_or_else(|| format!("--ub-guard: cannot run the compiler {c} (`{c} --version` failed)"))?;
            compilers.push(Compiler { command: c, family });
        }
        if compilers.is_empty() {
            return Err(format!(
                "--ub-guard: no {} compiler on PATH (looked for {}); name one with --ub-guard-cc",
                if cpp { "C++" } else { "C" },
                if cpp { "g++, clang++, clang++-NN" } else { "gcc, clang, clang-NN" }
            ));
        }
        let valgrind = Command::new("valgrind").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success());
        let mut guard = UbGuard { cpp, compilers, sanitizers: Vec::new(), flags, run_seconds, valgrind, memory_kib: None };
        let probe = tempfile::tempdir().map_err(|e| format!("--ub-guard: {e}"))?;
        let src = probe.path().join(if cpp { "probe.cc" } else { "probe.c" });
        fs::write(&src, "int main(void) { return 0; }\n").map_err(|e| format!("--ub-guard: {e}"))?;
        for (i, c) in guard.compilers.iter().enumerate() {
            let kinds: &[&str] = match (c.family, cpp) {
                (Family::Clang, false) => &["undefined,address", "memory"],
                (Family::Clang, true) => &["undefined,address"],
                (Family::Gcc, _) => &["undefined"],
            };
            for k in kinds {
                let exe = probe.path().join(format!("probe-{i}-{}", k.replace(',', "-")));
                let built = guard.compile(c, &src, &exe, &sanitizer_flags(k), "does not build the probe").is_ok();
                if built && guard.run(&exe, true).is_ok_and(|r| r.status == Some(0)) {
                    guard.sanitizers.push((i, k.to_string()));
                }
            }
        }
        Ok(guard)
    }

    /// What the guard runs, one line each, for the start of a run and `--help`'s readers.
    pub fn describe(&self) -> Vec<String> {
        let mut lines =
            vec![format!("reference build: {} -O0 with UB warnings as errors, run to a normal end within {} s", self.compilers[0].command, self.run_seconds)];
        for c in &self.compilers[1..] {
            lines.push(format!("second compiler: {} -O0 must print and exit the same", c.command));
        }
        for (i, k) in &self.sanitizers {
            lines.push(format!("sanitizer: {} -fsanitize={k}, no report, same output", self.compilers[*i].command));
        }
        if self.valgrind {
            lines.push("valgrind memcheck on the reference build: no error".into());
        }
        lines
    }

    /// Narrows [`UbGuard::run_seconds`] to [`RUN_FACTOR`] times the reference run of the
    /// program in `file` (the original), but not below [`MIN_RUN_SECONDS`]; builds in
    /// `work`. A deletion that leaves a loop without its step (Perses deletes `i++` as
    /// readily as anything) would otherwise hold a test slot for the whole test limit
    /// before its refusal. Returns the run's seconds.
    ///
    /// # Errors
    /// The refusal of the reference build or its run, as [`UbGuard::check_stage`] says it.
    pub fn calibrate(&mut self, file: &Path, work: &Path) -> Result<f64, Refusal> {
        let exe = self.reference_build(file, work)?;
        let started = Instant::now();
        self.run(&exe, false).map_err(Refusal::Undefined)?;
        let seconds = started.elapsed().as_secs_f64();
        // Rounded up to a tenth of a second: `timeout` takes it as written.
        let limit = ((seconds * RUN_FACTOR).max(MIN_RUN_SECONDS) * 10.0).ceil() / 10.0;
        self.run_seconds = self.run_seconds.min(limit);
        Ok(seconds)
    }

    /// Checks the program in `file`, building in `work` (an empty directory of the
    /// caller's). `Ok` when it passes every check, else the first refusal.
    ///
    /// # Errors
    /// As [`UbGuard::check_stage`].
    pub fn check(&self, file: &Path, work: &Path) -> Result<(), Refusal> {
        self.check_stage(file, work, Stage::All)
    }

    /// The checks of `stage` on the program in `file`, building in `work` (an empty
    /// directory of the caller's). `Ok` when it passes them, else the first refusal.
    ///
    /// # Errors
    /// The refusal: [`Refusal::Invalid`] when a build failed on an error no UB warning
    /// made, else [`Refusal::Undefined`].
    pub fn check_stage(&self, file: &Path, work: &Path, stage: Stage) -> Result<(), Refusal> {
        use Refusal::Undefined as Ub;
        let reference = &self.compilers[0];
        let exe = self.reference_build(file, work)?;
        let want = self.run(&exe, false).map_err(Ub)?;
        // `timeout` passes a signal on as 128 + its number.
        if want.status.is_none_or(|s| s > 128) {
            return Err(Ub(format!("the {} -O0 build did not end normally ({})", reference.command, ended(&want))));
        }
        if stage == Stage::Reference {
            return Ok(());
        }
        if self.valgrind {
            self.memcheck(&exe).map_err(Ub)?;
        }
        for (i, c) in self.compilers.iter().enumerate().skip(1) {
            let exe = work.join(format!("second-{i}"));
            self.build_warned(c, file, &exe)?;
            let got = self.run(&exe, false).map_err(Ub)?;
            if got.status != want.status || got.stdout != want.stdout {
                return Err(Ub(format!("{} -O0 and {} -O0 disagree ({}, {})", reference.command, c.command, ended(&want), ended(&got))));
            }
        }
        for (j, (i, kind)) in self.sanitizers.iter().enumerate() {
            let c = &self.compilers[*i];
            let exe = work.join(format!("sanitized-{j}"));
            self.compile(c, file, &exe, &sanitizer_flags(kind), &format!("-fsanitize={kind} does not build it"))?;
            let got = self.run(&exe, true).map_err(Ub)?;
            if let Some(report) = got.stderr.lines().find(|l| l.contains("runtime error") || l.contains("Sanitizer")) {
                return Err(Ub(format!("{} -fsanitize={kind}: {}", c.command, report.trim())));
            }
            if got.status != want.status || got.stdout != want.stdout {
                return Err(Ub(format!("the {} -fsanitize={kind} build runs otherwise than the reference ({}, {})", c.command, ended(&got), ended(&want))));
            }
        }
        Ok(())
    }

    /// [`UbGuard::check_stage`] through a cache of verdicts in `cache` (created if
    /// missing): one file per candidate, configuration and stage, named by their BLAKE3
    /// hash, `.ok`, `.ub` or `.invalid` (the last two holding the refusal). A candidate
    /// judged before is not built again.
    ///
    /// # Errors
    /// As [`UbGuard::check_stage`]; a file that cannot be read is [`Refusal::Invalid`].
    pub fn check_cached(&self, file: &Path, work: &Path, cache: &Path, stage: Stage) -> Result<(), Refusal> {
        let text = fs::read(file).map_err(|e| Refusal::Invalid(format!("cannot read {}: {e}", file.display())))?;
        let mut h = blake3::Hasher::new();
        h.update(format!("{self:?} {stage:?}").as_bytes());
        h.update(&text);
        let key = h.finalize().to_hex();
        let [ok, ub, invalid] = ["ok", "ub", "invalid"].map(|ext| cache.join(format!("{key}.{ext}")));
        if ok.exists() {
            return Ok(());
        }
        if let Ok(reason) = fs::read_to_string(&ub) {
            return Err(Refusal::Undefined(reason));
        }
        if let Ok(reason) = fs::read_to_string(&invalid) {
            return Err(Refusal::Invalid(reason));
        }
        let verdict = self.check_stage(file, work, stage);
        // Written by rename: parallel runs of the same candidate never see half a file.
        let _ = fs::create_dir_all(cache);
        if let Ok(tmp) = tempfile::NamedTempFile::new_in(cache) {
            let _ = fs::write(tmp.path(), verdict.as_ref().err().map_or("", Refusal::why));
            let _ = tmp.persist(match &verdict {
                Ok(()) => &ok,
                Err(Refusal::Undefined(_)) => &ub,
                Err(Refusal::Invalid(_)) => &invalid,
            });
        }
        verdict
    }

    /// Runs `exe` under valgrind's memcheck: a refusal on any error it reports.
    fn memcheck(&self, exe: &Path) -> Result<(), String> {
        let out = Command::new("timeout")
            .args(["-s", "KILL", &(self.run_seconds * 10.0).to_string(), "valgrind", "--error-exitcode=99", "--vgdb=no", "-q"])
            .arg(exe)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot run valgrind: {e}"))?;
        if out.status.code() == Some(99) {
            let err = String::from_utf8_lossy(&out.stderr);
            let first = err.lines().map(|l| l.split_once("== ").map_or(l, |(_, r)| r)).find(|l| !l.trim().is_empty()).unwrap_or("an error");
            return Err(format!("valgrind memcheck: {}", first.trim()));
        }
        Ok(())
    }

    /// The reference build of `file` (the first compiler, [`UbGuard::build_warned`]), as
    /// `work/reference`.
    ///
    /// # Errors
    /// As [`UbGuard::compile`].
    fn reference_build(&self, file: &Path, work: &Path) -> Result<PathBuf, Refusal> {
        let exe = work.join("reference");
        self.build_warned(&self.compilers[0], file, &exe)?;
        Ok(exe)
    }

    /// Builds `file` into `exe` with `c` at -O0 and the warnings that signal UB as errors
    /// ([`warning_errors`]).
    ///
    /// # Errors
    /// As [`UbGuard::compile`].
    fn build_warned(&self, c: &Compiler, file: &Path, exe: &Path) -> Result<(), Refusal> {
        self.compile(c, file, exe, warning_errors(c.family), "-O0 (UB warnings as errors) refused it")
    }

    /// Builds `file` into `exe` with `c` at -O0, `extra` flags and the user's; a failure
    /// is said as `what` after the compiler's name, with its first error: undefined
    /// behaviour where a UB warning made it an error (`[-Werror=…]`, `[-Werror,-W…]`), else
    /// [`Refusal::Invalid`].
    fn compile(&self, c: &Compiler, file: &Path, exe: &Path, extra: &[&str], what: &str) -> Result<(), Refusal> {
        let mut cmd = Command::new(&c.command);
        cmd.arg("-O0").args(extra).args(&self.flags).arg(file).arg("-o").arg(exe);
        let out = cmd.stdin(Stdio::null()).output().map_err(|e| Refusal::Invalid(format!("cannot run {}: {e}", c.command)))?;
        if out.status.success() {
            return Ok(());
        }
        let err = String::from_utf8_lossy(&out.stderr);
        let ub = err.lines().find(|l| l.contains("[-Werror"));
        let first = ub.or_else(|| err.lines().find(|l| l.contains("error"))).unwrap_or("it failed").trim();
        let why = format!("{} {what}: {first}", c.command);
        Err(if ub.is_some() { Refusal::Undefined(why) } else { Refusal::Invalid(why) })
    }

    /// Runs `exe` under `timeout` (a timeout is a refusal), with the sanitizers' options when `sanitized`, and the
    /// memory limit as [`UbGuard::memory_kib`] says.
    fn run(&self, exe: &Path, sanitized: bool) -> Result<RunOutput, String> {
        let mut cmd = Command::new("timeout");
        cmd.args(["-s", "KILL", &self.run_seconds.to_string()]);
        let rss = self.memory_kib.map(|k| format!(":hard_rss_limit_mb={}", k / 1024)).unwrap_or_default();
        if sanitized {
            cmd.env("ASAN_OPTIONS", format!("detect_leaks=0:detect_stack_use_after_return=1:symbolize=0{rss}"));
            cmd.env("UBSAN_OPTIONS", "symbolize=0:halt_on_error=1");
            cmd.env("MSAN_OPTIONS", format!("symbolize=0{rss}"));
        } else if let Some(kib) = self.memory_kib {
            cmd.args(["sh", "-c", &format!("ulimit -v {kib} && exec \"$0\"")]);
        }
        let out = cmd.arg(exe).stdin(Stdio::null()).output().map_err(|e| format!("cannot run timeout: {e}"))?;
        let status = out.status.code();
        if matches!(status, Some(124) | Some(137)) {
            return Err(format!("a run of the {} build took more than {} s", if sanitized { "sanitized" } else { "plain" }, self.run_seconds));
        }
        Ok(RunOutput { status, stdout: out.stdout, stderr: String::from_utf8_lossy(&out.stderr).into_owned() })
    }
}

/// The flags of a sanitizer build of `kind`.
fn sanitizer_flags(kind: &str) -> Vec<&str> {
    vec![
        "-g",
        if kind.contains("memory") {
            "-fsanitize=memory"
        } else if kind.contains("address") {
            "-fsanitize=undefined,address"
        } else {
            "-fsanitize=undefined"
        },
        "-fno-sanitize-recover=all",
        "-w",
    ]
}

/// "exit status N" or "killed by a signal", for a refusal.
fn ended(r: &RunOutput) -> String {
    match r.status {
        Some(s) => format!("exit status {s}, {} bytes of output", r.stdout.len()),
        None => "killed by a signal".into(),
    }
}

/// The family of compiler `c`, from its `--version`; `None` when it does not run.
fn family_of(c: &str) -> Option<Family> {
    let out = Command::new(c).arg("--version").stdin(Stdio::null()).output().ok()?;
    out.status.success().then(|| if String::from_utf8_lossy(&out.stdout).contains("clang") { Family::Clang } else { Family::Gcc })
}

/// The compilers on PATH: gcc (g++) and the newest clang (clang++), where present.
fn on_path(cpp: bool) -> Vec<String> {
    let (gcc, clang) = if cpp { ("g++", "clang++") } else { ("gcc", "clang") };
    let dirs: Vec<PathBuf> = std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    let mut found = Vec::new();
    if dirs.iter().any(|d| d.join(gcc).is_file()) {
        found.push(gcc.to_string());
    }
    // clang, or the newest clang-NN.
    let mut best: Option<(u32, String)> = dirs.iter().any(|d| d.join(clang).is_file()).then(|| (u32::MAX, clang.to_string()));
    if best.is_none() {
        for d in &dirs {
            for e in fs::read_dir(d).into_iter().flatten().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if let Some(v) = name.strip_prefix(&format!("{clang}-")).and_then(|v| v.parse::<u32>().ok()) {
                    if best.as_ref().is_none_or(|(b, _)| v > *b) {
                        best = Some((v, name));
                    }
                }
            }
        }
    }
    found.extend(best.map(|(_, c)| c));
    found
}

#[cfg(test)]
mod tests;
