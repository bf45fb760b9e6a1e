"""A list of concepts: CUIs separated by commas, semicolons, tabs, spaces or lines (the ``detection`` command's
``--subset``)."""

from __future__ import annotations

import re

from evalcore.errors import InputError
from evalcore.readers.files import Source, read_text
from evalcore.readers.lines import CUI_PATTERN, split_lines


def read_concept_list(source: Source, name: str | None = None) -> frozenset[str]:
    """The CUIs (C + 7 digits, upper-cased) of a concept list; any other token (a header, a name) is skipped.

    >>> sorted(read_concept_list(b"CUI\\nc0040405, C1306645;x\\n", "subset.csv"))
    ['C0040405', 'C1306645']
    """
    text, display = read_text(source, name)
    # (lines end at line feeds, as every reader's: str.splitlines would also break at a form feed or U+2028)
    concepts = {token.upper() for _, line in split_lines(text, display) for token in re.split(r"[,;\t\s]+", line)
                if CUI_PATTERN.match(token.upper())}
    if not concepts:
        raise InputError(display, None, "a list of CUIs (C + 7 digits)", "none",
                         plain_expected="a list of concept codes (C + 7 digits)")
    return frozenset(concepts)
