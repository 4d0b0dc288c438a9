//! Property: every candidate the Perses reducer produces for a grammar-file language (a pest
//! grammar normalized by Algorithm 1) parses again under the same grammar. The grammar
//! check is set to count, not reject, so the oracle sees every candidate the
//! transformations make, and none may be invalid.

use lopper_parse::Frontend;
use lopper_reduce::{reduce, GrammarCheck, Options, Pipeline};
mod common;
use common::needle;
use proptest::prelude::*;
use serde_json::Value;

const JSON: &str = include_str!("../../lopper-parse/grammars/json.pest");
const SMTLIB: &str = include_str!("../../lopper-parse/grammars/smtlib.pest");
const LUA: &str = include_str!("../../lopper-parse/grammars/lua.pest");

/// Reduces `src` keeping candidates that contain `needle`; checks every candidate parses.
fn every_candidate_parses(grammar: &str, src: &str, needle: &str) -> Result<(), TestCaseError> {
    let f = Frontend::from_pest("t", grammar).unwrap();
    prop_assume!(f.syntax_errors(src).unwrap() == 0);
    let mut seen: Vec<String> = Vec::new();
    let mut oracle = |c: &str| {
        seen.push(c.to_string());
        c.contains(needle)
    };
    let opts = Options { grammar_check: GrammarCheck::Count, ..Options::perses(1) };
    let out = reduce(&f, src, &mut oracle, &opts, Pipeline::perses(), &mut lopper_reduce::NoProgress).unwrap();
    for c in &seen {
        prop_assert_eq!(f.syntax_errors(c).unwrap(), 0, "candidate does not parse:\n{}\n(from:\n{})", c, src);
    }
    prop_assert_eq!(out.stats.invalid, 0);
    prop_assert!(out.text.contains(needle));
    prop_assert!(out.stats.tokens_after <= out.stats.tokens_before);
    Ok(())
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf =
        prop_oneof![Just(Value::Null), any::<bool>().prop_map(Value::Bool), (-1000i64..1000).prop_map(Value::from), "[a-z]{0,4}".prop_map(Value::String),];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..5).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

const SMT_PROGRAM: &str = "(set-logic QF_LIA)\n(declare-const x Int)\n(declare-fun f (Int Int) Int)\n(define-fun g ((a Int)) Int (+ a 1))\n(assert (> (f x 2) (g x)))\n(assert (let ((y (* x 3))) (or (= y 4) (distinct y 5 6))))\n(assert (! (< x 10) :named lt))\n(push 1)\n(check-sat)\n(get-value (x (g 2)))\n(pop 1)\n(exit)\n";

const LUA_PROGRAM: &str = "local t = {1, 2, x = 3, [\"y\"] = 4}\nlocal function f(a, b, ...)\n  if a > b then return a elseif a == b then return 0 else return b end\nend\nfor i = 1, 10 do t[i] = f(i, 5) .. \"s\" end\nfor k, v in pairs(t) do print(k, v) end\nlocal s = t.x + #t * -2 ^ 2\nwhile not done do done = true end\nrepeat local z <const> = 1 until z\nprint(string.format(\"%d\", 3))\n";

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn json_candidates_parse(v in json_value(), pretty in any::<bool>(), at in 0usize..1000) {
        let src = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { serde_json::to_string(&v).unwrap() };
        every_candidate_parses(JSON, &src, &needle(&src, at))?;
    }

    #[test]
    fn smtlib_candidates_parse(at in 0usize..1000) {
        every_candidate_parses(SMTLIB, SMT_PROGRAM, &needle(SMT_PROGRAM, at))?;
    }

    #[test]
    fn lua_candidates_parse(at in 0usize..1000) {
        every_candidate_parses(LUA, LUA_PROGRAM, &needle(LUA_PROGRAM, at))?;
    }
}
