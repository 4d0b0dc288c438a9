//! End to end: lopper never loses the user's file. Each test is a repro from issue 12: the
//! original's bytes survive somewhere the message names, or lopper refuses before touching
//! anything.

mod common;
use common::*;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/c-gcc-diagnostic").join(name)
}

/// The shipped example (a gcc diagnostic) copied into a case directory as `name`.
fn example_case(name: &str) -> Case {
    require_tool("gcc");
    let case = Case::new(name, &fs::read_to_string(example("program.c")).unwrap(), "exit 0");
    fs::copy(example("test.sh"), &case.test).unwrap();
    case
}

fn run(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lopper")).args(args).output().unwrap()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn output_naming_the_input_is_refused_before_any_test() {
    let case = example_case("same.c");
    let original = fs::read(&case.program).unwrap();
    // The test records every run: a refusal must come before the first.
    let runs = case.path("runs");
    fs::write(&case.test, format!("#!/bin/sh\necho run >> {}\n{}", runs.display(), fs::read_to_string(example("test.sh")).unwrap())).unwrap();
    std::os::unix::fs::symlink(&case.program, case.path("link.c")).unwrap();
    fs::hard_link(&case.program, case.path("hard.c")).unwrap();
    for out_name in [case.program.clone().into_os_string(), "same.c".into(), case.path("link.c").into_os_string(), case.path("hard.c").into_os_string()] {
        let out =
            Command::new(env!("CARGO_BIN_EXE_lopper")).current_dir(case.dir.path()).arg("-o").arg(&out_name).arg(&case.test).arg("same.c").output().unwrap();
        assert_exit(&out, 8);
        let err = stderr(&out);
        assert!(err.contains("is the input file itself") && err.contains("Leave out -o"), "{err}");
        assert_eq!(fs::read(&case.program).unwrap(), original, "-o {out_name:?} changed the input");
        assert!(!case.path("same.c.orig").exists());
        assert!(!runs.exists(), "a test ran before the refusal");
    }
    // -o naming the test script is refused too, and the script survives.
    let script = fs::read(&case.test).unwrap();
    let out = run(&["-o".as_ref(), case.test.as_os_str(), case.test.as_os_str(), case.program.as_os_str()]);
    assert_exit(&out, 8);
    assert!(stderr(&out).contains("is the interestingness test itself"), "{}", stderr(&out));
    assert_eq!(fs::read(&case.test).unwrap(), script);
}

#[test]
fn a_stale_orig_is_never_trusted_and_the_new_original_survives() {
    let case = example_case("p.c");
    let original = fs::read_to_string(&case.program).unwrap();
    let stale = "int old(void){return 1;}\n";
    fs::write(case.path("p.c.orig"), stale).unwrap();
    let out = case.lopper(&[]);
    assert_exit(&out, 0);
    let err = stderr(&out);
    assert!(err.contains("p.c.orig holds another program") && err.contains("p.c.orig.1"), "{err}");
    assert!(err.contains("(original: ") && err.contains("p.c.orig.1)"), "the summary names the backup: {err}");
    assert_eq!(fs::read_to_string(case.path("p.c.orig")).unwrap(), stale, "the stale file is left alone");
    assert_eq!(fs::read_to_string(case.path("p.c.orig.1")).unwrap(), original, "the new original is kept");
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(reduced.len() < original.len() && case.passes(&case.program));
    // Resuming on the reduced file trusts the backup this run made and makes no other.
    let out = case.lopper(&[]);
    assert_exit(&out, 0);
    assert!(stderr(&out).contains("keeping the existing") && stderr(&out).contains("p.c.orig.1"), "{}", stderr(&out));
    assert!(!case.path("p.c.orig.2").exists());
    // A program that is not a reduction of either backup gets the next name.
    let other = "struct item { int x; };\nint main(void) { int i; struct item s; i = s; return i; }\n";
    fs::write(&case.program, other).unwrap();
    let out = case.lopper(&["-q"]);
    assert_exit(&out, 0);
    assert_eq!(fs::read_to_string(case.path("p.c.orig.2")).unwrap(), other);
    assert_eq!(fs::read_to_string(case.path("p.c.orig.1")).unwrap(), original);
}

