"""Issue 69, fourth pass, recall: a name written with its organ's noun where it has the organ's adjective, or with
the adjective where it has the noun (Jacquemin 2001's morpho-syntactic term variants; the lexicon's
``organ-adjective`` rows pair the two, Terminologia Anatomica). Each variant is read beside the mentions of its
words, never instead of them, and only where no other row of the dictionary reads its words; two abbreviations
the open synonyms give (CSF, TMJ), shipped; British spellings of a word's start or end. Each case is a caption
worked by hand with the concepts it states; beside each, one that must give nothing new."""

from __future__ import annotations

import pytest

from evalcore.errors import InputError
from evalcore.extraction.extractor import ConceptDictionary, extract, mentions
from evalcore.extraction.lexicon import read_lexicon

CEREBRAL_ATROPHY, BRAIN, ATROPHIC, LIVER_CYST, LIVER, CYST = (
    "C0235946", "C0006104", "C0333641", "C0267834", "C0023884", "C0010709")
PANCREATIC_PSEUDOCYST, PANCREAS, PSEUDOCYST, PANCREATITIS, INFLAMMATION = (
    "C0030299", "C0030274", "C0333161", "C0030305", "C0021368")
UTERINE_WALL, UTERUS, KIDNEY_CORTEX, KIDNEY = "C0447620", "C0042149", "C0022655", "C0022646"
ESOPHAGEAL_DILATION, ESOPHAGUS, DILATATION = "C0192389", "C0014876", "C0012359"
AORTIC_ARCH, AORTA, ABDOMINAL_WALL, ABDOMINAL_AORTA, DUODENAL_OBSTRUCTION, DUODENUM = (
    "C0003489", "C0003483", "C0836916", "C0003484", "C0013292", "C0013303")
NAMES = {
    CEREBRAL_ATROPHY: "Cerebral atrophy", BRAIN: "Brain", ATROPHIC: "Atrophic", LIVER_CYST: "Liver cyst",
    LIVER: "Liver", CYST: "Cyst", PANCREATIC_PSEUDOCYST: "Pancreatic Pseudocyst", PANCREAS: "Pancreas",
    PSEUDOCYST: "Pseudocyst", PANCREATITIS: "Pancreatitis", INFLAMMATION: "Inflammation",
    UTERINE_WALL: "Structure of uterine wall", UTERUS: "Uterus", KIDNEY_CORTEX: "Structure of cortex of kidney",
    KIDNEY: "Kidney", AORTIC_ARCH: "Aortic arch structure", AORTA: "Aorta", ABDOMINAL_WALL: "Abdominal wall structure",
    ABDOMINAL_AORTA: "Abdominal aorta structure", DUODENAL_OBSTRUCTION: "Duodenal Obstruction", DUODENUM: "Duodenum",
    ESOPHAGEAL_DILATION: "Dilation of esophagus due to disease", ESOPHAGUS: "Esophagus", DILATATION: "Dilatation",
}
DICTIONARY = ConceptDictionary.build(NAMES)


