//! Dependency-closed slices (issue 52, point 1): ddmin over the heads of the reference
//! graph ([`Units`]) of every declaration at namespace scope ([`scope_items`]: the
//! translation unit's, and inside its namespaces and `extern "C"` blocks, but not those
//! blocks whole), each candidate deleting its heads with every declaration only they
//! reach. The heads are the declarations nothing else names and one of each group that
//! names only itself. The first candidate deletes every head: what stays is what the
//! elements that must stay reach. The heads whose deletion takes a specialization or an
//! operator come last ([`Units::implicit_last`]): code that needs one goes first. So on a
//! preprocessed C++ file, whose library declarations only the program's own code names,
//! the code the test does not need goes with all of the library only it used, in a few
//! tests a level of ddmin, where Perses' deletions and the unused search take one
//! declaration or one chain per test. By name, as the graph is: a wrong guess costs a
//! failed test, never a wrong result.
//!
//! Then, where it ran alone, the same over the [detached](Units::detached) graph, where
//! what the first keeps with a kept class or template (its operators, overloads found by
//! their arguments' types, members defined outside it) is a head of its own.
//!
//! Once before the rest, after `definitions` (bodies made declarations no longer name
//! what they used), and at the start of each Perses round as part of the unused search
//! (without the detached graph there: what a round keeps, Perses' deletions take).

use crate::engine::{Deletion, Empty, Engine, Round};
use crate::graph::{Names, Units};
use crate::minimize::{CoarseDdmin, ListMinimizer};
use crate::oracle::OracleError;
use crate::passes::{CoarseSearch, Group, Kind, PassInfo};
use crate::symbols::{is, is_body, is_word, live_texts, INNER_SCOPES};
use lopper_grammar::PnfGrammar;
use lopper_tree::{NodeId, NodeKind, Tree};
use std::collections::HashSet;

/// The search in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "slices",
    plain: "removing unneeded declarations with all they alone use",
    about: "dependency-closed slices: ddmin over the heads of the reference graph of the declarations at namespace scope (what nothing else names; a namespace's members, not the namespace whole), each deleted with every declaration only it reaches, all of them the first candidate, then the same with a kept class's operators, overloads and out-of-line members as heads of their own; once, after definitions, and at the start of each Perses round (without the second)",
    group: Group::First,
    grows: false,
    kind: Kind::Coarse(CoarseSearch::Slices),
};

/// The detached graph's ddmin stops at chunks of 1/2^this of its heads (and goes on past
/// while most removals pass): its heads are many small declarations, and one by one they
/// cost a test each that Perses' deletions spend later anyway, on a smaller program.
const DETACHED_LEVELS: u32 = 6;

/// Programs under this many tokens are left to Perses: the search costs at least one test.
const MIN_PROGRAM: usize = 200;

