"""The Python API: one code path with the CLI and the dashboard, in-memory inputs, hand-worked statistics."""

from __future__ import annotations

import doctest
import json
import subprocess
import sys
from dataclasses import asdict

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalcore
from evalcore.cli import main
from evalcore.data import ConceptSets, Run
from evalcore.errors import InputError, ParameterError
from evalcore.evaluation.evaluator import Evaluation, Evaluator, SystemResult
from evalcore.evaluation.options import Relevance, Scoring
from evalcore.evaluation.results import Results, Statistics, evaluate_runs
from evalcore.io.loading import load_kg, load_labels
from evalcore.readers import read_concepts, read_run
from evalcore.stats.compare import bootstrap_cis, compare_systems
from tests.conftest import DEMO, ROOT

CONCEPTS, KG, LABELS = DEMO / "concepts.csv", DEMO / "kg_edges.csv", DEMO / "labels.csv"
RUNS = sorted((DEMO / "runs").glob("*.trec"))
CLI_INPUTS = ["--concepts", str(CONCEPTS), "--kg", str(KG), "--run", *map(str, RUNS), "--labels", str(LABELS),
              "--alpha", "0.5", "--n", "1"]


@pytest.fixture(scope="module")
def demo() -> Results:
    return evalcore.evaluate(str(CONCEPTS), [str(p) for p in RUNS], Relevance.of(0.5, 1), Scoring(k=(5, 10, 30)),
                             kg=[str(KG)], labels=str(LABELS))


@pytest.mark.slow
def test_api_cli_and_the_shared_function_give_identical_numbers(demo, tmp_path):
    out, per_query = tmp_path / "e.json", tmp_path / "pq.csv"
    assert main(["evaluate", *CLI_INPUTS, "--k", "5", "10", "30", "--json", str(out), "--per-query", str(per_query)]) == 0
    cli = json.loads(out.read_text())
    api = json.loads(demo.to_json())
    assert cli["systems"] == api["systems"]
    assert cli["intervals"] == api["intervals"]
    assert cli["statistics"] == api["statistics"] == {**asdict(Statistics()), "smallest_p_randomization": 1 / 2001}
    assert set(cli["intervals"]) == {"near-random", "overlap-noisy", "visual-confused"}
    for system, metrics in cli["intervals"].items():
        for metric, (low, high) in metrics.items():
            assert low <= cli["systems"][system][metric] <= high

    concepts = read_concepts(CONCEPTS)
    evaluator = Evaluator(concepts, load_kg([KG]), "undirected", load_labels(LABELS, concepts))
    direct = evaluate_runs(evaluator, [read_run(p) for p in RUNS], Scoring(k=(5, 10, 30)))
    pd.testing.assert_frame_equal(direct.table(), demo.table(), check_exact=True)

    written = pd.read_csv(per_query, dtype={"query_id": str})
    expected = demo.per_query()
    assert written[["system", "query_id", "metric"]].equals(expected[["system", "query_id", "metric"]])
    assert np.array_equal(written["value"].to_numpy(), expected["value"].to_numpy(), equal_nan=True)


def test_compare_command_api_and_leaderboard_agree(demo, tmp_path):
    out = tmp_path / "c.json"
    assert main(["compare", *CLI_INPUTS, "--metric", "nn-CUI@10", "P@10[modality]", "--json", str(out)]) == 0
    cli = json.loads(out.read_text())
    assert set(cli["comparisons"]) == {"nn-CUI@10", "P@10[modality]"}
    for metric, pairs in cli["comparisons"].items():
        assert pairs == demo.compare(metric).to_dict("records")
        assert len(pairs) == 3  # three systems, three pairs
        for system, means in cli["systems"].items():
            assert means[metric] == demo.means()[system][metric]
            # compare evaluates only its metrics; the bootstrap draws are the same, BLAS may sum in another order
            assert cli["intervals"][system][metric] == pytest.approx(demo.intervals()[system][metric], rel=1e-12)
    # The leaderboard calls compare_systems on cached_evaluation's values with samples=2000 (pages/leaderboard.py).
    column = demo.metrics.index("nn-CUI@10")
    values = {s: dict(zip(demo.query_ids(s), demo.values(s)[:, column])) for s in demo.systems}
    assert [asdict(c) for c in compare_systems(values, samples=2000)] == demo.compare("nn-CUI@10").to_dict("records")


