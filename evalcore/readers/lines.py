"""What every reader checks in a line: its fields, its IDs, its numbers.

The definitions of the formats are written with these: lines split at line
feeds and stripped, CSV rows (a record named by the line it starts on), the delimiter of
the first line, image and node IDs and CUIs (numbers: :mod:`evalcore.decimals`). Each check raises an
:class:`~evalcore.errors.InputError` naming the file and the line.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator

from evalcore.errors import InputError

# ASCII digits only: re's \d also matches other scripts' digits (C٠٠٤٠٤٠٥ is no CUI); \Z, not $, so that a
# trailing line feed is not accepted either.
CUI_PATTERN = re.compile(r"^C[0-9]{7}\Z")
#: An ontology ID, upper-cased: a prefix (a letter, then letters, digits or '_'), ':' and digits (UBERON:0002298).
ONTOLOGY_ID_PATTERN = re.compile(r"^[A-Z][A-Z0-9_]{0,31}:[0-9]{1,20}\Z")
#: What a concept row may name: a CUI or an ontology ID in any case, as one regular expression over a token.
CONCEPT_TOKEN = r"(?:[Cc][0-9]{7}|[A-Za-z][A-Za-z0-9_]{0,31}:[0-9]{1,20})"
#: A whole field that is a concept ID in any case (the columnar readers' form).
CONCEPT_ID_ANY_CASE = f"^{CONCEPT_TOKEN}$"
NODE_PATTERN = re.compile(r"^[^\s,;|]{1,200}$")
MAX_ID_CHARS = 300
WHITESPACE = re.compile(r"\s")  # str.isspace(), as str.split() and str.strip() use it
MAX_FIELD_CHARS = 100_000
csv.field_size_limit(MAX_FIELD_CHARS)


#: A run of the ASCII characters for which ``str.isspace()`` holds (what ``str.strip()`` strips of them).
_ASCII_BLANK = re.compile(rb"[\t\n\x0b\x0c\r\x1c-\x1f ]*")


def first_line_of(data: bytes) -> tuple[int, str]:
    """:func:`first_line_of_text` of checked bytes, decoding only the lines it looks at."""
    number, line, _ = first_line_span(data)
    return number, line


def first_line_span(data: bytes) -> tuple[int, str, int]:
    """The first non-blank line, its number and the offset just past its line feed (0, "", 0 for a blank file).

    >>> first_line_span("\\n \\r\\n\\t\\n\\u2003\\n x \\nb\\n".encode())  # (an em space is blank too)
    (5, 'x', 14)
    """
    # Lines of ASCII whitespace alone are passed over at once (a file of millions of blank lines is read in a step).
    start = data.rfind(b"\n", 0, _ASCII_BLANK.match(data).end()) + 1
    number = 1 + data.count(b"\n", 0, start)
    while True:
        end = data.find(b"\n", start)
        line = data[start:len(data) if end < 0 else end].decode("utf-8").strip()
        if line:
            return number, line, len(data) if end < 0 else end + 1
        if end < 0:
            return 0, "", 0
        number, start = number + 1, end + 1


def csv_line(content: str, line: int, display: str, delimiter: str = ",") -> list[str] | None:
    """The stripped fields of one line of a file without quotes, as :func:`csv_rows` reads it (None: blank row)."""
    try:
        row = next(csv.reader([content], delimiter=delimiter, strict=True), [])
    except csv.Error as error:
        raise InputError(display, line, "well-formed CSV", str(error), plain_expected=PLAIN_CSV) from None
    if not row or all(not field.strip() for field in row):
        return None
    return [field.strip() for field in row]


def csv_rows(text: str, display: str, delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line number, fields)`` for non-blank rows; csv errors become InputError."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    while True:
        # A quoted field may span lines: a record is named by the line it starts on.
        start = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise InputError(display, start, "well-formed CSV", str(error), plain_expected=PLAIN_CSV) from None
        if not row or all(not field.strip() for field in row):
            continue
        yield start, [field.strip() for field in row]


def split_lines(text: str, display: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, stripped line)`` for non-blank lines, counting only \\n breaks."""
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if line:
            yield number, line


