//! A list's reference graph ([`Units`]): its heads, and what goes with any set of them.

use super::Names;
use crate::engine::Closure;
use crate::symbols::{declares_operator, is, is_body, live_texts, INNER_SCOPES};
use lopper_tree::{NodeId, Tree};

/// A list's elements as the reference graph among them (see the module docs): its heads
/// and, for any set of heads deleted, what goes with them.
#[derive(Debug)]
pub(crate) struct Units {
    /// The heads that may go, in list order (see [`Units::implicit_last`]).
    heads: Vec<NodeId>,
    /// Per head (same order), its index in `items`.
    head_at: Vec<usize>,
    /// The list's live elements, in order.
    items: Vec<NodeId>,
    /// Per element, the elements it names (indices, ascending).
    edges: Vec<Vec<usize>>,
    /// Per element, whether it stays whatever goes (see [`Units::of`]).
    stays: Vec<bool>,
    /// The operators, specializations and overloads found by their arguments' types at
    /// namespace scope (indices): each stays exactly while all it names stays.
    implicit: Vec<usize>,
}

impl Units {
    /// The reference graph of `items` (a list's live elements, in order) of `tree` under a
    /// state whose live nodes are `live` and whose identifiers `names` holds. An element
    /// stays that `keep` holds or whose name is used outside the list, and so does all it
    /// names; so does an element without a name, and, in a function or class body, an
    /// element that declares no name (a statement, `public:`). The heads are the other
    /// elements no element names, and one element of each group that names only each
    /// other: at namespace scope, a declaration nothing uses, an explicit instantiation.
    /// At namespace scope, an operator, a specialization, or an overload found by its
    /// arguments' types is no head: it stays exactly while all it names stays; a member
    /// defined outside its class is named by the class.
    pub(crate) fn of(names: &Names<'_>, tree: &Tree, live: &[bool], items: &[NodeId], keep: &dyn Fn(NodeId) -> bool) -> Units {
        Units::build(names, tree, live, items, keep, false)
    }

    /// As [`Units::of`], but what that attaches to what it names is a head of its own where
    /// nothing names it: an operator, a specialization, an overload found by its
    /// arguments' types, a member defined outside its class. For a second search once the
    /// heads of [`Units::of`] that the test needs are kept: each such element of a kept
    /// class or template may go alone (an unused `swap(deque&, deque&)`, a member function
    /// no kept code calls), where [`Units::of`] keeps it as long as its class.
    pub(crate) fn detached(names: &Names<'_>, tree: &Tree, live: &[bool], items: &[NodeId], keep: &dyn Fn(NodeId) -> bool) -> Units {
        Units::build(names, tree, live, items, keep, true)
    }

