//! Identifier canonicalization (T-Rec's lexical canonicalization; Vulcan's identifier
//! replacement): instance 0 renames every distinct identifier at once; then instance `k`
//! renames the `k`-th distinct identifier, in order of first occurrence, everywhere it occurs, to the shortest name not yet used (`a`, `b`, …, `z`,
//! `aa`, …), when that name is smaller in shortlex order. Identifiers are the tokens of the
//! grammar's identifier symbol (tree-sitter's `word`, a grammar file's
//! `//! lopper: identifier = rule`) and its aliases; names the grammar uses as literal
//! tokens (keywords) are never chosen.

use super::{Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_grammar::{PnfRule, Terminal};
use lopper_tree::{Edit, EditSet, NodeId};
use std::collections::HashSet;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Identifiers {
    /// Per distinct name, in order of first occurrence: the name's tokens and its new name.
    renames: Vec<(Vec<NodeId>, String)>,
}

/// The `i`-th name of `a`, …, `z`, `aa`, `ab`, … (shortlex order).
fn nth_name(mut i: usize) -> String {
    let mut len = 1;
    let mut block = 26;
    while i >= block {
        i -= block;
        len += 1;
        block *= 26;
    }
    let mut s = vec![b'a'; len];
    for c in s.iter_mut().rev() {
        *c = b'a' + (i % 26) as u8;
        i /= 26;
    }
    String::from_utf8(s).expect("ASCII")
}

/// Shortlex order: shorter first, then bytewise.
fn shortlex_less(a: &str, b: &str) -> bool {
    (a.len(), a) < (b.len(), b)
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "identifiers",
    plain: "renaming identifiers",
    about: "identifier canonicalization: every identifier renamed at once to the shortest unused names, then one identifier at a time (T-Rec, TOSEM'24; Vulcan identifier replacement)",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Identifiers::default())
}

impl Pass for Identifiers {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Identifiers::default()))
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.renames.clear();
        let g = cx.grammar;
        let mut groups: Vec<(String, Vec<NodeId>)> = Vec::new();
        for &id in cx.tree.token_ids() {
            if !cx.tree.node(id).symbol.is_some_and(|s| g.is_identifier(s)) {
                continue;
            }
            let text = cx.tree.token_text(id);
            match groups.iter_mut().find(|(t, _)| t == text) {
                Some((_, ids)) => ids.push(id),
                None => groups.push((text.to_string(), vec![id])),
            }
        }
        // Names already taken: every identifier, and every literal token of the grammar.
        let keywords = g.symbols.iter().filter_map(|s| match &s.rule {
            PnfRule::Terminal(Terminal::Str(t)) => Some(t.clone()),
            _ => None,
        });
        let mut used: HashSet<String> = groups.iter().map(|(t, _)| t.clone()).chain(keywords).collect();
        let mut next = 0;
        for (text, ids) in groups {
            while used.contains(&nth_name(next)) {
                next += 1;
            }
            let fresh = nth_name(next);
            if shortlex_less(&fresh, &text) {
                used.insert(fresh.clone());
                self.renames.push((ids, fresh));
            }
        }
    }

    /// Instance 0 renames every identifier at once where there are two or more (one test
    /// where every rename passes, as on most programs once the test no longer needs a
    /// name); then one name per instance.
    fn instance(&self, _cx: Context<'_>, k: usize) -> Instance {
        let all = self.renames.len() >= 2;
        let renames = match (all, k) {
            (true, 0) => &self.renames[..],
            (true, k) => self.renames.get(k - 1..k).unwrap_or(&[]),
            (false, k) => self.renames.get(k..=k).unwrap_or(&[]),
        };
        if renames.is_empty() {
            return Instance::Exhausted;
        }
        let mut e = EditSet::default();
        for (ids, name) in renames {
            for id in ids {
                e.insert(*id, Edit::Text(name.clone()));
            }
        }
        Instance::Variant(e)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_run_in_shortlex_order() {
        let names: Vec<String> = [0, 1, 25, 26, 27, 26 + 26 * 26].iter().map(|&i| super::nth_name(i)).collect();
        assert_eq!(names, ["a", "b", "z", "aa", "ab", "aaa"]);
        assert!(super::shortlex_less("b", "aa") && !super::shortlex_less("aa", "b"));
    }
}
