"""dashboard/wording.py's per-reader labels (a metric's header, a family's title, a group's, a source's name, a p-value,
a path step's link): each says exactly what the page said inline before, to either reader; and the pages that use them
compare the reader once, for what only one reader is shown, not to choose words."""

from __future__ import annotations

import re

import pytest

from dashboard import wording
from dashboard.sidebar import Settings
from dashboard.wording import (
    EVIDENCE_COLUMNS,
    MATCHED,
    MESSAGES,
    concept_words,
    evidence_cells,
    family_heading,
    family_label,
    focus_chart_titles,
    group_title,
    hop_meaning,
    link_words,
    metric_column,
    metric_header,
    metric_help,
    settings_line,
    significance,
    source_name,
    status_words,
)
from evalcore.app.baselines import BASELINES
from evalcore.app.explain import RELATION_WORDS, shown_name
from evalcore.extraction.evidence import EvidenceRow, defined_long_form
from evalcore.extraction.negation import sentence_at
from evalcore.io.tables import (
    GROUP_TITLES,
    GROUPS,
    PLAIN_GROUP_TITLES,
    describe_family,
    describe_metric,
    format_p_value,
    plain_metric_help,
    plain_metric_label,
)
from evalcore.relevance.measures import nn_iou_measure
from tests.conftest import ROOT, declared_pages
from tests.dashboard.test_app_audience import forbidden_in

METRICS = ["nn-CUI@10", "CUI@5", "P@5[modality]", "P@30[modality+organ]", "RBP", "CUI@5{dice}", "ERR@10", "R@10"]
READERS = ("researcher", "clinician")


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("metric", METRICS)
def test_a_metrics_labels_are_the_pages_former_ones(metric, reader):
    clinician = reader == "clinician"
    assert metric_header(metric, reader) == (plain_metric_label(metric) if clinician else metric)
    assert metric_column(metric, reader) == (plain_metric_label(metric).split(":")[0] if clinician
                                             else metric.split("[")[0])
    assert metric_help(metric, 0.5, reader) == (plain_metric_help(metric) if clinician else describe_metric(metric, 0.5))
    title = plain_metric_label(metric).split(": ", 1)[1] if clinician else "family"
    assert family_label("family", metric, 0.5, reader) == (title if clinician else
                                                           f"family: {describe_family(metric, 0.5)}")
    bold, description = family_heading("family", metric, 0.5, reader)
    former = f"**{title.capitalize()}**" if clinician else f"**{title}**: {describe_family(metric, 0.5)}"
    assert f"**{bold}**" + (f": {description}" if description else "") == former


@pytest.mark.parametrize("reader", READERS)
def test_a_groups_title_and_a_sources_name_are_the_pages_former_ones(reader):
    clinician = reader == "clinician"
    for group in [*GROUPS, "a group not written yet"]:
        assert group_title(group, reader) == (PLAIN_GROUP_TITLES if clinician else GROUP_TITLES).get(group, group)
    for baseline in BASELINES:
        assert source_name(baseline, reader) == (baseline.short_plain if clinician else baseline.title)
    assert source_name("my-run", reader) == "my-run"


@pytest.mark.parametrize("reader", READERS)
def test_a_p_value_a_status_and_a_path_step_are_said_as_the_pages_said_them(reader):
    clinician = reader == "clinician"
    for p_value in (0.0, 0.0004, 0.049, 0.05, 0.2, 1.0):
        assert significance(p_value, reader) == (("likely real" if p_value < 0.05 else "could be chance") if clinician
                                                 else format_p_value(p_value))
    for status in ("negated", "hypothetical", "history", "other exam", "literature", "a status not written yet"):
        assert status_words(status, reader) == (wording.status_of(status).after_words if clinician else status)
    assert link_words("", "is_a", reader) == "start"
    for link in ("is_a", "part_of"):
        for relation, verb in RELATION_WORDS.items():
            if clinician:
                former = f"the step above {verb} this one" if link == "is_a" else f"this one {verb} the step above"
            else:
                former = f"broader: the previous {verb} it (up)" if link == "is_a" else \
                    f"narrower: it {verb} the previous (down)"
            assert link_words(link, relation, reader) == former
            assert not clinician or not forbidden_in(former)


