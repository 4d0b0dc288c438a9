# The smallest graphs on which networkx 2.8.8's eulerize() adds more edges than needed
# (networkx issue #5952, the consumer of examples/generators/graphs/): a lower bound on what
# any reducer can reach on that benchmark (docs/benchmarks.md, issue 10).
#
#   NX_OLD_PYTHON benches/eulerize_minimum.py
#
# Size = nodes + edges, as benches/generator_bench.sh counts it. networkx's graph atlas holds
# every graph of up to 7 nodes; a connected graph of 8 or more nodes has at least 7 edges,
# so size >= 15: when the atlas has a failing graph of size <= 15, it holds the minimum.
import os
import sys

import networkx as nx

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "generators", "graphs"))
from eulerize import added_and_minimum  # noqa: E402

failing = []
connected = 0
for g in nx.graph_atlas_g():
    if g.number_of_nodes() == 0 or not nx.is_connected(g):
        continue
    connected += 1
    added, minimum = added_and_minimum(g)
    if added > minimum:
        failing.append((g.number_of_nodes() + g.number_of_edges(), g.number_of_nodes(), g.number_of_edges(), added, minimum, sorted(g.edges())))
failing.sort()
print("networkx %s: %d connected graphs of up to 7 nodes, %d on which eulerize() adds too many edges" % (nx.__version__, connected, len(failing)))
for size, n, m, added, minimum, edges in failing:
    print("size %d (%d nodes, %d edges): eulerize adds %d, the minimum is %d; edges %s" % (size, n, m, added, minimum, edges))
if failing and failing[0][0] <= 15:
    print("smallest failing size: %d (no graph of 8 or more nodes is smaller than 15)" % failing[0][0])
