"""Tied scores (issue 34): counted and said, ordered by rank (ours) or as trec_eval orders them; the query's own
image dropped or kept. pytrec_eval is the oracle of trec_eval's order (tests/metrics/test_trec_compat.py has the random
tied runs)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import pytrec_eval

import evalcore
from evalcore.cli import main
from evalcore.data import ConceptSets, Qrels, RankedLists, Run
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.metrics.ties import (
    in_tie_order,
    query_ties,
    run_tie_counts,
    tie_counts,
    trec_eval_order,
    trec_eval_permutation,
)
from evalcore.readers import read_run, read_runs

ISSUE_QRELS = b"q1 0 a 1\nq1 0 b 0\n"
ISSUE_RUN = b"q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.5 t\n"
FLOAT32_RUN = b"q1 Q0 a 1 0.5000000001 t\nq1 Q0 b 2 0.5 t\n"


def pytrec_values(qrels: dict, scored: dict, measures: set[str]) -> dict:
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(scored)


# --- the issue's example, by hand and against pytrec_eval ----------------------------------------------------------

@pytest.mark.parametrize("run_text, scores", [(ISSUE_RUN, (0.5, 0.5)), (FLOAT32_RUN, (0.5000000001, 0.5))])
def test_the_issue_s_tied_run(run_text, scores):
    """P@1 = NDCG@1 = 1 by rank (a is rank 1); 0 as trec_eval orders ties (b > a, document ID descending), also
    when the scores differ only beyond float32."""
    qrels = Qrels({"q1": {"a": 1, "b": 0}})
    run = read_run(run_text, "tied.trec")
    assert run.rankings["q1"] == ("a", "b") and run.scores["q1"] == scores
    oracle = pytrec_values({"q1": {"a": 1, "b": 0}}, {"q1": {"a": scores[0], "b": scores[1]}}, {"P_1", "ndcg_cut_1"})
    assert oracle["q1"]["P_1"] == oracle["q1"]["ndcg_cut_1"] == 0.0
    names = ["qrels-Prec@1", "qrels-NDCG@1"]
    for ties, expected in (("rank", 1.0), ("trec_eval", 0.0)):
        result = Evaluator(None, qrels=qrels).evaluate([run], names, Relevance.of(ties=ties)).systems["t"]
        assert [result.values[name][0] for name in names] == [expected, expected]
        assert result.counts["queries_tied"] == 1 and result.counts["queries_tie_order_differs"] == 1
        assert result.counts["queries_tied_only_as_float32"] == (scores[0] != scores[1])


def test_evaluate_and_check_say_how_many_queries_are_tied(tmp_path, capsys):
    (tmp_path / "q.qrels").write_bytes(ISSUE_QRELS)
    (tmp_path / "r.trec").write_bytes(FLOAT32_RUN + b"q2 Q0 a 1 0.9 t\nq2 Q0 b 2 0.1 t\n")
    (tmp_path / "c.csv").write_text("ID,CUIs\nq1,C0000001\nq2,C0000001\na,C0000001\nb,C0000002\n")
    out = {}
    for ties in ("rank", "trec_eval"):
        out[ties] = tmp_path / f"{ties}.json"
        assert main(["evaluate", "--qrels", str(tmp_path / "q.qrels"), "--run", str(tmp_path / "r.trec"), "--metrics",
                     "qrels-Prec@1", "--ties", ties, "--json", str(out[ties])]) == 0
        err = capsys.readouterr().err
        assert "note: system 't': 1 of 2 queries have tied scores (1 only as trec_eval reads scores, as float32)" in err
        assert ("--ties trec_eval gives its numbers" in err) == (ties == "rank")
    rank, trec = (json.loads(out[t].read_text()) for t in ("rank", "trec_eval"))
    assert rank["systems"]["t"]["qrels-Prec@1"] == 1.0 and trec["systems"]["t"]["qrels-Prec@1"] == 0.0
    assert rank["params"]["ties"] == "rank" and trec["params"]["ties"] == "trec_eval"
    assert rank["counts"]["t"]["queries_tied"] == 1 and rank["counts"]["t"]["queries_tie_order_differs"] == 1
    assert main(["check", "--concepts", str(tmp_path / "c.csv"), "--run", str(tmp_path / "r.trec")]) == 0
    report = capsys.readouterr().out
    assert "1 of 2 queries have tied scores" in report and "evaluate --ties trec_eval" in report


def test_runs_without_ties_or_scores_say_nothing(tmp_path, capsys):
    (tmp_path / "q.qrels").write_bytes(ISSUE_QRELS)
    (tmp_path / "r.csv").write_text("query_id,image_id,rank\nq1,a,1\nq1,b,2\n")  # no score column: no ties
    assert read_run(tmp_path / "r.csv").scores is None
    assert main(["evaluate", "--qrels", str(tmp_path / "q.qrels"), "--run", str(tmp_path / "r.csv"), "--json",
                 str(tmp_path / "o.json"), "--ties", "trec_eval"]) == 0
    assert "tied" not in capsys.readouterr().err
    counts = json.loads((tmp_path / "o.json").read_text())["counts"]["r"]
    assert "queries_tied" not in counts  # nothing to count without scores; the ranks order the list either way


def test_the_option_is_validated_at_the_door():
    with pytest.raises(ParameterError, match="ties must be one of"):
        Relevance(ties="docid")
    with pytest.raises(ParameterError, match="query_image must be one of"):
        evalcore.evaluate(None, {"s": {"q1": ["a"]}}, Relevance.of(query_image="count"), qrels=Qrels({"q1": {"a": 1}}))
    with pytest.raises(SystemExit) as stopped:
        main(["evaluate", "--qrels", "x", "--run", "y", "--json", "z", "--ties", "random"])
    assert stopped.value.code == 2


# --- one query and every query: the same order and counts --------------------------------------------------------

def random_tied_lists(seed: int, in_score_order: bool = True
                      ) -> tuple[RankedLists, np.ndarray, list[tuple[list[str], list[float]]]]:
    """Lists with exact ties, float32-only ties, -0.0 and 0.0, and IDs whose code-point order differs from a naive one
    (case, digits, non-ASCII): in our order (score descending, then rank) as the readers give them, or (a hand-made
    Run) in any order."""
    rng = random.Random(seed)
    alphabet = ["a", "B", "b", "10", "9", "é", "z", "Ω", "_", "A1"]
    queries, per_query = [], []
    for q in range(30):
        size = rng.randint(1, 12)
        documents = rng.sample([f"{x}{y}" for x in alphabet for y in ("", "x", "é")], size)
        base = [rng.choice([0.5, 0.25, 0.0, -0.0, 3.0]) for _ in documents]
        mode = q % 3
        if mode == 0:  # ties as written (and so as float32)
            scores = [b + rng.choice([0.0, 0.0, 0.1]) for b in base]
        elif mode == 1:  # distinct as written, tied as float32 (steps far below a float32 step of 0.25 to 3)
            scores = [b + i * 1e-12 for i, b in enumerate(base)]
        else:  # distinct
            scores = [rng.random() for _ in base]
        order = (sorted(range(size), key=lambda i: -scores[i]) if in_score_order  # stable: ties keep their rank
                 else rng.sample(range(size), size))
        per_query.append(([documents[i] for i in order], [scores[i] for i in order]))
        queries.append(f"q{q}")
    lists = RankedLists.from_mapping({q: tuple(d) for q, (d, _) in zip(queries, per_query)})
    return lists, np.array([s for _, scores in per_query for s in scores]), per_query


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("in_score_order", [True, False])
def test_fast_tie_order_and_counts_equal_the_one_query_functions(seed, in_score_order):
    lists, scores, per_query = random_tied_lists(seed, in_score_order)
    order = trec_eval_permutation(lists, scores)
    offsets = lists.offsets
    singles = [query_ties(documents, values) for documents, values in per_query]
    for i, (documents, values) in enumerate(per_query):
        expected = trec_eval_order(documents, values)
        assert (order[offsets[i]:offsets[i + 1]] - offsets[i]).tolist() == expected
        # trec_eval's order, stated as bytes: float32 score descending, then the UTF-8 bytes of the ID descending.
        by_bytes = sorted(range(len(documents)), key=lambda j: (np.float32(values[j]), documents[j].encode()),
                          reverse=True)
        assert expected == by_bytes
    counts = tie_counts(lists, scores)
    assert counts.queries == len(per_query)
    assert counts.tied == sum(t.tied for t in singles) > 0
    assert counts.tied_only_as_float32 == sum(t.tied and not t.tied_as_written for t in singles) > 0
    assert counts.order_differs == sum(t.order_differs for t in singles) > 0
    run = Run("r", lists, scores=evalcore.data.RankedScores(lists, scores))
    assert run_tie_counts(run) == counts
    reordered = in_tie_order(run, "trec_eval")
    for query, (documents, values) in zip(lists.queries, per_query):
        assert list(reordered.rankings[query]) == [documents[j] for j in trec_eval_order(documents, values)]


def test_the_reader_keeps_scores_in_the_lists_order():
    runs = read_runs(b"q1 Q0 b 2 0.5 s\nq1 Q0 a 1 0.5 s\nq1 Q0 c 3 0.9 s\nq2 Q0 a 1 1 s\nq1 Q0 d 1 0.1 u\n", "x.trec")
    assert [(dict(run.rankings), dict(run.scores)) for run in runs] == [
        ({"q1": ("c", "a", "b"), "q2": ("a",)}, {"q1": (0.9, 0.5, 0.5), "q2": (1.0,)}),
        ({"q1": ("d",)}, {"q1": (0.1,)})]
    assert read_run(b"query_id,image_id,rank,score\nq,a,1,0.5\nq,b,2,0.5\n", "s.csv").scores == {"q": (0.5, 0.5)}


# --- the query's own image ----------------------------------------------------------------------------------------

def test_query_image_kept_as_trec_eval_counts_it():
    """Kept, the query's own image takes its rank: under judgments with its judged grade (pytrec_eval's numbers), under
    concept relevance as a non-relevant item (it is not in its own pool)."""
    judgments = {"q": {"q": 1, "a": 1, "b": 0, "c": 1}}
    run = read_run(b"q Q0 q 1 0.9 s\nq Q0 b 2 0.8 s\nq Q0 a 3 0.7 s\nq Q0 c 4 0.6 s\n", "self.trec")
    names = ["qrels-Prec@2", "qrels-MAP@3", "qrels-NDCG@2", "qrels-R@2"]
    oracle = pytrec_values(judgments, {"q": {"q": 0.9, "b": 0.8, "a": 0.7, "c": 0.6}},
                           {"P_2", "map_cut_3", "ndcg_cut_2", "recall_2"})["q"]
    evaluator = Evaluator(None, qrels=Qrels(judgments))
    kept = evaluator.evaluate([run], names, Relevance.of(query_image="keep")).systems["s"]
    assert [kept.values[n][0] for n in names] == pytest.approx(
        [oracle["P_2"], oracle["map_cut_3"], oracle["ndcg_cut_2"], oracle["recall_2"]], abs=1e-12)
    assert kept.counts["query_kept_in_own_list"] == 1 and kept.counts["query_dropped_from_own_list"] == 0
    dropped = evaluator.evaluate([run], names, Relevance.of()).systems["s"]
    assert dropped.values["qrels-Prec@2"][0] == 0.5 and dropped.counts["query_dropped_from_own_list"] == 1
    concepts = ConceptSets(("q", "a", "b"), (frozenset({"C0000001"}), frozenset({"C0000001"}), frozenset()))
    on_concepts = Evaluator(concepts)
    listed = Run("s", {"q": ("q", "a", "b")})
    keep = on_concepts.evaluate([listed], ["CUI@1", "CUI@2"], Relevance.of(query_image="keep")).systems["s"]
    drop = on_concepts.evaluate([listed], ["CUI@1", "CUI@2"], Relevance.of()).systems["s"]
    assert keep.values["CUI@1"][0] == 0.0 and keep.values["CUI@2"][0] == pytest.approx(1 / np.log2(3))
    assert drop.values["CUI@1"][0] == 1.0


@pytest.mark.parametrize("seed", range(4))
def test_kept_query_image_alignment_equals_a_loop_over_queries(seed):
    """align_run's arrays with the query's own image kept = a plain loop: its rank kept, coded QUERY_ITSELF."""
    from evalcore.evaluation.evaluator import PADDING, QUERY_ITSELF, UNKNOWN, align_run
    from tests.conftest import random_world

    concepts, _ = random_world(seed, images=40)
    rng = random.Random(seed)
    ids = list(concepts.ids)
    rankings = {query: tuple(rng.sample(ids + ["ghost-1", "ghost-2"], rng.randint(0, 12)))
                for query in ids[:-3] + ["ghost-query"]}
    rankings[ids[0]] = (ids[0], *[d for d in rankings[ids[0]] if d != ids[0]])  # at least one query lists itself
    run = Run("r", rankings)
    for depth in (1, 5, 20):
        aligned = align_run(run, concepts, depth, keep_query=True)
        rows, documents, kept = [], [], 0
        for query, ranked in rankings.items():
            if query not in concepts.index:
                continue
            kept += query in ranked
            row = [QUERY_ITSELF if d == query else concepts.index.get(d, UNKNOWN) for d in ranked[:depth]]
            rows.append(concepts.index[query])
            documents.append(row + [PADDING] * (depth - len(row)))
        assert aligned.query_rows.tolist() == rows and aligned.documents.tolist() == documents
        assert aligned.counts["query_kept_in_own_list"] == kept > 0
        assert aligned.counts["query_dropped_from_own_list"] == 0


def test_the_leaderboard_says_which_runs_are_tied_and_the_p_value_floor():
    """The demo's runs have tied scores: a researcher reads how many queries, and beside the significance grid the
    smallest p-value 2,000 randomizations can give."""
    from tests.conftest import open_page

    app = open_page("pages/leaderboard.py")
    captions = [c.value for c in app.caption]
    assert any("240 of 2,000 queries have tied scores" in c and "--ties trec_eval" in c for c in captions), captions
    assert any("no p-value is below 1/(2,000 + 1) = 0.0005" in m.value for m in app.markdown)
