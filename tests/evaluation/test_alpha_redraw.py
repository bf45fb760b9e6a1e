"""An alpha change on the leaderboard: every fast path of the re-draw gives, to the last bit (``==``, not approx),
what the plain formulas give, on seeded random data and on the demo; and sessions asking for the same evaluation
share one result."""

from __future__ import annotations

import sys
import threading
from dataclasses import asdict

import numpy as np
import pytest

from evalcore.app.workspace import load_demo
from evalcore.evaluation.evaluator import AlignedRun, Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.results import Results, evaluate_runs
from evalcore.metrics import registry as metrics
from evalcore.relevance.measures import parse_measure
from evalcore.stats import compare
from evalcore.stats.compare import MeanWithCI, bootstrap_cis, compare_columns, compare_systems
from evalcore.threads import blas_single_thread
from tests.conftest import random_world


def same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN (a field left undefined on both sides)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (np.isnan(a) and np.isnan(b))
    return a == b


def same_records(left: list, right: list) -> bool:
    return len(left) == len(right) and all(
        all(same(x[key], y[key]) for key in x) and x.keys() == y.keys() for x, y in zip(left, right))


def plain_bootstrap(columns: np.ndarray, confidence: float, samples: int, seed: int) -> list[MeanWithCI]:
    """Independent definition: the same resamples (bootstrap_cis draws them in chunks of 256), each chunk's means
    as the product of the resample counts with the values and with the 0/1 matrix of defined values, then each
    column's percentile interval on its own, within the range of its values, as is its mean."""
    width = columns.shape[1]
    defined = np.isfinite(columns)
    filled = np.where(defined, columns, 0.0)
    rng = np.random.default_rng(seed)
    with blas_single_thread():  # the products' order of sums, as bootstrap_cis fixes it
        means = [resample_means(rng, min(256, samples - start), filled, defined) for start in range(0, samples, 256)]
    means = np.vstack(means)
    tail = (1 - confidence) / 2 * 100
    found = []
    for column in range(width):
        count = int(defined[:, column].sum())
        if count == 0:
            found.append(MeanWithCI(float("nan"), float("nan"), float("nan"), 0))
            continue
        values = columns[defined[:, column], column]
        # the resamples' means lie within the values on paper; their rounding is held to it
        low, high = np.clip(np.nanpercentile(means[:, column], [tail, 100 - tail]), values.min(), values.max())
        mean = min(max(values.mean(), values.min()), values.max())
        found.append(MeanWithCI(float(mean), float(low), float(high), count))
    return found


def resample_means(rng: np.random.Generator, count: int, filled: np.ndarray, defined: np.ndarray) -> np.ndarray:
    queries = len(filled)
    picks = rng.integers(0, queries, size=(count, queries)) + queries * np.arange(count)[:, None]
    weights = np.bincount(picks.ravel(), minlength=count * queries).reshape(count, queries).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ filled) / (weights @ defined)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_bootstrap_counting_each_pattern_of_defined_queries_once_equals_the_plain_product(seed):
    rng = np.random.default_rng(seed)
    queries = int(rng.integers(20, 700))
    matrix = rng.random((queries, 12))
    empty = rng.random(queries) < 0.15
    matrix[empty, :5] = np.nan  # five columns share one pattern (a system's ranking metrics)
    matrix[rng.random(queries) < 0.3, 5] = np.nan  # a label metric: a pattern of its own
    matrix[:, 6] = np.nan  # defined nowhere
    matrix[:, 7] = matrix[:, 0]  # a column equal to another
    matrix[:, 8:][rng.random((queries, 4)) < 0.05] = np.nan
    samples = int(rng.integers(20, 700))  # any count, also past one chunk of 256
    found = bootstrap_cis(matrix, 0.95, samples=samples, seed=seed)
    expected = plain_bootstrap(matrix, 0.95, samples, seed)
    assert same_records([asdict(ci) for ci in found], [asdict(ci) for ci in expected])
    assert found[6].queries == 0 and found[0] != found[5]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_comparing_columns_equals_comparing_mappings(seed):
    rng = np.random.default_rng(seed)
    ids = [f"q{i}" for i in rng.permutation(80)]  # not in sorted order: the pairing sorts them as compare_systems
    values = {f"s{i}": np.where(rng.random(80) < 0.1, np.nan, rng.random(80)) for i in range(4)}
    values["s3"] = values["s1"].copy()  # identical systems: p = 1
    query_ids = {name: tuple(ids) for name in values}
    mappings = {name: dict(zip(ids, v)) for name, v in values.items()}
    fast = compare_columns(query_ids, values, samples=300, seed=seed)
    plain = compare_systems(mappings, samples=300, seed=seed)
    assert same_records([asdict(c) for c in fast], [asdict(c) for c in plain])
    # Systems on different queries are paired through the mappings: the same answer as compare_systems.
    query_ids["s2"] = tuple(ids[::-1])
    mappings["s2"] = dict(zip(ids[::-1], values["s2"]))
    assert same_records([asdict(c) for c in compare_columns(query_ids, values, samples=300, seed=seed)],
                        [asdict(c) for c in compare_systems(mappings, samples=300, seed=seed)])



