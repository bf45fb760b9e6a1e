"""Sessions loading the same ROCOv2 files share one read-only workspace, keyed by the files' content."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.app.workspace import ReportedSteps, rocov2_digest
from tests.conftest import APP_TIMEOUT, ROCOV2, ROOT, needs, rocov2_folder_with_a_run


def small_rocov2(root: Path) -> Path:
    """A ROCOv2 layout of a few lines (the digest reads bytes, it parses nothing) with a KG beside it."""
    folder = root / "rocov2"
    (folder / "runs").mkdir(parents=True)
    (folder / "images").mkdir()
    (root / "kg").mkdir()
    (folder / "test_concepts.csv").write_text("ID,CUIs\nimg1,C1\n")
    (folder / "test_captions.csv").write_text("ID,Caption\nimg1,CT of the liver\n")
    (folder / "cui_mapping.csv").write_text("CUI,Name\nC1,Liver\n")
    (folder / "runs" / "mine.trec").write_text("img1 Q0 img1 1 1.0 mine\n")
    (root / "kg" / "open_kg_edges.csv").write_text("source,target\nC1,C2\n")
    return folder


def test_the_digest_follows_every_file_the_load_reads(tmp_path):
    folder = small_rocov2(tmp_path)
    roots = (tmp_path,)
    first = rocov2_digest(str(folder), roots)
    assert rocov2_digest(str(folder), roots) == first
    seen = {first}
    for changed in (folder / "test_concepts.csv", folder / "test_captions.csv", folder / "cui_mapping.csv",
                    folder / "runs" / "mine.trec", tmp_path / "kg" / "open_kg_edges.csv"):
        changed.write_text(changed.read_text() + "img2,C2\n")
        seen.add(rocov2_digest(str(folder), roots))
    (folder / "runs" / "other.run").write_text("img1 Q0 img1 1 1.0 other\n")
    seen.add(rocov2_digest(str(folder), roots))
    (folder / "images" / "img1.png").write_bytes(b"")
    seen.add(rocov2_digest(str(folder), roots))
    (folder / "runs" / "notes.md").write_text("not a run file: the load skips it")
    seen.add(rocov2_digest(str(folder), roots))
    assert len(seen) == 8  # each change but the last gave a new digest


def test_reported_steps_move_one_bar_over_all_steps():
    reports = []
    steps = ReportedSteps(lambda fraction, text: reports.append((fraction, text)))
    steps.steps = 4
    assert steps.run("a", lambda report: report(2.0) or "done") == "done"  # a report beyond 1 counts as 1
    steps.run("b", lambda report: None)
    assert reports == [(0.0, "a (step 1 of 4)"), (0.25, "a (step 1 of 4)"), (0.25, "b (step 2 of 4)")]


def load_in_new_session(folder: Path) -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT)
    app.run()
    app.text_input(key="rocov2_folder").set_value(str(folder))
    app.button(key="load_rocov2").click().run()
    assert not app.exception, app.exception
    return app


@pytest.mark.slow
@needs(ROCOV2)
def test_sessions_loading_the_same_files_share_one_workspace_and_a_changed_file_gives_another(tmp_path, monkeypatch):
    run = rocov2_folder_with_a_run(tmp_path, monkeypatch)
    first = load_in_new_session(tmp_path).session_state["workspace"]
    second = load_in_new_session(tmp_path).session_state["workspace"]
    assert second is first
    run.write_text("ROCOv2_2023_test_000001 Q0 ROCOv2_2023_test_000003 1 1.0 mine\n")
    third = load_in_new_session(tmp_path).session_state["workspace"]
    assert third is not first and third.digest != first.digest
    assert third.runs["mine"][1].rankings["ROCOv2_2023_test_000001"] == ("ROCOv2_2023_test_000003",)
    assert first.runs["mine"][1].rankings["ROCOv2_2023_test_000001"] == ("ROCOv2_2023_test_000002",)  # left as it was
