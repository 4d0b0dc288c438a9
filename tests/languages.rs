//! End to end: the built-in C++, Rust, Python and Go front ends, each reducing a small
//! program (written for these tests, in `tests/programs/`) under its real compiler or
//! interpreter, with the default passes: the result is small, still shows the error, parses
//! without syntax errors, and the identifier pass (and, but for Python, the layout step)
//! left it valid.

mod common;
use common::*;
use lopper_parse::{Frontend, Language};
use std::fs;

/// Reduces `program` as `file_name` under `test` with the default passes: the result and
/// the `--stats` JSON.
fn reduce(file_name: &str, program: &str, test: &str) -> (Case, String, serde_json::Value) {
    let case = Case::new(file_name, program, test);
    assert!(case.passes(&case.program), "the original is interesting");
    let stats = case.path("stats.json");
    let out = case.lopper(&["-q", "--no-cache", "--timeout", "60", "--stats", stats.to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "the result still shows the error:\n{reduced}");
    let json = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    (case, reduced, json)
}

/// Asserts what every language's result must show: no syntax errors, at most `most`
/// tokens, identifiers renamed, and whether the layout step ran.
fn check(lang: Language, reduced: &str, stats: &serde_json::Value, most: usize, layout: bool) {
    let f = Frontend::new(lang).unwrap();
    assert_eq!(f.syntax_errors(reduced).unwrap(), 0, "{reduced}");
    let (before, after) = (stats["tokens_before"].as_u64().unwrap(), tokens(lang, reduced));
    assert!(after <= most, "{before} -> {after} tokens:\n{reduced}");
    let passes = stats["passes"].as_object().unwrap();
    assert!(passes["identifiers"]["accepted"].as_u64().unwrap() >= 1, "identifiers renamed: {passes:?}");
    assert_eq!(passes.contains_key("layout"), layout, "{passes:?}");
}

#[test]
fn cpp_with_g_plus_plus_keeps_the_conversion_error() {
    require_tool("g++");
    let (_, reduced, stats) = reduce(
        "geometry.cpp",
        include_str!("programs/geometry.cpp"),
        "LC_ALL=C g++ -std=c++17 -fsyntax-only \"$1\" 2>&1 | grep -q \"cannot convert 'std::string\"",
    );
    // Measured: 261 -> 37 tokens (a class with the std::string method, a function that
    // assigns its call to a `char`).
    check(Language::Cpp, &reduced, &stats, 45, true);
    assert!(reduced.contains("std::string") && !reduced.contains("Polygon") && !reduced.contains("area2"), "{reduced}");
}

#[test]
fn rust_with_rustc_keeps_the_type_mismatch() {
    require_tool("rustc");
    let (_, reduced, stats) = reduce(
        "players.rs",
        include_str!("programs/players.rs"),
        "d=$(mktemp -d); LC_ALL=C rustc --edition 2021 --crate-type lib --emit=metadata -o \"$d/x\" \"$1\" 2>&1 | grep -q 'expected `u32`, found `String`'; r=$?; rm -rf \"$d\"; exit $r",
    );
    // Measured: 215 -> 25 tokens; the lifetimes and the macro went with the code that used them.
    check(Language::Rust, &reduced, &stats, 30, true);
    assert!(reduced.contains("String") && !reduced.contains("macro_rules") && !reduced.contains("HashMap"), "{reduced}");
}

#[test]
fn python_with_python3_keeps_the_exception_and_its_indentation() {
    require_tool("python3");
    let (_, reduced, stats) = reduce("accounts.py", include_str!("programs/accounts.py"), "python3 \"$1\" 2>&1 | grep -q 'ValueError: positive only'");
    // Measured: 185 -> 52 tokens. Indentation is syntax: no layout step.
    check(Language::Python, &reduced, &stats, 60, false);
    assert!(reduced.contains("raise ValueError") && !reduced.contains("math") && !reduced.contains("report"), "{reduced}");
}

#[test]
fn go_with_go_vet_keeps_the_type_error() {
    require_tool("go");
    let (_, reduced, stats) = reduce(
        "readings.go",
        include_str!("programs/readings.go"),
        "d=$(mktemp -d); cp \"$1\" \"$d/main.go\"; cd \"$d\" && LC_ALL=C go vet main.go 2>&1 | grep -q 'cannot use places(rs) (value of type string) as int value'; r=$?; cd /; rm -rf \"$d\"; exit $r",
    );
    // Measured: 165 -> 31 tokens.
    check(Language::Go, &reduced, &stats, 36, true);
    assert!(reduced.contains("places") && !reduced.contains("average") && !reduced.contains("Celsius"), "{reduced}");
}
