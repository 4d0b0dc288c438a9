//! Edits that do not create undefined behaviour (issue 53, point 2): under `--ub-guard`, a
//! candidate that would leave a local variable of C or C++ without its initializer is never
//! made. Such a variable, read before it is written, is undefined behaviour the guard
//! would refuse, at the cost of a guard run; a global keeps its implicit zero and may lose
//! its initializer.
//!
//! An initializer goes in two ways in a PNF tree of tree-sitter-c/-cpp: an `init_declarator`
//! replaced by its declarator (Perses' replacement by a subsumed descendant), or its `=`
//! token deleted (the tokens pass deletes `= 5` as tokens). Deleting the whole declaration
//! is fine: what still uses the variable no longer compiles.
//!
//! Nor is the last `return` of a value taken from a non-void function other than `main`
//! (its expression, keyword or statement deleted), nor the one that ends its body where
//! one did: the function may then fall off its end, and its caller read a value never
//! returned.

use crate::symbols::{in_body, is, token_text_at, DECLARATION, FUNCTION_DEFINITION, INIT_DECLARATOR};
use lopper_grammar::PnfGrammar;
use lopper_tree::{Edit, EditSet, NodeId, NodeKind, Tree};

/// Whether `candidate` (an edit set of `tree`, whose current state is `state`) takes a
/// value the program reads (see the module docs): the one candidate check the engine asks.
/// Each function the candidate changes and keeps is summarized before and after
/// ([`loses_value`]); locals are matched by name, so of two that shadow one another in a
/// function, the rule sees their uses together.
pub(crate) fn drops_value(tree: &Tree, g: &PnfGrammar, state: &EditSet, candidate: &EditSet) -> bool {
    if drops_local_initializer(tree, g, state, candidate) {
        return true;
    }
    let mut seen = Vec::new();
    candidate.ids().filter(|&n| state.get(n) != candidate.get(n)).any(|n| {
        let Some(f) = tree.ancestors(n).find(|&a| is(tree, g, a, &[FUNCTION_DEFINITION])) else { return false };
        if seen.contains(&f) {
            return false;
        }
        seen.push(f);
        let stands = tree.effective(candidate, f) == Some(f) && tree.ancestors(f).all(|a| !matches!(candidate.get(a), Some(Edit::Delete)));
        stands && loses_value(&summary(tree, g, state, f), &summary(tree, g, candidate, f))
    })
}

/// Whether `after`, a transformation's variant of the program `before` (both parsed),
/// takes a value the program reads from one of its functions, the functions matched by
/// name: [`loses_value`] (the return values, a local's only write, a read local's
/// initializer) for text variants, which no edit set of `before`'s tree describes.
pub(crate) fn variant_drops_value(before: &Tree, after: &Tree, g: &PnfGrammar) -> bool {
    let none = EditSet::default();
    let functions = |tree: &Tree| -> Vec<(String, NodeId)> {
        let mut out = Vec::new();
        tree.walk(&none, |n| {
            if is(tree, g, n, &[FUNCTION_DEFINITION]) {
                let name = tree.subtree_token_ids(n).iter().map(|&t| tree.token_text(t)).take_while(|&t| t != "(").last().unwrap_or("");
                out.push((name.to_string(), n));
                return false;
            }
            true
        });
        out
    };
    let olds = functions(before);
    fn text(tree: &Tree, f: NodeId) -> Vec<&str> {
        tree.subtree_token_ids(f).iter().map(|&t| tree.token_text(t)).collect()
    }
    functions(after).into_iter().any(|(name, fa)| {
        olds.iter()
            .find(|(n, _)| *n == name)
            .is_some_and(|&(_, fb)| text(before, fb) != text(after, fa) && loses_value(&summary(before, g, &none, fb), &summary(after, g, &none, fa)))
    })
}

