"""AppTests of how explanations read: a shared concept a caption negates, by any name extraction knows, is a tag, not
a finding (Case view); a quoted caption sentence takes no second full stop; a KG path names its relations and their
ontology (Knowledge graph)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.app.baselines import IOU
from evalcore.app.workspace import Workspace, extraction_names
from evalcore.data import ConceptSets
from evalcore.extraction.extractor import ConceptDictionary
from tests.conftest import ROOT

CT, HEMORRHAGE, MRI = "C0040405", "C0019080", "C0024485"
XRAY, CHEST, EFFUSION = "C1306645", "C0817096", "C0032227"


def tiny_workspace() -> Workspace:
    concepts = ConceptSets(("query", "denied", "other"),
                           (frozenset({CT, HEMORRHAGE}), frozenset({CT, HEMORRHAGE}), frozenset({MRI})))
    return Workspace(concepts=concepts,
                     names={CT: "X-Ray Computed Tomography", HEMORRHAGE: "Hemorrhage", MRI: "Magnetic Resonance Imaging"},
                     captions={"query": "Head CT: acute hemorrhage in the left frontal lobe.",
                               "denied": "CT scan of brain. Without bleeding along the left electrode.",
                               "other": "MRI of the knee."},
                     label="tiny negation workspace")


def test_case_view_says_the_caption_denies_a_shared_tag():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    app.run()
    app.session_state["workspace"] = tiny_workspace()
    app.switch_page("pages/case_view.py")
    app.run()
    app.selectbox(key="case_system").set_value(IOU)
    app.selectbox(key="case_query").set_value("query")
    app.session_state["audience"] = "Clinician"  # the sidebar switch (moved for real in the browser test)
    app.run()
    assert not app.exception, app.exception
    reasons = [m.value for m in app.markdown if m.value.startswith("**Why:**")]
    assert reasons[0] == ("**Why:** Both are CT images; both are tagged *Hemorrhage*, but this image's caption says "
                          "it is absent.")
    assert not any("show *Hemorrhage*" in r or "X-Ray Computed Tomography" in r for r in reasons)
    assert any(m.value.startswith("**The case shows:**") for m in app.markdown)  # its caption affirms both
    assert any("Hemorrhage (caption says absent)" in m.value.replace("\\", "") for m in app.markdown)

    # The explanation cache reads the captions, so a new caption is a new explanation.
    workspace = app.session_state["workspace"]
    app.session_state["workspace"] = workspace.with_inputs(
        captions={**workspace.captions, "denied": "CT scan of brain: bleeding along the left electrode."})
    app.session_state["audience"] = "Clinician"
    app.run()
    assert not app.exception, app.exception
    reasons = [m.value for m in app.markdown if m.value.startswith("**Why:**")]
    assert reasons[0] == "**Why:** Both are CT images; both show *Hemorrhage*."
    # The query's own caption denying a tag: its chips say so, and the reasons name the query's caption.
    app.session_state["workspace"] = tiny_workspace()
    app.selectbox(key="case_query").set_value("denied")
    app.session_state["audience"] = "Clinician"
    app.run()
    assert not app.exception, app.exception
    tagged = next(m.value for m in app.markdown if m.value.startswith("**The case"))
    assert tagged.startswith("**The case is tagged:**") and "Hemorrhage (caption says absent)" in tagged.replace("\\", "")
    reasons = [m.value for m in app.markdown if m.value.startswith("**Why:**")]
    assert reasons[0] == ("**Why:** Both are CT images; both are tagged *Hemorrhage*, but the case's caption says "
                          "it is absent.")


def clinician_case_view(workspace: Workspace) -> AppTest:
    """The Case view of ``workspace``'s image "query" under IoU, for a clinician."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    app.run()
    app.session_state["workspace"] = workspace
    app.switch_page("pages/case_view.py")
    app.run()
    app.selectbox(key="case_system").set_value(IOU)
    app.selectbox(key="case_query").set_value("query")
    app.session_state["audience"] = "Clinician"  # the sidebar switch (moved for real in the browser test)
    app.run()
    assert not app.exception, app.exception
    return app


@pytest.mark.slow
def test_case_view_says_how_a_caption_leaves_a_shared_tag_out():
    """Issue 36, seventh pass: a caption that only considers a concept does not say it is absent."""
    workspace = tiny_workspace()
    app = clinician_case_view(workspace.with_inputs(
        captions={**workspace.captions, "denied": "CT scan of brain to rule out hemorrhage."}))
    reasons = [m.value for m in app.markdown if m.value.startswith("**Why:**")]
    assert reasons[0] == ("**Why:** Both are CT images; both are tagged *Hemorrhage*, but this image's caption only "
                          "considers it.")
    assert any("Hemorrhage (caption only considers it)" in m.value.replace("\\", "") for m in app.markdown)


