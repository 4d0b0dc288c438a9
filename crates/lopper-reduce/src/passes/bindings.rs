//! Coupled deletions around a C++ structured binding (issue 52, point 3: elements of two
//! lists whose counts must agree go together). `auto [f, g] = s;` binds one name per data
//! member of `s`'s class, or per element of `s`'s array: deleting a name alone, or a member
//! alone, leaves a program no compiler accepts, so Perses and the token passes never take
//! either. Two kinds of instance, for a binding `[…] = s;` whose `s` is declared `T s…`
//! before it:
//!
//! - **one name with what it binds**: name `i` (used nowhere else) deleted with data member
//!   `i` of class `T` (`struct T { int a; int b; };`, plain data members only, no base),
//!   or with one element of the array `T s[N]` (`N` made `N - 1`), and element `i` of
//!   `s`'s braced initializer where it has one per name;
//! - **an aggregate made an array**: class `T`, named nowhere but in its definition and in
//!   `s`'s declaration, whose members all have one type `U` and are named nowhere else,
//!   deleted, and `s` declared `U s[M]` (its `M` members), its initializer kept.
//!
//! Instance `k` is the `k`-th such edit, bindings in source order, for each its names in
//! order, then the array.

use super::arguments::{list_at, parent_name};
use super::{span, Context, Group, Instance, Kind, Pass, PassInfo};
use std::collections::HashMap;
use std::ops::Range;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Bindings {
    /// Each instance's edits: byte ranges of the best and the text each becomes.
    instances: Vec<Vec<(Range<usize>, String)>>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "bindings",
    plain: "deleting structured binding names with the members they bind",
    about: "a C++ structured binding's unused name deleted with the data member or array element it binds (and its initializer element), in one candidate; an aggregate bound by one made an array",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Bindings::default())
}

/// What `s`, the object a binding names, is declared as (token positions).
enum Bound {
    /// `U s[N]…`: the position of `N`.
    Array { size: usize },
    /// `T s…`, `T` a class: its definition from `struct` to the `;` after its body, and
    /// per data member its first and last position (`;` included).
    Class { definition: (usize, usize), members: Vec<(usize, usize)> },
}

impl Pass for Bindings {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Bindings::default()))
    }

    fn keeps_words(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        let ids = t.token_ids();
        let text = |p: usize| ids.get(p).map_or("", |&id| t.token_text(id));
        let mut count: HashMap<&str, usize> = HashMap::new();
        for &id in ids {
            *count.entry(t.token_text(id)).or_default() += 1;
        }
        let bytes = |a: usize, b: usize| span(t, ids[a]).start..span(t, ids[b]).end;
        for p in 0..ids.len() {
            if text(p) != "[" || parent_name(t, g, ids[p]) != Some("structured_binding_declarator") {
                continue;
            }
            let Some(names) = list_at(cx, p) else { continue };
            let n = names.items.len();
            // `[…] = s;` only.
            let (eq, s) = (names.close + 1, names.close + 2);
            if text(eq) != "=" || text(names.close + 3) != ";" || !crate::symbols::is_name(text(s)) {
                continue;
            }
            // The nearest declaration before the binding.
            let Some(decl) = (0..p).rev().find(|&q| text(q) == text(s) && declares_object(&text, q)) else { continue };
            let Some(bound) = bound(cx, decl) else { continue };
            let init = initializer(cx, decl).filter(|l| l.items.len() == n);
            let unused = |i: usize| names.items[i].0 == names.items[i].1 && count.get(text(names.items[i].0)) == Some(&1);
            for i in (0..n).filter(|&i| n >= 2 && unused(i)) {
                let mut edits = vec![(names.cut(t, i), String::new())];
                match &bound {
                    Bound::Array { size } if text(*size).parse::<usize>() == Ok(n) => edits.push((span(t, ids[*size]), (n - 1).to_string())),
                    Bound::Class { members, .. } if members.len() == n => edits.push((bytes(members[i].0, members[i].1), String::new())),
                    _ => continue,
                }
                if let Some(l) = &init {
                    edits.push((l.cut(t, i), String::new()));
                }
                self.instances.push(edits);
            }
            // The aggregate made an array: `T` and its members named nowhere else.
            if let Bound::Class { definition: (a, b), members } = &bound {
                let class = text(decl - 1);
                let types: Vec<Vec<&str>> = members.iter().map(|&(x, y)| (x..y - 1).map(text).collect()).collect();
                let names_once = members.iter().all(|&(_, y)| count.get(text(y - 1)) == Some(&1));
                if !members.is_empty() && count.get(class) == Some(&2) && names_once && types.iter().all(|u| *u == types[0] && !u.is_empty()) {
                    let array = format!("{} {}[{}]", types[0].join(" "), text(decl), members.len());
                    self.instances.push(vec![(bytes(*a, *b), String::new()), (bytes(decl - 1, decl), array)]);
                }
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

/// What the object declared at position `decl` is: an array of a literal size, or of a
/// class defined before it with plain data members only.
fn bound(cx: Context<'_>, decl: usize) -> Option<Bound> {
    let t = cx.tree;
    let ids = t.token_ids();
    let text = |p: usize| ids.get(p).map_or("", |&id| t.token_text(id));
    if text(decl + 1) == "[" {
        return (text(decl + 3) == "]" && text(decl + 2).parse::<usize>().is_ok()).then_some(Bound::Array { size: decl + 2 });
    }
    let class = text(decl - 1);
    let head = (1..decl).find(|&q| text(q) == class && matches!(text(q - 1), "struct" | "class") && text(q + 1) == "{")?;
    let open = head + 1;
    let mut members = Vec::new();
    let mut start = open + 1;
    let mut q = open + 1;
    loop {
        match text(q) {
            "}" if text(q + 1) == ";" => break,
            ";" => {
                // A plain data member: words and `*` only, its last word its name.
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
        q += 1;
    }
    Some(Bound::Class { definition: (head - 1, q + 1), members })
}

/// The braced initializer of the object declared at position `decl` (`s{…}`, `s = {…}`,
/// `s[N] = {…}`), as a list.
fn initializer(cx: Context<'_>, decl: usize) -> Option<super::arguments::List> {
    let t = cx.tree;
    let ids = t.token_ids();
    let text = |p: usize| ids.get(p).map_or("", |&id| t.token_text(id));
    let mut q = decl + 1;
    if text(q) == "[" {
        q += 3;
    }
    if text(q) == "=" {
        q += 1;
    }
    (text(q) == "{").then(|| list_at(cx, q)).flatten()
}
