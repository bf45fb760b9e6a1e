"""Readers for every input of DESIGN §1.

Each reader takes a path or the raw bytes of an upload (with a display name) and
either returns an immutable container or raises :class:`InputError` naming the
file, the line and what was expected. Nothing else escapes: malformed text,
non-UTF-8 bytes, NaN scores and oversized inputs are all reported that way.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import chain, compress
from pathlib import Path
from typing import BinaryIO, NoReturn, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from .columnar import (
    ASCII_WHITESPACE_CLASS,
    DICTIONARY,
    LineIndex,
    collapse_whitespace,
    dictionary_codes,
    dictionary_values,
    first_repeated,
    float_column,
    frozensets,
    in_parallel,
    line_aligned_pieces,
    line_column,
    parse_pieces,
    read_piece,
    take,
)
from .data import LABEL_KINDS, ConceptClassMap, ConceptSets, Embeddings, ImageLabels, RankedLists, Run
from .errors import InputError, ParameterError

Source = Union[str, Path, bytes]

# ASCII digits only: re's \d also matches other scripts' digits (C٠٠٤٠٤٠٥ is no CUI); \Z, not $, so that a
# trailing line feed is not accepted either.
CUI_PATTERN = re.compile(r"^C[0-9]{7}\Z")
NODE_PATTERN = re.compile(r"^[^\s,;|]{1,200}$")
DEFAULT_MAX_FILE_BYTES = 1 << 30
# A depth-1000 run over 80,000 queries with ROCOv2-length IDs: 80 M lines of about 87 bytes.
DEFAULT_MAX_RUN_BYTES = 8 << 30
# UMLS's MRREL.RRF is several GB; it is streamed, so memory follows the is_a rows kept, not the file size.
DEFAULT_MAX_MRREL_BYTES = 64 << 30
PEEK_BYTES = 1 << 20
INPUT_BUDGET_VARIABLE = "CBIR_LENS_MAX_INPUT_BYTES"
MAX_CONCEPTS_PER_IMAGE = 500
MAX_RANK = 10**9
READ_PIECE_BYTES = 64 << 20
# TREC runs are read and parsed this much at a time: a file's bytes are never all in memory.
RUN_PIECE_BYTES = 128 << 20
MAX_ID_CHARS = 300
_WHITESPACE = re.compile(r"\s")  # str.isspace(), as str.split() and str.strip() use it
NPY_MAGIC = b"\x93NUMPY"
MAX_FIELD_CHARS = 100_000
# The longest line a streamed file (TREC run, MRREL.RRF) may hold: a run line is about 100 bytes and a MRREL line
# under 10 kB, so a longer one is not such a line, and refusing it bounds what is buffered while its end is sought.
MAX_LINE_BYTES = 1 << 20
# Numbers as trec_eval's atol()/atof() read them: ASCII digits only. Python's int() and float() also take
# underscores ("1_000") and other scripts' digits ("٣"), which trec_eval would read as something else.
DECIMAL_INTEGER = re.compile(r"[+-]?[0-9]+")
NON_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)

csv.field_size_limit(MAX_FIELD_CHARS)


@dataclass(frozen=True)
class KGEdges:
    """is_a edges ``child -> parent`` with their source tag, plus node names where known."""

    edges: tuple[tuple[str, str, str], ...]
    names: dict[str, str]
    source: str = "kg"

    def __len__(self) -> int:
        return len(self.edges)


@dataclass(frozen=True, eq=False)
class KGEdgeTable:
    """Distinct is_a edges as columns: ``nodes[child[e]]`` is_a ``nodes[parent[e]]``, tagged ``tags[tag[e]]``.

    What the MRREL.RRF reader returns, so that a UMLS-sized graph (millions of edges) stays a few
    arrays. ``nodes`` and ``tags`` are sorted and the edges are ordered by (child, parent, tag),
    so :attr:`edges` gives exactly the triples a :class:`KGEdges` of the same file would hold.

    >>> table = KGEdgeTable(pa.array(["C0000001", "C0000002"]), np.array([0]), np.array([1]), ("MSH",),
    ...                     np.array([0]), {}, "MRREL.RRF")
    >>> table.edges, len(table)
    ((('C0000001', 'C0000002', 'MSH'),), 1)
    """

    nodes: pa.Array
    child: np.ndarray
    parent: np.ndarray
    tags: tuple[str, ...]
    tag: np.ndarray
    names: dict[str, str]
    source: str = "kg"

    def __len__(self) -> int:
        return len(self.child)

    @property
    def edges(self) -> tuple[tuple[str, str, str], ...]:
        """The edges as ``(child, parent, tag)`` triples (built on first use: slow for millions of edges)."""
        cached = self.__dict__.get("_edges")
        if cached is None:
            nodes = self.nodes.to_pylist()
            cached = tuple(zip(take(nodes, self.child), take(nodes, self.parent), take(self.tags, self.tag)))
            object.__setattr__(self, "_edges", cached)
        return cached


def max_input_bytes(default: int = DEFAULT_MAX_FILE_BYTES) -> int:
    """The byte budget of one input file: ``CBIR_LENS_MAX_INPUT_BYTES`` if set, else ``default``.

    The default is 1 GiB, and 8 GiB for runs (:data:`DEFAULT_MAX_RUN_BYTES`: a depth-1000 run
    over 80,000 queries). The CLI's ``--max-input-bytes`` sets the same variable, so every
    reader, in this process and in its workers, enforces one budget when one is given.
    """
    raw = os.environ.get(INPUT_BUDGET_VARIABLE, "")
    if not raw:
        return default
    budget = _bounded_integer(raw.strip(), 10**18) if DECIMAL_INTEGER.fullmatch(raw.strip()) else None
    if budget is None:
        raise ParameterError(f"{INPUT_BUDGET_VARIABLE} must be a whole number of bytes (at most 10^18), "
                             f"got {raw[:40]!r}")
    if budget < 1:
        raise ParameterError(f"{INPUT_BUDGET_VARIABLE} must be at least 1 byte, got {budget}")
    return budget


def _bounded_integer(text: str, limit: int) -> int | None:
    """The value of a decimal integer ``text`` (``DECIMAL_INTEGER``) if its magnitude is at most ``limit``, else None.

    Its length is checked first: ``int()`` refuses texts of more than 4,300 digits (and is slow near them).

    >>> _bounded_integer("-0007", 10), _bounded_integer("1" + "0" * 5000, 10)
    (-7, None)
    """
    if len(text.lstrip("+-").lstrip("0")) > len(str(limit)):
        return None
    value = int(text)
    return value if abs(value) <= limit else None


def _describe_budget(budget: int) -> str:
    return f"at most {budget:,} bytes (raise it with --max-input-bytes or {INPUT_BUDGET_VARIABLE})"


_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def _file_kind(mode: int) -> str:
    return next((kind for test, kind in _FILE_KINDS if test(mode)), "not a regular file")


def _read_bytes(source: Source, name: str | None, default_budget: int = DEFAULT_MAX_FILE_BYTES) -> tuple[bytes, str]:
    """Read a regular file (never a device, FIFO, socket or directory) within the byte budget.

    The budget is checked against the file's size before reading and enforced while
    reading, so a file that grows or lies about its size cannot take more memory than the
    budget allows. A file within the budget that does not fit in memory is refused too.
    """
    budget = max_input_bytes(default_budget)
    if isinstance(source, bytes):
        display = name or "upload"
        if len(source) > budget:
            raise InputError(display, None, _describe_budget(budget), f"{len(source):,} bytes")
        return source, display
    display = name or str(source)
    handle, size = _open_regular(Path(source), display, budget)
    with handle:
        try:
            data = _read_within(handle, min(size, budget), budget)
        except MemoryError:
            raise InputError(display, None, "a file that fits in this machine's memory", f"{size:,} bytes") from None
    if len(data) > budget:
        raise InputError(display, None, _describe_budget(budget), "more")
    return data, display


def _open_regular(path: Path, display: str, budget: int) -> tuple[BinaryIO, int]:
    """An open binary handle on a regular file whose size is within ``budget``, and that size."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise InputError(display, None, "a readable regular file", error.strerror or str(error)) from None
    if not stat.S_ISREG(mode):
        raise InputError(display, None, "a regular file", _file_kind(mode))
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO after the check, open() must not wait for a writer.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise InputError(display, None, "a readable regular file", error.strerror or str(error)) from None
    handle = os.fdopen(descriptor, "rb")
    opened = os.fstat(handle.fileno())
    if not stat.S_ISREG(opened.st_mode):
        handle.close()
        raise InputError(display, None, "a regular file", _file_kind(opened.st_mode))
    if opened.st_size > budget:
        handle.close()
        raise InputError(display, None, _describe_budget(budget), f"{opened.st_size:,} bytes")
    return handle, opened.st_size


def _read_within(handle, expected: int, budget: int) -> bytes:
    """Read ``expected`` bytes and one more; if the file grew meanwhile, go on a piece at a time up to
    ``budget + 1`` bytes (a single read of the whole budget would reserve that much memory at once)."""
    pieces = [handle.read(expected + 1)]
    total = len(pieces[0])
    while expected < total <= budget:
        piece = handle.read(min(READ_PIECE_BYTES, budget + 1 - total))
        if not piece:
            break
        pieces.append(piece)
        total += len(piece)
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def read_input_bytes(source: Source, name: str | None = None) -> tuple[bytes, str]:
    """The bytes of a regular file within the byte budget, and its display name (see :func:`max_input_bytes`).

    >>> read_input_bytes(b"a,b", "pairs.csv")
    (b'a,b', 'pairs.csv')
    """
    return _read_bytes(source, name)


def read_text(source: Source, name: str | None = None) -> tuple[str, str]:
    """Decode a file as UTF-8 (a BOM is dropped); return ``(text, display name)``.

    >>> read_text(b"\\xef\\xbb\\xbfID,CUIs\\r\\n", "x.csv")
    ('ID,CUIs\\r\\n', 'x.csv')
    """
    data, display = _read_bytes(source, name)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(display, line, "UTF-8 text", f"byte 0x{data[error.start]:02x}") from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise InputError(display, line, "text", "a NUL byte (binary file?)")
    return text, display


def read_checked_bytes(source: Source, name: str | None, default_budget: int = DEFAULT_MAX_FILE_BYTES) -> tuple[bytes, str]:
    """The file's bytes, checked as :func:`read_text` checks them (UTF-8, no NUL; a BOM is dropped) but not decoded.

    >>> read_checked_bytes(b"a\\n\\xff\\n", "x.txt")
    Traceback (most recent call last):
    ...
    evalcore.errors.InputError: x.txt, line 2: expected UTF-8 text, found byte 0xff
    """
    data, display = _read_bytes(source, name, default_budget)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    _check_text(data, display)
    return data, display


def _check_text(data: bytes, display: str) -> None:
    """Refuse bytes that are not UTF-8 or hold a NUL, naming the line."""
    _check_utf8(data, display)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise _nul_error(data, nul, display)


def _check_utf8(data: bytes, display: str, first_line: int = 1) -> None:
    """Refuse bytes that are not UTF-8, naming the line (``data`` begins on line ``first_line``)."""
    if not data.isascii():
        for start, end in line_aligned_pieces(data):
            try:
                data[start:end].decode("utf-8")
            except UnicodeDecodeError as error:
                position = start + error.start
                raise InputError(display, first_line + data.count(b"\n", 0, position), "UTF-8 text",
                                 f"byte 0x{data[position]:02x}") from None


def _nul_error(data: bytes, position: int, display: str, first_line: int = 1) -> InputError:
    return InputError(display, first_line + data.count(b"\n", 0, position), "text", "a NUL byte (binary file?)")


def _checked_in_order(pieces: Iterator[Piece], display: str) -> Iterator[Piece]:
    """Pieces checked as :func:`_check_text` checks a whole file: a byte that is not UTF-8 anywhere comes before
    a NUL byte anywhere, so after a NUL the remaining pieces are still checked for UTF-8. Then a line longer than
    :data:`MAX_LINE_BYTES` is refused (whether the pieces were read from a file or from memory)."""
    for piece, line, line_feeds in pieces:
        _check_utf8(piece, display, line)
        nul = piece.find(b"\x00")
        if nul >= 0:
            try:
                for later, later_line, _ in pieces:
                    _check_utf8(later, display, later_line)
            except InputError as error:
                if error.expected == "UTF-8 text":
                    raise
            raise _nul_error(piece, nul, display, line)
        long_line = _first_long_line(piece)
        if long_line is not None:
            raise _long_line_error(piece, long_line, display, line)
        yield piece, line, line_feeds
        del piece  # so that the reader may reuse the piece's memory


