//! The subsumption relation of a PNF grammar (Perses §4.3).
//!
//! `B ⊑ A` iff `A ⇒* B` through unit derivations: a regular alternative that is one symbol
//! once its nullable symbols derive ε, or a quantified rule (`A ::= B*`, `B+`, `B?` each derive one `B`). For tree-sitter
//! grammars this covers supertypes, hidden `_rules` and single-symbol choices. It is stored
//! as one bitset row per symbol, the reflexive-transitive closure of the unit edges.

use crate::symbol::{PnfRule, Symbol, SymbolId};

/// Reflexive-transitive closure of unit derivations, `n × n` bits for `n` symbols.
#[derive(Clone, Debug)]
pub struct Subsumption {
    words: usize,
    bits: Vec<u64>,
}

impl Subsumption {
    /// Computes the closure by a depth-first search from every symbol: O(n · e) time,
    /// n²/8 bytes (about 0.3 MB for the C grammar's ~1,600 symbols).
    pub fn compute(symbols: &[Symbol]) -> Subsumption {
        let n = symbols.len();
        let words = n.div_ceil(64).max(1);
        let nullable = nullable(symbols);
        let unit: Vec<Vec<SymbolId>> = symbols
            .iter()
            .map(|s| match &s.rule {
                // `A ::= B? C D*` derives C alone: the others derive ε.
                PnfRule::Regular(alts) => alts
                    .iter()
                    .flat_map(|a| {
                        let solid: Vec<SymbolId> = a.iter().copied().filter(|x| !nullable[*x as usize]).collect();
                        match solid.len() {
                            0 => a.clone(),
                            1 => solid,
                            _ => Vec::new(),
                        }
                    })
                    .collect(),
                PnfRule::Star(x) | PnfRule::Plus(x) | PnfRule::Optional(x) => vec![*x],
                PnfRule::Terminal(_) => Vec::new(),
            })
            .collect();
        let mut bits = vec![0u64; n * words];
        let mut stack = Vec::new();
        for a in 0..n {
            let row = &mut bits[a * words..(a + 1) * words];
            row[a / 64] |= 1 << (a % 64);
            stack.push(a as SymbolId);
            while let Some(x) = stack.pop() {
                for &b in &unit[x as usize] {
                    let (w, m) = (b as usize / 64, 1u64 << (b % 64));
                    if row[w] & m == 0 {
                        row[w] |= m;
                        stack.push(b);
                    }
                }
            }
        }
        Subsumption { words, bits }
    }

    /// Whether `actual ⊑ expected`, i.e. `expected ⇒* actual` through unit derivations.
    pub fn holds(&self, expected: SymbolId, actual: SymbolId) -> bool {
        let (e, a) = (expected as usize, actual as usize);
        self.bits.get(e * self.words + a / 64).is_some_and(|w| w & (1 << (a % 64)) != 0)
    }
}

/// Which symbols derive ε (fixpoint over the rules).
pub fn nullable(symbols: &[Symbol]) -> Vec<bool> {
    nullable_from(symbols, vec![false; symbols.len()])
}

/// As [`nullable`], starting from `seed`: symbols marked there (say, terminals a front end
/// knows can match empty text) count as nullable.
pub fn nullable_from(symbols: &[Symbol], seed: Vec<bool>) -> Vec<bool> {
    let mut n = seed;
    let mut changed = true;
    while changed {
        changed = false;
        for (i, s) in symbols.iter().enumerate() {
            if n[i] {
                continue;
            }
            let now = match &s.rule {
                PnfRule::Star(_) | PnfRule::Optional(_) => true,
                PnfRule::Plus(x) => n[*x as usize],
                PnfRule::Regular(alts) => alts.iter().any(|a| a.iter().all(|x| n[*x as usize])),
                PnfRule::Terminal(_) => false,
            };
            if now {
                n[i] = true;
                changed = true;
            }
        }
    }
    n
}
