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
    import pandas as pd
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


class JudgmentColumns(Mapping[str, dict[str, int]]):
    """Graded judgments held as columns: as a mapping it reads like ``{query: {document: grade}}`` (queries and each
    query's documents in file order), building a query's dict only when it is asked for, so that ten million
    judgments stay a few arrays.

    Judgment ``i`` (in file order) grades document ``documents[document[i]]`` for query ``queries[query[i]]`` with
    ``grade[i]``. They are held sorted by :attr:`keys` (``query * len(documents) + document``), beside their
    :attr:`grades` and their :attr:`rows` (places in the file), so that a run's items find their grades by one
    binary search (:meth:`grades_of`). Each (query, document) pair is judged once; the reader refuses a file that
    judges one twice (:meth:`first_repeated` finds it).

    >>> columns = JudgmentColumns(("q1", "q2"), ("d1", "d2"), np.array([0, 0, 1]), np.array([1, 0, 0]),
    ...                           np.array([2, 0, 1]))
    >>> columns["q1"], len(columns), columns == {"q1": {"d2": 2, "d1": 0}, "q2": {"d1": 1}}
    ({'d2': 2, 'd1': 0}, 2, True)
    """

    def __init__(self, queries: Sequence[str], documents: Sequence[str] | np.ndarray, query: np.ndarray,
                 document: np.ndarray, grade: np.ndarray):
        self.queries = tuple(queries)
        self.documents = np.asarray(documents, dtype=object) if len(documents) else np.zeros(0, dtype=object)
        self._position = {name: i for i, name in enumerate(self.queries)}
        if len(self._position) != len(self.queries):
            raise CBIRLensError("judgment columns: each query once")
        keys = np.asarray(query, dtype=np.int64) * len(self.documents)
        keys += document  # in place: a judgment array fewer at the peak
        # Equal keys (a pair judged twice) may come in either order: first_repeated orders them by row.
        self.rows = np.argsort(keys)
        self.keys = keys[self.rows]
        del keys
        self.grades = np.asarray(grade, dtype=np.int64)[self.rows]
        self.offsets = np.searchsorted(self.keys, np.arange(len(self.queries) + 1, dtype=np.int64) * len(self.documents))
        for array in (self.documents, self.rows, self.keys, self.grades, self.offsets):
            array.flags.writeable = False

    @classmethod
    def from_mapping(cls, judgments: Mapping[str, Mapping[str, int]]) -> JudgmentColumns:
        """The columns of ``{query: {document: grade}}`` (documents coded in order of first appearance)."""
        if isinstance(judgments, JudgmentColumns):
            return judgments
        code: dict[str, int] = {}
        sizes = [len(judged) for judged in judgments.values()]
        documents = np.fromiter((code.setdefault(document, len(code)) for judged in judgments.values()
                                 for document in judged), dtype=np.int64, count=sum(sizes))
        grades = np.fromiter((grade for judged in judgments.values() for grade in judged.values()), dtype=np.int64,
                             count=sum(sizes))
        return cls(tuple(judgments), tuple(code), np.repeat(np.arange(len(sizes), dtype=np.int64), sizes), documents,
                   grades)

    def query_of_keys(self) -> np.ndarray:
        """The query code of each judgment, in the order of :attr:`keys`."""
        return np.repeat(np.arange(len(self.queries), dtype=np.int64), np.diff(self.offsets))

    def query_codes(self, names: Sequence[str]) -> np.ndarray:
        """The code of each query name (-1 for a query without judgments)."""
        return self._index("_query_index", self.queries).get_indexer(self._index(None, names))

    def document_codes(self, names: Sequence[str] | np.ndarray) -> np.ndarray:
        """The code of each document name (-1 for a document no query judges)."""
        return self._index("_document_index", self.documents).get_indexer(self._index(None, names))

    def _index(self, attribute: str | None, names: Sequence[str] | np.ndarray) -> pd.Index:
        """A hash index of ``names``, kept as ``attribute`` (built on first use) where one is named."""
        import pandas as pd  # here: the containers are read without pandas elsewhere

        index = self.__dict__.get(attribute) if attribute else None
        if index is None:
            index = pd.Index(names, dtype=object)
            if attribute:
                self.__dict__[attribute] = index
        return index

    def grades_of(self, queries: np.ndarray, documents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The grade of each (query code, document code) pair (0 where unjudged) and whether it is judged.

        >>> columns = JudgmentColumns(("q",), ("a", "b"), np.array([0]), np.array([1]), np.array([3]))
        >>> [array.tolist() for array in columns.grades_of(np.array([0, 0, -1]), np.array([1, 0, 1]))]
        [[3, 0, 0], [True, False, False]]
        """
        keys = queries.astype(np.int64) * len(self.documents) + documents
        found = np.minimum(np.searchsorted(self.keys, keys), max(len(self.keys) - 1, 0))
        judged = (queries >= 0) & (documents >= 0) & (self.keys[found] == keys) if len(self.keys) else \
            np.zeros(len(keys), dtype=bool)
        return np.where(judged, self.grades[found] if len(self.keys) else 0, 0), judged

    def first_repeated(self) -> tuple[int, int] | None:
        """The rows of the first judgment (in file order) of a pair judged before, and of that earlier one.

        >>> JudgmentColumns(("q",), ("a", "b"), np.zeros(4), np.array([1, 0, 1, 0]), np.ones(4)).first_repeated()
        (2, 0)
        """
        repeated = np.flatnonzero(self.keys[1:] == self.keys[:-1])
        if not len(repeated):
            return None
        in_pair = np.zeros(len(self.keys), dtype=bool)
        in_pair[repeated] = in_pair[repeated + 1] = True
        keys, rows = self.keys[in_pair], self.rows[in_pair]
        order = np.lexsort((rows, keys))
        keys, rows = keys[order], rows[order]
        starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
        first = int(np.argmin(rows[starts + 1]))  # each pair's second row in the file is its first repetition
        return int(rows[starts[first] + 1]), int(rows[starts[first]])

    def __getitem__(self, query: str) -> dict[str, int]:
        i = self._position[query]
        span = slice(int(self.offsets[i]), int(self.offsets[i + 1]))
        in_file_order = np.argsort(self.rows[span])
        documents = self.documents[self.keys[span][in_file_order] % max(len(self.documents), 1)]
        return dict(zip(documents.tolist(), self.grades[span][in_file_order].tolist()))

    def __contains__(self, query: object) -> bool:
        return query in self._position

    def __iter__(self) -> Iterator[str]:
        return iter(self.queries)

    def __len__(self) -> int:
        return len(self.queries)

    def __repr__(self) -> str:
        return f"JudgmentColumns({len(self.queries):,} queries, {len(self.keys):,} judgments)"


@dataclass(frozen=True)
class Qrels:
    """Graded TREC judgments ``qid -> {docid: grade}``, in file order: a mapping given by hand or, as the reader gives
    them, :class:`JudgmentColumns` (which read as the same mapping)."""

    judgments: Mapping[str, Mapping[str, int]]
    source: str = "qrels"

    def __len__(self) -> int:
        return len(self.judgments)

    @property
    def columns(self) -> JudgmentColumns:
        """The judgments as :class:`JudgmentColumns` (from a mapping given by hand, built on first use and kept)."""
        cached = self.__dict__.get("_columns")
        if cached is None:
            cached = JudgmentColumns.from_mapping(self.judgments)
            object.__setattr__(self, "_columns", cached)
        return cached


@dataclass
class Predictions:
    """Predicted concepts per image plus the validator's problems (line, message), the first of them where there
    were more than a reader keeps, and how many more there were (``problems_not_listed``)."""

    sets: dict[str, frozenset[str]]
    problems: list[tuple[int, str]] = field(default_factory=list)
    source: str = "predictions"
    problems_not_listed: int = 0


@dataclass(frozen=True, eq=False)
class Judgments:
    """Clinicians' grades of (case image, candidate image) pairs, one row per grading, as columns: grading ``i`` by
    judge ``judges[judge[i]]`` gave the candidate ``images[candidate[i]]`` the grade ``grade[i]`` (0 not similar, 1
    partly, 2 very similar; -1 a pair the judge skipped) for the case ``images[case[i]]``, at ``time[i]`` (seconds;
    NaN where the file has no time column), on line ``lines[i]`` of ``source``. Rows are in file order; a judge may
    grade a pair more than once only at different times (:func:`evalcore.readers.judgment_columns.read_judgment_columns`).

    >>> judged = Judgments(("ann",), ("q", "x"), np.array([0]), np.array([0]), np.array([1]), np.array([2]),
    ...                    np.array([np.nan]), np.array([2]), "j.csv")
    >>> len(judged), judged.rows()[0]
    (1, ('ann', 'q', 'x', 2))
    """

    judges: tuple[str, ...]
    images: tuple[str, ...]
    judge: np.ndarray
    case: np.ndarray
    candidate: np.ndarray
    grade: np.ndarray
    time: np.ndarray
    lines: np.ndarray
    source: str = "judgments"
    form: str = "csv"  # "csv" (judge,case,candidate,grade[,time]) or "qrels" (one judge, named "qrels")

    def __post_init__(self) -> None:
        sizes = {len(column) for column in (self.judge, self.case, self.candidate, self.grade, self.time, self.lines)}
        if len(sizes) != 1:
            raise CBIRLensError(f"{self.source}: the judgment columns differ in length")
        for column in (self.judge, self.case, self.candidate, self.grade, self.time, self.lines):
            column.flags.writeable = False

    def __len__(self) -> int:
        return len(self.grade)

    @property
    def timed(self) -> bool:
        """Whether the gradings carry their times (a ``time`` column)."""
        return bool(len(self.time)) and not np.isnan(self.time).all()

    def rows(self) -> list[tuple[str, str, str, int]]:
        """``(judge, case, candidate, grade)`` per grading, in file order (for a few rows: tests, examples)."""
        return [(self.judges[j], self.images[c], self.images[d], int(g))
                for j, c, d, g in zip(self.judge.tolist(), self.case.tolist(), self.candidate.tolist(),
                                      self.grade.tolist())]
