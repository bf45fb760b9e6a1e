"""Saved workspaces and links in a real browser: upload, save, copy the link, open it in a fresh browser and after a
server restart, and read the same numbers; hostile links open the demo with one sentence."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.browser.test_browser import CHROMIUM, chart_values, dashboard_server, free_port, go, idle, pytestmark, shot  # noqa: F401
from tests.conftest import DEMO


def dashboard(store: Path, port: int):
    """A dashboard server on ``port`` saving to ``store``, stopped on exit."""
    return dashboard_server(port, CBIR_LENS_STORE=str(store))


def view_link(tab) -> str:
    """The sidebar's "Link to this view", unfolded (which saves what the address cannot name, then runs again)."""
    sidebar = tab.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Link to this view").click()
    idle(tab)
    return sidebar.locator('[data-testid="stCode"]').last.inner_text().strip()


def leaderboard_numbers(tab) -> tuple[list, list]:
    """The leaderboard chart's systems and first trace's values."""
    values = chart_values(tab)
    systems = tab.evaluate("() => Array.from(document.querySelector('.js-plotly-plot').data[0].x)")
    return systems, values[0]


def settled_leaderboard(tab, expected: tuple[list, list]) -> tuple[list, list]:
    """The leaderboard's numbers once they equal ``expected`` and stay so for a second, or, after 60 s, the last read:
    under load the chart can be read between two reruns of a freshly opened link."""
    deadline = time.monotonic() + 60
    while True:
        seen = leaderboard_numbers(tab)
        if seen == expected:
            time.sleep(1.0)
            idle(tab)
            seen = leaderboard_numbers(tab)
            if seen == expected or time.monotonic() > deadline:
                return seen
        elif time.monotonic() > deadline:
            return seen
        time.sleep(1.0)


def opened(browser, link: str, heading: str):
    """A fresh browser context (no cookie, no session) on ``link``, once ``heading`` is drawn."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.set_default_timeout(120_000)
    tab.goto(link)
    tab.get_by_role("heading", name=heading).first.wait_for()
    idle(tab)
    return context, tab


@pytest.mark.subprocess
def test_a_saved_workspace_reopens_from_its_link_in_another_browser_and_after_a_restart(tmp_path):
    from playwright.sync_api import sync_playwright

    store = tmp_path / "store"
    run = tmp_path / "uploaded-a.trec"
    run.write_text("\n".join(" ".join(line.split()[:5] + ["uploaded-a"])
                             for line in (DEMO / "runs" / "overlap-noisy.trec").read_text().splitlines()) + "\n")
    port = free_port()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            with dashboard(store, port) as url:
                context, tab = opened(browser, url, "Data")
                uploader = tab.locator('[data-testid="stFileUploader"]').filter(has_text="Run files")
                uploader.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(run))
                tab.get_by_text("Loaded uploaded-a.trec").wait_for()
                idle(tab)
                tab.get_by_role("button", name="Save this workspace").click()
                tab.get_by_text("Saved. This page's address").wait_for()
                idle(tab)
                assert "workspace=" in tab.url
                go(tab, "Leaderboard")
                systems, values = leaderboard_numbers(tab)
                assert "uploaded-a" in systems
                link = view_link(tab)
                assert link.startswith(f"{url}/leaderboard?") and "workspace=" in link, link
                shot(tab, "saved-leaderboard")
                context.close()

                context, tab = opened(browser, link, "Leaderboard")  # another browser: nothing shared but the link
                assert settled_leaderboard(tab, (systems, values)) == (systems, values)
                context.close()
            with dashboard(store, port) as url:  # the server restarted on the same store
                context, tab = opened(browser, link, "Leaderboard")
                assert settled_leaderboard(tab, (systems, values)) == (systems, values)
                shot(tab, "saved-after-restart")
                # Forgotten, the link opens the demo with one sentence.
                go(tab, "Data")
                tab.get_by_role("button", name="Forget this workspace").click()
                idle(tab)
                context.close()
                context, tab = opened(browser, link, "Leaderboard")
                tab.get_by_text("This link's saved workspace cannot be opened").wait_for()
                assert "uploaded-a" not in leaderboard_numbers(tab)[0]
                context.close()
        finally:
            browser.close()
    assert not any((store / "blobs").iterdir())  # forgetting deleted its bytes


@pytest.mark.subprocess
@pytest.mark.parametrize("workspace_id", ["A" * 32, "../../etc/passwd", "%00", "x" * 5000])
def test_a_hostile_link_opens_the_demo_with_one_sentence(tmp_path, workspace_id):
    from playwright.sync_api import sync_playwright

    store = tmp_path / "store"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            with dashboard(store, free_port()) as url:
                context, tab = opened(browser, f"{url}/leaderboard?workspace={workspace_id}&alpha=7&pq_a=nobody",
                                      "Leaderboard")
                text = tab.locator('[data-testid="stMain"]').inner_text()
                assert "cannot be opened" in text and "Traceback" not in text and str(store) not in text
                assert "Demo" in tab.locator('[data-testid="stSidebar"]').inner_text()
                context.close()
        finally:
            browser.close()


@pytest.mark.subprocess
def test_a_link_made_after_an_upload_saves_it_and_opens_it_in_a_fresh_browser(tmp_path):
    """Issue 67: "Link to this view" after an upload, never saved by hand, saves what is loaded as it opens, so that
    the link opens the upload too; a toggle is in the link; an audience in the address lands where the switch lands."""
    from playwright.sync_api import sync_playwright

    store = tmp_path / "store"
    run = tmp_path / "uploaded-b.trec"
    run.write_text("\n".join(" ".join(line.split()[:5] + ["uploaded-b"])
                             for line in (DEMO / "runs" / "overlap-noisy.trec").read_text().splitlines()) + "\n")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            with dashboard(store, free_port()) as url:
                context, tab = opened(browser, url, "Data")
                uploader = tab.locator('[data-testid="stFileUploader"]').filter(has_text="Run files")
                uploader.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(run))
                tab.get_by_text("Loaded uploaded-b.trec").wait_for()
                idle(tab)
                go(tab, "Per-query")
                tab.get_by_text("Find queries where two systems differ most").click()
                idle(tab)
                link = view_link(tab)
                assert "workspace=" in link and "pq_differences_on=True" in link, link
                assert "Opens this page with these choices and this data" in tab.locator(
                    '[data-testid="stSidebar"]').inner_text()
                go(tab, "Leaderboard")
                systems, values = leaderboard_numbers(tab)
                assert "uploaded-b" in systems
                context.close()

                context, tab = opened(browser, link, "Per-query")  # a fresh browser: the upload and the toggle
                assert tab.get_by_role("switch", name="Find queries where two systems differ most").is_checked()
                go(tab, "Leaderboard")
                assert settled_leaderboard(tab, (systems, values)) == (systems, values)
                context.close()

                context, tab = opened(browser, f"{url}/ablation?audience=Clinician", "Which system finds similar images best")
                context.close()
        finally:
            browser.close()
