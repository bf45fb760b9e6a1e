"""Evaluate runs: align them with the relevance source (concept sets through the engine, or
a TREC qrels file), then every requested metric per query (aggregation lives in
:mod:`evalcore.stats.compare`).

Queries with no relevant item (one policy for a whole table, ``empty_queries``): a query is
*empty* when no item of its pool has a positive relevance under any relevance measure of the
table (concepts: the ideal ranking's best IoU / nn-IoU is 0; qrels: no judged item has a
positive grade). ``exclude`` (default) leaves empty queries out of every metric of the table,
label metrics included, and counts them; ``zero`` scores them 0 on every ranking metric and
keeps label metrics' own values (and judged@K's, which reads no relevance). A query that is not
empty is scored by every metric: where one metric's own denominator is 0 (IDCG = 0 under IoU
while nn-IoU finds a neighbour; no item at the relevance threshold for MAP, AP and recall) it
scores 0, as trec_eval does. Label metrics further skip queries without a label (counted). So
every ranking metric of a table averages over the same queries of a system, and label metrics
over the labelled ones among them.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from evalcore.data import ConceptSets, ImageLabels, Qrels, RankedLists, Run
from evalcore.engine import Compute, PairwiseEngine, PoolSummary, codes_give
from evalcore.errors import MAX_NAME_CHARS, CBIRLensError, InputError, ParameterError, joined, listed, one_line, quoted_id
from evalcore.evaluation.options import Relevance
from evalcore.kept import InFlight, Kept
from evalcore.metrics.registry import (
    JUDGED,
    MAX_K,
    NOT_IN_POOL,
    PAST_END,
    UNJUDGED,
    MetricInputs,
    MetricSpec,
    mean_scales,
    parse_metric,
)
from evalcore.metrics.ties import in_tie_order, run_tie_counts
from evalcore.relevance.kg import KnowledgeGraph, check_hops_and_mode
from evalcore.relevance.measures import CountPlan, MeasureSpec
from evalcore.stats.compare import draws_store, id_order, query_means
from evalcore.threads import blas_single_thread

#: The ranks of each list read beyond a table's largest K, for the metrics of the whole list (RBP, CAG-RBP: a rank
#: past it weighs under 0.95^1000, about 5e-23), and the most ideal images qrels writes per query. Ranks up to the
#: largest K are always read.
MAX_DEPTH = 1000
#: The pool rankings an evaluator keeps (:meth:`Evaluator.relevance_ranking`), least recently used dropped first:
#: about 60 of ROCOv2 test at depth 100 (4 MB each), so that a dashboard's Ablation grid and measure comparison,
#: prepared after its Leaderboard, leave the Leaderboard's own rankings in place.
KEPT_RANKING_BYTES = 256 << 20
KEPT_SCORE_BYTES = 32 << 20  # per run
MAX_LABEL_CLASSES = 64
UNKNOWN = -2
PADDING = -1
QUERY_ITSELF = -3  # the query's own image kept in its list (Relevance.query_image = "keep"): relevance 0, no label


@dataclass(frozen=True)
class AlignedRun:
    """A run as candidate indices: Q x D, -1 past the end of a list, -2 for IDs without concept sets, -3 for the
    query's own image where it keeps its rank (``Relevance.query_image = "keep"``)."""

    name: str
    query_rows: np.ndarray
    documents: np.ndarray
    counts: dict[str, int]

    @classmethod
    def over_pool(cls, name: str, documents: np.ndarray) -> AlignedRun:
        """A ranking of the whole pool for every query in pool order, as the engine returns it."""
        rows = np.arange(len(documents), dtype=np.int64)
        counts = {"queries_in_run": len(rows), "queries_evaluated": len(rows), "queries_unknown": 0,
                  "retrieved_unknown_ids": 0, "query_dropped_from_own_list": 0}
        return cls(name, rows, documents, counts)


ALIGN_BLOCK_ITEMS = 1 << 22


def align_run(run: Run, concepts: ConceptSets, depth: int, keep_query: bool = False) -> AlignedRun:
    """Map a run onto concept-set rows; drop each query from its own list; count what was skipped.

    ``keep_query``: the query's own image keeps its rank instead (as trec_eval counts it), coded
    :data:`QUERY_ITSELF`: relevance 0 under every measure (it is not in its own pool) and no label match.

    IDs become rows by one hash look-up per distinct ID (pandas), and the items by array
    operations, a block of queries at a time, so a run of 10 million items needs no Python
    step per item and no temporary array of its size.

    A run none of whose queries has a concept set is refused: every metric would be
    undefined, and a table of NaN would look like an answer.
    """
    lists = RankedLists.from_mapping(run.rankings)
    pool = pd.Index(concepts.ids, dtype=object)
    query_rows = pool.get_indexer(pd.Index(lists.queries, dtype=object))
    known = query_rows >= 0
    if len(lists) and not known.any():
        raise InputError(run.source, None, f"query IDs that have a concept set in {concepts.source}",
                         f"none of its {len(lists):,} queries does (first: {quoted_id(lists.queries[0])})")
    row_of_name = pool.get_indexer(pd.Index(lists.names, dtype=object))
    aligned = _aligned_as_written(run.name, lists, query_rows, row_of_name, depth)
    if aligned is not None:
        return replace(aligned, counts={**aligned.counts, "query_kept_in_own_list": 0}) if keep_query else aligned
    output_row = np.cumsum(known) - 1
    documents = np.full((int(known.sum()), depth), PADDING, dtype=np.int64)
    unknown_items, examples, dropped, kept_self = 0, [], 0, 0
    for first, last in _query_blocks(lists.offsets, ALIGN_BLOCK_ITEMS):
        low, high = lists.offsets[first], lists.offsets[last]
        owner = np.repeat(np.arange(first, last), np.diff(lists.offsets[first:last + 1]))
        codes = lists.documents[low:high]
        keep = known[owner]
        is_self = keep & (row_of_name[codes] == query_rows[owner])
        if keep_query:
            kept_self += len(np.unique(owner[is_self]))
        else:
            dropped += len(np.unique(owner[is_self]))
            keep &= ~is_self
        owner, codes = owner[keep], codes[keep]
        starts = np.flatnonzero(np.concatenate(([True], owner[1:] != owner[:-1])))
        position = np.arange(len(owner)) - np.repeat(starts, np.diff(np.concatenate((starts, [len(owner)]))))
        in_depth = position < depth
        owner, codes, position = owner[in_depth], codes[in_depth], position[in_depth]
        rows = row_of_name[codes]
        unknown = rows < 0
        coded = np.where(unknown, UNKNOWN, rows)
        if keep_query:
            coded[rows == query_rows[owner]] = QUERY_ITSELF
        documents[output_row[owner], position] = coded
        unknown_items += int(unknown.sum())
        if len(examples) < 5 and unknown.any():
            examples += lists.names[codes[unknown][: 5 - len(examples)]].tolist()
    counts = {
        "queries_in_run": len(lists),
        "queries_evaluated": int(known.sum()),
        "queries_unknown": int((~known).sum()),
        "retrieved_unknown_ids": unknown_items,
        "query_dropped_from_own_list": dropped,
    }
    if keep_query:
        counts["query_kept_in_own_list"] = kept_self
    if examples:
        counts["unknown_id_examples"] = ", ".join(examples)  # type: ignore[assignment]
    return AlignedRun(run.name, query_rows[known].astype(np.int64), documents, counts)


