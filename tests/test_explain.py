"""The explanation of a pair: hand-worked cases, invariants on random worlds, networkx as an oracle for paths."""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from evalcore.data import KGEdges
from evalcore.errors import ParameterError
from evalcore.explain import (
    PathStep,
    example_path_pair,
    explain_pair,
    path_phrase,
    paths_dot,
    reason_sentences,
    search_concepts,
    tie_counts,
)
from evalcore.kg import KnowledgeGraph, neighbour_sets
from evalcore.measures import measure_spec, nn_iou_measure
from evalcore.negation import mention_status
from evalcore.relevance import approximate_matches, iou, nn_iou, nn_tversky

from .conftest import OPEN_KG, ROCOV2, needs, random_world

VEIN, VESSEL, CT = "C0042449", "C0005847", "C0040405"


def test_worked_example_of_design(worked_kg):
    e = explain_pair({CT, VEIN}, {CT, VESSEL}, worked_kg, nn_iou_measure(0.5, 1))
    assert e.exact == (CT,)
    assert [(m.concept, m.side, m.partner) for m in e.near] == [(VEIN, "query", VESSEL), (VESSEL, "result", VEIN)]
    assert [(s.name, s.link) for s in e.near[1].path] == [("Veins", ""), ("Blood Vessels", "is_a")]
    assert (e.intersection, e.approximate, e.union) == (1, 2, 3)
    assert e.iou.substituted == "1 / 3" and e.iou.value == pytest.approx(1 / 3)
    assert e.nn_iou.substituted == "(1 + 0.5 × 2) / 3" and e.nn_iou.value == pytest.approx(2 / 3)
    assert e.relevance == e.nn_iou
    assert e.unmatched_query == e.unmatched_result == ()


def test_near_match_whose_partner_is_an_exact_match(worked_kg):
    # The result's "Veins" neighbours "Blood Vessels", which both images show: still a near match.
    e = explain_pair({VESSEL}, {VESSEL, VEIN}, worked_kg, nn_iou_measure(0.5, 1))
    assert e.exact == (VESSEL,)
    assert [(m.concept, m.partner, m.query_concept, m.result_concept) for m in e.near] == [(VEIN, VESSEL, VESSEL, VEIN)]
    assert [s.link for s in e.near[0].path] == ["", "has_child"]
    assert e.nn_iou.value == pytest.approx((1 + 0.5) / 2)
    assert reason_sentences(e) == ["both show Blood Vessels", "Veins is a kind of Blood Vessels"]


def test_partner_is_the_closest_concept():
    kg = KnowledgeGraph.from_edges([KGEdges((("x", "p", "t"), ("p", "g", "t")), {})])
    e = explain_pair({"x"}, {"g", "p"}, kg, nn_iou_measure(0.5, 2))
    assert [(m.concept, m.partner, m.hops) for m in e.near if m.side == "query"] == [("x", "p", 1)]


def test_directed_mode_ignores_siblings_and_n_zero_is_iou():
    kg = KnowledgeGraph.from_edges([KGEdges((("vein", "vessel", "t"), ("artery", "vessel", "t")), {})])
    assert explain_pair({"vein"}, {"artery"}, kg, nn_iou_measure(0.5, 2), "undirected").near[0].hops == 2
    assert explain_pair({"vein"}, {"artery"}, kg, nn_iou_measure(0.5, 2), "directed").near == ()
    e = explain_pair({"vein"}, {"vessel"}, kg, nn_iou_measure(1.0, 0))
    assert e.near == () and e.nn_iou.value == e.iou.value == 0.0
    assert e.unmatched_query == ("vein",) and e.unmatched_result == ("vessel",)


def test_tversky_arithmetic(worked_kg):
    e = explain_pair({CT, VEIN}, {CT, VESSEL}, worked_kg, "nn-tversky(a=0.5,b=0.5,alpha=0.5,n=1)")
    assert e.relevance.measure == "nn-Tversky" and e.relevance.value == pytest.approx(0.8)
    assert e.relevance.substituted == "(1 + 0.5 × 2) / (1 + 0.5 × 2 + 0.5 × (1 - 0.5 × 1) + 0.5 × (1 - 0.5 × 1))"
    dice = explain_pair({"x", "y"}, {"x", "z"}, None, "tversky(a=0.5,b=0.5)").relevance
    assert dice.value == 0.5 and dice.substituted == "1 / (1 + 0.5 × 1 + 0.5 × 1)"


