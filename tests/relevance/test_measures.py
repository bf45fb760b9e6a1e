"""Relevance measures: hand-worked values, the engine against the per-pair functions on random data, exact
reductions between measures, and Wu-Palmer / hop distances against networkx."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from evalcore.data import ConceptSets, KGEdges
from evalcore.engine import PairwiseEngine
from evalcore.engine.kernels import row_max_product
from evalcore.errors import ParameterError
from evalcore.relevance.formulas import (
    CREDIT_SCALE,
    credit_units,
    dice,
    iou,
    nn_iou,
    nn_iou_depth,
    nn_iou_hops,
    nn_tversky,
    reaching,
    tversky,
)
from evalcore.relevance.kg import KnowledgeGraph, neighbour_distances, neighbour_sets
from evalcore.relevance.measures import MEASURES, default_measures, measure_spec, metric_tag, parse_measure
from evalcore.relevance.taxonomy import WuPalmer, concept_depths, credit_sets
from tests.conftest import random_world

CT, VEIN, VESSEL = "C0040405", "C0042449", "C0005847"
EXTRA = ("nn-iou-hops(w1=0.6,w2=0.3,w3=0.1)", "nn-tversky(a=0.2,b=0.9,alpha=0.7,n=2)", "nn-iou-depth(alpha=0.5,n=3)",
         "tversky(a=0.5,b=0.5)", "nn-tversky(a=0.4,b=0.4,alpha=0.5,n=1)", "tversky(a=0,b=1)")


def pair_values(spec, concepts, kg, vocabulary, mode, query):
    function = spec.pair_function(kg, vocabulary, mode)
    return [function(concepts.sets[query], other) if j != query else -1.0 for j, other in enumerate(concepts.sets)]


# --- hand-worked values ------------------------------------------------------------------

def test_design_worked_example_under_every_measure(worked_kg):
    a, b = frozenset({CT, VEIN}), frozenset({CT, VESSEL})
    vocabulary = (CT, VESSEL, VEIN)
    expected = {
        "iou": 1 / 3,
        "nn-iou": 2 / 3,  # (1 + 0.5 * 2) / 3
        "dice": 0.5,  # 2 * 1 / (2 + 2)
        "tversky": 0.5,  # 1 / (1 + 0.7 * 1 + 0.3 * 1)
        "nn-tversky": 0.8,  # (1 + 0.5 * 2) / (2 + 0.7 * 0.5 + 0.3 * 0.5)
        "nn-iou-hops": 2 / 3,  # both near matches 1 hop apart earn w1 = 0.5
        # vessel is a root (depth 1), vein depth 2: WuP = 2 / (1 + 0 + 2) = 2/3, rounded to 2^-16
        "nn-iou-depth": (1 + 2 * credit_units(2 / 3) / CREDIT_SCALE) / 3,
    }
    for spec in default_measures():
        assert spec.pair_function(worked_kg, vocabulary)(a, b) == pytest.approx(expected[spec.key], abs=1e-15), spec


def test_hand_values_of_tversky_hops_and_depth():
    # |A∩B| = 1, |A\B| = 2, |B\A| = 1: 1 / (1 + 0.7 * 2 + 0.3 * 1); swapping the sets swaps the weights' roles.
    a, b = frozenset("xyw"), frozenset("xz")
    assert tversky(a, b, 0.7, 0.3) == pytest.approx(1 / 2.7)
    assert tversky(b, a, 0.7, 0.3) == pytest.approx(1 / (1 + 0.7 + 0.6))
    assert dice(a, b) == pytest.approx(2 / 5)
    # vein 1 hop from vessel, 2 hops from organ; organ's nearest partner (vein) is 2 hops away.
    distances = {"vein": {"vessel": 1, "organ": 2}, "vessel": {"vein": 1}, "organ": {"vein": 2}}
    assert nn_iou_hops(frozenset({"CT", "vein"}), frozenset({"CT", "vessel", "organ"}), distances, (0.5, 0.25)) == \
        pytest.approx((1 + 0.5 + 0.5 + 0.25) / 4)
    # A near match takes its best partner's credit, once.
    credits = {"lobe": {"cortex": 60000, "brain": 30000}, "cortex": {"lobe": 60000}, "brain": {"lobe": 30000}}
    value = nn_iou_depth(frozenset({"lobe"}), frozenset({"cortex", "brain"}), credits, 1.0)
    assert value == pytest.approx((60000 + 60000 + 30000) / CREDIT_SCALE / 3)


def test_wu_palmer_counts_deep_links_more():
    """frontal lobe is_a cerebral cortex is_a cerebrum is_a ... root: deeper links earn more (docs example)."""
    chain = [("frontal lobe", "cerebral cortex"), ("cerebral cortex", "cerebrum"), ("cerebrum", "brain"),
             ("brain", "organ"), ("organ", "anatomical entity"), ("lung", "organ")]
    kg = KnowledgeGraph.from_edges([KGEdges(tuple((c, p, "t") for c, p in chain), {})])
    depths = dict(zip(kg.nodes, concept_depths(kg).tolist()))
    assert depths["anatomical entity"] == 1 and depths["cerebral cortex"] == 5 and depths["frontal lobe"] == 6
    similarity = WuPalmer(kg)
    assert similarity("frontal lobe", "cerebral cortex") == pytest.approx(10 / 11)  # 2*5 / (1 + 0 + 2*5)
    assert similarity("organ", "anatomical entity") == pytest.approx(2 / 3)  # 2*1 / (1 + 0 + 2*1)
    assert similarity("lung", "brain") == pytest.approx(4 / 6)  # via organ (depth 2): 2*2 / (1 + 1 + 2*2)
    assert similarity("brain", "brain") == 1.0


def test_depth_of_an_is_a_cycle_is_shared():
    edges = (("a", "b", "t"), ("b", "a", "t"), ("b", "root", "t"), ("child", "a", "t"))
    kg = KnowledgeGraph.from_edges([KGEdges(edges, {})])
    depths = dict(zip(kg.nodes, concept_depths(kg).tolist()))
    assert depths == {"a": 2, "b": 2, "child": 3, "root": 1}


# --- the registry and canonical names ------------------------------------------------------

def test_canonical_names_read_back_to_the_same_measure():
    rng = random.Random(0)
    for key, measure in MEASURES.items():
        for _ in range(5):
            if measure.weights:
                weights = sorted((round(rng.random(), 3) for _ in range(rng.randint(1, 4))), reverse=True)
                spec = measure_spec(key, **{f"w{d}": w for d, w in enumerate(weights, start=1)})
            else:
                spec = measure_spec(key, **{p.name: (rng.randint(0, 3) if p.integer else rng.random())
                                            for p in measure.parameters})
            assert parse_measure(spec.name) == spec
            assert parse_measure(f" {spec.name.upper()} ") == spec


@pytest.mark.parametrize("text, message", [
    ("jaccard", "unknown relevance measure"),
    ("tversky(c=1)", "has no parameter"),
    ("tversky(a=1.5)", "must lie in [0, 1]"),
    ("nn-iou(n=1.5)", "whole number"),
    ("nn-iou(n=9)", "distance threshold"),
    ("nn-iou(alpha=x)", "must be a number"),
    ("nn-iou-hops(0.2, 0.5)", "must not increase"),
    ("nn-iou-hops(w1=0.5,w3=0.1)", "without gaps"),
    ("dice(0.5)", "too many"),
    ("tversky(a=0.5, 0.3)", "misplaced"),
    ("nn-iou(", "cannot read"),
])
def test_bad_measures_are_refused_with_a_message(text, message):
    with pytest.raises(ParameterError, match=message.replace("[", r"\[").replace("(", r"\(")):
        parse_measure(text)


def test_cli_defaults_fill_only_unwritten_alpha_and_n():
    assert parse_measure("nn-tversky(a=0.2,b=0.4,n=2)", {"alpha": 0.3, "n": 1}).name == \
        "nn-tversky(a=0.2,b=0.4,alpha=0.3,n=2)"
    assert parse_measure("dice", {"alpha": 0.3, "n": 1}).name == "dice"
    assert [metric_tag(parse_measure(text)) for text in ("iou", "nn-iou(alpha=0.2,n=2)", "dice")] == ["", "nn-", "{dice}"]


# --- exact reductions ----------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(3))
def test_special_cases_give_the_same_bits(seed):
    concepts, kg = random_world(seed)
    vocabulary = concepts.vocabulary
    for n in (1, 2, 3):
        neighbours = neighbour_sets(kg, vocabulary, n)
        distances = neighbour_distances(kg, vocabulary, n)
        for a, b in itertools.islice(itertools.combinations(concepts.sets, 2), 300):
            for alpha in (0.0, 0.3, 0.5, 1.0):
                expected = nn_iou(a, b, neighbours, alpha)
                assert nn_tversky(a, b, neighbours, alpha, 1.0, 1.0) == expected
                assert nn_iou_hops(a, b, distances, (alpha,) * n) == expected
                assert nn_tversky(a, b, neighbours, 0.0, 0.7, 0.3) == tversky(a, b, 0.7, 0.3)
            assert tversky(a, b, 1.0, 1.0) == iou(a, b)
            assert tversky(a, b, 0.5, 0.5) == dice(a, b)


@pytest.mark.parametrize("text, reduced", [
    ("nn-iou(alpha=0,n=2)", "iou"), ("nn-tversky(a=1,b=1,alpha=0.5,n=2)", "nn-iou(alpha=0.5,n=2)"),
    ("nn-tversky(a=0.7,b=0.3,alpha=0,n=1)", "tversky(a=0.7,b=0.3)"), ("tversky(a=0.5,b=0.5)", "dice"),
    ("nn-iou-hops(w1=0.4,w2=0.4)", "nn-iou(alpha=0.4,n=2)"), ("nn-iou-hops(w1=0.5,w2=0.2,w3=0)",
                                                             "nn-iou-hops(w1=0.5,w2=0.2)"),
    ("nn-iou-hops(w1=0)", "iou"), ("nn-iou-depth(alpha=0,n=1)", "iou"),
])
def test_reductions_are_made_only_where_values_agree(text, reduced):
    spec = parse_measure(text)
    assert spec.effective(True).name == reduced
    concepts, kg = random_world(4)
    vocabulary = concepts.vocabulary
    original = spec.pair_function(kg, vocabulary)
    simpler = parse_measure(reduced).pair_function(kg, vocabulary)
    for a, b in itertools.islice(itertools.combinations(concepts.sets, 2), 400):
        assert original(a, b) == simpler(a, b)
    assert spec.uses_kg is False or spec.effective(False).name in ("iou", "tversky(a=0.7,b=0.3)")


# --- invariants on random data -------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_values_lie_in_0_1_and_keep_their_symmetries(seed):
    concepts, kg = random_world(seed)
    vocabulary = concepts.vocabulary
    specs = default_measures() + [parse_measure(t) for t in EXTRA]
    functions = {spec.name: spec.pair_function(kg, vocabulary) for spec in specs}
    nn = parse_measure("nn-iou(alpha=1,n=3)").pair_function(kg, vocabulary)
    for a, b in itertools.islice(itertools.combinations(concepts.sets, 2), 300):
        for spec in specs:
            value = functions[spec.name](a, b)
            assert 0.0 <= value <= 1.0
            params = spec.params
            if params.get("a", 0) == params.get("b", 0):
                assert value == functions[spec.name](b, a), spec.name
        depth = functions["nn-iou-depth(alpha=0.5,n=3)"](a, b)
        assert iou(a, b) <= depth <= nn(a, b)
        swapped = parse_measure("tversky(a=0.3,b=0.7)").pair_function(kg, vocabulary)
        assert functions["tversky(a=0.7,b=0.3)"](a, b) == swapped(b, a)


# --- engine == per-pair functions ----------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mode", ["undirected", "directed"])
@pytest.mark.parametrize("lookup_table_limit", [1 << 22, 0], ids=["lookup-table", "hashed-keys"])
def test_engine_equals_per_pair_functions_for_every_measure(seed, mode, lookup_table_limit):
    concepts, kg = random_world(seed, images=70)
    engine = PairwiseEngine(concepts, kg=kg, mode=mode, block_size=17, lookup_table_limit=lookup_table_limit)
    for spec in default_measures() + [parse_measure(t) for t in EXTRA]:
        values = engine.relevance_by(spec)
        for q in range(len(concepts)):
            assert values[q].tolist() == pair_values(spec, concepts, kg, engine.vocabulary, mode, q), (spec, q)


@pytest.mark.slow
@pytest.mark.parametrize("spec", default_measures() + [parse_measure(text) for text in EXTRA], ids=str)
def test_ranking_pool_summary_and_run_items_equal_sorting_per_query(spec):
    concepts, kg = random_world(8, images=110, vocabulary=14)
    engine = PairwiseEngine(concepts, kg=kg, block_size=32, cache_bytes=40_000)  # the cache holds ~1 plan
    rng = np.random.default_rng(2)
    rows, cols = rng.integers(0, 110, 400), rng.integers(0, 110, 400)
    counted = engine.relevance_of_pairs_by(spec, rows, cols)
    summary, ranking = engine.rank_by(spec, 9, threshold=0.4, depth=20)
    for q in range(len(concepts)):
        values = pair_values(spec, concepts, kg, engine.vocabulary, "undirected", q)
        pool = [(v, j) for j, v in enumerate(values) if j != q]
        assert summary.ideal[q].tolist() == sorted((v for v, _ in pool), reverse=True)[:9]
        assert summary.relevant_counts[q] == sum(v >= reaching(0.4) for v, _ in pool)  # 0.4 on paper reaches it
        assert ranking[q].tolist() == [j for _, j in sorted(pool, key=lambda p: (-p[0], p[1]))][:20]
    coded = engine.relevance_of_pairs_by(spec, rows, cols)
    expected = [spec.pair_function(kg, engine.vocabulary)(concepts.sets[r], concepts.sets[c])
                for r, c in zip(rows, cols)]
    assert counted.tolist() == coded.tolist() == expected


def test_code_cache_keeps_within_its_budget_across_measures():
    concepts, kg = random_world(1, images=80)
    engine = PairwiseEngine(concepts, kg=kg, block_size=20, cache_bytes=30_000)
    first = {spec.name: engine.relevance_by(spec) for spec in default_measures()}
    cached = sum(kept.code_bytes + kept.group_bytes for kept in engine.cached_plans().values())
    assert cached <= 30_000
    for spec in default_measures():
        assert engine.relevance_by(spec).tolist() == first[spec.name].tolist()


def test_separate_candidate_pool_and_large_sets_use_the_hashed_path():
    rng = np.random.default_rng(11)
    vocabulary = [f"C{i:07d}" for i in range(300)]
    sets = tuple(frozenset(rng.choice(vocabulary, int(rng.integers(40, 70)), replace=False)) for _ in range(20))
    concepts = ConceptSets(tuple(f"img{i}" for i in range(20)), sets, "large.csv")
    edges = tuple((vocabulary[i], vocabulary[j], "random") for i, j in rng.integers(0, 300, (250, 2)) if i != j)
    kg = KnowledgeGraph.from_edges([KGEdges(edges, {})])
    queries = concepts.subset(concepts.ids[:7])
    engine = PairwiseEngine(queries, concepts, kg=kg, block_size=3)
    for text in ("nn-tversky(a=0.8,b=0.1,alpha=0.5,n=2)", "nn-iou-depth(alpha=1,n=2)", "nn-iou-hops(0.5,0.3,0.2)"):
        spec = parse_measure(text)
        assert not engine.coding(spec).lookup
        values = engine.relevance_by(spec)
        function = spec.pair_function(kg, engine.vocabulary)
        for q in range(7):
            assert values[q].tolist() == [function(queries.sets[q], s) if j != q else -1.0
                                          for j, s in enumerate(concepts.sets)]


# --- oracles -------------------------------------------------------------------------------

def random_taxonomy(seed: int, nodes: int = 40, edges: int = 60) -> KnowledgeGraph:
    rng = random.Random(seed)
    names = [f"C{i:07d}" for i in range(nodes)]
    pairs = set()
    while len(pairs) < edges:
        child, parent = rng.sample(names, 2)
        pairs.add((child, parent))
    return KnowledgeGraph.from_edges([KGEdges(tuple((c, p, "t") for c, p in sorted(pairs)), {})])


def networkx_depths(kg: KnowledgeGraph) -> dict[str, int]:
    graph = nx.DiGraph([(kg.nodes[i], kg.nodes[j]) for i, j in zip(*kg.parents.nonzero())])
    condensed = nx.condensation(graph)
    longest: dict[int, int] = {}
    for component in reversed(list(nx.topological_sort(condensed))):  # parents (roots) first
        parents = list(condensed.successors(component))
        longest[component] = 1 + max((longest[p] for p in parents), default=0)
    return {node: longest[condensed.graph["mapping"][node]] for node in graph}


@pytest.mark.parametrize("seed", range(5))
def test_depths_and_wu_palmer_equal_networkx(seed):
    kg = random_taxonomy(seed)
    expected_depths = networkx_depths(kg)
    assert dict(zip(kg.nodes, concept_depths(kg).tolist())) == expected_depths
    graph = nx.DiGraph([(kg.nodes[i], kg.nodes[j]) for i, j in zip(*kg.parents.nonzero())])
    similarity = WuPalmer(kg)
    for x, y in itertools.islice(itertools.combinations(kg.nodes, 2), 300):
        up_x = nx.single_source_shortest_path_length(graph, x)
        up_y = nx.single_source_shortest_path_length(graph, y)
        common = set(up_x) & set(up_y)
        expected = max((2 * expected_depths[c] / (up_x[c] + up_y[c] + 2 * expected_depths[c]) for c in common),
                       default=0.0)
        assert similarity(x, y) == pytest.approx(expected, abs=1e-15)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mode", ["undirected", "directed"])
def test_hop_distances_equal_networkx(seed, mode):
    concepts, kg = random_world(seed, edges=45)
    graph = nx.DiGraph([(kg.nodes[i], kg.nodes[j]) for i, j in zip(*kg.parents.nonzero())])
    vocabulary = concepts.vocabulary
    distances = neighbour_distances(kg, vocabulary, 3, mode)
    for a in vocabulary:
        expected = {}
        if a in graph:
            if mode == "undirected":
                reach = nx.single_source_shortest_path_length(graph.to_undirected(), a, cutoff=3)
            else:
                up = nx.single_source_shortest_path_length(graph, a, cutoff=3)
                down = nx.single_source_shortest_path_length(graph.reverse(), a, cutoff=3)
                reach = {b: min(up.get(b, 9), down.get(b, 9)) for b in set(up) | set(down)}
            expected = {b: d for b, d in reach.items() if b in vocabulary and b != a}
        assert distances[a] == expected


def test_credit_sets_hold_rounded_wu_palmer_of_neighbours():
    concepts, kg = random_world(2, edges=40)
    vocabulary = concepts.vocabulary
    credits = credit_sets(kg, vocabulary, 2)
    neighbours = neighbour_sets(kg, vocabulary, 2)
    similarity = WuPalmer(kg)
    for x in vocabulary:
        assert set(credits[x]) <= neighbours[x]
        for y in neighbours[x]:
            assert credits[x].get(y, 0) == round(similarity(x, y) * CREDIT_SCALE)


def test_row_max_product_equals_dense_reference():
    rng = np.random.default_rng(3)
    rows = (rng.random((30, 12)) < 0.3).astype(np.float32)
    weights = np.where(rng.random((12, 12)) < 0.25, rng.integers(1, 100, (12, 12)), 0)
    expected = np.max(rows[:, :, None] * weights[None, :, :], axis=1)
    assert row_max_product(sp.csr_matrix(rows), sp.csr_matrix(weights)).toarray().tolist() == expected.tolist()
