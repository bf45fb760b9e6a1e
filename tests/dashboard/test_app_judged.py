"""The judges' grades beside the label-free measures (issue 68): the Leaderboard scores the systems on the judgments
kept for the collection (trec_eval's measures on them as graded qrels) with Kendall's tau-b between the two rankings
of the systems; Choose a measure shows each measure's agreement with the judges and, on request, tau-b against alpha
for each n. Judgments are stored in a store of each test's own (``CBIR_LENS_STORE``)."""

from __future__ import annotations

import csv
import itertools

import pytest
from streamlit.testing.v1 import AppTest

from evalcore.app.judging import judged_collection
from evalcore.app.judgments import JudgmentStore
from tests.conftest import APP_TIMEOUT, DEMO, ROOT


@pytest.fixture(autouse=True)
def own_store(tmp_path, monkeypatch):
    """Each test's judgments in a store of its own."""
    monkeypatch.setenv("CBIR_LENS_STORE", str(tmp_path / "store"))
    return tmp_path / "store"


def opened(page: str, audience: str = "Researcher") -> AppTest:
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT)
    app.session_state["audience"] = audience
    app.run()
    app.switch_page(page).run()
    assert not app.exception, app.exception
    return app


def demo_gradings(cases: int = 16, per_case: int = 8) -> list[tuple[str, str, int]]:
    """Pairs of the demo graded by their concepts' overlap (2: IoU >= 0.5, 1: some overlap, 0: none): for each of the
    first ``cases`` images, the images sharing most concepts with it and a few sharing none."""
    with open(DEMO / "concepts.csv", newline="") as handle:
        sets = {row["ID"]: frozenset(row["CUIs"].split(";")) for row in csv.DictReader(handle)}
    ids = list(sets)
    gradings = []
    for case in ids[:cases]:
        overlap = sorted((image for image in ids if image != case),
                         key=lambda image: -len(sets[case] & sets[image]) / len(sets[case] | sets[image]))
        none = [image for image in ids if not sets[case] & sets[image]][:3]
        for image in itertools.islice(overlap, per_case - 3):
            iou = len(sets[case] & sets[image]) / len(sets[case] | sets[image])
            gradings.append((case, image, 2 if iou >= 0.5 else 1 if iou > 0 else 0))
        gradings += [(case, image, 0) for image in none]
    return gradings


def table_with(app: AppTest, column: str):
    """The first table the page shows with ``column``."""
    return next(frame.value for frame in app.dataframe if column in frame.value.columns)


def store_judgments(app: AppTest, store) -> int:
    """The demo's gradings kept by two judges for the collection ``app`` shows; how many pairs."""
    judgments = JudgmentStore(store)
    collection = judged_collection(app.session_state["workspace"])
    gradings = demo_gradings()
    for judge in ("Ana", "Ben"):
        for case, candidate, grade in gradings:
            judgments.record(collection, judge, case, candidate, grade)
    return len(gradings)


@pytest.mark.slow
def test_the_leaderboard_scores_the_systems_on_the_stored_judgments(own_store):
    app = opened("pages/leaderboard.py")
    assert not [toggle for toggle in app.toggle if toggle.key == "judged_toggle"]  # no judgments, no view
    pairs = store_judgments(app, own_store)
    app.run()
    app.toggle(key="judged_toggle").set_value(True).run()
    assert not app.exception, app.exception
    assert any(f"On {pairs:,} judged pairs of 16 cases" in caption.value for caption in app.caption)
    means = table_with(app, "qrels-NDCG@10")
    assert {"qrels-NDCG@10", "qrels-Prec@10", "qrels-MAP@10", "qrels-R@10"} <= set(means.columns)
    taus = table_with(app, "label-free counterpart")
    assert {"CUI@10", "nn-CUI@10"} <= set(taus["label-free counterpart"])
    ndcg = taus[taus["label-free counterpart"] == "nn-CUI@10"]["Kendall's tau-b"].iloc[0]
    assert -1 <= ndcg <= 1
    assert (taus["systems"] >= 2).all()


@pytest.mark.slow
def test_a_clinician_is_not_offered_the_judged_scores(own_store):
    app = opened("pages/leaderboard.py", "Clinician")
    store_judgments(app, own_store)
    app.run()
    assert not app.exception, app.exception
    assert not [toggle for toggle in app.toggle if toggle.key == "judged_toggle"]


@pytest.mark.slow
def test_choose_a_measure_shows_each_measures_agreement_with_the_judges_and_the_sweep(own_store):
    app = opened("pages/measures.py")
    assert any("No judgments yet" in caption.value for caption in app.caption)
    pairs = store_judgments(app, own_store)
    app.run()
    assert not app.exception, app.exception
    assert any(f"by 2 judges of {pairs:,} pairs in 16 cases" in text.value for text in app.markdown)
    table = table_with(app, "tau-b low")
    assert {"tau-b", "tau-b low", "tau-b high", "AUC grade>=1"} <= set(table.columns)
    assert "iou" in set(table["measure"])
    iou = table[table["measure"] == "iou"].iloc[0]
    assert iou["tau-b low"] <= iou["tau-b"] <= iou["tau-b high"]
    assert iou["tau-b"] > 0.5  # the judges graded by concept overlap
    app.toggle(key="judges_sweep").set_value(True).run()
    assert not app.exception, app.exception
    assert any("The sidebar's setting `nn-iou(alpha=0.5,n=1)`: tau-b" in text.value for text in app.markdown)