@pytest.mark.parametrize("kwargs", [{"measure": "nn-iou(alpha=1.5,n=1)"}, {"measure": "nn-iou(alpha=0.5,n=7)"},
                                    {"mode": "sideways"}, {"measure": "dice"}, {"measure": "tversky(a=-1,b=1)"}])
def test_bad_parameters_raise_parameter_error(worked_kg, kwargs):
    arguments = {"measure": "nn-iou(alpha=0.5,n=1)", **kwargs}
    with pytest.raises(ParameterError):
        explain_pair({CT}, {VEIN}, worked_kg, **arguments)


def test_empty_sets():
    e = explain_pair(set(), set(), None, nn_iou_measure(0.5, 1))
    assert e.iou.value == e.nn_iou.value == 0.0 and e.iou.substituted == "0 / 0"
    assert reason_sentences(e) == ["no concept in common with the query"]


@pytest.mark.parametrize("seed", range(8))
def test_agrees_with_relevance_functions_on_random_worlds(seed):
    concepts, kg = random_world(seed)
    rng = random.Random(seed)
    graph = nx.Graph()
    graph.add_nodes_from(kg.nodes)
    directed = nx.DiGraph()
    for i, node in enumerate(kg.nodes):
        for j in kg.parents.indices[kg.parents.indptr[i]: kg.parents.indptr[i + 1]]:
            graph.add_edge(node, kg.nodes[j])
            directed.add_edge(node, kg.nodes[j])
    for mode in ("undirected", "directed"):
        for n in range(4):
            neighbours = neighbour_sets(kg, concepts.vocabulary, n, mode)
            for _ in range(15):
                a, b = rng.choice(concepts.sets), rng.choice(concepts.sets)
                alpha = rng.choice([0.0, 0.3, 1.0])
                e = explain_pair(a, b, kg, nn_iou_measure(alpha, n), mode)
                assert {m.concept for m in e.near} == approximate_matches(a, b, neighbours)
                assert e.iou.value == iou(a, b)
                assert e.nn_iou.value == nn_iou(a, b, neighbours, alpha)
                assert explain_pair(a, b, kg, measure_spec("nn-tversky", a=0.3, b=0.7, alpha=alpha, n=n), mode).relevance.value == \
                    nn_tversky(a, b, neighbours, alpha, 0.3, 0.7)
                parts = [set(e.exact), {m.concept for m in e.near}, set(e.unmatched_query), set(e.unmatched_result)]
                assert sum(len(p) for p in parts) == len(a | b) and set().union(*parts) == a | b
                for m in e.near:
                    check_path(m, a, b, n, mode, graph, directed)


def check_path(match, a, b, n, mode, graph, directed):
    path = [s.node for s in match.path]
    assert path[0] == match.query_concept and path[-1] == match.result_concept
    assert match.query_concept in a and match.result_concept in b
    assert {match.concept, match.partner} == {match.query_concept, match.result_concept}
    assert 1 <= match.hops <= n
    for previous, step in zip(match.path, match.path[1:]):
        child, parent = (previous.node, step.node) if step.link == "is_a" else (step.node, previous.node)
        assert directed.has_edge(child, parent)
    if mode == "directed":
        assert len({s.link for s in match.path[1:]}) == 1
        oracle = min(nx.shortest_path_length(directed, x, y) for x, y in [(path[0], path[-1]), (path[-1], path[0])]
                     if nx.has_path(directed, x, y))
    else:
        oracle = nx.shortest_path_length(graph, path[0], path[-1])
    assert match.hops == oracle
    # The partner is the closest concept of the other set (networkx distance as the oracle).
    other = b if match.side == "query" else a
    reachable = [nx.shortest_path_length(graph, match.concept, p) for p in other
                 if mode == "undirected" and p in graph and nx.has_path(graph, match.concept, p)]
    if reachable:
        assert match.hops == min(reachable)


