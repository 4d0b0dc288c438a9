#!/usr/bin/env bash
# Runs the multi-file corpus cases (../shared/bench/multi-*: a project tree in input/ and
# interesting.sh DIR) with lopper and, one after the other on the same machine, the peers:
# C-Vise 2.7 (the files listed, --n 2; only where the tree's base names are unique, since
# it copies the files into its folder by base name) and Shrink Ray (the directory given,
# --parallelism 2). Each result is checked with the case's test (and its
# interesting-valid.sh, where the case has one); tokens are the corpus counter's sum over
# the result's files.
#
# usage: benches/run_multi.sh [CORPUS_DIR] [OUT_DIR] [CASE_FILTER]
#   PEERS     environment: which reducers run (default "lopper cvise shrinkray")
#   BUDGET    environment: seconds per run (default 1800; SIGINT keeps the best so far)
#   LOPPER    environment: the lopper binary (default: build target/release)
#   SHRINKRAY environment: the shrinkray command (default ~/sr-venv/bin/shrinkray)
#   TEST      environment: the test script (default interesting.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus=$(cd "${1:-$root/../shared/bench}" && pwd)
out=$(mkdir -p "${2:-$root/target/multi}" && cd "${2:-$root/target/multi}" && pwd)
filter=${3:-}
budget=${BUDGET:-1800}
peers=${PEERS:-lopper cvise shrinkray}
test=${TEST:-interesting.sh}
shrinkray=${SHRINKRAY:-$HOME/sr-venv/bin/shrinkray}
if [ -n "${LOPPER:-}" ]; then lopper=$LOPPER; else
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"; lopper=$root/target/release/lopper
fi
# Files, tokens (the corpus counter's sum) and whether the tests pass, for the tree $2.
row() {
  local case=$1 dir=$2 files tokens passes valid=-
  # Files that hold something (C-Vise empties a file it cannot delete), its backups left out.
  files=$(find "$dir" -type f ! -name '*.orig' ! -empty | wc -l)
  tokens=0
  if [ "$files" -gt 0 ]; then
    tokens=$(find "$dir" -type f ! -name '*.orig' ! -empty -print0 | xargs -0 python3 "$corpus/_tools/count_tokens.py" | awk '{s += $1} END {print s}')
  fi
  if "$case/$test" "$dir"; then passes=yes; else passes=no; fi
  if [ -f "$case/interesting-valid.sh" ]; then
    if "$case/interesting-valid.sh" "$dir"; then valid=yes; else valid=no; fi
  fi
  echo "$files $tokens $passes $valid"
}
for case in "$corpus"/multi-*/; do
  case=${case%/}
  name=$(basename "$case")
  [[ "$name" == *"$filter"* ]] || continue
  [ -f "$case/$test" ] || continue
  for peer in $peers; do
    work="$out/$name/$peer"; rm -rf "$work"; mkdir -p "$work"
    start=$(date +%s.%N)
    set +e
    case $peer in
      lopper)
        timeout -s INT "$budget" "$lopper" --no-cache -j 2 --stats "$work/stats.json" -o "$work/result" "$case/$test" "$case/input" > "$work/log" 2>&1
        rc=$? ;;
      cvise)
        if [ -n "$(find "$case/input" -type f -printf '%f\n' | sort | uniq -d)" ]; then
          echo "$name cvise - - - - - - (base names not unique: C-Vise 2.7 cannot run it)" | tee -a "$out/status.txt"; set -e; continue
        fi
        mkdir -p "$work/result"
        find "$case/input" -type f -exec cp {} "$work/result/" \;
        printf '#!/bin/bash\nexec %q .\n' "$case/$test" > "$work/test.sh"; chmod +x "$work/test.sh"
        (cd "$work/result" && timeout -s INT "$budget" cvise --n 2 "$work/test.sh" $(ls) > "$work/log" 2>&1)
        rc=$? ;;
      shrinkray)
        cp -R "$case/input" "$work/result"
        printf '#!/bin/bash\nexec %q "$1"\n' "$case/$test" > "$work/test.sh"; chmod +x "$work/test.sh"
        # Each line of its log prefixed with the seconds since the start (for the plots); no
        # LLM passes (the model cannot be downloaded here).
        (cd "$work" && timeout -s INT "$budget" "$shrinkray" --no-llm --parallelism 2 --ui basic "$work/test.sh" "$work/result" 2>&1 < /dev/null \
          | python3 -u -c 'import sys, time
t = time.time()
for line in sys.stdin: sys.stdout.write(f"{time.time() - t:.1f} {line}")' > "$work/log"; exit "${PIPESTATUS[0]}")
        rc=$? ;;
    esac
    set -e
    wall=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
    tests=-
    if [ "$peer" = lopper ] && [ -f "$work/stats.json" ]; then tests=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['tests'])" "$work/stats.json"); fi
    echo "$name $peer $rc $wall $tests $(row "$case" "$work/result")" | tee -a "$out/status.txt"
  done
done
echo "columns: case reducer exit seconds tests files tokens passes-test passes-valid"