    fn build(names: &Names<'_>, tree: &Tree, live: &[bool], items: &[NodeId], keep: &dyn Fn(NodeId) -> bool, detached: bool) -> Units {
        let n = items.len();
        let ids = tree.token_ids();
        let list = items.first().and_then(|&e| tree.node(e).parent);
        let local = list
            .is_some_and(|l| std::iter::once(l).chain(tree.ancestors(l)).any(|a| is(tree, names.grammar, a, &INNER_SCOPES) || is_body(tree, names.grammar, a)));
        // Per token position: the element (index) holding it.
        let mut owner = vec![usize::MAX; ids.len()];
        for (i, &e) in items.iter().enumerate() {
            owner[tree.subtree_token_range(e)].fill(i);
        }
        // At namespace scope, an overload (a function whose name other elements declare
        // too) that names a class of the program in its parameters is found by its
        // arguments' types (`swap(deque&, deque&)`, `begin(valarray&)`): no use of its name
        // needs it; like an operator, it stays exactly while all it names stays.
        let overload = if local { vec![false; n] } else { overloads(names, tree, &owner, n) };
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut declares = vec![false; n];
        let mut outside = vec![false; n];
        let mut named = vec![false; n];
        let mut has_name = vec![false; n];
        let using = names.namespaces.as_ref().map_or(&[][..], |ns| &ns.using_declarations[..]);
        for (pos, &id) in ids.iter().enumerate() {
            if !names.is_identifier(pos) || !live[id.0 as usize] {
                continue;
            }
            let name = tree.token_text(id);
            let first = names.first(name);
            let targets = names.declarations(name, &first, list, pos);
            let u = owner[pos];
            if u != usize::MAX {
                has_name[u] = true;
            }
            // A declaration is no use; a use needs every declaration of its name. A
            // using-declaration the lookup counts as a declaration (`using
            // __pstl::execution::seq;` in `std::execution`: namespaces go by name) is
            // both: it needs what it brings in.
            if targets.binary_search(&pos).is_ok() {
                if u != usize::MAX {
                    declares[u] = true;
                }
                if using.binary_search(&pos).is_err() {
                    continue;
                }
            }
            for &t in targets.iter() {
                let d = owner[t];
                if d == usize::MAX {
                    continue;
                }
                if u == usize::MAX {
                    outside[d] = true;
                } else if overload[d] {
                    continue;
                } else if u != d {
                    edges[u].push(d);
                    named[d] = true;
                }
            }
        }
        // A using-directive changes what every later use sees: one that is an element of
        // its own stays (one inside a namespace's body goes with that body).
        for &d in names.namespaces.as_ref().map_or(&[][..], |ns| &ns.directives[..]) {
            let u = owner[d];
            if u != usize::MAX && ids[tree.subtree_token_range(items[u])].iter().find(|&&t| live[t.0 as usize]).is_some_and(|&t| tree.token_text(t) == "using")
            {
                outside[u] = true;
            }
        }
        // An element without a name (what the parser's recovery split off a declaration's
        // head, such as `((__visibility__ ("default")))`) declares nothing: Perses' to delete.
        let stays: Vec<bool> = (0..n).map(|i| (local && !declares[i]) || !has_name[i] || outside[i] || keep(items[i])).collect();
        // What tree-sitter's recovery split goes or stays whole: the elements from one that
        // opens a block to the one holding its `}` (`namespace std __attribute__ …` and its
        // `}` apart), or, where no element holds it, to the end of the opener's own list (a
        // class the recovery ended early: its `}` closed the namespace, and its last members
        // follow it there, but not the namespaces after); and the element after a fragment,
        // one that at namespace scope ends with neither `;` nor `}` (`template <…>`); a `#`
        // line is whole. Two such neighbours name each other.
        let live_text = |e: NodeId| live_texts(tree, live, e);
        let ends = |e: NodeId| live_text(e).next_back();
        // tied[i]: element i goes with element i - 1 (a difference array over the ranges).
        let mut tied = vec![0i64; n + 1];
        let mut open = Vec::new();
        for (i, &e) in items.iter().enumerate() {
            for t in live_text(e) {
                match t {
                    "{" => open.push(i),
                    "}" => {
                        if let Some(o) = open.pop().filter(|&o| o < i) {
                            tied[o + 1] += 1;
                            tied[i + 1] -= 1;
                        }
                    }
                    _ => {}
                }
            }
        }
        // Per element, the last element of the run of elements with its parent.
        let parent = |i: usize| tree.node(items[i]).parent;
        let mut run_end: Vec<usize> = (0..n).collect();
        for i in (0..n.saturating_sub(1)).rev() {
            if parent(i) == parent(i + 1) {
                run_end[i] = run_end[i + 1];
            }
        }
        for o in open {
            tied[o + 1] += 1;
            tied[run_end[o] + 1] -= 1;
        }
        let mut inside = 0i64;
        for i in 0..n {
            inside += tied[i];
            if i > 0 {
                let before = items[i - 1];
                let fragment = !local && !live_text(before).next().is_some_and(|t| t.starts_with('#')) && !matches!(ends(before), Some(";" | "}"));
                if inside > 0 || fragment {
                    edges[i - 1].push(i);
                    edges[i].push(i - 1);
                    named[i - 1] = true;
                    named[i] = true;
                }
            }
        }
        // At namespace scope, what is used without being named, an operator (through
        // expressions), a specialization (through its template), an overload (through its
        // arguments' types), goes with what it names, never on its own (not a head).
        let mut implicit = vec![false; n];
        for i in (0..n).filter(|&i| !detached && !local && !stays[i] && (!declares[i] || overload[i])) {
            match (declares_operator(tree, names.grammar, live, items[i]) || overload[i], qualifier(names, tree, live, items[i])) {
                (true, _) | (false, Some(Err(_))) => implicit[i] = !named[i],
                // A member defined outside its class (`T X::m = …;`) stays with its class.
                (false, Some(Ok(p))) => {
                    let name = tree.token_text(ids[p]);
                    for &t in names.declarations(name, &names.first(name), list, p).iter() {
                        if owner[t] != usize::MAX && owner[t] != i {
                            edges[owner[t]].push(i);
                            named[i] = true;
                        }
                    }
                }
                (false, None) => {}
            }
        }
        for e in &mut edges {
            e.sort_unstable();
            e.dedup();
        }
        // The roots, then one element of each group no root reaches (cycles), in list order.
        let mut head_at: Vec<usize> = (0..n).filter(|&i| !stays[i] && !named[i] && !implicit[i]).collect();
        let mut reached = implicit.clone();
        for i in (0..n).filter(|&i| stays[i] || (!named[i] && !implicit[i])) {
            reach(&edges, i, &mut reached);
        }
        // By decreasing DFS finish time, the first unreached element of each group lies in
        // a group no other unreached group names (as in Kosaraju's first pass).
        for i in finish_order(&edges, &reached).into_iter().rev() {
            if !reached[i] {
                head_at.push(i);
                reach(&edges, i, &mut reached);
            }
        }
        head_at.sort_unstable();
        let implicit = (0..n).filter(|&i| implicit[i]).collect();
        Units { heads: head_at.iter().map(|&i| items[i]).collect(), head_at, items: items.to_vec(), edges, stays, implicit }
    }

