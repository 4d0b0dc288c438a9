//! Writes `parser.c` and its headers for a tree-sitter `grammar.json`, at ABI 15 and with
//! the grammar's version recorded as 0.23.4 (the release it patches).
//!
//! usage: regenerate GRAMMAR_JSON OUT_DIR

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, grammar, out] = &args[..] else {
        eprintln!("usage: regenerate GRAMMAR_JSON OUT_DIR");
        std::process::exit(2);
    };
    let json = std::fs::read_to_string(grammar).expect("the grammar.json");
    let (name, c) = tree_sitter_generate::generate_parser_for_grammar(&json, Some((0, 23, 4))).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let out = std::path::Path::new(out);
    std::fs::create_dir_all(out.join("tree_sitter")).expect("OUT_DIR");
    std::fs::write(out.join("parser.c"), &c).expect("parser.c");
    std::fs::write(out.join("tree_sitter/parser.h"), tree_sitter::PARSER_HEADER).expect("parser.h");
    std::fs::write(out.join("tree_sitter/alloc.h"), tree_sitter_generate::ALLOC_HEADER).expect("alloc.h");
    std::fs::write(out.join("tree_sitter/array.h"), tree_sitter_generate::ARRAY_HEADER).expect("array.h");
    eprintln!("{name}: {} bytes of parser.c", c.len());
}
