//! End to end: the `--events` stream of a real reduction (gcc as the oracle), and a binary
//! copied outside the source tree (issue 34).

mod common;
use common::*;
use lopper_parse::Language;
use serde_json::Value;
use std::fs;
use std::process::Command;

const PROGRAM: &str = "int unused_a(int x) { return x * 2; }\nstruct pair { int a; int b; };\nint helper(int q) { int t = q + 1; return t; }\nint main(void) {\n  struct pair p = {1, 2};\n  int k = helper(p.a) + p.b;\n  return k + undeclared_thing;\n}\n";
const TEST: &str = "LC_ALL=C gcc -fsyntax-only -x c \"$1\" 2>&1 | grep -q \"'undeclared_thing' undeclared\"\n";

#[test]
fn the_event_stream_follows_the_run_and_ends_with_the_stats() {
    require_tool("gcc");
    let case = Case::new("p.c", PROGRAM, TEST);
    let (events, stats) = (case.path("events.jsonl"), case.path("stats.json"));
    let out = case.lopper(&["-j", "2", "--events", events.to_str().unwrap(), "--stats", stats.to_str().unwrap()]);
    assert_exit(&out, 0);
    let text = fs::read_to_string(&events).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect();
    assert!(lines.iter().all(|l| l["version"] == 1), "{text}");
    let kinds: Vec<&str> = lines.iter().map(|l| l["event"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"start"), "{text}");
    assert_eq!(kinds.last(), Some(&"end"), "{text}");
    let start = &lines[0];
    assert_eq!(start["tokens"], tokens(Language::C, PROGRAM));
    assert_eq!(start["bytes"], PROGRAM.len());
    assert_eq!(start["language"], "c");
    assert_eq!(start["jobs"], 2);
    // The end event is the --stats object, field for field.
    let stats: Value = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    let mut end = lines.last().unwrap().as_object().unwrap().clone();
    end.remove("version");
    end.remove("event");
    assert_eq!(Value::Object(end), stats);
    // The new bests are the progress points, in order; tokens fall.
    let bests: Vec<&Value> = lines.iter().filter(|l| l["event"] == "new_best").collect();
    let points = stats["progress"].as_array().unwrap();
    assert!(!bests.is_empty());
    assert_eq!(bests.len(), points.len(), "{text}");
    for (b, p) in bests.iter().zip(points) {
        for k in ["seconds", "tokens", "bytes"] {
            assert_eq!(b[k], p[k], "{k}: {b} vs {p}");
        }
    }
    assert_eq!(bests.last().unwrap()["tokens"], stats["tokens_after"]);
    // Each pass's last `pass` event holds its counts in --stats.
    for (name, counts) in stats["passes"].as_object().unwrap() {
        let last = lines.iter().rev().find(|l| l["event"] == "pass" && l["pass"] == name.as_str()).unwrap_or_else(|| panic!("no pass event for {name}"));
        assert_eq!(last["tests"], counts["tests"], "{name}");
        assert_eq!(last["accepted"], counts["accepted"], "{name}");
    }
}

#[test]
fn events_to_stdout_apart_from_the_log_and_a_failed_run_ends_with_an_error_event() {
    require_tool("gcc");
    // Not interesting: the test never passes; the stream says why, with the exit code.
    let case = Case::new("p.c", PROGRAM, "exit 1\n");
    let out = case.lopper(&["-q", "--events", "-"]);
    assert_exit(&out, 5);
    // The sanity runs fail: the stream holds one event, the error, with the exit code; it
    // is all of stdout, and the log (stderr) holds no JSON.
    let err = String::from_utf8_lossy(&out.stdout);
    assert!(!String::from_utf8_lossy(&out.stderr).contains('{'), "{}", String::from_utf8_lossy(&out.stderr));
    let events: Vec<Value> = err.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events.len(), 1, "{err}");
    assert_eq!(events[0]["event"], "error");
    assert_eq!(events[0]["code"], 5);
    assert!(events[0]["message"].as_str().unwrap().contains("not interesting"), "{err}");
}

#[test]
fn a_binary_copied_outside_the_tree_reduces_with_built_in_languages_only() {
    require_tool("gcc");
    let case = Case::new("p.c", PROGRAM, TEST);
    let bin = case.path("lopper");
    fs::copy(env!("CARGO_BIN_EXE_lopper"), &bin).unwrap();
    let home = case.path("home");
    fs::create_dir(&home).unwrap();
    // No grammars directory anywhere it looks: a fresh HOME and config dir, no LOPPER_GRAMMARS.
    let run = |args: &[&str]| {
        Command::new(&bin)
            .current_dir(case.dir.path())
            .env_remove("LOPPER_GRAMMARS")
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("LOPPER_CACHE", case.path("cache"))
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["languages"]);
    assert_exit(&out, 0);
    let listing = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = listing.lines().skip(1).filter(|l| !l.starts_with('#')).collect();
    assert_eq!(rows.len(), 11, "{listing}");
    assert!(rows.iter().all(|r| r.contains("built-in")), "{listing}");
    assert!(listing.contains("the built-in languages only"), "{listing}");
    let out = run(&["-q", "--no-cache", case.test.to_str().unwrap(), case.program.to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    assert!(tokens(Language::C, &reduced) < tokens(Language::C, PROGRAM) / 2, "{reduced}");
}

#[test]
fn events_or_stats_naming_the_input_or_the_test_are_refused_before_any_test() {
    let case = Case::new("p.c", PROGRAM, "touch \"$(dirname \"$0\")/ran\"; exit 0\n");
    for (option, path, what) in [("--events", &case.program, "the input file"), ("--stats", &case.test, "the interestingness test")] {
        let out = case.lopper(&[option, path.to_str().unwrap()]);
        assert_exit(&out, 8);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(option) && err.contains(what), "{err}");
    }
    let out = case.lopper(&["-o", case.path("out.c").to_str().unwrap(), "--events", case.path("out.c").to_str().unwrap()]);
    assert_exit(&out, 8);
    assert!(String::from_utf8_lossy(&out.stderr).contains("the -o output"));
    assert_eq!(fs::read_to_string(&case.program).unwrap(), PROGRAM);
    assert!(!case.path("ran").exists(), "no test may run");
}
