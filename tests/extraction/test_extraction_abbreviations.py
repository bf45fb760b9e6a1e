"""Abbreviations a caption defines (evalcore.extraction.abbreviations, the Schwartz-Hearst algorithm) and how
extraction reads them: hand-worked captions, then definitions planted in random texts."""

from __future__ import annotations

import random

import pytest

from evalcore.errors import ParameterError
from evalcore.extraction.abbreviations import defined_abbreviations
from evalcore.extraction.caption_concepts import find_caption_concepts
from evalcore.extraction.evidence import evidence_rows
from evalcore.extraction.extractor import ConceptDictionary, extract, mentions

PDA_ARTERY, DUCTUS, RCA, CT, CELIAC, ASPIRATION = ("C0226047", "C0013274", "C1261316", "C0040405", "C0007569",
                                                    "C0700198")
NAMES = {PDA_ARTERY: "Posterior descending artery", DUCTUS: "Patent ductus arteriosus",
         RCA: "Right coronary artery structure", CT: "X-Ray Computed Tomography", CELIAC: "Celiac trunk",
         ASPIRATION: "Pulmonary aspiration", "C0027551": "Needle device"}
DICTIONARY = ConceptDictionary.build(NAMES, {DUCTUS: ["PDA"], ASPIRATION: ["aspiration"]})


def spans(text: str) -> list[tuple[str, str]]:
    return [(d.short, text[d.start:d.end]) for d in defined_abbreviations(text)]


@pytest.mark.parametrize(("text", "expected"), [
    ("Stenosis of the posterior descending artery (PDA).", [("PDA", "posterior descending artery")]),
    ("heat shock transcription factor (HSF) binding", [("HSF", "heat shock transcription factor")]),  # the paper's
    ("fibrosis.Abbreviations: AS, aortic stenosis; LV, left ventricle", [("AS", "aortic stenosis"),
                                                                         ("LV", "left ventricle")]),
    ("MRV image. MRV: magnetic resonance venography", [("MRV", "magnetic resonance venography")]),
    ("Color Doppler. LA: left atrium, MR: mitral regurgitation.", [("LA", "left atrium"),
                                                                   ("MR", "mitral regurgitation")]),
    ("T2-weighted image (T2WI) of the knee", [("T2WI", "T2-weighted image")]),
    # no short form: lower case, one capital, a number, words, a label
    ("A mass (arrow) in the liver (a) and (n = 12) or (Fig. 2) or (A)", []),
    # the long form stays in its sentence and needs the short form's letters in order
    ("Posterior view. Descending aorta (PDA)", []),
    ("the stomach (PDA)", []),
    # a glossary entry only where a sentence or clause begins: "on CT, contrast ..." defines nothing
    ("Seen on CT, contrast enhanced", []),
    # the long form may not hold the short form as a word
    ("the liver (LIVER)", []),
    # issue 36, sixteenth pass: a glossary's long form may hold a word in parentheses ("left (renal) vein"), but a
    # parenthesis that ends the entry is a remark on it, not its words
    ("MAPS.RV, right (renal) vein; LV, left (renal) vein; L, lateral", [("RV", "right (renal) vein"),
                                                                      ("LV", "left (renal) vein")]),
    ("RPA: right pulmonary artery; LPA: left pulmonary artery (dilated)", [("RPA", "right pulmonary artery"),
                                                                           ("LPA", "left pulmonary artery")]),
])
def test_hand_worked_definitions(text: str, expected: list[tuple[str, str]]) -> None:
    assert spans(text) == expected


def test_not_a_text_is_refused_with_the_projects_error() -> None:
    with pytest.raises(ParameterError, match="defined_abbreviations takes a text"):
        defined_abbreviations(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(30))
def test_a_definition_planted_in_random_words_is_found_with_its_long_form(seed: int) -> None:
    """Initials of random words, written after them in parentheses or before them in a glossary entry, define
    those words, wherever they stand among words that define nothing."""
    rng = random.Random(seed)
    filler = ["the", "mass", "in", "of", "shows", "image", "arrow", "lesion", "and", "2.5", "cm", "left", "(arrow)"]
    words = ["".join(rng.choice("bcdfghklmnprstvw") + rng.choice("aeiou") for _ in range(rng.randint(2, 4)))
             for _ in range(rng.randint(2, 4))]
    long_form = " ".join(words)
    short = "".join(word[0] for word in words).upper()
    before = " ".join(rng.choice(filler) for _ in range(rng.randint(0, 12)))
    after = " ".join(rng.choice(filler) for _ in range(rng.randint(0, 12)))
    assert defined_abbreviations(f"{before}. {after}") == []
    text = f"{before}. {long_form} ({short}) {after}"
    assert spans(text) == [(short, long_form)], text
    text = f"{before}. {short}: {long_form}; {after}"
    assert spans(text) == [(short, long_form)], text


