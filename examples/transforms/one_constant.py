#!/usr/bin/env python3
"""A lopper transformation in Regehr's protocol: replace the n-th integer constant other
than 1 by 1 (the example of "Pluggable Domain-Specific Testcase Reducers").

    lopper --transform 'python3 examples/transforms/one_constant.py {file} {n} {out}' TEST FILE

Instance n counts from 1. Exit 0 after writing the variant to OUT; exit 255 when there is
no n-th constant (lopper then moves on to the next pass).
"""
import re
import sys

path, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = open(path, encoding="utf-8", errors="surrogateescape").read()
# Decimal integer literals that are not part of an identifier or a longer number.
constants = [m for m in re.finditer(r"(?<![\w.])\d+(?![\w.])", text) if m.group() != "1"]
if n > len(constants):
    sys.exit(255)
m = constants[n - 1]
with open(out, "w", encoding="utf-8", errors="surrogateescape") as f:
    f.write(text[: m.start()] + "1" + text[m.end():])