impl Engine<'_> {
    /// The search over `tree` (the best's), once: the tree of the best after it, `None` if
    /// the best no longer parses.
    ///
    /// # Errors
    /// The judge's.
    pub(crate) fn slices(&mut self, tree: Tree) -> Result<Option<Tree>, OracleError> {
        if tree.token_count() < MIN_PROGRAM {
            return Ok(Some(tree));
        }
        // Counted as this pass even where no head goes, as every search is.
        self.j.set_pass(INFO.name);
        let mut r = Round::new(tree);
        self.slice(&mut r, &HashSet::new(), true)?;
        if !r.progress {
            return Ok(Some(r.tree));
        }
        Ok(self.parse_best())
    }

    /// ddmin over the heads of the declarations at namespace scope of the round's tree
    /// (whose root must be a list), with the elements declaring a `pinned` name kept, and
    /// those an earlier slice kept; then the same over the heads of the [detached](Units::detached)
    /// graph (what the first keeps with a class or template it keeps: its operators,
    /// overloads and members defined outside it) where `detach`. The names the heads it
    /// keeps declare (the test needs those elements) are kept by every later slice.
    ///
    /// # Errors
    /// The judge's.
    pub(crate) fn slice(&mut self, r: &mut Round, pinned: &HashSet<String>, detach: bool) -> Result<(), OracleError> {
        let list = r.tree.root();
        if !matches!(r.tree.node(list).kind, NodeKind::Star | NodeKind::Plus) {
            return Ok(());
        }
        for detached in [false, true].into_iter().filter(|&d| !d || detach) {
            let names = Names::without_parameters(&r.tree, &r.live, self.g, true);
            let kept_before = &self.slices_kept;
            let is_pinned = |x: NodeId| names.declared(x, &r.live).is_some_and(|n| pinned.contains(n) || kept_before.contains(n));
            let mut elements = scope_items(&r.tree, self.g, &r.live, list);
            if detach && !detached {
                elements = with_entry_statements(&r.tree, self.g, &r.live, elements);
            }
            let units = if detached {
                Units::detached(&names, &r.tree, &r.live, &elements, &is_pinned)
            } else {
                Units::of(&names, &r.tree, &r.live, &elements, &is_pinned).implicit_last()
            };
            let heads = units.heads().to_vec();
            if heads.len() < 2 {
                continue;
            }
            self.j.set_pass(INFO.name);
            let coarse = CoarseDdmin { levels: DETACHED_LEVELS, deep: true };
            let minimizer = detached.then_some(&coarse as &dyn ListMinimizer);
            let kept = self.ddmin_delete(r, Deletion { dependents: Some(&units), minimizer, ..Deletion::of(heads, Empty::DeleteItems) })?;
            let names = Names::without_parameters(&r.tree, &r.live, self.g, true);
            self.slices_kept.extend(kept.iter().filter_map(|&e| names.declared(e, &r.live)).map(str::to_string));
        }
        Ok(())
    }
}

/// The live declarations at namespace scope under `list` (the outermost list), in order:
/// its elements, where an element that is a namespace or a linkage specification
/// (`namespace N {…}`, `inline namespace N {…}`, `extern "C" {…}`, as tree-sitter reads
/// it or as its recovery glues it) gives the elements of its body instead, recursively.
/// Deleting all of a body's elements leaves `namespace N {}`, which compilers accept; so a
/// needed declaration keeps only its namespace's braces, not the whole namespace. What
/// such a block holds outside any list (its head, a declaration its recovery glued in)
/// belongs to no item. In a project bundle, each parsed file gives its translation unit's
/// elements.
pub(crate) fn scope_items(tree: &Tree, g: &PnfGrammar, live: &[bool], list: NodeId) -> Vec<NodeId> {
    let files: HashSet<NodeId> = crate::files::bundle_files(tree).into_iter().map(|(f, _)| f).collect();
    let mut out = Vec::new();
    let mut stack: Vec<NodeId> = tree.node(list).children.iter().rev().copied().collect();
    while let Some(e) = stack.pop() {
        if !live[e.0 as usize] {
            continue;
        }
        if files.contains(&e) {
            // A file's header, then its tree (none for a file reduced by lines).
            if let Some(&unit) =
                tree.node(e).children.get(1).filter(|&&u| tree.node(u).symbol.is_some() && matches!(tree.node(u).kind, NodeKind::Star | NodeKind::Plus))
            {
                stack.extend(tree.node(unit).children.iter().rev().copied());
            }
            continue;
        }
        let opaque = tree.node(e).kind == NodeKind::Opaque;
        if opaque || opens_scope(tree, live, e) {
            let mut bodies = Vec::new();
            scope_bodies(tree, g, live, e, &mut bodies);
            stack.extend(bodies.iter().rev().flat_map(|&b| tree.node(b).children.iter().rev().copied()));
        } else {
            out.push(e);
        }
    }
    out
}