def _first_long_line(data: bytes | bytearray) -> int | None:
    """The offset of the first line of ``data`` longer than :data:`MAX_LINE_BYTES` (line feed not counted), or None.

    Each step looks for the last line feed within the next ``MAX_LINE_BYTES + 1`` bytes, so a piece of usual
    lines is crossed in about ``len(data) / MAX_LINE_BYTES`` steps.

    >>> _first_long_line(b"ab\\n" + b"x" * (MAX_LINE_BYTES + 1)), _first_long_line(b"ab\\n" + b"x" * MAX_LINE_BYTES)
    (3, None)
    """
    position = 0
    while len(data) - position > MAX_LINE_BYTES:
        newline = data.rfind(b"\n", position, position + MAX_LINE_BYTES + 1)
        if newline < 0:
            return position
        position = newline + 1
    return None


def _long_line_error(data: bytes | bytearray, position: int, display: str, first_line: int) -> InputError:
    return InputError(display, first_line + data.count(b"\n", 0, position), f"a line of at most {MAX_LINE_BYTES:,} bytes",
                      f"one of more than {MAX_LINE_BYTES:,} bytes with no line feed")


def _unfinished_line_error(line_start: bytes, line: int, display: str) -> InputError:
    """Why a line whose first ``MAX_LINE_BYTES`` and more bytes hold no line feed is refused, without reading on to
    its end: a byte that is not UTF-8 in what was read, else a NUL byte, else its length."""
    end = len(line_start) - 1
    while end > 0 and line_start[end] & 0xC0 == 0x80:  # the read may have cut the last character: leave it out
        end -= 1
    _check_utf8(line_start[:end], display, line)
    nul = line_start.find(b"\x00")
    if nul >= 0:
        return _nul_error(line_start, nul, display, line)
    return _long_line_error(line_start, 0, display, line)


# A piece of a file: its bytes (ending with a line feed, but for the file's last), the number of the line
# it begins on, and the number of line feeds in it.
Piece = tuple[Union[bytes, bytearray], int, int]


def _checked_pieces(source: Source, name: str | None, default_budget: int, size: int
                    ) -> tuple[str, int, Iterator[Piece]]:
    """A file as line-aligned pieces of about ``size`` bytes, checked as :func:`read_checked_bytes` checks a whole
    file (see :func:`_checked_in_order`): the display name, the file's size, and the pieces.

    A path is read one piece at a time, so the whole file is never in memory; the byte budget is checked
    before reading and enforced while reading, as :func:`read_checked_bytes` does.
    """
    budget = max_input_bytes(default_budget)
    if isinstance(source, bytes):
        data, display = _read_bytes(source, name, default_budget)
        total = len(data)

        def from_memory() -> Iterator[Piece]:
            start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
            line = 1
            for begin, end in line_aligned_pieces(data, size, start):
                piece = data[begin:end]
                line_feeds = piece.count(b"\n")
                yield piece, line, line_feeds
                line += line_feeds

        return display, total, _checked_in_order(from_memory(), display)
    display = name or str(source)
    handle, total = _open_regular(Path(source), display, budget)

    def from_file() -> Iterator[Piece]:
        with handle:
            carried, read, line = b"", 0, 1  # carried: the unfinished last line of what was read
            buffer = bytearray()
            while True:
                if len(carried) > MAX_LINE_BYTES:  # refused before reading more of it: what is buffered stays bounded
                    raise _unfinished_line_error(carried, line, display)
                # Read into a buffer that already holds the carried line, so a piece is never copied; a line
                # longer than a piece doubles the next read, so that a huge line is not copied over and over.
                # No more than the file holds (plus a byte, to see its end): a small file gets a small buffer.
                wanted = len(carried) + min(max(size, len(carried)), budget + 1 - read, max(total + 1 - read, 1 << 16))
                if sys.getrefcount(buffer) == 2:  # nobody holds the last piece: reuse its memory (no page faults)
                    del buffer[wanted:]
                    buffer.extend(bytes(wanted - len(buffer)))
                else:
                    buffer = bytearray(wanted)
                buffer[:len(carried)] = carried
                got = _read_into(handle, buffer, len(carried))
                read += got
                if read > budget:
                    raise InputError(display, None, _describe_budget(budget), "more")
                del buffer[len(carried) + got:]
                if got:
                    cut = buffer.rfind(b"\n") + 1
                    if not cut:
                        carried = bytes(buffer)
                        continue
                    carried = bytes(buffer[cut:])
                    del buffer[cut:]
                else:
                    carried = b""
                if line == 1 and buffer.startswith(b"\xef\xbb\xbf"):
                    del buffer[:3]
                if buffer:
                    line_feeds = buffer.count(b"\n")
                    yield buffer, line, line_feeds
                    line += line_feeds
                if not got:
                    return

    return display, total, _checked_in_order(from_file(), display)


def _read_into(handle: BinaryIO, buffer: bytearray, start: int) -> int:
    """Fill ``buffer`` from ``start`` on (less only at the end of the file); the number of bytes read."""
    with memoryview(buffer) as view:
        done = start
        while done < len(buffer):
            with view[done:] as rest:
                got = handle.readinto(rest)
            if not got:
                break
            done += got
    return done - start


def _first_line_of(data: bytes) -> tuple[int, str]:
    """:func:`_first_line` of checked bytes, decoding only the lines it looks at."""
    number, line, _ = _first_line_span(data)
    return number, line


def _first_line_span(data: bytes) -> tuple[int, str, int]:
    """The first non-blank line, its number and the offset just past its line feed (0, "", 0 for a blank file)."""
    number, start = 1, 0
    while True:
        end = data.find(b"\n", start)
        line = data[start:len(data) if end < 0 else end].decode("utf-8").strip()
        if line:
            return number, line, len(data) if end < 0 else end + 1
        if end < 0:
            return 0, "", 0
        number, start = number + 1, end + 1


def _csv_line(content: str, line: int, display: str, delimiter: str = ",") -> list[str] | None:
    """The stripped fields of one line of a file without quotes, as :func:`_csv_rows` reads it (None: blank row)."""
    try:
        row = next(csv.reader([content], delimiter=delimiter, strict=True), [])
    except csv.Error as error:
        raise InputError(display, line, "well-formed CSV", str(error)) from None
    if not row or all(not field.strip() for field in row):
        return None
    return [field.strip() for field in row]


def _csv_rows(text: str, display: str, delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line number, fields)`` for non-blank rows; csv errors become InputError."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    while True:
        # A quoted field may span lines: a record is named by the line it starts on.
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise InputError(display, start, "well-formed CSV", str(error)) from None
        if not row or all(not field.strip() for field in row):
            continue
        yield start, [field.strip() for field in row]


def _split_lines(text: str, display: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, stripped line)`` for non-blank lines, counting only \\n breaks."""
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if line:
            yield number, line


def _first_line(text: str) -> tuple[int, str]:
    """The first non-blank line and its number (0 and "" for a blank text)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            return number, line.strip()
    return 0, ""


DELIMITER_NAMES = {",": "','", "\t": "a tab", ";": "';'", "|": "'|'", " ": "whitespace"}


def _check_delimiter(first: str, line: int, display: str, accepted: tuple[str, ...], shape: str) -> None:
    r"""Refuse a first line split by another delimiter than the accepted ones.

    >>> _check_delimiter("ID;CUIs", 1, "gt.csv", (",", "\t"), "'ID,CUIs'")
    Traceback (most recent call last):
    ...
    evalcore.errors.InputError: gt.csv, line 1: expected 'ID,CUIs' with fields separated by ',' or a tab, found ';' as the delimiter
    """
    if not first or any(d in first for d in accepted):
        return
    found = next((d for d in DELIMITER_NAMES if d in first and d not in accepted), None)
    if found is not None:
        wanted = " or ".join(DELIMITER_NAMES[d] for d in accepted)
        raise InputError(display, line, f"{shape} with fields separated by {wanted}", f"{DELIMITER_NAMES[found]} as the delimiter")


def _cui_set(raw: str, separators: str, display: str, line: int) -> frozenset[str]:
    tokens = [t.strip() for t in re.split(f"[{re.escape(separators)}]", raw)] if raw.strip() else []
    if len(tokens) > MAX_CONCEPTS_PER_IMAGE:
        raise InputError(display, line, f"at most {MAX_CONCEPTS_PER_IMAGE} concepts per image", f"{len(tokens)}")
    cuis = set()
    for token in tokens:
        cui = token.upper()
        if not CUI_PATTERN.match(cui):
            shown = token if token else "an empty CUI token"
            raise InputError(display, line, "CUIs of the form C + 7 digits", repr(shown)[:60])
        cuis.add(cui)
    return frozenset(cuis)


def _check_id(image_id: str, display: str, line: int) -> str:
    if not image_id or len(image_id) > MAX_ID_CHARS or _WHITESPACE.search(image_id):
        raise InputError(display, line, "an image ID without spaces (1-300 characters)", repr(image_id)[:60])
    return image_id


def read_concepts(source: Source, name: str | None = None) -> ConceptSets:
    """Read concept sets: ROCOv2 CSV ``ID,CUIs`` (``;``-joined) or ImageCLEF ``ID<TAB>C1,C2``.

    Lines of the usual form (an ID, then CUIs) are split and checked as arrays; any other
    line (a header, padded fields, an error) goes through the line-by-line definition, which
    names the first offending line. Files with quoted fields are read line by line.

    >>> c = read_concepts(b"ID,CUIs\\nimg1,C0040405;c0817096\\nimg2,\\n", "gt.csv")
    >>> c.ids, sorted(c["img1"]), c["img2"]
    (('img1', 'img2'), ['C0040405', 'C0817096'], frozenset())
    """
    data, display = read_checked_bytes(source, name)
    first_line, first = _first_line_of(data)
    _check_delimiter(first, first_line, display, (",", "\t"), "'ID,CUIs' (or ImageCLEF 'ID<TAB>C1,C2')")
    tab = "\t" in first
    concepts = _concepts_by_columns(data, display, tab)
    return concepts if concepts is not None else _concepts_by_lines(data.decode("utf-8"), display, tab)


def _concepts_by_lines(text: str, display: str, tab: bool) -> ConceptSets:
    """The definition, one line at a time (files with quoted fields or lone carriage returns)."""
    rows = _tab_rows(text, display) if tab else _csv_rows(text, display)
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
    return _check_id(fields[0], display, line), fields[1]


def _repeated_concept_id(display: str, line: int, image_id: str, earlier: int) -> InputError:
    return InputError(display, line, f"a new ID ({image_id!r} already on line {earlier})", "a duplicate")


