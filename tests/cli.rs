//! End to end: the CLI's errors, exit codes and safety promises.

mod common;
use common::*;
use lopper_parse::Language;
use std::fs;
use std::path::Path;
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
    let out = case.lopper(&["--lang", "cobol"]);
    assert_exit(&out, 3);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown language `cobol`"));
    // --lang overrides the extension (the test accepts anything: a trivial result, allowed).
    let out = case.lopper(&["--lang", "c", "-q", "--allow-trivial"]);
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
fn unreadable_input_exits_3() {
    let case = Case::new("a.c", SRC, "exit 0");
    fs::remove_file(&case.program).unwrap();
    let out = case.lopper(&[]);
    assert_exit(&out, 3);
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_latin1_input_is_reduced_and_written_back_byte_for_byte() {
    // An old C file: Latin-1 (not UTF-8) in a comment and a string. The test needs the
    // string's byte 0xE9 exactly, and `needle`.
    let mut program =
        b"/* caf\xe9 au lait */\nint a(void) { return 1; }\nconst char *s = \"r\xe9sum\xe9\";\nint b(void) { return needle(); }\nint c(void) { return 3; }\n"
            .to_vec();
    program.extend_from_slice(b"int d(void) { return 4; }\n");
    let case = Case::new("a.c", "", "grep -q needle \"$1\" && LC_ALL=C grep -q \"$(printf 'r\\351sum')\" \"$1\"");
    fs::write(&case.program, &program).unwrap();
    assert!(case.passes(&case.program));
    let out = case.lopper(&["--passes", "perses"]);
    assert_exit(&out, 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8; reducing it as Latin-1"));
    let result = fs::read(&case.program).unwrap();
    assert!(result.len() < program.len() / 2, "{}", String::from_utf8_lossy(&result));
    assert!(result.windows(5).any(|w| w == b"r\xe9sum"), "{result:?}");
    assert!(!result.contains(&0xc3), "written as UTF-8: {result:?}");
    assert!(case.passes(&case.program));
    // The backup is the original, byte for byte.
    assert_eq!(fs::read(case.path("a.c.orig")).unwrap(), program);
}

#[test]
fn a_hanging_test_is_killed_with_its_process_group() {
    // The test starts a grandchild that ignores SIGTERM and outlives its parent's sleep.
    let case = Case::new("a.c", SRC, "trap '' TERM; (trap '' TERM; sleep 30; echo late > \"$(dirname \"$0\")/grandchild-ran\") & sleep 30");
    let marker = case.dir.path().join("grandchild-ran");
    let t = Instant::now();
    let out = case.lopper(&["--timeout", "1"]);
    assert_exit(&out, 7);
    assert!(String::from_utf8_lossy(&out.stderr).contains("too slow"));
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
fn a_timed_out_test_takes_the_process_groups_its_commands_made_with_it() {
    // GNU `timeout` runs the command it times in a process group of its own, as test
    // scripts do with their compiler; that command must not run on after the test is
    // killed (it would hold a core that the next test needs).
    let case = Case::new("a.c", SRC, "timeout 60 sh -c 'sleep 28; echo late > \"$0\"' \"$(dirname \"$0\")/command-ran\"");
    let out = case.lopper(&["--timeout", "1"]);
    assert_exit(&out, 7);
    let ps = Command::new("pgrep").args(["-f", "sleep 28"]).output().unwrap();
    let survivors: Vec<String> = String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|pid| fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|p| p.display().to_string().contains("lopper-")))
        .map(|pid| format!("{pid} {:?}", fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default()))
        .collect();
    assert!(survivors.is_empty(), "the timed command survived its test: {survivors:?}");
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

/// The Ctrl-C tests' case: 40 functions and a `main` naming `needle`, whose test greps
/// for it after 0.2 s (slow enough to interrupt mid-run); the source and the case.
fn slow_needle_case() -> (String, Case) {
    let mut src = String::new();
    for i in 0..40 {
        src.push_str(&format!("int f{i}(int a) {{ return a + {i}; }}\n"));
    }
    src.push_str("int main(void) { return needle(); }\n");
    let case = Case::new("big.c", &src, "sleep 0.2; grep -q needle \"$1\"");
    (src, case)
}

#[test]
fn ctrl_c_lays_the_o_result_out_after_one_more_test() {
    let (src, case) = slow_needle_case();
    let out_path = case.path("out.c");
    let child = Command::new(env!("CARGO_BIN_EXE_lopper"))
        .args(["--no-cache", "-o", out_path.to_str().unwrap()])
        .arg(&case.test)
        .arg(&case.program)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    let out = child.wait_with_output().unwrap();
    assert_exit(&out, 130);
    let result = fs::read_to_string(&out_path).unwrap();
    // Laid out as a finished run's result is (emptied bodies read `int f0(int a) ;` before).
    assert!(case.passes(&out_path) && !result.contains(" ;"), "{result}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("laying the best out"));
    assert_eq!(fs::read_to_string(&case.program).unwrap(), src, "-o leaves FILE alone");
}

#[test]
fn ctrl_c_mid_run_leaves_an_interesting_file_and_no_temporaries() {
    let (src, case) = slow_needle_case();
    let tmp = case.path("tmp");
    fs::create_dir(&tmp).unwrap();
    let child =
        Command::new(env!("CARGO_BIN_EXE_lopper")).env("TMPDIR", &tmp).arg(&case.test).arg(&case.program).stderr(std::process::Stdio::piped()).spawn().unwrap();
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
    // Running lopper again on the file continues from there and keeps the true original.
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).env("TMPDIR", &tmp).arg(&case.test).arg(&case.program).output().unwrap();
    assert_exit(&out, 0);
    let resumed = fs::read_to_string(&case.program).unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    if resumed != now {
        assert!(err.contains("keeping the existing"), "{err}");
    }
    // The summary measures against the true original, not the resumed start.
    let original_tokens = tokens(Language::C, &src);
    assert!(err.contains("of this run's start") && err.contains(&format!("of the original, {original_tokens} tokens in ")), "{err}");
    assert!(case.passes(&case.program) && resumed.len() <= now.len(), "{resumed}");
    assert_eq!(fs::read_to_string(case.path("big.c.orig")).unwrap(), src);
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
}

const NEEDLE_SRC: &str = "int a(void) { return 1; }\nint b(void) { return needle(); }\nint c(void) { return 3; }\n";

/// Runs lopper with `args` then FILE (no TEST argument), returning the reduced text.
fn lopper_with(case: &Case, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).args(args).arg(&case.program).output().unwrap();
    assert_exit(&out, 0);
    fs::read_to_string(&case.program).unwrap()
}

#[test]
fn interesting_exit_codes_and_output_patterns() {
    // Interesting: exit 3 and "boom" on stderr, both only while `needle` is there.
    let case = Case::new("a.c", NEEDLE_SRC, "if grep -q needle \"$1\"; then echo 'boom: needle' >&2; exit 3; fi; exit 0");
    let out = case.lopper(&["-q"]);
    assert_exit(&out, 5); // exit 3 is not interesting by default
    let test = case.test.to_str().unwrap().to_string();
    let reduced = lopper_with(&case, &["-q", "--interesting-exit-code", "3", "--stderr-regex", "boom: .*needle", &test]);
    assert!(reduced.contains("needle") && !reduced.contains("return 1"), "{reduced}");
    // A pattern that never matches makes the original uninteresting.
    let case = Case::new("a.c", NEEDLE_SRC, "echo quiet; exit 0");
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).args(["--stdout-regex", "loud"]).arg(&case.test).arg(&case.program).output().unwrap();
    assert_exit(&out, 5);
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).args(["--stdout-regex", "("]).arg(&case.test).arg(&case.program).output().unwrap();
    assert_exit(&out, 2);
}

