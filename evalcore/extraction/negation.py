"""Negated mentions in caption text: the NegEx rule (Chapman et al. 2001) with the ConText cue lists (Harkema et al. 2009).

Chapman W.W., Bridewell W., Hanbury P., Cooper G.F., Buchanan B.G. "A simple algorithm for identifying negated
findings and diseases in discharge summaries", J Biomed Inform 34(5):301-310, 2001. Harkema H., Dowling J.N.,
Thornblade T., Chapman W.W. "ConText: an algorithm for determining negation, experiencer, and temporal status from
clinical reports", J Biomed Inform 42(5):839-851, 2009. The rule, per sentence:

- a *pre-negation* cue ("no", "without", "absence of", "disappearance of", ...) negates what follows it, up to a
  scope terminator ("but", "however", "due to", ";", ...), another cue, a preposition of place
  (:data:`PLACE_PREPOSITIONS`: "no bleeding *in* the aorta" denies the bleeding, not the aorta) or
  :data:`MAX_SCOPE_WORDS` words, whichever comes first;
- a *post-negation* cue ("was ruled out", "not shown", "no longer seen", ...) negates what precedes it, back to the
  sentence's start, a terminator or :data:`MAX_SCOPE_WORDS` words, its subject read before a place it is at ("the
  nodule in the fourth vertebra was absorbed"; a place before a comma opens the sentence: "at this location, the
  duct is expected to ...") and from an article after a comma ("at the 32nd week of gestation, the cyst was no
  longer visible"); a bracketed cue denies the phrase after the last place before it ("draining into the vena cava
  (not shown)"), unless that phrase is only the examination the thing was seen on ("a thrombus on CT (not
  depicted)");
- a *pseudo-negation* ("no change", "not only", "without change", ...) looks like a cue but negates nothing;
- a *continuation* ("consistent with", "compatible with", ...) holds a terminator's word but ends no scope ("no
  findings consistent with pneumonia" denies the pneumonia);
- a *hypothetical* cue ("if", "follow-up with", "is recommended", "should be considered", ...) scopes like a
  negation: what it names is not stated of this image, so it is not extracted either;
- a *history* cue ("history of", "who presented with", "complaining of", "admitted with", ...; ConText's historical
  triggers) scopes as a hypothetical one does: the patient's history or presenting complaint is not what the image
  shows ("a woman who presented with recurrent oedema of the left leg": no oedema on her abdominal CT), but where
  an arrow or asterisk in its words points at what it names ("presented with a ruptured cyst (arrows)");
- an *other-exam* cue ("seen on", "corresponding to", "previous", ...) opens a forward scope that names an
  examination other than the one shown ("an ultrasound of the lesion *identified on the mammogram*"), up to the
  next cue of any kind: it denies nothing but an imaging modality, and that only where the caption names another
  modality as the image (:func:`evalcore.extraction.extractor.mentions`), so :func:`negated_spans` leaves it out;
  such cues are read apart, so the words they hold still act as the NegEx cues they are ("seen *on* the liver");
- a denied *state* or part of a thing ends the scope before the thing (:data:`STATE_NOUNS` and the sense words'
  part nouns: "no loosening *of* the screws" denies the loosening, not the screws; "the proximal pole *of* the
  scaphoid is no longer visible" the pole);
- a *prefix* ("non-") denies only the word it is joined to by its hyphen or a space, and the words hyphenated to
  that one ("*non-calcified* nodule", "a *non-COVID-19* patient", "non *enlarged* thyroid"; a name that begins with
  it, "non-Hodgkin lymphoma", is the name's own); a *suffix* ("-free") denies the words hyphenated before it ("the
  *tumor*-free forearm");
- an *adjective* cue ("resolved") denies the noun phrase it opens, as its participle: at the sentence's start, after
  a closing bracket, an article, a label's colon, "with", "of" or a verb of showing, before a word that can head a
  phrase ("Resolved bilateral adrenal *hematoma*", "CXR with resolved *pneumoperitoneum*"), and nothing elsewhere
  ("the effusion resolved after drainage"); a post-negation cue ending in a participle reads so where it opens a
  phrase ("Disappeared submuscular *pneumothorax*");
- a sentence after the caption's first that cites the literature (a bracketed reference number, "[12]", "[4-6]",
  or "et al") and names nothing of the figure (none of the sense words' *figure* class: "arrow", "image", "shows",
  "CT", ...) is a
  *literature* statement, of other patients or of the disease in general (ConText's experiencer "other", Harkema et
  al. 2009): its mentions are not of this image ("Common complications include bowel necrosis [33]"); in a case
  report or discussion pasted as the caption (at least :data:`PASTED_SENTENCES` sentences and
  :data:`PASTED_CHARACTERS` characters) so is every sentence after the first that points at nothing in the image
  (no arrow or asterisk), cited or not;
- a word of partial degree before a negation cue ("almost disappeared", "near-complete resolution of") leaves a
  trace of the thing: no scope;
- a comma before a subject and its verb begins a clause that a forward scope does not cross ("no cerebellar
  lesions, *the brainstem was* well preserved"), so does one before a subject closed by a predicate that affirms it
  (an ``affirmed`` cue of direction ``predicate``: "no midline shift, *subarachnoid hemorrhage noted*"; a list's
  "and" or "or", or another comma, before the predicate keeps the list denied), and a denial ends before a list
  item after a comma that an arrow or asterisk points at ("no pulmonary embolism, pleural effusions with
  atelectasis (grey arrows)"); a prefix ends no other cue's scope ("a history of radiation therapy for
  *non*-Hodgkin lymphoma");
- a removal noun's of-phrase is denied where a cue of an earlier event comes before it within the word limit,
  whatever words stand between ("following a chest wall *resection of* the ninth rib"), or where it is the object
  of a verb of showing ("MRI *demonstrating resection of* tumour"); a removal noun written after its thing is a
  *compound* cue in such a phrase ("after hematoma *removal*"), and one that takes an organ only in part
  ("resection", "excision": direction ``compound-lesion``) denies only a lesion ("after the myxoma *resection*",
  not "after bowel resection": :func:`evalcore.extraction.extractor.mentions`);
- a differential's alternatives are hypothetical: the noun phrases beside a *between* cue ("a hematoma *versus*
  abscess"), but not a head two modifiers share ("cystic versus necrotic lesion") nor two definite things compared
  ("the left artery vs the patent right artery"); a hedged reading's "or" is no differential ("consistent with
  edema or inflammation" states a reading of the image);
- what an examination a bracketed cue says is not shown revealed is that examination's ("A magnetic resonance
  image (not shown) revealed a herniated disc"), unless "this" image is its subject too;
- an abbreviation key ("PSC: primary sclerosing cholangitis") takes the status of the abbreviation's uses: where
  every use lies in a scope, its long form lies in one of the same kind;
- a scope never crosses a sentence boundary; the words of a cue are joined by spaces or a hyphen.

The cue lists are data, ``rules/context_cues.tsv`` (columns cue, kind, direction, source), read by
:func:`read_cues`. Where two cues start at the same word the longest wins ("no longer seen" over "no longer").

A mention is negated when it starts inside a negated scope. :func:`negated_spans` gives the scopes in one pass over
the text's words (cues found by a word trie, each scope at most :data:`MAX_SCOPE_WORDS` words: linear in the
text's length); concept extraction finds the mentions (:func:`evalcore.extraction.extractor.mentions`: names,
synonyms and the imaging vocabulary) and flags those with ``in_spans(scopes, start)``. The explanations read a
concept's flags by :func:`concept_status`: "negated" when every mention of it is, "affirmed" when one is not, which
are exactly the concepts extraction keeps (:func:`evalcore.extraction.extractor.extract`); :func:`sentence_at`
quotes the evidence.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from functools import lru_cache
from heapq import heappop, heappush
from pathlib import Path
from typing import NamedTuple

from evalcore.errors import InputError, ParameterError
from evalcore.extraction.abbreviations import Definition, defined_abbreviations
from evalcore.extraction.lexicon import ADJECTIVE_ENDINGS, normal_token
from evalcore.extraction.rule_files import RULES_FOLDER, Column, read_rule_file, refuse_repeat
from evalcore.extraction.sense import SENSE_WORDS, structure_word

#: Words a scope reaches at most. Chapman et al. counted up to five terms after a cue; a term is often two words
#: ("pleural effusion"), hence six words here.
MAX_SCOPE_WORDS = 6

#: The cue lists shipped with the package.
CUES_FILE = RULES_FOLDER / "context_cues.tsv"

#: What each kind of row may say of its direction: the scope a cue opens (forward, backward, the word a prefix is
#: joined to) or none.
KIND_DIRECTIONS = {"negation": ("forward", "backward", "prefix", "suffix", "compound", "compound-lesion", "adjective"),
                   "hypothetical": ("forward", "backward", "between"),
                   "history": ("forward",), "other exam": ("forward", "after"), "pseudo": ("none",), "terminator": ("none",),
                   "place": ("forward",), "state": ("forward", "evidence"), "affirmed": ("none", "predicate"),
                   "continuation": ("none",),
                   "qualifier": ("none",)}


class Cue(NamedTuple):
    """One row of a cue file: the cue's words (lower case), its kind and direction, and where it comes from."""

    cue: str
    kind: str
    direction: str
    source: str


