"""The evidence of the 'Choose a measure' page: ASL curves, the swap rate, identical systems and the verdict."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from evalcore.compare import compare_systems
from evalcore.data import Run
from evalcore.evaluation import Evaluator
from evalcore.measure_comparison import (
    ALL_POWER,
    ALL_QUERIES,
    ROUNDING,
    SWAP_RATE,
    MeasureComparison,
    SwapCount,
    asl_curve,
    compare_measures,
    identical_pairs,
    ndcg_metric,
    sampled_power_column,
    swap_count,
    swap_splits,
    verdict,
)
from evalcore.measures import parse_measure
from evalcore.options import Relevance

from .conftest import random_world

# Three systems on four queries, in quarters so that every mean is exact.
VALUES = np.array([[1.0, 0.5, 0.0],
                   [0.25, 0.5, 0.5],
                   [0.75, 0.5, 0.25],
                   [0.0, 1.0, 0.25]])
PAIRS = [(0, 1), (0, 2), (1, 2)]
SPLITS = [(np.array([0, 1]), np.array([2, 3])), (np.array([0, 2]), np.array([1, 3]))]


def test_asl_curve_of_three_systems_by_hand():
    # Pairs (a, b), (a, c), (b, c) with achieved significance levels 0.004, 0.03 and 0.2.
    assert asl_curve([0.004, 0.03, 0.2], (0.001, 0.004, 0.005, 0.05, 0.1, 0.5)) == pytest.approx(
        [0, 0, 1 / 3, 2 / 3, 2 / 3, 1])  # strictly below: 0.004 is not significant at 0.004
    assert np.isnan(asl_curve([], (0.05,))[0])


def test_swap_count_by_hand():
    # Differences a-b: 0.5, -0.25, 0.25, -1; a-c: 1, -0.25, 0.5, -0.25; b-c: 0.5, 0, 0.25, 0.75.
    # Split 1 (A = q0 q1, B = q2 q3): a-b 0.125 vs -0.375 swapped; a-c 0.375 vs 0.125; b-c 0.25 vs 0.5.
    # Split 2 (A = q0 q2, B = q1 q3): a-b 0.375 vs -0.625 swapped; a-c 0.75 vs -0.25 swapped; b-c 0.375 vs 0.375.
    assert swap_count(VALUES, PAIRS, SPLITS).swaps == 3
    assert swap_count(VALUES, PAIRS, SPLITS).rate == 0.5
    # Only differences above 0.2 on both sets count: split 1 keeps b-c alone.
    assert swap_count(VALUES, PAIRS, SPLITS, min_difference=0.2) == SwapCount(swaps=2, decided=4)
    assert np.isnan(swap_count(VALUES, [], SPLITS).rate)


def plain_swap_count(values, pairs, splits, min_difference=0.0) -> tuple[int, int]:
    """One split and one pair at a time, each half's mean difference over the queries both systems define."""
    swaps = decided = 0
    for first, second in splits:
        for a, b in pairs:
            means = []
            for half in (first, second):
                d = values[half, a] - values[half, b]
                d = d[np.isfinite(d)]
                means.append(d.mean() if len(d) else np.nan)
            above = max(min_difference, ROUNDING)
            if abs(means[0]) > above and abs(means[1]) > above:
                decided += 1
                swaps += int(np.sign(means[0]) != np.sign(means[1]))
    return swaps, decided


@pytest.mark.parametrize("seed", range(5))
def test_swap_count_equals_the_plain_loop_on_random_data(seed):
    rng = np.random.default_rng(seed)
    values = rng.random((60, 5)).round(2)
    values[rng.random(values.shape) < 0.1] = np.nan
    values[:, 4] = values[:, 3]  # an identical pair: never decided
    pairs = list(combinations(range(5), 2))
    splits = swap_splits(60, 20, 30, seed)
    for at in (0.0, 0.0512):  # 0.0512 is no mean of up to 20 differences of hundredths: no tie with the bin
        found = swap_count(values, pairs, splits, at)
        assert (found.swaps, found.decided) == plain_swap_count(values, pairs, splits, at)
        assert found.decided > 0


def test_swap_splits_are_disjoint_seeded_halves():
    splits = swap_splits(11, 5, 3, seed=4)
    assert all(len(a) == len(b) == 5 and not set(a) & set(b) for a, b in splits)
    assert all((x[0] == y[0]).all() for x, y in zip(splits, swap_splits(11, 5, 3, seed=4)))


