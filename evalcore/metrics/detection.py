"""Concept detection scoring (docs/DESIGN.md §4), following the ImageCLEFmedical Caption evaluator.

- CUIs are upper-cased; per image, F1 between predicted and ground-truth sets is
  scikit-learn's binary F1 over the union of both sets, which reduces to
  ``2 |P ∩ G| / (|P| + |G|)``; an empty prediction scores 0.
- An empty ground truth is scored, not dropped: 1 when the prediction is empty too, 0 when it
  is not. The evaluator reads a cell ``y,`` as one empty concept (``"".split(";") == [""]``), so
  its "empty ground truth" branch never runs and the empty concept is matched like any other;
  scikit-learn's ``f1_score(..., average="samples", zero_division=1)`` over indicator rows gives
  the same (both rows empty: 0/0, read as 1). (Issue 34: we used to drop such images, which gave
  F1 1.0 where the evaluator gives 0.5 on ``x,C1 / y,`` against ``x,C1 / y,C2``; docs/DESIGN.md §4 says
  to follow the evaluator.) The mean runs over every ground-truth image; a missing prediction is
  an empty set, reported (the evaluator refuses a file that misses one).
- Secondary F1: both sets filtered to a concept subset first; images left with no
  ground truth are skipped (the evaluator's secondary score filters the empty concept out too,
  and then skips them).
- KG-aware soft F1 (our extension): a predicted concept outside the ground truth that
  neighbours one of its concepts counts alpha toward precision, and likewise a missed
  ground-truth concept that neighbours a prediction counts alpha toward recall.

:func:`detection_scores` gives all three for one prediction file (the ``detection`` command and the Concept
detection page).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from evalcore.data import ConceptSets
from evalcore.errors import ParameterError
from evalcore.relevance.formulas import Neighbours
from evalcore.relevance.kg import KnowledgeGraph, neighbour_sets
from evalcore.relevance.measures import MeasureSpec


def f1_per_image(predicted: frozenset[str], truth: frozenset[str]) -> float:
    """Binary F1 of one image, ``2 |P ∩ G| / (|P| + |G|)``; 0 for an empty prediction; with an empty ground truth 1
    when the prediction is empty too, else 0 (the ImageCLEFmedical evaluator, scikit-learn's samples average with
    ``zero_division=1``).

    >>> f1_per_image(frozenset({"C1", "C2"}), frozenset({"C1", "C3", "C4"}))
    0.4
    >>> f1_per_image(frozenset(), frozenset()), f1_per_image(frozenset({"C2"}), frozenset())
    (1.0, 0.0)
    """
    if not truth:
        return 0.0 if predicted else 1.0
    if not predicted:
        return 0.0
    return 2 * len(predicted & truth) / (len(predicted) + len(truth))


def soft_f1_per_image(predicted: frozenset[str], truth: frozenset[str], neighbours: Neighbours,
                      alpha: float) -> float:
    """Soft F1: near misses (KG neighbours) count alpha on each side; empty sets as in :func:`f1_per_image`.

    >>> nb = {"vein": frozenset({"vessel"}), "vessel": frozenset({"vein"})}
    >>> soft_f1_per_image(frozenset({"CT", "vein"}), frozenset({"CT", "vessel"}), nb, 0.5)
    0.75
    """
    if not predicted or not truth:
        return f1_per_image(predicted, truth)
    empty: frozenset[str] = frozenset()
    exact = len(predicted & truth)
    near_predicted = sum(1 for p in predicted - truth if neighbours.get(p, empty) & truth)
    near_truth = sum(1 for t in truth - predicted if neighbours.get(t, empty) & predicted)
    precision = (exact + alpha * near_predicted) / len(predicted)
    recall = (exact + alpha * near_truth) / len(truth)
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


@dataclass(frozen=True)
class DetectionScore:
    """The mean F1 over ``images_scored`` images; ``images_empty_ground_truth`` had an empty ground truth (scored
    by the primary score, skipped by a subset's); ``images_missing_prediction`` had no prediction (an empty set)."""

    f1: float
    per_image: dict[str, float]
    images_scored: int
    images_empty_ground_truth: int
    images_missing_prediction: int


def detection_f1(truth: ConceptSets, predictions: Mapping[str, frozenset[str]],
                 subset: frozenset[str] | None = None, kg: KnowledgeGraph | None = None,
                 measure: MeasureSpec | None = None, kg_mode: str = "undirected") -> DetectionScore:
    """Mean per-image F1 over every ground-truth image; with a ``subset``, over the images whose ground truth keeps
    a concept of it. With a ``kg``, the soft F1 (:func:`soft_f1_per_image`) at ``measure``, an nn-IoU spec: near
    misses are the KG neighbours within its n hops (in ``kg_mode``) among the concepts of the ground truth and the
    predictions, credited its alpha.

    >>> gt = ConceptSets(("a", "b", "c"), (frozenset({"C0000001"}), frozenset(), frozenset({"C0000002"})))
    >>> s = detection_f1(gt, {"a": frozenset({"C0000001"})})  # b: both empty, 1; c: nothing predicted, 0
    >>> round(s.f1, 4), s.images_scored, s.images_empty_ground_truth, s.images_missing_prediction
    (0.6667, 3, 1, 2)
    """
    neighbours: Neighbours | None = None
    alpha = 0.0
    if kg is not None:
        if not isinstance(measure, MeasureSpec) or measure.key != "nn-iou":
            raise ParameterError(f"measure: the soft F1 needs an nn-iou MeasureSpec, got {measure!r}")
        vocabulary = tuple(sorted(set(truth.vocabulary).union(*predictions.values())))
        neighbours = neighbour_sets(kg, vocabulary, measure.hops, kg_mode)
        alpha = measure.params["alpha"]
    per_image: dict[str, float] = {}
    empty_truth = missing = 0
    for image_id, true_set in zip(truth.ids, truth.sets):
        predicted = predictions.get(image_id)
        if predicted is None:
            missing += 1
            predicted = frozenset()
        if subset is not None:
            true_set, predicted = true_set & subset, predicted & subset
        if not true_set:
            empty_truth += 1
            if subset is not None:
                continue
        per_image[image_id] = (soft_f1_per_image(predicted, true_set, neighbours, alpha) if neighbours is not None
                               else f1_per_image(predicted, true_set))
    mean = sum(per_image.values()) / len(per_image) if per_image else float("nan")
    return DetectionScore(mean, per_image, len(per_image), empty_truth, missing)


@dataclass(frozen=True)
class DetectionScores:
    """The scores of one prediction file: ``primary`` over every ground-truth image; ``secondary`` over a concept
    subset (None without one); ``soft``, the KG-aware soft F1 at ``measure``'s alpha and n in ``kg_mode`` (None
    without a KG)."""

    primary: DetectionScore
    secondary: DetectionScore | None
    soft: DetectionScore | None
    measure: MeasureSpec
    kg_mode: str

    @property
    def secondary_note(self) -> str | None:
        """Why the secondary F1 is undefined, where a subset was given and no ground-truth image keeps a concept of
        it (the mean over no image); None otherwise."""
        if self.secondary is None or self.secondary.images_scored:
            return None
        return ("the secondary F1 is undefined: no image of the ground truth has a concept of the subset (check that "
                "its concept codes are this collection's)")


def detection_scores(truth: ConceptSets, predictions: Mapping[str, frozenset[str]], measure: MeasureSpec,
                     subset: frozenset[str] | None = None, kg: KnowledgeGraph | None = None,
                     kg_mode: str = "undirected") -> DetectionScores:
    """The primary F1, the secondary F1 over ``subset`` (when one is given) and, with a ``kg``, the soft F1 whose
    near misses are the KG neighbours within ``measure``'s n hops (an nn-IoU spec) among the concepts of the ground
    truth and the predictions, credited its alpha.

    >>> from evalcore.data import KGEdges
    >>> from evalcore.relevance.measures import nn_iou_measure
    >>> gt = ConceptSets(("a", "b"), (frozenset({"C0000001", "C0000002"}), frozenset({"C0000003"})))
    >>> kg = KnowledgeGraph.from_edges([KGEdges((("C0000003", "C0000004", "t"),), {})])
    >>> scores = detection_scores(gt, {"a": frozenset({"C0000001"}), "b": frozenset({"C0000004"})},
    ...                           nn_iou_measure(0.5, 1), subset=frozenset({"C0000001"}), kg=kg)
    >>> round(scores.primary.f1, 4), scores.secondary.f1, round(scores.soft.f1, 4), scores.measure.name
    (0.3333, 1.0, 0.5833, 'nn-iou(alpha=0.5,n=1)')
    """
    if not isinstance(measure, MeasureSpec) or measure.key != "nn-iou":
        raise ParameterError(f"measure: the soft F1 needs an nn-iou MeasureSpec, got {measure!r}")
    primary = detection_f1(truth, predictions)
    secondary = detection_f1(truth, predictions, subset=subset) if subset else None
    soft = detection_f1(truth, predictions, kg=kg, measure=measure, kg_mode=kg_mode) if kg is not None else None
    return DetectionScores(primary, secondary, soft, measure, kg_mode)
