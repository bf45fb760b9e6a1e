"""The evidence of the 'Choose a measure' page: ASL curves, the swap rate, identical and circular systems, degraded
copies of a ranking, and a verdict only where the evidence gives one."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalcore.data import Run
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import AlignedRun, Evaluator, align_run
from evalcore.evaluation.options import Relevance
from evalcore.relevance.measures import measure_spec, parse_measure
from evalcore.stats.compare import compare_systems
from evalcore.studies.measure_comparison import (
    ALL_POWER,
    ALL_QUERIES,
    APART,
    PAIR_COLUMNS,
    RESAMPLE_COLUMNS,
    ROUNDING,
    SWAP_RATE,
    MeasureComparison,
    SwapCount,
    asl_curve,
    clear_lead,
    compare_measures,
    degraded_rankings,
    ideal_systems,
    identical_pairs,
    ndcg_metric,
    sampled_power_column,
    simulated_detector_run,
    swap_count,
    swap_splits,
    verdict,
)
from tests.conftest import random_world


def specs(*keys: str) -> list:
    """The measures ``keys`` at their defaults, as the comparison takes them."""
    return [measure_spec(key) for key in keys]


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
    # No degraded copies: the pair counts below are those of the four runs.
    result = compare_measures(evaluator, specs("iou", "nn-iou"), runs, samples=200, subsample=30, subsample_repeats=2,
                              levels=())
    assert result.identical.to_dict("records") == [{"system A": "system0", "system B": "copy of system0",
                                                     "identical": "same top-10 lists"}]
    table = result.table.set_index("measure")
    assert table.loc["iou", "significant pairs"].endswith("/5")  # 6 pairs less the identical one
    assert "1 pair of identical systems is left out of the counts" in verdict(result)
    # The curve on all queries is the share of raw randomization p-values below each level, as compare_systems
    # computes them alone on the five distinguishable pairs.
    metric = ndcg_metric(measure_spec("iou"), 10)
    evaluation = evaluator.evaluate(runs, [metric], Relevance.of(measure=parse_measure("iou")))
    per_query = {n: dict(zip(r.query_ids, r.values[metric])) for n, r in evaluation.systems.items()}
    p_values = [c.p_randomization for c in compare_systems(per_query, samples=200)
                if {c.system_a, c.system_b} != {"system0", "copy of system0"}]
    curve = result.asl[(result.asl.measure == "iou") & (result.asl.queries == ALL_QUERIES)]
    assert curve.share.tolist() == asl_curve(p_values)
    assert table.loc["iou", ALL_POWER] == asl_curve(p_values, (0.05,))[0]
    assert list(dict.fromkeys(result.asl.queries)) == [ALL_QUERIES, "30 queries"]  # no smaller samples below 30
    assert 0 <= table.loc["iou", SWAP_RATE] <= 1


def comparison(power, swaps, ties, identical=0, subsample=100, resamples=None, pairs=None) -> MeasureComparison:
    """A hand-made comparison of iou, nn-iou and dice (as many as ``power`` has) over three systems (three pairs)."""
    column = sampled_power_column(subsample) if subsample else ALL_POWER
    table = pd.DataFrame({"measure": ["iou", "nn-iou", "dice"][:len(power)], column: power,
                          SWAP_RATE: swaps, "ties@5": ties})
    flagged = pd.DataFrame([{"system A": "a", "system B": f"b{i}", "identical": "same top-10 lists"}
                            for i in range(identical)], columns=["system A", "system B", "identical"])
    return MeasureComparison(table, pd.DataFrame(), pd.DataFrame(), "CUI@10", ("a", "b", "c"), 200,
                             identical=flagged, subsample=subsample,
                             pairs=pairs if pairs is not None else pd.DataFrame(columns=PAIR_COLUMNS),
                             resamples=resamples if resamples is not None else pd.DataFrame(columns=RESAMPLE_COLUMNS))


def test_verdict_names_the_measure_the_evidence_favours_and_why():
    # 0.67 of 3 pairs is 2.0 pairs a sample on average; the next best is dice (0.50: 1.5 pairs); ties 184/200, 160/200.
    assert verdict(comparison([0.40, 0.67, 0.50], [0.08, 0.03, 0.05], [160, 184, 160])) == (
        "The evidence favours nn-iou: it tells more system pairs apart at p < 0.05 on 100-query samples than any "
        "other measure, 2.0 of 3 on average (0.6700), against 1.5 of 3 (0.5000) for dice, the next; it swaps fewer "
        "pairs across query sets (0.0300 vs 0.0500), at a cost of more ties at rank 5 (0.9200 of queries vs 0.8000); "
        "of the others, dice tells more system pairs apart than iou (0.5000 vs 0.4000).")
    assert verdict(comparison([0.92, 0.93], [0.02, 0.02], [176, 170])) == (
        "The evidence favours nn-iou: it tells slightly more system pairs apart at p < 0.05 on 100-query samples than "
        "any other measure, 2.8 of 3 on average (0.9300), against 2.8 of 3 (0.9200) for iou, the next; it swaps as "
        "many pairs across query sets (0.0200 vs 0.0200), with fewer ties at rank 5 (0.8500 of queries vs 0.8800).")
    assert verdict(comparison([0.7, 0.6], [0.02, 0.02], [160, 160], identical=2)) == (
        "The evidence favours iou: it tells more system pairs apart at p < 0.05 on 100-query samples than any other "
        "measure, 2.1 of 3 on average (0.7000), against 1.8 of 3 (0.6000) for nn-iou, the next; it swaps as many "
        "pairs across query sets (0.0200 vs 0.0200), with as many ties at rank 5 (0.8000 of queries vs 0.8000); 2 "
        "pairs of identical systems are left out of the counts.")


def test_a_tie_reads_as_a_tie():
    # The case: every measure tells every pair apart (1.00) and swaps none; no measure is favoured.
    text = verdict(comparison([1.0, 1.0, 1.0], [0.0, 0.0, 0.0], [160, 150, 160]))
    assert text == ("A tie: no measure clearly leads another; all 3 measures tell as many system pairs apart at p < "
                    "0.05 on 100-query samples, 3.0 of 3 on average (1.0000), and swap as many pairs across query sets "
                    "(0.0000); the evidence favours none of them.")
    # Level on power and no swap rate below every other one: none is favoured; each pair with fewer swaps is named
    # (without resamples, a lead is one at the decimals shown), the pair level on both ties.
    assert verdict(comparison([1.0, 1.0, 1.0], [0.0, 0.0, 0.01], [160, 150, 160])) == (
        "No measure leads every other: level on pairs apart, iou swaps fewer pairs across query sets than dice "
        "(0.0000 vs 0.0100), nn-iou fewer than dice (0.0000 vs 0.0100); every other pair of measures ties.")
    # Two level at the top, the third behind: each leads the third, pair by pair, and they tie with each other.
    assert verdict(comparison([0.9, 0.5, 0.9], [0.01, 0.01, 0.01], [160, 150, 160])) == (
        "No measure leads every other: iou tells more system pairs apart at p < 0.05 on 100-query samples than nn-iou "
        "(0.9000 vs 0.5000); dice tells more system pairs apart than nn-iou (0.9000 vs 0.5000); every other pair of "
        "measures ties.")


def test_level_on_power_the_fewer_swaps_decide_and_say_so():
    assert verdict(comparison([1.0, 1.0], [0.02, 0.0], [160, 160])) == (
        "The evidence favours nn-iou on stability alone: both measures tell as many system pairs apart at p < 0.05 "
        "on 100-query samples, 3.0 of 3 on average (1.0000), and nn-iou swaps fewer pairs across query sets (0.0000 "
        "vs 0.0200 for iou, the next).")


def resampled(criterion: str, by_measure: dict[str, list[float]]) -> pd.DataFrame:
    return pd.DataFrame([{"measure": m, "criterion": criterion, "resample": i, "value": v}
                         for m, values in by_measure.items() for i, v in enumerate(values)], columns=RESAMPLE_COLUMNS)


def test_a_lead_within_the_noise_of_the_samples_is_a_tie_and_beyond_it_a_verdict():
    column = sampled_power_column(100)
    # Means 0.75 and 0.70 on four samples; differences +0.4, -0.2, +0.2, -0.2: mean 0.05, sd 0.3, SE 0.15.
    noisy = resampled(column, {"iou": [0.9, 0.6, 0.9, 0.6], "nn-iou": [0.5, 0.8, 0.7, 0.8]})
    assert verdict(comparison([0.75, 0.70], [0.02, 0.02], [160, 160], resamples=noisy)).startswith(
        "A tie: no measure clearly leads another; both measures tell about as many system pairs apart at p < 0.05 on "
        "100-query samples, 2.1 to 2.2 of 3 on average (0.7000 to 0.7500), differences within the noise of the 4 "
        "query samples, and swap as many")
    # The same means, iou ahead on every sample (differences 0.04, 0.06, 0.05, 0.05: SE 0.004): a verdict.
    steady = resampled(column, {"iou": [0.74, 0.76, 0.75, 0.75], "nn-iou": [0.70, 0.70, 0.70, 0.70]})
    assert verdict(comparison([0.75, 0.70], [0.02, 0.02], [160, 160], resamples=steady)).startswith(
        "The evidence favours iou: it tells more system pairs apart at p < 0.05 on 100-query samples than any other "
        "measure, 2.2 of 3 on average (0.7500), against 2.1 of 3 (0.7000) for nn-iou, the next, beyond the noise of "
        "the 4 query samples;")


def test_the_favoured_measure_names_the_pairs_it_tells_apart_more_often():
    pairs = pd.DataFrame([{"measure": m, "system A": "a", "system B": b, "A - B": 0.1, "p, all queries": 0.001,
                           APART: share} for m, shares in {"iou": (1.0, 0.2, 0.5), "nn-iou": (1.0, 0.9, 0.6)}.items()
                          for b, share in zip(("b", "c", "d"), shares)], columns=PAIR_COLUMNS)
    text = verdict(comparison([0.57, 0.83], [0.0, 0.0], [160, 160], pairs=pairs))
    assert "; the pairs it tells apart more often: a vs c (0.9000 vs 0.2000); a vs d (0.6000 vs 0.5000);" in text


def test_verdict_when_no_pair_is_told_apart():
    assert verdict(comparison([0.0, 0.0], [0.1, 0.2], [100, 90], subsample=0)).startswith(
        "No measure tells any pair of the systems apart at p < 0.05 on all queries: the evidence favours none")


def test_verdict_with_one_measure_compares_nothing():
    assert verdict(comparison([0.6], [0.1], [100])).startswith("Only iou is compared: it tells 1.8 of 3 system pairs")


def test_clear_lead_is_a_t_statistic_above_two_as_scipy_computes_it():
    rng = np.random.default_rng(4)
    for _ in range(200):
        n = int(rng.integers(2, 30))
        ahead, behind = rng.random(n), rng.random(n) - rng.random() * 0.3
        t = stats.ttest_rel(ahead, behind).statistic
        if abs(t - 2) > 1e-9:  # a t of 2 exactly is a tie of the two sides' rounding
            assert clear_lead(ahead, behind) == (t > 2)


def test_swap_count_keeps_each_split_and_they_sum_to_the_totals():
    rng = np.random.default_rng(3)
    values = rng.random((40, 4))
    found = swap_count(values, list(combinations(range(4), 2)), swap_splits(40, 15, 25, seed=1))
    counts = np.array(found.by_split)
    assert counts.shape == (25, 2) and tuple(counts.sum(axis=0)) == (found.swaps, found.decided)
    rates = found.split_rates()
    assert np.allclose(rates[counts[:, 1] > 0], counts[counts[:, 1] > 0, 0] / counts[counts[:, 1] > 0, 1])


# --- the systems judged ------------------------------------------------------------------------------------------

def random_source(queries: int, pool: int, k: int, seed: int) -> AlignedRun:
    """Lists of k distinct pool rows, never the query, some cut short (padding) and some items unknown (-2); the
    queries are the pool's rows in turn (a run may ask a query more than once: its rows repeat)."""
    rng = np.random.default_rng(seed)
    rows = np.arange(queries) % pool
    documents = np.array([rng.choice(np.delete(np.arange(pool), q), k, replace=False) for q in rows])
    documents[rng.random(documents.shape) < 0.05] = -2
    documents[rng.random(queries) < 0.2, k - 3:] = -1
    return AlignedRun("source", rows, documents, {})


