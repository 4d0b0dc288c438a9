#!/usr/bin/env python3
"""Writes the patched grammar.json: tree-sitter-cpp 0.23.4's, with the changes SOURCE lists.

usage: patch.py ORIGINAL_GRAMMAR_JSON OUT
"""
import json
import sys

g = json.load(open(sys.argv[1]))
r = g["rules"]
S = lambda v: {"type": "STRING", "value": v}
SYM = lambda n: {"type": "SYMBOL", "name": n}
OPT = lambda x: {"type": "CHOICE", "members": [x, {"type": "BLANK"}]}
ANY = lambda *xs: {"type": "CHOICE", "members": list(xs)}


def member(rule, pred):
    """The index of the one member of a SEQ rule that pred holds."""
    hits = [i for i, m in enumerate(rule["members"]) if pred(m)]
    assert len(hits) == 1, hits
    return hits[0]


# 1. `namespace std __attribute__ ((__visibility__ ("default"))) {`
ns = r["namespace_definition"]
body = member(ns, lambda m: m.get("name") == "body")
ns["members"].insert(body, OPT(SYM("attribute_specifier")))

# 2. `extern template class basic_string<char>;`, and `template class X<int>;` without a
#    declarator.
ti = r["template_instantiation"]
assert ti["members"][0] == S("template")
decl = member(ti, lambda m: m.get("name") == "declarator")
ti["members"][decl] = OPT(ti["members"][decl])
ti["members"].insert(0, OPT(S("extern")))
r["template_instantiation"] = {"type": "PREC", "value": 1, "content": ti}

json.dump(g, open(sys.argv[2], "w"), indent=2)
