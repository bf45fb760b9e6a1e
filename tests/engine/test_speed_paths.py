"""The dashboard's speed paths give what the plain paths give: vector rankings in threaded blocks, and results
computed once for sessions asking at the same time."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest
import scipy.sparse as sp

from evalcore.data import RankedLists, RankedScores
from evalcore.errors import CBIRLensError
from evalcore.evaluation.retrieval import retrieve_by_vectors, run_from_indices
from evalcore.kept import Kept, nbytes_of
from evalcore.relevance.measures import parse_measure


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
def test_run_scores_held_as_one_array_read_as_the_tuples_per_query(seed):
    rng = np.random.default_rng(seed)
    queries, candidates = tuple(f"q{i}" for i in range(30)), tuple(f"c{i}" for i in range(20))
    indices = np.where(rng.random((30, 8)) < 0.8, rng.integers(0, 20, (30, 8)), -1)
    indices[:, 0] = 0  # every list holds at least one item; the rest are padded anywhere (-1)
    scores = rng.choice([0.0, 0.25, 0.5, 1.0], size=(30, 8))  # ties
    run = run_from_indices("r", queries, candidates, indices, scores)
    plain = {q: tuple(float(v) for v, i in zip(scores[row], indices[row]) if i >= 0) for row, q in enumerate(queries)}
    assert isinstance(run.scores, RankedScores)
    assert dict(run.scores) == plain and run.scores == plain and list(run.scores) == list(queries)
    assert all(run.scores[q] == plain[q] for q in reversed(queries)) and "q3" in run.scores and "x" not in run.scores
    assert [run.rankings[q] for q in queries] == [tuple(candidates[i] for i in row if i >= 0) for row in indices]


def test_a_kept_run_counts_its_arrays_not_its_items():
    lists = RankedLists(("q1", "q2"), ("d1", "d2", "d3"), np.array([2, 0, 1]), np.array([0, 2, 3]))
    scores = RankedScores(lists, np.array([0.5, 0.25, 1.0]))
    strings = sum(sys.getsizeof(name) for name in ("d1", "d2", "d3"))
    assert nbytes_of(lists) == 3 * 8 + 3 * 8 + 3 * 8 + strings  # documents, offsets, name pointers, name strings
    assert nbytes_of(scores) == 3 * 8
    big = run_from_indices("r", tuple(f"q{i}" for i in range(100)), tuple(f"c{i}" for i in range(100)),
                           np.tile(np.arange(100), (100, 1)), np.ones((100, 100)))
    # 10,000 items: 8 bytes of score and 8 of document each, counted by the arrays' sizes.
    assert 160_000 <= nbytes_of(big) < 200_000
    kept = Kept(budget=nbytes_of(big) + 1000)
    kept.put("a", big)
    kept.put("b", big)
    assert kept.keys() == ["b"]
    with pytest.raises(CBIRLensError, match="3 items need as many scores"):
        RankedScores(lists, np.zeros(2))


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
    threading.Event().wait(0.1)  # ten more polls: the same report is not passed on again
    release.set()
    computing.join(5)
    waiting.join(5)
    assert first == ["grid", "grid"] and calls == [1]
    assert waiter_reports == [(0.5, "half")]


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
    from evalcore.stats.compare import randomization_test, randomization_tests

    rng = np.random.default_rng(seed)
    # Values on a coarse grid: many permuted means equal the observed one exactly, where rounding would show.
    systems = [rng.integers(0, 3, 400) / 2 for _ in range(4)] + [np.zeros(400)]
    pairs = [(systems[i], systems[j]) for i in range(5) for j in range(i + 1, 5)]
    pairs.append((systems[0][:150], systems[1][:150]))  # another length: its own sign matrix
    together = randomization_tests(pairs, samples=700, seed=3)
    assert together == [randomization_test(a, b, samples=700, seed=3) for a, b in pairs]


def test_sessions_asking_for_the_same_ranking_share_one_pass_over_the_pool(monkeypatch):
    from evalcore.evaluation.evaluator import Evaluator
    from evalcore.readers import read_concepts, read_kg
    from evalcore.relevance.kg import KnowledgeGraph
    from tests.conftest import DEMO

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
        rankings[name] = evaluator.relevance_ranking(parse_measure("nn-iou"), 20, name=name)

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


def test_a_store_keeps_its_total_as_the_sum_of_what_it_holds():
    """The running total equals the sizes of the values held, through replacements and drops; values beyond the
    budget are dropped least recently used first, as a sum over the held values would decide."""
    rng = np.random.default_rng(7)
    kept = Kept(budget=400)
    for _ in range(300):
        key = int(rng.integers(0, 12))
        if rng.random() < 0.3:
            kept.get(key)
        else:
            kept.put(key, np.zeros(int(rng.integers(0, 12))), budget=int(rng.choice([400, 150])))
        held = [kept.get(k) for k in kept.keys()]
        assert kept.total() == sum(value.nbytes for value in held)
