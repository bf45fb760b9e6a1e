"""Concept detection F1 against scikit-learn, and the comparison statistics."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import f1_score

from evalcore.data import ConceptSets
from evalcore.errors import InputError
from evalcore.metrics.detection import detection_f1, detection_scores, soft_f1_per_image
from evalcore.readers import read_concepts, read_predictions
from evalcore.stats.compare import bootstrap_ci, bootstrap_cis, compare_systems, holm, paired_t_test, randomization_test


def test_f1_edge_cases():
    truth = ConceptSets(("a", "b", "c", "d"),
                        (frozenset({"C0000001", "C0000002"}), frozenset(), frozenset({"C0000003"}),
                         frozenset({"C0000004"})))
    predictions = read_predictions(b"ID,CUIs\na,c0000001;C0000002\nb,C0000009\nc,\n", "p.csv",
                                   known_ids=truth.index)
    score = detection_f1(truth, predictions.sets)
    # a: case-insensitive exact match -> 1; b: empty ground truth, something predicted -> 0 (scored, as the
    # ImageCLEFmedical evaluator scores it); c: empty prediction -> 0; d missing -> 0
    assert score.per_image == {"a": 1.0, "b": 0.0, "c": 0.0, "d": 0.0}
    assert score.f1 == pytest.approx(1 / 4)
    assert (score.images_scored, score.images_empty_ground_truth, score.images_missing_prediction) == (4, 1, 1)


def test_detection_scores_are_the_commands_numbers(tmp_path):
    """One assembly of the primary, secondary and soft F1 (metrics.detection.detection_scores) behind the
    ``detection`` command and the Concept detection page: the command's JSON holds exactly its numbers."""
    import json

    from evalcore.cli import main
    from evalcore.data import KGEdges
    from evalcore.errors import ParameterError
    from evalcore.relevance.kg import KnowledgeGraph
    from evalcore.relevance.measures import measure_spec, nn_iou_measure

    (tmp_path / "gt.csv").write_text("ID,CUIs\na,C0000001;C0000002\nb,C0000003\nc,\n")
    (tmp_path / "pred.csv").write_text("ID,CUIs\na,C0000001\nb,C0000004\n")
    (tmp_path / "kg.csv").write_text("child,parent\nC0000003,C0000004\n")
    (tmp_path / "subset.txt").write_text("C0000001\n")
    out = tmp_path / "d.json"
    assert main(["detection", "--gt", str(tmp_path / "gt.csv"), "--pred", str(tmp_path / "pred.csv"), "--subset",
                 str(tmp_path / "subset.txt"), "--kg", str(tmp_path / "kg.csv"), "--alpha", "0.25", "--n", "1",
                 "--json", str(out)]) == 0
    cli = json.loads(out.read_text())
    truth = read_concepts(tmp_path / "gt.csv")
    predictions = read_predictions(tmp_path / "pred.csv", known_ids=truth.index)
    kg = KnowledgeGraph.from_edges([KGEdges((("C0000003", "C0000004", "t"),), {})])
    scores = detection_scores(truth, predictions.sets, nn_iou_measure(0.25, 1), frozenset({"C0000001"}), kg)
    assert (cli["f1"], cli["f1_secondary"], cli["soft_f1"]) == (scores.primary.f1, scores.secondary.f1, scores.soft.f1)
    assert cli["soft_params"] == {"alpha": 0.25, "n": 1, "kg_mode": "undirected"}
    assert cli["counts"]["secondary_images_scored"] == scores.secondary.images_scored == 1
    plain = detection_scores(truth, predictions.sets, nn_iou_measure(0.25, 1))
    assert plain.secondary is None and plain.soft is None and plain.primary == scores.primary
    with pytest.raises(ParameterError, match="nn-iou MeasureSpec"):
        detection_scores(truth, predictions.sets, measure_spec("dice"))


def _samples_f1(truth: list[frozenset], predicted: list[frozenset]) -> float:
    """scikit-learn's samples-averaged F1 over indicator rows, 0/0 read as 1 (both rows empty)."""
    # A column no set holds changes no row's F1 and keeps the rows multilabel for scikit-learn (one column is "binary").
    universe = [*sorted(set().union(*truth, *predicted)), "absent"]
    rows = [[[c in s for c in universe] for s in sets] for sets in (truth, predicted)]
    return f1_score(np.array(rows[0]), np.array(rows[1]), average="samples", zero_division=1)


def test_empty_ground_truth_as_the_evaluator_and_scikit_learn_read_it():
    """Issue 34: GT 'x,C1' / 'y,' against predictions 'x,C1' / 'y,C2' is 0.5, not 1.0 (y dropped): an empty cell is
    one empty concept to the ImageCLEFmedical evaluator, so both empty = 1 and empty truth with a prediction = 0."""
    c1, c2 = "C0000001", "C0000002"
    truth = read_concepts(b"ID,CUIs\nx,C0000001\ny,\n", "gt.csv")
    cases = {  # y's prediction -> (y's F1, mean)
        b"ID,CUIs\nx,C0000001\ny,C0000002\n": (0.0, 0.5),  # empty truth, something predicted
        b"ID,CUIs\nx,C0000001\ny,\n": (1.0, 1.0),  # both empty
    }
    for text, (y_value, mean) in cases.items():
        predictions = read_predictions(text, "p.csv", known_ids=truth.index).sets
        score = detection_f1(truth, predictions)
        assert score.per_image["y"] == y_value and score.f1 == mean and score.images_scored == 2
        assert score.f1 == pytest.approx(_samples_f1(list(truth.sets), [predictions[i] for i in truth.ids]))
    # The third case: truth, empty prediction -> 0, in both.
    truth = ConceptSets(("x", "y"), (frozenset({c1}), frozenset({c2})))
    score = detection_f1(truth, {"x": frozenset({c1}), "y": frozenset()})
    assert score.per_image["y"] == 0.0 and score.f1 == 0.5 == _samples_f1(list(truth.sets), [frozenset({c1}), frozenset()])
    # Soft F1 reads empty sets the same way.
    assert soft_f1_per_image(frozenset(), frozenset(), {}, 0.5) == 1.0
    assert soft_f1_per_image(frozenset({c2}), frozenset(), {}, 0.5) == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_mean_f1_equals_scikit_learn_samples_average_with_empty_sets(seed):
    rng = np.random.default_rng(seed)
    universe = [f"C{i:07d}" for i in range(8)]
    ids = tuple(f"i{n}" for n in range(40))
    truth = [frozenset(rng.choice(universe, rng.integers(0, 4), replace=False)) for _ in ids]
    predicted = [frozenset(rng.choice(universe, rng.integers(0, 4), replace=False)) for _ in ids]
    assert any(not t for t in truth) and any(not p for p in predicted)
    score = detection_f1(ConceptSets(ids, tuple(truth)), dict(zip(ids, predicted)))
    assert score.images_scored == len(ids)
    assert score.f1 == pytest.approx(_samples_f1(truth, predicted), abs=1e-12)


def test_secondary_f1_filters_and_skips():
    truth = ConceptSets(("a", "b"), (frozenset({"C0000001", "C0000002"}), frozenset({"C0000003"})))
    predictions = {"a": frozenset({"C0000001", "C0000005"}), "b": frozenset({"C0000003"})}
    score = detection_f1(truth, predictions, subset=frozenset({"C0000001", "C0000005"}))
    # a filtered: truth {1}, prediction {1, 5} -> F1 = 2/3; b has no ground truth left -> skipped
    assert score.per_image == {"a": pytest.approx(2 / 3)}


def test_validator_names_problems_with_lines():
    predictions = read_predictions(
        b"a,C0000001;C0000001\nzz,C0000002\nb,C0000001;;C0000002\nc,C00001\n", "p.csv",
        known_ids={"a": 0, "b": 1, "c": 2})
    messages = dict(predictions.problems)
    assert "duplicate concept" in messages[1]
    assert "unknown image ID" in messages[2]
    assert "empty CUI token" in messages[3]
    assert "malformed CUI" in messages[4]


