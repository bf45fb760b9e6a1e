"""Readers for every input of DESIGN §1.

Each reader takes a path or the raw bytes of an upload (with a display name) and
either returns an immutable container or raises :class:`InputError` naming the
file, the line and what was expected. Nothing else escapes: malformed text,
non-UTF-8 bytes, NaN scores and oversized inputs are all reported that way.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Union

import numpy as np

from .data import LABEL_KINDS, ConceptClassMap, ConceptSets, Embeddings, ImageLabels, Run
from .errors import InputError

Source = Union[str, Path, bytes]

CUI_PATTERN = re.compile(r"^C\d{7}$")
NODE_PATTERN = re.compile(r"^[^\s,;|]{1,200}$")
MAX_FILE_BYTES = 1 << 30
MAX_ROWS = 5_000_000
MAX_CONCEPTS_PER_IMAGE = 500
MAX_FIELD_CHARS = 100_000

csv.field_size_limit(MAX_FIELD_CHARS)


@dataclass(frozen=True)
class KGEdges:
    """is_a edges ``child -> parent`` with their source tag, plus node names where known."""

    edges: tuple[tuple[str, str, str], ...]
    names: dict[str, str]
    source: str = "kg"


def _read_bytes(source: Source, name: str | None) -> tuple[bytes, str]:
    if isinstance(source, bytes):
        return source, name or "upload"
    path = Path(source)
    display = name or str(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise InputError(display, None, "a readable file", error.strerror or str(error)) from None
    if size > MAX_FILE_BYTES:
        raise InputError(display, None, f"at most {MAX_FILE_BYTES >> 20} MiB", f"{size >> 20} MiB")
    return path.read_bytes(), display


def read_text(source: Source, name: str | None = None) -> tuple[str, str]:
    """Decode a file as UTF-8 (a BOM is dropped); return ``(text, display name)``.

    >>> read_text(b"\\xef\\xbb\\xbfID,CUIs\\r\\n", "x.csv")
    ('ID,CUIs\\r\\n', 'x.csv')
    """
    data, display = _read_bytes(source, name)
    if len(data) > MAX_FILE_BYTES:
        raise InputError(display, None, f"at most {MAX_FILE_BYTES >> 20} MiB", f"{len(data) >> 20} MiB")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(display, line, "UTF-8 text", f"byte 0x{data[error.start]:02x}") from None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        raise InputError(display, line, "text", "a NUL byte (binary file?)")
    return text, display


def _csv_rows(text: str, display: str, delimiter: str = ",") -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line number, fields)`` for non-blank rows; csv errors become InputError."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    count = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise InputError(display, reader.line_num, "well-formed CSV", str(error)) from None
        if not row or all(not field.strip() for field in row):
            continue
        count += 1
        if count > MAX_ROWS:
            raise InputError(display, reader.line_num, f"at most {MAX_ROWS:,} rows", "more")
        yield reader.line_num, [field.strip() for field in row]


def _split_lines(text: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, stripped line)`` for non-blank lines, counting only \\n breaks."""
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if line:
            if number > MAX_ROWS:
                raise InputError("input", number, f"at most {MAX_ROWS:,} lines", "more")
            yield number, line


def _cui_set(raw: str, separators: str, display: str, line: int) -> frozenset[str]:
    tokens = [t.strip() for t in re.split(f"[{re.escape(separators)}]", raw)] if raw.strip() else []
    if len(tokens) > MAX_CONCEPTS_PER_IMAGE:
        raise InputError(display, line, f"at most {MAX_CONCEPTS_PER_IMAGE} concepts per image", f"{len(tokens)}")
    cuis = set()
    for token in tokens:
        cui = token.upper()
        if not CUI_PATTERN.match(cui):
            shown = token if token else "an empty CUI token"
            raise InputError(display, line, "CUIs of the form C + 7 digits", repr(shown)[:60])
        cuis.add(cui)
    return frozenset(cuis)


def _check_id(image_id: str, display: str, line: int) -> str:
    if not image_id or len(image_id) > 300 or any(ch.isspace() for ch in image_id):
        raise InputError(display, line, "an image ID without spaces (1-300 characters)", repr(image_id)[:60])
    return image_id


