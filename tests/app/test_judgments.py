"""Lasting judgments (evalcore.app.judgments): recorded, undone and read per judge; names checked; exported as CSV and
graded qrels and imported again (through the judgments' one reader), atomically, hostile files refused naming the file
and line; two processes saving at once, and a process killed at any step, leave every judge's sequence whole."""

from __future__ import annotations

import multiprocessing
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from evalcore.app.judgments import (
    JUDGMENTS_FILE,
    Judgment,
    JudgmentStore,
    checked_judge_name,
    graded_pairs,
    judge_name_problem,
    judgments_csv,
    judgments_qrels,
)
from evalcore.errors import CBIRLensError, InputError, ParameterError, StoreError
from evalcore.readers.judgment_columns import read_judgment_columns
from tests.conftest import ROOT

COLLECTION = "0123456789abcdef" * 4
OTHER = "fedcba9876543210" * 4
KNOWN = {f"img{i}" for i in range(10)}


def ticking(start: float = 1_767_323_045.0):
    """A clock that moves a second at each reading."""
    now = [start]

    def clock() -> float:
        now[0] += 1.0
        return now[0]

    return clock


def test_judgments_are_recorded_in_each_judges_sequence_and_undone_last_first(tmp_path):
    store = JudgmentStore(tmp_path / "store", clock=ticking())
    assert store.judgments(COLLECTION) == () and store.judges(COLLECTION) == ()
    first = store.record(COLLECTION, "Ana", "img1", "img2", 2)
    store.record(COLLECTION, "Ben", "img1", "img2", 0)
    store.record(COLLECTION, "Ana", "img1", "img3", None)
    store.record(OTHER, "Ana", "img1", "img3", 1)
    assert first == Judgment("Ana", "img1", "img2", 2, 1_767_323_046_000, 1)
    assert [(j.judge, j.sequence, j.candidate, j.grade) for j in store.judgments(COLLECTION)] == [
        ("Ana", 1, "img2", 2), ("Ana", 2, "img3", None), ("Ben", 1, "img2", 0)]
    assert store.judges(COLLECTION) == ("Ana", "Ben") and len(store.judgments(OTHER, "Ana")) == 1
    assert store.undo(COLLECTION, "Ana", sequence=1) is None  # not the last any more: nothing undone
    assert store.undo(COLLECTION, "Ana").candidate == "img3"
    assert store.undo(COLLECTION, "Ana").candidate == "img2"
    assert store.undo(COLLECTION, "Ana") is None
    assert [j.judge for j in store.judgments(COLLECTION)] == ["Ben"]
    assert store.record(COLLECTION, "Ana", "img4", "img5", 1).sequence == 1


@pytest.mark.parametrize("name", ["", "   ", "<script>alert(1)</script>", "Ana\nBen", "a\u202eb", "a\x1bb", "x" * 101,
                                  'say "hi"', "O'Neil", "a\u200bb"])
def test_a_name_that_is_no_judges_name_is_refused_before_the_store_is_touched(tmp_path, name):
    assert judge_name_problem(name) is not None
    with pytest.raises(ParameterError, match="judge: expected a judge's name"):
        JudgmentStore(tmp_path / "store").record(COLLECTION, name, "img1", "img2", 1)
    assert not (tmp_path / "store").exists()


def test_a_name_is_kept_without_its_surrounding_spaces():
    assert checked_judge_name("  Dr Ana Silva ") == "Dr Ana Silva" and judge_name_problem("Ana-Maria (R2)") is None


@pytest.mark.parametrize("arguments", [(COLLECTION, "Ana", "img1", "img2", 3), (COLLECTION, "Ana", "img1", "img2", True),
                                       (COLLECTION, "Ana", "img 1", "img2", 1), ("../index", "Ana", "img1", "img2", 1),
                                       (COLLECTION, "Ana", "", "img2", 1)])
def test_a_grade_id_or_collection_out_of_shape_is_refused(tmp_path, arguments):
    with pytest.raises(ParameterError):
        JudgmentStore(tmp_path).record(*arguments)


def test_the_qrels_grade_is_the_mean_over_judges_rounded_half_up_each_judge_counted_once():
    judged = [Judgment("a", "q", "d", 1, 0, 1), Judgment("a", "q", "d", 2, 0, 2),  # a: 1.5
              Judgment("b", "q", "d", 1, 0, 1),  # b: 1 -> mean 1.25 -> 1
              Judgment("a", "q", "e", 1, 0, 3), Judgment("b", "q", "e", 2, 0, 2),  # 1.5 -> 2 (half up)
              Judgment("a", "q", "f", 0, 0, 4), Judgment("b", "q", "f", 1, 0, 3),  # 0.5 -> 1
              Judgment("a", "q", "g", None, 0, 5)]  # skipped only: no line
    assert graded_pairs(judged) == {("q", "d"): 1, ("q", "e"): 2, ("q", "f"): 1}
    assert judgments_qrels(judged) == "q 0 d 1\nq 0 e 2\nq 0 f 1\n"


