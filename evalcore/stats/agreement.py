"""How well two gradings of the same items agree (docs/DESIGN.md §7): a relevance measure against clinicians' grades,
and clinicians against each other.

- :func:`graded_statistics`: Kendall's tau-b, Spearman's rho and the ROC AUC of each grade threshold (Mann-Whitney,
  ties counted one half) between a score ``x`` and a grade ``y`` with few distinct values, for many rows of weights
  at once (a weight is how often an item is drawn: a bootstrap resample, a fold of a cross-validation). Each
  statistic is the one of the data with every item repeated as often as its weight says, so the resamples of
  :func:`evalcore.stats.compare.bootstrap_weights` give the statistics of the resampled data, in O(rows x items x
  grades) without building it; :func:`kendall_tau_b`, :func:`spearman_rho` and :func:`roc_auc` are one row of it.
- :func:`weighted_kappa`: Cohen's weighted kappa of two raters (Cohen 1968), quadratic weights by default.
- :func:`krippendorff_alpha_ordinal`: Krippendorff's alpha with the ordinal metric, any number of raters, missing
  values allowed (Krippendorff 2011, "Computing Krippendorff's alpha-reliability").

Every statistic is undefined (NaN) where its denominator is 0: tau-b and rho where one side is constant, an AUC
without a positive or a negative item, kappa and alpha where the raters never vary.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from evalcore.errors import ParameterError

#: Elements of a temporary array (rows x items) computed at a time: 4 Mi float64, 32 MiB.
CHUNK_ELEMENTS = 1 << 22
#: The weightings of :func:`weighted_kappa`: the disagreement of categories i and j is |i - j| or (i - j)^2.
KAPPA_WEIGHTS = ("linear", "quadratic")


@dataclass(frozen=True)
class GradedStatistics:
    """One value per row of weights: Kendall's tau-b, Spearman's rho, and the ROC AUC of each threshold (``auc[t]``:
    the items graded at least ``thresholds[t]`` are the positives)."""

    kendall_tau_b: np.ndarray
    spearman_rho: np.ndarray
    auc: tuple[np.ndarray, ...]


@dataclass(frozen=True)
class _Order:
    """``x`` sorted (ties by ``y``), its groups of equal values, and the grade level of each sorted item, with the
    sorted positions of each level's items and where their runs of equal ``x`` start."""

    order: np.ndarray
    starts: np.ndarray
    levels: np.ndarray
    level_positions: tuple[np.ndarray, ...]
    level_runs: tuple[np.ndarray, ...]
    level_groups: tuple[np.ndarray, ...]


def _ordered(x: np.ndarray, y: np.ndarray) -> _Order:
    order = np.lexsort((y, x))
    xs = x[order]
    new_group = np.empty(len(xs), dtype=bool)
    new_group[:1] = True
    new_group[1:] = xs[1:] != xs[:-1]
    group = np.cumsum(new_group) - 1
    levels, codes = np.unique(y, return_inverse=True)
    codes = codes[order]
    positions, runs, groups = [], [], []
    for level in range(len(levels)):
        at = np.flatnonzero(codes == level)
        first = np.empty(len(at), dtype=bool)
        first[:1] = True
        first[1:] = group[at][1:] != group[at][:-1]
        positions.append(at)
        runs.append(np.flatnonzero(first))
        groups.append(group[at][first])
    return _Order(order, np.flatnonzero(new_group), levels, tuple(positions), tuple(runs), tuple(groups))


def _checked(x, y, weights) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x, y = np.asarray(x, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    if len(x) != len(y):
        raise ParameterError(f"the two gradings must grade the same items, got {len(x)} and {len(y)} values")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ParameterError("the gradings must be finite numbers")
    weights = np.ones((1, len(x))) if weights is None else np.asarray(weights, dtype=np.float64)
    if weights.ndim == 1:
        weights = weights[None, :]
    if weights.ndim != 2 or weights.shape[1] != len(x) or not (np.isfinite(weights).all() and (weights >= 0).all()):
        raise ParameterError(f"weights must be rows of {len(x)} non-negative numbers, one per item")
    return x, y, weights


def graded_statistics(x, y, weights=None, thresholds: Sequence[float] = ()) -> GradedStatistics:
    """Kendall's tau-b, Spearman's rho and the AUC of each grade threshold between ``x`` and ``y``, for each row of
    ``weights`` (rows x items; None: every item once).

    With item i counted w_i times (M = sum of w), a pair of distinct copies is concordant or discordant as its two
    items are (copies of one item are tied on both sides):

    - tau-b = 2 S / sqrt((M^2 - sum_g X_g^2) (M^2 - sum_k Y_k^2)), S = sum over item pairs of w_i w_j sign(x_i - x_j)
      sign(y_i - y_j), X_g and Y_k the weights of the groups of equal x and of equal y (Kendall 1945's tau-b, as
      ``scipy.stats.kendalltau`` computes it);
    - rho: Pearson's correlation of the midranks of x and y among the copies (``scipy.stats.spearmanr``);
    - AUC at t: the chance that a copy graded y >= t scores a higher x than one graded below, a tie counting one half
      (the Mann-Whitney U over n1 n0; ``sklearn.metrics.roc_auc_score``).

    ``y`` should take few values (grades): the cost is rows x (items + groups of x x values of y).

    >>> stats = graded_statistics([0.1, 0.4, 0.4, 0.9], [0, 1, 0, 2], thresholds=[1])
    >>> float(stats.kendall_tau_b[0]), float(stats.auc[0][0])
    (0.8, 0.875)
    """
    x, y, weights = _checked(x, y, weights)
    order = _ordered(x, y)
    rows = max(1, CHUNK_ELEMENTS // max(1, len(x)))
    parts = [_chunk_statistics(order, y, weights[start:start + rows], thresholds)
             for start in range(0, len(weights), rows)]
    if not parts:
        return GradedStatistics(np.zeros(0), np.zeros(0), tuple(np.zeros(0) for _ in thresholds))
    return GradedStatistics(np.concatenate([p.kendall_tau_b for p in parts]),
                            np.concatenate([p.spearman_rho for p in parts]),
                            tuple(np.concatenate([p.auc[t] for p in parts]) for t in range(len(thresholds))))


def _chunk_statistics(order: _Order, y: np.ndarray, weights: np.ndarray, thresholds: Sequence[float]
                      ) -> GradedStatistics:
    """:func:`graded_statistics` of a few rows of weights: one pass over the levels of y, each level's weights summed
    per group of equal x (A_k), against the weight of the groups of smaller x (prefix sums)."""
    rows = len(weights)
    by_x = weights[:, order.order]
    group_weights = np.add.reduceat(by_x, order.starts, axis=1) if len(order.starts) else np.zeros((rows, 0))
    total = group_weights.sum(axis=1)
    before = np.cumsum(group_weights, axis=1) - group_weights  # weight of smaller x, per group
    centre = (total[:, None] + 1) / 2
    x_ranks = before + (group_weights + 1) / 2 - centre  # midranks of x, centred
    below = np.zeros_like(group_weights)  # weight of smaller x and smaller y than the level at hand
    concordance = np.zeros(rows)
    level_squares = np.zeros(rows)
    weight_before = np.zeros(rows)
    rank_products, y_rank_squares = np.zeros(rows), np.zeros(rows)
    positives = [np.zeros_like(group_weights) for _ in thresholds]
    for level, value in enumerate(order.levels):
        at_level = np.zeros_like(group_weights)
        positions = order.level_positions[level]
        at_level[:, order.level_groups[level]] = np.add.reduceat(by_x[:, positions], order.level_runs[level], axis=1)
        smaller_x = np.cumsum(at_level, axis=1) - at_level
        # each weight of this level against the earlier groups: + below (smaller y), - the rest (larger y)
        concordance += np.einsum("rg,rg->r", at_level, 2 * below + smaller_x - before)
        below += smaller_x
        level_weight = at_level.sum(axis=1)
        y_rank = weight_before + (level_weight + 1) / 2 - centre[:, 0]
        rank_products += y_rank * np.einsum("rg,rg->r", at_level, x_ranks)
        y_rank_squares += level_weight * y_rank ** 2
        level_squares += level_weight ** 2
        weight_before += level_weight
        for position, threshold in enumerate(thresholds):
            if value >= threshold:
                positives[position] += at_level
    with np.errstate(invalid="ignore", divide="ignore"):
        squares = total ** 2
        tau = 2 * concordance / np.sqrt((squares - (group_weights ** 2).sum(axis=1)) * (squares - level_squares))
        rho = rank_products / np.sqrt(np.einsum("rg,rg->r", group_weights, x_ranks ** 2) * y_rank_squares)
        aucs = tuple(_auc_of_groups(found, group_weights - found) for found in positives)
    return GradedStatistics(_undefined_where_nan(tau, 1.0), _undefined_where_nan(rho, 1.0), aucs)


def _auc_of_groups(positive: np.ndarray, negative: np.ndarray) -> np.ndarray:
    """The Mann-Whitney AUC of positive and negative weights per group of equal score (groups in increasing score)."""
    negative_before = np.cumsum(negative, axis=1) - negative
    wins = np.einsum("rg,rg->r", positive, negative_before + negative / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return wins / (positive.sum(axis=1) * negative.sum(axis=1))


def _undefined_where_nan(values: np.ndarray, bound: float) -> np.ndarray:
    """Values held within [-bound, bound] (a sum's rounding may leave it by an ulp); NaN stays NaN (undefined)."""
    return np.clip(values, -bound, bound)


def kendall_tau_b(x, y, weights=None) -> float:
    """Kendall's tau-b of ``x`` and ``y`` (each item counted ``weights[i]`` times; None: once), as
    ``scipy.stats.kendalltau`` gives it; NaN where either side is constant.

    Worked by hand: x = (1, 2, 2, 3), y = (1, 1, 2, 3). Of the 6 pairs, 4 are concordant, none discordant, 1 tied on
    x only and 1 on y only: tau-b = (4 - 0) / sqrt((6 - 1) (6 - 1)) = 0.8.

    >>> kendall_tau_b([1, 2, 2, 3], [1, 1, 2, 3])
    0.8
    """
    x, y, weights = _checked(x, y, weights)
    if len(np.unique(x)) < len(np.unique(y)):
        x, y = y, x  # symmetric: the side with fewer values is the one looped over
    return float(graded_statistics(x, y, weights).kendall_tau_b[0])


def spearman_rho(x, y, weights=None) -> float:
    """Spearman's rho of ``x`` and ``y`` (Pearson's correlation of their midranks), each item counted ``weights[i]``
    times; as ``scipy.stats.spearmanr`` gives it.

    Worked by hand: the midranks of x = (1, 2, 2, 3) and y = (1, 1, 2, 3) are (1, 2.5, 2.5, 4) and (1.5, 1.5, 3, 4);
    centred on 2.5 they are (-1.5, 0, 0, 1.5) and (-1, -1, 0.5, 1.5): rho = (1.5 + 2.25) / sqrt(4.5 x 4.5) = 5 / 6.

    >>> round(spearman_rho([1, 2, 2, 3], [1, 1, 2, 3]), 12)
    0.833333333333
    """
    x, y, weights = _checked(x, y, weights)
    if len(np.unique(x)) < len(np.unique(y)):
        x, y = y, x
    return float(graded_statistics(x, y, weights).spearman_rho[0])


def roc_auc(scores, positive, weights=None) -> float:
    """The area under the ROC curve of ``scores`` for the items where ``positive`` holds: the chance that a positive
    item scores higher than a negative one, a tie counting one half (Mann-Whitney; ``sklearn.metrics.roc_auc_score``).

    >>> roc_auc([0.1, 0.4, 0.4, 0.9], [False, True, False, True])  # (0.5 + 1 + 1 + 1) / 4
    0.875
    """
    labels = np.asarray(positive, dtype=bool).astype(np.float64)
    return float(graded_statistics(scores, labels, weights, thresholds=[1.0]).auc[0][0])


def weighted_kappa(first, second, categories: Sequence[float] = (0, 1, 2), weighting: str = "quadratic") -> float:
    """Cohen's weighted kappa of two raters' categories of the same items: 1 - sum(w O) / sum(w E), with O the
    table of observed pairs, E the table their margins expect, and w the disagreement of categories at positions i
    and j of ``categories``: (i - j)^2 (quadratic) or |i - j| (linear). Equals
    ``sklearn.metrics.cohen_kappa_score(first, second, labels=categories, weights=weighting)``; NaN where the raters'
    margins expect no disagreement (each rater always gave the same category).

    Worked by hand: grades (0, 1, 2, 2) and (0, 2, 2, 1). O holds the pairs 0-0, 1-2, 2-2, 2-1: sum(w O) = 0 + 1 +
    0 + 1 = 2 (quadratic). The margins are (1, 1, 2) and (1, 1, 2), so E = outer / 4 and sum(w E) = (1 x (0 + 1 +
    2 x 4) + 1 x (1 + 0 + 2 x 1) + 2 x (4 + 1 + 2 x 0)) / 4 = (9 + 3 + 10) / 4 = 5.5: kappa = 1 - 2 / 5.5 = 7 / 11.

    >>> round(weighted_kappa([0, 1, 2, 2], [0, 2, 2, 1]), 12), round(7 / 11, 12)
    (0.636363636364, 0.636363636364)
    """
    if weighting not in KAPPA_WEIGHTS:
        raise ParameterError(f"kappa weighting must be one of {', '.join(KAPPA_WEIGHTS)}, got {weighting!r}")
    first, second = np.asarray(first, dtype=np.float64).ravel(), np.asarray(second, dtype=np.float64).ravel()
    if len(first) != len(second):
        raise ParameterError(f"the two raters must rate the same items, got {len(first)} and {len(second)} ratings")
    categories = np.asarray(categories, dtype=np.float64)
    rows, columns = np.searchsorted(categories, first), np.searchsorted(categories, second)
    known = (rows < len(categories)) & (columns < len(categories))
    if not (known.all() and (categories[rows] == first).all() and (categories[columns] == second).all()):
        raise ParameterError(f"every rating must be one of the categories {categories.tolist()}")
    count = len(categories)
    observed = np.bincount(rows * count + columns, minlength=count * count).reshape(count, count).astype(np.float64)
    if not len(first):
        return float("nan")
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / len(first)
    distance = np.abs(np.subtract.outer(np.arange(count), np.arange(count))).astype(np.float64)
    disagreement = distance ** 2 if weighting == "quadratic" else distance
    chance = float((disagreement * expected).sum())
    if chance == 0:
        return float("nan")
    return 1.0 - float((disagreement * observed).sum()) / chance


def krippendorff_alpha_ordinal(units: Sequence[Sequence[float]]) -> float:
    """Krippendorff's alpha with the ordinal metric of the values each unit got from its raters (any number of raters;
    a rater who did not rate a unit is left out of it; a unit with fewer than two values is not pairable and left
    out). From the coincidence matrix o (each unit adds its ordered pairs of values, over m_u - 1), n_c = sum_k o_ck
    and n = sum n_c:

        delta_ck = (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2,   alpha = 1 - (n - 1) sum o_ck delta_ck / sum n_c n_k delta_ck

    (Krippendorff 2011). NaN where fewer than two values are pairable or every pairable value is the same.

    Worked by hand: units (0, 0), (1, 2), (2, 2). o: 0-0 counts 2, 1-2 and 2-1 one each, 2-2 two: n_c = (2, 1, 3), n = 6.
    delta_01 = (2 + 1 - 1.5)^2 = 2.25, delta_12 = (1 + 3 - 2)^2 = 4, delta_02 = (6 - 2.5)^2 = 12.25. Observed: 2 x 4 =
    8, times n - 1 = 40; expected: 2 (2 x 1 x 2.25 + 2 x 3 x 12.25 + 1 x 3 x 4) = 2 (4.5 + 73.5 + 12) = 180.

    >>> round(krippendorff_alpha_ordinal([[0, 0], [1, 2], [2, 2]]), 6), round(1 - 40 / 180, 6)
    (0.777778, 0.777778)
    """
    pairable = [np.asarray(unit, dtype=np.float64) for unit in units if len(unit) >= 2]
    if not pairable:
        return float("nan")
    values = np.concatenate(pairable)
    if not np.isfinite(values).all():
        raise ParameterError("Krippendorff's alpha reads finite values")
    categories, codes = np.unique(values, return_inverse=True)
    if len(categories) < 2:
        return float("nan")
    sizes = np.array([len(unit) for unit in pairable])
    owners = np.repeat(np.arange(len(pairable)), sizes)
    counts = np.zeros((len(pairable), len(categories)))
    np.add.at(counts, (owners, codes), 1.0)
    scaled = counts / (sizes - 1)[:, None]
    coincidences = counts.T @ scaled - np.diag(scaled.sum(axis=0))
    totals = coincidences.sum(axis=1)
    n = totals.sum()
    cumulative = np.cumsum(totals)
    low, high = np.minimum.outer(np.arange(len(categories)), np.arange(len(categories))), \
        np.maximum.outer(np.arange(len(categories)), np.arange(len(categories)))
    between = cumulative[high] - cumulative[low] + totals[low]
    delta = (between - (totals[:, None] + totals[None, :]) / 2) ** 2
    expected = float((np.outer(totals, totals) * delta).sum())
    if expected == 0:
        return float("nan")
    return 1.0 - float(n - 1) * float((coincidences * delta).sum()) / expected


def ranking_tau(first: Mapping[str, float], second: Mapping[str, float]) -> float:
    """Kendall's tau-b between two rankings of the same systems, each given as ``{system: score}`` (higher ranks
    first): how far one measure orders the systems as another does (1: the same order, -1: reversed). Only the
    systems both score with a finite number count; NaN with fewer than two of them, or where either side ties them
    all.

    Worked by hand: A > B > C on one side, A > C > B on the other: of the 3 pairs, 2 concordant and 1 discordant,
    tau-b = (2 - 1) / 3.

    >>> round(ranking_tau({"A": 0.9, "B": 0.5, "C": 0.1}, {"A": 0.8, "B": 0.2, "C": 0.3}), 4)
    0.3333
    >>> ranking_tau({"A": 0.9, "B": 0.5}, {"A": 0.8, "C": 0.3})
    nan
    """
    shared = [name for name in first if name in second
              and np.isfinite(float(first[name])) and np.isfinite(float(second[name]))]
    if len(shared) < 2:
        return float("nan")
    return kendall_tau_b([float(first[name]) for name in shared], [float(second[name]) for name in shared])
