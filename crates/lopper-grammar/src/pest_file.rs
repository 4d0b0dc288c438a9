//! Loads a grammar file in pest syntax (`grammars/<name>.pest`) into the grammar IR.
//!
//! Unlike pest itself, left- and right-recursive BNF-style rules are accepted
//! (`expr = { expr ~ "+" ~ term | term }`): the Perses normalizer removes the left
//! recursion before the grammar is run (see [`crate::perses_normalize`]). The file is read
//! with pest's own meta-grammar (`pest_meta::parser`), so syntax errors carry pest's line and
//! column; pest's semantic validator is not run because it rejects left recursion.
//!
//! Mapping to the IR:
//! - atomic (`@{}`) and compound-atomic (`${}`) rules are single tokens: they become
//!   [`Grammar::lexical`] names whose pest definition the parser runs as it is;
//! - inline ranges, case-insensitive strings, built-ins (`ASCII_DIGIT`, `ANY`, …) and
//!   predicates (`&e`, `!e`) in other rules become synthetic lexical rules named `<…>`;
//! - `SOI` and `EOI` are dropped: the front end wraps the start rule in `SOI ~ start ~ EOI`;
//! - `WHITESPACE` and `COMMENT` are trivia, not part of the IR;
//! - `e{n}`, `e{n,}`, `e{,m}`, `e{n,m}` are expanded into sequences of `e` and `e?`.
//!
//! A header of doc comments configures lopper (`//! lopper: extensions = json`,
//! `//! lopper: start = file`, `//! lopper: identifier = name` for the rule whose tokens
//! identifier passes may rename); without `start`, the first rule that is not trivia is the
//! start rule.

use crate::ir::{Expr, Grammar};
use crate::GrammarError;
use indexmap::IndexMap;
use pest::iterators::Pair;
use pest_meta::ast::{Expr as PExpr, Rule as PRule, RuleType};
use pest_meta::parser::Rule as M;

/// A pest grammar file, loaded.
#[derive(Clone, Debug)]
pub struct PestGrammar {
    /// The grammar IR of the non-atomic rules, start rule first.
    pub ir: Grammar,
    /// Every rule as pest defines it (user rules in file order, then the synthetic lexical
    /// rules), which the pest_vm front end runs for lexical rules and trivia.
    pub rules: IndexMap<String, PRule>,
    /// File extensions from the `//! lopper: extensions = …` header, without dots.
    pub extensions: Vec<String>,
}

/// The file extensions (without dots) a pest grammar's header declares with
/// `//! lopper: extensions = json, .jsonc` (separated by spaces or commas); empty if none
/// (or if the header is malformed: loading the grammar reports that).
pub fn pest_extensions(text: &str) -> Vec<String> {
    header(text).map(|h| h.extensions).unwrap_or_default()
}

/// The `//! lopper: key = value` lines of a grammar file's header.
struct Header {
    extensions: Vec<String>,
    start: Option<String>,
    identifier: Option<String>,
}

/// Reads the header. pest's meta-grammar allows `//!` lines only before the first rule, so a
/// scan of the text sees exactly the header of a file that parses.
fn header(text: &str) -> Result<Header, GrammarError> {
    let mut h = Header { extensions: Vec::new(), start: None, identifier: None };
    for rest in text.lines().filter_map(|l| l.trim_start().strip_prefix("//!")?.trim().strip_prefix("lopper:")) {
        let (k, v) = rest.split_once('=').unwrap_or((rest, ""));
        match k.trim() {
            "extensions" => h.extensions.extend(v.split([' ', ',']).filter(|s| !s.is_empty()).map(|s| s.trim_start_matches('.').to_string())),
            "start" => h.start = Some(v.trim().to_string()),
            "identifier" => h.identifier = Some(v.trim().to_string()),
            other => return Err(GrammarError::Syntax(format!("unknown lopper header key `{other}` (known: extensions, start, identifier)"))),
        }
    }
    Ok(h)
}

/// Whether a rule is trivia that pest skips implicitly between tokens of non-atomic rules.
pub fn is_trivia(name: &str) -> bool {
    name == "WHITESPACE" || name == "COMMENT"
}

