"""Lasting judgments: what judges said of image pairs, kept on a shared server beside its saved workspaces.

A store of judgments is the file ``judgments.sqlite3`` in the folder of the saved workspaces
(:class:`evalcore.app.store.WorkspaceStore`'s), one table of rows ``(collection, judge, sequence, case, candidate,
grade, time)``: ``collection`` is the content digest of the collection judged (the page gives
:func:`evalcore.app.judging.judged_collection`), ``sequence`` counts each judge's judgments of it from 1, ``grade``
is 0, 1 or 2, or NULL for a pair the judge skipped, and ``time`` is in milliseconds since the epoch.

Safety, as the workspaces' index: the file is in WAL mode with full syncs, each change is one transaction that takes
the write lock first (``BEGIN IMMEDIATE``, waiting up to :data:`~evalcore.app.store.BUSY_TIMEOUT_SECONDS` for another
process's), so two judges saving at once both save, each judge's sequence stays 1, 2, 3, ... without a gap or a
repeat, and a process killed mid-save leaves the row whole or absent; an import is one transaction too, all its rows
or none. Undo deletes the judge's last row.

Exports: :func:`judgments_csv` (``judge,case,candidate,grade,time``, every judgment, a skipped pair's grade
``skipped``, the time in UTC to the millisecond; read back by
:func:`evalcore.readers.judgment_columns.read_judgment_columns`, the one reader of judgments, which the ``agreement``
command reads too) and :func:`judgments_qrels`, TREC graded qrels with one line a judged pair, its grade the mean over
judges (each judge's own grades of the pair averaged first, so that a repeated pair does not count twice) rounded half
up, skipped judgments left out. Imports (:meth:`JudgmentStore.add`) take what that reader read, either form, every ID
checked against the collection. A judge's name is the reader's (:func:`evalcore.readers.judgment_columns.judge_name`:
printable, no character HTML gives a meaning to), so that whatever is stored exports and imports again.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     store = JudgmentStore(folder, clock=lambda: 1767323045.678)
...     _ = store.record("c" * 64, "Ana", "img1", "img2", 2)
...     _ = store.record("c" * 64, "Ben", "img1", "img2", 1)
...     _ = store.record("c" * 64, "Ben", "img1", "img3", None)
...     undone = store.undo("c" * 64, "Ben")
...     kept = store.judgments("c" * 64)
>>> undone.candidate, [(j.judge, j.sequence, j.grade) for j in kept]
('img3', [('Ana', 1, 2), ('Ben', 1, 1)])
>>> print(judgments_qrels(kept), end="")
img1 0 img2 2
>>> print(judgments_csv(kept), end="")
judge,case,candidate,grade,time
Ana,img1,img2,2,2026-01-02T03:04:05.678Z
Ben,img1,img2,1,2026-01-02T03:04:05.678Z
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import sqlite3
import time
from collections import defaultdict
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from evalcore.app.store import BUSY_TIMEOUT_SECONDS, STORE_VARIABLE, use_write_ahead_log
from evalcore.data import Judgments
from evalcore.errors import InputError, ParameterError, StoreError, quoted_id
from evalcore.readers.judgment_columns import GRADES, HEADER, MAX_JUDGE_CHARS, SKIPPED, SKIPPED_GRADE, judge_name

__all__ = ["JUDGMENTS_FILE", "MAX_JUDGE_CHARS", "Judgment", "JudgmentStore", "checked_judge_name", "graded_pairs",
           "judge_name_problem", "judgments_csv", "judgments_qrels", "time_text"]

#: The judgments' file in the store's folder.
JUDGMENTS_FILE = "judgments.sqlite3"
#: A collection's key: a content digest (hexadecimal).
COLLECTION_PATTERN = re.compile(r"[0-9a-f]{16,128}")
#: The most characters of an image ID (as the readers' ``check_id``).
MAX_ID_CHARS = 300
SCHEMA = """
CREATE TABLE IF NOT EXISTS judgments (
    collection TEXT NOT NULL, judge TEXT NOT NULL, sequence INTEGER NOT NULL, case_id TEXT NOT NULL,
    candidate TEXT NOT NULL, grade INTEGER, time_ms INTEGER NOT NULL, PRIMARY KEY (collection, judge, sequence));
CREATE INDEX IF NOT EXISTS judgments_by_pair ON judgments (collection, judge, case_id, candidate, time_ms);
"""


@dataclass(frozen=True)
class Judgment:
    """One judgment as stored: the judge, the pair, the grade (None: skipped), when (milliseconds since the epoch)
    and its place in the judge's sequence (from 1)."""

    judge: str
    case: str
    candidate: str
    grade: int | None
    time_ms: int
    sequence: int


