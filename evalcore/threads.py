"""BLAS thread limits: the engine and the bootstrap parallelise over blocks themselves, and their results must not
depend on the BLAS thread count (a sum's floating-point order does)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


@contextlib.contextmanager
def blas_single_thread() -> Iterator[None]:
    """BLAS limited to one thread for the duration (the engine parallelises over blocks instead)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1, user_api="blas"):
        yield
