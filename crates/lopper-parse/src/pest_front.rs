//! The grammar-file front end: a pest grammar, normalized to PNF, run by pest_vm.
//!
//! Every PNF symbol becomes a pest rule of the same name (regular rules as ordered choices,
//! `*` `+` `?` rules as pest's repetitions, literals and lexical rules atomic), so each pest
//! pair is one PNF node and the parse tree *is* the PNF tree: no matching step, nothing
//! opaque. The start rule runs inside `SOI ~ start ~ EOI`; `WHITESPACE` is skipped silently
//! and `COMMENT` pairs become the tree's comments.

use crate::{MatchStats, ParseError};
use lopper_grammar::pest_meta::ast::{Expr as PExpr, Rule as PRule, RuleType};
use lopper_grammar::pest_meta::optimizer;
use lopper_grammar::{is_trivia, nullable_from, pest_nullable, GrammarError, PestGrammar, PnfGrammar, PnfRule, SymbolId, Terminal};
use lopper_tree::{NodeId, NodeKind, Tree, TreeBuilder};
use pest::iterators::Pair;
use std::collections::HashSet;

/// pest's parser calls allowed per input byte (for inputs of at least 1 KiB): far above
/// what the shipped grammars need, and a bound on the exponential backtracking a PEG
/// grammar can fall into (found by the fuzz tests: lua.pest with `REPEAT = @{ name_char }`
/// took 3.5 s on a 47-byte program and doubled its time with each nested block).
const CALLS_PER_BYTE: usize = 20_000;

/// The wrapper rule: `SOI ~ start ~ EOI`. Not a valid pest identifier, so no clash.
const FILE_RULE: &str = "<file>";

/// A pest_vm program for a normalized grammar file.
pub(crate) struct PestBackend {
    vm: pest_vm::Vm,
}

impl PestBackend {
    /// Builds the pest rules of `pnf` (normalized from `file`).
    ///
    /// # Errors
    /// [`GrammarError::Unsupported`] when something that can match empty text is repeated
    /// (a lexical rule like `@{ "a"* }` under `*`): pest would loop forever on it.
    pub(crate) fn new(file: &PestGrammar, pnf: &PnfGrammar) -> Result<PestBackend, ParseError> {
        check_repetitions(file, pnf)?;
        let mut rules: Vec<PRule> = Vec::new();
        let mut defined: HashSet<String> = HashSet::new();
        let ident = |x: SymbolId| Box::new(PExpr::Ident(pnf.symbol(x).name.clone()));
        for s in &pnf.symbols {
            let (ty, expr) = match &s.rule {
                PnfRule::Terminal(Terminal::Str(t)) => (RuleType::Atomic, PExpr::Str(t.clone())),
                PnfRule::Terminal(Terminal::Lexical) => match file.rules.get(&s.name) {
                    Some(r) => (r.ty, r.expr.clone()),
                    None => return Err(ParseError::Grammar(lopper_grammar::GrammarError::Syntax(format!("no lexical rule `{}`", s.name)))),
                },
                PnfRule::Terminal(t) => unreachable!("a grammar file has no {t:?} terminals"),
                PnfRule::Regular(alts) => {
                    let seqs = alts.iter().map(|a| {
                        let items: Vec<Box<PExpr>> = a.iter().map(|&x| ident(x)).collect();
                        items.into_iter().rev().reduce(|acc, x| Box::new(PExpr::Seq(x, acc))).map_or(PExpr::Str(String::new()), |b| *b)
                    });
                    let choice = seqs.map(Box::new).rev().reduce(|acc, x| Box::new(PExpr::Choice(x, acc)));
                    (RuleType::Normal, choice.map_or(PExpr::Str(String::new()), |b| *b))
                }
                PnfRule::Star(x) => (RuleType::Normal, PExpr::Rep(ident(*x))),
                PnfRule::Plus(x) => (RuleType::Normal, PExpr::RepOnce(ident(*x))),
                PnfRule::Optional(x) => (RuleType::Normal, PExpr::Opt(ident(*x))),
            };
            defined.insert(s.name.clone());
            rules.push(PRule { name: s.name.clone(), ty, expr });
        }
        // Rules the PNF no longer has (helpers only lexical rules call, trivia) keep pest's
        // own definition; whitespace is silent, comments are atomic pairs we record.
        for r in file.rules.values() {
            if defined.contains(&r.name) {
                continue;
            }
            let ty = match r.name.as_str() {
                "WHITESPACE" => RuleType::Silent,
                "COMMENT" => RuleType::Atomic,
                _ => r.ty,
            };
            rules.push(PRule { name: r.name.clone(), ty, expr: r.expr.clone() });
        }
        let start = PExpr::Ident(pnf.symbol(pnf.start).name.clone());
        let body = PExpr::Seq(Box::new(PExpr::Ident("SOI".into())), Box::new(PExpr::Seq(Box::new(start), Box::new(PExpr::Ident("EOI".into())))));
        rules.push(PRule { name: FILE_RULE.into(), ty: RuleType::Silent, expr: body });
        Ok(PestBackend { vm: pest_vm::Vm::new(optimizer::optimize(rules)) })
    }