class JudgmentStore:
    """The judgments kept in the folder ``directory`` (created on first use; the saved workspaces' store folder),
    shared by the processes of a server, timed by ``clock`` (seconds since the epoch). Every problem of the file is
    raised as a :class:`~evalcore.errors.StoreError` whose message names no server path."""

    def __init__(self, directory: str | os.PathLike[str], clock: Callable[[], float] = time.time) -> None:
        text = os.fspath(directory)
        if not text or "\x00" in text:
            raise ParameterError(f"directory: expected a folder path, found {text!r}")
        self.directory = Path(text)
        self.clock = clock

    def record(self, collection: str, judge: str, case: str, candidate: str, grade: int | None) -> Judgment:
        """Keep ``judge``'s grade (0, 1, 2; None: skipped) of the pair (``case``, ``candidate``) of ``collection``, as
        the judge's next judgment; return it as stored."""
        collection, judge = _checked_collection(collection), checked_judge_name(judge)
        case, candidate = _checked_image(case, "case"), _checked_image(candidate, "candidate")
        if grade is not None and (isinstance(grade, bool) or grade not in GRADES):
            raise ParameterError(f"grade: expected 0, 1, 2 or None (skipped), found {grade!r}")
        time_ms = round(self.clock() * 1000)
        with self._connection() as index:
            index.execute("BEGIN IMMEDIATE")
            sequence = self._next_sequence(index, collection, judge)
            index.execute("INSERT INTO judgments VALUES (?, ?, ?, ?, ?, ?, ?)",
                          (collection, judge, sequence, case, candidate, grade, time_ms))
            index.execute("COMMIT")
        return Judgment(judge, case, candidate, grade, time_ms, sequence)

    def undo(self, collection: str, judge: str, sequence: int | None = None) -> Judgment | None:
        """Delete ``judge``'s last judgment of ``collection`` and return it (None where the judge has none); with
        ``sequence``, only where the last is that one (a second click on an undo already done undoes nothing more)."""
        collection, judge = _checked_collection(collection), checked_judge_name(judge)
        with self._connection() as index:
            index.execute("BEGIN IMMEDIATE")
            found = index.execute("SELECT judge, case_id, candidate, grade, time_ms, sequence FROM judgments WHERE "
                                  "collection = ? AND judge = ? ORDER BY sequence DESC LIMIT 1",
                                  (collection, judge)).fetchone()
            if found is not None and sequence is not None and found[5] != sequence:
                found = None
            if found is not None:
                index.execute("DELETE FROM judgments WHERE collection = ? AND judge = ? AND sequence = ?",
                              (collection, judge, found[5]))
            index.execute("COMMIT")
        return None if found is None else _judgment(found)

    def judgments(self, collection: str, judge: str | None = None) -> tuple[Judgment, ...]:
        """The judgments of ``collection`` (only ``judge``'s where given), by judge and in each judge's order."""
        collection = _checked_collection(collection)
        query = "SELECT judge, case_id, candidate, grade, time_ms, sequence FROM judgments WHERE collection = ?"
        values: tuple = (collection,)
        if judge is not None:
            query, values = query + " AND judge = ?", (collection, checked_judge_name(judge))
        with self._connection() as index:
            rows = index.execute(query + " ORDER BY judge, sequence", values).fetchall()
        return tuple(_judgment(row) for row in rows)

    def judges(self, collection: str) -> tuple[str, ...]:
        """The judges who judged ``collection``, by name."""
        collection = _checked_collection(collection)
        with self._connection() as index:
            rows = index.execute("SELECT DISTINCT judge FROM judgments WHERE collection = ? ORDER BY judge",
                                 (collection,)).fetchall()
        return tuple(row[0] for row in rows)

    def add(self, collection: str, judged: Judgments, known: Container[str] | None = None) -> int:
        """Import ``judged`` (a file read by :func:`~evalcore.readers.judgment_columns.read_judgment_columns`) as
        judgments of ``collection``, each judge's after the judge's own, in file order, a grading without a time at the import's
        time; all of them or, on a refusal, none. Refused, naming the file and the first line at fault: an ID
        ``known`` lacks (the collection's IDs, where given), a grading the judge already holds of the same pair at the
        same time (the same file imported twice). Returns the gradings added."""
        collection = _checked_collection(collection)
        rows = _rows_of(judged)
        if known is not None:
            _check_known(rows, known, judged.source)
        now = round(self.clock() * 1000)
        with self._connection() as index:
            index.execute("BEGIN IMMEDIATE")
            next_of: dict[str, int] = {}
            for line, judge, case, candidate, grade, time_ms in rows:
                if time_ms is not None and index.execute(
                        "SELECT 1 FROM judgments WHERE collection = ? AND judge = ? AND case_id = ? AND candidate = ? "
                        "AND time_ms = ? LIMIT 1", (collection, judge, case, candidate, time_ms)).fetchone():
                    index.execute("ROLLBACK")
                    raise InputError(judged.source, line, "a grading not yet recorded (nothing was imported)",
                                     f"judge {judge!r} already graded {quoted_id(candidate)} for the case "
                                     f"{quoted_id(case)} at this time")
                if judge not in next_of:
                    next_of[judge] = self._next_sequence(index, collection, judge)
                index.execute("INSERT INTO judgments VALUES (?, ?, ?, ?, ?, ?, ?)",
                              (collection, judge, next_of[judge], case, candidate, grade, now if time_ms is None
                               else time_ms))
                next_of[judge] += 1
            index.execute("COMMIT")
        return len(rows)

    @staticmethod
    def _next_sequence(index: sqlite3.Connection, collection: str, judge: str) -> int:
        return index.execute("SELECT COALESCE(MAX(sequence), 0) + 1 FROM judgments WHERE collection = ? AND judge = ?",
                             (collection, judge)).fetchone()[0]

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        """A connection to the judgments' file in WAL mode with full syncs (the folder and table made on first use),
        closed after use, which rolls back a transaction left open; errors become a StoreError."""
        connection = None
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            connection = sqlite3.connect(self.directory / JUDGMENTS_FILE, timeout=BUSY_TIMEOUT_SECONDS,
                                         isolation_level=None)
            use_write_ahead_log(connection)
            connection.execute("PRAGMA synchronous=FULL")
            connection.executescript(SCHEMA)
            yield connection
        except OSError as error:
            raise StoreError(f"The judgments cannot be read or written ({error.strerror or error}); nothing was saved "
                             "half-way. The server's administrator can free space or allow writing in the store's "
                             f"folder (chosen by {STORE_VARIABLE}).") from None
        except sqlite3.Error as error:
            raise _failure(error) from None
        finally:
            if connection is not None:
                connection.close()