#[test]
fn test_cmd_and_stdin_replace_the_script() {
    let case = Case::new("a.c", NEEDLE_SRC, "exit 0");
    let reduced = lopper_with(&case, &["-q", "--test-cmd", "grep -q needle \"$1\""]);
    assert!(reduced.contains("needle") && !reduced.contains("return 3"), "{reduced}");
    let case = Case::new("a.c", NEEDLE_SRC, "exit 0");
    let reduced = lopper_with(&case, &["-q", "--stdin", "--test-cmd", "grep -q needle"]);
    assert!(reduced.contains("needle") && !reduced.contains("return 3"), "{reduced}");
    // --test-cmd with TEST and FILE is a usage error.
    let out = case.lopper(&["--test-cmd", "true"]);
    assert_exit(&out, 2);
}

#[test]
fn keep_temps_keeps_the_run_directories() {
    let case = Case::new("a.c", NEEDLE_SRC, "grep -q needle \"$1\"");
    let tmp = case.path("tmp");
    fs::create_dir(&tmp).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).env("TMPDIR", &tmp).arg("--keep-temps").arg(&case.test).arg(&case.program).output().unwrap();
    assert_exit(&out, 0);
    let err = String::from_utf8_lossy(&out.stderr);
    // The process's own directory in TMPDIR, kept, and in it the directory of the test runs
    // that the message names.
    let named = err.lines().find_map(|l| l.strip_prefix("lopper: keeping test directories under ")).expect("the kept directory is named");
    let homes: Vec<_> = fs::read_dir(&tmp).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(homes.len(), 1, "{homes:?}");
    let root = Path::new(named.trim());
    assert!(root.starts_with(&homes[0]), "{} under {}", root.display(), homes[0].display());
    let runs = fs::read_dir(root).unwrap().count();
    assert!(runs >= 3, "{runs} run directories kept");
    assert!(root.join("t1").join("a.c").exists(), "each run keeps its candidate under the input's name");
}

