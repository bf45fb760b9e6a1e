"""Image pairs: CSV with the header ``a,b``."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

import numpy as np
import pyarrow.compute as pc

from evalcore.errors import InputError
from evalcore.readers.columnar import (
    Rows,
    fast_or_by_lines,
    matches,
    rows_of_lines,
    rows_of_records,
    shared_strings,
    take,
    unquoted_line_column,
)
from evalcore.readers.files import Source, read_checked_bytes
from evalcore.readers.lines import check_delimiter, check_id, csv_line, first_line_of


@dataclass(frozen=True)
class ImagePairs:
    """Image pairs as columns: the line of each pair, its first and its second image ID, so a file of millions of
    pairs is held as three arrays, not a tuple a pair (and, as the fast path reads them, equal IDs as one string);
    iterated as ``(line, a, b)``."""

    lines: np.ndarray
    first: list[str]
    second: list[str]

    def __len__(self) -> int:
        return len(self.first)

    def __iter__(self) -> Iterator[tuple[int, str, str]]:
        return zip(map(int, self.lines), self.first, self.second)


def read_pairs(source: Source, name: str | None = None) -> list[tuple[int, str, str]]:
    """Read image pairs: CSV with the header ``a,b``; returns ``(line, a, b)`` per pair (:func:`read_image_pairs`
    as a list).

    >>> read_pairs(b"a,b\\nimg1,img2\\n", "pairs.csv")
    [(2, 'img1', 'img2')]
    """
    return list(read_image_pairs(source, name))


def read_image_pairs(source: Source, name: str | None = None) -> ImagePairs:
    """Read image pairs: CSV with the header ``a,b``, as columns.

    Lines of the usual form (two IDs) are split as arrays; any other row is read by the
    definition's per-row functions, in line order, so the first offending line is named.
    """
    data, display = read_checked_bytes(source, name)
    first_line, first = first_line_of(data)
    check_delimiter(first, first_line, display, (",",), "a header 'a,b'")
    pairs = fast_or_by_lines(_pairs_by_columns, _pairs_by_lines, data, display)
    if not len(pairs):
        raise InputError(display, None, "a header 'a,b' and a pair of image IDs after it",
                         "a header-only file" if first_line else "an empty file",
                         plain_expected="a first line 'a,b', then pairs of image IDs")
    return pairs


def _pairs_by_lines(text: str, display: str) -> ImagePairs:
    """The pairs of a file with quoted fields: its CSV records, each read by the definition."""
    return _pairs_of_rows(rows_of_records(text, display), display)


def _check_pairs_header(fields: list[str], display: str, line: int) -> None:
    if [f.lower() for f in fields[:2]] != ["a", "b"]:
        raise InputError(display, line, "a header 'a,b'", ",".join(fields)[:60], plain_expected="a first line 'a,b'")


def _pair_row(fields: list[str], display: str, line: int) -> tuple[int, str, str]:
    if len(fields) != 2:
        raise InputError(display, line, "2 image IDs 'a,b'", f"{len(fields)} fields",
                         plain_expected="2 image IDs separated by ','")
    return line, check_id(fields[0], display, line), check_id(fields[1], display, line)


_ID = r"[!#-+\--~]{1,300}"  # an image ID of printable ASCII without quote, space or comma


def _pairs_by_columns(data: bytes, display: str) -> ImagePairs | None:
    """The pairs of a file without quotes: its lines, those of the usual form read as arrays."""
    lines = unquoted_line_column(data)
    if lines is None:
        return None
    column, index = lines
    return _pairs_of_rows(rows_of_lines(column, index, matches(column, "^" + _ID + "," + _ID + "$"),
                                        partial(csv_line, display=display)), display)


def _pairs_of_rows(rows: Rows, display: str) -> ImagePairs:
    """The definition: a header 'a,b' on the first row, then two image IDs a row."""
    first = shared_strings(pc.replace_substring_regex(rows.column, ",.*", "", max_replacements=1))
    second = shared_strings(pc.replace_substring_regex(rows.column, "^[^,]*,", "", max_replacements=1))
    keep = rows.usual.copy()
    header_done = False
    for row in rows.scanned:
        fields = rows.fields(row)
        if fields is None:
            continue
        line = int(rows.numbers[row])
        if not header_done:
            header_done, keep[row] = True, False
            _check_pairs_header(fields, display, line)
            continue
        if not rows.usual[row]:
            _, first[row], second[row] = _pair_row(fields, display, line)
            keep[row] = True
    kept = np.flatnonzero(keep)
    return ImagePairs(rows.numbers[kept], take(first, kept), take(second, kept))