def read_concepts(source: Source, name: str | None = None) -> ConceptSets:
    """Read concept sets: ROCOv2 CSV ``ID,CUIs`` (``;``-joined) or ImageCLEF ``ID<TAB>C1,C2``.

    >>> c = read_concepts(b"ID,CUIs\\nimg1,C0040405;c0817096\\nimg2,\\n", "gt.csv")
    >>> c.ids, sorted(c["img1"]), c["img2"]
    (('img1', 'img2'), ['C0040405', 'C0817096'], frozenset())
    """
    text, display = read_text(source, name)
    first = next((line for _, line in _split_lines(text)), "")
    if "\t" in first:
        rows = _tab_rows(text, display)
        separators = ",;"
    else:
        rows = _csv_rows(text, display)
        separators = ";"
    ids: list[str] = []
    sets: list[frozenset[str]] = []
    seen: dict[str, int] = {}
    for position, (line, fields) in enumerate(rows):
        if position == 0 and _is_concept_header(fields):
            continue
        if len(fields) == 1:
            fields = [fields[0], ""]
        if len(fields) != 2:
            raise InputError(display, line, "2 fields (ID and CUIs)", f"{len(fields)} fields")
        image_id = _check_id(fields[0], display, line)
        if image_id in seen:
            raise InputError(display, line, f"a new ID ({image_id!r} already on line {seen[image_id]})", "a duplicate")
        seen[image_id] = line
        ids.append(image_id)
        sets.append(_cui_set(fields[1], separators, display, line))
    if not ids:
        raise InputError(display, None, "at least one row 'ID,CUIs'", "no data rows")
    return ConceptSets(tuple(ids), tuple(sets), display)


def _is_concept_header(fields: list[str]) -> bool:
    return len(fields) >= 2 and not CUI_PATTERN.match(fields[1].split(";")[0].strip().upper()) and (
        fields[0].lower() in {"id", "image", "image_id", "imageid"} or fields[1].lower() in {"cuis", "cui", "concepts"}
    )


def _tab_rows(text: str, display: str) -> Iterator[tuple[int, list[str]]]:
    for line, content in _split_lines(text):
        fields = content.split("\t")
        if len(fields) > 2:
            raise InputError(display, line, "ID<TAB>CUIs", f"{len(fields)} tab-separated fields")
        yield line, [f.strip() for f in fields]


def read_captions(source: Source, name: str | None = None) -> dict[str, str]:
    """Read ``ID,Caption`` CSV (quoted captions may span lines)."""
    text, display = read_text(source, name)
    captions: dict[str, str] = {}
    for position, (line, fields) in enumerate(_csv_rows(text, display)):
        if position == 0 and fields[0].lower() in {"id", "image_id"}:
            continue
        if len(fields) != 2:
            raise InputError(display, line, "2 fields (ID,Caption); quote captions containing commas", f"{len(fields)} fields")
        image_id = _check_id(fields[0], display, line)
        if image_id in captions:
            raise InputError(display, line, "a new ID", f"duplicate {image_id!r}")
        captions[image_id] = fields[1]
    return captions


def read_concept_names(source: Source, name: str | None = None) -> dict[str, str]:
    """Read ``CUI,Name`` CSV (ROCOv2 ``cui_mapping.csv``) or UMLS ``MRCONSO.RRF`` (English preferred names).

    >>> read_concept_names(b"CUI,Canonical name\\nC0042449,Veins\\n", "names.csv")
    {'C0042449': 'Veins'}
    """
    text, display = read_text(source, name)
    first = next((line for _, line in _split_lines(text)), "")
    if first.count("|") >= 14:
        return _read_mrconso(text, display)
    names: dict[str, str] = {}
    for position, (line, fields) in enumerate(_csv_rows(text, display)):
        if position == 0 and not CUI_PATTERN.match(fields[0].upper()):
            continue
        if len(fields) < 2:
            raise InputError(display, line, "2 fields (CUI,Name)", f"{len(fields)} field")
        node = fields[0]
        if not NODE_PATTERN.match(node):
            raise InputError(display, line, "a concept ID without spaces", repr(node)[:60])
        names[node.upper() if CUI_PATTERN.match(node.upper()) else node] = fields[1]
    return names


