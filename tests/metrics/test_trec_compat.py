"""trec_eval compatibility: qrels in and out, MAP@K / Prec@K / R@K / NDCG@K against pytrec_eval (a test-only
oracle) on runs with distinct, tied and float32-tied scores, and the one empty-queries policy of a table."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
import pytrec_eval

from evalcore.cli import main
from evalcore.data import ConceptSets, KGEdges, Qrels, Run
from evalcore.errors import InputError, ParameterError
from evalcore.evaluation import qrels as qrels_module
from evalcore.evaluation.evaluator import Evaluator, empty_query_mask
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.qrels import graded_judgments, integer_grades
from evalcore.metrics.registry import average_precision, parse_metric, trec_average_precision, trec_average_precision_batch
from evalcore.readers import read_concepts, read_qrels, read_run
from evalcore.relevance.formulas import nn_iou
from evalcore.relevance.kg import KnowledgeGraph, neighbour_sets
from evalcore.relevance.measures import nn_iou_measure
from tests.conftest import DEMO, random_world

KS = (1, 3, 5, 10)
TREC_NAMES = {"NDCG": "ndcg_cut", "MAP": "map_cut", "Prec": "P", "R": "recall"}
TOLERANCE = 1e-12


def pytrec(judgments: dict, scored: dict, family: str, k: int, level: int = 1) -> dict[str, float]:
    measure = f"{TREC_NAMES[family]}_{k}"
    evaluated = pytrec_eval.RelevanceEvaluator(judgments, {measure}, relevance_level=level).evaluate(scored)
    return {query: values[measure] for query, values in evaluated.items()}


def scored_in_our_order(run: Run) -> dict[str, dict[str, float]]:
    """The run as pytrec_eval input, with distinct scores that keep our order (trec_eval breaks ties by docno)."""
    return {query: {doc: float(len(docs) - i) for i, doc in enumerate(docs)} for query, docs in run.rankings.items()}


# --- hand-worked ---------------------------------------------------------------------------

def test_map_at_k_divides_by_r_and_map_min_at_k_by_min_k_r():
    ranked = [True, False, True, False, False]
    assert trec_average_precision(ranked, 5, 4) == pytest.approx((1 + 2 / 3) / 4)
    assert average_precision(ranked, 5, 4) == pytest.approx((1 + 2 / 3) / 4)  # R <= K: the same
    assert trec_average_precision(ranked, 2, 4) == pytest.approx(1 / 4)
    assert average_precision(ranked, 2, 4) == pytest.approx(1 / 2)  # min(K, R) = 2
    assert trec_average_precision(ranked, 3, 0) is None
    rng = np.random.default_rng(3)
    relevant = rng.random((30, 12)) < 0.4
    in_pool = rng.integers(0, 9, 30)
    batch = trec_average_precision_batch(relevant, 10, in_pool)
    for row, value in enumerate(batch):
        single = trec_average_precision(relevant[row].tolist(), 10, int(in_pool[row]))
        assert (np.isnan(value) and single is None) or value == pytest.approx(single, abs=TOLERANCE)


def test_qrels_metrics_by_hand():
    # Judged: a 2, b 0, c 1, d 3, z 5 (never retrieved); the run: a, b, x (unjudged), c.
    evaluator = Evaluator(None, qrels=Qrels({"q": {"a": 2, "b": 0, "c": 1, "d": 3, "z": 5}}))
    names = ["qrels-NDCG@3", "qrels-MAP@3", "qrels-Prec@3", "qrels-R@3", "qrels-MAP-min@3", "qrels-ERR@2"]
    values = evaluator.evaluate([Run("s", {"q": ("a", "b", "x", "c")})], names).systems["s"].values
    ideal = 5 + 3 / math.log2(3) + 2 / 2
    assert values["qrels-NDCG@3"][0] == pytest.approx(2 / ideal)
    assert values["qrels-MAP@3"][0] == pytest.approx(1 / 4)  # one relevant at rank 1, R = 4 (trec_eval map_cut_3)
    assert values["qrels-MAP-min@3"][0] == pytest.approx(1 / 3)  # ours: divided by min(3, 4)
    assert values["qrels-Prec@3"][0] == pytest.approx(1 / 3)
    assert values["qrels-R@3"][0] == pytest.approx(1 / 4)
    assert values["qrels-ERR@2"][0] == pytest.approx(2 / 5)  # grade / highest grade of the file = 0.4 at rank 1
    level_two = evaluator.evaluate([Run("s", {"q": ("a", "b", "x", "c")})], names, Relevance.of(relevance_level=2))
    assert level_two.systems["s"].values["qrels-R@3"][0] == pytest.approx(1 / 3)  # c (grade 1) no longer relevant
    assert level_two.systems["s"].values["qrels-NDCG@3"][0] == pytest.approx(2 / ideal)  # gains ignore the level


def test_read_qrels_and_its_errors():
    qrels = read_qrels(b"# a comment line\nq1 0 d1 2\nq1 Q0 d2 0\n\nq2 0 d1 -1\n", "x.qrels")
    assert qrels.judgments == {"q1": {"d1": 2, "d2": 0}, "q2": {"d1": -1}}
    bad = {
        b"q1 0 d1\n": ("line 1", "4 whitespace-separated fields"),
        b"q1 0 d1 1\nq1 0 d2 1.5\n": ("line 2", "an integer grade"),
        b"q1 0 d1 1_0\n": ("line 1", "an integer grade"),
        b"q1 0 d1 1\nq2 0 d1 1\nq1 0 d1 2\n": ("line 3", "already on line 1"),
        b"q1 0 d1 99999999999999999999\n": ("line 1", "between -2^53 and 2^53"),
        b"\n# only a comment\n": ("x.qrels", "at least one judgment line"),
    }
    for text, (where, expected) in bad.items():
        with pytest.raises(InputError) as error:
            read_qrels(text, "x.qrels")
        assert where in str(error.value) and expected in str(error.value) and "x.qrels" in str(error.value)


def test_integer_grades_are_exact_multiples_or_rounded_within_bound(monkeypatch):
    intersections, approximates, unions = np.array([1, 2, 1, 0]), np.array([1, 0, 0, 0]), np.array([3, 5, 7, 2])
    owners = np.zeros(4, dtype=np.int64)
    grades, scales, exact = integer_grades(intersections, approximates, unions, 0.5, owners)
    # relevance 1.5/3, 2/5, 1/7, 0: denominators 2, 5, 7 -> scale 70
    assert grades.tolist() == [35, 28, 10, 0] and scales == {0: 70.0} and exact == {0: True}
    _, _, exact = integer_grades(intersections, approximates, unions, 1 / 3, owners)
    assert exact == {0: False}  # alpha = 1/3 has no short decimal fraction: rounded
    monkeypatch.setattr(qrels_module, "MAX_GRADE", 50)
    grades, scales, exact = integer_grades(intersections, approximates, unions, 0.5, owners)
    assert exact == {0: False} and grades.tolist() == [50, 40, 14, 0] and scales[0] == pytest.approx(100.0)


# --- pytrec_eval as the oracle ----------------------------------------------------------------

def random_judgments(seed: int) -> tuple[dict, Run, dict]:
    """Graded judgments (with negative grades and queries judged all-zero), and a run with distinct scores."""
    rng = random.Random(seed)
    documents = [f"d{i:03d}" for i in range(60)]
    judgments, rankings, scored = {}, {}, {}
    for q in range(40):
        query = f"q{q:02d}"
        if q % 9 != 8:  # some run queries have no judgments at all
            judged = rng.sample(documents, rng.randint(1, 30))
            top = 0 if q % 7 == 0 else 4  # every 7th query: nothing relevant
            judgments[query] = {d: rng.randint(-1, top) for d in judged}
        retrieved = rng.sample(documents, rng.randint(1, 25))
        scores = rng.sample(range(10_000), len(retrieved))  # distinct: no tie rule involved
        scored[query] = {d: float(s) for d, s in zip(retrieved, scores)}
        rankings[query] = tuple(d for _, d in sorted(zip(scores, retrieved), reverse=True))
    judgments["judged-only"] = {"d000": 3}
    return judgments, Run("random", rankings), scored


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", [1, 2])
def test_qrels_metrics_equal_pytrec_eval(seed, level):
    judgments, run, scored = random_judgments(seed)
    evaluator = Evaluator(None, qrels=Qrels(judgments))
    names = [f"qrels-{family}@{k}" for family in TREC_NAMES for k in KS]
    by_policy = {policy: evaluator.evaluate([run], names, Relevance.of(empty_queries=policy, relevance_level=level)
                                            ).systems["random"]
                 for policy in ("exclude", "zero")}
    result = by_policy["zero"]
    assert set(result.query_ids) == set(judgments) & set(run.rankings)
    empty = {q for q in result.query_ids if not any(g > 0 for g in judgments[q].values())}
    assert empty and result.counts["queries_empty"] == len(empty)
    for name in names:
        family, k = name.removeprefix("qrels-").split("@")
        expected = pytrec(judgments, scored, family, int(k), level)
        for query, zero, excluded in zip(result.query_ids, result.values[name], by_policy["exclude"].values[name]):
            assert abs(zero - expected[query]) <= TOLERANCE, (name, query)  # zero: trec_eval on every judged query
            assert math.isnan(excluded) if query in empty else abs(excluded - expected[query]) <= TOLERANCE


@pytest.mark.parametrize("seed", range(3))
def test_concept_ap_prec_recall_equal_pytrec_eval_on_binary_judgments(seed):
    """MAP@K, Prec@K, R@K (and nn-) of concept relevance = trec_eval on qrels 'relevant = relevance >= threshold'."""
    concepts, kg = random_world(seed, images=45)
    evaluator = Evaluator(concepts, kg)
    run, scored = random_concept_run(concepts, seed)
    neighbours = neighbour_sets(kg, evaluator.engine.vocabulary, 1)
    for prefix, alpha in (("", 0.0), ("nn-", 0.5)):
        names = [f"{prefix}{family}@{k}" for family in ("MAP", "Prec", "R") for k in KS]
        result = evaluator.evaluate([run], names, Relevance.of(0.5, 1, threshold=0.4, empty_queries="zero")).systems["r"]
        judgments = {q: {c: int(nn_iou(concepts[q], concepts[c], neighbours, alpha) >= 0.4)
                         for c in concepts.ids if c != q} for q in run.rankings}
        for name in names:
            family, k = name.removeprefix(prefix).split("@")
            expected = pytrec(judgments, scored, family, int(k))
            for query, value in zip(result.query_ids, result.values[name]):
                # Relevant items exist, or the query scores 0 (not empty: positive relevance elsewhere) or is zeroed.
                assert abs(value - expected[query]) <= TOLERANCE, (name, query)


def random_concept_run(concepts: ConceptSets, seed: int, depth: int = 15) -> tuple[Run, dict]:
    """Distinct scores, no query in its own list, every query of the concept file."""
    rng = random.Random(seed)
    rankings, scored = {}, {}
    for query in concepts.ids:
        retrieved = rng.sample([c for c in concepts.ids if c != query], depth)
        rankings[query] = tuple(retrieved)
        scored[query] = {d: float(depth - i) for i, d in enumerate(retrieved)}
    return Run("r", rankings), scored


# --- tied and float32-tied runs: --ties trec_eval gives pytrec_eval's numbers ------------------------------------

def tied_scores(rng: random.Random, size: int, kind: str) -> list[float]:
    """Scores with ties: rounded to one decimal, constant, or distinct as doubles but equal as float32."""
    if kind == "rounded":
        return [round(rng.random(), 1) for _ in range(size)]
    if kind == "constant":
        return [0.5] * size
    return [rng.choice([0.5, 0.25]) + i * 1e-10 for i in range(size)]  # distinct doubles; float32: 0.5 or 0.25


def tied_trec_run(retrieved: dict[str, list[str]], seed: int, kind: str) -> tuple[Run, dict]:
    """A TREC run read by our reader (ranks shuffled, so that rank order and document order differ) and the same
    scores as pytrec_eval input."""
    rng = random.Random(seed)
    lines, scored = [], {}
    for query, documents in retrieved.items():
        scores = tied_scores(rng, len(documents), kind)
        ranks = rng.sample(range(1, len(documents) + 1), len(documents))
        lines += [f"{query} Q0 {d} {r} {s!r} tied\n" for d, r, s in zip(documents, ranks, scores)]
        scored[query] = dict(zip(documents, scores))
    return read_run("".join(lines).encode(), "tied.trec"), scored


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["rounded", "constant", "float32"])
def test_qrels_metrics_equal_pytrec_eval_on_tied_runs(seed, kind):
    judgments, run, _ = random_judgments(seed)
    tied, scored = tied_trec_run(dict(run.rankings), seed, kind)
    evaluator = Evaluator(None, qrels=Qrels(judgments))
    names = [f"qrels-{family}@{k}" for family in TREC_NAMES for k in KS]
    by_ties = {ties: evaluator.evaluate([tied], names, Relevance.of(empty_queries="zero", ties=ties)).systems["tied"]
               for ties in ("trec_eval", "rank")}
    result = by_ties["trec_eval"]
    assert result.counts["queries_tie_order_differs"] > 0
    if kind == "float32":
        assert result.counts["queries_tied_only_as_float32"] > 0
    differs = 0
    for name in names:
        family, k = name.removeprefix("qrels-").split("@")
        expected = pytrec(judgments, scored, family, int(k))
        for query, value, by_rank in zip(result.query_ids, result.values[name], by_ties["rank"].values[name]):
            assert abs(value - expected[query]) <= TOLERANCE, (name, query)
            differs += abs(by_rank - expected[query]) > TOLERANCE
    assert differs  # ties by rank give other numbers: the option matters on these runs


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("kind", ["rounded", "float32"])
def test_concept_metrics_equal_pytrec_eval_on_tied_runs(seed, kind):
    """MAP@K, Prec@K, R@K of concept relevance (binary judgments at the threshold) and nn-CUI@K (graded qrels out) under
    --ties trec_eval = pytrec_eval on the tied run."""
    concepts, kg = random_world(seed, images=45)
    evaluator = Evaluator(concepts, kg)
    plain, _ = random_concept_run(concepts, seed)
    run, scored = tied_trec_run(dict(plain.rankings), seed, kind)
    neighbours = neighbour_sets(kg, evaluator.engine.vocabulary, 1)
    relevance = Relevance.of(0.5, 1, threshold=0.4, empty_queries="zero", ties="trec_eval")
    names = [f"nn-{family}@{k}" for family in ("MAP", "Prec", "R") for k in KS]
    result = evaluator.evaluate([run], names, relevance).systems["tied"]
    judgments = {q: {c: int(nn_iou(concepts[q], concepts[c], neighbours, 0.5) >= 0.4) for c in concepts.ids if c != q}
                 for q in run.rankings}
    for name in names:
        family, k = name.removeprefix("nn-").split("@")
        expected = pytrec(judgments, scored, family, int(k))
        for query, value in zip(result.query_ids, result.values[name]):
            assert abs(value - expected[query]) <= TOLERANCE, (name, query)
    written = graded_judgments(evaluator, [run], 10, nn_iou_measure(0.5, 1))
    graded: dict[str, dict[str, int]] = {}
    for query, image, grade in written.rows:
        graded.setdefault(query, {})[image] = grade
    ndcg = evaluator.evaluate([run], ["nn-CUI@10"], relevance).systems["tied"]
    expected = pytrec(graded, scored, "NDCG", 10)
    for query, value in zip(ndcg.query_ids, ndcg.values["nn-CUI@10"]):
        assert written.exact[query] and abs(value - expected[query]) <= TOLERANCE, query


# --- qrels out: trec_eval's nDCG on the written file equals ours -----------------------------------

def ndcg_round_trip(evaluator: Evaluator, runs: list[Run], alpha: float, n: int, k: int) -> None:
    metric = f"nn-CUI@{k}" if alpha > 0 and n > 0 else f"CUI@{k}"
    written = graded_judgments(evaluator, runs, k, nn_iou_measure(alpha, n))
    judgments: dict[str, dict[str, int]] = {}
    for query, image, grade in written.rows:
        judgments.setdefault(query, {})[image] = grade
    assert set(judgments) == {q for r in runs for q in r.rankings if q in evaluator.concepts.index}
    ours = evaluator.evaluate(runs, [metric], Relevance.of(alpha, n, empty_queries="zero"))
    from_file = Evaluator(None, qrels=read_qrels(written.text().encode(), "written.qrels"))
    ours_on_file = from_file.evaluate(runs, [f"qrels-NDCG@{k}"], Relevance.of(empty_queries="zero"))
    for run in runs:
        expected = pytrec(judgments, scored_in_our_order(run), "NDCG", k)
        result = ours.systems[run.name]
        for query, value, again in zip(result.query_ids, result.values[metric], ours_on_file.systems[run.name].values[
                f"qrels-NDCG@{k}"]):
            assert written.exact[query]
            assert abs(value - expected[query]) <= TOLERANCE, (metric, query)
            assert abs(value - again) <= TOLERANCE
    # Grades keep the order of relevance values within a query (exact scale: proportional).
    neighbours = neighbour_sets(evaluator.kg, evaluator.engine.vocabulary, n) if evaluator.kg else {}
    for query, image, grade in written.rows[:300]:
        relevance = nn_iou(evaluator.concepts[query], evaluator.concepts[image], neighbours, alpha if n else 0.0)
        assert grade == pytest.approx(relevance * written.scales[query], abs=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_graded_qrels_reproduce_cui_and_nn_cui_in_pytrec_eval(seed):
    concepts, kg = random_world(seed, images=50)
    evaluator = Evaluator(concepts, kg)
    runs = [random_concept_run(concepts, seed)[0], Run("other", random_concept_run(concepts, seed + 7)[0].rankings)]
    for alpha, n in ((0.5, 1), (0.3, 2), (0.0, 0)):
        ndcg_round_trip(evaluator, runs, alpha, n, 10)


@pytest.mark.slow
def test_graded_qrels_reproduce_the_demo_runs():
    concepts = read_concepts(DEMO / "concepts.csv")
    from evalcore.io.loading import load_kg

    evaluator = Evaluator(concepts, load_kg([str(DEMO / "kg_edges.csv")]))
    runs = [read_run(path) for path in sorted((DEMO / "runs").glob("*.trec"))]
    for alpha, n in ((0.5, 1), (0.0, 0)):
        ndcg_round_trip(evaluator, runs, alpha, n, 10)


def test_rounded_scale_stays_within_the_stated_bound(monkeypatch):
    monkeypatch.setattr(qrels_module, "MAX_GRADE", 40)
    concepts, kg = random_world(5, images=50)
    evaluator = Evaluator(concepts, kg)
    run, scored = random_concept_run(concepts, 5)
    written = graded_judgments(evaluator, [run], 10, nn_iou_measure(0.5, 1))
    assert written.counts["queries_rounded"] > 0
    judgments: dict[str, dict[str, int]] = {}
    for query, image, grade in written.rows:
        judgments.setdefault(query, {})[image] = grade
    bound = sum(1 / math.log2(i + 1) for i in range(1, 11))
    bound /= 40 - bound / 2
    expected = pytrec(judgments, scored, "NDCG", 10)
    result = evaluator.evaluate([run], ["nn-CUI@10"], Relevance.of(0.5, 1, empty_queries="zero")).systems["r"]
    differences = [abs(v - expected[q]) for q, v in zip(result.query_ids, result.values["nn-CUI@10"])]
    assert max(differences) <= bound and max(differences) > TOLERANCE


# --- ties, as docs/TREC_COMPATIBILITY.md's table states them ---------------------------------------------

def test_tie_orders_of_pytrec_eval_and_of_our_reader():
    documents = ["b", "a", "d", "c", "B", "10", "9"]
    position = {}
    for document in documents:
        judgments = {"q": {d: int(d == document) for d in documents}}
        reciprocal = pytrec_eval.RelevanceEvaluator(judgments, {"recip_rank"}).evaluate(
            {"q": {d: 1.0 for d in documents}})["q"]["recip_rank"]
        position[document] = round(1 / reciprocal)
    assert sorted(documents, key=position.get) == ["d", "c", "b", "a", "B", "9", "10"]  # docno descending, bytewise
    run = read_run(b"q Q0 b 4 1.0 s\nq Q0 a 1 1.0 s\nq Q0 c 2 1.0 s\nq Q0 d 3 1.0 s\n", "ties.trec")
    assert run.rankings["q"] == ("a", "c", "d", "b")  # ours: score desc, then rank asc (a rank occurs once per query)


# --- one policy for queries with no relevant item ---------------------------------------------------

def world_with_empty_queries(seed: int):
    """Random concept sets plus images whose concepts nobody shares: one empty set, one unknown CUI (both empty
    under every measure) and one whose only CUI is a KG neighbour of a shared one (empty under IoU, not nn-IoU)."""
    concepts, _ = random_world(seed, images=40)
    rng = random.Random(seed)
    cuis = sorted(set().union(*concepts.sets))
    edges = {tuple(rng.sample(cuis, 2)) for _ in range(25)} | {("C9999998", cuis[0])}
    kg = KnowledgeGraph.from_edges([KGEdges(tuple((c, p, "test") for c, p in sorted(edges)), {})])
    ids = concepts.ids + ("lonely-empty", "lonely-unique", "lonely-neighbour")
    sets = concepts.sets + (frozenset(), frozenset({"C9999999"}), frozenset({"C9999998"}))
    return ConceptSets(ids, sets), kg


@pytest.mark.parametrize("seed", range(3))
def test_every_metric_of_a_table_averages_over_the_same_queries(seed):
    concepts, kg = world_with_empty_queries(seed)
    labels_of = {i: frozenset({"CT" if n % 2 else "MRI"}) for n, i in enumerate(concepts.ids) if n % 5}
    from evalcore.data import ImageLabels

    evaluator = Evaluator(concepts, kg, labels=ImageLabels({"modality": labels_of}))
    run = random_concept_run(concepts, seed)[0]
    names = ["CUI@5", "nn-CUI@5", "MAP@5", "MAP-min@5", "Prec@5", "nn-R@10", "RBP", "nn-ERR@5", "CAG@5", "nn-CAG-RBP",
             "P@5[modality]"]
    exclude = evaluator.evaluate([run], names, Relevance.of(0.5, 1, empty_queries="exclude")).systems["r"]
    zero = evaluator.evaluate([run], names, Relevance.of(0.5, 1, empty_queries="zero")).systems["r"]
    ranking = [name for name in names if parse_metric(name).relevance]
    excluded = np.isnan(exclude.values[ranking[0]])
    neighbours = neighbour_sets(kg, evaluator.engine.vocabulary, 1)
    straightforward = np.array([all(nn_iou(concepts[q], concepts[c], neighbours, 0.5) == 0 for c in concepts.ids if c != q)
                                for q in exclude.query_ids])
    assert excluded.tolist() == straightforward.tolist() and excluded.any() and not excluded.all()
    lonely = {q: i for i, q in enumerate(exclude.query_ids) if q.startswith("lonely")}
    assert [excluded[lonely[q]] for q in ("lonely-empty", "lonely-unique", "lonely-neighbour")] == [True, True, False]
    # Not empty for the table (nn-IoU finds a neighbour), so IoU's 0/0 scores 0 rather than vanishing.
    assert exclude.values["CUI@5"][lonely["lonely-neighbour"]] == 0.0
    # In a table of IoU metrics alone it is empty, so excluded, as today.
    alone = evaluator.evaluate([run], ["CUI@5"], Relevance.of(0.5, 1)).systems["r"]
    assert math.isnan(alone.values["CUI@5"][lonely["lonely-neighbour"]])
    assert exclude.counts["queries_empty"] == zero.counts["queries_empty"] == int(excluded.sum())
    for name in ranking:
        assert np.isnan(exclude.values[name]).tolist() == excluded.tolist(), name
        assert not np.isnan(zero.values[name]).any() and (zero.values[name][excluded] == 0).all()
        total, kept = len(excluded), int((~excluded).sum())
        assert np.mean(zero.values[name]) == pytest.approx(np.nanmean(exclude.values[name]) * kept / total, abs=1e-12)
    label = "P@5[modality]"
    no_label = np.array([q not in labels_of for q in exclude.query_ids])
    assert np.isnan(exclude.values[label]).tolist() == (excluded | no_label).tolist()
    assert np.isnan(zero.values[label]).tolist() == no_label.tolist()  # zero keeps label metrics' own values


def test_empty_query_mask_needs_every_measure_to_find_nothing():
    ideal = {"iou": np.array([[0.0], [0.2], [0.0]]), "nn-iou": np.array([[0.0], [0.3], [0.1]])}
    assert empty_query_mask(ideal, ["iou"], 3).tolist() == [True, False, True]
    assert empty_query_mask(ideal, ["iou", "nn-iou"], 3).tolist() == [True, False, False]
    assert empty_query_mask(ideal, [], 3).tolist() == [False, False, False]


def test_evaluator_rejects_mixed_or_missing_relevance_sources():
    concepts, kg = random_world(1, images=20)
    run = Run("r", {concepts.ids[0]: concepts.ids[1:4]})
    with_qrels = Evaluator(concepts, kg, qrels=Qrels({concepts.ids[0]: {concepts.ids[1]: 1}}))
    with pytest.raises(ParameterError, match="one relevance source"):
        with_qrels.evaluate([run], ["qrels-NDCG@3", "CUI@3"])
    with pytest.raises(ParameterError, match=r"qrels- metrics read judgments, which need a qrels file \(qrels=\)"):
        Evaluator(concepts, kg).evaluate([run], ["qrels-MAP@3"])
    with pytest.raises(ParameterError, match="concept sets"):
        Evaluator(None, qrels=Qrels({"q": {"d": 1}})).evaluate([run], ["nn-CUI@3"])
    for bad in ({"empty_queries": "drop"}, {"relevance_level": 0}, {"relevance_level": 1.5}):
        with pytest.raises(ParameterError):
            with_qrels.evaluate([run], ["qrels-MAP@3"], Relevance.of(**bad))


# --- command line and dashboard ---------------------------------------------------------------

@pytest.mark.slow
def test_qrels_and_evaluate_commands_round_trip(tmp_path):
    out, scales = tmp_path / "qrels.txt", tmp_path / "scales.csv"
    runs = [str(p) for p in sorted((DEMO / "runs").glob("*.trec"))]
    assert main(["qrels", "--concepts", str(DEMO / "concepts.csv"), "--kg", str(DEMO / "kg_edges.csv"), "--run", *runs,
                 "--k", "10", "--alpha", "0.5", "--n", "1", "--out", str(out), "--scales", str(scales)]) == 0
    assert all(len(line.split()) == 4 for line in out.read_text().splitlines())
    assert scales.read_text().splitlines()[0] == "query_id,scale,exact"
    by_qrels, by_concepts = tmp_path / "q.json", tmp_path / "c.json"
    assert main(["evaluate", "--qrels", str(out), "--run", runs[1], "--k", "10", "--json", str(by_qrels),
                 "--empty-queries", "zero"]) == 0
    assert main(["evaluate", "--concepts", str(DEMO / "concepts.csv"), "--kg", str(DEMO / "kg_edges.csv"), "--run",
                 runs[1], "--metrics", "nn-CUI@10", "MAP@10", "--json", str(by_concepts), "--empty-queries", "zero"]) == 0
    judged, concept = json.loads(by_qrels.read_text()), json.loads(by_concepts.read_text())
    system = next(iter(judged["systems"]))
    assert judged["systems"][system]["qrels-NDCG@10"] == pytest.approx(concept["systems"][system]["nn-CUI@10"], abs=1e-12)
    assert set(judged["systems"][system]) == {"qrels-NDCG@10", "qrels-Prec@10", "qrels-MAP@10", "qrels-R@10"}
    assert judged["params"]["empty_queries"] == "zero" and judged["params"]["relevance_level"] == 1
    assert concept["params"]["empty_queries"] == "zero" and "queries_empty" in concept["counts"][system]


def test_evaluate_needs_a_relevance_source_and_reports_bad_qrels(tmp_path, capsys):
    run = tmp_path / "r.trec"
    run.write_text("q Q0 d 1 1.0 s\n")
    assert main(["evaluate", "--run", str(run), "--json", str(tmp_path / "o.json")]) == 2
    (tmp_path / "bad.qrels").write_text("q 0 d 1\nq 0 e high\n")
    assert main(["evaluate", "--qrels", str(tmp_path / "bad.qrels"), "--run", str(run), "--json",
                 str(tmp_path / "o.json")]) == 2
    message = capsys.readouterr().err.strip().splitlines()[-1]
    assert "bad.qrels, line 2" in message and "integer grade" in message


@pytest.mark.slow
def test_dashboard_graded_qrels_download():
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT

    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    app.run()
    app.switch_page("pages/leaderboard.py")
    app.run()
    app.toggle(key="qrels_toggle").set_value(True).run()
    assert not app.exception, app.exception
    assert any("per-query scale" in caption.value for caption in app.caption)


def test_a_query_given_an_empty_list_is_read_as_missing_from_the_run():
    """docs/TREC_COMPATIBILITY.md (the table of differences): {"q": []} is as a query missing from the run, skipped
    and counted under judgments; pytrec_eval scores it 0."""
    import evalcore
    from evalcore import Scoring

    judgments = {"q": {"a": 1}, "q2": {"a": 1}}
    with_empty = evalcore.evaluate(None, {"s": {"q": ["a"], "q2": []}}, Scoring(["qrels-NDCG@1"]),
                                   qrels=Qrels(judgments))
    without = evalcore.evaluate(None, {"s": {"q": ["a"]}}, Scoring(["qrels-NDCG@1"]), qrels=Qrels(judgments))
    assert with_empty.means() == without.means() == {"s": {"qrels-NDCG@1": 1.0}}
    assert with_empty.counts["s"] == without.counts["s"]
    trec = pytrec_eval.RelevanceEvaluator(judgments, {"ndcg_cut_1"}).evaluate({"q": {"a": 1.0}, "q2": {}})
    assert trec["q2"]["ndcg_cut_1"] == 0.0
