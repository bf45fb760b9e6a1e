"""Concept sets found in a collection's captions, as the dashboard holds them: the extraction with the dictionary
that made it, and which caption words gave each concept (Per-query and Case view).

The extraction itself is :mod:`evalcore.extraction.extractor`'s; this module only keeps what a session needs beside the concept
sets. Mentions are not kept for every caption (80,000 captions hold about a million): the dictionary is kept, and the
mentions of the one caption asked for are found again (:meth:`CaptionConcepts.mentions_of`), which gives the same
mentions as the extraction did, since extraction is :func:`~evalcore.extraction.extractor.mentions` without the negated ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from evalcore.cache_keys import content_digest
from evalcore.data import ConceptSets
from evalcore.errors import ParameterError
from evalcore.extraction.extractor import ConceptDictionary, Mention, extract_collection, mentions
from evalcore.extraction.negation import Cue, cue_scopes, opening_cues, status_from_cue
from evalcore.extraction.user_rules import UserRules

#: What reading one caption costs against adding one name to a dictionary: on ROCOv2 (2-core machine), 1.3 s for its
#: 65,222 names and 1.7 s for its 9,904 captions. It shares a progress bar between the two.
CAPTION_COST_IN_NAMES = 9


@dataclass(frozen=True, eq=False)
class CaptionConcepts:
    """Concept sets found in ``captions`` by ``dictionary`` (built from ``sources``), with a content digest of
    everything they were made from (the captions, names, synonyms and options): two collections with different
    captions never share one."""

    concepts: ConceptSets
    dictionary: ConceptDictionary
    captions: Mapping[str, str]
    sources: tuple[str, ...]
    # What the digest is of, digested on first use: the command line never asks for it, and on 80,000 captions it
    # costs about half a second.
    made_from: tuple = field(repr=False)

    @cached_property
    def digest(self) -> str:
        """The content digest of what the sets were made from (:func:`~evalcore.cache_keys.content_digest`)."""
        return content_digest(self.made_from)

    def mentions_of(self, image_id: str) -> list[Mention]:
        """The mentions in ``image_id``'s caption, negated ones flagged; none for an image without a caption."""
        caption = self.captions.get(image_id)
        return [] if caption is None else mentions(caption, self.dictionary)

    def evidence(self, image_id: str) -> tuple[list[CaptionPiece], dict[str, tuple[Word, ...]]]:
        """``image_id``'s caption in pieces (:func:`caption_pieces`) and the words behind each concept, each with
        how it counted (:func:`concept_words`): what the Per-query and Case view show on request."""
        caption = self.captions.get(image_id, "")
        found = self.mentions_of(image_id)
        statuses = [status_from_cue(mention.negated, cue)
                    for mention, cue in zip(found, denying_cues(caption, found, self.dictionary.cues))]
        return caption_pieces(caption, found), concept_words(found, statuses)


def denying_cues(caption: str, found: Sequence[Mention], cues: tuple[Cue, ...]) -> list[Cue | None]:
    """The cue opening the scope of each of ``found``'s negated mentions in ``caption``
    (:func:`~evalcore.extraction.negation.opening_cue`), None for a kept one: what the evidence names as the rule and
    status of each; the caption's cue scopes are read only where a mention is negated.

    >>> from evalcore.extraction.negation import CUES
    >>> found = [Mention("C1", 0, 2, "CT", False, "abbreviation"), Mention("C2", 11, 21, "hemorrhage", True, "name")]
    >>> [cue and cue.cue for cue in denying_cues("CT without hemorrhage", found, CUES)]
    [None, 'without']
    """
    scopes = cue_scopes(caption, cues=cues) if any(mention.negated for mention in found) else []
    return [cue if mention.negated else None
            for mention, cue in zip(found, opening_cues(scopes, [mention.start for mention in found]))]


