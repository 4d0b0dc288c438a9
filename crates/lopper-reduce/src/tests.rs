//! Reducer tests with synthetic oracles (closures over the candidate text): no processes.

use crate::{reduce, Options, Outcome, Pipeline};
use lopper_parse::{Frontend, Language};

fn run(lang: Language, src: &str, pred: impl Fn(&str) -> bool) -> Outcome {
    let f = Frontend::new(lang).unwrap();
    let mut seen: Vec<String> = Vec::new();
    let mut oracle = |c: &str| {
        seen.push(c.to_string());
        pred(c)
    };
    let out = reduce(&f, src, &mut oracle, &Options::perses(1), Pipeline::perses(), &mut crate::NoProgress).unwrap();
    // Every candidate the reducer tested is syntactically valid.
    for c in &seen {
        assert_eq!(f.syntax_errors(c).unwrap(), 0, "tested an invalid candidate:\n{c}");
    }
    out
}

#[test]
fn the_first_argument_of_a_call_can_go() {
    let out = run(Language::C, "int main(void) { f(a, b, c); return 0; }\n", |c| c.contains("int main(void) {") && c.contains("f(") && c.contains('c'));
    // The promoted element keeps its own leading space.
    assert_eq!(out.text.trim(), "int main(void) { f( c); }");
}

#[test]
fn a_statement_deep_inside_is_hoisted_by_replacement() {
    let src = "int main(int n) {\n  if (n) {\n    while (n > 0) {\n      n--;\n      crash(n);\n    }\n  }\n  return 0;\n}\n";
    let out = run(Language::C, src, |c| c.contains("int main(int n) {") && c.contains("crash(n)"));
    // `crash(n);` was hoisted by replacement: `main`'s body by the `if`'s block (whose
    // closing brace it keeps), then the `while` by its statement.
    assert_eq!(out.text, "int main(int n) {\n      crash(n);\n  }\n");
    assert_eq!(out.stats.tokens_before, 33);
    assert_eq!(out.stats.tokens_after, 13);
    assert!(out.stats.pass_named("replace").is_some_and(|p| p.accepted >= 1), "{:?}", out.stats.pass_stats);
}

#[test]
fn results_are_minimal_under_the_predicate_and_deterministic() {
    let src = "class A { int x = 1, y = 2; void m() { int z = x + y; System.out.println(z); } void k() {} }\n";
    let pred = |c: &str| c.contains("System.out.println(z)") && c.contains("class");
    let a = run(Language::Java, src, pred);
    let b = run(Language::Java, src, pred);
    assert_eq!(a.text, b.text);
    assert_eq!(a.stats.tests, b.stats.tests);
    // The method became an initializer block: a class body declaration it subsumes.
    assert_eq!(a.text.trim(), "class A { { System.out.println(z); } }");
}

#[test]
fn comments_are_dropped_when_the_test_allows() {
    let out = run(Language::JavaScript, "// header\nlet a = 1; /* note */ foo(a);\n", |c| c.contains("foo"));
    assert!(!out.text.contains("header") && !out.text.contains("note"), "{}", out.text);
    // and kept when the test needs them
    let out = run(Language::JavaScript, "// header\nlet a = 1; foo(a);\n", |c| c.contains("header") && c.contains("foo"));
    assert!(out.text.contains("// header"), "{}", out.text);
}

#[test]
fn an_uninteresting_original_is_an_error() {
    let f = Frontend::new(Language::C).unwrap();
    let mut no = |_: &str| false;
    let r = reduce(&f, "int x;\n", &mut no, &Options::perses(1), Pipeline::perses(), &mut crate::NoProgress);
    assert!(matches!(r, Err(crate::ReduceError::NotInteresting(crate::Verdict::NotInteresting))));
}

