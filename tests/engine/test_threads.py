"""The BLAS limit holds for every overlapping holder: the first holder to leave must not restore several threads
while another still computes (two dashboard sessions bootstrapping at once)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

import pytest
import threadpoolctl

from evalcore import threads
from evalcore.threads import blas_single_thread

T = TypeVar("T")


class RecordedLimits:
    """Stands in for threadpoolctl's limiter: records when the limit is set and restored."""

    events: list[str] = []

    def __init__(self, limits: int, user_api: str) -> None:
        self.events.append(f"set {limits} {user_api}")

    def restore_original_limits(self) -> None:
        self.events.append("restored")


class RecordedController:
    """Stands in for threadpoolctl's controller: its limits are :class:`RecordedLimits`; counts how often it is made."""

    made = 0

    def __init__(self) -> None:
        RecordedController.made += 1

    def limit(self, limits: int, user_api: str) -> RecordedLimits:
        return RecordedLimits(limits, user_api)


def recorded(monkeypatch) -> None:
    monkeypatch.setattr(threadpoolctl, "ThreadpoolController", RecordedController)
    monkeypatch.setattr(threads, "_controller", None)
    RecordedLimits.events, RecordedController.made = [], 0


def run_in_threads(*targets: Callable[[], None]) -> None:
    workers = [threading.Thread(target=target) for target in targets]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(10)


def in_second_of_overlapping_holders(look: Callable[[], T]) -> T:
    """``look()`` inside the second of two holders in two threads, once the first (which set the limit) has left."""
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[T] = []

    def first() -> None:
        with blas_single_thread():
            first_in.set()
            second_in.wait(5)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with blas_single_thread():
            second_in.set()
            first_out.wait(5)
            seen.append(look())

    run_in_threads(first, second)
    return seen[0]


def test_overlapping_holders_set_the_limit_once_and_restore_it_after_the_last(monkeypatch):
    recorded(monkeypatch)
    assert in_second_of_overlapping_holders(lambda: list(RecordedLimits.events)) == ["set 1 blas"]
    assert RecordedLimits.events == ["set 1 blas", "restored"]


def test_a_holder_that_raises_still_restores(monkeypatch):
    recorded(monkeypatch)
    try:
        with blas_single_thread():
            raise ValueError("inside")
    except ValueError:
        pass
    with blas_single_thread():
        pass
    assert RecordedLimits.events == ["set 1 blas", "restored", "set 1 blas", "restored"]


def test_the_libraries_are_scanned_again_only_after_an_import(monkeypatch):
    """The controller (a scan of the loaded libraries) is made once and again only once a module was imported since."""
    recorded(monkeypatch)
    for _ in range(3):
        with blas_single_thread():
            pass
    assert RecordedController.made == 1
    monkeypatch.setitem(sys.modules, "an_imported_module", threading)
    with blas_single_thread():
        pass
    assert RecordedController.made == 2
    assert RecordedLimits.events == ["set 1 blas", "restored"] * 4


def blas_threads() -> list[int]:
    return [info["num_threads"] for info in threadpoolctl.threadpool_info() if info["user_api"] == "blas"]


def test_the_real_limit_holds_in_any_thread_and_is_restored_by_any():
    """With the machine's BLAS: a thread other than the first to set the limit still gets one thread, and the last of
    overlapping holders restores the limit though another thread set it (threadpoolctl ignores a change of
    OpenBLAS's pool size from a thread other than the one that first made one)."""
    original = blas_threads()
    if not original or max(original) < 2:
        pytest.skip("BLAS runs one thread here: there is nothing to limit")
    with blas_single_thread():
        assert set(blas_threads()) == {1}
    seen: dict[str, list[int]] = {}

    def alone() -> None:
        with blas_single_thread():
            seen["another thread"] = blas_threads()

    run_in_threads(alone)
    assert set(seen["another thread"]) == {1}
    assert set(in_second_of_overlapping_holders(blas_threads)) == {1}
    assert blas_threads() == original
