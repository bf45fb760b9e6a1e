"""Ranking metrics (docs/DESIGN.md §3): one small function per query, vectorised batches that
agree with it, and a registry of canonical metric names.

Canonical names (``K`` a positive integer). A prefix picks the relevance: none = IoU,
``nn-`` = nn-IoU, ``qrels-`` = the grades of a TREC qrels file. NDCG of concept relevance
is called ``CUI@K``; of judged grades, ``qrels-NDCG@K``.

========================  =====================================================
``CUI@K`` / ``nn-CUI@K``  NDCG@K with IoU / nn-IoU relevance, ideal over the pool
``P@K[modality]``         Precision@K on labels (also ``[organ]``, ``[modality+organ]``)
``MAP@K`` / ``nn-MAP@K``  trec_eval ``map_cut_K``: average precision in the top K divided by R
``MAP-min@K`` / ...       ours: the same sum divided by min(K, R) (not trec_eval's; not in the standard report)
``R@K`` / ``nn-R@K``      recall@K against all relevant images of the pool
``RBP`` / ``nn-RBP``      rank-biased precision, p = 0.95, over the whole list
``ERR@K`` / ``nn-ERR@K``  expected reciprocal rank, stopping probability = relevance
``CAG@K`` / ``nn-CAG@K``  Context-Aware Gain with the DCG discount, cut at K
``CAG-RBP`` / ``nn-...``  Context-Aware Gain with the RBP discount over the list and beyond
``CUI@K{dice}``, ...      any IoU-family metric with another relevance measure
========================  =====================================================

trec_eval-compatible definitions (``nn-`` and ``qrels-`` variants too):

==============================  ===============================================
``CUI@K`` / ``qrels-NDCG@K``    trec_eval ``ndcg_cut_K`` at linear gain (the default)
``MAP@K``                       trec_eval ``map_cut_K``: average precision divided by R (``AP@K`` reads as it)
``Prec@K``                      trec_eval ``P_K``: relevant items in the top K, over K
``R@K``                         trec_eval ``recall_K`` (our definition is the same)
``recip_rank`` (``MRR``)        trec_eval ``recip_rank``: 1 / rank of the first relevant item
``Rprec``                       trec_eval ``Rprec``: relevant items in the top R, over R
``success@K``                   trec_eval ``success_K``: 1 when the top K hold a relevant item
``bpref``                       trec_eval ``bpref`` (concepts: the pool is judged whole)
``infAP``                       trec_eval ``infAP`` (concepts: the pool is judged whole)
``iprec_at_recall_0.00`` ...    trec_eval ``iprec_at_recall_L``, L = 0.0 ... 1.0 (current trec_eval's rounding)
``gm_map``                      trec_eval ``gm_map``: AP per query, geometric mean (floor 1e-5) over queries
``num_rel_ret``                 trec_eval ``num_rel_ret`` per query (its summary is the sum; ours the mean)
``judged@K`` (``Judged@K``)     ir_measures ``Judged@K``: judged share of the top K (not in trec_eval)
==============================  ===============================================

trec_eval's measures of the whole list (issue 67) read each list to rank :data:`MAX_K` (10,000), as trec_eval reads
it whole, and are offered on request only (in no standard report). Which items are judged (bpref, infAP, judged@K):
under qrels a grade >= 0, as trec_eval reads the file (a negative grade is "in the pool but unjudged", an item
without a judgment outside the pool); under concept relevance the concept sets judge the whole pool, so every image
with a concept set is judged, an ID without one (or the query's own image kept in its list) is outside the pool,
and bpref's judged non-relevant items are the pool's images that are not relevant. We define them rather than refuse
them there: with the pool judged whole bpref is still its own measure (Buckley and Voorhees 2004 study it so), infAP
is the list's AP but where IDs without a concept set stand, and judged@K says how much of the top K the concept sets
cover.

Until issue 34, ``MAP@K`` named the min(K, R) variant, which trec_eval does not offer; a reader copying "MAP@10"
from a report then quoted a number no other tool gives (0.9165 beside trec_eval's 0.3095 for retrieval by IoU on
ROCOv2 test, depth 100). ``MAP@K`` is now trec_eval's definition and ours is ``MAP-min@K``.

"Relevant" (MAP, MAP-min, Prec, R) means relevance >= the threshold (concepts; within 1e-12,
:func:`evalcore.relevance.formulas.reaching`) or grade >= the relevance level (qrels, trec_eval's ``-l``,
default 1). Queries with no relevant item are
handled once for a whole table by :mod:`evalcore.evaluation.evaluator` (``empty_queries``).

A relevance metric under a measure other than IoU and nn-IoU carries the measure's registry
key in braces (:mod:`evalcore.relevance.measures`): ``CUI@10{tversky}``, ``MAP@5{nn-iou-depth}``,
``RBP{dice}``. The measure's parameters are the evaluation's, as alpha and n are for ``nn-``.
``CUI@10{iou}`` and ``CUI@10{nn-iou}`` are read as ``CUI@10`` and ``nn-CUI@10``.

Inside, every relevance is alike: a :class:`MetricSpec` is a family of :data:`FAMILIES`, K, a label target and
the key of the relevance measure it reads ("iou", "nn-iou", "qrels", "dice", ...), and the family's formula
reads that key's relevance. Prefixes and braces are only how names show the key: :data:`NAME_PREFIXES` states
the rule, :attr:`MetricSpec.name` applies it and :func:`parse_metric` inverts it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from evalcore.errors import ParameterError
from evalcore.relevance.formulas import reaching
from evalcore.relevance.measures import MEASURES
from evalcore.stats.compare import MeanScale

RBP_PERSISTENCE = 0.95
CAG_WINDOW = 10
GAINS = ("linear", "exponential")
LABEL_TARGETS = ("modality", "organ", "modality+organ")
#: The least AP a query brings to gm_map's geometric mean (trec_eval.h ``MIN_GEO_MEAN``): an AP of 0 would make it 0.
MIN_GEO_MEAN = 1e-5
#: The smoothing of infAP's precision among the judged items above a rank (trec_eval.h ``INFAP_EPSILON``).
INFAP_EPSILON = 1e-5
#: The recall levels of the 11-point interpolated precision, ``iprec_at_recall_0.00`` ... ``iprec_at_recall_1.00``:
#: i / 10 is the same double as trec_eval's literal 0.1, ..., 1.0 (a correctly rounded division).
RECALL_LEVELS = tuple(i / 10 for i in range(11))
IPREC_FAMILY = "iprec_at_recall_"
#: The judgment state of each rank of a list (:attr:`MetricInputs.states`), as trec_eval's ``form_res_rels.c`` reads
#: a retrieved document: judged (a grade >= 0; under concept relevance an image with a concept set), in the pool but
#: unjudged (a negative grade, trec_eval's ``RELVALUE_UNJUDGED``), not in the pool (no judgment, an ID without a
#: concept set, the query's own image kept in its list: ``RELVALUE_NONPOOL``), and past the end of the list.
JUDGED, UNJUDGED, NOT_IN_POOL, PAST_END = 1, 0, -1, -2


def gain_values(relevance, gain: str = "linear"):
    """Linear gain ``rel`` or exponential gain ``2^rel - 1``.

    >>> gain_values(np.array([0.0, 0.5, 1.0]), "exponential").round(4).tolist()
    [0.0, 0.4142, 1.0]
    """
    if gain == "linear":
        return relevance
    if gain == "exponential":
        return np.power(2.0, relevance) - 1.0
    raise ParameterError(f"gain must be one of {GAINS}, got {gain!r}")


def dcg_discounts(k: int) -> np.ndarray:
    """``1 / log2(i + 1)`` for ranks i = 1..k."""
    return 1.0 / np.log2(np.arange(2, k + 2))


# --- one query ---------------------------------------------------------------------------

def ndcg(relevances: Sequence[float], ideal: Sequence[float], k: int, gain: str = "linear") -> float | None:
    """``NDCG@K = DCG@K / IDCG@K`` with ``DCG@K = sum_{i<=K} gain(rel_i) / log2(i + 1)``.

    ``ideal`` holds the pool's best relevance values in descending order. Returns
    None when IDCG = 0; :mod:`evalcore.evaluation.evaluator` then applies the table's rule for
    queries with no relevant item (trec_eval scores them 0).

    At linear gain this is trec_eval's ``ndcg_cut_K`` (Järvelin & Kekäläinen 2002, gain =
    the judged grade, ideal over all judged items), ranx's ``ndcg@K`` and ir_measures'
    ``nDCG@K`` with relevance as the grade; the exponential gain is ranx's ``ndcg_burges@K``.

    >>> round(ndcg([0.5, 1.0, 0.0], [1.0, 0.5, 0.0], 3), 6)  # (0.5 + 0.63093) / (1 + 0.31546)
    0.859719
    """
    def dcg(values: Sequence[float]) -> float:
        return sum(float(gain_values(np.float64(v), gain)) / math.log2(i + 2) for i, v in enumerate(values[:k]))

    ideal_dcg = dcg(ideal)
    return dcg(relevances) / ideal_dcg if ideal_dcg > 0 else None


def precision(matches: Sequence[bool], k: int) -> float:
    """Fraction of the top K that match (or are relevant); a short list counts its gaps as misses.

    The same formula is trec_eval's ``P_K`` (``Prec@K`` here), ir_measures' ``P@K`` and ranx's
    ``precision@K`` when the matches are "relevance >= the relevance level".

    >>> precision([True, False, True], 5)
    0.4
    """
    return sum(bool(m) for m in matches[:k]) / k


def average_precision(relevant: Sequence[bool], k: int, relevant_in_pool: int) -> float | None:
    """Ours (``MAP-min@K``): ``sum_{i<=K} P@i * rel_i / min(K, R)``, R = relevant images in the pool; None when R = 0.

    Differs from trec_eval's ``map_cut_K``, ranx's ``map@K`` and ir_measures' ``AP@K``, which
    divide by R (:func:`trec_average_precision`, our ``MAP@K``); the two agree when R <= K. The
    same normalisation as Kaggle's ``apk`` (ml_metrics), so that a perfect top K scores 1.

    >>> average_precision([True, False, True], 3, 2)  # (1/1 + 2/3) / 2
    0.8333333333333333
    """
    if relevant_in_pool == 0:
        return None
    return _precision_sum(relevant, k) / min(k, relevant_in_pool)


def trec_average_precision(relevant: Sequence[bool], k: int, relevant_in_pool: int) -> float | None:
    """``MAP@K`` (per query: AP@K) ``= sum_{i<=K} P@i * rel_i / R``; None when R = 0 (trec_eval then scores 0).

    Source: trec_eval ``m_map_cut.c`` (``map_cut_K``); the same as ranx ``map@K`` and
    ir_measures ``AP@K``. :func:`average_precision` (``MAP-min@K``) divides by min(K, R)
    instead, so that a perfect top K scores 1 even when R > K.

    >>> trec_average_precision([True, False, True], 3, 4)  # (1/1 + 2/3) / 4
    0.41666666666666663
    >>> average_precision([True, False, True], 3, 4)  # (1/1 + 2/3) / 3
    0.5555555555555555
    """
    if relevant_in_pool == 0:
        return None
    return _precision_sum(relevant, k) / relevant_in_pool


def _precision_sum(relevant: Sequence[bool], k: int) -> float:
    """``sum_{i<=K} P@i * rel_i``, the numerator shared by ``MAP@K`` and ``MAP-min@K``."""
    hits = 0
    total = 0.0
    for i, is_relevant in enumerate(relevant[:k], start=1):
        if is_relevant:
            hits += 1
            total += hits / i
    return total


def recall(relevant: Sequence[bool], k: int, relevant_in_pool: int) -> float | None:
    """``R@K = |relevant in top K| / R``; None when R = 0 (trec_eval then scores 0).

    The same definition as trec_eval's ``recall_K``, ranx's ``recall@K`` and ir_measures' ``R@K``.

    >>> recall([True, False, True], 2, 4)
    0.25
    """
    if relevant_in_pool == 0:
        return None
    return sum(bool(r) for r in relevant[:k]) / relevant_in_pool


def rank_biased_precision(relevances: Sequence[float], p: float = RBP_PERSISTENCE) -> float:
    """``RBP = (1 - p) sum_i rel_i p^(i-1)`` (Moffat & Zobel 2008).

    >>> round(rank_biased_precision([1.0, 0.5], 0.5), 6)  # 0.5 * (1 + 0.25)
    0.625
    """
    return (1 - p) * sum(r * p ** i for i, r in enumerate(relevances))


def expected_reciprocal_rank(relevances: Sequence[float], k: int) -> float:
    """``ERR@K = sum_{r<=K} (1/r) R_r prod_{i<r} (1 - R_i)`` with ``R_i = rel_i`` (Chapelle et al. 2009).

    >>> expected_reciprocal_rank([0.5, 1.0], 2)  # 0.5 + 0.5 * 1.0 / 2
    0.75
    """
    not_stopped = 1.0
    total = 0.0
    for r, rel in enumerate(relevances[:k], start=1):
        total += not_stopped * rel / r
        not_stopped *= 1 - rel
    return total


def context_aware_gain(relevances: Sequence[float], discounts: Sequence[float], window: int = CAG_WINDOW) -> float:
    """Context-Aware Gain (Shao et al., SIGIR 2019): ``sum_k g(k) d(k)`` over the given discounts.

    ``o_k = max(r_1..r_k)``, ``r'_k = r_k^2 / o_k`` (0 when o_k = 0) and
    ``g(k) = (r'_{k-w+1} + ... + r'_k) / w``, the sum running over the positions that
    exist (so the first w - 1 windows are shorter, still divided by w).

    >>> context_aware_gain([0.5, 1.0], [1.0, 1.0], window=2)  # r' = 0.5, 1.0; g = 0.25, 0.75
    1.0
    """
    total = 0.0
    best = 0.0
    adjusted: list[float] = []
    for k, (rel, discount) in enumerate(zip(relevances, discounts)):
        best = max(best, rel)
        adjusted.append(rel * rel / best if best > 0 else 0.0)
        total += sum(adjusted[max(0, k - window + 1): k + 1]) / window * discount
    return total


def context_aware_gain_rbp(relevances: Sequence[float], p: float = RBP_PERSISTENCE, window: int = CAG_WINDOW) -> float:
    """``CAG-RBP``: :func:`context_aware_gain` with the RBP discount ``d(k) = (1 - p) p^(k-1)`` over the whole
    ranking, read as RBP reads it: the list, then non-relevant items without end.

    The windows of the last ``w - 1`` items reach past the end of the list, so the sum runs to
    rank ``len + w - 1`` (every later window is empty). The value thus depends on the list alone:
    not on how many non-relevant items follow it, nor on the width of the array holding it (the
    evaluation depth, set by the longest list and the largest K of a table).

    >>> context_aware_gain_rbp([1.0], 0.5, window=2)  # r' = 1, 0; g = 1/2, 1/2; d = 1/2, 1/4
    0.375
    """
    ranking = [*relevances, *[0.0] * (window - 1)]
    return context_aware_gain(ranking, [(1 - p) * p ** i for i in range(len(ranking))], window)


# --- trec_eval's measures of the whole list (and judged@K), one query ---------------------
# ``relevant`` is the list (relevance at least the threshold or the relevance level), ``states`` the judgment state
# of each of its items (JUDGED, UNJUDGED, NOT_IN_POOL); a relevant item is a judged one. The list is read whole, as
# trec_eval reads it; the evaluator reads it to rank MAX_K (10,000).

def _checked_cutoff(k: int) -> int:
    """``k`` if it is a cut-off (a whole number >= 1), else a ParameterError."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParameterError(f"a cut-off K must be a whole number >= 1, got {k!r:.60}")
    return int(k)


