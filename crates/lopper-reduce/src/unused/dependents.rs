//! Deletions that take their uses with them (after DRReduce, 2026), on the unused search's
//! name tables ([`Names`]): within a list, and, from a list whose declarations are seen
//! outside it, across the program.

use crate::graph::Names;
use crate::symbols::{DECLARED_NAME, PARAMETERS};
use foldhash::{HashMap, HashMapExt};
use lopper_grammar::PnfGrammar;
use lopper_tree::{NodeId, NodeKind, Tree};
use std::ops::Range;

/// Deletions that take their uses with them (after DRReduce, 2026): for the elements of one
/// list, which others use a name each declares (holds the first occurrence of), so that a
/// list minimizer's candidate deleting some elements also deletes, transitively, every
/// element of the list that would be left naming what went.
///
/// Scope-aware across lists (issue 43, point 2): where the list's declarations are seen
/// outside it (no function body or parameter list encloses it: a translation unit, a
/// namespace, a class body), each name an element *declares* takes its uses elsewhere in
/// the program too: each use's innermost statement or declaration (an element of a Kleene
/// star ending in `;` or `}`), if that does not enclose the list. Here an element declares
/// a name where it holds the name's first declaring occurrence (the name a declaration's
/// head gives: `int x = 1;`, `Foo gone() {`, `struct u {`, not a use line or an
/// expression), outside any scope of its own. A use is not taken where it is another
/// declaration, or where a parameter or local of that name is in scope. Such a *unit*
/// takes its own uses in turn: a local's after it in its function body, anything else's
/// anywhere, and the list's elements among them. (Measured on multi-rust: with first
/// occurrences instead, a file's `use` line took the declarations it imports from other
/// files as its uses, and the tree ended at 394 tokens instead of 106.)
///
/// By name, not by symbol table (as the rest of this module): a wrong guess costs a failed
/// test, never a wrong result. The closure only grows with the deletion, so the
/// minimizer's later candidates (subsets of an accepted keep) stay consistent with what an
/// accepted one took.
#[derive(Debug)]
pub(crate) struct Dependents {
    /// Per graph node (the list's elements by index, then the units): the graph nodes that
    /// use a name it declares.
    users: Vec<Vec<usize>>,
    /// The units outside the list: graph node `items + j` is `units[j]`.
    units: Vec<NodeId>,
    /// The number of the list's elements.
    items: usize,
}

/// A list gets [`Dependents`] only with at least this many elements: a shorter list's ddmin
/// tries each element on its own anyway.
pub(crate) const DEPENDENTS_MIN_ITEMS: usize = 3;

impl Dependents {
    /// The dependents among `items` (list `list`'s live elements, in order) of `tree` under
    /// a state whose live nodes are `live`, with the units outside the list that use them;
    /// `None` where nothing uses an element's name.
    pub(crate) fn new(tree: &Tree, live: &[bool], g: &PnfGrammar, list: NodeId, items: &[NodeId]) -> Option<Dependents> {
        let names = Names::new(tree, live, g);
        let mut declarer: HashMap<&str, usize> = HashMap::new();
        let mut holders: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, &e) in items.iter().enumerate() {
            let Some((span, ids)) = names.positions(e) else { continue };
            for (pos, &id) in span.zip(ids) {
                if !names.identifier[pos] || !live[id.0 as usize] {
                    continue;
                }
                let name = tree.token_text(id);
                if names.names[name].1 == pos {
                    declarer.insert(name, i);
                }
                let h = holders.entry(name).or_default();
                if h.last() != Some(&i) {
                    h.push(i);
                }
            }
        }
        let mut users = vec![Vec::new(); items.len()];
        for (name, d) in declarer {
            for &u in holders.get(name).into_iter().flatten() {
                if u != d {
                    users[d].push(u);
                }
            }
        }
        let mut d = Dependents { users, units: Vec::new(), items: items.len() };
        let scopes = Scopes { tree, g };
        if !scopes.inside_scope(list) {
            Across::new(tree, live, &names, scopes, list, items).run(&mut d);
        }
        for u in &mut d.users {
            u.sort_unstable();
            u.dedup();
        }
        d.users.iter().any(|u| !u.is_empty()).then_some(d)
    }

    /// The units outside the list (statements, declarations) its deletions may take.
    #[cfg(test)]
    pub(crate) fn units(&self) -> &[NodeId] {
        &self.units
    }
}

impl crate::engine::Closure for Dependents {
    /// Marks in `deleted` (one flag per element) every element that uses, transitively, a
    /// name an already marked element declares, and returns the units outside the list
    /// that go with them (in the order found).
    fn close(&self, deleted: &mut [bool]) -> Vec<NodeId> {
        let mut gone = vec![false; self.users.len()];
        let mut stack: Vec<usize> = (0..deleted.len()).filter(|&i| deleted[i]).collect();
        stack.iter().for_each(|&i| gone[i] = true);
        let mut units = Vec::new();
        while let Some(d) = stack.pop() {
            for &u in &self.users[d] {
                if !gone[u] {
                    gone[u] = true;
                    stack.push(u);
                    match u.checked_sub(self.items) {
                        None => deleted[u] = true,
                        Some(j) => units.push(self.units[j]),
                    }
                }
            }
        }
        units
    }

