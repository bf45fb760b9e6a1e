"""The built-in imaging vocabulary of concept extraction: abbreviations and common phrasings of imaging modality,
X-ray body region and X-ray view, each mapped to the ROCOv2 CUI of that tag and citing where the expansion is
standard.

These are facts, not rules fitted to labels: an abbreviation's expansion (the DICOM modality codes, MeSH entry
terms of the modality's descriptor), a child term of the modality in the MeSH tree (Echocardiography is a kind of
Ultrasonography), a part of a body region in UBERON's ``part_of`` (the knee is part of the hindlimb), a projection's
plane in RadLex. Each row:

- ``term``: the text as a caption writes it (matched like any name: case, plurals, hyphens aside), unless
  ``case_sensitive``: then exactly as written ("US" is ultrasound, "us" is not);
- ``concept``: the ROCOv2 CUI (``../shared/data/README.md``: modality, X-ray body region, view);
- ``requires``: a concept that must be extracted from the same caption for this row to count, or "" (ROCOv2's
  manual curation tags body region and view on plain radiographs only, Rückert et al. 2024, Sci Data 11:688; "AP"
  or "axial" in a CT caption is no X-ray view);
- ``source``: where the expansion is standard.

A row whose concept is not among the names a dictionary is built from is left out: the vocabulary never adds an ID.
"""

from __future__ import annotations

from typing import NamedTuple

CT = "C0040405"          # X-Ray Computed Tomography
PLAIN_XRAY = "C1306645"  # Plain x-ray
MRI = "C0024485"         # Magnetic Resonance Imaging
ULTRASOUND = "C0041618"  # Ultrasonography
ANGIOGRAM = "C0002978"   # angiogram
PET = "C0032743"         # Positron-Emission Tomography
CHEST = "C0817096"
CRANIUM = "C0037303"
ABDOMEN = "C0000726"
PELVIS = "C0030797"
LOWER_EXTREMITY = "C0023216"
UPPER_EXTREMITY = "C1140618"
VERTEBRAL_COLUMN = "C0037949"
BREAST = "C0006141"
AP_VIEW = "C1999039"
PA_VIEW = "C1996865"
SAGITTAL = "C0205129"
TRANSVERSE = "C0205106"


#: Concepts that tag how a plain radiograph was taken, not what it shows: ROCOv2's manual curation gives a view on
#: plain radiographs only (every view tag of ``valid_concepts_manual.csv`` is on a "Plain x-ray" image), so with the
#: vocabulary on, these concepts count only where a plain radiograph is extracted too, whatever names them (the
#: name "Sagittal" in an MRI caption is the plane of the slice, not a radiograph's view).
VIEW_TAGS = frozenset({AP_VIEW, PA_VIEW, SAGITTAL, TRANSVERSE})

#: Imaging procedures recorded as the modality they are a kind of (the procedure -> modality step of the MeSH tree
#: or of SNOMED CT's "is a"), with that source: ROCOv2's curation gives every image one modality tag at this level
#: (Rückert et al. 2024) and tags no echocardiogram "Echocardiography" (2 of ~60,000 training images), so with the
#: vocabulary on, a caption's "echocardiography" or "chest CT" is extracted as Ultrasonography or CT, and two images
#: of one modality share its concept whatever their captions call the examination.
MODALITY_OF_PROCEDURE: dict[str, tuple[str, str]] = {
    "C0013516": (ULTRASOUND, "MeSH D004452 Echocardiography (tree: under D014463 Ultrasonography)"),
    "C0202823": (CT, "SNOMED CT 169069000 CT of chest (is a 77477000 Computerized axial tomography)"),
    "C0412620": (CT, "SNOMED CT 169070004 CT of abdomen (is a 77477000 Computerized axial tomography)"),
    "C0412650": (CT, "SNOMED CT 241598004 CT of cervical spine (is a 77477000 Computerized axial tomography)"),
    "C0202660": (CT, "SNOMED CT CT coronal (is a 77477000 Computerized axial tomography)"),
    "C0202657": (CT, "SNOMED CT CT follow-up (is a 77477000 Computerized axial tomography)"),
    "C0994163": (MRI, "MeSH D041781 Cholangiopancreatography, Magnetic Resonance (tree: under D008279 MRI)"),
    "C0243032": (MRI, "MeSH D018810 Magnetic Resonance Angiography (tree: under D008279 MRI)"),
    "C1690005": (MRI, "MRI venography: MeSH D018810 Magnetic Resonance Angiography (tree: under D008279 MRI)"),
}

