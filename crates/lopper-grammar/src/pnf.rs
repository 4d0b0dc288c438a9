//! Perses Normal Form: every nonterminal is a regular rule (alternatives of symbol
//! sequences), a Kleene star `A ::= B*`, a Kleene plus `A ::= B+` or an optional `A ::= B?`.
//!
//! [`normalize`] lifts every inline quantified group of an EBNF rule into its own auxiliary
//! nonterminal (Perses §4.2, the "EBNF" step of Algorithm 1), named `rule__star1`,
//! `rule__plus2`, `rule__opt3`, `rule__alt4`, `rule__seq5` so that a printed PNF stays
//! readable.

use crate::ir::{Expr, Grammar};
use crate::subsumption::Subsumption;
use crate::symbol::{CstKind, PnfRule, Symbol, SymbolId, Terminal};
use crate::GrammarError;
use indexmap::IndexMap;
use std::collections::HashMap;
use std::fmt::Write as _;

/// A grammar in Perses Normal Form plus its subsumption relation.
#[derive(Clone, Debug)]
pub struct PnfGrammar {
    /// The language name.
    pub name: String,
    /// All symbols; a [`SymbolId`] indexes this.
    pub symbols: Vec<Symbol>,
    /// The start symbol.
    pub start: SymbolId,
    /// Names of CST kinds that are trivia (tree-sitter `extras` given as symbols).
    pub extras: Vec<String>,
    /// `B ⊑ A` closure over unit derivations.
    pub subsumption: Subsumption,
    /// The identifier symbol (tree-sitter's `word` rule), if the grammar names one.
    pub word: Option<SymbolId>,
    /// Per CST kind, anonymous (`[0]`) and named (`[1]`): looked up by `&str` for every
    /// CST node parsed, so without building a key.
    by_cst: [HashMap<String, Vec<SymbolId>>; 2],
    by_name: HashMap<String, SymbolId>,
}

impl PnfGrammar {
    /// Assembles a grammar from its symbols (names unique), computing the lookup tables and
    /// the subsumption relation.
    pub fn assemble(name: String, symbols: Vec<Symbol>, start: SymbolId, extras: Vec<String>) -> PnfGrammar {
        let mut by_cst: [HashMap<String, Vec<SymbolId>>; 2] = Default::default();
        let mut by_name = HashMap::new();
        for (i, s) in symbols.iter().enumerate() {
            if let Some(c) = &s.cst {
                by_cst[c.named as usize].entry(c.kind.clone()).or_default().push(i as SymbolId);
            }
            by_name.insert(s.name.clone(), i as SymbolId);
        }
        let subsumption = Subsumption::compute(&symbols);
        PnfGrammar { name, symbols, start, extras, subsumption, word: None, by_cst, by_name }
    }

    /// Whether tokens of symbol `s` are identifiers: `s` is the grammar's `word` symbol or
    /// an alias of it (a rule whose only alternative is that symbol, as tree-sitter's
    /// `field_identifier` or `type_identifier`).
    pub fn is_identifier(&self, s: SymbolId) -> bool {
        let Some(w) = self.word else { return false };
        s == w || matches!(&self.symbol(s).rule, PnfRule::Regular(alts) if alts.len() == 1 && alts[0] == [w])
    }

    /// The symbol with this id. Panics on an id from another grammar.
    pub fn symbol(&self, id: SymbolId) -> &Symbol {
        &self.symbols[id as usize]
    }

    /// The symbol named `name`, if any.
    pub fn lookup(&self, name: &str) -> Option<SymbolId> {
        self.by_name.get(name).copied()
    }

    /// Symbols that a CST node of this kind may stand for (a rule, or aliases with this
    /// value), in grammar order; empty for unknown kinds such as `ERROR`.
    pub fn symbols_for_cst(&self, kind: &str, named: bool) -> &[SymbolId] {
        self.by_cst[named as usize].get(kind).map(Vec::as_slice).unwrap_or(&[])
    }

    /// `actual ⊑ expected`: a node of symbol `actual` may stand where `expected` is expected
    /// (Perses §4.3: `expected ⇒* actual` through unit derivations).
    pub fn subsumes(&self, expected: SymbolId, actual: SymbolId) -> bool {
        self.subsumption.holds(expected, actual)
    }

    /// Counts `(rules, quantified rules)`: nonterminals, and those that are star/plus/optional.
    pub fn counts(&self) -> (usize, usize) {
        let nt = self.symbols.iter().filter(|s| !matches!(s.rule, PnfRule::Terminal(_))).count();
        let q = self.symbols.iter().filter(|s| s.rule.element().is_some()).count();
        (nt, q)
    }

