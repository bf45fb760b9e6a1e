"""What the Leaderboard and the Per-query page show of one evaluation: the shown systems' per-query values with
their means, intervals and tests, as one typed result (:class:`Scores`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.data import Run
from evalcore.evaluation.evaluator import AlignedRun, Evaluator
from evalcore.evaluation.groups import results_by_group
from evalcore.evaluation.options import Relevance, Scoring
from evalcore.evaluation.results import Results, evaluate_runs
from evalcore.io.tables import leaderboard_metrics
from evalcore.stats.compare import PairComparison
from evalcore.stats.groups import GroupedScores, Grouping


@dataclass(frozen=True)
class Scores:
    """The per-query values of the shown systems (``results``, read-only; their means with bootstrap intervals
    and the tests between systems are computed once each, when first asked for) and the relevance from which MAP and
    recall count an image as relevant (``threshold``)."""

    results: Results
    threshold: float

    @property
    def systems(self) -> list[str]:
        return self.results.systems

    @property
    def metrics(self) -> list[str]:
        return self.results.metrics

    @property
    def counts(self) -> dict[str, dict[str, int]]:
        return self.results.counts

    def summary(self) -> pd.DataFrame:
        """Means with 95% bootstrap intervals (columns ``low`` and ``high``) of every system and metric."""
        return self.results.table().rename(columns={"ci_low": "low", "ci_high": "high"})

    def comparisons(self, metric: str) -> list[PairComparison]:
        """Paired randomization and t-tests between every two systems on ``metric``, Holm-corrected over the pairs."""
        return self.results.comparisons(metric)

    def p_values(self, metric: str) -> pd.DataFrame:
        """Systems x systems: the Holm-corrected randomization p-value of each pair on ``metric`` (NaN on the
        diagonal)."""
        matrix = pd.DataFrame(np.nan, index=self.systems, columns=self.systems)
        for pair in self.comparisons(metric):
            matrix.loc[pair.system_a, pair.system_b] = matrix.loc[pair.system_b, pair.system_a] = pair.p_randomization_holm
        return matrix

    def by_group(self, grouping: Grouping, metric: str, pair: tuple[str, str] | None = None) -> GroupedScores:
        """``metric`` by group of queries (:func:`evalcore.evaluation.groups.results_by_group`): every system's mean
        and interval per group, and the paired tests of ``pair`` (none where None) per group, Holm-corrected across
        the groups: the Leaderboard's "By group" view."""
        return results_by_group(self.results, grouping, [metric], [metric] if pair is not None else [],
                                [pair] if pair is not None else None)

    def per_query_values(self, metric: str) -> pd.DataFrame:
        """One metric as a queries x systems table."""
        return pd.DataFrame({system: pd.Series(self.results.metric_values(system, metric),
                                               index=self.results.query_ids(system))
                             for system in self.systems})

    def per_query_long(self) -> pd.DataFrame:
        """Every per-query value, one row per (system, query, metric)."""
        metrics = self.metrics
        frames = [pd.DataFrame({"system": system,
                                "query_id": np.repeat(self.results.query_ids(system), len(metrics)),
                                "metric": np.tile(metrics, len(self.results.query_ids(system))),
                                "value": self.results.values(system).ravel()})
                  for system in self.systems]
        return pd.concat(frames, ignore_index=True)


def leaderboard_names(evaluator: Evaluator, relevance: Relevance, ks: Sequence[int]) -> list[str]:
    """The leaderboard's metrics (:func:`evalcore.io.tables.leaderboard_metrics`: the chosen measure's before
    nn-IoU's) at the cut-offs ``ks``, for the evaluator's label targets."""
    chosen = relevance.measure if relevance.measure is not None else relevance.nn_iou
    return leaderboard_metrics(tuple(ks), evaluator.label_targets(), chosen.key)


def shown_scores(evaluator: Evaluator, runs: Sequence[Run | AlignedRun], relevance: Relevance,
                 ks: Sequence[int], shown: Sequence[str] | None = None) -> Scores:
    """The leaderboard's metrics (:func:`leaderboard_names`) for ``runs``; with ``shown``, only those of them (the
    group on screen and the metric in focus), each with the value the whole table gives it
    (:attr:`~evalcore.evaluation.options.Scoring.part_of`)."""
    names = leaderboard_names(evaluator, relevance, ks)
    scoring = Scoring(names) if shown is None else Scoring(tuple(shown), part_of=tuple(names))
    return Scores(evaluate_runs(evaluator, runs, scoring, relevance), relevance.threshold)


def largest_differences(values: pd.DataFrame, system_a: str, system_b: str,
                        count: int = 20) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The queries both systems were scored on (their two columns of ``values``, a queries x systems table) and
    the ``count`` queries where they differ most, with the difference ``A - B``.

    >>> values = pd.DataFrame({"a": [0.1, 0.9, 0.5], "b": [0.2, 0.1, None]}, index=["q1", "q2", "q3"])
    >>> pair, top = largest_differences(values, "a", "b", 1)
    >>> list(pair.index), list(top.index), round(float(top["A - B"].iloc[0]), 1)
    (['q1', 'q2'], ['q2'], 0.8)
    """
    pair = values[[system_a, system_b]].dropna()
    differences = (pair[system_a] - pair[system_b]).rename("A - B")
    top = pd.concat([pair, differences], axis=1).reindex(differences.abs().sort_values(ascending=False).index)
    return pair, top.head(count)
