"""Immutable containers for the inputs of an evaluation."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from evalcore.errors import CBIRLensError

if TYPE_CHECKING:
    import pyarrow as pa

LABEL_KINDS = ("modality", "organ")


@dataclass(frozen=True)
class ConceptSets:
    """Concept sets of images, in file order (the order breaks ties in retrieval)."""

    ids: tuple[str, ...]
    sets: tuple[frozenset[str], ...]
    source: str = "concepts"
    index: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.sets):
            raise CBIRLensError(f"{self.source}: {len(self.ids)} IDs but {len(self.sets)} concept sets")
        index = {image_id: i for i, image_id in enumerate(self.ids)}
        if len(index) != len(self.ids):
            raise CBIRLensError(f"{self.source}: image IDs must be unique")
        object.__setattr__(self, "index", MappingProxyType(index))

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, image_id: str) -> frozenset[str]:
        return self.sets[self.index[image_id]]

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """Distinct CUIs, sorted."""
        return tuple(sorted(set().union(*self.sets))) if self.sets else ()

    def occurrences(self) -> int:
        return sum(len(s) for s in self.sets)

    def subset(self, ids: list[str] | tuple[str, ...]) -> ConceptSets:
        return ConceptSets(tuple(ids), tuple(self[i] for i in ids), self.source)


class RankedLists(Mapping[str, tuple[str, ...]]):
    """Ranked lists held as arrays: each query's retrieved IDs, in rank order, without a Python tuple per list.

    ``documents[offsets[i]:offsets[i + 1]]`` are the codes (rows of ``names``) of query
    ``queries[i]``'s list. As a mapping it reads like ``{query: (image ID, ...)}``, building
    a query's tuple only when it is asked for, so a 10-million-item run stays a few arrays.

    >>> lists = RankedLists(("q1", "q2"), ("d1", "d2", "d3"), np.array([2, 0, 1]), np.array([0, 2, 3]))
    >>> lists["q1"], dict(lists)
    (('d3', 'd1'), {'q1': ('d3', 'd1'), 'q2': ('d2',)})
    """

    def __init__(self, queries: Sequence[str], names: Sequence[str] | np.ndarray, documents: np.ndarray,
                 offsets: np.ndarray):
        self.queries = tuple(queries)
        # Read-only views: the caller's arrays are neither copied nor changed.
        self.names = (np.asarray(names, dtype=object) if len(names) else np.zeros(0, dtype=object)).view()
        self.documents = np.asarray(documents).view()
        self.offsets = np.asarray(offsets, dtype=np.int64).view()
        if len(self.offsets) != len(self.queries) + 1 or self.offsets[0] != 0 or self.offsets[-1] != len(self.documents):
            raise CBIRLensError(f"ranked lists: {len(self.queries)} queries need {len(self.queries) + 1} offsets "
                                f"from 0 to {len(self.documents)}")
        self._position = {query: i for i, query in enumerate(self.queries)}
        if len(self._position) != len(self.queries):
            raise CBIRLensError("ranked lists: each query once")
        for array in (self.names, self.documents, self.offsets):
            array.flags.writeable = False

    @classmethod
    def from_mapping(cls, rankings: Mapping[str, Sequence[str]]) -> RankedLists:
        """The arrays of ``{query: (image ID, ...)}`` (IDs coded in order of first appearance)."""
        if isinstance(rankings, RankedLists):
            return rankings
        code: dict[str, int] = {}
        lengths = [len(ranked) for ranked in rankings.values()]
        documents = np.fromiter((code.setdefault(doc, len(code)) for ranked in rankings.values() for doc in ranked),
                                dtype=np.int64, count=sum(lengths))
        return cls(tuple(rankings), tuple(code), documents, np.concatenate(([0], np.cumsum(lengths, dtype=np.int64))))

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def span(self, query: str) -> slice:
        """Where ``query``'s list lies in :attr:`documents` (and in the scores of :class:`RankedScores`)."""
        i = self._position[query]
        return slice(int(self.offsets[i]), int(self.offsets[i + 1]))

    def __getitem__(self, query: str) -> tuple[str, ...]:
        return tuple(self.names[self.documents[self.span(query)]].tolist())

    def __contains__(self, query: object) -> bool:
        return query in self._position

    def __iter__(self) -> Iterator[str]:
        return iter(self.queries)

    def __len__(self) -> int:
        return len(self.queries)

    def __repr__(self) -> str:
        return f"RankedLists({len(self.queries):,} queries, {len(self.documents):,} items)"

    @property
    def nbytes(self) -> int:
        """Bytes held: the arrays and the names' strings (counted without a step per item, for a memory budget)."""
        return (self.documents.nbytes + self.offsets.nbytes + self.names.nbytes
                + sum(map(sys.getsizeof, self.names.tolist())))


class RankedScores(Mapping[str, tuple[float, ...]]):
    """The scores of :class:`RankedLists`, one array in the lists' order: reads like ``{query: (score, ...)}``,
    building a query's tuple only when it is asked for (a run's million scores stay one array, not a million
    Python floats).

    >>> lists = RankedLists(("q1", "q2"), ("d1", "d2", "d3"), np.array([2, 0, 1]), np.array([0, 2, 3]))
    >>> scores = RankedScores(lists, np.array([0.5, 0.25, 1.0]))
    >>> scores["q1"], scores == {"q1": (0.5, 0.25), "q2": (1.0,)}, scores.nbytes
    ((0.5, 0.25), True, 24)
    """

    def __init__(self, lists: RankedLists, values: np.ndarray):
        if len(values) != len(lists.documents):
            raise CBIRLensError(f"ranked scores: {len(lists.documents)} items need as many scores, found {len(values)}")
        self.lists = lists
        self.values = np.asarray(values, dtype=np.float64).view()  # read-only view: the caller's array unchanged
        self.values.flags.writeable = False

    def __getitem__(self, query: str) -> tuple[float, ...]:
        return tuple(self.values[self.lists.span(query)].tolist())

    def __contains__(self, query: object) -> bool:
        return query in self.lists

    def __iter__(self) -> Iterator[str]:
        return iter(self.lists)

    def __len__(self) -> int:
        return len(self.lists)

    @property
    def nbytes(self) -> int:
        """Bytes of the scores (the lists they belong to are counted with the lists)."""
        return self.values.nbytes


