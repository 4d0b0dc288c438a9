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

/// The `--stats` JSON at `path`.
fn read_stats(path: &Path) -> serde_json::Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

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
        let stats = dir.path().join(format!("stats{jobs}.json"));
        let out = run(&["-q", "-j", jobs, "--stats", stats.to_str().unwrap(), "-o", out_dir.to_str().unwrap()], &test, &[&root], dir.path());
        assert_exit(&out, 0);
        // --stats counts each file before and after.
        let s = read_stats(&stats);
        let counts = s["files"].as_array().unwrap();
        assert_eq!(counts.len(), 4, "{counts:?}");
        for c in counts {
            assert!(c["tokens_before"].as_u64().unwrap() > 5, "{c}");
            let kept = c["path"] == "src/lib.rs";
            assert_eq!(c["tokens_after"].as_u64().is_some(), kept, "{c}");
            assert_eq!(c["bytes_after"].is_null(), !kept, "{c}");
        }
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
    // unused.h and notes.txt go; shape.h, included once, is inlined into main.c.
    assert_eq!(files(&root), ["main.c"]);
    let orig = dir.path().join("proj.orig");
    assert_eq!(files(&orig).len(), 4, "the original tree is kept");
    assert_eq!(fs::read_to_string(orig.join("main.c")).unwrap(), files_in[0].1);
    let main = fs::read_to_string(root.join("main.c")).unwrap();
    assert!(!main.contains("helper_count") && !main.contains("#include"), "{main}");
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

#[test]
fn a_java_package_keeps_the_classes_the_build_needs() {
    require_tool("javac");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("src");
    tree(
        &root,
        &[
            ("app/Main.java", "package app;\n\nimport app.util.Shapes;\nimport app.extra.Logger;\n\nclass Main {\n    int area = Shapes.area(3);\n}\n"),
            ("app/util/Shapes.java", "package app.util;\n\npublic class Shapes {\n    public static int area(int side) { return side * side; }\n    public static int perimeter(int side) { return 4 * side; }\n}\n"),
            ("app/extra/Logger.java", "package app.extra;\n\npublic class Logger {\n    public static void log(String s) { System.err.println(s); }\n}\n"),
            ("app/extra/Unused.java", "package app.extra;\n\nclass Unused {\n    int field = 7;\n}\n"),
        ],
    );
    let test = dir.path().join("test.sh");
    // javac must compile every file of the tree, and Main must still call Shapes.area.
    write_script(
        &test,
        &format!("cd \"$1\" && grep -q 'Shapes.area' app/Main.java || exit 1; d=$(mktemp -d) && {JAVAC} -d \"$d\" $(find . -name '*.java') >/dev/null 2>&1; r=$?; rm -rf \"$d\"; [ $r -eq 0 ]"),
    );
    let out_dir = dir.path().join("out");
    // javac takes about a second a test: files and one Perses round only.
    let out = run(&["-q", "--passes", "files,perses", "--no-fixpoint", "-o", out_dir.to_str().unwrap()], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    assert!(Command::new(&test).arg(&out_dir).status().unwrap().success());
    assert_eq!(files(&out_dir), ["app/Main.java", "app/util/Shapes.java"], "the classes the build does not need go");
    let main = fs::read_to_string(out_dir.join("app/Main.java")).unwrap();
    assert!(!main.contains("Logger") && !main.contains("package"), "{main}");
    let shapes = fs::read_to_string(out_dir.join("app/util/Shapes.java")).unwrap();
    assert!(!shapes.contains("perimeter"), "{shapes}");
}

#[test]
fn a_directory_run_is_locked_interrupted_and_resumed() {
    require_tool("gcc");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    let mut main = String::from("#include \"api.h\"\n");
    for i in 0..30 {
        main.push_str(&format!("int filler{i}(int x) {{ return x + {i}; }}\n"));
    }
    main.push_str("int main(void) { return needle(1); }\n");
    let original = [("main.c", main.as_str()), ("api.h", "int needle(int x);\nint other(int y);\n"), ("extra.h", "int extra(void);\n")];
    tree(&root, &original);
    let test = dir.path().join("test.sh");
    write_script(&test, "sleep 0.2; cd \"$1\" && gcc -fsyntax-only -Werror=implicit-function-declaration main.c >/dev/null 2>&1 && grep -q 'needle(' main.c");
    let lopper = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_lopper"));
        c.current_dir(dir.path()).env("LOPPER_CACHE", dir.path().join("cache")).args(["-j", "1"]).arg(&test).arg(&root);
        c
    };
    let first = lopper().stderr(std::process::Stdio::piped()).spawn().unwrap();
    // A second run on the same folder is refused while the first holds it.
    let lock = dir.path().join(".proj.lopper-lock");
    let t = std::time::Instant::now();
    while !fs::read_to_string(&lock).is_ok_and(|s| !s.is_empty()) && t.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let second = lopper().arg("-q").output().unwrap();
    assert_exit(&second, 8);
    assert!(String::from_utf8_lossy(&second.stderr).contains("being reduced in place by another lopper"));
    // Interrupted once the first smaller tree is written.
    let orig = dir.path().join("proj.orig");
    while !orig.exists() && t.elapsed() < std::time::Duration::from_secs(60) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    Command::new("kill").args(["-INT", &first.id().to_string()]).status().unwrap();
    let out = first.wait_with_output().unwrap();
    assert_exit(&out, 130);
    assert!(Command::new(&test).arg(&root).status().unwrap().success(), "the tree on disk is interesting after Ctrl-C");
    let size = |r: &Path| files(r).iter().map(|p| fs::read(r.join(p)).unwrap().len()).sum::<usize>();
    let interrupted = size(&root);
    assert!(interrupted < size(&orig), "a smaller tree was written");
    assert!(!lock.exists(), "the lock goes with the run");
    // Resumed: the original stays DIR.orig, the run goes on from the interrupted tree.
    let stats = dir.path().join("stats.json");
    let out = lopper().arg("--stats").arg(&stats).output().unwrap();
    assert_exit(&out, 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("keeping the existing") && err.contains("of this run's start") && err.contains("of the original, "), "{err}");
    for (p, t) in original {
        assert_eq!(fs::read_to_string(orig.join(p)).unwrap(), t, "{p} of the original is kept");
    }
    assert!(Command::new(&test).arg(&root).status().unwrap().success());
    // api.h, included once, is inlined.
    assert_eq!(files(&root), ["main.c"]);
    let resumed = fs::read_to_string(root.join("main.c")).unwrap();
    assert!(!resumed.contains("filler") && size(&root) <= interrupted, "{resumed}");
    let s = read_stats(&stats);
    assert!(s["remembered"].as_u64().unwrap() > 0, "the verdict cache answers what the first run judged: {s}");
    assert_eq!(s["warnings"], serde_json::json!([]), "no pass fails on the bundle: {s}");
}

