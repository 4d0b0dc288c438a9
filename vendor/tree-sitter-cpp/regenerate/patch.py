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

# 3. A braced default argument: `_Comp __comp = {}` (270 syntax errors in the 920k TU).
op = r["optional_parameter_declaration"]
dv = member(op, lambda m: m.get("name") == "default_value")
op["members"][dv]["content"] = ANY(SYM("expression"), SYM("initializer_list"))

# 4. A comma expression in decltype (`decltype(_M_h._M_find_tr(__x), void(), true)`, in
#    unordered_map's `contains`: its recovery ended the class there and gave the class's
#    `}` to the namespace); GCC's `__decltype` (`typedef __decltype(__comp) _Cmp;`).
dt = r["decltype"]
assert dt["members"][0] == S("decltype") and dt["members"][2] == SYM("expression")
dt["members"][0] = ANY(S("decltype"), S("__decltype"))
dt["members"][2] = ANY(SYM("expression"), SYM("comma_expression"))

# 5. Attributes before `friend`: `[[nodiscard]] friend constexpr bool operator==(…)`.
fr = r["friend_declaration"]
fr["members"].insert(0, {"type": "REPEAT", "content": SYM("attribute_declaration")})
# Whether `[[…]]` begins a member's modifiers or a friend's is known at `friend`.
g["conflicts"].append(["_declaration_modifiers", "friend_declaration"])

# 6. An attribute between a declarator and its initializer:
#    `memory_order __b __attribute__ ((__unused__)) = __m & __memory_order_mask;`.
eq = r["init_declarator"]["members"][0]
assert eq["members"][1] == S("=")
eq["members"].insert(1, OPT(SYM("attribute_specifier")))

# 7. A member operator called by name: `this->operator()(__urng, _M_param)`.
fe = r["field_expression"]
field = member(fe, lambda m: m.get("name") == "field")
fe["members"][field]["content"]["members"].append(SYM("operator_name"))
# `x.operator<` may still begin a template method (`x.operator< <int>()`).
g["conflicts"].append(["field_expression", "template_method"])

json.dump(g, open(sys.argv[2], "w"), indent=2)