def test_degraded_copies_are_seeded_and_swap_a_share_p_for_outsiders():
    source = random_source(2000, 300, 10, seed=0)
    levels = (0.0, 0.1, 0.3, 1.0)
    copies = degraded_rankings(source, 300, levels, seed=5)
    again = degraded_rankings(source, 300, levels, seed=5)
    other = degraded_rankings(source, 300, levels, seed=6)
    assert all((a.documents == b.documents).all() for a, b in zip(copies, again))
    assert not (copies[1].documents == other[1].documents).all()
    # A copy depends on its seed and level only, not on the other levels asked for.
    assert (degraded_rankings(source, 300, (0.3,), seed=5)[0].documents == copies[2].documents).all()
    filled = source.documents != -1
    for level, copy in zip(levels, copies):
        swapped = copy.documents != source.documents
        assert not (swapped & ~filled).any()  # padding stays padding
        assert abs(swapped.sum() / filled.sum() - level) < 0.01  # ~17,600 positions: a share p of them
        for query, row, before in zip(source.query_rows, copy.documents, source.documents):
            new = row[row != before]
            assert query not in new and not set(new) & set(before) and len(set(new)) == len(new)
    assert (copies[0].documents == source.documents).all()


def test_degrading_refuses_what_it_cannot_do():
    source = random_source(5, 15, 10, seed=1)
    with pytest.raises(ParameterError, match="too small"):
        degraded_rankings(source, 15, (0.5,))
    with pytest.raises(ParameterError, match="must lie in"):
        degraded_rankings(random_source(5, 40, 10, seed=1), 40, (1.5,))


