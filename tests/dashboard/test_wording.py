"""dashboard/wording.py: every message the two readers see is written once for each, a clinician's with none of the
research words the clinician's pages may not show, and nothing in dashboard/ rewrites a researcher's text for a
clinician by regular expression."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from dashboard import wording
from dashboard.wording import (
    EXPECTED,
    MATCHED,
    MESSAGES,
    NAVIGATION_TITLES,
    PAGE_TITLES,
    REPORT_KINDS,
    REPORT_SENTENCES,
    RUN_KIND,
    STATUS,
    UNKNOWN_STATUS,
    Wording,
    plain_refusal,
    plain_report_row,
    say,
    words,
)
from evalcore.app.sources import EmbeddedDemo
from evalcore.app.workspace import report_table, with_new_concepts, with_run
from evalcore.errors import CBIRLensError
from tests.conftest import ROOT
from tests.dashboard.test_app_audience import forbidden_in

ALL = {**{f"message {k}": w for k, w in MESSAGES.items()}, **{f"title {k}": w for k, w in PAGE_TITLES.items()},
       **{f"navigation {k}": w for k, w in NAVIGATION_TITLES.items()}, **{f"matched {k}": w for k, w in MATCHED.items()},
       **{f"kind {k}": w for k, w in REPORT_KINDS.items()}, **{f"sentence {k}": w for k, w in REPORT_SENTENCES.items()},
       **{f"expected {k}": w for k, w in EXPECTED.items()}, "run kind": RUN_KIND}
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
    assert wording.for_reader("r", "c") == ("c" if reader == "clinician" else "r")


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
                     "PLAIN_PAGE_TITLES", "PLAIN_INTERVAL"):
            assert gone not in text, (path.name, gone)


def test_the_pages_pick_no_text_by_reader_inline():
    """Text chosen by reader comes from dashboard/wording.py: no page writes its own pair with for_reader."""
    for path in sorted((ROOT / "pages").glob("*.py")):
        assert "for_reader(" not in path.read_text(encoding="utf-8"), path.name


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


def test_a_clinicians_refusal_keeps_the_file_and_says_what_was_expected_in_plain_words():
    with pytest.raises(CBIRLensError) as refused:
        with_new_concepts(EmbeddedDemo().load(), b"ID,CUIs\nx,C12\n", "bad-run.csv")
    reason = str(refused.value).removeprefix("bad-run.csv")
    said = "bad-run.csv" + plain_refusal(reason)
    assert said.startswith("bad-run.csv, line 2: expected concept codes") and not forbidden_in(said), said
    assert plain_refusal(", line 3: expected 6 fields, found 4 fields") == ", line 3: expected 6 fields, found 4 fields"
    assert not forbidden_in(plain_refusal(", line 3: expected a TREC run line, found 'x'"))
