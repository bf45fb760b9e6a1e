"""The Leaderboard's effect sizes, repeated-measures ANOVA with Tukey's HSD and 11-point precision-recall curves
(issue 67) on the demo: drawn for a researcher beside the significance tests of the metric in focus, none of their
words shown to a clinician."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

from tests.conftest import frame_with, open_page
from tests.dashboard.test_app_audience import clinician_app, jargon_on

pytestmark = pytest.mark.slow  # the Leaderboard on the demo: seconds

SYSTEMS = ["near-random", "overlap-noisy", "visual-confused"]


def chart(app, key: str) -> dict | None:
    """The figure of the plotly chart drawn with ``key``, None where none is."""
    for element in app.get("plotly_chart"):
        if element.proto.id.endswith(key) or key in element.proto.id:
            return json.loads(element.proto.spec)
    return None


def numbers(values: list | dict) -> list[float]:
    """A trace's numbers, as a list or as plotly's typed array (``{"bdata": base64, "dtype": ...}``)."""
    if isinstance(values, dict):
        return np.frombuffer(base64.b64decode(values["bdata"]), dtype=values["dtype"]).tolist()
    return list(values)


def more_statistics():
    """The researcher's Leaderboard with its further statistics asked for (they are not drawn unasked)."""
    app = open_page("pages/leaderboard.py")
    assert chart(app, "precision_recall") is None and not any("d_z" in f.value.columns for f in app.dataframe)
    app.toggle(key="leaderboard_more").set_value(True).run()
    assert not app.exception, app.exception
    return app


def test_the_researcher_sees_the_precision_recall_curves_and_the_effect_sizes_of_the_metric_in_focus():
    app = more_statistics()
    focus = app.selectbox(key="focus_metric").value
    figure = chart(app, "precision_recall")
    assert figure is not None, "no precision-recall chart drawn"
    assert [trace["name"] for trace in figure["data"]] == SYSTEMS
    for trace in figure["data"]:
        assert numbers(trace["x"]) == [level / 10 for level in range(11)]
        precision = numbers(trace["y"])
        assert all(0 <= value <= 1 for value in precision)
        assert precision == sorted(precision, reverse=True)  # interpolated precision never rises with recall
    sizes = frame_with(app, "d_z")
    assert len(sizes) == 3 and list(sizes["system A"]) == [SYSTEMS[0], SYSTEMS[0], SYSTEMS[1]]
    assert (sizes["A - B low"] <= sizes["A - B"]).all() and (sizes["A - B"] <= sizes["A - B high"]).all()
    comparisons = frame_with(app, "p rand. Holm")
    assert sizes["A - B"].round(10).tolist() == comparisons["A - B"].round(10).tolist()  # the same pairs, same means
    tukey = frame_with(app, "p Tukey")
    assert len(tukey) == 3 and (tukey["low"] <= tukey["high"]).all()
    anova = [m.value for m in app.markdown if "repeated-measures ANOVA" in m.value]
    assert len(anova) == 1 and f"on {focus}" in anova[0] and "F(2, " in anova[0]


def test_the_precision_recall_curves_follow_the_relevance_of_the_metric_in_focus():
    app = more_statistics()
    texts = [m.value for m in app.markdown if "Precision-recall" in m.value]
    assert texts and "nn-iprec_at_recall_0.00" in texts[0]
    app.selectbox(key="focus_metric").set_value("CUI@10").run()
    assert not app.exception, app.exception
    texts = [m.value for m in app.markdown if "Precision-recall" in m.value]
    assert texts and "iprec_at_recall_0.00" in texts[0] and "nn-iprec" not in texts[0]


def test_the_clinician_sees_no_effect_sizes_no_curves_and_no_jargon():
    app = clinician_app()
    app.switch_page("pages/leaderboard.py").run()
    assert not app.exception, app.exception
    assert chart(app, "precision_recall") is None
    assert not any("d_z" in frame.value.columns or "p Tukey" in frame.value.columns for frame in app.dataframe)
    assert not jargon_on(app), jargon_on(app)