def _aligned_as_written(name: str, lists: RankedLists, query_rows: np.ndarray, row_of_name: np.ndarray,
                        depth: int) -> AlignedRun | None:
    """The common case in one gather: every query known, lists of one length within ``depth``, no query in
    its own list and no unknown ID (as ``retrieve`` writes runs). None otherwise."""
    lengths = lists.lengths()
    if not len(lengths) or (query_rows < 0).any() or lengths.min() != lengths.max() or lengths[0] > depth:
        return None
    rows = row_of_name[lists.documents].reshape(len(lengths), int(lengths[0]))
    if (rows < 0).any() or (rows == query_rows[:, None]).any():
        return None
    documents = np.full((len(lengths), depth), PADDING, dtype=np.int64)
    documents[:, : rows.shape[1]] = rows
    counts = {"queries_in_run": len(lengths), "queries_evaluated": len(lengths), "queries_unknown": 0,
              "retrieved_unknown_ids": 0, "query_dropped_from_own_list": 0}
    return AlignedRun(name, query_rows.astype(np.int64), documents, counts)


def _query_blocks(offsets: np.ndarray, items: int) -> list[tuple[int, int]]:
    """Consecutive ranges of queries holding about ``items`` items each (at least one query per range).

    >>> _query_blocks(np.array([0, 3, 3, 10, 12]), 4)
    [(0, 2), (2, 3), (3, 4)]
    """
    blocks, first, queries = [], 0, len(offsets) - 1
    while first < queries:
        last = max(first + 1, int(np.searchsorted(offsets, offsets[first] + items, side="right")) - 1)
        last = min(last, queries)
        blocks.append((first, last))
        first = last
    return blocks


def unknown_ids(run: Run, concepts: ConceptSets) -> tuple[int, int]:
    """How many queries of a run, and how many retrieved items, have no concept set (by arrays)."""
    lists = RankedLists.from_mapping(run.rankings)
    pool = pd.Index(concepts.ids, dtype=object)
    queries = int((pool.get_indexer(pd.Index(lists.queries, dtype=object)) < 0).sum())
    unknown_names = pool.get_indexer(pd.Index(lists.names, dtype=object)) < 0
    return queries, int(unknown_names[lists.documents].sum()) if unknown_names.any() else 0


#: The start of the names of the systems the tool ranks itself (:func:`built_in_system`).
BUILT_IN_PREFIX = "Retrieval by "


def built_in_system(what: str) -> str:
    """The name of a system the tool ranks itself ("Retrieval by IoU", a baseline or a measure's own ranking): the
    names beginning "Retrieval by " are the tool's, which no loaded run may take (a table would hold two systems of
    one name).

    >>> built_in_system("IoU"), is_built_in_name("Retrieval by BM25"), is_built_in_name("bm25")
    ('Retrieval by IoU', True, False)
    """
    return f"{BUILT_IN_PREFIX}{what}"


def is_built_in_name(name: str) -> bool:
    """Whether ``name`` is one the tool keeps for its own systems (:func:`built_in_system`)."""
    return name.startswith(BUILT_IN_PREFIX)

#: The largest grade exponential gain takes: 2^1000 - 1, summed over 10,000 ranks, stays finite (2^1024 does not).
LARGEST_EXPONENT = 1000