    /// The same graph with the heads whose deletion alone takes an operator, a
    /// specialization or an overload ([`Units::of`]) after the others, each part in list
    /// order. Such a deletion (`__make_unsigned_selector_base`, which only a partial
    /// specialization names) fails a validity test while code that needs the
    /// specialization through its template stays, a use the graph cannot see; ddmin tries
    /// chunks in order, so with these last that code has mostly gone first. On the 920k
    /// case such failures were most of the first ddmin's.
    pub(crate) fn implicit_last(mut self) -> Units {
        let takes = self.takes_implicit();
        let (mut first, mut last) = (Vec::new(), Vec::new());
        for (k, (&h, &i)) in self.heads.iter().zip(&self.head_at).enumerate() {
            if takes[k] { &mut last } else { &mut first }.push((h, i));
        }
        (self.heads, self.head_at) = first.into_iter().chain(last).unzip();
        self
    }

    /// Per head, whether deleting it alone takes an operator, a specialization or an
    /// overload: one names an element that only this head reaches. One pass over the
    /// graph: each element is owned by the one head that reaches it, or by many.
    fn takes_implicit(&self) -> Vec<bool> {
        const NONE: usize = usize::MAX;
        const MANY: usize = usize::MAX - 1;
        let mut owner = vec![NONE; self.items.len()];
        // Each element goes from NONE to a head to MANY at most: linear in the graph.
        let spread = |from: usize, who: usize, owner: &mut Vec<usize>| {
            let mut stack = vec![(from, who)];
            while let Some((u, w)) = stack.pop() {
                let next = match owner[u] {
                    NONE => w,
                    o if o == w || o == MANY => continue,
                    _ => MANY,
                };
                owner[u] = next;
                stack.extend(self.edges[u].iter().map(|&v| (v, next)));
            }
        };
        for i in (0..self.items.len()).filter(|&i| self.stays[i]) {
            spread(i, MANY, &mut owner);
        }
        for &i in &self.head_at {
            spread(i, i, &mut owner);
        }
        let mut takes = vec![false; self.items.len()];
        for &s in &self.implicit {
            for &d in &self.edges[s] {
                if owner[d] < MANY {
                    takes[owner[d]] = true;
                }
            }
        }
        self.head_at.iter().map(|&i| takes[i]).collect()
    }

    /// The heads that may go, in list order (see [`Units::implicit_last`]).
    pub(crate) fn heads(&self) -> &[NodeId] {
        &self.heads
    }

    /// Per head, the other elements that go when it goes alone.
    #[cfg(test)]
    pub(crate) fn members(&self) -> Vec<Vec<NodeId>> {
        (0..self.heads.len())
            .map(|k| {
                let mut deleted = vec![false; self.heads.len()];
                deleted[k] = true;
                let mut unit = self.close(&mut deleted);
                unit.sort_unstable();
                unit
            })
            .collect()
    }
}

impl Closure for Units {
    /// What goes with the marked heads (`deleted`: one flag per head): every element that
    /// neither a staying element nor a remaining head reaches any more. What remains then
    /// names nothing deleted: a remaining element naming a deleted one would reach it.
    fn close(&self, deleted: &mut [bool]) -> Vec<NodeId> {
        let mut reached = vec![false; self.items.len()];
        let mut is_head = vec![false; self.items.len()];
        for (k, &i) in self.head_at.iter().enumerate() {
            is_head[i] = true;
            if !deleted[k] {
                reach(&self.edges, i, &mut reached);
            }
        }
        for i in (0..self.items.len()).filter(|&i| self.stays[i]) {
            reach(&self.edges, i, &mut reached);
        }
        // An operator, a specialization or an overload stays while all it names stays (one
        // may name another).
        let mut changed = true;
        while std::mem::take(&mut changed) {
            for &i in &self.implicit {
                if !reached[i] && self.edges[i].iter().all(|&d| reached[d]) {
                    reached[i] = true;
                    changed = true;
                }
            }
        }
        (0..self.items.len()).filter(|&i| !reached[i] && !is_head[i]).map(|i| self.items[i]).collect()
    }

