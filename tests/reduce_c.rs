//! End to end: reduce C programs with a real gcc oracle.

mod common;
use common::*;
use lopper_parse::Language;
use std::fs;

const EXAMPLE: &str = include_str!("../examples/c-gcc-diagnostic/program.c");
const EXAMPLE_TEST: &str = include_str!("../examples/c-gcc-diagnostic/test.sh");

#[test]
fn the_shipped_example_reduces_in_place_and_keeps_the_original() {
    require_tool("gcc");
    let case = Case::new("program.c", EXAMPLE, EXAMPLE_TEST.trim_start_matches("#!/bin/sh\n"));
    assert!(case.passes(&case.program));
    // Perses alone: its own counts (no candidate with syntax errors is even generated).
    let out = case.lopper(&["--passes", "perses", "--stats", case.path("stats.json").to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "the result must still be interesting:\n{reduced}");
    assert_eq!(fs::read_to_string(case.path("program.c.orig")).unwrap(), EXAMPLE);
    let before = tokens(Language::C, EXAMPLE);
    let after = tokens(Language::C, &reduced);
    // Measured: 507 -> 45 tokens.
    assert!(after <= 45, "{before} -> {after} tokens:\n{reduced}");
    assert!(reduced.contains("count = inv->items[idx]") || reduced.contains("items["), "{reduced}");
    let stats: serde_json::Value = serde_json::from_str(&fs::read_to_string(case.path("stats.json")).unwrap()).unwrap();
    assert_eq!(stats["tokens_before"], before);
    assert_eq!(stats["tokens_after"], after);
    assert_eq!(stats["invalid_candidates"], 0);
    // Per pass: tests add up, each pass's test time is within its wall time, passes within
    // the whole run.
    let p = &stats["passes"];
    let f = |v: &serde_json::Value| v.as_f64().unwrap();
    let tests: u64 = ["list", "replace", "other"].iter().map(|k| p[k]["tests"].as_u64().unwrap()).sum();
    assert_eq!(tests, stats["tests"].as_u64().unwrap());
    assert!(p["list"]["tests"].as_u64().unwrap() > 0 && p["replace"]["tests"].as_u64().unwrap() > 0, "{p}");
    for k in ["list", "replace", "other"] {
        assert!(f(&p[k]["test_seconds"]) <= f(&p[k]["seconds"]) + 1e-3, "{k}: {p}");
    }
    let wall: f64 = ["list", "replace", "other"].iter().map(|k| f(&p[k]["seconds"])).sum();
    assert!(wall <= f(&stats["total_seconds"]) + 1e-3 && wall >= 0.9 * f(&stats["total_seconds"]), "{p}");
    let summary = String::from_utf8_lossy(&out.stderr);
    assert!(summary.contains(&format!("{before} -> {after}")), "{summary}");
}

#[test]
fn output_flag_leaves_the_input_alone() {
    require_tool("gcc");
    let src = "int unused(int a) { return a * 2; }\nint main(void) { int x = 1; undeclared_fn(x); return 0; }\nint other(void) { return 3; }\n";
    let case = Case::new(
        "m.c",
        src,
        "LC_ALL=C gcc -c -Werror=implicit-function-declaration -o /dev/null \"$1\" 2>&1 | grep -q \"implicit declaration of function 'undeclared_fn'\"",
    );
    let dest = case.path("small.c");
    let out = case.lopper(&["-q", "-o", dest.to_str().unwrap()]);
    assert_exit(&out, 0);
    assert!(out.stderr.is_empty(), "-q prints nothing on success");
    assert_eq!(fs::read_to_string(&case.program).unwrap(), src);
    assert!(!case.path("m.c.orig").exists());
    let reduced = fs::read_to_string(&dest).unwrap();
    assert!(case.passes(&dest));
    // Measured: 43 -> 11 tokens (`int main(void) { undeclared_fn(); }`).
    assert!(tokens(Language::C, &reduced) <= 11, "{reduced}");
}

#[test]
fn one_job_and_two_jobs_give_the_same_bytes() {
    require_tool("gcc");
    let mut outs = Vec::new();
    for jobs in ["1", "2"] {
        let case = Case::new("program.c", EXAMPLE, EXAMPLE_TEST.trim_start_matches("#!/bin/sh\n"));
        let stats = case.path("stats.json");
        let out = case.lopper(&["-q", "-j", jobs, "--stats", stats.to_str().unwrap()]);
        assert_exit(&out, 0);
        let s: serde_json::Value = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
        outs.push((fs::read_to_string(&case.program).unwrap(), s["tests"].clone(), s["candidates"].clone()));
    }
    assert_eq!(outs[0], outs[1]);
}

/// Reduces `program` (as program.c) under the test script body `test` with `-q` and
/// `args`: the result, checked to exit 0, pass its test and parse without syntax errors,
/// and the `--stats` JSON.
fn reduced_with(program: &str, test: &str, args: &[&str]) -> (String, serde_json::Value) {
    let case = Case::new("program.c", program, test);
    let stats = case.path("stats.json");
    let out = case.lopper(&[&["-q", "--stats", stats.to_str().unwrap()], args].concat());
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "the result must still be interesting:\n{reduced}");
    assert_eq!(lopper_parse::Frontend::new(Language::C).unwrap().syntax_errors(&reduced).unwrap(), 0, "{reduced}");
    (reduced, serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap())
}

