"""Where and how the engine's passes run, as one frozen option validated once when it is built.

:class:`Compute` is what a :class:`~evalcore.engine.pairwise.PairwiseEngine` receives in place of loose
executor, worker-memory, backend and thread settings: local processes or a Dask cluster
(:mod:`evalcore.engine.executors`), each worker's memory budget, the array backend, its device and device memory
(:mod:`evalcore.engine.array_backend`), code groups and in-process threads. The numbers do not depend on it
(docs/SCALE.md). The doors (the CLI, :func:`evalcore.evaluate`, the dashboard) build it from their loose settings;
:mod:`evalcore.evaluation.options` re-exports it beside the other option objects.
"""

from __future__ import annotations

import numbers
import os
from dataclasses import dataclass
from typing import Any

from evalcore.engine.array_backend import check_backend, open_backend
from evalcore.engine.executors import BlockExecutor, check_memory_per_worker, executor_for
from evalcore.errors import ParameterError

DEFAULT_MEMORY_PER_WORKER = 2 << 30
DEFAULT_THREADS = max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True)
class Compute:
    """Where the passes over the pool run; the numbers are the same wherever they run (docs/SCALE.md).

    ``workers``: local processes (0 = one per core), or ``client``: a ``distributed.Client`` or a Dask
    scheduler's address, or ``executor``: a ready :class:`~evalcore.engine.executors.BlockExecutor` (such as
    ``LocalProcesses(2)`` or ``DaskCluster(client)``); at most one of the three, none: in this process.
    ``memory_per_worker``: each worker's budget in bytes (at least 16 MiB); ``backend`` / ``device`` /
    ``device_memory``: the engine's array backend (:mod:`evalcore.engine.array_backend`), its device and the bytes
    it plans blocks with (None: the device's free memory); ``group_codes``: score each distinct pair code once
    per block (False: every pair, the plain path); ``threads``: blocks scored at once in this process. The
    worker count is checked against this machine's cores when the executor starts (:meth:`block_executor`).

    >>> Compute(backend="JAX", device="GPU").backend, Compute(backend="JAX", device="GPU").device
    ('jax', 'gpu')
    >>> Compute(workers=2, client="tcp://10.0.0.5:8786")
    Traceback (most recent call last):
    ...
    evalcore.errors.ParameterError: give workers= (local processes) or client= (a Dask cluster), not both
    """

    workers: int | None = None
    client: Any = None
    memory_per_worker: int = DEFAULT_MEMORY_PER_WORKER
    backend: str = "numpy"
    device: str | None = None
    group_codes: bool = True
    threads: int = DEFAULT_THREADS
    device_memory: int | None = None
    executor: BlockExecutor | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.group_codes, bool):
            raise ParameterError(f"group_codes must be True or False, got {self.group_codes!r}")
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) or self.threads < 1:
            raise ParameterError(f"threads must be a whole number >= 1, got {self.threads!r}")
        if self.workers is not None and self.client is not None:
            raise ParameterError("give workers= (local processes) or client= (a Dask cluster), not both")
        if self.executor is not None and (self.workers is not None or self.client is not None):
            raise ParameterError("give executor= (a ready executor) or workers= / client=, not both")
        if self.executor is not None and not callable(getattr(self.executor, "rank", None)):
            raise ParameterError(f"executor must be a BlockExecutor (with rank(work, blocks, ...)), got {self.executor!r}")
        backend, _ = check_backend(self.backend, self.device)
        object.__setattr__(self, "backend", backend)
        if self.device is not None:
            object.__setattr__(self, "device", str(self.device).strip().lower())
        memory = self.device_memory
        if memory is not None and (isinstance(memory, bool) or not isinstance(memory, numbers.Integral) or memory < 1):
            raise ParameterError(f"device_memory must be a positive number of bytes, got {memory!r}")
        check_memory_per_worker(self.memory_per_worker)

    def block_executor(self) -> BlockExecutor | None:
        """The block executor of these options (None: in this process); a Dask client connects here."""
        return self.executor if self.executor is not None else executor_for(self.workers, self.client)

    def array_backend(self) -> Any:
        """The ranker of the array backend (None for numpy), its library imported and its device found; raises
        :class:`~evalcore.errors.ParameterError` naming the fix where the library or the device is missing."""
        return open_backend(self.backend, self.device, self.device_memory)
