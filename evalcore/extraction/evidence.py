"""Evidence for every extracted concept: one row per mention the extraction found, as ``extract --evidence`` writes
it, so that an extraction can be audited before it is evaluated.

The rows are :meth:`~evalcore.extraction.caption_concepts.CaptionConcepts.mentions_of`, the very mentions the concept
sets were made from (a set is its caption's mentions less the negated ones), so they agree with the sets by
construction: every kept mention's concept is in its image's set, and every concept of a set has a kept mention
(a name, synonym or abbreviation said, or a concept ``assumed`` by a convention).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import NamedTuple

from evalcore.errors import ParameterError
from evalcore.extraction.abbreviations import defined_abbreviations
from evalcore.extraction.caption_concepts import CaptionConcepts, denying_cues
from evalcore.extraction.extractor import Mention
from evalcore.extraction.imaging_vocabulary import STANDARD_VIEW
from evalcore.extraction.negation import Cue, cue_scopes, opening_cue, sentence_at, status_from_cue

#: The columns of an evidence file, in order.
EVIDENCE_COLUMNS = ("image_id", "concept", "start", "end", "words", "matched", "status", "rule")


class EvidenceRow(NamedTuple):
    """One mention: the image, the concept, where in the caption (0-based character offsets, end exclusive, so
    ``words == caption[start:end]``), what matched (name, synonym, abbreviation, assumed, or defined: an
    abbreviation read as the caption defines it), ``kept`` or ``negated``, ``hypothetical``, ``other exam`` or
    ``literature`` (:func:`mention_status`), and the rule that decided (:func:`mention_rule`), or ""."""

    image_id: str
    concept: str
    start: int
    end: int
    words: str
    matched: str
    status: str
    rule: str


def mention_rule(caption: str, mention: Mention, found: Sequence[Mention],
                 scopes: Sequence[tuple[int, int, Cue]] | None = None) -> str:
    """What decided ``mention`` beyond its words matching a name (``found``: all the mentions of ``caption``;
    ``scopes``: its :func:`~evalcore.extraction.negation.cue_scopes`, found again when not given): for a negated
    one, the cue whose scope holds it, with the cue's kind and source, and the sentence; for an assumed one, the
    convention with its source (the region's standard view,
    :data:`~evalcore.extraction.imaging_vocabulary.STANDARD_VIEW`); for an abbreviation read as the caption defines
    it, the definition; else "".

    >>> caption = "No hemorrhage. Radiograph of the abdomen."
    >>> mention_rule(caption, Mention("C0019080", 3, 13, "hemorrhage", True, "name"), [])
    "negation cue 'no' (NegEx (Chapman et al. 2001)) in: No hemorrhage."
    >>> region = Mention("C0000726", 33, 40, "abdomen", False, "abbreviation")
    >>> mention_rule(caption, Mention("C1999039", 33, 40, "abdomen", False, "assumed"), [region])
    "standard view of C0000726: Clark's Positioning in Radiography: the abdomen's basic projection is AP supine"
    """
    cue = opening_cue(cue_scopes(caption) if scopes is None else scopes, mention.start) if mention.negated else None
    return _rule(caption, mention, [m.concept for m in found if (m.start, m.end) == (mention.start, mention.end)], cue)


def _rule(caption: str, mention: Mention, at_its_words: Sequence[str], cue: Cue | None) -> str:
    """:func:`mention_rule` from the concepts mentioned on the same words and the cue whose scope holds it."""
    if mention.negated:
        said = f"{cue.kind} cue '{cue.cue}' ({cited(cue.source)})" if cue else "negated"
        return f"{said} in: {sentence_at(caption, mention.start)}"
    if mention.source == "defined":
        long_form = defined_long_form(caption, mention.text)
        return f"abbreviation the caption defines: {mention.text} = {long_form}" if long_form else \
            "abbreviation the caption defines"
    if mention.source != "assumed":
        return ""
    # The convention's region is the concept matched on the same words (its view rows share their terms).
    regions = [concept for concept in at_its_words
               if concept in STANDARD_VIEW and STANDARD_VIEW[concept][0] == mention.concept]
    return "; ".join(f"standard view of {region}: {STANDARD_VIEW[region][1]}" for region in dict.fromkeys(regions)) \
        or "standard view of the radiograph's region"


def cited(source: str) -> str:
    """What a rule's source cites, without the development notes it goes on with: its text up to the first ": " (a
    source's explanation and examples follow one) and before "(CBIR Lens" (where a row was measured); the rules file
    holds the whole.

    >>> cited('ConText (Harkema et al. 2009) historical triggers: the history is not the image (CBIR Lens, ...)')
    'ConText (Harkema et al. 2009) historical triggers'
    >>> cited('CBIR Lens, issue 36, eighth pass: as "history of"'), cited("our radiologists")
    ('CBIR Lens, issue 36, eighth pass', 'our radiologists')
    """
    return source.split(": ", 1)[0].split(" (CBIR Lens", 1)[0].strip() or source


def defined_long_form(caption: str, short: str) -> str:
    """The long form ``caption`` gives the abbreviation ``short`` (its first definition,
    :func:`~evalcore.extraction.abbreviations.defined_abbreviations`), or "" where it defines none: what a mention
    read as defined stands for.

    >>> defined_long_form("Stenosis of the posterior descending artery (PDA).", "PDA")
    'posterior descending artery'
    """
    span = _definitions(caption).get(short)
    return caption[span[0]:span[1]] if span else ""


@lru_cache(maxsize=4)
def _definitions(caption: str) -> dict[str, tuple[int, int]]:
    # The evidence names a definition for each mention read by it: the caption is read for them once, not per mention.
    definitions: dict[str, tuple[int, int]] = {}
    for definition in defined_abbreviations(caption):
        definitions.setdefault(definition.short, (definition.start, definition.end))
    return definitions


def mention_status(mention: Mention, scopes: Sequence[tuple[int, int, Cue]]) -> str:
    """"kept", or why not: "negated" (a negation cue's scope holds it), "hypothetical" (only a hypothetical cue's
    does: "follow-up with MRI"), "history" (only a history cue's: "who presented with chest pain"), "other exam"
    (only an other-exam cue's: "the lesion seen on the mammogram") or "literature" (only a literature statement's:
    "Common complications include bowel necrosis [33]")."""
    return status_from_cue(mention.negated, opening_cue(scopes, mention.start))


def evidence_rows(found: CaptionConcepts) -> Iterator[EvidenceRow]:
    """Every mention of every caption of ``found``, images in the sets' order, mentions in text order (start, then
    end).

    >>> from evalcore.extraction.caption_concepts import find_caption_concepts
    >>> found = find_caption_concepts({"a": "CT without hemorrhage"}, {"C0040405": "X-Ray Computed Tomography",
    ...                                                               "C0019080": "Hemorrhage"})
    >>> for row in evidence_rows(found):
    ...     print(tuple(row)[1:7], row.rule[:22] or "-")
    ('C0040405', 0, 2, 'CT', 'abbreviation', 'kept') -
    ('C0019080', 11, 21, 'hemorrhage', 'name', 'negated') negation cue 'without'
    """
    if not isinstance(found, CaptionConcepts):
        raise ParameterError(f"evidence_rows takes the concepts found in captions (CaptionConcepts), got "
                             f"{type(found).__name__}")
    return _rows(found)


def _rows(found: CaptionConcepts) -> Iterator[EvidenceRow]:
    for image_id in found.concepts.ids:
        yield from image_rows(found, image_id, found.mentions_of(image_id))


def image_rows(found: CaptionConcepts, image_id: str, mentions: Sequence[Mention]) -> list[EvidenceRow]:
    """The rows of :func:`evidence_rows` of one image, from its caption's ``mentions``
    (:meth:`~evalcore.extraction.caption_concepts.CaptionConcepts.mentions_of`), where the caller has found them
    already (a page that also highlights them reads the caption once).

    >>> from evalcore.extraction.caption_concepts import find_caption_concepts
    >>> found = find_caption_concepts({"a": "No hemorrhage"}, {"C0019080": "Hemorrhage"})
    >>> [(row.words, row.status) for row in image_rows(found, "a", found.mentions_of("a"))]
    [('hemorrhage', 'negated')]
    """
    caption = found.captions.get(image_id, "")
    mentions = sorted(mentions, key=lambda m: (m.start, m.end))
    at_words: dict[tuple[int, int], list[str]] = {}
    for mention in mentions:
        at_words.setdefault((mention.start, mention.end), []).append(mention.concept)
    return [EvidenceRow(image_id, mention.concept, mention.start, mention.end, mention.text, mention.source,
                        status_from_cue(mention.negated, cue),
                        _rule(caption, mention, at_words[mention.start, mention.end], cue))
            for mention, cue in zip(mentions, denying_cues(caption, mentions, found.dictionary.cues))]
