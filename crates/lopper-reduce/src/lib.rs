//! lopper-reduce: the Perses reducer (priority worklist over the PNF tree, ddmin on Kleene
//! lists, subsumption-based replacement of regular nodes, fixpoint), the passes past it,
//! the ddmin list minimizer, the judging layer, and generator-based reduction.
//!
//! Transformations never spawn processes; only the oracle (the `lopper-oracle` crate,
//! re-exported as [`oracle`]) does. The oracle never inspects trees: it sees candidate text
//! only.

pub mod baselines;
mod dangling;
pub mod definitions;
pub mod engine;
pub mod files;
pub mod generator;
pub(crate) mod graph;
#[cfg(test)]
mod graph_tests;
pub mod instances;
pub mod judge;
mod locals;
pub mod minimize;
mod namespaces;
pub mod passes;
pub mod perses;
pub mod pipeline;
pub mod slices;
pub mod stats;
mod symbols;
mod ub_safe;
pub mod unused;

pub use engine::{Options, SearchOptions};
pub use judge::{answers_at_random, randomness, wald_bounds, GrammarCheck, CONFIRM_RUNS, ERROR_BOUND, FLAKY_NO};
/// The oracle crate: test runs, transformation and generator runs, the verdict cache and
/// the sanity checks of the original.
pub use lopper_oracle as oracle;
pub use lopper_oracle::sanity;
pub use oracle::{Criteria, Encoding, Oracle, OracleError, RunReport, ScriptOracle, TestCommand, Verdict};
pub use pipeline::{reduce, Algorithm, Outcome, Pipeline, ReduceError, Step};
pub use sanity::{check_original, Sanity, SanityError};
pub use stats::{NoProgress, PassStats, PassTime, Progress, ProgressPoint, Stats};

#[cfg(test)]
mod tests;
