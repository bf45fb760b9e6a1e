"""Work prepared in the background (dashboard/background.py): it runs once per data and settings, waits while a page
computes, skips what is no longer wanted, leaves its results where the pages read them, and gives the numbers the
pages compute themselves."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from dashboard import background
from dashboard.background import Background, Job, neighbour_settings
from dashboard.caching import server_foreground
from dashboard.computed import LeaderboardView, evaluation, leaderboard_metric_names
from dashboard.sidebar import DEFAULTS, Settings
from evalcore.app.sweeps import ablation_grid, grid_options
from evalcore.app.workspace import load_demo
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import DEFAULT_ALPHA, DEFAULT_HOPS, Relevance
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import measure_spec
from tests.conftest import open_page

WAIT = 60  # seconds a test waits for a background job (the demo's take well under one)


def test_a_job_runs_its_steps_in_order_once_per_key():
    worker, ran = Background(), []
    first = worker.submit("k", "ws", background.CURRENT, lambda: Job("t", [("a", lambda _: ran.append("a")),
                                                                          ("b", lambda _: ran.append("b"))]))
    again = worker.submit("k", "ws", background.CURRENT, lambda: Job("t", [("c", lambda _: ran.append("c"))]))
    assert again is first
    assert first.finished.wait(WAIT)
    assert ran == ["a", "b"] and first.done == 2 and first.note().startswith("t: ready")
    assert worker.jobs_of("ws") == [first] and worker.jobs_of("other") == []


def test_a_job_waits_while_a_page_computes():
    worker, started = Background(), threading.Event()
    with server_foreground().working():
        job = worker.submit("waits", "ws", background.CURRENT, lambda: Job("t", [("a", lambda _: started.set())]))
        assert not started.wait(0.5), "a background step started while a page was computing"
    assert started.wait(WAIT) and job.finished.wait(WAIT)


def test_work_for_later_waits_until_the_browser_has_drawn_but_the_settings_on_screen_do_not(monkeypatch):
    """A step for a slider's next setting or another page starts only once no session's script runs and the last
    ended DRAWING_SECONDS ago (the browser lays out what it sent meanwhile); the current settings' step only waits
    for no page computing."""
    import time

    monkeypatch.setattr(background, "DRAWING_SECONDS", 0.3)
    worker, started = Background(), {}
    with server_foreground().script_running():
        for key, priority in (("beside", background.NEIGHBOURS), ("current", background.CURRENT)):
            worker.submit(key, "ws", priority, lambda key=key: Job(key, [(key, lambda _, key=key: started.setdefault(
                key, time.monotonic()))]))
            # (the worker has most likely taken the job for later and waits with it: the current one still goes
            # first, as it does when both were queued before the worker looked)
            time.sleep(0.2)
        assert all(job.finished.wait(WAIT) for job in worker.jobs_of("ws")[1:])
        assert "current" in started and "beside" not in started, "a step for later started while a script ran"
        ended = time.monotonic()
    assert all(job.finished.wait(WAIT) for job in worker.jobs_of("ws"))
    assert started["beside"] >= ended + 0.3


def test_a_step_pauses_at_its_reports_while_a_page_computes_but_not_while_a_page_waits_for_it():
    """A long step (a pass of many blocks) yields to a page between two reports; a page that waits for a result under
    way (maybe this very step's) lets it go on, and what the step itself computes behind a bar never pauses it."""
    from evalcore.kept import InFlight

    worker, reports, gate, resumed = Background(), [], threading.Event(), threading.Event()

    def step(report):
        report(0.1)
        reports.append("first")
        gate.wait(WAIT)
        with server_foreground().working():  # the step's own bar (a measure comparison draws one)
            report(0.5)
        reports.append("second")
        report(0.9)
        resumed.set()

    job = worker.submit("pauses", "ws", background.CURRENT, lambda: Job("t", [("a", step)]))
    while not reports:
        threading.Event().wait(0.01)
    with server_foreground().working():
        gate.set()
        assert not resumed.wait(0.5), "a background step went on past a report while a page was computing"
        flights, computing, waiting = InFlight(), threading.Event(), threading.Event()
        holder = threading.Thread(target=flights.run, args=("k", lambda: None, lambda _: (computing.set(),
                                                                                       waiting.wait(WAIT), 1)[2]))
        holder.start()
        assert computing.wait(WAIT)
        waiter = threading.Thread(target=flights.run, args=("k", lambda: 1 if waiting.is_set() else None,
                                                           lambda _: 1))
        waiter.start()  # a page waiting for a result under way: the background goes on
        assert resumed.wait(WAIT)
        waiting.set()
        holder.join(WAIT)
        waiter.join(WAIT)
    assert job.finished.wait(WAIT) and reports == ["first", "second"]


def test_jobs_on_data_the_session_left_skip_their_remaining_steps():
    worker, ran, gate = Background(), [], threading.Event()
    on_demo = worker.want_workspace("session", "demo")
    job = worker.submit("grid", "demo", background.OTHER_PAGES, lambda: Job("grid", [
        ("a", lambda _: (ran.append("a"), gate.wait(WAIT))), ("b", lambda _: ran.append("b"))], on_demo))
    while not ran:
        threading.Event().wait(0.01)
    still_on_folder = worker.want_workspace("session", "folder")  # the reader loads a folder meanwhile
    gate.set()
    assert job.finished.wait(WAIT) and job.skipped and ran == ["a"]
    assert still_on_folder() and not on_demo()
    assert worker.want_workspace("another session", "demo")() and not on_demo()


def test_the_most_urgent_queued_job_runs_first():
    worker, order, gate = Background(), [], threading.Event()
    # The first job holds the worker, so the three after it are queued together.
    worker.submit("hold", "ws", background.CURRENT, lambda: Job("hold", [("wait", lambda _: gate.wait(WAIT))]))
    for key, priority in (("other", background.OTHER_PAGES), ("beside", background.NEIGHBOURS),
                          ("current", background.CURRENT)):
        worker.submit(key, "ws", priority, lambda key=key: Job(key, [(key, lambda _, key=key: order.append(key))]))
    gate.set()
    assert worker.jobs_of("ws")[-1].finished.wait(WAIT) and all(j.finished.wait(WAIT) for j in worker.jobs_of("ws"))
    assert order == ["current", "beside", "other"]


def test_a_job_no_longer_wanted_skips_its_steps_and_a_failed_one_says_so():
    worker, ran = Background(), []
    wanted = worker.want_neighbours_of("ws", "setting 1")
    worker.want_neighbours_of("ws", "setting 2")  # a later slider step: the jobs of setting 1 are not needed
    skipped = worker.submit("old", "ws", background.NEIGHBOURS,
                            lambda: Job("old", [("a", lambda _: ran.append("a"))], still_wanted=wanted))

    def fails(_):
        raise ValueError("boom")

    failed = worker.submit("fails", "ws", background.CURRENT, lambda: Job("fails", [("a", fails)]))
    after = worker.submit("after", "ws", background.CURRENT, lambda: Job("after", [("b", lambda _: ran.append("b"))]))
    assert all(job.finished.wait(WAIT) for job in (skipped, failed, after))
    assert ran == ["b"] and skipped.skipped and "not needed" in skipped.note()
    assert failed.error is not None and "stopped" in failed.note() and "boom" not in failed.note()
    # Asked for again, a job that ended without its results runs again.
    again = worker.submit("old", "ws", background.NEIGHBOURS, lambda: Job("old", [("a", lambda _: ran.append("a"))]))
    assert again is not skipped and again.finished.wait(WAIT) and ran == ["b", "a"]


def test_the_neighbours_are_one_slider_step_away_within_the_ranges():
    for alpha in [round(0.1 * step, 1) for step in range(11)]:
        for hops in range(4):
            for moved_alpha, moved_hops in neighbour_settings(alpha, hops):
                assert 0.0 <= moved_alpha <= 1.0 and 0 <= moved_hops <= 3
                assert round(abs(moved_alpha - alpha), 10) + abs(moved_hops - hops) in (0.1, 1)
                assert moved_alpha == alpha or hops > 0  # at n = 0 alpha changes nothing


@pytest.mark.slow
def test_the_grid_reads_the_slider_only_for_the_isolated_subset():
    ws = load_demo()
    kg = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
    evaluator = Evaluator(ws.concepts, kg, "undirected", ws.resolved_labels())
    runs = [run for _, run in ws.runs.values()]
    at = {alpha: grid_options(Relevance(measure_spec("nn-iou", alpha=alpha, n=2)), isolated=False)
          for alpha in (0.2, 0.8)}
    assert at[0.2] == at[0.8]
    direct = ablation_grid(evaluator, runs, ["nn-CUI@10"], False, Relevance(measure_spec("nn-iou", alpha=0.8, n=2)))
    pd.testing.assert_frame_equal(ablation_grid(evaluator, runs, ["nn-CUI@10"], False, at[0.8]), direct)


def sidebar_settings(alpha: float, hops: int) -> Settings:
    """The sidebar's settings at its defaults but for the sliders (nn-IoU chosen, as the sidebar opens)."""
    nn_iou = measure_spec("nn-iou", alpha=alpha, n=hops)
    return Settings(nn_iou, nn_iou, DEFAULTS["kg_mode"], tuple(sorted(DEFAULTS["ks"])), DEFAULTS["gain"])


@pytest.fixture
def preparing(monkeypatch):
    """The background preparation on, and its jobs on the demo ended before the next test starts."""
    monkeypatch.setenv(background.PREPARE_VARIABLE, "1")
    yield
    assert all(job.finished.wait(WAIT) for job in background.server_background().jobs_of(load_demo().digest))


@pytest.mark.slow
def test_a_server_told_not_to_prepare_queues_nothing(monkeypatch):
    monkeypatch.setenv(background.PREPARE_VARIABLE, "0")
    digest = load_demo().digest
    before = background.server_background().jobs_of(digest)
    app = open_page("pages/leaderboard.py", audience="Researcher", alpha=0.3)
    assert app.session_state["workspace"].digest == digest
    assert background.server_background().jobs_of(digest) == before


@pytest.mark.slow
@pytest.mark.parametrize("reader", ["Researcher", "Clinician"])
def test_the_leaderboard_prepared_in_the_background_is_the_one_drawn(reader, preparing):
    """On the demo: opening the app queues the Leaderboard's work; once done, the page draws its results, and its
    first draw queues the slider's next steps, whose results an alpha or n step then reads back instead of computing
    them. The Data page says what was prepared, in the reader's words."""
    app = open_page(audience=reader)
    ws = app.session_state["workspace"]
    jobs = background.server_background().jobs_of(ws.digest)
    assert jobs and all(job.finished.wait(WAIT) for job in jobs)
    assert not [job.error for job in jobs if job.error]
    run_names, baselines = background.leaderboard_systems(ws)

    def prepared(settings: Settings) -> bool:
        shown = LeaderboardView().shown(leaderboard_metric_names(ws, settings))
        return evaluation.kept(ws, run_names, baselines, settings, shown) is not None

    assert prepared(sidebar_settings(DEFAULT_ALPHA, DEFAULT_HOPS))
    app.switch_page("pages/leaderboard.py")
    app.run()
    assert not app.exception, app.exception
    assert all(job.finished.wait(WAIT) for job in background.server_background().jobs_of(ws.digest))
    for alpha, hops in neighbour_settings(DEFAULT_ALPHA, DEFAULT_HOPS):
        assert prepared(sidebar_settings(alpha, hops)), (alpha, hops)
    app.switch_page("pages/data.py")
    app.run()
    shown = " ".join(block.value for block in app.markdown)
    assert ("Comparison of systems at the current settings" if reader == "Clinician" else
            "Leaderboard at the current settings") in shown
    assert "ready" in shown