/// Loads a pest grammar named `name` from its text.
///
/// # Errors
/// [`GrammarError::Syntax`] for a file pest's meta-grammar rejects or a rule used but not
/// defined (pest's messages, with line and column); [`GrammarError::Unsupported`] for stack
/// operations (`PUSH`, `PEEK`, `POP`) outside atomic rules; [`GrammarError::NoStartRule`]
/// when there is no rule to start from or the header names an unknown one.
pub fn load_pest(name: &str, text: &str) -> Result<PestGrammar, GrammarError> {
    let pairs = pest_meta::parser::parse(M::grammar_rules, text).map_err(|e| GrammarError::Syntax(e.to_string()))?;
    pest_meta::validator::validate_pairs(pairs.clone()).map_err(|es| GrammarError::Syntax(es.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("\n")))?;
    let mut rules: IndexMap<String, PRule> = IndexMap::new();
    let Header { extensions, start, identifier } = header(text)?;
    for p in pairs.filter(|p| p.as_rule() == M::grammar_rule) {
        let mut inner = p.into_inner();
        let first = inner.next().expect("a grammar rule has content");
        if first.as_rule() == M::line_doc {
            continue;
        }
        let rule_name = first.as_str().to_string();
        let mut ty = RuleType::Normal;
        let mut expr = None;
        for q in inner {
            match q.as_rule() {
                M::silent_modifier => ty = RuleType::Silent,
                M::atomic_modifier => ty = RuleType::Atomic,
                M::compound_atomic_modifier => ty = RuleType::CompoundAtomic,
                M::non_atomic_modifier => ty = RuleType::NonAtomic,
                M::expression => expr = Some(expression(q)?),
                _ => {}
            }
        }
        let expr = expr.expect("a grammar rule has an expression");
        rules.insert(rule_name.clone(), PRule { name: rule_name, ty, expr });
    }
    let start = match start {
        Some(s) if rules.contains_key(&s) => s,
        Some(s) => return Err(GrammarError::Syntax(format!("the header names start rule `{s}`, which is not defined"))),
        None => rules.keys().find(|k| !is_trivia(k)).cloned().ok_or(GrammarError::NoStartRule)?,
    };
    let is_lexical = |r: &PRule| matches!(r.ty, RuleType::Atomic | RuleType::CompoundAtomic) || is_trivia(&r.name);
    let mut ir = Grammar { name: name.to_string(), ..Default::default() };
    let mut conv = Converter { user: &rules, synthetic: IndexMap::new(), lexical: Vec::new() };
    let mut order: Vec<&PRule> = rules.values().filter(|r| !is_lexical(r)).collect();
    if let Some(i) = order.iter().position(|r| r.name == start) {
        let s = order.remove(i);
        order.insert(0, s);
    } else {
        // The start rule is itself a token: wrap it so the IR has a rule to start from.
        order.insert(0, &rules[&start]);
    }
    for r in order {
        let body = if is_lexical(r) { conv.reference(&r.name) } else { conv.expr(&r.name, &r.expr)? };
        ir.rules.insert(if is_lexical(r) { format!("{}__file", r.name) } else { r.name.clone() }, body);
    }
    ir.lexical = conv.lexical;
    if let Some(w) = &identifier {
        if !rules.contains_key(w) {
            return Err(GrammarError::Syntax(format!("the header names identifier rule `{w}`, which is not defined")));
        }
    }
    ir.word = identifier;
    let synthetic = conv.synthetic;
    rules.extend(synthetic);
    Ok(PestGrammar { ir, rules, extensions })
}

/// Turns pest ASTs of non-atomic rules into IR expressions, lifting lexical leaves.
struct Converter<'a> {
    user: &'a IndexMap<String, PRule>,
    synthetic: IndexMap<String, PRule>,
    lexical: Vec<String>,
}

