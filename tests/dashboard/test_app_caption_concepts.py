"""The Data page's "Find concepts in the captions" flow (AppTest): the demo's captions, a captions-only upload, a
failing captions file that keeps the earlier workspace, the result kept for a second session, and the Per-query /
Case view switch showing which caption words gave each concept."""

from __future__ import annotations

import re

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.computed import concepts_download
from evalcore.readers import read_concepts
from tests.conftest import APP_TIMEOUT, ROOT, declared_pages, frame_with, open_page

#: A collection of the user's own: captions only, naming the demo's concepts (so the demo's names find them).
MY_CAPTIONS = "ID,Caption\n" + "".join(
    f'mine{i:02d},"{text}"\n' for i, text in enumerate(
        ["CT of the abdomen showing liver and calculi.", "MRI of the brain without hematoma.",
         "Chest X-ray: no pneumothorax, small pleural effusion.", "Ultrasonography of the kidney.",
         "CT of the chest showing a lung nodule.", "Plain x-ray of the pelvis and femur.",
         "MRI of the spinal cord, no lesion.", "Normal study.", "PET of the abdomen with the spleen.",
         "CT of the brain showing a hematoma."] * 3))


def extract(app, **choices) -> None:
    for key, value in choices.items():
        app.radio(key=key).set_value(value)
    app.button(key="extract_concepts").click().run()
    assert not app.exception, app.exception


@pytest.mark.slow
def test_demo_captions_give_concept_sets_a_report_and_a_leaderboard():
    app = open_page()
    demo = app.session_state["workspace"]
    extract(app)
    ws = app.session_state["workspace"]
    assert not app.error, [e.value for e in app.error]
    assert ws.extraction is not None and ws.concepts is ws.extraction.concepts
    assert ws.digests["runs"] == demo.digests["runs"] and ws.synthetic
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Images with no concept found"] == f"{sum(1 for s in ws.concepts.sets if not s):,}"
    assert int(metrics["Different concepts"].replace(",", "")) == len(ws.concepts.vocabulary)
    frequent = frame_with(app, "images")
    assert frequent["images"].is_monotonic_decreasing and len(frequent) == 20
    assert frequent["concept"].iloc[0] == "X-Ray Computed Tomography (C0040405)"
    assert "concept sets found in the captions" in frame_with(app, "problems")["kind"].tolist()
    app.switch_page("pages/leaderboard.py")
    app.run()
    assert not app.exception, app.exception
    table = frame_with(app, "nn-CUI@10")
    assert sorted(table.index) == ["near-random", "overlap-noisy", "visual-confused"]
    assert np.isfinite(table["nn-CUI@10"]).all()


@pytest.mark.slow
def test_captions_only_upload_becomes_an_evaluable_collection():
    app = open_page()
    app.file_uploader(key="up_captions").set_value(("mine.csv", MY_CAPTIONS.encode(), "text/csv"))
    app.run()
    assert not app.error, [e.value for e in app.error]
    assert app.radio(key="extract_which").value == "upload"  # the uploaded file is read alone by default
    extract(app)
    ws = app.session_state["workspace"]
    assert ws.label == "Uploaded (mine.csv)" and not ws.synthetic
    assert ws.concepts.ids == tuple(f"mine{i:02d}" for i in range(30))
    assert ws.concepts["mine01"] == {"C0024485", "C0006104"}  # MRI, brain; the hematoma is negated
    assert {m.label: m.value for m in app.metric}["Images with no concept found"] == "3"
    app.switch_page("pages/leaderboard.py")
    app.run()
    assert not app.exception, app.exception
    table = frame_with(app, "nn-CUI@10")
    assert len(table) >= 1 and np.isfinite(table["nn-CUI@10"]).all()


@pytest.mark.slow
def test_every_page_draws_on_concepts_found_in_uploaded_captions():
    app = open_page()
    app.file_uploader(key="up_captions").set_value(("mine.csv", MY_CAPTIONS.encode(), "text/csv"))
    app.run()
    extract(app)
    clinician, researcher = declared_pages()
    for page in (*clinician, *researcher):  # as app.py declares them, so that a new page is drawn here too
        app.switch_page(page)
        app.run()
        assert not app.exception, (page, app.exception)
        assert not app.error, (page, [e.value for e in app.error])
    assert app.session_state["workspace"].concepts.ids[0] == "mine00"


@pytest.mark.slow
@pytest.mark.parametrize(("content", "expected"), [
    (b"ID,Caption\nx,one,two\n", "bad.csv, line 2: expected 2 fields"),
    (b"ID,Caption\nx,CT\nx,MRI\n", "bad.csv, line 3: expected a new ID"),
    (b"ID,Caption\nx,CT \xff\xfe\n", "bad.csv, line 2: expected UTF-8 text"),
    (b"ID,Caption\nx,CT\x00\n", "bad.csv"),
], ids=["three-fields", "duplicate-id", "not-utf8", "nul-byte"])
def test_a_failing_captions_file_keeps_the_earlier_workspace(content, expected):
    app = open_page()
    before = app.session_state["workspace"]
    app.file_uploader(key="up_captions").set_value(("bad.csv", content, "text/csv"))
    app.run()
    errors = [e.value for e in app.error]
    assert len(errors) == 1 and expected in errors[0] and "expected" in errors[0], errors  # the upload is refused ...
    assert "extract_which" not in [radio.key for radio in app.radio]  # ... and not offered to be read alone
    app.run()
    assert [e.value for e in app.error] == errors  # the message stays while the uploader holds the file
    assert app.session_state["workspace"] is before