class JudgedRelevance:
    """The relevance source of a TREC qrels file, read as trec_eval reads it.

    A retrieved item's relevance is its grade (negative grades, trec_eval's "unjudged", and
    unjudged items read 0); the ideal ranking holds the query's positive grades in descending
    order; an item is relevant when its grade reaches the relevance level.

    The judgments are read as columns (:class:`~evalcore.data.JudgmentColumns`): a run's items
    find their grades by array operations, without a Python step per item or per judgment.

    >>> judged = JudgedRelevance(Qrels({"q": {"a": 2, "b": 0, "c": 3, "d": -1}, "r": {"a": 1}}))
    >>> judged.ideal(["q", "r"], 3).tolist(), judged.relevant_counts(["q"], 2).tolist(), judged.highest_grade
    ([[3.0, 2.0], [1.0, 0.0]], [2], 3)
    """

    def __init__(self, qrels: Qrels):
        self.qrels = qrels
        self.columns = qrels.columns
        self.highest_grade = int(self.columns.grades.max()) if len(self.columns.grades) else 0
        self._query_of_keys: np.ndarray | None = None
        self._positive: tuple[np.ndarray, np.ndarray] | None = None

    def _query_codes(self, query_ids: Sequence[str]) -> np.ndarray:
        """The codes of queries that have judgments (a KeyError names the first that has none)."""
        codes = self.columns.query_codes(query_ids)
        if (codes < 0).any():
            raise KeyError(query_ids[int(np.argmax(codes < 0))])
        return codes

    def _judgment_queries(self) -> np.ndarray:
        """The query code of each judgment (in the columns' key order), built once."""
        if self._query_of_keys is None:
            self._query_of_keys = self.columns.query_of_keys()
        return self._query_of_keys

    def _positive_grades(self) -> tuple[np.ndarray, np.ndarray]:
        """Every query's positive grades, descending, one after another, and where each query's begin (Q + 1)."""
        if self._positive is None:
            grades = self.columns.grades
            positive = grades > 0
            queries, grades = self._judgment_queries()[positive], grades[positive]
            order = np.lexsort((-grades, queries))
            offsets = np.searchsorted(queries[order], np.arange(len(self.columns.queries) + 1))
            self._positive = grades[order], offsets
        return self._positive

    def ideal(self, query_ids: Sequence[str], k: int) -> np.ndarray:
        """Each query's best k positive grades, descending, padded with 0: Q x k, or narrower where no query has k
        positive grades (the columns past them would hold only zeros, which add nothing to an ideal DCG; a K of
        10,000 over ROCOv2 test's 9,927 queries made 0.8 GB of them), and at least one column."""
        ranked, offsets = self._positive_grades()
        codes = self._query_codes(query_ids)
        starts = offsets[codes]
        counts = np.minimum(offsets[codes + 1] - starts, k)
        ideal = np.zeros((len(query_ids), max(1, min(k, int(counts.max(initial=0))))))
        rows = np.repeat(np.arange(len(codes)), counts)
        columns = np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
        ideal[rows, columns] = ranked[starts[rows] + columns]
        return ideal

    def relevant_counts(self, query_ids: Sequence[str], level: int) -> np.ndarray:
        """Q: judged items whose grade reaches ``level`` (trec_eval's num_rel)."""
        reaching = self._judgment_queries()[self.columns.grades >= level]
        return np.bincount(reaching, minlength=len(self.columns.queries)).astype(np.int64)[self._query_codes(query_ids)]

    def nonrelevant_counts(self, query_ids: Sequence[str], level: int) -> np.ndarray:
        """Q: judged items whose grade lies in [0, ``level``) (bpref's N; trec_eval's judged non-relevant: a negative
        grade is "in the pool but unjudged")."""
        grades = self.columns.grades
        below = self._judgment_queries()[(grades >= 0) & (grades < level)]
        return np.bincount(below, minlength=len(self.columns.queries)).astype(np.int64)[self._query_codes(query_ids)]

    def align(self, run: Run | AlignedRun, depth: int, concepts: ConceptSets | None, keep_query: bool = False
              ) -> tuple[tuple[str, ...], np.ndarray, AlignedRun | None, dict[str, int]]:
        """The run's judged queries, the grade of each retrieved item (Q x depth), the lists on concept rows and their
        counts: :meth:`align_judged` without the judgment states."""
        return self.align_judged(run, depth, concepts, keep_query)[:4]

    def align_judged(self, run: Run | AlignedRun, depth: int, concepts: ConceptSets | None, keep_query: bool = False
                     ) -> tuple[tuple[str, ...], np.ndarray, AlignedRun | None, dict[str, int], np.ndarray]:
        """The run's judged queries, the grade of each retrieved item (Q x depth) and their counts, and the judgment
        state of each rank (Q x depth, :data:`~evalcore.metrics.registry.JUDGED`, ...: a grade >= 0 is judged, a
        negative one in the pool but unjudged, an item without a judgment outside the pool, as trec_eval reads them).

        As for concept relevance (docs/DESIGN.md §1), the query is dropped from its own list; with ``keep_query`` it
        keeps its rank and its judged grade, as trec_eval reads it (coded :data:`QUERY_ITSELF` on concept rows: no
        label match). With concept sets, the same lists come back as an :class:`AlignedRun` on concept rows (query row
        -1 when the query has no concept set), for label metrics.

        IDs become codes by one hash look-up per distinct ID, and the items find their grades by one binary search
        over the judgments' sorted keys, a block of queries at a time (:data:`ALIGN_BLOCK_ITEMS`).
        """
        lists = _rankings_by_id(run, concepts)
        # Equal names are one name (a list may name an ID under two codes); None, an unknown ID, is a name of its own.
        name_codes, names = pd.factorize(lists.names, use_na_sentinel=False)
        name_index = pd.Index(names, dtype=object)
        own_name = name_index.get_indexer(pd.Index(lists.queries, dtype=object))
        judgment_query = self.columns.query_codes(lists.queries)
        judgment_document = self.columns.document_codes(names)
        is_judged = judgment_query >= 0
        judged = tuple(np.asarray(lists.queries, dtype=object)[is_judged].tolist())
        if len(lists) and not judged:  # every value would be undefined, and a table of NaN would look like an answer
            raise InputError(getattr(run, "source", run.name), None,
                             f"query IDs that have judgments in {self.qrels.source}",
                             f"none of its {len(lists):,} queries does (first: {quoted_id(lists.queries[0])})")
        output_row = np.cumsum(is_judged) - 1
        grades = np.zeros((len(judged), depth))
        states = np.full((len(judged), depth), PAST_END, dtype=np.int8)
        if concepts is not None:
            documents = np.full((len(judged), depth), PADDING, dtype=np.int64)
            concept_row = pd.Index(concepts.ids, dtype=object).get_indexer(name_index)
            concept_row[concept_row < 0] = UNKNOWN
        unjudged = in_own_list = 0
        for first, last in _query_blocks(lists.offsets, ALIGN_BLOCK_ITEMS):
            low, high = lists.offsets[first], lists.offsets[last]
            owner = np.repeat(np.arange(first, last), np.diff(lists.offsets[first:last + 1]))
            codes = name_codes[lists.documents[low:high]]
            keep = is_judged[owner]
            is_own = keep & (codes == own_name[owner])
            in_own_list += len(np.unique(owner[is_own]))
            if not keep_query:
                keep &= ~is_own
            owner, codes, is_own = owner[keep], codes[keep], is_own[keep]
            sizes = np.bincount(owner - first, minlength=last - first)
            position = np.arange(len(owner)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
            in_depth = position < depth
            owner, codes, is_own, position = owner[in_depth], codes[in_depth], is_own[in_depth], position[in_depth]
            grade, found = self.columns.grades_of(judgment_query[owner], judgment_document[codes])
            unjudged += int((~found).sum())
            rows = output_row[owner]
            grades[rows, position] = np.maximum(grade, 0)
            states[rows, position] = np.where(found, np.where(grade >= 0, JUDGED, UNJUDGED), NOT_IN_POOL)
            if concepts is not None:
                documents[rows, position] = np.where(is_own, QUERY_ITSELF, concept_row[codes])
        counts = {
            "queries_in_run": len(lists),
            "queries_evaluated": len(judged),
            "queries_unknown": len(lists) - len(judged),
            "queries_judged_not_in_run": len(self.columns.queries) - len(judged),
            "retrieved_unjudged": unjudged,
            "query_dropped_from_own_list": 0 if keep_query else in_own_list,
        }
        if keep_query:
            counts["query_kept_in_own_list"] = in_own_list
        on_concepts = None
        if concepts is not None:
            rows = pd.Index(concepts.ids, dtype=object).get_indexer(pd.Index(judged, dtype=object)).astype(np.int64)
            on_concepts = AlignedRun(run.name, rows, documents, counts)
        return judged, grades, on_concepts, counts, states


def _rankings_by_id(run: Run | AlignedRun, concepts: ConceptSets | None) -> RankedLists:
    """Ranked image IDs per query, as arrays; an aligned run's unknown IDs come back as None.

    An aligned run naming a query twice reads as its last list, at the place of its first (as a dict of its lists
    would hold it).
    """
    if isinstance(run, Run):
        return RankedLists.from_mapping(run.rankings)
    if concepts is None:
        raise CBIRLensError(f"run {run.name!r} is given as concept rows: it needs the concept sets it was made from")
    ids = concepts.ids
    query_rows = np.where(run.query_rows < 0, run.query_rows + len(ids), run.query_rows)  # as ids[row] reads -1
    _, first = np.unique(query_rows, return_index=True)
    reversed_rows = query_rows[::-1]
    _, last_from_end = np.unique(reversed_rows, return_index=True)
    kept = (len(query_rows) - 1 - last_from_end)[np.argsort(first)]
    query_rows, listed = query_rows[kept], run.documents[kept]
    present = listed != PADDING
    unknown = len(ids)  # the code of None, past the IDs
    coded = np.where(listed >= 0, listed, np.where(listed == QUERY_ITSELF, query_rows[:, None], unknown))[present]
    offsets = np.concatenate(([0], np.cumsum(present.sum(axis=1))))
    return RankedLists(np.asarray(ids, dtype=object)[query_rows].tolist(), (*ids, None), coded, offsets)


def table_depth(specs: Sequence[MetricSpec], runs: Sequence[Run | AlignedRun]) -> int:
    """How deep a table reads each list: as deep as its largest K asks (items past rank 1,000 once dropped without a
    word: R@1500 of a list whose relevant items lie at ranks 1,201-1,500 was 0) and at least to rank
    :data:`MAX_DEPTH` (RBP, CAG-RBP), to rank 10,000 (the largest K) where a metric reads the whole list as trec_eval
    does (recip_rank, bpref, ...: ``MetricFamily.whole_list``); no deeper than the longest list, since the metrics
    read a short list's missing ranks as misses."""
    k_max = max([s.k for s in specs if s.k] + [1])
    reach = MAX_K if any(s.family.whole_list for s in specs) else max(k_max, MAX_DEPTH)
    return max(1, min(reach, max((run_depth(r) for r in runs), default=1)))


def concept_judgment_states(documents: np.ndarray) -> np.ndarray:
    """The judgment state of each rank of aligned lists under concept relevance
    (:data:`~evalcore.metrics.registry.JUDGED`, ...): the concept sets judge every image of the pool, so an image
    with a concept set is judged; an ID without one, or the query's own image kept in its list (no part of its pool),
    is outside the pool; padding lies past the end of the list.

    >>> concept_judgment_states(np.array([[4, UNKNOWN, QUERY_ITSELF, PADDING]])).tolist()
    [[1, -1, -1, -2]]
    """
    return np.where(documents >= 0, JUDGED, np.where(documents == PADDING, PAST_END, NOT_IN_POOL)).astype(np.int8)


def run_depth(run: Run | AlignedRun) -> int:
    """The length of a run's longest list (1 for a run of none)."""
    if isinstance(run, AlignedRun):
        return run.documents.shape[1]
    lengths = RankedLists.from_mapping(run.rankings).lengths()
    return int(lengths.max()) if len(lengths) else 1


def label_masks(labels: ImageLabels, concepts: ConceptSets) -> dict[str, np.ndarray]:
    """One bit per class: images match on a kind when their masks intersect."""
    masks = {}
    for kind, per_image in labels.by_kind.items():
        classes = sorted(set().union(*per_image.values())) if per_image else []
        if len(classes) > MAX_LABEL_CLASSES:
            raise ParameterError(f"{labels.source}: at most {MAX_LABEL_CLASSES} {kind} classes, found {len(classes)}")
        bit = {label: np.uint64(1) << np.uint64(i) for i, label in enumerate(classes)}
        mask = np.zeros(len(concepts), dtype=np.uint64)
        for i, image_id in enumerate(concepts.ids):
            for label in per_image.get(image_id, ()):
                mask[i] |= bit[label]
        masks[kind] = mask
    return masks


@dataclass
class SystemResult:
    name: str
    query_ids: tuple[str, ...]
    values: dict[str, np.ndarray]
    counts: dict[str, int]

    @functools.cached_property
    def id_order(self) -> np.ndarray:
        """The positions of :attr:`query_ids` in sorted order (:func:`~evalcore.stats.compare.id_order`), sorted once:
        the means and the intervals of every redraw read the values in it."""
        return id_order(self.query_ids)


@dataclass
class Evaluation:
    systems: dict[str, SystemResult]
    params: dict
    metric_names: list[str]
    counts: dict[str, dict[str, int]] = field(default_factory=dict)

    def means(self) -> dict[str, dict[str, float]]:
        """Mean over queries with a defined value (NaN = excluded and counted), summed in the order of the query IDs
        (:func:`~evalcore.stats.compare.query_means`): two runs that differ only in the order of their queries had means
        one digit apart in the last place, and only one of them was marked best."""
        return {name: query_means(result.id_order, result.values, mean_scales(result.values))
                for name, result in self.systems.items()}

    def per_query_frame(self) -> pd.DataFrame:
        frames = [
            pd.DataFrame({"system": name, "query_id": result.query_ids, "metric": metric, "value": values})
            for name, result in self.systems.items()
            for metric, values in result.values.items()
        ]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
            columns=["system", "query_id", "metric", "value"])


