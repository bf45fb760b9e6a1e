"""Counts are written the same way everywhere (issue 67: "9927" stood beside "9,927"): with thousands separators in
the validation report, as in the summary beside it, and in the tables of counts."""

from __future__ import annotations

import json
import re

from evalcore.app.workspace import Workspace
from tests.conftest import frame_with, open_page


def test_the_validation_report_writes_counts_with_thousands_separators():
    assert Workspace().with_report("f.csv", "captions", 9927).reports[-1].rows_read == "9,927"
    assert Workspace().with_report("f.csv", "runs", "12 queries").reports[-1].rows_read == "12 queries"
    report = frame_with(open_page(), "problems")
    rows = dict(zip(report["file"], report["rows read"]))
    assert rows["data/demo/*"] == "2,000"
    assert not [cell for cell in report["rows read"] if re.search(r"\d{4}", cell)], report


def test_the_concept_maps_table_of_images_writes_its_counts_as_numbers():
    app = open_page("pages/knowledge_graph.py")
    frames = [frame for frame in app.dataframe if "hops" in frame.value.columns]
    assert frames
    config = json.loads(frames[0].proto.columns)
    assert config["images"]["type_config"]["format"] == "localized", config["images"]
