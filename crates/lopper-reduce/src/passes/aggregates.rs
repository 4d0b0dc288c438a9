//! Coupled deletions around a C++ aggregate (issue 52, point 3: elements of two lists whose
//! counts must agree go together). A class of plain data members `struct T { int a; int
//! b; };` is initialized element by element (`T x{1, 2}`, `T x = {1, 2}`, `T{1, 2}`) and
//! bound name by name (`auto [f, g] = x;`); an array `U s[2]` the same. Deleting a member
//! alone, or a name or an element alone, leaves a program no compiler accepts (or one whose
//! elements initialize other members), so Perses and the token passes never take them.
//! Four kinds of instance:
//!
//! - **a member with all that matches it**: data member `i` of `T` (named nowhere else)
//!   deleted with element `i` of every braced initializer of `T`'s objects and temporaries
//!   (all of them with one element per member, or none) and name `i` of every structured
//!   binding of such an object (used nowhere else);
//! - **an array element with its name**: for `auto […] = s;` with `s` declared `U s[N]`,
//!   `N` names: name `i` (used nowhere else) deleted, `N` made `N - 1`, and element `i` of
//!   `s`'s braced initializer where it has `N`;
//! - **an aggregate made an array**: `T`, named nowhere but in its definition and in one
//!   object's declaration `T x`, whose members all have one type `U` and are named nowhere
//!   else, deleted, and `x` declared `U x[M]` (its `M` members), its initializer kept;
//! - **an aggregate of one member made a scalar**: `T` with the one member `U m`, named
//!   nowhere but in its objects' declarations, each object used only as `x.m` and bound by
//!   no binding, deleted; each `T x` becomes `U x` and each `x.m` becomes `x`.
//!
//! Only a class without a base, a template head or anything but data members (`int a, b;`
//! is not one member per declaration either) is taken. Instance `k` is the `k`-th such edit:
//! classes in source order, each member, then the array, then the scalar; then the
//! bindings of arrays.

use super::arguments::{list_at, parent_name, List};
use super::{span, Context, Group, Instance, Kind, Pass, PassInfo};
use lopper_tree::Tree;
use std::collections::HashMap;
use std::ops::Range;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Aggregates {
    /// Each instance's edits: byte ranges of the best and the text each becomes.
    instances: Vec<Vec<(Range<usize>, String)>>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "aggregates",
    plain: "deleting aggregate members with their initializers and bindings",
    about: "a C++ aggregate's data member deleted with the matching element of every braced initializer and the matching name of every structured binding, in one candidate; an array's element with its binding name; an aggregate used in one declaration made an array, and one of one member used only through it made that member",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Aggregates::default())
}

/// A structured binding `[…] = s;`: its names, and the position of `s`'s declaration.
struct Binding {
    names: List,
    object: usize,
}

