"""Paired effect sizes (mean difference, Cohen's d_z, bootstrap intervals), the one-way repeated-measures ANOVA and
Tukey's HSD on its residual mean square (issue 67): hand-worked numbers, invariants on seeded random data, and
scipy, a least-squares fit and statsmodels' AnovaRM as oracles."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalcore.stats.compare import bootstrap_cis, bootstrap_weights, compare_columns
from evalcore.stats.effects import (
    ANOVA_COLUMNS,
    EFFECT_COLUMNS,
    TUKEY_COLUMNS,
    anova_tables,
    cohens_dz,
    complete_queries,
    effect_size_table,
    paired_effect_sizes,
    percentiles_with_infinities,
    rm_anova,
    tukey_hsd,
)

HAND = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 3.0], [3.0, 3.0, 6.0]])  # queries x systems


def _columns(matrix: np.ndarray, names: str = "ABCDEFGH") -> tuple[dict, dict]:
    """A queries x systems matrix as compare_columns' inputs (every system on queries q00, q01, ...)."""
    ids = tuple(f"q{i:02d}" for i in range(len(matrix)))
    return ({name: ids for name in names[:matrix.shape[1]]},
            {name: matrix[:, j] for j, name in enumerate(names[:matrix.shape[1]])})


def _random_matrix(rng: np.random.Generator, queries: int, systems: int) -> np.ndarray:
    """Metric-like values in [0, 1]: a query's difficulty, a system's strength, noise, some ties at 0 and 1."""
    difficulty = rng.random(queries)[:, None]
    strength = rng.normal(0, 0.1, systems)[None, :]
    return np.clip(difficulty + strength + rng.normal(0, 0.15, (queries, systems)), 0, 1)


# --- hand-worked numbers -------------------------------------------------------------------------------------------


def test_cohens_dz_by_hand_and_its_zero_variance_cases():
    assert cohens_dz(np.array([1.0, 2.0, 3.0])) == 2.0  # mean 2, sd 1
    assert cohens_dz(np.array([0.1, 0.2, 0.3, 0.4])) == pytest.approx(0.25 / np.sqrt(0.05 / 3), rel=1e-14)
    assert cohens_dz(np.zeros(5)) == 0.0  # identical systems
    assert cohens_dz(np.full(4, 0.2)) == np.inf and cohens_dz(np.full(4, -0.2)) == -np.inf
    # 0.2 up to rounding (0.9 - 0.7 = 0.20000000000000007): infinite, as paired_t_test's p = 0, not 1e15
    assert cohens_dz(np.array([0.9, 0.7, 0.5]) - np.array([0.7, 0.5, 0.3])) == np.inf
    assert np.isnan(cohens_dz(np.array([0.3]))) and np.isnan(cohens_dz(np.array([])))


def test_the_anova_by_hand():
    """Column means 2, 3, 4, row means 2, 3, 4, grand mean 3: SS_systems = 3 (1 + 0 + 1) = 6, SS_queries = 6,
    SS_total = 16, SS_error = 4 on (3 - 1)(3 - 1) = 4 df, MSE = 1, F = (6 / 2) / 1 = 3; at df (2, 4) the F upper tail
    is (1 + 2F/4)^-2 = 0.16."""
    anova = rm_anova(HAND)
    assert (anova.systems, anova.queries, anova.df_systems, anova.df_error) == (3, 3, 2, 4)
    assert (anova.ss_systems, anova.ss_queries, anova.ss_error, anova.mse, anova.f) == (6.0, 6.0, 4.0, 1.0, 3.0)
    assert anova.p == pytest.approx(0.16, rel=1e-12)
    assert anova.partial_eta_squared == 6 / 10 and anova.generalized_eta_squared == 6 / 16