/// What the rules compare of a function definition under some edits.
struct Summary<'t> {
    /// Non-void, and not `main` ([`returns_value`]).
    returns_value: bool,
    /// It holds a `return` of a value.
    returns_something: bool,
    /// Its body ends with one ([`ends_with_return`]).
    ends_with_return: bool,
    /// Per local declared without an initializer: its name, then the writes and reads
    /// of it after its declaration ([`uses`]).
    locals: Vec<(&'t str, usize, usize)>,
    /// The names of the locals declared with an initializer ([`initialized_locals`]).
    initialized: Vec<&'t str>,
}

fn summary<'t>(tree: &'t Tree, g: &PnfGrammar, edits: &EditSet, f: NodeId) -> Summary<'t> {
    let ts = standing_tokens(tree, edits, f);
    let locals = uninitialized_locals(tree, &ts)
        .into_iter()
        .map(|(decl, x)| {
            let from = ts.iter().position(|&t| t == decl).unwrap_or(0);
            let (w, r) = uses(tree, &ts, from, x);
            (x, w, r)
        })
        .collect();
    Summary {
        returns_value: returns_value(tree, g, f),
        returns_something: returns_something(tree, g, edits, f),
        ends_with_return: ends_with_return(tree, g, edits, f),
        locals,
        initialized: initialized_locals(tree, g, edits, f),
    }
}

/// Whether `after` (a function's summary after a change) lost a value the program reads
/// that `before` had: the last `return` of a value, or the one ending its body, of a
/// function that returns one ([`returns_value`]); every write of a local declared
/// without an initializer (`int ret;` … `ret = f();`) while a read of it stays, so that
/// the read is of a value never written (and its declaration stays: without it, what
/// still uses the local does not compile); or the initializer of a local still read
/// (`int n = 4;` become `int n;`: the text form of [`drops_local_initializer`]).
fn loses_value(before: &Summary<'_>, after: &Summary<'_>) -> bool {
    let returns = before.returns_value && ((before.returns_something && !after.returns_something) || (before.ends_with_return && !after.ends_with_return));
    let written = before.locals.iter().any(|&(x, w0, _)| w0 > 0 && after.locals.iter().any(|&(y, w1, r1)| y == x && w1 == 0 && r1 > 0));
    let initializer = before
        .initialized
        .iter()
        .any(|x| !after.initialized.contains(x) && after.locals.iter().any(|&(y, _, r1)| y == *x && r1 > 0) && !before.locals.iter().any(|&(y, _, _)| y == *x));
    returns || written || initializer
}

/// The names of the locals of function definition `f` declared with an initializer
/// (`init_declarator`s in its body standing under `edits`): per one, the last name before
/// its `=`, `(` or `{` (`int *p = q;` gives `p`).
fn initialized_locals<'t>(tree: &'t Tree, g: &PnfGrammar, edits: &EditSet, f: NodeId) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut stack = vec![f];
    while let Some(n) = stack.pop() {
        let Some(n) = tree.effective(edits, n) else { continue };
        if is(tree, g, n, &[INIT_DECLARATOR]) {
            let ts = standing_tokens(tree, edits, n);
            let name =
                ts.iter().map(|&t| tree.token_text(t)).take_while(|t| !matches!(*t, "=" | "(" | "{" | "[")).filter(|t| crate::symbols::is_name(t)).last();
            out.extend(name);
            continue;
        }
        stack.extend(tree.node(n).children.iter().copied());
    }
    out
}

/// The writes and reads of `x` in tokens `ts` after position `from`. A write is an
/// assignment to it or a member of it (`x = `, `x += `, `x.f = `, `x->f = `), `++`/`--`,
/// or its address taken (`&x`: written through it, for all we know).
fn uses(tree: &Tree, ts: &[NodeId], from: usize, x: &str) -> (usize, usize) {
    let text = |i: usize| token_text_at(tree, ts, i);
    let (mut writes, mut reads) = (0, 0);
    for i in (from + 1..ts.len()).filter(|&i| text(i) == x) {
        let (prev, next) = (if i > 0 { text(i - 1) } else { "" }, text(i + 1));
        let member_write = matches!(next, "." | "->") && is_write(text(i + 3));
        if is_write(next) || matches!(next, "++" | "--") || matches!(prev, "&" | "++" | "--") || member_write {
            writes += 1;
        } else if !matches!(prev, "." | "->") {
            reads += 1;
        }
    }
    (writes, reads)
}

