//! The baselines in the same engine as Perses (same oracle, cache, grammar screen and
//! statistics): ddmin over lines, ddmin over tokens (list deletion over every token), and
//! HDD / HDD* (Misherghi & Su, ICSE 2006) over the plain parse tree.

use crate::engine::{Algorithm, Deletion, Empty, Engine, Round};
use crate::judge::Batch;
use crate::minimize::ListRequest;
use crate::oracle::{OracleError, Texts};
use crate::stats::LIST;
use lopper_tree::{NodeId, NodeKind, Tree};

impl Engine<'_> {
    /// ddmin over lines: the program is its lines, candidates keep a subsequence of them.
    pub(crate) fn ddmin_lines(&mut self) -> Result<(), OracleError> {
        self.j.new_round();
        self.j.set_pass(LIST);
        let lines: Vec<String> = self.j.best.split_inclusive('\n').map(str::to_string).collect();
        let frontend = self.frontend;
        let weights = vec![1; lines.len()];
        let list = ListRequest { weights: &weights, may_empty: false, lookahead: self.opts.search.window };
        self.opts.search.minimizer.minimize(list, &mut |keeps: &[Vec<usize>], _: &dyn Fn(usize) -> Vec<Vec<usize>>| {
            let texts = Texts::given(keeps.iter().map(|k| k.iter().map(|&i| lines[i].as_str()).collect()).collect());
            let tokens = |w: usize| frontend.parse(texts.get(w)).map_or(0, |p| p.tree.token_count());
            self.j.judge(Batch::new(&texts, &tokens))
        })?;
        Ok(())
    }

    /// ddmin over tokens: list deletion over every token of `tree`, at least one kept.
    pub(crate) fn ddmin_tokens(&mut self, tree: Tree) -> Result<(), OracleError> {
        let mut r = Round::new(tree);
        self.j.new_round();
        self.j.set_pass(LIST);
        let tokens: Vec<NodeId> = (0..r.tree.len() as u32).map(NodeId).filter(|&n| r.tree.node(n).kind == NodeKind::Token).collect();
        self.ddmin_delete(&mut r, Deletion::of(tokens, Empty::Never)).map(drop)
    }

    /// HDD (Misherghi & Su, Algorithm 1) on the plain parse tree: for each level from the
    /// root down, ddmin over that level's live nodes; HDD* repeats on the re-parsed result.
    pub(crate) fn hdd(&mut self) -> Result<(), OracleError> {
        loop {
            self.j.new_round();
            self.j.set_pass(LIST);
            let tree = match self.frontend.parse_plain(&self.j.best) {
                Ok(t) => t,
                Err(e) => {
                    let rounds = self.j.stats.rounds;
                    self.j.warn(format!("stopped before round {rounds}: the best program no longer parses: {e}"));
                    return Ok(());
                }
            };
            let mut depth = vec![0usize; tree.len()];
            let mut order = vec![tree.root()];
            let mut i = 0;
            while i < order.len() {
                let n = order[i];
                for &c in &tree.node(n).children {
                    depth[c.0 as usize] = depth[n.0 as usize] + 1;
                    order.push(c);
                }
                i += 1;
            }
            let mut r = Round::new(tree);
            let mut level = 0;
            loop {
                // `order` is breadth-first, so one level's nodes are contiguous and in order.
                let nodes: Vec<NodeId> = order.iter().copied().filter(|n| depth[n.0 as usize] == level && r.live[n.0 as usize]).collect();
                if nodes.is_empty() && !order.iter().any(|n| depth[n.0 as usize] > level) {
                    break;
                }
                self.ddmin_delete(&mut r, Deletion::of(nodes, Empty::Never))?;
                level += 1;
            }
            if !r.progress || self.opts.algorithm == Algorithm::Hdd {
                return Ok(());
            }
        }
    }
}
