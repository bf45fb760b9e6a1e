"""Scores by group (evalcore.stats.groups): a hand-worked example, the concept-count bins against numpy's quantiles,
and the groupings' own rules."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalcore.errors import ParameterError
from evalcore.stats.groups import (
    MAX_GROUPS,
    NO_GROUP,
    Grouping,
    concept_count_grouping,
    grouped_scores,
    label_grouping,
)

IDS = ("q1", "q2", "q3", "q4", "q5", "q6", "q7")
# CT: q1-q3, MR: q4-q5, q6 and q7 without a group. B has no value for q7 (excluded).
A = np.array([0.5, 0.7, 0.9, 1.0, 0.0, 0.3, 0.8])
B = np.array([0.4, 0.4, 0.7, 0.0, 0.0, 0.3, np.nan])
GROUPING = Grouping("modality", {"q1": "CT", "q2": "CT", "q3": "CT", "q4": "MR", "q5": "MR"})


def hand_worked(samples: int = 2000, compare: tuple[str, ...] = ("P",)):
    return grouped_scores({"A": IDS, "B": IDS}, {"A": {"P": A}, "B": {"P": B}}, GROUPING, compare=compare,
                          bootstrap_samples=samples, randomization_samples=samples)


def test_the_hand_worked_means_and_counts():
    scores = hand_worked(500, compare=())
    assert scores.groups == ("CT", "MR", NO_GROUP)
    means = scores.means.set_index(["group", "system"])
    # CT: A = 0.5, 0.7, 0.9 (mean 0.7), B = 0.4, 0.4, 0.7 (0.5); MR: A = 1, 0 (0.5), B = 0, 0 (0);
    # (none): A = 0.3, 0.8 (0.55), B = 0.3 (q7 undefined: one query).
    expected = {("CT", "A"): (0.7, 3), ("CT", "B"): (0.5, 3), ("MR", "A"): (0.5, 2), ("MR", "B"): (0.0, 2),
                (NO_GROUP, "A"): (0.55, 2), (NO_GROUP, "B"): (0.3, 1)}
    for key, (mean, queries) in expected.items():
        assert means.loc[key, "mean"] == pytest.approx(mean, abs=1e-12)
        assert means.loc[key, "queries"] == queries
        assert means.loc[key, "ci_low"] <= means.loc[key, "mean"] <= means.loc[key, "ci_high"]
    # a constant group's interval is its value; one value is its own interval
    assert (means.loc[("MR", "B"), "ci_low"], means.loc[("MR", "B"), "ci_high"]) == (0.0, 0.0)
    assert (means.loc[(NO_GROUP, "B"), "ci_low"], means.loc[(NO_GROUP, "B"), "ci_high"]) == (0.3, 0.3)
    assert (scores.queries, scores.without_group, scores.unknown_ids) == (7, 2, ())


def test_the_hand_worked_tests_and_their_holm_correction_across_the_groups():
    rows = hand_worked().comparisons.set_index("group")
    assert list(rows.index) == ["CT", "MR", NO_GROUP]
    assert rows.loc["CT", "mean_difference"] == pytest.approx(0.2)
    assert rows.loc["MR", "mean_difference"] == pytest.approx(0.5)
    assert rows.loc[NO_GROUP, "mean_difference"] == 0.0  # q7 is left out: B has no value
    assert list(rows.queries) == [3, 2, 1]
    # t-test: CT's differences 0.1, 0.3, 0.2 (mean 0.2, sd 0.1): t = 0.2 / (0.1 / sqrt 3) = 3.4641 on 2 df, p = 0.0742;
    # MR's 1, 0 (mean 0.5, sd 0.7071): t = 1 on 1 df, p = 0.5; one query is no t-test.
    assert rows.loc["CT", "p_t_test"] == pytest.approx(0.074180, abs=1e-6)
    assert rows.loc["MR", "p_t_test"] == pytest.approx(0.5)
    assert math.isnan(rows.loc[NO_GROUP, "p_t_test"])
    # Holm over the two groups tested: 2 x 0.0742, then max(0.1484, 1 x 0.5); the untested group stays undefined
    assert rows.loc["CT", "p_t_test_holm"] == pytest.approx(2 * 0.074180, abs=2e-6)
    assert rows.loc["MR", "p_t_test_holm"] == pytest.approx(0.5)
    assert math.isnan(rows.loc[NO_GROUP, "p_t_test_holm"])
    # randomization: in CT only the two flips of every sign reach |0.2| (p about 2/8); in MR every flip gives
    # |+-1 + 0| / 2 = 0.5 (p = 1); a difference of 0 is always reached (p = 1)
    assert 0.2 < rows.loc["CT", "p_randomization"] < 0.3
    assert (rows.loc["MR", "p_randomization"], rows.loc[NO_GROUP, "p_randomization"]) == (1.0, 1.0)
    assert rows.loc["CT", "p_randomization_holm"] == pytest.approx(min(1.0, 3 * rows.loc["CT", "p_randomization"]))
    assert (rows.loc["MR", "p_randomization_holm"], rows.loc[NO_GROUP, "p_randomization_holm"]) == (1.0, 1.0)


def test_significant_reads_a_pair_in_either_order():
    scores = hand_worked()
    forward = scores.significant("P", "A", "B", level=1.1)
    backward = scores.significant("P", "B", "A", level=1.1)
    assert list(forward.mean_difference) == [-d for d in backward.mean_difference]
    assert set(backward.system_a) == {"B"} and scores.significant("P", "A", "B").empty  # none at 0.05


def test_to_dict_is_json_ready_with_undefined_numbers_as_none():
    payload = hand_worked(200).to_dict()
    assert payload["by"] == "modality" and payload["groups"] == ["CT", "MR", NO_GROUP]
    assert payload["without_group"] == 2 and payload["unknown_ids"] == 0
    assert [row["group"] for row in payload["means"]["P"]] == ["CT", "CT", "MR", "MR", NO_GROUP, NO_GROUP]
    assert payload["comparisons"]["P"][2]["p_t_test"] is None


def test_a_group_no_system_holds_is_not_listed_and_unknown_ids_are_counted():
    grouping = Grouping("file:site", {"q1": "x", "zz": "y"}, listed=frozenset({"q1", "zz", "q2"}))
    scores = grouped_scores({"A": ("q1", "q2")}, {"A": {"P": np.array([1.0, 0.0])}}, grouping,
                            bootstrap_samples=100, randomization_samples=100)
    assert scores.groups == ("x", NO_GROUP)
    assert scores.unknown_ids == ("zz",) and scores.without_group == 1


def test_a_system_without_a_query_in_a_group_has_an_undefined_mean_there():
    scores = grouped_scores({"A": ("q1", "q2"), "B": ("q1",)},
                            {"A": {"P": np.array([1.0, 0.0])}, "B": {"P": np.array([0.5])}},
                            Grouping("g", {"q1": "x", "q2": "y"}), compare=["P"],
                            bootstrap_samples=100, randomization_samples=100)
    row = scores.means[(scores.means.group == "y") & (scores.means.system == "B")].iloc[0]
    assert row.queries == 0 and math.isnan(row["mean"])
    pair = scores.comparisons[scores.comparisons.group == "y"].iloc[0]
    assert pair.queries == 0 and math.isnan(pair.p_randomization) and math.isnan(pair.p_randomization_holm)


def test_unknown_systems_in_pairs_are_refused():
    with pytest.raises(ParameterError, match="unknown system 'C'"):
        grouped_scores({"A": IDS, "B": IDS}, {"A": {"P": A}, "B": {"P": B}}, GROUPING, compare=["P"],
                       pairs=[("A", "C")], bootstrap_samples=100, randomization_samples=100)


# --- the groupings -----------------------------------------------------------------------------------------------


def test_concept_bins_follow_numpys_inverted_cdf_quantiles_on_random_counts():
    rng = np.random.default_rng(67)
    for _ in range(200):
        size = int(rng.integers(1, 400))
        counts = rng.poisson(rng.uniform(0.5, 8), size)
        bins = int(rng.integers(1, 7))
        grouping = concept_count_grouping({f"i{i}": int(c) for i, c in enumerate(counts)}, bins)
        edges = sorted({int(np.quantile(counts, i / bins, method="inverted_cdf")) for i in range(1, bins)}
                       | {int(counts.max())})
        assert len(grouping.order) == len(edges) <= bins
        for i, count in enumerate(counts):
            position = next(p for p, edge in enumerate(edges) if count <= edge)  # ties at an edge: the bin below
            name = grouping.group_of(f"i{i}")
            assert grouping.order.index(name) == position
            low = int(name.rstrip("+").split("-")[0])
            high = int(name.split("-")[1]) if "-" in name else low
            assert low <= count and (name.endswith("+") or count <= high)


def test_concept_bins_of_rocov2_like_counts_read_as_the_issue_asks():
    counts = {f"i{i}": c for i, c in enumerate([1] * 10 + [2] * 23 + [3] * 26 + [4] * 19 + [5] * 11 + [6] * 11)}
    assert concept_count_grouping(counts).order == ("1-2", "3", "4", "5+")


def test_labels_with_several_classes_make_one_group_and_none_is_no_group():
    grouping = label_grouping("modality", {"a": frozenset({"PET", "CT"}), "b": frozenset(), "c": frozenset({"CT"})})
    assert grouping.order == ("CT", "CT + PET") and grouping.group_of("b") == NO_GROUP


def test_a_grouping_of_too_many_groups_is_refused_in_one_line():
    with pytest.raises(ParameterError, match=rf"^ids: at most {MAX_GROUPS} groups, found 101 \(0, 1, 2 and 98 more\)"):
        Grouping("ids", {f"q{i}": str(i) for i in range(101)})


def test_a_cell_reading_none_is_no_group():
    assert Grouping("g", {"q1": NO_GROUP, "q2": "x"}).order == ("x",)
