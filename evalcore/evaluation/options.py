"""The options of an evaluation as frozen value objects, validated once when they are built.

The command line, the Python API and the dashboard's sidebar turn their loose settings into these
objects at the door; below them an evaluation reads only these:

- :class:`Relevance`: how relevant a retrieved item is and what a table does with it: the
  :class:`~evalcore.relevance.measures.MeasureSpec` of the ``nn-`` metrics and the chosen measure of the
  ``{key}`` metrics, the gain, the relevance threshold of MAP / AP / Prec / R, trec_eval's
  relevance level for judged grades, the policy for queries with no relevant item, and how a run's
  lists are read: the order of tied scores (``ties``) and whether a query's own image keeps its place in its
  list (``query_image``).
- :class:`Scoring`: which metrics (named, or the standard report at the cut-offs ``k``).
- :class:`Statistics`: the confidence intervals and significance tests of :class:`~evalcore.evaluation.results.Results`.
- :class:`Compute`: where the passes over the pool run (local processes or a Dask cluster, each
  worker's memory budget, the array backend and its device); the numbers do not depend on it. It is the
  engine's own option (:mod:`evalcore.engine.compute`), re-exported here beside the others.

The KG mode is not an option here: it is fixed by the knowledge graph an
:class:`~evalcore.evaluation.evaluator.Evaluator` (and its engine) is built on.

>>> relevance = Relevance.of(alpha=0.3, n=2, measure=measure_spec("dice"))
>>> relevance.nn_iou.name, relevance.spec_for("dice").name, relevance.spec_for("iou").name
('nn-iou(alpha=0.3,n=2)', 'dice', 'iou')
>>> Relevance.of(measure=measure_spec("nn-iou", alpha=0.2, n=3)).nn_iou.name
'nn-iou(alpha=0.2,n=3)'
>>> Relevance(threshold=0)
Traceback (most recent call last):
...
evalcore.errors.ParameterError: relevance threshold must lie in (0, 1], got 0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from evalcore.engine.compute import Compute
from evalcore.errors import ParameterError, listed, one_line
from evalcore.metrics.registry import GAINS, metric_names_for_measure, parse_metric, qrels_metric_names
from evalcore.metrics.ties import TIE_ORDERS
from evalcore.relevance.measures import MEASURES, MeasureSpec, measure_spec, nn_iou_measure

__all__ = ["DEFAULT_ALPHA", "DEFAULT_CUTOFFS", "DEFAULT_HOPS", "EMPTY_QUERY_POLICIES", "MAX_CUTOFFS", "MAX_METRICS",
           "MIN_SAMPLES", "QUERY_IMAGE_POLICIES", "TIE_ORDERS", "Compute", "Relevance", "Scoring", "Statistics", "cutoffs"]

EMPTY_QUERY_POLICIES = ("exclude", "zero")
QUERY_IMAGE_POLICIES = ("drop", "keep")
#: The defaults of the CLI, the API and the dashboard's sidebar: nn-IoU's alpha and n (the paper's setting) and the
#: cut-offs K of the standard report.
DEFAULT_ALPHA = 0.5
DEFAULT_HOPS = 1
DEFAULT_CUTOFFS = (5, 10, 30)
#: The most cut-offs and metric names one table takes: each cut-off adds a column to every metric of the standard
#: report (about 14 per K, for every query of every run), so 3,000 cut-offs took 2.1 GB on the demo; 100 take 0.5 GB.
MAX_CUTOFFS = 100
MAX_METRICS = 200
#: The fewest bootstrap resamples and randomizations: one resample gave an interval that did not hold its own mean,
#: one randomization a p-value of at least 0.5.
MIN_SAMPLES = 100


def _nn_iou_default() -> MeasureSpec:
    return nn_iou_measure(DEFAULT_ALPHA, DEFAULT_HOPS)


@dataclass(frozen=True)
class Relevance:
    """How relevance is measured and scored in one table.

    ``nn_iou``: the measure of the ``nn-`` metrics (an nn-IoU spec; at alpha = 0 or n = 0 it computes
    IoU, :meth:`MeasureSpec.effective`); ``measure``: the chosen measure of the ``{key}`` metrics
    (recorded in the evaluation's parameters), None when none was chosen; ``gain``: ``linear`` or
    ``exponential``; ``threshold``: IoU-family relevance at which an item counts as relevant for MAP,
    AP, Prec and R; ``relevance_level``: the same for judged grades (trec_eval's ``-l``, an integer
    >= 1); ``empty_queries``: ``exclude`` or ``zero`` (see :mod:`evalcore.evaluation.evaluator`).

    How the runs' lists are read (both recorded in the evaluation's parameters):

    - ``ties``: the order of items with tied scores (:mod:`evalcore.metrics.ties`): ``"rank"`` (default: score
      descending, then the file's rank, the order the run's author wrote) or ``"trec_eval"`` (score as float32
      descending, then document ID descending, as trec_eval, pytrec_eval and ir_measures order them).
    - ``query_image``: a query's own image in its list is ``"drop"``-ped before any metric reads the list
      (default, docs/DESIGN.md §1: it is not a candidate of its own pool) or ``"keep"``-s its rank as trec_eval keeps
      it: under judged grades it scores its judged grade (trec_eval's number exactly), under concept relevance
      relevance 0 (it is not in its own pool, and the qrels that ``qrels`` writes leave it unjudged, which
      trec_eval reads as 0); it is never a label match.

    Build it from loose ``alpha, n`` with :meth:`of`.
    """

    nn_iou: MeasureSpec = field(default_factory=_nn_iou_default)
    measure: MeasureSpec | None = None
    gain: str = "linear"
    threshold: float = 0.5
    relevance_level: int = 1
    empty_queries: str = "exclude"
    ties: str = "rank"
    query_image: str = "drop"

    def __post_init__(self) -> None:
        if not isinstance(self.nn_iou, MeasureSpec) or self.nn_iou.key != "nn-iou":
            raise ParameterError(f"the measure of the nn- metrics must be an nn-iou MeasureSpec, got {self.nn_iou!r}")
        if self.measure is not None:
            if not isinstance(self.measure, MeasureSpec):
                raise ParameterError(f"the chosen measure must be a MeasureSpec (parse its text at the door with "
                                     f"parse_measure), got {self.measure!r}")
            if self.measure.key == "nn-iou" and self.measure != self.nn_iou:
                raise ParameterError(f"two nn-IoU settings: {self.measure.name} and {self.nn_iou.name}; give one")
        if self.gain not in GAINS:
            raise ParameterError(f"gain must be one of {GAINS}, got {self.gain!r}")
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, (int, float, np.integer, np.floating)):
            raise ParameterError(f"relevance threshold must be a number in (0, 1], got {self.threshold!r:.60}")
        if not 0 < self.threshold <= 1:
            raise ParameterError(f"relevance threshold must lie in (0, 1], got {self.threshold}")
        if self.empty_queries not in EMPTY_QUERY_POLICIES:
            raise ParameterError(f"empty_queries must be one of {EMPTY_QUERY_POLICIES}, got {self.empty_queries!r}")
        if self.ties not in TIE_ORDERS:
            raise ParameterError(f"ties must be one of {TIE_ORDERS}, got {self.ties!r}")
        if self.query_image not in QUERY_IMAGE_POLICIES:
            raise ParameterError(f"query_image must be one of {QUERY_IMAGE_POLICIES}, got {self.query_image!r}")
        level = self.relevance_level
        if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or level < 1:
            raise ParameterError(f"relevance level must be an integer >= 1 (trec_eval -l), got {level!r}")

    @classmethod
    def of(cls, alpha: float = DEFAULT_ALPHA, n: int = DEFAULT_HOPS, measure: MeasureSpec | None = None, *, gain: str = "linear",
           threshold: float = 0.5, relevance_level: int = 1, empty_queries: str = "exclude", ties: str = "rank",
           query_image: str = "drop") -> Relevance:
        """The options from the loose settings of the CLI, the API and the sidebar: ``alpha`` and ``n`` give the
        nn-IoU spec (validated here, where they arrive loose), unless ``measure`` is an nn-IoU spec, which then sets
        them (as ``--measure`` documents)."""
        near = measure if isinstance(measure, MeasureSpec) and measure.key == "nn-iou" else nn_iou_measure(alpha, n)
        return cls(near, measure, gain, threshold, relevance_level, empty_queries, ties, query_image)

    @property
    def alpha(self) -> float:
        return self.nn_iou.params["alpha"]

    @property
    def n(self) -> int:
        return self.nn_iou.hops

    def at(self, setting: MeasureSpec) -> Relevance:
        """These options with the measure an ablation or a sweep moves set to ``setting``: an nn-IoU spec becomes
        the nn- metrics' measure (and the chosen one where that is nn-IoU too), any other the chosen measure; the
        gain, thresholds, empty queries, ties and the query image stay, so that a curve's point at the table's own
        setting is the table's number.

        >>> near = Relevance(nn_iou_measure(0.5, 1), empty_queries="zero").at(nn_iou_measure(0.2, 2))
        >>> near.nn_iou.name, near.measure, near.empty_queries
        ('nn-iou(alpha=0.2,n=2)', None, 'zero')
        >>> Relevance(ties="trec_eval").at(measure_spec("dice")).measure.name
        'dice'
        """
        if setting.key != "nn-iou":
            return replace(self, measure=setting)
        chosen = setting if self.measure is not None and self.measure.key == "nn-iou" else self.measure
        return replace(self, nn_iou=setting, measure=chosen)

    def spec_for(self, key: str) -> MeasureSpec:
        """The measure behind a metric's relevance key: IoU, nn-IoU, the chosen measure, or a measure without
        parameters; a measure with parameters must be the chosen one."""
        if key == "iou":
            return measure_spec("iou")
        if key == "nn-iou":
            return self.nn_iou
        if self.measure is not None and self.measure.key == key:
            return self.measure
        if not MEASURES[key].parameters and not MEASURES[key].weights:
            return measure_spec(key)
        raise ParameterError(f"metrics with {{{key}}} need that measure's parameters: pass measure="
                             f"'{measure_spec(key).name}' (with your values) to evaluate, or --measure on the CLI")


def cutoffs(k: int | Sequence[int]) -> tuple[int, ...]:
    """Cut-offs as a tuple of positive integers; one integer is one cut-off.

    >>> cutoffs(10), cutoffs([5, 10])
    ((10,), (5, 10))
    """
    if not isinstance(k, (int, np.integer)) and (isinstance(k, (str, bytes)) or not hasattr(k, "__iter__")):
        raise ParameterError(f"k must be a positive integer or a list of them, got {one_line(repr(k), 60)}")
    values = (k,) if isinstance(k, (int, np.integer)) else tuple(k)
    if not values or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1 for v in values):
        raise ParameterError(f"k must be a positive integer or a list of them, got {one_line(repr(k), 60)}")
    return tuple(int(v) for v in values)


@dataclass(frozen=True)
class Scoring:
    """Which metrics a table holds: ``metrics`` by canonical name, or (None) the standard report at the
    cut-offs ``k``, with P@K for the label kinds the evaluator has and the chosen measure's metrics in place of
    nn-IoU's (:func:`~evalcore.metrics.registry.metric_names_for_measure`; under a qrels file trec_eval's report).

    >>> Scoring(k=[10]).k, Scoring(["nn-CUI@10"]).metrics
    ((10,), ('nn-CUI@10',))
    >>> Scoring(["MAP@10", "AP@10"])
    Traceback (most recent call last):
    ...
    evalcore.errors.ParameterError: metrics: 'AP@10' and 'MAP@10' name one metric (MAP@10); give it once
    >>> Scoring(["P@10[modality]"], part_of=["nn-CUI@10", "P@10[modality]"]).part_of
    ('nn-CUI@10', 'P@10[modality]')
    """

    metrics: tuple[str, ...] | None = None
    k: tuple[int, ...] = DEFAULT_CUTOFFS
    #: The whole table's metric names where ``metrics`` are a part of it drawn first (the dashboard's shown group):
    #: a query is empty when no relevance measure of the whole table finds a relevant item for it, so the part's
    #: values are the whole table's.
    part_of: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", cutoffs(self.k))
        if len(set(self.k)) > MAX_CUTOFFS:
            raise ParameterError(f"k must name at most {MAX_CUTOFFS} cut-offs (each adds a column to every metric), "
                                 f"got {len(set(self.k)):,}")
        if self.metrics is not None:
            if isinstance(self.metrics, str):
                raise ParameterError(f"metrics: expected a list of metric names, got the string {self.metrics!r}")
            object.__setattr__(self, "metrics", tuple(self.metrics))
            if len(self.metrics) > MAX_METRICS:
                raise ParameterError(f"metrics must name at most {MAX_METRICS} metrics, got {len(self.metrics):,}")
            seen: dict[str, str] = {}
            for name in self.metrics:
                if not isinstance(name, str):
                    raise ParameterError(f"metrics: expected metric names as text, got {name!r:.60}")
                canonical = parse_metric(name).name
                if canonical in seen:
                    raise ParameterError(f"metrics: {name!r} and {seen[canonical]!r} name one metric ({canonical}); "
                                         "give it once")
                seen[canonical] = name
        if self.part_of is not None:
            if self.metrics is None or isinstance(self.part_of, str):
                raise ParameterError("part_of names the whole table's metrics (a list) where metrics names a part of it")
            object.__setattr__(self, "part_of", tuple(parse_metric(name).name for name in self.part_of))
            outside = [name for name in self.metrics if parse_metric(name).name not in self.part_of]
            if outside:
                raise ParameterError(f"metrics {listed(outside)} are not in the table they are part of (part_of)")

    @property
    def cutoffs(self) -> tuple[int, ...]:
        """The cut-offs the table's numbers are at: ``k`` for the standard report, the named metrics' own otherwise
        (``k`` does not apply to them; RBP has none, it runs to the end of the list), ``k`` where none names one.

        >>> Scoring(k=[5, 20]).cutoffs, Scoring(["MAP@100", "CUI@10", "nn-CUI@10", "RBP"], k=[5, 20]).cutoffs
        ((5, 20), (10, 100))
        """
        named = {parse_metric(name).k for name in self.metrics or ()} - {None}
        return tuple(sorted(named)) if named else self.k

    def metric_names(self, label_targets: Sequence[str], relevance: Relevance, judged: bool = False) -> list[str]:
        """The table's metric names for an evaluator with these label targets (and a qrels file when ``judged``)."""
        if self.metrics:
            return list(self.metrics)
        if judged:
            return qrels_metric_names(self.k, label_targets)
        return metric_names_for_measure(self.k, label_targets, relevance.measure.key if relevance.measure else None)


