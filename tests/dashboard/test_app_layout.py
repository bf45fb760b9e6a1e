"""Issue #23, items 4, 6 and 7 on the demo: a change of measure keeps the reader's place on the Leaderboard, the
Ablation opens on a system whose grid varies, numbers and names read the same on every page, and the Data report
follows the uploaded runs."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.app.workspace import NO_RUNS_KIND, Workspace, load_demo, with_concepts
from evalcore.studies.ablation import RELEVANCE_SYSTEM
from tests.conftest import APP_TIMEOUT, DEMO, ROCOV2, ROOT, frame_with, needs, open_page, press_if_shown

TIMEOUT = APP_TIMEOUT


def texts(app: AppTest) -> list[str]:
    return [m.value for m in app.markdown] + [c.value for c in app.caption]


@pytest.mark.slow
def test_a_change_of_measure_keeps_the_chart_metric_the_nn_cui_table_and_shows_the_measure_first():
    app = open_page("pages/leaderboard.py")
    app.selectbox(key="focus_metric").set_value("nn-CUI@10").run()
    app.session_state["measure"] = "dice"
    app.run()
    assert not app.exception, app.exception
    assert app.selectbox(key="focus_metric").value == "nn-CUI@10"
    assert frame_with(app, "nn-CUI@10") is not None
    dice = frame_with(app, "CUI@10{dice}")
    assert dice is not None and "CUI@10" not in dice.columns  # Dice has a table of its own ...
    first_table = app.dataframe[0].value
    assert "CUI@10{dice}" in first_table.columns  # ... shown first
    titles = [m.value for m in app.markdown if m.value.startswith("**CUI")]
    assert titles[0].startswith("**CUI\\{dice\\}**") or titles[0].startswith("**CUI{dice}**"), titles
    assert "by Dice" in titles[0] and "by IoU" not in titles[0], titles[0]
    assert "nn-IoU at alpha = 0.5, n = 1" in app.toggle(key="qrels_toggle").label
    assert "not Dice" in app.toggle(key="qrels_toggle").label
    # A metric of the measure moves to the same metric of the next measure.
    app.selectbox(key="focus_metric").set_value("CUI@10{dice}").run()
    app.session_state["measure"] = "nn-iou"
    app.run()
    assert app.selectbox(key="focus_metric").value == "nn-CUI@10"


@pytest.mark.slow
def test_the_latex_metric_list_survives_a_change_of_measure():
    app = open_page("pages/leaderboard.py")
    app.multiselect(key="latex_metrics").set_value(["nn-CUI@10", "CUI@5"]).run()
    app.session_state["measure"] = "dice"
    app.run()
    assert not app.exception, app.exception
    assert app.multiselect(key="latex_metrics").value == ["nn-CUI@10", "CUI@5"]


@pytest.mark.slow
def test_label_precision_says_over_how_many_queries_and_map_its_threshold():
    app = open_page("pages/leaderboard.py")
    app.segmented_control(key="leaderboard_group").set_value("label precision").run()
    assert any(c.value.startswith("Precision on organ: 2,000 of 2,000 queries have an organ label")
               for c in app.caption), [c.value for c in app.caption]
    app.segmented_control(key="leaderboard_group").set_value("other").run()
    app.selectbox(key="leaderboard_family").set_value("MAP").run()
    assert any("at least 0\\.5" in t for t in texts(app))  # Markdown-escaped
    assert any("relevant from relevance 0.5" in c.value for c in app.caption)


@pytest.mark.slow
def test_ablation_opens_on_a_system_whose_grid_varies():
    app = open_page("pages/ablation.py")
    heat = app.selectbox(key="heat_system_nn-CUI@10")
    assert heat.value != RELEVANCE_SYSTEM, heat.options
    assert heat.options[-1] == RELEVANCE_SYSTEM  # 1 at every setting under nn-CUI: last


@pytest.mark.slow
def test_ablation_with_a_measure_without_parameters_says_so_instead_of_failing():
    app = open_page("pages/ablation.py")
    app.session_state["measure"] = "dice"
    app.run()
    assert not app.exception, app.exception
    assert any("Dice has no parameter to sweep" in box.value for box in app.info)


@pytest.mark.slow
def test_the_data_report_follows_the_uploaded_runs():
    # A folder loaded without runs/ (as ROCOv2 is) reports "no run files"; a run uploaded afterwards takes that away.
    demo = load_demo()
    folder = with_concepts(Workspace(label="a folder"), (DEMO / "concepts.csv").read_bytes(), "folder/test_concepts.csv")
    folder = folder.with_inputs(labels=demo.labels).with_report(
        "folder/runs", NO_RUNS_KIND, 0, "no run files: the leaderboard computes the Table-1 baselines")
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    app.session_state["workspace"] = folder
    app.run()
    assert not app.exception, app.exception
    assert "no run files" in " ".join(frame_with(app, "problems")["problems"])
    app.file_uploader(key="up_runs").set_value(
        [("near-random.trec", (DEMO / "runs" / "near-random.trec").read_bytes(), "application/octet-stream")])
    app.run()
    assert not app.exception, app.exception
    report = frame_with(app, "problems")
    assert "no run files" not in " ".join(report["problems"])
    assert "run 'near-random'" in report["kind"].tolist()


@pytest.mark.slow
def test_method_page_names_the_tf_idf_ranking_and_shows_scores_and_readable_columns():
    app = open_page("pages/method.py")
    table = frame_with(app, "P@5")
    assert "captions (TF-IDF)" in set(table.system) and "caption embeddings" not in set(table.system)
    # The same precision as on the Leaderboard: a score from 0 to 1, not a percentage.
    assert ((table["P@5"] >= 0) & (table["P@5"] <= 1)).all()
    for button in ("method_ablation_run", "method_ties_run"):
        press_if_shown(app, button)
    assert list(frame_with(app, "n = 0").columns) == ["n = 0", "n = 1", "n = 2"]
    ties = next(f for f in app.dataframe if "queries_with_tie" in f.value.columns)
    labels = json.loads(ties.proto.columns)
    assert labels["queries_with_tie"]["label"] == "queries tied at K" and labels["random_sd"]["help"]
    assert all("_" not in labels[column]["label"] for column in ties.value.columns), labels


@pytest.mark.slow
def test_the_chart_metric_survives_a_visit_to_another_page():
    app = open_page("pages/leaderboard.py")
    app.selectbox(key="focus_metric").set_value("P@10[organ]").run()
    app.switch_page("pages/method.py")
    app.run()
    app.switch_page("pages/leaderboard.py")
    app.run()
    assert not app.exception, app.exception
    assert app.selectbox(key="focus_metric").value == "P@10[organ]"


@pytest.mark.slow
@needs(ROCOV2)
def test_the_rocov2_report_follows_a_run_uploaded_after_the_folder():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    app.run()
    app.text_input(key="rocov2_folder").set_value(str(ROCOV2))
    app.button(key="load_rocov2").click().run()
    assert not app.exception, app.exception
    assert "no run files" in " ".join(frame_with(app, "problems")["problems"])
    run = b"ROCOv2_2023_test_000001 Q0 ROCOv2_2023_test_000002 1 1.0 mine\n"
    app.file_uploader(key="up_runs").set_value([("mine.trec", run, "application/octet-stream")])
    app.run()
    assert not app.exception, app.exception
    report = frame_with(app, "problems")
    assert "no run files" not in " ".join(report["problems"]) and "run 'mine'" in report["kind"].tolist()
