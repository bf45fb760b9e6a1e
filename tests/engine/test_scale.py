"""Execution backends: local processes and a Dask LocalCluster give the in-process engine's numbers,
the same indices in the same tie order; the in-process path never imports Dask."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from evalcore.engine import Compute, PairwiseEngine
from evalcore.engine.executors import DaskCluster, LocalProcesses, SharedPass, executor_for, parse_size, shared_pass, task_chunks
from evalcore.errors import CBIRLensError, ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.io.loading import load_kg
from evalcore.readers import read_concepts, read_runs
from evalcore.relevance.measures import nn_iou_measure, parse_measure
from tests.conftest import DEMO, ROOT, random_world


def python_output(code: str) -> str:
    """What ``code`` prints in a fresh Python process (the start methods and imports under test are per process)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


MEASURES = tuple(parse_measure(text) for text in ("nn-iou(alpha=0.5,n=1)", "iou", "tversky(a=0.7,b=0.3)",
                                                   "nn-iou-hops(w1=0.5,w2=0.25)"))


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster, distributed.Client(cluster) as connected:
        yield connected


def assert_same(expected, got):
    (summary_a, top_a), (summary_b, top_b) = expected, got
    np.testing.assert_array_equal(summary_a.ideal, summary_b.ideal)
    np.testing.assert_array_equal(summary_a.relevant_counts, summary_b.relevant_counts)
    np.testing.assert_array_equal(summary_a.pool_sizes, summary_b.pool_sizes)
    np.testing.assert_array_equal(top_a, top_b)


class Recording:
    """A block executor (``Compute(executor=...)``) that keeps what each pass hands it, the pass (a BlockWork) and
    its blocks of query rows planned within ``memory_per_worker``, and ranks them in this process, or on ``then``."""

    def __init__(self, then=None):
        self.then = then
        self.passes = []

    def rank(self, work, blocks, k, threshold, depth, progress=None):
        self.passes.append((work, list(blocks)))
        if self.then is not None:
            return self.then.rank(work, blocks, k, threshold, depth, progress)
        return [work.summarise(start, stop, k, threshold, depth) for start, stop in blocks]


def block_work(concepts, kg, measure):
    """The pass an engine over ``concepts`` hands its executor to rank the pool under ``measure``."""
    recording = Recording()
    PairwiseEngine(concepts, kg=kg, compute=Compute(executor=recording)).rank_by(measure, 1)
    return recording.passes[0][0]


def tied_world(seed: int):
    """Few concepts over many images: most rows are full of ties."""
    return random_world(seed, images=300, vocabulary=8, edges=10)


@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.parametrize("measure", MEASURES, ids=str)
def test_dask_cluster_equals_in_process_on_random_data_with_ties(client, measure):
    concepts, kg = tied_world(4)
    expected = PairwiseEngine(concepts, kg=kg, block_size=13).rank_by(measure, 12, 0.4, 40)
    cluster = Recording(DaskCluster(client))
    engine = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=cluster))
    # A budget of the operands and 5 rows: many blocks of 5 rows, unlike the in-process engine's 13.
    work = block_work(concepts, kg, measure)
    engine.memory_per_worker = work.nbytes() + 5 * len(concepts) * work.side.bytes_per_pair()
    seen = []
    assert_same(expected, engine.rank_by(measure, 12, 0.4, 40, progress=seen.append))
    assert seen == sorted(seen) and seen[-1] == 1.0
    [(_, blocks)] = cluster.passes
    assert {stop - start for start, stop in blocks} == {5}


@pytest.mark.subprocess
@pytest.mark.slow
def test_dask_cluster_equals_in_process_with_a_separate_pool(client):
    concepts, kg = tied_world(9)
    queries = type(concepts)(concepts.ids[:70], concepts.sets[:70], "queries")
    expected = PairwiseEngine(queries, concepts, kg=kg).rank_by(parse_measure("nn-iou(alpha=0.3,n=2)"), 5, 0.5, 25)
    engine = PairwiseEngine(queries, concepts, kg=kg, compute=Compute(executor=DaskCluster(client)))
    assert_same(expected, engine.rank_by(parse_measure("nn-iou(alpha=0.3,n=2)"), 5, 0.5, 25))


@pytest.mark.subprocess
@pytest.mark.slow
def test_local_processes_equal_in_process():
    concepts, kg = tied_world(6)
    expected = PairwiseEngine(concepts, kg=kg).rank_by(parse_measure("nn-iou(alpha=0.5,n=1)"), 10, 0.5, 30)
    engine = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=LocalProcesses(2)))
    engine.memory_per_worker = 1 << 20  # below Compute's floor: several blocks on this small pool
    assert_same(expected, engine.rank_by(parse_measure("nn-iou(alpha=0.5,n=1)"), 10, 0.5, 30))


