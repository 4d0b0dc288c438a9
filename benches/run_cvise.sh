#!/usr/bin/env bash
# Runs C-Vise (the peer: `cvise --n 2`, Debian's package) on the corpus cases whose name
# contains CASE_FILTER, one after another, for comparison with benches/run_bench.sh.
# Per case OUT_DIR/CASE/ holds input.X (reduced in place), cvise.log (its progress lines,
# which benches/plot_progress.py reads) and the row in OUT_DIR/status.txt:
# `case exit-status wall-seconds final-tokens(count_tokens.py) passes-its-test`.
#
# usage: benches/run_cvise.sh [CORPUS_DIR] [OUT_DIR] [CASE_FILTER]
#   BUDGET   environment: seconds per case (default 1800; SIGINT keeps C-Vise's best)
#   TEST     environment: the test script of each case (default interesting.sh;
#            interesting-valid.sh for the validity-keeping column set)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(cd "${1:-$root/../shared/bench}" && pwd)
out=$(mkdir -p "${2:-$root/target/cvise}" && cd "${2:-$root/target/cvise}" && pwd)
filter=${3:-}
budget=${BUDGET:-1800}
command -v cvise >/dev/null || { echo "cvise not found: apt-get install cvise" >&2; exit 1; }
. "$root/benches/peer.sh"
for case in "$corpus"/*/; do
  name=$(basename "$case")
  test=${TEST:-interesting.sh}
  [ -f "$case/$test" ] || continue
  ls "$case"/input.* >/dev/null 2>&1 || continue
  [[ "$name" == *"$filter"* ]] || continue
  input=$(ls "$case"/input.* | head -n 1)
  base=$(basename "$input")
  work="$out/$name"; rm -rf "$work"; mkdir -p "$work"
  cp "$input" "$work/$base"
  # C-Vise runs the test with no argument, in a copy of the file under its own name.
  printf '#!/bin/bash\nexec %q %q\n' "$case/$test" "$base" > "$work/test.sh"
  chmod +x "$work/test.sh"
  peer_run "$corpus" "$out" "$budget" "$case" "$work" "$base" cvise.log cvise --n 2 ./test.sh "$base"
done
