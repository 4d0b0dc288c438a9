//! The shims and the patterns on real generator runs (python3 and node, as the end-to-end
//! tests use them; `tools/test` installs both).

use super::patterns;
use super::trace::{Trace, LOW};
use crate::oracle::generator::{Align, GeneratorRunner, RunFailure};
use std::ffi::OsString;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

/// GReduce's password-list generator (examples/generators): a count of lines, each a
/// length and that many characters (inside a generator expression: a frame of its own), a
/// coin for a suffix, and one call of each other API.
const PASSWORDS: &str = include_str!("../../../../examples/generators/passwords.py");

fn runner(dir: &tempfile::TempDir, file: &str, source: &str, argv: &[&str]) -> GeneratorRunner {
    let path = dir.path().join(file);
    std::fs::write(&path, source).unwrap();
    let mut args: Vec<OsString> = argv.iter().map(OsString::from).collect();
    args.insert(1, path.into_os_string());
    GeneratorRunner::new(args, Duration::from_secs(60), Arc::new(AtomicBool::new(false))).unwrap()
}

fn plain_output(dir: &tempfile::TempDir, file: &str, argv: &[&str]) -> String {
    let out = std::process::Command::new(argv[0]).arg(dir.path().join(file)).args(&argv[1..]).output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn python_record_changes_nothing_and_replay_reproduces_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let r = runner(&dir, "gen.py", PASSWORDS, &["python3", "7"]);
    let recorded = r.run(None, Align::Realign).unwrap();
    let output = recorded.output.clone().unwrap();
    assert_eq!(output, plain_output(&dir, "gen.py", &["python3", "7"]), "recording must not change what the generator draws");
    let trace = Trace::parse(&recorded.trace).unwrap();
    let apis: std::collections::BTreeSet<&str> = trace.choices.iter().map(|c| c.api.as_str()).collect();
    for api in ["randint", "choice", "random", "shuffle", "sample", "choices", "getrandbits", "uniform"] {
        assert!(apis.contains(api), "{api} not recorded: {apis:?}");
    }
    // Nested calls (randint -> randrange -> getrandbits) are recorded once, at the outside.
    assert!(!apis.contains("randrange"));
    // A different seed does not matter on replay: every choice comes from the trace.
    let replayed = r.run(Some(&trace.to_jsonl()), Align::Halt).unwrap();
    assert_eq!(replayed.output.unwrap(), output);
    assert!(replayed.misaligned.is_empty());
    assert_eq!(Trace::parse(&replayed.trace).unwrap().len(), trace.len());
}

#[test]
fn halt_stops_and_realign_stays_in_the_same_invocation() {
    let dir = tempfile::tempdir().unwrap();
    let r = runner(&dir, "gen.py", PASSWORDS, &["python3", "7"]);
    let recorded = r.run(None, Align::Realign).unwrap();
    let output = recorded.output.unwrap();
    let mut trace = Trace::parse(&recorded.trace).unwrap();
    // Drop the first line's first character choice: its length now asks for one more.
    let first_char = trace.choices.iter().position(|c| c.api == "choice").unwrap();
    trace.choices.remove(first_char);
    let halted = r.run(Some(&trace.to_jsonl()), Align::Halt).unwrap();
    assert!(matches!(halted.output, Err(RunFailure::Halted(_))), "{:?}", halted.output);
    let realigned = r.run(Some(&trace.to_jsonl()), Align::Realign).unwrap();
    let got = realigned.output.unwrap();
    assert!(!realigned.misaligned.is_empty());
    // The missing choice gets the smallest value ('a') at the end of the first password,
    // and no later line changes: the next line's choices are not pulled forward.
    let (want, got): (Vec<&str>, Vec<&str>) = (output.lines().collect(), got.lines().collect());
    assert_eq!(want.len(), got.len());
    assert_eq!(want[1..], got[1..]);
    let (w, g) = (want[0].split(' ').next().unwrap(), got[0].split(' ').next().unwrap());
    let length = trace.choices[1].int_value().unwrap() as usize;
    assert_eq!(g, format!("{}a{}", &w[1..length], &w[length..]), "{w} -> {g}");
}