#[test]
fn lookahead_batches_change_nothing_but_speed() {
    let src = "int g(int a, int b) { return a * b; }\nint main(void) { int x = g(1, 2), y = 3; if (x) { y++; } return crash(x, y); }\n";
    let pred = |c: &str| c.contains("crash(x") && c.contains("int main");
    let f = Frontend::new(Language::C).unwrap();
    let mut results = Vec::new();
    for jobs in [1, 2, 5, 8, 32] {
        let opts = Options::perses(jobs);
        // The texts the oracle judges, in order: windows across nodes and passes must hold
        // exactly the sequential run's candidates.
        let mut judged = Vec::new();
        let mut oracle = |c: &str| {
            judged.push(c.to_string());
            pred(c)
        };
        let out = reduce(&f, src, &mut oracle, &opts, Pipeline::perses(), &mut crate::NoProgress).unwrap();
        let per_pass: Vec<(String, usize, usize)> = out.stats.pass_stats.iter().map(|p| (p.name.clone(), p.tests, p.accepted)).collect();
        results.push((out.text, out.stats.tests, out.stats.candidates, out.stats.cache_hits, out.stats.accepted, per_pass, judged));
    }
    assert!(results[0].5.iter().any(|p| p.0 == "replace" && p.1 > 0), "{:?}", results[0].5);
    for r in &results[1..] {
        assert_eq!(*r, results[0]);
    }
}

fn run_with(algorithm: crate::Algorithm, src: &str, pred: impl Fn(&str) -> bool) -> Outcome {
    let f = Frontend::new(Language::C).unwrap();
    let opts = Options { algorithm, grammar_check: crate::GrammarCheck::Count, ..Options::perses(1) };
    let mut oracle = |c: &str| pred(c);
    reduce(&f, src, &mut oracle, &opts, Pipeline::perses(), &mut crate::NoProgress).unwrap()
}

const BASELINE_SRC: &str = "int a(void) { return 1; }\nint b(int x) {\n  int y = x + 2;\n  return crash(y);\n}\nint c(void) { return 3; }\n";

#[test]
fn ddmin_lines_keeps_only_needed_lines() {
    let out = run_with(crate::Algorithm::DdminLines, BASELINE_SRC, |c| c.contains("crash(y)") && c.contains("int y"));
    assert_eq!(out.text, "  int y = x + 2;\n  return crash(y);\n");
}

#[test]
fn ddmin_tokens_is_one_minimal_over_tokens() {
    let pred = |c: &str| c.contains("crash") && c.contains('y');
    let out = run_with(crate::Algorithm::DdminTokens, BASELINE_SRC, pred);
    assert!(pred(&out.text));
    assert_eq!(out.stats.tokens_after, 2, "{:?}", out.text);
}

#[test]
fn hdd_deletes_whole_subtrees_level_by_level_and_hdd_star_goes_further() {
    let pred = |c: &str| c.contains("crash(y)");
    let hdd = run_with(crate::Algorithm::Hdd, BASELINE_SRC, pred);
    assert!(pred(&hdd.text));
    assert!(!hdd.text.contains("int a(void)") && !hdd.text.contains("int c(void)"), "{}", hdd.text);
    let star = run_with(crate::Algorithm::HddFixpoint, BASELINE_SRC, pred);
    assert!(pred(&star.text));
    assert!(star.stats.tokens_after <= hdd.stats.tokens_after);
    assert!(star.stats.rounds >= 2, "HDD* re-runs until a pass removes nothing");
    // Without PNF knowledge HDD produces syntactically invalid candidates, and counts them.
    assert!(hdd.stats.invalid > 0);
    // Perses on the same input never tests one, and its result parses cleanly.
    let perses = run(Language::C, BASELINE_SRC, pred);
    assert_eq!(perses.stats.invalid, 0);
    assert_eq!(Frontend::new(Language::C).unwrap().syntax_errors(&perses.text).unwrap(), 0);
}

