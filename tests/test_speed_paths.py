"""The dashboard's speed paths give what the plain paths give: vector rankings in threaded blocks, and results
computed once for sessions asking at the same time."""

from __future__ import annotations

import threading

import numpy as np
import pytest
import scipy.sparse as sp

from evalcore.kept import Kept
from evalcore.retrieval import retrieve_by_vectors


def tied_vectors(seed: int, rows: int = 60, columns: int = 12) -> sp.csr_matrix:
    """Sparse 0/1 rows, L2-normalised: few distinct cosines, so most of a ranking is decided by ties."""
    rng = np.random.default_rng(seed)
    dense = (rng.random((rows, columns)) < 0.25).astype(float)
    dense[rng.random(rows) < 0.1] = 0.0  # some rows empty: every similarity to them is 0
    norms = np.linalg.norm(dense, axis=1, keepdims=True)
    return sp.csr_matrix(np.divide(dense, norms, out=np.zeros_like(dense), where=norms > 0))


def plain_ranking(vectors: sp.csr_matrix, depth: int) -> list[list[int]]:
    """Independent definition: per query, every other row by decreasing cosine, ties by position."""
    similarity = (vectors @ vectors.T).toarray()
    lists = []
    for query in range(vectors.shape[0]):
        others = [c for c in range(vectors.shape[0]) if c != query]
        lists.append(sorted(others, key=lambda c: (-round(similarity[query, c], 12), c))[:depth])
    return lists


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_threaded_blocks_rank_as_one_block_and_as_the_plain_definition(seed):
    vectors = tied_vectors(seed)
    ids = tuple(f"q{i}" for i in range(vectors.shape[0]))
    reports: list[float] = []
    blocks = retrieve_by_vectors("v", ids, vectors, ids, vectors, 10, block_size=7, progress=reports.append)
    whole = retrieve_by_vectors("v", ids, vectors, ids, vectors, 10, block_size=len(ids))
    assert [blocks.rankings[q] for q in ids] == [whole.rankings[q] for q in ids]
    assert blocks.scores == whole.scores
    assert [list(blocks.rankings[q]) for q in ids] == [[ids[c] for c in row] for row in plain_ranking(vectors, 10)]
    assert reports == sorted(reports) and reports[-1] == 1.0 and len(reports) == -(-len(ids) // 7)


def test_sessions_asking_at_once_compute_once_and_see_its_progress():
    kept, calls, started, release = Kept(), [], threading.Event(), threading.Event()
    waiter_reports: list[tuple] = []

    def compute(report):
        calls.append(1)
        report(0.5, "half")
        started.set()
        release.wait(5)
        return "grid"

    first: list[str] = []
    computing = threading.Thread(target=lambda: first.append(kept.computed("k", compute, lambda *p: None)))
    computing.start()
    started.wait(5)
    waiting = threading.Thread(target=lambda: first.append(
        kept.computed("k", compute, lambda *p: waiter_reports.append(p), poll=0.01)))
    waiting.start()
    while not waiter_reports:
        threading.Event().wait(0.01)
    release.set()
    computing.join(5)
    waiting.join(5)
    assert first == ["grid", "grid"] and calls == [1]
    assert waiter_reports[0] == (0.5, "half")


def test_a_failed_computation_is_not_kept_and_the_next_caller_computes():
    kept = Kept()

    def failing(report):
        raise ValueError("bad input")

    with pytest.raises(ValueError):
        kept.computed("k", failing)
    assert kept.get("k") is None
    assert kept.computed("k", lambda report: 7) == 7


@pytest.mark.parametrize("seed", [0, 1])
def test_pairs_tested_together_get_the_p_values_each_gets_alone(seed):
    from evalcore.compare import randomization_test, randomization_tests

    rng = np.random.default_rng(seed)
    # Values on a coarse grid: many permuted means equal the observed one exactly, where rounding would show.
    systems = [rng.integers(0, 3, 400) / 2 for _ in range(4)] + [np.zeros(400)]
    pairs = [(systems[i], systems[j]) for i in range(5) for j in range(i + 1, 5)]
    pairs.append((systems[0][:150], systems[1][:150]))  # another length: its own sign matrix
    together = randomization_tests(pairs, samples=700, seed=3)
    assert together == [randomization_test(a, b, samples=700, seed=3) for a, b in pairs]


def test_sessions_asking_for_the_same_ranking_share_one_pass_over_the_pool(monkeypatch):
    from evalcore.evaluation import Evaluator
    from evalcore.kg import KnowledgeGraph
    from evalcore.readers import read_concepts, read_kg

    from .conftest import DEMO

    evaluator = Evaluator(read_concepts(DEMO / "concepts.csv"), KnowledgeGraph.from_edges([read_kg(DEMO / "kg_edges.csv")]))
    plain = evaluator.engine.rank_by
    passes, inside = [], threading.Event()

    def slow_rank_by(*arguments, **options):
        passes.append(1)
        inside.set()
        threading.Event().wait(0.3)  # long enough for the second session to ask meanwhile
        return plain(*arguments, **options)

    monkeypatch.setattr(evaluator.engine, "rank_by", slow_rank_by)
    rankings: dict[str, object] = {}

    def ask(name: str) -> None:
        rankings[name] = evaluator.relevance_ranking("nn-iou", 20, name=name)

    first = threading.Thread(target=ask, args=("first",))
    first.start()
    inside.wait(5)
    second = threading.Thread(target=ask, args=("second",))
    second.start()
    first.join(10)
    second.join(10)
    assert passes == [1]
    assert rankings["first"].name == "first" and rankings["second"].name == "second"
    np.testing.assert_array_equal(rankings["first"].documents, rankings["second"].documents)
