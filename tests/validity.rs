//! End to end: under a validity-keeping test (a real front end must accept every candidate,
//! as for a crash-on-valid bug), the `definitions` search turns function definitions into
//! declarations with candidates the compiler accepts, and the whole pipeline ends valid.

mod common;
use common::*;
use lopper_parse::Language;
use std::fs;

/// C++ with what a careless body-emptying breaks: a non-void function (`-Werror=return-type`),
/// a deduced return type, a `constexpr` function a `static_assert` needs, members defined
/// outside their class, a constructor with member initializers, a template.
const CPP: &str = r#"
#include <cstddef>
namespace util {
constexpr int square(int x) { return x * x; }
static_assert(square(3) == 9, "needs the definition");
auto twice(int x) { return 2 * x; }
template <class T> T pick(T a, T b) { if (a < b) { return b; } return a; }
int sum(const int *p, std::size_t n) { int s = 0; for (std::size_t i = 0; i < n; ++i) { s += p[i]; } return s; }
}
struct Counter {
  int count;
  int step;
  Counter(int c, int s) : count(c), step(s) { if (s == 0) { step = 1; } }
  int next();
  int peek() const { return count + step * 2 - 1; }
  ~Counter();
};
int Counter::next() { count += step; if (count > 100) { count = 0; } return count; }
Counter::~Counter() { count = -1; step = -1; }
class Shape { public: virtual double area() const { return 0.0 + 1.0 - 1.0; } virtual ~Shape() {} };
class Square : public Shape { double side; public: explicit Square(double s) : side(s) {} double area() const override { return side * side; } };
int use_all() {
  int data[4] = {1, 2, 3, 4};
  Counter c(1, 2);
  Square sq(2.0);
  return util::sum(data, 4) + c.next() + c.peek() + util::pick(3, 4) + util::twice(5) + static_cast<int>(sq.area()) + util::square(2);
}
int marker_keep_me(int v) { int trigger = v * 7; return trigger + 1; }
int main() { return use_all() + marker_keep_me(1); }
"#;

/// `s` without whitespace: the edits keep the spaces around a body they remove.
fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