def find_caption_concepts(captions: Mapping[str, str], names: Mapping[str, str],
                          synonyms: Mapping[str, Iterable[str]] | None = None, abbreviations: bool = True,
                          sources: tuple[str, ...] = (), progress: Callable[[float, str], None] | None = None,
                          ontology_ids: bool = False, rules: UserRules | None = None, workers: int = 1) -> CaptionConcepts:
    """The concept set of every caption (:func:`~evalcore.extraction.extractor.extract_collection`) with a dictionary of
    ``names``, ``synonyms`` and, with ``abbreviations``, the built-in imaging vocabulary, keeping IDs that are not
    CUIs with ``ontology_ids``, a user's ``rules`` added;
    ``progress(fraction, text)`` follows building the dictionary, then the captions
    block by block; ``workers`` other than 1 reads a large collection on local worker processes (0 = one per core;
    the same sets). The one extraction behind :func:`evalcore.extract_concepts` and the dashboard's.

    >>> found = find_caption_concepts({"a": "CT without hemorrhage", "b": "No finding."},
    ...                               {"C0040405": "X-Ray Computed Tomography", "C0019080": "Hemorrhage"})
    >>> [sorted(s) for s in found.concepts.sets], found.concepts.source
    ([['C0040405'], []], 'extracted concepts')
    >>> [(m.text, m.negated) for m in found.mentions_of("a")]
    [('CT', False), ('hemorrhage', True)]
    """
    if not isinstance(captions, Mapping):
        raise ParameterError(f"captions must map image IDs to captions, got {type(captions).__name__}")
    if synonyms is not None and not isinstance(synonyms, Mapping):
        raise ParameterError(f"synonyms must map concept IDs to lists of names, got {type(synonyms).__name__}")
    # Listed once: an iterator of synonyms is read by the dictionary, the digest and the count alike (one string
    # stays one, for the dictionary to refuse).
    listed = {concept: more if isinstance(more, str) else tuple(more) for concept, more in (synonyms or {}).items()}
    if progress is not None:
        progress(0.0, "Building the dictionary of concept names")
    dictionary = ConceptDictionary.build(names, listed, abbreviations=abbreviations, ontology_ids=ontology_ids,
                                         rules=rules)
    if not dictionary.concepts:
        example = next(iter(names), None)
        raise ParameterError("no concept ID given is a CUI (C and 7 digits"
                             + (f"; found e.g. {example!r}" if example is not None else "; no names given")
                             + "): extraction would find nothing; load concept names with CUIs (CUI,Name or "
                               "MRCONSO.RRF), or turn ontology IDs on (extract --ontology-ids) to extract other IDs")
    made_from = ("caption concepts", captions, names, listed, abbreviations, ontology_ids, rules or UserRules())
    shown = f"Reading {len(captions):,} captions"
    names_count = len(names) + sum(len(more) for more in listed.values())
    built = names_count / max(1, names_count + CAPTION_COST_IN_NAMES * len(captions))
    concepts = extract_collection(captions, dictionary, None if progress is None else
                                  lambda fraction: progress(built + (1 - built) * fraction, shown), workers=workers)
    return CaptionConcepts(concepts, dictionary, captions, sources, made_from)


@dataclass(frozen=True)
class CaptionPiece:
    """A stretch of a caption: the concepts its words gave (``counted``) and those mentioned there in a negated
    scope (``negated``, not counted); both empty for plain text."""

    text: str
    counted: tuple[str, ...] = ()
    negated: tuple[str, ...] = ()


def caption_pieces(caption: str, found: Iterable[Mention]) -> list[CaptionPiece]:
    """``caption`` cut at every mention's start and end, each piece with the concepts of the mentions covering it
    (mentions of different layers of a dictionary may overlap); the pieces join back to the caption.

    >>> pieces = caption_pieces("CT without bleeding", [Mention("C1", 0, 2, "CT", False, "abbreviation"),
    ...                                                  Mention("C2", 11, 19, "bleeding", True, "name")])
    >>> [(p.text, p.counted, p.negated) for p in pieces]
    [('CT', ('C1',), ()), (' without ', (), ()), ('bleeding', (), ('C2',))]
    """
    if not isinstance(caption, str):
        raise ParameterError(f"caption_pieces takes a caption (str), got {type(caption).__name__}")
    found = list(found)
    cuts = sorted({0, len(caption), *(m.start for m in found), *(m.end for m in found)})
    by_start = sorted(range(len(found)), key=lambda index: found[index].start)
    covering: dict[int, Mention] = {}  # the mentions begun and not ended, by their place in ``found``
    following, pieces = 0, []
    for start, end in zip(cuts, cuts[1:]):
        # one sweep: a mention covers every piece from its start to its end, which are cuts
        while following < len(by_start) and found[by_start[following]].start <= start:
            covering[by_start[following]] = found[by_start[following]]
            following += 1
        for index in [index for index, mention in covering.items() if mention.end <= start]:
            del covering[index]
        here = [covering[index] for index in sorted(covering)]
        pieces.append(CaptionPiece(caption[start:end],
                                   tuple(dict.fromkeys(m.concept for m in here if not m.negated)),
                                   tuple(dict.fromkeys(m.concept for m in here if m.negated))))
    return pieces


class Word(NamedTuple):
    """Caption words behind a concept: how they counted, "kept" or why not (the evidence's status: "negated",
    "hypothetical", "history", "other exam", "literature"), and whether the concept was assumed from them rather
    than said (a region's standard view)."""

    text: str
    status: str
    assumed: bool = False

    @property
    def negated(self) -> bool:
        """Whether the words did not count (in any cue's scope)."""
        return self.status != "kept"


def concept_words(found: Iterable[Mention], statuses: Iterable[str]) -> dict[str, tuple[Word, ...]]:
    """Concept -> the caption words that gave it, each once whatever its case (as first written: the matcher reads
    "Pneumothorax" and "pneumothorax" alike, so a list of both would say one thing twice), with each mention's
    status (``statuses``, in the mentions' order: :meth:`CaptionConcepts.evidence`); concepts in the order of their
    first mention.

    >>> concept_words([Mention("C1", 0, 2, "CT", False, "abbreviation"), Mention("C2", 11, 19, "bleeding", True,
    ...                "name"), Mention("C1", 30, 32, "ct", False, "abbreviation")], ["kept", "history", "kept"])
    {'C1': (Word(text='CT', status='kept', assumed=False),), 'C2': (Word(text='bleeding', status='history', assumed=False),)}
    """
    words: dict[str, dict[tuple[str, str, bool], Word]] = {}
    for mention, status in zip(found, statuses, strict=True):
        word = Word(mention.text, status, mention.source == "assumed")
        words.setdefault(mention.concept, {}).setdefault((word.text.casefold(), word.status, word.assumed), word)
    return {concept: tuple(kept.values()) for concept, kept in words.items()}