def _checked_level(level: float) -> float:
    """``level`` if it is a recall level in [0, 1], else a ParameterError."""
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0 <= level <= 1:
        raise ParameterError(f"a recall level must lie in [0, 1], got {level!r:.60}")
    return float(level)


def _checked_states(relevant: np.ndarray, states: np.ndarray) -> np.ndarray:
    """``states`` if it gives a judgment state to every rank of ``relevant`` (the same Q x D shape), else a
    ParameterError."""
    states = np.asarray(states)
    if states.shape != relevant.shape:
        raise ParameterError(f"judgment states must be one per rank of the lists ({relevant.shape}), got {states.shape}")
    return states

def reciprocal_rank(relevant: Sequence[bool]) -> float:
    """``recip_rank = 1 / rank of the first relevant item``, 0 when the list holds none; its mean is the MRR.

    Source: trec_eval ``m_recip_rank.c``; the same as ir_measures' ``RR`` and ranx's ``mrr`` over the whole list.

    >>> reciprocal_rank([False, False, True, True]), reciprocal_rank([False])
    (0.3333333333333333, 0.0)
    """
    return next((1 / rank for rank, is_relevant in enumerate(relevant, start=1) if is_relevant), 0.0)


def r_precision(relevant: Sequence[bool], relevant_in_pool: int) -> float | None:
    """``Rprec = |relevant in the top R| / R``, R = relevant items of the pool (a short list's gaps are misses); None
    when R = 0 (trec_eval then scores 0).

    Source: trec_eval ``m_Rprec.c`` (Buckley and Voorhees 2005); the same as ir_measures' ``Rprec`` and ranx's
    ``r-precision``.

    >>> r_precision([True, False, True, True], 3)  # 2 of the top 3
    0.6666666666666666
    """
    if relevant_in_pool == 0:
        return None
    return sum(bool(r) for r in relevant[:relevant_in_pool]) / relevant_in_pool


