"""trec_eval's measures of the whole list (issue 67): ``recip_rank``, ``Rprec``, ``success@K``, ``bpref``, ``infAP``, the
11-point interpolated precision ``iprec_at_recall_0.00`` ... ``1.00``, ``gm_map`` and ``num_rel_ret``, and
ir_measures' ``judged@K``. The three layers: hand-worked numbers; each batch against its per-query function on seeded
random lists with tied relevance; trec_eval's own test files (../shared/data/trec_eval_test, read in place) and
pytrec_eval and ir_measures (test-only oracles) on random, tied and float32-tied runs, under judged grades and
concept relevance.

Where the oracles differ from trec_eval, the test says so: pytrec_eval-terrier 0.5.11 bundles an older trec_eval,
whose interpolated precision rounds ``L x R`` up from .1 (``(long) (L R + 0.9)``) where the current trec_eval and its
test files round to nearest (``lround``, ours); ir_measures counts a negative grade as judged, trec_eval (and we) as "in
the pool but unjudged".
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace

import ir_measures
import numpy as np
import pytest
import pytrec_eval

import evalcore
from evalcore.cli import main
from evalcore.data import ConceptSets, Qrels, Run
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator, table_depth
from evalcore.evaluation.options import Relevance, Scoring, Statistics
from evalcore.evaluation.results import evaluate_runs
from evalcore.metrics import registry as m
from evalcore.metrics.registry import JUDGED, MIN_GEO_MEAN, NOT_IN_POOL, PAST_END, RECALL_LEVELS, UNJUDGED, parse_metric
from evalcore.relevance.formulas import nn_iou, reaching
from evalcore.relevance.kg import neighbour_sets
from evalcore.stats.compare import bootstrap_cis, compare_columns
from tests.conftest import SHARED, needs, random_world
from tests.metrics.test_trec_compat import random_concept_run, random_judgments, tied_trec_run

TOLERANCE = 1e-12
FILES = SHARED / "trec_eval_test"
SUCCESS_CUTOFFS = (1, 5, 10)  # trec_eval's default success_K
IPREC = [f"iprec_at_recall_{level:.2f}" for level in RECALL_LEVELS]
#: Our families printed per query by trec_eval, under the same names (success@K is its success_K).
PER_QUERY = ["recip_rank", "Rprec", "bpref", "infAP", "num_rel_ret", *IPREC, *(f"success@{k}" for k in SUCCESS_CUTOFFS)]


def names(prefix: str) -> list[str]:
    return [f"{prefix}{name}" for name in [*PER_QUERY, "gm_map"]]


def trec_name(ours: str) -> str:
    """trec_eval's name of one of ours: the prefix dropped, ``success@K`` as ``success_K``."""
    bare = ours.split("-", 1)[1] if ours.startswith(("qrels-", "nn-")) else ours
    return bare.replace("@", "_")


def old_cutoff(level: float, relevant_in_pool: int) -> int:
    """The recall level's count in the older trec_eval that pytrec_eval-terrier 0.5.11 bundles."""
    return int(level * relevant_in_pool + 0.9)


def iprec_with_cutoff(relevant: list[bool], needed: int) -> float:
    """Interpolated precision of a list for a given count of relevant items (straightforward, for the old rule)."""
    hits, best = 0, 0.0
    for rank, is_relevant in enumerate(relevant, start=1):
        hits += is_relevant
        if hits >= needed:
            best = max(best, hits / rank)
    return best


# --- hand-worked -----------------------------------------------------------------------------------------------

def hand_judged() -> tuple[Evaluator, Run]:
    """q: a 2, b 0, c 1, d 3, e -1 (in the pool, unjudged), z 5 (never retrieved); listed a, b, x (no judgment), e, c.
    q2: f 1; listed g, h (no judgment): nothing relevant retrieved, AP 0."""
    qrels = Qrels({"q": {"a": 2, "b": 0, "c": 1, "d": 3, "e": -1, "z": 5}, "q2": {"f": 1}})
    return Evaluator(None, qrels=qrels), Run("s", {"q": ("a", "b", "x", "e", "c"), "q2": ("g", "h")})


