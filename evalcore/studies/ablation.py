"""Ablation over alpha and the distance threshold n (the paper's Fig. 3), a sweep of any parameter of a relevance
measure, and what a page says about them: the axis titles and ranges from the measure registry, a title naming
the measure and the parameters swept, and why a curve is flat."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import numpy as np
import pandas as pd

from evalcore.data import Run
from evalcore.engine import codes_give
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import AlignedRun, Evaluator, built_in_system
from evalcore.evaluation.options import Relevance
from evalcore.metrics.registry import mean_scales, parse_metric
from evalcore.relevance.measures import MeasureSpec, measure_spec, nn_iou_measure
from evalcore.stats.compare import id_order, kendall_tau, query_means

ALPHAS = tuple(round(a / 10, 1) for a in range(11))
HOPS = (0, 1, 2, 3)
#: The progress bar's weight of a setting whose pass codes the pool under a count plan not coded before, against 1
#: for a setting ranking codes already made: on ROCOv2 test the first pass of each n took 1.5 s, the others 0.1 s.
NEW_PLAN_WEIGHT = 15
#: The share of a setting's weight its ranking takes when the grid re-ranks retrieval by the measure (the rest is the
#: scoring): a ranking is a pass over the pool, the scoring reads only the top k of each list.
RANKING_SHARE = 0.8
#: The share of a ranking's bar that coding and grouping the pool takes before the groups are ranked: on ROCOv2
#: test the coding pass took 1.5 s, ranking its groups 0.1 s.
CODING_SHARE = 0.9
#: How often (seconds) the grid relays the progress of a pass running ahead in its own thread.
POLL_SECONDS = 0.25
#: Spread (max - min over the settings) under which a curve counts as flat: the means are sums of floats, so one
#: computed by another path may differ in its last bits.
FLAT_SPREAD = 1e-9
#: The parameters that only weigh near matches (concepts related in the KG): without a KG they change nothing.
NEAR_MATCH_PARAMETERS = ("alpha", "n")


def retrieval_system(measure: MeasureSpec) -> str:
    """The name of retrieval by ``measure`` in a sweep of its parameters.

    >>> retrieval_system(measure_spec("tversky", a=0.2, b=0.3)), retrieval_system(measure_spec("nn-iou")) == RELEVANCE_SYSTEM
    ('Retrieval by Tversky', True)
    """
    return built_in_system(measure.measure.title)


#: The name of retrieval by nn-IoU in a sweep (the Table-1 baseline of the same name).
RELEVANCE_SYSTEM = retrieval_system(nn_iou_measure())


@dataclass(frozen=True)
class SweepAxis:
    """One parameter of a measure as a sweep shows it: its name, its plain-words label (from the measure registry)
    and the range it is swept over."""

    measure: MeasureSpec
    parameter: str
    label: str
    low: float
    high: float
    integer: bool

    @property
    def title(self) -> str:
        """The axis title: the parameter in words, its name and its range.

        >>> sweep_axis(measure_spec("tversky"), "a").title
        "weight of the query's concepts the candidate lacks (a, from 0 to 1)"
        """
        return f"{self.label} ({self.parameter}, from {_number(self.low)} to {_number(self.high)})"

    @property
    def named(self) -> str:
        """The parameter's name with its words, for titles and captions: "a (weight of ...)"."""
        return f"{self.parameter} ({self.label})"

    def values(self, points: int = 11) -> list[float]:
        """Evenly spaced values over the range; every whole number for an integer parameter."""
        if self.integer:
            return list(range(int(self.low), int(self.high) + 1))
        return sorted({round(float(v), 6) for v in np.linspace(self.low, self.high, points)})


def _number(value: float) -> str:
    """A range end as a reader writes it: 0, 0.25, 1."""
    return f"{float(value):g}"


def parameter_range(measure: MeasureSpec, parameter: str) -> tuple[float, float]:
    """The values ``parameter`` is swept over with the measure's other parameters fixed: the registry's sweep range.

    Hop weights stay non-increasing as well: w_d lies between w_{d+1} (or 0) and w_{d-1} (or 1).

    >>> parameter_range(measure_spec("nn-iou-hops", w1=0.6, w2=0.3, w3=0.1), "w2"), parameter_range(measure_spec("nn-iou"), "n")
    ((0.1, 0.6), (0, 3))
    """
    params = measure.params
    if parameter not in params:
        raise ParameterError(f"{measure.name} has no parameter {parameter!r}; it has {', '.join(params) or 'none'}")
    definition = measure.measure.parameter(parameter)
    low, high = definition.sweep_range
    if measure.measure.weights:
        hop = int(parameter[1:])
        return max(low, params.get(f"w{hop + 1}", low)), min(high, params.get(f"w{hop - 1}", high))
    if definition.integer:
        return int(low), int(high)
    return low, high


