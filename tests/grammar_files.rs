//! End to end: languages added without rebuilding lopper — pest grammar files found through
//! `LOPPER_GRAMMARS` or `--grammar`, and a tree-sitter grammar folder compiled at run time —
//! each reducing a program with a real oracle (python3's json, z3, lua5.4).

mod common;
use common::*;
use lopper_parse::Frontend;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// Token count under a grammar file's own front end.
fn pest_tokens(grammar: &Path, text: &str) -> usize {
    let f = Frontend::from_pest("t", &fs::read_to_string(grammar).unwrap()).unwrap();
    f.parse(text).unwrap().tree.token_count()
}

const JSON_DOC: &str = r#"{
  "name": "demo",
  "version": [1, 2, 3],
  "settings": {"verbose": true, "depth": 4, "nested": {"a": [1, {"bug": true, "x": "y"}, 3], "b": null}},
  "list": [{"id": 1}, {"id": 2}, {"id": 3, "tags": ["p", "q"]}],
  "empty": {}
}
"#;

/// Interesting: valid JSON with `"bug": true` somewhere.
const JSON_TEST: &str = r#"python3 - "$1" <<'PY'
import json, sys
def has(d):
    if isinstance(d, dict):
        return d.get("bug") is True or any(has(v) for v in d.values())
    return isinstance(d, list) and any(has(v) for v in d)
sys.exit(0 if has(json.load(open(sys.argv[1]))) else 1)
PY"#;

#[test]
fn a_grammar_file_dropped_into_a_grammars_directory_reduces_json() {
    require_tool("python3");
    let case = Case::new("doc.json", JSON_DOC, JSON_TEST);
    assert!(case.passes(&case.program));
    // Only the grammar file, under a new name, in a directory lopper is pointed at.
    let grammars = case.path("grammars");
    fs::create_dir(&grammars).unwrap();
    let text = fs::read_to_string(repo("crates/lopper-parse/grammars/json.pest")).unwrap().replace("extensions = json", "extensions = jdoc");
    fs::write(grammars.join("mydata.pest"), text).unwrap();
    let listed = Command::new(env!("CARGO_BIN_EXE_lopper")).arg("languages").env("LOPPER_GRAMMARS", &grammars).output().unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.lines().any(|l| l.starts_with("mydata") && l.contains(".jdoc") && l.contains("LOPPER_GRAMMARS")), "{listed}");
    let out = Command::new(env!("CARGO_BIN_EXE_lopper"))
        .args(["--lang", "mydata", "-j", "2"])
        .arg(&case.test)
        .arg(&case.program)
        .env("LOPPER_GRAMMARS", &grammars)
        .output()
        .unwrap();
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    assert_eq!(reduced.trim(), r#"{"bug": true}"#);
    let g = grammars.join("mydata.pest");
    // Measured: 88 -> 5 tokens.
    assert_eq!((pest_tokens(&g, JSON_DOC), pest_tokens(&g, &reduced)), (88, 5));
}

const SMT_SCRIPT: &str = r#"; a script z3 finds unsatisfiable, among assertions that do not matter
(set-logic QF_UFLIA)
(set-option :produce-models true)
(declare-const x Int)
(declare-const y Int)
(declare-fun f (Int) Int)
(define-fun double ((a Int)) Int (* 2 a))
(assert (>= y 0))
(assert (let ((z (+ x y))) (or (> z 3) (= (f z) 7))))
(assert (> x 10))
(assert (distinct y (double 3) 11))
(assert (< (+ x 1) 5))
(assert (! (<= (f 1) 100) :named small))
(check-sat)
(get-info :name)
(exit)
"#;

