"""Ranking through code groups (a pass over cached codes ranks each row's distinct codes, not its pairs) gives
the plain path's ideal values, relevant counts and top indices in the same tie order; so do the ablation grid
and run items that read other settings' cached codes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.data import ConceptSets
from evalcore.engine import CodeGroups, Compute, KeyedBlock, PairwiseEngine, summarise_block, summarise_groups
from evalcore.engine.kernels import mark_self
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.retrieval import retrieve_by_measure
from evalcore.relevance.measures import measure_spec, nn_iou_measure, parse_measure
from evalcore.stats.compare import id_order, query_means
from evalcore.studies.ablation import RELEVANCE_SYSTEM, ablation_grid
from tests.conftest import random_world

SETTINGS = [(0.0, 0), (0.5, 1), (0.3, 2), (1.0, 1), (0.7, 3)]
# (k, threshold, depth): a depth past the pool, a k past the pool, no top at all, a top of one; depths that
# grow (the groups are made again, deeper) and shrink (the deeper groups serve).
PASSES = [(10, 0.5, 30), (1, 0.3, 0), (500, 0.1, 500), (5, 0.5, 149), (3, 1.0, 1), (12, 0.4, 40)]


def has_groups(engine: PairwiseEngine) -> bool:
    """Whether the engine keeps code groups of a plan (a pass ranked them: the grouped path ran)."""
    return any(kept.group_bytes for kept in engine.cached_plans().values())


def plain_and_grouped(queries, pool, kg, **options):
    """An engine that caches nothing (every pass ranks the pairs) and one whose passes after the first rank code
    groups."""
    plain = PairwiseEngine(queries, pool, kg=kg, cache_bytes=0, **options)  # nothing cached: no groups
    grouped = PairwiseEngine(queries, pool, kg=kg, **options)
    return plain, grouped


def coded_plan(engine, measure):
    """The count plan whose codes, cached for the whole pool, give ``measure``'s values
    (:meth:`PairwiseEngine.pair_codes`); None where the pool is not coded for one."""
    found = engine.pair_codes(measure, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))
    return None if found is None else found[0]


def assert_same(expected, got):
    (summary_a, top_a), (summary_b, top_b) = expected, got
    np.testing.assert_array_equal(summary_a.ideal, summary_b.ideal)
    np.testing.assert_array_equal(summary_a.relevant_counts, summary_b.relevant_counts)
    np.testing.assert_array_equal(top_a, top_b)
    assert top_a.dtype == top_b.dtype and summary_a.relevant_counts.dtype == summary_b.relevant_counts.dtype


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("lookup_table_limit", [1 << 22, 0], ids=["lookup-table", "hashed-keys"])
def test_grouped_passes_equal_the_plain_path_on_tie_heavy_data(seed, lookup_table_limit):
    concepts, kg = random_world(seed, images=150, vocabulary=6 + seed, edges=12)  # few concepts: rows full of ties
    plain, grouped = plain_and_grouped(concepts, None, kg, block_size=23, lookup_table_limit=lookup_table_limit)
    for alpha, n in SETTINGS:
        measure = nn_iou_measure(alpha, n)
        for k, threshold, depth in PASSES:
            assert_same(plain.rank_by(measure, k, threshold, depth), grouped.rank_by(measure, k, threshold, depth))
    assert has_groups(grouped) and not has_groups(plain)  # the grouped path did run


@pytest.mark.slow
def test_grouped_passes_equal_the_plain_path_with_a_separate_pool():
    """Queries partly in the pool (their own column left out), partly not, and pools of one and two images."""
    concepts, kg = random_world(5, images=120, vocabulary=9)
    others, _ = random_world(55, images=30, vocabulary=9)
    outside = ConceptSets(tuple(f"o{i}" for i in others.ids), others.sets)
    queries = ConceptSets(concepts.ids[:40] + outside.ids[:10], concepts.sets[:40] + outside.sets[:10])
    for pool in (concepts, concepts.subset(concepts.ids[:1]), concepts.subset(concepts.ids[:2]), outside):
        plain, grouped = plain_and_grouped(queries, pool, kg, block_size=7)
        for alpha, n in SETTINGS[:3]:
            measure = nn_iou_measure(alpha, n)
            for k, threshold, depth in PASSES:
                assert_same(plain.rank_by(measure, k, threshold, depth), grouped.rank_by(measure, k, threshold, depth))
        assert has_groups(grouped)


def test_iou_on_nn_iou_codes_through_groups_equals_the_plain_path():
    concepts, kg = random_world(6, images=90, vocabulary=7)
    plain, grouped = plain_and_grouped(concepts, None, kg, block_size=16)
    grouped.rank_by(parse_measure("nn-iou(alpha=0.5,n=2)"), 10, 0.5, 20)
    for name in ("iou", "dice"):
        assert coded_plan(grouped, measure_spec(name)) == measure_spec("nn-iou", alpha=0.5, n=2).plan()
        assert_same(plain.rank_by(measure_spec(name), 10, 0.5, 20), grouped.rank_by(measure_spec(name), 10, 0.5, 20))


def test_a_budget_for_the_codes_but_not_their_groups_ranks_the_plain_way():
    concepts, kg = random_world(7, images=80)
    codes_only = 2 * 80 * 80 + 100  # uint16 codes fit; their groups do not
    engine = PairwiseEngine(concepts, kg=kg, block_size=16, cache_bytes=codes_only)
    expected = PairwiseEngine(concepts, kg=kg, block_size=16, cache_bytes=0).rank_by(nn_iou_measure(0.5, 1), 10, 0.5, 20)
    for _ in range(3):  # codes the pool; tries to group the codes; ranks the pairs
        assert_same(expected, engine.rank_by(nn_iou_measure(0.5, 1), 10, 0.5, 20))
    kept = engine.cached_plans()[measure_spec("nn-iou", alpha=0.5, n=1).plan()]  # its codes kept, not its groups
    assert kept.coded and not kept.groupable and not kept.group_bytes


def test_the_cache_with_groups_keeps_within_its_budget():
    """Groups count at their size: older plans make room for them, and the cache never passes its budget."""
    concepts, kg = random_world(8, images=80)
    plain = PairwiseEngine(concepts, kg=kg, block_size=20, cache_bytes=0)
    probe = PairwiseEngine(concepts, kg=kg, block_size=20)
    probe.rank_by(nn_iou_measure(0.5, 3), 10, 0.5, 20)
    probe.rank_by(nn_iou_measure(0.4, 3), 10, 0.5, 20)  # the second pass groups the cached codes
    kept = probe.cached_plans()[measure_spec("nn-iou", alpha=0.5, n=3).plan()]
    one_plan = kept.code_bytes + kept.group_bytes
    assert one_plan > 2 * 80 * 80  # the groups take room beside the codes
    engine = PairwiseEngine(concepts, kg=kg, block_size=20, cache_bytes=int(1.5 * one_plan))
    for n, alpha in [(1, 0.5), (1, 0.4), (2, 0.5), (2, 0.4), (3, 0.5), (3, 0.4), (1, 0.5), (1, 0.4), (3, 0.5)]:
        assert_same(plain.rank_by(nn_iou_measure(alpha, n), 10, 0.5, 20), engine.rank_by(nn_iou_measure(alpha, n), 10, 0.5, 20))
        cached = engine.cached_plans()
        assert sum(kept.code_bytes + kept.group_bytes for kept in cached.values()) <= int(1.5 * one_plan)
        assert cached[measure_spec("nn-iou", alpha=0.5, n=n).plan()].groupable
    cached = engine.cached_plans()
    assert any(kept.group_bytes for kept in cached.values()) and measure_spec("nn-iou", alpha=0.5, n=2).plan() not in cached


@pytest.mark.parametrize("seed", range(4))
def test_code_groups_equal_a_per_row_count(seed):
    """Each row's groups are its distinct codes, ascending, with their counts and first ``reach`` columns."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 6, (9, 40)).astype(np.uint16)
    self_columns = rng.integers(-1, 40, 9)
    groups = CodeGroups.of(codes, self_columns, reach=4)
    for row in range(9):
        mine = groups.rows == row
        distinct, counts = np.unique(codes[row], return_counts=True)
        assert groups.codes[mine].tolist() == distinct.tolist() and groups.sizes[mine].tolist() == counts.tolist()
        own = codes[row, self_columns[row]] if self_columns[row] >= 0 else None
        assert groups.pool_sizes[mine].tolist() == [c - (d == own) for d, c in zip(distinct, counts)]
        for code, start in zip(distinct, groups.head_starts[mine]):
            first = np.flatnonzero(codes[row] == code)[:4]
            assert groups.heads[start:start + len(first)].tolist() == first.tolist()


