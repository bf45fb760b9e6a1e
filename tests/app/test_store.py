"""Saved workspaces (evalcore/app/store.py): round trips, one blob per content, limits, expiry, IDs, two writers at
once, saves killed part-way, and stores that cannot be written or whose index is damaged."""

from __future__ import annotations

import errno
import multiprocessing
import os
import random
import signal
import sqlite3
import time
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path

import pytest

from evalcore.app.store import (
    BLOB_FOLDER,
    ID_RANDOM_BYTES,
    INDEX_FILE,
    TEMPORARY_SUFFIX,
    SavedInput,
    WorkspaceStore,
    store_from_environment,
)
from evalcore.errors import ParameterError, StoreError
from tests.killed_at_a_step import counted_steps, killed_at

DAY = 86400


def steps(tag: str = "a") -> list[SavedInput]:
    """A workspace's load steps, one of them repeated, one empty."""
    concepts = f"ID,CUIs\nimg1,C0000001;{tag}\n".encode()
    return [SavedInput("concepts", "concepts.csv", concepts), SavedInput("run", "one.trec", b"q Q0 d 1 0.5 x\n"),
            SavedInput("run", "copy.trec", b"q Q0 d 1 0.5 x\n"), SavedInput("labels", "labels.csv", b"")]


def blob_names(folder: Path) -> list[str]:
    return sorted(path.name for path in (folder / BLOB_FOLDER).iterdir())


def assert_names_no_path(error: pytest.ExceptionInfo[StoreError], folder: Path) -> None:
    assert str(folder) not in str(error.value) and "/" not in str(error.value), str(error.value)


def test_a_saved_workspace_opens_as_saved(tmp_path):
    store = WorkspaceStore(tmp_path / "store", clock=lambda: 1_000_000.0)
    saved = store.save(steps(), {"alpha": "0.7", "measure": "dice"})
    opened = store.open(saved)
    assert opened.workspace_id == saved and list(opened.inputs) == steps()
    assert opened.settings == {"alpha": "0.7", "measure": "dice"}
    assert (opened.created, opened.expires) == (1_000_000.0, 1_000_000.0 + 30 * DAY)
    assert store.open(saved) == opened


def test_identical_bytes_are_stored_once(tmp_path):
    store = WorkspaceStore(tmp_path)
    first, second = store.save(steps()), store.save(steps())
    assert len(blob_names(tmp_path)) == 3  # concepts, the run twice, the empty labels
    store.forget(first)
    assert len(blob_names(tmp_path)) == 3 and list(store.open(second).inputs) == steps()
    store.save(steps("other"))
    store.forget(second)
    assert len(blob_names(tmp_path)) == 3  # the other workspace's: its concepts, and the run and labels it shares
    with pytest.raises(StoreError, match="No saved workspace"):
        store.open(first)


def test_forgetting_the_last_workspace_empties_the_blobs(tmp_path):
    store = WorkspaceStore(tmp_path)
    for saved in [store.save(steps()), store.save(steps())]:
        store.forget(saved)
    assert blob_names(tmp_path) == []
    with pytest.raises(StoreError, match="No saved workspace"):
        store.forget(saved)


def test_limits_are_refused_in_words(tmp_path):
    store = WorkspaceStore(tmp_path, max_workspace_bytes=2048, max_store_bytes=3000)
    with pytest.raises(StoreError, match=r"These inputs hold 2.1 KiB, more than the 2 KiB a saved workspace may hold"):
        store.save([SavedInput("images", "images.zip", bytes(2049))])
    store.save([SavedInput("images", "images.zip", bytes(2048))])
    store.save([SavedInput("images", "again.zip", bytes(2048))])  # the same bytes take no more room
    with pytest.raises(StoreError, match=r"holds 2 KiB of its 3 KiB, too little room for the 1.1 KiB") as error:
        store.save([SavedInput("images", "more.zip", b"x" * 1025)])
    assert_names_no_path(error, tmp_path)
    assert len(blob_names(tmp_path)) == 1
    for wrong in [{"max_workspace_bytes": 0}, {"max_store_bytes": 1.5}, {"expiry_days": -1}, {"expiry_days": True}]:
        with pytest.raises(ParameterError):
            WorkspaceStore(tmp_path, **wrong)


