"""Issue 69, recall: a radiograph named by its projection written with the spellings the projection rows list
("anterior-posterior view", "antero-posterior projection", "postero-anterior view"; imaging_vocabulary.tsv), as
"anteroposterior view" is read; and the view of a vessel, nerve or duct is an angiogram's, no plain radiograph's
(a vessel's lumen shows only with a contrast medium). Captions written by hand, with the concepts they state."""

from __future__ import annotations

import pytest

from evalcore.extraction.extractor import ConceptDictionary, extract

PLAIN_XRAY, AP, PA, FOOT, HIP, RCA = "C1306645", "C1999039", "C1996865", "C0016504", "C0019552", "C1261316"
NAMES = {PLAIN_XRAY: "Plain x-ray", AP: "Anterior-Posterior", PA: "Postero-Anterior", FOOT: "Foot",
         HIP: "Hip structure", RCA: "Right coronary artery structure"}
DICTIONARY = ConceptDictionary.build(NAMES)


@pytest.mark.parametrize("caption, expected", [
    ("Anterior-posterior view of a flat foot.", {PLAIN_XRAY, AP, FOOT}),
    ("Anterior posterior view of the left hip after fixation.", {PLAIN_XRAY, AP, HIP}),
    ("Preoperative antero-posterior projection of the hip.", {PLAIN_XRAY, AP, HIP}),
    ("Postero-anterior view: a foreign body in the foot.", {PLAIN_XRAY, PA, FOOT}),
])
def test_a_projection_spelled_apart_names_a_radiograph(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected


@pytest.mark.parametrize("caption, expected", [
    ("Anterior-posterior view of the right coronary artery.", {RCA}),
    ("Anteroposterior view of the right coronary artery after stenting.", {RCA}),
])
def test_the_view_of_a_vessel_is_no_plain_radiograph(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected
