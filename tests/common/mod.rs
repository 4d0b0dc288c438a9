//! Helpers for the end-to-end tests: temporary case directories, test scripts, running the
//! real `lopper` binary, and counting tokens with the same front end lopper uses.

#![allow(dead_code)]

use lopper_parse::{Frontend, Language};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `javac` as the tests' interestingness tests run it: each run compiles a few small classes,
/// where the JVM's start-up and its optimizing JIT cost most of the time; the C1 compiler alone
/// and the serial collector take about a third of that off (1.66 s to 1.07 s a run on the CI
/// machine), and javac's verdicts do not depend on them. Without its performance-data file
/// the JVM leaves no `hsperfdata_*` folder in the temp directory.
pub const JAVAC: &str = "javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -J-XX:-UsePerfData";

/// A temporary directory holding a program and its interestingness test.
pub struct Case {
    pub dir: tempfile::TempDir,
    pub program: PathBuf,
    pub test: PathBuf,
}

impl Case {
    /// Writes `program` under `file_name` and `test_body` as an executable `test.sh`.
    pub fn new(file_name: &str, program: &str, test_body: &str) -> Case {
        let dir = tempfile::tempdir().unwrap();
        let program_path = dir.path().join(file_name);
        fs::write(&program_path, program).unwrap();
        let test = dir.path().join("test.sh");
        write_script(&test, test_body);
        Case { dir, program: program_path, test }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `lopper ARGS... TEST PROGRAM`, to run or spawn.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_lopper"));
        // A verdict cache of the case's own, not the user's.
        c.env("LOPPER_CACHE", self.dir.path().join("cache")).args(args).arg(&self.test).arg(&self.program);
        c
    }

    /// Runs `lopper ARGS... TEST PROGRAM`.
    pub fn lopper(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Whether the test passes on `path`.
    pub fn passes(&self, path: &Path) -> bool {
        // Another test thread may be forking while holding a script of its own open for
        // writing; the exec then fails with ETXTBSY for a moment: try again.
        for _ in 0..50 {
            match Command::new(&self.test).arg(path).status() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => std::thread::sleep(std::time::Duration::from_millis(20)),
                status => return status.unwrap().success(),
            }
        }
        panic!("{} stayed busy", self.test.display());
    }
}

pub fn write_script(path: &Path, body: &str) {
    fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// Token count of `text` under lopper's own front end.
pub fn tokens(lang: Language, text: &str) -> usize {
    Frontend::new(lang).unwrap().parse(text).unwrap().tree.token_count()
}

/// Asserts the process exited with `code`, showing its stderr otherwise.
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(out.status.code(), Some(code), "stderr:\n{}", String::from_utf8_lossy(&out.stderr));
}

/// The Debian package that provides each outside tool the end-to-end tests use as an oracle.
const TOOL_PACKAGES: &[(&str, &str)] = &[
    ("gcc", "gcc"),
    ("cc", "gcc"),
    ("g++", "g++"),
    ("rustc", "rustc"),
    ("go", "golang-go"),
    ("javac", "openjdk-17-jdk-headless"),
    ("node", "nodejs"),
    ("python3", "python3"),
    ("z3", "z3"),
    ("lua5.4", "lua5.4"),
    ("script", "bsdutils"),
    ("valgrind", "valgrind"),
];

/// Fails the test with a message naming `tool` (and how to get it) when it is not on PATH,
/// instead of a bare assertion about an oracle that could not run.
pub fn require_tool(tool: &str) {
    let found = Command::new("sh").arg("-c").arg(format!("command -v '{tool}' >/dev/null")).status().is_ok_and(|s| s.success());
    if !found {
        let package = TOOL_PACKAGES.iter().find(|(t, _)| *t == tool).map_or(tool, |(_, p)| p);
        panic!(
            "`{tool}` is not installed, and this test runs it as its oracle: run `tools/test` (it installs what the tests use), or `apt-get install {package}`"
        );
    }
}

/// Waits for `child`, reading its peak resident size (`VmHWM`, KiB) as it runs: VmHWM only
/// grows, so the last reading before the exit is the run's peak (but for its last few
/// milliseconds). Returns the exit status and that peak.
pub fn wait_with_peak_rss(child: &mut std::process::Child) -> (std::process::ExitStatus, u64) {
    let mut peak_kib = 0u64;
    loop {
        if let Ok(s) = fs::read_to_string(format!("/proc/{}/status", child.id())) {
            if let Some(kib) = s.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok()) {
                peak_kib = peak_kib.max(kib);
            }
        }
        if let Some(status) = child.try_wait().unwrap() {
            return (status, peak_kib);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}