#[test]
fn a_flaky_test_exits_6_and_a_derived_time_limit_is_reported() {
    // Says yes, then no, then yes, ...: flaky on the unchanged original.
    let case = Case::new("a.c", SRC, "d=$(dirname \"$0\"); n=$(cat \"$d/count\" 2>/dev/null || echo 0); echo $((n + 1)) > \"$d/count\"; [ $((n % 2)) -eq 0 ]");
    let out = case.lopper(&[]);
    assert_exit(&out, 6);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("flaky") && err.contains("reproduce: (d=$(mktemp -d) && trap"), "{err}");
    assert_eq!(fs::read_to_string(&case.program).unwrap(), SRC);
    // A fast, steady test: the default limit is 10x its time with a 10 s floor.
    let case = Case::new("a.c", NEEDLE_SRC, "grep -q needle \"$1\"");
    let out = case.lopper(&[]);
    assert_exit(&out, 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains("time limit per test 10.0 s"), "{}", String::from_utf8_lossy(&out.stderr));
}

fn lopper_args(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lopper")).args(args).output().unwrap()
}

#[test]
fn c_vise_habits_get_lopper_answers() {
    let case = Case::new("a.c", NEEDLE_SRC, "grep -q needle \"$1\"");
    let (test, file) = (case.test.as_os_str(), case.program.as_os_str());
    // C-Vise's --n N and -n N are -j N.
    for flag in ["--n", "-n"] {
        let stats = case.path("stats.json");
        let out = lopper_args(&[flag.as_ref(), "1".as_ref(), "-q".as_ref(), "--stats".as_ref(), stats.as_os_str(), test, file]);
        assert_exit(&out, 0);
        assert!(fs::read_to_string(&stats).unwrap().contains("\"jobs\": 1"));
    }
    // Two FILEs by absolute paths: a project's files are named below the current
    // directory, said plainly; nothing touched (tests/project.rs reduces several files).
    let case = Case::new("a.c", NEEDLE_SRC, "grep -q needle \"$1\"");
    let other = case.path("b.c");
    fs::write(&other, NEEDLE_SRC).unwrap();
    let out = lopper_args(&[case.test.as_os_str(), case.program.as_os_str(), other.as_os_str()]);
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("below the current directory") && err.contains("a.c"), "{err}");
    assert_eq!(fs::read_to_string(&case.program).unwrap(), NEEDLE_SRC);
    // The usage line names TEST FILE, not `[FILE]...`.
    let help = lopper_args(&["--help".as_ref()]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("Usage: lopper [OPTIONS] TEST FILE") && !help.contains("Usage: lopper [OPTIONS] [TEST] [FILE]..."), "{help}");
}

