"""Ablation over alpha and the distance threshold n (the paper's Fig. 3), and a sweep of any numeric
parameter of a relevance measure."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd

from .baselines import NN_IOU
from .compare import kendall_tau
from .data import Run
from .errors import ParameterError
from .evaluation import AlignedRun, Evaluator
from .measures import MeasureSpec, measure_spec, parse_measure
from .metrics import parse_metric
from .options import Relevance

ALPHAS = tuple(round(a / 10, 1) for a in range(11))
HOPS = (0, 1, 2, 3)
RELEVANCE_SYSTEM = NN_IOU.title


def isolated_queries(evaluator: Evaluator, measure: MeasureSpec, k: int) -> tuple[str, ...]:
    """Queries whose top-k by IoU and by ``measure`` (nn-IoU in the paper) differ (as sets), the paper's isolated
    subset."""
    by_iou = evaluator.engine.retrieve_by(measure_spec("iou"), k)
    by_nn = evaluator.engine.retrieve_by(measure, k)
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
    settings = [(a, n) for n in hops for a in alphas]
    specs = [measure_spec("nn-iou", alpha=a, n=n) for a, n in settings]
    # Settings that reduce to IoU last: IoU then reads the cached codes of an nn-IoU setting
    # (PairwiseEngine._plan_of) instead of coding the whole pool once more. Rows keep the settings' order.
    effective = [evaluator.engine.resolve(spec) for spec in specs]
    computed = sorted(range(len(settings)), key=lambda i: effective[i].key == "iou")
    # Settings of the same effective measure (n = 0 or alpha = 0: IoU) have the same values: computed once, at the
    # first of them.
    first_of: dict[MeasureSpec, MeasureSpec] = {}
    for position in computed:
        first_of.setdefault(effective[position], specs[position])

    def ranked(spec: MeasureSpec) -> AlignedRun | None:
        if not with_relevance_retrieval:
            return None
        # Every alpha of a plan is ranked by its code groups, made before its first pass (kept by the engine).
        evaluator.engine.group_codes_by(spec, depth)
        return evaluator.relevance_ranking(spec, depth, depth, name=RELEVANCE_SYSTEM)

    rankings = _one_ahead(list(first_of.values()), ranked)
    rows_of: dict[int, list[dict]] = {}
    means_of: dict[MeasureSpec, list[tuple[str, str, float]]] = {}
    for step, position in enumerate(computed):
        alpha, n = settings[position]
        if progress:
            progress(step / len(settings), f"alpha = {alpha}, n = {n}")
        if effective[position] not in means_of:
            ranking = next(rankings)
            means_of[effective[position]] = _means(evaluator, [*runs, *([ranking] if ranking is not None else [])], metric_names,
                                                   specs[position], subset, gain)
        rows_of[position] = [{"system": name, "alpha": alpha, "n": n, "metric": metric, "value": mean}
                             for name, metric, mean in means_of[effective[position]]]
    rankings.close()
    if progress:
        progress(1.0, "done")
    return pd.DataFrame([row for position in range(len(settings)) for row in rows_of[position]])


def _one_ahead(items: Sequence[Any], compute: Callable[[Any], Any]) -> Iterator[Any]:
    """``compute(item)`` of each item, in order, the next one computed in a thread of its own while the caller uses
    this one: the grid evaluates one setting (mostly small NumPy steps, which hold the interpreter) while the engine
    ranks the pool for the next (large ones, which leave it free), so that two cores both work.

    >>> list(_one_ahead([1, 2, 3], lambda x: 10 * x))
    [10, 20, 30]
    """
    with ThreadPoolExecutor(1) as ahead:
        pending = [ahead.submit(compute, item) for item in items[:1]]
        for following in [*items[1:], None]:
            current = pending.pop().result()
            if following is not None:
                pending.append(ahead.submit(compute, following))
            yield current


def _means(evaluator: Evaluator, systems: Sequence[Run | AlignedRun], metric_names: Sequence[str], spec: MeasureSpec,
           subset: set[str] | None, gain: str) -> list[tuple[str, str, float]]:
    """(system, metric, mean over the queries of ``subset``, all when None) at one setting of the grid."""
    # One scoring thread: the grid's other thread ranks the next setting meanwhile (scoring on two threads as well
    # made the Ablation page's first draw 10 % slower on 2 cores).
    evaluation = evaluator.evaluate(systems, metric_names, Relevance(spec, gain=gain), threads=1)
    means = []
    for name, result in evaluation.systems.items():
        keep = np.array([q in subset for q in result.query_ids]) if subset is not None else slice(None)
        for metric, values in result.values.items():
            selected = values[keep]
            means.append((name, metric, float(np.nanmean(selected)) if np.isfinite(selected).any() else float("nan")))
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


def parameter_range(measure: MeasureSpec | str, parameter: str) -> tuple[float, float]:
    """The values ``parameter`` may take with the measure's other parameters fixed.

    Hop weights stay non-increasing: w_d lies between w_{d+1} (or 0) and w_{d-1} (or 1); the
    distance threshold n runs over the ablation's hops.

    >>> parameter_range("nn-iou-hops(w1=0.6,w2=0.3,w3=0.1)", "w2"), parameter_range("nn-iou", "n")
    ((0.1, 0.6), (0, 3))
    """
    spec = parse_measure(measure)
    params = spec.params
    if parameter not in params:
        raise ParameterError(f"{spec.name} has no parameter {parameter!r}; it has {', '.join(params) or 'none'}")
    if spec.measure.weights:
        hop = int(parameter[1:])
        return params.get(f"w{hop + 1}", 0.0), params.get(f"w{hop - 1}", 1.0)
    definition = spec.measure.parameter(parameter)
    if definition.integer:
        return int(definition.low), min(int(definition.high), max(HOPS))
    return definition.low, definition.high


def sweep_values(measure: MeasureSpec | str, parameter: str, points: int = 11) -> list[float]:
    """Evenly spaced values of one parameter over its range (every whole number for n).

    >>> sweep_values("tversky", "a", 5)
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    low, high = parameter_range(measure, parameter)
    if isinstance(low, int) and isinstance(high, int):
        return list(range(low, high + 1))
    return sorted({round(float(v), 6) for v in np.linspace(low, high, points)})


