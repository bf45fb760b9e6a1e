"""Seeded random walks through the dashboard in a real browser (Debian's Chromium driven by Playwright): page links,
the audience, the sidebar's relevance measure and its parameters, and every select box, multiselect, radio, slider,
toggle, checkbox, segmented control and text box a page shows, in random order; no step may show an exception.

CI walks 60 steps on the demo and 30 on ROCOv2 test. A failure prints the seed and the steps taken, so that it can be
replayed: ``CBIR_LENS_WALK_SEEDS=7 CBIR_LENS_WALK_STEPS=60 python -m pytest tests/browser/test_browser_walk.py``. A long walk
(several seeds, 1,000+ steps in all) is the same test with larger numbers.
"""

from __future__ import annotations

import os
import random
import time

import pytest

from tests.browser.test_browser import CHROMIUM, idle, server  # noqa: F401  (server: the module's fixture)
from tests.conftest import ROCOV2, needs

pytestmark = [pytest.mark.browser]

#: The seconds a page may take to answer, and a step to reach its control.
PAGE_SECONDS, STEP_SECONDS = 60, 15
#: Steps per seed: (demo, ROCOv2 test).
STEPS = tuple(int(v) for v in os.environ.get("CBIR_LENS_WALK_STEPS", "60,30").split(","))
SEEDS = tuple(int(v) for v in os.environ.get("CBIR_LENS_WALK_SEEDS", "20261125").split(","))
#: What a text box is given: IDs of both datasets, concept names, words of captions, nonsense and hostile text.
TEXTS = ("DEMO_00004", "DEMO_01999", "ROCOv2_2023_test_000001", "liver", "Veins", "Blood vessels", "fracture",
         "C0042449", "", "zzzz-no-such", "'; DROP TABLE x; --", "=1+1", "../../etc/passwd", "é中文", "x" * 300)
#: Buttons a walk never presses: they download, or reload the demo over the data the walk is on.
SKIPPED_BUTTONS = ("Reload the embedded demo", "Download", "CSV", "LaTeX", "download")
#: Where a step may act; the sidebar's controls are the shared settings.
WIDGETS = {
    "selectbox": '[data-testid="stSelectbox"]',
    "multiselect": '[data-testid="stMultiSelect"]',
    "radio": '[data-testid="stRadio"]',
    "slider": '[data-testid="stSlider"]',
    "checkbox": '[data-testid="stCheckbox"]',
    "text": '[data-testid="stTextInput"]',
    "segmented": '[data-testid="stButtonGroup"]',
    "button": '[data-testid="stButton"]',
}


def visible(tab, selector: str) -> list:
    return [element for element in tab.locator(selector).all() if element.is_visible()]


def exception_text(tab) -> str | None:
    shown = tab.locator('[data-testid="stException"]')
    return shown.first.inner_text()[:2000] if shown.count() else None


#: How long an opened select list may take to appear; a list that does not is one with nothing to choose.
LIST_SECONDS = 2