@pytest.mark.slow
def test_captions_naming_no_known_concept_keep_the_earlier_workspace():
    app = open_page()
    before = app.session_state["workspace"]
    app.file_uploader(key="up_captions").set_value(("plain.csv", b"ID,Caption\nx,Normal study.\n", "text/csv"))
    app.run()
    extract(app)
    errors = [e.value for e in app.error]
    assert errors == ["Not loaded: none of the 1 caption names one of the 56 concepts loaded; the concept sets "
                      "were left as they were"], errors
    assert app.session_state["workspace"].concepts is before.concepts


def test_a_bad_synonym_file_keeps_the_earlier_workspace():
    app = open_page()
    before = app.session_state["workspace"]
    app.file_uploader(key="up_synonyms").set_value([("mesh.tsv", b"\x00\x01binary", "text/tab-separated-values")])
    extract(app)
    errors = [e.value for e in app.error]
    assert len(errors) == 1 and "mesh.tsv" in errors[0] and "expected" in errors[0], errors
    assert app.session_state["workspace"] is before


@pytest.mark.slow
def test_a_second_session_with_the_same_captions_reuses_the_extraction():
    first, second = open_page(), AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT)
    second.run()
    extract(first)
    extract(second)
    assert second.session_state["workspace"].extraction is first.session_state["workspace"].extraction


@pytest.mark.slow
def test_the_download_is_the_extract_command_s_csv():
    app = open_page()
    extract(app)
    ws = app.session_state["workspace"]
    button = app.get("download_button")[0]
    assert button.proto.label == "Download the extracted concept sets (ID,CUIs CSV)"
    downloaded = read_concepts(concepts_download(ws).encode(), "download.csv")
    assert (downloaded.ids, downloaded.sets) == (ws.concepts.ids, ws.concepts.sets)


def switched_on(page: str, toggle: str, captions: str | None = None, **state):
    """The app after finding concepts in the demo's captions (or in ``captions`` uploaded alone), on ``page`` with
    the caption-words switch on."""
    app = open_page()
    if captions is not None:
        app.file_uploader(key="up_captions").set_value(("mine.csv", captions.encode(), "text/csv"))
        app.run()
    extract(app)
    for name, value in state.items():
        app.session_state[name] = value
    app.switch_page(page)
    app.run()
    assert not app.exception, app.exception
    app.toggle(key=toggle).set_value(True).run()
    assert not app.exception, app.exception
    return app


@pytest.mark.slow
def test_per_query_switch_shows_the_caption_words_of_each_concept():
    app = switched_on("pages/per_query.py", "pq_caption_words")
    app.text_input(key="pq_search").input("DEMO_00005").run()
    app.selectbox(key="pq_query").set_value("DEMO_00005").run()
    shown = [m.value for m in app.markdown]
    # "CT of the abdomen showing liver and calculi.": each concept with the words it came from.
    assert any(":violet-background[:violet[CT]]" in text and ":violet-background[:violet[liver]]" in text
               for text in shown), shown
    assert any("**X\\-Ray Computed Tomography \\(C0040405\\)** ← “CT”" in text for text in shown), shown


@pytest.mark.slow
def test_case_view_switch_marks_negated_words_as_not_counted_for_clinicians():
    app = switched_on("pages/case_view.py", "case_caption_words", MY_CAPTIONS, audience="Clinician",
                      case_related=False)
    app.text_input(key="case_search").input("mine01").run()
    app.selectbox(key="case_query").set_value("mine01").run()
    assert not app.exception, app.exception
    shown = " ".join(m.value for m in app.markdown)
    # "MRI of the brain without hematoma.": the hematoma is ruled out, so not one of the image's concepts.
    assert ":violet-background[:violet[brain]]" in shown and ":gray-background[:gray[~~hematoma~~]]" in shown, shown
    assert "**Hematoma** ← “hematoma” (ruled out: not counted)" in shown, shown
    # the colours' key once, under the case's caption, not again in every retrieved image's card
    assert sum("Violet: the words a concept was read from" in c.value for c in app.caption) == 1
    assert not re.search(r"C\d{7}", shown.replace("\\", ""))  # names, not codes, for a clinician


@pytest.mark.slow
def test_no_switch_where_the_concept_sets_were_read_from_a_file():
    app = open_page("pages/per_query.py")
    assert not any(t.key == "pq_caption_words" for t in app.toggle)
    app = open_page("pages/case_view.py")
    assert not any(t.key == "case_caption_words" for t in app.toggle)


@pytest.mark.slow
def test_an_assumed_view_is_said_to_be_assumed_in_both_modes():
    def page() -> None:
        from types import SimpleNamespace

        import streamlit as st

        from dashboard.cards import draw_caption_words
        from evalcore.extraction.caption_concepts import find_caption_concepts

        names = {"C1306645": "Plain x-ray", "C0000726": "Abdomen", "C1999039": "Anterior-Posterior"}
        found = find_caption_concepts({"a": "Abdominal X-ray"}, names)
        draw_caption_words(SimpleNamespace(extraction=found, names=names), "a", None)
        st.session_state.setdefault("audience", "Researcher")

    for audience, said in (("Researcher", "(assumed: the region's standard projection, no view stated)"),
                           ("Clinician", "(not written in the caption: the usual projection of such an X-ray is "
                                         "assumed)")):
        app = AppTest.from_function(page, default_timeout=APP_TIMEOUT)
        app.session_state["audience"] = audience
        app.run()
        assert not app.exception, app.exception
        shown = "\n".join(m.value for m in app.markdown)
        lines = shown.replace("\\", "").splitlines()
        assert any(line.startswith("- **Anterior-Posterior") and line.endswith(f"“Abdominal” {said}")
                   for line in lines), lines
        assert any(line.startswith("- **Abdomen") and line.endswith("“Abdominal”") for line in lines), lines
