//! The search of [`passes::unused`]: at the start of a Perses round, each list's unused
//! declarations are minimized together, again while that frees more.

use super::{Empty, Reducer, Round};
use crate::oracle::OracleError;
use crate::passes::{self, unused::Names};
use lopper_tree::{Edit, NodeId};

/// The search runs on a list only when what it may delete holds at least 1/`MIN_SHARE` of
/// the list's tokens (measured on the corpus: 8 was best of 4, 8 and none).
const MIN_SHARE: usize = 8;

impl Reducer<'_> {
    /// Per list of the round's tree, outer lists first: ddmin over its unreferenced
    /// elements (see [`passes::unused`]) when there are at least two holding at least
    /// 1/[`MIN_SHARE`] of the list's tokens, deleting all of them the first candidate; then,
    /// as long as that deleted some, again over the elements the deletions left
    /// unreferenced, even one. An element ddmin kept is needed by the test itself: the
    /// name it declares first is pinned, for the rest of the reduction. In a list with a
    /// pinned element, the first candidate deletes every element that only the unpinned
    /// others use ([`Names::dead`]: whole chains of declarations at once), and ddmin over
    /// the unreferenced elements runs only when that fails.
    pub(super) fn remove_unused(&mut self, r: &mut Round) -> Result<(), OracleError> {
        self.j.set_pass(passes::unused::UNUSED.0);
        for list in passes::unused::lists(&r.tree, &r.state) {
            // A list's first level needs two elements (one alone is Perses' to delete);
            // a level that deletions freed goes on from one.
            let mut least = 2;
            while r.live[list.0 as usize] {
                let names = Names::new(&r.tree, &r.live, self.g);
                let pinned = |e: NodeId| names.declared(e, &r.live).is_some_and(|n| self.pinned.contains(n));
                let elements: Vec<NodeId> = r.tree.node(list).children.iter().copied().filter(|e| r.live[e.0 as usize]).collect();
                let unreferenced: Vec<NodeId> = elements.iter().copied().filter(|&e| names.unreferenced(e, &r.live) && !pinned(e)).collect();
                if unreferenced.len() < least {
                    break;
                }
                // Once what the test needs is pinned, all that only the rest uses goes in
                // one candidate first, a whole chain at once.
                let dead = if elements.iter().any(|&e| pinned(e)) { names.dead(&elements, &pinned, &r.live) } else { Vec::new() };
                least = 1;
                // A deletion that frees little of the list is left to Perses' ddmin: a
                // passing test costs as much whatever it removes.
                let size = |v: &[NodeId]| v.iter().map(|&e| r.tree.node(e).tokens as usize).sum::<usize>();
                if size(&unreferenced).max(size(&dead)) * MIN_SHARE < size(&elements) {
                    break;
                }
                if dead.len() > unreferenced.len() {
                    let mut all = r.state.clone();
                    all.0.extend(dead.iter().map(|&d| (d, Edit::Delete)));
                    if self.try_batch(r, vec![all])?.is_some() {
                        continue;
                    }
                }
                let offered = unreferenced.len();
                let kept = self.ddmin_delete(r, unreferenced, None, Empty::DeleteItems)?;
                let names = Names::new(&r.tree, &r.live, self.g);
                self.pinned.extend(kept.iter().filter_map(|&e| names.declared(e, &r.live)).map(str::to_string));
                if kept.len() == offered {
                    break;
                }
            }
        }
        Ok(())
    }
}