def test_the_per_query_formulas_by_hand():
    relevant = [True, False, False, False, True]  # hand_judged's q at level 1: R = 4 (a, c, d, z), N = 1 (b)
    states = [JUDGED, JUDGED, NOT_IN_POOL, UNJUDGED, JUDGED]
    assert m.reciprocal_rank(relevant) == 1.0 and m.reciprocal_rank([False, True]) == 0.5
    assert m.r_precision(relevant, 4) == 0.25 and m.r_precision(relevant, 0) is None
    assert m.r_precision([True], 3) == pytest.approx(1 / 3)  # a short list's gaps are misses
    assert m.success(relevant, 1) == 1.0 and m.success([False] * 3 + [True], 3) == 0.0
    assert m.relevant_retrieved(relevant) == 2
    # bpref: a = 1; b is judged non-relevant; x and e are skipped; c = 1 - min(1, 4) / min(1, 4) = 0
    assert m.bpref(relevant, states, 4, 1) == 0.25
    # infAP: a = 1; c at j = 4: 1/5 + 4/5 * (3 in the pool above / 4) * ((1 + e) / (1 + 1 + 2e)) = 1/5 + 3/5 * 1/2
    assert m.inferred_average_precision(relevant, states, 4) == pytest.approx((1 + 0.5) / 4, abs=TOLERANCE)
    assert m.trec_average_precision(relevant, 5, 4) == pytest.approx((1 + 2 / 5) / 4)  # AP: x counts, e does not
    # iprec: P@i = 1, 1/2, 1/3, 1/4, 2/5; R = 4 asks round(4 L) items: 0 or 1 up to L = 0.3, 2 up to 0.6, 3 or 4 above
    expected = [1.0] * 4 + [0.4] * 3 + [0.0] * 4
    assert [m.interpolated_precision(relevant, 4, level) for level in RECALL_LEVELS] == expected
    assert m.interpolated_precision(relevant, 0, 0.5) is None
    # the older trec_eval (pytrec_eval's) asks (long) (0.3 x 4 + 0.9) = 2 items at L = 0.3, so 0.4 there
    assert old_cutoff(0.3, 4) == 2 and m.recall_cutoff(0.3, 4) == 1
    assert m.judged_share(states, 3) == pytest.approx(2 / 3) and m.judged_share(states, 10) == pytest.approx(3 / 5)
    assert m.geometric_mean_average_precision([0.35, 0.0]) == pytest.approx(math.sqrt(0.35 * MIN_GEO_MEAN))


def test_judged_grades_by_hand_through_the_evaluator():
    evaluator, run = hand_judged()
    table = ["qrels-recip_rank", "qrels-Rprec", "qrels-success@1", "qrels-bpref", "qrels-infAP", "qrels-gm_map",
             "qrels-num_rel_ret", "qrels-judged@3", "qrels-judged@10", "qrels-iprec_at_recall_0.30",
             "qrels-iprec_at_recall_0.40"]
    result = evaluator.evaluate([run], table, Relevance.of(empty_queries="zero")).systems["s"]
    assert result.query_ids == ("q", "q2")
    values = {name: result.values[name].tolist() for name in table}
    assert values["qrels-recip_rank"] == [1.0, 0.0] and values["qrels-Rprec"] == [0.25, 0.0]
    assert values["qrels-success@1"] == [1.0, 0.0] and values["qrels-num_rel_ret"] == [2.0, 0.0]
    assert values["qrels-bpref"] == [0.25, 0.0]
    assert values["qrels-infAP"] == pytest.approx([0.375, 0.0], abs=TOLERANCE)
    assert values["qrels-gm_map"] == pytest.approx([0.35, 0.0])  # a query's value is its AP over the whole list
    assert values["qrels-judged@3"] == pytest.approx([2 / 3, 0.0]) and values["qrels-judged@10"] == pytest.approx([0.6, 0.0])
    assert values["qrels-iprec_at_recall_0.30"] == [1.0, 0.0] and values["qrels-iprec_at_recall_0.40"] == [0.4, 0.0]
    means = evaluator.evaluate([run], table, Relevance.of(empty_queries="zero")).means()["s"]
    assert means["qrels-gm_map"] == pytest.approx(math.sqrt(0.35 * MIN_GEO_MEAN))  # AP 0 floored at 1e-5
    assert means["qrels-recip_rank"] == 0.5  # the MRR
    # At relevance level 2, c (grade 1) is judged non-relevant: R = 3 (a, d, z), N = 2 (b, c)
    level_two = evaluator.evaluate([run], ["qrels-bpref", "qrels-num_rel_ret"], Relevance.of(relevance_level=2))
    assert level_two.systems["s"].values["qrels-bpref"][0] == pytest.approx(1 / 3)
    assert level_two.systems["s"].values["qrels-num_rel_ret"][0] == 1.0


def test_concept_relevance_judges_the_whole_pool():
    """Under concept relevance every image with a concept set is judged (IoU against the query): bpref's N is the
    pool less R, and only an ID without a concept set is outside the pool (skipped by bpref, non-relevant to infAP,
    unjudged for judged@K). With the pool judged whole, infAP is the list's AP."""
    concepts = ConceptSets(("q", "a", "b", "c"), (frozenset({"C1"}), frozenset({"C1"}), frozenset({"C2"}),
                                                 frozenset({"C1", "C2"})))
    run = Run("s", {"q": ("a", "ghost", "b", "c")})  # IoU 1, -, 0, 0.5: a and c relevant at 0.5; R = 2, N = 1 (b)
    table = ["recip_rank", "Rprec", "bpref", "infAP", "gm_map", "num_rel_ret", "judged@2", "judged@4"]
    values = {name: float(v[0]) for name, v in Evaluator(concepts).evaluate([run], table, Relevance.of(0.0, 0)
                                                                          ).systems["s"].values.items()}
    assert values["recip_rank"] == 1.0 and values["Rprec"] == 0.5 and values["num_rel_ret"] == 2.0
    assert values["bpref"] == 0.5  # a: 1; c: 1 - min(1, 2) / min(1, 2)
    assert values["infAP"] == pytest.approx(values["gm_map"], abs=TOLERANCE) == pytest.approx((1 + 2 / 4) / 2)
    assert values["judged@2"] == 0.5 and values["judged@4"] == 0.75
    kept = Evaluator(concepts).evaluate([Run("s", {"q": ("q", "a")})], ["judged@2", "recip_rank"],
                                        Relevance.of(0.0, 0, query_image="keep")).systems["s"].values
    assert kept["judged@2"][0] == 0.5 and kept["recip_rank"][0] == 0.5  # the query is not in its own pool


def test_whole_list_measures_read_past_rank_1000():
    """trec_eval reads the whole list: a first relevant image at rank 1,200 gives recip_rank 1/1200 (lists are read
    to rank 10,000, the largest K, where a metric reads the whole list; others to rank 1,000 or their K)."""
    listed = tuple(f"d{i}" for i in range(1500))
    evaluator = Evaluator(None, qrels=Qrels({"q": {"d1199": 1, "d0": 0}}))
    run = Run("s", {"q": listed})
    values = evaluator.evaluate([run], ["qrels-recip_rank", "qrels-num_rel_ret", "qrels-R@10"]).systems["s"].values
    assert values["qrels-recip_rank"][0] == pytest.approx(1 / 1200) and values["qrels-num_rel_ret"][0] == 1.0
    assert table_depth([parse_metric("qrels-R@10")], [run]) == 1000
    assert table_depth([parse_metric("qrels-R@10"), parse_metric("qrels-bpref")], [run]) == 1500


