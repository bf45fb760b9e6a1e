"""Runs: TREC ``qid Q0 docid rank score tag`` (one system per tag) or CSV ``query_id,image_id,rank[,score]``.

Each has one definition: a row is read by :func:`_trec_entry` or :func:`_csv_run_entry` (a CSV
run's columns by :func:`_csv_run_columns_of`), and the file as a whole by
:func:`~evalcore.readers.run_columns.runs_from_columns` (each image and rank once per query, the
order). Both formats are parsed as columns (:mod:`evalcore.readers.columnar`), and the rows the
array checks cannot accept go through the row's definition, which names the line; a CSV run
with quotes (a field may span lines) is read as the csv module's records, every row through
:func:`_csv_run_entry`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from functools import partial
from itertools import chain
from pathlib import Path
from typing import NoReturn

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalcore.data import Run
from evalcore.decimals import DECIMAL_INTEGER, DECIMAL_NUMBER, NON_FINITE, PLAIN_FLOAT, bounded_integer
from evalcore.errors import InputError
from evalcore.readers.columnar import (
    DICTIONARY,
    LineIndex,
    collapse_whitespace,
    dictionary_codes,
    dictionary_values,
    fast_or_by_lines,
    float_column,
    in_parallel,
    parse_pieces,
    spaced_or_empty,
    universal_newlines,
    valid_ids,
)
from evalcore.readers.files import DEFAULT_MAX_RUN_BYTES, Piece, Source, checked_pieces
from evalcore.readers.lines import (
    check_delimiter,
    check_id,
    check_not_foreign_header,
    csv_line,
    csv_rows,
    first_line_of,
    first_line_span,
)
from evalcore.readers.run_columns import MAX_RANK, LineNumbers, RunColumns, joined_run_columns, runs_from_columns

# TREC runs are read and parsed this much at a time: a file's bytes are never all in memory.
RUN_PIECE_BYTES = 128 << 20


RUN_FIELDS = ("qid", "q0", "docid", "rank", "score", "tag")
TREC_SHAPE = "6 whitespace-separated fields 'qid Q0 docid rank score tag'"
#: :data:`TREC_SHAPE` for a reader who is not a researcher.
PLAIN_TREC_SHAPE = ("result lines of a retrieval system, each of 6 fields separated by spaces: the case's image, Q0, "
                    "an image found, its rank, its score and the system's name")
#: A CSV run's fields for a reader who is not a researcher.
PLAIN_CSV_SHAPE = ("result lines of a retrieval system, each of the case's image, an image found and its rank "
                   "(query_id,image_id,rank), then its score where the file has a score column")
#: A run's rank and score for a reader who is not a researcher.
PLAIN_RANK = "a whole number as the rank of an image found"
PLAIN_SCORE = "a number as the score of an image found"


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
    display, size, pieces = checked_pieces(source, name, DEFAULT_MAX_RUN_BYTES, RUN_PIECE_BYTES)
    try:
        # The first piece holding a non-blank line tells the format.
        seen: list[Piece] = []
        first_line, first = 0, ""
        for piece, line, line_feeds in pieces:
            seen.append((piece, line, line_feeds))
            number, first = first_line_of(piece)
            if number:
                first_line = line + number - 1
                break
        is_csv = "," in first and len(first.split()) < 6
        if is_csv:
            check_not_foreign_header(first, first_line, display, "a run", "fields 'query_id,image_id,rank[,score]'")
        if not is_csv and len(first.split()) < 6:
            check_delimiter(first, first_line, display, (",", " ", "\t"),
                            "TREC 'qid Q0 docid rank score tag' or CSV 'query_id,image_id,rank[,score]'")

        def reading(done: int, length: int, fraction: float) -> None:
            if progress is not None:
                progress(0.9 * min(1.0, (done + fraction * length) / max(size, 1)), f"Reading {display}")

        if is_csv:
            # CSV runs (a quoted field may span lines) are read whole; TREC runs below, a piece at a time.
            data = b"".join([piece for piece, _, _ in seen] + [piece for piece, _, _ in pieces])
            seen.clear()
            columns = fast_or_by_lines(partial(_csv_run_by_columns, progress=partial(reading, 0, size)), _csv_run_by_lines,
                                       data, display, Path(display).stem)
            del data
        else:
            parts, done = [], 0
            for piece, line, line_feeds in chain(_drained(seen), pieces):
                parts.append(_trec_run_columns(piece, display, partial(reading, done, len(piece)), line,
                                               line_feeds + (not piece.endswith(b"\n"))))
                done += len(piece)
                del piece  # the next piece is read while only the columns of this one are kept
            columns = joined_run_columns(parts)
            del parts
    except InputError:
        for _ in pieces:  # as when the whole file is read first: a byte that is not text anywhere comes first
            pass
        raise
    if progress is not None:
        progress(0.9, f"Checking and ordering {display}")
    runs = runs_from_columns(columns, display)
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
                         f"{len(runs)} tags: {names}", plain_expected="the results of one retrieval system per file")
    return runs[0]


def _parse_rank_score(rank_raw: str, score_raw: str | None, display: str, line: int) -> tuple[int, float]:
    """A rank (ASCII digits, 0..MAX_RANK) and a finite score (ASCII decimal syntax), as trec_eval reads them."""
    if not DECIMAL_INTEGER.fullmatch(rank_raw):
        raise InputError(display, line, "an integer rank", repr(rank_raw)[:40], plain_expected=PLAIN_RANK)
    rank = _rank_of(rank_raw)
    if rank is None:
        raise InputError(display, line, f"a rank between 0 and {MAX_RANK:,}", rank_raw[:40],
                         plain_expected=f"a rank between 0 and {MAX_RANK:,}")
    if score_raw is None:  # a CSV run without a score column: the order is the ranks'
        return rank, 0.0
    if NON_FINITE.fullmatch(score_raw):
        raise InputError(display, line, "a finite score", score_raw, plain_expected=PLAIN_SCORE)
    if not DECIMAL_NUMBER.fullmatch(score_raw):
        raise InputError(display, line, "a numeric score", repr(score_raw)[:40], plain_expected=PLAIN_SCORE)
    score = float(score_raw)
    if not math.isfinite(score):  # beyond the float range, as 1e999
        raise InputError(display, line, "a finite score", score_raw, plain_expected=PLAIN_SCORE)
    return rank, score


def _rank_of(raw: str) -> int | None:
    """The rank a ``DECIMAL_INTEGER`` text gives, or None when it lies outside 0..MAX_RANK."""
    rank = bounded_integer(raw, MAX_RANK)
    return rank if rank is not None and rank >= 0 else None


def _trec_entry(line: int, content: str, display: str) -> tuple[str, str, str, int, float]:
    """One TREC line, by definition: ``(tag, qid, docid, rank, score)`` or the InputError naming the line."""
    fields = content.split()
    if len(fields) != 6:
        raise InputError(display, line, TREC_SHAPE, f"{len(fields)} fields", plain_expected=PLAIN_TREC_SHAPE)
    qid, _, docid, rank_raw, score_raw, tag = fields
    rank, score = _parse_rank_score(rank_raw, score_raw, display, line)
    return tag, check_id(qid, display, line), check_id(docid, display, line), rank, score


def _csv_run_entry(line: int, fields: list[str], columns: dict[str, int], header: bool, display: str
                   ) -> tuple[str, str, int, float]:
    """One CSV run row, by definition: ``(qid, docid, rank, score)`` or the InputError naming the line.

    A run with a score column has a score on every row: a missing or empty one would otherwise
    read as 0 and move its image down the list. Without a header the fields are positional, and
    the first row tells whether the file has scores (see :func:`_csv_run_columns_of`).
    """
    if "rank" not in columns:
        raise InputError(display, 1, "a header 'query_id,image_id,rank[,score]'", "no rank column",
                         plain_expected="a first line naming the columns query_id,image_id,rank (and score, if any)")
    if len(fields) < columns["rank"] + 1:
        raise InputError(display, line, "fields 'query_id,image_id,rank[,score]'", f"{len(fields)} fields",
                         plain_expected=PLAIN_CSV_SHAPE)
    score_raw = None
    if "score" in columns:
        score_raw = fields[columns["score"]] if columns["score"] < len(fields) else ""
        if not score_raw:
            found = "an empty field" if columns["score"] < len(fields) else f"{len(fields)} fields"
            raise InputError(display, line, f"a score in field {columns['score'] + 1} (the file has a score column: "
                             "every row needs one)", found,
                             plain_expected=f"a score in field {columns['score'] + 1} of every line (the file has a "
                                            "score column)")
    elif not header and len(fields) > len(columns):
        raise InputError(display, line, f"{len(columns)} fields 'query_id,image_id,rank' as on the first row "
                         "(a score on every row or on none)", f"{len(fields)} fields",
                         plain_expected=f"{len(columns)} fields as on the first line (a score on every line or on none)")
    rank, score = _parse_rank_score(fields[columns["rank"]], score_raw, display, line)
    return (check_id(fields[columns["query_id"]], display, line), check_id(fields[columns["image_id"]], display, line),
            rank, score)


def _csv_run_header(fields: list[str]) -> dict[str, int] | None:
    """Column positions named by a header row, or None when the row is data."""
    lowered = [f.lower() for f in fields]
    if {"query_id", "image_id"} <= set(lowered):
        return {name: lowered.index(name) for name in ("query_id", "image_id", "rank", "score") if name in lowered}
    return None


NO_HEADER_COLUMNS = {"query_id": 0, "image_id": 1, "rank": 2, "score": 3}
NO_HEADER_UNSCORED = {"query_id": 0, "image_id": 1, "rank": 2}


def _csv_run_columns_of(first_fields: list[str], display: str, line: int) -> tuple[dict[str, int], bool]:
    """The column positions a CSV run's first row (on ``line``) gives, and whether that row is a header; a header
    naming a column twice is refused (which of the two would be read?).

    Without a header the fields are positional and a fourth field on the first row is its score:
    the file then has a score column, else none.

    >>> _csv_run_columns_of(["q1", "d1", "1"], "run.csv", 1)
    ({'query_id': 0, 'image_id': 1, 'rank': 2}, False)
    >>> _csv_run_columns_of(["image_id", "query_id", "score", "rank"], "run.csv", 1)
    ({'query_id': 1, 'image_id': 0, 'rank': 3, 'score': 2}, True)
    >>> _csv_run_columns_of(["query_id", "image_id", "rank", "score", "Score"], "run.csv", 1)
    Traceback (most recent call last):
    evalcore.errors.InputError: run.csv, line 1: expected one column named score, found 2
    """
    columns = _csv_run_header(first_fields)
    if columns is not None:
        lowered = [field.lower() for field in first_fields]
        repeated = [name for name in ("query_id", "image_id", "rank", "score") if lowered.count(name) > 1]
        if repeated:
            raise InputError(display, line, f"one column named {repeated[0]}", f"{lowered.count(repeated[0])}",
                             plain_expected=f"a header naming the {repeated[0]} column once")
        return columns, True
    return (NO_HEADER_COLUMNS if len(first_fields) > NO_HEADER_COLUMNS["score"] else NO_HEADER_UNSCORED), False


def _trec_run_columns(data: bytes, display: str, progress: Callable[[float], None], first_line: int = 1,
                      line_count: int | None = None) -> RunColumns:
    """TREC lines as columns (``data`` begins on line ``first_line`` and holds ``line_count`` lines).

    Files as TREC tools write them (single spaces, LF or CRLF breaks) are parsed as they are; any other
    whitespace is first collapsed as ``str.split()`` sees it."""
    if b"\r" not in data or data.count(b"\r") == data.count(b"\r\n"):
        columns = _trec_columns_of(data, data, display, progress, False, first_line, line_count)
        if columns is not None:
            return columns
    return _trec_columns_of(collapse_whitespace(data), data, display, progress, True, first_line, line_count)


def _trec_columns_of(text: bytes, original: bytes, display: str, progress: Callable[[float], None] | None,
                     collapsed: bool, first_line: int = 1, line_count: int | None = None) -> RunColumns | None:
    """Parse ``text`` (``original``, or it with whitespace collapsed); None when ``text`` is not collapsed and
    holds a line that is not six single-space-separated fields. Names are left as Arrow arrays
    (:func:`joined_run_columns` makes them lists), and line numbers need no reference to ``text``."""
    types: dict[str, pa.DataType] = dict.fromkeys(("qid", "q0", "docid", "rank", "tag"), DICTIONARY)
    types["score"] = pa.string() if collapsed else pa.float64()
    parsed = parse_pieces(text, RUN_FIELDS, types, " ", progress=progress)
    if parsed.table is None:
        if not collapsed:
            return None
        _raise_trec_field_count(text, original, display, first_line)
    table = parsed.table
    distinct = {field: dictionary_values(table.column(field)) for field in ("qid", "q0", "docid", "rank", "tag")}
    if not collapsed and any(spaced_or_empty(values).any() for values in distinct.values()):
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
    # Rows the array checks cannot accept are read by the row's definition (_trec_entry), which names the line.
    suspect = ~np.isfinite(scores)
    for ok, codes in ((rank_ok, rank_codes), (valid_ids(query_values), queries), (valid_ids(document_values), documents)):
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
    return RunColumns(tags, tag_values, queries, query_values, documents, document_values, ranks, scores,
                      LineNumbers([0], [first_line], [kept]))


def _score_column(column: pa.ChunkedArray, as_text: bool) -> np.ndarray:
    """Scores as floats; from text, those of plain decimal form convert in pyarrow (exactly as ``float()``)
    and the others are left NaN for the row's definition to read."""
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
    raise InputError(display, first_line + index, TREC_SHAPE, f"{counts[index]} fields", plain_expected=PLAIN_TREC_SHAPE)


