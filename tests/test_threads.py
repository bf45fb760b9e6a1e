"""The BLAS limit holds for every overlapping holder: the first holder to leave must not restore several threads
while another still computes (two dashboard sessions bootstrapping at once)."""

from __future__ import annotations

import sys
import threading

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
