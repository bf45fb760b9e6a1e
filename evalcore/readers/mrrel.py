"""UMLS ``MRREL.RRF``: is_a relations between CUIs, read in one streaming pass into a
:class:`~evalcore.data.KGEdgeTable` (a UMLS-sized graph stays a few arrays)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from evalcore.data import KGEdgeTable
from evalcore.errors import PLAIN_TEXT, InputError
from evalcore.readers.columnar import fast_or_by_lines, line_aligned_pieces, read_piece
from evalcore.readers.files import (
    DEFAULT_MAX_MRREL_BYTES,
    first_long_line,
    line_aligned_reads,
    long_line_error,
    max_input_bytes,
    open_regular,
)
from evalcore.readers.lines import first_line_of, pipe_separated, split_lines
from evalcore.readers.obo import is_obo

PEEK_BYTES = 1 << 20  # what is read of a path to tell whether it is a MRREL.RRF file
MRREL_FIELDS = 11  # up to SAB, the last column read
MRREL_COLUMNS = {"cui1": 0, "rel": 3, "cui2": 4, "rela": 7, "sab": 10}
# Pieces made only of these bytes (printable ASCII and the line feed) are parsed by pyarrow; any other byte (whitespace
# that str.strip() removes or pyarrow breaks lines on, non-ASCII digits that \d accepts) sends a piece to Python's split.
_PARSED_BYTES = np.zeros(256, dtype=bool)
_PARSED_BYTES[0x20:0x7F] = _PARSED_BYTES[0x0A] = True


def is_mrrel(first: str, display: str) -> bool:
    return first.count("|") >= 10 or display.lower().endswith(".rrf") or pipe_separated(first)


def stream_mrrel(path: Path, display: str) -> KGEdgeTable | None:
    """A MRREL.RRF file read a piece at a time, or None if the file is not one (or its start is unusual: no line
    break in the first piece, not UTF-8), which the whole-file reader then reads or refuses."""
    budget = max_input_bytes(DEFAULT_MAX_MRREL_BYTES)
    handle, _ = open_regular(path, display, budget)
    with handle:
        head = handle.read(PEEK_BYTES)
        text = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
        complete = text[: text.rfind(b"\n") + 1] if len(head) == PEEK_BYTES else text
        try:
            _, first = first_line_of(complete)
        except UnicodeDecodeError:
            return None
        if not first or is_obo(first) or not is_mrrel(first, display):
            return None
        handle.seek(len(head) - len(text))
        return read_mrrel(line_aligned_reads(handle, display, budget), display, checked=False)


def numbered_pieces(data: bytes) -> Iterator[tuple[bytes, int]]:
    """:func:`line_aligned_pieces` of ``data`` with the number of their first line."""
    line = 1
    for start, end in line_aligned_pieces(data):
        piece = data[start:end]
        yield piece, line
        line += piece.count(b"\n")


def read_mrrel(pieces: Iterator[tuple[bytes, int]], display: str, checked: bool) -> KGEdgeTable:
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
                                     f"byte 0x{piece[error.start]:02x}", plain_expected=PLAIN_TEXT) from None
            nul = piece.find(b"\x00")
            if nul >= 0 and (pending is None or pending.expected != "text"):
                pending = InputError(display, first_line + piece.count(b"\n", 0, nul), "text", "a NUL byte (binary file?)",
                                     plain_expected=PLAIN_TEXT)
        long_line = first_long_line(piece)
        if long_line is not None and (pending is None or pending.expected != "text"):
            pending = long_line_error(piece, long_line, display, first_line)
        if pending is not None:
            continue  # only a later byte that is not UTF-8 can still take precedence
        try:
            edges.add(*_mrrel_piece(piece, first_line, display))
        except InputError as error:
            pending = error
    if pending is not None:
        raise pending
    if not edges.count:
        raise InputError(display, None, "PAR/CHD or isa/inverse_isa relations between CUIs", "none",
                         plain_expected="links between concepts, a concept to a broader one (a concept map file of "
                                        "the research team's)")
    return edges.table(display)


def _mrrel_piece(piece: bytes, first_line: int, display: str) -> tuple[pa.Array, pa.Array, pa.Array]:
    """The is_a edges ``(child, parent, tag)`` of a line-aligned piece of MRREL.RRF, in row order: its columns split by
    pyarrow, or by Python where pyarrow cannot split them, read by :func:`_is_a_edges`."""
    return fast_or_by_lines(_mrrel_piece_by_columns, _mrrel_piece_by_lines, piece, first_line, display)


def _mrrel_piece_by_columns(piece: bytes, first_line: int, display: str) -> tuple[pa.Array, pa.Array, pa.Array] | None:
    """:func:`_mrrel_piece` parsed by pyarrow; None where Python must split the piece."""
    columns = _mrrel_columns(piece)
    if columns is None:
        return None
    return _is_a_edges(*(columns.column(name) for name in MRREL_COLUMNS))


def _is_a_edges(cui1: pa.ChunkedArray, rel: pa.ChunkedArray, cui2: pa.ChunkedArray, rela: pa.ChunkedArray,
                sab: pa.ChunkedArray) -> tuple[pa.Array, pa.Array, pa.Array]:
    """The definition of an is_a row: between two CUIs, not a CUI and itself; ``PAR`` / ``inverse_isa`` make CUI2 the
    parent of CUI1, ``CHD`` / ``isa`` its child (a RELA other than these names no is_a edge); the tag is the SAB
    (``umls`` where empty)."""
    cui = r"^C[0-9]{7}$"  # ASCII digits only, as CUI_PATTERN; RE2's $ is the end of the text, as \Z
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
    """The columns of :data:`MRREL_COLUMNS`, parsed by pyarrow; None where Python must split the piece
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


def _mrrel_piece_by_lines(text: str, first_line: int, display: str) -> tuple[pa.Array, pa.Array, pa.Array]:
    """:func:`_mrrel_piece` split in Python, as the format is defined: lines split at line feeds and stripped, fields
    at '|'; a row of fewer than 11 fields is named."""
    columns: list[list[str]] = [[] for _ in MRREL_COLUMNS]
    for line, content in split_lines(text, display):
        fields = content.split("|")
        if len(fields) < MRREL_FIELDS:
            raise InputError(display, first_line + line - 1, "MRREL.RRF rows with at least 11 '|'-separated fields",
                             f"{len(fields)}", plain_expected="rows of at least 11 fields separated by '|' (a concept "
                                                              "map file of the research team's)")
        for values, position in zip(columns, MRREL_COLUMNS.values()):
            values.append(fields[position])
    return _is_a_edges(*(pa.chunked_array([pa.array(values, type=pa.string())]) for values in columns))


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
