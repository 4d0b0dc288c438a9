//! Scope hoisting (C-Vise's `remove-namespace`, without the language): a C++ namespace or
//! linkage specification (`namespace n { D… }`, `extern "C++" { D… }`, `extern "C" D`), or a
//! C or C++ `#ifdef N … #endif` / `#ifndef N … #endif` without `#else` (an include guard),
//! is replaced by what it holds, which moves into the enclosing list. Perses
//! cannot do this: a replacement puts one node in the place of another, and the body is a
//! list of several. A hoist that breaks a qualified name (`n::f`) is rejected by the test,
//! or by a compiler's acceptance under a validity-keeping test. Instance `k` is the `k`-th
//! such scope in source order, nested ones included.

use super::{span, Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_tree::NodeId;

/// The grammar symbols of a scope that is hoisted (tree-sitter-cpp's names).
const SCOPES: [&str; 3] = ["namespace_definition", "linkage_specification", "preproc_ifdef"];

/// The pass; see the module docs.
#[derive(Default)]
pub struct Hoist {
    instances: Vec<String>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "hoist",
    plain: "unwrapping namespaces and blocks",
    about: "scope hoisting: a C++ namespace or linkage specification (namespace n { ... }, extern \"C++\" { ... }), or an #ifdef/#ifndef without #else, replaced by what it holds (C-Vise's remove-namespace, without the language)",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Hoist::default())
}

impl Pass for Hoist {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Hoist::default()))
    }

    fn keeps_words(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        let name = |n: NodeId| t.node(n).symbol.map(|s| g.symbol(s).name.as_str());
        let src = t.source();
        for scope in super::all_named(cx, &SCOPES) {
            let whole = t.subtree_token_ids(scope);
            let Some(inner) = inside(t, scope, name(scope) == Some("preproc_ifdef"), name(scope) == Some("linkage_specification")) else { continue };
            let (start, end) = (span(t, whole[0]).start, span(t, whole[whole.len() - 1]).end);
            self.instances.push(format!("{}{}{}", &src[..start], src[inner].trim(), &src[end..]));
        }
    }

    fn instance(&self, _cx: Context<'_>, k: usize) -> Instance {
        self.instances.get(k).map_or(Instance::Exhausted, |text| Instance::Text(text.clone()))
    }
}

/// The text scope `scope` holds, as a byte range of the source: between `N` and `#endif`
/// of an `#ifdef N … #endif` without `#else` (`conditional`); inside the braces of a
/// declaration list; the one declaration of a `linkage` specification without braces.
/// `None` for a scope of another shape.
fn inside(t: &lopper_tree::Tree, scope: NodeId, conditional: bool, linkage: bool) -> Option<std::ops::Range<usize>> {
    if conditional {
        let whole = t.subtree_token_ids(scope);
        let words: Vec<&str> = whole.iter().map(|&id| t.token_text(id)).collect();
        if whole.len() < 4 || words.iter().any(|w| w.starts_with("#el")) || words[words.len() - 1] != "#endif" {
            return None;
        }
        return Some(span(t, whole[2]).start..span(t, whole[whole.len() - 1]).start);
    }
    // The body ends the scope.
    let body = *t.node(scope).children.last()?;
    match t.subtree_token_ids(body) {
        [open, .., close] if t.token_text(*open) == "{" && t.token_text(*close) == "}" => Some(span(t, *open).end..span(t, *close).start),
        [first, .., last] | [first @ last] if linkage => Some(span(t, *first).start..span(t, *last).end),
        _ => None,
    }
}
