#!/usr/bin/env bash
# Runs lopper on every case of a corpus laid out like ../shared/bench (each case: input.*,
# interesting.sh, optional setup.sh) and writes results.csv and results.md to OUT_DIR.
# Every final result is checked by running the case's interesting.sh on it once more.
#
# usage: benches/run_bench.sh [--setup] [CORPUS_DIR] [OUT_DIR] [CASE_FILTER]
#   --setup       run each case's setup.sh first
#   CORPUS_DIR    default: ../shared/bench (relative to the repository root)
#   OUT_DIR       default: target/bench
#   CASE_FILTER   only cases whose name contains this string
#   ALGORITHM     environment: the --algorithm to run (default perses)
#   BUDGET        environment: seconds per run; at the budget lopper gets SIGINT and keeps
#                 its best so far (the row says budget_hit=yes). Default: no budget.
#   LOPPER        environment: the lopper binary to run (default: build target/release)
#   JOBS          environment: -j for lopper (default: the number of cores)
#   PASSES        environment: --passes for lopper (default: lopper's own default)
#   TEST          environment: the test script of each case (default interesting.sh;
#                 interesting-valid.sh gives the validity-keeping column set, and only the
#                 cases that have one run)
set -euo pipefail
algorithm=${ALGORITHM:-perses}
root=$(cd "$(dirname "$0")/.." && pwd)
setup=0
if [ "${1:-}" = "--setup" ]; then setup=1; shift; fi
corpus=$(cd "${1:-$root/../shared/bench}" && pwd)
out=$(mkdir -p "${2:-$root/target/bench}" && cd "${2:-$root/target/bench}" && pwd)
filter=${3:-}
budget=${BUDGET:-}
if [ -n "${LOPPER:-}" ]; then
  lopper=$LOPPER
else
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"
  lopper=$root/target/release/lopper
fi
limit=()
if [ -n "$budget" ]; then limit=(timeout --preserve-status -s INT "$budget"); fi
: > "$out/runs.txt"
for case in "$corpus"/*/; do
  name=$(basename "$case")
  test=${TEST:-interesting.sh}
  [ -f "$case/$test" ] || continue
  ls "$case"/input.* >/dev/null 2>&1 || continue
  [[ "$name" == *"$filter"* ]] || continue
  input=$(ls "$case"/input.* | head -n 1)
  if [ "$setup" = 1 ] && [ -x "$case/setup.sh" ]; then "$case/setup.sh"; fi
  work="$out/$name"; rm -rf "$work"; mkdir -p "$work"
  cp "$input" "$work/"
  base=$(basename "$input")
  echo "== $name" | tee -a "$out/runs.txt"
  start=$(date +%s.%N)
  set +e
  # --no-cache: every run measures real tests, not verdicts remembered from an earlier run.
  "${limit[@]}" "$lopper" --no-cache ${JOBS:+-j "$JOBS"} ${PASSES:+--passes "$PASSES"} --algorithm "$algorithm" --stats "$work/stats.json" -o "$work/result.${base##*.}" "$case/$test" "$work/$base" >> "$out/runs.txt" 2>&1
  rc=$?
  set -e
  wall=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
  if { [ $rc -eq 0 ] || [ $rc -eq 130 ]; } && "$case/$test" "$work/result.${base##*.}"; then passes=yes; else passes=no; fi
  echo "$name $rc $wall $passes" >> "$out/status.txt"
  # The corpus's own lexical token counter (pygments), when present, for comparison.
  ct_before=""; ct_after=""
  if [ -f "$corpus/_tools/count_tokens.py" ] && python3 -c "import pygments" 2>/dev/null; then
    ct_before=$(python3 "$corpus/_tools/count_tokens.py" "$input" | awk '{print $1}')
    # No result file when lopper refused the case (e.g. a language it does not know).
    if [ -f "$work/result.${base##*.}" ]; then
      ct_after=$(python3 "$corpus/_tools/count_tokens.py" "$work/result.${base##*.}" | awk '{print $1}')
    fi
  fi
  python3 - "$work/stats.json" "$name" "$wall" "$passes" "$out/rows.jsonl" "$ct_before" "$ct_after" <<'PY'
import json, sys
path, name, wall, passes, rows, ct_before, ct_after = sys.argv[1:]
try:
    s = json.load(open(path))
except Exception:
    s = {}
s["budget_hit"] = "yes" if s.get("interrupted") else "no"
s.update(case=name, wall_seconds=float(wall), passes=passes, lexical_before=ct_before, lexical_after=ct_after)
open(rows, "a").write(json.dumps(s) + "\n")
PY
done
python3 - "$out" <<'PY'
import json, math, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(f"{out}/rows.jsonl")]
cols = ["case", "algorithm", "tokens_before", "tokens_after", "pct", "lexical_before", "lexical_after", "tests", "wall_seconds", "invalid_pct", "lopper_pct", "own_cpu_pct", "passes", "budget_hit"]
with open(f"{out}/results.csv", "w") as f:
    f.write(",".join(cols) + "\n")
    for r in rows:
        r["pct"] = 100.0 * r.get("tokens_after", 0) / max(r.get("tokens_before", 1), 1)
        r["invalid_pct"] = 100.0 * r.get("invalid_share", 0)
        t = r.get("total_seconds", 0) or 1e-9
        r["lopper_pct"] = 100.0 * (t - r.get("test_seconds", 0) - r.get("transform_seconds", 0)) / t
        # lopper's own process CPU time (not its tests', not its transformation commands').
        r["own_cpu_pct"] = 100.0 * r.get("own_cpu_seconds", 0) / t
        f.write(",".join(str(round(r.get(c, 0), 2)) if isinstance(r.get(c), float) else str(r.get(c, "")) for c in cols) + "\n")
with open(f"{out}/results.md", "w") as f:
    f.write("| case | original tokens | final tokens | % of original | final (count_tokens.py) | tests | seconds | invalid candidates | lopper's own time | lopper's own CPU | final passes test | budget hit |\n")
    f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n")
    for r in rows:
        f.write(f"| {r['case']} | {r.get('tokens_before','-')} | {r.get('tokens_after','-')} | {r['pct']:.2f}% | {r.get('lexical_after') or '-'} | {r.get('tests','-')} | {r['wall_seconds']:.1f} | {r['invalid_pct']:.2f}% | {r['lopper_pct']:.1f}% | {r['own_cpu_pct']:.1f}% | {r['passes']} | {r.get('budget_hit', 'no')} |\n")
    ok = [r for r in rows if r.get("tokens_before")]
    if ok:
        g = lambda k: math.exp(sum(math.log(max(r[k], 1e-9)) for r in ok) / len(ok))
        f.write(f"| geometric mean | {g('tokens_before'):.0f} | {g('tokens_after'):.0f} | {g('pct'):.2f}% | | {g('tests'):.0f} | {g('wall_seconds'):.1f} | | | | | |\n")
print(open(f"{out}/results.md").read())
PY
