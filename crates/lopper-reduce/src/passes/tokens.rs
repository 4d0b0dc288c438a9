//! Local exhaustive deletion (Vulcan, Xu et al., OOPSLA'23): deletions that Perses cannot
//! express because PNF calls the tokens mandatory — runs of 4, 3, 2 and 1 adjacent tokens
//! (4: a declaration's `int *x =` in front of its initializer),
//! then pairs of tokens at most [`WINDOW`] apart (a cast's or a condition's parentheses, a
//! keyword and its semicolon), then the first, third and fourth of four adjacent tokens
//! (`int * e =` keeping `*`: a declaration `int *e = E;` becoming the statement `*E;`; the
//! other shape of triple, keeping the third, cost tests on the corpus and won nothing). The
//! grammar check screens every variant, so only what still parses is tested.

use super::{Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_tree::{Edit, EditSet, NodeId};

/// The farthest apart two tokens of a deleted pair may be (in tokens).
pub const WINDOW: usize = 6;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Tokens {
    tokens: Vec<NodeId>,
}

impl Tokens {
    /// The token positions instance `k` deletes, in a fixed order: runs of 4, 3, 2, 1, then
    /// pairs `(i, i + d)` for `d` in `2..=WINDOW`, then the triples `(i, i + 2, i + 3)`.
    fn positions(&self, k: usize) -> Option<Vec<usize>> {
        let n = self.tokens.len();
        let mut k = k;
        for run in [4, 3, 2, 1] {
            let count = (n + 1).saturating_sub(run);
            if k < count {
                return Some((k..k + run).collect());
            }
            k -= count;
        }
        for d in 2..=WINDOW {
            let count = n.saturating_sub(d);
            if k < count {
                return Some(vec![k, k + d]);
            }
            k -= count;
        }
        let count = n.saturating_sub(3);
        if k < count {
            return Some(vec![k, k + 2, k + 3]);
        }
        None
    }
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo { name: "tokens", plain: "deleting tokens", about: "local exhaustive deletion of 1-4 adjacent tokens, of token pairs within a window and of the 1st, 3rd and 4th of 4 tokens, screened by the grammar (Vulcan, Xu et al. OOPSLA'23)", group: Group::Main, grows: false, kind: Kind::Transformation(create) };

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Tokens::default())
}

impl Pass for Tokens {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Tokens::default()))
    }

    fn keeps_words(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.tokens = cx.tree.token_ids().to_vec();
    }

    fn instance(&self, _cx: Context<'_>, k: usize) -> Instance {
        match self.positions(k) {
            None => Instance::Exhausted,
            Some(p) => Instance::Variant(p.into_iter().fold(EditSet::default(), |e, i| e.with(self.tokens[i], Edit::Delete))),
        }
    }
}
