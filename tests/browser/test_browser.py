"""Real-browser test: Debian's Chromium driven by Playwright against `streamlit run app.py`."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import DEMO, ROCOV2, ROOT, needs

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = ROOT / "artifacts" / "browser"
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def dashboard_server(port: int | None = None, **environment: str) -> Iterator[str]:
    """``streamlit run app.py`` on ``port`` (a free one by default) with ``environment`` added, once it answers;
    stopped on exit."""
    port = port or free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **environment})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("streamlit did not answer within 60 s")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="module")
def server():
    with dashboard_server() as url:
        yield url


@pytest.fixture(scope="module")
def page(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run"])
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 1000})
            tab.set_default_timeout(120_000)
            tab.goto(server)
            tab.get_by_role("heading", name="Data").first.wait_for()
            yield tab
        finally:
            browser.close()


def idle(tab) -> None:
    """Wait until Streamlit has finished running the script."""
    time.sleep(0.5)
    tab.wait_for_function("!document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=180_000)
    time.sleep(0.5)


def go(tab, title: str) -> None:
    tab.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    tab.get_by_role("heading", name=title).first.wait_for()
    idle(tab)


def shot(tab, name: str) -> None:
    """The whole page at 1400 px: Streamlit scrolls inside its main block, so the viewport is grown to fit it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    height = tab.evaluate("() => Math.max(...Array.from(document.querySelectorAll("
                          "'[data-testid=stMain], [data-testid=stMainBlockContainer]')).map(e => e.scrollHeight), 0)")
    tab.set_viewport_size({"width": 1400, "height": min(int(height) + 80, 12_000)})
    time.sleep(1.0)  # let charts re-lay out to the new size
    tab.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    tab.set_viewport_size({"width": 1400, "height": 1000})


def chart_values(tab) -> list:
    """The y values of each chart's first trace, once Plotly has drawn one (it draws after the script has finished)."""
    tab.wait_for_function("() => Array.from(document.querySelectorAll('.js-plotly-plot')).some(p => p._fullData)")
    return tab.evaluate("() => Array.from(document.querySelectorAll('.js-plotly-plot'))"
                        ".map(p => p._fullData && p._fullData[0] && p._fullData[0].y ? Array.from(p._fullData[0].y) : [])")


def test_main_flows_in_a_real_browser(page, tmp_path):
    runs = []
    for source, tag in [("overlap-noisy", "uploaded-a"), ("near-random", "uploaded-b")]:
        lines = (DEMO / "runs" / f"{source}.trec").read_text().splitlines()
        path = tmp_path / f"{tag}.trec"
        path.write_text("\n".join(" ".join(line.split()[:5] + [tag]) for line in lines) + "\n")
        runs.append(str(path))
    bad_run = tmp_path / "broken.trec"
    bad_run.write_text("DEMO_00001 Q0 DEMO_00002 1 0.5 x\nDEMO_00001 Q0 DEMO_00003 two 0.4 x\n")
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(0).set_input_files(str(DEMO / "concepts.csv"))
    idle(page)
    inputs.nth(1).set_input_files(runs)
    idle(page)
    page.get_by_text("Loaded uploaded-b.trec").wait_for()
    inputs.nth(1).set_input_files([str(bad_run)])
    idle(page)
    page.get_by_text("broken.trec, line 2").first.wait_for()
    shot(page, "1-data")

    go(page, "Leaderboard")
    before = chart_values(page)
    systems = page.evaluate("() => Array.from(document.querySelector('.js-plotly-plot').data[0].x)")
    assert sorted(systems) == ["near-random", "overlap-noisy", "uploaded-a", "uploaded-b", "visual-confused"]
    assert len(before[0]) == 5 and all(isinstance(v, float) for v in before[0])
    shot(page, "2-leaderboard")
    slider = page.get_by_role("slider").first
    slider.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    idle(page)
    page.get_by_text("alpha = 0.8").first.wait_for()
    page.wait_for_function(
        "before => { const p = document.querySelector('.js-plotly-plot');"
        " if (!p || !p._fullData || !p._fullData[0].y) return false; const y = Array.from(p._fullData[0].y);"
        " return y.length === before.length && y.some((v, i) => Math.abs(v - before[i]) > 1e-12); }",
        arg=before[0], timeout=120_000)
    after = chart_values(page)[0]
    assert after and after != before[0]

    go(page, "Per-query")
    page.get_by_text("Why:").first.wait_for()
    assert page.locator('[data-testid="stImage"]').count() >= 4
    shot(page, "3-per-query")

    go(page, "Case view")
    page.get_by_text("Why:").first.wait_for()
    shot(page, "3b-case-view")

    go(page, "Ablation")
    page.locator(".js-plotly-plot").first.wait_for()
    shot(page, "4-ablation")

    go(page, "Knowledge graph")
    page.get_by_label("Search From by name or CUI").fill("Inferior vena")
    page.keyboard.press("Enter")
    idle(page)
    page.get_by_label("Search To by name or CUI").fill("Veins")
    page.keyboard.press("Enter")
    idle(page)
    page.get_by_text("Distance: 1 hop").first.wait_for()
    shot(page, "5-knowledge-graph")

    go(page, "Concept detection")
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(DEMO / "concepts.csv"))
    idle(page)
    page.get_by_text("F1 (primary)").first.wait_for()
    shot(page, "6-concept-detection")
    assert not page.locator('[data-testid="stException"]').count()

    go(page, "Method")
    page.get_by_text("nn-IoU = (1 + 0.5 × 2) / 3 = 0.667").first.wait_for()
    page.get_by_role("button", name="Compute the ablation").click()
    page.get_by_text("Isolated subset:").first.wait_for(timeout=120_000)
    idle(page)
    assert page.locator(".js-plotly-plot").count() >= 2
    shot(page, "7-method")
    assert not page.locator('[data-testid="stException"]').count()


def main_text(tab) -> str:
    return tab.locator('[data-testid="stMain"]').inner_text()


def test_card_why_line_names_a_near_match_and_draws_its_path(page):
    go(page, "Per-query")
    search = page.get_by_label("Find a query by image ID, concept or caption word")
    search.fill("DEMO_00004")
    search.press("Enter")
    idle(page)
    # near-random's first result shows Femur like the query, and Head of femur, a part of Femur: a near match
    # whose partner is a shared concept (the demo knowledge graph gives the link as part-of).
    page.get_by_text("Head of femur is part of Femur").first.wait_for()
    graph = page.locator('[data-testid="stGraphVizChart"] svg').first
    graph.wait_for()
    assert "Head of femur" in graph.text_content() and "Femur" in graph.text_content()
    shot(page, "8-per-query-near-match")


def test_clinician_switch_hides_concept_ids(page):
    go(page, "Per-query")
    assert re.search(r"\(C\d{7}\)", main_text(page))
    page.locator('[data-testid="stSidebar"]').get_by_text("Clinician", exact=True).click()
    idle(page)
    page.get_by_text("Why:").first.wait_for()
    text = main_text(page)
    assert not re.search(r"C\d{7}", text) and "nn-IoU" not in text and "Shares" in text
    shot(page, "9-per-query-clinician")
    page.locator('[data-testid="stSidebar"]').get_by_text("Researcher", exact=True).click()
    idle(page)
    assert re.search(r"\(C\d{7}\)", main_text(page))


def chosen_labels(tab) -> list[str]:
    """What each select box of the page shows as its choice (the browser's text, not the server's value)."""
    return tab.locator('[data-testid="stSelectbox"] input').evaluate_all("inputs => inputs.map(i => i.value)")


def test_the_clinician_switch_relabels_the_chosen_concepts(page):
    """A choice drawn again with the other audience's label shows that label (issue 36, ninth pass: after the
    switch, the Concept map's From and To still read "Veins (C0042449) · 79 images" until a reload)."""
    sidebar = page.locator('[data-testid="stSidebar"]')
    go(page, "Knowledge graph")
    assert any(re.search(r"\(C\d{7}\)", label) for label in chosen_labels(page)), chosen_labels(page)
    sidebar.get_by_text("Clinician", exact=True).click()
    idle(page)
    go(page, "Concept map")
    shown = chosen_labels(page)
    assert shown and not any(re.search(r"C\d{7}", label) for label in shown), shown
    sidebar.get_by_text("Researcher", exact=True).click()
    idle(page)
    go(page, "Knowledge graph")
    assert any(re.search(r"\(C\d{7}\)", label) for label in chosen_labels(page)), chosen_labels(page)


def alpha_shown(sidebar) -> str:
    return sidebar.locator('[data-testid="stSliderThumbValue"]').first.inner_text().strip()


