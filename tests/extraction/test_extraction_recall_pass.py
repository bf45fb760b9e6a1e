"""Issue 69, third pass, recall: concepts a caption states plainly that the extractor missed, read by general
mechanisms (a part noun's adjective and the organ the caption names, the short form of a range of vertebrae,
SNOMED CT's "Entire X" read by X where no other concept is, "both" or a side before a singular modifier, a name
that is a list read across commas) and sourced rows
(Latin plurals, the suprarenal gland, the cecum's adjective). Each case is a caption worked by hand with
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


# --- SNOMED CT's "Entire X" read by X where no other concept is -----------------------------------------------

PULMONARY_VEIN, VEINS, SECOND_METATARSAL, METATARSAL, ENTIRE_LEFT_ATRIUM, LEFT_ATRIUM, ENTIRE_COLON, COLON = (
    "C1456806", "C0042449", "C0223984", "C0025584", "C1269894", "C0225860", "C1281569", "C0009368")
ENTIRE = ConceptDictionary.build({
    PULMONARY_VEIN: "Entire pulmonary vein", VEINS: "Veins", SECOND_METATARSAL: "Entire second metatarsal",
    METATARSAL: "Metatarsal bone structure", ENTIRE_LEFT_ATRIUM: "Entire left atrium",
    LEFT_ATRIUM: "Left atrial structure", ENTIRE_COLON: "Entire colon", COLON: "Colon structure (body structure)"})


@pytest.mark.parametrize("caption, expected", [
    # the structure the words name; the longer name holds its head noun, as every name does ("Veins" no more)
    ("Resolution of left lower pulmonary vein thrombus.", {PULMONARY_VEIN}),
    ("The vessel connects to the left pulmonary veins.", {PULMONARY_VEIN}),
    # ("third metatarsal", which no concept names, is still a metatarsal bone)
    ("Radiograph: second and third metatarsal neck fractures.", {SECOND_METATARSAL, METATARSAL}),
])
def test_an_entire_structure_is_read_by_its_words_where_no_other_concept_is(caption: str, expected: set[str]) -> None:
    assert extract(caption, ENTIRE) == expected


@pytest.mark.parametrize("caption, expected", [
    ("Echocardiography: a mass in the left atrium.", {LEFT_ATRIUM}),  # "Left atrial structure" reads it
    ("CT: wall thickening of the colon.", {COLON}),  # "Colon structure" reads it
    ("Dilated veins of the leg.", {VEINS}),
])
def test_an_entire_structure_keeps_its_word_where_another_concept_reads_the_rest(caption: str,
                                                                                  expected: set[str]) -> None:
    assert extract(caption, ENTIRE) == expected


# --- "both" or a side quantifies its head noun: "both lung fields", "left atrial myxoma" -------------------------

BOTH_LUNGS, LUNG_FIELD, LEFT_LUNG, LEFT_ATRIAL, ATRIAL_MYXOMA, MYXOMA, HEART, HEART_ATRIUM, RIGHT_ATRIAL = (
    "C0225754", "C0225759", "C0225730", "C0225860", "C0151241", "C0027149", "C0018787", "C0018792", "C0225844")
BOTH = ConceptDictionary.build({BOTH_LUNGS: "Bilateral lungs", LUNG_FIELD: "Lung field",
                                LUNG_PARENCHYMA: "Structure of parenchyma of lung", LEFT_LUNG: "Left lung",
                                LEFT_ATRIAL: "Left atrial structure", ATRIAL_MYXOMA: "Atrial myxoma", MYXOMA: "Myxoma",
                                HEART: "Heart", HEART_ATRIUM: "Heart Atrium", RIGHT_ATRIAL: "Right atrial structure"},
                               {HEART_ATRIUM: ["atrium of the heart"]})


@pytest.mark.parametrize("caption, expected", [
    ("Nodular pattern in both lung fields.", {BOTH_LUNGS, LUNG_FIELD}),  # the lung fields of both lungs
    ("Ground-glass opacities in both lung parenchyma.", {BOTH_LUNGS, LUNG_PARENCHYMA}),
])
def test_both_before_a_singular_modifier_reads_the_head_name_too(caption: str, expected: set[str]) -> None:
    assert extract(caption, BOTH) == expected


@pytest.mark.parametrize("caption", [
    "Infiltrates in both lungs.",  # the plural noun is the head: no longer name after it
    "Opacities in both lung bases.",  # no name "lung base" in the dictionary
    "Consolidation in both lungs, fields of fibrosis.",  # a plural and a comma: no lung field
])
def test_both_lungs_alone_is_the_pair(caption: str) -> None:
    assert extract(caption, BOTH) == {BOTH_LUNGS}


# --- a name that is a list, read across the caption's commas ---------------------------------------------------

CAP, RVH = "C1562547", "C0162770"
LISTS = ConceptDictionary.build({CAP: "Chest, abdomen, and pelvis", CT: "X-Ray Computed Tomography",
                                 CHEST: "Chest", RVH: "Hypertrophy, Right Ventricular"})


@pytest.mark.parametrize("caption", [
    "CT of the chest, abdomen, and pelvis showing bilateral pleural effusions.",
    "CT chest, abdomen and pelvis for staging.",  # the serial comma is optional
    "Chest, abdomen, and pelvis CT scan of Patient #1 with contrast.",
])
def test_a_list_name_is_read_with_the_commas_the_caption_writes(caption: str) -> None:
    assert {CT, CAP} <= extract(caption, LISTS)


@pytest.mark.parametrize("caption", [
    "CT of the chest and abdomen, pelvis not imaged.",  # another order of commas and "and"
    "CT of the chest; abdomen and pelvis on MRI.",  # a semicolon is no comma of the list
    "Echo: left ventricular hypertrophy, right ventricular enlargement.",  # an inverted heading is no list
])
def test_no_list_name_where_the_caption_writes_no_such_list(caption: str) -> None:
    found = extract(caption, LISTS)
    assert CAP not in found and RVH not in found


@pytest.mark.parametrize("caption, expected", [
    ("Chest radiograph: infiltrates in the left lung field.", {LEFT_LUNG, LUNG_FIELD}),
    ("Echocardiography showing left atrial myxoma.", {LEFT_ATRIAL, ATRIAL_MYXOMA}),  # the myxoma's name holds "myxoma"
])
def test_a_side_before_a_singular_modifier_reads_the_head_name_too(caption: str, expected: set[str]) -> None:
    assert extract(caption, BOTH) == expected


@pytest.mark.parametrize("caption, expected", [
    ("A mass in the right atrium of the heart.", {RIGHT_ATRIAL, HEART}),  # a longer name across "of": not read
    ("Echocardiography: a myxoma in the left atrium.", {LEFT_ATRIAL, MYXOMA}),  # no name begins at "atrium"
])
def test_no_head_name_across_of_or_where_none_begins(caption: str, expected: set[str]) -> None:
    assert extract(caption, BOTH) == expected


# --- a lobe's side written on its organ, or the organ before the lobe: "lower lobe of the left lung" ---------------

LEFT_LOWER_LOBE, RIGHT_UPPER_LOBE, LOWER_LOBE, LUNG_LOBE, RIGHT_LUNG, LEFT_LIVER_LOBE = (
    "C1261077", "C1261074", "C0225758", "C0225752", "C0225706", "C0227486")
LOBES = ConceptDictionary.build({
    LEFT_LOWER_LOBE: "Structure of left lower lobe of lung", RIGHT_UPPER_LOBE: "Structure of right upper lobe of lung",
    LOWER_LOBE: "Structure of lower lobe of lung", LUNG_LOBE: "Structure of lobe of lung", LEFT_LUNG: "Left lung",
    RIGHT_LUNG: "Right lung", LEFT_LIVER_LOBE: "Left lobe of liver", LIVER: "Liver"})


@pytest.mark.parametrize("caption, expected", [
    ("CT: a small nodule in the lower lobe of the left lung (white arrow).", {LEFT_LOWER_LOBE}),
    ("Chest CT showing consolidation in the upper lobe of the right lung.", {RIGHT_UPPER_LOBE}),
    ("Ground-glass opacities of the left lower lung lobe.", {LEFT_LOWER_LOBE}),
    ("Bilateral patchy infiltrates in the lower lung lobes.", {LOWER_LOBE}),
])
def test_a_lobes_side_on_its_organ_or_the_organ_before_the_lobe_is_the_lobe(caption: str,
                                                                             expected: set[str]) -> None:
    assert extract(caption, LOBES) == expected


@pytest.mark.parametrize("caption, expected", [
    ("A mass in the lower lobe and the left lung.", {LOWER_LOBE, LEFT_LUNG}),  # no part-of phrase
    ("Infiltrates in the lobes of the right lung.", {LUNG_LOBE, RIGHT_LUNG}),  # no position word to move
    ("A cyst in the left lobe of the liver.", {LEFT_LIVER_LOBE}),
    ("A cyst in the lobe of the left liver graft.", {LIVER}),  # a side alone is not moved to the organ
])
def test_no_lobe_is_moved_where_the_name_has_no_such_words(caption: str, expected: set[str]) -> None:
    assert extract(caption, LOBES) == expected


# --- a side before an abbreviation the caption defines: "the right MCA. MCA: middle cerebral artery" --------------

MCA, RIGHT_MCA, LEFT_MCA, ICA, LEFT_ICA = "C0149566", "C0226213", "C0226214", "C0007276", "C0226157"
ARTERIES = ConceptDictionary.build({
    MCA: "Structure of middle cerebral artery", RIGHT_MCA: "Structure of right middle cerebral artery",
    LEFT_MCA: "Structure of left middle cerebral artery", ICA: "Internal carotid artery structure",
    LEFT_ICA: "Structure of left internal carotid artery"})


@pytest.mark.parametrize("caption, expected", [
    ("Ischemic stroke involving right MCA. Abbreviation: MCA, middle cerebral artery.", {MCA, RIGHT_MCA}),
    ("DSA showing a large aneurysm of the left ICA. DSA: digital subtraction angiogram; ICA: internal carotid artery",
     {ICA, LEFT_ICA}),
    ("Hypodensity in the left MCA territory (middle cerebral artery (MCA)) and the right MCA.",
     {MCA, LEFT_MCA, RIGHT_MCA}),
])
def test_a_side_before_a_defined_abbreviation_reads_the_sided_name(caption: str, expected: set[str]) -> None:
    assert extract(caption, ARTERIES) == expected


@pytest.mark.parametrize("caption, expected", [
    ("Infarct in the right MCA territory.", set()),  # no definition: the caption says no long form
    ("The right ICA and the ICA, internal carotid artery.", {ICA}),  # no right internal carotid artery named
    ("Right-sided ICA stenosis. ICA: internal carotid artery", {ICA}),  # "sided" is no side word
])
def test_no_sided_name_without_a_definition_or_a_sided_concept(caption: str, expected: set[str]) -> None:
    assert extract(caption, ARTERIES) == expected


# --- a finding's participle before its structure: "a dilated right ventricle" -------------------------------------

RV_DILATATION, RIGHT_VENTRICLE, DILATATION, PERICARDIUM, PERICARDIAL_CALCIFICATION, CALCINOSIS = (
    "C0344893", "C0225883", "C0012359", "C0031050", "C0240708", "C0006663")
FINDINGS = ConceptDictionary.build({
    RV_DILATATION: "Right cardiac ventricular dilatation", RIGHT_VENTRICLE: "Right ventricular structure",
    DILATATION: "Pathological Dilatation", PERICARDIUM: "Pericardium",
    PERICARDIAL_CALCIFICATION: "Calcification of pericardium", CALCINOSIS: "Calcinosis"},
    {RV_DILATATION: ["Right ventricular dilatation"], CALCINOSIS: ["Calcification"]})


@pytest.mark.parametrize("caption, expected", [
    ("Apical view of TTE that shows a dilated right ventricle.", {RV_DILATATION, RIGHT_VENTRICLE, DILATATION}),
    ("Echocardiogram: severely dilated right ventricle.", {RV_DILATATION, RIGHT_VENTRICLE, DILATATION}),
    ("CT shows the thickened and calcified pericardium.", {PERICARDIAL_CALCIFICATION, PERICARDIUM, CALCINOSIS}),
])
def test_a_findings_participle_before_its_structure_is_the_finding_there(caption: str, expected: set[str]) -> None:
    assert extract(caption, FINDINGS) == expected


@pytest.mark.parametrize("caption, expected", [
    ("A dilated aorta beside a normal right ventricle.", {DILATATION, RIGHT_VENTRICLE}),  # another structure
    ("The enlarged right ventricle.", {RIGHT_VENTRICLE}),  # no participle the lexicon reads as a finding
    ("No pericardial effusion; right ventricle dilatation.", {RV_DILATATION}),  # the name as written, as before
])
def test_no_finding_at_a_structure_the_participle_does_not_qualify(caption: str, expected: set[str]) -> None:
    assert extract(caption, FINDINGS) == expected
