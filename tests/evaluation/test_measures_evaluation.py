"""Measures in metric names, the evaluator, the CLI, the ablation sweep and the measure comparison."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

from evalcore.cli import main
from evalcore.data import ImageLabels, Run
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.metrics.registry import metric_names_for_measure, ndcg, parse_metric
from evalcore.relevance.formulas import dice, tversky
from evalcore.relevance.measures import default_measures, parse_measure
from evalcore.stats.compare import compare_systems
from evalcore.studies.ablation import parameter_range, parameter_sweep, retrieval_system, sweep_values
from evalcore.studies.measure_comparison import compare_measures, ndcg_metric, simulated_detector_run
from tests.conftest import random_world


def random_runs(concepts, count: int = 3, depth: int = 12) -> list[Run]:
    rng = np.random.default_rng(5)
    ids = list(concepts.ids)
    return [Run(f"system{s}", {q: tuple(rng.choice(ids, depth, replace=False)) for q in ids}) for s in range(count)]


def random_labels(concepts) -> ImageLabels:
    rng = np.random.default_rng(9)
    return ImageLabels({"modality": {i: frozenset({str(rng.choice(["CT", "MRI"]))}) for i in concepts.ids},
                        "organ": {i: frozenset({str(rng.choice(["head", "chest", "abdomen"]))})
                                  for i in concepts.ids[5:]}}, "labels")


# --- metric names ----------------------------------------------------------------------------

def test_metric_names_carry_the_measure_key():
    spec = parse_metric("CUI@10{nn-tversky}")
    assert (spec.name, spec.relevance, spec.family.key) == ("CUI@10{nn-tversky}", "nn-tversky", "CUI")
    assert parse_metric("RBP{dice}").name == "RBP{dice}"
    assert parse_metric("MAP@5{iou}").name == "MAP@5" and parse_metric("R@5{nn-iou}").name == "nn-R@5"
    assert "Tversky" in parse_metric("CUI@10{tversky}").describe()
    for bad, message in (("nn-CUI@10{dice}", "only IoU-family"), ("P@5[modality]{dice}", "only IoU-family"),
                         ("CUI@10{jaccard}", "unknown relevance measure")):
        with pytest.raises(ParameterError, match=message):
            parse_metric(bad)


def test_metric_names_for_measure_replace_nn_iou():
    standard = metric_names_for_measure([5], ["modality"])
    assert standard == metric_names_for_measure([5], ["modality"], "nn-iou")
    assert not any(n.startswith("nn-") for n in metric_names_for_measure([5], [], "iou"))
    with_dice = metric_names_for_measure([5], ["modality"], "dice")
    assert [n.replace("{dice}", "") for n in with_dice if "{dice}" in n] == \
        [n.removeprefix("nn-") for n in standard if n.startswith("nn-")]
    assert len(with_dice) == len(standard)


# --- the evaluator -----------------------------------------------------------------------------

@pytest.mark.parametrize("measure", ["tversky(a=0.8,b=0.1)", "nn-iou-hops(w1=0.6,w2=0.2)", "nn-iou-depth(alpha=1,n=2)",
                                     "dice"])
def test_ndcg_under_a_measure_equals_a_loop_over_queries(measure):
    concepts, kg = random_world(3, images=50)
    evaluator = Evaluator(concepts, kg)
    runs = random_runs(concepts)
    spec = parse_measure(measure)
    metric = f"CUI@5{{{spec.key}}}"
    evaluation = evaluator.evaluate(runs, [metric, "CUI@5"], Relevance.of(measure=spec))
    relevance = spec.pair_function(kg, concepts.vocabulary)
    for run in runs:
        values = evaluation.systems[run.name].values[metric]
        for q, query in enumerate(concepts.ids):
            a = concepts[query]
            ranked = [relevance(a, concepts[d]) for d in run.rankings[query] if d != query]
            ideal = sorted((relevance(a, s) for j, s in enumerate(concepts.sets) if j != q), reverse=True)
            expected = ndcg(ranked, ideal, 5)
            assert (math.isnan(values[q]) and expected is None) or values[q] == pytest.approx(expected, abs=1e-12)
    assert evaluation.params["measure"] == spec.name


def test_measure_parameters_are_required_where_the_measure_has_some():
    concepts, kg = random_world(0, images=30)
    evaluator = Evaluator(concepts, kg)
    runs = random_runs(concepts, 1)
    with pytest.raises(ParameterError, match="tversky"):
        evaluator.evaluate(runs, ["CUI@5{tversky}"])
    with pytest.raises(ParameterError, match="tversky"):
        evaluator.evaluate(runs, ["CUI@5{tversky}"], Relevance.of(measure=parse_measure("dice")))
    assert evaluator.evaluate(runs, ["CUI@5{dice}"]).metric_names == ["CUI@5{dice}"]


def test_an_nn_iou_measure_sets_alpha_and_n():
    concepts, kg = random_world(1, images=40)
    evaluator = Evaluator(concepts, kg)
    runs = random_runs(concepts, 2)
    by_arguments = evaluator.evaluate(runs, ["nn-CUI@5", "nn-MAP@5"], Relevance.of(0.3, 2)).means()
    by_measure = evaluator.evaluate(runs, ["nn-CUI@5", "nn-MAP@5"],
                                    Relevance.of(measure=parse_measure("nn-iou(alpha=0.3,n=2)"))).means()
    assert by_arguments == by_measure


def test_retrieval_by_dice_is_retrieval_by_iou():
    """Dice = 2 IoU / (1 + IoU) is increasing in IoU: same rankings, same ties."""
    concepts, kg = random_world(6, images=80)
    evaluator = Evaluator(concepts, kg)
    by_iou = evaluator.relevance_ranking(parse_measure("iou"), 20)
    by_dice = evaluator.relevance_ranking(parse_measure("dice"), 20)
    assert by_iou.documents.tolist() == by_dice.documents.tolist()
    a, b = concepts.sets[0], concepts.sets[1]
    assert dice(a, b) == pytest.approx(2 * tversky(a, b, 1, 1) / (1 + tversky(a, b, 1, 1)))


# --- the CLI -------------------------------------------------------------------------------

@pytest.fixture
def tiny(tmp_path):
    (tmp_path / "gt.csv").write_text("ID,CUIs\nq,C0040405;C0042449\nx,C0040405;C0005847\ny,C0040405\nz,C0024485\n")
    (tmp_path / "kg.csv").write_text("child,parent\nC0042449,C0005847\n")
    (tmp_path / "pairs.csv").write_text("a,b\nq,x\nq,z\n")
    (tmp_path / "run.trec").write_text("q Q0 x 1 3 good\nq Q0 y 2 2 good\nq Q0 z 3 1 good\n")
    return tmp_path


def test_relevance_command_adds_the_chosen_measure_as_last_column(tiny):
    arguments = ["relevance", "--concepts", str(tiny / "gt.csv"), "--kg", str(tiny / "kg.csv"), "--pairs",
                 str(tiny / "pairs.csv"), "--out", str(tiny / "out.csv")]
    assert main(arguments) == 0
    rows = list(csv.DictReader(open(tiny / "out.csv")))
    assert list(rows[0]) == ["a", "b", "iou", "nn_iou", "approximate_matches", "value"]
    assert rows[0]["value"] == rows[0]["nn_iou"]
    assert main(arguments + ["--measure", "nn-tversky(a=0.7,b=0.3)"]) == 0
    rows = list(csv.DictReader(open(tiny / "out.csv")))
    assert float(rows[0]["value"]) == pytest.approx(0.8) and float(rows[0]["iou"]) == pytest.approx(1 / 3)


def test_evaluate_and_retrieve_commands_take_a_measure(tiny, capsys):
    out = tiny / "r.json"
    # (tversky and the IoU metrics read no KG: evaluate refuses --kg beside them)
    assert main(["evaluate", "--concepts", str(tiny / "gt.csv"), "--run",
                 str(tiny / "run.trec"), "--k", "1", "3", "--measure", "tversky(0.9, 0.1)", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    capsys.readouterr()
    assert result["params"]["measure"] == "tversky(a=0.9,b=0.1)"
    assert {"CUI@1", "CUI@1{tversky}", "RBP{tversky}"} <= set(result["systems"]["good"])
    assert not any(name.startswith("nn-") for name in result["systems"]["good"])
    trec = tiny / "dice.trec"
    assert main(["retrieve", "--concepts", str(tiny / "gt.csv"), "--measure", "dice", "--depth", "2",
                 "--out", str(trec)]) == 0
    assert trec.read_text().splitlines()[0].split() == ["q", "Q0", "y", "1", "0.6666667", "dice"]
    assert main(["retrieve", "--concepts", str(tiny / "gt.csv"), "--depth", "2", "--out", str(trec)]) == 2
    assert main(["retrieve", "--concepts", str(tiny / "gt.csv"), "--by", "iou", "--measure", "dice", "--depth", "2",
                 "--out", str(trec)]) == 2
    assert main(["retrieve", "--concepts", str(tiny / "gt.csv"), "--measure", "nn-iou-depth", "--depth", "2",
                 "--out", str(trec)]) == 2
    assert main(["evaluate", "--concepts", str(tiny / "gt.csv"), "--run", str(tiny / "run.trec"), "--measure",
                 "tversky(a=2)", "--json", str(out)]) == 2
    errors = capsys.readouterr().err.strip().splitlines()
    assert "needs --by" in errors[0] and "one of them" in errors[1] and "--kg" in errors[2] and "[0, 1]" in errors[3]


# --- the ablation sweep --------------------------------------------------------------------

def test_parameter_sweep_equals_evaluating_each_setting():
    concepts, kg = random_world(2, images=45)
    evaluator = Evaluator(concepts, kg, labels=random_labels(concepts))
    runs = random_runs(concepts, 2)
    spec = parse_measure("nn-tversky(a=0.6,b=0.2,alpha=0.5,n=1)")
    metrics = ["CUI@5{nn-tversky}", "P@5[modality]"]
    values = sweep_values(spec, "b", 3)
    assert values == [0.0, 0.5, 1.0]
    sweep = parameter_sweep(evaluator, runs, metrics, spec, "b", values)
    reference = retrieval_system(spec)
    assert reference == "Retrieval by nn-Tversky"
    assert set(sweep.system) == {"system0", "system1", reference}
    for value in values:
        setting = spec.with_parameters(b=value)
        ranking = evaluator.relevance_ranking(setting, 5, 5, name=reference)
        means = evaluator.evaluate([*runs, ranking], metrics, Relevance.of(measure=setting)).means()
        for system, per_metric in means.items():
            for metric, mean in per_metric.items():
                row = sweep[(sweep.system == system) & (sweep.setting == value) & (sweep.metric == metric)]
                assert row.value.item() == mean
    retrieval = sweep[(sweep.system == reference) & (sweep.metric == "CUI@5{nn-tversky}")]
    assert (retrieval.value == 1.0).all()  # retrieval by a measure is its own ideal ranking


def test_parameter_ranges_keep_hop_weights_non_increasing():
    assert parameter_range(parse_measure("nn-iou-hops(w1=0.6,w2=0.3,w3=0.1)"), "w1") == (0.3, 1.0)
    assert parameter_range(parse_measure("nn-iou-hops(w1=0.6,w2=0.3,w3=0.1)"), "w3") == (0.0, 0.3)
    assert sweep_values(parse_measure("nn-iou-depth(alpha=1,n=1)"), "n") == [0, 1, 2, 3]
    with pytest.raises(ParameterError, match="no parameter"):
        parameter_range(parse_measure("dice"), "a")


# --- the measure comparison ----------------------------------------------------------------

def test_compare_measures_on_random_data():
    concepts, kg = random_world(7, images=90, vocabulary=18)
    evaluator = Evaluator(concepts, kg, labels=random_labels(concepts))
    runs = random_runs(concepts, 3, depth=30) + [simulated_detector_run(concepts, 0.4, 0, 30)]
    measures = [m for m in default_measures() if m.key != "iou"] + [parse_measure("tversky(a=0.3,b=0.7)")]
    result = compare_measures(evaluator, measures, runs, samples=300, subsample=40, subsample_repeats=2,
                              levels=())
    table = result.table.set_index("measure")
    assert list(table.index)[0] == "iou" and len(table) == len(measures) + 1
    assert table.loc["iou", "Kendall tau vs IoU"] == 1.0
    assert table.loc["dice", "same top-30 as IoU"] == len(concepts)  # Dice ranks exactly as IoU
    cells = [c for c in table.columns if c.startswith("P@")]
    assert len(cells) == 9
    for name, row in table.iterrows():
        gaps = row[cells].to_numpy(dtype=float) - table.loc["iou", cells].to_numpy(dtype=float)
        assert row["beats IoU on every cell"] == bool((gaps > 0).all())
        assert row["worst cell vs IoU"] == pytest.approx(gaps.min())
        spec = parse_measure(name)
        summary = evaluator.engine.pool_summary_by(spec, 31)
        assert row["ties@10"] == int((summary.ideal[:, 9] == summary.ideal[:, 10]).sum())
        metric = ndcg_metric(spec, 10)
        evaluation = evaluator.evaluate(runs, [metric], Relevance.of(measure=spec))
        per_query = {n: dict(zip(r.query_ids, r.values[metric])) for n, r in evaluation.systems.items()}
        significant = sum(c.p_randomization_holm < 0.05 for c in compare_systems(per_query, samples=300))
        assert row["significant pairs"] == f"{significant}/6"
        shares = []
        for seed in range(2):
            chosen = set(np.random.default_rng(seed).choice(sorted(concepts.ids), 40, replace=False).tolist())
            subset = {n: {q: v for q, v in values.items() if q in chosen} for n, values in per_query.items()}
            shares.append(np.mean([c.p_randomization_holm < 0.05 for c in compare_systems(subset, samples=300)]))
        assert row["discriminative power, 40 queries"] == pytest.approx(np.mean(shares))
        assert result.means.loc["system0", name] == pytest.approx(evaluation.means()["system0"][metric])
