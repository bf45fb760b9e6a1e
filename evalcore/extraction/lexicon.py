"""The lexicon of concept extraction: words a caption writes that a name writes otherwise, and general-language
synonyms read as a name only where a concept's own name says them. Data, ``rules/lexicon.tsv`` (columns words,
kind, reads_as, source), read by :func:`read_lexicon`; each row cites its source (the SPECIALIST Lexicon's spelling
and derivational variants, MeSH entry terms, a measurement on ROCOv2 valid).

- ``variant``: a spelling variant or an entry term read as its word ("haemorrhage" is "hemorrhage", "bleeding"
  is "hemorrhage");
- ``derivation``: an adjective read as the noun it derives from, or a finding's noun as its adjective
  ("ventricular" is "ventricle", "occlusion" is "occluded");
- ``organ-adjective``: an organ's adjective read as the organ by the sense rule only (:mod:`evalcore.extraction.sense`:
  "pulmonary lobe" is a lobe of the lung), not when names are matched;
- ``non-specific``: a one-word synonym that is a general-language word ("treatment", "fat"), left out of synonym
  files (a names file is kept whole);
- ``prefix``: a bound prefix of place that a caption may write with a hyphen or a space before the rest of its word
  ("infra-temporal fossa" is the infratemporal fossa, not the temporal fossa);
- ``spelling``: a British spelling of a word's start ("haem-") or end ("-aemia") read as its American one, in every
  word the lexicon does not list ("haemothorax" is "hemothorax", "septicaemia" "septicemia"; the SPECIALIST
  Lexicon's spelling variants, whose British forms write the Greek and Latin digraphs ae and oe).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from evalcore.errors import InputError
from evalcore.extraction.rule_files import RULES_FOLDER, Column, read_rule_file, refuse_repeat

LEXICON_FILE = RULES_FOLDER / "lexicon.tsv"
LEXICON_COLUMNS = (Column("words"), Column("kind", allowed=("variant", "derivation", "organ-adjective", "non-specific",
                                                                    "prefix", "spelling")),
                   Column("reads_as", required=False), Column("source"))


@dataclass(frozen=True)
class Lexicon:
    """Word -> the word it is read as (variants and derivations, lower case), an organ's adjective -> the organ,
    the non-specific synonyms, the bound prefixes of place and the British spellings of a word's start and end
    ("haem-" -> "hem-", "-aemia" -> "-emia")."""

    reads_as: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    non_specific: frozenset[str] = frozenset()
    organ_of: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    prefixes: frozenset[str] = frozenset()
    spelling_starts: tuple[tuple[str, str], ...] = ()
    spelling_ends: tuple[tuple[str, str], ...] = ()

    def american(self, word: str) -> str:
        """A lower-case word with its British start or end spelled as American English writes it, once each.

        >>> LEXICON.american("haemothorax"), LEXICON.american("septicaemia"), LEXICON.american("aerial")
        ('hemothorax', 'septicemia', 'aerial')
        """
        for british, american in self.spelling_starts:
            if word.startswith(british):
                word = american + word[len(british):]
                break
        for british, american in self.spelling_ends:
            if word.endswith(british):
                return word[:len(word) - len(british)] + american
        return word


def read_lexicon(path: str | Path = LEXICON_FILE) -> Lexicon:
    """The lexicon of a lexicon file: each word once; a variant or derivation names the word it is read as, which
    is not itself read as another (one step, so the order of rows does not matter).

    >>> lexicon = read_lexicon()
    >>> lexicon.reads_as["haemorrhage"], lexicon.reads_as["ventricular"], "fat" in lexicon.non_specific
    ('hemorrhage', 'ventricle', True)
    >>> "infra" in lexicon.prefixes, ("haem", "hem") in lexicon.spelling_starts
    (True, True)
    """
    reads_as: dict[str, str] = {}
    organ_of: dict[str, str] = {}
    non_specific: set[str] = set()
    prefixes: set[str] = set()
    spellings: dict[str, str] = {}
    rows = read_rule_file(path, LEXICON_COLUMNS)
    for row in rows:
        word, target = row["words"].lower(), row["reads_as"].lower()
        if word in reads_as or word in non_specific or word in organ_of or word in prefixes or word in spellings:
            raise refuse_repeat(path, row, LEXICON_COLUMNS, "words", "a word")
        if row["kind"] == "spelling":
            # a word's start is written "haem-", its end "-aemia", and is read as the same part of a word
            if word.strip("-") == word or target.strip("-") == target or (word[0] == "-") != (target[0] == "-"):
                raise InputError(str(path), row.line, "columns 1 and 3: a word's start ('haem-') or end ('-aemia')",
                                 repr(f"{word} {target}"))
            spellings[word] = target
            continue
        if row["kind"] in ("non-specific", "prefix"):
            if target:
                raise InputError(str(path), row.line, f"column 3 (reads_as) empty for a {row['kind']} word",
                                 repr(target))
            (non_specific if row["kind"] == "non-specific" else prefixes).add(word)
        elif not target or target == word:
            raise InputError(str(path), row.line, "column 3 (reads_as): the word it is read as", repr(target))
        else:
            (organ_of if row["kind"] == "organ-adjective" else reads_as)[word] = target
    for row in rows:
        if row["kind"] in ("variant", "derivation") and reads_as.get(row["reads_as"].lower()) is not None:
            raise InputError(str(path), row.line, "column 3 (reads_as): a word not itself read as another",
                             repr(row["reads_as"]))
    # the longest first, so that a longer British start is read before a shorter one it begins with
    starts = tuple(sorted(((w.rstrip("-"), t.rstrip("-")) for w, t in spellings.items() if w[0] != "-"),
                          key=lambda pair: -len(pair[0])))
    ends = tuple(sorted(((w.lstrip("-"), t.lstrip("-")) for w, t in spellings.items() if w[0] == "-"),
                        key=lambda pair: -len(pair[0])))
    return Lexicon(MappingProxyType(reads_as), frozenset(non_specific), MappingProxyType(organ_of),
                   frozenset(prefixes), starts, ends)


LEXICON = read_lexicon()
#: Word endings of an adjective ("cystic", "retroperitoneal", "infectious"): what stands between a modifier and
#: the head it modifies ("liver *capsular* enhancement"), what a differential's alternatives that modify one head
#: end with ("cystic versus necrotic lesion"), and what makes "post-" a compound adjective ("post-stenotic").
ADJECTIVE_ENDINGS = ("al", "ar", "ic", "ous", "ive", "ary")


@lru_cache(maxsize=1 << 17)
def normal_token(token: str) -> str:
    """The key a word is matched by: lower case, without a possessive "'s", a lexical variant read as its word,
    then without a plural ending ("ies" -> "y", a final "s" unless "ss", "us" or "is"; a plural of a lexical
    variant read as the variant's word) and a final "e" (so "cases"/"case" and "masses"/"mass" meet). Words of three
    letters or fewer are kept whole ("has", "gas").

    >>> [normal_token(w) for w in ("Vessels", "arteries", "masses", "mass", "Crohn's", "haemorrhage", "vertebrae")]
    ['vessel', 'artery', 'mass', 'mass', 'crohn', 'hemorrhag', 'vertebra']
    >>> normal_token("clots") == normal_token("clot") == normal_token("thrombus")
    True
    >>> normal_token("haemothorax"), normal_token("caecum"), normal_token("oedematous")
    ('hemothorax', 'cecum', 'edema')
    """
    word = token.lower()
    for possessive in ("'s", "’s"):
        if word.endswith(possessive):
            word = word[:-2]
    # (a listed word is read as the lexicon lists it; another, with its British start or end spelled American)
    word = LEXICON.reads_as.get(word) or LEXICON.reads_as.get(american := LEXICON.american(word), american)
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    word = LEXICON.reads_as.get(word, word)
    return word[:-1] if word.endswith("e") and len(word) > 3 else word