#[test]
fn in_place_and_output_files_keep_the_mode() {
    let case = Case::new("m.c", "int a(void) { return 1; }\nint b(void) { return needle(); }\n", "grep -q needle \"$1\"");
    fs::set_permissions(&case.program, fs::Permissions::from_mode(0o640)).unwrap();
    let out = case.lopper(&["-q"]);
    assert_exit(&out, 0);
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert!(!fs::read_to_string(&case.program).unwrap().contains("return 1"));
    assert_eq!((mode(&case.program), mode(&case.path("m.c.orig"))), (0o640, 0o640));
    // A new -o file gets the input's mode; an existing one keeps its own.
    let new = case.path("new.c");
    let out = case.lopper(&["-q", "-o", new.to_str().unwrap()]);
    assert_exit(&out, 0);
    assert_eq!(mode(&new), 0o640);
    fs::set_permissions(&new, fs::Permissions::from_mode(0o600)).unwrap();
    let out = case.lopper(&["-q", "-o", new.to_str().unwrap()]);
    assert_exit(&out, 0);
    assert_eq!(mode(&new), 0o600);
}

#[test]
fn unusable_output_paths_are_named_before_any_test() {
    let case = Case::new("a.c", "int main(void) { return 0; }\n", "touch \"$(dirname \"$0\")/ran\"");
    let missing = case.path("no/such/dir/out.c");
    let out = case.lopper(&["-o", missing.to_str().unwrap()]);
    assert_exit(&out, 8);
    let err = stderr(&out);
    assert!(err.contains(&case.path("no/such/dir").display().to_string()) && err.contains("no such directory"), "{err}");
    let out = case.lopper(&["--stats", missing.to_str().unwrap()]);
    assert_exit(&out, 8);
    let out = case.lopper(&["-o", case.dir.path().to_str().unwrap()]);
    assert_exit(&out, 8);
    assert!(stderr(&out).contains("is a directory"), "{}", stderr(&out));
    assert!(!case.path("ran").exists(), "no test may run before the output is known to be writable");
}

#[test]
fn an_output_that_is_a_device_is_written_into_not_replaced() {
    // `-o /dev/null` and `--stats /dev/zero` (here through links, so that a failure breaks
    // no machine): a rename over the path would have put a regular file where the device was.
    let case = Case::new("a.c", "int a(void) { return 1; }\nint b(void) { return 2; }\n", "grep -q 'return 2' \"$1\"");
    let (out_link, stats_link) = (case.path("out.c"), case.path("stats.json"));
    std::os::unix::fs::symlink("/dev/null", &out_link).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &stats_link).unwrap();
    let out = case.lopper(&["-q", "-o", out_link.to_str().unwrap(), "--stats", stats_link.to_str().unwrap()]);
    assert_exit(&out, 0);
    for link in [&out_link, &stats_link] {
        assert!(fs::symlink_metadata(link).unwrap().file_type().is_symlink(), "{} was replaced", link.display());
    }
    use std::os::unix::fs::FileTypeExt;
    for device in ["/dev/null", "/dev/zero"] {
        assert!(fs::metadata(device).unwrap().file_type().is_char_device(), "{device} is no longer a device");
    }
}

#[test]
fn the_reproduce_command_quotes_paths_and_works_when_pasted() {
    let case = Case::new("my prog.c", "int main(void) { return 0; }\n", "echo \"checked $1\"; exit 1");
    let out = case.lopper(&[]);
    assert_exit(&out, 5);
    let err = stderr(&out);
    let line = err.lines().find(|l| l.trim_start().starts_with("reproduce: ")).expect("a reproduce line");
    let cmd = line.trim_start().trim_start_matches("reproduce: ");
    assert!(cmd.contains("'"), "paths with spaces are quoted: {cmd}");
    // Pasted with a private temp dir: the run's directory must be gone afterwards.
    let tmp = case.path("tmp");
    fs::create_dir(&tmp).unwrap();
    let pasted = Command::new("sh").arg("-c").arg(cmd).env("TMPDIR", &tmp).output().unwrap();
    let said = String::from_utf8_lossy(&pasted.stdout);
    assert!(said.contains("checked ") && said.contains("/my prog.c") && said.contains("exit 1"), "{said}");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0, "the reproduce command left its directory behind");
}