#: The standard projection of a plain radiograph of a region, counted where a caption names the region on a
#: radiograph and states no view: the abdominal and the pelvic radiograph are taken supine, anteroposterior (Whitley
#: et al., Clark's Positioning in Radiography, 13th ed.: "AP supine abdomen", "AP pelvis"; the chest's standard PA
#: is not assumed, as many chest radiographs are taken AP at the bedside).
STANDARD_VIEW: dict[str, tuple[str, str]] = {
    ABDOMEN: (AP_VIEW, "Clark's Positioning in Radiography: the abdomen's basic projection is AP supine"),
    PELVIS: (AP_VIEW, "Clark's Positioning in Radiography: the pelvis's basic projection is AP"),
}
#: Words that say a radiograph was taken in another projection or position than the standard one (Clark's
#: Positioning in Radiography): where a caption has one, no standard view is assumed, even though the word alone
#: is no view tag ("lateral" is also a side).
OTHER_PROJECTION_WORDS = frozenset({"lateral", "oblique", "decubitus", "erect", "upright", "inlet", "outlet",
                                    "frog", "prone", "standing"})


class VocabularyRow(NamedTuple):
    term: str
    concept: str
    case_sensitive: bool
    requires: str
    source: str


_DICOM = "DICOM PS3.3 C.7.3.1.1.1 Modality defined terms"
_MESH_CT = "MeSH D014057 Tomography, X-Ray Computed (entry terms)"
_MESH_CTA = "MeSH D000072226 Computed Tomography Angiography (tree: under D014057)"
_MESH_MRI = "MeSH D008279 Magnetic Resonance Imaging (entry terms)"
_MESH_MRA = "MeSH D018810 Magnetic Resonance Angiography (tree: under D008279)"
_MESH_US = "MeSH D014463 Ultrasonography (entry terms)"
_MESH_ECHO = "MeSH D004452 Echocardiography (tree: under D014463 Ultrasonography)"
_MESH_DOPPLER = "MeSH D018608 Ultrasonography, Doppler (tree: under D014463)"
_MESH_XRAY = "MeSH D011859 Radiography (entry terms)"
_MESH_MAMMO = "MeSH D008327 Mammography (tree: under D011859 Radiography)"
_MESH_ANGIO = "MeSH D000792 Angiography (entry terms)"
_MESH_PHLEBO = "MeSH D010690 Phlebography (tree: under D000792 Angiography)"
_MESH_DSA = "MeSH D015901 Angiography, Digital Subtraction"
_MESH_PET = "MeSH D049268 Positron-Emission Tomography (entry terms)"
_ROCO = "ROCOv2 (Rückert et al. 2024): region and view tagged on plain radiographs; "
_UBERON = _ROCO + "UBERON part_of "
_RADLEX = _ROCO + "RadLex radiograph projections: "


def _rows(concept: str, source: str, terms: str, case_sensitive: bool = False, requires: str = "") -> list[VocabularyRow]:
    return [VocabularyRow(term.strip(), concept, case_sensitive, requires, source) for term in terms.split("|")]


