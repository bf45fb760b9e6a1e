"""Tied scores in a run, and the two orders an evaluation may give them (``Relevance.ties``).

A run's scores order each query's list; where two items of a query have the same score, a rule orders them:

- ``"rank"`` (ours, the default): score descending, then the rank written in the file ascending (docs/DESIGN.md §1), the
  order the run's author wrote. The readers order every list this way (:mod:`evalcore.readers.run_columns`).
- ``"trec_eval"``: the order of trec_eval (and so of pytrec_eval and ir_measures, which evaluate through it): the
  score as trec_eval holds it, a C ``float`` (IEEE float32), descending, then the document ID descending in byte
  order (``strcmp``); the rank column is ignored. Source: trec_eval ``form_res_rels.c``, ``comp_sim_docno``
  (``sim`` is a ``float`` in ``trec_eval.h``). Two scores that differ only beyond float32's precision (0.5000000001
  and 0.5) tie there, though they are distinct here.

Python's ``str`` order is the order of code points, which is the byte order of UTF-8 (its design guarantees it),
so sorting IDs as ``str`` is ``strcmp`` on the bytes trec_eval reads. A run without scores (a CSV run without a
score column, a ranking computed by the engine) has only its ranks: both rules leave it as it is.

One query's functions (:func:`trec_eval_order`, :func:`query_ties`) are the definitions; :func:`trec_eval_permutation`
and :func:`tie_counts` compute the same over every list of a run at once (tested equal on random runs).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from evalcore.data import RankedLists, RankedScores, Run
from evalcore.errors import CBIRLensError

TIE_ORDERS = ("rank", "trec_eval")


def as_float32(scores) -> np.ndarray:
    """Scores as trec_eval keeps them: each (a double, as ``atof`` reads it) rounded to the nearest C ``float``;
    beyond float32's range, infinite (as the C conversion gives on IEEE machines).

    >>> as_float32([0.5000000001, 0.5, 1e39]).tolist()
    [0.5, 0.5, inf]
    """
    with np.errstate(over="ignore"):
        return np.asarray(scores, dtype=np.float64).astype(np.float32)


# --- one query ------------------------------------------------------------------------------------------------------

def trec_eval_order(documents: Sequence[str], scores: Sequence[float]) -> list[int]:
    """The positions of one query's items in trec_eval's order: float32 score descending, then document ID
    descending (byte order).

    >>> trec_eval_order(["a", "b"], [0.5, 0.5])  # tied: b before a
    [1, 0]
    >>> trec_eval_order(["a", "b"], [0.5000000001, 0.5])  # equal as float32: tied too
    [1, 0]
    >>> trec_eval_order(["a", "b", "c"], [0.25, 0.75, 0.5])
    [1, 2, 0]
    """
    keys = as_float32(scores).tolist()
    if len(keys) != len(documents):
        raise CBIRLensError(f"{len(documents)} documents need as many scores, found {len(keys)}")
    return sorted(range(len(keys)), key=lambda i: (keys[i], documents[i]), reverse=True)


@dataclass(frozen=True)
class QueryTies:
    """Ties in one query's list: ``tied`` two items share a score as trec_eval reads it (float32; ties as written
    included), ``tied_as_written`` two share a score as written (float64), ``order_differs`` the order by rank
    (ours) is not trec_eval's."""

    tied: bool
    tied_as_written: bool
    order_differs: bool


def query_ties(documents: Sequence[str], scores: Sequence[float]) -> QueryTies:
    """:class:`QueryTies` of one query whose ``documents`` are listed in the run's order (ours: score descending,
    then rank ascending) with their ``scores``.

    >>> query_ties(["a", "b"], [0.5, 0.5])  # ours puts a first (rank 1), trec_eval b
    QueryTies(tied=True, tied_as_written=True, order_differs=True)
    >>> query_ties(["b", "a"], [0.5000000001, 0.5])  # tied as float32 only; b first either way
    QueryTies(tied=True, tied_as_written=False, order_differs=False)
    >>> query_ties(["a", "b"], [0.75, 0.5])
    QueryTies(tied=False, tied_as_written=False, order_differs=False)
    """
    written = [float(s) for s in scores]
    read = as_float32(written).tolist()
    order = trec_eval_order(documents, written)
    return QueryTies(len(set(read)) < len(read), len(set(written)) < len(written), order != list(range(len(order))))


# --- every query of a run -------------------------------------------------------------------------------------------

