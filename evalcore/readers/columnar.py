"""Delimited text as columns: pyarrow parses, NumPy checks, and rows map back to line numbers.

Each format of :mod:`evalcore.readers` has one definition in the library: what its rows hold
(the per-row functions written with :mod:`evalcore.readers.lines`) and what the file as a
whole must hold (header, repeated IDs, at least one row), applied to the rows as arrays. This
module gives the readers those rows, split in one of two ways that name the same rows with
the same line numbers, and the one rule that chooses between them, :func:`fast_or_by_lines`:

- :func:`line_column` and :func:`rows_of_lines`: the lines split by pyarrow (or, where pyarrow
  would split them otherwise, by Python), the usual ones read as arrays and the others split
  by the definition's own functions, in line order;
- :func:`rows_of_records`: the records of Python's csv module (a quoted field may span lines),
  every one of them split by the definition;
- :func:`parse_pieces` hands the bytes to pyarrow's multithreaded CSV parser, a piece at a
  time so that a caller can show progress, with quoting off and every line break kept;
- :func:`dictionary_codes` turns a dictionary-encoded column into integer codes and its
  distinct values, which are then checked once each instead of once per line;
- :class:`LineIndex` maps the row numbers of the parsed table back to the file's line
  numbers (blank lines are skipped by the parser) and returns the text of one line, so that
  the first offending row found by a vectorised mask is named exactly as the definition
  names it;
- :func:`collapse_whitespace` rewrites whitespace-separated text (TREC runs) so that fields
  are separated by exactly one space, as ``str.split()`` sees them.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import repeat
from typing import TypeVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from evalcore.errors import InputError
from evalcore.readers.lines import CONCEPT_ID_ANY_CASE, MAX_FIELD_CHARS, MAX_ID_CHARS, WHITESPACE, csv_rows

T = TypeVar("T")

PIECE_BYTES = 64 << 20
#: The bytes searched for line feeds at a time, and the lines bounded at a time: a file of blank lines holds a line feed
#: a byte, and each one found takes 8 bytes while it is found.
LINE_FEED_PIECE_BYTES, LINE_PIECE = 8 << 20, 1 << 20
BLOCK_BYTES = 4 << 20
LINE_FEED, CARRIAGE_RETURN, SPACE = 10, 13, 32
BYTE_ORDER_MARK = b"\xef\xbb\xbf"
DICTIONARY = pa.dictionary(pa.int32(), pa.string())
# ASCII characters for which str.isspace() holds, besides the line feed: tab, VT, FF, CR, FS, GS, RS, US.
ASCII_SPACES = b"\t\x0b\x0c\r\x1c\x1d\x1e\x1f"
_TO_SPACE = bytes.maketrans(ASCII_SPACES, b" " * len(ASCII_SPACES))
_UNICODE_SPACE_RUN = re.compile(r"[^\S\n]+")  # re's \s is str.isspace(): the set str.split() splits on
# The ASCII whitespace of str.isspace() in RE2 syntax (RE2's own \s omits VT, FS..US).
ASCII_WHITESPACE_CLASS = r"[\t-\r\x1c-\x20]"


_SPLIT_BY_PYTHON: ContextVar[bool] = ContextVar("split_by_python", default=False)


@contextmanager
def split_by_python() -> Iterator[None]:
    """Within it, the readers split every text in Python, as the formats are defined (the csv module's records, lines
    split at line feeds), and never by pyarrow (TREC runs excepted: pyarrow alone splits them): the same definitions,
    fed the other way, so that a test can check that both ways give the same answers.

    >>> with split_by_python():
    ...     fast_or_by_lines(lambda data: ["by pyarrow"], lambda text: text.split(), b"a b")
    ['a', 'b']
    """
    token = _SPLIT_BY_PYTHON.set(True)
    try:
        yield
    finally:
        _SPLIT_BY_PYTHON.reset(token)


def fast_or_by_lines(fast: Callable[..., T | None], by_lines: Callable[..., T], data: bytes, *args) -> T:
    """``fast(data, *args)`` where its splitting applies, else ``by_lines(text, *args)``: the same definition, fed by
    Python's own splitting of the text.

    Every reader with two ways of splitting goes through here, so the rule is written once:
    ``fast`` splits with pyarrow and returns None for the inputs it does not split (quoted
    fields that may span lines, ...); ``by_lines`` splits the text as the format is defined
    (the csv module's records, lines split at line feeds) and hands the rows to the same
    checks. Both give what tests/line_by_line.py, the tests' independent oracle, gives
    (tests/readers/test_vectorised_readers.py and test_one_definition.py check this).

    >>> fast_or_by_lines(lambda data: None, lambda text: text.split(), b"a b")
    ['a', 'b']
    """
    answer = None if _SPLIT_BY_PYTHON.get() else fast(data, *args)
    return answer if answer is not None else by_lines(data.decode("utf-8"), *args)


def line_aligned_pieces(data: bytes, size: int = PIECE_BYTES, start: int = 0) -> Iterator[tuple[int, int]]:
    """``(start, end)`` byte ranges of about ``size`` bytes that end just after a line feed (or at the end).

    >>> list(line_aligned_pieces(b"ab\\ncd\\nef", 4))
    [(0, 6), (6, 8)]
    """
    total = len(data)
    while start < total:
        end = min(start + size, total)
        if end < total:
            newline = data.find(b"\n", end - 1)
            end = total if newline < 0 else newline + 1
        yield start, end
        start = end


@dataclass
class ParsedPieces:
    """A parsed table, or why it could not be parsed as asked (a row with another field count, a value
    that does not convert); ``table`` is None then."""

    table: pa.Table | None
    invalid_row: bool = False
    conversion_failed: bool = False


def parse_pieces(data: bytes, names: Sequence[str], types: dict[str, pa.DataType], delimiter: str,
                 include: Sequence[str] | None = None, progress: Callable[[float], None] | None = None,
                 start: int = 0) -> ParsedPieces:
    """Parse delimited text (from byte ``start``) with pyarrow: no quoting, no null values, every line a row
    (empty lines skipped).

    Stops at the first row whose field count differs from ``len(names)`` or the first value
    that does not convert to its column's type.

    >>> parsed = parse_pieces(b"a 1\\n\\nb 2\\n", ["id", "n"], {"id": pa.string(), "n": pa.int64()}, " ")
    >>> parsed.table.to_pydict()
    {'id': ['a', 'b'], 'n': [1, 2]}
    >>> parse_pieces(b"a 1\\nb\\n", ["id", "n"], {}, " ").invalid_row
    True
    """
    invalid: list[bool] = []

    def on_invalid_row(_row) -> str:
        invalid.append(True)
        return "error"

    parse_options = pa_csv.ParseOptions(delimiter=delimiter, quote_char=False, escape_char=False,
                                        newlines_in_values=False, ignore_empty_lines=True,
                                        invalid_row_handler=on_invalid_row)
    convert_options = pa_csv.ConvertOptions(column_types=types, include_columns=list(include or names), null_values=[],
                                            strings_can_be_null=False, quoted_strings_can_be_null=False,
                                            check_utf8=False)
    view = memoryview(data)
    pieces = list(line_aligned_pieces(data, start=start))
    tables = []
    for number, (start, end) in enumerate(pieces, start=1):
        piece = view[start:end]
        if data.startswith(BYTE_ORDER_MARK, start):
            # pyarrow drops one byte-order mark where a text begins: give it one to drop, so the line keeps its own.
            piece = memoryview(BYTE_ORDER_MARK + bytes(piece))
        try:
            tables.append(read_piece(piece, names, parse_options, convert_options))
        except pa.ArrowInvalid:
            return ParsedPieces(None, invalid_row=bool(invalid), conversion_failed=not invalid)
        if progress is not None:
            progress(number / len(pieces))
    if not tables:
        empty = {name: pa.array([], type=types.get(name, pa.string())) for name in (include or names)}
        return ParsedPieces(pa.table(empty))
    return ParsedPieces(pa.concat_tables(tables).unify_dictionaries())


def read_piece(piece: memoryview, names: Sequence[str], parse_options, convert_options) -> pa.Table:
    try:
        return pa_csv.read_csv(pa.py_buffer(piece), read_options=pa_csv.ReadOptions(column_names=list(names),
                               block_size=BLOCK_BYTES), parse_options=parse_options, convert_options=convert_options)
    except pa.ArrowInvalid as error:
        if "straddl" not in str(error):
            raise
    # A line longer than a parser block: parse the piece as one block.
    return pa_csv.read_csv(pa.py_buffer(piece), read_options=pa_csv.ReadOptions(column_names=list(names),
                           block_size=len(piece) + 1, use_threads=False), parse_options=parse_options,
                           convert_options=convert_options)


def dictionary_codes(column: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """Integer codes (int32) and the distinct values of a dictionary column whose chunks share one dictionary.

    >>> table = pa.table({"x": pa.array(["b", "a", "b"]).dictionary_encode()})
    >>> codes, values = dictionary_codes(table.column("x"))
    >>> codes.tolist(), values.to_pylist()
    ([0, 1, 0], ['b', 'a'])
    """
    chunks = [chunk for chunk in column.chunks if len(chunk)]
    if not chunks:
        return np.zeros(0, dtype=np.int32), pa.array([], type=pa.string())
    codes = np.concatenate([chunk.indices.to_numpy(zero_copy_only=False) for chunk in chunks]).astype(np.int32, copy=False)
    return codes, chunks[0].dictionary


def dictionary_values(column: pa.ChunkedArray) -> pa.Array:
    """The distinct values of a dictionary column whose chunks share one dictionary."""
    chunks = [chunk for chunk in column.chunks if len(chunk)]
    return chunks[0].dictionary if chunks else pa.array([], type=pa.string())


def in_parallel(*tasks: Callable[[], object]) -> list:
    """Run independent tasks on two threads (NumPy and pyarrow release the GIL in their kernels)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return [future.result() for future in [pool.submit(task) for task in tasks]]


def float_column(column: pa.ChunkedArray) -> np.ndarray:
    return column.to_numpy() if column.num_chunks else np.zeros(0)


class LineIndex:
    """Line numbers and text of the lines of a file (from byte ``start`` on), for naming the rows a parser kept.

    Lines are separated by line feeds (a carriage return before one belongs to the break);
    the parser skips empty lines, so row ``r`` is the ``r``-th non-empty line. Built on
    demand: readers only need it to name an offending row.

    >>> index = LineIndex(b"a\\n\\r\\nb\\n")
    >>> index.line_of_rows(np.array([0, 1])).tolist(), index.text(3)
    ([1, 3], 'b')
    """

    def __init__(self, data: bytes, start: int = 0, first_line: int = 1):
        self.data = data
        self.start = start
        self.first_line = first_line
        self._newlines: np.ndarray | None = None
        self._kept: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def array(self) -> np.ndarray:
        return np.frombuffer(self.data, dtype=np.uint8, offset=self.start) if self.start < len(self.data) else \
            np.zeros(0, dtype=np.uint8)

    @property
    def newlines(self) -> np.ndarray:
        """Offsets (from ``start``) of every line feed, found a piece at a time so that the temporary arrays stay
        small; 4 bytes each where the offsets fit (a file of blank lines holds one a byte)."""
        if self._newlines is None:
            array = self.array
            offsets = np.int32 if len(array) < 1 << 31 else np.int64
            found = [(np.flatnonzero(array[begin:begin + LINE_FEED_PIECE_BYTES] == LINE_FEED) + begin).astype(offsets)
                     for begin in range(0, len(array), LINE_FEED_PIECE_BYTES)]
            self._newlines = np.concatenate(found) if found else np.zeros(0, dtype=offsets)
        return self._newlines

    def kept_bounds(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Of every non-empty line: its position among the lines, and its start and end (exclusive, before any
        carriage return) as offsets from ``start``. Worked out a piece of lines at a time, so that no array but the
        line feeds' offsets holds an entry for each blank line."""
        if self._kept is None:
            newlines, array = self.newlines, self.array
            lines = len(newlines) + 1
            pieces = []
            for first in range(0, lines, LINE_PIECE):
                last = min(first + LINE_PIECE, lines)
                # Line i begins after line feed i - 1 (the first at 0) and ends at line feed i (the last at the end).
                starts = newlines[first - 1:last - 1] + 1 if first else np.append(np.zeros(1, newlines.dtype),
                                                                                  newlines[:last - 1] + 1)
                ends = newlines[first:last].copy() if last < lines else np.append(newlines[first:],
                                                                                   np.array(len(array), newlines.dtype))
                non_empty = np.flatnonzero(ends > starts)
                ends[non_empty] -= array[ends[non_empty] - 1] == CARRIAGE_RETURN
                kept = np.flatnonzero(ends > starts)
                pieces.append((kept + first, starts[kept], ends[kept]))
            positions, starts, ends = (np.concatenate(column) for column in zip(*pieces))
            self._kept = positions.astype(np.int64), starts, ends
        return self._kept

    def kept_lines(self) -> np.ndarray:
        """Line numbers of the non-empty lines: the rows of a parsed table, in order."""
        return self.kept_bounds()[0] + self.first_line

    def line_of_rows(self, rows) -> np.ndarray:
        return self.kept_lines()[np.asarray(rows, dtype=np.int64)]

    def line_start(self, line: int) -> int:
        """Byte offset (in ``data``) where a line begins."""
        number = line - self.first_line
        return self.start + (0 if number == 0 else int(self.newlines[number - 1]) + 1)

    def text(self, line: int) -> str:
        """The text of one line (without its line feed), decoded as UTF-8."""
        number = line - self.first_line
        newlines = self.newlines
        end = self.start + int(newlines[number]) if number < len(newlines) else len(self.data)
        return self.data[self.line_start(line):end].decode("utf-8")

    def field_counts(self, delimiter: int) -> np.ndarray:
        """Fields per line (delimiters + 1; 0 for an empty line), counted without a Python step per line."""
        array, lines = self.array, len(self.newlines) + 1
        counts = np.zeros(lines, dtype=np.int64)
        for begin in range(0, len(array), PIECE_BYTES):
            positions = np.flatnonzero(array[begin:begin + PIECE_BYTES] == delimiter) + begin
            if len(positions):
                counts += np.bincount(np.searchsorted(self.newlines, positions), minlength=lines)
        non_empty = np.zeros(lines, dtype=bool)
        non_empty[self.kept_bounds()[0]] = True
        return np.where(non_empty, counts + 1, 0)


def spaced_or_empty(values: pa.Array) -> np.ndarray:
    """Which values are empty or hold a character for which ``str.isspace()`` holds (what ``str.split()`` splits on).

    >>> spaced_or_empty(pa.array(["a", "", "b\\tc", "d\\u2003"])).tolist()
    [False, True, True, True]
    """
    if not len(values):
        return np.zeros(0, dtype=bool)
    if pc.all(pc.string_is_ascii(values)).as_py():
        spaced = pc.match_substring_regex(values, ASCII_WHITESPACE_CLASS).to_numpy(zero_copy_only=False)
        return spaced | (pc.binary_length(values).to_numpy(zero_copy_only=False) == 0)
    return np.array([not value or WHITESPACE.search(value) is not None for value in values.to_pylist()], dtype=bool)


def valid_ids(values: pa.Array) -> np.ndarray:
    """Which values :func:`~evalcore.readers.lines.check_id` accepts (1-300 characters, no whitespace).

    >>> valid_ids(pa.array(["img1", "", "a b", "x" * 301])).tolist()
    [True, False, False, False]
    """
    length = pc.utf8_length(values).to_numpy(zero_copy_only=False)
    return (length >= 1) & (length <= MAX_ID_CHARS) & ~spaced_or_empty(values)


def collapse_whitespace(data: bytes) -> bytes:
    r"""Every run of whitespace other than the line feed becomes one space; lines lose outer spaces.

    Whitespace is what ``str.split()`` splits on (``str.isspace()``), so afterwards splitting
    a line on single spaces gives the fields ``str.split()`` gives. Line feeds are kept, so
    line numbers do not change.

    >>> collapse_whitespace(b" q\tQ0  d\r\n\x0b\n\xc2\xa0x\xe2\x80\x83y \n")
    b'q Q0 d\n\nx y\n'
    """
    pieces = []
    for start, end in line_aligned_pieces(data):
        piece = data[start:end]
        if piece.isascii():
            piece = piece.translate(_TO_SPACE)
            while b"  " in piece:
                piece = piece.replace(b"  ", b" ")
        else:
            piece = _UNICODE_SPACE_RUN.sub(" ", piece.decode("utf-8")).encode("utf-8")
        piece = piece.replace(b"\n ", b"\n").replace(b" \n", b"\n")
        if piece.startswith(b" "):
            piece = piece[1:]
        if piece.endswith(b" "):
            piece = piece[:-1]
        pieces.append(piece)
    return b"".join(pieces)


def absent_byte(data: bytes, candidates: bytes = bytes(range(1, 9)) + bytes(range(14, 28))) -> str | None:
    """A control character that does not occur in ``data`` (to parse whole lines as one column), or None.

    >>> absent_byte(b"a\\x01b")
    '\\x02'
    """
    return next((chr(byte) for byte in candidates if bytes([byte]) not in data), None)


def line_column(text: bytes) -> tuple[pa.ChunkedArray, LineIndex]:
    """Every non-empty line of ``text`` as one string column and the index naming its lines.

    Lines are split at line feeds (a carriage return before one belongs to the break), as
    :class:`LineIndex` splits them: by pyarrow where it splits the text so, else by
    :func:`python_line_column` (a lone carriage return, which pyarrow takes for a line break; no
    control character left to parse whole lines as one column; text pyarrow refuses; within
    :func:`split_by_python`).
    """
    delimiter = absent_byte(text)
    lone_carriage_return = b"\r" in text and text.count(b"\r") != text.count(b"\r\n")
    if delimiter is not None and not lone_carriage_return and not _SPLIT_BY_PYTHON.get():
        parsed = parse_pieces(text, ["line"], {"line": pa.string()}, delimiter)
        if parsed.table is not None:
            return parsed.table.column("line"), LineIndex(text)
    return python_line_column(text)


def python_line_column(text: bytes) -> tuple[pa.ChunkedArray, LineIndex]:
    r""":func:`line_column` split in Python: the lines :class:`LineIndex` names, the empty ones left out.

    >>> column, index = python_line_column(b"a\r\n\nb\rc\n")
    >>> column.to_pylist(), index.kept_lines().tolist()
    (['a', 'b\rc'], [1, 3])
    """
    index = LineIndex(text)
    _, starts, ends = index.kept_bounds()
    lines = [text[start:end].decode("utf-8") for start, end in zip(starts.tolist(), ends.tolist())]
    return pa.chunked_array([pa.array(lines, type=pa.string())]), index


def unquoted_line_column(data: bytes) -> tuple[pa.ChunkedArray, LineIndex] | None:
    """:func:`line_column` of ``data`` read with universal newlines, for a reading that splits no quoted CSV
    field: None where ``data`` holds a quote (:func:`rows_of_records` reads those)."""
    return None if b'"' in data else line_column(universal_newlines(data))


@dataclass
class Rows:
    """The non-blank rows of a delimited file, as a format's one definition reads them.

    ``column`` holds each row's text where rows are lines (:func:`rows_of_lines`; empty where
    they are CSV records, :func:`rows_of_records`), ``numbers`` the line each row starts on,
    and ``usual`` the rows of the format's usual form, whose values the definition takes from
    ``column`` as arrays. ``scanned`` lists, in order, every other row and the first usual one
    (it may be a header); ``fields(row)`` splits one of them as the definition splits it (None:
    a blank row) or raises the error that names its line.
    """

    column: pa.ChunkedArray
    numbers: np.ndarray
    usual: np.ndarray
    scanned: list[int]
    fields: Callable[[int], list[str] | None]


def rows_of_lines(column: pa.ChunkedArray, index: LineIndex, usual: np.ndarray,
                  split: Callable[[str, int], list[str] | None]) -> Rows:
    """The lines of :func:`line_column` as rows: ``usual`` marks the lines read as arrays, but for one longer than a
    field may be (:data:`MAX_FIELD_CHARS`; no format's usual line holds that much), ``split(text, line)`` splits any
    other line."""
    usual = usual & (pc.utf8_length(column).to_numpy() <= MAX_FIELD_CHARS)
    numbers = index.line_of_rows(np.arange(len(column)))
    scanned = np.flatnonzero(~usual).tolist()
    if usual.any():
        scanned = sorted(scanned + [int(np.argmax(usual))])
    column = usual_only(column, usual)

    def fields(row: int) -> list[str] | None:
        line = int(numbers[row])
        return split(index.text(line), line)

    return Rows(column, numbers, usual, scanned, fields)


def usual_only(column: pa.ChunkedArray, usual: np.ndarray) -> pa.ChunkedArray:
    """``column``, or, where a row not ``usual`` is longer than a field may be (:data:`MAX_FIELD_CHARS`), ``column``
    with the values of every row not ``usual`` made empty: those are read one by one, by the definition, which
    refuses a line that long naming it, and a line of millions of values is not first split into millions of arrays'
    items. (Most files hold a few short unusual rows, a header: the column is left as it is then, at no copy.)

    >>> usual_only(pa.chunked_array([["ID,CUIs", "a", "b;" * 60_000]]), np.array([False, True, False])).to_pylist()
    ['', 'a', '']
    >>> usual_only(pa.chunked_array([["ID,CUIs", "a"]]), np.array([False, True])).to_pylist()
    ['ID,CUIs', 'a']
    """
    unusual = np.flatnonzero(~usual)
    if not len(unusual) or pc.max(pc.utf8_length(column.take(pa.array(unusual)))).as_py() <= MAX_FIELD_CHARS:
        return column
    return pa.chunked_array([pc.if_else(pa.array(usual), column.combine_chunks(), pa.scalar("", column.type))])


def rows_of_records(text: str, display: str, delimiter: str = ",") -> Rows:
    """The records of :func:`~evalcore.readers.lines.csv_rows` as rows, every one split by the definition; a record
    the csv module cannot read is a last row whose fields raise its error, after the rows before it are read."""
    records: list[list[str]] = []
    numbers: list[int] = []
    error: InputError | None = None
    try:
        for line, record in csv_rows(text, display, delimiter):
            numbers.append(line)
            records.append(record)
    except InputError as refused:
        error = refused

    def fields(row: int) -> list[str]:
        if row == len(records) and error is not None:
            raise error
        return records[row]

    count = len(records)
    return Rows(pa.chunked_array([pa.array([""] * count, type=pa.string())]), np.array(numbers, dtype=np.int64),
                np.zeros(count, dtype=bool), list(range(count + (error is not None))), fields)


def matches(column: pa.ChunkedArray, pattern: str) -> np.ndarray:
    """Which values of a string column match a regular expression (RE2), as a boolean array."""
    return pc.match_substring_regex(column, pattern).to_numpy(zero_copy_only=False)


def frozensets(lists: pa.Array | pa.ChunkedArray) -> list[frozenset[str]]:
    """One frozenset per list of strings, empty strings left out; equal strings are one Python object."""
    lists = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
    values = pc.list_flatten(lists)
    keep = pc.not_equal(values, "").to_numpy(zero_copy_only=False)
    owners = pc.list_parent_indices(lists).to_numpy()[keep]
    strings = shared_strings(values.filter(pa.array(keep)))
    ends = np.cumsum(np.bincount(owners, minlength=len(lists))).tolist()
    starts = [0] + ends[:-1]
    return list(map(frozenset, map(strings.__getitem__, map(slice, starts, ends))))


def first_repeated(values: list[str]) -> tuple[int, int] | None:
    """Positions of the first value equal to an earlier one, and of that earlier one.

    >>> first_repeated(["a", "b", "c", "b", "a"])
    (3, 1)
    """
    codes, uniques = pd.factorize(pd.Index(values, dtype=object)) if values else (np.zeros(0, dtype=np.int64), [])
    if len(uniques) == len(values):
        return None
    _, first = np.unique(codes, return_index=True)
    repeated = np.flatnonzero(first[codes] != np.arange(len(codes)))
    later = int(repeated[0])
    return later, int(first[codes[later]])


def repeated_in_lists(lists: pa.Array | pa.ChunkedArray) -> list[tuple[int, str]]:
    """``(list number, value)`` for every value equal to an earlier one of the same list, in order.

    >>> repeated_in_lists(pa.array([["a", "b", "a", "a"], ["b"], ["c", "c"]]))
    [(0, 'a'), (0, 'a'), (2, 'c')]
    """
    lists = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
    encoded = pc.list_flatten(lists).dictionary_encode()
    owners = pc.list_parent_indices(lists).to_numpy().astype(np.int64)
    key = owners * max(len(encoded.dictionary), 1) + encoded.indices.to_numpy()
    _, first = np.unique(key, return_index=True, return_inverse=False)
    is_first = np.zeros(len(key), dtype=bool)
    is_first[first] = True
    later = np.flatnonzero(~is_first)
    values = encoded.dictionary.to_pylist()
    codes = encoded.indices.to_numpy()
    return [(int(owners[position]), values[codes[position]]) for position in later]


def shared_strings(strings: pa.Array | pa.ChunkedArray) -> list[str]:
    """The strings of a column as a list in which equal strings are one Python object (an image ID named by a
    million pairs is one string, not a million).

    >>> column = shared_strings(pa.array(["img1", "img2", "img1"]))
    >>> column, column[0] is column[2]
    (['img1', 'img2', 'img1'], True)
    """
    strings = strings.combine_chunks() if isinstance(strings, pa.ChunkedArray) else strings
    encoded = strings.dictionary_encode()
    return np.asarray(encoded.dictionary.to_pylist(), dtype=object)[encoded.indices.to_numpy()].tolist()


def take(values: Sequence, rows: np.ndarray) -> list:
    """``[values[row] for row in rows]``, iterated in C.

    >>> take(["a", "b", "c"], np.array([2, 0]))
    ['c', 'a']
    """
    return list(map(values.__getitem__, np.asarray(rows).tolist()))


def present(values: Sequence) -> np.ndarray:
    """Which values are not None, iterated in C.

    >>> present(["a", None, ""]).tolist()
    [True, False, True]
    """
    return np.fromiter(map(operator.is_not, values, repeat(None)), dtype=bool, count=len(values))


def universal_newlines(data: bytes) -> bytes:
    """``data`` with CR LF and lone CR line breaks written as LF, as Python's universal newlines read them.

    >>> universal_newlines(b"a\\r\\nb\\rc\\n")
    b'a\\nb\\nc\\n'
    """
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data


def upper_cuis(nodes: pa.ChunkedArray) -> pa.ChunkedArray:
    """:func:`~evalcore.readers.lines.concept_key` of every node: CUIs and ontology IDs upper-cased."""
    return pc.if_else(pc.match_substring_regex(nodes, CONCEPT_ID_ANY_CASE), pc.utf8_upper(nodes), nodes)