    /// A unit takes what only its head uses, never a user: its head alone goes validly too.
    fn takes_users(&self) -> bool {
        false
    }
}

/// What element `e` (declaring no name of its own) qualifies or specializes, from its first
/// live identifier followed by `::` or `<`: `Ok` with that identifier's token position where
/// `::` follows (`X` in `T X::m`, a member defined outside its class), `Err` where `<`
/// follows (`hash<int>`, a specialization); `None` for neither, or an explicit
/// instantiation (`template class …`, `extern template …`), which goes on its own.
fn qualifier(names: &Names<'_>, tree: &Tree, live: &[bool], e: NodeId) -> Option<Result<usize, usize>> {
    let ids = tree.token_ids();
    let span = tree.subtree_token_range(e);
    let live_at: Vec<usize> = span.filter(|&p| live[ids[p].0 as usize]).collect();
    let text = |k: usize| live_at.get(k).map(|&p| tree.token_text(ids[p]));
    if text(0) == Some("extern") || (text(0) == Some("template") && text(1) != Some("<")) {
        return None;
    }
    let k = (0..live_at.len()).find(|&k| names.is_identifier(live_at[k]) && matches!(text(k + 1), Some("::" | "<")))?;
    Some(if text(k + 1) == Some("::") { Ok(live_at[k]) } else { Err(live_at[k]) })
}

/// Per element (`owner`: per token position, the element holding it; `n` elements): whether
/// it is an overload found by its arguments' types: it declares a function whose name
/// another element declares too, and a parameter's type names a class or a template
/// (an identifier followed by `<`, `&` or `*` in its parameter list, not one of its own
/// template parameters).
fn overloads(names: &Names<'_>, tree: &Tree, owner: &[usize], n: usize) -> Vec<bool> {
    let ids = tree.token_ids();
    let text = |p: usize| ids.get(p).map(|&t| tree.token_text(t));
    let mut out = vec![false; n];
    for (name, decls) in &names.decls {
        let mut holders: Vec<usize> = decls.iter().map(|&p| owner[p]).filter(|&o| o != usize::MAX).collect();
        holders.dedup();
        if holders.len() < 2 || name.starts_with("operator") {
            continue;
        }
        for &p in decls {
            let o = owner[p];
            if o == usize::MAX || text(p + 1) != Some("(") {
                continue;
            }
            // The parameter list: from `(` to its `)`.
            let (mut depth, mut q) = (0i32, p + 1);
            let mut typed = false;
            while let Some(t) = text(q) {
                depth += (t == "(") as i32 - (t == ")") as i32;
                if depth == 0 {
                    break;
                }
                if names.identifier[q] && matches!(text(q + 1), Some("<" | "&" | "*" | "&&")) && names.decls.contains_key(t) {
                    typed = true;
                }
                q += 1;
            }
            out[o] |= typed;
        }
    }
    out
}

/// The nodes not `skip`ped in increasing DFS finish time (postorder) along `edges`, each
/// search started from the lowest node not yet visited.
fn finish_order(edges: &[Vec<usize>], skip: &[bool]) -> Vec<usize> {
    let mut seen = skip.to_vec();
    let mut order = Vec::new();
    for start in 0..edges.len() {
        if std::mem::replace(&mut seen[start], true) {
            continue;
        }
        // An explicit stack: lists of thousands of elements nest deeply.
        let mut stack = vec![(start, 0usize)];
        while let Some((u, k)) = stack.pop() {
            if let Some(&v) = edges[u].get(k) {
                stack.push((u, k + 1));
                if !std::mem::replace(&mut seen[v], true) {
                    stack.push((v, 0));
                }
            } else {
                order.push(u);
            }
        }
    }
    order
}

/// Marks in `reached` every node reachable from `from` along `edges`.
fn reach(edges: &[Vec<usize>], from: usize, reached: &mut [bool]) {
    if std::mem::replace(&mut reached[from], true) {
        return;
    }
    let mut stack = vec![from];
    while let Some(u) = stack.pop() {
        for &v in &edges[u] {
            if !std::mem::replace(&mut reached[v], true) {
                stack.push(v);
            }
        }
    }
}
