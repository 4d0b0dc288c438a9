#!/usr/bin/env bash
# The grammar screen's floor: for each input of a corpus laid out like ../shared/bench, a
# fresh tree-sitter parse against the incremental re-parse lopper screens each candidate
# with (no edit, one edit, an edit every 100 lines); medians of 7 runs, in ms
# (crates/lopper-parse/examples/screen_floor.rs). On the preprocessed C++ inputs the
# re-parse costs 7-10 ms whatever the edit (tree-sitter re-parses their GLR-ambiguous,
# "fragile", declarations every time), which bounds lopper's own CPU per candidate there.
#
# usage: benches/screen_floor.sh [CORPUS_DIR] [CASE_FILTER]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(cd "${1:-$root/../shared/bench}" && pwd)
filter=${2:-}
cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p lopper-parse --example screen_floor
for case in "$corpus"/*/; do
  name=$(basename "$case")
  [[ "$name" == *"$filter"* ]] || continue
  input=$(ls "$case"/input.* 2>/dev/null | head -n 1) || continue
  echo "== $name"
  "$root/target/release/examples/screen_floor" "$input" | tail -n +2
done
