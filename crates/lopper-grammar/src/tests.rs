use super::*;
use Expr::*;

fn sym(s: &str) -> Expr {
    Symbol(s.into())
}
fn lit(s: &str) -> Expr {
    Str(s.into())
}
fn rules(pnf: &PnfGrammar) -> Vec<String> {
    pnf.show().lines().skip(1).take_while(|l| !l.is_empty()).map(str::to_string).collect()
}

#[test]
fn inline_groups_become_auxiliary_quantified_rules() {
    // args ::= "(" (expr ("," expr)*)? ")"
    let g = grammar_from_rules(
        "t",
        vec![
            ("args", Seq(vec![lit("("), Choice(vec![Seq(vec![sym("expr"), Repeat(Box::new(Seq(vec![lit(","), sym("expr")])))]), Blank]), lit(")")])),
            ("expr", Pattern("[0-9]+".into())),
        ],
    );
    let pnf = normalize(&g).unwrap();
    assert_eq!(
        rules(&pnf),
        vec![
            r#"args ::= "(" args__opt4 ")""#,
            "expr ::= /[0-9]+/",
            r#"args__seq1 ::= "," expr"#,
            "args__star2 ::= args__seq1*",
            "args__seq3 ::= expr args__star2",
            "args__opt4 ::= args__seq3?",
        ]
    );
    assert_eq!(pnf.counts(), (6, 2));
}

