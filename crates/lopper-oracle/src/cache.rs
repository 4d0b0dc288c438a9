//! The persistent verdict cache: verdicts on disk, so that a second run of the same
//! reduction, a run resumed after Ctrl-C, or a run with more passes re-tests nothing already
//! judged.
//!
//! A verdict is stored under the BLAKE3 hash of the test's identity ([`TestIdentity`]: the
//! test script's path and bytes or the command line and its directory, the criteria, the
//! candidate's file name) and the candidate's hash. The store is SQLite (WAL, a busy timeout,
//! so two lopper processes can share it), bounded to [`MAX_ENTRIES`] verdicts (the least
//! recently used go first). Time-outs are not stored (a longer limit may decide them). A
//! store that cannot be opened or read is reported once and then left alone: never fatal.

use super::{Batch, Criteria, Judged, Oracle, OracleError, Screened, Successors, TestCommand, Verdict};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// At most this many verdicts are kept (about 60 bytes each on disk).
pub const MAX_ENTRIES: i64 = 500_000;

/// What a verdict depends on besides the candidate: hashed into every key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TestIdentity([u8; 32]);

impl TestIdentity {
    /// The identity of `test` judged by `criteria`, the candidate written as `file_name`.
    /// A script is identified by its absolute path and its bytes (so editing the test starts
    /// afresh); a shell command by its text and the current directory.
    pub fn of(test: &TestCommand, criteria: &Criteria, file_name: &std::ffi::OsStr) -> TestIdentity {
        let mut h = blake3::Hasher::new();
        match test {
            TestCommand::Script(p) => {
                h.update(b"script\0");
                h.update(p.as_os_str().as_encoded_bytes());
                h.update(b"\0");
                h.update(blake3::hash(&std::fs::read(p).unwrap_or_default()).as_bytes());
            }
            TestCommand::Shell(line) => {
                h.update(b"shell\0");
                h.update(line.as_bytes());
                h.update(b"\0");
                h.update(std::env::current_dir().unwrap_or_default().as_os_str().as_encoded_bytes());
            }
        }
        h.update(
            format!(
                "\0{:?}\0{:?}\0{:?}\0{}\0",
                criteria.exit_codes,
                criteria.stdout.as_ref().map(|r| r.as_str()),
                criteria.stderr.as_ref().map(|r| r.as_str()),
                criteria.stdin
            )
            .as_bytes(),
        );
        h.update(file_name.as_encoded_bytes());
        TestIdentity(*h.finalize().as_bytes())
    }

    /// This identity for a project that carries `kept` into every run (paths and contents
    /// hashed): a changed binary file or symlink starts afresh.
    pub fn with_kept(self, kept: &[lopper_bundle::Kept]) -> TestIdentity {
        if kept.is_empty() {
            return self;
        }
        let mut h = blake3::Hasher::new();
        h.update(&self.0);
        for k in kept {
            h.update(b"\0").update(k.path.as_bytes());
            match &k.file {
                lopper_bundle::KeptFile::Bytes(b) => h.update(b"\0file\0").update(blake3::hash(b).as_bytes()),
                lopper_bundle::KeptFile::Symlink(t) => h.update(b"\0link\0").update(t.as_os_str().as_encoded_bytes()),
            };
        }
        TestIdentity(*h.finalize().as_bytes())
    }
}

/// An [`Oracle`] that answers from the persistent store what it can and asks `inner` the rest.
pub struct PersistentCache<'a> {
    inner: &'a mut dyn Oracle,
    db: Option<Connection>,
    path: PathBuf,
    identity: TestIdentity,
    remembered: usize,
    warning: Option<String>,
}

impl std::fmt::Debug for PersistentCache<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PersistentCache").field("path", &self.path).field("remembered", &self.remembered).finish()
    }
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64)
}

fn open(path: &Path) -> rusqlite::Result<Connection> {
    let db = Connection::open(path)?;
    db.busy_timeout(Duration::from_secs(10))?;
    db.pragma_update(None, "journal_mode", "WAL")?;
    db.pragma_update(None, "synchronous", "NORMAL")?;
    db.execute_batch("CREATE TABLE IF NOT EXISTS verdicts (key BLOB PRIMARY KEY, interesting INTEGER NOT NULL, used INTEGER NOT NULL) WITHOUT ROWID")?;
    let n: i64 = db.query_row("SELECT count(*) FROM verdicts", [], |r| r.get(0))?;
    if n > MAX_ENTRIES {
        // Down to 90%, least recently used first.
        db.execute("DELETE FROM verdicts WHERE key IN (SELECT key FROM verdicts ORDER BY used LIMIT ?1)", params![n - MAX_ENTRIES * 9 / 10])?;
    }
    Ok(db)
}