#[test]
fn perses_changes_are_learnt_first_and_presumed_after_a_renaming() {
    use crate::judge::GrammarCheck;
    use crate::judge::{Batch, Judge, Memo};
    let f = Frontend::new(Language::C).unwrap();
    let mut tested: Vec<String> = Vec::new();
    let mut oracle = |c: &str| {
        tested.push(c.to_string());
        !c.contains("main() { }")
    };
    let mut progress = crate::NoProgress;
    let mut j = Judge::new(&f, "int count;\nint main() { count = 2; }\nint x;\nint y;\n", &mut oracle, GrammarCheck::Reject, &mut progress).unwrap();
    let key = crate::judge::LocalKey { pass: crate::perses::INFO.name, modulo_words: true };
    let (record, presume) = (Memo::Record(key), Memo::Presume(key));
    let one = |text: &str| crate::oracle::Texts::given(vec![text.to_string()]);
    // Recording: the deletion is tested, fails, and is learnt.
    assert_eq!(j.judge(Batch { memo: record, ..Batch::new(&one("int count;\nint main() { }\nint x;\nint y;\n"), &|_| 0) }).unwrap(), None);
    // A renaming (as the identifiers pass makes) is accepted.
    assert_eq!(j.judge(Batch::new(&one("int a;\nint main() { a = 2; }\nint x;\nint y;\n"), &|_| 0)).unwrap(), Some(0));
    // Recording presumes nothing: the same deletion among the renamed words is tested again.
    j.judge(Batch { memo: record, ..Batch::new(&one("int a;\nint main() { }\nint x;\nint y;\n"), &|_| 0) }).unwrap();
    assert_eq!((j.stats.presumed, j.stats.tests), (0, 3));
    // Then something changes further away, so the verdict cache cannot answer; presuming,
    // the same deletion in the same (renamed) neighbourhood is not tested.
    assert_eq!(j.judge(Batch::new(&one("int a;\nint main() { a = 2; }\nint x;\n"), &|_| 0)).unwrap(), Some(0));
    assert_eq!(j.judge(Batch { memo: presume, ..Batch::new(&one("int a;\nint main() { }\nint x;\n"), &|_| 0) }).unwrap(), None);
    assert_eq!((j.stats.presumed, j.stats.tests), (1, 4));
    // Keyed modulo renaming only: another statement deleted there is tested.
    assert_eq!(j.judge(Batch { memo: presume, ..Batch::new(&one("int a;\nint main() { a = 2; }\n"), &|_| 0) }).unwrap(), Some(0));
    assert_eq!((j.stats.presumed, j.stats.tests), (1, 5));
    drop(j);
    assert_eq!(tested.len(), 5, "{tested:?}");
}

#[test]
fn a_chain_of_a_thousand_nested_levels_goes_in_logarithmic_tests() {
    // `[[[…]]]` 1000 deep, interesting while at least k levels are left: each level is the
    // one compatible descendant of the level above, so Perses' replacement finds the
    // deepest interesting one by bisection (one level per test without it). (The parser's
    // recursion per level runs on a grown stack: a test thread's 2 MiB overflowed here.)
    let (depth, k) = (1000, 37);
    let src = format!("x = {}{};\n", "[".repeat(depth), "]".repeat(depth));
    let out = run(Language::JavaScript, &src, |c| c.starts_with("x = ") && c.matches('[').count() >= k);
    assert_eq!(out.text.matches('[').count(), k, "{}", out.text);
    // The bisection, then what 1-minimality costs anyway: each of the k kept levels' own
    // replacement and element deletion fail once (one level per test would be ~1000).
    let log = (depth as f64).log2().ceil() as usize;
    assert!(out.stats.tests <= 2 * log + 2 * k, "{} tests: {:?}", out.stats.tests, out.stats.pass_stats);
}

#[test]
fn where_nearly_every_candidate_passes_many_nodes_go_in_one_test() {
    // 100 statements the test needs (it counts the `=`), each with an expression that can
    // shrink: at least one accepted test per statement without combining, far fewer with
    // it (the failed tests are the same either way: each kept node's 1-minimality).
    let body: String = (0..100).map(|i| format!("  s{i} = f(a + b * c);\n")).collect();
    let src = format!("void g(void) {{\n{body}}}\n");
    let out = run(Language::C, &src, |c| c.contains("void g(void) {") && c.matches('=').count() == 100);
    assert!(!out.text.contains('*') && !out.text.contains("f("), "{}", out.text);
    let bulk = out.stats.pass_named("bulk").expect("combined candidates were judged");
    assert!(bulk.accepted >= 2, "{:?}", out.stats.pass_stats);
    assert!(out.stats.accepted < 30, "{} accepted: {:?}", out.stats.accepted, out.stats.pass_stats);
}