/// `elements` (declarations at namespace scope, in order) with the definition of the
/// entry point, `main` (C, C++, Rust, Go: a function whose first name before a `(` is
/// `main`), replaced by the live statements of its body: they are the roots of what the
/// program runs, and each one, deleted, takes along the functions and data only it
/// reaches. So a program whose `main` drives a library before it reaches the code the
/// test needs (a wrong-code trigger called among other work) loses that library with the
/// calls in a few tests of the first ddmin, not one function body at a time. Where `main`
/// comes first, nothing is replaced: the graph takes its first element's list as the
/// scope its names are looked up in.
pub(crate) fn with_entry_statements(tree: &Tree, g: &PnfGrammar, live: &[bool], elements: Vec<NodeId>) -> Vec<NodeId> {
    let Some((at, body)) = elements.iter().enumerate().skip(1).find_map(|(i, &e)| Some((i, entry_body(tree, g, live, e)?))) else { return elements };
    let statements = tree.node(body).children.iter().copied().filter(|&c| live[c.0 as usize]);
    elements[..at].iter().copied().chain(statements).chain(elements[at + 1..].iter().copied()).collect()
}

/// Whether `list` is the statement list of the entry point's body (see
/// [`with_entry_statements`]).
pub(crate) fn is_entry_body(tree: &Tree, g: &PnfGrammar, live: &[bool], list: NodeId) -> bool {
    tree.ancestors(list).find(|&a| is(tree, g, a, &FUNCTIONS)).is_some_and(|f| entry_body(tree, g, live, f) == Some(list))
}

/// The grammar symbols of a function definition (C and C++, Rust, Go).
const FUNCTIONS: [&str; 3] = ["function_definition", "function_item", "function_declaration"];

/// The statement list of `e`'s body where `e` (or its one child) defines a function named
/// `main`: its first word before a `(` is `main`.
fn entry_body(tree: &Tree, g: &PnfGrammar, live: &[bool], e: NodeId) -> Option<NodeId> {
    let f = std::iter::once(e).chain(tree.node(e).children.first().copied()).find(|&n| is(tree, g, n, &FUNCTIONS))?;
    let texts: Vec<&str> = live_texts(tree, live, f).take_while(|&t| t != "{").collect();
    let name = texts.windows(2).find(|w| w[1] == "(" && is_word(w[0]))?[0];
    if name != "main" {
        return None;
    }
    let body = tree.node(f).children.iter().rev().copied().find(|&c| live[c.0 as usize] && is_body(tree, g, c))?;
    tree.node(body).children.iter().copied().find(|&c| live[c.0 as usize] && matches!(tree.node(c).kind, NodeKind::Star | NodeKind::Plus))
}

/// Whether `e`'s first live tokens are `namespace` (after `inline`), or `extern`, a string
/// and `{`: it opens a namespace or a linkage specification's block (`extern "C" int
/// f();` is one declaration).
fn opens_scope(tree: &Tree, live: &[bool], e: NodeId) -> bool {
    let mut tokens = live_texts(tree, live, e).skip_while(|&t| t == "inline");
    match tokens.next() {
        Some("namespace") => true,
        // The string is its quotes and its contents: `"`, `C`, `"`.
        Some("extern") => tokens.next() == Some("\"") && tokens.find(|&t| t == "\"").is_some() && tokens.next() == Some("{"),
        _ => false,
    }
}

/// The lists of declarations inside `n`'s braces (`n` opens a scope), in order: each child
/// that is `{`, a Kleene star, `}` (not a class body), and those inside a child the
/// parser could not read (an opaque node) or that opens a scope itself.
fn scope_bodies(tree: &Tree, g: &PnfGrammar, live: &[bool], n: NodeId, out: &mut Vec<NodeId>) {
    let token = |c: NodeId, s: &str| tree.node(c).kind == NodeKind::Token && tree.token_text(c) == s;
    for &c in &tree.node(n).children {
        if !live[c.0 as usize] {
            continue;
        }
        match tree.node(c).children[..] {
            [open, body, close]
                if token(open, "{")
                    && token(close, "}")
                    && matches!(tree.node(body).kind, NodeKind::Star | NodeKind::Plus)
                    && !is(tree, g, c, &INNER_SCOPES) =>
            {
                out.push(body);
            }
            _ if matches!(tree.node(c).kind, NodeKind::Star | NodeKind::Plus) && tree.node(n).kind == NodeKind::Opaque => out.push(c),
            _ if tree.node(c).kind == NodeKind::Opaque || opens_scope(tree, live, c) => scope_bodies(tree, g, live, c, out),
            _ => {}
        }
    }
}
