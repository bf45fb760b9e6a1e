"""Inputs on which a vectorised reader once differed from the line-by-line definition (found by Hypothesis)."""

from __future__ import annotations

import pytest

from . import line_by_line
from .test_vectorised_readers import concepts_as_list, outcome


@pytest.mark.parametrize("data", [
    b"ID\tCUIs\nimg1\na;b\t\n",  # "a;b<TAB>" is stripped to the lone field "a;b": an error, as in a CSV file
    b"ID\tCUIs\na|b\t\nimg1\tC0000001\n",
    b"ID\tCUIs\nimg1\t\nab\tC0000001\n",  # "img1<TAB>" is the ID alone, with no concepts
    b"ID\tCUIs\na;b\tC0000001\n",
])
def test_tab_separated_concepts_with_an_empty_last_field(data):
    assert outcome(concepts_as_list, data, "gt.tsv") == outcome(line_by_line.read_concepts, data, "gt.tsv")
