#!/usr/bin/env python3
"""The best wall time any speculative scheduler with sequential acceptance could reach.

Reads the log of a `lopper -v -j 1` run (its `test run … seconds=…` lines, in test order)
and replays that exact sequence of verdicts through an ideal continuous pipeline with N
slots: a slot starts the next candidate the moment it frees (no gaps between windows, no
cost of lopper's own), each run takes as long as it took alone, and when a candidate turns
out interesting every run started after it is thrown away and the order resumes after it.
Runs that slow each other down (a JVM or V8 using more than one core) make the real bound
worse still. Prints the test time per N and its ratio to N = 1.

usage: lopper -v -j 1 --no-cache ... 2> run.log; benches/pipeline_bound.py run.log [N ...]
"""
import heapq
import re
import sys


def runs(path):
    """(seconds, interesting) per test run, in order; a run that exited 0 is interesting."""
    line = re.compile(r"test run .*ending=(\S+) seconds=([0-9.eE+-]+)")
    out = []
    for text in open(path, encoding="utf-8", errors="replace"):
        m = line.search(text)
        if m:
            out.append((float(m.group(2)), m.group(1) == "Exited(ExitStatus(unix_wait_status(0)))"))
    return out


def pipeline(seq, slots):
    """Wall seconds of the ideal pipeline with `slots` slots over the verdict sequence."""
    now, i, n = 0.0, 0, len(seq)
    while i < n:
        running, nxt, known = [], i, {}
        while True:
            while len(running) < slots and nxt < n:
                heapq.heappush(running, (now + seq[nxt][0], nxt))
                nxt += 1
            now, idx = heapq.heappop(running)
            known[idx] = seq[idx][1]
            k = i
            while k in known and not known[k]:
                k += 1
            if k in known:  # the first interesting one: what ran after it is wasted
                i = k + 1
                break
            if k >= n:
                i = n
                break
    return now


def main():
    seq = runs(sys.argv[1])
    slots = [int(a) for a in sys.argv[2:]] or [1, 2, 3, 4]
    if not seq:
        sys.exit("no 'test run' lines: run lopper with -v")
    base = pipeline(seq, 1)
    print(f"{len(seq)} test runs, {sum(v for _, v in seq)} interesting, {base:.1f} s of tests in sequence")
    for s in slots:
        t = pipeline(seq, s)
        print(f"-j {s}: at best {t:.1f} s of tests = {t / base:.3f} of -j 1")


if __name__ == "__main__":
    main()