CUE_COLUMNS = (Column("cue"), Column("kind", allowed=tuple(KIND_DIRECTIONS)), Column("direction"), Column("source"))


def read_cues(path: str | Path) -> tuple[Cue, ...]:
    """The rows of a cue file: a header ``cue, kind, direction, source`` then one tab-separated row per cue, each
    cue once (:func:`~evalcore.extraction.rule_files.read_rule_file`); a bad row raises
    :class:`~evalcore.errors.InputError` naming the file, the line and the column.

    >>> cues = read_cues(CUES_FILE)
    >>> next(c for c in cues if c.cue == "not shown")[1:3]
    ('negation', 'backward')
    """
    cues: dict[str, Cue] = {}
    for row in read_rule_file(path, CUE_COLUMNS):
        words = cue_words(row["cue"])
        if not words:
            raise InputError(str(path), row.line, "column 1 (cue): a cue's words", repr(row["cue"]))
        if words in cues:
            raise refuse_repeat(path, row, CUE_COLUMNS, "cue", "a cue")
        if row["direction"] not in KIND_DIRECTIONS[row["kind"]]:
            raise InputError(str(path), row.line, f"column 3 (direction) of a {row['kind']} cue: "
                             f"{' or '.join(KIND_DIRECTIONS[row['kind']])}", repr(row["direction"]))
        cues[words] = Cue(words, row["kind"], row["direction"], row["source"])
    return tuple(cues.values())


def cue_words(written: str) -> str:
    """A cue's words as a caption's words are read: lower case, a hyphen between two words read as a space (a cue
    matches its words joined by spaces or a hyphen, :data:`_CUE_GAP`: "follow up with" is also "follow-up with").

    >>> cue_words("Non-visualized  ")
    'non visualized'
    """
    return " ".join(written.lower().replace("-", " ").split())


CUES = read_cues(CUES_FILE)


def _listed(kind: str, direction: str) -> tuple[str, ...]:
    return tuple(c.cue for c in CUES if c.kind == kind and c.direction == direction)


PRE_NEGATION = _listed("negation", "forward")
POST_NEGATION = _listed("negation", "backward")
#: Prefixes that deny the word a hyphen joins them to ("non-").
PREFIX_NEGATION = _listed("negation", "prefix")
PSEUDO_NEGATION = _listed("pseudo", "none")
TERMINATORS = _listed("terminator", "none")
HYPOTHETICAL = _listed("hypothetical", "forward")
POST_HYPOTHETICAL = _listed("hypothetical", "backward")
#: ConText's historical triggers ("history of", "who presented with", ...): they scope as a hypothetical cue does.
HISTORY = _listed("history", "forward")
#: Prepositions that introduce where a negated finding would be ("no blood flow *in* the distal aorta", "without
#: bleeding *along* the electrode"): the place is not what is denied, so they end a pre-negation scope. (NegEx was
#: built for findings and diseases; anatomy after such a preposition is its most common false negation in ROCOv2's
#: captions.)
PLACE_PREPOSITIONS = _listed("place", "forward")
#: Removal nouns written after a thing removed whole ("stent *removal*", "hematoma *evacuation*"), which deny it where
#: an other-exam cue that puts the event before the image opens their phrase ("after craniotomy and hematoma
#: evacuation"; direction "after"), and not elsewhere ("before stent removal").
COMPOUND_NEGATION = _listed("negation", "compound")
#: Phrases that hold a terminator's word but end no scope ("consistent with").
CONTINUATIONS = _listed("continuation", "none")
#: Nouns of a state of a thing ("loosening", "displacement", "fracture", ...): in a scope, such a noun followed by
#: "of" ends the scope, as the "of"-phrase names the thing whose state is denied, and the thing is there.
STATE_NOUNS = frozenset(_listed("state", "forward") + _listed("state", "evidence"))
#: Evidential nouns ("finding", "findings"; direction ``evidence``): a state noun whose "of"-phrase is what would be
#: found where the phrase's head names a finding ("without findings of liver *cirrhosis*" denies the cirrhosis), and
#: where the thing is otherwise ("without pathological findings of the ascending aorta" keeps the aorta).
EVIDENCE_KEYS = frozenset(normal_token(word) for word in _listed("state", "evidence"))
#: The suffixes of a disease's or a lesion's name (SPECIALIST Lexicon derivational suffixes of disorders: -itis
#: inflammation, -osis/-iasis condition, -pathy disease, -emia/-aemia blood condition, -ectasis/-ectasia dilatation,
#: -megaly enlargement, -plasia/-trophy growth, -rrhage/-rrhagia bleeding, -oma tumour), in a word of seven letters
#: or more ("cirrhosis", "appendicitis", "bronchiectasis", "hepatomegaly"; no "basis", "dosis" nor "stoma").
#: The organs' words of the part-whole rows (part_wholes.tsv: "lung", "hepatic", "thyroid", ...).
_WHOLE_KEYS = frozenset(normal_token(word) for wholes in SENSE_WORDS.wholes.values() for word in wholes)
DISORDER_SUFFIXES = ("itis", "osis", "oses", "iasis", "pathy", "emia", "aemia", "ectasis", "ectasia", "megaly",
                     "plasia", "trophy", "rrhage", "rrhagia", "oma", "omas", "omata")
#: The state nouns read as caption words are (:func:`~evalcore.extraction.lexicon.normal_token`).
STATE_KEYS = frozenset(normal_token(word) for word in STATE_NOUNS)
#: What ends a scope before an "of"-phrase: a state noun, or a part noun of the sense words ("lobe", "pole", ...),
#: as "the proximal pole of the scaphoid ... no longer visible" denies the pole, not the scaphoid.
_OWNED_KEYS = STATE_KEYS | frozenset(normal_token(word) for word in SENSE_WORDS.part)
#: Words of a state described as present ("complete", "patent", "enlarged", ...): after "and", "with", "while" or a
#: comma they begin a new clause, which a negation's scope does not cross ("no leak and complete occlusion").
AFFIRMED_STATES = frozenset(_listed("affirmed", "none"))
#: Predicates that affirm the subject they close ("noted", "seen", "is present"; direction ``predicate``): after a
#: comma, a subject they close within a few words is a clause of its own, which a denial's scope does not cross ("no
#: midline shift, subarachnoid hemorrhage noted": :func:`_closed_by_a_predicate`).
AFFIRMING_PREDICATES = frozenset(_listed("affirmed", "predicate"))
#: Words that say what a finding is like ("cystic", "ischemic", "malignant", ...): in a scope, such a word before the
#: finding it describes is denied with it ("no *cystic* lesions"), where a structure's word is not ("no *bowel*
#: obstruction": :func:`evalcore.extraction.extractor.mentions`).
QUALIFIERS = frozenset(" ".join(cue.replace("-", " ").split()) for cue in _listed("qualifier", "none"))

#: The figure words that point at a thing in the image ("arrow", "asterisk"): a history phrase that holds one names
#: what the image shows ("a man presented with a ruptured epidermal cyst (arrows)").
_POINTERS = SENSE_WORDS.figure & {"arrow", "arrows", "arrowhead", "arrowheads", "asterisk"}
#: A citation of the literature: a bracketed reference number or list ("[12]", "[4,5,6]", "[27-29]") or "et al".
_CITATION = re.compile(r"\[[ \t]*+\d{1,3}(?:[ \t]*+[,\u2013\u2014-][ \t]*+\d{1,3})*+[ \t]*+\]|\bet al\b", re.IGNORECASE)
#: Where the rule of a mention in a literature statement comes from (the evidence names it).
LITERATURE_SOURCE = "a later sentence that cites and names nothing of the figure: ConText's experiencer 'other'"
#: The fewest sentences and characters of a pasted text: a case report or a discussion pasted as the caption, not
#: a figure legend. ROCOv2 valid has 6 captions of both sizes, each a pasted case report or discussion by reading
#: (CBIR Lens, issue 36, eleventh pass); its longest legends are labelled lists (13 to 19 short sentences, under 500
#: characters) or measurement descriptions (under 1,200 characters).
PASTED_SENTENCES, PASTED_CHARACTERS = 10, 1300
#: The direction of a pasted text's scope, its later sentence whole: it spares none of the image's vocabulary, whose
#: modality and region the legend's first sentence says (:func:`evalcore.extraction.extractor.mentions`).
PASTED = "pasted"
#: Where the rule of a mention in a pasted text's later sentence comes from.
PASTED_SOURCE = (f"a sentence after the first of a pasted case report or discussion (at least {PASTED_SENTENCES} "
                 f"sentences and {PASTED_CHARACTERS:,} characters) that points at nothing in the image: ConText's "
                 "experiencer 'other'")

