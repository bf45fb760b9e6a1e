"""Ablation over alpha and the distance threshold n (the paper's Fig. 3)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from .compare import kendall_tau
from .data import Run
from .evaluation import AlignedRun, Evaluator, effective_setting
from .metrics import parse_metric

ALPHAS = tuple(round(a / 10, 1) for a in range(11))
HOPS = (0, 1, 2, 3)
RELEVANCE_SYSTEM = "Retrieval by nn-IoU"


def isolated_queries(evaluator: Evaluator, alpha: float, n: int, k: int) -> tuple[str, ...]:
    """Queries whose top-k by IoU and by nn-IoU(alpha, n) differ (as sets), the paper's isolated subset."""
    by_iou = evaluator.engine.retrieve(0.0, 0, k)
    by_nn = evaluator.engine.retrieve(alpha, n, k)
    differ = [i for i in range(len(by_iou)) if set(by_iou[i]) != set(by_nn[i])]
    return tuple(evaluator.concepts.ids[i] for i in differ)


def ablation_grid(evaluator: Evaluator, runs: Sequence[Run], metric_names: Sequence[str],
                  alphas: Sequence[float] = ALPHAS, hops: Sequence[int] = HOPS, with_relevance_retrieval: bool = True,
                  queries: Sequence[str] | None = None, gain: str = "linear",
                  progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """Mean of each metric per (system, alpha, n); ``queries`` restricts the mean to a subset.

    Retrieval by relevance is re-ranked at every setting; uploaded runs stay fixed and only
    their graded relevance changes.
    """
    depth = max([parse_metric(m).k or 1 for m in metric_names] + [1])
    subset = set(queries) if queries is not None else None
    rows = []
    settings = [(a, n) for n in hops for a in alphas]
    rankings: dict[tuple[float, int], AlignedRun] = {}
    for step, (alpha, n) in enumerate(settings):
        if progress:
            progress(step / len(settings), f"alpha = {alpha}, n = {n}")
        systems: list[Run | AlignedRun] = list(runs)
        if with_relevance_retrieval:
            same_as = effective_setting(alpha, n)
            if same_as not in rankings:
                rankings[same_as] = evaluator.relevance_ranking(*same_as, depth, depth, name=RELEVANCE_SYSTEM)
            systems.append(rankings[same_as])
        evaluation = evaluator.evaluate(systems, metric_names, alpha, n, gain)
        for name, result in evaluation.systems.items():
            keep = np.array([q in subset for q in result.query_ids]) if subset is not None else slice(None)
            for metric, values in result.values.items():
                selected = values[keep]
                mean = float(np.nanmean(selected)) if np.isfinite(selected).any() else float("nan")
                rows.append({"system": name, "alpha": alpha, "n": n, "metric": metric, "value": mean})
    if progress:
        progress(1.0, "done")
    return pd.DataFrame(rows)


def ranking_agreement(grid: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Kendall tau between the system ranking at each setting and the ranking under IoU (alpha = 0)."""
    table = grid[grid.metric == metric]
    reference = table[table.alpha == 0].groupby("system").value.mean().to_dict()
    rows = []
    for (alpha, n), group in table.groupby(["alpha", "n"]):
        scores = dict(zip(group.system, group.value))
        winner = max(scores, key=scores.get) if scores else ""
        rows.append({"alpha": alpha, "n": n, "kendall_tau": kendall_tau(reference, scores), "winner": winner})
    return pd.DataFrame(rows)
