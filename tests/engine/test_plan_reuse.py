"""IoU and Dice read from nn-IoU's cached codes (one table look-up per pair instead of a product) give the
same pool summaries, rankings (tie order included) and pair values as from their own codes."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.engine import PairwiseEngine
from evalcore.relevance.measures import MEASURES, CountPlan, Measure, MeasureSpec, measure_spec
from tests.conftest import random_world


def coded_plan(engine, measure):
    """The count plan whose codes, cached for the whole pool, give ``measure``'s values
    (:meth:`PairwiseEngine.pair_codes`); None where the pool is not coded for one."""
    found = engine.pair_codes(measure, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))
    return None if found is None else found[0]


@pytest.mark.parametrize("seed, lookup_table_limit", [(0, 1 << 22), (1, 1 << 22), (2, 0), (3, 1 << 22)])
def test_measures_without_the_kg_read_nn_iou_codes_exactly(seed, lookup_table_limit):
    concepts, kg = random_world(seed, images=70)
    nn_iou = measure_spec("nn-iou", alpha=0.5, n=1 + seed % 2)
    warm = PairwiseEngine(concepts, kg=kg, block_size=16, lookup_table_limit=lookup_table_limit)
    warm.rank_by(nn_iou, 10, 0.5, 20)
    for name in ("iou", "dice"):
        spec = measure_spec(name)
        assert coded_plan(warm, spec) == nn_iou.plan() != spec.plan()
        cold = PairwiseEngine(concepts, kg=kg, block_size=16, lookup_table_limit=lookup_table_limit)
        assert coded_plan(cold, spec) is None
        (reused, reused_top), (own, own_top) = warm.rank_by(spec, 10, 0.5, 20), cold.rank_by(spec, 10, 0.5, 20)
        assert coded_plan(cold, spec) == spec.plan() == CountPlan()  # the cold engine coded the measure's own plan
        assert coded_plan(warm, spec) == nn_iou.plan()  # the warm one read nn-IoU's codes, coding none of its own
        assert np.array_equal(reused.ideal, own.ideal) and np.array_equal(reused_top, own_top)
        assert np.array_equal(reused.relevant_counts, own.relevant_counts)
        assert np.array_equal(warm.relevance_by(spec), cold.relevance_by(spec))


def test_a_partly_coded_pool_is_not_reused():
    concepts, kg = random_world(4, images=50)
    engine = PairwiseEngine(concepts, kg=kg, block_size=16)
    next(engine.coded_blocks(measure_spec("nn-iou", alpha=0.5, n=1)))  # one block of four coded
    assert coded_plan(engine, measure_spec("iou")) is None
    engine.rank_by(measure_spec("iou"), 5)
    assert coded_plan(engine, measure_spec("iou")) == CountPlan()  # IoU's pass coded its own plan


def test_a_measure_without_near_matches_sees_none_in_reused_codes(monkeypatch):
    """A measure whose plan has no near-match digit reads 0 near matches, from nn-IoU's codes too."""
    probe = Measure("probe", "probe", "", "", "", (), False, plan=lambda p: CountPlan(),
                    value=lambda counts, p: counts.intersection + 0.5 * counts.near_total(),
                    pair=lambda a, b, c, p: float(len(a & b)))
    monkeypatch.setitem(MEASURES, "probe", probe)
    concepts, kg = random_world(5, images=40)
    engine = PairwiseEngine(concepts, kg=kg, block_size=16)
    engine.rank_by(measure_spec("nn-iou", alpha=0.5, n=1), 5)
    assert coded_plan(engine, MeasureSpec("probe")) not in (None, CountPlan())
    cold = PairwiseEngine(concepts, kg=kg, block_size=16)
    assert np.array_equal(engine.relevance_by(MeasureSpec("probe")), cold.relevance_by(MeasureSpec("probe")))


