"""What is shown first: the Leaderboard computes only the metrics on screen (a group, a family of it, the metric in
focus), and each has, to the last bit, the value the whole table gives it (Scoring.part_of)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from evalcore.app.scores import leaderboard_names, shown_scores
from evalcore.app.workspace import load_demo
from evalcore.data import ConceptSets, Run
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance, Scoring
from evalcore.evaluation.results import evaluate_runs
from evalcore.io.tables import grouped_metrics, shown_metrics
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import measure_spec
from tests.conftest import random_world

KS = (5, 10, 30)


def assert_same_values(part, whole) -> None:
    """Every metric of ``part`` has ``whole``'s per-query values, bit for bit (NaN where NaN)."""
    assert part.systems == whole.systems
    for system in part.systems:
        assert part.results.query_ids(system) == whole.results.query_ids(system)
        for metric in part.metrics:
            np.testing.assert_array_equal(part.results.metric_values(system, metric),
                                          whole.results.metric_values(system, metric), err_msg=f"{system} {metric}")
        assert part.counts[system]["queries_empty"] == whole.counts[system]["queries_empty"]


def every_view(names: list[str]) -> list[tuple[str, ...]]:
    """The metrics every group, family and focus of a leaderboard shows."""
    views = []
    for group, families in grouped_metrics(names).items():
        for family in families:
            for focus in (None, names[0], names[-1]):
                views.append(shown_metrics(names, group, family, focus))
    return list(dict.fromkeys(views))


def demo_world() -> tuple[Evaluator, list[Run]]:
    ws = load_demo()
    kg = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
    return Evaluator(ws.concepts, kg, "undirected", ws.resolved_labels()), [run for _, run in ws.runs.values()]


def random_runs(seed: int, ids: tuple[str, ...], systems: int = 3, depth: int = 12) -> list[Run]:
    rng = random.Random(seed)
    return [Run(f"s{number}", {query: tuple(rng.sample([i for i in ids if i != query], depth))
                               for query in rng.sample(ids, len(ids) - 5)}) for number in range(systems)]


@pytest.mark.slow
@pytest.mark.parametrize("measure", [None, "dice", "nn-iou-depth"])
def test_every_view_of_the_demo_has_the_whole_tables_values(measure):
    evaluator, runs = demo_world()
    chosen = measure_spec(measure) if measure else None
    relevance = Relevance(measure_spec("nn-iou", alpha=0.7, n=2), chosen)
    whole = shown_scores(evaluator, runs, relevance, KS)
    names = leaderboard_names(evaluator, relevance, KS)
    assert whole.metrics == names
    for shown in every_view(names):
        assert_same_values(shown_scores(evaluator, runs, relevance, KS, shown), whole)


@pytest.mark.parametrize("seed", range(4))
def test_a_part_of_a_random_table_has_the_whole_tables_values(seed):
    concepts, kg = random_world(seed, images=50)
    evaluator = Evaluator(concepts, kg)
    runs = random_runs(seed, concepts.ids)
    relevance = Relevance(measure_spec("nn-iou", alpha=0.4, n=2), measure_spec("tversky"), empty_queries="exclude")
    whole = shown_scores(evaluator, runs, relevance, KS)
    for shown in every_view(whole.metrics):
        assert_same_values(shown_scores(evaluator, runs, relevance, KS, shown), whole)


def test_without_the_whole_table_a_part_would_call_other_queries_empty(worked_kg):
    """The reason for part_of: IoU's metrics alone call a query empty where no image shares a concept with it, though
    nn-IoU finds a related one (Veins is a kind of Blood vessel); in the whole table that query counts, with 0."""
    concepts = ConceptSets(("q", "x", "y"), (frozenset({"C0042449"}), frozenset({"C0005847"}),
                                             frozenset({"C0005847", "C0000001"})))
    evaluator, runs = Evaluator(concepts, worked_kg), [Run("s", {"q": ("x", "y"), "x": ("y", "q")})]
    whole = evaluate_runs(evaluator, runs, Scoring(["CUI@10", "nn-CUI@10"]))
    alone = evaluate_runs(evaluator, runs, Scoring(["CUI@10"]))
    part = evaluate_runs(evaluator, runs, Scoring(["CUI@10"], part_of=["CUI@10", "nn-CUI@10"]))
    assert np.isnan(alone.metric_values("s", "CUI@10")).tolist() == [True, False]
    assert whole.metric_values("s", "CUI@10").tolist() == part.metric_values("s", "CUI@10").tolist() == [0.0, 1.0]


def test_a_part_must_lie_in_its_table():
    with pytest.raises(ParameterError, match="not in the table"):
        Scoring(["MAP@10"], part_of=["CUI@10"])
    with pytest.raises(ParameterError, match="part_of"):
        Scoring(part_of=["CUI@10"])