impl Converter<'_> {
    fn reference(&mut self, name: &str) -> Expr {
        if !self.lexical.iter().any(|n| n == name) {
            self.lexical.push(name.to_string());
        }
        Expr::Symbol(name.to_string())
    }

    /// A synthetic lexical rule `<text>` running `expr` (silent for zero-width predicates).
    fn synthetic(&mut self, text: String, ty: RuleType, expr: PExpr) -> Expr {
        let name = format!("<{text}>");
        self.synthetic.entry(name.clone()).or_insert(PRule { name: name.clone(), ty, expr });
        self.reference(&name)
    }

    fn expr(&mut self, rule: &str, e: &PExpr) -> Result<Expr, GrammarError> {
        Ok(match e {
            PExpr::Str(s) if s.is_empty() => Expr::Blank,
            PExpr::Str(s) => Expr::Str(s.clone()),
            PExpr::Insens(s) => self.synthetic(format!("^{s:?}"), RuleType::Atomic, e.clone()),
            PExpr::Range(a, b) => self.synthetic(format!("'{a}'..'{b}'"), RuleType::Atomic, e.clone()),
            PExpr::Ident(n) if n == "SOI" || n == "EOI" => Expr::Blank,
            PExpr::Ident(n) => match self.user.get(n) {
                Some(r) if matches!(r.ty, RuleType::Atomic | RuleType::CompoundAtomic) || is_trivia(n) => self.reference(n),
                Some(_) => Expr::Symbol(n.clone()),
                None => self.synthetic(n.clone(), RuleType::Atomic, e.clone()),
            },
            PExpr::PosPred(_) | PExpr::NegPred(_) => {
                let text = format!(
                    "{}{}",
                    if matches!(e, PExpr::PosPred(_)) { "&" } else { "!" },
                    show(match e {
                        PExpr::PosPred(x) | PExpr::NegPred(x) => x,
                        _ => unreachable!(),
                    })
                );
                self.synthetic(text, RuleType::Silent, e.clone())
            }
            PExpr::Seq(a, b) => {
                let mut xs = Vec::new();
                for x in [a, b] {
                    match self.expr(rule, x)? {
                        Expr::Seq(ys) => xs.extend(ys),
                        Expr::Blank => {}
                        y => xs.push(y),
                    }
                }
                Expr::Seq(xs)
            }
            PExpr::Choice(a, b) => {
                let mut xs = Vec::new();
                for x in [a, b] {
                    match self.expr(rule, x)? {
                        Expr::Choice(ys) => xs.extend(ys),
                        y => xs.push(y),
                    }
                }
                Expr::Choice(xs)
            }
            PExpr::Opt(x) => Expr::Choice(vec![self.expr(rule, x)?, Expr::Blank]),
            PExpr::Rep(x) => Expr::Repeat(Box::new(self.expr(rule, x)?)),
            PExpr::RepOnce(x) => Expr::Repeat1(Box::new(self.expr(rule, x)?)),
            PExpr::RepExact(x, n) => self.bounded(rule, x, *n, Some(*n))?,
            PExpr::RepMin(x, n) => self.bounded(rule, x, *n, None)?,
            PExpr::RepMax(x, m) => self.bounded(rule, x, 0, Some(*m))?,
            PExpr::RepMinMax(x, n, m) => self.bounded(rule, x, *n, Some(*m))?,
            PExpr::Push(_) | PExpr::PeekSlice(..) | PExpr::Skip(_) => {
                return Err(GrammarError::Unsupported {
                    rule: rule.to_string(),
                    what: "stack operations (PUSH, PEEK, POP) are supported only inside atomic rules (@{ … })".into(),
                })
            }
        })
    }

    /// `x{min,max}` as `x … x` (min times) followed by `x*` (no max) or `x? …` (max − min).
    fn bounded(&mut self, rule: &str, x: &PExpr, min: u32, max: Option<u32>) -> Result<Expr, GrammarError> {
        let one = self.expr(rule, x)?;
        let mut xs: Vec<Expr> = (0..min).map(|_| one.clone()).collect();
        match max {
            None => xs.push(Expr::Repeat(Box::new(one))),
            Some(m) => xs.extend((min..m).map(|_| Expr::Choice(vec![one.clone(), Expr::Blank]))),
        }
        Ok(Expr::Seq(xs))
    }
}