def test_identical_systems_are_flagged_and_left_out_of_the_pair_counts():
    assert identical_pairs(np.array([[0.5, 0.5, 0.5], [np.nan, np.nan, 0.0]]), ["a", "b", "c"]) == [("a", "b")]
    concepts, kg = random_world(3, images=80, vocabulary=15)
    evaluator = Evaluator(concepts, kg)
    rng = np.random.default_rng(2)
    ids = list(concepts.ids)
    runs = [Run(f"system{s}", {q: tuple(rng.choice(ids, 12, replace=False)) for q in ids}) for s in range(3)]
    runs.append(Run("copy of system0", dict(runs[0].rankings)))
    result = compare_measures(evaluator, ["iou", "nn-iou"], runs, samples=200, subsample=30, subsample_repeats=2)
    assert result.identical.to_dict("records") == [{"system A": "system0", "system B": "copy of system0",
                                                     "identical": "same top-10 lists"}]
    table = result.table.set_index("measure")
    assert table.loc["iou", "significant pairs"].endswith("/5")  # 6 pairs less the identical one
    assert "1 pair of identical systems is left out of the counts" in verdict(result)
    # The curve on all queries is the share of raw randomization p-values below each level, as compare_systems
    # computes them alone on the five distinguishable pairs.
    metric = ndcg_metric(parse_measure("iou"), 10)
    evaluation = evaluator.evaluate(runs, [metric], Relevance.of(measure="iou"))
    per_query = {n: dict(zip(r.query_ids, r.values[metric])) for n, r in evaluation.systems.items()}
    p_values = [c.p_randomization for c in compare_systems(per_query, samples=200)
                if {c.system_a, c.system_b} != {"system0", "copy of system0"}]
    curve = result.asl[(result.asl.measure == "iou") & (result.asl.queries == ALL_QUERIES)]
    assert curve.share.tolist() == asl_curve(p_values)
    assert table.loc["iou", ALL_POWER] == asl_curve(p_values, (0.05,))[0]
    assert list(dict.fromkeys(result.asl.queries)) == [ALL_QUERIES, "30 queries"]  # no smaller samples below 30
    assert 0 <= table.loc["iou", SWAP_RATE] <= 1


def comparison(power, swaps, ties, identical=0, subsample=100) -> MeasureComparison:
    column = sampled_power_column(subsample) if subsample else ALL_POWER
    table = pd.DataFrame({"measure": ["iou", "nn-iou", "dice"][:len(power)], column: power,
                          SWAP_RATE: swaps, "ties@5": ties})
    flagged = pd.DataFrame([{"system A": "a", "system B": f"b{i}", "identical": "same top-10 lists"}
                            for i in range(identical)], columns=["system A", "system B", "identical"])
    return MeasureComparison(table, pd.DataFrame(), pd.DataFrame(), "CUI@10", ("a", "b", "c"), 200,
                             identical=flagged, subsample=subsample)


def test_verdict_names_the_measure_the_evidence_favours_and_why():
    assert verdict(comparison([0.40, 0.67, 0.50], [0.08, 0.03, 0.05], [160, 184, 160])) == (
        "nn-iou tells more system pairs apart at p < 0.05 on 100-query samples (0.67 vs 0.40 for iou) and swaps "
        "fewer pairs across query sets (3% vs 8%), at a cost of more ties at rank 5 (92% of queries vs 80%).")
    # A tie on power goes to the fewer swaps; more swaps and fewer ties are said as such.
    assert verdict(comparison([0.5, 0.6, 0.6], [0.02, 0.06, 0.05], [160, 150, 100])) == (
        "dice tells more system pairs apart at p < 0.05 on 100-query samples (0.60 vs 0.50 for iou) but swaps more "
        "pairs across query sets (5% vs 2%), with fewer ties at rank 5 (50% of queries vs 80%).")
    assert verdict(comparison([0.92, 0.93], [0.02, 0.02], [176, 170])) == (
        "nn-iou tells slightly more system pairs apart at p < 0.05 on 100-query samples (0.93 vs 0.92 for iou) and "
        "swaps as many pairs across query sets (2% vs 2%), with fewer ties at rank 5 (85% of queries vs 88%).")
    assert verdict(comparison([0.7, 0.6], [0.02, 0.02], [160, 160], identical=2)) == (
        "The evidence favours iou: no other measure tells more system pairs apart at p < 0.05 on 100-query samples "
        "(0.70) or swaps fewer pairs across query sets; 2 pairs of identical systems are left out of the counts.")


def test_verdict_when_no_pair_is_told_apart():
    assert verdict(comparison([0.0, 0.0], [0.1, 0.2], [100, 90], subsample=0)).startswith(
        "No measure tells any pair of the systems apart at p < 0.05 on all queries: the evidence favours none")


def test_verdict_without_two_systems():
    empty = MeasureComparison(pd.DataFrame({"measure": ["iou"]}), pd.DataFrame(), pd.DataFrame(), "CUI@10", (), 10)
    assert verdict(empty).startswith("No verdict")


def test_progress_moves_forward_within_every_pass():
    concepts, kg = random_world(4, images=70, vocabulary=15)
    rng = np.random.default_rng(1)
    ids = list(concepts.ids)
    runs = [Run(f"system{s}", {q: tuple(rng.choice(ids, 10, replace=False)) for q in ids}) for s in range(3)]
    reports: list[tuple[float, str]] = []
    compare_measures(Evaluator(concepts, kg), ["iou", "nn-iou", "dice"], runs, samples=100, subsample=20,
                     subsample_repeats=2, progress=lambda done, text: reports.append((done, text)))
    fractions = [done for done, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    passes = {text for _, text in reports if text.startswith("Ranking the pool by")}
    assert len(passes) == 3 and len(reports) > 2 * 3 + 1  # reports within the passes, not only between steps