def test_path_phrases_cover_every_shape():
    def steps(*spec):
        return [PathStep(name, name, link) for name, link in spec]

    assert path_phrase(steps(("a", ""), ("b", "is_a"), ("c", "is_a"))) == "a is a kind of b, which is a kind of c"
    assert path_phrase(steps(("c", ""), ("b", "has_child"), ("a", "has_child"))) == \
        "a is a kind of b, which is a kind of c"
    assert path_phrase(steps(("a", ""), ("p", "is_a"), ("g", "is_a"), ("b", "has_child"))) == \
        "a and b are both kinds of g"
    assert path_phrase(steps(("a", ""), ("p", "is_a"), ("b", "has_child"), ("c", "is_a"))) == \
        "a is a kind of p; b is a kind of p; b is a kind of c"
    assert path_phrase(steps(("a", ""), ("b", "is_a")), lambda s: f"*{s}*") == "*a* is a kind of *b*"


def test_researcher_reasons_carry_hop_counts(worked_kg):
    e = explain_pair({CT, VEIN}, {CT, VESSEL}, worked_kg, nn_iou_measure(0.5, 1), names={CT: "CT"})
    assert reason_sentences(e, "researcher") == ["both are CT images", "Veins is a kind of Blood Vessels (1 link, from test)"]
    with pytest.raises(ParameterError):
        reason_sentences(e, "patient")


def test_paths_dot_draws_each_edge_once_child_to_parent():
    forward = [PathStep("v", 'Vein "x"', ""), PathStep("b", "Blood", "is_a")]
    backward = [PathStep("b", "Blood", ""), PathStep("v", 'Vein "x"', "has_child")]
    dot = paths_dot([forward, backward], {"v"}, {"b"})
    assert dot.count("->") == 1 and '"v" -> "b"' in dot and 'label="Vein \\"x\\""' in dot


def test_tie_counts_agree_with_brute_force():
    rng = np.random.default_rng(3)
    for _ in range(20):
        values = rng.choice([0.0, 0.25, 0.5, 1.0], size=50)
        values[rng.integers(50)] = -1.0
        ranked = [i for i in rng.permutation(50)[:10].tolist() if values[i] >= 0]
        brute = [sum(1 for j in range(50) if j != i and values[j] == values[i]) for i in ranked]
        assert tie_counts(values, ranked) == brute


def test_search_prefers_exact_then_prefix_then_substring():
    labels = {"C3278975": "Attenuation of retinal blood vessels", "C0005847": "Blood Vessels", "C0042449": "Veins",
              "C9": "Structure of veins of the leg"}
    assert search_concepts("Blood Vessels", labels)[0] == "C0005847"
    assert search_concepts("veins", labels) == ["C0042449", "C9"]
    assert search_concepts("VEI", labels, popularity={"C9": 5}) == ["C0042449", "C9"]
    assert search_concepts("etinal", labels) == ["C3278975"]
    assert search_concepts("  ", labels) == []


@pytest.mark.parametrize("seed", range(5))
def test_example_pair_is_a_closest_pair(seed):
    concepts, kg = random_world(seed)
    frequency = {c: sum(1 for s in concepts.sets if c in s) for c in concepts.vocabulary}
    pair = example_path_pair(kg, frequency)
    in_kg = [c for c in frequency if c in kg.index]
    graph = nx.Graph((kg.nodes[i], kg.nodes[j]) for i, j in zip(*kg.parents.nonzero()))
    distances = [nx.shortest_path_length(graph, x, y) for x in in_kg for y in in_kg
                 if x < y and x in graph and y in graph and nx.has_path(graph, x, y)]
    if not distances or min(distances) > 3:
        assert pair is None
    else:
        assert nx.shortest_path_length(graph, *pair) == min(distances)


@needs(ROCOV2)
@needs(OPEN_KG)
def test_veins_blood_vessels_in_the_open_kg():
    from evalcore.loading import load_kg
    from evalcore.readers import read_concept_names

    kg = load_kg([OPEN_KG])
    for names in ({}, read_concept_names(ROCOV2 / "cui_mapping.csv")):  # the KG's own names, then ROCOv2's
        labels = {**{node: kg.names.get(node, node) for node in kg.nodes}, **names}
        veins, vessels = search_concepts("Veins", labels)[0], search_concepts("Blood vessels", labels)[0]
        assert (veins, vessels) == (VEIN, VESSEL)
    e = explain_pair({CT, veins}, {CT, vessels}, kg, nn_iou_measure(0.5, 1), names=names)
    assert [m.hops for m in e.near] == [1, 1]
    assert reason_sentences(e) == ["both are CT images", "Veins is a kind of Blood Vessel"]


