"""Labels: per-image ``ID,modality,organ`` or a CUI-to-class mapping ``kind,class,CUI``."""

from __future__ import annotations

from collections.abc import Iterator

from evalcore.data import LABEL_KINDS, ConceptClassMap, ImageLabels
from evalcore.errors import InputError
from evalcore.readers.files import Source, read_text
from evalcore.readers.lines import CUI_PATTERN, check_delimiter, check_id, csv_rows, first_line_of_text

#: The headers a labels file may begin with, for a reader who is not a researcher.
PLAIN_HEADER = "a first line naming the columns: ID,modality,organ (or the research team's labels of concept codes)"
#: A row of labels of concept codes, for a reader who is not a researcher.
PLAIN_CLASS_ROW = "rows of 3 fields: a kind of label, a label and a concept code"


def read_labels(source: Source, name: str | None = None) -> ImageLabels | ConceptClassMap:
    """Read per-image labels ``ID,modality,organ`` or a CUI-to-class mapping ``kind,class,CUI``.

    Several classes in one cell are joined by ``;``; an empty cell means no label.

    >>> read_labels(b"kind,class,CUI\\nmodality,CT,C0040405\\n", "m.csv").by_kind["modality"]["C0040405"]
    frozenset({'CT'})
    """
    text, display = read_text(source, name)
    first_line, first = first_line_of_text(text)
    check_delimiter(first, first_line, display, (",",), "a header 'ID,modality,organ' or 'kind,class,CUI'")
    rows = csv_rows(text, display)
    try:
        line, header = next(rows)
    except StopIteration:
        raise InputError(display, None, "a header 'ID,modality,organ' or 'kind,class,CUI'", "an empty file",
                         plain_expected=PLAIN_HEADER) from None
    lowered = [h.lower() for h in header]
    if lowered[:3] == ["kind", "class", "cui"]:
        return _read_class_map(rows, display)
    if lowered and lowered[0] in {"id", "image_id"} and any(k in lowered for k in LABEL_KINDS):
        kinds = {kind: lowered.index(kind) for kind in LABEL_KINDS if kind in lowered}
        by_kind: dict[str, dict[str, frozenset[str]]] = {kind: {} for kind in kinds}
        for line, fields in rows:
            # a cell left out drops a label, text beyond the header's columns is a label without a kind; an empty
            # cell says "none", and empty ones after the last column say nothing
            if len(fields) < len(header) or any(field.strip() for field in fields[len(header):]):
                raise InputError(display, line, f"{len(header)} fields ({','.join(header)[:80]}), an empty one for "
                                 "no label", f"{len(fields)}",
                                 plain_expected=f"{len(header)} fields, as the first line names them (an empty one "
                                                "for no label)")
            image_id = check_id(fields[0], display, line)
            if image_id in by_kind[next(iter(kinds))]:
                raise InputError(display, line, "a new ID", f"duplicate {image_id!r}",
                                 plain_expected="each image once")
            for kind, column in kinds.items():
                cell = fields[column]
                by_kind[kind][image_id] = frozenset(c.strip() for c in cell.split(";") if c.strip())
        if not by_kind[next(iter(kinds))]:
            raise InputError(display, None, "a label row after the header", "a header-only file",
                             plain_expected="a row of labels after the first line")
        return ImageLabels(by_kind, display)
    raise InputError(display, line, "a header 'ID,modality,organ' or 'kind,class,CUI'", ",".join(header)[:80],
                     plain_expected=PLAIN_HEADER)


def _read_class_map(rows: Iterator[tuple[int, list[str]]], display: str) -> ConceptClassMap:
    by_kind: dict[str, dict[str, set[str]]] = {}
    for line, fields in rows:
        if len(fields) < 3:
            raise InputError(display, line, "3 fields 'kind,class,CUI'", f"{len(fields)} fields",
                             plain_expected=PLAIN_CLASS_ROW)
        kind, label, cui = fields[0].lower(), fields[1], fields[2].upper()
        if kind not in LABEL_KINDS:
            raise InputError(display, line, f"kind in {LABEL_KINDS}", repr(fields[0])[:40],
                             plain_expected=f"a kind of label among {', '.join(LABEL_KINDS)}")
        if not label:
            raise InputError(display, line, "a class name", "an empty cell", plain_expected="a label (a class name)")
        if not CUI_PATTERN.match(cui):
            raise InputError(display, line, "a CUI of the form C + 7 digits", repr(fields[2])[:40],
                             plain_expected="a concept code of the form C + 7 digits")
        by_kind.setdefault(kind, {}).setdefault(cui, set()).add(label)
    if not by_kind:
        raise InputError(display, None, "at least one row 'kind,class,CUI'", "none", plain_expected=PLAIN_CLASS_ROW)
    return ConceptClassMap({k: {c: frozenset(v) for c, v in m.items()} for k, m in by_kind.items()}, display)
