"""What the command line writes on stderr besides its outputs: a progress bar, error lines and notes."""

from __future__ import annotations

import math
import sys
import time
from typing import TYPE_CHECKING

from evalcore.errors import listed
from evalcore.metrics.registry import parse_metric
from evalcore.metrics.ties import tie_message

if TYPE_CHECKING:
    import pandas as pd


class ProgressBar:
    """A progress bar on stderr, drawn only once the work has lasted ``after`` seconds (short commands stay
    quiet), redrawn at most every ``every`` seconds; called with the fraction done (and a label)."""

    line_open = False  # a bar is drawn and its line not yet ended: an error message must start a line of its own

    def __init__(self, after: float = 2.0, every: float = 0.25, width: int = 30):
        self.started = time.perf_counter()
        self.after, self.every, self.width = after, every, width
        self.drawn_at: float | None = None

    def __call__(self, fraction: float, label: str = "") -> None:
        now = time.perf_counter()
        if now - self.started < self.after or (self.drawn_at is not None and now - self.drawn_at < self.every
                                                and fraction < 1):
            return
        filled = int(self.width * min(1.0, max(0.0, fraction)))
        print(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {fraction:4.0%} {now - self.started:6.1f} s {label[:60]}",
              end="", file=sys.stderr, flush=True)
        self.drawn_at = now
        ProgressBar.line_open = True

    def close(self) -> None:
        end_progress_line()


def end_progress_line() -> None:
    """End the line of a progress bar left drawn, so that what is printed next stands on a line of its own."""
    if ProgressBar.line_open:
        print(file=sys.stderr, flush=True)
        ProgressBar.line_open = False


def print_error(message: str) -> int:
    """Print an error as one line of its own on stderr; the exit status of a refused command."""
    end_progress_line()
    print(f"error: {message}", file=sys.stderr, flush=True)
    return 2


def print_note(message: str) -> None:
    print(f"note: {message}", file=sys.stderr)


def shown_number(value: float | None, spec: str = ".4f") -> str:
    """A number as the console prints it, by ``spec``, or "undefined" where it is none (NaN or None; the JSON's null):
    a mean no query scored, a p-value of no pair.

    >>> shown_number(0.123456), shown_number(float("nan")), shown_number(None, "+.4f")
    ('0.1235', 'undefined', 'undefined')
    """
    return "undefined" if value is None or math.isnan(value) else format(value, spec)


def print_unscored_notes(table: pd.DataFrame, remedy: str = "") -> None:
    """Notes on stderr naming the metrics that scored no query of any system (``table``: the results' table of
    system, metric, mean and queries), whose means are therefore undefined: for a metric graded by relevance no
    query had a relevant image (every concept set empty, judgments all 0), ``remedy`` saying what the command offers
    for it; for a label metric (P@K) no query had a label."""
    scored = table.groupby("metric", sort=False)["queries"].max()
    unscored = [metric for metric, queries in scored.items() if queries == 0]
    by_labels = [metric for metric in unscored if parse_metric(metric).target is not None]
    by_relevance = [metric for metric in unscored if metric not in by_labels]
    if by_relevance:
        print_note(f"{listed(by_relevance, 5)}: no query was scored, so the mean is undefined (no query has a relevant "
                   f"image){remedy}")
    if by_labels:
        print_note(f"{listed(by_labels, 5)}: no query was scored, so the mean is undefined (no query image has a label "
                   "of that kind; give labels that cover the images)")


def print_unknown_id_notes(counts: dict[str, dict[str, int]]) -> None:
    """One line on stderr per system whose run names images without a concept set: its queries are left out and its
    retrieved images count as not relevant (docs/DESIGN.md §3), which moves its scores; a mistyped or other
    collection's ID would otherwise show only in the JSON's counts. (Under --qrels, unjudged images are the rule, as
    in trec_eval, and get no note.)"""
    for system, found in counts.items():
        queries, retrieved = found.get("queries_unknown", 0), found.get("retrieved_unknown_ids", 0)
        said = ([f"{queries:,} of {found['queries_in_run']:,} queries have no concept set and are left out"]
                if queries and "retrieved_unknown_ids" in found else [])
        said += [f"{retrieved:,} retrieved image{'s have' if retrieved != 1 else ' has'} none and count"
                 f"{'' if retrieved != 1 else 's'} as not relevant"] if retrieved else []
        if said:
            print_note(f"system {system!r}: {'; '.join(said)} (the JSON's counts: queries_unknown, "
                       "retrieved_unknown_ids)")


def print_tie_notes(counts: dict[str, dict[str, int]], ties: str) -> None:
    """One line on stderr per system with tied scores (:func:`evalcore.metrics.ties.tie_message`)."""
    for system, found in counts.items():
        message = tie_message(system, found, ties)
        if message:
            print_note(message)
