//! Which C++ namespace each token of a program lies in, read from its tokens (`namespace N
//! … {`, the braces), not from the tree, which a parser's error recovery may have
//! broken (stock tree-sitter-cpp 0.23.4 reads libstdc++'s `namespace std __attribute__
//! ((…)) {` as an error, and its declarations as the file's own). The reference graph
//! ([`crate::graph`]) asks it which declarations of a name a use can see: an unqualified
//! `size_t` in the global namespace means `::size_t`, not `std::size_t`, so a program's
//! own code does not tie the standard library to itself; and where a namespace around the
//! use declares the name before it, that declaration hides those further out
//! ([`Namespaces::hide`]).
//! A guess that is too narrow costs a failed test, never a wrong result; where lookup is
//! beyond a scan of tokens (argument-dependent lookup, using-declarations), the graph falls
//! back to every declaration of the name.

use crate::symbols::is_word;
use lopper_tree::Tree;
use std::borrow::Cow;

/// The namespaces of a program and the one each live token lies in (C++ scoping, ISO C++
/// \[basic.lookup.unqual\]: a use sees its own namespace and those enclosing it, an inline or
/// unnamed namespace's members as its parent's, and a namespace a using-directive names
/// from everywhere, which is wider than the standard's rule on purpose).
pub(crate) struct Namespaces<'t> {
    /// Per token position of [`Tree::token_ids`]: the namespace (index) it lies in; 0 is
    /// the global namespace.
    of: Vec<u32>,
    /// Per namespace: its enclosing namespace (the global one's is itself).
    parent: Vec<u32>,
    /// Per namespace: its name ("" for the global and unnamed ones).
    name: Vec<&'t str>,
    /// Per namespace: whether its members are visible where its parent's are (inline,
    /// unnamed, or named by a using-directive anywhere).
    open: Vec<bool>,
    /// Per namespace: whether it is inline or unnamed, its members its parent's by
    /// declaration (not only seen there through a using-directive): what name hiding
    /// compares.
    transparent: Vec<bool>,
    /// The namespaces' names.
    names: foldhash::HashSet<&'t str>,
    /// The names a using-declaration (`using std::swap;`) brings into another namespace.
    used: foldhash::HashSet<&'t str>,
    /// The token positions of those names in the using-declarations, in order: each
    /// declares its name where it stands.
    pub(crate) using_declarations: Vec<usize>,
    /// The token positions of `namespace` in the using-directives (`using namespace std;`),
    /// in order: what sees a name through one needs it.
    pub(crate) directives: Vec<usize>,
    /// Per token position: the live token before it (`u32::MAX`: none).
    prev: Vec<u32>,
    /// The token positions of the `->` that begin a trailing return type, in order: a
    /// type follows it, not a member (see [`Namespaces::scan`]).
    returns: Vec<usize>,
    /// Per token position: whether `::` follows it.
    qualifies: Vec<bool>,
    /// Per token position: whether `(` follows it: a call, which argument-dependent lookup
    /// may resolve to a declaration that ordinary lookup hides.
    calls: Vec<bool>,
    /// Per token position: whether `namespace` (not `using namespace`) comes before it: a
    /// namespace opened or reopened, which needs no other declaration of it.
    opens: Vec<bool>,
    tree: &'t Tree,
}

/// How a use names what it means, by the tokens before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lookup<'t> {
    /// After `.` or `->`: a member, never a declaration at namespace scope.
    Member,
    /// After `Q::`: `Some(Q)` where Q names a namespace, `None` for a class or `::` alone.
    Qualified(Option<&'t str>),
    /// Unqualified.
    Plain,
}