def _read_mrconso(text: str, display: str) -> dict[str, str]:
    """MRCONSO columns: CUI|LAT|TS|LUI|STT|SUI|ISPREF|AUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|..."""
    preferred: dict[str, tuple[int, str]] = {}
    for line, content in _split_lines(text):
        fields = content.split("|")
        if len(fields) < 15:
            raise InputError(display, line, "MRCONSO.RRF rows with at least 15 '|'-separated fields", f"{len(fields)}")
        cui, language, term_status, string_type, is_preferred, label = (
            fields[0], fields[1], fields[2], fields[4], fields[6], fields[14],
        )
        if language != "ENG" or not CUI_PATTERN.match(cui):
            continue
        # The concept's preferred name is TS=P, STT=PF, ISPREF=Y; fall back to any English string.
        score = (term_status == "P") * 4 + (string_type == "PF") * 2 + (is_preferred == "Y")
        if cui not in preferred or score > preferred[cui][0]:
            preferred[cui] = (score, label)
    return {cui: label for cui, (_, label) in preferred.items()}


def read_kg(source: Source, name: str | None = None) -> KGEdges:
    """Read a KG file: edge list CSV/TSV ``child,parent[,...]``, UMLS ``MRREL.RRF`` or OBO.

    >>> kg = read_kg(b"child,parent,source\\nC0042449,C0005847,mesh\\n", "kg.csv")
    >>> kg.edges
    (('C0042449', 'C0005847', 'mesh'),)
    """
    text, display = read_text(source, name)
    first = next((line for _, line in _split_lines(text)), "")
    if first.startswith("format-version:") or first == "[Term]":
        return _read_obo(text, display)
    if first.count("|") >= 10:
        return _read_mrrel(text, display)
    delimiter = "\t" if "\t" in first else ","
    edges: list[tuple[str, str, str]] = []
    default_source = Path(display).stem
    source_column: int | None = None
    for position, (line, fields) in enumerate(_csv_rows(text, display, delimiter)):
        if position == 0 and [f.lower() for f in fields[:2]] == ["child", "parent"]:
            lowered = [f.lower() for f in fields]
            source_column = lowered.index("source") if "source" in lowered else None
            continue
        if len(fields) < 2:
            raise InputError(display, line, "2 fields 'child,parent' (is_a, child -> parent)", f"{len(fields)} field")
        child, parent = (_kg_node(f, display, line) for f in fields[:2])
        tag = fields[source_column] if source_column is not None and source_column < len(fields) else default_source
        if child != parent:
            edges.append((child, parent, tag or default_source))
    if not edges:
        raise InputError(display, None, "at least one edge 'child,parent'", "none")
    return KGEdges(tuple(edges), {}, display)


def _kg_node(raw: str, display: str, line: int) -> str:
    if not NODE_PATTERN.match(raw):
        raise InputError(display, line, "a node ID (CUI or ontology ID) without spaces", repr(raw)[:60])
    return raw.upper() if CUI_PATTERN.match(raw.upper()) else raw


def _read_mrrel(text: str, display: str) -> KGEdges:
    """MRREL columns: CUI1|AUI1|STYPE1|REL|CUI2|AUI2|STYPE2|RELA|RUI|SRUI|SAB|...

    REL and RELA describe CUI2 relative to CUI1: ``PAR`` / ``inverse_isa`` make CUI2
    the parent of CUI1; ``CHD`` / ``isa`` make CUI2 the child of CUI1.
    """
    edges: set[tuple[str, str, str]] = set()
    for line, content in _split_lines(text):
        fields = content.split("|")
        if len(fields) < 11:
            raise InputError(display, line, "MRREL.RRF rows with at least 11 '|'-separated fields", f"{len(fields)}")
        cui1, rel, cui2, rela, sab = fields[0], fields[3], fields[4], fields[7], fields[10]
        if not (CUI_PATTERN.match(cui1) and CUI_PATTERN.match(cui2)) or cui1 == cui2:
            continue
        if rela == "inverse_isa" or (rel == "PAR" and rela in {"", "inverse_isa"}):
            edges.add((cui1, cui2, sab or "umls"))
        elif rela == "isa" or (rel == "CHD" and rela in {"", "isa"}):
            edges.add((cui2, cui1, sab or "umls"))
    if not edges:
        raise InputError(display, None, "PAR/CHD or isa/inverse_isa relations between CUIs", "none")
    return KGEdges(tuple(sorted(edges)), {}, display)


