"""The readers as they were defined before vectorising: one Python step per line (test-only oracle).

Each function reads a whole file line by line with the standard library, exactly as
``evalcore.readers`` did up to the commit that vectorised it; the vectorised readers must give
the same values, the same order and the same first error (message and line) on every input.
At the end, the engine's block summary as it was before selection replaced its full per-row sort.
"""

from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

import numpy as np

from evalcore.errors import InputError
from evalcore.relevance.formulas import reaching

CUI = re.compile(r"^C[0-9]{7}\Z")
ONTOLOGY_ID = re.compile(r"^[A-Z][A-Z0-9_]{0,31}:[0-9]{1,20}\Z")


def concept_id(token: str) -> bool:
    """A concept of a concepts file: a CUI or an ontology ID PREFIX:digits (upper-cased)."""
    return bool(CUI.match(token) or ONTOLOGY_ID.match(token))


def concept_node(node: str) -> str:
    """A node as a concepts file names it: a CUI or an ontology ID upper-cased, any other node as written (since hunt
    28d a KG's "uberon:0001638" is the concept sets' "UBERON:0001638")."""
    return node.upper() if concept_id(node.upper()) else node


MAX_RANK = 10**9
MAX_CONCEPTS = 500
MAX_PREDICTED = 100
csv.field_size_limit(100_000)


