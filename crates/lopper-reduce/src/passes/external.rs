//! An external transformation: a command in Regehr's protocol (`{file}`, `{out}`, `{n}`;
//! exit 0 = a variant or, unchanged, a skip; 255 or 1 = no instance `n`; anything else an
//! error), run through the oracle's [`TransformRunner`] so that it gets the same time
//! limit and process-group discipline as a test. C-Vise's `clang_delta` transformations
//! plug in this way (see [`clang_delta`]).

use super::{Context, Group, Instance, Kind, Pass, PassInfo};
use crate::oracle::{OracleError, TransformOutcome, TransformRunner};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The pass; see the module docs.
pub struct External {
    name: String,
    runner: TransformRunner,
    /// The count command (Regehr's `get_count`), if any.
    count: Option<String>,
    /// Its answer on the current best: the number of instances, or why it failed.
    instances: Option<Result<usize, String>>,
    /// An interrupt met while running the command, handed to the reducer.
    interrupted: Cell<bool>,
    /// Seconds spent running the command and its count.
    spent: Cell<f64>,
    /// What the commands gave on the best they last ran on.
    memo: RefCell<Memo>,
    /// Whether instances are ranges applied together (C-Vise's binary-search mode).
    binary: bool,
}

/// The count and the instances' outcomes (by `{n}`) on one best, known by its BLAKE3 hash:
/// a later round that meets the same best (the fixpoint round; every pass after a round's
/// last change) runs nothing again, since a transformation is deterministic (Regehr's
/// contract). Runs that were interrupted or could not start are not kept.
#[derive(Default)]
struct Memo {
    best: Option<[u8; 32]>,
    count: Option<Result<usize, String>>,
    outcomes: HashMap<(usize, usize), TransformOutcome>,
}

impl Memo {
    /// Forgets everything unless it was about `best`.
    fn on(&mut self, best: &str) {
        let h: [u8; 32] = blake3::hash(best.as_bytes()).into();
        if self.best != Some(h) {
            *self = Memo { best: Some(h), ..Memo::default() };
        }
    }
}

impl External {
    /// A pass named `name` that runs `runner`'s command with `{n}` = 1, 2, … until there is
    /// no instance.
    pub fn new(name: impl Into<String>, runner: TransformRunner) -> External {
        External {
            name: name.into(),
            runner,
            count: None,
            instances: None,
            interrupted: Cell::new(false),
            spent: Cell::new(0.0),
            memo: RefCell::default(),
            binary: false,
        }
    }

    /// With a count command `count`, C-Vise's binary-search mode (its
    /// `ClangBinarySearchPass`): over `c` instances, instance `k` is the `k`-th chunk of the
    /// sizes `c`, `⌈c/2⌉`, `⌈c/4⌉`, …, 1 in turn (all at once first, then halves, …, then
    /// one by one), applied together by a command that takes `{n}` and `{to}`. About `2c`
    /// instances where none is accepted; one where all are.
    pub fn in_binary_search(mut self, count: impl Into<String>) -> External {
        self.count = Some(count.into());
        self.binary = true;
        self
    }

    /// With a count command (`{file}`; it prints the number of instances `c` of the current
    /// best), the pass goes backwards, Regehr's use of `get_count`: instance `k` runs the
    /// command with `{n}` = `c - k`, so a variant that removes instance `n` leaves the
    /// numbers below it as they were, and retrying `k` on the new best (count `c - 1`)
    /// reaches `n - 1`. Instances past `c` are never run.
    pub fn with_count(mut self, count: impl Into<String>) -> External {
        self.count = Some(count.into());
        self
    }
}

impl External {
    /// Runs `f` (a run of the command), adding its wall time to `spent`.
    fn timed<T>(&self, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = f();
        self.spent.set(self.spent.get() + started.elapsed().as_secs_f64());
        out
    }
}

impl Pass for External {
    fn name(&self) -> &str {
        &self.name
    }

