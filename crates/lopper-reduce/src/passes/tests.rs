use super::*;
use crate::{reduce, NoProgress, Options, Pipeline};

/// The pipeline of the built-in passes `names`, in order.
fn pipeline(names: &[&str]) -> Pipeline {
    Pipeline::built_in(names).unwrap()
}

/// A pipeline of `pass` alone (a plug-in from outside the crate).
fn plug_in(pass: Box<dyn Pass>) -> Pipeline {
    let mut p = Pipeline::default();
    p.push_main(pass);
    p
}
use lopper_parse::{Frontend, Language};
use lopper_tree::{Edit, RenderOptions};
use std::sync::{Arc, Mutex};

fn json() -> Frontend {
    Frontend::from_pest("json", include_str!("../../../lopper-parse/grammars/json.pest")).unwrap()
}

/// Every variant a pass offers over `src`, rendered, in instance order.
fn variants(f: &Frontend, pass: &mut dyn Pass, src: &str) -> Vec<String> {
    let tree = f.parse(src).unwrap().tree;
    let cx = Context { best: src, tree: &tree, grammar: f.grammar() };
    pass.prepare(cx);
    let mut out = Vec::new();
    for k in 0.. {
        match pass.instance(cx, k) {
            Instance::Exhausted => break,
            Instance::Skip => {}
            Instance::Variant(e) => out.push(tree.render(&e, RenderOptions::default())),
            Instance::Text(t) => out.push(t),
            other => panic!("a built-in pass offered {other:?}"),
        }
    }
    out
}

/// Sets the `k`-th number of a JSON document to `0` (skips numbers that are `0`), and
/// records every instance number it is asked for.
struct Zero(Arc<Mutex<Vec<usize>>>, Vec<lopper_tree::NodeId>);

impl Pass for Zero {
    fn name(&self) -> &str {
        "zero"
    }
    fn prepare(&mut self, cx: Context<'_>) {
        self.1 = cx.tree.token_ids().iter().copied().filter(|&t| cx.tree.token_text(t).starts_with(|c: char| c.is_ascii_digit())).collect();
    }
    fn instance(&self, cx: Context<'_>, k: usize) -> Instance {
        self.0.lock().unwrap().push(k);
        match self.1.get(k) {
            None => Instance::Exhausted,
            Some(&t) if cx.tree.token_text(t) == "0" => Instance::Skip,
            Some(&t) => Instance::Variant(EditSet::default().with(t, Edit::Text("0".into()))),
        }
    }
}

#[test]
fn the_scheduler_follows_regehrs_contract() {
    for jobs in [1, 2] {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let opts = Options::perses(jobs);
        let mut oracle = |t: &str| t.contains('7');
        let out = reduce(&json(), "[5, 7, 9, 8]", &mut oracle, &opts, plug_in(Box::new(Zero(calls.clone(), vec![]))), &mut NoProgress).unwrap();
        assert_eq!(out.text, "[0, 7, 0, 0]");
        // The original, then 5→0 (yes), 7→0 (no), 9→0 (yes), 8→0 (yes); the second round
        // tries 7→0 on the new best (no) and changes nothing, so the fixpoint is reached.
        assert_eq!((out.stats.tests, out.stats.rounds), (6, 2), "jobs {jobs}");
        let zero = out.stats.pass_named("zero").unwrap();
        assert_eq!((zero.tests, zero.accepted), (5, 3));
        if jobs == 1 {
            // Retry k after a success (0 again: now a skip), k + 1 after a failure, stop at
            // the first missing instance; then the second round.
            assert_eq!(*calls.lock().unwrap(), [0, 0, 1, 2, 2, 3, 3, 4, 0, 1, 2, 3, 4]);
        }
    }
}

#[test]
fn a_change_that_failed_in_the_same_neighbourhood_is_not_tested_again() {
    for jobs in [1, 2, 8] {
        let opts = Options::perses(jobs);
        let mut judged = Vec::new();
        let mut oracle = |t: &str| {
            judged.push(t.to_string());
            t.contains('7') && t.contains('9')
        };
        let src = "[\n 5,\n 0,\n 7,\n 0,\n 9,\n 3\n]";
        let out = reduce(&json(), src, &mut oracle, &opts, plug_in(Box::new(Zero(Arc::default(), vec![]))), &mut NoProgress).unwrap();
        assert_eq!(out.text, "[\n 0,\n 0,\n 7,\n 0,\n 9,\n 0\n]");
        // Round 1: 5→0 (yes), 7→0 (no), 9→0 (no), 3→0 (yes). Round 2: 7→0 has the same lines
        // around it as in round 1 and is presumed to fail; 9→0 now has `0` below instead of
        // `3`, so it is tested again.
        assert_eq!((out.stats.tests, out.stats.presumed, out.stats.rounds), (6, 1, 2), "jobs {jobs}");
        assert_eq!(judged.iter().filter(|t| !t.contains('7')).count(), 1, "jobs {jobs}: 7→0 tested once");
    }
    // The key covers the changed lines and one line either side, and the pass.
    let key = |pass: &str, a: &str, b: &str| crate::judge::local_change(crate::judge::LocalKey { pass, modulo_words: pass == crate::perses::INFO.name }, a, b);
    assert_eq!(key("p", "x\n1\n7\n1\ny", "x\n1\n0\n1\ny"), key("p", "z\n1\n7\n1\nw", "z\n1\n0\n1\nw"));
    assert_ne!(key("p", "1\n7\n1", "1\n0\n1"), key("p", "1\n7\n2", "1\n0\n2"));
    assert_ne!(key("p", "1\n7\n1", "1\n0\n1"), key("q", "1\n7\n1", "1\n0\n1"));
    // Perses' own changes (here: any pass that keeps words) are keyed modulo a consistent
    // renaming of words (the passes rename between Perses runs), not modulo anything else.
    let perses = |a: &str, b: &str| key(crate::perses::INFO.name, a, b);
    assert_eq!(perses("int count;\ncount = f(2);\n}", "int count;\n}"), perses("int a;\na = b(2);\n}", "int a;\n}"));
    assert_ne!(perses("int count;\ncount = f(2);\n}", "int count;\n}"), perses("int a;\nb = c(2);\n}", "int a;\n}"));
    assert_ne!(perses("int a;\na = b(2);\n}", "int a;\n}"), perses("int a;\na = b(3);\n}", "int a;\n}"));
    assert_ne!(key("p", "int count;\ncount = 1;", "int count;"), key("p", "int a;\na = 1;", "int a;"));
}