#[test]
fn instances_empty_every_body_but_the_needed_one_in_few_tests() {
    // 64 function bodies, each using the one before; the test needs f37's call of crash().
    // (The search runs on programs of 25k tokens or more: ~32k here.)
    let filler = "x = x + 1; ".repeat(80);
    let mut src = String::from("int crash(void);\nint f0(void) { return 0; }\n");
    for i in 1..64 {
        let extra = if i == 37 { " crash();" } else { "" };
        src.push_str(&format!("int f{i}(void) {{ int x = f{}();{extra} {filler}return x + 1; }}\n", i - 1));
    }
    let f = Frontend::new(Language::C).unwrap();
    let mut tests = 0;
    let mut oracle = |c: &str| {
        tests += 1;
        c.contains("int f37(void) { int x = f36(); crash();")
    };
    let pipeline = Pipeline::built_in(&["instances"]).unwrap();
    let out = reduce(&f, &src, &mut oracle, &Options::perses(1), pipeline, &mut crate::NoProgress).unwrap();
    // Every other body's statements went: one `return` is left, f37's.
    assert_eq!(out.text.matches("return").count(), 1, "{}", out.text);
    let instances = out.stats.pass_named("instances").unwrap();
    // Two kinds: the filler statements' expressions (all gone in one test), then the
    // bodies, by a coarse ddmin of 6 levels; one body at a time would cost 63 accepted
    // tests.
    assert!(instances.tests <= 2 * (2 * 6 + 2), "{:?}", out.stats.pass_stats);
}

#[test]
fn a_replacement_waits_behind_a_large_child_not_behind_a_small_one() {
    // `if (x) { … }`: replacing the `if` by its body saves 4 tokens (and `main`'s body by
    // the `if`'s, 6). The indices of the first tested candidate with `main` but without
    // the `if` (crash kept) and of the first that deletes any of the body's statements
    // while the `if` is there.
    let order = |statements: usize| {
        let filler = "    x = x + 1;\n".repeat(statements);
        let src = format!("int main(int x) {{\n  if (x) {{\n{filler}    crash();\n  }}\n}}\n");
        let f = Frontend::new(Language::C).unwrap();
        let mut tested: Vec<String> = Vec::new();
        let mut oracle = |c: &str| {
            tested.push(c.to_string());
            c.starts_with("int main(int x) {") && c.contains("crash();")
        };
        reduce(&f, &src, &mut oracle, &Options::perses(1), Pipeline::perses(), &mut crate::NoProgress).unwrap();
        // (In `main`: the chain search at the top level also judges the body's statements
        // standing alone.)
        let replaced = tested.iter().position(|c| c.starts_with("int main(int x) {") && !c.contains("if (x)") && c.contains("crash();")).unwrap();
        // (None when the replacement passed first: then no candidate has both.)
        let deleted_inside = tested.iter().position(|c| c.contains("if (x)") && c.matches("x = x + 1;").count() < statements).unwrap_or(tested.len());
        (replaced, deleted_inside)
    };
    // 40 statements of 6 tokens: the deletions inside, worth 240 tokens, go first.
    let (replaced, deleted_inside) = order(40);
    assert!(deleted_inside < replaced, "{deleted_inside} {replaced}");
    // 10 statements (a body of 66 tokens, under `POSTPONE_MIN`): Perses' own order, the
    // replacement first.
    let (replaced, deleted_inside) = order(10);
    assert!(replaced < deleted_inside, "{replaced} {deleted_inside}");
}

#[test]
fn a_deletion_takes_the_elements_that_use_what_it_deletes() {
    use crate::engine::Closure;
    let f = Frontend::new(Language::C).unwrap();
    let src = "int a;\nint f(void) { return a; }\nint g(void) { return f(); }\nint h;\nint k(void) { return h; }\n";
    let tree = f.parse(src).unwrap().tree;
    let live = tree.live(&lopper_tree::EditSet::default());
    let items: Vec<lopper_tree::NodeId> = tree.node(tree.root()).children.to_vec();
    assert_eq!(items.len(), 5);
    let d = crate::unused::Dependents::new(&tree, &live, f.grammar(), tree.root(), &items).expect("f uses a, g uses f");
    assert!(d.units().is_empty(), "every use is in the list");
    // Deleting `a` takes `f` (which names it) and `g` (which names `f`), not `h` or `k`.
    let mut deleted = vec![true, false, false, false, false];
    d.close(&mut deleted);
    assert_eq!(deleted, [true, true, true, false, false]);
    let mut deleted = vec![false, false, false, true, false];
    d.close(&mut deleted);
    assert_eq!(deleted, [false, false, false, true, true]);
    // A user going takes nothing it uses.
    let mut deleted = vec![false, false, true, false, false];
    d.close(&mut deleted);
    assert_eq!(deleted, [false, false, true, false, false]);
}