def run_scores(run: Run) -> tuple[RankedLists, np.ndarray] | None:
    """A run's lists and their scores as one array in the lists' order; None for a run without scores."""
    if not run.scores:
        return None
    lists = RankedLists.from_mapping(run.rankings)
    if isinstance(run.scores, RankedScores) and run.scores.lists is lists:
        return lists, run.scores.values
    lengths = lists.lengths()
    for query, length in zip(lists.queries, lengths.tolist()):
        if query not in run.scores or len(run.scores[query]) != length:
            raise CBIRLensError(f"run {run.name!r}: query {query!r} needs one score per ranked item ({length})")
    values = np.fromiter(itertools.chain.from_iterable(run.scores[q] for q in lists.queries), dtype=np.float64,
                         count=int(lengths.sum()))
    return lists, values


def _owners(lists: RankedLists) -> np.ndarray:
    """The query (its position) of each item; 32-bit where that suffices, as it does for any run read here."""
    dtype = np.int32 if len(lists) < 2**31 else np.int64
    return np.repeat(np.arange(len(lists), dtype=dtype), lists.lengths())


def _name_ranks(lists: RankedLists) -> np.ndarray:
    """Each document code's place among the run's distinct IDs sorted as ``str`` (= UTF-8 bytes, ``strcmp``)."""
    names = np.asarray(lists.names, dtype=object)
    ranks = np.empty(len(names), dtype=np.int64)
    ranks[np.argsort(names, kind="stable")] = np.arange(len(names))
    return ranks


def _same_query(owners: np.ndarray) -> np.ndarray:
    """For each item but the first: whether it belongs to the query of the item before it."""
    return owners[1:] == owners[:-1]


def _scores_descend(written: np.ndarray, same: np.ndarray) -> bool:
    """Whether every list is in score order (non-increasing), as the readers order them: then items tied as written,
    and as float32 (rounding keeps the order), stand next to each other, and no sort is needed to find them."""
    return bool(np.all(~same | (written[1:] <= written[:-1])))


def trec_eval_permutation(lists: RankedLists, scores: np.ndarray) -> np.ndarray:
    """:func:`trec_eval_order` of every list at once: the positions (into ``lists.documents``) of each query's
    items in trec_eval's order, queries in their order.

    Lists in score order (the readers') are only reordered within each run of float32-equal scores: one sort of
    an integer key (run, document ID descending), about 1.5 s for 10 million items all tied; others by a full sort.

    >>> lists = RankedLists(("q1", "q2"), ("a", "b", "c"), np.array([0, 1, 2, 0]), np.array([0, 2, 4]))
    >>> trec_eval_permutation(lists, np.array([0.5, 0.5, 0.9, 0.1])).tolist()
    [1, 0, 2, 3]
    >>> trec_eval_permutation(lists, np.array([0.5, 0.6, 0.1, 0.9])).tolist()  # not in score order
    [1, 0, 3, 2]
    """
    written = np.asarray(scores, dtype=np.float64)
    read = as_float32(written)
    owners = _owners(lists)
    same = _same_query(owners)
    descending = -_name_ranks(lists)[lists.documents]
    if _scores_descend(written, same):
        run_of_item = np.concatenate(([0], np.cumsum(~same | (read[1:] != read[:-1]))))
        names = len(lists.names)
        return np.argsort(run_of_item * names + (descending + names - 1), kind="stable")
    return np.lexsort((descending, -read, owners))


@dataclass(frozen=True)
class TieCounts:
    """Queries of a run with tied scores (see :class:`QueryTies`): ``queries`` in the run, ``tied`` with a tie as
    trec_eval reads scores (float32), ``tied_only_as_float32`` of those with distinct scores as written, and
    ``order_differs`` where the tie order by rank (ours) and trec_eval's differ, so that the two tie orders may
    give different numbers."""

    queries: int
    tied: int
    tied_only_as_float32: int
    order_differs: int

    def as_counts(self) -> dict[str, int]:
        """The counts an evaluation reports per system (``counts`` of ``evaluate --json``)."""
        return {"queries_tied": self.tied, "queries_tied_only_as_float32": self.tied_only_as_float32,
                "queries_tie_order_differs": self.order_differs}