/// Whether token text `t` assigns (`=`, `+=`, `<<=`, …; not `==`).
fn is_write(t: &str) -> bool {
    t.ends_with('=') && !matches!(t, "==" | "!=" | "<=" | ">=")
}

/// The locals of a function (its standing tokens `ts`) declared without an initializer:
/// per name, the name's token in its declaration. Only plain declarations (`int a, *b;`:
/// no `=`, `[`, `(`, `{`; not `static`, which is zero) inside the body.
fn uninitialized_locals<'t>(tree: &'t Tree, ts: &[NodeId]) -> Vec<(NodeId, &'t str)> {
    let text = |i: usize| token_text_at(tree, ts, i);
    let Some(body) = (0..ts.len()).find(|&i| text(i) == "{") else { return Vec::new() };
    let mut out = Vec::new();
    let mut start = body + 1;
    for i in body + 1..ts.len() {
        if !matches!(text(i), ";" | "{" | "}") {
            continue;
        }
        let stmt: Vec<&str> = (start..i).map(text).collect();
        start = i + 1;
        let plain =
            text(i) == ";" && stmt.len() >= 2 && !stmt.iter().any(|t| matches!(*t, "=" | "[" | "(" | "{" | "return" | "goto" | "case" | "static" | "extern"));
        // A declaration: words, then names each before a `,` or the `;` (`unsigned a, *b;`).
        if plain && stmt.iter().all(|t| crate::symbols::is_word(t) || matches!(*t, "," | "*")) {
            for k in (0..stmt.len()).filter(|&k| k + 1 == stmt.len() || stmt[k + 1] == ",") {
                if crate::symbols::is_name(stmt[k]) && k > 0 {
                    out.push((ts[start - 1 - (stmt.len() - k)], tree.token_text(ts[start - 1 - (stmt.len() - k)])));
                }
            }
        }
    }
    out
}

/// The tokens under `n` that stand under `edits`, in order.
fn standing_tokens(tree: &Tree, edits: &EditSet, n: NodeId) -> Vec<NodeId> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    while let Some(c) = stack.pop() {
        let Some(c) = tree.effective(edits, c) else { continue };
        if tree.node(c).kind == NodeKind::Token {
            out.push(c);
        } else {
            stack.extend(tree.node(c).children.iter().rev());
        }
    }
    out
}

/// Whether `candidate` (an edit set of `tree`, whose current state is `state`) takes the
/// initializer from a variable declared in a function body that `state` initializes. Not
/// where the variable goes with it: every token of its declaration before the `=` deleted
/// (`int i = e;` become the statement `e;`; `int a = 1, i = e;` keeping `int a = 1,`
/// would declare an uninitialized `e`).
pub(crate) fn drops_local_initializer(tree: &Tree, g: &PnfGrammar, state: &EditSet, candidate: &EditSet) -> bool {
    let initializes = |n: NodeId| is(tree, g, n, &[INIT_DECLARATOR]) && in_body(tree, g, n);
    candidate.ids().filter(|&n| state.get(n) != candidate.get(n)).any(|n| match candidate.get(n) {
        Some(Edit::Replace(_)) => initializes(n),
        Some(Edit::Delete) => {
            token(tree, n, "=")
                && tree.node(n).parent.is_some_and(|p| {
                    initializes(p) && !candidate.contains(p) && tree.ancestors(p).all(|a| !candidate.contains(a)) && !declaration_goes(tree, g, candidate, n)
                })
        }
        _ => false,
    })
}

