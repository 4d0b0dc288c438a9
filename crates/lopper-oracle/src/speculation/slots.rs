//! The slot loop shared by the scheduler and `ScriptOracle::run_times`.

use super::Speculation;
use crate::{Executor, Finished, OracleError, RunId};
use std::time::Duration;

/// Runs in flight, each for an index of its caller's: the slot loop that the scheduler
/// and [`crate::ScriptOracle::run_times`] share (start runs into free slots, wait for one
/// to end while a carried successor's ending goes to the [`Speculation`], cancel the rest).
#[derive(Debug, Default)]
pub(crate) struct Slots {
    /// (run, index).
    running: Vec<(RunId, usize)>,
}

impl Slots {
    /// Runs in flight.
    pub(crate) fn len(&self) -> usize {
        self.running.len()
    }

    /// Whether no run is in flight.
    pub(crate) fn is_empty(&self) -> bool {
        self.running.is_empty()
    }

    /// Starts a run of `text` for `index`.
    ///
    /// # Errors
    /// The executor's.
    pub(crate) fn start(&mut self, exec: &mut dyn Executor, text: &str, capture: bool, index: usize) -> Result<(), OracleError> {
        let id = exec.submit(text, capture)?;
        self.running.push((id, index));
        Ok(())
    }

    /// Waits up to `slice` for a run to end: `(index, ending)` for one of these slots;
    /// `None` when none did (a carried run's ending is kept by `spec`).
    ///
    /// # Errors
    /// The executor's.
    pub(crate) fn wait(&mut self, exec: &mut dyn Executor, spec: &mut Speculation, slice: Duration) -> Result<Option<(usize, Finished)>, OracleError> {
        let Some((id, f)) = exec.wait_any(slice)? else { return Ok(None) };
        let Some(f) = spec.ended(id, f) else { return Ok(None) };
        let at = self.running.iter().position(|r| r.0 == id).expect("a run these slots started");
        Ok(Some((self.running.swap_remove(at).1, f)))
    }

    /// Takes over run `id` (already in flight, e.g. a carried successor's) for `index`.
    pub(crate) fn adopt(&mut self, id: RunId, index: usize) {
        self.running.push((id, index));
    }

    /// Whether a run is in flight for an index after `index`.
    pub(super) fn any_after(&self, index: usize) -> bool {
        self.running.iter().any(|r| r.1 > index)
    }

    /// Cancels every run in flight; their indices.
    pub(crate) fn cancel_all(&mut self, exec: &mut dyn Executor) -> Vec<usize> {
        std::mem::take(&mut self.running)
            .into_iter()
            .map(|(id, i)| {
                exec.cancel(id);
                i
            })
            .collect()
    }

    /// How long the run for `index` has lasted, if it is in flight.
    pub(super) fn lasted(&self, exec: &dyn Executor, index: usize) -> Option<Duration> {
        self.running.iter().find(|r| r.1 == index).map(|r| exec.elapsed(r.0).unwrap_or_default())
    }

    /// Cancels the run of the latest index after `index`; that index.
    pub(super) fn yield_latest_after(&mut self, exec: &mut dyn Executor, index: usize) -> Option<usize> {
        let at = (0..self.running.len()).filter(|&at| self.running[at].1 > index).max_by_key(|&at| self.running[at].1)?;
        let (id, idx) = self.running.swap_remove(at);
        exec.cancel(id);
        Some(idx)
    }
}
