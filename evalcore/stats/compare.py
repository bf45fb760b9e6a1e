"""Comparing systems on per-query values (docs/DESIGN.md §3): bootstrap confidence intervals,
paired randomization and t-tests, Holm correction."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from evalcore.errors import ParameterError
from evalcore.kept import Kept
from evalcore.threads import blas_single_thread

KEPT_DRAW_BYTES = 64 << 20  # the budget of a store of random draws (draws_store: an Evaluator's, a Results', ...)
RESAMPLE_CHUNK = 256  # bootstrap resamples drawn (and multiplied) at a time; the draws depend on it
SWAP_CHUNK = 512  # randomization-test sign rows drawn (and multiplied) at a time; the draws depend on it
PRECISION_LOSS_EPSILONS = 10  # scipy's bound for "the values are identical up to rounding" (stats._stats_py._demean)


def draws_store() -> Kept:
    """A store for random draws (:func:`bootstrap_cis`, :func:`randomization_tests`), for an owner that asks again."""
    return Kept(KEPT_DRAW_BYTES)


def _kept_chunks(key: tuple, draw: Callable[[np.random.Generator], Iterator[np.ndarray]], rows: int,
                 row_bytes: int, store: Kept | None) -> Iterator[np.ndarray]:
    """The chunks ``draw(rng)`` yields for ``key`` = (kind, queries, samples, seed), drawn once and replayed while
    ``store`` keeps them. A dashboard re-tests the same number of queries with the same seed after every slider
    move; the draws depend on nothing else, so replaying them gives the very same numbers. Draws larger than half
    of the store's budget are never kept (memory stays bounded for any number of queries); without a store every
    call draws."""
    kept = store.get(key) if store is not None else None
    if kept is not None:
        yield from kept
        return
    keep = store is not None and (store.budget is None or rows * row_bytes <= store.budget // 2)
    drawn = []
    for chunk in draw(np.random.default_rng(key[-1])):
        if keep:
            chunk.flags.writeable = False
            drawn.append(chunk)
        yield chunk
    if keep:
        store.put(key, drawn)


def _as_floats(chunks: Iterator[np.ndarray], rows: int, columns: int) -> Iterator[np.ndarray]:
    """Each chunk of draws (at most ``rows`` x ``columns``) as float64, converted into one buffer for them all: a
    fresh array per chunk (tens of MB) is new memory whose first touch costs more than the conversion itself. A
    chunk's leading rows of the buffer are a contiguous array of the chunk's own shape: the same products, to the
    bit. Each yielded array is overwritten by the next chunk.

    >>> [(chunk.dtype.name, chunk.tolist()) for chunk in _as_floats(iter([np.array([[1, 2]]), np.array([[3, 4]])]), 1, 2)][-1]
    ('float64', [[3.0, 4.0]])
    """
    buffer = np.empty((rows, columns))
    for chunk in chunks:
        floats = buffer[:len(chunk)]
        np.copyto(floats, chunk)
        yield floats


def _resample_counts(queries: int, samples: int, seed: int, store: Kept | None) -> Iterator[np.ndarray]:
    """Bootstrap resamples in chunks of up to :data:`RESAMPLE_CHUNK` (256): how often each query is drawn (chunk x queries)."""
    dtype = np.dtype(np.uint16 if queries < 1 << 16 else np.uint32)  # a count never exceeds the queries

    def draw(rng: np.random.Generator) -> Iterator[np.ndarray]:
        for start in range(0, samples, RESAMPLE_CHUNK):
            count = min(RESAMPLE_CHUNK, samples - start)
            picks = rng.integers(0, queries, size=(count, queries)) + queries * np.arange(count)[:, None]
            counts = np.bincount(picks.ravel(), minlength=count * queries).reshape(count, queries)
            yield counts.astype(dtype)
    return _kept_chunks(("bootstrap", queries, samples, seed), draw, samples, dtype.itemsize * queries, store)


def bootstrap_weights(queries: int, samples: int, seed: int = 0, draws: Kept | None = None) -> Iterator[np.ndarray]:
    """The resamples behind :func:`bootstrap_cis`, for another statistic over the same draws: chunks of up to
    :data:`RESAMPLE_CHUNK` rows (resamples) x ``queries``, how often each query is drawn, as float64 (a weighted sum
    is one product). The same draws for the same queries, samples and seed (kept in ``draws``); each yielded array
    is overwritten by the next.

    >>> [chunk.sum(axis=1).tolist() for chunk in bootstrap_weights(3, 2, seed=1)]
    [[3.0, 3.0]]
    """
    return _as_floats(_resample_counts(queries, samples, seed, draws), min(samples, RESAMPLE_CHUNK), queries)


def _swap_signs(queries: int, samples: int, seed: int, store: Kept | None) -> Iterator[np.ndarray]:
    """Randomization-test swaps in chunks of up to :data:`SWAP_CHUNK` (512): +1 keeps a query's pair, -1 swaps it
    (chunk x queries)."""
    def draw(rng: np.random.Generator) -> Iterator[np.ndarray]:
        for start in range(0, samples, SWAP_CHUNK):
            count = min(SWAP_CHUNK, samples - start)
            yield rng.integers(0, 2, size=(count, queries), dtype=np.int8) * 2 - 1
    return _kept_chunks(("randomization", queries, samples, seed), draw, samples, queries, store)


@dataclass(frozen=True)
class MeanScale:
    """The scale on which a metric's per-query values are averaged where it is not their own: a system's score is the
    quasi-arithmetic mean ``back(mean(to(values)))`` over the queries where the metric is defined. Its interval is the
    bootstrap interval on the scale carried back (``back`` increases, so a percentile of the resampled means maps to
    one), and two systems are tested on the scale, their difference being that of their scores. Every metric is
    averaged as it is (no scale) but trec_eval's ``gm_map``, whose mean is geometric
    (:data:`evalcore.metrics.registry.GEOMETRIC`).

    >>> MeanScale("quadratic", np.square, np.sqrt).mean(np.array([1.0, np.nan, 7.0]))  # sqrt((1 + 49) / 2)
    5.0
    """

    name: str
    to: Callable[[np.ndarray], np.ndarray]
    back: Callable[[np.ndarray], np.ndarray]

    def on_scale(self, values: np.ndarray) -> np.ndarray:
        """The values on the scale (NaN stays NaN: undefined)."""
        values = np.asarray(values, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(np.isfinite(values), self.to(values), np.nan)

    def carried_back(self, value: float) -> float:
        """A mean or bound on the scale as a value of the metric (NaN stays NaN)."""
        return float(self.back(np.float64(value))) if np.isfinite(value) else float("nan")

    def mean(self, values: np.ndarray) -> float:
        """The score of ``values``: ``back`` of the mean of the defined values on the scale (:func:`defined_summary`)."""
        return self.carried_back(defined_summary(self.on_scale(values))[0])


@dataclass(frozen=True)
class MeanWithCI:
    mean: float
    low: float
    high: float
    queries: int


def bootstrap_ci(values: np.ndarray, confidence: float = 0.95, *, samples: int, seed: int = 0) -> MeanWithCI:
    """Mean of the defined values with a percentile bootstrap interval (resampling queries), from ``samples``
    resamples (the evaluation's default count is :class:`evalcore.evaluation.options.Statistics`').

    >>> ci = bootstrap_ci(np.array([1.0, 1.0, 1.0, np.nan]), samples=2000)
    >>> (ci.mean, ci.low, ci.high, ci.queries)
    (1.0, 1.0, 1.0, 3)
    """
    return bootstrap_cis(np.asarray(values, dtype=np.float64)[:, None], confidence, samples=samples, seed=seed)[0]


def bootstrap_cis(columns: np.ndarray, confidence: float = 0.95, *, samples: int, seed: int = 0,
                  draws: Kept | None = None, scales: Sequence[MeanScale | None] | None = None) -> list[MeanWithCI]:
    """:func:`bootstrap_ci` for every column of a queries x metrics matrix, with shared resamples (kept in
    ``draws`` for the next call, see :func:`draws_store`).

    Each resample draws queries with replacement and averages each column over the drawn
    queries where it is defined (NaN = undefined); the interval is the percentile interval of
    those means. Resamples are kept as per-query counts so that one matrix product serves
    every column at once. A column with a scale (``scales``, one entry per column, None for the
    values' own) is averaged and resampled on it, its mean and bounds carried back (:class:`MeanScale`).
    """
    columns = np.asarray(columns, dtype=np.float64)
    scaled = [(column, scale) for column, scale in enumerate(scales or ()) if scale is not None]
    if scaled:
        columns = columns.copy()
        for column, scale in scaled:
            columns[:, column] = scale.on_scale(columns[:, column])
    if not 0 < confidence < 1:
        raise ParameterError(f"confidence must lie in (0, 1), got {confidence}")
    queries, width = columns.shape
    defined = np.isfinite(columns)
    filled = np.where(defined, columns, 0.0)
    defined_counts = defined.sum(axis=0)
    if queries == 0 or samples < 1:
        return [MeanWithCI(float("nan"), float("nan"), float("nan"), 0) for _ in range(width)]
    # Columns share few patterns of defined queries (every ranking metric of a system leaves out the same empty
    # queries). A resample's count of defined queries is a sum of whole numbers, exact in any order: one product
    # per distinct pattern gives every column's count to the last bit.
    pattern_of, patterns = _distinct_columns(defined)
    means = np.empty((samples, width))
    start = 0
    # One BLAS thread: a threaded product splits its sums differently, and the intervals would then depend on the
    # machine's core count in their last digits (the same data through the CLI and the API could differ).
    with blas_single_thread():
        for weights in _as_floats(_resample_counts(queries, samples, seed, draws), min(samples, RESAMPLE_CHUNK),
                                  queries):
            with np.errstate(invalid="ignore", divide="ignore"):
                means[start:start + len(weights)] = (weights @ filled) / (weights @ patterns)[:, pattern_of]
            start += len(weights)
    tail = (1 - confidence) / 2 * 100
    bounds = _percentiles(means, [tail, 100 - tail])
    results = []
    for column in range(width):
        mean, low, high = defined_summary(columns[:, column])
        if not defined_counts[column]:
            results.append(MeanWithCI(mean, mean, mean, 0))
            continue
        # A resample's mean comes from a weighted product whose rounding may fall just outside the values (a column
        # of 0.7 gave [0.7000000000000004, 0.7000000000000008]); every mean of them lies within their range.
        bound_low, bound_high = np.clip(bounds[:, column], low, high)
        results.append(MeanWithCI(mean, float(bound_low), float(bound_high), int(defined_counts[column])))
    for column, scale in scaled:
        found = results[column]
        results[column] = MeanWithCI(scale.carried_back(found.mean), scale.carried_back(found.low),
                                     scale.carried_back(found.high), found.queries)
    return results


def defined_summary(values: np.ndarray) -> tuple[float, float, float]:
    """The mean, the least and the largest of the finite values of one column (NaN where none), the mean held within
    them, which a sum's rounding may leave (1,000 values of 0.7 averaged 0.6999999999999998, below every one).

    >>> defined_summary(np.full(1000, 0.7)), float(np.full(1000, 0.7).mean())
    ((0.7, 0.7, 0.7), 0.6999999999999998)
    >>> defined_summary(np.array([0.5, np.nan, 1.0])), defined_summary(np.array([np.nan]))
    ((0.75, 0.5, 1.0), (nan, nan, nan))
    """
    finite = np.isfinite(values)
    defined = values if finite.all() else values[finite]
    if not len(defined):
        return float("nan"), float("nan"), float("nan")
    low, high = float(defined.min()), float(defined.max())
    return min(max(float(defined.mean()), low), high), low, high


def query_means(order: np.ndarray, columns: Mapping[str, np.ndarray],
                scales: Mapping[str, MeanScale] | None = None) -> dict[str, float]:
    """The mean of each column of per-query values over the queries where it is defined (NaN: excluded), read in
    the order of the query IDs (``order``: :func:`id_order` of the columns' queries) and held within the values'
    range (:func:`defined_summary`): the one mean of a system's metric that every table and curve shows. A column
    named in ``scales`` is averaged on its scale (:class:`MeanScale`: gm_map's geometric mean).

    >>> query_means(id_order(["q2", "q1"]), {"AP": np.array([0.5, np.nan]), "R": np.array([np.nan, np.nan])})
    {'AP': 0.5, 'R': nan}
    """
    scales = scales or {}
    return {name: scales[name].mean(np.asarray(values, dtype=np.float64)[order]) if name in scales
            else defined_summary(np.asarray(values, dtype=np.float64)[order])[0] for name, values in columns.items()}


def id_order(ids: Sequence[str]) -> np.ndarray:
    """The positions of ``ids`` in sorted order: the one order in which a system's per-query values are averaged,
    resampled and paired, so that no mean, interval or test depends on the order of a run file's queries.

    >>> id_order(["q2", "q10", "q1"]).tolist()
    [2, 1, 0]
    """
    return np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64)


def _percentiles(samples: np.ndarray, percentiles: list[float]) -> np.ndarray:
    """``np.nanpercentile(samples[:, column], percentiles)`` of every column (percentiles x columns): the columns
    without NaN in one call along the first axis (the same partition and interpolation per column, so the same
    values), the others one at a time; one call per column took 11 ms for a leaderboard's 258 columns.

    >>> _percentiles(np.array([[1.0, np.nan, np.nan], [2.0, 4.0, np.nan], [3.0, np.nan, np.nan]]), [50.0, 100.0])
    array([[ 2.,  4., nan],
           [ 3.,  4., nan]])
    """
    nan = np.isnan(samples)
    missing = nan.any(axis=0)
    bounds = np.full((len(percentiles), samples.shape[1]), np.nan)  # NaN for a column without any value
    bounds[:, ~missing] = np.percentile(samples[:, ~missing], percentiles, axis=0)
    for column in np.flatnonzero(missing & ~nan.all(axis=0)):
        bounds[:, column] = np.nanpercentile(samples[:, column], percentiles)
    return bounds


def _distinct_columns(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct columns of a boolean matrix as 0/1 floats, and for each column the position of its own.

    >>> _distinct_columns(np.array([[True, False, True], [False, False, False]]))
    (array([0, 1, 0]), array([[1., 0.],
           [0., 0.]]))
    """
    position: dict[bytes, int] = {}
    # Each column as bytes (8 rows a byte): a dictionary finds equal columns without sorting the matrix.
    pattern_of = np.array([position.setdefault(column.tobytes(), len(position))
                           for column in np.packbits(mask, axis=0).T], dtype=np.int64)
    firsts = np.unique(pattern_of, return_index=True)[1]
    return pattern_of, mask[:, firsts].astype(np.float64)


def randomization_test(a: np.ndarray, b: np.ndarray, *, samples: int, seed: int = 0) -> float:
    """Two-sided paired randomization test: swap each query's pair of values with probability 1/2, ``samples``
    times (the evaluation's default count is :class:`evalcore.evaluation.options.Statistics`').

    p = (1 + #{|mean of permuted differences| >= |observed|}) / (1 + samples).

    "At least as large" allows for rounding in the permuted sums: 1e-12, or 1e-9 of the mean absolute
    difference where that is smaller, so the test does not depend on the differences' scale (differences
    of about 1e-13 give the p-value of the same differences times 1e13, not 1).

    >>> randomization_test(np.zeros(5), np.zeros(5), samples=10000)
    1.0
    >>> d = np.array([3.0, 2.0, 4.0, -1.0])
    >>> round(randomization_test(d * 1e-13, np.zeros(4), samples=10000), 2), round(
    ...     randomization_test(d, np.zeros(4), samples=10000), 2)
    (0.25, 0.25)
    """
    return randomization_tests([(a, b)], samples=samples, seed=seed)[0]


def randomization_tests(pairs: Sequence[tuple[np.ndarray, np.ndarray]], *, samples: int, seed: int = 0,
                        draws: Kept | None = None) -> list[float]:
    """:func:`randomization_test` of each (a, b) pair, each with the same p-value as alone.

    The swaps depend only on the seed and the number of paired queries, so pairs with as many queries share each
    drawn sign matrix: comparing several systems draws it once instead of once per pair.

    >>> randomization_tests([(np.zeros(5), np.zeros(5)), (np.ones(3), np.zeros(3))], samples=15)
    [1.0, 0.375]
    """
    differences = [a - b for a, b in (_paired(a, b) for a, b in pairs)]
    p_values = [float("nan")] * len(pairs)
    for length in sorted({len(d) for d in differences if len(d)}):
        members = [i for i, d in enumerate(differences) if len(d) == length]
        observed = np.array([abs(differences[i].mean()) - min(1e-12, 1e-9 * np.abs(differences[i]).mean())
                             for i in members])
        # One product per chunk for every pair of this length (queries x pairs): the sign matrix is read once,
        # not once per pair. Sums of +-d in another order differ by rounding only, far inside ``observed``'s margin.
        stacked = np.column_stack([differences[i] for i in members])
        extreme = np.zeros(len(members), dtype=np.int64)
        # One BLAS thread, as for the bootstrap: a threaded product leaves BLAS's worker spinning after it, taking a
        # core from the page's other work (the product is thin: a few columns).
        with blas_single_thread():
            for signs in _as_floats(_swap_signs(length, samples, seed, draws), min(samples, SWAP_CHUNK), length):
                permuted = np.abs(signs @ stacked) / length
                extreme += (permuted >= observed).sum(axis=0)
        for position, i in enumerate(members):
            p_values[i] = (1 + int(extreme[position])) / (1 + samples)
    return p_values


def paired_t_test(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided paired t-test p-value: scipy's ``ttest_rel`` (Student's t on the differences ``d = a - b``,
    ``t = mean(d) / (sd(d) / sqrt(n))`` with n - 1 degrees of freedom), on the queries where both values are
    defined; NaN below two queries. It differs from scipy in the two cases where scipy gives no usable number:

    - every difference is exactly 0 (identical systems): p = 1 (scipy: NaN, from t = 0/0);
    - every difference is the same non-zero value, up to floating-point rounding (each within 10
      machine epsilons of their mean, relative to it: scipy's own test for precision loss): t is
      infinite and p = 0 (scipy: a finite t made of the rounding, with a precision-loss warning).

    Any other differences are scipy's, however small: t does not depend on their scale, so differences
    of about 1e-9 give the p-value of the same differences times 1e9.

    >>> paired_t_test(np.array([0.5, 0.7, 0.9]), np.array([0.3, 0.5, 0.7]))
    0.0
    >>> round(paired_t_test(np.array([1e-9, 3e-9, 2e-9]), np.zeros(3)), 4)  # t = 2 / (1 / sqrt(3)), 2 df
    0.0742
    """
    a, b = _paired(a, b)
    if len(a) < 2:
        return float("nan")
    differences = a - b
    if not differences.any():
        return 1.0
    mean = differences.mean()
    if np.abs(differences - mean).max() < PRECISION_LOSS_EPSILONS * np.finfo(np.float64).eps * abs(mean):
        return 0.0
    from scipy import stats  # half a second to import: only commands that test significance pay it

    return float(stats.ttest_rel(a, b).pvalue)


def _paired(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ParameterError(f"paired tests need values for the same queries ({a.shape} vs {b.shape})")
    keep = np.isfinite(a) & np.isfinite(b)
    return a[keep], b[keep]


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm-Bonferroni adjusted p-values (Holm 1979), in the order given.

    With the m p-values sorted ascending, ``p_(1) <= ... <= p_(m)``, the i-th adjusted value is
    ``min(1, max_{j <= i} (m - j + 1) p_(j))``: the formula of statsmodels'
    ``multipletests(method="holm")``. Each is at least its raw p and the adjusted values keep the raw
    values' order; they are not rounded (a p-value of 1e-13 stays above 0).

    >>> holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    >>> holm([1e-13, 0.5])
    [2e-13, 0.5]
    """
    p = np.asarray(p_values, dtype=np.float64)
    if p.ndim != 1 or not np.all((p >= 0) & (p <= 1)):
        raise ParameterError(f"Holm correction needs a list of p-values in [0, 1], got {list(p_values)!r}"[:200])
    order = np.argsort(p, kind="stable")
    adjusted = np.empty(len(p))
    adjusted[order] = np.minimum(1.0, np.maximum.accumulate(p[order] * np.arange(len(p), 0, -1)))
    return adjusted.tolist()


@dataclass(frozen=True)
class PairComparison:
    system_a: str
    system_b: str
    mean_difference: float
    p_randomization: float
    p_t_test: float
    p_randomization_holm: float
    p_t_test_holm: float
    queries: int


def compare_systems(per_query: Mapping[str, Mapping[str, float]], *, samples: int, seed: int = 0,
                    draws: Kept | None = None, scale: MeanScale | None = None) -> list[PairComparison]:
    """All pairs of systems on the queries they share, each by ``samples`` randomizations; Holm correction over
    the pairs (the sign swaps kept in ``draws``, see :func:`draws_store`).

    ``per_query[system][query_id]`` is a metric value (NaN = excluded). A metric averaged on a ``scale``
    (:class:`MeanScale`) is tested on it, and its mean difference is that of the two systems' scores on the queries
    they share.
    """
    names = list(per_query)
    # Systems scored on the same queries (the usual case) share one sorted list, and each system's values on a
    # list are read once, not once per pair: the same arrays, without 15 sorts and lookups of every query per pair.
    query_sets = {name: frozenset(per_query[name]) for name in names}
    sorted_lists: dict[frozenset, tuple[str, ...]] = {}
    read: dict[tuple[str, frozenset], np.ndarray] = {}

    def values_on(name: str, common: frozenset) -> np.ndarray:
        if (name, common) not in read:
            values = np.array([per_query[name][q] for q in sorted_lists[common]], dtype=np.float64)
            values = scale.on_scale(values) if scale is not None else values
            values.flags.writeable = False  # one array serves several pairs
            read[name, common] = values
        return read[name, common]

    paired = []
    for a, b in combinations(names, 2):
        common = query_sets[a] & query_sets[b]
        if common not in sorted_lists:
            sorted_lists[common] = tuple(sorted(common))
        paired.append((values_on(a, common), values_on(b, common)))
    return _compared(names, paired, samples, seed, draws, scale)


def compare_columns(query_ids: Mapping[str, Sequence[str]], values: Mapping[str, np.ndarray], *, samples: int,
                    seed: int = 0, draws: Kept | None = None, scale: MeanScale | None = None) -> list[PairComparison]:
    """:func:`compare_systems` of per-query values given as arrays: system -> its queries' IDs and their values
    (``values[system][i]`` is query ``query_ids[system][i]``'s). Systems scored on the same queries in the same order
    (a leaderboard's) are paired by one sort of the IDs, without a mapping per system; the same arrays in the same
    order as :func:`compare_systems` pairs them, so the same numbers.

    >>> ids = {"A": ("q2", "q1", "q3"), "B": ("q2", "q1", "q3")}
    >>> values = {"A": np.array([0.5, 0.9, 0.4]), "B": np.array([0.2, 0.9, 0.1])}
    >>> compare_columns(ids, values, samples=100) == compare_systems(
    ...     {name: dict(zip(ids[name], values[name])) for name in ids}, samples=100)
    True
    """
    names = list(query_ids)
    first = tuple(query_ids[names[0]]) if names else ()
    if any(tuple(query_ids[name]) != first for name in names) or len(set(first)) != len(first):
        return compare_systems({name: dict(zip(query_ids[name], values[name])) for name in names}, samples=samples,
                               seed=seed, draws=draws, scale=scale)
    # In the order of the sorted IDs, as compare_systems reads the queries two systems share (here: all of them).
    order = id_order(first)
    read = {}
    for name in names:
        read[name] = np.asarray(values[name], dtype=np.float64)[order]
        read[name] = scale.on_scale(read[name]) if scale is not None else read[name]
        read[name].flags.writeable = False
    return _compared(names, [(read[a], read[b]) for a, b in combinations(names, 2)], samples, seed, draws, scale)


def _compared(names: list[str], paired: list[tuple[np.ndarray, np.ndarray]], samples: int, seed: int,
              draws: Kept | None, scale: MeanScale | None = None) -> list[PairComparison]:
    """Every pair of ``names`` (in :func:`itertools.combinations` order) on its paired arrays, Holm-corrected; arrays
    on a ``scale`` differ by their scores carried back (:class:`MeanScale`)."""
    p_random = randomization_tests(paired, samples=samples, seed=seed, draws=draws)
    raw = []
    for (a, b), (va, vb), p in zip(combinations(names, 2), paired, p_random):
        pa, pb = _paired(va, vb)
        difference = float("nan") if not len(pa) else float((pa - pb).mean()) if scale is None else \
            scale.carried_back(pa.mean()) - scale.carried_back(pb.mean())
        raw.append((a, b, difference, p, paired_t_test(va, vb), len(pa)))
    holm_random = holm_of_defined([r[3] for r in raw])
    holm_t = holm_of_defined([r[4] for r in raw])
    return [PairComparison(a, b, d, pr, pt, hr, ht, q)
            for (a, b, d, pr, pt, q), hr, ht in zip(raw, holm_random, holm_t)]


def holm_of_defined(p_values: list[float]) -> list[float]:
    """:func:`holm` over the tests that were made: a pair whose p-value is undefined (no shared query) is no test and
    is not counted, as R's ``p.adjust`` leaves out NA (it was counted as a p of 1, which made the others' values
    larger than the standard ones: 3 x 0.00441 beside one undefined pair, where Holm over the two tests made gives
    2 x 0.00441); its own adjusted value stays undefined.

    >>> holm_of_defined([0.01, float("nan"), 0.04])
    [0.02, nan, 0.04]
    """
    made = [p for p in p_values if np.isfinite(p)]
    adjusted = iter(holm(made)) if made else iter(())
    return [next(adjusted) if np.isfinite(p) else float("nan") for p in p_values]


def kendall_tau(scores_a: Mapping[str, float], scores_b: Mapping[str, float]) -> float:
    """Kendall's tau-b between two system rankings (by mean score) over their shared systems (scipy's
    ``kendalltau``). Undefined (NaN) where fewer than two systems are shared or one ranking ties every system and
    the other does not, as scipy has it (it was 1, perfect agreement, where one setting told no system apart);
    1 where both tie every system, the same (empty) order.

    >>> kendall_tau({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 3, "c": 2})
    0.33333333333333337
    >>> kendall_tau({"a": 1, "b": 1, "c": 1}, {"a": 1, "b": 2, "c": 3}), kendall_tau({"a": 1, "b": 1}, {"a": 2, "b": 2})
    (nan, 1.0)
    """
    shared = [s for s in scores_a if s in scores_b]
    if len(shared) < 2:
        return float("nan")
    a, b = [scores_a[s] for s in shared], [scores_b[s] for s in shared]
    if len(set(a)) == 1 or len(set(b)) == 1:
        return 1.0 if len(set(a)) == len(set(b)) == 1 else float("nan")
    from scipy import stats  # see paired_t_test

    return float(stats.kendalltau(a, b).statistic)
