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
for case in "$corpus"/rust-*/; do
  name=$(basename "$case")
  [[ "$name" == *"$filter"* ]] || continue
  work="$out/$name"; rm -rf "$work"; mkdir -p "$work"
  start=$(date +%s.%N)
  set +e
  (cd "$work" && timeout -s INT "$budget" "$tr" -j 2 -s "$case/input.rs" -o result.rs -- "$case/interesting.sh" @@ > treereduce.log 2>&1)
  rc=$?
  set -e
  wall=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
  tokens=$(python3 "$corpus/_tools/count_tokens.py" "$work/result.rs" | awk '{print $1}')
  if "$case/interesting.sh" "$work/result.rs"; then passes=yes; else passes=no; fi
  echo "$name $rc $wall $tokens $passes" | tee -a "$out/status.txt"
done