@dataclass(frozen=True)
class Statistics:
    """Settings of the confidence intervals and the significance tests.

    The defaults are those of the dashboard, which redraws the leaderboard within its time budget
    on ROCOv2 with them; the API and the command line use the same defaults, so that all three print
    the same numbers. Raise the sample counts for a publication (the Monte Carlo error of a 2.5%
    percentile from B resamples is about 0.12 standard errors at B = 500, 0.06 at B = 2000). The randomization
    test's p-value is at least ``1 / (B + 1)`` (:attr:`smallest_randomization_p`: 0.0005 at the default 2,000), and
    every report prints it beside the p-values; 10,000 randomizations (floor 1e-4) take about 1 s per metric on
    ROCOv2 test with three systems, 2,000 about 0.2 s, which is why the dashboard's default stays 2,000.

    >>> Statistics()
    Statistics(confidence=0.95, bootstrap_samples=500, randomization_samples=2000, seed=0)
    >>> Statistics(confidence=95)
    Traceback (most recent call last):
    ...
    evalcore.errors.ParameterError: confidence must lie in (0, 1), e.g. 0.95; got 95
    """

    confidence: float = 0.95
    bootstrap_samples: int = 500
    randomization_samples: int = 2000
    seed: int = 0

    @property
    def smallest_randomization_p(self) -> float:
        """The smallest p-value the randomization test can give, ``1 / (B + 1)`` with B = ``randomization_samples``
        (its formula, :func:`evalcore.stats.compare.randomization_test`), before Holm's correction multiplies it: a
        difference no randomization reaches reads this, not 0. Printed beside the p-values (``compare``, the
        leaderboard, ``statistics`` of the JSON); raise B for smaller ones.

        >>> Statistics().smallest_randomization_p, Statistics(randomization_samples=9999).smallest_randomization_p
        (0.0004997501249375312, 0.0001)
        """
        return 1 / (self.randomization_samples + 1)

    def __post_init__(self) -> None:
        if not isinstance(self.confidence, (int, float)) or not 0 < self.confidence < 1:
            raise ParameterError(f"confidence must lie in (0, 1), e.g. 0.95; got {self.confidence!r}")
        for name, fewer in (("bootstrap_samples", "resamples make an interval's bounds"),
                            ("randomization_samples", "randomizations make a p-value")):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not MIN_SAMPLES <= value <= 1_000_000:
                raise ParameterError(f"{name} must be an integer in {MIN_SAMPLES}..1000000 (fewer {fewer} mostly "
                                     f"chance), got {value!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ParameterError(f"seed must be a non-negative integer, got {self.seed!r}")