class Evaluator:
    """Evaluates runs on one dataset; pool summaries are cached per (effective measure, k, threshold).

    Relevance comes from the concept sets (IoU, nn-IoU) or, with ``qrels``, from TREC judgments
    (``qrels-`` metrics); without concept sets only ``qrels-`` metrics can be computed, and label
    metrics need both concept sets and labels. Every relevance measure is a
    :class:`~evalcore.relevance.measures.MeasureSpec`; the options of a table come as one
    :class:`~evalcore.evaluation.options.Relevance`.
    """

    def __init__(self, concepts: ConceptSets | None, kg: KnowledgeGraph | None = None, mode: str = "undirected",
                 labels: ImageLabels | None = None, engine: PairwiseEngine | None = None, qrels: Qrels | None = None,
                 compute: Compute | None = None):
        """``compute`` (:class:`~evalcore.evaluation.options.Compute`) says where the engine's passes over the pool run
        (local processes or a Dask cluster, the array backend); by default in this process, on NumPy."""
        check_hops_and_mode(0, mode)
        if concepts is None and qrels is None:
            raise ParameterError("an evaluation needs concept sets or a qrels file as its relevance source")
        if concepts is None and labels is not None:
            raise ParameterError("label metrics need the concept sets the labels belong to")
        self.concepts = concepts
        self.kg = kg
        self.mode = mode
        self.draws = draws_store()  # the random draws of the statistics on its evaluations, kept for the next
        self.engine = engine or (PairwiseEngine(concepts, kg=kg, mode=mode, compute=compute or Compute())
                                 if concepts is not None else None)
        self.labels = labels
        self.masks = label_masks(labels, concepts) if labels is not None and concepts is not None else {}
        self.judged = JudgedRelevance(qrels) if qrels is not None else None
        self._summaries: dict[tuple, PoolSummary] = {}
        self._rankings = Kept(KEPT_RANKING_BYTES)
        # Passes over the pool under way: dashboard sessions asking for the same one wait for it.
        self._passes = InFlight()
        # id(run) -> (run, (depth, ties, query_image), aligned)
        self._aligned: dict[int, tuple[weakref.ref, tuple, AlignedRun]] = {}
        self._ties: dict[int, tuple[weakref.ref, dict[str, int]]] = {}  # id(run) -> (run, counts of tied queries)
        self._per_run: dict[tuple[int, int], tuple[weakref.ref, weakref.ref, dict[str, Any]]] = {}

    def label_targets(self) -> list[str]:
        kinds = [k for k in ("modality", "organ") if k in self.masks]
        return kinds + (["modality+organ"] if len(kinds) == 2 else [])

    def pool_summary(self, measure: MeasureSpec, k: int, threshold: float,
                     progress: Callable[[float], None] | None = None) -> PoolSummary:
        """Best ``k`` relevance values and the count above ``threshold`` per query, cached per effective measure."""
        spec = self.engine.resolve(measure)
        key = (spec.name, k, threshold)

        def summarise(report: Callable[[float], None] | None) -> PoolSummary:
            # A summary of a deeper ideal at the same threshold holds this one in its first k columns.
            # A list of the items first, in one step: another thread (a pass ranked ahead) may add a summary.
            deeper = [s for (name, depth, at), s in list(self._summaries.items()) if name == spec.name
                      and at == threshold and depth > k]
            self._summaries[key] = PoolSummary(deeper[0].ideal[:, :k], deeper[0].relevant_counts, deeper[0].pool_sizes
                                               ) if deeper else self.engine.pool_summary_by(spec, k, threshold, report)
            return self._summaries[key]

        return self._passes.run(("summary", key), lambda: self._summaries.get(key), summarise, progress)

    def relevance_ranking(self, measure: MeasureSpec, depth: int, k: int = 10, threshold: float = 0.5,
                          name: str | None = None,
                          progress: Callable[[float], None] | None = None) -> AlignedRun:
        """Retrieval by a relevance measure over the whole pool (ties by position), as an aligned run ready for
        :meth:`evaluate`, named ``name`` (default "Retrieval by" the measure's canonical text): the one ranking of
        the pool by relevance (:func:`evalcore.evaluation.retrieval.retrieve_by_measure` writes it as a run).

        The same pass over the pool yields the measure's ideal top-``k`` summary, which is cached. The last
        few rankings are kept too, per effective measure (a slider moving alpha to 0 re-ranks by IoU once);
        their arrays are shared, so callers must not modify them.
        """
        spec = self.engine.resolve(measure)
        name = name or built_in_system(measure.name)
        key = (spec.name, depth, k, threshold)

        def rank(report: Callable[[float], None] | None) -> AlignedRun:
            summary, indices = self.engine.rank_by(spec, k, threshold, depth, report)
            self._summaries.setdefault((spec.name, k, threshold), summary)
            ranking = AlignedRun.over_pool(name, indices)
            self._rankings.put(key, ranking)
            return ranking

        def kept() -> AlignedRun | None:
            ranking = self._rankings.get(key)
            return None if ranking is None else replace(ranking, name=name)

        return self._passes.run(("ranking", key), kept, rank, progress)

    def kept_rankings(self, measures: Iterable[MeasureSpec] | None = None) -> dict[tuple[str, int, int, float], np.ndarray]:
        """The pool rankings this evaluator keeps (:meth:`relevance_ranking`), least recently used first: each matrix
        of candidate indices under its key (effective measure name, depth, k, threshold), for :meth:`keep_ranking` to
        put back into an evaluator over the same concept sets, KG and mode; only those ranking by one of
        ``measures`` (their effective settings) when given. The arrays are shared: callers must not modify them.

        >>> from evalcore.data import ConceptSets
        >>> from evalcore.relevance.measures import measure_spec
        >>> evaluator = Evaluator(ConceptSets(("a", "b"), (frozenset({"C1"}), frozenset({"C1", "C2"}))))
        >>> for measure in ("iou", "dice"):
        ...     _ = evaluator.relevance_ranking(measure_spec(measure), 1)
        >>> list(evaluator.kept_rankings()), list(evaluator.kept_rankings([measure_spec("dice")]))
        ([('iou', 1, 10, 0.5), ('dice', 1, 10, 0.5)], [('dice', 1, 10, 0.5)])
        """
        names = None if measures is None else {self.engine.resolve(measure).name for measure in measures}
        return {key: ranking.documents for key, ranking in self._rankings.items()
                if names is None or key[0] in names}

    def kept_summaries(self) -> dict[tuple[str, int, float], PoolSummary]:
        """The ideal summaries this evaluator keeps (:meth:`pool_summary`), each under its key (effective measure
        name, k, threshold), for :meth:`keep_summary`. The arrays are shared: callers must not modify them."""
        return dict(list(self._summaries.items()))

    def keep_ranking(self, key: tuple[str, int, int, float], documents: np.ndarray) -> None:
        """Keep ``documents`` as the pool ranking :meth:`relevance_ranking` computes under ``key`` (as
        :meth:`kept_rankings` gives them), so that asking for it runs no pass over the pool; it is made read-only.
        A key or matrix that cannot be one (not Q x at most depth candidate indices, -1 past a list's end) is
        refused with a :class:`~evalcore.errors.ParameterError`.

        >>> from evalcore.data import ConceptSets
        >>> from evalcore.relevance.measures import measure_spec
        >>> sets = ConceptSets(("a", "b", "c"), (frozenset({"C1"}), frozenset({"C1", "C2"}), frozenset({"C3"})))
        >>> computed = Evaluator(sets).relevance_ranking(measure_spec("iou"), 2)
        >>> seeded = Evaluator(sets)
        >>> seeded.keep_ranking(("iou", 2, 10, 0.5), computed.documents.copy())
        >>> (seeded.relevance_ranking(measure_spec("iou"), 2).documents == computed.documents).all()
        np.True_
        """
        name, depth, k, threshold = _checked_key(key, (str, int, int, float))
        queries, candidates = len(self.engine.queries.ids), len(self.engine.candidates.ids)
        if not (isinstance(documents, np.ndarray) and documents.dtype.kind in "iu" and documents.ndim == 2
                and documents.shape[0] == queries and 1 <= documents.shape[1] <= depth
                and (documents.size == 0 or -1 <= documents.min() and documents.max() < candidates)):
            raise ParameterError(f"ranking {name}: expected {queries} rows of at most {depth} candidate indices "
                                 f"from -1 to {candidates - 1}")
        documents.flags.writeable = False
        if self._rankings.get((name, depth, k, threshold)) is None:
            self._rankings.put((name, depth, k, threshold), AlignedRun.over_pool(built_in_system(name), documents))

    def keep_summary(self, key: tuple[str, int, float], summary: PoolSummary) -> None:
        """Keep ``summary`` as the ideal summary :meth:`pool_summary` computes under ``key`` (as
        :meth:`kept_summaries` gives them); its arrays are made read-only. A key or summary that cannot be one (not
        Q x at most k finite values, Q counts and Q pool sizes, none negative) is refused with a
        :class:`~evalcore.errors.ParameterError`.

        >>> from evalcore.data import ConceptSets
        >>> from evalcore.relevance.measures import measure_spec
        >>> sets = ConceptSets(("a", "b"), (frozenset({"C1"}), frozenset({"C1", "C2"})))
        >>> computed = Evaluator(sets).pool_summary(measure_spec("iou"), 1, 0.5)
        >>> seeded = Evaluator(sets)
        >>> seeded.keep_summary(("iou", 1, 0.5), computed)
        >>> seeded.pool_summary(measure_spec("iou"), 1, 0.5) is computed
        True
        """
        name, k, threshold = _checked_key(key, (str, int, float))
        queries = len(self.engine.queries.ids)
        ideal, counts, sizes = summary.ideal, summary.relevant_counts, summary.pool_sizes
        arrays = (ideal, counts, sizes)
        if not (all(isinstance(array, np.ndarray) for array in arrays) and ideal.dtype.kind == "f"
                and ideal.ndim == 2 and ideal.shape[0] == queries and 1 <= ideal.shape[1] <= k
                and all(array.dtype.kind in "iu" and array.shape == (queries,) for array in (counts, sizes))
                and all(array.size == 0 or (np.isfinite(array).all() and array.min() >= 0) for array in arrays)):
            raise ParameterError(f"summary {name}: expected {queries} x at most {k} finite values, {queries} counts "
                                 f"and {queries} pool sizes, none negative")
        for array in arrays:
            array.flags.writeable = False
        self._summaries.setdefault((name, k, threshold), summary)

    def relevance_of(self, aligned: AlignedRun, measures: dict[str, MeasureSpec]) -> dict[str, np.ndarray]:
        """Graded relevance of every retrieved item under each measure (0 for unknown IDs and padding).

        The codes of the run's pairs are kept while its arrays live: a dashboard re-scores the same runs at every
        alpha, and for a plan already read only the values are looked up again. The last values of each measure
        are kept too (read-only), so that a measure whose setting did not move (IoU when alpha moves) is not
        computed again.
        """
        per_run = self._kept_for(aligned)
        if "valid" not in per_run:
            per_run["valid"] = aligned.documents >= 0
        valid = per_run["valid"]
        kept: dict[CountPlan, np.ndarray] = per_run.setdefault("codes", {})
        last: dict[str, tuple[MeasureSpec, np.ndarray]] = per_run.setdefault("relevance", {})

        @functools.cache
        def rows_and_columns() -> tuple[np.ndarray, np.ndarray]:
            """The retrieved pairs' query rows and candidate columns, read only where codes are not kept."""
            return (np.broadcast_to(aligned.query_rows[:, None], aligned.documents.shape)[valid],
                    aligned.documents[valid])

        resolved = {key: self.engine.resolve(spec) for key, spec in measures.items()}
        result = {}
        # In the engine's pass order: IoU after nn-IoU reads the codes nn-IoU leaves.
        for key in self.engine.pass_order(resolved, resolved.__getitem__):
            spec = resolved[key]
            if key in last and last[key][0] == spec:
                result[key] = last[key][1]
                continue
            plan = next((plan for plan in kept if codes_give(plan, spec)), None)
            if plan is None:
                found = self.engine.pair_codes(spec, *rows_and_columns())
                if found is not None:
                    plan, kept[found[0]] = found
            found = (self.engine.values_of_pair_codes(spec, plan, kept[plan]) if plan is not None
                     else self.engine.relevance_of_pairs_by(spec, *rows_and_columns()))
            if len(found) == valid.size:  # every item retrieved and known (a full ranking): the values in place
                values = found.reshape(valid.shape)
            else:
                values = np.zeros(aligned.documents.shape)
                values[valid] = found
            values.flags.writeable = False  # shared by the evaluations that read it back
            result[key] = values
            last[key] = (spec, values)
        return {key: result[key] for key in measures}

    def _kept_for(self, aligned: AlignedRun) -> dict[str, Any]:
        """What this evaluator keeps about an aligned run while its arrays live (keyed by the arrays, which a kept
        ranking shares between the copies it returns)."""
        key = (id(aligned.query_rows), id(aligned.documents))
        kept = self._per_run.get(key)
        if kept is not None and kept[0]() is aligned.query_rows and kept[1]() is aligned.documents:
            return kept[2]
        for old in [old for old, (rows, documents, _) in list(self._per_run.items())
                    if rows() is None or documents() is None]:
            self._per_run.pop(old, None)
        self._per_run[key] = (weakref.ref(aligned.query_rows), weakref.ref(aligned.documents), {})
        return self._per_run[key][2]

    def evaluate(self, runs: Sequence[Run | AlignedRun], metric_names: Sequence[str],
                 relevance: Relevance | None = None,
                 progress: Callable[[float, str], None] | None = None, threads: int | None = None,
                 part_of: Sequence[str] = ()) -> Evaluation:
        """Every metric per query for each run; see the module docstring for queries with no relevant item.

        ``relevance`` (:class:`~evalcore.evaluation.options.Relevance`, default: nn-IoU at alpha = 0.5, n = 1, linear
        gain, threshold 0.5) gives each metric's relevance measure, the gain, the threshold that makes IoU-family
        relevance relevant for MAP, AP, Prec and R, the relevance level of judged grades and the policy for
        empty queries. ``threads``: runs scored at once (default: the engine's threads; 1 for a caller whose
        other cores already work, as the ablation grid's ranking of its next setting does). ``part_of``: the
        metric names of a whole table these metrics are part of (:attr:`Scoring.part_of`), whose relevance measures
        decide which queries are empty, so that each metric has the value the whole table gives it.
        """
        relevance = Relevance() if relevance is None else relevance
        if not isinstance(relevance, Relevance):
            raise ParameterError(f"relevance must be a Relevance (e.g. Relevance.of(alpha, n, measure)), got "
                                 f"{relevance!r}: alpha and n travel as a MeasureSpec")
        if threads is None:
            threads = self.engine.threads if self.engine is not None else 1
        elif isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ParameterError(f"threads must be a whole number >= 1, got {threads!r}")
        specs = [parse_metric(name) for name in metric_names]
        missing_labels = {s.target for s in specs if s.target} - set(self.label_targets())
        if missing_labels and self.labels is None:
            raise ParameterError(f"metrics {sorted(missing_labels)} need labels: a labels file (--labels F on the "
                                 "command line, the Data page in the dashboard)")
        if missing_labels:  # a labels file without that kind's column
            kinds = [kind for kind in ("modality", "organ") if kind in self.masks]
            lacking = sorted({kind for target in missing_labels for kind in target.split("+")} - set(kinds))
            names = [s.name for s in specs if s.target in missing_labels]
            raise ParameterError(f"{listed(names)} need{'s' if len(names) == 1 else ''} {joined(lacking)} labels, which "
                                 f"the labels file {one_line(self.labels.source, MAX_NAME_CHARS)} does not have (its "
                                 f"labels: {joined(kinds) or 'none'}): give a labels file with the column"
                                 f"{'s' if len(lacking) > 1 else ''} {joined(lacking)}")
        names = [r.name for r in runs]
        if len(set(names)) != len(names):
            raise CBIRLensError(f"two runs share a system name: {names}; rename a file or its TREC tag")
        table = [*specs, *map(parse_metric, part_of)]
        measures = sorted({s.relevance for s in table if s.relevance})
        self._check_sources(measures, table)
        if "qrels" in measures and relevance.gain == "exponential" and self.judged.highest_grade > LARGEST_EXPONENT:
            # 2^1024 is infinite in floating point, and infinite over infinite gave NDCG 0 without a word
            raise ParameterError(f"exponential gain 2^grade - 1 overflows past grade {LARGEST_EXPONENT}, and "
                                 f"{self.judged.qrels.source} has grades up to {self.judged.highest_grade:,}: use "
                                 "linear gain (trec_eval's), or judgments on a smaller scale")
        concept_measures = {key: relevance.spec_for(key) for key in measures if key != "qrels"}
        k_max = max([s.k for s in specs if s.k] + [1])
        depth = table_depth(specs, runs)
        summaries: dict[str, PoolSummary] = {}
        # In the engine's pass order: IoU after nn-IoU reads nn-IoU's cached codes instead of coding the pool again.
        ordered = PairwiseEngine.pass_order(concept_measures.items(), lambda item: self.engine.resolve(item[1]))
        for step, (key, spec) in enumerate(ordered):
            label = f"Ideal rankings over the whole pool by {spec.name}"
            if progress:
                progress(step / (len(measures) + 1), label)
            within = (lambda done, step=step, label=label: progress((step + done) / (len(measures) + 1), label)
                      ) if progress else None
            # the ideal ranking holds no more items than the pool: a K beyond it adds no column but zeros
            summary = self.pool_summary(spec, min(k_max, len(self.concepts)), relevance.threshold, within)
            summaries[key] = summary
        scored = []
        # One BLAS thread: the metrics' products are matrix-vector ones, too small to gain from a second thread, and
        # each threaded call leaves BLAS's worker spinning for a while after it, taking a core from the engine's
        # threads and from other sessions (an alpha change on ROCOv2 cost 0.94 s of CPU for 0.55 s of wall time,
        # 0.58 s with one thread). A matrix-vector product's sums do not depend on the thread count.
        # Runs are scored on the engine's threads, each run's metrics in one thread (its own inputs and kept
        # scores), while this thread reads the next run's inputs (the evaluator's kept codes and rankings).
        with blas_single_thread(), ThreadPoolExecutor(threads) as pool:
            for run in runs:
                if progress:
                    progress(len(measures) / (len(measures) + 1), f"Scoring {run.name}")
                kept = None
                if "qrels" in measures:
                    query_ids, inputs, counts = self._judged_inputs(run, k_max, depth, relevance)
                else:
                    query_ids, inputs, counts, kept = self._concept_inputs(run, concept_measures, summaries,
                                                                           relevance, depth)
                counts.update(self._tie_counts(run))
                scored.append(pool.submit(_score, run.name, query_ids, inputs, specs, measures, counts,
                                          relevance.empty_queries, kept))
            systems = {run.name: result.result() for run, result in zip(runs, scored)}
        params = {"alpha": relevance.alpha, "n": relevance.n, "kg_mode": self.mode, "gain": relevance.gain,
                  "relevance_threshold": relevance.threshold,
                  "candidates": len(self.concepts) if self.concepts is not None else None, "kg": self.kg is not None,
                  "empty_queries": relevance.empty_queries, "ties": relevance.ties,
                  "query_image": relevance.query_image}
        if self.judged is not None:
            params.update(qrels=self.judged.qrels.source, relevance_level=int(relevance.relevance_level))
        if relevance.measure is not None:
            params["measure"] = relevance.measure.name
        counts = {name: result.counts for name, result in systems.items()}
        return Evaluation(systems, params, [s.name for s in specs], counts)

    def _check_sources(self, measures: list[str], specs: list[MetricSpec]) -> None:
        """One relevance source per table, and the one each metric needs must be loaded."""
        if "qrels" in measures:
            if self.judged is None:
                raise ParameterError("qrels- metrics read judgments, which need a qrels file (qrels=)")
            mixed = [s.name for s in specs if s.relevance not in ("qrels", None)]
            if mixed:
                raise ParameterError(f"one table reads one relevance source; {mixed} read concept sets while "
                                     "qrels- metrics read the judgments: evaluate them separately")
        elif measures and self.concepts is None:
            raise ParameterError(f"metrics of {measures} relevance need concept sets; with only a qrels file use "
                                 "qrels- metrics (e.g. qrels-NDCG@10)")

    def _concept_inputs(self, run: Run | AlignedRun, measures: dict[str, MeasureSpec],
                        summaries: dict[str, PoolSummary], relevance: Relevance, depth: int
                        ) -> tuple[tuple[str, ...], MetricInputs, dict[str, int], KeptScores]:
        aligned = run if isinstance(run, AlignedRun) else self._align(run, depth, relevance)
        rows = aligned.query_rows
        gain, threshold = relevance.gain, relevance.threshold
        matches, present = self._label_matches(aligned)
        per_run = self._kept_for(aligned)
        if "states" not in per_run:
            per_run["states"] = concept_judgment_states(aligned.documents)
        in_pool = {m: summaries[m].relevant_counts[rows] for m in measures}
        inputs = MetricInputs(
            relevance=self.relevance_of(aligned, measures),
            ideal={m: summaries[m].ideal[rows] for m in measures},
            relevant_in_pool=in_pool,
            label_matches=matches, label_present=present, threshold=threshold, gain=gain, states=per_run["states"],
            # every image of the pool is judged by its concept set: those not relevant are the pool's others
            nonrelevant_in_pool={m: summaries[m].pool_sizes[rows] - in_pool[m] for m in measures},
        )
        # A metric's values depend on the run, its own relevance measure (IoU's not on alpha), gain and threshold.
        settings = {key: (spec.name, gain, threshold) for key, spec in measures.items()}
        kept = KeptScores(per_run.setdefault("scores", Kept()), settings)
        if "query_ids" not in per_run:  # a million-item run's IDs are read once, not at every slider move
            per_run["query_ids"] = tuple(self.concepts.ids[i] for i in rows)
        return per_run["query_ids"], inputs, dict(aligned.counts), kept

    def _judged_inputs(self, run: Run | AlignedRun, k: int, depth: int, relevance: Relevance
                       ) -> tuple[tuple[str, ...], MetricInputs, dict[str, int]]:
        gain, threshold, level = relevance.gain, relevance.threshold, relevance.relevance_level
        listed = in_tie_order(run, relevance.ties) if isinstance(run, Run) else run
        query_ids, grades, on_concepts, counts, states = self.judged.align_judged(listed, depth, self.concepts,
                                                                                  relevance.query_image == "keep")
        matches, present = self._label_matches(on_concepts) if on_concepts is not None else ({}, {})
        inputs = MetricInputs(
            relevance={"qrels": grades}, ideal={"qrels": self.judged.ideal(query_ids, k)},
            relevant_in_pool={"qrels": self.judged.relevant_counts(query_ids, level)},
            label_matches=matches, label_present=present, threshold=threshold, gain=gain,
            levels={"qrels": level}, unit_scale={"qrels": float(max(self.judged.highest_grade, 1))}, states=states,
            nonrelevant_in_pool={"qrels": self.judged.nonrelevant_counts(query_ids, level)},
        )
        return query_ids, inputs, dict(counts)

    def _align(self, run: Run, depth: int, relevance: Relevance | None = None) -> AlignedRun:
        """:func:`align_run` of the run with its ties in the order of ``relevance.ties`` and its query's own image
        dropped or kept (``relevance.query_image``), kept while the run object lives: a dashboard re-evaluates the
        same runs at every alpha, and mapping a million retrieved IDs to rows each time costs more than scoring
        them."""
        relevance = relevance or Relevance()
        reading = (depth, relevance.ties, relevance.query_image)
        kept = self._aligned.get(id(run))
        if kept is not None and kept[0]() is run and kept[1] == reading:
            return kept[2]
        aligned = align_run(in_tie_order(run, relevance.ties), self.concepts, depth, relevance.query_image == "keep")
        self._forget_dead(self._aligned)
        self._aligned[id(run)] = (weakref.ref(run), reading, aligned)
        return aligned

    def _tie_counts(self, run: Run | AlignedRun) -> dict[str, int]:
        """The counts of tied queries of a run with scores (:meth:`evalcore.metrics.ties.TieCounts.as_counts`), kept while
        the run object lives; none for a run without scores (a ranking made here, a CSV run without a score column)."""
        if not isinstance(run, Run):
            return {}
        kept = self._ties.get(id(run))
        if kept is not None and kept[0]() is run:
            return kept[1]
        found = run_tie_counts(run)
        counts = found.as_counts() if found is not None else {}
        self._forget_dead(self._ties)
        self._ties[id(run)] = (weakref.ref(run), counts)
        return counts

    @staticmethod
    def _forget_dead(store: dict[int, tuple]) -> None:
        """Drop the entries of a store keyed by ``id(run)`` whose run is gone (its id may be reused)."""
        for key in [key for key, entry in list(store.items()) if entry[0]() is None]:
            store.pop(key, None)

    def _label_matches(self, aligned: AlignedRun) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Label matches of every retrieved item; a query row of -1 (no concept set) has no label.

        Kept while the run's arrays live: they do not depend on alpha or n."""
        kept = self._kept_for(aligned)
        if "labels" not in kept:
            kept["labels"] = self._label_matches_of(aligned)
        return kept["labels"]

    def _label_matches_of(self, aligned: AlignedRun) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        matches, present = {}, {}
        valid = aligned.documents >= 0
        safe_documents = np.where(valid, aligned.documents, 0)
        known_query = aligned.query_rows >= 0
        for kind, mask in self.masks.items():
            query_mask = np.where(known_query, mask[np.maximum(aligned.query_rows, 0)], np.uint64(0))
            matches[kind] = ((query_mask[:, None] & mask[safe_documents]) != 0) & valid
            present[kind] = query_mask != 0
        if len(self.masks) == 2:
            matches["modality+organ"] = matches["modality"] & matches["organ"]
            present["modality+organ"] = present["modality"] & present["organ"]
        return matches, present


