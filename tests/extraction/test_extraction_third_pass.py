"""Issue 69, concepts from captions, third pass: each mechanism's case as a test, with the case that must not change
beside it."""

from __future__ import annotations

import pytest

from evalcore.cli import main
from evalcore.extraction.extractor import ConceptDictionary, extract, mentions
from evalcore.extraction.language import caption_language, languages_of
from evalcore.extraction.negation import names_a_disorder
from evalcore.readers.synonyms import read_synonyms

CIRRHOSIS, AORTA, PNEUMOTHORAX, APPENDICITIS, LESION = "C0023890", "C0003956", "C0032326", "C0003615", "C0221198"
CT, PLAIN_XRAY, AP_VIEW, ABDOMEN, PELVIS, CHEST, LIVER = ("C0040405", "C1306645", "C1999039", "C0000726", "C0030797",
                                                         "C0817096", "C0023884")
NECK, ANEURYSM, FEMUR, FACE = "C0027530", "C0002940", "C0015811", "C0015450"
AORTIC_VALVE, AORTIC_VALVE_VEGETATIONS, US = "C0003501", "C0577870", "C0041618"

NAMES = {
    CIRRHOSIS: "Liver Cirrhosis", AORTA: "Ascending aorta structure", PNEUMOTHORAX: "Pneumothorax",
    APPENDICITIS: "Appendicitis", LESION: "Lesion", CT: "X-Ray Computed Tomography", PLAIN_XRAY: "Plain x-ray",
    AP_VIEW: "Anterior-Posterior", ABDOMEN: "Abdomen", PELVIS: "Pelvis", CHEST: "Chest", LIVER: "Liver",
    NECK: "Neck", ANEURYSM: "Aneurysm", FEMUR: "Femur", FACE: "Face", AORTIC_VALVE: "Aortic valve structure",
    AORTIC_VALVE_VEGETATIONS: "Aortic valve vegetations", US: "Ultrasonography",
}
DICTIONARY = ConceptDictionary.build(NAMES)


# --- 1. findings nouns in denials ------------------------------------------------------------------------------


@pytest.mark.parametrize("caption, denied", [
    ("CT scan without findings of liver cirrhosis.", CIRRHOSIS),
    ("CT without any findings of appendicitis.", APPENDICITIS),
    ("Chest X-ray without findings of pneumothorax.", PNEUMOTHORAX),
    ("CT with no finding of cavity lesions.", LESION),
    ("No findings of liver cirrhosis on CT.", CIRRHOSIS),
    ("CT without evidence of liver cirrhosis.", CIRRHOSIS),
])
def test_a_denied_findings_noun_denies_what_would_be_found(caption, denied):
    assert denied not in extract(caption, DICTIONARY)


def test_a_denied_findings_noun_keeps_the_place_and_an_affirmed_one_keeps_the_finding():
    # nothing that is right today changes: the structure the findings would be at is there
    assert AORTA in extract("CT without pathological findings of the ascending aorta", DICTIONARY)
    assert CIRRHOSIS in extract("CT showing findings of liver cirrhosis.", DICTIONARY)
    assert [names_a_disorder(word) for word in ("cirrhosis", "appendicitis", "lesions", "aorta", "basis")] == \
        [True, True, True, False, False]


# --- 2. the assumed standard view only for a plain radiograph of the abdomen or pelvis --------------------------


@pytest.mark.parametrize("caption", [
    "Abdominal X-ray showing dilated bowel loops.",
    "Radiograph of the pelvis after the fall.",
])
def test_a_plain_abdominal_or_pelvic_radiograph_still_gets_the_assumed_view(caption):
    found = mentions(caption, DICTIONARY)
    assert any(m.concept == AP_VIEW and m.source == "assumed" for m in found)


@pytest.mark.parametrize("caption", [
    "Intraoperative X-ray fluoroscopy of the pelvis.",                      # a fluoroscopic study
    "Intra-operative fluoroscopic view of the pelvis on a radiograph.",
    "Chest X-ray showing right diaphragmatic elevation due to liver abscess.",  # another region's radiograph
    "Ventrodorsal radiograph of the abdomen of the dog.",                    # a projection of its own
    "Ventro-dorsal radiograph of the pelvis.",
    "Barium swallow of the abdomen.",                                         # a contrast study, as before
])
def test_no_assumed_view_for_a_contrast_or_fluoroscopic_study_or_another_region(caption):
    assert AP_VIEW not in extract(caption, DICTIONARY)


# --- 3. an OBO cross-reference of another meaning is no synonym --------------------------------------------------

