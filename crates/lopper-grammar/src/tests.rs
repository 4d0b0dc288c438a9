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
            (
                "args",
                Seq(vec![
                    lit("("),
                    Choice(vec![Seq(vec![sym("expr"), Repeat(Box::new(Seq(vec![lit(","), sym("expr")])))]), Blank]),
                    lit(")"),
                ]),
            ),
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
    assert_eq!(
        rules(&pnf),
        vec![
            "s ::= item*",
            r#"item ::= a | a ";""#,
            "a ::= a__alt1+",
            "o ::= a?",
            r#"a__alt1 ::= "x" | "y""#,
        ]
    );
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
    assert_eq!(
        normalize(&g).unwrap_err(),
        GrammarError::UndefinedSymbol { name: "nope".into(), rule: "s".into() }
    );
}

#[test]
fn the_vendored_grammars_normalize() {
    for (lang, start) in [("c", "translation_unit"), ("java", "program"), ("javascript", "program")] {
        let path = format!("{}/../../grammars/{lang}/grammar.json", env!("CARGO_MANIFEST_DIR"));
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
