"""Concept sets: ROCOv2 CSV ``ID,CUIs`` (``;``-joined) or ImageCLEF ``ID<TAB>C1,C2``; a concept is a CUI (``C`` + 7
digits) or an ontology ID ``PREFIX:digits`` (``UBERON:0002298``, as ``extract --ontology-ids`` writes)."""

from __future__ import annotations

import re
from functools import partial

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalcore.data import ConceptSets
from evalcore.errors import InputError
from evalcore.readers.columnar import (
    LineIndex,
    Rows,
    fast_or_by_lines,
    first_repeated,
    frozensets,
    line_column,
    matches,
    python_line_column,
    rows_of_lines,
    rows_of_records,
    take,
    universal_newlines,
)
from evalcore.readers.files import Source, read_checked_bytes
from evalcore.readers.lines import (
    CONCEPT_LIST_COLUMNS,
    CONCEPT_TOKEN,
    check_delimiter,
    check_id,
    check_not_foreign_header,
    csv_line,
    first_line_of,
    is_concept_id,
)

MAX_CONCEPTS_PER_IMAGE = 500

CONCEPT_ID_EXPECTED = "CUIs of the form C + 7 digits or ontology IDs PREFIX:digits (UBERON:0002298)"
#: :data:`CONCEPT_ID_EXPECTED` for a reader who is not a researcher.
PLAIN_CONCEPT_ID = "concept codes of the form C + 7 digits or ontology IDs PREFIX:digits (UBERON:0002298)"


def check_concepts_readable(concepts: ConceptSets, display: str) -> None:
    """Refuse concept sets that :func:`read_concepts` would refuse (too many concepts for an image, an ID that is
    neither a CUI nor PREFIX:digits), so that a writer (``extract``) never writes a file ``evaluate`` refuses.

    >>> check_concepts_readable(ConceptSets(("a",), (frozenset({"C0000001", "UBERON:1"}),), "x"), "captions.csv")
    >>> try:
    ...     check_concepts_readable(ConceptSets(("a",), (frozenset({"DOID:0001", "MESH:D012345"}),), "x"), "names.csv")
    ... except InputError as error:
    ...     print(error.found)
    'MESH:D012345' for image 'a'
    """
    for image_id, concepts_of_image in zip(concepts.ids, concepts.sets):
        if len(concepts_of_image) > MAX_CONCEPTS_PER_IMAGE:
            raise InputError(display, None, f"at most {MAX_CONCEPTS_PER_IMAGE} concepts per image (what a concepts "
                             f"file may hold)", f"{len(concepts_of_image):,} for image {image_id!r}",
                             plain_expected=f"at most {MAX_CONCEPTS_PER_IMAGE} concepts per image")
        for concept in sorted(concepts_of_image):
            if not is_concept_id(concept.upper()):
                raise InputError(display, None, CONCEPT_ID_EXPECTED, f"{concept[:60]!r} for image {image_id!r}",
                                 plain_expected=PLAIN_CONCEPT_ID)


def _cui_set(raw: str, separators: str, display: str, line: int) -> frozenset[str]:
    tokens = [t.strip() for t in re.split(f"[{re.escape(separators)}]", raw)] if raw.strip() else []
    if len(tokens) > MAX_CONCEPTS_PER_IMAGE:
        raise InputError(display, line, f"at most {MAX_CONCEPTS_PER_IMAGE} concepts per image", f"{len(tokens)}",
                         plain_expected=f"at most {MAX_CONCEPTS_PER_IMAGE} concepts per image")
    cuis = set()
    for token in tokens:
        cui = token.upper()
        if not is_concept_id(cui):
            shown = token if token else "an empty CUI token"
            raise InputError(display, line, CONCEPT_ID_EXPECTED, repr(shown)[:60], plain_expected=PLAIN_CONCEPT_ID)
        cuis.add(cui)
    return frozenset(cuis)


