"""Sense from the phrase: a name matches its concept only where the phrase around it means that concept.

One rule over phrase structure (head noun, its modifier, its of-phrase), with word classes read from
``rules/sense_words.tsv`` (each row citing Terminologia Anatomica, SNOMED CT or a ROCOv2 curation convention):

- A **part noun** ("lobe", "neck", "head", ...) names a part of a whole, and its phrase names the whole: the noun of
  its of-phrase ("neck *of the femur*", "lobe *of the liver*"; determiners and position words skipped; a person's
  noun names none: "the abdomen/pelvis *of a patient*") or a structure word right before it ("*femoral* neck",
  "*thyroid* lobe"); a lesion's noun right before a bare part noun, itself after a determiner or an adjective, names
  the lesion's part, no organ's ("the *aneurysm* neck", "an occluded *pseudoaneurysm* neck"; "Lipoma neck." is
  a lipoma of the neck). A mention ending in a part noun keeps its concept only where the concept's own names say that
  whole (or the phrase names none): "left lobe of the liver" is no lobe of the lung, "femoral neck" is not the neck.
  A structure word may be a compound of combining forms ("*frontoparietal* lobe", "*bitemporal* lobes"). Where the
  phrase names no whole ("the right lobe"), the whole is one its sentence names among the organs that have that
  part (``rules/part_wholes.tsv``: "Thyroid ultrasound ... nodule in the right lobe" is no lobe of the lung; a chest
  names the lungs), the one named nearest before it where the sentence names several ("CT of the neck and thorax
  ... thyroid gland enlargement ... extension of the right lobe"), else one the rest of the caption names ("Neck
  length ratio. ... the femoral neck"); a caption that names none leaves the mention as matched. A pouch's neck (an
  aneurysm's, a hernia's, a diverticulum's or a sac's: ``pouch``) is one named before it or heading the compound it
  begins ("a hernia with a wide neck", "a wide-neck abdominal wall hernia"), never sided nor what a thing lies in:
  "a diverticulum in the left neck", "emphysema of the neck and a hiatal hernia" are the body's. A name whose own
  position words the mention says ("right *lower* lobe") keeps its organ where any organ with the part is named.
  A mention that names its whole itself ("intestinal wall of the colon") and a part of a part ("posterior segment
  of the upper lobe") are left as matched.
- A **procedure noun** ("aspiration", "biopsy", ...) right after a procedure modifier ("needle", "percutaneous", ...)
  is the procedure: it keeps only a concept whose names say that modifier ("needle aspiration" is no Pulmonary
  aspiration).
- A **direction word** ("cranial", "caudal", ...) alone names a structure only where it modifies a part noun or an
  image of that structure ("cranial base", "cranial CT"); elsewhere it gives a direction: "cranial lung lobe",
  "cranial angulation", "cranial wedge osteotomy", "cranial is to the left" are no Cranium (a concept that is the
  direction itself, "Caudal", is kept).
- A structure after an **approach** prefix ("trans-thoracic", "trans-rectal") names the route of a probe or needle,
  not the structure imaged.
- Position words ("left", "upper", ...) and determiners specify nothing of their own.
- Function words, participles and nouns of the image (``not-head``) head no phrase: a denied structure before one
  modifies nothing (:func:`evalcore.extraction.extractor.mentions`).
- The words of a plain radiograph's names (``plain-radiograph``) tell a plain radiograph from a contrast or
  fluoroscopic study, for which no region's standard view is assumed; such a word that modifies a noun of the
  radiation or the machine (``radiation``: "6 MV *X-ray* beams" of a radiotherapy plan), or is its of-phrase ("the
  projection angle of *X-ray*"), names the radiation, not an examination.
- An organ's word right before a noun of a vessel, nerve, duct or access (``vessel``) names that vessel ("inferior
  *thyroid* artery", "from the *femoral* access"), not the organ.
- A noun that is also the verb of a course (``verb``: "drain"), before a preposition of direction and after no
  determiner, is the verb ("the vein *drains* into the SMV" is no drain).
- The noun of a thing named after another (``named-after``: a vaccine, a tumour's bed) takes the mention before it:
  "*COVID-19* vaccination" is no COVID-19, "the *tumour* bed" no tumour; an organ's word keeps its organ ("the
  *hepatic* bed").

- A word a hyphen joins to a word of resemblance (``shape``: "tongue-*like*", "heart-*shaped*") names what a thing
  looks like, not what the image shows: "a tongue-like projection of the right lobe" is no tongue (a lesion's noun
  names a lesion still: "cyst-like lesions", "a nodule-like consolidation").

- A device's word before a noun of the act that places it (``placing``: "insertion", "placement") is the device
  placed: after a word that puts the image before the act ("prior to *stent* placement", "before *stent*
  insertion") it is not there yet, and a denial of the act denies it ("did not allow *implant* insertion":
  :func:`evalcore.extraction.extractor.mentions`), but not after a word of an earlier event ("no complications
  after *stent* placement": the stent is there).

- A body's word that names a device's part (``device-part``) right after a device's noun ("the implant shoulder",
  "the miniscrew's neck"), or whose of-phrase, or that of the noun it modifies, names a device ("the neck piece of
  the modular stem"), is the device's part; a part noun joined to a part only a long bone has (``bone-part``:
  "neck-shaft angle"), or a pair of part nouns a hyphen joins before a noun of a bone's feature (``bone-feature``:
  "the head-neck junction", "a head-neck fragment"), is the bone's part: neither is a body region.

- A vertebra's level in radiology's notation (a region's letter and a number: "C5", "Th4", "L4", "S1") names
  the level only beside the word "level" or in a caption with a word of the spine (``spine``: "vertebra",
  "disc", "lumbar"): "a T4 oesophageal cancer" is a tumour's stage, "segment S1" of a liver CT is no sacral level.

A mention's words are joined to its modifier only by spaces or a hyphen, as the words of one name are.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType

from evalcore.extraction.lexicon import ADJECTIVE_ENDINGS, normal_token
from evalcore.extraction.morphology import SIDES
from evalcore.extraction.rule_files import RULES_FOLDER, Column, read_rule_file, refuse_repeat

#: The sense words shipped with the package.
SENSE_WORDS_FILE = RULES_FOLDER / "sense_words.tsv"
#: The organs that have each part, and the words that name them, shipped with the package.
PART_WHOLES_FILE = RULES_FOLDER / "part_wholes.tsv"
#: The prepositions of direction after which a noun of the ``verb`` class is the verb ("drains into").
DIRECTION_PREPOSITIONS = frozenset({"into", "to", "toward", "towards"})
#: The roles a sense word may have (column 2 of the file).
ROLES = ("part", "procedure", "procedure-modifier", "position", "direction", "determiner", "structure",
         "keeps-qualifier", "approach", "not-head", "plain-radiograph", "figure", "proof", "partial", "complete",
         "other", "radiation", "vessel", "verb", "person", "named-after", "measure", "scan-region",
         "procedure-kind", "time-event", "finding-procedure", "device", "device-part", "placing", "lesion", "shape",
         "spine", "bone-part", "bone-feature", "pouch", "contrast-study", "contrast-form", "contrast-channel", "tissue")
SENSE_COLUMNS = (Column("words"), Column("role", allowed=ROLES), Column("source"))
PART_WHOLE_COLUMNS = (Column("part"), Column("whole"), Column("said_by"), Column("source"))
#: The field of :class:`SenseWords` each role fills.
_ROLE_FIELDS = tuple(role.replace("-", "_") for role in ROLES)
#: The roles matched as written, not as :meth:`SenseWords.keyed` reads words: whole names ("pathological
#: fracture") and the words of a figure, which the cue reader compares with a caption's lowered words.
_AS_WRITTEN = frozenset({"keeps_qualifier", "figure", "contrast_study", "contrast_form", "contrast_channel"})
#: The endings that make a contrast examination's name of its combining forms ("cystourethro-gram", "uro-graphy").
_EXAMINATION_ENDINGS = ("graphically", "graphies", "graphic", "graphy", "grams", "gram")
#: The words before "contrast" that make it no medium: "in contrast", "by contrast", or deny it: "non-contrast",
#: "without contrast" (a plain radiograph; "no contrast leak" still says a medium given).
_NOT_A_MEDIUM = frozenset({"in", "by", "non", "without"})
#: The prepositions of a radiograph made through a channel ("radiography through the nasobiliary tube").
_THROUGH = frozenset({"through", "via"})


@dataclass(frozen=True)
class SenseWords:
    """The word classes of the sense rule, each a set of lower-case words (``keeps_qualifier``: concept names, lower
    case, that keep a qualifier a caption must say, such as "pathological fracture")."""

    part: frozenset[str] = frozenset()
    procedure: frozenset[str] = frozenset()
    #: Nouns of a finding that also name the procedure making it ("dilatation"): the procedure after a procedure
    #: modifier ("balloon dilatation") or an earlier event with no adjective between ("after CTO dilatation"), the
    #: finding after one ("after aneurysmal dilatation", "post-stenotic dilatation": :func:`sense_kept`).
    finding_procedure: frozenset[str] = frozenset()
    procedure_modifier: frozenset[str] = frozenset()
    position: frozenset[str] = frozenset()
    direction: frozenset[str] = frozenset()
    approach: frozenset[str] = frozenset()
    determiner: frozenset[str] = frozenset()
    structure: frozenset[str] = frozenset()
    keeps_qualifier: frozenset[str] = frozenset()
    #: Words that head no noun phrase (function words, participles, nouns of the image): a denied structure before
    #: one is no modifier of what is denied (:func:`evalcore.extraction.extractor.mentions`).
    not_head: frozenset[str] = frozenset()
    #: The words of a plain radiograph's names ("X-ray", "radiograph", "CXR", "AP view"), not those of a contrast
    #: or fluoroscopic study: a region's standard view is assumed only where one is said
    #: (:func:`evalcore.extraction.extractor.mentions`).
    plain_radiograph: frozenset[str] = frozenset()
    #: Words that say a sentence describes the figure ("arrow", "image", "shows", "CT"; lower case, as written): a
    #: sentence that cites the literature is a literature statement only without one
    #: (:func:`evalcore.extraction.negation.cue_scopes`).
    figure: frozenset[str] = frozenset()
    #: Participles that say how a diagnosis was proven before ("biopsy-proven", "PET/CT proven"): the word before
    #: one names that earlier examination, not this image (:func:`sense_kept`).
    proof: frozenset[str] = frozenset()
    #: Nouns of the radiation or the machine ("beam", "tube", "dose", "angle"): a plain radiograph's word that
    #: modifies one, or is its of-phrase, names the radiation, not an examination ("6 MV X-ray beams" of a
    #: radiotherapy plan, "the projection angle of X-ray" a cardiac CT plans: :func:`sense_kept`).
    radiation: frozenset[str] = frozenset()
    #: Nouns of a vessel, nerve or duct ("artery", "vein", "nerve", "duct"): an organ's word right before one names
    #: the vessel, not the organ ("inferior *thyroid* artery" is no thyroid gland: :func:`sense_kept`).
    vessel: frozenset[str] = frozenset()
    #: Nouns that are also verbs of a course ("drain"): followed by a preposition of direction ("drains *into* the
    #: SMV") and after no determiner, the word is the verb (:func:`sense_kept`).
    verb: frozenset[str] = frozenset()
    #: Nouns of a person ("patient", "woman"): an of-phrase that names one names no whole of a part noun ("CT of the
    #: abdomen/pelvis *of a patient*": :func:`specifier`).
    person: frozenset[str] = frozenset()
    #: Nouns of a thing named after another: a vaccine after its disease, a tumour's bed after the tumour that was
    #: there; a mention before one, past one word at most, names that thing, not its own concept ("COVID-19 mRNA
    #: vaccine-associated myocarditis", "clips in the tumour bed": :func:`sense_kept`).
    named_after: frozenset[str] = frozenset()
    #: Nouns of a measure ("diameter", "dimension", "length", "axis"): a view word right before one gives the
    #: measurement's direction, not the image's view ("transverse dimension of the heart", "AP diameters":
    #: :func:`sense_kept`).
    measure: frozenset[str] = frozenset()
    #: Device words that name the kind of a procedure before its noun ("fine-needle aspiration", "core needle
    #: biopsy"): no device of the image (:func:`sense_kept`).
    procedure_kind: frozenset[str] = frozenset()
    #: Nouns of a device whose parts are named with the body's words ("implant", "screw", "stent"): a word of the
    #: ``device_part`` class right after one, or whose of-phrase names one, names the device's part, no body region
    #: (:func:`a_device_or_bone_part`).
    device: frozenset[str] = frozenset()
    #: The body's words a device's part is named by ("shoulder", "neck", "head"): after a ``device`` noun, the part
    #: ("the implant shoulder" of a dental radiograph, "the screw head": :func:`sense_kept`).
    device_part: frozenset[str] = frozenset()
    #: Nouns of the act that puts a device in place ("insertion", "placement"): the device's word before one is the
    #: thing placed, denied or dated with the act ("prior to *stent* placement", "did not allow *implant* insertion":
    #: :func:`evalcore.extraction.extractor.mentions`), where before a state ("no *stent* migration") it stays.
    placing: frozenset[str] = frozenset()
    #: Nouns of a lesion, removed whole where an organ is removed in part ("tumour", "cyst", "nodule"; a word ending
    #: in "-oma" is one too): only a lesion is denied by a removal noun of a part after it ("after myxoma resection",
    #: where "after bowel resection" leaves the bowel: :func:`evalcore.extraction.extractor.mentions`).
    lesion: frozenset[str] = frozenset()
    #: Words that make an adjective of resemblance of the word a hyphen joins them to ("tongue-like", "heart-shaped"):
    #: that word names what a finding looks like, not what the image shows ("a tongue-like projection of the right
    #: lobe" is no tongue: :func:`sense_kept`).
    shape: frozenset[str] = frozenset()
    #: Words of the spine ("vertebra", "disc", "lumbar"), none of another organ too ("cervical", "cord", "root"): a
    #: vertebra's level written as radiology writes it ("C5", "Th4", "L4") names that level only in a caption that
    #: has one, or beside "level" ("a T4 oesophageal cancer" is a stage: :func:`sense_kept`).
    spine: frozenset[str] = frozenset()
    #: Body regions a scan is named by ("chest", "abdomen", "pelvis"): three or more listed in an examination's
    #: name are the extent of the scan, not what one image shows (:func:`scan_range`).
    scan_region: frozenset[str] = frozenset()
    #: Parts only a long bone has ("shaft", "diaphysis", "metaphysis"): a bare part noun joined to one names that
    #: bone's part, no body region ("neck-shaft angle" is no neck: :func:`a_device_or_bone_part`).
    bone_part: frozenset[str] = frozenset()
    #: Nouns of a feature where two parts of a long bone meet, or of what breaks off with both ("junction", "offset",
    #: "fragment"): a pair of part nouns a hyphen joins before one names the bone's parts, no body region ("the
    #: head-neck junction", "a head-neck fragment": :func:`a_device_or_bone_part`).
    bone_feature: frozenset[str] = frozenset()
    #: The wholes of ``rules/part_wholes.tsv`` that are pouches opening through a neck ("aneurysm", "hernia"): a bare
    #: neck in a sentence naming one is its neck, but a sided one or one a thing lies in is the body's
    #: (:func:`a_place_in_the_body`).
    pouch: frozenset[str] = frozenset()
    #: Contrast media and the contrast examinations named by abbreviation or phrase ("barium", "contrast", "ERCP",
    #: "upper GI"; lower case, as written): a caption that names one shows a contrast study, for which no region's
    #: standard view is assumed (:func:`names_a_contrast_study`).
    contrast_study: frozenset[str] = frozenset()
    #: Combining forms of what a contrast examination fills ("cysto", "urethro", "fistulo"; as written): a word of
    #: one or more of them and -gram or -graphy names a contrast study (:func:`names_a_contrast_study`).
    contrast_form: frozenset[str] = frozenset()
    #: Nouns of an indwelling channel contrast is injected through ("tube", "drain", "catheter"; as written): a
    #: radiograph made through one, or named by one right before it, is a contrast study
    #: (:func:`names_a_contrast_study`).
    contrast_channel: frozenset[str] = frozenset()
    #: Part nouns of the tissue most organs have ("parenchyma"): read as the part of the organ its sentence, else its
    #: caption, names, and of none where none is named (a bare "lobe" with no organ named is the lung's; a bare
    #: "parenchyma" is no organ's: :func:`sense_kept`).
    tissue: frozenset[str] = frozenset()
    #: Words of degree that make a removal or disappearance partial ("almost", "nearly"), before the cue or before
    #: a word of the ``complete`` class before it ("almost *complete* disappearance of"): no negation, as a trace is
    #: left (:func:`evalcore.extraction.negation.cue_scopes`).
    partial: frozenset[str] = frozenset()
    complete: frozenset[str] = frozenset()
    #: Words that presuppose an instance the caption shows ("other", "additional"): a denied thing they come before
    #: is there ("an abscess or *other* fluid collection is not seen": :func:`evalcore.extraction.extractor.mentions`).
    other: frozenset[str] = frozenset()
    #: Nouns of an event a caption dates things by ("birth"): after a word of time ("after", "at", "since") or
    #: "given", the event is when, not what the image shows ("on the 3rd day after birth": :func:`sense_kept`).
    time_event: frozenset[str] = frozenset()
    #: An organ's adjective -> the organ, as a specifier is compared with a concept's names ("pulmonary" is "lung").
    organ_of: Mapping[str, str] = field(default_factory=dict)
    #: A part noun -> each word that names an organ having that part -> the organ ("lobe" -> "hepatic" -> "liver").
    wholes: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @cached_property
    def longest_structure(self) -> int:
        """The length of the longest structure word: no combining form's stem is longer (:func:`structure_word`)."""
        return max(map(len, self.structure), default=0)

    @cached_property
    def whole_words(self) -> frozenset[str]:
        """Every word that names an organ having a part: what a caption's organ words are indexed by
        (:func:`words_at`)."""
        return frozenset(word for said_by in self.wholes.values() for word in said_by)

    def keyed(self, key: Callable[[str], str], organ_of: Mapping[str, str] = MappingProxyType({})) -> SenseWords:
        """The same classes with every word read by ``key`` (the extractor's :func:`normal_token`), so that they
        meet a caption's words as the names do ("lobes" is "lobe", "femoral" is "femur"), with ``organ_of`` (the
        lexicon's organ adjectives) read so too; the classes matched as written (:data:`_AS_WRITTEN`) are kept."""
        return SenseWords(**{field: getattr(self, field) if field in _AS_WRITTEN else
                             frozenset(key(word) for word in getattr(self, field)) for field in _ROLE_FIELDS},
                          organ_of=MappingProxyType({key(a): key(b) for a, b in organ_of.items()}),
                          wholes=MappingProxyType({key(part): MappingProxyType({key(word): key(whole)
                                                                                 for word, whole in said.items()})
                                                   for part, said in self.wholes.items()}))


