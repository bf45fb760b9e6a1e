"""Results kept with a saved workspace (issue 65): the pool rankings, ideal summaries and baselines' runs read back
are exactly what a computation gives; a damaged, truncated or hostile one is left out and the workspace opens all the
same; the store's bounds hold, a process killed while keeping one leaves the store consistent, and forgetting or
expiry removes them; a link opened on a fresh server finds them and shows the original session's numbers."""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from evalcore.app.baselines import CAPTIONS, EMBEDDINGS, IOU, NN_IOU
from evalcore.app.saved import PreparedResults, prepared_blobs, read_prepared
from evalcore.app.store import BLOB_FOLDER, INDEX_FILE, SavedInput, WorkspaceStore
from evalcore.app.workspace import load_demo
from evalcore.engine import PoolSummary
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.relevance.measures import measure_spec
from tests.conftest import ROOT, frame_with, open_page
from tests.killed_at_a_step import counted_steps, killed_at

DAY = 86400
SETTING = measure_spec("nn-iou", alpha=0.5, n=1)


@pytest.fixture(scope="module")
def demo():
    return load_demo()


def evaluator_of(ws) -> Evaluator:
    from dataclasses import replace

    from evalcore.relevance.kg import KnowledgeGraph

    kg = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
    return Evaluator(ws.concepts, replace(kg, names={**kg.names, **ws.names}), "undirected", ws.resolved_labels())


@pytest.fixture(scope="module")
def computed(demo):
    """An evaluator that ranked the pool by nn-IoU and IoU (their summaries on the way), the captions' and the
    embeddings' runs, and the results as the dashboard keeps them."""
    evaluator = evaluator_of(demo)
    for baseline in (NN_IOU, IOU):
        baseline.aligned_ranking(evaluator, SETTING, 10)
    evaluator.pool_summary(SETTING, 5, 0.5)
    runs = {b.key: b.run(demo, None, None) for b in (CAPTIONS, EMBEDDINGS)}
    results = PreparedResults({"undirected": evaluator.kept_rankings()}, {"undirected": evaluator.kept_summaries()},
                              runs)
    return evaluator, results


def stored_and_read(store: WorkspaceStore, workspace_id: str, results: PreparedResults, ws) -> PreparedResults:
    for name, data in prepared_blobs(results, ws.concepts, ws.digest).items():
        assert store.keep_prepared(workspace_id, name, data)
    return read_prepared(store.prepared(workspace_id), ws.concepts, ws.digest)


@pytest.mark.slow
def test_results_read_back_are_exactly_the_computed_ones(tmp_path, demo, computed):
    evaluator, results = computed
    store = WorkspaceStore(tmp_path)
    read = stored_and_read(store, store.save(demo.recipe), results, demo)
    assert set(read.rankings["undirected"]) == set(results.rankings["undirected"])
    assert set(read.summaries["undirected"]) == set(results.summaries["undirected"])
    seeded = evaluator_of(demo)
    for key, documents in read.rankings["undirected"].items():
        seeded.keep_ranking(key, documents)
    for key, summary in read.summaries["undirected"].items():
        seeded.keep_summary(key, summary)
    for baseline in (NN_IOU, IOU):
        again, first = (baseline.aligned_ranking(e, SETTING, 10) for e in (seeded, evaluator))
        assert again.documents.dtype == first.documents.dtype and np.array_equal(again.documents, first.documents)
        assert np.array_equal(again.query_rows, first.query_rows) and again.counts == first.counts
        assert again.name == first.name
    for key in results.summaries["undirected"]:
        mine, theirs = seeded.kept_summaries()[key], evaluator.kept_summaries()[key]
        for part in ("ideal", "relevant_counts", "pool_sizes"):
            assert getattr(mine, part).dtype == getattr(theirs, part).dtype
            assert np.array_equal(getattr(mine, part), getattr(theirs, part))
    for key, run in results.runs.items():
        again = read.runs[key]
        assert (again.name, again.source) == (run.name, run.source)
        assert np.array_equal(again.rankings.documents, run.rankings.documents)
        assert np.array_equal(again.rankings.offsets, run.rankings.offsets)
        assert np.array_equal(again.scores.values, run.scores.values)
        assert dict(again.rankings) == dict(run.rankings)
    metrics = ["nn-CUI@10", "CUI@10", "nn-MAP@10", "P@5[modality]"]
    systems = [NN_IOU.aligned_ranking(seeded, SETTING, 10), read.runs["captions"]]
    originals = [NN_IOU.aligned_ranking(evaluator, SETTING, 10), results.runs["captions"]]
    assert seeded.evaluate(systems, metrics).per_query_frame().equals(
        evaluator.evaluate(originals, metrics).per_query_frame())


def test_results_of_other_data_are_not_read(tmp_path, demo, computed):
    store = WorkspaceStore(tmp_path)
    workspace_id = store.save(demo.recipe)
    for name, data in prepared_blobs(computed[1], demo.concepts, "the folder's files before they changed").items():
        store.keep_prepared(workspace_id, name, data)
    read = read_prepared(store.prepared(workspace_id), demo.concepts, demo.digest)
    assert read == PreparedResults()


def npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def lying_header(shape: tuple[int, ...]) -> bytes:
    """An .npz whose one array's header claims ``shape`` over 16 bytes of data."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": "<i8", "fortran_order": False, "shape": shape})
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as writing:
        writing.writestr("documents.npy", buffer.getvalue() + b"\0" * 16)
    return archive.getvalue()


def hostile_blobs(demo, computed) -> dict[str, bytes]:
    """Names and bytes that are not what prepared_blobs writes, one per way a file can be wrong."""
    good = prepared_blobs(computed[1], demo.concepts, demo.digest)
    ranking = next(name for name in good if name.startswith('["ranking"'))
    run = next(name for name in good if name.startswith('["run"'))
    pickled = io.BytesIO()
    np.savez(pickled, documents=np.array([object()], dtype=object))
    size = len(demo.concepts)
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as writing:
        writing.writestr("documents.npy", b"\0" * (1 << 26))  # 64 MiB of zeros in about 64 KiB
    renamed = json.loads(ranking)
    renamed[0] = "program"

    def as_ranking(variant: str) -> str:
        described = json.loads(ranking)
        described[-1] = {"truncated": 0.25, "pickle": 0.125, "bomb": 0.375, "fortran": 0.625, "shape": 0.75,
                         "lies": 0.875, "range": 0.0625, "not a zip": 0.3, "text": 0.4}[variant]
        return json.dumps(described)

    return {
        as_ranking("truncated"): good[ranking][: len(good[ranking]) // 2],
        as_ranking("not a zip"): b"#!/bin/sh\nrm -rf /\n",
        as_ranking("pickle"): pickled.getvalue(),
        as_ranking("bomb"): bomb.getvalue(),
        as_ranking("fortran"): npz(documents=np.asfortranarray(np.zeros((size, 3), dtype=np.int64))),
        as_ranking("shape"): npz(documents=np.zeros((size + 1, 3), dtype=np.int64)),
        as_ranking("lies"): lying_header((1 << 40, 1 << 20)),
        as_ranking("range"): npz(documents=np.full((size, 3), size + 5, dtype=np.int64)),
        as_ranking("text"): npz(documents=np.array(["a", "b"])),
        json.dumps(renamed): good[ranking],
        "not json": good[ranking],
        run: npz(documents=np.array([size]), offsets=np.arange(size + 1) * 0, scores=np.zeros(1),
                 name=np.zeros(1, dtype=np.uint8), source=np.zeros(1, dtype=np.uint8)),
    }


def test_a_hostile_or_damaged_result_is_left_out(demo, computed):
    blobs = hostile_blobs(demo, computed)
    read = read_prepared(blobs, demo.concepts, demo.digest)
    assert read.runs == {} and read.summaries == {}
    seeded = evaluator_of(demo)
    refused = 0
    for key, documents in read.rankings.get("undirected", {}).items():
        with pytest.raises(ParameterError):
            seeded.keep_ranking(key, documents)
        refused += 1
    assert refused == 2  # the ranking with a row too many and the one with indices outside the pool
    assert seeded.kept_rankings() == {}
    with pytest.raises(ParameterError):
        seeded.keep_summary(("iou", 10, 0.5), PoolSummary(np.full((2, 2), np.nan), np.zeros(2, int), np.zeros(2, int)))
    with pytest.raises(ParameterError):
        seeded.keep_ranking(("iou", "100", 10, 0.5), np.zeros((len(demo.concepts), 3), dtype=np.int64))


def test_a_damaged_blob_reads_as_absent_and_can_be_kept_again(tmp_path, demo, computed):
    store = WorkspaceStore(tmp_path)
    workspace_id = store.save(demo.recipe)
    blobs = prepared_blobs(computed[1], demo.concepts, demo.digest)
    name, data = next(iter(blobs.items()))
    assert store.keep_prepared(workspace_id, name, data)
    blob = next(path for path in (tmp_path / BLOB_FOLDER).iterdir() if path.stat().st_size == len(data))
    blob.write_bytes(data[:100] + b"x" + data[101:])
    assert store.prepared(workspace_id) == {}
    assert store.prepared_sizes(workspace_id) == {}  # its row is dropped: the next keep writes it again
    assert store.open(workspace_id).inputs == tuple(demo.recipe)
    assert store.keep_prepared(workspace_id, name, data) and store.prepared(workspace_id) == {name: data}


def test_the_bounds_hold_and_the_oldest_results_go_first(tmp_path):
    store = WorkspaceStore(tmp_path, max_prepared_bytes=1000, max_store_bytes=3000)
    workspace_id = store.save([SavedInput("concepts", "c.csv", b"ID,CUIs\n")])
    for turn in range(5):
        assert store.keep_prepared(workspace_id, f"result {turn}", bytes([turn]) * 400)
        assert sum(store.prepared_sizes(workspace_id).values()) <= 1000
    assert list(store.prepared_sizes(workspace_id)) == ["result 3", "result 4"]
    assert store.keep_prepared(workspace_id, "result 3", b"y" * 500)  # replaced, not added: result 4 stays
    assert store.prepared_sizes(workspace_id) == {"result 4": 400, "result 3": 500}
    assert not store.keep_prepared(workspace_id, "too large", b"z" * 1001)
    others = [store.save([SavedInput("concepts", "c.csv", f"ID,CUIs\n{n}".encode())]) for n in range(3)]
    kept = [store.keep_prepared(other, "result", bytes([n]) * 900) for n, other in enumerate(others)]
    assert kept == [True, True, False]  # the third would take the store over its 3000 bytes
    held = sum(path.stat().st_size for path in (tmp_path / BLOB_FOLDER).iterdir())
    assert held <= 3000 and set(blob_names(tmp_path)) == referred(tmp_path)  # the refused blob did not stay
    assert not store.keep_prepared("A" * 32, "result", b"x")  # no such workspace
    with pytest.raises(ParameterError):
        store.keep_prepared(workspace_id, "ünïcode", b"x")


def blob_names(folder: Path) -> list[str]:
    return [path.name for path in (folder / BLOB_FOLDER).iterdir()]


def referred(folder: Path) -> set[str]:
    """The blobs the index refers to (inputs and prepared results), each checked to be in place with its size."""
    index = sqlite3.connect(folder / INDEX_FILE)
    try:
        rows = index.execute("SELECT blob, size FROM inputs UNION SELECT blob, size FROM prepared").fetchall()
    finally:
        index.close()
    for digest, size in rows:
        assert (folder / BLOB_FOLDER / digest).stat().st_size == size
    return {digest for digest, _ in rows}


def test_forgetting_or_expiry_removes_the_results(tmp_path):
    now = [1_000_000.0]
    store = WorkspaceStore(tmp_path, clock=lambda: now[0], expiry_days=1)
    forgotten, expiring = (store.save([SavedInput("concepts", "c.csv", tag)]) for tag in (b"a", b"b"))
    for workspace_id in (forgotten, expiring):
        assert store.keep_prepared(workspace_id, "ranking", workspace_id.encode() * 100)
    store.forget(forgotten)
    assert len(blob_names(tmp_path)) == 2  # the expiring workspace's input and result
    now[0] += 2 * DAY
    store.expire()
    assert blob_names(tmp_path) == [] and store.prepared(expiring) == {}
    assert not store.keep_prepared(expiring, "ranking", b"late")


#: A process keeping results with the workspace its third argument names in its store (tests/killed_at_a_step.py),
#: 1 MiB a turn under a bound of 3 MiB (from the fourth turn on, each drops the oldest result), printing each name once
#: kept. A turn's bytes are the same in every process: a result may share its blob with another process's.
KEEPING = """
from evalcore.app.store import WorkspaceStore
store = WorkspaceStore(sys.argv[1], max_prepared_bytes=3 * 2**20)
steps[0] = 0
for turn in range(1, 6):
    name = f"result {os.getpid()} {turn}"
    if store.keep_prepared(sys.argv[3], name, turn.to_bytes(4, "little") * 262144):
        print(name, flush=True)
