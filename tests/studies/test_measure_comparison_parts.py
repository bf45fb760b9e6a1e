"""The comparison of measures computed once per measure: its shortcuts (the systems scored on their top K, the
query samples tested in one call) give the plain path's numbers, and a comparison with one more measure, its
parts kept, computes that measure only and gives the numbers of one computed afresh."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from evalcore.app.baselines import CAPTIONS, IOU, NN_IOU, setting_read
from evalcore.data import Run
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.kept import Kept
from evalcore.relevance.measures import measure_spec
from evalcore.stats.compare import draws_store
from evalcore.studies import measure_comparison as mc
from evalcore.studies.measure_comparison import compare_measures, ndcg_metric, paired_p_values, top_lists
from tests.conftest import random_world


def _runs(concepts, seed: int, count: int = 3, depth: int = 25) -> list[Run]:
    """Seeded random runs deeper than NDCG@10 reads, one with scores that tie (the readers' order decides)."""
    rng = np.random.default_rng(seed)
    ids = list(concepts.ids)
    runs = [Run(f"system{s}", {q: tuple(rng.choice(ids, depth, replace=False)) for q in ids}) for s in range(count)]
    tied = {q: tuple(float(x) for x in np.repeat(np.arange(depth // 5, 0, -1), 5)) for q in ids}
    return runs + [Run("tied scores", dict(runs[0].rankings), scores=tied)]


def _per_query(evaluator: Evaluator, systems, spec, metric: str) -> dict[str, pd.Series]:
    """Each system's per-query ``metric`` under ``spec`` (NaN: undefined) by query ID, as an evaluation gives it."""
    evaluation = evaluator.evaluate(list(systems), [metric], Relevance.of(measure=spec))
    return {name: pd.Series(result.values[metric], index=list(result.query_ids), dtype=np.float64)
            for name, result in evaluation.systems.items()}


def _drawn_rows(queries: int, size: int, seed: int) -> np.ndarray:
    """The rows of a sample of ``size`` queries, drawn as ``rng.choice`` draws them, in order."""
    return np.sort(np.random.default_rng(seed).choice(queries, size, replace=False))


def _same(a: mc.MeasureComparison, b: mc.MeasureComparison) -> None:
    """Every number two comparisons report, but the seconds they took."""
    for field in dataclasses.fields(a):
        first, second = getattr(a, field.name), getattr(b, field.name)
        if field.name == "seconds":
            continue
        if isinstance(first, pd.DataFrame):
            if field.name == "table":
                first, second = first.drop(columns="ranking s"), second.drop(columns="ranking s")
            pd.testing.assert_frame_equal(first, second, check_exact=True)
        else:
            assert first == second, field.name


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scores_on_the_top_k_equal_the_scores_of_the_whole_lists(seed):
    concepts, kg = random_world(seed, images=90, vocabulary=15)
    evaluator = Evaluator(concepts, kg)
    runs = _runs(concepts, seed)
    for spec in (measure_spec("iou"), measure_spec("nn-iou", alpha=0.3, n=2), measure_spec("tversky")):
        metric = ndcg_metric(spec, 10)
        whole = _per_query(evaluator, runs, spec, metric)
        top = _per_query(evaluator, top_lists(evaluator, runs, 10), spec, metric)
        assert list(top) == list(whole)
        for name in whole:
            pd.testing.assert_series_equal(top[name], whole[name], check_exact=True)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_samples_tested_in_one_call_give_each_samples_own_p_values(seed):
    rng = np.random.default_rng(seed)
    values = np.round(rng.random((400, 5)), 3)
    values[rng.random(values.shape) < 0.05] = np.nan  # undefined queries: pairs of different lengths
    values[:, 4] = values[:, 3]  # an identical pair
    pairs = [(a, b) for a in range(5) for b in range(a + 1, 5)]
    draws = draws_store()
    together = mc.sampled_p_values(values, pairs, 100, 6, 300, draws)
    for size in (100, 30):
        alone = [paired_p_values(values[_drawn_rows(len(values), size, seed)], pairs, samples=300, draws=None)
                 for seed in range(6)]
        assert together[size] == alone


def test_sample_rows_are_the_draw_of_rng_choice():
    rows = mc.sample_rows(500, 40, 3)
    assert rows.tolist() == _drawn_rows(500, 40, 3).tolist() and not rows.flags.writeable


@pytest.mark.parametrize("seed", [3, 4])
def test_a_comparison_with_one_more_measure_computes_that_one_only(seed, monkeypatch):
    concepts, kg = random_world(seed, images=140, vocabulary=15)
    runs = _runs(concepts, seed)
    options = dict(subsample=40, subsample_repeats=3, swap_repeats=5, samples=200, levels=(0.1, 0.3))
    first = [measure_spec("nn-iou"), measure_spec("dice")]
    more = [*first, measure_spec("nn-iou", alpha=0.6)]
    kept = Kept()
    # What a comparison computes is seen through public names: the pool rankings its evaluator keeps (one per pass)
    # and the tests of all the queries (one call of paired_p_values per measure judged).
    tested: list[int] = []
    monkeypatch.setattr(mc, "paired_p_values", lambda values, pairs, **test: tested.append(len(pairs)) or
                        paired_p_values(values, pairs, **test))
    evaluator = Evaluator(concepts, kg)
    compare_measures(evaluator, first, runs, kept=kept, context="world", **options)
    assert len(evaluator.kept_rankings()) == len(tested) == 3  # IoU, the reference, with the two given
    tested.clear()
    evaluator = Evaluator(concepts, kg)
    again = compare_measures(evaluator, more, runs, kept=kept, context="world", **options)
    assert [name for name, *_ in evaluator.kept_rankings()] == ["nn-iou(alpha=0.6,n=1)"] and len(tested) == 1
    monkeypatch.undo()
    _same(again, compare_measures(Evaluator(concepts, kg), more, runs, **options))
    # Degraded copies drawn by another seed are judged afresh, and so is another context (other data or systems).
    reseeded = compare_measures(Evaluator(concepts, kg), more, runs, kept=kept, context="world", seed=1, **options)
    _same(reseeded, compare_measures(Evaluator(concepts, kg), more, runs, seed=1, **options))
    fresh = compare_measures(Evaluator(concepts, kg), more, runs[1:], kept=kept, context="other", **options)
    _same(fresh, compare_measures(Evaluator(concepts, kg), more, runs[1:], **options))


def test_the_setting_read_is_the_sliders_only_where_retrieval_by_nn_iou_is_chosen():
    default = measure_spec("nn-iou")
    for alpha, hops in ((0.7, 1), (0.5, 3), (0.0, 1), (0.5, 0)):
        moved = measure_spec("nn-iou", alpha=alpha, n=hops)
        assert setting_read([], moved) == default
        assert setting_read([IOU, CAPTIONS], moved) == default  # IoU and TF-IDF read no alpha
        assert setting_read([CAPTIONS, NN_IOU], moved) == moved
    assert setting_read([NN_IOU], default) == default
