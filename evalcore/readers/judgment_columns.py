"""Clinicians' judgments of image pairs as columns (the ``agreement`` command): CSV ``judge,case,candidate,grade[,time]``
or TREC graded qrels ``case 0 candidate grade`` (one judge, named ``qrels``). A grade is 0 (not similar), 1 (partly) or 2
(very similar), or ``skipped`` (a pair the judge passed over, as the Judging page's export writes it: kept, counted,
and left out of every statistic).

One definition: a CSV row is read by :func:`_judgment_row` (its judge by :func:`judge_name`, its IDs by
:func:`~evalcore.readers.lines.check_id`, its grade by :func:`_grade`, its time by :func:`_time`), and the rows as a
whole by :func:`_judgments_of_rows` (the header, a case graded against itself, times of two kinds, a grading
repeated without a time of its own, at least one row). A file without quotes is split into lines by pyarrow, the
usual ones read as arrays and every other one by the per-row functions, in line order; a file with quotes is read
by Python's csv module, every record by the per-row functions (:func:`~evalcore.readers.columnar.fast_or_by_lines`).
Qrels are TREC's, read by :func:`~evalcore.readers.qrels.read_qrels` (its one definition), then held to the grades
0..2 and to a candidate other than the case. A million gradings are read in seconds and held as a few arrays.

What is refused names the file, the line and what was expected: a judge's name with a character HTML gives a meaning
to (``< > & " ' \\```) or a control or format character (a name is shown in reports and pages), a grade outside 0..2,
a grading repeated with nothing to tell it apart (both lines named), more than :data:`MAX_JUDGMENTS` gradings, a
line over :data:`~evalcore.readers.files.MAX_LINE_BYTES`. Which IDs have concept sets is the study's to check
(:mod:`evalcore.studies.agreement`).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from functools import partial

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalcore.data import Judgments
from evalcore.decimals import finite_decimal
from evalcore.errors import InputError, quoted_id
from evalcore.readers.columnar import (
    Rows,
    fast_or_by_lines,
    matches,
    rows_of_lines,
    rows_of_records,
    unquoted_line_column,
)
from evalcore.readers.files import Source, first_long_line, long_line_error, read_checked_bytes
from evalcore.readers.lines import check_delimiter, check_id, csv_line, first_line_of
from evalcore.readers.qrels import read_qrels

#: The most gradings a judgments file may hold (a clinical reading study holds thousands).
MAX_JUDGMENTS = 10_000_000
#: The longest judge's name, in characters.
MAX_JUDGE_CHARS = 100
GRADES = (0, 1, 2)
#: A grade of a pair the judge passed over (the Judging page's export), held as :data:`SKIPPED`.
SKIPPED_GRADE = "skipped"
SKIPPED = -1
GRADE_WORDS = "a grade 0 (not similar), 1 (partly similar), 2 (very similar) or skipped"
HEADER = ("judge", "case", "candidate", "grade")
HEADER_WORDS = "a header 'judge,case,candidate,grade' (with ',time' where each grading has its time)"
TIME_WORDS = "a time: seconds (a number such as 12.5) or an ISO 8601 date-time such as 2026-01-31T09:15:00"
#: :data:`HEADER_WORDS`, :data:`GRADE_WORDS` and :data:`TIME_WORDS` for a reader who is not a researcher.
PLAIN_HEADER = "a first line naming the columns judge,case,candidate,grade (and time, where each rating has its time)"
PLAIN_GRADE = "a rating 0 (not similar), 1 (somewhat similar), 2 (very similar) or skipped"
PLAIN_TIME = "a time: seconds (a number such as 12.5) or a date and time such as 2026-01-31T09:15:00"
#: The characters HTML gives a meaning to, and the backtick: never in a judge's name.
HTML_CHARACTERS = "<>&\"'`"
#: What a graded pair's second image must be, for a reader who is not a researcher.
PLAIN_OTHER_IMAGE = "an image to compare other than the case's own image"
QRELS_JUDGE = "qrels"
#: Whitespace as str.strip() strips it in ASCII (tab, LF, VT, FF, CR, FS..US, space).
ASCII_STRIPPED = b" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"

# The usual row, read as arrays: a judge's name of printable ASCII without the HTML characters or a comma (spaces
# inside only), two image IDs as the pairs reader's, a grade, and a time in seconds or as an ISO date-time.
_NAME_CHAR = r"[\x21\x23-\x25\x28-\x2b\x2d-\x3b\x3d\x3f-\x5f\x61-\x7e]"
_NAME = _NAME_CHAR + r"(?:[\x20\x21\x23-\x25\x28-\x2b\x2d-\x3b\x3d\x3f-\x5f\x61-\x7e]{0,98}" + _NAME_CHAR + ")?"
_ID = r"[!#-+\--~]{1,300}"
_SECONDS = r"[0-9]{1,15}(?:\.[0-9]{1,9})?"
_DATE_TIME = r"[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,6})?)?)?(?:Z|[+-][0-9]{2}:[0-9]{2})?"
_USUAL = f"^{_NAME},{_ID},{_ID},(?:[012]|{SKIPPED_GRADE})"
SECONDS, DATE_TIME = 0, 1


def read_judgment_columns(source: Source, name: str | None = None) -> Judgments:
    """Read clinicians' judgments: CSV with the header ``judge,case,candidate,grade`` (and ``,time``: seconds or an
    ISO 8601 date-time), or TREC graded qrels ``case 0 candidate grade`` (one judge, ``qrels``).

    A judge grading the same pair twice is a repeated grading (its self-consistency is measured) only where each
    grading has its own time; the same pair, judge and time twice, or twice in a file without times, is refused
    naming both lines.

    >>> judged = read_judgment_columns(b"judge,case,candidate,grade\\nann,q1,x,2\\nbob,q1,x,skipped\\n", "j.csv")
    >>> judged.judges, judged.rows()
    (('ann', 'bob'), [('ann', 'q1', 'x', 2), ('bob', 'q1', 'x', -1)])
    >>> read_judgment_columns(b"q1 0 x 2\\nq1 0 y 0\\n", "j.qrels").rows()
    [('qrels', 'q1', 'x', 2), ('qrels', 'q1', 'y', 0)]
    """
    data, display = read_checked_bytes(source, name)
    long = first_long_line(data)
    if long is not None:
        raise long_line_error(data, long, display, 1)
    first_line, first = first_line_of(data)
    if not first_line:
        raise InputError(display, None, f"{HEADER_WORDS} and a grading after it, or TREC qrels 'case 0 candidate grade'",
                         "an empty file", plain_expected=f"{PLAIN_HEADER} and a rating after it")
    if _is_qrels(first):
        judged = _qrels_judgments(data, display)
    else:
        check_delimiter(first, first_line, display, (",",), HEADER_WORDS)
        timed = _header(csv_line(first, first_line, display) or [], display, first_line)
        judged = fast_or_by_lines(_judgments_by_columns, _judgments_by_lines, data, display, timed)
    if len(judged) > MAX_JUDGMENTS:
        raise InputError(display, None, f"at most {MAX_JUDGMENTS:,} gradings", f"{len(judged):,}",
                         plain_expected=f"at most {MAX_JUDGMENTS:,} ratings")
    return judged


def _is_qrels(first: str) -> bool:
    """A first line of TREC qrels: a comment, or four whitespace-separated fields without a comma (not a header)."""
    fields = first.split()
    return first.startswith("#") or ("," not in first and len(fields) == 4 and fields[0].lower() != HEADER[0])


# --- the definition: one row, then the rows -------------------------------------------------------------------


def _header(fields: list[str], display: str, line: int) -> bool:
    """Whether the header names a time column; an InputError where it is no judgments header."""
    names = [field.lower() for field in fields]
    if names == list(HEADER):
        return False
    if names == [*HEADER, "time"]:
        return True
    raise InputError(display, line, HEADER_WORDS, ",".join(fields)[:80], plain_expected=PLAIN_HEADER)


def judge_name(raw: str, display: str, line: int) -> str:
    """A judge's name: 1 to 100 printable characters (no control or format character: no line break, no escape
    sequence, no bidirectional override), none of them one HTML gives a meaning to."""
    wrong = next((character for character in raw if character in HTML_CHARACTERS or not character.isprintable()), None)
    if raw and len(raw) <= MAX_JUDGE_CHARS and wrong is None:
        return raw
    expected = (f"a judge's name of 1 to {MAX_JUDGE_CHARS} printable characters, none of < > & \" ' ` (names are shown "
                "in reports)")
    if wrong is not None:
        raise InputError(display, line, expected, f"a name holding {ascii(wrong)}", plain_expected=expected)
    raise InputError(display, line, expected, "an empty name" if not raw else f"a name of {len(raw):,} characters",
                     plain_expected=expected)


def _grade(raw: str, display: str, line: int) -> int:
    if raw in ("0", "1", "2"):
        return int(raw)
    if raw == SKIPPED_GRADE:
        return SKIPPED
    raise InputError(display, line, GRADE_WORDS, repr(raw)[:40], plain_expected=PLAIN_GRADE)


def _time_value(raw: str) -> tuple[float, int] | None:
    """A time in seconds and its kind (:data:`SECONDS` or :data:`DATE_TIME`, read as seconds since 1970 in UTC where
    it names no zone), or None where ``raw`` is neither."""
    seconds = finite_decimal(raw)
    if seconds is not None:
        return seconds, SECONDS
    try:
        moment = datetime.fromisoformat(raw)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp(), DATE_TIME


def _time(raw: str, display: str, line: int) -> tuple[float, int]:
    value = _time_value(raw) if raw else None
    if value is None:
        raise InputError(display, line, TIME_WORDS, repr(raw)[:60], plain_expected=PLAIN_TIME)
    return value


def _judgment_row(fields: list[str], display: str, line: int, timed: bool) -> tuple[str, str, str, int, float, int]:
    """One grading: ``(judge, case, candidate, grade, time, kind of time)`` (time NaN without a time column)."""
    count = len(HEADER) + timed
    if len(fields) != count:
        raise InputError(display, line, f"{count} fields '{','.join(HEADER)}{',time' if timed else ''}'",
                         f"{len(fields)} fields",
                         plain_expected=f"{count} fields '{','.join(HEADER)}{',time' if timed else ''}'")
    judge = judge_name(fields[0], display, line)
    case, candidate = check_id(fields[1], display, line), check_id(fields[2], display, line)
    if case == candidate:
        raise InputError(display, line, "a candidate image other than the case image", quoted_id(case),
                         plain_expected=PLAIN_OTHER_IMAGE)
    grade = _grade(fields[3], display, line)
    seconds, kind = _time(fields[4], display, line) if timed else (math.nan, SECONDS)
    return judge, case, candidate, grade, seconds, kind


def _judgments_by_lines(text: str, display: str, timed: bool) -> Judgments:
    """The judgments of a file with quoted fields: its CSV records, each read by the definition."""
    return _judgments_of_rows(rows_of_records(text, display), display, timed)


def _judgments_by_columns(data: bytes, display: str, timed: bool) -> Judgments | None:
    """The judgments of a file without quotes: its lines, those of the usual form read as arrays."""
    lines = unquoted_line_column(data)
    if lines is None:
        return None
    column, index = lines
    usual = matches(column, _USUAL + (f",(?:{_SECONDS}|{_DATE_TIME})$" if timed else "$"))
    return _judgments_of_rows(rows_of_lines(column, index, usual, partial(csv_line, display=display)), display, timed)


def _judgments_of_rows(rows: Rows, display: str, timed: bool) -> Judgments:
    """The definition over the rows: the header first, then one grading a row; the first offending line named."""
    extra, values, failure = _scanned_rows(rows, display, timed)
    usual = np.flatnonzero(rows.usual)
    fields = _usual_fields(rows, usual, timed)
    offending = np.flatnonzero(fields.pop("offending"))
    if len(offending) and (failure is None or usual[offending[0]] < failure[0]):
        row = int(usual[offending[0]])
        line = int(rows.numbers[row])
        _judgment_row(rows.fields(row) or [], display, line, timed)  # raises: the definition names the problem
    if failure is not None:
        raise failure[1]
    positions = np.concatenate([usual, np.asarray(extra, dtype=np.int64)])
    if not len(positions):
        raise InputError(display, None, f"{HEADER_WORDS} and a grading after it", "a header-only file",
                         plain_expected=f"{PLAIN_HEADER} and a rating after it")
    order = np.argsort(positions, kind="stable")
    columns = list(zip(*values)) if values else [[] for _ in range(6)]
    judges = _joined(fields["judge"], columns[0], order)
    images = _joined(fields["case"], columns[1], order), _joined(fields["candidate"], columns[2], order)
    numbers = rows.numbers[positions[order]]
    grade = np.concatenate([fields["grade"], np.asarray(columns[3], dtype=np.int8)])[order]
    seconds = np.concatenate([fields["time"], np.asarray(columns[4], dtype=np.float64)])[order]
    kinds = np.concatenate([fields["kind"], np.asarray(columns[5], dtype=np.int8)])[order]
    if timed:
        _check_one_kind(kinds, numbers, display)
    return _checked_judgments(judges, images, grade, seconds, numbers, display, timed)


def _scanned_rows(rows: Rows, display: str, timed: bool) -> tuple[list[int], list[tuple], tuple[int, InputError] | None]:
    """The rows the per-row functions read (the header, every row not of the usual form), in order, up to the first
    that raises: their positions, their values, and that row with its error."""
    extra: list[int] = []
    values: list[tuple] = []
    header_done = False
    for row in rows.scanned:
        try:
            fields = rows.fields(row)
            if fields is None:
                continue
            line = int(rows.numbers[row])
            if not header_done:
                header_done = True
                _header(fields, display, line)
                continue
            if rows.usual[row]:
                continue  # scanned only in case it was the header
            values.append(_judgment_row(fields, display, line, timed))
            extra.append(row)
        except InputError as error:
            return extra, values, (row, error)
    return extra, values, None


def _usual_fields(rows: Rows, usual: np.ndarray, timed: bool) -> dict:
    """The fields of the usual rows as arrays, and which of them the definition refuses all the same (a case graded
    against itself, a date that does not exist)."""
    mask = pa.array(rows.usual) if len(rows.usual) else pa.array([], type=pa.bool_())
    lists = pc.split_pattern(rows.column.filter(mask), ",") if len(usual) else pa.chunked_array([], pa.list_(pa.string()))

    def field(position: int) -> pa.Array:
        if not len(usual):
            return pa.array([], type=pa.string())
        return pc.list_element(lists, position).combine_chunks()

    judge, case, candidate = field(0), field(1), field(2)
    offending = pc.equal(case, candidate).to_numpy(zero_copy_only=False) if len(usual) else np.zeros(0, dtype=bool)
    grade = np.zeros(0, dtype=np.int8)
    if len(usual):
        grade = pc.cast(pc.replace_substring(field(3), SKIPPED_GRADE, str(SKIPPED)), pa.int8()).to_numpy(zero_copy_only=False)
    seconds, kind = np.full(len(usual), np.nan), np.zeros(len(usual), dtype=np.int8)
    if timed and len(usual):
        seconds, kind, unread = _usual_times(field(4))
        offending = offending | unread
    return {"judge": judge, "case": case, "candidate": candidate, "grade": grade, "time": seconds, "kind": kind,
            "offending": offending}


def _usual_times(raw: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seconds, kind and "not a time" of the usual rows' times: numbers cast as arrays, date-times read once each."""
    plain = matches(pa.chunked_array([raw]), f"^{_SECONDS}$")
    seconds = np.full(len(raw), np.nan)
    kind = np.where(plain, SECONDS, DATE_TIME).astype(np.int8)
    if plain.any():
        seconds[plain] = pc.cast(raw.filter(pa.array(plain)), pa.float64()).to_numpy(zero_copy_only=False)
    unread = np.zeros(len(raw), dtype=bool)
    if not plain.all():
        dated = np.flatnonzero(~plain)
        encoded = raw.take(pa.array(dated)).dictionary_encode()
        read = [_time_value(text) for text in encoded.dictionary.to_pylist()]
        value = np.array([math.nan if found is None else found[0] for found in read])
        codes = encoded.indices.to_numpy(zero_copy_only=False)
        seconds[dated] = value[codes]
        unread[dated] = np.isnan(value)[codes]
    return seconds, kind, unread


