"""The caption words behind a concept (issue 67): those that gave it and those that did not count differ in hue, in
lightness and without colour (struck through), and the evidence view draws a key with a sample of each."""

from __future__ import annotations

from dashboard.cards import WORDS_COLOURS, marked_words
from tests.dashboard.test_app_extraction_audit import HEMATOMA, extracted_from_my_captions


def test_words_not_counted_are_struck_through_and_grey_beside_violet():
    counted, negated = marked_words("hematoma", "counted"), marked_words("hematoma", "negated")
    assert counted == ":violet-background[:violet[hematoma]]"
    assert negated == ":gray-background[:gray[~~hematoma~~]]"  # not by colour alone
    # A hue against none (violet beside red read as one colour, and as one to a red-green colour-blind reader).
    assert WORDS_COLOURS == {"counted": "violet", "negated": "gray"}
    assert marked_words("*x* [y]", "negated") == ":gray-background[:gray[~~\\*x\\*\xa0\\[y\\]~~]]"  # escaped


def test_the_evidence_view_draws_a_key_with_a_sample_of_each_mark():
    app = extracted_from_my_captions()
    app.selectbox(key="evidence_concept").set_value(HEMATOMA).run()
    app.selectbox(key="evidence_image").set_value("mine01").run()
    assert not app.exception, app.exception
    keys = [c.value for c in app.caption if "struck through" in c.value]
    assert keys == [":violet-background[:violet[extracted]] :gray-background[:gray[~~not\xa0extracted~~]] Violet: a "
                    "mention that gave the concept. Grey and struck through: a mention in a negated, hypothetical, "
                    "history, other-exam or literature scope (NegEx/ConText-style rule), not extracted."], keys
    assert any(":gray-background[:gray[~~hematoma~~]]" in m.value for m in app.markdown)
