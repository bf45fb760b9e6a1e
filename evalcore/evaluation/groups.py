"""An evaluation's scores by group of queries (docs/DESIGN.md §3, "Results by group"): the groupings the project
reads from its inputs (a query's modality or organ label, its number of concepts, a column of a query attributes
file), and :func:`results_by_group`, :func:`evalcore.stats.groups.grouped_scores` of a :class:`Results`. The
command line's ``--group-by``, :func:`evalcore.api.scores_by_group` and the Leaderboard's "By group" view call
these."""

from __future__ import annotations

from collections.abc import Sequence

from evalcore.data import LABEL_KINDS, ConceptSets, ImageLabels
from evalcore.errors import ParameterError, listed, one_line
from evalcore.evaluation.results import Results
from evalcore.metrics.registry import mean_scales
from evalcore.readers.files import Source
from evalcore.readers.query_attributes import read_query_attributes
from evalcore.stats.groups import GroupedScores, Grouping, concept_count_grouping, grouped_scores, label_grouping

#: The groupings read from the evaluation's own inputs: the labels' kinds and the number of concepts.
BUILT_IN_GROUPINGS = (*LABEL_KINDS, "concepts")
#: What ``--group-by`` accepts, as its refusals say it.
GROUP_BY_SHAPE = f"{', '.join(BUILT_IN_GROUPINGS)} or FILE:COLUMN (a query attributes file and one of its columns)"


def parse_group_by(text: str) -> tuple[str, str | None]:
    """A ``--group-by`` value as ``(grouping, None)`` for a built-in grouping or ``(file, column)`` for
    ``FILE:COLUMN`` (split at the last colon, so that a path may hold colons); refused in one line otherwise.

    >>> parse_group_by("modality"), parse_group_by("C:/data/attributes.tsv:site")
    (('modality', None), ('C:/data/attributes.tsv', 'site'))
    """
    if not isinstance(text, str):
        raise ParameterError(f"group by: expected {GROUP_BY_SHAPE}, got {type(text).__name__}")
    if text in BUILT_IN_GROUPINGS:
        return text, None
    path, colon, column = text.rpartition(":")
    if not colon or not path.strip() or not column.strip():
        raise ParameterError(f"group by: expected {GROUP_BY_SHAPE}, found {one_line(text, 80)!r}")
    return path, column.strip()


def needed_inputs(grouping: str) -> tuple[str, ...]:
    """What a built-in grouping reads of the evaluation's inputs ("labels" for a label kind, "concepts" for the
    number of concepts); nothing for a file's column.

    >>> needed_inputs("organ"), needed_inputs("concepts"), needed_inputs("a.csv:site")
    (('labels',), ('concepts',), ())
    """
    return ("labels",) if grouping in LABEL_KINDS else ("concepts",) if grouping == "concepts" else ()


def query_grouping(by: str, concepts: ConceptSets | None = None, labels: ImageLabels | None = None,
                   attributes: Source | None = None) -> Grouping:
    """The grouping ``by`` names (:func:`parse_group_by`): ``modality`` or ``organ`` from the images' labels
    (:func:`~evalcore.stats.groups.label_grouping`), ``concepts`` from the concept sets, in quantile bins of the
    collection's numbers of concepts (:func:`~evalcore.stats.groups.concept_count_grouping`), ``FILE:COLUMN`` from a
    query attributes file (:func:`~evalcore.readers.query_attributes.read_query_attributes`; ``attributes``: the
    file's bytes or path where FILE is only its name, as an upload has it). A grouping whose input is missing is
    refused, naming what to give.

    >>> concepts = ConceptSets(("a", "b", "c"), (frozenset({"C0000001"}), frozenset(), frozenset({"C0000001"})))
    >>> query_grouping("concepts", concepts).order
    ('0', '1+')
    """
    grouping, column = parse_group_by(by)
    if column is not None:
        return read_query_attributes(attributes if attributes is not None else grouping, grouping).grouping(column)
    if grouping == "concepts":
        if concepts is None:
            raise ParameterError("group by concepts: the number of concepts of each query is read from the concept "
                                 "sets: give them (--concepts F)")
        return concept_count_grouping(dict(zip(concepts.ids, map(len, concepts.sets))))
    if labels is None:
        raise ParameterError(f"group by {grouping}: each query's {grouping} is read from the images' labels: give them "
                             "(--labels F, ID,modality,organ or kind,class,CUI)")
    if grouping not in labels.by_kind:
        raise ParameterError(f"group by {grouping}: {one_line(labels.source, 80)} has no {grouping} labels; it has "
                             f"{listed(list(labels.by_kind)) or 'none'}")
    return label_grouping(grouping, labels.by_kind[grouping])


def results_by_group(results: Results, grouping: Grouping, metrics: Sequence[str] | None = None,
                     compare: Sequence[str] = (), pairs: Sequence[tuple[str, str]] | None = None) -> GroupedScores:
    """:func:`~evalcore.stats.groups.grouped_scores` of ``results``' per-query values: the ``metrics`` (default: every
    one evaluated) per group and system with their intervals, and for the metrics in ``compare`` (which the means
    include) the paired tests of ``pairs`` (default: every pair) per group, Holm-corrected across the groups, at the
    results' :class:`~evalcore.evaluation.options.Statistics` (the same resamples and seed as their table; gm_map
    on its scale, :func:`~evalcore.metrics.registry.mean_scales`)."""
    if isinstance(metrics, str) or isinstance(compare, str):
        raise ParameterError("metrics and compare: expected lists of metric names, got a string")
    if not isinstance(grouping, Grouping):
        raise ParameterError(f"grouping: expected a Grouping (query_grouping), got {type(grouping).__name__}")
    chosen = [results.metric_name(metric) for metric in (metrics if metrics is not None else results.metrics)]
    compared = [results.metric_name(metric) for metric in compare]
    chosen += [metric for metric in compared if metric not in chosen]
    if pairs is not None:
        for pair in pairs:
            if len(pair) != 2 or pair[0] == pair[1]:
                raise ParameterError(f"pairs: expected pairs of two different systems, found {pair!r:.80}")
            for system in pair:
                results.query_ids(system)  # refused, naming the systems, where it is none
    statistics = results.statistics
    return grouped_scores({system: results.query_ids(system) for system in results.systems},
                          {system: {metric: results.metric_values(system, metric) for metric in chosen}
                           for system in results.systems},
                          grouping, compare=compared, pairs=pairs, confidence=statistics.confidence,
                          bootstrap_samples=statistics.bootstrap_samples,
                          randomization_samples=statistics.randomization_samples, seed=statistics.seed,
                          draws=results.draws, scales=mean_scales(chosen))
