#!/usr/bin/env bash
# Generator-based reduction against syntax-guided and line-based reduction on the same
# failing inputs (issue 10, docs/benchmarks.md): networkx's G(n, p) graphs that networkx
# 2.8.8's eulerize() handles wrongly (examples/generators/graphs/).
#
#   NX_OLD_PYTHON=/path/to/python-with-networkx-2.8.8 benches/generator_bench.sh OUTDIR [SEED...]
#
# For each seed: `lopper generate` with each strategy and alignment (SETTINGS, default all:
# tree:re-align tree:halt tree:bypass sequence:re-align tree-then-sequence:re-align, and
# tree:re-align:then-perses,
# which lets the default pipeline finish the generator's result as `lopper generate` does by
# default for a .json output), then lopper's default pipeline and ddmin over lines on the
# generator's output text (BASELINES=0 skips those two). Prints one table row per
# run (size = nodes + edges of the result, bytes, tests including the 2 sanity runs,
# seconds, the share of tested inputs the consumer rejected as invalid) and keeps every
# result, --stats file and verdict log under OUTDIR.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
lopper=${LOPPER:-$root/target/release/lopper}
ex=$root/examples/generators/graphs
: "${NX_OLD_PYTHON:?set NX_OLD_PYTHON to a Python with networkx 2.8.8 (the consumer with the bug)}"
out=$(realpath -m "$1")
shift
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(10 29 35 40 45)
mkdir -p "$out"
# The consumer, logging each verdict (0 interesting, 1 not, 2 invalid input) to $VERDICT_LOG.
cat > "$out/test.sh" <<SH
#!/bin/sh
"$ex/test.sh" "\$1" >/dev/null 2>&1
r=\$?
echo \$r >> "\$VERDICT_LOG"
exit \$r
SH
chmod +x "$out/test.sh"
export NX_OLD_PYTHON

run() { # NAME SEED COMMAND...: runs COMMAND in OUTDIR/SEED/NAME with the verdict log, timed
  local name=$1 seed=$2
  shift 2
  local d="$out/$seed/$name"
  rm -rf "$d" && mkdir -p "$d"
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$d" && VERDICT_LOG="$d/verdicts" "$@")
  t1=$(date +%s.%N)
  echo "$t0 $t1" > "$d/wall"
}

for seed in "${seeds[@]}"; do
  mkdir -p "$out/$seed"
  python3 "$ex/graph.py" "$seed" > "$out/$seed/input.json"
  for setting in ${SETTINGS:-tree:re-align tree:halt tree:bypass sequence:re-align tree-then-sequence:re-align tree:re-align:then-perses}; do
    IFS=: read -r algo align then <<< "$setting"
    flags=(--no-cache -q)
    [ -n "$then" ] || flags+=(--no-then-perses)
    run "generate-$algo-$align${then:+-$then}" "$seed" "$lopper" generate "${flags[@]}" \
      --algorithm "$algo" --align "$align" -o result.json --stats stats.json \
      "$out/test.sh" -- python3 "$ex/graph.py" "$seed"
  done
  [ "${BASELINES:-1}" = 1 ] || continue
  run perses-pipeline "$seed" sh -c "cp ../input.json graph.json && '$lopper' --no-cache -q -o result.json --stats stats.json '$out/test.sh' graph.json"
  run ddmin-lines "$seed" sh -c "cp ../input.json graph.json && '$lopper' --no-cache -q --algorithm ddmin-lines -o result.json --stats stats.json '$out/test.sh' graph.json"
done

python3 - "$out" "${seeds[@]}" <<'PY'
import json, os, sys
out, seeds = sys.argv[1], sys.argv[2:]
def size(path):
    g = json.load(open(path))
    return len(g["nodes"]) + len(g["edges"])
print("| seed | reducer | size (nodes + edges) | bytes | tests | seconds | invalid share |")
print("|---|---|---|---|---|---|---|")
for seed in seeds:
    before = size(os.path.join(out, seed, "input.json"))
    for name in ["generate-tree-re-align", "generate-tree-halt", "generate-tree-bypass", "generate-sequence-re-align", "generate-tree-then-sequence-re-align", "generate-tree-re-align-then-perses", "perses-pipeline", "ddmin-lines"]:
        d = os.path.join(out, seed, name)
        if not os.path.exists(os.path.join(d, "stats.json")):
            continue
        s = json.load(open(os.path.join(d, "stats.json")))
        # Every test run, the 2 sanity runs included (with then-perses, its tests too).
        tests = s["generator"]["tests"] + s["sanity_runs"] + s.get("then", {}).get("tests", 0) if "generator" in s else s["tests"]
        verdicts = [l.strip() for l in open(os.path.join(d, "verdicts"))] if os.path.exists(os.path.join(d, "verdicts")) else []
        invalid = sum(v == "2" for v in verdicts) / max(len(verdicts), 1)
        t0, t1 = map(float, open(os.path.join(d, "wall")).read().split())
        res = os.path.join(d, "result.json")
        print(f"| {seed} | {name} | {before} → {size(res)} | {os.path.getsize(os.path.join(out, seed, 'input.json'))} → {os.path.getsize(res)} | {tests} | {t1 - t0:.1f} | {invalid:.0%} |")
PY
