"""Issue 69, recall: a list name ("Chest, abdomen, and pelvis", "Chest and abdomen", "Head and neck") is read
where a caption writes its items with slashes, as a radiology request names a scan's regions ("CT
chest/abdomen/pelvis"), beside the items' own names; a slash is needed (spaces alone are no list). Captions written
by hand."""

from __future__ import annotations

import pytest

from evalcore.extraction.extractor import ConceptDictionary, extract

CAP, CHEST_ABDOMEN, HEAD_NECK, CHEST, ABDOMEN, PELVIS, HEAD, NECK = (
    "C1562547", "C1442171", "C0460004", "C0817096", "C0000726", "C0030797", "C0018670", "C0027530")
NAMES = {CAP: "Chest, abdomen, and pelvis", CHEST_ABDOMEN: "Chest and abdomen", HEAD_NECK: "Head and neck structure",
         CHEST: "Chest", ABDOMEN: "Abdomen", PELVIS: "Pelvis", HEAD: "Head", NECK: "Neck"}
DICTIONARY = ConceptDictionary.build(NAMES)


@pytest.mark.parametrize("caption, expected", [
    ("CT chest/abdomen/pelvis with contrast.", {CAP, CHEST, ABDOMEN, PELVIS}),
    ("Chest/abdomen X-ray of a newborn.", {CHEST_ABDOMEN, CHEST, ABDOMEN}),
    ("CTA head/neck: no occlusion.", {HEAD_NECK, HEAD, NECK}),
    ("CT of the chest, abdomen and pelvis.", {CAP, CHEST, ABDOMEN, PELVIS}),
    ("Images of the chest abdomen pelvis region.", {CHEST, ABDOMEN, PELVIS}),
    ("CT chest/pelvis.", {CHEST, PELVIS}),
])
def test_a_list_name_written_with_slashes(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected
