"""Metrics: hand-worked numbers, batch == per-query function, NDCG == scikit-learn on tie-free cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import ndcg_score

from evalcore.errors import ParameterError
from evalcore.metrics import registry as m


def test_ndcg_of_three_items_by_hand():
    # DCG = 0.5/1 + 1/log2(3) + 0 ; IDCG = 1/1 + 0.5/log2(3)
    dcg = 0.5 + 1 / math.log2(3)
    idcg = 1 + 0.5 / math.log2(3)
    assert m.ndcg([0.5, 1.0, 0.0], [1.0, 0.5, 0.0], 3) == pytest.approx(dcg / idcg)
    assert m.ndcg([0.5, 1.0, 0.0], [1.0, 0.5, 0.0], 3) == pytest.approx(0.859719, abs=1e-6)
    assert m.ndcg([0.0], [0.0], 1) is None
    exp_dcg = (2 ** 0.5 - 1) + 1 / math.log2(3)
    exp_idcg = 1 + (2 ** 0.5 - 1) / math.log2(3)
    assert m.ndcg([0.5, 1.0], [1.0, 0.5], 2, "exponential") == pytest.approx(exp_dcg / exp_idcg)


def test_other_metrics_by_hand():
    assert m.precision([True, True, False, True, False], 5) == 0.6
    assert m.average_precision([False, True, True], 3, 4) == pytest.approx((1 / 2 + 2 / 3) / 3)
    assert m.recall([True, True], 2, 3) == pytest.approx(2 / 3)
    assert m.rank_biased_precision([1.0, 1.0, 1.0], 0.95) == pytest.approx(0.05 * (1 + 0.95 + 0.95 ** 2))
    assert m.expected_reciprocal_rank([1.0, 1.0], 2) == 1.0
    # CAG: r = (0.5, 1.0, 0.25), o = (0.5, 1, 1), r' = (0.5, 1, 0.0625), w = 2, unit discounts.
    assert m.context_aware_gain([0.5, 1.0, 0.25], [1, 1, 1], window=2) == pytest.approx(
        0.5 / 2 + 1.5 / 2 + 1.0625 / 2)


@pytest.mark.parametrize("seed", range(5))
def test_batches_agree_with_per_query_functions(seed):
    rng = np.random.default_rng(seed)
    q, d, k = 40, 35, 10
    rel = np.round(rng.random((q, d)) * rng.integers(0, 2, (q, d)), 3)
    ideal = -np.sort(-rng.random((q, k)), axis=1)
    ideal[0] = 0.0
    in_pool = rng.integers(0, 12, q)
    binary = rel >= 0.5
    for gain in m.GAINS:
        batch = m.ndcg_batch(rel, ideal, k, gain)
        for i in range(q):
            expected = m.ndcg(rel[i].tolist(), ideal[i].tolist(), k, gain)
            assert (np.isnan(batch[i]) and expected is None) or batch[i] == pytest.approx(expected)
    ap, rc = m.average_precision_batch(binary, k, in_pool), m.recall_batch(binary, k, in_pool)
    rbp, err = m.rbp_batch(rel), m.err_batch(rel, k)
    cag_dcg = m.cag_batch(rel, m.dcg_discounts(k))
    rbp_discounts = 0.05 * 0.95 ** np.arange(d)
    cag_rbp = m.cag_batch(rel, rbp_discounts)
    for i in range(q):
        for batch_value, single in [(ap[i], m.average_precision(binary[i].tolist(), k, int(in_pool[i]))),
                                    (rc[i], m.recall(binary[i].tolist(), k, int(in_pool[i])))]:
            assert (np.isnan(batch_value) and single is None) or batch_value == pytest.approx(single)
        assert rbp[i] == pytest.approx(m.rank_biased_precision(rel[i].tolist()))
        assert err[i] == pytest.approx(m.expected_reciprocal_rank(rel[i].tolist(), k))
        assert cag_dcg[i] == pytest.approx(m.context_aware_gain(rel[i].tolist(), m.dcg_discounts(k).tolist()))
        assert cag_rbp[i] == pytest.approx(m.context_aware_gain(rel[i].tolist(), rbp_discounts.tolist()))
        assert m.cag_rbp_batch(rel)[i] == pytest.approx(m.context_aware_gain_rbp(rel[i].tolist()))
        assert m.precision_batch(binary, 5)[i] == m.precision(binary[i].tolist(), 5)


@pytest.mark.parametrize("seed", range(10))
def test_ndcg_equals_scikit_learn_without_ties(seed):
    rng = np.random.default_rng(seed)
    pool = rng.permutation(np.linspace(0.01, 1.0, 30))  # distinct relevance values: no ties
    scores = rng.permutation(30).astype(float)  # a run's scores: distinct
    ranked = pool[np.argsort(-scores)]
    ideal = np.sort(pool)[::-1]
    for k in (1, 5, 10, 30):
        ours = m.ndcg(ranked.tolist(), ideal.tolist(), k)
        assert ours == pytest.approx(ndcg_score([pool], [scores], k=k))


def test_ndcg_is_one_for_the_ideal_run_and_bounded():
    rng = np.random.default_rng(1)
    for _ in range(50):
        pool = np.round(rng.random(20), 2)
        ideal = np.sort(pool)[::-1]
        assert m.ndcg(ideal.tolist(), ideal.tolist(), 10) in (None, pytest.approx(1.0))
        value = m.ndcg(rng.permutation(pool).tolist(), ideal.tolist(), 10)
        assert value is None or 0.0 <= value <= 1.0 + 1e-12


def test_registry_names_round_trip_and_reject_unknown():
    for name in m.default_metric_names([5, 10], ["modality", "organ", "modality+organ"]):
        assert m.parse_metric(name).name == name
        assert m.parse_metric(name).describe()
    for bad in ["CUI", "nDCG@10", "P@5", "P@5[colour]", "RBP@5", "CUI@0"]:
        with pytest.raises(ParameterError):
            m.parse_metric(bad)


def test_one_display_rule_names_every_family_under_every_relevance_and_parses_back():
    """Prefixes for IoU, nn-IoU and judged grades (CUI under grades is qrels-NDCG), braces for any other measure."""
    from evalcore.relevance.measures import MEASURES

    cui, rbp = m.FAMILIES["CUI"], m.FAMILIES["RBP"]
    assert [m.MetricSpec(cui, 10, None, key).name for key in ("iou", "nn-iou", "qrels", "dice")] == \
        ["CUI@10", "nn-CUI@10", "qrels-NDCG@10", "CUI@10{dice}"]
    assert m.MetricSpec(rbp, None, None, "nn-tversky").name == "RBP{nn-tversky}"
    assert m.MetricSpec(m.FAMILIES["P"], 5, "organ", None).name == "P@5[organ]"
    for family in m.FAMILIES.values():
        for key in [*m.NAME_PREFIXES, *MEASURES] if family.graded else [None]:
            spec = m.MetricSpec(family, 5 if family.uses_k else None, None if family.graded else "modality", key)
            assert m.parse_metric(spec.name) == spec, spec.name
            assert spec.name.startswith(spec.family_name)
    with pytest.raises(ParameterError, match="unknown metric"):
        m.parse_metric("qrels-CUI@10")
    with pytest.raises(ParameterError, match="unknown metric"):
        m.parse_metric("NDCG@10")


def test_cag_at_every_cutoff_shares_one_window_array_exactly():
    """CAG@K for several K and CAG-RBP read one kept array of window sums (computed once, at CAG-RBP's width: a later
    window reaches no item) and equal cag_batch computed afresh for each, bit for bit; a copy with other relevance
    keeps nothing."""
    from dataclasses import replace

    rng = np.random.default_rng(5)
    rel = np.round(rng.random((40, 12)) * (rng.random((40, 12)) < 0.6), 2)
    inputs = m.MetricInputs(relevance={"iou": rel}, ideal={"iou": np.sort(rel, axis=1)[:, ::-1]},
                            relevant_in_pool={"iou": np.full(40, 3)}, label_matches={}, label_present={},
                            threshold=0.5, gain="linear")
    for name, fresh in (("CAG@30", m.cag_batch(rel, m.dcg_discounts(30))), ("CAG@5", m.cag_batch(rel, m.dcg_discounts(5))),
                        ("CAG-RBP", m.cag_rbp_batch(rel)), ("CAG@12", m.cag_batch(rel, m.dcg_discounts(12)))):
        assert np.array_equal(m.parse_metric(name).compute(inputs), fresh), name
    assert inputs.derived[("cag", "iou")].shape == (m.cag_rbp_width(12), 40)  # no rank past the last window with an item
    other = replace(inputs, relevance={"iou": rel[::-1].copy()})
    assert other.derived == {}
    assert np.array_equal(m.parse_metric("CAG@5").compute(other), m.cag_batch(rel[::-1], m.dcg_discounts(5)))


def test_cag_at_k_before_cag_rbp_computes_the_window_sums_once():
    """CAG@K read first keeps the windows at CAG-RBP's width already, so CAG-RBP reads them (same values as afresh)."""
    rng = np.random.default_rng(8)
    rel = np.round(rng.random((30, 20)), 2)
    inputs = m.MetricInputs(relevance={"iou": rel}, ideal={"iou": np.sort(rel, axis=1)[:, ::-1]},
                            relevant_in_pool={"iou": np.full(30, 3)}, label_matches={}, label_present={},
                            threshold=0.5, gain="linear")
    assert np.array_equal(m.parse_metric("CAG@5").compute(inputs), m.cag_batch(rel, m.dcg_discounts(5)))
    windows = inputs.derived[("cag", "iou")]
    assert len(windows) == m.cag_rbp_width(20)
    assert np.array_equal(m.parse_metric("CAG-RBP").compute(inputs), m.cag_rbp_batch(rel))
    assert inputs.derived[("cag", "iou")] is windows


