"""The BLAS limit holds for every overlapping holder: the first holder to leave must not restore several threads
while another still computes (two dashboard sessions bootstrapping at once)."""

from __future__ import annotations

import sys
import threading
import time

import pytest
import threadpoolctl

from evalcore import threads
from evalcore.threads import blas_single_thread


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


def test_overlapping_holders_set_the_limit_once_and_restore_it_after_the_last(monkeypatch):
    recorded(monkeypatch)
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, list[str]] = {}

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
            seen["while the second still computes"] = list(RecordedLimits.events)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen["while the second still computes"] == ["set 1 blas"]
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
    first_in, first_out = threading.Event(), threading.Event()

    def alone() -> None:
        with blas_single_thread():
            seen["another thread"] = blas_threads()

    def first() -> None:
        with blas_single_thread():
            first_in.set()
            time.sleep(0.05)
        first_out.set()

    def second() -> None:
        first_in.wait(5)
        with blas_single_thread():
            first_out.wait(5)
            seen["after the setting thread left"] = blas_threads()

    worker = threading.Thread(target=alone)
    worker.start()
    worker.join(10)
    overlapping = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in overlapping:
        thread.start()
    for thread in overlapping:
        thread.join(10)
    assert set(seen["another thread"]) == {1}
    assert set(seen["after the setting thread left"]) == {1}
    assert blas_threads() == original
