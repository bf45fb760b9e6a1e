"""Passes that code the pool for later (another page's work, prepared in the background) keep their plans only in
room they make among themselves, and are the first dropped: the plans of the settings on screen stay coded, and the
values are the same however the cache holds them (issue 65: a server's memory after the measure comparison)."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.engine import Compute, PairwiseEngine
from evalcore.relevance.measures import measure_spec
from tests.conftest import random_world

IMAGES = 48
CODE_BYTES = IMAGES * IMAGES * 2  # one plan's codes of the pool (uint16), no code groups kept


def coded(engine: PairwiseEngine, measure) -> bool:
    """Whether the pool is coded for ``measure`` (one pair read from its codes; too few pairs to code it)."""
    return engine.pair_codes(measure, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)) is not None


def engine_of(seed: int, plans_kept: int) -> PairwiseEngine:
    concepts, kg = random_world(seed, images=IMAGES)
    return PairwiseEngine(concepts, kg=kg, block_size=16, cache_bytes=plans_kept * CODE_BYTES,
                          compute=Compute(group_codes=False))


@pytest.mark.parametrize("seed", [0, 1])
def test_a_plan_coded_for_later_is_dropped_before_the_settings_on_screen(seed):
    on_screen, beside = measure_spec("nn-iou", alpha=0.5, n=1), measure_spec("nn-iou", alpha=0.5, n=2)
    later = measure_spec("nn-iou-hops", w1=0.5, w2=0.25)
    engine = engine_of(seed, plans_kept=2)
    engine.rank_by(on_screen, 5)
    with engine.coding_for_later():
        engine.rank_by(later, 5)
        engine.rank_by(on_screen, 5)  # read for later: not made the most recently used
    assert coded(engine, on_screen) and coded(engine, later)
    engine.rank_by(beside, 5)  # room for one more plan: the one coded for later goes, not the one on screen
    assert coded(engine, on_screen) and coded(engine, beside) and not coded(engine, later)


def test_passes_for_later_never_drop_the_plans_on_screen_and_keep_their_values(monkeypatch):
    import evalcore.engine.pairwise as pairwise

    monkeypatch.setattr(pairwise, "LATER_CODE_BYTES", CODE_BYTES)  # room for one plan coded for later
    on_screen = measure_spec("nn-iou", alpha=0.5, n=1)
    engine, plain = engine_of(2, plans_kept=2), engine_of(2, plans_kept=0)
    engine.rank_by(on_screen, 5)
    for measure in (measure_spec("nn-iou", alpha=0.5, n=2), measure_spec("nn-iou-hops", w1=0.5, w2=0.25),
                    measure_spec("nn-iou", alpha=0.5, n=3)):
        with engine.coding_for_later():
            (summary, top), (expected, expected_top) = engine.rank_by(measure, 5), plain.rank_by(measure, 5)
        assert np.array_equal(top, expected_top) and np.array_equal(summary.ideal, expected.ideal)
        assert coded(engine, measure) and coded(engine, on_screen)  # the previous one for later made room
    engine.rank_by(measure_spec("nn-iou", alpha=0.5, n=3), 5)  # used for the settings on screen: theirs now
    with engine.coding_for_later():
        engine.rank_by(measure_spec("nn-iou", alpha=0.5, n=2), 5)  # no room among plans for later: not kept
    assert not coded(engine, measure_spec("nn-iou", alpha=0.5, n=2)) and coded(engine, on_screen)
