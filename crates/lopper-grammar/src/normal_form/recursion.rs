//! Left recursion removed (Tarjan SCCs of the left-corner graph, leading optionals
//! expanded, Paull substitution, `A ::= A α | β` → `A ::= β A__star`) and right-recursive
//! lists turned into Kleene stars (Perses §4.2, Algorithm 1).

use super::{dedup, Work};
use crate::subsumption::nullable;
use crate::symbol::{PnfRule, SymbolId};
use crate::GrammarError;

impl Work {
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
    pub(super) fn remove_left_recursion(&mut self) -> Result<(), GrammarError> {
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
    pub(super) fn right_recursion_to_star(&mut self) {
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
}

/// Whether an SCC of the left-corner graph `corners` is a cycle (more than one symbol, or
/// one with an edge to itself).
fn cyclic(corners: &[Vec<SymbolId>], scc: &[SymbolId]) -> bool {
    scc.len() > 1 || corners[scc[0] as usize].contains(&scc[0])
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
