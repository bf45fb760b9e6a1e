"""Abbreviations a caption defines itself: the Schwartz-Hearst algorithm.

Schwartz A.S., Hearst M.A. "A simple algorithm for identifying abbreviation definitions in biomedical text",
Pacific Symposium on Biocomputing 8:451-462, 2003. A definition is a long form followed by its short form in
parentheses ("posterior descending artery (PDA)"), or, as in the glossaries that end many captions, a short form
followed by a colon, a comma or an equals sign and its long form ("PDA: posterior descending artery"). The long form
is the shortest run of the words before the parenthesis (the glossary entry's words, whole), at most ``min(len(short) + 5,
2 * len(short))`` words, whose characters hold the short form's letters and digits in order, the first of them at the
start of a word, read from the end of both.

Two departures from the paper, both because captions are not abstracts: a short form here is one word of two to ten
letters or digits with at least two capital letters ("PDA", "MCA", "T2WI"; not "(arrow)", "(a)" or "(n = 12)"), and a
glossary entry is read only where it begins the caption, a sentence or a clause (after ".", ";", ":" or a new line:
"Abbreviations: PDA, posterior descending artery; ..."; after a comma where a colon or "=" follows the short form:
"LA: left atrium, MR: mitral regurgitation"), and only up to the next ";", ",", "." or ")"; a long form
reaches back no further than the sentence or clause of its parenthesis.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from evalcore.errors import ParameterError


class Definition(NamedTuple):
    """A short form and the character span of the long form the caption gives it; ``glossary``: given in a
    glossary entry ("PDA: posterior descending artery"), a key to the caption's uses of the short form, not in
    parentheses after a use of the long form."""

    short: str
    start: int
    end: int
    glossary: bool = False


_SHORT = r"(?=(?:[a-z0-9]*[A-Z]){2})[A-Za-z0-9]{2,10}(?![A-Za-z0-9])"
#: "long form (SF)": the short form alone in its parentheses.
_IN_PARENTHESES = re.compile(r"\([ \t]*+(" + _SHORT + r")[ \t]*+\)")
#: A character of a glossary entry's words: none that ends the entry or opens a parenthesis.
_ENTRY_CHARACTER = r"[^;,.()\[\]\n]"
#: "SF: long form", "SF, long form", "SF = long form": a glossary entry, up to its end; a word in parentheses within
#: it is its own ("LV, left (renal) vein"), one that ends it is a remark on it ("left pulmonary artery (dilated)").
# (the spaces after a mark never given back: a run of blank lines retried from each of its marks grew with its square)
_GLOSSARY = re.compile(r"(?:^|[.;:\n]|,(?=[ \t]*+" + _SHORT + r"[ \t]*+[:=]))[ \t]*+(" + _SHORT
                       + r")\s*[:,=]\s*([A-Za-z](?:" + _ENTRY_CHARACTER + r"|\(" + _ENTRY_CHARACTER
                       + r"{1,30}\)(?=[ \t]*+[A-Za-z])){0,120})")
#: What a long form does not reach across: the end of a sentence or clause, another parenthesis.
_LONG_FORM_BOUNDS = re.compile(r"[.;:!?()\[\]]")
_WORD = re.compile(r"\S+")


def _long_form(short: str, words: str) -> int | None:
    """Where the shortest long form of ``short`` begins in ``words`` (which it ends), read from the end of both:
    each letter or digit of the short form, last first, is the nearest such character before the last one matched,
    and its first one begins a word; None where there is none.

    >>> words = "stenosis of the posterior descending artery"
    >>> words[_long_form("PDA", words):]
    'posterior descending artery'
    >>> _long_form("PDA", "stenosis of the artery") is None
    True
    """
    at = len(words) - 1
    for index in range(len(short) - 1, -1, -1):
        letter = short[index].lower()
        if not letter.isalnum():
            continue
        while at >= 0 and (words[at].lower() != letter or (index == 0 and at > 0 and words[at - 1].isalnum())):
            at -= 1
        if at < 0:
            return None
        at -= 1
    return words.rfind(" ", 0, at + 1) + 1


def defined_abbreviations(text: str) -> list[Definition]:
    """The abbreviations ``text`` defines, in text order: each short form with the span of its long form.

    >>> text = "Stenosis of the posterior descending artery (PDA). Abbreviations: MCA, middle cerebral artery."
    >>> [(d.short, text[d.start:d.end]) for d in defined_abbreviations(text)]
    [('PDA', 'posterior descending artery'), ('MCA', 'middle cerebral artery')]
    >>> defined_abbreviations("A mass (arrow) of the liver (LIVER). PDA, an occlusion.")
    []
    """
    if not isinstance(text, str):
        raise ParameterError(f"defined_abbreviations takes a text (str), got {type(text).__name__}")
    found = []
    for match in _IN_PARENTHESES.finditer(text):
        short = match.group(1)
        most = min(len(short) + 5, 2 * len(short))
        reach = max(0, match.start() - 40 * most)
        bounds = [bound.end() for bound in _LONG_FORM_BOUNDS.finditer(text, reach, match.start())]
        before = [word.span() for word in _WORD.finditer(text, bounds[-1] if bounds else reach, match.start())]
        if not before:
            continue
        first = before[-most:][0][0]
        words = text[first:before[-1][1]]
        begin = _long_form(short, words)
        if begin is not None and _acceptable(short, words[begin:]):
            found.append(Definition(short, first + begin, before[-1][1]))
    # (an entry's short form stands before a colon, a comma or an equals sign: three in five captions hold none, and
    # looking for them costs less than trying the entry's pattern, which may start anywhere, at each character)
    marked = ":" in text or "," in text or "=" in text
    for match in _GLOSSARY.finditer(text) if marked else ():
        short, entry = match.group(1), match.group(2).rstrip()
        words = [word.span() for word in _WORD.finditer(entry)][:min(len(short) + 5, 2 * len(short))]
        entry = entry[:words[-1][1]]
        # the long form starts the entry: the short form's first letter begins its first word
        begin = _long_form(short, entry)
        if begin is not None and _acceptable(short, entry) and entry[:1].lower() == short[0].lower():
            found.append(Definition(short, match.start(2), match.start(2) + len(entry), glossary=True))
    return sorted(found, key=lambda definition: definition.start)


def _acceptable(short: str, long_form: str) -> bool:
    """The paper's last checks: the long form is longer than the short form and does not hold it as a word."""
    return len(long_form) > len(short) and short.lower() not in re.findall(r"[a-z0-9]+", long_form.lower())
