"""The Concept detection page's report: uploaded predictions, or the concept sets found in the captions, scored
against the loaded concept sets (the curated ones the extraction replaced, for the latter), as the ImageCLEFmedical
Caption task scores them (primary F1, a subset's secondary F1) and with the KG-aware soft F1.

The three scores are :func:`evalcore.metrics.detection.detection_scores`, the command line's ``detection`` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

import pandas as pd

from evalcore.data import ConceptSets, Predictions
from evalcore.errors import CBIRLensError
from evalcore.metrics.detection import DetectionScores, detection_scores
from evalcore.readers import read_predictions
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import MeasureSpec


@dataclass(frozen=True)
class DetectionReport:
    """Predictions as read (``predicted``, with the validator's ``problems``), the ground ``truth`` they were
    scored against (each image's set, a plain mapping: the report is pickled into a cache), the three ``scores``
    (secondary None without a subset, soft None without a KG) and one row per image: its F1, soft F1 and the names
    of the concepts found, missed and wrongly predicted (``rows``, worst image first); ``unscored``: images of the
    ground truth left out, having nothing to predict from (no caption)."""

    predicted: Mapping[str, frozenset[str]]
    problems: tuple[tuple[int, str], ...]
    scores: DetectionScores
    rows: pd.DataFrame
    truth: Mapping[str, frozenset[str]]
    unscored: int = 0
    problems_not_listed: int = 0


def concept_codes(text: str) -> frozenset[str]:
    """The concept codes of a text, separated by spaces, commas or lines, in capitals.

    >>> sorted(concept_codes("c0040405, C1306645\\nC0024485"))
    ['C0024485', 'C0040405', 'C1306645']
    """
    return frozenset(token.strip().upper() for token in text.replace(",", " ").split() if token.strip())


def with_concepts_dropped(predictions: Predictions) -> Predictions:
    """The predictions with the last concept (in code order) of every third image dropped: the demo's ground truth
    scored against itself shows a page with something missed.

    >>> dropped = with_concepts_dropped(Predictions({"a": frozenset({"C1", "C2"}), "b": frozenset({"C3"})}))
    >>> dict(dropped.sets)
    {'a': frozenset({'C1'}), 'b': frozenset({'C3'})}
    """
    sets = {i: frozenset(sorted(s)[:-1]) if n % 3 == 0 else s for n, (i, s) in enumerate(predictions.sets.items())}
    return Predictions(sets, list(predictions.problems), predictions.source, predictions.problems_not_listed)


def detection_report(truth: ConceptSets, predictions: Predictions, subset: frozenset[str], kg: KnowledgeGraph | None,
                     relevance: MeasureSpec, mode: str, names: Mapping[str, str]) -> DetectionReport:
    """Score ``predictions`` against ``truth``: the primary F1, the secondary F1 over ``subset`` (when given) and,
    with a KG, the soft F1 at the nn-IoU setting ``relevance``; concepts named by ``names``, else the KG's, else
    their code."""
    predicted = predictions.sets
    scores = detection_scores(truth, predicted, relevance, subset=subset or None, kg=kg, kg_mode=mode)
    primary, soft = scores.primary, scores.soft

    def named(concepts: frozenset[str]) -> list[str]:
        return sorted(names.get(c) or (kg.names.get(c) if kg else None) or c for c in concepts)

    rows = []
    for image_id, value in primary.per_image.items():
        true_set, guessed = truth[image_id], predicted.get(image_id, frozenset())
        rows.append({"image": image_id, "F1": value, "soft F1": soft.per_image.get(image_id) if soft else None,
                     "found": named(true_set & guessed), "missed": named(true_set - guessed),
                     "wrong": named(guessed - true_set)})
    table = pd.DataFrame(rows, columns=["image", "F1", "soft F1", "found", "missed", "wrong"]).sort_values("F1")
    return DetectionReport(predicted, tuple(predictions.problems), scores, table, dict(zip(truth.ids, truth.sets)),
                           problems_not_listed=predictions.problems_not_listed)


def read_and_score(truth: ConceptSets, data: bytes, name: str, drop_some: bool, subset: frozenset[str],
                   kg: KnowledgeGraph | None, relevance: MeasureSpec, mode: str,
                   names: Mapping[str, str]) -> DetectionReport:
    """:func:`detection_report` of the predictions file ``data`` (IDs checked against ``truth``); ``drop_some``:
    with a few concepts dropped (:func:`with_concepts_dropped`)."""
    predictions = read_predictions(data, name, known_ids=truth.index)
    if drop_some:
        predictions = with_concepts_dropped(predictions)
    return detection_report(truth, predictions, subset, kg, relevance, mode, names)


#: How the concept sets found in captions are named as predictions.
EXTRACTED_SOURCE = "concepts found in the captions"


def extraction_report(curated: ConceptSets, extracted: ConceptSets, subset: frozenset[str], kg: KnowledgeGraph | None,
                      relevance: MeasureSpec, mode: str, names: Mapping[str, str]) -> DetectionReport:
    """The concept sets found in captions (``extracted``) scored as predictions against the ``curated`` ones
    (:func:`detection_report`), on the curated images that have a caption to find concepts in; the others are
    counted as ``unscored`` (an image without a caption would score as an empty prediction, a fault of the input,
    not of the extraction).

    >>> curated = ConceptSets(("a", "b", "c"), (frozenset({"C1", "C2", "C3"}), frozenset({"C4"}), frozenset({"C5"})),
    ...                       "truth.csv")
    >>> extracted = ConceptSets(("a", "b"), (frozenset({"C1", "C2"}), frozenset({"C4", "C6"})))
    >>> from evalcore.relevance.measures import nn_iou_measure
    >>> report = extraction_report(curated, extracted, frozenset(), None, nn_iou_measure(0.5, 1), "undirected", {})
    >>> round(report.scores.primary.f1, 4), report.unscored, sorted(report.truth)   # (0.8 + 2/3) / 2
    (0.7333, 1, ['a', 'b'])
    """
    common = tuple(image_id for image_id in curated.ids if image_id in extracted.index)
    if not common:
        raise CBIRLensError(f"no image of {curated.source} has a caption the concepts were found in")
    predictions = Predictions({image_id: extracted[image_id] for image_id in common}, [], EXTRACTED_SOURCE)
    report = detection_report(curated.subset(common), predictions, subset, kg, relevance, mode, names)
    return replace(report, unscored=len(curated) - len(common))