#[test]
fn swapped_arguments_say_the_order_is_test_file() {
    let case = Case::new("prog.c", NEEDLE_SRC, "grep -q needle \"$1\"");
    let out = lopper_args(&["--lang".as_ref(), "c".as_ref(), case.program.as_os_str(), case.test.as_os_str()]);
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("in the order TEST FILE") && err.contains("test.sh looks like the test"), "{err}");
    assert!(!err.contains("chmod"), "{err}");
    assert_eq!(fs::read_to_string(&case.program).unwrap(), NEEDLE_SRC);
}

#[test]
fn a_test_that_is_a_directory_or_lacks_a_shebang_is_named_as_such() {
    let case = Case::new("a.c", NEEDLE_SRC, "exit 0");
    let out = lopper_args(&[case.dir.path().as_os_str(), case.program.as_os_str()]);
    assert_exit(&out, 4);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a directory") && !err.contains("does not exist"), "{err}");
    let bare = case.path("bare.sh");
    fs::write(&bare, "grep -q needle \"$1\"\n").unwrap();
    fs::set_permissions(&bare, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = lopper_args(&[bare.as_os_str(), case.program.as_os_str()]);
    assert_exit(&out, 4);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has no `#!` line") && err.contains("#!/bin/sh"), "{err}");
}

#[test]
fn languages_columns_line_up() {
    let out = lopper_args(&["languages".as_ref()]);
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert!(rows.len() >= 6, "{text}");
    // Every column starts at the same character in every row, header included.
    let header = rows[0];
    let starts: Vec<usize> = ["extensions", "found in", "location"].iter().map(|h| header.find(h).unwrap()).collect();
    for row in &rows[1..] {
        for &s in &starts {
            let chars: Vec<char> = row.chars().collect();
            assert!(chars[s - 1] == ' ' && chars[s - 2] == ' ' && chars[s] != ' ', "misaligned at {s}: {row:?}\n{text}");
        }
    }
}

#[test]
fn a_killed_test_leaves_no_temporary_directory_behind() {
    // The test makes its own temporary directory, then hangs: lopper kills it at the time
    // limit, before any cleanup of its own could run.
    // (`sleep 31`: the process-group test looks for any surviving `sleep 30`.)
    let case = Case::new("a.c", SRC, "d=$(mktemp -d) && echo x > \"$d/marker\" && sleep 31");
    let tmp = case.path("tmp");
    fs::create_dir(&tmp).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).env("TMPDIR", &tmp).args(["--timeout", "1"]).arg(&case.test).arg(&case.program).output().unwrap();
    assert_exit(&out, 7);
    let left: Vec<_> = fs::read_dir(&tmp).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_timed_out_test_gets_sigterm_first_so_its_own_cleanup_runs() {
    // The test makes a directory outside its TMPDIR and removes it in its TERM trap: with a
    // bare SIGKILL the trap could not run and the directory would stay.
    let case = Case::new("a.c", NEEDLE_SRC, "");
    let outside = case.path("scratch");
    write_script(
        &case.test,
        &format!(
            "d='{}'/run$$; mkdir -p \"$d\"\ntrap 'rm -rf \"$d\"' EXIT\ntrap 'exit 1' TERM\ngrep -q needle \"$1\" || exit 1\ncase \"$(cat \"$1\")\" in *'int a'*'int c'*) exit 0;; esac\nsleep 32",
            outside.display()
        ),
    );
    let out = case.lopper(&["--timeout", "1", "-j", "1", "--stats", case.path("s.json").to_str().unwrap()]);
    let stats: serde_json::Value = serde_json::from_str(&fs::read_to_string(case.path("s.json")).unwrap()).unwrap();
    assert!(stats["timeouts"].as_u64().unwrap() > 0, "{stats}");
    assert_exit(&out, 0);
    let left: Vec<_> = fs::read_dir(&outside).map(|d| d.map(|e| e.unwrap().file_name()).collect()).unwrap_or_default();
    assert!(left.is_empty(), "runs left {left:?}: their TERM trap did not run");
}

#[test]
fn a_launcher_runs_every_test_and_run_directories_go_to_the_work_dir() {
    let case = Case::new("a.c", NEEDLE_SRC, "grep -q needle \"$1\"");
    let (log, work) = (case.path("launched.log"), case.path("work"));
    fs::create_dir(&work).unwrap();
    // A launcher in the manner of `srun`: it logs where it runs, then runs the test.
    let launcher = case.path("launch.sh");
    write_script(&launcher, &format!("echo \"$PWD\" >> '{}'\nexec \"$@\"", log.display()));
    let stats = case.path("stats.json");
    let prefix = launcher.display().to_string();
    let out = case.lopper(&["-q", "-j", "3", "--no-cache", "--launcher", &prefix, "--work-dir", work.to_str().unwrap(), "--stats", stats.to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(reduced.contains("needle") && !reduced.contains("return 3"), "{reduced}");
    // Every run went through the launcher (the sanity runs, the tests, and speculative runs
    // past the winner, which are not counted as tests), each in a run directory under
    // --work-dir.
    let s: serde_json::Value = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    let counted = s["tests"].as_u64().unwrap() + s["sanity_runs"].as_u64().unwrap();
    let dirs: Vec<String> = fs::read_to_string(&log).unwrap().lines().map(String::from).collect();
    assert!(dirs.len() as u64 >= counted && counted > 3, "{} runs, {counted} counted", dirs.len());
    assert!(dirs.iter().all(|d| Path::new(d).starts_with(&work)), "{dirs:?}");
    // Nothing is left in the work dir.
    assert_eq!(fs::read_dir(&work).unwrap().count(), 0);
    // A launcher that cannot be split into words is a usage error.
    let out = case.lopper(&["--launcher", "srun 'unclosed"]);
    assert_exit(&out, 2);
}

#[test]
fn every_jobs_count_gives_the_same_result_and_counts_with_varied_test_times() {
    // Each candidate's test takes 0-80 ms depending on its size, so runs end out of order.
    let body = "n=$(wc -c < \"$1\"); sleep 0.0$((n % 9)); grep -q needle \"$1\"";
    let mut seen = Vec::new();
    for jobs in ["1", "2", "5"] {
        let case = Case::new("a.c", NEEDLE_SRC, body);
        let stats = case.path("stats.json");
        let out = case.lopper(&["-q", "--no-cache", "--passes", "perses,tokens,identifiers", "-j", jobs, "--stats", stats.to_str().unwrap()]);
        assert_exit(&out, 0);
        let s: serde_json::Value = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
        let counts: Vec<serde_json::Value> =
            ["tests", "candidates", "cache_hits", "presumed", "accepted", "tokens_after"].iter().map(|k| s[*k].clone()).collect();
        seen.push((fs::read_to_string(&case.program).unwrap(), counts));
        if jobs == "1" {
            // One test at a time wastes none.
            assert_eq!((s["cancelled_speculative_runs"].as_u64(), s["finished_speculative_runs_past_answer"].as_u64()), (Some(0), Some(0)));
        }
    }
    assert_eq!(seen[0], seen[1]);
    assert_eq!(seen[0], seen[2]);
}

#[test]
fn list_passes_and_passes_agree_with_the_registry() {
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).arg("--list-passes").output().unwrap();
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (passes, apart) = text.split_once("\n\n").expect("the passes, then the names counted apart");
    let first_words = |t: &str| t.lines().map(|l| l.split_whitespace().next().unwrap_or("").to_string()).collect::<Vec<_>>();
    let listed = first_words(passes);
    let registry: Vec<&str> = lopper_reduce::pipeline::REGISTRY.iter().map(|p| p.name).collect();
    assert_eq!(listed, registry);
    let apart: Vec<String> = first_words(apart).into_iter().skip(1).collect();
    // Every listed name is accepted by --passes; an unknown one is refused with the same list.
    let case = Case::new("a.c", SRC, "grep -q main \"$1\"");
    let stats = case.path("stats.json");
    let out = case.lopper(&["-q", "--no-cache", "--passes", &registry.join(","), "--stats", stats.to_str().unwrap()]);
    assert_exit(&out, 0);
    // Every name the summary and --stats count under is listed.
    let s: serde_json::Value = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    for name in s["passes"].as_object().unwrap().keys() {
        let base = name.split(':').next().unwrap();
        assert!(registry.contains(&base) || apart.iter().any(|a| a == base), "`{name}` is not listed: {apart:?}");
    }
    let out = case.lopper(&["-q", "--passes", "perses,nonesuch"]);
    assert_exit(&out, 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown pass `nonesuch`") && err.contains(&registry.join(", ")), "{err}");
}

#[test]
fn passes_run_in_the_order_given_and_a_plug_in_after_them() {
    // The test needs `main` and the call of `helper`; literals, identifiers and Perses each
    // have something to do, and the plug-in (at the end of the main group) records every
    // program it is given, then offers nothing.
    let src = "int helper(int value) { return value + 42; }\nint unused_one;\nint main(void) { return helper(7); }\n";
    let case = Case::new("a.c", src, "grep -q 'main' \"$1\" && grep -Eq '[a-z_]+\\([0-9]+\\)' \"$1\"");
    let log = case.path("seen");
    fs::create_dir(&log).unwrap();
    let plug_in = format!("cp {{file}} {}/$(date +%s%N).c; exit 1", log.display());
    let stats = case.path("stats.json");
    let out = case.lopper(&[
        "-q",
        "--no-cache",
        "-j",
        "1",
        "--passes",
        "literals,perses,identifiers",
        "--transform",
        &plug_in,
        "--stats",
        stats.to_str().unwrap(),
        "-o",
        case.path("out.c").to_str().unwrap(),
    ]);
    assert_exit(&out, 0);
    let json: serde_json::Value = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    let order: Vec<&str> = json["passes"].as_object().unwrap().keys().map(String::as_str).collect();
    // In the order first run: the original's test, then the passes as --passes gives them
    // (Perses' own as `list` and `replace`), then the plug-in.
    let at = |name: &str| order.iter().position(|p| *p == name).unwrap_or_else(|| panic!("{name} ran: {order:?}"));
    assert_eq!(order[0], "other", "{order:?}");
    assert!(at("literals") < at("list") && at("list") < at("identifiers") && at("identifiers") < at(&plug_in), "{order:?}");
    // The plug-in's first program already has the literals rewritten, Perses' deletions
    // made and the identifiers renamed: it ran after all three in that round.
    let mut seen: Vec<_> = fs::read_dir(&log).unwrap().map(|e| e.unwrap().path()).collect();
    seen.sort();
    let first = fs::read_to_string(&seen[0]).unwrap();
    assert!(!first.contains("42") && !first.contains("unused_one") && !first.contains("helper"), "{first}");
}

#[test]
fn memory_stays_flat_however_much_a_test_prints() {
    // 100 MB on standard output before the verdict, on every run; the pattern sees the end.
    let case = Case::new("a.c", SRC, "head -c 100000000 /dev/zero | tr '\\0' x; echo END; grep -q main \"$1\"");
    let stats = case.path("s.json");
    let mut child = case.command(&["-q", "--no-cache", "-j", "1", "--stdout-regex", "x{1000}END", "--stats", stats.to_str().unwrap()]).spawn().unwrap();
    let (status, peak_kib) = wait_with_peak_rss(&mut child);
    assert_eq!(status.code(), Some(0));
    // Reading whole outputs back took over 100 MB; a tail of 1 MiB per stream takes a few.
    assert!(peak_kib > 0 && peak_kib < 40 * 1024, "peak RSS {peak_kib} KiB");
    let s: serde_json::Value = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    assert!(s["tests"].as_u64().unwrap() >= 2 && s["tokens_after"].as_u64().unwrap() < s["tokens_before"].as_u64().unwrap(), "{s}");
}

#[test]
fn version_names_the_commit_and_the_built_in_grammars() {
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).arg("--version").output().unwrap();
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    let commit = text.split("(commit ").nth(1).and_then(|r| r.split([')', ' ']).next()).unwrap_or("");
    assert!(commit == "unknown" || commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit()), "{text}");
    for lang in lopper_parse::Language::ALL {
        let package = lang.grammar_package();
        assert!(package.starts_with("tree-sitter-") && package.rsplit('-').next().is_some_and(|v| v.contains('.')), "{package}");
        assert!(text.contains(package), "{text}");
    }
}

/// Every `--long` option the help of `args` (`lopper [SUBCOMMAND] --help`) lists.
fn long_options(args: &[&str]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).args(args).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    // Option lines start with `-x, --long` or `--long`; descriptions may name other commands' options.
    let mut found: Vec<String> = help
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| l.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).find(|w| w.starts_with("--") && w.len() > 2))
        .map(str::to_string)
        .collect();
    found.sort();
    found.dedup();
    assert!(found.len() > 3, "{help}");
    found
}