@pytest.mark.parametrize("seed", [6, 7])
def test_a_run_rescored_at_other_alphas_reads_its_kept_codes_exactly(seed, monkeypatch):
    """Evaluator.relevance_by keeps the codes of a run's pairs: re-scoring it at other alphas (as the dashboard's
    slider does) looks the values up again and equals scoring pair by pair on an evaluator that kept nothing."""
    from evalcore.evaluation.evaluator import AlignedRun, Evaluator

    concepts, kg = random_world(seed, images=60)
    rng = np.random.default_rng(seed)
    documents = rng.integers(-1, len(concepts), size=(len(concepts), 12))
    run = AlignedRun.over_pool("random", documents)
    warm = Evaluator(concepts, kg=kg)
    warm.engine.rank_by(measure_spec("nn-iou", alpha=0.5, n=1), 5)  # the pool is coded, as after a ranking
    warm.engine.rank_by(measure_spec("iou"), 5)
    gathered, pair_codes = [], warm.engine.pair_codes

    def gather(*arguments):  # the codes of a run's pairs, read from the pool's: the plan they were read under
        found = pair_codes(*arguments)
        gathered.append(None if found is None else found[0])
        return found

    monkeypatch.setattr(warm.engine, "pair_codes", gather)
    for alpha in (0.5, 0.2, 0.9):
        measures = {"iou": measure_spec("iou"), "nn-iou": measure_spec("nn-iou", alpha=alpha, n=1)}
        kept = warm.relevance_of(run, measures)
        counted = PairwiseEngine(concepts, kg=kg, cache_bytes=0)  # nothing coded or cached: counted from sparse rows
        fresh = Evaluator(concepts, kg=kg, engine=counted).relevance_of(run, measures)
        for key in measures:
            assert np.array_equal(kept[key], fresh[key]), (alpha, key)
    assert gathered == [CountPlan(levels=(1,))]  # IoU read the codes nn-IoU left: one gather per run
    # A copy sharing the run's arrays reads what was kept for them; a run with arrays of its own, nothing.
    copy = warm.relevance_of(AlignedRun("copy", run.query_rows, run.documents, run.counts), measures)
    assert all(copy[key] is kept[key] for key in measures) and len(gathered) == 1
    other = warm.relevance_of(AlignedRun.over_pool("other", documents.copy()), measures)
    assert gathered == [CountPlan(levels=(1,))] * 2
    assert all(other[key] is not kept[key] and np.array_equal(other[key], kept[key]) for key in measures)


@pytest.mark.parametrize("seed", [8, 9])
def test_many_listed_pairs_code_the_pool_first_and_read_the_same_values(seed):
    """Pairs numbering at least 1/PAIRS_WORTH_CODING_THE_POOL of the pool's are read from the pool's codes, coded
    first (a saved link's first draw: rankings kept, nothing coded); fewer are counted from the sparse rows; both
    equal counting every pair from the sparse rows, under every measure of the plan."""
    from evalcore.engine.pairwise import PAIRS_WORTH_CODING_THE_POOL

    concepts, kg = random_world(seed, images=64)
    rng = np.random.default_rng(seed)
    pool_pairs = len(concepts) ** 2  # every query against every image of the pool (itself marked, not dropped)
    nn_iou = measure_spec("nn-iou", alpha=0.3, n=1)
    counted = PairwiseEngine(concepts, kg=kg, block_size=16, cache_bytes=0)
    for pairs, coded in ((pool_pairs // PAIRS_WORTH_CODING_THE_POOL - 1, False),
                         (pool_pairs // PAIRS_WORTH_CODING_THE_POOL + 1, True)):
        rows = np.sort(rng.integers(0, len(concepts), size=pairs))
        columns = rng.integers(0, len(concepts) - 1, size=pairs)
        engine = PairwiseEngine(concepts, kg=kg, block_size=16)
        found = engine.pair_codes(nn_iou, rows, columns)
        assert (found is not None) == coded and (coded_plan(engine, nn_iou) is not None) == coded
        for spec in (nn_iou, measure_spec("iou"), measure_spec("dice")):
            assert np.array_equal(engine.relevance_of_pairs_by(spec, rows, columns),
                                  counted.relevance_of_pairs_by(spec, rows, columns)), (pairs, spec.key)
    assert counted.pair_codes(nn_iou, rows, columns) is None  # codes that do not fit the cache are never made
