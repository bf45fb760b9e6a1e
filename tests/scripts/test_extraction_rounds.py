"""The tuning rounds' recorded results are data, not code (issue 66): docs/extraction_rounds.json holds the tables of
rules and hand readings and the document around them (headings, prose, which table where) that
scripts/extraction_evidence.py renders into docs/EXTRACTION.md; the script reads each table with ``recorded(NAME)``,
and no long literal table or prose creeps back into the script."""

from __future__ import annotations

import ast
import importlib.util
import json
import re

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "scripts" / "extraction_evidence.py"
RECORDED = ROOT / "docs" / "extraction_rounds.json"
#: The most lines a module-level assignment of the script may span: a longer literal is recorded data.
LONGEST_ASSIGNMENT = 20


#: The most lines the script may have: it measures and renders; what it shows of earlier rounds is recorded data.
LONGEST_SCRIPT = 500
#: The kinds of a document's parts that name a table, and the other keys each may carry.
PART_KINDS = {"rules": set(), "readings": {"when", "valid"}, "table": {"columns"}, "negation_readings": set()}


def tables() -> dict:
    return json.loads(RECORDED.read_text(encoding="utf-8"))["tables"]


def document() -> list:
    return json.loads(RECORDED.read_text(encoding="utf-8"))["document"]


def named_by_the_document() -> set[str]:
    return {part[kind] for part in document() if isinstance(part, dict) for kind in PART_KINDS if kind in part} | {
        part["valid"] for part in document() if isinstance(part, dict) and "valid" in part}


def read_by_the_script() -> set[str]:
    return set(re.findall(r'\brecorded\("([A-Z_]+)"\)', SCRIPT.read_text(encoding="utf-8"))) | named_by_the_document()


def narrowest_row(recorded: dict, name: str, seen: tuple[str, ...] = ()) -> int:
    """The fewest cells a row of table ``name`` has once its splices are expanded (a splice cycle fails)."""
    assert name not in seen, f"tables splice each other: {[*seen, name]}"
    return min(len(row) if isinstance(row, list) else len(row["columns"]) if "columns" in row
               else narrowest_row(recorded, row["rows_of"], (*seen, name)) for row in recorded[name]["rows"])


def test_the_recorded_tables_are_rows_of_cells_or_of_another_table():
    recorded = tables()
    assert len(recorded) >= 80, "the check below is not vacuous"
    for name, table in recorded.items():
        assert table["rows"] and narrowest_row(recorded, name) >= 2, name
        for row in table["rows"]:
            if isinstance(row, dict):
                assert set(row) <= {"rows_of", "columns", "note"}, f"{name}: {row}"
                width = narrowest_row(recorded, row["rows_of"])
                assert all(isinstance(part, str) or 0 <= part < width for part in row.get("columns", ())), name
            else:
                assert all(type(cell) in (str, int) for cell in row), f"{name}: {row}"


def test_the_script_reads_every_recorded_table_and_reads_only_recorded_ones():
    recorded = tables()
    spliced = {row["rows_of"] for table in recorded.values() for row in table["rows"] if isinstance(row, dict)}
    read = read_by_the_script()
    assert read <= set(recorded), f"read but not recorded: {read - set(recorded)}"
    assert set(recorded) <= read | spliced, f"recorded but never read: {set(recorded) - read - spliced}"


def test_each_part_of_the_document_is_a_line_or_one_kind_of_table():
    parts = document()
    assert sum(isinstance(part, dict) for part in parts) >= 50, "the check below is not vacuous"
    for part in parts:
        if isinstance(part, dict):
            kinds = [kind for kind in PART_KINDS if kind in part]
            assert len(kinds) == 1 and set(part) - {kinds[0]} <= PART_KINDS[kinds[0]], part
        else:
            assert isinstance(part, str), part


def test_the_script_is_short():
    assert len(SCRIPT.read_text(encoding="utf-8").splitlines()) <= LONGEST_SCRIPT


def test_the_script_holds_no_long_literal_table():
    """A table of results belongs in docs/extraction_rounds.json: no module-level assignment of the script spans
    more than LONGEST_ASSIGNMENT lines."""
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    long = [(ast.unparse(node.targets[0] if isinstance(node, ast.Assign) else node.target), node.value.lineno,
             node.value.end_lineno - node.value.lineno + 1)
            for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None
            and node.value.end_lineno - node.value.lineno + 1 > LONGEST_ASSIGNMENT]
    assert not long, f"move these tables to docs/extraction_rounds.json and read them with recorded(): {long}"


@pytest.mark.slow
def test_the_loaded_tables_are_tuples_with_the_documents_figures():
    """The script's tables, as ``recorded`` loads them: tuples of tuples, the splices expanded, and the figures the
    document's prose quotes beside them (179 wrong negation decisions in eight readings)."""
    spec = importlib.util.spec_from_file_location("extraction_evidence", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for name in read_by_the_script():
        rows = script.recorded(name)
        assert isinstance(rows, tuple) and all(isinstance(row, tuple) for row in rows), name
    recorded = script.recorded
    assert recorded("SECOND_ROUND")[0] == ("before the round", "0.6522", "0.6684")
    assert sum(wrong for *_, wrong in recorded("EIGHT_NEGATION_READINGS")) == 179
    assert len(recorded("CLASS_LISTINGS_UNCHANGED")) == len(recorded("CLASSES_UNCHANGED")) == len(
        recorded("CLASSES_AT_ZERO")) + 2
    assert recorded("FIFTH_PASS_READING")[4:8] == recorded("CLASSES_AT_ZERO")
    assert all(row[4] == "-" for row in recorded("CLASSES_UNCHANGED")[1:-1])
    assert recorded("CLASS_LISTINGS_UNCHANGED")[0][5] == "the listing unchanged, entry for entry"
    assert "Of the 179 wrong decisions" in " ".join(script.recorded_document())


@pytest.mark.slow
def test_the_document_renders_into_the_generated_one_verbatim():
    """What the script shows of the recorded rounds stands in docs/EXTRACTION.md as the document lists it (the
    document is regenerated from the same data)."""
    spec = importlib.util.spec_from_file_location("extraction_evidence", SCRIPT)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert "\n".join(script.recorded_document()) in (ROOT / "docs" / "EXTRACTION.md").read_text(encoding="utf-8")