def read_part_wholes(path: str | Path = PART_WHOLES_FILE) -> Mapping[str, Mapping[str, str]]:
    """Part noun -> word -> the organ it names, of a part-wholes file (columns part, whole, said_by: the words,
    space-separated, that name the whole; source); a word names one whole of a part.

    >>> read_part_wholes()["lobe"]["hepatic"]
    'liver'
    """
    wholes: dict[str, dict[str, str]] = {}
    for row in read_rule_file(path, PART_WHOLE_COLUMNS):
        said = wholes.setdefault(row["part"].lower(), {})
        for word in row["said_by"].lower().split():
            if word in said:
                raise refuse_repeat(path, row, PART_WHOLE_COLUMNS, "said_by", f"a word naming a whole of "
                                    f"{row['part']!r}")
            said[word] = row["whole"].lower()
    return MappingProxyType({part: MappingProxyType(said) for part, said in wholes.items()})


def read_sense_words(path: str | Path = SENSE_WORDS_FILE, wholes: str | Path = PART_WHOLES_FILE) -> SenseWords:
    """The word classes of a sense-words file (columns words, role, source; a word once per role), with the organs
    that have each part from the part-wholes file ``wholes`` (:func:`read_part_wholes`).

    >>> words = read_sense_words()
    >>> "lobe" in words.part, "left" in words.position, "pathological fracture" in words.keeps_qualifier
    (True, True, True)
    """
    classes: dict[str, set[str]] = {role: set() for role in ROLES}
    for row in read_rule_file(path, SENSE_COLUMNS):
        words = " ".join(row["words"].lower().split())
        if words in classes[row["role"]]:
            raise refuse_repeat(path, row, SENSE_COLUMNS, "words", f"a {row['role']} word")
        classes[row["role"]].add(words)
    return SenseWords(**{role.replace("-", "_"): frozenset(found) for role, found in classes.items()},
                      wholes=read_part_wholes(wholes))