STATUSES = ("affirmed", "negated", "absent")
#: The articles that begin a subject or a list item's phrase ("..., the cyst was no longer visible").
_ARTICLES = ("the", "a", "an")
#: The auxiliaries of a singular subject: a post-negation cue opening with one ("has resolved", "is absent", "was
#: ruled out") denies one subject, not the coordination before it (:func:`_backward_scope`).
_SINGULAR_AUXILIARIES = frozenset({"is", "was", "has"})

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)?|[;:]")
# A sentence ends at ".", "!" or "?" before a space or the end (but the stop of "vs.": "pulmonary edema vs.
# pneumonia" is one differential), at a full stop written against the next sentence's capital ("worsening.SDH =
# ..."; two lower-case letters before it, so "e.g.A" or "2.5" do not), or a blank line.
# (A run of marks is matched whole, from its first mark and without giving any back: a run of thousands of dots
# tried from each of its marks was a scan of the run per mark. Each branch begins with its mark and looks behind
# only after it, so that the search skips to the next mark instead of trying the look-behinds at every character.)
_SENTENCE_END = re.compile(r"[.!?](?<![.!?].)(?<!\b[Vv]s.)[.!?]*+(?=\s|$)|\.(?<=[a-z]{2}\.)(?=[A-Z])|\n(?:[^\S\n]*+\n)++")
#: What may stand between two words of a cue: spaces, or a hyphen ("follow-up with").
_CUE_GAP = re.compile(r"\s+|\s*-\s*")
#: The scope each kind of cue opens: "pre" (forward), "post" (backward), or none of its own.
_GROUPS = {("negation", "forward"): "pre", ("hypothetical", "forward"): "pre", ("negation", "backward"): "post",
           ("hypothetical", "backward"): "post", ("negation", "prefix"): "prefix", ("pseudo", "none"): "pseudo",
           ("terminator", "none"): "stop", ("place", "forward"): "place", ("continuation", "none"): "join",
           ("other exam", "forward"): "exam", ("other exam", "after"): "exam", ("history", "forward"): "pre",
           ("negation", "compound"): "compound", ("hypothetical", "between"): "between",
           ("negation", "suffix"): "suffix", ("negation", "compound-lesion"): "compound",
           ("negation", "adjective"): "adjective"}
_END = ""  # a trie node's key for the group of the cue ending there; no word is empty


def _cue_trie(cues: Iterable[Cue], exams: bool = False) -> dict:
    """A trie over the cues' words, each cue's group at its last word's node: the NegEx cues, or with ``exams`` the
    other-exam cues (state nouns, affirmed states and qualifiers are no cues)."""
    trie: dict = {}
    for cue in cues:
        if cue.kind in ("state", "affirmed", "qualifier") or (cue.kind == "other exam") != exams:
            continue
        node = trie
        for word in cue.cue.split():
            node = node.setdefault(word, {})
        node[_END] = (_GROUPS[cue.kind, cue.direction], cue)
    return trie


_TRIES = (_cue_trie(CUES), _cue_trie(CUES, exams=True))


#: The tries of the last sets of cues read, by the identity of their tuple: a dictionary reads every caption with
#: the same tuple, which is then found without hashing its hundreds of cues per caption.
_TRIES_BY_IDENTITY: dict[int, tuple[tuple[Cue, ...], tuple[dict, dict]]] = {id(CUES): (CUES, _TRIES)}


def _tries_of(cues: tuple[Cue, ...]) -> tuple[dict, dict]:
    """The NegEx and the other-exam cue tries of ``cues``, built once per set of cues (a dictionary built with a
    user's cues reads every caption with them)."""
    known = _TRIES_BY_IDENTITY.get(id(cues))
    if known is not None and known[0] is cues:
        return known[1]
    tries = _tries_of_equal(cues)
    if len(_TRIES_BY_IDENTITY) > 8:
        del _TRIES_BY_IDENTITY[next(key for key in _TRIES_BY_IDENTITY if key != id(CUES))]
    _TRIES_BY_IDENTITY[id(cues)] = (cues, tries)  # the tuple held, so its id is not reused while it is here
    return tries


