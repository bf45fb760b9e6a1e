"""Issue #21, "Trust at the edges": inputs that used to give a number silently (an empty run score, a measure
parameter named twice, complex embeddings), a self-retrieval that moved CAG-RBP, and p-values rounded or
tolerated away."""

from __future__ import annotations

import io
import random
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import evalcore
from evalcore.data import ImageLabels, Qrels, Run
from evalcore.errors import InputError, ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance, Scoring
from evalcore.metrics.registry import FAMILIES, MetricSpec, context_aware_gain, context_aware_gain_rbp, parse_metric
from evalcore.readers import read_embeddings, read_runs
from evalcore.relevance.measures import parse_measure
from evalcore.stats.compare import compare_systems, holm, paired_t_test, randomization_test
from tests import line_by_line
from tests.conftest import random_world
from tests.readers.test_vectorised_readers import outcome, runs_as_lists

# --- 6. a run's missing score ----------------------------------------------------------------------------

def deep_csv_run(rows: int, broken_row: int, broken: str, header: str = "query_id,image_id,rank,score") -> bytes:
    """A CSV run of ``rows`` rows (no quotes: the columnar path reads it) with row ``broken_row`` replaced."""
    lines = [header] if header else []
    lines += [f"q{i // 50},d{i},{i % 50 + 1},{1 - (i % 50) / 100}" for i in range(rows)]
    lines[broken_row + bool(header)] = broken
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("data, line, found", [
    (b"query_id,image_id,rank,score\nq1,a,1,0.9\nq1,b,2,\nq1,c,3,0.1\n", 3, "an empty field"),
    (b"query_id,image_id,rank,score\nq1,a,1,0.9\nq1,b,2,  \nq1,c,3,0.1\n", 3, "an empty field"),
    (b'query_id,image_id,rank,score\nq1,"a",1,0.9\nq1,b,2,\nq1,c,3,0.1\n', 3, "an empty field"),  # quoted: by lines
    (b"image_id,query_id,score,rank\na,q1,0.9,1\nb,q1,,2\n", 3, "an empty field"),
    (b"q1,a,1,0.9\nq1,b,2,\n", 2, "an empty field"),  # no header: the first row has a score column
    (b"q1,a,1,\nq1,b,2,0.5\n", 1, "an empty field"),
    (b"query_id,image_id,rank,score\nq1,a,1,0.9\nq1,b,2\n", 3, "3 fields"),  # a ragged row: no score at all
    (b"q1,a,1,0.9\nq1,b,2\n", 2, "3 fields"),
    (deep_csv_run(3000, 2500, "q50,d2500,1,"), 2502, "an empty field"),
    (deep_csv_run(3000, 2500, "q50,d2500,1,", header=""), 2501, "an empty field"),
], ids=["header", "blank", "quoted", "columns-swapped", "no-header", "no-header-first-row", "ragged", "ragged-no-header",
        "deep", "deep-no-header"])
def test_a_csv_run_row_without_its_score_is_refused_on_both_paths(data, line, found):
    """Before: the empty cell read as score 0 and moved its image to the end of the list (q1: a, c, b)."""
    with pytest.raises(InputError) as error:
        read_runs(data, "r.csv")
    assert error.value.line == line and error.value.found == found
    assert "score" in error.value.expected and str(error.value).startswith(f"r.csv, line {line}: expected a score")
    assert outcome(runs_as_lists, data, "r.csv") == outcome(line_by_line.read_runs, data, "r.csv")


def test_a_headerless_csv_run_has_a_score_on_every_row_or_on_none():
    with pytest.raises(InputError, match=r"r.csv, line 2: expected 3 fields .*\(a score on every row or on none\)"):
        read_runs(b"q1,a,1\nq1,b,2,0.5\nq1,c,3\n", "r.csv")
    data = b"q1,a,1\nq1,b,2,0.5\n"
    assert outcome(runs_as_lists, data, "r.csv") == outcome(line_by_line.read_runs, data, "r.csv")


