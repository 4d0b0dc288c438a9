#!/usr/bin/env python3
"""Plots, per multi-file corpus case, the size of the best tree over time for lopper,
C-Vise and Shrink Ray.

usage: benches/plot_multi.py CORPUS_DIR OUT_DIR RUN_DIR...

Each RUN_DIR is an OUT_DIR of benches/run_multi.sh (CASE/PEER/...); where several hold
the same case and reducer, the last one given wins. The points come from lopper's
CASE/lopper/stats.json (`progress`: one point per new best, bytes of the whole tree),
C-Vise's CASE/cvise/log (`HH:MM:SS INFO (P%, N bytes, ...)`, N the sum over its files)
and Shrink Ray's CASE/shrinkray/log as run_multi.sh writes it (each line prefixed with
the seconds since the start; `Reduced test case to N kB`). The original's bytes are the
sum over CORPUS_DIR/CASE/input. Writes OUT_DIR/CASE.svg for each case with at least two
reducers. Needs matplotlib (`pip install matplotlib`) and plot_progress.py beside it.
"""
import glob
import json
import os
import re
import sys

# plot_progress sets the SVG backend before pyplot is imported.
from plot_progress import cvise_points as cvise_log_points, finish, step
import matplotlib.pyplot as plt  # noqa: E402

SHRINKRAY = re.compile(r"^([\d.]+) Reduced test case to ([\d.]+) (Bytes?|kB|MB)")
UNITS = {"Byte": 1, "Bytes": 1, "kB": 1000, "MB": 1000 * 1000}


def tree_bytes(root):
    return sum(os.path.getsize(p) for p in glob.glob(f"{root}/**", recursive=True) if os.path.isfile(p))


def lopper_points(path, original):
    stats = json.load(open(path))
    points = [(0.0, original)] + [(p["seconds"], p["bytes"]) for p in stats.get("progress", [])]
    label = f"lopper ({stats['tokens_after']} tokens, {stats['total_seconds']:.0f} s)"
    return points, stats["total_seconds"], label


def cvise_points(path, original):
    points = cvise_log_points(path, original)
    return points, points[-1][0], f"C-Vise 2.7 --n 2 ({points[-1][1]} bytes)"


def shrinkray_points(path, original):
    points = [(0.0, original)]
    end = 0.0
    for line in open(path, errors="replace"):
        head = line.split(" ", 1)[0]
        try:
            end = max(end, float(head))
        except ValueError:
            continue
        m = SHRINKRAY.match(line)
        if m:
            points.append((float(m.group(1)), float(m.group(2)) * UNITS[m.group(3)]))
    return points, end, f"Shrink Ray ({points[-1][1]:.0f} bytes)"


def main():
    corpus, out_dir, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    readers = {"lopper": ("stats.json", lopper_points), "cvise": ("log", cvise_points), "shrinkray": ("log", shrinkray_points)}
    found = {}
    for run in runs:
        for case_dir in sorted(glob.glob(f"{run}/multi-*/")):
            case = os.path.basename(case_dir.rstrip("/"))
            for peer, (name, _) in readers.items():
                path = f"{case_dir}{peer}/{name}"
                if os.path.exists(path):
                    found.setdefault(case, {})[peer] = path
    for case, peers in sorted(found.items()):
        if len(peers) < 2:
            continue
        original = tree_bytes(f"{corpus}/{case}/input")
        fig, ax = plt.subplots(figsize=(7, 4))
        for peer, path in peers.items():
            points, end, label = readers[peer][1](path, original)
            step(ax, points, end, label=label)
        finish(fig, ax, case, "bytes of the best tree (log)", f"{out_dir}/{case}.svg")


if __name__ == "__main__":
    main()
