"""The documents stay short and true (issue 66): the README is a short entry page that keeps its two set-up
commands, every relative link of the README and docs/ reaches a file of the repository, nothing cites the design
file outside the repository any more, and every figure of docs/LIMITS.md that names a constant is that constant."""

from __future__ import annotations

import importlib
import re
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = ROOT / "README.md"
DOCUMENTS = [README, *sorted((ROOT / "docs").glob("*.md"))]
LIMITS = (ROOT / "docs" / "LIMITS.md").read_text(encoding="utf-8")
#: Folders that hold no file of the project (built, installed or cached copies).
NOT_THE_PROJECT = {".git", "__pycache__", ".venv", "venv", "build", "dist", "node_modules", "site-packages"}
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def prose(text: str) -> str:
    """The text without fenced code blocks and code spans, where a bracket is code, not a link."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def relative_links(path: Path) -> list[str]:
    """The targets of the Markdown links and images of ``path`` that point into the repository (no scheme, no bare
    anchor), without their anchors."""
    targets = re.findall(r"!?\[[^\]\n]*\]\(([^)\s]+)\)", prose(path.read_text(encoding="utf-8")))
    return [target.split("#", 1)[0] for target in targets
            if not re.match(r"[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")]


def project_files(*suffixes: str) -> list[Path]:
    return [path for path in ROOT.rglob("*") if path.suffix in suffixes and path.is_file()
            and not NOT_THE_PROJECT & set(path.relative_to(ROOT).parts)
            and not any(part.endswith(".egg-info") for part in path.relative_to(ROOT).parts)]


# --- the README -----------------------------------------------------------------------------------------------------

def test_the_readme_is_under_250_lines():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines < 250, f"README.md has {lines} lines: move the detail to docs/ and link it"


def test_the_readme_keeps_its_two_set_up_commands_and_the_test_lanes():
    text = README.read_text(encoding="utf-8")
    set_up = text[text.index("## Set up (two commands)\n"):]
    set_up = set_up[:set_up.index("\n## ", 1)]
    commands = re.findall(r"^```bash\n(.*?)\n```", set_up, flags=re.S | re.M)
    assert commands == ["pip install -r requirements.txt && streamlit run app.py", "python -m pytest -q"]
    assert '`python -m pytest -q -m "not slow"`' in text and "docs/TESTING.md" in text


# --- links ----------------------------------------------------------------------------------------------------------

def test_the_documents_have_relative_links():
    """The check below is not vacuous."""
    assert len(relative_links(README)) >= 10
    assert sum(len(relative_links(path)) for path in DOCUMENTS) >= 50


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_of_the_repository(document: Path):
    broken = [target for target in relative_links(document) if not (document.parent / target).exists()]
    assert not broken, f"{document.relative_to(ROOT)} links to files that do not exist: {broken}"


def test_nothing_cites_the_design_file_outside_the_repository():
    """The definitions live in docs/DESIGN.md; the first design, outside the repository, is cited nowhere."""
    outside = "../shared/" + "DESIGN"  # (written in two parts, so that this file does not cite it either)
    files = project_files(".py", ".md")
    assert len(files) >= 100, "the search found too few files to mean anything"
    citing = [str(path.relative_to(ROOT)) for path in files if outside in path.read_text(encoding="utf-8")]
    assert not citing, f"cite docs/DESIGN.md instead: {citing}"


# --- docs/LIMITS.md -------------------------------------------------------------------------------------------------

def limit_rows() -> list[tuple[str, str, str]]:
    """(what, bound, set by) of every row of the tables of docs/LIMITS.md."""
    rows = []
    for line in LIMITS.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        if line.startswith("|") and len(cells) == 4 and cells[0] not in ("what", "---|---|---|---"):
            if not set(cells[0]) <= set("-|"):
                rows.append((cells[0], cells[1], cells[2]))
    return rows


def stated_quantity(bound: str) -> int:
    """The first number of a bound with its unit: "8 GiB, ..." 8 GiB, "1,000,000,000 at most" 10^9, "10 s" 10."""
    match = re.search(r"(?P<number>\d[\d,]*)(?: (?P<unit>[KMG]iB)\b)?", bound)
    assert match, bound
    return int(match["number"].replace(",", "")) * UNITS.get(match["unit"] or "", 1)


def constant(dotted: str) -> object:
    module, name = dotted.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


CONSTANT = re.compile(r"`((?:evalcore|dashboard)(?:\.\w+)+\.[A-Z][A-Z0-9_]*)`")
CHECKED = [(what, bound, CONSTANT.findall(set_by)) for what, bound, set_by in limit_rows() if CONSTANT.search(set_by)]


def test_limits_rows_name_their_constants():
    """The check below is not vacuous, and each row names at most one constant (the figure it states)."""
    assert len(limit_rows()) >= 50 and len(CHECKED) >= 40, (len(limit_rows()), len(CHECKED))
    assert all(len(named) == 1 for _, _, named in CHECKED)


@pytest.mark.parametrize(("what", "bound", "named"), CHECKED, ids=[named[0] for _, _, named in CHECKED])
def test_a_limit_is_the_constant_that_sets_it(what, bound, named):
    assert stated_quantity(bound) == constant(named[0]), f"docs/LIMITS.md, {what!r}: {bound!r} is not {named[0]}"


def test_the_upload_limit_is_streamlits_setting():
    row = next(bound for what, bound, set_by in limit_rows() if "server.maxUploadSize" in set_by)
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert stated_quantity(row) == config["server"]["maxUploadSize"] << 20