#[test]
fn a_grammar_file_given_with_grammar_reduces_smtlib_with_z3() {
    require_tool("z3");
    // Interesting: z3 says unsat (and reports no error).
    let case = Case::new("query.smt2", SMT_SCRIPT, r#"out=$(z3 -T:10 "$1" 2>&1); echo "$out" | grep -q '^unsat' && ! echo "$out" | grep -q error"#);
    assert!(case.passes(&case.program));
    let g = repo("crates/lopper-parse/grammars/smtlib.pest");
    let out = case.lopper(&["--grammar", g.to_str().unwrap(), "-o", case.path("min.smt2").to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(case.path("min.smt2")).unwrap();
    assert!(case.passes(&case.path("min.smt2")), "{reduced}");
    // Literal and identifier canonicalization turn `(> x 10)` into `(> a 0)` (the grammar
    // file's header names `symbol` as its identifiers).
    assert!(reduced.contains("(> a 0)") && reduced.contains("(check-sat)"), "{reduced}");
    assert!(!reduced.contains("double") && !reduced.contains("get-info"), "{reduced}");
    let (before, after) = (pest_tokens(&g, SMT_SCRIPT), pest_tokens(&g, &reduced));
    // Measured: 141 -> 24 tokens (declare x, the two contradicting asserts, check-sat).
    assert!(after <= 24, "{before} -> {after}:\n{reduced}");
}

const LUA_PROGRAM: &str = r#"-- configuration loader
local defaults = {depth = 3, name = "demo", items = {1, 2, 3}}
local function merge(a, b)
  local out = {}
  for k, v in pairs(a) do out[k] = v end
  for k, v in pairs(b or {}) do out[k] = v end
  return out
end
local cfg = merge(defaults, {name = "x"})
for i = 1, #cfg.items do
  print(i, cfg.items[i] * 2)
end
print(cfg.name .. "!", cfg.options.level)
"#;

#[test]
fn the_shipped_lua_grammar_reduces_a_lua_error() {
    require_tool("lua5.4");
    let case = Case::new("conf.lua", LUA_PROGRAM, r#"lua5.4 "$1" 2>&1 | grep -q "attempt to index a nil value (field 'options')""#);
    assert!(case.passes(&case.program));
    let out = case.lopper(&[]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    let g = repo("crates/lopper-parse/grammars/lua.pest");
    let (before, after) = (pest_tokens(&g, LUA_PROGRAM), pest_tokens(&g, &reduced));
    // Measured: 126 -> 17 tokens.
    assert!(after <= 17, "{before} -> {after}:\n{reduced}");
}

/// The `src/` of the tree-sitter-json crate: a dev-dependency, so cargo has fetched it into
/// its registry; the version is the one Cargo.lock names.
fn tree_sitter_json_src() -> PathBuf {
    let lock = fs::read_to_string(repo("Cargo.lock")).unwrap();
    let version = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"tree-sitter-json\""))
        .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
        .expect("tree-sitter-json in Cargo.lock")
        .trim_matches('"')
        .to_string();
    let home = std::env::var_os("CARGO_HOME").map(PathBuf::from).unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
    let dir = format!("tree-sitter-json-{version}");
    fs::read_dir(home.join("registry/src"))
        .unwrap()
        .map(|e| e.unwrap().path().join(&dir).join("src"))
        .find(|p| p.join("parser.c").is_file())
        .expect("tree-sitter-json sources in cargo's registry")
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn a_tree_sitter_grammar_folder_is_compiled_at_run_time_and_reduces() {
    require_tool("python3");
    require_tool("cc");
    let case = Case::new("doc.json", JSON_DOC, JSON_TEST);
    let folder = case.path("grammars/tree-sitter-json");
    copy_dir(&tree_sitter_json_src(), &folder.join("src"));
    let cache = case.path("cache");
    let run =
        |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_lopper")).args(args).arg(&case.test).arg(&case.program).env("LOPPER_CACHE", &cache).output().unwrap();
    let out = run(&["-v", "--grammar", folder.to_str().unwrap(), "-o", case.path("min.json").to_str().unwrap()]);
    assert_exit(&out, 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("matched   100.0%"), "{stderr}");
    let reduced = fs::read_to_string(case.path("min.json")).unwrap();
    assert!(case.passes(&case.path("min.json")), "{reduced}");
    assert_eq!(reduced.trim(), r#"{"bug": true}"#);
    // Compiled once into the cache's `tree-sitter/` (beside `verdicts/`); the second run
    // loads the library from there.
    let libs: Vec<_> =
        fs::read_dir(cache.join("tree-sitter")).unwrap().map(|e| e.unwrap().file_name()).filter(|n| n.to_string_lossy().ends_with(".so")).collect();
    assert_eq!(libs.len(), 1, "{libs:?}");
    let out = run(&["--grammar", folder.to_str().unwrap(), "-o", case.path("min2.json").to_str().unwrap()]);
    assert_exit(&out, 0);
    assert_eq!(fs::read_to_string(case.path("min2.json")).unwrap(), reduced);
}

#[test]
fn bad_grammar_files_are_reported_with_where_and_why() {
    let case = Case::new("x.toy", "a a b\n", "exit 0");
    let check = |grammar: &str, expect: &[&str]| {
        fs::write(case.path("toy.pest"), grammar).unwrap();
        let out = case.lopper(&["--grammar", case.path("toy.pest").to_str().unwrap()]);
        assert_exit(&out, 3);
        let err = String::from_utf8_lossy(&out.stderr);
        for e in expect {
            assert!(err.contains(e), "expected `{e}` in:\n{err}");
        }
        assert!(!err.contains("panicked"), "{err}");
    };
    check("file = { item* \n item = { \"a\" | }", &["toy.pest", "2:", "expected"]);
    check("file = { item* ~ EOI }", &["toy.pest", "item", "undefined"]);
    check("file = { item* }\nitem = { \"a\" ~ item }", &["rule `item` can never end"]);
    check("file = { (file ~ \"a\")* ~ \"b\" }", &["left recursion"]);
    check("file = { item* }\nitem = @{ \"a\"* }", &["rule `item`", "can match empty text but is repeated"]);
    // A program the grammar rejects is bad input too, with pest's position.
    check("file = { \"a\"* }\nWHITESPACE = _{ \" \" | \"\\n\" }", &["does not parse", "1:5"]);
}

#[test]
fn languages_lists_the_user_directory_and_what_shadows_what() {
    let home = tempfile::tempdir().unwrap();
    let user = home.path().join("config/lopper/grammars");
    fs::create_dir_all(&user).unwrap();
    fs::write(user.join("toy.pest"), "//! lopper: extensions = toy\nfile = { \"a\"* }\n").unwrap();
    // A user's json.pest shadows the shipped one.
    fs::write(user.join("json.pest"), "value = { \"null\" }\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lopper")).arg("languages").env("XDG_CONFIG_HOME", home.path().join("config")).output().unwrap();
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |name: &str, what: &str| text.lines().any(|l| l.starts_with(name) && l.contains(what));
    assert!(line("toy", ".toy") && line("toy", "user grammars directory"), "{text}");
    assert!(line("json", "user grammars directory") && line("json", "compiled in (shadowed by user grammars directory"), "{text}");
    for builtin in ["c ", "java ", "javascript", "smtlib", "lua"] {
        assert!(line(builtin, "built-in"), "{builtin}: {text}");
    }
}
