//! Fuzzed front ends (issue 33, point 5): randomly mutated pest grammars, tree-sitter
//! `grammar.json` files and programs in every built-in language. For each case: no panic, no
//! hang (a watchdog per case), parse → render gives the same text, and every candidate a
//! reduction tests has no more syntax errors than the program it started from.
//!
//! The number of cases per property is `LOPPER_FUZZ_CASES` (default 300, CI's fixed budget
//! of about 20 s in a debug build, with a fixed seed); `benches/fuzz.sh` runs a longer one
//! with random seeds in a release build. `LOPPER_FUZZ_LIMIT` and `LOPPER_FUZZ_TRACE` help
//! find slow or crashing cases.

use std::sync::mpsc;
use std::time::Duration;

use lopper_parse::{Frontend, Language};
use lopper_reduce::{reduce, Options, Pipeline};
use lopper_tree::{EditSet, RenderOptions};
mod common;
use common::needle;
use proptest::prelude::*;
use serde_json::Value;

const PEST: [(&str, &str, &str); 3] = [
    ("json", include_str!("../../lopper-parse/grammars/json.pest"), "{\"a\": [1, 2.5e3, true, null], \"b\": {\"c\": \"d\\n\"}}\n"),
    ("smtlib", include_str!("../../lopper-parse/grammars/smtlib.pest"), "(set-logic QF_LIA)\n(declare-const x Int)\n(assert (> (+ x 1) 2))\n(check-sat)\n"),
    (
        "lua",
        include_str!("../../lopper-parse/grammars/lua.pest"),
        "local t = {1, x = 2}\nlocal function f(a) if a then return a else return 0 end end\nfor i = 1, 3 do print(f(i) .. \"s\") end\n",
    ),
];

/// A small program per built-in tree-sitter language, written for this test.
fn program(lang: Language) -> &'static str {
    match lang {
        Language::C => "typedef int T;\nstatic T f(T a) { return a * 2; }\nint main(void) { int x[3] = {1, 2, 3}; for (int i = 0; i < 3; i++) x[i] = f(x[i]); return x[0]; }\n",
        Language::Cpp => "#include <vector>\nnamespace n { template <class T> struct S { T v; T get() const { return v; } }; }\nint main() { n::S<int> s{1}; std::vector<int> v{s.get()}; return v[0]; }\n",
        Language::Java => "class A { int f(int a) { return a + 1; } public static void main(String[] x) { int y = new A().f(2); System.out.println(y); } }\n",
        Language::JavaScript => "const f = (a, b = 2) => a + b;\nclass C { m() { return [1, 2].map(x => f(x)); } }\nconsole.log(new C().m(), `t${f(1)}`);\n",
        Language::Rust => "struct S<'a> { v: &'a [i32] }\nimpl<'a> S<'a> { fn sum(&self) -> i32 { self.v.iter().sum() } }\nfn main() { let v = vec![1, 2]; println!(\"{}\", S { v: &v }.sum()); }\n",
        Language::Python => "class A:\n    def f(self, a):\n        if a > 1:\n            return a * 2\n        return [x for x in range(a)]\n\nprint(A().f(3))\n",
        Language::Go => "package main\n\nimport \"fmt\"\n\ntype T struct{ v int }\n\nfunc (t T) f(a int) int { return t.v + a }\n\nfunc main() { fmt.Println(T{1}.f(2)) }\n",
    }
}

/// Fragments a mutation inserts: brackets, quotes, comment openers, keywords, layout.
const PIECES: [&str; 16] = ["{", "}", "(", ")", "[", "]", "\"", "'", "/*", "//", "\n", "    ", ";", "int ", "=", "\\"];

/// One mutation: delete, duplicate or insert at a relative position.
#[derive(Clone, Debug)]
struct Mutation {
    kind: u8,
    at: f64,
    len: usize,
    piece: usize,
}

fn mutations() -> impl Strategy<Value = Vec<Mutation>> {
    prop::collection::vec((0u8..3, 0.0f64..1.0, 0usize..24, 0..PIECES.len()).prop_map(|(kind, at, len, piece)| Mutation { kind, at, len, piece }), 1..6)
}

/// Applies `ms` to `text` at character boundaries.
fn mutate(text: &str, ms: &[Mutation]) -> String {
    let mut s = text.to_string();
    for m in ms {
        let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let i = (m.at * (bounds.len() - 1) as f64) as usize;
        let j = (i + m.len).min(bounds.len() - 1);
        let (a, b) = (bounds[i], bounds[j]);
        match m.kind {
            0 => s.replace_range(a..b, ""),
            1 => {
                let span = s[a..b].to_owned();
                s.insert_str(a, &span)
            }
            _ => s.insert_str(a, PIECES[m.piece]),
        }
    }
    s
}