SENSE_WORDS = read_sense_words()


def specifier(keys: Sequence[str], joined: Callable[[int], bool], first: int, last: int,
              words: SenseWords) -> str | None:
    """What the phrase around the mention of tokens ``first``..``last`` says its head is part or kind of: for a
    part noun, the noun of an of-phrase after it, else a structure word right before it, or a lesion's noun right
    before a bare part noun where a determiner or an adjective stands before the lesion's ("the aneurysm neck"); for
    a procedure noun, a procedure modifier right before it; else None. ``keys`` are the caption's normalised words (as
    :meth:`SenseWords.keyed`), ``joined(k)`` whether words ``k - 1`` and ``k`` are joined by spaces or a hyphen.

    >>> words = SENSE_WORDS
    >>> keys = "the left lobe of the liver".split()
    >>> specifier(keys, lambda k: True, 2, 2, words)
    'liver'
    >>> specifier("a femoral neck fracture".split(), lambda k: True, 2, 2, words)
    'femoral'
    >>> specifier("fine needle aspiration".split(), lambda k: True, 2, 2, words), specifier(["neck"], bool, 0, 0, words)
    ('needle', None)
    """
    head = keys[last]
    if head in words.part:
        if any(key not in words.position for key in keys[first:last]):
            return None  # the mention names its whole itself ("intestinal wall", "frontal lobe")
        following = last + 1
        if following < len(keys) and keys[following] == "of" and joined(following):
            k = following + 1
            while k < len(keys) and joined(k) and (keys[k] in words.determiner or keys[k] in words.position):
                k += 1
            # A part of a part ("segment of the upper lobe") names no whole organ of its own; an "of" that ends
            # the phrase, or names the patient ("the pancreatic limb of a cat"), names none, and the word before may.
            if k < len(keys) and joined(k) and not _names_a_person(keys, joined, k, words):
                return keys[k] if keys[k] not in words.part else None
        before = first - 1
        if before >= 0 and joined(first) and (structure_word(keys[before], words) or (
                first == last and names_a_lesion(keys[before], words) and before > 0 and joined(before)
                and (keys[before - 1] in words.determiner or keys[before - 1].endswith(_READ_MODIFIER_ENDINGS)))):
            # "femoral neck"; "the aneurysm neck", "an occluded pseudoaneurysm neck": a lesion's part, no organ's
            # (where a determiner or an adjective makes the lesion a modifier: "Lipoma neck." names both)
            return keys[before]
        return None
    if head in words.procedure or head in words.finding_procedure:
        before = first - 1
        return keys[before] if before >= 0 and joined(first) and keys[before] in words.procedure_modifier else None
    return None


