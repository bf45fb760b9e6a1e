"""Concept sets: ROCOv2 CSV ``ID,CUIs`` (``;``-joined) or ImageCLEF ``ID<TAB>C1,C2``; a concept is a CUI (``C`` + 7
digits) or an ontology ID ``PREFIX:digits`` (``UBERON:0002298``, as ``extract --ontology-ids`` writes)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import numpy as np
import pyarrow.compute as pc

from evalcore.data import ConceptSets
from evalcore.errors import InputError
from evalcore.readers.columnar import fast_or_by_lines, first_repeated, frozensets, line_column, take, universal_newlines
from evalcore.readers.files import Source, read_checked_bytes
from evalcore.readers.lines import (
    CONCEPT_LIST_COLUMNS,
    CONCEPT_TOKEN,
    check_delimiter,
    check_id,
    check_not_foreign_header,
    csv_line,
    csv_rows,
    first_line_of,
    is_concept_id,
    split_lines,
)

MAX_CONCEPTS_PER_IMAGE = 500

CONCEPT_ID_EXPECTED = "CUIs of the form C + 7 digits or ontology IDs PREFIX:digits (UBERON:0002298)"


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
                             f"file may hold)", f"{len(concepts_of_image):,} for image {image_id!r}")
        for concept in sorted(concepts_of_image):
            if not is_concept_id(concept.upper()):
                raise InputError(display, None, CONCEPT_ID_EXPECTED, f"{concept[:60]!r} for image {image_id!r}")


def _cui_set(raw: str, separators: str, display: str, line: int) -> frozenset[str]:
    tokens = [t.strip() for t in re.split(f"[{re.escape(separators)}]", raw)] if raw.strip() else []
    if len(tokens) > MAX_CONCEPTS_PER_IMAGE:
        raise InputError(display, line, f"at most {MAX_CONCEPTS_PER_IMAGE} concepts per image", f"{len(tokens)}")
    cuis = set()
    for token in tokens:
        cui = token.upper()
        if not is_concept_id(cui):
            shown = token if token else "an empty CUI token"
            raise InputError(display, line, CONCEPT_ID_EXPECTED, repr(shown)[:60])
        cuis.add(cui)
    return frozenset(cuis)


def read_concepts(source: Source, name: str | None = None) -> ConceptSets:
    """Read concept sets: ROCOv2 CSV ``ID,CUIs`` (``;``-joined) or ImageCLEF ``ID<TAB>C1,C2``. A concept is a CUI
    (``C`` + 7 digits) or an ontology ID ``PREFIX:digits`` (``UBERON:0002298``), upper-cased; at most
    :data:`MAX_CONCEPTS_PER_IMAGE` per image.

    Lines of the usual form (an ID, then CUIs) are split and checked as arrays; any other
    line (a header, padded fields, an error) goes through the line-by-line definition, which
    names the first offending line. Files with quoted fields are read line by line.

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
    """The definition, one line at a time (files with quoted fields or lone carriage returns)."""
    rows = _tab_rows(text, display) if tab else csv_rows(text, display)
    separators = ",;" if tab else ";"
    ids: list[str] = []
    sets: list[frozenset[str]] = []
    seen: dict[str, int] = {}
    for position, (line, fields) in enumerate(rows):
        if position == 0 and _is_concept_header(fields):
            continue
        image_id, raw = _concept_id(fields, display, line)
        if image_id in seen:
            raise _repeated_concept_id(display, line, image_id, seen[image_id])
        seen[image_id] = line
        ids.append(image_id)
        sets.append(_cui_set(raw, separators, display, line))
    if not ids:
        raise InputError(display, None, "at least one row 'ID,CUIs'", "no data rows")
    return ConceptSets(tuple(ids), tuple(sets), display)


def _concept_id(fields: list[str], display: str, line: int) -> tuple[str, str]:
    """The checked ID of a concept row and its raw CUI field."""
    if len(fields) == 1:
        if ";" in fields[0] or "|" in fields[0]:
            raise InputError(display, line, "2 fields 'ID,CUIs' separated by ','", repr(fields[0])[:60])
        fields = [fields[0], ""]
    if len(fields) != 2:
        raise InputError(display, line, "2 fields (ID and CUIs)", f"{len(fields)} fields")
    return check_id(fields[0], display, line), fields[1]