/// Runs `f` on a thread with a large stack; fails the test if it panics or takes longer
/// than `limit` (a hang: the bound is far above any case's time).
fn within<T: Send + 'static>(limit: Duration, what: String, f: impl FnOnce() -> T + Send + 'static) -> T {
    // With LOPPER_FUZZ_TRACE set, each case is named before it runs: the last line names
    // the one that took the process down (an allocation that failed, say).
    if std::env::var_os("LOPPER_FUZZ_TRACE").is_some() {
        eprintln!("case: {what}");
    }
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .unwrap();
    match rx.recv_timeout(limit) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("no answer within {limit:?} (a hang?): {what}"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("panicked: {what}"),
    }
}

/// The watchdog's bound per case: `LOPPER_FUZZ_LIMIT` seconds, default 120 (far above any
/// case's time; a smaller one finds slow cases).
fn limit() -> Duration {
    Duration::from_secs(std::env::var("LOPPER_FUZZ_LIMIT").ok().and_then(|v| v.parse().ok()).unwrap_or(120))
}

/// Parses `text` and checks that the tree renders it back; the parse may refuse it.
fn parses_and_renders(f: &Frontend, text: &str) -> Result<(), String> {
    if let Ok(p) = f.parse(text) {
        let out = p.tree.render(&EditSet::default(), RenderOptions { keep_comments: true });
        if out != text {
            return Err(format!("render differs from the parsed text:\n{text}\n---\n{out}"));
        }
    }
    Ok(())
}

/// Reduces `src` with the built-in passes, keeping candidates that contain `needle`; every
/// candidate tested may have no more syntax errors than `src` (the grammar screen's rule,
/// against a best whose errors never grow).
fn reduce_checks_candidates(f: &Frontend, src: &str, needle: &str) -> Result<(), String> {
    let Ok(before) = f.syntax_errors(src) else { return Ok(()) };
    let mut worse = None;
    let mut oracle = |c: &str| {
        if worse.is_none() && f.syntax_errors(c).is_ok_and(|e| e > before) {
            worse = Some(c.to_string());
        }
        c.contains(needle)
    };
    let names = ["unused", "perses", "identifiers", "literals", "inline", "aliases", "params", "subtrees", "tokens", "layout"];
    let pipeline = Pipeline::built_in(&names).map_err(|e| e.to_string())?;
    let out = match reduce(f, src, &mut oracle, &Options::perses(1), pipeline, &mut lopper_reduce::NoProgress) {
        Ok(out) => out,
        Err(e) => return Err(format!("reduction failed: {e}\n{src}")),
    };
    if let Some(c) = worse {
        return Err(format!("a tested candidate has more syntax errors than the input ({before}):\n{c}\n(from:\n{src})"));
    }
    if !out.text.contains(needle) {
        return Err(format!("the result lost the needle {needle:?}:\n{}", out.text));
    }
    Ok(())
}

/// Replaces, deletes or swaps the `at`-th value (preorder) of a JSON document.
fn mutate_json(v: &mut Value, at: &mut usize, how: u8, donor: &Value) {
    if *at == 0 {
        *v = match how {
            0 => Value::Null,
            1 => donor.clone(),
            2 => Value::String("x".into()),
            _ => match &*v {
                Value::Array(a) if !a.is_empty() => Value::Array(a[1..].to_vec()),
                Value::Object(o) => Value::Object(o.iter().skip(1).map(|(k, v)| (k.clone(), v.clone())).collect()),
                other => Value::Array(vec![other.clone()]),
            },
        };
        *at = usize::MAX;
        return;
    }
    *at -= 1;
    match v {
        Value::Array(a) => a.iter_mut().for_each(|c| {
            if *at != usize::MAX {
                mutate_json(c, at, how, donor)
            }
        }),
        Value::Object(o) => o.values_mut().for_each(|c| {
            if *at != usize::MAX {
                mutate_json(c, at, how, donor)
            }
        }),
        _ => {}
    }
}

/// The `at`-th value (preorder) of a JSON document, if any.
fn nth_json(v: &Value, at: &mut usize) -> Option<Value> {
    if *at == 0 {
        return Some(v.clone());
    }
    *at -= 1;
    match v {
        Value::Array(a) => a.iter().find_map(|c| nth_json(c, at)),
        Value::Object(o) => o.values().find_map(|c| nth_json(c, at)),
        _ => None,
    }
}