impl Pass for Aggregates {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Aggregates::default()))
    }

    fn keeps_words(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        let ids = t.token_ids();
        let text = text_at(t);
        // Where each token text stands, ascending: one pass, so that each class's lookups
        // cost its own occurrences, not the program.
        let mut at: HashMap<&str, Vec<usize>> = HashMap::new();
        for (p, &id) in ids.iter().enumerate() {
            at.entry(t.token_text(id)).or_default().push(p);
        }
        let count = |p: usize| at.get(text(p)).map_or(0, Vec::len);
        let once = |p: usize| count(p) == 1;
        let after = |word: &str, from: usize| at.get(word).map_or(&[][..], |v| &v[v.partition_point(|&q| q < from)..]);
        let bytes = |a: usize, b: usize| span(t, ids[a]).start..span(t, ids[b]).end;
        let bindings: Vec<Binding> = (0..ids.len())
            .filter(|&p| text(p) == "[" && parent_name(t, g, ids[p]) == Some("structured_binding_declarator"))
            .filter_map(|p| {
                let names = list_at(cx, p)?;
                // `[…] = s;` only, `s` declared before it (the nearest declaration).
                let s = names.close + 2;
                if text(names.close + 1) != "=" || text(names.close + 3) != ";" || !crate::symbols::is_name(text(s)) {
                    return None;
                }
                let before = at.get(text(s)).map_or(&[][..], |v| &v[..v.partition_point(|&q| q < p)]);
                let object = before.iter().rev().copied().find(|&q| declares_object(&text, q))?;
                Some(Binding { names, object })
            })
            .collect();
        // A binding's name `i` can go: one token, used nowhere else.
        let name_goes = |b: &Binding, i: usize| b.names.items.len() >= 2 && b.names.items[i].0 == b.names.items[i].1 && once(b.names.items[i].0);
        for head in (1..ids.len()).filter(|&q| matches!(text(q - 1), "struct" | "class") && text(q + 1) == "{" && text(q.saturating_sub(2)) != ">") {
            let Some((end, members)) = class_at(cx, head).filter(|(_, m)| !m.is_empty()) else { continue };
            let n = members.len();
            let class = text(head);
            let objects: Vec<usize> = after(class, end).iter().filter(|&&q| declares_object(&text, q + 1)).map(|q| q + 1).collect();
            let temporaries = after(class, end).iter().filter(|&&q| text(q + 1) == "{").map(|&q| list_at(cx, q + 1));
            let Some(lists) = objects.iter().map(|&x| initializer(cx, x)).chain(temporaries.map(|l| l.map(Some))).collect::<Option<Vec<_>>>() else {
                continue;
            };
            let lists: Vec<List> = lists.into_iter().flatten().filter(|l| !l.items.is_empty()).collect();
            let designated = |l: &List| l.items.iter().any(|&(a, _)| text(a) == ".");
            let bound: Vec<&Binding> = bindings.iter().filter(|b| objects.contains(&b.object)).collect();
            if lists.iter().any(|l| l.items.len() != n || designated(l)) || bound.iter().any(|b| b.names.items.len() != n) {
                continue;
            }
            for i in (0..n).filter(|&i| once(members[i].1 - 1) && bound.iter().all(|b| name_goes(b, i))) {
                let mut edits = vec![(bytes(members[i].0, members[i].1), String::new())];
                edits.extend(lists.iter().map(|l| (l.cut(t, i), String::new())));
                edits.extend(bound.iter().map(|b| (b.names.cut(t, i), String::new())));
                self.instances.push(edits);
            }
            // The aggregate made an array: `T` and its members named nowhere else.
            let types: Vec<Vec<&str>> = members.iter().map(|&(x, y)| (x..y - 1).map(text).collect()).collect();
            let uniform = types.iter().all(|u| *u == types[0] && !u.is_empty());
            if let ([x], true, true) = (&objects[..], uniform, count(head) == 2 && members.iter().all(|&(_, y)| once(y - 1))) {
                let array = format!("{} {}[{n}]", types[0].join(" "), text(*x));
                self.instances.push(vec![(bytes(head - 1, end - 1), String::new()), (bytes(x - 1, *x), array)]);
            }
            // The aggregate of one member made that member: `T` named only in its objects'
            // declarations, each object used only as `x.m`, `m` nowhere else.
            if let ([(_, semi)], true, true) = (&members[..], bound.is_empty() && !objects.is_empty(), count(head) == 1 + objects.len()) {
                let m = semi - 1;
                let uses = |x: usize| after(text(x), end).iter().copied().filter(move |&q| q != x);
                let accesses: Option<Vec<usize>> =
                    objects.iter().flat_map(|&x| uses(x)).map(|q| (text(q + 1) == "." && text(q + 2) == text(m)).then_some(q)).collect();
                if let Some(accesses) = accesses.filter(|a| count(m) == 1 + a.len()) {
                    let mut edits = vec![(bytes(head - 1, end - 1), String::new())];
                    edits.extend(objects.iter().map(|&x| (span(t, ids[x - 1]), types[0].join(" "))));
                    edits.extend(accesses.iter().map(|&q| (bytes(q, q + 2), text(q).to_string())));
                    self.instances.push(edits);
                }
            }
        }
        for b in &bindings {
            let n = b.names.items.len();
            let (x, size) = (b.object, b.object + 2);
            if text(x + 1) != "[" || text(x + 3) != "]" || text(size).parse::<usize>() != Ok(n) {
                continue;
            }
            let init = initializer(cx, x).flatten().filter(|l| l.items.len() == n);
            for i in (0..n).filter(|&i| name_goes(b, i)) {
                let mut edits = vec![(b.names.cut(t, i), String::new()), (span(t, ids[size]), (n - 1).to_string())];
                edits.extend(init.iter().map(|l| (l.cut(t, i), String::new())));
                self.instances.push(edits);
            }
        }
    }

    fn instance(&self, cx: Context<'_>, k: usize) -> Instance {
        let Some(edits) = self.instances.get(k) else { return Instance::Exhausted };
        Instance::Text(super::splice(cx.best, edits.iter().map(|(r, with)| (r.clone(), with.as_str())).collect()))
    }
}

/// Whether the name at position `q` is declared there as an object: a type name before it,
/// and `;`, `=`, `{` or `[` after it.
fn declares_object<'a>(text: &impl Fn(usize) -> &'a str, q: usize) -> bool {
    q > 0 && crate::symbols::is_word(text(q - 1)) && matches!(text(q + 1), ";" | "=" | "{" | "[")
}

/// The class whose name is at position `head` (`struct T {`): the position just past its
/// definition (past the `;` after its body), and per data member its first position and
/// that of its `;`; `None` unless every member is a plain data member (words and `*`, its
/// last word its name, one per declaration) and the body is followed by `;`.
fn class_at(cx: Context<'_>, head: usize) -> Option<(usize, Vec<(usize, usize)>)> {
    let text = text_at(cx.tree);
    let ids = cx.tree.token_ids();
    let mut members = Vec::new();
    let mut start = head + 2;
    for q in head + 2..ids.len() {
        match text(q) {
            "}" if text(q + 1) == ";" => return Some((q + 2, members)),
            ";" => {
                let plain = q > start + 1 && (start..q).all(|x| crate::symbols::is_word(text(x)) || text(x) == "*") && crate::symbols::is_name(text(q - 1));
                let excluded = matches!(text(start), "static" | "using" | "typedef" | "friend" | "enum" | "struct" | "class" | "union" | "template");
                if !plain || excluded {
                    return None;
                }
                members.push((start, q));
                start = q + 1;
            }
            "" | "{" | "}" | "(" | ":" | "," | "=" | "[" => return None,
            _ => {}
        }
    }
    None
}

/// The braced initializer of the object declared at position `decl` (`s{…}`, `s = {…}`,
/// `s[N] = {…}`): `Some(None)` where it has none, `None` where its braces do not read as a
/// list (a trailing comma).
fn initializer(cx: Context<'_>, decl: usize) -> Option<Option<List>> {
    let text = text_at(cx.tree);
    let mut q = decl + 1;
    if text(q) == "[" {
        q += 3;
    }
    if text(q) == "=" {
        q += 1;
    }
    if text(q) != "{" {
        return Some(None);
    }
    list_at(cx, q).map(Some)
}

/// The text of the token at a position (as in [`Tree::token_ids`]); `""` past the end.
fn text_at<'t>(t: &'t Tree) -> impl Fn(usize) -> &'t str + Copy + 't {
    let ids = t.token_ids();
    move |p| ids.get(p).map_or("", |&id| t.token_text(id))
}
