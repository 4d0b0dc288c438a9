//! Deletions that take their uses with them (after DRReduce, 2026), on the unused search's
//! name tables ([`Names`]).

use super::Names;
use foldhash::{HashMap, HashMapExt};
use lopper_grammar::PnfGrammar;
use lopper_tree::{NodeId, Tree};

/// Deletions that take their uses with them (after DRReduce, 2026): for the elements of one
/// list, which others use a name each declares (holds the first occurrence of), so that a
/// list minimizer's candidate deleting some elements also deletes, transitively, every
/// element of the list that would be left naming what went. Within one list only, and by
/// name, not by scope (as the rest of this module): a wrong guess costs a failed test,
/// never a wrong result. The closure only grows with the deletion, so the minimizer's later
/// candidates (subsets of an accepted keep) stay consistent with what an accepted one took.
#[derive(Debug)]
pub(crate) struct Dependents {
    /// Per element (index): the elements that use a name it declares.
    users: Vec<Vec<usize>>,
}

/// A list gets [`Dependents`] only with at least this many elements: a shorter list's ddmin
/// tries each element on its own anyway.
pub(crate) const DEPENDENTS_MIN_ITEMS: usize = 3;

impl Dependents {
    /// The dependents among `items` (a list's live elements, in order) of `tree` under a
    /// state whose live nodes are `live`; `None` where no element uses another's name.
    pub(crate) fn new(tree: &Tree, live: &[bool], g: &PnfGrammar, items: &[NodeId]) -> Option<Dependents> {
        let names = Names::new(tree, live, g);
        let mut declarer: HashMap<&str, usize> = HashMap::new();
        let mut holders: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, &e) in items.iter().enumerate() {
            let Some((span, ids)) = names.positions(e) else { continue };
            for (pos, &id) in span.zip(ids) {
                if !names.identifier[pos] || !live[id.0 as usize] {
                    continue;
                }
                let name = tree.token_text(id);
                if names.names[name].1 == pos {
                    declarer.insert(name, i);
                }
                let h = holders.entry(name).or_default();
                if h.last() != Some(&i) {
                    h.push(i);
                }
            }
        }
        let mut users = vec![Vec::new(); items.len()];
        let mut any = false;
        for (name, d) in declarer {
            for &u in holders.get(name).into_iter().flatten() {
                if u != d {
                    users[d].push(u);
                    any = true;
                }
            }
        }
        for u in &mut users {
            u.sort_unstable();
            u.dedup();
        }
        any.then_some(Dependents { users })
    }
}

impl crate::engine::Closure for Dependents {
    /// Marks in `deleted` (one flag per element) every element that uses, transitively, a
    /// name an already marked element declares.
    fn close(&self, deleted: &mut [bool]) {
        let mut stack: Vec<usize> = (0..deleted.len()).filter(|&i| deleted[i]).collect();
        while let Some(d) = stack.pop() {
            for &u in &self.users[d] {
                if !deleted[u] {
                    deleted[u] = true;
                    stack.push(u);
                }
            }
        }
    }
}
