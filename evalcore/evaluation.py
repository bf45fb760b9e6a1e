"""Evaluate runs: align them with the concept sets, compute relevance with the engine,
then every requested metric per query (aggregation lives in :mod:`evalcore.compare`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain

import numpy as np
import pandas as pd

from .data import ConceptSets, ImageLabels, Run
from .engine import PairwiseEngine, PoolSummary
from .errors import CBIRLensError, ParameterError
from .kg import KnowledgeGraph, check_hops_and_mode
from .metrics import GAINS, MetricInputs, MetricSpec, parse_metric
from .relevance import check_alpha

MAX_DEPTH = 1000
MAX_LABEL_CLASSES = 64
UNKNOWN = -2
PADDING = -1


@dataclass(frozen=True)
class AlignedRun:
    """A run as candidate indices: Q x D, -1 past the end of a list, -2 for IDs without concept sets."""

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


def effective_setting(alpha: float, n: int) -> tuple[float, int]:
    """(alpha, n) as nn-IoU sees it: at alpha = 0 or n = 0 it is IoU, whatever the other value.

    >>> effective_setting(0.5, 0), effective_setting(0.0, 2), effective_setting(0.5, 2)
    ((0.0, 0), (0.0, 0), (0.5, 2))
    """
    return (alpha, n) if alpha > 0 and n > 0 else (0.0, 0)


def align_run(run: Run, concepts: ConceptSets, depth: int) -> AlignedRun:
    """Map a run onto concept-set rows; drop each query from its own list; count what was skipped."""
    known_queries = [q for q in run.rankings if q in concepts.index]
    rows = np.array([concepts.index[q] for q in known_queries], dtype=np.int64)
    lists = [run.rankings[q] for q in known_queries]
    lengths = np.array([len(ranked) for ranked in lists], dtype=np.int64)
    flat_ids = list(chain.from_iterable(lists))
    index = concepts.index
    flat = np.array([index.get(doc, -1) for doc in flat_ids], dtype=np.int64)
    owner = np.repeat(np.arange(len(known_queries)), lengths)
    is_self = flat == rows[owner]
    unknown = flat < 0
    kept, kept_owner, kept_unknown = flat[~is_self], owner[~is_self], unknown[~is_self]
    position = np.arange(len(kept)) - np.searchsorted(kept_owner, kept_owner)
    in_depth = position < depth
    documents = np.full((len(known_queries), depth), PADDING, dtype=np.int64)
    documents[kept_owner[in_depth], position[in_depth]] = np.where(kept_unknown[in_depth], UNKNOWN, kept[in_depth])
    unknown_in_depth = np.flatnonzero(kept_unknown & in_depth)
    original_index = np.flatnonzero(~is_self)
    counts = {
        "queries_in_run": len(run.rankings),
        "queries_evaluated": len(known_queries),
        "queries_unknown": len(run.rankings) - len(known_queries),
        "retrieved_unknown_ids": len(unknown_in_depth),
        "query_dropped_from_own_list": len(np.unique(owner[is_self])),
    }
    if len(unknown_in_depth):
        examples = [flat_ids[i] for i in original_index[unknown_in_depth[:5]]]
        counts["unknown_id_examples"] = ", ".join(examples)  # type: ignore[assignment]
    return AlignedRun(run.name, rows, documents, counts)


def _run_depth(run: Run | AlignedRun) -> int:
    if isinstance(run, AlignedRun):
        return run.documents.shape[1]
    return max((len(ranking) for ranking in run.rankings.values()), default=1)


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


@dataclass
class Evaluation:
    systems: dict[str, SystemResult]
    params: dict
    metric_names: list[str]
    counts: dict[str, dict[str, int]] = field(default_factory=dict)

    def means(self) -> dict[str, dict[str, float]]:
        """Mean over queries with a defined value (NaN = excluded and counted)."""
        return {
            name: {m: float(np.nanmean(v)) if np.isfinite(v).any() else float("nan") for m, v in result.values.items()}
            for name, result in self.systems.items()
        }

    def per_query_frame(self) -> pd.DataFrame:
        frames = [
            pd.DataFrame({"system": name, "query_id": result.query_ids, "metric": metric, "value": values})
            for name, result in self.systems.items()
            for metric, values in result.values.items()
        ]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
            columns=["system", "query_id", "metric", "value"])


class Evaluator:
    """Evaluates runs on one dataset; pool summaries are cached per (measure, alpha, n, k, threshold)."""

    def __init__(self, concepts: ConceptSets, kg: KnowledgeGraph | None = None, mode: str = "undirected",
                 labels: ImageLabels | None = None, engine: PairwiseEngine | None = None):
        check_hops_and_mode(0, mode)
        self.concepts = concepts
        self.kg = kg
        self.mode = mode
        self.engine = engine or PairwiseEngine(concepts, kg=kg, mode=mode)
        self.labels = labels
        self.masks = label_masks(labels, concepts) if labels is not None else {}
        self._summaries: dict[tuple, PoolSummary] = {}

    def label_targets(self) -> list[str]:
        kinds = [k for k in ("modality", "organ") if k in self.masks]
        return kinds + (["modality+organ"] if len(kinds) == 2 else [])

    def pool_summary(self, measure: str, alpha: float, n: int, k: int, threshold: float,
                     progress: Callable[[float], None] | None = None) -> PoolSummary:
        key = (*effective_setting(alpha if measure == "nn-iou" else 0.0, n), k, threshold)
        if key not in self._summaries:
            self._summaries[key] = self.engine.pool_summary(key[0], key[1], k, threshold, progress)
        return self._summaries[key]

    def relevance_ranking(self, alpha: float, n: int, depth: int, k: int = 10, threshold: float = 0.5,
                          name: str = "Retrieval by nn-IoU",
                          progress: Callable[[float], None] | None = None) -> AlignedRun:
        """Retrieval by nn-IoU(alpha, n) over the whole pool, as an aligned run ready for :meth:`evaluate`.

        The same pass over the pool yields the ideal top-``k`` summary, which is cached.
        """
        effective_alpha, effective_n = effective_setting(alpha, n)
        summary, indices = self.engine.rank(effective_alpha, effective_n, k, threshold, depth, progress)
        self._summaries.setdefault((effective_alpha, effective_n, k, threshold), summary)
        return AlignedRun.over_pool(name, indices)

    def relevance_of(self, aligned: AlignedRun, alpha: float, n: int, measures: Iterable[str]) -> dict[str, np.ndarray]:
        """Graded relevance of every retrieved item (0 for unknown IDs and padding)."""
        valid = aligned.documents >= 0
        rows = np.broadcast_to(aligned.query_rows[:, None], aligned.documents.shape)[valid]
        columns = aligned.documents[valid]
        result = {}
        for measure in measures:
            values = np.zeros(aligned.documents.shape)
            values[valid] = self.engine.relevance_of_pairs(rows, columns, alpha if measure == "nn-iou" else 0.0, n)
            result[measure] = values
        return result

    def evaluate(self, runs: Sequence[Run | AlignedRun], metric_names: Sequence[str], alpha: float = 0.5, n: int = 1,
                 gain: str = "linear", threshold: float = 0.5,
                 progress: Callable[[float, str], None] | None = None) -> Evaluation:
        alpha = check_alpha(alpha)
        check_hops_and_mode(n, self.mode)
        if gain not in GAINS:
            raise ParameterError(f"gain must be one of {GAINS}, got {gain!r}")
        if not 0 < threshold <= 1:
            raise ParameterError(f"relevance threshold must lie in (0, 1], got {threshold}")
        specs = [parse_metric(name) for name in metric_names]
        missing_labels = {s.target for s in specs if s.target} - set(self.label_targets())
        if missing_labels:
            raise ParameterError(f"metrics {sorted(missing_labels)} need labels; load a labels file first")
        names = [r.name for r in runs]
        if len(set(names)) != len(names):
            raise CBIRLensError(f"two runs share a system name: {names}; rename a file or its TREC tag")
        measures = sorted({s.family.relevance for s in specs if s.family.relevance})
        k_max = max([s.k for s in specs if s.k] + [1])
        depth = min(MAX_DEPTH, max([k_max] + [_run_depth(r) for r in runs]))
        ideal, in_pool = {}, {}
        for step, measure in enumerate(measures):
            if progress:
                progress(step / (len(measures) + 1), f"Ideal rankings over the whole pool by {measure}")
            summary = self.pool_summary(measure, alpha, n, k_max, threshold)
            ideal[measure], in_pool[measure] = summary.ideal, summary.relevant_counts
        systems = {}
        for run in runs:
            if progress:
                progress(len(measures) / (len(measures) + 1), f"Scoring {run.name}")
            systems[run.name] = self._evaluate_run(run, specs, measures, ideal, in_pool, alpha, n, gain, threshold,
                                                   depth)
        params = {"alpha": alpha, "n": n, "kg_mode": self.mode, "gain": gain, "relevance_threshold": threshold,
                  "candidates": len(self.concepts), "kg": self.kg is not None}
        counts = {name: result.counts for name, result in systems.items()}
        return Evaluation(systems, params, [s.name for s in specs], counts)

    def _evaluate_run(self, run: Run | AlignedRun, specs: list[MetricSpec], measures: list[str], ideal: dict, in_pool: dict,
                      alpha: float, n: int, gain: str, threshold: float, depth: int) -> SystemResult:
        aligned = run if isinstance(run, AlignedRun) else align_run(run, self.concepts, depth)
        rows = aligned.query_rows
        matches, present = self._label_matches(aligned)
        inputs = MetricInputs(
            relevance=self.relevance_of(aligned, alpha, n, measures),
            ideal={m: ideal[m][rows] for m in measures},
            relevant_in_pool={m: in_pool[m][rows] for m in measures},
            label_matches=matches, label_present=present, threshold=threshold, gain=gain,
        )
        values = {spec.name: spec.compute(inputs) for spec in specs}
        counts = dict(aligned.counts)
        for spec in specs:
            excluded = int(np.isnan(values[spec.name]).sum())
            if excluded:
                counts[f"excluded[{spec.name}]"] = excluded
        query_ids = tuple(self.concepts.ids[i] for i in rows)
        return SystemResult(run.name, query_ids, values, counts)

    def _label_matches(self, aligned: AlignedRun) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        matches, present = {}, {}
        valid = aligned.documents >= 0
        safe_documents = np.where(valid, aligned.documents, 0)
        for kind, mask in self.masks.items():
            query_mask = mask[aligned.query_rows]
            matches[kind] = ((query_mask[:, None] & mask[safe_documents]) != 0) & valid
            present[kind] = query_mask != 0
        if len(self.masks) == 2:
            matches["modality+organ"] = matches["modality"] & matches["organ"]
            present["modality+organ"] = present["modality"] & present["organ"]
        return matches, present
