//! The program's names and the reference graph (issue 52, point 1), the one home the
//! searches that follow names read: where each identifier occurs ([`Names`]: a name is
//! declared by the element holding its first occurrence, as the unused search and
//! `Dependents` take it), and the *dependency-closed units* a list splits into.
//!
//! The heads of a list are its roots (what no other element names, and is not kept) and
//! one element of each group of elements that name only each other. Deleting any set of
//! heads takes every element that the rest (the other heads, and what stays: the kept
//! elements and those named from outside the list) no longer reaches ([`Units`]'
//! [`Closure`]): then every remaining use of a name keeps its declaration, since a
//! remaining element naming a deleted one would reach it. So a list minimizer over the
//! heads removes a root with every declaration only it needs, a whole chain in one
//! candidate, and two roots with what only the two of them share: deleting every head at
//! once leaves what the kept elements reach, where deleting roots alone takes one level of
//! a chain per test. By name, not by symbol table: a wrong guess costs a failed test,
//! never a wrong result.

use crate::namespaces::Namespaces;
use crate::symbols::{declares, is, is_name, is_typedef_name, MEMBER_NAME};
use lopper_grammar::PnfGrammar;
use lopper_tree::{NodeId, Tree};
// foldhash: a map of every live identifier is built for each state a search looks at.
use foldhash::{HashMap, HashMapExt};
use std::borrow::Cow;
use std::ops::Range;

/// Where each live identifier of a program occurs: built once per state of the edits.
pub struct Names<'t> {
    pub(crate) tree: &'t Tree,
    /// Per name: its live occurrences, and the token position of the first.
    pub(crate) names: HashMap<&'t str, (u32, usize)>,
    /// Per token position: whether that token is a live identifier.
    pub(crate) identifier: Vec<bool>,
    /// Per name: the token positions (ascending) where a declaration at namespace scope
    /// declares it ([`declares`](crate::symbols::declares)); a name without any is declared by its first occurrence.
    decls: HashMap<&'t str, Vec<usize>>,
    /// Per member's name (no declaration at namespace scope, first seen in a class body):
    /// that class body.
    members: HashMap<&'t str, NodeId>,
    /// The C++ namespaces, which narrow what a use sees (`None`: the program opens none).
    namespaces: Option<Namespaces<'t>>,
    /// The class bodies' members ([`Members`]), by which a use inside a class body finds
    /// a member before a declaration at namespace scope.
    classes: Members<'t>,
    /// The grammar the tree's symbols are of.
    grammar: &'t PnfGrammar,
    /// The grammar symbols of a member's name (C++'s `field_identifier` and its aliases): declared
    /// in a class body or used after `.`, never a declaration at namespace scope.
    member_name: &'t [lopper_grammar::SymbolId],
}