@pytest.mark.slow
def test_in_memory_inputs_give_the_numbers_of_the_files(demo):
    concepts_frame = pd.read_csv(CONCEPTS, dtype=str, keep_default_na=False)
    concepts_as_sets = {row.ID: set(row.CUIs.split(";")) if row.CUIs else set() for row in concepts_frame.itertuples()}
    kg_frame = pd.read_csv(KG)
    labels_frame = pd.read_csv(LABELS, dtype=str)
    trec = pd.read_csv(RUNS[0], sep=r"\s+", header=None, names=["qid", "q0", "docid", "rank", "score", "tag"],
                       dtype={"qid": str, "docid": str})
    second = read_run(RUNS[1])
    runs = {RUNS[0].stem: trec.drop(columns=["q0", "tag"]),
            RUNS[1].stem: {q: list(ranked) for q, ranked in second.rankings.items()},
            RUNS[2].stem: read_run(RUNS[2])}
    originals = [concepts_frame.copy(), kg_frame.copy(), labels_frame.copy(), trec.copy()]
    result = evalcore.evaluate(concepts=concepts_as_sets, runs=runs, kg=kg_frame, labels=labels_frame)
    assert result.means() == demo.means()
    pd.testing.assert_frame_equal(result.table(), demo.table(), check_exact=True)
    for original, given in zip(originals, [concepts_frame, kg_frame, labels_frame, trec]):
        pd.testing.assert_frame_equal(original, given)  # the caller's objects are left alone

    with_lists = concepts_frame.assign(CUIs=[sorted(cuis) for cuis in (concepts_as_sets[i] for i in concepts_frame.ID)])
    pairs = list(zip(kg_frame.child, kg_frame.parent))
    labels_dict = {kind: dict(zip(labels_frame.ID, labels_frame[kind].fillna(""))) for kind in ("modality", "organ")}
    again = evalcore.evaluate(with_lists, runs, Scoring(["nn-CUI@10", "P@10[organ]"]), kg=pairs, labels=labels_dict)
    assert again.means() == {s: {m: demo.means()[s][m] for m in ("nn-CUI@10", "P@10[organ]")} for s in demo.systems}


def test_run_given_as_scores_ranks_by_score():
    concepts = {"q": {"C0000001"}, "a": {"C0000001"}, "b": set()}
    result = evalcore.evaluate(concepts, {"scored": {"q": {"b": 0.1, "a": 0.9}}, "listed": {"q": ["b", "a"]}},
                               Scoring(["CUI@1"]))
    assert result.means() == {"scored": {"CUI@1": 1.0}, "listed": {"CUI@1": 0.0}}
    unnamed = evalcore.evaluate(concepts, [pd.DataFrame({"query_id": ["q"], "image_id": ["a"], "score": [1.0]})],
                                Scoring(["CUI@1"]))
    assert unnamed.systems == ["run1"]


def test_a_trec_file_with_several_tags_is_several_systems(tmp_path):
    concepts = {"q": {"C0000001"}, "a": {"C0000001"}, "b": set()}
    both = tmp_path / "both.trec"
    both.write_text("q Q0 a 1 2 good\nq Q0 b 2 1 good\nq Q0 b 1 2 poor\nq Q0 a 2 1 poor\n")
    result = evalcore.evaluate(concepts, [str(both)], Scoring(["CUI@1"]))
    assert result.means() == {"good": {"CUI@1": 1.0}, "poor": {"CUI@1": 0.0}}
    with pytest.raises(InputError, match="one system"):
        evalcore.evaluate(concepts, {"named": str(both)}, Scoring(["CUI@1"]))


def test_bad_inputs_raise_the_projects_errors_naming_input_and_line():
    good_runs = {"s": {"a": ["b"]}}
    bad = pd.DataFrame({"ID": ["a", "b"], "CUIs": ["C0000001", "not-a-cui"]})
    with pytest.raises(InputError, match=r"^concepts DataFrame, line 3: expected CUIs"):
        evalcore.evaluate(bad, good_runs)
    with pytest.raises(ParameterError, match="expected columns id, cuis"):
        evalcore.evaluate(pd.DataFrame({"ID": ["a"]}), good_runs)
    concepts = {"a": {"C0000001"}, "b": {"C0000001"}}
    with pytest.raises(ParameterError, match="needs a system name"):
        evalcore.evaluate(concepts, {"a": ["b"]})
    with pytest.raises(InputError, match=r"runs\['s'\] dict, line 3: expected each image once"):
        evalcore.evaluate(concepts, {"s": {"a": ["b", "b"]}})
    with pytest.raises(ParameterError, match="k must be"):
        evalcore.evaluate(concepts, good_runs, Scoring(k=0))
    with pytest.raises(ParameterError, match="confidence"):
        evalcore.evaluate(concepts, good_runs, Statistics(confidence=1.5))
    with pytest.raises(ParameterError, match="kinds in"):
        evalcore.evaluate(concepts, good_runs, labels={"colour": {"a": "red"}})
    with pytest.raises(ParameterError, match=r"^options: expected Relevance, Scoring, Statistics or Compute .* got dict"):
        evalcore.evaluate(concepts, good_runs, {"metrics": ["CUI@1"]})
    with pytest.raises(ParameterError, match=r"^options: two Scoring objects; give each kind once"):
        evalcore.evaluate(concepts, good_runs, Scoring(["CUI@1"]), Scoring(["CUI@2"]))
    with pytest.raises(ParameterError, match="KG mode must be one of"):
        evalcore.evaluate(concepts, good_runs, kg_mode="sideways")
    result = evalcore.evaluate(concepts, good_runs, Scoring(["CUI@1"]))
    with pytest.raises(ParameterError, match="was not evaluated"):
        result.compare("nn-CUI@10")
    with pytest.raises(ParameterError, match="unknown system"):
        result.values("t")


def hand_results(a: list[float], b: list[float], metric: str = "CUI@10", statistics: Statistics | None = None) -> Results:
    queries = tuple(f"q{i}" for i in range(len(a)))
    systems = {name: SystemResult(name, queries, {metric: np.array(values, dtype=float)}, {})
               for name, values in (("sys_a", a), ("sys_b", b))}
    return Results(Evaluation(systems, {"alpha": 0.5, "n": 1}, [metric]), statistics)


def test_comparison_by_hand():
    # Every query gains (0.1, 0.05, 0.2, 0.15): flipping the signs of any proper, non-empty subset of these
    # positive differences lowers |mean|, so of the 2^4 sign patterns only "all +" and "all -" reach the
    # observed 0.125: the exact randomization p is 2/16 = 0.125 (the seeded estimate lies within 4 SE).
    a = [0.5, 0.7, 0.3, 0.9]
    b = [0.4, 0.65, 0.1, 0.75]
    pair = hand_results(a, b, statistics=Statistics(randomization_samples=20000)).compare("CUI@10").iloc[0]
    assert pair.mean_difference == pytest.approx(0.125)
    assert pair.queries == 4
    assert pair.p_randomization == pytest.approx(0.125, abs=0.01)
    assert pair.p_randomization_holm == pytest.approx(pair.p_randomization, abs=1e-12)  # one pair: Holm keeps p
    assert pair.p_t_test == pytest.approx(stats.ttest_rel(a, b).pvalue)

    three = Results(Evaluation({**hand_results(a, b).evaluation.systems,
                                **{"sys_c": SystemResult("sys_c", ("q0", "q1", "q2", "q3"), {"CUI@10": np.array(b)}, {})}},
                               {}, ["CUI@10"]))
    pairs = three.compare("CUI@10")
    raw = pairs.p_randomization.tolist()
    order = np.argsort(raw)  # Holm: the i-th smallest of m p-values times (m - i), kept monotone
    expected = np.maximum.accumulate([min(1.0, (3 - rank) * raw[i]) for rank, i in enumerate(order)])
    assert pairs.p_randomization_holm.to_numpy()[order] == pytest.approx(expected)
    assert pairs.set_index(["system_a", "system_b"]).loc[("sys_b", "sys_c"), "p_randomization"] == 1.0


def test_table_intervals_and_json_with_undefined_values():
    result = hand_results([0.2, 0.4, np.nan, 0.6], [np.nan] * 4)
    table = result.table().set_index("system")
    assert table.loc["sys_a", "mean"] == pytest.approx(0.4)
    assert table.loc["sys_a", "queries"] == 3
    assert table.loc["sys_a", "ci_low"] >= 0.2 and table.loc["sys_a", "ci_high"] <= 0.6
    assert np.isnan(table.loc["sys_b", "mean"]) and table.loc["sys_b", "queries"] == 0
    payload = json.loads(result.to_json(compare=["CUI@10"]))
    assert payload["systems"]["sys_b"] == {"CUI@10": None}
    assert payload["intervals"]["sys_b"] == {"CUI@10": [None, None]}
    assert payload["comparisons"]["CUI@10"][0]["queries"] == 0
    assert result.intervals()["sys_a"]["CUI@10"] == (table.loc["sys_a", "ci_low"], table.loc["sys_a", "ci_high"])


def test_table_intervals_equal_one_bootstrap_per_system():
    """Systems over as many queries share one bootstrap call; each interval is the one its own call gives, over the
    queries in the order of their IDs (q0, q1, q10, ...)."""
    from evalcore.stats.compare import id_order

    rng = np.random.default_rng(7)
    values = {f"sys_{i}": np.where(rng.random((40, 3)) < 0.1, np.nan, rng.random((40, 3))) for i in range(3)}
    values["short"] = rng.random((25, 3))
    metrics = ["CUI@5", "CUI@10", "MAP"]
    systems = {name: SystemResult(name, tuple(f"q{i}" for i in range(len(v))),
                                  {metric: v[:, column] for column, metric in enumerate(metrics)}, {})
               for name, v in values.items()}
    statistics = Statistics()
    table = Results(Evaluation(systems, {}, metrics), statistics).table().set_index(["system", "metric"])
    for name, v in values.items():
        in_id_order = v[id_order(systems[name].query_ids)]
        for metric, ci in zip(metrics, bootstrap_cis(in_id_order, statistics.confidence,
                                                      samples=statistics.bootstrap_samples, seed=statistics.seed)):
            row = table.loc[(name, metric)]
            assert (row.ci_low, row.ci_high, row.queries) == pytest.approx((ci.low, ci.high, ci.queries), rel=1e-12)


def test_latex_table_escapes_names_and_marks_undefined_values():
    latex = hand_results([0.25, 0.5], [np.nan, np.nan]).to_latex(digits=2)
    lines = latex.splitlines()
    assert lines[1] == "\\begin{tabular}{lr}" and lines[-1] == "\\end{tabular}"
    assert "sys\\_a & 0.38 {[}0.25, 0.50{]} \\\\" in lines
    assert "sys\\_b & -- \\\\" in lines
    assert "sys\\_a & 0.38 \\\\" in hand_results([0.25, 0.5], [0.1, 0.2]).to_latex(intervals=False, digits=2)


@pytest.mark.parametrize(("document", "examples"), [
    ("README.md", 4), ("docs/API.md", 13), ("docs/CONCEPTS_FROM_CAPTIONS.md", 3)])