#[test]
fn crlf_input_comes_back_with_crlf_line_endings_only() {
    let src = "int a(void) { return 1; }\r\n\r\nint b(void) { return needle(); }\r\n  int c(void) { return 3; }\r\n\r\nint d(void) { return 4; }\r\nint e(void) { return 5; }\r\n";
    let case = Case::new("crlf.c", src, "grep -q needle \"$1\" && grep -q 'return 4' \"$1\"");
    let out = case.lopper(&["-q"]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(reduced.len() < src.len() && reduced.contains("\r\n"), "{reduced:?}");
    assert!(!reduced.replace("\r\n", "").contains('\n'), "a bare LF in {reduced:?}");
}

/// A tmpfs of `kib` KiB mounted at a fresh directory (root only), unmounted on drop.
struct TinyDisk(tempfile::TempDir);

impl TinyDisk {
    fn mount(kib: usize) -> Option<TinyDisk> {
        let dir = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(TinyDisk(dir))
    }
}

impl Drop for TinyDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(self.0.path()).status();
    }
}

#[test]
fn a_full_disk_leaves_no_partial_backup_and_the_input_intact() {
    // Mounting needs root (CI and this project's machines run as root).
    let Some(disk) = TinyDisk::mount(64) else {
        let uid = Command::new("id").arg("-u").output().unwrap().stdout;
        assert_ne!(String::from_utf8_lossy(&uid).trim(), "0", "root could not mount a tmpfs");
        eprintln!("skipped: mounting a tmpfs needs root");
        return;
    };
    // A 36 KiB program on a 64 KiB disk: it fits, its backup does not.
    let program: String = (0..3000).map(|i| format!("int v{i:05};\n")).collect::<String>() + "int main(void) { return 0; }\n";
    let file = disk.0.path().join("big.c");
    fs::write(&file, &program).unwrap();
    let case = Case::new("unused.c", "", "grep -q main \"$1\"");
    let out = Command::new(env!("CARGO_BIN_EXE_lopper"))
        .env("LOPPER_CACHE", case.path("cache"))
        .args(["-q", "--no-cache"])
        .arg(&case.test)
        .arg(&file)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // An I/O failure: exit 1, naming the file and why.
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write") && err.contains("big.c.orig") && err.contains("No space left"), "{err}");
    // No empty or partial backup, no temporary file, and the input as it was.
    let left: Vec<String> = fs::read_dir(disk.0.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, ["big.c"], "{left:?}");
    assert_eq!(fs::read_to_string(&file).unwrap(), program);
    // The temporary directory on that full disk: the test cannot be given its candidate,
    // which is no fault of the test's (exit 1, not 4), and nothing is left there.
    let elsewhere = case.path("big.c");
    fs::write(&elsewhere, &program).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lopper"))
        .env("LOPPER_CACHE", case.path("cache"))
        .env("TMPDIR", disk.0.path())
        .args(["-q", "--no-cache"])
        .arg(&case.test)
        .arg(&elsewhere)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left"), "{err}");
    let left: Vec<String> = fs::read_dir(disk.0.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left, ["big.c"], "{left:?}");
    assert_eq!(fs::read_to_string(&elsewhere).unwrap(), program);
}