def graded_pairs(judgments: Iterable[Judgment]) -> dict[tuple[str, str], int]:
    """Each judged pair's grade over the judges: each judge's grades of the pair averaged, then the judges'
    averages, rounded half up (exact fractions); skipped judgments left out, and a pair only skipped with them.

    >>> graded_pairs([Judgment("a", "q", "d", 1, 0, 1), Judgment("a", "q", "d", 2, 0, 2),
    ...               Judgment("b", "q", "d", 1, 0, 1), Judgment("b", "q", "e", None, 0, 2)])
    {('q', 'd'): 1}
    """
    by_judge: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for judgment in judgments:
        if judgment.grade is not None:
            by_judge[(judgment.case, judgment.candidate)][judgment.judge].append(judgment.grade)
    graded = {}
    for pair, grades in by_judge.items():
        mean = sum(Fraction(sum(given), len(given)) for given in grades.values()) / len(grades)
        graded[pair] = int(mean + Fraction(1, 2))  # floor(mean + 1/2) of a mean from 0 to 2: half up
    return graded


def checked_judge_name(name: object) -> str:
    """``name`` without surrounding spaces where it then is a judge's name as the judgments' reader reads one
    (:func:`evalcore.readers.judgment_columns.judge_name`), else a :class:`~evalcore.errors.ParameterError` saying
    what one is.

    >>> checked_judge_name(" Ana ")
    'Ana'
    >>> checked_judge_name("<b>Ana</b>")
    Traceback (most recent call last):
    evalcore.errors.ParameterError: judge: expected a judge's name of 1 to 100 printable characters, ...
    """
    text = name.strip() if isinstance(name, str) else ""
    try:
        return judge_name(text, "judge", None)
    except InputError as error:
        raise ParameterError(str(error)) from None


def judge_name_problem(name: object) -> str | None:
    """What is wrong with ``name`` as a judge's name (:func:`checked_judge_name`'s message), or None where it is one.

    >>> judge_name_problem("Dr Ana Silva"), judge_name_problem("a\u202eb") is not None
    (None, True)
    """
    try:
        checked_judge_name(name)
    except ParameterError as error:
        return str(error)
    return None