@pytest.mark.parametrize("seed", range(4))
def test_summarise_groups_equals_summarise_block_on_random_keys(seed):
    """Keys with many equal values across different codes: tie groups of several codes merge by column."""
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 12, (11, 50)).astype(np.uint16)
    self_columns = np.where(rng.random(11) < 0.7, rng.integers(0, 50, 11), -1)
    table = rng.integers(1, 5, 12).astype(np.uint16)  # 12 codes onto 4 keys
    values = np.array([-1.0, 0.0, 0.25, 0.5, 1.0])
    keys = table[codes]
    mark_self(keys, self_columns)
    for k, threshold, depth in [(3, 0.5, 5), (60, 0.25, 60), (1, 1.0, 0), (10, 0.1, 49)]:
        groups = CodeGroups.of(codes, self_columns, reach=depth + 1)
        expected = summarise_block(KeyedBlock(0, 11, keys, values), k, threshold, depth)
        got = summarise_groups(groups, table[groups.codes], values, k, threshold, depth)
        for a, b in zip(expected, got):
            np.testing.assert_array_equal(a, b)


def test_run_items_by_iou_read_from_nn_iou_codes_equal_the_counted_values():
    concepts, kg = random_world(9, images=70)
    engine = PairwiseEngine(concepts, kg=kg, block_size=16)
    rng = np.random.default_rng(3)
    rows, cols = rng.integers(0, 70, 400), rng.integers(0, 70, 400)
    counted = {name: engine.relevance_of_pairs_by(parse_measure(name), rows, cols) for name in ("iou", "dice")}
    engine.rank_by(parse_measure("nn-iou(alpha=0.5,n=2)"), 5)
    for name in ("iou", "dice"):
        assert coded_plan(engine, measure_spec(name)) not in (None, measure_spec(name).plan())  # nn-IoU's codes
        assert engine.relevance_of_pairs_by(parse_measure(name), rows, cols).tolist() == counted[name].tolist()