IMAGING_VOCABULARY: tuple[VocabularyRow, ...] = tuple([
    *_rows(CT, _DICOM + ": CT", "CT|CTs", case_sensitive=True),
    *_rows(CT, _MESH_CT, "CT scan|computed tomography|computerized tomography|computerised tomography|CAT scan|"
                         "X-ray computed tomography|computed tomographic|computed tomogram"),
    *_rows(CT, "contrast-enhanced / high-resolution / multidetector CT (RadLex CT technique terms)",
           "CECT|HRCT|MDCT|NCCT", case_sensitive=True),
    *_rows(CT, _MESH_CTA, "CT angiography|CT angiogram|computed tomography angiography"),
    *_rows(CT, _MESH_CT + ": a CT named by its region (a longer name must not hide the modality)",
           "chest CT|CT chest|abdominal CT|CT abdomen|head CT|CT head|brain CT|CT scan of the chest"),
    *_rows(CT, "RadLex CT observations: attenuation in Hounsfield units", "Hounsfield|Hounsfield unit"),
    *_rows(CT, _MESH_CTA + ": CTA", "CTA", case_sensitive=True),
    *_rows(CT, _MESH_CTA + ": its phrasings by vessel (a CT angiogram is a CT, not an X-ray angiogram)",
           "computed tomography angiogram|computed tomography angiographic|computed tomographic angiography|"
           "computerized tomography angiography|CT pulmonary angiogram|CT pulmonary angiography|"
           "computed tomography pulmonary angiography|CT coronary angiography|coronary CT angiography|"
           "CT angiographic|CT aortogram|CT aortography|CT venography|CT venogram"),
    *_rows(CT, _MESH_CTA + ": CTPA, CT pulmonary angiography", "CTPA", case_sensitive=True),
    *_rows(MRI, _DICOM + ": MR", "MR|MRI|MRIs", case_sensitive=True),
    *_rows(MRI, _MESH_MRI, "magnetic resonance imaging|magnetic resonance|MR imaging|MR image|NMR imaging|MR tomography"),
    *_rows(MRI, "RadLex MR pulse sequences (T1-/T2-weighted, FLAIR, diffusion-weighted)",
           "T1-weighted|T2-weighted|T1WI|T2WI|fluid-attenuated inversion recovery|diffusion-weighted imaging"),
    *_rows(MRI, "RadLex MR pulse sequences: FLAIR, DWI", "FLAIR|DWI", case_sensitive=True),
    *_rows(MRI, "RadLex MR pulse sequences: STIR, ADC; T1W, T2W", "STIR|ADC|T1W|T2W", case_sensitive=True),
    *_rows(MRI, "MeSH D041781 Cholangiopancreatography, Magnetic Resonance (tree: under D008279): MRCP", "MRCP",
           case_sensitive=True),
    *_rows(MRI, "RadLex MR observations: signal intensity", "hyperintense|hypointense|hyperintensity|hypointensity|"
           "isointense|signal intensity"),
    *_rows(MRI, _MESH_MRA, "MR angiography|magnetic resonance angiography"),
    *_rows(MRI, _MESH_MRA + ": MRA", "MRA", case_sensitive=True),
    *_rows(ULTRASOUND, _DICOM + ": US", "US", case_sensitive=True),
    *_rows(ULTRASOUND, _MESH_US, "ultrasound|ultrasonography|ultrasonographic|sonography|sonographic|sonogram|"
                                 "echography|ultrasound image|ultrasonic imaging"),
    *_rows(ULTRASOUND, _MESH_ECHO, "echocardiography|echocardiogram|echocardiographic|transthoracic echocardiography|"
                                   "transesophageal echocardiography"),
    *_rows(ULTRASOUND, _MESH_ECHO + ": TTE, TEE", "TTE|TEE", case_sensitive=True),
    *_rows(ULTRASOUND, _MESH_US + ": USG, ultrasonogram", "USG", case_sensitive=True),
    *_rows(ULTRASOUND, _MESH_US, "ultrasonogram|ultrasonograph"),
    *_rows(ULTRASOUND, "MeSH D019160 Endosonography: EUS", "EUS", case_sensitive=True),
    *_rows(ULTRASOUND, "RadLex ultrasound observations: echogenicity", "anechoic|hypoechoic|hyperechoic|isoechoic|"
           "echogenic|echogenicity|hypoechogenic|hyperechogenic|sonoanatomy"),
    *_rows(ULTRASOUND, _MESH_DOPPLER, "Doppler|Doppler ultrasound|Doppler ultrasonography"),
    *_rows(PLAIN_XRAY, _DICOM + ": CR, DX (computed / digital radiography); " + _MESH_XRAY,
           "X-ray|X-rays|xray|radiograph|radiography|radiographic|roentgenogram|roentgenography|plain film|"
           "plain radiograph|plain X-ray|chest radiograph|chest X-ray|X-ray radiography|roentgenograph|"
           "roentgenographic|radiogram|fluorography"),
    *_rows(PLAIN_XRAY, _MESH_XRAY + ": a radiograph named by its projection (the view's longer name must not hide "
           "the modality it states)", "AP radiograph|AP X-ray|PA radiograph|PA X-ray|lateral radiograph|"
           "lateral X-ray|AP view|PA view|lateral view|AP projection|PA projection|lateral projection|oblique view|"
           "anteroposterior view|posteroanterior view|anteroposterior projection|posteroanterior projection|"
           "anteroposterior radiograph|anteroposterior X-ray|posteroanterior radiograph|"
           "posteroanterior X-ray|lateral view radiograph|oblique radiograph|oblique X-ray"),
    *_rows(PLAIN_XRAY, _MESH_XRAY + ": CXR, chest X-ray; KUB, kidneys-ureters-bladder radiograph", "CXR|KUB",
           case_sensitive=True),
    *_rows(PLAIN_XRAY, "RadLex Playbook procedure names: XR (radiography)", "XR", case_sensitive=True),
    *_rows(PLAIN_XRAY, _MESH_MAMMO, "mammography|mammogram|mammographic"),
    *_rows(PLAIN_XRAY, "MeSH D005471 Fluoroscopy (tree: under D011859 Radiography); DICOM RF",
           "fluoroscopy|fluoroscopic|esophagogram|barium swallow|barium enema|urethrogram|cystogram"),
    *_rows(PLAIN_XRAY, "MeSH D014572 Urography, D009192 Myelography, D006993 Hysterosalpingography (tree: under "
           "D011859 Radiography)", "urography|urogram|pyelogram|pyelography|cystourethrography|cystourethrogram|"
           "myelography|myelogram|hysterosalpingography|hysterosalpingogram"),
    *_rows(PLAIN_XRAY, "MeSH D011859 Radiography, Panoramic (tree: under Radiography, Dental)",
           "panoramic radiograph|orthopantomogram|orthopantomography"),
    *_rows(PLAIN_XRAY, "MeSH Radiography, Panoramic: OPG", "OPG", case_sensitive=True),
    *_rows(CRANIUM, _UBERON + "UBERON:0003129 skull: OPG, a panoramic radiograph of the jaws", "OPG",
           case_sensitive=True, requires=PLAIN_XRAY),
    *_rows(ANGIOGRAM, _DICOM + ": XA (X-ray angiography); " + _MESH_ANGIO,
           "angiogram|angiography|angiographic|arteriogram|arteriography|coronary angiography|coronary angiogram|"
           "catheter angiography|cerebral angiography|aortography|aortogram"),
    *_rows(ANGIOGRAM, _MESH_PHLEBO, "venogram|venography|phlebography"),
    *_rows(ANGIOGRAM, "MeSH D011169 Portography (tree: under D000792 Angiography)", "portography|portogram"),
    *_rows(ANGIOGRAM, _MESH_DSA, "digital subtraction angiography"),
    *_rows(ANGIOGRAM, _MESH_DSA + ": DSA", "DSA", case_sensitive=True),
    *_rows(PET, _DICOM + ": PT; " + _MESH_PET, "PET", case_sensitive=True),
    *_rows(PET, _MESH_PET, "positron emission tomography|PET scan|PET imaging|FDG-PET|PET-CT"),
    *_rows(CT, "MeSH D054894 Cone-Beam Computed Tomography (tree: under D014057): CBCT", "CBCT", case_sensitive=True),
    *_rows(CT, "MeSH D054894 Cone-Beam Computed Tomography (tree: under D014057)", "cone-beam computed tomography"),
    *_rows(MRI, "RadLex MR techniques: fat suppression (fat saturation), proton density",
           "fat-suppressed|fat suppression|fat-saturated|fat saturation|fat-sat|proton density|proton density-weighted"),
    *_rows(MRI, "RadLex MR pulse sequences: spin echo, steady-state free precession, T1/T2 images",
           "fast spin echo|turbo spin echo|steady-state free precession|T2 image|T1 image|T2 sequence|T1 sequence|"
           "T2-WI|T1-WI|T2-weighted image|proton density fat fraction"),
    *_rows(MRI, "RadLex MR pulse sequences: FSE, TSE, SSFP, PDFF", "FSE|TSE|SSFP|PDFF", case_sensitive=True),
    *_rows(MRI, "MeSH D005682 Gadolinium (pharmacological action: contrast media of MR imaging)",
           "gadolinium|gadolinium-enhanced|gadolinium enhancement"),
    *_rows(ULTRASOUND, _MESH_ECHO + "; the standard transthoracic and transesophageal views (ASE guidelines, "
           "Mitchell et al. 2019, J Am Soc Echocardiogr 32:1; Hahn et al. 2013, 26:921)",
           "parasternal|apical four-chamber|apical 4-chamber|apical two-chamber|apical 2-chamber|"
           "apical three-chamber|apical 3-chamber|apical five-chamber|apical 5-chamber|subcostal view|"
           "suprasternal view|midesophageal|mid-esophageal"),
    *_rows(ULTRASOUND, "MeSH D054459 Elasticity Imaging Techniques; contrast-enhanced ultrasound; colour-flow "
           "Doppler and lung-ultrasound B-lines (RadLex ultrasound terms)",
           "elastography|shear wave elastography|contrast-enhanced ultrasound|color flow|colour flow|B-lines"),
    *_rows(ULTRASOUND, _MESH_US + ": CEUS, LUS (lung ultrasound), POCUS (point-of-care ultrasound)",
           "CEUS|LUS|POCUS", case_sensitive=True),
    *_rows(ULTRASOUND, "RadLex ultrasound modes and approaches: M-mode, B-mode, transvaginal, transrectal",
           "M-mode|B-mode|transvaginal ultrasound|transrectal ultrasound|transvaginal sonography"),
    *_rows(PLAIN_XRAY, "MeSH D002760 Cholangiography, D002761 Cholangiopancreatography, Endoscopic Retrograde, "
           "D012798 Sialography (tree: under D011859 Radiography)",
           "cholangiogram|cholangiography|cholangiographic|sialogram|sialography|ureteropyelography|"
           "esophagram|oesophagogram|fistulogram|fistulography"),
    *_rows(PLAIN_XRAY, "MeSH D002761 Cholangiopancreatography, Endoscopic Retrograde: ERCP", "ERCP",
           case_sensitive=True),
    *_rows(PLAIN_XRAY, "MeSH D015900 Radiography, Bitewing; D002508 Cephalometry (lateral cephalometric radiograph)"
           " (tree: under D003807 Radiography, Dental)", "bitewing|bitewing radiograph|cephalogram|"
           "cephalometric radiograph|periapical radiograph|dental radiograph|panoramic image|panoramic view"),
    *_rows(CT, _MESH_CT + ": the phrasing \"computer tomography\" (UMLS string of C0040405)",
           "computer tomography|computer tomographic|computer tomogram"),
    *_rows(PLAIN_XRAY, "MeSH D002508 Cephalometry (measurement on lateral or PA head radiographs; tree: under "
           "D011859 Radiography)", "cephalometric|cephalometry|orthopantomograph"),
    *_rows(PLAIN_XRAY, "MeSH D005471 Fluoroscopy: contrast studies of the gastrointestinal tract (MeSH D001466 "
           "Barium Sulfate, pharmacological action: contrast media; RadLex fluoroscopy procedures)",
           "barium meal|barium study|barium follow-through|contrast meal|contrast swallow|swallow study|"
           "gastrografin swallow|upper gastrointestinal series|upper GI series|gastrointestinal series|"
           "upper gastrointestinal study|small bowel follow-through|contrast enema|videofluoroscopy|"
           "videofluoroscopic"),
    *_rows(ULTRASOUND, "RadLex ultrasound equipment: transducer (probe) and its frequency in MHz",
           "MHz|transducer|ultrasound probe|linear probe|convex probe|curvilinear probe|linear transducer|"
           "high-frequency probe|phased array probe"),
    *_rows(ULTRASOUND, _MESH_ECHO + ": \"echo\", its short form, and the ultrasound echo descriptors (RadLex)",
           "echo|2D echo|2D-echo|two-dimensional echo|echo-free|echo-dense|echo-bright|echo-lucent|echo pattern|"
           "echo texture|echo contrast"),
    *_rows(MRI, "RadLex MR pulse sequences: spin echo, gradient echo, echo time, echo-planar imaging (the MR "
           "sequences that say \"echo\")", "spin echo|gradient echo|field echo|dual echo|echo time|echo-planar|"
           "echo planar imaging"),
    *_rows(PLAIN_XRAY, "MeSH D014966 X-Ray Film (a radiograph on film; tree: under D011859 Radiography)",
           "film|films|X-ray film"),
    *_rows(MRI, "RadLex MR pulse sequences: T2 (a T2 image or signal; \"T1\" alone is also a vertebra, so T1 counts "
           "only with a plane, a signal word or a sequence word)", "T2", case_sensitive=True),
    *_rows(MRI, "RadLex MR pulse sequences: T1 with a plane, a signal word or a sequence word",
           "axial T1|sagittal T1|coronal T1|T1 signal|T1 hyperintense|T1 hypointense|T1 hyperintensity|"
           "T1 hypointensity|T1 fat-suppressed|T1 fat-saturated|T1 fat sat|T1 post-contrast|T1 FLAIR|T1 scan|"
           "T2 scan|T1-weighed|T2-weighed|T1 MRI|T1 contrast"),
    # X-ray body regions (with a plain radiograph only).
    *_rows(CHEST, _UBERON + "UBERON:0001443 chest: thorax, lung, rib, pleura, heart, mediastinum",
           "chest|thorax|thoracic|lung|rib cage|rib|chest X-ray|chest radiograph|chest film|hemithorax|heart|cardiac|"
           "mediastinum|mediastinal|pleura|pleural|pulmonary|pneumothorax",
           requires=PLAIN_XRAY),
    *_rows(CHEST, _UBERON + "UBERON:0001443 chest: CXR", "CXR", case_sensitive=True, requires=PLAIN_XRAY),
    *_rows(CRANIUM, _UBERON + "UBERON:0003129 skull: cranium, mandible, maxilla, teeth, sinuses, orbit, temporal bone",
           "skull|cranium|cranial|mandible|mandibular|maxilla|maxillary|tooth|teeth|dental|jaw|panoramic radiograph|"
           "orthopantomogram|paranasal sinus|periapical|intraoral|intra-oral|pantomographic|orthopantomography|panoramic|"
           "bitewing|cephalogram|orbit|temporal bone|mastoid|molar|premolar|incisor|periodontal|dental implant",
           requires=PLAIN_XRAY),
    *_rows(ABDOMEN, _UBERON + "UBERON:0000916 abdomen: intestine, colon, kidney, biliary tree",
           "abdomen|abdominal|KUB|bowel|colon|kidney|renal|biliary|bile duct", requires=PLAIN_XRAY),
    *_rows(PELVIS, _UBERON + "UBERON:0002355 pelvis: hip, sacroiliac joint", "pelvis|pelvic|hip|hip joint|"
           "sacroiliac joint|acetabulum|sacrum", requires=PLAIN_XRAY),
    *_rows(LOWER_EXTREMITY, _UBERON + "UBERON:0002103 hindlimb: thigh, knee, leg, ankle, foot; FMA:7184 lower limb: hip",
           "lower extremity|lower limb|leg|thigh|knee|ankle|foot|feet|toe|femur|femoral|tibia|tibial|fibula|patella|"
           "calcaneus|hip|hip joint", requires=PLAIN_XRAY),
    *_rows(UPPER_EXTREMITY, _UBERON + "UBERON:0002102 forelimb: shoulder, arm, elbow, forearm, wrist, hand",
           "upper extremity|upper limb|arm|shoulder|elbow|forearm|wrist|hand|finger|thumb|humerus|humeral|radius|ulna|"
           "clavicle|scaphoid|metacarpal", requires=PLAIN_XRAY),
    *_rows(VERTEBRAL_COLUMN, _UBERON + "UBERON:0001130 vertebral column: spine, vertebrae",
           "spine|spinal column|vertebral column|vertebra|vertebrae|lumbar spine|cervical spine|thoracic spine|"
           "lumbosacral spine|scoliosis|thoracic vertebra|lumbar vertebra|cervical vertebra|L-spine|C-spine|"
           "intervertebral", requires=PLAIN_XRAY),
    *_rows(BREAST, _UBERON + "UBERON:0000310 breast; MeSH D008327 Mammography",
           "breast|mammography|mammogram|mammographic", requires=PLAIN_XRAY),
    *_rows(CRANIUM, _UBERON + "UBERON:0003129 skull: a cephalometric (head) radiograph, the teeth's occlusal surfaces",
           "cephalometric|cephalometry|orthopantomograph|occlusal", requires=PLAIN_XRAY),
    *_rows(LOWER_EXTREMITY, _UBERON + "UBERON:0002103 hindlimb: foot bones (metatarsals, tarsals, talus, malleoli), "
           "the tibiofemoral joint; a dorsoplantar projection is of the foot", "metatarsal|tarsal|talus|malleolus|"
           "malleolar|tibiofemoral|hallux|dorsoplantar|calcaneal|tibial plateau", requires=PLAIN_XRAY),
    *_rows(VERTEBRAL_COLUMN, _UBERON + "UBERON:0001130 vertebral column: its curvatures, pedicles, endplates and "
           "the Cobb angle measured on it", "kyphosis|kyphotic|lordosis|lordotic|spondylolisthesis|pedicle|endplate|"
           "Cobb angle|lumbar|intervertebral disc", requires=PLAIN_XRAY),
    *_rows(CHEST, _UBERON + "UBERON:0001443 chest: esophagus (thoracic part), trachea, bronchi",
           "esophagus|oesophagus|esophageal|oesophageal|esophagogram|oesophagogram|barium swallow|trachea|"
           "tracheal|bronchus|bronchial", requires=PLAIN_XRAY),
    *_rows(ABDOMEN, _UBERON + "UBERON:0000916 abdomen: stomach, duodenum, small intestine, pancreas, liver, "
           "gallbladder, ureter; a cholangiogram or ERCP images the biliary tree", "stomach|gastric|duodenum|duodenal|"
           "jejunum|ileum|small intestine|small bowel|pancreas|pancreatic|liver|gallbladder|ureter|ureteral|ureteric|"
           "cholangiogram|cholangiography|cholangiopancreatography", requires=PLAIN_XRAY),
    *_rows(ABDOMEN, _UBERON + "UBERON:0000916 abdomen: ERCP", "ERCP", case_sensitive=True, requires=PLAIN_XRAY),
    *_rows(AP_VIEW, _RADLEX + "anteroposterior projection: a portable (bedside) or supine radiograph is taken AP "
           "(Clark's Positioning in Radiography: \"AP supine\", mobile radiography)", "portable|supine|bedside",
           requires=PLAIN_XRAY),
    # X-ray views (with a plain radiograph only).
    *_rows(AP_VIEW, _RADLEX + "anteroposterior projection", "anteroposterior|antero-posterior|anterior-posterior|"
           "AP view|AP radiograph|AP projection|AP X-ray", requires=PLAIN_XRAY),
    *_rows(AP_VIEW, _RADLEX + "AP", "AP", case_sensitive=True, requires=PLAIN_XRAY),
    *_rows(PA_VIEW, _RADLEX + "posteroanterior projection", "posteroanterior|postero-anterior|posterior-anterior|"
           "PA view|PA radiograph|PA projection|PA X-ray|PA chest", requires=PLAIN_XRAY),
    *_rows(PA_VIEW, _RADLEX + "PA", "PA", case_sensitive=True, requires=PLAIN_XRAY),
    *_rows(SAGITTAL, _RADLEX + "lateral projection (imaged in the sagittal plane)", "sagittal|lateral view|"
           "lateral radiograph|lateral projection|lateral X-ray", requires=PLAIN_XRAY),
    *_rows(TRANSVERSE, _RADLEX + "axial projection (transverse plane)", "axial view|axial projection|transverse",
           requires=PLAIN_XRAY),
])
