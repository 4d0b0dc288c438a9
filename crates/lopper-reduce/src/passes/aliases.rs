//! Type aliases inlined whatever their length: a type alias declared in a list element `D`
//! — C and C++ `typedef T X;`, C++ `using X = T;`, Rust `type X = T;`, Go `type X = T` —
//! is deleted, and every later use of `X` becomes the text of `T`, however many tokens it
//! has (a qualified name, a pointer, a template instance). [`super::inline`] puts one word
//! in place of a name and so leaves such aliases in results; clang_delta's
//! replace-simple-typedef covers C's simplest ones only.
//!
//! Aliases are recognized by their grammar symbol (`type_definition`, `alias_declaration`,
//! `type_item`, `type_alias`, the tree-sitter grammars' names); one with type parameters
//! (`type X<T> = …`), several declarators (`typedef int A, B;`) or a declarator that is not
//! the name alone or behind `*` (arrays, functions) is left alone. Instance `k` is the
//! `k`-th alias in source order. Variants are whole texts, whose tokens the reducer counts
//! by parsing them, so an alias used so often that inlining it adds tokens is never tested;
//! what the language does not accept (or the test no longer shows) costs one test.

use super::{span, Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_tree::{NodeId, Tree};
use std::ops::Range;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Aliases {
    instances: Vec<Inlining>,
}

/// One alias inlined: the declaration's source range (deleted), the aliased type's, and
/// each later use's (each replaced by the type's text). The variant's text is made only
/// when its instance is asked for.
struct Inlining {
    declaration: Range<usize>,
    definition: Range<usize>,
    uses: Vec<Range<usize>>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "aliases",
    plain: "inlining type aliases",
    about: "type aliases inlined whatever their length: C/C++ typedef, C++ using X = ..., Rust type X = ...;, Go type X = ..., deleted and every use replaced by the aliased type's text",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Aliases::default())
}

/// The grammar symbol of C's `typedef TYPE NAME;`.
const TYPEDEF: &str = "type_definition";

/// The grammar symbols that declare an alias: `NAME = TYPE` after their keyword, and C's
/// typedef.
const ALIASES: [&str; 4] = ["alias_declaration", "type_item", "type_alias", TYPEDEF];

impl Pass for Aliases {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Aliases::default()))
    }

    fn keeps_words(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        let aliases = super::outermost_named(cx, &ALIASES);
        if aliases.is_empty() {
            return;
        }
        let identifier = |id: NodeId| t.node(id).symbol.is_some_and(|s| g.is_identifier(s));
        let (_, occurrences) = super::occurrences(cx);
        for (a, name) in aliases {
            let is_typedef = name == TYPEDEF;
            let Some((name, definition)) = (if is_typedef { typedef(t, a, &identifier) } else { with_equals(t, a, &identifier) }) else { continue };
            let Some(d) = super::list_element(t, a) else { continue };
            // The declaration is the alias, or Go's `type` and the alias: a template alias
            // (`template <…> using X = …`) is left alone.
            let (outer, own) = (t.subtree_token_ids(d), t.subtree_token_ids(a));
            let before = outer.iter().position(|&id| id == own[0]).unwrap_or(0);
            let after = outer.len() - before - own.len();
            if !(before == 0 || before == 1 && t.token_text(outer[0]) == "type") || !(after == 0 || after == 1 && t.token_text(outer[outer.len() - 1]) == ";") {
                continue;
            }
            // Uses: the name's later occurrences outside the declaration, which must hold
            // the name's first occurrence.
            let all = &occurrences[t.token_text(name)];
            if all[0] != name {
                continue;
            }
            let declaration = span(t, outer[0]).start..span(t, outer[outer.len() - 1]).end;
            let uses: Vec<Range<usize>> = all.iter().map(|&id| span(t, id)).filter(|r| r.start >= declaration.end).collect();
            if !uses.is_empty() {
                self.instances.push(Inlining { declaration, definition, uses });
            }
        }
    }

    fn instance(&self, cx: Context<'_>, k: usize) -> Instance {
        let Some(i) = self.instances.get(k) else { return Instance::Exhausted };
        let src = cx.tree.source();
        let mut cuts: Vec<(Range<usize>, &str)> = i.uses.iter().map(|u| (u.clone(), &src[i.definition.clone()])).collect();
        cuts.push((i.declaration.clone(), ""));
        Instance::Text(super::splice(src, cuts))
    }
}

/// `… NAME = TYPE [;]`: the name (the one token before `=`, an identifier) and the source
/// range of the type.
fn with_equals(t: &Tree, a: NodeId, identifier: &dyn Fn(NodeId) -> bool) -> Option<(NodeId, Range<usize>)> {
    let tokens = t.subtree_token_ids(a);
    let eq = tokens.iter().position(|&id| t.token_text(id) == "=")?;
    let name = *tokens.get(eq.checked_sub(1)?)?;
    let end = if t.token_text(*tokens.last()?) == ";" { tokens.len() - 1 } else { tokens.len() };
    let def = tokens.get(eq + 1..end).filter(|d| !d.is_empty())?;
    identifier(name).then(|| (name, span(t, def[0]).start..span(t, def[def.len() - 1]).end))
}

/// `typedef TYPE [*…] NAME;`: the name (the identifier before the final `;`) and the source
/// range from the type to the last `*` before the name; `None` for other declarators.
fn typedef(t: &Tree, a: NodeId, identifier: &dyn Fn(NodeId) -> bool) -> Option<(NodeId, Range<usize>)> {
    let tokens = t.subtree_token_ids(a);
    let n = tokens.len();
    if n < 4 || t.token_text(tokens[0]) != "typedef" || t.token_text(tokens[n - 1]) != ";" || !identifier(tokens[n - 2]) {
        return None;
    }
    let def = &tokens[1..n - 2];
    // The type must end in a word or `>` or `*` (a pointer), and the name be its only
    // declarator: no `,`, `(` or `[` after the type's own brackets close.
    let mut depth = 0i32;
    for &id in def {
        match t.token_text(id) {
            "{" | "<" | "(" | "[" => depth += 1,
            "}" | ">" | ")" | "]" => depth -= 1,
            "," if depth == 0 => return None,
            _ => {}
        }
    }
    Some((tokens[n - 2], span(t, def[0]).start..span(t, def[def.len() - 1]).end))
}