    fn takes_users(&self) -> bool {
        true
    }
}

/// Which nodes open a scope (function bodies and parameter lists).
#[derive(Clone, Copy)]
struct Scopes<'a> {
    tree: &'a Tree,
    g: &'a PnfGrammar,
}

impl Scopes<'_> {
    fn opens(&self, n: NodeId) -> bool {
        crate::symbols::is_body(self.tree, self.g, n) || self.is(n, &PARAMETERS)
    }

    fn is(&self, n: NodeId, symbols: &[&str]) -> bool {
        crate::symbols::is(self.tree, self.g, n, symbols)
    }

    /// Whether `n` or an ancestor opens a scope: what `n` declares is local.
    fn inside_scope(&self, n: NodeId) -> bool {
        self.opens(n) || self.tree.ancestors(n).any(|a| self.opens(a))
    }

    /// The innermost node opening a scope that encloses `n`, if any.
    fn enclosing(&self, n: NodeId) -> Option<NodeId> {
        self.tree.ancestors(n).find(|&a| self.opens(a))
    }
}

/// The search for the units outside a list that use its elements' names, transitively.
struct Across<'a, 't> {
    tree: &'t Tree,
    live: &'a [bool],
    names: &'a Names<'t>,
    scopes: Scopes<'t>,
    /// The list's token positions, and per position in it the element (index) holding it.
    list_span: Range<usize>,
    owner: Vec<usize>,
    items: &'a [NodeId],
    /// Per live identifier, its positions in source order (built at first need).
    occurrences: HashMap<&'t str, Vec<usize>>,
    /// The units found, by node.
    unit_index: HashMap<NodeId, usize>,
    /// Per name looked up, its first declaration ([`Self::first_declaration`]).
    first_declarations: HashMap<&'t str, Option<usize>>,
}

impl<'a, 't> Across<'a, 't> {
    fn new(tree: &'t Tree, live: &'a [bool], names: &'a Names<'t>, scopes: Scopes<'t>, list: NodeId, items: &'a [NodeId]) -> Self {
        let list_span = tree.subtree_token_range(list);
        let mut owner = vec![usize::MAX; list_span.len()];
        for (i, &e) in items.iter().enumerate() {
            let s = tree.subtree_token_range(e);
            owner[s.start - list_span.start..s.end - list_span.start].fill(i);
        }
        Across {
            tree,
            live,
            names,
            scopes,
            list_span,
            owner,
            items,
            occurrences: HashMap::new(),
            unit_index: HashMap::new(),
            first_declarations: HashMap::new(),
        }
    }

    /// Adds to `d` the edges out of the list: from each element and each unit found, to
    /// the units and elements using what it declares.
    fn run(mut self, d: &mut Dependents) {
        let mut stack: Vec<usize> = (0..self.items.len()).collect();
        while let Some(x) = stack.pop() {
            let node = match x.checked_sub(self.items.len()) {
                None => self.items[x],
                Some(j) => d.units[j],
            };
            for u in self.users_of(node, x < self.items.len(), d, &mut stack) {
                if u != x {
                    d.users[x].push(u);
                }
            }
        }
    }