def _joined(arrays: pa.Array, listed: list[str] | tuple[str, ...], order: np.ndarray) -> pa.Array:
    """The usual rows' values followed by the others', in row order."""
    return pa.concat_arrays([arrays.cast(pa.string()), pa.array(list(listed), type=pa.string())]).take(pa.array(order))


def _check_one_kind(kinds: np.ndarray, numbers: np.ndarray, display: str) -> None:
    """Times of one kind in a file: seconds and date-times cannot be ordered against each other."""
    other = np.flatnonzero(kinds != kinds[0])
    if len(other):
        first, found = ("seconds", "an ISO 8601 date-time") if kinds[0] == SECONDS else ("ISO 8601 date-times", "seconds")
        raise InputError(display, int(numbers[other[0]]), f"times of one kind, as on line {int(numbers[0])}: {first} "
                                                          "throughout", found,
                         plain_expected=f"times of one kind, as on line {int(numbers[0])}: "
                                        f"{'seconds' if kinds[0] == SECONDS else 'dates and times'} throughout")


def _checked_judgments(judges: pa.Array, images: tuple[pa.Array, pa.Array], grade: np.ndarray, seconds: np.ndarray,
                       numbers: np.ndarray, display: str, timed: bool, form: str = "csv") -> Judgments:
    """The gradings as codes, a grading repeated with nothing to tell it apart (same judge, pair and time) refused
    naming both lines."""
    judge_codes = judges.dictionary_encode()
    case, candidate = images
    both = pa.concat_arrays([case, candidate]).dictionary_encode()
    codes = both.indices.to_numpy(zero_copy_only=False).astype(np.int32)
    judged = Judgments(tuple(judge_codes.dictionary.to_pylist()), tuple(both.dictionary.to_pylist()),
                       judge_codes.indices.to_numpy(zero_copy_only=False).astype(np.int32), codes[:len(case)],
                       codes[len(case):], grade.astype(np.int8), seconds, numbers.astype(np.int64), display, form)
    repeated = first_repeated_grading(judged)
    if repeated is not None:
        later, earlier = repeated
        judge, case_id, candidate_id, _ = _row(judged, later)
        why = (" at the same time (a repeated grading needs a time of its own)" if timed else
               " (a judge grades a pair once in a file without times; a repeated grading needs a 'time' column)")
        raise InputError(display, int(judged.lines[later]),
                         f"each grading once: judge {judge!r} graded {quoted_id(candidate_id)} for the case "
                         f"{quoted_id(case_id)} on line {int(judged.lines[earlier])} already{why}", "a duplicate",
                         plain_expected=f"each rating once: {judge!r} rated {quoted_id(candidate_id)} for the case "
                                        f"{quoted_id(case_id)} on line {int(judged.lines[earlier])} already")
    return judged