#[test]
fn completions_and_the_man_page_name_every_option() {
    let lopper = env!("CARGO_BIN_EXE_lopper");
    let options: Vec<String> = [long_options(&[]), long_options(&["generate"])].concat();
    // The bash script loads and registers lopper.
    let script = format!("source <({lopper} completions bash) && complete -p lopper");
    let out = Command::new("bash").arg("-c").arg(&script).output().unwrap();
    assert!(out.status.success() && String::from_utf8_lossy(&out.stdout).contains("_lopper"), "{}", String::from_utf8_lossy(&out.stderr));
    let bash = String::from_utf8_lossy(&Command::new(lopper).args(["completions", "bash"]).output().unwrap().stdout).into_owned();
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = Command::new(lopper).args(["completions", shell]).output().unwrap();
        assert!(out.status.success() && out.stdout.len() > 1000, "{shell}");
    }
    // The man page parses with groff without warnings, and names every option.
    let man = Command::new(lopper).arg("man").output().unwrap();
    assert_exit(&man, 0);
    let roff = String::from_utf8_lossy(&man.stdout).into_owned();
    if Command::new("sh").arg("-c").arg("command -v groff").output().is_ok_and(|o| o.status.success()) {
        let mut groff = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(groff.stdin.as_mut().unwrap(), roff.as_bytes()).unwrap();
        let out = groff.wait_with_output().unwrap();
        assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    // roff escapes `-` as `\-`.
    let plain = roff.replace("\\-", "-");
    for o in &options {
        assert!(bash.contains(o.as_str()), "bash completion lacks {o}");
        assert!(plain.contains(o.as_str()), "man page lacks {o}");
    }
}

