"""Knowledge-graph files: edge lists ``child,parent[,...]`` (CSV or TSV) here, with optional ``source`` and
``relation`` columns named in a header (a relation is ``is_a``, the default, or ``part_of``); UMLS ``MRREL.RRF``
(:mod:`evalcore.readers.mrrel`) and OBO ontologies (:mod:`evalcore.readers.obo`) are told apart by
their first line and read by their own modules.
"""

from __future__ import annotations

from itertools import compress
from pathlib import Path

import numpy as np
import pyarrow.compute as pc

from evalcore.data import KGEdges, KGEdgeTable
from evalcore.errors import InputError
from evalcore.readers.columnar import fast_or_by_lines, unquoted_line_column, upper_cuis, usual_and_scanned
from evalcore.readers.files import Source, read_checked_bytes
from evalcore.readers.lines import NODE_FIELD, check_delimiter, check_not_foreign_header, csv_rows, first_line_of, kg_node
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
        raise InputError(display, None, "at least one edge 'child,parent'", "none")
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
        raise InputError(display, line, f"a relation {' or '.join(RELATIONS)} (empty: is_a)", repr(value))
    return value or "is_a"


def _edge_row(fields: list[str], columns: _Columns, default_source: str, display: str, line: int
              ) -> tuple[str, str, str, str]:
    if len(fields) < 2:
        raise InputError(display, line, "2 fields 'child,parent' (is_a, child -> parent)", f"{len(fields)} field")
    child, parent = (kg_node(f, display, line) for f in fields[:2])
    source_column, relation_column = columns
    tag = fields[source_column] if source_column is not None and source_column < len(fields) else default_source
    relation = fields[relation_column] if relation_column is not None and relation_column < len(fields) else ""
    return child, parent, tag or default_source, _relation(relation, display, line)


def _split_part_of(rows: list[tuple[str, str, str, str]]) -> tuple[list[tuple[str, str, str]], set[tuple[str, str]]]:
    return [row[:3] for row in rows], {(row[0], row[1]) for row in rows if row[3] == "part_of"}


def _edges_by_lines(text: str, display: str, delimiter: str
                    ) -> tuple[list[tuple[str, str, str]], set[tuple[str, str]]]:
    rows: list[tuple[str, str, str, str]] = []
    default_source = Path(display).stem
    columns: _Columns = (None, None)
    for position, (line, fields) in enumerate(csv_rows(text, display, delimiter)):
        header = _edge_header(fields) if position == 0 else False
        if header is not False:
            columns = header
            continue
        row = _edge_row(fields, columns, default_source, display, line)
        if row[0] != row[1]:
            rows.append(row)
    return _split_part_of(rows)


def _edges_by_columns(data: bytes, display: str, delimiter: str
                      ) -> tuple[list[tuple[str, str, str]], set[tuple[str, str]]] | None:
    lines = unquoted_line_column(data)
    if lines is None:
        return None
    column, index = lines
    numbers, usual, scanned = usual_and_scanned(column, index, _EDGE_LINE[delimiter], display, delimiter)
    default_source = Path(display).stem
    keep = usual.copy()
    columns: _Columns = (None, None)
    header_done = False
    found: dict[int, tuple[str, str, str, str]] = {}
    for row, fields in scanned:
        if fields is None:
            continue
        if not header_done:
            header_done = True
            header = _edge_header(fields)
            if header is not False:
                columns, keep[row] = header, False
                continue
        if not usual[row]:
            found[row] = _edge_row(fields, columns, default_source, display, int(numbers[row]))
            keep[row] = True
    source_column, relation_column = columns
    widest = max([2, *(c + 1 for c in columns if c is not None)])
    parts = pc.split_pattern(pc.binary_join_element_wise(column, delimiter * widest, ""), delimiter, max_splits=widest)
    children, parents = upper_cuis(pc.list_element(parts, 0)), upper_cuis(pc.list_element(parts, 1))
    keep &= pc.not_equal(children, parents).to_numpy(zero_copy_only=False)
    children, parents = children.to_pylist(), parents.to_pylist()
    if source_column is None:
        tags = [default_source] * len(children)
    else:
        tag_column = pc.list_element(parts, source_column)
        tags = pc.if_else(pc.equal(tag_column, ""), default_source, tag_column).to_pylist()
    if relation_column is None:
        relations = ["is_a"] * len(children)
    else:
        relations = pc.fill_null(pc.list_element(parts, relation_column), "").to_pylist()
        for row in np.flatnonzero(keep & usual):
            if relations[row] not in RELATIONS:
                relations[row] = _relation(relations[row], display, int(numbers[row]))
    for row, (child, parent, tag, relation) in found.items():
        children[row], parents[row], tags[row], relations[row] = child, parent, tag, relation
        keep[row] = child != parent
    return _split_part_of(list(compress(zip(children, parents, tags, relations), keep.tolist())))
