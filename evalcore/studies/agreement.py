"""Do the label-free relevance measures agree with clinicians? (docs/DESIGN.md §7; the ``agreement`` command and
:func:`evalcore.api.agreement`.)

Clinicians grade (case image, candidate image) pairs 0 (not similar), 1 (partly) or 2 (very similar)
(:func:`evalcore.readers.judgment_columns.read_judgment_columns`). For each relevance measure, and each setting of a
parameter sweep (``alpha=0:1:0.1``, ``n=0:3:1``, Tversky's ``a`` and ``b``), on the judged pairs:

- **one grade per pair**: the mean over its judges of each judge's mean grade of the pair (a judge who graded a pair
  twice counts once); skipped pairs are left out. Grades of a few judges tie often: tau-b and midranks handle ties.
- **Kendall's tau-b** and **Spearman's rho** between the measure's relevance and that grade, and the **ROC AUC** of
  "grade >= 1" (at least partly similar) and of "grade = 2" (every judge: very similar), Mann-Whitney with ties
  counted one half (:mod:`evalcore.stats.agreement`);
- **intervals**: percentile bootstrap intervals resampling *cases* (a case's candidates share its image and its
  judges: resampling pairs would treat them as independent), from the resamples of
  :func:`evalcore.stats.compare.bootstrap_weights` (seeded), the same resamples for every setting;
- **the best setting**, chosen by K-fold cross-validation over cases (folds seeded): each setting's score is the
  mean tau-b over the held-out folds, the highest wins (ties: the first in the order given). Beside it, the honest
  estimate of choosing so (each fold's held-out tau-b of the setting best on the other folds), and the settings
  **not clearly worse**: a setting is clearly worse where the paired bootstrap of tau-b(best) - tau-b(setting), on the
  same resamples, gives a Holm-corrected two-sided p-value below 1 - confidence, p = 2 (1 + #{d <= 0 or d >= 0,
  the fewer}) / (1 + B). With B resamples no Holm-corrected p-value of m comparisons falls below 2m / (1 + B): a note
  says so where that floor keeps every setting from being called clearly worse. Below :data:`MIN_TESTED_CASES`
  cases none is called clearly worse.
- **the judges**: Cohen's weighted kappa (quadratic weights) of every two judges on the pairs both graded, each
  judge's first grading of a pair; Krippendorff's alpha (ordinal) over every judge; each judge's self-consistency on
  the pairs graded twice (the share graded identically, and the quadratic-weighted kappa of first and second
  grading, ordered by time, else by line); and a sentence where the judges agree with each other (mean tau-b of
  every two judges) less than the best measure agrees with them (mean tau-b against each judge).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation

import numpy as np

from evalcore.data import ConceptSets, Judgments
from evalcore.decimals import finite_decimal
from evalcore.engine import PairwiseEngine
from evalcore.errors import InputError, ParameterError, listed, one_line, quoted_id
from evalcore.evaluation.options import Statistics
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import MeasureSpec
from evalcore.stats.agreement import graded_statistics, kendall_tau_b, krippendorff_alpha_ordinal, weighted_kappa
from evalcore.stats.compare import bootstrap_weights, holm

#: Folds of the cross-validation over cases, by default and at most.
DEFAULT_FOLDS = 5
MAX_FOLDS = 20
#: Bootstrap resamples by default: enough that Holm's correction over 49 settings can still call one clearly worse
#: at 95% (the smallest p-value is 2 / (1 + B)); each resample costs one pass over the pairs per setting.
DEFAULT_BOOTSTRAP_SAMPLES = 2000
#: Settings one study compares at most (measures given and every setting of their sweeps).
MAX_SETTINGS = 500
#: Values one swept parameter takes at most.
MAX_SWEEP_VALUES = 1000
#: The two AUCs: their names in a report and the least mean grade of a positive pair.
AUC_THRESHOLDS = (("grade>=1", 1.0), ("grade==2", 2.0))
#: How a pair's grade is made from its gradings, as a report states it.
GRADE_RULE = ("per pair, the mean over its judges of each judge's mean grade of the pair (skipped gradings left out); "
              "intervals resample cases")
#: Parameters that weigh near matches in a knowledge graph: without one, every value gives the same numbers.
NEAR_MATCH_PARAMETERS = ("alpha", "n")
#: Examples of gradings naming an image without a concept set that a report lists.
SHOWN_UNKNOWN = 5
#: Cases below which no setting is called clearly worse than the best: resamples of so few cases repeat the same few
#: draws (one case: every resample is the data), so their percentiles would tell settings apart that the cases do not.
MIN_TESTED_CASES = 10


# --- sweeps ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParameterSweep:
    """The values one parameter is swept over, as ``NAME=START:STOP:STEP`` (``STOP`` included) or ``NAME=VALUE``."""

    parameter: str
    values: tuple[float, ...]

    @property
    def text(self) -> str:
        return f"{self.parameter}={','.join(f'{value:g}' for value in self.values)}"


def parse_sweep(text: str) -> ParameterSweep:
    """A sweep written ``NAME=START:STOP:STEP`` (every START + k STEP up to STOP, computed in decimal so that 0.1 steps
    land on 0.3, not 0.30000000000000004) or ``NAME=VALUE``.

    >>> parse_sweep("alpha=0:1:0.25").values, parse_sweep("n=0:3:1").values, parse_sweep("a=0.7").values
    ((0.0, 0.25, 0.5, 0.75, 1.0), (0.0, 1.0, 2.0, 3.0), (0.7,))
    >>> parse_sweep("alpha=0:1:0.1").values[3]
    0.3
    """
    if not isinstance(text, str):
        raise ParameterError(f"a sweep is written NAME=START:STOP:STEP such as alpha=0:1:0.1, got {text!r}"[:200])
    name, equals, written = text.partition("=")
    name = name.strip().lower()
    parts = written.split(":")
    if not equals or not name.isidentifier() or len(parts) not in (1, 3):
        raise ParameterError(f"cannot read the sweep {one_line(text, 80)!r}: expected NAME=START:STOP:STEP such as "
                             "alpha=0:1:0.1 (STOP included), or NAME=VALUE")
    numbers = [_decimal(text, part) for part in parts]
    if len(numbers) == 1:
        return ParameterSweep(name, (float(numbers[0]),))
    start, stop, step = numbers
    if step <= 0 or stop < start:
        raise ParameterError(f"sweep {one_line(text, 80)!r}: expected START <= STOP and a positive STEP")
    count = int((stop - start) / step) + 1
    if count > MAX_SWEEP_VALUES:
        raise ParameterError(f"sweep {one_line(text, 80)!r}: expected at most {MAX_SWEEP_VALUES:,} values, found "
                             f"{count:,}")
    return ParameterSweep(name, tuple(float(start + k * step) for k in range(count)))


def _decimal(text: str, part: str) -> Decimal:
    if finite_decimal(part) is None:
        raise ParameterError(f"sweep {one_line(text, 80)!r}: {one_line(part, 40)!r} is no number in digits 0-9 such as "
                             "0.1")
    try:
        return Decimal(part.strip())
    except InvalidOperation:  # pragma: no cover - finite_decimal read it
        raise ParameterError(f"sweep {one_line(text, 80)!r}: {part!r} is no number") from None


def swept_settings(measures: Sequence[MeasureSpec], sweeps: Sequence[ParameterSweep], has_kg: bool) -> list[MeasureSpec]:
    """The settings a study compares, in order: each measure as given, then every combination of the swept values of
    its parameters (the others as given); each canonical setting once. A sweep of a parameter no measure has, a
    parameter swept twice, and a sweep of near-match weights (alpha, n, hop weights) without a knowledge graph
    (every value would give IoU's numbers) are refused.

    >>> from evalcore.relevance.measures import parse_measure
    >>> [s.name for s in swept_settings([parse_measure("iou"), parse_measure("tversky(a=0.5,b=0.5)")],
    ...                                 [parse_sweep("a=0:1:0.5")], has_kg=False)]
    ['iou', 'tversky(a=0.5,b=0.5)', 'tversky(a=0,b=0.5)', 'tversky(a=1,b=0.5)']
    """
    names = [sweep.parameter for sweep in sweeps]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ParameterError(f"sweep: {listed(twice)} is swept twice; sweep each parameter once")
    for sweep in sweeps:
        owners = [measure for measure in measures if sweep.parameter in measure.params]
        if not owners:
            raise ParameterError(f"sweep {sweep.parameter}: none of the measures ({listed([m.name for m in measures])}) "
                                 f"has a parameter {sweep.parameter!r}")
        if not has_kg and (sweep.parameter in NEAR_MATCH_PARAMETERS or sweep.parameter.startswith("w")):
            raise ParameterError(f"sweep {sweep.parameter}: without a knowledge graph every value gives IoU's numbers "
                                 "(it weighs near matches in the graph): give a knowledge graph, or leave the sweep out")
    settings: dict[str, MeasureSpec] = {}
    for measure in measures:
        settings.setdefault(measure.name, measure)
        own = [sweep for sweep in sweeps if sweep.parameter in measure.params]
        for values in itertools.product(*(sweep.values for sweep in own)) if own else ():
            try:
                setting = measure.with_parameters(**{s.parameter: v for s, v in zip(own, values)})
            except ParameterError as error:
                raise ParameterError(f"sweep of {measure.name}: {error}") from None
            settings.setdefault(setting.name, setting)
        if len(settings) > MAX_SETTINGS:
            raise ParameterError(f"sweep: expected at most {MAX_SETTINGS} settings in all, found more; sweep fewer values")
    return list(settings.values())


# --- the judged pairs ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgedPairs:
    """The judged pairs a study reads: per pair its case and candidate (rows of ``concepts``), its case's number
    (0..cases - 1, the bootstrap's unit) and its grade (:data:`GRADE_RULE`); per usable grading its pair, judge,
    grade and order (time, then line)."""

    concepts: ConceptSets
    case_rows: np.ndarray
    candidate_rows: np.ndarray
    case_of_pair: np.ndarray
    grade: np.ndarray
    pair_of_grading: np.ndarray
    judge_of_grading: np.ndarray
    grading: np.ndarray
    read: int
    skipped: int
    unknown: int
    unknown_examples: tuple[tuple[int, str], ...]

    @property
    def cases(self) -> int:
        return int(self.case_of_pair.max(initial=-1)) + 1


def judged_pairs(concepts: ConceptSets, judgments: Judgments) -> JudgedPairs:
    """The pairs of ``judgments`` whose two images have concept sets, each with its grade. Gradings naming an image
    without a concept set are left out and counted (with a few examples); a file none of whose gradings names two
    images with concept sets is refused, and so is one whose every grading was skipped."""
    index = concepts.index
    known = np.array([image in index for image in judgments.images], dtype=bool)
    both = known[judgments.case] & known[judgments.candidate]
    graded = judgments.grade >= 0
    unknown = np.flatnonzero(~both)
    examples = tuple((int(judgments.lines[row]), judgments.images[judgments.case[row]] if not known[judgments.case[row]]
                      else judgments.images[judgments.candidate[row]]) for row in unknown[:SHOWN_UNKNOWN])
    usable = np.flatnonzero(both & graded)
    if not len(usable):
        if len(unknown) and not both[graded].any():
            line, image = examples[0]
            raise InputError(judgments.source, line, f"image IDs with concept sets in {concepts.source}",
                             f"{quoted_id(image)}: none of its {len(judgments):,} gradings names two of them")
        raise InputError(judgments.source, None, "at least one grading 0, 1 or 2 of two images with concept sets",
                         "skipped pairs only")
    used_images = np.unique(np.concatenate([judgments.case[usable], judgments.candidate[usable]]))
    sub = concepts.subset([judgments.images[i] for i in used_images.tolist()])
    row_of_image = np.full(len(judgments.images), -1, dtype=np.int64)
    row_of_image[used_images] = np.arange(len(used_images))
    case, candidate = row_of_image[judgments.case[usable]], row_of_image[judgments.candidate[usable]]
    pair_keys, pair_of_grading = np.unique(case * len(used_images) + candidate, return_inverse=True)
    case_rows, candidate_rows = pair_keys // len(used_images), pair_keys % len(used_images)
    _, case_of_pair = np.unique(case_rows, return_inverse=True)
    judge, grades = judgments.judge[usable].astype(np.int64), judgments.grade[usable].astype(np.float64)
    time = np.where(np.isnan(judgments.time[usable]), -np.inf, judgments.time[usable])
    order = np.lexsort((judgments.lines[usable], time))
    rank = np.empty(len(usable), dtype=np.int64)
    rank[order] = np.arange(len(usable))
    return JudgedPairs(sub, case_rows, candidate_rows, case_of_pair, _pair_grades(pair_of_grading, judge, grades,
                       len(pair_keys)), pair_of_grading, judge, np.column_stack([grades, rank]), len(judgments),
                       int((~graded).sum()), len(unknown), examples)


def _pair_grades(pair: np.ndarray, judge: np.ndarray, grade: np.ndarray, pairs: int) -> np.ndarray:
    """Per pair, the mean over its judges of each judge's mean grade of it."""
    keys, of_key = np.unique(pair * (judge.max(initial=0) + 1) + judge, return_inverse=True)
    judge_means = np.bincount(of_key, weights=grade) / np.bincount(of_key)
    pair_of_key = keys // (judge.max(initial=0) + 1)
    return np.bincount(pair_of_key, weights=judge_means, minlength=pairs) / np.bincount(pair_of_key, minlength=pairs)


# --- one setting's agreement -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SettingAgreement:
    """One setting's agreement with the grades: point values, percentile bootstrap intervals, the cross-validation's
    held-out tau-b, and, once the best is known, how it compares with the best."""

    measure: MeasureSpec
    effective: MeasureSpec
    kendall_tau_b: float
    ci: tuple[float, float]
    spearman_rho: float
    spearman_ci: tuple[float, float]
    auc: dict[str, float]
    auc_ci: dict[str, tuple[float, float]]
    pairs: int
    cases: int
    cv_kendall_tau_b: float
    fold_test: np.ndarray = field(repr=False)
    fold_train: np.ndarray = field(repr=False)
    resampled_tau: np.ndarray = field(repr=False)
    p_vs_best_holm: float = float("nan")
    clearly_worse: bool = False


def _setting_agreement(measure: MeasureSpec, effective: MeasureSpec, relevance: np.ndarray, pairs: JudgedPairs,
                       folds: np.ndarray, statistics: Statistics) -> SettingAgreement:
    """One setting's statistics on every pair, on each fold's held-out and training cases, and on each resample."""
    thresholds = [threshold for _, threshold in AUC_THRESHOLDS]
    fold_rows = np.array([folds[pairs.case_of_pair] == fold for fold in range(int(folds.max(initial=-1)) + 1)],
                         dtype=np.float64).reshape(-1, len(relevance))
    fixed = graded_statistics(relevance, pairs.grade, np.vstack([np.ones((1, len(relevance))), fold_rows,
                                                                 1 - fold_rows]), thresholds)
    count = len(fold_rows)
    drawn = [graded_statistics(relevance, pairs.grade, weights[:, pairs.case_of_pair], thresholds)
             for weights in bootstrap_weights(pairs.cases, statistics.bootstrap_samples, statistics.seed)]
    tau = np.concatenate([found.kendall_tau_b for found in drawn])
    rho = np.concatenate([found.spearman_rho for found in drawn])
    aucs = [np.concatenate([found.auc[t] for found in drawn]) for t in range(len(thresholds))]
    with np.errstate(invalid="ignore"):
        held_out = fixed.kendall_tau_b[1:1 + count]
        cv = float(np.nanmean(held_out)) if np.isfinite(held_out).any() else float("nan")
    return SettingAgreement(
        measure, effective, float(fixed.kendall_tau_b[0]), _interval(tau, statistics.confidence),
        float(fixed.spearman_rho[0]), _interval(rho, statistics.confidence),
        {name: float(fixed.auc[t][0]) for t, (name, _) in enumerate(AUC_THRESHOLDS)},
        {name: _interval(aucs[t], statistics.confidence) for t, (name, _) in enumerate(AUC_THRESHOLDS)},
        len(relevance), pairs.cases, cv, held_out, fixed.kendall_tau_b[1 + count:], tau)


def _interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The percentile interval of the defined values (NaN: a resample where the statistic is undefined)."""
    defined = values[np.isfinite(values)]
    if not len(defined):
        return float("nan"), float("nan")
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(defined, [tail, 100 - tail])
    return float(low), float(high)


def case_folds(cases: int, folds: int, seed: int) -> np.ndarray:
    """The fold of each case: the cases in a seeded random order, dealt out in turn, so folds differ by one at most.

    >>> case_folds(5, 2, seed=0).tolist()
    [1, 0, 0, 0, 1]
    """
    fold = np.empty(cases, dtype=np.int64)
    fold[np.random.default_rng(seed).permutation(cases)] = np.arange(cases) % folds
    return fold


# --- the judges --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class JudgePair:
    """Two judges on the pairs both graded (each one's first grading of a pair)."""

    judge_a: str
    judge_b: str
    pairs: int
    weighted_kappa: float
    kendall_tau_b: float


@dataclass(frozen=True)
class SelfConsistency:
    """One judge's pairs graded more than once: how many, the share whose first two gradings are the same, and the
    quadratic-weighted kappa of first against second grading."""

    repeated_pairs: int
    identical_share: float
    weighted_kappa: float


@dataclass(frozen=True)
class JudgeAgreement:
    judges: tuple[str, ...]
    gradings: dict[str, int]
    pairwise: tuple[JudgePair, ...]
    krippendorff_alpha_ordinal: float
    self_consistency: dict[str, SelfConsistency]
    judge_tau_b: float
    best_measure_tau_b: float
    note: str | None

    @property
    def weighted_kappa(self) -> float:
        """Cohen's quadratic-weighted kappa where there are two judges (NaN otherwise: see :attr:`pairwise`)."""
        return self.pairwise[0].weighted_kappa if len(self.judges) == 2 and self.pairwise else float("nan")


def _first_gradings(pairs: JudgedPairs, order: int) -> dict[tuple[int, int], float]:
    """Each (judge, pair)'s ``order``-th grading (0: first), in time then line order."""
    ranked = np.lexsort((pairs.grading[:, 1], pairs.pair_of_grading, pairs.judge_of_grading))
    judge, pair = pairs.judge_of_grading[ranked], pairs.pair_of_grading[ranked]
    start = np.concatenate(([True], (judge[1:] != judge[:-1]) | (pair[1:] != pair[:-1])))
    position = np.arange(len(ranked)) - np.maximum.accumulate(np.where(start, np.arange(len(ranked)), 0))
    chosen = ranked[position == order]
    return {(int(j), int(p)): float(g) for j, p, g in zip(pairs.judge_of_grading[chosen], pairs.pair_of_grading[chosen],
                                                          pairs.grading[chosen, 0])}


def judge_agreement(pairs: JudgedPairs, names: Sequence[str], best: SettingAgreement | None,
                    best_relevance: np.ndarray | None) -> JudgeAgreement:
    """How the judges agree with each other and with themselves, and with the best measure (mean tau-b against each
    judge's first gradings)."""
    first, second = _first_gradings(pairs, 0), _first_gradings(pairs, 1)
    by_judge: dict[int, dict[int, float]] = {}
    for (judge, pair), grade in first.items():
        by_judge.setdefault(judge, {})[pair] = grade
    judges = sorted(by_judge)
    pairwise = []
    for a, b in itertools.combinations(judges, 2):
        shared = sorted(set(by_judge[a]) & set(by_judge[b]))
        if shared:
            ga, gb = [by_judge[a][p] for p in shared], [by_judge[b][p] for p in shared]
            pairwise.append(JudgePair(names[a], names[b], len(shared), weighted_kappa(ga, gb),
                                      kendall_tau_b(ga, gb) if len(shared) > 1 else float("nan")))
    units: dict[int, list[float]] = {}
    for (_, pair), grade in first.items():
        units.setdefault(pair, []).append(grade)
    consistency = {}
    repeated: dict[int, list[int]] = {}
    for judge, pair in sorted(second):
        repeated.setdefault(judge, []).append(pair)
    for judge, again in repeated.items():
        if again:
            a, b = [first[(judge, p)] for p in again], [second[(judge, p)] for p in again]
            consistency[names[judge]] = SelfConsistency(len(again), float(np.mean(np.equal(a, b))), weighted_kappa(a, b))
    judge_tau = _mean_defined([pair.kendall_tau_b for pair in pairwise])
    measure_tau = float("nan")
    if best is not None and best_relevance is not None:
        measure_tau = _mean_defined([kendall_tau_b(best_relevance[list(by_judge[j])], list(by_judge[j].values()))
                                     if len(by_judge[j]) > 1 else float("nan") for j in judges])
    note = None
    if best is not None and np.isfinite(judge_tau) and np.isfinite(measure_tau) and judge_tau < measure_tau:
        note = (f"The judges agree with each other less (mean Kendall tau-b of two judges {judge_tau:.3f}) than the best "
                f"measure, {best.measure.name}, agrees with them (mean tau-b against each judge {measure_tau:.3f}): "
                "the judges' own disagreement bounds how well any measure can agree with them, so differences between "
                "measures at this level say little.")
    gradings = np.bincount(pairs.judge_of_grading, minlength=len(names))
    return JudgeAgreement(tuple(names[j] for j in judges), {names[j]: int(gradings[j]) for j in judges}, tuple(pairwise),
                          krippendorff_alpha_ordinal(list(units.values())) if len(judges) > 1 else float("nan"),
                          consistency, judge_tau, measure_tau, note)


def _mean_defined(values: Sequence[float]) -> float:
    finite = [value for value in values if np.isfinite(value)]
    return float(np.mean(finite)) if finite else float("nan")


# --- the study ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BestSetting:
    """The setting chosen by cross-validation, the honest estimate of choosing so, and the settings not clearly
    worse than it."""

    setting: SettingAgreement
    held_out_kendall_tau_b: float
    fold_choices: tuple[str, ...]
    not_clearly_worse: tuple[str, ...]
    folds: int


@dataclass(frozen=True)
class AgreementReport:
    """What :func:`agreement_study` found: each setting's agreement (by canonical name, in the order given), the best,
    the judges, the judgments read and used, the settings of the statistics, and notes in plain sentences."""

    settings: dict[str, SettingAgreement]
    best: BestSetting
    judges: JudgeAgreement
    pairs: JudgedPairs = field(repr=False)
    statistics: Statistics
    notes: tuple[str, ...]

    def to_dict(self) -> dict:
        """The report as JSON-ready values (an undefined number is None): what ``agreement --json`` writes."""
        return report_dict(self)


def agreement_study(concepts: ConceptSets, judgments: Judgments, measures: Sequence[MeasureSpec], *,
                    kg: KnowledgeGraph | None = None, mode: str = "undirected", sweeps: Sequence[ParameterSweep] = (),
                    folds: int = DEFAULT_FOLDS, statistics: Statistics | None = None) -> AgreementReport:
    """How each measure, and each setting of ``sweeps``, agrees with the judgments (module docstring); ``statistics``:
    confidence, bootstrap resamples and seed (default :data:`DEFAULT_BOOTSTRAP_SAMPLES` resamples, seed 0)."""
    statistics = statistics if statistics is not None else Statistics(bootstrap_samples=DEFAULT_BOOTSTRAP_SAMPLES)
    if not measures or not all(isinstance(measure, MeasureSpec) for measure in measures):
        raise ParameterError("measures: expected one or more MeasureSpec (parse_measure at the door)")
    if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or not 2 <= folds <= MAX_FOLDS:
        raise ParameterError(f"folds must be a whole number from 2 to {MAX_FOLDS}, got {folds!r}")
    settings = swept_settings(measures, sweeps, kg is not None)
    pairs = judged_pairs(concepts, judgments)
    notes = _judgment_notes(pairs, judgments, concepts)
    folds_used = min(int(folds), pairs.cases)
    if folds_used < folds:
        notes.append(f"The judgments cover {pairs.cases} case{'s' if pairs.cases != 1 else ''}: "
                     + (f"{folds_used}-fold cross-validation instead of {folds}-fold." if folds_used > 1 else
                        "no cross-validation; the best setting is the one with the highest tau-b."))
    fold_of_case = case_folds(pairs.cases, folds_used, statistics.seed) if folds_used > 1 else np.zeros(0, np.int64)
    engine = PairwiseEngine(pairs.concepts, kg=kg, mode=mode)
    found, relevance = {}, {}
    for setting in settings:
        effective = engine.resolve(setting)
        if effective.name not in relevance:
            relevance[effective.name] = engine.relevance_of_pairs_by(effective, pairs.case_rows, pairs.candidate_rows)
            computed = _setting_agreement(setting, effective, relevance[effective.name], pairs,
                                          fold_of_case, statistics)
        else:
            computed = next(s for s in found.values() if s.effective.name == effective.name)
        found[setting.name] = _same_numbers(computed, setting)
    best, found = _chosen(found, folds_used, statistics, notes)
    judges = judge_agreement(pairs, judgments.judges, best.setting, relevance[best.setting.effective.name])
    if judges.note:
        notes.append(judges.note)
    return AgreementReport(found, best, judges, pairs, statistics, tuple(notes))


def _same_numbers(computed: SettingAgreement, setting: MeasureSpec) -> SettingAgreement:
    """A setting whose effective measure was computed already: the same numbers, under its own name."""
    return computed if computed.measure == setting else replace(computed, measure=setting)


def _judgment_notes(pairs: JudgedPairs, judgments: Judgments, concepts: ConceptSets) -> list[str]:
    notes = []
    if pairs.unknown:
        shown = ", ".join(f"{quoted_id(image)} (line {line})" for line, image in pairs.unknown_examples)
        notes.append(f"{pairs.unknown:,} of {pairs.read:,} gradings in {one_line(judgments.source, 80)} name an image "
                     f"without a concept set in {one_line(concepts.source, 80)} and were left out, e.g. {shown}.")
    if pairs.skipped:
        notes.append(f"{pairs.skipped:,} skipped grading{'s were' if pairs.skipped != 1 else ' was'} left out.")
    return notes


def _chosen(found: dict[str, SettingAgreement], folds: int, statistics: Statistics,
            notes: list[str]) -> tuple[BestSetting, dict[str, SettingAgreement]]:
    """The best setting by cross-validation (by tau-b on every pair without one), the honest estimate of choosing
    so, and each setting's Holm-corrected paired bootstrap comparison with the best."""
    names = list(found)
    scores = np.array([found[name].cv_kendall_tau_b if folds > 1 else found[name].kendall_tau_b for name in names])
    best_name = names[int(np.argmax(np.where(np.isfinite(scores), scores, -np.inf)))]
    best = found[best_name]
    choices, held_out = [], []
    for fold in range(folds if folds > 1 else 0):
        trained = np.array([found[name].fold_train[fold] for name in names])
        chosen = names[int(np.argmax(np.where(np.isfinite(trained), trained, -np.inf)))]
        choices.append(chosen)
        held_out.append(found[chosen].fold_test[fold])
    others = sorted({s.effective.name: name for name, s in found.items()
                     if s.effective.name != best.effective.name}.items())
    if others and best.cases < MIN_TESTED_CASES:
        notes.append(f"The judgments cover {best.cases} case{'s' if best.cases != 1 else ''}: with fewer than "
                     f"{MIN_TESTED_CASES} no setting is called clearly worse than the best (a bootstrap over so few cases "
                     "cannot tell), and the intervals are too narrow.")
        others = []
    raw = [_paired_p(best.resampled_tau, found[name].resampled_tau) for _, name in others]
    adjusted = dict(zip((effective for effective, _ in others), holm(raw))) if raw else {}
    level = 1 - statistics.confidence
    if raw and 2 * len(raw) / (1 + statistics.bootstrap_samples) >= level:
        notes.append(f"With {statistics.bootstrap_samples:,} bootstrap resamples and {len(raw) + 1} distinct settings, no "
                     f"Holm-corrected p-value falls below {level:g}: no setting can be called clearly worse than the "
                     f"best; give at least {int(np.ceil(2 * len(raw) / level))} resamples.")
    for name, setting in found.items():
        p = adjusted.get(setting.effective.name, 1.0)
        worse = bool(p < level and setting.kendall_tau_b < best.kendall_tau_b)
        found[name] = replace(setting, p_vs_best_holm=p, clearly_worse=worse)
    best_setting = BestSetting(found[best_name], _mean_defined(held_out), tuple(choices),
                               tuple(name for name, s in found.items() if not s.clearly_worse), folds)
    return best_setting, found


def _paired_p(best: np.ndarray, other: np.ndarray) -> float:
    """The two-sided bootstrap p-value of tau-b(best) - tau-b(other) over the resamples where both are defined:
    2 (1 + the fewer of #{d <= 0} and #{d >= 0}) / (1 + B), at most 1. Identical values give 1."""
    defined = np.isfinite(best) & np.isfinite(other)
    differences = best[defined] - other[defined]
    if not len(differences) or not differences.any():
        return 1.0
    fewer = min(int((differences <= 0).sum()), int((differences >= 0).sum()))
    return min(1.0, 2 * (1 + fewer) / (1 + len(differences)))


# --- the report as JSON -------------------------------------------------------------------------------------------


def _number(value: float) -> float | None:
    """A finite number as it is; an undefined (NaN) or infinite one as None (JSON has no NaN)."""
    return float(value) if value is not None and np.isfinite(value) else None


def _pair_of_numbers(values: tuple[float, float]) -> list[float | None]:
    return [_number(values[0]), _number(values[1])]


def setting_dict(setting: SettingAgreement) -> dict:
    """One setting as ``measures[<canonical name>]`` of the JSON holds it."""
    return {"key": setting.measure.key, "params": setting.measure.params,
            "computed_as": setting.effective.name, "kendall_tau_b": _number(setting.kendall_tau_b),
            "ci": _pair_of_numbers(setting.ci), "spearman_rho": _number(setting.spearman_rho),
            "spearman_ci": _pair_of_numbers(setting.spearman_ci),
            "auc": {name: _number(value) for name, value in setting.auc.items()},
            "auc_ci": {name: _pair_of_numbers(value) for name, value in setting.auc_ci.items()},
            "pairs": setting.pairs, "cases": setting.cases, "cv_kendall_tau_b": _number(setting.cv_kendall_tau_b),
            "p_vs_best_holm": _number(setting.p_vs_best_holm), "clearly_worse": setting.clearly_worse}


def report_dict(report: AgreementReport) -> dict:
    """:meth:`AgreementReport.to_dict`."""
    best, judges, pairs = report.best, report.judges, report.pairs
    return {
        "measures": {name: setting_dict(setting) for name, setting in report.settings.items()},
        "best": {"measure": best.setting.measure.name, "key": best.setting.measure.key,
                 "params": best.setting.measure.params, "kendall_tau_b": _number(best.setting.kendall_tau_b),
                 "ci": _pair_of_numbers(best.setting.ci), "cv_kendall_tau_b": _number(best.setting.cv_kendall_tau_b),
                 "held_out_kendall_tau_b": _number(best.held_out_kendall_tau_b), "fold_choices": list(best.fold_choices),
                 "not_clearly_worse": list(best.not_clearly_worse), "folds": best.folds},
        "judges": {
            "names": list(judges.judges), "gradings": judges.gradings,
            "weighted_kappa": _number(judges.weighted_kappa), "kappa_weights": "quadratic",
            "krippendorff_alpha_ordinal": _number(judges.krippendorff_alpha_ordinal),
            "pairwise": [{"judge_a": p.judge_a, "judge_b": p.judge_b, "pairs": p.pairs,
                          "weighted_kappa": _number(p.weighted_kappa), "kendall_tau_b": _number(p.kendall_tau_b)}
                         for p in judges.pairwise],
            "self_consistency": {name: {"repeated_pairs": c.repeated_pairs, "identical_share": _number(c.identical_share),
                                        "weighted_kappa": _number(c.weighted_kappa)}
                                 for name, c in judges.self_consistency.items()},
            "judge_kendall_tau_b": _number(judges.judge_tau_b),
            "best_measure_kendall_tau_b": _number(judges.best_measure_tau_b), "note": judges.note},
        "judgments": {"read": pairs.read, "used": int(len(pairs.pair_of_grading)), "skipped": pairs.skipped,
                      "unknown_ids": pairs.unknown,
                      "unknown_examples": [{"line": line, "id": image} for line, image in pairs.unknown_examples],
                      "pairs": int(len(pairs.grade)), "cases": pairs.cases},
        "statistics": {"confidence": report.statistics.confidence,
                       "bootstrap_samples": report.statistics.bootstrap_samples, "seed": report.statistics.seed,
                       "folds": best.folds, "grade": GRADE_RULE,
                       "auc": {name: f"positive: a pair's grade >= {threshold:g}" for name, threshold in AUC_THRESHOLDS}},
        "notes": list(report.notes),
    }