def _csv_run_by_columns(data: bytes, display: str, system: str, progress: Callable[[float], None]) -> RunColumns | None:
    """CSV run rows as columns; None for files with quotes, ragged rows or padded values (read as CSV records)."""
    if b'"' in data:
        return None  # a quoted field may span lines, the header's too: the csv module's records are read
    text = universal_newlines(data)
    first_line, first, after_first = first_line_span(text)
    first_fields = csv_line(first, first_line, display) if first else None
    columns, header = (_csv_run_columns_of(first_fields, display, first_line) if first_fields
                       else (NO_HEADER_COLUMNS, False))
    if header:
        body_line, body_start = first_line + 1, after_first
    else:
        body_line, body_start = first_line, text.rfind(b"\n", 0, after_first - 1) + 1
    width = len(first_fields or ())
    used = {name: f"c{column}" for name, column in columns.items() if column < width}
    parsed = None
    if first_fields and "rank" in used:
        types = {used[name]: DICTIONARY for name in ("query_id", "image_id", "rank")}
        if "score" in used:
            types[used["score"]] = pa.float64()
        parsed = parse_pieces(text, [f"c{i}" for i in range(width)], types, ",", include=list(types),
                              progress=progress, start=body_start)
    coded = {} if parsed is None or parsed.table is None else {
        name: dictionary_codes(parsed.table.column(used[name])) for name in ("query_id", "image_id", "rank")}
    if not coded or any(_padded_or_empty(values).any() for _, values in coded.values()):
        return None
    (queries, query_values), (documents, document_values) = coded["query_id"], coded["image_id"]
    rank_codes, rank_values = coded["rank"]
    rank_of_value, rank_ok = _rank_values(rank_values)
    ranks = rank_of_value[rank_codes]
    scores = float_column(parsed.table.column(used["score"])) if "score" in used else np.zeros(len(ranks))
    suspect = ~np.isfinite(scores)
    for ok, codes in ((rank_ok, rank_codes), (valid_ids(query_values), queries), (valid_ids(document_values), documents)):
        if not ok.all():
            suspect |= ~ok[codes]
    lines = LineIndex(text, body_start, body_line)
    for row in np.flatnonzero(suspect):
        line = int(lines.line_of_rows([row])[0])
        fields = csv_line(lines.text(line), line, display) or []
        _, _, ranks[row], scores[row] = _csv_run_entry(line, fields, columns, header, display)
    return RunColumns(np.zeros(len(ranks), dtype=np.int32), [system], queries, query_values.to_pylist(), documents,
                      document_values.to_pylist(), ranks, scores, lines.line_of_rows, scored="score" in used)