#[test]
fn a_variant_not_smaller_under_the_measure_is_never_tested() {
    // Renaming `a` to anything is never smaller: the pass offers nothing worth a test.
    let mut oracle = |_: &str| true;
    let opts = Options::perses(1);
    let f = Frontend::new(Language::C).unwrap();
    let out = reduce(&f, "int a;\n", &mut oracle, &opts, pipeline(&["identifiers"]), &mut NoProgress).unwrap();
    assert_eq!((out.text.as_str(), out.stats.tests), ("int a;\n", 1));
    assert!(Measure::of("b", 1) < Measure::of("aa", 1) && Measure::of("zz", 1) < Measure::of("a", 2));
}

#[test]
fn identifiers_rename_every_occurrence_to_the_shortest_free_name() {
    let c = Frontend::new(Language::C).unwrap();
    let v = variants(&c, &mut identifiers::Identifiers::default(), "int count(int total) { return total + count(1); }\n");
    // All at once first; each distinct name gets its own target, so that instances never
    // collide.
    assert_eq!(v, ["int a(int b) { return b + a(1); }\n", "int a(int total) { return total + a(1); }\n", "int count(int b) { return b + count(1); }\n"]);
    // Names in use are skipped: `a` is taken.
    let java = Frontend::new(Language::Java).unwrap();
    let v = variants(&java, &mut identifiers::Identifiers::default(), "class Big { int a; int dz; }\n");
    assert_eq!(v, ["class b { int a; int c; }\n", "class b { int a; int dz; }\n", "class Big { int a; int c; }\n"]);
    // JavaScript: properties are identifiers of the same word rule, renamed with them.
    let js = Frontend::new(Language::JavaScript).unwrap();
    let v = variants(&js, &mut identifiers::Identifiers::default(), "let value = obj.value;\n");
    assert_eq!(v, ["let a = b.a;\n", "let a = obj.a;\n", "let value = b.value;\n"]);
}

#[test]
fn inline_puts_a_short_definitions_word_where_its_name_is_used() {
    let c = Frontend::new(Language::C).unwrap();
    let v = variants(&c, &mut inline::Inline::default(), "typedef __builtin_va_list b;\nint f(void) { b e; return 0; }\n");
    assert!(v.contains(&"int f(void) { __builtin_va_list e; return 0; }\n".to_string()), "{v:?}");
    // Punctuation never stands for a name; a name with no later use is left to Perses.
    assert!(v.iter().all(|x| !x.contains("; e;")), "{v:?}");
    let v = variants(&c, &mut inline::Inline::default(), "typedef int b;\nint f(void) { return 0; }\n");
    assert_eq!(v, Vec::<String>::new());
    // JavaScript: a variable with a simple initializer (copy propagation).
    let js = Frontend::new(Language::JavaScript).unwrap();
    let v = variants(&js, &mut inline::Inline::default(), "var a = f;\na(a);\n");
    assert!(v.contains(&"f(f);\n".to_string()), "{v:?}");
    // A parameter's default starts with its name: not a definition to inline.
    let v = variants(&js, &mut inline::Inline::default(), "function g(b = c) { return b; }\n");
    assert_eq!(v, Vec::<String>::new());
    // Java: a field's type or its initializer; a whole class is too long to inline.
    let java = Frontend::new(Language::Java).unwrap();
    let v = variants(&java, &mut inline::Inline::default(), "class A { static int k = 4; int g() { return k + k; } }\n");
    assert!(v.contains(&"class A { int g() { return 4 + 4; } }\n".to_string()), "{v:?}");
    assert!(v.iter().all(|x| x.contains("class A")), "{v:?}");
}

#[test]
fn literals_become_zero_one_or_empty() {
    let c = Frontend::new(Language::C).unwrap();
    let v = variants(&c, &mut literals::Literals::default(), "char *s = \"hello\"; int n = 42 + 1;\n");
    assert_eq!(
        v,
        [
            "char *s = \"\"; int n = 0 + 0;\n",
            "char *s = \"\"; int n = 42 + 1;\n",
            "char *s = \"hello\"; int n = 0 + 1;\n",
            "char *s = \"hello\"; int n = 1 + 1;\n",
            "char *s = \"hello\"; int n = 42 + 0;\n"
        ]
    );
    let java = Frontend::new(Language::Java).unwrap();
    let v = variants(&java, &mut literals::Literals::default(), "class A { String s = \"x\" + \"y\"; }\n");
    assert_eq!(v, ["class A { String s = \"\" + \"\"; }\n", "class A { String s = \"\" + \"y\"; }\n", "class A { String s = \"x\" + \"\"; }\n"]);
    // A grammar file's string is one token.
    let v = variants(&json(), &mut literals::Literals::default(), "{\"k\": \"long\"}");
    assert_eq!(v, ["{\"\": \"\"}", "{\"\": \"long\"}", "{\"k\": \"\"}"]);
}

#[test]
fn tokens_deletes_runs_then_pairs() {
    let js = Frontend::new(Language::JavaScript).unwrap();
    let v = variants(&js, &mut tokens::Tokens::default(), "f((x));\n");
    // 7 tokens: 4 runs of 4, 5 of 3, 6 of 2, 7 of 1, then pairs 2..=6 apart (5 + 4 + 3 + 2 + 1),
    // then the triples of 4 adjacent tokens that keep the second (4).
    assert_eq!(v.len(), 4 + 5 + 6 + 7 + 5 + 4 + 3 + 2 + 1 + 4);
    assert_eq!((v[0].as_str(), v[4].as_str()), ("));\n", "x));\n"));
    assert!(v.contains(&"f(x);\n".to_string()), "the parentheses around x as a pair: {v:?}");
    // The first two triples: `f ( ( x` keeping the first `(`, then `( ( x )` keeping the
    // second `(`.
    assert_eq!(&v[v.len() - 4..v.len() - 2], ["());\n", "f();\n"]);
    // A declaration's type, name and `=` go, its pointer star stays: `int *e = f();` → `* f();`.
    let c = Frontend::new(Language::C).unwrap();
    let v = variants(&c, &mut tokens::Tokens::default(), "void g() { int *e = f(); }\n");
    assert!(v.contains(&"void g() { * f(); }\n".to_string()), "{v:?}");
}

