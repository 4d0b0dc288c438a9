//! End to end: reduce a JavaScript program with a real node oracle.

mod common;
use common::*;
use lopper_parse::Language;
use std::fs;

const PROGRAM: &str = r#"'use strict';
const config = { retries: 3, verbose: false, names: ['a', 'b', 'c'] };

function pad(s, n) {
  while (s.length < n) s = ' ' + s;
  return s;
}

const format = (row) => `${pad(row.name, 8)} | ${row.value.toFixed(2)}`;

class Table {
  constructor(rows) { this.rows = rows; }
  total() { return this.rows.reduce((acc, r) => acc + r.value, 0); }
  render() { return this.rows.map(format).join('\n'); }
}

const rows = config.names.map((name, i) => ({ name, value: i * 1.5 }));
const table = new Table(rows);
console.log(table.render());
console.log('total', table.total());
const settings = config.options;
console.log(settings.depth);
"#;

#[test]
fn node_type_error_reduces_to_its_core() {
    require_tool("node");
    let case = Case::new("report.js", PROGRAM, "node \"$1\" 2>&1 | grep -q \"Cannot read properties of undefined (reading 'depth')\"");
    assert!(case.passes(&case.program));
    let out = case.lopper(&[]);
    assert_exit(&out, 0);
    let reduced = fs::read_to_string(&case.program).unwrap();
    assert!(case.passes(&case.program), "{reduced}");
    let (before, after) = (tokens(Language::JavaScript, PROGRAM), tokens(Language::JavaScript, &reduced));
    // Measured: 236 -> 13 tokens.
    assert!(after <= 13, "{before} -> {after}:\n{reduced}");
    assert!(reduced.contains(".depth"), "{reduced}");
}