impl<'t> Names<'t> {
    /// The live identifiers of `tree` (`live`: one flag per node, as [`Tree::live`] gives).
    pub fn new(tree: &'t Tree, live: &[bool], g: &'t PnfGrammar) -> Names<'t> {
        Names::build(tree, live, g, &[])
    }

    /// As [`Names::new`], without the names that function parameter lists declare (C's
    /// `size_t __n`, Java's `int x`), and without their uses in that function's body, nor
    /// the names declared in a body (`int i = 0;`) in that body: a parameter's name is
    /// local to its function, so a declaration holding its first occurrence declares
    /// nothing by it, and the next function with a parameter of that name does not use it.
    /// (Measured on consteval: the libc prototypes' `__s`, `__n`, `__dest` made every
    /// prototype after the first use the first; without them it took 2,531 tests, not 2,730. Leaving out every
    /// occurrence of such names, and template parameters too, took more than 4,000.)
    ///
    /// With `locals` false, a local variable's name stays a name like any other: the table
    /// for a list inside a body, where a local's declaration is an element that may go.
    pub fn without_parameters(tree: &'t Tree, live: &[bool], g: &'t PnfGrammar, locals: bool) -> Names<'t> {
        Names::build(tree, live, g, &crate::locals::local_names(tree, live, g, locals))
    }

    /// The live identifiers of `tree` but those at the positions `skip` marks (empty: none).
    fn build(tree: &'t Tree, live: &[bool], g: &'t PnfGrammar, skip: &[bool]) -> Names<'t> {
        let mut names: HashMap<&str, (u32, usize)> = HashMap::new();
        let mut identifier = vec![false; tree.token_count()];
        // The `->` that begin a trailing return type: what follows one is no member.
        let mut returns = Vec::new();
        for (pos, &id) in tree.token_ids().iter().enumerate() {
            if tree.token_text(id) == "->" && tree.node(id).parent.is_some_and(|p| is(tree, g, p, &["trailing_return_type"])) {
                returns.push(pos);
            }
            // `new`: a new-expression needs the `operator new` its placement form calls.
            let name = |s| g.is_identifier(s) || is_typedef_name(tree, g, id, s) || tree.token_text(id) == "new";
            if !live[id.0 as usize] || !tree.node(id).symbol.is_some_and(name) || skip.get(pos) == Some(&true) || !is_name(tree.token_text(id)) {
                continue;
            }
            identifier[pos] = true;
            names.entry(tree.token_text(id)).or_insert((0, pos)).0 += 1;
        }
        let namespaces = Namespaces::scan(tree, live, returns);
        let using = namespaces.as_ref().map_or(&[][..], |ns| &ns.using_declarations[..]);
        let member_name = g.symbols_for_cst(MEMBER_NAME, true);
        let classes = Members::scan(tree, live, g, member_name, using);
        let mut decls: HashMap<&str, Vec<usize>> = HashMap::new();
        for (pos, &id) in tree.token_ids().iter().enumerate() {
            // A using-declaration in a class body (`using _Base::insert;`) declares a member.
            if identifier[pos] && (declares(tree, g, id, pos) || (using.binary_search(&pos).is_ok() && classes.body_at(pos).is_none())) {
                decls.entry(tree.token_text(id)).or_default().push(pos);
            }
        }
        // A name first seen in a class body, with no declaration at namespace scope, is a
        // member's: a use reaches it through its class, which the use names otherwise.
        let mut members = HashMap::new();
        for (&name, &(_, first)) in &names {
            if let Some(body) = classes.body_at(first).filter(|_| !decls.contains_key(name)) {
                members.insert(name, body);
            }
        }
        Names { tree, names, identifier, decls, members, namespaces, classes, grammar: g, member_name }
    }

    /// Where `name` is declared, for its use at token position `at` in `list`: the token
    /// positions of its declarations at namespace scope (several for a forward declaration
    /// and a definition, overloads, a name in two namespaces), those the use's namespace
    /// sees ([`Namespaces::visible`]); none for a member's name (first seen in a class
    /// body) where `list` is outside that body, nor for an unqualified use inside a class
    /// body that has a member of that name (`swap(__s)` in `basic_string`, which declares
    /// `swap`: class scope is looked up first); else its first occurrence's.
    pub(crate) fn declarations<'a>(&'a self, name: &'a str, first: &'a usize, list: Option<NodeId>, at: usize) -> Cow<'a, [usize]> {
        let decls = self.decls.get(name).map(Vec::as_slice);
        if decls.is_some() && self.tree.node(self.tree.token_ids()[at]).symbol.is_some_and(|s| self.member_name.contains(&s)) {
            return Cow::Borrowed(&[]);
        }
        if decls.is_some() && self.classes.member_of_enclosing(name, at) {
            return Cow::Borrowed(&[]);
        }
        if let Some(ns) = &self.namespaces {
            if decls.is_some() || ns.is_namespace(name) {
                return ns.visible(at, name, decls.unwrap_or(std::slice::from_ref(first)));
            }
        }
        if let Some(d) = decls {
            return Cow::Borrowed(d);
        }
        Cow::Borrowed(match (self.members.get(name), list) {
            (Some(&body), Some(l)) if body != l && !self.tree.ancestors(l).any(|a| a == body) => &[],
            _ => std::slice::from_ref(first),
        })
    }

    /// The first name element `e` declares (holds the first occurrence of), if any: what
    /// the search remembers an element the test needs by, since it stays the same while
    /// the element's body shrinks.
    pub fn declared(&self, e: NodeId, live: &[bool]) -> Option<&'t str> {
        let t = self.tree;
        let (span, ids) = self.positions(e)?;
        span.zip(ids).find_map(|(pos, &id)| {
            let name = t.token_text(id);
            (self.identifier[pos] && live[id.0 as usize] && self.names[name].1 == pos).then_some(name)
        })
    }

    /// Whether list element `e` is unreferenced (see the module docs): it holds the first
    /// occurrence of some name, and all occurrences of every such name. `live` as for
    /// [`Names::new`].
    pub fn unreferenced(&self, e: NodeId, live: &[bool]) -> bool {
        let t = self.tree;
        let Some((span, ids)) = self.positions(e) else { return false };
        let mut inside: HashMap<&str, u32> = HashMap::new();
        for (pos, &id) in span.clone().zip(ids) {
            if self.identifier[pos] && live[id.0 as usize] {
                *inside.entry(t.token_text(id)).or_default() += 1;
            }
        }
        let mut declares = false;
        for (name, n) in inside {
            let (all, first) = self.names[name];
            if span.contains(&first) {
                if n < all {
                    return false;
                }
                declares = true;
            }
        }
        declares
    }

    /// Whether the token at position `pos` of [`Tree::token_ids`] is a live identifier.
    pub(crate) fn is_identifier(&self, pos: usize) -> bool {
        self.identifier[pos]
    }

    /// The token position of `name`'s first live occurrence (`name` must be one).
    pub(crate) fn first(&self, name: &str) -> usize {
        self.names[name].1
    }

    /// Node `e`'s tokens with their positions in [`Tree::token_ids`] (a subtree's tokens
    /// are contiguous); `None` for a node without tokens.
    pub(crate) fn positions(&self, e: NodeId) -> Option<(Range<usize>, &'t [NodeId])> {
        let span = self.tree.subtree_token_range(e);
        (!span.is_empty()).then(|| (span.clone(), &self.tree.token_ids()[span]))
    }
    /// The largest set of `elements` (a list's live children, in order) outside `keep`
    /// that declare some name and whose names are used only inside the set: what stays
    /// unused once all of it is gone, cycles and chains of declarations included (a
    /// mark-and-sweep over the uses, from every element that declares nothing, every
    /// element in `keep` and every use outside the list). A use keeps every element that
    /// holds the name, not only the one with its first occurrence, as if each might
    /// declare it (a struct's field `top` after another struct's `top`: measured, keeping
    /// only the first holder made this candidate fail on every level of va-arg). `live` as
    /// for [`Names::new`].
    pub fn dead(&self, elements: &[NodeId], keep: &dyn Fn(NodeId) -> bool, live: &[bool]) -> Vec<NodeId> {
        let t = self.tree;
        // Per token position: the element (index) holding it.
        let mut owner = vec![usize::MAX; self.identifier.len()];
        for (i, &e) in elements.iter().enumerate() {
            if let Some((span, _)) = self.positions(e) {
                owner[span].fill(i);
            }
        }
        let declarer = |name: &str| self.names.get(name).map_or(usize::MAX, |&(_, first)| owner[first]);
        // Per name, the elements that hold it: each may declare it.
        let mut holders: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut dead = vec![false; elements.len()];
        for (pos, &id) in t.token_ids().iter().enumerate() {
            let i = owner[pos];
            if i == usize::MAX || !self.identifier[pos] || !live[id.0 as usize] {
                continue;
            }
            let name = t.token_text(id);
            if declarer(name) == i {
                dead[i] = !keep(elements[i]);
            }
            let h = holders.entry(name).or_default();
            if h.last() != Some(&i) {
                h.push(i);
            }
        }
        loop {
            let mut changed = false;
            for (pos, &id) in t.token_ids().iter().enumerate() {
                let user = owner[pos];
                if !self.identifier[pos] || !live[id.0 as usize] || (user != usize::MAX && dead[user]) {
                    continue;
                }
                let name = t.token_text(id);
                let mut revive = |d: usize| {
                    if d != usize::MAX && dead[d] && d != user {
                        dead[d] = false;
                        changed = true;
                    }
                };
                holders.get(name).into_iter().flatten().for_each(|&d| revive(d));
            }
            if !changed {
                return elements.iter().zip(dead).filter(|(_, d)| *d).map(|(&e, _)| e).collect();
            }
        }
    }
}

mod members;
mod units;
use members::Members;
pub(crate) use units::Units;
