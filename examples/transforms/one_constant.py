#!/usr/bin/env python3
"""A lopper transformation in Regehr's protocol: replace the n-th integer constant other
than 1 by 1 (the example of "Pluggable Domain-Specific Testcase Reducers").

    lopper --transform 'python3 examples/transforms/one_constant.py {file} {n} {out}' TEST FILE

Instance n counts from 1. Exit 0 after writing the variant to OUT; exit 255 when there is
no n-th constant (lopper then moves on to the next pass). `one_constant.py --count FILE`
prints the number of instances (Regehr's get_count), for `--transform-count`.
"""
import re
import sys


def constants(text):
    """Decimal integer literals other than 1 that are not part of an identifier or a longer number."""
    return [m for m in re.finditer(r"(?<![\w.])\d+(?![\w.])", text) if m.group() != "1"]


def read(path):
    return open(path, encoding="utf-8", errors="surrogateescape").read()


if sys.argv[1] == "--count":
    print(len(constants(read(sys.argv[2]))))
    sys.exit(0)
path, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = read(path)
found = constants(text)
if n > len(found):
    sys.exit(255)
m = found[n - 1]
with open(out, "w", encoding="utf-8", errors="surrogateescape") as f:
    f.write(text[: m.start()] + "1" + text[m.end():])
