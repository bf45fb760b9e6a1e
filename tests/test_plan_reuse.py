"""IoU and Dice read from nn-IoU's cached codes (one table look-up per pair instead of a product) give the
same pool summaries, rankings (tie order included) and pair values as from their own codes."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.engine import PairwiseEngine
from evalcore.measures import MEASURES, CountPlan, Measure, MeasureSpec, measure_spec

from .conftest import random_world


@pytest.mark.parametrize("seed, lookup_table_limit", [(0, 1 << 22), (1, 1 << 22), (2, 0), (3, 1 << 22)])
def test_measures_without_the_kg_read_nn_iou_codes_exactly(seed, lookup_table_limit):
    concepts, kg = random_world(seed, images=70)
    nn_iou = measure_spec("nn-iou", alpha=0.5, n=1 + seed % 2)
    warm = PairwiseEngine(concepts, kg=kg, block_size=16, lookup_table_limit=lookup_table_limit)
    warm.rank_by(nn_iou, 10, 0.5, 20)
    for name in ("iou", "dice"):
        spec = measure_spec(name)
        assert warm._plan_of(spec) == nn_iou.plan() != spec.plan()
        cold = PairwiseEngine(concepts, kg=kg, block_size=16, lookup_table_limit=lookup_table_limit)
        assert cold._plan_of(spec) == spec.plan() == CountPlan()
        (reused, reused_top), (own, own_top) = warm.rank_by(spec, 10, 0.5, 20), cold.rank_by(spec, 10, 0.5, 20)
        assert np.array_equal(reused.ideal, own.ideal) and np.array_equal(reused_top, own_top)
        assert np.array_equal(reused.relevant_counts, own.relevant_counts)
        assert np.array_equal(warm.relevance_by(spec), cold.relevance_by(spec))


def test_a_partly_coded_pool_is_not_reused():
    concepts, kg = random_world(4, images=50)
    engine = PairwiseEngine(concepts, kg=kg, block_size=16)
    engine.keyed_by(measure_spec("nn-iou", alpha=0.5, n=1), 0, 16)  # one block of four coded
    assert engine._plan_of(measure_spec("iou")) == CountPlan()


def test_a_measure_without_near_matches_sees_none_in_reused_codes(monkeypatch):
    """A measure whose plan has no near-match digit reads 0 near matches, from nn-IoU's codes too."""
    probe = Measure("probe", "probe", "", "", "", (), False, plan=lambda p: CountPlan(),
                    value=lambda counts, p: counts.intersection + 0.5 * counts.near_total(),
                    pair=lambda a, b, c, p: float(len(a & b)))
    monkeypatch.setitem(MEASURES, "probe", probe)
    concepts, kg = random_world(5, images=40)
    engine = PairwiseEngine(concepts, kg=kg, block_size=16)
    engine.rank_by(measure_spec("nn-iou", alpha=0.5, n=1), 5)
    assert engine._plan_of(MeasureSpec("probe")) != CountPlan()
    cold = PairwiseEngine(concepts, kg=kg, block_size=16)
    assert np.array_equal(engine.relevance_by(MeasureSpec("probe")), cold.relevance_by(MeasureSpec("probe")))
