"""The Ablation page's sweeps for every registry measure: axis titles and ranges from the registry, a title naming
the measure and the parameter swept, the reason a curve is flat, a progress bar that moves while a pass runs, and
the page itself with Tversky chosen."""

from __future__ import annotations

import base64
import json
import threading
import time

import numpy as np
import pandas as pd
import pytest

from evalcore.data import ImageLabels, Run
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.metrics.registry import parse_metric
from evalcore.relevance.measures import MEASURES, measure_spec, parse_measure
from evalcore.studies.ablation import (
    RELEVANCE_SYSTEM,
    ablation_grid,
    ablation_title,
    flat_curves,
    grids_alpha_and_n,
    one_ahead,
    parameter_sweep,
    retrieval_system,
    sweep_axis,
    sweep_values,
)
from tests.conftest import open_page, random_world

REGISTRY = [(key, name) for key in MEASURES for name in measure_spec(key).params]


@pytest.mark.parametrize("key", list(MEASURES))
def test_every_registry_parameter_has_words_and_a_sweep_range_inside_its_values(key):
    spec = measure_spec(key)
    for name in spec.params:
        parameter = spec.measure.parameter(name)
        assert parameter.label and parameter.label != name
        low, high = parameter.sweep_range
        assert parameter.low <= low < high <= parameter.high


@pytest.mark.parametrize(("key", "name"), REGISTRY)
def test_the_sweep_axis_and_the_title_come_from_the_registry(key, name):
    spec = measure_spec(key)
    parameter = spec.measure.parameter(name)
    axis = sweep_axis(spec, name)
    low, high = parameter.sweep_range
    if spec.measure.weights:  # hop weights also stay non-increasing: a range inside the registry's
        assert low <= axis.low <= axis.high <= high
    else:
        assert (axis.low, axis.high) == (low, high)
    assert axis.title == f"{parameter.label} ({name}, from {axis.low:g} to {axis.high:g})"
    assert sweep_values(spec, name)[0] == axis.low and sweep_values(spec, name)[-1] == axis.high
    title = ablation_title(spec, name)
    if grids_alpha_and_n(spec):  # IoU and nn-IoU: the paper's alpha x n grid of nn-IoU
        assert title == "Ablation of nn-IoU: sweeping alpha and n"
    else:
        assert title == f"Ablation of {spec.measure.title}: sweeping {name} ({parameter.label})"


@pytest.mark.parametrize("key", [key for key in MEASURES if not measure_spec(key).params])
def test_a_measure_without_parameters_is_named_in_the_title(key):
    expected = "nn-IoU" if grids_alpha_and_n(measure_spec(key)) else MEASURES[key].title
    assert ablation_title(measure_spec(key)).startswith(f"Ablation of {expected}:")


def test_a_title_asked_for_a_parameter_the_measure_lacks_names_its_first():
    assert ablation_title(parse_measure("tversky(a=0.2,b=0.3)"), "alpha") == ablation_title(parse_measure("tversky"), "a")


def labels_of(concepts) -> ImageLabels:
    return ImageLabels({"modality": {image: frozenset({f"M{i % 3}"}) for i, image in enumerate(concepts.ids)}})


def runs_of(concepts, count: int = 2) -> list[Run]:
    rng = np.random.default_rng(5)
    ids = list(concepts.ids)
    return [Run(f"run{r}", {q: tuple(rng.choice(ids, 8, replace=False)) for q in ids}) for r in range(count)]


def test_a_flat_curve_of_retrieval_by_the_swept_measure_says_it_is_the_reference():
    concepts, kg = random_world(3, images=50)
    evaluator = Evaluator(concepts, kg, labels=labels_of(concepts))
    runs = runs_of(concepts)
    spec = measure_spec("tversky", a=0.7, b=0.3)
    metrics = ["CUI@5{tversky}", "P@5[modality]"]
    sweep = parameter_sweep(evaluator, runs, metrics, spec, "a", sweep_values(spec, "a", 5))
    flat = {(c.system, c.metric): c for c in flat_curves(sweep, spec, ["a"], has_kg=True)}
    reference = flat[(retrieval_system(spec), "CUI@5{tversky}")]
    assert reference.value == 1.0
    assert "by construction" in reference.reason and "reference" in reference.reason
    # A run's label precision does not read Tversky: its lists are fixed.
    for run in runs:
        assert "fixed" in flat[(run.name, "P@5[modality]")].reason
    # The runs' graded relevance moves with a: not flat.
    assert all((run.name, "CUI@5{tversky}") not in flat for run in runs)


@pytest.mark.parametrize("options", [{"empty_queries": "zero"}, {"ties": "trec_eval"}, {"query_image": "keep"},
                                     {"gain": "exponential", "threshold": 0.3}])
