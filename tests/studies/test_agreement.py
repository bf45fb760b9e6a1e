"""The agreement study (evalcore/studies/agreement.py, issue 68): the grade of a pair, the statistics against scipy
and scikit-learn on the per-pair formulas' relevance, the bootstrap over cases against a plain loop over the same
resamples, the cross-validation, the judges; simulated judges on the demo (and on ROCOv2 test with the open KG) whose
grades follow a hidden measure: the sweep finds it and it beats IoU; judges who grade at random: no setting is
clearly better than another."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, roc_auc_score

from evalcore.data import ConceptSets, Judgments
from evalcore.engine import PairwiseEngine
from evalcore.errors import InputError, ParameterError
from evalcore.evaluation.options import Statistics
from evalcore.io.loading import load_kg
from evalcore.readers import read_concepts
from evalcore.readers.judgment_columns import read_judgment_columns
from evalcore.relevance.measures import parse_measure
from evalcore.stats.compare import bootstrap_weights
from evalcore.studies.agreement import (
    MAX_SWEEP_VALUES,
    agreement_study,
    case_folds,
    judged_pairs,
    parse_sweep,
    swept_settings,
)
from tests.conftest import DEMO, OPEN_KG, ROCOV2, needs
from tests.stats.test_agreement_statistics import straightforward_alpha

# docs/DESIGN.md §2's example and a few more images: vein -> blood vessel in the KG
CONCEPTS = ConceptSets(("q", "x", "y", "z", "r", "s", "t"), tuple(map(frozenset, (
    {"C0040405", "C0042449"}, {"C0040405", "C0005847"}, {"C0040405"}, {"C0000001"}, {"C0005847", "C0000002"},
    {"C0042449", "C0000002"}, {"C0040405", "C0042449", "C0000003"}))), "concepts.csv")
KG = [("C0042449", "C0005847")]


def kg():
    from evalcore.api import as_knowledge_graph

    return as_knowledge_graph(KG)


def judgments(text: str, name: str = "j.csv") -> Judgments:
    return read_judgment_columns(text.encode(), name)


SMALL = judgments("judge,case,candidate,grade\n" + "".join(
    f"{judge},{case},{candidate},{grade}\n" for judge, grades in (("ann", "2102 0121"), ("bob", "2112 0221"))
    for case, candidates, row in (("q", "xyzt", grades.split()[0]), ("r", "sxyq", grades.split()[1]))
    for candidate, grade in zip(candidates, row)))


def few(samples: int = 200, seed: int = 0) -> Statistics:
    return Statistics(bootstrap_samples=samples, seed=seed)


# --- sweeps ---------------------------------------------------------------------------------------------------------


def test_sweeps_are_read_in_decimal_with_the_stop_included():
    assert parse_sweep("alpha=0:1:0.1").values == tuple(round(0.1 * k, 1) for k in range(11))
    assert parse_sweep(" N = 0:3:1".replace(" ", "")).values == (0, 1, 2, 3)
    assert parse_sweep("b=0.25").values == (0.25,)
    assert parse_sweep("a=0:0.95:0.1").values[-1] == 0.9


@pytest.mark.parametrize("text, fragment", [
    ("alpha", "expected NAME=START:STOP:STEP"), ("alpha=0:1", "expected NAME=START:STOP:STEP"),
    ("alpha=1:0:0.1", "START <= STOP and a positive STEP"), ("alpha=0:1:0", "a positive STEP"),
    ("alpha=0:1:-0.1", "a positive STEP"), ("alpha=٠:1:0.1", "no number in digits 0-9"),
    ("alpha=0:1:nan", "no number"), (f"alpha=0:{MAX_SWEEP_VALUES}:1", f"at most {MAX_SWEEP_VALUES:,} values"),
])
def test_a_sweep_that_cannot_be_read_is_refused(text, fragment):
    with pytest.raises(ParameterError, match=fragment):
        parse_sweep(text)


def test_the_settings_of_a_sweep():
    nn, tversky = parse_measure("nn-iou(alpha=0.8,n=1)"), parse_measure("tversky(a=0.7,b=0.3)")
    settings = swept_settings([nn, tversky], [parse_sweep("alpha=0:1:0.5"), parse_sweep("n=1:2:1"),
                                              parse_sweep("b=0.3:0.5:0.2")], has_kg=True)
    assert [s.name for s in settings] == [
        "nn-iou(alpha=0.8,n=1)", "nn-iou(alpha=0,n=1)", "nn-iou(alpha=0,n=2)", "nn-iou(alpha=0.5,n=1)",
        "nn-iou(alpha=0.5,n=2)", "nn-iou(alpha=1,n=1)", "nn-iou(alpha=1,n=2)", "tversky(a=0.7,b=0.3)",
        "tversky(a=0.7,b=0.5)"]
    with pytest.raises(ParameterError, match="none of the measures .* has a parameter 'w1'"):
        swept_settings([nn], [parse_sweep("w1=0:1:0.5")], has_kg=True)
    with pytest.raises(ParameterError, match="alpha is swept twice"):
        swept_settings([nn], [parse_sweep("alpha=0:1:0.5"), parse_sweep("alpha=0.5")], has_kg=True)
    with pytest.raises(ParameterError, match="without a knowledge graph every value gives IoU's numbers"):
        swept_settings([nn], [parse_sweep("alpha=0:1:0.5")], has_kg=False)
    with pytest.raises(ParameterError, match="sweep of nn-iou.*alpha must lie in"):
        swept_settings([nn], [parse_sweep("alpha=0:2:1")], has_kg=True)


# --- the judged pairs -----------------------------------------------------------------------------------------------


def test_a_pairs_grade_is_the_mean_over_judges_of_each_judges_mean():
    judged = judgments("judge,case,candidate,grade,time\nann,q,x,1,1\nann,q,x,2,2\nbob,q,x,0,3\nbob,q,y,skipped,4\n"
                       "cat,q,y,2,5\nann,q,nowhere,1,6\n")
    pairs = judged_pairs(CONCEPTS, judged)
    grade_of = {(pairs.concepts.ids[c], pairs.concepts.ids[d]): g
                for c, d, g in zip(pairs.case_rows, pairs.candidate_rows, pairs.grade)}
    assert grade_of == {("q", "x"): (1.5 + 0) / 2, ("q", "y"): 2.0}
    assert (pairs.read, pairs.skipped, pairs.unknown, pairs.cases) == (6, 1, 1, 1)
    assert pairs.unknown_examples == ((7, "nowhere"),)


def test_judgments_that_match_nothing_are_refused():
    with pytest.raises(InputError, match=r"j.csv, line 2: expected image IDs with concept sets in concepts.csv, "
                                         r"found 'a': none of its 2 gradings names two of them"):
        agreement_study(CONCEPTS, judgments("judge,case,candidate,grade\nann,a,b,1\nann,q,c,2\n"),
                        [parse_measure("iou")], statistics=few())
    with pytest.raises(InputError, match="skipped pairs only"):
        agreement_study(CONCEPTS, judgments("judge,case,candidate,grade\nann,q,x,skipped\n"), [parse_measure("iou")],
                        statistics=few())


# --- the statistics on the judged pairs -----------------------------------------------------------------------------


def oracle_relevance(measure: str, pairs) -> np.ndarray:
    """The per-pair formula's relevance of each judged pair (not the engine's)."""
    function = parse_measure(measure).pair_function(kg(), CONCEPTS.vocabulary)
    ids = pairs.concepts.ids
    return np.array([function(CONCEPTS[ids[c]], CONCEPTS[ids[d]]) for c, d in zip(pairs.case_rows, pairs.candidate_rows)])


def test_the_statistics_are_scipys_and_sklearns_on_the_per_pair_relevance():
    report = agreement_study(CONCEPTS, SMALL, [parse_measure("iou"), parse_measure("nn-iou(alpha=0.5,n=1)"),
                                               parse_measure("tversky(a=0.7,b=0.3)")], kg=kg(), statistics=few())
    pairs = report.pairs
    for name, setting in report.settings.items():
        relevance = oracle_relevance(name, pairs)
        assert setting.kendall_tau_b == pytest.approx(stats.kendalltau(relevance, pairs.grade).statistic, abs=1e-12)
        assert setting.spearman_rho == pytest.approx(stats.spearmanr(relevance, pairs.grade).statistic, abs=1e-12)
        assert setting.auc["grade>=1"] == pytest.approx(roc_auc_score(pairs.grade >= 1, relevance), abs=1e-12)
        assert setting.auc["grade==2"] == pytest.approx(roc_auc_score(pairs.grade == 2, relevance), abs=1e-12)
        assert (setting.pairs, setting.cases) == (8, 2)
        assert setting.ci[0] <= setting.kendall_tau_b <= setting.ci[1] or math.isnan(setting.ci[0])


def test_the_intervals_resample_cases_with_the_projects_resamples():
    """Each resample draws cases (bootstrap_weights, seeded); a case drawn k times brings all its pairs k times. A plain
    loop over the same resamples, with scipy on the repeated pairs, gives the same percentile interval."""
    statistics = few(300, seed=4)
    report = agreement_study(CONCEPTS, SMALL, [parse_measure("nn-iou(alpha=0.5,n=1)")], kg=kg(), statistics=statistics)
    pairs, setting = report.pairs, report.settings["nn-iou(alpha=0.5,n=1)"]
    relevance = oracle_relevance("nn-iou(alpha=0.5,n=1)", pairs)
    drawn = []
    for chunk in bootstrap_weights(pairs.cases, statistics.bootstrap_samples, statistics.seed):
        for counts in chunk:
            repeats = counts[pairs.case_of_pair].astype(int)
            x, y = np.repeat(relevance, repeats), np.repeat(pairs.grade, repeats)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                drawn.append(stats.kendalltau(x, y).statistic)
    drawn = np.array(drawn)
    expected = np.percentile(drawn[np.isfinite(drawn)], [2.5, 97.5])
    assert setting.ci == pytest.approx(tuple(expected), abs=1e-12)


def random_judged(seed: int = 0, cases: int = 12) -> tuple[ConceptSets, Judgments]:
    """40 images of 1 to 3 of 8 concepts; one judge grading 5 candidates of each of ``cases`` cases at random."""
    rng = np.random.default_rng(seed)
    ids = tuple(f"img{i}" for i in range(40))
    sets = tuple(frozenset(f"C{c:07d}" for c in rng.choice(8, rng.integers(1, 4), replace=False)) for _ in ids)
    rows = [(ids[c], ids[d], int(rng.integers(0, 3))) for c in range(cases) for d in rng.choice(range(12, 40), 5, False)]
    return ConceptSets(ids, sets, "c.csv"), judgments("judge,case,candidate,grade\n" + "".join(
        f"ann,{c},{d},{g}\n" for c, d, g in rows))


def test_the_same_seed_gives_the_same_report_and_another_seed_other_intervals():
    concepts, judged = random_judged()
    measures = [parse_measure("iou"), parse_measure("dice"), parse_measure("tversky(a=0.9,b=0.1)")]
    first = agreement_study(concepts, judged, measures, statistics=few(seed=1)).to_dict()
    again = agreement_study(concepts, judged, measures, statistics=few(seed=1)).to_dict()
    other = agreement_study(concepts, judged, measures, statistics=few(seed=2)).to_dict()
    assert json.dumps(first) == json.dumps(again)
    assert first["measures"]["iou"]["kendall_tau_b"] == other["measures"]["iou"]["kendall_tau_b"]
    assert first["measures"]["iou"]["ci"] != other["measures"]["iou"]["ci"]


def test_fewer_cases_than_folds_is_said_and_the_folds_shrink():
    report = agreement_study(CONCEPTS, SMALL, [parse_measure("iou"), parse_measure("nn-iou(alpha=0.5,n=1)")], kg=kg(),
                             statistics=few())
    assert report.best.folds == 2 and "2-fold cross-validation instead of 5-fold" in " ".join(report.notes)
    assert case_folds(10, 3, seed=0).tolist().count(0) in (3, 4) and sorted(set(case_folds(10, 3, seed=0))) == [0, 1, 2]


def test_the_best_setting_is_the_cross_validations():
    concepts, judged = random_judged()
    measures = [parse_measure(text) for text in ("iou", "dice", "tversky(a=0.9,b=0.1)", "tversky(a=0.1,b=0.9)")]
    report = agreement_study(concepts, judged, measures, folds=4, statistics=few(seed=3))
    folds = case_folds(report.pairs.cases, 4, seed=3)[report.pairs.case_of_pair]
    engine = PairwiseEngine(report.pairs.concepts)
    scores = {}
    for measure in measures:
        relevance = engine.relevance_of_pairs_by(measure, report.pairs.case_rows, report.pairs.candidate_rows)
        taus = [stats.kendalltau(relevance[folds == f], report.pairs.grade[folds == f]).statistic for f in range(4)]
        scores[measure.name] = np.nanmean(taus)
        assert report.settings[measure.name].cv_kendall_tau_b == pytest.approx(scores[measure.name], abs=1e-12)
    assert report.best.setting.measure.name == max(scores, key=scores.get)  # a tie (IoU and Dice rank alike): the first
    assert len(report.best.fold_choices) == 4


# --- the judges -----------------------------------------------------------------------------------------------------


def test_two_judges_kappa_is_sklearns_and_alpha_the_straightforward_one():
    report = agreement_study(CONCEPTS, SMALL, [parse_measure("iou")], statistics=few())
    ann, bob = [2, 1, 0, 2, 0, 1, 2, 1], [2, 1, 1, 2, 0, 2, 2, 1]
    assert report.judges.weighted_kappa == pytest.approx(cohen_kappa_score(ann, bob, labels=[0, 1, 2],
                                                                          weights="quadratic"))
    assert report.judges.krippendorff_alpha_ordinal == pytest.approx(straightforward_alpha([[a, b] for a, b in
                                                                                           zip(ann, bob)]))
    pair = report.judges.pairwise[0]
    assert (pair.judge_a, pair.judge_b, pair.pairs) == ("ann", "bob", 8)
    assert pair.kendall_tau_b == pytest.approx(stats.kendalltau(ann, bob).statistic)


def test_self_consistency_on_pairs_graded_twice():
    judged = judgments("judge,case,candidate,grade,time\n" + "".join(
        f"ann,q,{c},{g},{t}\n" for t, (c, g) in enumerate([("x", 2), ("y", 1), ("z", 0), ("t", 2), ("x", 2), ("y", 0),
                                                           ("z", 0), ("t", 1)])) + "bob,q,x,1,99\n")
    report = agreement_study(CONCEPTS, judged, [parse_measure("iou")], statistics=few())
    consistency = report.judges.self_consistency
    assert list(consistency) == ["ann"]
    assert consistency["ann"].repeated_pairs == 4 and consistency["ann"].identical_share == 0.5
    assert consistency["ann"].weighted_kappa == pytest.approx(
        cohen_kappa_score([2, 1, 0, 2], [2, 0, 0, 1], labels=[0, 1, 2], weights="quadratic"))
    grade_of = dict(zip(zip(report.pairs.case_rows, report.pairs.candidate_rows), report.pairs.grade))
    ids = report.pairs.concepts.ids
    assert {(ids[c], ids[d]): g for (c, d), g in grade_of.items()}[("q", "y")] == 0.5  # ann's mean of 1 and 0


def test_a_sentence_says_when_the_judges_agree_less_than_the_best_measure():
    # ann grades as IoU orders the candidates, bob the other way round: the judges disagree, the measure agrees with
    # ann fully and with bob not at all, which is still more than the judges agree with each other
    rows = [("x", 1, 1), ("y", 2, 0), ("z", 0, 2), ("t", 2, 0)]
    judged = judgments("judge,case,candidate,grade\n" + "".join(f"ann,q,{c},{a}\nbob,q,{c},{b}\n" for c, a, b in rows))
    report = agreement_study(CONCEPTS, judged, [parse_measure("iou")], statistics=few())
    assert report.judges.judge_tau_b < report.judges.best_measure_tau_b
    assert report.judges.note.startswith("The judges agree with each other less (mean Kendall tau-b of two judges ")
    assert report.judges.note in report.notes
    agreeing = judgments("judge,case,candidate,grade\n" + "".join(f"ann,q,{c},{a}\nbob,q,{c},{a}\n" for c, a, _ in rows))
    assert agreement_study(CONCEPTS, agreeing, [parse_measure("iou")], statistics=few()).judges.note is None


def test_the_study_refuses_what_it_cannot_read():
    with pytest.raises(ParameterError, match="folds must be a whole number from 2 to 20"):
        agreement_study(CONCEPTS, SMALL, [parse_measure("iou")], folds=1)
    with pytest.raises(ParameterError, match="MeasureSpec"):
        agreement_study(CONCEPTS, SMALL, ["iou"])
    with pytest.raises(ParameterError, match="bootstrap_samples"):
        agreement_study(CONCEPTS, SMALL, [parse_measure("iou")], statistics=Statistics(bootstrap_samples=10))


# --- simulated judges -----------------------------------------------------------------------------------------------

HIDDEN = "nn-iou(alpha=0.8,n=1)"


def simulated_judgments(concepts: ConceptSets, graph, seed: int, cases: int, noise_only: bool = False) -> Judgments:
    """Three judges grading each case's candidates by a hidden measure plus noise (or at random): candidates where
    nn-IoU and IoU differ, candidates sharing a concept, and random ones."""
    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(concepts), cases, replace=False)
    engine = PairwiseEngine(concepts.subset([concepts.ids[i] for i in chosen]), concepts, kg=graph)
    hidden, iou = engine.relevance_by(parse_measure(HIDDEN)), engine.relevance_by(parse_measure("iou"))
    lines = ["judge,case,candidate,grade"]
    for row, case in enumerate(chosen):
        differ, sharing = np.flatnonzero(hidden[row] != iou[row]), np.flatnonzero(hidden[row] > 0)
        picked = [*rng.choice(differ, min(5, len(differ)), replace=False),
                  *rng.choice(sharing, min(5, len(sharing)), replace=False), *rng.choice(len(concepts), 3)]
        for candidate in dict.fromkeys(int(p) for p in picked if p != case):
            latent = hidden[row, candidate] + rng.normal(0, 0.05)
            for judge in ("J1", "J2", "J3"):
                grade = int(rng.integers(0, 3)) if noise_only else int(np.digitize(latent + rng.normal(0, 0.05),
                                                                                   [0.25, 0.55]))
                lines.append(f"{judge},{concepts.ids[case]},{concepts.ids[candidate]},{grade}")
    return judgments("\n".join(lines) + "\n", "simulated.csv")


def sweep_study(concepts, graph, judged, samples=2000):
    return agreement_study(concepts, judged, [parse_measure("iou"), parse_measure(HIDDEN)], kg=graph,
                           sweeps=[parse_sweep("alpha=0:1:0.1"), parse_sweep("n=0:3:1")],
                           statistics=Statistics(bootstrap_samples=samples, seed=0))


@pytest.fixture(scope="module")
def demo():
    return read_concepts(DEMO / "concepts.csv"), load_kg([DEMO / "kg_edges.csv"])


@pytest.mark.slow
def test_the_sweep_finds_the_hidden_measure_on_the_demo_and_it_beats_iou(demo):
    concepts, graph = demo
    report = sweep_study(concepts, graph, simulated_judgments(concepts, graph, seed=7, cases=60))
    assert HIDDEN in report.best.not_clearly_worse
    assert report.settings[HIDDEN].kendall_tau_b > report.settings["iou"].kendall_tau_b
    assert report.settings["iou"].clearly_worse and report.settings["nn-iou(alpha=0.8,n=0)"].clearly_worse
    best = report.best.setting
    assert best.measure.params["n"] == 1 and 0.6 <= best.measure.params["alpha"] <= 1
    assert best.ci[0] <= report.settings[HIDDEN].kendall_tau_b <= best.ci[1]
    assert report.to_dict()["best"]["measure"] == best.measure.name


@pytest.mark.slow
def test_judges_at_random_make_no_setting_clearly_better_than_another(demo):
    concepts, graph = demo
    report = sweep_study(concepts, graph, simulated_judgments(concepts, graph, seed=7, cases=60, noise_only=True))
    assert set(report.best.not_clearly_worse) == set(report.settings)
    assert not any(setting.clearly_worse for setting in report.settings.values())
    assert abs(report.best.held_out_kendall_tau_b) < 0.1  # the honest estimate of choosing the best: about nothing
    assert abs(report.judges.krippendorff_alpha_ordinal) < 0.1


@pytest.mark.slow
@needs(ROCOV2 / "test_concepts.csv")
@needs(OPEN_KG)
def test_the_sweep_finds_the_hidden_measure_on_rocov2_with_the_open_kg():
    concepts, graph = read_concepts(ROCOV2 / "test_concepts.csv"), load_kg([OPEN_KG])
    report = sweep_study(concepts, graph, simulated_judgments(concepts, graph, seed=11, cases=80))
    assert HIDDEN in report.best.not_clearly_worse
    assert report.settings[HIDDEN].kendall_tau_b > report.settings["iou"].kendall_tau_b
    assert report.settings["iou"].clearly_worse
