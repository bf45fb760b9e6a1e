"""The KG at UMLS scale: MRREL.RRF read in a streaming, vectorised pass (the same edges and the same first
error as the line-by-line definition), graphs built from edge tables, and the synthetic graph generator."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalcore.data import KGEdges, KGEdgeTable
from evalcore.errors import InputError
from evalcore.io.loading import load_kg
from evalcore.readers import files, read_kg
from evalcore.relevance.kg import KnowledgeGraph
from tests import line_by_line
from tests.conftest import DEMO, ROOT

CUIS = ["C0000001", "C0000002", "C0000003", "C0000010", "c0000004", "C000005", "C\u0661\u0662\u0663\u0664\u0665\u0666\u0667",
        "X:1", ""]
RELATIONS = [("PAR", ""), ("PAR", "inverse_isa"), ("CHD", ""), ("CHD", "isa"), ("RO", "isa"), ("RO", "inverse_isa"),
             ("PAR", "part_of"), ("RB", ""), ("CHD", "inverse_isa")]
SABS = ["MSH", "NCI", "", "é"]
PADS = ["", "", "", " ", "\t", "\x0b", "\xa0", "\x1c"]
ENDINGS = ["\n"] * 8 + ["\r\n", "\n\n", "\n \n", "\r"]


def outcome(reader, *arguments):
    try:
        return "ok", reader(*arguments)
    except InputError as error:
        return "error", str(error), error.line


@st.composite
def mrrel_files(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        rel, rela = draw(st.sampled_from(RELATIONS))
        fields = [draw(st.sampled_from(CUIS)), "A1", "AUI", rel, draw(st.sampled_from(CUIS)), "A2", "AUI", rela, "R1", "",
                  draw(st.sampled_from(SABS)), "MSH", "", "", "N", ""]
        fields = fields[: draw(st.sampled_from([16, 16, 16, 11, 12, 10, 5]))]
        line = "|".join(fields) + draw(st.sampled_from(["|", "|", ""]))
        lines.append(draw(st.sampled_from(PADS)) + line + draw(st.sampled_from(PADS)) + draw(st.sampled_from(ENDINGS)))
    data = "".join(lines).encode("utf-8")
    damage = draw(st.integers(0, 19))
    if damage == 0 and data:
        position = draw(st.integers(0, len(data) - 1))
        data = data[:position] + b"\x00" + data[position:]
    elif damage == 1 and data:
        position = draw(st.integers(0, len(data) - 1))
        data = data[:position] + b"\xff" + data[position:]
    elif damage == 2:
        data = b"\xef\xbb\xbf" + data
    return data


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=mrrel_files())
def test_mrrel_bytes_read_as_line_by_line(data):
    assert outcome(lambda: read_kg(data, "MRREL.RRF").edges) == outcome(line_by_line.read_mrrel_edges, data, "MRREL.RRF")


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=mrrel_files())
def test_mrrel_file_streamed_in_small_pieces_reads_as_line_by_line(data, tmp_path, monkeypatch):
    # Pieces of 40 bytes: every row boundary case, and errors found in different pieces, keep their precedence.
    monkeypatch.setattr(files, "READ_PIECE_BYTES", 40)
    path = tmp_path / "MRREL.RRF"
    path.write_bytes(data)
    assert outcome(lambda: read_kg(path).edges) == outcome(line_by_line.read_mrrel_edges, data, str(path))


@pytest.mark.parametrize("damage, expected", [((), "line 3: expected MRREL.RRF rows"),
                                              ((b"\x00",), "line 7: expected text"),
                                              ((b"\x00", b"\xff"), "line 9: expected UTF-8 text")])
def test_streamed_errors_keep_the_whole_file_precedence(tmp_path, monkeypatch, damage, expected):
    # A short row (line 3) before a NUL byte (line 7) before a byte that is not UTF-8 (line 9), in different pieces:
    # the whole-file definition reports the first non-UTF-8 byte, else the first NUL, else the first short row.
    monkeypatch.setattr(files, "READ_PIECE_BYTES", 64)
    good = b"C0000002|A|AUI|PAR|C0000001|A|AUI|inverse_isa|R||MSH|MSH|||N||\n"
    lines = [good, good, b"C0000002|A|AUI|PAR\n", good, good, good, good, good, good, good]
    for line, byte in zip((6, 8), damage):
        lines[line] = good[:5] + byte + good[5:]
    path = tmp_path / "MRREL.RRF"
    path.write_bytes(b"".join(lines))
    with pytest.raises(InputError, match=expected):
        read_kg(path)
    with pytest.raises(InputError, match=expected):
        line_by_line.read_mrrel_edges(path.read_bytes(), str(path))


def test_streamed_file_is_a_table_and_refuses_what_it_cannot_hold(tmp_path, monkeypatch):
    path = tmp_path / "MRREL.RRF"
    path.write_bytes(b"C0000002|A|AUI|PAR|C0000001|A|AUI|inverse_isa|R||MSH|MSH|||N||\n" * 3)
    table = read_kg(path)
    assert isinstance(table, KGEdgeTable) and table.edges == (("C0000002", "C0000001", "MSH"),)
    monkeypatch.setenv("CBIR_LENS_MAX_INPUT_BYTES", "100")
    with pytest.raises(InputError, match="at most 100 bytes"):
        read_kg(path)


def test_load_kg_takes_an_already_read_table(tmp_path):
    path = tmp_path / "MRREL.RRF"
    path.write_bytes(b"C0000002|A|AUI|CHD|C0000001|A|AUI|isa|R||MSH|MSH|||N||\n")
    kg = load_kg([read_kg(path)])
    assert kg.nodes == ("C0000001", "C0000002") and kg.shortest_path("C0000001", "C0000002")[-1][1] == "is_a"


def _graph_as_sets(kg: KnowledgeGraph) -> tuple:
    rows, columns = kg.parents.nonzero()
    return kg.nodes, kg.sources, sorted(zip(rows.tolist(), columns.tolist())), kg.parents.dtype


@pytest.mark.parametrize("sources", [None, ["MSH"], ["NCI", "umls"], []])
def test_graph_from_a_table_equals_graph_from_tuples(sources):
    rng = np.random.default_rng(4)
    lines = []
    for _ in range(300):
        child, parent = rng.integers(1, 60, size=2)
        sab = ["MSH", "NCI", ""][rng.integers(0, 3)]
        lines.append(f"C{child:07d}|A|AUI|PAR|C{parent:07d}|A|AUI||R||{sab}|MSH|||N||\n")
    table = read_kg("".join(lines).encode(), "MRREL.RRF")
    assert isinstance(table, KGEdgeTable)
    tuples = KGEdges(table.edges, {}, "MRREL.RRF")
    assert _graph_as_sets(KnowledgeGraph.from_edges([table], sources)) == \
        _graph_as_sets(KnowledgeGraph.from_edges([tuples], sources))
    other = KGEdges((("C0000001", "X:root", "obo"), ("Z:leaf", "C0000059", "obo")), {"X:root": "root"})
    mixed = KnowledgeGraph.from_edges([table, other], sources)
    assert _graph_as_sets(mixed) == _graph_as_sets(KnowledgeGraph.from_edges([tuples, other], sources))
    assert mixed.names == {"X:root": "root"}


def _generator():
    spec = importlib.util.spec_from_file_location("make_synthetic_kg", ROOT / "scripts" / "make_synthetic_kg.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_synthetic_kg_has_the_asked_shape_and_is_deterministic(tmp_path):
    script = _generator()
    first, again = tmp_path / "a.RRF", tmp_path / "b.RRF"
    for out in (first, again):
        assert script.main([str(out), "--nodes", "3000", "--edges", "7000", "--lines", "9000", "--depth", "9",
                            "--include", str(DEMO / "concepts.csv")]) == 0
    data = first.read_bytes()
    assert data == again.read_bytes() and data.count(b"\n") == 9000
    table = read_kg(first)
    kg = KnowledgeGraph.from_edges([table])
    assert kg.number_of_nodes() == 3000 and kg.number_of_edges() == 7000
    assert table.edges == line_by_line.read_mrrel_edges(data, "x")
    # A DAG: no node reaches itself going up; several parents per node on average; the demo's CUIs are nodes.
    assert kg.parents.sum(axis=1).mean() > 2
    reach = kg.parents.astype(np.int32).tocsr()
    step = reach
    for _ in range(9):
        step = (step @ kg.parents.astype(np.int32)).tocsr()
        reach = reach + step
    assert reach.diagonal().sum() == 0
    demo = {c for line in (DEMO / "concepts.csv").read_text().splitlines()[1:] for c in line.split(",")[1].split(";") if c}
    assert demo <= set(kg.nodes)
