#!/usr/bin/env python3
"""Plots, per corpus case, the size of the best program over time for lopper and C-Vise.

usage: benches/plot_progress.py LOPPER_RUN_DIR CVISE_RUN_DIR OUT_DIR

LOPPER_RUN_DIR is an OUT_DIR of benches/run_bench.sh (CASE/stats.json: its `progress`
points, one per new best, and `tokens_before`); CVISE_RUN_DIR holds CASE/cvise.log (C-Vise's
log: `HH:MM:SS INFO (P%, N bytes, L lines)` per improvement); the original is the
LOPPER_RUN_DIR/CASE/input.* that run_bench.sh copied.
Writes OUT_DIR/CASE.svg for every case that has both, with bytes over wall seconds (both
reducers report bytes; lopper also reports tokens, shown in the legend). Needs matplotlib
(`pip install matplotlib`).
"""
import glob
import json
import os
import re
import sys

import matplotlib

matplotlib.use("svg")
# Stable element ids, so that a redrawn plot of the same data has the same bytes.
matplotlib.rcParams["svg.hashsalt"] = "lopper"
import matplotlib.pyplot as plt  # noqa: E402

LINE = re.compile(r"^(\d+):(\d+):(\d+) INFO \(\s*-?[\d.]+%, (\d+) bytes")


def cvise_points(log, original_bytes):
    points = [(0.0, original_bytes)]
    for line in open(log, errors="replace"):
        m = LINE.match(line)
        if m:
            h, mi, s, size = map(int, m.groups())
            points.append((h * 3600 + mi * 60 + s, size))
    return points


def lopper_points(stats, original_bytes):
    points = [(0.0, original_bytes)] + [(p["seconds"], p["bytes"]) for p in stats.get("progress", [])]
    return points


def step(ax, points, end, **kw):
    xs = [max(p[0], 0.05) for p in points] + [max(end, 0.05)]
    ys = [p[1] for p in points] + [points[-1][1]]
    ax.step(xs, ys, where="post", **kw)


def finish(fig, ax, title, ylabel, path):
    """Log-log axes with a legend and grid, written to `path` (SVG, no date: stable bytes)."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("wall seconds (log)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})
    plt.close(fig)
    print(path)


def main():
    lopper_dir, cvise_dir, out_dir = sys.argv[1:4]
    os.makedirs(out_dir, exist_ok=True)
    for stats_path in sorted(glob.glob(f"{lopper_dir}/*/stats.json")):
        case = os.path.basename(os.path.dirname(stats_path))
        log = f"{cvise_dir}/{case}/cvise.log"
        inputs = glob.glob(f"{lopper_dir}/{case}/input.*")
        if not os.path.exists(log) or not inputs:
            continue
        stats = json.load(open(stats_path))
        original = os.path.getsize(inputs[0])
        lp, cp = lopper_points(stats, original), cvise_points(log, original)
        fig, ax = plt.subplots(figsize=(7, 4))
        step(ax, lp, stats["total_seconds"], label=f"lopper ({stats['tokens_after']} tokens, {lp[-1][1]} bytes, {stats['total_seconds']:.0f} s)")
        step(ax, cp, cp[-1][0], label=f"C-Vise --n 2 ({cp[-1][1]} bytes, {cp[-1][0]:.0f} s)")
        finish(fig, ax, case, "bytes of the best program (log)", f"{out_dir}/{case}.svg")


if __name__ == "__main__":
    main()