def _row(judged: Judgments, row: int) -> tuple[str, str, str, int]:
    return (judged.judges[judged.judge[row]], judged.images[judged.case[row]], judged.images[judged.candidate[row]],
            int(judged.grade[row]))


def first_repeated_grading(judged: Judgments) -> tuple[int, int] | None:
    """The row of the first grading (in file order) that repeats an earlier one of the same judge, pair and time (or
    of the same judge and pair, without times), and the row of that earlier one; None where there is none.

    >>> judged = read_judgment_columns(b"judge,case,candidate,grade,time\\na,q,x,1,1\\na,q,x,2,2\\n", "j.csv")
    >>> first_repeated_grading(judged) is None, len(judged)
    (True, 2)
    """
    time = np.where(np.isnan(judged.time), -np.inf, judged.time)
    order = np.lexsort((judged.lines, time, judged.candidate, judged.case, judged.judge))
    same = np.ones(max(len(order) - 1, 0), dtype=bool)
    for column in (judged.judge, judged.case, judged.candidate, time):
        ordered = column[order]
        same &= ordered[1:] == ordered[:-1]
    if not same.any():
        return None
    group = np.cumsum(np.concatenate(([True], ~same))) - 1
    starts = np.flatnonzero(np.concatenate(([True], ~same)))
    later = np.flatnonzero(np.concatenate(([False], same)))
    first = later[np.argmin(judged.lines[order[later]])]
    return int(order[first]), int(order[starts[group[first]]])