def test_a_metric_falls_as_more_of_the_top_is_swapped():
    concepts, kg = random_world(8, images=300, vocabulary=20)
    evaluator = Evaluator(concepts, kg)
    source = simulated_detector_run(concepts, 0.2, 0, 10)  # better than random, not any measure's ideal
    levels = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    copies = degraded_rankings(align_run(source, concepts, 10), len(concepts), levels, seed=0)
    for measure in ("iou", "nn-iou"):
        metric = ndcg_metric(parse_measure(measure), 10)
        means = evaluator.evaluate(copies, [metric], Relevance.of(measure=parse_measure(measure))).means()
        curve = [means[copy.name][metric] for copy in copies]
        assert all(a > b for a, b in zip(curve, curve[1:])), (measure, curve)


def test_a_systems_own_ideal_ranking_is_found():
    assert ideal_systems(np.array([[1.0, 1.0 - 1e-12, 0.3], [np.nan, 1.0, 1.0]]), ["a", "b", "c"]) == ["a", "b"]
    assert ideal_systems(np.full((2, 1), np.nan), ["undefined"]) == []


def test_the_ideal_ranking_under_a_measure_is_left_out_as_circular():
    concepts, kg = random_world(5, images=120, vocabulary=15)
    evaluator = Evaluator(concepts, kg)
    rng = np.random.default_rng(0)
    ids = list(concepts.ids)
    runs = [Run(f"system{s}", {q: tuple(rng.choice(ids, 12, replace=False)) for q in ids}) for s in range(2)]
    by_iou = evaluator.relevance_ranking(measure_spec("iou"), 10, 10, name="Retrieval by IoU")
    result = compare_measures(evaluator, specs("iou", "dice", "nn-iou"), [by_iou, *runs], samples=200, subsample=30,
                              subsample_repeats=2, levels=(0.3, 0.6))
    assert result.left_out.system.tolist() == ["Retrieval by IoU"]
    assert "iou, dice (NDCG@10 = 1 on every query)" in result.left_out["left out"].iloc[0]  # Dice orders as IoU
    # Judged: the two runs and two copies of the better one under IoU, the same systems under every measure.
    better = max(runs, key=lambda run: result.means.loc[run.name, "iou"]).name
    assert result.degraded_from == better and result.levels == (0.3, 0.6)
    assert set(result.systems) == {"system0", "system1", f"{better}, 0.3 of top 10 random",
                                   f"{better}, 0.6 of top 10 random"}
    assert list(result.means.index) == list(result.systems)
    assert "left out as circular (the ideal ranking under a compared measure): Retrieval by IoU" in verdict(result)


