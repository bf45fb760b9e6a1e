"""Issue #21 ("Trust at the edges"), items 10 and 11: the scale-out options refuse what they cannot honour, in one
line on stderr with status 2 (the command line) or as a CBIRLensError (the library), and never hang.

A budget below the floor or not a size at all, an absurd worker count, an address that is none, a scheduler that
is not there, a peer that is no Dask scheduler, and a cluster whose scheduler or workers lack evalcore. Clusters
here are a scheduler in this process (no workers) or in a subprocess, and workers in subprocesses whose preload
hides evalcore or changes its version; every process and server is stopped by the test that started it.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from evalcore.engine import Compute, PairwiseEngine
from evalcore.engine.executors import (
    MIN_MEMORY_PER_WORKER,
    DaskCluster,
    LocalProcesses,
    check_memory_per_worker,
    parse_size,
    scheduler_address,
)
from evalcore.errors import CBIRLensError, ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.processes import usable_cores
from evalcore.relevance.measures import parse_measure
from evalcore.version import __version__
from tests.conftest import DEMO, ROOT, random_world

ADDRESS_SPACE = 2 << 30  # the command line under test runs with at most this much address space
LIMITED = ("import os, resource, sys; resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[1]),) * 2); "
           "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])")
# One BLAS/OpenMP thread: each thread's pool reserves address space.
THREAD_ENV = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
HIDE_EVALCORE = '''
import sys

class HideEvalcore:
    """An environment without cbir-lens, whatever this machine has installed."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "evalcore":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, HideEvalcore())