def test_names_parse_round_trip_and_stay_out_of_the_standard_reports():
    for bare in [*PER_QUERY, "gm_map", "judged@5"]:
        for prefix, suffix in (("", ""), ("nn-", ""), ("qrels-", ""), ("", "{dice}")):
            name = f"{prefix}{bare}{suffix}"
            spec = parse_metric(name)
            assert spec.name == name and parse_metric(spec.name) == spec
    assert parse_metric("MRR").name == "recip_rank" and parse_metric("qrels-Judged@10").name == "qrels-judged@10"
    for bad in ["success", "recip_rank@10", "judged", "iprec_at_recall_0.05", "iprec_at_recall_0.5", "gm_map@10"]:
        with pytest.raises(ParameterError):
            parse_metric(bad)
    with pytest.raises(ParameterError, match=r"iprec_at_recall_0.00 \.\.\. iprec_at_recall_1.00"):
        parse_metric("ndcg_cut_10")
    standard = m.default_metric_names([5, 10]) + m.qrels_metric_names([5, 10])
    new = {parse_metric(name).family.key for name in names("qrels-") + ["qrels-judged@5"]}
    assert not {parse_metric(name).family.key for name in standard} & new
    assert parse_metric("num_rel_ret").largest == math.inf and parse_metric("qrels-bpref").largest == 1.0


def test_refusals_name_what_is_missing():
    inputs = m.MetricInputs(relevance={"iou": np.ones((2, 3))}, ideal={"iou": np.ones((2, 3))},
                            relevant_in_pool={"iou": np.array([3, 3])}, label_matches={}, label_present={},
                            threshold=0.5, gain="linear")
    for name, expected in (("bpref", "judged"), ("judged@2", "judged"), ("infAP", "judged")):
        with pytest.raises(ParameterError, match=expected):
            parse_metric(name).compute(inputs)
    with pytest.raises(ParameterError, match="bpref"):
        parse_metric("bpref").compute(replace(inputs, states=np.ones((2, 3), np.int8)))
    with pytest.raises(ParameterError, match="cut-off"):
        m.success([True], 0)
    with pytest.raises(ParameterError, match="cut-off"):
        m.judged_share_batch(np.ones((1, 2)), -1)
    with pytest.raises(ParameterError, match="recall level"):
        m.interpolated_precision([True], 1, 1.5)
    with pytest.raises(ParameterError, match="judgment states"):
        m.bpref_batch(np.ones((2, 3), bool), np.ones((2, 2)), np.array([1, 1]), np.array([1, 1]))


# --- each batch against its per-query function -------------------------------------------------------------------

