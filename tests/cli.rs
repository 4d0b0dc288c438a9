//! End to end: the CLI's errors, exit codes and safety promises.

mod common;
use common::*;
use std::fs;
use std::process::Command;
use std::time::{Duration, Instant};

const SRC: &str = "int main(void) { return 0; }\n";

#[test]
fn original_that_is_not_interesting_exits_5_and_changes_nothing() {
    let case = Case::new("a.c", SRC, "echo 'no crash here' >&2; exit 1");
    let out = case.lopper(&[]);
    assert_exit(&out, 5);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not interesting"), "{err}");
    assert!(err.contains("no crash here"), "the test's output is shown: {err}");
    assert_eq!(fs::read_to_string(&case.program).unwrap(), SRC);
    assert!(!case.path("a.c.orig").exists());
}

#[test]
fn unknown_language_exits_3() {
    let case = Case::new("a.txt", SRC, "exit 0");
    let out = case.lopper(&[]);
    assert_exit(&out, 3);
    assert!(String::from_utf8_lossy(&out.stderr).contains("--lang"));
    // --lang overrides the extension.
    let out = case.lopper(&["--lang", "c", "-q"]);
    assert_exit(&out, 0);
}

#[test]
fn missing_or_non_executable_test_exits_4() {
    let case = Case::new("a.c", SRC, "exit 0");
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).arg(case.path("nope.sh")).arg(&case.program).output().unwrap();
    assert_exit(&out, 4);
    let plain = case.path("plain.sh");
    fs::write(&plain, "#!/bin/sh\nexit 0\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).arg(&plain).arg(&case.program).output().unwrap();
    assert_exit(&out, 4);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not executable"));
}

#[test]
fn unreadable_or_binary_input_exits_3() {
    let case = Case::new("a.c", SRC, "exit 0");
    fs::write(&case.program, [0xff, 0xfe, 0x00]).unwrap();
    let out = case.lopper(&[]);
    assert_exit(&out, 3);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"));
}

#[test]
fn a_hanging_test_is_killed_with_its_process_group() {
    // The test starts a grandchild that ignores SIGTERM and outlives its parent's sleep.
    let case = Case::new("a.c", SRC, "trap '' TERM; (trap '' TERM; sleep 30; echo late > \"$(dirname \"$0\")/grandchild-ran\") & sleep 30");
    let marker = case.dir.path().join("grandchild-ran");
    let t = Instant::now();
    let out = case.lopper(&["--timeout", "1"]);
    assert_exit(&out, 5);
    assert!(String::from_utf8_lossy(&out.stderr).contains("did not finish within 1 s"));
    assert!(t.elapsed() < Duration::from_secs(20), "lopper must not wait for the test's 30 s sleep");
    // No process of the test group survives: the marker's writer was killed.
    let ps = Command::new("pgrep").args(["-f", "sleep 30"]).output();
    if let Ok(ps) = ps {
        let pids = String::from_utf8_lossy(&ps.stdout).to_string();
        for pid in pids.lines() {
            let cmd = fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cwd = fs::read_link(format!("/proc/{pid}/cwd")).map(|p| p.display().to_string()).unwrap_or_default();
            assert!(!cwd.contains("lopper-"), "a test process survived: {pid} {cmd:?} in {cwd}");
        }
    }
    assert!(!marker.exists());
}

#[test]
fn parse_and_grammar_show_print_the_pnf() {
    let case = Case::new("a.c", "int f(int a, int b) { return a + b; }\n", "exit 0");
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).arg("parse").arg(&case.program).output().unwrap();
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Star translation_unit"), "{text}");
    assert!(text.contains("matched their PNF rule (100.0%)"), "{text}");
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).args(["grammar", "show", "java"]).output().unwrap();
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("# PNF of java:"), "{}", &text[..100]);
    assert!(text.contains("program ::= "));
}

#[test]
fn ctrl_c_mid_run_leaves_an_interesting_file_and_no_temporaries() {
    let mut src = String::new();
    for i in 0..40 {
        src.push_str(&format!("int f{i}(int a) {{ return a + {i}; }}\n"));
    }
    src.push_str("int main(void) { return needle(); }\n");
    let case = Case::new("big.c", &src, "sleep 0.2; grep -q needle \"$1\"");
    let tmp = case.path("tmp");
    fs::create_dir(&tmp).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_lopper"))
        .env("TMPDIR", &tmp)
        .arg(&case.test)
        .arg(&case.program)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first smaller program to be written, then interrupt.
    let t = Instant::now();
    while !case.path("big.c.orig").exists() && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_exit(&out, 130);
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    let now = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "the file on disk is interesting after Ctrl-C:\n{now}");
    assert!(now.len() < src.len());
    assert_eq!(fs::read_to_string(case.path("big.c.orig")).unwrap(), src);
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0, "the temporary root is removed");
}