def test_a_grid_point_at_the_tables_own_setting_is_the_tables_number(options):
    """Was: the grid and the sweep kept only the gain, so the paper report's curve at its own alpha and n differed
    from its leaderboard under --empty-queries zero (0.3167 against 0.2850), --query-image keep or --ties trec_eval."""
    concepts, kg = random_world(8, images=50)
    rng = np.random.default_rng(8)
    ids = list(concepts.ids)
    runs = [Run(f"run{r}", {q: tuple(rng.choice(ids, 8, replace=False)) for q in ids},
                scores={q: tuple(float(v) for v in rng.integers(0, 3, 8)) for q in ids}) for r in range(2)]
    for q in ids[:10]:  # a query that retrieves its own image, for the query-image policy
        runs[0].rankings[q] = (q, *runs[0].rankings[q][:7])
    evaluator = Evaluator(concepts, kg)
    metrics = ["nn-CUI@5", "nn-MAP@5"]
    relevance = Relevance.of(0.5, 2, **options)
    table = evaluator.evaluate(runs, metrics, relevance).means()
    grid = ablation_grid(evaluator, runs, metrics, alphas=(0.0, 0.5), hops=(1, 2), with_relevance_retrieval=False,
                         relevance=relevance)
    point = grid[(grid.alpha == 0.5) & (grid.n == 2)].set_index(["system", "metric"]).value
    assert {(system, metric): point[(system, metric)] for system in table for metric in metrics} == pytest.approx(
        {(system, metric): table[system][metric] for system in table for metric in metrics}, abs=1e-12)
    sweep = parameter_sweep(evaluator, runs, metrics, relevance.nn_iou, "alpha", [0.5], with_relevance_retrieval=False,
                            relevance=relevance).set_index(["system", "metric"]).value
    assert {key: sweep[key] for key in point.index} == pytest.approx(dict(point), abs=1e-12)


def test_the_grid_says_why_retrieval_by_nn_iou_is_flat_and_why_nothing_moves_without_a_kg():
    concepts, kg = random_world(4, images=40)
    runs = runs_of(concepts, 1)
    grid = ablation_grid(Evaluator(concepts, kg), runs, ["nn-CUI@5"], alphas=(0.0, 0.5, 1.0), hops=(0, 1, 2))
    flat = {c.system: c for c in flat_curves(grid, measure_spec("nn-iou"), ["alpha", "n"], has_kg=True)}
    assert "reference" in flat[RELEVANCE_SYSTEM].reason and "run0" not in flat
    without = ablation_grid(Evaluator(concepts), runs, ["nn-CUI@5"], alphas=(0.0, 1.0), hops=(0, 1))
    reasons = {c.system: c.reason for c in flat_curves(without, measure_spec("nn-iou"), ["alpha", "n"], has_kg=False)}
    assert set(reasons) == {RELEVANCE_SYSTEM, "run0"}
    assert all(reason.startswith("No knowledge graph is loaded") for reason in reasons.values())


def test_a_curve_that_moves_is_not_flat_and_a_flat_one_of_another_cause_says_so():
    grid = pd.DataFrame({"system": ["run a"] * 2 + ["run b"] * 2, "metric": ["CUI@5{tversky}"] * 4,
                         "setting": [0, 1] * 2, "value": [0.5, 0.5, 0.2, 0.3]})
    [curve] = flat_curves(grid, parse_measure("tversky"), ["b"], has_kg=True)  # graded by the swept measure, yet flat
    assert curve.system == "run a" and curve.reason.startswith("On this data no value of b")


def test_the_progress_of_a_pass_ahead_is_relayed_while_the_caller_waits():
    seen: list[tuple[int, float, str]] = []

    def compute(item: int, report) -> int:
        report(0.5)
        time.sleep(0.35)
        return item

    def waiting(index: int, fraction: float) -> None:
        seen.append((index, fraction, threading.current_thread().name))

    assert list(one_ahead([1, 2], compute, waiting)) == [1, 2]
    assert (0, 0.5, threading.current_thread().name) in seen  # drawn from the caller's thread
    assert {index for index, _, _ in seen} == {0, 1}