def random_lists(seed: int, queries: int = 60, depth: int = 14):
    """Relevance rounded to one decimal (ties, and ties at the threshold), lists of 0..depth items (PAST_END after),
    judgment states of every kind (relevant items judged), R from 0 to beyond the lists, N from 0."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, depth + 1, queries)
    within = np.arange(depth) < lengths[:, None]
    relevant = (np.round(rng.random((queries, depth)), 1) >= 0.5) & within
    states = rng.choice([JUDGED, UNJUDGED, NOT_IN_POOL], size=(queries, depth), p=[0.6, 0.2, 0.2])
    states = np.where(relevant, JUDGED, np.where(within, states, PAST_END)).astype(np.int8)
    states[2] = np.where(relevant[2], JUDGED, np.where(within[2], UNJUDGED, PAST_END))  # nothing judged non-relevant
    in_pool = relevant.sum(axis=1) + rng.integers(0, 6, queries) * (rng.random(queries) < 0.8)
    nonrelevant = (states == JUDGED).sum(axis=1) - relevant.sum(axis=1) + rng.integers(0, 4, queries)
    relevant[0], states[0], lengths[0], in_pool[0] = False, PAST_END, 0, 0  # an empty list, nothing relevant
    in_pool[1], nonrelevant[2] = depth + 5, 0  # R beyond the lists; N = 0
    return relevant, states, in_pool, nonrelevant, lengths


def same(batch: float, single: float | None) -> bool:
    return (math.isnan(batch) and single is None) or abs(batch - single) <= TOLERANCE


@pytest.mark.parametrize("seed", range(4))
def test_every_batch_agrees_with_its_per_query_function(seed):
    relevant, states, in_pool, nonrelevant, lengths = random_lists(seed)
    assert (in_pool == 0).any() and (in_pool > relevant.shape[1]).any() and (nonrelevant == 0).any()
    batches = {
        "recip_rank": m.reciprocal_rank_batch(relevant), "Rprec": m.r_precision_batch(relevant, in_pool),
        "num_rel_ret": m.relevant_retrieved_batch(relevant), "gm_map": m.gm_map_batch(relevant, in_pool),
        "bpref": m.bpref_batch(relevant, states, in_pool, nonrelevant),
        "infAP": m.inferred_average_precision_batch(relevant, states, in_pool),
        **{f"success@{k}": m.success_batch(relevant, k) for k in (1, 3, 20)},
        **{f"judged@{k}": m.judged_share_batch(states, k) for k in (1, 3, 20)},
        **{name: m.interpolated_precision_batch(relevant, in_pool, level) for name, level in zip(IPREC, RECALL_LEVELS)},
    }
    for q in range(len(relevant)):
        listed, judged, r = relevant[q, :lengths[q]].tolist(), states[q, :lengths[q]].tolist(), int(in_pool[q])
        singles = {
            "recip_rank": m.reciprocal_rank(listed), "Rprec": m.r_precision(listed, r),
            "num_rel_ret": m.relevant_retrieved(listed), "gm_map": m.trec_average_precision(listed, len(listed) or 1, r),
            "bpref": m.bpref(listed, judged, r, int(nonrelevant[q])),
            "infAP": m.inferred_average_precision(listed, judged, r),
            **{f"success@{k}": m.success(listed, k) for k in (1, 3, 20)},
            **{f"judged@{k}": m.judged_share(judged, k) for k in (1, 3, 20)},
            **{name: m.interpolated_precision(listed, r, level) for name, level in zip(IPREC, RECALL_LEVELS)},
        }
        for name, single in singles.items():
            assert same(float(batches[name][q]), single), (name, q, batches[name][q], single)
    # The registry's families read the same values through MetricInputs (the relevance is 1 or 0 at threshold 0.5).
    inputs = m.MetricInputs(relevance={"iou": relevant.astype(float)}, ideal={"iou": np.ones((len(relevant), 1))},
                            relevant_in_pool={"iou": in_pool}, label_matches={}, label_present={}, threshold=0.5,
                            gain="linear", states=states, nonrelevant_in_pool={"iou": nonrelevant})
    for name, batch in batches.items():
        np.testing.assert_allclose(parse_metric(name).compute(inputs), batch, rtol=0, atol=TOLERANCE, err_msg=name)


def test_recall_cutoff_rounds_halves_up_as_c_lround():
    for r in range(0, 2000):
        for level in RECALL_LEVELS:
            product = level * r  # the same double as C's cutoff_percents[i] * num_rel
            assert m.recall_cutoff(level, r) == math.floor(product) + (product - math.floor(product) >= 0.5)
    np.testing.assert_array_equal(m.recall_cutoff(0.3, np.arange(2000)), [m.recall_cutoff(0.3, r) for r in range(2000)])


# --- gm_map's geometric mean: the mean, its interval and its tests on the log scale ------------------------------

def test_gm_map_is_averaged_resampled_and_tested_on_the_log_scale():
    judgments, run, _ = random_judgments(2)
    other = Run("other", {q: tuple(reversed(docs)) for q, docs in run.rankings.items()})
    evaluator = Evaluator(None, qrels=Qrels(judgments))
    results = evaluate_runs(evaluator, [run, other], Scoring(["qrels-gm_map", "qrels-MAP@1000"]),
                            Relevance.of(empty_queries="zero"), Statistics(bootstrap_samples=200, randomization_samples=200))
    table = results.table().set_index(["system", "metric"])
    for system in results.systems:
        aps = results.metric_values(system, "qrels-gm_map")
        assert (aps == results.metric_values(system, "qrels-MAP@1000")).all()  # per query: AP over the list
        assert (aps == 0).any()  # floored at 1e-5 in the mean
        gmap = results.means()[system]["qrels-gm_map"]
        assert gmap == pytest.approx(float(np.exp(np.log(np.maximum(aps, MIN_GEO_MEAN)).mean())), rel=1e-12)
        assert gmap < results.means()[system]["qrels-MAP@1000"]
        order = np.argsort(results.query_ids(system), kind="stable")
        [on_log] = bootstrap_cis(np.log(np.maximum(aps, MIN_GEO_MEAN))[order][:, None], samples=200, seed=0)
        row = table.loc[(system, "qrels-gm_map")]
        assert (row.ci_low, row.ci_high) == pytest.approx((math.exp(on_log.low), math.exp(on_log.high)), rel=1e-12)
        assert row.ci_low <= row["mean"] <= row.ci_high
    [pair] = results.comparisons("qrels-gm_map")
    means = results.means()
    assert pair.mean_difference == pytest.approx(means["random"]["qrels-gm_map"] - means["other"]["qrels-gm_map"])
    [on_log] = compare_columns({s: results.query_ids(s) for s in results.systems},
                               {s: np.log(np.maximum(results.metric_values(s, "qrels-gm_map"), MIN_GEO_MEAN))
                                for s in results.systems}, samples=200, seed=0)
    assert (pair.p_randomization, pair.p_t_test) == (on_log.p_randomization, on_log.p_t_test)


# --- trec_eval's own test files ------------------------------------------------------------------------------------

def printed() -> dict[tuple[str, str], str]:
    """trec_eval's output, ``(measure, query or "all") -> value as printed``."""
    values = {}
    for name in ("out.test.aq", "out.test.a"):
        for line in (FILES / name).read_text(encoding="ascii").splitlines():
            measure, query, value = line.split()
            values[measure, query] = value
    return values