"""


def kept_whole(store: WorkspaceStore, workspace_id: str) -> dict[str, bytes]:
    """The results kept, each the bytes of its turn (each read recomputes its digest: a damaged one is left out), within
    the bound, and the index's sizes naming the same results."""
    kept = store.prepared(workspace_id)
    for name, data in kept.items():
        assert data == int(name.split()[-1]).to_bytes(4, "little") * 262144, name
    assert sum(map(len, kept.values())) <= 3 * 2**20 and store.prepared_sizes(workspace_id).keys() == kept.keys()
    return kept


@pytest.mark.subprocess
@pytest.mark.slow
def test_a_process_killed_at_any_step_of_keeping_results_leaves_the_store_consistent(tmp_path):
    """Killed at each step that changes the store, in turn, one process after another on one store (deterministic,
    where a kill after a random sleep missed some steps in some runs)."""
    counting = WorkspaceStore(tmp_path / "count").save([SavedInput("concepts", "c.csv", b"ID,CUIs\n")])
    count = counted_steps(killed_at(KEEPING, tmp_path / "count", 0, counting))
    assert count >= 15  # per turn: the blob's file, its sync and rename, the folder's sync, a commit; drops unlink
    store = WorkspaceStore(tmp_path / "store", max_prepared_bytes=3 * 2**20)
    workspace_id = store.save([SavedInput("concepts", "c.csv", b"ID,CUIs\n")])
    kills = 0
    for kill_at in range(1, count + 1):
        done = killed_at(KEEPING, tmp_path / "store", kill_at, workspace_id)
        assert done.returncode in (0, -signal.SIGKILL), (kill_at, done.stderr)
        kills += done.returncode == -signal.SIGKILL
        kept_whole(store, workspace_id)
        referred(tmp_path / "store")
    assert kills >= 15 and kept_whole(store, workspace_id)
    minutes_ago = time.time() - 120  # what the killed processes left is now stale: the next expiry collects it
    for path in (tmp_path / "store" / BLOB_FOLDER).iterdir():
        os.utime(path, (minutes_ago, minutes_ago))
    store.expire()
    assert set(blob_names(tmp_path / "store")) == referred(tmp_path / "store")


