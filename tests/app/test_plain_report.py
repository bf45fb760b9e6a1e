"""The clinician's comparison page (evalcore.app.plain_report): every text a user gave escaped, one system or an
untested difference said in words, the cases as given."""

from __future__ import annotations

from evalcore.app.plain_report import (
    Difference,
    ExampleCase,
    FoundImage,
    PlainReport,
    PlainSystem,
    plain_report_html,
)
from tests.dashboard.test_app_audience import forbidden_in

HOSTILE = "<script>alert('x')</script>"


def report(differences: tuple[Difference, ...], systems: tuple[PlainSystem, ...]) -> PlainReport:
    case = ExampleCase(HOSTILE, "A caption with <b>tags</b> & an ampersand.", ("liver", HOSTILE),
                       (FoundImage(HOSTILE, "img<2>", "Both show liver.", 0.5),))
    return PlainReport("top 10: concept match", "What it measures.", "Only identical concepts count.", systems,
                       differences, (case,))


def test_every_text_a_user_gave_is_escaped():
    systems = (PlainSystem(HOSTILE, 0.9, 0.8, 1.0, 1200), PlainSystem("b & c", 0.5, 0.4, 0.6, 1200))
    text = plain_report_html(report((Difference("b & c", 0.4, 0.001),), systems))
    assert "<script" not in text and "<b>tags" not in text and "img<2>" not in text
    assert "&lt;script&gt;" in text and "b &amp; c" in text and "1,200" in text
    assert "likely real" in text and "One example case" not in text and "1 example case" in text
    assert not forbidden_in(text)


def test_one_system_and_an_untested_difference_are_said_in_words():
    one = plain_report_html(report((), (PlainSystem("a", 0.9, 0.8, 1.0, 10),)))
    assert "One system was compared: <strong>a</strong> scores 0.9000" in one and "How sure" not in one
    systems = (PlainSystem("a", 0.9, 0.8, 1.0, 10), PlainSystem("b", 0.5, 0.4, 0.6, 10))
    untested = plain_report_html(report((Difference("b", 0.4, float("nan")),), systems))
    assert "how sure cannot be said" in untested and "could not be compared" in untested
    level = plain_report_html(report((Difference("b", 0.0, 0.9),), (systems[0], PlainSystem("b", 0.9, 0.8, 1.0, 10))))
    assert "find images alike" in level and "could be chance" in level
