"""The Leaderboard's report for a paper (dashboard.computed.leaderboard_report): built on the first click, then kept for
the server under everything it reads, the names it gives the files included."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dashboard import computed
from dashboard.sidebar import Settings
from evalcore.app.workspace import load_demo
from evalcore.relevance.measures import measure_spec


@pytest.mark.slow
def test_the_report_is_built_once_for_the_same_data_and_choices_and_again_for_other_file_names(monkeypatch):
    built = []
    build = computed.report_html
    monkeypatch.setattr(computed, "report_html", lambda report: built.append(report) or build(report))
    ws = load_demo()
    # A setting no other test asks for: the server's store is the process's, shared with them.
    nn_iou = measure_spec("nn-iou", alpha=0.3, n=2)
    settings = Settings(relevance=nn_iou, measure=nn_iou, kg_mode="undirected", ks=(5, 10), gain="linear")
    arguments = (tuple(ws.runs), (), settings, "nn-CUI@5")

    first = computed.leaderboard_report(ws, *arguments)
    assert computed.leaderboard_report(ws, *arguments) is first and len(built) == 1  # the second click reads it back
    assert "cbir-lens report --concepts demo/concepts.csv" in first

    # The same bytes under another name: the same digests, but the report names the file.
    renamed = ws.with_inputs(concepts=replace(ws.concepts, source="mine.csv"), digests={"concepts": ws.digests["concepts"]})
    assert renamed.digest == ws.digest
    other = computed.leaderboard_report(renamed, *arguments)
    assert len(built) == 2 and "--concepts mine.csv" in other and "demo/concepts.csv" not in other

    computed.leaderboard_report(ws, *arguments[:-1], "nn-CUI@10")  # another metric in focus: another report
    assert len(built) == 3