#[test]
fn a_cpp_tree_with_large_headers_is_cpp_and_each_file_is_laid_out() {
    require_tool("g++");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    let mut header = String::from("#pragma once\nnamespace shapes {\n");
    for i in 0..12 {
        header.push_str(&format!("template <typename T> struct Box{i} {{ T value; T get() const {{ return value; }} }};\n"));
    }
    header.push_str("}\n");
    tree(&root, &[("shapes.h", header.as_str()), ("main.cpp", "#include \"shapes.h\"\nint main() {\n    shapes::Box3<int> b{7};\n    return b.get();\n}\n")]);
    let test = dir.path().join("test.sh");
    write_script(&test, "cd \"$1\" && g++ -std=c++17 -fsyntax-only main.cpp >/dev/null 2>&1 && grep -q 'get()' main.cpp");
    let (out_dir, stats) = (dir.path().join("out"), dir.path().join("stats.json"));
    let out = run(&["-q", "--stats", stats.to_str().unwrap(), "-o", out_dir.to_str().unwrap()], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    assert!(Command::new(&test).arg(&out_dir).status().unwrap().success());
    let s = read_stats(&stats);
    // The header holds most of the bytes, but `.cpp` tells C++ from C.
    assert_eq!(s["language"], "cpp");
    assert_eq!(s["passes"]["layout"]["accepted"], 1, "{}", s["passes"]);
    // The header the build needs, included once, is inlined where it was included.
    assert_eq!(files(&out_dir), ["main.cpp"]);
    let main = fs::read_to_string(out_dir.join("main.cpp")).unwrap();
    assert!(main.contains("struct") && !main.contains("#include"), "{main}");
    assert!(s["passes"]["headers"]["accepted"].as_u64().unwrap() >= 1, "{}", s["passes"]);
    for f in files(&out_dir) {
        let text = fs::read_to_string(out_dir.join(&f)).unwrap();
        assert!(!text.lines().any(|l| !l.is_empty() && l.trim().is_empty()), "{f} is laid out:\n{text}");
        assert!(!text.starts_with('\n'), "{f}:\n{text}");
    }
}

#[test]
fn a_file_of_another_kind_is_reduced_by_lines() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    tree(
        &root,
        &[("main.c", "int main(void) { return 0; }\nint unused(void) { return 1; }\n"), ("build.txt", "first line\nsecond line\nKEEP this one\nlast line\n\n")],
    );
    let test = dir.path().join("test.sh");
    write_script(&test, "grep -q KEEP \"$1/build.txt\" && grep -q main \"$1/main.c\"");
    let out_dir = dir.path().join("out");
    let out = run(&["-q", "-o", out_dir.to_str().unwrap()], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    assert_eq!(fs::read_to_string(out_dir.join("build.txt")).unwrap().trim(), "KEEP this one");
    assert!(!fs::read_to_string(out_dir.join("main.c")).unwrap().contains("unused"));
}

#[test]
fn a_module_nothing_uses_goes_with_its_mod_line_at_a_round_start() {
    require_tool("rustc");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("crate");
    // Without the `files` search: the unused search takes an orphan module file and its
    // `mod` line in one candidate (Perses alone would need two steps, `mod` line first).
    tree(
        &root,
        &[
            ("src/lib.rs", "mod helper;\nmod extra;\npub fn trigger() { let _marker: u8 = 300u16 as u8; }\npub fn other() -> u32 { extra::more() }\n"),
            ("src/helper.rs", "pub fn assist(x: u32) -> u32 { x + 1 }\n"),
            ("src/extra.rs", "pub fn more() -> u32 { 7 }\n"),
        ],
    );
    let test = dir.path().join("test.sh");
    write_script(&test, CRATE_TEST);
    let (out_dir, stats) = (dir.path().join("out"), dir.path().join("stats.json"));
    let out = run(&["-q", "--passes", "unused,perses", "--stats", stats.to_str().unwrap(), "-o", out_dir.to_str().unwrap()], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    assert_eq!(files(&out_dir), ["src/lib.rs"]);
    let s = read_stats(&stats);
    assert!(s["passes"]["files"]["accepted"].as_u64().unwrap() >= 1, "{}", s["passes"]);
}

#[test]
fn a_python_module_goes_with_its_from_import_line() {
    require_tool("python3");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("pkg");
    tree(
        &root,
        &[
            ("main.py", "from util import helper\nfrom extra import spare\n\nprint(helper(2))\n"),
            ("util.py", "def helper(x):\n    return x * 2\n"),
            ("extra.py", "def spare():\n    return 1\n"),
        ],
    );
    let test = dir.path().join("test.sh");
    write_script(&test, "cd \"$1\" && [ \"$(python3 main.py 2>/dev/null)\" = 4 ]");
    let (out_dir, stats) = (dir.path().join("out"), dir.path().join("stats.json"));
    let out = run(&["-q", "--passes", "files", "--stats", stats.to_str().unwrap(), "-o", out_dir.to_str().unwrap()], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    // The files search alone: extra.py could go only with the line importing it.
    assert_eq!(files(&out_dir), ["main.py", "util.py"]);
    let main = fs::read_to_string(out_dir.join("main.py")).unwrap();
    assert!(!main.contains("extra") && main.contains("from util import helper"), "{main}");
    assert!(Command::new(&test).arg(&out_dir).status().unwrap().success());
}

#[test]
fn classes_that_name_each_other_go_as_a_group_at_a_round_start() {
    require_tool("javac");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("src");
    // `Left` and `Right` name each other, so neither is an orphan and javac rejects the
    // tree without either alone; without the `files` search, the unused search's round
    // start deletes the two as one group.
    tree(
        &root,
        &[
            ("app/Main.java", "package app;\n\nclass Main {\n    static int area(int side) { return side * side; }\n}\n"),
            ("app/Left.java", "package app;\n\nclass Left {\n    Right right;\n    int size() { return 1; }\n}\n"),
            ("app/Right.java", "package app;\n\nclass Right {\n    Left left;\n    int size() { return left.size(); }\n}\n"),
        ],
    );
    let test = dir.path().join("test.sh");
    write_script(
        &test,
        &format!("cd \"$1\" && grep -q 'side \\* side' app/Main.java || exit 1; d=$(mktemp -d) && {JAVAC} -d \"$d\" $(find . -name '*.java') >/dev/null 2>&1; r=$?; rm -rf \"$d\"; [ $r -eq 0 ]"),
    );
    let (out_dir, stats) = (dir.path().join("out"), dir.path().join("stats.json"));
    let out = run(
        &["-q", "--passes", "unused,perses", "--no-fixpoint", "--stats", stats.to_str().unwrap(), "-o", out_dir.to_str().unwrap()],
        &test,
        &[&root],
        dir.path(),
    );
    assert_exit(&out, 0);
    assert!(Command::new(&test).arg(&out_dir).status().unwrap().success());
    assert_eq!(files(&out_dir), ["app/Main.java"]);
    let s = read_stats(&stats);
    assert_eq!(s["passes"]["files"]["accepted"].as_u64(), Some(1), "{}", s["passes"]);
}

#[test]
fn binary_files_symlinks_and_kept_paths_reach_every_test_as_they_are() {
    require_tool("gcc");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    tree(
        &root,
        &[
            ("main.c", "#include \"util.h\"\nint unused_a(void) { return 4; }\nint main(void) { return helper(); }\n"),
            ("util.h", "int helper(void);\nint other(int x);\n"),
            ("notes/README", "do not\ntouch this\n"),
        ],
    );
    let blob: &[u8] = b"\x7fELF\x00\x01\x02\xff\xfe";
    fs::write(root.join("data.bin"), blob).unwrap();
    std::os::unix::fs::symlink("util.h", root.join("alias.h")).unwrap();
    fs::write(dir.path().join("blob.ref"), blob).unwrap();
    // The test needs the blob's bytes, the symlink and the notes in every candidate tree.
    let test = dir.path().join("test.sh");
    let check = format!(
        "cd \"$1\" && cmp -s data.bin '{}' && [ -L alias.h ] && grep -q touch notes/README && gcc -fsyntax-only -include alias.h main.c >/dev/null 2>&1 && grep -q helper main.c",
        dir.path().join("blob.ref").display()
    );
    write_script(&test, &check);
    let out_dir = dir.path().join("out");
    let out = run(&["--keep", "notes/", "-o", out_dir.to_str().unwrap()], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("keeping 2 file(s) and 1 symlink(s) as they are"), "{err}");
    // The result has them too, unreduced, while the C files were reduced.
    assert_eq!(fs::read(out_dir.join("data.bin")).unwrap(), blob);
    assert_eq!(fs::read_link(out_dir.join("alias.h")).unwrap(), Path::new("util.h"));
    assert_eq!(fs::read_to_string(out_dir.join("notes/README")).unwrap(), "do not\ntouch this\n");
    assert!(!fs::read_to_string(out_dir.join("main.c")).unwrap().contains("unused_a"));
    let ok = Command::new("sh").arg(&test).arg(&out_dir).current_dir(&out_dir).status().unwrap();
    assert!(ok.success());
    // In place: the original tree, symlink included, goes to DIR.orig; the kept files stay.
    let out = run(&["-q", "--keep", "notes"], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    let orig = dir.path().join("proj.orig");
    assert_eq!(fs::read_link(orig.join("alias.h")).unwrap(), Path::new("util.h"));
    assert_eq!(fs::read(root.join("data.bin")).unwrap(), blob);
    assert!(fs::read_to_string(root.join("main.c")).unwrap().len() < fs::read_to_string(orig.join("main.c")).unwrap().len());
    // --keep must name something of the project.
    let out = run(&["-q", "--keep", "nowhere"], &test, &[&root], dir.path());
    assert_exit(&out, 2);
}

#[test]
fn with_delete_binaries_the_binary_files_and_symlinks_the_test_does_not_need_go() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("proj");
    tree(&root, &[("main.c", "int main(void) { return 0; }\nint spare(void) { return 1; }\n"), ("notes/README", "kept\n")]);
    let needed: &[u8] = b"\x7fELF\x00needed\xff";
    fs::create_dir_all(root.join("lib")).unwrap();
    fs::write(root.join("lib/needed.so"), needed).unwrap();
    fs::write(root.join("junk.bin"), b"\x00\x01junk\xfe").unwrap();
    std::os::unix::fs::symlink("main.c", root.join("link.c")).unwrap();
    fs::write(dir.path().join("needed.ref"), needed).unwrap();
    let test = dir.path().join("test.sh");
    let check = format!("cd \"$1\" && cmp -s lib/needed.so '{}' && grep -q main main.c && [ -f notes/README ]", dir.path().join("needed.ref").display());
    write_script(&test, &check);
    let out_dir = dir.path().join("out");
    let out = run(&["-q", "--delete-binaries", "--keep", "notes", "-o", out_dir.to_str().unwrap()], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    // The binary the test needs is there, unchanged; the others went, as the kept notes stayed.
    assert_eq!(files(&out_dir), ["lib/needed.so", "main.c", "notes/README"]);
    assert_eq!(fs::read(out_dir.join("lib/needed.so")).unwrap(), needed);
    assert!(Command::new(&test).arg(&out_dir).status().unwrap().success());
    // In place: the same, the originals in DIR.orig.
    let out = run(&["-q", "--delete-binaries"], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    assert!(fs::symlink_metadata(root.join("link.c")).is_err() && !root.join("junk.bin").exists());
    assert_eq!(fs::read(root.join("lib/needed.so")).unwrap(), needed);
    assert_eq!(fs::read_link(dir.path().join("proj.orig/link.c")).unwrap(), Path::new("main.c"));
    // It is for projects only.
    let single = dir.path().join("one.c");
    fs::write(&single, "int main(void) { return 0; }\n").unwrap();
    assert_exit(&run(&["-q", "--delete-binaries"], &test, &[&single], dir.path()), 2);
}

#[test]
fn each_file_is_reduced_in_its_own_language() {
    require_tool("gcc");
    require_tool("python3");
    require_tool("node");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("mixed");
    // C has the most bytes: the project's language. The JavaScript is one line, which no
    // reduction by lines can shrink; parsed as JavaScript, its unused function goes.
    tree(&root, &[
        ("main.c", "#include <stdio.h>\nint helper(int x) { return x + 1; }\nint twice(int x) { return 2 * x; }\nint main(void) { printf(\"%d\\n\", helper(2)); return 0; }\n"),
        ("gen.py", "def unused_one(a, b):\n    return a * b\n\nprint('MARK', [i * 2 for i in range(3)])\n"),
        ("app.js", "function unusedJs(a) { return a + 1; } console.log('JSMARK', [1, 2].length);\n"),
    ]);
    let test = dir.path().join("test.sh");
    write_script(
        &test,
        "cd \"$1\" && python3 gen.py | grep -q MARK && node app.js | grep -q JSMARK && gcc -fsyntax-only main.c 2>/dev/null && grep -q helper main.c",
    );
    let stats = dir.path().join("stats.json");
    let out = run(&["-q", "--stats", stats.to_str().unwrap()], &test, &[&root], dir.path());
    assert_exit(&out, 0);
    let js = fs::read_to_string(root.join("app.js")).unwrap();
    assert!(!js.contains("unusedJs") && js.contains("JSMARK"), "{js}");
    let py = fs::read_to_string(root.join("gen.py")).unwrap();
    assert!(!py.contains("unused_one") && py.contains("MARK"), "{py}");
    // Each file counted in its own language's tokens.
    let s = read_stats(&stats);
    for f in s["files"].as_array().unwrap() {
        assert!(f["tokens_before"].as_u64().unwrap() > 10, "{f}");
    }
    let ok = Command::new("sh").arg(&test).arg(&root).current_dir(&root).status().unwrap();
    assert!(ok.success());
    // With --lang, one language for all: the others by lines, their tokens not counted.
    let stats = dir.path().join("stats2.json");
    let out = run(
        &["-q", "--lang", "c", "--stats", stats.to_str().unwrap(), "-o", dir.path().join("o").to_str().unwrap()],
        &test,
        &[&dir.path().join("mixed.orig")],
        dir.path(),
    );
    assert_exit(&out, 0);
    let s = read_stats(&stats);
    let js = s["files"].as_array().unwrap().iter().find(|f| f["path"] == "app.js").unwrap().clone();
    assert!(js["tokens_before"].is_null(), "{js}");
}

#[test]
fn the_example_project_gives_the_same_bytes_and_counts_at_j1_and_j2() {
    require_tool("gcc");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/c-project");
    let dir = tempfile::tempdir().unwrap();
    let mut seen = Vec::new();
    for jobs in ["1", "2"] {
        let out_dir = dir.path().join(format!("out{jobs}"));
        let stats = dir.path().join(format!("stats{jobs}.json"));
        let args = ["-q", "--no-cache", "-j", jobs, "--stats", stats.to_str().unwrap(), "-o", out_dir.to_str().unwrap()];
        let out = run(&args, &example.join("test.sh"), &[&example.join("project")], dir.path());
        assert_exit(&out, 0);
        let s = read_stats(&stats);
        let texts: Vec<(String, String)> = files(&out_dir).into_iter().map(|p| (p.clone(), fs::read_to_string(out_dir.join(&p)).unwrap())).collect();
        let counts: Vec<(String, u64, u64)> =
            s["passes"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v["tests"].as_u64().unwrap(), v["accepted"].as_u64().unwrap())).collect();
        seen.push((texts, s["tests"].clone(), counts));
    }
    assert_eq!(seen[0], seen[1]);
    // The headers went: included once each, they were inlined or deleted.
    assert_eq!(seen[0].0.len(), 1, "{:?}", seen[0].0);
}