impl<'t> Namespaces<'t> {
    /// The namespaces of `tree`'s live tokens (`live`: one flag per node); `None` where
    /// the program opens none, as in C: then every declaration is visible everywhere.
    /// `returns`: the token positions, in order, of the `->` that begin a trailing return
    /// type (`auto f(T) -> R<T>`), which tokens alone cannot tell from a member access
    /// (`f()->m`): what follows one is looked up as a plain name.
    pub(crate) fn scan(tree: &'t Tree, live: &[bool], returns: Vec<usize>) -> Option<Namespaces<'t>> {
        let ids = tree.token_ids();
        let text = |pos: usize| tree.token_text(ids[pos]);
        let positions: Vec<usize> = (0..ids.len()).filter(|&p| live[ids[p].0 as usize]).collect();
        if !positions.iter().any(|&p| text(p) == "namespace") {
            return None;
        }
        let (mut prev, mut qualifies, mut opens) = (vec![u32::MAX; ids.len()], vec![false; ids.len()], vec![false; ids.len()]);
        let mut calls = vec![false; ids.len()];
        for (k, w) in positions.windows(2).enumerate() {
            prev[w[1]] = w[0] as u32;
            qualifies[w[0]] = text(w[1]) == "::";
            calls[w[0]] = text(w[1]) == "(";
            opens[w[1]] = text(w[0]) == "namespace" && (k == 0 || text(positions[k - 1]) != "using");
        }
        let mut ns = Namespaces {
            of: vec![0; ids.len()],
            parent: vec![0],
            name: vec![""],
            open: Vec::new(),
            transparent: vec![false],
            names: Default::default(),
            used: Default::default(),
            using_declarations: Vec::new(),
            directives: Vec::new(),
            prev,
            returns,
            qualifies,
            calls,
            opens,
            tree,
        };
        let mut interned: foldhash::HashMap<(u32, &str), u32> = Default::default();
        let mut directives: Vec<&str> = Vec::new();
        let (mut stack, mut current) = (Vec::new(), 0u32);
        // The namespace definition being read: whether `inline`, and its names (`a::b`).
        let mut pending: Option<(bool, Vec<&str>)> = None;
        for (k, &pos) in positions.iter().enumerate() {
            ns.of[pos] = current;
            let before = |n: usize| k.checked_sub(n).map(|j| text(positions[j]));
            match text(pos) {
                "namespace" if before(1) == Some("using") => {
                    let last = positions[k + 1..].iter().map(|&p| text(p)).take_while(|&t| t != ";").filter(|t| is_name(t)).last();
                    directives.extend(last);
                    ns.directives.push(pos);
                }
                "namespace" => pending = Some((before(1) == Some("inline"), Vec::new())),
                "using" => {
                    let mut last = None;
                    for &p in positions[k + 1..].iter().take_while(|&&p| text(p) != ";") {
                        if matches!(text(p), "=" | "namespace" | "(" | "{") {
                            last = None;
                            break;
                        }
                        last = is_name(text(p)).then_some(p).or(last);
                    }
                    ns.used.extend(last.map(text));
                    ns.using_declarations.extend(last);
                }
                t if is_name(t) && pending.as_ref().is_some_and(|(_, names)| names.is_empty() || before(1) == Some("::")) => {
                    if let Some((_, names)) = pending.as_mut() {
                        names.push(t);
                    }
                }
                "{" => {
                    stack.push(current);
                    if let Some((inline, names)) = pending.take() {
                        let unnamed = names.is_empty();
                        for n in names.iter().copied().chain(unnamed.then_some("")) {
                            current = *interned.entry((current, n)).or_insert_with(|| {
                                ns.parent.push(current);
                                ns.name.push(n);
                                ns.transparent.push(inline || unnamed);
                                ns.parent.len() as u32 - 1
                            });
                        }
                    }
                }
                "}" => current = stack.pop().unwrap_or(0),
                ";" | "=" => pending = None,
                _ => {}
            }
        }
        ns.open = ns.transparent.iter().zip(&ns.name).map(|(&t, name)| t || !name.is_empty() && directives.contains(name)).collect();
        ns.names = ns.name.iter().copied().filter(|n| !n.is_empty()).collect();
        Some(ns)
    }

    /// Whether a declaration at token position `decl` can be what the use at `at` means,
    /// the use qualified by `qualifier` (the name before its `::`, if any): the
    /// declaration's namespace, or the namespace whose members it is visible as, is the
    /// qualifier, or (unqualified) encloses the use.
    pub(crate) fn sees(&self, at: usize, decl: usize, qualifier: Option<&str>) -> bool {
        let mut d = self.of[decl];
        if let Some(q) = qualifier {
            loop {
                if self.name[d as usize] == q {
                    return true;
                }
                if d == 0 || !self.open[d as usize] {
                    return false;
                }
                d = self.parent[d as usize];
            }
        }
        let d = self.lift(d, &self.open);
        let mut u = self.of[at];
        loop {
            if u == d {
                return true;
            }
            if u == 0 {
                return false;
            }
            u = self.parent[u as usize];
        }
    }

    /// The namespace whose members those of namespace `n` count as: `n`'s parent, and so on
    /// out, while the namespace is one `through` marks (per namespace).
    fn lift(&self, mut n: u32, through: &[bool]) -> u32 {
        while n != 0 && through[n as usize] {
            n = self.parent[n as usize];
        }
        n
    }

    /// Whether `name` names a namespace.
    pub(crate) fn is_namespace(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The declarations among `decls` (token positions, ascending) that the use at token
    /// position `at` can mean: none for a member's use or a namespace's name before `::`
    /// (what it qualifies is the use) or after `namespace`; every one where the qualifier
    /// is a class, or where the scan sees none and a using-declaration names it; none
    /// where it sees none otherwise (an unqualified use of a class's member from inside
    /// the class; argument-dependent lookup, which the scan does not follow, costs a
    /// failed test); of an unqualified use that is no call, those name hiding leaves
    /// ([`Namespaces::hide`]).
    pub(crate) fn visible<'a>(&self, at: usize, name: &str, decls: &'a [usize]) -> Cow<'a, [usize]> {
        if (self.qualifies[at] || self.opens[at]) && self.is_namespace(name) {
            return Cow::Borrowed(&[]);
        }
        let qualifier = match self.lookup(at) {
            Lookup::Member => return Cow::Borrowed(&[]),
            // A qualified name is never its own declaration (`using std::swap;` declares
            // `swap` here and names std's).
            Lookup::Qualified(None) => return Cow::Owned(decls.iter().copied().filter(|&d| d != at).collect()),
            Lookup::Qualified(q) => q,
            Lookup::Plain => None,
        };
        let mut seen: Vec<usize> = decls.iter().copied().filter(|&d| self.sees(at, d, qualifier)).collect();
        if qualifier.is_none() && !self.calls[at] {
            seen = self.hide(at, seen);
        }
        if seen.len() == decls.len() {
            Cow::Borrowed(decls)
        } else if seen.is_empty() && self.used.contains(name) {
            Cow::Owned(decls.iter().copied().filter(|&d| d != at || qualifier.is_none()).collect())
        } else {
            Cow::Owned(seen)
        }
    }

