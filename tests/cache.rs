//! The persistent verdict cache (issue 11): a repeated reduction re-tests nothing, a
//! corrupted store is reported and ignored, two processes share one store.

mod common;

use common::*;
use std::fs;
use std::process::Command;

const PROGRAM: &str = "int a(void) { return 1; }\nint b(void) { return needle(); }\nint c(void) { return 3; }\nint d(int x) { return x * 2; }\n";

fn stats(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn run(case: &Case, cache: &std::path::Path, out: &str, extra: &[&str]) -> (std::process::Output, serde_json::Value) {
    let (o, s) = (case.path(out), case.path(&format!("{out}.json")));
    let mut args = vec!["--cache-dir", cache.to_str().unwrap(), "-o", o.to_str().unwrap(), "--stats", s.to_str().unwrap()];
    args.extend_from_slice(extra);
    let output = case.lopper(&args);
    assert_exit(&output, 0);
    (output, stats(&s))
}

#[test]
fn an_identical_rerun_runs_no_test_beyond_the_sanity_checks() {
    let case = Case::new("a.c", PROGRAM, "grep -q needle \"$1\"");
    let cache = case.path("verdicts");
    let (_, first) = run(&case, &cache, "one.c", &[]);
    assert!(first["tests"].as_u64().unwrap() > 5, "{first}");
    assert_eq!(first["remembered"], 0);
    let (_, second) = run(&case, &cache, "two.c", &[]);
    // Only the two sanity runs on the original touch the test.
    assert_eq!(second["tests"], 0, "{second}");
    assert_eq!(second["sanity_runs"], 2, "{second}");
    // Every test of the first run is remembered but its replays (the same texts again).
    let first_candidates = first["tests"].as_u64().unwrap() - first["replays"].as_u64().unwrap();
    assert_eq!(second["remembered"].as_u64().unwrap(), first_candidates, "{second}");
    assert_eq!(fs::read_to_string(case.path("one.c")).unwrap(), fs::read_to_string(case.path("two.c")).unwrap());
    // --no-cache tests again.
    let (o, s) = (case.path("three.c"), case.path("three.json"));
    let out = case.lopper(&["--no-cache", "-o", o.to_str().unwrap(), "--stats", s.to_str().unwrap()]);
    assert_exit(&out, 0);
    let third = stats(&s);
    assert_eq!(third["tests"], first["tests"]);
    assert_eq!(third["remembered"], 0);
    // Another test (edited) is another identity: nothing remembered.
    write_script(&case.test, "grep -q needle \"$1\" && true");
    let (_, fourth) = run(&case, &cache, "four.c", &[]);
    assert_eq!(fourth["remembered"], 0, "{fourth}");
}

#[test]
fn a_corrupted_cache_is_reported_and_ignored() {
    let case = Case::new("a.c", PROGRAM, "grep -q needle \"$1\"");
    let cache = case.path("verdicts");
    fs::create_dir_all(&cache).unwrap();
    fs::write(cache.join("verdicts.sqlite3"), "this is not a database, just some bytes that are long enough to have a header\n".repeat(20)).unwrap();
    let (out, s) = run(&case, &cache, "out.c", &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: the verdict cache") && err.contains("going on without it"), "{err}");
    assert!(s["tests"].as_u64().unwrap() > 5);
    assert!(fs::read_to_string(case.path("out.c")).unwrap().contains("needle"));
}

#[test]
fn two_processes_share_one_cache() {
    let cache = tempfile::tempdir().unwrap();
    let cases: Vec<Case> = (0..2).map(|i| Case::new("a.c", &PROGRAM.replace("x * 2", &format!("x * {}", i + 2)), "grep -q needle \"$1\"")).collect();
    let children: Vec<_> = cases
        .iter()
        .map(|c| {
            Command::new(env!("CARGO_BIN_EXE_lopper"))
                .args(["-q", "-j", "1", "--cache-dir", cache.path().to_str().unwrap(), "-o", c.path("out.c").to_str().unwrap()])
                .arg(&c.test)
                .arg(&c.program)
                .spawn()
                .unwrap()
        })
        .collect();
    for (mut child, case) in children.into_iter().zip(&cases) {
        assert!(child.wait().unwrap().success());
        assert!(case.passes(&case.path("out.c")));
    }
}