@pytest.mark.slow
@pytest.mark.subprocess
def test_demo_evaluation_on_the_cluster_equals_in_process(client):
    concepts = read_concepts(DEMO / "concepts.csv")
    kg = load_kg([DEMO / "kg_edges.csv"])
    runs = [run for path in sorted((DEMO / "runs").iterdir()) for run in read_runs(path)]
    metrics = ["nn-CUI@10", "CUI@5", "nn-MAP@30", "R@30"]
    expected = Evaluator(concepts, kg).evaluate(runs, metrics, Relevance.of(0.5, 1)).per_query_frame()
    evaluator = Evaluator(concepts, kg, compute=Compute(client=client))
    assert isinstance(evaluator.engine.executor, DaskCluster)
    got = evaluator.evaluate(runs, metrics, Relevance.of(0.5, 1)).per_query_frame()
    assert got.equals(expected)
    ranking = evaluator.relevance_ranking(nn_iou_measure(0.5, 1), 30)
    in_process = Evaluator(concepts, kg).relevance_ranking(nn_iou_measure(0.5, 1), 30)
    np.testing.assert_array_equal(ranking.documents, in_process.documents)


@pytest.mark.subprocess
@pytest.mark.slow
def test_local_workers_start_with_the_engine_already_imported():
    """The fork server preloads the engine's modules, so a worker forked from it imports nothing itself;
    what a caller preloaded is kept, and asking twice adds nothing twice."""
    pytest.importorskip("multiprocessing.forkserver")
    code = ("import sys\n"
            "from concurrent.futures import ProcessPoolExecutor\n"
            "from multiprocessing import forkserver\n"
            "from evalcore.engine.executors import worker_context\n"
            "forkserver.set_forkserver_preload(['json'])\n"
            "worker_context()\n"
            "context = worker_context()\n"
            "print(forkserver._forkserver._preload_modules)\n"
            "if __name__ == '__main__':\n"
            "    with ProcessPoolExecutor(1, mp_context=context) as pool:\n"
            "        print(pool.submit(eval, \"'scipy.sparse' in __import__('sys').modules\").result())\n")
    assert python_output(code).split("\n")[:2] == ["['json', 'evalcore.engine', 'evalcore.engine.executors']", "True"]


@pytest.mark.subprocess
@pytest.mark.slow
def test_asking_for_local_workers_starts_their_fork_server_at_once():
    """The server's imports then overlap the caller's preparation of the pass."""
    pytest.importorskip("psutil")
    pytest.importorskip("multiprocessing.forkserver")
    code = ("import psutil\n"
            "from evalcore.engine.executors import LocalProcesses\n"
            "def servers():\n"
            "    return sum('forkserver' in ' '.join(c.cmdline()) for c in psutil.Process().children())\n"
            "before = servers()\n"
            "LocalProcesses(1)\n"
            "LocalProcesses(2)\n"
            # (the server is forked and then executes Python: on a loaded machine its command line shows a moment
            # later, so it is looked for over a few seconds, nothing else in this process starting one)
            "import time\n"
            "deadline = time.monotonic() + 10\n"
            "while servers() < 1 and time.monotonic() < deadline:\n"
            "    time.sleep(0.05)\n"
            "print(before, servers())\n")
    assert python_output(code).split() == ["0", "1"]


@pytest.mark.subprocess
@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="no /dev/shm: passes go by pipe here")
def test_a_pass_handed_through_shared_memory_arrives_whole_and_its_segment_is_removed():
    from multiprocessing import shared_memory

    concepts, kg = tied_world(2)
    work = block_work(concepts, kg, parse_measure("nn-iou(alpha=0.5,n=1)"))
    with shared_pass(work) as handed:
        assert isinstance(handed, SharedPass)
        assert len(handed.pickled) < 10_000 < work.nbytes()  # the arrays travel in the segment, not the pickle
        loaded = handed.load()
    for start, stop in ((0, 7), (7, 300)):
        for expected, got in zip(work.summarise(start, stop, 5, 0.5, 9), loaded.summarise(start, stop, 5, 0.5, 9)):
            np.testing.assert_array_equal(expected, got)
    np.testing.assert_array_equal(work.left.toarray(), loaded.left.toarray())
    with pytest.raises(FileNotFoundError):
        shared_memory.SharedMemory(name=handed.segment)


