"""The NegEx-style rule of evalcore.extraction.negation, read through concept extraction's mentions as the explanations read it:
hand-worked sentences, the real ROCOv2 caption, random texts."""

from __future__ import annotations

import csv
import random
import re
import time
import tomllib
from functools import lru_cache
from pathlib import Path

import pytest

from evalcore.errors import InputError, ParameterError
from evalcore.extraction.abbreviations import defined_abbreviations
from evalcore.extraction.extractor import ConceptDictionary, mentions, normal_token
from evalcore.extraction.negation import (
    AFFIRMED_STATES,
    AFFIRMING_PREDICATES,
    COMPOUND_NEGATION,
    CONTINUATIONS,
    CUES,
    CUES_FILE,
    HISTORY,
    HYPOTHETICAL,
    MAX_SCOPE_WORDS,
    PLACE_PREPOSITIONS,
    POST_HYPOTHETICAL,
    POST_NEGATION,
    PRE_NEGATION,
    PREFIX_NEGATION,
    PSEUDO_NEGATION,
    STATE_NOUNS,
    TERMINATORS,
    Cue,
    concept_status,
    cue_scopes,
    names_a_disorder,
    negated_spans,
    read_cues,
    sentence_at,
    sentence_spans,
    with_cues,
)
from evalcore.extraction.sense import SENSE_WORDS, structure_word

ROCOV2 = Path(__file__).resolve().parents[3] / "shared" / "data" / "rocov2"
CONCEPT = "C0000001"


@lru_cache(maxsize=64)
def one_concept(names: tuple[str, ...]) -> ConceptDictionary:
    """A dictionary of one concept called ``names`` (the first its name, the others synonyms)."""
    return ConceptDictionary.build({CONCEPT: names[0]}, {CONCEPT: list(names[1:])}, abbreviations=False)


def mention_status(text: str, names: list[str]) -> str:
    """The status of a concept called ``names`` in ``text``: its mentions found as extraction finds them."""
    return concept_status(m.negated for m in mentions(text, one_concept(tuple(names))))