    /// Prints the PNF grammar, one rule a line (`A ::= B C | D`, `A ::= B*`), terminals
    /// omitted, followed by the non-trivial subsumption pairs (`B ⊑ A`).
    pub fn show(&self) -> String {
        let mut out = String::new();
        let (nt, q) = self.counts();
        let _ = writeln!(out, "# PNF of {}: {} rules, {} quantified", self.name, nt, q);
        for s in &self.symbols {
            let body = match &s.rule {
                PnfRule::Terminal(_) => continue,
                PnfRule::Regular(alts) => alts
                    .iter()
                    .map(|a| if a.is_empty() { "ε".to_string() } else { a.iter().map(|x| self.symbol(*x).name.as_str()).collect::<Vec<_>>().join(" ") })
                    .collect::<Vec<_>>()
                    .join(" | "),
                PnfRule::Star(x) => format!("{}*", self.symbol(*x).name),
                PnfRule::Plus(x) => format!("{}+", self.symbol(*x).name),
                PnfRule::Optional(x) => format!("{}?", self.symbol(*x).name),
            };
            let _ = writeln!(out, "{} ::= {}", s.name, body);
        }
        let _ = writeln!(out, "\n# subsumption (B ⊑ A: a B may replace an A)");
        for (a, sa) in self.symbols.iter().enumerate() {
            if matches!(sa.rule, PnfRule::Terminal(_)) {
                continue;
            }
            let subs: Vec<&str> = (0..self.symbols.len() as SymbolId)
                .filter(|&b| b != a as SymbolId && self.subsumes(a as SymbolId, b))
                .map(|b| self.symbol(b).name.as_str())
                .collect();
            if !subs.is_empty() {
                let _ = writeln!(out, "{} ⊒ {}", sa.name, subs.join(", "));
            }
        }
        out
    }
}

