"""The Judging page (pages/judging.py) in both audiences: a named judge grades, skips and undoes, with keys; the
progress follows the stored judgments; a reload or the link reopens judging where the judge stopped; no system, no
score and no caption leads the judge; a hostile name is refused, and every name shown escaped."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.app.judging import judged_collection
from evalcore.app.judgments import JudgmentStore
from evalcore.errors import CBIRLensError
from tests.conftest import APP_TIMEOUT, ROOT
from tests.dashboard.test_app_audience import element_texts, jargon_on

PAGE = "pages/judging.py"
SYSTEM_WORDS = ("near-random", "overlap-noisy", "visual-confused", "Retrieval by", "CUI@", "Tied with")


@pytest.fixture(autouse=True)
def own_store(tmp_path, monkeypatch):
    """Each test's judgments in a store of its own."""
    monkeypatch.setenv("CBIR_LENS_STORE", str(tmp_path / "store"))
    return tmp_path / "store"


def judging(audience: str = "Researcher", **address: str) -> AppTest:
    """The Judging page as a browser opens it, with ``address``'s query parameters."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT)
    app.session_state["audience"] = audience
    for name, value in address.items():
        app.query_params[name] = value
    app.run()
    app.switch_page(PAGE).run()
    assert not app.exception, app.exception
    return app


def page_text(app: AppTest) -> str:
    """Every text the page shows (not the sidebar's)."""
    return " ".join(element_texts(app.main))


def progress_text(app: AppTest) -> str:
    return app.get("progress")[0].proto.text


def shown_pair(app: AppTest) -> tuple[str, str]:
    """The IDs under the case's and the candidate's image."""
    return tuple(image.captions[0] for image in app.main if getattr(image, "type", "") == "image")


@pytest.mark.slow
def test_a_researcher_grades_skips_and_undoes_with_keys_and_the_progress_follows(own_store):
    app = judging()
    assert app.title[0].value == "Judge pairs"
    assert [info.value for info in app.info] == ["Enter your name to start judging."] and not app.get("progress")
    app.text_input(key="judge_name").input("Dr Ana Silva").run()
    assert progress_text(app) == "0 of 200 pairs judged"
    assert app.query_params["judge"] == "Dr Ana Silva"
    buttons = {button.key: button for button in app.button}
    assert [buttons[f"judge_grade_{g}"].proto.shortcut for g in (0, 1, 2)] == ["0", "1", "2"]
    assert (buttons["judge_skip"].proto.shortcut, buttons["judge_undo"].proto.shortcut) == ("s", "u")
    assert buttons["judge_undo"].disabled
    first = shown_pair(app)
    assert len(first) == 2 and first[0] != first[1]
    app.button(key="judge_grade_2").click().run()
    assert progress_text(app) == "1 of 200 pairs judged" and shown_pair(app) != first
    app.button(key="judge_skip").click().run()
    assert progress_text(app) == "2 of 200 pairs judged"
    app.button(key="judge_undo").click().run()
    assert progress_text(app) == "1 of 200 pairs judged"
    stored = JudgmentStore(own_store).judgments(judged_collection(app.session_state["workspace"]), "Dr Ana Silva")
    assert [(j.case, j.candidate, j.grade) for j in stored] == [(*first, 2)]
    assert not [word for word in SYSTEM_WORDS if word in page_text(app)]


def test_a_clinician_rates_in_plain_words_and_sees_no_jargon():
    app = judging("Clinician")
    assert app.title[0].value == "Rate similar images"
    app.text_input(key="judge_name").input("Ana").run()
    assert [b.label for b in app.button] == ["0 · not similar", "1 · somewhat similar", "2 · very similar", "Skip",
                                             "Undo"]
    app.button(key="judge_grade_1").click().run()
    assert progress_text(app) == "1 of 200 pairs rated"
    assert [s.value for s in app.subheader] == ["Case", "Image to compare"]
    assert not jargon_on(app), jargon_on(app)
    assert not [word for word in SYSTEM_WORDS if word in page_text(app)]
    assert not any(key.startswith("judgments_") for key in (b.key for b in app.button))  # no import or export


@pytest.mark.slow
def test_a_reload_or_the_link_reopens_judging_where_the_judge_stopped():
    app = judging()
    app.text_input(key="judge_name").input("Ben").run()
    for grade in (0, 1, 2):
        app.button(key=f"judge_grade_{grade}").click().run()
    here = shown_pair(app)
    assert len(here) == 2
    for audience in ("Researcher", "Clinician"):
        again = judging(audience, judge="Ben")
        assert again.text_input(key="judge_name").value == "Ben"
        assert progress_text(again).startswith("3 of 200 pairs") and shown_pair(again) == here
    chosen = judging()  # a judge of this collection, chosen from the list
    chosen.selectbox(key="judge_pick").select("Ben").run()
    assert progress_text(chosen) == "3 of 200 pairs judged"


@pytest.mark.slow
def test_the_design_of_a_link_is_the_same_for_every_judge():
    app = judging(judge="Cy", judge_seed="7", judge_size="20")
    assert progress_text(app) == "0 of 20 pairs judged" and "seed 7" in " ".join(c.value for c in app.caption)
    other = judging("Clinician", judge="Dee", judge_seed="7", judge_size="20")
    assert len(shown_pair(app)) == 2 and shown_pair(other) == shown_pair(app)
    assert app.query_params["judge_seed"] == "7" and app.query_params["judge_size"] == "20"


def test_captions_are_off_until_the_judge_asks_for_them():
    app = judging(judge="Eve")
    assert app.toggle(key="judge_captions").value is False and not app.text
    app.toggle(key="judge_captions").set_value(True).run()
    workspace = app.session_state["workspace"]
    assert [text.value for text in app.text] == [workspace.captions[image] for image in shown_pair(app)]


@pytest.mark.parametrize("name", ["<img src=x onerror=alert(1)>", "Ana\u202eevil", "Ana\x1b[31m", "O'Neil\"s"])
def test_a_hostile_name_is_refused_and_never_kept(name):
    app = judging()
    app.session_state["judge_name"] = name
    app.run()
    assert not app.exception, app.exception
    assert app.error and "Not a name judgments can be kept under" in app.error[0].value
    assert "judge" not in app.query_params and not app.get("progress")


def test_a_name_is_shown_escaped():
    app = judging(judge="*Ana*_[x](http://e.vil)")
    assert any(m.value.startswith(r"Judging as **\*Ana\*\_\[x\]\(http") for m in app.markdown), \
        [m.value for m in app.markdown]


def test_the_exports_hold_every_judges_judgments():
    app = judging(judge="Fay")
    app.button(key="judge_grade_2").click().run()
    downloads = {button.proto.label: button for button in app.get("download_button")}
    assert set(downloads) == {"Judgments (CSV)", "Graded qrels (TREC)"}
    assert not any(button.proto.disabled for button in downloads.values())


@pytest.mark.slow
def test_an_imported_judged_collection_counts_as_the_judges_progress():
    from dashboard.computed import import_judgments

    app = judging(judge="Gus")
    first = shown_pair(app)
    data = f"judge,case,candidate,grade\nGus,{first[0]},{first[1]},1\n".encode()
    assert import_judgments(app.session_state["workspace"], data, "old.csv") == 1
    app.run()
    assert progress_text(app) == "1 of 200 pairs judged" and shown_pair(app) != first
    with pytest.raises(CBIRLensError, match=r"old\.csv, line 2: expected a case image of the loaded collection"):
        import_judgments(app.session_state["workspace"], b"judge,case,candidate,grade\nGus,nope,DEMO_00001,1\n",
                         "old.csv")