def text_of(data: bytes, display: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(display, data[: error.start].count(b"\n") + 1, "UTF-8 text",
                         f"byte 0x{data[error.start]:02x}") from None
    if "\x00" in text:
        raise InputError(display, text[: text.index("\x00")].count("\n") + 1, "text", "a NUL byte (binary file?)")
    return text


def csv_rows(text: str, display: str, delimiter: str = ","):
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    while True:
        start = reader.line_num + 1  # a record is named by the line it starts on
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise InputError(display, start, "well-formed CSV", str(error)) from None
        if not row or all(not field.strip() for field in row):
            continue
        yield start, [field.strip() for field in row]


def split_lines(text: str):
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if line:
            yield number, line


def first_line(text: str) -> tuple[int, str]:
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            return number, line.strip()
    return 0, ""


DELIMITER_NAMES = {",": "','", "\t": "a tab", ";": "';'", "|": "'|'", " ": "whitespace"}


def check_delimiter(first: str, line: int, display: str, accepted: tuple[str, ...], shape: str) -> None:
    if not first or any(d in first for d in accepted):
        return
    found = next((d for d in DELIMITER_NAMES if d in first and d not in accepted), None)
    if found is not None:
        wanted = " or ".join(DELIMITER_NAMES[d] for d in accepted)
        raise InputError(display, line, f"{shape} with fields separated by {wanted}", f"{DELIMITER_NAMES[found]} as the delimiter")


def check_id(image_id: str, display: str, line: int) -> str:
    if not image_id or len(image_id) > 300 or any(ch.isspace() for ch in image_id):
        raise InputError(display, line, "an image ID without spaces (1-300 characters)", repr(image_id)[:60])
    return image_id


# --- runs ------------------------------------------------------------------------------------

def read_runs(data: bytes, display: str) -> list[tuple[str, list[tuple[str, tuple[str, ...]]]]]:
    """``[(system, [(query, ranked IDs), ...]), ...]`` in the order the reader gives them."""
    text = text_of(data, display)
    line_number, first = first_line(text)
    is_csv = "," in first and len(first.split()) < 6
    if not is_csv and len(first.split()) < 6:
        check_delimiter(first, line_number, display, (",", " ", "\t"),
                        "TREC 'qid Q0 docid rank score tag' or CSV 'query_id,image_id,rank[,score]'")
    entries = csv_run_entries(text, display, Path(display).stem) if is_csv else trec_run_entries(text, display)
    systems: dict[str, dict[str, list[tuple[float, int, str]]]] = {}
    seen_documents: dict[tuple[str, str, str], int] = {}
    seen_ranks: dict[tuple[str, str, int], int] = {}
    for line, tag, qid, docid, rank, score in entries:
        document_key, rank_key = (tag, qid, docid), (tag, qid, rank)
        if document_key in seen_documents:
            raise InputError(display, line, f"each image once per query ({docid!r} already on line "
                             f"{seen_documents[document_key]})", "a duplicate")
        if rank_key in seen_ranks:
            raise InputError(display, line, f"each rank once per query (rank {rank} of query {qid!r} already on line "
                             f"{seen_ranks[rank_key]})", "a duplicate rank")
        seen_documents[document_key] = seen_ranks[rank_key] = line
        systems.setdefault(tag, {}).setdefault(qid, []).append((-score, rank, docid))
    if not systems:
        raise InputError(display, None, "at least one run line", "none")
    return [(tag, [(qid, tuple(doc for _, _, doc in sorted(items))) for qid, items in per_query.items()])
            for tag, per_query in systems.items()]


def parse_rank_score(rank_raw: str, score_raw: str | None, display: str, line: int) -> tuple[int, float]:
    """As trec_eval's atol()/atof() read them: ASCII digits only (no '1_0', no other scripts' digits)."""
    if not re.fullmatch(r"[+-]?[0-9]+", rank_raw):
        raise InputError(display, line, "an integer rank", repr(rank_raw)[:40])
    digits = rank_raw.lstrip("+-").lstrip("0")
    # The digits without leading zeros: int() refuses a text of over 4,300 digits, zeros included.
    if len(digits) > 10 or rank_raw.startswith("-") and digits or int(digits or "0") > MAX_RANK:
        raise InputError(display, line, f"a rank between 0 and {MAX_RANK:,}", rank_raw[:40])
    rank = int(digits or "0")
    if score_raw is None:
        return rank, 0.0
    if re.fullmatch(r"[+-]?(inf|infinity|nan)", score_raw, re.IGNORECASE):
        raise InputError(display, line, "a finite score", score_raw)
    if not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", score_raw):
        raise InputError(display, line, "a numeric score", repr(score_raw)[:40])
    score = float(score_raw)
    if not math.isfinite(score):
        raise InputError(display, line, "a finite score", score_raw)
    return rank, score


def trec_run_entries(text: str, display: str) -> list:
    entries = []
    for line, content in split_lines(text):
        fields = content.split()
        if len(fields) != 6:
            raise InputError(display, line, "6 whitespace-separated fields 'qid Q0 docid rank score tag'",
                             f"{len(fields)} fields")
        qid, _, docid, rank_raw, score_raw, tag = fields
        rank, score = parse_rank_score(rank_raw, score_raw, display, line)
        entries.append((line, tag, check_id(qid, display, line), check_id(docid, display, line), rank, score))
    return entries


def csv_run_entries(text: str, display: str, system: str) -> list:
    """Since issue #21: a file with a score column (named in the header or, without a header, a fourth field
    on the first row) has a non-empty score on every row; without a header, rows agree with the first on it."""
    entries = []
    columns: dict[str, int] | None = None
    header = False
    for position, (line, fields) in enumerate(csv_rows(text, display)):
        if position == 0:
            lowered = [f.lower() for f in fields]
            if {"query_id", "image_id"} <= set(lowered):
                columns = {name: lowered.index(name) for name in ("query_id", "image_id", "rank", "score") if name in lowered}
                header = True
                continue
            columns = {"query_id": 0, "image_id": 1, "rank": 2, "score": 3} if len(fields) >= 4 else \
                {"query_id": 0, "image_id": 1, "rank": 2}
        if "rank" not in columns:
            raise InputError(display, 1, "a header 'query_id,image_id,rank[,score]'", "no rank column")
        if len(fields) < columns["rank"] + 1:
            raise InputError(display, line, "fields 'query_id,image_id,rank[,score]'", f"{len(fields)} fields")
        score_raw = None
        if "score" in columns:
            if len(fields) <= columns["score"]:
                raise InputError(display, line, f"a score in field {columns['score'] + 1} (the file has a score column: "
                                 "every row needs one)", f"{len(fields)} fields")
            score_raw = fields[columns["score"]]
            if score_raw == "":
                raise InputError(display, line, f"a score in field {columns['score'] + 1} (the file has a score column: "
                                 "every row needs one)", "an empty field")
        elif not header and len(fields) > 3:
            raise InputError(display, line, "3 fields 'query_id,image_id,rank' as on the first row (a score on every "
                             "row or on none)", f"{len(fields)} fields")
        rank, score = parse_rank_score(fields[columns["rank"]], score_raw, display, line)
        qid = check_id(fields[columns["query_id"]], display, line)
        docid = check_id(fields[columns["image_id"]], display, line)
        entries.append((line, system, qid, docid, rank, score))
    return entries


# --- concept sets ----------------------------------------------------------------------------

def read_concepts(data: bytes, display: str) -> list[tuple[str, frozenset[str]]]:
    text = text_of(data, display)
    line_number, first = first_line(text)
    check_delimiter(first, line_number, display, (",", "\t"), "'ID,CUIs' (or ImageCLEF 'ID<TAB>C1,C2')")
    if "\t" in first:
        rows = tab_rows(text, display)
        separators = ",;"
    else:
        rows = csv_rows(text, display)
        separators = ";"
    result: list[tuple[str, frozenset[str]]] = []
    seen: dict[str, int] = {}
    for position, (line, fields) in enumerate(rows):
        if position == 0 and is_concept_header(fields):
            continue
        if len(fields) == 1:
            if ";" in fields[0] or "|" in fields[0]:
                raise InputError(display, line, "2 fields 'ID,CUIs' separated by ','", repr(fields[0])[:60])
            fields = [fields[0], ""]
        if len(fields) != 2:
            raise InputError(display, line, "2 fields (ID and CUIs)", f"{len(fields)} fields")
        image_id = check_id(fields[0], display, line)
        if image_id in seen:
            raise InputError(display, line, f"a new ID ({image_id!r} already on line {seen[image_id]})", "a duplicate")
        seen[image_id] = line
        result.append((image_id, cui_set(fields[1], separators, display, line)))
    if not result:
        raise InputError(display, None, "at least one row 'ID,CUIs'", "no data rows")
    return result


def is_concept_header(fields: list[str]) -> bool:
    return len(fields) >= 2 and not concept_id(fields[1].split(";")[0].strip().upper()) and (
        fields[0].lower() in {"id", "image", "image_id", "imageid"} or fields[1].lower() in {"cuis", "cui", "concepts"}
    )


def tab_rows(text: str, display: str):
    for line, content in split_lines(text):
        fields = content.split("\t")
        if len(fields) > 2:
            raise InputError(display, line, "ID<TAB>CUIs", f"{len(fields)} tab-separated fields")
        yield line, [f.strip() for f in fields]


def cui_set(raw: str, separators: str, display: str, line: int) -> frozenset[str]:
    tokens = [t.strip() for t in re.split(f"[{re.escape(separators)}]", raw)] if raw.strip() else []
    if len(tokens) > MAX_CONCEPTS:
        raise InputError(display, line, f"at most {MAX_CONCEPTS} concepts per image", f"{len(tokens)}")
    cuis = set()
    for token in tokens:
        cui = token.upper()
        if not concept_id(cui):
            shown = token if token else "an empty CUI token"
            raise InputError(display, line, "CUIs of the form C + 7 digits or ontology IDs PREFIX:digits (UBERON:0002298)",
                             repr(shown)[:60])
        cuis.add(cui)
    return frozenset(cuis)


# --- predicted concepts ----------------------------------------------------------------------

def read_predictions(data: bytes, display: str, known_ids=None) -> tuple[dict[str, frozenset[str]], list[tuple[int, str]],
                                                                         int]:
    text = text_of(data, display)
    check_delimiter(*reversed(first_line(text)), display, (",", "\t", "|"), "prediction lines 'ID,CUI;CUI'")
    unknown: list[tuple[int, str]] = []
    sets: dict[str, frozenset[str]] = {}
    problems: list[tuple[int, str]] = []
    first_line_of: dict[str, int] = {}
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        parts = re.split(r"[,\t|]", line, maxsplit=1)
        image_id = parts[0].strip()
        if number == 1 and image_id.lower() in {"id", "image_id", "imageid"}:
            continue
        tokens = [t.strip() for t in re.split(r"[;,]", parts[1])] if len(parts) > 1 and parts[1].strip() else []
        if known_ids is not None and image_id not in known_ids:
            shown = repr(image_id) if len(image_id) <= 60 else f"{image_id[:60]!r}… ({len(image_id):,} characters)"
            if not image_id.isascii():  # Unicode writes some letters in two ways that print the same
                shown += (f" (as code points {ascii(image_id[:60])}; Unicode writes some letters in two ways, NFC "
                          "and NFD)")
            problems.append((number, f"unknown image ID {shown}"))
            unknown.append((number, shown))
            continue
        if image_id in first_line_of:
            raise InputError(display, number, f"each image ID once ({image_id!r} already on line "
                             f"{first_line_of[image_id]})", "a repeated ID")
        first_line_of[image_id] = number
        if len(tokens) > MAX_PREDICTED:
            problems.append((number, f"{len(tokens)} concepts (at most {MAX_PREDICTED} allowed)"))
            tokens = tokens[:MAX_PREDICTED]
        concepts: set[str] = set()
        for token in tokens:
            cui = token.upper()
            if not cui:
                problems.append((number, "empty CUI token"))
            elif not CUI.match(cui):
                problems.append((number, f"malformed CUI {token[:40]!r}"))
            elif cui in concepts:
                problems.append((number, f"duplicate concept {cui}"))
            else:
                concepts.add(cui)
        sets[image_id] = frozenset(concepts)
    if not first_line_of and unknown:
        raise InputError(display, unknown[0][0], "prediction lines whose image IDs are in the ground truth",
                         f"none in its {len(unknown):,} lines (the first: {unknown[0][1]})")
    if not first_line_of:
        raise InputError(display, None, "at least one prediction line 'ID,CUI;CUI'",
                         "a header-only file" if first_line(text)[0] else "an empty file")
    return sets, problems[:1000], max(0, len(problems) - 1000)


# --- image pairs (the relevance command) -----------------------------------------------------

def read_pairs(data: bytes, display: str) -> list[tuple[int, str, str]]:
    text = text_of(data, display)
    line_number, first = first_line(text)
    check_delimiter(first, line_number, display, (",",), "a header 'a,b'")
    pairs: list[tuple[int, str, str]] = []
    for position, (line, fields) in enumerate(csv_rows(text, display)):
        if position == 0:
            if [f.lower() for f in fields[:2]] != ["a", "b"]:
                raise InputError(display, line, "a header 'a,b'", ",".join(fields)[:60])
            continue
        if len(fields) != 2:
            raise InputError(display, line, "2 image IDs 'a,b'", f"{len(fields)} fields")
        pairs.append((line, check_id(fields[0], display, line), check_id(fields[1], display, line)))
    if not pairs:
        raise InputError(display, None, "a header 'a,b' and a pair of image IDs after it",
                         "a header-only file" if line_number else "an empty file")
    return pairs


# --- knowledge graph edge lists and concept names --------------------------------------------

NODE = re.compile(r"^[^\s,;|]{1,200}$")


def kg_node(raw: str, display: str, line: int) -> str:
    if not NODE.match(raw):
        raise InputError(display, line, "a node ID (CUI or ontology ID) without spaces", repr(raw)[:60])
    return concept_node(raw)


def read_kg_edges(data: bytes, display: str) -> tuple[tuple[str, str, str], ...]:
    """The edge-list form only (CSV or TSV)."""
    return read_kg_edge_list(data, display)[0]


def read_kg_edge_list(data: bytes, display: str) -> tuple[tuple[tuple[str, str, str], ...], frozenset[tuple[str, str]]]:
    """The edges of an edge list and its part_of pairs: a header may name a ``source`` and a ``relation`` column (a
    relation is is_a, the default, or part_of)."""
    text = text_of(data, display)
    line_number, first = first_line(text)
    check_delimiter(first, line_number, display, (",", "\t"), "an edge list 'child,parent' (or MRREL.RRF or OBO)")
    delimiter = "\t" if "\t" in first else ","
    edges = []
    part_of = set()
    default_source = Path(display).stem
    source_column = relation_column = None
    for position, (line, fields) in enumerate(csv_rows(text, display, delimiter)):
        if position == 0 and [f.lower() for f in fields[:2]] == ["child", "parent"]:
            lowered = [f.lower() for f in fields]
            source_column = lowered.index("source") if "source" in lowered else None
            relation_column = lowered.index("relation") if "relation" in lowered else None
            continue
        if len(fields) < 2:
            raise InputError(display, line, "2 fields 'child,parent' (is_a, child -> parent)", f"{len(fields)} field")
        child, parent = (kg_node(f, display, line) for f in fields[:2])
        tag = fields[source_column] if source_column is not None and source_column < len(fields) else default_source
        relation = fields[relation_column] if relation_column is not None and relation_column < len(fields) else ""
        if relation not in ("", "is_a", "part_of"):
            raise InputError(display, line, "a relation is_a or part_of (empty: is_a)", repr(relation))
        if child != parent:
            edges.append((child, parent, tag or default_source))
            if relation == "part_of":
                part_of.add((child, parent))
    if not edges:
        raise InputError(display, None, "at least one edge 'child,parent'", "none")
    return tuple(edges), frozenset(part_of)


def read_mrrel_edges(data: bytes, display: str) -> tuple[tuple[str, str, str], ...]:
    """UMLS MRREL.RRF: CUI1|AUI1|STYPE1|REL|CUI2|AUI2|STYPE2|RELA|RUI|SRUI|SAB|... (is_a rows only)."""
    text = text_of(data, display)
    edges: set[tuple[str, str, str]] = set()
    for line, content in split_lines(text):
        fields = content.split("|")
        if len(fields) < 11:
            raise InputError(display, line, "MRREL.RRF rows with at least 11 '|'-separated fields", f"{len(fields)}")
        cui1, rel, cui2, rela, sab = fields[0], fields[3], fields[4], fields[7], fields[10]
        if not (CUI.match(cui1) and CUI.match(cui2)) or cui1 == cui2:
            continue
        if rela == "inverse_isa" or (rel == "PAR" and rela in {"", "inverse_isa"}):
            edges.add((cui1, cui2, sab or "umls"))
        elif rela == "isa" or (rel == "CHD" and rela in {"", "isa"}):
            edges.add((cui2, cui1, sab or "umls"))
    if not edges:
        raise InputError(display, None, "PAR/CHD or isa/inverse_isa relations between CUIs", "none")
    return tuple(sorted(edges))


def read_concept_names(data: bytes, display: str) -> dict[str, str]:
    """The CSV form only."""
    text = text_of(data, display)
    line_number, first = first_line(text)
    check_delimiter(first, line_number, display, (",",), "'CUI,Name' (or MRCONSO.RRF)")
    names: dict[str, str] = {}
    for position, (line, fields) in enumerate(csv_rows(text, display)):
        # a header's first field is no ID: neither a CUI, nor PREFIX:digits, nor any word with a colon
        if position == 0 and not concept_id(fields[0].strip().upper()) and ":" not in fields[0].strip():
            continue
        if len(fields) != 2:
            raise InputError(display, line, "2 fields (CUI,Name); quote names containing commas",
                             f"{len(fields)} field{'s' if len(fields) != 1 else ''}")
        node = fields[0]
        if not NODE.match(node):
            raise InputError(display, line, "a concept ID without spaces", repr(node)[:60])
        names[concept_node(node)] = fields[1]
    return names


# --- The engine's block summary as it was defined before selection (test-only oracle) ---------------------------
#
# summarise_block sorted each row of relevance keys in full up to the commit that replaced the sort by a selection
# (evalcore.engine.kernels.top_keyed); the selection must give the same ideal values, relevant counts and top
# candidates, in the same tie order, on every block.


def summarise_block_by_sorting(keys: np.ndarray, values: np.ndarray, k: int, threshold: float, depth: int
                               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ideal top ``k``, the count reaching ``threshold`` and the top ``depth`` of a block of relevance keys
    (``values[key]``, key 0 the query itself), each row sorted in full."""
    ordered = np.sort(keys, axis=1, kind="stable")
    width = min(k, ordered.shape[1])
    ideal = np.zeros((ordered.shape[0], k))
    ideal[:, :width] = np.maximum(values[ordered[:, ::-1][:, :width]], 0.0)
    lowest_relevant = np.searchsorted(values[1:], reaching(threshold)) + 1
    relevant = ordered.shape[1] - _row_lower_bounds(ordered, lowest_relevant)
    # The top depth by (key desc, column asc), each row sorted in full (stable: equal keys keep their columns' order);
    # the query itself (key 0) never, rows padded with -1.
    order = np.argsort(-keys.astype(np.int64), axis=1, kind="stable")[:, :depth]
    top = np.where(np.take_along_axis(keys, order, axis=1) > 0, order, -1).astype(np.int64)
    return ideal, relevant, np.pad(top, ((0, 0), (0, depth - top.shape[1])), constant_values=-1)


def _row_lower_bounds(ordered: np.ndarray, value) -> np.ndarray:
    """Per row of an ascending-sorted matrix, the first position whose entry is >= ``value``."""
    rows, columns = ordered.shape
    low, high = np.zeros(rows, dtype=np.int64), np.full(rows, columns, dtype=np.int64)
    row_ids = np.arange(rows)
    while (low < high).any():
        middle = (low + high) // 2
        below = ordered[row_ids, np.minimum(middle, columns - 1)] < value
        active = low < high
        low = np.where(active & below, middle + 1, low)
        high = np.where(active & ~below, middle, high)
    return low


def top_keyed_per_row(keys: np.ndarray, depth: int) -> list[list[int]]:
    """Per row, the columns of its ``depth`` largest keys, by (key desc, column asc), key 0 left out, padded with -1:
    one Python sort per row."""
    tops = []
    for row in keys.tolist():
        ranked = [column for column in sorted(range(len(row)), key=lambda c: (-row[c], c)) if row[column] != 0]
        tops.append((ranked + [-1] * depth)[:depth])
    return tops


class JudgedRelevanceByItems:
    """The relevance of a qrels file as the evaluator computed it before vectorising: one dict look-up per retrieved
    item, one Python sum or sort per query (test-only oracle for ``evalcore.evaluation.evaluator.JudgedRelevance``)."""

    def __init__(self, judgments: dict[str, dict[str, int]], source: str = "qrels"):
        self.judgments, self.source = judgments, source
        self.highest_grade = max((g for judged in judgments.values() for g in judged.values()), default=0)

    def ideal(self, query_ids, k: int):
        best = [sorted((g for g in self.judgments[q].values() if g > 0), reverse=True)[:k] for q in query_ids]
        ideal = np.zeros((len(query_ids), max(1, min(k, max(map(len, best), default=0)))))
        for row, grades in enumerate(best):
            ideal[row, :len(grades)] = grades
        return ideal

    def relevant_counts(self, query_ids, level: int):
        return np.array([sum(g >= level for g in self.judgments[q].values()) for q in query_ids], dtype=np.int64)

    def align(self, run, depth: int, concepts, keep_query: bool = False):
        from evalcore.data import Run
        from evalcore.errors import quoted_id
        from evalcore.evaluation.evaluator import PADDING, QUERY_ITSELF, UNKNOWN, AlignedRun

        if isinstance(run, Run):
            rankings = {q: list(docs) for q, docs in run.rankings.items()}
        else:
            ids = concepts.ids
            rankings = {ids[row]: [ids[d] if d >= 0 else ids[row] if d == QUERY_ITSELF else None for d in docs
                                   if d != PADDING] for row, docs in zip(run.query_rows, run.documents)}
        judged = [q for q in rankings if q in self.judgments]
        if rankings and not judged:
            first = next(iter(rankings))
            raise InputError(getattr(run, "source", run.name), None, f"query IDs that have judgments in {self.source}",
                             f"none of its {len(rankings):,} queries does (first: {quoted_id(first)})")
        grades = np.zeros((len(judged), depth))
        documents = np.full((len(judged), depth), PADDING, dtype=np.int64)
        unjudged = in_own_list = 0
        for row, query in enumerate(judged):
            judgments = self.judgments[query]
            in_own_list += query in rankings[query]
            kept = rankings[query] if keep_query else [d for d in rankings[query] if d != query]
            for position, document in enumerate(kept[:depth]):
                grade = judgments.get(document) if document is not None else None
                unjudged += grade is None
                grades[row, position] = max(grade or 0, 0)
                if concepts is not None:
                    documents[row, position] = (QUERY_ITSELF if document == query else UNKNOWN if document is None
                                                else concepts.index.get(document, UNKNOWN))
        counts = {
            "queries_in_run": len(rankings),
            "queries_evaluated": len(judged),
            "queries_unknown": len(rankings) - len(judged),
            "queries_judged_not_in_run": len(set(self.judgments) - set(rankings)),
            "retrieved_unjudged": unjudged,
            "query_dropped_from_own_list": 0 if keep_query else in_own_list,
        }
        if keep_query:
            counts["query_kept_in_own_list"] = in_own_list
        on_concepts = None
        if concepts is not None:
            rows = np.array([concepts.index.get(q, -1) for q in judged], dtype=np.int64)
            on_concepts = AlignedRun(run.name, rows, documents, counts)
        return tuple(judged), grades, on_concepts, counts


def read_qrels(data: bytes, display: str) -> dict[str, dict[str, int]]:
    """TREC qrels ``qid iter docid grade`` line by line, as ``evalcore.readers.read_qrels`` read them before
    vectorising (``#`` lines skipped, 4 fields, integer grades within 2^53, each pair once, at least one line)."""
    text = text_of(data, display)
    judgments: dict[str, dict[str, int]] = {}
    seen: dict[tuple[str, str], int] = {}
    for line, content in split_lines(text):
        if content.startswith("#"):
            continue
        fields = content.split()
        if len(fields) != 4:
            raise InputError(display, line, "4 whitespace-separated fields 'qid iter docid grade'", f"{len(fields)} fields")
        qid, docid = check_id(fields[0], display, line), check_id(fields[2], display, line)
        if not re.fullmatch(r"[+-]?[0-9]+", fields[3]):
            raise InputError(display, line, "an integer grade (e.g. 0, 1, 2)", repr(fields[3])[:40])
        digits = fields[3].lstrip("+-").lstrip("0")
        grade = (-1 if fields[3].startswith("-") else 1) * int(digits or "0") if len(digits) <= 16 else None
        if grade is None or abs(grade) > 1 << 53:
            raise InputError(display, line, "a grade between -2^53 and 2^53", fields[3][:40])
        if (qid, docid) in seen:
            raise InputError(display, line, f"each (query, document) pair judged once ({qid} {docid} already on line "
                                            f"{seen[(qid, docid)]})", "a duplicate")
        seen[(qid, docid)] = line
        judgments.setdefault(qid, {})[docid] = grade
    if not judgments:
        raise InputError(display, None, "at least one judgment line 'qid iter docid grade'", "none")
    return judgments
