//! End to end: results a user can trust — a flaky test caught (the input left as it was), a
//! trivial result reported, a runaway test stopped by the memory limit, a binary file
//! refused, the live line shown while the original is tested.

mod common;
use common::*;
use std::fs;

const PROGRAM: &str = "int main(void) {\n  int keep = 1;\n  int a = 2;\n  int b = 3;\n  return keep + a + b;\n}\n";

#[test]
fn a_test_that_says_yes_at_random_ends_flaky_with_the_input_untouched() {
    // A seeded coin per run (a counter in the case's folder; -j 1 keeps the order), so
    // every outcome of this test is reproducible.
    for seed in 0..8 {
        let case = Case::new(
            "p.c",
            PROGRAM,
            &format!("c=\"$(dirname \"$0\")/counter\"; n=$(cat \"$c\" 2>/dev/null || echo {seed}); echo $((n + 1)) > \"$c\"\n[ $(( (n * 1103515245 + 12345) / 65536 % 2 )) -eq 0 ]"),
        );
        let out = case.lopper(&["-q", "-j", "1", "--no-cache"]);
        assert_exit(&out, 6);
        assert_eq!(fs::read_to_string(&case.program).unwrap(), PROGRAM, "seed {seed}: the input is as it was");
    }
}

#[test]
fn a_test_that_accepts_anything_is_reported_as_trivial() {
    let case = Case::new("p.c", PROGRAM, "exit 0");
    let out = case.lopper(&["--no-cache"]);
    assert_exit(&out, 9);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the result is empty") && err.contains("--allow-trivial"), "{err}");
    assert_eq!(fs::read_to_string(&case.program).unwrap(), PROGRAM);
    // The original is back, with no backup of it left beside it.
    assert!(!case.path("p.c.orig").exists());
    // Unless the user says it is expected.
    let out = case.lopper(&["-q", "--no-cache", "--allow-trivial"]);
    assert_exit(&out, 0);
    assert_eq!(fs::read_to_string(&case.program).unwrap().trim(), "");
}

#[test]
fn a_test_that_allocates_without_end_is_stopped_by_the_memory_limit() {
    require_tool("python3");
    // Interesting while `keep` is there; without `guard` the test tries to take 10 GiB,
    // which the limit makes fail, so `guard` must stay.
    let src = "int main(void) { int keep = 1; int guard = 2; int other = 3; return keep + guard + other; }\n";
    let case = Case::new("p.c", src, "grep -q keep \"$1\" || exit 1\ngrep -q guard \"$1\" && exit 0\npython3 -c 'b = bytearray(10 << 30)' 2>/dev/null");
    let mut child = case.command(&["-q", "--no-cache", "--memory-limit", "1024"]).spawn().unwrap();
    let (status, peak_kib) = wait_with_peak_rss(&mut child);
    assert_eq!(status.code(), Some(0));
    assert!(peak_kib > 0 && peak_kib < 256 * 1024, "lopper itself stays small while its tests are stopped: {peak_kib} KiB");
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(reduced.contains("keep") && reduced.contains("guard") && !reduced.contains("other"), "{reduced}");
}

#[test]
fn a_binary_file_is_refused_with_a_message_naming_lang() {
    let case = Case::new("true.c", "\x7fELF\0\0\0binary", "exit 0");
    let out = case.lopper(&["--no-cache"]);
    assert_exit(&out, 3);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not text") && err.contains("--lang"), "{err}");
}

#[test]
fn the_live_line_shows_while_the_original_is_still_being_tested() {
    require_tool("script");
    // The first sanity run takes 30 s; lopper is interrupted after 6 s, so whatever the
    // terminal showed, it showed while the original was still being tested.
    let case = Case::new("p.c", PROGRAM, "sleep 30; grep -q keep \"$1\"");
    let cmd = format!(
        "LOPPER_CACHE={} timeout -s INT 6 {} --no-cache {} {}",
        case.path("cache").display(),
        env!("CARGO_BIN_EXE_lopper"),
        case.test.display(),
        case.program.display()
    );
    // `script` gives lopper a terminal, as a user at a shell has.
    let out = std::process::Command::new("script").args(["-qec", &cmd, "/dev/null"]).output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout);
    assert!(screen.contains("testing the original: 2 runs, time limit"), "{screen}");
    assert!(screen.contains("interrupted"), "{screen}");
    assert_eq!(fs::read_to_string(&case.program).unwrap(), PROGRAM);
}