#[test]
fn the_default_pipeline_ends_smaller_than_perses_alone() {
    require_tool("gcc");
    let mut results = Vec::new();
    for passes in ["perses", "perses,subtrees,tokens,identifiers,literals"] {
        let (reduced, s) = reduced_with(EXAMPLE, EXAMPLE_TEST.trim_start_matches("#!/bin/sh\n"), &["--passes", passes]);
        results.push((tokens(Language::C, &reduced), reduced.len(), s));
    }
    let ((t1, b1, _), (t2, b2, s2)) = (&results[0], &results[1]);
    // Measured: 45 tokens / 138 bytes with Perses, 43 tokens / 98 bytes with every pass.
    assert!(t2 <= t1 && b2 < b1, "perses {t1} tokens {b1} bytes, all passes {t2} tokens {b2} bytes");
    for pass in ["tokens", "identifiers", "literals"] {
        assert!(s2["passes"][pass]["tests"].as_u64().is_some(), "{pass} in {}", s2["passes"]);
    }
    assert!(s2["passes"]["identifiers"]["accepted"].as_u64().unwrap() > 0, "{}", s2["passes"]);
}

#[test]
fn probdd_reduces_the_example_the_same_with_one_or_two_jobs() {
    require_tool("gcc");
    let mut outs = Vec::new();
    for jobs in ["1", "2"] {
        let (reduced, s) = reduced_with(EXAMPLE, EXAMPLE_TEST.trim_start_matches("#!/bin/sh\n"), &["-j", jobs, "--passes", "perses", "--minimizer", "probdd"]);
        // Measured: 507 -> 45 tokens, as with ddmin.
        assert!(tokens(Language::C, &reduced) <= 50, "{reduced}");
        outs.push((reduced, s["tests"].clone(), s["candidates"].clone()));
    }
    assert_eq!(outs[0], outs[1]);
    let case = Case::new("program.c", EXAMPLE, EXAMPLE_TEST.trim_start_matches("#!/bin/sh\n"));
    let out = case.lopper(&["--minimizer", "wdd"]);
    assert_exit(&out, 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown minimizer `wdd` (known: ddmin, probdd)"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// A program whose declarations depend on each other, under a test that needs a clean
/// compile (as a compiler crash does: clang reports no crash in code generation after an
/// error), and one function the test needs.
fn declarations_program() -> String {
    let mut src = vec![
        "typedef unsigned long size_type;".to_string(),
        "typedef size_type count_type;".into(),
        "struct point { count_type x; count_type y; };".into(),
        "typedef struct point point_t;".into(),
    ];
    for k in 0..12 {
        src.push(format!("static count_type area{k}(point_t p) {{ return p.x * p.y + {k}; }}"));
        src.push(format!("int use{k}(void) {{ point_t p = {{ {k}, {} }}; return (int)area{k}(p); }}", k + 1));
    }
    src.push("int ratio(int total) { int zero = 0; return total / 0 + zero; }".into());
    for k in 12..20 {
        src.push(format!("static int helper{k}(int v) {{ return v * {k}; }}"));
        src.push(format!("int call{k}(void) {{ return helper{k}({k}); }}"));
    }
    src.join("\n") + "\n"
}

#[test]
fn unused_declarations_go_together_in_fewer_tests() {
    require_tool("gcc");
    let test = "out=$(LC_ALL=C gcc -c -o /dev/null \"$1\" 2>&1) && printf '%s' \"$out\" | grep -q 'division by zero'\n";
    let mut results = Vec::new();
    for passes in ["perses", "unused,perses"] {
        let (reduced, s) = reduced_with(&declarations_program(), test, &["--passes", passes]);
        results.push((tokens(Language::C, &reduced), s));
    }
    let ((t1, s1), (t2, s2)) = (&results[0], &results[1]);
    // Measured: 12 tokens both ways, 61 tests with Perses alone, 38 with `unused` first
    // (whose round start runs the slices first: they take the unused functions with the
    // helpers only they call, 5 of 10 tests accepted).
    assert!(t2 <= t1, "perses {t1} tokens, with unused {t2}");
    assert!(s2["tests"].as_u64() < s1["tests"].as_u64(), "tests: perses {}, with unused {}", s1["tests"], s2["tests"]);
    let accepted = |pass: &str| s2["passes"][pass]["accepted"].as_u64().unwrap_or(0);
    assert!(accepted("unused") + accepted("slices") > 0, "{}", s2["passes"]);
}
