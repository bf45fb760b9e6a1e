"""The option objects of evalcore/evaluation/options.py, and the API's qrels, empty_queries and relevance_level agreeing with
the command line on the demo."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError

import pytest

import evalcore
import evalcore.engine
from evalcore.cli import main
from evalcore.engine.executors import LocalProcesses
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Compute, Relevance, Scoring, Statistics
from evalcore.readers import read_concepts, read_run
from evalcore.relevance.measures import measure_spec, nn_iou_measure, parse_measure
from tests.conftest import DEMO

CONCEPTS, KG = DEMO / "concepts.csv", DEMO / "kg_edges.csv"
RUNS = sorted((DEMO / "runs").glob("*.trec"))


@pytest.mark.parametrize("arguments, message", [
    ({"alpha": 1.5}, "alpha must lie in"),
    ({"n": 7}, r"n must be an integer in 0..6 \(the distance threshold, in KG hops\)"),
    ({"gain": "cubic"}, "gain must be one of"),
    ({"threshold": 0}, "relevance threshold"),
    ({"threshold": 1.5}, "relevance threshold"),
    ({"empty_queries": "drop"}, "empty_queries"),
    ({"relevance_level": 0}, "relevance level"),
    ({"relevance_level": 1.5}, "relevance level"),
    ({"relevance_level": True}, "relevance level"),
    ({"measure": "dice"}, "must be a MeasureSpec"),  # text is parsed at the door
])
def test_relevance_is_validated_when_built(arguments, message):
    with pytest.raises(ParameterError, match=message):
        Relevance.of(**arguments)


def test_relevance_holds_measure_specs_only():
    relevance = Relevance.of(0.3, 2, parse_measure("tversky(a=0.9,b=0.3)"))
    assert relevance.nn_iou == measure_spec("nn-iou", alpha=0.3, n=2)
    assert (relevance.alpha, relevance.n) == (0.3, 2)
    assert relevance.spec_for("tversky").name == "tversky(a=0.9,b=0.3)"
    assert relevance.spec_for("dice") == measure_spec("dice")  # no parameters: needs no choice
    with pytest.raises(ParameterError, match="need that measure's parameters"):
        relevance.spec_for("nn-iou-hops")
    # An nn-IoU measure sets alpha and n (as --measure documents); two different nn-IoU settings are refused.
    assert Relevance.of(0.9, 3, parse_measure("nn-iou(alpha=0.2,n=1)")).nn_iou.name == "nn-iou(alpha=0.2,n=1)"
    with pytest.raises(ParameterError, match="two nn-IoU settings"):
        Relevance(nn_iou_measure(0.5, 1), measure_spec("nn-iou", alpha=0.2, n=1))
    with pytest.raises(ParameterError, match="nn-iou MeasureSpec"):
        Relevance(measure_spec("dice"))
    with pytest.raises(FrozenInstanceError):
        relevance.gain = "exponential"


@pytest.mark.subprocess
def test_scoring_statistics_and_compute_are_validated_when_built():
    assert Scoring(k=10).k == (10,)
    assert Scoring(["nn-CUI@10", "P@5[modality]"]).metrics == ("nn-CUI@10", "P@5[modality]")
    for bad, message in (({"k": 0}, "k must be"), ({"k": [5, True]}, "k must be"), ({"metrics": ["CUI@0"]}, "CUI@0"),
                         ({"metrics": "nn-CUI@10"}, "list of metric names"), ({"metrics": ["XYZ@3"]}, "unknown metric")):
        with pytest.raises(ParameterError, match=message):
            Scoring(**bad)
    with pytest.raises(ParameterError, match="seed"):
        Statistics(seed=-1)
    with pytest.raises(ParameterError, match="not both"):
        Compute(workers=2, client="tcp://127.0.0.1:1")
    with pytest.raises(ParameterError, match="memory per worker"):
        Compute(memory_per_worker=1)
    with pytest.raises(ParameterError):
        Compute(backend="torch")
    with pytest.raises(ParameterError, match="threads"):
        Compute(threads=0)
    with pytest.raises(ParameterError, match="group_codes"):
        Compute(group_codes="no")
    with pytest.raises(ParameterError, match="device_memory"):
        Compute(backend="jax", device_memory=0)
    with pytest.raises(ParameterError, match="not both"):
        Compute(workers=2, executor=LocalProcesses(2))
    with pytest.raises(ParameterError, match="BlockExecutor"):
        Compute(executor="tcp://127.0.0.1:1")
    assert Compute(backend=" NumPy ", device="CPU") == Compute(backend="numpy", device="cpu")
    assert Compute().block_executor() is None and Compute(workers=2).block_executor().workers == 2
    ready = LocalProcesses(2)
    assert Compute(executor=ready).block_executor() is ready
    assert evalcore.Compute is Compute is evalcore.engine.Compute


def test_compute_options_reach_the_engine_and_leave_the_numbers_alone():
    concepts, run = read_concepts(CONCEPTS), read_run(RUNS[0])
    plain = Evaluator(concepts, compute=Compute(group_codes=False, threads=1))
    assert (plain.engine.group_codes, plain.engine.threads) == (False, 1)
    metrics = ["CUI@10", "MAP@10", "R@30"]
    assert plain.evaluate([run], metrics).means() == Evaluator(concepts).evaluate([run], metrics).means()


def test_the_evaluator_takes_relevance_options_not_loose_settings():
    evaluator = Evaluator(read_concepts(CONCEPTS))
    run = read_run(RUNS[0])
    with pytest.raises(ParameterError, match="must be a Relevance"):
        evaluator.evaluate([run], ["CUI@5"], 0.5)  # alpha and n are turned into a MeasureSpec at the door
    by_default = evaluator.evaluate([run], ["CUI@5"]).means()
    assert by_default == evaluator.evaluate([run], ["CUI@5"], Relevance()).means()


def test_api_empty_queries_and_measure_agree_with_the_cli(tmp_path):
    out = tmp_path / "e.json"
    metrics = ["CUI@10", "CUI@10{tversky}", "MAP@10{tversky}", "nn-R@10"]
    assert main(["evaluate", "--concepts", str(CONCEPTS), "--kg", str(KG), "--run", *map(str, RUNS), "--metrics",
                 *metrics, "--measure", "tversky(a=0.8,b=0.2)", "--alpha", "0.3", "--n", "2", "--threshold", "0.4",
                 "--empty-queries", "zero", "--gain", "exponential", "--json", str(out)]) == 0
    cli = json.loads(out.read_text())
    api = evalcore.evaluate(str(CONCEPTS), [str(p) for p in RUNS], Scoring(metrics),
                            Relevance.of(0.3, 2, parse_measure("tversky(a=0.8,b=0.2)"), threshold=0.4, empty_queries="zero",
                                         gain="exponential"), kg=[str(KG)])
    assert cli["systems"] == api.to_dict()["systems"]
    assert cli["intervals"] == api.to_dict()["intervals"]
    assert {key: cli["params"][key] for key in api.params} == api.params
    assert api.params["empty_queries"] == "zero" and api.params["measure"] == "tversky(a=0.8,b=0.2)"


@pytest.mark.slow
def test_api_qrels_and_relevance_level_agree_with_the_cli(tmp_path):
    qrels, out = tmp_path / "demo.qrels", tmp_path / "q.json"
    runs = [str(p) for p in RUNS]
    assert main(["qrels", "--concepts", str(CONCEPTS), "--kg", str(KG), "--run", *runs, "--k", "10",
                 "--out", str(qrels)]) == 0
    for level in (1, 3):
        assert main(["evaluate", "--qrels", str(qrels), "--run", *runs, "--k", "5", "10", "--relevance-level",
                     str(level), "--empty-queries", "zero", "--json", str(out)]) == 0
        cli = json.loads(out.read_text())
        api = evalcore.evaluate(None, runs, Scoring(k=(5, 10)), Relevance.of(relevance_level=level, empty_queries="zero"),
                                qrels=str(qrels))
        assert api.metrics == ["qrels-NDCG@5", "qrels-NDCG@10", "qrels-Prec@5", "qrels-Prec@10", "qrels-MAP@5",
                               "qrels-MAP@10", "qrels-R@5", "qrels-R@10"]  # trec_eval's report, as the CLI's
        assert cli["systems"] == api.to_dict()["systems"] and cli["intervals"] == api.to_dict()["intervals"]
        assert api.params["relevance_level"] == level and api.params["qrels"] == cli["params"]["qrels"]
    with pytest.raises(ParameterError, match="concept sets or a qrels file"):
        evalcore.evaluate(None, runs)
    with pytest.raises(ParameterError, match="labels belong"):
        evalcore.evaluate(None, runs, qrels=str(qrels), labels=str(DEMO / "labels.csv"))
