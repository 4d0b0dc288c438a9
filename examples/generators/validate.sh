#!/bin/sh
# The validator with GReduce's bug: it fails on a valid password (8+ characters, a digit)
# that contains a `c`. Interesting (exit 0) when some line's password does.
python3 - "$1" <<'PY'
import sys
for line in open(sys.argv[1]):
    fields = line.split()
    pw = fields[0] if fields else ''
    if len(pw) >= 8 and any(ch.isdigit() for ch in pw) and 'c' in pw:
        sys.exit(0)
sys.exit(1)
PY