/// Normalizes a grammar into PNF and computes its subsumption relation.
///
/// # Errors
/// [`GrammarError::UndefinedSymbol`] when a rule refers to a name that is neither a rule nor
/// an external token; [`GrammarError::NoStartRule`] for a grammar without rules.
pub fn normalize(g: &Grammar) -> Result<PnfGrammar, GrammarError> {
    let g = &blank_hidden_externals(g);
    let mut n = Normalizer { symbols: Vec::new(), by_name: HashMap::new(), aux: HashMap::new(), counter: 0 };
    // Rules first, in file order, so that their ids are stable and the start rule is 0.
    for name in g.rules.keys() {
        let cst = g.is_visible_rule(name).then(|| CstKind { kind: name.clone(), named: true });
        n.add(name.clone(), PnfRule::Regular(Vec::new()), cst);
    }
    for e in &g.externals {
        if let Expr::Symbol(name) = e {
            if !n.by_name.contains_key(name) {
                let cst = (!name.starts_with('_')).then(|| CstKind { kind: name.clone(), named: true });
                n.add(name.clone(), PnfRule::Terminal(Terminal::External), cst);
            }
        }
    }
    for name in &g.lexical {
        if !n.by_name.contains_key(name) {
            n.add(name.clone(), PnfRule::Terminal(Terminal::Lexical), None);
        }
    }
    let start = *n.by_name.get(g.rules.keys().next().ok_or(GrammarError::NoStartRule)?).unwrap();
    for (name, body) in &g.rules {
        let rule = n.top(name, body)?;
        let id = n.by_name[name];
        n.symbols[id as usize].rule = rule;
    }
    let extras = g
        .extras
        .iter()
        .filter_map(|e| match e {
            Expr::Symbol(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    let mut p = PnfGrammar::assemble(g.name.clone(), n.symbols, start, extras);
    p.word = g.word.as_deref().and_then(|w| p.lookup(w));
    Ok(p)
}

struct Normalizer {
    symbols: Vec<Symbol>,
    by_name: HashMap<String, SymbolId>,
    /// Structural sharing of terminals and aliases, so one literal is one symbol.
    aux: HashMap<String, SymbolId>,
    counter: usize,
}

impl Normalizer {
    fn add(&mut self, name: String, rule: PnfRule, cst: Option<CstKind>) -> SymbolId {
        let id = self.symbols.len() as SymbolId;
        self.by_name.insert(name.clone(), id);
        self.symbols.push(Symbol { name, rule, cst });
        id
    }

    fn fresh(&mut self, rule_name: &str, what: &str, rule: PnfRule) -> SymbolId {
        self.counter += 1;
        let name = format!("{rule_name}__{what}{}", self.counter);
        self.add(name, rule, None)
    }

    /// The rule of a named grammar rule: its top-level shape decides the PNF kind.
    fn top(&mut self, rule: &str, e: &Expr) -> Result<PnfRule, GrammarError> {
        Ok(match e {
            Expr::Repeat(x) => PnfRule::Star(self.element(rule, x)?),
            Expr::Repeat1(x) => PnfRule::Plus(self.element(rule, x)?),
            Expr::Choice(alts) if alts.contains(&Expr::Blank) => {
                let rest: Vec<Expr> = alts.iter().filter(|a| **a != Expr::Blank).cloned().collect();
                PnfRule::Optional(self.choice_symbol(rule, rest)?)
            }
            Expr::Choice(_) => PnfRule::Regular(self.alternatives(rule, e)?),
            _ => PnfRule::Regular(vec![self.seq(rule, e)?]),
        })
    }

    /// Alternatives of a choice, nested choices flattened.
    fn alternatives(&mut self, rule: &str, e: &Expr) -> Result<Vec<Vec<SymbolId>>, GrammarError> {
        let mut out = Vec::new();
        match e {
            Expr::Choice(alts) => {
                for a in alts {
                    if matches!(a, Expr::Choice(_)) {
                        out.extend(self.alternatives(rule, a)?);
                    } else {
                        out.push(self.seq(rule, a)?);
                    }
                }
            }
            _ => out.push(self.seq(rule, e)?),
        }
        Ok(out)
    }

    /// One symbol standing for a choice among `alts` (no blank among them).
    fn choice_symbol(&mut self, rule: &str, alts: Vec<Expr>) -> Result<SymbolId, GrammarError> {
        if alts.len() == 1 {
            return self.element(rule, &alts[0]);
        }
        let rhs = self.alternatives(rule, &Expr::Choice(alts))?;
        Ok(self.fresh(rule, "alt", PnfRule::Regular(rhs)))
    }

    /// One symbol for an element of a quantified group: a single symbol stays itself, a
    /// sequence or choice becomes an auxiliary regular rule.
    fn element(&mut self, rule: &str, e: &Expr) -> Result<SymbolId, GrammarError> {
        if let Expr::Choice(alts) = e {
            if alts.contains(&Expr::Blank) {
                let r = self.top(rule, e)?;
                return Ok(self.fresh(rule, "opt", r));
            }
            return self.choice_symbol(rule, alts.clone());
        }
        let s = self.seq(rule, e)?;
        if s.len() == 1 {
            return Ok(s[0]);
        }
        Ok(self.fresh(rule, "seq", PnfRule::Regular(vec![s])))
    }

    /// The symbol sequence of an expression used in sequence position.
    fn seq(&mut self, rule: &str, e: &Expr) -> Result<Vec<SymbolId>, GrammarError> {
        let mut out = Vec::new();
        self.seq_into(rule, e, &mut out)?;
        Ok(out)
    }

    fn seq_into(&mut self, rule: &str, e: &Expr, out: &mut Vec<SymbolId>) -> Result<(), GrammarError> {
        match e {
            Expr::Blank => {}
            Expr::Seq(xs) => {
                for x in xs {
                    self.seq_into(rule, x, out)?;
                }
            }
            Expr::Symbol(name) => match self.by_name.get(name) {
                Some(id) => out.push(*id),
                None => return Err(GrammarError::UndefinedSymbol { name: name.clone(), rule: rule.to_string() }),
            },
            Expr::Str(s) => out.push(self.terminal_str(s)),
            Expr::Pattern(p) => out.push(self.shared(format!("/{p}/"), PnfRule::Terminal(Terminal::Pattern(p.clone())), None)),
            Expr::Token(x) => out.push(self.token(x)),
            Expr::Alias { content, value, named } => {
                let target = self.element(rule, content)?;
                let key = format!("{value}@{}{}", if *named { "" } else { "'" }, self.symbols[target as usize].name);
                let cst = Some(CstKind { kind: value.clone(), named: *named });
                let id = self.shared(key, PnfRule::Regular(vec![vec![target]]), cst);
                out.push(id);
            }
            Expr::Repeat(x) => {
                let el = self.element(rule, x)?;
                out.push(self.fresh(rule, "star", PnfRule::Star(el)));
            }
            Expr::Repeat1(x) => {
                let el = self.element(rule, x)?;
                out.push(self.fresh(rule, "plus", PnfRule::Plus(el)));
            }
            Expr::Choice(_) => out.push(self.element(rule, e)?),
        }
        Ok(())
    }

    fn terminal_str(&mut self, s: &str) -> SymbolId {
        let cst = Some(CstKind { kind: s.to_string(), named: false });
        self.shared(format!("{s:?}"), PnfRule::Terminal(Terminal::Str(s.to_string())), cst)
    }

    /// `TOKEN(x)`: a literal stays that literal (tree-sitter shows it as that anonymous
    /// kind); anything else is one invisible token.
    fn token(&mut self, x: &Expr) -> SymbolId {
        match x {
            Expr::Str(s) => self.terminal_str(s),
            Expr::Token(inner) => self.token(inner),
            other => {
                let key = format!("token({})", render_expr(other));
                self.shared(key, PnfRule::Terminal(Terminal::Token), None)
            }
        }
    }

    fn shared(&mut self, key: String, rule: PnfRule, cst: Option<CstKind>) -> SymbolId {
        if let Some(id) = self.aux.get(&key) {
            return *id;
        }
        // A key may coincide with a rule name; keep names unique.
        let name = if self.by_name.contains_key(&key) { format!("{key}#{}", self.symbols.len()) } else { key.clone() };
        let id = self.add(name, rule, cst);
        self.aux.insert(key, id);
        id
    }
}

/// A hidden external token offered as one alternative of a choice (JavaScript's
/// `_semicolon: choice(_automatic_semicolon, ";")`) is one a scanner may emit with zero
/// width, so the choice is an optional: `";"?`. Rewriting that alternative to ε lets the
/// reducer delete the `;` wherever the language inserts it by itself.
fn blank_hidden_externals(g: &Grammar) -> Grammar {
    let hidden: std::collections::HashSet<&str> = g
        .externals
        .iter()
        .filter_map(|e| match e {
            Expr::Symbol(n) if n.starts_with('_') && !g.rules.contains_key(n) => Some(n.as_str()),
            _ => None,
        })
        .collect();
    fn walk(e: &Expr, hidden: &std::collections::HashSet<&str>) -> Expr {
        match e {
            Expr::Choice(alts) => Expr::Choice(
                alts.iter()
                    .map(|a| match a {
                        Expr::Symbol(n) if hidden.contains(n.as_str()) => Expr::Blank,
                        other => walk(other, hidden),
                    })
                    .collect(),
            ),
            Expr::Seq(xs) => Expr::Seq(xs.iter().map(|x| walk(x, hidden)).collect()),
            Expr::Repeat(x) => Expr::Repeat(Box::new(walk(x, hidden))),
            Expr::Repeat1(x) => Expr::Repeat1(Box::new(walk(x, hidden))),
            Expr::Token(x) => Expr::Token(Box::new(walk(x, hidden))),
            Expr::Alias { content, value, named } => Expr::Alias { content: Box::new(walk(content, hidden)), value: value.clone(), named: *named },
            other => other.clone(),
        }
    }
    let mut out = g.clone();
    for body in out.rules.values_mut() {
        *body = walk(body, &hidden);
    }
    out
}

/// A compact one-line text of an expression, used to name token symbols.
fn render_expr(e: &Expr) -> String {
    match e {
        Expr::Blank => "ε".into(),
        Expr::Str(s) => format!("{s:?}"),
        Expr::Pattern(p) => format!("/{p}/"),
        Expr::Symbol(s) => s.clone(),
        Expr::Seq(xs) => xs.iter().map(render_expr).collect::<Vec<_>>().join(" "),
        Expr::Choice(xs) => format!("({})", xs.iter().map(render_expr).collect::<Vec<_>>().join("|")),
        Expr::Repeat(x) => format!("({})*", render_expr(x)),
        Expr::Repeat1(x) => format!("({})+", render_expr(x)),
        Expr::Token(x) => render_expr(x),
        Expr::Alias { content, .. } => render_expr(content),
    }
}

/// A convenience for tests and small tools: a grammar from `(name, expr)` pairs.
pub fn grammar_from_rules(name: &str, rules: Vec<(&str, Expr)>) -> Grammar {
    let mut m = IndexMap::new();
    for (k, v) in rules {
        m.insert(k.to_string(), v);
    }
    Grammar { name: name.to_string(), rules: m, ..Default::default() }
}
