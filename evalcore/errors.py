"""The project's own exceptions, the two checks of a file's bytes every reader's message needs, and how a message
quotes what it names.

Every problem a user can fix (a malformed file, an unknown ID, a bad parameter)
is raised as a :class:`CBIRLensError`, so that the CLI and the dashboard can
show one clear message instead of a traceback; :func:`decoded_text` and :func:`file_kind`
say which line holds a byte that is no text and what a path that is no file is; :func:`one_line` and
:func:`listed` quote a text and a list in a message that stays one line of bounded length.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence


class CBIRLensError(ValueError):
    """A problem with the user's input or parameters, with an actionable message."""


class InputError(CBIRLensError):
    r"""A problem in an input file, naming the file, the line and what was expected.

    >>> str(InputError("runs.txt", 3, "6 whitespace-separated fields", "4 fields"))
    'runs.txt, line 3: expected 6 whitespace-separated fields, found 4 fields'

    Line breaks and other control characters quoted from the file are shown escaped, so
    the message stays on one line, and a long quote is cut to :data:`MAX_FOUND_CHARS` characters:

    >>> str(InputError("labels.csv", 1, "a header", ",ID\nID,"))
    'labels.csv, line 1: expected a header, found ,ID\\nID,'
    >>> str(InputError("run.txt", 2, "a numeric score", "9" * 5000))[-30:]
    '9999999999… (5,000 characters)'

    What was expected is written twice where it is raised: for a researcher (``expected``, in the message) and, as
    ``plain_expected``, for a reader who is not one (no CUI, KG, query or run: "concept codes", "a concept map", "a
    case", "result lines of a retrieval system"), which the dashboard shows a clinician (None: not written yet). The
    message is the researcher's alone:

    >>> error = InputError("gt.csv", 2, "a list of CUIs (C + 7 digits)", "'C12'",
    ...                    plain_expected="a list of concept codes (C + 7 digits)")
    >>> str(error)
    "gt.csv, line 2: expected a list of CUIs (C + 7 digits), found 'C12'"
    >>> error.where, error.plain_expected
    ('gt.csv, line 2', 'a list of concept codes (C + 7 digits)')
    """

    def __init__(self, source: str, line: int | None, expected: str, found: str | None = None, *,
                 plain_expected: str | None = None):
        self.source = source
        self.line = line
        self.expected = expected
        self.found = found
        self.plain_expected = plain_expected
        self.where = where = f"{source}, line {line}" if line is not None else source
        message = f"{where}: expected {expected}"
        if found is not None:
            message += f", found {one_line(found)}"
        super().__init__(message)


#: What a reader of text expected of a file that is none (a byte that is no UTF-8, a NUL byte), in plain words.
PLAIN_TEXT = "a text file (UTF-8), not a picture, a spreadsheet or another binary file"
# The most characters of a quoted ``found`` text shown: a field of thousands of characters would flood the message.
MAX_FOUND_CHARS = 200
# The most characters of a name (a path, an ID, a metric) a message quotes, alone or in a list.
MAX_NAME_CHARS = 80


def one_line(text: object, limit: int = MAX_FOUND_CHARS) -> str:
    r"""``text`` as a message quotes it: control characters (line breaks too) escaped, so that the message stays one
    line, and cut after ``limit`` characters, saying how long it was.

    >>> one_line("a\nb"), one_line("/a" * 100, MAX_NAME_CHARS)[-20:]
    ('a\\nb', '/a… (200 characters)')
    """
    text = str(text)
    escaped = "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
    return escaped if len(escaped) <= limit else f"{escaped[:limit]}… ({len(text):,} characters)"


def quoted_id(image_id: str) -> str:
    r"""An ID as a message quotes it: at most 60 characters, and a non-ASCII one also as code points, since Unicode
    writes some letters in two ways (one code point, NFC, or a letter and a combining accent, NFD) that print the
    same: an ID said to be missing though the file seems to hold it.

    >>> quoted_id("q1"), quoted_id("ima\u0301gen").split(" ", 1)[1]
    ("'q1'", "(as code points 'ima\\u0301gen'; Unicode writes some letters in two ways, NFC and NFD)")
    """
    shown = repr(image_id) if len(image_id) <= 60 else repr(image_id[:60]) + f"… ({len(image_id):,} characters)"
    if image_id.isascii():
        return shown
    return f"{shown} (as code points {ascii(image_id[:60])}; Unicode writes some letters in two ways, NFC and NFD)"


def listed(items: Sequence[object], shown: int = 3) -> str:
    """The first ``shown`` of ``items``, each quoted by :func:`one_line` as a name, and how many more there are.

    >>> listed(["E", "F"]), listed(["E", "F", "G", "H", "I"])
    ('E, F', 'E, F, G and 2 more')
    """
    more = f" and {len(items) - shown:,} more" if len(items) > shown else ""
    return ", ".join(one_line(item, MAX_NAME_CHARS) for item in items[:shown]) + more


def joined(names: Sequence[str]) -> str:
    """A few ``names`` as a sentence lists them.

    >>> joined(["a"]), joined(["a", "b"]), joined(["a", "b", "c"])
    ('a', 'a and b', 'a, b and c')
    """
    return " and ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} and {names[-1]}"


class ParameterError(CBIRLensError):
    """A parameter outside its valid range or an unknown name."""


class StoreError(CBIRLensError):
    """A saved workspace that cannot be saved or opened: an unknown, expired or malformed ID, a size limit, or a
    store whose files cannot be read or written. The message names no server path."""


_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
               (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def file_kind(mode: int) -> str:
    """What a path that is no regular file is, for a message's "found" (``mode``: its ``st_mode``).

    >>> file_kind(stat.S_IFDIR), file_kind(stat.S_IFIFO)
    ('a directory', 'a FIFO (named pipe)')
    """
    return next((kind for test, kind in _FILE_KINDS if test(mode)), "not a regular file")


def decoded_text(data: bytes, display: str) -> str:
    """``data`` as UTF-8 text, or an :class:`InputError` naming the line of the first byte that is not UTF-8, or of a
    NUL byte (a binary file).

    >>> decoded_text(b"a\\n\\xff\\n", "x.txt")
    Traceback (most recent call last):
    evalcore.errors.InputError: x.txt, line 2: expected UTF-8 text, found byte 0xff
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise InputError(display, line, "UTF-8 text", f"byte 0x{data[error.start]:02x}",
                         plain_expected=PLAIN_TEXT) from None
    if "\x00" in text:
        raise InputError(display, text.count("\n", 0, text.index("\x00")) + 1, "text", "a NUL byte (binary file?)",
                         plain_expected=PLAIN_TEXT)
    return text
