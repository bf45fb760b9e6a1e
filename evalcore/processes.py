"""Local worker processes: how many cores this process may use and how a worker is started, for every layer that
reads its work on several processes (the engine's passes, extraction's captions).

A worker is started by forkserver, never by a plain fork of a process that may run threads (the dashboard, Arrow):
the server imports the modules its workers need once, and each worker is forked from it (spawn where there is no
forkserver).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Sequence

from evalcore.errors import ParameterError

#: Local workers allowed per core: more only costs memory (a worker keeps one core busy).
WORKERS_PER_CORE = 4


def usable_cores() -> int:
    """The cores this process may run on (its affinity, e.g. a container's or a SLURM job's share), else all."""
    with contextlib.suppress(AttributeError):  # no sched_getaffinity (macOS, Windows)
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def worker_count(workers: int, beyond: str = "") -> int:
    """How many local workers ``workers`` asks for (0 = one per core), refused where it is no whole number >= 0 or
    more than :data:`WORKERS_PER_CORE` per core: each worker holds a copy of its work, for no speed (one keeps a
    core busy); ``beyond`` says where more can be had (", or use a Dask cluster (--scheduler) for more")."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise ParameterError(f"workers must be a whole number >= 0 (0 = one per core), got {workers!r}")
    cores = usable_cores()
    if workers > WORKERS_PER_CORE * cores:
        raise ParameterError(f"{workers:,} local workers is more than {WORKERS_PER_CORE} per core ({cores} cores here, "
                             f"so at most {WORKERS_PER_CORE * cores}); give 0 for one per core{beyond}")
    return workers or cores


def process_context(preload: Sequence[str]) -> multiprocessing.context.BaseContext:
    """The start method of local workers: forkserver, whose server imports ``preload`` once.

    A worker is then forked from a process that has them, instead of importing them itself (about 0.6 s of CPU each
    on the 2-core machine). The modules are added to the server's preload list (whose default, ``__main__``, is
    kept); the list takes effect when the server starts, once per process. Where there is no forkserver, spawn
    (each worker imports what it needs).
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    from multiprocessing import forkserver

    context = multiprocessing.get_context("forkserver")
    # The private list is read only to keep what a caller set; without it, the default.
    listed = list(getattr(forkserver._forkserver, "_preload_modules", None) or ["__main__"])
    context.set_forkserver_preload(listed + [name for name in preload if name not in listed])
    return context