@pytest.mark.parametrize(("text", "names", "status"), [
    ("CT of the brain without hemorrhage", ["Hemorrhage"], "negated"),
    # issue 36, seventh pass: a denied relation leaves the structure it would reach; a finding one cannot tell from
    # another, or a question, is not stated; a literature statement is not of this image
    ("Mass in the right atrium, not obstructing the tricuspid valve.", ["Tricuspid valve"], "affirmed"),
    ("The tumour does not involve the pancreas.", ["Pancreas"], "affirmed"),
    ("No tumour involving the pancreas.", ["Tumour"], "negated"),
    ("Opacity indistinguishable from pneumonia.", ["Pneumonia"], "negated"),
    ("No reliable information as to whether bleeding still exists.", ["Bleeding"], "negated"),
    ("CT of the abdomen. Complications include bowel necrosis [33].", ["Necrosis"], "negated"),
    ("CT of the abdomen. Complications include bowel necrosis [33].", ["Bowel"], "negated"),
    ("CT of the abdomen. Complications include bowel necrosis (Smith et al. 2020).", ["Necrosis"], "negated"),
    ("CT of the abdomen. Bowel necrosis (arrow) [33].", ["Necrosis"], "affirmed"),
    ("CT of the abdomen. The CT shows bowel necrosis [33].", ["Necrosis"], "affirmed"),
    ("Bowel necrosis [33].", ["Necrosis"], "affirmed"),  # the caption's first sentence is the figure's
    ("CT of the abdomen. Bowel necrosis [33 patients].", ["Necrosis"], "affirmed"),  # no citation
    # issue 36, eighth pass: the patient's history or presenting complaint is not what the image shows; a lesion that
    # "presents with" a margin, a case history and a diagnosis are
    ("CT of a man who presented with recurrent oedema of the left leg.", ["Oedema"], "negated"),
    ("CT of a woman with a history of myocardial infarction.", ["Myocardial infarction"], "negated"),
    ("Radiograph of a girl complaining of chest pain.", ["Chest pain"], "negated"),
    ("CT of a 50-year-old female presenting with dysphagia.", ["Dysphagia"], "negated"),
    ("68-year-old female presents with pelvic pain. CT of the femur.", ["Pelvic pain"], "negated"),
    ("The mass presented with a circumscribed margin.", ["Margin"], "affirmed"),
    ("A 5-year case history of a thyroid nodule.", ["Thyroid nodule"], "affirmed"),
    ("CT of a woman diagnosed with bronchopneumonia.", ["Bronchopneumonia"], "affirmed"),
    ("A man who presented with dysphagia; the CT shows a laryngeal mass.", ["Laryngeal mass"], "affirmed"),
    # ... a denied contact between structures denies neither; a midline structure is a state described as present;
    # a structure before a relation verb's participle is its subject
    ("No contact between the third molar and the maxillary sinus.", ["Third molar"], "affirmed"),
    ("No connection between the cyst and the urinary tract.", ["Urinary tract"], "affirmed"),
    ("Resolution of the mass effect and midline trachea.", ["Trachea"], "affirmed"),
    ("Aortogram with no left main coronary artery originating from the aorta.", ["Left main coronary artery"],
     "negated"),
    ("No mass arising from the kidney.", ["Kidney"], "affirmed"),
    # issue 36, fourteenth pass: what comes back is what a denied recurrence denies (seen in the thirteenth pass's
    # test negation reading); a differential written alone lists what a finding might be
    ("CT showed no evidence of pseudocyst recurrence after 8 months.", ["Pseudocyst"], "negated"),
    ("No implant loosening.", ["Implant"], "affirmed"),
    ("The differential remained pleural collection, necrosis and abscess.", ["Necrosis"], "negated"),
    # (fifteenth pass: through the list's "and", as a history's)
    ("The differential remained pleural collection, parenchymal collection, necrosis and abscess.", ["Abscess"],
     "negated"),
    # issue 36, fifteenth pass: a finding that cannot be excluded is only possible; a condition the patient is known
    # to have, or has underlying, is history
    ("Diffuse gastric uptake. Tumor cannot be excluded.", ["Tumor"], "negated"),
    ("A mass that could not be ruled out on ultrasound.", ["Mass"], "negated"),
    ("Obstruction in a female with known scleroderma presenting with pain.", ["Scleroderma"], "negated"),
    ("A radiograph of a man with underlying bronchial asthma.", ["Bronchial asthma"], "negated"),
    ("A man with a known mass; the CT shows the mass.", ["Mass"], "affirmed"),
    # (nineteenth pass, ROCOv2 valid readings: a disease the patient had before, or is suspected of having, is history;
    # what a case could require is hypothetical; what completely resolved is gone)
    ("Coronary aneurysm in a boy with previous Kawasaki syndrome.", ["Kawasaki syndrome"], "negated"),
    ("Coronary aneurysm in a boy with previous Kawasaki syndrome.", ["Coronary aneurysm"], "affirmed"),
    ("He had received surgery for rectal cancer. The CT shows a beak sign.", ["Rectal cancer"], "negated"),
    ("CT of a patient suspected to have biliary obstruction.", ["Biliary obstruction"], "negated"),
    ("A complex case that could require anastomoses to the renal vessels.", ["Anastomoses"], "negated"),
    ("The placental polyp had completely resolved after 6 weeks.", ["Polyp"], "negated"),
    ("Compared with prior imaging, the cavitary lesion improved.", ["Lesion"], "affirmed"),
    # (nineteenth pass: a congenital absence is an absence; what has been cleared is gone)
    ("MRI showing agenesis of the pituitary stalk.", ["Pituitary stalk"], "negated"),
    ("Angiography indicating aplasia of the left internal carotid artery.", ["Left internal carotid artery"],
     "negated"),
    ("The hemorrhage has been cleared from the suprachoroidal space.", ["Hemorrhage"], "negated"),
    # (twenty-first pass, ROCOv2 valid reading v49: a verb of showing ends a scope, so its -ing form is a cue with "not")
    ("Echocardiogram not showing any left ventricular thrombus.", ["Left ventricular thrombus"], "negated"),
    ("CT not demonstrating a thrombus, showing a mass.", ["Mass"], "affirmed"),
    ("CT not demonstrating a thrombus, showing a mass.", ["Thrombus"], "negated"),
    ("Venogram not revealing any thrombus.", ["Thrombus"], "negated"),
    # (after the test reading: a first impression the caption says was revised)
    ("A thickening initially considered a meningioma but re-diagnosed as a gumma.", ["Meningioma"], "negated"),
    ("What was thought to be a perforated duodenal ulcer turned out to be a diverticulum.", ["Ulcer"], "negated"),
    # ... what an examination was done to look for is not stated of the image; "(not depicted)" as "(not shown)"
    ("Chest CT, performed for the investigation of cervical lymphadenopathy, showing a splenic cyst.",
     ["Cervical lymphadenopathy"], "negated"),
    ("Chest CT, performed for the investigation of cervical lymphadenopathy, showing a splenic cyst.",
     ["Splenic cyst"], "affirmed"),
    ("A thrombus on CT (not depicted). MR venogram of the sinus.", ["Thrombus"], "negated"),
    # Issue 36, seventeenth pass: a bracketed cue is said of the phrase after the last place before it, where that
    # phrase is more than the examination the thing was seen on; a place before a comma opens the sentence, not the
    # subject; where a structure is expected to lie is not stated of the image
    ("Contrast drains into the inferior vena cava (not displayed).", ["Inferior vena cava structure"], "negated"),
    ("Masses throughout the lung parenchyma bilaterally (not shown).", ["Structure of parenchyma of lung"],
     "negated"),
    ("The cyst was demarcated to the liver (not shown in the picture).", ["Liver"], "negated"),
    ("The cyst was demarcated to the liver (not shown in the picture).", ["Cyst"], "affirmed"),
    ("At this location, the thoracic duct is expected to traverse the neck.", ["Thoracic Duct"], "negated"),
    ("At this location, the thoracic duct is expected to traverse the neck.", ["Neck"], "affirmed"),
    ("At the hilum, the nodule was no longer seen.", ["Nodule"], "negated"),
    # ... a physical examination's findings are the bedside's; what began after the image is of another time
    # issue 36, eighteenth pass: the alternatives beside "versus" are a differential's, neither stated, but the head
    # adjectives share and what the phrase before the noun names stay; a removal the image shows is done; "ruling
    # out", "abated", "subsided"; what the patient recovered from is history
    ("CT showing a right iliopsoas retroperitoneal hematoma versus abscess.", ["Retroperitoneal hematoma"], "negated"),
    ("CT showing a right iliopsoas retroperitoneal hematoma versus abscess.", ["Abscess"], "negated"),
    ("CT showing a right iliopsoas retroperitoneal hematoma versus abscess.", ["Right iliopsoas"], "affirmed"),
    ("CT showing a cystic versus necrotic lesion in the liver.", ["Necrotic"], "negated"),
    ("CT showing a cystic versus necrotic lesion in the liver.", ["Lesion"], "affirmed"),
    ("A left lower lobe opacity versus mass outlined by arrows.", ["Left lower lobe"], "affirmed"),
    ("A left lower lobe opacity versus mass outlined by arrows.", ["Mass"], "negated"),
    ("A left lower lobe opacity versus mass outlined by arrows.", ["Arrows"], "affirmed"),
    ("Lesions of infarctions, versus metastases.", ["Infarctions"], "affirmed"),  # a comma parts them
    ("Stenosis of the left artery (black arrow) vs the patent right artery.", ["Right artery"], "affirmed"),
    ("Pleural thickening versus non-layering pleural effusion.", ["Pleural effusion"], "negated"),
    ("Infiltrates concerning for pulmonary edema vs. pneumonia.", ["Pneumonia"], "negated"),
    ("A hematoma versus, an abscess.", ["Abscess"], "affirmed"),
    ("In this patient, an MRI (not shown) revealed a herniated intervertebral disc.", ["Intervertebral disc"],
     "negated"),
    ("CT depicted resection of the tumour.", ["Tumour"], "negated"),
    # ... and a denial reads on through its list's "as well as", as through its "or"
    ("A total absence of right internal and external carotid arteries as well as left extracranial carotid arteries",
     ["Left extracranial carotid arteries"], "negated"),
    # ... and what an examination the caption does not show revealed, unless this image is its subject too
    ("A spot radiograph. A magnetic resonance image (not shown) revealed a right central L5-S1 herniated "
     "intervertebral disc.", ["Intervertebral disc"], "negated"),
    ("A spot radiograph. A magnetic resonance image (not shown) revealed a herniated disc with compression of the "
     "right S1 root.", ["Compression"], "negated"),  # (nineteenth pass: "with" adds to what it revealed)
    ("A DWI sequence (not presented) showing vasogenic edema.", ["Edema"], "negated"),
    ("This image and the AP view (not shown) showed a normal lumbar spine.", ["Lumbar spine"], "affirmed"),
    ("The AP view (not shown). It showed a normal lumbar spine.", ["Lumbar spine"], "affirmed"),
    ("A CT. Angiography (not shown) confirmed occlusion.", ["Occlusion"], "affirmed"),
    ("A feature that simulates invasion by an endometrial carcinoma.", ["Endometrial carcinoma"], "negated"),
    ("Post-aspiration chest X-ray demonstrating complete clearance of the effusions.", ["Effusions"], "negated"),
    # ... and a denied relation of a thing to another leaves the thing, as a denied state does
    ("These confirm no adhesion, impingement, or entwinement of the tricuspid valve by the lead.",
     ["Tricuspid valve"], "affirmed"),
    # ... but a hedged reading's "or" states its reading of the image (three valid readers of v36 and a test
    # adjudicator; two valid readers of v28 read "suggesting fat necrosis or lipoma" the other way)
    ("Hyperintensity consistent with edema or inflammation.", ["Edema"], "affirmed"),
    ("An area suggesting fat necrosis or lipoma.", ["Lipoma"], "affirmed"),
    ("MRI demonstrating resection of tumour within the ventricle.", ["Tumour"], "negated"),
    ("MRI demonstrating resection of tumour within the ventricle.", ["Ventricle"], "affirmed"),
    ("CT showing the total removal of the hydatid cyst.", ["Hydatid cyst"], "negated"),
    ("CT showing stent removal.", ["Stent"], "negated"),
    ("CT showing a partial resection of the lamina.", ["Lamina"], "affirmed"),
    ("Signs that were confirmed upon catheter removal after surgery.", ["Catheter"], "affirmed"),
    ("Angiography ruling out a residual pseudoaneurysm.", ["Pseudoaneurysm"], "negated"),
    ("The pneumothorax had completely abated.", ["Pneumothorax"], "negated"),
    ("The swelling subsided.", ["Swelling"], "negated"),
    ("Chest CT 6 months after recovering from acute respiratory failure.", ["Respiratory failure"], "negated"),
    ("Chest radiograph. On physical examination, he had reduced spinal movement.", ["Movement"], "negated"),
    ("CT scans obtained 14 d before the onset of ischemic gastritis.", ["Ischemic gastritis"], "negated"),
    # ... a sensory or motor symptom's site is where the patient feels it
    ("Head CT of a woman who presented with sudden numbness and weakness of her left limbs.", ["Limbs"], "negated"),
    ("CT of a man with coldness in both lower extremities.", ["Lower extremities"], "negated"),
    ("Radiograph of the hand showing soft tissue swelling of the index finger.", ["Index finger"], "affirmed"),
    # ... a denied "gallbladder structure" is the gallbladder
    ("Complete absence of a gallbladder structure.", ["Gallbladder"], "negated"),
    # ... a denied aberrant or accessory structure presupposes the normal one
    ("MRCP: no aberrant intrahepatic bile ducts.", ["Intrahepatic bile ducts"], "affirmed"),
    ("CT: no accessory spleen.", ["Accessory spleen"], "negated"),
    # issue 36, sixteenth pass: "resolved" before a noun is "resolution of"; after its subject it is the verb, and
    # what follows is not denied
    ("Repeat head CT scan showing resolved pneumocephalus.", ["Pneumocephalus"], "negated"),
    ("Day five postoperative CXR with resolved pneumoperitoneum.", ["Pneumoperitoneum"], "negated"),
    ("The fever resolved after drainage of the abscess.", ["Abscess"], "affirmed"),
    # ... and "absence" after its subject is "absence of" it
    ("Brain MRI. PSA, pituitary stalk absence; SAP, small anterior pituitary.", ["Pituitary stalk"], "negated"),
    # ... and the absence wordings of a structure not seen, hyphenated or not
    ("Empty renal fossa with non-visualisation of the right kidney.", ["Right kidney"], "negated"),
    ("CT with nonvisualization of the gallbladder.", ["Gallbladder"], "negated"),
    ("A non visualized gallbladder.", ["Gallbladder"], "negated"),
    ("A nodule lacking calcification.", ["Calcification"], "negated"),
    ("The occiput was devoid of a protuberance.", ["Protuberance"], "negated"),
    ("The fracture is not obvious.", ["Fracture"], "negated"),
    ("MR sequences with the hematoma not presented.", ["Hematoma"], "negated"),
    ("no pneumothorax, no pleural effusion", ["Pneumothorax"], "negated"),
    ("no pneumothorax, no pleural effusion", ["Pleural effusion"], "negated"),
    ("CT shows a large hemorrhage", ["Hemorrhage"], "affirmed"),
    ("no change in the hemorrhage", ["Hemorrhage"], "affirmed"),
    ("no fracture but a large hematoma", ["Hematoma"], "affirmed"),
    ("no fracture but a large hematoma", ["Fracture"], "negated"),
    ("No fracture. Hematoma seen.", ["Hematoma"], "affirmed"),
    # a finding's quality or noun before the denied finding is denied with it; a structure's word is not
    ("no cystic lesions", ["Cystic"], "negated"),
    ("without signs of ischemic lesions or brain hemorrhage", ["Ischemic"], "negated"),
    ("no infiltration shadows", ["Infiltration"], "negated"),
    ("no bowel obstruction", ["Bowel"], "affirmed"),
    # a verb that begins a clause of its own ends the denied phrase
    ("partial absence of the pericardium covering the right side of the heart", ["Right side of heart"], "affirmed"),
    # ... and a partial absence leaves the rest of the thing there
    ("partial absence of the pericardium covering the right side of the heart", ["Pericardium"], "affirmed"),
    # what a denied finding would suggest is not stated either
    ("no clots within the pulmonary artery to suggest pulmonary embolism", ["Pulmonary embolism"], "negated"),
    ("Pneumothorax was ruled out.", ["Pneumothorax"], "negated"),
    ("The mass is not seen on the second scan", ["Mass"], "negated"),
    ("Not only a mass but also edema", ["Mass"], "affirmed"),
    ("No hemorrhage on day 1; a large hemorrhage on day 3", ["Hemorrhage"], "affirmed"),
    ("No hemorrhage on day 1 and no hemorrhage on day 3", ["Hemorrhage"], "negated"),
    ("MRI of the knee", ["Hemorrhage"], "absent"),
    # A place after the denied finding is not denied; a post-negation cue reaches back over it.
    ("Angiogram shows no blood flow in the distal aorta", ["Aorta"], "affirmed"),
    ("Without bleeding along the left electrode", ["Hemorrhage"], "negated"),
    ("Hemorrhage in the left frontal lobe was ruled out", ["Hemorrhage"], "negated"),
    ("MRI of spine with and without contrast showing C3-C4 discitis", ["Discitis"], "affirmed"),
    ("Negative for metastases", ["Metastasis", "metastases"], "negated"),
    ("Free of any large pleural effusions", ["pleural effusion"], "negated"),
    # The window: a mention more than MAX_SCOPE_WORDS words after the cue is not negated.
    ("No sign of recent change in the size of the left lung mass", ["mass"], "affirmed"),
    # ConText's cues (issue 36): post-negations, "disappearance of", "no longer seen" over the pseudo "no longer".
    ("The nodule is not shown on this image", ["Nodule"], "negated"),
    ("A pleural effusion is not evident", ["Pleural effusion"], "negated"),
    ("The hepatic veins are not visualized", ["Hepatic vein"], "negated"),
    ("The hepatic veins are not visualised", ["Hepatic vein"], "negated"),
    ("Total disappearance of exophthalmos", ["Exophthalmos"], "negated"),
    ("Complete resolution of the thrombus", ["Thrombus"], "negated"),
    ("The frontal horn edema is no longer seen", ["Edema"], "negated"),
    ("The edema no longer extends to the cortex", ["Edema"], "affirmed"),
    ("No change in the mass", ["Mass"], "affirmed"),
    # A denied state leaves the thing it is a state of.
    ("No loosening of the screws", ["Screw"], "affirmed"),
    ("No loosening of the screws", ["Loosening"], "negated"),
    ("No displacement of the catheter", ["Catheter"], "affirmed"),
    ("No significant stenosis of the right subclavian vein", ["Subclavian vein"], "affirmed"),
    ("Loosening of the screws was ruled out", ["Screw"], "affirmed"),
    # Hypothetical and other-exam mentions are not stated of this image.
    ("Follow-up with CT or MRI is recommended", ["MRI"], "negated"),
    ("Follow-up with CT or MRI is recommended", ["CT"], "negated"),
    ("Antibiotics if symptoms persist", ["Symptoms"], "negated"),
    ("A CT was not performed", ["CT"], "negated"),
    ("Further evaluation with MRI should be considered", ["MRI"], "negated"),
    ("A CT angiography was done to exclude pulmonary embolism", ["Pulmonary embolism"], "negated"),
    ("CT was negative for intracranial hemorrhage", ["Intracranial hemorrhage"], "negated"),
    # Issue 36, third pass (read on ROCOv2 valid): a plural state noun; places after a cue or before a post-negation;
    # a part whose of-phrase names a whole that is there.
    ("No fractures of the ribs", ["Rib"], "affirmed"),
    ("No fractures of the ribs", ["Fracture"], "negated"),
    ("No gas under right dome of diaphragm", ["Diaphragm"], "affirmed"),
    ("No antegrade flow to the innominate artery", ["Innominate artery"], "affirmed"),
    ("No abnormalities, including the optic nerve", ["Optic nerve"], "affirmed"),
    ("Thrombus in left iliac vein had disappeared", ["Iliac vein"], "affirmed"),
    ("Thrombus in left iliac vein had disappeared", ["Thrombus"], "negated"),
    ("Absence of the hepatic segment of the inferior vena cava", ["Inferior vena cava"], "affirmed"),
    ("In the absence of a larger left-to-right shunt", ["Shunt"], "negated"),  # "to" inside a word is no place
    # ... a modal or an adverb inside a post-negation;
    ("Eventual pulmonary embolism cannot be seen with lung window", ["Pulmonary embolism"], "negated"),
    ("The bladder diverticulum was not clearly seen on this study", ["Bladder diverticulum"], "negated"),
    # ... a finding that partly resolved, a treatment that failed;
    ("Partial resolution of tension pneumothorax", ["Tension pneumothorax"], "affirmed"),
    ("Hemorrhage not controlled with balloon compression", ["Compression"], "affirmed"),
    # ... a new clause: an affirmed state after "and", "with" or a comma; a list item's number.
    ("No residual leakage and complete occlusion", ["Occlusion"], "affirmed"),
    ("No leakage, and a patent urethra", ["Urethra"], "affirmed"),
    ("No filling defects and patent biliary tree", ["Biliary tree"], "affirmed"),
    ("Absent pituitary stalk, small optic nerves", ["Optic nerve"], "affirmed"),
    ("Absent pituitary stalk, small optic nerves", ["Pituitary stalk"], "negated"),
    ("(2) consolidation without air bronchogram, (3) heart", ["Heart"], "affirmed"),
    ("No pneumothorax and no effusion", ["Effusion"], "negated"),
    ("No evidence of pneumothorax with the atrial lead in good position", ["Atrial lead"], "affirmed"),
    ("Absent right kidney with compensatory hypertrophy", ["Hypertrophy"], "affirmed"),
    ("Without signs compatible with gas embolism", ["Gas embolism"], "negated"),
    ("No findings consistent with pneumonia", ["Pneumonia"], "negated"),
    ("PET revealing no argument in favour of vasculitis", ["Vasculitis"], "negated"),
    ("Resolution of the proximal gastric wall pneumatosis", ["Gastric wall"], "affirmed"),
    ("No carotid artery dissection was identified", ["Carotid artery"], "affirmed"),
    # ... third valid reading: the state noun heading a post-negation's subject, more finding nouns, what an image
    # does not cover, an examination of another time.
    ("Invasion of the mass into the nasal passage or ethmoid cells was not detected", ["Ethmoid cells"], "affirmed"),
    ("Invasion of the mass into the nasal passage or ethmoid cells was not detected", ["Invasion"], "negated"),
    ("Arthroplasty with no evidence of implant failure or migration", ["Implant"], "affirmed"),
    ("Good bone healing without any screw lucency", ["Screw"], "affirmed"),
    ("MRCP showing no acute pathology of the liver", ["Liver"], "affirmed"),
    ("The scan did not include the entire chest", ["Chest"], "affirmed"),
    ("We followed up with abdominal radiography", ["Radiography"], "negated"),
    # ... fourth valid reading: more finding nouns and states described as present; position words before a
    # finding noun.
    ("No evidence of dehiscence of the tympanic and mastoid tract", ["Mastoid"], "affirmed"),
    ("Completely absent right femur and dislocated right fibula", ["Fibula"], "affirmed"),
    ("Without surrounding edema and little free fluid in the pelvis", ["Fluid"], "affirmed"),
    ("Resolution of the left ventricular apical clot", ["Left ventricular"], "affirmed"),
    ("Chest X-ray with no mediastinal widening", ["Mediastinal"], "affirmed"),
    ("Doppler image shows no hepatic vein outflow", ["Hepatic vein"], "affirmed"),
    # ... a list the word limit cut short runs on through its "or" item.
    ("No signs of demyelination, fracture deformity, traumatic subluxation, or compressive myelopathy",
     ["Myelopathy"], "negated"),
    ("No evidence of edema, hemorrhage, infarct, hydrocephalus, or neoplasm", ["Neoplasm"], "negated"),
    ("No other enhancement was seen within the cervical cord, meninges, or vertebral bodies", ["Meninges"],
     "affirmed"),
    # fifth valid reading: a scope that its word limit ends inside a compound reaches the compound's head; a
    # finding noun heads its phrase; a present state after "and" begins a clause.
    ("No evidence of brain metastasis or leptomeningeal disease", ["Leptomeninges", "leptomeningeal"], "affirmed"),
    ("Head CT with no signs of intracranial hypertension", ["Intracranial"], "affirmed"),
    ("Complete resolution of the cyst and recovery of infraspinatus muscle bulk", ["Muscle"], "affirmed"),
    ("Follow-up CT without recurrence of ulceration or infection", ["Ulceration"], "negated"),
    ("No renal vein involvement (arrow) or distant metastatic foci", ["Metastatic foci"], "negated"),
    ("Gallstones without associated gallbladder wall thickening or pericholecystic fluid", ["Fluid"], "negated"),
    ("Good lung expansion with no atelectasis despite seroma formation", ["Seroma"], "affirmed"),
    ("Peripherally distributed nodules with or without cavitation", ["Cavitation"], "affirmed"),
    ("A mesiodens; no other supernumerary teeth are visible", ["Teeth"], "affirmed"),
    # ... a structure before the noun that heads its phrase is where the denied thing would be
    ("CT revealed no features of pulmonary infection, liver surface nodularity", ["Liver"], "affirmed"),
    ("Without any sign of right ventricle chamber collapse", ["Right ventricle"], "affirmed"),
    # ... but not before a verb of the present third person (twenty-second pass, seen in its second test reading)
    ("Absence of the cerebellar vermis results in a bat-wing ventricle", ["Cerebellar vermis"], "negated"),
    ("No tumour extends into the canal", ["Tumour"], "negated"),
    ("No pacemaker lead dislodgement", ["Pacemaker"], "affirmed"),  # "lead", a noun, is no verb
    # ... and a device before the act that places it is the device placed (twenty-second pass, valid reading v51)
    ("Bone height did not allow implant insertion", ["Implant"], "negated"),
    # ... but not before a verb, an adverb, an adjective, an imaging noun, a cue, nor in a backward denial
    ("No atelectasis despite seroma formation", ["Atelectasis"], "negated"),
    ("Resolution of the neoplasm indicated by arrow", ["Neoplasm"], "negated"),
    ("No fluid accumulation intrapericardial", ["Fluid accumulation"], "negated"),
    ("No more rectal fistula tract", ["Fistula"], "negated"),
    ("The biliary tract system was not clearly visualized", ["Biliary tract"], "negated"),
    # a prefix denies the word it is joined to, and only that word (issue 36, sixth pass)
    ("Non-calcified nodule in the lung", ["Calcified nodule"], "absent"),  # its words are no name: see below
    ("Non-calcified nodule in the lung", ["Nodule"], "affirmed"),
    ("Non-calcified nodule in the lung", ["Calcified"], "negated"),
    ("LUS of a non-COVID-19 patient showed consolidation", ["COVID-19"], "negated"),
    ("LUS of a non-COVID-19 patient showed consolidation", ["Consolidation"], "affirmed"),
    ("Non-contrast CT of the head", ["CT"], "affirmed"),
    ("Mitral regurgitation in a non-ischemic dilated cardiomyopathy", ["Dilated cardiomyopathy"], "affirmed"),
    ("Non-Hodgkin lymphoma of the stomach", ["Non-Hodgkin lymphoma"], "affirmed"),
    # ... written with a space as some authors write it (issue 36, twenty-third pass): the word it is joined to
    ("homogeneous and non enlarged thyroid gland", ["Enlarged"], "negated"),
    ("homogeneous and non enlarged thyroid gland", ["Thyroid gland"], "affirmed"),
    ("a non calcified nodule", ["Calcified nodule"], "absent"),  # the name cannot begin inside the prefix's word
    # ... and a participle that opens a noun phrase denies it: at the sentence's start, after an article, "with",
    # "of" or a verb of showing (twenty-third pass, ROCOv2 valid negation readings v43, v52); elsewhere "resolved"
    # denies nothing and "disappeared" what it follows
    ("Resolved bilateral adrenal hematoma during follow-up assessment.", ["Hematoma"], "negated"),
    ("T2-weighted MRI image of a resolved VUR rabbit.", ["VUR"], "negated"),  # a patient's noun is no head it modifies
    ("CT showing resolved spleen laceration.", ["Spleen"], "affirmed"),  # a modifier spared, as after "no"
    ("Pneumothorax. Resolved after chest tube placement.", ["Chest tube"], "affirmed"),  # a predicate
    ("(b) Resolved subdural hematoma.", ["Subdural hematoma"], "negated"),
    ("Follow-up CT: resolved subdural hematoma.", ["Subdural hematoma"], "negated"),
    ("Now resolved pneumothorax on follow-up CT.", ["Pneumothorax"], "negated"),
    ("Absorbed dose map of the liver tumor.", ["Liver tumor"], "affirmed"),
    ("Disappeared submuscular pneumothorax (16 March 2022).", ["Pneumothorax"], "negated"),
    ("Repeat head CT scan showing resolved pneumocephalus.", ["Pneumocephalus"], "negated"),
    ("Day five postoperative CXR with resolved pneumoperitoneum.", ["Pneumoperitoneum"], "negated"),
    ("The effusion resolved after thoracentesis.", ["Thoracentesis"], "affirmed"),
    ("The effusion resolved after drainage.", ["Effusion"], "affirmed"),
    ("The pneumothorax disappeared.", ["Pneumothorax"], "negated"),
    ("Almost resolved hematoma.", ["Hematoma"], "affirmed"),
    # ... and the cues a completeness check against medspaCy's English ConText rules found missing (twenty-third pass)
    ("The lungs are clear of effusion.", ["Effusion"], "negated"),
    ("The appearance is inconsistent with a hematoma.", ["Hematoma"], "negated"),
    ("The hematoma is now resolved on CT.", ["Hematoma"], "negated"),
    ("The hematoma is now resolved on CT.", ["CT"], "affirmed"),
    ("Ulcers as deep as the subserosa, indicating a high risk of perforation.", ["Perforation"], "negated"),
    ("Ulcers as deep as the subserosa, indicating a high risk of perforation.", ["Ulcers"], "affirmed"),
    ("Stricture without previous Hx of surgery.", ["Surgery"], "negated"),
    # ... and against pyConTextNLP's lexical knowledge base and NegEx's triggers
    ("Hemorrhage is not entirely excluded.", ["Hemorrhage"], "negated"),
    ("A hemorrhage, not entirely seen.", ["Hemorrhage"], "affirmed"),
    ("Patients at risk for hemorrhage.", ["Hemorrhage"], "negated"),
    ("Risk factors for thrombosis include stasis.", ["Thrombosis"], "negated"),
    ("Low probability of pulmonary embolism on CT.", ["Pulmonary embolism"], "negated"),
    ("Low probability of pulmonary embolism on CT.", ["CT"], "affirmed"),
    ("a non calcified nodule", ["Nodule"], "affirmed"),
    ("Non Hodgkin lymphoma of the stomach", ["Non Hodgkin lymphoma"], "affirmed"),
    ("Non contrast CT of the head", ["CT"], "affirmed"),
    # issue 36, ninth pass: the noun a denied state or part is of, the structures a denied thing would lie between or
    # about, and a state noun after the thing are there; a verb of showing ends the denial
    ("Echocardiogram with no Right Ventricle recovery.", ["Right ventricle"], "affirmed"),
    ("Axial CT showed no liver capsular enhancement or hepatomegaly.", ["Liver"], "affirmed"),
    ("No ascites/omental caking detected.", ["Ascites"], "negated"),
    ("MRI at 6 months after closure of the fistula.", ["Fistula"], "negated"),
    # ... a list's "or" item the word limit cuts, and an example after "such as", are denied whole
    ("CT revealed no acute intracranial hemorrhage or large territorial infarct.", ["Infarct"], "negated"),
    ("The ovary is without secondary signs of ischemia such as surrounding free fluid.", ["Free fluid"], "negated"),
    ("No definite evidence of pulmonary nodules and associated pleural effusion.", ["Pleural effusion"], "negated"),
    ("No kidney visualized.", ["Kidney"], "negated"),
    ("No detectable interruption between the two atria.", ["Atria"], "affirmed"),
    ("The CT showed no abnormality about bronchus and esophagus.", ["Esophagus"], "affirmed"),
    ("With no effacement of the vallecula, degenerative cervical spine.", ["Cervical spine"], "affirmed"),
    ("No functional significance of the mid RCA stenosis.", ["Stenosis"], "affirmed"),
    ("No pleural effusion, indicating atelectasis.", ["Atelectasis"], "affirmed"),
    ("No pleural effusion, indicating atelectasis.", ["Pleural effusion"], "negated"),
    ("The proximal pole of the scaphoid is no longer visible.", ["Scaphoid"], "affirmed"),
    # ... a backward denial reads its subject before the place it is at, and from an article after a comma
    ("The high-density nodule in the fourth thoracic vertebra was absorbed.", ["Nodule"], "negated"),
    ("The high-density nodule in the fourth thoracic vertebra was absorbed.", ["Thoracic vertebra"], "affirmed"),
    ("Thrombus in the vein had disappeared.", ["Vein"], "affirmed"),
    ("Distended colon herniating through the foramen of Winslow (not shown).", ["Colon"], "affirmed"),
    ("At the 32nd week of gestation, the allantoic cyst was no longer visible.", ["Gestation"], "affirmed"),
    ("At the 32nd week of gestation, the allantoic cyst was no longer visible.", ["Cyst"], "negated"),
    ("Pneumothorax, effusion and consolidation were not seen.", ["Pneumothorax"], "negated"),
    # ... what a finding mimics or is confused with, and what a treatment is to prevent, are not stated of the image
    ("Perinephric edema mimicking pyelonephritis.", ["Pyelonephritis"], "negated"),
    ("Perinephric edema mimicking pyelonephritis.", ["Edema"], "affirmed"),
    ("Feces adherent to the rectal wall confused with actual tumor.", ["Tumor"], "negated"),
    ("A defibrillator inserted for primary prevention of sudden cardiac death.", ["Sudden cardiac death"], "negated"),
    # ... a history phrase that an arrow points into, a condition the subject suffers from, and findings that match
    # the history, are shown
    ("A man presented with a ruptured epidermal cyst (arrows) in the neck.", ["Epidermal cyst"], "affirmed"),
    ("A man presented with a ruptured epidermal cyst in the neck.", ["Epidermal cyst"], "negated"),
    ("Radiograph of a dog suffering from a pneumothorax.", ["Pneumothorax"], "affirmed"),
    ("Opacities consistent with a history of COVID pneumonia.", ["COVID pneumonia"], "affirmed"),
    # issue 36, tenth pass: a subordinating conjunction heads no phrase; a size or state after a comma is an item of
    # the denied list its ", or" closes; a state's participle inside a denied phrase is denied; an image that shows
    # the complete removal of a thing shows it gone
    ("No evidence of tricuspid regurgitation when the catheter was pulled.", ["Tricuspid regurgitation"], "negated"),
    ("No evidence of stenosis, large vessel occlusion, or aneurysm.", ["Occlusion"], "negated"),
    ("No evidence of stenosis, large vessel occlusion, or aneurysm.", ["Aneurysm"], "negated"),
    ("Absent stalk, small optic nerves or chiasm.", ["Optic nerves"], "affirmed"),
    ("No enlarged inguinal lymph nodes were seen.", ["Enlarged"], "negated"),
    ("CT shows complete removal of the acute subdural hematoma.", ["Subdural hematoma"], "negated"),
    ("Repeat fluoroscopy confirming the complete removal of the surgical clips.", ["Clips"], "negated"),
    ("A postoperative image following a subtotal resection of the tumor.", ["Tumor"], "affirmed"),
    # ... and a removal noun after what was removed, where a cue of an earlier event opens its phrase
    ("CT after craniotomy and hematoma evacuation.", ["Hematoma"], "negated"),
    ("Anastomotic staples from previous bowel resection are also demonstrated.", ["Bowel"], "affirmed"),
    ("CT after liver resection.", ["Liver"], "affirmed"),
    ("CT venogram (after catheter removal).", ["Catheter"], "negated"),
    ("Patient after an upper jaw osteosarcoma resection.", ["Jaw"], "affirmed"),
    ("MRI before tumor resection.", ["Tumor"], "affirmed"),
    ("Planned tumor resection margins.", ["Tumor"], "affirmed"),
    # ... what a patient underwent removal of, and a tumour that names a removed finding's kind
    ("The patient had previously undergone resection of a melanoma metastasis.", ["Melanoma"], "negated"),
    ("The patient had previously undergone resection of a melanoma metastasis.", ["Metastasis"], "negated"),
    ("No stoma prolapse.", ["Stoma"], "affirmed"),
    ("No liver metastasis.", ["Liver"], "affirmed"),
    # ... and a comma just after the words that name the image begins a backward denial's subject
    ("CT abdomen, left kidney cannot be visualized.", ["Abdomen"], "affirmed"),
    ("CT abdomen, left kidney cannot be visualized.", ["Left kidney"], "negated"),
    # issue 36, eleventh pass: a word of partial degree before a removal or disappearance cue leaves a trace
    ("the miliary lung metastasis almost wholly disappeared", ["Metastasis"], "affirmed"),
    ("near-complete resolution of the lung infiltrates", ["Infiltrates"], "affirmed"),
    ("almost complete disappearance of the fluid collection", ["Fluid"], "affirmed"),
    ("the femoral head had been almost absorbed", ["Femoral head"], "affirmed"),
    ("complete disappearance of the fluid collection", ["Fluid"], "negated"),
    ("the femoral head had been absorbed", ["Femoral head"], "negated"),
    ("partially calcified, no effusion", ["Effusion"], "negated"),
    ("partially non-calcified nodule", ["Calcified"], "negated"),
    # ... and a denial of other or additional instances presupposes the one shown
    ("An organized abscess or other fluid collection is not seen.", ["Fluid"], "affirmed"),
    ("An organized abscess or other fluid collection is not seen.", ["Abscess"], "negated"),
    ("No additional aneurysms were identified.", ["Aneurysm"], "affirmed"),
    ("No aneurysms were identified.", ["Aneurysm"], "negated"),
    # issue 36, thirteenth pass: a comma before a subject and its verb begins a clause; "unremarkable" a state
    # described as present; a verb of spread after "not" and a state noun before "of" deny the relation, not the
    # structure; the verb of a removal; a patient's complaints joined by "and"
    ("There were no intrinsic cerebellar lesions, the brainstem was well preserved.", ["Brainstem"], "affirmed"),
    ("No hydronephrosis, the kidneys are normal in size.", ["Kidneys"], "affirmed"),
    ("No hydronephrosis, the kidneys are normal in size.", ["Hydronephrosis"], "negated"),
    ("No effusion, fracture deformity, or mass.", ["Fracture"], "negated"),
    ("No pericardial effusion and unremarkable chest wall.", ["Chest wall"], "affirmed"),
    ("The mass extends into the lumen but does not infiltrate the serosa.", ["Serosa"], "affirmed"),
    ("There is no outpouching of the bladder wall.", ["Bladder wall"], "affirmed"),
    ("Guidewire in the vein after removing the needle.", ["Needle"], "negated"),
    ("A woman who presented with amenorrhea for 59 days and vaginal bleeding.", ["Bleeding"], "negated"),
    ("A woman who presented with amenorrhea for 59 days. CT shows vaginal bleeding.", ["Bleeding"], "affirmed"),
    ("No mass for at least 59 days and vaginal bleeding.", ["Bleeding"], "affirmed"),
    # ... and a removal's of-phrase, any words after the cue of the earlier event
    ("Radiograph of the spine following a chest wall resection of the ninth rib.", ["Rib"], "negated"),
    ("Radiograph of the spine following a chest wall resection of the ninth rib.", ["Chest wall"], "affirmed"),
    ("CT after revision surgery, removal of implants.", ["Implants"], "negated"),
    ("MRI before resection of the tumor.", ["Tumor"], "affirmed"),
    ("CT following a subtotal resection of the tumor.", ["Tumor"], "affirmed"),
    ("Resection of the tumor was performed.", ["Tumor"], "affirmed"),
    ("MRI of a girl born at 26 weeks of gestation.", ["Gestation"], "negated"),
    # ... and a denial ends before a list item that an arrow points at
    ("CTA demonstrating no pulmonary embolism, pleural effusions with atelectasis (grey arrows).",
     ["Pleural effusions"], "affirmed"),
    ("CTA demonstrating no pulmonary embolism, pleural effusions with atelectasis (grey arrows).",
     ["Pulmonary embolism"], "negated"),
    ("No pulmonary embolism, pleural effusions or atelectasis.", ["Pleural effusions"], "negated"),
    # ... a prefix ends no other cue's scope; "(not imaged)" is "(not shown)"
    ("A man with a history of radiation therapy for non-Hodgkin lymphoma.", ["Non-Hodgkin lymphoma"], "negated"),
    ("The PLSVC (not imaged) connects to a dilated coronary sinus.", ["PLSVC"], "negated"),
    ("The PLSVC (not imaged) connects to a dilated coronary sinus.", ["Coronary sinus"], "affirmed"),
    # issue 69, after the third pass's test reading: after a comma, a subject its own affirming predicate closes is a
    # clause of its own; a list's "or" or "and", or another comma, before the predicate keeps the list denied
    ("Head CT: no midline shift, subarachnoid hemorrhage noted in the sulci.", ["Subarachnoid hemorrhage"], "affirmed"),
    ("Head CT: no midline shift, subarachnoid hemorrhage noted in the sulci.", ["Midline shift"], "negated"),
    ("Without pneumothorax, a small effusion is seen.", ["Effusion"], "affirmed"),
    ("No hydronephrosis, renal cyst identified.", ["Renal cyst"], "affirmed"),
    ("No hemorrhage, old infarct is present in the left frontal lobe.", ["Infarct"], "affirmed"),
    ("No fracture, dislocation, or effusion is seen.", ["Effusion"], "negated"),
    ("No pneumothorax, or pleural effusion is identified.", ["Pleural effusion"], "negated"),
    ("No hemorrhage, infarct and mass effect are seen.", ["Infarct"], "negated"),
    ("No intraocular, space-occupying lesions were found.", ["Lesions"], "negated"),
])
def test_hand_worked_sentences(text: str, names: list[str], status: str) -> None:
    assert mention_status(text, names) == status