#[test]
fn a_second_in_place_run_on_the_same_file_is_refused_while_the_first_runs() {
    // The first run's test takes a while on every candidate.
    let case = Case::new("a.c", "int unused_one;\nint main(void) { return 0; }\n", "sleep 0.5; grep -q main \"$1\"");
    let first = Command::new(env!("CARGO_BIN_EXE_lopper"))
        .env("LOPPER_CACHE", case.path("cache"))
        .args(["-q", "--no-cache", "-j", "1", "--passes", "perses"])
        .arg(&case.test)
        .arg(&case.program)
        .spawn()
        .unwrap();
    // Once it holds the lock.
    let lock = case.path(".a.c.lopper-lock");
    let t = std::time::Instant::now();
    while !fs::read_to_string(&lock).is_ok_and(|s| !s.is_empty()) && t.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = case.lopper(&["-q", "--no-cache"]);
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(8), "{err}");
    assert!(err.contains("being reduced in place by another lopper") && err.contains(&format!("pid {}", first.id())), "{err}");
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program) && !reduced.contains("unused_one"), "{reduced}");
    // The lock went with the run; a later run on the file goes ahead.
    assert!(!lock.exists());
    assert_exit(&case.lopper(&["-q", "--no-cache", "--passes", "perses"]), 0);
}

#[test]
fn after_kill_9_one_directory_is_left_and_the_next_run_removes_it() {
    let case = Case::new("a.c", "int unused_one;\nint main(void) { return 0; }\n", "sleep 0.3; grep -q main \"$1\"");
    let tmp = case.path("tmp");
    fs::create_dir(&tmp).unwrap();
    let lopper = |args: &[&str]| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_lopper"));
        c.env("LOPPER_CACHE", case.path("cache")).env("TMPDIR", &tmp).args(args).arg(&case.test).arg(&case.program);
        c
    };
    let mut first = lopper(&["-q", "--no-cache", "-j", "1", "-o", case.path("out.c").to_str().unwrap()]).spawn().unwrap();
    // Killed while a test runs (the sanity runs take 0.6 s).
    std::thread::sleep(std::time::Duration::from_millis(400));
    first.kill().unwrap();
    first.wait().unwrap();
    let left: Vec<_> = fs::read_dir(&tmp).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(left.len(), 1, "one directory for the killed run: {left:?}");
    assert!(left[0].starts_with("lopper-run-"), "{left:?}");
    // The next run removes it, says so, and leaves nothing of its own.
    let out = lopper(&["--no-cache", "--passes", "perses", "-o", case.path("out.c").to_str().unwrap()]).output().unwrap();
    assert_exit(&out, 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("removed 1 temporary directory"), "{err}");
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0, "{:?}", fs::read_dir(&tmp).unwrap().map(|e| e.unwrap().file_name()).collect::<Vec<_>>());
}

#[test]
fn a_hundred_thousand_nested_parentheses_reduce_without_a_stack_overflow() {
    // Compiler stack-overflow bugs are found with such inputs; the conversion of the
    // parse tree recurses per level (on a grown stack, not the main thread's 8 MiB).
    let depth = 100_000;
    let src = format!("int main(void) {{ return {}1{}; }}\n", "(".repeat(depth), ")".repeat(depth));
    let case = Case::new("deep.c", &src, "grep -q return \"$1\"");
    let out = Command::new(env!("CARGO_BIN_EXE_lopper"))
        .env("LOPPER_CACHE", case.path("cache"))
        .args(["-q", "--no-cache", "--passes", "perses", "-o", case.path("out.c").to_str().unwrap()])
        .arg(&case.test)
        .arg(&case.program)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let result = fs::read_to_string(case.path("out.c")).unwrap();
    assert!(result.contains("return") && !result.contains('('), "{result}");
}

#[test]
fn a_million_nested_json_brackets_are_refused_in_one_short_line() {
    // pest recurses per level and gives up where the stack ends: exit 3 with the position
    // and pest's message, not the 2,000,000-character line.
    let depth = 1_000_000;
    let src = format!("{}{}\n", "[".repeat(depth), "]".repeat(depth));
    let case = Case::new("deep.json", &src, "grep -q '\\[\\[' \"$1\"");
    let out = case.lopper(&["--no-cache"]);
    assert_exit(&out, 3);
    let err = stderr(&out);
    assert!(err.len() < 300, "{}", &err[..err.len().min(600)]);
    assert!(err.contains("stack limit reached") && err.contains(" --> 1:"), "{err}");
    assert_eq!(fs::read_to_string(&case.program).unwrap(), src, "the input is untouched");
}
