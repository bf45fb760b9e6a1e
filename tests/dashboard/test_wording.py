"""dashboard/wording.py: every message the two readers see is written once for each, a clinician's with none of the
research words the clinician's pages may not show, and nothing in dashboard/ rewrites a researcher's text for a
clinician by regular expression."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from dashboard import wording
from dashboard.wording import (
    MATCHED,
    MESSAGES,
    NAVIGATION_TITLES,
    PAGE_TITLES,
    REPORT_KINDS,
    REPORT_SENTENCES,
    RUN_KIND,
    STATUS,
    STEP_DOWN,
    STEP_UP,
    UNKNOWN_STATUS,
    Wording,
    plain_report_row,
    refusal,
    say,
    words,
)
from evalcore.app.sources import EmbeddedDemo
from evalcore.app.workspace import (
    Workspace,
    report_table,
    with_captions,
    with_concepts,
    with_embeddings,
    with_images,
    with_kg,
    with_labels,
    with_names,
    with_new_concepts,
    with_run,
)
from evalcore.errors import CBIRLensError, InputError
from evalcore.readers.judgment_columns import read_judgment_columns
from tests.conftest import ROOT
from tests.dashboard.test_app_audience import forbidden_in

ALL = {**{f"message {k}": w for k, w in MESSAGES.items()}, **{f"title {k}": w for k, w in PAGE_TITLES.items()},
       **{f"navigation {k}": w for k, w in NAVIGATION_TITLES.items()}, **{f"matched {k}": w for k, w in MATCHED.items()},
       **{f"kind {k}": w for k, w in REPORT_KINDS.items()}, **{f"sentence {k}": w for k, w in REPORT_SENTENCES.items()},
       "run kind": RUN_KIND, "step up": STEP_UP, "step down": STEP_DOWN}
#: Where dashboard/ may substitute by regular expression: display formatting of a label, the same for both readers.
FORMATTING_SUBSTITUTIONS = {("ui.py", "unbroken_hyphens"), ("ui.py", "chip")}


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_message_has_both_wordings(name):
    message = ALL[name]
    assert isinstance(message, Wording)
    assert message.researcher.strip() and message.clinician.strip(), name


@pytest.mark.parametrize("name", sorted(ALL))
def test_no_clinician_wording_holds_research_words(name):
    assert not forbidden_in(ALL[name].clinician), (name, ALL[name].clinician)


def test_no_clinician_status_holds_research_words():
    for status in [*STATUS.values(), UNKNOWN_STATUS]:
        for text in (status.verdict, status.before_sentence, status.after_words):
            assert not forbidden_in(text), text


@pytest.mark.parametrize("key", sorted(MESSAGES))
def test_a_clinician_wording_asks_only_for_values_the_researcher_wording_is_given(key):
    """Both wordings are filled from the same values: the clinician's takes none the caller would not pass."""
    message = MESSAGES[key]
    if key != "detail_for_researchers":  # the researcher's is evalcore's sentence itself
        assert fields(message.clinician) <= fields(message.researcher) | {"s", "verb", "ending"}, key


@pytest.mark.parametrize("reader, audience", [("researcher", "Researcher"), ("clinician", "Clinician")])
def test_say_picks_the_sessions_reader(monkeypatch, reader, audience):
    monkeypatch.setattr(wording, "audience", lambda: reader)
    assert say("metrics_label") == MESSAGES["metrics_label"].of(reader)
    assert say("no_query_matches", search="liver") == MESSAGES["no_query_matches"].of(reader).format(search="liver")
    assert words(Wording("a {x}", "b {x}"), x=1) == ("b 1" if reader == "clinician" else "a 1")


def test_say_knows_every_reader_of_the_switch():
    from dashboard.session import AUDIENCES

    assert set(AUDIENCES.values()) == set(wording.READERS)


