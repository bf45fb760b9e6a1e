"""The built-in imaging vocabulary of concept extraction: abbreviations and common phrasings of imaging modality,
X-ray body region and X-ray view, each mapped to the ROCOv2 CUI of that tag and citing where the expansion is
standard.

These are facts, not rules fitted to labels: an abbreviation's expansion (the DICOM modality codes, MeSH entry
terms of the modality's descriptor), a child term of the modality in the MeSH tree (Echocardiography is a kind of
Ultrasonography), a part of a body region in UBERON's ``part_of`` (the knee is part of the hindlimb), a projection's
plane in RadLex. The rows are data, ``rules/imaging_vocabulary.tsv``, read by :func:`read_vocabulary`; each row:

- ``term``: the text as a caption writes it (matched like any name: case, plurals, hyphens aside), unless
  ``case_sensitive``: then exactly as written ("US" is ultrasound, "us" is not);
- ``concept``: the ROCOv2 CUI (``../shared/data/README.md``: modality, X-ray body region, view);
- ``requires``: a concept that must be said for this row to count, or "" (ROCOv2's manual curation tags body region
  and view on plain radiographs only, Rückert et al. 2024, Sci Data 11:688; "AP" or "axial" in a CT caption is no
  X-ray view); a required modality must be the one the row's words describe: the modality named nearest to them in
  their sentence, else the last one named before it (:mod:`evalcore.extraction.extractor`); a row that requires its
  own concept is that modality's general adjective ("radiographic"): it counts unless another modality describes its
  words;
- ``source``: where the expansion is standard.

A row whose concept is not among the names a dictionary is built from is left out: the vocabulary never adds an ID.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from evalcore.extraction.rule_files import RULES_FOLDER, Column, read_rule_file, refuse_repeat

CT = "C0040405"          # X-Ray Computed Tomography
PLAIN_XRAY = "C1306645"  # Plain x-ray
MRI = "C0024485"         # Magnetic Resonance Imaging
ULTRASOUND = "C0041618"  # Ultrasonography
ANGIOGRAM = "C0002978"   # angiogram
PET = "C0032743"         # Positron-Emission Tomography
PET_CT = "C1699633"      # PET/CT scan
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


#: The imaging modalities the vocabulary names, one tag per image in ROCOv2's curation (Rückert et al. 2024): what
#: an X-ray region or view describes is decided by the modality named nearest to it.
MODALITIES = frozenset({CT, PLAIN_XRAY, MRI, ULTRASOUND, ANGIOGRAM, PET, PET_CT})

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
                                    "frog", "prone", "standing", "judet", "lauenstein", "dunn",
                                    # veterinary radiography's projections, named from the animal's body surfaces
                                    # (Thrall, Textbook of Veterinary Diagnostic Radiology, 7th ed.: ventrodorsal
                                    # and dorsoventral, not AP or PA; issue 69)
                                    "ventrodorsal", "dorsoventral", "ventro", "dorso"})
#: The X-ray body regions ROCOv2's curation tags (every region of ``valid_concepts_manual.csv``).
REGION_TAGS = frozenset({CHEST, CRANIUM, ABDOMEN, PELVIS, LOWER_EXTREMITY, UPPER_EXTREMITY, VERTEBRAL_COLUMN, BREAST})
#: Words of a fluoroscopic study (MeSH D005471 Fluoroscopy; Clark's Positioning in Radiography: fluoroscopy and
#: theatre imaging with an image intensifier is taken in the projections the procedure needs): a caption
#: that names one gets no standard view even where it also says "X-ray" ("Intraoperative X-ray fluoroscopy";
#: issue 69).
FLUOROSCOPY_WORDS = frozenset({"fluoroscopy", "fluoroscopic", "fluoroscopically", "fluoroscopies"})
#: Projections named in more than one word, read so too (Lequesne's "false profile" view of the hip; "profile" alone
#: is no projection: "the stent in profile").
OTHER_PROJECTION_PHRASES = ("false profile",)


class VocabularyRow(NamedTuple):
    term: str
    concept: str
    case_sensitive: bool
    requires: str
    source: str


#: The vocabulary's rows, shipped with the package: columns term, concept, case_sensitive (yes or no), requires, source.
VOCABULARY_FILE = RULES_FOLDER / "imaging_vocabulary.tsv"
VOCABULARY_COLUMNS = (Column("term"), Column("concept"), Column("case_sensitive", allowed=("yes", "no")),
                      Column("requires", required=False), Column("source"))


def read_vocabulary(path: str | Path = VOCABULARY_FILE) -> tuple[VocabularyRow, ...]:
    """The rows of an imaging vocabulary file, each (term, concept, requires) once
    (:func:`~evalcore.extraction.rule_files.read_rule_file` names the file, line and column of a bad row).

    >>> rows = read_vocabulary()
    >>> next(row for row in rows if row.term == "CT")[:4]
    ('CT', 'C0040405', True, '')
    """
    rows: dict[tuple[str, str, str], VocabularyRow] = {}
    for row in read_rule_file(path, VOCABULARY_COLUMNS):
        key = (row["term"], row["concept"], row["requires"])
        if key in rows:
            raise refuse_repeat(path, row, VOCABULARY_COLUMNS, "term", "a term for this concept and requirement")
        rows[key] = VocabularyRow(row["term"], row["concept"], row["case_sensitive"] == "yes", row["requires"],
                                  row["source"])
    return tuple(rows.values())


IMAGING_VOCABULARY = read_vocabulary()
