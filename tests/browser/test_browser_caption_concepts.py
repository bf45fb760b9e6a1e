"""Finding concepts in the demo's captions in a real browser at 1400 px, as a clinician and as a researcher: the
report draws whole (no table wider than its place, no jargon for a clinician), the Case view's and Per-query's
switches show the caption words; screenshots in artifacts/browser/captions-*.png for review."""

from __future__ import annotations

import pytest

from tests.browser.test_browser import go, idle, main_text, page, server, shot  # noqa: F401  (fixtures)
from tests.browser.test_browser_pages import JARGON, TABLE_OVERFLOW, choose_audience


@pytest.mark.slow
def test_find_concepts_in_the_captions_then_see_their_words(page):  # noqa: F811  (the fixture)
    choose_audience(page, "Clinician")
    page.get_by_role("button", name="Find concepts in the captions").click()
    page.get_by_text("Images with no concept found").first.wait_for()
    idle(page)
    shot(page, "captions-clinician-data")
    text = main_text(page)
    assert "Concepts found in 2,000 captions" in text and "Most frequent concepts" in text
    assert not sorted({m.group(0) for m in JARGON.finditer(text)}), "a clinician reads jargon"
    assert not [width for width in page.evaluate(TABLE_OVERFLOW) if width > 2]

    go(page, "Case view")
    page.get_by_text("Show where each concept was found in the caption").click()
    idle(page)
    shot(page, "captions-clinician-case-view")
    assert "X-ray" in main_text(page) or "CT" in main_text(page)
    assert not sorted({m.group(0) for m in JARGON.finditer(main_text(page))})

    go(page, "Image by image")  # the Per-query page, in a clinician's navigation
    page.get_by_text("Show where each concept was found in the caption").click()
    idle(page)
    shot(page, "captions-clinician-per-query")
    assert "←" in main_text(page)
    assert not sorted({m.group(0) for m in JARGON.finditer(main_text(page))})
    assert not [width for width in page.evaluate(TABLE_OVERFLOW) if width > 2]

    choose_audience(page, "Researcher")
    go(page, "Data")
    shot(page, "captions-researcher-data")
    assert "Download the extracted concept sets (ID,CUIs CSV)" in main_text(page)
    assert not [width for width in page.evaluate(TABLE_OVERFLOW) if width > 2]
