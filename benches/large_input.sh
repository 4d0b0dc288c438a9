#!/usr/bin/env bash
# Memory and own-time check on a large generated C program (default ~200k tokens): lopper
# reduces it under a fast grep oracle, so nearly all time is lopper's own. Prints the
# input's token count, lopper's peak RSS and its summary.
#
# usage: benches/large_input.sh [FUNCTIONS]     (default 2500 functions ≈ 200k tokens)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-2500}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$n" > "$work/big.c" <<'PY'
import sys
n = int(sys.argv[1])
print("struct pair { int a, b; };")
for i in range(n):
    print(f"""static int fn{i}(int x, struct pair *p) {{
  int acc = {i} * x + p->a;
  for (int k = 0; k < {i % 7 + 2}; k++) {{
    if (k % 2 == 0) acc += p->b * k; else acc -= (x << 1) ^ {i};
  }}
  return acc > {i} ? acc : fn{max(i - 1, 0)}(acc, p);
}}""")
print("int main(void) { struct pair p = { 1, 2 }; return needle_fn(fn7(3, &p)); }")
PY
printf '#!/bin/sh\ngrep -q "needle_fn(fn7" "$1"\n' > "$work/test.sh"
chmod +x "$work/test.sh"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
echo "input: $(wc -c < "$work/big.c") bytes"
/usr/bin/time -f "peak RSS: %M KB, wall: %e s, user: %U s" \
  "$root/target/release/lopper" --no-cache -o "$work/out.c" "$work/test.sh" "$work/big.c" 2>&1 | grep -v '^\['
echo "result:"; cat "$work/out.c"
