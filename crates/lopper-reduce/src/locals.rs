//! Which occurrences of a name are local to a function or a template (a parameter's, a
//! local variable's, a template parameter's), so that the reference graph
//! ([`crate::graph::Names::without_parameters`]) ties no use of such a name to another
//! function's or template's: `__n`, `startRef` or `_Tp` in one declaration says nothing
//! about another.

use crate::symbols::{is, is_body, is_word, DECLARED_NAME, LOCAL_DECLARATORS, PARAMETERS};
use foldhash::{HashSet, HashSetExt};
use lopper_grammar::PnfGrammar;
use lopper_tree::{NodeId, NodeKind, Tree};

/// The grammar symbol of a C++ template declaration: its parameters' names are local to it.
const TEMPLATE: &str = "template_declaration";

/// Per token position of [`Tree::token_ids`] (`live`: one flag per node): whether that
/// occurrence is local. Local are the names that parameter lists declare, with their
/// uses in that function's body; with `locals`, the names declared in a body, in that
/// body; and the names a template's parameter list declares, in the whole template
/// declaration (C++).
pub(crate) fn local_names(tree: &Tree, live: &[bool], g: &PnfGrammar, locals: bool) -> Vec<bool> {
    let mut local = vec![false; tree.token_count()];
    for n in (0..tree.len() as u32).map(NodeId) {
        let node = tree.node(n);
        if live[n.0 as usize] && node.kind != NodeKind::Token && node.symbol.is_some_and(|s| PARAMETERS.contains(&g.symbol(s).name.as_str())) {
            defaults_apart(tree, tree.subtree_token_range(n), &mut local);
        }
    }
    let ids = tree.token_ids();
    for (pos, flag) in local.iter_mut().enumerate() {
        *flag = *flag && tree.node(ids[pos]).symbol.is_some_and(|s| g.symbol(s).name == DECLARED_NAME) && !in_type_arguments(tree, g, ids[pos]);
    }
    // A parameter's uses in its function's body are local too, and so are a local
    // variable's in its block: otherwise the first body naming `startRef` or `i`
    // declares it, and every later function using a parameter or local of that name
    // names the first.
    for b in (0..tree.len() as u32).map(NodeId) {
        let node = tree.node(b);
        if !live[b.0 as usize] || node.kind == NodeKind::Token || !is_body(tree, g, b) {
            continue;
        }
        let Some(function) = node.parent else { continue };
        let (all, body) = (tree.subtree_token_range(function), tree.subtree_token_range(b));
        let declares_local = |i: usize| {
            let id = ids[i];
            locals && live[id.0 as usize] && is(tree, g, id, &[DECLARED_NAME]) && tree.node(id).parent.is_some_and(|p| is(tree, g, p, &LOCAL_DECLARATORS))
        };
        let names: HashSet<&str> =
            (all.start..body.start).filter(|&i| local[i]).chain(body.clone().filter(|&i| declares_local(i))).map(|i| tree.token_text(ids[i])).collect();
        if names.is_empty() {
            continue;
        }
        for i in body {
            if !local[i] && names.contains(tree.token_text(ids[i])) {
                local[i] = true;
            }
        }
    }
    template_parameters(tree, live, g, &mut local);
    local
}

/// Whether token `t` lies in a template argument list of a parameter's type, below the
/// parameter list that holds it: `__is_in_place_type_v` in
/// `enable_if_t<!__is_in_place_type_v<_VTp>, bool> = true` is a use of a declaration
/// outside the list, no name the list declares.
fn in_type_arguments(tree: &Tree, g: &PnfGrammar, t: NodeId) -> bool {
    tree.ancestors(t).take_while(|&p| !is(tree, g, p, &PARAMETERS)).any(|p| is(tree, g, p, &["template_argument_list"]))
}

/// Marks in `local` the tokens of the parameter list spanning token positions `span`
/// but those of a default (`int x = npos`, `_Lock_policy _Lp = __default_lock_policy`):
/// a default names a declaration outside the list, which the list's users need.
fn defaults_apart(tree: &Tree, span: std::ops::Range<usize>, local: &mut [bool]) {
    let ids = tree.token_ids();
    let template = span.clone().next().is_some_and(|i| tree.token_text(ids[i]) == "<");
    let (mut depth, mut default) = (0i32, false);
    for i in span {
        match tree.token_text(ids[i]) {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "<" if template => depth += 1,
            ">" if template => depth -= 1,
            ">>" if template => depth -= 2,
            "=" if depth == 1 => default = true,
            "," if depth == 1 => default = false,
            _ => {}
        }
        local[i] |= !default;
    }
}

/// Marks in `local` every occurrence, inside a live template declaration, of a name its
/// parameter list declares (`typename _Tp`, `class... _Args`, `int _Nm = 0`): libstdc++
/// names the parameters of a thousand templates `_Tp`, and the first declaration holding
/// `_Tp` is no declaration the others use. Read from the list's tokens at its top level:
/// a name after `typename`, `class` or `...`, or before `,`, `>` or `=` where it is not a
/// parameter's first token.
fn template_parameters(tree: &Tree, live: &[bool], g: &PnfGrammar, local: &mut [bool]) {
    let ids = tree.token_ids();
    for t in (0..tree.len() as u32).map(NodeId) {
        if !live[t.0 as usize] || !is(tree, g, t, &[TEMPLATE]) {
            continue;
        }
        let Some(&list) = tree.node(t).children.iter().find(|&&c| live[c.0 as usize] && is(tree, g, c, &["template_parameter_list"])) else { continue };
        let span = tree.subtree_token_range(list);
        let text = |i: usize| tree.token_text(ids[i]);
        let live_at = |i: usize| live[ids[i].0 as usize];
        let positions: Vec<usize> = span.filter(|&i| live_at(i)).collect();
        let mut names: HashSet<&str> = HashSet::new();
        let mut depth = 0i32;
        for (k, &i) in positions.iter().enumerate() {
            match text(i) {
                "<" | "(" | "[" | "{" => depth += 1,
                ">" | ")" | "]" | "}" => depth -= 1,
                ">>" => depth -= 2,
                name if depth == 1 && is_name(name) => {
                    let before = k.checked_sub(1).map(|j| text(positions[j]));
                    let after = positions.get(k + 1).map(|&j| text(j));
                    // `size_t = sizeof(_Tp)`: an unnamed parameter's type, not a name; nor
                    // a default (`_Proj = identity>`, `_Tp = std::byte>`), which names a
                    // declaration outside.
                    let declared = matches!(after, Some("," | ">" | "=")) && !matches!(before, Some("," | "<" | "=" | "::"));
                    if matches!(before, Some("typename" | "class" | "...")) || declared {
                        names.insert(name);
                    }
                }
                _ => {}
            }
        }
        if names.is_empty() {
            continue;
        }
        for i in tree.subtree_token_range(t) {
            if !local[i] && names.contains(text(i)) {
                local[i] = true;
            }
        }
    }
}

/// Whether token text `t` is a name, not a keyword of a template parameter list.
fn is_name(t: &str) -> bool {
    is_word(t) && !matches!(t, "typename" | "class" | "template" | "int" | "bool" | "char" | "unsigned" | "long" | "short" | "signed" | "auto" | "const")
}
