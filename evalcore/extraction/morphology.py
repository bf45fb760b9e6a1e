"""Derivational morphology of anatomical names: an organ's adjective and its prefixed forms, derived from a
dictionary's own names, read as the organ (CBIR Lens, issue 69, item 1).

Captions write an organ by its adjective more often than names do ("a right adrenal carcinoma", "an intrabiliary
growth", "a retroclival lesion"). The forms are derived by rules, not listed:

- **an adjective that names its organ**: a name "<adjective> <gland or tract>" (Terminologia Anatomica, FIPAT 2019:
  glandula suprarenalis, "adrenal gland"; tractus biliaris, "biliary tract") is written by its adjective alone, as
  a noun, after a side (:data:`SIDES`: "the left adrenal", "a right adrenal mass"), and under a prefix of place;
- **prefix rules** (:data:`PLACE_PREFIXES`): a prefix of place before an organ's adjective ("retro-" behind,
  "intra-" within, "peri-" around, "para-" beside, "sub-" below; Terminologia Anatomica's prefixed terms, the
  SPECIALIST Lexicon's derivational prefixes) names a place at the organ ("intrabiliary", "periadrenal");
- **noun-for-adjective variants** (:func:`organ_noun_variants`; Jacquemin 2001's morpho-syntactic term variants): a
  name "<organ adjective> <finding>" is also written with the organ's noun, before the finding or in its of-phrase
  ("Cerebral atrophy" is "brain atrophy" and "atrophy of the brain"), and a name "<finding> of <organ>" with the
  organ's adjective ("Cyst of kidney" is "renal cyst"), where the lexicon pairs the adjective and the noun
  (Terminologia Anatomica's adjectival forms, its ``organ-adjective`` rows).

Tried on ROCOv2 valid and left out (docs/EXTRACTION.md): the suffix rules' adjectives of one-word names
(Terminologia Anatomica's -alis, -aris, -icus; clivus - clival, retina - retinal), under a prefix ("retroclival",
"subpleural": -0.0007 with dictionaries (b) and (c); the curators tag no organ for them) and alone ("retinal",
"cervical": -0.0017, -0.0027).

A derived form never invents a concept: it is read as the concept whose name or synonym it derives from, only where
exactly one concept of the loaded dictionary yields it, no name, synonym or vocabulary word of the dictionary is
already written so, and the lexicon does not read it otherwise (:func:`derived_forms`,
:func:`evalcore.extraction.extractor._derived_rows`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

#: The prefixes of place a derived adjective is read under (the issue's: behind, within, around, beside, below).
PLACE_PREFIXES: tuple[str, ...] = ("retro", "intra", "peri", "para", "sub")
#: The generic heads of a name "<adjective> <head>" whose adjective alone names the organ (Terminologia Anatomica:
#: glandula suprarenalis, "adrenal gland"; tractus biliaris, "biliary tract").
ORGAN_HEADS: frozenset[str] = frozenset({"gland", "glands", "tract"})
#: The words of a side before an organ's adjective used as its noun ("the left adrenal").
SIDES: frozenset[str] = frozenset({"left", "right", "bilateral", "both"})
_ADJECTIVE_ENDINGS = ("al", "ar", "ic", "ary")


def organ_noun_variants(name: str, organ_of: Mapping[str, str]) -> tuple[str, ...]:
    """The ways a caption writes a name with its organ's adjective as the noun, or its organ noun as the adjective
    (``organ_of``: adjective -> organ noun, the lexicon's ``organ-adjective`` rows): "<adjective> <rest>" is also
    "<organ> <rest>" and "<rest> of <organ>", "<rest> of <organ>" and "<organ> <rest>" also "<adjective> <rest>" (Jacquemin 2001,
    *Spotting and Discovering Terms through Natural Language Processing*, ch. 5: a term's morpho-syntactic
    variants). Only a name of two to four words with no other of-phrase is varied; which variants are read is the
    dictionary's choice (:meth:`~evalcore.extraction.extractor.ConceptDictionary.build`: no other concept's name
    written so).

    >>> organ_of = {"cerebral": "brain", "renal": "kidney"}
    >>> organ_noun_variants("Cerebral atrophy", organ_of), organ_noun_variants("Cyst of kidney", organ_of)
    (('brain atrophy', 'atrophy of brain'), ('renal Cyst',))
    >>> organ_noun_variants("Kidney Neoplasm", organ_of), organ_noun_variants("Hepatic flexure of colon", organ_of)
    (('renal Neoplasm',), ())
    """
    words = name.split()
    if not 2 <= len(words) <= 4:
        return ()
    lower = [word.lower() for word in words]
    if "of" in lower:
        organ, rest = (lower[-1], " ".join(words[:-2])) if lower.count("of") == 1 and lower[-2] == "of" else ("", "")
    elif lower[0] in organ_of:
        rest = " ".join(words[1:])
        return f"{organ_of[lower[0]]} {rest}", f"{rest} of {organ_of[lower[0]]}"
    else:
        organ, rest = lower[0], " ".join(words[1:])
    return tuple(f"{adjective} {rest}" for adjective, noun in sorted(organ_of.items()) if rest and noun == organ)


def head_adjective(name: str) -> str:
    """The adjective of a two-word name "<adjective> <gland or tract>" (:data:`ORGAN_HEADS`), lower case, else "".

    >>> head_adjective("Adrenal Glands"), head_adjective("Biliary tract"), head_adjective("Thymus Gland")
    ('adrenal', 'biliary', '')
    """
    words = name.lower().split()
    if len(words) == 2 and words[1] in ORGAN_HEADS and words[0].isalpha() and words[0].endswith(_ADJECTIVE_ENDINGS):
        return words[0]
    return ""


def derived_forms(names: Mapping[str, Iterable[str]], written: Iterable[str], attested: Iterable[str] = ()
                  ) -> tuple[dict[str, str], dict[str, str]]:
    """The derived forms of a dictionary's names: (word -> concept read anywhere, word -> concept read only after a
    side). ``names``: concept -> its names and synonyms; ``written``: the words a name or synonym of the dictionary
    already is alone, and those the lexicon reads otherwise (never derived, nor a base: the dictionary's own reading
    stands, "Bronchial" keeps "peribronchial"); ``attested``: the words of the dictionary's names and synonyms and
    of the lexicon.

    - the adjective of a name "<adjective> <gland or tract>" (:func:`head_adjective`) is read alone after a side
      (:data:`SIDES`: "a right adrenal carcinoma"), and under a prefix of place (:data:`PLACE_PREFIXES`:
      "intrabiliary"), where the prefixed word is no word of the dictionary ("retroperitoneal" is its own).

    A form that two concepts yield is read as neither: no form invents a concept, each is read as a concept of
    ``names``.

    >>> names = {"C1": ["Clivus"], "C2": ["Retina"], "C3": ["Adrenal Glands"], "C4": ["Biliary tract"]}
    >>> anywhere, after_side = derived_forms(names, written={"clivus", "retina"}, attested={"retinal", "adrenal"})
    >>> anywhere["intrabiliary"], after_side["adrenal"], "retroclival" in anywhere
    ('C4', 'C3', False)
    """
    written, attested = frozenset(written), frozenset(attested)
    forms: dict[str, set[str]] = {}
    sided: dict[str, set[str]] = {}
    for concept, concept_names in names.items():
        for name in concept_names:
            adjective = head_adjective(name)
            if not adjective:
                continue
            sided.setdefault(adjective, set()).add(concept)
            if adjective not in written:
                for prefix in PLACE_PREFIXES:
                    if prefix + adjective not in attested:
                        forms.setdefault(prefix + adjective, set()).add(concept)
    anywhere = {word: min(concepts) for word, concepts in forms.items() if len(concepts) == 1 and word not in written}
    after_side = {word: min(concepts) for word, concepts in sided.items() if len(concepts) == 1 and word not in written}
    return anywhere, after_side