#[test]
fn lopper_parse_prints_a_deeply_nested_tree() {
    // 20,000 nested arrays: the dump's indentation stops growing at 40 levels.
    let case = Case::new("deep.json", &("[".repeat(20_000) + &"]".repeat(20_000) + "\n"), "exit 0");
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).arg("parse").arg(&case.program).output().unwrap();
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[depth 19999]") && text.lines().last().unwrap().contains("40000 tokens"), "{}", &text[text.len().saturating_sub(300)..]);
    assert!(text.lines().all(|l| l.len() < 200));
}

#[test]
fn docs_cli_md_lists_exactly_the_options_of_help() {
    // The first option table of docs/cli.md (lopper TEST FILE) against `lopper --help`.
    let doc = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md")).unwrap();
    let table: Vec<&str> = doc.lines().skip_while(|l| !l.starts_with("| option | meaning |")).skip(2).take_while(|l| l.starts_with('|')).collect();
    let long = |text: &str| -> std::collections::BTreeSet<String> {
        let re = regex::Regex::new(r"--[a-z][a-z-]*").unwrap();
        re.find_iter(text).map(|m| m.as_str().to_string()).collect()
    };
    let documented: std::collections::BTreeSet<String> = table.iter().flat_map(|row| long(row.split('|').nth(1).unwrap_or(""))).collect();
    let help = Command::new(env!("CARGO_BIN_EXE_lopper")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let offered: std::collections::BTreeSet<String> =
        help.lines().filter(|l| l.trim_start().starts_with('-')).flat_map(|l| long(l.split("  ").find(|p| !p.trim().is_empty()).unwrap_or(""))).collect();
    let mut offered = offered;
    offered.remove("--help");
    offered.remove("--version");
    // C-Vise's spelling of -j is documented in the same row.
    let stale: Vec<&String> = documented.iter().filter(|o| !offered.contains(*o) && o.as_str() != "--n").collect();
    assert!(stale.is_empty(), "docs/cli.md documents {stale:?}, which --help does not offer");
    let missing: Vec<&String> = offered.iter().filter(|o| !documented.contains(*o)).collect();
    assert!(missing.is_empty(), "--help offers {missing:?}, which docs/cli.md's option table lacks");
}

#[test]
fn completions_offer_the_values_of_lang_passes_algorithm_and_minimizer() {
    let bash = Command::new(env!("CARGO_BIN_EXE_lopper")).args(["completions", "bash"]).output().unwrap();
    let bash = String::from_utf8_lossy(&bash.stdout).into_owned();
    let offered = |option: &str| -> String {
        let at = bash.find(&format!("{option})")).unwrap_or_else(|| panic!("{option} has no case"));
        bash[at..].lines().nth(1).unwrap_or("").to_string()
    };
    for lang in ["c", "cpp", "java", "javascript", "rust", "python", "go", "json"] {
        assert!(offered("--lang").split(['"', ' ']).any(|w| w == lang), "--lang: {}", offered("--lang"));
    }
    assert!(offered("--passes").contains("definitions") && offered("--passes").contains("perses"), "{}", offered("--passes"));
    assert!(offered("--algorithm").contains("hdd-fixpoint"), "{}", offered("--algorithm"));
    assert!(offered("--minimizer").contains("probdd"), "{}", offered("--minimizer"));
}

#[test]
fn the_help_names_every_pass_and_every_built_in_language_with_its_extensions() {
    let run = |args: &[&str]| {
        String::from_utf8(Command::new(env!("CARGO_BIN_EXE_lopper")).args(args).env("LOPPER_GRAMMARS", "/nonexistent").output().unwrap().stdout).unwrap()
    };
    let help = run(&["--help"]);
    let line = |flag: &str| help.lines().find(|l| l.trim_start().starts_with(flag)).unwrap_or_else(|| panic!("no {flag} in --help")).to_string();
    let passes = line("--passes");
    // The registry's passes: the rows before the blank line (the names counted apart follow).
    let listed = run(&["--list-passes"]);
    for p in listed.lines().take_while(|l| !l.trim().is_empty()).filter_map(|l| l.split_whitespace().next()) {
        assert!(passes.contains(p), "--passes' help lacks {p}: {passes}");
    }
    let lang = line("--lang");
    for row in run(&["languages"]).lines().filter(|l| !l.starts_with('#') && l.contains("built-in")) {
        let mut cells = row.split("  ").filter(|c| !c.trim().is_empty());
        let (name, exts) = (cells.next().unwrap().trim(), cells.next().unwrap().trim());
        assert!(lang.contains(&format!("{name} ({exts})")), "--lang's help lacks {name} ({exts}): {lang}");
    }
}