def test_ablation_grid_equals_each_setting_evaluated_on_its_own():
    """The grid ranks IoU's settings last (on nn-IoU's cached codes) and shares rankings; each row equals a fresh
    evaluator's, in the settings' order."""
    concepts, kg = random_world(10, images=60, vocabulary=9)
    run = retrieve_by_measure(Evaluator(concepts, kg), nn_iou_measure(0.3, 1), 8, "a run")
    metrics = ["CUI@5", "nn-CUI@5", "nn-MAP@5"]
    alphas, hops = (0.0, 0.5, 1.0), (0, 1, 2)
    grid = ablation_grid(Evaluator(concepts, kg), [run], metrics, alphas, hops)
    expected = []
    for n in hops:
        for alpha in alphas:
            fresh = Evaluator(concepts, kg)
            ranking = fresh.relevance_ranking(nn_iou_measure(alpha, n), 5, 5, name=RELEVANCE_SYSTEM)
            means = fresh.evaluate([run, ranking], metrics, Relevance.of(alpha, n)).means()  # the tables' means
            for name, per_metric in means.items():
                for metric, mean in per_metric.items():
                    expected.append({"system": name, "alpha": alpha, "n": n, "metric": metric, "value": mean})
    assert grid.equals(pd.DataFrame(expected))