def first_line_of_text(text: str) -> tuple[int, str]:
    """The first non-blank line and its number (0 and "" for a blank text)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            return number, line.strip()
    return 0, ""


DELIMITER_NAMES = {",": "','", "\t": "a tab", ";": "';'", "|": "'|'", " ": "whitespace"}
#: What the CSV readers expected of a row Python's csv module refuses, for a reader who is not a researcher.
PLAIN_CSV = "well-formed CSV (a field holding a comma or a quote written in quotes, every quote opened closed)"


def check_delimiter(first: str, line: int, display: str, accepted: tuple[str, ...], shape: str) -> None:
    r"""Refuse a first line split by another delimiter than the accepted ones.

    >>> check_delimiter("ID;CUIs", 1, "gt.csv", (",", "\t"), "'ID,CUIs'")
    Traceback (most recent call last):
    ...
    evalcore.errors.InputError: gt.csv, line 1: expected 'ID,CUIs' with fields separated by ',' or a tab, found ';' as the delimiter
    """
    if not first or any(d in first for d in accepted):
        return
    found = next((d for d in DELIMITER_NAMES if d in first and d not in accepted), None)
    if found is not None:
        wanted = " or ".join(DELIMITER_NAMES[d] for d in accepted)
        raise InputError(display, line, f"{shape} with fields separated by {wanted}", f"{DELIMITER_NAMES[found]} as the delimiter",
                         plain_expected=f"fields separated by {wanted}")


#: The first column of the header of a file about images (captions, concept sets, labels), lower-cased.
IMAGE_ID_COLUMNS = frozenset({"id", "image", "image_id", "imageid", "image id", "image_name", "name", "file",
                              "filename", "file_name"})
#: The second column of a captions header (ROCOv2 writes "ID,Caption") and of a concept sets header ("ID,CUIs").
CAPTION_COLUMNS = frozenset({"caption", "captions", "text"})
CONCEPT_LIST_COLUMNS = frozenset({"cuis", "cui", "concepts"})
_HEADERS = (
    ("captions", IMAGE_ID_COLUMNS, CAPTION_COLUMNS, "'ID,Caption'"),
    ("concept sets", IMAGE_ID_COLUMNS, CONCEPT_LIST_COLUMNS, "'ID,CUIs'"),
    ("labels", IMAGE_ID_COLUMNS, frozenset({"modality", "organ"}), "'ID,modality,organ'"),
    ("labels", frozenset({"kind"}), frozenset({"class"}), "'kind,class,CUI'"),
    ("concept names", frozenset({"cui", "concept", "concept_id"}),
     frozenset({"name", "canonical name", "preferred name", "concept name"}), "'CUI,Name'"),
    ("a run", frozenset({"query_id"}), frozenset({"image_id"}), "'query_id,image_id,rank[,score]'"),
    ("a knowledge graph", frozenset({"child"}), frozenset({"parent"}), "'child,parent'"),
)
#: The kinds of :data:`_HEADERS` for a reader who is not a researcher.
_PLAIN_KINDS = {"a run": "the results of a retrieval system", "a knowledge graph": "a concept map"}


def check_not_foreign_header(first: str, line: int, display: str, own: str, shape: str,
                             delimiter: str = ",") -> None:
    r"""Refuse a file whose first line is the header of another kind of file: given to the wrong reader (concept
    sets as captions or names, a captions file as a knowledge graph), its rows would be read as data of the wrong
    kind, a caption made of concept codes or an edge from "ID" to "Caption".

    >>> check_not_foreign_header("ID,CUIs", 1, "c.csv", "captions", "rows")
    Traceback (most recent call last):
    ...
    evalcore.errors.InputError: c.csv, line 1: expected rows, found the header of concept sets ('ID,CUIs'): load it as ...
    >>> check_not_foreign_header("ID,Caption", 1, "captions.csv", "captions", "rows 'ID,Caption'")
    """
    fields = [field.strip().strip('"').lower() for field in first.split(delimiter)[:2]]
    if len(fields) < 2:
        return
    for kind, firsts, seconds, header in _HEADERS:
        if kind != own and fields[0] in firsts and fields[1] in seconds:
            plain_own, plain_kind = (_PLAIN_KINDS.get(name, name) for name in (own, kind))
            raise InputError(display, line, shape, f"the header of {kind} ({header}): load it as {kind}",
                             plain_expected=f"a file of {plain_own}, not one of {plain_kind} (its first line says so: "
                                            f"load it as {plain_kind})")


def check_id(image_id: str, display: str, line: int) -> str:
    if not image_id or len(image_id) > MAX_ID_CHARS or WHITESPACE.search(image_id):
        raise InputError(display, line, "an image ID without spaces (1-300 characters)", repr(image_id)[:60],
                         plain_expected="an image ID without spaces (1-300 characters)")
    return image_id


# A node ID as the fast paths' patterns of usual CSV lines take it: printable ASCII, no quote, space, ',', ';' or '|'.
NODE_FIELD = r"[!#-+\--:<-{}~]{1,200}"


def pipe_separated(first: str) -> bool:
    """A first line split by '|' only: a UMLS .RRF file, whatever its name."""
    return "|" in first and "," not in first and "\t" not in first


def is_concept_id(token: str) -> bool:
    """Whether an upper-cased token is a concept ID a concepts file may hold.

    >>> is_concept_id("C0040405"), is_concept_id("UBERON:0002298"), is_concept_id("X123"), is_concept_id("HP:12a")
    (True, True, False, False)
    """
    return bool(CUI_PATTERN.match(token) or ONTOLOGY_ID_PATTERN.match(token))


def concept_key(node: str) -> str:
    """A node as the concept sets name it: a CUI or an ontology ID upper-cased, as the concepts reader reads them (a
    KG's "uberon:0001638" was another node than the concept sets' "UBERON:0001638", and nn-IoU gave IoU's numbers
    without a word), any other node (an intermediate term) as written.

    >>> concept_key("c0040405"), concept_key("uberon:0001638"), concept_key("DEMO:vein_like")
    ('C0040405', 'UBERON:0001638', 'DEMO:vein_like')
    """
    upper = node.upper()
    return upper if is_concept_id(upper) else node


def kg_node(raw: str, display: str, line: int) -> str:
    if not NODE_PATTERN.match(raw):
        raise InputError(display, line, "a node ID (CUI or ontology ID) without spaces", repr(raw)[:60],
                         plain_expected="a concept code without spaces")
    return concept_key(raw)