def test_clinician_switch_on_a_researcher_page_lands_on_the_comparison_and_keeps_the_settings(page):
    from tests.dashboard.test_app_audience import forbidden_in

    sidebar = page.locator('[data-testid="stSidebar"]')
    go(page, "Ablation")
    alpha = sidebar.get_by_role("slider").first
    before = alpha_shown(sidebar)
    alpha.focus()
    alpha.press("ArrowRight")
    idle(page)
    moved = alpha_shown(sidebar)
    assert moved != before
    sidebar.get_by_text("Clinician", exact=True).click()
    page.get_by_role("heading", name="Which system finds similar images best").first.wait_for()
    idle(page)
    assert urllib.parse.urlsplit(page.url).path.rstrip("/").endswith("/leaderboard")
    navigation = page.locator('[data-testid="stSidebarNav"]').inner_text()
    assert "Ablation" not in navigation and "Concept map" in navigation and "Compare systems" in navigation
    assert not forbidden_in(main_text(page)), forbidden_in(main_text(page))
    assert not forbidden_in(sidebar.inner_text()), forbidden_in(sidebar.inner_text())
    shot(page, "10-leaderboard-clinician")
    sidebar.get_by_text("Researcher", exact=True).click()
    idle(page)
    alpha = sidebar.get_by_role("slider").first
    assert alpha_shown(sidebar) == moved
    assert "Ablation" in page.locator('[data-testid="stSidebarNav"]').inner_text()
    alpha.focus()
    alpha.press("ArrowLeft")
    idle(page)


def redrawn_labels(frames: list) -> tuple[set[int], set[str]]:
    """From the messages the server sent (websocket frames), the top-level containers they drew into (0: the main
    area, 1: the sidebar) and the labels of the widgets they drew."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    roots, labels = set(), set()
    for frame in frames:
        if not isinstance(frame, bytes):
            continue
        message = ForwardMsg.FromString(frame)
        if message.metadata.delta_path:
            roots.add(message.metadata.delta_path[0])
        if message.WhichOneof("type") == "delta" and message.delta.WhichOneof("type") == "new_element":
            element = message.delta.new_element
            labels.add(getattr(getattr(element, element.WhichOneof("type")), "label", ""))
    return roots, labels


@pytest.mark.parametrize(("title", "chooser", "kept"), [("Per-query", "Query", "Systems side by side"),
                                                         ("Case view", "Case (query image)", "Images retrieved by")])
def test_choosing_another_query_redraws_only_its_images(page, server, title, chooser, kept):
    """Another query redraws the query and its results alone (a fragment): the server sends nothing for the sidebar
    or the controls above, so neither the server nor the browser spends time on them."""
    frames: list = []
    context = page.context.browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    try:
        tab.on("websocket", lambda socket: socket.on("framereceived", lambda payload: frames.append(payload)))
        tab.goto(server)
        tab.get_by_role("heading", name="Data").first.wait_for()
        go(tab, title)
        box = tab.get_by_role("combobox", name=chooser, exact=True)
        shown = main_text(tab)
        box.click()
        options = tab.get_by_role("option").all_inner_texts()
        wanted = next(option for option in options if option not in shown)
        frames.clear()
        tab.get_by_role("option", name=wanted, exact=True).click()
        idle(tab)
        assert wanted in main_text(tab)
        roots, labels = redrawn_labels(frames)
        assert roots == {0} and chooser in labels and kept not in labels, (roots, labels)
        assert tab.get_by_role("combobox", name=kept, exact=True).count() == 1
        assert not tab.locator('[data-testid="stException"]').count()
    finally:
        context.close()


@needs(ROCOV2)
def test_veins_to_blood_vessels_is_one_hop_in_the_open_kg(page):
    go(page, "Data")
    folder = page.get_by_label("ROCOv2 folder", exact=True).and_(page.locator("input"))
    folder.fill(str(ROCOV2))
    folder.press("Enter")
    idle(page)
    page.get_by_role("button", name="Load ROCOv2 folder").click()
    page.locator('[data-testid="stSidebar"]').get_by_text("ROCOv2 test").first.wait_for()
    idle(page)
    go(page, "Knowledge graph")
    for label, text in (("Search From by name or CUI", "Veins"), ("Search To by name or CUI", "Blood vessels")):
        box = page.get_by_label(label)
        box.fill(text)
        box.press("Enter")
        idle(page)
    page.get_by_text("Distance: 1 hop.").first.wait_for()
    assert "Veins is a kind of Blood Vessel. (From MeSH and the UBERON anatomy ontology.)" in main_text(page)
    graph = page.locator('[data-testid="stGraphVizChart"] svg').first.text_content()
    assert "Veins" in graph and "Blood Vessel" in graph
    shot(page, "10-knowledge-graph-rocov2")
    assert not page.locator('[data-testid="stException"]').count()
