"""Odd options and option combinations found by the hostile-input hunt: each is one line naming what is wrong,
or is read as the user meant."""

from __future__ import annotations

import pytest

from evalcore.__main__ import main
from evalcore.errors import CBIRLensError, InputError
from evalcore.evaluation import Evaluator
from evalcore.loading import kg_names_file
from evalcore.measures import nn_iou_measure
from evalcore.options import Relevance
from evalcore.qrels import graded_judgments
from evalcore.readers import read_concepts, read_qrels, read_runs
from evalcore.retrieval import MAX_SVD_DIMENSIONS, tfidf_matrix

from .conftest import DEMO

DEMO_RUNS = sorted(str(p) for p in (DEMO / "runs").glob("*.trec"))
CONCEPTS = str(DEMO / "concepts.csv")


def _refused(argv: list[str], capsys) -> str:
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("error: "), error
    return error


@pytest.mark.parametrize("repeated", [["--concepts", CONCEPTS], ["--json", "b.json"], ["--alpha", "0.1"],
                                      ["--k", "10"], ["--labels", str(DEMO / "labels.csv")], ["--workers", "1"]])
def test_a_single_valued_option_given_twice_is_refused(tmp_path, capsys, repeated):
    argv = ["evaluate", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--json", str(tmp_path / "a.json"),
            "--alpha", "0.5", "--k", "5", "--labels", str(DEMO / "labels.csv"), "--workers", "1", *repeated]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert error == f"error: python -m evalcore evaluate: {repeated[0]} is given twice; give it once (see --help)\n"


def test_repeatable_options_stay_repeatable(tmp_path):
    assert main(["evaluate", "--concepts", CONCEPTS, "--kg", str(DEMO / "kg_edges.csv"), "--run", DEMO_RUNS[0],
                 "--run", DEMO_RUNS[1], "--k", "5", "10", "--json", str(tmp_path / "a.json")]) == 0


def test_an_empty_measure_is_refused_not_taken_for_the_default(tmp_path, capsys):
    error = _refused(["retrieve", "--concepts", CONCEPTS, "--measure", "", "--out", str(tmp_path / "r.trec")], capsys)
    assert "cannot read the relevance measure ''" in error


def test_concept_relevance_options_with_qrels_are_refused(tmp_path, capsys):
    qrels = tmp_path / "q.txt"
    assert main(["qrels", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--k", "5", "--out", str(qrels)]) == 0
    capsys.readouterr()
    for extra in (["--measure", "dice"], ["--kg", str(DEMO / "kg_edges.csv")]):
        error = _refused(["evaluate", "--qrels", str(qrels), "--run", DEMO_RUNS[0], "--json", str(tmp_path / "a.json"),
                          *extra], capsys)
        assert "--measure and --kg choose concept relevance, which --qrels replaces" in error


def test_a_run_without_a_judged_query_is_refused_under_qrels(tmp_path, capsys):
    qrels = tmp_path / "q.txt"
    qrels.write_text("elsewhere 0 DEMO_00001 1\n")
    error = _refused(["evaluate", "--qrels", str(qrels), "--run", DEMO_RUNS[0], "--json", str(tmp_path / "a.json")],
                     capsys)
    assert f"expected query IDs that have judgments in {qrels}" in error and "none of its 2,000 queries does" in error
    with pytest.raises(InputError, match="none of its"):
        Evaluator(None, qrels=read_qrels(qrels)).evaluate([read_runs(DEMO_RUNS[0])[0]], ["qrels-NDCG@10"], Relevance.of(0.5, 1))


@pytest.mark.parametrize("option, value, expected", [("--alpha", "nan", "alpha must lie in [0, 1], got nan"),
                                                     ("--n", "-5", "distance threshold n must be an integer in 0..6")])
def test_detection_checks_alpha_and_n_without_a_kg_too(tmp_path, capsys, option, value, expected):
    error = _refused(["detection", "--gt", CONCEPTS, "--pred", CONCEPTS, option, value, "--json",
                      str(tmp_path / "d.json")], capsys)
    assert expected in error


def test_qrels_checks_n(tmp_path, capsys):
    error = _refused(["qrels", "--concepts", CONCEPTS, "--kg", str(DEMO / "kg_edges.csv"), "--run", DEMO_RUNS[0],
                      "--n", "-1", "--out", str(tmp_path / "q.txt")], capsys)
    assert "distance threshold n must be an integer in 0..6, got -1" in error
    with pytest.raises(CBIRLensError, match="distance threshold n"):
        graded_judgments(Evaluator(read_concepts(CONCEPTS)), read_runs(DEMO_RUNS[0]), 5, nn_iou_measure(0.5, 7))


def test_the_names_file_beside_a_kg_is_looked_for_beside_it_only(tmp_path):
    (tmp_path / "my_edges").mkdir()
    (tmp_path / "my_names").mkdir()
    edges = tmp_path / "my_edges" / "kg.csv"
    edges.write_text("child,parent\nC0042449,C0005847\n")
    (tmp_path / "my_names" / "kg.csv").write_bytes(b"\0\0 not a names file")
    assert kg_names_file(edges) is None
    beside = tmp_path / "my_edges" / "open_kg_edges.csv"
    beside.write_text("child,parent\nC0042449,C0005847\n")
    (tmp_path / "my_edges" / "open_kg_names.csv").write_text("id,name\nC0042449,Veins\n")
    assert kg_names_file(beside) == tmp_path / "my_edges" / "open_kg_names.csv"


def test_captions_that_fit_no_image_are_named_and_explained(tmp_path, capsys):
    captions = tmp_path / "captions.csv"
    captions.write_text('ID,Caption\nelsewhere,"CT of the chest"\n')
    error = _refused(["retrieve", "--concepts", CONCEPTS, "--by", "embeddings", "--captions", str(captions),
                      "--out", str(tmp_path / "r.trec")], capsys)
    assert error.startswith(f"error: {captions}: expected captions with words for the images to rank, found that none "
                            "of its 1 captions belongs to one of the 2,000 images")
    with pytest.raises(CBIRLensError, match="hold no word of two letters or more"):
        tfidf_matrix({"a": "1 2 ."}, ("a",))


def test_svd_dimensions_are_bounded(tmp_path, capsys):
    error = _refused(["retrieve", "--concepts", CONCEPTS, "--by", "embeddings", "--captions", str(DEMO / "captions.csv"),
                      "--svd-dims", str(MAX_SVD_DIMENSIONS + 1), "--out", str(tmp_path / "r.trec")], capsys)
    assert f"--svd-dims: expected 0 (no reduction) or a number of dimensions up to {MAX_SVD_DIMENSIONS:,}" in error


@pytest.mark.parametrize("budget", ["1_000", "١٠", "+5000", "1e3"])
def test_the_input_budget_takes_plain_digits(capsys, budget):
    with pytest.raises(SystemExit):
        main(["--max-input-bytes", budget, "evaluate", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--json", "x.json"])
    assert "expected a whole number of bytes (digits 0-9)" in capsys.readouterr().err


@pytest.mark.parametrize("kg", ["", ".", "/"])
def test_a_kg_path_without_a_file_name_is_refused_in_one_line(tmp_path, capsys, kg):
    """Was a ValueError traceback: the names file beside the KG is derived from a file name these paths lack."""
    error = _refused(["evaluate", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--kg", kg, "--json",
                      str(tmp_path / "a.json")], capsys)
    assert error == ("error: an input option was given an empty path (''): expected a file path; leave the option out "
                     "to give none\n" if kg == "" else f"error: {kg}: expected a regular file, found a directory\n")


@pytest.mark.parametrize("argv", [
    ["evaluate", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--labels", "", "--json", "{out}"],  # was ignored
    ["evaluate", "--concepts", CONCEPTS, "--run", "", "--json", "{out}"],  # was "error: : expected a regular file"
    ["compare", "--concepts", CONCEPTS, "--run", *DEMO_RUNS[:2], "--labels", "", "--metric", "CUI@5", "--json", "{out}"],
    ["relevance", "--concepts", CONCEPTS, "--pairs", "", "--out", "{out}"],
    ["detection", "--gt", "", "--pred", CONCEPTS, "--json", "{out}"],
    ["qrels", "--concepts", CONCEPTS, "--run", "", "--out", "{out}"],
])
def test_an_empty_input_path_is_refused_not_read_as_the_working_folder_or_ignored(tmp_path, capsys, argv):
    out = str(tmp_path / "out")
    error = _refused([out if a == "{out}" else a for a in argv], capsys)
    assert error == ("error: an input option was given an empty path (''): expected a file path; leave the option "
                     "out to give none\n")
    assert not (tmp_path / "out").exists()