#[test]
fn the_default_pipeline_goes_past_one_minimal() {
    // Interesting: some name is called (or declared) twice, and a number above 5 is left.
    let c = Frontend::new(Language::C).unwrap();
    let src = "int compute_total(int value) { return value * 2; }\nint main(void) { return compute_total((int)41); }\n";
    let test = |t: &str| {
        let words: Vec<&str> = t.split(|ch: char| !(ch.is_alphanumeric() || ch == '_')).collect();
        let called: Vec<&str> =
            t.match_indices('(').map(|(i, _)| t[..i].trim_end()).filter_map(|b| words.iter().find(|w| !w.is_empty() && b.ends_with(*w)).copied()).collect();
        let twice =
            called.iter().any(|w| !w.is_empty() && w.chars().next().is_some_and(|ch| ch.is_alphabetic()) && called.iter().filter(|x| x == &w).count() >= 2);
        twice && words.iter().any(|n| n.parse::<u32>().is_ok_and(|n| n > 5))
    };
    assert!(test(src));
    let perses = reduce(&c, src, &mut { test }, &Options::perses(1), Pipeline::perses(), &mut NoProgress).unwrap();
    let full = reduce(&c, src, &mut { test }, &Options::perses(1), pipeline(&["perses", "tokens", "identifiers", "literals"]), &mut NoProgress).unwrap();
    assert!(test(&full.text) && c.syntax_errors(&full.text).unwrap() == 0, "{}", full.text);
    // Perses keeps the long name; identifier canonicalization shortens it everywhere.
    assert!(perses.text.contains("compute_total"), "{}", perses.text);
    assert!(!full.text.contains("compute_total") && full.text.len() < perses.text.len(), "{}\nvs\n{}", full.text, perses.text);
    assert!(full.stats.pass_stats.iter().any(|p| p.name == "identifiers" && p.accepted > 0), "{:?}", full.stats.pass_stats);
}

#[test]
fn subtrees_replace_a_node_by_the_smallest_text_its_slot_derives() {
    let c = Frontend::new(Language::C).unwrap();
    let v = variants(&c, &mut subtrees::Subtrees::default(), "int f(int a) { if (a) { g(a); h(a); } return (a + 2) * a; }\n");
    // An expression becomes the shortest expression the program shows (`2`, before `a`).
    assert!(v.contains(&"int f(int a) { if (a) { g(a); h(a); } return 2; }\n".to_string()), "{v:#?}");
    // A block in statement position becomes the shortest statement, `;`.
    assert!(v.contains(&"int f(int a) { if (a) ; return (a + 2) * a; }\n".to_string()), "{v:#?}");
}

/// The layout of `src` in the language of `f`.
fn laid_out(f: &Frontend, src: &str) -> String {
    let tree = f.parse(src).unwrap().tree;
    let out = layout::layout(&tree);
    // Same tokens, in the same order, and no new syntax errors.
    let again = f.parse(&out).unwrap().tree;
    let texts = |t: &lopper_tree::Tree| t.token_ids().iter().map(|&i| t.token_text(i).to_string()).collect::<Vec<_>>();
    assert_eq!(texts(&tree), texts(&again), "{out}");
    assert_eq!(f.syntax_errors(&out).unwrap(), f.syntax_errors(src).unwrap(), "{out}");
    out
}

#[test]
fn layout_reindents_by_bracket_depth_and_unglues_operators() {
    let c = Frontend::new(Language::C).unwrap();
    // Ragged lines left by deleted nesting, a glued `=`, runs of spaces, a comma glued on.
    let src = "#define N 1\nint f(int a,int b){\n    int x=a;\n      if (x)   {\n  return b;\n            }\n    return  x;\n}\n";
    assert_eq!(
        laid_out(&c, src),
        "#define N 1\nint f(int a, int b){\n    int x = a;\n    if (x) {\n        return b;\n    }\n    return x;\n}\n",
        "the unit is the step most lines were indented by (4)"
    );
    // Leftovers of deletions inside parentheses and before separators go; braces keep theirs.
    assert_eq!(laid_out(&c, "void g( ) { h( 1 , 2 ) ; }\n"), "void g() { h(1, 2); }\n");
    let js = Frontend::new(Language::JavaScript).unwrap();
    assert_eq!(laid_out(&js, "let f = () =>url;\nclass A {\n\t\tstatic {\n\tf()\n  }\n}\n"), "let f = () => url;\nclass A {\n\tstatic {\n\t\tf()\n\t}\n}\n");
    // Brackets opened on one line indent the next lines once: an IIFE's body, a callback's.
    assert_eq!(laid_out(&js, "(function () {\n    f(() => {\n            g()\n    })\n})\n"), "(function () {\n    f(() => {\n        g()\n    })\n})\n");
    let java = Frontend::new(Language::Java).unwrap();
    assert_eq!(laid_out(&java, "class A {\n  void m() {\n      int[] a={1,2};\n  }\n}\n"), "class A {\n  void m() {\n    int[] a = {1, 2};\n  }\n}\n");
    // A grammar file's language: JSON keeps its one line, commas get their space.
    assert_eq!(laid_out(&json(), "{\"a\":[1,2],   \"b\":{}}"), "{\"a\":[1, 2], \"b\":{}}");
}

#[test]
fn layout_is_tested_once_at_the_end_and_kept_when_interesting() {
    let c = Frontend::new(Language::C).unwrap();
    let src = "int main(void) {\n        int  x=1;\n  return x;\n}\n";
    // Interesting: any program that mentions `x` (Perses leaves `int x=1;` and `return x;`
    // alone when both must stay).
    let mut oracle = |t: &str| t.contains("int") && t.contains("x=1") || t.contains("x = 1");
    let out = reduce(&c, src, &mut oracle, &Options::perses(1), pipeline(&["layout"]), &mut NoProgress).unwrap();
    assert_eq!(out.text, "int main(void) {\n  int x = 1;\n  return x;\n}\n");
    let layout = out.stats.pass_named("layout").expect("layout has its stats");
    assert_eq!((layout.tests, layout.accepted), (1, 1));
    // A test that needs the old whitespace keeps it: the layout is rejected, nothing lost.
    let mut picky = |t: &str| t.contains("int  x=1");
    let out = reduce(&c, src, &mut picky, &Options::perses(1), pipeline(&["layout"]), &mut NoProgress).unwrap();
    assert_eq!(out.text, src);
}

