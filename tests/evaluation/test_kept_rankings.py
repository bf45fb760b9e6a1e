"""The evaluator's pool rankings (issue 65): kept least recently used first within a byte budget, so that the many
rankings an Ablation grid or a measure comparison asks for after the Leaderboard leave the Leaderboard's own in
place; and a saved workspace keeps only the Leaderboard's."""

from __future__ import annotations

import numpy as np

import evalcore.evaluation.evaluator as evaluator_module
from evalcore.data import ConceptSets
from evalcore.evaluation.evaluator import Evaluator
from evalcore.relevance.measures import measure_spec


def random_sets(seed: int, images: int = 40) -> ConceptSets:
    rng = np.random.default_rng(seed)
    return ConceptSets(tuple(f"img{i}" for i in range(images)),
                       tuple(frozenset(f"C{c}" for c in rng.choice(12, rng.integers(1, 5), replace=False))
                             for _ in range(images)))


def test_a_ranking_read_again_outlives_those_kept_after_it(monkeypatch):
    first = Evaluator(random_sets(1)).relevance_ranking(measure_spec("iou"), 10)
    one_ranking = first.documents.nbytes + first.query_rows.nbytes
    # room for three rankings and their bookkeeping, not four
    monkeypatch.setattr(evaluator_module, "KEPT_RANKING_BYTES", 3 * one_ranking + 3 * 2048)
    evaluator = Evaluator(random_sets(1))
    calls = []
    rank_by = evaluator.engine.rank_by
    monkeypatch.setattr(evaluator.engine, "rank_by", lambda *a, **k: calls.append(a[0].name) or rank_by(*a, **k))
    others = [measure_spec("dice"), *(measure_spec("tversky", a=a, b=1 - a) for a in (0.1, 0.3, 0.7, 0.9))]
    for measure in others:
        evaluator.relevance_ranking(measure_spec("iou"), 10)  # the Leaderboard reads its ranking again
        evaluator.relevance_ranking(measure, 10)
    evaluator.relevance_ranking(measure_spec("iou"), 10)
    assert calls.count("iou") == 1 and len(calls) == 6  # each newer ranking dropped the least recently read
    assert list(evaluator.kept_rankings())[-1][0] == "iou"
    assert len(evaluator.kept_rankings()) == 3


def test_the_budget_bounds_the_rankings_kept(monkeypatch):
    monkeypatch.setattr(evaluator_module, "KEPT_RANKING_BYTES", 1)  # below one ranking: the newest alone is kept
    evaluator = Evaluator(random_sets(2))
    for measure in ("iou", "dice", "tversky"):
        evaluator.relevance_ranking(measure_spec(measure), 10)
    assert [key[0][:7] for key in evaluator.kept_rankings()] == ["tversky"]
    monkeypatch.undo()
    assert evaluator_module.KEPT_RANKING_BYTES >= 60 * 9927 * 100 * 4  # ~60 ROCOv2 test rankings at depth 100


def test_kept_rankings_picks_those_of_the_measures_asked_for_at_their_effective_setting():
    evaluator = Evaluator(random_sets(3))
    for measure in ("iou", "dice"):
        evaluator.relevance_ranking(measure_spec(measure), 10)
    nn_at_zero = measure_spec("nn-iou", alpha=0.0, n=1)  # without a KG and at alpha 0, nn-IoU is IoU
    assert [key[0] for key in evaluator.kept_rankings([nn_at_zero])] == ["iou"]
    assert [key[0] for key in evaluator.kept_rankings([measure_spec("dice")])] == ["dice"]
    assert [key[0] for key in evaluator.kept_rankings()] == ["iou", "dice"]