# One row of the usual form: an ID (no whitespace or comma; no ';' or '|' when alone), then CUIs, all ASCII.
_CONCEPT_LINE = {
    False: r"^(?:[!-+\--:<-{}~]{1,300}|[!-+\--~]{1,300},(?:[Cc][0-9]{7}(?:;[Cc][0-9]{7})*)?)$",
    # A tab-separated line is stripped first: "ID<TAB>" is the ID alone, so it may not hold ';' or '|' either.
    True: r"^(?:[!-:<-{}~]{1,300}\t?|[!-~]{1,300}\t[Cc][0-9]{7}(?:[,;][Cc][0-9]{7})*)$",
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
        text = _universal_newlines(data)
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
        return _csv_line(content, line, display)
    content = content.strip()
    if not content:
        return None
    fields = content.split("\t")
    if len(fields) > 2:
        raise InputError(display, line, "ID<TAB>CUIs", f"{len(fields)} tab-separated fields")
    return [f.strip() for f in fields]


def _is_concept_header(fields: list[str]) -> bool:
    return len(fields) >= 2 and not CUI_PATTERN.match(fields[1].split(";")[0].strip().upper()) and (
        fields[0].lower() in {"id", "image", "image_id", "imageid"} or fields[1].lower() in {"cuis", "cui", "concepts"}
    )


def _tab_rows(text: str, display: str) -> Iterator[tuple[int, list[str]]]:
    for line, content in _split_lines(text, display):
        fields = content.split("\t")
        if len(fields) > 2:
            raise InputError(display, line, "ID<TAB>CUIs", f"{len(fields)} tab-separated fields")
        yield line, [f.strip() for f in fields]


def read_pairs(source: Source, name: str | None = None) -> list[tuple[int, str, str]]:
    """Read image pairs: CSV with the header ``a,b``; returns ``(line, a, b)`` per pair.

    Lines of the usual form (two IDs) are split as arrays; any other line is read by the
    line-by-line definition, in line order, so the first offending line is named.

    >>> read_pairs(b"a,b\\nimg1,img2\\n", "pairs.csv")
    [(2, 'img1', 'img2')]
    """
    data, display = read_checked_bytes(source, name)
    first_line, first = _first_line_of(data)
    _check_delimiter(first, first_line, display, (",",), "a header 'a,b'")
    pairs = _pairs_by_columns(data, display)
    if pairs is None:
        pairs = _pairs_by_lines(data.decode("utf-8"), display)
    if not pairs and first_line == 0:
        raise InputError(display, None, "a header 'a,b'", "an empty file")
    return pairs


def _pairs_by_lines(text: str, display: str) -> list[tuple[int, str, str]]:
    pairs: list[tuple[int, str, str]] = []
    for position, (line, fields) in enumerate(_csv_rows(text, display)):
        if position == 0:
            _check_pairs_header(fields, display, line)
            continue
        pairs.append(_pair_row(fields, display, line))
    return pairs


def _check_pairs_header(fields: list[str], display: str, line: int) -> None:
    if [f.lower() for f in fields[:2]] != ["a", "b"]:
        raise InputError(display, line, "a header 'a,b'", ",".join(fields)[:60])


def _pair_row(fields: list[str], display: str, line: int) -> tuple[int, str, str]:
    if len(fields) != 2:
        raise InputError(display, line, "2 image IDs 'a,b'", f"{len(fields)} fields")
    return line, _check_id(fields[0], display, line), _check_id(fields[1], display, line)


_ID = r"[!#-+\--~]{1,300}"  # an image ID of printable ASCII without quote, space or comma


def _universal_newlines(data: bytes) -> bytes:
    """``data`` with CR LF and lone CR line breaks written as LF, as Python's universal newlines read them.

    >>> _universal_newlines(b"a\\r\\nb\\rc\\n")
    b'a\\nb\\nc\\n'
    """
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data


def _pairs_by_columns(data: bytes, display: str) -> list[tuple[int, str, str]] | None:
    if b'"' in data:
        return None
    lines = line_column(_universal_newlines(data))
    if lines is None:
        return None
    column, index = lines
    numbers, usual, scanned = _usual_and_scanned(column, index, _ID + "," + _ID + "$", display)
    first = pc.replace_substring_regex(column, ",.*", "", max_replacements=1).to_pylist()
    second = pc.replace_substring_regex(column, "^[^,]*,", "", max_replacements=1).to_pylist()
    keep = usual.copy()
    header_done = False
    for row, fields in scanned:
        if fields is None:
            continue
        line = int(numbers[row])
        if not header_done:
            header_done, keep[row] = True, False
            _check_pairs_header(fields, display, line)
            continue
        if not usual[row]:
            _, first[row], second[row] = _pair_row(fields, display, line)
            keep[row] = True
    rows = np.flatnonzero(keep)
    return list(zip(numbers[rows].tolist(), take(first, rows), take(second, rows)))


def read_captions(source: Source, name: str | None = None) -> dict[str, str]:
    """Read ``ID,Caption`` CSV (quoted captions may span lines)."""
    text, display = read_text(source, name)
    first_line, first = _first_line(text)
    _check_delimiter(first, first_line, display, (",",), "'ID,Caption'")
    captions: dict[str, str] = {}
    for position, (line, fields) in enumerate(_csv_rows(text, display)):
        if position == 0 and fields[0].lower() in {"id", "image_id"}:
            continue
        if len(fields) != 2:
            raise InputError(display, line, "2 fields (ID,Caption); quote captions containing commas", f"{len(fields)} fields")
        image_id = _check_id(fields[0], display, line)
        if image_id in captions:
            raise InputError(display, line, "a new ID", f"duplicate {image_id!r}")
        captions[image_id] = fields[1]
    return captions


def read_concept_names(source: Source, name: str | None = None) -> dict[str, str]:
    """Read ``CUI,Name`` CSV (ROCOv2 ``cui_mapping.csv``) or UMLS ``MRCONSO.RRF`` (English preferred names).

    >>> read_concept_names(b"CUI,Canonical name\\nC0042449,Veins\\n", "names.csv")
    {'C0042449': 'Veins'}
    """
    data, display = read_checked_bytes(source, name)
    first_line, first = _first_line_of(data)
    if first.count("|") >= 14 or display.lower().endswith(".rrf") or _pipe_separated(first):
        return _read_mrconso(data.decode("utf-8"), display)
    _check_delimiter(first, first_line, display, (",",), "'CUI,Name' (or MRCONSO.RRF)")
    names = _names_by_columns(data, display)
    return names if names is not None else _names_by_lines(data.decode("utf-8"), display)


def _names_by_lines(text: str, display: str) -> dict[str, str]:
    names: dict[str, str] = {}
    for position, (line, fields) in enumerate(_csv_rows(text, display)):
        if position == 0 and not CUI_PATTERN.match(fields[0].upper()):
            continue
        node, label = _name_row(fields, display, line)
        names[node] = label
    return names


def _name_row(fields: list[str], display: str, line: int) -> tuple[str, str]:
    if len(fields) < 2:
        raise InputError(display, line, "2 fields (CUI,Name)", f"{len(fields)} field")
    node = fields[0]
    if not NODE_PATTERN.match(node):
        raise InputError(display, line, "a concept ID without spaces", repr(node)[:60])
    return _cui_upper(node), fields[1]


def _cui_upper(node: str) -> str:
    return node.upper() if CUI_PATTERN.match(node.upper()) else node


# Usual CSV lines: a node ID of printable ASCII (no quote, space, ',', ';' or '|'), then fields that need no
# stripping (quoted or not; a quoted name may hold commas and doubled quotes).
_NODE = r"[!#-+\--:<-{}~]{1,200}"
_NAME_LINE = _NODE + r',(?:[!#-+\--~](?:[^",]*[!#-+\--~])?|"(?:[!#-~]|"")(?:(?:[^"]|"")*(?:[!#-~]|""))?"|)$'
_EDGE_LINE = {",": _NODE + "," + _NODE + r"(?:,(?:[!-+\--~](?:[^,]*[!-+\--~])?)?)*$",
              "\t": _NODE + "\t" + _NODE + r"(?:\t(?:[!-~](?:[^\t]*[!-~])?)?)*$"}


def _upper_cuis(nodes: pa.ChunkedArray) -> pa.ChunkedArray:
    return pc.if_else(pc.match_substring_regex(nodes, r"^[Cc][0-9]{7}$"), pc.utf8_upper(nodes), nodes)


def _usual_and_scanned(column: pa.ChunkedArray, index: LineIndex, pattern: str, display: str, delimiter: str = ","
                       ) -> tuple[np.ndarray, np.ndarray, Iterator[tuple[int, list[str] | None]]]:
    """Line numbers, the usual-line mask, and, lazily and in line order, the fields of the other lines plus the
    first usual one (it may be a header) as the line-by-line definition splits them (None: a blank row)."""
    numbers = index.line_of_rows(np.arange(len(column)))
    usual = pc.match_substring_regex(column, "^" + pattern).to_numpy(zero_copy_only=False)
    scanned = np.flatnonzero(~usual).tolist()
    if usual.any():
        scanned = sorted(scanned + [int(np.argmax(usual))])
    fields = ((row, _csv_line(index.text(int(numbers[row])), int(numbers[row]), display, delimiter)) for row in scanned)
    return numbers, usual, fields


def _names_by_columns(data: bytes, display: str) -> dict[str, str] | None:
    lines = line_column(_universal_newlines(data))
    if lines is None:
        return None
    column, index = lines
    numbers, usual, scanned = _usual_and_scanned(column, index, _NAME_LINE, display)
    keep = usual.copy()
    nodes = _upper_cuis(pc.replace_substring_regex(column, ",.*", "", max_replacements=1)).to_pylist()
    raw = pc.replace_substring_regex(column, "^[^,]*,", "", max_replacements=1)
    quoted = pc.starts_with(raw, '"')
    labels = pc.if_else(quoted, pc.replace_substring(pc.utf8_slice_codeunits(raw, 1, -1), '""', '"'), raw).to_pylist()
    header_done = False
    try:
        for row, fields in scanned:
            if fields is None:
                continue
            if not header_done:
                header_done = True
                if not CUI_PATTERN.match(fields[0].upper()):
                    keep[row] = False
                    continue
            if not usual[row]:
                nodes[row], labels[row] = _name_row(fields, display, int(numbers[row]))
                keep[row] = True
    except InputError as error:
        if error.expected == "well-formed CSV":
            return None  # a quoted field may go on over the next line: read the file as a whole
        raise
    rows = np.flatnonzero(keep)
    return dict(zip(take(nodes, rows), take(labels, rows)))


def _read_mrconso(text: str, display: str) -> dict[str, str]:
    """MRCONSO columns: CUI|LAT|TS|LUI|STT|SUI|ISPREF|AUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|..."""
    preferred: dict[str, tuple[int, str]] = {}
    for line, content in _split_lines(text, display):
        fields = content.split("|")
        if len(fields) < 15:
            raise InputError(display, line, "MRCONSO.RRF rows with at least 15 '|'-separated fields", f"{len(fields)}")
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


def _pipe_separated(first: str) -> bool:
    """A first line split by '|' only: a UMLS .RRF file, whatever its name."""
    return "|" in first and "," not in first and "\t" not in first


def _is_obo(first: str) -> bool:
    return first.startswith("format-version:") or first == "[Term]"


def _is_mrrel(first: str, display: str) -> bool:
    return first.count("|") >= 10 or display.lower().endswith(".rrf") or _pipe_separated(first)


def read_kg(source: Source, name: str | None = None) -> KGEdges | KGEdgeTable:
    """Read a KG file: edge list CSV/TSV ``child,parent[,...]``, UMLS ``MRREL.RRF`` or OBO.

    A MRREL.RRF file is read in one streaming pass (its byte budget is
    :data:`DEFAULT_MAX_MRREL_BYTES`: memory follows the is_a edges kept, not the file) and
    comes back as a :class:`KGEdgeTable`.

    >>> kg = read_kg(b"child,parent,source\\nC0042449,C0005847,mesh\\n", "kg.csv")
    >>> kg.edges
    (('C0042449', 'C0005847', 'mesh'),)
    """
    if not isinstance(source, bytes):
        streamed = _stream_mrrel(Path(source), name or str(source))
        if streamed is not None:
            return streamed
    data, display = read_checked_bytes(source, name)
    first_line, first = _first_line_of(data)
    if _is_obo(first):
        return _read_obo(data.decode("utf-8"), display)
    if _is_mrrel(first, display):
        return _read_mrrel(_numbered_pieces(data), display, checked=True)
    _check_delimiter(first, first_line, display, (",", "\t"), "an edge list 'child,parent' (or MRREL.RRF or OBO)")
    delimiter = "\t" if "\t" in first else ","
    edges = _edges_by_columns(data, display, delimiter)
    if edges is None:
        edges = _edges_by_lines(data.decode("utf-8"), display, delimiter)
    if not edges:
        raise InputError(display, None, "at least one edge 'child,parent'", "none")
    return KGEdges(tuple(edges), {}, display)


def _stream_mrrel(path: Path, display: str) -> KGEdgeTable | None:
    """A MRREL.RRF file read a piece at a time, or None if the file is not one (or its start is unusual: no line
    break in the first piece, not UTF-8), which the whole-file reader then reads or refuses."""
    budget = max_input_bytes(DEFAULT_MAX_MRREL_BYTES)
    handle, _ = _open_regular(path, display, budget)
    with handle:
        head = handle.read(PEEK_BYTES)
        text = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
        complete = text[: text.rfind(b"\n") + 1] if len(head) == PEEK_BYTES else text
        try:
            _, first = _first_line_of(complete)
        except UnicodeDecodeError:
            return None
        if not first or _is_obo(first) or not _is_mrrel(first, display):
            return None
        handle.seek(len(head) - len(text))
        return _read_mrrel(_line_aligned_reads(handle, display, budget), display, checked=False)


def _numbered_pieces(data: bytes) -> Iterator[tuple[bytes, int]]:
    """:func:`line_aligned_pieces` of ``data`` with the number of their first line."""
    line = 1
    for start, end in line_aligned_pieces(data):
        piece = data[start:end]
        yield piece, line
        line += piece.count(b"\n")


def _line_aligned_reads(handle, display: str, budget: int) -> Iterator[tuple[bytes, int]]:
    """Pieces of about :data:`READ_PIECE_BYTES` that end after a line feed (or at the end), with the number of
    their first line; a file that grows past the budget while it is read is refused."""
    carry, line, total = b"", 1, 0
    while True:
        if len(carry) > MAX_LINE_BYTES:  # refused before reading more of it: what is buffered stays bounded
            raise _unfinished_line_error(carry, line, display)
        block = handle.read(READ_PIECE_BYTES)
        total += len(block)
        if total > budget:
            raise InputError(display, None, _describe_budget(budget), "more")
        if not block:
            if carry:
                yield carry, line
            return
        cut = block.rfind(b"\n")
        if cut < 0:
            carry += block
            continue
        whole = block if cut == len(block) - 1 else block[: cut + 1]
        piece, carry = (carry + whole if carry else whole), block[cut + 1:]
        yield piece, line
        line += piece.count(b"\n")


def _edge_header(fields: list[str]) -> int | None | bool:
    """For the first row: False if it is data, else the position of its ``source`` column (None if none)."""
    if [f.lower() for f in fields[:2]] != ["child", "parent"]:
        return False
    lowered = [f.lower() for f in fields]
    return lowered.index("source") if "source" in lowered else None


def _edge_row(fields: list[str], source_column: int | None, default_source: str, display: str, line: int
              ) -> tuple[str, str, str]:
    if len(fields) < 2:
        raise InputError(display, line, "2 fields 'child,parent' (is_a, child -> parent)", f"{len(fields)} field")
    child, parent = (_kg_node(f, display, line) for f in fields[:2])
    tag = fields[source_column] if source_column is not None and source_column < len(fields) else default_source
    return child, parent, tag or default_source


def _edges_by_lines(text: str, display: str, delimiter: str) -> list[tuple[str, str, str]]:
    edges: list[tuple[str, str, str]] = []
    default_source = Path(display).stem
    source_column: int | None = None
    for position, (line, fields) in enumerate(_csv_rows(text, display, delimiter)):
        header = _edge_header(fields) if position == 0 else False
        if header is not False:
            source_column = header
            continue
        child, parent, tag = _edge_row(fields, source_column, default_source, display, line)
        if child != parent:
            edges.append((child, parent, tag))
    return edges


def _edges_by_columns(data: bytes, display: str, delimiter: str) -> list[tuple[str, str, str]] | None:
    if b'"' in data:
        return None
    lines = line_column(_universal_newlines(data))
    if lines is None:
        return None
    column, index = lines
    numbers, usual, scanned = _usual_and_scanned(column, index, _EDGE_LINE[delimiter], display, delimiter)
    default_source = Path(display).stem
    keep = usual.copy()
    source_column: int | None = None
    header_done = False
    found: dict[int, tuple[str, str, str]] = {}
    for row, fields in scanned:
        if fields is None:
            continue
        if not header_done:
            header_done = True
            header = _edge_header(fields)
            if header is not False:
                source_column, keep[row] = header, False
                continue
        if not usual[row]:
            found[row] = _edge_row(fields, source_column, default_source, display, int(numbers[row]))
            keep[row] = True
    widest = 2 if source_column is None else max(2, source_column + 1)
    parts = pc.split_pattern(pc.binary_join_element_wise(column, delimiter * widest, ""), delimiter, max_splits=widest)
    children, parents = _upper_cuis(pc.list_element(parts, 0)), _upper_cuis(pc.list_element(parts, 1))
    keep &= pc.not_equal(children, parents).to_numpy(zero_copy_only=False)
    children, parents = children.to_pylist(), parents.to_pylist()
    if source_column is None:
        tags = [default_source] * len(children)
    else:
        tag_column = pc.list_element(parts, source_column)
        tags = pc.if_else(pc.equal(tag_column, ""), default_source, tag_column).to_pylist()
    for row, (child, parent, tag) in found.items():
        children[row], parents[row], tags[row] = child, parent, tag
        keep[row] = child != parent
    return list(compress(zip(children, parents, tags), keep.tolist()))


def _kg_node(raw: str, display: str, line: int) -> str:
    if not NODE_PATTERN.match(raw):
        raise InputError(display, line, "a node ID (CUI or ontology ID) without spaces", repr(raw)[:60])
    return raw.upper() if CUI_PATTERN.match(raw.upper()) else raw


MRREL_FIELDS = 11  # up to SAB, the last column read
MRREL_COLUMNS = {"cui1": 0, "rel": 3, "cui2": 4, "rela": 7, "sab": 10}
# Pieces made only of these bytes (printable ASCII and the line feed) are parsed by pyarrow; any other byte (whitespace
# that str.strip() removes or pyarrow breaks lines on, non-ASCII digits that \d accepts) sends a piece line by line.
_PARSED_BYTES = np.zeros(256, dtype=bool)
_PARSED_BYTES[0x20:0x7F] = _PARSED_BYTES[0x0A] = True


def _read_mrrel(pieces: Iterator[tuple[bytes, int]], display: str, checked: bool) -> KGEdgeTable:
    """MRREL columns: CUI1|AUI1|STYPE1|REL|CUI2|AUI2|STYPE2|RELA|RUI|SRUI|SAB|...

    REL and RELA describe CUI2 relative to CUI1: ``PAR`` / ``inverse_isa`` make CUI2
    the parent of CUI1; ``CHD`` / ``isa`` make CUI2 the child of CUI1. Rows between other
    than two CUIs, or of a CUI with itself, are skipped; repeated edges are kept once.

    ``pieces`` are line-aligned ``(bytes, number of their first line)`` in file order, so a
    file is read in one streaming pass; only the is_a rows are kept. Unless ``checked``
    (the bytes were checked as :func:`read_checked_bytes` checks them), each piece is checked
    here, and the error reported is the one the whole-file check would report first: the
    first byte that is not UTF-8, else the first NUL byte, else the first short row.
    """
    edges = _EdgeParts()
    pending: InputError | None = None
    pieces = iter(pieces)
    while True:
        try:
            piece, first_line = next(pieces)
        except StopIteration:
            break
        except InputError as error:  # a line too long to finish reading: an earlier NUL byte still comes first
            raise pending if pending is not None and pending.expected == "text" and error.expected != "UTF-8 text" \
                else error from None
        if not checked:
            if not piece.isascii():
                try:
                    piece.decode("utf-8")
                except UnicodeDecodeError as error:
                    raise InputError(display, first_line + piece.count(b"\n", 0, error.start), "UTF-8 text",
                                     f"byte 0x{piece[error.start]:02x}") from None
            nul = piece.find(b"\x00")
            if nul >= 0 and (pending is None or pending.expected != "text"):
                pending = InputError(display, first_line + piece.count(b"\n", 0, nul), "text", "a NUL byte (binary file?)")
        long_line = _first_long_line(piece)
        if long_line is not None and (pending is None or pending.expected != "text"):
            pending = _long_line_error(piece, long_line, display, first_line)
        if pending is not None:
            continue  # only a later byte that is not UTF-8 can still take precedence
        try:
            edges.add(*_mrrel_piece(piece, first_line, display))
        except InputError as error:
            pending = error
    if pending is not None:
        raise pending
    if not edges.count:
        raise InputError(display, None, "PAR/CHD or isa/inverse_isa relations between CUIs", "none")
    return edges.table(display)


def _mrrel_piece(piece: bytes, first_line: int, display: str) -> tuple[pa.Array, pa.Array, pa.Array]:
    """The is_a edges ``(child, parent, tag)`` of a line-aligned piece of MRREL.RRF, in row order."""
    columns = _mrrel_columns(piece)
    if columns is None:
        return _mrrel_piece_by_lines(piece, first_line, display)
    cui1, rel, cui2, rela, sab = (columns.column(name) for name in MRREL_COLUMNS)
    cui = r"^C[0-9]{7}$"  # the pieces parsed here are ASCII, where \d is [0-9]
    valid = pc.and_(pc.and_(pc.match_substring_regex(cui1, cui), pc.match_substring_regex(cui2, cui)),
                    pc.not_equal(cui1, cui2))
    up = pc.or_(pc.equal(rela, "inverse_isa"), pc.and_(pc.equal(rel, "PAR"), pc.equal(rela, "")))
    down = pc.or_(pc.equal(rela, "isa"), pc.and_(pc.equal(rel, "CHD"), pc.equal(rela, "")))
    keep = pc.and_(valid, pc.or_(up, down))
    up = pc.filter(up, keep)
    cui1, cui2 = pc.filter(cui1, keep), pc.filter(cui2, keep)
    tag = pc.if_else(pc.equal(pc.filter(sab, keep), ""), "umls", pc.filter(sab, keep))
    return (pc.if_else(up, cui1, cui2).combine_chunks(), pc.if_else(up, cui2, cui1).combine_chunks(),
            tag.combine_chunks())


def _mrrel_columns(piece: bytes) -> pa.Table | None:
    """The columns of :data:`MRREL_COLUMNS`, parsed by pyarrow; None where the piece must be read line by line
    (not ASCII, whitespace that stripping would change, rows of unequal or too few fields)."""
    if not _PARSED_BYTES[np.frombuffer(piece, dtype=np.uint8)].all() or piece.startswith(b" ") or b"\n " in piece:
        return None
    start = len(piece) - len(piece.lstrip(b"\n"))
    end = piece.find(b"\n", start)
    fields = piece.count(b"|", start, len(piece) if end < 0 else end) + 1
    if fields < MRREL_FIELDS or (fields == MRREL_FIELDS and (piece.endswith(b" ") or b" \n" in piece)):
        return None  # too few fields, or spaces that stripping would take off the last field read (SAB)
    names = [f"f{i}" for i in range(fields)]
    invalid: list[bool] = []

    def on_invalid_row(_row) -> str:
        invalid.append(True)
        return "error"

    parse_options = pa_csv.ParseOptions(delimiter="|", quote_char=False, escape_char=False, newlines_in_values=False,
                                        ignore_empty_lines=True, invalid_row_handler=on_invalid_row)
    include = {f"f{position}": name for name, position in MRREL_COLUMNS.items()}
    convert_options = pa_csv.ConvertOptions(column_types={column: pa.string() for column in include},
                                            include_columns=list(include), null_values=[], strings_can_be_null=False,
                                            check_utf8=False)
    try:
        table = read_piece(memoryview(piece), names, parse_options, convert_options)
    except pa.ArrowInvalid:
        return None
    return table.rename_columns([include[name] for name in table.column_names])


def _mrrel_piece_by_lines(piece: bytes, first_line: int, display: str) -> tuple[pa.Array, pa.Array, pa.Array]:
    """:func:`_mrrel_piece` one line at a time: lines split at line feeds and stripped, as the format is defined."""
    edges: list[tuple[str, str, str]] = []
    for line, content in _split_lines(piece.decode("utf-8"), display):
        fields = content.split("|")
        if len(fields) < MRREL_FIELDS:
            raise InputError(display, first_line + line - 1, "MRREL.RRF rows with at least 11 '|'-separated fields",
                             f"{len(fields)}")
        cui1, rel, cui2, rela, sab = (fields[position] for position in MRREL_COLUMNS.values())
        if not (CUI_PATTERN.match(cui1) and CUI_PATTERN.match(cui2)) or cui1 == cui2:
            continue
        if rela == "inverse_isa" or (rel == "PAR" and rela == ""):
            edges.append((cui1, cui2, sab or "umls"))
        elif rela == "isa" or (rel == "CHD" and rela == ""):
            edges.append((cui2, cui1, sab or "umls"))
    child, parent, tag = zip(*edges) if edges else ((), (), ())
    return pa.array(child, pa.string()), pa.array(parent, pa.string()), pa.array(tag, pa.string())


CUI_NUMBERS = 10_000_000  # C0000000 .. C9999999


class _EdgeParts:
    """The is_a rows of the pieces read so far. CUIs of ``C`` and seven ASCII digits (all of them, in a real
    MRREL.RRF) are kept as their number, which orders them as their text does; any other CUI (other digits
    that ``\\d`` accepts) turns every part back into text."""

    def __init__(self) -> None:
        self.children: list[pa.Array | np.ndarray] = []
        self.parents: list[pa.Array | np.ndarray] = []
        self.tags: list[pa.Array] = []
        self.numbers = True
        self.count = 0

    def add(self, child: pa.Array, parent: pa.Array, tag: pa.Array) -> None:
        if self.numbers and not (_ascii_cuis(child) and _ascii_cuis(parent)):
            self.numbers = False
            self.children = [_cui_text(part) for part in self.children]
            self.parents = [_cui_text(part) for part in self.parents]
        self.children.append(_cui_numbers(child) if self.numbers else child)
        self.parents.append(_cui_numbers(parent) if self.numbers else parent)
        self.tags.append(tag)
        self.count += len(child)

    def table(self, display: str) -> KGEdgeTable:
        """Distinct ``(child, parent, tag)`` edges ordered as sorted string triples."""
        tag, tags = _sorted_codes(pa.concat_arrays(self.tags))
        if self.numbers:
            numbers = np.concatenate(self.children + self.parents)
            present = np.zeros(CUI_NUMBERS, dtype=bool)
            present[numbers] = True
            used = np.flatnonzero(present)
            rank = np.zeros(CUI_NUMBERS, dtype=np.int32)
            rank[used] = np.arange(len(used), dtype=np.int32)
            codes, nodes = rank[numbers], _cui_text(used)
        else:
            codes, nodes = _sorted_codes(pa.concat_arrays(self.children + self.parents))
        child, parent, tag = _distinct_triples(codes[: self.count], codes[self.count:], tag, len(nodes), len(tags))
        return KGEdgeTable(nodes, child, parent, tuple(tags.to_pylist()), tag, {}, display)


def _ascii_cuis(values: pa.Array) -> bool:
    return bool(pc.all(pc.match_substring_regex(values, r"^C[0-9]{7}$")).as_py() is not False)


def _cui_numbers(values: pa.Array) -> np.ndarray:
    """``C0012345`` -> 12345 (values checked by :func:`_ascii_cuis`).

    >>> _cui_numbers(pa.array(["C0012345", "C9999999"])).tolist()
    [12345, 9999999]
    """
    return pc.cast(pc.utf8_slice_codeunits(values, 1), pa.int32()).to_numpy(zero_copy_only=False)


def _cui_text(numbers: np.ndarray | pa.Array) -> pa.Array:
    """12345 -> ``C0012345``; text passes through."""
    if isinstance(numbers, pa.Array):
        return numbers
    digits = pc.cast(pa.array(numbers), pa.string())
    return pc.binary_join_element_wise("C", pc.utf8_lpad(digits, 7, "0"), "")


def _sorted_codes(values: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Codes of ``values`` into their distinct values sorted by code point (as ``sorted()`` orders strings).

    >>> codes, distinct = _sorted_codes(pa.array(["b", "a", "b", "é"]))
    >>> codes.tolist(), distinct.to_pylist()
    ([1, 0, 1, 2], ['a', 'b', 'é'])
    """
    encoded = values.dictionary_encode()
    order = pc.sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank[encoded.indices.to_numpy()], encoded.dictionary.take(pa.array(order))


def _distinct_triples(child: np.ndarray, parent: np.ndarray, tag: np.ndarray, nodes: int, tags: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct ``(child, parent, tag)`` code triples in ascending order.

    >>> [c.tolist() for c in _distinct_triples(np.array([1, 0, 1]), np.array([0, 1, 0]), np.array([0, 0, 0]), 2, 1)]
    [[0, 1], [1, 0], [0, 0]]
    """
    if nodes * nodes * tags < 1 << 62:
        # One integer per triple: a sort (not NumPy's hash-based unique, much slower here) and a difference.
        key = np.sort((child.astype(np.int64) * nodes + parent) * tags + tag)
        key = key[np.r_[True, key[1:] != key[:-1]]]
        pair, tag = np.divmod(key, tags)
        child, parent = np.divmod(pair, nodes)
    else:
        order = np.lexsort((tag, parent, child))
        child, parent, tag = child[order], parent[order], tag[order]
        first = np.r_[True, (child[1:] != child[:-1]) | (parent[1:] != parent[:-1]) | (tag[1:] != tag[:-1])]
        child, parent, tag = child[first], parent[first], tag[first]
    return child.astype(np.int32), parent.astype(np.int32), tag.astype(np.int32)


def _read_obo(text: str, display: str) -> KGEdges:
    """OBO terms become nodes; a term with ``xref: UMLS:C...`` becomes its CUI(s), others keep their ID."""
    terms: list[dict] = []
    current: dict | None = None
    for line, content in _split_lines(text, display):
        if content.startswith("["):
            current = {"line": line, "parents": [], "cuis": []} if content == "[Term]" else None
            if current is not None:
                terms.append(current)
            continue
        if current is None or ":" not in content:
            continue
        tag, value = content.split(":", 1)
        value = value.split(" ! ")[0].strip()
        if tag == "id":
            current["id"] = _kg_node(value.split()[0] if value else "", display, line)
        elif tag == "name":
            current["name"] = value
        elif tag == "is_a":
            current["parents"].append(_kg_node(value.split()[0] if value else "", display, line))
        elif tag == "xref" and value.upper().startswith(("UMLS:", "UMLS_CUI:")):
            cui = value.split(":", 1)[1].split()[0].upper()
            if CUI_PATTERN.match(cui):
                current["cuis"].append(cui)
        elif tag == "is_obsolete" and value == "true":
            current["obsolete"] = True
    nodes_of: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for term in terms:
        if "id" not in term:
            raise InputError(display, term["line"], "an 'id:' line in every [Term]", "none")
        if term.get("obsolete"):
            continue
        nodes_of[term["id"]] = term["cuis"] or [term["id"]]
        for node in nodes_of[term["id"]]:
            names.setdefault(node, term.get("name", node))
    source = Path(display).stem
    edges = {
        (child, parent, source)
        for term in terms
        if term.get("id") in nodes_of
        for parent_id in term["parents"]
        for child in nodes_of[term["id"]]
        for parent in nodes_of.get(parent_id, [parent_id])
        if child != parent
    }
    if not edges:
        raise InputError(display, None, "[Term] stanzas with is_a lines", "no is_a edges")
    return KGEdges(tuple(sorted(edges)), names, display)


RUN_FIELDS = ("qid", "q0", "docid", "rank", "score", "tag")
TREC_SHAPE = "6 whitespace-separated fields 'qid Q0 docid rank score tag'"
# Scores of this form convert in pyarrow exactly as float() converts them; others go through float().
PLAIN_FLOAT = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"
# A number's syntax in input files (scores, vector values): trec_eval's atof() reads exactly these (and inf, nan).
_DECIMAL_NUMBER = re.compile(PLAIN_FLOAT)


def read_runs(source: Source, name: str | None = None,
              progress: Callable[[float, str], None] | None = None) -> tuple[Run, ...]:
    """Read a TREC run ``qid Q0 docid rank score tag`` or CSV ``query_id,image_id,rank[,score]``.

    A TREC file holding several tags holds several systems: one :class:`Run` per tag, named
    by the tag, in order of first appearance. A CSV run is one system named by the file stem.
    Within one system and query, each image and each rank occurs once; ranks lie in
    ``0..10^9``. The order is re-derived from (score descending, rank ascending).

    The lines are parsed as columns (pyarrow) and checked as arrays, so a depth-1000 run of
    10 million lines takes seconds; the first offending line is named as a line-by-line
    reading would name it. A TREC run is read :data:`RUN_PIECE_BYTES` at a time, each piece
    kept only as integer codes, so a path's text is never in memory whole (CSV runs are read
    whole). ``progress(fraction, message)`` is called while reading.

    >>> runs = read_runs(b"q1 Q0 d2 2 0.5 sysA\\nq1 Q0 d1 1 0.9 sysA\\nq1 Q0 d1 1 0.2 sysB\\n", "ab.trec")
    >>> [(run.name, dict(run.rankings)) for run in runs]
    [('sysA', {'q1': ('d1', 'd2')}), ('sysB', {'q1': ('d1',)})]
    """
    display, size, pieces = _checked_pieces(source, name, DEFAULT_MAX_RUN_BYTES, RUN_PIECE_BYTES)
    try:
        # The first piece holding a non-blank line tells the format.
        seen: list[Piece] = []
        first_line, first = 0, ""
        for piece, line, line_feeds in pieces:
            seen.append((piece, line, line_feeds))
            number, first = _first_line_of(piece)
            if number:
                first_line = line + number - 1
                break
        is_csv = "," in first and len(first.split()) < 6
        if not is_csv and len(first.split()) < 6:
            _check_delimiter(first, first_line, display, (",", " ", "\t"),
                             "TREC 'qid Q0 docid rank score tag' or CSV 'query_id,image_id,rank[,score]'")

        def reading(done: int, length: int, fraction: float) -> None:
            if progress is not None:
                progress(0.9 * min(1.0, (done + fraction * length) / max(size, 1)), f"Reading {display}")

        if is_csv:
            # CSV runs (a quoted field may span lines) are read whole; TREC runs below, a piece at a time.
            data = b"".join([piece for piece, _, _ in seen] + [piece for piece, _, _ in pieces])
            seen.clear()
            columns = _csv_run_columns(data, display, Path(display).stem, partial(reading, 0, size))
            del data
        else:
            parts, done = [], 0
            for piece, line, line_feeds in chain(_drained(seen), pieces):
                parts.append(_trec_run_columns(piece, display, partial(reading, done, len(piece)), line,
                                               line_feeds + (not piece.endswith(b"\n"))))
                done += len(piece)
                del piece  # the next piece is read while only the columns of this one are kept
            columns = _joined_run_columns(parts)
            del parts
    except InputError:
        for _ in pieces:  # as when the whole file is read first: a byte that is not text anywhere comes first
            pass
        raise
    if progress is not None:
        progress(0.9, f"Checking and ordering {display}")
    runs = _runs_from_columns(columns, display)
    if progress is not None:
        progress(1.0, f"Read {display}")
    return runs


def _drained(items: list) -> Iterator:
    """The items of a list, each removed from it as it is handed out (so that it can be freed after use)."""
    while items:
        yield items.pop(0)


def read_run(source: Source, name: str | None = None,
             progress: Callable[[float, str], None] | None = None) -> Run:
    """Read a run file holding one system (see :func:`read_runs` for files with several TREC tags).

    >>> run = read_run(b"q1 Q0 d2 2 0.5 sysA\\nq1 Q0 d1 1 0.9 sysA\\n", "a.trec")
    >>> run.name, dict(run.rankings)
    ('sysA', {'q1': ('d1', 'd2')})
    """
    runs = read_runs(source, name, progress)
    if len(runs) > 1:
        names = ", ".join(repr(run.name) for run in runs[:5])
        raise InputError(runs[0].source, None, "one system (one TREC tag) per file; read it with read_runs",
                         f"{len(runs)} tags: {names}")
    return runs[0]


def _parse_rank_score(rank_raw: str, score_raw: str | None, display: str, line: int) -> tuple[int, float]:
    """A rank (ASCII digits, 0..MAX_RANK) and a finite score (ASCII decimal syntax), as trec_eval reads them."""
    if not DECIMAL_INTEGER.fullmatch(rank_raw):
        raise InputError(display, line, "an integer rank", repr(rank_raw)[:40])
    rank = _rank_of(rank_raw)
    if rank is None:
        raise InputError(display, line, f"a rank between 0 and {MAX_RANK:,}", rank_raw[:40])
    if score_raw is None:  # a CSV run without a score column: the order is the ranks'
        return rank, 0.0
    if NON_FINITE.fullmatch(score_raw):
        raise InputError(display, line, "a finite score", score_raw)
    if not _DECIMAL_NUMBER.fullmatch(score_raw):
        raise InputError(display, line, "a numeric score", repr(score_raw)[:40])
    score = float(score_raw)
    if not math.isfinite(score):  # beyond the float range, as 1e999
        raise InputError(display, line, "a finite score", score_raw)
    return rank, score


def _rank_of(raw: str) -> int | None:
    """The rank a ``DECIMAL_INTEGER`` text gives, or None when it lies outside 0..MAX_RANK."""
    rank = _bounded_integer(raw, MAX_RANK)
    return rank if rank is not None and rank >= 0 else None


def _trec_entry(line: int, content: str, display: str) -> tuple[str, str, str, int, float]:
    """One TREC line, by definition: ``(tag, qid, docid, rank, score)`` or the InputError naming the line."""
    fields = content.split()
    if len(fields) != 6:
        raise InputError(display, line, TREC_SHAPE, f"{len(fields)} fields")
    qid, _, docid, rank_raw, score_raw, tag = fields
    rank, score = _parse_rank_score(rank_raw, score_raw, display, line)
    return tag, _check_id(qid, display, line), _check_id(docid, display, line), rank, score


def _csv_run_entry(line: int, fields: list[str], columns: dict[str, int], header: bool, display: str
                   ) -> tuple[str, str, int, float]:
    """One CSV run row, by definition: ``(qid, docid, rank, score)`` or the InputError naming the line.

    A run with a score column has a score on every row: a missing or empty one would otherwise
    read as 0 and move its image down the list. Without a header the fields are positional, and
    the first row tells whether the file has scores (see :func:`_csv_run_columns_of`).
    """
    if "rank" not in columns:
        raise InputError(display, 1, "a header 'query_id,image_id,rank[,score]'", "no rank column")
    if len(fields) < columns["rank"] + 1:
        raise InputError(display, line, "fields 'query_id,image_id,rank[,score]'", f"{len(fields)} fields")
    score_raw = None
    if "score" in columns:
        score_raw = fields[columns["score"]] if columns["score"] < len(fields) else ""
        if not score_raw:
            found = "an empty field" if columns["score"] < len(fields) else f"{len(fields)} fields"
            raise InputError(display, line, f"a score in field {columns['score'] + 1} (the file has a score column: "
                             "every row needs one)", found)
    elif not header and len(fields) > len(columns):
        raise InputError(display, line, f"{len(columns)} fields 'query_id,image_id,rank' as on the first row "
                         "(a score on every row or on none)", f"{len(fields)} fields")
    rank, score = _parse_rank_score(fields[columns["rank"]], score_raw, display, line)
    return (_check_id(fields[columns["query_id"]], display, line), _check_id(fields[columns["image_id"]], display, line),
            rank, score)


def _csv_run_header(fields: list[str]) -> dict[str, int] | None:
    """Column positions named by a header row, or None when the row is data."""
    lowered = [f.lower() for f in fields]
    if {"query_id", "image_id"} <= set(lowered):
        return {name: lowered.index(name) for name in ("query_id", "image_id", "rank", "score") if name in lowered}
    return None


NO_HEADER_COLUMNS = {"query_id": 0, "image_id": 1, "rank": 2, "score": 3}
NO_HEADER_UNSCORED = {"query_id": 0, "image_id": 1, "rank": 2}


def _csv_run_columns_of(first_fields: list[str]) -> tuple[dict[str, int], bool]:
    """The column positions a CSV run's first row gives, and whether that row is a header.

    Without a header the fields are positional and a fourth field on the first row is its score:
    the file then has a score column, else none.

    >>> _csv_run_columns_of(["q1", "d1", "1"])
    ({'query_id': 0, 'image_id': 1, 'rank': 2}, False)
    >>> _csv_run_columns_of(["image_id", "query_id", "score", "rank"])
    ({'query_id': 1, 'image_id': 0, 'rank': 3, 'score': 2}, True)
    """
    columns = _csv_run_header(first_fields)
    if columns is not None:
        return columns, True
    return (NO_HEADER_COLUMNS if len(first_fields) > NO_HEADER_COLUMNS["score"] else NO_HEADER_UNSCORED), False


@dataclass
class _RunColumns:
    """The lines of a run file as arrays, one row per line, and how to name a row's line."""

    tags: np.ndarray
    tag_names: list[str] | pa.Array  # an Arrow array for one piece of a TREC run, until the pieces are joined
    queries: np.ndarray
    query_names: list[str] | pa.Array
    documents: np.ndarray
    document_names: list[str] | pa.Array
    ranks: np.ndarray
    scores: np.ndarray
    line_of_rows: Callable[[np.ndarray], np.ndarray]


def _trec_run_columns(data: bytes, display: str, progress: Callable[[float], None], first_line: int = 1,
                      line_count: int | None = None) -> _RunColumns:
    """TREC lines as columns (``data`` begins on line ``first_line`` and holds ``line_count`` lines).

    Files as TREC tools write them (single spaces, LF or CRLF breaks) are parsed as they are; any other
    whitespace is first collapsed as ``str.split()`` sees it."""
    if b"\r" not in data or data.count(b"\r") == data.count(b"\r\n"):
        columns = _trec_columns_of(data, data, display, progress, False, first_line, line_count)
        if columns is not None:
            return columns
    return _trec_columns_of(collapse_whitespace(data), data, display, progress, True, first_line, line_count)


def _trec_columns_of(text: bytes, original: bytes, display: str, progress: Callable[[float], None] | None,
                     collapsed: bool, first_line: int = 1, line_count: int | None = None) -> _RunColumns | None:
    """Parse ``text`` (``original``, or it with whitespace collapsed); None when ``text`` is not collapsed and
    holds a line that is not six single-space-separated fields. Names are left as Arrow arrays
    (:func:`_joined_run_columns` makes them lists), and line numbers need no reference to ``text``."""
    types: dict[str, pa.DataType] = dict.fromkeys(("qid", "q0", "docid", "rank", "tag"), DICTIONARY)
    types["score"] = pa.string() if collapsed else pa.float64()
    parsed = parse_pieces(text, RUN_FIELDS, types, " ", progress=progress)
    if parsed.table is None:
        if not collapsed:
            return None
        _raise_trec_field_count(text, original, display, first_line)
    table = parsed.table
    distinct = {field: dictionary_values(table.column(field)) for field in ("qid", "q0", "docid", "rank", "tag")}
    if not collapsed and any(_spaced_or_empty(values).any() for values in distinct.values()):
        return None
    # Independent column conversions on both cores (NumPy and pyarrow release the GIL).
    (queries, query_values), (documents, document_values), (rank_codes, _), scores = in_parallel(
        partial(dictionary_codes, table.column("qid")), partial(dictionary_codes, table.column("docid")),
        partial(dictionary_codes, table.column("rank")), partial(_score_column, table.column("score"), collapsed))
    rank_of_value, rank_ok = _rank_values(distinct["rank"])
    ranks = rank_of_value[rank_codes]
    tag_values = distinct["tag"]
    tags = np.zeros(len(ranks), dtype=np.int32) if len(tag_values) == 1 else dictionary_codes(table.column("tag"))[0]
    del parsed, table
    # Rows the array checks cannot accept are read by the line-by-line definition, which names the line.
    suspect = ~np.isfinite(scores)
    for ok, codes in ((rank_ok, rank_codes), (_valid_ids(query_values), queries), (_valid_ids(document_values), documents)):
        if not ok.all():
            suspect |= ~ok[codes]
    lines = LineIndex(text, 0, first_line)
    original_lines = lines if original is text else LineIndex(original, 0, first_line)
    for row in np.flatnonzero(suspect):
        line = int(lines.line_of_rows([row])[0])
        _, _, _, ranks[row], scores[row] = _trec_entry(line, original_lines.text(line), display)
    if line_count is None:
        line_count = text.count(b"\n") + (bool(text) and not text.endswith(b"\n"))
    # Every line a row (the usual case): row r is on line first_line + r; otherwise the kept lines are listed.
    kept = None if len(ranks) == line_count else lines.kept_lines()
    return _RunColumns(tags, tag_values, queries, query_values, documents, document_values, ranks, scores,
                       _LineNumbers([0], [first_line], [kept]))


class _LineNumbers:
    """Row -> line number over runs read a piece at a time: each piece's first row and first line, and the
    line of each of its rows where blank lines make them differ (None: row r of the piece is on its line r)."""

    def __init__(self, first_rows: list[int], first_lines: list[int], kept: list[np.ndarray | None]):
        self.first_rows = np.asarray(first_rows, dtype=np.int64)
        self.first_lines = first_lines
        self.kept = kept

    def __call__(self, rows) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        piece = np.searchsorted(self.first_rows, rows, side="right") - 1
        lines = np.empty(len(rows), dtype=np.int64)
        for number in np.unique(piece).tolist():
            chosen = piece == number
            within = rows[chosen] - self.first_rows[number]
            kept = self.kept[number]
            lines[chosen] = within + self.first_lines[number] if kept is None else kept[within]
        return lines


def _joined_codes(parts: list[tuple[np.ndarray, pa.Array]]) -> tuple[np.ndarray, list[str]]:
    """Codes of pieces, each into its own values, as codes into the values of all pieces (first seen first).

    >>> codes, names = _joined_codes([(np.array([0, 1, 0]), pa.array(["a", "b"])), (np.array([1, 0]), pa.array(["c", "a"]))])
    >>> codes.tolist(), names
    ([0, 1, 0, 0, 2], ['a', 'b', 'c'])
    """
    if len(parts) == 1:
        codes, values = parts[0]
        return codes, values.to_pylist()
    encoded = pa.concat_arrays([values for _, values in parts]).dictionary_encode()
    mapping = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
    joined = np.empty(sum(len(codes) for codes, _ in parts), dtype=np.int32)
    row = offset = 0
    for codes, values in parts:
        np.take(mapping[offset:offset + len(values)], codes, out=joined[row:row + len(codes)])
        row, offset = row + len(codes), offset + len(values)
    return joined, encoded.dictionary.to_pylist()


def _joined_run_columns(parts: list[_RunColumns]) -> _RunColumns:
    """The columns of a run read a piece at a time, as one (names become lists shared by every piece)."""
    if not parts:
        return _RunColumns(*([np.zeros(0, dtype=np.int32), []] * 3), np.zeros(0, dtype=np.int32), np.zeros(0),
                           _LineNumbers([0], [1], [None]))
    tags, tag_names = _joined_codes([(part.tags, part.tag_names) for part in parts])
    queries, query_names = _joined_codes([(part.queries, part.query_names) for part in parts])
    documents, document_names = _joined_codes([(part.documents, part.document_names) for part in parts])
    sizes = np.cumsum([0] + [len(part.ranks) for part in parts])
    lines = _LineNumbers(sizes[:-1].tolist(), [part.line_of_rows.first_lines[0] for part in parts],
                         [part.line_of_rows.kept[0] for part in parts])
    return _RunColumns(tags, tag_names, queries, query_names, documents, document_names,
                       np.concatenate([part.ranks for part in parts]), np.concatenate([part.scores for part in parts]),
                       lines)


def _score_column(column: pa.ChunkedArray, as_text: bool) -> np.ndarray:
    """Scores as floats; from text, those of plain decimal form convert in pyarrow (exactly as ``float()``)
    and the others are left NaN for the line-by-line definition to read."""
    if not as_text:
        return float_column(column)
    plain = pc.match_substring_regex(column, PLAIN_FLOAT).to_numpy(zero_copy_only=False)
    scores = np.full(len(plain), np.nan)
    scores[plain] = pc.cast(column.filter(pa.array(plain)), pa.float64()).to_numpy()
    return scores


def _raise_trec_field_count(text: bytes, original: bytes, display: str, first_line: int = 1) -> NoReturn:
    """Name the first line of collapsed ``text`` without six fields, after the errors of the lines before it."""
    lines = LineIndex(text, 0, first_line)
    counts = lines.field_counts(ord(" "))
    index = int(np.flatnonzero((counts != 0) & (counts != 6))[0])
    start = lines.line_start(first_line + index)
    if start:
        _trec_columns_of(text[:start], original, display, None, collapsed=True, first_line=first_line)
    raise InputError(display, first_line + index, TREC_SHAPE, f"{counts[index]} fields")


def _csv_run_columns(data: bytes, display: str, system: str, progress: Callable[[float], None]) -> _RunColumns:
    """CSV run rows as columns; files with quotes, ragged rows or padded values are read line by line."""
    text = _universal_newlines(data)
    first_line, first, after_first = _first_line_span(text)
    first_fields = _csv_line(first, first_line, display) if first else None
    columns, header = _csv_run_columns_of(first_fields) if first_fields else (NO_HEADER_COLUMNS, False)
    if header:
        body_line, body_start = first_line + 1, after_first
    else:
        body_line, body_start = first_line, text.rfind(b"\n", 0, after_first - 1) + 1
    width = len(first_fields or ())
    used = {name: f"c{column}" for name, column in columns.items() if column < width}
    parsed = None
    if b'"' not in text and first_fields and "rank" in used:
        types = {used[name]: DICTIONARY for name in ("query_id", "image_id", "rank")}
        if "score" in used:
            types[used["score"]] = pa.float64()
        parsed = parse_pieces(text, [f"c{i}" for i in range(width)], types, ",", include=list(types),
                              progress=progress, start=body_start)
    coded = {} if parsed is None or parsed.table is None else {
        name: dictionary_codes(parsed.table.column(used[name])) for name in ("query_id", "image_id", "rank")}
    if not coded or any(_padded_or_empty(values).any() for _, values in coded.values()):
        return _run_columns_from_entries(_csv_run_entries(data.decode("utf-8"), display, system))
    (queries, query_values), (documents, document_values) = coded["query_id"], coded["image_id"]
    rank_codes, rank_values = coded["rank"]
    rank_of_value, rank_ok = _rank_values(rank_values)
    ranks = rank_of_value[rank_codes]
    scores = float_column(parsed.table.column(used["score"])) if "score" in used else np.zeros(len(ranks))
    suspect = ~np.isfinite(scores)
    for ok, codes in ((rank_ok, rank_codes), (_valid_ids(query_values), queries), (_valid_ids(document_values), documents)):
        if not ok.all():
            suspect |= ~ok[codes]
    lines = LineIndex(text, body_start, body_line)
    for row in np.flatnonzero(suspect):
        line = int(lines.line_of_rows([row])[0])
        fields = _csv_line(lines.text(line), line, display) or []
        _, _, ranks[row], scores[row] = _csv_run_entry(line, fields, columns, header, display)
    return _RunColumns(np.zeros(len(ranks), dtype=np.int32), [system], queries, query_values.to_pylist(), documents,
                       document_values.to_pylist(), ranks, scores, lines.line_of_rows)


def _csv_run_entries(text: str, display: str, system: str) -> list:
    """CSV run rows line by line (quoted fields, ragged rows): ``(line, tag, qid, docid, rank, score)``."""
    entries = []
    columns, header = NO_HEADER_COLUMNS, False
    for position, (line, fields) in enumerate(_csv_rows(text, display)):
        if position == 0:
            columns, header = _csv_run_columns_of(fields)
            if header:
                continue
        entries.append((line, system, *_csv_run_entry(line, fields, columns, header, display)))
    return entries


def _run_columns_from_entries(entries: list) -> _RunColumns:
    lines = np.array([entry[0] for entry in entries], dtype=np.int64)

    def coded(values) -> tuple[np.ndarray, list[str]]:
        codes: dict[str, int] = {}
        return np.array([codes.setdefault(v, len(codes)) for v in values], dtype=np.int32), list(codes)

    tags, tag_names = coded(entry[1] for entry in entries)
    queries, query_names = coded(entry[2] for entry in entries)
    documents, document_names = coded(entry[3] for entry in entries)
    ranks = np.array([entry[4] for entry in entries], dtype=np.int64)
    scores = np.array([entry[5] for entry in entries], dtype=np.float64)
    return _RunColumns(tags, tag_names, queries, query_names, documents, document_names, ranks, scores,
                       lambda rows: lines[np.asarray(rows, dtype=np.int64)])


def _runs_from_columns(columns: _RunColumns, display: str) -> tuple[Run, ...]:
    """One :class:`Run` per tag: duplicates refused with both line numbers, lists ordered by (score desc, rank asc).

    A file whose lines already come grouped by query in that order (as every TREC tool
    writes them) is taken as it is; otherwise the rows are sorted.
    """
    c = columns
    rows = len(c.ranks)
    if rows == 0:
        raise InputError(display, None, "at least one run line", "none")
    pair = c.queries if len(c.tag_names) == 1 else c.tags.astype(np.int64) * max(len(c.query_names), 1) + c.queries
    boundaries = np.flatnonzero(pair[1:] != pair[:-1]) + 1
    starts = np.concatenate(([0], boundaries))
    contiguous = len(np.unique(pair[starts])) == len(starts)
    if contiguous:
        group = np.zeros(rows, dtype=np.int64)
        group[boundaries] = 1
        np.cumsum(group, out=group)
        first_rows = starts
        # The order checks and the search for a repeated image are independent: one on each core.
        (ranks_unique, in_order), repeated_image = in_parallel(
            partial(_ordered_within_groups, c.ranks, c.scores, boundaries),
            partial(_repeated_image, group, c.documents, len(c.document_names), True))
    else:
        _, first_of_value, value_of_row = np.unique(pair, return_index=True, return_inverse=True)
        appearance = np.argsort(first_of_value, kind="stable")
        number = np.empty(len(appearance), dtype=np.int64)
        number[appearance] = np.arange(len(appearance))
        group, first_rows = number[value_of_row], first_of_value[appearance]
        ranks_unique = in_order = False
        repeated_image = _repeated_image(group, c.documents, len(c.document_names), False)
    del pair
    _refuse_duplicates(c, group, repeated_image, ranks_unique, display)
    # Systems in order of their tag's first line; each system's queries in order of their first line.
    tag_of_group = c.tags[first_rows]
    tag_values, first_group_of_tag = np.unique(tag_of_group, return_index=True)
    tag_order = tag_values[np.argsort(first_group_of_tag, kind="stable")]
    tag_position = np.empty(len(c.tag_names), dtype=np.int64)
    tag_position[tag_order] = np.arange(len(tag_order))
    group_key = tag_position[tag_of_group]
    groups_in_order = bool(np.all(group_key[1:] >= group_key[:-1]))
    group_order = np.arange(len(first_rows)) if groups_in_order else np.argsort(group_key, kind="stable")
    if contiguous and in_order and groups_in_order:
        documents = c.documents
    else:
        position = np.empty(len(group_order), dtype=np.int64)
        position[group_order] = np.arange(len(group_order))
        documents = c.documents[np.lexsort((c.ranks, -c.scores, position[group]))]
    sizes = np.bincount(group, minlength=len(first_rows))[group_order]
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    query_names = np.asarray(c.query_names, dtype=object)
    document_names = np.asarray(c.document_names, dtype=object)
    tag_bounds = np.searchsorted(group_key[group_order], np.arange(len(tag_order) + 1))
    runs = []
    for tag, low, high in zip(tag_order, tag_bounds[:-1], tag_bounds[1:]):
        chosen = group_order[low:high]
        queries = query_names[c.queries[first_rows[chosen]]].tolist()
        lists = RankedLists(queries, document_names, documents[offsets[low]:offsets[high]],
                            offsets[low:high + 1] - offsets[low])
        runs.append(Run(c.tag_names[tag], lists, display))
    return tuple(runs)


def _ordered_within_groups(ranks: np.ndarray, scores: np.ndarray, boundaries: np.ndarray) -> tuple[bool, bool]:
    """For rows grouped by query: whether ranks rise within each group, and whether each group is already
    in (score descending, rank ascending) order."""
    across = np.zeros(len(ranks) - 1, dtype=bool)
    across[boundaries - 1] = True
    rank_rises = ranks[1:] > ranks[:-1]
    ranks_unique = bool(np.all(across | rank_rises))
    in_order = bool(np.all(across | (scores[1:] < scores[:-1]) | ((scores[1:] == scores[:-1]) & rank_rises)))
    return ranks_unique, in_order


def _repeated_image(group: np.ndarray, documents: np.ndarray, size: int, contiguous: bool) -> tuple[int, int] | None:
    """The first row repeating an image of its group, and the row it repeats (None if none)."""
    documents = documents.astype(np.int64)
    if contiguous and not _repeats_within_groups(group, documents, size):
        return None
    return _first_repeat(group, documents, size)


def _refuse_duplicates(c: _RunColumns, group: np.ndarray, repeated_image: tuple[int, int] | None, ranks_unique: bool,
                       display: str) -> None:
    """The first line repeating an image, or a rank, of its system and query, named with the line it repeats."""
    repeated_rank = None if ranks_unique else _first_repeat(group, c.ranks, MAX_RANK + 1)
    found = [repeat for repeat in (repeated_image, repeated_rank) if repeat is not None]
    if not found:
        return
    row, earlier = min(found, key=lambda repeat: repeat[0])
    line, earlier_line = (int(n) for n in c.line_of_rows(np.array([row, earlier])))
    if repeated_image is not None and row == repeated_image[0]:
        image = c.document_names[c.documents[row]]
        raise InputError(display, line, f"each image once per query ({image!r} already on line {earlier_line})",
                         "a duplicate")
    query = c.query_names[c.queries[row]]
    raise InputError(display, line, f"each rank once per query (rank {int(c.ranks[row])} of query {query!r} already "
                     f"on line {earlier_line})", "a duplicate rank")


def _repeats_within_groups(group: np.ndarray, values: np.ndarray, size: int, block: int = 1 << 22) -> bool:
    """Whether a value repeats within a group, for rows sorted by group, without sorting: each row writes its
    number into the slot of its (group, value), a block of groups at a time; a repeat reads back another number.

    >>> _repeats_within_groups(np.array([0, 0, 1, 1]), np.array([3, 4, 4, 3]), 5), \\
    ...     _repeats_within_groups(np.array([0, 0, 1]), np.array([3, 3, 4]), 5)
    (False, True)
    """
    if len(values) <= block:
        # Few rows: sorting them is cheaper than touching the slots of a whole block.
        ordered = np.sort(group * size + values)
        return bool(np.any(ordered[1:] == ordered[:-1]))
    per_block = max(1, block // max(size, 1))
    last = int(group[-1]) + 1
    block_starts = np.arange(0, last, per_block)
    bounds = np.searchsorted(group, np.concatenate((block_starts, [last])))
    slots = np.empty(per_block * size, dtype=np.int64)
    for first_group, low, high in zip(block_starts, bounds[:-1], bounds[1:]):
        key = (group[low:high] - first_group) * size + values[low:high]
        number = np.arange(high - low)
        slots[key] = number
        if np.any(slots[key] != number):
            return True
    return False


def _first_repeat(major: np.ndarray, minor: np.ndarray, minor_size: int) -> tuple[int, int] | None:
    """The first row whose ``(major, minor)`` pair occurs on an earlier row, and the first such earlier row.

    >>> _first_repeat(np.array([0, 0, 1, 0]), np.array([5, 6, 5, 6]), 10)
    (3, 1)
    """
    if (int(major.max()) + 1) * minor_size < 1 << 62:
        key = major * minor_size + minor
        order = np.argsort(key, kind="stable")
        ordered = key[order]
        same = ordered[1:] == ordered[:-1]
    else:
        order = np.lexsort((minor, major))
        same = (major[order][1:] == major[order][:-1]) & (minor[order][1:] == minor[order][:-1])
    if not same.any():
        return None
    positions = np.flatnonzero(same) + 1
    earliest = int(np.argmin(order[positions]))
    position = positions[earliest]
    breaks = np.flatnonzero(~same[:position])
    return int(order[position]), int(order[breaks[-1] + 1 if len(breaks) else 0])


def _rank_values(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct rank text as :func:`_parse_rank_score` reads it, and whether it is a rank in 0..MAX_RANK."""
    ranks = np.zeros(len(values), dtype=np.int32)  # MAX_RANK < 2**31
    ok = np.zeros(len(values), dtype=bool)
    for i, raw in enumerate(values.to_pylist()):
        rank = _rank_of(raw) if DECIMAL_INTEGER.fullmatch(raw) else None
        if rank is not None:
            ranks[i], ok[i] = rank, True
    return ranks, ok


def _valid_ids(values: pa.Array) -> np.ndarray:
    """Which distinct values :func:`_check_id` accepts (1-300 characters, no whitespace)."""
    length = pc.utf8_length(values).to_numpy(zero_copy_only=False)
    return (length >= 1) & (length <= MAX_ID_CHARS) & ~_spaced_or_empty(values)


def _spaced_or_empty(values: pa.Array) -> np.ndarray:
    """Which distinct values are empty or hold a character for which ``str.isspace()`` holds."""
    if not len(values):
        return np.zeros(0, dtype=bool)
    if pc.all(pc.string_is_ascii(values)).as_py():
        spaced = pc.match_substring_regex(values, ASCII_WHITESPACE_CLASS).to_numpy(zero_copy_only=False)
        return spaced | (pc.binary_length(values).to_numpy(zero_copy_only=False) == 0)
    return np.array([not value or _WHITESPACE.search(value) is not None for value in values.to_pylist()], dtype=bool)


def _padded_or_empty(values: pa.Array) -> np.ndarray:
    """Which distinct values ``str.strip()`` would change, or are empty."""
    return np.array([not value or value != value.strip() for value in values.to_pylist()], dtype=bool)


def read_labels(source: Source, name: str | None = None) -> ImageLabels | ConceptClassMap:
    """Read per-image labels ``ID,modality,organ`` or a CUI-to-class mapping ``kind,class,CUI``.

    Several classes in one cell are joined by ``;``; an empty cell means no label.

    >>> read_labels(b"kind,class,CUI\\nmodality,CT,C0040405\\n", "m.csv").by_kind["modality"]["C0040405"]
    frozenset({'CT'})
    """
    text, display = read_text(source, name)
    first_line, first = _first_line(text)
    _check_delimiter(first, first_line, display, (",",), "a header 'ID,modality,organ' or 'kind,class,CUI'")
    rows = _csv_rows(text, display)
    try:
        line, header = next(rows)
    except StopIteration:
        raise InputError(display, None, "a header 'ID,modality,organ' or 'kind,class,CUI'", "an empty file") from None
    lowered = [h.lower() for h in header]
    if lowered[:3] == ["kind", "class", "cui"]:
        return _read_class_map(rows, display)
    if lowered and lowered[0] in {"id", "image_id"} and any(k in lowered for k in LABEL_KINDS):
        kinds = {kind: lowered.index(kind) for kind in LABEL_KINDS if kind in lowered}
        by_kind: dict[str, dict[str, frozenset[str]]] = {kind: {} for kind in kinds}
        for line, fields in rows:
            image_id = _check_id(fields[0], display, line)
            if image_id in by_kind[next(iter(kinds))]:
                raise InputError(display, line, "a new ID", f"duplicate {image_id!r}")
            for kind, column in kinds.items():
                cell = fields[column] if column < len(fields) else ""
                by_kind[kind][image_id] = frozenset(c.strip() for c in cell.split(";") if c.strip())
        return ImageLabels(by_kind, display)
    raise InputError(display, line, "a header 'ID,modality,organ' or 'kind,class,CUI'", ",".join(header)[:80])


def _read_class_map(rows: Iterator[tuple[int, list[str]]], display: str) -> ConceptClassMap:
    by_kind: dict[str, dict[str, set[str]]] = {}
    for line, fields in rows:
        if len(fields) < 3:
            raise InputError(display, line, "3 fields 'kind,class,CUI'", f"{len(fields)} fields")
        kind, label, cui = fields[0].lower(), fields[1], fields[2].upper()
        if kind not in LABEL_KINDS:
            raise InputError(display, line, f"kind in {LABEL_KINDS}", repr(fields[0])[:40])
        if not label:
            raise InputError(display, line, "a class name", "an empty cell")
        if not CUI_PATTERN.match(cui):
            raise InputError(display, line, "a CUI of the form C + 7 digits", repr(fields[2])[:40])
        by_kind.setdefault(kind, {}).setdefault(cui, set()).add(label)
    if not by_kind:
        raise InputError(display, None, "at least one row 'kind,class,CUI'", "none")
    return ConceptClassMap({k: {c: frozenset(v) for c, v in m.items()} for k, m in by_kind.items()}, display)


def read_embeddings(source: Source, name: str | None = None, ids_source: Source | None = None,
                    ids_name: str | None = None) -> Embeddings:
    """Read embeddings: ``.npy`` (N x d, with an ID list file) or ``.csv``/``.parquet`` with an ``ID`` column.

    Vectors are L2-normalised. Their values are real numbers, integers or floats (text columns of a
    parquet file are read as numbers, as in a CSV file); complex values (whose imaginary part would be
    lost), booleans, dates, time spans and other types are an error naming the type, and NaN or
    infinite values an error naming the row.
    """
    data, display = _read_bytes(source, name)
    lowered = display.lower()
    if lowered.endswith(".npy"):
        if ids_source is None:
            raise InputError(display, None, "an ID list file (one ID per line) beside the .npy file", "none")
        if not data.startswith(NPY_MAGIC):
            raise InputError(display, None, "a NumPy .npy array file (it starts with the bytes \\x93NUMPY)",
                             "text" if _looks_like_text(data) else "other binary data")
        matrix = _read_npy(data, display)
        ids_text, ids_display = read_text(ids_source, ids_name)
        numbered = [(number, _check_id(line, ids_display, number)) for number, line in _split_lines(ids_text, ids_display)]
        first_seen: dict[str, int] = {}
        for number, image_id in numbered:
            if image_id in first_seen:
                raise InputError(ids_display, number, f"each ID once ({image_id!r} already on line {first_seen[image_id]})",
                                 "a duplicate")
            first_seen[image_id] = number
        ids = [image_id for _, image_id in numbered]
        if not ids:
            raise InputError(ids_display, None, f"one ID per line for the rows of {display}", "no IDs")
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise InputError(display, None, f"an N x d array with N = {len(ids)} IDs (the lines of {ids_display})",
                             f"shape {matrix.shape}")
        _check_vector_type(matrix.dtype, display)
        return _embeddings(ids, matrix, display, first_line=1)
    if lowered.endswith(".parquet"):
        import pandas as pd

        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as error:  # pyarrow raises many types for corrupt files
            raise InputError(display, None, "a readable parquet file", str(error)[:80]) from None
        return _embeddings_from_frame(frame, display, first_line=1)
    text, display = read_text(data, display)
    rows = list(_csv_rows(text, display))
    if not rows or rows[0][1][0].lower() not in {"id", "image_id"}:
        raise InputError(display, 1, "a header starting with 'ID' followed by vector columns", "none")
    ids, vectors = [], []
    width = len(rows[0][1]) - 1
    if width < 1:
        raise InputError(display, 1, "at least one vector column after ID", "none")
    for line, fields in rows[1:]:
        if len(fields) != width + 1:
            raise InputError(display, line, f"{width + 1} fields", f"{len(fields)}")
        ids.append(_check_id(fields[0], display, line))
        text_value = next((v for v in fields[1:] if not _is_number(v)), None)
        if text_value is not None:
            raise InputError(display, line, "numeric vector values", repr(text_value)[:40])
        vectors.append([float(v) for v in fields[1:]])
    return _embeddings(ids, np.asarray(vectors, dtype=np.float64).reshape(len(ids), width), display, first_line=2)


def _read_npy(data: bytes, display: str) -> np.ndarray:
    """The array of a .npy file, its header read first: a header that claims more (or fewer) bytes than the file
    holds is refused before anything is allocated for it."""
    what = "a numeric .npy array (N x d)"
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        # Version 3.0 differs from 2.0 only in the header's encoding (UTF-8 field names, which no N x d array has).
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read_header(stream)
    except Exception as error:  # a damaged header raises ValueError, SyntaxError, tokenize.TokenError, ...
        raise InputError(display, None, what, f"an unreadable header ({type(error).__name__}: {error})"[:120]) from None
    if dtype.hasobject:
        raise InputError(display, None, what, "Python objects (pickled data)")
    claimed = math.prod(shape) * dtype.itemsize
    held = len(data) - stream.tell()
    if claimed != held:
        raise InputError(display, None, f"{claimed:,} data bytes after the header, as its shape {shape} of "
                         f"{dtype} says", f"{held:,}")
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as error:
        raise InputError(display, None, what, str(error)[:80]) from None


def _looks_like_text(data: bytes) -> bool:
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in data[:4096]


def _is_number(text: str) -> bool:
    """Whether ``text`` is a number in ASCII decimal syntax, or inf or nan (refused later, naming the row)."""
    return bool(_DECIMAL_NUMBER.fullmatch(text) or NON_FINITE.fullmatch(text))


# What a vector of another type holds, by NumPy's dtype kind (integers "iu" and floats "f" are read).
VECTOR_TYPE_NAMES = {"b": "booleans", "c": "complex values (the imaginary part would be lost)", "m": "time spans",
                     "M": "dates", "O": "Python objects", "S": "bytes", "U": "text", "V": "records"}


def _check_vector_type(dtype, display: str, where: str = "") -> None:
    """Vector values are real numbers: refuse any other NumPy or pandas dtype, naming it."""
    if dtype.kind not in "iuf":
        raise InputError(display, None, "real vector values (integers or floats)",
                         f"{VECTOR_TYPE_NAMES.get(dtype.kind, 'values')} of type {dtype}{where}")


def _embeddings_from_frame(frame, display: str, first_line: int) -> Embeddings:
    columns = [str(c) for c in frame.columns]
    id_column = next((c for c in frame.columns if str(c).lower() in {"id", "image_id"}), None)
    if id_column is None:
        raise InputError(display, None, "an 'ID' column", ", ".join(columns)[:80])
    vector_frame = frame.drop(columns=[id_column])
    for column, dtype in vector_frame.dtypes.items():
        if dtype.kind != "O":  # text columns are read as numbers below, as a CSV file's are
            _check_vector_type(dtype, display, f" in column {str(column)!r}")
    try:
        matrix = vector_frame.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(display, None, "numeric vector columns", "non-numeric values") from None
    null_ids = np.flatnonzero(frame[id_column].isna().to_numpy())
    if len(null_ids):
        raise InputError(display, None, f"an ID on every row (row {int(null_ids[0]) + 1} of {len(frame):,})", "a null ID")
    ids = [_check_id(str(v), display, i + first_line) for i, v in enumerate(frame[id_column])]
    return _embeddings(ids, matrix, display, first_line)


EXTREME_MAGNITUDE = 1e150  # a row's largest value beyond it (or its inverse) is scaled before its norm is taken


def _embeddings(ids: list[str], matrix: np.ndarray, display: str, first_line: int) -> Embeddings:
    matrix = np.asarray(matrix, dtype=np.float64)
    first_position: dict[str, int] = {}
    for position, image_id in enumerate(ids):
        if image_id in first_position:
            raise InputError(display, first_line + position,
                             f"each ID once ({image_id!r} already on line {first_line + first_position[image_id]})",
                             "a duplicate")
        first_position[image_id] = position
    if matrix.shape[1] == 0:
        raise InputError(display, None, "at least one vector value per ID", "vectors of length 0")
    bad = np.flatnonzero(~np.isfinite(matrix).all(axis=1)) if matrix.size else []
    if len(bad):
        raise InputError(display, first_line + int(bad[0]), "finite vector values", "NaN or infinity")
    # Squares of values beyond about 1e154 overflow and those below about 1e-154 lose their digits, so that such a
    # row would come out as a zero vector or skewed: it is first divided by its largest magnitude.
    largest = np.abs(matrix).max(axis=1) if matrix.size else np.zeros(len(matrix))
    extreme = (largest > EXTREME_MAGNITUDE) | ((largest > 0) & (largest < 1 / EXTREME_MAGNITUDE))
    if extreme.any():
        matrix = matrix.copy()  # without a copy, a float64 array handed in would be scaled in place
        matrix[extreme] /= largest[extreme, None]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return Embeddings(tuple(ids), matrix.astype(np.float32), display)


MAX_GRADE_MAGNITUDE = 1 << 53  # grades become float64 gains, exact only up to 2^53


@dataclass(frozen=True)
class Qrels:
    """Graded TREC judgments ``qid -> {docid: grade}``, in file order."""

    judgments: dict[str, dict[str, int]]
    source: str = "qrels"

    def __len__(self) -> int:
        return len(self.judgments)


def read_qrels(source: Source, name: str | None = None) -> Qrels:
    """Read TREC qrels ``qid iter docid grade`` (whitespace-separated) as trec_eval reads them.

    ``iter`` is ignored. The grade must be an integer: trec_eval's ``atol`` would silently
    read ``1.5`` as 1, here it is an error. Negative grades are kept; trec_eval reads them
    as "in the pool but unjudged", which every metric scores like grade 0. Lines starting
    with ``#`` are skipped, as trec_eval's ``get_qrels.c`` does (the readers of pytrec_eval,
    ir_measures and ranx reject them). A (qid, docid) pair judged twice is an error, as in trec_eval.

    >>> read_qrels(b"q1 0 d1 2\\nq1 0 d2 0\\nq2 Q0 d1 1\\n", "x.qrels").judgments["q1"]
    {'d1': 2, 'd2': 0}
    """
    text, display = read_text(source, name)
    judgments: dict[str, dict[str, int]] = {}
    seen: dict[tuple[str, str], int] = {}
    for line, content in _split_lines(text, display):
        if content.startswith("#"):
            continue
        fields = content.split()
        if len(fields) != 4:
            raise InputError(display, line, "4 whitespace-separated fields 'qid iter docid grade'", f"{len(fields)} fields")
        qid, docid = _check_id(fields[0], display, line), _check_id(fields[2], display, line)
        if not DECIMAL_INTEGER.fullmatch(fields[3]):
            raise InputError(display, line, "an integer grade (e.g. 0, 1, 2)", repr(fields[3])[:40])
        grade = _bounded_integer(fields[3], MAX_GRADE_MAGNITUDE)
        if grade is None:
            raise InputError(display, line, "a grade between -2^53 and 2^53", fields[3][:40])
        if (qid, docid) in seen:
            raise InputError(display, line, f"each (query, document) pair judged once ({qid} {docid} already on line "
                                            f"{seen[(qid, docid)]})", "a duplicate")
        seen[(qid, docid)] = line
        judgments.setdefault(qid, {})[docid] = grade
    if not judgments:
        raise InputError(display, None, "at least one judgment line 'qid iter docid grade'", "none")
    return Qrels(judgments, display)
