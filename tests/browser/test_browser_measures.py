"""'Choose a measure' after Compare, in a real browser at 1400 px: the verdict and the deciding columns are in sight
(no table wider than its place, no column off-screen right), the ASL curves are drawn; a screenshot for review."""

from __future__ import annotations

import pytest

from tests.browser.test_browser import idle, page, server, shot  # noqa: F401  (fixtures)
from tests.browser.test_browser_pages import TABLE_OVERFLOW


@pytest.mark.slow
def test_compare_draws_the_evidence_in_sight(page):  # noqa: F811  (the fixture)
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Choose a measure", exact=True).click()
    page.get_by_role("heading", name="Choose a relevance measure").first.wait_for()
    idle(page)
    page.get_by_role("button", name="Compare the measures").click()
    page.locator('[data-testid="stAlert"]').filter(has_text="system pairs").first.wait_for(timeout=300_000)
    idle(page)
    page.wait_for_function("() => Array.from(document.querySelectorAll('.js-plotly-plot')).some(p => p._fullData)")
    for expander in page.locator('[data-testid="stExpander"] summary').all():
        expander.click()  # every table in sight, the folded ones too
    idle(page)
    shot(page, "measures-compared")
    assert not page.locator('[data-testid="stException"]').count()
    overflowing = [width for width in page.evaluate(TABLE_OVERFLOW) if width > 2]
    assert not overflowing, f"{len(overflowing)} table(s) wider than their place by {overflowing} px"
    assert page.locator(".js-plotly-plot").count() >= 1