#[test]
fn params_moves_a_local_declaration_into_the_parameter_list() {
    let c = Frontend::new(Language::C).unwrap();
    let v = variants(&c, &mut params::Params::default(), "void a() {\n  T c;\n  c[0] = 0;\n}\n");
    // `c[0] = 0;` has 7 tokens: more than a declaration's MAX_DECLARATION.
    assert_eq!(v, ["void a(T c) {\n  \n  c[0] = 0;\n}\n"]);
    assert_eq!(c.syntax_errors(&v[0]).unwrap(), 0);
    // After a parameter, with a comma; a block not after `)` offers nothing.
    let v = variants(&c, &mut params::Params::default(), "int f(int b) { int *x; { int y; } }\n");
    assert_eq!(v[0], "int f(int b, int *x) {  { int y; } }\n");
    assert!(v.iter().all(|t| !t.contains("y)")), "{v:?}");
    // Java, too: the grammar's lists, no language of its own.
    let java = Frontend::new(Language::Java).unwrap();
    let v = variants(&java, &mut params::Params::default(), "class A { void m() { int x; x = 1; } }\n");
    assert_eq!(v[0], "class A { void m(int x) {  x = 1; } }\n");
    assert_eq!(java.syntax_errors(&v[0]).unwrap(), 0);
    // JavaScript takes no `let` in a parameter list: the variant is offered, and the grammar
    // screen (no new syntax errors) keeps it from any test.
    let js = Frontend::new(Language::JavaScript).unwrap();
    let v = variants(&js, &mut params::Params::default(), "function f() { let x; x = 1; }\n");
    assert_eq!(v[0], "function f(let x) {  x = 1; }\n");
    assert!(js.syntax_errors(&v[0]).unwrap() > 0);
}

/// The source text of node `e`, from its first token to its last.
fn element_text(tree: &lopper_tree::Tree, e: lopper_tree::NodeId) -> &str {
    let ids = tree.subtree_token_ids(e);
    &tree.source()[span(tree, ids[0]).start..span(tree, ids[ids.len() - 1]).end]
}

/// The texts of the elements of `src`'s largest list that [`crate::graph::Names`] finds
/// unreferenced.
fn unreferenced(f: &Frontend, src: &str) -> Vec<String> {
    let tree = f.parse(src).unwrap().tree;
    let live = tree.live(&EditSet::default());
    let names = crate::graph::Names::new(&tree, &live, f.grammar());
    let lists = crate::unused::lists(&tree, &EditSet::default());
    let list = lists.iter().copied().max_by_key(|&l| (tree.node(l).tokens, std::cmp::Reverse(l))).unwrap();
    tree.node(list).children.iter().filter(|&&e| names.unreferenced(e, &live)).map(|&e| element_text(&tree, e).to_string()).collect()
}

#[test]
fn unused_finds_the_declarations_nothing_else_uses() {
    let c = Frontend::new(Language::C).unwrap();
    let src = "typedef int T;\ntypedef T U;\nint g;\nstatic int helper(int x) { return x + g; }\nint spare(void) { return 1; }\nint main(void) { return helper(2); }\n";
    // `T`, `g` and `helper` are used after their declaration; nothing uses `U`, `spare` or
    // `main`.
    assert_eq!(unreferenced(&c, src), ["typedef T U;", "int spare(void) { return 1; }", "int main(void) { return helper(2); }"]);
    // An element that declares nothing (its names all occur first elsewhere) is no
    // declaration: a statement is Perses' to delete.
    assert_eq!(unreferenced(&c, "int f(int a) { a = 1; a = 2; int b = 3; return a; }\n"), ["int b = 3;"]);
    let js = Frontend::new(Language::JavaScript).unwrap();
    assert_eq!(unreferenced(&js, "function f() {}\nfunction g() { f(); }\nvar x = 1;\ng;\n"), ["var x = 1;"]);
    let java = Frontend::new(Language::Java).unwrap();
    assert_eq!(
        unreferenced(&java, "class A { int k; int used() { return k; } int spare() { return 0; } void run() { used(); } }\n"),
        ["int spare() { return 0; }", "void run() { used(); }"]
    );
}

/// A C-like test that accepts a program when it still declares `crash` and every name `tN`
/// it uses was declared before by a `typedef … tN;` (declare-before-use, as a compiler
/// checks it).
fn declared_before_use(t: &str) -> bool {
    let mut declared = std::collections::HashSet::new();
    for line in t.lines() {
        let words: Vec<&str> =
            line.split(|ch: char| !(ch.is_alphanumeric() || ch == '_')).filter(|w| w.starts_with('t') && w[1..].parse::<u32>().is_ok()).collect();
        let (uses, new) = match (line.trim_start().starts_with("typedef"), words.split_last()) {
            (true, Some((last, rest))) => (rest, Some(*last)),
            _ => (&words[..], None),
        };
        if uses.iter().any(|u| !declared.contains(u)) {
            return false;
        }
        declared.extend(new);
    }
    t.contains("int crash")
}

