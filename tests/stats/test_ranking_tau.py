"""Kendall's tau-b between two rankings of systems (:func:`evalcore.stats.agreement.ranking_tau`, issue 68): by hand,
against scipy, and the systems it leaves out."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from evalcore.stats.agreement import ranking_tau


def test_the_same_order_is_one_and_the_reverse_minus_one():
    first = {"A": 0.9, "B": 0.5, "C": 0.1}
    assert ranking_tau(first, {"A": 3.0, "B": 2.0, "C": 1.0}) == pytest.approx(1.0)
    assert ranking_tau(first, {"A": 1.0, "B": 2.0, "C": 3.0}) == pytest.approx(-1.0)


def test_one_swap_of_three_by_hand():
    # A > B > C against A > C > B: 2 concordant pairs, 1 discordant, tau = 1/3.
    assert ranking_tau({"A": 0.9, "B": 0.5, "C": 0.1}, {"A": 0.8, "B": 0.2, "C": 0.3}) == pytest.approx(1 / 3)


@pytest.mark.parametrize("seed", range(5))
def test_agrees_with_scipy_ties_included(seed):
    rng = np.random.default_rng(seed)
    systems = [f"s{i}" for i in range(12)]
    x, y = rng.integers(0, 5, 12) / 4, rng.random(12)
    found = ranking_tau(dict(zip(systems, x, strict=True)), dict(zip(systems, y, strict=True)))
    assert found == pytest.approx(kendalltau(x, y).statistic)


def test_only_systems_both_score_with_a_number_count():
    first = {"A": 0.9, "B": 0.5, "C": 0.1, "D": float("nan")}
    second = {"A": 0.8, "B": 0.2, "C": 0.3, "D": 0.0, "E": 1.0}
    assert ranking_tau(first, second) == pytest.approx(1 / 3)
    assert math.isnan(ranking_tau({"A": 1.0}, {"A": 1.0}))
    assert math.isnan(ranking_tau({"A": 1.0, "B": 1.0}, {"A": 0.0, "B": 1.0}))  # one side ties every system