HPO = (b'[Term]\nid: HP:1\nname: Hepatic steatosis\nsynonym: "Fatty liver" EXACT []\nxref: UMLS:C2711227\n\n'
       b'[Term]\nid: HP:2\nname: Multiple myeloma\nxref: UMLS:C0032131\n\n'
       b'[Term]\nid: HP:3\nname: Plasmacytoma\nsynonym: "Solitary plasmacytoma" EXACT []\nxref: UMLS:C0032131\n\n'
       b'[Term]\nid: HP:4\nname: Hypersensitivity pneumonitis\nxref: UMLS:C0002390\n\n'
       b'[Term]\nid: HP:5\nname: Pneumothorax\nsynonym: "Collapsed lung" EXACT []\nxref: UMLS:C0032326\n')
HPO_NAMES = {"C2711227": "Steatohepatitis", "C0032131": "Plasmacytoma", "C0002390": "Extrinsic allergic alveolitis",
             "C0032326": "Pneumothorax"}


def test_an_xref_to_a_narrower_or_shared_concept_gives_no_synonyms():
    synonyms = read_synonyms(HPO, "hp.obo", HPO_NAMES)
    assert "C2711227" not in synonyms  # "Fatty liver" is no Steatohepatitis: the inflammation is not said
    assert synonyms["C0032131"] == ("Plasmacytoma", "Solitary plasmacytoma")  # not "Multiple myeloma"
    # nothing that is right today changes: an inflammation said both ways, an exact term, and no names given
    assert synonyms["C0002390"] == ("Hypersensitivity pneumonitis",)
    assert synonyms["C0032326"] == ("Pneumothorax", "Collapsed lung")
    assert read_synonyms(HPO, "hp.obo")["C2711227"] == ("Hepatic steatosis", "Fatty liver")


# --- 4. a site word scoped by the caption -------------------------------------------------------------------------


@pytest.mark.parametrize("caption", [
    "Angiogram after aneurysm neck clipping.",
    "Aneurysm with a wide neck on angiography.",
    "Radiograph of the femur showing a reduced neck shaft angle.",
])
def test_a_neck_whose_organ_the_sentence_names_is_no_neck(caption):
    assert NECK not in extract(caption, DICTIONARY)


@pytest.mark.parametrize("caption", [
    "CT angiography of the neck showing a carotid aneurysm.",
    "Neck CT showing an aneurysm.",
    "CT scan (coronal) of neck with contrast showing an aneurysm.",
])
def test_the_neck_an_examination_is_of_stays_the_neck(caption):
    assert NECK in extract(caption, DICTIONARY)


# --- 7. language -----------------------------------------------------------------------------------------------


def test_a_french_caption_gives_no_concepts_and_de_face_is_no_face():
    french = "Radiographie du thorax de face montrant une opacité du lobe inférieur droit"
    assert caption_language(french) == "fr" and extract(french, DICTIONARY) == frozenset()
    assert FACE not in extract("Chest radiograph de face.", ConceptDictionary.build(NAMES, abbreviations=True))
    # nothing that is right today changes: an English caption, a bilingual one, the face itself
    assert caption_language("CT of the chest with contrast") == "en"
    assert FACE in extract("Photograph of the face.", DICTIONARY)
    assert dict(languages_of(["CT of the chest", french])) == {"en": 1, "fr": 1}


def test_the_extract_command_counts_the_french_captions(tmp_path, capsys):
    captions, names, out = tmp_path / "captions.csv", tmp_path / "names.csv", tmp_path / "out.csv"
    captions.write_text('ID,Caption\nA,"Radiographie du thorax de face montrant une opacité du lobe"\n'
                        "B,CT of the chest\n", encoding="utf-8")
    names.write_text("CUI,Canonical name\nC0040405,X-Ray Computed Tomography\nC0817096,Chest\nC0015450,Face\n",
                     encoding="utf-8")
    main(["extract", "--captions", str(captions), "--names", str(names), "--out", str(out)])
    assert "1 captions in French: no concepts found" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8").splitlines()[1] == "A,"


# --- 8. a finding joined to its site across a preposition ------------------------------------------------------


@pytest.mark.parametrize("caption", [
    "Echocardiography showing vegetations on the aortic valve.",
    "Echocardiography: a small vegetation at the aortic valve.",
])
def test_a_finding_on_a_structure_is_the_pair_the_names_hold(caption):
    assert AORTIC_VALVE_VEGETATIONS in extract(caption, DICTIONARY)


def test_a_finding_in_a_structure_or_a_part_of_it_is_no_pair():
    assert AORTIC_VALVE_VEGETATIONS not in extract("Echocardiography showing calcification of the aortic valve.",
                                                   DICTIONARY)
    assert AORTIC_VALVE in extract("Echocardiography showing vegetations on the aortic valve.", DICTIONARY)