#[test]
fn unused_deletes_a_chain_of_declarations_in_a_few_tests() {
    let c = Frontend::new(Language::C).unwrap();
    // A chain t0 ← t1 ← … ← t9 that nothing at its end uses, functions nothing calls, and
    // the one declaration the test needs in the middle.
    let mut src = String::from("typedef int t0;\n");
    for k in 1..10 {
        src += &format!("typedef t{} t{k};\n", k - 1);
        src += &format!("int f{k}(void) {{ return {k}; }}\n");
        if k == 5 {
            src += "int crash(int a) { return a; }\n";
        }
    }
    assert!(declared_before_use(&src));
    for jobs in [1, 3] {
        let opts = Options::perses(jobs);
        let perses = reduce(&c, &src, &mut declared_before_use, &opts, pipeline(&["perses"]), &mut NoProgress).unwrap();
        let with = reduce(&c, &src, &mut declared_before_use, &opts, pipeline(&["unused", "perses"]), &mut NoProgress).unwrap();
        assert!(declared_before_use(&with.text) && c.syntax_errors(&with.text).unwrap() == 0, "{}", with.text);
        assert!(!with.text.contains("typedef") && !with.text.contains("f1"), "{}", with.text);
        assert!(with.text.len() <= perses.text.len(), "{}\nvs\n{}", with.text, perses.text);
        // The round's start: the slices (ddmin over t9, the functions and crash, each with
        // the chain only it reaches), then the unused search (measured: 5 tests, 3
        // accepted; before the slices, 6 tests, 4 accepted).
        let (unused, slices) = (with.stats.pass_named("unused").unwrap(), with.stats.pass_named("slices").unwrap());
        assert!(unused.accepted + slices.accepted >= 2 && unused.tests + slices.tests <= 8, "{:?}", with.stats.pass_stats);
        assert!(with.stats.tests < perses.stats.tests, "{} vs {} tests", with.stats.tests, perses.stats.tests);
    }
}

#[test]
fn unused_dead_takes_chains_and_cycles_but_not_what_a_kept_element_uses() {
    let c = Frontend::new(Language::C).unwrap();
    let src = "typedef int T;\ntypedef T U;\nstruct A { struct B *b; };\nstruct B { struct A *a; };\nU keep_me;\nint crash(void) { return 0; }\n";
    let tree = c.parse(src).unwrap().tree;
    let live = tree.live(&EditSet::default());
    let names = crate::graph::Names::new(&tree, &live, c.grammar());
    let list = *crate::unused::lists(&tree, &EditSet::default()).iter().max_by_key(|&&l| tree.node(l).tokens).unwrap();
    let elements = tree.node(list).children.clone();
    let text = |v: Vec<lopper_tree::NodeId>| v.into_iter().map(|e| element_text(&tree, e).to_string()).collect::<Vec<_>>();
    // Keeping `crash` only: the typedef chain, `keep_me` and the cycle of the two structs
    // all go (`struct A` is not unreferenced alone: `struct B` names it).
    let crash = |e: lopper_tree::NodeId| element_text(&tree, e).starts_with("int crash");
    let dead = text(names.dead(&elements, &crash, &live));
    assert_eq!(dead, ["typedef int T;", "typedef T U;", "struct A { struct B *b; };", "struct B { struct A *a; };", "U keep_me;"]);
    assert!(!names.unreferenced(elements[2], &live) && names.unreferenced(elements[3], &live));
    // Keeping `keep_me` keeps the chain it uses.
    let keep = |e: lopper_tree::NodeId| element_text(&tree, e).starts_with("U keep_me");
    let dead = text(names.dead(&elements, &keep, &live));
    assert_eq!(dead, ["struct A { struct B *b; };", "struct B { struct A *a; };", "int crash(void) { return 0; }"]);
}

#[test]
fn unused_follow_up_deletes_what_a_perses_deletion_left_unused_in_one_test() {
    let c = Frontend::new(Language::C).unwrap();
    // A typedef chain t0 ← … ← t5 that only `v` uses, its links between declarations the
    // test needs (k1 … k5); `crash` uses `v`, but the test does not check that name, so
    // Perses' ddmin may delete `v`, which leaves the whole chain unused.
    let mut src = String::from("typedef int t0;\n");
    for k in 1..6 {
        src += &format!("int k{k};\ntypedef t{} t{k};\n", k - 1);
    }
    src += "t5 v;\nint crash(int a) { return a + v; }\n";
    let test = |t: &str| declared_before_use(t) && (1..6).all(|k| t.contains(&format!("int k{k};")));
    assert!(test(&src));
    for jobs in [1, 3] {
        let opts = Options::perses(jobs);
        let perses = reduce(&c, &src, &mut { test }, &opts, pipeline(&["perses"]), &mut NoProgress).unwrap();
        let with = reduce(&c, &src, &mut { test }, &opts, pipeline(&["unused", "perses"]), &mut NoProgress).unwrap();
        assert!(test(&with.text) && !with.text.contains("typedef") && !with.text.contains("t5 v"), "{}", with.text);
        assert_eq!(with.text, perses.text);
        // Perses alone deletes the six typedefs one accepted test each once `v` is gone
        // (they sit between needed declarations); the follow-up takes them in one.
        let accepted = |o: &crate::Outcome, pass: &str| o.stats.pass_named(pass).map_or(0, |p| p.accepted);
        assert!(accepted(&perses, "list") >= 7, "{:?}", perses.stats.pass_stats);
        assert!(accepted(&with, "list") + accepted(&with, "unused") <= 3, "{:?}", with.stats.pass_stats);
        assert!(with.stats.tests < perses.stats.tests, "{} vs {} tests", with.stats.tests, perses.stats.tests);
    }
}

/// Judges candidates in order, like a sequential oracle, and checks the caller's
/// foresight: after each interesting candidate it asks for that candidate's successors,
/// and counts whether the next call's first candidate judged is the first of them.
struct Foresight<F> {
    test: F,
    predicted: Option<Vec<String>>,
    /// Successor lists asked for and found non-empty; of those, the ones the next call met.
    offered: usize,
    met: usize,
    /// Candidates of later calls that another call's prediction did not name first.
    missed: Vec<String>,
}

impl<F: FnMut(&str) -> bool> crate::Oracle for Foresight<F> {
    fn judge(&mut self, batch: crate::oracle::Batch<'_>) -> Result<Vec<crate::oracle::Judged>, crate::OracleError> {
        let mut run_all = |_| crate::oracle::Screened::Run;
        let mut none = |_| crate::oracle::no_successors();
        let screen = batch.screen.unwrap_or(&mut run_all);
        let successors = batch.successors.unwrap_or(&mut none);
        let mut out = Vec::new();
        for i in 0..batch.candidates.len() {
            if screen(i) == crate::oracle::Screened::Skip {
                continue;
            }
            let c = batch.candidates.get(i);
            if let Some(p) = self.predicted.take() {
                if p[0] == *c {
                    self.met += 1;
                } else {
                    self.missed.push(c.to_string());
                }
            }
            let v = if (self.test)(c) { crate::Verdict::Interesting } else { crate::Verdict::NotInteresting };
            out.push(crate::oracle::Judged { index: i, verdict: v, remembered: false });
            if v == crate::Verdict::Interesting {
                let next: Vec<String> = successors(i).collect();
                self.offered += !next.is_empty() as usize;
                self.predicted = (!next.is_empty()).then_some(next);
                break;
            }
        }
        Ok(out)
    }
}

