"""Summaries of an evaluation, shared by the Python API, the command line and the dashboard.

:class:`Results` wraps the per-query values of :meth:`Evaluator.evaluate` and derives from them,
with the statistics of :mod:`evalcore.stats.compare` (docs/DESIGN.md §3): the mean of each metric with its
bootstrap confidence interval, the long per-query table, and pairwise comparisons (paired
randomization test, paired t-test, Holm correction over the pairs). :func:`evaluate_runs` is the
one entry point that evaluates and summarises; ``evalcore.evaluate``, ``evaluate --json`` /
``compare`` and the dashboard's leaderboard all print its numbers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict
from functools import cached_property

import numpy as np
import pandas as pd

from evalcore.data import Run
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import AlignedRun, Evaluation, Evaluator
from evalcore.evaluation.options import Relevance, Scoring, Statistics
from evalcore.io.tables import latex_table, shown_percent
from evalcore.kept import Kept
from evalcore.metrics.registry import mean_scales, parse_metric
from evalcore.stats.compare import PairComparison, bootstrap_cis, compare_columns, draws_store

#: The most decimals a LaTeX table writes: a double holds about 17 significant digits.
MAX_LATEX_DIGITS = 17

TABLE_COLUMNS = ["system", "metric", "mean", "ci_low", "ci_high", "queries"]
COMPARISON_COLUMNS = ["system_a", "system_b", "mean_difference", "p_randomization", "p_t_test",
                      "p_randomization_holm", "p_t_test_holm", "queries"]


def finite_or_none(value: float | None) -> float | None:
    """A number as JSON carries it: ``None`` where undefined (NaN, infinite or missing).

    >>> finite_or_none(0.5), finite_or_none(float("nan"))
    (0.5, None)
    """
    return float(value) if value is not None and math.isfinite(value) else None


class Results:
    """Per-query values of an evaluation and what is summarised from them.

    ``table()`` and ``compare(metric)`` are computed once and kept; the object pickles, so that a
    cache (``st.cache_data``) can hold it. Means exclude undefined values (NaN: a query with
    IDCG = 0, a query without a label), which ``counts`` reports per system.
    """

    def __init__(self, evaluation: Evaluation, statistics: Statistics | None = None, draws: Kept | None = None):
        """``draws``: where the random draws of the intervals and tests are kept for the next call (the
        evaluator's, so that a dashboard re-evaluating after a slider move draws them once); by default its own."""
        self.evaluation = evaluation
        self.statistics = statistics or Statistics()
        self.draws = draws if draws is not None else draws_store()
        self._comparisons = Kept()  # per metric, for every caller

    def __repr__(self) -> str:
        params = self.evaluation.params
        return (f"<Results: {len(self.systems)} systems x {len(self.metrics)} metrics, alpha={params.get('alpha')}, "
                f"n={params.get('n')}, {shown_percent(self.statistics.confidence)} bootstrap CIs>")

    @property
    def systems(self) -> list[str]:
        return list(self.evaluation.systems)

    @property
    def metrics(self) -> list[str]:
        return list(self.evaluation.metric_names)

    @property
    def params(self) -> dict:
        return dict(self.evaluation.params)

    @property
    def counts(self) -> dict[str, dict[str, int]]:
        """Per system: queries evaluated, unknown IDs, queries excluded per metric, ..."""
        return {name: dict(counts) for name, counts in self.evaluation.counts.items()}

    def query_ids(self, system: str) -> tuple[str, ...]:
        return self.evaluation.systems[self._system(system)].query_ids

    def _metric(self, metric: str) -> str:
        """The evaluated metric ``metric`` names (by its canonical name, so ``AP@10`` is ``MAP@10``), or refused."""
        if not isinstance(metric, str):
            raise ParameterError(f"metric: expected a metric name as text, got {metric!r:.60}")
        if metric in self.metrics:
            return metric
        canonical = parse_metric(metric).name
        if canonical not in self.metrics:
            raise ParameterError(f"metric {metric!r} was not evaluated; evaluated: {', '.join(self.metrics)}")
        return canonical

    def metric_name(self, metric: str) -> str:
        """The evaluated metric ``metric`` names, by its canonical name (``AP@10`` is ``MAP@10``); refused, naming the
        evaluated ones, where it is none."""
        return self._metric(metric)

    def metric_values(self, system: str, metric: str) -> np.ndarray:
        """One metric's per-query values of one system (in ``query_ids(system)`` order), read-only: the evaluation's
        own array, not a copy (results shared by a dashboard's sessions are read, never written)."""
        metric = self._metric(metric)
        view = self.evaluation.systems[self._system(system)].values[metric].view()
        view.flags.writeable = False
        return view

    def __sizeof__(self) -> int:
        """Bytes of the per-query values held (``sys.getsizeof``, by which a :class:`~evalcore.kept.Kept` store
        counts what it keeps)."""
        return object.__sizeof__(self) + sum(values.nbytes for result in self.evaluation.systems.values()
                                             for values in result.values.values())

    def values(self, system: str) -> np.ndarray:
        """Per-query values of one system: queries (``query_ids(system)``) x metrics (``metrics``)."""
        result = self.evaluation.systems[self._system(system)]
        return np.column_stack([result.values[m] for m in self.metrics]) if self.metrics else np.empty((0, 0))

    def means(self) -> dict[str, dict[str, float]]:
        """``{system: {metric: mean}}``, the means of ``evaluate --json``'s ``systems``."""
        return self.evaluation.means()

    @cached_property
    def _table(self) -> pd.DataFrame:
        means = self.means()
        scales = mean_scales(self.metrics)  # gm_map: averaged, and its interval drawn, on the log scale
        # The resamples depend only on the number of queries (and the seed), so systems evaluated over as many
        # queries share one bootstrap call: the same intervals as one call per system, drawn once.
        by_size: dict[int, list[str]] = {}
        for system in self.systems:
            by_size.setdefault(len(self.query_ids(system)), []).append(system)
        intervals = {}
        for systems in by_size.values():
            # One matrix of every column (systems after each other, each one's metrics in order), filled once.
            # Each system's queries in the order of their IDs: resamples drawn by position would otherwise pick other
            # queries when a run file lists them in another order (and other ones than the tests pair).
            results = [self.evaluation.systems[self._system(system)] for system in systems]
            # Column by column in memory (each column's summary reads it whole; a row-major matrix took a third longer)
            columns = np.empty((len(results[0].query_ids), len(results) * len(self.metrics)), order="F")
            for position, (result, metric) in enumerate((result, metric) for result in results
                                                        for metric in self.metrics):
                columns[:, position] = result.values[metric][result.id_order]
            cis = bootstrap_cis(columns, self.statistics.confidence,
                                samples=self.statistics.bootstrap_samples, seed=self.statistics.seed, draws=self.draws,
                                scales=[scales.get(metric) for _ in results for metric in self.metrics])
            for position, system in enumerate(systems):
                intervals[system] = cis[position * len(self.metrics):(position + 1) * len(self.metrics)]
        rows = [(system, metric, means[system][metric], ci.low, ci.high, ci.queries)
                for system in self.systems for metric, ci in zip(self.metrics, intervals[system])]
        return pd.DataFrame(rows, columns=TABLE_COLUMNS)

    def table(self) -> pd.DataFrame:
        """One row per system x metric: ``mean``, ``ci_low``, ``ci_high`` (percentile bootstrap over
        queries) and ``queries`` (the number with a defined value)."""
        return self._table.copy()

    def intervals(self) -> dict[str, dict[str, tuple[float, float]]]:
        """``{system: {metric: (ci_low, ci_high)}}``."""
        intervals: dict[str, dict[str, tuple[float, float]]] = {system: {} for system in self.systems}
        for row in self._table.itertuples(index=False):
            intervals[row.system][row.metric] = (row.ci_low, row.ci_high)
        return intervals

    def per_query(self) -> pd.DataFrame:
        """Long table ``system, query_id, metric, value`` (NaN = excluded), as ``--per-query`` writes it."""
        return self.evaluation.per_query_frame()

    def compare(self, metric: str) -> pd.DataFrame:
        """Every pair of systems on ``metric`` over the queries both evaluated: mean difference (a - b),
        two-sided paired randomization and t-test p-values, and both Holm-adjusted over the pairs."""
        return pd.DataFrame([asdict(pair) for pair in self.comparisons(metric)], columns=COMPARISON_COLUMNS)

    def comparisons(self, metric: str) -> list[PairComparison]:
        """:meth:`compare` as :class:`~evalcore.stats.compare.PairComparison` records, computed once per metric for every
        caller (sessions of a dashboard sharing these results wait for one computation)."""
        metric = self._metric(metric)

        def compare(_: object) -> list[PairComparison]:
            per_system = self.evaluation.systems
            return compare_columns({system: per_system[system].query_ids for system in self.systems},
                                   {system: self.metric_values(system, metric) for system in self.systems},
                                   samples=self.statistics.randomization_samples, seed=self.statistics.seed,
                                   draws=self.draws, scale=mean_scales([metric]).get(metric))

        return list(self._comparisons.computed(metric, compare))

    def to_dict(self, compare: Sequence[str] = ()) -> dict:
        """JSON-ready summary: ``systems`` ({system: {metric: mean}}), ``intervals`` ({system: {metric:
        [ci_low, ci_high]}}), ``statistics`` (with ``smallest_p_randomization``, the floor ``1 / (B + 1)`` of the
        randomization test's p-values), ``params``, ``counts`` and, for the metrics in ``compare``,
        ``comparisons`` ({metric: [pair, ...]}). Undefined numbers are ``None``."""
        payload = {
            "systems": {system: {m: finite_or_none(v) for m, v in values.items()} for system, values in self.means().items()},
            "intervals": self.interval_bounds(),
            "statistics": {**asdict(self.statistics),
                           "smallest_p_randomization": self.statistics.smallest_randomization_p},
            "params": self.params,
            "counts": {"images": self.evaluation.params.get("candidates"), **self.counts},
        }
        if compare:
            payload["comparisons"] = {
                metric: [{key: (finite_or_none(value) if isinstance(value, float) else value) for key, value in row.items()}
                         for row in self.compare(metric).to_dict(orient="records")]
                for metric in compare}
        return payload

    def interval_bounds(self) -> dict[str, dict[str, list[float | None]]]:
        """:meth:`intervals` as JSON lists, ``None`` where undefined: ``evaluate --json``'s ``intervals``."""
        return {system: {metric: [finite_or_none(low), finite_or_none(high)] for metric, (low, high) in per_metric.items()}
                for system, per_metric in self.intervals().items()}

    def to_json(self, compare: Sequence[str] = (), indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(compare), indent=indent)

    def to_latex(self, metrics: Sequence[str] | None = None, intervals: bool = True, digits: int = 4) -> str:
        """A booktabs ``tabular``: one row per system, one column per metric, ``mean [ci_low, ci_high]``, under a
        comment line with the settings; written by :func:`evalcore.io.tables.latex_table`, the one LaTeX writer (the
        dashboard's download), without its ``table`` float, bold and small intervals."""
        if isinstance(metrics, str):
            raise ParameterError(f"metrics: expected a list of metric names, got the string {metrics!r:.60}")
        chosen = [self._metric(m) for m in metrics] if metrics is not None else self.metrics
        repeated = next((m for position, m in enumerate(chosen) if m in chosen[:position]), None)
        if repeated is not None:
            raise ParameterError(f"metrics: {repeated} is named twice (by itself or another of its names); give it once")
        if not chosen:
            raise ParameterError(f"metrics: name at least one; evaluated: {', '.join(self.metrics)}")
        if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= MAX_LATEX_DIGITS:
            raise ParameterError(f"digits: expected a whole number from 0 to {MAX_LATEX_DIGITS}, got {digits!r:.60}")
        params = self.evaluation.params
        note = (f"% CBIR Lens: alpha={params.get('alpha')}, n={params.get('n')}, KG mode {params.get('kg_mode')}, "
                f"{params.get('gain')} gain; {shown_percent(self.statistics.confidence)} bootstrap CI over queries "
                f"({self.statistics.bootstrap_samples} resamples)")
        summary = self._table.rename(columns={"ci_low": "low", "ci_high": "high"})
        return latex_table(summary, chosen, None, digits, systems=self.systems, intervals="inline" if intervals else None,
                           best_in_bold=False, notes=[note], final_newline=True)

    def _system(self, system: str) -> str:
        if system not in self.evaluation.systems:
            raise ParameterError(f"unknown system {system!r}; evaluated: {', '.join(self.systems)}")
        return system


def evaluate_runs(evaluator: Evaluator, runs: Sequence[Run | AlignedRun], scoring: Scoring | None = None,
                  relevance: Relevance | None = None, statistics: Statistics | None = None,
                  progress: Callable[[float, str], None] | None = None) -> Results:
    """Evaluate runs on the evaluator's dataset and summarise them: the one code path behind the API, the
    command line's ``evaluate`` and ``compare`` and the dashboard. ``scoring`` names the metrics (default: the
    standard report, :class:`~evalcore.evaluation.options.Scoring`), ``relevance`` how they measure relevance
    (:class:`~evalcore.evaluation.options.Relevance`) and ``statistics`` the intervals and tests of the summary.

    >>> from evalcore.data import ConceptSets
    >>> concepts = ConceptSets(("q", "x", "y"), (frozenset({"C0000001"}), frozenset({"C0000001"}), frozenset()))
    >>> run = Run("s", {"q": ("y", "x")})
    >>> evaluate_runs(Evaluator(concepts), [run], Scoring(["CUI@1", "CUI@2"])).means()
    {'s': {'CUI@1': 0.0, 'CUI@2': 0.6309297535714575}}
    """
    relevance = relevance or Relevance()
    names = (scoring or Scoring()).metric_names(evaluator.label_targets(), relevance, evaluator.judged is not None)
    part_of = scoring.part_of if scoring is not None and scoring.part_of is not None else ()
    return Results(evaluator.evaluate(runs, names, relevance, progress, part_of=part_of), statistics, evaluator.draws)