@lru_cache(maxsize=8)
def _tries_of_equal(cues: tuple[Cue, ...]) -> tuple[dict, dict]:
    return _TRIES if cues == CUES else (_cue_trie(cues), _cue_trie(cues, exams=True))


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence: ends at ".", "!" or "?" followed by a space or the end, or a blank line.

    >>> text = "No fracture. Hematoma seen, 2.5 cm."
    >>> [text[a:b] for a, b in sentence_spans(text)]
    ['No fracture.', ' Hematoma seen, 2.5 cm.']
    """
    spans, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        spans.append((start, end.end()))
        start = end.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def negated_spans(text: str, max_words: int = MAX_SCOPE_WORDS, cues: tuple[Cue, ...] = CUES) -> list[tuple[int, int]]:
    """The negated scopes of ``text`` as sorted, non-overlapping ``(start, end)`` character offsets, read with
    ``cues`` (the shipped ones, or those with a user's added: :func:`with_cues`).

    >>> text = "CT of the brain without hemorrhage"
    >>> [text[a:b] for a, b in negated_spans(text)]
    ['hemorrhage']
    >>> text = "No fracture but a large hematoma; pneumothorax was ruled out. No change in the mass."
    >>> [text[a:b] for a, b in negated_spans(text)]
    ['fracture', 'pneumothorax']
    >>> text = "No loosening of the screws. The nodule is no longer seen. Follow-up with MRI is recommended."
    >>> [text[a:b] for a, b in negated_spans(text)]
    ['loosening', 'The nodule is', 'MRI']
    """
    if not isinstance(text, str):
        raise ParameterError(f"negated_spans takes a text (str), got {type(text).__name__}")
    if isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1:
        raise ParameterError(f"max_words must be a positive integer, got {max_words!r}")
    return _merged([(start, end) for start, end, cue in cue_scopes(text, max_words, cues) if cue.kind != "other exam"])


#: The cue groups that open no scope: terminators, places and pseudo-cues only end or bound the scopes of others.
_SCOPELESS_GROUPS = frozenset({"stop", "place", "pseudo"})


def cue_scopes(text: str, max_words: int = MAX_SCOPE_WORDS, cues: tuple[Cue, ...] = CUES,
               sentences: Sequence[tuple[int, int]] | None = None,
               definitions: Sequence[Definition] | None = None) -> list[tuple[int, int, Cue]]:
    """Each scope of :func:`negated_spans` before they are merged, with the cue that opened it, sentence by sentence
    in the order of their cues, then that sentence's other-exam scopes: what the evidence names as the rule of a
    negated, hypothetical or other-exam mention. ``sentences``: the text's :func:`sentence_spans`, and
    ``definitions`` its :func:`~evalcore.extraction.abbreviations.defined_abbreviations`, where the caller has them
    already (extraction splits and reads each caption once).

    >>> text = "No fracture. Follow-up with MRI is recommended."
    >>> [(text[a:b], cue.cue, cue.kind) for a, b, cue in cue_scopes(text)]
    [('fracture', 'no', 'negation'), ('MRI', 'follow up with', 'hypothetical'), ('MRI', 'is recommended', 'hypothetical')]
    >>> text = "Ultrasound of the lesion identified on the mammogram, no cyst."
    >>> [(text[a:b], cue.kind) for a, b, cue in cue_scopes(text)]
    [('cyst', 'negation'), ('the mammogram', 'other exam')]
    """
    if not isinstance(text, str):
        raise ParameterError(f"cue_scopes takes a text (str), got {type(text).__name__}")
    trie, exam_trie = _tries_of(cues)
    scopes: list[tuple[int, int, Cue]] = []
    spans = sentence_spans(text) if sentences is None else sentences
    pasted = len(spans) >= PASTED_SENTENCES and len(text) >= PASTED_CHARACTERS
    for sentence, ((start, end), tokens) in enumerate(zip(spans, _tokens_by_sentence(text, spans))):
        literature = (_pasted_scope(tokens) if pasted else _literature_scope(text, tokens, start, end)) if sentence else None
        # a continuation ("consistent with") is matched only so that the terminator in it ("with") is not
        found = [cue for cue in _cues(text, tokens, trie) if cue[0] != "join"]
        exams = _cues(text, tokens, exam_trie)
        if not exams and all(group in _SCOPELESS_GROUPS for group, _, _, _ in found):
            scopes.extend([] if literature is None else [literature])  # (five sentences in six: nothing more to read)
            continue
        clauses = _new_clauses(text, tokens)
        exam_scopes = _exam_scopes(tokens, exams, found, clauses, max_words)
        after_event = {last - 1 for _, cue, _, last in exams if cue.direction == "after"}
        places = [first for group, _, first, _ in found if group == "place"]
        # the first "this" of the sentence that names the image ("This image and the AP view (not shown) showed")
        first_this = next((k for k, (word, _, _) in enumerate(tokens[:-1])
                           if word == "this" and tokens[k + 1][0] in SENSE_WORDS.figure), len(tokens))
        phrase_after = _phrase_cue_after(found, len(tokens))
        barrier = 0  # the token after the last cue that ends a post-negation scope
        for index, (group, cue, first, last) in enumerate(found):
            if cue.kind == "negation" and group not in ("prefix", "suffix") and _made_partial(text, tokens, first):
                inside = (0, 0)
            elif group == "pre":
                inside = _forward_scope(text, tokens, cue, last, phrase_after[index], clauses, max_words)
            elif group == "adjective" or (group == "post" and cue.kind == "negation" and tokens[last - 1][0].endswith("ed")
                                          and _opens_a_phrase(text, tokens, first, last)):
                # a participle before its noun ("Resolved adrenal hematoma", "Disappeared pneumothorax"), marked an
                # adjective's so that its denial spares a modifier ("resolved spleen laceration" keeps the spleen)
                cue = cue._replace(direction="adjective")
                inside = _forward_scope(text, tokens, cue, last, phrase_after[index], clauses, max_words) \
                    if group == "post" or _opens_a_phrase(text, tokens, first, last) else (0, 0)
            elif group == "post":
                inside = _backward_scope(text, tokens, first, places, barrier, max_words)
                if _unshown_image_shows(text, tokens, first, last, first_this):
                    # ... and what that image shows, up to the next cue after its verb (itself a terminator)
                    following = phrase_after[index + 1] if phrase_after[index] == last else phrase_after[index]
                    # ("... revealed a herniated disc with compression of the S1 root": the "with" adds to it)
                    following = next((found[k][2] for k in range(index + 1, len(found)) if found[k][2] >= following
                                      and found[k][0] != "prefix" and found[k][1].cue != "with"), len(tokens))
                    scopes.extend(_unshown_findings(text, tokens, last, following, clauses, max_words))
            elif group == "prefix":
                inside = (last, _hyphen_chain_end(text, tokens, last, max_words))
            elif group == "suffix":
                inside = (_hyphen_chain_start(text, tokens, first - 1, max_words), first)
            elif group == "between":
                inside = _alternatives(text, tokens, first, last, barrier)
            elif group == "compound":
                # what a removal noun follows, from the cue of an earlier event that opens its phrase, within the
                # word limit and after the last cue ("after craniotomy and hematoma evacuation"; "before stent
                # removal" denies nothing)
                opener = next((k for k in range(first - 1, max(barrier, first - max_words) - 1, -1)
                               if k in after_event), None)
                if opener is None:  # ... or a verb of showing whose object it is ("MRI demonstrating resection of")
                    opener = _showing_before(tokens, first, barrier)
                if opener is None:
                    inside = (0, 0)
                elif cue.cue.endswith(" of"):
                    # ... or what its of-phrase names ("following a chest wall resection of the ninth rib")
                    inside = _forward_scope(text, tokens, cue, last, phrase_after[index], clauses, max_words)
                else:
                    inside = (opener + 1, first)
            else:
                inside = (0, 0)
            if inside[0] < inside[1]:
                scopes.append((tokens[inside[0]][1], tokens[inside[1] - 1][2], cue))
            if group not in ("pseudo", "place") and cue.direction != "compound-lesion":
                barrier = last  # (a lesion's removal leaves a later one its opener: "after bowel resection and stent removal")
        scopes.extend(exam_scopes)
        if literature is not None:
            scopes.append(literature)
    if scopes:
        scopes.extend(_glossary_scopes(text, scopes, defined_abbreviations(text) if definitions is None else definitions))
    return scopes


def _tokens_by_sentence(text: str, spans: Sequence[tuple[int, int]]) -> list[list[tuple[str, int, int]]]:
    """The tokens of each sentence of ``text`` (``spans``: its :func:`sentence_spans`) as (lower-case word, start,
    end). A sentence ends after a stop or a line break, inside no token, so the text's tokens, read in one pass,
    are cut at the sentences' starts.

    >>> _tokens_by_sentence("No Fracture. Seen; yes", [(0, 12), (12, 22)])
    [[('no', 0, 2), ('fracture', 3, 11)], [('seen', 13, 17), (';', 17, 18), ('yes', 19, 22)]]
    """
    lowered = text.lower()
    if len(lowered) != len(text) or "\u03a3" in text:
        # (each word lowered alone: a few letters lower to two, and a capital sigma lowers by its neighbours, final
        # or not, across a word's end)
        return [[(m.group().lower(), m.start(), m.end()) for m in _TOKEN.finditer(text, start, end)]
                for start, end in spans]
    tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(lowered)]
    if len(spans) == 1 and spans[0] == (0, len(text)):
        return [tokens]  # (most captions: one sentence)
    starts = [start for _, start, _ in tokens]
    return [tokens[bisect_left(starts, start):bisect_left(starts, end)] for start, end in spans]


def _bracketed(text: str, tokens: list[tuple[str, int, int]], first: int) -> bool:
    """Whether an opening bracket stands right before token ``first`` of its sentence ("(not shown)")."""
    return first > 0 and text[tokens[first - 1][2]:tokens[first][1]].rstrip().endswith("(")


def _backward_scope(text: str, tokens: list[tuple[str, int, int]], first: int, places: list[int], barrier: int,
                    max_words: int) -> tuple[int, int]:
    """The tokens a post-negation cue at token ``first`` denies, as (first, past-the-last) token indices.

    The subject is the noun before a place it is at ("thrombus in the vein had disappeared"), as a forward scope ends
    at a place, looked for before the place where the words limit reaches no further ("the nodule in the fourth
    thoracic vertebra was absorbed"); a place before a comma opens the sentence, not the subject ("At this location,
    the thoracic duct is expected to traverse the neck"). A bracketed cue is said of the phrase it follows, after
    the last place before it ("draining into the inferior vena cava (not displayed)"), where that phrase is more
    than the examination the thing was seen on ("A thrombus on CT (not depicted)").
    """
    begin, end = max(barrier, first - max_words), first
    within = places[bisect_left(places, begin):bisect_left(places, first)]  # the places between them
    if _bracketed(text, tokens, first):
        begin = next((place + 1 for place in reversed(within)
                      if not all(tokens[k][0] in SENSE_WORDS.figure or tokens[k][0] in _ARTICLES
                                 for k in range(place + 1, first))), begin)
    else:
        place = next((place for place in within
                      if not any(_comma_before(text, tokens, k) for k in range(place + 1, first))), None)
        if place is not None:
            begin, end = max(barrier, place - max_words), place
    # ... and the state noun heading its subject, if one does ("Invasion of the mass into the ethmoid cells was not
    # detected" denies the invasion), looked for as far back again as the scope reaches.
    state = next((k for k in range(max(barrier, first - 2 * max_words), end - 1) if _is_state(tokens, k)), None)
    if state is not None:
        return min(begin, state), state + 1
    # A comma before an article begins the subject ("performed at the 32nd week of gestation, the allantoic cyst was
    # no longer visible"): the items of a list carry no article; so does a comma within three words after a word of
    # the figure ("CT abdomen, left kidney cannot be visualized"); and "and" before an article where the cue's verb
    # is singular ("a renal abscess and the hydronephrosis has resolved": the verb agrees with one subject, where
    # "the abscess and the effusion have resolved" denies both).
    singular = tokens[first][0] in _SINGULAR_AUXILIARIES
    return next((k for k in range(end - 1, begin, -1)
                 if (_comma_before(text, tokens, k)
                     and (tokens[k][0] in _ARTICLES
                          or any(tokens[j][0] in SENSE_WORDS.figure for j in range(max(begin, k - 3), k))))
                 or (singular and tokens[k][0] in _ARTICLES and tokens[k - 1][0] == "and")), begin), end


#: Where the rule of a mention in a glossary entry comes from (the evidence names it, after the uses' cue).
GLOSSARY_SOURCE = "an abbreviation key is a definition, not a statement, and takes the status of its uses"
_WORDS = re.compile(r"[A-Za-z0-9]++")
#: The lower-case word a space or a hyphen joins to the word before it.
_MODIFIED = re.compile(r"[ \t]*+-?[ \t]*+([a-z]++)\b")


#: The cue of what an image the caption says is not shown revealed (:func:`_unshown_image_shows`).
UNSHOWN_FINDINGS = Cue("not shown", "negation", "forward", "ConText (Harkema et al. 2009): what an examination the "
                       "caption says is not shown revealed is of that examination, not of this image (CBIR Lens, issue "
                       "36, eighteenth pass, ROCOv2 valid negation readings (v28, v32): \"A magnetic resonance image "
                       "(not shown) revealed a herniated intervertebral disc\")")


def _unshown_image_shows(text: str, tokens: list[tuple[str, int, int]], first: int, last: int,
                         first_this: int) -> bool:
    """Whether the bracketed post-negation cue at tokens ``first``..``last - 1`` ("(not shown)") is followed by a
    verb of showing that reports a finding of its own (:data:`_REVEALING`) whose subject it is, and no "this"
    before it in the sentence (its first at token ``first_this``) says this image is a subject too ("This image
    and the anteroposterior view (not shown) showed a normal lumbar spine")."""
    return (first_this > first and last < len(tokens) and _bracketed(text, tokens, first)
            and tokens[last][0] in _REVEALING and text[tokens[last - 1][2]:tokens[last][1]].strip() == ")")


def _unshown_findings(text: str, tokens: list[tuple[str, int, int]], verb: int, following: int, clauses: list[int],
                      max_words: int) -> list[tuple[int, int, Cue]]:
    """The scope of what an examination not shown revealed, after its verb at token ``verb`` ("A magnetic resonance
    image (not shown) revealed *a right central L5-S1 herniated intervertebral disc*"): up to the ``following`` cue,
    a new clause or twice the word limit (a finding's description is long)."""
    begin, end = _forward_scope(text, tokens, UNSHOWN_FINDINGS, verb + 1, following, clauses, 2 * max_words)
    return [(tokens[begin][1], tokens[end - 1][2], UNSHOWN_FINDINGS)] if begin < end else []


#: Verbs by which a caption says what its image shows: a removal they show is done ("MRI *demonstrating resection
#: of* tumour").
_SHOWING = frozenset({"show", "shows", "showed", "showing", "demonstrate", "demonstrates", "demonstrated",
                      "demonstrating", "reveal", "reveals", "revealed", "revealing", "confirm", "confirms", "confirmed",
                      "confirming", "depict", "depicts", "depicted", "depicting"})
#: The verbs of showing that report a finding of their own: a confirmation restates this image's ("Invasive coronary
#: angiography findings (not shown) confirmed occlusion of the RCA" after the CT's "total occlusion").
_REVEALING = _SHOWING - {"confirm", "confirms", "confirmed", "confirming"}
#: The words after which a participle begins a noun phrase as its adjective: articles, a label's colon, "with", "of"
#: and the verbs of showing ("showing *resolved* pneumocephalus", "CXR with *resolved* pneumoperitoneum",
#: "Follow-up CT: *resolved* hematoma").
_PHRASE_OPENERS = frozenset(_ARTICLES) | {":", "with", "of"} | _SHOWING


def _opens_a_phrase(text: str, tokens: list[tuple[str, int, int]], first: int, last: int) -> bool:
    """Whether the cue of tokens ``first``..``last - 1`` is a participle that opens a noun phrase as its adjective:
    its sentence's first word, after a closing bracket ("(b) Resolved hematoma") or one of :data:`_PHRASE_OPENERS`,
    not itself in brackets ("with (disappeared)"), and before a word that can head a phrase (not "Resolved *after*
    chest tube placement", a predicate)."""
    if last >= len(tokens) or tokens[last][0] in SENSE_WORDS.not_head or _bracketed(text, tokens, first):
        return False
    return first == 0 or tokens[first - 1][0] in _PHRASE_OPENERS or ")" in text[tokens[first - 1][2]:tokens[first][1]]


#: How many words may stand between such a verb and the removal it shows ("showing the total removal of").
_SHOWN_REMOVAL_GAP = 2


def _showing_before(tokens: list[tuple[str, int, int]], first: int, barrier: int) -> int | None:
    """The token of a verb of showing (:data:`_SHOWING`) that a removal noun at token ``first`` is the object of,
    past at most :data:`_SHOWN_REMOVAL_GAP` words, each an article, a word of completeness (the sense words'
    ``complete`` class), an adjective by its ending ("successful" is none, so "*successful* removal of" is read) or,
    right before a removal noun written after its thing, that thing ("CT *showing* stent removal"), or None: an image
    that shows a removal shows the thing gone ("MRI *demonstrating* resection of tumour", "showing the total removal
    of the cyst"), where "confirmed upon catheter removal" names when, not what the image shows."""
    # (the verb is a terminator, so the barrier of the last cue stands right after it)
    for k in range(first - 1, max(barrier - 2, first - _SHOWN_REMOVAL_GAP - 2, -1), -1):
        word = tokens[k][0]
        if word in _SHOWING:
            return k
        if not (word in _ARTICLES or word in SENSE_WORDS.complete or word.endswith(("ful", *ADJECTIVE_ENDINGS))
                or (k == first - 1 and word.isalpha() and word not in SENSE_WORDS.not_head)):
            return None
    return None


#: How many words each alternative of a differential holds at most ("acute embolic infarctions", "brain metastases").
_ALTERNATIVE_WORDS = 3


def _modifiers_of_one_head(text: str, tokens: list[tuple[str, int, int]], before: int, after: int) -> bool:
    """Whether the alternatives at tokens ``before`` and ``after`` are modifiers of one head: the one after an
    adjective by its ending, the one before too, or the last word of a hyphenated modifier ("*cystic* versus
    *necrotic* lesion", "multi-*segment* or *viral* pneumonia")."""
    return tokens[after][0].endswith(ADJECTIVE_ENDINGS) and (
        tokens[before][0].endswith(ADJECTIVE_ENDINGS) or (before > 0 and _joined_by_hyphen(text, tokens, before)))


def _alternatives(text: str, tokens: list[tuple[str, int, int]], first: int, last: int,
                  barrier: int) -> tuple[int, int]:
    """The tokens of the two alternatives a differential's cue ("versus", "vs") at tokens ``first``..``last - 1``
    stands between, as (first, past-the-last) token indices: the noun before it with the adjectives before that
    ("a retroperitoneal *hematoma versus abscess*"), and the noun phrase after it, past an indefinite article, up
    to a word of the sense words' ``not_head`` class, a participle (but one a hyphen joins to the word before:
    "versus *non-layering pleural* effusion") or :data:`_ALTERNATIVE_WORDS` words ("infarctions versus *brain
    metastases*"); where the alternatives are adjectives of one head, only the adjectives ("*cystic versus
    necrotic* lesion": the lesion is stated). A word written apart from the cue by punctuation is no alternative,
    and a definite article after the cue compares two things the image shows ("stenosis of the left artery vs the
    patent right artery"): no scope.

    >>> words = "a large hematoma versus abscess in the pelvis"
    >>> tokens = [(m.group(), m.start(), m.end()) for m in re.finditer(r"\\w+", words)]
    >>> begin, end = _alternatives(words, tokens, 3, 4, 0)
    >>> [w for w, _, _ in tokens[begin:end]]
    ['hematoma', 'versus', 'abscess']
    """
    def phrase_word(k: int) -> bool:
        return tokens[k][0].isalpha() and tokens[k][0] not in SENSE_WORDS.not_head

    def apart(k: int) -> bool:  # (the stop right after the cue is its own: "edema vs. pneumonia")
        return bool(text[tokens[k - 1][2]:tokens[k][1]].strip(" \t-." if k == last else " \t-"))

    if last < len(tokens) and tokens[last][0] == "the":
        return 0, 0  # a comparison of two things the image shows ("stenosis of the left artery vs the patent right")
    begin = first
    if first > barrier and phrase_word(first - 1) and not apart(first):
        begin = first - 1
        while (begin > barrier and first - begin < _ALTERNATIVE_WORDS and phrase_word(begin - 1) and not apart(begin)
               and tokens[begin - 1][0].endswith(ADJECTIVE_ENDINGS)):
            begin -= 1
    article = last < len(tokens) and tokens[last][0] in ("a", "an")
    end = last + article
    if end < len(tokens) and not apart(end) and phrase_word(end) and not (article and apart(last)):
        adjectives = begin == first - 1 and _modifiers_of_one_head(text, tokens, begin, end)
        start = end
        end += 1
        while (not adjectives and end < len(tokens) and end - start < _ALTERNATIVE_WORDS and not apart(end)
               and phrase_word(end)
               and (not tokens[end][0].endswith(("ed", "ing")) or _joined_by_hyphen(text, tokens, end))):
            end += 1
    else:
        end = last  # no alternative after the cue: nor its article
    return (begin, end) if begin < first or end > last else (0, 0)


def _phrase_cue_after(found: list[tuple[str, Cue, int, int]], count: int) -> list[int]:
    """For each cue of ``found``, the first token of the next cue that a forward scope ends at: not a prefix, which
    denies only the word it is joined to inside the phrase ("a history of radiation therapy for *non*-Hodgkin
    lymphoma"); else ``count``. One pass from the end."""
    after, following = [count] * len(found), count
    for index in range(len(found) - 1, -1, -1):
        after[index] = following
        if found[index][0] not in ("prefix", "suffix"):
            following = found[index][2]
    return after


def _forward_scope(text: str, tokens: list[tuple[str, int, int]], cue: Cue, last: int, following: int,
                   clauses: list[int], max_words: int) -> tuple[int, int]:
    """The tokens a forward cue ending before token ``last`` holds: up to the ``following`` cue, a new clause or the
    word limit, read on through a list the limit cuts short and cut after a state noun's "of"."""
    limit = following
    clause = bisect_right(clauses, last)
    if clause < len(clauses):
        limit = min(limit, clauses[clause])
    window = last + max_words
    if window < limit:
        # a patient's complaints and a differential's alternatives are lists joined by "and" ("presented with
        # amenorrhea for 59 days and vaginal bleeding", "the differential remained ..., necrosis and abscess"),
        # denied alternatives one joined by "or"
        window = _through_a_list(text, tokens, last, window, min(limit, window + max_words),
                                 _AND_LISTS if cue.kind in ("history", "hypothetical") else _ALTERNATIVES)
    if cue.kind == "history" and any(tokens[k][0] in _POINTERS for k in range(last, min(limit, last + 2 * max_words))):
        return 0, 0  # an arrow points at what it names in the image ("presented with a ruptured cyst (arrows)")
    begin, end = _until_state(tokens, last, min(limit, window))
    if cue.kind == "negation":
        end = _before_a_pointed_item(text, tokens, begin, end, min(len(tokens), end + 2 * max_words))
    return begin, end


def _before_a_pointed_item(text: str, tokens: list[tuple[str, int, int]], begin: int, end: int, stop: int) -> int:
    """Where a denial's scope ``begin``..``end`` ends before a list item after a comma that an arrow or asterisk
    points at before the next comma, looked for up to token ``stop`` ("no pulmonary embolism, pleural effusions with
    basilar atelectasis (demonstrated by grey arrows)"): what the image points at is there."""
    for k in range(begin + 1, end):
        if _comma_before(text, tokens, k):
            item = k
            while item < stop and (item == k or not _comma_before(text, tokens, item)):
                if tokens[item][0] in _POINTERS:
                    return k
                item += 1
    return end


def _glossary_scopes(text: str, scopes: list[tuple[int, int, Cue]],
                     definitions: Sequence[Definition]) -> list[tuple[int, int, Cue]]:
    """A scope over each glossary entry of ``text``, short form and long form ("PSC: primary sclerosing cholangitis";
    :func:`~evalcore.extraction.abbreviations.defined_abbreviations`) whose short form the caption uses outside its
    glossary entries only inside ``scopes``, with the kind of the cue over its first use: "a known case of PSC ...
    PSC: primary sclerosing cholangitis" is history, "shows no ARPHD ... ARPHD, aberrant right posterior hepatic
    duct" a negation (CBIR Lens, issue 36, eleventh pass: ROCOv2 valid readings). A short form used nowhere else
    keeps its entry: the key names what the figure labels."""
    entries = [definition for definition in definitions if definition.glossary]
    if not entries:
        return []
    shorts = {definition.short for definition in entries}
    # each entry from its short form to its long form's end (in text order: definitions are sorted by their
    # long forms, and an entry's short form comes right before its long form)
    keyed = [(text.rfind(definition.short, 0, definition.start), definition.end) for definition in entries]
    starts = [start for start, _ in keyed]
    uses: dict[str, list[int | None]] = {}  # None: a use that modifies the noun after it
    for word in _WORDS.finditer(text):
        entry = bisect_right(starts, word.start()) - 1
        if word.group() in shorts and not (entry >= 0 and word.start() < keyed[entry][1]):
            # a use that modifies the noun after it is not what a scope over it denies ("resolution of LV thrombi"
            # denies the thrombi): it counts as a use outside every scope
            following = _MODIFIED.match(text, word.end())
            modifies = following is not None and following.group(1) not in SENSE_WORDS.not_head
            uses.setdefault(word.group(), []).append(None if modifies else word.start())
    positions = [position for short in uses for position in uses[short] if position is not None]
    cues = dict(zip(positions, opening_cues(scopes, positions)))
    keys = {}  # a short form all of whose uses lie in scopes -> the cue of its glossary entries' scopes
    for short, used_at in uses.items():
        held = [None if position is None else cues[position] for position in used_at]
        if all(cue is not None for cue in held):
            keys[short] = Cue(short, held[0].kind, "glossary", f"{GLOSSARY_SOURCE}, under {held[0].cue!r}")
    # the entry whole: its short form is as much a use of the key as its long form ("PLSVC: persistent left superior
    # vena cava" after "the PLSVC (not imaged)")
    return [(start, definition.end, keys[definition.short]) for definition, (start, _) in zip(entries, keyed)
            if definition.short in keys]


def _made_partial(text: str, tokens: list[tuple[str, int, int]], first: int) -> bool:
    """Whether a word of partial degree (the sense words' ``partial`` class) comes right before the cue at token
    ``first``, or before a word of its ``complete`` class there: "almost disappeared", "almost *complete*
    disappearance of", "near-complete resolution of" leave a trace of the thing, which no negation denies."""
    before = first - 1
    if before >= 1 and tokens[before][0] in SENSE_WORDS.complete and _CUE_GAP.fullmatch(text, tokens[before - 1][2],
                                                                                          tokens[before][1]):
        before -= 1
    return before >= 0 and tokens[before][0] in SENSE_WORDS.partial and _CUE_GAP.fullmatch(
        text, tokens[before][2], tokens[before + 1][1]) is not None


def _literature_scope(text: str, tokens: list[tuple[str, int, int]], start: int,
                      end: int) -> tuple[int, int, Cue] | None:
    """The scope of a literature statement, the sentence ``start``..``end`` whole (its ``tokens``), where it cites
    (:data:`_CITATION`) and holds no figure word (the sense words' ``figure`` class); else None."""
    citation = _CITATION.search(text, start, end)
    if citation is None or not tokens or any(word in SENSE_WORDS.figure for word, _, _ in tokens):
        return None
    return tokens[0][1], tokens[-1][2], Cue(citation.group().lower(), "literature", "sentence", LITERATURE_SOURCE)


def _pasted_scope(tokens: list[tuple[str, int, int]]) -> tuple[int, int, Cue] | None:
    """The scope of a later sentence of a pasted text (its ``tokens``), whole, where no pointer (:data:`_POINTERS`:
    "arrow", "asterisk") points at a thing in the image: the patient's story, other examinations and the discussion
    are not what the figure shows ("He had undergone laparotomic cholecystectomy", "FMD predominantly involves
    small to median-sized arteries [2]"); else None."""
    if not tokens or any(word in _POINTERS for word, _, _ in tokens):
        return None
    return tokens[0][1], tokens[-1][2], Cue("pasted text", "literature", PASTED, PASTED_SOURCE)


def _exam_scopes(tokens: list[tuple[str, int, int]], exams: list[tuple[str, Cue, int, int]],
                 found: list[tuple[str, Cue, int, int]], clauses: list[int], max_words: int) -> list[tuple[int, int, Cue]]:
    """The scope of each other-exam cue of one sentence: forward, up to the next cue of either kind, a new clause or
    ``max_words`` words."""
    stops = sorted({first for _, _, first, _ in (*found, *exams)} | set(clauses))
    scopes = []
    for _, cue, _, last in exams:
        following = bisect_right(stops, last - 1)
        limit = min(stops[following] if following < len(stops) else len(tokens), last + max_words, len(tokens))
        if last < limit:
            scopes.append((tokens[last][1], tokens[limit - 1][2], cue))
    return scopes


#: The finite verbs that tell a clause of its own after a comma from a list's next item, which carries no verb.
_CLAUSE_VERBS = frozenset({"is", "are", "was", "were", "appears", "appear", "appeared", "remains", "remain",
                           "remained", "has", "have", "had", "shows", "showed", "measures", "measured"})
#: How many words a subject may hold between its article and its verb ("the left kidney was").
_SUBJECT_WORDS = 4
#: How many words after an affirmed state a list's closing ", or" may follow for the state to be one of its items.
_LIST_ITEM_WORDS = 4


def _new_clauses(text: str, tokens: list[tuple[str, int, int]]) -> list[int]:
    """The tokens where a new clause or list item begins, which a forward scope does not cross: an affirmed state
    (:data:`AFFIRMED_STATES`) after "and", "with", "while" or a comma, an article between them or not ("no leak *and
    complete* occlusion", "absent stalk*, small* optic nerves"), but not after a comma where the list's closing ", or"
    follows within :data:`_LIST_ITEM_WORDS` words: an item of the denied alternatives ("no evidence of stenosis,
    *large* vessel occlusion, or aneurysm"); and a list item's number ("(3)", "3)")."""
    starts = []
    for k in range(1, len(tokens)):
        word, begin, end = tokens[k]
        if word in AFFIRMED_STATES:
            article = tokens[k - 1][0] in _ARTICLES and k >= 2  # "and a patent urethra"
            if tokens[k - 1 - article][0] in ("and", "with", "while"):
                starts.append(k - 1 - article)
            elif _comma_before(text, tokens, k - article) and not any(
                    tokens[j][0] in _ALTERNATIVES and _comma_before(text, tokens, j)
                    for j in range(k + 1, min(k + 1 + _LIST_ITEM_WORDS, len(tokens)))):
                starts.append(k - article)
        elif (word.isdigit() or len(word) == 1) and text[end:end + 1] == ")" and text[begin - 1:begin] in ("(", " "):
            starts.append(k)
        elif word in _ARTICLES and _comma_before(text, tokens, k) and any(
                tokens[j][0] in _CLAUSE_VERBS for j in range(k + 2, min(k + 2 + _SUBJECT_WORDS, len(tokens)))):
            starts.append(k)  # "no cerebellar lesions, the brainstem was well preserved": a subject and its verb
        elif _comma_before(text, tokens, k) and _closed_by_a_predicate(text, tokens, k):
            starts.append(k)  # "no midline shift, subarachnoid hemorrhage noted": a subject and its own predicate
    return starts


#: How many words a subject an affirming predicate closes may hold, the predicate's auxiliary with them
#: ("subarachnoid hemorrhage is noted").
_PREDICATE_SUBJECT_WORDS = 5


def _closed_by_a_predicate(text: str, tokens: list[tuple[str, int, int]], k: int) -> bool:
    """Whether token ``k``, after a comma, begins a subject that an affirming predicate (:data:`AFFIRMING_PREDICATES`)
    closes within :data:`_PREDICATE_SUBJECT_WORDS` words, with no word that joins a list (:data:`_AND_LISTS`: a
    predicate after one closes the whole denied list) and no comma between, and the word before the comma no
    adjective: a clause of its own ("no midline shift,
    *subarachnoid hemorrhage noted*"), not the next item of a denied list ("no fracture, dislocation, or effusion
    seen") nor an adjective's partner before one noun ("no intraocular, space-occupying lesions were found").

    >>> text = "no midline shift, subarachnoid hemorrhage noted"
    >>> tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    >>> _closed_by_a_predicate(text, tokens, 3)
    True
    >>> text = "no intraocular, space-occupying lesions were found"
    >>> tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    >>> _closed_by_a_predicate(text, tokens, 2)
    False
    >>> text = "no pneumothorax, or pleural effusion is seen"
    >>> tokens = [(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    >>> _closed_by_a_predicate(text, tokens, 2)
    False
    """
    if tokens[k - 1][0].endswith(ADJECTIVE_ENDINGS):
        return False
    for j in range(k, min(k + 1 + _PREDICATE_SUBJECT_WORDS, len(tokens))):
        if tokens[j][0] in _AND_LISTS or (j > k and _comma_before(text, tokens, j)):
            return False
        if j > k and tokens[j][0] in AFFIRMING_PREDICATES:
            return True
    return False


def _cues(text: str, tokens: list[tuple[str, int, int]], trie: dict) -> list[tuple[str, Cue, int, int]]:
    """(group, cue, first token, token after the last) of each cue in ``tokens``, left to right, the longest cue
    starting at a token winning, a cue's words joined by :data:`_CUE_GAP`; a preposition of place inside a
    hyphenated word ("left-to-right") is none, and a prefix is one only where a hyphen or a space joins it to the
    next word ("non-calcified", "non enlarged"), a suffix only where a hyphen joins it to the word before
    ("tumor-free")."""
    cues, i, count = [], 0, len(tokens)
    while i < count:
        if tokens[i][0] not in trie:  # (most words begin no cue)
            i += 1
            continue
        node, found, j = trie, None, i
        while j < count:
            child = node.get(tokens[j][0])
            if child is None or (j > i and not _CUE_GAP.fullmatch(text, tokens[j - 1][2], tokens[j][1])):
                break
            node = child
            j += 1
            if _END in node:
                found = (*node[_END], i, j)
        if found and found[0] == "place" and _hyphenated(text, tokens, found[2], found[3]):
            found = None
        if found and found[0] == "prefix" and not (found[3] < len(tokens) and text[tokens[found[3] - 1][2]:
                                                                                tokens[found[3]][1]] in ("-", " ")):
            found = None
        if found and found[0] == "suffix" and not (found[2] > 0 and _joined_by_hyphen(text, tokens, found[2])):
            found = None
        if found:
            cues.append(found)
            i = found[3]
        else:
            i += 1
    return cues


#: What may stand between the items of a list: spaces, commas, hyphens.
_LIST_GAP = re.compile(r"[\s,\-]*")


#: The words that join the last item of a list of denied alternatives, and of a patient's complaints or a
#: differential's alternatives.
_ALTERNATIVES = ("or", "nor")
_AND_LISTS = ("or", "nor", "and")


def _through_a_list(text: str, tokens: list[tuple[str, int, int]], start: int, end: int, bound: int,
                    joins: tuple[str, ...] = _ALTERNATIVES) -> int:
    """Where a scope of the tokens from ``start`` that its word limit ends at token ``end`` ends instead when a list
    runs on there: through the item after the list's "or", "nor", "such as" or "as well as" ("no signs of
    demyelination, fracture deformity, traumatic subluxation, or compressive myelopathy"; "no renal vein involvement
    (arrow) or distant metastatic foci"; "no acute intracranial hemorrhage or large territorial infarct"; "without
    secondary signs of ischemia such as surrounding free fluid"; "a total absence of right internal and external
    carotid arteries as well as left extracranial carotid arteries"), the "or" among the last three words the limit
    let in or after them before token ``bound``, the words after the limit joined only by spaces, commas and hyphens;
    else ``end``."""
    k = max(start, end - 3)  # the list's "or" may be among the last three words the limit let in
    while k < bound and (k < end or _LIST_GAP.fullmatch(text, tokens[k - 1][2], tokens[k][1])):
        if (tokens[k][0] in joins or (tokens[k][0] == "as" and k > start and tokens[k - 1][0] == "such")
                or (tokens[k][0] == "as" and k - 2 >= start and tokens[k - 1][0] == "well" and tokens[k - 2][0] == "as")) \
                and k + 1 < bound:
            item = k + 1
            while item + 1 < bound and _CUE_GAP.fullmatch(text, tokens[item][2], tokens[item + 1][1]):
                item += 1
            return max(end, item + 1)
        k += 1
    return end


def _comma_before(text: str, tokens: list[tuple[str, int, int]], k: int) -> bool:
    """Whether a comma stands between token ``k - 1`` and token ``k``."""
    return "," in text[tokens[k - 1][2]:tokens[k][1]]


def _hyphenated(text: str, tokens: list[tuple[str, int, int]], first: int, after: int) -> bool:
    """Whether tokens ``first``..``after - 1`` are joined by a hyphen to the word before or after them."""
    before = "-" in text[tokens[first - 1][2]:tokens[first][1]] if first > 0 else False
    return before or (after < len(tokens) and "-" in text[tokens[after - 1][2]:tokens[after][1]])


def _joined_by_hyphen(text: str, tokens: list[tuple[str, int, int]], k: int) -> bool:
    """Whether token ``k`` follows the token before it after nothing but a hyphen ("non-calcified")."""
    return text[tokens[k - 1][2]:tokens[k][1]] == "-"


def _hyphen_chain_end(text: str, tokens: list[tuple[str, int, int]], k: int, limit: int) -> int:
    """The token after the last of the words hyphenated to token ``k`` and each other ("COVID-19" of "non-COVID-19"),
    at most ``limit`` words (a chain of thousands, each word after a prefix, is read in linear time)."""
    stop = min(len(tokens), k + limit)
    k += 1
    while k < stop and _joined_by_hyphen(text, tokens, k):
        k += 1
    return k


def _hyphen_chain_start(text: str, tokens: list[tuple[str, int, int]], k: int, limit: int) -> int:
    """The first of the words hyphenated to token ``k`` and each other before it ("disease" of "disease-free"), at
    most ``limit`` words."""
    stop = max(0, k - limit + 1)
    while k > stop and _joined_by_hyphen(text, tokens, k):
        k -= 1
    return k


def _is_state(tokens: list[tuple[str, int, int]], k: int, stop: int | None = None) -> bool:
    """Whether token ``k`` is a state noun or a part noun, read as a caption's words are matched (:func:`normal_token`:
    its plural, Latin ones included), followed by "of" ("loosening of", "fractures of", "thrombi of", "pole of"), and
    not an evidential noun whose "of"-phrase, before token ``stop``, names a finding (:func:`_names_what_is_found`)."""
    if k + 1 >= len(tokens) or tokens[k + 1][0] != "of":
        return False
    key = normal_token(tokens[k][0])
    if key in EVIDENCE_KEYS and stop is not None and _names_what_is_found(tokens, k + 2, stop):
        return False
    return key in _OWNED_KEYS


def names_a_disorder(word: str) -> bool:
    """Whether a lower-case ``word`` names a disorder or a lesion: a state noun of the cue lists ("lesion",
    "hemorrhage", "mass"), a lesion of the sense words or a disorder by its suffix (:data:`DISORDER_SUFFIXES`).

    >>> [names_a_disorder(word) for word in ("cirrhosis", "appendicitis", "lesions", "hepatomegaly", "aorta", "basis")]
    [True, True, True, True, False, False]
    """
    key = normal_token(word)
    return key in STATE_KEYS or key in SENSE_WORDS.lesion or (len(word) >= 7 and word.endswith(DISORDER_SUFFIXES))


def _names_what_is_found(tokens: list[tuple[str, int, int]], first: int, stop: int) -> bool:
    """Whether the "of"-phrase from token ``first`` (to a preposition, a conjunction, a non-word or token ``stop``,
    at most :data:`MAX_SCOPE_WORDS` words) has a disorder's name as its head, its last word
    (:func:`names_a_disorder`): "findings of liver *cirrhosis*", "finding of cavity *lesions*"; not "findings of the
    ascending *aorta*"."""
    head = None
    for k in range(first, min(stop, first + MAX_SCOPE_WORDS)):
        word = tokens[k][0]
        if not word.isalpha() or word in PLACE_PREPOSITIONS or word in ("of", "and", "or", "with", "to", "for"):
            break
        head = word
    if head is None:
        return False
    if names_a_disorder(head):
        return True
    # a definite thing ("of *the* ascending aorta") or a structure's word is where the findings would be
    key = normal_token(head)
    return tokens[first][0] not in SENSE_WORDS.determiner and not structure_word(key, SENSE_WORDS) \
        and key not in SENSE_WORDS.part and key not in _WHOLE_KEYS


def _until_state(tokens: list[tuple[str, int, int]], begin: int, stop: int) -> tuple[int, int]:
    """Tokens ``begin`` to ``stop`` of a forward scope, cut after a state noun followed by "of"."""
    return begin, next((k + 1 for k in range(begin, stop) if _is_state(tokens, k, stop)), stop)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def with_cues(added: Iterable[Cue]) -> tuple[Cue, ...]:
    """The shipped cues with ``added`` (a user's), an added cue replacing a shipped one of the same words.

    >>> cues = with_cues([Cue("not called", "negation", "backward", "our radiologists")])
    >>> len(cues) == len(CUES) + 1, cues[-1].cue
    (True, 'not called')
    """
    replaced = {cue.cue: cue for cue in added}
    if not replaced:
        return CUES
    return tuple(replaced.pop(cue.cue, cue) for cue in CUES) + tuple(replaced.values())


def first_scopes(positions: Sequence[int], scopes: Sequence[tuple[int, int, Cue]]) -> list[Cue | None]:
    """The cue of the first of ``scopes`` (in their order) that holds each character position, or None: one sweep
    over the positions in order, the scopes begun kept in a heap by their order (linear in the text, where a scan of
    every scope for every position grew with its square).

    >>> no, seen = Cue("no", "negation", "forward", ""), Cue("seen on", "other exam", "forward", "")
    >>> [cue and cue.cue for cue in first_scopes([5, 0, 12, 30, 22], [(3, 20, no), (10, 25, seen)])]
    ['no', None, 'no', None, 'seen on']
    """
    order = sorted(range(len(positions)), key=positions.__getitem__)
    by_start = sorted(range(len(scopes)), key=lambda index: scopes[index][0])
    begun: list[tuple[int, int]] = []  # (a scope's index, its end)
    found: list[Cue | None] = [None] * len(positions)
    following = 0
    for at in order:
        position = positions[at]
        while following < len(by_start) and scopes[by_start[following]][0] <= position:
            index = by_start[following]
            heappush(begun, (index, scopes[index][1]))
            following += 1
        while begun and begun[0][1] <= position:
            heappop(begun)  # ended before this position, and so before every later one
        found[at] = scopes[begun[0][0]][2] if begun else None
    return found


def opening_cue(scopes: Sequence[tuple[int, int, Cue]], position: int) -> Cue | None:
    """The cue of the first scope holding character ``position`` (a negation before a hypothetical or other-exam
    one at the same place), or None: what the evidence names as the rule of a mention not kept there.

    >>> text = "No fracture."
    >>> opening_cue(cue_scopes(text), 3).cue, opening_cue(cue_scopes(text), 0)
    ('no', None)
    """
    return opening_cues(scopes, [position])[0]


def opening_cues(scopes: Sequence[tuple[int, int, Cue]], positions: Sequence[int]) -> list[Cue | None]:
    """:func:`opening_cue` of each of ``positions``, in one sweep (:func:`first_scopes`)."""
    negations = first_scopes(positions, [scope for scope in scopes if scope[2].kind == "negation"])
    return [negation or cue for negation, cue in zip(negations, first_scopes(positions, scopes))]


#: How a mention not kept was left out, by the kind of the cue that opened its scope (:func:`status_from_cue`).
DENIAL_STATUSES = ("negated", "hypothetical", "history", "other exam", "literature")


def status_from_cue(negated: bool, cue: Cue | None) -> str:
    """A mention's status in the evidence: "kept" where it is not ``negated``, else how it was left out, by the cue
    opening its scope (:func:`opening_cue`): the cue's kind where it is one of :data:`DENIAL_STATUSES`, else
    "negated" (a negation, a prefix, or a denial reached through a compound's head).

    >>> status_from_cue(False, None), status_from_cue(True, Cue("if", "hypothetical", "forward", ""))
    ('kept', 'hypothetical')
    >>> status_from_cue(True, None)
    'negated'
    """
    if not negated:
        return "kept"
    return cue.kind if cue is not None and cue.kind in DENIAL_STATUSES else "negated"


def in_spans(spans: Sequence[tuple[int, int]], position: int) -> bool:
    """Whether ``position`` lies in one of the sorted, non-overlapping ``spans``.

    >>> in_spans([(3, 8), (12, 20)], 12), in_spans([(3, 8), (12, 20)], 9)
    (True, False)
    """
    i = bisect_right(spans, (position, float("inf"))) - 1
    return i >= 0 and spans[i][0] <= position < spans[i][1]


def concept_status(negated: Iterable[bool]) -> str:
    """A concept's status in a text from the negation flags of its mentions there: "absent" without a mention,
    "negated" when every mention lies in a negated scope, else "affirmed" (one affirmed mention shows it, as
    extraction keeps a concept mentioned once negated and once not).

    >>> concept_status([]), concept_status([True, True]), concept_status([True, False])
    ('absent', 'negated', 'affirmed')
    """
    flags = list(negated)
    return "absent" if not flags else "negated" if all(flags) else "affirmed"


#: The most characters :func:`sentence_at` quotes on each side of its position: a caption of one endless sentence
#: would otherwise be quoted whole for every mention in it (its square in an evidence file).
QUOTE_REACH = 200


def sentence_at(text: str, position: int) -> str:
    """The sentence of ``text`` (:func:`sentence_spans`) holding character ``position``, stripped ("" outside the
    text): the evidence quoted for a negated mention starting there; of a longer sentence, the words within
    :data:`QUOTE_REACH` characters of the position, "…" marking what is left out.

    >>> sentence_at("CT of the head. Without bleeding along the electrode. No change.", 24)
    'Without bleeding along the electrode.'
    >>> quoted = sentence_at("No bleeding" + ", no bleeding" * 100 + ".", 600)
    >>> quoted[:13], quoted[-13:], len(quoted) <= 2 * QUOTE_REACH + 2
    ('…no bleeding,', 'bleeding, no…', True)
    """
    if not isinstance(text, str) or isinstance(position, bool) or not isinstance(position, int):
        raise ParameterError(f"sentence_at takes a text and a character position, got {type(text).__name__} and "
                             f"{type(position).__name__}")
    spans = _sentences(text)
    i = bisect_right(spans, (position, float("inf"))) - 1
    if i < 0 or position >= spans[i][1]:
        return ""
    start, end = spans[i]
    if position - start > QUOTE_REACH:
        start = text.find(" ", position - QUOTE_REACH, position) + 1 or position - QUOTE_REACH
    if end - position > QUOTE_REACH:
        cut = text.rfind(" ", position, position + QUOTE_REACH)
        end = cut if cut > position else position + QUOTE_REACH
    quoted = text[start:end].strip()
    return ("…" if start > spans[i][0] else "") + quoted + ("…" if end < spans[i][1] else "")


@lru_cache(maxsize=4)
def _sentences(text: str) -> list[tuple[int, int]]:
    # The explanations quote a sentence for each mention of a caption: split the caption once, not once a mention.
    return sentence_spans(text)
