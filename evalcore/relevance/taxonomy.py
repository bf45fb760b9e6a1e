"""Depth in the is_a taxonomy and Wu-Palmer similarity, the credit of nn-IoU-depth (docs/RELEVANCE_MEASURES.md).

- ``depth(c)``: 1 for a root (a node without parents), else 1 + the largest depth of its
  parents, i.e. the number of nodes on the longest is_a chain from ``c`` up to a root. Nodes on
  an is_a cycle (merged ontologies can make one) share one depth: the cycle is collapsed first.
- ``WuP(x, y) = max_c 2 depth(c) / (up(x, c) + up(y, c) + 2 depth(c))`` over the common ancestors
  ``c`` of x and y (a node is its own ancestor), ``up(x, c)`` being the fewest is_a links from x up
  to c (Wu & Palmer, "Verb semantics and lexical selection", ACL 1994, in its original form with
  path lengths; it lies in (0, 1) for x != y). 0 when x and y share no ancestor.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from evalcore.relevance.formulas import credit_units
from evalcore.relevance.kg import KnowledgeGraph, neighbour_sets

# A level of the walk from the roots with fewer nodes than this is walked node by node in Python: NumPy's cost
# per call (tens of microseconds) would dominate a long chain, one node per level.
WIDE_LEVEL = 64


def concept_depths(kg: KnowledgeGraph) -> np.ndarray:
    """``depth`` of every KG node (aligned with ``kg.nodes``): the longest is_a chain up to a root on the graph
    of is_a cycles collapsed, walked once from the roots down in topological order (Kahn's), so time and memory
    are linear in nodes + edges however deep the chain. Wide levels are walked a level at a time in NumPy, the
    rest node by node; both keep, for every component, 1 + the largest depth of its parents seen so far.

    >>> from evalcore.data import KGEdges
    >>> kg = KnowledgeGraph.from_edges([KGEdges((("lobe", "cortex", "t"), ("cortex", "brain", "t")), {})])
    >>> dict(zip(kg.nodes, concept_depths(kg).tolist()))
    {'brain': 1, 'cortex': 2, 'lobe': 3}
    """
    count, component = connected_components(kg.parents, directed=True, connection="strong")
    edges = kg.parents.tocoo()
    child, parent = component[edges.row], component[edges.col]
    between = child != parent
    # parent -> child between components, one entry per pair however many edges join them
    children = sp.csr_matrix((np.ones(int(between.sum()), dtype=np.int8), (parent[between], child[between])),
                             shape=(count, count))
    children.sum_duplicates()
    parents_left = np.bincount(children.indices, minlength=count)
    depth = np.ones(count, dtype=np.int64)
    level = np.flatnonzero(parents_left == 0)  # components all of whose parents have their final depth
    while len(level) >= WIDE_LEVEL:
        lower, parents_done = np.unique(children[level].indices, return_counts=True)
        depth[lower] = depth[level[0]] + 1  # every node of a level has the same depth, above any seen before
        parents_left[lower] -= parents_done
        level = lower[parents_left[lower] == 0]
    first, listed = children.indptr.tolist(), children.indices.tolist()
    depth_of, left = depth.tolist(), parents_left.tolist()
    ready = level.tolist()
    for node in ready:  # grows while it is read
        below = depth_of[node] + 1
        for lower in listed[first[node]:first[node + 1]]:
            depth_of[lower] = max(depth_of[lower], below)
            left[lower] -= 1
            if left[lower] == 0:
                ready.append(lower)
    return np.array(depth_of, dtype=np.int64)[component]


def ancestors_with_distance(kg: KnowledgeGraph, node: str) -> dict[int, int]:
    """Every ancestor of ``node`` (node index -> fewest is_a links up to it), the node itself at 0."""
    start = kg.index[node]
    found = {start: 0}
    queue = deque([start])
    parents = kg.parents
    while queue:
        current = queue.popleft()
        for parent in parents.indices[parents.indptr[current]: parents.indptr[current + 1]]:
            parent = int(parent)
            if parent not in found:
                found[parent] = found[current] + 1
                queue.append(parent)
    return found


class WuPalmer:
    """Wu-Palmer similarity on one KG, with depths and ancestor sets computed once.

    >>> from evalcore.data import KGEdges
    >>> kg = KnowledgeGraph.from_edges([KGEdges((("lobe", "cortex", "t"), ("cortex", "brain", "t"),
    ...                                          ("vein", "vessel", "t")), {})])
    >>> similarity = WuPalmer(kg)
    >>> similarity("lobe", "cortex"), similarity("cortex", "brain"), similarity("lobe", "vein")
    (0.8, 0.6666666666666666, 0.0)
    """

    def __init__(self, kg: KnowledgeGraph):
        self.kg = kg
        self.depths = concept_depths(kg)
        self._ancestors: dict[str, dict[int, int]] = {}

    def ancestors(self, node: str) -> dict[int, int]:
        if node not in self._ancestors:
            self._ancestors[node] = ancestors_with_distance(self.kg, node) if node in self.kg.index else {}
        return self._ancestors[node]

    def __call__(self, x: str, y: str) -> float:
        up_x, up_y = self.ancestors(x), self.ancestors(y)
        if len(up_y) < len(up_x):
            up_x, up_y = up_y, up_x
        best = 0.0
        for common, distance in up_x.items():
            if common in up_y:
                twice_depth = 2 * int(self.depths[common])
                best = max(best, twice_depth / (distance + up_y[common] + twice_depth))
        return best


def credit_sets(kg: KnowledgeGraph | None, vocabulary: tuple[str, ...], n: int,
                mode: str = "undirected") -> dict[str, dict[str, int]]:
    """For each concept, its neighbours within n hops and the Wu-Palmer credit units of each pair.

    Pairs whose similarity rounds to 0 (no common ancestor) are left out: they earn nothing.
    """
    if kg is None or n == 0:
        return {c: {} for c in vocabulary}
    similarity = WuPalmer(kg)
    credits: dict[str, dict[str, int]] = {}
    for concept, near in neighbour_sets(kg, vocabulary, n, mode).items():
        row = {other: credit_units(similarity(concept, other)) for other in sorted(near)}
        credits[concept] = {other: units for other, units in row.items() if units > 0}
    return credits


def credit_matrix(credits: Mapping[str, Mapping[str, int]], vocabulary: tuple[str, ...]) -> sp.csr_matrix:
    """:func:`credit_sets` as a V x V sparse matrix of credit units over ``vocabulary``."""
    index = {c: i for i, c in enumerate(vocabulary)}
    rows, columns, units = [], [], []
    for concept, row in credits.items():
        for other, value in row.items():
            rows.append(index[concept])
            columns.append(index[other])
            units.append(value)
    return sp.csr_matrix((np.array(units, dtype=np.int64), (np.array(rows, dtype=np.int64),
                                                             np.array(columns, dtype=np.int64))),
                         shape=(len(vocabulary), len(vocabulary)))
