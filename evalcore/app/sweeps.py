"""The Ablation page's computations: the alpha x n grid (over the paper's isolated subset or every query), one
measure parameter's sweep, and how far the systems' order moves from IoU's."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from evalcore.data import Run
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.relevance.measures import MeasureSpec
from evalcore.studies.ablation import ablation, ranking_agreement


def isolated_at(relevance: MeasureSpec) -> MeasureSpec:
    """The nn-IoU setting whose top 30 the isolated subset compares with IoU's: ``relevance``, at n = 1 (the
    paper's distance) where its n is 0, at which no top 30 would change.

    >>> from evalcore.relevance.measures import measure_spec
    >>> isolated_at(measure_spec("nn-iou", alpha=0.3, n=0)).name, isolated_at(measure_spec("nn-iou", alpha=0.3, n=2)).name
    ('nn-iou(alpha=0.3,n=1)', 'nn-iou(alpha=0.3,n=2)')
    """
    return relevance if relevance.hops else relevance.with_parameters(n=1)


def ablation_grid(evaluator: Evaluator, runs: Sequence[Run], metrics: Sequence[str], isolated: bool,
                  relevance: Relevance, progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """The alpha x n grid (:func:`evalcore.studies.ablation.ablation`, under ``relevance``'s other options) of
    ``runs`` and retrieval by nn-IoU; ``isolated``: over the queries whose top 30 change at :func:`isolated_at`
    ``relevance``'s nn-IoU. The grid's ``attrs["queries"]`` says over how many queries."""
    return ablation(evaluator, list(runs), list(metrics), isolated_at(relevance.nn_iou) if isolated else None,
                    relevance, progress)


def agreement_with_iou(grid: pd.DataFrame, metric: str, systems: Sequence[str]) -> pd.DataFrame:
    """Kendall tau between the order of ``systems`` by ``metric`` at each setting and their order under IoU: n x
    alpha (:func:`evalcore.studies.ablation.ranking_agreement`)."""
    return ranking_agreement(grid[grid.system.isin(systems)], metric).pivot(index="n", columns="alpha",
                                                                          values="kendall_tau")