@pytest.mark.parametrize("caption, expected", [
    ("MRI: marked brain atrophy for the patient's age.", {CEREBRAL_ATROPHY, BRAIN, ATROPHIC}),
    ("CT shows atrophy of the brain.", {CEREBRAL_ATROPHY, BRAIN, ATROPHIC}),
    ("Ultrasound: a simple hepatic cyst.", {LIVER_CYST, CYST}),
    ("CT: pseudocyst of the pancreas compressing the stomach.", {PANCREATIC_PSEUDOCYST, PANCREAS, PSEUDOCYST}),
    ("MRI: a mass arising from the posterior wall of the uterus.", {UTERINE_WALL, UTERUS}),
    ("CT: hypoattenuation throughout the left renal cortex.", {KIDNEY_CORTEX, KIDNEY}),
    # the lexicon's derivations ("aortic" is "aorta") in the of-phrase their keys did not read
    ("CT: a hematoma tracking from the arch of the aorta.", {AORTIC_ARCH, AORTA}),
    ("CT: sudden collapse and obstruction of the duodenum.", {DUODENAL_OBSTRUCTION, DUODENUM}),
    # SNOMED CT's "due to disease" is not written; "oesophageal" is "esophageal", the organ-adjective of the esophagus
    ("Barium swallow: ongoing oesophageal dilatation.", {ESOPHAGEAL_DILATION, DILATATION}),
    ("CT: a dilatation of the esophagus with an air-fluid level.", {ESOPHAGEAL_DILATION, DILATATION, ESOPHAGUS}),
])
def test_a_name_with_its_organs_noun_or_adjective_is_read_beside_its_words(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected


@pytest.mark.parametrize("caption, expected", [
    ("CT: brain without atrophy.", {BRAIN}),  # no atrophy stated: the variant is denied with its words
    ("Ultrasound: a cyst next to the liver.", {CYST, LIVER}),  # no of-phrase, no adjective: the liver's neighbour
    # around the pancreas (the lexicon's "peripancreatic"), no inflammation of it
    ("CT: peripancreatic inflammation and fluid.", {INFLAMMATION, PANCREAS}),
    # an of-phrase's organ written as an adjective modifies the next noun: the aorta's wall, no abdominal wall
    ("CT: thrombus along the wall of abdominal aorta.", {ABDOMINAL_AORTA}),
    ("Transesophageal echocardiography: an esophageal view of the atria.", set()),  # no organ read everywhere
])
def test_no_variant_where_the_caption_does_not_write_it(caption: str, expected: set[str]) -> None:
    assert extract(caption, DICTIONARY) == expected


def test_the_variant_is_a_mention_of_the_words_it_spans() -> None:
    found = [(m.concept, m.text) for m in mentions("CT shows atrophy of the brain.", DICTIONARY)]
    assert (CEREBRAL_ATROPHY, "atrophy of the brain") in found and (BRAIN, "brain") in found


def test_no_variant_where_another_concepts_name_is_written_so() -> None:
    # "brain atrophy" is a name of its own here: the variant of "Cerebral atrophy" is not read there
    d = ConceptDictionary.build({CEREBRAL_ATROPHY: "Cerebral atrophy", "C0000001": "Brain atrophy"})
    assert extract("Brain atrophy on MRI.", d) == {"C0000001"}


# --- abbreviations that the open synonyms give, shipped so that names alone read them ----------------------------

CSF, TMJ, SVC = "C0007806", "C0039493", "C0042459"
SHIPPED = ConceptDictionary.build({CSF: "Cerebrospinal Fluid", TMJ: "Temporomandibular Joint",
                                   SVC: "Superior vena cava structure"})


@pytest.mark.parametrize("caption, expected", [
    ("MRI: a subcutaneous CSF collection after surgery.", {CSF}),
    ("Sagittal CT of the TMJ: comminuted fracture of the condylar neck.", {TMJ}),
    ("MRI: no residual subcutaneous CSF.", set()),  # denied
    ("Reading the csf value from the log.", set()),  # an acronym is read as written, in capitals
    ("Coronal chest CT: thrombus in SVC extending to the right atrium.", {SVC}),  # undefined, radiology's SVC
])
def test_csf_tmj_and_svc_are_read_with_names_alone(caption: str, expected: set[str]) -> None:
    assert extract(caption, SHIPPED) == expected


# --- British spellings of a word's start or end (the lexicon's spelling rows), a variant spelling, a refutation ---

CECUM, HEMOTHORAX, HEMANGIOMA, EDEMA, SEPTICEMIA, ANEURYSM, AERIAL = (
    "C0007531", "C0019123", "C0018916", "C0013604", "C0036690", "C0002940", "C0000002")
SPELLED = ConceptDictionary.build({CECUM: "Cecum", HEMOTHORAX: "Hemothorax", HEMANGIOMA: "Hemangioma", EDEMA: "Edema",
                                   SEPTICEMIA: "Septicemia", ANEURYSM: "Aneurysm", AERIAL: "Aerial view"})


@pytest.mark.parametrize("caption, expected", [
    ("CT: a mass lesion in the caecum.", {CECUM}),
    ("CT: a large left-sided haemothorax.", {HEMOTHORAX}),
    ("MRI: multiple haemangiomas of the spine.", {HEMANGIOMA}),  # a plural too
    ("CT: oedematous mesentery.", {EDEMA}),  # the British start, then the lexicon's derivation
    ("Chest X-ray in septicaemia.", {SEPTICEMIA}),  # a British end
    ("Ultrasound: an aneurism of the oval foramen.", {ANEURYSM}),
])
def test_a_british_or_variant_spelling_is_read_as_the_name(caption: str, expected: set[str]) -> None:
    assert extract(caption, SPELLED) == expected


@pytest.mark.parametrize("caption, expected", [
    ("An aerial view of the site.", {AERIAL}),  # no rule for "ae" inside or at the start of any word
    ("First MRI wrongly suggestive for an aneurism.", set()),  # a refuted first impression, as "misdiagnosed as"
])
def test_no_spelling_rule_beyond_its_rows_and_a_refuted_impression_is_none(caption: str, expected: set[str]) -> None:
    assert extract(caption, SPELLED) == expected


@pytest.mark.parametrize("row", ["haem\tspelling\themo\tx", "-aemia\tspelling\themia\tx", "haem-\tspelling\t-hem\tx"])
def test_a_spelling_row_names_a_words_start_or_end_on_both_sides(tmp_path, row: str) -> None:
    path = tmp_path / "lexicon.tsv"
    path.write_text("words\tkind\treads_as\tsource\n" + row + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="a word's start"):
        read_lexicon(path)
