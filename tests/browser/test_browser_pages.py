"""Every page in both audiences, in a real browser at 1400 px: no exception, no table wider than its place, no
jargon for a clinician; a full-page screenshot of each (artifacts/browser/pages-<audience>-<page>.png) for review."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_browser import idle, main_text, page, server, shot  # noqa: F401  (fixtures)

#: Words a clinician's pages must not show (issue #23): metric and measure names, statistics jargon, concept IDs.
JARGON = re.compile(r"\bCUIs?\b|\b(?:nn-)?IoU\b|\bNDCG|\balpha\b|\bbootstrap|\bqrels\b|\bKG\b|\bF1\b|p-value|"
                    r"\bp [<=(]|\bHolm\b|\bC\d{7}\b", re.IGNORECASE)

#: The overflow of each data table: how much wider its content is than the box it is drawn in (glide-data-grid
#: scrolls inside the box, so a wider table hides its right-hand columns).
TABLE_OVERFLOW = """() => Array.from(document.querySelectorAll('[data-testid="stDataFrame"]')).map(frame => {
    const scroller = frame.querySelector('.dvn-scroller');
    return scroller ? scroller.scrollWidth - scroller.clientWidth : 0; })"""


def choose_audience(tab, audience: str) -> None:
    tab.locator('[data-testid="stSidebar"]').get_by_text(audience, exact=True).click()
    idle(tab)


def page_titles(tab) -> list[str]:
    # A link's text is its Material icon's name, then its title.
    return [link.strip().splitlines()[-1] for link in tab.locator('[data-testid="stSidebarNav"] a').all_inner_texts()
            if link.strip()]


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


@pytest.mark.slow
@pytest.mark.parametrize("audience", ["Researcher", "Clinician"])
def test_every_page_draws_whole_in_each_audience(page, audience):  # noqa: F811  (the fixture)
    choose_audience(page, audience)
    titles = page_titles(page)
    assert titles, "no navigation links"
    problems = []
    for title in titles:
        page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
        idle(page)
        shot(page, f"pages-{audience.lower()}-{slug(title)}")
        if page.locator('[data-testid="stException"]').count():
            problems.append(f"{title}: an exception is shown")
        overflowing = [width for width in page.evaluate(TABLE_OVERFLOW) if width > 2]
        if overflowing:
            problems.append(f"{title}: {len(overflowing)} table(s) wider than their place by {overflowing} px")
        if audience == "Clinician":
            shown = main_text(page) + "\n" + page.locator('[data-testid="stSidebar"]').inner_text()
            words = sorted({match.group(0) for match in JARGON.finditer(shown)})
            if words:
                problems.append(f"{title}: a clinician reads {words}")
    assert not problems, "\n".join(problems)