@pytest.fixture
def app_store(tmp_path, monkeypatch) -> WorkspaceStore:
    monkeypatch.setenv("CBIR_LENS_STORE", str(tmp_path / "store"))
    return WorkspaceStore(tmp_path / "store")


def fresh_server() -> None:
    """Forget what this process's server computed, as a new server process would not have it, once the background
    work on the demo is done (a job still running would compute into the new server's stores)."""
    from dashboard.background import server_background

    for job in server_background().jobs_of(load_demo().digest):
        assert job.finished.wait(240)
    st.cache_resource.clear()
    st.cache_data.clear()


def reopened(address: dict[str, list[str]]) -> AppTest:
    """A new session opening the Leaderboard at ``address`` (query parameters)."""
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    for name, values in address.items():
        app.query_params[name] = values
    app.switch_page("pages/leaderboard.py")
    return app.run()


def leaderboard_with_baselines(ws) -> AppTest:
    """The Leaderboard of ``ws`` (the demo: its runs) with the IoU, nn-IoU and captions baselines beside them."""
    app = open_page("pages/leaderboard.py", workspace=ws)
    app.multiselect(key="baselines").set_value([IOU, NN_IOU, CAPTIONS]).run()
    assert not app.exception
    return app


def address_of(app: AppTest, workspace_id: str) -> dict[str, list[str]]:
    return {**{name: app.query_params[name] for name in app.query_params}, "workspace": [workspace_id]}