def time_text(time_ms: int) -> str:
    """A time in milliseconds since the epoch as :func:`judgments_csv` writes it: ISO 8601 in UTC.

    >>> time_text(1767323045678)
    '2026-01-02T03:04:05.678Z'
    """
    seconds, fraction = divmod(int(time_ms), 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{fraction:03d}Z"


def judgments_qrels(judgments: Iterable[Judgment]) -> str:
    """TREC graded qrels ``case 0 candidate grade``, one line a judged pair (:func:`graded_pairs`), sorted."""
    return "".join(f"{case} 0 {candidate} {grade}\n" for (case, candidate), grade in sorted(graded_pairs(judgments).items()))


def judgments_csv(judgments: Iterable[Judgment]) -> str:
    """Every judgment as CSV ``judge,case,candidate,grade,time`` (a skipped pair's grade ``skipped``, the time in UTC
    to the millisecond, :func:`time_text`), in the order given; read back by
    :func:`evalcore.readers.judgment_columns.read_judgment_columns`. Written verbatim, as data for that reader and the
    ``agreement`` command: a judge's name holds none of the characters HTML gives a meaning to, and IDs are the
    collection's."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow((*HEADER, "time"))
    for j in judgments:
        writer.writerow((j.judge, j.case, j.candidate, SKIPPED_GRADE if j.grade is None else j.grade,
                         time_text(j.time_ms)))
    return out.getvalue()


def _rows_of(judged: Judgments) -> list[tuple[int, str, str, str, int, int | None]]:
    """``(line, judge, case, candidate, grade, time in ms or None)`` per grading of ``judged``, in file order."""
    times = [None if np.isnan(seconds) else round(seconds * 1000) for seconds in judged.time.tolist()]
    return [(line, judged.judges[judge], judged.images[case], judged.images[candidate],
             None if grade == SKIPPED else grade, time_ms)
            for line, judge, case, candidate, grade, time_ms in zip(
                judged.lines.tolist(), judged.judge.tolist(), judged.case.tolist(), judged.candidate.tolist(),
                judged.grade.tolist(), times)]


def _check_known(rows: list[tuple], known: Container[str], source: str) -> None:
    """Refuse the first grading (by line) with an ID of another collection, naming its line."""
    for line, _, case, candidate, _, _ in sorted(rows):
        for what, image in (("case", case), ("candidate", candidate)):
            if image not in known:
                raise InputError(source, line, f"a {what} image of the loaded collection (nothing was imported)",
                                 quoted_id(image))


def _judgment(row: tuple) -> Judgment:
    """A stored row as a judgment, or the one StoreError of a row damaged in place."""
    judge, case, candidate, grade, time_ms, sequence = row
    if not (all(isinstance(text, str) for text in (judge, case, candidate)) and (grade is None or grade in GRADES)
            and isinstance(time_ms, int) and isinstance(sequence, int)):
        raise StoreError("A judgment in the store is damaged; the server's administrator can export the others and "
                         "move the judgments' file away.")
    return Judgment(judge, case, candidate, grade, time_ms, sequence)


def _checked_collection(collection: object) -> str:
    if not isinstance(collection, str) or not COLLECTION_PATTERN.fullmatch(collection):
        raise ParameterError(f"collection: expected a content digest (hexadecimal), found {str(collection)[:80]!r}")
    return collection


def _checked_image(image: object, what: str) -> str:
    if not isinstance(image, str) or not 0 < len(image) <= MAX_ID_CHARS or any(c.isspace() for c in image):
        raise ParameterError(f"{what}: expected an image ID without spaces (1-300 characters), found "
                             f"{str(image)[:80]!r}")
    return image


def _failure(error: sqlite3.Error) -> StoreError:
    """The file's error in words that name the file but not its path."""
    code = getattr(error, "sqlite_errorname", "")
    if code.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")):
        return StoreError(f"The judgments' file {JUDGMENTS_FILE} is damaged ({error}), so no judgment can be read or "
                          "saved; the server's administrator can move it away to start anew.")
    if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StoreError(f"The judgments stayed busy with another save for {BUSY_TIMEOUT_SECONDS} seconds; try again "
                          "in a minute.")
    return StoreError(f"The judgments' file {JUDGMENTS_FILE} cannot be read or written ({error}); nothing was saved "
                      "half-way. The server's administrator can free space or allow writing in the store's folder "
                      f"(chosen by {STORE_VARIABLE}).")
