"""Issue 69, recall: a name of a pair of organs ("Both kidneys", "Bilateral lungs") is read with either word, as
"bilateral" names the right and left members of paired organs (Merriam-Webster's Medical Dictionary). Each case is
a caption worked by hand with the concepts it states; beside them, captions that must give nothing new."""

from __future__ import annotations

import pytest

from evalcore.extraction.extractor import ConceptDictionary, extract

BOTH_KIDNEYS, KIDNEY, BILATERAL_LUNGS, BOTH_EYES, EYE, BILATERAL_PNEUMONIA, PNEUMONIA = (
    "C0227665", "C0022646", "C0225754", "C0229118", "C0015392", "C1142578", "C0032285")
NAMES = {BOTH_KIDNEYS: "Both kidneys", KIDNEY: "Kidney", BILATERAL_LUNGS: "Bilateral lungs",
         BOTH_EYES: "Structure of both eyes", EYE: "Eye", BILATERAL_PNEUMONIA: "Bilateral pneumonia",
         PNEUMONIA: "Pneumonia"}
DICTIONARY = ConceptDictionary.build(NAMES)


@pytest.mark.parametrize("caption, expected", [
    ("CT: wedge-shaped hypodense lesions in bilateral kidneys.", {BOTH_KIDNEYS}),
    ("Ultrasound of both kidneys.", {BOTH_KIDNEYS}),
    ("Chest CT: nodules in both lungs.", {BILATERAL_LUNGS}),
    ("Chest CT: nodules in bilateral lungs.", {BILATERAL_LUNGS}),
    ("MRI of the orbits: proptosis of bilateral eyes.", {BOTH_EYES}),
    ("Fundus photographs of both eyes.", {BOTH_EYES}),
])
def test_a_pair_is_read_by_either_word(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected


@pytest.mark.parametrize("caption, expected", [
    ("Ultrasound of the left kidney.", {KIDNEY}),
    ("Both the kidney and the eye were normal.", {KIDNEY, EYE}),
    ("Chest X-ray: bilateral pneumonia.", {BILATERAL_PNEUMONIA}),
])
def test_no_pair_without_its_words(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected
