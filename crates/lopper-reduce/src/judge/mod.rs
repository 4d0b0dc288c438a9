//! The judging layer that every search shares (Perses, the passes after it, the
//! baselines): the verdict cache of rejected texts, the grammar screen (candidates with new
//! syntax errors are never tested under [`GrammarCheck::Reject`]), the oracle, the
//! statistics per pass, and the best program so far, handed to a [`Progress`] the moment it
//! is accepted. A search proposes candidate texts in the order a sequential run would try
//! them; the judge decides, and keeps the counts of exactly what a sequential run would
//! have judged, so neither the result nor the statistics depend on `--jobs`.

use crate::oracle::{Judged, Oracle, OracleError, Screened, Successors, Texts, Verdict};
use crate::stats::{PassStats, Progress, ProgressPoint, Stats, OTHER};
use lopper_parse::{Damage, Frontend, ParseError, SyntaxChecker};
use std::collections::HashSet;
use std::time::Instant;

mod memo;
mod replay;
#[cfg(test)]
mod tests;
pub(crate) use memo::{local_change, LocalKey, Memo};
use replay::Replay;
pub use replay::{answers_at_random, randomness, wald_bounds, CONFIRM_RUNS, ERROR_BOUND, FLAKY_NO};

/// See the module docs. `best` and `stats` are the searches' to read; they change only
/// through the judge's methods ([`Judge::judge`], [`Judge::set_pass`], [`Judge::new_round`], …).
pub(crate) struct Judge<'a> {
    oracle: &'a mut dyn Oracle,
    progress: &'a mut dyn Progress,
    grammar_check: GrammarCheck,
    pub(crate) checker: SyntaxChecker,
    /// Hashes of texts judged not interesting (or invalid).
    rejected: HashSet<[u8; 32]>,
    /// Keys of local changes (see [`local_change`]) whose candidates were not interesting.
    local_rejected: HashSet<[u8; 32]>,
    /// The best program so far.
    pub(crate) best: String,
    /// Its syntax errors and unparsed bytes (the grammar screen lets no candidate have
    /// more of either).
    best_damage: Damage,
    pub(crate) stats: Stats,
    /// The running pass: its index in `stats.pass_stats`.
    pass: usize,
    /// When the running pass started (or its time was last added up).
    pass_since: Instant,
    /// When the reduction started.
    started: Instant,
    /// lopper's own CPU time when the reduction started.
    cpu_started: std::time::Duration,
    /// The replays of accepted candidates (see [`Judge::replay_agrees`]).
    replay: Replay,
}

impl<'a> Judge<'a> {
    /// A judge whose best is `input`, judging with `oracle` and the grammar of `frontend`.
    ///
    /// # Errors
    /// Parsing `input` for the grammar screen.
    pub(crate) fn new(
        frontend: &Frontend,
        input: &str,
        oracle: &'a mut dyn Oracle,
        grammar_check: GrammarCheck,
        progress: &'a mut dyn Progress,
    ) -> Result<Judge<'a>, ParseError> {
        let mut checker = frontend.checker(input)?;
        // The checker already parsed `input`: counting its errors re-uses that tree.
        let best_damage = checker.errors(input, hash(input))?;
        let started = Instant::now();
        let stats = Stats { pass: OTHER.to_string(), pass_stats: vec![PassStats { name: OTHER.to_string(), ..PassStats::default() }], ..Stats::default() };
        Ok(Judge {
            oracle,
            progress,
            grammar_check,
            checker,
            rejected: HashSet::new(),
            local_rejected: HashSet::new(),
            best: input.to_string(),
            best_damage,
            stats,
            pass: 0,
            pass_since: started,
            started,
            cpu_started: own_cpu_time(),
            replay: Replay::default(),
        })
    }

    /// Tests the original (the best as given), counted under [`OTHER`]; its verdict.
    ///
    /// # Errors
    /// The oracle's.
    pub(crate) fn test_original(&mut self) -> Result<Verdict, OracleError> {
        let t0 = Instant::now();
        let crate::oracle::Judged { verdict: v, remembered, .. } = self.oracle.first_interesting(&[self.best.as_str()])?[0];
        self.stats.tests = usize::from(!remembered);
        self.stats.remembered = usize::from(remembered);
        self.stats.pass_stats[0].tests = self.stats.tests;
        self.stats.first_test_seconds = t0.elapsed().as_secs_f64();
        self.stats.test_seconds = self.stats.first_test_seconds;
        self.stats.pass_stats[0].time.test_seconds = self.stats.first_test_seconds;
        Ok(v)
    }

    /// Records the parsed original: its `tokens` (before and, so far, after), the share of
    /// its CST that `matched` its PNF rules, and its `opaque` nodes.
    pub(crate) fn start(&mut self, tokens: usize, matched: f64, opaque: usize) {
        self.stats.tokens_before = tokens;
        self.stats.tokens_after = tokens;
        self.stats.matched_share = matched;
        self.stats.opaque_nodes = opaque;
        self.progress.started(&self.stats);
    }

    /// A new round begins (a fixpoint iteration of a search, or of the passes).
    pub(crate) fn new_round(&mut self) {
        self.stats.rounds += 1;
    }

    /// Records the seconds external transformation commands took (time side by side
    /// counted once): neither tests nor lopper's own work.
    pub(crate) fn set_transform_seconds(&mut self, seconds: f64) {
        self.stats.transform_seconds = seconds;
    }

    /// From now on, tests and time count for the pass `name` (a new entry of
    /// `stats.pass_stats` the first time).
    pub(crate) fn set_pass(&mut self, name: &str) {
        if self.stats.pass_stats[self.pass].name == name {
            return;
        }
        self.add_pass_time();
        self.progress.pass_ended(&self.stats.pass_stats[self.pass]);
        self.pass = self.pass_index(name);
        self.stats.pass = name.to_string();
    }

    /// The index of pass `name` in `stats.pass_stats` (a new entry the first time).
    pub(crate) fn pass_index(&mut self, name: &str) -> usize {
        match self.stats.pass_stats.iter().position(|p| p.name == name) {
            Some(i) => i,
            None => {
                self.stats.pass_stats.push(PassStats { name: name.to_string(), ..PassStats::default() });
                self.stats.pass_stats.len() - 1
            }
        }
    }

    /// Adds the wall time since the last call to the running pass.
    fn add_pass_time(&mut self) {
        let now = Instant::now();
        self.stats.pass_stats[self.pass].time.seconds += now.duration_since(self.pass_since).as_secs_f64();
        self.pass_since = now;
    }

    /// A warning for the summary: something that did not stop the reduction but may have
    /// cut it short.
    pub(crate) fn warn(&mut self, warning: String) {
        self.stats.warnings.push(warning);
    }

    /// The best program and the final counts (times added up).
    pub(crate) fn finish(mut self) -> (String, Stats) {
        self.add_pass_time();
        // Tests of a window that spans passes count for a pass after it stopped running:
        // each pass's final counts, once more.
        for p in &self.stats.pass_stats {
            self.progress.pass_ended(p);
        }
        self.stats.total_seconds = self.started.elapsed().as_secs_f64();
        self.stats.own_cpu_seconds = own_cpu_time().saturating_sub(self.cpu_started).as_secs_f64();
        (self.best, self.stats)
    }

    /// Judges `batch.texts` in order (the same text as the best, cached rejections and
    /// texts with new syntax errors are screened out without a test; the rest go to the
    /// oracle as one batch). The first interesting one becomes the best, with
    /// `batch.tokens(i)` as its token count, and the [`Progress`] hears of it. Each text's
    /// tests and acceptance count for the pass `batch.passes` names (the running pass where
    /// it is empty; otherwise its first becomes the running pass), so a window that spans
    /// passes counts as a sequential run would. Counts cover exactly what a sequential run
    /// would have judged, so statistics do not depend on `--jobs`.
    ///
    /// With [`Memo::Presume`] (keyed by the pass that made the texts), a text whose local
    /// change from the best ([`local_change`]) was not interesting before — in an earlier
    /// window, or earlier in this one, as a sequential run would have learnt — is presumed
    /// not interesting and not tested; [`Memo::Record`] only learns the rejected changes.
    /// `batch.successors(i)`: the texts the search judges next, in order, if candidate `i`
    /// is the answer, for an oracle that speculates on success ([`crate::oracle::Batch`]);
    /// the best itself and known rejections are never offered.
    ///
    /// # Errors
    /// The oracle's; [`OracleError::Keep`] when the [`Progress`] cannot keep a new best.
    pub(crate) fn judge(&mut self, batch: Batch<'_>) -> Result<Option<usize>, OracleError> {
        let Batch { texts, passes, memo, tokens, successors } = batch;
        if let Some(p) = passes.first() {
            self.set_pass(p);
        }
        let names = passes;
        let passes: Vec<usize> = passes.iter().map(|p| self.pass_index(p)).collect();
        let Asked { screens, locals, verdicts } = self.ask(texts, memo, successors)?;
        let winner = verdicts.last().filter(|v| v.verdict == Verdict::Interesting).map(|v| v.index);
        let judged = winner.map_or(texts.len(), |w| w + 1);
        self.count(&screens[..judged], &verdicts, &passes);
        // Every local change before the answer was not interesting.
        self.local_rejected.extend(locals.iter().take(winner.unwrap_or(texts.len())).flatten().copied());
        match winner {
            Some(w) => {
                let Some((h, Screen::Test(errors))) = screens[w] else { unreachable!("only tested candidates win") };
                // A verdict remembered from an earlier run is not replayed: a resumed run
                // tests nothing it already judged.
                let remembered = verdicts.last().is_some_and(|v| v.remembered);
                if !remembered && !self.replay_agrees(texts.get(w), passes.get(w).copied())? {
                    // Not interesting after all: the rest of the batch, as if it had failed.
                    self.rejected.insert(h);
                    let rest = w + 1;
                    if rest >= texts.len() {
                        return Ok(None);
                    }
                    let make = |i: usize| texts.get(rest + i).to_string();
                    let more = Texts::new(texts.len() - rest, &make);
                    let more_tokens = |i: usize| tokens(rest + i);
                    let more_names = names.get(rest..).unwrap_or(&[]);
                    let batch = Batch { texts: &more, passes: more_names, memo, tokens: &more_tokens, successors: None };
                    return Ok(self.judge(batch)?.map(|i| i + rest));
                }
                self.accept(texts.get(w), h, errors, passes.get(w).copied(), tokens(w))?;
            }
            None if !verdicts.is_empty() => self.progress.tested(&self.stats),
            None => {}
        }
        Ok(winner)
    }

    /// Hands `texts` to the oracle, each screened when the oracle is about to judge it (a
    /// slot is free), so those past the answer never pay for a grammar re-parse; the
    /// screens run in order, which the in-window memos rely on. The test time (without the
    /// screening, lopper's own work) counts for the running pass.
    fn ask<'s>(&mut self, texts: &Texts<'_>, memo: Memo<'_>, successors: Option<&mut dyn FnMut(usize) -> Successors<'s>>) -> Result<Asked, OracleError> {
        let mut no_successors = |_| crate::oracle::no_successors();
        let successors = successors.unwrap_or(&mut no_successors);
        let (local, presume) = match memo {
            Memo::Off => (None, false),
            Memo::Record(key) => (Some(key), false),
            Memo::Presume(key) => (Some(key), true),
        };
        let mut screens: Vec<Option<([u8; 32], Screen)>> = vec![None; texts.len()];
        let mut locals: Vec<Option<[u8; 32]>> = vec![None; texts.len()];
        let mut in_batch = HashSet::new();
        let mut local_in_batch = HashSet::new();
        let t = Instant::now();
        let mut screening = std::time::Duration::ZERO;
        let Judge { oracle, checker, rejected, local_rejected, best, best_damage, grammar_check, .. } = &mut *self;
        let (rejected, local_rejected, best) = (&*rejected, &*local_rejected, &*best);
        // A successor is judged against candidate `i` as the best; one presumed not
        // interesting would not be tested. Filtered as the oracle takes them.
        let mut next = |i: usize| -> Successors<'_> {
            let presumed = move |t: &String| presume && local.is_some_and(|key| local_rejected.contains(&local_change(key, texts.get(i), t)));
            Box::new(successors(i).filter(move |t| t != best && !rejected.contains(&hash(t)) && !presumed(t)))
        };
        let mut screen = |i: usize| {
            // The text is made (rendered) now: lopper's own work, like the screen.
            let since = Instant::now();
            let t = texts.get(i);
            let h = hash(t);
            // Recording only, a key is made after the verdicts, and only where it is kept.
            let key = local.filter(|_| presume).map(|key| local_change(key, best, t));
            // Every accepted text is strictly smaller than all later candidates, so only
            // rejections need remembering.
            let s = if t == best {
                Screen::Same
            } else if rejected.contains(&h) || !in_batch.insert(h) {
                Screen::Cached
            } else if key.is_some_and(|k| local_rejected.contains(&k) || local_in_batch.contains(&k)) {
                Screen::Presumed
            } else {
                let errors = checker.errors(t, h).unwrap_or(Damage { errors: usize::MAX, unparsed: usize::MAX });
                if *grammar_check == GrammarCheck::Reject && errors.worse_than(*best_damage) {
                    Screen::Invalid
                } else {
                    Screen::Test(errors)
                }
            };
            if let Some(k) = key {
                local_in_batch.insert(k);
            }
            locals[i] = key;
            let run = if matches!(s, Screen::Test(_)) { Screened::Run } else { Screened::Skip };
            screens[i] = Some((h, s));
            screening += since.elapsed();
            run
        };
        let verdicts = oracle.judge(crate::oracle::Batch::of(texts).screened(&mut screen).with_successors(&mut next));
        // [`Memo::Record`] keeps the keys of the candidates screened before the answer (none
        // of them was interesting): made here, not for the answer or those past it, each a
        // pass over the lines its change spans (most of a large file, for a coarse search).
        if let (Some(key), false, Ok(v)) = (local, presume, &verdicts) {
            let answer = v.last().filter(|v| v.verdict == Verdict::Interesting).map_or(texts.len(), |v| v.index);
            let since = Instant::now();
            for (i, l) in locals.iter_mut().enumerate().take(answer) {
                if screens[i].is_some() {
                    *l = Some(local_change(key, best, texts.get(i)));
                }
            }
            screening += since.elapsed();
        }
        if verdicts.as_ref().is_ok_and(|v| !v.is_empty()) {
            let dt = t.elapsed().saturating_sub(screening).as_secs_f64();
            self.stats.test_seconds += dt;
            self.stats.pass_stats[self.pass].time.test_seconds += dt;
        }
        Ok(Asked { screens, locals, verdicts: verdicts? })
    }

    /// Counts the candidates a sequential run judges (`screens`, up to the answer) and
    /// remembers the rejected ones; `verdicts` are the tested ones' in order, `passes` each
    /// candidate's pass (the running one where absent).
    fn count(&mut self, screens: &[Option<([u8; 32], Screen)>], verdicts: &[Judged], passes: &[usize]) {
        let mut tested = verdicts.iter();
        for (i, screen) in screens.iter().enumerate() {
            let (h, s) = screen.as_ref().expect("every candidate up to the answer was screened");
            let pass = passes.get(i).copied().unwrap_or(self.pass);
            self.stats.candidates += 1;
            match s {
                Screen::Same => {}
                Screen::Cached => self.stats.cache_hits += 1,
                Screen::Presumed => self.stats.presumed += 1,
                Screen::Invalid => {
                    self.stats.invalid += 1;
                    self.rejected.insert(*h);
                }
                Screen::Test(errors) => {
                    let &Judged { verdict: v, remembered, .. } = tested.next().expect("one verdict per tested candidate");
                    if remembered {
                        // Judged by an earlier run (the persistent cache): not a test run.
                        self.stats.remembered += 1;
                        if v != Verdict::Interesting {
                            self.rejected.insert(*h);
                        }
                        continue;
                    }
                    self.stats.tests += 1;
                    // Only reachable with GrammarCheck::Count: tested, but invalid.
                    self.stats.invalid += errors.worse_than(self.best_damage) as usize;
                    self.stats.pass_stats[pass].tests += 1;
                    self.stats.timeouts += (v == Verdict::TimedOut) as usize;
                    self.stats.undefined += (v == Verdict::Undefined) as usize;
                    self.stats.pass_stats[pass].undefined += (v == Verdict::Undefined) as usize;
                    if v != Verdict::Interesting {
                        self.rejected.insert(*h);
                    }
                }
            }
        }
    }

    /// Makes `text` (hash `h`, with `errors` syntax errors and `tokens` tokens) the best,
    /// counted for `pass` (the running one where `None`), and hands it to the [`Progress`].
    fn accept(&mut self, text: &str, h: [u8; 32], errors: Damage, pass: Option<usize>, tokens: usize) -> Result<(), OracleError> {
        self.best = text.to_string();
        self.best_damage = errors;
        if let Err(e) = self.checker.set_base(&self.best, h) {
            // The checker keeps comparing against the previous best: still sound, only
            // more candidates may be judged invalid.
            self.stats.warnings.push(format!("the grammar check could not take the new best as its base: {e}"));
        }
        self.stats.accepted += 1;
        self.stats.pass_stats[pass.unwrap_or(self.pass)].accepted += 1;
        self.stats.tokens_after = tokens;
        let at = self.started.elapsed().as_secs_f64();
        self.stats.progress.push(ProgressPoint { seconds: at, tokens: self.stats.tokens_after, bytes: self.best.len() });
        tracing::debug!(tokens = self.stats.tokens_after, pass = self.stats.pass.as_str(), "candidate accepted");
        self.progress.new_best(&self.best, &self.stats).map_err(OracleError::Keep)
    }
}