@needs(FILES / "out.test.aq")
@pytest.mark.parametrize("ties", ["rank", "trec_eval"])
def test_every_measure_equals_trec_eval_on_its_test_files(ties):
    """Per query and as means, to trec_eval's 4 decimals: gm_map is printed as a mean only (its queries' values are
    their AP, trec_eval's ``map``), and num_rel_ret's "all" line is the sum over the 3 queries."""
    expected = printed()
    table = names("qrels-")
    results = evalcore.evaluate(None, str(FILES / "results.test"), evalcore.Scoring(table),
                                evalcore.Relevance.of(ties=ties, empty_queries="zero"), qrels=str(FILES / "qrels.test"))
    [system] = results.systems
    compared = 0
    for row, query in enumerate(results.query_ids(system)):
        for column, name in enumerate(results.metrics):
            value = results.values(system)[row, column]
            shown = f"{value:.0f}" if name == "qrels-num_rel_ret" else f"{value:.4f}"
            assert shown == expected["map" if name == "qrels-gm_map" else trec_name(name), query], (name, query)
            compared += 1
    means = results.means()[system]
    for name, mean in means.items():
        if name == "qrels-num_rel_ret":
            assert f"{mean * 3:.0f}" == expected["num_rel_ret", "all"] == "131"
        else:
            assert f"{mean:.4f}" == expected[trec_name(name), "all"], name
    assert compared == 3 * len(table) == 3 * 20


@needs(FILES / "out.test.a")
def test_the_command_line_takes_the_measures_by_name_and_gives_trec_eval_s_means(tmp_path):
    out = tmp_path / "trec.json"
    table = ["qrels-recip_rank", "qrels-Rprec", "qrels-bpref", "qrels-infAP", "qrels-gm_map", "qrels-success@10",
             "qrels-iprec_at_recall_0.50", "qrels-num_rel_ret"]
    assert main(["evaluate", "--qrels", str(FILES / "qrels.test"), "--run", str(FILES / "results.test"), "--metrics",
                 *table, "--empty-queries", "zero", "--ties", "trec_eval", "--json", str(out)]) == 0
    means = json.loads(out.read_text())["systems"]["STANDARD"]
    assert list(means) == table
    expected = printed()
    for name, mean in means.items():
        shown = f"{mean * 3:.0f}" if name == "qrels-num_rel_ret" else f"{mean:.4f}"
        assert shown == expected[trec_name(name), "all"], name
    assert main(["evaluate", "--qrels", str(FILES / "qrels.test"), "--run", str(FILES / "results.test"), "--metrics",
                 "qrels-MRR", "--json", str(out)]) == 0
    assert list(json.loads(out.read_text())["systems"]["STANDARD"]) == ["qrels-recip_rank"]


