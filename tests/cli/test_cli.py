"""The CLI contract: flags, outputs, error exit status, and a run on real ROCOv2 data."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from evalcore.cli import main
from tests.conftest import OPEN_KG, ROCOV2, ROOT, needs


@pytest.fixture
def tiny(tmp_path):
    (tmp_path / "gt.csv").write_text("ID,CUIs\nq,C0040405;C0042449\nx,C0040405;C0005847\ny,C0040405\nz,C0024485\n")
    (tmp_path / "kg.csv").write_text("child,parent\nC0042449,C0005847\n")
    (tmp_path / "pairs.csv").write_text("a,b\nq,x\nq,z\n")
    (tmp_path / "good.trec").write_text("q Q0 x 1 3 good\nq Q0 y 2 2 good\nq Q0 z 3 1 good\n")
    (tmp_path / "bad.csv").write_text("query_id,image_id,rank,score\nq,z,1,3\nq,unknown,2,2\nq,x,3,1\n")
    return tmp_path


def test_relevance_command_writes_design_example(tiny):
    assert main(["relevance", "--concepts", str(tiny / "gt.csv"), "--kg", str(tiny / "kg.csv"), "--alpha", "0.5",
                 "--n", "1", "--pairs", str(tiny / "pairs.csv"), "--out", str(tiny / "out.csv")]) == 0
    rows = list(csv.DictReader(open(tiny / "out.csv")))
    assert [r["a"] + r["b"] for r in rows] == ["qx", "qz"]
    assert float(rows[0]["iou"]) == pytest.approx(1 / 3) and float(rows[0]["nn_iou"]) == pytest.approx(2 / 3)
    assert float(rows[1]["iou"]) == 0.0


def test_evaluate_command_json_and_per_query(tiny):
    out = tiny / "r.json"
    assert main(["evaluate", "--concepts", str(tiny / "gt.csv"), "--kg", str(tiny / "kg.csv"), "--run",
                 str(tiny / "good.trec"), str(tiny / "bad.csv"), "--k", "1", "3", "--alpha", "0.5", "--n", "1",
                 "--json", str(out), "--per-query", str(tiny / "pq.csv")]) == 0
    result = json.loads(out.read_text())
    assert set(result["systems"]) == {"good", "bad"}
    assert result["systems"]["good"]["nn-CUI@1"] == pytest.approx(1.0)
    assert result["systems"]["bad"]["CUI@1"] == 0.0
    assert result["counts"]["bad"]["retrieved_unknown_ids"] == 1
    rows = list(csv.DictReader(open(tiny / "pq.csv")))
    assert set(rows[0]) == {"system", "query_id", "metric", "value"}


@pytest.mark.subprocess
@pytest.mark.slow
def test_errors_exit_2_with_one_line_naming_file_and_line(tiny):
    (tiny / "broken.trec").write_text("q Q0 x 1 3 s\nq Q0 y two 2 s\n")
    process = subprocess.run(
        [sys.executable, "-m", "evalcore", "evaluate", "--concepts", str(tiny / "gt.csv"), "--run",
         str(tiny / "broken.trec"), "--json", str(tiny / "o.json")], capture_output=True, text=True, cwd=ROOT)
    assert process.returncode == 2
    lines = process.stderr.strip().splitlines()
    assert len(lines) == 1 and "broken.trec, line 2" in lines[0] and "integer rank" in lines[0]


def test_retrieve_and_detection_commands(tiny):
    run = tiny / "iou.trec"
    assert main(["retrieve", "--concepts", str(tiny / "gt.csv"), "--by", "iou", "--depth", "2", "--out", str(run)]) == 0
    assert run.read_text().splitlines()[0].split()[:4] == ["q", "Q0", "y", "1"]  # IoU 1/2 beats x (1/3)
    (tiny / "pred.csv").write_text("ID,CUIs\nq,C0040405\nx,C0040405;C0042449\n")
    (tiny / "subset.txt").write_text("C0040405\n")
    out = tiny / "d.json"
    assert main(["detection", "--gt", str(tiny / "gt.csv"), "--pred", str(tiny / "pred.csv"), "--subset",
                 str(tiny / "subset.txt"), "--kg", str(tiny / "kg.csv"), "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert {"f1", "f1_secondary", "soft_f1", "counts"} <= set(result)
    assert result["soft_f1"] > result["f1"]


@pytest.mark.slow
@needs(ROCOV2)
def test_cli_on_rocov2_test_reports_every_metric(tmp_path):
    concepts, labels = ROCOV2 / "test_concepts.csv", ROOT / "data" / "labels" / "rocov2_labels.csv"
    run = tmp_path / "nn.trec"
    assert main(["retrieve", "--concepts", str(concepts), "--kg", str(OPEN_KG), "--by", "nn-iou", "--depth", "30",
                 "--out", str(run)]) == 0
    out = tmp_path / "eval.json"
    assert main(["evaluate", "--concepts", str(concepts), "--kg", str(OPEN_KG), "--run", str(run), "--k", "5", "10",
                 "30", "--labels", str(labels), "--json", str(out)]) == 0
    system = json.loads(out.read_text())["systems"]["nn-iou"]
    for name in ["CUI@10", "nn-CUI@10", "P@5[modality]", "P@30[organ]", "P@10[modality+organ]", "MAP@10",
                 "nn-R@30", "RBP", "nn-ERR@10", "CAG@10", "nn-CAG-RBP"]:
        assert name in system and system[name] is not None
    assert system["nn-CUI@10"] == pytest.approx(1.0)
    assert 0.98 < system["P@5[modality]"] <= 1.0