@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="no /dev/shm: passes go by pipe here")
def test_without_room_in_shared_memory_the_pass_goes_by_pipe(monkeypatch, tmp_path):
    """A full /dev/shm (Docker gives 64 MB) would kill the writer with SIGBUS: the pass is then handed whole."""
    import os

    concepts, kg = tied_world(3)
    engine = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=LocalProcesses(2)))
    work = block_work(concepts, kg, parse_measure("iou"))
    real = os.statvfs(tmp_path)
    small = os.statvfs_result((real.f_bsize, 4096, 10, 10, 1, 10, 10, 10, real.f_flag, real.f_namemax))
    monkeypatch.setattr(os, "statvfs", lambda path: small)
    with shared_pass(work) as handed:
        assert handed is work
    monkeypatch.undo()

    def full(descriptor, offset, length):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "posix_fallocate", full)  # filled between the check and the allocation
    segments = set(os.listdir("/dev/shm"))
    with shared_pass(work) as handed:
        assert handed is work
    assert set(os.listdir("/dev/shm")) == segments  # the segment made before the allocation failed is gone
    expected = PairwiseEngine(concepts, kg=kg).rank_by(parse_measure("iou"), 6, 0.5, 8)
    assert_same(expected, engine.rank_by(parse_measure("iou"), 6, 0.5, 8))


@pytest.mark.subprocess
def test_a_budget_too_small_for_one_row_is_refused_with_the_sizes():
    concepts, kg = tied_world(1)
    engine = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=LocalProcesses(1)))
    engine.memory_per_worker = 1000
    with pytest.raises(ParameterError, match="too small for a pool of 300 images"):
        engine.rank_by(parse_measure("iou"), 5)


def test_block_rows_shrink_with_the_budget():
    """The blocks a pass hands its executor hold the query rows that fit a worker's memory beside the pass's
    operands, at most the engine's block size."""
    concepts, kg = random_world(1, images=600, vocabulary=8, edges=10)  # more queries than fit 1 MiB
    small_passes, large_passes = Recording(), Recording()
    small = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=small_passes))
    small.memory_per_worker = 1 << 20  # below Compute's floor, as a test may set it
    large = PairwiseEngine(concepts, kg=kg, block_size=200,
                           compute=Compute(executor=large_passes, memory_per_worker=1 << 30))
    small.rank_by(parse_measure("iou"), 5)
    large.rank_by(parse_measure("iou"), 5)
    [(work, blocks)], [(_, large_blocks)] = small_passes.passes, large_passes.passes
    rows, large_rows = blocks[0][1] - blocks[0][0], large_blocks[0][1] - large_blocks[0][0]
    assert [start for start, _ in blocks] == list(range(0, len(concepts), rows)) and blocks[-1][1] == len(concepts)
    assert rows * len(concepts) * work.side.bytes_per_pair() + work.nbytes() <= 1 << 20
    assert rows < large_rows == large.block_size


def test_task_chunks_cover_every_block_once_in_order():
    blocks = [(i, i + 3) for i in range(0, 1000, 3)]
    for workers in (1, 2, 7, 64):
        for pool_size in (10, 10**6):
            chunks = task_chunks(blocks, workers, pool_size)
            assert [b for chunk in chunks for b in chunk] == blocks
            assert all(chunks) and len(chunks) >= min(len(blocks), 2 * workers)


@pytest.mark.subprocess
def test_backend_options_are_validated():
    with pytest.raises(ParameterError, match="not both"):
        executor_for(workers=2, client="tcp://127.0.0.1:8786")
    with pytest.raises(ParameterError, match="whole number"):
        LocalProcesses(-1)
    with pytest.raises(ParameterError, match="empty"):
        DaskCluster("  ")
    with pytest.raises(ParameterError, match="memory size"):
        parse_size("lots")
    assert LocalProcesses(0).workers >= 1
    assert parse_size("512MB") == 512 * 10**6


def test_an_unreachable_scheduler_is_one_clear_error():
    pytest.importorskip("distributed")
    concepts, kg = tied_world(1)
    engine = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=DaskCluster("tcp://127.0.0.1:9")))
    with pytest.raises(CBIRLensError, match="could not reach the Dask scheduler"):
        engine.rank_by(parse_measure("iou"), 5)


