"""TREC qrels ``qid iter docid grade``, read as trec_eval reads them.

One definition: a line is read by :func:`_judgment`, and the judgments as a whole by
:func:`_checked_judgments` (each distinct ID and grade checked once, a pair judged twice found by
sorting, the first offending line named by :func:`_judgment`). Its lines are split by pyarrow
(:func:`_qrels_by_columns`, whitespace collapsed first where needed) or, where pyarrow would read
the bytes otherwise, by Python (:func:`_qrels_by_lines`: lines split at line feeds and stripped,
fields by ``str.split()``), both handing the same columns to the same checks.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

from evalcore.data import JudgmentColumns, Qrels
from evalcore.decimals import DECIMAL_INTEGER, bounded_integer
from evalcore.errors import InputError
from evalcore.readers.columnar import (
    DICTIONARY,
    LINE_FEED,
    LineIndex,
    collapse_whitespace,
    dictionary_codes,
    dictionary_values,
    fast_or_by_lines,
    parse_pieces,
    spaced_or_empty,
    valid_ids,
)
from evalcore.readers.files import Source, read_checked_bytes
from evalcore.readers.lines import check_id, split_lines

MAX_GRADE_MAGNITUDE = 1 << 53  # grades become float64 gains, exact only up to 2^53
QRELS_FIELDS = ("qid", "iter", "docid", "grade")
QRELS_SHAPE = "4 whitespace-separated fields 'qid iter docid grade'"
#: :data:`QRELS_SHAPE` for a reader who is not a researcher.
PLAIN_SHAPE = "rating lines of 4 fields separated by spaces: the case's image, 0, the image rated and its rating"
BYTE_ORDER_MARK = b"\xef\xbb\xbf"
COMMENT = ord("#")


def read_qrels(source: Source, name: str | None = None) -> Qrels:
    """Read TREC qrels ``qid iter docid grade`` (whitespace-separated) as trec_eval reads them.

    ``iter`` is ignored. The grade must be an integer: trec_eval's ``atol`` would silently
    read ``1.5`` as 1, here it is an error. Negative grades are kept; trec_eval reads them
    as "in the pool but unjudged", which every metric scores like grade 0. Lines starting
    with ``#`` are skipped, as trec_eval's ``get_qrels.c`` does (the readers of pytrec_eval,
    ir_measures and ranx reject them). A (qid, docid) pair judged twice is an error, as in trec_eval.

    The lines are parsed as columns, so ten million judgments take seconds and stay a few
    arrays (:class:`~evalcore.data.JudgmentColumns`); the first offending line is named as
    the definition names it.

    >>> read_qrels(b"q1 0 d1 2\\nq1 0 d2 0\\nq2 Q0 d1 1\\n", "x.qrels").judgments["q1"]
    {'d1': 2, 'd2': 0}
    """
    data, display = read_checked_bytes(source, name)
    return fast_or_by_lines(_qrels_by_columns, _qrels_by_lines, data, display)


def _judgment(line: int, content: str, display: str) -> tuple[str, str, int]:
    """One non-comment line, by definition: ``(qid, docid, grade)`` or the InputError naming the line."""
    fields = content.split()
    if len(fields) != 4:
        raise InputError(display, line, QRELS_SHAPE, f"{len(fields)} fields", plain_expected=PLAIN_SHAPE)
    qid, docid = check_id(fields[0], display, line), check_id(fields[2], display, line)
    if not DECIMAL_INTEGER.fullmatch(fields[3]):
        raise InputError(display, line, "an integer grade (e.g. 0, 1, 2)", repr(fields[3])[:40],
                         plain_expected="a whole number as the rating (e.g. 0, 1, 2)")
    grade = bounded_integer(fields[3], MAX_GRADE_MAGNITUDE)
    if grade is None:
        raise InputError(display, line, "a grade between -2^53 and 2^53", fields[3][:40],
                         plain_expected="a rating between -2^53 and 2^53")
    return qid, docid, grade


def _repeated_error(display: str, line: int, qid: str, docid: str, earlier: int) -> InputError:
    return InputError(display, line, f"each (query, document) pair judged once ({qid} {docid} already on line "
                                     f"{earlier})", "a duplicate",
                      plain_expected=f"each pair of images rated once ({qid} {docid} already on line {earlier})")


def _no_judgment_error(display: str) -> InputError:
    return InputError(display, None, "at least one judgment line 'qid iter docid grade'", "none",
                      plain_expected="at least one rating line")


def _qrels_by_lines(text: str, display: str) -> Qrels:
    """The qrels split by Python (lines at line feeds, stripped, ``#`` lines skipped, fields by ``str.split()``) up to
    the first line without four fields, checked by :func:`_checked_judgments`; then that line is named."""
    numbers: list[int] = []
    contents: list[str] = []
    fields: list[list[str]] = []
    other_count: tuple[int, str] | None = None
    for line, content in split_lines(text, display):
        if content.startswith("#"):
            continue
        split = content.split()
        if len(split) != len(QRELS_FIELDS):
            other_count = (line, content)
            break
        numbers.append(line)
        contents.append(content)
        fields.append(split)
    coded = [_codes([row[position] for row in fields]) for position in (0, 2, 3)]
    columns = _checked_judgments(coded, lambda row: (numbers[row], contents[row]), display)
    if other_count is not None:
        _judgment(*other_count, display)  # raises: the line has another number of fields
    if not len(columns.keys):
        raise _no_judgment_error(display)
    return Qrels(columns, display)


def _codes(values: list[str]) -> tuple[np.ndarray, pa.Array]:
    """:func:`~evalcore.readers.columnar.dictionary_codes` of a list of strings."""
    encoded = pa.array(values, type=pa.string()).dictionary_encode()
    return encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False), encoded.dictionary


def _qrels_by_columns(data: bytes, display: str) -> Qrels | None:
    """The qrels split by pyarrow; None where it might read the bytes otherwise than ``str.split()`` (a byte-order
    mark inside the file) or cannot split them: Python splits those."""
    if BYTE_ORDER_MARK in data:
        return None
    columns = None
    # Files as TREC tools write them (single spaces, LF or CRLF breaks) are parsed as they are; any other
    # whitespace is first collapsed as str.split() sees it.
    if b"\r" not in data or data.count(b"\r") == data.count(b"\r\n"):
        columns = _judgment_columns(_without_comments(data), display, collapsed=False)
    if columns is None:
        columns = _judgment_columns(_without_comments(collapse_whitespace(data)), display, collapsed=True)
    if columns is None:
        return None
    if not len(columns.keys):
        raise _no_judgment_error(display)
    return Qrels(columns, display)


def _without_comments(text: bytes) -> bytes:
    r"""``text`` with every line that begins with ``#`` emptied (its line feed kept, so line numbers do not change).

    >>> _without_comments(b"#a\nq 0 d 1\n#b c\r\n")
    b'\nq 0 d 1\n\n'
    """
    if b"#" not in text:
        return text
    array = np.frombuffer(text, dtype=np.uint8)
    hashes = np.flatnonzero(array == COMMENT)
    starts = hashes[(hashes == 0) | (array[hashes - 1] == LINE_FEED)]
    if not len(starts):
        return text
    pieces, kept_from = [], 0
    for start in starts.tolist():
        end = text.find(b"\n", start)
        pieces.append(text[kept_from:start])
        kept_from = len(text) if end < 0 else end
    pieces.append(text[kept_from:])
    return b"".join(pieces)


def _judgment_columns(text: bytes, display: str, collapsed: bool) -> JudgmentColumns | None:
    """Parse ``text`` (comment lines emptied; whitespace collapsed where ``collapsed``) and check it by
    :func:`_checked_judgments`; None when ``text`` is not collapsed and holds a line that is not four
    single-space-separated fields."""
    parsed = parse_pieces(text, QRELS_FIELDS, dict.fromkeys(QRELS_FIELDS, DICTIONARY), " ")
    if parsed.table is None:
        return _raise_field_count(text, display) if collapsed else None
    table = parsed.table
    if not collapsed and any(spaced_or_empty(dictionary_values(table.column(field))).any() for field in QRELS_FIELDS):
        return None
    coded = [dictionary_codes(table.column(field)) for field in ("qid", "docid", "grade")]
    del parsed, table
    lines = LineIndex(text)

    def line_and_text(row: int) -> tuple[int, str]:
        line = int(lines.line_of_rows([row])[0])
        return line, lines.text(line)

    return _checked_judgments(coded, line_and_text, display)


def _checked_judgments(coded: list[tuple[np.ndarray, pa.Array]], line_and_text: Callable[[int], tuple[int, str]],
                       display: str) -> JudgmentColumns:
    """The definition of the judgments, given the codes and distinct values of the query, the document and the grade
    of each row (lines of four fields, in file order; the list is emptied, so that the codes are freed once used):
    the judgments, or the first offending row's error as :func:`_judgment` names it (``line_and_text(row)``: its
    line and text), a pair judged a second time named with its first line."""
    (queries, query_values), (documents, document_values), (grade_codes, grade_values) = coded
    coded.clear()
    grade_of_value, grade_ok = _grade_values(grade_values)
    offending = ~grade_ok[grade_codes] | ~valid_ids(query_values)[queries] | ~valid_ids(document_values)[documents]
    grades = grade_of_value[grade_codes]
    del grade_codes
    # Queries in order of first appearance, as the definition's dict holds them: a query first appears where the
    # column changes, and a file lists its queries in runs of lines, so only those rows are sorted.
    changes = np.flatnonzero(np.diff(queries, prepend=-1))
    present, first_change = np.unique(queries[changes], return_index=True)
    in_file_order = present[np.argsort(first_change)]
    code_of_query = np.zeros(len(query_values), dtype=np.int32)
    code_of_query[in_file_order] = np.arange(len(in_file_order), dtype=np.int32)
    columns = JudgmentColumns(query_values.take(pa.array(in_file_order)).to_pylist(),
                              document_values.to_numpy(zero_copy_only=False), code_of_query[queries], documents, grades)
    del queries, documents, grades
    repeated = columns.first_repeated()
    bad = np.flatnonzero(offending[: repeated[0] if repeated else len(offending)])
    if len(bad) or repeated:
        row = int(bad[0]) if len(bad) else repeated[0]
        line, content = line_and_text(row)
        qid, docid, _ = _judgment(line, content, display)  # raises for an offending row
        raise _repeated_error(display, line, qid, docid, line_and_text(repeated[1])[0])
    return columns


def _grade_values(values: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct grade text as :func:`_judgment` reads it, and whether it is a grade it accepts."""
    grades = np.zeros(len(values), dtype=np.int64)
    ok = np.zeros(len(values), dtype=bool)
    for i, raw in enumerate(values.to_pylist()):
        grade = bounded_integer(raw, MAX_GRADE_MAGNITUDE) if DECIMAL_INTEGER.fullmatch(raw) else None
        if grade is not None:
            grades[i], ok[i] = grade, True
    return grades, ok


def _raise_field_count(text: bytes, display: str) -> None:
    """Name the first line of collapsed ``text`` without four fields, after the errors of the lines before it; None
    where every line has four (pyarrow refused the text for another reason: the definition reads it)."""
    lines = LineIndex(text)
    counts = lines.field_counts(ord(" "))
    wrong = np.flatnonzero((counts != 0) & (counts != 4))
    if not len(wrong):
        return None
    line = int(wrong[0]) + 1
    start = lines.line_start(line)
    if start and _judgment_columns(text[:start], display, collapsed=True) is None:
        return None
    raise InputError(display, line, QRELS_SHAPE, f"{counts[line - 1]} fields", plain_expected=PLAIN_SHAPE)
