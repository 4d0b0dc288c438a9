# A consumer with a known bug: networkx 2.8.8's eulerize() doubles more edges than needed
# on some graphs (networkx issue #5952: it matched odd-degree nodes by maximizing the sum
# of 1/path-length, which does not minimize the sum of lengths; fixed in networkx 3.0).
# Reads a graph as graph.py writes it. Exit 0: eulerize added more edges than the minimum
# (computed here, exactly); 1: it did not; 2: the input is not a valid graph for
# eulerize (malformed, an edge naming an unknown node, a self-loop or repeated edge, or not
# connected), the "invalid" verdict a generator-made input never gets.
import json
import sys
from functools import lru_cache

import networkx as nx


def invalid(why):
    print("invalid input:", why, file=sys.stderr)
    sys.exit(2)


def read_graph(path):
    """The graph in `path` (as graph.py writes it); exits 2 (invalid) if it is not a connected simple graph."""
    g = nx.Graph()
    try:
        data = json.load(open(path))
        nodes, edges = data["nodes"], data["edges"]
        if not isinstance(nodes, list) or not isinstance(edges, list):
            invalid("nodes and edges must be lists")
        for v in nodes:
            if not isinstance(v, int) or v in g:
                invalid("node %r" % (v,))
            g.add_node(v)
        for e in edges:
            if not isinstance(e, list) or len(e) != 2:
                invalid("edge %r" % (e,))
            u, v = e
            if u not in g or v not in g or u == v or g.has_edge(u, v):
                invalid("edge %r" % (e,))
            g.add_edge(u, v)
    except (ValueError, KeyError, TypeError) as err:
        invalid(err)
    if g.number_of_nodes() == 0 or not nx.is_connected(g):
        invalid("not connected")
    return g


def added_and_minimum(g):
    """(edges eulerize() adds to the connected graph g, the fewest any eulerization adds)."""
    odd = [v for v in g if g.degree(v) % 2]
    dist = dict(nx.all_pairs_shortest_path_length(g))

    @lru_cache(maxsize=None)
    def best(rest):
        # The fewest added edges that pair up the odd nodes in `rest` (a minimum-weight
        # perfect matching under path lengths, by dynamic programming over subsets).
        if not rest:
            return 0
        a, others = rest[0], rest[1:]
        return min(dist[a][b] + best(others[:i] + others[i + 1:]) for i, b in enumerate(others))

    return nx.eulerize(g).number_of_edges() - g.number_of_edges(), best(tuple(odd))


if __name__ == "__main__":
    g = read_graph(sys.argv[1])
    odd = sum(1 for v in g if g.degree(v) % 2)
    added, minimum = added_and_minimum(g)
    print("odd nodes %d, eulerize added %d edges, minimum %d (networkx %s)" % (odd, added, minimum, nx.__version__))
    sys.exit(0 if added > minimum else 1)
