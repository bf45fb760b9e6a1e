"""Concept names: CSV ``CUI,Name`` (ROCOv2 ``cui_mapping.csv``) or UMLS ``MRCONSO.RRF``."""

from __future__ import annotations

from functools import partial

import numpy as np
import pyarrow.compute as pc

from evalcore.errors import InputError
from evalcore.extraction.rule_files import name_size_refused, name_too_long
from evalcore.readers.columnar import (
    Rows,
    fast_or_by_lines,
    line_column,
    matches,
    rows_of_lines,
    rows_of_records,
    take,
    universal_newlines,
    upper_cuis,
)
from evalcore.readers.files import Source, read_checked_bytes
from evalcore.readers.lines import (
    CUI_PATTERN,
    NODE_FIELD,
    NODE_PATTERN,
    check_delimiter,
    check_not_foreign_header,
    concept_key,
    csv_line,
    csv_rows,
    first_line_of,
    pipe_separated,
    split_lines,
)


def read_concept_names(source: Source, name: str | None = None) -> dict[str, str]:
    """Read ``CUI,Name`` CSV (ROCOv2 ``cui_mapping.csv``) or UMLS ``MRCONSO.RRF`` (English preferred names).

    >>> read_concept_names(b"CUI,Canonical name\\nC0042449,Veins\\n", "names.csv")
    {'C0042449': 'Veins'}
    """
    data, display = read_checked_bytes(source, name)
    first_line, first = first_line_of(data)
    if first.count("|") >= 14 or display.lower().endswith(".rrf") or pipe_separated(first):
        return _read_mrconso(data.decode("utf-8"), display)
    check_delimiter(first, first_line, display, (",",), "'CUI,Name' (or MRCONSO.RRF)")
    check_not_foreign_header(first, first_line, display, "concept names", "rows 'CUI,Name' (or MRCONSO.RRF)")
    return fast_or_by_lines(_names_by_columns, _names_by_lines, data, display)


def read_names_to_find(source: Source, name: str | None = None) -> dict[str, str]:
    """Concept names to find concepts by (``extract``, :func:`evalcore.api.extract_concepts`, the dashboard's names
    upload): :func:`read_concept_names`, refusing a file that names no concept, since finding by it would give every
    image an empty concept set, and one with an empty name or a name of more than
    :data:`~evalcore.extraction.rule_files.MAX_NAME_WORDS` words, naming its line (the matcher's steps a caption
    word are bounded by that many).

    >>> read_names_to_find(b"CUI,Name\\n", "names.csv")
    Traceback (most recent call last):
    evalcore.errors.InputError: names.csv: expected at least one row 'CUI,Name' (or English MRCONSO.RRF rows), found none
    >>> read_names_to_find(b"CUI,Name\\nC0000001,Vein\\nC0000002," + b"x " * 100 + b"\\n", "names.csv")
    Traceback (most recent call last):
    evalcore.errors.InputError: names.csv, line 3: expected a name of at most 64 words, found 100 words
    >>> read_names_to_find(b"CUI,Name\\nC0000001,Vein\\nC0000002, \\n", "names.csv")
    Traceback (most recent call last):
    evalcore.errors.InputError: names.csv, line 3: expected a name for C0000002, found an empty name
    """
    data, display = read_checked_bytes(source, name)
    names = read_concept_names(data, display)
    if not names:
        raise InputError(display, None, "at least one row 'CUI,Name' (or English MRCONSO.RRF rows)", "none",
                         plain_expected="at least one row of a concept code and its name")
    for concept, label in names.items():
        if not label.strip():
            raise InputError(display, _line_of_name(data, display, concept, label), f"a name for {concept}",
                             "an empty name", plain_expected=f"a name to find {concept} by in the captions")
        if name_too_long(label):
            expected, found = name_size_refused(label)
            raise InputError(display, _line_of_name(data, display, concept, label), expected, found,
                             plain_expected=expected)
    return names


def _line_of_name(data: bytes, display: str, concept: str, label: str) -> int | None:
    """The line of the row that gave ``concept`` its name ``label`` in a names file (the last one that names it)."""
    text = data.decode("utf-8")
    first = first_line_of(data)[1]
    if first.count("|") >= 14 or display.lower().endswith(".rrf") or pipe_separated(first):
        rows = ((line, content.split("|")) for line, content in split_lines(text, display))
        return next((line for line, fields in reversed(list(rows))
                     if len(fields) >= 15 and fields[0] == concept and fields[14] == label), None)
    return next((line for line, fields in reversed(list(csv_rows(text, display)))
                 if len(fields) == 2 and concept_key(fields[0]) == concept and fields[1] == label), None)


