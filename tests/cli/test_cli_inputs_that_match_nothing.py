"""Inputs that are well formed but match nothing the command scores (the twenty-sixth pass's hostile-input hunt):
each is refused with one line naming the file, or its undefined result is said, never scored as 0 or hidden."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.readers.predictions import MAX_PROBLEMS
from tests.conftest import cli_refusal

CONCEPTS = "ID,CUIs\nA,C0000001;C0000002\nB,C0000002\nC,C0000003\nD,C0000001\n"
RUN = "A 0 B 1 2.0 s1\nA 0 C 2 1.0 s1\nB 0 A 1 1.0 s1\nA 0 C 1 2.0 s2\nA 0 B 2 1.0 s2\nB 0 A 1 1.0 s2\n"


def _write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("predictions", "said"), [
    ("ID;CUIs\nA;C0000001\n", "found ';' as the delimiter"),
    ("garbage line one\n", "found whitespace as the delimiter"),
    ("X,C0000001\nY,C0000002\n", "line 1: expected prediction lines whose image IDs are in the ground truth, found "
                                 "none in its 2 lines (the first: 'X')"),
])
def test_detection_refuses_predictions_that_name_no_image_of_the_truth(tmp_path, capsys, predictions, said):
    truth = _write(tmp_path, "gt.csv", CONCEPTS)
    error = cli_refusal(["detection", "--gt", truth, "--pred", _write(tmp_path, "pred.csv", predictions), "--json",
                      str(tmp_path / "d.json")], capsys)
    assert said in error and "pred.csv" in error
    assert not (tmp_path / "d.json").exists()


def test_detection_lists_the_first_problems_and_counts_the_rest(tmp_path, capsys):
    """A file of many unknown IDs beside one known keeps :data:`MAX_PROBLEMS` messages and one that counts the
    others; an ID of a megabyte is quoted in 60 characters."""
    lines = ["A,C0000001"] + [f"unknown{i},C0000001" for i in range(MAX_PROBLEMS + 499)] + ["Z" * 1_000_000 + ",C0000002"]
    out = tmp_path / "d.json"
    assert main(["detection", "--gt", _write(tmp_path, "gt.csv", CONCEPTS), "--pred",
                 _write(tmp_path, "pred.csv", "\n".join(lines) + "\n"), "--json", str(out)]) == 0
    payload = json.loads(out.read_text())
    problems = payload["problems"]
    assert len(problems) == MAX_PROBLEMS and problems[0] == {"line": 2, "problem": "unknown image ID 'unknown0'"}
    assert problems[-1] == {"line": MAX_PROBLEMS + 1, "problem": f"unknown image ID 'unknown{MAX_PROBLEMS - 1}'"}
    assert payload["problems_not_listed"] == 500
    assert payload["f1"] == pytest.approx((2 / 3) / 4)  # A: F1 2/3 (one of its two concepts); B, C, D: none
    error = capsys.readouterr().err
    assert len(error) < 10_000 and "pred.csv: 1,480 more problems (the first 1,000 in the JSON)" in error


@pytest.mark.parametrize(("labels", "said"), [
    ("ID,modality,organ\n", "expected a label row after the header, found a header-only file"),
    ("ID,modality,organ\nA,CT\n", "line 2: expected 3 fields (ID,modality,organ), an empty one for no label, found 2"),
    ("ID,modality,organ\nX,CT,liver\nY,MR,brain\n", "expected labels of images of the concept sets (4 images, e.g. "
                                                    "'A'), found none of its 2 IDs (e.g. 'X')"),
])
def test_labels_that_label_no_image_are_refused(tmp_path, capsys, labels, said):
    argv = ["compare", "--concepts", _write(tmp_path, "c.csv", CONCEPTS), "--run", _write(tmp_path, "r.trec", RUN),
            "--metric", "P@2[modality]", "--labels", _write(tmp_path, "labels.csv", labels), "--json",
            str(tmp_path / "cmp.json")]
    error = cli_refusal(argv, capsys)
    assert said in error and "labels.csv" in error


def test_relevance_refuses_a_header_only_pairs_file(tmp_path, capsys):
    error = cli_refusal(["relevance", "--concepts", _write(tmp_path, "c.csv", CONCEPTS), "--pairs",
                      _write(tmp_path, "pairs.csv", "a,b\n"), "--out", str(tmp_path / "out.csv")], capsys)
    assert "pairs.csv: expected a header 'a,b' and a pair of image IDs after it, found a header-only file" in error


def test_nothing_relevant_is_said_and_no_corrected_p_value_is_made_up(tmp_path, capsys):
    """Concept sets that are all empty leave every query without a relevant image: evaluate and compare say that
    no query was scored, and the Holm-corrected p of a pair with no raw p is undefined too, not 1."""
    empty = _write(tmp_path, "c.csv", "ID,CUIs\nA,\nB,\nC,\nD,\n")
    run = _write(tmp_path, "r.trec", RUN)
    assert main(["evaluate", "--concepts", empty, "--run", run, "--k", "2", "--json", str(tmp_path / "e.json")]) == 0
    note = capsys.readouterr().err
    assert "CUI@2, nn-CUI@2" in note and "no query was scored, so the mean is undefined" in note
    assert "--empty-queries zero" in note and "label" not in note
    out = tmp_path / "cmp.json"
    assert main(["compare", "--concepts", empty, "--run", run, "--metric", "CUI@2", "--json", str(out)]) == 0
    assert "CUI@2: no query was scored" in capsys.readouterr().err
    pair = json.loads(out.read_text())["comparisons"]["CUI@2"][0]
    assert pair["p_randomization"] is None and pair["p_randomization_holm"] is None
    assert pair["p_t_test_holm"] is None


def test_retrieve_refuses_a_collection_of_one_image(tmp_path, capsys):
    """One image leaves every query nothing to rank: an empty run that evaluate would refuse later."""
    error = cli_refusal(["retrieve", "--concepts", _write(tmp_path, "one.csv", "ID,CUIs\nA,C0000001\n"), "--by", "iou",
                      "--out", str(tmp_path / "run.trec")], capsys)
    assert "one.csv: expected at least 2 images (each query ranks the others), found 1" in error
    assert not (tmp_path / "run.trec").exists()


def test_pairs_are_held_as_columns_and_scored_one_at_a_time(tmp_path):
    """A pairs file of many pairs is three columns with one string an image (the hunt's 2 million pairs peaked at
    1 GB as tuples and rows), and the relevance of each pair is made as it is written."""
    from evalcore.errors import ParameterError
    from evalcore.evaluation.listed_pairs import listed_pair_relevance
    from evalcore.readers import read_concepts, read_image_pairs
    from evalcore.relevance.measures import measure_spec, nn_iou_measure

    pairs = read_image_pairs(("a,b\n" + "A,B\nB,A\n" * 500).encode(), "pairs.csv")
    assert len(pairs) == 1000 and pairs.first[0] is pairs.first[2] and pairs.second[1] is pairs.first[0]
    assert list(pairs)[:2] == [(2, "A", "B"), (3, "B", "A")]
    concepts = read_concepts(CONCEPTS.encode(), "c.csv")
    rows = listed_pair_relevance(concepts, pairs, "pairs.csv", None, "undirected", nn_iou_measure(0.5, 1),
                                 measure_spec("dice"))
    assert iter(rows) is rows and next(rows).a == "A"  # made as asked for, not held as a list
    with pytest.raises(ParameterError):  # ... its arguments checked at the call, before any row
        listed_pair_relevance(concepts, pairs, "pairs.csv", None, "undirected", measure_spec("dice"),
                              measure_spec("dice"))
    out = tmp_path / "out.csv"
    assert main(["relevance", "--concepts", _write(tmp_path, "c.csv", CONCEPTS), "--pairs",
                 _write(tmp_path, "pairs.csv", "a,b\nA,B\nB,C\n"), "--out", str(out)]) == 0
    assert out.read_text().splitlines()[1:] == ["A,B,0.5,0.5,,0.5", "B,C,0.0,0.0,,0.0"]


@pytest.mark.parametrize("name", ["two words", ""])
def test_retrieve_refuses_a_system_name_a_run_cannot_hold(tmp_path, capsys, name):
    """A run's tag is one word: "two words" had become two_words and "" the measure's name, silently."""
    error = cli_refusal(["retrieve", "--concepts", _write(tmp_path, "c.csv", CONCEPTS), "--by", "iou", "--name", name,
                      "--out", str(tmp_path / "run.trec")], capsys)
    assert f"--name: expected a system name without spaces (the tag column of a TREC run), found {name!r}" in error


def test_a_label_metric_that_scored_nothing_is_told_to_get_labels_not_empty_queries(tmp_path, capsys):
    """A CUI-to-class mapping that matches no concept labels no image: P@K says labels are what is missing (the
    review found the empty-queries remedy offered for it, which changes nothing)."""
    labels = _write(tmp_path, "map.csv", "kind,class,CUI\nmodality,CT,C0009999\n")
    assert main(["evaluate", "--concepts", _write(tmp_path, "c.csv", CONCEPTS), "--run", _write(tmp_path, "r.trec", RUN),
                 "--metrics", "P@2[modality]", "CUI@2", "--labels", labels, "--json", str(tmp_path / "e.json")]) == 0
    note = capsys.readouterr().err
    assert "P@2[modality]: no query was scored, so the mean is undefined (no query image has a label of that kind; " \
           "give labels that cover the images)" in note
    assert "CUI@2: no query" not in note


@pytest.mark.parametrize(("labels", "read"), [("ID,modality\nA,CT,\n", True), ("ID,modality\nA,CT,MR\n", False)])
def test_a_labels_row_may_end_in_empty_fields_but_not_in_text(tmp_path, labels, read):
    from evalcore.errors import InputError
    from evalcore.readers import read_labels

    if read:
        assert read_labels(labels.encode(), "labels.csv").by_kind["modality"]["A"] == frozenset({"CT"})
    else:
        with pytest.raises(InputError, match="line 2: expected 2 fields"):
            read_labels(labels.encode(), "labels.csv")


def test_retrieve_says_which_images_its_embeddings_or_captions_leave_out(tmp_path, capsys):
    """The hunt: embeddings that lack an image dropped it from queries and pool, captions that lack one ranked it as
    an empty text, each without a word; now a note each, as the Data page's report says it."""
    import numpy as np

    vectors = tmp_path / "emb.npy"
    np.save(vectors, np.eye(4, dtype=np.float32))
    concepts = _write(tmp_path, "c.csv", CONCEPTS)
    assert main(["retrieve", "--concepts", concepts, "--by", "embeddings", "--embeddings", str(vectors),
                 "--embedding-ids", _write(tmp_path, "ids.txt", "A\nB\nC\nE\n"), "--out", str(tmp_path / "e.trec")]) == 0
    notes = capsys.readouterr().err
    assert "1 of 4 images has no embedding, so none is a query or retrieved" in notes
    assert "1 ID is not an image of the collection: E" in notes
    assert main(["retrieve", "--concepts", concepts, "--by", "embeddings", "--captions",
                 _write(tmp_path, "cap.csv", "ID,caption\nA,CT of the liver\n"), "--out", str(tmp_path / "c.trec")]) == 0
    assert "cap.csv: 3 of 4 images have no caption, so each is ranked as an empty text" in capsys.readouterr().err