def test_the_grid_bar_only_moves_forward_and_reports_every_setting_it_computes():
    concepts, kg = random_world(6, images=40)
    reports: list[tuple[float, str]] = []
    ablation_grid(Evaluator(concepts, kg), runs_of(concepts, 1), ["nn-CUI@5"], alphas=(0.0, 0.5, 1.0), hops=(0, 1, 2),
                  progress=lambda fraction, text: reports.append((fraction, text)))
    fractions = [fraction for fraction, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    # Settings that reduce to IoU (alpha = 0 or n = 0) are computed once: 2 x 2 nn-IoU settings and IoU.
    assert {text.split(",")[0] for _, text in reports if text.startswith("setting")} == {
        f"setting {i} of 5" for i in range(1, 6)}


@pytest.mark.slow
def test_ablation_page_with_tversky_draws_the_registry_axis_and_says_why_the_reference_is_flat():
    app = open_page("pages/ablation.py", measure="tversky")
    assert not app.exception, app.exception
    a = MEASURES["tversky"].parameter("a")
    assert app.title[0].value == f"Ablation of Tversky: sweeping a ({a.label})"
    charts = [json.loads(chart.proto.spec) for chart in app.get("plotly_chart")]
    assert charts
    for chart in charts:
        layout = chart["layout"]
        assert layout["xaxis"]["title"]["text"] == f"{a.label} (a, from 0 to 1)"
        assert layout["yaxis"]["range"] == [0, 1.02]  # a flat curve at 1 is not drawn mid-way up a 0..2 axis
        assert "against a (" in layout["title"]["text"]
    # The demo has runs: the page opens on their concept match under Tversky, which moves with a.
    assert charts[0]["layout"]["title"]["text"].startswith("CUI@10{tversky}")
    assert any(caption.value.startswith("Flat: Retrieval by Tversky at 1.0000.") and "by construction" in caption.value
               for caption in app.caption)
    app.selectbox(key="sweep_parameter").set_value("b").run()
    assert not app.exception, app.exception
    assert "sweeping b (" in app.title[0].value
    assert json.loads(app.get("plotly_chart")[0].proto.spec)["layout"]["xaxis"]["title"]["text"].startswith(
        MEASURES["tversky"].parameter("b").label)


@pytest.mark.slow
def test_ablation_grid_with_four_panels_puts_each_title_over_its_own_panel():
    app = open_page("pages/ablation.py")
    spec = json.loads(app.get("plotly_chart")[0].proto.spec)
    layout = spec["layout"]
    titles = [a for a in layout["annotations"] if a.get("yref") == "paper" and a.get("xanchor") == "center"
              and a.get("yanchor") == "bottom"]
    assert len(titles) == 4  # the demo's three runs and retrieval by nn-IoU
    tops = sorted({round(layout[name]["domain"][1], 6) for name in layout if name.startswith("yaxis")})
    bottoms = sorted({round(layout[name]["domain"][0], 6) for name in layout if name.startswith("yaxis")})
    assert len(tops) == 2  # two rows of two
    for title in titles:
        assert round(title["y"], 6) in tops  # on top of a panel, not between the rows' ticks
    gap_px = (bottoms[1] - tops[0]) * layout["height"]
    assert gap_px >= 80  # room for the upper row's ticks under the lower row's titles


@pytest.mark.slow
def test_a_parameter_kept_from_another_measure_gives_way_to_the_first_of_the_chosen_one():
    app = open_page("pages/ablation.py", measure="nn-tversky", sweep_parameter="n")
    assert "sweeping n (" in app.title[0].value
    app.session_state["measure"] = "tversky"  # Tversky has no n
    app.run()
    assert not app.exception, app.exception
    assert "sweeping a (" in app.title[0].value and app.selectbox(key="sweep_parameter").value == "a"


@pytest.mark.slow
def test_a_metric_beyond_1_is_drawn_on_an_axis_that_reaches_its_largest_value():
    """Was: CAG@30 of the demo's runs (up to about 4.2) was drawn on a 0..1.02 axis and a heatmap with zmax 1, every
    point above the chart (hunt 27); the README said every score lies in [0, 1]."""
    app = open_page("pages/ablation.py")
    app.multiselect(key="ablation_metrics").set_value(["nn-CAG@30", "nn-CUI@10"]).run()
    assert not app.exception, app.exception
    charts = [json.loads(chart.proto.spec) for chart in app.get("plotly_chart")]
    ranges = {chart["layout"]["yaxis"]["range"][1] for chart in charts if "yaxis" in chart["layout"]
              and "range" in chart["layout"]["yaxis"]}
    largest = parse_metric("nn-CAG@30").largest
    assert 1.02 in ranges and 1.02 * largest in ranges
    heat = [chart for chart in charts if chart["data"][0]["type"] == "heatmap"]
    assert {chart["layout"]["coloraxis"]["cmax"] for chart in heat} <= {1, largest}
    values = np.concatenate([plotted(trace["y"]) for chart in charts for trace in chart["data"]
                             if trace["type"] == "scatter"])
    assert 1.02 < values.max() <= largest


def plotted(values) -> np.ndarray:
    """A trace's values as plotly's JSON holds them: a list, or a typed array in base64 ("bdata")."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"])
    return np.asarray(values, dtype=float)
