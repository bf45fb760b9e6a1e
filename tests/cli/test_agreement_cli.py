"""``python -m evalcore agreement`` (issue 68): the JSON it writes (the numbers of ``evalcore.api.agreement``), its
summary on stderr, and its refusals, each one line, leaving an earlier output as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.api import agreement
from evalcore.cli import main
from evalcore.evaluation.options import Statistics
from tests.conftest import cli_refusal

CONCEPTS = {"q": "C0040405;C0042449", "x": "C0040405;C0005847", "y": "C0040405", "z": "C0000001",
            "r": "C0005847;C0000002", "s": "C0042449;C0000002", "t": "C0040405;C0042449;C0000003"}
JUDGMENTS = ("judge,case,candidate,grade,time\n"
             "ann,q,x,2,1\nann,q,y,1,2\nann,q,z,0,3\nann,q,t,2,4\nann,r,s,0,5\nann,r,x,1,6\nann,r,y,2,7\nann,r,q,1,8\n"
             "bob,q,x,2,9\nbob,q,y,1,10\nbob,q,z,1,11\nbob,q,t,2,12\nbob,r,s,0,13\nbob,r,x,2,14\nbob,r,y,2,15\n"
             "bob,r,q,1,16\nann,q,x,1,17\n")
SENTINEL = b"an earlier output\n"


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    files = {"concepts": tmp_path / "concepts.csv", "kg": tmp_path / "kg.csv", "judgments": tmp_path / "judged.csv",
             "json": tmp_path / "agreement.json"}
    files["concepts"].write_text("ID,CUIs\n" + "".join(f"{image},{cuis}\n" for image, cuis in CONCEPTS.items()))
    files["kg"].write_text("child,parent\nC0042449,C0005847\n")
    files["judgments"].write_text(JUDGMENTS)
    files["json"].write_bytes(SENTINEL)
    return files


def argv(files: dict[str, Path], *more: str, kg: bool = True) -> list[str]:
    return ["agreement", "--concepts", str(files["concepts"]), *(["--kg", str(files["kg"])] if kg else []),
            "--judgments", str(files["judgments"]), "--json", str(files["json"]), "--bootstrap-samples", "300", *more]


def test_the_json_holds_each_measure_the_best_and_the_judges(inputs, capsys):
    assert main(argv(inputs, "--measure", "iou", "nn-iou(alpha=0.8,n=1)", "--sweep", "alpha=0:1:0.5", "n=1:2:1")) == 0
    err = capsys.readouterr().err
    payload = json.loads(inputs["json"].read_text())
    assert list(payload) == ["measures", "best", "judges", "judgments", "statistics", "notes", "params", "wall_seconds"]
    assert list(payload["measures"]) == ["iou", "nn-iou(alpha=0.8,n=1)", "nn-iou(alpha=0,n=1)", "nn-iou(alpha=0,n=2)",
                                         "nn-iou(alpha=0.5,n=1)", "nn-iou(alpha=0.5,n=2)", "nn-iou(alpha=1,n=1)",
                                         "nn-iou(alpha=1,n=2)"]
    nn = payload["measures"]["nn-iou(alpha=0.8,n=1)"]
    assert {"kendall_tau_b", "ci", "spearman_rho", "auc", "pairs", "cases"} <= set(nn)
    assert set(nn["auc"]) == {"grade>=1", "grade==2"} and (nn["pairs"], nn["cases"]) == (8, 2)
    assert payload["measures"]["nn-iou(alpha=0,n=2)"]["computed_as"] == "iou"
    best = payload["best"]
    assert best["measure"] in payload["measures"] and best["params"] == payload["measures"][best["measure"]]["params"]
    assert best["measure"] in best["not_clearly_worse"]
    judges = payload["judges"]
    assert judges["names"] == ["ann", "bob"] and judges["kappa_weights"] == "quadratic"
    assert judges["self_consistency"]["ann"]["repeated_pairs"] == 1
    assert payload["params"]["sweeps"] == {"alpha": [0.0, 0.5, 1.0], "n": [1.0, 2.0]}
    assert payload["statistics"]["bootstrap_samples"] == 300
    assert "agreement on 8 judged pairs of 2 cases (17 gradings); 95% bootstrap CIs over cases (300 resamples):" in err
    assert "  iou: tau-b " in err and "best by 2-fold cross-validation over cases: " in err
    assert "judges: 2 (ann, bob); weighted kappa (quadratic) " in err


def test_the_cli_writes_the_apis_numbers(inputs):
    assert main(argv(inputs, "--measure", "iou", "dice", "nn-iou(alpha=0.5,n=1)", "--seed", "3", "--folds", "2")) == 0
    written = json.loads(inputs["json"].read_text())
    report = agreement(str(inputs["concepts"]), str(inputs["judgments"]), ["iou", "dice", "nn-iou(alpha=0.5,n=1)"],
                       kg=str(inputs["kg"]), folds=2, statistics=Statistics(bootstrap_samples=300, seed=3))
    expected = report.to_dict()
    assert {key: written[key] for key in expected} == json.loads(json.dumps(expected))


def test_a_qrels_file_is_one_judge(inputs):
    inputs["judgments"].write_text("q 0 x 2\nq 0 y 1\nq 0 z 0\nr 0 s 0\nr 0 x 1\n")
    assert main(argv(inputs, "--measure", "iou", kg=False)) == 0
    payload = json.loads(inputs["json"].read_text())
    assert payload["judges"]["names"] == ["qrels"] and payload["params"]["judgments_form"] == "qrels"
    assert payload["judges"]["weighted_kappa"] is None and payload["judges"]["krippendorff_alpha_ordinal"] is None


def test_unknown_images_are_left_out_and_said(inputs, capsys):
    inputs["judgments"].write_text(JUDGMENTS + "cat,q,elsewhere,2,99\n")
    assert main(argv(inputs, "--measure", "iou", kg=False)) == 0
    payload = json.loads(inputs["json"].read_text())
    assert payload["judgments"]["unknown_ids"] == 1
    assert payload["judgments"]["unknown_examples"] == [{"line": 19, "id": "elsewhere"}]
    assert "note: 1 of 18 gradings in " in capsys.readouterr().err


@pytest.mark.parametrize("more, fragment", [
    (["--measure", "iou", "--kg-mode", "directed"], "--kg-mode applies only with a knowledge graph"),
    (["--measure", "iou", "--sweep", "alpha=0:1:0.5"], "none of the measures (iou) has a parameter 'alpha'"),
    (["--measure", "nn-iou", "--sweep", "alpha=0:1:0.5"], "without a knowledge graph every value gives IoU's numbers"),
    (["--measure", "cosine"], "unknown relevance measure 'cosine'"),
    (["--measure", "iou", "--sweep", "alpha=0:1"], "expected NAME=START:STOP:STEP"),
    (["--measure", "nn-iou", "--folds", "1"], "--folds must be a whole number from 2 to 20"),
    (["--measure", "iou", "dice", "--kg-source", "x"], "--kg is read by none of the measures (iou, dice)"),
])
def test_refusals_are_one_line_before_any_work(inputs, capsys, more, fragment):
    kg = "--kg-mode" not in more and "alpha=0:1:0.5" not in more or "--kg-source" in more
    error = cli_refusal(argv(inputs, *more, kg=kg), capsys)
    assert fragment in error
    assert inputs["json"].read_bytes() == SENTINEL


@pytest.mark.parametrize("more, fragment", [
    (["--measure", "nn-iou(alpha=0.5,n=1)", "nn-iou(0.5,1)"],
     "--measure: 'nn-iou(0.5,1)' is given twice (the same as 'nn-iou(alpha=0.5,n=1)')"),
    (["--measure", "iou", "--folds", "٣"], "argument --folds: expected a whole number in digits 0-9"),
    (["--measure", "iou", "--json", "other.json"], "--json is given twice"),
    ([], "the following arguments are required: --measure"),
])
def test_usage_errors_are_one_line(inputs, capsys, more, fragment):
    with pytest.raises(SystemExit) as stopped:
        main(argv(inputs, *more))
    error = capsys.readouterr().err
    assert stopped.value.code == 2 and error.count("\n") == 1 and fragment in error, error
    assert inputs["json"].read_bytes() == SENTINEL


@pytest.mark.parametrize("judged, fragment", [
    ("judge,case,candidate,grade\nann,q,x,3\n", "judged.csv, line 2: expected a grade 0 (not similar)"),
    ("judge,case,candidate,grade\n<img src=x>,q,x,1\n", "line 2: expected a judge's name"),
    ("judge,case,candidate,grade\nann,q,x,1\nann,q,x,2\n", "line 3: expected each grading once: judge 'ann' graded "
                                                           "'x' for the case 'q' on line 2 already"),
    ("judge,case,candidate,grade\nann,a,b,1\n", "line 2: expected image IDs with concept sets in"),
    ("", "expected a header 'judge,case,candidate,grade'"),
])
def test_a_bad_judgments_file_is_refused_in_one_line(inputs, capsys, judged, fragment):
    inputs["judgments"].write_text(judged)
    error = cli_refusal(argv(inputs, "--measure", "iou", kg=False), capsys)
    assert fragment in error and "<img" not in error
    assert inputs["json"].read_bytes() == SENTINEL


def test_an_output_that_is_an_input_is_refused(inputs, capsys):
    inputs["json"] = inputs["judgments"]
    assert "--json" in cli_refusal(argv(inputs, "--measure", "iou", kg=False), capsys)
    assert inputs["judgments"].read_text() == JUDGMENTS
