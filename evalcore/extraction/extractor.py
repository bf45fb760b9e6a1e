"""Concept sets from captions: dictionary matching of concept names, synonyms and imaging abbreviations.

A caption is cut into word tokens; each token is normalised (:func:`normal_token`: lower case, a possessive "'s"
and a plural ending dropped, spelling variants, entry terms and derivations of :mod:`evalcore.extraction.lexicon`
read as their word), so "X-ray", "x ray" and "X-rays" are one name, and "vessels" is "vessel". A name is a run of
normalised tokens joined only by spaces or hyphens; a name written with a hyphen also matches written as one word
("xray"); a determiner after "of" that the name does not hold is read past ("lobe of the liver" is "Lobe of
liver"), and a name "A of B" is also read "B A" (a term's permutation variant, Jacquemin 2001, *Spotting and
Discovering Terms through Natural Language Processing*: "Head of femur" is "femoral head"). The caption is read
left to right; at each token the LONGEST name starting there wins and the reading goes on after it (non-overlapping
mentions), so "pleural effusion" is one mention, not "pleural" and "effusion". The one exception: the imaging
vocabulary's X-ray region and view rows are read again inside a longer mention, so "left wrist" (Structure of left
wrist) still says the upper extremity of a radiograph.
Abbreviations that are also English words ("US", "PET", "MR") match only as written, in capitals.
Derived forms (:mod:`evalcore.extraction.morphology`) are read as one word each: an organ's adjective as the organ
after a side ("the left adrenal") or under a prefix of place ("intrabiliary"), only as the one concept of the
dictionary whose name yields it.

Sense: a mention keeps its concept only where its phrase means it (:mod:`evalcore.extraction.sense`: a part noun
takes the whole its phrase names, a procedure word after a procedure modifier is the procedure, a direction word
before a structure is no structure).

Negation: a mention that starts inside a negated scope of :func:`evalcore.extraction.negation.negated_spans` (the NegEx-style
rule the explanations use) is flagged and not extracted. A row of the imaging vocabulary with a ``requires``
concept (an X-ray body region or view) counts only where that modality is the one its words describe: the modality
named nearest to them in their sentence, else the last one named before (an X-ray region never comes from the CT of
the same caption); with the vocabulary on, so does any name of a view tag
(:data:`~evalcore.extraction.imaging_vocabulary.VIEW_TAGS`).
With the vocabulary on, two more conventions of ROCOv2's curation apply, each a fact with its source in
:mod:`evalcore.extraction.imaging_vocabulary`: an imaging procedure is extracted as its modality
(:data:`~evalcore.extraction.imaging_vocabulary.MODALITY_OF_PROCEDURE`: "echocardiography" is Ultrasonography), and a
radiograph of the abdomen or the pelvis that states no view gets the region's standard projection, AP
(:data:`~evalcore.extraction.imaging_vocabulary.STANDARD_VIEW`), a mention on the word that names the region.

Only IDs given in the names are ever emitted, and only CUIs (C + 7 digits) unless ``ontology_ids=True``.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import accumulate
from types import MappingProxyType
from typing import Literal

from evalcore.data import ConceptSets
from evalcore.errors import CBIRLensError, ParameterError
from evalcore.extraction.abbreviations import Definition, defined_abbreviations
from evalcore.extraction.imaging_vocabulary import (
    ANGIOGRAM,
    CHEST,
    FLUOROSCOPY_WORDS,
    IMAGING_VOCABULARY,
    MODALITIES,
    MODALITY_OF_PROCEDURE,
    OTHER_PROJECTION_PHRASES,
    OTHER_PROJECTION_WORDS,
    PLAIN_XRAY,
    REGION_TAGS,
    STANDARD_VIEW,
    VIEW_TAGS,
)
from evalcore.extraction.language import ENGLISH, caption_language
from evalcore.extraction.lexicon import LEXICON, normal_token
from evalcore.extraction.morphology import SIDES, derived_forms, organ_noun_variants
from evalcore.extraction.negation import (
    ADJECTIVE_ENDINGS,
    AFFIRMED_STATES,
    CUES,
    PASTED,
    QUALIFIERS,
    STATE_KEYS,
    Cue,
    cue_scopes,
    first_scopes,
    sentence_spans,
    with_cues,
)
from evalcore.extraction.rule_files import WORD, name_too_long
from evalcore.extraction.sense import (
    EARLIER_EVENT,
    SENSE_WORDS,
    SenseWords,
    a_vertebras_level,
    names_a_contrast_study,
    names_a_lesion,
    names_a_level,
    names_a_tumour,
    scan_range,
    sense_kept,
    structure_word,
    words_at,
)
from evalcore.extraction.user_rules import BUILT_IN_RULES, UserRules, combined_rules
from evalcore.processes import process_context, worker_count

#: What a mention matched: a concept's name, a synonym, the imaging vocabulary, or nothing the caption says: a
#: region's standard view ("assumed", :data:`~evalcore.extraction.imaging_vocabulary.STANDARD_VIEW`), a mention on the words
#: naming the region.
Source = Literal["name", "synonym", "abbreviation", "assumed", "defined"]
# a concept's key keeps the first; "defined": an abbreviation read as the caption defines it (never in a dictionary)
SOURCES: tuple[Source, ...] = ("name", "synonym", "abbreviation", "assumed", "defined")

_CUI = re.compile(r"C[0-9]{7}\Z")
_TOKEN = WORD
#: The hyphens a caption joins two words with ("tongue-like", "tongue‐like").
_HYPHENS = frozenset("-‐‑–")
# What may stand between two words of one name: spaces of any kind but a line break (captions copied from PDFs hold
# no-break and thin spaces), hyphens, and a slash ("PET/CT", "SPECT/CT").
_JOINING_GAP = re.compile(r"(?:[^\S\n\r\f\v\x1c-\x1e\x85\u2028\u2029]|[" + re.escape("".join(sorted(_HYPHENS))) + "/])*")
_END = ""  # the key of a trie node's payload: no normalised token is empty
#: Captions handled between two progress reports of :func:`extract_collection`.
PROGRESS_BLOCK = 2000


#: The sense rule's word classes read as caption words are (:func:`normal_token`).
SENSE_WORDS_KEYED = SENSE_WORDS.keyed(normal_token, LEXICON.organ_of)


# The words SNOMED CT adds to a body structure's or a finding's name to place it in its hierarchy, which a caption
# does not write: "Structure of ..."/"... structure" (the S node of its structure-entire-part triplets; "Entire ..."
# is a narrower concept and keeps its word), "... disorder", "... finding", "... behavior", "..., device" (a physical
# object: "Stent, device", "catheter device"; SNOMED CT's lower-case word, not MeSH's "Intrauterine Device", whose
# adjective alone names no device), "... region" after a side and one body part ("Structure of right
# knee region": a caption writes "right knee"), "Pathologic(al) ..." (a disorder told apart from a normal process or
# structure: "pathologic fistula", "Pathological Dilatation"), "... lobe of lung" (a caption writes "left lower
# lobe"), a parenthesised semantic tag, and UMLS's "NOS".
_HIERARCHY_WORDS = re.compile(r"^(?:bone )?structure of\s+|\s+(?:structure|disorder|finding|behaviou?r|NOS)$|"
                              r"(?:,\s*device|(?-i:\s+device))$|(?:(?<=lobe)|(?<=parenchyma)) of lung$|^pathologic(?:al)?\s+|"
                              r"\s*\([^()]*\)", re.IGNORECASE)
_SIDED_REGION = re.compile(r"^((?:left|right)\s+\w+(?<!ac)(?<!al)(?<!ar)(?<!ary)(?<!ic))\s+region$", re.IGNORECASE)
#: A name "<position words> <part noun> of <organ>" ("Structure of left lower lobe of lung", "Upper pole of kidney"),
#: SNOMED CT's "structure of" or "entire" before it: the positions, the part noun, the organ.
_PLACED_PART = re.compile(r"^(?:(?:bone\s+)?structure\s+of\s+|entire\s+)?((?:[a-z]+\s+)+?)([a-z]+)\s+of\s+([a-z]+)$",
                          re.IGNORECASE)


#: A name of a pair of organs, SNOMED CT's "Both kidneys" or "Bilateral lungs": "bilateral" is "of, relating to, or
#: affecting the right and left sides of the body or the right and left members of paired organs" (Merriam-Webster's
#: Medical Dictionary), so a caption writes either word for the pair ("bilateral kidneys", "both lungs").
_PAIR = re.compile(r"^(both|bilateral)\s+(?=\w)", re.IGNORECASE)
_OTHER_PAIR_WORD = MappingProxyType({"both": "bilateral", "bilateral": "both"})


#: Each organ -> its adjectives (Terminologia Anatomica's adjectival forms in the lexicon: liver -> hepatic).
_ORGAN_ADJECTIVES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    organ: tuple(sorted(adjective for adjective, whole in LEXICON.organ_of.items() if whole == organ))
    for organ in set(LEXICON.organ_of.values())})


def name_variants(name: str) -> tuple[str, ...]:
    """A concept name as written and as a caption would write it (UMLS lexical variant rules): uninverted ("A, B"
    read "B A", as MeSH headings are inverted) and without the hierarchy words of SNOMED CT: "structure of", "disorder", ...;
    a part of an organ also with its side on the organ or the organ before the part (:func:`placed_part_variants`);
    a position word before a side also after it; a pair of organs by "both" or "bilateral"; an inverted heading
    "Whole, part" also as "part of whole".

    >>> name_variants("Foramen Ovale, Patent")
    ('Foramen Ovale, Patent', 'Patent Foramen Ovale')
    >>> name_variants("Structure of left lower lobe of lung")[::3], name_variants("Pleural effusion disorder")
    (('Structure of left lower lobe of lung', 'left lower lobe'), ('Pleural effusion disorder', 'Pleural effusion'))
    >>> name_variants("Stent, device"), name_variants("pathologic fistula")
    (('Stent, device', 'Stent'), ('pathologic fistula', 'fistula'))
    >>> name_variants("Structure of anterior leaflet of mitral valve")[-2:]
    ('mitral valve anterior leaflet', 'anterior mitral valve leaflet')
    >>> name_variants("Left lobe of liver")[-2:]  # a part noun's organ also by its adjective (the lexicon's)
    ('Left liver lobe', 'Left hepatic lobe')
    >>> name_variants("Structure of right knee region")
    ('Structure of right knee region', 'right knee')
    >>> name_variants("Bone structure of cranium"), name_variants("Entire left atrium")
    (('Bone structure of cranium', 'cranium'), ('Entire left atrium',))
    >>> name_variants("Structure of superior right pulmonary vein")[1:]
    ('superior right pulmonary vein', 'right superior pulmonary vein')
    >>> name_variants("Lateral ventricle, occipital horn")[1:]
    ('occipital horn Lateral ventricle', 'occipital horn of Lateral ventricle')
    >>> name_variants("Both kidneys"), name_variants("Structure of both eyes")[1:]  # a pair by either word
    (('Both kidneys', 'bilateral kidneys'), ('both eyes', 'bilateral eyes'))
    """
    variants = [name]
    if " ".join(name.lower().split()) in SENSE_WORDS.keeps_qualifier:
        return (name,)
    bare = name
    while True:
        shorter = _HIERARCHY_WORDS.sub("", bare, count=1).strip()
        if shorter == bare or not shorter:
            break
        bare = shorter
    bare = _SIDED_REGION.sub(r"\1", bare)
    parts = bare.split(", ")
    of_phrase = ""
    if len(parts) == 2 and all(parts):
        bare = f"{parts[1]} {parts[0]}"
        if parts[1].split()[-1].lower() in SENSE_WORDS.part:  # a heading "Whole, part" names the part of the whole
            of_phrase = f"{parts[1]} of {parts[0]}"
    if bare != name and bare:
        variants.append(bare)
    if of_phrase:
        variants.append(of_phrase)
    position, side, rest = (bare.split(maxsplit=2) + ["", ""])[:3]
    if rest and position.lower() in _INSERTED_POSITIONS and side.lower() in _SIDES:
        # "superior right pulmonary vein" as said, the side first: the order the walk reads past the position in
        variants.append(f"{side} {position} {rest}")
    if pair := _PAIR.match(bare):
        variants.append(_OTHER_PAIR_WORD[pair.group(1).lower()] + " " + bare[pair.end():])
    whole, of, part = bare.rpartition(" of ")
    if of and whole and part and " of " not in whole.lower() and len((whole + " " + part).split()) <= 5:
        variants.append(f"{part} {whole}")
        position, _, rest = whole.partition(" ")
        if rest and position.lower() in SENSE_WORDS.position:  # "anterior mitral valve leaflet", "left liver lobe"
            variants.append(f"{position} {part} {rest}")
            # ... and with the organ's adjective, where a part noun is the organ's ("left hepatic lobe")
            if rest.lower() in SENSE_WORDS.part:
                variants.extend(f"{position} {adjective} {rest}" for adjective in _ORGAN_ADJECTIVES.get(part.lower(), ()))
    variants[1:1] = placed_part_variants(name)
    return tuple(variants)


def placed_part_variants(name: str) -> tuple[str, ...]:
    """The ways a caption writes a name "<side?> <positions> <part noun> of <organ>" with the side on the organ or
    the organ before the part noun: "Structure of left lower lobe of lung" is "lower lobe of the left lung" and "left
    lower lung lobe" (a side word is the organ's as well as the part's, and a part noun's organ stands before it as a
    modifier: the permutation and insertion variants of terms, Jacquemin 2001, *Spotting and Discovering Terms
    through Natural Language Processing*, ch. 5). Only where every word before the part noun is a position word
    (:attr:`~evalcore.extraction.sense.SenseWords.position`) and the part noun one of a whole
    (:attr:`~evalcore.extraction.sense.SenseWords.part`): no other words are moved. Each variant is read for its
    concept only where no other concept's name is written so (:meth:`ConceptDictionary.build`).

    >>> placed_part_variants("Structure of left lower lobe of lung")
    ('lower lobe of left lung', 'left lower lung lobe')
    >>> placed_part_variants("Structure of lower lobe of lung"), placed_part_variants("Right side of heart")
    (('lower lung lobe',), ())
    """
    placed = _PLACED_PART.match(" ".join(name.split()))
    if placed is None:
        return ()
    positions, part, whole = placed.group(1).split(), placed.group(2), placed.group(3)
    if part.lower() not in SENSE_WORDS.part or whole.lower() in SENSE_WORDS.position \
            or not all(word.lower() in SENSE_WORDS.position for word in positions):
        return ()
    side, *others = positions
    moved = (f"{' '.join([*others, part])} of {side} {whole}",) if side.lower() in _SIDES and others else ()
    return (*moved, f"{' '.join(positions)} {whole} {part}")


def _tokens(text: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]


# A word as a split pattern: splitting a caption by it alternates what stands between words with the words
_WORD_PIECES = re.compile(f"({_TOKEN.pattern})")


def _words_and_gaps(text: str) -> tuple[list[tuple[int, int, str]], list[str], list[str]]:
    """:func:`_tokens` of ``text``, the words alone, and the text between each word and the next: one split and a
    running sum of the pieces' lengths, cheaper than a match object a word, and the gaps come without slicing.

    >>> _words_and_gaps("X-ray, left")
    ([(0, 1, 'X'), (2, 5, 'ray'), (7, 11, 'left')], ['X', 'ray', 'left'], ['-', ', '])
    """
    pieces = _WORD_PIECES.split(text)
    ends = list(accumulate(map(len, pieces)))
    words = pieces[1::2]
    return list(zip(ends[0::2], ends[1::2], words)), words, pieces[2:-1:2]


def _name_keys(name: str) -> list[tuple[str, ...]]:
    """The token keys a name is matched by: its normalised words; where it is written with a hyphen, also those
    words run together ("X-ray" is also "xray"); where words begin with a bound prefix of place, also the key with
    each of them split after its prefix ("infratemporal" is also "infra-temporal"; a name of two such words is
    matched with both written whole or both split).

    >>> _name_keys("Structure of infratemporal fossa")[1]
    ('structur', 'of', 'infra', 'temporal', 'fossa')
    """
    words = _tokens(name)
    if not words:
        return []
    keys = [tuple(normal_token(w) for _, _, w in words)]
    split = tuple(part for _, _, w in words for part in _split_at_prefix(w))
    if len(split) > len(words):
        keys.append(split)
    if len(words) > 1 and all(_JOINING_GAP.fullmatch(name[a[1]:b[0]]) for a, b in zip(words, words[1:])) \
            and "-" in name:
        keys.append((normal_token("".join(w for _, _, w in words)),))
    return keys


def _split_at_prefix(word: str) -> tuple[str, ...]:
    """A word's keys, split after its bound prefix of place (the lexicon's ``prefix`` rows) where at least four
    letters of a word follow it: "retroperitoneal" -> ("retro", "peritoneal"); "subtle" stays whole."""
    lower = word.lower()
    for prefix in _PREFIXES_LONGEST_FIRST:
        rest = word[len(prefix):]
        if lower.startswith(prefix) and len(rest) >= 4 and rest.isalpha():
            return normal_token(prefix), normal_token(rest)
    return (normal_token(word),)


#: The lexicon's bound prefixes of place, the longest first ("intra" before "in" were there both).
_PREFIXES_LONGEST_FIRST = tuple(sorted(LEXICON.prefixes, key=len, reverse=True))


@dataclass(frozen=True)
class Mention:
    """One match in a caption: which concept, where (character offsets, ``text == caption[start:end]``), whether
    it lies in a negated scope, and what it matched (a concept's name, a synonym or the imaging vocabulary), or
    ``"assumed"``: a region's standard view, which the caption does not state."""

    concept: str
    start: int
    end: int
    text: str
    negated: bool
    source: Source


@dataclass(frozen=True)
class _Entry:
    concept: str
    source: Source
    requires: str = ""
    # A procedure recorded as its modality ("CT of abdomen" is CT): the other words of its name are read again.
    reread: bool = False
    # An organ's adjective read as its organ only after a side ("the left adrenal": evalcore.extraction.morphology).
    after_side: bool = False


@dataclass(frozen=True)
class ConceptDictionary:
    """Names, synonyms and abbreviations of concepts as a token trie (one lookup per word, whatever the number of
    concepts). Build it with :meth:`build`.

    >>> d = ConceptDictionary.build({"C0019080": "Hemorrhage", "C0032227": "Pleural effusion"})
    >>> len(d), sorted(d.concepts)
    (2, ['C0019080', 'C0032227'])
    """

    trie: Mapping = field(repr=False)
    exact: Mapping[str, tuple[_Entry, ...]] = field(repr=False)
    # The vocabulary's X-ray region and view rows alone, read again inside a longer mention (see mentions).
    inner: Mapping = field(repr=False)
    concepts: frozenset[str] = frozenset()
    # Concept -> the normalised words of all its names, synonyms and vocabulary terms: what the sense rule
    # (evalcore.extraction.sense) checks a phrase's specifier against.
    name_words: Mapping[str, frozenset[str]] = field(default_factory=dict, repr=False)
    sense: SenseWords = field(default=SENSE_WORDS_KEYED, repr=False)
    cues: tuple[Cue, ...] = field(default=CUES, repr=False)
    # With the imaging vocabulary's conventions: one modality per image, the first one a caption names
    # (_without_later_examinations).
    one_modality: bool = False
    # The phrases an exclusion of a rules file names that hold a name of its concept ("thrombolysis in myocardial
    # infarction"), as a token trie whose payload is that concept: its name inside such a phrase gives nothing.
    hidden: Mapping = field(default_factory=dict, repr=False)
    # The names' organ-noun variants ("brain atrophy" of "Cerebral atrophy"), a token trie read beside the names
    # (_organ_noun_trie, _organ_noun_names): each adds its concept, and the words keep their own.
    organ_nouns: Mapping = field(default_factory=dict, repr=False)
    # What build() was given (the kept names, their synonyms, the options, the user's rules): a dictionary is
    # pickled as this recipe and rebuilt where it lands (a worker process of extract_collection), as its tries are
    # read-only views that do not pickle. (A copy changed by dataclasses.replace keeps its builder's recipe, so it
    # would be rebuilt unchanged: change a dictionary by building another.)
    recipe: tuple = field(default=(), repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.concepts)

    def __reduce__(self) -> tuple[Callable[..., ConceptDictionary], tuple]:
        if not self.recipe:
            raise ParameterError("only a dictionary made by ConceptDictionary.build can be sent to a worker process")
        return ConceptDictionary.build, self.recipe

    @classmethod
    def build(cls, names: Mapping[str, str], synonyms: Mapping[str, Iterable[str]] | None = None,
              abbreviations: bool = True, ontology_ids: bool = False,
              rules: UserRules | None = None) -> ConceptDictionary:
        """A dictionary of ``names`` (ID -> name), ``synonyms`` (ID -> further names; those of IDs absent from
        ``names`` are ignored) and, with ``abbreviations``, the rows of
        :data:`~evalcore.extraction.imaging_vocabulary.IMAGING_VOCABULARY` whose concept is among ``names``. Only CUIs
        (C + 7 digits) are kept unless ``ontology_ids``. A user's ``rules``
        (:func:`~evalcore.extraction.user_rules.read_user_rules`) add synonyms, exclusions and negation cues; with
        ``abbreviations``, so do the package's own (:data:`~evalcore.extraction.user_rules.BUILT_IN_RULES`). A name,
        synonym or exclusion of more than :data:`~evalcore.extraction.rule_files.MAX_NAME_WORDS` words is left out (no
        caption writes it whole, and the matcher's steps a caption word stay bounded by that many; the readers of
        names and rules files refuse it, naming its line), and so is a blank name or synonym (it names nothing).

        >>> d = ConceptDictionary.build({"C0040405": "X-Ray Computed Tomography", "UBERON:0000955": "brain"})
        >>> sorted(d.concepts), sorted(ConceptDictionary.build({"UBERON:0000955": "brain"}, ontology_ids=True).concepts)
        (['C0040405'], ['UBERON:0000955'])
        """
        if rules is not None and not isinstance(rules, UserRules):
            raise ParameterError(f"rules must be read by read_user_rules (UserRules), got {type(rules).__name__}")
        users_rules = rules
        if abbreviations:
            rules = combined_rules(BUILT_IN_RULES, rules) if rules else BUILT_IN_RULES
        if synonyms is not None and not isinstance(synonyms, Mapping):
            raise ParameterError(f"synonyms must map concept IDs to lists of names, got {type(synonyms).__name__}")
        kept = _kept_names(names, ontology_ids)
        # With the imaging vocabulary, a view tag is a radiograph's view whatever names it (VIEW_TAGS).
        view_needs = PLAIN_XRAY if abbreviations and PLAIN_XRAY in kept else ""
        # ... and an imaging procedure is its modality (MODALITY_OF_PROCEDURE).
        recorded_as = {procedure: modality for procedure, (modality, _) in MODALITY_OF_PROCEDURE.items()
                       if abbreviations and modality in kept}

        def entry(concept: str, source: Source) -> _Entry:
            return _Entry(recorded_as.get(concept, concept), source, view_needs if concept in VIEW_TAGS else "",
                          concept in recorded_as)

        # A name as written is its concept's: another concept's variant of the same words is not read ("Face", not
        # the "face" of "Bone structure of face").
        readable = {concept: name for concept, name in kept.items() if name.strip() and not name_too_long(name)}
        written = {key: concept for concept, name in readable.items() for key in _name_keys(name)}
        rows: list[tuple[str, _Entry, bool]] = [
            (variant, entry(concept, "name"), False) for concept, name in readable.items()
            for variant in name_variants(name)
            if variant == name or all(written.get(key, concept) == concept for key in _name_keys(variant))]
        kept_synonyms = _kept_synonyms(synonyms, kept)
        rows.extend((variant, entry(concept, "synonym"), _acronym(variant)) for concept, more in kept_synonyms.items()
                    for synonym in more if synonym.strip() and synonym.strip().lower() not in LEXICON.non_specific
                    and not name_too_long(synonym) for variant in name_variants(synonym))
        # A concept whose name keeps its qualifier ("Pathological fracture") is read only where the qualifier is said,
        # whatever synonym names it ("Fracture" in MeSH's entry terms).
        qualified = {concept: name.split()[0].lower().removesuffix("al") for concept, name in kept.items()
                     if " ".join(name.lower().split()) in SENSE_WORDS.keeps_qualifier}
        if qualified:
            rows = [row for row in rows if row[1].concept not in qualified
                    or qualified[row[1].concept] in row[0].lower()]
        if rules:
            rows.extend((variant, entry(concept, "synonym"), _acronym(variant)) for concept, more in rules.synonyms.items()
                        if concept in kept for synonym in more if not name_too_long(synonym)
                        for variant in name_variants(synonym))
        if abbreviations:
            rows.extend((row.term, _Entry(row.concept, "abbreviation", row.requires if row.requires in kept else ""),
                         row.case_sensitive) for row in IMAGING_VOCABULARY if row.concept in kept)
            rows.extend((row.term, _Entry(STANDARD_VIEW[row.concept][0], "assumed", row.requires),
                         row.case_sensitive) for row in IMAGING_VOCABULARY
                        if row.concept in STANDARD_VIEW and row.concept in kept and row.requires in kept
                        and STANDARD_VIEW[row.concept][0] in kept)
        rows.extend((variant, entry(concept, "name"), False) for concept, variant in _entire_rows(readable, rows))
        inner: dict = {}
        exact: dict[str, dict[str, _Entry]] = {}
        name_words: dict[str, set[str]] = {}
        exclusions = [(words, concept) for words, concept in (rules.exclusions if rules else ()) if not name_too_long(words)]
        rows, hiding = _without_excluded(rows, exclusions)
        trie = _derived_trie(rows, exclusions)
        hidden: dict = {}
        for key, concept in hiding:
            _add(_node(hidden, key), _Entry(concept, "name"))
        taken: set[tuple[str, ...]] = set()  # (the keys the kept rows are read by: _read_keys, met on the way)
        for text, entry, case_sensitive in rows:
            name_words.setdefault(entry.concept, set()).update(normal_token(word) for _, _, word in _tokens(text))
            if case_sensitive:
                _add(exact.setdefault(text, {}), entry)
                continue
            keys = _name_keys(text)
            taken.update(keys)
            for key in keys + _comma_keys(text):
                _add(_node(trie, key), entry)
                if entry.source in ("abbreviation", "assumed") and entry.requires:
                    _add(_node(inner, key), entry)
        recipe = (kept, kept_synonyms, abbreviations, ontology_ids, users_rules)
        return cls(_frozen(trie), MappingProxyType({text: tuple(entries.values()) for text, entries in exact.items()}),
                   _frozen(inner), frozenset(kept),
                   MappingProxyType({concept: frozenset(words) for concept, words in name_words.items()}),
                   SENSE_WORDS_KEYED, with_cues(rules.cues) if rules else CUES, one_modality=abbreviations,
                   hidden=_frozen(hidden), organ_nouns=_organ_noun_trie(rows, exclusions, taken), recipe=recipe)


def _kept_synonyms(synonyms: Mapping[str, Iterable[str]] | None, kept: Mapping[str, str]) -> dict[str, tuple]:
    """The synonyms of the ``kept`` concepts, each list read once into a tuple (an iterator of names is read here, not
    again), checked to be a list of texts."""
    checked: dict[str, tuple] = {}
    for concept, more in (synonyms or {}).items():
        if concept not in kept:
            continue
        if isinstance(more, str) or not isinstance(more, Iterable):
            raise ParameterError(f"the synonyms of {concept!r} must be a list of names, "
                                 + ("not one string" if isinstance(more, str) else f"got {type(more).__name__}"))
        checked[concept] = more = tuple(more)
        for synonym in more:
            if not isinstance(synonym, str):
                raise ParameterError(f"a synonym of {concept!r} must be a text, got {synonym!r}")
    return checked


#: SNOMED CT's E node of a body structure ("Entire pulmonary vein"), the whole of the structure its words name.
_ENTIRE = re.compile(r"^entire\s+", re.IGNORECASE)


def _entire_rows(names: Mapping[str, str], rows: list[tuple[str, _Entry, bool]]) -> list[tuple[str, str]]:
    """(concept, variant) rows reading SNOMED CT's "Entire X" (the E node of its structure-entire-part triplets:
    the whole of structure X) by X alone, where no row of the dictionary is read by X's words: a caption's
    "pulmonary vein" names the structure, whose S node ("Pulmonary vein structure") the loaded names lack, and the E
    node is the concept they hold of it (SNOMED CT's SEP model, Schulz et al. 2000; Spackman 2004). Where another
    concept reads X ("Left atrial structure" is read by "left atrium", the lexicon's "atrial" as "atrium"; "Entire
    colon" beside "Colon structure"), the E node keeps its word, as :func:`name_variants` leaves it.

    >>> rows = [("Left atrial", _Entry("C1", "name"), False)]
    >>> names = {"C2": "Entire pulmonary vein", "C3": "Entire left atrium", "C4": "Entire distal phalanx (body structure)"}
    >>> _entire_rows(names, rows)
    [('C2', 'pulmonary vein'), ('C4', 'distal phalanx')]
    """
    taken = _read_keys(rows)
    found = []
    for concept, name in names.items():
        if not _ENTIRE.match(name):
            continue
        bare = name_variants(_ENTIRE.sub("", name))[-1]
        if bare and not any(key in taken for key in _name_keys(bare)):
            found.append((concept, bare))
    return found


#: An organ's adjective -> its noun: the lexicon's organ adjectives, and its derivations of an adjective from a noun
#: ("splenic" -> "spleen"), which the keys of names and captions already share ("splenic cyst" is "spleen cyst"),
#: but for the of-phrase ("cyst of the spleen"); not an adjective with a prefix of place ("perihepatic" is around).
_ADJECTIVE_NOUNS: Mapping[str, str] = MappingProxyType({
    **{adjective: noun for adjective, noun in LEXICON.reads_as.items()
       if adjective.endswith(ADJECTIVE_ENDINGS) and not adjective.startswith(tuple(LEXICON.prefixes))},
    **LEXICON.organ_of})


#: SNOMED CT's "due to disease" at the end of a disorder's name, which a caption does not write.
_DUE_TO_DISEASE = re.compile(r"\s+due to disease$", re.IGNORECASE)


def _read_keys(rows: list[tuple[str, _Entry, bool]]) -> set[tuple[str, ...]]:
    """The keys the rows that are not case-sensitive are read by (:func:`_name_keys`)."""
    return {key for text, _, case_sensitive in rows if not case_sensitive for key in _name_keys(text)}


def _organ_noun_trie(rows: list[tuple[str, _Entry, bool]], exclusions: list[tuple[str, str]],
                     taken: Collection[tuple[str, ...]]) -> Mapping:
    """A trie of the organ-noun variants of the names and synonyms among ``rows``
    (:func:`~evalcore.extraction.morphology.organ_noun_variants`, the lexicon's organ adjectives: "Cerebral atrophy"
    is "brain atrophy" and "atrophy of brain"), each read as its concept's name beside the mentions of its words
    (:func:`_organ_noun_names`), only where no key the rows are read by (``taken``: :func:`_read_keys`, which the
    dictionary's build gathers on its way) is the variant's, no other
    concept's name or synonym yields the same variant, and no exclusion takes it. A name that ends in SNOMED CT's
    "due to disease" (the disorder told apart from the procedure of the same words: "Dilation of esophagus due to
    disease") is read so too without it, beside its words as well: "a dilatation of the esophagus" is still a
    dilatation and the esophagus.

    >>> rows = [("Cerebral atrophy", _Entry("C1", "name"), False), ("Brain", _Entry("C2", "name"), False)]
    >>> trie = _organ_noun_trie(rows, [], _read_keys(rows))
    >>> [entry.concept for entry in _exact(trie, ["atrophic", "of", "brain"])], sorted(trie)
    (['C1'], ['atrophic', 'brain'])
    >>> rows = [("Dilation of esophagus due to disease", _Entry("C3", "name"), False)]
    >>> sorted(_organ_noun_trie(rows, [], _read_keys(rows)))
    ['dilatation', 'esophageal']
    """
    yielded: dict[tuple[str, ...], dict[str, tuple[str, _Entry, bool]]] = {}  # a variant's words -> concept -> row
    for text, entry, case_sensitive in rows:
        if entry.source not in ("name", "synonym") or case_sensitive:
            continue
        bare = _DUE_TO_DISEASE.sub("", text)
        for variant in ((bare,) if bare != text else ()) + organ_noun_variants(bare, _ADJECTIVE_NOUNS):
            keys = _name_keys(variant)
            if not any(key in taken for key in keys):
                yielded.setdefault(keys[0], {}).setdefault(entry.concept, (variant, entry, False))
    variants = [row for concepts in yielded.values() if len(concepts) == 1 for row in concepts.values()]
    trie: dict = {}
    for text, entry, _ in _without_excluded(variants, exclusions)[0]:
        for key in _name_keys(text):
            _add(_node(trie, key), entry)
    return _frozen(trie)


def _derived_rows(rows: list[tuple[str, _Entry, bool]]) -> list[tuple[str, _Entry, bool]]:
    """The rows of the organ adjectives and prefixed forms derived from the names and synonyms among ``rows``
    (:func:`~evalcore.extraction.morphology.derived_forms`), each read as a synonym of the concept it derives from,
    one closed word: never a word that a row already is alone (a name, a synonym, the imaging vocabulary's "biliary"
    of an abdominal radiograph), nor one the lexicon reads otherwise.

    >>> rows = [("Clivus", _Entry("C1", "name"), False), ("Adrenal Glands", _Entry("C2", "name"), False)]
    >>> [(text, entry.concept, entry.after_side) for text, entry, _ in _derived_rows(rows)][:2]
    [('adrenal', 'C2', True), ('intraadrenal', 'C2', False)]
    """
    names: dict[str, list[str]] = {}
    written = set(LEXICON.reads_as) | set(LEXICON.organ_of) | set(LEXICON.non_specific)
    attested = set(LEXICON.reads_as) | set(LEXICON.organ_of)
    one_word = set(written)  # ... and the imaging vocabulary's words ("biliary" says an abdominal radiograph)
    for text, entry, case_sensitive in rows:
        words = [word.lower() for _, _, word in _tokens(text)]
        attested.update(words)
        if len(words) == 1:
            one_word.update((words[0], normal_token(words[0])))
        if entry.source in ("name", "synonym") and not case_sensitive:
            names.setdefault(entry.concept, []).append(text)
            if len(words) == 1:
                written.update((words[0], normal_token(words[0])))
    anywhere, after_side = derived_forms(names, written, attested)
    return [(word, _Entry(concept, "synonym", after_side=side), False)
            for forms, side in ((after_side, True), (anywhere, False)) for word, concept in sorted(forms.items())
            if word not in one_word and normal_token(word) == word]


def _derived_trie(rows: list[tuple[str, _Entry, bool]], exclusions: list[tuple[str, str]]) -> dict:
    """A trie of the derived forms of the kept ``rows`` (:func:`_derived_rows`), one closed word each, but those an
    exclusion takes away as it takes a name: the trie the names are then added to (no derived word is a row's word,
    so the order does not matter); their concepts' name words stay those the dictionary writes.

    >>> sorted(_derived_trie([("Adrenal Glands", _Entry("C2", "name"), False)], [("intraadrenal", "C2")]))[:3]
    ['adrenal', 'paraadrenal', 'periadrenal']
    """
    trie: dict = {}
    for text, entry, _ in _without_excluded(_derived_rows(rows), exclusions)[0]:
        _add(_node(trie, (text,)), entry)
    return trie


def _kept_names(names: Mapping[str, str], ontology_ids: bool) -> dict[str, str]:
    """The names of a dictionary: those of CUIs (C + 7 digits), or of every ID with ``ontology_ids``; names that are
    not a mapping of texts to texts are refused."""
    if not isinstance(names, Mapping):
        raise ParameterError(f"names must map concept IDs to names, got {type(names).__name__}")
    kept: dict[str, str] = {}
    for concept, name in names.items():
        if not isinstance(concept, str) or not isinstance(name, str):
            raise ParameterError(f"names must map text IDs to text names, got {concept!r}: {name!r}")
        if ontology_ids or _CUI.match(concept):
            kept[concept] = name
    return kept


def _without_excluded(rows: list[tuple[str, _Entry, bool]], exclusions: Iterable[tuple[str, str]]
                      ) -> tuple[list[tuple[str, _Entry, bool]], list[tuple[tuple[str, ...], str]]]:
    """The name rows (text, entry, matched as written) that no exclusion (words, concept) of a rules file takes away,
    and (key, concept) of the phrases that hide a name inside them: an exclusion whose words are no name of its
    concept but hold one of its names ("thrombolysis in myocardial infarction", the long form of the TIMI flow grade,
    holds "myocardial infarction") hides that concept's names there, and no other concept's (:func:`_in_sense`).

    >>> rows = [("Myocardial Infarction", _Entry("C1", "name"), False), ("MI", _Entry("C1", "synonym"), True)]
    >>> kept, hiding = _without_excluded(rows, [("MI", "C1"), ("thrombolysis in myocardial infarction", "C1")])
    >>> [text for text, _, _ in kept], hiding
    (['Myocardial Infarction'], [(('thrombolysis', 'in', 'myocardial', 'infarction'), 'C1')])
    """
    excluded = {(key, concept) for words, concept in exclusions for key in _name_keys(words)}
    if not excluded:
        return rows, []
    kept, taken, names = [], set(), {}
    for text, entry, case_sensitive in rows:
        keys = _name_keys(text)
        hits = {(key, entry.concept) for key in keys} & excluded
        if hits:
            taken |= hits
            continue
        kept.append((text, entry, case_sensitive))
        names.setdefault(entry.concept, set()).update(keys)
    hiding = [(key, concept) for key, concept in excluded - taken
              if any(_holds(key, name) for name in names.get(concept, ()))]
    return kept, sorted(hiding)


def _holds(phrase: tuple[str, ...], name: tuple[str, ...]) -> bool:
    """Whether ``name`` is a run of ``phrase``'s words, shorter than it."""
    return len(name) < len(phrase) and any(phrase[k:k + len(name)] == name for k in range(len(phrase) - len(name) + 1))


def _acronym(synonym: str) -> bool:
    """Whether a synonym is a short acronym, one word of at most four capitals and digits ("MS", "MI", "PE"), which
    a caption writes in capitals: matched as written, as the imaging vocabulary's "US" is ("TE 90 ms" is no multiple
    sclerosis).

    >>> _acronym("MS"), _acronym("Ms"), _acronym("COPD"), _acronym("ACL tear"), _acronym("CABG2X")
    (True, False, True, False, False)
    """
    return synonym.isupper() and len(synonym) <= 4 and synonym.isalnum()


def _node(trie: dict, key: tuple[str, ...]) -> dict[str, _Entry]:
    """The payload of ``key`` in ``trie``, made where missing."""
    node = trie
    for token in key:
        node = node.setdefault(token, {})
    return node.setdefault(_END, {})


def _add(entries: dict[str, _Entry], entry: _Entry) -> None:
    """Keep one entry per concept at a key: a name before a synonym before an abbreviation, an unconditional one
    before one that requires another concept."""
    old = entries.get(entry.concept)
    if old is None or (SOURCES.index(entry.source), bool(entry.requires)) < (SOURCES.index(old.source),
                                                                              bool(old.requires)):
        entries[entry.concept] = entry


def _frozen(root: dict) -> Mapping:
    """The trie made read-only, without recursion: a name of thousands of words is a trie as many levels deep."""
    order = [root]
    for node in order:  # breadth first: every child comes after its parent
        order.extend(value for key, value in node.items() if key != _END)
    frozen: dict[int, Mapping] = {}
    for node in reversed(order):
        frozen[id(node)] = MappingProxyType({key: _named_first(value) if key == _END else frozen[id(value)]
                                             for key, value in node.items()})
    return frozen[id(root)]


def _named_first(entries: Mapping[str, _Entry]) -> tuple[_Entry, ...]:
    """The entries of one name: where it is a concept's own name, another concept's synonym of the same words is
    not read ("Spinal cord" is the Spinal cord, not the synonym a disease list gives Spinal Cord Diseases).

    >>> entries = {"C1": _Entry("C1", "name"), "C2": _Entry("C2", "synonym"), "C3": _Entry("C3", "abbreviation")}
    >>> [entry.concept for entry in _named_first(entries)]
    ['C1', 'C3']
    """
    named = any(entry.source == "name" for entry in entries.values())
    return tuple(entry for entry in entries.values() if not (named and entry.source == "synonym"))


def _check(caption: str, dictionary: ConceptDictionary) -> None:
    if not isinstance(caption, str):
        raise ParameterError(f"a caption must be a text, got {type(caption).__name__}")
    if not isinstance(dictionary, ConceptDictionary):
        raise ParameterError(f"dictionary must be a ConceptDictionary (ConceptDictionary.build), got "
                             f"{type(dictionary).__name__}")


def mentions(caption: str, dictionary: ConceptDictionary) -> list[Mention]:
    """Every concept mention in ``caption``, in text order, those in a negated scope flagged (the longest name
    wins at each word; mentions do not overlap, but for the X-ray region and view rows read inside a longer one).

    >>> d = ConceptDictionary.build({"C0019080": "Hemorrhage", "C0040405": "X-Ray Computed Tomography",
    ...                              "C0006104": "Brain"})
    >>> for m in mentions("CT of the brain without haemorrhage", d):
    ...     print(m.concept, repr(m.text), m.negated, m.source)
    C0040405 'CT' False abbreviation
    C0006104 'brain' False name
    C0019080 'haemorrhage' True name
    """
    tokens, found = _token_mentions(caption, dictionary)
    return [Mention(entry.concept, tokens[first][0], tokens[last][1], caption[tokens[first][0]:tokens[last][1]],
                    negated, entry.source) for first, last, entry, negated in found]


def _token_mentions(caption: str, dictionary: ConceptDictionary
                    ) -> tuple[list[tuple[int, int, str]], list[tuple[int, int, _Entry, bool]]]:
    """The caption's tokens and its mentions (:func:`mentions`) as (first token, last token, entry, negated): what
    :func:`extract` reads, without making a :class:`Mention` of each."""
    _check(caption, dictionary)
    if caption_language(caption) != ENGLISH:
        return [], []  # the dictionary's names are English: a French caption's words are no names (issue 69)
    tokens, words, gaps = _words_and_gaps(caption)
    keys = list(map(normal_token, words))

    # whether token k is joined to token k - 1 (read once per caption: names, sense and denial rules ask often); a
    # False at each end, so that token 0, the index -1 and the index after the last are joined to nothing (callers
    # ask only for 0 to len(tokens): an index below -1 would wrap around)
    joinable = [False, *[gap == " " or _JOINING_GAP.fullmatch(gap) is not None for gap in gaps], False]
    joined = joinable.__getitem__

    sentences = sentence_spans(caption)
    definitions = defined_abbreviations(caption)
    scopes = cue_scopes(caption, cues=dictionary.cues, sentences=sentences, definitions=definitions)
    word_ends = _prefixed_words(tokens, scopes)
    found: list[tuple[int, int, tuple[_Entry, ...]]] = []  # first token, last token, entries
    trie, exact, inner = dictionary.trie, dictionary.exact, dictionary.inner
    i, count = 0, len(tokens)
    while i < count:
        # (most words begin no name: the trie's first level says so without a call)
        last, payload = _name_at(keys, joined, i, word_ends.get(i, count), trie, tokens) if keys[i] in trie else (-1, ())
        as_written = exact.get(tokens[i][2], ())
        if last > i or (last == i and not as_written):
            found.append((i, last, payload))
            # A longer name hides the X-ray region or view it names ("left wrist" is "Structure of left wrist",
            # and the wrist is part of the upper extremity): the vocabulary's region and view rows are read again
            # inside it, each a mention of its own; inside an imaging modality's name ("chest CT", "CT of the
            # abdomen" are CT), every name but another modality's is.
            modality = all(entry.concept in MODALITIES for entry in payload)
            again, k = (trie if modality else inner), i
            while last > i and k <= last:
                # (the whole name again is not a name inside it)
                inner_last, inner_payload = _longest(keys, joined, k, last + 1 if k > i else last, again)
                if modality:
                    # ... but not a word of a compound inside it: after a letter, the letter's shape ("C-arm", "C
                    # arm": no arm), or hyphenated ("fluid-attenuated inversion recovery": no fluid)
                    compound = k > i and len(tokens[k - 1][2]) == 1 or _hyphenated(caption, tokens, k, inner_last, i,
                                                                                   last)
                    inner_payload = () if compound else tuple(entry for entry in inner_payload
                                                              if entry.concept not in MODALITIES)
                if inner_last < 0 or not inner_payload:
                    k += 1
                    continue
                found.append((k, inner_last, inner_payload))
                k = inner_last + 1
            i = last if _quantified_head(keys, joined, tokens, i, last, trie) else last + 1
        elif as_written and (standing := _standing_labels(caption, tokens, i, as_written, dictionary.name_words)):
            found.append((i, i, payload + standing))
            i += 1
        else:
            i += 1
    found = _sided(found, keys, joined)
    # names the walk above cannot read: a range's short end, a list written with commas, a side on a short form
    if besides := (_range_ends(caption, tokens, keys, dictionary) + _comma_names(caption, tokens, keys, joined, trie)
                   + (_sided_short_forms(tokens, keys, joined, definitions, trie) if definitions else [])
                   + _organ_noun_names(tokens, keys, joined, dictionary.organ_nouns)):
        found = sorted(found + besides, key=lambda mention: (mention[0], -mention[1]))
    if not found:
        return tokens, []
    found.extend(_findings_at_structures(keys, joined, found, trie))
    found.extend(_participles_before_structures(tokens, keys, joined, found, trie))
    elided, coordinated = _elided(caption, tokens, keys, joined, found, trie)
    found = sorted(found + [(first, last, entries) for first, last, entries, _ in elided],
                   key=lambda mention: (mention[0], -mention[1]))
    shared_heads = {(first, last): head_first for first, last, _, head_first in elided}
    examinations = [(first, last) for first, last, entries in found
                    if any(entry.concept in MODALITIES for entry in entries)]
    found = _without_hosted_techniques(keys, joined, found)
    sentence_of, sentence_tokens = _sentences_of(sentences, tokens)
    kept = _in_sense(caption, tokens, keys, joined, found, examinations, sentence_of, sentence_tokens, dictionary)
    if definitions:
        kept = _as_defined(tokens, keys, kept, definitions, dictionary.name_words)
    flagged = [(first, last, entry, negated) for (first, last, entry), negated
               in zip(kept, _denied(caption, kept, tokens, joined, scopes, coordinated, shared_heads))]
    # (a later examination's words are still its own: its sentence's X-ray regions are not this image's)
    modality_at = _modality_scope(sentence_of, flagged)
    if dictionary.one_modality:
        flagged = _without_later_examinations(sentence_of, flagged)
    affirmed = {entry.concept for _, _, entry, negated in flagged if not negated and entry.source != "assumed"}
    view_stated = _no_assumed_view(caption, tokens, keys, joined, flagged, affirmed, sentence_of, sentence_tokens,
                                   dictionary)
    return tokens, [(first, last, entry, negated) for first, last, entry, negated in flagged
                    if _required_said(entry, first, affirmed, modality_at)
                    and not (entry.source == "assumed" and view_stated)]


def _sided(found: list[tuple[int, int, tuple[_Entry, ...]]], keys: list[str], joined: Callable[[int], bool]
           ) -> list[tuple[int, int, tuple[_Entry, ...]]]:
    """The mentions ``found`` (first token, last token, entries) without the entries read only after a side
    (:data:`~evalcore.extraction.morphology.SIDES`: "the left adrenal") where no side word stands joined before them;
    a mention left with no entry is dropped.

    >>> entry = _Entry("C1", "synonym", after_side=True)
    >>> [(first, last) for first, last, _ in _sided([(1, 1, (entry,)), (3, 3, (entry,))],
    ...                                             ["an", "adrenal", "left", "adrenal"], lambda k: True)]
    [(3, 3)]
    """
    return [(first, last, kept) for first, last, entries in found
            if (kept := tuple(entry for entry in entries if not entry.after_side
                              or (first > 0 and joined(first) and keys[first - 1] in SIDES)))]


def _in_sense(caption: str, tokens: list[tuple[int, int, str]], keys: list[str], joined: Callable[[int], bool],
              found: list[tuple[int, int, tuple[_Entry, ...]]], examinations: list[tuple[int, int]],
              sentence_of: list[int], sentence_tokens: list[tuple[int, int]],
              dictionary: ConceptDictionary) -> list[tuple[int, int, _Entry]]:
    """Each (first, last, entry) of ``found`` whose phrase means its concept (:func:`~evalcore.extraction.sense.
    sense_kept`, in its sentence: :func:`_sentences_of`), but a region of the extent an examination's name lists
    (:func:`~evalcore.extraction.sense.scan_range`)."""
    image_starts = {first for first, _ in examinations}
    # (a caption holding no hidden phrase's first word, nearly every one, is not walked)
    hidden = _hidden_at(keys, joined, dictionary.hidden) if not dictionary.hidden.keys().isdisjoint(keys) else ()
    organ_words = words_at(keys, dictionary.sense.whole_words)
    extent = scan_range(keys, lambda k: caption[tokens[k - 1][1]:tokens[k][0]], examinations, dictionary.sense)

    def hyphened(k: int) -> bool:
        return caption[tokens[k - 1][1]:tokens[k][0]] in _HYPHENS

    name_words, sense = dictionary.name_words, dictionary.sense  # (read once, not once a mention)
    return [(first, last, entry) for first, last, entries in found for entry in entries
            if not (first == last and first in extent)
            and not (hidden and any(start <= first and last < end and entry.concept in concepts
                                    for start, end, concepts in hidden))
            and sense_kept(keys, joined, first, last, name_words.get(entry.concept, ()), image_starts,
                           sense, sentence_tokens[sentence_of[first]], organ_words,
                           named=entry.source not in ("abbreviation", "assumed"), view=entry.concept in VIEW_TAGS,
                           hyphened=hyphened)]


def _hidden_at(keys: list[str], joined: Callable[[int], bool], hidden: Mapping) -> list[tuple[int, int, set[str]]]:
    """(first token, token after the last, the concepts hidden) of each phrase of ``hidden`` (a dictionary's
    :attr:`ConceptDictionary.hidden`) in a caption, the longest at each word."""
    spans, i = [], 0
    while i < len(keys):
        last, payload = _longest(keys, joined, i, len(keys), hidden) if keys[i] in hidden else (-1, ())
        if last < 0:
            i += 1
            continue
        spans.append((i, last + 1, {entry.concept for entry in payload}))
        i = last + 1
    return spans


def _long_form_keys(keys: list[str], token_starts: list[int], definition: Definition) -> list[str]:
    """The keys of the caption's tokens that a definition's long form spans (``token_starts``: each token's start)."""
    return keys[bisect_left(token_starts, definition.start):bisect_left(token_starts, definition.end)]


def _as_defined(tokens: list[tuple[int, int, str]], keys: list[str], kept: list[tuple[int, int, _Entry]],
                definitions: list[Definition], name_words: Mapping[str, frozenset[str]]
                ) -> list[tuple[int, int, _Entry]]:
    """The mentions ``kept`` (in the sense their phrases give them), each abbreviation the caption defines
    (:func:`~evalcore.extraction.abbreviations.defined_abbreviations`) read as its long form says where the long form
    names concepts and none of them is the abbreviation's sense in the dictionary: "posterior descending artery
    (PDA)" makes each "PDA" of the caption the artery, not a patent ductus arteriosus, or nothing where the long
    form's last words name no concept; an abbreviation the dictionary lacks ("right coronary artery (RCA)") is read
    as the long form's concept too. Where the long form names no concept, a sense of a name or synonym whose names
    (``name_words``: concept -> the words of all its names) share no word with it is another sense: "mitral
    insufficiency (MI)" is no myocardial infarction, "MS, maxilliary sinus" no multiple sclerosis, while "left
    circumflex (LCX)" stays the circumflex artery; the imaging vocabulary's abbreviations keep their modality, as a
    technique's long form is not the modality's name ("short-tau inversion recovery (STIR)" is MRI). The first
    definition of a short form holds; a standard view assumed for the long form's region is not the
    abbreviation's."""
    meanings: dict[str, tuple[tuple[_Entry, ...], frozenset[str]]] = {}
    unnamed: dict[str, frozenset[str]] = {}  # a short form whose long form names no concept -> the long form's words
    starts = [tokens[first][0] for first, _, _ in kept]  # in order: kept is sorted by its first tokens
    token_starts = [start for start, _, _ in tokens]
    for definition in definitions:
        if definition.short in meanings or definition.short in unnamed:
            continue
        inside = [(last, entry) for _, last, entry in kept[bisect_left(starts, definition.start):
                                                            bisect_left(starts, definition.end)]
                  if tokens[last][1] <= definition.end]
        named = frozenset(entry.concept for _, entry in inside)
        if named:
            head = tuple(replace(entry, source="defined") for last, entry in inside
                         if tokens[last][1] == definition.end and entry.source != "assumed")
            meanings[definition.short] = (head, named)
        else:
            unnamed[definition.short] = frozenset(_long_form_keys(keys, token_starts, definition))
    if unnamed:
        kept = [(first, last, entry) for first, last, entry in kept
                if first != last or tokens[first][2] not in unnamed or entry.source not in ("name", "synonym")
                or not unnamed[tokens[first][2]].isdisjoint(name_words.get(entry.concept, ()))]
    if not meanings:
        return kept
    senses: dict[int, set[str]] = {}  # a one-word mention's first token -> its concepts in the dictionary
    for first, last, entry in kept:
        if first == last:
            senses.setdefault(first, set()).add(entry.concept)
    covered = {k for first, last, _ in kept for k in range(first, last + 1)}
    redefined = {first for first in senses if tokens[first][2] in meanings
                 and meanings[tokens[first][2]][1].isdisjoint(senses[first])}
    read = [(first, last, entry) for first, last, entry in kept if first != last or first not in redefined]
    redefined.update(k for k, (_, _, word) in enumerate(tokens) if k not in covered and word in meanings)
    read.extend((k, k, entry) for k in redefined for entry in meanings[tokens[k][2]][0])
    return sorted(read, key=lambda mention: (mention[0], -mention[1]))


#: Words that coordinate the modifiers of one head ("right *and* left lungs").
_COORDINATORS = frozenset({"and", "or"})
#: The most modifiers read before one coordinator ("upper, middle and lower lobes": 3): each elided name spans its
#: modifier to the head, so an endless list would make mentions whose words grow with the square of its length.
_MOST_CONJUNCTS = 8
#: The ending of a plural noun, as :func:`normal_token` reads one ("vertebrae", "nodes"; not "mass", "sinus").
_PLURAL = re.compile(r"(?:[^su]s|ae)$", re.IGNORECASE)
#: What may stand between coordinated modifiers: spaces, a comma or both ("upper, middle, and lower").
_LIST_GAP = re.compile(r"[ \t]*+(?:,[ \t]*+)?")  # (spaces never given back: no retrying of a long run)


def _elided(caption: str, tokens: list[tuple[int, int, str]], keys: list[str], joined: Callable[[int], bool],
            found: list[tuple[int, int, tuple[_Entry, ...]]],
            trie: Mapping) -> tuple[list[tuple[int, int, tuple[_Entry, ...], int]], set[int]]:
    """The names that coordinated modifiers make with the head they share, which a caption writes once ("right upper
    and middle lobes" is the right upper lobe and the middle lobe; "hilar, mediastinal and axillary lymph nodes";
    coordination ellipsis, Buyko, Tomanek and Hahn, "Resolution of coordination ellipses in biological named
    entities", PACLING 2007): before "and" or "or" and a name of several words, one to three words (and the single
    words of a comma list before them) that make a name with that name's words after its first, each a mention of
    the whole phrase, from the modifier to the head, so that the sense and negation rules read it at its head. No
    modality: "CT and MR angiography" names two examinations, not a CT angiography. Each with the first token of its
    head (a denial of the head denies it: "no residual or recurrent tumor"); with them, the tokens of the coordinated
    modifiers, the head's first word included: each modifies the shared head (:func:`_denied`). A plural noun is no
    modifier ("T6 vertebrae and cord compression").

    >>> d = ConceptDictionary.build({"C0000001": "Right lung", "C0000002": "Left lung", "C0000003": "Hilar lymph node",
    ...                              "C0000004": "Mediastinal lymph node", "C0000005": "Axillary lymph node"})
    >>> for m in mentions("right and left lungs; hilar, mediastinal or axillary lymph nodes", d):
    ...     print(m.concept, repr(m.text))
    C0000001 'right and left lungs'
    C0000002 'left lungs'
    C0000003 'hilar, mediastinal or axillary lymph nodes'
    C0000004 'mediastinal or axillary lymph nodes'
    C0000005 'axillary lymph nodes'
    """
    reaches = _reaches(found)
    elided, coordinated = [], set()
    for k, key in enumerate(keys):
        if key not in _COORDINATORS or k == 0 or k + 2 >= len(keys) or not joined(k + 1) or \
                not _LIST_GAP.fullmatch(caption, tokens[k - 1][1], tokens[k][0]):
            continue
        if reaches.get(k + 1, k + 1) > k + 1:  # "right upper and middle lobes": the head is the name's other words
            last, head_first = reaches[k + 1], k + 2
        elif k + 1 not in reaches and k + 2 in reaches and joined(k + 2):  # "or supraclavicular lymphadenopathy"
            last, head_first = reaches[k + 2], k + 2
        else:
            continue
        # (a determiner after "of" is read past, as in a name: "body and tail *of the* pancreas")
        head = [word for j, word in enumerate(keys[head_first:last + 1], head_first)
                if not (keys[j - 1] == "of" and word in SENSE_WORDS_KEYED.determiner)]
        end, sizes, conjuncts = k, (3, 2, 1), 0  # end: the token after the conjunct
        while conjuncts < _MOST_CONJUNCTS:
            named = ((size, tuple(entry for entry in _exact(trie, keys[end - size:end] + head)
                                  if entry.concept not in MODALITIES))
                     for size in sizes if size <= end and all(joined(j) for j in range(end - size + 1, end)))
            words, entries = next(((size, entries) for size, entries in named if entries), (0, ()))
            if not entries or _PLURAL.search(tokens[end - 1][2]):
                break  # (a plural is a noun of its own, no modifier)
            elided.append((end - words, last, entries, head_first))
            conjuncts += 1
            coordinated.update(range(end - words, k + 2))
            # a comma list may go on before the conjunct, one or two words an item ("upper, middle and lower lobes")
            end, sizes = end - words, (2, 1)
            if end == 0 or joined(end) or not _LIST_GAP.fullmatch(caption, tokens[end - 1][1], tokens[end][0]):
                break
    return elided, coordinated


#: The prepositions that join a finding to the structure it is at ("vegetation *on* the tricuspid valve").
_AT_STRUCTURE = frozenset({"of", "in", "on", "at", "within"})
#: The prepositions that put a finding whose noun names no concept alone on a structure's surface (issue 69).
_ON_STRUCTURE = frozenset({"on", "at"})


def _findings_at_structures(keys: list[str], joined: Callable[[int], bool],
                            found: list[tuple[int, int, tuple[_Entry, ...]]],
                            trie: Mapping) -> list[tuple[int, int, tuple[_Entry, ...]]]:
    """The names a finding and the structure it is at make, written as a phrase ("vegetation on the tricuspid
    valve" is *Tricuspid valve vegetations*, "thrombosis of the portal vein" *Portal vein thrombosis*): a mention
    right after another, past a preposition of :data:`_AT_STRUCTURE` and determiners, whose words with the first's
    after them are exactly a name (Jacquemin's permutation variant); each a mention from the finding to the
    structure. No examination: "CT of the brain" is the CT its own name says, not the vocabulary's "brain CT"."""
    starting = _reaches(found)
    combined = []
    for first, last, _ in found:
        k = last + 1
        if k >= len(keys) or keys[k] not in _AT_STRUCTURE or not joined(k):
            continue
        k += 1
        while k < len(keys) and joined(k) and keys[k] in SENSE_WORDS_KEYED.determiner:
            k += 1
        if k not in starting or not joined(k):
            continue
        entries = tuple(entry for entry in _exact(trie, keys[k:starting[k] + 1] + keys[first:last + 1])
                        if entry.concept not in _EXAMS)
        if entries:
            combined.append((first, starting[k], entries))
    # a finding's noun that names no concept alone ("vegetations on the aortic valve" is *Aortic valve vegetations*,
    # though "vegetation" is no name), on or at the structure's surface (:data:`_ON_STRUCTURE`; "lesions in the soft
    # tissue" is no Soft tissue lesion by ROCOv2's curation): the one or two words before the preposition, with the
    # structure's words before them
    ends = {last for _, last, _ in found}
    for first, last in starting.items():
        p = first - 1
        while p > 0 and joined(p + 1) and keys[p] in SENSE_WORDS_KEYED.determiner:
            p -= 1
        if p < 1 or keys[p] not in _ON_STRUCTURE or not joined(p + 1) or not joined(p) \
                or p - 1 in ends or keys[p - 1] in SENSE_WORDS_KEYED.part:
            continue  # ("the left lobe of the liver", "the wall of the stomach": a part's of-phrase, no finding's)
        for start in (p - 1, p - 2):
            if start < 0 or not all(keys[j].isalpha() for j in range(start, p)) or (start < p - 1 and not joined(p - 1)):
                continue
            entries = tuple(entry for entry in _exact(trie, keys[first:last + 1] + keys[start:p])
                            if entry.concept not in _EXAMS)
            if entries:
                combined.append((start, last, entries))
                break
    return combined


#: The ending of a past participle a caption writes for a finding before its structure ("a dilated right ventricle").
_PARTICIPLE_ENDING = "ed"


def _participles_before_structures(tokens: list[tuple[int, int, str]], keys: list[str], joined: Callable[[int], bool],
                                   found: list[tuple[int, int, tuple[_Entry, ...]]],
                                   trie: Mapping) -> list[tuple[int, int, tuple[_Entry, ...]]]:
    """The names a finding's past participle makes with the structure named right after it: "a dilated right
    ventricle" is *Right ventricular dilatation* where the dictionary names it (the participle read as its noun by
    the lexicon's derivations, "dilated" as "dilatation"; the modifier of the structure is the head of the finding's
    name, Jacquemin 2001's modifier-head permutation, as :func:`_findings_at_structures` reads "X of the Y"); each
    a mention from the participle to the structure, beside those of its words. No examination, as there.

    >>> d = ConceptDictionary.build({"C0344893": "Right ventricular dilatation", "C0225883": "Right ventricle",
    ...                              "C0012359": "Dilatation"})
    >>> sorted(extract("Echocardiogram: a severely dilated right ventricle.", d))
    ['C0012359', 'C0225883', 'C0344893']
    >>> sorted(extract("A dilated left ventricle and a normal right ventricle.", d))
    ['C0012359', 'C0225883']
    """
    combined = []
    for first, last, _ in found:
        before = first - 1
        if before < 0 or not joined(first) or not tokens[before][2].lower().endswith(_PARTICIPLE_ENDING):
            continue
        entries = tuple(entry for entry in _exact(trie, keys[first:last + 1] + [keys[before]])
                        if entry.concept not in _EXAMS)
        if entries:
            combined.append((before, last, entries))
    return combined


def _reaches(found: list[tuple[int, int, tuple[_Entry, ...]]]) -> dict[int, int]:
    """The first token of each mention of ``found`` -> the last token of the longest one starting there."""
    reaches: dict[int, int] = {}
    for first, last, _ in found:
        reaches[first] = max(last, reaches.get(first, last))
    return reaches


def _exact(trie: Mapping, words: list[str]) -> tuple[_Entry, ...]:
    """The entries of the name of exactly ``words`` in ``trie``, or none."""
    node = trie
    for word in words:
        node = node.get(word)
        if node is None:
            return ()
    return node.get(_END, ())


#: Words that head no noun phrase, read as caption words are: the sense words' class and every cue's first word.
_NOT_HEADS = SENSE_WORDS_KEYED.not_head | frozenset(normal_token(cue.cue.split()[0]) for cue in CUES)
#: Endings of a word that heads no noun phrase: an adverb, a verb's participle, an adjective ("intrapericardial").
_NOT_HEAD_ENDINGS = ("ly", "ed", *ADJECTIVE_ENDINGS)


def _names_a_tumour(word: str) -> bool:
    """Whether the caption's ``word`` names a tumour (:func:`~evalcore.extraction.sense.names_a_tumour`, read as the
    caption's word is). A tumour before a finding noun is that finding's kind, no place: "resection of a melanoma
    metastasis" removed the melanoma too (:func:`_denied`).

    >>> [_names_a_tumour(word) for word in ("melanoma", "Carcinomas", "stroma", "liver")]
    [True, True, False, False]
    """
    return names_a_tumour(word.lower())


def _no_assumed_view(caption: str, tokens: list[tuple[int, int, str]], keys: list[str], joined: Callable[[int], bool],
                     flagged: list[tuple[int, int, _Entry, bool]], affirmed: set[str], sentence_of: list[int],
                     sentence_tokens: list[tuple[int, int]], dictionary: ConceptDictionary) -> bool:
    """Whether a region's assumed standard view among ``flagged`` goes: it counts only where the caption states no
    view and names a plain radiograph. A contrast or fluoroscopic study (a cholangiogram, a barium swallow, ERCP,
    "X-ray fluoroscopy"; a contrast medium or a contrast examination named in a sentence that names the radiograph:
    :func:`~evalcore.extraction.sense.names_a_contrast_study`) has views of its own, and a radiograph of another
    region ("Chest X-ray ... liver abscess") is no abdominal one."""
    return any(entry.source == "assumed" for _, _, entry, _ in flagged) and (
        not affirmed.isdisjoint(VIEW_TAGS) or _another_projection(caption, tokens)
        or any(token.lower() in FLUOROSCOPY_WORDS for _, _, token in tokens)
        or any(names_a_contrast_study([token.lower() for _, _, token in tokens[start:end]], dictionary.sense)
               for start, end in {sentence_tokens[sentence_of[first]] for first, _, entry, negated in flagged
                                  if entry.concept == PLAIN_XRAY and not negated})
        or not _plain_radiograph_of_the_region(flagged, keys, dictionary.sense.plain_radiograph, joined))


def _plain_radiograph_of_the_region(flagged: list[tuple[int, int, _Entry, bool]], keys: list[str],
                                    plain_words: Collection[str], joined: Callable[[int], bool]) -> bool:
    """Whether ``flagged`` (first, last, entry, negated) holds an affirmed plain radiograph named by a plain-radiograph
    word (``plain_words``: "radiograph", "X-ray", ...) that is of a region with a standard view, or, where none of
    them names its region, of no region: "Abdominal X-ray", "Radiograph of the hip", but not "Chest X-ray" (its own
    words name the chest: the liver its caption names is no abdominal radiograph's; issue 69). A radiograph's region
    is one its own words name, or the chest named right before it ("Chest radiography") or as the noun of its
    of-phrase ("X-ray of the chest"; with the abdomen: "X-ray of the chest and abdomen" is the abdomen's too); a
    radiograph word of no region beside one of the chest ("Chest X-ray ... decreased X-ray permeability") makes no
    abdominal radiograph. (Other regions are read only in the radiograph's own words: "lumbar radiograph", "plain
    radiographs of the femoral neck" name parts, not the film's region.)

    >>> xray, chest, abdomen = (_Entry(PLAIN_XRAY, "abbreviation"), _Entry("C0817096", "name"),
    ...                         _Entry("C0000726", "name"))
    >>> keys = "chest radiography liver x ray".split()
    >>> _plain_radiograph_of_the_region([(0, 0, chest, False), (1, 1, xray, False), (3, 4, xray, False)], keys,
    ...                                 {"radiography", "x", "ray"}, lambda k: True)
    False
    >>> keys = "x ray of the chest and abdomen".split()
    >>> _plain_radiograph_of_the_region([(0, 1, xray, False), (4, 4, chest, False), (6, 6, abdomen, False)], keys,
    ...                                 {"x", "ray"}, lambda k: True)
    True
    """
    at: dict[int, tuple[int, set[str]]] = {}  # first token of a region mention -> (its last token, its regions)
    same: dict[tuple[int, int], set[str]] = {}
    for first, last, entry, negated in flagged:
        if entry.concept in REGION_TAGS and not negated:
            if entry.source == "abbreviation":
                same.setdefault((first, last), set()).add(entry.concept)
            if entry.concept == CHEST or entry.concept in STANDARD_VIEW:
                at.setdefault(first, (last, set()))[1].add(entry.concept)
    ends = {last: regions for _, (last, regions) in at.items()}

    def region_of(first: int, last: int) -> set[str]:
        regions = set(same.get((first, last), ()))
        if first > 0 and joined(first) and first - 1 in ends:
            regions |= ends[first - 1]  # "Chest radiography"
        k = last + 1
        if k < len(keys) and keys[k] == "of" and joined(k):  # "X-ray of the chest and abdomen"
            k += 1
            while k < len(keys):
                while k < len(keys) and joined(k) and keys[k] in SENSE_WORDS_KEYED.determiner:
                    k += 1
                if k not in at or not joined(k):
                    break
                end, named = at[k]
                regions |= named
                k = end + 1
                if not (k < len(keys) and joined(k) and keys[k] in ("and", "or")):
                    break
                k += 1
        return regions

    radiographs = [region_of(first, last) for first, last, entry, negated in flagged
                   if entry.concept == PLAIN_XRAY and not negated and not plain_words.isdisjoint(keys[first:last + 1])]
    if any(not regions.isdisjoint(STANDARD_VIEW) for regions in radiographs):
        return True
    return bool(radiographs) and not any(radiographs)


def _another_projection(caption: str, tokens: list[tuple[int, int, str]]) -> bool:
    """Whether ``caption`` says its radiograph was taken in a projection or position other than the standard one
    (:data:`~evalcore.extraction.imaging_vocabulary.OTHER_PROJECTION_WORDS` and ``OTHER_PROJECTION_PHRASES``).

    >>> [_another_projection(text, _tokens(text)) for text in ("False profile view", "The stent in profile", "Lateral")]
    [True, False, True]
    """
    if any(token.lower() in OTHER_PROJECTION_WORDS for _, _, token in tokens):
        return True
    words = f" {' '.join(token.lower() for _, _, token in tokens)} "
    return any(f" {phrase} " in words for phrase in OTHER_PROJECTION_PHRASES)


def _placed_before(tokens: list[tuple[int, int, str]], first: int) -> bool:
    """Whether a word of an earlier event (:data:`~evalcore.extraction.sense.EARLIER_EVENT`) stands among the three
    words before token ``first``: a device named before the act that placed it there is in the image, whatever denial
    holds the phrase ("no complications after *stent* placement")."""
    return any(normal_token(tokens[k][2]) in EARLIER_EVENT for k in range(max(0, first - 3), first))


def _names_a_lesion(word: str) -> bool:
    """Whether ``word`` names a lesion, which a resection or excision removes whole: a noun of the sense words'
    ``lesion`` class or a tumour by its suffix (:func:`~evalcore.extraction.sense.names_a_lesion`, read as the
    caption's word is); an organ is resected in part.

    >>> [_names_a_lesion(word) for word in ("myxoma", "Tumour", "cysts", "bowel", "lobe")]
    [True, True, True, False, False]
    """
    return names_a_lesion(normal_token(word), SENSE_WORDS_KEYED)


#: The participles of a state ("widened", "dilated", "enlarged"): a denial of the state leaves the thing (:func:`_denied`).
_STATE_PARTICIPLES = frozenset(word for word in AFFIRMED_STATES if word.endswith("ed"))
#: What an other-exam cue may deny (:func:`_denied`).
_EXAMS = MODALITIES | VIEW_TAGS
#: The modalities whose mention right after another's is that other's technique, by the other: a radiographic study
#: after any modality ("CT cystogram"), an angiography after a cross-sectional one ("CT with angiography": ROCOv2
#: tags such an image CT only, 0 of 7 valid captions with angiogram).
_TECHNIQUES = MappingProxyType({"": frozenset(), "any": frozenset({PLAIN_XRAY}),
                                "cross-sectional": frozenset({PLAIN_XRAY, ANGIOGRAM})})
#: Every modality that another may host as its technique: a caption naming none has no technique to drop.
_HOSTED = frozenset().union(*_TECHNIQUES.values())
#: Words that may join a modality to its technique's name: "CT *with* cystogram", "CT *with contrast* angiography".
_TECHNIQUE_JOINS = frozenset({"with", "contrast", "a", "an"})


def _without_hosted_techniques(keys: list[str], joined: Callable[[int], bool],
                               found: list[tuple[int, int, tuple[_Entry, ...]]]) -> list[tuple[int, int, tuple[_Entry, ...]]]:
    """``found`` less the modalities a radiographic study named after another modality stands for: it is that
    modality's technique ("CT cystogram", "CT KUB", "MR urography", "CT pelvis with cystogram", "CT with contrast
    angiography": no plain radiograph, no angiogram; :func:`_technique_hosts`), and so is the same word wherever
    the caption repeats it ("CT pelvis with cystogram ...; poor cystogram")."""
    if not any(entry.concept in _HOSTED for _, _, entries in found for entry in entries):
        return found  # (most captions name no radiograph or angiogram that a modality could host)
    hosts = _technique_hosts(keys, joined, found)
    hosted_words = {tuple(keys[first:last + 1]): hosts[first] for first, last, _ in found if first in hosts}
    return [(first, last, tuple(entry for entry in entries if entry.concept not in _TECHNIQUES[
        hosts.get(first, hosted_words.get(tuple(keys[first:last + 1]), ""))])) for first, last, entries in found]


def _technique_hosts(keys: list[str], joined: Callable[[int], bool],
                     found: list[tuple[int, int, tuple[_Entry, ...]]]) -> dict[int, str]:
    """First token of each mention that follows another modality's mention -> which techniques that modality hosts
    (:data:`_TECHNIQUES`): right after it ("CT cystogram"), or past "with" and the words of :data:`_TECHNIQUE_JOINS`
    after it, its region between them or not ("CT pelvis with cystogram"), the words joined by spaces or hyphens."""
    hosts: dict[int, str] = {}
    host, after = "", -1  # the last modality mention's kind of host, and the token after it
    for first, last, entries in found:
        if after >= 0 and all(joined(k) for k in range(after, first + 1)):
            between = keys[after:first]
            if not between or (between[0] == "with" and all(word in _TECHNIQUE_JOINS for word in between)):
                hosts[first] = host
        concepts = {entry.concept for entry in entries}
        if concepts & (MODALITIES - {PLAIN_XRAY}):
            host, after = ("any" if ANGIOGRAM in concepts else "cross-sectional"), last + 1
        elif not (concepts & MODALITIES) and host and after == first:
            after = last + 1  # a region named between: "CT pelvis with cystogram"
        elif host and first < after:
            continue  # a name read inside the modality's own ("CT abdomen" holds the abdomen)
        else:
            host, after = "", -1
    return hosts


#: A vertebra's label ("T2", "L5", "C7", "S1") and what joins two into a range ("T2-T6", "T2\u2013T7").
_VERTEBRA = re.compile(r"[CTLS][0-9]{1,2}")
_RANGE_DASHES = frozenset({"-", "\u2013", " - ", " \u2013 "})


#: What joins a range's first vertebra to the number of its last ("L4-5", "C5\u20136", "L4/5").
_SHORT_RANGE_GAPS = frozenset({"-", "\u2013", "/"})
#: The key a comma stands for between two words of a name written with one ("Chest, abdomen, and pelvis"); no
#: caption word's key is a comma, so the walk of names never takes it.
_COMMA = ","
#: The key a slash stands for between the items of a list name a caption writes with slashes ("chest/abdomen/pelvis").
_SLASH = "/"


def _comma_keys(name: str) -> list[tuple[str, ...]]:
    """The keys of a name that is a list, its items separated by commas and the last joined by "and" or "or": each
    comma kept as a key of its own, and where one stands before "and" or "or", also the key without it: the serial
    comma is optional (The Chicago Manual of Style, 17th ed., 6.19), so "chest, abdomen and pelvis" is the name
    "Chest, abdomen, and pelvis"; and the items alone separated by slashes, as a radiology request names the regions
    a scan covers ("CT chest/abdomen/pelvis", "chest/abdomen X-ray"; the slash of a list, Chicago 6.106).

    >>> _comma_keys("Chest, abdomen, and pelvis")
    [('chest', ',', 'abdomen', ',', 'and', 'pelvis'), ('chest', ',', 'abdomen', 'and', 'pelvis'), ('chest', '/', \
'abdomen', '/', 'pelvis')]
    >>> _comma_keys("Chest and abdomen"), _comma_keys("Pleural effusion"), _comma_keys("Hypertrophy, Right Ventricular")
    ([('chest', '/', 'abdomen')], [], [])
    """
    words = _tokens(name)
    if len(words) < 3 or not any(normal_token(w) in _COORDINATORS for _, _, w in words):
        return []  # a list needs its "and" or "or"; an inverted heading ("Hypertrophy, Right Ventricular") is no list
    keys: list[list[str]] = [[normal_token(words[0][2])]]
    slashed = [normal_token(words[0][2])]  # (a slash where a comma or a coordinator separates two items)
    for (_, end, before), (start, _, word) in zip(words, words[1:]):
        key = normal_token(word)
        if key not in _COORDINATORS:
            slashed += [_SLASH, key] if "," in name[end:start] or normal_token(before) in _COORDINATORS else [key]
        if "," in name[end:start]:
            with_comma = [k + [_COMMA, key] for k in keys]
            keys = with_comma + ([k + [key] for k in keys] if key in _COORDINATORS else [])
        else:
            keys = [k + [key] for k in keys]
    return [tuple(k) for k in keys if _COMMA in k] + [tuple(slashed)]


def _comma_names(caption: str, tokens: list[tuple[int, int, str]], keys: list[str], joined: Callable[[int], bool],
                 trie: Mapping) -> list[tuple[int, int, tuple[_Entry, ...]]]:
    """The names written with commas between their words (:func:`_comma_keys`) that the caption writes with the same
    commas, each a mention from its first word to its last beside those of its words' own names ("CT of the chest,
    abdomen and pelvis" names Chest, abdomen, and pelvis); the walk of names stops at a comma, so these are read
    apart, only where the caption has one.

    >>> d = ConceptDictionary.build({"C1562547": "Chest, abdomen, and pelvis", "C0040405": "X-Ray Computed Tomography"})
    >>> sorted(extract("CT of the chest, abdomen and pelvis.", d)), sorted(extract("Chest and abdomen, pelvis", d))
    (['C0040405', 'C1562547'], [])
    >>> sorted(extract("CT chest/abdomen/pelvis", d)), sorted(extract("chest abdomen pelvis", d))
    (['C0040405', 'C1562547'], [])
    """
    if "," not in caption and _SLASH not in caption:
        return []
    found = []
    for i, key in enumerate(keys):
        node, last, payload, j, listed, read_listed = trie.get(key), -1, (), i + 1, False, False
        while node is not None and j < len(keys):
            gap = caption[tokens[j - 1][1]:tokens[j][0]].strip()
            if not joined(j) or (gap == _SLASH and _SLASH in node):
                if gap not in (_COMMA, _SLASH):
                    break
                node, listed = node.get(gap), True
                if node is None:
                    break
            node = node.get(keys[j])
            if node is not None and _END in node:
                last, payload, read_listed = j, node[_END], listed
            j += 1
        if last > i and read_listed:
            found.append((i, last, payload))
    return found


def _sided_short_forms(tokens: list[tuple[int, int, str]], keys: list[str], joined: Callable[[int], bool],
                       definitions: list[Definition], trie: Mapping) -> list[tuple[int, int, tuple[_Entry, ...]]]:
    """The sided names that a side word before an abbreviation the caption defines makes with its long form, each a
    mention from the side to the short form: with "MCA, middle cerebral artery", "the right MCA" is the right middle
    cerebral artery where the dictionary names it (a short form stands for its long form's words, Schwartz and
    Hearst 2003, *A simple algorithm for identifying abbreviation definitions in biomedical text*, and the side
    modifies them as it would the long form written out). The abbreviation keeps its own reading beside it.

    >>> d = ConceptDictionary.build({"C0149566": "Structure of middle cerebral artery",
    ...                              "C0226213": "Structure of right middle cerebral artery"})
    >>> sorted(extract("Infarct in the right MCA territory. MCA: middle cerebral artery.", d))
    ['C0149566', 'C0226213']
    >>> sorted(extract("Infarct in the right MCA territory.", d)), sorted(extract("A right CT. CT: cerebral artery", d))
    ([], [])
    """
    token_starts = [start for start, _, _ in tokens]
    long_forms: dict[str, list[str]] = {}
    for definition in definitions:  # (the first definition of a short form holds, as in _as_defined)
        long_forms.setdefault(definition.short, _long_form_keys(keys, token_starts, definition))
    return [(k - 1, k, entries) for k in range(1, len(tokens))
            if tokens[k][2] in long_forms and keys[k - 1] in _SIDES and joined(k)
            and (entries := _exact(trie, [keys[k - 1], *long_forms[tokens[k][2]]]))]


#: A caption that may write such a range (most do not: the tokens are then not read one by one).
_SHORT_RANGE = re.compile(r"[CTLS][0-9]{1,2}[-\u2013/][0-9]")


def _organ_noun_names(tokens: list[tuple[int, int, str]], keys: list[str], joined: Callable[[int], bool],
                      organ_nouns: Mapping) -> list[tuple[int, int, tuple[_Entry, ...]]]:
    """The names the organ-noun variants of a dictionary read (:func:`_organ_noun_trie`), the longest at each
    word, each a mention beside those of its words: "atrophy of the brain" is *Cerebral atrophy*, and still the
    brain's and an atrophy's. Not from a word with a prefix of place that the lexicon reads as its organ
    ("peripancreatic inflammation" is around the pancreas, no inflammation of it).

    >>> rows = [("Cerebral atrophy", _Entry("C1", "name"), False)]
    >>> trie = _organ_noun_trie(rows, [], _read_keys(rows))
    >>> words = [(0, 7, "atrophy"), (8, 10, "of"), (11, 14, "the"), (15, 20, "brain")]
    >>> _organ_noun_names(words, ["atrophic", "of", "the", "brain"], lambda k: True, trie)[0][:2]
    (0, 3)
    """
    found = []
    for i, key in enumerate(keys):
        if key not in organ_nouns:  # (most words begin no variant)
            continue
        word = tokens[i][2].lower()
        if not (word in LEXICON.reads_as and word.startswith(_PREFIXES_LONGEST_FIRST)):
            last, payload = _longest(keys, joined, i, len(keys), organ_nouns)
            # (an of-phrase's organ written as an adjective modifies the next noun: "wall of abdominal aorta")
            if last > i and not _derived_adjective(tokens[last][2], keys[last]):
                found.append((i, last, payload))
    return found


def _range_ends(caption: str, tokens: list[tuple[int, int, str]], keys: list[str], dictionary: ConceptDictionary
                ) -> list[tuple[int, int, tuple[_Entry, ...]]]:
    """The last ends of ranges of vertebrae written with the number alone ("L4-5" is L4 to L5, "C5/6" C5 to C6: the
    spine's motion segments as radiology names them), each a mention of that level on the number's token: only
    where the number is higher than the first's, the first is a vertebra's level by the sense rule
    (:func:`~evalcore.extraction.sense.a_vertebras_level`: "level" near it or a word of the spine in the caption;
    a probe's "C5-2" is none) and the dictionary has a concept of that level that its notation names (a
    vertebra's label written as-is, :func:`~evalcore.extraction.sense.names_a_level`); no other concept is made.

    >>> d = ConceptDictionary.build({"C0446435": "L5 level", "C0446436": "L4 level", "C0446416": "C6 level"})
    >>> [(m.concept, m.text) for m in mentions("Disc herniation at L4-5 and C5/6; a C5-2 probe.", d)]
    [('C0446436', 'L4'), ('C0446435', '5'), ('C0446416', '6')]
    """
    ends: list[tuple[int, int, tuple[_Entry, ...]]] = []
    if _SHORT_RANGE.search(caption) is None:
        return ends
    for i in range(len(tokens) - 1):
        first, number = tokens[i][2], tokens[i + 1][2]
        if (_VERTEBRA.fullmatch(first) is None or not number.isdigit() or len(number) > 2
                or caption[tokens[i][1]:tokens[i + 1][0]] not in _SHORT_RANGE_GAPS
                or int(number) <= int(first[1:]) or not a_vertebras_level(keys, i, dictionary.sense)
                or (i + 2 < len(tokens) and caption[tokens[i + 1][1]:tokens[i + 2][0]] in _SHORT_RANGE_GAPS)):
            continue
        entries = tuple(entry for entry in dictionary.exact.get(first[0] + number, ())
                        if names_a_level(dictionary.name_words.get(entry.concept, ())))
        if entries:
            ends.append((i + 1, i + 1, entries))
    return ends


def _standing_labels(caption: str, tokens: list[tuple[int, int, str]], i: int, entries: tuple[_Entry, ...],
                     name_words: Mapping[str, frozenset[str]]) -> tuple[_Entry, ...]:
    """The ``entries`` that token ``i``, an abbreviation written as-is, names, less those of a longer label it is part
    of: joined by a hyphen to a lower-case word of one or two letters before it, it names no concept but a modality
    ("t-PA", "rt-PA": a tissue plasminogen activator, no PA view; but "mp-MRI", "ce-CT" are the modality); one end of
    a range of vertebrae ("T2-T3", "C7–T2") names only a vertebra's level (a concept whose ``name_words`` say one:
    :func:`~evalcore.extraction.sense.names_a_level`), no T2-weighted image."""
    before = tokens[i - 1][2] if i > 0 else ""
    if 0 < len(before) <= 2 and before.islower() and caption[tokens[i - 1][1]:tokens[i][0]] == "-":
        return tuple(entry for entry in entries if entry.concept in MODALITIES)
    if _VERTEBRA.fullmatch(tokens[i][2]) is not None and (
            (i > 0 and _VERTEBRA.fullmatch(before) is not None and caption[tokens[i - 1][1]:tokens[i][0]] in _RANGE_DASHES)
            or (i + 1 < len(tokens) and _VERTEBRA.fullmatch(tokens[i + 1][2]) is not None
                and caption[tokens[i][1]:tokens[i + 1][0]] in _RANGE_DASHES)):
        return tuple(entry for entry in entries if names_a_level(name_words.get(entry.concept, ())))
    return entries


def _hyphenated(caption: str, tokens: list[tuple[int, int, str]], first: int, last: int, start: int, end: int) -> bool:
    """Whether tokens ``first``..``last`` are joined by a hyphen to a neighbour within tokens ``start``..``end``."""
    before = first > start and "-" in caption[tokens[first - 1][1]:tokens[first][0]]
    return before or (last < end and "-" in caption[tokens[last][1]:tokens[last + 1][0]])


def _denied(caption: str, mentions: list[tuple[int, int, _Entry]], tokens: list[tuple[int, int, str]],
            joined: Callable[[int], bool],
            scopes: list[tuple[int, int, Cue]], coordinated: Collection[int] = frozenset(),
            shared_heads: Mapping[tuple[int, int], int] = MappingProxyType({})) -> list[bool]:
    """Whether each mention is denied: it starts in a cue's scope, unless

    - a negation, history or literature cue's scope holds it and it is the imaging vocabulary's modality or X-ray
      region: those say how and what the image was taken of, which a denied finding, the patient's history or a
      cited statement does not undo ("no echogenic foci" is still an ultrasound; "no pneumothorax" still a chest
      radiograph; "a history of DDH (developmental dysplasia of the hips)" on a long-leg radiograph still its
      pelvis), while a hypothetical cue's does deny them ("follow-up with MRI"), and so does a pasted text's later
      sentence (its legend's first sentence says what the image is: :data:`~evalcore.extraction.negation.PASTED`),
      and a negation denies a view ("the AP view (not shown)": another image) and a modality where the caption
      names another as this image's ("a spot radiograph ... A magnetic resonance image (not shown)");
    - it names no modality and modifies what follows it, joined to it past position words and adjectives that begin
      no mention ("no liver *capsular* enhancement"): the next mention, denied with it, a noun of a state
      (:data:`~evalcore.extraction.negation.STATE_NOUNS`) or a part noun, or the head it shares with other modifiers
      (``coordinated``: "no *mediastinal*, hilar or axillary lymphadenopathy"), or an adjective coordinated with
      such a modifier ("no *orbital* or intracranial extension": :func:`_coordinated_modifiers`), or, in a denial
      that reads forward, a word that heads its phrase: none of the sense words' ``not_head`` class (function words,
      participles, nouns of the image), no cue, no adverb, participle or adjective by its ending, no mention ("no
      features of pulmonary infection, *liver* surface nodularity"), or, in one that reads backward, an adjective
      that does so ("*hepatic* lymphatic vessels are not observed"; but "the biliary tract system was not
      visualized" denies the biliary tract), and it is neither a word that says what a finding is like
      (:data:`~evalcore.extraction.negation.QUALIFIERS`: "no *cystic* lesions" denies both) or a state's participle
      ("no *enlarged* inguinal lymph nodes") nor a finding's noun ("no *infiltration* shadows"): a compound's head
      is what is denied ("no bowel obstruction" denies the obstruction, not the bowel; "no implant loosening", "no
      rib fractures", "resolution of the left ventricular apical clot", the state; "no bowel wall thickening"),
      but not before a noun of the act that places it (``placing``: "did not allow *implant* insertion" denies the
      implant) unless an earlier event's word comes before it ("no complications after *stent* placement");
    - a negation cue's scope holds it after "other" or "additional" (:func:`_after_other`): only further instances
      of what the image shows are denied ("an abscess or other *fluid* collection is not seen");
    - a negation cue's scope holds it and it is the of-phrase of another mention in a scope ("no hydronephrosis *of
      the left kidney*"): the of-phrase names what the denied finding would be of, which is there;
    - a negation cue's scope holds it right after a participle of a state (an affirmed-state word ending in "ed":
      "resolution of the widened *mediastinum*", "no dilated *bowel* loops"): the state is denied, not the thing;
    - an other-exam cue's scope holds it (only such a scope) and it is neither a modality nor a view, or no other
      modality (view) is named outside such scopes: the exam compared with is denied only where the caption says
      what the image is ("an ultrasound of the lesion identified on the mammogram" is no radiograph, "a lateral
      view ... compared with the AP view" no AP view; "a mass seen on CT" is a CT).
    """
    if not scopes:
        return [False] * len(mentions)  # (most captions: a mention in no scope is kept, whatever it modifies)
    holding, kinds = _holding_scopes(mentions, tokens, joined, scopes, shared_heads)
    denying_at: dict[int, set[str]] = {}  # the first token of a mention in a scope -> the concepts mentioned there
    for (first, _, entry), kind in zip(mentions, kinds):
        if kind is not None:
            denying_at.setdefault(first, set()).add(entry.concept)
    all_starts = {first for first, _, _ in mentions}
    forward = first_scopes([tokens[first][0] for first, _, _ in mentions],
                            [scope for scope in scopes if scope[2].kind == "negation"
                             and scope[2].direction in ("forward", "compound", "adjective")])
    ends = {last for (_, last, _), kind in zip(mentions, kinds) if kind is not None}
    # the examinations and views the caption says of this image
    shown = {entry.concept for (_, _, entry), kind in zip(mentions, kinds)
             if entry.concept in _EXAMS and entry.source != "assumed" and kind in (None, "negation")}
    read_on = {last + step for (_, last, _), kind in zip(mentions, kinds) if kind is not None for step in (1, 2)}
    modifiers, spared_ones, coordinable = [], [], []
    for (first, last, entry), kind, forward_cue, cue in zip(mentions, kinds, forward, holding):
        if not _read_for_denial(kind, first, read_on):
            modifiers.append(False)
            coordinable.append(False)
            spared_ones.append(True)
            continue
        # a view the caption names may be another image's; a view assumed for its region is as spared as the region
        vocabulary = entry.source == "assumed" or (entry.source == "abbreviation" and entry.concept not in VIEW_TAGS)
        # the next word, past position words ("left ventricular apical clot") and adjectives that are no mention,
        # written apart ("no liver capsular enhancement"; "no ascites/omental caking" names two things)
        after = last + 1
        while after < len(tokens) and joined(after) and (
                normal_token(tokens[after][2]) in SENSE_WORDS_KEYED.position or (
                    after not in all_starts and tokens[after][2].lower().endswith(ADJECTIVE_ENDINGS)
                    and "/" not in caption[tokens[after - 1][1]:tokens[after][0]])):
            after += 1
        following = normal_token(tokens[after][2]) if after < len(tokens) and joined(after) else ""
        words = " ".join(word for _, _, word in tokens[first:last + 1]).lower()
        backward = cue is not None and cue.kind == "negation" and cue.direction == "backward"
        qualifier = words in QUALIFIERS or words in _STATE_PARTICIPLES or normal_token(tokens[last][2]) in STATE_KEYS
        modifier = not qualifier and not _names_a_tumour(tokens[last][2]) and entry.concept not in MODALITIES \
            and kind != "literature" and (following not in SENSE_WORDS_KEYED.placing or _placed_before(tokens, first)) and (
            (first in coordinated and last in coordinated) or following in STATE_KEYS or following in SENSE_WORDS_KEYED.part
            or ((forward_cue is not None or (backward and tokens[last][2].lower().endswith(ADJECTIVE_ENDINGS)))
                and following.isalpha() and following not in _NOT_HEADS and following not in SENSE_WORDS_KEYED.person
                and not tokens[after][2].lower().endswith(_NOT_HEAD_ENDINGS) and after not in all_starts) or (
            following and any(denying_at.get(other_first, set()) - {entry.concept}
                              for other_first in range(last + 1, after + 1))))
        of_phrase = kind == "negation" and _of_phrase_of(tokens, first, ends)
        in_a_state = kind == "negation" and _described_by_a_state(caption, tokens, joined, first, last)
        presupposed = kind == "negation" and _after_other(tokens, joined, first)
        # another examination or view is named as this image's
        other = any(entry.concept in exams and shown & exams - {entry.concept} for exams in (MODALITIES, VIEW_TAGS))
        spared = kind in ("negation", "history", "literature") and vocabulary and not (entry.concept in MODALITIES and other) \
            and not (cue is not None and cue.direction == PASTED)
        modifiers.append(modifier)
        coordinable.append(kind not in (None, "literature") and entry.concept not in MODALITIES and words not in QUALIFIERS)
        spared_ones.append(kind is None or spared or of_phrase or in_a_state or presupposed or (kind == "other exam" and not other)
                           or (cue is not None and cue.direction == "compound-lesion" and not _names_a_lesion(tokens[last][2])))
    modifiers = _coordinated_modifiers(caption, mentions, tokens, joined, coordinable, modifiers)
    return [not (spared or modifier) for spared, modifier in zip(spared_ones, modifiers)]


def _read_for_denial(kind: str | None, first: int, read_on: Collection[int]) -> bool:
    """Whether :func:`_denied` reads its rules for a mention of scope ``kind`` starting at token ``first``: a mention
    in no scope is kept whatever it modifies, so whether it is a modifier is read only where a mention in a scope may
    be coordinated with it (``read_on``: the tokens one or two after such a mention's last, where
    :func:`_coordinated_modifiers` looks). The rest is skipped for speed; reading every mention gives the same result
    (tested)."""
    return kind is not None or first in read_on


def _holding_scopes(mentions: list[tuple[int, int, _Entry]], tokens: list[tuple[int, int, str]],
                    joined: Callable[[int], bool], scopes: list[tuple[int, int, Cue]],
                    shared_heads: Mapping[tuple[int, int], int]) -> tuple[list[Cue | None], list[str | None]]:
    """The cue whose scope holds each mention's first word (or its shared head's: ``shared_heads``), and the kind
    of scope each is read in (:func:`_denied`)."""
    holding = first_scopes([tokens[first][0] for first, _, _ in mentions], scopes)
    # (a name that coordinated modifiers share is denied where its head is)
    at_heads = [(index, shared_heads[first, last]) for index, (first, last, _) in enumerate(mentions)
                if holding[index] is None and (first, last) in shared_heads]
    for (index, _), cue in zip(at_heads, first_scopes([tokens[head][0] for _, head in at_heads], scopes)):
        holding[index] = cue
    kinds = [cue.kind if cue else None for cue in holding]
    # A scope its word limit ends inside a compound reaches the compound's head, the next word ("... for either
    # aspiration | pneumonia"); a prefix's scope is its word, whole ("non-ischemic | dilated cardiomyopathy").
    denying = {last: kind for (_, last, _), kind, cue in zip(mentions, kinds, holding)
               if kind in ("negation", "hypothetical", "history") and cue.direction not in ("prefix", "suffix")}
    return holding, [denying.get(first - 1) if kind is None and joined(first) else kind
                     for (first, _, _), kind in zip(mentions, kinds)]


#: How many adjectives may stand between a state's participle and the thing it describes ("no enlarged abdominal
#: lymph nodes").
_STATE_REACH = 2


def _described_by_a_state(caption: str, tokens: list[tuple[int, int, str]], joined: Callable[[int], bool],
                          first: int, last: int) -> bool:
    """Whether a state's participle stands before the mention of tokens ``first``..``last``, right before it or
    past at most :data:`_STATE_REACH` adjectives or position words (the words a hyphen joins to an adjective one
    word with it: "para-aortic", "FDG-positive"; a noun written apart ends the reach),
    and the mention is no finding noun nor a lesion's itself: "no dilated *bowel* loops", "no enlarged abdominal
    *lymph nodes*", "no enlarged para-aortic *lymph nodes*" deny the dilation and the enlargement, not the bowel and
    the nodes, where "no dilated fluid in the renal pelvis", "no enlarged adrenal adenoma" and "no dilated varices"
    deny the fluid, the adenoma and the varices (:func:`_denied`)."""
    k, passed = first, 0
    while k > 0 and joined(k) and passed <= _STATE_REACH:
        word = tokens[k - 1][2].lower()
        if word in _STATE_PARTICIPLES:
            return normal_token(tokens[last][2]) not in STATE_KEYS and not _names_a_lesion(tokens[last][2])
        if not (word.endswith(ADJECTIVE_ENDINGS) or normal_token(word) in SENSE_WORDS_KEYED.position):
            return False
        k -= 1
        while k > 0 and caption[tokens[k - 1][1]:tokens[k][0]] in _HYPHENS:
            k -= 1  # the words a hyphen joins to an adjective are that adjective's ("para-aortic") ...
            if tokens[k][2].lower() in _STATE_PARTICIPLES:  # ... or the participle's ("enlarged-hyperplastic")
                return normal_token(tokens[last][2]) not in STATE_KEYS and not _names_a_lesion(tokens[last][2])
        passed += 1
    return False


#: How many words may stand between "other" and the thing it presupposes ("no other significant coronary stenosis").
_OTHER_REACH = 3


def _after_other(tokens: list[tuple[int, int, str]], joined: Callable[[int], bool], first: int) -> bool:
    """Whether a word that presupposes an instance (the sense words' ``other`` class: "other", "additional") comes
    within :data:`_OTHER_REACH` words before token ``first``, joined to it by spaces or hyphens: "an abscess or
    *other* fluid collection is not seen", "no *additional* aneurysms" deny only further instances of what the
    image shows."""
    k = first
    while k > 0 and first - k < _OTHER_REACH and joined(k):
        k -= 1
        if tokens[k][2].lower() in SENSE_WORDS.other:
            return True
    return False


def _coordinated_modifiers(caption: str, mentions: list[tuple[int, int, _Entry]], tokens: list[tuple[int, int, str]],
                           joined: Callable[[int], bool], coordinable: list[bool], modifiers: list[bool]) -> list[bool]:
    """``modifiers`` with each adjective that "and" or "or" (after a comma or not) coordinates with a modifier of the
    same head read as a modifier too: "no orbital or intracranial extension" denies the extension, and the orbit is
    as much its place as the intracranial space is; "no hepatic, splenic or renal lesions". Only where
    ``coordinable`` (:func:`_denied`: in a denying scope, no literature statement's, no modality and no qualifier:
    "no cystic or solid lesions" denies both kinds), and only an adjective by its ending (:data:`ADJECTIVE_ENDINGS`)
    or a structure word before "and" or "or" (the sense words' class: "no evidence of *liver* or spleen lesions"):
    another noun before "or" is a denied thing of its own ("no hydronephrosis or renal calculi"). Read from the
    right, so that a comma list takes its last item's part."""
    starting: dict[int, list[int]] = {}
    for index, (first, _, _) in enumerate(mentions):
        starting.setdefault(first, []).append(index)
    read = list(modifiers)
    for index in range(len(mentions) - 1, -1, -1):
        _, last, _ = mentions[index]
        adjective = tokens[last][2].lower().endswith(ADJECTIVE_ENDINGS)
        if read[index] or not coordinable[index] \
                or not (adjective or structure_word(normal_token(tokens[last][2]), SENSE_WORDS_KEYED)):
            continue
        after = last + 1
        if after + 1 < len(tokens) and tokens[after][2].lower() in _COORDINATORS and joined(after + 1) \
                and _LIST_GAP.fullmatch(caption, tokens[last][1], tokens[after][0]):
            after += 1
        elif not (adjective and after < len(tokens) and caption[tokens[last][1]:tokens[after][0]].strip() == ","):
            continue  # (a noun before a comma is an item of its own: "no lungs, pleural or pericardial effusion")
        if any(read[other] for other in starting.get(after, ())):
            read[index] = True
    return read


def _of_phrase_of(tokens: list[tuple[int, int, str]], first: int, ends: Collection[int]) -> bool:
    """Whether the mention starting at token ``first`` follows "of" (and a determiner) right after the last token
    of a mention in ``ends``: "hydronephrosis of the left kidney"."""
    k = first - 1
    while k >= 0 and normal_token(tokens[k][2]) in SENSE_WORDS_KEYED.determiner:
        k -= 1
    return k >= 1 and tokens[k][2].lower() == "of" and k - 1 in ends


def _sentences_of(sentences: list[tuple[int, int]],
                  tokens: list[tuple[int, int, str]]) -> tuple[list[int], list[tuple[int, int]]]:
    """The sentence (of ``sentences``, the caption's :func:`~evalcore.extraction.negation.sentence_spans`) of each
    token, and each sentence's tokens (first, after the last)."""
    # (tokens and sentences are both in text order: each sentence's tokens are a run, found by bisection rather than
    # by a step for each token; a token before the second sentence is the first one's)
    token_starts = [start for start, _, _ in tokens]
    firsts = [0, *(bisect_left(token_starts, start) for start, _ in sentences[1:])]
    sentence_of: list[int] = []
    runs = []
    for sentence, (first, after) in enumerate(zip(firsts, [*firsts[1:], len(tokens)])):
        sentence_of.extend([sentence] * (after - first))
        runs.append((first, after) if first < after else (len(tokens), 0))
    return sentence_of, runs


def _without_later_examinations(sentence_of: list[int], flagged: list[tuple[int, int, _Entry, bool]]
                                ) -> list[tuple[int, int, _Entry, bool]]:
    """The mentions ``flagged`` less those of an imaging modality that a caption names, affirmed, only in sentences
    after the first that names one, where that sentence names another: a figure's caption says what the image is
    first, and a modality it names only later is another examination ("Contrast-enhanced CT aortogram ... .
    Ultrasound confirmed the aneurysm"; "Axial T1 MRI shows a mass. (b) The CT shows ..." is the MRI of a figure one
    of whose panels this image is). On ROCOv2 valid, 31 such modalities: 28 are not the image's in the curated
    sets, 3 are (a history's "On US, ..." before the CT shown). A convention of ROCOv2's curation, one modality per
    image (Rückert et al. 2024), so it goes with the imaging vocabulary: a compound figure's caption read without
    it keeps each panel's modality."""
    named = [(sentence_of[first], entry.concept) for first, _, entry, negated in flagged
             if entry.concept in MODALITIES and not negated and entry.source != "assumed"]
    if len({concept for _, concept in named}) < 2:
        return flagged
    opening = named[0][0]
    later = {concept for _, concept in named} - {concept for sentence, concept in named if sentence == opening}
    return [mention for mention in flagged if mention[2].concept not in later] if later else flagged


def _modality_scope(sentence_of: list[int], flagged: list[tuple[int, int, _Entry, bool]]) -> Callable[[int], str]:
    """The imaging modality a word of the caption describes (token index -> modality concept, "" for none;
    ``sentence_of``: each token's sentence): the modality named nearest to it in its sentence, else the last one
    named before its sentence, else the first named after (X-ray conventions apply to what a radiograph shows, not
    to a CT of the same caption). A modality's general adjective ("radiographic": a row requiring its own concept)
    names it only where no other modality describes its words."""
    named = [(first, last, entry.concept) for first, last, entry, negated in flagged
             if entry.concept in MODALITIES and not negated and entry.source != "assumed"]
    general = {(first, last, entry.concept) for first, last, entry, _ in flagged if entry.requires == entry.concept}
    specific = _nearest_modality(sentence_of, sorted(set(named) - general))
    if general.isdisjoint(named):
        return specific  # (nearly every caption: no general adjective to weigh against the specific modalities)
    return _nearest_modality(sentence_of, sorted({*named} - {(first, last, concept) for first, last, concept in general
                                                              if specific(first) not in ("", concept)}))


def _nearest_modality(sentence_of: list[int], named: list[tuple[int, int, str]]) -> Callable[[int], str]:
    """Token index -> the modality of ``named`` (first token, last token, concept; sorted) nearest to it in its
    sentence, else the last named before its sentence, else the first named after ("" when none is named)."""
    if not named:
        return lambda token: ""
    firsts = [first for first, _, _ in named]
    sentences = [sentence_of[first] for first in firsts]
    longest = max(last - first for first, last, _ in named)

    def modality_at(token: int) -> str:
        here = sentence_of[token]
        begin, end = bisect_left(sentences, here), bisect_right(sentences, here)  # the sentence's own
        if begin == end:
            return named[begin - 1][2] if begin else named[0][2]
        # The nearest lies around where the token falls among the firsts: within the distance of the first one found
        # there, and a name's length further back (a longer name before may end nearer).
        at = bisect_right(firsts, token, begin, end)
        near = min(abs(token - firsts[k]) for k in (at - 1, at) if begin <= k < end)
        low = bisect_left(firsts, token - near - longest, begin, end)
        high = bisect_right(firsts, token + near, begin, end)
        return min((min(abs(token - first), abs(token - last)), first, concept)
                   for first, last, concept in named[low:high])[2]

    return modality_at


def _required_said(entry: _Entry, first: int, affirmed: set[str], modality_at: Callable[[int], str]) -> bool:
    """Whether the concept ``entry`` requires is said: a required modality must be the one the mention's words
    describe (:func:`_modality_scope`), any other required concept affirmed anywhere in the caption."""
    if not entry.requires:
        return True
    if entry.requires in MODALITIES:  # (and is this image's: not a later examination's, which affirmed lacks)
        return modality_at(first) == entry.requires and entry.requires in affirmed
    return entry.requires in affirmed


#: A side, and the position words a caption inserts between a side and the part a name gives that side (Jacquemin's
#: insertion variant: "left *distal* ureter" is in the Left ureter, "right *posterior* elbow" the Right elbow;
#: "lateral", "upper", "lower" and "middle" are left out, as they name parts of their own: "left lateral ventricle",
#: "left lower lobe").
_SIDES = frozenset({"left", "right"})
_INSERTED_POSITIONS = frozenset({"distal", "proximal", "anterior", "posterior", "medial", "superior", "inferior"})
#: "main" after a side names the trunk of the sided vessel, the vessel itself: "the left main pulmonary artery" is
#: the Left pulmonary artery (Terminologia Anatomica: arteria pulmonalis sinistra, dextra), "the right main
#: coronary artery" the right coronary artery; read past like a position word, and beside a name that holds it
#: after the side ("Left main bronchus"), both followed.
_TRUNK = "main"


def _prefixed_words(tokens: list[tuple[int, int, str]], scopes: list[tuple[int, int, Cue]]) -> dict[int, int]:
    """The first token of each word a prefix is joined to -> the token after it, from the prefixes' scopes
    (:func:`~evalcore.extraction.negation.cue_scopes`): a prefix denies that word, a word of its own, so no name
    runs on past it ("non-calcified nodule" is a nodule, not a Calcified nodule denied whole)."""
    prefixed = [(start, end) for start, end, cue in scopes if cue.direction == "prefix"]
    if not prefixed:
        return {}
    starts = [start for start, _, _ in tokens]
    return {bisect_left(starts, start): bisect_left(starts, end) for start, end in prefixed}


def _name_at(keys: list[str], joined: Callable[[int], bool], i: int, stop: int,
             trie: Mapping, tokens: list[tuple[int, int, str]]) -> tuple[int, tuple[_Entry, ...]]:
    """The name read at token ``i``, as :func:`_longest`, but none where it is position words before an organ's word
    ("distal femoral") that begins the name of a vessel, nerve or duct ("femoral artery"): the adjective modifies the
    noun after it, the head of the phrase ("the distal femoral artery" is the artery, no distal femur), and the walk
    reads that name from the organ's word; nor, where position words or a coordination end in an adjective read as
    its noun ("abdominal" as the abdomen) that begins a longer name of a part ("abdominal wall"), the name up to the
    adjective: it modifies the part ("the right upper abdominal wall" is the abdominal wall, "the chest and abdominal
    walls" the walls of both, neither the upper abdomen nor the pair "Chest and abdomen"; "left atrial myxoma" stays
    the left atrium's)."""
    last, payload = _longest(keys, joined, i, stop, trie)
    sense = SENSE_WORDS_KEYED
    if last > i and _derived_adjective(tokens[last][2], keys[last]) and (
            "and" in keys[i + 1:last] or all(key in sense.position for key in keys[i:last])):
        longer = _longest(keys, joined, last, stop, trie)[0]
        if longer > last and keys[longer] in sense.part:
            return _longest(keys, joined, i, last, trie)
    if last > i and keys[last] in sense.structure and keys[last] in trie \
            and all(key in sense.position for key in keys[i:last]):
        # (the name from the organ's word may go on past the vessel's noun: "femoral artery stenosis")
        vessel = last + 1 < stop and joined(last + 1) and keys[last + 1] in sense.vessel
        head = _longest(keys, joined, last, stop, trie)[0]
        if head > last and (vessel or keys[head] in sense.vessel):
            return -1, ()
    return last, payload


#: The words that say which of a pair a name's noun phrase is: a predeterminer of two and the sides.
_QUANTIFIERS = frozenset({"both", "left", "right"})


def _quantified_head(keys: list[str], joined: Callable[[int], bool], tokens: list[tuple[int, int, str]], i: int,
                     last: int, trie: Mapping) -> bool:
    """Whether the name read at ``i``..``last`` begins with "both" or a side and ends in a word written singular that
    begins a longer name, one joined without "of", which is then read from that word too: "both" (a predeterminer of
    a plural noun phrase) and a side quantify the head noun of their phrase, and a noun or adjective before the head
    is its singular modifier (Quirk et al. 1985, A Comprehensive Grammar of the English Language, 5.17, 17.108):
    "both lung fields" are the lung fields of both lungs, so the name "both lungs" (read by the plural rule) stays
    and "lung fields" is read beside it; "left atrial myxoma" is the left atrium's and an atrial myxoma, "left lung
    field" the left lung's field. "both lungs" is written plural; "right atrium of the heart" keeps its heart (a
    name across "of" is another phrase's).

    >>> trie = {"both": {"lung": {_END: ()}}, "lung": {"field": {_END: ()}}}
    >>> keys, tokens = ["both", "lung", "field"], [(0, 4, "both"), (5, 9, "lung"), (10, 16, "fields")]
    >>> _quantified_head(keys, lambda k: True, tokens, 0, 1, trie)
    True
    >>> _quantified_head(keys, lambda k: True, [(0, 4, "both"), (5, 10, "lungs"), (11, 17, "fields")], 0, 1, trie)
    False
    """
    if keys[i] not in _QUANTIFIERS or last == i or _PLURAL.search(tokens[last][2]):
        return False
    head = _longest(keys, joined, last, len(keys), trie)[0]
    return head > last and "of" not in keys[last:head]


def _derived_adjective(word: str, key: str) -> bool:
    """Whether a caption's ``word`` is an adjective the lexicon reads as the noun ``key`` ("abdominal" as "abdomen").

    >>> _derived_adjective("abdominal", "abdomen"), _derived_adjective("abdomen", "abdomen")
    (True, False)
    """
    word = word.lower()
    return word != key and word.endswith(ADJECTIVE_ENDINGS)


def _longest(keys: list[str], joined: Callable[[int], bool], i: int, stop: int,
             trie: Mapping) -> tuple[int, tuple[_Entry, ...]]:
    """The last token (-1 if none) and the entries of the longest name of ``trie`` starting at token ``i`` and
    ending before token ``stop``, its words joined only by spaces or hyphens; a determiner after "of" that the
    name does not hold is read past ("lobe of the liver" is the name "Lobe of liver"), as is a position word after
    a side (:data:`_INSERTED_POSITIONS`, and :data:`_TRUNK`). Where one name holds the determiner and another does not
    ("transposition of the great arteries", "Transposition of great vessels"), both are followed, side by side (so
    a name of many "of the" costs one step a word, not two readings a determiner), and of two names ending at the
    same word the one that holds more determiners is taken."""
    alive, last, payload = [trie], -1, ()
    for j in range(i, stop):
        if j > i and not joined(j):
            break
        past_of = j > i and keys[j - 1] == "of" and keys[j] in SENSE_WORDS_KEYED.determiner
        inserted = j == i + 1 and keys[i] in _SIDES and (keys[j] in _INSERTED_POSITIONS or keys[j] == _TRUNK)
        if len(alive) == 1 and not past_of and not inserted:  # the usual step: one name's path, one word on
            child = alive[0].get(keys[j])
            if child is None:
                break
            alive[0] = child
            if _END in child:
                last, payload = j, child[_END]
            continue
        advanced, kept = [], []
        for node in alive:
            child = node.get(keys[j])
            if child is not None:
                advanced.append(child)
            if past_of or (inserted and (child is None or keys[j] == _TRUNK)):  # "left distal ureter"
                kept.append(node)
        if not advanced and not kept:
            break
        ended = next((node for node in advanced if _END in node), None)
        if ended is not None:
            last, payload = j, ended[_END]
        alive = list({id(node): node for node in advanced + kept}.values())
    return last, payload


def extract(caption: str, dictionary: ConceptDictionary) -> frozenset[str]:
    """The concepts ``caption`` mentions outside every negated scope.

    >>> d = ConceptDictionary.build({"C0019080": "Hemorrhage", "C0032326": "Pneumothorax",
    ...                              "C0032227": "Pleural effusion", "C0040405": "X-Ray Computed Tomography"})
    >>> sorted(extract("CT of the brain without hemorrhage", d))
    ['C0040405']
    >>> sorted(extract("no pneumothorax, no pleural effusion", d))
    []
    >>> sorted(extract("CT shows a large hemorrhage", d))
    ['C0019080', 'C0040405']
    """
    return frozenset(entry.concept for _, _, entry, negated in _token_mentions(caption, dictionary)[1] if not negated)


def merged_names(sources: Iterable[Mapping[str, str]]) -> tuple[dict[str, str], dict[str, list[str]]]:
    """Concept names from several sources (names files, a KG's names): an ID keeps the name of the first source
    that names it, and another source's different name for it becomes its synonym, once.

    >>> merged_names([{"C1": "Vein"}, {"C1": "Veins", "C2": "Blood vessel"}, {"C1": "Veins"}])
    ({'C1': 'Vein', 'C2': 'Blood vessel'}, {'C1': ['Veins']})
    """
    names: dict[str, str] = {}
    synonyms: dict[str, list[str]] = {}
    for source in sources:
        for concept, name in source.items():
            if concept not in names:
                names[concept] = name
            elif name != names[concept] and name not in synonyms.get(concept, ()):
                synonyms.setdefault(concept, []).append(name)
    return names, synonyms


def merged_synonyms(*sources: Mapping[str, Iterable[str]]) -> dict[str, list[str]]:
    """ID -> every synonym the sources give it, in their order (a lone string is one synonym).

    >>> merged_synonyms({"C1": ["Vena"]}, {"C1": ("Veins",), "C2": "Vessel"})
    {'C1': ['Vena', 'Veins'], 'C2': ['Vessel']}
    """
    merged: dict[str, list[str]] = {}
    for source in sources:
        for concept, more in source.items():
            merged.setdefault(concept, []).extend([more] if isinstance(more, str) else more)
    return merged


def extract_collection(captions: Mapping[str, str], dictionary: ConceptDictionary,
                       progress: Callable[[float], None] | None = None, workers: int = 1) -> ConceptSets:
    """The concept set of each caption (:func:`extract`), in the captions' order, calling ``progress`` with the
    fraction done after each block of :data:`PROGRESS_BLOCK` captions. With ``workers`` other than 1 (0 = one per
    core) and at least :data:`PARALLEL_MINIMUM` captions, blocks are read by that many local worker processes, each
    with its own copy of the dictionary (rebuilt from its recipe): the same sets in the same order, as every caption
    is read alone.

    >>> d = ConceptDictionary.build({"C0041618": "Ultrasonography", "C0022646": "Kidney"})
    >>> sets = extract_collection({"a": "US of the kidneys", "b": "No kidney seen."}, d)
    >>> sets.ids, [sorted(s) for s in sets.sets]
    (('a', 'b'), [['C0022646', 'C0041618'], []])
    """
    if not isinstance(captions, Mapping):
        raise ParameterError(f"captions must map image IDs to captions, got {type(captions).__name__}")
    count = worker_count(workers)
    ids = tuple(captions)
    if count > 1 and len(ids) >= PARALLEL_MINIMUM:
        return ConceptSets(ids, _extracted_by_workers([captions[i] for i in ids], dictionary, progress, count),
                           "extracted concepts")
    sets: list[frozenset[str]] = []
    for position, image_id in enumerate(ids, 1):
        sets.append(extract(captions[image_id], dictionary))
        if progress is not None and (position % PROGRESS_BLOCK == 0 or position == len(ids)):
            progress(position / len(ids))
    return ConceptSets(ids, tuple(sets), "extracted concepts")


#: The fewest captions worth local worker processes: below it, starting them (each imports the extractor and
#: rebuilds the dictionary, about a second) costs more than it saves.
PARALLEL_MINIMUM = 20_000
# The dictionary of this worker process (_install_dictionary).
_WORKER_DICTIONARY: list[ConceptDictionary] = []


def _install_dictionary(dictionary: ConceptDictionary) -> None:
    _WORKER_DICTIONARY[:] = [dictionary]


def _extract_block(texts: list[str]) -> list[frozenset[str]]:
    return [extract(text, _WORKER_DICTIONARY[0]) for text in texts]


def _extracted_by_workers(texts: list[str], dictionary: ConceptDictionary, progress: Callable[[float], None] | None,
                          workers: int) -> tuple[frozenset[str], ...]:
    """The sets of ``texts`` read block by block (:data:`PROGRESS_BLOCK` captions) by local worker processes,
    started as the engine starts its own (:func:`~evalcore.processes.process_context`: never a plain fork of a
    process that may run threads), whose fork server imports this module once."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    blocks = [texts[start:start + PROGRESS_BLOCK] for start in range(0, len(texts), PROGRESS_BLOCK)]
    found: list[list[frozenset[str]]] = [[] for _ in blocks]
    done = 0
    pool = ProcessPoolExecutor(min(workers, len(blocks)), mp_context=process_context((__name__,)),
                               initializer=_install_dictionary, initargs=(dictionary,))
    try:
        futures = {pool.submit(_extract_block, block): position for position, block in enumerate(blocks)}
        for future in as_completed(futures):
            found[futures[future]] = future.result()
            done += len(found[futures[future]])
            if progress is not None:
                progress(done / len(texts))
    except BrokenProcessPool as error:
        raise CBIRLensError(f"a worker process stopped before reading its captions ({error}): if memory ran out, "
                            "give fewer workers; a script that starts workers needs its work under "
                            "`if __name__ == '__main__':`") from None
    finally:
        # an error or an interrupt stops the blocks not yet begun, rather than reading every caption first
        pool.shutdown(wait=True, cancel_futures=True)
    return tuple(found_set for block in found for found_set in block)


@dataclass(frozen=True)
class Coverage:
    """What an extraction produced: images, those left without a concept (their IDs in collection order), distinct
    concepts, concept occurrences and the most frequent concepts with their image counts (most first, ties by ID)."""

    images: int
    without_concept: tuple[str, ...]
    distinct_concepts: int
    occurrences: int
    most_frequent: tuple[tuple[str, int], ...]

    @property
    def share_without(self) -> float:
        """The share of images left without a concept (0 for no image)."""
        return len(self.without_concept) / self.images if self.images else 0.0

    def examples(self, captions: Mapping[str, str], count: int = 5) -> tuple[tuple[str, str], ...]:
        """The first ``count`` images left without a concept, each with its caption ("" where it has none)."""
        return tuple((image_id, captions.get(image_id, "")) for image_id in self.without_concept[:count])


def coverage(concepts: ConceptSets, top: int = 20) -> Coverage:
    """The coverage report of extracted concept sets (the ``extract`` command's summary line, the Data page's
    counts).

    >>> sets = ConceptSets(("a", "b", "c"), (frozenset({"C2", "C1"}), frozenset(), frozenset({"C1"})))
    >>> report = coverage(sets, top=1)
    >>> report.without_concept, report.distinct_concepts, report.occurrences, report.most_frequent
    (('b',), 2, 3, (('C1', 2),))
    >>> round(report.share_without, 3), report.examples({"b": "Normal study."})
    (0.333, (('b', 'Normal study.'),))
    """
    if not isinstance(concepts, ConceptSets):
        raise ParameterError(f"coverage takes ConceptSets, got {type(concepts).__name__}")
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise ParameterError(f"top must be a whole number of at least 0, got {top!r}")
    counts = Counter(concept for concept_set in concepts.sets for concept in concept_set)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:top]
    return Coverage(len(concepts), tuple(i for i, s in zip(concepts.ids, concepts.sets) if not s), len(counts),
                    sum(counts.values()), tuple(ranked))