def test_documented_examples_run(monkeypatch, document, examples):
    """The README's example, docs/API.md's (the README's "From Python" until issue 66) and the extraction example."""
    monkeypatch.chdir(ROOT)  # the documents' paths are relative to the repository root
    failures, attempted = doctest.testfile(str(ROOT / document), module_relative=False,
                                           optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    assert attempted >= examples and failures == 0


@pytest.mark.subprocess
@pytest.mark.slow
def test_import_evalcore_stays_light():
    code = ("import sys, evalcore; heavy = [m for m in ('pandas', 'scipy', 'streamlit', 'plotly') if m in sys.modules];"
            "import evalcore.cli; ui = [m for m in ('streamlit', 'plotly') if m in sys.modules];"
            "print(heavy, ui, evalcore.evaluate.__module__)")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert output.split() == ["[]", "[]", "evalcore.api"]


def test_results_from_concept_sets_and_runs_objects():
    concepts = ConceptSets(("q", "x", "y"), (frozenset({"C0000001"}), frozenset({"C0000001"}), frozenset()))
    result = evalcore.evaluate(concepts, [Run("s", {"q": ("y", "x")})], Scoring(["CUI@2"]))
    assert result.values("s").shape == (1, 1) and result.query_ids("s") == ("q",)
    assert result.counts["s"]["queries_evaluated"] == 1


@pytest.mark.parametrize("missing", [None, float("nan"), pd.NA])
def test_a_missing_cell_of_an_in_memory_input_is_refused_not_read_as_the_id_nan(missing):
    """Was: a NaN cell became the image ID 'nan' (concepts, a run's image, a KG node), where a None key was
    refused (hunt 27)."""
    from evalcore.api import as_concepts, as_knowledge_graph, as_runs

    with pytest.raises(InputError, match="concepts DataFrame, line 3: expected an image ID"):
        as_concepts(pd.DataFrame({"ID": ["a", missing], "CUIs": ["C0040405", "C0040405"]}))
    with pytest.raises(InputError, match="runs DataFrame, line 2: expected an image ID"):
        as_runs(pd.DataFrame({"query_id": ["a", "a"], "image_id": [missing, "b"], "rank": [1, 2]}))
    with pytest.raises(InputError, match="line 2: expected a node ID"):
        as_knowledge_graph(pd.DataFrame({"child": [missing], "parent": ["C0005847"]}))
    with pytest.raises(InputError, match="expected a score in field 4"):
        as_runs(pd.DataFrame({"query_id": ["a", "a"], "image_id": ["c", "b"], "score": [missing, 1.0]}))


@pytest.mark.parametrize("captions, said", [({"a b": "CT"}, "line 2: expected an image ID without spaces"),
                                            ({None: "CT"}, "line 2: expected an image ID"),
                                            ({"x" * 301: "CT"}, "line 2: expected an image ID"),
                                            ({}, "captions dict: expected at least one row 'ID,Caption', found none")])
def test_extract_concepts_checks_a_dict_of_captions_as_it_checks_a_file(captions, said):
    """Was: a dict's IDs went unchecked, so extraction gave sets of IDs 'a b', None or '' that evaluate refused or
    scored (what extract writes, evaluate must read)."""
    with pytest.raises(InputError, match=f"captions dict, {said}" if said.startswith("line") else said):
        evalcore.extract_concepts(captions, {"C0040405": "X-Ray Computed Tomography"})
    assert evalcore.extract_concepts({"x": None, "y": "CT"}, {"C0040405": "X-Ray Computed Tomography"}).ids == ("x", "y")


@pytest.mark.parametrize("call, said", [
    (lambda: Relevance.of(alpha=None), "alpha must be a number in \\[0, 1\\], got None"),
    (lambda: Relevance.of(alpha=True), "alpha must be a number in \\[0, 1\\], got True"),
    (lambda: Relevance.of(n=True), r"n must be an integer in 0..6 \(the distance threshold, in KG hops\), got True"),
    (lambda: Relevance.of(threshold="0.5"), "relevance threshold must be a number in \\(0, 1\\], got '0.5'"),
    (lambda: Scoring(k=10.0), "k must be a positive integer or a list of them, got 10.0"),
    (lambda: Scoring([None]), "metrics: expected metric names as text, got None"),
    (lambda: evalcore.extract_concepts({"a": "CT"}, [{"C0040405": "CT"}]), "names: expected a file or a list of files"),
])
def test_a_wrongly_typed_argument_is_the_projects_error(call, said):
    """Was a TypeError or AttributeError traceback, or True read as 1 (hunt 27)."""
    with pytest.raises(ParameterError, match=said):
        call()


def test_results_name_a_metric_by_any_of_its_names_and_refuse_a_bad_latex_request():
    results = evalcore.evaluate({"q": {"C0040405"}, "x": {"C0040405"}, "y": {"C0000001"}},
                                {"a": {"q": ["x", "y"]}, "b": {"q": ["y", "x"]}}, Scoring(["MAP@2", "CUI@1"]))
    assert results.compare("AP@2").equals(results.compare("MAP@2"))  # ir_measures' name, as Scoring reads it
    assert "MAP@2" in results.to_latex(["AP@2"])
    with pytest.raises(ParameterError, match="metrics: expected a list of metric names, got the string 'CUI@1'"):
        results.to_latex("CUI@1")
    with pytest.raises(ParameterError, match="digits: expected a whole number from 0 to 17, got -1"):
        results.to_latex(["CUI@1"], digits=-1)
    with pytest.raises(ParameterError, match="metric 'CUI@5' was not evaluated"):
        results.compare("CUI@5")


def test_a_system_without_a_name_or_without_lines_is_refused_as_such():
    """Was: {'': run} became the system 'run' (two such: a clash of 'run' and 'run'); {'s': {}} was told it was one
    run needing a system name (hunt 27)."""
    from evalcore.api import as_runs

    with pytest.raises(ParameterError, match="runs: expected a system name for each run, found ''"):
        as_runs({"": {"q": ["x"]}})
    with pytest.raises(InputError, match=r"runs\['s'\] dict: expected at least one run line"):
        as_runs({"s": {}})


def test_the_reviews_edges_of_the_api_hold():
    """Found by the review of hunt 27's fixes: an empty list of runs, K as an array, a missing cell of a string
    column, a one-run dict with an empty query, and one metric named twice for LaTeX."""
    from evalcore.api import as_concepts, as_runs

    concepts = read_concepts(b"ID,CUIs\nq,C0000001\nx,C0000001\n", "c.csv")
    assert Evaluator(concepts).evaluate([], ["CUI@1"]).systems == {}
    assert Scoring(k=np.array([5, 10])).k == (5, 10) and Scoring(k=pd.Series([5, 10])).k == (5, 10)
    with pytest.raises(ParameterError, match="k must be a positive integer or a list of them, got '10'"):
        Scoring(k="10")
    frame = pd.DataFrame({"ID": ["a", "b"], "CUIs": pd.array(["C0040405", None], dtype="string")})
    assert as_concepts(frame).sets[1] == frozenset()  # a missing cell of a string column: no concepts, as NaN
    with pytest.raises(ParameterError, match="a dict of query -> ranked IDs is one run and needs a system name"):
        as_runs({"q": {"a": 1.0, "b": 0.5}, "c": {}})
    results = evalcore.evaluate({"q": {"C0040405"}, "x": {"C0040405"}}, {"a": {"q": ["x"]}}, Scoring(["MAP@2"]))
    with pytest.raises(ParameterError, match="metrics: MAP@2 is named twice"):
        results.to_latex(["AP@2", "MAP@2"])


@pytest.mark.parametrize("score", [None, float("nan"), np.float32("nan"), pd.NA])
def test_a_run_dict_without_a_score_names_its_query_and_image(score) -> None:
    """A missing score in a dict run is named by its keys, not as an empty field on a line of a file the user never
    wrote."""
    run = {"sys": {"q1": {"d1": 0.9, "d2": score}}}
    with pytest.raises(ParameterError, match=r"^runs\['sys'\]\['q1'\]\['d2'\]: expected a score, got "):
        evalcore.evaluate({"q1": ["C0000001"], "d1": ["C0000001"], "d2": ["C0000002"]}, run)
