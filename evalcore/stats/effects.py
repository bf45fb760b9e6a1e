"""How large the differences between systems are, and one test over all of them (docs/DESIGN.md §3, "Comparing
systems"), beside the pairwise tests of :mod:`evalcore.stats.compare`:

- paired effect sizes per pair of systems: the mean per-query difference and Cohen's d_z, each with a percentile
  bootstrap interval over queries (:func:`paired_effect_sizes`, :func:`effect_size_table`);
- the one-way repeated-measures ANOVA over systems, queries as subjects (:func:`rm_anova`), and Tukey's HSD on its
  residual mean square, with simultaneous intervals (:func:`tukey_hsd`; both: :func:`anova_tables`).

They read per-query values as :func:`evalcore.stats.compare.compare_columns` does (system -> its queries' IDs and
their values, NaN = undefined) and give tidy tables, one row per pair in :func:`itertools.combinations` order
(``system_a - system_b``, as ``compare`` lists its pairs), that a page draws as they are and the CLI writes as JSON.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

import numpy as np
import pandas as pd

from evalcore.errors import ParameterError
from evalcore.kept import Kept
from evalcore.stats.compare import PRECISION_LOSS_EPSILONS, bootstrap_cis, bootstrap_weights, id_order
from evalcore.threads import blas_single_thread

EFFECT_COLUMNS = ["system_a", "system_b", "queries", "mean_difference", "difference_low", "difference_high", "d_z",
                  "d_z_low", "d_z_high"]
ANOVA_COLUMNS = ["systems", "queries", "f", "df_systems", "df_error", "p", "partial_eta_squared",
                 "generalized_eta_squared", "ss_systems", "ss_queries", "ss_error", "mse"]
TUKEY_COLUMNS = ["system_a", "system_b", "queries", "mean_difference", "low", "high", "q", "p_tukey",
                 "standardized_difference"]
_ROUNDING = PRECISION_LOSS_EPSILONS * np.finfo(np.float64).eps  # values this close (relative) are equal up to rounding


# --- paired effect sizes --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairEffect:
    """One pair's effect sizes on the queries both systems scored: the mean of ``a - b`` and Cohen's d_z, each with
    its percentile bootstrap interval."""

    system_a: str
    system_b: str
    queries: int
    mean_difference: float
    difference_low: float
    difference_high: float
    d_z: float
    d_z_low: float
    d_z_high: float


def cohens_dz(differences: np.ndarray) -> float:
    """Cohen's d_z of paired differences, ``d_z = mean(d) / sd(d)`` with the sample standard deviation
    (``ddof = 1``): the standardised mean difference of a paired design (Cohen 1988; Lakens 2013, "Calculating and
    reporting effect sizes", Frontiers in Psychology 4:863), which Sakai (2014, "Statistical reform in information
    retrieval?", SIGIR Forum 48(1)) recommends reporting beside a paired test. It equals the paired t statistic
    divided by ``sqrt(n)``. Undefined (NaN) below two differences. Where every difference is the same, ``sd = 0``,
    as :func:`~evalcore.stats.compare.paired_t_test` has it: 0 where every difference is 0 (identical systems),
    +-inf where they are one non-zero value up to rounding (each within 10 machine epsilons of their mean, relative
    to it; the mean difference then says how large it is).

    >>> cohens_dz(np.array([1.0, 2.0, 3.0]))  # mean 2, sd 1
    2.0
    >>> cohens_dz(np.zeros(4)), cohens_dz(np.array([0.9, 0.7]) - np.array([0.7, 0.5])), cohens_dz(np.array([0.5]))
    (0.0, inf, nan)
    """
    differences = np.asarray(differences, dtype=np.float64)
    if len(differences) < 2:
        return float("nan")
    if not differences.any():
        return 0.0
    mean = float(differences.mean())
    if np.abs(differences - mean).max() < _ROUNDING * abs(mean):
        return float(np.copysign(np.inf, mean))
    return mean / float(differences.std(ddof=1))


def paired_effect_sizes(query_ids: Mapping[str, Sequence[str]], values: Mapping[str, np.ndarray], *,
                        confidence: float = 0.95, samples: int, seed: int = 0,
                        draws: Kept | None = None) -> list[PairEffect]:
    """Every pair of systems on the queries both scored (finite values, read in the order of their IDs: the pairs
    of :func:`~evalcore.stats.compare.compare_columns`): the mean difference ``a - b`` and :func:`cohens_dz`, each
    with the percentile bootstrap interval over queries at ``confidence``, from ``samples`` resamples of the queries
    drawn with ``seed``. The resamples are :func:`~evalcore.stats.compare.bootstrap_cis`' (kept in ``draws``): the
    mean difference's interval is ``bootstrap_cis`` of the differences (the same numbers up to the rounding of the
    products), and d_z's the percentiles of d_z over the same resamples (a resample whose differences are all the
    same counts as :func:`cohens_dz` says: 0 or +-inf). The percentile interval was chosen over the noncentral-t
    one, which assumes normal differences, because per-query differences of a bounded metric are far from normal
    (many ties at 0), and because it is the interval of every mean the project reports; with few queries its
    coverage falls below the nominal level, as a percentile bootstrap's does.

    >>> ids = {"A": ("q1", "q2", "q3", "q4"), "B": ("q1", "q2", "q3", "q4")}
    >>> effect = paired_effect_sizes(ids, {"A": np.array([0.5, 0.6, 0.9, 0.8]), "B": np.array([0.4, 0.4, 0.6, 0.4])},
    ...                              samples=1000)[0]
    >>> round(effect.mean_difference, 4), round(effect.d_z, 4)  # d = 0.1, 0.2, 0.3, 0.4: mean 0.25, sd 0.1291
    (0.25, 1.9365)
    >>> effect.difference_low <= 0.25 <= effect.difference_high, 0 < effect.d_z_low < effect.d_z_high
    (True, True)
    """
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must lie in (0, 1), got {confidence}")
    pairs = list(combinations(query_ids, 2))
    differences = [a - b for a, b in _paired_columns(query_ids, values)]
    effects: dict[int, PairEffect] = {}
    # Pairs with as many queries share the resamples (they depend only on the queries' number and the seed).
    for length in sorted({len(d) for d in differences}):
        members = [i for i, d in enumerate(differences) if len(d) == length]
        stacked = np.column_stack([differences[i] for i in members])
        means = bootstrap_cis(stacked, confidence, samples=samples, seed=seed, draws=draws)
        bounds = _dz_bounds(stacked, confidence, samples, seed, draws)
        for position, i in enumerate(members):
            mean = means[position]
            effects[i] = PairEffect(*pairs[i], length, mean.mean, mean.low, mean.high, cohens_dz(differences[i]),
                                    float(bounds[0, position]), float(bounds[1, position]))
    return [effects[i] for i in range(len(pairs))]


def effect_size_table(query_ids: Mapping[str, Sequence[str]], values: Mapping[str, np.ndarray], *,
                      confidence: float = 0.95, samples: int, seed: int = 0, draws: Kept | None = None) -> pd.DataFrame:
    """:func:`paired_effect_sizes` as a table, one row per pair (columns :data:`EFFECT_COLUMNS`).

    >>> ids = {"A": ("q1", "q2", "q3"), "B": ("q1", "q2", "q3"), "C": ("q1", "q2", "q3")}
    >>> values = {"A": np.array([0.9, 0.8, 0.7]), "B": np.array([0.5, 0.6, 0.4]), "C": np.array([0.5, 0.6, 0.4])}
    >>> effect_size_table(ids, values, samples=200)[["system_a", "system_b", "mean_difference", "d_z"]].round(4)
      system_a system_b  mean_difference  d_z
    0        A        B              0.3  3.0
    1        A        C              0.3  3.0
    2        B        C              0.0  0.0
    """
    pairs = paired_effect_sizes(query_ids, values, confidence=confidence, samples=samples, seed=seed, draws=draws)
    return pd.DataFrame([asdict(pair) for pair in pairs], columns=EFFECT_COLUMNS)


def _dz_bounds(differences: np.ndarray, confidence: float, samples: int, seed: int, draws: Kept | None) -> np.ndarray:
    """The percentile bootstrap interval of :func:`cohens_dz` of each column (2 x columns), over the resamples of
    :func:`~evalcore.stats.compare.bootstrap_weights`; NaN below two queries or without resamples."""
    queries, width = differences.shape
    if queries < 2 or samples < 1:
        return np.full((2, width), np.nan)
    centre = differences.mean(axis=0)  # sums of squares about it lose less to rounding than raw second moments
    centred_squares = (differences - centre) ** 2
    bound = np.maximum(1e-6 * np.abs(differences - centre).max(axis=0), 1e-10 * np.abs(differences).max(axis=0)) ** 2
    drawn_dz = np.empty((samples, width))
    start = 0
    with blas_single_thread():  # as bootstrap_cis: the products' sums do not depend on the machine's cores
        for weights in bootstrap_weights(queries, samples, seed, draws):
            shift = weights @ differences / queries - centre
            variances = (weights @ centred_squares - queries * shift ** 2) / (queries - 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                chunk = (shift + centre) / np.sqrt(np.maximum(variances, 0.0))
            for column in range(width):
                # A resample whose differences are all the same (up to rounding) has a variance of rounding only, far
                # below this bound: only the resamples below it are looked at, by their least and largest draw.
                rows = np.flatnonzero(~(variances[:, column] > bound[column]))
                drawn = weights[rows] > 0
                least = np.where(drawn, differences[:, column], np.inf).min(axis=1)
                most = np.where(drawn, differences[:, column], -np.inf).max(axis=1)
                constant = most - least <= _ROUNDING * np.maximum(np.abs(least), np.abs(most))
                chunk[rows, column] = np.where(~constant, chunk[rows, column], np.where(
                    (least == 0) & (most == 0), 0.0, np.copysign(np.inf, least + most)))
            drawn_dz[start:start + len(weights)] = chunk
            start += len(weights)
    tail = (1 - confidence) / 2 * 100
    return np.column_stack([percentiles_with_infinities(drawn_dz[:, column], [tail, 100 - tail])
                            for column in range(width)])


def percentiles_with_infinities(values: np.ndarray, percentiles: Sequence[float]) -> np.ndarray:
    """``np.percentile(values, percentiles)`` (linear interpolation) of values that may be infinite: a percentile
    between a finite value and an infinite one is that infinity, as the interpolation's limit (numpy gives NaN
    there); between -inf and +inf it is undefined (NaN). Finite values give numpy's own numbers.

    >>> percentiles_with_infinities(np.array([1.0, 2.0, np.inf, np.inf]), [0, 25, 50, 100]).tolist()  # numpy: 50 -> nan
    [1.0, 1.75, inf, inf]
    """
    values = np.asarray(values, dtype=np.float64)
    if np.isfinite(values).all():
        return np.percentile(values, percentiles)
    ordered = np.sort(values)
    positions = np.asarray(percentiles, dtype=np.float64) / 100 * (len(ordered) - 1)
    below = np.floor(positions).astype(np.int64)
    above = np.ceil(positions).astype(np.int64)
    low, high, fraction = ordered[below], ordered[above], positions - below
    with np.errstate(invalid="ignore"):
        between = np.where(np.isinf(low), low, np.where(np.isinf(high), high, low + (high - low) * fraction))
    between = np.where(np.isinf(low) & np.isinf(high) & (low != high), np.nan, between)
    return np.where((fraction == 0) | (low == high), low, between)


def _paired_columns(query_ids: Mapping[str, Sequence[str]],
                    values: Mapping[str, np.ndarray]) -> list[tuple[np.ndarray, np.ndarray]]:
    """Every pair's two value arrays on the queries both systems scored with a finite value, in the order of their
    IDs, as :func:`~evalcore.stats.compare.compare_columns` pairs them."""
    names = list(query_ids)
    first = tuple(query_ids[names[0]]) if names else ()
    if all(tuple(query_ids[name]) == first for name in names) and len(set(first)) == len(first):
        order = id_order(first)
        read = {name: np.asarray(values[name], dtype=np.float64)[order] for name in names}
        columns = [(read[a], read[b]) for a, b in combinations(names, 2)]
    else:
        by_id = {name: dict(zip(query_ids[name], np.asarray(values[name], dtype=np.float64))) for name in names}
        columns = []
        for a, b in combinations(names, 2):
            shared = sorted(by_id[a].keys() & by_id[b].keys())
            columns.append((np.array([by_id[a][q] for q in shared], dtype=np.float64),
                            np.array([by_id[b][q] for q in shared], dtype=np.float64)))
    kept = [np.isfinite(a) & np.isfinite(b) for a, b in columns]
    return [(a[keep], b[keep]) for (a, b), keep in zip(columns, kept)]


# --- the repeated-measures ANOVA and Tukey's HSD ----------------------------------------------------------------------


@dataclass(frozen=True)
class RepeatedMeasuresAnova:
    """The one-way repeated-measures ANOVA of k systems over n queries (:func:`rm_anova`): sums of squares, F with
    its degrees of freedom and p-value, and two effect sizes."""

    systems: int
    queries: int
    f: float
    df_systems: int
    df_error: int
    p: float
    partial_eta_squared: float
    generalized_eta_squared: float
    ss_systems: float
    ss_queries: float
    ss_error: float
    mse: float


def rm_anova(matrix: np.ndarray) -> RepeatedMeasuresAnova:
    """One-way repeated-measures ANOVA of a queries x systems matrix of finite values (queries are the subjects,
    systems the within-subject factor): the two-way ANOVA without replication of systems and queries (Sakai 2018,
    "Laboratory Experiments in Information Retrieval", Springer; statsmodels' ``AnovaRM``, R's
    ``aov(value ~ system + Error(query/system))``). With ``x_ij`` query i's value of system j, row means ``x_i.``,
    column means ``x_.j`` and grand mean ``x_..``:

    - ``SS_systems = n sum_j (x_.j - x_..)^2``, ``SS_queries = k sum_i (x_i. - x_..)^2``,
      ``SS_error = sum_ij (x_ij - x_i. - x_.j + x_..)^2``;
    - ``F = (SS_systems / (k - 1)) / MSE`` with ``MSE = SS_error / ((k - 1)(n - 1))``, and ``p`` the F distribution's
      upper tail at ``df_systems = k - 1``, ``df_error = (k - 1)(n - 1)``;
    - partial eta squared ``SS_systems / (SS_systems + SS_error)`` and generalized eta squared
      ``SS_systems / (SS_systems + SS_queries + SS_error)`` (Olejnik and Algina 2003; Bakeman 2005): the generalized
      one keeps the queries' own spread in the denominator, so that it compares across designs; both are reported.

    Where the systems' means are all equal, F = 0 and p = 1 (identical systems, as
    :func:`~evalcore.stats.compare.paired_t_test` has them). Where they differ and every residual is 0 up to rounding
    (within 10 machine epsilons of the largest value: each system is another by a constant on every query), the
    error is 0, F = inf and p = 0. Undefined (NaN) below two systems or two queries.

    >>> anova = rm_anova(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 3.0], [3.0, 3.0, 6.0]]))
    >>> anova.ss_systems, anova.ss_queries, anova.ss_error, anova.f, (anova.df_systems, anova.df_error)
    (6.0, 6.0, 4.0, 3.0, (2, 4))
    >>> round(anova.p, 4), anova.partial_eta_squared, anova.generalized_eta_squared  # p = (1 + 2F/4)^-2 at df (2, 4)
    (0.16, 0.6, 0.375)
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.ndim != 2 or not np.isfinite(matrix).all():
        raise ParameterError("the repeated-measures ANOVA needs a queries x systems matrix of finite values")
    queries, systems = matrix.shape
    df_systems, df_error = systems - 1, (systems - 1) * (queries - 1)
    if systems < 2 or queries < 2:
        nan = float("nan")
        return RepeatedMeasuresAnova(systems, queries, nan, df_systems, max(df_error, 0), nan, nan, nan, nan, nan, nan,
                                     nan)
    system_means, query_means = matrix.mean(axis=0), matrix.mean(axis=1)
    grand = float(system_means.mean())
    equal = bool(np.ptp(system_means) == 0)
    ss_systems = 0.0 if equal else float(queries * ((system_means - grand) ** 2).sum())
    ss_queries = float(systems * ((query_means - query_means.mean()) ** 2).sum())
    residuals = matrix - query_means[:, None] - system_means[None, :] + grand
    exact = np.abs(residuals).max() <= _ROUNDING * np.abs(matrix).max()
    ss_error = 0.0 if exact else float((residuals ** 2).sum())
    mse = ss_error / df_error
    if equal:
        f, p = 0.0, 1.0
    elif exact:
        f, p = float("inf"), 0.0
    else:
        from scipy import stats  # as paired_t_test: only what tests pays its import

        f = ss_systems / df_systems / mse
        p = float(stats.f.sf(f, df_systems, df_error))
    with np.errstate(invalid="ignore", divide="ignore"):
        partial = float(np.divide(ss_systems, ss_systems + ss_error))
        generalized = float(np.divide(ss_systems, ss_systems + ss_queries + ss_error))
    return RepeatedMeasuresAnova(systems, queries, f, df_systems, df_error, p, partial, generalized, ss_systems,
                                 ss_queries, ss_error, mse)


@dataclass(frozen=True)
class TukeyPair:
    """One pair of Tukey's HSD (:func:`tukey_hsd`): the difference of the systems' means (a - b) with its
    simultaneous interval, the studentized range statistic ``q`` and its p-value, and the difference in units of
    the ANOVA's residual standard deviation."""

    system_a: str
    system_b: str
    queries: int
    mean_difference: float
    low: float
    high: float
    q: float
    p_tukey: float
    standardized_difference: float


def tukey_hsd(matrix: np.ndarray, names: Sequence[str], confidence: float = 0.95,
              anova: RepeatedMeasuresAnova | None = None) -> list[TukeyPair]:
    """Tukey's HSD for repeated measures over a queries x systems matrix (columns named ``names``): every pair's
    difference of means is studentized by the residual mean square of :func:`rm_anova` (``MSE``, the error of the
    systems x queries two-way ANOVA without replication, on ``df_error = (k - 1)(n - 1)``),

    ``q = |x_.a - x_.b| / sqrt(MSE / n)``, ``p = P(Q(k, df_error) >= q)`` (scipy's ``studentized_range.sf``),

    with the simultaneous interval ``(x_.a - x_.b) +- q_crit sqrt(MSE / n)``, ``q_crit`` the studentized range's
    ``confidence`` quantile: together the intervals cover every true difference with that probability, and the
    p-values need no Holm correction (the test already holds the family-wise error). This is the randomised-block
    HSD Sakai uses in IR (Sakai 2018, "Laboratory Experiments in Information Retrieval", Springer), whose
    ``standardized_difference`` is his effect size ``(x_.a - x_.b) / sqrt(MSE)``. It differs from ranx's "Tukey HSD",
    which calls scipy's ``tukey_hsd`` (earlier statsmodels' ``pairwise_tukeyhsd``) on the systems' scores as k
    independent groups: its error is the pooled within-system variance on ``k (n - 1)`` degrees of freedom, which
    keeps the queries' own spread (hard and easy queries) and ignores the pairing, so its p-values are larger. With
    two systems, the p-value is the paired t-test's (``q = sqrt(2) |t|``). Where ``MSE = 0`` a non-zero difference has
    q = inf, p = 0 and a zero-width interval, and an equal pair q = 0, p = 1.

    >>> pairs = tukey_hsd(np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 3.0], [3.0, 3.0, 6.0]]), ["A", "B", "C"])
    >>> [(p.system_a, p.system_b, p.mean_difference, round(p.q, 4), p.standardized_difference) for p in pairs]
    [('A', 'B', -1.0, 1.7321, -1.0), ('A', 'C', -2.0, 3.4641, -2.0), ('B', 'C', -1.0, 1.7321, -1.0)]
    """
    matrix = np.asarray(matrix, dtype=np.float64)
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must lie in (0, 1), got {confidence}")
    if matrix.ndim != 2 or matrix.shape[1] != len(names):
        raise ParameterError(f"tukey_hsd needs one column per name ({len(names)} names)")
    anova = anova or rm_anova(matrix)
    queries, systems = matrix.shape
    if systems < 2:
        return []
    if queries < 2:
        nan = float("nan")
        return [TukeyPair(names[a], names[b], queries, float(matrix[0, a] - matrix[0, b]) if queries else nan, nan, nan,
                          nan, nan, nan) for a, b in combinations(range(systems), 2)]
    from scipy.stats import studentized_range  # see rm_anova

    error = float(np.sqrt(anova.mse / queries))
    margin = critical_range(confidence, systems, anova.df_error) * error
    pairs = []
    for a, b in combinations(range(systems), 2):
        difference = float((matrix[:, a] - matrix[:, b]).mean())  # compare's mean difference, to the last bit
        if difference == 0:
            q, p = 0.0, 1.0
        elif error == 0:
            q, p = float("inf"), 0.0
        else:
            q = abs(difference) / error
            p = min(1.0, max(0.0, float(studentized_range.sf(q, systems, anova.df_error))))
        with np.errstate(divide="ignore", invalid="ignore"):
            standardized = 0.0 if difference == 0 else float(np.divide(difference, np.sqrt(anova.mse)))
        pairs.append(TukeyPair(names[a], names[b], queries, difference, difference - margin, difference + margin, q, p,
                               standardized))
    return pairs


@lru_cache(maxsize=32)
def critical_range(confidence: float, systems: int, df: int) -> float:
    """The ``confidence`` quantile of the studentized range of ``systems`` means on ``df`` degrees of freedom
    (scipy's ``studentized_range.ppf``), kept for the next metric or page: a quantile takes scipy a tenth of a second
    or more, and the metrics of one table share their systems and queries.

    >>> round(critical_range(0.95, 3, 4), 2)  # 5.04 in the tables of the studentized range
    5.04
    """
    from scipy.stats import studentized_range  # see rm_anova

    return float(studentized_range.ppf(confidence, systems, df))


def complete_queries(query_ids: Mapping[str, Sequence[str]],
                     values: Mapping[str, np.ndarray]) -> tuple[tuple[str, ...], np.ndarray]:
    """The queries every system scored with a finite value, in the order of their IDs, and their values (queries x
    systems, in the order of ``query_ids``): the complete blocks a repeated-measures design reads. A query one
    system left undefined is left out for all (the pairwise effect sizes keep it for the pairs that scored it).

    >>> complete_queries({"A": ("q2", "q1", "q3"), "B": ("q1", "q2")}, {"A": np.array([0.2, 0.1, 0.3]),
    ...                                                                 "B": np.array([np.nan, 0.5])})
    (('q2',), array([[0.2, 0.5]]))
    """
    names = list(query_ids)
    first = tuple(query_ids[names[0]]) if names else ()
    if all(tuple(query_ids[name]) == first for name in names) and len(set(first)) == len(first):
        order = id_order(first)
        ids = tuple(first[i] for i in order)
        matrix = np.column_stack([np.asarray(values[name], dtype=np.float64)[order] for name in names]) if names \
            else np.empty((len(first), 0))
    else:
        by_id = [dict(zip(query_ids[name], np.asarray(values[name], dtype=np.float64))) for name in names]
        ids = tuple(sorted(set.intersection(*(set(read) for read in by_id))))
        matrix = np.array([[read[q] for read in by_id] for q in ids], dtype=np.float64).reshape(len(ids), len(names))
    keep = np.isfinite(matrix).all(axis=1)
    return tuple(q for q, kept in zip(ids, keep) if kept), matrix[keep]


class AnovaTables(NamedTuple):
    """:func:`anova_tables`: the ANOVA in one row (:data:`ANOVA_COLUMNS`) and Tukey's HSD, one row per pair
    (:data:`TUKEY_COLUMNS`)."""

    summary: pd.DataFrame
    tukey: pd.DataFrame


def anova_tables(query_ids: Mapping[str, Sequence[str]], values: Mapping[str, np.ndarray], *,
                 confidence: float = 0.95) -> AnovaTables:
    """:func:`rm_anova` and :func:`tukey_hsd` of the systems on the queries every one of them scored
    (:func:`complete_queries`), as tables.

    >>> ids = {name: ("q1", "q2", "q3") for name in "ABC"}
    >>> tables = anova_tables(ids, {"A": np.array([1.0, 2.0, 3.0]), "B": np.array([2.0, 4.0, 3.0]),
    ...                             "C": np.array([3.0, 3.0, 6.0])})
    >>> tables.summary[["systems", "queries", "f", "df_systems", "df_error"]]
       systems  queries    f  df_systems  df_error
    0        3        3  3.0           2         4
    >>> tables.tukey[["system_a", "system_b", "mean_difference"]]
      system_a system_b  mean_difference
    0        A        B             -1.0
    1        A        C             -2.0
    2        B        C             -1.0
    """
    names = list(query_ids)
    _, matrix = complete_queries(query_ids, values)
    anova = rm_anova(matrix)
    pairs = tukey_hsd(matrix, names, confidence, anova)
    return AnovaTables(pd.DataFrame([asdict(anova)], columns=ANOVA_COLUMNS),
                       pd.DataFrame([asdict(pair) for pair in pairs], columns=TUKEY_COLUMNS))