#[test]
fn loops_are_found_with_their_iterations_and_lowered_counts_replay() {
    let dir = tempfile::tempdir().unwrap();
    let r = runner(&dir, "gen.py", PASSWORDS, &["python3", "7"]);
    let trace = Trace::parse(&r.run(None, Align::Realign).unwrap().trace).unwrap();
    let loops = patterns::loops(&trace);
    let lines = trace.choices[0].int_value().unwrap() as usize;
    let outer = loops.iter().find(|l| l.count == 0).expect("the line count is a loop");
    assert_eq!(outer.iterations.len(), lines);
    assert_eq!(outer.min, 1);
    assert_eq!(outer.iterations.last().unwrap().end, trace.len());
    // Each line's length is a loop over its characters, with the length's lower bound.
    for it in &outer.iterations {
        let inner = loops.iter().find(|l| l.count == it.start).expect("a length loop per line");
        assert_eq!(inner.iterations.len() as i64, trace.choices[it.start].int_value().unwrap());
        assert_eq!(inner.min, 8);
        assert!(inner.iterations.iter().all(|r| r.len() == 1 && trace.choices[r.start].api == "choice"));
    }
    // Keeping the second line only: one line, as the original's second, on replay.
    let (kept, origin) = patterns::keep_iterations(&trace, outer, &[1]);
    assert_eq!(origin[0], 0);
    let out = r.run(Some(&kept.to_jsonl()), Align::Halt).unwrap().output.unwrap();
    let original = r.run(Some(&trace.to_jsonl()), Align::Halt).unwrap().output.unwrap();
    assert_eq!(out, format!("{}\n", original.lines().nth(1).unwrap()));
}

#[test]
fn low_markers_give_the_smallest_values() {
    let dir = tempfile::tempdir().unwrap();
    let r = runner(&dir, "gen.py", PASSWORDS, &["python3", "7"]);
    let mut trace = Trace::parse(&r.run(None, Align::Realign).unwrap().trace).unwrap();
    for c in trace.choices.iter_mut() {
        *c = c.with_value(LOW);
    }
    let run = r.run(Some(&trace.to_jsonl()), Align::Realign).unwrap();
    // One line (count 1) of 8 'a's, no suffix coin... random() = 0.0 < 0.3 takes it: '!'.
    assert_eq!(run.output.unwrap(), "aaaaaaaa! [0, 1] ['x', 'x'] [0, 1, 2, 3] 0 1\n");
    assert!(Trace::parse(&run.trace).unwrap().choices.iter().all(|c| c.is_low()));
}

#[test]
fn node_math_random_is_recorded_and_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let src = "const n = 2 + Math.floor(Math.random() * 6);\nconst xs = [];\nfor (let i = 0; i < n; i++) xs.push(Math.floor(Math.random() * 100));\nconsole.log(xs.join(' '));\n";
    let r = runner(&dir, "gen.js", src, &["node"]);
    let recorded = r.run(None, Align::Realign).unwrap();
    let trace = Trace::parse(&recorded.trace).unwrap();
    let n: usize = recorded.output.as_ref().unwrap().split_whitespace().count();
    assert_eq!(trace.len(), n + 1);
    assert!(trace.choices.iter().all(|c| c.api == "random"));
    // The loop's draws travel to the shim as one run of doubles (`f64`).
    let jsonl = trace.to_jsonl();
    assert!(jsonl.lines().count() < trace.len() && jsonl.contains("\"f64\""), "{jsonl}");
    let again = r.run(Some(&jsonl), Align::Halt).unwrap();
    assert_eq!(again.output, recorded.output);
    // All choices at their smallest: two elements, 0 (the markers as one run of `values`).
    let low = Trace { choices: trace.choices.iter().map(|c| c.with_value(LOW)).collect() };
    assert_eq!(r.run(Some(&low.to_jsonl()), Align::Realign).unwrap().output.unwrap(), "0 0\n");
}