def test_the_csv_export_imports_again_as_the_same_judgments(tmp_path):
    store = JudgmentStore(tmp_path, clock=ticking())
    store.record(COLLECTION, "Ana", "img1", "img2", 2)
    store.record(COLLECTION, "Ana", "img1", "img2", 1)  # a repeated pair, at its own time
    store.record(COLLECTION, "Ben, MD", "img3", "img4", None)
    store.record(COLLECTION, "Ben, MD", "img3", "img5", 0)
    written = judgments_csv(store.judgments(COLLECTION))
    assert written.splitlines()[0] == "judge,case,candidate,grade,time"
    assert '"Ben, MD",img3,img4,skipped,2026-01-02T03:04:08.000Z' in written
    assert store.add(OTHER, read_judgment_columns(written.encode(), "judgments.csv"), KNOWN) == 4
    assert judgments_csv(store.judgments(OTHER)) == written
    with pytest.raises(InputError, match=r"judgments\.csv, line 2: expected a grading not yet recorded"):
        store.add(OTHER, read_judgment_columns(written.encode(), "judgments.csv"), KNOWN)
    assert len(store.judgments(OTHER)) == 4  # the refused import added nothing


def test_the_qrels_export_imports_again_as_the_judge_qrels(tmp_path):
    store = JudgmentStore(tmp_path, clock=ticking())
    for judge, grade in (("Ana", 2), ("Ben", 1), ("Ana", 0)):
        store.record(COLLECTION, judge, "img1", "img2" if grade else "img3", grade)
    qrels = judgments_qrels(store.judgments(COLLECTION))
    assert qrels == "img1 0 img2 2\nimg1 0 img3 0\n"
    assert store.add(OTHER, read_judgment_columns(qrels.encode(), "panel.qrels"), KNOWN) == 2
    assert [(j.judge, j.case, j.candidate, j.grade) for j in store.judgments(OTHER)] == [
        ("qrels", "img1", "img2", 2), ("qrels", "img1", "img3", 0)]
    assert judgments_qrels(store.judgments(OTHER)) == qrels


HOSTILE = [
    (b"judge,case,candidate,grade\nAna,img1,img2,2\nAna,img1,nowhere,1\n", r"j\.csv, line 3: expected a candidate image "
                                                                            r"of the loaded collection"),
    (b"judge,case,candidate,grade\nAna,img1,img2,3\n", r"j\.csv, line 2: expected a grade 0"),
    (b"judge,case,candidate,grade\nAna,img1,img2,1\nAna,img1,img2,2\n", r"j\.csv, line 3: expected each grading once"),
    (b"judge,case,candidate,grade\n<b>x</b>,img1,img2,1\n", r"j\.csv, line 2: expected a judge's name"),
    (b"judge,case,candidate,grade\nAna,img1,img1,1\n", r"j\.csv, line 2: expected a candidate image other than the case"),
    (b"judge,case,candidate\nAna,img1,img2\n", r"j\.csv, line 1: expected a header"),
    (b"judge,case,candidate,grade,time\nAna,img1,img2,1,yesterday\n", r"j\.csv, line 2: expected a time"),
    (b"", r"j\.csv: expected .* found an empty file"),
    (b"img1 0 img2 1\nghost 0 img2 2\n", r"j\.csv, line 2: expected a case image of the loaded collection"),
    (b"img1 0 img2 1\nimg1 0 img3 7\n", r"j\.csv, line 2: expected a grade 0"),
    (b"img1 0 img2 1\nimg1 0 img2 2\n", r"j\.csv, line 2: expected each \(query, document\) pair judged once"),
]


@pytest.mark.parametrize("data, message", HOSTILE)
def test_a_hostile_import_is_refused_naming_the_file_and_line_and_adds_nothing(tmp_path, data, message):
    store = JudgmentStore(tmp_path)
    store.record(COLLECTION, "Ana", "img8", "img9", 1)
    with pytest.raises(CBIRLensError, match=message):
        store.add(COLLECTION, read_judgment_columns(data, "j.csv"), KNOWN)
    assert len(store.judgments(COLLECTION)) == 1


def test_a_damaged_judgments_file_is_one_store_error_naming_no_path(tmp_path):
    (tmp_path / JUDGMENTS_FILE).write_bytes(b"this is no database" * 100)
    with pytest.raises(StoreError, match=f"The judgments' file {JUDGMENTS_FILE} is damaged") as caught:
        JudgmentStore(tmp_path).judgments(COLLECTION)
    assert str(tmp_path) not in str(caught.value)


