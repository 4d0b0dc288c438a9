//! Every function definition made a declaration with one test (C-Vise's
//! `replace-function-def-with-decl`, a binary-search pass), then a coarse ddmin over the
//! functions where that fails. Unlike emptying a body (the `instances` search), the edit
//! keeps a program a compiler accepts by construction wherever the function is not needed
//! as a definition:
//!
//! - C and C++: `T f(P) { … }` becomes `T f(P);` (a constructor's member initializers go
//!   too), in a class body as at namespace scope; a member defined outside its class
//!   (`T A::f(P) { … }`, whose declaration the class holds) is deleted whole, template
//!   header included. A function whose return type is deduced (`auto f()` without a
//!   trailing return type) is left alone: a declaration of it cannot be called. So is a
//!   K&R definition (declarations between its `)` and its body).
//! - Java, where only an abstract or native method may lack a body: a body becomes `{}`
//!   (constructors, `void` methods) or `{throw null;}` (the one statement that completes a
//!   method of any return type abruptly).
//! - Rust, where every function has a body: a body becomes `{}` (no return type) or
//!   `{loop{}}` (a diverging body has every return type). A function returning `impl
//!   Trait` is left alone (the never type implements no such trait), as is an `async` one;
//!   a `const fn` is tried as C++'s `constexpr` ones are, after the rest.
//!
//! Why first: under a test that asks a front end to accept every candidate (a crash-on-valid
//! bug), Perses' deletions and an emptied non-`void` body fail (`-Werror=return-type`,
//! javac's "missing return statement"), and the uses inside the bodies keep every
//! declaration alive; declarations instead of definitions remove those uses while the
//! program stays valid, so the unused search and Perses then delete in large chunks.

use crate::engine::{Engine, Round};
use crate::oracle::OracleError;
use crate::passes::{CoarseSearch, Context, Group, Kind, PassInfo};
use crate::symbols::BODIES;
use lopper_tree::{Edit, NodeId, NodeKind, Tree};

/// The search in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "definitions",
    plain: "emptying function bodies",
    about: "every function definition made a declaration with one test (C, C++: T f(P); a member defined outside its class deleted; Java: the body {} or {throw null;}; Rust: {} or {loop{}}), then a coarse ddmin over the functions (C-Vise's replace-function-def-with-decl); keeps a compiler's acceptance; once, before the rest",
    group: Group::First,
    grows: false,
    kind: Kind::Coarse(CoarseSearch::Definitions),
};

/// The grammar symbols of a function definition (the tree-sitter grammars' names).
const FUNCTIONS: [&str; 7] = [
    "function_definition",
    "inline_method_definition",
    "constructor_or_destructor_definition",
    "operator_cast_definition",
    "method_declaration",
    "constructor_declaration",
    "function_item",
];

/// The coarse ddmin's chunk sizes: halves down to 1/64 of the functions, then smaller
/// while most chunks go (few functions are needed as definitions once the misparsed ones
/// are left alone: on the 920k-token unity TU, 66 tests to 511k tokens where stopping at
/// 1/64 took 58 tests to 540k); Perses and the unused search take the rest.
const LEVELS: u32 = 6;

/// Programs under this many tokens are left to Perses: the search costs at least one test.
const MIN_PROGRAM: usize = 200;

impl Engine<'_> {
    /// The search over `tree` (the best's): the tree of the best after it, `None` if the
    /// best no longer parses.
    ///
    /// # Errors
    /// The judge's.
    pub(crate) fn definitions(&mut self, tree: Tree) -> Result<Option<Tree>, OracleError> {
        if tree.token_count() < MIN_PROGRAM {
            return Ok(Some(tree));
        }
        let lang = match self.frontend.name() {
            "java" => Lang::Java,
            "rust" => Lang::Rust,
            "c" | "cpp" => Lang::C,
            _ => return Ok(Some(tree)),
        };
        let places = places(Context { best: &self.j.best, tree: &tree, grammar: self.g }, lang);
        if places.is_empty() {
            return Ok(Some(tree));
        }
        self.j.set_pass(INFO.name);
        let mut r = Round::new(tree);
        // Constant evaluation needs a `constexpr` function's definition: those form a kind
        // of their own, after the rest, so that they do not fail the others' candidates.
        for constant in [false, true] {
            let kind: Vec<&Place> = places.iter().filter(|p| p.constant == constant).collect();
            if kind.is_empty() {
                continue;
            }
            let edits: Vec<&[(NodeId, Edit)]> = kind.iter().map(|p| p.edits.as_slice()).collect();
            let weights: Vec<usize> = kind.iter().map(|p| p.saves).collect();
            self.apply_places(&mut r, &edits, &weights, LEVELS, true)?;
        }
        if !r.progress {
            return Ok(Some(r.tree));
        }
        Ok(self.parse_best())
    }
}

