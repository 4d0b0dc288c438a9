//! `lopper template KIND`: a careful interestingness test for the common bug kinds, filled
//! in with the user's compilers and flags, printed to standard output (issue 53, point 4).
//! The wrong-code test is C-Reduce's recipe for such bugs (Regehr et al., PLDI'12): the
//! warnings that signal undefined behaviour made errors, a second compiler agreeing at the
//! reference level, a sanitizer build running clean, and the buggy build disagreeing.

use crate::{exit, Fail};
use clap::{Args, ValueEnum};
use lopper_reduce::oracle::shell_quote;
use lopper_reduce::oracle::ub_guard::{warning_errors, Family};

/// The bug kinds a template is written for.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Kind {
    /// The compiler crashes (a signal, or an internal compiler error) with a stack signature.
    Crash,
    /// The compiler crashes on a valid program: a second front end must accept each
    /// candidate.
    CrashOnValid,
    /// The program prints or exits differently when built at two levels (or by two
    /// compilers), without undefined behaviour.
    WrongCode,
}

/// `lopper template`'s arguments.
#[derive(Args, Debug)]
pub struct TemplateArgs {
    /// crash, crash-on-valid or wrong-code.
    kind: Kind,
    /// The compiler with the bug (default: gcc).
    #[arg(long, value_name = "CC", default_value = "gcc")]
    cc: String,
    /// Flags for every build, as one shell-quoted string.
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true, default_value = "")]
    flags: String,
    /// crash, crash-on-valid: text the compiler's output must hold (a function of the
    /// stack trace, the assertion's message).
    #[arg(long, value_name = "TEXT")]
    signature: Option<String>,
    /// crash-on-valid: the front end that must accept each candidate; wrong-code: the
    /// second compiler that must agree at the reference level (default: clang).
    #[arg(long, value_name = "CC")]
    other_cc: Option<String>,
    /// wrong-code: the reference level and the level with the bug.
    #[arg(long, value_name = "LEVEL,LEVEL", default_value = "-O0,-O2")]
    levels: String,
}

/// Prints the template for `a`.
///
/// # Errors
/// A usage error for a missing `--signature` or malformed `--levels`.
pub fn template_cmd(a: TemplateArgs) -> Result<(), Fail> {
    print!("{}", template(&a)?);
    Ok(())
}

/// The text of the template for `a`.
fn template(a: &TemplateArgs) -> Result<String, Fail> {
    let cc = shell_quote(&a.cc);
    let flags = &a.flags;
    let head = "#!/bin/bash\n# Written by `lopper template`; edit to taste. Exit 0 iff the candidate $1 still shows the bug.\n\
                f=$(readlink -f -- \"$1\") || exit 1\nt=$(mktemp -d) || exit 1\ntrap 'rm -rf \"$t\"' EXIT\ncd \"$t\" || exit 1\nexport TMPDIR=\"$t\"\nulimit -c 0\n";
    // A signal or an internal compiler error, with the signature in its output.
    let crash = || -> Result<String, Fail> {
        let signature = a
            .signature
            .as_ref()
            .map(|s| shell_quote(s))
            .ok_or_else(|| Fail(exit::USAGE, "this template needs --signature TEXT: what the compiler's crash output must hold".into()))?;
        Ok(format!(
            "# The crash: a signal or an internal compiler error, with the signature in its output.\n\
             timeout 60 {cc} {flags} -c \"$f\" -o /dev/null >out 2>&1\nr=$?\n[ $r -ge 128 ] || grep -q -i 'internal compiler error' out || exit 1\ngrep -q -F -- {signature} out\n"
        ))
    };
    Ok(match a.kind {
        Kind::Crash => format!("{head}{}", crash()?),
        Kind::CrashOnValid => {
            let other = shell_quote(a.other_cc.as_deref().unwrap_or("clang"));
            format!("{head}# Valid: a front end without the bug accepts the candidate.\ntimeout 60 {other} {flags} -fsyntax-only \"$f\" >/dev/null 2>&1 || exit 1\n{}", crash()?)
        }
        Kind::WrongCode => {
            let (good, bad) =
                a.levels.split_once(',').ok_or_else(|| Fail(exit::USAGE, "--levels takes two levels, the reference and the buggy one: -O0,-O2".into()))?;
            let other = a.other_cc.as_deref().unwrap_or("clang");
            let family = |c: &str| if c.contains("clang") { Family::Clang } else { Family::Gcc };
            let errors = |c: &str| warning_errors(family(c)).join(" ");
            let (cc_errors, other_errors) = (errors(&a.cc), errors(other));
            let other = shell_quote(other);
            let san = if family(&a.cc) == Family::Clang { "undefined,address" } else { "undefined" };
            format!(
                "{head}# (a) Both levels build with the warnings that signal undefined behaviour made errors.\n\
                 timeout 60 {cc} {good} {flags} {cc_errors} \"$f\" -o good >/dev/null 2>&1 || exit 1\n\
                 timeout 60 {cc} {bad} {flags} {cc_errors} \"$f\" -o bad >/dev/null 2>&1 || exit 1\n\
                 # (b) The reference run ends normally; the buggy one differs and does not time out.\n\
                 timeout 10 ./good >out-good 2>/dev/null </dev/null; rg=$?\n[ $rg -lt 124 ] || exit 1\n\
                 timeout 10 ./bad >out-bad 2>/dev/null </dev/null; rb=$?\n[ $rb -eq 124 ] || [ $rb -eq 137 ] && exit 1\n\
                 [ $rg -eq $rb ] && cmp -s out-good out-bad && exit 1\n\
                 # (c) A second compiler at the reference level agrees with the reference run.\n\
                 timeout 60 {other} {good} {flags} {other_errors} \"$f\" -o second >/dev/null 2>&1 || exit 1\n\
                 timeout 10 ./second >out-second 2>/dev/null </dev/null; [ $? -eq $rg ] && cmp -s out-good out-second || exit 1\n\
                 # (d) A sanitizer build runs clean, as the reference run.\n\
                 timeout 60 {cc} -O0 -g -fsanitize={san} -fno-sanitize-recover=all -w {flags} \"$f\" -o san >/dev/null 2>&1 || exit 1\n\
                 ASAN_OPTIONS=detect_leaks=0 timeout 20 ./san >out-san 2>err-san </dev/null; [ $? -eq $rg ] && cmp -s out-good out-san || exit 1\n\
                 ! grep -q -E 'runtime error|Sanitizer' err-san\n"
            )
        }
    })
}
