"""The dashboard with other relevance measures: the sidebar's measure on the leaderboard, the ablation sweep, the
'Choose a measure' page; and the report script on a small folder in the ROCOv2 layout."""

from __future__ import annotations

import importlib.util

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.app.baselines import CAPTIONS, IOU, NN_IOU
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.relevance.measures import parse_measure
from tests.conftest import APP_TIMEOUT, DEMO, ROOT, frame_with, open_page, press_if_shown

TIMEOUT = APP_TIMEOUT


def first_run(**state) -> AppTest:
    """The app's first run with preset state (AppTest shows the sidebar only on a script's first run)."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    for name, value in state.items():
        app.session_state[name] = value
    app.run()
    assert not app.exception, app.exception
    return app


@pytest.mark.slow
def test_sidebar_measure_and_its_parameters_reach_the_leaderboard():
    assert AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT).run().sidebar.selectbox(
        key="measure").value == "nn-iou"
    app = first_run(measure="tversky", measure_tversky_a=0.9)
    assert app.sidebar.slider(key="measure_tversky_b").value == 0.3
    assert any("tversky(a=0.9,b=0.3)" in c.value for c in app.sidebar.caption)
    app.switch_page("pages/leaderboard.py")
    app.run()
    assert not app.exception, app.exception
    table = frame_with(app, "CUI@10{tversky}")  # the relevance-graded group is shown first
    assert sorted(table.index) == ["near-random", "overlap-noisy", "visual-confused"]
    workspace = app.session_state["workspace"]
    evaluator = Evaluator(workspace.concepts, kg=None, labels=None)
    run = workspace.runs["overlap-noisy"][1]
    expected = evaluator.evaluate([run], ["CUI@10{tversky}"], Relevance.of(measure=parse_measure("tversky(a=0.9,b=0.3)"))).means()
    assert table.loc["overlap-noisy", "CUI@10{tversky}"] == pytest.approx(expected["overlap-noisy"]["CUI@10{tversky}"])


@pytest.mark.slow
def test_hop_weights_follow_n_and_never_increase():
    app = first_run(measure="nn-iou-hops", n=3, measure_w3=0.4)
    assert [s.key for s in app.sidebar.slider if s.key.startswith("measure_w")] == ["measure_w1", "measure_w2",
                                                                                    "measure_w3"]
    assert any("nn-iou-hops(w1=0.5,w2=0.25,w3=0.25)" in c.value for c in app.sidebar.caption)


@pytest.mark.slow
def test_ablation_page_sweeps_a_parameter_of_the_chosen_measure():
    app = open_page("pages/ablation.py", measure="nn-tversky")
    # Each parameter shown with its words from the registry.
    assert [option.split(" (")[0] for option in app.selectbox(key="sweep_parameter").options] == ["a", "b", "alpha",
                                                                                                 "n"]
    app.selectbox(key="sweep_parameter").set_value("n").run()
    assert not app.exception, app.exception
    sweep = frame_with(app, 3)  # the pivot's columns are the swept values n = 0..3
    assert list(sweep.columns) == [0, 1, 2, 3]
    assert len(app.get("plotly_chart")) == 2


def markdown_frame(text: str) -> pd.DataFrame:
    """A markdown table (evalcore.io.tables.markdown_table) read back: its first column the index, numbers as floats."""
    rows = [[cell.strip() for cell in line.strip("|").split(" | ")] for line in text.splitlines()]
    frame = pd.DataFrame(rows[2:], columns=rows[0]).set_index(rows[0][0])
    return frame.apply(pd.to_numeric)


def elements_in_order(block) -> list:
    """Every element of a page's block, depth first, in the order the page draws them."""
    found = []
    for child in getattr(block, "children", {}).values():
        found += elements_in_order(child) if hasattr(child, "children") else [child]
    return found