def pick_option(tab, element, rng: random.Random) -> str | None:
    """Open a select box's or multiselect's list and click a random option; None where the list is empty.

    The options are read once the list is shown: read at once, they depended on how fast it opened, and a seed
    drew differently on a replay (a None pick skips a draw), leaving the walk it was to repeat."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    # The first click on a page just drawn may land before the box listens: a second opens the list.
    for _ in range(2):
        element.locator("input").first.click()
        try:
            tab.locator('[role="option"]').first.wait_for(state="visible", timeout=LIST_SECONDS * 1000)
            break
        except PlaywrightTimeoutError:
            tab.keyboard.press("Escape")
    options = visible(tab, '[role="option"]')
    if not options:
        tab.keyboard.press("Escape")
        return None
    option = rng.choice(options)
    text = option.inner_text()[:60]
    option.click()
    return text


def act(tab, rng: random.Random, buttons: bool, trying: list[str]) -> str:
    """One random step; returns what it did, in words a replay can follow. ``buttons``: whether it may press a
    button (on ROCOv2 a button starts minutes of work: the walk is about the controls there). ``trying`` is told
    which control the step acts on before it acts, for the trail of a step that fails."""
    kinds = ["page", *WIDGETS] if buttons else ["page", *WIDGETS][:-1]
    kind = rng.choices(kinds, weights=[4, 4, 2, 2, 2, 2, 2, 1, 1][:len(kinds)])[0]
    if kind == "page":
        links = visible(tab, '[data-testid="stSidebarNav"] a')
        link = rng.choice(links)
        name = link.inner_text().strip().split("\n")[-1]
        link.click()
        return f"page {name!r}"
    elements = visible(tab, WIDGETS[kind])
    if kind == "button":
        elements = [e for e in elements if not any(word in e.inner_text() for word in SKIPPED_BUTTONS)]
    if not elements:
        return f"no {kind} shown"
    element = rng.choice(elements)
    label = element.inner_text().split("\n")[0][:60]
    trying[:] = [f"{kind} {label!r}"]
    if kind == "selectbox":
        return f"selectbox {label!r} -> {pick_option(tab, element, rng)!r}"
    if kind == "multiselect":
        if rng.random() < 0.3 and element.locator('[data-baseweb="tag"] [role="presentation"]').count():
            element.locator('[data-baseweb="tag"] [role="presentation"]').first.click()
            return f"multiselect {label!r}: removed the first"
        picked = pick_option(tab, element, rng)
        tab.keyboard.press("Escape")
        return f"multiselect {label!r} + {picked!r}"
    if kind == "radio":
        choices = [c for c in element.locator('[role="radiogroup"] label').all() if c.is_visible()]
        choice = rng.choice(choices)
        text = choice.inner_text().strip()
        choice.click()
        return f"radio {label!r} -> {text!r}"
    if kind == "slider":
        thumb = element.get_by_role("slider").first
        thumb.focus()
        key, times = rng.choice(["ArrowLeft", "ArrowRight", "Home", "End"]), rng.randint(1, 3)
        for _ in range(times):
            thumb.press(key)
        return f"slider {label!r}: {key} x{times}"
    if kind == "checkbox":
        element.locator("label").first.click()
        return f"toggle {label!r}"
    if kind == "text":
        box = element.locator("input, textarea").first
        text = rng.choice(TEXTS)
        box.fill(text)
        box.press("Enter")
        return f"text {label!r} <- {text[:40]!r}"
    if kind == "segmented":
        buttons = [b for b in element.locator("button").all() if b.is_visible()]
        button = rng.choice(buttons)
        text = button.inner_text().strip()
        button.click()
        return f"segmented {label!r} -> {text!r}"
    button = element.locator("button").first
    text = button.inner_text().strip()[:60]
    button.click()
    return f"button {text!r}"


def walk(tab, seed: int, steps: int, dataset: str, buttons: bool = True) -> list[str]:
    from playwright.sync_api import Error as PlaywrightError

    rng = random.Random(seed)
    taken: list[str] = []
    for step in range(steps):
        trying = ["a page link or the choice of a control"]
        # A step acts on an idle page: a control it cannot reach in seconds is covered (a list left open by the step
        # before), and waiting out the page's 60 s cost long walks minutes.
        tab.set_default_timeout(STEP_SECONDS * 1000)
        try:
            taken.append(act(tab, rng, buttons, trying))
        except PlaywrightError as error:  # a widget that re-rendered under the pointer: the walk goes on
            taken.append(f"(step skipped: {type(error).__name__} on {trying[0]})")
            tab.keyboard.press("Escape")
        finally:
            tab.set_default_timeout(PAGE_SECONDS * 1000)
        idle(tab)
        if (shown := exception_text(tab)) is not None:
            trail = "\n".join(f"  {i + 1}. {s}" for i, s in enumerate(taken))
            pytest.fail(f"{dataset} walk, seed {seed}, step {step + 1}: an exception is shown:\n{shown}\n"
                        f"steps:\n{trail}")
    return taken


def browser_tab(playwright, url: str):
    browser = playwright.chromium.launch(
        executable_path=CHROMIUM,
        args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--no-first-run"])
    tab = browser.new_page(viewport={"width": 1400, "height": 1000})
    tab.set_default_timeout(PAGE_SECONDS * 1000)
    tab.goto(url)
    tab.get_by_role("heading", name="Data").first.wait_for(timeout=180_000)
    idle(tab)
    return browser, tab


def load_rocov2_folder(tab) -> None:
    """The Data page's ROCOv2 folder, loaded as a user does."""
    folder = tab.get_by_label("ROCOv2 folder", exact=True).and_(tab.locator("input"))
    folder.fill(str(ROCOV2))
    folder.press("Enter")
    idle(tab)
    tab.get_by_role("button", name="Load ROCOv2 folder").click()
    tab.locator('[data-testid="stSidebar"]').get_by_text("ROCOv2 test").first.wait_for(timeout=300_000)
    idle(tab)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_walk_on_the_demo_shows_no_exception(server, seed):  # noqa: F811
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser, tab = browser_tab(playwright, server)
        try:
            started = time.monotonic()
            taken = walk(tab, seed, STEPS[0], "demo")
            print(f"demo walk, seed {seed}: {len(taken)} steps in {time.monotonic() - started:.0f} s")
            print("\n".join(taken))
        finally:
            browser.close()


@needs(ROCOV2)
@pytest.mark.parametrize("seed", SEEDS)
def test_random_walk_on_rocov2_test_shows_no_exception(server, seed):  # noqa: F811
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser, tab = browser_tab(playwright, server)
        try:
            load_rocov2_folder(tab)
            started = time.monotonic()
            taken = walk(tab, seed, STEPS[-1], "ROCOv2 test", buttons=False)
            print(f"ROCOv2 walk, seed {seed}: {len(taken)} steps in {time.monotonic() - started:.0f} s")
            print("\n".join(taken))
        finally:
            browser.close()


