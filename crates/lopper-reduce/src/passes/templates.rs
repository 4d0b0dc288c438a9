//! A template type parameter made `int` (C-Vise's `instantiate-template-type-param-to-int`
//! and `reduce-class-template-param`, without the language), and a template with one
//! parameter made a plain class or function (`class-template-to-class`). For the one C++
//! template declaration of a name `S` whose `i`-th parameter is a type parameter (`class T`,
//! `typename T`, without a default), instance `(S, i)` deletes that parameter, writes `int`
//! for every `T` in the declaration, and deletes the `i`-th argument of every use `S<…>`,
//! all in one candidate; when `T` was the only parameter, `template <…>` and every use's
//! `<…>` go. A name declared as a template more than once (a forward declaration, a
//! specialization) or with a use whose arguments are not as many as the parameters is left
//! alone. Instance `k` is the `k`-th `(S, i)` in source order.

use super::arguments::{list_at, parent_name, List};
use super::{span, Context, Group, Instance, Kind, Pass, PassInfo};
use std::collections::HashMap;
use std::ops::Range;

/// The pass; see the module docs.
#[derive(Default)]
pub struct Templates {
    /// Each instance's edits: byte ranges of the best and their new text.
    instances: Vec<Vec<(Range<usize>, &'static str)>>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "templates",
    plain: "making template parameters int",
    about: "a C++ template type parameter made int, with the matching argument of every use deleted; a template of one parameter made a plain class or function (C-Vise's instantiate-template-type-param-to-int and class-template-to-class, without the language)",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Templates::default())
}

/// One template declaration: its name, its parameter list, the token positions its
/// declaration spans after that list, and where `template` starts.
struct Declared<'a> {
    name: &'a str,
    parameters: List,
    rest: Range<usize>,
    template: usize,
}

impl Pass for Templates {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Templates::default()))
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        let (t, g) = (cx.tree, cx.grammar);
        let ids = t.token_ids();
        let text = |p: usize| t.token_text(ids[p]);
        let mut declared: Vec<Declared<'_>> = Vec::new();
        for n in super::all_named(cx, &["template_declaration"]) {
            let range = t.subtree_token_range(n);
            let open = range.start + 1;
            if let Some(parameters) = (text(range.start) == "template" && text(open) == "<").then(|| list_at(cx, open)).flatten() {
                let rest = parameters.close + 1..range.end;
                if let Some(name) = declared_name(cx, rest.clone()) {
                    declared.push(Declared { name, parameters, rest, template: range.start });
                }
            }
        }
        let mut times: HashMap<&str, usize> = HashMap::new();
        declared.iter().for_each(|d| *times.entry(d.name).or_default() += 1);
        // Every use `S<…>` of each name, by its argument list.
        let mut uses: HashMap<&str, Vec<List>> = HashMap::new();
        for (p, &id) in ids.iter().enumerate().skip(1) {
            if text(p) == "<" && parent_name(t, g, id) == Some("template_argument_list") && times.get(text(p - 1)) == Some(&1) {
                // A specialization (`struct S<int>`) is a declaration, not a use.
                if p >= 2 && matches!(text(p - 2), "struct" | "class" | "union") {
                    times.insert(text(p - 1), 0);
                    continue;
                }
                if let Some(l) = list_at(cx, p) {
                    uses.entry(text(p - 1)).or_default().push(l);
                }
            }
        }
        for d in declared.iter().filter(|d| times[d.name] == 1) {
            let n = d.parameters.items.len();
            let mine = uses.get(d.name).map_or(&[][..], |u| u.as_slice());
            if mine.iter().any(|u| u.items.len() != n) {
                continue;
            }
            for (i, &(first, last)) in d.parameters.items.iter().enumerate() {
                if last != first + 1 || !matches!(text(first), "class" | "typename") {
                    continue;
                }
                let param = text(last);
                let mut edits: Vec<(Range<usize>, &'static str)> = Vec::new();
                if n == 1 {
                    edits.push((span(t, ids[d.template]).start..span(t, ids[d.parameters.close]).end, ""));
                    edits.extend(mine.iter().map(|u| (span(t, ids[u.open]).start..span(t, ids[u.close]).end, "")));
                } else {
                    edits.push((d.parameters.cut(t, i), ""));
                    edits.extend(mine.iter().map(|u| (u.cut(t, i), "")));
                }
                // Uses inside the declaration lie in `rest`; `T` is replaced outside them.
                let cut: Vec<Range<usize>> = edits.iter().map(|(r, _)| r.clone()).collect();
                for q in d.rest.clone().filter(|&q| text(q) == param) {
                    let at = span(t, ids[q]);
                    if !cut.iter().any(|r| r.start <= at.start && at.end <= r.end) {
                        edits.push((at, "int"));
                    }
                }
                self.instances.push(edits);
            }
        }
    }

    fn instance(&self, cx: Context<'_>, k: usize) -> Instance {
        let Some(edits) = self.instances.get(k) else { return Instance::Exhausted };
        Instance::Text(super::splice(cx.best, edits.clone()))
    }
}

/// The name a template declares, from the tokens after its parameter list: the class
/// after `struct`/`class`/`union`, the alias after `using`, else the function (the name
/// before the first `(` of a parameter list).
fn declared_name<'a>(cx: Context<'a>, rest: Range<usize>) -> Option<&'a str> {
    let (t, g) = (cx.tree, cx.grammar);
    let ids = t.token_ids();
    let text = |p: usize| t.token_text(ids[p]);
    let first = rest.start;
    if first + 1 < rest.end && matches!(text(first), "struct" | "class" | "union" | "using") {
        return Some(text(first + 1)).filter(|_| t.node(ids[first + 1]).symbol.is_some_and(|s| g.is_identifier(s)));
    }
    let open = rest.clone().find(|&p| text(p) == "(" && parent_name(t, g, ids[p]) == Some("parameter_list"))?;
    let name = ids[open.checked_sub(1)?];
    t.node(name).symbol.is_some_and(|s| g.is_identifier(s)).then(|| t.token_text(name))
}
