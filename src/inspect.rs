//! The subcommands and options that inspect rather than reduce: `lopper languages`,
//! `lopper parse`, `lopper grammar show`, `--list-passes`, `--version` and `lopper man`.

use crate::config::{language, read_program};
use crate::{exit, Cli, Fail};
use lopper_parse::Registry;
use lopper_reduce::passes;
use std::fs;
use std::io::Write;
use std::path::Path;

/// `lopper --version`: the version, the commit it was built from and the built-in
/// languages' grammar packages, as a bug report about a reducer needs.
pub fn long_version() -> &'static str {
    let grammars: Vec<&str> = lopper_parse::Language::ALL.iter().map(|l| l.grammar_package()).collect();
    let text = format!("{} (commit {})\nbuilt-in grammars: {}", env!("CARGO_PKG_VERSION"), env!("LOPPER_COMMIT"), grammars.join(", "));
    Box::leak(text.into_boxed_str())
}

pub fn languages_cmd() -> Result<(), Fail> {
    let reg = Registry::discover(&[]).map_err(|e| Fail(exit::BAD_INPUT, e.to_string()))?;
    let rows: Vec<[String; 4]> = reg
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let ext = if e.extensions.is_empty() { "-".to_string() } else { e.extensions.iter().map(|x| format!(".{x}")).collect::<Vec<_>>().join(" ") };
            let shadow = reg.shadowed(i).map_or(String::new(), |s| format!(" (shadowed by {})", s.origin));
            [e.name.clone(), ext, e.origin.clone(), format!("{}{shadow}", e.location())]
        })
        .collect();
    let header = ["language", "extensions", "found in", "location"].map(String::from);
    // Each column as wide as its widest cell, so long origins do not push others out of line.
    let width = |c: usize| rows.iter().chain([&header]).map(|r| r[c].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let mut out = std::io::stdout().lock();
    for r in std::iter::once(&header).chain(&rows) {
        let _ = writeln!(out, "{:<w0$}  {:<w1$}  {:<w2$}  {}", r[0], r[1], r[2], r[3]);
    }
    for (origin, dir, exists) in &reg.searched {
        let _ = writeln!(out, "# searched the {origin} {}{}", dir.display(), if *exists { "" } else { " (absent)" });
    }
    if reg.entries.iter().all(|e| e.origin == "built-in") {
        let _ = writeln!(out, "# no grammars directory holds a language: the built-in languages only (see docs/adding-a-language.md)");
    }
    let _ = writeln!(out, "# tree-sitter grammar folders are compiled once into {}", lopper_parse::cache_dir().display());
    Ok(())
}

pub fn parse_cmd(file: &Path, lang: Option<&str>, grammar: Option<&Path>) -> Result<(), Fail> {
    let f = language(file, lang, grammar)?;
    let (text, _) = read_program(file)?;
    let p = f.parse(&text).map_err(|e| Fail(exit::BAD_INPUT, e.to_string()))?;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(p.tree.dump(f.grammar()).as_bytes());
    let s = p.stats;
    let _ = writeln!(
        out,
        "# {} tokens, {} nodes; {} of {} named nodes matched their PNF rule ({:.1}%), {} opaque, {} syntax errors",
        p.tree.token_count(),
        p.tree.len(),
        s.matched,
        s.inner_nodes,
        100.0 * s.matched_share(),
        s.opaque,
        s.syntax_errors
    );
    Ok(())
}

pub fn grammar_show(grammar: &str) -> Result<(), Fail> {
    let path = Path::new(grammar);
    // A tree-sitter grammar's PNF needs only its grammar.json, not a compiled parser.
    let json = if path.is_dir() { lopper_parse::find_tree_sitter_src(path).map(|s| s.join("grammar.json")) } else { None };
    let json = json.or_else(|| (path.extension().is_some_and(|e| e == "json") && path.is_file()).then(|| path.to_path_buf()));
    let pnf = if let Some(json) = json {
        let grammar = json.display().to_string();
        let text = fs::read_to_string(&json).map_err(|e| Fail(exit::BAD_INPUT, format!("cannot read grammar {grammar}: {e}")))?;
        let g = lopper_grammar::load_tree_sitter_json(&text).map_err(|e| Fail(exit::BAD_INPUT, format!("{grammar}: {e}")))?;
        lopper_grammar::normalize(&g).map_err(|e| Fail(exit::BAD_INPUT, format!("{grammar}: {e}")))?
    } else if path.exists() {
        language(path, None, Some(path))?.grammar().clone()
    } else {
        language(path, Some(grammar), None)?.grammar().clone()
    };
    // A closed pipe (`| head`) is not an error worth a panic.
    let _ = std::io::stdout().lock().write_all(pnf.show().as_bytes());
    Ok(())
}

/// `lopper man`: the man page of lopper and of each subcommand, one after another, from
/// the clap definitions (the text is the `--help` text).
pub fn man_page() -> Result<(), Fail> {
    let cmd = <Cli as clap::CommandFactory>::command();
    let mut out = Vec::new();
    let write = |c: clap::Command, out: &mut Vec<u8>| clap_mangen::Man::new(c).render(out);
    write(cmd.clone(), &mut out).map_err(|e| Fail(exit::ERROR, e.to_string()))?;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let name: &'static str = Box::leak(format!("lopper-{}", sub.get_name()).into_boxed_str());
        write(sub.clone().name(name), &mut out).map_err(|e| Fail(exit::ERROR, e.to_string()))?;
    }
    std::io::Write::write_all(&mut std::io::stdout(), &out).map_err(|e| Fail(exit::ERROR, e.to_string()))
}

/// `--list-passes`: every registry entry in the default order, by group, with its
/// description and source (clang_delta's with where it was found and its transformations),
/// then the names the summary counts apart.
pub fn list_passes() -> String {
    use lopper_reduce::passes::{Group, Kind};
    let mut out = String::new();
    for info in lopper_reduce::pipeline::REGISTRY {
        let group = match info.group {
            Group::First => "first",
            Group::Main => "main",
            Group::Last => "last",
        };
        let extra = match info.kind {
            Kind::External => {
                let found = passes::external::find_clang_delta().map_or("not found: apt-get install cvise".to_string(), |p| format!("found: {}", p.display()));
                let (c, cxx) = (passes::external::CLANG_DELTA_C.join(", "), passes::external::CLANG_DELTA_CXX.join(", "));
                format!(" ({found}); C: {c}; C++: {cxx}")
            }
            _ => String::new(),
        };
        out.push_str(&format!("{:14} {:5} {}{extra}\n", info.name, group, info.about));
    }
    out.push_str("\nCounted apart in the summary and --stats:\n");
    for (name, _, about) in lopper_reduce::stats::COUNTED_APART {
        out.push_str(&format!("{name:14}       {about}\n"));
    }
    out
}