@pytest.mark.parametrize("content, line, expected", [
    (b"a,C0000001\nb,C0000002\na,C0000003\n", 3, "each image ID once ('a' already on line 1)"),
    (b"", None, "at least one prediction line"),
    (b"ID,CUIs\n\n", None, "at least one prediction line"),
])
def test_validator_refuses_repeated_ids_and_empty_files(content, line, expected):
    with pytest.raises(InputError) as error:
        read_predictions(content, "p.csv", known_ids={"a": 0, "b": 1})
    assert error.value.source == "p.csv" and error.value.line == line and expected in str(error.value)


@pytest.mark.parametrize("seed", range(5))
def test_f1_equals_scikit_learn_binary_f1(seed):
    rng = np.random.default_rng(seed)
    universe = [f"C{i:07d}" for i in range(12)]
    for _ in range(50):
        truth = frozenset(rng.choice(universe, rng.integers(1, 6), replace=False))
        predicted = frozenset(rng.choice(universe, rng.integers(1, 6), replace=False))
        union = sorted(truth | predicted)
        expected = f1_score([c in truth for c in union], [c in predicted for c in union], average="binary")
        score = detection_f1(ConceptSets(("x",), (truth,)), {"x": predicted})
        assert score.f1 == pytest.approx(expected)
        assert soft_f1_per_image(predicted, truth, {}, 0.5) == pytest.approx(expected)


def test_bootstrap_of_many_columns_equals_resampling_one_column_at_a_time():
    rng = np.random.default_rng(4)
    matrix = rng.random((150, 3))
    matrix[rng.random(150) < 0.2, 2] = np.nan
    shared = bootstrap_cis(matrix, samples=300, seed=9)
    same_draws = np.random.default_rng(9)  # bootstrap_cis draws resamples in chunks of 256
    picks = np.vstack([same_draws.integers(0, 150, size=(256, 150)), same_draws.integers(0, 150, size=(44, 150))])
    for column, ci in enumerate(shared):
        values = matrix[picks, column]
        means = np.nanmean(values, axis=1)
        low, high = np.percentile(means, [2.5, 97.5])
        assert (ci.low, ci.high) == pytest.approx((low, high), abs=1e-12)
        assert ci.mean == pytest.approx(np.nanmean(matrix[:, column]))
        assert ci.queries == np.isfinite(matrix[:, column]).sum()
    assert bootstrap_cis(np.full((4, 1), np.nan), samples=2000)[0].queries == 0


def test_holm_bootstrap_and_tests():
    assert holm([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06]
    values = np.random.default_rng(0).random(200)
    ci = bootstrap_ci(values, samples=2000)
    assert ci.low < values.mean() < ci.high and ci.queries == 200
    better = values + 0.2
    assert randomization_test(better, values, samples=2000) < 0.001
    assert paired_t_test(better, values) < 0.001
    noise = values + np.random.default_rng(1).normal(0, 0.01, 200)
    assert randomization_test(noise, values, samples=2000) > 0.01
    comparisons = compare_systems({"A": dict(enumerate(better)), "B": dict(enumerate(values)),
                                   "C": dict(enumerate(values))}, samples=1000)
    assert len(comparisons) == 3
    by_pair = {(c.system_a, c.system_b): c for c in comparisons}
    assert by_pair[("B", "C")].p_randomization == 1.0
    assert by_pair[("A", "B")].p_randomization_holm <= 3 * by_pair[("A", "B")].p_randomization + 1e-12


def test_a_constant_difference_is_certain_without_a_precision_warning():
    import warnings

    from scipy import stats

    values = np.random.default_rng(2).random(50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert paired_t_test(values + 0.2, values) == 0.0
        assert paired_t_test(values, values.copy()) == 1.0
    shifted = values + 0.2 + np.random.default_rng(3).normal(0, 0.05, 50)
    assert paired_t_test(shifted, values) == pytest.approx(stats.ttest_rel(shifted, values).pvalue)


def test_pairs_sharing_the_drawn_signs_get_the_p_value_each_gets_alone():
    """compare_systems draws each sign matrix once for all pairs with as many paired queries; every p-value is
    still the one randomization_test gives that pair alone, with NaNs making pairs of different lengths."""
    rng = np.random.default_rng(11)
    queries = [f"q{i}" for i in range(300)]
    per_query = {name: dict(zip(queries, rng.integers(0, 4, 300) / 4 + shift))
                 for name, shift in (("A", 0.0), ("B", 0.05), ("C", 0.0), ("D", 0.02))}
    per_query["D"]["q7"] = per_query["D"]["q9"] = float("nan")  # pairs with D have 298 queries
    in_order = sorted(queries)  # as compare_systems pairs them: the swaps are drawn per position
    for comparison in compare_systems(per_query, samples=1500, seed=3):
        a = np.array([per_query[comparison.system_a][q] for q in in_order])
        b = np.array([per_query[comparison.system_b][q] for q in in_order])
        assert comparison.p_randomization == randomization_test(a, b, samples=1500, seed=3)
        assert comparison.queries == (298 if "D" in (comparison.system_a, comparison.system_b) else 300)


def test_systems_on_different_query_sets_are_paired_on_the_queries_each_pair_shares():
    """Each pair is tested on the sorted queries both systems have (values read once per system and query set):
    every p-value, difference and count equals a pair-by-pair reading of the dicts."""
    rng = np.random.default_rng(12)
    queries = [f"q{i:03d}" for i in range(200)]
    per_query = {}
    for name, share in (("A", 1.0), ("B", 1.0), ("C", 0.8), ("D", 0.8), ("E", 1.0)):
        kept = rng.random(200) < share  # C and D each lack about 40 queries, not the same ones
        per_query[name] = {q: float(v) for q, v, k in zip(queries, rng.integers(0, 5, 200) / 4, kept) if k}
    per_query["E"]["q005"] = float("nan")
    for comparison in compare_systems(per_query, samples=800, seed=4):
        first, second = per_query[comparison.system_a], per_query[comparison.system_b]
        shared = sorted(set(first) & set(second))
        a, b = np.array([first[q] for q in shared]), np.array([second[q] for q in shared])
        assert comparison.p_randomization == randomization_test(a, b, samples=800, seed=4)
        assert comparison.p_t_test == paired_t_test(a, b)
        both = np.isfinite(a) & np.isfinite(b)
        assert comparison.mean_difference == float((a[both] - b[both]).mean())
        assert comparison.queries == int(both.sum())


def test_kept_draws_replay_the_same_numbers_and_stay_within_their_budget():
    """Bootstrap resamples and randomization swaps are kept in the store their caller owns for the next call with
    the same shape and seed: the intervals and p-values equal those drawn afresh (a budget of 0 keeps nothing), and
    the budget holds."""
    from evalcore.kept import Kept
    from evalcore.stats.compare import randomization_tests

    rng = np.random.default_rng(8)
    matrix = rng.random((700, 4))
    matrix[rng.random(matrix.shape) < 0.1] = np.nan
    a, b = rng.random(700), rng.random(700) + 0.01

    def both(draws):
        return (bootstrap_cis(matrix, samples=600, seed=2, draws=draws),
                randomization_tests([(a, b)], samples=1200, seed=2, draws=draws)[0])

    fresh = both(None)
    assert fresh[1] == randomization_test(a, b, samples=1200, seed=2)
    nothing = Kept(0)
    assert both(nothing) == fresh and nothing.keys() == []
    kept = Kept(4 << 20)
    for _ in range(3):  # the first call draws and keeps, the next ones replay
        assert both(kept) == fresh
    assert len(kept.keys()) == 2
    assert bootstrap_cis(matrix, samples=600, seed=3, draws=kept) != fresh[0]  # another seed is another draw
    for queries in range(800, 3000, 400):  # more draws than fit: the oldest go
        randomization_tests([(rng.random(queries), rng.random(queries))], samples=1200, seed=2, draws=kept)
        assert kept.total() <= 4 << 20
    assert ("bootstrap", 700, 600, 2) not in kept.keys()


def test_an_evaluator_owns_the_draws_of_its_results_and_results_still_pickle():
    import pickle

    from evalcore.data import ConceptSets, Run
    from evalcore.evaluation.evaluator import Evaluator
    from evalcore.evaluation.options import Scoring
    from evalcore.evaluation.results import evaluate_runs

    rng = np.random.default_rng(1)
    ids = tuple(f"i{k}" for k in range(60))
    concepts = ConceptSets(ids, tuple(frozenset(f"C{c:07d}" for c in rng.choice(9, 3)) for _ in ids))
    runs = [Run(name, {q: tuple(rng.permutation([d for d in ids if d != q])[:10]) for q in ids})
            for name in ("a", "b")]
    evaluator = Evaluator(concepts)
    first = evaluate_runs(evaluator, runs, Scoring(["CUI@10"]))
    table, comparison = first.table(), first.compare("CUI@10")
    assert first.draws is evaluator.draws and len(evaluator.draws.keys()) == 2  # one bootstrap, one swap matrix
    again = evaluate_runs(evaluator, runs, Scoring(["CUI@10"]))
    assert again.table().equals(table) and again.compare("CUI@10").equals(comparison)
    assert len(evaluator.draws.keys()) == 2  # replayed, not drawn again
    copy = pickle.loads(pickle.dumps(first))
    assert copy.draws.keys() == [] and copy.draws.budget == evaluator.draws.budget
    assert copy.compare("CUI@10").equals(comparison)


def test_bootstrap_intervals_do_not_depend_on_the_blas_thread_count():
    """The same data gives the same intervals to the last digit whatever BLAS threads the process runs with (a
    CLI process and an API call on the same machine agreed only by chance before)."""
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(0)
    matrix = rng.random((300, 43))
    matrix[rng.random(matrix.shape) < 0.05] = np.nan
    results = []
    for threads in (1, 2, 4):
        with threadpool_limits(threads, user_api="blas"):
            results.append(bootstrap_cis(matrix, samples=500))
    assert results[0] == results[1] == results[2]


def test_the_randomization_floor_is_stated_beside_the_p_values(tmp_path, capsys):
    """p = (1 + extreme) / (1 + B) is never below 1 / (B + 1): 0.0005 at the default 2,000 (issue 34). compare prints
    it, marks a pair at it, and the JSON holds it."""
    import json

    from evalcore.cli import main
    from evalcore.evaluation.options import Statistics

    assert Statistics().smallest_randomization_p == 1 / 2001
    separated = np.arange(1.0, 41.0)
    assert randomization_test(separated, np.zeros(40), samples=2000) == Statistics().smallest_randomization_p
    ids = [f"i{n:02d}" for n in range(30)]
    (tmp_path / "c.csv").write_text("ID,CUIs\n" + "".join(f"{i},C000000{n % 3}\n" for n, i in enumerate(ids)))
    good = "".join(f"{q} Q0 {d} {r} {10 - r} good\n" for q in ids
                   for r, d in enumerate([d for d in ids if d != q and int(d[1:]) % 3 == int(q[1:]) % 3][:2], 1))
    bad = "".join(f"{q} Q0 {d} {r} {10 - r} bad\n" for q in ids
                  for r, d in enumerate([d for d in ids if int(d[1:]) % 3 != int(q[1:]) % 3][:2], 1))
    (tmp_path / "r.trec").write_text(good + bad)
    out = tmp_path / "c.json"
    assert main(["compare", "--concepts", str(tmp_path / "c.csv"), "--run", str(tmp_path / "r.trec"), "--metric",
                 "CUI@1", "--json", str(out)]) == 0
    err = capsys.readouterr().err
    assert "2,000 randomizations, so no p-value below 1/(2,000 + 1) = 0.0004998 before Holm" in err
    assert "raw p 0.0004998, the floor" in err
    assert json.loads(out.read_text())["statistics"]["smallest_p_randomization"] == 1 / 2001