@pytest.mark.slow
def test_choose_a_measure_page_compares_every_measure_on_the_demo():
    app = open_page("pages/measures.py")
    registry = next(m.value for m in app.markdown if "| formula |" in m.value)
    assert registry.count("\n| `") == 7  # a row per registry measure
    press_if_shown(app, "measures_run")  # the default comparison may be kept already (prepared in the background)
    assert not app.exception, app.exception
    summary = frame_with(app, "discriminative power")
    assert summary.measure.tolist()[0] == "iou" and len(summary) == 7
    assert summary["discriminative power"].between(0, 1).all()
    assert any("Beats IoU on every Table-1 cell" in m.value for m in app.markdown)
    table1 = frame_with(app, "P@30")
    assert table1.shape[0] == 7 * 3
    # Scores 0-1 as everywhere else (the comparison keeps Table 1 in %; the page divides through score_table).
    assert ((table1[["P@5", "P@10", "P@30"]] >= 0) & (table1[["P@5", "P@10", "P@30"]] <= 1)).all().all()
    assert (table1["P@5"] < 1).any()  # not every cell perfect: a division, not a clip
    # Judged on the loaded runs, the default baselines (none ranks by a compared measure) and five degraded copies.
    judged = next(m.value for m in app.markdown if m.value.startswith("**Judged on**"))
    assert "copies of" in judged and "p = 0.05, 0.1, 0.15, 0.2, 0.25" in judged and " s (after" in judged
    # Which pairs each measure tells apart: a row per pair judged, a column per measure, shares of the samples.
    pairs = markdown_frame(next(m.value for m in app.markdown if m.value.startswith("| pair |")))
    assert list(pairs.columns) == [parse_measure(m).key for m in summary.measure]
    assert len(pairs) >= summary["pairs judged"].max() and pairs.stack().between(0, 1).all()
    # The evidence that decides comes first: the verdict, then the deciding columns leftmost, then the ASL curves;
    # Table 1 and the full table after them.
    drawn = elements_in_order(app.main)

    def kind(element) -> str:
        if type(element).__name__ != "Dataframe":
            return getattr(element, "key", None) or type(element).__name__
        columns = list(element.value.columns)
        return "table1" if "P@30" in columns else "summary" if "significant pairs" in columns else \
            "deciding" if "swap rate" in columns else "other frame"

    kinds = [kind(e) for e in drawn]
    verdict = kinds.index("Info")
    assert drawn[verdict].value.startswith(("The evidence favours", "No measure leads every other: ", "A tie: ",
                                            "No measure tells"))
    deciding = kinds.index("deciding")
    assert verdict < deciding < kinds.index("measures_asl") < kinds.index("table1") < kinds.index("summary")
    columns = list(drawn[deciding].value.columns)
    assert columns[:5] == ["measure", "pairs apart at p < 0.05, 100 queries", "swap rate", "ties@5",
                           "Kendall tau vs IoU"]
    assert drawn[deciding].value["swap rate"].between(0, 1).all()
    assert len(app.get("plotly_chart")) == 2  # the ASL curves, the systems' means under each measure
    asl = app.get("plotly_chart")[0].proto.spec
    assert "ASL curves" in asl and "100 queries" in asl and "30 queries" in asl and "all queries" in asl


@pytest.mark.slow
def test_a_baseline_ranking_by_a_compared_measure_is_left_out_as_circular():
    # Retrieval by IoU is the ideal ranking under IoU and Dice: judged there it would win by construction.
    app = open_page("pages/measures.py", measures_compared=["iou", "dice"], measures_baselines=[IOU, CAPTIONS])
    assert [b.key for b in app.multiselect(key="measures_baselines").value] == ["iou", "captions"]
    app.button(key="measures_run").click().run()
    assert not app.exception, app.exception
    left_out = frame_with(app, "left out")
    assert left_out.system.tolist() == ["Retrieval by IoU"] and "iou, dice" in left_out["left out"].iloc[0]
    assert any("left out of every measure's evidence" in w.value for w in app.warning)
    assert "left out as circular (the ideal ranking under a compared measure): Retrieval by IoU" in app.info[0].value
    means = frame_with(app, "mean")
    assert "Retrieval by IoU" not in set(means.system)  # judged under no measure
    # The default offers no baseline that ranks by concept relevance.
    assert [b.key for b in open_page("pages/measures.py").multiselect(key="measures_baselines").value] == [
        "embeddings", "captions"]