/// How a language's function loses its body.
#[derive(Clone, Copy, PartialEq)]
enum Lang {
    /// C and C++: a declaration.
    C,
    /// The smallest body javac accepts.
    Java,
    /// `{}` or `{loop{}}`.
    Rust,
}

/// One function made a declaration: its edits, the tokens they save, and whether it is
/// `constexpr` or `consteval`.
struct Place {
    edits: Vec<(NodeId, Edit)>,
    saves: usize,
    constant: bool,
}

/// The functions of `tree` this search can rewrite, outermost only, in source order.
fn places(cx: Context<'_>, lang: Lang) -> Vec<Place> {
    let (t, g) = (cx.tree, cx.grammar);
    let name = |n: NodeId| t.node(n).symbol.map(|s| g.symbol(s).name.as_str());
    crate::passes::outermost_named(cx, &FUNCTIONS).into_iter().filter_map(|(f, _)| place(t, f, lang, &name)).collect()
}

/// The rewrite of function `f`, if it has one (see the module docs).
fn place<'g>(t: &Tree, f: NodeId, lang: Lang, name: &dyn Fn(NodeId) -> Option<&'g str>) -> Option<Place> {
    // The body ends the function: follow the last children down to it.
    let mut body = f;
    while !name(body).is_some_and(|s| BODIES.contains(&s)) {
        body = *t.node(body).children.last()?;
    }
    let children = &t.node(body).children;
    let (open, close) = (*children.first()?, *children.last()?);
    if children.len() < 2 || t.node(open).kind != NodeKind::Token || t.token_text(open) != "{" || t.token_text(close) != "}" {
        return None;
    }
    let tokens = t.subtree_token_ids(f);
    let body_start = t.subtree_token_range(body).start - t.subtree_token_range(f).start;
    let head: Vec<&str> = tokens[..body_start].iter().map(|&id| t.token_text(id)).collect();
    let inside: Vec<NodeId> = children[1..children.len() - 1].to_vec();
    let body_tokens = t.node(body).tokens as usize;
    let constant = head.iter().any(|&s| s == "constexpr" || s == "consteval" || lang == Lang::Rust && s == "const");
    // Java and Rust keep a body: an empty one where nothing is returned, else one that
    // completes abruptly.
    if lang != Lang::C {
        let filler = if lang == Lang::Rust {
            let ret = head.iter().position(|&s| s == "->");
            if head.contains(&"async") || ret.is_some_and(|r| head[r..].contains(&"impl")) {
                return None;
            }
            ret.map(|_| "{loop{}")
        } else {
            let void = head.contains(&"void") || name(f) == Some("constructor_declaration");
            if !void && head.contains(&"abstract") {
                return None;
            }
            (!void).then_some("{throw null;")
        };
        return kept_body(&inside, open, body_tokens, filler, constant);
    }
    // K&R parameter declarations, or a deduced return type without a trailing one.
    if head.last() == Some(&";") {
        return None;
    }
    if head.iter().any(|&s| s == "auto" || s == "decltype") && !head.contains(&"->") {
        return None;
    }
    // An operator without a return type is a misparse (tree-sitter-cpp reads `[[a]] friend
    // T operator<=>(…) {…}` as a member `T` and a constructor-like `operator<=>`).
    if name(f) == Some("constructor_or_destructor_definition") && head.first() == Some(&"operator") {
        return None;
    }
    // A friend declaration may not carry attributes where its definition may.
    // (tree-sitter-cpp may put the attribute, and `friend`, before the function's node.)
    let start = t.subtree_token_range(f).start;
    let lead = t.token_ids()[start.saturating_sub(16)..start].iter().rev().map(|&id| t.token_text(id)).take_while(|s| !matches!(*s, ";" | "{" | "}"));
    let (mut friend, mut attribute) = (false, false);
    for s in lead.chain(head.iter().copied()) {
        friend |= s == "friend";
        attribute |= s.starts_with("[[") || s.ends_with("]]");
    }
    if friend && attribute {
        return None;
    }
    // tree-sitter-cpp reads some class and namespace definitions as functions (`struct
    // S<R (C::*)() const> : B {…}`, `namespace std __attribute__((…)) {…}`): a function
    // has a declarator (a conversion operator's is abstract), and no base clause or
    // `namespace` before its body.
    let declarator = outside_body(t, f, body, name, &["function_declarator", "function_field_declarator"]);
    if declarator.is_none() && name(f) != Some("operator_cast_definition")
        || head.contains(&"namespace")
        || matches!(head.first(), Some(&("struct" | "class" | "union"))) && head.contains(&":")
    {
        return None;
    }
    // A member defined outside its class: its declarator's name is qualified (`T
    // A<T>::f(…)`; the head's first `(` may be an attribute's, its `::` a return type's).
    // A conversion operator has no declarator: its tokens say (`A::operator bool()`).
    let paren = head.iter().position(|&s| s == "(")?;
    let out_of_line = match declarator {
        Some(d) => qualified(t, d, name),
        None => head[..paren].contains(&"::"),
    };
    if out_of_line {
        let element = crate::passes::list_element(t, f)?;
        let whole = element == f || name(element) == Some("template_declaration") && t.node(element).children.contains(&f);
        return whole.then(|| Place { edits: vec![(element, Edit::Delete)], saves: t.node(element).tokens as usize, constant });
    }
    let mut edits: Vec<(NodeId, Edit)> = inside.iter().map(|&n| (n, Edit::Delete)).collect();
    edits.push((open, Edit::Text(";".into())));
    edits.push((close, Edit::Delete));
    let mut saves = body_tokens - 1;
    if let Some(init) = outside_body(t, f, body, name, &["field_initializer_list"]) {
        edits.push((init, Edit::Delete));
        saves += t.node(init).tokens as usize;
    }
    Some(Place { edits, saves, constant })
}