#[test]
fn a_rejection_loop_fed_low_values_ends_by_realigns_later_draws() {
    let dir = tempfile::tempdir().unwrap();
    // Draws until it gets a number above one half: with every value at its lowest it never
    // would; past the trace, re-align answers the lowest once, then draws (from a fixed seed).
    let src = "import random\nn = 0\nwhile random.random() < 0.5:\n    n += 1\nprint('done', n)\n";
    let r = runner(&dir, "gen.py", src, &["python3"]);
    let mut trace = Trace::parse(&r.run(None, Align::Realign).unwrap().trace).unwrap();
    for c in trace.choices.iter_mut() {
        *c = c.with_value(LOW);
    }
    let first = r.run(Some(&trace.to_jsonl()), Align::Realign).unwrap();
    let out = first.output.unwrap();
    assert!(out.starts_with("done "), "{out}");
    let draws: usize = out.trim()["done ".len()..].parse().unwrap();
    assert!(draws > trace.len(), "the lowest answers run past the trace before a draw ends the loop: {out}");
    assert!(!first.misaligned.is_empty());
    // Deterministic: the same trace gives the same output.
    assert_eq!(r.run(Some(&trace.to_jsonl()), Align::Realign).unwrap().output.unwrap(), out);
}

#[test]
fn a_generator_that_never_stops_asking_is_halted_as_runaway() {
    let dir = tempfile::tempdir().unwrap();
    let src = "import random\nwhile True:\n    random.random()\n";
    let r = runner(&dir, "gen.py", src, &["python3"]);
    let trace = "{\"api\":\"random\",\"args\":[],\"value\":0.5,\"stack\":[[1,\"gen.py:3\"]]}\n";
    let run = r.run(Some(trace), Align::Realign).unwrap();
    assert!(matches!(run.output, Err(RunFailure::Halted(_))), "{:?}", run.output);
}

#[test]
fn a_value_that_no_longer_fits_wraps_an_index_and_clamps_a_number() {
    let dir = tempfile::tempdir().unwrap();
    let src = "import random\nn = random.randint(1, 10)\nprint(n, random.choice(list(range(n))), random.randint(0, n))\n";
    let r = runner(&dir, "gen.py", src, &["python3"]);
    let trace = Trace::parse(&r.run(None, Align::Realign).unwrap().trace).unwrap();
    assert_eq!(trace.len(), 3);
    // n = 10, the last index, the top of the range; then n lowered to 4.
    let edited = Trace { choices: vec![trace.choices[0].with_value("4"), trace.choices[1].with_value("9"), trace.choices[2].with_value("10")] };
    let run = r.run(Some(&edited.to_jsonl()), Align::Realign).unwrap();
    assert_eq!(run.output.unwrap(), "4 1 4\n");
}

