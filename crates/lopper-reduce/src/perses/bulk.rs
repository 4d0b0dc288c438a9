//! Big steps when tests pass: in the permissive regime, where
//! nearly every candidate of the round's order passes and each removes a few tokens of a
//! large program, the first candidates of the next several nodes are judged together, as
//! one candidate. The number of nodes follows the observed pass rate, in the spirit of
//! ProbDD/CDD: after two nodes in a row whose first candidate passed it is 2, it doubles
//! after each combined candidate that passes, and it falls back to 1 (one node at a time,
//! as Perses) after one that fails or a node whose first candidate failed. A combined
//! candidate that passes leaves the state each of its nodes' first candidates would have
//! left one after the other; one that fails costs one test.

use super::{Heap, Plan, Task};
use crate::engine::{Engine, Round};
use crate::oracle::OracleError;
use lopper_tree::{Edit, EditSet, NodeId, NodeKind};
use std::cmp::Reverse;
use std::collections::HashSet;

use crate::stats::BULK;

/// At most this many nodes in one combined candidate.
const MOST: usize = 4096;

/// The observed pass rate of the round's nodes, as the number of nodes to combine.
#[derive(Debug)]
pub(super) struct Streak {
    /// Nodes in a row whose first candidate passed.
    passed: u32,
    /// Nodes the next combined candidate takes (1: none is made).
    pub(super) size: usize,
}

impl Streak {
    pub(super) fn new() -> Streak {
        Streak { passed: 0, size: 1 }
    }

    /// A node judged on its own: `judged` candidates in order, the last interesting if
    /// `won`.
    pub(super) fn observe(&mut self, judged: usize, won: bool) {
        if judged == 0 {
            return;
        }
        if won && judged == 1 {
            self.passed += 1;
            if self.passed >= 2 {
                self.size = self.size.max(2);
            }
        } else {
            self.passed = 0;
            self.size = 1;
        }
    }
}

impl Engine<'_> {
    /// Judges the first candidate of `n` (`first`) together with those of the next nodes
    /// of `heap` that have candidates known now and lie outside each other, up to
    /// `streak.size` nodes in all; returns whether that combined candidate passed (then
    /// the nodes are done, and what follows them is queued). When it fails, or fewer than
    /// two nodes could be combined, the heap is as it was.
    ///
    /// # Errors
    /// The judge's.
    pub(super) fn try_bulk(&mut self, r: &mut Round, n: (NodeId, Task), first: &EditSet, heap: &mut Heap, streak: &mut Streak) -> Result<bool, OracleError> {
        let Some(edit) = first.get(n.0).cloned() else { return Ok(false) };
        let mut members: Vec<((NodeId, Task), Edit)> = vec![(n, edit)];
        // Nodes without candidates are done on the way (as the round would: no test); the
        // heap goes back to this if the combined candidate fails.
        let saved = heap.clone();
        let mut aside = Vec::new();
        // The members and their ancestors: a node among them overlaps a member.
        let mut covered: HashSet<NodeId> = HashSet::new();
        let mut chosen: HashSet<NodeId> = HashSet::from([n.0]);
        cover(r, n.0, &mut covered);
        while members.len() < streak.size.min(MOST) {
            let Some(entry) = heap.pop() else { break };
            let (_, Reverse(m), task) = entry;
            if !r.live[m.0 as usize] {
                continue;
            }
            if covered.contains(&m) || r.tree.ancestors(m).any(|a| chosen.contains(&a)) {
                aside.push(entry);
                continue;
            }
            let member = match self.plan(r, m, task) {
                Plan::Simple((cands, _, t)) => match cands.first() {
                    Some(c) => c.get(m).cloned().map(|e| ((m, t), e)),
                    None => {
                        Self::push_after(r, (m, t), heap);
                        continue;
                    }
                },
                // A list's first candidate: its empty list (not a plus's).
                Plan::List if r.tree.node(m).kind != NodeKind::Plus => Some(((m, Task::Reduce), Edit::Delete)),
                _ => None,
            };
            let Some(member) = member else {
                heap.push(entry);
                break;
            };
            cover(r, m, &mut covered);
            chosen.insert(m);
            members.push(member);
        }
        heap.extend(aside);
        if members.len() < 2 {
            *heap = saved;
            return Ok(false);
        }
        let mut combined = r.state.clone();
        for ((m, _), e) in &members {
            combined.insert(*m, e.clone());
        }
        self.j.set_pass(BULK);
        if self.try_batch(r, vec![combined], &[], None)?.is_some() {
            for (m, _) in members {
                Self::push_after(r, m, heap);
            }
            streak.size = (streak.size * 2).min(MOST);
            return Ok(true);
        }
        *heap = saved;
        streak.passed = 0;
        streak.size = 1;
        Ok(false)
    }
}

/// Adds `n` and its ancestors to `covered` (those above one already there are too).
fn cover(r: &Round, n: NodeId, covered: &mut HashSet<NodeId>) {
    for a in std::iter::once(n).chain(r.tree.ancestors(n)) {
        if !covered.insert(a) {
            return;
        }
    }
}
