//! The judge's grammar screen in whole reductions (synthetic oracles: no processes).

use crate::{reduce, Options, Pipeline};
use lopper_parse::{Frontend, Language};

#[test]
fn no_candidate_with_more_of_its_text_unparsed_than_the_best_is_tested() {
    // The input ends inside `extern "C" {` (one syntax error): deleting the inner `}` keeps
    // that one error but makes tree-sitter read everything as one ERROR node.
    let f = Frontend::new(Language::Cpp).unwrap();
    let src = "extern \"C\" {\nint a(int);\nextern \"C++\"\n{\nint b(int);\n}\nint c(int);\nint f(int);\n";
    let input = f.damage(src).unwrap();
    assert_eq!((input.errors, input.unparsed), (1, 0));
    let mut seen: Vec<String> = Vec::new();
    let mut oracle = |c: &str| {
        seen.push(c.to_string());
        c.contains("int f(int);")
    };
    let out = reduce(&f, src, &mut oracle, &Options::perses(1), Pipeline::built_in(&["tokens"]).unwrap(), &mut crate::NoProgress).unwrap();
    assert!(out.stats.invalid > 0, "{:?}", out.stats);
    for c in &seen {
        assert_eq!(f.damage(c).unwrap().unparsed, 0, "tested a candidate tree-sitter could not read:\n{c}");
    }
    // The candidate deleting only the inner `}` was made, and screened out.
    let without_brace = src.replacen("}\n", "", 1);
    assert!(f.damage(&without_brace).unwrap().worse_than(input));
    assert!(out.text.contains("int f(int);"), "{}", out.text);
}
