"""BLAS thread limits: the engine and the bootstrap parallelise over blocks themselves, and their results must not
depend on the BLAS thread count (a sum's floating-point order does)."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

# The limit is process-wide, so holders that overlap (two dashboard sessions bootstrapping at once) share one: the
# first sets it and the last restores it. Nested threadpool_limits would let the first holder to leave restore
# several threads while another still computes, and that one's last digits would then depend on timing.
_holders_lock = threading.Lock()
_holders = 0
_limits: Any = None
# threadpoolctl's view of the loaded libraries and how many modules were imported when it was made: making it scans
# every loaded library (3 ms, more under load, at each limit: several per alpha change in the dashboard), and only an
# import can load another BLAS.
_controller: tuple[int, Any] | None = None


@contextlib.contextmanager
def blas_single_thread() -> Iterator[None]:
    """BLAS limited to one thread until the last overlapping holder leaves (the engine parallelises over blocks
    instead)."""
    global _holders, _limits, _controller
    import threadpoolctl

    with _holders_lock:
        if _holders == 0:
            if _controller is None or _controller[0] != len(sys.modules):
                _controller = (len(sys.modules), threadpoolctl.ThreadpoolController())
            _limits = _from_any_thread(lambda: _controller[1].limit(limits=1, user_api="blas"))
        _holders += 1
    try:
        yield
    finally:
        with _holders_lock:
            _holders -= 1
            if _holders == 0:
                _from_any_thread(_limits.restore_original_limits)
                _limits = None


def _from_any_thread(change: Callable[[], Any]) -> Any:
    """``change()``, a change of BLAS limits, made so that it takes effect whichever thread makes it.

    threadpoolctl lets one thread only change OpenBLAS's process-wide pool size: the first to set it, until that
    thread clears it or ends; the others' changes are silently ignored. Here the holder that sets the limit and the
    one that restores it are often different threads (the leaderboard's significance tests run beside its
    bootstrap, which then ran on two threads and moved its intervals' last digits), so each change is made under
    ``_holders_lock`` as any thread may make it, and leaves no thread in control.
    """
    from threadpoolctl import OpenBLASController

    OpenBLASController.clear_controlling_thread(force=True)
    try:
        return change()
    finally:
        OpenBLASController.clear_controlling_thread(force=True)