/// Whether a pest expression can succeed without consuming input (predicates, `e*`, `e?`,
/// `""`, rules that can), with `rules` to look names up; unknown names (built-ins) consume.
pub fn pest_nullable(e: &PExpr, rules: &IndexMap<String, PRule>) -> bool {
    fn go(e: &PExpr, rules: &IndexMap<String, PRule>, visiting: &mut Vec<String>) -> bool {
        match e {
            PExpr::Str(s) | PExpr::Insens(s) => s.is_empty(),
            PExpr::Range(..) => false,
            PExpr::Ident(n) => match rules.get(n) {
                Some(r) if !visiting.contains(n) => {
                    visiting.push(n.clone());
                    let v = go(&r.expr, rules, visiting);
                    visiting.pop();
                    v
                }
                Some(_) => false,
                None => matches!(n.as_str(), "SOI" | "EOI" | "PEEK" | "PEEK_ALL" | "POP" | "POP_ALL" | "DROP"),
            },
            PExpr::PosPred(_) | PExpr::NegPred(_) | PExpr::Opt(_) | PExpr::Rep(_) | PExpr::RepMax(..) | PExpr::PeekSlice(..) => true,
            PExpr::Seq(a, b) => go(a, rules, visiting) && go(b, rules, visiting),
            PExpr::Choice(a, b) => go(a, rules, visiting) || go(b, rules, visiting),
            PExpr::RepOnce(x) | PExpr::Push(x) => go(x, rules, visiting),
            PExpr::RepExact(x, n) | PExpr::RepMin(x, n) => *n == 0 || go(x, rules, visiting),
            PExpr::RepMinMax(x, n, _) => *n == 0 || go(x, rules, visiting),
            PExpr::Skip(_) => true,
        }
    }
    go(e, rules, &mut Vec::new())
}

/// A pest expression printed back in pest syntax (for names of synthetic rules).
pub fn show(e: &PExpr) -> String {
    match e {
        PExpr::Str(s) => format!("{s:?}"),
        PExpr::Insens(s) => format!("^{s:?}"),
        PExpr::Range(a, b) => format!("'{a}'..'{b}'"),
        PExpr::Ident(n) => n.clone(),
        PExpr::PosPred(x) => format!("&{}", show(x)),
        PExpr::NegPred(x) => format!("!{}", show(x)),
        PExpr::Seq(a, b) => format!("({} ~ {})", show(a), show(b)),
        PExpr::Choice(a, b) => format!("({} | {})", show(a), show(b)),
        PExpr::Opt(x) => format!("{}?", show(x)),
        PExpr::Rep(x) => format!("{}*", show(x)),
        PExpr::RepOnce(x) => format!("{}+", show(x)),
        other => format!("{other:?}"),
    }
}

fn expression(p: Pair<'_, M>) -> Result<PExpr, GrammarError> {
    // `~` binds tighter than `|`: collect terms into sequences, sequences into choices.
    let mut choices: Vec<PExpr> = Vec::new();
    let mut seq: Vec<PExpr> = Vec::new();
    for q in p.into_inner() {
        match q.as_rule() {
            M::term => seq.push(term(q)?),
            M::choice_operator if !seq.is_empty() => choices.push(fold(std::mem::take(&mut seq), PExpr::Seq)),
            _ => {}
        }
    }
    if !seq.is_empty() {
        choices.push(fold(seq, PExpr::Seq));
    }
    Ok(fold(choices, PExpr::Choice))
}

fn fold(xs: Vec<PExpr>, f: fn(Box<PExpr>, Box<PExpr>) -> PExpr) -> PExpr {
    let mut it = xs.into_iter().rev();
    let last = it.next().expect("an expression has a term");
    it.fold(last, |acc, x| f(Box::new(x), Box::new(acc)))
}

