#!/usr/bin/env bash
# Runs treereduce (the tree-sitter reducer Rust users know: `cargo install treereduce-rust`,
# `-j 2`, its default passes) on the Rust corpus cases whose name contains CASE_FILTER, one
# after another, for comparison with benches/run_bench.sh. Per case OUT_DIR/CASE/ holds
# result.rs and treereduce.log, and OUT_DIR/status.txt a row
# `case exit-status wall-seconds final-tokens(count_tokens.py) passes-its-test`.
#
# usage: benches/run_treereduce.sh [CORPUS_DIR] [OUT_DIR] [CASE_FILTER]
#   BUDGET      environment: seconds per case (default 1800)
#   TREEREDUCE  environment: the treereduce-rust binary (default: from PATH)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(cd "${1:-$root/../shared/bench}" && pwd)
out=$(mkdir -p "${2:-$root/target/treereduce}" && cd "${2:-$root/target/treereduce}" && pwd)
filter=${3:-rust}
budget=${BUDGET:-1800}
tr=${TREEREDUCE:-treereduce-rust}
command -v "$tr" >/dev/null || { echo "$tr not found: cargo install treereduce-rust" >&2; exit 1; }
. "$root/benches/peer.sh"
for case in "$corpus"/rust-*/; do
  name=$(basename "$case")
  [[ "$name" == *"$filter"* ]] || continue
  work="$out/$name"; rm -rf "$work"; mkdir -p "$work"
  peer_run "$corpus" "$out" "$budget" "$case" "$work" result.rs treereduce.log "$tr" -j 2 -s "$case/input.rs" -o result.rs -- "$case/interesting.sh" @@
done
