//! The scheduler of the passes after Perses: Regehr's semantics over the shared judge.

use super::Reducer;
use crate::judge::{LocalKey, Memo};
use crate::oracle::OracleError;
use crate::passes::{self, Context, Instance, Measure};
use lopper_tree::Tree;

impl Reducer<'_> {
    /// One round of the passes after Perses, each with Regehr's scheduling: instance `k` from
    /// 0; after an accepted variant the same `k` again (on the new best), after a rejected
    /// one `k + 1`; the pass ends at its first missing instance. Variants not smaller than
    /// the best under [`Measure`] are skipped untested. With `jobs > 1` the next instances
    /// are judged as one batch, each assuming the ones before fail, so the result is the
    /// sequential one. A variant whose local change (the lines it touches, with one line of
    /// context) was not interesting in an earlier round is presumed not interesting and not
    /// tested again: after Perses has shrunk the program elsewhere, the same edit in the
    /// same neighbourhood nearly always fails again. Returns whether any pass changed the best.
    pub(super) fn run_passes(&mut self, after: &mut [Box<dyn passes::Pass>], mut tree: Tree) -> Result<bool, OracleError> {
        self.j.stats.rounds += 1;
        let mut changed = false;
        for (i, pass) in after.iter_mut().enumerate() {
            if self.disabled.contains(&i) {
                continue;
            }
            self.j.set_pass(pass.name());
            pass.prepare(Context { best: &self.j.best, tree: &tree, grammar: self.g });
            let mut k = 0;
            'pass: loop {
                let cx = Context { best: &self.j.best, tree: &tree, grammar: self.g };
                let best_tokens = tree.token_count();
                let (mut texts, mut ks, mut tokens) = (Vec::new(), Vec::new(), Vec::new());
                let mut j = k;
                let mut exhausted = false;
                while texts.len() < self.opts.jobs.max(1) {
                    let variant = match pass.instance(cx, j) {
                        Instance::Exhausted => {
                            exhausted = true;
                            break;
                        }
                        Instance::Error(why) => {
                            self.j.warn(format!("pass {} failed and is disabled: {why}", pass.name()));
                            self.disabled.insert(i);
                            exhausted = true;
                            break;
                        }
                        Instance::Skip => None,
                        Instance::Variant(e) => Some((tree.render(&e, self.render), tree.count_tokens(&e))),
                        // A variant that does not parse counts as the largest: never tested.
                        Instance::Text(text) => {
                            let n = self.frontend.parse_plain(&text).map_or(usize::MAX, |t| t.token_count());
                            Some((text, n))
                        }
                    };
                    if let Some((text, n)) = variant {
                        if Measure::of(&text, n) < Measure::of(&self.j.best, best_tokens) {
                            texts.push(text);
                            ks.push(j);
                            tokens.push(n);
                        }
                    }
                    j += 1;
                }
                if pass.interrupted() {
                    return Err(OracleError::Interrupted);
                }
                if texts.is_empty() {
                    break;
                }
                match self
                    .j
                    .first_interesting_as(&texts, &[], Memo::Presume(LocalKey { pass: pass.name(), modulo_words: pass.keeps_words() }), |w| tokens[w])?
                {
                    Some(w) => {
                        changed = true;
                        k = ks[w];
                        let Some(t) = self.parse_best() else { return Ok(false) };
                        tree = t;
                        pass.prepare(Context { best: &self.j.best, tree: &tree, grammar: self.g });
                    }
                    None if exhausted => break 'pass,
                    None => k = j,
                }
            }
        }
        Ok(changed)
    }
}
