"""The Per-query page's Query box offers the first 500 queries (issue 67): the page says so and what to do for
another; an image ID typed whole, in the Query box or in the search box, is chosen though not listed; any other
typed text is said, with what to do."""

from __future__ import annotations

from evalcore.app.browse import LISTED_IMAGES
from tests.conftest import open_page

#: A demo image beyond the first 500 queries the page lists (the runs list DEMO_00001 first).
UNLISTED = "DEMO_01999"


def test_the_page_says_the_list_is_cut_and_how_to_find_another():
    app = open_page("pages/per_query.py")
    box = app.selectbox(key="pq_query")
    assert len(box.options) == LISTED_IMAGES and UNLISTED not in box.options
    assert box.help.startswith(f"The first {LISTED_IMAGES} queries of the list are offered. Another one: type its whole")
    caption = next(c.value for c in app.main.caption if "listed" in c.value)
    assert caption.startswith(f"{LISTED_IMAGES} candidate queries listed. Only the first 500 are listed: to find "
                              "another, type its whole image ID in the Query box"), caption


def test_an_image_id_typed_whole_in_the_query_box_is_chosen_though_not_listed():
    app = open_page()
    app.session_state["pq_query"] = UNLISTED.lower()  # as the box hands over a text typed there
    app.switch_page("pages/per_query.py").run()
    assert not app.exception, app.exception
    box = app.selectbox(key="pq_query")
    assert box.value == UNLISTED and box.options[0] == UNLISTED and len(box.options) == LISTED_IMAGES + 1
    assert not app.warning
    app.select_slider(key="pq_k").set_value(3).run()  # a redraw of the whole page keeps it
    assert app.selectbox(key="pq_query").value == UNLISTED
    app.text_input(key="pq_search").set_value("DEMO_0000").run()  # a new search lists its own matches
    assert app.selectbox(key="pq_query").value != UNLISTED


def test_a_typed_text_that_is_no_image_id_says_what_to_do():
    app = open_page()
    app.session_state["pq_query"] = "DEMO_9"
    app.switch_page("pages/per_query.py").run()
    assert not app.exception, app.exception
    assert [w.value for w in app.warning] == [
        f"'DEMO_9' is not among the {LISTED_IMAGES} queries listed, and no image has this ID: type part of its ID, "
        "a concept or a caption word in the search box above to list the queries that match."]
    assert app.selectbox(key="pq_query").value in app.selectbox(key="pq_query").options


def test_an_image_id_typed_whole_in_the_search_box_comes_first():
    app = open_page("pages/per_query.py")
    app.text_input(key="pq_search").set_value(f" {UNLISTED.lower()} ").run()
    assert not app.exception, app.exception
    assert app.selectbox(key="pq_query").value == UNLISTED