@dataclass(frozen=True)
class Run:
    """A retrieval run: for each query, the retrieved image IDs in rank order.

    ``rankings`` is any mapping ``{query: (image ID, ...)}``; the readers and the retrieval
    functions give a :class:`RankedLists`, which the evaluation aligns without a Python
    step per item.
    """

    name: str
    rankings: Mapping[str, tuple[str, ...]]
    source: str = "run"
    scores: Mapping[str, tuple[float, ...]] | None = None

    def __len__(self) -> int:
        return len(self.rankings)


@dataclass(frozen=True)
class ImageLabels:
    """Per-image label sets, e.g. ``{"modality": {"ID1": frozenset({"CT"})}}``."""

    by_kind: Mapping[str, Mapping[str, frozenset[str]]]
    source: str = "labels"

    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in LABEL_KINDS if k in self.by_kind)


@dataclass(frozen=True)
class ConceptClassMap:
    """A CUI-to-class mapping per label kind, applied to concept sets to derive labels."""

    by_kind: Mapping[str, Mapping[str, frozenset[str]]]
    source: str = "labels"

    def labels_for(self, concepts: ConceptSets) -> ImageLabels:
        """Label each image with the classes of its concepts (possibly several).

        >>> m = ConceptClassMap({"modality": {"C0040405": frozenset({"CT"})}})
        >>> c = ConceptSets(("a", "b"), (frozenset({"C0040405"}), frozenset()))
        >>> dict(m.labels_for(c).by_kind["modality"])
        {'a': frozenset({'CT'}), 'b': frozenset()}
        """
        by_kind = {}
        for kind, mapping in self.by_kind.items():
            by_kind[kind] = {
                image_id: frozenset().union(*(mapping.get(cui, frozenset()) for cui in cuis))
                for image_id, cuis in zip(concepts.ids, concepts.sets)
            }
        return ImageLabels(by_kind, self.source)


@dataclass(frozen=True)
class Embeddings:
    """L2-normalised vectors, one row per image ID."""

    ids: tuple[str, ...]
    vectors: np.ndarray
    source: str = "embeddings"

    def __post_init__(self) -> None:
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.ids):
            raise CBIRLensError(
                f"{self.source}: expected one vector per ID ({len(self.ids)}), got array of shape {self.vectors.shape}"
            )


@dataclass(frozen=True)
class KGEdges:
    """Edges ``child -> parent`` with their source tag, plus node names where known. Every edge is an is_a link
    except the (child, parent) pairs of ``part_of`` (a file's ``relation`` column), which are part-of links."""

    edges: tuple[tuple[str, str, str], ...]
    names: dict[str, str]
    source: str = "kg"
    part_of: frozenset[tuple[str, str]] = frozenset()

    def __len__(self) -> int:
        return len(self.edges)


@dataclass(frozen=True, eq=False)
class KGEdgeTable:
    """Distinct is_a edges as columns: ``nodes[child[e]]`` is_a ``nodes[parent[e]]``, tagged ``tags[tag[e]]``.

    What the MRREL.RRF reader returns, so that a UMLS-sized graph (millions of edges) stays a few
    arrays. ``nodes`` and ``tags`` are sorted and the edges are ordered by (child, parent, tag),
    so :attr:`edges` gives exactly the triples a :class:`KGEdges` of the same file would hold.

    >>> import pyarrow as pa
    >>> table = KGEdgeTable(pa.array(["C0000001", "C0000002"]), np.array([0]), np.array([1]), ("MSH",),
    ...                     np.array([0]), {}, "MRREL.RRF")
    >>> table.edges, len(table)
    ((('C0000001', 'C0000002', 'MSH'),), 1)
    """

    nodes: pa.Array
    child: np.ndarray
    parent: np.ndarray
    tags: tuple[str, ...]
    tag: np.ndarray
    names: dict[str, str]
    source: str = "kg"

    def __len__(self) -> int:
        return len(self.child)

    @property
    def edges(self) -> tuple[tuple[str, str, str], ...]:
        """The edges as ``(child, parent, tag)`` triples (built on first use: slow for millions of edges)."""
        cached = self.__dict__.get("_edges")
        if cached is None:
            nodes = self.nodes.to_pylist()
            cached = tuple(zip(map(nodes.__getitem__, self.child.tolist()), map(nodes.__getitem__, self.parent.tolist()),
                               map(self.tags.__getitem__, self.tag.tolist())))
            object.__setattr__(self, "_edges", cached)
        return cached


@dataclass(frozen=True)
class Qrels:
    """Graded TREC judgments ``qid -> {docid: grade}``, in file order."""

    judgments: dict[str, dict[str, int]]
    source: str = "qrels"

    def __len__(self) -> int:
        return len(self.judgments)


@dataclass
class Predictions:
    """Predicted concepts per image plus the validator's problems (line, message), the first of them where there
    were more than a reader keeps, and how many more there were (``problems_not_listed``)."""

    sets: dict[str, frozenset[str]]
    problems: list[tuple[int, str]] = field(default_factory=list)
    source: str = "predictions"
    problems_not_listed: int = 0
