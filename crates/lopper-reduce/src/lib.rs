//! lopper-reduce: the Perses reducer (priority worklist over the PNF tree, ddmin on Kleene
//! lists, subsumption-based replacement of regular nodes, fixpoint), the ddmin list
//! minimizer, and the oracle that runs interestingness tests.
//!
//! Transformations never spawn processes; only [`oracle::ScriptOracle`] does. The oracle
//! never inspects trees: it sees candidate text only.

pub mod generator;
pub mod judge;
pub mod minimize;
pub mod oracle;
pub mod passes;
pub mod perses;
pub mod sanity;

pub use judge::{NoProgress, PassStats, PassTime, Progress, ProgressPoint, Stats};
pub use oracle::{Criteria, Encoding, Oracle, OracleError, RunReport, ScriptOracle, TestCommand, Verdict};
pub use perses::{reduce, reduce_with_passes, Algorithm, GrammarCheck, Options, Outcome, ReduceError};
pub use sanity::{check_original, Sanity, SanityError};

#[cfg(test)]
mod tests;
