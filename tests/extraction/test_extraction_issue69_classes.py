"""Issue 69, the two wrong-tag classes its third pass's test reading left over 2 %: a bone's "neck-shaft angle" read
as the Neck, and a standard AP view assumed for a contrast study or a chest radiograph; then another thing's neck
read as the Neck (a device's, a hernia's or a diverticulum's, a long bone's head-neck). Each mechanism's case,
worked by hand, with the case that must not change beside it."""

from __future__ import annotations

import pytest

from evalcore.extraction.extractor import ConceptDictionary, extract, mentions
from evalcore.extraction.sense import SENSE_WORDS, names_a_contrast_study

PLAIN_XRAY, AP_VIEW, ABDOMEN, PELVIS, CHEST, LIVER, STOMACH = ("C1306645", "C1999039", "C0000726", "C0030797",
                                                               "C0817096", "C0023884", "C3714551")
NECK, FEMUR, SCAPHOID = "C0027530", "C0015811", "C0036291"
NAMES = {PLAIN_XRAY: "Plain x-ray", AP_VIEW: "Anterior-Posterior", ABDOMEN: "Abdomen", PELVIS: "Pelvis",
         CHEST: "Chest", LIVER: "Liver", STOMACH: "Stomach structure", NECK: "Neck", FEMUR: "Femur",
         SCAPHOID: "Scaphoid bone"}
DICTIONARY = ConceptDictionary.build(NAMES)


def assumed_view(caption: str) -> bool:
    return any(m.concept == AP_VIEW and m.source == "assumed" for m in mentions(caption, DICTIONARY))


# --- a long bone's neck ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("caption", [
    "Preoperative x-ray showing Shepherd's crook deformity with neck-shaft angle of 114 degrees",
    "Neck shaft angle.",
    "AP radiograph showing a neck-shaft angle of 125 degrees.",
    "The shaft-neck angle was reduced.",
])
def test_a_neck_shaft_angle_gives_no_neck(caption):
    assert NECK not in extract(caption, DICTIONARY)


@pytest.mark.parametrize("caption", [
    "CT of the neck showing a lymph node.",
    "Neck CT.",
    "Neck mass; the shaft of the catheter is seen.",  # the neck and a shaft, not joined
    "Head and neck radiograph.",
])
def test_the_neck_with_no_long_bones_part_joined_to_it_stays_the_neck(caption):
    assert NECK in extract(caption, DICTIONARY)


# --- another thing's neck: a device's, a pouch's, a long bone's head-neck --------------------------------------


@pytest.mark.parametrize("caption", [
    "Radiograph of the hip: the stem's neck is bent.",
    "Cone-beam CT showing the miniscrew neck against the root.",
    "Dislocation of the neck piece of the modular stem.",
    "Breakage of the neck piece of a dual-modular hip stem.",  # a hyphen's parts are words of their own
    "Plain radiograph showing the neck fracture of the cemented Exeter stem.",
])
def test_a_devices_neck_gives_no_neck(caption):
    assert NECK not in extract(caption, DICTIONARY)


@pytest.mark.parametrize("caption", [
    "Axial CT showing a wide-neck hernia of the anterior abdominal wall.",
    "Incisional hernia with a narrow neck (arrow).",
    "A bladder diverticulum; the neck measures 8 mm.",
    "Coronal CT: a wide-neck anterior abdominal wall hernia containing colon.",  # the compound's head is the hernia
    "Echocardiography showed a 2 cm sac with a narrow neck, suggesting a false aneurysm.",  # a sac opens by a neck
])
def test_a_pouchs_neck_gives_no_neck(caption):
    assert NECK not in extract(caption, DICTIONARY)


@pytest.mark.parametrize("caption", [
    "Radiograph showing a displaced head-neck fragment.",
    "A cam deformity at the head-neck junction.",
    "Reduced head-neck offset on the frog-leg lateral view.",
])
def test_a_long_bones_head_neck_gives_no_neck(caption):
    assert NECK not in extract(caption, DICTIONARY)