def _read_obo(text: str, display: str) -> KGEdges:
    """OBO terms become nodes; a term with ``xref: UMLS:C...`` becomes its CUI(s), others keep their ID."""
    terms: list[dict] = []
    current: dict | None = None
    for line, content in _split_lines(text):
        if content.startswith("["):
            current = {"line": line, "parents": [], "cuis": []} if content == "[Term]" else None
            if current is not None:
                terms.append(current)
            continue
        if current is None or ":" not in content:
            continue
        tag, value = content.split(":", 1)
        value = value.split(" ! ")[0].strip()
        if tag == "id":
            current["id"] = _kg_node(value.split()[0] if value else "", display, line)
        elif tag == "name":
            current["name"] = value
        elif tag == "is_a":
            current["parents"].append(_kg_node(value.split()[0] if value else "", display, line))
        elif tag == "xref" and value.upper().startswith(("UMLS:", "UMLS_CUI:")):
            cui = value.split(":", 1)[1].split()[0].upper()
            if CUI_PATTERN.match(cui):
                current["cuis"].append(cui)
        elif tag == "is_obsolete" and value == "true":
            current["obsolete"] = True
    nodes_of: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for term in terms:
        if "id" not in term:
            raise InputError(display, term["line"], "an 'id:' line in every [Term]", "none")
        if term.get("obsolete"):
            continue
        nodes_of[term["id"]] = term["cuis"] or [term["id"]]
        for node in nodes_of[term["id"]]:
            names.setdefault(node, term.get("name", node))
    source = Path(display).stem
    edges = {
        (child, parent, source)
        for term in terms
        if term.get("id") in nodes_of
        for parent_id in term["parents"]
        for child in nodes_of[term["id"]]
        for parent in nodes_of.get(parent_id, [parent_id])
        if child != parent
    }
    if not edges:
        raise InputError(display, None, "[Term] stanzas with is_a lines", "no is_a edges")
    return KGEdges(tuple(sorted(edges)), names, display)


def read_run(source: Source, name: str | None = None) -> Run:
    """Read a TREC run ``qid Q0 docid rank score tag`` or CSV ``query_id,image_id,rank[,score]``.

    Ranks are re-derived from (score descending, rank ascending); the system name is
    the TREC tag, else the file stem.

    >>> run = read_run(b"q1 Q0 d2 2 0.5 sysA\\nq1 Q0 d1 1 0.9 sysA\\n", "a.trec")
    >>> run.name, dict(run.rankings)
    ('sysA', {'q1': ('d1', 'd2')})
    """
    text, display = read_text(source, name)
    first = next((line for _, line in _split_lines(text)), "")
    if "," in first and len(first.split()) < 6:
        entries, tag = _csv_run_entries(text, display), None
    else:
        entries, tag = _trec_run_entries(text, display)
    per_query: dict[str, list[tuple[float, int, str]]] = {}
    seen: dict[tuple[str, str], int] = {}
    for line, qid, docid, rank, score in entries:
        key = (qid, docid)
        if key in seen:
            raise InputError(display, line, f"each image once per query ({docid!r} already on line {seen[key]})", "a duplicate")
        seen[key] = line
        per_query.setdefault(qid, []).append((-score, rank, docid))
    if not per_query:
        raise InputError(display, None, "at least one run line", "none")
    rankings = {qid: tuple(doc for _, _, doc in sorted(items)) for qid, items in per_query.items()}
    return Run(tag or Path(display).stem, rankings, display)


def _parse_rank_score(rank_raw: str, score_raw: str | None, display: str, line: int) -> tuple[int, float]:
    try:
        rank = int(rank_raw)
    except ValueError:
        raise InputError(display, line, "an integer rank", repr(rank_raw)[:40]) from None
    if rank < 0:
        raise InputError(display, line, "a rank >= 0", str(rank))
    if score_raw is None or score_raw == "":
        return rank, 0.0
    try:
        score = float(score_raw)
    except ValueError:
        raise InputError(display, line, "a numeric score", repr(score_raw)[:40]) from None
    if not math.isfinite(score):
        raise InputError(display, line, "a finite score", score_raw)
    return rank, score