def tie_counts(lists: RankedLists, scores: np.ndarray) -> TieCounts:
    """:func:`query_ties` of every query of a run, counted; ``lists`` in the run's order (ours).

    Lists in score order (the readers') are read in one pass: tied items stand next to each other, and trec_eval's
    order differs from ours where two neighbours tied as float32 have their IDs in ascending order. Others are
    sorted first.

    >>> lists = RankedLists(("q1", "q2", "q3"), ("a", "b"), np.array([0, 1, 1, 0, 0, 1]), np.array([0, 2, 4, 6]))
    >>> tie_counts(lists, np.array([0.5, 0.5, 0.5000000001, 0.5, 0.9, 0.1]))
    TieCounts(queries=3, tied=2, tied_only_as_float32=1, order_differs=1)
    >>> tie_counts(lists, np.array([0.5, 0.5, 0.5, 0.5000000001, 0.1, 0.9]))  # not in score order
    TieCounts(queries=3, tied=2, tied_only_as_float32=1, order_differs=2)
    """
    owners = _owners(lists)
    written = np.asarray(scores, dtype=np.float64)
    read = as_float32(written)
    same = _same_query(owners)

    def flagged(pairs: np.ndarray, owner_of_second: np.ndarray) -> np.ndarray:
        flags = np.zeros(len(lists), dtype=bool)
        flags[owner_of_second[pairs]] = True
        return flags

    if _scores_descend(written, same):
        tied_read = np.flatnonzero(same & (read[1:] == read[:-1]))  # item i + 1 tied with item i, as float32
        tied_written = np.flatnonzero(same & (written[1:] == written[:-1]))
        names = _name_ranks(lists)
        ascending = names[lists.documents[tied_read + 1]] > names[lists.documents[tied_read]]  # trec_eval: descending
        as_read, as_written = flagged(tied_read, owners[1:]), flagged(tied_written, owners[1:])
        differs = flagged(tied_read[ascending], owners[1:])
    else:
        def tied(values: np.ndarray) -> np.ndarray:
            order = np.lexsort((values, owners))
            ordered, owner = values[order], owners[order]
            return flagged((ordered[1:] == ordered[:-1]) & (owner[1:] == owner[:-1]), owner[1:])

        as_read, as_written = tied(read), tied(written)
        moved = trec_eval_permutation(lists, written) != np.arange(len(written))
        differs = np.zeros(len(lists), dtype=bool)
        differs[owners[moved]] = True
    return TieCounts(len(lists), int(as_read.sum()), int((as_read & ~as_written).sum()), int(differs.sum()))


def run_tie_counts(run: Run) -> TieCounts | None:
    """:func:`tie_counts` of a run; None for a run without scores."""
    found = run_scores(run)
    return None if found is None else tie_counts(*found)


def in_tie_order(run: Run, ties: str) -> Run:
    """The run with each list in the order of the tie rule ``ties`` (:data:`TIE_ORDERS`): itself under ``"rank"``
    (the readers' order), or for a run without scores, or where trec_eval's order is the same.

    >>> run = Run("s", {"q": ("a", "b")}, scores={"q": (0.5, 0.5)})
    >>> in_tie_order(run, "trec_eval").rankings["q"], in_tie_order(run, "rank").rankings["q"]
    (('b', 'a'), ('a', 'b'))
    """
    if ties not in TIE_ORDERS:
        raise CBIRLensError(f"ties must be one of {TIE_ORDERS}, got {ties!r}")
    found = run_scores(run) if ties == "trec_eval" else None
    if found is None:
        return run
    lists, scores = found
    order = trec_eval_permutation(lists, scores)
    if np.array_equal(order, np.arange(len(order))):
        return run
    ordered = RankedLists(lists.queries, lists.names, lists.documents[order], lists.offsets)
    return Run(run.name, ordered, run.source, RankedScores(ordered, scores[order]))


def tie_message(system: str, counts: Mapping[str, int], ties: str, option: str = "--ties") -> str | None:
    """One line for a person about a system's tied queries (the counts of :meth:`TieCounts.as_counts` beside
    ``queries_in_run``), or None when it has none; ``option`` names the switch of the tie order where it is read.

    >>> message = tie_message("s", {"queries_in_run": 4, "queries_tied": 2, "queries_tied_only_as_float32": 1,
    ...                                 "queries_tie_order_differs": 1}, "rank")
    >>> message[:100]
    "system 's': 2 of 4 queries have tied scores (1 only as trec_eval reads scores, as float32); in 1 the"
    >>> print(tie_message("s", {"queries_tied": 0}, "rank"))
    None
    """
    tied = counts.get("queries_tied", 0)
    if not tied:
        return None
    only = counts.get("queries_tied_only_as_float32", 0)
    differs = counts.get("queries_tie_order_differs", 0)
    total = counts.get("queries_in_run")
    text = f"system {system!r}: {tied:,}{f' of {total:,}' if total is not None else ''} queries have tied scores"
    if only:
        text += f" ({only:,} only as trec_eval reads scores, as float32)"
    text += f"; in {differs:,} the tie order changes the ranking. "
    if ties == "trec_eval":
        return text + (f"Ties are ordered as trec_eval orders them ({option} trec_eval: score as float32, then "
                       "document ID descending)")
    return text + (f"Ties are ordered by rank ({option} rank, the default); trec_eval orders them by document ID "
                   f"descending: {option} trec_eval gives its numbers")