#[test]
fn a_member_deletion_takes_the_statements_elsewhere_that_use_it() {
    use crate::engine::Closure;
    let f = Frontend::new(Language::C).unwrap();
    let src = "struct S { int x; int y; int z; };\nint use(struct S *s) {\n  int t = s->y;\n  int u = t;\n  u += s->x;\n  return u;\n}\nint other(int y) { return y; }\n";
    let tree = f.parse(src).unwrap().tree;
    let live = tree.live(&lopper_tree::EditSet::default());
    // The struct's member list: the star whose elements are the three fields.
    let g = f.grammar();
    let list = (0..tree.len() as u32)
        .map(lopper_tree::NodeId)
        .find(|&n| tree.node(n).kind == lopper_tree::NodeKind::Star && tree.node(n).children.len() == 3 && tree.subtree_token_ids(n).len() == 9)
        .expect("the member list");
    let items: Vec<lopper_tree::NodeId> = tree.node(list).children.to_vec();
    let d = crate::unused::Dependents::new(&tree, &live, g, list, &items).expect("the fields are used");
    let text = |n: lopper_tree::NodeId| tree.subtree_token_ids(n).iter().map(|&t| tree.token_text(t)).collect::<Vec<_>>().join(" ");
    // `y` goes with `int t = s->y;`, which takes `int u = t;` (a local, in its body), which
    // takes `u += s->x;` and `return u;`. Not `other`'s parameter `y`, nor the field `x`.
    let mut deleted = vec![false, true, false];
    let units: Vec<String> = d.close(&mut deleted).into_iter().map(text).collect();
    assert_eq!(deleted, [false, true, false]);
    let mut sorted = units.clone();
    sorted.sort();
    assert_eq!(sorted, ["int t = s -> y ;", "int u = t ;", "return u ;", "u += s -> x ;"], "{units:?}");
    // `x` takes only its statement; `z`, used nowhere, nothing.
    let units: Vec<String> = d.close(&mut [true, false, false]).into_iter().map(text).collect();
    assert_eq!(units, ["u += s -> x ;"]);
    assert!(d.close(&mut [false, false, true]).is_empty());
}

#[test]
fn under_a_validity_keeping_test_no_candidate_leaves_a_dangling_name() {
    // The oracle models a compiler's check: every use of `a` or `f` needs its declaration.
    let src = "int a;\nint f(void) { return a; }\nint more;\nint keep(void) { return f(); }\n";
    let valid = |c: &str| (!c.contains("return a") || c.contains("int a;")) && (!c.contains("f()") || c.contains("int f(void)"));
    let fr = Frontend::new(Language::C).unwrap();
    let mut seen: Vec<String> = Vec::new();
    let mut oracle = |c: &str| {
        seen.push(c.to_string());
        c.contains("keep") && valid(c)
    };
    let out = reduce(&fr, src, &mut oracle, &Options::perses(1), Pipeline::built_in(&["unused", "perses"]).unwrap(), &mut crate::NoProgress).unwrap();
    assert!(out.text.contains("keep") && !out.text.contains("more"), "{}", out.text);
    // Perses' deletions of `a` or `f` took their users along (and failed for `keep`): no
    // candidate made of whole elements (lines) of the original names what it lacks, but
    // for the probes that ask whether the test accepts that (each failed, so the test is
    // taken to reject them). (Replacements, such as a function by its body, are no
    // deletions and may.)
    let lines: Vec<&str> = src.lines().collect();
    let deletion = |c: &str| c.lines().all(|l| lines.contains(&l));
    let dangling = seen.iter().filter(|c| deletion(c) && !valid(c)).count();
    assert_eq!(dangling as u32, crate::dangling::DANGLING_REJECTED, "{seen:#?}");
}