def names_a_tumour(word: str) -> bool:
    """Whether a lower-case ``word`` (a caption's word, or its key as :meth:`SenseWords.keyed` reads it) names a
    tumour by its suffix "-oma" (plurals "-omas", "-omata"; SPECIALIST Lexicon), in a word of seven letters or
    more: a melanoma, carcinomas, an adenoma; a stoma, stroma or soma is none.

    >>> [names_a_tumour(word) for word in ("melanoma", "carcinomas", "carcinomata", "stroma", "liver")]
    [True, True, True, False, False]
    """
    return len(word) >= 7 and word.endswith(("oma", "omas", "omata"))


def names_a_lesion(key: str, words: SenseWords) -> bool:
    """Whether the caption's word read as ``key`` names a lesion: a noun of the ``lesion`` class, or a tumour by its
    suffix (:func:`names_a_tumour`: a melanoma, a hemangioma; a stoma or a stroma is none).

    >>> [names_a_lesion(key, SENSE_WORDS) for key in ("cyst", "hemangioma", "stroma", "liver")]
    [True, True, False, False]
    """
    return key in words.lesion or names_a_tumour(key)


def names_a_contrast_study(words_written: Sequence[str], words: SenseWords) -> bool:
    """Whether a caption whose words, lower case as written, are ``words_written`` names a contrast study: a
    contrast medium or a contrast examination's abbreviation or phrase (the ``contrast_study`` class; "contrast"
    not after "in", "by", "non" or "without"), or a word made of one or more of the ``contrast_form`` combining
    forms and -gram or -graphy ("cystourethrogram", "hysterosalpingography", "fistulogram"; "radiogram",
    "tomography" and "echocardiogram" are none), or a radiograph made through a ``contrast_channel`` noun
    ("radiography through the nasobiliary tube", within three words each side of "through" or "via") or named by
    one right before its plain-radiograph word ("drainage tube radiography"). Such a study is taken in the
    projections it needs: no region's standard view is assumed for it (Clark's Positioning in Radiography; issue 69).

    >>> [names_a_contrast_study(text.lower().split(), SENSE_WORDS) for text in (
    ...     "barium enema radiograph", "Upper GI series", "retrograde urethrogram", "voiding cystourethrography",
    ...     "In contrast the abdominal radiograph", "abdominal radiogram", "CT tomography", "echocardiogram",
    ...     "radiography through the nasobiliary tube", "drainage tube radiography", "radiograph showing the tube")]
    [True, True, True, True, False, False, False, False, True, True, False]
    """
    radiograph = [normal_token(word) in words.plain_radiograph for word in words_written]
    longest = max((len(phrase.split()) for phrase in words.contrast_study), default=0)
    for k, word in enumerate(words_written):
        for size in range(1, longest + 1):
            if " ".join(words_written[k:k + size]) in words.contrast_study and not (
                    word == "contrast" and k > 0 and words_written[k - 1] in _NOT_A_MEDIUM):
                return True
        if _of_combining_forms(word, words.contrast_form):
            return True
        if word in words.contrast_channel and k + 1 < len(words_written) and radiograph[k + 1]:
            return True  # "drainage tube radiography"
        if word in _THROUGH and any(radiograph[max(0, k - 3):k]) and not words.contrast_channel.isdisjoint(
                words_written[k + 1:k + 4]):
            return True  # "radiography through the nasobiliary tube"
    return False


def _of_combining_forms(word: str, forms: Collection[str]) -> bool:
    """Whether ``word`` is one or more of the combining ``forms`` and an examination's ending (-gram, -graphy)."""
    ending = next((ending for ending in _EXAMINATION_ENDINGS if word.endswith(ending)), None)
    if ending is None or not forms:
        return False
    stem = word[:-len(ending)]
    composed = [True] + [False] * len(stem)  # composed[i]: stem[:i] is a sequence of forms
    for i in range(len(stem)):
        if composed[i]:
            for form in forms:
                if stem.startswith(form, i):
                    composed[i + len(form)] = True
    return len(stem) > 0 and composed[len(stem)]


def names_a_level(name_words: Collection[str]) -> bool:
    """Whether a concept whose names hold ``name_words`` (read as a caption's words are) is a vertebra's level ("C5
    level", "Level of the first sacral vertebra"): what radiology's notation of a level ("C5", "L5-S1") may name.

    >>> [names_a_level(words) for words in ({"c5", "level"}, {"bone", "structure", "of", "cervical", "vertebra"})]
    [True, False]
    """
    return _LEVEL in name_words


def _names_a_person(keys: Sequence[str], joined: Callable[[int], bool], k: int, words: SenseWords) -> bool:
    """Whether the noun phrase from token ``k`` (up to five words, to the next function word) ends in a person's
    noun: "the pelvis of *the case 1 patient*", "the neck of *a 17-year-old patient*" name no whole of the pelvis or
    the neck."""
    for j in range(k, min(k + 5, len(keys))):
        if j > k and (not joined(j) or keys[j] in words.not_head):
            return False
        if keys[j] in words.person:
            return True
    return False


def words_at(keys: Sequence[str], wanted: Collection[str]) -> dict[str, list[int]]:
    """Each of ``wanted`` that ``keys`` hold -> the indexes where, in order: what :func:`sense_kept` looks up a
    sentence's organ words in (built once per caption, where a scan of the sentence per mention grew with its
    square)."""
    found: dict[str, list[int]] = {}
    for k, key in enumerate(keys):
        if key in wanted:
            found.setdefault(key, []).append(k)
    return found