/// Whether every token of the declaration around `eq` (an initializer's `=`) before it is
/// deleted under `edits`: the declared variable is gone, its initializer left as an
/// expression.
fn declaration_goes(tree: &Tree, g: &PnfGrammar, edits: &EditSet, eq: NodeId) -> bool {
    let Some(d) = tree.ancestors(eq).find(|&a| is(tree, g, a, &[DECLARATION])) else { return false };
    let standing = standing_tokens(tree, edits, d);
    tree.subtree_token_ids(d).iter().take_while(|&&t| t != eq).all(|t| !standing.contains(t))
}

/// Whether function definition `f`'s body, under `edits`, ends with a `return` of a value
/// (its last statement; the statements of an `if` or a loop are not looked into): where
/// it did, a candidate that takes that statement lets control reach the end.
fn ends_with_return(tree: &Tree, g: &PnfGrammar, edits: &EditSet, f: NodeId) -> bool {
    let body = tree.node(f).children.iter().filter_map(|&c| tree.effective(edits, c)).find(|&c| is(tree, g, c, &["compound_statement"]));
    body.and_then(|b| last_statement(tree, g, edits, b)).is_some_and(|s| is(tree, g, s, &[RETURN]) && returns_a_value(tree, edits, s))
}

/// The last standing statement or declaration under `n` (not `n` itself), through the
/// lists and nodes between; `None` where a bare token other than a brace ends it.
fn last_statement(tree: &Tree, g: &PnfGrammar, edits: &EditSet, n: NodeId) -> Option<NodeId> {
    for &c in tree.node(n).children.iter().rev() {
        let Some(c) = tree.effective(edits, c) else { continue };
        if tree.node(c).kind == NodeKind::Token {
            if token(tree, c, "}") || token(tree, c, "{") {
                continue;
            }
            return None;
        }
        if tree.node(c).symbol.is_some_and(|s| {
            let name = &g.symbol(s).name;
            name.ends_with("_statement") || name.ends_with("declaration")
        }) {
            return Some(c);
        }
        if let Some(s) = last_statement(tree, g, edits, c) {
            return Some(s);
        }
    }
    None
}

/// Whether return statement `n`, under `edits`, has its keyword and a value standing.
fn returns_a_value(tree: &Tree, edits: &EditSet, n: NodeId) -> bool {
    let parts: Vec<NodeId> = tree.node(n).children.iter().filter_map(|&c| tree.effective(edits, c)).collect();
    parts.iter().any(|&c| token(tree, c, "return")) && parts.iter().any(|&c| !token(tree, c, "return") && !token(tree, c, ";"))
}

/// Whether function definition `f`, under `edits`, holds a `return` of a value: the
/// statement, its keyword and an expression all standing.
fn returns_something(tree: &Tree, g: &PnfGrammar, edits: &EditSet, f: NodeId) -> bool {
    let mut stack = vec![f];
    while let Some(n) = stack.pop() {
        let Some(n) = tree.effective(edits, n) else { continue };
        if is(tree, g, n, &[RETURN]) {
            if returns_a_value(tree, edits, n) {
                return true;
            }
            continue;
        }
        stack.extend(tree.node(n).children.iter().copied());
    }
    false
}

/// The grammar symbol (tree-sitter-c/-cpp) of a return statement.
const RETURN: &str = "return_statement";

/// Whether function definition `f` returns a value its callers may read: its type is not
/// plain `void` (a `void *` returns one), and it is not `main` (which returns 0 when it
/// falls off its end).
fn returns_value(tree: &Tree, g: &PnfGrammar, f: NodeId) -> bool {
    let children = &tree.node(f).children;
    let declarators = || children.iter().filter(|&&c| is(tree, g, c, &["function_declarator"]));
    let plain_void = children.iter().any(|&c| token(tree, c, "void")) && declarators().next().is_some();
    let main = declarators().any(|&d| tree.node(d).children.first().is_some_and(|&name| token(tree, name, "main")));
    !plain_void && !main
}

/// Whether node `n` is a token with this text.
fn token(tree: &Tree, n: NodeId, text: &str) -> bool {
    tree.node(n).kind == NodeKind::Token && tree.token_text(n) == text
}

