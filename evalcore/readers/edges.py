"""Knowledge-graph files: edge lists ``child,parent[,...]`` (CSV or TSV) here, with optional ``source`` and
``relation`` columns named in a header (a relation is ``is_a``, the default, or ``part_of``); UMLS ``MRREL.RRF``
(:mod:`evalcore.readers.mrrel`) and OBO ontologies (:mod:`evalcore.readers.obo`) are told apart by
their first line and read by their own modules.
"""

from __future__ import annotations

from functools import partial
from itertools import compress
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalcore.data import KGEdges, KGEdgeTable
from evalcore.errors import InputError
from evalcore.readers.columnar import (
    Rows,
    fast_or_by_lines,
    matches,
    rows_of_lines,
    rows_of_records,
    unquoted_line_column,
    upper_cuis,
)
from evalcore.readers.files import Source, read_checked_bytes
from evalcore.readers.lines import NODE_FIELD, check_delimiter, check_not_foreign_header, csv_line, first_line_of, kg_node
from evalcore.readers.mrrel import is_mrrel, numbered_pieces, read_mrrel, stream_mrrel
from evalcore.readers.obo import is_obo, read_obo

# A usual line: two node IDs, then fields that need no stripping.
_EDGE_LINE = {",": NODE_FIELD + "," + NODE_FIELD + r"(?:,(?:[!-+\--~](?:[^,]*[!-+\--~])?)?)*$",
              "\t": NODE_FIELD + "\t" + NODE_FIELD + r"(?:\t(?:[!-~](?:[^\t]*[!-~])?)?)*$"}


def read_kg(source: Source, name: str | None = None) -> KGEdges | KGEdgeTable:
    """Read a KG file: edge list CSV/TSV ``child,parent[,...]``, UMLS ``MRREL.RRF`` or OBO.

    A MRREL.RRF file is read in one streaming pass (its byte budget is
    :data:`DEFAULT_MAX_MRREL_BYTES`: memory follows the is_a edges kept, not the file) and
    comes back as a :class:`KGEdgeTable`.

    >>> kg = read_kg(b"child,parent,source\\nC0042449,C0005847,mesh\\n", "kg.csv")
    >>> kg.edges
    (('C0042449', 'C0005847', 'mesh'),)
    >>> read_kg(b"child,parent,source,relation\\nC0015813,C0015811,demo,part_of\\n", "kg.csv").part_of
    frozenset({('C0015813', 'C0015811')})
    """
    if not isinstance(source, bytes):
        streamed = stream_mrrel(Path(source), name or str(source))
        if streamed is not None:
            return streamed
    data, display = read_checked_bytes(source, name)
    first_line, first = first_line_of(data)
    if is_obo(first):
        return read_obo(data.decode("utf-8"), display)
    if is_mrrel(first, display):
        return read_mrrel(numbered_pieces(data), display, checked=True)
    check_delimiter(first, first_line, display, (",", "\t"), "an edge list 'child,parent' (or MRREL.RRF or OBO)")
    delimiter = "\t" if "\t" in first else ","
    check_not_foreign_header(first, first_line, display, "a knowledge graph", "an edge list 'child,parent'", delimiter)
    edges, part_of = fast_or_by_lines(_edges_by_columns, _edges_by_lines, data, display, delimiter)
    if not edges:
        raise InputError(display, None, "at least one edge 'child,parent'", "none",
                         plain_expected="at least one link of the concept map: a concept, then a broader one")
    return KGEdges(tuple(edges), {}, display, frozenset(part_of))


RELATIONS = ("is_a", "part_of")
#: Where a header puts the optional columns: ``(source, relation)`` positions, None where absent.
_Columns = tuple[int | None, int | None]


def _edge_header(fields: list[str]) -> _Columns | bool:
    """For the first row: False if it is data, else the positions of its ``source`` and ``relation`` columns."""
    if [f.lower() for f in fields[:2]] != ["child", "parent"]:
        return False
    lowered = [f.lower() for f in fields]
    return tuple(lowered.index(name) if name in lowered else None for name in ("source", "relation"))


def _relation(value: str, display: str, line: int | None) -> str:
    if value not in ("", *RELATIONS):
        raise InputError(display, line, f"a relation {' or '.join(RELATIONS)} (empty: is_a)", repr(value),
                         plain_expected=f"a kind of link {' or '.join(RELATIONS)} (or none: is_a)")
    return value or "is_a"


