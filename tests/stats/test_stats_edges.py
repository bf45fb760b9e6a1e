"""Statistics one step beside the tested paths (hunt 28): a run's query order, a constant column, Holm beside an
undefined test, Kendall's tau of a ranking that ties every system."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.evaluation.evaluator import Evaluation, SystemResult
from evalcore.evaluation.options import Statistics
from evalcore.evaluation.results import Results
from evalcore.stats.compare import bootstrap_cis, holm, holm_of_defined, kendall_tau


def _results(systems: dict[str, tuple[tuple[str, ...], np.ndarray]], metrics: list[str]) -> Results:
    results = {name: SystemResult(name, ids, {metric: values[:, column] for column, metric in enumerate(metrics)}, {})
               for name, (ids, values) in systems.items()}
    return Results(Evaluation(results, {}, metrics), Statistics())


def test_means_and_intervals_do_not_depend_on_the_order_of_the_queries():
    """Was: the same values listed in another query order had intervals drawn over other queries (nn-CUI@10 on the
    demo: [0.90718, 0.91312] against [0.90694, 0.91296]) and means one digit apart in the last place, so that only
    one of two equal systems was marked best."""
    rng = np.random.default_rng(28)
    for _ in range(20):
        size = int(rng.integers(2, 300))
        ids = tuple(f"q{i}" for i in range(size))
        values = np.where(rng.random((size, 3)) < 0.1, np.nan, rng.random((size, 3)) / 3)
        shuffled = rng.permutation(size)
        table = _results({"A": (ids, values), "B": (tuple(ids[i] for i in shuffled), values[shuffled])},
                         ["CUI@5", "CUI@10", "MAP"]).table().set_index(["system", "metric"])
        for metric in ("CUI@5", "CUI@10", "MAP"):
            a, b = table.loc[("A", metric)], table.loc[("B", metric)]
            assert (a["mean"], a.ci_low, a.ci_high, a.queries) == (b["mean"], b.ci_low, b.ci_high, b.queries)


@pytest.mark.parametrize("value", [0.7, 0.1, 1 / 3, 0.9999999999999999])
@pytest.mark.parametrize("queries", [28, 100, 1000, 4321])
def test_a_constant_column_has_its_value_as_mean_and_as_both_bounds(value, queries):
    """Was: 1,000 queries of Prec@10 = 0.7 gave the mean 0.6999999999999998 and the interval [0.7000000000000004,
    0.7000000000000008], neither holding the other nor the value."""
    column = np.full((queries, 1), value)
    ci = bootstrap_cis(column, samples=500)[0]
    assert (ci.mean, ci.low, ci.high) == (value, value, value)
    results = _results({"S": (tuple(f"q{i}" for i in range(queries)), column)}, ["Prec@10"])
    assert results.means()["S"]["Prec@10"] == value and results.intervals()["S"]["Prec@10"] == (value, value)


def test_every_bound_and_mean_lies_within_the_values():
    rng = np.random.default_rng(5)
    for _ in range(200):
        size = int(rng.integers(1, 60))
        column = rng.choice([0.1, 0.2, 0.7, 1 / 3], size=size)[:, None] * rng.choice([1.0, 1 - 1e-15], size=(size, 1))
        ci = bootstrap_cis(column, samples=200, seed=int(rng.integers(0, 1000)))[0]
        assert column.min() <= ci.low <= ci.high <= column.max() and column.min() <= ci.mean <= column.max()


def _holm_by_hand(p_values: list[float]) -> list[float]:
    """Holm's step-down over the defined p-values, as R's p.adjust(p, "holm") with NA left out."""
    made = [(p, position) for position, p in enumerate(p_values) if np.isfinite(p)]
    adjusted = [float("nan")] * len(p_values)
    running = 0.0
    for rank, (p, position) in enumerate(sorted(made)):
        running = max(running, min(1.0, (len(made) - rank) * p))
        adjusted[position] = running
    return adjusted


def test_holm_leaves_an_undefined_test_out_as_r_does():
    """Was: an undefined pair counted as a test with p = 1 (3 x 0.00441 beside one, where R gives 2 x 0.00441)."""
    assert holm_of_defined([0.00441, float("nan"), 0.3]) == [pytest.approx(2 * 0.00441), pytest.approx(float("nan"),
                                                                                                       nan_ok=True), 0.3]
    rng = np.random.default_rng(11)
    for _ in range(500):
        p_values = [float(p) for p in rng.choice([0.001, 0.01, 0.04, 0.2, 1.0, np.nan], size=int(rng.integers(1, 9)))]
        expected = _holm_by_hand(p_values)
        found = holm_of_defined(p_values)
        assert np.allclose(found, expected, rtol=1e-15, atol=0, equal_nan=True), (p_values, found, expected)
    assert holm_of_defined([0.01, 0.02]) == holm([0.01, 0.02])


def test_kendall_tau_of_a_ranking_that_ties_every_system_is_undefined_unless_both_do():
    """Was 1 (perfect agreement) where one setting told no system apart; scipy gives NaN."""
    scipy_stats = pytest.importorskip("scipy.stats")
    assert np.isnan(kendall_tau({"a": 1.0, "b": 1.0, "c": 1.0}, {"a": 0.1, "b": 0.2, "c": 0.3}))
    assert np.isnan(kendall_tau({"a": 0.1, "b": 0.2}, {"a": 0.5, "b": 0.5}))
    assert kendall_tau({"a": 0.5, "b": 0.5}, {"a": 0.1, "b": 0.1}) == 1.0
    rng = np.random.default_rng(3)
    for _ in range(200):
        a, b = rng.integers(0, 4, size=6) / 4, rng.integers(0, 4, size=6) / 4
        names = [f"s{i}" for i in range(6)]
        expected = scipy_stats.kendalltau(a, b).statistic
        found = kendall_tau(dict(zip(names, a)), dict(zip(names, b)))
        if len(set(a)) == len(set(b)) == 1:
            assert found == 1.0
        else:
            assert found == pytest.approx(expected, nan_ok=True)


def test_evaluate_gives_the_same_numbers_for_a_run_whose_lines_are_in_another_order(tmp_path):
    """docs/CLI.md (evaluate's JSON): no mean, interval or test depends on the order of a run file's lines (was: the
    demo's overlap-noisy run sorted by query descending had nn-CUI@10 [0.90694, 0.91296] against [0.90718, 0.91312])."""
    import json

    from evalcore.cli import main
    from tests.conftest import DEMO

    lines = (DEMO / "runs" / "overlap-noisy.trec").read_text().splitlines(keepends=True)
    reordered = tmp_path / "reordered.trec"
    reordered.write_text("".join(sorted(lines, key=lambda line: line.split()[0], reverse=True)))
    payloads = []
    for run in (DEMO / "runs" / "overlap-noisy.trec", reordered):
        out = tmp_path / f"{run.stem}.json"
        assert main(["evaluate", "--concepts", str(DEMO / "concepts.csv"), "--kg", str(DEMO / "kg_edges.csv"),
                     "--run", str(run), "--metrics", "nn-CUI@10", "MAP@10", "--json", str(out)]) == 0
        payloads.append(json.loads(out.read_text()))
    assert payloads[0]["systems"] == payloads[1]["systems"] and payloads[0]["intervals"] == payloads[1]["intervals"]
