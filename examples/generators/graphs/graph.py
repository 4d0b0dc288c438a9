# A random connected graph from networkx's G(n, p) generator (its largest component),
# written as JSON (a node list and an edge list, one a line), as a user of networkx would
# write a test-input generator around it:
#   python3 graph.py SEED > graph.json
# networkx draws from the random.Random it is given, so lopper's trace shim sees every
# choice (docs/generators.md).
import random
import sys

import networkx as nx

rng = random.Random(int(sys.argv[1]))
n = rng.randint(8, 30)
g = nx.gnp_random_graph(n, 0.15, seed=rng)
# eulerize() wants a connected graph: keep the largest component.
g = g.subgraph(max(nx.connected_components(g), key=len))
# One node or edge a line, so that a line-based reducer has the domain's units to work on.
nodes = ",\n".join("  %d" % v for v in sorted(g.nodes()))
edges = ",\n".join("  [%d, %d]" % e for e in sorted(g.edges()))
print('{"nodes": [\n%s\n],\n"edges": [\n%s\n]}' % (nodes, edges))
