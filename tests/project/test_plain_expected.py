"""Issue 66: a refused file is worded for each reader where it is refused. Every InputError raised by the readers of
the files a user loads (evalcore/readers/), by the check of a file's bytes (evalcore/errors.py), by the workspace
the dashboard loads files into (evalcore/app/workspace.py) and by the loaders it calls (evalcore/io/: a labels file of
another collection, refused on the Data page) passes ``plain_expected``, the wording of what was expected for a reader
who is not a researcher, which the dashboard's :func:`dashboard.wording.refusal` shows a clinician (one without it is
said to a clinician as "a detail for the research team").

tests/readers/test_plain_wordings.py reads a malformed file of each kind through the dashboard's loaders and checks
the wording itself; this check reads the source, so that a raise site added later is written for both readers too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Where the InputErrors a user's file can meet through the dashboard's loaders are raised.
MODULES = sorted([*(ROOT / "evalcore" / "readers").glob("*.py"), *(ROOT / "evalcore" / "io").glob("*.py"),
                  ROOT / "evalcore" / "errors.py", ROOT / "evalcore" / "app" / "workspace.py"])


def input_errors(path: Path) -> list[ast.Call]:
    """The ``InputError(...)`` calls of a module."""
    return [node for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "InputError"]


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_input_error_is_worded_for_a_reader_who_is_not_a_researcher(path):
    unworded = [call.lineno for call in input_errors(path)
                if not any(keyword.arg == "plain_expected" for keyword in call.keywords)]
    assert not unworded, f"{path.relative_to(ROOT)}: InputError without plain_expected on lines {unworded}"


def test_the_check_reads_raise_sites():
    """The walk finds the raise sites it is about (a renamed class would make every module pass unread)."""
    assert sum(len(input_errors(path)) for path in MODULES) > 100
    assert input_errors(ROOT / "evalcore" / "io" / "loading.py"), "evalcore/io/ is read"

