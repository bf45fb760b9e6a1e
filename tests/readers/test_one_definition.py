"""Two definitions per reader format at most (issue 66): the library's one, and the tests' independent oracle.

In the library a format has one definition (see evalcore/readers/__init__.py): pyarrow splits the
text where it can, Python splits it elsewhere (CSV records, lines split at line feeds), and both
hand the rows to the same checks. Here: the oracle, tests/line_by_line.py, imports nothing from
the readers; every reader gives the oracle's answer with pyarrow's splitting turned off as with
it on; and the two ways of splitting lines give the same rows.
"""

from __future__ import annotations

import ast
from pathlib import Path
from unittest import mock

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalcore.errors import InputError
from evalcore.readers import columnar, read_concept_names, read_kg, read_pairs, read_qrels
from evalcore.readers.columnar import absent_byte, line_column, parse_pieces, python_line_column, split_by_python
from evalcore.readers.lines import first_line_span
from tests import line_by_line
from tests.readers.test_kg_scale import mrrel_files
from tests.readers.test_qrels_columns import qrels_files
from tests.readers.test_vectorised_readers import (
    KNOWN,
    NODES,
    TAG_VALUES,
    concept_files,
    concepts_as_list,
    csv_run_files,
    name_files,
    pair_files,
    prediction_files,
    predictions_as_tuple,
    runs_as_lists,
)

EXAMPLES = 150
READERS_PACKAGE = "evalcore.readers"


def imported_modules(source: str) -> list[str]:
    """Every module an ``import``, ``from ... import`` or ``importlib.import_module``/``__import__`` call of a Python
    source names (``from a import b`` names both ``a`` and ``a.b``)."""
    named = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            named += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            named += [module] + [f"{module}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in (
                "import_module", "__import__"):
            named += [argument.value for argument in node.args[:1] if isinstance(argument, ast.Constant)]
    return named


def test_the_oracle_imports_nothing_from_the_readers():
    named = imported_modules(Path(line_by_line.__file__).read_text(encoding="utf-8"))
    assert "evalcore.errors" in named  # the check sees the oracle's imports
    assert [name for name in named if name == READERS_PACKAGE or name.startswith(READERS_PACKAGE + ".")] == []
    assert not [name for name in named if name.startswith(".")]  # nor reaches them by a relative import


def test_the_import_check_sees_every_form():
    source = ("import evalcore.readers.lines\nfrom evalcore import readers\nfrom evalcore.readers.qrels import _judgment\n"
              "def f():\n    import importlib\n    return importlib.import_module('evalcore.readers.concepts')\n")
    named = imported_modules(source)
    assert {"evalcore.readers.lines", "evalcore.readers", "evalcore.readers.qrels", "evalcore.readers.concepts"} <= set(named)


# --- every reader with pyarrow's splitting turned off ------------------------------------------


def result(read, data: bytes):
    try:
        return "ok", read(data)
    except InputError as error:
        return "error", str(error), error.line


@st.composite
def edge_list_files(draw) -> bytes:
    """Edge lists with source and relation columns: relations good and bad, padded, missing; edges to the node itself."""
    delimiter = draw(st.sampled_from([",", "\t"]))
    header = draw(st.sampled_from(["child,parent,source,relation", "child,parent,relation", "Child,Parent,Relation,Source",
                                   "child,parent", "C0000001,C0000002"]))
    lines = [header.replace(",", delimiter)]
    for _ in range(draw(st.integers(0, 8))):
        child = draw(st.sampled_from(NODES))
        parent = child if draw(st.integers(0, 7)) == 0 else draw(st.sampled_from(NODES))
        fields = [child, parent, draw(st.sampled_from(TAG_VALUES)),
                  draw(st.sampled_from(["is_a", "part_of", "", "part_of", "foo", " is_a", "IS_A"]))]
        fields = fields[: draw(st.sampled_from([4, 4, 4, 3, 2, 1]))]
        line = delimiter.join(fields)
        lines.append(line if draw(st.integers(0, 12)) else '"' + line)
    endings = [draw(st.sampled_from(["\n", "\n", "\r\n", "\r", "\n\n"])) for _ in lines]
    return "".join(line + ending for line, ending in zip(lines, endings)).encode("utf-8")


def _kg_edge_list(data: bytes):
    kg = read_kg(data, "kg.csv")
    return kg.edges, kg.part_of


