//! The full Perses normalization (Perses §4.2, Algorithm 1) for grammars that lopper parses
//! with their own normal form (grammar files): ε-removal, removal of left recursion,
//! right recursion turned into Kleene stars, `+` and `?` introduction, and removal of
//! unreachable rules, on top of the lifting of inline quantified groups that
//! [`crate::normalize`] already did.
//!
//! Tree-sitter grammars do not go through this: their CST shape is fixed by tree-sitter, so
//! they keep the lifted grammar that matches it.
//!
//! Grammar files are run as PEGs (pest), so each rewrite keeps the PEG's ordered-choice
//! reading wherever the paper's rewrite would change it: right recursion `A ::= α A | β`
//! becomes a star only where `α` starts with `β` (`A ::= β (γ β)*`), the form lists take.

use crate::pnf::PnfGrammar;
use crate::subsumption::nullable;
use crate::symbol::{PnfRule, Symbol, SymbolId};
use crate::GrammarError;
use std::collections::HashMap;

mod recursion;

/// Normalizes a lifted grammar (the output of [`crate::normalize`]) into Perses Normal Form
/// with Algorithm 1 of the Perses paper (§4.2): after it, only Kleene-star and optional
/// rules (and an optional start rule) derive ε, no rule is left-recursive, left- and
/// right-recursive lists are Kleene stars / pluses, alternatives that differ by one symbol
/// are merged into one with an optional, and every rule is reachable from the start.
///
/// # Errors
/// [`GrammarError::NeverEnds`] for a reachable rule that derives no finite text (every
/// alternative refers back to it); [`GrammarError::LeftRecursion`] for left recursion that
/// runs through a quantified rule (`A ::= B* …` where `B` starts with `A`), which the
/// algorithm does not rewrite.
pub fn perses_normalize(g: &PnfGrammar) -> Result<PnfGrammar, GrammarError> {
    let mut w = Work { syms: g.symbols.clone(), start: g.start };
    w.check_productive()?;
    w.remove_epsilon();
    w.remove_left_recursion()?;
    w.right_recursion_to_star();
    w.introduce_plus();
    w.introduce_optional();
    w.unit_quantifiers();
    Ok(w.finish(g))
}

struct Work {
    syms: Vec<Symbol>,
    start: SymbolId,
}

impl Work {
    fn rule(&self, x: SymbolId) -> &PnfRule {
        &self.syms[x as usize].rule
    }

    fn name(&self, x: SymbolId) -> &str {
        &self.syms[x as usize].name
    }

    fn add(&mut self, base: String, rule: PnfRule) -> SymbolId {
        let mut name = base.clone();
        let mut k = 2;
        while self.syms.iter().any(|s| s.name == name) {
            name = format!("{base}{k}");
            k += 1;
        }
        self.syms.push(Symbol { name, rule, cst: None });
        (self.syms.len() - 1) as SymbolId
    }

    /// A symbol with exactly this quantified rule, reusing one that exists.
    fn quantified(&mut self, rule: PnfRule) -> SymbolId {
        self.quantified_named(rule, None)
    }

    /// As [`Work::quantified`]; a new symbol is named `base` (default: after its element).
    fn quantified_named(&mut self, rule: PnfRule, base: Option<String>) -> SymbolId {
        if let Some(i) = self.syms.iter().position(|s| s.rule == rule) {
            return i as SymbolId;
        }
        if let Some(b) = base {
            return self.add(b, rule);
        }
        let el = rule.element().expect("a quantified rule");
        let what = match rule {
            PnfRule::Star(_) => "star",
            PnfRule::Plus(_) => "plus",
            _ => "opt",
        };
        let base = format!("{}__{what}", self.name(el).trim_matches('"'));
        self.add(base, rule)
    }