impl<'a> PersistentCache<'a> {
    /// Wraps `inner` with the store `dir/verdicts.sqlite3` (the directory is made if
    /// missing). If it cannot be opened, the cache works without it and
    /// [`PersistentCache::warning`] says why.
    pub fn new(inner: &'a mut dyn Oracle, dir: &Path, identity: TestIdentity) -> PersistentCache<'a> {
        let path = dir.join("verdicts.sqlite3");
        let (db, warning) = match std::fs::create_dir_all(dir).map_err(|e| e.to_string()).and_then(|()| open(&path).map_err(|e| e.to_string())) {
            Ok(db) => (Some(db), None),
            Err(e) => (None, Some(format!("the verdict cache {} cannot be used ({e}); going on without it", path.display()))),
        };
        PersistentCache { inner, db, path, identity, remembered: 0, warning }
    }

    /// Verdicts answered from the store so far.
    pub fn remembered(&self) -> usize {
        self.remembered
    }

    /// Why the store is not in use, if it is not.
    pub fn warning(&self) -> Option<&str> {
        self.warning.as_deref()
    }

    /// Turns the store off after an error, keeping the first reason.
    fn fail(&mut self, e: rusqlite::Error) {
        fail(&mut self.db, &self.path, &mut self.warning, e);
    }

    fn store(&mut self, found: &[([u8; 32], Verdict)], used: &[[u8; 32]]) {
        let Some(db) = self.db.as_mut() else { return };
        let t = now();
        let result = (|| -> rusqlite::Result<()> {
            let tx = db.transaction()?;
            for (k, v) in found {
                if *v != Verdict::TimedOut {
                    tx.execute("INSERT OR REPLACE INTO verdicts (key, interesting, used) VALUES (?1, ?2, ?3)", params![&k[..], *v == Verdict::Interesting, t])?;
                }
            }
            for k in used {
                tx.execute("UPDATE verdicts SET used = ?2 WHERE key = ?1", params![&k[..], t])?;
            }
            tx.commit()
        })();
        if let Err(e) = result {
            self.fail(e);
        }
    }
}

impl Oracle for PersistentCache<'_> {
    /// Past the store: a replay asks the inner oracle.
    fn replay(&mut self, candidate: &str) -> Result<Verdict, OracleError> {
        self.inner.replay(candidate)
    }

    /// Each candidate the caller's screen admits is looked up first; only the unknown ones
    /// go to the inner oracle (with the successors), and after a remembered interesting
    /// one nothing more does.
    fn judge(&mut self, batch: Batch<'_>) -> Result<Vec<Judged>, OracleError> {
        let candidates = batch.candidates;
        let mut remembered: Vec<(usize, Verdict, [u8; 32])> = Vec::new();
        let mut keys: Vec<Option<[u8; 32]>> = vec![None; candidates.len()];
        let mut answered = false;
        let PersistentCache { inner, db, path, identity, warning, .. } = self;
        let mut outer = batch.screen;
        let mut screen = |i: usize| {
            if answered || outer.as_mut().is_some_and(|s| s(i) == Screened::Skip) {
                return Screened::Skip;
            }
            let key = key_of(identity, candidates.get(i));
            keys[i] = Some(key);
            match lookup(db, path, warning, &key) {
                Some(v) => {
                    remembered.push((i, v, key));
                    answered = v == Verdict::Interesting;
                    Screened::Skip
                }
                None => Screened::Run,
            }
        };
        // Re-wrapped: the inner batch lives shorter than the caller's.
        let mut outer_successors = batch.successors;
        let mut successors = |i: usize| -> Successors<'_> { outer_successors.as_mut().map_or_else(crate::no_successors, |s| s(i)) };
        let inner_batch = Batch { candidates, screen: Some(&mut screen), successors: Some(&mut successors) };
        let ran = inner.judge(inner_batch)?;
        let mut out: Vec<Judged> =
            ran.iter().copied().chain(remembered.iter().map(|&(index, verdict, _)| Judged { index, verdict, remembered: true })).collect();
        out.sort_by_key(|e| e.index);
        if let Some(w) = out.iter().position(|e| e.verdict == Verdict::Interesting) {
            out.truncate(w + 1);
        }
        let found: Vec<([u8; 32], Verdict)> =
            out.iter().filter(|e| !e.remembered).map(|e| (keys[e.index].expect("judged candidates were looked up"), e.verdict)).collect();
        let used: Vec<[u8; 32]> = out.iter().filter(|e| e.remembered).map(|e| keys[e.index].expect("remembered candidates were looked up")).collect();
        self.remembered += used.len();
        self.store(&found, &used);
        Ok(out)
    }
}

/// The store's key of `candidate` under the test `identity`.
fn key_of(identity: &TestIdentity, candidate: &str) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    h.update(&identity.0);
    h.update(blake3::hash(candidate.as_bytes()).as_bytes());
    *h.finalize().as_bytes()
}

/// Turns the store off after an error, keeping the first reason.
fn fail(db: &mut Option<Connection>, path: &Path, warning: &mut Option<String>, e: rusqlite::Error) {
    tracing::warn!(path = %path.display(), error = %e, "verdict cache disabled");
    warning.get_or_insert_with(|| format!("the verdict cache {} failed ({e}); going on without it", path.display()));
    *db = None;
}

/// The remembered verdict of `key`, if any (an error turns the store off).
fn lookup(db: &mut Option<Connection>, path: &Path, warning: &mut Option<String>, key: &[u8; 32]) -> Option<Verdict> {
    let found = db.as_ref()?.query_row("SELECT interesting FROM verdicts WHERE key = ?1", params![&key[..]], |r| r.get::<_, bool>(0)).optional();
    match found {
        Ok(v) => v.map(|yes| if yes { Verdict::Interesting } else { Verdict::NotInteresting }),
        Err(e) => {
            fail(db, path, warning, e);
            None
        }
    }
}