def test_the_per_reader_labels_follow_the_sessions_reader(monkeypatch):
    for reader in READERS:
        monkeypatch.setattr(wording, "audience", lambda reader=reader: reader)
        assert metric_header("nn-CUI@10") == metric_header("nn-CUI@10", reader)
        assert significance(0.01) == significance(0.01, reader)


def test_the_moved_messages_are_the_pages_former_ones():
    intro = MESSAGES["significance_intro"]
    assert intro.researcher.format(samples=2000, smallest=1 / 2001) == (
        "**Is the difference real?** Paired randomization test between each pair of systems; p-values corrected for "
        "testing several pairs at once (Holm). Green: p < 0.05, a difference unlikely to be chance. With 2,000 "
        "randomizations no p-value is below 1/(2,000 + 1) = 0.0005 before Holm's correction.")
    assert intro.clinician.startswith("**Is the difference real?** Each cell compares two systems: \"likely real\"")
    assert MESSAGES["group_difference"].researcher == "A - B"
    by = MESSAGES["retrieved_by_reference"]
    assert (by.researcher.format(title="T", plain="p"), by.clinician.format(title="T", plain="p")) == \
        ("By T: p.", "The images with p.")


#: The pairs the sidebar, the Method page, the Leaderboard's "By group" table and the progress of the work prepared
#: wrote on the spot before they moved here (issue 66), each as (researcher, clinician).
FORMER_PAIRS = {
    "alpha_label": ("alpha (weight of near matches)", "How much a related concept counts"),
    "alpha_help": ("How much a related concept (e.g. Veins vs Blood Vessels) counts compared with the same concept.",
                   "0: only the same concept counts. 1: a related concept (e.g. veins and blood vessels) counts as much "
                   "as the same one."),
    "hops_label": ("distance threshold n (KG hops)", "How far apart related concepts may be (links)"),
    "hops_help": ("Two concepts count as related when at most n is_a links apart. 0 = the same concept only.",
                  "Two concepts count as related when at most this many 'is a kind of' links apart in the concept map. "
                  "0: the same concept only."),
    "distinct_concepts": ("distinct CUIs", "distinct concepts"),
    "no_kg": ("No knowledge graph loaded: nn-IoU equals IoU.", "No concept map loaded: only identical concepts count."),
    "map_word": ("KG", "concept map"),
    "kg_nodes": ("KG nodes", "map terms"),
    "kg_edges": ("KG edges", "map links"),
    "example_vein": ("vein (C0042449)", "vein"),
    "example_vessel": ("blood vessel (C0005847)", "blood vessel"),
    "example_ct": ("CT (C0040405)", "CT"),
    "group_p_header": ("p rand. (Holm across groups)", "is it real?"),
    "engine_step": ("Preparing the knowledge-graph index and the pairwise engine", "Preparing the concept map"),
    "best_by_iou": ("IoU", "shared concepts"),
    "best_by_nn_iou": ("nn-IoU", "shared concepts, related ones counting"),
    "means_step": ("Means and 95% bootstrap intervals", "Averages and their likely ranges"),
    "tests_step": ("Significance tests", "Which differences are likely real"),
    "kept_step": ("The results kept with the saved link", "The results kept with the link"),
    "caption_names_step": ("The concept names the explanations look for in the captions",
                           "The concept names to look for in the captions"),
    "leaderboard_job": ("Leaderboard at the current settings", "Comparison of systems at the current settings"),
}


def test_the_pairs_moved_from_the_sidebar_the_pages_and_the_progress_are_their_former_words():
    for key, (researcher, clinician) in FORMER_PAIRS.items():
        assert (MESSAGES[key].researcher, MESSAGES[key].clinician) == (researcher, clinician), key
    for alpha in (0.4, 0.6, 1.0):
        assert MESSAGES["alpha_beside_job"].researcher.format(alpha=alpha) == \
            f"Leaderboard at alpha = {alpha:g} (one slider step beside)"
    assert MESSAGES["hops_beside_job"].researcher.format(hops=2) == "Leaderboard at n = 2 (one slider step beside)"
    assert MESSAGES["alpha_beside_job"].clinician == \
        "Comparison of systems at the next setting of how much a related concept counts"
    assert MESSAGES["hops_beside_job"].clinician == \
        "Comparison of systems at the next setting of how far apart related concepts may be"