@pytest.mark.subprocess
@pytest.mark.slow
def test_cli_workers_and_scheduler_write_the_in_process_run(tmp_path, client):
    common = [sys.executable, "-m", "evalcore", "retrieve", "--concepts", str(DEMO / "concepts.csv"),
              "--kg", str(DEMO / "kg_edges.csv"), "--by", "nn-iou", "--depth", "20"]
    outputs = {}
    for name, extra in {"in_process": [], "workers": ["--workers", "2", "--memory-per-worker", "64MB"],
                        "scheduler": ["--scheduler", client.scheduler.address]}.items():
        out = tmp_path / f"{name}.txt"
        done = subprocess.run([*common, "--out", str(out), *extra], capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        outputs[name] = out.read_bytes()
    assert outputs["workers"] == outputs["in_process"] == outputs["scheduler"]


@pytest.mark.subprocess
@pytest.mark.slow
def test_cli_refuses_both_backends_and_a_bad_size(tmp_path):
    base = [sys.executable, "-m", "evalcore", "retrieve", "--concepts", str(DEMO / "concepts.csv"), "--by", "iou",
            "--out", str(tmp_path / "r.txt")]
    both = subprocess.run([*base, "--workers", "2", "--scheduler", "tcp://x:1"], capture_output=True, text=True)
    size = subprocess.run([*base, "--memory-per-worker", "2XB"], capture_output=True, text=True)
    assert both.returncode == size.returncode == 2
    assert "not allowed with argument" in both.stderr and "memory size" in size.stderr
    assert "Traceback" not in both.stderr + size.stderr


@pytest.mark.subprocess
@pytest.mark.slow
def test_the_in_process_path_imports_no_dask():
    code = ("import sys, evalcore, evalcore.__main__, evalcore.api, evalcore.engine.executors\n"
            "from evalcore.engine import PairwiseEngine\n"
            "from evalcore.data import ConceptSets\n"
            "from evalcore.relevance.measures import measure_spec\n"
            "sets = ConceptSets(('a', 'b'), (frozenset({'C1'}), frozenset({'C1', 'C2'})))\n"
            "PairwiseEngine(sets).rank_by(measure_spec('iou'), 1)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    assert python_output(code).strip() == "[]"


def plain_summary(keys, values, k, threshold, depth):
    """The plain path: a full sort of every row, then a stable sort by key descending for the top indices."""
    ordered = np.sort(keys, axis=1)[:, ::-1]
    ideal = np.zeros((len(keys), k))
    width = min(k, keys.shape[1])
    ideal[:, :width] = np.maximum(values[ordered[:, :width]], 0.0)
    relevant = (values[keys] >= threshold).sum(axis=1)
    top = np.full((len(keys), depth), -1, dtype=np.int64)
    for row in range(len(keys)):
        order = [c for c in np.argsort(-keys[row].astype(np.int64), kind="stable") if keys[row, c] > 0][:depth]
        top[row, :len(order)] = order
    return ideal, relevant, top


@pytest.mark.parametrize("seed", range(6))
def test_summarise_block_equals_the_plain_full_sort_on_tied_keys(seed):
    from evalcore.engine import KeyedBlock, summarise_block

    rng = np.random.default_rng(seed)
    rows, columns, distinct = rng.integers(1, 40), rng.integers(1, 300), rng.integers(1, 6)
    keys = rng.integers(0, distinct + 1, (rows, columns)).astype(np.uint16)  # few keys: rows full of ties
    values = np.concatenate([[-1.0], np.sort(rng.random(distinct))])
    for k, depth in ((10, 0), (1, 30), (5, 500)):
        for threshold in (0.0, 0.5, 2.0):
            got = summarise_block(KeyedBlock(0, rows, keys, values), k, threshold, depth)
            for a, b in zip(got, plain_summary(keys, values, k, threshold, depth)):
                np.testing.assert_array_equal(a, b)


def test_reuse_freed_memory_sets_glibc_thresholds_and_tolerates_other_libcs(monkeypatch):
    """Workers and the dashboard's server keep large freed arrays for reuse: mallopt's mmap threshold (-3) at
    32 MiB and trim threshold (-1) at 256 MiB; a C library without mallopt is left alone without an error."""
    import ctypes
    import sys

    from evalcore.engine import executors

    calls = []

    class FakeLibc:
        def mallopt(self, parameter, value):
            calls.append((parameter, value))
            return 1

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(ctypes, "CDLL", lambda name: FakeLibc())
    executors.reuse_freed_memory()
    assert calls == [(-3, 32 << 20), (-1, 256 << 20)]
    monkeypatch.setattr(ctypes, "CDLL", lambda name: object())  # no mallopt (e.g. musl)
    executors.reuse_freed_memory()
    assert len(calls) == 2