/// What the oracle made of a batch: each candidate's hash and screen (up to where it
/// stopped asking), each one's local-change key, and the tested ones' verdicts.
struct Asked {
    screens: Vec<Option<([u8; 32], Screen)>>,
    locals: Vec<Option<[u8; 32]>>,
    verdicts: Vec<Judged>,
}

/// Handling of candidates with new syntax errors: more tree-sitter ERROR/MISSING nodes than
/// the current best, or, for a grammar-file language, text its parser rejects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GrammarCheck {
    /// Reject them without a test (counted as invalid).
    Reject,
    /// Test them anyway, but count them as invalid (for baselines that know no grammar).
    Count,
}

/// One request to the [`Judge`]: candidate texts in the order a sequential run judges
/// them, each assuming the ones before fail.
pub(crate) struct Batch<'a> {
    /// The candidate texts (made when the oracle is about to judge them).
    pub texts: &'a Texts<'a>,
    /// Per text, the pass it counts for; empty: the running pass.
    pub passes: &'a [&'a str],
    /// Whether and how the memo of local changes is used.
    pub memo: Memo<'a>,
    /// The token count of text `i` (asked only of the winner).
    pub tokens: &'a dyn Fn(usize) -> usize,
    /// The texts judged next if text `i` is the answer, for an oracle that speculates.
    pub successors: Option<&'a mut dyn FnMut(usize) -> Successors<'a>>,
}