@pytest.mark.subprocess
@pytest.mark.slow
def test_a_link_on_a_fresh_server_finds_the_results_and_shows_the_same_numbers(app_store, demo):
    fresh_server()
    first = leaderboard_with_baselines(demo)
    numbers = frame_with(first, "nn-CUI@10")
    assert len(numbers) >= 3 + len(demo.runs)
    first.switch_page("pages/data.py")
    first.run()
    first.button(key="save_workspace").click().run()
    assert not first.exception and not first.error
    workspace_id = first.query_params["workspace"]
    workspace_id = workspace_id[0] if isinstance(workspace_id, list) else workspace_id
    kept = app_store.prepared_sizes(workspace_id)
    kinds = sorted({json.loads(name)[0] for name in kept})
    assert kinds == ["ranking", "run", "summary"]
    assert any(caption.value.startswith("Results kept with the link") for caption in first.caption)

    fresh_server()
    from dashboard.computed import engine_evaluator

    again = reopened(address_of(first, workspace_id))
    assert not again.exception and not again.warning
    again.multiselect(key="baselines").set_value([IOU, NN_IOU, CAPTIONS]).run()  # the address does not name them
    assert frame_with(again, "nn-CUI@10").equals(numbers)
    evaluator = engine_evaluator(again.session_state["workspace"], "undirected")
    read = read_prepared(app_store.prepared(workspace_id), demo.concepts, demo.digest)
    for key, documents in read.rankings["undirected"].items():
        assert evaluator.kept_rankings()[key] is not documents  # put back as read, then shared read-only
        assert np.array_equal(evaluator.kept_rankings()[key], documents)
        assert not evaluator.kept_rankings()[key].flags.writeable


@pytest.mark.subprocess
@pytest.mark.slow
def test_a_link_whose_results_are_hostile_opens_with_the_same_numbers(app_store, demo, computed):
    fresh_server()
    first = leaderboard_with_baselines(demo)
    numbers = frame_with(first, "nn-CUI@10")
    workspace_id = app_store.save(demo.recipe, {"label": demo.label})
    for name, data in hostile_blobs(demo, computed).items():
        app_store.keep_prepared(workspace_id, name, data)
    fresh_server()
    again = reopened(address_of(first, workspace_id))
    assert not again.exception and not again.warning
    again.multiselect(key="baselines").set_value([IOU, NN_IOU, CAPTIONS]).run()  # the address does not name them
    assert frame_with(again, "nn-CUI@10").equals(numbers)