def test_inputs_and_settings_are_checked(tmp_path):
    store = WorkspaceStore(tmp_path)
    for wrong in [[SavedInput("Run", "a.trec", b"")], [SavedInput("run", "", b"")], [SavedInput("run", "a", "text")],
                  [("run", "a.trec", b"")], "run"]:
        with pytest.raises(ParameterError):
            store.save(wrong)
    with pytest.raises(ParameterError, match="settings"):
        store.save([], {"alpha": 0.5})
    assert store.open(store.save([SavedInput("embeddings", "e.npy", bytearray(b"\x00\x01"))])).inputs[0].data == b"\x00\x01"


def test_a_workspace_expires_by_the_stores_clock(tmp_path):
    now = [5_000_000.0]
    store = WorkspaceStore(tmp_path, expiry_days=2, clock=lambda: now[0])
    saved = store.save(steps())
    now[0] += 2 * DAY - 1
    assert store.open(saved).expires == 5_000_000.0 + 2 * DAY
    now[0] += 1
    with pytest.raises(StoreError, match=r"expired on 1970-03-0\d \d\d:\d\d UTC \(a saved workspace is kept 2 days\)"):
        store.open(saved)
    with pytest.raises(StoreError, match="it expired"):
        store.open(saved)
    assert blob_names(tmp_path) == []
    kept = store.save(steps())
    now[0] += 3 * DAY
    store.expire()
    assert blob_names(tmp_path) == []
    with pytest.raises(StoreError, match="No saved workspace"):
        store.open(kept)


def test_malformed_ids_are_refused_before_the_store_is_touched(tmp_path):
    folder = tmp_path / "not yet made"
    store = WorkspaceStore(folder)
    for wrong in ["", "short", "a" * 31, "a" * 33, "../../" + "a" * 26, "a" * 31 + "/", "a" * 31 + "\x00", 42, None]:
        for use in (store.open, store.forget):
            with pytest.raises(StoreError, match="not the ID of a saved workspace") as error:
                use(wrong)
            assert_names_no_path(error, folder)
    assert not folder.exists()
    with pytest.raises(StoreError, match="No saved workspace has this ID") as error:
        store.open("A" * 32)
    assert_names_no_path(error, folder)


def test_ids_are_long_random_and_distinct(tmp_path):
    store = WorkspaceStore(tmp_path)
    saved = [store.save([]) for _ in range(100)]
    assert ID_RANDOM_BYTES * 8 >= 128 and len(set(saved)) == 100
    assert all(len(one) == 32 for one in saved)
    assert len(set("".join(saved))) > 50  # the URL-safe alphabet, not a counter or a clock


def save_repeatedly(folder: str, writer: int, start: Barrier, results: Queue) -> None:
    """What one of two processes saves into one new store at once: the same inputs every other turn, else its own."""
    store = WorkspaceStore(folder)
    start.wait()
    results.put((writer, [store.save(steps("shared" if turn % 2 else f"writer {writer} turn {turn}") + LARGE)
                          for turn in range(WRITER_TURNS)]))


WRITER_TURNS = 12
LARGE = [SavedInput("images", "images.zip", bytes(range(256)) * 4096)]


@pytest.mark.subprocess
@pytest.mark.slow
def test_two_processes_saving_at_once_both_succeed(tmp_path):
    context = multiprocessing.get_context("spawn")
    start, results = context.Barrier(2), context.Queue()
    writers = [context.Process(target=save_repeatedly, args=(str(tmp_path / "new"), writer, start, results))
               for writer in range(2)]
    for process in writers:
        process.start()
    saved = dict(results.get(timeout=60) for _ in writers)
    for process in writers:
        process.join(timeout=60)
        assert process.exitcode == 0
    store = WorkspaceStore(tmp_path / "new")
    for writer, ids in saved.items():
        assert len(set(ids)) == WRITER_TURNS
        for turn, one in enumerate(ids):
            expected = steps("shared" if turn % 2 else f"writer {writer} turn {turn}") + LARGE
            assert list(store.open(one).inputs) == expected