def test_without_a_neutral_system_a_simulated_detector_is_degraded():
    concepts, kg = random_world(5, images=120, vocabulary=15)
    evaluator = Evaluator(concepts, kg)
    by_iou = evaluator.relevance_ranking(measure_spec("iou"), 10, 10, name="Retrieval by IoU")
    reports: list[tuple[float, str]] = []
    result = compare_measures(evaluator, specs("iou", "nn-iou"), [by_iou], samples=100, subsample=30, subsample_repeats=2,
                              levels=(0.2, 0.4), progress=lambda done, text: reports.append((done, text)))
    assert result.left_out.system.tolist() == ["Retrieval by IoU"]
    assert result.degraded_from == "simulated detector (miss 0.3)"
    assert result.systems == ("simulated detector (miss 0.3)", "simulated detector (miss 0.3), 0.2 of top 10 random",
                              "simulated detector (miss 0.3), 0.4 of top 10 random")
    fractions = [done for done, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any(text == "Simulating a concept detector to degrade" for _, text in reports)


def test_pair_by_pair_evidence_agrees_with_the_tests_and_the_power():
    concepts, kg = random_world(6, images=150, vocabulary=15)
    evaluator = Evaluator(concepts, kg)
    rng = np.random.default_rng(1)
    ids = list(concepts.ids)
    runs = [Run(f"system{s}", {q: tuple(rng.choice(ids, 12, replace=False)) for q in ids}) for s in range(2)]
    result = compare_measures(evaluator, specs("iou", "nn-iou"), runs, samples=200, subsample=40, subsample_repeats=3)
    assert len(result.systems) == 2 + 5  # the runs and five degraded copies
    table = result.table.set_index("measure")
    for measure, pairs in result.pairs.groupby("measure", sort=False):
        assert len(pairs) == table.loc[measure, "pairs judged"] == 21
        # Sakai's power on the samples is the mean over the pairs of each pair's share of samples apart.
        assert pairs[APART].mean() == pytest.approx(table.loc[measure, sampled_power_column(40)])
        metric = ndcg_metric(parse_measure(measure), 10)
        source = align_run(next(run for run in runs if run.name == result.degraded_from), concepts, 10)
        systems = [*runs, *degraded_rankings(source, len(concepts), result.levels)]
        evaluation = evaluator.evaluate(systems, [metric], Relevance.of(measure=parse_measure(measure)))
        per_query = {n: dict(zip(r.query_ids, r.values[metric])) for n, r in evaluation.systems.items()}
        tested = {(c.system_a, c.system_b): c for c in compare_systems(per_query, samples=200)}
        for row in pairs.to_dict("records"):
            expected = tested[(row["system A"], row["system B"])]
            assert row["p, all queries"] == pytest.approx(expected.p_randomization)
            assert row["A - B"] == pytest.approx(expected.mean_difference)
    resamples = result.resamples.groupby(["criterion", "measure"]).size()
    assert resamples[(sampled_power_column(40), "iou")] == 3 and resamples[(SWAP_RATE, "iou")] == 50


def test_all_measures_tie_where_every_pair_is_far_apart():
    # Copies a whole half or all of the top apart: every pair differs on every sample under both measures.
    concepts, kg = random_world(2, images=200, vocabulary=12)
    evaluator = Evaluator(concepts, kg)
    source = simulated_detector_run(concepts, 0.0, 0, 10, name="detector")
    result = compare_measures(evaluator, specs("iou", "dice"), [source], samples=200, subsample=60, subsample_repeats=3,
                              levels=(0.5, 1.0))
    text = verdict(result)
    assert text.startswith("A tie: no measure clearly leads another; both measures tell as many system pairs apart at "
                           "p < 0.05 on 60-query samples, 3.0 of 3 on average (1.0000)"), text
    assert "the evidence favours none of them" in text, text


def test_verdict_without_two_systems():
    empty = MeasureComparison(pd.DataFrame({"measure": ["iou"]}), pd.DataFrame(), pd.DataFrame(), "CUI@10", (), 10)
    assert verdict(empty).startswith("No verdict")


def test_progress_moves_forward_within_every_pass():
    concepts, kg = random_world(4, images=70, vocabulary=15)
    rng = np.random.default_rng(1)
    ids = list(concepts.ids)
    runs = [Run(f"system{s}", {q: tuple(rng.choice(ids, 10, replace=False)) for q in ids}) for s in range(3)]
    reports: list[tuple[float, str]] = []
    compare_measures(Evaluator(concepts, kg), specs("iou", "nn-iou", "dice"), runs, samples=100, subsample=20,
                     subsample_repeats=2, progress=lambda done, text: reports.append((done, text)))
    fractions = [done for done, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    passes = {text for _, text in reports if text.startswith("Ranking the pool by")}
    assert len(passes) == 3 and len(reports) > 2 * 3 + 1  # reports within the passes, not only between steps