#[test]
fn runs_of_choices_are_written_as_one_line_and_read_back_as_the_same_choices() {
    let stack = r#"[[1,"g.py:3"],[2,"g.py:9"]]"#;
    let mut text = String::new();
    for v in ["0.25", "1e-07", "0.5"] {
        text += &format!("{{\"api\":\"random\",\"args\":[],\"value\":{v},\"stack\":{stack}}}\n");
    }
    for v in ["3", "4", "{\"lopper\":\"low\"}"] {
        text += &format!("{{\"api\":\"randint\",\"args\":[0,9,1],\"value\":{v},\"stack\":{stack}}}\n");
    }
    text += &format!("{{\"api\":\"randint\",\"args\":[0,5,1],\"value\":2,\"stack\":{stack}}}\n");
    let trace = Trace::parse(&text).unwrap();
    assert_eq!(trace.len(), 7);
    let jsonl = trace.to_jsonl();
    let lines: Vec<&str> = jsonl.lines().collect();
    // The floats as doubles, the integers and the marker as JSON, the last choice (another
    // shape) on its own.
    assert_eq!(lines.len(), 3, "{jsonl}");
    assert!(lines[0].contains("\"f64\":") && !lines[0].contains("\"values\""), "{}", lines[0]);
    assert!(lines[1].contains(r#""values":[3,4,{"lopper":"low"}]"#), "{}", lines[1]);
    assert!(lines[2].contains(r#""value":2"#), "{}", lines[2]);
    let back = Trace::parse(&jsonl).unwrap();
    assert_eq!(back.len(), trace.len());
    for (a, b) in trace.choices.iter().zip(&back.choices) {
        assert_eq!((&a.api, &a.args, &a.stack), (&b.api, &b.args, &b.stack));
        match (a.value.get().parse::<f64>(), b.value.get().parse::<f64>()) {
            (Ok(x), Ok(y)) => assert_eq!(x.to_bits(), y.to_bits(), "{} {}", a.value, b.value),
            _ => assert_eq!(a.value.get(), b.value.get()),
        }
    }
    // The integers stay integers (the shim answers randint with an int).
    assert_eq!(back.choices[3].value.get(), "3");
    // A line with two kinds of value is refused, with its line number.
    let bad = format!("{}\n{{\"api\":\"random\",\"args\":[],\"value\":0.5,\"values\":[0.5],\"stack\":[]}}\n", lines[2]);
    assert_eq!(Trace::parse(&bad).unwrap_err().0, 2);
    assert_eq!(Trace::parse("{\"api\":\"random\",\"args\":[],\"f64\":\"AAAA\",\"stack\":[]}").unwrap_err().0, 1);
}

#[test]
fn a_python_loop_of_coins_is_recorded_as_one_run_and_replays_edited() {
    let dir = tempfile::tempdir().unwrap();
    let src =
        "import random, sys\nrng = random.Random(int(sys.argv[1]))\ncoins = [rng.random() < 0.5 for _ in range(2000)]\nprint(sum(coins), rng.randint(1, 6))\n";
    let r = runner(&dir, "coins.py", src, &["python3", "3"]);
    let recorded = r.run(None, Align::Realign).unwrap();
    assert_eq!(recorded.output.clone().unwrap(), plain_output(&dir, "coins.py", &["python3", "3"]));
    // 2,000 coins from one frame and line: one line of the shim's trace.
    assert_eq!(recorded.trace.lines().count(), 2, "{}", &recorded.trace[..200.min(recorded.trace.len())]);
    let trace = Trace::parse(&recorded.trace).unwrap();
    assert_eq!(trace.len(), 2001);
    let heads = |t: &Trace| t.choices[..2000].iter().filter(|c| c.value.get().parse::<f64>().unwrap() < 0.5).count();
    let die = trace.choices[2000].value.get().to_string();
    assert_eq!(recorded.output.clone().unwrap(), format!("{} {die}\n", heads(&trace)));
    // Coins 100..200 turned to tails and 300..310 to their smallest value (heads): the run
    // goes back as doubles and as JSON values with markers; the die keeps its value.
    let mut edited = trace.clone();
    for c in &mut edited.choices[100..200] {
        *c = c.with_value("0.75");
    }
    let mut want = heads(&edited);
    want += edited.choices[300..310].iter().filter(|c| c.value.get().parse::<f64>().unwrap() >= 0.5).count();
    for c in &mut edited.choices[300..310] {
        *c = c.with_value(LOW);
    }
    let run = r.run(Some(&edited.to_jsonl()), Align::Halt).unwrap();
    assert!(run.misaligned.is_empty());
    assert_eq!(run.output.unwrap(), format!("{want} {die}\n"));
    assert_eq!(Trace::parse(&run.trace).unwrap().len(), 2001);
}