HEMORRHAGE = "C0019080"


def test_a_negated_shared_concept_is_a_tag_not_a_claim():
    names = {HEMORRHAGE: "Hemorrhage", "F": "Fracture"}
    pair = ({CT, HEMORRHAGE, "F"}, {CT, HEMORRHAGE, "F"})
    affirmed = explain_pair(*pair, None, "iou", names=names, captions=("Hemorrhage and fracture.", "A fracture."))
    assert reason_sentences(affirmed) == ["both are CT images", "both show Fracture and Hemorrhage"]
    denied = explain_pair(*pair, None, "iou", names=names,
                          captions=("Large hemorrhage, no fracture.", "No haemorrhage. Fracture."))
    assert dict(denied.caption_status) == {HEMORRHAGE: ("affirmed", "negated"), "F": ("negated", "affirmed")}
    assert reason_sentences(denied) == [
        "both are CT images",
        "both are tagged Hemorrhage, but this image's caption says it is absent",
        "both are tagged Fracture, but the query's caption says it is absent"]
    both = explain_pair(*pair, None, "iou", names=names, captions=("No hemorrhage.", "Without bleeding or fracture"))
    assert reason_sentences(both, "researcher")[1:] == [
        "both are tagged Fracture, but this image's caption negates every mention of it (NegEx rule): "
        "“Without bleeding or fracture”",
        "both are tagged Hemorrhage, but both captions negate every mention of it (NegEx rule): "
        "“No hemorrhage.” / “Without bleeding or fracture”"]
    assert dict(both.negation_evidence) == {"F": ("", "Without bleeding or fracture"),
                                            HEMORRHAGE: ("No hemorrhage.", "Without bleeding or fracture")}
    assert explain_pair(*pair, None, "iou", names=names).caption_status == {}
    with pytest.raises(ParameterError, match="captions"):
        explain_pair(*pair, None, "iou", captions="no hemorrhage")


@needs(ROCOV2)
def test_rocov2_009853_explanation_names_the_negation():
    """Issue 23: rank 2 of the Case view, "Without bleeding along the left electrode", tagged CT and Hemorrhage."""
    from evalcore.readers import read_captions, read_concept_names, read_concepts

    concepts = read_concepts(ROCOV2 / "test_concepts.csv")
    captions = read_captions(ROCOV2 / "test_captions.csv")
    names = read_concept_names(ROCOV2 / "cui_mapping.csv")
    result = "ROCOv2_2023_test_009853"
    assert concepts[result] == {CT, HEMORRHAGE}
    query = next(i for i in concepts.ids if i != result and concepts[i] >= concepts[result]
                 and mention_status(captions.get(i, ""), ["Hemorrhage"]) == "affirmed")
    e = explain_pair(concepts[query], concepts[result], None, "iou", names=names,
                     captions=(captions[query], captions[result]))
    assert reason_sentences(e)[:2] == ["both are CT images",
                                       "both are tagged Hemorrhage, but this image's caption says it is absent"]


def test_a_near_match_names_the_caption_that_denies_its_concept():
    kg = KnowledgeGraph.from_edges([KGEdges((("HT", HEMORRHAGE, "mesh"),), {"HT": "Hematoma", HEMORRHAGE: "Hemorrhage"})])
    e = explain_pair({CT, HEMORRHAGE}, {CT, "HT"}, kg, nn_iou_measure(0.5, 1),
                     captions=("CT without bleeding along the electrode.", "CT: a large hematoma."))
    assert e.caption_status[HEMORRHAGE] == ("negated", "absent") and e.caption_status["HT"] == ("absent", "affirmed")
    assert reason_sentences(e) == ["both are CT images",
                                   "Hematoma is a kind of Hemorrhage, but the query's caption says Hemorrhage is absent"]
