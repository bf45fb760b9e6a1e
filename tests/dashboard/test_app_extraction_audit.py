"""Auditing concepts found in captions before evaluating them (AppTest): the Data page's evidence view (the caption
with its kept and negated words highlighted, a row per mention, the images of one concept) and the Concept detection
page scoring the extraction against the curated concept sets it replaced."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.app.workspace import Workspace, with_concepts
from evalcore.data import ConceptSets
from evalcore.extraction.caption_concepts import CaptionConcepts
from evalcore.extraction.evidence import evidence_rows
from evalcore.metrics.detection import detection_scores
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import nn_iou_measure
from tests.conftest import frame_with, open_page
from tests.dashboard.test_app_audience import jargon_on
from tests.dashboard.test_app_caption_concepts import MY_CAPTIONS, extract

HEMATOMA = "C0018944"


def extracted_from_my_captions(**state) -> AppTest:
    """The Data page after finding concepts in MY_CAPTIONS read alone."""
    app = open_page(**state).run()  # drawn in the reader's words before the upload (its label is the widget's)
    app.file_uploader(key="up_captions").set_value(("mine.csv", MY_CAPTIONS.encode(), "text/csv"))
    app.run()
    extract(app)
    assert not app.error, [e.value for e in app.error]
    return app


def shown_markdown(app: AppTest) -> list[str]:
    return [m.value for m in app.markdown]


@pytest.mark.slow
def test_a_concept_lists_the_images_holding_it_or_ruling_it_out():
    app = extracted_from_my_captions()
    ws = app.session_state["workspace"]
    app.selectbox(key="evidence_concept").set_value(HEMATOMA).run()
    assert not app.exception, app.exception
    images = app.selectbox(key="evidence_image")
    # By hand: "CT of the brain showing a hematoma." (09, 19, 29) holds it; "MRI of the brain without hematoma."
    # (01, 11, 21) names it without its counting.
    assert images.options == ["mine01 (not extracted)", "mine09", "mine11 (not extracted)", "mine19",
                              "mine21 (not extracted)", "mine29"]
    # ... and by evalcore: the sets holding it, and the evidence rows that negate it.
    holding = [i for i in ws.concepts.ids if HEMATOMA in ws.concepts[i]]
    negated = {row.image_id for row in evidence_rows(ws.extraction) if row.concept == HEMATOMA
               and row.status == "negated"} - set(holding)
    assert [option.split()[0] for option in images.options] == [i for i in ws.concepts.ids
                                                                if i in holding or i in negated]
    assert any("3 images with this concept; 3 more whose caption mentions it, none kept." == c.value for c in app.caption)


@pytest.mark.slow
def test_an_image_shows_its_set_its_highlighted_caption_and_a_row_per_mention():
    app = extracted_from_my_captions()
    ws = app.session_state["workspace"]
    app.selectbox(key="evidence_concept").set_value(HEMATOMA).run()
    app.selectbox(key="evidence_image").set_value("mine01").run()
    assert not app.exception, app.exception
    shown = shown_markdown(app)
    # "MRI of the brain without hematoma.": MRI and brain kept (violet), hematoma negated (grey, struck through), the
    # rest plain.
    assert (":violet-background[:violet[MRI]] of the :violet-background[:violet[brain]] without "
            ":gray-background[:gray[~~hematoma~~]]\\." in shown), shown
    pieces, _ = ws.extraction.evidence("mine01")
    assert [p.text for p in pieces if p.counted] == ["MRI", "brain"] and [p.text for p in pieces if p.negated] == [
        "hematoma"]
    assert any(text.startswith("**mine01:**") and ":violet-background[Brain \\(C0006104\\)]" in text
               and "Hematoma" not in text for text in shown), shown
    table = frame_with(app, "rule")
    rows = [row for row in evidence_rows(ws.extraction) if row.image_id == "mine01"]
    assert table["words"].tolist() == [row.words for row in rows] == ["MRI", "brain", "hematoma"]
    assert table["status"].tolist() == ["kept", "kept", "negated"]
    assert table["matched"].tolist() == [row.matched for row in rows]
    assert table["rule"].tolist() == [row.rule for row in rows]
    assert table["rule"].iloc[2].startswith("negat") and table["rule"].iloc[2].endswith(
        " in: MRI of the brain without hematoma.")
    assert table["concept"].tolist() == ["Magnetic Resonance Imaging (C0024485)", "Brain (C0006104)",
                                         "Hematoma (C0018944)"]


@pytest.mark.slow
def test_the_chosen_image_s_caption_is_read_once_for_its_highlights_and_its_table(monkeypatch):
    """A long caption is read once per view: the highlighted caption and the evidence table share its mentions."""
    app = extracted_from_my_captions()
    app.selectbox(key="evidence_concept").set_value(HEMATOMA).run()
    reads = []
    mentions_of = CaptionConcepts.mentions_of
    monkeypatch.setattr(CaptionConcepts, "mentions_of",
                        lambda self, image_id: reads.append(image_id) or mentions_of(self, image_id))
    app.selectbox(key="evidence_image").set_value("mine11").run()
    assert not app.exception, app.exception
    assert reads.count("mine11") == 1, reads
    assert frame_with(app, "rule")["words"].tolist() == ["MRI", "brain", "hematoma"]


@pytest.mark.slow
def test_caption_text_is_escaped():
    captions = 'ID,Caption\nx1,"CT of the liver **bold** <b>tag</b> [link](http://a)"\n'
    app = open_page()
    app.file_uploader(key="up_captions").set_value(("odd.csv", captions.encode(), "text/csv"))
    app.run()
    extract(app)
    shown = shown_markdown(app)
    assert (":violet-background[:violet[CT]] of the :violet-background[:violet[liver]] \\*\\*bold\\*\\* \\<b\\>tag\\</b\\> "
            "\\[link\\]\\(http\\://a\\)") in shown, shown


@pytest.mark.slow
def test_stale_choices_fall_back_instead_of_raising():
    app = open_page()
    extract(app)
    app.selectbox(key="evidence_concept").set_value("C0032718").run()  # portal vein, named in the demo's captions
    app.selectbox(key="evidence_image").set_value("DEMO_00001").run()
    assert not app.exception, app.exception
    assert any(text.startswith("**DEMO\\_00001:**") for text in shown_markdown(app))
    # Another collection, which names no portal vein and holds no DEMO image: both choices fall back.
    app.file_uploader(key="up_captions").set_value(("mine.csv", MY_CAPTIONS.encode(), "text/csv"))
    app.run()
    extract(app)
    assert not app.exception, app.exception
    assert app.selectbox(key="evidence_concept").value == ""  # every image
    assert app.selectbox(key="evidence_image").value == "mine00"
    assert any(text.startswith("**mine00:**") for text in shown_markdown(app))


@pytest.mark.slow
def test_the_clinician_evidence_view_shows_no_jargon():
    app = extracted_from_my_captions(audience="Clinician")
    app.selectbox(key="evidence_concept").set_value(HEMATOMA).run()
    app.selectbox(key="evidence_image").set_value("mine01").run()
    assert not app.exception, app.exception
    assert app.selectbox(key="evidence_image").options[0] == "mine01 (named, not counted)"
    table = frame_with(app, "why")
    assert table["counted"].tolist() == ["yes", "yes", "no: ruled out"]
    assert table["why"].iloc[2] == "ruled out in: “MRI of the brain without hematoma.”"
    assert not jargon_on(app), jargon_on(app)


# --- the extraction scored against the curated concept sets ---------------------------------------------------

@pytest.mark.slow
def test_the_demo_extraction_is_scored_against_the_demo_concept_sets():
    app = open_page()
    curated = app.session_state["workspace"].concepts
    extract(app)
    loaded = frame_with(app, "loaded").set_index("input")["loaded"]
    assert loaded["concept sets"] == "2,000 images, found in the captions"
    assert loaded["curated concept sets"] == ("demo/concepts.csv, kept to score the extraction (Concept detection "
                                              "page)")
    app.switch_page("pages/concept_detection.py").run()
    assert not app.exception, app.exception
    ws = app.session_state["workspace"]
    assert ws.curated is curated and app.radio(key="detection_source").value == "concepts found in the captions"
    extracted = dict(zip(ws.extraction.concepts.ids, ws.extraction.concepts.sets))
    kg = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
    subset = frozenset(app.text_area(key="subset").value.split())
    scores = detection_scores(curated, extracted, nn_iou_measure(0.5, 1), subset=subset, kg=kg)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["F1 (primary)"] == f"{scores.primary.f1:.4f}"
    assert metrics["F1 (secondary, subset)"] == f"{scores.secondary.f1:.4f}"
    assert metrics["Soft F1 (alpha 0.5, n 1)"] == f"{scores.soft.f1:.4f}"
    assert scores.primary.f1 < 1.0  # an extraction that differs from the curated sets somewhere
    assert any("Ground truth: the curated concept sets of **concepts\\.csv**" in c.value for c in app.caption)
    # One image in full: found and missed are read against the curated set, not the extracted one.
    worst = frame_with(app, "missed").iloc[0]
    app.selectbox(key="detection_image").set_value(worst["image"]).run()
    missed = curated[worst["image"]] - extracted[worst["image"]]
    assert missed, worst
    line = next(m.value for m in app.markdown if m.value.startswith("**Missed:**"))
    assert line.count("orange-background") == len(missed)
    # The uploaded-file choice is still there.
    app.radio(key="detection_source").set_value("upload").run()
    assert not app.exception, app.exception
    assert any("Ground truth: the concept sets in use, found in the captions." == c.value for c in app.caption)


@pytest.mark.slow
def test_a_hand_worked_extraction_score():
    names = {"C0040405": "X-Ray Computed Tomography", "C0024485": "Magnetic Resonance Imaging", "C0023884": "Liver",
             "C0006104": "Brain", "C0019080": "Hemorrhage"}
    curated = ConceptSets(("a", "b", "c"), (frozenset({"C0040405", "C0023884", "C0019080"}), frozenset({"C0024485"}),
                                            frozenset({"C0006104"})), "truth.csv")
    app = open_page(workspace=Workspace(label="hand", concepts=curated, names=names, captions={
        "a": "CT of the liver without hemorrhage.", "b": "MRI of the brain."}))
    extract(app)
    ws = app.session_state["workspace"]
    assert [sorted(s) for s in ws.concepts.sets] == [["C0023884", "C0040405"], ["C0006104", "C0024485"]]
    app.switch_page("pages/concept_detection.py").run()
    assert not app.exception, app.exception
    # a: 2 of 3 true found, nothing wrong: F1 0.8; b: the one true found, one wrong: F1 2/3; c has no caption.
    assert {m.label: m.value for m in app.metric}["F1 (primary)"] == "0.7333"
    assert any("Left out: 1 image of the ground truth without a caption" in c.value for c in app.caption)


@pytest.mark.slow
def test_without_curated_concept_sets_the_page_says_so():
    app = extracted_from_my_captions()
    assert app.session_state["workspace"].curated is None  # the demo's sets are about other images
    app.switch_page("pages/concept_detection.py").run()
    assert not app.exception, app.exception
    assert [i.value for i in app.info] == [
        "There are no curated concept sets to score the concepts found in the captions against: the concept sets "
        "in use were found in these captions themselves, so load a concept sets file of the same images on the "
        "Data page and find the concepts again."]


@pytest.mark.slow
def test_curated_sets_are_kept_through_a_second_extraction_and_dropped_by_a_new_file():
    app = open_page()
    curated = app.session_state["workspace"].concepts
    extract(app)
    app.checkbox(key="extract_abbreviations").set_value(False)
    extract(app)
    ws = app.session_state["workspace"]
    assert ws.curated is curated and ws.extraction is not None
    assert ws.restricted_to("extraction").curated is curated
    ws = with_concepts(ws, b"ID,CUIs\nDEMO_00001,C0040405\n", "new.csv")
    assert ws.curated is None and ws.extraction is None


#: Each audience and the evidence table's column that says why a mention was read so.
AUDIENCE_COLUMNS = (("Researcher", "rule"), ("Clinician", "why"))


def audited(row: str, audience: str) -> AppTest:
    """The Data page in ``audience``'s words after finding concepts in one caption (``row``: "ID,caption") and
    choosing its image for the evidence."""
    app = open_page(audience=audience).run()
    app.file_uploader(key="up_captions").set_value(("one.csv", f"ID,Caption\n{row}\n".encode(), "text/csv"))
    app.run()
    extract(app)
    app.selectbox(key="evidence_image").set_value(row.split(",")[0]).run()
    assert not app.exception, app.exception
    return app


@pytest.mark.slow
def test_an_abbreviation_the_caption_defines_is_audited_as_defined():
    """"portal vein (PV)": each PV is the portal vein, found as an abbreviation the caption spells out (issue 36,
    sixth pass); the researcher reads the definition as the rule, the clinician as the reason in plain words."""
    for audience, column in AUDIENCE_COLUMNS:
        app = audited("pv1,Ultrasound of the portal vein (PV). The PV is patent.", audience)
        table = frame_with(app, column)
        defined = table[table["words"] == "PV"]
        # a clinician reads the vein's name without SNOMED CT's "structure"
        concept = "Portal vein" if audience == "Clinician" else "Portal vein structure (C0032718)"
        assert (defined["concept"] == concept).all() and len(defined) == 2, table
        said = ("the caption writes “PV” for “portal vein”" if audience == "Clinician" else
                "abbreviation the caption defines: PV = portal vein")
        assert (defined[column] == said).all(), table
        if audience == "Clinician":
            assert (defined["found as"] == "an abbreviation this caption spells out").all()
            assert not jargon_on(app), jargon_on(app)
        else:
            assert (defined["matched"] == "defined").all()


@pytest.mark.slow
def test_a_hyphenated_word_of_the_caption_is_not_broken_at_its_hyphen():
    """Plain caption words keep a hyphenated word on one line, as chips do ("Non-" above "contrast" on a narrow
    page); the text is the caption's, with an invisible word joiner after the hyphen."""
    app = open_page().run()
    app.file_uploader(key="up_captions").set_value(("nc.csv", b"ID,Caption\nnc1,Non-contrast CT of the liver.\n",
                                                    "text/csv"))
    app.run()
    extract(app)
    shown = shown_markdown(app)
    assert any(text.startswith("Non\\-\u2060contrast :violet-background[:violet[CT]]") for text in shown), shown