# --- pytrec_eval and ir_measures as the oracles --------------------------------------------------------------------

PYTREC_MEASURES = {"recip_rank", "Rprec", "success", "bpref", "infAP", "iprec_at_recall", "gm_map", "num_rel_ret", "map"}


def trec_lists(judgments: dict, scored: dict, level: int) -> dict[str, list[bool]]:
    """Each judged query's list in trec_eval's order (score as float32 descending, then docno descending), relevant or
    not: for the old rule's interpolated precision."""
    lists = {}
    for query, scores in scored.items():
        ordered = sorted(scores, key=lambda d: (np.float32(scores[d]), d), reverse=True)
        lists[query] = [judgments.get(query, {}).get(d, 0) >= level for d in ordered]
    return lists


def assert_equal_to_pytrec_eval(result, judgments: dict, scored: dict, prefix: str, level: int = 1) -> int:
    """Every measure of ``names(prefix)`` per query as pytrec_eval computes it (interpolated precision through the
    old rule where it rounds otherwise), and gm_map's mean as pytrec_eval aggregates it; returns how many
    interpolated precisions the old rule changed."""
    evaluated = pytrec_eval.RelevanceEvaluator(judgments, PYTREC_MEASURES, relevance_level=level).evaluate(scored)
    lists = trec_lists(judgments, scored, level)
    assert set(result.query_ids) == set(evaluated)
    old_rule = 0
    for name in names(prefix):
        for query, value in zip(result.query_ids, result.values[name]):
            theirs = evaluated[query]
            if name.endswith("gm_map"):  # pytrec_eval: log(max(AP, 1e-5)) per query
                assert abs(max(value, MIN_GEO_MEAN) - math.exp(theirs["gm_map"])) <= TOLERANCE, query
                assert abs(value - theirs["map"]) <= TOLERANCE, query
                continue
            if "iprec_at_recall" in name:
                level_of = float(name[-4:])
                r = sum(g >= level for g in judgments[query].values())
                if m.recall_cutoff(level_of, r) != old_cutoff(level_of, r):
                    old_rule += 1
                    assert theirs[trec_name(name)] == iprec_with_cutoff(lists[query], old_cutoff(level_of, r))
                    assert abs(value - m.interpolated_precision(lists[query], r, level_of)) <= TOLERANCE
                    continue
            assert abs(value - theirs[trec_name(name)]) <= TOLERANCE, (name, query, value, theirs[trec_name(name)])
    aggregated = pytrec_eval.compute_aggregated_measure("gm_map", [evaluated[q]["gm_map"] for q in result.query_ids])
    assert m.geometric_mean_average_precision(result.values[f"{prefix}gm_map"]) == pytest.approx(aggregated, rel=1e-12)
    return old_rule


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", [1, 2])
def test_judged_measures_equal_pytrec_eval(seed, level):
    judgments, run, scored = random_judgments(seed)
    evaluator = Evaluator(None, qrels=Qrels(judgments))
    result = evaluator.evaluate([run], names("qrels-"), Relevance.of(empty_queries="zero", relevance_level=level))
    assert_equal_to_pytrec_eval(result.systems["random"], judgments, scored, "qrels-", level)
    evaluated = pytrec_eval.RelevanceEvaluator(judgments, {"gm_map"}, relevance_level=level).evaluate(scored)
    assert result.means()["random"]["qrels-gm_map"] == pytest.approx(pytrec_eval.compute_aggregated_measure(
        "gm_map", [values["gm_map"] for values in evaluated.values()]), rel=1e-12)


