"""``compare --effect-sizes`` and ``--anova`` (issue 67): opt-in sections beside the pairwise tests, the numbers of
``evalcore.api.effect_sizes`` and ``evalcore.api.repeated_measures_anova``; without them the output is as it was."""

from __future__ import annotations

import json
import math

import pytest

import evalcore
from evalcore.api import effect_sizes, repeated_measures_anova
from evalcore.cli import main
from evalcore.errors import ParameterError
from evalcore.evaluation.options import Relevance, Scoring, Statistics
from evalcore.evaluation.results import finite_or_none
from tests.conftest import DEMO

CONCEPTS = {"q": "C0000001", "r": "C0000001;C0000002", "s": "C0000002", "x": "C0000001", "y": "C0000002"}
# CUI@1 of each system on q, r, s: A 1, 1, 1; B 0, 1, 0; C 0, 1, 0 (evalcore/api.py's worked example)
RUNS = {"A": {"q": ["x", "y"], "r": ["x", "y"], "s": ["y", "x"]}, "B": {"q": ["y", "x"], "r": ["y", "x"], "s": ["x", "y"]},
        "C": {"q": ["y", "x"], "r": ["x", "y"], "s": ["x", "y"]}}


def _inputs(tmp_path) -> list[str]:
    concepts = tmp_path / "concepts.csv"
    concepts.write_text("ID,CUIs\n" + "".join(f"{image},{cuis}\n" for image, cuis in CONCEPTS.items()))
    run = tmp_path / "runs.trec"
    run.write_text("".join(f"{query} Q0 {image} {rank} {10 - rank} {system}\n" for system, queries in RUNS.items()
                           for query, images in queries.items() for rank, image in enumerate(images, 1)))
    return ["--concepts", str(concepts), "--run", str(run), "--metric", "CUI@1"]


def test_the_sections_are_opt_in_and_hold_the_hand_worked_numbers(tmp_path, capsys):
    plain, both = tmp_path / "plain.json", tmp_path / "both.json"
    assert main(["compare", *_inputs(tmp_path), "--json", str(plain)]) == 0
    assert "effect sizes" not in capsys.readouterr().err
    assert main(["compare", *_inputs(tmp_path), "--effect-sizes", "--anova", "--json", str(both)]) == 0
    err = capsys.readouterr().err
    plain_payload, payload = json.loads(plain.read_text()), json.loads(both.read_text())
    assert "effect_sizes" not in plain_payload and "anova" not in plain_payload
    assert {key: value for key, value in payload.items() if key not in ("effect_sizes", "anova", "wall_seconds")} == {
        key: value for key, value in plain_payload.items() if key != "wall_seconds"}

    pairs = payload["effect_sizes"]["CUI@1"]
    assert [(p["system_a"], p["system_b"], p["queries"]) for p in pairs] == [("A", "B", 3), ("A", "C", 3), ("B", "C", 3)]
    assert pairs[0]["mean_difference"] == pytest.approx(2 / 3) and pairs[0]["d_z"] == pytest.approx(2 / math.sqrt(3))
    assert pairs[0]["d_z_high"] is None  # a resample of three 1s: an infinite d_z, null in JSON
    assert [pairs[2][key] for key in ("mean_difference", "d_z", "d_z_low", "d_z_high")] == [0.0] * 4
    summary = payload["anova"]["CUI@1"]["summary"]
    assert (summary["systems"], summary["queries"], summary["df_systems"], summary["df_error"]) == (3, 3, 2, 4)
    assert (summary["f"], summary["p"]) == pytest.approx((4.0, 1 / 9))  # F(2, 4) upper tail (1 + 2F/4)^-2
    tukey = payload["anova"]["CUI@1"]["tukey"]
    assert [t["q"] for t in tukey] == pytest.approx([2 * math.sqrt(3), 2 * math.sqrt(3), 0.0])  # (2/3) / sqrt((1/9)/3)
    assert "effect sizes (mean difference and Cohen's d_z, [95% bootstrap CI]):" in err
    assert "    A - B: +0.6667 [" in err and "d_z +1.155 [" in err
    assert "repeated-measures ANOVA over the 3 queries every system scored: F(2, 4) = 4, p 0.1111" in err
    assert "Tukey HSD (difference [95% simultaneous CI], on the ANOVA's residual mean square):" in err


def test_the_api_refuses_what_it_cannot_read():
    result = evalcore.evaluate({image: set(cuis.split(";")) for image, cuis in CONCEPTS.items()}, RUNS,
                               Scoring(["CUI@1"]))
    with pytest.raises(ParameterError, match="metric 'CUI@5' was not evaluated"):
        effect_sizes(result, "CUI@5")
    with pytest.raises(ParameterError, match="expected the Results of evalcore.evaluate"):
        repeated_measures_anova({"A": [0.5]}, "CUI@1")


@pytest.mark.slow
def test_compare_writes_the_apis_numbers_on_the_demo(tmp_path):
    metrics = ["nn-CUI@10", "P@10[modality]"]
    out = tmp_path / "c.json"
    inputs = ["--concepts", str(DEMO / "concepts.csv"), "--kg", str(DEMO / "kg_edges.csv"), "--labels",
              str(DEMO / "labels.csv"), "--run", *map(str, sorted((DEMO / "runs").glob("*.trec")))]
    assert main(["compare", *inputs, "--metric", *metrics, "--effect-sizes", "--anova", "--json", str(out),
                 "--bootstrap-samples", "300", "--confidence", "0.9"]) == 0
    payload = json.loads(out.read_text())
    result = evalcore.evaluate(str(DEMO / "concepts.csv"), sorted(map(str, (DEMO / "runs").glob("*.trec"))),
                               Relevance(), Scoring(metrics), Statistics(confidence=0.9, bootstrap_samples=300),
                               kg=[str(DEMO / "kg_edges.csv")], labels=str(DEMO / "labels.csv"))

    def records(frame) -> list[dict]:
        return [{key: finite_or_none(value) if isinstance(value, float) else value for key, value in row.items()}
                for row in frame.to_dict(orient="records")]

    for metric in metrics:
        assert payload["effect_sizes"][metric] == records(effect_sizes(result, metric))
        tables = repeated_measures_anova(result, metric)
        assert payload["anova"][metric] == {"summary": records(tables.summary)[0], "tukey": records(tables.tukey)}
        # the pairs of every section in compare's order, with compare's mean differences
        compared = payload["comparisons"][metric]
        for section in (payload["effect_sizes"][metric], payload["anova"][metric]["tukey"]):
            assert [(p["system_a"], p["system_b"]) for p in section] == [(p["system_a"], p["system_b"]) for p in compared]
            assert [p["mean_difference"] for p in section] == pytest.approx([p["mean_difference"] for p in compared],
                                                                            rel=1e-12)
