//! The grammar screen's cost on one input (`benches/screen_floor.sh` runs it on the
//! corpus): a fresh tree-sitter parse, and [`lopper_parse::SyntaxChecker::errors`] — the
//! incremental re-parse from the base's CST that screens every candidate — on the base
//! itself (no edit at all), with one blank line inserted, and with a blank line inserted
//! after every 100th line (edits that change no syntax error, as a valid candidate's).
//! Prints one line per measurement: the median of `ROUNDS` runs, in milliseconds.
//!
//! usage: `cargo run --release -p lopper-parse --example screen_floor -- FILE [LANG]`
//! (LANG: a built-in language's name; default: by the file's extension).

use lopper_parse::{Frontend, Language};
use std::time::Instant;

/// Runs per measurement (the median is printed).
const ROUNDS: usize = 7;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: screen_floor FILE [LANG]")?;
    let lang = match args.next() {
        Some(name) => Language::ALL.into_iter().find(|l| l.name() == name).ok_or("unknown language")?,
        None => {
            let ext = std::path::Path::new(&path).extension().and_then(|e| e.to_str()).unwrap_or("");
            Language::ALL.into_iter().find(|l| l.extensions().iter().any(|x| x.trim_start_matches('.') == ext)).ok_or("unknown extension")?
        }
    };
    let text = std::fs::read_to_string(&path)?;
    let frontend = Frontend::new(lang)?;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let with_blank =
        |after: &dyn Fn(usize) -> bool| lines.iter().enumerate().map(|(i, l)| if after(i) { format!("{l}\n") } else { l.to_string() }).collect::<String>();
    let one_edit = with_blank(&|i| i == lines.len() / 2);
    let every_100th = with_blank(&|i| i % 100 == 50);
    let median = |f: &mut dyn FnMut()| {
        let mut ms: Vec<f64> = (0..ROUNDS)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        ms[ROUNDS / 2]
    };
    println!("{path}: {} bytes, {} lines, {} syntax errors", text.len(), lines.len(), frontend.syntax_errors(&text)?);
    println!("fresh parse                          {:8.2} ms", median(&mut || drop(frontend.syntax_errors(&text))));
    let mut checker = frontend.checker(&text)?;
    for (what, candidate) in [("re-parse, no edit", &text), ("re-parse, one edit", &one_edit), ("re-parse, an edit every 100 lines", &every_100th)] {
        // A new key each run: the checker keeps the trees it made by key.
        let mut key = 0u32;
        let ms = median(&mut || {
            key += 1;
            let mut k = [0u8; 32];
            k[..4].copy_from_slice(&key.to_le_bytes());
            drop(checker.errors(candidate, k));
        });
        println!("{what:<36} {ms:8.2} ms");
    }
    Ok(())
}