def test_the_old_rule_of_pytrec_eval_s_interpolated_precision_is_met():
    """The random judgments reach both rules' differences: the test above compares them to each rule."""
    judgments, run, scored = random_judgments(0)
    result = Evaluator(None, qrels=Qrels(judgments)).evaluate([run], names("qrels-"), Relevance.of(empty_queries="zero"))
    assert assert_equal_to_pytrec_eval(result.systems["random"], judgments, scored, "qrels-") > 0


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("kind", ["rounded", "constant", "float32"])
def test_judged_measures_equal_pytrec_eval_on_tied_runs(seed, kind):
    judgments, run, _ = random_judgments(seed)
    tied, scored = tied_trec_run(dict(run.rankings), seed, kind)
    evaluator = Evaluator(None, qrels=Qrels(judgments))
    by_ties = {ties: evaluator.evaluate([tied], names("qrels-"), Relevance.of(empty_queries="zero", ties=ties)
                                        ).systems["tied"] for ties in ("trec_eval", "rank")}
    assert by_ties["trec_eval"].counts["queries_tie_order_differs"] > 0
    assert_equal_to_pytrec_eval(by_ties["trec_eval"], judgments, scored, "qrels-")
    assert any((by_ties["rank"].values[name] != by_ties["trec_eval"].values[name]).any() for name in names("qrels-"))


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("tied", [False, True])
def test_concept_measures_equal_pytrec_eval_on_the_pool_judged_whole(seed, tied):
    """Binary judgments 'relevance >= threshold' of every other image of the pool: IDs without a concept set (and the
    query's own image, kept) are no judgment of trec_eval's either."""
    concepts, kg = random_world(seed, images=45)
    evaluator = Evaluator(concepts, kg)
    plain, _ = random_concept_run(concepts, seed)
    rng = random.Random(seed)
    lists = {}
    for query, listed in plain.rankings.items():
        listed = list(listed)
        for extra in (f"ghost{rng.randint(0, 3)}", query):
            listed.insert(rng.randint(0, len(listed)), extra)
        lists[query] = listed
    if tied:
        run, scored = tied_trec_run(lists, seed, "rounded")
    else:  # distinct scores in the lists' order
        run = Run("r", {query: tuple(listed) for query, listed in lists.items()})
        scored = {query: {d: float(len(listed) - i) for i, d in enumerate(listed)} for query, listed in lists.items()}
    neighbours = neighbour_sets(kg, evaluator.engine.vocabulary, 1)
    for prefix, alpha in (("", 0.0), ("nn-", 0.5)):
        relevance = Relevance.of(0.5, 1, threshold=0.4, empty_queries="zero", query_image="keep",
                                 ties="trec_eval" if tied else "rank")
        result = evaluator.evaluate([run], names(prefix), relevance).systems[run.name]
        assert result.counts["query_kept_in_own_list"] == len(lists) and result.counts["retrieved_unknown_ids"] > 0
        judgments = {q: {c: int(nn_iou(concepts[q], concepts[c], neighbours, alpha) >= reaching(0.4))
                         for c in concepts.ids if c != q} for q in lists}
        assert_equal_to_pytrec_eval(result, judgments, scored, prefix)


@pytest.mark.parametrize("seed", range(3))
def test_judged_at_k_equals_ir_measures(seed):
    """ir_measures' Judged@K counts every line of the qrels as judged; ours (trec_eval's reading) not a negative
    grade: the same once those lines are left out of ir_measures' qrels, and never above it."""
    judgments, run, scored = random_judgments(seed)
    cutoffs = (1, 5, 10, 30)
    table = [f"qrels-judged@{k}" for k in cutoffs]
    result = Evaluator(None, qrels=Qrels(judgments)).evaluate([run], table, Relevance.of(empty_queries="zero")
                                                              ).systems["random"]
    measures = [ir_measures.Judged @ k for k in cutoffs]
    graded = {q: {d: g for d, g in judged.items() if g >= 0} for q, judged in judgments.items()}
    without_negative = {(x.query_id, str(x.measure)): x.value for x in ir_measures.iter_calc(measures, graded, scored)}
    every_line = {(x.query_id, str(x.measure)): x.value for x in ir_measures.iter_calc(measures, judgments, scored)}
    differs = 0
    for name, k in zip(table, cutoffs):
        for query, value in zip(result.query_ids, result.values[name]):
            key = (query, f"Judged@{k}")
            if key in without_negative:
                assert abs(value - without_negative[key]) <= TOLERANCE, (name, query)
            else:  # every judgment of the query is negative: none judged
                assert value == 0.0
            assert value <= every_line[key] + TOLERANCE
            differs += value < every_line[key] - TOLERANCE
    assert differs