@pytest.mark.parametrize("caption", [
    "Lateral neck radiograph after anterior cervical fusion with a plate and screws.",
    "Swelling of the neck after stem cell transplantation.",
    "Ultrasound of the neck of a patient with a stent in the carotid artery.",
    "A Zenker diverticulum in the left neck.",
    "A pharyngeal diverticulum bulging into the neck.",
    "Subcutaneous emphysema of the neck and a hiatal hernia.",
    "Head-neck CT angiography showing a stenosis.",
    "Head-neck cancer on PET.",
])
def test_the_neck_beside_a_device_a_pouch_or_head_neck_imaging_stays_the_neck(caption):
    assert NECK in extract(caption, DICTIONARY)


# --- the assumed AP view: a contrast study -----------------------------------------------------------------------


@pytest.mark.parametrize("caption", [
    "Barium enema radiograph of the abdomen.",
    "Abdominal x-ray following water-soluble contrast meal.",
    "Upper gastrointestinal radiogram showing stomach dilatation",
    "An intravenous urography film showing the right kidney in the abdomen.",
    "Retrograde urethrogram, pelvic radiograph.",
    "Radiograph of the pelvis during hysterosalpingography.",
    "Abdominal radiograph after ERCP.",
    "Abdominal X-ray after Gastrografin.",
    "Radiography through the nasobiliary tube showed no filling defect in the bile ducts of the abdomen.",
    "Drainage tube radiography of the abdomen.",
])
def test_a_contrast_studys_radiograph_gets_no_assumed_view(caption):
    assert PLAIN_XRAY in extract(caption, DICTIONARY)
    assert not assumed_view(caption)


@pytest.mark.parametrize("caption", [
    "Plain abdominal radiograph showing dilated bowel loops.",
    "Abdominal X-ray showing air-fluid levels.",
    "Radiograph of the pelvis after the fall.",
    "In contrast, the abdominal radiograph was normal.",           # "in contrast" names no medium
    "Non-contrast x-ray showed a staghorn stone in the right kidney and abdomen.",  # nor does a denied one
    "Abdominal X-ray without contrast.",
    "Abdominal radiograph showing the needle. The patient had an allergy to contrast.",  # no radiograph of it
    "Abdominal radiograph of a patient with a mammogram and an echocardiogram.",  # -grams of no contrast study
    "Abdominal X-ray showing the nasogastric tube in the stomach.",  # a tube seen, no study through it
])
def test_a_plain_abdominal_or_pelvic_radiograph_still_gets_the_assumed_view(caption):
    assert assumed_view(caption)
    assert AP_VIEW in extract(caption, DICTIONARY)


def test_contrast_studies_are_read_from_their_combining_forms():
    words = [word.lower() for word in ("cystourethrogram", "HYSTEROSALPINGOGRAPHY", "fistulogram", "loopogram",
                                       "venography", "radiogram", "roentgenography", "tomogram", "sonogram",
                                       "electrocardiogram", "program", "diagram")]
    assert [names_a_contrast_study([word], SENSE_WORDS) for word in words] == \
        [True, True, True, True, True, False, False, False, False, False, False, False]


# --- the assumed AP view: a chest radiograph ---------------------------------------------------------------------


@pytest.mark.parametrize("caption", [
    "A preoperative chest X-ray. The stomach was dilated, and the right lung had decreased X-ray permeability.",
    "Chest radiography showed two masses in the right lung. Arrows indicate liver herniations",
    "Radiograph of the chest showing a symmetrical liver.",
])
def test_a_chest_radiograph_naming_an_abdominal_organ_gets_no_assumed_view(caption):
    assert CHEST in extract(caption, DICTIONARY)
    assert not assumed_view(caption)


@pytest.mark.parametrize("caption", [
    "Chest and abdominal radiograph showing an umbilical venous catheter in the liver.",
    "Radiograph of the chest and abdomen showing a dilated stomach.",
    "Chest X-ray was normal. Abdominal X-ray showed a dilated stomach.",
])
def test_a_radiograph_of_the_chest_and_the_abdomen_still_gets_the_assumed_view(caption):
    assert assumed_view(caption)
