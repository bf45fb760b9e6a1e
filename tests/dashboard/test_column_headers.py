"""Tables whose columns all show at 1400 px (issue 67): the Leaderboard's system column fits its longest name within
a bound that leaves three K values' interval columns in the page, and Choose a measure's columns carry short headers
with their whole names in a tooltip."""

from __future__ import annotations

import json

import pytest

from evalcore.app.baselines import available_baselines
from tests.conftest import open_page, press_if_shown
from tests.dashboard.test_app_audience import app_runs_its_navigation, clinician_app  # noqa: F401  (the fixture)

#: The page's width for a table at 1400 px (the main block, sidebar open), in pixels.
PAGE_WIDTH = 940
#: Streamlit's "small" column, in pixels.
SMALL = 75
#: The widest a numeric column of the researcher's table grows to fit its header ("nn-CUI@30", "CI high").
RESEARCHER_NUMBER = 72


@pytest.mark.parametrize("audience", ["Researcher", "Clinician"])
def test_every_leaderboard_table_with_every_baseline_fits_the_page(audience):
    app = clinician_app()
    app.sidebar.radio(key="audience").set_value(audience).run()
    ws = app.session_state["workspace"]
    # Chosen before the page is drawn (AppTest formats a choice outside the run, where no audience is known).
    app.session_state["baselines__dataset"] = ws.digests["concepts"]
    app.session_state["baselines"] = available_baselines(ws)
    app.switch_page("pages/leaderboard.py").run()
    assert not app.exception, app.exception
    tables = [frame for frame in app.dataframe
              if frame.proto.columns and "width" in json.loads(frame.proto.columns).get("_index", {})]
    assert tables
    for table in tables:
        config = json.loads(table.proto.columns)
        system = config["_index"]["width"]
        names = list(table.value.index)
        assert len(names) == 7  # the three runs and the four baselines
        assert isinstance(system, int) and system >= min(320, 24 + 7 * max(map(len, names))), (system, names)
        widths = [c.get("width") for name, c in config.items() if name != "_index"]
        means = [w for w in widths if w != 64]
        assert widths.count(64) == 2 * len(means) == 6  # low and high beside each of the three K values
        mean_width = SMALL if audience == "Clinician" else RESEARCHER_NUMBER
        assert all(w in (None, "small") for w in means) and system + 64 * 6 + mean_width * 3 <= PAGE_WIDTH


@pytest.mark.slow
def test_choose_a_measure_shows_short_headers_with_their_whole_names_in_tooltips():
    app = open_page("pages/measures.py")
    press_if_shown(app, "measures_run")
    for expander in app.expander:
        expander.proto.expanded = True
    frames = [frame for frame in app.dataframe if "measure" in frame.value.columns and frame.proto.columns]
    assert len(frames) >= 1
    for frame in frames:
        config = json.loads(frame.proto.columns)
        for column in frame.value.columns:
            shown = config.get(column, {})
            label = shown.get("label", column)
            assert len(label) <= 16, (column, label)
            if label != column:
                assert shown.get("help"), column
    deciding = json.loads(frames[0].proto.columns)
    assert deciding["pairs apart at p < 0.05, 100 queries"]["label"] == "apart (samples)"
    assert deciding["pairs apart at p < 0.05, 100 queries"]["help"].startswith("Pairs apart at p < 0.05, 100 random")