def success(relevant: Sequence[bool], k: int) -> float:
    """``success@K``: 1 when the top K hold a relevant item, else 0 (a short list's gaps are misses).

    Source: trec_eval ``m_success.c`` (``success_K``; it prints K = 1, 5 and 10 unless told ``-m success.K``); the
    same as ir_measures' ``Success@K`` and ranx's ``hit_rate@K``.

    >>> success([False, True], 1), success([False, True], 5)
    (0.0, 1.0)
    """
    return 1.0 if any(relevant[:_checked_cutoff(k)]) else 0.0


def relevant_retrieved(relevant: Sequence[bool]) -> int:
    """``num_rel_ret``: the relevant items of the list.

    Source: trec_eval ``m_num_rel_ret.c``; ir_measures' ``NumRelRet``. trec_eval's summary line ("all") prints the
    sum over queries; ours, as for every metric, is the mean (the sum over the queries evaluated, divided by them).

    >>> relevant_retrieved([True, False, True])
    2
    """
    return sum(bool(r) for r in relevant)


def recall_cutoff(level: float, relevant_in_pool):
    """The relevant items a recall level asks for, ``round(level x R)`` with halves away from 0 (C's ``lround``): an
    int for one R, an int array for an array.

    Source: the current trec_eval's ``m_iprec_at_recall.c`` (usnistgov/trec_eval; its test files print these
    values). Its comment says version 9 and before took ``(long) (level x R + 0.9)``, as the older trec_eval inside
    pytrec_eval-terrier 0.5.11 still does; that differs where the fraction of ``level x R`` lies in [0.1, 0.5): 0.1 x
    474 = 47.4 asks for 47 items here, 48 there.

    >>> recall_cutoff(0.3, 5), recall_cutoff(0.1, 474), recall_cutoff(0.5, np.array([3, 4])).tolist()
    (2, 47, [2, 2])
    """
    product = np.multiply(level, relevant_in_pool, dtype=np.float64)
    whole = np.floor(product)
    cutoff = (whole + (product - whole >= 0.5)).astype(np.int64)
    return int(cutoff) if cutoff.ndim == 0 else cutoff


def interpolated_precision(relevant: Sequence[bool], relevant_in_pool: int, level: float) -> float | None:
    """``iprec_at_recall_L = max {P@i : hits(i) >= round(L R)}``, the best precision at any rank i of the list where
    the relevant items found reach the recall level's count (:func:`recall_cutoff`), 0 where no rank reaches it; None
    when R = 0 (trec_eval then scores 0). At L = 0 every rank counts. The 11 levels 0.0, 0.1, ..., 1.0 are the points
    of the standard recall-precision graph.

    Source: trec_eval ``m_iprec_at_recall.c`` ("Int_Prec (rankX) == MAX (Prec (rankY)) for all Y >= X"); ir_measures'
    ``IPrec@L`` (through pytrec_eval). Differs from older trec_eval versions, and so from pytrec_eval-terrier 0.5.11
    and ir_measures, in rounding L x R (:func:`recall_cutoff`).

    >>> interpolated_precision([False, True, False, True], 2, 0.5)  # 1 item: best P@i from rank 2 on = 1/2
    0.5
    >>> interpolated_precision([False, True, False, True], 4, 1.0)  # 4 items: never reached
    0.0
    """
    level = _checked_level(level)
    if relevant_in_pool == 0:
        return None
    needed = recall_cutoff(level, relevant_in_pool)
    best, hits = 0.0, 0
    for rank, is_relevant in enumerate(relevant, start=1):
        hits += bool(is_relevant)
        if hits >= needed:
            best = max(best, hits / rank)
    return best


def bpref(relevant: Sequence[bool], states: Sequence[int], relevant_in_pool: int,
          nonrelevant_in_pool: int) -> float | None:
    """``bpref = (1/R) sum_{relevant r} (1 - min(n_r, R) / min(N, R))``, ``n_r`` = judged non-relevant items ranked
    above r (a term is 1 where ``n_r`` = 0), N = judged non-relevant items of the pool; items not judged are
    skipped (``states``: :data:`JUDGED`, ...). None when R = 0 (trec_eval then scores 0).

    Source: Buckley and Voorhees, SIGIR 2004; trec_eval ``m_bpref.c``, ir_measures' ``Bpref``. Under concept
    relevance every image of the pool is judged (by its concept set): N = pool size - R, and only IDs without a
    concept set (or the query's own image kept in its list) are skipped.

    >>> bpref([True, False, True, False, True], [1, 1, 1, -1, 1], 3, 1)  # 1 + (1 - 1/1) + (1 - 1/1), over 3
    0.3333333333333333
    """
    if relevant_in_pool == 0:
        return None
    total, nonrelevant = 0.0, 0
    for is_relevant, state in zip(relevant, states):
        if is_relevant:
            total += 1.0 - min(nonrelevant, relevant_in_pool) / min(nonrelevant_in_pool, relevant_in_pool) \
                if nonrelevant else 1.0
        elif state == JUDGED:
            nonrelevant += 1
    return total / relevant_in_pool


def inferred_average_precision(relevant: Sequence[bool], states: Sequence[int], relevant_in_pool: int
                               ) -> float | None:
    """``infAP = (1/R) sum_{relevant at 0-based rank j} E[P@(j+1)]`` with ``E = 1`` at j = 0 and otherwise
    ``1/(j+1) + j/(j+1) * (p_j / j) * ((r_j + e) / (r_j + n_j + 2e))``: of the j items above, ``p_j`` are in the
    pool (judged or not), ``r_j`` judged relevant and ``n_j`` judged non-relevant; items outside the pool count as
    non-relevant, unjudged items of the pool as relevant in the judged items' proportion (e = :data:`INFAP_EPSILON`).
    None when R = 0 (trec_eval then scores 0).

    Source: Yilmaz and Aslam, CIKM 2006; trec_eval ``m_infap.c`` (the same expression, evaluated in the same order),
    ir_measures' ``infAP``. With every item judged it is AP up to the smoothing (within 1e-5 here; trec_eval's test
    files print the same 4 decimals for both). Under concept relevance the pool is judged whole, so only IDs without
    a concept set (outside the pool) make it differ from the list's AP.

    >>> round(inferred_average_precision([True, False, True], [1, 0, 1], 2), 6)  # AP: (1 + 2/3) / 2 = 0.8333
    0.999997

    (``(1 + 1/3 + 2/3 * (2/2) * (1 + e) / (1 + 2e)) / 2``: the unjudged item above counts as relevant, as the one
    judged item above it is.)
    """
    if relevant_in_pool == 0:
        return None
    total, found, judged_nonrelevant, in_pool = 0.0, 0, 0, 0
    for j, (is_relevant, state) in enumerate(zip(relevant, states)):
        if is_relevant:
            if j == 0:
                total += 1.0
            else:
                total += 1.0 / (j + 1.0) + (j / (j + 1.0)) * (in_pool / j) * (
                    (found + INFAP_EPSILON) / (found + judged_nonrelevant + 2 * INFAP_EPSILON))
            found += 1
        elif state == JUDGED:
            judged_nonrelevant += 1
        in_pool += state in (JUDGED, UNJUDGED)
    return total / relevant_in_pool


def judged_share(states: Sequence[int], k: int) -> float:
    """``judged@K``: the share of the top K that is judged, over min(K, the list's length); 0 for an empty list.

    Source: ir_measures' ``Judged@K`` (a coverage check, not in trec_eval), which also divides by the list's length
    where it is shorter than K. A judged item is one with a grade >= 0: a negative grade is trec_eval's "in the pool
    but unjudged", while ir_measures counts every line of the qrels as judged. Under concept relevance every image
    with a concept set is judged (IDs without one, and the query's own image kept in its list, are not).

    >>> judged_share([1, 0, 1, -1], 3), judged_share([1, -1], 10), judged_share([], 5)
    (0.6666666666666666, 0.5, 0.0)
    """
    top = [state for state in states[:_checked_cutoff(k)] if state != PAST_END]
    return sum(state == JUDGED for state in top) / len(top) if top else 0.0


