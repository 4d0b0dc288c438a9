#!/usr/bin/env python3
"""Merges run_bench.sh output directories (one per algorithm) into one comparison.

usage: benches/compare.py OUT_PREFIX RUN_DIR [RUN_DIR ...]

Each RUN_DIR holds the rows.jsonl that benches/run_bench.sh wrote (ALGORITHM=... for each).
Writes OUT_PREFIX.csv (one row per case and algorithm) and OUT_PREFIX.md: that table,
then the geometric means per algorithm (like Perses' Table 3), over all its cases and over
the cases every algorithm finished within the budget. A later row of the same case and
algorithm replaces an earlier one.
"""
import json
import math
import sys

COLS = ["case", "algorithm", "tokens_before", "tokens_after", "pct", "tests", "wall_seconds",
        "invalid_pct", "passes", "budget_hit"]


def geo(xs):
    xs = [max(x, 1e-9) for x in xs]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    out, dirs = sys.argv[1], sys.argv[2:]
    rows = {}
    for d in dirs:
        for line in open(f"{d}/rows.jsonl"):
            r = json.loads(line)
            if not r.get("tokens_before"):
                continue
            r["pct"] = 100.0 * r["tokens_after"] / r["tokens_before"]
            r["invalid_pct"] = 100.0 * r.get("invalid_share", 0)
            r.setdefault("budget_hit", "yes" if r.get("interrupted") else "no")
            rows[(r["case"], r["algorithm"])] = r
    algos = []
    for (_, a) in rows:
        if a not in algos:
            algos.append(a)
    order = ["perses", "hdd", "hdd-fixpoint", "ddmin-tokens", "ddmin-lines"]
    algos.sort(key=lambda a: order.index(a) if a in order else len(order))
    cases = sorted({c for (c, _) in rows})
    with open(f"{out}.csv", "w") as f:
        f.write(",".join(COLS) + "\n")
        for c in cases:
            for a in algos:
                r = rows.get((c, a))
                if r:
                    f.write(",".join(f"{r[k]:.2f}" if isinstance(r[k], float) else str(r[k]) for k in COLS) + "\n")
    with open(f"{out}.md", "w") as f:
        f.write("| case | algorithm | original tokens | final tokens | % of original | tests | seconds | invalid candidates | final passes test | budget hit |\n")
        f.write("|---|---|---:|---:|---:|---:|---:|---:|---|---|\n")
        for c in cases:
            for a in algos:
                r = rows.get((c, a))
                if r:
                    f.write(f"| {c} | {a} | {r['tokens_before']} | {r['tokens_after']} | {r['pct']:.2f}% | {r['tests']} | "
                            f"{r['wall_seconds']:.1f} | {r['invalid_pct']:.1f}% | {r['passes']} | {r['budget_hit']} |\n")
        common = [c for c in cases if all((c, a) in rows and rows[(c, a)]["budget_hit"] == "no" for a in algos)]
        f.write("\nGeometric means per algorithm (all cases it ran; budget-hit runs count with what they reached):\n\n")
        f.write("| algorithm | cases | final tokens | % of original | tests | seconds |\n|---|---:|---:|---:|---:|---:|\n")
        for a in algos:
            rs = [rows[(c, a)] for c in cases if (c, a) in rows]
            f.write(f"| {a} | {len(rs)} | {geo([r['tokens_after'] for r in rs]):.0f} | {geo([r['pct'] for r in rs]):.2f}% | "
                    f"{geo([r['tests'] for r in rs]):.0f} | {geo([r['wall_seconds'] for r in rs]):.1f} |\n")
        if common and len(common) < len(cases):
            f.write(f"\nOver the {len(common)} cases every algorithm finished within the budget ({', '.join(common)}):\n\n")
            f.write("| algorithm | final tokens | % of original | tests | seconds |\n|---|---:|---:|---:|---:|\n")
            for a in algos:
                rs = [rows[(c, a)] for c in common]
                f.write(f"| {a} | {geo([r['tokens_after'] for r in rs]):.0f} | {geo([r['pct'] for r in rs]):.2f}% | "
                        f"{geo([r['tests'] for r in rs]):.0f} | {geo([r['wall_seconds'] for r in rs]):.1f} |\n")
    print(open(f"{out}.md").read())


if __name__ == "__main__":
    main()
