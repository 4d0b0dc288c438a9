//! The grammar symbols (the tree-sitter grammars' rule names) that the searches following
//! names and scopes recognize, in one leaf module that imports nothing of the crate.

use lopper_grammar::PnfGrammar;
use lopper_tree::{NodeId, NodeKind, Tree};

/// The text of token `ids[i]` of `tree`, or `""` where `i` is past the end (a scan that
/// looks one or more tokens ahead or behind needs no bounds check of its own).
pub(crate) fn token_text_at<'t>(tree: &'t Tree, ids: &[NodeId], i: usize) -> &'t str {
    ids.get(i).map_or("", |&x| tree.token_text(x))
}

/// Whether node `n` of `tree` is one of `symbols` (a token's symbol too).
pub(crate) fn is(tree: &Tree, g: &PnfGrammar, n: NodeId, symbols: &[&str]) -> bool {
    tree.node(n).symbol.is_some_and(|s| symbols.contains(&g.symbol(s).name.as_str()))
}

/// Whether `n` lies inside a function body ([`is_body`]): a local scope.
pub(crate) fn in_body(tree: &Tree, g: &PnfGrammar, n: NodeId) -> bool {
    tree.ancestors(n).any(|a| is_body(tree, g, a))
}

/// Whether `n` is a function body or block ([`BODIES`]), not the body of a construct the
/// parser could not read, which it glues to that construct's head in one opaque node
/// (`namespace std __attribute__ ((…)) {…}`: a namespace scope).
pub(crate) fn is_body(tree: &Tree, g: &PnfGrammar, n: NodeId) -> bool {
    is(tree, g, n, &BODIES) && !tree.node(n).parent.is_some_and(|p| tree.node(p).kind == NodeKind::Opaque)
}

/// The grammar symbols of a function body: a scope of its own.
pub(crate) const BODIES: [&str; 3] = ["compound_statement", "block", "constructor_body"];

/// The grammar symbols of parameter lists: a name declared inside one is local to its
/// function.
pub(crate) const PARAMETERS: [&str; 5] = ["parameter_list", "formal_parameters", "parameters", "template_parameter_list", "type_parameters"];

/// The grammar symbol of a name that a parameter list declares (type names there are
/// `type_identifier`s in these grammars).
pub(crate) const DECLARED_NAME: &str = "identifier";