def _repeated_concept_id(display: str, line: int, image_id: str, earlier: int) -> InputError:
    return InputError(display, line, f"a new ID ({image_id!r} already on line {earlier})", "a duplicate")


# One row of the usual form: an ID (no whitespace or comma; no ';' or '|' when alone), then CUIs, all ASCII.
_CONCEPT_LINE = {
    False: rf"^(?:[!-+\--:<-{{}}~]{{1,300}}|[!-+\--~]{{1,300}},(?:{CONCEPT_TOKEN}(?:;{CONCEPT_TOKEN})*)?)$",
    # A tab-separated line is stripped first: "ID<TAB>" is the ID alone, so it may not hold ';' or '|' either.
    True: rf"^(?:[!-:<-{{}}~]{{1,300}}\t?|[!-~]{{1,300}}\t{CONCEPT_TOKEN}(?:[,;]{CONCEPT_TOKEN})*)$",
}


def _concepts_by_columns(data: bytes, display: str, tab: bool) -> ConceptSets | None:
    """Concept sets read as a column of lines; None for the files read line by line."""
    if tab:
        if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
            return None  # a lone carriage return is whitespace inside a tab-separated line, not a line break
        text = data
    else:
        if b'"' in data:
            return None
        text = universal_newlines(data)
    lines = line_column(text)
    if lines is None:
        return None
    column, index = lines
    delimiter = "\t" if tab else ","
    usual = pc.match_substring_regex(column, _CONCEPT_LINE[tab]).to_numpy(zero_copy_only=False)
    usual &= pc.count_substring_regex(column, "[,;]" if tab else ";").to_numpy() < MAX_CONCEPTS_PER_IMAGE
    ids = pc.replace_substring_regex(column, f"{delimiter}.*", "", max_replacements=1).to_pylist()
    cuis = pc.utf8_upper(pc.replace_substring_regex(column, f"^[^{delimiter}]*{delimiter}?", "", max_replacements=1))
    sets = frozensets(pc.split_pattern_regex(cuis, "[,;]" if tab else ";"))
    kept = np.ones(len(ids), dtype=bool)
    first_usual = int(np.argmax(usual)) if usual.any() else len(ids)
    header_seen = False
    failure: tuple[int, InputError, bool] | None = None
    # The unusual rows, and the first usual one (it may be the header), in line order.
    for row in np.union1d(np.flatnonzero(~usual), [first_usual] if first_usual < len(ids) else []).astype(int).tolist():
        line = int(index.line_of_rows([row])[0])
        try:
            fields = _concept_line_fields(index.text(line), line, display, tab)
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
        if usual[row]:
            continue
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
    rows = np.flatnonzero(kept)
    chosen_ids = take(ids, rows) if len(rows) < len(ids) else ids
    repeat = first_repeated(chosen_ids)
    if repeat is not None:
        later, earlier = (int(index.line_of_rows([rows[position]])[0]) for position in repeat)
        raise _repeated_concept_id(display, later, chosen_ids[repeat[0]], earlier)
    if failure is not None:
        raise failure[1]
    if not len(rows):
        raise InputError(display, None, "at least one row 'ID,CUIs'", "no data rows")
    chosen_sets = take(sets, rows) if len(rows) < len(sets) else sets
    return ConceptSets(tuple(chosen_ids), tuple(chosen_sets), display)


def _concept_line_fields(content: str, line: int, display: str, tab: bool) -> list[str] | None:
    """The fields of one concept line as the line-by-line reading splits them (None: a blank row)."""
    if not tab:
        return csv_line(content, line, display)
    content = content.strip()
    if not content:
        return None
    fields = content.split("\t")
    if len(fields) > 2:
        raise InputError(display, line, "ID<TAB>CUIs", f"{len(fields)} tab-separated fields")
    return [f.strip() for f in fields]


def _is_concept_header(fields: list[str]) -> bool:
    return len(fields) >= 2 and not is_concept_id(fields[1].split(";")[0].strip().upper()) and (
        fields[0].lower() in {"id", "image", "image_id", "imageid"} or fields[1].lower() in CONCEPT_LIST_COLUMNS
    )


def _tab_rows(text: str, display: str) -> Iterator[tuple[int, list[str]]]:
    for line, content in split_lines(text, display):
        fields = content.split("\t")
        if len(fields) > 2:
            raise InputError(display, line, "ID<TAB>CUIs", f"{len(fields)} tab-separated fields")
        yield line, [f.strip() for f in fields]