@pytest.mark.parametrize("seed,with_retrieval", [(0, True), (1, True), (2, False)])
def test_ablation_grid_on_tie_heavy_data_and_a_query_subset_equals_each_setting_on_its_own(seed, with_retrieval):
    """Settings sharing an effective measure (n = 0, alpha = 0) computed once, every plan grouped before its first
    pass (group_codes_by), the next setting ranked while one is evaluated: each row still equals a fresh evaluator's,
    which ranks the pairs."""
    concepts, kg = random_world(20 + seed, images=90, vocabulary=6, edges=14)  # few concepts: rows full of ties
    run = retrieve_by_measure(Evaluator(concepts, kg), nn_iou_measure(0.4, 2), 12, "a run")
    metrics = ["CUI@10", "nn-CUI@5", "nn-MAP@10"]
    alphas, hops = (0.0, 0.2, 0.6, 1.0), (0, 1, 3)
    subset = concepts.ids[::3]
    evaluator = Evaluator(concepts, kg, engine=PairwiseEngine(concepts, kg=kg, block_size=11))
    grid = ablation_grid(evaluator, [run], metrics, alphas, hops, with_retrieval, queries=subset)
    keep = np.isin(np.array(concepts.ids), subset)
    expected = []
    for n in hops:
        for alpha in alphas:
            fresh = Evaluator(concepts, kg)
            systems = [run, fresh.relevance_ranking(nn_iou_measure(alpha, n), 10, 10, name=RELEVANCE_SYSTEM)]
            for name, result in fresh.evaluate(systems[:1 + with_retrieval], metrics,
                                               Relevance.of(alpha, n)).systems.items():
                kept = {metric: values[keep] for metric, values in result.values.items()}
                order = id_order(np.array(result.query_ids)[keep].tolist())
                for metric, mean in query_means(order, kept).items():  # the tables' means, over the subset
                    expected.append({"system": name, "alpha": alpha, "n": n, "metric": metric, "value": mean})
    assert grid.equals(pd.DataFrame(expected))
    assert has_groups(evaluator.engine) or not with_retrieval  # the grouped path did run


@pytest.mark.subprocess
@pytest.mark.parametrize("seed", range(3))
def test_group_codes_by_makes_the_first_pass_rank_code_groups_with_the_plain_results(seed):
    concepts, kg = random_world(seed, images=130, vocabulary=6 + seed, edges=12)
    plain, grouped = plain_and_grouped(concepts, None, kg, block_size=17)
    measure = nn_iou_measure(0.5, 2)
    assert grouped.group_codes_by(measure, 40) and not plain.group_codes_by(measure, 40)
    assert coded_plan(grouped, measure) == measure.plan()
    assert set(grouped.cached_plans()[measure.plan()].group_reach) == {41}
    assert not has_groups(plain)
    for alpha in (0.5, 0.2, 1.0):
        for k, threshold, depth in [(10, 0.5, 30), (3, 1.0, 1), (12, 0.4, 40), (5, 0.3, 100)]:
            assert_same(plain.rank_by(nn_iou_measure(alpha, 2), k, threshold, depth),
                        grouped.rank_by(nn_iou_measure(alpha, 2), k, threshold, depth))
    serial = PairwiseEngine(concepts, kg=kg, compute=Compute(workers=1))  # passes on an executor: no groups here
    assert not serial.group_codes_by(measure, 40) and not has_groups(serial)


def test_group_codes_and_threads_are_options_of_the_engine():
    """group_codes=False ranks the pairs at every pass (no groups made) with the same results; any thread count
    gives them too, and a thread count that is not a whole number >= 1 is refused."""
    concepts, kg = random_world(9, images=90, vocabulary=7)
    grouped = PairwiseEngine(concepts, kg=kg, block_size=16)
    plain = PairwiseEngine(concepts, kg=kg, block_size=16, compute=Compute(group_codes=False, threads=1))
    for alpha in (0.5, 0.3, 0.5):
        measure = nn_iou_measure(alpha, 1)
        assert_same(grouped.rank_by(measure, 10, 0.5, 20), plain.rank_by(measure, 10, 0.5, 20))
    assert has_groups(grouped) and not has_groups(plain) and coded_plan(plain, measure) == measure.plan()
    for threads in (0, 1.5, True):
        with pytest.raises(ParameterError, match="threads must be a whole number"):
            Compute(threads=threads)
