"""Where the engine's blocks run (docs/DESIGN.md §6): in the engine's own threads, on local worker processes,
or on a Dask distributed cluster.

A pass over the pool (:meth:`evalcore.engine.PairwiseEngine.rank_by`) is cut into query blocks.
Every worker receives the pass's :class:`~evalcore.engine.work.BlockWork` once (the candidate side of the
product, the look-up table, the left operand of every query): through the initializer of a process
pool (its arrays by shared memory, :class:`SharedPass`), or scattered to every Dask worker. A task
then names only its query rows and returns per block the ideal top-k values, the threshold counts and
the top-depth candidates, computed by the same function as the in-process engine, so every backend
gives the same numbers in the same tie order.

Dask is imported only by :class:`DaskCluster`, so the in-process path (and the dashboard's start)
never loads it.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import numbers
import os
import pickle
import pkgutil
import re
import socket
import struct
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, Protocol

from evalcore.decimals import finite_decimal
from evalcore.engine.work import BlockWork
from evalcore.errors import CBIRLensError, ParameterError, listed, one_line
from evalcore.processes import process_context, worker_count
from evalcore.version import __version__

Summary = tuple[Any, Any, Any]  # (ideal, relevant counts, top indices) of one block
Blocks = Sequence[tuple[int, int]]
PAIRS_PER_TASK = 20_000_000
MAX_TASKS = 200
# The smallest memory budget of a worker. Far below what a worker's own Python and NumPy take, so it refuses only
# a budget written without its unit ("512" meant as MB) or in the wrong one; whether one row of a given pool fits
# is checked when a pass is planned (PairwiseEngine._rows_within_budget).
MIN_MEMORY_PER_WORKER = 16 << 20


class BlockExecutor(Protocol):
    """Runs :meth:`BlockWork.summarise` over blocks and returns the summaries in block order."""

    def rank(self, work: BlockWork, blocks: Blocks, k: int, threshold: float, depth: int,
             progress: Callable[[float], None] | None = None) -> list[Summary]: ...


def task_chunks(blocks: Blocks, workers: int, pool_size: int = 0) -> list[list[tuple[int, int]]]:
    """Consecutive blocks grouped into tasks: at least two per worker (balance), about one per
    ``PAIRS_PER_TASK`` pairs (a task's overhead, some milliseconds, stays small next to its work) and
    at most ``MAX_TASKS`` (enough steps for a progress bar); ``pool_size`` candidates per query row.

    >>> [len(chunk) for chunk in task_chunks([(i, i + 1) for i in range(10)], 2)]
    [3, 3, 2, 2]
    >>> len(task_chunks([(i, i + 100) for i in range(0, 100_000, 100)], 2, 100_000))
    200
    """
    pairs = sum(stop - start for start, stop in blocks) * pool_size
    count = min(len(blocks), max(2 * workers, min(MAX_TASKS, pairs // PAIRS_PER_TASK)))
    if count == 0:
        return []
    size, extra = divmod(len(blocks), count)
    chunks, first = [], 0
    for position in range(count):
        last = first + size + (position < extra)
        chunks.append(list(blocks[first:last]))
        first = last
    return chunks


def summarise_chunk(work: BlockWork, chunk: Sequence[tuple[int, int]], k: int, threshold: float, depth: int
                    ) -> list[Summary]:
    """One task: the summaries of a chunk of consecutive blocks, one block at a time (so a worker's memory
    holds one block); the function every worker runs."""
    _prepare_worker_once()
    return [work.summarise(start, stop, k, threshold, depth) for start, stop in chunk]


_WORKER_PREPARED = False
# glibc's mallopt parameters: large arrays from the heap up to the largest mmap threshold glibc allows (32 MiB on
# 64-bit), and the freed top of the heap kept up to 256 MiB, as glibc's own dynamic thresholds would do.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_MMAP_THRESHOLD, _TRIM_THRESHOLD = 32 << 20, 256 << 20


def _prepare_worker_once() -> None:
    """A worker's BLAS at one thread (its parallelism is the workers; Dask's nanny sets this through the
    environment, a worker started otherwise may not), and its allocator set to reuse freed memory.

    Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which also switches off glibc's
    dynamic mmap threshold: every array over 128 KiB is then mapped and unmapped afresh, and a block's
    arrays are page-faulted in again and again. Measured on ROCOv2 test, that made a worker's blocks
    2.1x slower than the same blocks in a plain process; ``mallopt`` restores the plain speed.
    """
    global _WORKER_PREPARED
    if _WORKER_PREPARED:
        return
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")
    reuse_freed_memory()
    _WORKER_PREPARED = True


def reuse_freed_memory() -> None:
    """Have glibc keep large freed arrays for reuse instead of unmapping them (``mallopt``; no-op elsewhere).

    For a process that owns itself: a worker, or the dashboard's server, which allocates and frees the same
    large arrays on every slider move; first touching fresh pages is what costs there. A library call never
    sets this in its host process. At most 256 MiB of freed memory is kept.
    """
    if sys.platform.startswith("linux"):
        import ctypes
        import ctypes.util

        with contextlib.suppress(OSError, AttributeError):  # not glibc (e.g. musl): leave the allocator alone
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
            libc.mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)


def _collect(chunks: list[list[tuple[int, int]]], done_in_order: Iterator[tuple[int, list[Summary]]],
             progress: Callable[[float], None] | None) -> list[Summary]:
    """Place each finished chunk's summaries at its blocks and report progress by completed blocks."""
    results: list[list[Summary] | None] = [None] * len(chunks)
    total, done = sum(len(chunk) for chunk in chunks), 0
    for position, summaries in done_in_order:
        results[position] = summaries
        done += len(chunks[position])
        if progress is not None:
            progress(done / total)
    return [summary for chunk in results for summary in chunk or ()]