def sweep_axis(measure: MeasureSpec, parameter: str) -> SweepAxis:
    """How a sweep of ``parameter`` shows it, from the measure registry.

    >>> axis = sweep_axis(measure_spec("nn-iou"), "n")
    >>> axis.title, axis.values()
    ('largest link distance of related concepts (n, from 0 to 3)', [0, 1, 2, 3])
    """
    low, high = parameter_range(measure, parameter)
    definition = measure.measure.parameter(parameter)
    return SweepAxis(measure, parameter, definition.label or definition.help or parameter, low, high, definition.integer)


def sweep_values(measure: MeasureSpec, parameter: str, points: int = 11) -> list[float]:
    """Evenly spaced values of one parameter over its sweep range (every whole number for n).

    >>> sweep_values(measure_spec("tversky"), "a", 5)
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    return sweep_axis(measure, parameter).values(points)


def grids_alpha_and_n(measure: MeasureSpec) -> bool:
    """Whether the Ablation page shows the alpha x n grid of nn-IoU for ``measure`` (nn-IoU itself, and IoU, which
    is its n = 0 curve) rather than a sweep of one of the measure's own parameters."""
    return measure.key in ("iou", "nn-iou")


def ablation_title(measure: MeasureSpec, parameter: str | None = None) -> str:
    """The Ablation page's title: the measure and the parameter swept, with its words.

    >>> ablation_title(measure_spec("tversky"), "b")
    "Ablation of Tversky: sweeping b (weight of the candidate's concepts the query lacks)"
    >>> ablation_title(measure_spec("dice"))
    'Ablation of Dice: no parameter to sweep'
    """
    if grids_alpha_and_n(measure):
        # Both parameters' words would fill three lines of a title: the page says them in the text below it.
        return "Ablation of nn-IoU: sweeping alpha and n"
    if not measure.params:
        return f"Ablation of {measure.measure.title}: no parameter to sweep"
    axis = sweep_axis(measure, parameter if parameter in measure.params else next(iter(measure.params)))
    return f"Ablation of {measure.measure.title}: sweeping {axis.named}"


# --- why a curve is flat -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FlatCurve:
    """A system whose metric has the same mean at every setting of a sweep, and why, in words (one sentence or
    two, the same for every system it applies to)."""

    system: str
    metric: str
    value: float
    reason: str


def flat_curves(grid: pd.DataFrame, measure: MeasureSpec, parameters: Sequence[str],
                has_kg: bool) -> list[FlatCurve]:
    """The (system, metric) curves of a sweep's ``grid`` (columns system, metric, value, one row per setting) that
    do not move over the settings of ``parameters`` of ``measure``, each with the reason.

    The reasons, first that applies: the measure's near-match parameters change nothing without a KG; retrieval
    by the swept measure (:func:`retrieval_system`) judged by that same measure ranks its own ideal lists, so it
    scores the best possible at every setting (the reference); a loaded run's lists are fixed, so a metric that
    does not read the measure cannot move; else no setting changes what the metric sees on this data.

    >>> grid = pd.DataFrame({"system": ["Retrieval by Tversky"] * 2 + ["run"] * 2, "metric": ["CUI@10{tversky}"] * 4,
    ...                      "setting": [0, 1] * 2, "value": [1.0, 1.0, 0.4, 0.6]})
    >>> [(c.system, c.value) for c in flat_curves(grid, measure_spec("tversky"), ["a"], has_kg=False)]
    [('Retrieval by Tversky', 1.0)]
    """
    reference = retrieval_system(measure)
    swept = " and ".join(parameters)
    every = f"every {swept}" if len(parameters) == 1 else f"every setting of {swept}"
    near_only = measure.uses_kg and all(p in NEAR_MATCH_PARAMETERS or measure.measure.weights for p in parameters)
    values = grid.groupby(["system", "metric"], sort=False).value
    spread = values.max() - values.min()
    found = []
    for (system, metric), width in spread.items():
        if not width <= FLAT_SPREAD:  # moves, or NaN: no query has a value, and nothing is drawn
            continue
        value = float(values.get_group((system, metric)).mean())
        judged_by = parse_metric(metric).relevance
        if near_only and not has_kg:
            reason = (f"No knowledge graph is loaded, and {swept} only weigh{'s' if len(parameters) == 1 else ''} "
                      "concepts related in it: every setting gives the same scores.")
        elif system == reference and judged_by == measure.key:
            reason = (f"{reference} ranks by the very measure {metric} judges with, so its lists are the best "
                      f"possible at {every} by construction: it is the reference the other systems are measured "
                      "against.")
        elif system != reference and judged_by != measure.key:
            reason = (f"A loaded run's lists are fixed, and {metric} does not use {measure.measure.title}, so {swept} "
                      "cannot change its score.")
        else:
            reason = f"On this data no value of {swept} changes what {metric} sees of the lists."
        found.append(FlatCurve(system, metric, value, reason))
    return found