def _trec_run_entries(text: str, display: str) -> tuple[list, str | None]:
    entries = []
    tag = None
    for line, content in _split_lines(text):
        fields = content.split()
        if len(fields) != 6:
            raise InputError(display, line, "6 whitespace-separated fields 'qid Q0 docid rank score tag'", f"{len(fields)} fields")
        qid, _, docid, rank_raw, score_raw, line_tag = fields
        rank, score = _parse_rank_score(rank_raw, score_raw, display, line)
        tag = tag or line_tag
        entries.append((line, _check_id(qid, display, line), _check_id(docid, display, line), rank, score))
    return entries, tag


def _csv_run_entries(text: str, display: str) -> list:
    entries = []
    columns: dict[str, int] | None = None
    for position, (line, fields) in enumerate(_csv_rows(text, display)):
        if position == 0:
            lowered = [f.lower() for f in fields]
            if {"query_id", "image_id"} <= set(lowered):
                columns = {name: lowered.index(name) for name in ("query_id", "image_id", "rank", "score") if name in lowered}
                continue
            columns = {"query_id": 0, "image_id": 1, "rank": 2, "score": 3}
        if "rank" not in columns:
            raise InputError(display, 1, "a header 'query_id,image_id,rank[,score]'", "no rank column")
        needed = max(columns.values()) + 1 if "score" in columns else columns["rank"] + 1
        if len(fields) < min(needed, columns["rank"] + 1):
            raise InputError(display, line, "fields 'query_id,image_id,rank[,score]'", f"{len(fields)} fields")
        score_raw = fields[columns["score"]] if "score" in columns and columns["score"] < len(fields) else None
        rank, score = _parse_rank_score(fields[columns["rank"]], score_raw, display, line)
        qid = _check_id(fields[columns["query_id"]], display, line)
        docid = _check_id(fields[columns["image_id"]], display, line)
        entries.append((line, qid, docid, rank, score))
    return entries


def read_labels(source: Source, name: str | None = None) -> ImageLabels | ConceptClassMap:
    """Read per-image labels ``ID,modality,organ`` or a CUI-to-class mapping ``kind,class,CUI``.

    Several classes in one cell are joined by ``;``; an empty cell means no label.

    >>> read_labels(b"kind,class,CUI\\nmodality,CT,C0040405\\n", "m.csv").by_kind["modality"]["C0040405"]
    frozenset({'CT'})
    """
    text, display = read_text(source, name)
    rows = _csv_rows(text, display)
    try:
        line, header = next(rows)
    except StopIteration:
        raise InputError(display, None, "a header 'ID,modality,organ' or 'kind,class,CUI'", "an empty file") from None
    lowered = [h.lower() for h in header]
    if lowered[:3] == ["kind", "class", "cui"]:
        return _read_class_map(rows, display)
    if lowered and lowered[0] in {"id", "image_id"} and any(k in lowered for k in LABEL_KINDS):
        kinds = {kind: lowered.index(kind) for kind in LABEL_KINDS if kind in lowered}
        by_kind: dict[str, dict[str, frozenset[str]]] = {kind: {} for kind in kinds}
        for line, fields in rows:
            image_id = _check_id(fields[0], display, line)
            if image_id in by_kind[next(iter(kinds))]:
                raise InputError(display, line, "a new ID", f"duplicate {image_id!r}")
            for kind, column in kinds.items():
                cell = fields[column] if column < len(fields) else ""
                by_kind[kind][image_id] = frozenset(c.strip() for c in cell.split(";") if c.strip())
        return ImageLabels(by_kind, display)
    raise InputError(display, line, "a header 'ID,modality,organ' or 'kind,class,CUI'", ",".join(header)[:80])


def _read_class_map(rows: Iterator[tuple[int, list[str]]], display: str) -> ConceptClassMap:
    by_kind: dict[str, dict[str, set[str]]] = {}
    for line, fields in rows:
        if len(fields) < 3:
            raise InputError(display, line, "3 fields 'kind,class,CUI'", f"{len(fields)} fields")
        kind, label, cui = fields[0].lower(), fields[1], fields[2].upper()
        if kind not in LABEL_KINDS:
            raise InputError(display, line, f"kind in {LABEL_KINDS}", repr(fields[0])[:40])
        if not label:
            raise InputError(display, line, "a class name", "an empty cell")
        if not CUI_PATTERN.match(cui):
            raise InputError(display, line, "a CUI of the form C + 7 digits", repr(fields[2])[:40])
        by_kind.setdefault(kind, {}).setdefault(cui, set()).add(label)
    if not by_kind:
        raise InputError(display, None, "at least one row 'kind,class,CUI'", "none")
    return ConceptClassMap({k: {c: frozenset(v) for c, v in m.items()} for k, m in by_kind.items()}, display)