    /// Whether `text` parses (pest's error message, with line and column, if not).
    pub(crate) fn check(&self, text: &str) -> Result<(), ParseError> {
        self.run(text).map(|_| ())
    }

    /// [`PestBackend::check`] as [`Damage`](crate::Damage): 1 error for a text the grammar
    /// rejects, no unparsed bytes (pest reads all or nothing).
    pub(crate) fn damage(&self, text: &str) -> crate::Damage {
        crate::Damage { errors: self.check(text).is_err() as usize, unparsed: 0 }
    }

    /// pest_vm's pairs for `text`, its cumulative calls bounded by the size of `text`
    /// (pest then fails with "call limit reached"). pest's limit is process-wide and read
    /// when a parse starts; concurrent parses are of candidates of about the same size.
    fn run<'a>(&'a self, text: &'a str) -> Result<pest::iterators::Pairs<'a, &'a str>, ParseError> {
        pest::set_call_limit(std::num::NonZeroUsize::new(CALLS_PER_BYTE.saturating_mul(text.len().max(1024))));
        self.vm.parse(FILE_RULE, text).map_err(syntax_error)
    }

    /// Parses `text` into the PNF tree; with `plain`, every inner node is opaque (the plain
    /// parse tree HDD works on).
    pub(crate) fn parse(&self, pnf: &PnfGrammar, text: &str, plain: bool) -> Result<(Tree, MatchStats), ParseError> {
        let pairs = self.run(text)?;
        let mut b = TreeBuilder::new(text.to_string());
        let mut stats = MatchStats::default();
        let mut root = None;
        for p in pairs {
            if let Some(id) = build(pnf, p, None, &mut b, &mut stats, plain) {
                root.get_or_insert(id);
            }
        }
        let root = match root {
            Some(r) => r,
            None => b.node(NodeKind::Regular, Some(pnf.start), None, Vec::new()),
        };
        Ok((b.finish(root), stats))
    }
}