def test_a_differential_diagnosis_names_no_finding_of_the_image() -> None:
    """Issue 36, thirteenth pass: ROCOv2's curators tag Differential Diagnosis in no image, and what it lists is
    what a finding might be."""
    d = ConceptDictionary.build({"C0011906": "Differential Diagnosis", "C0149871": "Deep Vein Thrombosis",
                                 "C0007027": "Baker's cyst"})
    text = "Baker's cyst of the knee (differential diagnosis of deep vein thrombosis)."
    assert [(m.text, m.negated) for m in mentions(text, d)] == [("Baker's cyst", False), ("deep vein thrombosis", True)]


def test_an_abbreviation_that_modifies_a_denied_noun_leaves_its_key_affirmed() -> None:
    """Issue 36, thirteenth pass: "resolution of LV thrombi" denies the thrombi, so the key "LV, left ventricular"
    keeps the ventricle; a use that is itself denied still denies its key (eleventh pass)."""
    d = ConceptDictionary.build({"C0225897": "Left ventricular structure", "C0087086": "Thrombus"})
    text = "Apical view shows resolution of LV thrombi. TTE, transthoracic echocardiogram; LV, left ventricular"
    assert [(m.text, m.negated) for m in mentions(text, d) if m.text == "left ventricular"] == [
        ("left ventricular", False)]
    text = "Apical view shows no LV. TTE, transthoracic echocardiogram; LV, left ventricular"
    assert [(m.text, m.negated) for m in mentions(text, d) if m.text == "left ventricular"] == [
        ("left ventricular", True)]