#: Words that may stand between an examination's name and the regions it lists ("CT *of the* chest, ...").
_SCAN_LINKS = frozenset({"of", "the", "scan", "scans", "study"})
#: The most such words between them.
_SCAN_LINK_WORDS = 3
#: The fewest regions a list needs to name a scan's extent: "CT of the abdomen and pelvis" still shows both.
SCAN_RANGE_REGIONS = 3


def scan_range(keys: Sequence[str], gap: Callable[[int], str], examinations: Sequence[tuple[int, int]],
               words: SenseWords) -> frozenset[int]:
    """The tokens of the regions that an examination's name lists, :data:`SCAN_RANGE_REGIONS` or more, joined by
    commas, slashes or "and": the extent of the scan, not what one image shows ("CT of the chest, abdomen, and
    pelvis showing bilateral pleural effusions"; ROCOv2's curators tag the pelvis of that wording in 3 of 17 valid
    captions). ``gap(k)`` is the text between tokens ``k - 1`` and ``k``; ``examinations`` the (first, last) tokens
    of the caption's modality mentions; the list touches one, past at most three words of :data:`_SCAN_LINKS`
    ("CT chest, abdomen and pelvis", "Chest, abdomen, and pelvis CT").

    >>> keys = "ct of the chest abdomen and pelvis showing effusion".split()
    >>> gaps = {5: ", ", 4: ", "}
    >>> sorted(scan_range(keys, lambda k: gaps.get(k, " "), [(0, 0)], SENSE_WORDS))
    [3, 4, 6]
    >>> sorted(scan_range("ct of the abdomen and pelvis".split(), lambda k: " ", [(0, 0)], SENSE_WORDS))
    []
    """
    if not examinations or words.scan_region.isdisjoint(keys):
        return frozenset()  # (most captions: no list of regions to read, nor an examination for it to touch)
    covered = {k for first, last in examinations for k in range(first, last + 1)}
    ends, starts = {last for _, last in examinations}, {first for first, _ in examinations}
    ranges: set[int] = set()
    k = 0
    while k < len(keys):
        if keys[k] not in words.scan_region:
            k += 1
            continue
        regions, j = [k], k + 1
        while j < len(keys):  # the next region after a comma, a slash, "and" or "&", and an article
            step = j
            if keys[step] in ("and", "&"):
                step += 1
            elif not any(mark in gap(step) for mark in ",/&"):
                break
            if step < len(keys) and keys[step] == "the":
                step += 1
            if step >= len(keys) or keys[step] not in words.scan_region:
                break
            regions.append(step)
            j = step + 1
        begin = regions[0]
        if len(regions) >= SCAN_RANGE_REGIONS and (
                begin in covered or regions[-1] + 1 in starts
                or any(begin - 1 - links in ends and all(key in _SCAN_LINKS for key in keys[begin - links:begin])
                       for links in range(_SCAN_LINK_WORDS + 1))):
            ranges.update(regions)
        k = j
    return frozenset(ranges)


def _said_outside(indexes: Sequence[int], first: int, last: int, begin: int, end: int) -> bool:
    """Whether one of the sorted ``indexes`` lies in ``begin``..``end - 1`` but not in ``first``..``last``."""
    inside = bisect_left(indexes, end) - bisect_left(indexes, begin)
    mention = bisect_left(indexes, min(last + 1, end)) - bisect_left(indexes, max(first, begin))
    return inside - max(mention, 0) > 0


#: Figure words that point at a thing in the image rather than name the image ("the neck (arrow)").
_POINTING = frozenset({"arrow", "arrows", "arrowhead", "arrowheads", "asterisk", "asterisks", "star"})


def _examined_region(keys: Sequence[str], first: int, last: int, words: SenseWords) -> bool:
    """Whether the part noun at ``first``..``last`` is a scan region an examination is of: a word of the
    ``scan_region`` class after a figure word and "of" (determiners apart: "CT angiography of the *neck*"), before a
    figure word ("*neck* CT") or beside "and" and another scan region ("head and *neck*"): the region imaged, whatever
    organ with such a part the sentence names (issue 69). What points at a thing ("neck (arrow)") names no image.

    >>> [_examined_region(text.split(), k, k, SENSE_WORDS) for text, k in (
    ...     ("ct angiography of the neck showing a carotid aneurysm", 4), ("aneurysm neck clipping", 1),
    ...     ("neck ct", 0), ("scaphoid neck arrow", 1))]
    [True, False, True, False]
    """
    if keys[last] not in words.scan_region:
        return False
    k = first - 1
    while k >= 0 and keys[k] in words.determiner:
        k -= 1
    # (a bracketed plane between: "CT scan (coronal) of neck")
    if k >= 1 and keys[k] == "of" and any(keys[j] in words.figure and keys[j] not in _POINTING
                                          for j in range(max(0, k - 3), k)):
        return True
    return last + 1 < len(keys) and keys[last + 1] in words.figure and keys[last + 1] not in _POINTING


def _named_wholes(said_by: Mapping[str, str], found: Mapping[str, Sequence[int]], first: int, last: int,
                  begin: int, end: int) -> set[str]:
    """Every whole an organ word ``said_by`` names in ``begin``..``end - 1``, outside tokens ``first``..``last``."""
    return {whole for word, whole in said_by.items() if _said_outside(found.get(word, ()), first, last, begin, end)}


def _nearest_whole(said_by: Mapping[str, str], found: Mapping[str, Sequence[int]], first: int, last: int,
                   begin: int, end: int) -> set[str]:
    """The whole that the organ word nearest before tokens ``first``..``last`` names, among those ``said_by`` in
    ``begin``..``end - 1`` (each word's sorted indexes ``found``), else the nearest after them: where a sentence names
    two organs that have the part, the part is the last one's ("CT of the neck and thorax ... thyroid gland
    enlargement ... extension of the right lobe" is the thyroid's lobe); an empty set where none is named."""
    before, after = (-1, ""), (end, "")
    for word, whole in said_by.items():
        indexes = found.get(word, ())
        k = bisect_left(indexes, first) - 1
        if k >= 0 and indexes[k] >= begin and indexes[k] > before[0]:
            before = (indexes[k], whole)
        k = bisect_left(indexes, last + 1)
        if k < len(indexes) and indexes[k] < end and indexes[k] < after[0]:
            after = (indexes[k], whole)
    return {before[1]} if before[1] else {after[1]} if after[1] else set()


def structure_word(key: str, words: SenseWords) -> bool:
    """Whether ``key`` is a structure word, or a compound of them in combining forms: "bi" before one
    ("bitemporal"), or a structure adjective's stem joined by "o" to another ("fronto-parietal",
    "parieto-temporo-occipital"), as Terminologia Anatomica compounds them.

    >>> [structure_word(w, SENSE_WORDS) for w in ("frontal", "frontoparietal", "bitemporal", "parietotemporooccipital",
    ...                                          "photo", "bilateral")]
    [True, True, True, True, False, False]
    """
    # From the word's end to its start: whether the rest from each letter is such a compound (no recursion, and a
    # stem no longer than the longest structure word: a word of thousands of combining forms is read in one pass).
    longest = words.longest_structure
    compound = [False] * (len(key) + 1)
    for start in range(len(key) - 1, -1, -1):
        if len(key) - start <= longest + 2:
            rest = key[start:]
            if rest in words.structure or (rest.startswith("bi") and rest[2:] in words.structure):
                compound[start] = True
                continue
        compound[start] = any(key[k] == "o" and compound[k + 1] and key[start:k] + "al" in words.structure
                              for k in range(start + 3, min(len(key) - 3, start + longest)))
    return compound[0]


#: A vertebra's level as radiology writes it, read as a caption's key: a region's letter and a number ("c5", "th4",
#: "l4", "s1").
_VERTEBRAL_LEVEL = re.compile(r"(?:c|th?|l|s)\d{1,2}")
#: The word a level is written beside ("at the level of C5", "the C4 level", "levels L4-L5"), read as a caption's
#: words are.
_LEVEL = normal_token("level")
#: How many words from a level's notation "level" may stand ("at the level of T12/L1", "the L1/2 level").
_LEVEL_REACH = 3
#: The words before an event's noun that make it a date ("after birth", "at birth", "had given birth"), read as a
#: caption's words are (:func:`~evalcore.extraction.lexicon.normal_token`: "since" is "sinc").
_DATING = frozenset(normal_token(word) for word in ("after", "at", "since", "from", "before", "following", "given"))
#: The nouns after an event's noun that make it a date or a measure ("birth date", "birth weight"), read so too.
_DATED = frozenset(normal_token(word) for word in ("date", "dates", "weight", "year", "order"))
#: The words that put an event before the image ("post-biopsy", "after renal biopsy"), read so too.
EARLIER_EVENT = frozenset(normal_token(word) for word in ("post", "after", "following"))
#: The words that put an image before an act that places a device ("before stent insertion", "prior to stent
#: placement"): the device is not there yet.
_LATER = frozenset(normal_token(word) for word in ("before", "pre", "awaiting"))
#: How many modifiers may stand between such a word and a procedure noun ("after CT-guided percutaneous lung biopsy").
_EARLIER_REACH = 4
#: Adjective endings as caption words are read (:func:`~evalcore.extraction.lexicon.normal_token` drops a final
#: "e": "obstructive" is "obstructiv"), and "-ory" ("inflammatory").
_READ_ADJECTIVE_ENDINGS = (*ADJECTIVE_ENDINGS, "iv", "ory")
#: ... and of a participle ("occluded"): the words that make the noun after them a modifier's head.
_READ_MODIFIER_ENDINGS = (*_READ_ADJECTIVE_ENDINGS, "ed")


def _after_an_earlier_event(keys: Sequence[str], joined: Callable[[int], bool], first: int, words: SenseWords,
                            finding_too: bool = False) -> bool:
    """Whether a word of :data:`EARLIER_EVENT` opens the phrase of token ``first``, past at most :data:`_EARLIER_REACH`
    modifiers or articles joined by spaces or hyphens, none of the ``not_head`` class ("after CT-guided percutaneous
    lung biopsy", "after the biopsy"; "after which a biopsy" is no such phrase). "Post" before an adjective makes a
    compound adjective, no event ("post-stenotic dilatation" is a dilatation beyond a stenosis); a noun that names
    a finding too (``finding_too``) is the finding after any adjective ("after aneurysmal dilatation")."""
    k = first
    while k > 0 and first - k <= _EARLIER_REACH and joined(k):
        k -= 1
        if keys[k] in EARLIER_EVENT:
            return not (keys[k] == "post" and k + 1 < first and keys[k + 1].endswith(_READ_ADJECTIVE_ENDINGS))
        if keys[k] in words.not_head and keys[k] not in ("the", "a", "an"):
            return False
        if finding_too and keys[k].endswith(_READ_ADJECTIVE_ENDINGS):
            return False
    return False


def a_vertebras_level(keys: Sequence[str], k: int, words: SenseWords) -> bool:
    """Whether word ``k``, if it is written as a vertebra's level ("C5", "Th4", "L4", "S1"), is one: within
    :data:`_LEVEL_REACH` words of "level" ("at the level of C5", "the C4 level"), or in a caption with a word of the
    spine (``words.spine``: "vertebra", "disc", "lumbar", ...); a stage ("a T4 oesophageal cancer"), a segment of
    the liver ("segment S1"), a probe ("C5-1") or a panel's label is none. A word of another form is no level's to
    judge: True.

    >>> [a_vertebras_level(text.split(), 1, SENSE_WORDS) for text in
    ...  ("at c5 level", "a t4 cancer", "the l4 vertebra", "segment s1 of the liver", "the liver")]
    [True, False, True, False, True]
    """
    if not _VERTEBRAL_LEVEL.fullmatch(keys[k]):
        return True
    return _LEVEL in keys[max(0, k - _LEVEL_REACH):k + _LEVEL_REACH + 1] or not words.spine.isdisjoint(keys)