fn build(pnf: &PnfGrammar, pair: Pair<'_, &str>, slot: Option<SymbolId>, b: &mut TreeBuilder, stats: &mut MatchStats, plain: bool) -> Option<NodeId> {
    let name = pair.as_rule();
    let span = pair.as_span();
    if name == "COMMENT" {
        b.comment(span.start()..span.end());
        return None;
    }
    if name == "EOI" || is_trivia(name) {
        return None;
    }
    let Some(sym) = pnf.lookup(name) else {
        // A helper rule outside the PNF (reached through a lexical rule): one token.
        return (span.start() < span.end()).then(|| b.token(None, slot, span.start()..span.end()));
    };
    let rule = &pnf.symbol(sym).rule;
    if let PnfRule::Terminal(_) = rule {
        return (span.start() < span.end()).then(|| b.token(Some(sym), slot, span.start()..span.end()));
    }
    let children: Vec<NodeId> = pair
        .into_inner()
        .filter_map(|p| {
            let child_sym = pnf.lookup(p.as_rule());
            // One frame per nesting level: grow the stack on the heap where it runs out.
            stacker::maybe_grow(64 << 10, 16 << 20, || build(pnf, p, child_sym, b, stats, plain))
        })
        .collect();
    stats.inner_nodes += 1;
    stats.matched += 1;
    if plain {
        return Some(b.node(NodeKind::Opaque, Some(sym), slot, children));
    }
    // A unit alternative (`A ::= B` chosen) collapses into its child (itself perhaps a
    // collapsed chain, whose top is its slot): the child takes this node's slot, or this
    // node's symbol at the root, so the chain's most general symbol stays what is expected.
    if let (PnfRule::Regular(alts), [only]) = (rule, children.as_slice()) {
        let top = b.get(*only).slot.or(b.get(*only).symbol);
        if alts.iter().any(|a| a.len() == 1 && Some(a[0]) == top) {
            b.set_slot(*only, slot.or(Some(sym)));
            return Some(*only);
        }
    }
    let kind = match rule {
        PnfRule::Star(_) => NodeKind::Star,
        PnfRule::Plus(_) => NodeKind::Plus,
        PnfRule::Optional(_) => NodeKind::Optional,
        _ => NodeKind::Regular,
    };
    Some(b.node(kind, Some(sym), slot, children))
}

/// Rejects a Kleene star or plus whose element can match empty text once lexical rules are
/// taken as pest runs them (normalization sees them as tokens that always consume), and
/// `WHITESPACE` or `COMMENT` rules that can (pest repeats them between tokens).
fn check_repetitions(file: &PestGrammar, pnf: &PnfGrammar) -> Result<(), GrammarError> {
    let seed: Vec<bool> = pnf
        .symbols
        .iter()
        .map(|s| match &s.rule {
            PnfRule::Terminal(Terminal::Str(t)) => t.is_empty(),
            PnfRule::Terminal(Terminal::Lexical) => file.rules.get(&s.name).is_some_and(|r| pest_nullable(&r.expr, &file.rules)),
            _ => false,
        })
        .collect();
    // pest repeats the trivia rules between tokens: one that can match empty text loops.
    for name in ["WHITESPACE", "COMMENT"] {
        if file.rules.get(name).is_some_and(|r| pest_nullable(&r.expr, &file.rules)) {
            return Err(GrammarError::Unsupported {
                rule: name.to_string(),
                what: "it can match empty text, and pest repeats it between tokens, so parsing would never end; make it match at least one character".into(),
            });
        }
    }
    let nullable = nullable_from(&pnf.symbols, seed);
    for s in &pnf.symbols {
        if let PnfRule::Star(x) | PnfRule::Plus(x) = s.rule {
            if nullable[x as usize] {
                let el = &pnf.symbol(x).name;
                return Err(GrammarError::Unsupported {
                    rule: el.clone(),
                    what: format!(
                        "it can match empty text but is repeated (in `{}`), so parsing would never end; make it match at least one character",
                        s.name
                    ),
                });
            }
        }
    }
    Ok(())
}

/// Source lines longer than this (in characters) are not quoted in a syntax error.
const LONGEST_QUOTED: usize = 200;

/// pest's error as [`ParseError::Syntax`], with its position. pest quotes the whole source
/// line: on a one-line input nested 1,000,000 deep that is a line of 150,000 characters, so
/// a long line gives the position and pest's message alone.
fn syntax_error(e: pest::error::Error<&str>) -> ParseError {
    let (line, column) = match e.line_col {
        pest::error::LineColLocation::Pos(p) | pest::error::LineColLocation::Span(p, _) => p,
    };
    let message = if e.line().chars().count() > LONGEST_QUOTED { format!(" --> {line}:{column}: {}", e.variant.message()) } else { e.to_string() };
    ParseError::Syntax { line, column, message }
}