@pytest.mark.parametrize("seed", [0, 1, 2])
def test_randomization_tests_equal_the_plain_count_over_sign_chunks(seed):
    """Independent definition: the sign matrix drawn in chunks of 512 rows, each chunk a fresh float array whose
    product with one pair's differences is compared with the observed mean difference less its margin; samples
    past several chunks (the last one shorter) and NaNs making pairs of different lengths."""
    rng = np.random.default_rng(seed)
    queries = int(rng.integers(30, 400))
    pairs = [(np.where(rng.random(queries) < 0.1, np.nan, rng.random(queries)), rng.random(queries) + shift)
             for shift in (0.0, 0.01, -0.03, 0.0)]
    samples = int(rng.integers(1030, 1600))
    expected = []
    for a, b in pairs:
        keep = np.isfinite(a) & np.isfinite(b)
        differences = a[keep] - b[keep]
        observed = abs(differences.mean()) - min(1e-12, 1e-9 * np.abs(differences).mean())
        draw = np.random.default_rng(seed)
        extreme = 0
        for start in range(0, samples, 512):
            signs = draw.integers(0, 2, size=(min(512, samples - start), len(differences)), dtype=np.int8) * 2 - 1
            extreme += int((np.abs(signs.astype(np.float64) @ differences[:, None]) / len(differences)
                            >= observed).sum())
        expected.append((1 + extreme) / (1 + samples))
    assert compare.randomization_tests(pairs, samples=samples, seed=seed) == expected

def plain_cag_windows(relevances: np.ndarray, width: int, window: int) -> np.ndarray:
    """Independent definition: NumPy's accumulate over the ranks, a fresh array per step."""
    padded = np.zeros((len(relevances), width))
    shown = min(width, relevances.shape[1])
    padded[:, :shown] = relevances[:, :shown]
    rel = np.ascontiguousarray(padded.T)
    best = np.maximum.accumulate(rel, axis=0)
    adjusted = np.divide(rel * rel, best, out=np.zeros_like(rel), where=best > 0)
    cumulative = np.cumsum(adjusted, axis=0)
    windows = cumulative.copy()
    windows[window:] -= cumulative[:max(0, width - window)]
    return windows


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cag_windows_in_place_equal_numpy_accumulate(seed):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        relevances = rng.random((int(rng.integers(0, 40)), int(rng.integers(1, 30))))
        relevances[relevances < 0.5] = 0.0
        if rng.random() < 0.3:
            relevances = -relevances  # no positive value: every window 0
        for width in (1, 9, 10, 11, relevances.shape[1], relevances.shape[1] + 9):
            for window in (1, 3, 10):
                assert np.array_equal(metrics.cag_windows(relevances, width, window),
                                      plain_cag_windows(relevances, width, window))


def assert_identical(moved: Results, fresh: Results) -> None:
    for system in fresh.systems:
        assert np.array_equal(moved.values(system), fresh.values(system), equal_nan=True), system
    left, right = moved.table(), fresh.table()
    assert left.equals(right)
    for metric in ("nn-CUI@10", "CUI@10"):
        assert same_records(moved.compare(metric).to_dict("records"), fresh.compare(metric).to_dict("records"))