#: A process saving large inputs into its store (tests/killed_at_a_step.py), new bytes each turn, and forgetting every
#: other workspace it saved: it prints each ID once its save returned, and each ID before it forgets it. It counts the
#: steps after its first save.
SAVING = """
from evalcore.app.store import SavedInput, WorkspaceStore
store = WorkspaceStore(sys.argv[1])
shared = bytes(range(256)) * 16384
for turn in range(1, 4):
    own = turn.to_bytes(4, "little") + os.getpid().to_bytes(4, "little") * 262144
    saved = store.save([SavedInput("images", "shared.zip", shared), SavedInput("embeddings", "own.npy", own)])
    print("saved", saved, flush=True)
    steps[0] = max(steps[0], 0)
    if turn % 2:
        print("forgetting", saved, flush=True)
        store.forget(saved)
"""
SHARED = bytes(range(256)) * 16384


@pytest.mark.subprocess
@pytest.mark.slow
def test_a_process_killed_at_any_step_leaves_the_store_consistent(tmp_path):
    """Killed at each step that changes the store, in turn, one process after another on one store (deterministic,
    where killing at random moments missed some steps in some runs)."""
    steps_on_a_new_store = counted_steps(killed_at(SAVING, tmp_path / "count", 0))
    assert steps_on_a_new_store >= 10  # the blobs' files, their renames, the folder's sync, commits
    saved: set[str] = set()
    forgetting: set[str] = set()
    kills = 0
    for kill_at in range(1, steps_on_a_new_store + 1):  # a store that holds the shared blob takes fewer steps
        done = killed_at(SAVING, tmp_path, kill_at)
        assert done.returncode in (0, -signal.SIGKILL), (kill_at, done.stderr)
        kills += done.returncode == -signal.SIGKILL
        for line in done.stdout.splitlines():
            what, workspace_id = line.split()
            (saved if what == "saved" else forgetting).add(workspace_id)
    assert kills >= 10 and saved - forgetting
    store = WorkspaceStore(tmp_path)
    for workspace_id in saved:  # each opens whole (open recomputes every blob's digest), or was forgotten
        try:
            opened = store.open(workspace_id)
        except StoreError as error:
            assert workspace_id in forgetting and "No saved workspace" in str(error)
            continue
        assert [(step.name, len(step.data)) for step in opened.inputs] == [("shared.zip", len(SHARED)),
                                                                           ("own.npy", 4 + 4 * 262144)]
    assert referred_blobs_are_in_place(tmp_path)
    minutes_ago = time.time() - 120  # what the killed processes left is now stale: the next save collects it
    for path in (tmp_path / BLOB_FOLDER).iterdir():
        os.utime(path, (minutes_ago, minutes_ago))
    again = store.save([SavedInput("images", "shared.zip", SHARED)])
    assert store.open(again).inputs[0].data == SHARED
    assert set(blob_names(tmp_path)) == referred_blobs_are_in_place(tmp_path)


