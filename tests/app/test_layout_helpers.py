"""The evalcore rules behind issue #23's layout items: which ablation system to open on, which metric keeps a
reader's choice across measures, the leaderboard's metric list, label query counts and the one number rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.io.tables import (
    SCORE_DECIMALS,
    equivalent_metric,
    grouped_metrics,
    label_query_counts,
    leaderboard_metrics,
    metric_family,
    score_table,
)
from evalcore.metrics.registry import default_metric_names, metric_names_for_measure, parse_metric
from evalcore.relevance.measures import MEASURES
from evalcore.studies.ablation import ALPHAS, HOPS, informative_systems


def random_grid(seed: int) -> tuple[pd.DataFrame, dict[str, float]]:
    """A grid of 5 systems over the ablation's settings, one constant, the others with a known spread."""
    rng = np.random.default_rng(seed)
    rows, spreads = [], {}
    for position in range(5):
        system = f"system {position}"
        values = np.full(len(ALPHAS) * len(HOPS), rng.uniform()) if position == 0 else rng.uniform(size=len(ALPHAS)
                                                                                                    * len(HOPS))
        spreads[system] = float(values.max() - values.min())
        settings = [(a, n) for n in HOPS for a in ALPHAS]
        rows += [{"system": system, "alpha": a, "n": n, "metric": "nn-CUI@10", "value": v}
                 for (a, n), v in zip(settings, values)]
    return pd.DataFrame(rows), spreads


@pytest.mark.parametrize("seed", range(5))
def test_informative_systems_orders_by_spread_and_puts_the_constant_one_last(seed):
    grid, spreads = random_grid(seed)
    order = informative_systems(grid, "nn-CUI@10")
    assert order[-1] == "system 0"
    assert sorted(order) == sorted(spreads)
    assert [spreads[s] for s in order] == sorted(spreads.values(), reverse=True)
    # The order depends on the values, not on the rows' order.
    assert informative_systems(grid.sample(frac=1, random_state=seed), "nn-CUI@10") == order


def test_informative_systems_over_several_metrics_takes_each_systems_largest_spread():
    grid = pd.DataFrame({"system": ["a", "a", "b", "b", "a", "a", "b", "b"],
                         "metric": ["P@30[modality]"] * 4 + ["nn-CUI@10"] * 4,
                         "alpha": [0, 1] * 4, "n": [1] * 8,
                         "value": [0.5, 0.5, 0.2, 0.3, 0.1, 0.9, 1.0, 1.0]})
    assert informative_systems(grid, "P@30[modality]") == ["b", "a"]
    assert informative_systems(grid, "nn-CUI@10") == ["a", "b"]
    assert informative_systems(grid, ["P@30[modality]", "nn-CUI@10"]) == ["a", "b"]  # 0.8 against 0.1


@pytest.mark.parametrize("measure", sorted(MEASURES))
def test_leaderboard_metrics_keep_the_standard_report_and_put_the_measure_first(measure):
    targets = ("modality", "organ")
    names = leaderboard_metrics((5, 10), targets, measure)
    standard = default_metric_names((5, 10), targets)
    assert names[-len(standard):] == standard
    own = names[:-len(standard)]
    assert set(own) == set(metric_names_for_measure((5, 10), targets, measure)) - set(standard)
    assert all(parse_metric(m).relevance == measure for m in own)
    # The measure's metrics sit in families of their own, shown before IoU's and nn-IoU's.
    first_group = next(iter(grouped_metrics(names).values()))
    if own:
        assert next(iter(first_group)) == metric_family(own[0]) != "CUI"


@pytest.mark.parametrize("before, after", [("dice", "tversky"), ("tversky", "dice"), ("dice", "nn-tversky")])
def test_equivalent_metric_moves_a_measures_metric_to_the_next_measure(before, after):
    metrics = leaderboard_metrics((5, 10), ("organ",), after)
    for name in metric_names_for_measure((5, 10), ("organ",), before):
        moved = equivalent_metric(name, metrics, after)
        spec = parse_metric(name)
        if name in metrics:
            assert moved == name
        else:
            assert parse_metric(moved).relevance == after
            assert (parse_metric(moved).family, parse_metric(moved).k) == (spec.family, spec.k)


def test_label_query_counts_name_each_target_once_with_the_largest_count():
    summary = pd.DataFrame({"system": ["a", "b", "a", "b", "a"],
                            "metric": ["P@5[organ]", "P@5[organ]", "P@5[modality]", "P@5[modality]", "CUI@5"],
                            "mean": [0.5] * 5, "low": [0.4] * 5, "high": [0.6] * 5,
                            "queries": [5987, 5900, 9927, 9927, 9927]})
    counts = {"a": {"queries_evaluated": 9927}, "b": {"queries_evaluated": 9900}}
    assert label_query_counts(summary, list(summary.metric.unique()), counts) == [
        "Precision on organ: 5,987 of 9,927 queries have an organ label",
        "Precision on modality: 9,927 of 9,927 queries have a modality label"]


def test_score_table_shows_every_float_with_the_same_decimals_and_leaves_the_frame_alone():
    frame = pd.DataFrame({"system": ["a", "b", "c"], "P@5": [97.545, 90.3217, 100.0], "queries": [1, 2000, 9927]})
    before = frame.copy()
    text = score_table(frame, ["P@5"]).hide(axis="index").to_string(delimiter="|")
    cells = [line.split("|")[1] for line in text.splitlines()[1:]]
    assert cells == ["0.9755", "0.9032", "1.0000"]
    assert all(len(c.split(".")[1]) == SCORE_DECIMALS for c in cells)
    assert [line.split("|")[2] for line in text.splitlines()[1:]] == ["1", "2,000", "9,927"]
    pd.testing.assert_frame_equal(frame, before)
