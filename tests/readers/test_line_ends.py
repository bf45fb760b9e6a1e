"""Lines end only at line feeds (and a carriage return before one, or alone, where a format says so): no reader splits
text with ``str.splitlines``, which also breaks at a form feed, U+2028, U+0085 and the separators U+001C..U+001E, so
that a field holding one of them would be read as two lines (issue 67)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from evalcore.readers.concept_lists import read_concept_list

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("folder", ["evalcore/readers", "evalcore/extraction"])
def test_no_reader_splits_lines_with_splitlines(folder: str) -> None:
    calls = [f"{path.relative_to(ROOT)}:{node.lineno}" for path in sorted((ROOT / folder).glob("*.py"))
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "splitlines"]
    assert calls == []


@pytest.mark.parametrize("inside", ["\u2028", "\x0c", "\x1c", "\x85", "\r"])
def test_a_concept_list_reads_the_same_whatever_separates_its_cuis(inside: str) -> None:
    data = f"CUI\nC0040405{inside}c1306645\nC0000001,x{inside}\n".encode()
    assert read_concept_list(data, "subset.csv") == {"C0040405", "C1306645", "C0000001"}