    /// The graph nodes using what `node` declares (the names it holds a declaring
    /// occurrence of, [`Self::declaration`], outside any scope of its own: for an element
    /// of the list or a unit outside any function body, the name's first declaring
    /// occurrence); new units are added to `d` and pushed on `stack`.
    fn users_of(&mut self, node: NodeId, element: bool, d: &mut Dependents, stack: &mut Vec<usize>) -> Vec<usize> {
        let t = self.tree;
        let span = t.subtree_token_range(node);
        if self.occurrences.is_empty() {
            self.index();
        }
        // An element of the list, or a unit outside any function body, is seen
        // program-wide; a unit in a function body (a local) only there, after it.
        let local = if element { None } else { self.scopes.enclosing(node).map(|scope| t.subtree_token_range(scope)) };
        let mut declared: Vec<(&'t str, usize)> = Vec::new();
        for p in span.clone() {
            let id = t.token_ids()[p];
            if !self.names.identifier[p]
                || !self.live[id.0 as usize]
                || t.ancestors(id).take_while(|&a| a != node).any(|a| self.scopes.opens(a))
                || !self.declaration(p)
            {
                continue;
            }
            let name = t.token_text(id);
            if local.is_some() || self.first_declaration(name) == Some(p) {
                declared.push((name, p));
            }
        }
        let mut out = Vec::new();
        for (name, at) in declared {
            let uses = std::mem::take(self.occurrences.get_mut(name).expect("a live name"));
            for &p in &uses {
                let seen = match &local {
                    Some(scope) => scope.contains(&p) && p > at,
                    None => !self.shadowed(p, &uses),
                };
                if span.contains(&p) || !seen || self.declaration(p) {
                    continue;
                }
                if self.list_span.contains(&p) {
                    let i = self.owner[p - self.list_span.start];
                    if i != usize::MAX && !element {
                        out.push(i);
                    }
                    continue;
                }
                let Some(u) = self.unit(p, &span) else { continue };
                let next = self.unit_index.len() + self.items.len();
                let k = *self.unit_index.entry(u).or_insert_with(|| {
                    d.units.push(u);
                    d.users.push(Vec::new());
                    stack.push(next);
                    next
                });
                out.push(k);
            }
            self.occurrences.insert(name, uses);
        }
        out
    }

    /// The position of the first occurrence of `name` that declares it ([`Self::declaration`]).
    fn first_declaration(&mut self, name: &'t str) -> Option<usize> {
        if let Some(&first) = self.first_declarations.get(name) {
            return first;
        }
        let first = self.occurrences[name].iter().copied().find(|&q| self.declaration(q));
        self.first_declarations.insert(name, first);
        first
    }

    /// Whether the name at `p` declares it: it is the name of its statement, which is a
    /// declaration (the innermost element of a Kleene star holding it that ends in `;` or
    /// `}` has a symbol naming a declaration, definition, item or specifier, not an import)
    /// and its last identifier before any `(`, `=`, `:`, `::`, `.`, `,`, `[`, `{` or `;`
    /// outside angle brackets (`int x = 1;`, `Foo gone() {`, `struct u {`, `fn q<L>() ->`).
    fn declaration(&self, p: usize) -> bool {
        let t = self.tree;
        let Some(e) = self.statement(p) else { return false };
        let is_declaration = t.node(e).symbol.is_some_and(|s| {
            let n = self.scopes.g.symbol(s).name.as_str();
            (n.contains("declaration") || n.contains("definition") || n.ends_with("_item") || n.contains("specifier"))
                && !(n.contains("use") || n.contains("import"))
        });
        if !is_declaration {
            return false;
        }
        let mut depth = 0usize;
        let mut last = None;
        for q in t.subtree_token_range(e) {
            let id = t.token_ids()[q];
            if !self.live[id.0 as usize] {
                continue;
            }
            match t.token_text(id) {
                "<" => depth += 1,
                ">" => depth = depth.saturating_sub(1),
                ">>" => depth = depth.saturating_sub(2),
                "(" | "=" | ":" | "::" | "." | "," | "[" | "{" | ";" if depth == 0 => break,
                _ if depth == 0 && self.names.identifier[q] => last = Some(q),
                _ => {}
            }
        }
        last == Some(p)
    }

    /// Whether the name at `p` (whose positions are `uses`) is not the list's: a
    /// parameter's (declared by a parameter list there, or in the head of a body enclosing
    /// it: a function's, a lambda's) or a local's (a body enclosing it declares the name).
    fn shadowed(&self, p: usize, uses: &[usize]) -> bool {
        let t = self.tree;
        let parameter = |q: usize| {
            let id = t.token_ids()[q];
            self.scopes.is(id, &[DECLARED_NAME]) && t.ancestors(id).any(|a| self.scopes.is(a, &PARAMETERS))
        };
        let any_in =
            |r: Range<usize>, f: &dyn Fn(usize) -> bool| uses[uses.partition_point(|&q| q < r.start)..].iter().take_while(|&&q| q < r.end).any(|&q| f(q));
        parameter(p)
            || t.ancestors(t.token_ids()[p]).filter(|&a| crate::symbols::is_body(t, self.scopes.g, a)).any(|body| {
                let span = t.subtree_token_range(body);
                let head = t.node(body).parent.map_or(0..0, |f| t.subtree_token_range(f).start..span.start);
                any_in(head, &parameter) || any_in(span, &|q| q != p && self.declaration(q))
            })
    }

    /// Every live identifier's positions.
    fn index(&mut self) {
        let t = self.tree;
        for (pos, &id) in t.token_ids().iter().enumerate() {
            if self.names.identifier[pos] && self.live[id.0 as usize] {
                self.occurrences.entry(t.token_text(id)).or_default().push(pos);
            }
        }
    }

    /// The innermost live element of a Kleene star that holds the token at `p` and ends
    /// in `;` or `}` (a statement, a declaration), enclosing neither the list nor the
    /// tokens `from` of the node whose name it uses.
    fn unit(&self, p: usize, from: &Range<usize>) -> Option<NodeId> {
        let unit = self.statement(p)?;
        let span = self.tree.subtree_token_range(unit);
        let encloses = |r: &Range<usize>| span.start <= r.start && r.end <= span.end;
        (!encloses(&self.list_span) && !encloses(from)).then_some(unit)
    }

    /// The innermost live element of a Kleene star that holds the token at `p` and ends
    /// in `;` or `}`: its statement or declaration.
    fn statement(&self, p: usize) -> Option<NodeId> {
        let t = self.tree;
        let mut n = t.token_ids()[p];
        loop {
            let parent = t.node(n).parent?;
            if t.node(parent).kind == NodeKind::Star && self.live[n.0 as usize] {
                let span = t.subtree_token_range(n);
                let last = t.token_text(t.token_ids()[span.end - 1]);
                if last == ";" || last == "}" {
                    return Some(n);
                }
            }
            n = parent;
        }
    }
}