def _edge_row(fields: list[str], columns: _Columns, default_source: str, display: str, line: int
              ) -> tuple[str, str, str, str]:
    if len(fields) < 2:
        raise InputError(display, line, "2 fields 'child,parent' (is_a, child -> parent)", f"{len(fields)} field",
                         plain_expected="2 fields: a concept, then a broader one (child,parent)")
    child, parent = (kg_node(f, display, line) for f in fields[:2])
    source_column, relation_column = columns
    tag = fields[source_column] if source_column is not None and source_column < len(fields) else default_source
    relation = fields[relation_column] if relation_column is not None and relation_column < len(fields) else ""
    return child, parent, tag or default_source, _relation(relation, display, line)


def _split_part_of(rows: list[tuple[str, str, str, str]]) -> tuple[list[tuple[str, str, str]], set[tuple[str, str]]]:
    return [row[:3] for row in rows], {(row[0], row[1]) for row in rows if row[3] == "part_of"}


_Edges = tuple[list[tuple[str, str, str]], set[tuple[str, str]]]


def _edges_by_lines(text: str, display: str, delimiter: str) -> _Edges:
    """The edges of a file with quoted fields: its CSV records, each read by the definition."""
    return _edges_of_rows(rows_of_records(text, display, delimiter), display, delimiter)


def _edges_by_columns(data: bytes, display: str, delimiter: str) -> _Edges | None:
    """The edges of a file without quotes: its lines, those of the usual form read as arrays."""
    lines = unquoted_line_column(data)
    if lines is None:
        return None
    column, index = lines
    return _edges_of_rows(rows_of_lines(column, index, matches(column, "^" + _EDGE_LINE[delimiter]),
                                        partial(csv_line, display=display, delimiter=delimiter)), display, delimiter)


def _edges_of_rows(rows: Rows, display: str, delimiter: str) -> _Edges:
    """The definition: an optional header 'child,parent[,...]' on the first row naming the source and relation
    columns, then an edge a row (a node's edge to itself left out), in row order; the first offending row is named."""
    column, numbers, usual = rows.column, rows.numbers, rows.usual
    default_source = Path(display).stem
    keep = usual.copy()
    columns: _Columns = (None, None)
    scanned = iter(rows.scanned)
    first = next(scanned, None)
    while first is not None and rows.fields(first) is None:
        first = next(scanned, None)
    to_read = [] if first is None else [first]
    if first is not None:
        header = _edge_header(rows.fields(first))
        if header is not False:
            columns, keep[first], to_read = header, False, []
    source_column, relation_column = columns
    widest = max([2, *(c + 1 for c in columns if c is not None)])
    parts = pc.split_pattern(pc.binary_join_element_wise(column, delimiter * widest, ""), delimiter, max_splits=widest)
    children, parents = upper_cuis(pc.list_element(parts, 0)), upper_cuis(pc.list_element(parts, 1))
    if source_column is None:
        tags = [default_source] * len(column)
    else:
        tag_column = pc.list_element(parts, source_column)
        tags = pc.if_else(pc.equal(tag_column, ""), default_source, tag_column).to_pylist()
    if relation_column is None:
        relations = ["is_a"] * len(column)
        wrong_relation = len(column)
    else:
        relation = pc.list_element(parts, relation_column)
        relations = pc.if_else(pc.equal(relation, ""), "is_a", relation).to_pylist()  # as _relation reads it
        unknown = ~pc.is_in(relation, value_set=pa.array(["", *RELATIONS])).to_numpy(zero_copy_only=False)
        wrong = np.flatnonzero(keep & usual & unknown)
        wrong_relation = int(wrong[0]) if len(wrong) else len(column)
    # The rows the definition reads, in order, up to the first usual row whose relation it refuses.
    found: dict[int, tuple[str, str, str, str]] = {}
    for row in [*to_read, *scanned]:
        if row > wrong_relation:
            break
        fields = rows.fields(row)
        if fields is not None and not usual[row]:
            found[row] = _edge_row(fields, columns, default_source, display, int(numbers[row]))
            keep[row] = True
    if wrong_relation < len(column):
        _relation(relations[wrong_relation], display, int(numbers[wrong_relation]))
    keep &= pc.not_equal(children, parents).to_numpy(zero_copy_only=False)
    children, parents = children.to_pylist(), parents.to_pylist()
    for row, (child, parent, tag, relation) in found.items():
        children[row], parents[row], tags[row], relations[row] = child, parent, tag, relation
        keep[row] = child != parent
    return _split_part_of(list(compress(zip(children, parents, tags, relations), keep.tolist())))