def read_embeddings(source: Source, name: str | None = None, ids_source: Source | None = None,
                    ids_name: str | None = None) -> Embeddings:
    """Read embeddings: ``.npy`` (N x d, with an ID list file) or ``.csv``/``.parquet`` with an ``ID`` column.

    Vectors are L2-normalised; NaN or infinite values are an error naming the row.
    """
    data, display = _read_bytes(source, name)
    lowered = display.lower()
    if lowered.endswith(".npy"):
        if ids_source is None:
            raise InputError(display, None, "an ID list file (one ID per line) beside the .npy file", "none")
        try:
            matrix = np.load(io.BytesIO(data), allow_pickle=False)
        except (ValueError, OSError, EOFError) as error:
            raise InputError(display, None, "a numeric .npy array (N x d)", str(error)[:80]) from None
        ids_text, ids_display = read_text(ids_source, ids_name)
        ids = [_check_id(line, ids_display, number) for number, line in _split_lines(ids_text)]
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise InputError(display, None, f"an N x d array with N = {len(ids)} IDs", f"shape {matrix.shape}")
        if not np.issubdtype(matrix.dtype, np.number):
            raise InputError(display, None, "a numeric array", str(matrix.dtype))
        return _embeddings(ids, matrix, display, first_line=1)
    if lowered.endswith(".parquet"):
        import pandas as pd

        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as error:  # pyarrow raises many types for corrupt files
            raise InputError(display, None, "a readable parquet file", str(error)[:80]) from None
        return _embeddings_from_frame(frame, display, first_line=1)
    text, display = read_text(data, display)
    rows = list(_csv_rows(text, display))
    if not rows or rows[0][1][0].lower() not in {"id", "image_id"}:
        raise InputError(display, 1, "a header starting with 'ID' followed by vector columns", "none")
    ids, vectors = [], []
    width = len(rows[0][1]) - 1
    if width < 1:
        raise InputError(display, 1, "at least one vector column after ID", "none")
    for line, fields in rows[1:]:
        if len(fields) != width + 1:
            raise InputError(display, line, f"{width + 1} fields", f"{len(fields)}")
        ids.append(_check_id(fields[0], display, line))
        try:
            vectors.append([float(v) for v in fields[1:]])
        except ValueError:
            raise InputError(display, line, "numeric vector values", "text") from None
    return _embeddings(ids, np.asarray(vectors, dtype=np.float64).reshape(len(ids), width), display, first_line=2)


def _embeddings_from_frame(frame, display: str, first_line: int) -> Embeddings:
    columns = [str(c) for c in frame.columns]
    id_column = next((c for c in frame.columns if str(c).lower() in {"id", "image_id"}), None)
    if id_column is None:
        raise InputError(display, None, "an 'ID' column", ", ".join(columns)[:80])
    vector_frame = frame.drop(columns=[id_column])
    try:
        matrix = vector_frame.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(display, None, "numeric vector columns", "non-numeric values") from None
    ids = [_check_id(str(v), display, i + first_line) for i, v in enumerate(frame[id_column])]
    return _embeddings(ids, matrix, display, first_line)


def _embeddings(ids: list[str], matrix: np.ndarray, display: str, first_line: int) -> Embeddings:
    matrix = np.asarray(matrix, dtype=np.float64)
    if len(set(ids)) != len(ids):
        duplicate = next(i for n, i in enumerate(ids) if i in ids[:n])
        raise InputError(display, first_line + ids.index(duplicate), "unique IDs", f"duplicate {duplicate!r}")
    bad = np.flatnonzero(~np.isfinite(matrix).all(axis=1)) if matrix.size else []
    if len(bad):
        raise InputError(display, first_line + int(bad[0]), "finite vector values", "NaN or infinity")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return Embeddings(tuple(ids), matrix.astype(np.float32), display)
