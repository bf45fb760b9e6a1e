"""The Leaderboard's "By group" view (issue 67) on the demo, in both audiences: a grouping chosen, a forest plot of
each system per group, the groups where two systems differ beyond chance; a researcher's own query attributes."""

from __future__ import annotations

import json

import pytest

from tests.conftest import frame_with, open_page
from tests.dashboard.test_app_audience import app_runs_its_navigation, clinician_app, jargon_on  # noqa: F401

pytestmark = pytest.mark.slow  # the Leaderboard on the demo: seconds


def opened(app):
    app.toggle(key="by_group").set_value(True).run()
    assert not app.exception, app.exception
    return app


def choose(app, grouping: str) -> None:
    app.selectbox(key="group_by").set_value(grouping).run()
    assert not app.exception, app.exception


def forest(app) -> dict:
    """The forest plot's figure: the chart whose traces are the systems over the groups."""
    for chart in app.get("plotly_chart"):
        if chart.proto.id.endswith("group_forest") or "group_forest" in chart.proto.id:
            return json.loads(chart.proto.spec)
    raise AssertionError("no forest plot drawn")


def test_the_researcher_sees_each_system_per_modality_and_where_two_differ():
    app = opened(open_page("pages/leaderboard.py"))
    assert app.selectbox(key="group_by").options == ["modality", "organ", "number of concepts (quantile bins)"]
    figure = forest(app)
    assert [trace["name"] for trace in figure["data"]] == ["near-random", "overlap-noisy", "visual-confused"]
    assert figure["data"][0]["y"] == ["Angiography", "CT", "MRI", "PET", "Ultrasound", "X-ray"]
    assert all("error_x" in trace for trace in figure["data"])
    # near-random against overlap-noisy: far apart in every kind of image
    table = frame_with(app, "p rand. (Holm across groups)")
    assert list(table.group) == ["Angiography", "CT", "MRI", "PET", "Ultrasound", "X-ray"]
    assert (table["A - B"] < 0).all() and (table["queries"] > 0).all()
    choose(app, "concepts")
    assert not app.exception, app.exception
    assert forest(app)["data"][0]["y"] == ["3", "4+"]


def test_the_researchers_own_query_attributes_group_the_queries():
    app = opened(open_page("pages/leaderboard.py"))
    rows = "".join(f"DEMO_{i:05d},{'north' if i % 2 else 'south'}\n" for i in range(1, 1001))
    app.file_uploader(key="up_group_attributes").set_value(("sites.csv", f"query_id,site\n{rows}".encode(), "text/csv"))
    app.run()
    assert not app.exception, app.exception
    assert "site (from sites.csv)" in app.selectbox(key="group_by").options
    choose(app, "sites.csv:site")
    assert forest(app)["data"][0]["y"] == ["north", "south", "(none)"]  # DEMO_01001.. are listed by no row
    app.file_uploader(key="up_group_attributes").set_value(
        ("bad.csv", b"query_id,site\nDEMO_00001,north\nDEMO_00002\n", "text/csv"))
    app.run()
    assert [error.value for error in app.error] == [
        "bad.csv, line 3: expected 2 fields (query_id,site), an empty one for no value, found 1 field"]
    assert app.selectbox(key="group_by").options == ["modality", "organ", "number of concepts (quantile bins)"]


def test_the_clinician_reads_the_groups_in_plain_words():
    app = clinician_app()
    app.switch_page("pages/leaderboard.py").run()
    # chosen before the view is first drawn: AppTest formats a drawn choice outside the script run, where the
    # audience cannot be read
    app.session_state["group_by"] = "organ"
    opened(app)
    assert app.selectbox(key="group_by").options == ["by kind of image", "by body part",
                                                     "by number of findings in the image"]
    assert forest(app)["data"][0]["y"][:2] == ["abdomen", "breast"]
    table = frame_with(app, "is it real?")
    assert set(table["is it real?"]) == {"likely real"} and "cases" in table.columns
    assert not jargon_on(app), jargon_on(app)