#[cfg(test)]
mod tests {
    use crate::{reduce, Options, Pipeline};
    use lopper_parse::{Frontend, Language};

    /// Every candidate a Perses reduction of C `src` tests, with `ub_safe_edits` as `safe`,
    /// under an oracle that needs each of `needs`; and how many candidates were not made.
    fn candidates(src: &str, needs: &[&str], safe: bool) -> (Vec<String>, usize) {
        let fr = Frontend::new(Language::C).unwrap();
        let mut seen: Vec<String> = Vec::new();
        let mut oracle = |c: &str| {
            seen.push(c.to_string());
            needs.iter().all(|w| c.contains(w))
        };
        let opts = Options { ub_safe_edits: safe, ..Options::perses(1) };
        let out = reduce(&fr, src, &mut oracle, &opts, Pipeline::perses(), &mut crate::NoProgress).unwrap();
        (seen, out.stats.ub_avoided)
    }

    /// Asserts that some candidate is `bad` without the option, none with it, and that
    /// the option avoided some.
    fn avoided(src: &str, needs: &[&str], bad: &dyn Fn(&str) -> bool) -> Vec<String> {
        let (seen, _) = candidates(src, needs, false);
        assert!(seen.iter().any(|c| bad(c)), "the test would not show anything: {seen:#?}");
        let (seen, avoided) = candidates(src, needs, true);
        assert!(!seen.iter().any(|c| bad(c)), "{:#?}", seen.iter().filter(|c| bad(c)).collect::<Vec<_>>());
        assert!(avoided > 0);
        seen
    }

    /// The body of function `name` in `c`, without spaces, to its first `}`.
    fn body(c: &str, name: &str) -> Option<String> {
        c.find(name).map(|at| c[at..].split('}').next().unwrap_or("").split_whitespace().collect())
    }

    #[test]
    fn no_candidate_takes_a_local_s_initializer() {
        // The oracle needs main, both locals and the call: without the option, Perses'
        // replacement tries `int x;` (an init_declarator by its declarator).
        let src = "int g = 3;\nint main(void) {\n  int x = 4;\n  int y = x + g;\n  printf(\"%d\", y);\n  return 0;\n}\n";
        let uninitialized = |c: &str| ["int x;", "int y;", "int x ;", "int y ;"].iter().any(|w| c.contains(w));
        let seen = avoided(src, &["main", "int x", "int y", "printf(\"%d\", y);"], &uninitialized);
        // A global's initializer may still go (it is zero then).
        assert!(seen.iter().any(|c| c.contains("int g;") || !c.contains("int g")), "{seen:#?}");
    }

    #[test]
    fn an_initializer_may_go_with_its_whole_declaration_before_the_equals_sign() {
        let fr = Frontend::new(Language::C).unwrap();
        let src = "volatile char e;\nvoid f(void) {\n  int a = 1, b = e;\n  int i = e;\n}\n";
        let tree = fr.parse(src).unwrap().tree;
        let ts = tree.subtree_token_ids(tree.root());
        // The candidate deleting the tokens at these positions (of `ts`).
        let drops = |positions: &[usize]| {
            let mut c = lopper_tree::EditSet::default();
            c.delete(positions.iter().map(|&k| ts[k]));
            super::drops_local_initializer(&tree, fr.grammar(), &lopper_tree::EditSet::default(), &c)
        };
        let at = |text: &str, nth: usize| (0..ts.len()).filter(|&k| tree.token_text(ts[k]) == text).nth(nth).unwrap();
        let (int_i, i, eq_i) = (at("int", 1), at("i", 0), at("=", 2));
        // `int i = e;` become the statement `e;`: no variable is left uninitialized.
        assert!(!drops(&[int_i, i, eq_i]));
        // `int i e;`, and `int e;` (a new, uninitialized local): refused.
        assert!(drops(&[eq_i]));
        assert!(drops(&[i, eq_i]));
        // `int a = 1, e;`: the declaration stays, `e` declared anew without a value.
        let (b, eq_b) = (at("b", 0), at("=", 1));
        assert!(drops(&[b, eq_b]));
    }

