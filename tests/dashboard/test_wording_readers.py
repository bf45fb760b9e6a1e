"""dashboard/wording.py's per-reader labels (a metric's header, a family's title, a group's, a source's name, a p-value,
a path step's link): each says exactly what the page said inline before, to either reader; and the pages that use them
compare the reader once, for what only one reader is shown, not to choose words."""

from __future__ import annotations

import re

import pytest

from dashboard import wording
from dashboard.wording import (
    MESSAGES,
    family_heading,
    family_label,
    group_title,
    link_words,
    metric_column,
    metric_header,
    metric_help,
    significance,
    source_name,
    status_words,
)
from evalcore.app.baselines import BASELINES
from evalcore.app.explain import RELATION_WORDS
from evalcore.io.tables import (
    GROUP_TITLES,
    GROUPS,
    PLAIN_GROUP_TITLES,
    describe_family,
    describe_metric,
    format_p_value,
    plain_metric_help,
    plain_metric_label,
)
from tests.conftest import ROOT
from tests.dashboard.test_app_audience import forbidden_in

METRICS = ["nn-CUI@10", "CUI@5", "P@5[modality]", "P@30[modality+organ]", "RBP", "CUI@5{dice}", "ERR@10", "R@10"]
READERS = ("researcher", "clinician")


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("metric", METRICS)
def test_a_metrics_labels_are_the_pages_former_ones(metric, reader):
    clinician = reader == "clinician"
    assert metric_header(metric, reader) == (plain_metric_label(metric) if clinician else metric)
    assert metric_column(metric, reader) == (plain_metric_label(metric).split(":")[0] if clinician
                                             else metric.split("[")[0])
    assert metric_help(metric, 0.5, reader) == (plain_metric_help(metric) if clinician else describe_metric(metric, 0.5))
    title = plain_metric_label(metric).split(": ", 1)[1] if clinician else "family"
    assert family_label("family", metric, 0.5, reader) == (title if clinician else
                                                           f"family: {describe_family(metric, 0.5)}")
    bold, description = family_heading("family", metric, 0.5, reader)
    former = f"**{title.capitalize()}**" if clinician else f"**{title}**: {describe_family(metric, 0.5)}"
    assert f"**{bold}**" + (f": {description}" if description else "") == former


@pytest.mark.parametrize("reader", READERS)
def test_a_groups_title_and_a_sources_name_are_the_pages_former_ones(reader):
    clinician = reader == "clinician"
    for group in [*GROUPS, "a group not written yet"]:
        assert group_title(group, reader) == (PLAIN_GROUP_TITLES if clinician else GROUP_TITLES).get(group, group)
    for baseline in BASELINES:
        assert source_name(baseline, reader) == (baseline.short_plain if clinician else baseline.title)
    assert source_name("my-run", reader) == "my-run"


@pytest.mark.parametrize("reader", READERS)
def test_a_p_value_a_status_and_a_path_step_are_said_as_the_pages_said_them(reader):
    clinician = reader == "clinician"
    for p_value in (0.0, 0.0004, 0.049, 0.05, 0.2, 1.0):
        assert significance(p_value, reader) == (("likely real" if p_value < 0.05 else "could be chance") if clinician
                                                 else format_p_value(p_value))
    for status in ("negated", "hypothetical", "history", "other exam", "literature", "a status not written yet"):
        assert status_words(status, reader) == (wording.status_of(status).after_words if clinician else status)
    assert link_words("", "is_a", reader) == "start"
    for link in ("is_a", "part_of"):
        for relation, verb in RELATION_WORDS.items():
            if clinician:
                former = f"the step above {verb} this one" if link == "is_a" else f"this one {verb} the step above"
            else:
                former = f"broader: the previous {verb} it (up)" if link == "is_a" else \
                    f"narrower: it {verb} the previous (down)"
            assert link_words(link, relation, reader) == former
            assert not clinician or not forbidden_in(former)


def test_the_per_reader_labels_follow_the_sessions_reader(monkeypatch):
    for reader in READERS:
        monkeypatch.setattr(wording, "audience", lambda reader=reader: reader)
        assert metric_header("nn-CUI@10") == metric_header("nn-CUI@10", reader)
        assert significance(0.01) == significance(0.01, reader)


def test_the_moved_messages_are_the_pages_former_ones():
    intro = MESSAGES["significance_intro"]
    assert intro.researcher.format(samples=2000, smallest=1 / 2001) == (
        "**Is the difference real?** Paired randomization test between each pair of systems; p-values corrected for "
        "testing several pairs at once (Holm). Green: p < 0.05, a difference unlikely to be chance. With 2,000 "
        "randomizations no p-value is below 1/(2,000 + 1) = 0.0005 before Holm's correction.")
    assert intro.clinician.startswith("**Is the difference real?** Each cell compares two systems: \"likely real\"")
    assert MESSAGES["group_difference"].researcher == "A - B"
    by = MESSAGES["retrieved_by_reference"]
    assert (by.researcher.format(title="T", plain="p"), by.clinician.format(title="T", plain="p")) == \
        ("By T: p.", "The images with p.")


#: The pages whose words come from dashboard/wording.py: each compares the session's reader once (its predicate for
#: what only one reader is shown), or not at all.
ONE_PREDICATE = ("leaderboard.py", "ablation.py", "per_query.py", "case_view.py", "knowledge_graph.py")
READER_TEST = re.compile(r"\bwho [!=]= |\baudience\(\) [!=]= |\bis_clinician\(\)")


@pytest.mark.parametrize("page", ONE_PREDICATE)
def test_a_page_compares_its_reader_once(page):
    text = (ROOT / "pages" / page).read_text(encoding="utf-8")
    assert len(READER_TEST.findall(text)) <= 1, (page, READER_TEST.findall(text))