/// Whether token text `t` has an identifier's shape (a letter or `_`, then letters, digits
/// or `_`): what the scans of tokens (namespaces, template parameters) read as a name,
/// before each leaves out its own keywords.
pub(crate) fn is_word(t: &str) -> bool {
    t.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether identifier text `t` can be a declared name: not a GNU keyword that tree-sitter
/// reads as an identifier where its recovery misreads a declaration (`namespace std
/// __attribute__ …`), nor an attribute's name (`__malloc__`, `__nodiscard__`), which
/// declares nothing and otherwise ties every attributed declaration to the first.
pub(crate) fn is_name(t: &str) -> bool {
    let attribute = t.len() > 4 && t.starts_with("__") && t.ends_with("__");
    !attribute && !matches!(t, "__attribute" | "__restrict" | "__inline" | "__declspec")
}

/// Whether token `id` (of grammar symbol `s`) is a name the C library declares by
/// `typedef` that tree-sitter-c/-cpp read as a primitive type (`size_t`, `int32_t`,
/// `ptrdiff_t`): a name like any other, declared where a header declares it.
pub(crate) fn is_typedef_name(tree: &Tree, g: &PnfGrammar, id: NodeId, s: lopper_grammar::SymbolId) -> bool {
    g.symbol(s).name == "primitive_type" && tree.token_text(id).ends_with("_t")
}

/// The grammar symbol of a member's name in tree-sitter-cpp (declared in a class body,
/// used after `.` or `->`).
pub(crate) const MEMBER_NAME: &str = "field_identifier";

/// The grammar symbol of a C or C++ declarator with an initializer.
pub(crate) const INIT_DECLARATOR: &str = "init_declarator";

/// The grammar symbol of a C or C++ function definition.
pub(crate) const FUNCTION_DEFINITION: &str = "function_definition";

/// The grammar symbol of a C or C++ declaration (a statement or at namespace scope).
pub(crate) const DECLARATION: &str = "declaration";

/// The grammar symbols whose direct identifier child a declaration inside a body declares
/// as a local variable (C and C++ declarators, Java's and JavaScript's
/// `variable_declarator`, Rust's `let`).
pub(crate) const LOCAL_DECLARATORS: [&str; 7] =
    ["init_declarator", "declaration", "pointer_declarator", "array_declarator", "reference_declarator", "variable_declarator", "let_declaration"];

/// The grammar rules (C, C++) whose name token declares a name where the rule stands at
/// namespace scope.
const DECLARING: [&str; 21] = [
    "function_declarator",
    "operator_name",
    "init_declarator",
    "declaration",
    "pointer_declarator",
    "reference_declarator",
    "array_declarator",
    "parenthesized_declarator",
    "attributed_declarator",
    "type_definition",
    "pointer_type_declarator",
    "array_type_declarator",
    "function_type_declarator",
    "alias_declaration",
    "namespace_definition",
    "concept_definition",
    "enumerator",
    "struct_specifier",
    "class_specifier",
    "union_specifier",
    "enum_specifier",
];

/// Class bodies: their declarations are not at namespace scope (nor are those in
/// [`BODIES`] and [`PARAMETERS`]).
pub(crate) const INNER_SCOPES: [&str; 1] = ["field_declaration_list"];

/// Whether identifier `id` at token position `pos` declares its name at namespace scope:
/// the name of a function, variable, type, namespace or enumerator declared outside every
/// class body, function body and parameter list (C, C++; nothing in other grammars). A
/// class's name declares it only in a definition or a forward declaration (`struct S;`),
/// not in `struct S x;`; an initialized declarator's or enumerator's first name only; a
/// declarator's name where a declarator's punctuation follows it.
pub(crate) fn declares(tree: &Tree, g: &PnfGrammar, id: NodeId, pos: usize) -> bool {
    // The nearest ancestor of a rule of the grammar, past the normalizer's own symbols.
    let rule = |n: NodeId| {
        tree.node(n).symbol.map(|s| g.symbol(s).name.as_str()).filter(|s| !s.starts_with('_') && !s.contains("__") && !s.ends_with(['*', '+', '?']))
    };
    let mut ancestors = tree.ancestors(id);
    let mut next_rule = || ancestors.find_map(|a| rule(a).map(|r| (a, r)));
    let Some((mut a, mut name)) = next_rule() else { return false };
    // A class defined outside its namespace (`class __cxx11::collate : … {`) declares its
    // last name: a use of the class needs the definition, not only the forward declaration.
    if name == "qualified_type_identifier" && tree.subtree_token_range(a).end == pos + 1 {
        let Some(outer) = next_rule() else { return false };
        (a, name) = outer;
        if !matches!(name, "struct_specifier" | "class_specifier" | "union_specifier") {
            return false;
        }
    }
    if !DECLARING.contains(&name) {
        return false;
    }
    let range = tree.subtree_token_range(a);
    let ids = tree.token_ids();
    let declares = match name {
        "struct_specifier" | "class_specifier" | "union_specifier" | "enum_specifier" => {
            ids[range.clone()].iter().any(|&t| tree.token_text(t) == "{") || ids.get(range.end).is_some_and(|&t| tree.token_text(t) == ";")
        }
        // `x = y`, `A = B`: the first name.
        "init_declarator" | "enumerator" => ids[range.start..pos].iter().all(|&t| tree.node(t).symbol != tree.node(id).symbol),
        // `__typeof(uselocale)`, which tree-sitter reads as a declarator in parentheses, uses it.
        _ if pos >= 2 && matches!(tree.token_text(ids[pos - 2]), "__typeof" | "__typeof__" | "typeof") => false,
        // A declarator's name comes before its `;`, `,`, `=`, `[`, `(` …; a type before its
        // declarator (`typedef T0 T1;`, `T x;`), an array's size before `]`.
        _ => ids
            .get(pos + 1)
            .is_some_and(|&t| matches!(tree.token_text(t), ";" | "," | "=" | "[" | "(" | ")" | "{" | ":" | "[[" | "__attribute__" | "__asm__" | "noexcept")),
    };
    declares && !tree.ancestors(a).any(|s| is(tree, g, s, &INNER_SCOPES) || is_body(tree, g, s) || is(tree, g, s, &PARAMETERS))
}

/// The texts of node `e`'s live tokens (`live`: one flag per node), in order.
pub(crate) fn live_texts<'t>(tree: &'t Tree, live: &'t [bool], e: NodeId) -> impl DoubleEndedIterator<Item = &'t str> + 't {
    tree.token_ids()[tree.subtree_token_range(e)].iter().filter(|&&t| live[t.0 as usize]).map(|&t| tree.token_text(t))
}

/// Whether list element `e` declares an operator function at its own level (`bool
/// operator==(…)`, not a class's member operator, nor `operator new`, which a
/// new-expression names): a program uses it through an expression's operator, which names
/// no identifier.
pub(crate) fn declares_operator(tree: &Tree, g: &PnfGrammar, live: &[bool], e: NodeId) -> bool {
    let mut stack = vec![e];
    while let Some(n) = stack.pop() {
        if !live[n.0 as usize] || is(tree, g, n, &INNER_SCOPES) || is_body(tree, g, n) || is(tree, g, n, &PARAMETERS) {
            continue;
        }
        if is(tree, g, n, &["operator_name"]) {
            return !matches!(live_texts(tree, live, n).nth(1), Some("new") | None);
        }
        stack.extend(tree.node(n).children.iter().copied());
    }
    false
}
