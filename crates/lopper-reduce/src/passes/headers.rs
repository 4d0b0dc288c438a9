//! Header inlining (C-Vise's pass that inlines a header included once, for several files):
//! in a project bundle ([`lopper_bundle`]), a file that exactly one `#include "…"` line of
//! the other files names takes that line's place and is deleted: one file and two tokens
//! fewer, and what the header and its includer hold is then one list for Perses and the
//! unused search. A header whose guard or position matters fails the test. Instance `k` is
//! the `k`-th such header in the bundle's order; variants are whole texts.

use super::{Context, Group, Instance, Kind, Pass, PassInfo};

/// The pass; see the module docs.
#[derive(Default)]
pub struct Headers {
    instances: Vec<String>,
}

/// This pass in the registry.
pub const INFO: PassInfo = PassInfo {
    name: "headers",
    plain: "inlining headers",
    about: "header inlining, for a project: a file that one #include \"...\" line of the other files names takes that line's place and is deleted (C-Vise's header inlining)",
    group: Group::Main,
    grows: false,
    kind: Kind::Transformation(create),
};

/// A new instance of this pass.
pub fn create() -> Box<dyn Pass> {
    Box::new(Headers::default())
}

/// The file an `#include "…"` line names, if it is one.
fn included(line: &str) -> Option<&str> {
    let rest = line.trim_start().strip_prefix('#')?.trim_start().strip_prefix("include")?.trim();
    rest.strip_prefix('"')?.split('"').next()
}

impl Pass for Headers {
    fn name(&self) -> &str {
        INFO.name
    }

    fn fresh(&self) -> Option<Box<dyn Pass>> {
        Some(Box::new(Headers::default()))
    }

    fn keeps_words(&self) -> bool {
        true
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.instances.clear();
        if !lopper_bundle::is_bundle(cx.best) {
            return;
        }
        let files = lopper_bundle::split(cx.best);
        for (h, header) in files.iter().enumerate() {
            // Every line of the other files that includes `header` (by its path's tail).
            let names = |inc: &str| header.path == inc || header.path.ends_with(&format!("/{inc}"));
            let mut includers = files
                .iter()
                .enumerate()
                .filter(|&(g, _)| g != h)
                .flat_map(|(g, f)| f.text.split_inclusive('\n').enumerate().filter(move |(_, l)| included(l).is_some_and(names)).map(move |(i, _)| (g, i)));
            let (Some((g, line)), None) = (includers.next(), includers.next()) else { continue };
            let text: String = files[g]
                .text
                .split_inclusive('\n')
                .enumerate()
                .map(|(i, l)| if i == line { format!("{}\n", header.text.trim()) } else { l.to_string() })
                .collect();
            let out = files.iter().enumerate().filter(|&(i, _)| i != h).map(|(i, f)| (f.path, if i == g { text.as_str() } else { f.text }));
            self.instances.push(lopper_bundle::join(out));
        }
    }

    fn instance(&self, _cx: Context<'_>, k: usize) -> Instance {
        self.instances.get(k).map_or(Instance::Exhausted, |text| Instance::Text(text.clone()))
    }
}
