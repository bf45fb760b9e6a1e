"""What the Leaderboard shows beside its table (issue 67): the 11-point precision-recall curves are the means of
trec_eval's ``iprec_at_recall_L`` as ``evaluate`` gives them, and the effect sizes and ANOVA are the API's."""

from __future__ import annotations

import pandas as pd
import pytest

import evalcore
from evalcore import Relevance, Scoring
from evalcore.app.scores import (
    PRECISION_RECALL_COLUMNS,
    curve_relevance,
    interpolated_precision_names,
    metric_effects,
    precision_recall_curves,
)
from evalcore.app.workspace import load_demo
from evalcore.evaluation.evaluator import Evaluator
from evalcore.metrics.registry import RECALL_LEVELS
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import nn_iou_measure
from tests.conftest import DEMO

RUNS = sorted((DEMO / "runs").glob("*.trec"))


@pytest.fixture(scope="module")
def demo():
    ws = load_demo()
    kg = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
    return ws, Evaluator(ws.concepts, kg, "undirected", ws.resolved_labels())


@pytest.mark.parametrize(("key", "threshold"), [("nn-iou", 0.5), ("iou", 0.5), ("nn-iou", 0.3)])
def test_the_eleven_point_curve_is_the_means_of_the_iprec_metrics(demo, key, threshold):
    """Each point is the mean over queries of iprec_at_recall_L that evaluate gives for the same runs and relevance
    (the threshold saying what is relevant), one row per system and level."""
    ws, evaluator = demo
    relevance = Relevance(nn_iou_measure(0.5, 1), threshold=threshold)
    runs = [run for _, run in ws.runs.values()]
    curves = precision_recall_curves(evaluator, runs, relevance, key)
    names = interpolated_precision_names(key)
    expected = evalcore.evaluate(DEMO / "concepts.csv", RUNS, Scoring(list(names)), relevance,
                                 kg=DEMO / "kg_edges.csv").means()
    assert list(curves.table.columns) == PRECISION_RECALL_COLUMNS and curves.relevance == key
    assert len(curves.table) == 11 * len(runs)
    for row in curves.table.itertuples(index=False):
        name = names[RECALL_LEVELS.index(row.recall)]
        assert row.precision == pytest.approx(expected[row.system][name], abs=1e-12), (row.system, name)
    # interpolated precision never rises with recall
    for _, rows in curves.table.groupby("system"):
        assert rows.precision.is_monotonic_decreasing


def test_the_curves_read_the_relevance_of_the_metric_in_focus():
    metrics = ["CUI@10", "nn-CUI@10", "P@10[modality]"]
    assert curve_relevance(metrics, "CUI@10") == "iou" and curve_relevance(metrics, "nn-CUI@10") == "nn-iou"
    assert curve_relevance(metrics, "P@10[modality]") == "nn-iou" and curve_relevance(metrics) == "nn-iou"
    assert curve_relevance(["CUI@10{dice}", "CUI@10"], "CUI@10{dice}") == "dice"
    assert interpolated_precision_names("qrels")[10] == "qrels-iprec_at_recall_1.00"


def test_the_effects_are_the_apis(demo):
    ws, evaluator = demo
    result = evalcore.evaluate(DEMO / "concepts.csv", RUNS, Scoring(["CUI@10", "nn-CUI@10"]),
                               Relevance(nn_iou_measure(0.5, 1)), kg=DEMO / "kg_edges.csv")
    effects = metric_effects(result, "nn-CUI@10")
    assert effects.metric == "nn-CUI@10"
    pd.testing.assert_frame_equal(effects.sizes, evalcore.api.effect_sizes(result, "nn-CUI@10"))
    anova = evalcore.api.repeated_measures_anova(result, "nn-CUI@10")
    pd.testing.assert_frame_equal(effects.anova, anova.summary)
    pd.testing.assert_frame_equal(effects.tukey, anova.tukey)
