//! Records the commit the binary is built from (`lopper --version`), for bug reports;
//! `unknown` outside a git checkout (a packaged crate).

fn main() {
    let git = |args: &[&str]| {
        std::process::Command::new("git").args(args).output().ok().filter(|o| o.status.success()).map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty = git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    println!("cargo:rustc-env=LOPPER_COMMIT={commit}{}", if dirty { " with uncommitted changes" } else { "" });
    for path in [".git/HEAD", ".git/refs", ".git/packed-refs", ".git/index"] {
        println!("cargo:rerun-if-changed={path}");
    }
}
