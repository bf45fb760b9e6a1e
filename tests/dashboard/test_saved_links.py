"""Saved workspaces and links in the app (AppTest): save, reopen from the address with the same digest and numbers,
forget; a damaged store or a link naming what is not there opens a view with one sentence; a workspace replays to
the same digests whatever was loaded."""

from __future__ import annotations

import os

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.sidebar import DEFAULTS
from evalcore.app.saved import extraction_steps, replay
from evalcore.app.store import WorkspaceStore
from evalcore.app.workspace import caption_concepts, load_demo, with_extracted_concepts, with_run
from tests.conftest import DEMO, ROOT, frame_with, open_page

APP_TIMEOUT = 180


@pytest.fixture
def store(tmp_path, monkeypatch) -> WorkspaceStore:
    monkeypatch.setenv("CBIR_LENS_STORE", str(tmp_path / "store"))
    return WorkspaceStore(tmp_path / "store")


def linked(**parameters) -> AppTest:
    """A new session opening the app at an address with ``parameters``."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT)
    for name, value in parameters.items():
        app.query_params[name] = value
    return app.run()


def uploaded_run() -> bytes:
    lines = (DEMO / "runs" / "overlap-noisy.trec").read_text().splitlines()
    return ("\n".join(" ".join(line.split()[:5] + ["uploaded-a"]) for line in lines) + "\n").encode()


@pytest.mark.slow
def test_save_then_the_link_opens_the_same_workspace_and_numbers(store):
    loaded = with_run(load_demo(), uploaded_run(), "uploaded-a.trec")
    app = open_page(workspace=loaded)
    app.button(key="save_workspace").click().run()
    assert not app.exception
    workspace_id = app.query_params["workspace"]
    workspace_id = workspace_id[0] if isinstance(workspace_id, list) else workspace_id
    assert any("Saved." in message.value for message in app.success)

    again = linked(workspace=workspace_id)
    assert not again.exception and not again.warning
    assert again.session_state["workspace"].digest == loaded.digest
    again.switch_page("pages/leaderboard.py")
    again.run()
    first = open_page("pages/leaderboard.py", workspace=loaded)
    assert frame_with(again, "nn-CUI@10").equals(frame_with(first, "nn-CUI@10"))

    again.switch_page("pages/data.py")
    again.run()
    again.button(key="forget_workspace").click().run()
    assert "workspace" not in again.query_params
    gone = linked(workspace=workspace_id)
    assert any("cannot be opened" in warning.value for warning in gone.warning)
    assert gone.session_state["workspace"].synthetic  # the demo


def test_a_damaged_store_index_is_named_and_the_demo_opens(store):
    workspace_id = store.save(load_demo().recipe)
    (store.directory / "index.sqlite3").write_bytes(b"not a database" * 100)
    for name in ("index.sqlite3-wal", "index.sqlite3-shm"):
        if (store.directory / name).exists():
            os.remove(store.directory / name)
    app = linked(workspace=workspace_id)
    assert not app.exception
    message = " ".join(warning.value for warning in app.warning)
    assert "index.sqlite3" in message and str(store.directory) not in message
    assert app.session_state["workspace"].synthetic


@pytest.mark.parametrize("workspace_id", ["A" * 32, "../../etc/passwd", "", "x" * 3000])
def test_an_unknown_or_malformed_id_opens_the_demo_with_one_sentence(store, workspace_id):
    app = linked(workspace=workspace_id)
    assert not app.exception
    assert app.session_state["workspace"].synthetic
    assert len(app.warning) <= 1 and all(str(store.directory) not in w.value for w in app.warning)


@pytest.mark.slow
def test_a_link_reopens_the_metric_in_focus_and_says_what_it_could_not():
    app = linked(focus_metric="CUI@5")
    app.switch_page("pages/leaderboard.py")
    app.run()
    assert app.session_state["focus_metric"] == "CUI@5" and not app.exception
    wrong = linked(focus_metric="no-such-metric", pq_a="nobody")
    wrong.switch_page("pages/leaderboard.py")
    wrong.run()
    assert wrong.session_state["focus_metric"] == "nn-CUI@10"
    assert any("does not fit the data" in toast.value for toast in wrong.toast)


@pytest.mark.slow
def test_a_workspace_replays_to_the_same_digests_with_an_extraction():
    loaded = with_run(load_demo(), uploaded_run(), "uploaded-a.trec")
    found = caption_concepts(loaded, (), True)
    extracted = with_extracted_concepts(loaded, found, "loaded captions", extraction_steps((), True))
    again = replay(extracted.recipe)
    assert again.digests == extracted.digests
    assert [step.kind for step in again.recipe] == ["demo", "run", "extraction"]


@pytest.mark.slow
def test_a_link_reopens_the_kg_endpoints_and_says_what_it_could_not():
    app = linked(kg_from="C0042449")
    app.switch_page("pages/knowledge_graph.py")
    app.run()
    assert not app.exception and app.session_state["kg_from"] == "C0042449"
    wrong = linked(kg_from="C9999999")
    wrong.switch_page("pages/knowledge_graph.py")
    wrong.run()
    assert wrong.session_state["kg_from"] != "C9999999"
    assert any("does not fit the data" in toast.value for toast in wrong.toast)


@pytest.mark.parametrize("setting, value", [("alpha", "5"), ("alpha", "0.35"), ("n", "9"), ("gain", "quadratic"),
                                            ("measure", "dicee"), ("audience", "Doctor"), ("kg_mode", "sideways")])
def test_a_setting_out_of_its_range_is_left_at_its_default_and_said(setting, value):
    """Was silent (hunt 27), where docs/DASHBOARD.md promises one sentence: the setting fell back to its default."""
    app = linked(**{setting: value})
    assert not app.exception and app.session_state[setting] == DEFAULTS[setting]
    assert [toast.value for toast in app.toast] == [f"Part of this link does not fit the data loaded here or the "
                                                    f"settings' ranges ({setting}); the nearest view is shown instead."]


@pytest.mark.slow
def test_a_link_naming_more_systems_than_the_page_shows_or_one_twice_opens_the_first_distinct_ones():
    """Was a StreamlitSelectionCountExceedsMaxError on Per-query (at most 4 systems side by side); a repeated name
    was shown twice."""
    app = linked(pq_systems=["overlap-noisy", "visual-confused", "near-random", "overlap-noisy", "near-random"])
    app.switch_page("pages/per_query.py")
    app.run()
    assert not app.exception
    assert app.session_state["pq_systems"] == ["overlap-noisy", "visual-confused", "near-random"]
    again = linked(pq_systems=["near-random", "near-random"])
    again.switch_page("pages/per_query.py")
    again.run()
    assert not again.exception and again.session_state["pq_systems"] == ["near-random"]


def test_a_linked_name_that_is_no_option_takes_no_place_among_the_most_a_widget_shows(monkeypatch):
    """The review of hunt 27's fix: capping before matching gave A, B, C for Z, A, B, A, C, D at most 4."""
    import dashboard.session as session
    import dashboard.ui as ui

    class Address(dict):
        def get_all(self, key):
            return self[key]

    class Streamlit:
        query_params = Address(pq_systems=["Z", "A", "B", "A", "C", "D"])
        session_state: dict = {}

    def multiselect(label, options, key, **kwargs):  # a widget that shows the choice handed back to it
        return Streamlit.session_state[key]

    monkeypatch.setattr(ui, "st", Streamlit)
    monkeypatch.setattr(session, "st", Streamlit)
    options = ["A", "B", "C", "D", "E"]
    assert ui.choose_many(multiselect, "Systems", options, "pq_systems", max_selections=4) == ["A", "B", "C", "D"]
    assert Streamlit.session_state[session.IGNORED_IN_ADDRESS] == ["pq_systems"]