# --- computing the grid and the sweep -----------------------------------------------------------------------------

def isolated_queries(evaluator: Evaluator, measure: MeasureSpec, k: int,
                     progress: Callable[[float], None] | None = None) -> tuple[str, ...]:
    """Queries whose top-k by IoU and by ``measure`` (nn-IoU in the paper) differ (as sets), the paper's isolated
    subset; ``progress(fraction)`` moves over its two passes over the pool."""
    by_iou = evaluator.engine.retrieve_by(measure_spec("iou"), k, (lambda f: progress(f / 2)) if progress else None)
    by_nn = evaluator.engine.retrieve_by(measure, k, (lambda f: progress((1 + f) / 2)) if progress else None)
    differ = [i for i in range(len(by_iou)) if set(by_iou[i]) != set(by_nn[i])]
    return tuple(evaluator.concepts.ids[i] for i in differ)


#: The share of the bar the isolated subset's two passes over the pool take before the grid: each weighs about as
#: much as a grid setting coding the pool, and the grid holds three of those (n = 1, 2, 3) and 31 other settings.
ISOLATED_SHARE = 2 * NEW_PLAN_WEIGHT / (2 * NEW_PLAN_WEIGHT + 3 * NEW_PLAN_WEIGHT + 31)


def ablation(evaluator: Evaluator, runs: Sequence[Run], metric_names: Sequence[str], isolated_at: MeasureSpec | None,
             relevance: Relevance | None = None, progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """The Ablation page's alpha x n grid (:func:`ablation_grid`, under ``relevance``'s other options) of ``runs``
    and retrieval by nn-IoU: over every query, or with ``isolated_at`` (an nn-IoU setting) over the paper's
    isolated subset at it (its top 30 by IoU and by it differ), whose passes move the bar first.
    ``attrs["queries"]``: over how many queries."""
    queries = None
    share = 0.0
    if isolated_at is not None:
        share = ISOLATED_SHARE
        text = "the queries whose top 30 change when related concepts count"
        queries = isolated_queries(evaluator, isolated_at, 30,
                                   (lambda f: progress(share * f, text)) if progress else None)
    grid = ablation_grid(evaluator, runs, metric_names, queries=queries, relevance=relevance,
                         progress=(lambda f, text: progress(share + (1 - share) * f, text)) if progress else None)
    grid.attrs["queries"] = len(queries) if queries is not None else len(evaluator.concepts)
    return grid


def ablation_grid(evaluator: Evaluator, runs: Sequence[Run], metric_names: Sequence[str],
                  alphas: Sequence[float] = ALPHAS, hops: Sequence[int] = HOPS, with_relevance_retrieval: bool = True,
                  queries: Sequence[str] | None = None, relevance: Relevance | None = None,
                  progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """Mean of each metric per (system, alpha, n); ``queries`` restricts the mean to a subset.

    Retrieval by relevance is re-ranked at every setting; uploaded runs stay fixed and only
    their graded relevance changes. Every other option (gain, threshold, empty queries, ties, the query image) is
    ``relevance``'s (the defaults without one), so the grid's point at a table's own alpha and n is the table's
    number (:meth:`Relevance.at`).
    """
    base = relevance if relevance is not None else Relevance()
    settings = [(a, n) for n in hops for a in alphas]
    means = _setting_means(evaluator, runs, metric_names, [nn_iou_measure(a, n) for a, n in settings],
                           [f"alpha = {a}, n = {n}" for a, n in settings], base.at,
                           RELEVANCE_SYSTEM if with_relevance_retrieval else None,
                           set(queries) if queries is not None else None, progress)
    return pd.DataFrame([{"system": name, "alpha": alpha, "n": n, "metric": metric, "value": mean}
                         for (alpha, n), setting in zip(settings, means) for name, metric, mean in setting],
                        columns=["system", "alpha", "n", "metric", "value"])


def parameter_sweep(evaluator: Evaluator, runs: Sequence[Run], metric_names: Sequence[str],
                    measure: MeasureSpec, parameter: str, values: Sequence[float],
                    with_relevance_retrieval: bool = True, relevance: Relevance | None = None,
                    progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """Mean of each metric per (system, value of one parameter of ``measure``), the others fixed.

    Columns: system, parameter, setting (the parameter's value), metric, value. Retrieval by
    the measure (:func:`retrieval_system`) is re-ranked at every setting; uploaded runs stay fixed and only their
    graded relevance changes, every other option ``relevance``'s (:meth:`Relevance.at`).
    """
    base = relevance if relevance is not None else Relevance()
    means = _setting_means(evaluator, runs, metric_names, [measure.with_parameters(**{parameter: v}) for v in values],
                           [f"{parameter} = {_number(v)}" for v in values],
                           base.at,
                           retrieval_system(measure) if with_relevance_retrieval else None, None, progress)
    return pd.DataFrame([{"system": name, "parameter": parameter, "setting": value, "metric": metric, "value": mean}
                         for value, setting in zip(values, means) for name, metric, mean in setting],
                        columns=["system", "parameter", "setting", "metric", "value"])


def _setting_means(evaluator: Evaluator, runs: Sequence[Run], metric_names: Sequence[str],
                   specs: Sequence[MeasureSpec], labels: Sequence[str],
                   relevance: Callable[[MeasureSpec], Relevance], ranked_as: str | None, subset: set[str] | None,
                   progress: Callable[[float, str], None] | None) -> list[list[tuple[str, str, float]]]:
    """(system, metric, mean) at each setting of ``specs`` (``labels``: each in words), scored under
    ``relevance(spec)``, of ``runs`` and (``ranked_as`` not None) retrieval by the setting named ``ranked_as``.

    Settings of the same effective measure (alpha = 0 or n = 0 give IoU) have the same values: computed once. The
    bar moves with each setting's weight (:data:`NEW_PLAN_WEIGHT`), within a setting with its pass over the pool.
    """
    depth = max([parse_metric(m).k or 1 for m in metric_names] + [1])
    effective = [evaluator.engine.resolve(spec) for spec in specs]
    # In the engine's pass order: a setting that reduces to IoU reads the cached codes of an nn-IoU setting instead
    # of coding the whole pool once more. Rows keep the settings' order.
    order = evaluator.engine.pass_order(range(len(specs)), effective.__getitem__)
    first_of: dict[MeasureSpec, int] = {}
    for position in order:
        first_of.setdefault(effective[position], position)
    computed = list(first_of.values())
    weights = _weights([effective[position] for position in computed])
    before = [0, *accumulate(weights)]
    ranking_share = RANKING_SHARE if ranked_as is not None else 0.0

    def report(step: int, fraction: float, doing: str) -> None:
        if progress:
            progress((before[step] + weights[step] * fraction) / before[-1],
                     f"setting {step + 1} of {len(computed)}, {labels[computed[step]]}: {doing}")

    def ranked(spec: MeasureSpec, within: Callable[[float], None]) -> AlignedRun | None:
        if ranked_as is None:
            return None
        # Every setting of a plan is ranked by its code groups, made before its first pass (kept by the engine): the
        # pass that makes them takes CODING_SHARE of this ranking's bar, the ranking of the groups the rest. Where
        # the engine does not group (an array backend, an executor), the ranking is the pass and takes it all.
        coded = [0.0]

        def coding(fraction: float) -> None:
            coded[0] = CODING_SHARE * fraction
            within(coded[0])

        start = CODING_SHARE if evaluator.engine.group_codes_by(spec, depth, coding) else coded[0]
        return evaluator.relevance_ranking(spec, depth, depth, name=ranked_as,
                                           progress=lambda f: within(start + (1 - start) * f))

    ranking_text = "ranking every image against every other"
    rankings = one_ahead([specs[position] for position in computed], ranked,
                         lambda step, f: report(step, ranking_share * f, ranking_text))
    means_of: dict[MeasureSpec, list[tuple[str, str, float]]] = {}
    for step, position in enumerate(computed):
        ranking = next(rankings)
        systems = [*runs, *([ranking] if ranking is not None else [])]
        means_of[effective[position]] = _means(
            evaluator, systems, relevance(specs[position]), metric_names, subset,
            lambda f, _, step=step: report(step, ranking_share + (1 - ranking_share) * f, "scoring the systems"))
    rankings.close()
    if progress:
        progress(1.0, f"all {len(computed)} settings")
    return [means_of[measure] for measure in effective]


def _weights(measures: Sequence[MeasureSpec]) -> list[int]:
    """Each computed setting's weight on the bar: :data:`NEW_PLAN_WEIGHT` where its pass codes the pool under a
    count plan not met before (IoU's plan, met after one whose codes give its values, reads those: :func:`codes_give`),
    else 1."""
    weights, plans = [], set()
    for measure in measures:
        plan = measure.plan()
        new = not any(codes_give(met, measure) for met in plans)
        weights.append(NEW_PLAN_WEIGHT if new else 1)
        plans.add(plan)
    return weights


def one_ahead(items: Sequence[Any], compute: Callable[[Any, Callable[[float], None]], Any],
              waiting: Callable[[int, float], None] | None = None) -> Iterator[Any]:
    """``compute(item, report)`` of each item, in order, the next one computed in a thread of its own while the
    caller uses this one: the grid evaluates one setting (mostly small NumPy steps, which hold the interpreter)
    while the engine ranks the pool for the next (large ones, which leave it free), so that two cores both work.

    While the caller waits for item i, ``waiting(i, fraction)`` is called in the caller's thread when it starts
    waiting and every :data:`POLL_SECONDS` after, with the last fraction that item's computation reported: a
    progress bar can only be drawn from the thread running the page.

    >>> list(one_ahead([1, 2, 3], lambda x, report: 10 * x))
    [10, 20, 30]
    """
    reported = [0.0] * len(items)

    def submit(ahead: ThreadPoolExecutor, index: int):
        def report(fraction: float) -> None:
            reported[index] = fraction

        return ahead.submit(compute, items[index], report)

    with ThreadPoolExecutor(1) as ahead:
        pending = submit(ahead, 0) if items else None
        for index in range(len(items)):
            current = pending
            drawn = None
            while True:
                # Drawn again only when the work moved: each draw is a message the browser lays out, on the
                # cores the grid is computed on.
                if waiting and not current.done() and reported[index] != drawn:
                    drawn = reported[index]
                    waiting(index, drawn)
                try:
                    result = current.result(timeout=POLL_SECONDS)
                    break
                except TimeoutError:
                    continue
            pending = submit(ahead, index + 1) if index + 1 < len(items) else None
            yield result


def _means(evaluator: Evaluator, systems: Sequence[Run | AlignedRun], relevance: Relevance,
           metric_names: Sequence[str], subset: set[str] | None,
           progress: Callable[[float, str], None]) -> list[tuple[str, str, float]]:
    """(system, metric, mean over the queries of ``subset``, all when None) at one setting of the grid."""
    # One scoring thread: the grid's other thread ranks the next setting meanwhile (scoring on two threads as well
    # made the Ablation page's first draw 10 % slower on 2 cores).
    evaluation = evaluator.evaluate(systems, metric_names, relevance, progress=progress, threads=1)
    means = []
    for name, result in evaluation.systems.items():
        if subset is None:
            kept, order = result.values, result.id_order
        else:
            keep = np.array([q in subset for q in result.query_ids], dtype=bool)
            kept = {metric: values[keep] for metric, values in result.values.items()}
            order = id_order([q for q in result.query_ids if q in subset])
        means += [(name, metric, mean) for metric, mean in query_means(order, kept, mean_scales(kept)).items()]
    return means


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


def informative_systems(grid: pd.DataFrame, metrics: str | Sequence[str]) -> list[str]:
    """The grid's systems, those whose ``metrics`` vary most over the settings first (spread: max - min of the
    setting means, the largest over ``metrics``), ties by name; a system constant on every setting (retrieval by
    nn-IoU under nn-CUI is 1 by construction; a loaded run's label precision does not depend on alpha or n) last,
    so that a page opens on a panel that says something.

    >>> grid = pd.DataFrame({"system": ["by nn-IoU"] * 2 + ["run a"] * 2 + ["run b"] * 2, "metric": ["nn-CUI@10"] * 6,
    ...                      "alpha": [0, 1] * 3, "n": [1] * 6, "value": [1.0, 1.0, 0.4, 0.6, 0.5, 0.9]})
    >>> informative_systems(grid, "nn-CUI@10")
    ['run b', 'run a', 'by nn-IoU']
    """
    chosen = [metrics] if isinstance(metrics, str) else list(metrics)
    values = grid[grid.metric.isin(chosen)].groupby(["system", "metric"]).value
    spread = (values.max() - values.min()).fillna(0.0).groupby(level="system").max()
    return sorted(spread.index, key=lambda system: (-round(float(spread[system]), 12), system))

