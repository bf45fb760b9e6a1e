"""The one reader of extraction's rule files: tab-separated tables with a header, one rule per row, every row citing
its source, shipped in ``rules/`` (ConText cues, sense words, the lexicon, the imaging vocabulary) or given by a
user (``extract --rules FILE``).

A file is UTF-8 text; its first line names the columns exactly; each further line holds as many tab-separated
fields; blank lines and lines starting with ``#`` are skipped. Lines end only at a line feed, a carriage return and
line feed, or a carriage return: a form feed, U+2028 or another character :meth:`str.splitlines` would break at is part
of its field. A column may be required (not empty) and may allow
only some values. A bad row raises :class:`~evalcore.errors.InputError` naming the file, the line and the column.
"""

from __future__ import annotations

import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from evalcore.errors import InputError, decoded_text, file_kind

#: The folder of the rule files shipped with the package.
RULES_FOLDER = Path(__file__).with_name("rules")
#: The most bytes a rule file may hold: the shipped ones hold tens of kilobytes; a user's list of synonyms a few MB.
MAX_RULE_FILE_BYTES = 64 * 1024 * 1024
#: The most words of a name the extraction reads (a concept's name, a synonym, a rule's words): the matcher walks a
#: name word by word from each word of a caption, so a caption costs at most this many steps a word. The longest
#: names in use hold 18 words (the open KG's); a names file or rules file with a longer one is refused naming its
#: line, and a longer synonym or name given otherwise is left out of the dictionary (no caption writes it whole).
MAX_NAME_WORDS = 64
#: The most characters of a name the extraction reads, whatever its words: the longest names in use hold 125 (the
#: open KG's); a one-word name of millions of characters would take the dictionary's memory many times over.
MAX_NAME_CHARACTERS = 1_000
#: A word of a name or a caption, as the extraction reads it: letters and digits, with an inner apostrophe.
WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
# Where a line ends in a rule file: a line feed, a carriage return and line feed, or a carriage return alone.
_LINE_END = re.compile(r"\r\n|\r|\n")


def name_words(text: str) -> int:
    """How many words (:data:`WORD`) ``text`` holds, the measure of :data:`MAX_NAME_WORDS`.

    >>> name_words("Crohn's disease of the small-bowel"), name_words("")
    (6, 0)
    """
    return sum(1 for _ in WORD.finditer(text))


def name_too_long(text: str) -> bool:
    """Whether ``text`` holds more than :data:`MAX_NAME_WORDS` words or :data:`MAX_NAME_CHARACTERS` characters; one of
    at most twice that many characters never holds too many words (words are parted by at least one character), so
    most names are not scanned.

    >>> name_too_long("a " * MAX_NAME_WORDS), name_too_long("a " * (MAX_NAME_WORDS + 1)), name_too_long("x" * 1001)
    (False, True, True)
    """
    return len(text) > MAX_NAME_CHARACTERS or (len(text) > 2 * MAX_NAME_WORDS and name_words(text) > MAX_NAME_WORDS)


def name_size_refused(text: str) -> tuple[str, str]:
    """(expected, found) for a :func:`name_too_long` name, as a reader's refusal names them: its words where they are
    too many, else its characters (the readers' lines are bounded, so counting words stays cheap).

    >>> name_size_refused("lung " * 1000), name_size_refused("x" * 5000)
    (('a name of at most 64 words', '1,000 words'), ('a name of at most 1,000 characters', '5,000 characters'))
    """
    words = name_words(text)
    if words > MAX_NAME_WORDS:
        return f"a name of at most {MAX_NAME_WORDS} words", f"{words:,} words"
    return f"a name of at most {MAX_NAME_CHARACTERS:,} characters", f"{len(text):,} characters"


def text_lines(text: str) -> list[str]:
    r"""``text`` cut into lines at ``\n``, ``\r\n`` and ``\r`` only (a final line break ends the last line).

    >>> text_lines("a\tb\u2028c\x0cd\r\ne\rf\n")
    ['a\tb\u2028c\x0cd', 'e', 'f']
    """
    lines = _LINE_END.split(text)
    return lines[:-1] if lines and not lines[-1] else lines


class Column(NamedTuple):
    """A column of a rule file: its name, whether a row must fill it, and the values it allows (any when empty)."""

    name: str
    required: bool = True
    allowed: tuple[str, ...] = ()


@dataclass(frozen=True)
class RuleRow:
    """One row of a rule file: the line it was read from and its fields by column name, stripped."""

    line: int
    fields: Mapping[str, str]

    def __getitem__(self, column: str) -> str:
        return self.fields[column]


def read_rule_file(path: str | Path, columns: Sequence[Column]) -> tuple[RuleRow, ...]:
    """The rows of the rule file at ``path`` whose header is ``columns``' names, each field checked.

    >>> rows = read_rule_file(RULES_FOLDER / "sense_words.tsv", [Column("words"), Column("role"), Column("source")])
    >>> rows[0]["words"], rows[0]["role"], rows[0].line
    ('lobe', 'part', 2)
    """
    path = Path(path)
    name = str(path)
    expected = "a rule file (a regular file of tab-separated rows)"
    bounded = f"a rule file of at most {MAX_RULE_FILE_BYTES // 2**20} MB"
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode):
            raise InputError(name, None, expected, file_kind(status.st_mode))
        if status.st_size > MAX_RULE_FILE_BYTES:
            raise InputError(name, None, bounded, f"{status.st_size:,} bytes")
        with path.open("rb") as handle:
            data = handle.read(MAX_RULE_FILE_BYTES + 1)  # (a file grown since its size was read stays bounded)
    except OSError as error:
        raise InputError(name, None, expected, error.strerror or type(error).__name__) from None
    if len(data) > MAX_RULE_FILE_BYTES:
        raise InputError(name, None, bounded, "more")
    # (UTF-8 with no NUL, a BOM dropped; a refusal names the line)
    lines = text_lines(decoded_text(data.removeprefix(b"\xef\xbb\xbf"), name))
    header = [column.name for column in columns]
    if not lines or lines[0].split("\t") != header:
        raise InputError(name, 1, "the header " + "<TAB>".join(header), lines[0] if lines else "an empty file")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.startswith("#"):
            continue
        values = line.split("\t")
        if len(values) != len(columns):
            raise InputError(name, number, f"{len(columns)} tab-separated columns ({', '.join(header)})",
                             f"{len(values)} columns")
        fields = {}
        for position, (column, value) in enumerate(zip(columns, values), start=1):
            value = value.strip()
            if column.required and not value:
                raise InputError(name, number, f"column {position} ({column.name}) filled", "an empty field")
            if column.allowed and value and value not in column.allowed:
                raise InputError(name, number, f"column {position} ({column.name}): one of "
                                 f"{', '.join(column.allowed)}", repr(value))
            fields[column.name] = value
        rows.append(RuleRow(number, fields))
    return tuple(rows)


def refuse_repeat(path: str | Path, row: RuleRow, columns: Sequence[Column], column: str, what: str) -> InputError:
    """The error for a row whose ``column`` repeats ``what`` an earlier row of the same file gave."""
    position = next(i for i, c in enumerate(columns, start=1) if c.name == column)
    return InputError(str(path), row.line, f"column {position} ({column}): {what} not listed before",
                      repr(row[column]))
