"""Two users at once on one server: each loads different captions (same IDs, same count) and sees
the numbers of their own data, never the other's cached ones."""

from __future__ import annotations

import csv
import random

import pytest

from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.retrieval import retrieve_by_captions
from evalcore.readers import read_captions, read_concepts, read_kg
from evalcore.relevance.kg import KnowledgeGraph
from tests.browser.test_browser import CHROMIUM, idle, pytestmark, server  # noqa: F401  (fixture and marks shared)
from tests.conftest import DEMO

CAPTIONS_BASELINE = "Retrieval by captions (TF-IDF)"


def expected_nn_cui_at_10(captions: dict[str, str]) -> float:
    concepts = read_concepts(DEMO / "concepts.csv")
    kg = KnowledgeGraph.from_edges([read_kg(DEMO / "kg_edges.csv")])
    run = retrieve_by_captions(captions, concepts, 100, None, CAPTIONS_BASELINE)
    evaluation = Evaluator(concepts, kg).evaluate([run], ["nn-CUI@10"], Relevance.of(0.5, 1))
    return evaluation.means()[CAPTIONS_BASELINE]["nn-CUI@10"]


def write_captions(path, captions: dict[str, str]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["ID", "Caption"])
        writer.writerows(captions.items())


def shown_value(tab, system: str) -> float | None:
    """The value a chart shows for ``system`` (bars drawn either way)."""
    return tab.evaluate(
        """system => { for (const plot of document.querySelectorAll('.js-plotly-plot')) {
             for (const trace of (plot._fullData || [])) {
               const xs = Array.from(trace.x || []), ys = Array.from(trace.y || []);
               let i = xs.indexOf(system); if (i >= 0 && typeof ys[i] === 'number') return ys[i];
               i = ys.indexOf(system); if (i >= 0 && typeof xs[i] === 'number') return xs[i]; } }
           return null; }""", system)


def leaderboard_value_of_captions_baseline(tab) -> float:
    """Open the Leaderboard, add the captions baseline if it is not shown yet, and read its value."""
    tab.locator('[data-testid="stSidebarNav"]').get_by_text("Leaderboard", exact=True).click()
    tab.get_by_role("heading", name="Leaderboard").first.wait_for()
    idle(tab)
    if shown_value(tab, CAPTIONS_BASELINE) is None:
        tab.locator('[data-testid="stMultiSelect"]').filter(has_text="aseline").first.click()
        tab.keyboard.type("captions")
        tab.keyboard.press("Enter")
        tab.keyboard.press("Escape")
        idle(tab)
    tab.wait_for_function(
        """system => Array.from(document.querySelectorAll('.js-plotly-plot')).some(
             p => (p._fullData || []).some(t => Array.from(t.x || []).concat(Array.from(t.y || []))
               .includes(system)))""", arg=CAPTIONS_BASELINE, timeout=180_000)
    return shown_value(tab, CAPTIONS_BASELINE)


def test_two_sessions_with_different_captions_see_their_own_numbers(server, tmp_path):  # noqa: F811
    from playwright.sync_api import sync_playwright

    original = read_captions(DEMO / "captions.csv")
    ids, texts = list(original), list(original.values())
    random.Random(7).shuffle(texts)
    shuffled = dict(zip(ids, texts))
    files = {"a": tmp_path / "captions_a.csv", "b": tmp_path / "captions_b.csv"}
    write_captions(files["a"], original)
    write_captions(files["b"], shuffled)
    expected = {"a": expected_nn_cui_at_10(original), "b": expected_nn_cui_at_10(shuffled)}
    assert abs(expected["a"] - expected["b"]) > 0.05

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            tabs = {}
            for user in ("a", "b"):  # two contexts: two independent Streamlit sessions
                tab = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                tab.set_default_timeout(120_000)
                tab.goto(server)
                tab.get_by_role("heading", name="Data").first.wait_for()
                idle(tab)
                tabs[user] = tab
            for user, tab in tabs.items():  # both load before either evaluates
                uploader = tab.locator('[data-testid="stFileUploader"]').filter(has_text="Captions")
                uploader.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(files[user]))
                idle(tab)
                tab.get_by_text(f"Loaded {files[user].name}").first.wait_for()
            for user in ("a", "b"):
                assert leaderboard_value_of_captions_baseline(tabs[user]) == pytest.approx(expected[user], abs=1e-9)
            # a again, after b's evaluation was cached: a page switch reruns a's script against the shared caches
            tabs["a"].locator('[data-testid="stSidebarNav"]').get_by_text("Data", exact=True).click()
            idle(tabs["a"])
            assert leaderboard_value_of_captions_baseline(tabs["a"]) == pytest.approx(expected["a"], abs=1e-9)
        finally:
            browser.close()
