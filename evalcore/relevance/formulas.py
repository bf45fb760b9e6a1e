"""Relevance between two concept sets (docs/DESIGN.md §2; Wei, Kurtz, Cloppet 2025; docs/RELEVANCE_MEASURES.md).

The ``*_from_counts`` functions hold each formula once; they accept Python numbers
or NumPy arrays, so the per-pair functions here and the vectorised engine compute
bit-identical values. A is the query's concept set, B the candidate's.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from evalcore.errors import ParameterError

Neighbours = Mapping[str, frozenset[str]]


def check_alpha(alpha: float) -> float:
    """``alpha`` as a float in [0, 1]; anything else (a text, None, True) refused.

    >>> check_alpha(1), check_alpha(0.25)
    (1.0, 0.25)
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)):
        raise ParameterError(f"alpha must be a number in [0, 1], got {alpha!r:.60}")
    alpha = float(alpha)
    if not 0.0 <= alpha <= 1.0:
        raise ParameterError(f"alpha must lie in [0, 1], got {alpha}")
    return alpha


def nn_iou_from_counts(intersection, approximate, union, alpha: float):
    """``(|A ∩ B| + alpha |N(A,B)|) / |A ∪ B|``, 0 where the union is empty.

    >>> nn_iou_from_counts(1, 2, 3, 0.5)
    0.6666666666666666
    >>> nn_iou_from_counts(0, 0, 0, 0.5)
    0.0
    """
    if np.isscalar(union):
        return (intersection + alpha * approximate) / union if union else 0.0
    union = np.asarray(union)
    numerator = np.asarray(intersection, dtype=np.float64) + alpha * np.asarray(approximate, dtype=np.float64)
    return np.divide(numerator, union, out=np.zeros(numerator.shape), where=union > 0)


def iou(a: frozenset[str], b: frozenset[str]) -> float:
    """``IoU(A,B) = |A ∩ B| / |A ∪ B|``, 0 when both sets are empty.

    >>> iou(frozenset({"CT", "vein"}), frozenset({"CT", "vessel"}))
    0.3333333333333333
    """
    return nn_iou_from_counts(len(a & b), 0, len(a | b), 0.0)


def approximate_matches(a: frozenset[str], b: frozenset[str], neighbours: Neighbours) -> frozenset[str]:
    """``N(A,B) = {a ∈ A \\ B : ∃ b ∈ B, a ~n b} ∪ {b ∈ B \\ A : ∃ a ∈ A, b ~n a}``.

    ``neighbours[c]`` is the set of concepts within n hops of ``c`` (``c`` excluded).

    >>> nb = {"vein": frozenset({"vessel"}), "vessel": frozenset({"vein"}), "CT": frozenset()}
    >>> sorted(approximate_matches(frozenset({"CT", "vein"}), frozenset({"CT", "vessel"}), nb))
    ['vein', 'vessel']
    """
    empty: frozenset[str] = frozenset()
    from_a = {c for c in a - b if neighbours.get(c, empty) & b}
    from_b = {c for c in b - a if neighbours.get(c, empty) & a}
    return frozenset(from_a | from_b)


def nn_iou(a: frozenset[str], b: frozenset[str], neighbours: Neighbours, alpha: float = 0.5) -> float:
    """``nn-IoU(A,B) = (|A ∩ B| + alpha |N(A,B)|) / |A ∪ B|``.

    Worked example of docs/DESIGN.md §2 (n = 1, alpha = 0.5, KG vein -> blood vessel):

    >>> nb = {"vein": frozenset({"vessel"}), "vessel": frozenset({"vein"})}
    >>> nn_iou(frozenset({"CT", "vein"}), frozenset({"CT", "vessel"}), nb, 0.5)
    0.6666666666666666
    """
    alpha = check_alpha(alpha)
    return nn_iou_from_counts(len(a & b), len(approximate_matches(a, b, neighbours)), len(a | b), alpha)


def nn_tversky_from_counts(intersection, only_a, only_b, approx_a, approx_b, alpha: float,
                           weight_a: float, weight_b: float):
    """``(|A∩B| + alpha|N|) / (|A∩B| + alpha|N| + a(|A\\B| - alpha|N_A|) + b(|B\\A| - alpha|N_B|))``.

    With ``alpha = 0`` this is Tversky's index; 0 when the denominator is 0. The
    denominator is evaluated as ``|A∩B| + a|A\\B| + b|B\\A| + alpha((1-a)|N_A| + (1-b)|N_B|)``
    (the same number), and with ``a = b`` from the totals ``|A\\B| + |B\\A|`` and ``|N|``:
    so ``a = b = 1`` gives exactly nn-IoU's floating-point value, and a caller that knows
    only the totals (the engine, for a symmetric measure) gets the same bits as one that
    knows both sides.

    >>> nn_tversky_from_counts(1, 1, 1, 1, 1, 0.5, 1.0, 1.0)  # = nn-IoU of the worked example
    0.6666666666666666
    >>> nn_tversky_from_counts(1, 2, 0, 2, 0, 0.5, 1.0, 1.0) == nn_tversky_from_counts(1, 1, 1, 1, 1, 0.5, 1.0, 1.0)
    True
    """
    if weight_a == weight_b:
        unique = weight_a * (only_a + only_b) + alpha * ((1 - weight_a) * (approx_a + approx_b))
    else:
        unique = weight_a * only_a + weight_b * only_b + alpha * ((1 - weight_a) * approx_a + (1 - weight_b) * approx_b)
    shared = intersection + alpha * (approx_a + approx_b)
    denominator = intersection + unique
    if np.isscalar(denominator):
        return shared / denominator if denominator else 0.0
    return np.divide(shared, denominator, out=np.zeros(np.shape(denominator)), where=denominator > 0)


def tversky(a: frozenset[str], b: frozenset[str], weight_a: float = 1.0, weight_b: float = 1.0) -> float:
    """``Tversky(A,B; a, b) = |A ∩ B| / (|A ∩ B| + a|A \\ B| + b|B \\ A|)`` (a = b = 1: IoU; 0.5: Dice).

    Source: A. Tversky, Features of similarity, Psychological Review 84(4), 1977; docs/DESIGN.md §2.
    ``a`` weighs the query's concepts that the candidate lacks, ``b`` the candidate's extra ones.
    Worked example: A = {x, y, w}, B = {x, z}, a = 0.7, b = 0.3: 1 / (1 + 0.7 * 2 + 0.3 * 1) = 1 / 2.7.

    >>> tversky(frozenset({"x", "y"}), frozenset({"x", "z"}), 0.5, 0.5)  # Dice
    0.5
    >>> round(tversky(frozenset({"x", "y", "w"}), frozenset({"x", "z"}), 0.7, 0.3), 6)
    0.37037
    """
    return nn_tversky(a, b, {}, 0.0, weight_a, weight_b)


def nn_tversky(a: frozenset[str], b: frozenset[str], neighbours: Neighbours, alpha: float = 0.5,
               weight_a: float = 1.0, weight_b: float = 1.0) -> float:
    """nn-Tversky: each approximate match moves alpha from its unique tally to the shared one (docs/DESIGN.md §2).

    ``(|A∩B| + alpha|N|) / (|A∩B| + alpha|N| + a(|A\\B| - alpha|N_A|) + b(|B\\A| - alpha|N_B|))`` with
    ``N_A = N(A,B) ∩ A``, ``N_B = N(A,B) ∩ B``. Worked example (docs/DESIGN.md §2, a = b = 0.5):
    (1 + 0.5 * 2) / (2 + 0.5 (1 - 0.5) + 0.5 (1 - 0.5)) = 2 / 2.5.

    >>> nb = {"vein": frozenset({"vessel"}), "vessel": frozenset({"vein"})}
    >>> nn_tversky(frozenset({"CT", "vein"}), frozenset({"CT", "vessel"}), nb, 0.5, 0.5, 0.5)
    0.8
    """
    alpha = check_alpha(alpha)
    if weight_a < 0 or weight_b < 0:
        raise ParameterError(f"Tversky weights must be >= 0, got {weight_a}, {weight_b}")
    matches = approximate_matches(a, b, neighbours)
    return nn_tversky_from_counts(
        len(a & b), len(a - b), len(b - a), len(matches & a), len(matches & b), alpha, weight_a, weight_b
    )


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """``Dice(A,B) = 2|A ∩ B| / (|A| + |B|)``, 0 when both sets are empty; Tversky with a = b = 0.5.

    Source: L. R. Dice, Measures of the amount of ecologic association between species,
    Ecology 26(3), 1945. Computed as Tversky(A, B; 0.5, 0.5), so the two give the same bits.
    Worked example: {CT, vein} and {CT, vessel}: 2 * 1 / (2 + 2) = 0.5.

    >>> dice(frozenset({"CT", "vein"}), frozenset({"CT", "vessel"}))
    0.5
    """
    return tversky(a, b, 0.5, 0.5)


def check_hop_weights(weights) -> tuple[float, ...]:
    """Hop weights ``w_1 >= w_2 >= ... >= w_n`` in [0, 1], at least one."""
    values = tuple(float(w) for w in weights)
    if not values:
        raise ParameterError("nn-IoU-hops needs at least one hop weight w1")
    if any(not 0.0 <= w <= 1.0 for w in values):
        raise ParameterError(f"hop weights must lie in [0, 1], got {list(values)}")
    if any(later > earlier for earlier, later in zip(values, values[1:])):
        raise ParameterError(f"hop weights must not increase with the distance (w1 >= w2 >= ...), got {list(values)}")
    return values


def nn_iou_hops_from_counts(intersection, within, union, weights):
    """``(|A ∩ B| + sum_d w_d |N_d|) / |A ∪ B|`` from the cumulative counts ``within[d-1] = |N_1| + ... + |N_d|``.

    ``N_d`` holds the approximate matches whose nearest partner is exactly d hops away. The
    sum is taken as ``sum_d (w_d - w_{d+1}) within[d-1]`` (``w_{n+1} = 0``): with equal
    weights every step but the last is exactly 0, so the value has nn-IoU's bits.

    >>> nn_iou_hops_from_counts(1, (1, 2), 3, (0.5, 0.25))  # (1 + 0.5 * 1 + 0.25 * 1) / 3
    0.5833333333333334
    >>> nn_iou_hops_from_counts(1, (0, 2), 3, (0.5, 0.5)) == nn_iou_from_counts(1, 2, 3, 0.5)
    True
    """
    numerator = intersection if np.isscalar(intersection) else np.asarray(intersection, dtype=np.float64)
    for level, count in enumerate(within):
        following = weights[level + 1] if level + 1 < len(weights) else 0.0
        numerator = numerator + (weights[level] - following) * count
    return _ratio(numerator, union)


def nearest_partner_distances(a: frozenset[str], b: frozenset[str],
                              distances: Mapping[str, Mapping[str, int]]) -> list[int]:
    """For each approximate match, the KG distance to its nearest partner in the other set.

    ``distances[c]`` maps each concept within n hops of ``c`` (``c`` excluded) to its distance.
    A partner is any concept of the other set, as in docs/DESIGN.md §2's ``N(A,B)``.

    >>> d = {"vein": {"vessel": 1, "organ": 2}, "vessel": {"vein": 1}, "organ": {"vein": 2}}
    >>> sorted(nearest_partner_distances(frozenset({"vein"}), frozenset({"vessel", "organ"}), d))
    [1, 1, 2]
    """
    empty: Mapping[str, int] = {}
    found = []
    for own, other in ((a - b, b), (b - a, a)):
        for concept in own:
            reach = distances.get(concept, empty)
            nearest = min((reach[partner] for partner in other if partner in reach), default=None)
            if nearest is not None:
                found.append(nearest)
    return found


def nn_iou_hops(a: frozenset[str], b: frozenset[str], distances: Mapping[str, Mapping[str, int]],
                weights=(0.5, 0.25)) -> float:
    """nn-IoU-hops: a near match whose nearest partner is d hops away earns ``w_d`` (docs/RELEVANCE_MEASURES.md).

    ``(|A ∩ B| + sum_{x ∈ N(A,B)} w_{d(x)}) / |A ∪ B|`` with n = len(weights) and non-increasing
    weights; nn-IoU(alpha, n) is the case ``w_1 = ... = w_n = alpha``. Answers the nn-IoU paper's
    own limit that only "within n hops" counts. Worked example, w = (0.5, 0.25):
    A = {CT, vein}, B = {CT, vessel, organ} with vein-vessel 1 hop and vein-organ 2 hops: vein and
    vessel are 1 hop from their nearest partner, organ 2 hops: (1 + 0.5 + 0.5 + 0.25) / 4 = 0.5625.

    >>> d = {"vein": {"vessel": 1, "organ": 2}, "vessel": {"vein": 1}, "organ": {"vein": 2}}
    >>> nn_iou_hops(frozenset({"CT", "vein"}), frozenset({"CT", "vessel", "organ"}), d, (0.5, 0.25))
    0.5625
    """
    weights = check_hop_weights(weights)
    nearest = nearest_partner_distances(a, b, distances)
    within = tuple(sum(1 for d in nearest if d <= hops) for hops in range(1, len(weights) + 1))
    return nn_iou_hops_from_counts(len(a & b), within, len(a | b), weights)


CREDIT_SCALE = 1 << 16

#: How close below a threshold a relevance value may lie and still reach it. IoU-family values are ratios of counts
#: with alpha, n and the threshold written as decimals; floating point computes some just below the ratio they are
#: (alpha 0.2: (1 + 0.2) / 3 = 0.39999999999999997, which a threshold of 0.4 left out: nn-Prec, nn-R and nn-MAP counted
#: the item not relevant). A value that is not the threshold on paper lies far further from it: with alpha and the
#: threshold of up to 6 decimals and unions of up to 1,000 concepts (500 a set), at least 1e-9 away.
THRESHOLD_TOLERANCE = 1e-12


def reaching(threshold: float) -> float:
    """The lowest relevance that counts as reaching ``threshold`` ("relevant" for MAP, Prec, R and the pool's count
    of relevant items): the threshold less :data:`THRESHOLD_TOLERANCE`, one definition for the metrics and every
    backend of the engine.

    >>> (1 + 0.2) / 3 >= 0.4, (1 + 0.2) / 3 >= reaching(0.4), 0.4 - 1e-9 >= reaching(0.4)
    (False, True, False)
    """
    return threshold - THRESHOLD_TOLERANCE


def credit_units(similarity: float) -> int:
    """A similarity in [0, 1] as a whole number of ``1 / 2^16``: sums of credits are then exact in any order.

    >>> credit_units(0.5), credit_units(1 / 3)
    (32768, 21845)
    """
    return int(np.rint(float(similarity) * CREDIT_SCALE))


def nn_iou_depth_from_counts(intersection, credit, union, alpha: float):
    """``(|A ∩ B| + alpha * credit / 2^16) / |A ∪ B|`` with ``credit`` the near matches' summed credit units.

    >>> round(nn_iou_depth_from_counts(1, 2 * credit_units(16 / 17), 3, 1.0), 4)  # (1 + 2 * 16/17) / 3
    0.9608
    """
    if np.isscalar(credit):
        return _ratio(intersection + alpha * (credit / CREDIT_SCALE), union)
    numerator = np.asarray(intersection, dtype=np.float64) + alpha * (np.asarray(credit, dtype=np.float64) / CREDIT_SCALE)
    return _ratio(numerator, union)


def near_match_credit(a: frozenset[str], b: frozenset[str], credits: Mapping[str, Mapping[str, int]]) -> int:
    """Summed credit units of ``N(A,B)``: each near match earns the best credit among its partners.

    ``credits[c]`` maps each concept within n hops of ``c`` to the credit units of that pair.

    >>> c = {"vein": {"vessel": 40000}, "vessel": {"vein": 40000}}
    >>> near_match_credit(frozenset({"CT", "vein"}), frozenset({"CT", "vessel"}), c)
    80000
    """
    empty: Mapping[str, int] = {}
    total = 0
    for own, other in ((a - b, b), (b - a, a)):
        for concept in own:
            reach = credits.get(concept, empty)
            total += max((reach[partner] for partner in other if partner in reach), default=0)
    return total


def nn_iou_depth(a: frozenset[str], b: frozenset[str], credits: Mapping[str, Mapping[str, int]],
                 alpha: float = 1.0) -> float:
    """nn-IoU-depth: a near match earns alpha x the Wu-Palmer similarity of its closest partner.

    ``(|A ∩ B| + alpha sum_{x ∈ N(A,B)} max_{y partner of x} WuP(x, y)) / |A ∪ B|``, each WuP rounded to
    a multiple of 2^-16 (:func:`credit_units`); definition and worked example in
    docs/RELEVANCE_MEASURES.md (Wu & Palmer, ACL 1994). A link deep in the taxonomy (frontal lobe
    is_a cerebral cortex, WuP 16/17) earns more than one near the roots (WuP 2/3 under a root).

    >>> c = {"lobe": {"cortex": credit_units(16 / 17)}, "cortex": {"lobe": credit_units(16 / 17)}}
    >>> round(nn_iou_depth(frozenset({"MRI", "lobe"}), frozenset({"MRI", "cortex"}), c, 1.0), 4)
    0.9608
    """
    alpha = check_alpha(alpha)
    return nn_iou_depth_from_counts(len(a & b), near_match_credit(a, b, credits), len(a | b), alpha)


def _ratio(numerator, denominator):
    """``numerator / denominator``, 0 where the denominator is 0 (scalars or arrays)."""
    if np.isscalar(denominator) and np.isscalar(numerator):
        return numerator / denominator if denominator else 0.0
    denominator = np.asarray(denominator)
    numerator = np.asarray(numerator, dtype=np.float64)
    return np.divide(numerator, denominator, out=np.zeros(np.broadcast_shapes(numerator.shape, denominator.shape)),
                     where=denominator > 0)
