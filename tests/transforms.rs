//! End to end: transformations from outside lopper, in Regehr's protocol — a Python plug-in
//! written for the protocol, and C-Vise's clang_delta — reduce C programs under real gcc.

mod common;
use common::*;
use std::fs;
use std::path::Path;

/// Interesting: gcc still warns about a division by zero.
const DIV_BY_ZERO: &str = "LC_ALL=C gcc -fsyntax-only -Wdiv-by-zero \"$1\" 2>&1 | grep -q 'division by zero'";

/// A C program with four integer constants other than 1 (the 0 must stay for the warning),
/// and the example plug-in that replaces them.
fn constants_case() -> (Case, std::path::PathBuf) {
    require_tool("gcc");
    require_tool("python3");
    let src = "int scale(int x) {\n    int y = x * 42 + 7;\n    return (y - 300) / 0;\n}\n";
    let plug_in = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/transforms/one_constant.py");
    (Case::new("div.c", src, DIV_BY_ZERO), plug_in)
}

fn stats(case: &Case) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(case.path("stats.json")).unwrap()).unwrap()
}

#[test]
fn a_python_plug_in_replaces_constants_one_instance_at_a_time() {
    let (case, plug_in) = constants_case();
    assert!(case.passes(&case.program));
    let cmd = format!("python3 '{}' {{file}} {{n}} {{out}}", plug_in.display());
    // Only the plug-in changes the program (identifier renaming has nothing to do here).
    let out = case.lopper(&["-q", "--passes", "identifiers", "--transform", &cmd, "--stats", case.path("stats.json").to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    // Every constant but the divisor became 1; the 0 must stay for the warning.
    assert_eq!(reduced, "int a(int b) {\n    int c = b * 1 + 1;\n    return (c - 1) / 0;\n}\n");
    let s = stats(&case);
    assert_eq!(s["passes"][cmd.as_str()]["accepted"], 3, "{}", s["passes"]);
    // 42, 7 and 300 became 1, each accepted at instance 1 of the new best; 0 -> 1 is not
    // smaller in shortlex order, so it is never tested; instance 2 does not exist.
    assert_eq!(s["passes"][cmd.as_str()]["tests"], 3, "{}", s["passes"]);
}

#[test]
fn a_failing_transformation_is_reported_once_and_nothing_is_lost() {
    require_tool("gcc");
    let src = "int f(void) { return 5 / 0; }\n";
    let case = Case::new("f.c", src, DIV_BY_ZERO);
    let out = case.lopper(&["--passes", "perses", "--transform", "echo broken >&2; exit 3"]);
    assert_exit(&out, 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("failed and is disabled").count(), 1, "{err}");
    assert!(err.contains("exited with status 3") && err.contains("broken"), "{err}");
    assert!(case.passes(&case.program));
}

#[test]
fn clang_delta_passes_reduce_a_c_program() {
    require_tool("gcc");
    assert!(
        lopper_reduce::passes::external::find_clang_delta().is_some(),
        "clang_delta is not installed, and this test runs it: run `tools/test`, or `apt-get install cvise`"
    );
    let src = "static int helper_unused(int v) { return v + 1; }\nint compute_value(int x) { return x / 0; }\n";
    let case = Case::new("cd.c", src, DIV_BY_ZERO);
    // clang_delta alone: no Perses, no built-in pass.
    let out = case.lopper(&["-q", "--passes", "clang_delta", "--stats", case.path("stats.json").to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    assert!(!reduced.contains("helper_unused") && !reduced.contains("compute_value"), "{reduced}");
    assert_eq!(lopper_parse::Frontend::new(lopper_parse::Language::C).unwrap().syntax_errors(&reduced).unwrap(), 0);
    let s = stats(&case);
    let accepted = |t: &str| s["passes"][format!("clang_delta:{t}").as_str()]["accepted"].as_u64().unwrap();
    assert!(accepted("remove-unused-function") >= 1 && accepted("rename-fun") >= 1, "{}", s["passes"]);
}

#[test]
fn clang_delta_removes_unused_functions_in_binary_search_mode() {
    require_tool("gcc");
    assert!(
        lopper_reduce::passes::external::find_clang_delta().is_some(),
        "clang_delta is not installed, and this test runs it: run `tools/test`, or `apt-get install cvise`"
    );
    // Eight unused functions and the one the warning needs, which clang_delta also counts
    // as unused: chunks of them go together, never one at a time.
    let mut src: String = (0..8).map(|i| format!("static int unused_{i}(int v) {{ return v + {i}; }}\n")).collect();
    src.push_str("int compute_value(int x) { return x / 0; }\n");
    let case = Case::new("bin.c", &src, DIV_BY_ZERO);
    let out = case.lopper(&["-q", "--passes", "clang_delta", "--stats", case.path("stats.json").to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    assert!(!reduced.contains("unused_"), "{reduced}");
    let s = stats(&case);
    let pass = &s["passes"]["clang_delta:remove-unused-function"];
    // All nine at once fail; one at a time would take nine tests.
    let (tests, accepted) = (pass["tests"].as_u64().unwrap(), pass["accepted"].as_u64().unwrap());
    assert!(tests < 8 && accepted >= 2, "{tests} tests, {accepted} accepted: {}", s["passes"]);
}

#[test]
fn clang_delta_cxx_transformations_reduce_a_cpp_program() {
    require_tool("g++");
    assert!(
        lopper_reduce::passes::external::find_clang_delta().is_some(),
        "clang_delta is not installed, and this test runs it: run `tools/test`, or `apt-get install cvise`"
    );
    // A namespace, a class template and an unused base class around a conversion error.
    let src = "namespace outer {\nstruct Base { int unused_member; };\ntemplate <typename T> struct Holder : Base {\n  T value;\n  T get() const { return value; }\n};\n}\nint use_it(outer::Holder<int> h) { int *p = h.get(); return 0; }\n";
    let case = Case::new("cd.cpp", src, "LC_ALL=C g++ -std=c++17 -fsyntax-only \"$1\" 2>&1 | grep -q 'invalid conversion from .int. to .int\\*.'");
    assert!(case.passes(&case.program));
    // clang_delta alone: no Perses, no built-in pass.
    let out = case.lopper(&["-q", "--passes", "clang_delta", "--stats", case.path("stats.json").to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    assert_eq!(lopper_parse::Frontend::new(lopper_parse::Language::Cpp).unwrap().syntax_errors(&reduced).unwrap(), 0, "{reduced}");
    assert!(reduced.len() < src.len(), "{reduced}");
    let s = stats(&case);
    let passes = s["passes"].as_object().unwrap();
    let accepted: Vec<&str> = passes.iter().filter(|(_, v)| v["accepted"].as_u64().unwrap_or(0) > 0).map(|(k, _)| k.as_str()).collect();
    // The C++ transformations ran (they are not C's): measured, remove-namespace,
    // merge-base-class, remove-unused-field, replace-function-def-with-decl, rename-class
    // and others each accepted a variant.
    assert!(passes.contains_key("clang_delta:class-template-to-class"), "{passes:?}");
    assert!(accepted.contains(&"clang_delta:remove-namespace") && accepted.contains(&"clang_delta:rename-class"), "{passes:?}");
    assert!(!reduced.contains("namespace") && !reduced.contains("Base") && !reduced.contains("unused_member"), "{reduced}");
}

#[test]
fn a_count_command_makes_the_transformation_run_backwards() {
    let (case, plug_in) = constants_case();
    let log = case.path("instances.log");
    // The plug-in, logging each instance number it is run with.
    let cmd = format!("echo {{n}} >> '{}'; python3 '{}' {{file}} {{n}} {{out}}", log.display(), plug_in.display());
    let count = format!("python3 '{}' --count {{file}}", plug_in.display());
    let stats_path = case.path("stats.json");
    let out =
        case.lopper(&["-q", "-j", "1", "--passes", "identifiers", "--transform", &cmd, "--transform-count", &count, "--stats", stats_path.to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert_eq!(reduced, "int a(int b) {\n    int c = b * 1 + 1;\n    return (c - 1) / 0;\n}\n");
    // Four constants: n = 4 (the 0, whose 1 is not smaller: untested), then 300, 7 and 42,
    // each at n = count - k on the new best; the second round sees one constant, the 0.
    // Instance 5 and beyond are never run: the count bounds them.
    let ns: Vec<usize> = fs::read_to_string(&log).unwrap().lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(ns, [4, 3, 2, 1, 1]);
    let s = stats(&case);
    assert_eq!((s["passes"][cmd.as_str()]["accepted"].as_u64(), s["passes"][cmd.as_str()]["tests"].as_u64()), (Some(3), Some(3)), "{}", s["passes"]);
    // A count without its transform is a usage error.
    let out = case.lopper(&["--transform-count", &count]);
    assert_exit(&out, 2);
}

#[test]
fn count_commands_of_consecutive_transformations_run_side_by_side_with_jobs() {
    let (case, plug_in) = constants_case();
    let log = case.path("counts.log");
    // Two transformations with count commands that log when they start and end; the
    // second never has an instance.
    let logged = |count: &str| format!("echo start >> '{}'; sleep 0.3; {count}; echo end >> '{}'", log.display(), log.display());
    let cmd = format!("python3 '{}' {{file}} {{n}} {{out}}", plug_in.display());
    let count = logged(&format!("python3 '{}' --count {{file}}", plug_in.display()));
    let (never, never_count) = ("exit 1", logged("echo 0"));
    let mut results = Vec::new();
    for jobs in ["1", "2"] {
        let _ = fs::remove_file(&log);
        fs::write(&case.program, "int scale(int x) {\n    int y = x * 42 + 7;\n    return (y - 300) / 0;\n}\n").unwrap();
        let stats_path = case.path("stats.json");
        let args = ["-q", "--no-cache", "-j", jobs, "--passes", "identifiers", "--stats", stats_path.to_str().unwrap()];
        let transforms = ["--transform", &cmd, "--transform-count", &count, "--transform", never, "--transform-count", &never_count];
        let out = case.lopper(&[&args[..], &transforms[..]].concat());
        assert_exit(&out, 0);
        let s = stats(&case);
        let pass = &s["passes"][cmd.as_str()];
        results.push((fs::read_to_string(&case.program).unwrap(), s["tests"].clone(), pass["tests"].clone(), pass["accepted"].clone()));
        let lines = fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = lines.lines().collect();
        if jobs == "1" {
            assert!(lines.chunks(2).all(|p| p == ["start", "end"]), "one at a time: {lines:?}");
        } else {
            // Both counts start on the first round's best before either ends.
            assert_eq!(lines[..4], ["start", "start", "end", "end"], "{lines:?}");
        }
    }
    assert_eq!(results[0], results[1]);
    assert_eq!(results[0].0, "int a(int b) {\n    int c = b * 1 + 1;\n    return (c - 1) / 0;\n}\n");
}

#[test]
fn a_transformation_is_not_run_twice_on_the_same_best() {
    let (case, plug_in) = constants_case();
    let log = case.path("runs.log");
    // The plug-in, logging each instance number with the program it is run on.
    let cmd = format!("echo {{n}} $(cksum < {{file}}) >> '{}'; python3 '{}' {{file}} {{n}} {{out}}", log.display(), plug_in.display());
    let out = case.lopper(&["-q", "-j", "1", "--passes", "identifiers", "--transform", &cmd]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert_eq!(reduced, "int a(int b) {\n    int c = b * 1 + 1;\n    return (c - 1) / 0;\n}\n");
    // The last round meets the best the round before ended on: its instances there were
    // run then, and are not run again (a transformation is deterministic).
    let runs: Vec<String> = fs::read_to_string(&log).unwrap().lines().map(str::to_string).collect();
    let mut once = runs.clone();
    once.sort();
    once.dedup();
    assert_eq!(once.len(), runs.len(), "a run repeated: {runs:?}");
    assert!(runs.len() >= 5, "{runs:?}");
}
