"""Evaluator and run alignment against straightforward per-query implementations on random data."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from evalcore.data import Run
from evalcore.evaluation.evaluator import PADDING, UNKNOWN, Evaluator, align_run
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.retrieval import retrieve_by_measure
from evalcore.metrics.registry import ndcg
from evalcore.relevance.formulas import nn_iou
from evalcore.relevance.kg import neighbour_sets
from evalcore.relevance.measures import measure_spec, nn_iou_measure
from tests.conftest import random_world


def random_run(concepts, seed: int, depth: int = 12) -> Run:
    """Lists with the query itself, unknown IDs and repeated IDs mixed in; some queries unknown."""
    rng = random.Random(seed)
    ids = list(concepts.ids)
    rankings = {}
    for query in ids[: len(ids) - 3] + ["ghost-query"]:
        pool = ids + ["ghost-1", "ghost-2", query]
        rankings[query] = tuple(rng.choice(pool) for _ in range(rng.randint(0, depth)))
    return Run("random", rankings)


def straightforward_alignment(run: Run, concepts, depth: int) -> tuple[list, list, dict]:
    rows, documents, unknown, dropped = [], [], [], 0
    for query, ranked in run.rankings.items():
        if query not in concepts.index:
            continue
        kept = [d for d in ranked if d != query]
        dropped += len(kept) != len(ranked)
        row = [concepts.index.get(d, UNKNOWN) for d in kept[:depth]]
        unknown += [d for d in kept[:depth] if d not in concepts.index]
        rows.append(concepts.index[query])
        documents.append(row + [PADDING] * (depth - len(row)))
    return rows, documents, {"retrieved_unknown_ids": len(unknown), "query_dropped_from_own_list": dropped,
                             "unknown_id_examples": ", ".join(unknown[:5])}


@pytest.mark.parametrize("seed", range(5))
def test_align_run_equals_a_loop_over_queries(seed):
    concepts, _ = random_world(seed, images=40)
    run = random_run(concepts, seed)
    for depth in (1, 5, 20):
        aligned = align_run(run, concepts, depth)
        rows, documents, counts = straightforward_alignment(run, concepts, depth)
        assert aligned.query_rows.tolist() == rows
        assert aligned.documents.tolist() == documents
        for name, value in counts.items():
            assert aligned.counts.get(name, "") == value
        assert aligned.counts["queries_unknown"] == 1


@pytest.mark.parametrize("seed", range(3))
def test_cui_and_nn_cui_equal_a_per_query_reference(seed):
    concepts, kg = random_world(seed, images=50)
    evaluator = Evaluator(concepts, kg)
    run = random_run(concepts, seed + 10)
    evaluation = evaluator.evaluate([run], ["CUI@5", "nn-CUI@5"], Relevance.of(0.5, 1))
    result = evaluation.systems["random"]
    neighbours = neighbour_sets(kg, evaluator.engine.vocabulary, 1)
    for metric, alpha in (("CUI@5", 0.0), ("nn-CUI@5", 0.5)):
        for query, value in zip(result.query_ids, result.values[metric]):
            a = concepts[query]
            pool = sorted((nn_iou(a, concepts[c], neighbours, alpha) for c in concepts.ids if c != query), reverse=True)
            ranked = [d for d in run.rankings[query] if d != query][:5]
            gains = [nn_iou(a, concepts[d], neighbours, alpha) if d in concepts.index else 0.0 for d in ranked]
            expected = ndcg(gains, pool, 5)
            assert (math.isnan(value) and expected is None) or value == pytest.approx(expected, abs=1e-12)


def test_relevance_ranking_scores_like_the_same_run_read_from_ids():
    concepts, kg = random_world(4, images=60)
    evaluator = Evaluator(concepts, kg)
    names = ["CUI@10", "nn-CUI@10", "nn-MAP@10", "nn-R@10"]
    aligned = evaluator.relevance_ranking(nn_iou_measure(0.7, 2), 10, 10)
    run = retrieve_by_measure(Evaluator(concepts, kg), nn_iou_measure(0.7, 2), 10, "from-ids")
    by_rows = evaluator.evaluate([aligned], names, Relevance.of(0.7, 2)).systems[aligned.name]
    by_ids = evaluator.evaluate([run], names, Relevance.of(0.7, 2)).systems["from-ids"]
    for name in names:
        np.testing.assert_array_equal(by_rows.values[name], by_ids.values[name])
    assert np.nanmin(by_rows.values["nn-CUI@10"]) == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(3))
def test_kept_rankings_and_alignments_give_the_values_of_a_fresh_evaluator(seed):
    concepts, kg = random_world(seed)
    kept = Evaluator(concepts, kg)
    names = ["nn-CUI@5", "CUI@5", "nn-MAP@5"]
    first = kept.relevance_ranking(nn_iou_measure(0.5, 1), 8, 5, name="a")
    again = kept.relevance_ranking(nn_iou_measure(0.5, 1), 8, 5, name="b")
    assert again.name == "b" and again.documents is first.documents
    by_iou = kept.relevance_ranking(nn_iou_measure(0.0, 3), 8, 5)
    assert by_iou.documents is kept.relevance_ranking(nn_iou_measure(0.7, 0), 8, 5).documents
    other = random_run(concepts, seed + 100)
    runs = [random_run(concepts, seed), Run("other", other.rankings)]
    for alpha in (0.2, 0.9, 0.2):
        systems = [*runs, kept.relevance_ranking(nn_iou_measure(alpha, 1), 8, 5, name="by nn-IoU")]
        fresh = Evaluator(concepts, kg)
        expected = fresh.evaluate([*runs, fresh.relevance_ranking(nn_iou_measure(alpha, 1), 8, 5, name="by nn-IoU")], names,
                                  Relevance.of(alpha, 1))
        got = kept.evaluate(systems, names, Relevance.of(alpha, 1))
        for system in ("random", "other", "by nn-IoU"):
            for metric in names:
                np.testing.assert_array_equal(got.systems[system].values[metric],
                                              expected.systems[system].values[metric])


def test_metrics_kept_per_run_equal_a_fresh_evaluation_at_every_setting(monkeypatch):
    """An evaluator re-scoring the same runs as alpha, n, gain and threshold move (the dashboard's sliders) reads
    back the metrics whose setting did not change; every value equals a fresh evaluator's, NaNs included, and the
    kept values stay within their byte budget."""
    import evalcore.evaluation.evaluator as evaluation
    from evalcore.data import ImageLabels
    from evalcore.metrics.registry import default_metric_names

    concepts, kg = random_world(9, images=80)
    rng = random.Random(9)
    labels = ImageLabels({"modality": {i: frozenset({rng.choice(["CT", "MRI"])}) for i in concepts.ids},
                          "organ": {i: frozenset({rng.choice(["liver", "lung", "bone"])}) for i in concepts.ids[::2]}})
    names = default_metric_names((1, 5, 20), ["modality", "organ", "modality+organ"]) + ["CUI@5{dice}"]
    warm = Evaluator(concepts, kg, labels=labels)
    second = random_run(concepts, 2, depth=25)
    runs = [random_run(concepts, 1), Run("second", second.rankings)]
    for alpha, n, gain, threshold in [(0.5, 1, "linear", 0.5), (0.2, 1, "linear", 0.5), (0.5, 1, "linear", 0.5),
                                      (0.0, 1, "linear", 0.5), (0.7, 2, "exponential", 0.5), (0.7, 2, "linear", 0.3)]:
        ranking = warm.relevance_ranking(nn_iou_measure(alpha, n), 10, 20)
        fresh = Evaluator(concepts, kg, labels=labels)
        relevance = Relevance.of(alpha, n, measure_spec("dice"), gain=gain, threshold=threshold)
        got = warm.evaluate(runs + [ranking], names, relevance)
        want = fresh.evaluate(runs + [fresh.relevance_ranking(nn_iou_measure(alpha, n), 10, 20)], names, relevance)
        for system in want.systems:
            for name in names:
                assert np.array_equal(got.systems[system].values[name], want.systems[system].values[name],
                                      equal_nan=True), (alpha, n, gain, threshold, system, name)
    monkeypatch.setattr(evaluation, "KEPT_SCORE_BYTES", 20_000)
    stores, kept_scores = [], evaluation.KeptScores  # each run's store of kept values, as an evaluation reads it

    def recorded(store, settings):
        stores.append(store)
        return kept_scores(store, settings)

    monkeypatch.setattr(evaluation, "KeptScores", recorded)
    for alpha in (0.1, 0.3, 0.9):
        stores.clear()
        warm.evaluate(runs, names, Relevance.of(alpha, 1))
        assert len(stores) == len(runs) and all(0 < store.total() <= 20_000 for store in stores)


def test_relevance_of_a_measure_whose_setting_stayed_is_read_back_read_only():
    """When alpha moves, IoU's relevance of a run is the array computed before (nn-IoU's is computed afresh and
    equals a fresh evaluator's); kept arrays cannot be written."""
    from evalcore.relevance.measures import measure_spec

    concepts, kg = random_world(11)
    warm = Evaluator(concepts, kg)
    aligned = align_run(random_run(concepts, 3), concepts, 12)
    first = warm.relevance_of(aligned, {"iou": measure_spec("iou"), "nn-iou": nn_iou_measure(0.5, 1)})
    moved = warm.relevance_of(aligned, {"iou": measure_spec("iou"), "nn-iou": nn_iou_measure(0.2, 1)})
    assert moved["iou"] is first["iou"] and not first["iou"].flags.writeable
    fresh = Evaluator(concepts, kg)
    want = fresh.relevance_of(align_run(random_run(concepts, 3), concepts, 12), {"nn-iou": nn_iou_measure(0.2, 1)})
    assert np.array_equal(moved["nn-iou"], want["nn-iou"]) and not np.array_equal(moved["nn-iou"], first["nn-iou"])


def test_a_list_deeper_than_1000_is_read_as_deep_as_the_tables_k():
    """Was: every list was cut at rank 1,000 whatever K asked, without a word: R@1500 of a list whose relevant
    items lie at ranks 1,201-1,500 was 0 (found while bounding the memory a large K takes, hunt 27)."""
    import math

    import evalcore
    from evalcore import Scoring

    ids = [f"i{i}" for i in range(1500)]
    concepts = {"q": {"C0000001"}, **{i: {"C0000001" if n >= 1200 else "C0000002"} for n, i in enumerate(ids)}}
    means = evalcore.evaluate(concepts, {"s": {"q": ids}}, Scoring(["R@1500", "CUI@1500", "MAP@1500", "R@1000"])
                              ).means()["s"]
    ndcg = sum(1 / math.log2(r + 1) for r in range(1201, 1501)) / sum(1 / math.log2(r + 1) for r in range(1, 301))
    average_precision = sum(hit / rank for hit, rank in zip(range(1, 301), range(1201, 1501))) / 300
    assert means == pytest.approx({"R@1500": 1.0, "CUI@1500": ndcg, "MAP@1500": average_precision, "R@1000": 0.0},
                                  abs=1e-15)


def test_qrels_judge_every_item_of_the_runs_however_deep():
    """docs/CLI.md: every item of the runs is judged (with the pool's best K), as evaluate reads a list as deep as its K
    asks: items past rank 1,000 were left unjudged, which trec_eval reads as 0."""
    from evalcore.data import Run
    from evalcore.evaluation.evaluator import Evaluator
    from evalcore.evaluation.qrels import graded_judgments
    from evalcore.readers import read_concepts
    from evalcore.relevance.measures import nn_iou_measure

    ids = [f"i{i}" for i in range(1200)]
    concepts = read_concepts(("ID,CUIs\nq,C0000001\n" + "".join(f"{i},C0000002\n" for i in ids)).encode(), "c.csv")
    judgments = graded_judgments(Evaluator(concepts), [Run("s", {"q": tuple(ids)})], 1, nn_iou_measure(0.5, 1))
    judged = {line.split()[2] for line in judgments.text().splitlines()}
    assert {"i0", "i999", "i1000", "i1199"} <= judged


def test_a_qrels_ideal_holds_no_column_past_the_most_positive_grades():
    """A qrels table at K = 10,000 made Q x 10,000 zeros (0.8 GB on ROCOv2 test's 9,927 queries) though no query
    had more than a few hundred positive grades; the columns past them add nothing, so NDCG is the same at any K
    beyond them."""
    from evalcore.data import Qrels, Run
    from evalcore.evaluation.evaluator import Evaluator, JudgedRelevance

    qrels = Qrels({"q": {"a": 3, "b": 1, "c": 0}, "r": {"a": 2, "d": -1}})
    judged = JudgedRelevance(qrels)
    assert judged.ideal(["q", "r"], 10_000).shape == (2, 2)
    assert judged.ideal(["r"], 10_000).tolist() == [[2.0]] and judged.ideal(["q"], 1).tolist() == [[3.0]]
    assert JudgedRelevance(Qrels({"q": {"a": 0}})).ideal(["q"], 5).tolist() == [[0.0]]
    run = Run("s", {"q": ("c", "b", "a"), "r": ("b", "a")})
    means = Evaluator(None, qrels=qrels).evaluate([run], ["qrels-NDCG@3", "qrels-NDCG@10000"]).means()["s"]
    # q: DCG 0 + 1/log2(3) + 3/log2(4) over 3 + 1/log2(3); r (b unjudged): 2/log2(3) over 2
    expected = ((1 / np.log2(3) + 1.5) / (3 + 1 / np.log2(3)) + 1 / np.log2(3)) / 2
    assert means["qrels-NDCG@3"] == means["qrels-NDCG@10000"] == pytest.approx(expected, abs=1e-15)


def test_exponential_gain_refuses_grades_whose_gain_overflows():
    """Was: a grade of 1,024 or more (the qrels command writes grades up to 10^6) made 2^grade infinite and NDCG 0
    without a word; grades up to 1,000 stay finite."""
    from evalcore.data import Qrels
    from evalcore.errors import ParameterError

    run = Run("s", {"q": ("b", "a")})
    exponential = Relevance.of(gain="exponential")
    with pytest.raises(ParameterError, match="overflows past grade 1000, and judged.qrels has grades up to 2,000"):
        Evaluator(None, qrels=Qrels({"q": {"a": 2000, "b": 1}}, "judged.qrels")).evaluate(
            [run], ["qrels-NDCG@2"], exponential)
    means = Evaluator(None, qrels=Qrels({"q": {"a": 1000, "b": 1}})).evaluate([run], ["qrels-NDCG@2"],
                                                                             exponential).means()["s"]
    # DCG 1 + (2^1000 - 1)/log2(3) over 2^1000 - 1 + 1/log2(3): 1/log2(3) to the last digit
    assert means["qrels-NDCG@2"] == pytest.approx(1 / np.log2(3), rel=1e-15)


@pytest.mark.slow
def test_relevance_equal_to_the_threshold_on_paper_reaches_it():
    """Was: nn-IoU (1 + 0.2) / 3 computed as 0.39999999999999997 did not reach a threshold of 0.4, so nn-Prec, nn-R
    and nn-MAP counted the item not relevant (hunt 28a). Every (i + alpha a) / (i + 1 + a) that is a decimal of up to
    6 places, for alpha in tenths: relevant at that threshold, not at 1e-9 above it; the pool's count (R's
    denominator) and the metrics agree."""
    from fractions import Fraction

    import evalcore
    from evalcore import Scoring

    cases = 0
    for tenths in range(1, 10):
        alpha = Fraction(tenths, 10)
        for shared in range(1, 5):
            for near in range(1, 5):
                exact = (shared + alpha * near) / (shared + 1 + near)
                if (exact * 10**6).denominator != 1:
                    continue
                xs = [f"C{number:07d}" for number in range(1, shared + 1)]
                ps = [f"C{number:07d}" for number in range(100, 100 + near)]
                concepts = {"q": {*xs, "C0000050"}, "c": {*xs, *ps}, "z": {"C0000099"}}
                kg = [(p, xs[0]) for p in ps]
                metrics = Scoring(["nn-Prec@1", "nn-R@1", "nn-MAP@1"])
                for threshold, expected in ((float(exact), 1.0), (float(exact) + 1e-9, 0.0)):
                    means = evalcore.evaluate(concepts, {"s": {"q": ["c", "z"]}}, metrics,
                                              Relevance.of(float(alpha), 1, threshold=threshold), kg=kg).means()["s"]
                    if expected:
                        assert means == {"nn-Prec@1": 1.0, "nn-R@1": 1.0, "nn-MAP@1": 1.0}, (alpha, shared, near)
                    else:
                        assert means["nn-Prec@1"] == 0.0, (alpha, shared, near)
                cases += 1
    assert cases >= 20


def test_relevance_equal_to_the_threshold_reaches_it_on_the_jax_backend_too():
    """The pool's count of relevant items on the array backend (its own search for the threshold's key)."""
    pytest.importorskip("jax")
    import evalcore
    from evalcore import Compute, Scoring

    concepts = {"q": {"C0000001", "C0000002"}, "c": {"C0000001", "C0000003"}, "z": {"C0000009"}}
    for backend in ("numpy", "jax"):
        means = evalcore.evaluate(concepts, {"s": {"q": ["c", "z"]}}, Scoring(["nn-Prec@1", "nn-R@1", "nn-MAP@1"]),
                                  Relevance.of(0.2, 1, threshold=0.4), Compute(backend=backend, device="cpu"),
                                  kg=[("C0000003", "C0000001")]).means()["s"]
        assert means == {"nn-Prec@1": 1.0, "nn-R@1": 1.0, "nn-MAP@1": 1.0}, backend
