"""The is_a knowledge graph: neighbours within n hops and shortest paths (docs/DESIGN.md §2).

Distance modes:

- ``undirected`` (default): edges are taken both ways.
- ``directed``: only ancestor/descendant paths, ``min(dist(a->b), dist(b->a))``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp

from evalcore.data import KGEdges, KGEdgeTable
from evalcore.errors import ParameterError

KG_MODES = ("undirected", "directed")
MAX_HOPS = 6
# (vocabulary concept, KG node) pairs that the search for neighbours within n hops may hold: some 13 bytes each
# in a sparse matrix, a few copies at once, so about 2.5 GB at most. ROCOv2 (all splits) with the open KG holds
# 0.13 M at n = 3 and 3.8 M at n = 6; one hub with 20,000 children, all in the vocabulary, holds 4e8 at n = 2.
MAX_NEIGHBOUR_PAIRS = 50_000_000


def check_hops_and_mode(n: int, mode: str) -> None:
    if mode not in KG_MODES:
        raise ParameterError(f"KG mode must be one of {KG_MODES}, got {mode!r}")
    if isinstance(n, bool) or not (isinstance(n, (int, np.integer)) and 0 <= n <= MAX_HOPS):
        # ("n must ..." is what the command line names --n: see evalcore.cli.as_option)
        raise ParameterError(f"n must be an integer in 0..{MAX_HOPS} (the distance threshold, in KG hops), got {n!r}")


@dataclass(frozen=True)
class EdgeFacts:
    """Where each edge comes from and what it says, for wording a path: edge ``e`` joins ``child * size + parent``
    (node positions) = ``keys[e]``, asserted by the source ``tags[e]`` (an index into the graph's ``sources``; an edge
    several files or rows assert appears once per row); ``part_of`` holds the keys of part-of links (every other
    edge is an is_a link). Kept as read; sorted on the first look-up (:meth:`sources_of`), since only the wording of
    a path needs them."""

    keys: np.ndarray
    tags: np.ndarray
    part_of: np.ndarray

    @classmethod
    def none(cls) -> EdgeFacts:
        empty = np.zeros(0, dtype=np.int64)
        return cls(empty, empty, empty)

    def _sorted(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cached = self.__dict__.get("_sorted_facts")
        if cached is None:
            tag_count = int(self.tags.max()) + 1 if len(self.tags) else 1
            keyed = np.unique(self.keys * tag_count + self.tags)
            cached = (keyed // tag_count, keyed % tag_count, np.unique(self.part_of))
            object.__setattr__(self, "_sorted_facts", cached)
        return cached

    def sources_of(self, key: int) -> np.ndarray:
        """The distinct source indices of edge ``key``, sorted."""
        keys, tags, _ = self._sorted()
        start, end = np.searchsorted(keys, [key, key + 1])
        return tags[start:end]

    def is_part_of(self, key: int) -> bool:
        part_of = self._sorted()[2]
        position = np.searchsorted(part_of, key)
        return bool(position < len(part_of) and part_of[position] == key)


@dataclass(frozen=True)
class KnowledgeGraph:
    """An immutable graph over string node IDs (CUIs or ontology IDs): is_a links, and part-of links where an edge
    file says so (:attr:`facts`); both count as one hop."""

    nodes: tuple[str, ...]
    parents: sp.csr_matrix  # parents[i, j] = 1 iff nodes[i] is_a (or is part of) nodes[j]
    names: Mapping[str, str]
    sources: tuple[str, ...] = ()
    facts: EdgeFacts = field(default_factory=EdgeFacts.none, repr=False, compare=False)
    index: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", {node: i for i, node in enumerate(self.nodes)})

    @classmethod
    def from_edges(cls, edge_files: Iterable[KGEdges | KGEdgeTable], sources: Iterable[str] | None = None
                   ) -> KnowledgeGraph:
        """Combine several edge files into one graph, optionally keeping only some ``source`` tags.

        Nodes are the endpoints of the kept edges, sorted by code point (as ``sorted()`` orders
        strings); repeated (child, parent) pairs become one edge. Works on integer codes, so a
        UMLS-sized :class:`~evalcore.data.KGEdgeTable` (millions of edges) is never turned
        into Python tuples.

        >>> from evalcore.data import KGEdges
        >>> kg = KnowledgeGraph.from_edges([KGEdges((("vein", "vessel", "t"),), {})])
        >>> kg.number_of_nodes(), kg.number_of_edges()
        (2, 1)
        >>> kg = KnowledgeGraph.from_edges([KGEdges((("vein", "vessel", "mesh"), ("lobe", "lung", "demo")), {},
        ...                                         part_of=frozenset({("lobe", "lung")})),
        ...                                 KGEdges((("vein", "vessel", "hpo"),), {})])
        >>> kg.edge_sources("vein", "vessel"), kg.relation("vein", "vessel"), kg.relation("lobe", "lung")
        (('hpo', 'mesh'), 'is_a', 'part_of')
        """
        edge_files = list(edge_files)
        files = [_edge_columns(edge_file) for edge_file in edge_files]
        names: dict[str, str] = {}
        for edge_file in edge_files:
            names.update(edge_file.names)
        tags = tuple(sorted({tag for columns in files for tag in columns.tags}))
        wanted = None if sources is None else set(sources)
        if wanted is not None and (unknown := sorted(wanted - set(tags))):
            present = ", ".join(tags) if tags else "none: the files have no source column"
            raise ParameterError(f"KG source tag {', '.join(map(repr, unknown))}: expected a tag of the KG files' "
                                 f"source column ({present}); no edge carries it, so the graph would be empty")
        # One code per distinct node over all files, then only the endpoints of the kept edges, sorted.
        merged = pa.concat_arrays([columns.nodes for columns in files]) if files else pa.array([], pa.string())
        encoded = merged.dictionary_encode()
        global_code = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        rows, cols, edge_tags, part_of, offset = [], [], [], [], 0
        for columns in files:
            remap = global_code[offset:offset + len(columns.nodes)]
            offset += len(columns.nodes)
            keep = slice(None) if wanted is None else np.isin(columns.tag, [i for i, t in enumerate(columns.tags)
                                                                            if t in wanted])
            rows.append(remap[columns.child[keep]])
            cols.append(remap[columns.parent[keep]])
            edge_tags.append(np.array([tags.index(t) for t in columns.tags], dtype=np.int32)[columns.tag[keep]]
                             if columns.tags else np.zeros(0, dtype=np.int64))
            part_of.append(columns.part_of[keep])
        rows = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        cols = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
        present = np.zeros(len(encoded.dictionary), dtype=bool)
        present[rows] = present[cols] = True
        used = np.flatnonzero(present)
        used_names = encoded.dictionary.take(pa.array(used))
        order = pc.sort_indices(used_names).to_numpy()
        position = np.zeros(len(encoded.dictionary), dtype=np.int64)
        position[used[order]] = np.arange(len(used))
        nodes = tuple(used_names.take(pa.array(order)).to_pylist())
        parents = sp.csr_matrix((np.ones(len(rows), dtype=np.int32), (position[rows], position[cols])),
                                shape=(len(nodes), len(nodes)))
        parents.data[:] = 1
        keys = position[rows] * len(nodes) + position[cols]
        facts = EdgeFacts(keys, np.concatenate(edge_tags) if edge_tags else np.zeros(0, dtype=np.int64),
                          keys[np.concatenate(part_of)] if part_of else np.zeros(0, dtype=np.int64))
        return cls(nodes, parents.astype(np.int8), names, tags, facts)

    def _edge_key(self, child: str, parent: str) -> int:
        if child not in self.index or parent not in self.index:
            raise ParameterError(f"no edge {child!r} -> {parent!r}: both must be nodes of the knowledge graph")
        return self.index[child] * len(self.nodes) + self.index[parent]

    def edge_sources(self, child: str, parent: str) -> tuple[str, ...]:
        """The source tags of the files that assert the edge ``child -> parent`` (sorted; empty if none known)."""
        return tuple(self.sources[int(t)] for t in self.facts.sources_of(self._edge_key(child, parent)))

    def relation(self, child: str, parent: str) -> str:
        """"part_of" when an edge file gave ``child -> parent`` as a part-of link, else "is_a"."""
        return "part_of" if self.facts.is_part_of(self._edge_key(child, parent)) else "is_a"

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def number_of_edges(self) -> int:
        return int(self.parents.nnz)

    def name(self, node: str, fallback: Mapping[str, str] | None = None) -> str:
        if fallback and node in fallback:
            return fallback[node]
        return self.names.get(node, node)

    def _steps(self, mode: str) -> list[sp.csr_matrix]:
        """Adjacency matrices whose reachability sets are unioned: both ways, or up and down apart."""
        if mode == "undirected":
            return [((self.parents + self.parents.T) > 0).astype(np.int8).tocsr()]
        return [self.parents, self.parents.T.tocsr()]

    def neighbour_matrix(self, vocabulary: tuple[str, ...], n: int, mode: str = "undirected") -> sp.csr_matrix:
        """Boolean V x V matrix M with M[i, j] = 1 iff vocabulary[i] ~n vocabulary[j] (i != j).

        Breadth-first search bounded at depth n, one level per sparse product, from all
        vocabulary concepts at once. Concepts missing from the graph have no neighbours. Refused, before
        the product that would hold them, when the concept pairs within n hops may exceed
        :data:`MAX_NEIGHBOUR_PAIRS` (a hub whose thousands of children are all in the vocabulary).
        """
        check_hops_and_mode(n, mode)
        size = len(vocabulary)
        in_graph = [(i, self.index[c]) for i, c in enumerate(vocabulary) if c in self.index]
        if n == 0 or not in_graph:
            return sp.csr_matrix((size, size), dtype=np.int8)
        vocab_rows = np.array([i for i, _ in in_graph])
        graph_cols = np.array([g for _, g in in_graph])
        start = sp.csr_matrix(
            (np.ones(len(in_graph), dtype=np.int8), (np.arange(len(in_graph)), graph_cols)),
            shape=(len(in_graph), self.number_of_nodes()),
        )
        reached = None
        pairs = 0  # an upper bound on the entries of every product so far, paths to the same node counted apart
        for step in self._steps(mode):
            frontier = visited = start
            out_degree = np.diff(step.indptr).astype(np.int64)
            for hop in range(1, n + 1):
                pairs += int((frontier @ out_degree).sum())
                if pairs > MAX_NEIGHBOUR_PAIRS:
                    raise ParameterError(
                        f"the KG ({self.number_of_nodes():,} nodes, {self.number_of_edges():,} edges) would pair the "
                        f"{len(in_graph):,} vocabulary concepts it holds with up to {pairs:,} concepts within {hop} "
                        f"hop(s) already, for n = {n} ({mode}): over the limit of {MAX_NEIGHBOUR_PAIRS:,} concept pairs "
                        "(a hub with many children in use); give a smaller n, or the directed mode (paths only up or "
                        "only down, not through a shared parent)")
                frontier = (frontier @ step) > 0
                frontier = (frontier.astype(np.int8) - frontier.multiply(visited)).astype(np.int8)
                frontier.eliminate_zeros()
                if frontier.nnz == 0:
                    break
                visited = ((visited + frontier) > 0).astype(np.int8)
            reached = visited if reached is None else ((reached + visited) > 0).astype(np.int8)
        to_vocab = sp.csr_matrix(
            (np.ones(len(in_graph), dtype=np.int8), (graph_cols, vocab_rows)), shape=(self.number_of_nodes(), size)
        )
        within = (reached @ to_vocab).tocoo()
        rows = vocab_rows[within.row]
        mask = rows != within.col
        matrix = sp.csr_matrix(
            (np.ones(int(mask.sum()), dtype=np.int8), (rows[mask], within.col[mask])), shape=(size, size)
        )
        return matrix

    def _adjacent(self, node: int, direction: str) -> np.ndarray:
        if direction == "up":
            return self.parents.indices[self.parents.indptr[node]: self.parents.indptr[node + 1]]
        children = self._children()
        return children.indices[children.indptr[node]: children.indptr[node + 1]]

    def _children(self) -> sp.csr_matrix:
        cached = self.__dict__.get("_children_matrix")
        if cached is None:
            cached = self.parents.T.tocsr()
            object.__setattr__(self, "_children_matrix", cached)
        return cached

    def distances_from(self, node: str, n: int, mode: str = "undirected") -> dict[str, int]:
        """Every node within n hops of ``node`` (itself at 0), by breadth-first search."""
        check_hops_and_mode(n, mode)
        if node not in self.index:
            return {}
        directions = [("up", "down")] if mode == "undirected" else [("up",), ("down",)]
        best: dict[int, int] = {}
        for allowed in directions:
            for reached, depth in self._bfs(self.index[node], n, allowed).items():
                best[reached] = min(depth, best.get(reached, depth))
        return {self.nodes[i]: d for i, d in best.items()}

    def _bfs(self, start: int, n: int, directions: tuple[str, ...], parents_out: dict | None = None) -> dict[int, int]:
        depth = {start: 0}
        queue = deque([start])
        while queue:
            current = queue.popleft()
            if depth[current] == n:
                continue
            for direction in directions:
                for nxt in self._adjacent(current, direction):
                    nxt = int(nxt)
                    if nxt not in depth:
                        depth[nxt] = depth[current] + 1
                        if parents_out is not None:
                            parents_out[nxt] = (current, direction)
                        queue.append(nxt)
        return depth

    def shortest_path(self, source: str, target: str, mode: str = "undirected",
                      max_hops: int = 12) -> list[tuple[str, str]] | None:
        """Shortest path as ``[(node, step)]`` where step says how the node was reached.

        ``step`` is ``""`` for the source, ``"is_a"`` when the previous node is a child of
        this one (moving up), ``"has_child"`` when moving down. ``None`` if no path exists
        within ``max_hops``.

        >>> from evalcore.data import KGEdges
        >>> kg = KnowledgeGraph.from_edges([KGEdges((("vein", "vessel", "t"), ("artery", "vessel", "t")), {})])
        >>> kg.shortest_path("vein", "artery")
        [('vein', ''), ('vessel', 'is_a'), ('artery', 'has_child')]
        >>> kg.shortest_path("vein", "artery", mode="directed") is None
        True
        """
        if mode not in KG_MODES:
            raise ParameterError(f"KG mode must be one of {KG_MODES}, got {mode!r}")
        if source not in self.index or target not in self.index:
            return None
        if source == target:
            return [(source, "")]
        options = [("up", "down")] if mode == "undirected" else [("up",), ("down",)]
        best: list[tuple[str, str]] | None = None
        for allowed in options:
            came_from: dict[int, tuple[int, str]] = {}
            depth = self._bfs(self.index[source], max_hops, allowed, came_from)
            goal = self.index[target]
            if goal not in depth or (best is not None and depth[goal] >= len(best) - 1):
                continue
            path = []
            node = goal
            while node != self.index[source]:
                previous, direction = came_from[node]
                path.append((self.nodes[node], "is_a" if direction == "up" else "has_child"))
                node = previous
            path.append((source, ""))
            best = path[::-1]
        return best

    def coverage(self, concept_sets: Iterable[frozenset[str]]) -> dict[str, float]:
        """How many of the dataset's distinct concepts, and of their occurrences, are KG nodes."""
        distinct: set[str] = set()
        occurrences = covered_occurrences = 0
        for concepts in concept_sets:
            distinct |= concepts
            occurrences += len(concepts)
            covered_occurrences += sum(1 for c in concepts if c in self.index)
        covered = sum(1 for c in distinct if c in self.index)
        return {
            "concepts": len(distinct),
            "concepts_in_kg": covered,
            "concept_coverage": covered / len(distinct) if distinct else 0.0,
            "occurrences": occurrences,
            "occurrences_in_kg": covered_occurrences,
            "occurrence_coverage": covered_occurrences / occurrences if occurrences else 0.0,
        }


def neighbour_sets(kg: KnowledgeGraph | None, vocabulary: tuple[str, ...], n: int,
                   mode: str = "undirected") -> dict[str, frozenset[str]]:
    """Neighbours within n hops among ``vocabulary``, as a dict for the per-pair functions."""
    if kg is None:
        return {c: frozenset() for c in vocabulary}
    matrix = kg.neighbour_matrix(vocabulary, n, mode)
    return {
        concept: frozenset(vocabulary[j] for j in matrix.indices[matrix.indptr[i]: matrix.indptr[i + 1]])
        for i, concept in enumerate(vocabulary)
    }


def neighbour_distances(kg: KnowledgeGraph | None, vocabulary: tuple[str, ...], n: int,
                        mode: str = "undirected") -> dict[str, dict[str, int]]:
    """For each concept of ``vocabulary``, its neighbours within n hops and their KG distance (1..n).

    >>> from evalcore.data import KGEdges
    >>> kg = KnowledgeGraph.from_edges([KGEdges((("vein", "vessel", "t"), ("vessel", "organ", "t")), {})])
    >>> neighbour_distances(kg, ("organ", "vein", "vessel"), 2)["vein"]
    {'vessel': 1, 'organ': 2}
    """
    check_hops_and_mode(n, mode)
    distances: dict[str, dict[str, int]] = {c: {} for c in vocabulary}
    if kg is None:
        return distances
    for hops in range(1, n + 1):
        for concept, near in neighbour_sets(kg, vocabulary, hops, mode).items():
            for other in sorted(near):
                distances[concept].setdefault(other, hops)
    return distances


@dataclass(frozen=True)
class _EdgeColumns:
    """One edge file as codes: ``nodes[child[e]]`` is_a (or, where ``part_of[e]``, is part of) ``nodes[parent[e]]``
    with tag ``tags[tag[e]]``."""

    nodes: pa.Array
    child: np.ndarray
    parent: np.ndarray
    tags: tuple[str, ...]
    tag: np.ndarray
    part_of: np.ndarray


def _edge_columns(edge_file: KGEdges | KGEdgeTable) -> _EdgeColumns:
    if isinstance(edge_file, KGEdgeTable):
        return _EdgeColumns(edge_file.nodes, edge_file.child, edge_file.parent, edge_file.tags, edge_file.tag,
                            np.zeros(len(edge_file.child), dtype=bool))
    table = np.array(edge_file.edges, dtype=object).reshape(len(edge_file.edges), 3)
    codes, nodes = pd.factorize(np.concatenate((table[:, 0], table[:, 1])))
    tag, tags = pd.factorize(table[:, 2])
    part_of = np.array([(child, parent) in edge_file.part_of for child, parent, _ in edge_file.edges], dtype=bool) \
        if edge_file.part_of else np.zeros(len(table), dtype=bool)
    return _EdgeColumns(pa.array(np.asarray(nodes, dtype=object), pa.string()), codes[: len(table)], codes[len(table):],
                        tuple(tags.tolist()), tag, part_of)