def test_a_cited_statement_does_not_undo_how_the_image_was_taken() -> None:
    """Issue 36, tenth pass: the imaging vocabulary's modality in a literature statement stays, as in a negation's
    or a history's scope; the finding there does not."""
    d = ConceptDictionary.build({"C0041618": "Ultrasonography", "C0018818": "Atrial septal defect"})
    text = "Septal defect (arrow). Echocardiograms detect an atrial septal defect in newborns [3]."
    assert [(m.text, m.negated) for m in mentions(text, d)] == [("Echocardiograms", False),
                                                                ("atrial septal defect", True)]


def test_a_scope_cut_inside_a_compound_reaches_its_head() -> None:
    """The word limit ends the scope of "not" at "aspiration"; the pneumonia it qualifies is denied with it, and a
    mention after a word outside the scope is not."""
    d = ConceptDictionary.build({"C0000001": "Pulmonary aspiration", "C0000002": "Pneumonia"},
                                {"C0000001": ["aspiration"]}, abbreviations=False)
    text = "It would not be considered usual for either aspiration pneumonia nor atelectasis"
    assert [(m.text, m.negated) for m in mentions(text, d)] == [("aspiration", True), ("pneumonia", True)]
    text = "It would not be considered usual for either aspiration of pneumonia"
    assert [(m.text, m.negated) for m in mentions(text, d)] == [("aspiration", True), ("pneumonia", False)]


def test_status_and_evidence_sentence() -> None:
    assert [concept_status(flags) for flags in ((), (True,), (False,), (True, True), (False, True))] == [
        "absent", "negated", "affirmed", "negated", "affirmed"]
    text = "Chest X-ray. There was no pleural effusion on both sides. No change."
    assert mention_status(text, ["Pleural effusion disorder"]) == "negated"
    assert sentence_at(text, text.index("pleural")) == "There was no pleural effusion on both sides."
    assert sentence_at(text, 0) == "Chest X-ray." and sentence_at(text, len(text)) == sentence_at("", 0) == ""


def test_the_spans_are_the_scopes() -> None:
    text = "Without hemorrhage, no fracture: mild edema"
    assert [text[a:b] for a, b in negated_spans(text)] == ["hemorrhage", "fracture"]
    text = "MRI without contrast of the brain: no fracture"  # a technique without contrast denies nothing
    assert [text[a:b] for a, b in negated_spans(text)] == ["fracture"]
    assert negated_spans("") == []


def test_rocov2_caption_of_009853_negates_hemorrhage() -> None:
    """The real caption: "... Without bleeding along the left electrode. ..." with ROCOv2's name "Hemorrhage"."""
    if not ROCOV2.exists():
        pytest.skip("../shared/data is absent")
    with open(ROCOV2 / "test_captions.csv", newline="", encoding="utf-8") as handle:
        caption = next(row[1] for row in csv.reader(handle) if row[0] == "ROCOv2_2023_test_009853")
    with open(ROCOV2 / "cui_mapping.csv", newline="", encoding="utf-8") as handle:
        names = {row[0]: row[1] for row in csv.reader(handle)}
    assert "Without bleeding" in caption
    assert mention_status(caption, [names["C0019080"]]) == "negated"
    assert mention_status(caption, [names["C0040405"], "CT"]) == "affirmed"
    found = mentions(caption, ConceptDictionary.build(names))  # the whole dictionary, the imaging vocabulary too
    assert concept_status(m.negated for m in found if m.concept == "C0019080") == "negated"
    assert concept_status(m.negated for m in found if m.concept == "C0040405") == "affirmed"


def test_bad_arguments_raise_the_projects_error() -> None:
    with pytest.raises(ParameterError, match="text"):
        negated_spans(None)  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="max_words"):
        negated_spans("no mass", 0)


CUE_WORDS = {w for phrase in (*PRE_NEGATION, *POST_NEGATION, *PSEUDO_NEGATION, *TERMINATORS) for w in phrase.split()}
PLAIN_WORDS = ["lesion", "left", "right", "lobe", "the", "of", "a", "in", "CT", "scan", "shows", "large", "small",
               "contrast", "with", "after", "image", "arrow", "mass", "seen", "is", "was", "and", "x-ray", "2.5",
               "cm", "(arrow)", "e.g.", "patient's", "ÉCHO"]
PUNCTUATION = ["", "", "", ",", ".", ";", ":", "!", "?", "\n", " - ", "(", ")"]