def test_a_cutoff_far_beyond_the_lists_makes_no_array_wider_than_them():
    """Was: every metric padded its lists with zeros to K, so the standard report at K = 10,000 took 2.5 GB on the
    demo (11.6 GB on ROCOv2 test, hunt 27); a short list's missing ranks add nothing, so nothing is made for them.
    The values are the per-query definitions'."""
    rng = np.random.default_rng(11)
    rel = np.round(rng.random((30, 12)) * (rng.random((30, 12)) < 0.5), 2)
    ideal = np.sort(np.round(rng.random((30, 40)), 2), axis=1)[:, ::-1]
    in_pool = (ideal >= 0.5).sum(axis=1)
    inputs = m.MetricInputs(relevance={"iou": rel}, ideal={"iou": ideal}, relevant_in_pool={"iou": in_pool},
                            label_matches={"modality": rel > 0.3}, label_present={"modality": np.ones(30, bool)},
                            threshold=0.5, gain="linear")
    k = 10_000
    values = {name: m.parse_metric(name).compute(inputs)
              for name in (f"CUI@{k}", f"R@{k}", f"MAP@{k}", f"ERR@{k}", f"CAG@{k}", f"Prec@{k}", f"P@{k}[modality]")}
    widths = {key: (kept[1] if isinstance(kept, tuple) else kept).shape for key, kept in inputs.derived.items()}
    assert widths[("cag", "iou")] == (m.cag_rbp_width(12), 30)  # ranks x queries: no window past the last item's
    assert all(shape == (30, 12) for key, shape in widths.items() if key[0] != "cag"), widths
    for q in range(30):
        row, relevant = list(rel[q]), [v >= 0.5 for v in rel[q]]
        assert values[f"CUI@{k}"][q] == pytest.approx(m.ndcg(row, list(ideal[q]), k), abs=1e-12)
        assert values[f"R@{k}"][q] == pytest.approx(m.recall(relevant, k, in_pool[q]), abs=1e-12)
        assert values[f"MAP@{k}"][q] == pytest.approx(m.trec_average_precision(relevant, k, in_pool[q]), abs=1e-12)
        assert values[f"ERR@{k}"][q] == pytest.approx(m.expected_reciprocal_rank(row, k), abs=1e-12)
        padded = row + [0.0] * (k - len(row))  # the list, then non-relevant items: its last windows reach past it
        assert values[f"CAG@{k}"][q] == pytest.approx(m.context_aware_gain(padded, list(m.dcg_discounts(k))), abs=1e-12)
        assert values[f"Prec@{k}"][q] == pytest.approx(sum(relevant) / k, abs=1e-15)
        assert values[f"P@{k}[modality]"][q] == pytest.approx(m.precision(list(rel[q] > 0.3), k), abs=1e-15)