def test_an_abbreviation_the_caption_defines_otherwise_is_read_as_defined() -> None:
    caption = "Coronary angiogram: stenosis of the posterior descending artery (PDA). The PDA is occluded."
    found = mentions(caption, DICTIONARY)
    assert [(m.text, m.concept, m.source) for m in found if m.text == "PDA"] == [("PDA", PDA_ARTERY, "defined")] * 2
    assert DUCTUS not in extract(caption, DICTIONARY)
    # as the dictionary reads it where the caption says so, or defines nothing
    assert DUCTUS in extract("Chest X-ray: a patent ductus arteriosus (PDA). The PDA is large.", DICTIONARY)
    assert DUCTUS in extract("Echocardiography shows a PDA.", DICTIONARY)


def test_a_glossary_can_take_the_modality_away() -> None:
    caption = "Endosonography-guided celiac plexus neurolysis. SMA: superior mesenteric artery; CT: celiac trunk."
    assert extract(caption, DICTIONARY) == {CELIAC}
    assert CT in extract("Endosonography-guided neurolysis, then CT.", DICTIONARY)


def test_an_abbreviation_the_dictionary_lacks_is_read_as_its_long_form() -> None:
    caption = "The right coronary artery (RCA) on the left. The RCA was not visualized."
    assert [(m.text, m.concept, m.negated) for m in mentions(caption, DICTIONARY) if m.text == "RCA"] == [
        ("RCA", RCA, False), ("RCA", RCA, True)]


def test_a_long_form_that_names_no_concept_leaves_the_dictionary_sense() -> None:
    assert DUCTUS in extract("The left posterior descending (LPD) branch and a PDA", DICTIONARY)


INFARCTION, SCLEROSIS, CIRCUMFLEX, MRI = "C0027051", "C0026769", "C0226037", "C0024485"
SENSES = ConceptDictionary.build(
    {INFARCTION: "Myocardial Infarction", SCLEROSIS: "Multiple Sclerosis", MRI: "Magnetic Resonance Imaging",
     CIRCUMFLEX: "Structure of circumflex branch of left coronary artery"},
    {INFARCTION: ["MI"], SCLEROSIS: ["MS"], CIRCUMFLEX: ["LCX"]})


@pytest.mark.parametrize(("caption", "kept", "dropped"), [
    # a long form that names no concept and shares no word with the sense's names: another sense
    ("Color Doppler: massive mitral insufficiency (MI).", set(), {INFARCTION}),
    ("Coronal CT of the sinuses. MS, maxilary sinus; NC, nasal cavity.", set(), {SCLEROSIS}),
    ("Panoramic index (PMI) and mental index (MI). The MI was low.", set(), {INFARCTION}),
    # one that shares a word with them is a shorter name of the same sense
    ("Occlusion of the left circumflex (LCX).", {CIRCUMFLEX}, set()),
    # the imaging vocabulary's abbreviations keep their modality: a technique is the modality's
    ("Coronal short-tau inversion recovery (STIR) image of the knee.", {MRI}, set()),
    # undefined, the dictionary's sense stands
    ("Old MI. MS plaques.", {INFARCTION, SCLEROSIS}, set()),
    # a glossary's long form with a word in parentheses is a definition too
    ("Axial CT of the kidney. MS, mid (renal) segment.", set(), {SCLEROSIS}),
])
def test_a_long_form_naming_another_sense_takes_the_dictionary_sense_away(caption: str, kept: set[str],
                                                                          dropped: set[str]) -> None:
    found = extract(caption, SENSES)
    assert kept <= found and not dropped & found


def test_a_defined_abbreviation_has_the_sense_its_long_form_has_in_its_phrase() -> None:
    """"aspiration" after "needle" is no pulmonary aspiration: neither is the FNA that stands for it."""
    caption = "The cyst before fine-needle aspiration (FNA). FNA showed fluid."
    assert ASPIRATION not in extract(caption, DICTIONARY)


def test_the_evidence_names_the_definition() -> None:
    found = find_caption_concepts({"a": "Stenosis of the posterior descending artery (PDA)."}, NAMES,
                                  synonyms={DUCTUS: ["PDA"]})
    rows = [row for row in evidence_rows(found) if row.words == "PDA"]
    assert [(row.concept, row.matched, row.rule) for row in rows] == [
        (PDA_ARTERY, "defined", "abbreviation the caption defines: PDA = posterior descending artery")]
