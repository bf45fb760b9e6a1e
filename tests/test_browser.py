"""Real-browser test: Debian's Chromium driven by Playwright against `streamlit run app.py`."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from .conftest import DEMO, ROOT

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = ROOT / "artifacts" / "browser"
pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"})
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
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def chart_values(tab) -> list:
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

    go(page, "Ablation")
    page.locator(".js-plotly-plot").first.wait_for()
    shot(page, "4-ablation")

    go(page, "Knowledge graph")
    page.get_by_label("Search From by CUI or name").fill("Inferior vena")
    page.keyboard.press("Enter")
    idle(page)
    page.get_by_label("Search To by CUI or name").fill("Veins")
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