    /// Name hiding in ordinary unqualified lookup (ISO C++ \[basic.lookup.unqual\]): of
    /// the declarations `seen` (token positions, ascending) from the use at `at`, those of
    /// the innermost namespace enclosing the use that declares the name before it hide
    /// those of the namespaces enclosing that one. A declaration's namespace here is the
    /// one it is a member of (an inline or unnamed namespace's members are its parent's),
    /// not where a using-directive shows it: a declaration seen only through a directive,
    /// and one after the use, is kept. libstdc++'s `std::__detail` declares its own
    /// `_Select1st`, and `using namespace __detail;` shows it in `std`: a use in
    /// `__detail` means `__detail`'s, not `std::_Select1st` too. A call is not narrowed
    /// (argument-dependent lookup finds what ordinary lookup hides).
    fn hide(&self, at: usize, seen: Vec<usize>) -> Vec<usize> {
        if seen.len() < 2 {
            return seen;
        }
        let member_of = |d: usize| self.lift(self.of[d], &self.transparent);
        let mut enclosing = vec![self.of[at]];
        while let Some(&u) = enclosing.last().filter(|&&u| u != 0) {
            enclosing.push(self.parent[u as usize]);
        }
        // Per declaration: how many namespaces out from the use its own lies.
        let level = |d: usize| enclosing.iter().position(|&n| n == member_of(d));
        let Some(innermost) = seen.iter().filter(|&&d| d < at).filter_map(|&d| level(d)).min() else { return seen };
        seen.into_iter().filter(|&d| level(d).is_none_or(|l| l <= innermost)).collect()
    }

    /// How the use at token position `at` names what it means.
    pub(crate) fn lookup(&self, at: usize) -> Lookup<'t> {
        let ids = self.tree.token_ids();
        let before = |p: usize| Some(self.prev[p]).filter(|&q| q != u32::MAX).map(|q| q as usize);
        let Some(p) = before(at) else { return Lookup::Plain };
        match self.tree.token_text(ids[p]) {
            "->" if self.returns.binary_search(&p).is_ok() => Lookup::Plain,
            "." | "->" => Lookup::Member,
            "::" => Lookup::Qualified(before(p).map(|q| self.tree.token_text(ids[q])).filter(|q| self.is_namespace(q))),
            _ => Lookup::Plain,
        }
    }
}

/// Whether token text `t` is a name (not an attribute's keyword).
fn is_name(t: &str) -> bool {
    is_word(t) && !matches!(t, "__attribute__" | "__attribute" | "__declspec" | "alignas")
}