    fn check_productive(&self) -> Result<(), GrammarError> {
        let n = self.syms.len();
        let mut p = vec![false; n];
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..n {
                if p[i] {
                    continue;
                }
                let now = match &self.syms[i].rule {
                    PnfRule::Terminal(_) | PnfRule::Star(_) | PnfRule::Optional(_) => true,
                    PnfRule::Plus(x) => p[*x as usize],
                    PnfRule::Regular(alts) => alts.iter().any(|a| a.iter().all(|x| p[*x as usize])),
                };
                if now {
                    p[i] = true;
                    changed = true;
                }
            }
        }
        match self.reachable().iter().enumerate().find(|(i, r)| **r && !p[*i]) {
            Some((i, _)) => Err(GrammarError::NeverEnds { rule: self.syms[i].name.clone() }),
            None => Ok(()),
        }
    }

    fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.syms.len()];
        let mut stack = vec![self.start];
        seen[self.start as usize] = true;
        while let Some(x) = stack.pop() {
            let next: Vec<SymbolId> = match self.rule(x) {
                PnfRule::Regular(alts) => alts.iter().flatten().copied().collect(),
                PnfRule::Terminal(_) => Vec::new(),
                r => vec![r.element().expect("quantified")],
            };
            for y in next {
                if !seen[y as usize] {
                    seen[y as usize] = true;
                    stack.push(y);
                }
            }
        }
        seen
    }

    /// ε-removal: every nullable regular or plus rule loses its empty derivation in place,
    /// and each use of it becomes optional (`X?`), so only star and optional rules stay
    /// nullable and no repetition repeats something empty.
    fn remove_epsilon(&mut self) {
        let nullable = nullable(&self.syms);
        let mut opt_of: HashMap<SymbolId, SymbolId> = HashMap::new();
        let n = self.syms.len();
        for i in 0..n {
            let new = match self.syms[i].rule.clone() {
                PnfRule::Regular(alts) => {
                    let mut out = Vec::new();
                    for a in alts {
                        if a.iter().any(|x| !nullable[*x as usize]) {
                            out.push(a.iter().map(|&x| self.opt(x, &nullable, &mut opt_of)).collect());
                        } else {
                            for k in 0..a.len() {
                                let mut alt = vec![self.proper(a[k], &nullable)];
                                alt.extend(a[k + 1..].iter().map(|&x| self.opt(x, &nullable, &mut opt_of)));
                                out.push(alt);
                            }
                        }
                    }
                    dedup(&mut out);
                    PnfRule::Regular(out)
                }
                PnfRule::Star(x) => PnfRule::Star(self.proper(x, &nullable)),
                PnfRule::Plus(x) => PnfRule::Plus(self.proper(x, &nullable)),
                PnfRule::Optional(x) => PnfRule::Optional(self.proper(x, &nullable)),
                t => t,
            };
            self.syms[i].rule = new;
        }
        if nullable[self.start as usize] {
            self.start = self.opt(self.start, &nullable, &mut opt_of);
        }
    }

    /// Where `x` was nullable, the symbol for `x` without ε: regular and plus rules are made
    /// ε-free in place, `Y*` becomes `Y+`, `Y?` becomes `Y`.
    fn proper(&mut self, x: SymbolId, nullable: &[bool]) -> SymbolId {
        if !nullable.get(x as usize).copied().unwrap_or(false) {
            return x;
        }
        match self.rule(x).clone() {
            PnfRule::Star(y) => {
                let y = self.proper(y, nullable);
                self.quantified(PnfRule::Plus(y))
            }
            PnfRule::Optional(y) => self.proper(y, nullable),
            _ => x,
        }
    }

    /// A use of `x` in a sequence: `x` itself, or `x?` where `x` was nullable.
    fn opt(&mut self, x: SymbolId, nullable: &[bool], memo: &mut HashMap<SymbolId, SymbolId>) -> SymbolId {
        if !nullable.get(x as usize).copied().unwrap_or(false) || matches!(self.rule(x), PnfRule::Star(_) | PnfRule::Optional(_)) {
            return x;
        }
        if let Some(&o) = memo.get(&x) {
            return o;
        }
        let o = self.quantified(PnfRule::Optional(x));
        memo.insert(x, o);
        o
    }

    /// `X X*` and `X* X` in a sequence become `X+`.
    fn introduce_plus(&mut self) {
        for a in 0..self.syms.len() {
            let PnfRule::Regular(alts) = self.syms[a].rule.clone() else { continue };
            let mut changed = false;
            let mut out = Vec::new();
            for alt in alts {
                let mut v: Vec<SymbolId> = Vec::new();
                for x in alt {
                    let prev = v.last().copied();
                    let plus = prev.and_then(|p| match (self.rule(p).clone(), self.rule(x).clone()) {
                        (_, PnfRule::Star(e)) if e == p => Some(e),
                        (PnfRule::Star(e), _) if e == x => Some(e),
                        _ => None,
                    });
                    match plus {
                        Some(e) => {
                            v.pop();
                            v.push(self.quantified(PnfRule::Plus(e)));
                            changed = true;
                        }
                        None => v.push(x),
                    }
                }
                out.push(v);
            }
            if changed {
                self.syms[a].rule = PnfRule::Regular(out);
            }
        }
    }

    /// Two alternatives that differ by one symbol, `α X β | α β`, become one: `α X? β`.
    fn introduce_optional(&mut self) {
        for a in 0..self.syms.len() {
            let PnfRule::Regular(mut alts) = self.syms[a].rule.clone() else { continue };
            let mut changed = false;
            'again: loop {
                for i in 0..alts.len() {
                    for j in 0..alts.len() {
                        if i == j || alts[i].len() != alts[j].len() + 1 {
                            continue;
                        }
                        let (long, short) = (&alts[i], &alts[j]);
                        let k = long.iter().zip(short).take_while(|(x, y)| x == y).count();
                        if long[k + 1..] != short[k..] {
                            continue;
                        }
                        let x = long[k];
                        let o = if matches!(self.rule(x), PnfRule::Star(_) | PnfRule::Optional(_)) { x } else { self.quantified(PnfRule::Optional(x)) };
                        let mut merged = long.clone();
                        merged[k] = o;
                        let (keep, drop) = (i.min(j), i.max(j));
                        alts[keep] = merged;
                        alts.remove(drop);
                        changed = true;
                        continue 'again;
                    }
                }
                break;
            }
            if changed {
                self.syms[a].rule = PnfRule::Regular(alts);
            }
        }
    }

    /// `A ::= B*` with one alternative of one quantified symbol: `A` itself becomes the
    /// quantified rule, so the tree has one node where it would have two.
    fn unit_quantifiers(&mut self) {
        for a in 0..self.syms.len() {
            if let PnfRule::Regular(alts) = &self.syms[a].rule {
                if alts.len() == 1 && alts[0].len() == 1 && alts[0][0] as usize != a {
                    let q = self.syms[alts[0][0] as usize].rule.clone();
                    if q.element().is_some_and(|e| e as usize != a) {
                        self.syms[a].rule = q;
                    }
                }
            }
        }
    }

    /// Drops unreachable symbols and renumbers the rest in their order.
    fn finish(self, g: &PnfGrammar) -> PnfGrammar {
        let keep = self.reachable();
        let mut map = vec![u32::MAX; self.syms.len()];
        let mut syms = Vec::new();
        for (i, s) in self.syms.iter().enumerate() {
            if keep[i] {
                map[i] = syms.len() as SymbolId;
                syms.push(s.clone());
            }
        }
        let m = |x: &SymbolId| map[*x as usize];
        for s in &mut syms {
            s.rule = match &s.rule {
                PnfRule::Regular(alts) => PnfRule::Regular(alts.iter().map(|a| a.iter().map(m).collect()).collect()),
                PnfRule::Star(x) => PnfRule::Star(m(x)),
                PnfRule::Plus(x) => PnfRule::Plus(m(x)),
                PnfRule::Optional(x) => PnfRule::Optional(m(x)),
                t => t.clone(),
            };
        }
        let mut p = PnfGrammar::assemble(g.name.clone(), syms, map[self.start as usize], g.extras.clone());
        p.word = g.word.and_then(|w| p.lookup(&g.symbol(w).name));
        p
    }
}

fn dedup(alts: &mut Vec<Vec<SymbolId>>) {
    let mut seen = std::collections::HashSet::new();
    alts.retain(|a| seen.insert(a.clone()));
}
