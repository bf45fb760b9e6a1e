"""Relevance: the worked example by hand, invariants on random data, the KG index against networkx."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest

from evalcore.errors import ParameterError
from evalcore.relevance.formulas import approximate_matches, iou, nn_iou, nn_tversky, tversky
from evalcore.relevance.kg import neighbour_sets
from tests.conftest import random_world

CT, VEIN, VESSEL = "C0040405", "C0042449", "C0005847"


def test_worked_example_of_design(worked_kg):
    a, b = frozenset({CT, VEIN}), frozenset({CT, VESSEL})
    neighbours = neighbour_sets(worked_kg, (CT, VEIN, VESSEL), 1)
    assert iou(a, b) == pytest.approx(1 / 3)
    assert approximate_matches(a, b, neighbours) == {VEIN, VESSEL}
    assert nn_iou(a, b, neighbours, 0.5) == pytest.approx(2 / 3)
    assert nn_tversky(a, b, neighbours, 0.5, 1, 1) == pytest.approx(2 / 3)


def test_hand_values_of_tversky_and_empty_sets():
    assert iou(frozenset(), frozenset()) == 0.0
    assert tversky(frozenset({"C1"}), frozenset()) == 0.0
    # |A∩B| = 1, |A\B| = 2, |B\A| = 1 -> 1 / (1 + 0.5*2 + 0.5*1) = 0.4
    assert tversky(frozenset("abc"), frozenset("ad"), 0.5, 0.5) == pytest.approx(0.4)


def test_alpha_out_of_range_is_rejected():
    with pytest.raises(ParameterError):
        nn_iou(frozenset(), frozenset(), {}, 1.5)


@pytest.mark.parametrize("seed", range(5))
def test_invariants_on_random_sets(seed):
    concepts, kg = random_world(seed)
    vocabulary = concepts.vocabulary
    by_n = {n: neighbour_sets(kg, vocabulary, n) for n in range(4)}
    for a, b in itertools.islice(itertools.combinations(concepts.sets, 2), 400):
        for neighbours in by_n.values():
            value = nn_iou(a, b, neighbours, 0.5)
            assert value == nn_iou(b, a, neighbours, 0.5)
            assert 0.0 <= value <= 1.0
            assert nn_iou(a, b, neighbours, 0.0) == iou(a, b)
            assert nn_iou(a, b, neighbours, 0.3) <= nn_iou(a, b, neighbours, 0.7)
            assert nn_tversky(a, b, neighbours, 0.5, 1, 1) == pytest.approx(value)
            assert nn_tversky(a, b, neighbours, 0.0, 0.5, 0.5) == pytest.approx(tversky(a, b, 0.5, 0.5))
        assert nn_iou(a, b, by_n[0], 1.0) == iou(a, b)
        # More hops can only add approximate matches.
        assert nn_iou(a, b, by_n[1], 0.5) <= nn_iou(a, b, by_n[2], 0.5) <= nn_iou(a, b, by_n[3], 0.5)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["undirected", "directed"])
def test_neighbour_index_equals_networkx_bfs(seed, mode):
    concepts, kg = random_world(seed, edges=45)
    graph = nx.DiGraph()
    for i, j in zip(*kg.parents.nonzero()):
        graph.add_edge(kg.nodes[i], kg.nodes[j])
    vocabulary = concepts.vocabulary
    for n in range(4):
        index = neighbour_sets(kg, vocabulary, n, mode)
        for a in vocabulary:
            expected = set()
            if a in graph:
                if mode == "undirected":
                    reach = nx.single_source_shortest_path_length(graph.to_undirected(), a, cutoff=n)
                else:
                    reach = {**nx.single_source_shortest_path_length(graph, a, cutoff=n),
                             **nx.single_source_shortest_path_length(graph.reverse(), a, cutoff=n)}
                expected = {b for b in reach if b in vocabulary and b != a}
            assert index[a] == expected, (a, n, mode)


def test_shortest_path_names_each_step(worked_kg):
    assert worked_kg.shortest_path(VEIN, VESSEL) == [(VEIN, ""), (VESSEL, "is_a")]
    assert worked_kg.shortest_path(VESSEL, VEIN, mode="directed") == [(VESSEL, ""), (VEIN, "has_child")]
    assert worked_kg.shortest_path(VEIN, CT) is None
    assert worked_kg.name(VEIN) == "Veins"