def test_tukey_by_hand():
    """sqrt(MSE / n) = sqrt(1/3): the differences -1, -2, -1 give q = sqrt(3), 2 sqrt(3), sqrt(3); the intervals are
    the difference +- q_crit(0.95; 3, 4) sqrt(1/3), q_crit = 5.04 (the studentized range tables)."""
    pairs = tukey_hsd(HAND, ["A", "B", "C"])
    assert [(p.system_a, p.system_b, p.queries) for p in pairs] == [("A", "B", 3), ("A", "C", 3), ("B", "C", 3)]
    assert [p.mean_difference for p in pairs] == [-1.0, -2.0, -1.0]
    assert [p.standardized_difference for p in pairs] == [-1.0, -2.0, -1.0]  # Sakai's ES: difference / sqrt(MSE)
    assert [p.q for p in pairs] == pytest.approx([np.sqrt(3), 2 * np.sqrt(3), np.sqrt(3)], rel=1e-14)
    q_crit = stats.studentized_range.ppf(0.95, 3, 4)
    assert q_crit == pytest.approx(5.04, abs=0.005)
    for pair in pairs:
        assert pair.p_tukey == pytest.approx(stats.studentized_range.sf(pair.q, 3, 4), rel=1e-12)
        assert (pair.low, pair.high) == pytest.approx((pair.mean_difference - q_crit / np.sqrt(3),
                                                        pair.mean_difference + q_crit / np.sqrt(3)), rel=1e-12)
    assert [round(p.p_tukey, 3) for p in pairs] == [0.501, 0.143, 0.501]  # scipy's studentized range at 4 df
    tables = anova_tables(*_columns(HAND))
    assert list(tables.summary.columns) == ANOVA_COLUMNS and list(tables.tukey.columns) == TUKEY_COLUMNS
    assert tables.summary.f.tolist() == [3.0] and tables.tukey.q.tolist() == [p.q for p in pairs]


def test_effect_sizes_by_hand():
    """A - B = 0.1, 0.2, 0.3, 0.4: mean 0.25, sd sqrt(0.05 / 3) = 0.1291, d_z = 1.9365; identical systems have
    d_z = 0 with a zero-width interval, a constant difference an infinite one."""
    ids = {name: ("q1", "q2", "q3", "q4") for name in "ABC"}
    values = {"A": np.array([0.5, 0.6, 0.9, 0.8]), "B": np.array([0.4, 0.4, 0.6, 0.4]),
              "C": np.array([0.4, 0.4, 0.6, 0.4])}
    table = effect_size_table(ids, values, samples=500)
    assert list(table.columns) == EFFECT_COLUMNS
    assert table[["system_a", "system_b", "queries"]].values.tolist() == [["A", "B", 4], ["A", "C", 4], ["B", "C", 4]]
    assert table.mean_difference.tolist() == pytest.approx([0.25, 0.25, 0.0], abs=1e-15)
    assert table.d_z[0] == pytest.approx(1.9364916731037085, rel=1e-12)
    assert table.loc[2, ["d_z", "d_z_low", "d_z_high", "difference_low", "difference_high"]].tolist() == [0.0] * 5
    assert table.loc[0, "difference_low"] <= 0.25 <= table.loc[0, "difference_high"]
    assert 0 < table.loc[0, "d_z_low"] <= table.loc[0, "d_z_high"]
    constant = paired_effect_sizes({"A": ("a", "b", "c"), "B": ("a", "b", "c")},
                                   {"A": np.array([0.9, 0.7, 0.5]), "B": np.array([0.7, 0.5, 0.3])}, samples=300)[0]
    assert (constant.d_z, constant.d_z_low, constant.d_z_high) == (np.inf, np.inf, np.inf)
    assert constant.mean_difference == pytest.approx(0.2, rel=1e-14)


def test_effect_sizes_pair_the_queries_as_compare_does():
    """A query one system left undefined (NaN) or never ran leaves that pair only; the ANOVA's complete blocks leave
    it out for every system."""
    ids = {"A": ("q3", "q1", "q2", "q4"), "B": ("q1", "q2", "q3", "q4"), "C": ("q1", "q2", "q3")}
    values = {"A": np.array([0.3, 0.9, 0.5, 0.1]), "B": np.array([0.2, np.nan, 0.4, 0.0]),
              "C": np.array([0.8, 0.1, 0.6])}
    effects = paired_effect_sizes(ids, values, samples=200)
    compared = compare_columns(ids, values, samples=200)
    assert [(e.system_a, e.system_b, e.queries) for e in effects] == [(c.system_a, c.system_b, c.queries)
                                                                       for c in compared] == [
        ("A", "B", 3), ("A", "C", 3), ("B", "C", 2)]
    assert [e.mean_difference for e in effects] == pytest.approx([c.mean_difference for c in compared], rel=1e-14)
    assert complete_queries(ids, values) == (("q1", "q3"), pytest.approx(np.array([[0.9, 0.2, 0.8], [0.3, 0.4, 0.6]])))
    assert anova_tables(ids, values).summary.queries.tolist() == [2]


def test_too_few_queries_or_systems_are_undefined_not_errors():
    one = rm_anova(np.array([[0.5, 0.7]]))
    assert np.isnan(one.f) and np.isnan(one.p) and one.queries == 1
    assert np.isnan(rm_anova(np.ones((5, 1))).f)
    assert tukey_hsd(np.ones((5, 1)), ["A"]) == []
    empty = paired_effect_sizes({"A": ("a",), "B": ("b",)}, {"A": np.array([0.5]), "B": np.array([0.5])}, samples=100)
    assert empty[0].queries == 0 and all(np.isnan(getattr(empty[0], f)) for f in EFFECT_COLUMNS[3:])
    summary = anova_tables({"A": ("a",), "B": ("b",)}, {"A": np.array([0.5]), "B": np.array([0.5])}).summary
    assert summary.queries.tolist() == [0] and np.isnan(summary.f[0])


def test_zero_residuals_are_an_infinite_f_and_identical_systems_no_difference():
    rng = np.random.default_rng(67)
    queries = rng.random(20)
    identical = np.column_stack([queries, queries, queries])
    anova = rm_anova(identical)
    assert (anova.f, anova.p, anova.ss_systems) == (0.0, 1.0, 0.0)
    assert [(p.q, p.p_tukey, p.mean_difference) for p in tukey_hsd(identical, "ABC")] == [(0.0, 1.0, 0.0)] * 3
    shifted = queries[:, None] + np.array([0.0, 0.1, 0.3])  # each system another by a constant on every query
    anova = rm_anova(shifted)
    assert (anova.f, anova.p, anova.ss_error, anova.mse) == (np.inf, 0.0, 0.0, 0.0)
    for pair in tukey_hsd(shifted, "ABC"):
        assert (pair.q, pair.p_tukey, pair.standardized_difference) == (np.inf, 0.0, np.copysign(np.inf, pair.mean_difference))
        assert pair.low == pair.mean_difference == pair.high


def test_percentiles_with_infinities_are_numpys_where_finite_and_their_limit_beside_an_infinity():
    rng = np.random.default_rng(3)
    finite = rng.random(101)
    assert percentiles_with_infinities(finite, [2.5, 50, 97.5]).tolist() == np.percentile(finite, [2.5, 50, 97.5]).tolist()
    values = np.array([-np.inf, 1.0, 2.0, 3.0, np.inf])
    assert percentiles_with_infinities(values, [0, 10, 25, 50, 75, 90, 100]).tolist() == [
        -np.inf, -np.inf, 1.0, 2.0, 3.0, np.inf, np.inf]
    assert np.isnan(percentiles_with_infinities(np.array([-np.inf, np.inf]), [50])[0])


# --- invariants on seeded random data ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_swapping_two_systems_flips_every_sign(seed):
    rng = np.random.default_rng(seed)
    matrix = _random_matrix(rng, int(rng.integers(5, 80)), 3)
    forward = effect_size_table(*_columns(matrix), samples=300, seed=seed)
    backward = effect_size_table(*_columns(matrix[:, ::-1], "CBA"), samples=300, seed=seed)
    # pairs (A, B), (A, C), (B, C) against (C, B), (C, A), (B, A)
    backward = backward.iloc[[2, 1, 0]].reset_index(drop=True)
    assert (backward.system_a.tolist(), backward.system_b.tolist()) == (forward.system_b.tolist(), forward.system_a.tolist())
    for column, mirrored in [("mean_difference", "mean_difference"), ("d_z", "d_z"), ("difference_low", "difference_high"),
                             ("d_z_low", "d_z_high")]:
        assert (-backward[mirrored]).tolist() == pytest.approx(forward[column].tolist(), rel=1e-12, abs=1e-15)
    tukey = tukey_hsd(matrix, "ABC")
    swapped = tukey_hsd(matrix[:, [1, 0, 2]], "BAC")
    assert swapped[0].mean_difference == -tukey[0].mean_difference
    assert (swapped[0].low, swapped[0].high) == pytest.approx((-tukey[0].high, -tukey[0].low), rel=1e-12)
    assert (swapped[0].q, swapped[0].p_tukey) == pytest.approx((tukey[0].q, tukey[0].p_tukey), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_a_constant_per_query_changes_neither_the_anova_nor_tukey(seed):
    """Queries are the subjects: how hard a query is for every system is taken out (SS_queries), so adding a
    constant to a query's values leaves F, p, MSE and every q as they were; so do reordering the systems, and
    scaling every value (MSE and the differences scale together)."""
    rng = np.random.default_rng(100 + seed)
    systems = int(rng.integers(2, 5))
    matrix = _random_matrix(rng, int(rng.integers(4, 60)), systems)
    anova = rm_anova(matrix)
    shifted = matrix + rng.normal(0, 5, (len(matrix), 1))
    again = rm_anova(shifted)
    assert (again.f, again.p, again.mse, again.ss_systems) == pytest.approx((anova.f, anova.p, anova.mse,
                                                                              anova.ss_systems), rel=1e-9)
    scaled = rm_anova(3.5 * matrix)
    assert (scaled.f, scaled.p, scaled.mse) == pytest.approx((anova.f, anova.p, 3.5 ** 2 * anova.mse), rel=1e-9)
    order = rng.permutation(systems)
    assert (rm_anova(matrix[:, order]).f, rm_anova(matrix[:, order]).p) == pytest.approx((anova.f, anova.p), rel=1e-12)
    names = "ABCD"[:systems]
    found = [(p.mean_difference, p.low, p.high, p.q, p.p_tukey) for p in tukey_hsd(shifted, names)]
    assert found == [pytest.approx(row, rel=1e-9, abs=1e-12)
                     for row in [(p.mean_difference, p.low, p.high, p.q, p.p_tukey) for p in tukey_hsd(matrix, names)]]


def test_the_intervals_are_seeded_and_shared_with_the_projects_bootstrap():
    rng = np.random.default_rng(7)
    matrix = _random_matrix(rng, 40, 3)
    ids, values = _columns(matrix)
    first, again = (effect_size_table(ids, values, samples=400, seed=5) for _ in range(2))
    pd.testing.assert_frame_equal(first, again, check_exact=True)
    assert not effect_size_table(ids, values, samples=400, seed=6).equals(first)
    # The mean difference's interval is the project's interval of the differences' mean (the same resamples; the
    # pairs' columns go through one product, which BLAS may sum in another order than one column's).
    for row, (a, b) in zip(first.itertuples(), combinations(range(3), 2)):
        expected = bootstrap_cis((matrix[:, a] - matrix[:, b])[:, None], samples=400, seed=5)[0]
        assert row.mean_difference == expected.mean
        assert (row.difference_low, row.difference_high) == pytest.approx((expected.low, expected.high), rel=1e-12)


# --- oracles -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(3))
def test_dz_is_scipys_paired_t_over_root_n_and_its_interval_the_resampled_one(seed):
    """d_z = t / sqrt(n) with scipy's ttest_rel; its interval: the percentiles of d_z recomputed from each resample
    written out query by query (np.repeat of the drawn counts, numpy's std), against the weighted sums."""
    rng = np.random.default_rng(seed)
    queries = int(rng.integers(8, 60))
    a, b = rng.random(queries), rng.random(queries) * rng.choice([0.0, 1.0], queries)  # ties: many differences equal
    effect = paired_effect_sizes({"A": tuple(map(str, range(queries))), "B": tuple(map(str, range(queries)))},
                                 {"A": a, "B": b}, samples=300, seed=seed, confidence=0.9)[0]
    assert effect.d_z == pytest.approx(stats.ttest_rel(a, b).statistic / np.sqrt(queries), rel=1e-12)
    order = np.argsort([str(i) for i in range(queries)], kind="stable")  # the pairs are read in the order of the IDs
    differences = (a - b)[order]
    drawn = []
    for chunk in bootstrap_weights(queries, 300, seed):
        for counts in chunk:
            sample = np.repeat(differences, counts.astype(np.int64))
            drawn.append(sample.mean() / sample.std(ddof=1))
    assert (effect.d_z_low, effect.d_z_high) == pytest.approx(tuple(np.percentile(drawn, [5, 95])), rel=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_the_anova_against_scipy_and_a_least_squares_fit(seed):
    """SS_error is the residual of the additive model value ~ query + system (numpy's least squares on dummy
    columns); F's p-value is scipy's F upper tail. With two systems F is the paired t statistic squared and the
    ANOVA's and Tukey's p-values are the paired t-test's."""
    rng = np.random.default_rng(seed)
    queries, systems = int(rng.integers(3, 40)), int(rng.integers(2, 6))
    matrix = _random_matrix(rng, queries, systems)
    rows, cols = np.indices(matrix.shape)
    design = np.column_stack([np.eye(queries)[rows.ravel()], np.eye(systems)[cols.ravel()][:, 1:]])
    fitted = design @ np.linalg.lstsq(design, matrix.ravel(), rcond=None)[0]
    ss_error = float(((matrix.ravel() - fitted) ** 2).sum())
    ss_systems = queries * float(((matrix.mean(axis=0) - matrix.mean()) ** 2).sum())
    df1, df2 = systems - 1, (systems - 1) * (queries - 1)
    f = ss_systems / df1 / (ss_error / df2)
    anova = rm_anova(matrix)
    assert (anova.ss_error, anova.f, anova.p) == pytest.approx((ss_error, f, stats.f.sf(f, df1, df2)), rel=1e-9)
    pair = rm_anova(matrix[:, :2])
    paired = stats.ttest_rel(matrix[:, 0], matrix[:, 1])
    assert (pair.f, pair.p) == pytest.approx((paired.statistic ** 2, paired.pvalue), rel=1e-9)
    assert tukey_hsd(matrix[:, :2], "AB")[0].p_tukey == pytest.approx(paired.pvalue, rel=1e-6)


def _tukey_by_hand(matrix: np.ndarray, confidence: float) -> list[tuple[float, float, float, float, float]]:
    """Tukey's HSD for a randomised block design written out: the interaction residual's mean square by loops, then
    q, p and the simultaneous interval of every pair."""
    n, k = matrix.shape
    grand = sum(sum(row) for row in matrix) / (n * k)
    row_means = [sum(row) / k for row in matrix]
    column_means = [sum(matrix[i][j] for i in range(n)) / n for j in range(k)]
    residual = sum((matrix[i][j] - row_means[i] - column_means[j] + grand) ** 2 for i in range(n) for j in range(k))
    df = (n - 1) * (k - 1)
    standard_error = (residual / df / n) ** 0.5
    critical = stats.studentized_range.ppf(confidence, k, df)
    found = []
    for a, b in combinations(range(k), 2):
        difference = column_means[a] - column_means[b]
        q = abs(difference) / standard_error
        found.append((difference, difference - critical * standard_error, difference + critical * standard_error, q,
                      stats.studentized_range.sf(q, k, df)))
    return found


@pytest.mark.parametrize("seed", range(3))
def test_tukey_against_a_straightforward_computation(seed):
    rng = np.random.default_rng(200 + seed)
    matrix = _random_matrix(rng, int(rng.integers(3, 30)), int(rng.integers(2, 5)))
    found = [(p.mean_difference, p.low, p.high, p.q, p.p_tukey) for p in tukey_hsd(matrix, "ABCD"[:matrix.shape[1]], 0.9)]
    expected = _tukey_by_hand(matrix, 0.9)
    for row, reference in zip(found, expected):
        assert row == pytest.approx(reference, rel=1e-9, abs=1e-15)


def test_tukey_differs_from_the_independent_groups_hsd_that_ranx_runs():
    """ranx's Tukey HSD calls scipy's tukey_hsd on the systems' scores as independent groups: its error keeps the
    queries' own spread, so on queries of very different difficulty it misses a difference the repeated-measures
    HSD finds."""
    rng = np.random.default_rng(67)
    difficulty = rng.random(50)[:, None]
    matrix = np.clip(difficulty + np.array([0.0, 0.05, 0.1]) + rng.normal(0, 0.03, (50, 3)), 0, 1.2)
    ours = tukey_hsd(matrix, "ABC")
    independent = stats.tukey_hsd(*matrix.T).pvalue
    assert ours[1].p_tukey < 1e-6 < 0.05 < independent[0, 2]


def test_the_anova_against_statsmodels_anovarm():
    anova_rm = pytest.importorskip("statsmodels.stats.anova").AnovaRM
    for seed in range(3):
        rng = np.random.default_rng(300 + seed)
        matrix = _random_matrix(rng, int(rng.integers(3, 40)), int(rng.integers(2, 6)))
        long = pd.DataFrame([(f"q{i}", f"s{j}", matrix[i, j]) for i in range(matrix.shape[0])
                             for j in range(matrix.shape[1])], columns=["query", "system", "value"])
        table = anova_rm(long, "value", "query", within=["system"]).fit().anova_table
        ours = rm_anova(matrix)
        assert table.loc["system", "F Value"] == pytest.approx(ours.f, rel=1e-9)
        assert table.loc["system", "Pr > F"] == pytest.approx(ours.p, rel=1e-9, abs=1e-300)
        assert (table.loc["system", "Num DF"], table.loc["system", "Den DF"]) == (ours.df_systems, ours.df_error)