def _checked_key(key: object, types: tuple[type, ...]) -> tuple:
    """``key`` if it is a tuple of values of ``types`` (a measure name, a count or depth of at least 1, a threshold
    in [0, 1], an int for a float too), else a ParameterError.

    >>> _checked_key(("iou", 10, 0.5), (str, int, float))
    ('iou', 10, 0.5)
    """
    def fits(value: object, kind: type) -> bool:
        if kind is str:
            return isinstance(value, str) and bool(value)
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else int):
            return False
        return 0 <= value <= 1 if kind is float else value >= 1

    if not isinstance(key, tuple) or len(key) != len(types) or not all(map(fits, key, types)):
        raise ParameterError(f"expected a key of {', '.join(kind.__name__ for kind in types)}, found {key!r:.120}")
    return key


def empty_query_mask(ideal: dict[str, np.ndarray], measures: Sequence[str], queries: int) -> np.ndarray:
    """Queries whose pool holds no item of positive relevance under any of ``measures``.

    ``ideal[measure]`` holds each query's best relevance values, descending. Without a
    relevance measure (a table of label metrics only) no query is empty.

    >>> ideal = {"iou": np.array([[0.0], [0.5], [0.0]]), "nn-iou": np.array([[0.0], [0.5], [0.2]])}
    >>> empty_query_mask(ideal, ["iou", "nn-iou"], 3).tolist(), empty_query_mask(ideal, ["iou"], 3).tolist()
    ([True, False, False], [True, False, True])
    """
    empty = np.full(queries, bool(measures))
    for measure in measures:
        empty &= ideal[measure][:, 0] <= 0
    return empty


