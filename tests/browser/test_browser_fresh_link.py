"""A link to a page opened on a freshly started server: the dashboard's navigation and sidebar, never its helper
modules listed as pages (Streamlit's legacy convention lists every file in pages/ as one)."""

from __future__ import annotations

from pathlib import Path

from tests.browser.test_browser import CHROMIUM, idle, pytestmark, server, shot  # noqa: F401  (fixture and marks shared)
from tests.conftest import ROOT

HELPERS = sorted(path.stem for path in (ROOT / "dashboard").glob("*.py") if path.stem != "__init__")


def test_a_fresh_server_opened_on_the_leaderboard_draws_the_sidebar_and_lists_only_pages(server):  # noqa: F811
    from playwright.sync_api import sync_playwright

    assert HELPERS and not set(HELPERS) & {path.stem for path in Path(ROOT / "pages").glob("*.py")}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--headless", "--no-sandbox", "--disable-gpu"])
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.set_default_timeout(120_000)
            tab.goto(f"{server}/leaderboard")  # the server's first request
            tab.get_by_role("heading", name="Leaderboard").first.wait_for()
            idle(tab)
            navigation = tab.locator('[data-testid="stSidebarNav"]')
            # A link's text holds its icon's ligature too ("leaderboard Leaderboard"): its words are compared.
            listed = [set(text.lower().split()) for text in navigation.locator("a").all_inner_texts()]
            assert any("leaderboard" in words for words in listed) and any("data" in words for words in listed), listed
            assert not any(words & set(HELPERS) for words in listed), listed
            sidebar = tab.locator('[data-testid="stSidebar"]')
            assert sidebar.get_by_text("Dataset:").count() == 1  # app.py's sidebar, drawn around the page
            assert sidebar.get_by_text("View for").count() == 1
            shot(tab, "fresh-link-leaderboard")
        finally:
            browser.close()