def parameter_sweep(evaluator: Evaluator, runs: Sequence[Run], metric_names: Sequence[str],
                    measure: MeasureSpec | str, parameter: str, values: Sequence[float],
                    with_relevance_retrieval: bool = True, gain: str = "linear",
                    progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """Mean of each metric per (system, value of one parameter of ``measure``), the others fixed.

    Columns: system, parameter, setting (the parameter's value), metric, value. Retrieval by
    the measure is re-ranked at every setting; uploaded runs stay fixed and only their graded
    relevance changes.
    """
    spec = parse_measure(measure)
    depth = max([parse_metric(m).k or 1 for m in metric_names] + [1])
    rows = []
    for step, value in enumerate(values):
        setting = spec.with_parameters(**{parameter: value})
        if progress:
            progress(step / len(values), setting.name)
        systems: list[Run | AlignedRun] = list(runs)
        if with_relevance_retrieval:
            systems.append(evaluator.relevance_ranking(setting, depth, depth, name=f"Retrieval by {spec.key}"))
        evaluation = evaluator.evaluate(systems, metric_names, Relevance.of(measure=setting, gain=gain))
        for name, means in evaluation.means().items():
            for metric, mean in means.items():
                rows.append({"system": name, "parameter": parameter, "setting": value, "metric": metric, "value": mean})
    if progress:
        progress(1.0, "done")
    return pd.DataFrame(rows, columns=["system", "parameter", "setting", "metric", "value"])
