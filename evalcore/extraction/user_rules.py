"""A user's own extraction rules (``extract --rules FILE``): synonyms, exclusions and ConText cues, added without
touching code.

A rules file is a tab-separated table (:func:`~evalcore.extraction.rule_files.read_rule_file`) with the header
``kind, words, concept, source``:

- ``synonym``: ``words`` name ``concept`` (an ID of the loaded names), like a synonym file's entry;
- ``exclude``: ``words`` never give ``concept`` (a name, synonym or vocabulary term read that way is dropped; words
  that hold one of its names, "thrombolysis in myocardial infarction", are read as a phrase of no concept);
- ``negation-forward``, ``negation-backward``, ``negation-prefix``, ``negation-suffix``, ``negation-compound``,
  ``negation-compound-lesion`` (a removal noun that takes a lesion whole, an organ in part), ``negation-adjective``
  (a participle that denies the noun phrase it opens, as the shipped "resolved"), ``hypothetical-forward``,
  ``hypothetical-backward``, ``hypothetical-between``, ``history``, ``other-exam``, ``other-exam-after``, ``pseudo``,
  ``terminator``: a cue of that kind (:mod:`evalcore.extraction.negation`), ``concept`` left empty; a cue with the
  words of a shipped one replaces it.

Every row names its source (the lab's convention, a lexicon, a paper). A bad row raises
:class:`~evalcore.errors.InputError` naming the file, the line and the column.

The package ships rules of its own in the same format, ``rules/synonyms.tsv`` (:data:`BUILT_IN_RULES`): clinical
names of UMLS concepts that the open ontologies lack ("left anterior descending artery") and general-language names
that name no finding of an image ("diagnosis"); the extractor reads them with the built-in imaging vocabulary.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from evalcore.errors import InputError
from evalcore.extraction.negation import Cue, cue_words
from evalcore.extraction.rule_files import (
    RULES_FOLDER,
    Column,
    name_size_refused,
    name_too_long,
    read_rule_file,
    refuse_repeat,
)

#: Cue kinds of a rules file -> the kind and direction of a :class:`~evalcore.extraction.negation.Cue`.
CUE_KINDS = {"negation-forward": ("negation", "forward"), "negation-backward": ("negation", "backward"),
             "negation-prefix": ("negation", "prefix"), "negation-suffix": ("negation", "suffix"),
             "negation-compound": ("negation", "compound"), "negation-compound-lesion": ("negation", "compound-lesion"),
             "negation-adjective": ("negation", "adjective"),
             "hypothetical-forward": ("hypothetical", "forward"), "hypothetical-backward": ("hypothetical", "backward"),
             "hypothetical-between": ("hypothetical", "between"),
             "history": ("history", "forward"), "other-exam": ("other exam", "forward"),
             "other-exam-after": ("other exam", "after"), "pseudo": ("pseudo", "none"),
             "terminator": ("terminator", "none")}
KINDS = ("synonym", "exclude", *CUE_KINDS)
RULE_COLUMNS = (Column("kind", allowed=KINDS), Column("words"), Column("concept", required=False), Column("source"))


@dataclass(frozen=True)
class UserRules:
    """What a user's rules files add: synonyms (concept -> names), exclusions ((words, concept) pairs, the words
    lower case and single-spaced) and cues."""

    synonyms: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    exclusions: frozenset[tuple[str, str]] = frozenset()
    cues: tuple[Cue, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.synonyms or self.exclusions or self.cues)

    def __reduce__(self) -> tuple[Callable[..., UserRules], tuple]:
        # (a read-only view does not pickle: sent to a worker process as a dict, read-only again there)
        return _read_only_rules, (dict(self.synonyms), self.exclusions, self.cues)


def _read_only_rules(synonyms: dict[str, tuple[str, ...]], exclusions: frozenset[tuple[str, str]],
                     cues: tuple[Cue, ...]) -> UserRules:
    return UserRules(MappingProxyType(synonyms), exclusions, cues)


def read_user_rules(paths: Iterable[str | Path], known: Collection[str] | None = None) -> UserRules:
    """The rules of one or more rules files, in order (a cue given twice, in one file or two, is refused); with
    ``known`` (the IDs of the loaded names), a synonym or exclusion of any other concept is refused too, naming its
    line: a mistyped ID would otherwise do nothing, silently. Words of more than
    :data:`~evalcore.extraction.rule_files.MAX_NAME_WORDS` words are refused, naming their line.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "rules.tsv")
    ...     with open(path, "w", encoding="utf-8") as handle:
    ...         _ = handle.write("kind\\twords\\tconcept\\tsource\\n"
    ...                          "synonym\\theart shadow\\tC0018787\\tour lab\\n"
    ...                          "exclude\\tfracture\\tC0016663\\tROCOv2 curation\\n"
    ...                          "negation-backward\\tnot appreciated\\t\\tour radiologists\\n")
    ...     rules = read_user_rules([path])
    >>> dict(rules.synonyms), sorted(rules.exclusions), [cue.cue for cue in rules.cues]
    ({'C0018787': ('heart shadow',)}, [('fracture', 'C0016663')], ['not appreciated'])
    """
    synonyms: dict[str, list[str]] = {}
    exclusions: set[tuple[str, str]] = set()
    cues: dict[str, Cue] = {}
    said: dict[tuple[str, str], str] = {}  # (words in lower case, concept) -> the kind of the row that gave them
    for path in paths:
        for row in read_rule_file(path, RULE_COLUMNS):
            kind, words, concept = row["kind"], " ".join(row["words"].split()), row["concept"]
            if name_too_long(words):
                expected, found = name_size_refused(words)
                raise InputError(str(path), row.line, f"column 2 (words): {expected.removeprefix('a name of ')}",
                                 found)
            if kind in CUE_KINDS:
                if concept:
                    raise InputError(str(path), row.line, "column 3 (concept) empty for a cue", repr(concept))
                words_read = cue_words(words)
                if not words_read:
                    raise InputError(str(path), row.line, "column 2 (words): a cue's words", repr(words))
                if words_read in cues:
                    raise refuse_repeat(path, row, RULE_COLUMNS, "words", "a cue")
                cues[words_read] = Cue(words_read, *CUE_KINDS[kind], row["source"])
            elif not concept:
                raise InputError(str(path), row.line, f"column 3 (concept): the concept ID a {kind} row is about",
                                 "an empty field")
            elif known is not None and concept not in known:
                raise InputError(str(path), row.line, "column 3 (concept): an ID of the loaded names",
                                 repr(concept)[:60])
            else:
                # (a row given twice, or words both a synonym of a concept and excluded for it, is a mistake the
                # reading would hide: one of the two rows would do nothing)
                rule = (words.lower(), concept)
                if rule in said:
                    what = "a synonym" if said[rule] == "synonym" else "an exclusion"
                    raise InputError(str(path), row.line, f"column 2 (words): words not given for {concept} before",
                                     f"{words!r}, given before as {what} of it")
                said[rule] = kind
                if kind == "synonym":
                    synonyms.setdefault(concept, []).append(words)
                else:
                    exclusions.add(rule)
    return UserRules(MappingProxyType({concept: tuple(names) for concept, names in synonyms.items()}),
                     frozenset(exclusions), tuple(cues.values()))


def combined_rules(first: UserRules, second: UserRules) -> UserRules:
    """The rules of ``first`` and ``second`` together: both synonym lists, both exclusions, ``second``'s cue
    replacing ``first``'s of the same words.

    >>> a = UserRules(MappingProxyType({"C1": ("x",)}), frozenset({("y", "C2")}))
    >>> b = UserRules(MappingProxyType({"C1": ("z",)}))
    >>> c = combined_rules(a, b)
    >>> dict(c.synonyms), sorted(c.exclusions)
    ({'C1': ('x', 'z')}, [('y', 'C2')])
    """
    synonyms = {concept: tuple(names) for concept, names in first.synonyms.items()}
    for concept, names in second.synonyms.items():
        synonyms[concept] = synonyms.get(concept, ()) + tuple(names)
    cues = {cue.cue: cue for cue in (*first.cues, *second.cues)}
    return UserRules(MappingProxyType(synonyms), first.exclusions | second.exclusions, tuple(cues.values()))


#: The package's own rules (``rules/synonyms.tsv``), read with the built-in imaging vocabulary.
BUILT_IN_RULES_FILE = RULES_FOLDER / "synonyms.tsv"
BUILT_IN_RULES = read_user_rules([BUILT_IN_RULES_FILE])