def random_text(rng: random.Random, words: list[str], length: int) -> str:
    return " ".join(rng.choice(words) + rng.choice(PUNCTUATION) for _ in range(length))


@pytest.mark.parametrize("seed", range(40))
def test_random_texts(seed: int) -> None:
    rng = random.Random(seed)
    vocabulary = PLAIN_WORDS + sorted(CUE_WORDS) + ["no evidence of", "was ruled out", "no change"]
    text = random_text(rng, vocabulary, rng.randint(0, 40))
    spans = negated_spans(text, rng.randint(1, 8))
    assert all(0 <= a < b <= len(text) for a, b in spans)
    assert all(b1 < a2 for (_, b1), (a2, _) in zip(spans, spans[1:]))  # sorted, apart
    assert mention_status(text, ["lesion"]) in ("affirmed", "negated", "absent")

    plain = [w for w in PLAIN_WORDS if w.lower() not in CUE_WORDS and w != "mass"]
    without_cues = random_text(rng, plain, rng.randint(0, 40))
    assert negated_spans(without_cues) == []
    # A cue just before the only mention of a concept negates it, wherever it stands in a cue-free text (followed by
    # a word that is no state of it: "bowel lesion" would make the bowel the lesion's modifier).
    words = without_cues.split(" ")
    at = rng.randint(0, len(words))
    cue = rng.choice(["no", "without", "absence of", "negative for", "no evidence of"])
    negated = " ".join(words[:at] + [cue, "hemorrhage", "seen"] + words[at:])
    assert mention_status(negated, ["Hemorrhage"]) == "negated", negated
    assert mention_status(re.sub(r"\b" + cue + r"\b ", "", negated, count=1), ["Hemorrhage"]) == "affirmed"
    stated = " ".join(words[:at] + [cue, "bowel", "lesion"] + words[at:])
    assert mention_status(stated, ["Bowel"]) == "affirmed", stated  # the lesion is what is denied
    # ... but a finding's noun or a finding's quality before it is denied with it
    for finding in ("hemorrhage", "cystic"):
        stated = " ".join(words[:at] + [cue, finding, "lesion"] + words[at:])
        assert mention_status(stated, [finding]) == "negated", stated


# --- an independent implementation: the same rule token by token, without one combined pattern -----------------

GROUPS = tuple((group, sorted((phrase.split() for phrase in phrases), key=len, reverse=True)) for group, phrases in
               (("pseudo", PSEUDO_NEGATION), ("post", POST_NEGATION + POST_HYPOTHETICAL),
                ("pre", PRE_NEGATION + HYPOTHETICAL + HISTORY), ("stop", TERMINATORS), ("place", PLACE_PREPOSITIONS),
                ("join", CONTINUATIONS), ("prefix", PREFIX_NEGATION),
                ("compound", COMPOUND_NEGATION + tuple(cue.cue for cue in CUES if cue.direction == "compound-lesion")),
                ("suffix", tuple(cue.cue for cue in CUES if cue.direction == "suffix")),
                ("between", tuple(cue.cue for cue in CUES if cue.direction == "between")),
                ("adjective", tuple(cue.cue for cue in CUES if cue.direction == "adjective"))))
FIRST_WORDS = {words[0] for _, phrases in GROUPS for words in phrases}
#: The other-exam cues, longest first, each with whether it puts its event before the image ("after", "previous").
EXAM_PHRASES = sorted(((cue.cue.split(), cue.direction == "after") for cue in CUES if cue.kind == "other exam"),
                      key=lambda phrase: len(phrase[0]), reverse=True)


NEGATION_PHRASES = frozenset(PRE_NEGATION + POST_NEGATION + COMPOUND_NEGATION
                             + tuple(cue.cue for cue in CUES if cue.direction in ("compound-lesion", "adjective")))


def partial_degree(text: str, tokens: list[tuple[str, int, int]], first: int) -> bool:
    """Whether "almost", "nearly" or another partial degree word stands right before token ``first``, or before one
    word of completeness there ("almost complete"), joined by spaces or a hyphen."""
    def joined(k: int) -> bool:
        return text[tokens[k - 1][2]:tokens[k][1]].replace("-", " ", 1).isspace()

    words = [w for w, _, _ in tokens]
    if first >= 1 and words[first - 1] in SENSE_WORDS.partial and joined(first):
        return True
    return first >= 2 and words[first - 1] in SENSE_WORDS.complete and words[first - 2] in SENSE_WORDS.partial \
        and joined(first) and joined(first - 1)


def after_event_ends(text: str, tokens: list[tuple[str, int, int]]) -> set[int]:
    """The last token of each other-exam cue that puts its event before the image, the cues matched left to right,
    the longest at a token, words joined by spaces or a hyphen ("prior to" is no "prior")."""
    ends, i = set(), 0
    while i < len(tokens):
        for words, after in EXAM_PHRASES:
            window = tokens[i:i + len(words)]
            if [w for w, _, _ in window] == words and all(
                    text[a[2]:b[1]].replace("-", " ", 1).isspace() for a, b in zip(window, window[1:])):
                if after:
                    ends.add(i + len(words) - 1)
                i += len(words)
                break
        else:
            i += 1
    return ends


def item_of_a_closed_list(text: str, tokens: list[tuple[str, int, int]], state: int) -> bool:
    """Whether a comma-separated list closes with ", or" / ", nor" within four words after the state word
    ``state`` ("stenosis, large vessel occlusion, or aneurysm")."""
    for k in range(state + 1, min(state + 5, len(tokens))):
        if tokens[k][0] in ("or", "nor") and text[tokens[k - 1][2]:tokens[k][1]].strip() == ",":
            return True
    return False


def closed_by_its_predicate(text: str, tokens: list[tuple[str, int, int]], j: int) -> bool:
    """Whether token ``j``, after a comma and not after an adjective, begins a subject that an affirming predicate
    closes within five words, no "and", "or", "nor" or comma before it (", subarachnoid hemorrhage noted")."""
    if "," not in text[tokens[j - 1][2]:tokens[j][1]] or tokens[j - 1][0].endswith(ADJECTIVE_ENDINGS):
        return False
    for k in range(j, min(j + 6, len(tokens))):
        if tokens[k][0] in ("and", "or", "nor") or (k > j and "," in text[tokens[k - 1][2]:tokens[k][1]]):
            return False
        if k > j and tokens[k][0] in AFFIRMING_PREDICATES:
            return True
    return False


def new_clause(text: str, tokens: list[tuple[str, int, int]], j: int) -> bool:
    """Whether token ``j`` begins a new clause: "and complete", ", small", "(3)", ", hemorrhage noted"."""
    word = tokens[j][0]
    following = tokens[j + 1:j + 3]
    if word not in AFFIRMED_STATES and closed_by_its_predicate(text, tokens, j):
        return True
    if word in ("and", "with", "while") and following and (following[0][0] in AFFIRMED_STATES or (
            following[0][0] in ("a", "an", "the") and len(following) > 1 and following[1][0] in AFFIRMED_STATES)):
        return True
    if word in AFFIRMED_STATES and "," in text[tokens[j - 1][2]:tokens[j][1]]:
        return not item_of_a_closed_list(text, tokens, j)
    if word in ("a", "an", "the") and j + 1 < len(tokens) and tokens[j + 1][0] in AFFIRMED_STATES and \
            "," in text[tokens[j - 1][2]:tokens[j][1]]:
        return not item_of_a_closed_list(text, tokens, j + 1)
    if word in ("a", "an", "the") and "," in text[tokens[j - 1][2]:tokens[j][1]] and {
            w for w, _, _ in tokens[j + 2:j + 6]} & {"is", "are", "was", "were", "appears", "appear", "appeared",
                                                     "remains", "remain", "remained", "has", "have", "had", "shows",
                                                     "showed", "measures", "measured"}:
        return True  # ", the brainstem was well preserved": a subject and its verb
    return (word.isdigit() or len(word) == 1) and text[tokens[j][2]:tokens[j][2] + 1] == ")" and \
        text[tokens[j][1] - 1:tokens[j][1]] in ("(", " ")


def list_run_on(text: str, tokens: list[tuple[str, int, int]], stop: int, max_words: int, starts: set[int],
                last: int, joins: tuple[str, ...] = ("or", "nor")) -> list[tuple[str, int, int]]:
    """The tokens from ``stop`` through the item after a list's "or"/"nor"/"such as" (a history's and a
    hypothetical's also "and") that the word limit cut short, the list's words joined by spaces, commas and hyphens,
    within ``max_words`` more words
    before another cue or clause."""
    bound = min([len(tokens), stop + max_words] + [k for k in range(stop, len(tokens))
                                                   if k in starts or (k > last and new_clause(text, tokens, k))])
    for k in range(max(last, stop - 3), bound):
        if k >= stop and not re.fullmatch(r"[\s,\-]*", text[tokens[k - 1][2]:tokens[k][1]]):
            return []
        if (tokens[k][0] in joins or (tokens[k][0] == "as" and k > last and tokens[k - 1][0] == "such")
                or (tokens[k][0] == "as" and k - 2 >= last and tokens[k - 1][0] == "well" and tokens[k - 2][0] == "as")) \
                and k + 1 < bound:
            end = k + 2
            while end < bound and re.fullmatch(r"\s+|\s*-\s*", text[tokens[end - 1][2]:tokens[end][1]]):
                end += 1
            run = tokens[stop:end]
            states = [i for i, t in enumerate(run) if state_noun(t[0]) and stop + i + 1 < len(tokens)
                      and tokens[stop + i + 1][0] == "of"]
            return run[:states[0] + 1] if states else run
    return []


#: The evidential nouns of the cue file (kind state, direction evidence: "finding", "findings").
EVIDENCE_NOUNS = {cue.cue for cue in CUES if cue.kind == "state" and cue.direction == "evidence"}


def finds_a_disorder(tokens: list[tuple[str, int, int]], k: int, bound: int) -> bool:
    """Issue 69: an evidential noun ("findings") whose of-phrase, up to a preposition, a conjunction, a non-word or
    token ``bound``, ends in a disorder's name, or, without a determiner, in no structure's word: the scope reads on."""
    if normal_token(tokens[k][0]) not in {normal_token(word) for word in EVIDENCE_NOUNS}:
        return False
    words = []
    for j in range(k + 2, min(bound, len(tokens), k + 2 + MAX_SCOPE_WORDS)):
        word = tokens[j][0]
        if not word.isalpha() or word in PLACE_PREPOSITIONS or word in ("of", "and", "or", "with", "to", "for"):
            break
        words.append(word)
    if not words:
        return False
    head = normal_token(words[-1])
    organs = {normal_token(w) for wholes in SENSE_WORDS.wholes.values() for w in wholes}
    return names_a_disorder(words[-1]) or (words[0] not in SENSE_WORDS.determiner and not structure_word(head, SENSE_WORDS)
                                           and head not in SENSE_WORDS.part and head not in organs)


def state_noun(word: str) -> bool:
    """A noun whose "of"-phrase names the thing it is of: a state ("loosening") or a part ("pole")."""
    return normal_token(word) in {normal_token(noun) for noun in (*STATE_NOUNS, *SENSE_WORDS.part)}


SHOWING_VERBS = {"show", "shows", "showed", "showing", "demonstrate", "demonstrates", "demonstrated", "demonstrating",
                 "reveal", "reveals", "revealed", "revealing", "confirm", "confirms", "confirmed", "confirming",
                 "depict", "depicts", "depicted", "depicting"}
ADJECTIVE_ENDINGS = ("al", "ar", "ic", "ous", "ive", "ary")
CONFIRMING = {"confirm", "confirms", "confirmed", "confirming"}


def shown_removal(tokens: list[tuple[str, int, int]], first: int, begin: int) -> list[int]:
    """[the verb of showing] whose object is the removal noun at ``first``: at most two words between, each an
    article, a word of completeness or an adjective, or the removed thing right before the noun; else []."""
    between = []
    for k in range(first - 1, -1, -1):
        if k < begin - 1 or len(between) > 2:
            return []
        if tokens[k][0] in SHOWING_VERBS:
            return [k]
        word = tokens[k][0]
        fits = word in ("the", "a", "an") or word in SENSE_WORDS.complete or word.endswith(("ful", *ADJECTIVE_ENDINGS))
        if not fits and not (k == first - 1 and word.isalpha() and word not in SENSE_WORDS.not_head):
            return []
        between.append(k)
    return []


def one_head(text: str, tokens: list[tuple[str, int, int]], before: int, after: int) -> bool:
    """Two adjectives, or a hyphenated modifier's last word and an adjective, modifying one head."""
    hyphenated = before > 0 and text[tokens[before - 1][2]:tokens[before][1]] == "-"
    return tokens[after][0].endswith(ADJECTIVE_ENDINGS) and (tokens[before][0].endswith(ADJECTIVE_ENDINGS) or hyphenated)


