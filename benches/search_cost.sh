#!/usr/bin/env bash
# The search-cost benchmarks of issue 32: a permissive C++ toy (libstdc++ preprocessed in,
# ~177k tokens with g++ 12; the test only needs `undeclared_thing` reported) and JSON nested
# DEPTH deep (the test: the file still contains `[[`). The toy's source is the one the
# search-cost guard reduces (tools/search-guard, tests/search-cost/toy.cpp). Prints, per input: final tokens,
# tests, wall seconds, lopper's own CPU, and the seconds to 10% and 1% of the original size.
#
# usage: benches/search_cost.sh [OUT_DIR]
#   LOPPER   environment: the lopper binary (default: build target/release)
#   BUDGET   environment: seconds for the toy (default 600; SIGINT keeps the best so far)
#   DEPTH    environment: nesting depth of the JSON input (default 5000)
#   JOBS     environment: -j (default 2)
# Needs g++ (the toy's test) and python3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root/target/search-cost}" && cd "${1:-$root/target/search-cost}" && pwd)
if [ -z "${LOPPER:-}" ]; then
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"
  LOPPER=$root/target/release/lopper
fi
budget=${BUDGET:-600}
depth=${DEPTH:-5000}
jobs=${JOBS:-2}

cp "$root/tests/search-cost/toy.cpp" "$out/toy.cpp"
g++ -E -P -std=c++17 "$out/toy.cpp" > "$out/toy-input.ii" 2>/dev/null || true
cat > "$out/toy-test.sh" <<'SH'
#!/bin/bash
LC_ALL=C g++ -fsyntax-only -std=c++17 "$1" 2>&1 | grep -q "'undeclared_thing' was not declared"
SH
python3 -c "import sys; d=int(sys.argv[1]); open(sys.argv[2], 'w').write('[' * d + ']' * d + '\n')" "$depth" "$out/deep-input.json"
cat > "$out/deep-test.sh" <<'SH'
#!/bin/sh
grep -q '\[\[' "$1"
SH
chmod +x "$out/toy-test.sh" "$out/deep-test.sh"

run() { # name ext budget
  local name=$1 ext=$2 limit=$3
  cp "$out/$name-input.$ext" "$out/$name.$ext"
  timeout --preserve-status -s INT "$limit" "$LOPPER" --no-cache -j "$jobs" --stats "$out/$name-stats.json" \
    -o "$out/$name-result.$ext" "$out/$name-test.sh" "$out/$name.$ext" > "$out/$name.log" 2>&1 || true
  python3 - "$out/$name-stats.json" "$name" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
before = s["tokens_before"]
def reach(share):
    for p in s.get("progress", []):
        if p["tokens"] <= before * share:
            return f'{p["seconds"]:.1f}'
    return "-"
print(f'{sys.argv[2]}: {before} -> {s["tokens_after"]} tokens, {s["tests"]} tests, '
      f'{s["total_seconds"]:.1f} s, own CPU {s["own_cpu_seconds"]:.1f} s '
      f'({100 * s["own_cpu_seconds"] / max(s["total_seconds"], 1e-9):.1f}%), '
      f'10% at {reach(0.1)} s, 1% at {reach(0.01)} s, interrupted: {s["interrupted"]}')
PY
}
run deep json 600
run toy ii "$budget"
