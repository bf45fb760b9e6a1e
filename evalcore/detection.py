"""Concept detection scoring (DESIGN §4), following the ImageCLEFmedical Caption evaluator.

- CUIs are upper-cased; per image, F1 between predicted and ground-truth sets is
  scikit-learn's binary F1 over the union of both sets, which reduces to
  ``2 |P ∩ G| / (|P| + |G|)``; an empty prediction scores 0.
- The mean runs over ground-truth images; images with an empty ground truth are
  dropped and counted; a missing prediction is an empty set, reported.
- Secondary F1: both sets filtered to a concept subset first; images left with no
  ground truth are skipped.
- KG-aware soft F1 (our extension): a predicted concept outside the ground truth that
  neighbours one of its concepts counts alpha toward precision, and likewise a missed
  ground-truth concept that neighbours a prediction counts alpha toward recall.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .data import ConceptSets
from .relevance import Neighbours, check_alpha


def f1_per_image(predicted: frozenset[str], truth: frozenset[str]) -> float:
    """Binary F1 of one image; 0 for an empty prediction.

    >>> f1_per_image(frozenset({"C1", "C2"}), frozenset({"C1", "C3", "C4"}))
    0.4
    """
    if not predicted or not truth:
        return 0.0
    return 2 * len(predicted & truth) / (len(predicted) + len(truth))


def soft_f1_per_image(predicted: frozenset[str], truth: frozenset[str], neighbours: Neighbours,
                      alpha: float) -> float:
    """Soft F1: near misses (KG neighbours) count alpha on each side.

    >>> nb = {"vein": frozenset({"vessel"}), "vessel": frozenset({"vein"})}
    >>> soft_f1_per_image(frozenset({"CT", "vein"}), frozenset({"CT", "vessel"}), nb, 0.5)
    0.75
    """
    if not predicted or not truth:
        return 0.0
    empty: frozenset[str] = frozenset()
    exact = len(predicted & truth)
    near_predicted = sum(1 for p in predicted - truth if neighbours.get(p, empty) & truth)
    near_truth = sum(1 for t in truth - predicted if neighbours.get(t, empty) & predicted)
    precision = (exact + alpha * near_predicted) / len(predicted)
    recall = (exact + alpha * near_truth) / len(truth)
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


@dataclass(frozen=True)
class DetectionScore:
    f1: float
    per_image: dict[str, float]
    images_scored: int
    images_empty_ground_truth: int
    images_missing_prediction: int


def detection_f1(truth: ConceptSets, predictions: Mapping[str, frozenset[str]],
                 subset: frozenset[str] | None = None, neighbours: Neighbours | None = None,
                 alpha: float = 0.5) -> DetectionScore:
    """Mean per-image F1 over ground-truth images (soft F1 when ``neighbours`` is given).

    >>> gt = ConceptSets(("a", "b", "c"), (frozenset({"C0000001"}), frozenset(), frozenset({"C0000002"})))
    >>> s = detection_f1(gt, {"a": frozenset({"C0000001"})})
    >>> s.f1, s.images_scored, s.images_empty_ground_truth, s.images_missing_prediction
    (0.5, 2, 1, 2)
    """
    alpha = check_alpha(alpha)
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
            continue
        per_image[image_id] = (soft_f1_per_image(predicted, true_set, neighbours, alpha) if neighbours is not None
                               else f1_per_image(predicted, true_set))
    mean = sum(per_image.values()) / len(per_image) if per_image else float("nan")
    return DetectionScore(mean, per_image, len(per_image), empty_truth, missing)