# --- TREC qrels ---------------------------------------------------------------------------------------------------


def _qrels_judgments(data: bytes, display: str) -> Judgments:
    """TREC qrels as the judgments of one judge, ``qrels``: each judgment a grading of 0..2 of a candidate other than
    its case, on the line :func:`_qrels_lines` names."""
    columns = read_qrels(data, display).columns
    in_file = np.argsort(columns.rows, kind="stable")
    keys, grades = columns.keys[in_file], columns.grades[in_file]
    documents = max(len(columns.documents), 1)
    query, document = keys // documents, keys % documents
    document_of_query = columns.document_codes(list(columns.queries))
    lines = _qrels_lines(data)
    bad = np.flatnonzero((grades < 0) | (grades > 2) | (document_of_query[query] == document))
    if len(bad):
        row = int(bad[0])
        if not 0 <= grades[row] <= 2:
            raise InputError(display, int(lines[row]), "a grade 0 (not similar), 1 (partly similar) or 2 (very similar)",
                             str(int(grades[row])),
                             plain_expected="a rating 0 (not similar), 1 (somewhat similar) or 2 (very similar)")
        raise InputError(display, int(lines[row]), "a candidate image other than the case image",
                         quoted_id(columns.queries[query[row]]), plain_expected=PLAIN_OTHER_IMAGE)
    names = pa.array(columns.documents.tolist(), type=pa.string())
    cases = pa.array(list(columns.queries), type=pa.string()).take(pa.array(query))
    return _checked_judgments(pa.array([QRELS_JUDGE] * len(keys), type=pa.string()), (cases, names.take(pa.array(document))),
                              grades, np.full(len(keys), np.nan), lines, display, False, "qrels")


def _qrels_lines(data: bytes) -> np.ndarray:
    """The line of each judgment :func:`~evalcore.readers.qrels.read_qrels` reads: every line that is neither blank
    (as ``str.strip()`` sees it) nor a comment (``#``), in order."""
    found = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        text = raw.strip(ASCII_STRIPPED) if raw.isascii() else raw.decode("utf-8").strip().encode("utf-8")
        if text and not text.startswith(b"#"):
            found.append(number)
    return np.array(found, dtype=np.int64)