def _judgments(qrels_read):
    judgments = qrels_read.judgments if hasattr(qrels_read, "judgments") else qrels_read
    return [(query, list(judgments[query].items())) for query in judgments]


# Per format read by pyarrow or Python: its files, the reader and the oracle (TREC runs are split by pyarrow alone).
FORMATS = {
    "concepts": (concept_files(), lambda data: concepts_as_list(data, "gt.csv"),
                 lambda data: line_by_line.read_concepts(data, "gt.csv")),
    "csv runs": (csv_run_files(), lambda data: runs_as_lists(data, "r.csv"), lambda data: line_by_line.read_runs(data, "r.csv")),
    "qrels": (qrels_files(), lambda data: _judgments(read_qrels(data, "q.qrels")),
              lambda data: _judgments(line_by_line.read_qrels(data, "q.qrels"))),
    "names": (name_files(), lambda data: list(read_concept_names(data, "names.csv").items()),
              lambda data: list(line_by_line.read_concept_names(data, "names.csv").items())),
    "pairs": (pair_files(), lambda data: read_pairs(data, "pairs.csv"), lambda data: line_by_line.read_pairs(data, "pairs.csv")),
    "kg edges": (edge_list_files(), _kg_edge_list, lambda data: line_by_line.read_kg_edge_list(data, "kg.csv")),
    "predictions": (prediction_files(), lambda data: predictions_as_tuple(data, "p.csv", KNOWN),
                    lambda data: line_by_line.read_predictions(data, "p.csv", KNOWN)),
    "mrrel": (mrrel_files(), lambda data: read_kg(data, "MRREL.RRF").edges,
              lambda data: line_by_line.read_mrrel_edges(data, "MRREL.RRF")),
}


@pytest.mark.slow
@pytest.mark.parametrize("format_name", list(FORMATS))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_reader_split_by_python_reads_as_the_oracle(format_name, data):
    files, read, oracle = FORMATS[format_name]
    file = data.draw(files)
    expected = result(oracle, file)
    assert result(read, file) == expected
    with split_by_python():
        assert result(read, file) == expected


# --- the two ways of splitting lines ---------------------------------------------------------------

PIECES = ["a", "b c", "ID,CUIs", "é", "\t", " ", "\n", "\n", "\n", "\r\n", "\r", "\ufeff", "\x0b", "\x1c", "\u2003", '"',
          "\x01"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=24))
def test_pyarrow_and_python_split_lines_alike(parts):
    text = "".join(parts).encode("utf-8")
    column, index = python_line_column(text)
    chosen_column, chosen_index = line_column(text)
    assert chosen_column.to_pylist() == column.to_pylist()
    assert chosen_index.kept_lines().tolist() == index.kept_lines().tolist()
    if b"\r" not in text.replace(b"\r\n", b""):  # no lone carriage return: pyarrow splits the text as Python does
        parsed = parse_pieces(text, ["line"], {"line": pa.string()}, absent_byte(text))
        assert parsed.table is not None and parsed.table.column("line").to_pylist() == column.to_pylist()
        assert [index.text(line).removesuffix("\r") for line in index.kept_lines().tolist()] == column.to_pylist()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=24), st.sampled_from([1, 2, 3, 1 << 20]))
def test_the_line_index_bounds_the_lines_a_plain_split_keeps(parts, line_piece):
    """The non-empty lines' positions and bounds, worked out a piece of lines at a time (of one to three lines here, so
    that a piece ends at every place), against splitting at each line feed and dropping a carriage return before it;
    and the first non-blank line (passing over ASCII blank lines at once) against stripping each line in turn."""
    text = "".join(parts).encode("utf-8")
    lines = text.split(b"\n")
    with mock.patch.object(columnar, "LINE_PIECE", line_piece):
        positions, starts, ends = columnar.LineIndex(text).kept_bounds()
    assert [text[start:end] for start, end in zip(starts.tolist(), ends.tolist())] == \
        [line.removesuffix(b"\r") for line in lines if line.removesuffix(b"\r")]
    assert positions.tolist() == [number for number, line in enumerate(lines) if line.removesuffix(b"\r")]
    first = next(((number, line.decode("utf-8").strip()) for number, line in enumerate(lines, start=1)
                  if line.decode("utf-8").strip()), (0, ""))
    assert first_line_span(text)[:2] == first
