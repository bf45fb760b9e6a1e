"""Issue 69, recall: "coronary" an organ adjective of the coronary artery (lexicon.tsv, Terminologia Anatomica's
arteria coronaria), so a name with the adjective is also read with the noun ("coronary artery aneurysm" is the
Coronary Aneurysm), beside its words' own mentions. Captions written by hand."""

from __future__ import annotations

import pytest

from evalcore.extraction.extractor import ConceptDictionary, extract

CORONARY_ANEURYSM, ANEURYSM, RCA, CORONARY_ARTERY = "C0010051", "C0002940", "C1261316", "C0205042"
DICTIONARY = ConceptDictionary.build({CORONARY_ANEURYSM: "Coronary Aneurysm", ANEURYSM: "Aneurysm",
                                      RCA: "Right coronary artery structure", CORONARY_ARTERY: "Coronary artery"})


@pytest.mark.parametrize("caption, expected", [
    ("Angiogram showing a coronary artery aneurysm.", {CORONARY_ANEURYSM, CORONARY_ARTERY, ANEURYSM}),
    ("Angiogram: aneurysm of the coronary artery.", {CORONARY_ANEURYSM, CORONARY_ARTERY, ANEURYSM}),
    ("Angiogram: a coronary aneurysm.", {CORONARY_ANEURYSM}),
    ("Angiogram: the right coronary artery is normal.", {RCA}),
])
def test_coronary_is_the_coronary_artery_in_a_name(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected
