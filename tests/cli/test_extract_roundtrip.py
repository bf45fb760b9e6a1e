"""What `extract` writes, `evaluate` reads (issue 36, item 6): long names, names files that name nothing, captions
files with and without a header, ontology IDs and the per-image limit, and the dashboard's download of the sets."""

from __future__ import annotations

import json

import pytest

from evalcore.api import extract_concepts
from evalcore.app.workspace import Workspace, with_names
from evalcore.cli import main
from evalcore.data import ConceptSets
from evalcore.errors import InputError
from evalcore.extraction.extractor import ConceptDictionary, extract
from evalcore.extraction.rule_files import MAX_NAME_WORDS
from evalcore.readers import MAX_CONCEPTS_PER_IMAGE, read_captions, read_concept_names, read_concepts
from tests.line_by_line import read_concepts as concepts_line_by_line

LONG_NAME = " ".join(f"word{i}" for i in range(5000))


def test_a_name_of_5000_words_is_left_out_or_refused_without_recursion(tmp_path, capsys):
    """Was found, word by word (issue 36); a name is now read up to MAX_NAME_WORDS words (issue 67: a caption cost its
    words times the name's): a dictionary leaves a longer one out, and extract's names reader refuses it."""
    names = read_concept_names(f"CUI,Name\nC0000001,{LONG_NAME}\nC0000002,Veins\n".encode(), "names.csv")
    dictionary = ConceptDictionary.build(names)
    assert extract(f"We see {LONG_NAME} and veins.", dictionary) == {"C0000002"}
    assert extract("We see word0 word1 and veins.", dictionary) == {"C0000002"}
    bounded = " ".join(LONG_NAME.split()[:MAX_NAME_WORDS])
    assert extract(f"We see {bounded} and veins.", ConceptDictionary.build({**names, "C0000001": bounded})) == {
        "C0000001", "C0000002"}
    (tmp_path / "names.csv").write_text(f"CUI,Name\nC0000001,{LONG_NAME}\n")
    (tmp_path / "captions.csv").write_text(f"ID,Caption\na,{LONG_NAME}\nb,nothing\n")
    assert main(["extract", "--captions", str(tmp_path / "captions.csv"), "--names", str(tmp_path / "names.csv"),
                 "--out", str(tmp_path / "out.csv")]) == 2
    assert capsys.readouterr().err == (f"error: {tmp_path / 'names.csv'}, line 2: expected a name of at most "
                                       f"{MAX_NAME_WORDS} words, found 5,000 words\n")


@pytest.mark.parametrize("content", [b"", b"CUI,Name\n", b"CUI,Canonical name\r\n\r\n",
                                     b"C0000001|FRE|P|L1|PF|S1|Y|A1||||MSH|MH|D1|Veine|0|N||\n"],
                         ids=["empty", "header only", "header and blank lines", "MRCONSO without English"])
