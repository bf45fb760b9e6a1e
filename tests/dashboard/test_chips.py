"""Concept chips wrap between words, never at a hyphen inside one ("X-" above "Ray Computed Tomography" in a narrow
column), on every page that draws them, while the names as data keep their typed hyphen."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dashboard.ui import NO_BREAK_SPACE, WORD_JOINER, chip, unbroken_hyphens
from tests.conftest import ROOT, open_page

#: A chip's label in a page's markdown (an escaped "]" does not end it).
CHIP = re.compile(r":[a-z]+-background\[((?:\\.|[^\]\\])*)\]")


@pytest.mark.parametrize(("text", "shown"), [
    ("X-Ray Computed Tomography", f"X-{WORD_JOINER}Ray Computed Tomography"),
    ("Non-small-cell lung carcinoma", f"Non-{WORD_JOINER}small-{WORD_JOINER}cell lung carcinoma"),
    ("Guillain–Barré syndrome", f"Guillain–{WORD_JOINER}Barré syndrome"),
    ("(X-Ray)", f"(X-{WORD_JOINER}Ray)"),
    ("Head - CT", "Head - CT"),  # a dash between spaces: the line breaks at the spaces, as it should
    ("-5 and 7-", "-5 and 7-"),  # a dash at a word's edge joins nothing
    ("Magnetic Resonance Imaging", "Magnetic Resonance Imaging"),
])
def test_a_hyphen_inside_a_word_is_joined_to_the_word_after_it(text, shown):
    assert unbroken_hyphens(text) == shown


@given(st.text(alphabet=st.sampled_from("ab -–\u2010(\n")))
def test_the_joiner_is_all_that_is_added_and_follows_each_dash_inside_a_word(text):
    shown = unbroken_hyphens(text)
    assert shown.replace(WORD_JOINER, "") == text
    assert not re.search(r"(?<=\S)[-–\u2010](?=[^\s\u2060])", shown)


def test_a_chip_keeps_its_hyphenated_word_on_one_line():
    assert (chip("X-Ray Computed Tomography (C0040405)", "blue")
            == f":blue-background[X\\-{WORD_JOINER}Ray Computed Tomography \\(C0040405\\)]")


def test_a_chip_of_two_words_stays_on_one_line_and_a_longer_one_wraps_between_words():
    """Screenshot review (issue 36, eighth pass): "CT scan" split at a line's end read as two chips."""
    assert chip("CT scan", "blue") == f":blue-background[CT{NO_BREAK_SPACE}scan]"
    assert chip("Portal vein", "gray") == f":gray-background[Portal{NO_BREAK_SPACE}vein]"
    assert chip("Right lobe of liver", "blue") == ":blue-background[Right lobe of liver]"
    assert chip("Hepatic", "blue") == ":blue-background[Hepatic]"


def test_a_chip_may_break_before_its_bracketed_id_or_marker():
    """Screenshot review at 900 px (issue 36, ninth pass): "Neoplasms (C0027651)" kept whole broke inside its ID."""
    assert chip("Neoplasms (C0027651)", "blue") == ":blue-background[Neoplasms \\(C0027651\\)]"
    assert chip("Portal vein (C0032718)", "blue") == f":blue-background[Portal{NO_BREAK_SPACE}vein \\(C0032718\\)]"
    assert (chip("CT scan (caption: history only)", "gray")
            == f":gray-background[CT{NO_BREAK_SPACE}scan \\(caption\\: history only\\)]")


def test_the_case_view_chips_join_x_ray_and_the_workspace_keeps_the_typed_name():
    app = open_page("pages/case_view.py")
    labels = [label for m in app.markdown for label in CHIP.findall(m.value)]
    hyphenated = [label for label in labels if "Computed Tomography" in label]
    assert hyphenated, labels  # the demo's first case shows X-Ray Computed Tomography in the query and results
    assert all(label.startswith(f"X\\-{WORD_JOINER}Ray Computed Tomography") for label in hyphenated), hyphenated
    assert app.session_state["workspace"].names["C0040405"] == "X-Ray Computed Tomography"


def test_only_the_shared_chip_draws_a_coloured_background():
    # A page that built its own chip would break at its hyphens again.
    sources = [ROOT / "app.py", *(ROOT / "dashboard").glob("*.py"), *(ROOT / "pages").glob("*.py")]
    drawing = [path.relative_to(ROOT).as_posix() for path in sources if "-background[" in path.read_text("utf-8")]
    assert drawing == ["dashboard/ui.py"]
