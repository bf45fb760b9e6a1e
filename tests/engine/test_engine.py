"""The vectorised engine agrees with the per-pair functions on random data."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.data import ConceptSets, KGEdges
from evalcore.engine import PairwiseEngine, top_indices
from evalcore.relevance.formulas import iou, nn_iou
from evalcore.relevance.kg import KnowledgeGraph, neighbour_sets
from evalcore.relevance.measures import CountPlan, nn_iou_measure
from tests.conftest import random_world


def reference_values(concepts, neighbours, alpha, query):
    return [nn_iou(concepts.sets[query], s, neighbours, alpha) if j != query else -1.0
            for j, s in enumerate(concepts.sets)]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["undirected", "directed"])
@pytest.mark.parametrize("lookup_table_limit", [1 << 22, 0], ids=["lookup-table", "per-block-unique"])
def test_relevance_equals_per_pair_functions(seed, mode, lookup_table_limit):
    concepts, kg = random_world(seed, images=90)
    engine = PairwiseEngine(concepts, kg=kg, mode=mode, block_size=17, lookup_table_limit=lookup_table_limit)
    for n in (0, 1, 2, 3):
        neighbours = neighbour_sets(kg, engine.vocabulary, n, mode)
        for alpha in (0.0, 0.3, 0.5, 1.0):
            values = engine.relevance_by(nn_iou_measure(alpha, n))
            for q in range(len(concepts)):
                assert values[q].tolist() == reference_values(concepts, neighbours, alpha, q)


def test_large_sets_use_exact_float64_codes_and_agree():
    rng = np.random.default_rng(11)
    vocabulary = [f"C{i:07d}" for i in range(400)]
    sets = tuple(frozenset(rng.choice(vocabulary, int(rng.integers(100, 160)), replace=False)) for _ in range(24))
    concepts = ConceptSets(tuple(f"img{i}" for i in range(24)), sets, "large.csv")
    edges = tuple((vocabulary[i], vocabulary[j], "random") for i, j in rng.integers(0, 400, (300, 2)) if i != j)
    kg = KnowledgeGraph.from_edges([KGEdges(edges, {})])
    engine = PairwiseEngine(concepts, kg=kg, block_size=5)
    assert engine.layout.size > 1 << 22
    neighbours = neighbour_sets(kg, engine.vocabulary, 2)
    values = engine.relevance_by(nn_iou_measure(0.5, 2))
    for q in range(len(concepts)):
        assert values[q].tolist() == reference_values(concepts, neighbours, 0.5, q)
    summary, ranking = engine.rank_by(nn_iou_measure(0.5, 2), 5, threshold=0.3, depth=7)
    for q in range(len(concepts)):
        pool = [(v, j) for j, v in enumerate(reference_values(concepts, neighbours, 0.5, q)) if j != q]
        assert summary.ideal[q].tolist() == sorted((v for v, _ in pool), reverse=True)[:5]
        assert ranking[q].tolist() == [j for _, j in sorted(pool, key=lambda p: (-p[0], p[1]))][:7]


@pytest.mark.parametrize("seed", range(3))
def test_pool_summary_and_retrieval_equal_sorting_per_query(seed):
    concepts, kg = random_world(seed, images=120, vocabulary=15)
    engine = PairwiseEngine(concepts, kg=kg, block_size=32)
    neighbours = neighbour_sets(kg, engine.vocabulary, 1)
    summary = engine.pool_summary_by(nn_iou_measure(0.5, 1), 10, threshold=0.4)
    ranking = engine.retrieve_by(nn_iou_measure(0.5, 1), 25)
    for q in range(len(concepts)):
        values = reference_values(concepts, neighbours, 0.5, q)
        pool = [(v, j) for j, v in enumerate(values) if j != q]
        assert summary.ideal[q].tolist() == sorted((v for v, _ in pool), reverse=True)[:10]
        assert summary.relevant_counts[q] == sum(v >= 0.4 for v, _ in pool)
        assert ranking[q].tolist() == [j for _, j in sorted(pool, key=lambda p: (-p[0], p[1]))][:25]


def test_pair_counts_equal_per_pair_functions():
    concepts, kg = random_world(7, images=50)
    engine = PairwiseEngine(concepts, kg=kg)
    neighbours = neighbour_sets(kg, engine.vocabulary, 2)
    rng = np.random.default_rng(0)
    rows, cols = rng.integers(0, 50, 200), rng.integers(0, 50, 200)
    counts = engine.counts_of_pairs(CountPlan(levels=(2,)), rows, cols)
    inter, union, approx = counts.intersection, counts.union, counts.near[0]
    for r, c, i, u, a in zip(rows, cols, inter, union, approx):
        sa, sb = concepts.sets[r], concepts.sets[c]
        assert (i, u) == (len(sa & sb), len(sa | sb))
        assert ((i + 0.5 * a) / u if u else 0.0) == nn_iou(sa, sb, neighbours, 0.5)
        assert (i / u if u else 0.0) == iou(sa, sb)


@pytest.mark.parametrize("alpha,n", [(0.0, 0), (0.5, 1), (1.0, 2)])
def test_relevance_of_pairs_is_the_same_before_and_after_the_pool_is_coded(alpha, n):
    concepts, kg = random_world(5, images=70)
    engine = PairwiseEngine(concepts, kg=kg, block_size=16)
    rng = np.random.default_rng(1)
    rows, cols = rng.integers(0, 70, 500), rng.integers(0, 70, 500)
    counted = engine.relevance_of_pairs_by(nn_iou_measure(alpha, n), rows, cols)
    full = engine.relevance_by(nn_iou_measure(alpha, n))
    coded = engine.relevance_of_pairs_by(nn_iou_measure(alpha, n), rows, cols)
    expected = np.where(rows == cols, coded, full[rows, cols])  # the full matrix marks self pairs with -1
    assert counted.tolist() == coded.tolist() == expected.tolist()


def test_separate_candidate_pool_excludes_query_by_id():
    concepts, kg = random_world(3, images=40)
    queries = concepts.subset(concepts.ids[:10])
    engine = PairwiseEngine(queries, concepts, kg=kg)
    assert engine.self_columns.tolist() == list(range(10))
    ranking = engine.retrieve_by(nn_iou_measure(0.5, 1), 39)
    assert all(q not in ranking[q] for q in range(10))


def test_top_indices_breaks_ties_by_position_and_pads():
    values = np.array([[0.2, 0.9, 0.2, 0.9, -1.0]])
    assert top_indices(values, 3).tolist() == [[1, 3, 0]]
    assert top_indices(values, 6).tolist() == [[1, 3, 0, 2, -1, -1]]
