"""Issue 69, recall: a name's position word before its side read after it too ("right superior pulmonary vein"),
and "main" after a side names the trunk of the sided vessel, the vessel itself ("the left main
pulmonary artery" is the Left pulmonary artery), read past like a position word after a side, and beside a name
that holds it ("Left main bronchus" stays). Captions written by hand, with the concepts they state."""

from __future__ import annotations

import pytest

from evalcore.extraction.extractor import ConceptDictionary, extract

LEFT_PA, RIGHT_PA, PA, LEFT_MAIN_BRONCHUS, LEFT_CORONARY, THROMBUS = (
    "C0226069", "C0226054", "C0034052", "C0225630", "C1261082", "C0087086")
NAMES = {LEFT_PA: "Left pulmonary artery", RIGHT_PA: "Right pulmonary artery", PA: "Pulmonary artery structure",
         LEFT_MAIN_BRONCHUS: "Left main bronchus structure", LEFT_CORONARY: "Left coronary artery structure",
         THROMBUS: "Thrombus"}
DICTIONARY = ConceptDictionary.build(NAMES)


@pytest.mark.parametrize("caption, expected", [
    ("CTPA: thrombus in the left main pulmonary artery.", {LEFT_PA, THROMBUS}),
    ("CTPA: thrombus in the right main pulmonary artery.", {RIGHT_PA, THROMBUS}),
    ("Angiogram: stenosis of the left main coronary artery.", {LEFT_CORONARY}),
    ("Bronchoscopy view of the left main bronchus.", {LEFT_MAIN_BRONCHUS}),
    ("CT: the main pulmonary artery is dilated.", {PA}),
])
def test_main_after_a_side_is_the_sided_vessel(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected


SUPERIOR_RIGHT_PV, RIGHT_PV = "C0226671", "C0226669"
VEINS = ConceptDictionary.build({SUPERIOR_RIGHT_PV: "Structure of superior right pulmonary vein",
                                 RIGHT_PV: "Structure of right pulmonary vein"})


@pytest.mark.parametrize("caption, expected", [
    ("CT: the right superior pulmonary vein drains into the left atrium.", {SUPERIOR_RIGHT_PV}),
    ("CT: the superior right pulmonary vein is patent.", {SUPERIOR_RIGHT_PV}),
    ("CT: the right pulmonary veins are patent.", {RIGHT_PV}),
])
def test_a_position_before_a_side_is_read_after_it_too(caption: str, expected: set[str]) -> None:
    assert extract(caption, VEINS) == expected
