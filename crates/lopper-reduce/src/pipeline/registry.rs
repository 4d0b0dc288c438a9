//! The pass registry (after C-Vise's `pass_name_mapping` and pass groups, Perses'
//! `ReducerAnnotation`): every pass declared once, in its own module, as a [`PassInfo`];
//! [`REGISTRY`] lists them in the default order, and `--passes` parses into a typed
//! [`Pipeline`] of first, main and last steps that `lopper` and `lopper generate` both
//! build the same way.

use crate::passes::{
    aggregates, aliases, arguments, bodies, calls, external, headers, hoist, identifiers, inline, layout, literals, params, pointers, subtrees, templates,
    tokens, zeros, CoarseSearch, Group, Kind, Pass, PassInfo,
};
use crate::{definitions, files, instances, perses, slices, unused};

/// Every pass, in the default order (`--passes` without the option). Adding a built-in
/// pass: its module with its `INFO`, and one line here.
pub const REGISTRY: [&PassInfo; 24] = [
    &definitions::INFO,
    &files::INFO,
    &slices::INFO,
    &instances::INFO,
    &unused::INFO,
    &perses::INFO,
    &identifiers::INFO,
    &literals::INFO,
    &zeros::INFO,
    &inline::INFO,
    &aliases::INFO,
    &bodies::INFO,
    &calls::INFO,
    &pointers::INFO,
    &params::INFO,
    &arguments::INFO,
    &aggregates::INFO,
    &templates::INFO,
    &hoist::INFO,
    &headers::INFO,
    &subtrees::INFO,
    &tokens::INFO,
    &external::CLANG_DELTA,
    &layout::INFO,
];

/// The registry entry named `name`.
pub fn find(name: &str) -> Option<&'static PassInfo> {
    REGISTRY.iter().copied().find(|p| p.name == name)
}

/// What the pass or part of Perses that `Stats::pass_stats` counts as `name` does, in
/// plain words (`PassInfo::plain`, `stats::COUNTED_APART`); `name` itself for the rest
/// (a clang_delta transformation, a `--transform`).
pub fn plain(name: &str) -> &str {
    find(name).map(|p| p.plain).or_else(|| crate::stats::COUNTED_APART.iter().find(|c| c.0 == name).map(|c| c.1)).unwrap_or(name)
}

/// A `--passes` name the registry does not know.
#[derive(Debug, thiserror::Error)]
#[error("unknown pass `{name}` (known: {}; see --list-passes)", REGISTRY.iter().map(|p| p.name).collect::<Vec<_>>().join(", "))]
pub struct UnknownPass {
    /// The name given.
    pub name: String,
}

/// One step of a [`Pipeline`].
pub enum Step {
    /// Perses' own search (Algorithm 2), to its own fixpoint.
    Perses,
    /// The unused-declarations search, part of each Perses round.
    Unused,
    /// Every instance of one transformation at once, then a coarse ddmin over them.
    Coarse(CoarseSearch),
    /// A transformation in Regehr's contract (built in, an external command, or a pass
    /// from outside this crate); consecutive ones run as one round of the scheduler.
    Pass(Box<dyn Pass>),
    /// The layout step: the best laid out readably, tested once.
    Layout,
}

impl std::fmt::Debug for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Step::Perses => write!(f, "Perses"),
            Step::Unused => write!(f, "Unused"),
            Step::Coarse(s) => write!(f, "{s:?}"),
            Step::Pass(p) => write!(f, "Pass({})", p.name()),
            Step::Layout => write!(f, "Layout"),
        }
    }
}

/// What a reduction runs, by group (C-Vise's first / main / last): `first` once before the
/// global fixpoint, `main` in every round of it in this order, `last` once after it.
#[derive(Debug, Default)]
pub struct Pipeline {
    /// Once, before the global fixpoint.
    pub first: Vec<Step>,
    /// Every round of the global fixpoint, in order.
    pub main: Vec<Step>,
    /// Once, after the global fixpoint (when the best still parses).
    pub last: Vec<Step>,
}

impl Pipeline {
    /// The registry entries `names` selects, in the order given.
    ///
    /// # Errors
    /// [`UnknownPass`] for the first name the registry does not know.
    pub fn parse<S: AsRef<str>>(names: &[S]) -> Result<Vec<&'static PassInfo>, UnknownPass> {
        names.iter().map(|n| find(n.as_ref()).ok_or_else(|| UnknownPass { name: n.as_ref().to_string() })).collect()
    }

    /// The pipeline of `infos` (as [`Pipeline::parse`] gives them): each in its group, in
    /// order. An external entry becomes the passes `external` builds for it (none, say, for
    /// clang_delta on a program that is not C).
    pub fn build(infos: &[&PassInfo], external: &mut dyn FnMut(&PassInfo) -> Vec<Box<dyn Pass>>) -> Pipeline {
        let mut p = Pipeline::default();
        for info in infos {
            let group = match info.group {
                Group::First => &mut p.first,
                Group::Main => &mut p.main,
                Group::Last => &mut p.last,
            };
            match info.kind {
                Kind::Perses => group.push(Step::Perses),
                Kind::Unused => group.push(Step::Unused),
                Kind::Coarse(s) => group.push(Step::Coarse(s)),
                Kind::Transformation(create) => group.push(Step::Pass(create())),
                Kind::External => group.extend(external(info).into_iter().map(Step::Pass)),
                Kind::Layout => group.push(Step::Layout),
            }
        }
        p
    }

    /// The pipeline of the built-in passes `names` selects, with no external ones.
    ///
    /// # Errors
    /// [`UnknownPass`].
    pub fn built_in<S: AsRef<str>>(names: &[S]) -> Result<Pipeline, UnknownPass> {
        Ok(Pipeline::build(&Pipeline::parse(names)?, &mut |_| Vec::new()))
    }

    /// Perses alone.
    pub fn perses() -> Pipeline {
        Pipeline { main: vec![Step::Perses], ..Pipeline::default() }
    }

    /// Adds `pass` at the end of the main group (a `--transform` command, a plug-in).
    pub fn push_main(&mut self, pass: Box<dyn Pass>) {
        self.main.push(Step::Pass(pass));
    }

    /// Whether any group holds a step `is` selects.
    pub(crate) fn has(&self, is: impl Fn(&Step) -> bool) -> bool {
        self.first.iter().chain(&self.main).chain(&self.last).any(is)
    }
}