@pytest.mark.parametrize("data, order", [
    (b"query_id,image_id,rank\nq1,b,2\nq1,a,1\n", ("a", "b")),  # no score column: ranks give the order
    (b"q1,b,2\nq1,a,1\n", ("a", "b")),
    (b"query_id,image_id,rank,score\nq1,a,1,0.1\nq1,b,2,0.9\n", ("b", "a")),
    (b"query_id,image_id,rank\nq1,b,2,extra\nq1,a,1\n", ("a", "b")),  # a column the header does not name
])
def test_csv_runs_with_a_score_on_every_row_or_none_still_read(data, order):
    assert dict(read_runs(data, "r.csv")[0].rankings) == {"q1": order}
    assert outcome(runs_as_lists, data, "r.csv") == outcome(line_by_line.read_runs, data, "r.csv")


@pytest.mark.parametrize("data", [b"q1\tQ0\ta\t1\t\tsys\n", b"q1 Q0 a 1  sys\n", b"q1 Q0 b 2 0.5 s\nq1 Q0 a 1 s\n"])
def test_a_trec_line_without_its_score_is_refused_as_five_fields(data):
    error = outcome(runs_as_lists, data, "r.trec")
    assert error[0] == "error" and "found 5 fields" in error[1]
    assert error == outcome(line_by_line.read_runs, data, "r.trec")


# --- 7. a query retrieving itself -------------------------------------------------------------------------

def every_registry_metric(relevance: str | None, k: int = 5) -> list[str]:
    """One name per registry family and relevance of this source (concepts: IoU, nn-IoU and dice; qrels),
    and P@K per label target."""
    names = []
    for family in FAMILIES.values():
        if not family.graded:
            names += [f"P@{k}[{target}]" for target in ("modality", "organ", "modality+organ")]
            continue
        for key in ("qrels",) if relevance == "qrels" else ("iou", "dice", "nn-iou"):
            names.append(MetricSpec(family, k if family.uses_k else None, None, key).name)
    return names


def with_self_retrievals(rankings: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """The same lists with the query inserted first, in the middle and last, for three queries."""
    changed = dict(rankings)
    for query, position in zip(list(rankings)[:3], (0, 7, len(rankings[next(iter(rankings))]))):
        ranked = list(rankings[query])
        changed[query] = tuple(ranked[:position] + [query] + ranked[position:])
    return changed


def self_retrieval_world(seed: int):
    concepts, kg = random_world(seed, images=60)
    rng = random.Random(seed)
    labels = ImageLabels({"modality": {i: frozenset({rng.choice("AB")}) for i in concepts.ids},
                          "organ": {i: frozenset({rng.choice("XYZ")}) for i in concepts.ids}})
    rankings = {q: tuple(rng.sample([c for c in concepts.ids if c != q], 20)) for q in concepts.ids}
    return concepts, kg, labels, rankings


def assert_same_values(plain, with_self, names):
    for name in names:
        np.testing.assert_allclose(with_self.values[name], plain.values[name], rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("seed", range(2))
def test_a_self_retrieval_changes_no_metric_of_the_registry(seed):
    """Before: CAG-RBP and nn-CAG-RBP moved (0.0118 -> 0.0163 on the issue's example), every other metric not."""
    concepts, kg, labels, rankings = self_retrieval_world(seed)
    names = every_registry_metric("concepts")
    assert {(parse_metric(name).family.key, parse_metric(name).relevance) for name in names} == \
        {(key, relevance) for key in FAMILIES if key != "P" for relevance in ("iou", "dice", "nn-iou")} | {("P", None)}
    evaluator = Evaluator(concepts, kg, labels=labels)
    plain = evaluator.evaluate([Run("r", rankings)], names, Relevance.of(0.5, 1)).systems["r"]
    changed = evaluator.evaluate([Run("r", with_self_retrievals(rankings))], names, Relevance.of(0.5, 1)).systems["r"]
    assert changed.counts["query_dropped_from_own_list"] == 3 and plain.counts["query_dropped_from_own_list"] == 0
    assert_same_values(plain, changed, names)


def test_a_self_retrieval_changes_no_metric_under_qrels():
    concepts, _, labels, rankings = self_retrieval_world(3)
    rng = random.Random(3)
    qrels = Qrels({q: {d: rng.choice([-1, 0, 1, 2, 3]) for d in rng.sample(concepts.ids, 25)} for q in concepts.ids})
    names = every_registry_metric("qrels")
    assert {name.split("@")[0] for name in names} == {"qrels-NDCG", "qrels-MAP", "qrels-R", "qrels-RBP", "qrels-ERR",
                                                      "qrels-CAG", "qrels-CAG-RBP", "qrels-MAP-min", "qrels-Prec", "P",
                                                      # trec_eval's measures of the whole list, and judged@K (issue 67)
                                                      "qrels-recip_rank", "qrels-Rprec", "qrels-success", "qrels-bpref",
                                                      "qrels-infAP", "qrels-gm_map", "qrels-num_rel_ret", "qrels-judged",
                                                      *(f"qrels-iprec_at_recall_{i / 10:.2f}" for i in range(11))}
    evaluator = Evaluator(concepts, labels=labels, qrels=qrels)
    plain = evaluator.evaluate([Run("r", rankings)], names).systems["r"]
    changed = evaluator.evaluate([Run("r", with_self_retrievals(rankings))], names).systems["r"]
    assert changed.counts["query_dropped_from_own_list"] == 3
    assert_same_values(plain, changed, names)


def test_cag_rbp_depends_on_the_list_alone():
    """CAG-RBP summed over the width of the table's array, which a self-retrieval (one column more), a deeper
    list of another query or a larger K elsewhere in the table all widened; the windows of a list's last items
    reach past its end, so it moved. It now sums over the list followed by non-relevant items."""
    concepts, kg, _, rankings = self_retrieval_world(4)
    evaluator = Evaluator(concepts, kg)
    alone = evaluator.evaluate([Run("r", rankings)], ["CAG-RBP", "nn-CAG-RBP"], Relevance.of(0.5, 1)).systems["r"]
    with_k = evaluator.evaluate([Run("r", rankings)], ["CAG-RBP", "nn-CAG-RBP", "CUI@60"], Relevance.of(0.5, 1)).systems["r"]
    deeper = dict(rankings, img0=rankings["img0"] + tuple(c for c in concepts.ids[:45] if c not in rankings["img0"]
                                                          and c != "img0"))
    beside = evaluator.evaluate([Run("r", rankings), Run("deep", deeper)], ["CAG-RBP", "nn-CAG-RBP"], Relevance.of(0.5, 1))
    for other in (with_k, beside.systems["r"]):
        assert_same_values(alone, other, ["CAG-RBP", "nn-CAG-RBP"])
    # The per-query definition, from the IoU of each listed image (queries with nothing relevant are left out).
    scored = [row for row, value in enumerate(alone.values["CAG-RBP"]) if not np.isnan(value)]
    assert len(scored) > 20
    for row in scored:
        query = alone.query_ids[row]
        relevances = [len(concepts[query] & concepts[d]) / len(concepts[query] | concepts[d])
                      if concepts[query] | concepts[d] else 0.0 for d in rankings[query]]
        assert alone.values["CAG-RBP"][row] == pytest.approx(context_aware_gain_rbp(relevances), abs=1e-12)


def test_cag_rbp_by_hand():
    """r = (1, 0.5), w = 10, p = 0.95: r' = (1, 0.25); window sums 1 at rank 1, 1.25 at ranks 2..10, 0.25 at 11."""
    expected = 0.05 * (1 + 1.25 * sum(0.95 ** i for i in range(1, 10)) + 0.25 * 0.95 ** 10) / 10
    assert context_aware_gain_rbp([1.0, 0.5]) == pytest.approx(expected, rel=1e-12)
    assert context_aware_gain_rbp([1.0, 0.5, 0.0, 0.0]) == context_aware_gain_rbp([1.0, 0.5])
    # Cut at the list's end (the per-query sum over the list alone) it would be smaller.
    assert context_aware_gain([1.0, 0.5], [0.05, 0.05 * 0.95]) < expected


# --- 8. Holm and the paired t-test --------------------------------------------------------------------------

def holm_by_hand(p: list[float]) -> list[float]:
    """statsmodels' multipletests(method="holm"), written out: sorted p times m, m-1, ..., 1, running maximum,
    capped at 1, back in the input order."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, index in enumerate(order):
        running = max(running, (m - rank) * p[index])
        adjusted[index] = min(running, 1.0)
    return adjusted


@pytest.mark.parametrize("seed", range(20))
def test_holm_follows_the_standard_definition_and_never_falls_below_the_raw_p(seed):
    rng = np.random.default_rng(seed)
    p = (10.0 ** -rng.uniform(0, 16, rng.integers(1, 12))).tolist()
    p[0] = 1e-13 if seed % 2 else p[0]
    adjusted = holm(p)
    assert adjusted == holm_by_hand(p)
    assert all(a >= raw for a, raw in zip(adjusted, p))
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(np.asarray(adjusted)[order]) >= 0)


def test_holm_of_a_tiny_p_value_is_not_rounded_to_zero():
    assert holm([1e-13, 0.5]) == [2e-13, 0.5]
    assert holm([0.5, 1e-300]) == [0.5, 2e-300]


@pytest.mark.parametrize("bad", [[0.1, float("nan")], [1.5], [-0.1, 0.2]])
def test_holm_refuses_what_is_not_a_p_value(bad):
    with pytest.raises(ParameterError, match="p-values in \\[0, 1\\]"):
        holm(bad)


@pytest.mark.parametrize("scale", [1e-6, 1e-9, 1e-12, 1e-15])
@pytest.mark.parametrize("seed", range(3))
def test_the_t_test_agrees_with_scipy_on_tiny_differences(scale, seed):
    """Before: p = 1.0 whenever every difference was below 1e-8 (scipy gave p near 1e-85 on such data)."""
    rng = np.random.default_rng(seed)
    b = rng.random(40)
    a = b + scale * (1 + rng.random(40))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        expected = stats.ttest_rel(a, b).pvalue
        assert paired_t_test(a, b) == pytest.approx(expected, rel=1e-9)
    assert paired_t_test(a, b) < 1e-10


def test_tiny_differences_of_both_signs_give_scipy_large_p():
    rng = np.random.default_rng(5)
    b = rng.random(30)
    a = b + 1e-10 * rng.normal(size=30)
    assert paired_t_test(a, b) == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)


def test_the_t_test_keeps_its_two_documented_exceptions():
    values = np.random.default_rng(2).random(50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert paired_t_test(values, values.copy()) == 1.0  # scipy: NaN
        assert paired_t_test(values + 0.2, values) == 0.0  # scipy: a precision-loss warning
        assert paired_t_test(values + 1e-9, values) == pytest.approx(stats.ttest_rel(values + 1e-9, values).pvalue)


def test_compared_systems_differing_by_little_are_significant_and_holm_stays_above_raw():
    rng = np.random.default_rng(7)
    base = rng.random(60)
    per_query = {"A": dict(enumerate(base)), "B": dict(enumerate(base + 1e-10 * (1 + rng.random(60)))),
                 "C": dict(enumerate(base + rng.normal(0, 0.1, 60)))}
    comparisons = compare_systems(per_query, samples=200)
    by_pair = {(c.system_a, c.system_b): c for c in comparisons}
    assert by_pair[("A", "B")].p_t_test < 1e-20
    for c in comparisons:
        assert c.p_t_test_holm >= c.p_t_test and c.p_randomization_holm >= c.p_randomization


# --- 10. a measure parameter given twice; embeddings that are not real numbers ----------------------------------

@pytest.mark.parametrize("text, name", [("nn-iou(alpha=0.5,alpha=0.1)", "alpha"), ("tversky(0.8, a=0.2)", "a"),
                                        ("nn-iou(ALPHA=0.5, alpha=0.5)", "alpha"), ("nn-iou-hops(0.5, w1=0.2)", "w1")])
def test_a_measure_parameter_given_twice_is_refused(text, name):
    with pytest.raises(ParameterError, match=f"{name} is given twice"):
        parse_measure(text)


def test_the_api_refuses_a_measure_parameter_given_twice():
    """The API's door for a measure written as text is parse_measure; what it returns goes into Relevance."""
    with pytest.raises(ParameterError, match="alpha is given twice \\(0.5 and 0.1\\)"):
        evalcore.evaluate({"q": {"C0000001"}, "x": {"C0000001"}}, {"s": {"q": ["x"]}}, Scoring(["nn-CUI@1"]),
                          Relevance.of(measure=parse_measure("nn-iou(alpha=0.5,alpha=0.1)")))


def npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=array.dtype == object)
    return buffer.getvalue()


def parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("array, found", [
    (np.array([[1 + 2j, 3], [1, 0]]), "complex values (the imaginary part would be lost) of type complex128"),
    (np.array([[1, 3], [1, 0]], dtype=np.complex64), "complex values"),
    (np.array([[True, False], [False, True]]), "booleans of type bool"),
    (np.array([[1, 2], [3, 4]], dtype="timedelta64[s]"), "time spans"),
    (np.array([["1", "2"], ["3", "4"]]), "text"),
])
def test_npy_embeddings_that_are_not_real_numbers_are_refused(array, found):
    """Before: a complex array was accepted with its imaginary part dropped (and time spans as numbers)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError) as error:
            read_embeddings(npy(array), "e.npy", b"a\nb\n", "ids.txt")
    assert str(error.value).startswith("e.npy: expected real vector values (integers or floats), found ")
    assert found in error.value.found


def test_npy_embeddings_of_objects_and_non_finite_values_are_refused():
    with pytest.raises(InputError, match="e.npy: expected a numeric .npy array .*found Python objects"):
        read_embeddings(npy(np.array([[1.0, "x"], [2.0, 3.0]], dtype=object)), "e.npy", b"a\nb\n", "ids.txt")
    with pytest.raises(InputError, match="e.npy, line 2: expected finite vector values"):
        read_embeddings(npy(np.array([[1.0, 2.0], [np.inf, 3.0]])), "e.npy", b"a\nb\n", "ids.txt")
    with pytest.raises(InputError, match="at least one vector value per ID"):
        read_embeddings(npy(np.zeros((2, 0))), "e.npy", b"a\nb\n", "ids.txt")


@pytest.mark.parametrize("column, found", [
    ([True, False], "booleans of type bool in column 'x'"),
    (pd.to_datetime(["2020-01-01", "2021-01-01"]), "dates"),
    (pd.to_timedelta([1, 2], unit="s"), "time spans"),
])
def test_parquet_embedding_columns_that_are_not_real_numbers_are_refused(column, found):
    """Before: booleans read as 0 / 1, dates and time spans as nanosecond counts."""
    data = parquet(pd.DataFrame({"ID": ["a", "b"], "x": column, "y": [1.0, 2.0]}))
    with pytest.raises(InputError) as error:
        read_embeddings(data, "e.parquet")
    assert error.value.expected == "real vector values (integers or floats)" and found in error.value.found


def test_parquet_and_csv_embeddings_keep_reading_numbers_and_name_the_rest():
    numbers = read_embeddings(parquet(pd.DataFrame({"ID": ["a", "b"], "x": [3, 0], "y": ["4", "1"]})), "e.parquet")
    assert numbers.vectors.tolist() == [[0.6000000238418579, 0.800000011920929], [0.0, 1.0]]
    with pytest.raises(InputError, match="e.parquet: expected at least one vector value per ID"):
        read_embeddings(parquet(pd.DataFrame({"ID": ["a", "b"]})), "e.parquet")
    with pytest.raises(InputError, match="e.parquet, line 2: expected finite vector values"):
        read_embeddings(parquet(pd.DataFrame({"ID": ["a", "b"], "x": [1.0, None]})), "e.parquet")
    with pytest.raises(InputError, match="e.csv, line 3: expected numeric vector values, found '1\\+2j'"):
        read_embeddings(b"ID,x,y\na,1,2\nb,1+2j,1\n", "e.csv")


def test_embeddings_of_extreme_magnitude_keep_their_direction():
    """Before: a row of 1e200 overflowed in its norm and came out as a zero vector (1e-170: underflowed)."""
    vectors = read_embeddings(npy(np.array([[3e200, 4e200], [3e-170, 4e-170], [3.0, 4.0]])), "e.npy",
                              b"a\nb\nc\n", "ids.txt").vectors
    assert np.allclose(vectors, [[0.6, 0.8]] * 3, atol=1e-7)


@pytest.mark.parametrize("scale", [1e-13, 1e-9, 1.0, 1e3])
def test_the_randomization_test_does_not_depend_on_the_differences_scale(scale):
    differences = np.linspace(-0.5, 1.5, 40)
    assert randomization_test(differences * scale, np.zeros(40), samples=10000) == randomization_test(
        differences, np.zeros(40), samples=10000) < 0.05