def alternatives(text: str, tokens: list[tuple[str, int, int]], first: int, last: int,
                 begin: int) -> list[tuple[str, int, int]]:
    """The tokens from the noun before "versus" (with the adjectives before it, three words at most) through the
    phrase after it (past an article, up to a participle or three words; only one adjective where both alternatives
    are adjectives of one head)."""
    def plain(k: int) -> bool:
        return tokens[k][0].isalpha() and tokens[k][0] not in SENSE_WORDS.not_head

    def spaced(k: int) -> bool:  # only spaces, tabs and hyphens between (and the cue's own stop: "vs.")
        return text[tokens[k - 1][2]:tokens[k][1]].strip(" \t-." if k == last else " \t-") == ""

    before: list[int] = []
    if first - 1 >= begin and plain(first - 1) and spaced(first):
        before = [first - 1]
        while len(before) < 3 and before[0] - 1 >= begin and plain(before[0] - 1) and spaced(before[0]) and \
                tokens[before[0] - 1][0].endswith(ADJECTIVE_ENDINGS):
            before.insert(0, before[0] - 1)
    if last < len(tokens) and tokens[last][0] == "the":
        return []  # two definite things compared
    article = last < len(tokens) and tokens[last][0] in ("a", "an")
    j = last + 1 if article else last
    after: list[int] = []
    if j < len(tokens) and spaced(j) and plain(j) and (not article or spaced(last)):
        after = [j]
        both_adjectives = len(before) == 1 and one_head(text, tokens, before[0], j)
        while not both_adjectives and len(after) < 3 and after[-1] + 1 < len(tokens) and spaced(after[-1] + 1) and \
                plain(after[-1] + 1) and (not tokens[after[-1] + 1][0].endswith(("ed", "ing"))
                                          or text[tokens[after[-1]][2]:tokens[after[-1] + 1][1]] == "-"):
            after.append(after[-1] + 1)
    if not before and not after:
        return []
    return tokens[before[0] if before else first:after[-1] + 1 if after else last]


LESION_REMOVALS = frozenset(cue.cue for cue in CUES if cue.direction == "compound-lesion")


def lesion_removal(tokens: list, first: int, end: int) -> bool:
    """Whether tokens ``first``..``end - 1`` are a removal noun of a lesion, which ends no phrase for a later cue."""
    return " ".join(w for w, _, _ in tokens[first:end]) in LESION_REMOVALS


def oracle_spans(text: str, max_words: int = MAX_SCOPE_WORDS) -> list[tuple[int, int]]:
    """NegEx over tokens: cues matched at each token (the longest phrase of any group, words joined by spaces or a
    hyphen), scopes walked token by token, a state noun followed by "of" ending a scope."""
    scopes = []
    sentences = [s for s in re.finditer(r".*?(?:(?<![.!?])(?<!\b[Vv]s)[.!?]+(?=\s|$)|(?<=[a-z]{2})\.(?=[A-Z])|\n\s*\n)|.+$", text,
                                        re.DOTALL) if s.group().strip(" \t\n.!?")]
    # a pasted case report or discussion: its later sentences that point at nothing are not of the image
    pasted = len(sentences) >= 10 and len(text) >= 1300
    for number, sentence in enumerate(sentences):
        tokens = [(m.group().lower(), m.start() + sentence.start(), m.end() + sentence.start())
                  for m in re.finditer(r"[^\W_]+(?:['’][^\W_]+)?|[;:]", sentence.group())]
        if pasted:
            if number and tokens and not any(w in ("arrow", "arrows", "arrowhead", "arrowheads", "asterisk")
                                             for w, _, _ in tokens):
                scopes.append((tokens[0][1], tokens[-1][2]))
        # a literature statement: after the first sentence, a citation, no word of the figure; the sentence whole
        elif number and tokens and re.search(r"\[ *\d{1,3}(?: *[,–—-] *\d{1,3})* *\]|\bet al\b", sentence.group(),
                                           re.IGNORECASE) and not any(w in SENSE_WORDS.figure for w, _, _ in tokens):
            scopes.append((tokens[0][1], tokens[-1][2]))
        cues, i = [], 0
        while i < len(tokens):
            found = None
            for group, phrases in GROUPS if tokens[i][0] in FIRST_WORDS else ():
                for words in phrases:
                    window = tokens[i:i + len(words)]
                    if [w for w, _, _ in window] == words and all(
                            text[a[2]:b[1]].replace("-", " ", 1).isspace() for a, b in zip(window, window[1:])):
                        if not found or len(words) > found[2] - found[1]:
                            found = (group, i, i + len(words))
                        break
            if found and found[0] == "prefix" and not (
                    found[2] < len(tokens) and text[tokens[found[2] - 1][2]:tokens[found[2]][1]] in ("-", " ")):
                found = None  # "non" is a prefix only where a hyphen or one space joins it to its word
            if found and found[0] == "suffix" and not (
                    found[1] > 0 and text[tokens[found[1] - 1][2]:tokens[found[1]][1]] == "-"):
                found = None  # "free" is a suffix only where a hyphen joins it to the word before
            if found and found[0] == "place" and (
                    (found[1] > 0 and "-" in text[tokens[found[1] - 1][2]:tokens[found[1]][1]])
                    or (found[2] < len(tokens) and "-" in text[tokens[found[2] - 1][2]:tokens[found[2]][1]])):
                found = None  # "left-to-right" holds no preposition
            if found:
                cues.append(found)
                i = found[2]
            else:
                i += 1
        cues = [cue for cue in cues if cue[0] != "join"]  # a continuation only keeps its "with" from ending a scope
        starts = {first for group, first, _ in cues if group not in ("prefix", "suffix")}  # nor ends a phrase
        # (what an unshown image revealed runs on through "with": "a herniated disc with compression of the root")
        with_starts = {first for _, first, last in cues if [w for w, _, _ in tokens[first:last]] == ["with"]}

        state = state_noun
        # what an image a bracketed "(not shown)" is said of shows: the phrase after its verb of showing, twice the
        # word limit, unless "this" (image) is a subject too
        unshown = [("unshown", last, last + 1) for group, first, last in cues
                   if group == "post" and 0 < first and last < len(tokens)
                   and text[tokens[first - 1][2]:tokens[first][1]].rstrip().endswith("(")
                   and tokens[last][0] in SHOWING_VERBS - CONFIRMING
                   and text[tokens[last - 1][2]:tokens[last][1]].strip() == ")"
                   and not any(tokens[k][0] == "this" and tokens[k + 1][0] in SENSE_WORDS.figure
                               for k in range(first))]

        for group, first, last in cues + unshown:
            if " ".join(w for w, _, _ in tokens[first:last]) in NEGATION_PHRASES and group not in ("prefix", "suffix") and \
                    partial_degree(text, tokens, first):
                continue
            # a participle that opens a noun phrase ("Resolved hematoma", "a resolved VUR", "Disappeared
            # pneumothorax", "(b) Resolved hematoma") before a word that can head one, not in brackets, denies what
            # follows it; an adjective cue elsewhere denies nothing
            opens = last < len(tokens) and tokens[last][0] not in SENSE_WORDS.not_head \
                and not text[:tokens[first][1]].rstrip().endswith("(") and (
                    first == 0 or tokens[first - 1][0] in ("the", "a", "an", ":", "with", "of")
                    or tokens[first - 1][0] in SHOWING_VERBS or ")" in text[tokens[first - 1][2]:tokens[first][1]])
            phrase = " ".join(w for w, _, _ in tokens[first:last])
            if group == "adjective" or (group == "post" and phrase in POST_NEGATION and tokens[last - 1][0].endswith("ed")
                                        and opens):
                if not opens:
                    continue
                group = "pre"
            if group == "compound" and tokens[last - 1][0] == "of":  # "following a wall resection of the rib"
                begin = max([end for g, f, end in cues if g not in ("pseudo", "place") and end <= first
                             and not lesion_removal(tokens, f, end)], default=0)
                if not [k for k in after_event_ends(text, tokens) if max(begin, first - max_words) <= k < first] \
                        and not shown_removal(tokens, first, begin):
                    continue
                group = "pre"
            if group in ("pre", "unshown"):
                limit = 2 * max_words if group == "unshown" else max_words
                phrase = "not shown" if group == "unshown" else " ".join(w for w, _, _ in tokens[first:last])
                inside, stopped = [], None
                # (where the scope would end: an evidential noun's of-phrase is read up to there, issue 69)
                bound = min([last + limit] + [k for k in range(last, len(tokens))
                                              if (k in starts and not (group == "unshown" and k in with_starts))
                                              or (k > last and new_clause(text, tokens, k))])
                for j in range(last, len(tokens)):
                    if (j in starts and not (group == "unshown" and j in with_starts)) or (
                            j > last and new_clause(text, tokens, j)):
                        break
                    if len(inside) == limit:
                        stopped = j
                        break
                    if tokens[j][0] not in (";", ":"):
                        inside.append(tokens[j])
                    if state(tokens[j][0]) and j + 1 < len(tokens) and tokens[j + 1][0] == "of" \
                            and not finds_a_disorder(tokens, j, bound):
                        break
                if stopped is not None:  # the word limit cut a list short: read on through its "or" item
                    # (a history's complaints and a hypothetical's alternatives are also joined by "and")
                    joined_by_and = phrase in (*HISTORY, *HYPOTHETICAL)
                    inside += list_run_on(text, tokens, stopped, limit, starts, last,
                                          ("or", "nor", "and") if joined_by_and else ("or", "nor"))
                # a history phrase with an arrow or asterisk in its clause names what the image shows
                if phrase in HISTORY:
                    for j in range(last, min(len(tokens), last + 2 * limit)):
                        if j in starts or (j > last and new_clause(text, tokens, j)):
                            break
                        if tokens[j][0] in ("arrow", "arrows", "arrowhead", "arrowheads", "asterisk"):
                            inside = []
                            break
                # a denial ends before a list item after a comma that an arrow points at
                elif phrase in NEGATION_PHRASES:
                    reach = min(len(tokens), tokens.index(inside[-1]) + 1 + 2 * limit) if inside else 0
                    for n in range(1, len(inside)):
                        if "," in text[inside[n - 1][2]:inside[n][1]]:
                            k = j = tokens.index(inside[n])
                            while j + 1 < reach and "," not in text[tokens[j][2]:tokens[j + 1][1]]:
                                j += 1
                            if any(w in ("arrow", "arrows", "arrowhead", "arrowheads", "asterisk")
                                   for w, _, _ in tokens[k:j + 1]):
                                inside = inside[:n]
                                break
            elif group == "post":
                begin = max([end for g, f, end in cues if g not in ("pseudo", "place") and end <= first
                             and not lesion_removal(tokens, f, end)], default=0)
                # a state noun heading the subject, up to twice the scope back, is what is denied
                subject = [k for k in range(max(begin, first - 2 * max_words), first - 1)
                           if state(tokens[k][0]) and tokens[k + 1][0] == "of"]
                if subject and subject[0] < first - max_words:
                    scopes.append((tokens[subject[0]][1], tokens[subject[0]][2]))
                    continue
                window = [t for t in tokens[begin:first] if t[0] not in (";", ":")]
                inside = window[-max_words:]
                # ... and ends before a place in it that no comma parts from the cue, the subject then read before
                # the place ("thrombus in the vein had disappeared"); a bracketed cue's is what follows the last
                # place in it ("into the inferior vena cava (not shown)")
                bracketed = text[:tokens[first][1]].rstrip().endswith("(")
                places = [tokens[f][1] for g, f, _ in cues if g == "place" and f < first and inside
                          and tokens[f][1] >= inside[0][1]
                          and (bracketed or "," not in text[tokens[f][2]:tokens[first - 1][1]])]
                # that names more than the examination it was seen on ("A thrombus on CT (not depicted)")
                phrases = [p for p in places if not all(
                    t[0] in SENSE_WORDS.figure or t[0] in ("the", "a", "an") for t in inside if p < t[1])]
                if phrases and bracketed:
                    inside = [t for t in inside if t[1] > max(phrases)]
                elif places and not bracketed:
                    inside = [t for t in window if t[1] < min(places)][-max_words:]
                states = [k for k, t in enumerate(inside[:-1]) if state(t[0]) and inside[k + 1][0] == "of"]
                # ... where no state noun heads it, from an article after a comma ("..., the cyst was not seen") or
                # a comma just after a word of the figure ("CT abdomen, left kidney cannot be visualized")
                articles = [k for k in range(1, len(inside)) if "," in text[inside[k - 1][2]:inside[k][1]] and (
                    inside[k][0] in ("the", "a", "an")
                    or any(w in SENSE_WORDS.figure for w, _, _ in inside[max(0, k - 3):k]))]
                inside = inside[:states[0] + 1] if states else inside[articles[-1]:] if articles else inside
            elif group == "compound":  # a removal noun after what was removed: from an earlier event's cue
                begin = max([end for g, f, end in cues if g not in ("pseudo", "place") and end <= first
                             and not lesion_removal(tokens, f, end)], default=0)
                openers = [k for k in after_event_ends(text, tokens) if max(begin, first - max_words) <= k < first]
                openers = openers or shown_removal(tokens, first, begin)
                inside = tokens[max(openers) + 1:first] if openers else []
            elif group == "between":  # the alternatives of a differential beside "versus"
                begin = max([end for g, f, end in cues if g not in ("pseudo", "place") and end <= first
                             and not lesion_removal(tokens, f, end)], default=0)
                inside = alternatives(text, tokens, first, last, begin)
            elif group == "prefix":  # the word the hyphen joins it to, and the words hyphenated to that one
                inside = tokens[last:last + 1]
                while last + len(inside) < len(tokens) and len(inside) < max_words and \
                        text[inside[-1][2]:tokens[last + len(inside)][1]] == "-":
                    inside.append(tokens[last + len(inside)])
            elif group == "suffix":  # the word the hyphen joins it to, and the words hyphenated before that one
                inside = [tokens[first - 1]]
                while first - len(inside) > 0 and len(inside) < max_words and \
                        text[tokens[first - len(inside) - 1][2]:inside[0][1]] == "-":
                    inside.insert(0, tokens[first - len(inside) - 1])
            else:
                continue
            if inside:
                scopes.append((inside[0][1], inside[-1][2]))
    # an abbreviation key takes its uses' status: every use outside the keys in a scope puts the entry, short form
    # and long form, in one
    keys = [d for d in defined_abbreviations(text) if d.glossary]
    entries = [(text.rfind(d.short, 0, d.start), d.end) for d in keys]
    for d, (entry_start, _) in zip(keys, entries):
        uses = [m.start() for m in re.finditer(r"(?<![A-Za-z0-9])" + re.escape(d.short) + r"(?![A-Za-z0-9])", text)
                if not any(a <= m.start() < b for a, b in entries)]
        # a use that modifies the lower-case word after it ("LV thrombi") is held by no scope
        modifying = {use for use in uses if (after := re.match(r"[ \t]*-?[ \t]*([a-z]+)\b", text[use + len(d.short):]))
                     and after.group(1) not in SENSE_WORDS.not_head}
        if uses and all(use not in modifying and any(a <= use < b for a, b in scopes) for use in uses):
            scopes.append((entry_start, d.end))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(scopes):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


