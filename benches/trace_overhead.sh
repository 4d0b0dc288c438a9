#!/usr/bin/env bash
# The trace shims' cost (issue 10: under 20% of the generator's own run time): each
# generator run plainly, recording its trace, and replaying that trace, timed by hyperfine
# (Debian's `hyperfine`). Run from anywhere; needs python3 with networkx, and node.
#
#   benches/trace_overhead.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
runs=${1:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The shims from a copy, as lopper runs them: the Python one caches its bytecode beside
# itself, which belongs in a scratch directory, not in the repository.
cp -r "$root/crates/lopper-oracle/shims" "$work/shims"
shims=$work/shims
# A generator heavy in choices: 79,800 coins of G(400, 0.01), written as an edge list.
cat > "$work/big_graph.py" <<'PY'
import random, sys
import networkx as nx
g = nx.gnp_random_graph(400, 0.01, seed=random.Random(int(sys.argv[1])))
print(sorted(g.edges()))
PY
# A recursive Python generator (a random program's expressions): nearly every call from
# another stack, the opposite of G(n, p)'s loop.
cat > "$work/expr.py" <<'PY'
import random, sys
rng = random.Random(int(sys.argv[1]))
def expr(d):
    if d > 6 or rng.random() < 0.3:
        return str(rng.randint(0, 99))
    return "(%s %s %s)" % (expr(d + 1), rng.choice("+-*"), expr(d + 1))
for i in range(300):
    print("x%d = %s" % (i, expr(0)))
PY
# A Node generator: a random arithmetic expression from Math.random.
cat > "$work/expr.js" <<'JS'
const pick = (n) => Math.floor(Math.random() * n);
const expr = (d) => (d > 4 || pick(3) === 0) ? String(pick(100)) : `(${expr(d + 1)} ${'+-*'[pick(3)]} ${expr(d + 1)})`;
for (let i = 0; i < 200; i++) console.log(`let x${i} = ${expr(0)};`);
JS
measure() { # NAME COMMAND...
  local name=$1
  shift
  local record=(env PYTHONPATH="$shims/python" NODE_OPTIONS="--require $shims/node/lopper_trace.js" LOPPER_TRACE_MODE=record LOPPER_TRACE_OUT="$work/trace")
  local replay=(env PYTHONPATH="$shims/python" NODE_OPTIONS="--require $shims/node/lopper_trace.js" LOPPER_TRACE_MODE=replay LOPPER_TRACE_IN="$work/trace.in" LOPPER_TRACE_OUT="$work/trace.out")
  "${record[@]}" "$@" > /dev/null
  cp "$work/trace" "$work/trace.in"
  echo "## $name: $(python3 -c 'import sys; from base64 import b64decode as d; import json
n = 0
for l in open(sys.argv[1]):
    e = json.loads(l); n += len(d(e["f64"])) // 8 if "f64" in e else len(e.get("values", [0]))
print(n)' "$work/trace") choices"
  hyperfine -N -w 2 -r "$runs" --export-markdown "$work/table.md" \
    -n plain "$(printf '%q ' "$@")" \
    -n record "$(printf '%q ' "${record[@]}" "$@")" \
    -n replay "$(printf '%q ' "${replay[@]}" "$@")" > /dev/null
  cat "$work/table.md"
}
# The interpreter itself, not a version manager's wrapper script in front of it (pyenv's
# `python3` is a shell script that added about 60 ms to every run here, plain runs too).
py=$(python3 -c 'import sys; print(sys.executable)')
measure "passwords.py 7" "$py" "$root/examples/generators/passwords.py" 7
measure "graphs/graph.py 10" "$py" "$root/examples/generators/graphs/graph.py" 10
measure "G(400, 0.01)" "$py" "$work/big_graph.py" 1
measure "expr.py 1" "$py" "$work/expr.py" 1
measure "expr.js" node "$work/expr.js"