def test_a_names_file_that_names_nothing_is_refused_by_every_door(tmp_path, capsys, content):
    names = tmp_path / ("MRCONSO.RRF" if b"|" in content else "names.csv")
    names.write_bytes(content)
    (tmp_path / "captions.csv").write_text("ID,Caption\na,CT of the brain\n")
    (tmp_path / "out.csv").write_text("earlier\n")
    code = main(["extract", "--captions", str(tmp_path / "captions.csv"), "--names", str(names),
                 "--out", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and str(names) in err[0] and "'CUI,Name'" in err[0], err
    assert (tmp_path / "out.csv").read_text() == "earlier\n"
    with pytest.raises(InputError, match="at least one row 'CUI,Name'") as api_error:
        extract_concepts(tmp_path / "captions.csv", names)
    assert api_error.value.source == str(names)
    with pytest.raises(InputError, match="at least one row 'CUI,Name'") as app_error:
        with_names(Workspace(), content, "uploaded.csv")
    assert app_error.value.source == "uploaded.csv"


@pytest.mark.parametrize(("content", "expected"), [
    (b"id,CT of the head\nq,MRI\n", {"id": "CT of the head", "q": "MRI"}),  # an image called "id"
    (b"q,Captions\nx,MRI\n", {"q": "Captions", "x": "MRI"}),  # a caption that reads "Captions"
    (b"ID,Captions\nq,MRI\n", {"q": "MRI"}),
    (b"ID,Caption\nq,MRI\n", {"q": "MRI"}),  # ROCOv2's header
    (b"image_id,CAPTION\nq,MRI\n", {"q": "MRI"}),
    (b"Image,Text\nq,MRI\n", {"q": "MRI"}),
])
def test_a_first_caption_row_is_a_header_only_where_both_fields_name_columns(content, expected):
    assert read_captions(content, "captions.csv") == expected


ONTOLOGY_NAMES = "id,name\nUBERON:0002298,brainstem\nUBERON:0000955,brain\nC0040405,X-Ray Computed Tomography\n" \
                 "HP:0001250,seizure\n"


def test_extract_with_ontology_ids_then_evaluate_the_written_file(tmp_path):
    (tmp_path / "names.csv").write_text(ONTOLOGY_NAMES)
    (tmp_path / "captions.csv").write_text("ID,Caption\na,CT of the brainstem\nb,CT of the brain after a seizure\n"
                                           "c,brain and brainstem\nd,A photo\n")
    out, run, scores = tmp_path / "out.csv", tmp_path / "iou.trec", tmp_path / "scores.json"
    assert main(["extract", "--captions", str(tmp_path / "captions.csv"), "--names", str(tmp_path / "names.csv"),
                 "--ontology-ids", "--out", str(out)]) == 0
    concepts = read_concepts(out)
    assert dict(zip(concepts.ids, concepts.sets)) == {
        "a": {"C0040405", "UBERON:0002298"}, "b": {"C0040405", "UBERON:0000955", "HP:0001250"},
        "c": {"UBERON:0000955", "UBERON:0002298"}, "d": frozenset()}
    assert main(["retrieve", "--concepts", str(out), "--by", "iou", "--depth", "3", "--out", str(run)]) == 0
    assert main(["evaluate", "--concepts", str(out), "--run", str(run), "--json", str(scores)]) == 0
    assert "iou" in json.loads(scores.read_text())["systems"]


@pytest.mark.parametrize("content", [
    "ID,CUIs\na,UBERON:0002298;c0040405\nb,\n",  # the columnar reading
    'ID,CUIs\n"a",UBERON:0002298;c0040405\nb,\n',  # the line-by-line reading (a quoted field)
    "ID\tCUIs\na\tUBERON:0002298,C0040405\nb\n",
])
def test_the_concepts_reader_takes_ontology_ids_both_ways(content):
    concepts = read_concepts(content.encode(), "gt.csv")
    assert (concepts.ids, concepts.sets) == (("a", "b"), (frozenset({"UBERON:0002298", "C0040405"}), frozenset()))
    assert list(zip(concepts.ids, concepts.sets)) == concepts_line_by_line(content.encode(), "gt.csv")


@pytest.mark.parametrize(("row", "found"), [("a,MESH:D012345", "MESH:D012345"), ("a,UBERON:", "UBERON:"),
                                            ("a,UBERON 0002298", "UBERON 0002298"), ("ID,HP:1", None)])
def test_the_concepts_reader_refuses_other_ids(row, found):
    if found is None:  # "ID,HP:1" is an image called ID, not a header
        assert read_concepts(f"{row}\n".encode(), "gt.csv").ids == ("ID",)
        return
    with pytest.raises(InputError, match="ontology IDs PREFIX:digits") as error:
        read_concepts(f"ID,CUIs\n{row}\n".encode(), "gt.csv")
    assert error.value.line == 2 and found in error.value.found


def test_extract_refuses_to_write_what_evaluate_refuses(tmp_path, capsys):
    count = MAX_CONCEPTS_PER_IMAGE + 1
    (tmp_path / "names.csv").write_text("CUI,Name\n" + "".join(f"C{i:07d},term{i}x\n" for i in range(count)))
    (tmp_path / "captions.csv").write_text("ID,Caption\nsmall,term1x\nbig," + " ".join(f"term{i}x" for i in range(count))
                                           + "\n")
    (tmp_path / "out.csv").write_text("earlier\n")
    assert main(["extract", "--captions", str(tmp_path / "captions.csv"), "--names", str(tmp_path / "names.csv"),
                 "--out", str(tmp_path / "out.csv")]) == 2
    err = capsys.readouterr().err
    assert f"at most {MAX_CONCEPTS_PER_IMAGE} concepts per image" in err and "'big'" in err and "captions.csv" in err
    assert (tmp_path / "out.csv").read_text() == "earlier\n"
    (tmp_path / "names.csv").write_text("id,name\nMESH:D012345,brain\n")
    (tmp_path / "captions.csv").write_text("ID,Caption\na,brain\n")
    assert main(["extract", "--captions", str(tmp_path / "captions.csv"), "--names", str(tmp_path / "names.csv"),
                 "--ontology-ids", "--out", str(tmp_path / "out.csv")]) == 2
    assert "'MESH:D012345' for image 'a'" in capsys.readouterr().err


def test_the_extracted_concepts_download_escapes_formula_cells():
    from dashboard.computed import concepts_download

    ws = Workspace(concepts=ConceptSets(("=HYPERLINK(1)", "@q", "-x", "+y", "plain"),
                                        (frozenset({"C0000002", "C0000001"}),) + (frozenset(),) * 4, "gt.csv"))
    rows = concepts_download(ws).splitlines()
    assert rows == ["ID,CUIs", "'=HYPERLINK(1),C0000001;C0000002", "'@q,", "'-x,", "'+y,", "plain,"]
    assert read_concepts(concepts_download(Workspace(concepts=ConceptSets(("a",), (frozenset({"C0000001"}),), "g")))
                         .encode(), "download.csv").ids == ("a",)