/// `src` as `file_name` reduced by `--passes passes` under `test`, which must pass on the
/// original and on the result: the result's text.
fn reduced_by(passes: &str, file_name: &str, src: &str, test: &str) -> String {
    let case = Case::new(file_name, src, test);
    assert!(case.passes(&case.program));
    let out = case.lopper(&["-q", "--passes", passes]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    reduced
}

const CPP_TEST: &str = "g++ -std=c++17 -fsyntax-only -Werror=return-type -x c++ \"$1\" >/dev/null 2>&1 && grep -q 'int trigger' \"$1\"";

#[test]
fn cpp_definitions_become_declarations_the_compiler_accepts() {
    require_tool("g++");
    let case = Case::new("p.cpp", CPP, CPP_TEST);
    assert!(case.passes(&case.program));
    let stats = case.path("stats.json");
    let out = case.lopper(&["-q", "--passes", "definitions", "--stats", stats.to_str().unwrap()]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    let flat = squash(&reduced);
    // Definitions became declarations; what a compiler needs stayed a definition.
    for decl in ["int sum(const int *p, std::size_t n);", "int peek() const;", "int use_all();"] {
        assert!(flat.contains(&squash(decl)), "{decl} missing:\n{reduced}");
    }
    for kept in ["constexpr int square(int x) { return x * x; }", "auto twice(int x) { return 2 * x; }"] {
        assert!(flat.contains(&squash(kept)), "{kept} missing:\n{reduced}");
    }
    // Out-of-class members went whole; the constructor lost its initializers with its body.
    assert!(!reduced.contains("Counter::next") && !reduced.contains("Counter::~Counter"), "{reduced}");
    assert!(flat.contains(&squash("Counter(int c, int s);")), "{reduced}");
    let s: serde_json::Value = serde_json::from_str(&fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(s["invalid_candidates"], 0);
    assert!(tokens(Language::Cpp, &reduced) * 2 < tokens(Language::Cpp, CPP), "{reduced}");
}

/// Shapes of preprocessed libstdc++ that tree-sitter-cpp reads as functions though they are
/// not (a namespace with an attribute, a partial specialization over a member-function
/// pointer with a base clause), an out-of-line member whose head starts with an attribute,
/// and an operator whose return type holds a `::`.
const LIBRARY_SHAPES: &str = r#"
#include <utility>
namespace lib __attribute__ ((__visibility__ ("default")))
{
template <class T> struct Base { T value() const { return T() + T(); } };
template <class M> struct Traits;
template <class R, class C> struct Traits<R (C::*)() const> : Base<R> { };
template <class T> struct Box {
  T v;
  T get() const;
};
template <class T>
  __attribute__ ((__noinline__))
  T
  Box<T>::
  get() const
  { T r = v; return r + T(); }
struct Select {
  template <class P>
    typename P::first_type&&
    operator()(P&& p) const noexcept
    { return std::forward<P>(p).first; }
};
}
int use_all() {
  lib::Box<int> b{2};
  lib::Traits<int (lib::Box<int>::*)() const> t;
  return b.get() + t.value() + lib::Select{}(std::pair<int, int>(1, 2));
}
int marker_keep_me(int v) { int trigger = v * 7; return trigger + 1; }
int main() { return use_all() + marker_keep_me(1); }
"#;

#[test]
fn cpp_library_shapes_keep_their_kind_and_out_of_line_members_go_whole() {
    require_tool("g++");
    let reduced = squash(&reduced_by("definitions", "p.cpp", LIBRARY_SHAPES, CPP_TEST));
    // What only looks like a function keeps its body.
    for kept in ["namespacelib__attribute__((__visibility__(\"default\"))){", "structTraits<R(C::*)()const>:Base<R>{};"] {
        assert!(reduced.contains(kept), "{kept} missing:\n{reduced}");
    }
    // The member defined outside its class went whole; the operator became a declaration.
    assert!(!reduced.contains("Box<T>::get"), "{reduced}");
    assert!(reduced.contains("operator()(P&&p)constnoexcept;"), "{reduced}");
}

#[test]
fn cpp_the_whole_pipeline_ends_valid_under_a_validity_keeping_test() {
    require_tool("g++");
    let case = Case::new("p.cpp", CPP, CPP_TEST);
    let out = case.lopper(&["-q"]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    assert!(tokens(Language::Cpp, &reduced) <= 12, "{reduced}");
}

const JAVA: &str = r#"
import java.util.ArrayList;
import java.util.List;
public class Main {
    private final List<Integer> items = new ArrayList<>();
    private int total;
    public Main(int first) { items.add(first); total = first; if (first < 0) { total = 0; } }
    public void add(int v) { items.add(v); total += v; if (total > 1000) { total = 1000; } }
    public int size() { int n = 0; for (int i : items) { n += i > 0 ? 1 : 0; } return n; }
    public String describe() { StringBuilder b = new StringBuilder(); for (int i : items) { b.append(i).append(','); } return b.toString(); }
    static int marker(int v) { int trigger = v * 7; return trigger + 1; }
    abstract static class Base { abstract int value(); int doubled() { return value() * 2 + 0; } }
    interface Named { default String name() { return "named" + "!"; } }
    public static void main(String[] args) { Main m = new Main(1); m.add(2); System.out.println(m.size() + m.describe() + marker(3)); }
}
"#;

#[test]
fn java_bodies_become_the_smallest_javac_accepts() {
    require_tool("javac");
    let test = &format!("d=$(mktemp -d) && cp \"$1\" \"$d/Main.java\" && {JAVAC} -d \"$d\" \"$d/Main.java\" >/dev/null 2>&1; r=$?; rm -rf \"$d\"; [ $r -eq 0 ] && grep -q 'int trigger' \"$1\"");
    let reduced = squash(&reduced_by("definitions", "Main.java", JAVA, test));
    assert!(reduced.contains("publicvoidadd(intv){}"), "{reduced}");
    assert!(reduced.contains("publicintsize(){thrownull;}"), "{reduced}");
    assert!(reduced.contains("publicMain(intfirst){}"), "{reduced}");
    assert!(reduced.contains("inttrigger=v*7"), "{reduced}");
}

const RUST: &str = r#"pub struct Store { items: Vec<u32>, total: u32 }
impl Store {
    pub fn new() -> Store { Store { items: Vec::new(), total: 0 } }
    pub fn add(&mut self, v: u32) { self.items.push(v); self.total += v; if self.total > 1000 { self.total = 1000; } }
    pub fn size(&self) -> usize { self.items.iter().filter(|&&i| i > 0).count() }
    pub fn evens(&self) -> impl Iterator<Item = &u32> + '_ { self.items.iter().filter(|i| *i % 2 == 0) }
    pub fn describe(&self) -> String { let mut b = String::new(); for i in &self.items { b.push_str(&i.to_string()); b.push(','); } b }
}
pub trait Named { fn name(&self) -> String { let mut s = String::from("named"); s.push('!'); s } }
pub fn marker(v: u32) -> u32 { let trigger = v * 7; trigger + 1 }
pub fn run() -> u32 { let mut m = Store::new(); m.add(2); let n = m.size() as u32 + m.evens().count() as u32; n + marker(3) + m.describe().len() as u32 }
"#;

#[test]
fn rust_bodies_become_empty_or_diverging_and_rustc_accepts_them() {
    require_tool("rustc");
    // A metadata-only build into a temporary folder (never -o /dev/null: rustc replaces it).
    let test = "d=$(mktemp -d) && rustc --edition 2021 --crate-type lib --emit=metadata --out-dir \"$d\" \"$1\" >/dev/null 2>&1; r=$?; rm -rf \"$d\"; [ $r -eq 0 ] && grep -q 'let trigger' \"$1\"";
    let reduced = squash(&reduced_by("definitions", "lib.rs", RUST, test));
    assert!(reduced.contains("pubfnadd(&mutself,v:u32){}"), "{reduced}");
    assert!(reduced.contains("pubfnsize(&self)->usize{loop{}}"), "{reduced}");
    assert!(reduced.contains("fnname(&self)->String{loop{}}"), "{reduced}");
    // A diverging body has no `impl Trait` type: left alone.
    assert!(reduced.contains("self.items.iter().filter(|i|*i%2==0)"), "{reduced}");
    assert!(reduced.contains("lettrigger=v*7"), "{reduced}");
}

#[test]
fn scopes_are_hoisted_where_gxx_still_accepts_the_program() {
    require_tool("g++");
    // The guard and `extern "C++"` can go; `outer` cannot, its name qualifies a call.
    let src = "#ifndef GUARD\n#define GUARD\nextern \"C++\" {\nstruct A { int v; };\nint h();\n}\n#endif\nnamespace outer {\nint f() { return 1; }\n}\nint trigger() { A a{3}; return a.v + outer::f() + h(); }\n";
    let test = "g++ -std=c++17 -fsyntax-only -x c++ \"$1\" >/dev/null 2>&1 && grep -q 'int trigger' \"$1\"";
    let reduced = reduced_by("hoist", "a.cpp", src, test);
    assert!(!reduced.contains("extern") && reduced.contains("struct A { int v; };\nint h();"), "the linkage specification goes: {reduced}");
    assert!(!reduced.contains("#ifndef") && !reduced.contains("#endif") && reduced.contains("#define GUARD"), "the include guard goes: {reduced}");
    assert!(reduced.contains("namespace outer {"), "a scope a qualified name needs stays: {reduced}");
}

#[test]
fn unused_parameters_go_with_their_arguments_where_gcc_still_accepts_the_program() {
    require_tool("gcc");
    // `b` and `c` are unused: they go with the matching argument of every call, nested
    // calls too; `a` is used and stays; `v` takes a variadic list and is left alone.
    let src = "int g(int a, int b, int c) { return a + 1; }\nint h(int x, int y);\nint h(int x, int y) { return y; }\nint v(int n, ...) { return 0; }\nint trigger(void) { int r = g(g(2, 3, 4), 1, 5); return h(r, 0) + g(0, 0, 0) + v(1, 2); }\n";
    let test = "gcc -std=c99 -fsyntax-only -Werror=implicit-function-declaration -x c \"$1\" >/dev/null 2>&1 && grep -q 'return a + 1' \"$1\"";
    let reduced = reduced_by("arguments", "a.c", src, test);
    assert!(reduced.contains("int g(int a) {") && reduced.contains("g(g(2))"), "{reduced}");
    assert!(reduced.contains("int h(int y);\nint h(int y) {") && reduced.contains("h(0)"), "{reduced}");
    assert!(reduced.contains("int v(int n, ...)") && reduced.contains("v(1, 2)"), "{reduced}");
}

#[test]
fn template_parameters_become_int_and_templates_plain_classes_where_gxx_accepts_them() {
    require_tool("g++");
    let src = "template <class T, class U> struct S { T a; U b; int get() { return sizeof(U); } };\ntemplate <typename V> V id(V v) { return v; }\nS<char, long> s;\nS<int, S<int, int> > t;\nint trigger() { return id<int>(s.get()) + t.a; }\n";
    let test = "g++ -std=c++17 -fsyntax-only -x c++ \"$1\" >/dev/null 2>&1 && grep -q 'get' \"$1\"";
    let reduced = squash(&reduced_by("templates", "a.cpp", src, test));
    assert!(!reduced.contains("template") && !reduced.contains('<'), "{reduced}");
    assert!(reduced.contains("structS{inta;intb;intget(){returnsizeof(int);}};"), "{reduced}");
    assert!(reduced.contains("intid(intv){returnv;}") && reduced.contains("Ss;St;") && reduced.contains("id(s.get())"), "{reduced}");
}

#[test]
fn an_aggregate_loses_a_member_with_its_binding_names_and_initializer_elements_and_becomes_an_array() {
    require_tool("g++");
    // Issue 52's 28 → 21 tokens: `f` is unused; its name goes with member `a` (neither can
    // go alone), then `S`, used only through the binding, becomes an array. The array
    // binding loses `p` with an element and its initializer's `1`; `P` loses `x` with the
    // first element of each initializer; `W`, one member used only through it, becomes it.
    let src = "struct S { int a; int b; };\nS s;\nauto [f, g] = s;\nint arr[2] = {1, 2};\nauto [p, q] = arr;\nstruct P { int x; long y; };\nP u{1, 2};\nstruct W { long v; };\nW w{3};\nint h() { return g + q + P{3, 4}.y + u.y + w.v; }\n";
    let test = "g++ -std=c++17 -fsyntax-only -x c++ \"$1\" >/dev/null 2>&1 && grep -q 'return g + q' \"$1\"";
    let reduced = squash(&reduced_by("aggregates", "a.cpp", src, test));
    assert!(reduced.contains("ints[1];auto[g]=s;"), "{reduced}");
    assert!(!reduced.contains("structS"), "{reduced}");
    assert!(reduced.contains("intarr[1]={2};auto[q]=arr;"), "{reduced}");
    assert!(reduced.contains("structP{longy;};Pu{2};") && reduced.contains("P{4}.y"), "{reduced}");
    assert!(reduced.contains("longw{3};") && reduced.contains("u.y+w;}") && !reduced.contains("structW"), "one member, used only through it: {reduced}");
}

/// A class whose members another class's statements use: `Big`'s members are the largest
/// list (the test needs `pad1`), so Perses' ddmin over them comes before the statements
/// of `User.f`.
const JAVA_USES: &str = r#"
class Big {
    int used() { return 1; }
    int gone() { return 2; }
    int pad1() { int a = 1; int b = a + 2; int c = b * 3; return a + b + c; }
    int pad2() { int a = 4; int b = a + 5; int c = b * 6; return a + b + c; }
    int pad3() { int a = 7; int b = a + 8; int c = b * 9; return a + b + c; }
}
class User {
    int f(Big big) { int x = big.gone(); int y = x + 1; return big.used() + 0; }
}
public class Main {
    public static void main(String[] args) { int trigger = new User().f(new Big()); System.out.println(trigger); }
}
"#;

#[test]
fn a_method_goes_with_the_statements_of_another_class_that_call_it_in_one_javac_accepted_test() {
    require_tool("javac");
    // Every candidate javac accepts (with the marker) is kept, numbered, in test order.
    let case = Case::new("Main.java", JAVA_USES, "");
    let log = case.path("accepted");
    fs::create_dir(&log).unwrap();
    let test = format!(
        "grep -q 'return big.used()' \"$1\" && grep -q 'int pad1' \"$1\" && grep -q 'trigger = new User().f(new Big())' \"$1\" || exit 1; \
         d=$(mktemp -d) && cp \"$1\" \"$d/Main.java\" && {JAVAC} -d \"$d\" \"$d/Main.java\" >/dev/null 2>&1; r=$?; rm -rf \"$d\"; \
         [ $r -eq 0 ] || exit 1; n=$(ls {log} | wc -l); cp \"$1\" {log}/$(printf %05d $n)",
        log = log.display()
    );
    let case = Case::new("Main.java", JAVA_USES, &test);
    fs::create_dir_all(&log).unwrap();
    let out = case.lopper(&["-q", "-j", "1", "--no-cache", "--passes", "unused,perses"]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    assert!(!reduced.contains("gone"), "{reduced}");
    // Some accepted candidate took `gone` and the statements using it (`int x`, and `int y`,
    // which uses `x`) from the one before it, which had all three: a test that needs both
    // the declaration and its uses gone at once to stay valid.
    let mut accepted: Vec<String> = fs::read_dir(&log).unwrap().map(|e| e.unwrap().path().to_string_lossy().into_owned()).collect();
    accepted.sort();
    let texts: Vec<String> = accepted.iter().map(|p| squash(&fs::read_to_string(p).unwrap())).collect();
    let all = |t: &str| ["intgone()", "intx=big.gone();", "inty=x+1;"].iter().all(|s| t.contains(s));
    let none = |t: &str| ["gone", "intx", "inty"].iter().all(|s| !t.contains(s));
    let together = texts.windows(2).any(|w| all(&w[0]) && none(&w[1]) && w[1].contains("intused()"));
    assert!(together, "{texts:#?}");
}
