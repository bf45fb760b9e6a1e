"""What the Leaderboard and the Per-query page show of one evaluation: the shown systems' per-query values with
their means, intervals and tests, as one typed result (:class:`Scores`); the 11-point precision-recall curves
(:func:`precision_recall_curves`); the paired effect sizes and the repeated-measures ANOVA with Tukey's HSD of one
metric (:func:`metric_effects`), which the Leaderboard and the report for a paper show beside the tests."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from evalcore.data import Run
from evalcore.evaluation.evaluator import AlignedRun, Evaluator
from evalcore.evaluation.groups import results_by_group
from evalcore.evaluation.options import Relevance, Scoring
from evalcore.evaluation.results import Results, evaluate_runs
from evalcore.io.tables import leaderboard_metrics
from evalcore.metrics.registry import IPREC_FAMILY, RECALL_LEVELS, parse_metric
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


# --- the 11-point precision-recall curves ------------------------------------------------------------------------

#: The columns of :func:`precision_recall_table`: one row per system and recall level.
PRECISION_RECALL_COLUMNS = ["system", "recall", "precision"]


def interpolated_precision_names(relevance: str) -> tuple[str, ...]:
    """The 11 metrics of trec_eval's interpolated precision at recall 0.0, 0.1, ..., 1.0
    (:data:`~evalcore.metrics.registry.RECALL_LEVELS`) read under the relevance measure keyed ``relevance``
    ("iou", "nn-iou", "qrels", "dice", ...), by their canonical names.

    >>> names = interpolated_precision_names("nn-iou")
    >>> len(names), names[0], names[-1]
    (11, 'nn-iprec_at_recall_0.00', 'nn-iprec_at_recall_1.00')
    >>> interpolated_precision_names("iou")[5], interpolated_precision_names("dice")[1]
    ('iprec_at_recall_0.50', 'iprec_at_recall_0.10{dice}')
    """
    return tuple(replace(parse_metric(f"{IPREC_FAMILY}{level:.2f}"), relevance=relevance).name
                 for level in RECALL_LEVELS)


def curve_relevance(metrics: Sequence[str], focus: str | None = None) -> str | None:
    """The relevance measure (its key) the precision-recall curves read: that of ``focus`` (the Leaderboard's metric
    in focus) where it reads one, else nn-IoU where a metric of ``metrics`` reads it, else the first relevance a
    metric of ``metrics`` reads; None where none reads a relevance (label metrics only).

    >>> curve_relevance(["CUI@10", "nn-CUI@10"], "CUI@10"), curve_relevance(["CUI@10", "nn-CUI@10"], "P@10[organ]")
    ('iou', 'nn-iou')
    >>> curve_relevance(["qrels-NDCG@10"]), curve_relevance(["P@5[modality]"]) is None
    ('qrels', True)
    """
    read = [parse_metric(name).relevance for name in metrics]
    if focus is not None and parse_metric(focus).relevance is not None:
        return parse_metric(focus).relevance
    if "nn-iou" in read:
        return "nn-iou"
    return next((key for key in read if key is not None), None)


@dataclass(frozen=True)
class PrecisionRecall:
    """The 11-point interpolated precision-recall curve of each system under the relevance measure keyed
    ``relevance`` (:func:`precision_recall_table`)."""

    relevance: str
    table: pd.DataFrame

    @property
    def names(self) -> tuple[str, ...]:
        """The metrics whose means the curve's points are (:func:`interpolated_precision_names`)."""
        return interpolated_precision_names(self.relevance)


def precision_recall_table(results: Results, relevance: str) -> pd.DataFrame:
    """Each system's 11-point interpolated precision-recall curve from ``results``, which hold the metrics of
    :func:`interpolated_precision_names`: the precision at recall level L is the mean over queries of
    ``iprec_at_recall_L`` (trec_eval's summary of the same measure), one row per system and level in the order of
    the systems and of the levels (columns :data:`PRECISION_RECALL_COLUMNS`)."""
    means = results.means()
    names = interpolated_precision_names(relevance)
    return pd.DataFrame([(system, level, means[system][name]) for system in results.systems
                         for level, name in zip(RECALL_LEVELS, names)], columns=PRECISION_RECALL_COLUMNS)


def precision_recall_curves(evaluator: Evaluator, runs: Sequence[Run | AlignedRun], relevance: Relevance,
                            key: str) -> PrecisionRecall:
    """The 11-point curves of ``runs`` (:func:`precision_recall_table`) under the relevance measure keyed ``key``,
    "relevant" as ``relevance`` says (its threshold, or the qrels' relevance level): the 11 metrics evaluated as a
    table of their own (:func:`~evalcore.evaluation.results.evaluate_runs`)."""
    results = evaluate_runs(evaluator, runs, Scoring(interpolated_precision_names(key)), relevance)
    return PrecisionRecall(key, precision_recall_table(results, key))


# --- effect sizes and the repeated-measures ANOVA ----------------------------------------------------------------

@dataclass(frozen=True)
class MetricEffects:
    """How large the differences between the systems on ``metric`` are: every pair's mean difference and Cohen's
    d_z with their bootstrap intervals (``sizes``, :data:`~evalcore.stats.effects.EFFECT_COLUMNS`), the one-way
    repeated-measures ANOVA in one row (``anova``, :data:`~evalcore.stats.effects.ANOVA_COLUMNS`) and Tukey's HSD,
    one row per pair (``tukey``, :data:`~evalcore.stats.effects.TUKEY_COLUMNS`)."""

    metric: str
    sizes: pd.DataFrame
    anova: pd.DataFrame
    tukey: pd.DataFrame


def metric_effects(results: Results, metric: str) -> MetricEffects:
    """:func:`~evalcore.stats.effects.effect_size_table` and :func:`~evalcore.stats.effects.anova_tables` of
    ``metric`` at the results' statistics (confidence, bootstrap resamples and seed, the resamples of the results'
    intervals): the numbers of ``compare --effect-sizes --anova``."""
    from evalcore.stats.effects import anova_tables, effect_size_table  # scipy.stats: only where asked for

    ids = {system: results.query_ids(system) for system in results.systems}
    values = {system: results.metric_values(system, metric) for system in results.systems}
    statistics = results.statistics
    sizes = effect_size_table(ids, values, confidence=statistics.confidence, samples=statistics.bootstrap_samples,
                              seed=statistics.seed, draws=results.draws)
    tables = anova_tables(ids, values, confidence=statistics.confidence)
    return MetricEffects(results.metric_name(metric), sizes, tables.summary, tables.tukey)