#[test]
fn a_text_file_of_an_unknown_kind_is_reduced_by_lines() {
    let case = Case::new("notes.xyz", "alpha\nbeta KEEP me\ngamma\ndelta\n", "grep -q KEEP \"$1\"");
    let stats = case.path("stats.json");
    let out = case.lopper(&["-q", "--no-cache", "--stats", stats.to_str().unwrap()]);
    assert_exit(&out, 0);
    let s: serde_json::Value = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(s["language"], "text");
    // The line the test needs, whole; the others gone.
    assert_eq!(fs::read_to_string(&case.program).unwrap(), "beta KEEP me\n");
}

/// A seeded pseudo-random answer for the `n`-th run (a counter in the case's folder; -j 1
/// keeps the order): about `no_if_below` of every 5 runs say no.
fn seeded_coin(seed: u32, no_if_below: u32) -> String {
    format!(
        "c=\"$(dirname \"$0\")/counter\"; n=$(cat \"$c\" 2>/dev/null || echo {seed}); echo $((n + 1)) > \"$c\"\nr=$(( (n * 1103515245 + 12345) / 65536 % 5 ))\n[ $r -lt {no_if_below} ] && exit 1\n"
    )
}

#[test]
fn a_result_that_cannot_stand_leaves_no_file_at_the_output_path() {
    // With -o, a file there would pass for a result (it held the best so far).
    let case = Case::new("p.c", PROGRAM, "exit 0");
    let out_path = case.path("out.c");
    let out = case.lopper(&["--no-cache", "-o", out_path.to_str().unwrap()]);
    assert_exit(&out, 9);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no result:") && err.contains("is removed"), "{err}");
    assert!(!out_path.exists());
    assert_eq!(fs::read_to_string(&case.program).unwrap(), PROGRAM);
}

#[test]
fn a_coin_flip_test_on_the_shipped_example_never_ends_in_a_result() {
    // Where 1 run in 10 ended "done" before: the replays' evidence decides (Wald's test).
    let program = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/c-gcc-diagnostic/program.c")).unwrap();
    for seed in 0..2 {
        // 2 or 3 of 5 say no: a coin, slightly unfair either way.
        let case = Case::new("program.c", &program, &format!("{}exit 0", seeded_coin(seed * 7919, 2 + seed % 2)));
        let out = case.lopper(&["-j", "1", "--no-cache"]);
        assert_exit(&out, 6);
        assert_eq!(fs::read_to_string(&case.program).unwrap(), program, "seed {seed}: the input is as it was");
        // The search stopped once the replays decided (Wald's test), not after the whole
        // search (1,700 runs of the test before).
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("the test answers at random"), "{err}");
        let runs: usize = fs::read_to_string(case.path("counter")).unwrap().trim().parse().unwrap();
        assert!(runs - (seed * 7919) as usize <= 100, "seed {seed}: {runs} runs of the test");
    }
}

#[test]
fn a_crash_that_shows_four_times_in_five_still_reduces() {
    require_tool("gcc");
    let program = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/c-gcc-diagnostic/program.c")).unwrap();
    let property = "LC_ALL=C gcc -c -o /dev/null \"$1\" 2>&1 | grep -q \"incompatible types when assigning to type 'int' from type 'struct item'\"";
    for seed in 0..1 {
        let case = Case::new("program.c", &program, &format!("{}{property}", seeded_coin(seed * 104729 + 1, 1)));
        let out_path = case.path("out.c");
        let out = case.lopper(&["-q", "-j", "1", "--no-cache", "-o", out_path.to_str().unwrap()]);
        assert_exit(&out, 0);
        let result = fs::read_to_string(&out_path).unwrap();
        assert!(result.len() < program.len() / 3, "seed {seed}: {result}");
        let check = std::process::Command::new("sh").arg("-c").arg(property).arg("sh").arg(&out_path).status().unwrap();
        assert!(check.success(), "seed {seed}: the result lost the property:\n{result}");
    }
}
