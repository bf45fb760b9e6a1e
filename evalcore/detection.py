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

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from .data import ConceptSets
from .readers import CUI_PATTERN, Source, read_text
from .relevance import Neighbours, check_alpha

MAX_CONCEPTS_PER_PREDICTION = 100


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


@dataclass
class Predictions:
    """Predicted concepts per image plus the validator's problems (line, message)."""

    sets: dict[str, frozenset[str]]
    problems: list[tuple[int, str]] = field(default_factory=list)
    source: str = "predictions"


def read_predictions(source: Source, name: str | None = None, known_ids: Mapping[str, int] | None = None) -> Predictions:
    """Parse predictions leniently, naming every problem as the official validator would."""
    text, display = read_text(source, name)
    sets: dict[str, frozenset[str]] = {}
    problems: list[tuple[int, str]] = []
    first_line: dict[str, int] = {}
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        parts = re.split(r"[,\t|]", line, maxsplit=1)
        image_id = parts[0].strip()
        if number == 1 and image_id.lower() in {"id", "image_id", "imageid"}:
            continue
        tokens = [t.strip() for t in re.split(r"[;,]", parts[1])] if len(parts) > 1 and parts[1].strip() else []
        if known_ids is not None and image_id not in known_ids:
            problems.append((number, f"unknown image ID {image_id!r}"))
            continue
        if image_id in first_line:
            problems.append((number, f"image ID {image_id!r} repeated (first on line {first_line[image_id]})"))
            continue
        first_line[image_id] = number
        if len(tokens) > MAX_CONCEPTS_PER_PREDICTION:
            problems.append((number, f"{len(tokens)} concepts (at most {MAX_CONCEPTS_PER_PREDICTION} allowed)"))
            tokens = tokens[:MAX_CONCEPTS_PER_PREDICTION]
        concepts: set[str] = set()
        for token in tokens:
            cui = token.upper()
            if not cui:
                problems.append((number, "empty CUI token"))
            elif not CUI_PATTERN.match(cui):
                problems.append((number, f"malformed CUI {token[:40]!r}"))
            elif cui in concepts:
                problems.append((number, f"duplicate concept {cui}"))
            else:
                concepts.add(cui)
        sets[image_id] = frozenset(concepts)
    return Predictions(sets, problems, display)


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
