"""Relevance between two concept sets (DESIGN §2; Wei, Kurtz, Cloppet 2025).

The ``*_from_counts`` functions hold each formula once; they accept Python numbers
or NumPy arrays, so the per-pair functions here and the vectorised engine compute
bit-identical values.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .errors import ParameterError

Neighbours = Mapping[str, frozenset[str]]


def check_alpha(alpha: float) -> float:
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

    Worked example of DESIGN §2 (n = 1, alpha = 0.5, KG vein -> blood vessel):

    >>> nb = {"vein": frozenset({"vessel"}), "vessel": frozenset({"vein"})}
    >>> nn_iou(frozenset({"CT", "vein"}), frozenset({"CT", "vessel"}), nb, 0.5)
    0.6666666666666666
    """
    alpha = check_alpha(alpha)
    return nn_iou_from_counts(len(a & b), len(approximate_matches(a, b, neighbours)), len(a | b), alpha)


def nn_tversky_from_counts(intersection, only_a, only_b, approx_a, approx_b, alpha: float,
                           weight_a: float, weight_b: float):
    """``(|A∩B| + alpha|N|) / (|A∩B| + alpha|N| + a(|A\\B| - alpha|N_A|) + b(|B\\A| - alpha|N_B|))``.

    With ``alpha = 0`` this is Tversky's index; 0 when the denominator is 0.

    >>> nn_tversky_from_counts(1, 1, 1, 1, 1, 0.5, 1.0, 1.0)  # = nn-IoU of the worked example
    0.6666666666666666
    """
    shared = intersection + alpha * (approx_a + approx_b)
    denominator = shared + weight_a * (only_a - alpha * approx_a) + weight_b * (only_b - alpha * approx_b)
    if np.isscalar(denominator):
        return shared / denominator if denominator else 0.0
    return np.divide(shared, denominator, out=np.zeros(np.shape(denominator)), where=denominator > 0)


def tversky(a: frozenset[str], b: frozenset[str], weight_a: float = 1.0, weight_b: float = 1.0) -> float:
    """``Tversky(A,B; a, b) = |A ∩ B| / (|A ∩ B| + a|A \\ B| + b|B \\ A|)`` (a = b = 1: IoU; 0.5: Dice).

    >>> tversky(frozenset({"x", "y"}), frozenset({"x", "z"}), 0.5, 0.5)  # Dice
    0.5
    """
    return nn_tversky(a, b, {}, 0.0, weight_a, weight_b)


def nn_tversky(a: frozenset[str], b: frozenset[str], neighbours: Neighbours, alpha: float = 0.5,
               weight_a: float = 1.0, weight_b: float = 1.0) -> float:
    """nn-Tversky: each approximate match moves alpha from its unique tally to the shared one.

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
