"""The Leaderboard's "Comparison to share" for a clinician (issue 67): the comparison in plain words (which system
finds more similar images, by how much, how sure), three example cases each with its why line, no research jargon,
nothing loaded from anywhere; the researcher's report for a paper is offered as before."""

from __future__ import annotations

import re

from dashboard import computed
from tests.dashboard.test_app_audience import app_runs_its_navigation, clinician_app, forbidden_in  # noqa: F401
from tests.dashboard.test_trust_dashboard import downloads, switch  # noqa: F401  (the fixture)

CASE = re.compile(r'<section class="case">(.*?)</section>', re.DOTALL)


def test_the_clinicians_report_is_the_comparison_in_plain_words_with_three_cases(downloads):  # noqa: F811
    app = clinician_app()
    switch(app, "pages/leaderboard.py")
    assert app.get("download_button")[-1].proto.label == "Comparison to share (web page)"
    assert "cbir_lens_report.html" not in downloads  # the report for a paper is the researcher's
    text = downloads["cbir_lens_comparison.html"]().decode()

    assert not forbidden_in(text), forbidden_in(text)
    # The answer: which system, by how much, how sure (the demo's overlap-noisy is far ahead of the others).
    assert re.search(r"<strong>overlap-noisy</strong> finds more similar images than <strong>[\w-]+</strong>: it "
                     r"scores \d\.\d{4} against \d\.\d{4} .*, \d\.\d{4} higher\. This difference is <strong>likely "
                     r"real</strong>\.", text)
    assert text.count("likely real") + text.count("could be chance") >= 3  # the headline and each other system
    cases = CASE.findall(text)
    assert len(cases) == 3
    for case in cases:
        whys = re.findall(r'<p class="why">Why: ([^<]+)</p>', case)
        assert len(whys) == 2 and all(why.strip(". ") for why in whys), case  # the best two systems' first images
        assert "Its concepts: " in case
    # Offline: nothing to load, nowhere to go.
    assert "http://" not in text and "https://" not in text
    assert not re.search(r"\b(?:src|href|action|srcset)\s*=", text, re.IGNORECASE)
    assert "<script" not in text.lower() and "default-src 'none'" in text


def test_the_researchers_report_for_a_paper_is_offered_as_before(downloads, monkeypatch):  # noqa: F811
    asked = []
    monkeypatch.setattr(computed, "leaderboard_report", lambda *arguments: asked.append(arguments) or "report")
    monkeypatch.setattr(computed, "clinician_report", lambda *_: "not the researcher's")
    app = clinician_app()
    app.sidebar.radio(key="audience").set_value("Researcher").run()
    switch(app, "pages/leaderboard.py")
    button = app.get("download_button")[-1].proto
    assert (button.label, button.help.split(":")[0]) == ("Report for the paper (HTML)",
                                                         "One self-contained HTML file (no network needed)")
    assert "cbir_lens_comparison.html" not in downloads
    assert downloads["cbir_lens_report.html"]() == b"report"
    ws, run_names, baselines, settings, focus = asked[0]
    assert ws is app.session_state["workspace"] and run_names == tuple(ws.runs) and baselines == ()
    assert focus == app.session_state["focus_metric"]