fn cases() -> u32 {
    std::env::var("LOPPER_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(300)
}

/// The random seed: `LOPPER_FUZZ_SEED` (a number, or `random`), default 0, so that the test
/// suite checks the same cases on every run; `benches/fuzz.sh` draws new ones.
fn seed() -> proptest::test_runner::RngSeed {
    use proptest::test_runner::RngSeed;
    match std::env::var("LOPPER_FUZZ_SEED").ok().as_deref() {
        Some("random") => RngSeed::Random,
        Some(n) => RngSeed::Fixed(n.parse().expect("LOPPER_FUZZ_SEED: a number or `random`")),
        None => RngSeed::Fixed(0),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), rng_seed: seed(), failure_persistence: None, ..ProptestConfig::default() })]

    /// A mutated pest grammar loads or is refused with an error; a loaded one parses (or
    /// refuses) its sample program, and renders what it parses.
    #[test]
    fn mutated_pest_grammars_load_or_are_refused(which in 0..PEST.len(), ms in mutations()) {
        let (name, grammar, src) = PEST[which];
        let mutated = mutate(grammar, &ms);
        let what = format!("{name}.pest mutated by {ms:?}");
        let r = within(limit(), what.clone(), move || match Frontend::from_pest(name, &mutated) {
            Ok(f) => parses_and_renders(&f, src).map(|()| {
                let _ = f.syntax_errors(src);
            }),
            Err(e) => if e.to_string().trim().is_empty() { Err("an empty error message".into()) } else { Ok(()) },
        });
        prop_assert!(r.is_ok(), "{}: {}", what, r.unwrap_err());
    }

    /// A mutated tree-sitter `grammar.json` (one value replaced, emptied, swapped with
    /// another of the document or shortened) loads and normalizes or is refused; a loaded
    /// one, run with the real compiled parser it no longer matches, parses and renders.
    #[test]
    fn mutated_grammar_json_loads_or_is_refused(which in 0..Language::ALL.len(), at in 0usize..20_000, from in 0usize..20_000, how in 0u8..4, cut in 0.0f64..1.0, truncate in 0u8..8) {
        let lang = Language::ALL[which];
        let json = lang.grammar_json();
        let mut v: Value = serde_json::from_str(json).unwrap();
        let donor = nth_json(&v, &mut from.clone()).unwrap_or(Value::Null);
        mutate_json(&mut v, &mut at.clone(), how, &donor);
        let mut text = v.to_string();
        if truncate == 0 {
            // Now and then the text itself is cut: a file that is not JSON any more.
            let mut end = (cut * text.len() as f64) as usize;
            while !text.is_char_boundary(end) { end -= 1; }
            text.truncate(end);
        }
        let what = format!("{} grammar.json, value {at} mutated ({how}, from {from}, cut {truncate}/{cut})", lang.name());
        let r = within(limit(), what.clone(), move || match Frontend::from_tree_sitter(lang.name(), &text, lang.tree_sitter()) {
            Ok(f) => parses_and_renders(&f, program(lang)),
            Err(_) => Ok(()),
        });
        prop_assert!(r.is_ok(), "{}: {}", what, r.unwrap_err());
    }

    /// A mutated program in every built-in language parses (or is refused), renders back to
    /// its text, and reduces with every tested candidate screened by the grammar.
    #[test]
    fn mutated_programs_parse_render_and_reduce(which in 0..(Language::ALL.len() + PEST.len()), ms in mutations(), at in 0usize..1000) {
        let (name, src) = match Language::ALL.get(which) {
            Some(&l) => (l.name(), program(l)),
            None => (PEST[which - Language::ALL.len()].0, PEST[which - Language::ALL.len()].2),
        };
        let mutated = mutate(src, &ms);
        let what = format!("{name} program mutated by {ms:?}");
        let r = within(limit(), what.clone(), move || {
            let f = match Language::ALL.get(which) {
                Some(&l) => Frontend::new(l).unwrap(),
                None => Frontend::from_pest(name, PEST[which - Language::ALL.len()].1).unwrap(),
            };
            parses_and_renders(&f, &mutated)?;
            if f.parse(&mutated).is_err() {
                return Ok(());
            }
            reduce_checks_candidates(&f, &mutated, &needle(&mutated, at))
        });
        prop_assert!(r.is_ok(), "{}: {}", what, r.unwrap_err());
    }
}
