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

    /// The left-corner graph: `A → X` where `A`'s derivation can start with `X`.
    fn left_corners(&self) -> Vec<Vec<SymbolId>> {
        let nullable = nullable(&self.syms);
        self.syms
            .iter()
            .map(|s| match &s.rule {
                PnfRule::Regular(alts) => {
                    let mut out = Vec::new();
                    for a in alts {
                        for &x in a {
                            out.push(x);
                            if !nullable[x as usize] {
                                break;
                            }
                        }
                    }
                    out
                }
                PnfRule::Terminal(_) => Vec::new(),
                r => vec![r.element().expect("quantified")],
            })
            .collect()
    }

    /// Left recursion: SCCs of the left-corner graph (Tarjan); in each cyclic one, leading
    /// optional symbols are expanded (hidden recursion), indirect recursion is made direct by
    /// substitution in rule order (Paull), and `A ::= A α | β` becomes
    /// `A ::= β A__star`, `A__star ::= α*` (with `A__tail ::= α1 | α2 …` for several α).
    fn remove_left_recursion(&mut self) -> Result<(), GrammarError> {
        // Rewriting one SCC keeps every rule's language (so every symbol's nullability) and
        // touches only its own rules: the graph built once still answers for the others.
        let corners = self.left_corners();
        for scc in tarjan(&corners) {
            if !cyclic(&corners, &scc) {
                continue;
            }
            if scc.iter().any(|&x| !matches!(self.rule(x), PnfRule::Regular(_))) {
                return Err(GrammarError::LeftRecursion { rules: self.rule_names(&scc) });
            }
            let mut members = scc.clone();
            members.sort_unstable();
            for &a in &members {
                self.expand_leading_optionals(a);
            }
            for (i, &ai) in members.iter().enumerate() {
                for &aj in &members[..i] {
                    let PnfRule::Regular(aj_alts) = self.rule(aj).clone() else { unreachable!() };
                    let PnfRule::Regular(ai_alts) = self.rule(ai).clone() else { unreachable!() };
                    let mut out = Vec::new();
                    for alt in ai_alts {
                        if alt.first() == Some(&aj) {
                            for b in &aj_alts {
                                out.push(b.iter().chain(&alt[1..]).copied().collect());
                            }
                        } else {
                            out.push(alt);
                        }
                    }
                    dedup(&mut out);
                    self.syms[ai as usize].rule = PnfRule::Regular(out);
                }
                self.expand_leading_optionals(ai);
                self.direct_left_recursion(ai)?;
            }
        }
        let corners = self.left_corners();
        for scc in tarjan(&corners) {
            if cyclic(&corners, &scc) {
                return Err(GrammarError::LeftRecursion { rules: self.rule_names(&scc) });
            }
        }
        Ok(())
    }

    fn rule_names(&self, scc: &[SymbolId]) -> Vec<String> {
        let mut v: Vec<SymbolId> = scc.to_vec();
        v.sort_unstable();
        v.iter().map(|&x| self.name(x).to_string()).collect()
    }

    /// `A ::= X? α` becomes `A ::= X α | α` (and `X* α` becomes `X+ α | α`), so a
    /// recursion hidden behind a nullable prefix shows as the first symbol.
    fn expand_leading_optionals(&mut self, a: SymbolId) {
        let PnfRule::Regular(alts) = self.rule(a).clone() else { return };
        let mut out = Vec::new();
        let mut todo: Vec<Vec<SymbolId>> = alts.into_iter().rev().collect();
        while let Some(alt) = todo.pop() {
            let lead = alt.first().map(|&x| (x, self.rule(x).clone()));
            match lead {
                Some((_, PnfRule::Optional(y))) if alt.len() > 1 => {
                    todo.push(alt[1..].to_vec());
                    todo.push(std::iter::once(y).chain(alt[1..].iter().copied()).collect());
                }
                Some((_, PnfRule::Star(y))) if alt.len() > 1 => {
                    let p = self.quantified(PnfRule::Plus(y));
                    todo.push(alt[1..].to_vec());
                    todo.push(std::iter::once(p).chain(alt[1..].iter().copied()).collect());
                }
                _ => out.push(alt),
            }
        }
        dedup(&mut out);
        self.syms[a as usize].rule = PnfRule::Regular(out);
    }

    fn direct_left_recursion(&mut self, a: SymbolId) -> Result<(), GrammarError> {
        let PnfRule::Regular(alts) = self.rule(a).clone() else { return Ok(()) };
        let (rec, base): (Vec<_>, Vec<_>) = alts.into_iter().partition(|alt| alt.first() == Some(&a));
        let tails: Vec<Vec<SymbolId>> = rec.into_iter().map(|alt| alt[1..].to_vec()).filter(|t| !t.is_empty()).collect();
        if tails.is_empty() {
            return Ok(());
        }
        if base.is_empty() {
            return Err(GrammarError::NeverEnds { rule: self.name(a).to_string() });
        }
        let name = self.name(a).to_string();
        let el = if tails.len() == 1 && tails[0].len() == 1 { tails[0][0] } else { self.add(format!("{name}__tail"), PnfRule::Regular(tails)) };
        let star = self.quantified_named(PnfRule::Star(el), Some(format!("{name}__star")));
        let out = base.into_iter().map(|mut b| {
            b.push(star);
            b
        });
        self.syms[a as usize].rule = PnfRule::Regular(out.collect());
        Ok(())
    }

    /// Right recursion `A ::= β γ A | β` (also written `A ::= β γ A?`) becomes
    /// `A ::= β A__star`, `A__star ::= (γ β)*` — the same strings, and for a PEG the same
    /// parse, because the recursive alternative is tried first and starts like the base.
    /// With `γ` empty this is `β+` once `+` is introduced.
    fn right_recursion_to_star(&mut self) {
        for a in 0..self.syms.len() as SymbolId {
            let PnfRule::Regular(alts) = self.rule(a).clone() else { continue };
            let mut split = Vec::new();
            for alt in &alts {
                match alt.last().map(|&x| self.rule(x).clone()) {
                    Some(PnfRule::Optional(y)) if y == a && alt.len() > 1 => {
                        let mut r = alt.clone();
                        *r.last_mut().expect("non-empty") = a;
                        split.push(r);
                        split.push(alt[..alt.len() - 1].to_vec());
                    }
                    _ => split.push(alt.clone()),
                }
            }
            let (rec, base): (Vec<_>, Vec<_>) = split.iter().partition(|alt| alt.len() > 1 && alt.last() == Some(&a));
            if rec.len() != 1 || base.len() != 1 {
                continue;
            }
            let (alpha, beta) = (&rec[0][..rec[0].len() - 1], base[0]);
            if beta.is_empty() || !alpha.starts_with(beta) || beta.contains(&a) {
                continue;
            }
            let tail: Vec<SymbolId> = alpha[beta.len()..].iter().chain(beta).copied().collect();
            let name = self.name(a).to_string();
            let el = if tail.len() == 1 { tail[0] } else { self.add(format!("{name}__tail"), PnfRule::Regular(vec![tail])) };
            let star = self.quantified_named(PnfRule::Star(el), Some(format!("{name}__star")));
            let mut alt = beta.clone();
            alt.push(star);
            self.syms[a as usize].rule = PnfRule::Regular(vec![alt]);
        }
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

/// Whether an SCC of the left-corner graph `corners` is a cycle (more than one symbol, or
/// one with an edge to itself).
fn cyclic(corners: &[Vec<SymbolId>], scc: &[SymbolId]) -> bool {
    scc.len() > 1 || corners[scc[0] as usize].contains(&scc[0])
}

fn dedup(alts: &mut Vec<Vec<SymbolId>>) {
    let mut seen = std::collections::HashSet::new();
    alts.retain(|a| seen.insert(a.clone()));
}

/// Tarjan's strongly connected components, iteratively (deep grammars would overflow a
/// recursive version's stack). Components come out in reverse topological order.
fn tarjan(edges: &[Vec<SymbolId>]) -> Vec<Vec<SymbolId>> {
    let n = edges.len();
    let (mut index, mut low, mut on) = (vec![u32::MAX; n], vec![0u32; n], vec![false; n]);
    let (mut stack, mut out, mut next) = (Vec::new(), Vec::new(), 0u32);
    for root in 0..n {
        if index[root] != u32::MAX {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (v, ref mut i)) = call.last_mut() {
            if *i < edges[v].len() {
                let w = edges[v][*i] as usize;
                *i += 1;
                if index[w] == u32::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    call.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().expect("on stack");
                        on[w] = false;
                        comp.push(w as SymbolId);
                        if w == v {
                            break;
                        }
                    }
                    out.push(comp);
                }
            }
        }
    }
    out
}