'''
OTHER_VERSION = "import evalcore\nevalcore.__version__ = '0.0.0'\n"


def retrieve(tmp_path: Path, *options: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """``python -m evalcore retrieve`` on the demo with ``options``, under the address-space limit."""
    argv = ["-m", "evalcore", "retrieve", "--concepts", str(DEMO / "concepts.csv"), "--by", "iou",
            "--out", str(tmp_path / "run.txt"), *options]
    return subprocess.run([sys.executable, "-c", LIMITED, str(ADDRESS_SPACE), *argv], capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout, env={**os.environ, **THREAD_ENV})


def assert_one_line(done: subprocess.CompletedProcess, *phrases: str) -> None:
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]


# --- item 10: --memory-per-worker --------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["1", "512", "1000000", "0", "0.5", "-1GB", "inf", "-inf", "nan", "1e400MB", "2XB",
                                  "GB", "", "2 G"])
def test_a_size_that_is_no_budget_is_refused(text):
    with pytest.raises(ParameterError, match="memory size|at least 16 MiB"):
        parse_size(text)


def test_sizes_in_odd_but_clear_units_are_read():
    assert parse_size("2 GB") == 2 * 10**9
    assert parse_size("2gib") == parse_size(" 2 GiB ") == 2 << 30
    assert parse_size("1e3MB") == 10**9
    assert parse_size("16MiB") == MIN_MEMORY_PER_WORKER


def test_the_floor_is_named_and_the_api_applies_it():
    with pytest.raises(ParameterError, match=r"at least 16 MiB, got 1 bytes"):
        parse_size("1")
    concepts, kg = random_world(1)
    for budget in (1, MIN_MEMORY_PER_WORKER - 1, 2.0**31, float("nan"), -(2 << 30), True, "2GB"):
        with pytest.raises(ParameterError, match="at least 16 MiB"):
            Evaluator(concepts, kg, compute=Compute(memory_per_worker=budget))
    assert Evaluator(concepts, kg, compute=Compute(memory_per_worker=MIN_MEMORY_PER_WORKER)).engine.memory_per_worker == 16 << 20
    # The engine takes its budget from Compute, validated there once; a test lowers the engine's attribute below
    # the floor to force small blocks (tests/engine/test_scale.py)
    assert PairwiseEngine(concepts, kg=kg, compute=Compute(memory_per_worker=1 << 30)).memory_per_worker == 1 << 30
    for budget in (0, -1, float("nan"), float("inf"), 1e9):
        with pytest.raises(ParameterError, match="whole number of bytes"):
            Compute(memory_per_worker=budget)
    # (a pass then refuses one that cannot hold a row of its pool: tests/engine/test_scale.py)
    assert check_memory_per_worker(2 << 30) == 2 << 30


@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.parametrize(("options", "phrase"), [
    (["--memory-per-worker", "1"], "at least 16 MiB, got 1 bytes"),  # was accepted without --workers
    (["--workers", "2", "--memory-per-worker", "1"], "at least 16 MiB"),
    (["--memory-per-worker", "inf"], "found 'inf'"),  # was an OverflowError traceback
    (["--memory-per-worker=-1GB"], "found '-1GB'"),
    (["--memory-per-worker", "nan"], "found 'nan'"),
])
def test_cli_refuses_a_budget_in_one_line(tmp_path, options, phrase):
    assert_one_line(retrieve(tmp_path, *options), "--memory-per-worker", phrase)


# --- item 11: --workers, --scheduler -----------------------------------------------------------------------------

@pytest.mark.subprocess
@pytest.mark.slow
def test_an_absurd_worker_count_is_refused_before_any_process_starts(tmp_path):
    most = 4 * usable_cores()
    with pytest.raises(ParameterError, match=f"at most {most}"):
        LocalProcesses(most + 1)  # refused before the fork server starts
    assert_one_line(retrieve(tmp_path, "--workers", "100000"), "100,000 local workers", f"at most {most}")


@pytest.mark.subprocess
@pytest.mark.parametrize("address", ["garbage address !!", "tcp://", "tcp://host", "http://10.0.0.5:8786",
                                     "tcp://10.0.0.5:0", "tcp://10.0.0.5:70000", "tcp://a b:8786", "10.0.0.5:8786\nx"])
def test_an_address_that_is_none_is_refused_without_dask(address):
    with pytest.raises(ParameterError, match="not a Dask scheduler's address"):
        DaskCluster(address)


def test_addresses_as_dask_writes_them_are_read():
    assert scheduler_address(" tcp://10.0.0.5:8786 ") == ("tcp", "10.0.0.5", 8786)
    assert scheduler_address("localhost:8786") == ("tcp", "localhost", 8786)
    assert scheduler_address("tls://[fe80::1%eth0]:8786") == ("tls", "fe80::1%eth0", 8786)
    assert scheduler_address("tcp://node-01.cluster_a:1") == ("tcp", "node-01.cluster_a", 1)


@pytest.mark.subprocess
def test_cli_refuses_a_garbage_address_in_one_line(tmp_path):  # was distributed's ValueError traceback
    assert_one_line(retrieve(tmp_path, "--scheduler", "garbage address !!"), "'garbage address !!' is not a Dask")


def closed_port() -> int:
    """A local port nobody listens on (just released by this process)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.subprocess
@pytest.mark.slow
def test_an_unreachable_scheduler_fails_at_once(tmp_path, monkeypatch):
    """A refused connection used to be retried for 10 s: it is tried once, and told in one line."""
    done = retrieve(tmp_path, "--scheduler", f"tcp://127.0.0.1:{closed_port()}")
    assert_one_line(done, "could not reach the Dask scheduler", "Connection refused")
    pytest.importorskip("distributed")
    tries = []
    connect = socket.create_connection
    monkeypatch.setattr(socket, "create_connection", lambda *args, **kwargs: tries.append(args) or connect(*args,
                                                                                                           **kwargs))
    concepts, kg = random_world(1)
    engine = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=DaskCluster(f"tcp://127.0.0.1:{closed_port()}")))
    with pytest.raises(CBIRLensError, match="could not reach the Dask scheduler"):
        engine.rank_by(parse_measure("iou"), 5)
    assert len(tries) == 1


@contextlib.contextmanager
def peer(answer: bytes) -> Iterator[str]:
    """A TCP server on this machine that sends ``answer`` to each connection and then keeps it open and silent
    until the block ends; its address."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)  # accept() wakes up to see the end of the block
    connections: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                connection, _ = server.accept()
                connections.append(connection)
                connection.sendall(answer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        server.close()
        for connection in connections:
            connection.close()


@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.parametrize("answer", [b"SSH-2.0-OpenSSH_9.6\r\n", b"HTTP/1.1 400 Bad Request\r\n\r\n",
                                    struct.pack("Q", 3 << 30), b"\xff" * 64])
def test_a_peer_that_is_no_scheduler_is_refused_in_one_line_and_bounded_memory(tmp_path, answer):
    """Text read as a length made distributed allocate exabytes (a traceback), and 3 GiB it would wait for, past the
    2 GiB address space this command runs in; one byte then silence used to hang."""
    with peer(answer) as address:
        done = retrieve(tmp_path, "--scheduler", address, timeout=60)  # a hang fails here
    assert_one_line(done, f"{address} is not a Dask scheduler")


@pytest.mark.subprocess
def test_a_silent_peer_is_refused_after_the_timeout():
    """An HTTP server (or Dask's dashboard port) says nothing until asked: distributed waited for ever."""
    pytest.importorskip("distributed")
    concepts, kg = random_world(1)
    with peer(b"") as address:
        engine = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=DaskCluster(address, timeout=0.5)))
        with pytest.raises(CBIRLensError, match=rf"{address} sent no Dask greeting within 0.5 s: it is not a Dask"):
            engine.rank_by(parse_measure("iou"), 5)


# --- item 11: clusters that lack evalcore -------------------------------------------------------------------------

@pytest.fixture
def scheduler():
    """A scheduler in this process, on TCP, without workers; its address."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1",
                                  dashboard_address=None, silence_logs=50) as cluster:
        yield cluster.scheduler_address


@contextlib.contextmanager
def dask_process(tmp_path: Path, kind: str, preload: str, *options: str) -> Iterator[subprocess.Popen]:
    """``dask scheduler`` or ``dask worker`` in a subprocess whose ``--preload`` runs ``preload`` first, with
    evalcore on its path (the checkout); killed when the block ends."""
    script = tmp_path / f"preload_{kind}.py"
    script.write_text(preload, encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", f"distributed.cli.dask_{kind}", *options, "--preload", str(script)],
                               cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               env={**os.environ, **THREAD_ENV, "PYTHONPATH": str(ROOT)})
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def worker(tmp_path: Path, address: str, preload: str) -> contextlib.AbstractContextManager[subprocess.Popen]:
    """One single-threaded worker of the scheduler at ``address``, without a nanny (it starts faster)."""
    return dask_process(tmp_path, "worker", preload, address, "--nthreads", "1", "--no-nanny", "--no-dashboard")


def wait_for_workers(address: str, count: int) -> None:
    import distributed

    with distributed.Client(address, timeout=30) as client:
        client.wait_for_workers(count, timeout=30)


@pytest.mark.subprocess
@pytest.mark.slow
def test_workers_that_cannot_import_evalcore_are_named_with_what_to_install(tmp_path, scheduler):
    """Dask printed the workers' deserialization error as a traceback."""
    with worker(tmp_path, scheduler, HIDE_EVALCORE):
        wait_for_workers(scheduler, 1)
        done = retrieve(tmp_path, "--scheduler", scheduler)
    assert_one_line(done, "the Dask workers at tcp://127.0.0.1:", "cannot import evalcore (No module named 'evalcore')",
                    f"install cbir-lens[scale] {__version__} (this client's version) on the scheduler and on every worker")


@pytest.mark.subprocess
def test_workers_with_another_version_of_evalcore_are_named(tmp_path, scheduler):
    concepts, kg = random_world(1)
    with worker(tmp_path, scheduler, OTHER_VERSION):
        wait_for_workers(scheduler, 1)
        engine = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=DaskCluster(scheduler)))
        other_version = rf"the Dask workers at tcp://\S+ have evalcore 0.0.0, this client {re.escape(__version__)}"
        with pytest.raises(CBIRLensError, match=other_version):
            engine.rank_by(parse_measure("iou"), 5)


@pytest.mark.subprocess
def test_a_scheduler_that_cannot_import_evalcore_is_named(tmp_path):
    """Dask raised 'Error during deserialization of the task graph' with a traceback."""
    pytest.importorskip("distributed")
    port = closed_port()
    address = f"tcp://127.0.0.1:{port}"
    concepts, kg = random_world(1)
    with dask_process(tmp_path, "scheduler", HIDE_EVALCORE, "--host", "127.0.0.1", "--port", str(port),
                      "--no-dashboard") as process:
        deadline = time.monotonic() + 30
        while process.poll() is None and time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            time.sleep(0.1)
        engine = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=DaskCluster(address)))
        with pytest.raises(CBIRLensError, match=rf"the Dask scheduler at {address} cannot import evalcore \(No module"):
            engine.rank_by(parse_measure("iou"), 5)


@pytest.mark.subprocess
def test_a_cluster_without_workers_is_refused_after_the_timeout(scheduler):
    """Its tasks used to wait for ever."""
    concepts, kg = random_world(1)
    engine = PairwiseEngine(concepts, kg=kg, compute=Compute(executor=DaskCluster(scheduler, timeout=0.5)))
    with pytest.raises(CBIRLensError, match=rf"the Dask scheduler at {scheduler} has no workers after 0.5 s; start"):
        engine.rank_by(parse_measure("iou"), 5)