@pytest.mark.slow
def test_the_measure_comparison_is_shared_by_every_session_with_the_same_data():
    first = open_page("pages/measures.py", measures_compared=["iou", "dice"])
    first.button(key="measures_run").click().run()
    assert not first.exception, first.exception
    verdict = first.info[0].value
    # A second session on the same data and options reads the kept comparison: no button, the same verdict.
    second = open_page("pages/measures.py", measures_compared=["iou", "dice"])
    assert not [b for b in second.button if b.key == "measures_run"]
    assert second.info[0].value == verdict
    # Other options are another comparison.
    third = open_page("pages/measures.py", measures_compared=["iou", "tversky(a=0.7,b=0.3)"])
    assert [b for b in third.button if b.key == "measures_run"]


@pytest.mark.slow
def test_the_measure_comparison_is_kept_across_alpha_unless_retrieval_by_nn_iou_is_judged():
    # No chosen baseline reads alpha (embeddings, captions): the comparison at 0.5 is the one at 0.7.
    first = open_page("pages/measures.py", measures_compared=["iou", "dice"], alpha=0.5)
    press_if_shown(first, "measures_run")
    moved = open_page("pages/measures.py", measures_compared=["iou", "dice"], alpha=0.7)
    assert not [b for b in moved.button if b.key == "measures_run"]
    assert moved.info[0].value == first.info[0].value
    # Retrieval by nn-IoU ranks by the slider's setting: another alpha is another comparison.
    judged = open_page("pages/measures.py", measures_compared=["iou", "dice"], measures_baselines=[NN_IOU], alpha=0.5)
    press_if_shown(judged, "measures_run")
    assert [b for b in open_page("pages/measures.py", measures_compared=["iou", "dice"], measures_baselines=[NN_IOU],
                                 alpha=0.7).button if b.key == "measures_run"]


@pytest.mark.slow
def test_report_script_writes_the_verdict_and_tables(tmp_path):
    folder = tmp_path / "rocov2"
    folder.mkdir()
    for name in ("concepts", "captions"):
        lines = (DEMO / f"{name}.csv").read_text().splitlines()
        (folder / f"test_{name}.csv").write_text("\n".join(lines[:301]) + "\n")
    spec = importlib.util.spec_from_file_location("compare_measures", ROOT / "scripts" / "compare_measures.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "MEASURES.md"
    result = script.run(["--rocov2", str(folder), "--kg", str(DEMO / "kg_edges.csv"), "--labels",
                         str(DEMO / "labels.csv"), "--out", str(out), "--samples", "200"])
    text = out.read_text()
    assert "## Verdict" in text and "## Table 1" in text and "discriminative power" in text
    assert "swap rate" in text and "ASL curves" in text and "system pairs apart" in text
    assert len(result["table"]) == 10
    winners = result["winners"]
    assert ("**none**" in text) == (not winners)


@pytest.mark.slow
def test_moving_a_parameter_of_the_chosen_measure_recomputes_the_leaderboards_comparisons():
    """Every cache hashes what it reads: with Tversky chosen, its ``a`` changes the per-query values, so the
    paired tests between systems (cached on those values) are computed again, and moving it back reads them back."""
    app = first_run(measure="tversky", measure_tversky_a=0.9)
    app.switch_page("pages/leaderboard.py")
    app.run()
    app.selectbox(key="focus_metric").set_value("CUI@10{tversky}").run()
    assert not app.exception, app.exception
    before = frame_with(app, "p rand.").set_index(["system A", "system B"])
    app.session_state["measure_tversky_a"] = 0.1
    app.run()
    assert not app.exception, app.exception
    after = frame_with(app, "p rand.").set_index(["system A", "system B"])
    assert list(after.index) == list(before.index)
    # The differences come out of the same cached tests as the p-values (all "< 0.001" on the demo's 2,000 queries).
    assert (after["A - B"] != before["A - B"]).all()
    app.session_state["measure_tversky_a"] = 0.9  # back: the first values again, read from the cache
    app.run()
    assert frame_with(app, "p rand.").set_index(["system A", "system B"]).equals(before)
