//! End to end: whole projects (`lopper TEST DIR`, `lopper TEST FILE FILE...`) reduced as one
//! bundle through the one pipeline, with real compilers: files the test does not need are
//! deleted, the needed ones reduced, and the result passes the test.

mod common;
use common::*;
use std::fs;
use std::path::Path;
use std::process::Command;

/// Writes `files` (path, text) under `root`.
fn tree(root: &Path, files: &[(&str, &str)]) {
    for (p, t) in files {
        let path = root.join(p);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, t).unwrap();
    }
}

/// Every file under `root`, by relative path, sorted.
fn files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    out
}

const CRATE: &[(&str, &str)] = &[
    ("src/lib.rs", "mod util;\nmod extra;\npub use util::helper;\npub fn entry() -> i32 { util::helper(3) + extra::more() }\npub fn trigger() { let _marker: u8 = 300u16 as u8; }\n"),
    ("src/util/mod.rs", "pub mod deep;\npub fn helper(x: i32) -> i32 { deep::twice(x) + 1 }\npub fn unused_helper() -> String { String::from(\"nothing\") }\n"),
    ("src/util/deep.rs", "pub fn twice(x: i32) -> i32 { x * 2 }\npub struct Holder { pub value: i32 }\nimpl Holder { pub fn get(&self) -> i32 { self.value } }\n"),
    ("src/extra.rs", "pub fn more() -> i32 { let v = vec![1, 2, 3]; v.iter().sum() }\n"),
];

/// rustc must build the crate, and `lib.rs` keep the literal.
const CRATE_TEST: &str = "d=$(mktemp -d) && cd \"$1\" && rustc --edition 2021 --crate-type lib --emit=metadata --out-dir \"$d\" src/lib.rs >/dev/null 2>&1; r=$?; rm -rf \"$d\"; [ $r -eq 0 ] && grep -q 300u16 src/lib.rs";

fn run(args: &[&str], test: &Path, inputs: &[&Path], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lopper")).current_dir(cwd).env("LOPPER_CACHE", cwd.join("cache")).args(args).arg(test).args(inputs).output().unwrap()
}

#[test]
fn a_rust_crate_loses_the_modules_the_test_does_not_need() {
    require_tool("rustc");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("crate");
    tree(&root, CRATE);
    let test = dir.path().join("test.sh");
    write_script(&test, CRATE_TEST);
    let mut results = Vec::new();
    for jobs in ["1", "2"] {
        let out_dir = dir.path().join(format!("out{jobs}"));
        let out = run(&["-q", "-j", jobs, "-o", out_dir.to_str().unwrap()], &test, &[&root], dir.path());
        assert_exit(&out, 0);
        // The input tree is untouched with -o.
        assert_eq!(files(&root).len(), 4);
        assert_eq!(files(&out_dir), ["src/lib.rs"], "the other modules go");
        let lib = fs::read_to_string(out_dir.join("src/lib.rs")).unwrap();
        assert!(Command::new(&test).arg(&out_dir).status().unwrap().success(), "{lib}");
        assert!(lib.split_whitespace().count() <= 6, "{lib}");
        results.push(lib);
    }
    assert_eq!(results[0], results[1], "-j1 and -j2 give the same bytes");
}

#[test]
fn a_directory_reduced_in_place_keeps_its_original_beside_it() {
    require_tool("gcc");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    let files_in = [
        ("main.c", "#include \"shape.h\"\n#include \"unused.h\"\nint main(void) { struct shape s = make_shape(2); return area(&s) + helper_count(); }\n"),
        ("shape.h", "struct shape { int side; int unused_field; };\nstruct shape make_shape(int side);\nint area(const struct shape *s);\n"),
        ("unused.h", "int helper_count(void);\nint helper_other(int x);\n"),
        ("notes.txt", "nothing the build needs\n"),
    ];
    tree(&root, &files_in);
    let test = dir.path().join("test.sh");
    // gcc must accept main.c, which must still use `area`.
    write_script(&test, "cd \"$1\" && gcc -fsyntax-only -Werror=implicit-function-declaration main.c >/dev/null 2>&1 && grep -q 'area(' main.c");
    let out = run(&["-q"], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    assert!(Command::new(&test).arg(&root).status().unwrap().success());
    let left = files(&root);
    assert!(left.contains(&"main.c".to_string()) && left.contains(&"shape.h".to_string()), "{left:?}");
    assert!(!left.contains(&"unused.h".to_string()) && !left.contains(&"notes.txt".to_string()), "{left:?}");
    let orig = dir.path().join("proj.orig");
    assert_eq!(files(&orig).len(), 4, "the original tree is kept");
    assert_eq!(fs::read_to_string(orig.join("main.c")).unwrap(), files_in[0].1);
    let main = fs::read_to_string(root.join("main.c")).unwrap();
    assert!(!main.contains("helper_count") && !main.contains("unused.h"), "{main}");
}

#[test]
fn several_files_are_reduced_together_in_their_folder() {
    require_tool("node");
    let dir = tempfile::tempdir().unwrap();
    tree(
        dir.path(),
        &[
            ("index.js", "const { greet } = require('./greet.js');\nconst { unused } = require('./other.js');\nconsole.log(greet('world') + 'marker');\n"),
            (
                "greet.js",
                "function pad(s) { return ' ' + s + ' '; }\nfunction greet(name) { return 'hello ' + pad(name); }\nmodule.exports = { greet, pad };\n",
            ),
            ("other.js", "function unused() { return 42 * 2; }\nmodule.exports = { unused };\n"),
        ],
    );
    let test = dir.path().join("test.sh");
    // Run with no argument in the files' folder, as C-Vise runs a test for several files.
    write_script(&test, "node index.js 2>/dev/null | grep -q marker");
    let out = run(&["-q", "-o", "out"], &test, &[Path::new("index.js"), Path::new("greet.js"), Path::new("other.js")], dir.path());
    assert_exit(&out, 0);
    let out_dir = dir.path().join("out");
    assert_eq!(files(&out_dir), ["index.js"], "the modules the test does not need go");
    assert!(Command::new(&test).current_dir(&out_dir).status().unwrap().success());
}