@pytest.mark.slow
def test_case_view_reads_a_concept_by_the_names_extraction_knows():
    """Issue 33 (ROCOv2 test_002127): "no pleural effusion" denies the tag *Pleural effusion disorder*; the quoted
    sentence ends the researcher's reason without a second full stop."""
    concepts = ConceptSets(("query", "denied"), (frozenset({XRAY, CHEST, EFFUSION}),) * 2)
    workspace = Workspace(concepts=concepts, label="tiny pleural effusion workspace",
                          names={XRAY: "Plain x-ray", CHEST: "Chest", EFFUSION: "Pleural effusion disorder"},
                          captions={"query": "Chest X-ray: a large right pleural effusion.",
                                    "denied": "Chest X-ray. There was no pleural effusion on both sides."})
    app = clinician_case_view(workspace)
    reasons = [m.value for m in app.markdown if m.value.startswith("**Why:**")]
    assert reasons == ["**Why:** Both are X-ray images; both show *Chest*; both are tagged *Pleural effusion disorder*, "
                       "but this image's caption says it is absent."]
    app.session_state["audience"] = "Researcher"
    app.run()
    assert not app.exception, app.exception
    reason = next(m.value for m in app.markdown if m.value.startswith("**Why:**"))
    assert reason.endswith("(NegEx rule): *“There was no pleural effusion on both sides”*.")


def test_a_quote_ending_in_punctuation_takes_no_second_mark():
    from dashboard.cards import reason_markdown
    from evalcore.app.explain import explain_pair
    from evalcore.relevance.measures import measure_spec

    dictionary = ConceptDictionary.build({HEMORRHAGE: "Hemorrhage"})

    def reason(caption: str) -> str:
        e = explain_pair({HEMORRHAGE}, {HEMORRHAGE}, None, measure_spec("iou"), names={HEMORRHAGE: "Hemorrhage"},
                         captions=("Hemorrhage.", caption), dictionary=dictionary)
        return reason_markdown(e, "researcher")

    assert reason("No hemorrhage.").endswith("*“No hemorrhage”*.")
    assert reason("No hemorrhage?").endswith("*“No hemorrhage?”*") and reason("No bleeding!").endswith("\\!”*")
    cut = reason("No hemorrhage " + "and nothing else worth a mention " * 5 + "here.")
    assert cut.endswith("…”*") and ".”" not in cut
    assert not any(double in text for text in (reason("No hemorrhage."), reason("No hemorrhage?"), cut)
                   for double in (".”", "?”*.", "…”*."))


def test_knowledge_graph_page_names_relations_and_their_source():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    app.run()
    app.switch_page("pages/knowledge_graph.py")
    app.run()
    assert not app.exception, app.exception
    opening = next(m.value for m in app.markdown if m.value.startswith("**Distance:"))
    # The demo's opening pair: an is_a link (not one of its part-of links), named with its source.
    assert opening == ("**Distance: 1 hop.** *Inferior vena cava structure* is a kind of *Veins*. "
                       "(From the demo knowledge graph.)")
    app.text_input(key="kg_from_search").input("Head of femur").run()
    app.text_input(key="kg_to_search").input("Femur").run()
    assert not app.exception, app.exception
    sentence = next(m.value for m in app.markdown if m.value.startswith("**Distance:"))
    assert sentence == "**Distance: 1 hop.** *Head of femur* is part of *Femur*. (From the demo knowledge graph.)"
    table = next(f.value for f in app.dataframe if "from" in f.value.columns)
    assert table["link"].tolist() == ["start", "broader: the previous is part of it (up)"]
    assert table["from"].tolist() == ["", "the demo knowledge graph"]
    # a clinician reads the link without hierarchy jargon (screenshot review, issue 36, eighth pass)
    app.session_state["audience"] = "Clinician"
    app.run()
    assert not app.exception, app.exception
    table = next(f.value for f in app.dataframe if "from" in f.value.columns)
    assert table["link"].tolist() == ["start", "the step above is part of this one"]
    assert 'label="part of"' in app.get("graphviz_chart")[0].proto.spec


def test_a_quoted_caption_sentence_is_escaped_markdown():
    from dashboard.cards import reason_markdown
    from evalcore.app.explain import explain_pair
    from evalcore.relevance.measures import measure_spec

    hostile = "No [hemorrhage](http://x.invalid) **here** <script>."
    e = explain_pair({HEMORRHAGE}, {HEMORRHAGE}, None, measure_spec("iou"), names={HEMORRHAGE: "Hemorrhage"},
                     captions=("Hemorrhage.", hostile), dictionary=ConceptDictionary.build({HEMORRHAGE: "Hemorrhage"}))
    text = reason_markdown(e, "researcher")
    assert "](" not in text and "**here**" not in text and "<script>" not in text
    assert "this image's caption negates every mention of it (NegEx rule)" in text


def test_a_lists_explanations_at_once_are_each_pairs_own():
    from dashboard.cards import explanations_for
    from dashboard.computed import kg_of
    from dashboard.sidebar import Settings
    from evalcore.app.explain import explain_pair
    from evalcore.app.workspace import load_demo
    from evalcore.relevance.measures import measure_spec

    ws = load_demo()
    query, *others = ws.concepts.ids[:6]
    listed = [*others, "no such image", others[0]]
    relevance = measure_spec("nn-iou", alpha=0.3, n=2)
    settings = Settings(relevance=relevance, measure=relevance, kg_mode="undirected", ks=(10,), gain="linear")
    kg = kg_of(ws)
    dictionary = ConceptDictionary.build(*extraction_names(ws))  # what the page reads captions with, built here
    found = explanations_for(ws, query, listed, settings)
    assert list(found) == list(dict.fromkeys(listed)) and found["no such image"] is None
    for document in others:
        assert found[document] == explain_pair(ws.concepts[query], ws.concepts[document], kg, relevance, "undirected",
                                               names={}, captions=(ws.captions.get(query, ""),
                                                                   ws.captions.get(document, "")),
                                               dictionary=dictionary)
