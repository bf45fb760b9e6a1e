"""The ROCOv2 folder box's refusals name the path as the user typed it and no other (issue 67): never the server's
working folder, its data folders or where a path resolved to."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from evalcore.io.loading import DATA_ROOTS_VARIABLE, data_roots
from tests.conftest import ROOT, open_page


def refusal(folder: str) -> str:
    """The one message the Data page shows for ``folder``, the demo kept."""
    app = open_page()
    app.text_input(key="rocov2_folder").set_value(folder)
    app.button(key="load_rocov2").click().run()
    assert not app.exception, app.exception
    messages = [e.value for e in app.error]
    assert len(messages) == 1 and app.session_state["workspace"].label.startswith("Demo"), messages
    return messages[0]


def server_paths() -> list[str]:
    """Absolute paths of the server's a refusal must not name: its working folder, the data folders, the project."""
    return [os.getcwd(), str(ROOT), *(str(root) for root in data_roots())]


@pytest.mark.parametrize("folder, expected", [
    ("evalcore", "Not loaded: evalcore: expected a folder under the data folders this server may read, found a path "
                 "outside them; a relative path is read from the app's working folder; to allow it, add its folder "
                 "to the CBIR_LENS_DATA_ROOTS environment variable"),
    ("data/demo/concepts.csv", "Not loaded: data/demo/concepts.csv: not a folder (expected the ROCOv2 layout with "
                               "test_concepts.csv)"),
    ("data/../data/demo", "Not loaded: data/../data/demo: no test_concepts.csv (expected the ROCOv2 layout)"),
])
def test_a_refused_folder_is_named_as_typed(monkeypatch, folder, expected):
    monkeypatch.delenv(DATA_ROOTS_VARIABLE, raising=False)
    monkeypatch.chdir(ROOT)
    message = refusal(folder)
    assert message.startswith(expected), message
    assert not [path for path in server_paths() if path in message], message


def test_a_malformed_file_in_a_folder_typed_relative_is_named_under_it(tmp_path, monkeypatch):
    folder = tmp_path / "rocov2"
    (folder / "runs").mkdir(parents=True)
    (folder / "test_concepts.csv").write_bytes(b"ID,CUIs\nimg1,C0040405\nimg2,NOT-A-CUI\n")
    monkeypatch.setenv(DATA_ROOTS_VARIABLE, str(tmp_path))
    monkeypatch.chdir(tmp_path)
    message = refusal("rocov2")
    assert message.startswith("Not loaded: rocov2/test_concepts.csv, line 3"), message
    assert str(tmp_path) not in message

    (folder / "test_concepts.csv").write_bytes(b"ID,CUIs\nimg1,C0040405\n")
    (folder / "runs" / "escape.trec").symlink_to(ROOT / "pyproject.toml")  # a run file leading outside the roots
    message = refusal("./rocov2")
    assert message.startswith("Not loaded: rocov2/runs/escape.trec: expected a folder under the data folders this "
                              "server may read, found a path outside them; a relative path is read from the app's "
                              "working folder"), message
    assert str(tmp_path) not in message and str(ROOT) not in message and not Path(message.split()[2]).is_absolute()