def floored_log(values: np.ndarray) -> np.ndarray:
    """``log(max(v, MIN_GEO_MEAN))``: the scale of gm_map's mean."""
    return np.log(np.maximum(values, MIN_GEO_MEAN))


#: gm_map's mean over queries: geometric, of the queries' AP floored at :data:`MIN_GEO_MEAN`.
GEOMETRIC = MeanScale("geometric", floored_log, np.exp)


def geometric_mean_average_precision(average_precisions: Sequence[float]) -> float:
    """``gm_map = exp(mean_q log(max(AP_q, 1e-5)))``: the geometric mean of the queries' average precision over the
    whole list (:func:`trec_average_precision` at K = the list's length), each at least :data:`MIN_GEO_MEAN`. A
    system's score, not a query's: a query's ``gm_map`` value is its AP, and the mean is taken on :data:`GEOMETRIC`'s
    scale (its interval and tests too, :class:`evalcore.stats.compare.MeanScale`).

    Source: Robertson, "On GMAP", CIKM 2006; trec_eval ``m_gm_map.c`` (``te_calc_avg_meas_s_gm``), which prints the
    mean only; pytrec_eval returns each query's ``log(max(AP, 1e-5))`` and exponentiates their mean
    (``compute_aggregated_measure``).

    >>> round(geometric_mean_average_precision([0.5, 0.02, 0.0]), 6)  # (0.5 x 0.02 x 1e-5)^(1/3)
    0.004642
    """
    return GEOMETRIC.mean(np.asarray(average_precisions, dtype=np.float64))


# --- batches: Q x D arrays, rows padded with 0 beyond each list ----------------------------

def ndcg_batch(relevances: np.ndarray, ideal: np.ndarray, k: int, gain: str = "linear") -> np.ndarray:
    """Vectorised :func:`ndcg`; NaN where IDCG = 0."""
    discounts = dcg_discounts(k)
    actual = _discounted(gain_values(relevances[:, :k], gain), discounts)
    best = _discounted(gain_values(ideal[:, :k], gain), discounts)
    return np.divide(actual, best, out=np.full(len(best), np.nan), where=best > 0)


def precision_batch(matches: np.ndarray, k: int) -> np.ndarray:
    return _share_of(_hits(matches, k), k)


def _share_of(hits: np.ndarray, k: int) -> np.ndarray:
    """Precision from :func:`_hits` of the top K: the hits over K (a short list's gaps are misses)."""
    return hits.sum(axis=1) / k


def average_precision_batch(relevant: np.ndarray, k: int, relevant_in_pool: np.ndarray) -> np.ndarray:
    """Vectorised :func:`average_precision` (ours, divided by min(K, R)); NaN where R = 0."""
    return _average_precision(_precision_sum_batch(relevant, k), k, relevant_in_pool)


def _average_precision(sums: np.ndarray, k: int, relevant_in_pool: np.ndarray) -> np.ndarray:
    """:func:`average_precision` from the sums of :func:`_precision_terms` over the top K."""
    denominator = np.minimum(k, relevant_in_pool).astype(np.float64)
    return np.divide(sums, denominator, out=np.full(len(sums), np.nan), where=denominator > 0)


def trec_average_precision_batch(relevant: np.ndarray, k: int, relevant_in_pool: np.ndarray) -> np.ndarray:
    """Vectorised :func:`trec_average_precision` (divided by R); NaN where R = 0."""
    return _trec_average_precision(_precision_sum_batch(relevant, k), relevant_in_pool)


def _trec_average_precision(sums: np.ndarray, relevant_in_pool: np.ndarray) -> np.ndarray:
    """:func:`trec_average_precision` from the sums of :func:`_precision_terms` over the top K."""
    denominator = relevant_in_pool.astype(np.float64)
    return np.divide(sums, denominator, out=np.full(len(sums), np.nan), where=denominator > 0)


def _hits(relevant: np.ndarray, width: int) -> np.ndarray:
    """The top ``width`` of boolean rows as 0/1 floats; ranks beyond the array (a short list's gaps) are misses, left
    out rather than written as zeros (a K far beyond the lists would cost queries x K)."""
    return relevant[:, :width].astype(np.float64)


def _precision_terms(hits: np.ndarray) -> np.ndarray:
    """``P@i * rel_i`` for the ranks i = 1..width of :func:`_hits`; the sum of the first K columns is the numerator
    of both AP definitions (:func:`_precision_sum`). A column depends only on the ranks up to it."""
    return np.cumsum(hits, axis=1) / np.arange(1, hits.shape[1] + 1) * hits


def _precision_sum_batch(relevant: np.ndarray, k: int) -> np.ndarray:
    return _precision_terms(_hits(relevant, k)).sum(axis=1)


def recall_batch(relevant: np.ndarray, k: int, relevant_in_pool: np.ndarray) -> np.ndarray:
    return _recall(_hits(relevant, k).sum(axis=1), relevant_in_pool)


def _recall(hits: np.ndarray, relevant_in_pool: np.ndarray) -> np.ndarray:
    """:func:`recall` from the relevant items found in the top K."""
    pool = relevant_in_pool.astype(np.float64)
    return np.divide(hits, pool, out=np.full(len(hits), np.nan), where=pool > 0)


def rbp_batch(relevances: np.ndarray, p: float = RBP_PERSISTENCE) -> np.ndarray:
    return relevances @ rbp_discounts(relevances.shape[1], p)


def err_batch(relevances: np.ndarray, k: int) -> np.ndarray:
    return _err_terms(relevances, k).sum(axis=1)


def _err_terms(relevances: np.ndarray, width: int) -> np.ndarray:
    """The terms ``(1/r) R_r prod_{i<r} (1 - R_i)`` of :func:`expected_reciprocal_rank` for ranks r = 1..width; ERR@K
    sums the first K columns. A column depends only on the ranks up to it."""
    rel = relevances[:, :width]  # ranks beyond the array add nothing, as in _hits
    not_stopped = np.cumprod(np.hstack([np.ones((len(rel), 1)), 1 - rel[:, :-1]]), axis=1)
    return not_stopped * rel / np.arange(1, rel.shape[1] + 1)


def cag_batch(relevances: np.ndarray, discounts: np.ndarray, window: int = CAG_WINDOW) -> np.ndarray:
    """Vectorised :func:`context_aware_gain` over the first ``len(discounts)`` ranks (the windows past the last that
    reaches an item add nothing and are not made)."""
    width = min(len(discounts), cag_rbp_width(relevances.shape[1], window))
    return cag_of_windows(cag_windows(relevances, width, window), discounts, window)


def cag_rbp_batch(relevances: np.ndarray, p: float = RBP_PERSISTENCE, window: int = CAG_WINDOW) -> np.ndarray:
    """Vectorised :func:`context_aware_gain_rbp`: rows padded with 0 beyond each list, as in every batch."""
    width = cag_rbp_width(relevances.shape[1], window)
    return cag_of_windows(cag_windows(relevances, width, window), rbp_discounts(width, p), window)


def cag_rbp_width(depth: int, window: int = CAG_WINDOW) -> int:
    """Ranks CAG-RBP sums over for lists of at most ``depth`` items: the last window reaching an item ends
    ``window - 1`` ranks after it."""
    return depth + window - 1


def rbp_discounts(width: int, p: float = RBP_PERSISTENCE) -> np.ndarray:
    """``(1 - p) p^(k-1)`` for ranks k = 1..width."""
    return (1 - p) * np.power(p, np.arange(width))


def cag_windows(relevances: np.ndarray, width: int, window: int = CAG_WINDOW) -> np.ndarray:
    """The window sums ``w g(k)`` of :func:`context_aware_gain` for ranks 1..width, ranks as rows (width x Q).

    Each row depends only on the ranks up to it, so the first K rows of a wider array are exactly those of width K:
    CAG at every cut-off can share one array (:meth:`MetricInputs.cag_windows`).
    """
    # Ranks as rows (k x Q), zero beyond the lists: the running max and sum then sweep whole contiguous rows. Each
    # step after the running max works in place: a fresh array per step cost more than its arithmetic.
    rel = np.zeros((width, len(relevances)), dtype=relevances.dtype)
    shown = min(width, relevances.shape[1])
    rel[:shown] = relevances[:, :shown].T
    best = _accumulate_rows(np.maximum, rel)
    positive = best > 0
    adjusted = np.multiply(rel, rel, out=rel)
    np.divide(adjusted, best, out=adjusted, where=positive)
    np.copyto(adjusted, 0.0, where=~positive)
    cumulative = _accumulate_rows(np.add, adjusted, out=adjusted)
    # Rank r sums adjusted r-w+1..r: the running sum less the one w ranks earlier (nothing for the first w ranks);
    # from the last rank back, so that each subtraction reads a running sum not yet replaced.
    for rank in range(width - 1, window - 1, -1):
        np.subtract(cumulative[rank], cumulative[rank - window], out=cumulative[rank])
    return cumulative


