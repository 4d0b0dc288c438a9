//! The guard's unit tests: real builds and runs with the compilers on PATH (skipped
//! where there is none).

use super::*;

/// The guard for C with the compilers on PATH; `None`, said once here, where there is none
/// (each test then returns).
fn guard() -> Option<UbGuard> {
    let g = UbGuard::detect(false, &[], Vec::new(), 10.0).ok();
    if g.is_none() {
        eprintln!("no C compiler on PATH: skipped");
    }
    g
}

#[test]
fn a_clean_program_passes_and_an_uninitialized_read_does_not() {
    let Some(g) = guard() else { return };
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.c");
    fs::write(&clean, "#include <stdio.h>\nint main(void) { int a[2] = {1, 2}; printf(\"%d\\n\", a[1]); return 0; }\n").unwrap();
    let w = tempfile::tempdir().unwrap();
    assert_eq!(g.check(&clean, w.path()), Ok(()));
    // Read one past the array: two compilers read different bytes, valgrind or ASan
    // (clang) or gcc's UBSan bounds check reports it; where none of them is here, the
    // -O0 warnings cannot see it.
    let oob = dir.path().join("oob.c");
    fs::write(&oob, "#include <stdio.h>\nint main(int argc, char **argv) { int a[2] = {1, 2}; printf(\"%d\\n\", a[argc + 1]); return 0; }\n").unwrap();
    if !g.sanitizers.is_empty() || g.compilers.len() > 1 {
        let w = tempfile::tempdir().unwrap();
        assert!(g.check(&oob, w.path()).is_err());
        // Split around the test: the reference build alone sees nothing wrong (no
        // warning, a normal end); the other checks refuse it.
        let [a, b] = [(); 2].map(|_| tempfile::tempdir().unwrap());
        assert_eq!(g.check_stage(&oob, a.path(), Stage::Reference), Ok(()));
        assert!(matches!(g.check_stage(&oob, b.path(), Stage::Others), Err(Refusal::Undefined(_))));
    }
    // A missing return value used by the caller: refused at the reference build.
    let noret = dir.path().join("noret.c");
    fs::write(&noret, "int f(int x) { if (x) return 1; }\nint main(void) { return f(0); }\n").unwrap();
    let w = tempfile::tempdir().unwrap();
    let refusal = g.check(&noret, w.path()).unwrap_err();
    assert!(matches!(&refusal, Refusal::Undefined(w) if w.contains("return-type")), "{refusal:?}");
    let w = tempfile::tempdir().unwrap();
    assert_eq!(g.check_stage(&noret, w.path(), Stage::Reference), Err(refusal));
    // A program that does not build at all shows no undefined behaviour: a call of a
    // function nothing defines (the linker's error), a name nothing declares.
    for (name, src) in [("unlinked.c", "int f(int);\nint main(void) { return f(0); }\n"), ("undeclared.c", "int main(void) { return y; }\n")] {
        let file = dir.path().join(name);
        fs::write(&file, src).unwrap();
        let w = tempfile::tempdir().unwrap();
        assert!(matches!(g.check(&file, w.path()), Err(Refusal::Invalid(_))), "{name}: {:?}", g.check(&file, w.path()));
    }
}

#[test]
fn verdicts_are_cached_by_candidate_and_configuration() {
    let Some(g) = guard() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p.c");
    fs::write(&file, "int main(void) { int x; return x; }\n").unwrap();
    let cache = dir.path().join("cache");
    let work = tempfile::tempdir().unwrap();
    let first = g.check_cached(&file, work.path(), &cache, Stage::All).unwrap_err();
    let files: Vec<_> = fs::read_dir(&cache).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(files.len(), 1);
    assert!(files[0].ends_with(".ub"), "{files:?}");
    // The second answer comes from the cache: the same refusal, though no compiler
    // could build from an empty work directory that is not there.
    let again = g.check_cached(&file, Path::new("/nonexistent/work"), &cache, Stage::All).unwrap_err();
    assert_eq!(first, again);
}

#[test]
fn the_run_limit_follows_the_original_and_a_loop_without_its_step_is_refused_at_it() {
    let Some(mut g) = guard() else { return };
    let dir = tempfile::tempdir().unwrap();
    let original = dir.path().join("original.c");
    fs::write(&original, "int main(void) { int s = 0; for (int i = 0; i < 10; i++) s += i; return s != 45; }\n").unwrap();
    let w = tempfile::tempdir().unwrap();
    let seconds = g.calibrate(&original, w.path()).unwrap();
    // A run of a few milliseconds: the floor, not the 10 s the guard was made with.
    assert!(seconds < 0.1, "{seconds}");
    assert_eq!(g.run_seconds, MIN_RUN_SECONDS);
    assert_eq!(g.check(&original, tempfile::tempdir().unwrap().path()), Ok(()));
    // The variant Perses makes by deleting `i++`: it never ends, and is refused at the
    // reference run's limit (`timeout -s KILL` then ends with the signal).
    let endless = dir.path().join("endless.c");
    fs::write(&endless, "int main(void) { int s = 0; for (int i = 0; i < 10; ) s += i; return s != 45; }\n").unwrap();
    let refusal = g.check_stage(&endless, tempfile::tempdir().unwrap().path(), Stage::Reference).unwrap_err();
    assert!(matches!(&refusal, Refusal::Undefined(w) if w.contains("did not end normally") || w.contains("took more than 1 s")), "{refusal:?}");
    // A limit given lower than the floor stays.
    let mut strict = g.clone();
    strict.run_seconds = 0.5;
    strict.calibrate(&original, tempfile::tempdir().unwrap().path()).unwrap();
    assert_eq!(strict.run_seconds, 0.5);
}