@pytest.mark.parametrize("seed", range(40))
def test_agrees_with_a_token_by_token_implementation_on_random_texts(seed):
    rng = random.Random(seed)
    vocabulary = PLAIN_WORDS + sorted(CUE_WORDS) + ["no evidence of", "was ruled out", "no change", "in", "along",
                                                    "or", "or", "nor", "complete", "patent", "fractures", "under",
                                                    "versus", "vs", "vs.", "a", "(not shown) revealed", "this image",
                                                    "consistent with", "suggesting", "with", "non-calcified",
                                                    "non-COVID-19", "non", "almost", "nearly", "near-complete", "wholly",
                                                    "the resolved", "(disappeared) revealed", "recommended", "(b) resolved",
                                                    ": resolved", "disappeared", "now resolved", "non enlarged",
                                                    "findings of", "finding of the", "cirrhosis", "lesions"]
    text = random_text(rng, vocabulary, rng.randint(0, 60))
    words = rng.randint(1, 8)
    assert negated_spans(text, words) == oracle_spans(text, words), text


@pytest.mark.slow
def test_agrees_with_a_token_by_token_implementation_on_rocov2_captions():
    if not ROCOV2.exists():
        pytest.skip("../shared/data is absent")
    with open(ROCOV2 / "test_captions.csv", newline="", encoding="utf-8") as handle:
        captions = [row[1] for row in csv.reader(handle)][1:]
    differing = [c for c in captions if negated_spans(c) != oracle_spans(c)]
    assert not differing, differing[:3]
    assert sum(1 for c in captions if negated_spans(c)) > 900  # the captions do negate things


# --- linear in the caption ------------------------------------------------------------------------------------

SENTENCES = ("Chest X-ray shows no pneumothorax and no pleural effusion. ",
             "The nodule is not seen on the follow-up CT; a small hematoma was ruled out, but the mass is enlarged. ",
             "No loosening of the screws, without evidence of infection, which is not shown here. ",
             "Follow-up with CT or MRI is recommended if symptoms persist. ")


def caption_of(size: int, run_on: bool) -> str:
    """A caption of ``size`` characters of realistic sentences; ``run_on`` joins them into one sentence (commas),
    the case where a scan of every cue for every word grew with the square of the sentence."""
    text = "".join(SENTENCES) * (size // sum(map(len, SENTENCES)) + 1)
    return (text.replace(". ", ", ") if run_on else text)[:size]


def reading_time(size: int) -> float:
    """Seconds to find the scopes of two captions of ``size`` characters and quote the sentence of every 100th
    word, as the explanations do."""
    began = time.perf_counter()
    for run_on in (False, True):
        text = caption_of(size, run_on)
        negated_spans(text)
        for position in range(0, len(text), 600):
            sentence_at(text, position)
    return time.perf_counter() - began


@pytest.mark.slow
def test_a_1_mb_caption_is_read_in_linear_time() -> None:
    """1 MB is 32 times 32 KB: linear time is about 32 times the reference, quadratic about 1,000 times; the bound,
    250 times, leaves room for a loaded machine without letting a quadratic pass."""
    reference = min(reading_time(32 * 1024) for _ in range(3))
    assert reading_time(1024 * 1024) < 250 * reference


@pytest.mark.slow
def test_a_1_mb_glossary_is_read_in_linear_time() -> None:
    """Abbreviation keys whose every use is denied (each key takes its uses' status): the uses are looked up once
    per short form, where a scan of every use for every key grew with the square of the glossary."""
    def seconds(size: int) -> float:
        text = "No PTX" + "; PTX: pneumothorax, no PTX" * (size // 27)
        began = time.perf_counter()
        spans = negated_spans(text)
        assert len(spans) > size // 60  # every key's long form is denied
        return time.perf_counter() - began

    reference = min(seconds(32 * 1024) for _ in range(3))
    assert seconds(1024 * 1024) < 250 * reference  # quadratic: 1,000 times


LINEAR_NAMES = {"C0032326": "Pneumothorax", "C0032227": "Pleural effusion", "C0028259": "Nodule",
                "C0018944": "Hematoma", "C0577559": "Mass", "C0036459": "Screws", "C0009450": "Infection",
                "C0040405": "X-Ray Computed Tomography", "C0024485": "Magnetic Resonance Imaging",
                "C1306645": "Plain x-ray", "C0817096": "Chest"}


def explaining_time(size: int) -> float:
    """Seconds to extract a caption of ``size`` characters, one run-on sentence, and explain it as the dashboard
    does: the mentions, each concept's status, the highlighted pieces and the evidence rows with their quotes."""
    from evalcore.app.explain import caption_statuses
    from evalcore.extraction.caption_concepts import caption_pieces, find_caption_concepts
    from evalcore.extraction.evidence import evidence_rows

    began = time.perf_counter()
    text = caption_of(size, run_on=True)
    found = find_caption_concepts({"x": text}, LINEAR_NAMES)
    caption_statuses(text, found.concepts["x"], found.dictionary)
    caption_pieces(text, found.mentions_of("x"))
    assert sum(len(row.rule) for row in evidence_rows(found)) < 1000 * size  # each quote is bounded
    return time.perf_counter() - began


@pytest.mark.slow
def test_a_1_mb_caption_is_extracted_and_explained_in_linear_time() -> None:
    """The same bound for what the explanations draw from a caption (extraction, statuses, pieces, evidence): a scan
    of every scope or mention for every mention grew with the square of the caption."""
    reference = min(explaining_time(32 * 1024) for _ in range(2))
    assert explaining_time(1024 * 1024) < 250 * reference


def test_sentence_ends_are_the_plain_patterns_on_random_texts() -> None:
    """The sentence ends, matched without retrying a run of marks or blank lines, are those of the plain pattern
    (a run of marks before a space or the end, a stop against a capital, a blank line)."""
    plain = re.compile(r"(?<![.!?])(?<!\b[Vv]s)[.!?]+(?=\s|$)|(?<=[a-z]{2})\.(?=[A-Z])|\n\s*\n")

    def plain_spans(text: str) -> list[tuple[int, int]]:  # each sentence runs to the end of a match, the last to the end
        starts = [0, *(match.end() for match in plain.finditer(text))]
        return list(zip(starts, starts[1:])) + ([(starts[-1], len(text))] if starts[-1] < len(text) else [])

    rng = random.Random(36)
    alphabet = ["a", "b", "A", ".", "!", "?", " ", "\n", "\t", "\r", "x", "2", "\u2028", "v", "s", "V", "vs"]
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30)))
        assert sentence_spans(text) == plain_spans(text), repr(text)