def referred_blobs_are_in_place(folder: Path) -> set[str]:
    """The blobs the index refers to, each checked to be in place with its size."""
    index = sqlite3.connect(folder / INDEX_FILE)
    try:
        rows = index.execute("SELECT blob, size FROM inputs").fetchall()
    finally:
        index.close()
    for digest, size in rows:
        assert (folder / BLOB_FOLDER / digest).stat().st_size == size
    return {digest for digest, _ in rows}


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES, errno.EROFS])
def test_a_store_that_cannot_be_written_saves_nothing(tmp_path, monkeypatch, code):
    store = WorkspaceStore(tmp_path)
    kept = store.save(steps())

    def failing_sync(descriptor: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", failing_sync)
    with pytest.raises(StoreError, match=rf"cannot be read or written \({os.strerror(code)}\)") as error:
        store.save(steps("new"))
    assert_names_no_path(error, tmp_path)
    monkeypatch.undo()
    assert not [name for name in blob_names(tmp_path) if name.endswith(TEMPORARY_SUFFIX)]
    index = sqlite3.connect(tmp_path / INDEX_FILE)
    assert index.execute("SELECT id FROM workspaces").fetchall() == [(kept,)]
    index.close()
    assert list(store.open(kept).inputs) == steps()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a folder of mode 0o500")
def test_a_read_only_store_folder_is_refused_in_words(tmp_path):
    folder = tmp_path / "store"
    store = WorkspaceStore(folder)
    kept = store.save(steps())
    folder.chmod(0o500)
    (folder / BLOB_FOLDER).chmod(0o500)
    try:
        with pytest.raises(StoreError) as error:
            store.save(steps("new"))
        assert_names_no_path(error, tmp_path)
    finally:
        (folder / BLOB_FOLDER).chmod(0o700)
        folder.chmod(0o700)
    assert list(store.open(kept).inputs) == steps()


def test_a_damaged_index_is_named_without_its_path(tmp_path):
    store = WorkspaceStore(tmp_path)
    saved = store.save(steps())
    (tmp_path / INDEX_FILE).write_bytes(random.Random(7).randbytes(8192))
    for attempt in (lambda: store.open(saved), lambda: store.save(steps())):
        with pytest.raises(StoreError, match=f"The store's index file {INDEX_FILE} is damaged") as error:
            attempt()
        assert_names_no_path(error, tmp_path)


def test_a_damaged_blob_is_refused_on_open(tmp_path):
    store = WorkspaceStore(tmp_path)
    saved = store.save(steps())
    for name in blob_names(tmp_path):
        path = tmp_path / BLOB_FOLDER / name
        if path.stat().st_size:
            path.write_bytes(bytes(len(path.read_bytes())))
    with pytest.raises(StoreError, match="missing or damaged") as error:
        store.open(saved)
    assert_names_no_path(error, tmp_path)


def test_a_folder_or_link_put_among_the_blobs_blocks_nothing(tmp_path):
    """Was: a stale folder named like a blob or a temporary file made every open, save and expiry fail ("Is a
    directory"): the clean-up unlinked it (hunt 27)."""
    store = WorkspaceStore(tmp_path / "store")
    saved = store.save(steps())
    stale = time.time() - 3600
    for name in ("a" * 64, "copy.part"):
        (store.blobs / name).mkdir()
        os.utime(store.blobs / name, (stale, stale))
    (store.blobs / ("b" * 64)).symlink_to(tmp_path / "elsewhere")
    os.utime(store.blobs / ("b" * 64), (stale, stale), follow_symlinks=False)
    assert store.open(saved).inputs == tuple(steps())
    store.save(steps("b"))
    store.expire()
    assert {"a" * 64, "copy.part", "b" * 64} <= {path.name for path in store.blobs.iterdir()}


@pytest.mark.parametrize("column, value", [("settings", "{oops"), ("settings", '["a"]'), ("settings", '{"a": 1}'),
                                           ("expires", "soon"), ("created", b"\x00"), ("expires", 1e300)])
def test_a_record_damaged_in_place_is_one_store_error(tmp_path, column, value):
    """Was a JSONDecodeError or a TypeError (a text compared with the clock) the dashboard does not catch."""
    store = WorkspaceStore(tmp_path / "store")
    saved = store.save(steps(), {"alpha": "0.5"})
    with sqlite3.connect(tmp_path / "store" / "index.sqlite3") as index:
        index.execute(f"UPDATE workspaces SET {column} = ?", (value,))
    for read in (store.open, store.summary):
        with pytest.raises(StoreError, match="record in the store is damaged; load its inputs again and save them"):
            read(saved)


def test_an_expiry_a_clock_cannot_show_and_a_size_below_a_byte_are_refused_naming_the_variable(tmp_path):
    """Was accepted: 1e300 days overflowed the date of every save; 1e-9 MiB was refused naming max_store_bytes."""
    with pytest.raises(ParameterError, match="CBIR_LENS_STORE_EXPIRY_DAYS: expected a positive number of days, at "
                                             "most 36,525, found '1e300'"):
        store_from_environment({"CBIR_LENS_STORE": str(tmp_path), "CBIR_LENS_STORE_EXPIRY_DAYS": "1e300"})
    with pytest.raises(ParameterError, match="CBIR_LENS_STORE_MAX_MIB: expected a number of MiB"):
        store_from_environment({"CBIR_LENS_STORE": str(tmp_path), "CBIR_LENS_STORE_MAX_MIB": "1e-9"})
    with pytest.raises(ParameterError, match="expiry_days: expected a positive number of days, at most 36,525"):
        WorkspaceStore(tmp_path, expiry_days=1e300)
    store = store_from_environment({"CBIR_LENS_STORE": str(tmp_path / "s"), "CBIR_LENS_STORE_EXPIRY_DAYS": "36525"})
    assert store.open(store.save(steps())).expires > time.time() + 36_000 * 86_400


def test_a_file_name_that_is_no_text_is_refused_before_anything_is_written(tmp_path):
    """Was a UnicodeEncodeError from SQLite: a lone surrogate, as os.fsdecode makes of a byte that is no UTF-8."""
    store = WorkspaceStore(tmp_path / "store")
    with pytest.raises(ParameterError, match="expected a file name of 1 to 1024 characters of text"):
        store.save([SavedInput("run", chr(0xDCE9) + ".trec", b"x")])
    assert not (tmp_path / "store").exists() or not any(store.blobs.iterdir())


@pytest.mark.parametrize("options", [b"{not json", b"[]", b"\xff", b'{"abbreviations": "yes"}'])
def test_a_damaged_extraction_step_is_one_store_error(options):
    from evalcore.app.saved import replay

    with pytest.raises(StoreError, match="extraction step is damaged"):
        replay([SavedInput("captions", "c.csv", b"ID,Caption\na,CT\n"), SavedInput("extraction", "options", options)])


@pytest.mark.parametrize("hostile", ["../../victim", "ABSOLUTE"])
@pytest.mark.parametrize("path", ["forget", "expire", "prepared", "open"])
def test_a_blob_name_of_the_index_never_reaches_a_file_outside_the_store(tmp_path, hostile, path):
    """Was a file deleted outside the store (issue 67): forget, expire and prepared deleted the file an index row named
    ("../../file", an absolute path), trusting it as a blob's name. Every path now checks the name against the blob
    pattern: the file is left, and a row naming it reads as a missing blob."""
    victim = tmp_path / "victim"
    hostile = str(victim) if hostile == "ABSOLUTE" else hostile
    clock = [1_000_000.0]
    store = WorkspaceStore(tmp_path / "store", clock=lambda: clock[0])
    saved = store.save(steps())
    assert store.keep_prepared(saved, "ranking", b"prepared")
    with sqlite3.connect(tmp_path / "store" / INDEX_FILE) as index:
        if path != "prepared":  # (a row of the inputs naming the file would keep it from being collected)
            index.execute("UPDATE inputs SET blob = ?", (hostile,))
        index.execute("UPDATE prepared SET blob = ?", (hostile,))
    victim.write_bytes(b"not the store's")
    if path == "forget":
        store.forget(saved)
    elif path == "expire":
        clock[0] += 31 * DAY
        store.expire()
    elif path == "prepared":
        assert store.prepared(saved) == {}  # the damaged row dropped
    else:
        with pytest.raises(StoreError, match="missing or damaged"):
            store.open(saved)
    assert victim.read_bytes() == b"not the store's"