#[test]
fn a_pass_names_the_variants_it_tries_after_an_accepted_one_as_its_successors() {
    let c = Frontend::new(Language::C).unwrap();
    let src = "int first_name; int second_name; int third_name;\nint main(void) { return first_name + second_name + third_name; }\n";
    for jobs in [1, 2] {
        let opts = Options::perses(jobs);
        // `main` must keep its name, so renaming every name at once fails, and the names go
        // one at a time.
        let mut oracle = Foresight { test: |t: &str| t.contains("return") && t.contains("main"), predicted: None, offered: 0, met: 0, missed: Vec::new() };
        let out = reduce(&c, src, &mut oracle, &opts, pipeline(&["identifiers"]), &mut NoProgress).unwrap();
        assert_eq!(out.text, "int a; int b; int c;\nint main(void) { return a + b + c; }\n");
        // Each renaming but the last is followed by the next one, on the renamed program:
        // exactly what the scheduler judges next.
        assert_eq!(out.stats.pass_named("identifiers").unwrap().accepted, 3);
        assert_eq!((oracle.offered, oracle.met), (2, 2), "missed {:?}", oracle.missed);
    }
}

#[test]
fn the_unused_search_names_the_next_lists_first_candidate_as_a_successor() {
    let c = Frontend::new(Language::C).unwrap();
    // Two functions the test needs, each with four unused locals: the search deletes each
    // body's locals in one candidate, the second body's right after the first's.
    let src = "int g1(void) { int u1 = 1; int u2 = 2; int u3 = 3; int u4 = 4; return 0; }\n\
               int g2(void) { int v1 = 1; int v2 = 2; int v3 = 3; int v4 = 4; return 0; }\n";
    let test = |t: &str| t.contains("int g1(void) {") && t.contains("int g2(void) {") && t.matches("return 0;").count() == 2;
    let opts = Options::perses(2);
    let mut oracle = Foresight { test, predicted: None, offered: 0, met: 0, missed: Vec::new() };
    let out = reduce(&c, src, &mut oracle, &opts, pipeline(&["unused", "perses"]), &mut NoProgress).unwrap();
    assert_eq!(out.text, "int g1(void) { return 0; }\nint g2(void) { return 0; }\n");
    assert_eq!(out.stats.pass_named("unused").unwrap().accepted, 2, "{:?}", out.stats.pass_stats);
    // g1's deletion names g2's as its successor, and that is what the search judges next.
    assert!(oracle.offered >= 1 && oracle.met == oracle.offered, "offered {}, met {}, missed {:?}", oracle.offered, oracle.met, oracle.missed);
}

#[test]
fn where_tests_pass_the_unused_search_takes_every_body_at_once() {
    let c = Frontend::new(Language::C).unwrap();
    // Six functions `main` calls, each with three chains of two unused locals: one list
    // per body.
    let mut src = String::new();
    for k in 1..=6 {
        src += &format!("int g{k}(void) {{ int a{k} = 1; int b{k} = a{k} + a{k}; int c{k} = 2; int d{k} = c{k} + c{k}; int e{k} = 3; int f{k} = e{k} + e{k}; return 0; }}\n");
    }
    src += "int main(void) { return g1() + g2() + g3() + g4() + g5() + g6(); }\n";
    let test = |t: &str| t.contains("int main(void)") && t.matches("return 0;").count() == 6 && (1..=6).all(|k| t.contains(&format!("int g{k}(void)")));
    let out = reduce(&c, &src, &mut { test }, &Options::perses(1), pipeline(&["unused", "perses"]), &mut NoProgress).unwrap();
    assert!(["int b", "int d", "int f"].iter().all(|l| !out.text.contains(l)), "{}", out.text);
    // g1's body's first level (`b1`, `d1`, `f1`; the second, `a1 = 1` …, is under
    // MIN_TOKENS), then the other five bodies' in one candidate: two accepted tests where
    // one list at a time takes six.
    let unused = out.stats.pass_named("unused").unwrap();
    assert_eq!(unused.accepted, 2, "{:?}", out.stats.pass_stats);
}

/// A plug-in that records every best it is prepared on, and offers nothing.
struct Recorder(Arc<Mutex<Vec<String>>>);

impl Pass for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }
    fn prepare(&mut self, cx: Context<'_>) {
        self.0.lock().unwrap().push(cx.best.to_string());
    }
    fn instance(&self, _: Context<'_>, _: usize) -> Instance {
        Instance::Exhausted
    }
}

#[test]
fn the_main_group_runs_in_the_order_given_with_a_plug_in_where_it_is_put() {
    let c = Frontend::new(Language::C).unwrap();
    let src = "int unused_one;\nint main(void) { return 42; }\n";
    let test = |t: &str| t.contains("main");
    // The recorder between literals and Perses, then again after Perses.
    for (at, perses_before) in [(1, false), (2, true)] {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let mut p = pipeline(&["literals", "perses"]);
        p.main.insert(at, crate::Step::Pass(Box::new(Recorder(seen.clone()))));
        let out = reduce(&c, src, &mut { test }, &Options::perses(1), p, &mut NoProgress).unwrap();
        let first = seen.lock().unwrap()[0].clone();
        // Literals ran before the recorder either way; Perses only when put before it.
        assert!(!first.contains("42"), "{first}");
        assert_eq!(!first.contains("unused_one"), perses_before, "{first}");
        let order: Vec<&str> = out.stats.pass_stats.iter().map(|p| p.name.as_str()).collect();
        let literals = order.iter().position(|p| *p == "literals").unwrap();
        let list = order.iter().position(|p| *p == "list").unwrap();
        assert!(literals < list, "{order:?}");
    }
    // --passes names outside the registry are refused; its own names (the default, in
    // its order) parse back to it.
    assert!(Pipeline::parse(&["perses", "nonesuch"]).is_err());
    let names: Vec<&str> = Pipeline::parse(&crate::pipeline::REGISTRY.map(|p| p.name)).unwrap().iter().map(|p| p.name).collect();
    assert_eq!(names, crate::pipeline::REGISTRY.map(|p| p.name));
}