def read_concepts(source: Source, name: str | None = None) -> ConceptSets:
    """Read concept sets: ROCOv2 CSV ``ID,CUIs`` (``;``-joined) or ImageCLEF ``ID<TAB>C1,C2``. A concept is a CUI
    (``C`` + 7 digits) or an ontology ID ``PREFIX:digits`` (``UBERON:0002298``), upper-cased; at most
    :data:`MAX_CONCEPTS_PER_IMAGE` per image.

    Lines of the usual form (an ID, then CUIs) are split and checked as arrays; any other
    line (a header, padded fields, an error) goes through the definition's per-row functions,
    which name the first offending line. Files with quoted fields are read as CSV records,
    every one through those functions.

    >>> c = read_concepts(b"ID,CUIs\\nimg1,C0040405;c0817096\\nimg2,\\n", "gt.csv")
    >>> c.ids, sorted(c["img1"]), c["img2"]
    (('img1', 'img2'), ['C0040405', 'C0817096'], frozenset())
    """
    data, display = read_checked_bytes(source, name)
    first_line, first = first_line_of(data)
    check_delimiter(first, first_line, display, (",", "\t"), "'ID,CUIs' (or ImageCLEF 'ID<TAB>C1,C2')")
    check_not_foreign_header(first, first_line, display, "concept sets", "rows 'ID,CUIs'", "\t" if "\t" in first else ",")
    tab = "\t" in first
    return fast_or_by_lines(_concepts_by_columns, _concepts_by_lines, data, display, tab)


def _concepts_by_lines(text: str, display: str, tab: bool) -> ConceptSets:
    """The concept sets as Python splits them: a CSV file's records (a quoted field may span lines), a tab-separated
    file's lines split at line feeds."""
    if tab:
        return _concepts_of_rows(_concept_lines(*python_line_column(text.encode("utf-8")), display, tab), display, tab)
    return _concepts_of_rows(rows_of_records(text, display), display, tab)


def _concept_id(fields: list[str], display: str, line: int) -> tuple[str, str]:
    """The checked ID of a concept row and its raw CUI field."""
    if len(fields) == 1:
        if ";" in fields[0] or "|" in fields[0]:
            raise InputError(display, line, "2 fields 'ID,CUIs' separated by ','", repr(fields[0])[:60],
                             plain_expected="2 fields separated by ',': an image ID, then its concept codes")
        fields = [fields[0], ""]
    if len(fields) != 2:
        raise InputError(display, line, "2 fields (ID and CUIs)", f"{len(fields)} fields",
                         plain_expected="2 fields: an image ID, then its concept codes")
    return check_id(fields[0], display, line), fields[1]


def _repeated_concept_id(display: str, line: int, image_id: str, earlier: int) -> InputError:
    return InputError(display, line, f"a new ID ({image_id!r} already on line {earlier})", "a duplicate",
                      plain_expected=f"each image once ({image_id!r} already on line {earlier})")


# One row of the usual form: an ID (no whitespace or comma; no ';' or '|' when alone), then CUIs, all ASCII.
_CONCEPT_LINE = {
    False: rf"^(?:[!-+\--:<-{{}}~]{{1,300}}|[!-+\--~]{{1,300}},(?:{CONCEPT_TOKEN}(?:;{CONCEPT_TOKEN})*)?)$",
    # A tab-separated line is stripped first: "ID<TAB>" is the ID alone, so it may not hold ';' or '|' either.
    True: rf"^(?:[!-:<-{{}}~]{{1,300}}\t?|[!-~]{{1,300}}\t{CONCEPT_TOKEN}(?:[,;]{CONCEPT_TOKEN})*)$",
}


def _concepts_by_columns(data: bytes, display: str, tab: bool) -> ConceptSets | None:
    """The concept sets read from the lines, those of the usual form as arrays; None for a CSV file with quotes."""
    if not tab and b'"' in data:
        return None
    # A tab-separated file is split at line feeds only: a lone carriage return is whitespace within its line.
    return _concepts_of_rows(_concept_lines(*line_column(data if tab else universal_newlines(data)), display, tab),
                             display, tab)


