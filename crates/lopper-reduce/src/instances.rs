//! One transformation, many instances, one test (C-Vise's binary-search passes, e.g.
//! `replace-function-def-with-decl` over every function at once, bisected on failure):
//! each kind of list of the program — every Kleene star or optional node of one PNF
//! symbol, such as every function body's statement list — is emptied in all its places
//! with one candidate, and where that fails, a coarse ddmin
//! ([`CoarseDdmin`]) over the places finds the big subsets that can go. Every candidate is
//! grammatical by construction (a star may be empty, an optional absent) and is screened
//! like any other.
//!
//! Why first, and in this order: on a large program the deletions Perses tries first — big
//! chunks of the top-level list — fail while the code left behind still uses what they
//! delete (clang stops after 20 errors before it reaches the crash). Emptying the bodies
//! first removes the uses, so the declarations can go in large chunks afterwards (Perses'
//! ddmin, the unused search). Kinds are taken smallest mean instance first (statement lists
//! before class bodies before namespace bodies: the uses before what they use).

use crate::engine::{Deletion, Empty, Engine, Round};
use crate::minimize::CoarseDdmin;
use crate::oracle::OracleError;
use crate::passes::{CoarseSearch, Group, Kind, PassInfo};
use lopper_grammar::SymbolId;
use lopper_tree::{NodeId, NodeKind, Tree};
use std::collections::HashMap;

/// The search in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "instances",
    plain: "emptying every body of one kind at once",
    about: "every list of one kind (every function body's statements, every class body, ...) emptied with one test, then a coarse ddmin over those lists (C-Vise's binary-search passes); kinds with the smallest lists first, only kinds holding 1/8 of the program, only programs of 25k tokens or more; once, before the rest",
    group: Group::First,
    grows: false,
    kind: Kind::Coarse(CoarseSearch::Instances),
};

/// A kind of list is searched only when its places hold at least 1/`MIN_SHARE` of the
/// program's tokens: the search costs at least one test per kind.
const MIN_SHARE: usize = 8;

/// Nor where the input had under `MIN_PROGRAM` tokens, where Perses' own order costs fewer tests
/// (measured on the corpus: on the C, Java and JavaScript cases under 20k tokens the search
/// added 16–261 tests, on the C case of 20.7k it added 23, on the two C cases over 25k it
/// saved 128 and 180).
const MIN_PROGRAM: usize = 25_000;

/// The coarse ddmin's chunk sizes: halves down to 1/64 of a kind's places (at most about
/// 128 tests per kind, whatever the number of places the test needs); Perses takes the
/// rest.
const LEVELS: u32 = 6;

impl Engine<'_> {
    /// The search over `tree` (the best's): the tree of the best after it, `None` if the
    /// best no longer parses.
    ///
    /// # Errors
    /// The judge's.
    pub(crate) fn instances(&mut self, tree: Tree) -> Result<Option<Tree>, OracleError> {
        // The input's size decides: `slices` before this may leave a large program small.
        if self.j.stats.tokens_before < MIN_PROGRAM {
            return Ok(Some(tree));
        }
        self.j.set_pass(INFO.name);
        let mut r = Round::new(tree);
        for kind in kinds(&r.tree) {
            let places: Vec<NodeId> = kind.into_iter().filter(|&n| r.live[n.0 as usize]).collect();
            let tokens: usize = places.iter().map(|&n| r.tree.node(n).tokens as usize).sum();
            if places.len() < 2 || tokens * MIN_SHARE < r.tree.count_tokens(&r.state) {
                continue;
            }
            let coarse = CoarseDdmin { levels: LEVELS, deep: false };
            self.ddmin_delete(&mut r, Deletion { minimizer: Some(&coarse), ..Deletion::of(places, Empty::DeleteItems) })?;
        }
        if !r.progress {
            return Ok(Some(r.tree));
        }
        Ok(self.parse_best())
    }
}

/// The kinds of list of `tree` worth a search: per PNF symbol of a star or optional node,
/// its outermost places (none inside another of the same symbol) that hold tokens, for
/// symbols with two places or more holding 1/[`MIN_SHARE`] of the tokens; smallest mean
/// place first (ties: the symbol's id).
fn kinds(tree: &Tree) -> Vec<Vec<NodeId>> {
    let mut by_symbol: HashMap<SymbolId, Vec<NodeId>> = HashMap::new();
    for i in 0..tree.len() {
        let id = NodeId(i as u32);
        let node = tree.node(id);
        let (NodeKind::Star | NodeKind::Optional, Some(sym)) = (node.kind, node.symbol) else { continue };
        // Outermost: no ancestor of the same symbol.
        if node.tokens == 0 || tree.ancestors(id).any(|a| tree.node(a).symbol == Some(sym)) {
            continue;
        }
        by_symbol.entry(sym).or_default().push(id);
    }
    let total = tree.token_count();
    let mut kinds: Vec<(SymbolId, Vec<NodeId>, usize)> = by_symbol
        .into_iter()
        .filter_map(|(sym, places)| {
            let tokens: usize = places.iter().map(|&n| tree.node(n).tokens as usize).sum();
            (places.len() >= 2 && tokens * MIN_SHARE >= total).then_some((sym, places, tokens))
        })
        .collect();
    // Mean place size, compared without division: a/p < b/q ⇔ a·q < b·p.
    kinds.sort_by(|a, b| (a.2 * b.1.len()).cmp(&(b.2 * a.1.len())).then(a.0.cmp(&b.0)));
    kinds
        .into_iter()
        .map(|(_, mut places, _)| {
            places.sort();
            places
        })
        .collect()
}