# --- local worker processes -----------------------------------------------------------------

_INSTALLED: BlockWork | None = None
_ALIGNMENT = 64  # each array of a shared pass starts on a cache line
_SHARED_MEMORY_HEADROOM = 1.5  # a shared pass is written only where tmpfs has this multiple of its size free


@dataclass(frozen=True)
class SharedPass:
    """A pass's work as local workers receive it: its arrays in one shared-memory segment, and the rest
    of it (some kilobytes of pickle) naming them by position, so that a worker starts with one copy out of
    shared memory instead of reading the whole pass through a pipe.

    Through the pipe of a process start, on the 2-core machine, a worker received the pass of a 1 M-image
    pool (112 MB) in about 0.35 s, and the pool starts its workers one after another, so the last of N
    workers waited about 0.35 N s. Out of shared memory each worker copies it in tens of milliseconds.
    """

    segment: str
    pickled: bytes
    spans: tuple[tuple[int, int], ...]  # (offset, length) of each array's bytes in the segment

    def load(self) -> BlockWork:
        """The pass, its arrays copied out of the segment (a worker then holds no reference to it)."""
        segment = _attach(self.segment)
        try:
            buffers = [bytearray(segment.buf[offset:offset + length]) for offset, length in self.spans]
        finally:
            segment.close()
        return pickle.loads(self.pickled, buffers=buffers)


def _attach(name: str) -> Any:
    from multiprocessing import shared_memory

    try:  # Python >= 3.13: the creating process alone tracks (and in the end removes) the segment
        return shared_memory.SharedMemory(name=name, track=False)
    except TypeError:  # before 3.13 the worker registers it too, with the same resource tracker: harmless
        return shared_memory.SharedMemory(name=name)