#[test]
fn top_level_shapes_decide_the_rule_kind() {
    let g = grammar_from_rules(
        "t",
        vec![
            ("s", Repeat(Box::new(sym("item")))),
            ("item", Choice(vec![sym("a"), Seq(vec![sym("a"), lit(";")])])),
            ("a", Repeat1(Box::new(Choice(vec![lit("x"), lit("y")])))),
            ("o", Choice(vec![Blank, sym("a")])),
        ],
    );
    let pnf = normalize(&g).unwrap();
    assert_eq!(rules(&pnf), vec!["s ::= item*", r#"item ::= a | a ";""#, "a ::= a__alt1+", "o ::= a?", r#"a__alt1 ::= "x" | "y""#,]);
}

#[test]
fn nested_choices_flatten_and_tokens_are_terminals() {
    let g = grammar_from_rules(
        "t",
        vec![
            ("s", Choice(vec![sym("a"), Choice(vec![sym("b"), Seq(vec![sym("a"), sym("b")])])])),
            ("a", Token(Box::new(Seq(vec![lit("0x"), Pattern("[0-9a-f]+".into())])))),
            ("b", Token(Box::new(lit("kw")))),
        ],
    );
    let pnf = normalize(&g).unwrap();
    assert_eq!(rules(&pnf), vec!["s ::= a | b | a b", r#"a ::= token("0x" /[0-9a-f]+/)"#, r#"b ::= "kw""#]);
    let t = pnf.lookup(r#"token("0x" /[0-9a-f]+/)"#).unwrap();
    assert_eq!(pnf.symbol(t).rule, PnfRule::Terminal(Terminal::Token));
    assert!(pnf.symbol(t).cst.is_none(), "an inline token is invisible in the CST");
}

#[test]
fn hidden_rules_and_aliases_decide_cst_visibility() {
    let mut g = grammar_from_rules(
        "t",
        vec![
            ("s", Seq(vec![sym("_e"), Alias { content: Box::new(sym("id")), value: "type".into(), named: true }])),
            ("_e", Choice(vec![sym("id"), sym("num")])),
            ("id", Pattern("[a-z]+".into())),
            ("num", Pattern("[0-9]+".into())),
            ("sup", sym("id")),
        ],
    );
    g.supertypes.push("sup".into());
    let pnf = normalize(&g).unwrap();
    let cst = |n: &str| pnf.symbol(pnf.lookup(n).unwrap()).cst.clone();
    assert_eq!(cst("_e"), None);
    assert_eq!(cst("sup"), None);
    assert_eq!(cst("id"), Some(CstKind { kind: "id".into(), named: true }));
    let alias = pnf.symbols_for_cst("type", true);
    assert_eq!(alias.len(), 1);
    assert_eq!(pnf.symbol(alias[0]).rule, PnfRule::Regular(vec![vec![pnf.lookup("id").unwrap()]]));
    assert!(pnf.symbols_for_cst("ERROR", true).is_empty());
}

#[test]
fn subsumption_is_the_closure_of_unit_derivations() {
    // expr ::= term | expr "+" term ; term ::= atom ; atom ::= num | "(" expr ")"
    let g = grammar_from_rules(
        "t",
        vec![
            ("expr", Choice(vec![sym("term"), Seq(vec![sym("expr"), lit("+"), sym("term")])])),
            ("term", sym("atom")),
            ("atom", Choice(vec![sym("num"), Seq(vec![lit("("), sym("expr"), lit(")")])])),
            ("num", Pattern("[0-9]+".into())),
            ("list", Repeat(Box::new(sym("expr")))),
        ],
    );
    let pnf = normalize(&g).unwrap();
    let id = |n: &str| pnf.lookup(n).unwrap();
    assert!(pnf.subsumes(id("expr"), id("num")), "num ⊑ expr through term and atom");
    assert!(pnf.subsumes(id("expr"), id("expr")), "reflexive");
    assert!(pnf.subsumes(id("list"), id("expr")), "a star derives one element");
    assert!(!pnf.subsumes(id("num"), id("expr")));
    assert!(!pnf.subsumes(id("atom"), id("expr")), "\"(\" expr \")\" is not a unit derivation");
    assert!(pnf.show().contains("expr ⊒ term, atom, num"));
}

#[test]
fn undefined_symbols_are_reported_with_their_rule() {
    let g = grammar_from_rules("t", vec![("s", Seq(vec![sym("nope")]))]);
    assert_eq!(normalize(&g).unwrap_err(), GrammarError::UndefinedSymbol { name: "nope".into(), rule: "s".into() });
}

#[test]
fn the_vendored_grammars_normalize() {
    for (lang, start) in [("c", "translation_unit"), ("java", "program"), ("javascript", "program")] {
        let path = format!("{}/../lopper-parse/grammars/{lang}/grammar.json", env!("CARGO_MANIFEST_DIR"));
        let g = load_tree_sitter_json(&std::fs::read_to_string(path).unwrap()).unwrap();
        let pnf = normalize(&g).unwrap();
        assert_eq!(pnf.symbol(pnf.start).name, start);
        let (rules, quantified) = pnf.counts();
        assert!(rules > g.rules.len() && quantified > 20, "{lang}: {rules} rules, {quantified} quantified");
        // Every quantified rule's element and every regular alternative refers to real symbols.
        for s in &pnf.symbols {
            if let PnfRule::Regular(alts) = &s.rule {
                assert!(alts.iter().flatten().all(|x| (*x as usize) < pnf.symbols.len()));
            }
        }
    }
}

#[test]
fn optional_neighbours_do_not_hide_a_unit_derivation() {
    // decl ::= attr? declarator asm?  ⇒  declarator ⊑ decl
    let g = grammar_from_rules(
        "t",
        vec![
            ("decl", Seq(vec![Choice(vec![sym("attr"), Blank]), sym("declarator"), Choice(vec![sym("asm"), Blank])])),
            ("declarator", Pattern("[a-z]+".into())),
            ("attr", lit("__attribute__")),
            ("asm", lit("asm")),
            ("pair", Seq(vec![sym("declarator"), sym("declarator")])),
        ],
    );
    let pnf = normalize(&g).unwrap();
    let id = |n: &str| pnf.lookup(n).unwrap();
    assert!(pnf.subsumes(id("decl"), id("declarator")));
    assert!(!pnf.subsumes(id("decl"), id("attr")), "attr is nullable here, declarator is not");
    assert!(!pnf.subsumes(id("pair"), id("declarator")));
}

#[test]
fn a_zero_width_external_alternative_makes_an_optional() {
    let mut g = grammar_from_rules(
        "t",
        vec![
            ("prog", Repeat(Box::new(sym("stmt")))),
            ("stmt", Seq(vec![sym("id"), sym("_semi")])),
            ("_semi", Choice(vec![sym("_auto_semi"), lit(";")])),
            ("id", Pattern("[a-z]+".into())),
        ],
    );
    g.externals.push(sym("_auto_semi"));
    let pnf = normalize(&g).unwrap();
    assert!(pnf.show().contains(r#"_semi ::= ";"?"#), "{}", pnf.show());
}

/// The PNF rules of a pest grammar after the full Algorithm 1, one `A ::= …` line each.
fn perses(src: &str) -> Vec<String> {
    let g = crate::load_pest("t", src).unwrap();
    rules(&crate::perses_normalize(&normalize(&g.ir).unwrap()).unwrap())
}

fn perses_err(src: &str) -> GrammarError {
    let g = match crate::load_pest("t", src) {
        Ok(g) => g,
        Err(e) => return e,
    };
    crate::perses_normalize(&normalize(&g.ir).unwrap()).unwrap_err()
}

#[test]
fn left_recursion_becomes_a_kleene_star() {
    let r = perses(r#"expr = { expr ~ "+" ~ term | expr ~ "-" ~ term | term }  term = @{ ASCII_DIGIT+ }"#);
    assert_eq!(r, vec![r#"expr ::= term expr__star"#, r#"expr__tail ::= "+" term | "-" term"#, "expr__star ::= expr__tail*"]);
}

#[test]
fn a_left_recursive_list_of_one_symbol_becomes_a_kleene_plus() {
    let r = perses(r#"list = { list ~ item | item }  item = { "x" }"#);
    assert_eq!(r, vec!["list ::= item+", r#"item ::= "x""#]);
}

#[test]
fn indirect_left_recursion_is_made_direct_then_removed() {
    // a ⇒ b "x" ⇒ a "z" "x": indirect. In rule order (Paull), a's alternatives are
    // substituted into b (b ::= b "x" "z" | "y" "z" | "w"), then b's direct recursion goes:
    // b = ("y" "z" | "w") ("x" "z")*, and a = b "x" | "y" as before.
    let r = perses(r#"a = { b ~ "x" | "y" }  b = { a ~ "z" | "w" }"#);
    assert_eq!(r, vec![r#"a ::= b "x" | "y""#, r#"b ::= "y" "z" b__star | "w" b__star"#, r#"b__tail ::= "x" "z""#, "b__star ::= b__tail*"],);
}

#[test]
fn a_right_recursive_separated_list_becomes_a_kleene_star() {
    let r = perses(r#"list = { item ~ "," ~ list | item }  item = { "x" }"#);
    assert_eq!(r, vec!["list ::= item list__star", r#"item ::= "x""#, r#"list__tail ::= "," item"#, "list__star ::= list__tail*"]);
}

#[test]
fn a_right_recursive_list_without_separator_becomes_a_kleene_plus() {
    let r = perses(r#"settings = { setting ~ settings | setting }  setting = { "s" ~ ";" }"#);
    assert_eq!(r, vec!["settings ::= setting+", r#"setting ::= "s" ";""#]);
}

#[test]
fn epsilon_rules_are_removed_and_their_uses_made_optional() {
    // b derives ε (both parts are optional): b itself loses ε, a's use of it becomes b?.
    let r = perses(r#"a = { b ~ "x" }  b = { c ~ d }  c = { "c"? }  d = { "d"* }"#);
    assert_eq!(r, vec![r#"a ::= b__opt "x""#, r#"b ::= "c" d | d__plus"#, r#"d ::= "d"*"#, "b__opt ::= b?", r#"d__plus ::= "d"+"#],);
}

#[test]
fn alternatives_that_differ_by_one_symbol_share_an_optional() {
    let r = perses(r#"a = { "x" ~ "y" ~ "z" | "x" ~ "z" }"#);
    assert_eq!(r, vec![r#"a ::= "x" y__opt "z""#, r#"y__opt ::= "y"?"#]);
}

#[test]
fn a_nullable_start_rule_becomes_optional() {
    let g = crate::load_pest("t", r#"file = { item* ~ ";"? }  item = { "x" }"#).unwrap();
    let pnf = crate::perses_normalize(&normalize(&g.ir).unwrap()).unwrap();
    assert!(pnf.symbol(pnf.start).rule.element().is_some(), "{}", pnf.show());
    assert!(crate::nullable(&pnf.symbols)[pnf.start as usize]);
}

#[test]
fn bad_grammar_files_get_clear_errors() {
    let e = perses_err("a = { \"x\" ~ }").to_string();
    assert!(e.contains("1:") && e.contains("expected"), "{e}");
    let e = perses_err("a = { b }").to_string();
    assert!(e.contains("b") && e.contains("undefined"), "{e}");
    assert_eq!(perses_err(r#"a = { "x" ~ a }"#), GrammarError::NeverEnds { rule: "a".into() });
    assert!(matches!(perses_err(r#"a = { (a ~ "x")* ~ "y" }"#), GrammarError::LeftRecursion { .. }));
    assert!(matches!(perses_err(r#"a = { PUSH("x") ~ POP }"#), GrammarError::Unsupported { .. }));
    assert!(matches!(perses_err("//! lopper: start = nope\na = { \"x\" }"), GrammarError::Syntax(_)));
    assert_eq!(perses_err(""), GrammarError::NoStartRule);
}

#[test]
fn lexical_rules_and_inline_ranges_are_terminals() {
    let g = crate::load_pest("t", "//! lopper: extensions = .foo, bar\nnum = { '0'..'9' ~ ASCII_DIGIT* }  id = @{ ASCII_ALPHA+ }  WHITESPACE = _{ \" \" }")
        .unwrap();
    assert_eq!(g.extensions, vec!["foo", "bar"]);
    assert!(g.ir.lexical.contains(&"<'0'..'9'>".to_string()) && g.ir.lexical.contains(&"<ASCII_DIGIT>".to_string()));
    assert!(g.rules.contains_key("WHITESPACE") && !g.ir.rules.contains_key("WHITESPACE"));
    assert_eq!(g.ir.rules.keys().next().unwrap(), "num", "the first non-trivia rule starts");
}

#[test]
fn ansi_c_left_recursive_lists_become_kleene_lists() {
    // The yacc-style list rules of the ANSI C grammar, the kind Perses §4.2 normalizes.
    let r = perses(
        r#"translation_unit = { external_declaration | translation_unit ~ external_declaration }
           external_declaration = { "int" ~ identifier ~ "(" ~ argument_expression_list? ~ ")" ~ ";" }
           argument_expression_list = { assignment_expression | argument_expression_list ~ "," ~ assignment_expression }
           assignment_expression = { identifier }
           identifier = @{ ASCII_ALPHA+ }"#,
    );
    assert_eq!(
        r,
        vec![
            "translation_unit ::= external_declaration+",
            r#"external_declaration ::= "int" identifier "(" external_declaration__opt1 ")" ";""#,
            "argument_expression_list ::= assignment_expression argument_expression_list__star",
            "assignment_expression ::= identifier",
            "external_declaration__opt1 ::= argument_expression_list?",
            r#"argument_expression_list__tail ::= "," assignment_expression"#,
            "argument_expression_list__star ::= argument_expression_list__tail*",
        ]
    );
}