    #[test]
    fn no_candidate_takes_a_return_value() {
        // `twice`'s caller prints what it returns: `return;` or no return there is a value
        // never returned. `note` returns nothing, and `main` may fall off its end.
        let src = "int twice(int v) {\n  return v * 2;\n}\nvoid note(void) {\n  return;\n}\nint main(void) {\n  printf(\"%d\", twice(3));\n  note();\n  return 0;\n}\n";
        let dropped = |c: &str| body(c, "int twice").is_some_and(|b| !b.contains("return") || b.contains("return;"));
        let seen = avoided(src, &["int twice", "printf", "main"], &dropped);
        // main's and note's returns may still go.
        assert!(seen.iter().any(|c| !c.contains("return 0") || !c.contains("return;")), "{seen:#?}");
    }

    #[test]
    fn no_candidate_takes_the_only_write_of_a_variable_still_read() {
        // `n` has one write and is printed; `m` has two (either may go alone), `p` is
        // written through `&p`.
        let src = "int get(int *p) {\n  *p = 5;\n  return 1;\n}\nint main(void) {\n  int n, m, p;\n  n = 4;\n  m = 1;\n  m += n;\n  get(&p);\n  printf(\"%d %d %d\", n, m, p);\n  return 0;\n}\n";
        let unwritten = |c: &str| c.contains("int n") && c.contains("printf(\"%d %d %d\", n") && !c.contains("n = 4");
        let seen = avoided(src, &["int n", "printf", "main", "m += n"], &unwritten);
        assert!(seen.iter().any(|c| c.contains("m += n") && !c.contains("m = 1")), "a second write may go: {seen:#?}");
    }

    #[test]
    fn a_text_variant_is_judged_by_the_same_rules_function_by_function() {
        let fr = Frontend::new(Language::C).unwrap();
        let before = "int g(void);\nint twice(int v) { return v * 2; }\nint f(void) { int r; r = g(); return r; }\nint main(void) { return twice(f()); }\n";
        let drops = |after: &str| super::variant_drops_value(&fr.parse(before).unwrap().tree, &fr.parse(after).unwrap().tree, fr.grammar());
        // An emptied body (as a transformation writes it), and a local's only write gone.
        assert!(drops(&before.replace("{ return v * 2; }", "{ }")));
        assert!(drops(&before.replace(" r = g();", "")));
        // A read local's initializer gone (`int k = 3;` become `int k;`).
        let init = before.replace("int f(void) { int r;", "int f(void) { int k = 3; int r;").replace("return r;", "return r + k;");
        let drops_from = |b: &str, after: &str| super::variant_drops_value(&fr.parse(b).unwrap().tree, &fr.parse(after).unwrap().tree, fr.grammar());
        assert!(drops_from(&init, &init.replace("int k = 3;", "int k;")));
        assert!(!drops_from(&init, &init.replace("int k = 3;", "int k = 2;")));
        // A smaller return value, a function gone whole, `main` falling off its end: fine.
        assert!(!drops(&before.replace("v * 2", "v")));
        assert!(!drops(&before.replace("int twice(int v) { return v * 2; }\n", "")));
        assert!(!drops(&before.replace("return twice(f());", "twice(f());")));
    }

    #[test]
    fn no_candidate_takes_the_return_that_ends_a_function() {
        // `sign` keeps `return -1` in its `if`: deleting the last `return 1;` leaves a
        // return of a value, but lets control reach the end for `sign(3)`.
        let src = "int sign(int v) {\n  if (v < 0)\n    return -1;\n  return 1;\n}\nint main(void) {\n  printf(\"%d\", sign(3));\n  return 0;\n}\n";
        let open_end = |c: &str| body(c, "int sign").is_some_and(|b| b.contains("if(") && b.contains("return-1;") && !b.ends_with("return1;"));
        avoided(src, &["int sign", "return -1", "printf", "main"], &open_end);
    }
}