def _aligned(size: int) -> int:
    return -(-size // _ALIGNMENT) * _ALIGNMENT


def _room_in_shared_memory(size: int) -> bool:
    """Whether the tmpfs behind shared memory has room for ``size`` bytes with headroom: a segment is sized
    without being filled, and writing past a full tmpfs (Docker's /dev/shm is 64 MB by default) kills the
    writer with SIGBUS instead of raising."""
    try:
        stats = os.statvfs("/dev/shm")
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize >= _SHARED_MEMORY_HEADROOM * size


def _reserve(segment: Any, size: int) -> None:
    """Allocate the segment's pages now (Linux), so that a tmpfs without room raises ENOSPC here instead of
    killing the process with SIGBUS on a later write. The descriptor is the segment's own (``_fd``, the
    POSIX implementation's); where there is none, the room was checked with :func:`_room_in_shared_memory`."""
    descriptor = getattr(segment, "_fd", -1)
    if descriptor >= 0 and hasattr(os, "posix_fallocate"):
        os.posix_fallocate(descriptor, 0, size)


@contextlib.contextmanager
def shared_pass(work: BlockWork) -> Iterator[BlockWork | SharedPass]:
    """The pass to hand to local workers: a :class:`SharedPass` while the block is open (its segment is
    removed on leaving), or ``work`` itself where shared memory is not available or has no room."""
    arrays: list[pickle.PickleBuffer] = []
    pickled = pickle.dumps(work, protocol=5, buffer_callback=arrays.append)
    views = [array.raw() for array in arrays]
    spans, size = [], 0
    for view in views:
        spans.append((size, view.nbytes))
        size = _aligned(size + view.nbytes)
    if not views or not _room_in_shared_memory(size):
        yield work
        return
    from multiprocessing import shared_memory

    try:
        segment = shared_memory.SharedMemory(create=True, size=size)
    except OSError:
        yield work
        return
    try:
        _reserve(segment, size)
    except OSError:  # the tmpfs filled up since it was checked
        segment.close()
        segment.unlink()
        yield work
        return
    try:
        for (offset, length), view in zip(spans, views):
            segment.buf[offset:offset + length] = view
        yield SharedPass(segment.name, pickled, tuple(spans))
    finally:
        segment.close()
        segment.unlink()


def _install(work: BlockWork | SharedPass) -> None:
    """Process-pool initializer: keep the pass's work for every task of this process."""
    global _INSTALLED
    _INSTALLED = work.load() if isinstance(work, SharedPass) else work
    _prepare_worker_once()


def _summarise_installed(chunk: Sequence[tuple[int, int]], k: int, threshold: float, depth: int) -> list[Summary]:
    return summarise_chunk(_INSTALLED, chunk, k, threshold, depth)


# What a worker needs to unpickle a pass's work and run its tasks (NumPy, SciPy, pandas behind the engine).
WORKER_MODULES = ("evalcore.engine", "evalcore.engine.executors")


def worker_context() -> multiprocessing.context.BaseContext:
    """The start method of the engine's local workers (:func:`~evalcore.processes.process_context`), whose fork
    server imports :data:`WORKER_MODULES` once.

    That import was serial without it: the pool starts its workers one after another, and each waits for the
    previous one to read its copy of the pass's work, which a worker does only after its imports.
    """
    return process_context(WORKER_MODULES)


def start_worker_server() -> None:
    """Start the fork server of local workers now, if it is not running (at most once per process).

    The call returns at once and the server imports :data:`WORKER_MODULES` in the background (about
    0.6 s), so that a caller who asks for workers has this overlap its own preparation of a pass (the
    engine's concept matrices and operands) instead of having the first worker wait for it.
    """
    if "forkserver" in multiprocessing.get_all_start_methods():
        from multiprocessing import forkserver

        worker_context()
        forkserver.ensure_running()


class LocalProcesses:
    """``workers`` processes on this machine (0 = one per core), started for each pass.

    Started by forkserver (spawn where there is none), never by a plain fork of a process that may run
    threads (the dashboard, Arrow); each process receives the pass's work once, through the initializer,
    its arrays copied out of one shared-memory segment (:func:`shared_pass`).
    The fork server itself starts with the executor (:func:`start_worker_server`).
    """

    def __init__(self, workers: int = 0):
        # (a pass starts up to one process per block: an absurd count would fork thousands, each holding the pass)
        self.workers = worker_count(workers, ", or use a Dask cluster (--scheduler) for more")
        start_worker_server()

    def __repr__(self) -> str:
        return f"LocalProcesses(workers={self.workers})"

    def rank(self, work: BlockWork, blocks: Blocks, k: int, threshold: float, depth: int,
             progress: Callable[[float], None] | None = None) -> list[Summary]:
        chunks = task_chunks(blocks, self.workers, work.pool_size)
        if not chunks:
            return []
        try:
            with shared_pass(work) as handed, ProcessPoolExecutor(
                    min(self.workers, len(chunks)), mp_context=worker_context(), initializer=_install,
                    initargs=(handed,)) as pool:
                futures = {pool.submit(_summarise_installed, chunk, k, threshold, depth): position
                           for position, chunk in enumerate(chunks)}
                return _collect(chunks, ((futures[f], f.result()) for f in as_completed(futures)), progress)
        except BrokenProcessPool as error:
            raise CBIRLensError(f"a worker process stopped before finishing its blocks ({error}); if memory ran out, "
                                "lower --memory-per-worker or --workers") from None


# --- a Dask distributed cluster -------------------------------------------------------------

SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
CONNECT_TIMEOUT = 10.0  # seconds to reach a scheduler, have it greet, and find a worker
# A Dask message starts with its length (8 bytes, native order, as distributed.comm.tcp writes it); the greeting a
# scheduler sends on every connection is some hundred bytes. A peer that is no scheduler (an HTTP or SSH server)
# sends text whose first 8 bytes read as exabytes, which distributed would try to allocate.
_LENGTH = struct.Struct("Q")
GREETING_LIMIT = 1 << 16
_ADDRESS = re.compile(r"(?:(?P<scheme>[a-z0-9]+)://)?(?P<host>\[[0-9a-fA-F:.%\w]+\]|[\w.-]+):(?P<port>\d{1,5})")


def scheduler_address(text: str) -> tuple[str, str, int]:
    """The scheme, host and port of a Dask scheduler's address, such as ``tcp://10.0.0.5:8786`` (the scheme
    defaults to tcp, as in Dask); checked without importing Dask.

    >>> scheduler_address("tcp://10.0.0.5:8786"), scheduler_address("[::1]:8786")
    (('tcp', '10.0.0.5', 8786), ('tcp', '::1', 8786))
    """
    address = text.strip()
    match = _ADDRESS.fullmatch(address)
    if match is None or not 0 < int(match["port"]) < 65536 or (match["scheme"] or "tcp") not in SCHEDULER_SCHEMES:
        raise ParameterError(f"{one_line(address)!r} is not a Dask scheduler's address; expected one like "
                             f"tcp://10.0.0.5:8786 (scheme {', '.join(SCHEDULER_SCHEMES)}; host; port 1-65535)")
    return match["scheme"] or "tcp", match["host"].strip("[]"), int(match["port"])


def _greet(address: str, host: str, port: int, timeout: float) -> None:
    """Check that a Dask scheduler greets at ``address`` before distributed connects to it.

    distributed awaits the greeting without a time limit (dask/distributed#8071), allocates whatever length the
    peer's first 8 bytes claim, and fails with its parser's own traceback on a greeting that is not one (a peer
    that sends a plausible length, then garbage). Here the connection and the greeting are awaited ``timeout``
    seconds each at most, at most :data:`GREETING_LIMIT` bytes are read, and the greeting must decode, as
    distributed decodes it, to the mapping of settings a scheduler sends as soon as it accepts a connection.
    """
    advice = "give the address `dask scheduler` prints, e.g. tcp://HOST:8786 (not the dashboard's port)"
    try:
        connection = socket.create_connection((host, port), timeout=timeout)
    except UnicodeError:  # the host name cannot be encoded for DNS (idna), e.g. a label over 63 characters
        raise CBIRLensError(f"could not reach the Dask scheduler at {address}: its host is not a valid host name "
                            f"(1 to 63 characters between dots); {advice}") from None
    except OSError as error:
        raise CBIRLensError(f"could not reach the Dask scheduler at {address} ({one_line(error.strerror or error)}); "
                            "start one with `dask scheduler` and workers with `dask worker ADDRESS` (docs/SCALE.md)"
                            ) from None
    with connection:
        try:
            header = _received(connection, _LENGTH.size)
            length = _LENGTH.unpack(header)[0] if len(header) == _LENGTH.size else 0
            body = _received(connection, length) if 0 < length <= GREETING_LIMIT else b""
        except TimeoutError:
            raise CBIRLensError(f"{address} sent no Dask greeting within {timeout:g} s: it is not a Dask scheduler "
                                f"(a web server waits for a request), or one too busy to answer; {advice}") from None
        except OSError:  # reset while greeting: no scheduler either
            body = b""
    if not _is_dask_greeting(body):
        raise CBIRLensError(f"{address} is not a Dask scheduler: it answered with something other than a Dask "
                            f"greeting; {advice}")


def _received(connection: socket.socket, size: int) -> bytes:
    """Up to ``size`` bytes from ``connection``, fewer only if the peer closes it first."""
    data = b""
    while len(data) < size and (part := connection.recv(min(size - len(data), GREETING_LIMIT))):
        data += part
    return data


def _is_dask_greeting(body: bytes) -> bool:
    """Whether ``body`` (a message without its length) is a Dask handshake: the frames distributed packs, the
    first a msgpack mapping with the settings distributed's client reads from it."""
    import msgpack
    from distributed.protocol.utils import unpack_frames

    try:
        frames = unpack_frames(body)
        greeting = msgpack.unpackb(frames[0], use_list=False) if frames else None
    except (struct.error, ValueError):  # msgpack's errors on malformed data are ValueErrors
        return False
    return isinstance(greeting, dict) and {"compression", "pickle-protocol"} <= greeting.keys()


def _check_transport(address: str, scheme: str) -> None:
    """Refuse, before distributed fails with a TypeError, a scheme this installation cannot connect by: ``tls``
    without Dask's TLS settings, ``ucx`` without ``distributed-ucxx``."""
    if scheme == "tls":
        from distributed.security import Security

        if Security().get_connection_args("client")["ssl_context"] is None:
            raise CBIRLensError(f"{address}: a tls:// scheduler needs Dask's TLS configuration (the certificate "
                                "authority, client certificate and key: distributed.comm.tls.ca-file, "
                                ".client.cert and .client.key in Dask's config, or DASK_DISTRIBUTED__COMM__TLS__"
                                "CA_FILE etc.); set them, or give the scheduler's tcp:// address (docs/SCALE.md)")
    if scheme == "ucx":
        import importlib.util

        if importlib.util.find_spec("distributed_ucxx") is None:
            raise CBIRLensError(f"{address}: a ucx:// scheduler needs `distributed-ucxx` installed on this machine "
                                "(pip install distributed-ucxx-cu12 or -cu13, or conda-forge's distributed-ucxx); "
                                "install it, or give the scheduler's tcp:// address")


def _check_cluster(client: Any, timeout: float) -> None:
    """Refuse a cluster that cannot run a pass, saying what to do: one whose scheduler or workers do not import this
    version of evalcore, or without workers (after waiting ``timeout`` seconds for one).

    Dask would otherwise fail on the first message that names evalcore, with its own deserialization traceback
    (the scheduler unpickles the task graph, the workers the pass's work and tasks). Each is asked for
    ``evalcore.__version__`` through :func:`pkgutil.resolve_name`, which they can unpickle without evalcore.
    """
    address = client.scheduler.address
    install = (f"install cbir-lens[scale] {__version__} (this client's version) on the scheduler and on every "
               "worker (docs/SCALE.md)")
    probe = "evalcore:__version__"
    try:
        version = client.run_on_scheduler(pkgutil.resolve_name, probe)
    except ImportError as error:
        raise CBIRLensError(f"the Dask scheduler at {address} cannot import evalcore ({one_line(error)}): {install}"
                            ) from None
    if version != __version__:
        raise CBIRLensError(f"the Dask scheduler at {address} has evalcore {version}, this client {__version__}: "
                            f"{install}")
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise CBIRLensError(f"the Dask scheduler at {address} has no workers after {timeout:g} s; start them with "
                            f"`dask worker {address}`") from None
    versions = client.run(pkgutil.resolve_name, probe, on_error="return")
    missing = sorted(worker for worker, version in versions.items() if isinstance(version, BaseException))
    if missing:
        raise CBIRLensError(f"the Dask workers at {listed(missing)} cannot import evalcore "
                            f"({one_line(versions[missing[0]])}): {install}")
    other = sorted(worker for worker, version in versions.items() if version != __version__)
    if other:
        found = ", ".join(sorted({versions[worker] for worker in other}))
        raise CBIRLensError(f"the Dask workers at {listed(other)} have evalcore {found}, this client {__version__}: "
                            f"{install}")


class DaskCluster:
    """The workers of a Dask distributed cluster: a ``distributed.Client``, or a scheduler's address
    (e.g. ``tcp://10.0.0.5:8786``), to which each pass then opens a client of its own and closes it.

    Every worker needs this version of ``evalcore`` installed (``pip install cbir-lens[scale]``); each pass
    first checks that (:func:`_check_cluster`). Reaching the scheduler, its greeting and its first worker are
    awaited ``timeout`` seconds each at most.
    """

    def __init__(self, client: Any, timeout: float = CONNECT_TIMEOUT):
        if isinstance(client, str):
            if not client.strip():
                raise ParameterError("the Dask scheduler address is empty; expected one like tcp://10.0.0.5:8786")
            scheduler_address(client)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout < math.inf:
            raise ParameterError(f"the Dask connection timeout must be a positive number of seconds, got {timeout!r}")
        self.client = client.strip() if isinstance(client, str) else client
        self.timeout = float(timeout)

    def __repr__(self) -> str:
        return f"DaskCluster({self.client!r})"

    @contextlib.contextmanager
    def _connected(self) -> Iterator[Any]:
        if not isinstance(self.client, str):
            _check_cluster(self.client, self.timeout)
            yield self.client
            return
        scheme, host, port = scheduler_address(self.client)
        if scheme == "tcp":  # the other schemes wrap their messages (TLS, WebSocket, UCX): distributed reads them
            _greet(self.client, host, port, self.timeout)
        _check_transport(self.client, scheme)
        from distributed import Client

        try:
            client = Client(self.client, timeout=self.timeout)
        except UnicodeError:  # idna, for a host name DNS cannot carry (wss, ws, tls: not greeted above)
            raise CBIRLensError(f"could not reach the Dask scheduler at {self.client}: its host is not a valid host "
                                "name (1 to 63 characters between dots)") from None
        except (OSError, TimeoutError) as error:
            raise CBIRLensError(f"could not reach the Dask scheduler at {self.client} ({one_line(error)}); start one "
                                "with `dask scheduler` and workers with `dask worker ADDRESS` (docs/SCALE.md)") from None
        except struct.error:  # distributed's frame parser, on a message garbled after a well-formed greeting
            raise CBIRLensError(f"{self.client} is not a Dask scheduler: it sent a message Dask cannot read; give the "
                                "address `dask scheduler` prints, e.g. tcp://HOST:8786") from None
        with client:
            _check_cluster(client, self.timeout)
            yield client

    def rank(self, work: BlockWork, blocks: Blocks, k: int, threshold: float, depth: int,
             progress: Callable[[float], None] | None = None) -> list[Summary]:
        from distributed import as_completed as completed

        with self._connected() as client:
            chunks = task_chunks(blocks, max(1, sum(client.nthreads().values())), work.pool_size)
            if not chunks:
                return []
            shared = client.scatter(work, broadcast=True, hash=False)
            futures = [client.submit(summarise_chunk, shared, chunk, k, threshold, depth, pure=False)
                       for chunk in chunks]
            try:
                position = {future.key: i for i, future in enumerate(futures)}
                return _collect(chunks, ((position[f.key], f.result()) for f in completed(futures)), progress)
            finally:
                client.cancel([shared, *futures])


_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}