def _names_by_lines(text: str, display: str) -> dict[str, str]:
    """The names of a file whose quoted fields the lines cannot split: its CSV records, each read by the definition."""
    return _names_of_rows(rows_of_records(text, display), display)


def _is_names_header(fields: list[str]) -> bool:
    """Whether a first row is a header: its first field is no concept ID, neither a CUI nor an ontology's
    "PREFIX:local" ID ("CUI,Canonical name", "id,name"; a file with no header may begin "UBERON:0000948,heart" or
    "MESH:D000001,Calcimycin", as the open KG's names do).

    >>> [_is_names_header(row) for row in (["CUI", "Canonical name"], ["UBERON:0000948", "heart"], ["c0018787", "x"])]
    [True, False, False]
    """
    node = fields[0].strip()
    return not CUI_PATTERN.match(node.upper()) and ":" not in node  # (every ontology ID holds its prefix's colon)


def _name_row(fields: list[str], display: str, line: int) -> tuple[str, str]:
    if len(fields) != 2:
        raise InputError(display, line, "2 fields (CUI,Name); quote names containing commas",
                         f"{len(fields)} field{'s' if len(fields) != 1 else ''}",
                         plain_expected="2 fields (concept code, name); quote names containing commas")
    node = fields[0]
    if not NODE_PATTERN.match(node):
        raise InputError(display, line, "a concept ID without spaces", repr(node)[:60],
                         plain_expected="a concept code without spaces")
    return concept_key(node), fields[1]


# A usual line: a node ID, then a name that needs no stripping (quoted or not; a quoted name may hold commas and
# doubled quotes).
_NAME_LINE = NODE_FIELD + r',(?:[!#-+\--~](?:[^",]*[!#-+\--~])?|"(?:[!#-~]|"")(?:(?:[^"]|"")*(?:[!#-~]|""))?"|)$'


def _names_by_columns(data: bytes, display: str) -> dict[str, str] | None:
    """The names read from the lines, those of the usual form as arrays; None where a quoted field goes on over the
    next line (the CSV records are read then)."""
    column, index = line_column(universal_newlines(data))
    try:
        return _names_of_rows(rows_of_lines(column, index, matches(column, "^" + _NAME_LINE),
                                            partial(csv_line, display=display)), display)
    except InputError as error:
        if error.expected == "well-formed CSV" and '"' in index.text(error.line):
            return None  # a quoted field may go on over the next line: read the file as a whole
        raise  # (a line without a quote is read alike as a record: a field over the CSV limit is refused now)


def _names_of_rows(rows: Rows, display: str) -> dict[str, str]:
    """The definition: an optional header on the first row, then 'CUI,Name' a row (a later row naming a concept again
    gives its name)."""
    column = rows.column
    keep = rows.usual.copy()
    nodes = upper_cuis(pc.replace_substring_regex(column, ",.*", "", max_replacements=1)).to_pylist()
    raw = pc.replace_substring_regex(column, "^[^,]*,", "", max_replacements=1)
    quoted = pc.starts_with(raw, '"')
    labels = pc.if_else(quoted, pc.replace_substring(pc.utf8_slice_codeunits(raw, 1, -1), '""', '"'), raw).to_pylist()
    header_done = False
    for row in rows.scanned:
        fields = rows.fields(row)
        if fields is None:
            continue
        if not header_done:
            header_done = True
            if _is_names_header(fields):
                keep[row] = False
                continue
        if not rows.usual[row]:
            nodes[row], labels[row] = _name_row(fields, display, int(rows.numbers[row]))
            keep[row] = True
    kept = np.flatnonzero(keep)
    return dict(zip(take(nodes, kept), take(labels, kept)))


def _read_mrconso(text: str, display: str) -> dict[str, str]:
    """MRCONSO columns: CUI|LAT|TS|LUI|STT|SUI|ISPREF|AUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|..."""
    preferred: dict[str, tuple[int, str]] = {}
    for line, content in split_lines(text, display):
        fields = content.split("|")
        if len(fields) < 15:
            raise InputError(display, line, "MRCONSO.RRF rows with at least 15 '|'-separated fields", f"{len(fields)}",
                             plain_expected="rows of at least 15 fields separated by '|' (a names file of the "
                                            "research team's)")
        cui, language, term_status, string_type, is_preferred, label = (
            fields[0], fields[1], fields[2], fields[4], fields[6], fields[14],
        )
        if language != "ENG" or not CUI_PATTERN.match(cui):
            continue
        # The concept's preferred name is TS=P, STT=PF, ISPREF=Y; fall back to any English string.
        score = (term_status == "P") * 4 + (string_type == "PF") * 2 + (is_preferred == "Y")
        if cui not in preferred or score > preferred[cui][0]:
            preferred[cui] = (score, label)
    return {cui: label for cui, (_, label) in preferred.items()}