def sense_kept(keys: Sequence[str], joined: Callable[[int], bool], first: int, last: int,
               name_words: Collection[str], image_starts: Collection[int], words: SenseWords,
               sentence: tuple[int, int] | None = None,
               where: Mapping[str, Sequence[int]] | None = None, named: bool = True, view: bool = False,
               hyphened: Callable[[int], bool] | None = None) -> bool:
    """Whether the mention of tokens ``first``..``last`` keeps a concept whose names hold ``name_words``
    (normalised): its phrase's :func:`specifier` is absent or among them; a direction word alone names a structure
    only where it modifies a part noun or an image (``image_starts``: the first tokens of the mentions of a
    modality): "cranial base", "cranial CT", else it gives a direction ("cranial lung lobe", "cranial is to the
    left"), and keeps only a concept that is that direction. A bare part noun whose phrase names no whole keeps it
    only where its ``sentence`` (first token, token after the last), else the rest of the caption, names no organ
    having that part, or one the concept's names say. An organ's word right before a vessel, nerve or duct noun,
    or one word of its name before it, names the vessel ("inferior thyroid artery", "femoral circumflex artery"),
    where the concept is ``named`` by the word (not the imaging vocabulary's region, which a renal vein still lies
    in). A noun that is also a verb of a course, before a preposition of direction and after no determiner, is the
    verb ("drains into the SMV" is no drain). A mention before the noun of a thing named after it, past one word at
    most, names that thing ("COVID-19 vaccination", "tumour bed"), but an organ's word still names the organ ("the
    hepatic bed"). A word before a participle of proof ("biopsy-proven") names an earlier examination, and keeps
    nothing; so does a procedure noun in a phrase "post", "after" or "following" opens ("post-biopsy hematoma",
    "a haematoma after percutaneous renal biopsy"), and a device word that names a procedure's kind before it
    ("fine-needle aspiration"); a part noun of a device or a long bone names no body region
    (:func:`a_device_or_bone_part`: "the implant shoulder", "the neck piece of the stem", "the head-neck junction");
    an event's noun after a word of time, or before a date or a measure, dates the
    image ("six months after birth", "birth weight"); a device's word before a noun of placing it, after a word that
    puts the image before the act, is not there yet ("prior to stent placement"). A ``view`` (a projection or plane
    tag) is no view right before a noun of measure ("transverse dimension of the heart": a direction of
    measurement). A mention a hyphen (``hyphened(k)``: whether words ``k - 1`` and ``k`` are joined by one) joins
    to a word of resemblance names a shape ("tongue-like"), but a lesion's noun a lesion still ("cyst-like lesions").
    A level's notation ("C5") names a level only as :func:`a_vertebras_level` reads it. A radiograph's view whose
    of-phrase names a vessel is an angiogram's (:func:`_of_a_vessel`: "AP view of the right coronary artery").

    >>> keys = "the left lobe of the liver".split()
    >>> sense_kept(keys, lambda k: True, 2, 2, {"structure", "lobe", "of", "lung"}, (), SENSE_WORDS)
    False
    >>> sense_kept(keys, lambda k: True, 2, 5, {"lobe", "of", "liver"}, (), SENSE_WORDS)
    True
    >>> cranium, caudal = {"bone", "structure", "of", "cranium", "cranial"}, {"caudal"}
    >>> [sense_kept(f"{word} lung lobe".split(), lambda k: True, 0, 0, words, (), SENSE_WORDS)
    ...  for word, words in (("cranial", cranium), ("caudal", caudal))]
    [False, True]
    >>> [sense_kept(f"cranial {noun}".split(), lambda k: True, 0, 0, cranium, {1} if noun == "ct" else (), SENSE_WORDS)
    ...  for noun in ("base", "ct", "wedge")]
    [True, True, False]
    >>> [sense_kept(text.split(), lambda k: True, 1, 1, {"drain"}, (), SENSE_WORDS)
    ...  for text in ("veins drain into the SMV", "a drain into the abscess")]
    [False, True]
    >>> keys = "thyroid ultrasound : nodule in the right lobe".split()
    >>> sense_kept(keys, lambda k: True, 6, 7, {"lobe", "lung"}, (), SENSE_WORDS, (0, len(keys)))
    False
    """
    if first > 0 and keys[first - 1] in words.approach and joined(first):
        return False  # "trans-thoracic": a route, not the structure imaged
    next_word = keys[last + 1] if last + 1 < len(keys) and joined(last + 1) else ""  # the word the mention modifies
    # (the two words after it tested at once first: after nearly every mention, neither is such a noun)
    if not words.named_after.isdisjoint(keys[last + 1:last + 3]) and any(
            keys[k] in words.named_after and all(joined(j) for j in range(last + 1, k + 1))
            for k in (last + 1, last + 2) if k < len(keys)) \
            and not structure_word(keys[last], words) and first not in image_starts:
        return False  # "COVID-19 vaccination", "tumour bed": the vaccine, the bed, not the disease ("CT protocol" is CT)
    if next_word in words.shape and hyphened is not None and hyphened(last + 1) and not names_a_lesion(keys[last], words):
        return False  # "a tongue-like projection": what the thing looks like ("cyst-like lesions" are lesions still)
    if first == last and names_a_level(name_words) and not a_vertebras_level(keys, first, words):
        return False  # "a T4 oesophageal cancer", "segment S1" of a liver: a stage, a segment, no vertebra's level
    if next_word in words.proof:
        return False  # "biopsy-proven carcinoma": how the diagnosis was made before, not this image
    if a_device_or_bone_part(keys, joined, first, last, words, hyphened):
        return False  # "implant shoulder", "the neck piece of the stem", "neck-shaft angle": no body region
    if keys[last] in words.procedure_kind and next_word in words.procedure:
        return False  # "fine-needle aspiration": the kind of procedure, no needle named
    if first == last and keys[first] in words.time_event and (
            (first > 0 and keys[first - 1] in _DATING and joined(first)) or next_word in _DATED):
        return False  # "six months after birth", "Patient's Birth Date": a time, not the event in the image
    if first == last and (keys[first] in words.procedure or keys[first] in words.finding_procedure) \
            and _after_an_earlier_event(keys, joined, first, words, keys[first] in words.finding_procedure):
        return False  # "post-biopsy hematoma": the biopsy was done before the image
    if next_word in words.placing and first > 0 and joined(first) and (
            keys[first - 1] in _LATER or (first > 1 and keys[first - 2] == "prior" and keys[first - 1] == "to")):
        return False  # "prior to stent placement": the image is taken before the device is placed
    if view and next_word in words.measure:
        return False  # "transverse dimension of the heart": a direction of measurement, not the projection
    if keys[last] in words.plain_radiograph and (next_word in words.radiation or (
            first >= 2 and keys[first - 1] == "of" and keys[first - 2] in words.radiation)):
        return False  # "X-ray beams", "the angle of X-ray": the radiation, not a radiograph
    if keys[last] in words.plain_radiograph and _of_a_vessel(keys, joined, last, words):
        return False  # "AP view of the right coronary artery": a vessel's lumen shows on an angiogram, no plain film
    if named and first == last and keys[first] in words.structure and (next_word in words.vessel or (
            next_word and last + 2 < len(keys) and joined(last + 2) and keys[last + 2] in words.vessel)):
        return False  # "inferior thyroid artery", "medial femoral circumflex artery": the artery, not the organ
    if keys[last] in words.verb and next_word in DIRECTION_PREPOSITIONS \
            and not (first > 0 and keys[first - 1] in words.determiner):
        return False  # "the vein drains into the SMV": a vessel's course, not a drain
    if first == last and keys[first] in words.direction and not (
            last + 1 < len(keys) and joined(last + 1) and (keys[last + 1] in words.part or last + 1 in image_starts)):
        return set(name_words) <= words.direction  # the concept is that direction ("Caudal"), not a structure
    return _kept_by_its_whole(keys, joined, first, last, name_words, words, sentence, where)


#: How many words an of-phrase may run to the noun it is read for, a device's after a part noun ("the neck fracture
#: of *the cemented Exeter stem*", "the neck piece of *a bi-modular hip stem*") or a vessel's after a view ("AP view
#: of *the left anterior descending artery*"): a determiner and up to four modifiers, a hyphen's parts words of
#: their own.
_OF_PHRASE_WORDS = 5


def a_device_or_bone_part(keys: Sequence[str], joined: Callable[[int], bool], first: int, last: int,
                          words: SenseWords, hyphened: Callable[[int], bool] | None = None) -> bool:
    """Whether the mention of tokens ``first``..``last``, ending in a part noun, names the part of a device or of a
    long bone, no body region: a body's word right after a device's noun ("the implant shoulder", "the screw head",
    "the miniscrew's neck"), or whose of-phrase, or that of the noun it modifies, names a device within
    :data:`_OF_PHRASE_WORDS` words ("the neck piece of the modular stem", "the neck fracture of the cemented
    Exeter stem"); a bare part noun joined to a part only a long bone has ("neck-shaft angle"), or that a hyphen
    (``hyphened(k)``: whether words ``k - 1`` and ``k`` are joined by one) pairs with another part noun before a
    noun of a bone's feature ("the head-neck junction", "a head-neck fragment"; a "head-neck CT" is the body's).

    >>> def neck_of(text, hyphened=lambda k: True):
    ...     keys = text.split()
    ...     return a_device_or_bone_part(keys, lambda k: True, keys.index("neck"), keys.index("neck"), SENSE_WORDS,
    ...                                  hyphened)
    >>> [neck_of(text) for text in ("the stem neck", "a neck piece of the modular stem", "a neck fracture of the femur",
    ...                             "the neck shaft angle", "the head neck junction", "the head neck ct")]
    [True, True, False, True, True, False]
    >>> neck_of("the head neck junction", hyphened=lambda k: False)  # no hyphen: no compound of two parts
    False
    """
    bare = all(key in words.position for key in keys[first:last])
    if keys[last] in words.device_part and (
            (first > 0 and keys[first - 1] in words.device and joined(first)
             and (first == last or keys[first - 1].endswith(ADJECTIVE_ENDINGS)))
            or (bare and _of_a_device(keys, joined, last, words))):
        return True  # "implant shoulder", "screw head", "the neck piece of the stem": the device's part
    if keys[last] not in words.part or not bare:
        return False
    after = last + 1 < len(keys) and joined(last + 1)
    if (after and keys[last + 1] in words.bone_part) or (first > 0 and joined(first) and keys[first - 1] in words.bone_part):
        return True  # "the neck-shaft angle": a long bone's neck, whatever bone the caption names or not
    if hyphened is None or first != last:
        return False
    # the pair of part nouns a hyphen joins ("head-neck"), the mention its first or its second word, before a feature
    pair_end = last + 1 if after and hyphened(last + 1) and keys[last + 1] in words.part else (
        last if first > 0 and hyphened(first) and keys[first - 1] in words.part else None)
    return pair_end is not None and pair_end + 1 < len(keys) and joined(pair_end + 1) \
        and keys[pair_end + 1] in words.bone_feature