def _accumulate_rows(ufunc: np.ufunc, rows: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``ufunc.accumulate(rows, axis=0)``, a row at a time: each row is the previous result combined with the row,
    as accumulate computes it (the same values to the last bit), several times faster than NumPy's accumulate over
    the first axis of a wide array. ``out`` may be ``rows`` itself (each row is read before it is replaced).

    >>> _accumulate_rows(np.add, np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).tolist()
    [[1.0, 2.0], [4.0, 6.0], [9.0, 12.0]]
    """
    result = np.empty_like(rows) if out is None else out
    if len(rows) and result is not rows:
        result[0] = rows[0]
    for row in range(1, len(rows)):
        ufunc(result[row - 1], rows[row], out=result[row])
    return result


def cag_of_windows(windows: np.ndarray, discounts: np.ndarray, window: int = CAG_WINDOW) -> np.ndarray:
    """``sum_k g(k) d(k)`` from :func:`cag_windows`; ranks past its rows (windows reaching no item) add nothing."""
    shown = min(len(discounts), len(windows))
    return discounts[:shown] @ (windows[:shown] / window)


def _found(relevant: np.ndarray) -> np.ndarray:
    """Q x D: the relevant items in the top i, i = 1..D (at least one column: rank 1 of an empty list finds none)."""
    if relevant.shape[1] == 0:
        return np.zeros((len(relevant), 1), dtype=np.int64)
    return np.cumsum(relevant, axis=1, dtype=np.int64)


def reciprocal_rank_batch(relevant: np.ndarray) -> np.ndarray:
    """Vectorised :func:`reciprocal_rank`."""
    if relevant.shape[1] == 0:
        return np.zeros(len(relevant))
    first = relevant.argmax(axis=1)
    return np.where(relevant[np.arange(len(relevant)), first], 1.0 / (first + 1.0), 0.0)


def r_precision_batch(relevant: np.ndarray, relevant_in_pool: np.ndarray) -> np.ndarray:
    """Vectorised :func:`r_precision`; NaN where R = 0."""
    return _r_precision(_found(relevant), relevant_in_pool)


def _r_precision(found: np.ndarray, relevant_in_pool: np.ndarray) -> np.ndarray:
    """:func:`r_precision` from :func:`_found`: the count at rank R, or at the list's last rank where R lies beyond."""
    rank = np.clip(relevant_in_pool, 1, found.shape[1]) - 1
    return _recall(found[np.arange(len(found)), rank], relevant_in_pool)


def success_batch(relevant: np.ndarray, k: int) -> np.ndarray:
    """Vectorised :func:`success`."""
    return _any_hit(_hits(relevant, _checked_cutoff(k)))


def _any_hit(hits: np.ndarray) -> np.ndarray:
    """:func:`success` from :func:`_hits` of the top K."""
    return hits.any(axis=1).astype(np.float64)


def relevant_retrieved_batch(relevant: np.ndarray) -> np.ndarray:
    """Vectorised :func:`relevant_retrieved`, as floats."""
    return _found(relevant)[:, -1].astype(np.float64)


def interpolated_precision_batch(relevant: np.ndarray, relevant_in_pool: np.ndarray, level: float) -> np.ndarray:
    """Vectorised :func:`interpolated_precision`; NaN where R = 0."""
    found = _found(relevant)
    return _interpolated_precision(found, _precision_at_ranks(found), relevant_in_pool, _checked_level(level))


def _precision_at_ranks(found: np.ndarray) -> np.ndarray:
    """Q x D: ``P@i = found(i) / i`` (trec_eval's ``rel_so_far / i``, the same division)."""
    return found / np.arange(1.0, found.shape[1] + 1.0)


def _interpolated_precision(found: np.ndarray, precision: np.ndarray, relevant_in_pool: np.ndarray,
                            level: float) -> np.ndarray:
    """:func:`interpolated_precision` from :func:`_found` and :func:`_precision_at_ranks` (ranks past a list only
    repeat its count at lower precision, so they never hold the largest)."""
    reached = found >= recall_cutoff(level, relevant_in_pool)[:, None]
    best = np.where(reached, precision, 0.0).max(axis=1)
    return np.where(relevant_in_pool > 0, best, np.nan)


def bpref_batch(relevant: np.ndarray, states: np.ndarray, relevant_in_pool: np.ndarray,
                nonrelevant_in_pool: np.ndarray) -> np.ndarray:
    """Vectorised :func:`bpref`; NaN where R = 0. ``states``: Q x D, :data:`PAST_END` past each list."""
    states = _checked_states(relevant, states)
    # At a relevant rank, the judged non-relevant items up to it are those above it (it is not one).
    above = np.cumsum(~relevant & (states == JUDGED), axis=1)
    pool = relevant_in_pool[:, None]
    fewest = np.minimum(nonrelevant_in_pool[:, None], pool).astype(np.float64)
    share = np.divide(np.minimum(above, pool), fewest, out=np.zeros(above.shape), where=(above > 0) & (fewest > 0))
    return _recall(np.where(relevant, 1.0 - share, 0.0).sum(axis=1), relevant_in_pool)


def inferred_average_precision_batch(relevant: np.ndarray, states: np.ndarray, relevant_in_pool: np.ndarray
                                     ) -> np.ndarray:
    """Vectorised :func:`inferred_average_precision`; NaN where R = 0."""
    states = _checked_states(relevant, states)
    if relevant.shape[1] == 0:
        return _recall(np.zeros(len(relevant)), relevant_in_pool)
    # Counts of the items above each rank (j = 0-based rank): cumulative sums shifted by one rank.
    def above(items: np.ndarray) -> np.ndarray:
        counts = np.cumsum(items, axis=1, dtype=np.int64)
        return np.concatenate([np.zeros((len(items), 1), dtype=np.int64), counts[:, :-1]], axis=1)

    found, judged_nonrelevant = above(relevant), above(~relevant & (states == JUDGED))
    in_pool = above((states == JUDGED) | (states == UNJUDGED))
    j = np.arange(relevant.shape[1], dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (in_pool / j) * (
            (found + INFAP_EPSILON) / (found + judged_nonrelevant + 2 * INFAP_EPSILON))
    expected[:, 0] = 1.0
    return _recall(np.where(relevant, expected, 0.0).sum(axis=1), relevant_in_pool)


def judged_share_batch(states: np.ndarray, k: int) -> np.ndarray:
    """Vectorised :func:`judged_share`: ``states`` Q x D, :data:`PAST_END` past each list."""
    top = np.asarray(states)[:, :_checked_cutoff(k)]
    listed = (top != PAST_END).sum(axis=1)
    return np.divide((top == JUDGED).sum(axis=1), listed, out=np.zeros(len(states)), where=listed > 0)


def gm_map_batch(relevant: np.ndarray, relevant_in_pool: np.ndarray) -> np.ndarray:
    """Each query's gm_map value, its AP over the whole list (:func:`trec_average_precision` at K = D); NaN where
    R = 0. The mean over queries is :func:`geometric_mean_average_precision`."""
    return trec_average_precision_batch(relevant, max(relevant.shape[1], 1), relevant_in_pool)


def _discounted(values: np.ndarray, discounts: np.ndarray) -> np.ndarray:
    """``values @ discounts`` over the ranks ``values`` holds: ranks beyond a short array weigh nothing, so no
    queries x K zeros are written for a K far beyond the lists."""
    return values @ discounts[:values.shape[1]]


# --- registry ----------------------------------------------------------------------------

@dataclass(frozen=True)
class MetricInputs:
    """Everything a batch metric may read for one run, aligned row by row with its queries.

    Keys of the per-measure dictionaries are relevance measures: "qrels" or a key of
    :data:`evalcore.relevance.measures.MEASURES` ("iou", "nn-iou", "dice", ...).
    """

    relevance: dict[str, np.ndarray]  # Q x D graded relevance of the retrieved items (qrels: grades, < 0 read as 0)
    ideal: dict[str, np.ndarray]  # Q x (Kmax or fewer) best values of the pool (qrels: judged items), descending
    relevant_in_pool: dict[str, np.ndarray]  # Q: items of the pool / judgments that count as relevant
    label_matches: dict[str, np.ndarray]  # target: Q x D booleans
    label_present: dict[str, np.ndarray]  # target: Q booleans (queries with a label)
    threshold: float
    gain: str
    levels: dict[str, float] = field(default_factory=dict)  # relevant = relevance >= level (default: threshold)
    unit_scale: dict[str, float] = field(default_factory=dict)  # relevance / scale lies in [0, 1] (default 1)
    # Q x D judgment state of each rank (JUDGED, UNJUDGED, NOT_IN_POOL, PAST_END): bpref, infAP and judged@K read it.
    states: np.ndarray | None = None
    nonrelevant_in_pool: dict[str, np.ndarray] = field(default_factory=dict)  # Q: judged items not relevant (bpref)
    # Arrays derived from the fields, kept for the metrics that share them (read only; a replaced copy starts empty).
    derived: dict[tuple[str, str], np.ndarray] = field(default_factory=dict, init=False, compare=False, repr=False)

    def level(self, measure: str) -> float:
        return self.levels.get(measure, self.threshold)

    def unit_relevance(self, measure: str) -> np.ndarray:
        """Relevance read as a probability in [0, 1], as RBP, ERR and CAG need (qrels: grade / highest grade)."""
        if measure not in self.unit_scale:  # already in [0, 1]: x / 1.0 is x, without a copy of Q x D floats
            return self.relevance[measure]
        if ("unit", measure) not in self.derived:
            self.derived[("unit", measure)] = self.relevance[measure] / self.unit_scale[measure]
        return self.derived[("unit", measure)]

    def relevant(self, measure: str) -> np.ndarray:
        """Q x D booleans: relevance at least the level (MAP, AP, Prec and R), computed once per measure."""
        if ("relevant", measure) not in self.derived:
            self.derived[("relevant", measure)] = self.relevance[measure] >= reaching(self.level(measure))
        return self.derived[("relevant", measure)]

    def judgment_states(self) -> np.ndarray:
        """:attr:`states`, which the metrics of judged items (bpref, infAP, judged@K) read; refused when not given."""
        if self.states is None:
            raise ParameterError("bpref, infAP and judged@K read which retrieved items are judged: give the inputs "
                                 "their judgment states (states=)")
        return self.states

    def nonrelevant(self, measure: str) -> np.ndarray:
        """Q: judged items of each query's pool that are not relevant (bpref's N); refused when not given."""
        if measure not in self.nonrelevant_in_pool:
            raise ParameterError(f"bpref reads the judged non-relevant items of each pool under {measure!r}: give the "
                                 "inputs their counts (nonrelevant_in_pool=)")
        return self.nonrelevant_in_pool[measure]

    def found(self, measure: str) -> np.ndarray:
        """:func:`_found` of :meth:`relevant` over the whole list, computed once per measure."""
        if ("found", measure) not in self.derived:
            self.derived[("found", measure)] = _found(self.relevant(measure))
        return self.derived[("found", measure)]

    def precision_at_ranks(self, measure: str) -> np.ndarray:
        """:func:`_precision_at_ranks` of :meth:`found`, shared by the 11 interpolated precisions."""
        if ("precision_at", measure) not in self.derived:
            self.derived[("precision_at", measure)] = _precision_at_ranks(self.found(measure))
        return self.derived[("precision_at", measure)]

    def _ranks_up_to(self, kind: str, measure: str, k: int, make: Callable[[int], np.ndarray]) -> np.ndarray:
        """The first ``k`` columns of ``make(width)``, an array whose column r depends only on ranks 1..r: made once
        for the table's largest K (the width of the ideal rankings) and no wider than the lists (ranks beyond them
        add nothing), so that a metric at every cut-off reads the same array (the same values as ``make(k)``,
        without making it per K)."""
        kept = self.derived.get((kind, measure))  # (the width asked for, the array: no wider than the lists)
        if kept is None or kept[0] < k:
            width = max(k, self.ideal[measure].shape[1]) if measure in self.ideal else k
            kept = self.derived[(kind, measure)] = (width, make(width))
        return kept[1][:, :k]

    def hits(self, measure: str, k: int) -> np.ndarray:
        """:func:`_hits` of :meth:`relevant` in the top ``k``."""
        return self._ranks_up_to("hits", measure, k, lambda width: _hits(self.relevant(measure), width))

    def precision_terms(self, measure: str, k: int) -> np.ndarray:
        """:func:`_precision_terms` of :meth:`hits` in the top ``k``."""
        return self._ranks_up_to("precision", measure, k, lambda width: _precision_terms(self.hits(measure, width)))

    def err_terms(self, measure: str, k: int) -> np.ndarray:
        """:func:`_err_terms` of the unit relevance in the top ``k``."""
        return self._ranks_up_to("err", measure, k, lambda width: _err_terms(self.unit_relevance(measure), width))

    def cag_windows(self, measure: str) -> np.ndarray:
        """:func:`cag_windows` of the unit relevance at CAG-RBP's width (:func:`cag_rbp_width` of the lists' depth),
        computed once and shared by CAG at every cut-off and CAG-RBP: a window past it reaches no item of any list,
        so a CAG@K beyond it reads no more rows (:func:`cag_of_windows`), and no queries x K array of zeros is made."""
        kept = self.derived.get(("cag", measure))
        if kept is None:
            unit = self.unit_relevance(measure)
            kept = self.derived[("cag", measure)] = cag_windows(unit, cag_rbp_width(unit.shape[1]))
        return kept


@dataclass(frozen=True)
class MetricFamily:
    """A metric's formula, registered once. A graded family reads the relevance of its spec's measure ("qrels" or
    any key of :data:`evalcore.relevance.measures.MEASURES`); a label family reads its spec's target."""

    key: str
    graded: bool
    uses_k: bool
    description: str  # placeholders {k} and {target}; graded: {word}, {relevant} and {unit_word} too
    compute: Callable[[MetricInputs, MetricSpec], np.ndarray]
    #: The largest value at a cut-off (None: 1, as for every family whose value is a share or a normalised sum).
    largest: Callable[[int | None], float] | None = None
    #: Reads every rank of a list, as trec_eval's measures without a cut-off do: the evaluator then reads lists to
    #: rank :data:`MAX_K` (others read them to the table's largest K, and at least to rank 1,000).
    whole_list: bool = False
    #: False for a metric that reads only which items are judged (judged@K): the table's rule for queries with
    #: nothing relevant then treats it as a label metric (left out with them, or its own value under ``zero``).
    reads_relevance: bool = True
    #: The scale its per-query values are averaged on (:class:`~evalcore.stats.compare.MeanScale`; None: as they
    #: are): :data:`GEOMETRIC` for gm_map.
    mean: MeanScale | None = None


@dataclass(frozen=True)
class MetricSpec:
    """A parsed canonical metric name such as ``nn-CUI@10``, ``CUI@10{dice}`` or ``P@5[modality]``: a family, its
    cut-off, its label target and the key of the relevance measure it reads (None for label metrics)."""

    family: MetricFamily
    k: int | None
    target: str | None
    relevance: str | None

    @property
    def name(self) -> str:
        head, measure = _shown(self.family, self.relevance)
        text = head + (f"@{self.k}" if self.k is not None else "")
        return text + (f"[{self.target}]" if self.target else "") + ("{" + measure + "}" if measure else "")

    @property
    def largest(self) -> float:
        """The largest value the metric can take (what a chart's axis must reach): 1, but for CAG@K, a sum of
        DCG-discounted gains, whose value when every item is fully relevant is ``sum_k min(k, w) / w d(k)`` (a window
        of w = 10 ranks is full only from rank w on: 0.7419 at K = 5, 2.0013 at K = 10).

        >>> parse_metric("nn-CUI@10").largest, round(parse_metric("CAG@10").largest, 4), parse_metric("CAG-RBP").largest
        (1.0, 2.0013, 1.0)
        >>> round(parse_metric("CAG@10").largest, 12) == round(float(cag_batch(np.ones((1, 10)), dcg_discounts(10))[0]), 12)
        True
        """
        return 1.0 if self.family.largest is None else self.family.largest(self.k)

    @property
    def family_name(self) -> str:
        """The family as names show it, with its prefix (``nn-CUI``, ``qrels-NDCG``, ``P``; ``CUI`` for
        ``CUI@10{dice}``, whose measure follows the cut-off)."""
        return _shown(self.family, self.relevance)[0]

    @property
    def depth(self) -> int:
        return self.k or 0

    def description(self, k: int | str | None = None) -> str:
        """The family's description at cut-off ``k`` (default: the spec's) in the words of the relevance its name
        shows: a measure in braces is worded as IoU here (:meth:`describe` adds it)."""
        k = self.k if k is None else k
        if not self.family.graded:
            return self.family.description.format(k=k, target=self.target)
        shown = self.relevance if self.relevance in NAME_PREFIXES else "iou"
        word = RELEVANCE_WORDS[shown]
        if shown == "qrels":
            relevant = "relevant = grade at least the relevance level"
            unit_word = "the judged grade divided by the highest grade of the file"
        else:
            relevant, unit_word = f"relevant = {word} at least the threshold", word
        return self.family.description.format(k=k, target=self.target, word=word, relevant=relevant,
                                              unit_word=unit_word)

    def describe(self) -> str:
        text = self.description()
        if self.relevance not in (None, *NAME_PREFIXES):
            measure = MEASURES[self.relevance]
            text += f", with {measure.title} ({measure.summary}) as relevance instead of IoU"
        return text

    def compute(self, inputs: MetricInputs) -> np.ndarray:
        return self.family.compute(inputs, self)


# The display rule, stated once (the renderer :func:`_shown`, and the parser, which inverts it). IoU, nn-IoU and
# judged grades keep the paper's names, a prefix before the family; any other measure follows in braces.
NAME_PREFIXES = {"iou": "", "nn-iou": "nn-", "qrels": "qrels-"}
# NDCG of concept relevance is the paper's CUI@K; of judged grades it keeps its own name, qrels-NDCG@K.
QRELS_FAMILY_NAMES = {"CUI": "NDCG"}
RELEVANCE_WORDS = {
    "iou": "IoU (concept overlap)",
    "nn-iou": "nn-IoU (concept overlap crediting KG neighbours)",
    "qrels": "the judged grade",
}


def _shown(family: MetricFamily, relevance: str | None) -> tuple[str, str | None]:
    """How a name shows a family read under a relevance: the family with its prefix, and the measure in braces
    (None when the prefix says it)."""
    if relevance not in NAME_PREFIXES:
        return family.key, relevance
    key = QRELS_FAMILY_NAMES.get(family.key, family.key) if relevance == "qrels" else family.key
    return NAME_PREFIXES[relevance] + key, None


def _cag_rbp(x: MetricInputs, s: MetricSpec) -> np.ndarray:
    width = cag_rbp_width(x.relevance[s.relevance].shape[1])
    return cag_of_windows(x.cag_windows(s.relevance), rbp_discounts(width))


def _precision(x: MetricInputs, s: MetricSpec) -> np.ndarray:
    values = precision_batch(x.label_matches[s.target], s.k)
    values[~x.label_present[s.target]] = np.nan
    return values


FAMILIES: dict[str, MetricFamily] = {
    family.key: family
    for family in [
        # trec_eval's ndcg_cut_K at linear gain (gain = relevance or grade, ideal over the pool or the judgments).
        MetricFamily("CUI", True, True,
                     "How close the top {k} come to the best possible ranking by {word} (NDCG@{k}; trec_eval "
                     "ndcg_cut_{k})",
                     lambda x, s: ndcg_batch(x.relevance[s.relevance], x.ideal[s.relevance], s.k, x.gain)),
        # trec_eval's map_cut_K (ranx map@K, ir_measures AP@K); ``AP@K`` is read as this family.
        MetricFamily("MAP", True, True,
                     "Average precision in the top {k} divided by R (all relevant images), {relevant} "
                     "(trec_eval map_cut_{k})",
                     lambda x, s: _trec_average_precision(x.precision_terms(s.relevance, s.k).sum(axis=1),
                                                          x.relevant_in_pool[s.relevance])),
        # Ours, divided by min(K, R) (Kaggle's apk): offered on request, in no standard report.
        MetricFamily("MAP-min", True, True,
                     "Average precision in the top {k} divided by min({k}, R), {relevant} (not trec_eval's "
                     "map_cut_{k}, which divides by R)",
                     lambda x, s: _average_precision(x.precision_terms(s.relevance, s.k).sum(axis=1), s.k,
                                                     x.relevant_in_pool[s.relevance])),
        MetricFamily("R", True, True,
                     "Share of all relevant images (by {word}) found in the top {k} (trec_eval recall_{k})",
                     lambda x, s: _recall(x.hits(s.relevance, s.k).sum(axis=1), x.relevant_in_pool[s.relevance])),
        MetricFamily("RBP", True, False, "Rank-biased precision (patience 0.95) of {unit_word} over the whole list",
                     lambda x, s: rbp_batch(x.unit_relevance(s.relevance))),
        MetricFamily("ERR", True, True,
                     "Expected reciprocal rank in the top {k}, a user stopping at a relevant image by {unit_word}",
                     lambda x, s: x.err_terms(s.relevance, s.k).sum(axis=1)),
        MetricFamily("CAG", True, True, "Context-Aware Gain of {unit_word} in the top {k} (DCG discount)",
                     lambda x, s: cag_of_windows(x.cag_windows(s.relevance), dcg_discounts(s.k)),
                     lambda k: float(np.minimum(np.arange(1, k + 1), CAG_WINDOW) / CAG_WINDOW @ dcg_discounts(k))),
        MetricFamily("CAG-RBP", True, False,
                     "Context-Aware Gain of {unit_word} over the list (RBP discount, p = 0.95)", _cag_rbp),
        MetricFamily("Prec", True, True, "trec_eval P_{k}: share of the top {k} that is relevant, {relevant}",
                     lambda x, s: _share_of(x.hits(s.relevance, s.k), s.k)),
        MetricFamily("P", False, True, "How often the top {k} contain an image of the same {target}", _precision),
        # trec_eval's measures of the whole list (issue 67), by trec_eval's names; opt-in, in no standard report.
        MetricFamily("recip_rank", True, False,
                     "Reciprocal rank of the first relevant image in the whole list, {relevant} (trec_eval "
                     "recip_rank; its mean is the MRR)",
                     lambda x, s: reciprocal_rank_batch(x.relevant(s.relevance)), whole_list=True),
        MetricFamily("Rprec", True, False,
                     "Share of the top R that is relevant, R = all relevant images, {relevant} (trec_eval Rprec)",
                     lambda x, s: _r_precision(x.found(s.relevance), x.relevant_in_pool[s.relevance]), whole_list=True),
        MetricFamily("success", True, True,
                     "Whether the top {k} hold a relevant image, {relevant} (trec_eval success_{k})",
                     lambda x, s: _any_hit(x.hits(s.relevance, s.k))),
        MetricFamily("bpref", True, False,
                     "Share of judged non-relevant images ranked below each relevant one, unjudged images skipped, "
                     "{relevant} (trec_eval bpref)",
                     lambda x, s: bpref_batch(x.relevant(s.relevance), x.judgment_states(),
                                              x.relevant_in_pool[s.relevance], x.nonrelevant(s.relevance)),
                     whole_list=True),
        MetricFamily("infAP", True, False,
                     "Average precision inferred from the judged images of the list, {relevant} (trec_eval infAP)",
                     lambda x, s: inferred_average_precision_batch(x.relevant(s.relevance), x.judgment_states(),
                                                                   x.relevant_in_pool[s.relevance]),
                     whole_list=True),
        *[MetricFamily(f"{IPREC_FAMILY}{level:.2f}", True, False,
                       f"Best precision at any rank where {level:.0%} of the relevant images are found, {{relevant}} "
                       f"(trec_eval {IPREC_FAMILY}{level:.2f})",
                       lambda x, s, level=level: _interpolated_precision(
                           x.found(s.relevance), x.precision_at_ranks(s.relevance), x.relevant_in_pool[s.relevance],
                           level), whole_list=True)
          for level in RECALL_LEVELS],
        MetricFamily("gm_map", True, False,
                     "Average precision over the whole list, divided by R, {relevant}; averaged over queries "
                     "geometrically, each at least 1e-5 (trec_eval gm_map)",
                     lambda x, s: _trec_average_precision(
                         x.precision_terms(s.relevance, max(x.relevance[s.relevance].shape[1], 1)).sum(axis=1),
                         x.relevant_in_pool[s.relevance]),
                     whole_list=True, mean=GEOMETRIC),
        MetricFamily("num_rel_ret", True, False,
                     "Relevant images in the whole list, {relevant} (trec_eval num_rel_ret, whose summary is the "
                     "sum over queries where ours is the mean)",
                     lambda x, s: x.found(s.relevance)[:, -1].astype(np.float64), lambda k: math.inf,
                     whole_list=True),
        MetricFamily("judged", True, True,
                     "Share of the top {k} (of the list where shorter) that is judged (ir_measures Judged@{k})",
                     lambda x, s: judged_share_batch(x.judgment_states(), s.k), reads_relevance=False),
    ]
}
# Names the parser reads as another family's: ``AP@K`` (ir_measures' name, ours before issue 34) is ``MAP@K``; the
# mean of ``recip_rank`` is the MRR; ``Judged@K`` is ir_measures' spelling of ``judged@K``.
FAMILY_ALIASES = {"AP": "MAP", "MRR": "recip_rank", "Judged": "judged"}
# Every family as a name may show it, with the relevance it then reads: the parser's table, the renderer's inverse.
_SHOWN: dict[str, tuple[MetricFamily, str | None]] = {
    **{_shown(family, relevance)[0]: (family, relevance)
       for relevance in NAME_PREFIXES for family in FAMILIES.values() if family.graded},
    **{family.key: (family, None) for family in FAMILIES.values() if not family.graded},
    **{NAME_PREFIXES[relevance] + alias: (FAMILIES[key], relevance)
       for alias, key in FAMILY_ALIASES.items() for relevance in NAME_PREFIXES},
}
# ASCII digits only: re's \d also matches other scripts' digits ("CUI@３" is no metric name).
_NAME = re.compile(r"^(?P<family>[A-Za-z][A-Za-z0-9_.-]*?)(?:@(?P<k>[0-9]+))?(?:\[(?P<target>[a-z+]+)\])?"
                   r"(?:\{(?P<measure>[a-z0-9-]+)\})?$")


MAX_K = 10_000
# The families an unknown name is told of: the 11 interpolated precisions as one entry, prefixes and aliases once.
_KNOWN_FAMILIES = (
    ", ".join(key for key in FAMILIES if not key.startswith(IPREC_FAMILY) or key == f"{IPREC_FAMILY}0.00")
    .replace(f"{IPREC_FAMILY}0.00", f"{IPREC_FAMILY}0.00 ... {IPREC_FAMILY}1.00")
    + f"; prefix nn- or qrels- for nn-IoU or judged relevance (qrels-NDCG for CUI), a measure in braces for another; "
      f"aliases {', '.join(FAMILY_ALIASES)}")


def parse_metric(name: str) -> MetricSpec:
    """Parse a canonical metric name.

    >>> parse_metric("nn-CUI@10").relevance, parse_metric("P@5[modality]").target
    ('nn-iou', 'modality')
    >>> parse_metric("CUI@10{tversky}").relevance, parse_metric("CUI@10{nn-iou}").name
    ('tversky', 'nn-CUI@10')
    >>> spec = parse_metric("qrels-NDCG@10")
    >>> spec.family.key, spec.relevance, spec.name
    ('CUI', 'qrels', 'qrels-NDCG@10')
    >>> parse_metric("AP@10").name, parse_metric("qrels-AP@5").name, parse_metric("nn-MAP-min@10").name
    ('MAP@10', 'qrels-MAP@5', 'nn-MAP-min@10')
    """
    match = _NAME.match(name.strip())
    shown = match.group("family") if match else None
    if shown not in _SHOWN:
        raise ParameterError(f"unknown metric {name!r}; known families: {_KNOWN_FAMILIES}")
    family, relevance = _SHOWN[shown]
    k_text = match.group("k")
    # K's length is checked before int(), which refuses texts of more than 4,300 digits.
    k = None if k_text is None else int(k_text) if len(k_text.lstrip("0")) <= len(str(MAX_K)) else MAX_K + 1
    target = match.group("target")
    if family.uses_k != (k is not None) or (k is not None and not 1 <= k <= MAX_K):
        raise ParameterError(f"metric {name!r}: {shown} {'needs' if family.uses_k else 'takes no'} @K (1..10000)")
    if family.graded == (target is not None) or (target is not None and target not in LABEL_TARGETS):
        raise ParameterError(f"metric {name!r}: P@K needs a label target in {LABEL_TARGETS}; other metrics take none")
    measure = match.group("measure")
    if measure is not None:
        if measure not in MEASURES:
            raise ParameterError(f"metric {name!r}: unknown relevance measure {measure!r}; known: {', '.join(MEASURES)}")
        if relevance != "iou":
            raise ParameterError(f"metric {name!r}: only IoU-family metrics take a measure in braces "
                                 f"(e.g. CUI@10{{{measure}}}), not {shown}")
        relevance = measure
    return MetricSpec(family, k, target, relevance)


def mean_scales(names: Iterable[str]) -> dict[str, MeanScale]:
    """The metrics of ``names`` averaged on a scale of their own (:attr:`MetricFamily.mean`), by name: what
    :func:`evalcore.stats.compare.query_means` and the intervals and tests are given. A name that is no metric's (a
    column of a table built by hand) is averaged as it is.

    >>> {name: scale.name for name, scale in mean_scales(["MAP@10", "qrels-gm_map", "my column"]).items()}
    {'qrels-gm_map': 'geometric'}
    """
    scales = {}
    for name in names:
        try:
            spec = parse_metric(name)
        except ParameterError:
            continue
        if spec.family.mean is not None:
            scales[name] = spec.family.mean
    return scales


def default_metric_names(ks: Sequence[int], label_targets: Sequence[str] = ()) -> list[str]:
    """The standard report: CUI/nn-CUI, P@K per label target, MAP (trec_eval's map_cut), recall, ERR, CAG at each K;
    RBP once. ``MAP-min@K`` is in no standard report: its name would be copied as trec_eval's.

    >>> default_metric_names([10])[:6]
    ['CUI@10', 'nn-CUI@10', 'MAP@10', 'R@10', 'ERR@10', 'CAG@10']
    """
    names: list[str] = []
    for prefix in ("", "nn-"):
        names += [f"{prefix}CUI@{k}" for k in ks]
    for target in label_targets:
        names += [f"P@{k}[{target}]" for k in ks]
    for prefix in ("", "nn-"):
        names += [f"{prefix}{family}@{k}" for family in ("MAP", "R", "ERR", "CAG") for k in ks]
        names += [f"{prefix}RBP", f"{prefix}CAG-RBP"]
    return names


def qrels_metric_names(ks: Sequence[int], label_targets: Sequence[str] = ()) -> list[str]:
    """The report under a qrels file: trec_eval's ndcg_cut, P, map_cut and recall at each K, then P@K per label.

    >>> qrels_metric_names([10])
    ['qrels-NDCG@10', 'qrels-Prec@10', 'qrels-MAP@10', 'qrels-R@10']
    """
    names = [f"qrels-{family}@{k}" for family in ("NDCG", "Prec", "MAP", "R") for k in ks]
    return names + [f"P@{k}[{target}]" for target in label_targets for k in ks]


def concept_counterpart(name: str, relevance: str = "iou") -> str | None:
    """The metric of concept relevance ``relevance`` (a registry key) that computes what the judged metric ``name``
    computes on the grades (the same family and cut-off); None for a metric that reads no judgments.

    >>> concept_counterpart("qrels-NDCG@10"), concept_counterpart("qrels-MAP@5", "nn-iou"), concept_counterpart("P@5[modality]")
    ('CUI@10', 'nn-MAP@5', None)
    """
    spec = parse_metric(name)
    return replace(spec, relevance=relevance).name if spec.relevance == "qrels" else None


def metric_names_for_measure(ks: Sequence[int], label_targets: Sequence[str] = (), measure: str | None = None
                             ) -> list[str]:
    """:func:`default_metric_names` with the chosen relevance measure (a registry key) in place of nn-IoU.

    nn-IoU (or None) gives the standard report; IoU drops the ``nn-`` metrics; any other
    measure turns each ``nn-X`` into ``X{measure}``.

    >>> metric_names_for_measure([10], (), "dice")[:3]
    ['CUI@10', 'CUI@10{dice}', 'MAP@10']
    """
    names = default_metric_names(ks, label_targets)
    if measure in (None, "nn-iou"):
        return names
    specs = [parse_metric(name) for name in names]
    return [spec.name if spec.relevance != "nn-iou" else replace(spec, relevance=measure).name
            for spec in specs if spec.relevance != "nn-iou" or measure != "iou"]
