"""The Python API: ``evalcore.evaluate(...)`` from files or in-memory objects to :class:`Results`.

Every input may be a path (or the file's bytes), the project's own container, or a plain Python /
pandas object. Plain objects are written out in the documented file format and read back by the same
readers as files, so that they are validated the same way: a bad row raises
:class:`~evalcore.errors.InputError` naming the input, the line (line 1 is the header) and what was
expected. The caller's objects are never modified.

>>> import evalcore
>>> from evalcore import Scoring
>>> result = evalcore.evaluate(
...     {"q": {"C0040405", "C0042449"}, "x": {"C0040405", "C0005847"}, "y": {"C0040405"}},
...     {"kg-aware": {"q": ["x", "y"]}, "literal": {"q": ["y", "x"]}},
...     Scoring(["CUI@1", "nn-CUI@1"]), kg=[("C0042449", "C0005847")])
>>> result.means()
{'kg-aware': {'CUI@1': 0.6666666666666666, 'nn-CUI@1': 1.0}, 'literal': {'CUI@1': 1.0, 'nn-CUI@1': 0.75}}
>>> result.table().round(4)
     system    metric    mean  ci_low  ci_high  queries
0  kg-aware     CUI@1  0.6667  0.6667   0.6667        1
1  kg-aware  nn-CUI@1  1.0000  1.0000   1.0000        1
2   literal     CUI@1  1.0000  1.0000   1.0000        1
3   literal  nn-CUI@1  0.7500  0.7500   0.7500        1

``literal`` puts y = {CT} first (IoU 1/2 beats x's 1/3); with the KG, vein and blood vessel are
neighbours, so x's nn-IoU is 2/3 and ``kg-aware``, which puts x first, is ideal under nn-CUI@1.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import numpy as np
import pandas as pd

from evalcore.data import LABEL_KINDS, ConceptClassMap, ConceptSets, ImageLabels, Judgments, KGEdges, Qrels, Run
from evalcore.engine import Compute
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.groups import needed_inputs, parse_group_by, query_grouping, results_by_group
from evalcore.evaluation.options import Relevance, Scoring, Statistics
from evalcore.evaluation.results import Results, evaluate_runs
from evalcore.extraction.caption_concepts import find_caption_concepts
from evalcore.extraction.evidence import EvidenceRow, evidence_rows
from evalcore.extraction.extractor import merged_names, merged_synonyms
from evalcore.extraction.user_rules import read_user_rules
from evalcore.io.loading import load_kg, resolve_labels
from evalcore.processes import worker_count
from evalcore.readers import (
    read_captions,
    read_concepts,
    read_kg,
    read_labels,
    read_qrels,
    read_run,
    read_runs,
    read_synonyms,
)
from evalcore.readers.concepts import check_concepts_readable
from evalcore.readers.judgment_columns import read_judgment_columns
from evalcore.readers.names import read_names_to_find
from evalcore.readers.query_attributes import read_query_attributes
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import MeasureSpec, parse_measure
from evalcore.stats.groups import GroupedScores, Grouping
from evalcore.studies.agreement import DEFAULT_FOLDS, AgreementReport, ParameterSweep, agreement_study, parse_sweep

if TYPE_CHECKING:
    from evalcore.stats.effects import AnovaTables

PathLike = Union[str, Path, bytes]
ConceptsInput = Union[PathLike, ConceptSets, pd.DataFrame, Mapping[str, Union[str, Iterable[str]]]]
RunInput = Union[PathLike, Run, pd.DataFrame, Mapping[str, Union[Sequence[str], Mapping[str, float]]]]
KGInput = Union[PathLike, KnowledgeGraph, pd.DataFrame, Sequence[tuple[str, str]]]
LabelsInput = Union[PathLike, ImageLabels, ConceptClassMap, pd.DataFrame, Mapping[str, Mapping[str, Any]]]
#: The option objects :func:`evaluate` takes.
Option = Union[Relevance, Scoring, Statistics, Compute]
OPTIONS = (Relevance, Scoring, Statistics, Compute)

_COLUMN_ALIASES = {
    "id": ("id", "image_id"), "cuis": ("cuis", "cui", "concepts"),
    "query_id": ("query_id", "qid", "query"), "image_id": ("image_id", "doc_id", "docid", "docno"),
    "rank": ("rank",), "score": ("score",), "child": ("child",), "parent": ("parent",), "source": ("source",),
}


def evaluate(concepts: ConceptsInput | None, runs: RunInput | Sequence[RunInput] | Mapping[str, RunInput],
             *options: Option, kg: KGInput | Sequence[KGInput] | None = None, kg_mode: str = "undirected",
             labels: LabelsInput | None = None, qrels: PathLike | Qrels | None = None,
             progress: Callable[[float, str], None] | None = None, **old_keywords: Any) -> Results:
    """Evaluate retrieval runs against concept sets or judgments; the numbers of ``evaluate --json``, ``compare``
    and the dashboard (:func:`~evalcore.evaluation.results.evaluate_runs` on an
    :class:`~evalcore.evaluation.evaluator.Evaluator` of these inputs).

    - ``concepts``: ``ID,CUIs`` file, a :class:`ConceptSets`, a DataFrame with columns ``ID`` and
      ``CUIs`` (a ``;``-joined string or a list per row), or a dict ``{image_id: set of CUIs}``; None
      with ``qrels`` alone.
    - ``runs``: one run or a list of runs (TREC or CSV files, :class:`Run` objects, DataFrames with
      ``query_id, image_id`` and ``rank`` and/or ``score``, dicts ``{query_id: [ranked image IDs]}``
      or ``{query_id: {image_id: score}}``), or a dict ``{system name: run}``. A TREC file holds one
      system per tag, named by the tag; a CSV file is one system named by its stem; unnamed in-memory
      runs are ``run1``, ``run2``, ... (their position in the list).
    - ``options``: the option objects of :mod:`evalcore.evaluation.options`, each kind at most once, in any order;
      a kind not given takes its defaults:

      - :class:`~evalcore.evaluation.options.Relevance` (``Relevance.of(alpha, n, measure, gain=..., ...)``): the
        nn-IoU setting, a chosen relevance measure (e.g. ``"tversky(a=0.7,b=0.3)"``, whose ``{key}`` metrics
        replace nn-IoU's in the standard report), the gain, the relevance threshold, trec_eval's relevance level,
        the policy for queries without a relevant item, the order of tied scores and a query's own image;
      - :class:`~evalcore.evaluation.options.Scoring`: the metrics by name, or the standard report at the
        cut-offs ``k`` (under ``qrels`` alone, trec_eval's, :func:`~evalcore.metrics.registry.qrels_metric_names`);
      - :class:`~evalcore.evaluation.options.Statistics`: the confidence intervals and significance tests;
      - :class:`~evalcore.evaluation.options.Compute`: where the passes over the pool run (``workers`` local
        processes, a Dask ``client`` or scheduler address, ``memory_per_worker``; the array ``backend`` ``"numpy"``
        or ``"jax"`` on a ``device``, the optional extra ``cbir-lens[gpu]``); the numbers are the same
        (docs/SCALE.md).
    - ``kg``: one KG or a list (edge-list / MRREL.RRF / OBO files, DataFrames with ``child, parent
      [, source]``, lists of ``(child, parent)`` pairs), combined; or one :class:`KnowledgeGraph` (such as
      :func:`as_knowledge_graph` ``(files, sources)``, which keeps only the edges of some sources);
      ``kg_mode``: how its links are walked (:data:`~evalcore.relevance.kg.KG_MODES`).
    - ``labels``: ``ID,modality,organ`` or ``kind,class,CUI`` file or DataFrame, an
      :class:`ImageLabels` / :class:`ConceptClassMap`, or ``{kind: {image_id: class or classes}}``.
    - ``qrels``: a TREC qrels file (or :class:`~evalcore.readers.Qrels`), the relevance source of the
      ``qrels-`` metrics.
    - ``progress``: called with the fraction done and a label as the passes go.

    The counts of tied queries are in ``Results.counts`` (``queries_tied``, ...;
    :func:`evalcore.metrics.ties.tie_message` words them).

    The keywords of 0.1 (``alpha=0.5, n=1, k=(10,)``, ...) still work in 0.2, with a ``DeprecationWarning`` that
    gives the new spelling (:func:`options_from_old_keywords`); they go in 0.3.
    """
    if old_keywords:
        new_options, kg = options_from_old_keywords(old_keywords, kg)
        options = (*options, *new_options)
    chosen = _chosen_options(options)
    if concepts is None and qrels is None:
        raise ParameterError("an evaluation needs concept sets or a qrels file as its relevance source")
    concept_sets = as_concepts(concepts) if concepts is not None else None
    judgments = qrels if qrels is None or isinstance(qrels, Qrels) else read_qrels(qrels)
    graph = as_knowledge_graph(kg)
    image_labels = as_labels(labels, concept_sets) if concept_sets is not None else _without_concepts(labels)
    evaluator = Evaluator(concept_sets, graph, kg_mode, image_labels, qrels=judgments, compute=chosen.get(Compute))
    return evaluate_runs(evaluator, as_runs(runs), chosen.get(Scoring), chosen.get(Relevance), chosen.get(Statistics),
                         progress)


#: The keyword parameters of 0.1's ``evaluate`` by the option object that now holds each (``kg_sources`` went to
#: :func:`as_knowledge_graph`).
OLD_KEYWORDS: dict[str, tuple[str, ...]] = {
    "Relevance.of": ("alpha", "n", "measure", "gain", "threshold", "relevance_level", "empty_queries", "ties",
                     "query_image"),
    "Scoring": ("metrics", "k"),
    "Statistics": ("confidence", "bootstrap_samples", "randomization_samples", "seed"),
    "Compute": ("workers", "client", "memory_per_worker", "backend", "device"),
}


def options_from_old_keywords(keywords: Mapping[str, Any], kg: Any) -> tuple[list[Option], Any]:
    """The option objects (and KG) that 0.1's keywords of ``evaluate`` meant, with a ``DeprecationWarning`` naming
    the new spelling; an unknown keyword is a ``TypeError``, as Python's own.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     options, _ = options_from_old_keywords({"alpha": 0.3, "k": (10,)}, None)
    >>> [type(option).__name__ for option in options], options[0].alpha, options[1].k
    (['Relevance', 'Scoring'], 0.3, (10,))
    >>> print(caught[0].message)
    evaluate(alpha=..., k=...) is 0.1's spelling and goes in 0.3; write evaluate(concepts, runs, \
Relevance.of(alpha=0.3), Scoring(k=(10,)))
    """
    import warnings

    known = {name for names in OLD_KEYWORDS.values() for name in names} | {"kg_sources"}
    unknown = sorted(set(keywords) - known)
    if unknown:
        raise TypeError(f"evaluate() got an unexpected keyword argument {unknown[0]!r}")
    options: list[Option] = []
    spelled: list[str] = []
    builders = {"Relevance.of": _old_relevance, "Scoring": Scoring, "Statistics": Statistics, "Compute": Compute}
    for kind, names in OLD_KEYWORDS.items():
        given = {name: keywords[name] for name in names if name in keywords}
        if given:
            options.append(builders[kind](**given))
            spelled.append(f"{kind}({', '.join(f'{name}={value!r}' for name, value in given.items())})")
    if "kg_sources" in keywords:
        kg = as_knowledge_graph(kg, keywords["kg_sources"])
        spelled.append(f"kg=as_knowledge_graph(kg, {keywords['kg_sources']!r})")
    warnings.warn(f"evaluate({', '.join(f'{name}=...' for name in keywords)}) is 0.1's spelling and goes in 0.3; "
                  f"write evaluate(concepts, runs, {', '.join(spelled)})", DeprecationWarning, stacklevel=3)
    return options, kg


def _old_relevance(measure: MeasureSpec | str | None = None, **loose: Any) -> Relevance:
    """0.1's relevance keywords, where a measure could be given as text."""
    return Relevance.of(measure=parse_measure(measure) if isinstance(measure, str) else measure, **loose)


def _chosen_options(options: Sequence[Any]) -> dict[type, Any]:
    """The option objects by kind, refusing anything else and a kind given twice."""
    chosen: dict[type, Any] = {}
    for option in options:
        kind = next((kind for kind in OPTIONS if isinstance(option, kind)), None)
        if kind is None:
            raise ParameterError(f"options: expected Relevance, Scoring, Statistics or Compute objects "
                                 f"(evalcore.evaluation.options), got {type(option).__name__}")
        if kind in chosen:
            raise ParameterError(f"options: two {kind.__name__} objects; give each kind once")
        chosen[kind] = option
    return chosen


def effect_sizes(results: Results, metric: str) -> pd.DataFrame:
    """How large every pair's difference on ``metric`` is: one row per pair of systems, in the order of
    ``results.compare(metric)``, with the mean per-query difference ``a - b`` and Cohen's d_z (mean / sd of the
    differences), each with its percentile bootstrap interval over the queries both evaluated, at the results'
    :class:`~evalcore.evaluation.options.Statistics` (confidence, bootstrap resamples, seed; the same resamples as the
    results' intervals): :func:`evalcore.stats.effects.effect_size_table`, what ``compare --effect-sizes`` writes.

    >>> import evalcore
    >>> from evalcore import Scoring
    >>> concepts = {"q": {"C0000001"}, "r": {"C0000001", "C0000002"}, "s": {"C0000002"}, "x": {"C0000001"},
    ...             "y": {"C0000002"}}
    >>> runs = {"A": {"q": ["x", "y"], "r": ["x", "y"], "s": ["y", "x"]},   # CUI@1 = 1, 1, 1
    ...         "B": {"q": ["y", "x"], "r": ["y", "x"], "s": ["x", "y"]},   # 0, 1, 0
    ...         "C": {"q": ["y", "x"], "r": ["x", "y"], "s": ["x", "y"]}}   # 0, 1, 0
    >>> result = evalcore.evaluate(concepts, runs, Scoring(["CUI@1"]))
    >>> effect_sizes(result, "CUI@1")[["system_a", "system_b", "queries", "mean_difference", "d_z"]].round(4)
      system_a system_b  queries  mean_difference     d_z
    0        A        B        3           0.6667  1.1547
    1        A        C        3           0.6667  1.1547
    2        B        C        3           0.0000  0.0000

    (A - B: differences 1, 0, 1, mean 2/3, sd 1/sqrt(3), d_z = 2/sqrt(3).)
    """
    from evalcore.stats.effects import effect_size_table

    ids, values = _per_system(results, metric)
    statistics = results.statistics
    return effect_size_table(ids, values, confidence=statistics.confidence, samples=statistics.bootstrap_samples,
                             seed=statistics.seed, draws=results.draws)


def repeated_measures_anova(results: Results, metric: str) -> AnovaTables:
    """The one-way repeated-measures ANOVA of every system on ``metric`` (queries as subjects, on the queries every
    system evaluated) and Tukey's HSD on its residual mean square, with simultaneous intervals at the results'
    confidence: ``summary`` (one row: F, its degrees of freedom, p, partial and generalized eta squared, the sums of
    squares) and ``tukey`` (one row per pair, in the order of ``results.compare(metric)``):
    :func:`evalcore.stats.effects.anova_tables`, what ``compare --anova`` writes.

    >>> import evalcore
    >>> from evalcore import Scoring
    >>> concepts = {"q": {"C0000001"}, "r": {"C0000001", "C0000002"}, "s": {"C0000002"}, "x": {"C0000001"},
    ...             "y": {"C0000002"}}
    >>> runs = {"A": {"q": ["x", "y"], "r": ["x", "y"], "s": ["y", "x"]},   # CUI@1 = 1, 1, 1
    ...         "B": {"q": ["y", "x"], "r": ["y", "x"], "s": ["x", "y"]},   # 0, 1, 0
    ...         "C": {"q": ["y", "x"], "r": ["x", "y"], "s": ["x", "y"]}}   # 0, 1, 0
    >>> result = evalcore.evaluate(concepts, runs, Scoring(["CUI@1"]))
    >>> anova = repeated_measures_anova(result, "CUI@1")
    >>> anova.summary[["systems", "queries", "f", "df_systems", "df_error", "p"]].round(4)
       systems  queries    f  df_systems  df_error       p
    0        3        3  4.0           2         4  0.1111
    >>> anova.tukey[["system_a", "system_b", "mean_difference", "q", "p_tukey"]].round(4)
      system_a system_b  mean_difference       q  p_tukey
    0        A        B           0.6667  3.4641   0.1432
    1        A        C           0.6667  3.4641   0.1432
    2        B        C           0.0000  0.0000   1.0000

    (SS_systems = 8/9, SS_error = 4/9 on 4 df, F = (8/9 / 2) / (1/9) = 4, p = (1 + 2F/4)^-2 = 1/9; q = (2/3) / sqrt(MSE/3).)
    """
    from evalcore.stats.effects import anova_tables

    ids, values = _per_system(results, metric)
    return anova_tables(ids, values, confidence=results.statistics.confidence)


def scores_by_group(results: Results, by: str | Grouping | Mapping[str, Any], *, concepts: ConceptsInput | None = None,
                    labels: LabelsInput | None = None, metrics: Sequence[str] | None = None,
                    compare: Sequence[str] = (), pairs: Sequence[tuple[str, str]] | None = None) -> GroupedScores:
    """Where the systems fail: the scores of ``results`` broken down by a query attribute, what ``evaluate`` and
    ``compare`` write with ``--group-by`` (:func:`evalcore.evaluation.groups.results_by_group`). Per group and
    system: the number of queries scored, the mean and its percentile bootstrap interval (``means``); for the
    ``compare`` metrics, per group and pair of systems (``pairs``, default every pair): the paired randomization and
    t-tests, Holm-corrected across the groups (``comparisons``); at the results' statistics.

    ``by``: ``"modality"`` or ``"organ"`` (from ``labels`` read for the images of ``concepts``, as ``evaluate`` reads
    them; an :class:`~evalcore.data.ImageLabels` alone),
    ``"concepts"`` (the number of concepts of each query, in 4 quantile bins of the collection's ``concepts``),
    ``"FILE:COLUMN"`` (a query attributes file, :func:`~evalcore.readers.query_attributes.read_query_attributes`),
    a dict ``{query_id: group}`` (checked as such a file), or a :class:`~evalcore.stats.groups.Grouping`. A query
    without a value is in the group ``"(none)"``, so the groups' means weighted by their queries give the overall
    mean; IDs a file lists that are no query are counted in ``unknown_ids``.

    >>> import evalcore
    >>> from evalcore import Scoring
    >>> concepts = {"q": {"C0000001"}, "r": {"C0000001", "C0000002"}, "s": {"C0000002"}, "x": {"C0000001"},
    ...             "y": {"C0000002"}}
    >>> runs = {"A": {"q": ["x", "y"], "r": ["x", "y"], "s": ["y", "x"]},   # CUI@1 = 1, 1, 1
    ...         "B": {"q": ["y", "x"], "r": ["y", "x"], "s": ["x", "y"]}}   # 0, 1, 0
    >>> result = evalcore.evaluate(concepts, runs, Scoring(["CUI@1"]))
    >>> grouped = scores_by_group(result, {"q": "site 1", "r": "site 1", "s": "site 2"}, compare=["CUI@1"])
    >>> grouped.means[["group", "system", "queries", "mean"]]
        group system  queries  mean
    0  site 1      A        2   1.0
    1  site 1      B        2   0.5
    2  site 2      A        1   1.0
    3  site 2      B        1   0.0
    >>> grouped.comparisons[["group", "mean_difference", "queries"]]
        group  mean_difference  queries
    0  site 1              0.5        2
    1  site 2              1.0        1
    """
    if not isinstance(results, Results):
        raise ParameterError(f"results: expected the Results of evalcore.evaluate, got {type(results).__name__}")
    if isinstance(by, Grouping):
        grouping = by
    elif isinstance(by, Mapping):
        rows = ((query, "" if _is_missing(group) else str(group)) for query, group in by.items())
        grouping = read_query_attributes(_csv_bytes(["query_id", "group"], rows), "groups dict").grouping("group")
    else:
        needs = needed_inputs(parse_group_by(by)[0])
        if "labels" in needs and not isinstance(labels, ImageLabels):
            needs = ("concepts", "labels")  # labels are read for the images of the concept sets
        if "concepts" in needs and concepts is None or "labels" in needs and labels is None:
            raise ParameterError(f"group by {by}: give {' and '.join(needs)} (the inputs of the evaluation)")
        concept_sets = as_concepts(concepts) if concepts is not None else None
        image_labels = labels if isinstance(labels, ImageLabels) or labels is None else as_labels(labels, concept_sets)
        grouping = query_grouping(by, concept_sets, image_labels)
    return results_by_group(results, grouping, metrics, compare, pairs)


def agreement(concepts: ConceptsInput, judgments: PathLike | Judgments | pd.DataFrame,
              measures: str | MeasureSpec | Sequence[str | MeasureSpec], *, kg: KGInput | Sequence[KGInput] | None = None,
              kg_mode: str = "undirected", sweeps: str | ParameterSweep | Mapping[str, Sequence[float]]
              | Sequence[str | ParameterSweep] = (), folds: int = DEFAULT_FOLDS,
              statistics: Statistics | None = None) -> AgreementReport:
    """How relevance measures agree with clinicians' grades of (case, candidate) pairs: what ``agreement --json``
    writes (:func:`evalcore.studies.agreement.agreement_study`; ``report.to_dict()`` is its JSON).

    - ``judgments``: a file (CSV ``judge,case,candidate,grade[,time]`` or TREC graded qrels), its bytes, a DataFrame
      with those columns (checked as the file would be) or :class:`~evalcore.data.Judgments`;
    - ``measures``: canonical texts (``"nn-iou(alpha=0.5,n=1)"``) or specs; ``sweeps``: ``"alpha=0:1:0.1"`` texts,
      :class:`~evalcore.studies.agreement.ParameterSweep` or ``{"alpha": [0, 0.5, 1]}``;
    - ``folds``: of the cross-validation over cases that picks the best setting; ``statistics``: confidence,
      bootstrap resamples (default 2,000) and seed.

    >>> judged = pd.DataFrame({"judge": ["ann", "ann", "bob", "bob"], "case": ["q", "q", "q", "q"],
    ...                        "candidate": ["x", "y", "x", "y"], "grade": [2, 1, 2, 0]})
    >>> report = agreement({"q": {"C0040405", "C0042449"}, "x": {"C0040405", "C0005847"}, "y": {"C0040405"}}, judged,
    ...                    ["iou", "nn-iou(alpha=0.5,n=1)"], kg=[("C0042449", "C0005847")])
    >>> {name: round(s.kendall_tau_b, 4) for name, s in report.settings.items()}, report.best.setting.measure.name
    ({'iou': -1.0, 'nn-iou(alpha=0.5,n=1)': 1.0}, 'nn-iou(alpha=0.5,n=1)')

    (The pair graded higher, (q, x), has IoU 1/3 below y's 1/2, but nn-IoU 2/3 above it: DESIGN.md §2's example.)
    """
    if isinstance(judgments, pd.DataFrame):
        by_lower = {str(column).strip().lower(): column for column in judgments.columns}
        header = [name for name in ("judge", "case", "candidate", "grade", "time") if name in by_lower]
        if header[:4] != ["judge", "case", "candidate", "grade"]:
            raise ParameterError(f"judgments: expected columns judge, case, candidate, grade [time], found "
                                 f"{list(judgments.columns)}"[:300])
        rows = zip(*(judgments[by_lower[name]].tolist() for name in header))
        judgments = read_judgment_columns(_csv_bytes(header, rows), "judgments DataFrame")
    elif not isinstance(judgments, Judgments):
        judgments = read_judgment_columns(judgments)
    specs = [parse_measure(m) if isinstance(m, str) else m for m in ([measures] if isinstance(measures, (str, MeasureSpec))
                                                                       else measures)]
    return agreement_study(as_concepts(concepts), judgments, specs, kg=as_knowledge_graph(kg), mode=kg_mode,
                           sweeps=_as_sweeps(sweeps), folds=folds, statistics=statistics)


def _as_sweeps(sweeps: Any) -> list[ParameterSweep]:
    """Sweeps as texts, :class:`ParameterSweep` or ``{parameter: values}``."""
    if isinstance(sweeps, (str, ParameterSweep)):
        sweeps = [sweeps]
    if isinstance(sweeps, Mapping):
        return [ParameterSweep(str(name).lower(), tuple(float(v) for v in values)) for name, values in sweeps.items()]
    return [parse_sweep(sweep) if isinstance(sweep, str) else sweep for sweep in sweeps]


def _per_system(results: Results, metric: str) -> tuple[dict[str, tuple[str, ...]], dict[str, np.ndarray]]:
    """Each system's query IDs and its values of ``metric`` (refused where ``metric`` was not evaluated)."""
    if not isinstance(results, Results):
        raise ParameterError(f"results: expected the Results of evalcore.evaluate, got {type(results).__name__}")
    return ({system: results.query_ids(system) for system in results.systems},
            {system: results.metric_values(system, metric) for system in results.systems})


def extract_concepts(captions: PathLike | Mapping[str, str], names: PathLike | Mapping[str, str] | Sequence[PathLike], *,
                     synonyms: PathLike | Mapping[str, Iterable[str]] | Sequence[PathLike] | None = None,
                     abbreviations: bool = True, ontology_ids: bool = False,
                     rules: PathLike | Sequence[PathLike] | None = None,
                     progress: Callable[[float, str], None] | None = None,
                     evidence: bool = False, workers: int = 1) -> ConceptSets | tuple[ConceptSets, list[EvidenceRow]]:
    """Concept sets from captions (:func:`~evalcore.extraction.caption_concepts.find_caption_concepts`, the
    dashboard's extraction too); the numbers of ``extract``.

    - ``captions``: an ``ID,Caption`` file or a dict ``{image_id: caption}``;
    - ``names``: one names file or a list of them (ROCOv2 ``cui_mapping.csv``, UMLS ``MRCONSO.RRF``, a KG's
      ``id,name`` file), or a dict ``{ID: name}``; an ID named in several files keeps the first file's name and
      reads the others as its synonyms;
    - ``synonyms``: synonym files (:func:`~evalcore.readers.read_synonyms`: OBO, DOID ``allXREFinDO.tsv``, MeSH
      descriptors TSV, which maps to CUIs through ``names``, ``MRCONSO.RRF``) or a dict ``{ID: [names]}``;
    - ``abbreviations``: the built-in imaging vocabulary (:mod:`evalcore.extraction.imaging_vocabulary`);
      ``ontology_ids``: emit IDs that are not CUIs too;
    - ``rules``: one or more rules files of your own (:mod:`evalcore.extraction.user_rules`: synonyms, exclusions,
      negation cues);
    - ``progress``: called with the fraction done and a label, building the dictionary, then reading the captions;
    - ``evidence``: also return every mention found, one row each (:func:`~evalcore.extraction.evidence.evidence_rows`,
      what ``extract --evidence`` writes), as ``(sets, rows)``;
    - ``workers``: read a large collection (:data:`~evalcore.extraction.extractor.PARALLEL_MINIMUM` captions or more)
      on that many local worker processes, 0 = one per core (``extract --workers``); the same sets as in this process.

    >>> sets = extract_concepts({"a": "CT without hemorrhage", "b": "Chest X-ray"},
    ...                         {"C0040405": "X-Ray Computed Tomography", "C0019080": "Hemorrhage",
    ...                          "C1306645": "Plain x-ray", "C0817096": "Chest"})
    >>> [sorted(s) for s in sets.sets]
    [['C0040405'], ['C0817096', 'C1306645']]
    """
    worker_count(workers)
    if isinstance(captions, Mapping):
        # read as the file would be, so that its IDs are checked as a file's (and as evaluate checks them)
        texts, display = read_captions(_csv_bytes(["ID", "Caption"], captions.items()), "captions dict"), "captions dict"
    else:
        texts = read_captions(captions)
        display = str(captions) if not isinstance(captions, bytes) else "captions"
    if isinstance(names, Mapping):
        merged, more = dict(names), {}
    else:
        merged, more = merged_names(read_names_to_find(source) for source in _sources(names, "names"))
    if isinstance(synonyms, Mapping):
        more = merged_synonyms(more, synonyms)
    elif synonyms is not None:
        more = merged_synonyms(more, *(read_synonyms(source, names=merged) for source in _sources(synonyms, "synonyms")))
    added = None if rules is None else read_user_rules(_sources(rules, "rules"), known=merged)
    found = find_caption_concepts(texts, merged, more, abbreviations, progress=progress, ontology_ids=ontology_ids,
                                  rules=added, workers=workers)
    # What extract writes, evaluate must read: refused here, naming the image, rather than written and refused later.
    check_concepts_readable(found.concepts, f"the concepts found in {display}")
    return (found.concepts, list(evidence_rows(found))) if evidence else found.concepts


def _sources(value: PathLike | Sequence[PathLike], what: str) -> list[PathLike]:
    """One file, or each of a list of them (``what``: the argument, named where it holds something else)."""
    files = [value] if _is_source(value) else list(value) if isinstance(value, Sequence) else None
    if files is None or not all(_is_source(item) for item in files):
        raise ParameterError(f"{what}: expected a file or a list of files"
                             f"{' (or one dict)' if what != 'rules' else ''}, got {value!r:.80}")
    return files


def _without_concepts(labels: LabelsInput | None) -> None:
    if labels is not None:
        raise ParameterError("labels belong to the images of the concept sets: give concepts too")


def _is_source(value: Any) -> bool:
    return isinstance(value, (str, Path, bytes))


def _csv_bytes(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """In-memory rows as the file the readers check; a missing cell (None, NaN, pd.NA) is an empty field, which
    they refuse where a value is needed (csv would write NaN as the ID 'nan')."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([_cell(value) for value in row] for row in rows)
    return buffer.getvalue().encode("utf-8")


def _cell(value: Any) -> Any:
    return "" if _is_missing(value) else value


def _columns(frame: pd.DataFrame, what: str, required: Sequence[str], optional: Sequence[str] = ()) -> dict[str, Any]:
    """Map canonical column names to the frame's own (case-insensitive, with aliases)."""
    by_lower = {str(column).strip().lower(): column for column in frame.columns}
    found = {}
    for name in (*required, *optional):
        match = next((by_lower[alias] for alias in _COLUMN_ALIASES[name] if alias in by_lower), None)
        if match is not None:
            found[name] = match
    missing = [name for name in required if name not in found]
    if missing:
        raise ParameterError(f"{what}: expected columns {', '.join(required)}"
                             f"{' [' + ', '.join(optional) + ']' if optional else ''}, found {list(frame.columns)}")
    return found


def _is_missing(value: Any) -> bool:
    """Whether a cell holds no value: None, NaN of any float type, pd.NA or NaT (not an empty text)."""
    return value is None or (pd.api.types.is_scalar(value) and not isinstance(value, (str, bytes)) and bool(pd.isna(value)))


def _joined(value: Any, what: str) -> str:
    """A cell holding one or several items as the ``;``-joined text of the file formats."""
    if _is_missing(value):
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (set, frozenset)):
        return ";".join(sorted(str(v) for v in value))
    if isinstance(value, (list, tuple, np.ndarray, pd.Series)):
        return ";".join(str(v) for v in value)
    raise ParameterError(f"{what}: expected a string or a collection of strings, got {type(value).__name__}")


def as_concepts(concepts: ConceptsInput) -> ConceptSets:
    """Concept sets from a file, a :class:`ConceptSets`, a DataFrame ``ID, CUIs`` or ``{ID: CUIs}``."""
    if isinstance(concepts, ConceptSets):
        return concepts
    if _is_source(concepts):
        return read_concepts(concepts)
    if isinstance(concepts, pd.DataFrame):
        columns = _columns(concepts, "concepts DataFrame", ["id", "cuis"])
        rows = ((image_id, _joined(cuis, "concepts DataFrame"))
                for image_id, cuis in zip(concepts[columns["id"]], concepts[columns["cuis"]]))
        return read_concepts(_csv_bytes(["ID", "CUIs"], rows), "concepts DataFrame")
    if isinstance(concepts, Mapping):
        rows = ((image_id, _joined(cuis, f"concepts[{image_id!r}]")) for image_id, cuis in concepts.items())
        return read_concepts(_csv_bytes(["ID", "CUIs"], rows), "concepts dict")
    raise ParameterError("concepts: expected a path, ConceptSets, a DataFrame with columns ID, CUIs or a dict "
                         f"{{image_id: set of CUIs}}, got {type(concepts).__name__}")


def as_runs(runs: RunInput | Sequence[RunInput] | Mapping[str, RunInput]) -> list[Run]:
    """Runs from one run-like, a list of them, or ``{system name: run-like}``."""
    if isinstance(runs, Mapping) and runs and _is_one_run(runs):
        raise ParameterError("runs: a dict of query -> ranked IDs is one run and needs a system name: "
                             "pass runs={'my-system': {...}}")
    if isinstance(runs, Mapping):
        unnamed = [name for name in runs if not str(name).strip()]
        if unnamed:
            raise ParameterError(f"runs: expected a system name for each run, found {unnamed[0]!r}")
        named = [_as_run(value, f"runs[{name!r}]", str(name)) for name, value in runs.items()]
    elif _is_source(runs):
        named = list(read_runs(runs))
    elif isinstance(runs, (Run, pd.DataFrame)):
        named = [_as_run(runs, "runs", None)]
    elif isinstance(runs, Sequence):
        named = [run for i, value in enumerate(runs)
                 for run in (read_runs(value) if _is_source(value) else [_as_run(value, f"runs[{i}]", None, f"run{i + 1}")])]
    else:
        raise ParameterError(f"runs: expected a path, a Run, a DataFrame, a list of them or a dict of them, "
                             f"got {type(runs).__name__}")
    if not named:
        raise ParameterError("runs: at least one run is needed")
    return named


def _is_one_run(mapping: Mapping) -> bool:
    """``{query: [IDs]}`` or ``{query: {ID: score}}`` rather than ``{system name: run}``."""
    def is_ranking(value: Any) -> bool:
        if isinstance(value, Mapping):
            return all(isinstance(score, (int, float, np.number)) for score in value.values())
        return isinstance(value, (list, tuple, np.ndarray, pd.Series))
    # An empty dict says nothing either way: {"q": {...}, "c": {}} is one run, {"s": {}} a system's empty run.
    told = [value for value in mapping.values() if not (isinstance(value, Mapping) and not value)]
    return bool(told) and all(is_ranking(value) for value in told)


def _as_run(value: Any, what: str, name: str | None, fallback: str = "run") -> Run:
    if isinstance(value, Run):
        run = value
    elif _is_source(value):
        run = read_run(value)  # a named file holds one system; a file with several TREC tags goes in a list
    elif isinstance(value, pd.DataFrame):
        columns = _columns(value, f"{what} DataFrame", ["query_id", "image_id"], ["rank", "score"])
        if "rank" not in columns and "score" not in columns:
            raise ParameterError(f"{what} DataFrame: needs a rank or a score column, found {list(value.columns)}")
        queries, images = value[columns["query_id"]].tolist(), value[columns["image_id"]].tolist()
        ranks = value[columns["rank"]].tolist() if "rank" in columns else _positions(queries)
        scores = value[columns["score"]].tolist() if "score" in columns else None
        rows = zip(queries, images, ranks, scores) if scores is not None else zip(queries, images, ranks)
        header = ["query_id", "image_id", "rank", "score"][: 4 if scores is not None else 3]
        run = read_run(_csv_bytes(header, rows), f"{what} DataFrame")
    elif isinstance(value, Mapping):
        run = read_run(_csv_bytes(["query_id", "image_id", "rank", "score"], _run_dict_rows(value, what)), f"{what} dict")
    else:
        raise ParameterError(f"{what}: expected a path, a Run, a DataFrame or a dict of query -> ranked IDs, "
                             f"got {type(value).__name__}")
    if name is not None or not (isinstance(value, Run) or _is_source(value)):
        run = replace(run, name=name or fallback)
    return run


def _positions(queries: Sequence[Any]) -> list[int]:
    seen: dict[Any, int] = {}
    positions = []
    for query in queries:
        seen[query] = seen.get(query, 0) + 1
        positions.append(seen[query])
    return positions


def _run_dict_rows(run: Mapping[str, Any], what: str) -> Iterable[tuple]:
    for query, ranking in run.items():
        if isinstance(ranking, Mapping):
            for rank, (image_id, score) in enumerate(ranking.items(), start=1):
                if _is_missing(score):  # (as a row of the file the readers check, it would be "line N: an empty field")
                    raise ParameterError(f"{what}[{query!r}][{image_id!r}]: expected a score, got {score!r}")
                yield query, image_id, rank, score
        elif isinstance(ranking, (list, tuple, np.ndarray, pd.Series)):
            for rank, image_id in enumerate(ranking, start=1):
                yield query, image_id, rank, -rank
        else:
            raise ParameterError(f"{what}[{query!r}]: expected a list of ranked image IDs or a dict "
                                 f"{{image_id: score}}, got {type(ranking).__name__}")


def as_knowledge_graph(kg: KGInput | Sequence[KGInput] | None, sources: Sequence[str] | None = None
                       ) -> KnowledgeGraph | None:
    """A KG from files, DataFrames ``child, parent[, source]`` or ``(child, parent)`` pairs, combined."""
    if kg is None:
        return None
    if isinstance(kg, KnowledgeGraph):
        if sources:
            raise ParameterError("sources filter KG files; pass the files rather than a built KnowledgeGraph")
        return kg
    if _is_source(kg) or isinstance(kg, pd.DataFrame) or _is_edge_list(kg):
        parts = [kg]
    elif isinstance(kg, Sequence):
        parts = list(kg)
    else:
        raise ParameterError(f"kg: expected a path, a DataFrame child,parent, a list of (child, parent) pairs or a "
                             f"KnowledgeGraph, got {type(kg).__name__}")
    if not parts:
        return None
    return load_kg([_as_kg_part(part, f"kg[{i}]") for i, part in enumerate(parts)], sources)


def _is_edge_list(value: Any) -> bool:
    return (isinstance(value, Sequence) and not _is_source(value) and len(value) > 0
            and all(isinstance(edge, tuple) for edge in value))


def _as_kg_part(part: Any, what: str) -> PathLike | KGEdges:
    if _is_source(part):
        return part
    if isinstance(part, pd.DataFrame):
        columns = _columns(part, f"{what} DataFrame", ["child", "parent"], ["source"])
        header = ["child", "parent"] + (["source"] if "source" in columns else [])
        rows = zip(*(part[columns[name]] for name in header))
        return read_kg(_csv_bytes(header, rows), f"{what} DataFrame")
    if _is_edge_list(part):
        header = ["child", "parent", "source"][: 3 if any(len(edge) > 2 for edge in part) else 2]
        return read_kg(_csv_bytes(header, part), f"{what} edge list")
    if isinstance(part, KnowledgeGraph):
        raise ParameterError(f"{what}: a built KnowledgeGraph cannot be combined with other KG inputs; pass it alone")
    raise ParameterError(f"{what}: expected a path, a DataFrame child,parent or a list of (child, parent) pairs, "
                         f"got {type(part).__name__}")


def as_labels(labels: LabelsInput | None, concepts: ConceptSets) -> ImageLabels | None:
    """Per-image labels from a file, a DataFrame, labels objects or ``{kind: {image_id: class(es)}}``."""
    if labels is None:
        return None
    if isinstance(labels, (ImageLabels, ConceptClassMap)):
        read = labels
    elif _is_source(labels):
        read = read_labels(labels)
    elif isinstance(labels, pd.DataFrame):
        frame = labels.astype(object).where(labels.notna(), "")
        rows = ([_joined(cell, "labels DataFrame") for cell in row] for row in frame.itertuples(index=False))
        read = read_labels(_csv_bytes([str(c) for c in labels.columns], rows), "labels DataFrame")
    elif isinstance(labels, Mapping):
        unknown = [kind for kind in labels if kind not in LABEL_KINDS]
        if unknown or not all(isinstance(v, Mapping) for v in labels.values()):
            raise ParameterError(f"labels: expected {{kind: {{image_id: class or classes}}}} with kinds in "
                                 f"{LABEL_KINDS}, got kinds {list(labels)}")
        kinds = [kind for kind in LABEL_KINDS if kind in labels]
        ids = list(dict.fromkeys(image_id for kind in kinds for image_id in labels[kind]))
        rows = ([image_id, *(_joined(labels[kind].get(image_id), f"labels[{kind!r}]") for kind in kinds)]
                for image_id in ids)
        read = read_labels(_csv_bytes(["ID", *kinds], rows), "labels dict")
    else:
        raise ParameterError(f"labels: expected a path, a DataFrame, ImageLabels or a dict, got {type(labels).__name__}")
    return resolve_labels(read, concepts)