def evaluator_and_runs(seed: int):
    concepts, kg = random_world(seed, images=80)
    evaluator = Evaluator(concepts, kg)
    rng = np.random.default_rng(seed)
    runs = [evaluator.relevance_ranking(parse_measure("iou"), 12, name="by IoU")]
    for name in ("a", "b"):
        documents = np.array([rng.permutation([c for c in range(80) if c != q])[:12] for q in range(80)])
        runs.append(AlignedRun.over_pool(name, documents))
    return evaluator, runs


@pytest.mark.parametrize("seed", [0, 1])
def test_moving_alpha_rescored_from_kept_codes_equals_a_fresh_evaluator(seed):
    evaluator, runs = evaluator_and_runs(seed)
    for alpha in (0.5, 0.7, 0.2):
        relevance = Relevance.of(alpha, 1)
        moving = runs + [evaluator.relevance_ranking(relevance.nn_iou, 12, name="by nn-IoU")]
        moved = evaluate_runs(evaluator, moving, relevance=relevance, scoring=None)
        fresh_evaluator, fresh_runs = evaluator_and_runs(seed)
        fresh_runs.append(fresh_evaluator.relevance_ranking(relevance.nn_iou, 12, name="by nn-IoU"))
        fresh = evaluate_runs(fresh_evaluator, fresh_runs, relevance=relevance, scoring=None)
        assert moved.metrics == fresh.metrics
        assert_identical(moved, fresh)


@pytest.mark.slow
def test_moving_alpha_on_the_demo_equals_a_fresh_evaluator():
    from dashboard.computed import kg_of

    ws = load_demo()

    def evaluate(evaluator: Evaluator, alpha: float) -> Results:
        relevance = Relevance.of(alpha, 1)
        runs = [run for _, run in ws.runs.values()] + [evaluator.relevance_ranking(relevance.nn_iou, 30)]
        return evaluate_runs(evaluator, runs, relevance=relevance)

    kg = kg_of(ws)
    moving = Evaluator(ws.concepts, kg, "undirected", ws.resolved_labels())
    for alpha in (0.5, 0.8, 0.3):
        moved = evaluate(moving, alpha)
        assert_identical(moved, evaluate(Evaluator(ws.concepts, kg, "undirected", ws.resolved_labels()), alpha))


def test_sessions_asking_for_comparisons_at_once_compute_them_once(monkeypatch):
    evaluator, runs = evaluator_and_runs(3)
    results = evaluate_runs(evaluator, runs)
    calls, gate = [], threading.Event()
    plain = compare_columns

    def counted(*args, **kwargs):
        calls.append(1)
        gate.wait(5)
        return plain(*args, **kwargs)

    monkeypatch.setattr("evalcore.evaluation.results.compare_columns", counted)
    found = []
    threads = [threading.Thread(target=lambda: found.append(results.comparisons("nn-CUI@10"))) for _ in range(4)]
    for thread in threads:
        thread.start()
    gate.set()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and len(found) == 4 and all(f == found[0] for f in found)


def test_the_dashboard_evaluation_is_one_shared_read_only_result():
    from dashboard import computed
    from dashboard.sidebar import Settings
    from evalcore.relevance.measures import measure_spec

    ws = load_demo()
    relevance = measure_spec("nn-iou", alpha=0.6, n=1)
    settings = Settings(relevance, relevance, "undirected", (5, 10), "linear")
    first = computed.evaluation(ws, tuple(ws.runs), (), settings)
    again = computed.evaluation(ws, tuple(ws.runs), (), settings)
    assert again is first  # read back, not recomputed nor unpickled
    values = first.results.metric_values(first.systems[0], "nn-CUI@10")
    with pytest.raises(ValueError):
        values[0] = 1.0
    assert sys.getsizeof(first.results) > values.nbytes * len(first.metrics)  # the kept store counts them
    pairs = first.comparisons("nn-CUI@10")
    assert pairs == first.results.comparisons("nn-CUI@10")
    assert same_records([asdict(p) for p in pairs], first.results.compare("nn-CUI@10").to_dict("records"))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_metrics_at_every_cutoff_read_from_shared_arrays_equal_the_batch_functions(seed):
    """MAP, AP, R, Prec and ERR at several K (in any order, K past the lists' depth too) read the first K columns
    of one array per measure; each equals its batch function computed afresh at that K, bit for bit."""
    rng = np.random.default_rng(seed)
    queries, depth = int(rng.integers(1, 300)), int(rng.integers(1, 40))
    relevance = np.round(rng.random((queries, depth)) * (rng.random((queries, depth)) < 0.7), 1)  # ties and zeros
    relevance[rng.random(queries) < 0.2, -max(1, depth // 3):] = 0.0  # short lists, padded with 0
    ideal = np.sort(relevance, axis=1)[:, ::-1][:, :int(rng.integers(1, 35))]
    pool = rng.integers(0, 5, queries)
    inputs = metrics.MetricInputs(relevance={"nn-iou": relevance}, ideal={"nn-iou": ideal},
                                  relevant_in_pool={"nn-iou": pool}, label_matches={}, label_present={},
                                  threshold=float(rng.choice([0.3, 0.5])), gain="linear")
    relevant = relevance >= inputs.threshold
    for k in rng.permutation([1, 2, 5, 10, 30, 45])[:int(rng.integers(2, 7))]:
        k = int(k)
        plain = {"MAP-min": metrics.average_precision_batch(relevant, k, pool),
                 "MAP": metrics.trec_average_precision_batch(relevant, k, pool),
                 "R": metrics.recall_batch(relevant, k, pool), "Prec": metrics.precision_batch(relevant, k),
                 "ERR": metrics.err_batch(relevance, k)}
        for family, expected in plain.items():
            found = metrics.parse_metric(f"nn-{family}@{k}").compute(inputs)
            assert np.array_equal(found, expected, equal_nan=True), (family, k)
    assert inputs.unit_relevance("nn-iou") is relevance  # no scale: read as it is, not copied


def test_relevance_of_retrieved_items_equals_the_pool_matrix_for_full_and_partial_runs():
    """The relevance of a run's items, looked up from kept codes (a run retrieving every item written in place, one
    with gaps scattered, one with its queries out of order), equals the pool's relevance matrix read at the items,
    0 at gaps."""
    evaluator, runs = evaluator_and_runs(4)
    gappy = runs[1].documents.copy()
    gappy[::3, -4:] = -1  # shorter lists
    gappy[5, 2] = -2  # an ID without a concept set
    runs.append(AlignedRun("gaps", runs[1].query_rows, gappy, runs[1].counts))
    shuffled = np.random.default_rng(4).permutation(len(gappy))  # queries out of order: pairs sorted by query first
    runs.append(AlignedRun("shuffled", runs[1].query_rows[shuffled], gappy[shuffled], runs[1].counts))
    for alpha in (0.5, 0.3):
        spec = Relevance.of(alpha, 1).nn_iou
        matrix = evaluator.engine.relevance_by(spec)  # codes the pool: the runs' items are read from its codes
        assert evaluator.engine.pair_codes(spec, np.array([1, 0]), np.array([0, 1])) is not None
        for run in runs:
            valid = run.documents >= 0
            expected = np.where(valid, matrix[run.query_rows[:, None], np.maximum(run.documents, 0)], 0.0)
            found = evaluator.relevance_of(run, {"nn-iou": spec, "iou": Relevance.of(alpha, 1).spec_for("iou")})
            assert np.array_equal(found["nn-iou"], expected), run.name


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_intervals_of_every_column_at_once_equal_one_percentile_call_per_column(seed):
    """bootstrap_cis takes the percentiles of the columns whose every resample has a mean in one call, the others one
    at a time: either way each column's interval is np.nanpercentile of its own means (plain_bootstrap), with tied
    means, resamples that draw no defined query, columns without any value and columns sharing a pattern."""
    rng = np.random.default_rng(seed)
    queries, width = int(rng.integers(6, 30)), int(rng.integers(4, 40))
    matrix = np.round(rng.random((queries, width)), 1)  # few distinct values: many resamples' means tie
    for column in range(width // 2, width):  # defined at one to four queries: some resamples draw none of them
        matrix[rng.permutation(queries)[rng.integers(1, 5):], column] = np.nan
    matrix[:, rng.random(width) < 0.1] = np.nan  # columns without any value
    samples = int(rng.integers(100, 600))
    for confidence in ((0.95, 0.4) if seed % 2 else (0.9, 0.5)):  # the usual tails, and inner percentiles
        found = bootstrap_cis(matrix, confidence, samples=samples, seed=seed)
        assert same_records([asdict(ci) for ci in found],
                            [asdict(ci) for ci in plain_bootstrap(matrix, confidence, samples, seed)]), confidence


def test_bootstrap_of_columns_with_resamples_lacking_a_defined_query_equals_the_plain_product():
    rng = np.random.default_rng(9)
    matrix = rng.random((30, 6))
    matrix[2:, 0] = np.nan  # defined at two queries: many resamples draw neither (a NaN mean)
    matrix[1:, 1] = np.nan
    found = bootstrap_cis(matrix, 0.9, samples=300, seed=4)
    assert all(same_records([asdict(f)], [asdict(e)]) for f, e in zip(found, plain_bootstrap(matrix, 0.9, 300, 4)))
    assert found[0].queries == 2 and found[1].queries == 1


@pytest.mark.parametrize("seed", [0, 5])
def test_runs_scored_on_several_threads_equal_runs_scored_one_after_another(seed):
    from evalcore.evaluation.options import Compute

    concepts, kg = random_world(seed, images=70)
    relevance = Relevance.of(0.6, 1)
    found = []
    for threads in (1, 2, 3):
        evaluator = Evaluator(concepts, kg, compute=Compute(threads=threads))
        rng = np.random.default_rng(seed)
        runs = [AlignedRun.over_pool(name, np.array([rng.permutation([c for c in range(70) if c != q])[:15]
                                                     for q in range(70)])) for name in "abcde"]
        runs.append(evaluator.relevance_ranking(relevance.nn_iou, 15))
        found.append(evaluate_runs(evaluator, runs, relevance=relevance))
        if threads == 2:  # the caller's choice of threads (the ablation grid scores on one)
            one = Results(evaluator.evaluate(runs, found[-1].metrics, relevance, threads=1), draws=evaluator.draws)
            assert_identical(one, found[-1])
    for other in found[1:]:
        assert other.systems == found[0].systems
        assert_identical(other, found[0])


def test_comparisons_started_beside_the_page_are_computed_once_and_read_by_it(monkeypatch):
    from dashboard import computed
    from dashboard.sidebar import Settings
    from evalcore.relevance.measures import measure_spec

    ws = load_demo()
    relevance = measure_spec("nn-iou", alpha=0.45, n=1)
    result = computed.evaluation(ws, tuple(ws.runs), (), Settings(relevance, relevance, "undirected", (5, 10),
                                                                  "linear"))
    calls = []
    plain = compare_columns
    monkeypatch.setattr("evalcore.evaluation.results.compare_columns", lambda *a, **k: calls.append(1) or plain(*a, **k))
    computed.start_comparisons(result, "nn-CUI@5")
    pairs = result.comparisons("nn-CUI@5")
    assert calls == [1]
    per_system = result.results.evaluation.systems
    expected = plain({s: per_system[s].query_ids for s in result.systems},
                     {s: result.results.metric_values(s, "nn-CUI@5") for s in result.systems},
                     samples=result.results.statistics.randomization_samples, seed=0)
    assert same_records([asdict(p) for p in pairs], [asdict(p) for p in expected])


def test_the_summary_is_computed_when_first_asked_for_and_equals_the_results_table():
    from dashboard import computed
    from dashboard.sidebar import Settings
    from evalcore.relevance.measures import measure_spec

    ws = load_demo()
    relevance = measure_spec("nn-iou", alpha=0.35, n=1)
    result = computed.evaluation(ws, tuple(ws.runs), (), Settings(relevance, relevance, "undirected", (5, 10),
                                                                  "linear"))
    assert "_table" not in vars(result.results)  # an evaluation alone (the Per-query page's) draws no resamples
    computed.start_comparisons(result, "nn-CUI@10")
    summary = computed.summary_of(result)
    expected = result.results.table().rename(columns={"ci_low": "low", "ci_high": "high"})
    assert summary.equals(expected) and list(summary.columns) == ["system", "metric", "mean", "low", "high", "queries"]


def test_scoring_threads_must_be_a_whole_number_of_at_least_one():
    from evalcore.errors import ParameterError

    evaluator, runs = evaluator_and_runs(2)
    for threads in (0, 1.5, True):
        with pytest.raises(ParameterError, match="threads"):
            evaluator.evaluate(runs, ["CUI@5"], threads=threads)
