"""Graded TREC qrels from concept relevance ("qrels out").

For every query of the given runs the judgments hold its ideal top K over the whole pool
(the K best images by nn-IoU(alpha, n), IoU when alpha = 0 or n = 0; images of relevance 0
left out) plus every image any run retrieved for it. trec_eval, ranx and ir_measures then
compute nDCG@K of a run from this file and the run exactly as ``nn-CUI@K`` (``CUI@K``) does:
the gains are the relevance values and the ideal DCG is the pool's.

trec_eval reads integer grades, so relevance is written on a per-query integer scale:

- exact: ``grade = relevance x L_q``, with ``L_q`` the least common multiple of the
  denominators of the query's relevance values ``(i + alpha a) / u`` (alpha read as the
  decimal fraction it is written as, e.g. 0.5 = 1/2). Grades are proportional to relevance
  and nDCG equals ours up to floating-point rounding;
- rounded, when the exact scale would make the query's largest grade exceed
  :data:`MAX_GRADE` (trec_eval allocates one counter per grade level, so grades must stay
  small): ``grade = round(relevance x MAX_GRADE / max relevance)``. Then
  ``|nDCG - ours| <= H_K / (MAX_GRADE - H_K / 2)``, ``H_K = sum_{i<=K} 1 / log2(i + 1)``
  (4.5e-6 at K = 10).

Grades keep the order of relevance values within a query (the exact scale strictly, the
rounded one weakly); they are not comparable across queries, so binary measures at a
relevance level (trec_eval ``-l``) do not correspond to one relevance threshold. The file has
no header: pytrec_eval, ir_measures and ranx reject comment lines; the scales come back in
:attr:`GradedJudgments.scales` (``python -m evalcore qrels --scales F``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from evalcore.data import Run
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import MAX_DEPTH, AlignedRun, Evaluator, align_run, run_depth
from evalcore.relevance.formulas import nn_iou_from_counts
from evalcore.relevance.measures import MeasureSpec

MAX_GRADE = 1_000_000
MAX_ALPHA_DENOMINATOR = 10**6


@dataclass(frozen=True)
class GradedJudgments:
    """Graded qrels: ``(query, image, grade)`` rows and, per query, the scale ``grade / relevance``."""

    rows: tuple[tuple[str, str, int], ...]
    scales: dict[str, float]
    exact: dict[str, bool]
    counts: dict[str, int]

    def text(self) -> str:
        """TREC qrels ``qid 0 docid grade``, one judgment per line."""
        return "".join(f"{query} 0 {image} {grade}\n" for query, image, grade in self.rows)

    def scales_csv(self) -> str:
        """``query_id,scale,exact``: relevance = grade / scale."""
        return "query_id,scale,exact\n" + "".join(
            f"{query},{scale!r},{str(self.exact[query]).lower()}\n" for query, scale in self.scales.items())


def alpha_fraction(alpha: float) -> Fraction | None:
    """alpha as the decimal fraction it is written as; None when its denominator is too large to scale by.

    >>> alpha_fraction(0.5), alpha_fraction(0.3), alpha_fraction(1 / 3)
    (Fraction(1, 2), Fraction(3, 10), None)
    """
    fraction = Fraction(repr(float(alpha)))
    return fraction if fraction.denominator <= MAX_ALPHA_DENOMINATOR else None


def integer_grades(intersections: np.ndarray, approximates: np.ndarray, unions: np.ndarray, alpha: float,
                   owners: np.ndarray) -> tuple[np.ndarray, dict[int, float], dict[int, bool]]:
    """Integer grades of pairs with counts ``(i, a, u)``, scaled per owner (query); see the module docstring.

    Returns the grades, each owner's scale (grade per unit of relevance) and whether it is exact.

    >>> grades, scales, exact = integer_grades(np.array([1, 1, 0]), np.array([2, 0, 0]), np.array([3, 2, 4]), 0.5,
    ...                                        np.array([0, 0, 0]))
    >>> grades.tolist(), scales, exact  # relevance 2/3, 1/2, 0 -> x 6
    ([4, 3, 0], {0: 6.0}, {0: True})
    """
    relevance = nn_iou_from_counts(intersections, approximates, unions, alpha)
    grades = np.zeros(len(relevance), dtype=np.int64)
    scales: dict[int, float] = {}
    exact: dict[int, bool] = {}
    fraction = alpha_fraction(alpha)
    numerators = denominators = None
    if fraction is not None:
        numerators = fraction.denominator * intersections.astype(np.int64) + fraction.numerator * approximates.astype(np.int64)
        denominators = np.maximum(fraction.denominator * unions.astype(np.int64), 1)
        common = np.gcd(numerators, denominators)
        numerators, denominators = numerators // common, np.where(numerators == 0, 1, denominators // common)
    order = np.argsort(owners, kind="stable")
    bounds = np.flatnonzero(np.diff(owners[order])) + 1
    for members in np.split(order, bounds) if len(order) else []:
        owner = int(owners[members[0]])
        best = float(relevance[members].max())
        scale = _exact_scale(numerators[members], denominators[members]) if numerators is not None else None
        if scale is not None:
            grades[members] = numerators[members] * (scale // denominators[members])
            scales[owner], exact[owner] = float(scale), True
        else:
            factor = MAX_GRADE / best if best > 0 else 1.0
            grades[members] = np.rint(relevance[members] * factor).astype(np.int64)
            scales[owner], exact[owner] = factor, False
    return grades, scales, exact


def _exact_scale(numerators: np.ndarray, denominators: np.ndarray) -> int | None:
    """The least common multiple of the denominators, or None if it would push a grade above MAX_GRADE."""
    scale = 1
    for denominator in np.unique(denominators).tolist():
        scale = math.lcm(scale, denominator)
        if scale > MAX_GRADE:
            return None
    largest = max((n * (scale // d) for n, d in zip(numerators.tolist(), denominators.tolist())), default=0)
    return scale if largest <= MAX_GRADE else None


def graded_judgments(evaluator: Evaluator, runs: Sequence[Run | AlignedRun], k: int, measure: MeasureSpec,
                     progress: Callable[[float], None] | None = None) -> GradedJudgments:
    """Graded qrels for the queries of ``runs``: the ideal top ``k`` over the pool plus every retrieved image.

    Relevance is ``measure``, an nn-IoU(alpha, n) spec, on the evaluator's concept sets and KG (IoU when
    alpha = 0 or n = 0, :meth:`MeasureSpec.effective`); retrieved IDs without a concept set are left unjudged
    (relevance 0 for us and for trec_eval alike) and counted.
    """
    if evaluator.engine is None or evaluator.concepts is None:
        raise ParameterError("graded qrels are computed from concept sets: load them first")
    if not 1 <= k <= MAX_DEPTH:
        raise ParameterError(f"k must lie in 1..{MAX_DEPTH}, got {k}")
    if not runs:
        raise ParameterError("graded qrels need at least one run (its queries and retrieved images)")
    if not isinstance(measure, MeasureSpec) or measure.key != "nn-iou":
        raise ParameterError(f"graded qrels are computed by nn-IoU: give an nn-iou MeasureSpec, got {measure!r}")
    # alpha of the effective spec with a KG: 0 where alpha = 0 or n = 0 reduce nn-IoU to IoU. Without a KG the engine
    # counts no near match, and any alpha gives IoU's grades.
    effective_alpha = measure.effective(has_kg=True).params.get("alpha", 0.0)
    concepts = evaluator.concepts
    ideal = evaluator.relevance_ranking(measure, k, k, progress=progress).documents
    # every retrieved item is judged, however deep its list (evaluate reads a list as deep as its K asks)
    depth = max(run_depth(run) for run in runs)
    query_order: dict[int, None] = {}
    pairs: list[np.ndarray] = []
    unknown = 0
    for run in runs:
        aligned = run if isinstance(run, AlignedRun) else align_run(run, concepts, depth)
        unknown += aligned.counts.get("retrieved_unknown_ids", 0)
        query_order.update(dict.fromkeys(aligned.query_rows.tolist()))
        owners = np.broadcast_to(aligned.query_rows[:, None], aligned.documents.shape)
        valid = aligned.documents >= 0
        pairs.append(np.column_stack([owners[valid], aligned.documents[valid]]))
    rows = np.array(list(query_order), dtype=np.int64)
    ideal_rows = ideal[rows]
    ideal_owners = np.broadcast_to(rows[:, None], ideal_rows.shape)
    pairs.append(np.column_stack([ideal_owners[ideal_rows >= 0], ideal_rows[ideal_rows >= 0]]))
    unique = np.unique(np.vstack(pairs), axis=0)
    owners, images = unique[:, 0], unique[:, 1]
    counts = evaluator.engine.counts_of_pairs(evaluator.engine.resolve(measure).plan(), owners, images)
    intersections, unions, approximates = counts.intersection, counts.union, counts.near[0]
    grades, scales, exact = integer_grades(intersections, approximates, unions, effective_alpha, owners)
    pool = len(concepts)
    retrieved = np.isin(owners * pool + images, np.concatenate([b[:, 0] * pool + b[:, 1] for b in pairs[:-1]]))
    # Ideal images of relevance 0 add nothing to the ideal DCG; only retrieved ones are written at grade 0.
    keep = np.flatnonzero((grades > 0) | retrieved)
    position = np.empty(pool, dtype=np.int64)
    position[rows] = np.arange(len(rows))
    order = keep[np.lexsort((images[keep], -grades[keep], position[owners[keep]]))]
    ids = concepts.ids
    written = tuple((ids[q], ids[d], g) for q, d, g in zip(owners[order].tolist(), images[order].tolist(),
                                                              grades[order].tolist()))
    counts = {"queries": len(rows), "judgments": len(written), "queries_exact": sum(exact.values()),
              "queries_rounded": len(exact) - sum(exact.values()), "largest_grade": int(grades.max(initial=0)),
              "retrieved_unknown_ids": unknown}
    return GradedJudgments(written, {ids[r]: scales[r] for r in rows.tolist() if r in scales},
                           {ids[r]: exact[r] for r in rows.tolist() if r in exact}, counts)
