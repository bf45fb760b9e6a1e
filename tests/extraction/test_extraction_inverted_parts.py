"""Issue 69, recall: an inverted heading "Whole, part" whose part ends in a part noun (sense_words.tsv, Terminologia
Anatomica's general terms: horn, lobe, neck, ...) is read as the of-phrase a caption writes, "part of the whole"
("the occipital horns of the lateral ventricles"), beside its uninverted form. Captions written by hand."""

from __future__ import annotations

import pytest

from evalcore.extraction.extractor import ConceptDictionary, extract

OCCIPITAL_HORN, TEMPORAL_HORN, LATERAL_VENTRICLE, PATENT_FORAMEN_OVALE, DILATATION = (
    "C0152282", "C0152283", "C0152279", "C0016522", "C0012359")
NAMES = {OCCIPITAL_HORN: "Lateral ventricle, occipital horn", TEMPORAL_HORN: "Lateral ventricle, temporal horn",
         LATERAL_VENTRICLE: "Lateral ventricle structure", PATENT_FORAMEN_OVALE: "Foramen Ovale, Patent",
         DILATATION: "Dilatation"}
DICTIONARY = ConceptDictionary.build(NAMES)


@pytest.mark.parametrize("caption, expected", [
    ("CT: dilatation of the occipital horn of the lateral ventricle.", {OCCIPITAL_HORN, DILATATION}),
    ("MRI: blood in the temporal horns of the lateral ventricles.", {TEMPORAL_HORN}),
    ("MRI: the left lateral ventricle is normal.", {LATERAL_VENTRICLE}),
    ("Echocardiogram: patent foramen ovale.", {PATENT_FORAMEN_OVALE}),
])
def test_an_inverted_part_is_read_as_its_of_phrase(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected
