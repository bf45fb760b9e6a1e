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


def grid_options(relevance: Relevance, isolated: bool) -> Relevance:
    """The options an alpha x n grid reads of ``relevance``: all but its nn-IoU setting, which only the isolated
    subset reads (:func:`isolated_at`). Every point of the grid sets alpha and n itself, so over every query the grid
    is the same at any slider setting: given the default setting instead, it is computed once for all of them.

    >>> from evalcore.relevance.measures import measure_spec
    >>> moved = Relevance(measure_spec("nn-iou", alpha=0.7, n=2), gain="exponential")
    >>> grid_options(moved, False) == grid_options(Relevance(gain="exponential"), False), grid_options(moved, True) == moved
    (True, True)
    """
    return relevance if isolated else relevance.at(Relevance().nn_iou)


def grid_metrics(names: Sequence[str], with_runs: bool) -> list[str]:
    """The metrics the Ablation page's grid opens on, of the metric ``names`` offered: label precision and the
    runs' nn-CUI@10, or without runs IoU's CUI@10 (retrieval by nn-IoU, the only system then, scores 1 under
    nn-CUI by construction).

    >>> grid_metrics(["CUI@10", "nn-CUI@10", "P@30[modality]"], with_runs=False)
    ['P@30[modality]', 'CUI@10']
    """
    return [m for m in ("P@30[modality]", "nn-CUI@10" if with_runs else "CUI@10") if m in names] or ["nn-CUI@10"]


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
