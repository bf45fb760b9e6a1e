"""The language of a caption, by a stop-word rule (issue 69), so that the extractor, whose dictionary is English,
reads no other language as English words ("Radiographie du thorax de face" is no Face).

A caption is French where its French function words (articles, prepositions, pronouns and conjunctions of the
French stop-word list of the Snowball project, Porter 2001, ``snowball/french/stop.txt``) number at least
:data:`MIN_WORDS` and more than twice its English ones (the Snowball English list's most common function words):
a bilingual caption, a French legend with its English translation, is read as English. No new dependency: the
lists are the words below, the words that the two languages do not share.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

#: French function words of the Snowball French stop-word list (Porter 2001), without those English writes too
#: ("a", "on", "est" apart) and the elided forms' letters ("l'", "d'" are read as the words "l" and "d").
FRENCH_WORDS = frozenset({
    "le", "la", "les", "un", "une", "des", "du", "au", "aux", "et", "est", "avec", "sur", "dans", "pour", "par",
    "qui", "que", "ne", "pas", "ce", "cette", "ces", "son", "sa", "ses", "leur", "leurs", "nous", "vous", "il",
    "elle", "ils", "elles", "sont", "été", "être", "ou", "où", "mais", "donc", "sans", "sous", "chez", "entre",
    "montrant", "montre", "d", "l", "de", "en", "droite", "gauche",
})
#: English function words (the Snowball English stop-word list, Porter 2001), without those French writes too.
ENGLISH_WORDS = frozenset({
    "the", "of", "and", "in", "with", "on", "for", "is", "are", "was", "were", "to", "at", "by", "from", "this",
    "that", "which", "an", "showing", "shows", "shown", "after", "before", "there", "no", "not", "arrow", "right",
    "left", "image", "its", "his", "her", "has", "have", "be", "been",
})
#: The fewest French function words a French caption holds.
MIN_WORDS = 3

_WORD = re.compile(r"[^\W\d_]+")

#: What :func:`caption_language` answers.
ENGLISH, FRENCH = "en", "fr"


def caption_language(caption: str) -> str:
    """``"fr"`` where ``caption`` is French by the stop-word rule (module docstring), else ``"en"``.

    >>> caption_language("Radiographie du thorax de face montrant une opacité du lobe inférieur droit")
    'fr'
    >>> caption_language("Chest X-ray de face showing a right lower lobe opacity")
    'en'
    >>> caption_language("Tomodensitométrie montrant un processus tumoral au contact du corps mandibulaire. "
    ...                  "Computed tomography showing a left gingival tumor process in contact with the mandibular body")
    'en'
    """
    words = _WORD.findall(caption.lower())
    if FRENCH_WORDS.isdisjoint(words):
        return ENGLISH  # (nineteen captions in twenty hold no French function word: none to count)
    french = english = 0
    for word in words:
        if word in FRENCH_WORDS:
            french += 1
        elif word in ENGLISH_WORDS:
            english += 1
    return FRENCH if french >= MIN_WORDS and french > 2 * english else ENGLISH


def languages_of(captions: Iterable[str]) -> Counter:
    """How many of ``captions`` are in each language (:func:`caption_language`), for the extraction's report.

    >>> dict(languages_of(["CT of the chest", "Radiographie du thorax de face montrant une opacité"]))
    {'en': 1, 'fr': 1}
    """
    return Counter(caption_language(caption) for caption in captions)
