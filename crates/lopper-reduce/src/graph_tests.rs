//! The reference graph's claim, checked with real compilers (issue 52): deleting any
//! dependency-closed unit of a translation unit ([`crate::graph::Units`]: a head with all
//! that only it reaches) leaves a program that still compiles where the original did.

use crate::graph::{Names, Units};
use lopper_parse::{Frontend, Language};
use lopper_tree::{EditSet, NodeId, RenderOptions};
use std::io::Write;
use std::process::{Command, Stdio};

/// Whether `compiler` accepts `src` (`-fsyntax-only`, `lang` as for `-x`), with its
/// diagnostics; panics naming the compiler when it is not installed.
fn compiles(compiler: &str, lang: &str, src: &str) -> (bool, String) {
    let mut child = Command::new(compiler)
        .args(["-fsyntax-only", "-x", lang, "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("`{compiler}` is needed as this test's oracle ({e}): run tools/test, or apt-get install it"));
    child.stdin.take().unwrap().write_all(src.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Asserts that `compiler` (`x` as for `-x`) accepts `src` and each of `cuts` (`src`
/// without one unit, or one slice: `what`).
fn all_compile(compiler: &str, x: &str, src: &str, cuts: &[String], what: &str) {
    let (ok, errors) = compiles(compiler, x, src);
    assert!(ok, "{compiler} rejects the original: {errors}");
    for cut in cuts {
        let (ok, errors) = compiles(compiler, x, cut);
        assert!(ok, "{compiler} rejects the program without one {what}:\n{cut}\n{errors}");
    }
}

/// Per unit of `src`'s top-level list (`main` kept, as a test would keep it): the program
/// without that unit.
fn without_each_unit(lang: Language, src: &str) -> Vec<String> {
    without_each(lang, src, false)
}

/// As [`without_each_unit`], over the top-level list's elements (`flat` false) or the
/// declarations at namespace scope, as the `slices` search takes them.
fn without_each(lang: Language, src: &str, flat: bool) -> Vec<String> {
    let f = Frontend::new(lang).unwrap();
    let tree = f.parse(src).unwrap().tree;
    let edits = EditSet::default();
    let live = tree.live(&edits);
    let names = Names::without_parameters(&tree, &live, f.grammar(), true);
    let items: Vec<NodeId> = if flat { crate::slices::scope_items(&tree, f.grammar(), &live, tree.root()) } else { tree.node(tree.root()).children.to_vec() };
    let is_main = |n: NodeId| tree.subtree_token_ids(n).iter().any(|&t| tree.token_text(t) == "main");
    let units = Units::of(&names, &tree, &live, &items, &is_main);
    let text = |n: NodeId| tree.subtree_token_ids(n).iter().map(|&t| tree.token_text(t)).collect::<Vec<_>>().join(" ");
    assert!(units.heads().len() >= 3, "too few units to show anything: {:?}", units.heads().iter().map(|&h| text(h)).collect::<Vec<_>>());
    units
        .heads()
        .iter()
        .zip(units.members())
        .map(|(&h, m)| {
            let mut cut = edits.clone();
            cut.delete(std::iter::once(h).chain(m.iter().copied()));
            tree.render(&cut, RenderOptions::default())
        })
        .collect()
}

#[test]
fn deleting_any_unit_leaves_a_program_that_compiles() {
    let c = "typedef unsigned long word;\ntypedef word pair[2];\nstruct point { int x, y; };\nenum color { RED, GREEN };\nstatic int twice(int n) { return 2 * n; }\nstatic int area(struct point *p) { return twice(p->x) * p->y; }\nstatic pair cells;\nint total;\nint count(void) { total += 1; return total; }\nint paint(enum color c) { return c == GREEN; }\ntypedef struct point point_t;\nstatic point_t origin(void) { point_t o = { 0, 0 }; return o; }\nint spare(void) { return RED + twice(3); }\nint main(void) { struct point p = { 1, 2 }; return area(&p) + count(); }\n";
    let cpp = "namespace geo {\nstruct vec { int x; int dot(const vec &o) const; };\ninline int vec::dot(const vec &o) const { return x * o.x; }\n}\ntemplate <class T> struct traits { static const int size = 1; };\ntemplate <> struct traits<double> { static const int size = 2; };\nint scale(int a);\nint scale(int a, int b);\nint scale(int a) { return scale(a, 1); }\nstruct node { node *next; int value; };\nint sum(const node *n) { return n ? n->value + sum(n->next) : 0; }\nusing geo::vec;\nint width(const vec &v) { return v.dot(v) + traits<double>::size; }\nclass shape { public: virtual ~shape() {} virtual int sides() const = 0; };\nclass square : public shape { public: int sides() const override { return 4; } };\nstatic int ticks;\nint bump() { return ++ticks; }\nint main() { node n{nullptr, 3}; return sum(&n); }\n";
    // Names declared twice: a forward declaration before its definition, the same name in
    // two namespaces, a namespace reopened (a use needs every declaration of its name).
    let twice = "namespace a { struct X { int v; }; }\nnamespace b { template <class T> struct X; }\ntemplate <class T> struct holder;\nstruct user { holder<int> *h; };\ntemplate <class T> struct holder { T v; int only_holder; };\nnamespace b { template <class T> struct X { T v; int only_b; }; }\nint use_b() { b::X<int> x{1}; return x.v; }\nint use_holder() { holder<int> h{2}; return h.v; }\nint spare() { return 7; }\nint main() { return use_b(); }\n";
    // What a preprocessed C++ file has: `size_t`, which tree-sitter reads as a primitive
    // type, declared by a typedef; a using-declaration an unqualified use sees; template
    // parameters named alike in unrelated templates.
    let library = "typedef unsigned long size_t;\nnamespace std { typedef unsigned long size_t; template <typename _Tp> struct box { _Tp v; size_t n; }; template <typename _Tp> _Tp get(const box<_Tp> &b) { return b.v; } }\ntemplate <typename _Tp> struct other { _Tp w; };\nusing std::get;\nstatic size_t len(const char *s) { size_t n = 0; while (s[n]) n++; return n; }\nint spare() { return 1; }\nint boxed() { std::box<int> b{2, 0}; return get(b); }\nint main() { return (int)len(\"ab\"); }\n";
    // A placement new needs the `operator new` it calls; attribute names (`__noinline__`)
    // and a namespace head with attributes tie nothing.
    let placement = "typedef unsigned long size_t;\ninline void *operator new(size_t, void *p) noexcept { return p; }\nstruct pod { int v; };\nnamespace lib __attribute__ ((__visibility__ (\"default\"))) { __attribute__ ((__noinline__)) int helper() { return 2; } }\nint make() { alignas(pod) static char buf[sizeof(pod)]; pod *p = new (buf) pod{3}; return p->v + lib::helper(); }\n__attribute__ ((__noinline__)) int spare() { return 1; }\nint other() { return 2; }\nint third() { return 3; }\nint main() { return make(); }\n";
    for (lang, compiler, x, src) in [
        (Language::C, "gcc", "c", c),
        (Language::Cpp, "g++", "c++", cpp),
        (Language::Cpp, "g++", "c++", twice),
        (Language::Cpp, "g++", "c++", library),
        (Language::Cpp, "g++", "c++", placement),
    ] {
        all_compile(compiler, x, src, &without_each_unit(lang, src), "unit");
    }
}

#[test]
fn a_namespace_no_use_can_see_is_a_unit_of_its_own() {
    // `size` and `clamp` in the global namespace mean `::size` and `::clamp`, not `lib`'s:
    // only `lib` names what it declares, through `lib::`, `using namespace` or from inside
    // (an inline and an unnamed namespace show their members as their parent's).
    let src = "typedef unsigned long size;\nnamespace lib { typedef unsigned long size; inline namespace v1 { struct big { size n; }; } inline size clamp(big b) { return b.n; } }\nint clamp(int v) { return v < 0 ? 0 : v; }\nnamespace tools { int scale(int v) { return 2 * v; } }\nint scaled(int v) { return tools::scale(v); }\nnamespace util { int half(int v) { return v / 2; } }\nusing namespace util;\nnamespace { int hidden() { return 1; } }\nint halved() { return half(4) + hidden(); }\nint spare() { return tools::scale(3); }\nint other() { return 5; }\nint main() { size n = 3; return clamp((int)n) + scaled(1) + halved(); }\n";
    let cuts = without_each_unit(Language::Cpp, src);
    assert!(cuts.iter().any(|cut| !cut.contains("namespace lib")), "no unit takes namespace lib whole: {cuts:#?}");
    all_compile("g++", "c++", src, &cuts, "unit");
}

#[test]
fn any_slice_of_the_declarations_at_namespace_scope_leaves_a_program_that_compiles() {
    // The `slices` search's items: the members of namespaces and linkage specifications
    // (one with attributes after its name), each deleted with what only it reaches; an emptied namespace stays as its braces.
    let src = "extern \"C\" { int puts(const char *); int abs(int); }\nnamespace lib __attribute__ ((__visibility__ (\"default\"))) {\ntypedef unsigned long size_t;\ntemplate <typename _Tp> struct box { _Tp v; size_t n; };\nstruct base { int v; };\nstruct derived : base { int w; };\ninline int first(const derived &d) { return d.v; }\nnamespace detail { inline int helper(box<int> b) { return b.v; } }\ninline int wrapped() { box<int> b{1, 0}; return detail::helper(b); }\ninline int idle() { return 3; }\n}\nnamespace app { int run() { lib::derived d{}; return lib::first(d) + abs(-1); } int spare() { return puts(\"x\"); } }\nint main() { return app::run(); }\n";
    let cuts = without_each(Language::Cpp, src, true);
    assert!(cuts.iter().any(|cut| !cut.contains("helper") && !cut.contains("box")), "no slice takes wrapped() with helper and box: {cuts:#?}");
    all_compile("g++", "c++", src, &cuts, "slice");
}

#[test]
fn the_entry_points_statements_are_heads_that_take_what_only_they_call() {
    // A driver's `main`: library work, then the call the test needs. Each statement of
    // `main` is a head; deleting the first two takes `fill`, `sum` and `table` with them.
    let src = "int printf(const char *, ...);\nstatic int table[8];\nstatic void fill(int n) { for (int i = 0; i < n; i++) table[i] = i * i; }\nstatic int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += table[i]; return s; }\nstatic int trigger(void) { return 42; }\nint main(void) {\n  fill(8);\n  printf(\"%d\\n\", sum(8));\n  printf(\"%d\\n\", trigger());\n  return 0;\n}\n";
    let f = Frontend::new(Language::C).unwrap();
    let tree = f.parse(src).unwrap().tree;
    let edits = EditSet::default();
    let live = tree.live(&edits);
    let names = Names::without_parameters(&tree, &live, f.grammar(), true);
    let items = crate::slices::scope_items(&tree, f.grammar(), &live, tree.root());
    let items = crate::slices::with_entry_statements(&tree, f.grammar(), &live, items);
    let units = Units::of(&names, &tree, &live, &items, &|_| false);
    let text = |n: NodeId| tree.subtree_token_ids(n).iter().map(|&t| tree.token_text(t)).collect::<String>();
    let heads: Vec<String> = units.heads().iter().map(|&h| text(h)).collect();
    assert_eq!(heads, ["fill(8);", "printf(\"%d\\n\",sum(8));", "printf(\"%d\\n\",trigger());"], "the heads");
    let render = |deleted: &mut [bool]| {
        let mut cut = edits.clone();
        let heads = units.heads().iter().zip(deleted.iter()).filter(|(_, &d)| d).map(|(&h, _)| h).collect::<Vec<_>>();
        cut.delete(heads.into_iter().chain(crate::engine::Closure::close(&units, deleted)));
        tree.render(&cut, RenderOptions::default())
    };
    let driverless = render(&mut [true, true, false]);
    for gone in ["fill", "sum", "table"] {
        assert!(!driverless.contains(gone), "{gone} stays without the statements that used it:\n{driverless}");
    }
    assert!(driverless.contains("trigger()"), "{driverless}");
    let cuts: Vec<String> = (0..3).map(|k| render(&mut std::array::from_fn::<bool, 3, _>(|i| i == k))).chain([driverless]).collect();
    all_compile("gcc", "c", src, &cuts, "slice of main's statements");
}

#[test]
fn a_block_whose_closing_brace_the_recovery_moved_ties_nothing_after_it() {
    // A stray `)` in `set`'s trailing return type: tree-sitter's recovery ends `set` there,
    // gives the class's `}` to the namespace, and what follows the namespace to an ERROR
    // node (as tree-sitter-cpp 0.23.4 did with libstdc++'s `decltype(f(x), void(), true)`).
    // `set`'s element opens a block no element closes: its last members, split off, stay
    // with it (`main` calls `empty`), but `spare`, `other` and `third` after the class are
    // still units of their own (they were tied to it, and so to each other, before).
    let src = "namespace lib {\ntemplate <class K> struct table { bool find(const K &) const { return true; } bool end() const { return false; } };\ntemplate <class K> struct set {\n  table<K> h;\n  bool has(const K &x) const { return h.find(x) != h.end(); }\n  template <class Q> auto has(const Q &x) const -> decltype(h.find(x)), true) { return h.find(x) != h.end(); }\n  int size() const { return 0; }\n  bool empty() const { return size() == 0; }\n};\nint spare() { return 1; }\nint other() { return 2; }\nint third() { return 3; }\n}\nint main() { lib::set<int> s{}; return s.empty(); }\n";
    let errors = Frontend::new(Language::Cpp).unwrap().syntax_errors(src).unwrap();
    assert!(errors > 0, "the grammar reads this program");
    let cuts = without_each(Language::Cpp, src, true);
    for name in ["spare", "other", "third"] {
        let alone = |cut: &String| {
            !cut.contains(&format!("int {name}()")) && ["spare", "other", "third"].iter().filter(|&&n| n != name).all(|n| cut.contains(&format!("int {n}()")))
        };
        assert!(cuts.iter().any(alone), "no unit takes {name}() alone: {cuts:#?}");
    }
    for cut in cuts.iter().filter(|cut| !cut.contains("bool empty()")) {
        assert!(!cut.contains("struct set"), "a unit takes set's last member without set:\n{cut}");
    }
}

#[test]
fn a_trailing_return_type_names_a_type_not_a_member() {
    // `-> ret_t<T>` after a parameter list: `ret_t` is looked up as any name (it was taken
    // for a member after `->`, and went alone); `b->v` is a member.
    let trailing = "namespace lib {\ntemplate <class T> using ret_t = T;\nstruct box { int v; };\ntemplate <class T> auto twice(T v) -> ret_t<T> { return v + v; }\ninline auto peek(box *b) -> decltype(b->v) { return b->v; }\n}\nint spare() { return 1; }\nint other() { return 2; }\nint third() { return 3; }\nint main() { lib::box b{2}; return lib::twice(1) + lib::peek(&b); }\n";
    all_compile("g++", "c++", trailing, &without_each(Language::Cpp, trailing, true), "slice");
}

#[test]
fn an_unqualified_name_in_a_class_body_finds_the_member_first() {
    // `clear()` in `vec` calls its member `clear`, not `lib::clear(table &)`: `table` and
    // the free `clear` go with no use of theirs left. `lib::clear(t)` in `holder`,
    // qualified, still needs them, though `holder` has a member `clear` too.
    let lib = "namespace lib {\ntemplate <class T> struct vec { T *p; void clear() { p = nullptr; } void reset() { clear(); } };\nstruct table { int n; };\ninline void clear(table &t) { t.n = 0; }\n}\n";
    let member = format!("{lib}int spare() {{ return 1; }}\nint other() {{ return 2; }}\nint main() {{ lib::vec<int> v{{}}; v.reset(); return 0; }}\n");
    let qualified = format!("{lib}struct holder {{ lib::table t; void clear() {{ lib::clear(t); }} }};\nint spare() {{ return 1; }}\nint other() {{ return 2; }}\nint main() {{ holder h{{}}; h.clear(); return 0; }}\n");
    for (src, table_goes) in [(&member, true), (&qualified, false)] {
        let cuts = without_each(Language::Cpp, src, true);
        assert_eq!(cuts.iter().any(|cut| !cut.contains("struct table")), table_goes, "{cuts:#?}");
        all_compile("g++", "c++", src, &cuts, "slice");
    }
}

#[test]
fn slices_keep_what_the_needed_function_reaches_in_a_few_tests_a_level() {
    // A library namespace of 24 chained structs and 24 functions, each function reaching
    // its struct's chain; main calls f5. Under g++ and a needle in main, the search keeps
    // s0..s5, f5 and main, by a ddmin over the 25 heads: a few tests a level, not one per
    // declaration.
    let mut src = String::from("namespace lib __attribute__ ((__visibility__ (\"default\"))) {\nstruct s0 { int v; };\n");
    for i in 1..24 {
        src.push_str(&format!("struct s{i} {{ s{} prev; int v; }};\n", i - 1));
    }
    for i in 0..24 {
        src.push_str(&format!("inline int f{i}() {{ s{i} x{{}}; return x.v; }}\n"));
    }
    src.push_str("}\nint main() { int needle = lib::f5(); return needle; }\n");
    let (ok, errors) = compiles("g++", "c++", &src);
    assert!(ok, "g++ rejects the original: {errors}");
    let f = Frontend::new(Language::Cpp).unwrap();
    let mut oracle = |c: &str| c.contains("needle") && compiles("g++", "c++", c).0;
    let pipeline = crate::Pipeline::built_in(&["slices"]).unwrap();
    let out = crate::reduce(&f, &src, &mut oracle, &crate::Options::perses(1), pipeline, &mut crate::NoProgress).unwrap();
    for i in 0..24 {
        assert_eq!(out.text.contains(&format!("struct s{i} ")), i <= 5, "s{i}:\n{}", out.text);
        assert_eq!(out.text.contains(&format!("int f{i}(")), i == 5, "f{i}:\n{}", out.text);
    }
    let slices = out.stats.pass_named("slices").unwrap();
    assert!(slices.tests <= 12, "{:?}", out.stats.pass_stats);
}

#[test]
fn slices_take_what_a_kept_class_does_not_need_apart_from_it() {
    // `main` needs `deque` and `swap(int&, int&)` (the test needs its call: `main`'s
    // statements are heads too); the out-of-line `deque::grow`, the
    // overload `swap(deque<T>&, deque<T>&)` and `operator==` name only what stays, so the
    // first graph keeps them with `deque`; the detached one makes each a head of its own.
    let src = "namespace lib {\ntemplate <class T> struct deque { T *p; int n; int size() const { return n; } void grow(); };\ntemplate <class T> void deque<T>::grow() { n = 2 * n; }\ninline void swap(int &a, int &b) { int t = a; a = b; b = t; }\ntemplate <class T> void swap(deque<T> &a, deque<T> &b) { swap(a.n, b.n); }\ntemplate <class T> bool operator==(const deque<T> &a, const deque<T> &b) { return a.n == b.n; }\n}\nint spare() { return 1; }\nint main() { lib::deque<int> d{nullptr, 1}; int needle = d.size(); int x = 1, y = 2; lib::swap(x, y); return needle; }\n";
    let (ok, errors) = compiles("g++", "c++", src);
    assert!(ok, "g++ rejects the original: {errors}");
    let f = Frontend::new(Language::Cpp).unwrap();
    let mut oracle = |c: &str| c.contains("needle") && c.replace(' ', "").contains("lib::swap(x,y)") && compiles("g++", "c++", c).0;
    let pipeline = crate::Pipeline::built_in(&["slices"]).unwrap();
    let out = crate::reduce(&f, src, &mut oracle, &crate::Options::perses(1), pipeline, &mut crate::NoProgress).unwrap();
    for (kept, text) in [(true, "void swap(int"), (false, "deque<T>::grow"), (false, "swap(deque"), (false, "operator=="), (false, "spare")] {
        assert_eq!(out.text.replace(" ", "").contains(&text.replace(" ", "")), kept, "{text}:\n{}", out.text);
    }
}

#[test]
fn a_qualified_declaration_a_default_and_typeof_keep_what_they_name() {
    // A class defined outside its (inline) namespace declares its name: a use needs the
    // definition, not only the forward declaration. A default (`P = policy`) and
    // `__typeof(swapped)` use what they name. The members of an inline namespace are
    // declarations at namespace scope, as those of an `extern "C"` block are, and
    // `extern "C"` without braces is one.
    let src = "namespace lib {\ninline namespace v1 { template <class T> class coll; struct idle_v1 { int w; }; }\nextern \"C\" int idle_c(int);\nextern \"C\" { int idle_block(int); int used_c(int); }\ntemplate <class T> class v1::coll { public: T v; };\n}\nextern int swapped(int) noexcept(true);\nnamespace gx { const int policy = 2; extern \"C\" __typeof(swapped) __swapped; }\nnamespace lib { using gx::policy; template <int P = policy> struct ptr { int v = P; }; }\nint use() { lib::coll<int> c{}; lib::ptr<> p; return c.v + p.v + gx::__swapped(1) + lib::used_c(2); }\nint spare() { return 3; }\nint other() { return 4; }\nint third() { return 5; }\nint main() { return use(); }\n";
    let cuts = without_each(Language::Cpp, src, true);
    for idle in ["idle_v1", "idle_c", "idle_block"] {
        assert!(cuts.iter().any(|cut| !cut.contains(idle) && cut.contains("class coll")), "no slice takes {idle} alone: {cuts:#?}");
    }
    all_compile("g++", "c++", src, &cuts, "slice");
}

#[test]
fn a_using_declaration_needs_what_it_brings_in() {
    // libstdc++'s `<execution>`: `using __pstl::execution::seq;` in `std::execution`, a
    // namespace of the same last name as the one it names, counted as its own declaration
    // and no use: `seq`'s declaration was a head of its own, and deleting it alone left the
    // using-declaration naming nothing (on the 920k case, a failed slice per ddmin level).
    let src = "namespace impl { namespace exec { struct seq_t {}; constexpr seq_t seq{}; struct par_t {}; constexpr par_t par{}; } }\nnamespace lib { namespace exec { using impl::exec::seq; using impl::exec::par; } }\nint spare() { return 1; }\nint other() { return 2; }\nint main() { return 0; }\n";
    let cuts = without_each(Language::Cpp, src, true);
    assert!(cuts.iter().any(|cut| !cut.contains("seq") && cut.contains("par")), "no slice takes seq with its using-declaration: {cuts:#?}");
    all_compile("g++", "c++", src, &cuts, "slice");
}

#[test]
fn heads_whose_deletion_takes_a_specialization_come_last() {
    // `sel_base` is named only by a partial specialization, which goes with it: code that
    // needs `sel<int *>` names only `sel`, so that deletion fails a validity test until
    // such code is gone. `slices` tries those heads after the others.
    let src = "template <class T> struct sel;\nstruct sel_base { typedef unsigned type; };\ntemplate <class T> struct sel<T *> : sel_base {};\nint spare() { return 1; }\nint other() { return 2; }\nint main() { return 0; }\n";
    let f = Frontend::new(Language::Cpp).unwrap();
    let tree = f.parse(src).unwrap().tree;
    let live = tree.live(&EditSet::default());
    let names = Names::without_parameters(&tree, &live, f.grammar(), true);
    let items = crate::slices::scope_items(&tree, f.grammar(), &live, tree.root());
    let is_main = |n: NodeId| tree.subtree_token_ids(n).iter().any(|&t| tree.token_text(t) == "main");
    let first_words = |units: &Units| {
        units.heads().iter().map(|&h| tree.subtree_token_ids(h).iter().take(4).map(|&t| tree.token_text(t)).collect::<Vec<_>>().join(" ")).collect::<Vec<_>>()
    };
    let units = Units::of(&names, &tree, &live, &items, &is_main);
    assert_eq!(first_words(&units), ["template < class T", "struct sel_base { typedef", "int spare ( )", "int other ( )"], "the heads in list order");
    let units = units.implicit_last();
    assert_eq!(
        first_words(&units),
        ["int spare ( )", "int other ( )", "template < class T", "struct sel_base { typedef"],
        "the heads that take the specialization last"
    );
    // The closure still follows its own heads: deleting `spare` alone takes nothing else.
    let mut deleted = [true, false, false, false];
    assert!(crate::engine::Closure::close(&units, &mut deleted).is_empty());
    let mut deleted = [false, false, false, true];
    let taken = crate::engine::Closure::close(&units, &mut deleted);
    assert!(taken.iter().any(|&n| tree.subtree_token_ids(n).iter().any(|&t| tree.token_text(t) == "*")), "sel_base goes without its specialization");
}

#[test]
fn a_name_in_a_template_argument_of_a_parameters_type_is_a_use() {
    // libstdc++'s `any`: `enable_if_t<!__is_in_place_type_v<_VTp>, bool> = true` in a
    // template parameter list names a variable template declared outside the list; read as
    // a parameter's own name, it tied nothing, and deleting the variable template alone
    // left `any` naming nothing (on the 920k case, a failed slice per ddmin level).
    let src = "namespace lib {\ntemplate<typename _Tp> struct tag { explicit tag() = default; };\ntemplate<typename> inline constexpr bool is_tag_v = false;\ntemplate<typename _Tp> inline constexpr bool is_tag_v<tag<_Tp>> = true;\ntemplate<bool, typename T = void> struct enable_if {};\ntemplate<typename T> struct enable_if<true, T> { typedef T type; };\ntemplate<bool B, typename T = void> using enable_if_t = typename enable_if<B, T>::type;\nclass any {\npublic:\n template <typename _Tp, typename _VTp = _Tp, enable_if_t<!is_tag_v<_VTp>, bool> = true>\n any(_Tp&& __value) {}\n};\n}\nint spare() { return 1; }\nint other() { return 2; }\nint main() { lib::any a(1); return 0; }\n";
    let cuts = without_each(Language::Cpp, src, true);
    assert!(cuts.iter().any(|cut| !cut.contains("spare") && cut.contains("is_tag_v")), "no slice takes spare alone: {cuts:#?}");
    all_compile("g++", "c++", src, &cuts, "slice");
}

#[test]
fn a_name_an_inner_namespace_declares_hides_the_outer_one_but_not_for_a_call() {
    // libstdc++'s `std::__detail` declares its own `_Select1st`, which `using namespace
    // __detail;` also shows in `std`: `_Map_base`'s partial specialization means
    // `__detail`'s, so `std::_Select1st` goes alone, not with the specialization (on the
    // 920k case, six failed slices). A call is not narrowed: `measure(t)` finds `lib`'s
    // `measure` by its argument's type although `detail` declares one too.
    let src = "namespace lib {\ntemplate <class T> struct select_first { typedef T type; };\nstruct box { int v; };\ninline int measure(box b) { return b.v; }\nnamespace detail {\nstruct select_first { typedef long type; };\ntemplate <class K, class Ex> struct map_base;\ntemplate <class K> struct map_base<K, select_first> { typedef select_first::type mapped; };\ninline int measure(int v) { return v; }\ntemplate <class T> int run(T t) { return measure(t); }\n}\nusing namespace detail;\n}\nint spare() { return 1; }\nint other() { return 2; }\nint main() { lib::detail::map_base<int, lib::detail::select_first>::mapped m = 0; return (int)m + lib::detail::run(lib::box{3}); }\n";
    let cuts = without_each(Language::Cpp, src, true);
    assert!(
        cuts.iter().any(|cut| !cut.contains("template <class T> struct select_first") && cut.contains("map_base<K, select_first>")),
        "no slice takes the outer select_first alone: {cuts:#?}"
    );
    all_compile("g++", "c++", src, &cuts, "slice");
}

#[test]
fn a_qualified_default_of_a_template_parameter_is_a_use() {
    // libstdc++'s `polymorphic_allocator<typename _Tp = std::byte>`: the name before `>`
    // after `::` is the default's, not a parameter the list declares; read as a local
    // name, it tied nothing, and deleting `byte` alone left the allocator naming nothing
    // (on the 920k case, six failed slices).
    let src = "namespace lib {\nenum class byte : unsigned char {};\ntemplate <typename _Tp = lib::byte> struct alloc { _Tp v; };\n}\nint spare() { return 1; }\nint other() { return 2; }\nint third() { return 3; }\nint main() { lib::alloc<> a{}; return (int)a.v; }\n";
    all_compile("g++", "c++", src, &without_each(Language::Cpp, src, true), "slice");
}
