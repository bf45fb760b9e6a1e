"""Readers: every format of docs/DESIGN.md §1, and errors that name file and line."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.data import ConceptClassMap, ImageLabels
from evalcore.errors import InputError
from evalcore.io.loading import load_kg
from evalcore.readers import (
    read_captions,
    read_concept_names,
    read_concepts,
    read_embeddings,
    read_kg,
    read_labels,
    read_run,
)
from tests.conftest import OPEN_KG, ROCOV2, needs


def test_concepts_csv_and_tab_forms():
    csv_sets = read_concepts(b"ID,CUIs\na,C0000001;C0000002;C0000001\nb,\n", "gt.csv")
    assert csv_sets["a"] == {"C0000001", "C0000002"} and csv_sets["b"] == frozenset()
    tab_sets = read_concepts(b"a\tC0000001,c0000002\r\nb\tC0000003;C0000004\n", "gt.txt")
    assert tab_sets["a"] == {"C0000001", "C0000002"} and tab_sets["b"] == {"C0000003", "C0000004"}


@pytest.mark.parametrize("content, line, expected", [
    (b"ID,CUIs\na,C0000001\na,C0000002\n", 3, "already on line 2"),
    (b"ID,CUIs\na,C0000001\nb,X123\n", 3, "C + 7 digits"),
    (b"ID,CUIs\na,C0000001,extra\n", 2, "2 fields"),
    (b"ID,CUIs\na,C0000001\n\xff\xfe\n", 3, "UTF-8"),
    (b"ID,CUIs\na,\"C0000001\n", 2, "well-formed CSV"),
])
def test_concept_errors_name_the_line(content, line, expected):
    with pytest.raises(InputError) as error:
        read_concepts(content, "bad.csv")
    assert error.value.line == line and error.value.source == "bad.csv"
    assert expected in str(error.value)


def test_runs_trec_and_csv_rederive_ranks():
    trec = read_run(b"q1 Q0 d3 3 0.5 sys\nq1 Q0 d1 1 0.9 sys\nq1 Q0 d2 2 0.5 sys\n", "x.trec")
    assert trec.name == "sys" and trec.rankings["q1"] == ("d1", "d2", "d3")
    run = read_run(b"query_id,image_id,rank\nq1,d2,2\nq1,d1,1\n", "my_system.csv")
    assert run.name == "my_system" and run.rankings["q1"] == ("d1", "d2")


@pytest.mark.parametrize("content, line, expected", [
    (b"q1 Q0 d1 1 0.9\n", 1, "6 whitespace-separated"),
    (b"q1 Q0 d1 1 0.9 s\nq1 Q0 d2 x 0.8 s\n", 2, "integer rank"),
    (b"q1 Q0 d1 -1 0.9 s\n", 1, "a rank between 0 and"),
    (b"q1 Q0 d1 100000000000000000000 0.9 s\n", 1, "a rank between 0 and"),
    (b"q1 Q0 d1 1 0.9 s\nq1 Q0 d2 1 0.8 s\n", 2, "each rank once per query"),
    (b"q1 Q0 d1 1 0.9 s\nq1 Q0 d2 2 0.8 t\n", None, "one system (one TREC tag) per file"),
    (b"q1 Q0 d1 1 nan s\n", 1, "finite score"),
    (b"q1 Q0 d1 1 0.9 s\nq1 Q0 d1 2 0.8 s\n", 2, "each image once"),
])
def test_run_errors_name_the_line(content, line, expected):
    with pytest.raises(InputError) as error:
        read_run(content, "run.trec")
    assert error.value.line == line and expected in str(error.value)


def test_kg_edge_list_mrrel_and_obo():
    edges = read_kg(b"child\tparent\nC0042449\tC0005847\n", "kg.tsv")
    assert edges.edges == (("C0042449", "C0005847", "kg"),)
    mrrel = read_kg(
        b"C0042449|A1|AUI|PAR|C0005847|A2|AUI|inverse_isa|R1||MSH|MSH|||N||\n"
        b"C0005847|A2|AUI|CHD|C0042449|A1|AUI|isa|R2||MSH|MSH|||N||\n"
        b"C0042449|A1|AUI|RO|C0040405|A3|AUI|location_of|R3||MSH|MSH|||N||\n", "MRREL.RRF")
    assert mrrel.edges == (("C0042449", "C0005847", "MSH"),)
    obo = read_kg(b"format-version: 1.2\n\n[Term]\nid: U:1\nname: vein\nxref: UMLS:C0042449\nis_a: U:2 ! vessel\n\n"
                  b"[Term]\nid: U:2\nname: vessel\nis_a: U:3\n\n[Term]\nid: U:3\nname: structure\n"
                  b"xref: UMLS:C0000003\n", "onto.obo")
    assert set(obo.edges) == {("C0042449", "U:2", "onto"), ("U:2", "C0000003", "onto")}
    assert obo.names["U:2"] == "vessel"


def test_kg_error_names_line():
    with pytest.raises(InputError) as error:
        read_kg(b"child,parent\nC0000001,C0000002\nC0000003\n", "kg.csv")
    assert error.value.line == 3


def test_names_labels_captions():
    assert read_concept_names(b"CUI,Name\nc0000001,Thing\n", "n.csv") == {"C0000001": "Thing"}
    mrconso = (b"C0000001|ENG|S|L1|SY|S1|N|A1||||MSH|SY|D1|Other name|0|N||\n"
               b"C0000001|ENG|P|L2|PF|S2|Y|A2||||MSH|MH|D1|Preferred name|0|N||\n"
               b"C0000001|FRE|P|L3|PF|S3|Y|A3||||MSHFRE|MH|D1|Nom|0|N||\n")
    assert read_concept_names(mrconso, "MRCONSO.RRF") == {"C0000001": "Preferred name"}
    per_image = read_labels(b"ID,modality,organ\na,CT,chest;abdomen\nb,MRI,\n", "l.csv")
    assert isinstance(per_image, ImageLabels)
    assert per_image.by_kind["organ"]["a"] == {"chest", "abdomen"} and per_image.by_kind["organ"]["b"] == set()
    mapping = read_labels(b"kind,class,CUI\nmodality,CT,C0040405\norgan,chest,C0817096\n", "m.csv")
    assert isinstance(mapping, ConceptClassMap)
    with pytest.raises(InputError) as error:
        read_labels(b"kind,class,CUI\nshape,round,C0000001\n", "m.csv")
    assert error.value.line == 2
    assert read_captions(b'ID,Caption\na,"two\nlines, with comma"\n', "c.csv") == {"a": "two\nlines, with comma"}


def test_embeddings_npy_csv_and_parquet(tmp_path):
    np.save(tmp_path / "e.npy", np.array([[3.0, 4.0], [0.0, 2.0]]))
    (tmp_path / "ids.txt").write_text("a\nb\n")
    emb = read_embeddings(tmp_path / "e.npy", ids_source=tmp_path / "ids.txt")
    assert emb.ids == ("a", "b") and np.allclose(emb.vectors, [[0.6, 0.8], [0.0, 1.0]])
    csv_emb = read_embeddings(b"ID,v1,v2\na,1,0\nb,0,1\n", "e.csv")
    assert np.allclose(csv_emb.vectors, np.eye(2))
    import pandas as pd

    pd.DataFrame({"ID": ["a", "b"], "x": [1.0, 0.0], "y": [0.0, 2.0]}).to_parquet(tmp_path / "e.parquet")
    assert np.allclose(read_embeddings(tmp_path / "e.parquet").vectors, np.eye(2))
    with pytest.raises(InputError) as error:
        read_embeddings(b"ID,v1\na,1\nb,nan\n", "e.csv")
    assert error.value.line == 3
    np.save(tmp_path / "obj.npy", np.array([{"a": 1}], dtype=object))
    with pytest.raises(InputError):
        read_embeddings(tmp_path / "obj.npy", ids_source=b"a\n")


@needs(ROCOV2)
def test_real_rocov2_files_read():
    test = read_concepts(ROCOV2 / "test_concepts.csv")
    assert len(test) == 9927 and len(test.vocabulary) == 1750
    assert round(test.occurrences() / len(test), 2) == 3.41
    assert len(read_captions(ROCOV2 / "test_captions.csv")) == 9927
    assert len(read_concept_names(ROCOV2 / "cui_mapping.csv")) == 1935


@needs(OPEN_KG)
def test_open_kg_and_obo_ontologies_load():
    kg = load_kg([OPEN_KG])
    assert kg.number_of_edges() > 79000
    assert kg.name("C0042449") == "vein"  # open_kg_names.csv
    path = kg.shortest_path("C0042449", "C0005847")
    assert path is not None and len(path) == 2
    uberon = OPEN_KG.parent.parent / "ontologies" / "uberon" / "efo-slim.obo"
    obo = read_kg(uberon)
    assert any(child.startswith("C") for child, _, _ in obo.edges)