#[test]
fn under_a_test_that_accepts_dangling_names_deletions_stop_taking_their_users() {
    // A chain: each `gN` names `g(N-1)`; the test (a grep, as for a diagnostic) needs only
    // `keep`, which names the last. Taking users along would delete `keep` with any link.
    let mut src = String::from("int g0;\n");
    for i in 1..12 {
        src.push_str(&format!("int g{i}(void) {{ return g{}; }}\n", if i == 1 { "0".to_string() } else { format!("{}()", i - 1) }));
    }
    src.push_str("int keep(void) { return g11(); }\n");
    let fr = Frontend::new(Language::C).unwrap();
    let run = |pipeline: Pipeline| {
        let mut tests = 0;
        let mut oracle = |c: &str| {
            tests += 1;
            c.contains("int keep(void)")
        };
        let out = reduce(&fr, &src, &mut oracle, &Options::perses(1), pipeline, &mut crate::NoProgress).unwrap();
        (out.text, tests)
    };
    let (with_unused, tests) = run(Pipeline::built_in(&["unused", "perses"]).unwrap());
    let (perses_alone, alone) = run(Pipeline::built_in(&["perses"]).unwrap());
    // Once two probes passed, the chain goes as in Perses alone (which has no closures):
    // the same result, and no more than the probes' tests beyond it.
    assert_eq!(with_unused, perses_alone);
    assert!(!with_unused.contains("g0"), "{with_unused}");
    assert!(tests <= alone + crate::dangling::DANGLING_TOLERATED as usize + 2, "{tests} tests against {alone}");
}

/// The reference graph's units of a C translation unit's top-level list, as texts: per
/// head, its declaration's first line and those of the rest of its unit.
fn units_of(src: &str, keep: &[&str]) -> Vec<(String, Vec<String>)> {
    let f = Frontend::new(Language::C).unwrap();
    let tree = f.parse(src).unwrap().tree;
    let live = tree.live(&lopper_tree::EditSet::default());
    let names = crate::graph::Names::without_parameters(&tree, &live, f.grammar(), true);
    let items: Vec<lopper_tree::NodeId> = tree.node(tree.root()).children.to_vec();
    let text = |n: lopper_tree::NodeId| tree.subtree_token_ids(n).iter().map(|&t| tree.token_text(t)).collect::<Vec<_>>().join(" ");
    let kept = |n: lopper_tree::NodeId| keep.iter().any(|k| text(n).contains(k));
    let units = crate::graph::Units::of(&names, &tree, &live, &items, &kept);
    units.heads().iter().zip(units.members()).map(|(&h, m)| (text(h), m.iter().map(|&x| text(x)).collect())).collect()
}

#[test]
fn a_root_goes_with_the_chain_only_it_reaches_and_a_shared_declaration_stays() {
    let src = "typedef int T0;\ntypedef T0 T1;\nint f(T1 x) { return x; }\nint shared;\nint u1(void) { return shared; }\nint u2(void) { return shared; }\nint main(void) { return 0; }\n";
    let units = units_of(src, &["main"]);
    // `f` takes both typedefs; `shared`, named by two roots, is no head (deleting it alone
    // would leave them naming it) and in no unit; `main` is kept.
    assert_eq!(
        units,
        [
            ("int f ( T1 x ) { return x ; }".to_string(), vec!["typedef int T0 ;".to_string(), "typedef T0 T1 ;".to_string()]),
            ("int u1 ( void ) { return shared ; }".to_string(), vec![]),
            ("int u2 ( void ) { return shared ; }".to_string(), vec![]),
        ]
    );
}

#[test]
fn functions_whose_parameters_share_a_name_do_not_name_each_other() {
    // Without scoping, the first body's `n` declares `n`, and `g` names `f` through it:
    // `f` would go only with `g`.
    let src = "int f(int n) { return n; }\nint g(int n) { return n + 1; }\nint main(void) { return 0; }\n";
    let units = units_of(src, &["main"]);
    assert_eq!(units, [("int f ( int n ) { return n ; }".to_string(), vec![]), ("int g ( int n ) { return n + 1 ; }".to_string(), vec![])]);
    // The same for locals, in nested blocks too.
    let src = "int f(void) { int i = 1; return i; }\nint g(void) { if (1) { int *i = 0; return !i; } return 0; }\nint main(void) { return 0; }\n";
    let units = units_of(src, &["main"]);
    assert_eq!(units.len(), 2, "{units:?}");
    assert!(units.iter().all(|(_, members)| members.is_empty()), "{units:?}");
}