def sidebar_click(tab, text: str) -> None:
    tab.locator('[data-testid="stSidebar"]').get_by_text(text, exact=True).click()
    idle(tab)


def chosen(tab, label: str) -> str:
    """The value a select box shows."""
    return tab.get_by_role("combobox", name=label, exact=True).input_value()


def choose(tab, label: str, option: str) -> None:
    tab.get_by_role("combobox", name=label, exact=True).click()
    tab.get_by_role("option", name=option, exact=True).click()
    idle(tab)


def test_the_path_of_issue_33_and_a_page_keeps_its_choices(server):  # noqa: F811
    """Researcher, Case view, a case, the relevance measure to Dice, Leaderboard and back, Clinician and back: no
    exception (the select boxes kept their choice by its shown label, which the other audience does not show); and
    leaving a page and coming back keeps its case, query, system and K."""
    from playwright.sync_api import sync_playwright

    from tests.browser.test_browser import go

    with sync_playwright() as playwright:
        browser, tab = browser_tab(playwright, server)
        try:
            go(tab, "Case view")
            tab.get_by_role("combobox", name="Case (query image)", exact=True).click()
            case = tab.get_by_role("option").all_inner_texts()[3]
            tab.get_by_role("option", name=case, exact=True).click()
            idle(tab)
            choose(tab, "relevance measure", "Dice")
            go(tab, "Leaderboard")
            go(tab, "Case view")
            sidebar_click(tab, "Clinician")
            sidebar_click(tab, "Researcher")
            assert exception_text(tab) is None, exception_text(tab)
            tab.wait_for_url("**/case_view**")
            assert chosen(tab, "Case (query image)") == case

            go(tab, "Per-query")
            tab.get_by_role("combobox", name="Query", exact=True).click()
            query = tab.get_by_role("option").all_inner_texts()[4]
            tab.get_by_role("option", name=query, exact=True).click()
            idle(tab)
            k = tab.locator('[data-testid="stSlider"]').filter(has=tab.get_by_text("Top K shown")).get_by_role("slider")
            k.focus()
            k.press("End")
            idle(tab)
            sidebar_click(tab, "Clinician")
            go(tab, "Image by image")
            sidebar_click(tab, "Researcher")
            go(tab, "Leaderboard")
            go(tab, "Per-query")
            assert exception_text(tab) is None, exception_text(tab)
            assert chosen(tab, "Query") == query
            assert tab.locator('[data-testid="stSlider"]').filter(has=tab.get_by_text("Top K shown")).locator(
                '[data-testid="stSliderThumbValue"]').inner_text().strip() == "10"
        finally:
            browser.close()


def test_a_reload_keeps_the_audience_the_settings_and_the_folder(server):  # noqa: F811
    from playwright.sync_api import sync_playwright

    from tests.browser.test_browser import go

    with sync_playwright() as playwright:
        browser, tab = browser_tab(playwright, server)
        try:
            sidebar = tab.locator('[data-testid="stSidebar"]')
            alpha = sidebar.get_by_role("slider").first
            alpha.focus()
            alpha.press("ArrowRight")
            idle(tab)
            choose(tab, "relevance measure", "Dice")
            go(tab, "Leaderboard")
            sidebar_click(tab, "Clinician")
            tab.reload()
            tab.get_by_role("heading", name="Which system finds similar images best").first.wait_for()
            idle(tab)
            sidebar_click(tab, "Researcher")
            assert sidebar.locator('[data-testid="stSliderThumbValue"]').first.inner_text().strip() == "0.60"
            assert "dice" in sidebar.inner_text().lower()
            # An address with a folder the server may not read opens the demo, with one sentence and no path.
            tab.goto(server + "/leaderboard?folder=/etc&audience=Clinician")
            tab.get_by_role("heading").first.wait_for()
            idle(tab)
            text = tab.locator('[data-testid="stMain"]').inner_text()
            assert "cannot be opened on this server" in text and "/etc" not in text and "/work" not in text
            assert exception_text(tab) is None
        finally:
            browser.close()


@needs(ROCOV2)
def test_a_reload_reopens_the_loaded_folder(server):  # noqa: F811
    from playwright.sync_api import sync_playwright

    from tests.browser.test_browser import go

    with sync_playwright() as playwright:
        browser, tab = browser_tab(playwright, server)
        try:
            load_rocov2_folder(tab)
            go(tab, "Knowledge graph")
            tab.reload()
            tab.locator('[data-testid="stSidebar"]').get_by_text("ROCOv2 test").first.wait_for(timeout=300_000)
            assert "/knowledge_graph" in tab.url and "folder=" in tab.url
            assert exception_text(tab) is None
        finally:
            browser.close()
