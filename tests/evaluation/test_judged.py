"""The systems' rankings by judged grades against concept relevance (:mod:`evalcore.evaluation.judged`, issue 68):
each judged metric paired with its counterpart, the tau-b of their means, and qrels made from a measure ranking the
systems exactly as that measure does."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.app.judged_scores import judged_scores
from evalcore.data import ConceptSets, Run
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.judged import agreement_of_means
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.qrels import graded_judgments
from evalcore.relevance.measures import nn_iou_measure


def test_pairs_of_metrics_read_their_own_means():
    judged = {"A": {"qrels-NDCG@10": 0.9}, "B": {"qrels-NDCG@10": 0.1}, "C": {"qrels-NDCG@10": 0.5}}
    concept = {"A": {"CUI@10": 0.2}, "B": {"CUI@10": 0.1}, "C": {"CUI@10": 0.3}}
    (found,) = agreement_of_means(judged, concept, {"qrels-NDCG@10": "CUI@10"})
    assert (found.judged, found.concept, found.systems) == ("qrels-NDCG@10", "CUI@10", 3)
    assert found.tau == pytest.approx(1 / 3)
    assert found.to_dict()["kendall_tau_b"] == pytest.approx(1 / 3)


def test_qrels_written_from_iou_rank_the_systems_as_iou_does():
    # Graded qrels from IoU (the qrels command's): qrels-NDCG@K equals CUI@K, so the two rankings agree exactly.
    rng = np.random.default_rng(3)
    ids = tuple(f"img{i:03d}" for i in range(60))
    concepts = ConceptSets(ids, tuple(frozenset(f"C{c:07d}" for c in rng.choice(12, size=rng.integers(1, 4),
                                                                                  replace=False)) for _ in ids))
    evaluator = Evaluator(concepts)
    queries = ids[:20]
    runs = [Run(f"system{s}", {q: tuple(rng.permutation([i for i in ids if i != q])[:10]) for q in queries})
            for s in range(5)]
    text = graded_judgments(evaluator, runs, 10, nn_iou_measure(0.0, 1)).text()  # IoU: alpha = 0
    scores = judged_scores(evaluator, runs, text, Relevance(), [10])
    found = {(a.judged, a.concept): a for a in scores.agreements}
    assert found[("qrels-NDCG@10", "CUI@10")].tau == pytest.approx(1.0)
    assert found[("qrels-NDCG@10", "CUI@10")].systems == 5
    assert scores.cases == len(queries)
