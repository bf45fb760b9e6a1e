"""Evidence for choosing a relevance measure on a loaded dataset (the "Choose a relevance measure" page and
``scripts/compare_measures.py``).

For each measure: Table-1 precision of retrieval by that measure (P@5/10/30 on modality, organ and
both); the discriminative power of NDCG@K under that measure over a set of systems (the share of
system pairs whose difference is significant under the paired randomization test, p-values Holm-
corrected over the pairs), on all queries and, since with thousands of queries nearly every pair
differs, averaged over random subsets of a few queries (as test collections have 50-100 topics);
Kendall's tau between the systems' order under that measure and under IoU; and how many queries
have a tie at rank K, i.e. the K-th and (K+1)-th best candidates of the pool are equally relevant,
so that the tie rule (file order) decides what enters the top K.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .compare import compare_systems, kendall_tau
from .data import ConceptSets, Run
from .engine import PairwiseEngine
from .evaluation import AlignedRun, Evaluator
from .measures import MeasureSpec, default_measures, metric_tag, parse_measure
from .options import Relevance, Statistics
from .retrieval import retrieve_by_measure

TABLE1_KS = (5, 10, 30)
TARGETS = ("modality", "organ", "modality+organ")
SIGNIFICANCE_LEVEL = 0.05
REFERENCE = "iou"
SUBSAMPLE = 100
SUBSAMPLE_REPEATS = 5


def comparison_measures(chosen: MeasureSpec | str) -> list[str]:
    """Every registry measure at its defaults, and ``chosen`` (canonical text) where its parameters differ.

    >>> comparison_measures("tversky(a=0.8,b=0.3)")[-1], "tversky(a=0.8,b=0.3)" in comparison_measures("iou")
    ('tversky(a=0.8,b=0.3)', False)
    """
    names = [spec.name for spec in default_measures()]
    chosen = parse_measure(chosen).name
    return names + ([chosen] if chosen not in names else [])


@dataclass(frozen=True)
class MeasureComparison:
    """``table``: one row per measure; ``precision``: long Table-1 values (%); ``means``: systems x measures."""

    table: pd.DataFrame
    precision: pd.DataFrame
    means: pd.DataFrame
    metric: str
    systems: tuple[str, ...]
    queries: int


def ndcg_metric(measure: MeasureSpec, k: int) -> str:
    """The NDCG@k metric name under ``measure``: ``CUI@k``, ``nn-CUI@k`` or ``CUI@k{key}``.

    >>> ndcg_metric(parse_measure("iou"), 10), ndcg_metric(parse_measure("nn-iou"), 10), ndcg_metric(parse_measure("dice"), 5)
    ('CUI@10', 'nn-CUI@10', 'CUI@5{dice}')
    """
    tag = metric_tag(measure)
    return f"nn-CUI@{k}" if tag == "nn-" else f"CUI@{k}{tag}"


def ranking_name(measure: MeasureSpec) -> str:
    return f"Retrieval by {measure.name}"


def engine_path(engine: PairwiseEngine, measure: MeasureSpec) -> dict[str, object]:
    """How the engine computes a measure: its packed digits, code size and key path."""
    coding = engine.coding(measure)
    return {"digits": ", ".join(name for name, _ in coding.layout.digits), "codes": f"{coding.layout.size:,}",
            "code bytes": np.dtype(coding.code_dtype).itemsize,
            "keys": "look-up table" if coding.lookup else "hashed per block"}


def compare_measures(evaluator: Evaluator, measures: Sequence[MeasureSpec | str],
                     systems: Sequence[Run | AlignedRun] = (), ks: Sequence[int] = TABLE1_KS, ndcg_k: int = 10,
                     samples: int = Statistics.randomization_samples, level: float = SIGNIFICANCE_LEVEL, subsample: int = SUBSAMPLE,
                     subsample_repeats: int = SUBSAMPLE_REPEATS,
                     progress: Callable[[float, str], None] | None = None) -> MeasureComparison:
    """Compare relevance measures on one dataset; ``systems`` are the runs whose order each measure judges.

    IoU is always included, first (it is the reference for the gaps and for Kendall's tau). The
    systems compared for discriminative power are ``systems`` as given; retrieval by each
    measure is scored for precision only (under its own measure it is the ideal ranking).
    ``subsample`` queries are drawn ``subsample_repeats`` times (seeds 0, 1, ...; the same subsets
    for every measure) for the subsampled discriminative power; none when there are not more queries.
    """
    specs = [parse_measure(m) for m in measures]
    reference = parse_measure(REFERENCE)
    names = list(dict.fromkeys([reference.name] + [spec.name for spec in specs]))
    specs = [parse_measure(name) for name in names]
    depth = max(ks)
    steps = 2 * len(specs) + 1
    rows: list[dict] = []
    rankings: list[AlignedRun] = []
    for step, spec in enumerate(specs):
        if progress:
            progress(step / steps, f"Ranking the pool by {spec.name}")
        started = time.perf_counter()
        summary, indices = evaluator.engine.rank_by(spec, depth + 1, 0.5, depth)
        seconds = time.perf_counter() - started
        rankings.append(AlignedRun.over_pool(ranking_name(spec), indices))
        row: dict[str, object] = {"measure": spec.name,
                                  f"same top-{depth} as IoU": int((indices == rankings[0].documents).all(axis=1).sum())}
        for k in ks:
            row[f"ties@{k}"] = int((summary.ideal[:, k - 1] == summary.ideal[:, k]).sum())
        row["ranking s"] = seconds
        row.update(engine_path(evaluator.engine, spec))
        rows.append(row)

    targets = [t for t in TARGETS if t in evaluator.label_targets()]
    precision_rows = []
    if targets:
        if progress:
            progress(len(specs) / steps, "Precision of each ranking on the labels")
        metrics = [f"P@{k}[{t}]" for t in targets for k in ks]
        evaluation = evaluator.evaluate(rankings, metrics)
        for spec, ranking in zip(specs, rankings):
            result = evaluation.systems[ranking.name]
            for target in targets:
                for k in ks:
                    values = result.values[f"P@{k}[{target}]"]
                    defined = values[np.isfinite(values)]
                    precision_rows.append({"measure": spec.name, "target": target, "k": k,
                                           "value": 100 * float(defined.mean()) if len(defined) else float("nan"),
                                           "queries": len(defined)})
    precision = pd.DataFrame(precision_rows, columns=["measure", "target", "k", "value", "queries"])

    means: dict[str, dict[str, float]] = {}
    system_names = tuple(s.name for s in systems)
    for step, spec in enumerate(specs):
        if not systems:
            break
        if progress:
            progress((len(specs) + 1 + step) / steps, f"Significance tests under {spec.name}")
        metric = ndcg_metric(spec, ndcg_k)
        evaluation = evaluator.evaluate(list(systems), [metric], Relevance.of(measure=spec))
        per_query = {name: dict(zip(result.query_ids, result.values[metric]))
                     for name, result in evaluation.systems.items()}
        means[spec.name] = {name: m[metric] for name, m in evaluation.means().items()}
        comparisons = compare_systems(per_query, samples=samples, draws=evaluator.draws)
        significant = sum(c.p_randomization_holm < level for c in comparisons)
        row = rows[names.index(spec.name)]
        row["significant pairs"] = f"{significant}/{len(comparisons)}"
        row["discriminative power"] = significant / len(comparisons) if comparisons else float("nan")
        queries = sorted(set().union(*(set(values) for values in per_query.values())))
        if comparisons and len(queries) > subsample:
            shares = []
            for seed in range(subsample_repeats):
                chosen = set(np.random.default_rng(seed).choice(queries, subsample, replace=False).tolist())
                subset = {name: {q: v for q, v in values.items() if q in chosen} for name, values in per_query.items()}
                shares.append(np.mean([c.p_randomization_holm < level
                                       for c in compare_systems(subset, samples=samples, draws=evaluator.draws)]))
            row[f"discriminative power, {subsample} queries"] = float(np.mean(shares))
    if progress:
        progress(1.0, "done")

    table = pd.DataFrame(rows)
    if means:
        table["Kendall tau vs IoU"] = [kendall_tau(means[reference.name], means[name]) for name in table.measure]
    if len(precision):
        wide = precision.pivot_table(index="measure", columns=["target", "k"], values="value", sort=False)
        wide.columns = [f"P@{k}[{target}]" for target, k in wide.columns]
        gaps = wide - wide.loc[reference.name]
        wide["worst cell vs IoU"] = gaps.min(axis=1)
        wide["best cell vs IoU"] = gaps.max(axis=1)
        wide["beats IoU on every cell"] = (gaps > 0).all(axis=1)
        table = wide.reset_index().merge(table, on="measure", how="right")
    ordered = ["measure", *[c for c in table.columns if c.startswith("P@")], "worst cell vs IoU", "best cell vs IoU",
               "beats IoU on every cell", "discriminative power", "significant pairs",
               f"discriminative power, {subsample} queries", "Kendall tau vs IoU",
               *[f"ties@{k}" for k in ks], f"same top-{max(ks)} as IoU", "ranking s", "digits", "codes", "code bytes", "keys"]
    table = table[[c for c in ordered if c in table.columns]]
    return MeasureComparison(table, precision, pd.DataFrame(means), f"CUI@{ndcg_k}", system_names,
                             len(evaluator.concepts))


def simulated_detector_run(concepts: ConceptSets, miss: float, seed: int, depth: int,
                           name: str | None = None) -> Run:
    """A stand-in CBIR system: a concept detector that misses a share ``miss`` of each image's concepts and
    replaces half of the missed ones by concepts drawn at random (by frequency), then retrieval by IoU of
    the detected concepts. Seeded; used where no real runs exist (ROCOv2 in the report).
    """
    rng = np.random.default_rng(seed)
    vocabulary = list(concepts.vocabulary)
    frequency = np.array([0.0] * len(vocabulary))
    position = {c: i for i, c in enumerate(vocabulary)}
    for concept_set in concepts.sets:
        for concept in concept_set:
            frequency[position[concept]] += 1
    frequency /= frequency.sum() if frequency.sum() else 1.0
    detected = []
    for concept_set in concepts.sets:
        kept = {c for c in sorted(concept_set) if rng.random() >= miss}
        invented = int(rng.binomial(len(concept_set) - len(kept), 0.5)) if len(concept_set) > len(kept) else 0
        if invented:
            kept |= {vocabulary[i] for i in rng.choice(len(vocabulary), invented, p=frequency)}
        detected.append(frozenset(kept))
    noisy = ConceptSets(concepts.ids, tuple(detected), f"{concepts.source} (simulated detector, miss {miss:g})")
    return retrieve_by_measure(PairwiseEngine(noisy), "iou", depth, name or f"simulated detector (miss {miss:g})")
