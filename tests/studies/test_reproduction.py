"""The paper reproduction: its parts on random data against per-pair references, and Table 1 on ROCOv2."""

from __future__ import annotations

import importlib.util
import random

import numpy as np
import pandas as pd
import pytest

from evalcore.data import ImageLabels
from evalcore.evaluation.evaluator import Evaluator
from evalcore.relevance.formulas import nn_iou_from_counts
from evalcore.relevance.kg import neighbour_sets
from evalcore.relevance.measures import measure_spec, nn_iou_measure, parse_measure
from evalcore.studies import reproduction as rp
from tests.conftest import ROCOV2, ROOT, needs, random_world


def labelled_world(seed: int, images: int = 60):
    concepts, kg = random_world(seed, images=images)
    rng = random.Random(seed)
    labels = ImageLabels({
        "modality": {i: frozenset({rng.choice("AB")}) for i in concepts.ids},
        "organ": {i: frozenset({rng.choice("xyz")}) for i in concepts.ids if rng.random() < 0.8},
    })
    return concepts, kg, Evaluator(concepts, kg, labels=labels)


@pytest.mark.parametrize("seed", range(3))
def test_strict_ranking_equals_sorting_strict_nn_iou_per_query(seed):
    concepts, kg, evaluator = labelled_world(seed)
    ranking = rp.strict_relevance_ranking(evaluator, nn_iou_measure(0.5, 2), 8, "strict")
    neighbours = neighbour_sets(kg, evaluator.engine.vocabulary, 2)
    for q, a in enumerate(concepts.sets):
        values = [(nn_iou_from_counts(len(a & b), len(rp.strict_approximate_matches(a, b, neighbours)), len(a | b),
                                      0.5), j) for j, b in enumerate(concepts.sets) if j != q]
        expected = [j for _, j in sorted(values, key=lambda p: (-p[0], p[1]))][:8]
        assert ranking.documents[q].tolist() == expected


def test_strict_reading_never_credits_more_than_design():
    concepts, kg = random_world(8, images=40)
    neighbours = neighbour_sets(kg, tuple(sorted(set(concepts.vocabulary))), 2)
    from evalcore.relevance.formulas import approximate_matches

    for a in concepts.sets:
        for b in concepts.sets:
            assert rp.strict_approximate_matches(a, b, neighbours) <= approximate_matches(a, b, neighbours)


def test_ablation_areas_are_zero_for_n0_and_curves_meet_at_alpha0():
    _, _, evaluator = labelled_world(2, images=80)
    curves = rp.ablation_curves(evaluator, hops=(0, 1, 2), k=5)
    assert (curves.areas[curves.areas.n == 0].area == 0).all()
    at_zero = curves.grid[curves.grid.alpha == 0].groupby(["subset", "metric"]).value.nunique()
    assert (at_zero == 1).all()
    assert set(curves.grid.subset) <= {"isolated", "all"}
    assert ((curves.grid.value >= 0) & (curves.grid.value <= 100)).all()


def test_tie_report_counts_ties_and_random_orders_average_near_stable():
    _, _, evaluator = labelled_world(3, images=70)
    report = rp.tie_report(evaluator, {"IoU": measure_spec("iou")}, seeds=range(3), ks=(5,))
    row = report.iloc[0]
    summary = evaluator.engine.pool_summary_by(parse_measure("iou"), 6)
    assert row.queries_with_tie == int((summary.ideal[:, 4] == summary.ideal[:, 5]).sum())
    assert row.random_min <= row.random_mean <= row.random_max


def test_precision_table_restricted_to_queries_is_their_mean():
    concepts, _, evaluator = labelled_world(4)
    ranking = evaluator.relevance_ranking(nn_iou_measure(0.0, 0), 5, 5, name="IoU")
    subset = concepts.ids[:20]
    table = rp.precision_table(evaluator, [ranking], subset, ks=(5,))
    values = evaluator.evaluate([ranking], ["P@5[modality]"]).systems["IoU"].values["P@5[modality]"][:20]
    assert table[table.target == "modality"].value.iloc[0] == pytest.approx(100 * np.nanmean(values))


@pytest.mark.slow
@needs(ROCOV2)
def test_reproduction_on_500_queries_gives_the_papers_iou_modality_precision(tmp_path):
    spec = importlib.util.spec_from_file_location("reproduce_paper", ROOT / "scripts" / "reproduce_paper.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "REPRODUCTION.md"
    results = script.run(["--sample", "500", "--parts", "table1,coverage", "--no-figures", "--out", str(out)])
    table = results["table1"].set_index(["system", "target"])
    assert results["queries"] == 500
    assert abs(table.loc[("IoU", "modality"), "P@5"] - 99.28) <= 1.0
    assert abs(table.loc[("IoU", "modality"), "diff P@5"]) <= 1.0
    report = out.read_text()
    assert "## Table 1" in report and "| IoU | modality |" in report and "KG coverage" in report


@pytest.mark.slow
def test_report_figures_export_to_png(tmp_path):
    from evalcore.io.figures import ablation_figure, timing_figure

    _, _, evaluator = labelled_world(5, images=50)
    curves = rp.ablation_curves(evaluator, hops=(0, 1), alphas=(0.0, 0.5, 1.0), k=5)
    timing = pd.DataFrame({"queries": [10, 20, 10, 20], "method": ["a", "a", "b", "b"], "seconds": [1, 2, 3, 6],
                           "scaled": [False, False, True, True]})
    for name, figure in (("fig3.png", ablation_figure(curves.grid)), ("fig4.png", timing_figure(timing))):
        figure.write_image(str(tmp_path / name))
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
