# The least any in-process Python trace shim can cost (issue 10's target: instrumentation
# under 20% of the generator's own run time), measured on the choice-dense generator of
# benches/trace_overhead.sh: G(400, 0.01), 79,800 calls of random() in one process.
#
#   python3 benches/shim_floor.py
#
# Prints, per call of random(): the plain call, a wrapper that only appends the value to a
# list, one that also notes its caller's code and line (a call site), and one that notes
# every frame of the stack by identity and line (what GReduce's trace tree is built from);
# and what each would add to the generator's whole run (interpreter start and networkx
# import included, as hyperfine times it), in a loop of calls and inside the generator.
import random
import subprocess
import sys
import time

import networkx as nx

N = 79_800


def per_call(r):
    t = time.perf_counter()
    for _ in range(N):
        r.random()
    return (time.perf_counter() - t) / N


r = random.Random(1)
plain = min(per_call(r) for _ in range(5))
orig = r.random
log = []


def append_only():
    v = orig()
    log.append(v)
    return v


def with_site():
    v = orig()
    f = sys._getframe(1)
    log.append((v, f.f_code, f.f_lineno))
    return v


def with_stack():
    # Every frame of the call's stack, each by identity and line: what a trace tree of
    # GReduce's loop and selection patterns is built from (which invocation of which
    # function, at which line), here without building anything from it.
    v = orig()
    f = sys._getframe(1)
    stack = []
    while f is not None:
        stack.append((id(f), f.f_lineno))
        f = f.f_back
    log.append((v, stack))
    return v


costs = {}
for name, w in [("append only", append_only), ("with call site", with_site), ("with the stack", with_stack)]:
    r.random = w
    costs[name] = min(per_call(r) for _ in range(5)) - plain
    log.clear()
# The generator's whole run, as benches/trace_overhead.sh times it (best of 5).
script = "import random, networkx as nx; nx.gnp_random_graph(400, 0.01, seed=random.Random(1))"
runs = []
for _ in range(5):
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", script], check=True)
    runs.append(time.perf_counter() - t)
whole = min(runs)
print("Python %s, networkx %s; the generator's whole run %.1f ms (best of 5)" % (sys.version.split()[0], nx.__version__, whole * 1e3))
print("random() itself: %.3f us a call" % (plain * 1e6))
for name, c in costs.items():
    print("%-15s +%.3f us a call, %d calls: +%.1f ms = %.0f%% of the run" % (name, c * 1e6, N, c * N * 1e3, 100 * c * N / whole))


# The same wrappers where the generator calls them: inside networkx's gnp_random_graph,
# under its decorators, so each call has the stack it has in the real run.
def gnp(w):
    r = random.Random(1)
    global orig
    orig = r.random
    if w is not None:
        r.random = w
    t = time.perf_counter()
    nx.gnp_random_graph(400, 0.01, seed=r)
    took = time.perf_counter() - t
    log.clear()
    return took


base = min(gnp(None) for _ in range(5))
print("inside gnp_random_graph (%.1f ms plain, best of 5):" % (base * 1e3))
for name, w in [("append only", append_only), ("with call site", with_site), ("with the stack", with_stack)]:
    c = min(gnp(w) for _ in range(5)) - base
    print("%-15s +%.1f ms = %.0f%% of the run" % (name, c * 1e3, 100 * c / whole))