def _csv_run_entries(text: str, display: str, system: str) -> tuple[list, bool]:
    """CSV run rows as CSV records, each read by :func:`_csv_run_entry`: ``(line, tag, qid, docid, rank, score)``, and
    whether the file has a score column (without one, every score reads 0 and the ranks alone order the lists)."""
    entries = []
    columns, header = NO_HEADER_COLUMNS, False
    for position, (line, fields) in enumerate(csv_rows(text, display)):
        if position == 0:
            columns, header = _csv_run_columns_of(fields, display, line)
            if header:
                continue
        entries.append((line, system, *_csv_run_entry(line, fields, columns, header, display)))
    return entries, "score" in columns


def _csv_run_by_lines(text: str, display: str, system: str) -> RunColumns:
    """A CSV run with quotes (or rows the columns cannot hold), every row read by the definition, as columns."""
    entries, scored = _csv_run_entries(text, display, system)
    return _run_columns_from_entries(entries, scored)


def _run_columns_from_entries(entries: list, scored: bool = True) -> RunColumns:
    lines = np.array([entry[0] for entry in entries], dtype=np.int64)

    def coded(values) -> tuple[np.ndarray, list[str]]:
        codes: dict[str, int] = {}
        return np.array([codes.setdefault(v, len(codes)) for v in values], dtype=np.int32), list(codes)

    tags, tag_names = coded(entry[1] for entry in entries)
    queries, query_names = coded(entry[2] for entry in entries)
    documents, document_names = coded(entry[3] for entry in entries)
    ranks = np.array([entry[4] for entry in entries], dtype=np.int64)
    scores = np.array([entry[5] for entry in entries], dtype=np.float64)
    return RunColumns(tags, tag_names, queries, query_names, documents, document_names, ranks, scores,
                      lambda rows: lines[np.asarray(rows, dtype=np.int64)], scored)


def _rank_values(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct rank text as :func:`_parse_rank_score` reads it, and whether it is a rank in 0..MAX_RANK."""
    ranks = np.zeros(len(values), dtype=np.int32)  # MAX_RANK < 2**31
    ok = np.zeros(len(values), dtype=bool)
    for i, raw in enumerate(values.to_pylist()):
        rank = _rank_of(raw) if DECIMAL_INTEGER.fullmatch(raw) else None
        if rank is not None:
            ranks[i], ok[i] = rank, True
    return ranks, ok


def _padded_or_empty(values: pa.Array) -> np.ndarray:
    """Which distinct values ``str.strip()`` would change, or are empty."""
    return np.array([not value or value != value.strip() for value in values.to_pylist()], dtype=bool)