@pytest.mark.slow
@pytest.mark.parametrize("caption_of_size", [
    lambda size: "CT " + "." * size + "x",  # a run of marks that ends no sentence
    lambda size: "CT " + "!?" * (size // 2) + " x",
    lambda size: "right" + " " * size + "! and left lungs",  # a long gap before a coordinator
    lambda size: "CT" + "\n \n" * (size // 3) + "x",  # blank lines
    lambda size: "neck " * (size // 5),  # bare part nouns, no organ named: each read against the whole caption
    lambda size: "Neck. " * (size // 6),
    lambda size: "right, " * (size // 7) + "right and left lungs",  # an endless list before a shared head
    lambda size: "fronto" * (size // 6) + "temporal lobe",  # a compound of endless combining forms
    lambda size: "right lung (RL), left lung (LL2) " * (size // 32),  # abbreviations the caption defines
    lambda size: "CT" + "; RL, right lung" * (size // 16),  # ... in a glossary
    # what an unshown image revealed and differentials in one endless sentence
    lambda size: "(not shown) showed a neck, " * (size // 27),
    lambda size: "MRI revealed a lung versus neck or possibly right lung, " * (size // 56),
    lambda size: "x-free-" * (size // 7),  # a hyphen chain a suffix reads back through (twenty-second pass)
    lambda size: "non-x-" * (size // 6),  # ... and a prefix forward
])
def test_long_runs_and_endless_lists_are_read_in_linear_time(caption_of_size) -> None:
    """16 times the text takes about 16 times as long; a run retried from each of its characters took 256 times."""
    dictionary = ConceptDictionary.build({"C0225706": "Right lung", "C0225730": "Left lung",
                                          "C0040405": "X-Ray Computed Tomography", "C0027530": "Neck",
                                          "C0225752": "Structure of lobe of lung", "C0016733": "frontal lobe"})

    def seconds(size: int) -> float:
        text = caption_of_size(size)
        began = time.perf_counter()
        mentions(text, dictionary)
        return time.perf_counter() - began

    # (the least of two runs of the long text too: one run on a loaded machine took 81 times the reference once, where
    # the text reads in 14 to 22 times)
    reference = min(seconds(8 * 1024) for _ in range(3))
    assert min(seconds(128 * 1024) for _ in range(2)) < 100 * reference + 0.1  # quadratic: 256 times


# --- the cue file -----------------------------------------------------------------------------------------------

def test_the_shipped_cue_file_reads_and_every_row_has_a_source() -> None:
    cues = read_cues(CUES_FILE)
    assert len(cues) > 250 and all(cue.source for cue in cues)
    assert {"not shown", "not evident", "not visualized", "not visualised", "disappearance of", "resolution of",
            "no longer seen"} <= set(POST_NEGATION + PRE_NEGATION)
    assert "loosening" in STATE_NOUNS and "if" in HYPOTHETICAL and "is recommended" in POST_HYPOTHETICAL
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["tool"]["setuptools"]["package-data"]["evalcore.extraction"] == ["rules/*.tsv"]


@pytest.mark.parametrize(("rows", "where"), [
    ("no\tnegation\tforward\n", "line 2: expected 4 tab-separated columns"),
    ("no\tnegation\tforward\tNegEx\nno\tpseudo\tnone\tNegEx\n", "line 3: expected column 1 (cue)"),
    ("\tnegation\tforward\tNegEx\n", "line 2: expected column 1 (cue)"),
    ("- -\tnegation\tforward\tNegEx\n", "line 2: expected column 1 (cue): a cue's words"),  # hyphens alone
    ("follow-up with\thypothetical\tforward\tConText\nfollow up with\thypothetical\tforward\tConText\n",
     "line 3: expected column 1 (cue)"),  # the same words, read as a caption's
    ("no\tnegative\tforward\tNegEx\n", "line 2: expected column 2 (kind)"),
    ("no\tnegation\tnone\tNegEx\n", "line 2: expected column 3 (direction)"),
    ("no\tnegation\tforward\t \n", "line 2: expected column 4 (source)"),
])
def test_a_bad_cue_row_names_file_line_and_column(tmp_path: Path, rows: str, where: str) -> None:
    path = tmp_path / "cues.tsv"
    path.write_text("cue\tkind\tdirection\tsource\n" + rows, encoding="utf-8")
    with pytest.raises(InputError, match=re.escape(f"{path}, {where}")):
        read_cues(path)


def test_a_cue_file_without_its_header_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cues.tsv"
    path.write_text("no\tnegation\tforward\tNegEx\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1: expected the header"):
        read_cues(path)
    with pytest.raises(InputError, match="a rule file"):
        read_cues(tmp_path / "absent.tsv")


def test_each_set_of_cues_reads_with_its_own_cues_however_often_they_alternate() -> None:
    """The tries are found by the identity of the cue tuple: sets of cues used in turn, and an equal tuple built
    anew, each read with their own cues."""
    text = "The lesion disregarded. No cyst."
    called = with_cues([Cue("disregarded", "negation", "backward", "a test")])
    for _ in range(3):
        for cues in (CUES, called, tuple(called), with_cues([])):
            spans = [text[a:b] for a, b in negated_spans(text, cues=cues)]
            assert spans == (["The lesion", "cyst"] if "disregarded" in {c.cue for c in cues} else ["cyst"])
    assert with_cues([]) is CUES


def test_the_explaining_functions_refuse_what_is_not_a_text_with_the_projects_error() -> None:
    from evalcore.app.explain import caption_statuses
    from evalcore.extraction.caption_concepts import caption_pieces
    from evalcore.extraction.evidence import evidence_rows
    from evalcore.extraction.negation import cue_scopes

    dictionary = one_concept(("Pleural effusion",))
    for call in (lambda: caption_statuses("No effusion.", "C0000001", dictionary),
                 lambda: caption_statuses("No effusion.", None, dictionary),
                 lambda: caption_statuses("No effusion.", [1, "C0000001"], dictionary),
                 lambda: sentence_at(None, 0), lambda: sentence_at("No effusion.", "0"),
                 lambda: cue_scopes(None), lambda: caption_pieces(None, []), lambda: evidence_rows(None),
                 lambda: ConceptDictionary.build({CONCEPT: "Pleural effusion"}, {CONCEPT: None}),
                 lambda: ConceptDictionary.build({CONCEPT: "Pleural effusion"}, rules="rules.tsv")):
        with pytest.raises(ParameterError):
            call()
    assert caption_statuses("No pleural effusion.", ["C0000001"], dictionary) == {"C0000001": "negated"}


@pytest.mark.parametrize(("text", "status"), [
    # issue 36, seventh pass: what was taken out before the image is not in it ...
    ("Chest x-ray after removal of the pigtail catheter.", "negated"),
    ("The catheter has been removed.", "negated"),
    ("Radiograph following surgical removal of the catheter.", "negated"),
    # ... but a narrative of what followed the image, or a plan, denies nothing
    ("CT shows the catheter (arrow). The catheter was removed.", "affirmed"),
    ("Catheter before removal.", "affirmed"),
])
def test_a_removal_done_before_the_image_denies_what_it_removed(text: str, status: str) -> None:
    assert mention_status(text, ["Catheter"]) == status


def test_an_indefinite_article_after_and_begins_a_phrase_the_denial_does_not_reach() -> None:
    """Issue 36, seventh pass: list items carry no article ("no effusion and consolidation")."""
    assert mention_status("X-ray with no acute disease and a calcified aorta.", ["Aorta"]) == "affirmed"
    assert mention_status("No effusion and consolidation.", ["Consolidation"]) == "negated"


def test_a_denied_state_participle_leaves_the_thing_it_describes() -> None:
    """Issue 36, seventh pass: "resolution of the widened mediastinum" resolves the widening."""
    assert mention_status("X-ray showing resolution of the widened mediastinum.", ["Mediastinum"]) == "affirmed"
    assert mention_status("No dilated bowel loops.", ["Bowel"]) == "affirmed"
    assert mention_status("No mediastinum widening.", ["Mediastinum"]) == "affirmed"
    assert mention_status("No effusion.", ["Effusion"]) == "negated"


def test_a_denied_state_participle_reaches_its_thing_past_adjectives() -> None:
    """Twenty-fourth pass (valid negation reading v46; a test reading counted the same wrong): "no evidence of
    enlarged abdominal lymph nodes" denies the enlargement, and the nodes an adjective stands between are kept; a
    noun between ends the reach ("no enlarged liver cyst" denies the cyst), and a lesion is denied itself."""
    caption = "CT: splenic lesion; no evidence of enlarged abdominal lymph nodes."
    assert mention_status(caption, ["Lymph nodes"]) == "affirmed"
    assert mention_status("No dilated left intrahepatic bile ducts.", ["Bile ducts"]) == "affirmed"
    assert mention_status("No enlarged liver cyst.", ["Cyst"]) == "negated"
    assert mention_status("No abnormal abdominal lymph nodes.", ["Lymph nodes"]) == "negated"
    # ... but a lesion's noun is the thing denied, the participle or not (a review of the pass)
    assert mention_status("No enlarged adrenal adenoma.", ["Adenoma"]) == "negated"
    assert mention_status("No dilated perigastric varices.", ["Varices"]) == "negated"
    assert mention_status("No dilated varices.", ["Varices"]) == "negated"
    assert mention_status("No thickened irregular plaque.", ["Plaque"]) == "negated"


def test_a_hyphenated_adjective_is_one_word_of_a_participles_reach() -> None:
    """Twenty-fifth pass (left by the twenty-fourth's review): a hyphen joins the words of one adjective, so "no
    enlarged para-aortic lymph nodes" leaves the nodes as "no enlarged abdominal lymph nodes" does; a participle
    inside a hyphenated compound is still found ("enlarged-hyperplastic"); the reach still counts adjectives, not
    their parts (three is too many), and a lesion is still denied."""
    assert mention_status("CT: no enlarged para-aortic lymph nodes.", ["Lymph nodes"]) == "affirmed"
    assert mention_status("No dilated intra-hepatic bile ducts.", ["Bile ducts"]) == "affirmed"
    assert mention_status("No dilated left intra-hepatic bile ducts.", ["Bile ducts"]) == "affirmed"
    assert mention_status("No enlarged-hyperplastic lymph nodes.", ["Lymph nodes"]) == "affirmed"
    assert mention_status("No dilated–tortuous intrahepatic bile ducts.", ["Bile ducts"]) == "affirmed"
    assert mention_status("No enlarged left upper para-aortic lymph nodes.", ["Lymph nodes"]) == "negated"
    assert mention_status("No enlarged para-aortic adenoma.", ["Adenoma"]) == "negated"


def test_no_longer_present_with_a_verb_of_seeming() -> None:
    """Twenty-fifth pass: ConText's post-negation "no longer present" after "appear(s) to" (ROCOv2 valid: "fundic
    lesions appear to no longer be present"); what the sentence says is there stays."""
    assert mention_status("The abscess appears to no longer be present.", ["Abscess"]) == "negated"
    assert mention_status("The nodules appear to no longer be present in the stomach wall.", ["Nodule"]) == "negated"
    assert mention_status("The nodules appear to no longer be present in the stomach wall.",
                          ["Stomach wall"]) == "affirmed"


def test_a_state_participle_before_a_finding_noun_leaves_the_finding_denied() -> None:
    """Issue 36, nineteenth pass: a participle describes the noun after it, which is the denied thing where it names
    a finding ("no dilated fluid in the renal pelvis" denies the fluid and keeps the pelvis)."""
    assert mention_status("CT showing no dilated fluid in the right renal pelvis.", ["Fluid"]) == "negated"
    assert mention_status("CT showing no dilated fluid in the right renal pelvis.", ["Right renal pelvis"]) == "affirmed"
    assert mention_status("No dilated bowel loops.", ["Bowel"]) == "affirmed"


def test_a_refuted_first_impression_is_not_a_finding() -> None:
    """Issue 36, seventh pass: "misdiagnosed as", "mistaken for"; "excluding" is left out (it means "except")."""
    assert mention_status("The opacity was misdiagnosed as atelectasis.", ["Atelectasis"]) == "negated"
    assert mention_status("The air can be mistaken for diverticulitis.", ["Diverticulitis"]) == "negated"
    assert mention_status("Area measured excluding the inferior vena cava.", ["Inferior vena cava"]) == "affirmed"


def test_the_source_an_exam_looks_for_is_no_finding_and_a_resolved_finding_before_its_noun_stays_apart() -> None:
    """Issue 36, twenty-second pass (ROCOv2 valid reading v51): "performed to find a source of sepsis" (an indication,
    as "to look for"); a bare "resolved" reads no finding back ("pneumonia and resolved pleural effusion": a review
    of the pass withdrew it as a post-negation, 1 valid image right against such wrong ones)."""
    assert mention_status("Pneumonia and resolved pleural effusion.", ["Pneumonia"]) == "affirmed"
    assert mention_status("Ultrasound performed to find a source of sepsis.", ["sepsis"]) == "negated"
    assert mention_status("Ultrasound showing a source of sepsis.", ["sepsis"]) == "affirmed"


def test_a_resection_after_an_earlier_event_removes_a_lesion_and_leaves_an_organ() -> None:
    """Issue 36, twenty-second pass (seen in its second test reading): "after the myxoma resection" removed the
    myxoma; "after bowel resection" a part of the bowel; "before tumor resection" nothing yet."""
    assert mention_status("TEE after the myxoma resection.", ["Myxoma"]) == "negated"
    assert mention_status("CT following tumor excision shows a seroma.", ["Tumor"]) == "negated"
    assert mention_status("CT after bowel resection.", ["Bowel"]) == "affirmed"
    assert mention_status("CT before tumor resection shows the mass.", ["Tumor"]) == "affirmed"
    assert mention_status("Tumor resection margins on MRI.", ["Tumor"]) == "affirmed"
    # a lesion's removal leaves a later removal its opener (the pass's review)
    assert mention_status("CT after bowel resection and stent removal.", ["Stent"]) == "negated"
    assert mention_status("CT after bowel resection and stent removal.", ["Bowel"]) == "affirmed"


def test_a_caption_is_lowered_once_only_where_that_reads_each_word_as_lowering_it_alone() -> None:
    """The cue reader lowers a caption whole where that keeps every offset and every word: a capital sigma lowers by
    its neighbours across a word's end ("\u03a3." before a letter is no final sigma), and "\u0130" lowers to two
    letters, so either caption is read word by word, as a user's Greek cue is written."""
    cues = with_cues([Cue("\u03c7\u03c9\u03c1\u03af\u03c2", "negation", "forward", "a user's cue")])
    text = "\u03a7\u03a9\u03a1\u038a\u03a3.\u0391\u0399\u039c\u0391"
    assert [text[a:b] for a, b in negated_spans(text, cues=cues)] == ["\u0391\u0399\u039c\u0391"]
    dotted, plain = "\u0130zmir. No effusion.", "Izmir. No effusion."
    assert [(a, b, cue.cue) for a, b, cue in cue_scopes(dotted)] == [(a, b, cue.cue) for a, b, cue in cue_scopes(plain)]


def test_a_singular_post_negation_denies_one_subject_of_a_coordination() -> None:
    """Twenty-fifth pass (the pass's review): a post-negation whose verb is singular ("has resolved", "is not seen")
    agrees with the subject after "and the", so what the clause before it states stays; a plural verb ("have
    resolved", "were absent") denies the whole coordination, and an article-less item ("and hydronephrosis") is
    still read with it."""
    caption = "CT showed a large renal abscess and the hydronephrosis has resolved."
    assert mention_status(caption, ["Abscess"]) == "affirmed"
    assert mention_status(caption, ["Hydronephrosis"]) == "negated"
    assert mention_status("Liver cyst and the effusion is not seen.", ["Liver cyst"]) == "affirmed"
    assert mention_status("The abscess and the effusion have resolved.", ["Abscess"]) == "negated"
    assert mention_status("A pleural effusion and the abscess were absent.", ["Pleural effusion"]) == "negated"
    assert mention_status("The renal abscess and hydronephrosis has resolved.", ["Abscess"]) == "negated"
