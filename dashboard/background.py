"""Work that depends only on the data, done once per data and off the user's path.

When a session's data or settings change, :func:`prepare_leaderboard` queues what the Leaderboard will ask for: the
steps of :func:`dashboard.computed.evaluation_steps` (the engine, the baselines' rankings, the passes over the pool,
the scores), then the intervals and the tests of the metric in focus, then the dictionary the explanations read
captions with. After a Leaderboard draw, :func:`prepare_neighbours` queues the same for the alpha values one step
either side of the slider's. One worker thread for the server runs the queued jobs in turn. Each step goes through
the same server-wide stores as the pages, keyed by the content of what it reads (:mod:`dashboard.caching`), so a
page asking for a result under way waits for that computation, its bar moving with it, and nothing is computed
twice. What is prepared is bounded by those stores: results by :data:`dashboard.caching.SERVER_KEPT_BYTES`, the
pool rankings by :data:`evalcore.evaluation.evaluator.KEPT_RANKING_BYTES` per evaluator.
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable

import pandas as pd
import streamlit as st

from dashboard.caching import key_of, server_foreground
from dashboard.computed import (
    LeaderboardView,
    Step,
    ablation_grid,
    caption_dictionary_of,
    engine_evaluator,
    evaluation_steps,
    keep_prepared,
    measure_comparison,
    metric_names_for,
    shown_evaluation,
    summary_of,
)
from dashboard.session import audience
from dashboard.sidebar import MAX_HOPS, Settings, controls
from dashboard.ui import choice_for_dataset
from dashboard.wording import say
from evalcore.app.baselines import (
    Baseline,
    available_baselines,
    comparison_baselines,
    default_baselines,
    setting_read,
)
from evalcore.app.scores import Scores
from evalcore.app.sweeps import grid_metrics, grid_options
from evalcore.app.workspace import Workspace
from evalcore.evaluation.options import DEFAULT_CUTOFFS, Relevance
from evalcore.io.tables import focus_metric
from evalcore.studies.ablation import grids_alpha_and_n
from evalcore.studies.measure_comparison import comparison_measures

LOG = logging.getLogger(__name__)
#: The environment variable that turns the background preparation off ("0"): the pages then compute all they show
#: when they are opened (the same numbers). The test suite sets it, but for the tests of this module.
PREPARE_VARIABLE = "CBIR_LENS_PREPARE"
#: Jobs remembered for the Data page's note (the oldest forgotten first; their results stay in the stores).
REMEMBERED_JOBS = 64
#: The session state key of a session's token, by which the background knows which data the session shows.
SESSION_KEY = "preparation_session"
#: The alpha slider's step: the values prepared beside the slider's are one step either side.
NEIGHBOUR_STEP = 0.1
#: Seconds after a session's script run before a step for a slider's next setting or another page starts (the
#: browser draws meanwhile, :meth:`dashboard.caching.Foreground.wait_until_drawn`); a step for the settings on
#: screen starts as soon as no page computes.
DRAWING_SECONDS = 2.0


class Job:
    """Steps run in turn by the background worker, with what the Data page says of them."""

    def __init__(self, title: str, steps: list[Step], still_wanted: Callable[[], bool] = lambda: True) -> None:
        self.reader = audience()  # its texts are in this reader's words
        self.title = title
        self.steps = steps
        self.still_wanted = still_wanted
        self.done = 0
        self.current = ""
        self.error: str | None = None
        self.skipped = False
        self.seconds: float | None = None
        self.finished = threading.Event()
        self.priority = CURRENT  # set when queued

    def run(self, urgent_waiting: Callable[[], bool], run_urgent: Callable[[], None]) -> None:
        """Run the steps in turn; a job for later, waiting for the browser before a step, calls ``run_urgent`` as
        soon as ``urgent_waiting()`` says a job for the settings on screen is queued."""
        started = time.monotonic()
        foreground = server_foreground()
        try:
            for text, work in self.steps:
                if self.priority == CURRENT:
                    foreground.wait_until_quiet()
                else:
                    # the settings on screen go first, also when they are asked for while this job waits
                    while not foreground.wait_until_drawn(DRAWING_SECONDS, urgent_waiting):
                        run_urgent()
                if not self.still_wanted():  # newer settings or data were asked for since this job was queued
                    self.skipped = True
                    return
                self.current = text
                # A report callback makes the stores relay this step's progress to the pages waiting for it; at
                # each report the step yields to a page computing meanwhile (a pass pauses between its blocks).
                work(lambda fraction: foreground.pause_while_busy())
                self.done += 1
        except Exception as error:  # noqa: BLE001 - a page asking for the same result meets the error and says it
            self.error = f"{type(error).__name__}: {error}"
            LOG.info("background preparation %r stopped: %s", self.title, self.error)
        finally:
            self.seconds = time.monotonic() - started
            self.finished.set()

    def note(self) -> str:
        """One line on where the job stands."""
        if self.error is not None:
            return f"{self.title}: stopped; the page computes it when opened."
        if self.skipped:
            return f"{self.title}: not needed any more (the settings moved on)."
        if self.finished.is_set():
            return f"{self.title}: ready ({self.seconds:.1f} s)."
        if self.done == 0 and not self.current:
            return f"{self.title}: waiting for its turn."
        return f"{self.title}: step {self.done + 1} of {len(self.steps)} ({self.current})."


#: Job priorities, most urgent first: what the reader's settings show, the next slider step, other pages.
CURRENT, NEIGHBOURS, OTHER_PAGES = 0, 1, 2


class Background:
    """The server's one worker thread and the jobs given to it, by key (a job asked for twice runs once), the most
    urgent first (:data:`CURRENT`, :data:`NEIGHBOURS`, :data:`OTHER_PAGES`), in the order given within a priority."""

    def __init__(self) -> None:
        self._queue: queue.PriorityQueue[tuple[int, int, Job]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._by_workspace: dict[str, list[str]] = {}
        # Per workspace, the latest setting whose neighbours were asked for: queued neighbours of older ones skip.
        self._latest_neighbours: dict[str, str] = {}
        # Per session (the most recent ones), the workspace it shows now.
        self._session_workspaces: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        threading.Thread(target=self._work, name="cbir-lens-prepare", daemon=True).start()

    def _work(self) -> None:
        server_foreground().background_threads.add(threading.get_ident())
        while True:
            _, _, job = self._queue.get()
            job.run(self._urgent_waiting, self._run_urgent)

    def want_workspace(self, session: str, workspace_digest: str) -> Callable[[], bool]:
        """Record ``workspace_digest`` as the data ``session`` shows now; the returned test holds while it does (the
        jobs it queued on other data skip the steps they have not started: a reader who loads a folder does not wait
        for the demo's Ablation grid)."""
        with self._lock:
            self._session_workspaces[session] = workspace_digest
            while len(self._session_workspaces) > REMEMBERED_JOBS:
                self._session_workspaces.popitem(last=False)
        return lambda: self._session_workspaces.get(session, workspace_digest) == workspace_digest

    def want_neighbours_of(self, workspace_digest: str, setting: str) -> Callable[[], bool]:
        """Record ``setting`` as the latest whose neighbours ``workspace_digest`` wants; the returned test holds while
        it stays the latest."""
        with self._lock:
            self._latest_neighbours[workspace_digest] = setting
        return lambda: self._latest_neighbours.get(workspace_digest) == setting

    def submit(self, key: str, workspace_digest: str, priority: int, job_of: Callable[[], Job]) -> Job:
        """The job under ``key``, made by ``job_of()`` and queued at ``priority`` when there is none, or when the one
        there ended without its results (skipped as no longer wanted, or stopped by an error)."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and not (job.finished.is_set() and (job.skipped or job.error is not None)):
                self._jobs.move_to_end(key)
                return job
            job = self._jobs[key] = job_of()
            job.priority = priority
            keys = self._by_workspace.setdefault(workspace_digest, [])
            keys[:] = [known for known in keys if known in self._jobs and known != key] + [key]
            while len(self._jobs) > REMEMBERED_JOBS:
                self._jobs.popitem(last=False)
        self._queue.put((priority, next(self._order), job))
        if priority == CURRENT:
            server_foreground().nudge()  # a job for later waiting to start a step lets this one go first
        return job

    def _urgent_waiting(self) -> bool:
        """Whether a job for the settings on screen is queued (the queue's first item is the most urgent)."""
        with self._queue.mutex:
            return bool(self._queue.queue) and self._queue.queue[0][0] == CURRENT

    def _run_urgent(self) -> None:
        """Run the queued jobs for the settings on screen, from the worker thread (a job for later calls it between
        its steps: they never wait for the browser, so none of them calls it in turn)."""
        while self._urgent_waiting():
            _, _, job = self._queue.get()
            job.run(self._urgent_waiting, self._run_urgent)

    def jobs_of(self, workspace_digest: str) -> list[Job]:
        """The remembered jobs on one workspace, oldest first."""
        with self._lock:
            return [self._jobs[key] for key in self._by_workspace.get(workspace_digest, ()) if key in self._jobs]


@st.cache_resource(show_spinner=False)
def server_background() -> Background:
    """The server's background worker (one thread: the pages' own work keeps the other core)."""
    return Background()


def preparing() -> bool:
    """Whether this server prepares work in the background (:data:`PREPARE_VARIABLE`)."""
    return os.environ.get(PREPARE_VARIABLE, "1").strip() != "0"


def leaderboard_systems(ws: Workspace) -> tuple[tuple[str, ...], tuple[Baseline, ...]]:
    """The runs and baselines the Leaderboard will show this session: every loaded run, and the baselines chosen on
    these concept sets (the page's own rule, :func:`dashboard.ui.keep_default_for_dataset`), else the defaults."""
    options = available_baselines(ws)
    chosen = choice_for_dataset("baselines", ws, default_baselines(ws))
    return tuple(ws.runs), tuple(b for b in chosen if b in options)


def session_view() -> LeaderboardView:
    """What this session's Leaderboard draws first: its chosen group, family and metric in focus (their defaults
    where none is chosen yet)."""
    return LeaderboardView(*(st.session_state.get(key) for key in ("leaderboard_group", "leaderboard_family",
                                                                   "focus_metric")))


def _leaderboard_job(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...], settings: Settings,
                     view: LeaderboardView, title: str, still_wanted: Callable[[], bool] = lambda: True,
                     explanations: bool = False) -> Job:
    steps = evaluation_steps(ws, run_names, baselines, settings, view)

    def shown() -> Scores:
        return shown_evaluation(ws, run_names, baselines, settings, view)

    steps.append((say("means_step"), lambda _: summary_of(shown())))
    if len(run_names) + len(baselines) >= 2:
        steps.append((say("tests_step"), lambda _: _focus_tests(shown(), view)))
    # A saved workspace keeps these results with its link, so that opening it computes none of them again.
    steps.append((say("kept_step"), lambda _: keep_prepared(ws, settings)))
    if explanations:
        steps.append((say("caption_names_step"), lambda _: caption_dictionary_of(ws)))
    return Job(title, steps, still_wanted)


def _warm_up() -> None:
    """What a server does once, the first time a page draws a styled table: import pandas' Styler and compile its
    templates (0.4-0.9 s of the first Leaderboard's draw on 2 cores)."""
    pd.DataFrame({"mean": [0.5]}).style.format("{:.4f}").to_html()


def _focus_tests(result: Scores, view: LeaderboardView) -> None:
    result.comparisons(focus_metric(result.metrics, view.focus))


def prepare_pages(ws: Workspace, settings: Settings) -> None:
    """Queue what the pages read of ``ws`` at ``settings``: the Leaderboard's work and the explanations' dictionary
    first, then, for a researcher, the Ablation page's grid and Choose a measure's comparison as they open; each
    once per server for the same data, systems and settings (nothing without concept sets)."""
    if not preparing():
        return
    server_background().submit("warm-up", "", CURRENT, lambda: Job("The table renderer", [
        ("Loading the table renderer", lambda _: _warm_up())]))
    session = st.session_state.setdefault(SESSION_KEY, secrets.token_hex(8))
    still_shown = server_background().want_workspace(session, ws.digest)
    if ws.concepts is None:
        return
    run_names, baselines = leaderboard_systems(ws)
    # The audience is in the key: a job's texts are in its reader's words (its results are shared all the same).
    if run_names or baselines:
        view = session_view()
        server_background().submit(
            key_of("leaderboard", ws, run_names, baselines, settings, view, audience()), ws.digest, CURRENT,
            lambda: _leaderboard_job(ws, run_names, baselines, settings, view, say("leaderboard_job"),
                                     still_wanted=still_shown, explanations=True))
    if audience() != "researcher":  # a clinician's navigation holds neither the Ablation page nor Choose a measure
        return
    if grids_alpha_and_n(settings.measure):
        options = grid_options(settings.options(), isolated=False)
        server_background().submit(key_of("ablation", ws, options, settings.kg_mode), ws.digest, OTHER_PAGES,
                                   lambda: Job("Ablation page: the alpha x n grid", [
                                       ("The alpha x n grid (a pass over the pool per setting)",
                                        lambda report: _opening_grid(ws, options, settings.kg_mode, report))],
                                       still_shown))
    _prepare_comparison(ws, settings, still_shown)


def _prepare_comparison(ws: Workspace, settings: Settings, still_shown: Callable[[], bool]) -> None:
    """Queue the comparison Choose a measure opens on (its default measures and baselines), as the page asks for it."""
    baselines = tuple(comparison_baselines(ws))
    arguments = (ws, tuple(comparison_measures(settings.measure)), baselines,
                 setting_read(baselines, settings.relevance), settings.kg_mode, max(settings.ks))
    server_background().submit(key_of("measures", *arguments), ws.digest, OTHER_PAGES, lambda: Job(
        "Choose a measure: the comparison of the measures", [
            ("A pass over the pool per measure, then the systems judged under each",
             lambda report: _coding_for_later(ws, settings.kg_mode, lambda: measure_comparison(
                 *arguments, progress=lambda fraction, _text: report(fraction))))],
        still_shown))


def _coding_for_later(ws: Workspace, mode: str, work: Callable[[], object]) -> None:
    """``work()`` (another page's, prepared before it is opened) with the engine coding the pool for later
    (:meth:`~evalcore.engine.pairwise.PairwiseEngine.coding_for_later`): the codes it keeps stay within their own
    bound and go first, so the server's memory stays bounded and the settings on screen keep theirs."""
    with engine_evaluator(ws, mode).engine.coding_for_later():
        work()


def _opening_grid(ws: Workspace, options: Relevance, mode: str, report: Callable[[float, str], None]) -> None:
    """The grid the Ablation page opens on (:func:`evalcore.app.sweeps.grid_metrics`, the loaded runs included,
    every query)."""
    names = metric_names_for(engine_evaluator(ws, mode), DEFAULT_CUTOFFS)
    _coding_for_later(ws, mode, lambda: ablation_grid(ws, tuple(grid_metrics(names, bool(ws.runs))), bool(ws.runs),
                                                      False, options, mode,
                                                      progress=lambda fraction, _text: report(fraction)))


def neighbour_settings(alpha: float, hops: int) -> list[tuple[float, int]]:
    """The slider settings one step beside (``alpha``, ``hops``), the cheapest first: alpha one step up and down (a
    re-ranking of codes already grouped; at n = 0 alpha changes nothing), then n one up and down (a new pass over
    the pool), each within the sliders' ranges.

    >>> neighbour_settings(0.5, 1)
    [(0.6, 1), (0.4, 1), (0.5, 2), (0.5, 0)]
    >>> neighbour_settings(1.0, 0), neighbour_settings(0.0, 3)
    ([(1.0, 1)], [(0.1, 3), (0.0, 2)])
    """
    alphas = [round(alpha + step, 1) for step in (NEIGHBOUR_STEP, -NEIGHBOUR_STEP)] if hops else []
    return ([(value, hops) for value in alphas if 0.0 <= value <= 1.0]
            + [(alpha, value) for value in (hops + 1, hops - 1) if 0 <= value <= MAX_HOPS])


def prepare_neighbours(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...],
                       settings: Settings, view: LeaderboardView) -> None:
    """Queue the Leaderboard's work at the slider settings beside the sidebar's (:func:`neighbour_settings`, the
    rest of the sidebar as it is), so that the next slider step finds it done. A later call on the same workspace
    makes the jobs this call queued skip the steps they have not started."""
    if not preparing():
        return
    still_wanted = server_background().want_neighbours_of(
        ws.digest, key_of("neighbours", run_names, baselines, settings, view))
    for alpha, hops in neighbour_settings(settings.alpha, settings.n):
        beside = controls(alpha, hops)
        key = key_of("leaderboard", ws, run_names, baselines, beside, view, audience())
        title = say("alpha_beside_job", alpha=alpha) if hops == settings.n else say("hops_beside_job", hops=hops)
        server_background().submit(key, ws.digest, NEIGHBOURS, lambda beside=beside, title=title: _leaderboard_job(
            ws, run_names, baselines, beside, view, title, still_wanted=still_wanted))


def preparation_notes(ws: Workspace) -> list[str]:
    """A line per job prepared on ``ws`` for the Data page, the most urgent first (the current settings' before the
    slider's next steps), the newest first within each; of jobs with the same title (the current settings' before
    and after the reader chose a metric group) the newest."""
    reader = audience()
    newest = {job.title: job for job in server_background().jobs_of(ws.digest) if job.reader == reader}
    jobs = sorted(reversed(newest.values()), key=lambda job: job.priority)  # stable: newest first within a priority
    return [job.note() for job in jobs]
