//! The search of [`passes::unused`]: at the start of a Perses round, each list's unused
//! declarations are minimized together, again while that frees more.

use super::{Empty, Reducer, Round};
use crate::oracle::OracleError;
use crate::passes::{
    self,
    unused::{element_text, Names},
};
use lopper_tree::NodeId;

impl Reducer<'_> {
    /// Per list of the round's tree, outer lists first: ddmin over its unreferenced
    /// elements (see [`passes::unused`]) when there are at least two, deleting all of them
    /// the first candidate; then, as long as that deleted some, again over the elements the
    /// deletions left unreferenced, even one. An element ddmin kept is needed by the test itself and is not offered
    /// again while its text is the same (the first candidate of the next level then passes
    /// unless the level holds another needed element), so a chain of declarations used
    /// only by each other costs about one test per link.
    pub(super) fn remove_unused(&mut self, r: &mut Round) -> Result<(), OracleError> {
        self.j.set_pass(passes::unused::UNUSED.0);
        for list in passes::unused::lists(&r.tree, &r.state) {
            // A list's first level needs two elements (one alone is Perses' to delete);
            // a level that deletions freed goes on from one.
            let mut least = 2;
            loop {
                if !r.live[list.0 as usize] {
                    break;
                }
                let names = Names::new(&r.tree, &r.live, self.g);
                let offered = |e: &NodeId| r.live[e.0 as usize] && names.unreferenced(*e, &r.live) && !self.pinned.contains(element_text(&r.tree, *e));
                let unreferenced: Vec<NodeId> = r.tree.node(list).children.iter().copied().filter(offered).collect();
                if unreferenced.len() < least {
                    break;
                }
                least = 1;
                let kept = self.ddmin_delete(r, unreferenced.clone(), None, Empty::DeleteItems)?;
                self.pinned.extend(kept.iter().map(|&e| element_text(&r.tree, e).to_string()));
                if kept.len() == unreferenced.len() {
                    break;
                }
            }
        }
        Ok(())
    }
}