#[test]
fn every_counted_name_has_plain_words_from_where_it_is_declared() {
    use crate::pipeline::registry::plain;
    assert!(crate::pipeline::REGISTRY.iter().all(|p| !p.plain.is_empty() && plain(p.name) == p.plain));
    assert_eq!(plain("list"), "deleting list elements");
    assert_eq!(plain("instances"), "emptying every body of one kind at once");
    // A clang_delta transformation keeps its own name.
    assert_eq!(plain("clang_delta:rename-fun"), "clang_delta:rename-fun");
}

#[test]
fn type_aliases_of_any_length_are_inlined_in_every_language_that_has_them() {
    let cases: [(Language, &str, &[&str]); 4] = [
        (
            Language::Cpp,
            "using Table = std::map<std::string, int>;\ntypedef const char *Name;\nTable load(Name n);\ntemplate <class T> using Vec = std::vector<T>;\nVec<int> v;\n",
            &[
                "\ntypedef const char *Name;\nstd::map<std::string, int> load(Name n);\ntemplate <class T> using Vec = std::vector<T>;\nVec<int> v;\n",
                "using Table = std::map<std::string, int>;\n\nTable load(const char * n);\ntemplate <class T> using Vec = std::vector<T>;\nVec<int> v;\n",
            ],
        ),
        (Language::C, "typedef unsigned long long Word;\ntypedef int Pair[2];\nWord w; Pair p;\n", &["\ntypedef int Pair[2];\nunsigned long long w; Pair p;\n"]),
        (Language::Rust, "type Pair = (u32, Vec<u8>);\ntype Ref<'a> = &'a str;\nfn f(p: Pair) -> Ref<'static> { \"\" }\n", &["\ntype Ref<'a> = &'a str;\nfn f(p: (u32, Vec<u8>)) -> Ref<'static> { \"\" }\n"]),
        (Language::Go, "package main\n\ntype Ints = map[string][]int\n\nfunc f(x Ints) Ints { return x }\n", &["package main\n\n\n\nfunc f(x map[string][]int) map[string][]int { return x }\n"]),
    ];
    for (lang, src, expected) in cases {
        let f = Frontend::new(lang).unwrap();
        let got = variants(&f, &mut aliases::Aliases::default(), src);
        assert_eq!(got, expected, "{lang:?}");
        // Every variant parses as the language.
        for v in &got {
            assert_eq!(f.syntax_errors(v).unwrap(), 0, "{lang:?}: {v}");
        }
    }
}

#[test]
fn one_expression_functions_are_inlined_at_their_calls_and_value_uses() {
    let cases: [(Language, &str, &[&str]); 4] = [
        // A function used as a value (`g`) and one that refers to itself (left alone).
        (
            Language::Rust,
            "fn f() -> impl A { g }\nfn g() -> impl A { D(f) }\nfn r() -> u8 { r() }\n",
            &["\nfn g() -> impl A { D(g) }\nfn r() -> u8 { r() }\n", "fn f() -> impl A { D(f) }\n\nfn r() -> u8 { r() }\n"],
        ),
        // A call `g ()` as a whole; a function with parameters or statements is left alone.
        (
            Language::C,
            "int g() { return 1 + 2; }\nint h(int x) { return x; }\nint k() { h(1); return 2; }\nint main() { return g () * h(3) + k(); }\n",
            &["\nint h(int x) { return x; }\nint k() { h(1); return 2; }\nint main() { return 1 + 2 * h(3) + k(); }\n"],
        ),
        (
            Language::Go,
            "package p\n\nfunc g() int { return len(\"ab\") }\n\nfunc h() { println(g()) }\n",
            &["package p\n\n\n\nfunc h() { println(len(\"ab\")) }\n"],
        ),
        (Language::JavaScript, "function g() { return x.y; }\nconsole.log(g(), g);\n", &["\nconsole.log(x.y, x.y);\n"]),
    ];
    for (lang, src, expected) in cases {
        let f = Frontend::new(lang).unwrap();
        let got = variants(&f, &mut bodies::Bodies::default(), src);
        assert_eq!(got, expected, "{lang:?}");
        for v in &got {
            assert_eq!(f.syntax_errors(v).unwrap(), 0, "{lang:?}: {v}");
        }
    }
}

#[test]
fn binary_search_chunks_halve_down_to_single_instances() {
    use super::external::chunk;
    let all: Vec<_> = (0..).map_while(|k| chunk(5, k)).collect();
    assert_eq!(all, [(1, 5), (1, 3), (4, 5), (1, 2), (3, 4), (5, 5), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]);
    assert_eq!(chunk(1, 0), Some((1, 1)));
    assert_eq!(chunk(1, 1), None);
    assert_eq!(chunk(0, 0), None);
}