class KeptScores:
    """The values of a run's metrics already computed (before the table's rule for empty queries), by metric and
    the setting of its own relevance measure, kept while the run lives and within :data:`KEPT_SCORE_BYTES` (oldest
    dropped first). Moving alpha then recomputes nn-IoU's metrics only: IoU's and the label metrics are read back."""

    def __init__(self, store: Kept, settings: dict[str, tuple]):
        self.store, self.settings = store, settings

    def values(self, spec: MetricSpec, inputs: MetricInputs) -> np.ndarray:
        """``spec.compute(inputs)``, read back when computed before under the same setting; a fresh array."""
        key = (spec.name, self.settings.get(spec.relevance) if spec.relevance else None)
        kept = self.store.get(key)
        if kept is not None:
            return kept.copy()
        value = spec.compute(inputs)
        self.store.put(key, value.copy(), KEPT_SCORE_BYTES)
        return value


def _score(name: str, query_ids: tuple[str, ...], inputs: MetricInputs, specs: list[MetricSpec], measures: list[str],
           counts: dict[str, int], empty_queries: str, kept: KeptScores | None = None) -> SystemResult:
    """Every metric of one run, with the table's rule for empty queries applied to all of them alike."""
    empty = empty_query_mask(inputs.ideal, measures, len(query_ids))
    values = {}
    for spec in specs:
        value = kept.values(spec, inputs) if kept is not None else spec.compute(inputs)
        if spec.relevance is not None and spec.family.reads_relevance:
            # Not empty, yet 0/0 for this metric's own measure or threshold: nothing relevant to find, 0.
            value[np.isnan(value) & ~empty] = 0.0
            value[empty] = np.nan if empty_queries == "exclude" else 0.0
        elif empty_queries == "exclude":
            value[empty] = np.nan
        values[spec.name] = value
    counts = {**counts, "queries_empty": int(empty.sum())}
    for spec in specs:
        excluded = int(np.isnan(values[spec.name]).sum())
        if excluded:
            counts[f"excluded[{spec.name}]"] = excluded
    return SystemResult(name, query_ids, values, counts)