def _concept_lines(column: pa.ChunkedArray, index: LineIndex, display: str, tab: bool) -> Rows:
    """The lines as rows, those of the usual form (an ID, then at most 499 concepts) read as arrays."""
    usual = matches(column, _CONCEPT_LINE[tab])
    usual &= pc.count_substring_regex(column, "[,;]" if tab else ";").to_numpy() < MAX_CONCEPTS_PER_IMAGE
    return rows_of_lines(column, index, usual, partial(_concept_line_fields, display=display, tab=tab))


def _concepts_of_rows(rows: Rows, display: str, tab: bool) -> ConceptSets:
    """The definition: an optional header on the first row, then an image ID and its concepts a row, each ID once;
    the first offending row is named (a repeated ID before it first)."""
    column = rows.column
    delimiter = "\t" if tab else ","
    ids = pc.replace_substring_regex(column, f"{delimiter}.*", "", max_replacements=1).to_pylist()
    cuis = pc.utf8_upper(pc.replace_substring_regex(column, f"^[^{delimiter}]*{delimiter}?", "", max_replacements=1))
    sets = frozensets(pc.split_pattern_regex(cuis, "[,;]" if tab else ";"))
    kept = np.ones(len(ids), dtype=bool)
    header_seen = False
    failure: tuple[int, InputError, bool] | None = None
    # The unusual rows, and the first usual one (it may be the header), in line order.
    for row in rows.scanned:
        try:
            fields = rows.fields(row)
        except InputError as error:
            failure = (row, error, False)
            break
        if fields is None:
            kept[row] = False
            continue
        if not header_seen:
            header_seen = True
            if _is_concept_header(fields):
                kept[row] = False
                continue
        if rows.usual[row]:
            continue
        line = int(rows.numbers[row])
        try:
            ids[row], raw = _concept_id(fields, display, line)
        except InputError as error:
            failure = (row, error, False)
            break
        try:
            sets[row] = _cui_set(raw, ",;" if tab else ";", display, line)
        except InputError as error:
            failure = (row, error, True)
            break
    end = len(ids) if failure is None else failure[0] + failure[2]
    kept[end:] = False
    chosen = np.flatnonzero(kept)
    chosen_ids = take(ids, chosen) if len(chosen) < len(ids) else ids
    repeat = first_repeated(chosen_ids)
    if repeat is not None:
        later, earlier = (int(rows.numbers[chosen[position]]) for position in repeat)
        raise _repeated_concept_id(display, later, chosen_ids[repeat[0]], earlier)
    if failure is not None:
        raise failure[1]
    if not len(chosen):
        raise InputError(display, None, "at least one row 'ID,CUIs'", "no data rows",
                         plain_expected="at least one row of an image ID and its concept codes")
    chosen_sets = take(sets, chosen) if len(chosen) < len(sets) else sets
    return ConceptSets(tuple(chosen_ids), tuple(chosen_sets), display)


def _concept_line_fields(content: str, line: int, display: str, tab: bool) -> list[str] | None:
    """The fields of one concept line as the definition splits it (None: a blank row): a CSV row, or a line split at
    tabs, stripped, into at most two fields."""
    if not tab:
        return csv_line(content, line, display)
    content = content.strip()
    if not content:
        return None
    fields = content.split("\t")
    if len(fields) > 2:
        raise InputError(display, line, "ID<TAB>CUIs", f"{len(fields)} tab-separated fields",
                         plain_expected="an image ID, a tab, then its concept codes")
    return [f.strip() for f in fields]


def _is_concept_header(fields: list[str]) -> bool:
    return len(fields) >= 2 and not is_concept_id(fields[1].split(";")[0].strip().upper()) and (
        fields[0].lower() in {"id", "image", "image_id", "imageid"} or fields[1].lower() in CONCEPT_LIST_COLUMNS
    )