fn term(p: Pair<'_, M>) -> Result<PExpr, GrammarError> {
    let mut prefixes = Vec::new();
    let mut node = None;
    for q in p.into_inner() {
        let r = q.as_rule();
        match r {
            M::positive_predicate_operator | M::negative_predicate_operator => prefixes.push(r),
            M::opening_paren | M::closing_paren | M::tag_id | M::assignment_operator => {}
            M::expression => node = Some(expression(q)?),
            M::identifier => node = Some(PExpr::Ident(q.as_str().to_string())),
            M::string => node = Some(PExpr::Str(string(q)?)),
            M::insensitive_string => node = Some(PExpr::Insens(string(q.into_inner().next().expect("^ is followed by a string"))?)),
            M::range => {
                let cs: Vec<String> = q.into_inner().filter(|c| c.as_rule() == M::character).map(character).collect::<Result<_, _>>()?;
                node = Some(PExpr::Range(cs[0].clone(), cs[1].clone()));
            }
            M::_push => {
                let inner = q.into_inner().find(|x| x.as_rule() == M::expression).expect("PUSH has an expression");
                node = Some(PExpr::Push(Box::new(expression(inner)?)));
            }
            M::peek_slice => {
                let (mut start, mut end, mut after) = (0, None, false);
                for x in q.into_inner() {
                    match x.as_rule() {
                        M::range_operator => after = true,
                        M::integer if after => end = x.as_str().parse().ok(),
                        M::integer => start = x.as_str().parse().unwrap_or(0),
                        _ => {}
                    }
                }
                node = Some(PExpr::PeekSlice(start, end));
            }
            M::_push_literal => return Err(GrammarError::Syntax("PUSH_LITERAL (a pest grammar extra) is not supported".into())),
            M::optional_operator => node = node.map(|n| PExpr::Opt(Box::new(n))),
            M::repeat_operator => node = node.map(|n| PExpr::Rep(Box::new(n))),
            M::repeat_once_operator => node = node.map(|n| PExpr::RepOnce(Box::new(n))),
            M::repeat_exact | M::repeat_min | M::repeat_max | M::repeat_min_max => {
                let nums: Vec<u32> = q.clone().into_inner().filter(|x| x.as_rule() == M::number).map(|x| x.as_str().parse().unwrap_or(0)).collect();
                node = node.map(|n| {
                    let b = Box::new(n);
                    match r {
                        M::repeat_exact => PExpr::RepExact(b, nums[0]),
                        M::repeat_min => PExpr::RepMin(b, nums[0]),
                        M::repeat_max => PExpr::RepMax(b, nums[0]),
                        _ => PExpr::RepMinMax(b, nums[0], nums[1]),
                    }
                });
            }
            _ => {}
        }
    }
    let mut node = node.expect("a term has a node");
    for r in prefixes.into_iter().rev() {
        node = if r == M::positive_predicate_operator { PExpr::PosPred(Box::new(node)) } else { PExpr::NegPred(Box::new(node)) };
    }
    Ok(node)
}

fn string(p: Pair<'_, M>) -> Result<String, GrammarError> {
    let raw = p.into_inner().find(|x| x.as_rule() == M::inner_str).map_or("", |x| x.as_str());
    unescape(raw)
}

fn character(p: Pair<'_, M>) -> Result<String, GrammarError> {
    let raw = p.into_inner().find(|x| x.as_rule() == M::inner_chr).map_or("", |x| x.as_str());
    unescape(raw)
}

/// pest's escapes: `\" \\ \r \n \t \0 \' \xHH \u{H…}`.
fn unescape(s: &str) -> Result<String, GrammarError> {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    let bad = || GrammarError::Syntax(format!("bad escape in string {s:?}"));
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next().ok_or_else(bad)? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            'r' => out.push('\r'),
            'n' => out.push('\n'),
            't' => out.push('\t'),
            '0' => out.push('\0'),
            'x' => {
                let h: String = it.by_ref().take(2).collect();
                out.push(u8::from_str_radix(&h, 16).map_err(|_| bad())? as char);
            }
            'u' => {
                let h: String = it.by_ref().skip(1).take_while(|c| *c != '}').collect();
                out.push(u32::from_str_radix(&h, 16).ok().and_then(char::from_u32).ok_or_else(bad)?);
            }
            _ => return Err(bad()),
        }
    }
    Ok(out)
}