def substitutions(path: Path) -> list[tuple[str, int]]:
    """(function, line) of every ``re.sub``/``pattern.sub``/``subn`` call in a module."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for function in [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]:
        for node in ast.walk(function):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("sub", "subn")):
                found.append((function.name, node.lineno))
    module_level = [node for node in tree.body if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef
                                                                 | ast.ClassDef)]
    for statement in module_level:
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in ("sub", "subn"):
                found.append(("<module>", node.lineno))
    return found


def test_nothing_in_the_dashboard_rewrites_a_message_by_regular_expression():
    """A clinician's words are written in dashboard/wording.py, not made from a researcher's by substitution: the only
    substitutions left in dashboard/ format a label the same for both readers."""
    rewriting = [(path.name, function, line) for path in sorted((ROOT / "dashboard").glob("*.py"))
                 for function, line in substitutions(path) if (path.name, function) not in FORMATTING_SUBSTITUTIONS]
    assert not rewriting, rewriting
    for path in [*sorted((ROOT / "dashboard").glob("*.py")), *sorted((ROOT / "pages").glob("*.py"))]:
        text = path.read_text(encoding="utf-8")
        for gone in ("PLAIN_REPORT_WORDS", "plain_report_text", "PLAIN_STATUS", "PLAIN_MATCHED", "PLAIN_UNKNOWN",
                     "PLAIN_PAGE_TITLES", "PLAIN_INTERVAL", "plain_refusal", "EXPECTED_MARK", "FOUND_MARK"):
            assert gone not in text, (path.name, gone)


#: Where a text is shown to a reader: app.py, the pages and the dashboard's modules other than wording.py itself.
SHOWING = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")),
           *sorted(path for path in (ROOT / "dashboard").glob("*.py") if path.name != "wording.py")]


def test_the_pages_pick_no_text_by_reader_inline():
    """Text chosen by reader comes from dashboard/wording.py: no page, and no module of dashboard/ but wording.py,
    writes its own pair on the spot (the for_reader of old, or a Wording of two texts)."""
    assert any(path.parent.name == "dashboard" for path in SHOWING)
    for path in SHOWING:
        text = path.read_text(encoding="utf-8")
        assert "for_reader(" not in text, path.name
        assert not re.search(r"\bWording\(\s*(?:f?[\"'])", text), path.name


def test_a_clinicians_report_row_is_written_for_a_clinician():
    demo = EmbeddedDemo().load()
    loaded = with_run(demo, b"DEMO_00001 Q0 DEMO_00002 1 1 my-run\n", "my-run.trec")
    row = plain_report_row(next(r for r in report_table(loaded) if r["file"] == "my-run.trec"))
    assert row == {"file": "my-run.trec", "kind": "result of a retrieval system 'my-run'", "rows read": "1 case",
                   "problems": "none"}
    assert plain_report_row({"file": "data/runs", "kind": "runs", "rows read": "0",
                             "problems": "no run files: the leaderboard computes the Table-1 baselines"})["problems"] \
        == "no results of retrieval systems: the comparison uses the reference systems"
    mixed = plain_report_row({"file": "names.csv", "kind": "concept names", "rows read": "3",
                              "problems": "3 of 4 images have no caption; 2 concept IDs have no name: C0003486, "
                                          "C0006142; the knowledge graph (2 nodes) names none of the concepts"})
    assert mixed["problems"] == ("3 of 4 images have no caption; a detail for the research team (the researcher view "
                                 "shows it in full)")
    assert not any(forbidden_in(text) for text in mixed.values())


CONCEPT_SETS = b"ID,CUIs\nq,C0040405;C0042449\nx,C0040405\n"
#: One refused file of each kind a clinician may load, and the refusal written for the clinician, by hand.
REFUSED = {
    "concept sets": (with_new_concepts, "mine.csv", b"ID,CUIs\nq,C12\n",
                     "mine.csv, line 2: expected concept codes of the form C + 7 digits or ontology IDs PREFIX:digits "
                     "(UBERON:0002298), found 'C12'"),
    "results of a retrieval system": (with_run, "system.txt", b"q Q0 x 1 3\n",
                                      "system.txt, line 1: expected result lines of a retrieval system, each of 6 "
                                      "fields separated by spaces: the case's image, Q0, an image found, its rank, its "
                                      "score and the system's name, found 5 fields"),
    "concept map": (with_kg, "map.csv", b"child,parent\nC0042449\n",
                    "map.csv, line 2: expected 2 fields: a concept, then a broader one (child,parent), found 1 field"),
    "labels": (with_labels, "labels.csv", b"ID,modality,organ\nq,CT\n",
               "labels.csv, line 2: expected 3 fields, as the first line names them (an empty one for no label), "
               "found 2"),
    "concept names": (with_names, "names.csv", b"CUI,Name\nC0042449,Veins,Vein\n",
                      "names.csv, line 2: expected 2 fields (concept code, name); quote names containing commas, "
                      "found 3 fields"),
    "captions": (with_captions, "notes.csv", b"ID,Caption\nq,CT\nq,MRI\n",
                 "notes.csv, line 3: expected each image once, found duplicate 'q'"),
    "images": (with_images, "pictures.zip", b"not a zip",
               "pictures.zip: expected a zip file of pictures, each named by its image ID (.png or .jpg)"),
    "picture similarity vectors": (lambda ws, data, name: with_embeddings(ws, data, name), "vectors.csv",
                                   b"ID,v0\nq,high\n",
                                   "vectors.csv, line 2: expected numbers as vector values (no text, NaN or infinity), "
                                   "found 'high'"),
    "ratings": (lambda ws, data, name: read_judgment_columns(data, name), "ratings.csv",
                b"judge,case,candidate,grade\nann,q,x,5\n",
                "ratings.csv, line 2: expected a rating 0 (not similar), 1 (somewhat similar), 2 (very similar) or "
                "skipped, found '5'"),
}


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_a_clinician_reads_a_refused_file_of_each_kind_as_written_for_a_clinician(kind):
    loader, name, data, clinician = REFUSED[kind]
    with pytest.raises(InputError) as refused:
        loader(with_concepts(Workspace(), CONCEPT_SETS, "concepts.csv"), data, name)
    said = refusal(refused.value)
    assert said.clinician == clinician and not forbidden_in(clinician)
    assert said.researcher == str(refused.value)


@pytest.mark.parametrize("reader", wording.READERS)
def test_a_refusal_is_said_to_the_sessions_reader(monkeypatch, reader):
    monkeypatch.setattr(wording, "audience", lambda: reader)
    error = InputError("gt.csv", 2, "a list of CUIs (C + 7 digits)", "'C12'",
                       plain_expected="a list of concept codes (C + 7 digits)")
    assert words(refusal(error)) == (str(error) if reader == "researcher" else
                                     "gt.csv, line 2: expected a list of concept codes (C + 7 digits), found 'C12'")


def test_a_refusal_without_parts_is_said_sentence_by_sentence():
    """Another error than an InputError has no parts: the file as written, then its sentence where it is plain."""
    assert refusal(CBIRLensError("x.zip: unsafe path '../a.png' in archive")).clinician == \
        "x.zip: unsafe path '../a.png' in archive"
    assert refusal(CBIRLensError("c.csv: no embedding ID matches an image of c.csv")).clinician == \
        "c.csv: a detail for the research team (the researcher view shows it in full)"
    assert refusal(InputError("c.csv", 4, "a CUI", "x")).clinician == \
        "c.csv, line 4: a detail for the research team (the researcher view shows it in full)"
