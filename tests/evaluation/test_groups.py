"""An evaluation's scores by group (evalcore.evaluation.groups): invariants on seeded random per-query values (the
groups' means weighted by their queries give the overall mean, Holm never lowers a p-value, one group is the whole
table), and the groupings read from the evaluation's inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalcore.data import ConceptSets, ImageLabels
from evalcore.errors import InputError, ParameterError
from evalcore.evaluation.evaluator import Evaluation, SystemResult
from evalcore.evaluation.groups import parse_group_by, query_grouping, results_by_group
from evalcore.evaluation.options import Statistics
from evalcore.evaluation.results import Results
from evalcore.stats.groups import NO_GROUP, Grouping

METRICS = ["CUI@5", "CUI@10", "MAP@10"]


def random_results(rng: np.random.Generator, systems: int = 3, statistics: Statistics | None = None) -> Results:
    """Systems scored on shuffled, partly different queries, with undefined values (NaN)."""
    size = int(rng.integers(5, 120))
    pool = [f"q{i:03d}" for i in range(size + 10)]
    results = {}
    for number in range(systems):
        ids = tuple(rng.permutation(pool)[:size].tolist())
        values = np.where(rng.random((size, len(METRICS))) < 0.15, np.nan, rng.random((size, len(METRICS))))
        results[f"S{number}"] = SystemResult(f"S{number}", ids, {m: values[:, i] for i, m in enumerate(METRICS)}, {})
    return Results(Evaluation(results, {}, METRICS), statistics or Statistics(bootstrap_samples=200,
                                                                             randomization_samples=200))


def random_grouping(rng: np.random.Generator, results: Results) -> Grouping:
    queries = sorted({q for system in results.systems for q in results.query_ids(system)})
    groups = [f"g{i}" for i in range(int(rng.integers(1, 6)))]
    return Grouping("g", {q: str(rng.choice(groups)) for q in queries if rng.random() < 0.85})


def test_the_groups_means_weighted_by_their_queries_give_the_overall_mean():
    rng = np.random.default_rng(67)
    for _ in range(25):
        results = random_results(rng)
        grouped = results_by_group(results, random_grouping(rng, results))
        overall = results.means()
        for (system, metric), rows in grouped.means.groupby(["system", "metric"]):
            scored = rows[rows.queries > 0]
            if not len(scored):
                assert math.isnan(overall[system][metric])
                continue
            weighted = (scored["mean"] * scored.queries).sum() / scored.queries.sum()
            assert weighted == pytest.approx(overall[system][metric], rel=1e-12, abs=1e-14)
            assert scored.queries.sum() == np.isfinite(results.metric_values(system, metric)).sum()


def test_holm_across_the_groups_never_lowers_a_p_value():
    rng = np.random.default_rng(68)
    for _ in range(15):
        results = random_results(rng)
        comparisons = results_by_group(results, random_grouping(rng, results), compare=METRICS[:2]).comparisons
        assert len(comparisons)
        for raw, adjusted in (("p_randomization", "p_randomization_holm"), ("p_t_test", "p_t_test_holm")):
            tested = comparisons[np.isfinite(comparisons[raw])]
            assert (tested[adjusted] >= tested[raw]).all() and (tested[adjusted] <= 1).all()
            assert comparisons[~np.isfinite(comparisons[raw])][adjusted].isna().all()


@pytest.mark.parametrize("one_group", [{"all": True}, {}])
def test_a_single_group_is_the_whole_table(one_group):
    """One group holding every query (or none holding any: every query in "(none)") gives the table's means,
    intervals and counts to the last bit, and the tests of compare (raw, and Holm over one group)."""
    rng = np.random.default_rng(69)
    for _ in range(10):
        results = random_results(rng, systems=2)
        queries = {q for system in results.systems for q in results.query_ids(system)}
        grouped = results_by_group(results, Grouping("one", {q: "all" for q in queries} if one_group else {}),
                                   compare=["CUI@10"])
        assert grouped.groups == (("all",) if one_group else (NO_GROUP,))
        table = results.table().set_index(["system", "metric"])
        for row in grouped.means.itertuples():
            whole = table.loc[(row.system, row.metric)]
            assert (row.queries, row.mean, row.ci_low, row.ci_high) == \
                (whole.queries, whole["mean"], whole.ci_low, whole.ci_high) or math.isnan(row.mean)
        pair = results.compare("CUI@10").iloc[0]
        found = grouped.comparisons.iloc[0]
        for column in ("mean_difference", "p_randomization", "p_t_test", "queries"):
            assert found[column] == pair[column] or (math.isnan(found[column]) and math.isnan(pair[column]))
        assert found.p_randomization_holm == found.p_randomization


def test_grouped_numbers_do_not_depend_on_the_order_of_a_runs_queries():
    rng = np.random.default_rng(70)
    results = random_results(rng, systems=1)
    system = results.systems[0]
    ids = results.query_ids(system)
    shuffled = rng.permutation(len(ids))
    values = {m: results.metric_values(system, m)[shuffled] for m in METRICS}
    again = Results(Evaluation({system: SystemResult(system, tuple(ids[i] for i in shuffled), values, {})}, {},
                               METRICS), results.statistics)
    grouping = random_grouping(rng, results)
    assert results_by_group(results, grouping).means.equals(results_by_group(again, grouping).means)


def test_metrics_are_named_as_the_results_name_them_and_unknown_ones_are_refused():
    results = random_results(np.random.default_rng(1))
    grouped = results_by_group(results, Grouping("g", {}), metrics=["AP@10"])
    assert set(grouped.means.metric) == {"MAP@10"}
    with pytest.raises(ParameterError, match="was not evaluated"):
        results_by_group(results, Grouping("g", {}), metrics=["nn-CUI@10"])
    with pytest.raises(ParameterError, match="unknown system 'nobody'"):
        results_by_group(results, Grouping("g", {}), compare=["CUI@5"], pairs=[("S0", "nobody")])


# --- the groupings of the evaluation's inputs ------------------------------------------------------------------------


CONCEPTS = ConceptSets(("a", "b", "c", "d"), (frozenset({"C0000001"}), frozenset({"C0000001", "C0000002"}),
                                              frozenset(), frozenset({"C0000003"})))
LABELS = ImageLabels({"modality": {"a": frozenset({"CT"}), "b": frozenset({"MRI"}), "c": frozenset()}}, "labels.csv")


def test_the_built_in_groupings():
    assert dict(query_grouping("modality", CONCEPTS, LABELS).of) == {"a": "CT", "b": "MRI"}
    assert query_grouping("concepts", CONCEPTS).order == ("0", "1", "2+")


@pytest.mark.parametrize("by, concepts, labels, said", [
    ("organ", CONCEPTS, LABELS, "group by organ: labels.csv has no organ labels; it has modality"),
    ("modality", CONCEPTS, None, "group by modality: each query's modality is read from the images' labels"),
    ("concepts", None, None, "group by concepts: the number of concepts of each query is read from the concept sets"),
    ("site", None, None, "group by: expected modality, organ, concepts or FILE:COLUMN"),
    ("attributes.csv:", None, None, "group by: expected modality, organ, concepts or FILE:COLUMN"),
])
def test_a_grouping_without_its_input_is_refused_naming_what_to_give(by, concepts, labels, said):
    with pytest.raises(ParameterError, match=f"^{said}"):
        query_grouping(by, concepts, labels)


def test_a_file_column_grouping_reads_the_file_and_names_unknown_columns(tmp_path):
    path = tmp_path / "attributes.tsv"
    path.write_text("query_id\tsite\tscanner\nq1\tLyon\tA\nq2\t\tB\n")
    grouping = query_grouping(f"{path}:site")
    assert grouping.name == f"{path}:site" and dict(grouping.of) == {"q1": "Lyon"}
    assert parse_group_by(f"{path}:Site") == (str(path), "Site")
    assert query_grouping(f"{path}:Site").order == ("Lyon",)  # another case of a column's name
    with pytest.raises(InputError, match=r"attributes.tsv, line 1: expected a column named 'hospital', found the "
                                         r"attribute columns site, scanner$"):
        query_grouping(f"{path}:hospital")