@pytest.mark.parametrize("reader", READERS)
def test_the_labels_moved_from_the_pages_are_their_former_words(reader):
    clinician = reader == "clinician"
    for cui, name in (("C0042449", "Veins"), ("C0032718", "Portal vein structure"), ("C0001", None), ("C0001", "")):
        assert concept_words(cui, name, reader) == (f"{name} ({cui})" if name and not clinician else
                                                    shown_name(cui, name, reader))
    for metric in METRICS:
        assert focus_chart_titles(metric, reader) == ((plain_metric_label(metric), "score (0 to 1)") if clinician
                                                      else ("", metric))
    chosen = Settings(nn_iou_measure(0.3, 2), nn_iou_measure(0.3, 2), "directed", (5, 10), "exponential")
    for threshold in (None, 0.5, 0.25):
        former = (f"{PLAIN} Hover a column name for what it measures." if clinician else
                  f"alpha = {chosen.alpha}, n = {chosen.n}, KG mode {chosen.kg_mode}, {chosen.gain} gain"
                  + (f"; MAP and recall count an image as relevant from relevance {threshold:g}"
                     if threshold is not None else "") + ". Hover a column name for its meaning in plain words.")
        assert settings_line(chosen, PLAIN, threshold, reader) == former
    assert hop_meaning(reader) == ("A hop is one link: *is a kind of* (e.g. *Veins* is a kind of *Blood Vessels*) "
                                   "or, where the concept map says so, *is part of* (e.g. *Head of femur* is part of "
                                   "*Femur*)." if clinician else None)
    assert not forbidden_in(wording.HOP_MEANING)


#: A clinician's settings (dashboard.ui.plain_settings's words), as the Leaderboard passes them.
PLAIN = "A related concept counts 30% of the same concept, up to 2 links apart in the concept map."
#: A caption and its evidence rows of each kind: kept by name, kept as assumed, kept as a defined abbreviation, negated.
CAPTION = "Stenosis of the posterior descending artery (PDA). Chest X-ray without pneumothorax."
EVIDENCE = [EvidenceRow("a", "C0038449", 0, 8, "Stenosis", "name", "kept", ""),
            EvidenceRow("a", "C1999039", 0, 0, "", "assumed", "kept", "the region's standard projection"),
            EvidenceRow("a", "C0226032", 45, 48, "PDA", "defined", "kept", "defined in the caption"),
            EvidenceRow("a", "C0032326", 66, 78, "pneumothorax", "name", "negated", "negation 'without'"),
            EvidenceRow("a", "C0000001", 51, 56, "Chest", "a source not written yet", "literature", "cited")]


@pytest.mark.parametrize("reader", READERS)
def test_an_evidence_row_is_the_tables_former_row(reader):
    """dashboard.cards.evidence_table's former row, after the words and the concept, for each kind of mention."""
    for row in EVIDENCE:
        if reader == "clinician":
            status = wording.status_of(row.status)
            why = (f"{status.before_sentence}: “{sentence_at(CAPTION, row.start)}”" if row.status != "kept" else
                   MESSAGES["assumed"].clinician if row.matched == "assumed" else
                   f"the caption writes “{row.words}” for “{defined_long_form(CAPTION, row.words)}”"
                   if row.matched == "defined" else "")
            former = {"counted": status.verdict,
                      "found as": MATCHED[row.matched].clinician if row.matched in MATCHED else row.matched,
                      "why": why}
        else:
            former = {"status": row.status, "matched": row.matched, "rule": row.rule}
        assert evidence_cells(row, CAPTION, reader) == former
    assert [column.of(reader) for column in EVIDENCE_COLUMNS] == (["counted", "found as", "why"]
                                                                  if reader == "clinician" else
                                                                  ["status", "matched", "rule"])
    defined = evidence_cells(EVIDENCE[2], CAPTION, "clinician")["why"]
    assert defined == "the caption writes “PDA” for “posterior descending artery”"


#: Every page app.py declares (its words come from dashboard/wording.py): each compares the session's reader once (its
#: predicate for what only one reader is shown), or not at all.
ONE_PREDICATE = tuple(page.removeprefix("pages/") for pages in declared_pages() for page in pages)
READER_TEST = re.compile(r"\bwho [!=]= |\baudience\(\) [!=]= |\bis_clinician\(\)")


@pytest.mark.parametrize("page", ONE_PREDICATE)
def test_a_page_compares_its_reader_once(page):
    text = (ROOT / "pages" / page).read_text(encoding="utf-8")
    assert len(READER_TEST.findall(text)) <= 1, (page, READER_TEST.findall(text))