    fn prepare(&mut self, cx: Context<'_>) {
        self.memo.get_mut().on(cx.best);
        let known = self.memo.get_mut().count.clone();
        let instances = self.count.as_ref().map(|c| {
            if let Some(answer) = known {
                return answer;
            }
            match self.timed(|| self.runner.count(c, cx.best)) {
                Ok(answer) => {
                    self.memo.borrow_mut().count = Some(answer.clone());
                    answer
                }
                Err(OracleError::Interrupted) => {
                    self.interrupted.set(true);
                    Ok(0)
                }
                Err(e) => Err(e.to_string()),
            }
        });
        self.instances = instances;
    }

    fn instance(&self, cx: Context<'_>, k: usize) -> Instance {
        let (n, to) = match &self.instances {
            None => (k + 1, k + 1),
            Some(Ok(c)) if self.binary => match chunk(*c, k) {
                Some(range) => range,
                None => return Instance::Exhausted,
            },
            Some(Ok(c)) if k < *c => (c - k, c - k),
            Some(Ok(_)) => return Instance::Exhausted,
            Some(Err(why)) => return Instance::Error(why.clone()),
        };
        self.memo.borrow_mut().on(cx.best);
        let known = self.memo.borrow().outcomes.get(&(n, to)).cloned();
        let outcome = match known {
            Some(o) => Ok(o),
            None => self.timed(|| self.runner.run_range(cx.best, n..=to)).inspect(|o| {
                self.memo.borrow_mut().outcomes.insert((n, to), o.clone());
            }),
        };
        match outcome {
            Ok(TransformOutcome::Variant(text)) => Instance::Text(text),
            Ok(TransformOutcome::Unchanged) => Instance::Skip,
            Ok(TransformOutcome::NoInstance) => Instance::Exhausted,
            Ok(TransformOutcome::Failed(why)) => Instance::Error(why),
            Err(OracleError::Interrupted) => {
                self.interrupted.set(true);
                Instance::Exhausted
            }
            Err(e) => Instance::Error(e.to_string()),
        }
    }

    fn interrupted(&self) -> bool {
        self.interrupted.get()
    }

    fn process_seconds(&self) -> f64 {
        self.spent.get()
    }

    fn prepares_slowly(&self) -> bool {
        self.count.is_some()
    }
}

/// Chunk `k` of binary-search mode over `c` instances: the bounds (from 1, inclusive) of
/// the `k`-th chunk of the sizes `c`, `⌈c/2⌉`, …, 1 in turn; `None` past the last.
pub fn chunk(c: usize, mut k: usize) -> Option<(usize, usize)> {
    let mut size = c;
    while size > 0 {
        let chunks = c.div_ceil(size);
        if k < chunks {
            return Some((k * size + 1, ((k + 1) * size).min(c)));
        }
        k -= chunks;
        if size == 1 {
            break;
        }
        size = size.div_ceil(2);
    }
    None
}

/// clang_delta's transformations in the registry: for C and C++ programs, when
/// `clang_delta` is installed, each of [`clang_delta_transformations`] as an external
/// pass, built by the caller.
pub const CLANG_DELTA: PassInfo = PassInfo {
    name: "clang_delta",
    plain: "C-Vise's clang_delta transformations",
    about: "C-Vise's clang_delta transformations, each a pass in Regehr's protocol: on C and C++ programs only, the languages clang_delta parses (apt-get install cvise)",
    group: Group::Main,
    grows: false,
    kind: Kind::External,
};

/// The `clang_delta` transformations C-Vise applies to C programs that lopper runs as
/// passes, in this order.
pub const CLANG_DELTA_C: [&str; 19] = [
    "remove-unused-function",
    "remove-unused-var",
    "remove-unused-enum-member",
    "rename-fun",
    "rename-var",
    "rename-param",
    "replace-simple-typedef",
    "reduce-pointer-level",
    "simplify-if",
    "return-void",
    "param-to-local",
    "param-to-global",
    "callexpr-to-value",
    "simplify-callexpr",
    "aggregate-to-scalar",
    "local-to-global",
    "simplify-comma-expr",
    "copy-propagation",
    "simple-inliner",
];