def _of_a_device(keys: Sequence[str], joined: Callable[[int], bool], last: int, words: SenseWords) -> bool:
    """Whether the of-phrase of the part noun at ``last``, or of the noun right after it ("the neck *piece* of"),
    names a device within :data:`_OF_PHRASE_WORDS` words, past determiners and modifiers ("of the cemented
    Exeter stem"), before any function word ("the neck of a patient *with* a stent" names none)."""
    k = last + 1
    if k < len(keys) and joined(k) and keys[k] != "of" and keys[k] not in words.not_head:
        k += 1  # the head of the compound the part noun modifies: "neck piece", "neck fracture"
    return _of_phrase_names(keys, joined, k, words.device, words)


def _of_a_vessel(keys: Sequence[str], joined: Callable[[int], bool], last: int, words: SenseWords) -> bool:
    """Whether the of-phrase of the noun at ``last`` ("view", "projection") names a vessel, nerve or duct within
    :data:`_OF_PHRASE_WORDS` words, past determiners and modifiers, before any function word: a radiograph shows
    a vessel's lumen only with a contrast medium, so the view of one is an angiogram's (MeSH D000792 Angiography:
    radiography of blood vessels after injection of a contrast medium).

    >>> [_of_a_vessel(text.split(), lambda k: True, 1, SENSE_WORDS)
    ...  for text in ("ap view of the right coronary artery", "ap view of the left hip", "ap view with the artery")]
    [True, False, False]
    """
    return _of_phrase_names(keys, joined, last + 1, words.vessel, words)


def _of_phrase_names(keys: Sequence[str], joined: Callable[[int], bool], k: int, named: Collection[str],
                     words: SenseWords) -> bool:
    """Whether word ``k`` is "of" and its phrase names a word of ``named`` within :data:`_OF_PHRASE_WORDS`
    words, past determiners and modifiers, before any punctuation or function word."""
    if k >= len(keys) or keys[k] != "of" or not joined(k):
        return False
    for j in range(k + 1, min(k + 1 + _OF_PHRASE_WORDS, len(keys))):
        if not joined(j) or (keys[j] in words.not_head and keys[j] not in words.determiner):
            return False
        if keys[j] in named:
            return True
    return False


#: The prepositions before a bare part noun that make it a place a thing lies in ("a diverticulum *in* the neck").
_BODY_PLACE_PREPOSITIONS = frozenset({"in", "into"})


def a_place_in_the_body(keys: Sequence[str], first: int, words: SenseWords) -> bool:
    """Whether the bare part noun at ``first`` is a place in the body by the words before it: a side ("the *left*
    neck") or "in" or "into", past determiners and sides ("a diverticulum *in the* neck"). A pouch's neck (an
    aneurysm's, a hernia's: ``words.pouch``) is neither sided nor what a thing lies in, where "the *right* lobe" of the
    liver and "a stone *in the* neck" of the gallbladder are an organ's parts.

    >>> [a_place_in_the_body(text.split(), 4, SENSE_WORDS) for text in (
    ...     "a diverticulum in the neck", "hernia on the left neck", "hernia with a wide neck")]
    [True, True, False]
    """
    k, sided = first - 1, False
    while k >= 0 and (keys[k] in words.determiner or keys[k] in SIDES):
        sided = sided or keys[k] in SIDES
        k -= 1
    return sided or (k >= 0 and keys[k] in _BODY_PLACE_PREPOSITIONS)


#: How many words after a neck the compound it modifies may run to its head ("a wide-neck *abdominal wall incisional
#: hernia*").
_COMPOUND_WORDS = 4


def _a_pouchs_neck(keys: Sequence[str], joined: Callable[[int], bool], first: int, last: int,
                   said_by: Mapping[str, str], words: SenseWords) -> bool:
    """Whether the bare part noun at ``first``..``last``, in a sentence naming a pouch, is the pouch's part: a word
    naming one (``said_by``: word -> whole) stands before it ("a hernia with a wide neck", "a sac with a narrow
    neck"; "the neck and a hiatal hernia" is the body's) or heads the compound the neck modifies, within
    :data:`_COMPOUND_WORDS` words of no punctuation or function word ("a wide-neck hernia", "a wide-neck abdominal
    wall incisional hernia"), and it is no place in the body (:func:`a_place_in_the_body`).

    >>> said_by = {"hernia": "hernia", "sac": "hernia"}
    >>> [_a_pouchs_neck(text.split(), lambda k: True, text.split().index("neck"), text.split().index("neck"), said_by,
    ...                 SENSE_WORDS) for text in ("a wide neck abdominal wall incisional hernia",
    ...                                           "a sac with a narrow neck", "the neck and a hiatal hernia")]
    [True, True, False]
    """
    if a_place_in_the_body(keys, first, words):
        return False
    for k in range(last + 1, min(last + 1 + _COMPOUND_WORDS, len(keys))):
        if not joined(k) or keys[k] in words.not_head:
            break
        if said_by.get(keys[k]) in words.pouch:
            return True
    return any(said_by.get(key) in words.pouch for key in keys[:first])


def _kept_by_its_whole(keys: Sequence[str], joined: Callable[[int], bool], first: int, last: int,
                       name_words: Collection[str], words: SenseWords, sentence: tuple[int, int] | None,
                       where: Mapping[str, Sequence[int]] | None) -> bool:
    """The last test of :func:`sense_kept`: the phrase's :func:`specifier` is absent or among ``name_words``; a bare
    part noun whose phrase names no whole is the part of the organ its sentence, else its caption, names."""
    said = specifier(keys, joined, first, last, words)
    if said is None and sentence is not None and keys[last] in words.wholes and all(
            key in words.position for key in keys[first:last]) and not _examined_region(keys, first, last, words):
        said_by = words.wholes[keys[last]]
        found = where if where is not None else words_at(keys, said_by)
        # a name whose own position words the mention says ("lower lobe") is kept where any such organ is named;
        # a bare part noun ("the right lobe") is the part of the organ named nearest, in its sentence, else in the
        # caption
        wholes = _named_wholes if any(key in name_words for key in keys[first:last]) else _nearest_whole
        named = wholes(said_by, found, first, last, *sentence) or wholes(said_by, found, first, last, 0, len(keys))
        if named and named <= words.pouch and not _a_pouchs_neck(keys, joined, first, last, said_by, words):
            return True  # "a diverticulum in the left neck", "the neck and a hiatal hernia": the body's neck
        return not named.isdisjoint(name_words) if named or keys[last] in words.tissue else True
    return said is None or said in name_words or words.organ_of.get(said) in name_words