# --- two processes, and a process killed at any step -------------------------------------------------------------

TURNS = 40


def record_repeatedly(folder: str, judge: str, start, results) -> None:
    """A judge recording TURNS judgments (undoing every fifth) once both processes are ready."""
    store = JudgmentStore(folder)
    start.wait()
    for turn in range(TURNS):
        store.record(COLLECTION, judge, f"img{turn % 10}", f"img{(turn + 1) % 10}", turn % 3)
        if turn % 5 == 4:
            store.undo(COLLECTION, judge)
    results.put(judge)


@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.parametrize("judges", [("Ana", "Ben"), ("Ana", "Ana")], ids=["two judges", "one judge in two tabs"])
def test_two_processes_saving_at_once_both_save_and_sequences_stay_whole(tmp_path, judges):
    context = multiprocessing.get_context("spawn")
    start, results = context.Barrier(2), context.Queue()
    writers = [context.Process(target=record_repeatedly, args=(str(tmp_path), judge, start, results))
               for judge in judges]
    for process in writers:
        process.start()
    assert sorted(results.get(timeout=120) for _ in writers) == sorted(judges)
    for process in writers:
        process.join(timeout=60)
        assert process.exitcode == 0
    store = JudgmentStore(tmp_path)
    kept = TURNS - TURNS // 5
    for judge in set(judges):
        sequences = [j.sequence for j in store.judgments(COLLECTION, judge)]
        assert sequences == list(range(1, kept * judges.count(judge) + 1))


#: A process recording judgments into the store of its first argument and importing a file of three, printing each
#: judgment's sequence once its save returned; it counts the steps that change the file (each statement the store
#: runs) and kills itself at the step its second argument names; with 0 it prints the count instead.
RECORDING_UNTIL_KILLED = """
import os, signal, sqlite3, sys
from evalcore.app import judgments as module
from evalcore.app.judgments import JudgmentStore
from evalcore.readers.judgment_columns import read_judgment_columns
kill_at, steps = int(sys.argv[2]), [0]
class Index(sqlite3.Connection):
    def execute(self, sql, *args):
        if sql.startswith(("INSERT", "DELETE", "COMMIT")):
            steps[0] += 1
            if steps[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
        return super().execute(sql, *args)
connect = sqlite3.connect
module.sqlite3.connect = lambda *args, **kwargs: connect(*args, factory=Index, **kwargs)
store = JudgmentStore(sys.argv[1])
collection = "0123456789abcdef" * 4
for turn in range(3):
    print("recorded", store.record(collection, "Ana", "img1", f"img{turn + 2}", turn % 3).sequence, flush=True)
print("undone", store.undo(collection, "Ana").sequence, flush=True)
imported = read_judgment_columns(b"judge,case,candidate,grade\\nBen,img1,img2,1\\nBen,img1,img3,2\\nBen,img1,img4,0\\n",
                                 "ben.csv")
print("imported", store.add(collection, imported), flush=True)
if kill_at == 0:
    print("steps", steps[0], flush=True)
"""


def recording_until_killed(folder: Path, kill_at: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RECORDING_UNTIL_KILLED, str(folder), str(kill_at)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.subprocess
@pytest.mark.slow
def test_a_process_killed_at_any_step_leaves_every_judgment_whole_or_absent(tmp_path):
    counted = recording_until_killed(tmp_path / "count", 0)
    assert counted.returncode == 0, counted.stderr
    steps = int(counted.stdout.splitlines()[-1].split()[1])
    assert steps >= 12, counted.stdout  # 3 records, an undo, an import of 3: each its statements and commit
    for kill_at in range(1, steps + 1):
        folder = tmp_path / f"killed-{kill_at}"
        done = recording_until_killed(folder, kill_at)
        assert done.returncode == -signal.SIGKILL, (kill_at, done.stderr)
        said = [line.split() for line in done.stdout.splitlines()]
        store = JudgmentStore(folder)
        ana = [j.sequence for j in store.judgments(COLLECTION, "Ana")]
        ben = store.judgments(COLLECTION, "Ben")
        recorded = [int(n) for what, n in said if what == "recorded"]
        undone = [int(n) for what, n in said if what == "undone"]
        assert ana == list(range(1, len(ana) + 1)), (kill_at, ana)  # no gap, no half-written row
        assert len(ana) >= len(recorded) - len(undone) and len(ana) <= len(recorded) + 1 - len(undone)
        assert len(ben) in (0, 3), (kill_at, ben)  # an import: all or none
        with sqlite3.connect(folder / JUDGMENTS_FILE) as index:
            assert index.execute("PRAGMA integrity_check").fetchone() == ("ok",)
