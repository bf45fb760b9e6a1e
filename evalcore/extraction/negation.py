"""Negated mentions in caption text: a NegEx-style rule (Chapman et al. 2001).

Chapman W.W., Bridewell W., Hanbury P., Cooper G.F., Buchanan B.G. "A simple algorithm for identifying negated
findings and diseases in discharge summaries", J Biomed Inform 34(5):301-310, 2001. The rule, per sentence:

- a *pre-negation* cue ("no", "without", "absence of", "negative for", ...) negates what follows it, up to a scope
  terminator ("but", "however", "which", ";", ...), another cue, a preposition of place (:data:`PLACE_PREPOSITIONS`:
  "no bleeding *in* the aorta" denies the bleeding, not the aorta) or :data:`MAX_SCOPE_WORDS` words, whichever
  comes first;
- a *post-negation* cue ("was ruled out", "is absent", "not seen", ...) negates what precedes it, back to the
  sentence's start, a terminator or :data:`MAX_SCOPE_WORDS` words;
- a *pseudo-negation* ("no change", "not only", "without change", ...) looks like a cue but negates nothing;
- a scope never crosses a sentence boundary.

A mention is negated when it starts inside a negated scope. :func:`negated_spans` gives the scopes (one pass over
the text); concept extraction finds the mentions (:func:`evalcore.extraction.extractor.mentions`: names, synonyms and the
imaging vocabulary) and flags those with ``in_spans(scopes, start)``. The explanations read a concept's flags by
:func:`concept_status`: "negated" when every mention of it is, "affirmed" when one is not, which are exactly the
concepts extraction keeps (:func:`evalcore.extraction.extractor.extract`); :func:`sentence_at` quotes the evidence.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from evalcore.errors import ParameterError

#: Words a scope reaches at most. Chapman et al. counted up to five terms after a cue; a term is often two words
#: ("pleural effusion"), hence six words here.
MAX_SCOPE_WORDS = 6

PRE_NEGATION = ("no", "not", "without", "absence of", "absent", "negative for", "free of", "ruled out",
                "rules out", "no evidence of", "no signs of", "no sign of", "no evidence for",
                "denies", "denied", "never", "nor", "neither", "cannot see", "lack of", "lacks",
                "resolution of", "not demonstrate", "did not show", "does not show", "no definite", "no obvious")
POST_NEGATION = ("was ruled out", "were ruled out", "is ruled out", "are ruled out", "has been ruled out",
                 "is absent", "are absent", "was absent", "were absent", "unlikely", "not seen", "not visible",
                 "not identified", "not detected", "not present", "were excluded", "was excluded",
                 "is excluded", "are excluded", "was not seen", "were not seen", "is not seen", "are not seen",
                 "has resolved", "have resolved", "disappeared")
PSEUDO_NEGATION = ("no change", "no changes", "not only", "no increase", "no increased", "without change",
                   "without any change", "not necessarily", "no further", "not certain if", "not certain whether",
                   "no significant change", "no interval change", "not rule out", "not ruled out",
                   "not excluded", "not be excluded", "cannot be excluded", "cannot be ruled out",
                   "not be ruled out", "no decrease", "no longer")
TERMINATORS = ("but", "however", "although", "though", "except", "which", "apart from", "aside from", "yet",
               "still", "whereas", "while", ";", ":",
               # A verb of seeing starts a new clause: "CT without contrast showing a discitis".
               "showing", "shows", "showed", "demonstrating", "demonstrates", "demonstrated", "revealing", "reveals",
               "revealed")
#: Prepositions that introduce where a negated finding would be ("no blood flow *in* the distal aorta", "without
#: bleeding *along* the electrode"): the place is not what is denied, so they end a pre-negation scope. (NegEx was
#: built for findings and diseases; anatomy after such a preposition is its most common false negation in ROCOv2's
#: captions.)
PLACE_PREPOSITIONS = ("in", "at", "on", "from", "within", "along", "inside", "near", "around", "into", "through",
                      "throughout", "across", "beside", "adjacent to", "next to")

#: Lexical variants of a name's words, each documented: spelling variants (British and American English) and
#: MeSH entry terms of the descriptor named by the word (MeSH 2023, D006470 Hemorrhage: entry term "Bleeding").
#: Names and synonyms from the loaded names files come first; these only widen a word of them (concept extraction
#: reads each variant as its word, :func:`evalcore.extraction.extractor.normal_token`).
LEXICAL_VARIANTS: dict[str, tuple[str, ...]] = {
    "hemorrhage": ("haemorrhage", "bleeding", "bleed"),
    "hemorrhagic": ("haemorrhagic",),
    "hematoma": ("haematoma",),
    "edema": ("oedema",),
    "tumor": ("tumour",),
    "anemia": ("anaemia",),
    "ischemia": ("ischaemia",),
    "ischemic": ("ischaemic",),
    "esophagus": ("oesophagus",),
}

STATUSES = ("affirmed", "negated", "absent")

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s|$)|\n\s*\n")


def _phrase_pattern(phrases: Iterable[str]) -> str:
    """Alternatives matched as whole words, longest first (so "no evidence of" wins over "no")."""
    parts = []
    for phrase in sorted(set(phrases), key=lambda p: (-len(p), p)):
        if phrase in (";", ":"):
            parts.append(re.escape(phrase))
        else:
            parts.append(r"\b" + r"\s+".join(map(re.escape, phrase.split())) + r"\b")
    return "|".join(parts)


_CUES = re.compile("|".join(f"(?P<{group}>{_phrase_pattern(phrases)})" for group, phrases in
                            (("pseudo", PSEUDO_NEGATION), ("post", POST_NEGATION), ("pre", PRE_NEGATION),
                             ("stop", TERMINATORS), ("place", PLACE_PREPOSITIONS))), re.IGNORECASE)


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


def negated_spans(text: str, max_words: int = MAX_SCOPE_WORDS) -> list[tuple[int, int]]:
    """The negated scopes of ``text`` as sorted, non-overlapping ``(start, end)`` character offsets.

    >>> text = "CT of the brain without hemorrhage"
    >>> [text[a:b] for a, b in negated_spans(text)]
    ['hemorrhage']
    >>> text = "No fracture but a large hematoma; pneumothorax was ruled out. No change in the mass."
    >>> [text[a:b] for a, b in negated_spans(text)]
    ['fracture', 'pneumothorax']
    """
    if not isinstance(text, str):
        raise ParameterError(f"negated_spans takes a text (str), got {type(text).__name__}")
    if isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1:
        raise ParameterError(f"max_words must be a positive integer, got {max_words!r}")
    scopes: list[tuple[int, int]] = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        words = [(m.start() + start, m.end() + start) for m in _WORD.finditer(sentence)]
        cues = [(m.lastgroup, m.start() + start, m.end() + start) for m in _CUES.finditer(sentence)]
        for kind, cue_start, cue_end in cues:
            if kind == "pre":
                limit = min([s for _, s, _ in cues if s >= cue_end] + [end])
                inside = [w for w in words if w[0] >= cue_end and w[1] <= limit][:max_words]
            elif kind == "post":
                limit = max([e for kind_, s, e in cues if kind_ not in ("pseudo", "place") and e <= cue_start]
                            + [start])
                inside = [w for w in words if w[0] >= limit and w[1] <= cue_start][-max_words:]
            else:
                continue
            if inside:
                scopes.append((inside[0][0], inside[-1][1]))
    return _merged(scopes)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


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


def sentence_at(text: str, position: int) -> str:
    """The sentence of ``text`` (:func:`sentence_spans`) holding character ``position``, stripped ("" outside the
    text): the evidence quoted for a negated mention starting there.

    >>> sentence_at("CT of the head. Without bleeding along the electrode. No change.", 24)
    'Without bleeding along the electrode.'
    """
    return next((text[a:b].strip() for a, b in sentence_spans(text) if a <= position < b), "")
