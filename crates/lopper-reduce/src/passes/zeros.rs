//! Zero-filled arrays given their length (C, C++): an array outside every function body
//! whose initializer is all zeros, `long a[] = {0, 0, 0};`, becomes `long a[3];`. An object
//! of static storage duration starts zeroed, so the program means the same and no
//! undefined behaviour appears that `--ub-guard` would refuse. Where literal
//! canonicalization has made a table's values `0`, Perses can delete the initializer but
//! not keep the length: `long a[];` is an array of one element, and an index that was in
//! bounds no longer is. A `const` or `constexpr` declaration is left alone (C++ requires
//! its initializer), and so is a nested list (`{{0, 0}, {0}}`).
//!
//! Instance `k` is the `k`-th such declarator in source order; variants are whole texts
//! (the length is a new token), whose tokens the reducer counts by parsing them.

use super::{span, Context, Group, Instance, Kind, Pass, PassInfo};
use crate::symbols::{in_body, is, DECLARATION, INIT_DECLARATOR};
use std::ops::Range;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Zeros {
    /// Per instance: the source range from the empty brackets' `]` to the initializer's
    /// end, and the array's length.
    instances: Vec<(Range<usize>, usize)>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "zeros",
    plain: "giving zero-filled arrays their length",
    about: "zero-filled arrays: an array outside function bodies initialized with zeros only, T a[] = {0, 0, 0}, becomes T a[3] (static storage starts zeroed: the same program, no undefined behaviour)",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Zeros::default())
}

impl Pass for Zeros {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Zeros::default()))
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        for (n, _) in super::outermost_named(cx, &[INIT_DECLARATOR]) {
            let declaration = t.ancestors(n).find(|&a| is(t, g, a, &[DECLARATION]));
            let constant = declaration.is_some_and(|d| t.subtree_token_ids(d).iter().any(|&x| matches!(t.token_text(x), "const" | "constexpr")));
            if constant || in_body(t, g, n) {
                continue;
            }
            let toks = t.subtree_token_ids(n);
            let texts: Vec<&str> = toks.iter().map(|&x| t.token_text(x)).collect();
            let Some(eq) = texts.iter().position(|&x| x == "=") else { continue };
            if eq < 3 || texts[eq - 2] != "[" || texts[eq - 1] != "]" {
                continue;
            }
            if let Some(length) = zeros(&texts[eq + 1..]) {
                self.instances.push((span(t, toks[eq - 1]).start..span(t, toks[toks.len() - 1]).end, length));
            }
        }
    }

    fn instance(&self, cx: Context<'_>, k: usize) -> Instance {
        let Some((range, length)) = self.instances.get(k) else { return Instance::Exhausted };
        let with = format!("{length}]");
        Instance::Text(super::splice(cx.tree.source(), vec![(range.clone(), with.as_str())]))
    }
}

/// The number of zeros in `tokens` when they are a braced list of zeros only (`{0, 0}`, a
/// trailing comma allowed), else `None`.
fn zeros(tokens: &[&str]) -> Option<usize> {
    let inner = tokens.strip_prefix(&["{"])?.strip_suffix(&["}"])?;
    let inner = inner.strip_suffix(&[","]).unwrap_or(inner);
    let zero = |x: &str| x.trim_end_matches(['u', 'U', 'l', 'L']) == "0";
    let ok = !inner.is_empty() && inner.iter().enumerate().all(|(i, &x)| if i % 2 == 0 { zero(x) } else { x == "," }) && inner.len() % 2 == 1;
    ok.then_some(inner.len().div_ceil(2))
}

#[cfg(test)]
mod tests {
    use super::zeros;

    #[test]
    fn only_a_flat_list_of_zeros_counts() {
        assert_eq!(zeros(&["{", "0", ",", "0L", ",", "0", "}"]), Some(3));
        assert_eq!(zeros(&["{", "0", ",", "}"]), Some(1));
        assert_eq!(zeros(&["{", "0", ",", "1", "}"]), None);
        assert_eq!(zeros(&["{", "}"]), None);
        assert_eq!(zeros(&["{", "{", "0", "}", "}"]), None);
        assert_eq!(zeros(&["0"]), None);
    }
}