@pytest.mark.slow
def test_a_literature_statement_is_audited_as_of_other_patients():
    """"... [33]": a later sentence citing the literature and naming nothing of the figure is not of this image
    (issue 36, seventh pass); the researcher reads the status and the citation, the clinician plain words."""
    for audience, column in AUDIENCE_COLUMNS:
        app = audited("lit1,CT of the liver showing a hematoma. Complications include ascites and pleural effusion "
                      "[33].", audience)
        table = frame_with(app, column)
        cited = table[table["words"].isin(["ascites", "pleural effusion"])]
        assert len(cited) == 2, table
        if audience == "Clinician":
            assert (cited["counted"] == "no: literature").all(), table
            assert cited[column].str.startswith("said of other patients or the literature in: “Complications").all()
            assert not jargon_on(app), jargon_on(app)
        else:
            assert (cited["status"] == "literature").all(), table
            assert cited[column].str.startswith("literature cue '[33]' (").all(), table


@pytest.mark.slow
def test_a_presenting_complaint_is_audited_as_the_patients_history():
    """"... who presented with ascites": the patient's history or presenting complaint is not what the image shows
    (issue 36, eighth pass); the researcher reads the status and the cue, the clinician plain words."""
    for audience, column in AUDIENCE_COLUMNS:
        app = audited("hist1,CT of the liver of a woman who presented with ascites. A hematoma is shown.", audience)
        table = frame_with(app, column)
        told = table[table["words"] == "ascites"]
        assert len(told) == 1, table
        # the verdict third, in view on a narrow page that scrolls the table sideways
        assert list(table.columns)[:3] == ["words", "concept", "counted" if audience == "Clinician" else "status"]
        if audience == "Clinician":
            assert (told["counted"] == "no: history").all(), table
            assert told[column].str.startswith("said of the patient's history in: “CT of the liver").all(), table
            assert not jargon_on(app), jargon_on(app)
        else:
            assert (told["status"] == "history").all(), table
            assert told[column].str.startswith("history cue 'who presented with' (").all(), table
        # the concept's images list it as named but not counted, not as ruled out
        app.selectbox(key="evidence_concept").set_value("C0003962").run()
        listed = "hist1 (named, not counted)" if audience == "Clinician" else "hist1 (not extracted)"
        assert app.selectbox(key="evidence_image").options == [listed], app.selectbox(key="evidence_image").options