/// A body whose statements `inside` go: `{}`, or with `filler` in place of its `{` (one
/// statement that completes abruptly: `{throw null;`, `{loop{}`, four tokens more than
/// `{`, so worth it only for a body longer than that).
fn kept_body(inside: &[NodeId], open: NodeId, body_tokens: usize, filler: Option<&str>, constant: bool) -> Option<Place> {
    let mut edits: Vec<(NodeId, Edit)> = inside.iter().map(|&n| (n, Edit::Delete)).collect();
    let Some(filler) = filler else {
        return (body_tokens > 2).then_some(Place { edits, saves: body_tokens - 2, constant });
    };
    if body_tokens <= 6 {
        return None;
    }
    edits.push((open, Edit::Text(filler.into())));
    Some(Place { edits, saves: body_tokens - 6, constant })
}

/// The first node of function `f` outside its `body`, in source order, whose grammar symbol
/// is one of `symbols`: its function declarator (a member's is a
/// `function_field_declarator` in the grammar, aliased in the tree-sitter CST), or a
/// constructor's member initializer list (`: a(1), b(2)`).
fn outside_body<'g>(t: &Tree, f: NodeId, body: NodeId, name: &dyn Fn(NodeId) -> Option<&'g str>, symbols: &[&str]) -> Option<NodeId> {
    let mut stack = vec![f];
    while let Some(n) = stack.pop() {
        if name(n).is_some_and(|s| symbols.contains(&s)) {
            return Some(n);
        }
        if n != body {
            stack.extend(t.node(n).children.iter().rev());
        }
    }
    None
}

/// Whether function declarator `d` names a qualified function (`A<T>::f`, `ns::g`): a
/// `::` before its first parameter list.
fn qualified<'g>(t: &Tree, d: NodeId, name: &dyn Fn(NodeId) -> Option<&'g str>) -> bool {
    let mut stack = vec![d];
    while let Some(n) = stack.pop() {
        if name(n) == Some("parameter_list") {
            return false;
        }
        if t.node(n).kind == NodeKind::Token && t.token_text(n) == "::" {
            return true;
        }
        stack.extend(t.node(n).children.iter().rev());
    }
    false
}
