"""``evaluate --qrels F --concepts F`` (issue 68): Kendall's tau-b between the systems' ranking by each judged metric
and by its concept-relevance counterpart, in the JSON (``ranking_agreement``) and on the console."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalcore.cli import main
from evalcore.stats.agreement import ranking_tau

CONCEPTS = {"q": "C0000001;C0000002", "x": "C0000001;C0000002", "y": "C0000001", "z": "C0000003",
            "r": "C0000003;C0000004", "s": "C0000003"}
# The judges' grades follow the concepts' overlap on q, and reverse it on r.
QRELS = "q 0 x 2\nq 0 y 1\nq 0 z 0\nr 0 s 0\nr 0 z 2\nr 0 x 0\n"
RUNS = {"best": "q Q0 x 1 3 best\nq Q0 y 2 2 best\nq Q0 z 3 1 best\nr Q0 s 1 3 best\nr Q0 z 2 2 best\n",
        "middle": "q Q0 y 1 3 middle\nq Q0 x 2 2 middle\nq Q0 z 3 1 middle\nr Q0 z 1 3 middle\nr Q0 s 2 2 middle\n",
        "worst": "q Q0 z 1 3 worst\nq Q0 y 2 2 worst\nq Q0 x 3 1 worst\nr Q0 x 1 3 worst\nr Q0 s 2 2 worst\n"}


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    files = {"concepts": tmp_path / "concepts.csv", "qrels": tmp_path / "judged.qrels"}
    files["concepts"].write_text("ID,CUIs\n" + "".join(f"{image},{cuis}\n" for image, cuis in CONCEPTS.items()))
    files["qrels"].write_text(QRELS)
    for name, text in RUNS.items():
        files[name] = tmp_path / f"{name}.trec"
        files[name].write_text(text)
    return files


def argv(files: dict[str, Path], *more: str) -> list[str]:
    return ["evaluate", "--qrels", str(files["qrels"]), "--concepts", str(files["concepts"]), "--run",
            *(str(files[name]) for name in RUNS), "--k", "3", *more]


def test_the_json_holds_the_ranking_tau_of_each_judged_metric(inputs, tmp_path):
    out = tmp_path / "evaluation.json"
    assert main(argv(inputs, "--json", str(out))) == 0
    payload = json.loads(out.read_text())
    agreements = {a["judged"]: a for a in payload["ranking_agreement"]}
    assert list(agreements) == ["qrels-NDCG@3", "qrels-Prec@3", "qrels-MAP@3", "qrels-R@3"]
    assert {a["concept"] for a in agreements.values()} == {"CUI@3", "Prec@3", "MAP@3", "R@3"}
    assert all(a["systems"] == 3 for a in agreements.values())
    # The tau is the one of the two evaluations' means: qrels-NDCG@3 from this JSON, CUI@3 from evaluate --concepts.
    concept_out = tmp_path / "concepts.json"
    assert main(["evaluate", "--concepts", str(inputs["concepts"]), "--run", *(str(inputs[name]) for name in RUNS),
          "--metrics", "CUI@3", "--json", str(concept_out)]) == 0
    judged = {system: values["qrels-NDCG@3"] for system, values in _means(payload).items()}
    concept = {system: values["CUI@3"] for system, values in _means(json.loads(concept_out.read_text())).items()}
    expected = ranking_tau(judged, concept)
    assert agreements["qrels-NDCG@3"]["kendall_tau_b"] == pytest.approx(expected)


def _means(payload: dict) -> dict[str, dict[str, float]]:
    return payload["systems"]


def test_the_console_prints_the_ranking_tau_and_qrels_alone_does_not(inputs, capsys):
    main(argv(inputs))
    printed = capsys.readouterr().out
    assert "Kendall's tau-b between the systems' rankings" in printed
    assert "qrels-NDCG@3 vs CUI@3" in printed
    main(["evaluate", "--qrels", str(inputs["qrels"]), "--run", *(str(inputs[name]) for name in RUNS), "--k", "3"])
    assert "Kendall" not in capsys.readouterr().out


def test_concept_sets_that_score_no_run_leave_the_judged_table_and_say_why(inputs, tmp_path, capsys):
    other = tmp_path / "other.csv"
    other.write_text("ID,CUIs\nelsewhere1,C0000001\nelsewhere2,C0000001\n")
    out = tmp_path / "evaluation.json"
    assert main(["evaluate", "--qrels", str(inputs["qrels"]), "--concepts", str(other), "--run",
                 *(str(inputs[name]) for name in RUNS), "--k", "3", "--json", str(out)]) == 0
    assert "ranking_agreement" not in json.loads(out.read_text())
    assert "note: no ranking agreement with concept relevance" in capsys.readouterr().err