#[test]
fn aggregates_delete_a_member_with_its_initializer_elements_and_binding_names() {
    let f = Frontend::new(Language::Cpp).unwrap();
    let got = |src: &str| variants(&f, &mut *aggregates::create(), src);
    // `g` is used: only `a` goes, with `f` and the `1`. The members differ in type: no array.
    let src = "struct S { int a; long b; };\nS s{1, 2};\nauto [f, g] = s;\nint h() { return g; }\n";
    assert_eq!(got(src), ["struct S {  long b; };\nS s{2};\nauto [g] = s;\nint h() { return g; }\n"]);
    // Every initializer of the class loses the element: objects and temporaries.
    let src = "struct P { int x; int y; };\nP p = {1, 2};\nP q{3, 4};\nint h() { return P{5, 6}.y + q.y; }\n";
    assert_eq!(got(src), ["struct P {  int y; };\nP p = {2};\nP q{4};\nint h() { return P{6}.y + q.y; }\n"]);
    // One declaration, members of one type: the array.
    let src = "struct S { int a; int b; };\nS s;\nauto [f, g] = s;\nint h() { return g; }\n";
    let all = got(src);
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[1], "\nint s[2];\nauto [f, g] = s;\nint h() { return g; }\n");
    // One member, used only through it (so it cannot go alone): the scalar.
    let src = "struct W { long v; };\nW w{3};\nW z;\nlong h() { return w.v + z.v; }\n";
    assert_eq!(got(src), ["\nlong w{3};\nlong z;\nlong h() { return w + z; }\n"]);
    // An array binding: a name with an element.
    assert_eq!(got("int a[2] = {7, 8};\nauto [p, q] = a;\nint h() { return q; }\n"), ["int a[1] = {8};\nauto [q] = a;\nint h() { return q; }\n"]);
    // A member named elsewhere, a class with a function, a single name, a designated or
    // shorter initializer: nothing.
    for src in [
        "struct S { int a; int b; };\nS s;\nS t;\nauto [f, g] = s;\nint h() { return s.a + s.b + g; }\n",
        "struct S { int a; int b; int m() { return 0; } };\nS s;\nauto [f, g] = s;\n",
        "struct S { int a; };\nS s;\nS t;\nauto [f] = s;\nint h() { return f + s.a; }\n",
        "struct S { int a; int b; };\nS s{.a = 1, .b = 2};\nS t;\nint h() { return s.b; }\n",
        "struct S { int a; int b; };\nS s{1};\nS t;\nint h() { return s.b; }\n",
    ] {
        assert!(got(src).is_empty(), "{src}: {:?}", got(src));
    }
}

/// The standard output of `src` (C) built by gcc at -O0 and run; panics naming gcc when it
/// is not installed, and when the program does not build.
fn gcc_output(src: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let (file, exe) = (dir.path().join("p.c"), dir.path().join("p"));
    std::fs::write(&file, src).unwrap();
    let built = std::process::Command::new("gcc")
        .args(["-O0", "-Werror", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"])
        .arg(&file)
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("`gcc` is needed as this test's oracle ({e}): run tools/test, or apt-get install it"));
    assert!(built.success(), "gcc rejects:\n{src}");
    let out = std::process::Command::new(&exe).output().unwrap();
    assert!(out.status.success(), "the program fails ({:?}):\n{src}", out.status);
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn zeros_gives_a_zero_filled_array_its_length_outside_function_bodies() {
    let c = Frontend::new(Language::C).unwrap();
    let src = "int printf(const char *, ...);\nlong a[] = {0, 0, 0, 0, 0, 0};\nstatic const int t[] = {0, 0};\nint v[] = {0, 1}, w[] = {0, 0,};\nint main(void) {\n  int l[] = {0, 0};\n  printf(\"%ld %d %d %d %d\\n\", a[5], t[1], v[1], w[1], l[1]);\n}\n";
    let v = variants(&c, &mut zeros::Zeros::default(), src);
    // Not the constant, not `v` (a 1), not the local `l`, which would be left uninitialized.
    assert_eq!(v.len(), 2, "{v:#?}");
    assert!(v[0].contains("long a[6];"), "{}", v[0]);
    assert!(v[1].contains("w[2];"), "{}", v[1]);
    // The same program: it prints what the original prints, clean under the sanitizers.
    let want = gcc_output(src);
    for variant in &v {
        assert_eq!(gcc_output(variant), want);
    }
}

#[test]
fn calls_puts_a_function_called_once_in_place_of_its_call() {
    let c = Frontend::new(Language::C).unwrap();
    let src = "int printf(const char *, ...);\nint n;\nvoid step(void) {\n  n += 2;\n  printf(\"%d\\n\", n);\n}\nvoid twice() { n *= 2; }\nvoid early() {\n  if (n) return;\n  n = 1;\n}\nvoid unused() { n = 5; }\nvoid run() {\n  step();\n  if (n) twice();\n}\nint main(void) {\n  run();\n  early();\n  early();\n  printf(\"%d\\n\", n);\n}\n";
    let v = variants(&c, &mut calls::Calls::default(), src);
    // `step`, `twice` and `run` (called once each, as statements); not `early` (a return,
    // two calls) nor `unused` (never called).
    assert_eq!(v.len(), 3, "{v:#?}");
    assert!(!v[0].contains("void step") && v[0].contains("void run() {\n  {\n  n += 2;"), "{}", v[0]);
    assert!(!v[1].contains("void twice") && v[1].contains("if (n) { n *= 2; }"), "{}", v[1]);
    assert!(!v[2].contains("void run") && v[2].contains("int main(void) {\n  {\n  step();\n  if (n) twice();\n}\n  early();"), "{}", v[2]);
    // The same program: it prints what the original prints, clean under the sanitizers.
    let want = gcc_output(src);
    for variant in &v {
        assert_eq!(gcc_output(variant), want);
    }
    // The call alone in its block: the body's statements, not a block in it.
    let v = variants(&c, &mut calls::Calls::default(), "int n;\nvoid run() {\n  n = 3;\n  n++;\n}\nint main() { run(); }\n");
    assert_eq!(v, ["int n;\n\nint main() { n = 3;\n  n++; }\n"]);
}

#[test]
fn pointers_replaces_a_local_pointer_to_one_object_by_the_object() {
    let c = Frontend::new(Language::C).unwrap();
    let src = "int printf(const char *, ...);\nint x, y;\nint main(void) {\n  int *p = &x;\n  int h = 1, *q = &y;\n  int *r = &x, *s = &y;\n  *p = 3;\n  *q = *p + h;\n  s = r;\n  printf(\"%d %d %d\\n\", *p, *q, *s);\n}\n";
    let v = variants(&c, &mut pointers::Pointers::default(), src);
    // `p` and `q`; not `r` nor `s`, which are used otherwise than dereferenced (`s = r`).
    assert_eq!(v.len(), 2, "{v:#?}");
    assert!(v[0].contains("int main(void) {\n  \n  int h = 1") && v[0].contains("x = 3;\n  *q = x + h;") && v[0].contains("x, *q, *s"), "{}", v[0]);
    assert!(v[1].contains("int h = 1;") && v[1].contains("y = *p + h;") && v[1].contains("*p, y, *s"), "{}", v[1]);
    // The same program: it prints what the original prints, clean under the sanitizers.
    let want = gcc_output(src);
    for variant in &v {
        assert_eq!(gcc_output(variant), want);
    }
}