#[test]
fn a_member_s_name_does_not_tie_a_use_to_another_class_with_that_member() {
    // `v->clear` reaches `clear` through `struct vec`, which `f` names; `struct big`, the
    // first to declare a member `clear`, is named by nothing and goes.
    let src = "struct big { int clear; int more; };\nstruct vec { int clear; };\nint f(struct vec *v) { return v->clear; }\nint main(void) { struct vec v = { 1 }; return f(&v); }\n";
    let units = units_of(src, &["main"]);
    assert_eq!(units, [("struct big { int clear ; int more ; } ;".to_string(), vec![])]);
}

#[test]
fn what_a_kept_or_undeclaring_element_names_stays() {
    // `b` has two declarations, the forward one and the definition: a use of `b` needs
    // both, and both, which only `a` and each other name, go with `a` (the group of `a`
    // and `b`, which no root reaches, has `a` for head: the forward declaration names
    // nothing and is no head of it). `g`, named by the kept `main`, stays; `h`, named by
    // `g` and by the root `lone`, is no head; `lone` goes alone.
    let src = "int b(int);\nint a(int n) { return b(n); }\nint b(int n) { return a(n); }\nint h(void) { return 1; }\nint g(void) { return h(); }\nint main(void) { return g(); }\nint lone(void) { return h(); }\n";
    let units = units_of(src, &["main"]);
    assert_eq!(
        units,
        [
            ("int a ( int n ) { return b ( n ) ; }".to_string(), vec!["int b ( int ) ;".to_string(), "int b ( int n ) { return a ( n ) ; }".to_string()]),
            ("int lone ( void ) { return h ( ) ; }".to_string(), vec![])
        ]
    );
}

/// Reduces `src` with each accepted candidate confirmed (a test known to be flaky), where
/// the test says yes to `pred` only when a seeded coin (a linear congruential generator)
/// shows less than `yes_in_10` of 10: the outcome and how many runs the test made.
fn confirmed_with_a_coin(src: &str, pred: impl Fn(&str) -> bool, yes_in_10: u64) -> (Outcome, usize) {
    let f = Frontend::new(Language::C).unwrap();
    let (mut state, mut runs) = (12345u64, 0);
    let mut oracle = |c: &str| {
        runs += 1;
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        pred(c) && (state >> 33) % 10 < yes_in_10
    };
    let opts = Options { confirm: true, ..Options::perses(1) };
    let out = reduce(&f, src, &mut oracle, &opts, Pipeline::perses(), &mut crate::NoProgress).unwrap();
    (out, runs)
}

const COIN_SRC: &str = "int main(void) {\n  int keep = 1;\n  int a = 2;\n  int b = 3;\n  int c = 4;\n  return keep + a + b + c;\n}\n";

#[test]
fn a_test_that_answers_at_random_stops_the_search_once_wald_s_test_decides() {
    // Yes half of the time where `keep` is there.
    let (out, runs) = confirmed_with_a_coin(COIN_SRC, |c| c.contains("keep"), 5);
    assert!(out.at_random && !out.interrupted, "{:?}", out.stats);
    assert!(crate::answers_at_random(out.stats.replay_disagreements, out.stats.replays), "{:?}", out.stats);
    // Stopped at the first replay past Wald's upper bound (ln 99 = 4.6, 0.92 a "no"): a
    // handful of disagreements, not the whole search.
    assert!(out.stats.replay_disagreements <= 12 && runs < 60, "{runs} runs, {:?}", out.stats);
}

#[test]
fn a_flaky_check_of_a_real_property_is_not_taken_for_random() {
    // Yes 9 times in 10 where `keep` is there: disagreements happen, and the search goes on
    // to its end.
    let (out, _) = confirmed_with_a_coin(COIN_SRC, |c| c.contains("keep"), 9);
    assert!(out.stats.replay_disagreements > 0 && !out.at_random, "{:?}", out.stats);
    assert!(out.text.contains("keep") && !out.text.contains("int a"), "{}", out.text);
}