def parse_size(text: str) -> int:
    """Bytes of a worker's memory budget written like ``2GB``, ``1.5 GiB``, ``512MB`` or ``4000000000``; at
    least :data:`MIN_MEMORY_PER_WORKER` (:func:`check_memory_per_worker`).

    >>> parse_size("2GB"), parse_size("1.5 GiB"), parse_size("1e3MB")
    (2000000000, 1610612736, 1000000000)
    """
    raw = str(text).strip().lower().replace(" ", "")
    number = raw.rstrip("kmgtib")
    unit = raw[len(number):]
    # Plain ASCII decimals only: float() would also read "1_000", other scripts' digits and inner line breaks.
    value = finite_decimal(number) if number == number.strip() else None
    if unit not in _UNITS or value is None or not 0 < value:
        raise ParameterError(f"expected a memory size such as 2GB, 512MB or 1.5GiB (above zero; units B, kB, MB, GB, "
                             f"TB, KiB, MiB, GiB, TiB), found {one_line(text)!r}")
    if value * _UNITS[unit] == math.inf:  # 1e308GB: a float that overflows once in bytes
        raise ParameterError(f"memory per worker {one_line(text)!r} is too large to count in bytes; write a size "
                             "such as 2GB or 512MB (default 2GiB)")
    return check_memory_per_worker(int(value * _UNITS[unit]))


def check_memory_per_worker(size: int, minimum: int = MIN_MEMORY_PER_WORKER) -> int:
    """``size``, a worker's memory budget in bytes, if it is a whole number of at least ``minimum`` bytes.

    >>> check_memory_per_worker(2 << 30)
    2147483648
    """
    if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < minimum:
        given = f"{size:,} bytes" if isinstance(size, numbers.Integral) and not isinstance(size, bool) else repr(size)
        raise ParameterError(f"memory per worker must be a whole number of bytes, at least {_size(minimum)}, got "
                             f"{given}; write a size such as 2GB or 512MB (default 2GiB)")
    return int(size)


def _size(size: int) -> str:
    """``size`` bytes in the largest binary unit that keeps a whole number (16 MiB, 1,000 B)."""
    for unit in ("TiB", "GiB", "MiB", "KiB"):
        if size % _UNITS[unit.lower()] == 0:
            return f"{size // _UNITS[unit.lower()]:,} {unit}"
    return f"{size:,} B"


def executor_for(workers: int | None = None, client: Any = None) -> BlockExecutor | None:
    """The backend named by the API's ``workers=`` / ``client=`` (at most one): None runs in-process.

    >>> executor_for() is None, executor_for(workers=3)
    (True, LocalProcesses(workers=3))
    """
    if workers is not None and client is not None:
        raise ParameterError("give workers= (local processes) or client= (a Dask cluster), not both")
    if client is not None:
        return client if hasattr(client, "rank") else DaskCluster(client)
    return LocalProcesses(workers) if workers is not None else None
