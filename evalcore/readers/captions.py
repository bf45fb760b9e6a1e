"""Captions: CSV ``ID,Caption`` (quoted captions may span lines)."""

from __future__ import annotations

from evalcore.errors import InputError
from evalcore.readers.files import Source, read_text
from evalcore.readers.lines import (
    CAPTION_COLUMNS,
    IMAGE_ID_COLUMNS,
    check_delimiter,
    check_id,
    check_not_foreign_header,
    csv_rows,
    first_line_of_text,
)


def read_captions(source: Source, name: str | None = None) -> dict[str, str]:
    """Read ``ID,Caption`` CSV (quoted captions may span lines); the header is optional.

    >>> read_captions(b"Image,Caption\\nq,CT of the head\\n", "captions.csv")
    {'q': 'CT of the head'}
    >>> read_captions(b"q,CT of the head\\n", "captions.csv")
    {'q': 'CT of the head'}
    >>> read_captions(b"id,CT of the head\\nq,Captions\\n", "captions.csv")  # a header only where both fields name columns
    {'id': 'CT of the head', 'q': 'Captions'}
    >>> read_captions(b"ID,Caption\\n", "captions.csv")
    Traceback (most recent call last):
    evalcore.errors.InputError: captions.csv: expected at least one row 'ID,Caption', found none
    """
    text, display = read_text(source, name)
    first_line, first = first_line_of_text(text)
    check_delimiter(first, first_line, display, (",",), "'ID,Caption'")
    check_not_foreign_header(first, first_line, display, "captions", "rows 'ID,Caption'")
    captions: dict[str, str] = {}
    for position, (line, fields) in enumerate(csv_rows(text, display)):
        if position == 0 and _is_caption_header(fields):
            continue
        if len(fields) != 2:
            raise InputError(display, line, "2 fields (ID,Caption); quote captions containing commas", f"{len(fields)} fields",
                             plain_expected="2 fields (image ID, caption); quote captions containing commas")
        image_id = check_id(fields[0], display, line)
        if image_id in captions:
            raise InputError(display, line, "a new ID", f"duplicate {image_id!r}", plain_expected="each image once")
        captions[image_id] = fields[1]
    if not captions:  # (as an empty concepts, run or names file is refused: read, it would add nothing, silently)
        raise InputError(display, None, "at least one row 'ID,Caption'", "none",
                         plain_expected="at least one row of an image ID and its caption")
    return captions


def _is_caption_header(fields: list[str]) -> bool:
    """Whether a first row is a header: its first two fields name the ID and caption columns ("Image,Caption"). One
    field alone says nothing: an image may be called "id", and a caption may read "Captions".

    >>> _is_caption_header(["ID", "Caption"]), _is_caption_header(["id", "CT of the head"]), _is_caption_header(["q", "Captions"])
    (True, False, False)
    """
    return len(fields) >= 2 and fields[0].strip().lower() in IMAGE_ID_COLUMNS and fields[1].strip().lower() in CAPTION_COLUMNS