impl<'a> Batch<'a> {
    /// `texts` with their token counts, counted for the running pass, no memo, no
    /// successors.
    pub(crate) fn new(texts: &'a Texts<'a>, tokens: &'a dyn Fn(usize) -> usize) -> Batch<'a> {
        Batch { texts, passes: &[], memo: Memo::Off, tokens, successors: None }
    }
}

/// What the screen of [`Judge::judge`] made of a candidate.
#[derive(Clone, Copy, Debug)]
enum Screen {
    /// The best itself.
    Same,
    /// Judged before (in this run, or earlier in the window).
    Cached,
    /// Its local change failed before ([`Memo::Presume`]).
    Presumed,
    /// More syntax errors than the best: never tested.
    Invalid,
    /// To test; its syntax errors.
    Test(Damage),
}

/// The CPU time this process has used so far, all threads (`CLOCK_PROCESS_CPUTIME_ID`;
/// child processes are not part of it).
pub(crate) fn own_cpu_time() -> std::time::Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    std::time::Duration::new(t.tv_sec.max(0) as u64, t.tv_nsec.clamp(0, 999_999_999) as u32)
}

/// A candidate's identity in the verdict cache: its BLAKE3 hash, stable across Rust
/// releases and machines (so a persistent cache can trust it).
fn hash(text: &str) -> [u8; 32] {
    blake3::hash(text.as_bytes()).into()
}
