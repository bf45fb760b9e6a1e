"""Captions: CSV ``ID,Caption`` (quoted captions may span lines)."""

from __future__ import annotations

from evalcore.errors import InputError
from evalcore.readers.files import Source, read_text
from evalcore.readers.lines import check_delimiter, check_id, csv_rows, first_line_of_text


def read_captions(source: Source, name: str | None = None) -> dict[str, str]:
    """Read ``ID,Caption`` CSV (quoted captions may span lines); the header is optional.

    >>> read_captions(b"Image,Caption\\nq,CT of the head\\n", "captions.csv")
    {'q': 'CT of the head'}
    >>> read_captions(b"q,CT of the head\\n", "captions.csv")
    {'q': 'CT of the head'}
    """
    text, display = read_text(source, name)
    first_line, first = first_line_of_text(text)
    check_delimiter(first, first_line, display, (",",), "'ID,Caption'")
    captions: dict[str, str] = {}
    for position, (line, fields) in enumerate(csv_rows(text, display)):
        # A header names the ID column "ID" or "image_id", or the caption column "Caption" ("Image,Caption" is a
        # header, not an image named "Image").
        if position == 0 and (fields[0].lower() in {"id", "image_id"} or fields[-1].lower() in {"caption", "captions"}):
            continue
        if len(fields) != 2:
            raise InputError(display, line, "2 fields (ID,Caption); quote captions containing commas", f"{len(fields)} fields")
        image_id = check_id(fields[0], display, line)
        if image_id in captions:
            raise InputError(display, line, "a new ID", f"duplicate {image_id!r}")
        captions[image_id] = fields[1]
    return captions
