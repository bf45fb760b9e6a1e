"""Issue 69, third pass, recall: concepts a caption states plainly that the extractor missed, read by general
mechanisms (a part noun's adjective and the organ the caption names, the short form of a range of vertebrae) and
sourced rows (Latin plurals, the suprarenal gland, the cecum's adjective). Each case is a caption worked by hand with
the concepts it states; beside each, one that must give nothing new. No mechanism makes a concept the dictionary
lacks."""

from __future__ import annotations

import pytest

from evalcore.extraction.extractor import ConceptDictionary, extract, mentions

LUNG_PARENCHYMA, LIVER_PARENCHYMA, RENAL_PARENCHYMA, LIVER, CHEST = (
    "C0819757", "C0736268", "C0227628", "C0023884", "C0817096")
L3, L4, L5, C5, C6, S1 = "C0446434", "C0446436", "C0446435", "C0446415", "C0446416", "C0446438"
CALYX, ADRENAL, CECUM, APPENDIX, DIVERTICULITIS, CT, MRI = (
    "C0022651", "C0001625", "C0007531", "C0003617", "C0012813", "C0040405", "C0024485")
NAMES = {
    LUNG_PARENCHYMA: "Structure of parenchyma of lung", LIVER_PARENCHYMA: "Liver parenchyma",
    RENAL_PARENCHYMA: "Renal parenchyma", LIVER: "Liver", CHEST: "Chest",
    L4: "L4 level", L5: "L5 level", C5: "C5 level", C6: "C6 level", S1: "Level of the first sacral vertebra",
    CALYX: "Structure of calyx", ADRENAL: "Adrenal Glands", CECUM: "Cecum", APPENDIX: "Appendix",
    DIVERTICULITIS: "Diverticulitis", CT: "X-Ray Computed Tomography", MRI: "Magnetic Resonance Imaging",
}
DICTIONARY = ConceptDictionary.build(NAMES)


# --- a part noun's adjective: the parenchyma of the organ the caption names ---------------------------------------


@pytest.mark.parametrize("caption", [
    "Chest CT showing parenchymal consolidation in the lingula.",
    "Chest X-ray showing parenchymal lung opacities in left mid and lower zones.",
    "CT of the thorax: diffuse parenchymal calcifications.",
    "HRCT of a COVID-19 pneumonia with less than 10% parenchymal involvement.",
])
def test_parenchymal_in_a_caption_of_the_lung_is_the_lungs_parenchyma(caption: str) -> None:
    assert LUNG_PARENCHYMA in extract(caption, DICTIONARY)


@pytest.mark.parametrize("caption, expected", [
    ("Ultrasound: renal parenchymal thinning.", RENAL_PARENCHYMA),
    ("CT: heterogeneous liver parenchyma.", LIVER_PARENCHYMA),
])
def test_the_parenchyma_of_another_named_organ_is_that_organs(caption: str, expected: str) -> None:
    found = extract(caption, DICTIONARY)
    assert expected in found and LUNG_PARENCHYMA not in found


@pytest.mark.parametrize("caption", [
    "Brain MRI: multiple parenchymal hemorrhages.",  # the brain's, which the dictionary has no concept of
    "Heterogeneity of the parenchyma echostructure.",  # no organ named: no organ's parenchyma
    "A hyperechoic rim of displaced ovarian parenchyma.",
    "Postoperative CT: good decompression of healthy parenchyma.",
])
def test_a_parenchyma_of_no_lung_is_not_the_lungs(caption: str) -> None:
    assert LUNG_PARENCHYMA not in extract(caption, DICTIONARY)


# --- a range of vertebrae written with its last number alone -----------------------------------------------------


@pytest.mark.parametrize("caption, expected", [
    ("Sagittal MRI of the lumbar spine: large L4-5 disc herniation.", {MRI, L4, L5}),
    ("MRI shows a large disc extrusion at L4/5.", {MRI, L4, L5}),
    ("CT myelogram: foraminal stenosis at C5\u20136 level.", {CT, C5, C6}),
    ("Disc herniation at L4-L5 and L5-S1.", {L4, L5, S1}),  # both ends written whole: read as before
])
def test_the_last_level_of_a_short_range_is_read(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected


@pytest.mark.parametrize("caption, expected", [
    ("Gastric ultrasound with a Lumify C5-2 curvilinear probe.", set()),  # a probe's name, falling numbers
    ("MRI: a fusion of the segments L2-3 of the lumbar spine.", {MRI}),  # no L2 or L3 level in the dictionary
    ("A stage T4-5 tumour on CT.", {CT}),  # no level beside it and no word of the spine: a stage
])
def test_no_level_where_the_range_is_none_or_the_dictionary_lacks_it(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected


def test_the_range_end_is_a_mention_of_the_number_written() -> None:
    caption = "Spondylosis of the spine at the C5-6 level."
    assert [(m.concept, m.text) for m in mentions(caption, DICTIONARY)] == [(C5, "C5"), (C6, "6")]


def test_an_existing_level_is_never_made_of_a_missing_one() -> None:
    dictionary = ConceptDictionary.build({L4: "L4 level"})  # no L5 level: "L4-5" gives L4 alone
    assert extract("Disc herniation of the lumbar spine at L4-5.", dictionary) == {L4}


# --- sourced rows: Latin plurals, the suprarenal gland, the cecum's adjective ------------------------------------


@pytest.mark.parametrize("caption, expected", [
    ("Bilateral dilated renal calyces filled with calculi.", CALYX),  # calyces: the plural of calyx
    ("US image showing an echogenic left suprarenal lesion.", ADRENAL),  # a side and the suprarenal (gland)
    ("CT axial scan demonstrating cecal diverticulitis.", CECUM),
    ("CT: the primary caecal mass (arrow).", CECUM),
])
def test_a_plural_an_anatomical_name_or_an_adjective_names_the_concept(caption: str, expected: str) -> None:
    assert expected in extract(caption, DICTIONARY)


@pytest.mark.parametrize("caption, absent", [
    ("Ultrasound measurement of the cecal appendix diameter.", CECUM),  # the vermiform appendix, no cecum
    ("Suprarenal aortic aneurysm.", ADRENAL),  # no side: the adjective places the aorta, names no gland
])
def test_the_same_words_that_name_no_such_concept(caption: str, absent: str) -> None:
    assert absent not in extract(caption, DICTIONARY)
