"""The agreement statistics (evalcore/stats/agreement.py, issue 68): hand-worked numbers, scipy's and scikit-learn's
as oracles on seeded random data (weights as repeated items), and Krippendorff's alpha against a straightforward
implementation written here."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from evalcore.errors import ParameterError
from evalcore.stats.agreement import (
    graded_statistics,
    kendall_tau_b,
    krippendorff_alpha_ordinal,
    roc_auc,
    spearman_rho,
    weighted_kappa,
)


def test_hand_worked_tau_b_rho_and_auc():
    # 6 pairs of x = (1, 2, 2, 3), y = (1, 1, 2, 3): 4 concordant, none discordant, 1 tied on x, 1 tied on y
    assert kendall_tau_b([1, 2, 2, 3], [1, 1, 2, 3]) == pytest.approx(4 / math.sqrt(5 * 5))
    # centred midranks (-1.5, 0, 0, 1.5) and (-1, -1, 0.5, 1.5)
    assert spearman_rho([1, 2, 2, 3], [1, 1, 2, 3]) == pytest.approx(3.75 / 4.5)
    # positives 0.4 and 0.9 against negatives 0.1 and 0.4: wins 1 + 0.5 (tie) + 1 + 1 of 4
    assert roc_auc([0.1, 0.4, 0.4, 0.9], [False, True, False, True]) == pytest.approx(3.5 / 4)
    # one discordant pair of three, none tied: (0 - 1 + 0) ... x = (1, 2, 3), y = (2, 1, 3): C = 2, D = 1
    assert kendall_tau_b([1, 2, 3], [2, 1, 3]) == pytest.approx(1 / 3)


def test_weights_count_items_as_repeats():
    # (x, y) = (1, 0) twice and (2, 1) once: the two copies of the first item are tied on both sides
    weighted = graded_statistics([1, 2], [0, 1], [[2, 1]], thresholds=[1])
    repeated = [1, 1, 2], [0, 0, 1]
    assert weighted.kendall_tau_b[0] == pytest.approx(stats.kendalltau(*repeated).statistic)
    assert weighted.spearman_rho[0] == pytest.approx(stats.spearmanr(*repeated).statistic)
    assert weighted.auc[0][0] == 1.0


def test_undefined_where_a_side_is_constant():
    assert math.isnan(kendall_tau_b([1, 2, 3], [1, 1, 1]))
    assert math.isnan(spearman_rho([1, 1], [1, 2]))
    assert math.isnan(roc_auc([0.2, 0.3], [True, True]))
    statistics = graded_statistics([1, 2, 3], [0, 1, 2], [[0, 0, 0], [0, 1, 0]])
    assert np.isnan(statistics.kendall_tau_b).all()  # no item, then one item: no pair to compare


def _repeated(x, y, w):
    return np.repeat(x, w), np.repeat(y, w)


@pytest.mark.parametrize("seed", range(3))
def test_against_scipy_and_sklearn_on_random_weighted_data(seed):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        n = int(rng.integers(2, 30))
        x = rng.integers(0, int(rng.integers(1, 9)), n) / 4  # many ties, as relevance values have
        y = rng.integers(0, 3, n) + 0.5 * (rng.random(n) < 0.3)  # mean grades
        w = rng.integers(0, 4, size=(3, n))
        found = graded_statistics(x, y, w, thresholds=[1, 2])
        for row in range(3):
            xr, yr = _repeated(x, y, w[row])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # scipy warns on constant input, where both give NaN
                tau, rho = stats.kendalltau(xr, yr).statistic, stats.spearmanr(xr, yr).statistic
            assert found.kendall_tau_b[row] == pytest.approx(tau, abs=1e-12, nan_ok=True)
            assert found.spearman_rho[row] == pytest.approx(rho, abs=1e-12, nan_ok=True)
            for position, threshold in enumerate([1, 2]):
                labels = yr >= threshold
                expected = roc_auc_score(labels, xr) if 0 < labels.sum() < len(labels) else math.nan
                assert found.auc[position][row] == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_two_continuous_sides_against_scipy():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=60), rng.normal(size=60)
    assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert roc_auc(x, y > 0.3, np.arange(60) % 3) == pytest.approx(
        roc_auc_score(y > 0.3, x, sample_weight=np.arange(60) % 3), abs=1e-12)


def test_tau_b_is_symmetric_and_sign_flips():
    rng = np.random.default_rng(5)
    x, y = rng.integers(0, 5, 40), rng.integers(0, 3, 40)
    assert kendall_tau_b(x, y) == pytest.approx(kendall_tau_b(y, x))
    assert kendall_tau_b(x, -y) == pytest.approx(-kendall_tau_b(x, y))


def test_hand_worked_weighted_kappa():
    # O: 0-0, 1-2, 2-2, 2-1 (quadratic disagreement 2); margins (1, 1, 2) both: expected disagreement 22 / 4
    assert weighted_kappa([0, 1, 2, 2], [0, 2, 2, 1]) == pytest.approx(1 - 2 / 5.5)
    # linear: observed 2, expected (1 (0 + 1 + 4) + 1 (1 + 0 + 2) + 2 (2 + 1 + 0)) / 4 = 14 / 4
    assert weighted_kappa([0, 1, 2, 2], [0, 2, 2, 1], weighting="linear") == pytest.approx(1 - 2 / 3.5)
    assert weighted_kappa([1, 1, 1], [1, 1, 1]) != weighted_kappa([1, 1, 1], [1, 1, 1])  # NaN: no disagreement expected
    assert weighted_kappa([0, 2], [0, 2]) == 1.0


@pytest.mark.parametrize("weighting", ["quadratic", "linear"])
def test_weighted_kappa_against_sklearn(weighting):
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        a = rng.integers(0, 3, n)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 3, n))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = cohen_kappa_score(a, b, labels=[0, 1, 2], weights=weighting)
        assert weighted_kappa(a, b, weighting=weighting) == pytest.approx(expected, abs=1e-12, nan_ok=True)


def test_weighted_kappa_refuses_what_it_cannot_read():
    with pytest.raises(ParameterError, match="categories"):
        weighted_kappa([0, 3], [0, 1])
    with pytest.raises(ParameterError, match="same items"):
        weighted_kappa([0, 1], [0])
    with pytest.raises(ParameterError, match="weighting"):
        weighted_kappa([0], [0], weighting="cubic")


def straightforward_alpha(units: list[list[float]]) -> float:
    """Krippendorff's ordinal alpha by its definition over pairable values: every ordered pair of values of one unit
    from two different raters, weighted 1 / (m_u - 1), against every ordered pair of pairable values."""
    pairable = [unit for unit in units if len(unit) >= 2]
    values = sorted({value for unit in pairable for value in unit})
    frequency = {value: sum(unit.count(value) for unit in pairable) for value in values}
    n = sum(frequency.values())

    def delta(c: float, k: float) -> float:
        low, high = min(c, k), max(c, k)
        between = sum(frequency[g] for g in values if low <= g <= high)
        return (between - (frequency[c] + frequency[k]) / 2) ** 2

    observed = sum(delta(unit[i], unit[j]) / (len(unit) - 1) for unit in pairable
                   for i, j in itertools.permutations(range(len(unit)), 2))
    expected = sum(delta(c, k) for unit_a in pairable for c in unit_a for unit_b in pairable for k in unit_b)
    expected -= sum(delta(c, c) for unit in pairable for c in unit)  # a value is not paired with itself (delta 0)
    return 1 - (n - 1) * observed / expected if expected else math.nan


def test_krippendorff_alpha_hand_worked_and_published():
    # units (0, 0), (1, 2), (2, 2): o_12 = o_21 = 1, n_c = (2, 1, 3); 1 - 5 x 8 / 180
    assert krippendorff_alpha_ordinal([[0, 0], [1, 2], [2, 2]]) == pytest.approx(1 - 40 / 180)
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers, 12 units, ordinal alpha 0.815
    data = [[1, 1, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4], [1, 1, 2, 1],
            [2, 2, 2, 2], [5, 5, 5], [1, 1], [3]]
    assert round(krippendorff_alpha_ordinal(data), 3) == 0.815
    assert krippendorff_alpha_ordinal(data) == pytest.approx(straightforward_alpha(data))
    assert math.isnan(krippendorff_alpha_ordinal([[1, 1], [1, 1, 1], [2]]))  # no variation among pairable values
    assert math.isnan(krippendorff_alpha_ordinal([[1], [2]]))  # nothing pairable


def test_krippendorff_alpha_against_the_straightforward_one():
    rng = np.random.default_rng(2)
    for _ in range(60):
        truth = rng.integers(0, 3, int(rng.integers(2, 12)))
        units = [[float(value if rng.random() < 0.7 else rng.integers(0, 3)) for _ in range(int(rng.integers(1, 5)))]
                 for value in truth]
        expected = straightforward_alpha(units)
        assert krippendorff_alpha_ordinal(units) == pytest.approx(expected, abs=1e-12, nan_ok=True)