/// The `clang_delta` transformations lopper runs as passes on C++ programs, in this order:
/// the C ones C-Vise runs on C++ too, and its C++ ones (namespaces, templates, classes and
/// their bases, members), after C-Vise's first / main / last pass groups.
pub const CLANG_DELTA_CXX: [&str; 45] = [
    "replace-function-def-with-decl",
    "remove-unused-function",
    "remove-namespace",
    "aggregate-to-scalar",
    "param-to-global",
    "param-to-local",
    "return-void",
    "simple-inliner",
    "reduce-pointer-level",
    "copy-propagation",
    "callexpr-to-value",
    "replace-callexpr",
    "simplify-callexpr",
    "remove-unused-enum-member",
    "remove-unused-var",
    "simplify-if",
    "move-definition-to-declaration",
    "simplify-comma-expr",
    "simplify-dependent-typedef",
    "replace-simple-typedef",
    "replace-dependent-typedef",
    "replace-one-level-typedef-type",
    "remove-unused-field",
    "instantiate-template-type-param-to-int",
    "instantiate-template-param",
    "template-arg-to-int",
    "template-non-type-arg-to-int",
    "reduce-class-template-param",
    "remove-trivial-base-template",
    "class-template-to-class",
    "merge-base-class",
    "remove-base-class",
    "replace-derived-class",
    "remove-unresolved-base",
    "remove-ctor-initializer",
    "replace-class-with-base-template-spec",
    "simplify-nested-class",
    "remove-unused-outer-class",
    "empty-struct-to-int",
    "local-to-global",
    "rename-fun",
    "rename-param",
    "rename-var",
    "rename-class",
    "rename-cxx-method",
];

/// The `clang_delta` transformations for a program in the language named `language`: C's
/// for `c`, C++'s for `cpp`, none for any other (clang_delta parses only C and C++).
pub fn clang_delta_transformations(language: &str) -> &'static [&'static str] {
    match language {
        "c" => &CLANG_DELTA_C,
        "cpp" => &CLANG_DELTA_CXX,
        _ => &[],
    }
}

/// Where `clang_delta` is: `$LOPPER_CLANG_DELTA`, else on `PATH`, else where Debian's
/// `cvise` package installs it (`/usr/lib/cvise/clang_delta`, `/usr/libexec/cvise/clang_delta`).
pub fn find_clang_delta() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LOPPER_CLANG_DELTA") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>()).map(|d| d.join("clang_delta"));
    on_path.chain(["/usr/lib/cvise/clang_delta", "/usr/libexec/cvise/clang_delta"].map(PathBuf::from)).find(|p| p.is_file())
}

/// The `clang_delta` transformations that apply a range of instances together
/// (`--to-counter`), which run in binary-search mode, as C-Vise runs them.
pub const CLANG_DELTA_BINARY: [&str; 4] = ["replace-function-def-with-decl", "remove-unused-function", "remove-unused-enum-member", "remove-unused-var"];

/// The command line that runs one `clang_delta` transformation in the protocol:
/// `clang_delta --transformation=T --counter={n} {file} > {out}` (it prints the variant,
/// and exits 1 when the counter passes the last instance), and its count command,
/// `clang_delta --query-instances=T {file}`.
///
/// For [`CLANG_DELTA_BINARY`], the command takes a range, `--counter={n} --to-counter={to}`.
pub fn clang_delta(binary: &Path, transformation: &str) -> (String, String) {
    let bin = crate::oracle::shell_quote(&binary.to_string_lossy());
    let to = if CLANG_DELTA_BINARY.contains(&transformation) { " --to-counter={to} --warn-on-counter-out-of-bounds" } else { "" };
    (format!("{bin} --transformation={transformation} --counter={{n}}{to} {{file}} > {{out}}"), format!("{bin} --query-instances={transformation} {{file}}"))
}
