"""Scores by group of queries (docs/DESIGN.md §3, "Results by group"): where a system fails.

A :class:`Grouping` puts each query in one group (a kind of image, a body part, a number of concepts, a column of
the user's own file); :func:`grouped_scores` gives, per group and system, the number of queries, the mean and its
percentile bootstrap interval (:func:`~evalcore.stats.compare.bootstrap_cis`, the same resamples and seed as the whole
table's), and per group and pair of systems the paired randomization and t-tests
(:func:`~evalcore.stats.compare.compare_systems`), Holm-corrected across the groups (:func:`~evalcore.stats.compare.holm`).

Every query of a system is in exactly one group: a query without a value (no label of the kind, an empty cell, an
ID the file does not list) is in the group :data:`NO_GROUP`, listed last. So the groups partition each system's
queries, and the groups' means weighted by their numbers of queries give the system's mean over all of them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from types import MappingProxyType

import numpy as np
import pandas as pd

from evalcore.errors import ParameterError, listed
from evalcore.kept import Kept
from evalcore.stats.compare import MeanScale, bootstrap_cis, compare_systems, holm, id_order

#: The group of the queries without a value (listed last).
NO_GROUP = "(none)"
#: The most groups a grouping may have: a forest plot or a table of more says nothing (a column of IDs, chosen by
#: mistake, would make one group per query).
MAX_GROUPS = 100
#: Quantile bins of a query's number of concepts.
CONCEPT_BINS = 4
#: How the classes of an image with several labels of one kind are joined into its one group.
LABEL_JOIN = " + "

MEAN_COLUMNS = ["metric", "group", "system", "queries", "mean", "ci_low", "ci_high"]
COMPARISON_COLUMNS = ["metric", "group", "system_a", "system_b", "queries", "mean_difference", "p_randomization",
                      "p_t_test", "p_randomization_holm", "p_t_test_holm"]
_DIGITS = re.compile(r"([0-9]+)")


def natural_key(text: str) -> tuple:
    """The order groups are listed in: case-insensitive, numbers by value ("site 2" before "site 10").

    >>> sorted(["site 10", "Site 2", "b"], key=natural_key)
    ['b', 'Site 2', 'site 10']
    """
    parts = _DIGITS.split(text)
    return tuple((1, int(part)) if position % 2 else (0, part.casefold()) for position, part in enumerate(parts)), text


@dataclass(frozen=True)
class Grouping:
    """Which group each query is in: ``of`` maps a query ID to its group (a query it does not map is in
    :data:`NO_GROUP`); ``order`` lists the groups as they are shown (default: :func:`natural_key` order); ``listed``,
    for a grouping read from a file, the IDs the file lists (those that are no query are counted and reported as
    unknown); ``name`` says what the groups are of ("modality", "attributes.csv:site").

    >>> grouping = Grouping("site", {"q1": "b", "q2": "a"})
    >>> grouping.order, grouping.group_of("q1"), grouping.group_of("q9")
    (('a', 'b'), 'b', '(none)')
    """

    name: str
    of: Mapping[str, str]
    order: tuple[str, ...] = ()
    listed: frozenset[str] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        of = {query: group for query, group in self.of.items() if group != NO_GROUP}
        values = set(of.values())
        order = tuple(self.order) or tuple(sorted(values, key=natural_key))
        if set(order) != values or len(set(order)) != len(order):
            raise ParameterError(f"{self.name}: the order of the groups must list each of its groups once, "
                                 f"found {listed(list(order))} for {listed(sorted(values, key=natural_key))}")
        if len(order) > MAX_GROUPS:
            raise ParameterError(f"{self.name}: at most {MAX_GROUPS} groups, found {len(order):,} "
                                 f"({listed(list(order))}); group by a coarser attribute")
        object.__setattr__(self, "of", MappingProxyType(of))
        object.__setattr__(self, "order", order)

    def group_of(self, query: str) -> str:
        return self.of.get(query, NO_GROUP)


def label_grouping(kind: str, per_image: Mapping[str, Collection[str]]) -> Grouping:
    """The grouping of images by their labels of one ``kind`` (``modality``, ``organ``): an image's group is its
    class, or its classes in :func:`natural_key` order joined by " + " where it has several (each image is in one
    group); an image without a class is in :data:`NO_GROUP`.

    >>> label_grouping("organ", {"a": {"chest"}, "b": {"pelvis", "abdomen"}, "c": set()}).of
    mappingproxy({'a': 'chest', 'b': 'abdomen + pelvis'})
    """
    return Grouping(kind, {image: LABEL_JOIN.join(sorted(classes, key=natural_key))
                           for image, classes in per_image.items() if classes})


def concept_count_grouping(counts: Mapping[str, int], bins: int = CONCEPT_BINS) -> Grouping:
    """The grouping of images by their number of concepts, in ``bins`` quantile bins of the counts given (one per
    image of the collection, so that the bins are the data's and the same for every system).

    The rule: with the ``N`` counts sorted, the i-th edge (i = 1 .. bins - 1) is the count at position
    ``ceil(i N / bins)`` (1-based): the smallest count at or below which at least i / bins of the images lie (numpy's
    ``quantile(..., method="inverted_cdf")``). A bin holds the counts above one edge up to and including the next,
    so every image with a given count is in the same bin (a tie at an edge goes to the bin below it), and equal
    edges merge their bins (there may be fewer than ``bins``). A bin is named by the least and the largest count in
    it ("1-2", "3"), the last one by its least as "6+".

    >>> grouping = concept_count_grouping({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 6, "h": 9})
    >>> grouping.order, grouping.group_of("e"), grouping.group_of("h")
    (('1-2', '3-4', '5-6', '9+'), '5-6', '9+')
    >>> concept_count_grouping({"a": 3, "b": 3, "c": 3, "d": 4}).order  # edges 3, 3, 3: two bins
    ('3', '4+')
    """
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ParameterError(f"bins: expected a whole number of at least 1, got {bins!r:.40}")
    if not counts:
        return Grouping("concepts", {})
    ordered = np.sort(np.fromiter(counts.values(), dtype=np.int64, count=len(counts)))
    total = len(ordered)
    edges = sorted({int(ordered[-(-i * total // bins) - 1]) for i in range(1, bins)} | {int(ordered[-1])})
    # The bin of each count: the first edge at or above it.
    bin_of = np.searchsorted(np.array(edges), ordered, side="left")
    names = {}
    for position in range(len(edges)):
        members = ordered[bin_of == position]
        low, high = int(members[0]), int(members[-1])
        names[position] = f"{low}+" if position == len(edges) - 1 else f"{low}" if low == high else f"{low}-{high}"
    edge_array = np.array(edges)
    of = {image: names[int(np.searchsorted(edge_array, count, side="left"))] for image, count in counts.items()}
    return Grouping("concepts", of, tuple(names[position] for position in range(len(edges))))


@dataclass(frozen=True)
class GroupedScores:
    """Scores by group (:func:`grouped_scores`): ``means`` (columns :data:`MEAN_COLUMNS`, a row per metric, group and
    system, ``queries`` the number with a defined value) and ``comparisons`` (:data:`COMPARISON_COLUMNS`, a row per
    compared metric, group and pair, Holm over the groups of each metric and pair); what the grouping covered:
    ``queries`` (distinct queries of the systems), ``without_group`` (of them, those in :data:`NO_GROUP`) and
    ``unknown_ids`` (IDs a file lists that are no query of any system, sorted)."""

    by: str
    groups: tuple[str, ...]
    means: pd.DataFrame
    comparisons: pd.DataFrame
    queries: int
    without_group: int
    unknown_ids: tuple[str, ...] = ()

    def significant(self, metric: str, system_a: str, system_b: str, level: float = 0.05) -> pd.DataFrame:
        """The groups where ``system_a`` and ``system_b`` differ on ``metric`` at ``level`` after Holm's correction
        across the groups (randomization test), with ``mean_difference`` as ``system_a - system_b``."""
        rows = self.comparisons[self.comparisons.metric == metric]
        forward = rows[(rows.system_a == system_a) & (rows.system_b == system_b)]
        backward = rows[(rows.system_a == system_b) & (rows.system_b == system_a)].copy()
        backward[["system_a", "system_b"]] = system_a, system_b
        backward["mean_difference"] = -backward["mean_difference"]
        both = pd.concat([forward, backward]) if len(backward) else forward
        return both[both.p_randomization_holm < level].reset_index(drop=True)

    def to_dict(self) -> dict:
        """JSON-ready: the grouping, its coverage, ``means`` and ``comparisons`` as ``{metric: [row, ...]}`` (undefined
        numbers None)."""
        def records(frame: pd.DataFrame) -> dict[str, list[dict]]:
            by_metric: dict[str, list[dict]] = {}
            for row in frame.to_dict(orient="records"):
                metric = row.pop("metric")
                by_metric.setdefault(metric, []).append(
                    {key: (_finite_or_none(value) if isinstance(value, float) else value) for key, value in row.items()})
            return by_metric

        payload = {"by": self.by, "groups": list(self.groups), "queries": self.queries,
                   "without_group": self.without_group, "unknown_ids": len(self.unknown_ids),
                   "unknown_examples": list(self.unknown_ids[:5]), "means": records(self.means)}
        if len(self.comparisons):
            payload["comparisons"] = records(self.comparisons)
        return payload


def _finite_or_none(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def grouped_scores(query_ids: Mapping[str, Sequence[str]], values: Mapping[str, Mapping[str, np.ndarray]],
                   grouping: Grouping, *, compare: Sequence[str] = (), pairs: Sequence[tuple[str, str]] | None = None,
                   confidence: float = 0.95, bootstrap_samples: int, randomization_samples: int, seed: int = 0,
                   draws: Kept | None = None, scales: Mapping[str, MeanScale] | None = None) -> GroupedScores:
    """Per group of ``grouping`` and system, the mean of each metric with its percentile bootstrap interval, and for
    the metrics in ``compare`` the paired tests of ``pairs`` (default: every pair of systems) in each group,
    Holm-corrected across the groups (the family of one metric and pair is its groups; pairs are not corrected for
    each other).

    ``query_ids[system]`` are a system's queries and ``values[system][metric]`` its per-query values of a metric, in
    that order (NaN = excluded). Within a group each system's queries are read in the order of their IDs, as the
    whole table reads them, so one group holding every query gives the whole table's numbers. A group holding no
    query of any system is not listed. A metric named in ``scales`` is averaged, resampled and tested on its scale
    (:class:`~evalcore.stats.compare.MeanScale`: gm_map's geometric mean), as the whole table does.

    >>> ids = {"A": ("q1", "q2", "q3", "q4"), "B": ("q1", "q2", "q3", "q4")}
    >>> values = {"A": {"P": np.array([1.0, 0.5, 0.0, 0.5])}, "B": {"P": np.array([0.0, 0.5, 0.0, 0.0])}}
    >>> scores = grouped_scores(ids, values, Grouping("site", {"q1": "x", "q2": "x", "q3": "y"}), compare=["P"],
    ...                         bootstrap_samples=200, randomization_samples=200)
    >>> scores.means[["group", "system", "queries", "mean"]]
        group system  queries  mean
    0       x      A        2  0.75
    1       x      B        2  0.25
    2       y      A        1  0.00
    3       y      B        1  0.00
    4  (none)      A        1  0.50
    5  (none)      B        1  0.00
    >>> scores.comparisons[["group", "queries", "mean_difference", "p_randomization", "p_randomization_holm"]]
        group  queries  mean_difference  p_randomization  p_randomization_holm
    0       x        2              0.5              1.0                   1.0
    1       y        1              0.0              1.0                   1.0
    2  (none)        1              0.5              1.0                   1.0

    (In x the differences are 1 and 0: every sign flip gives |+-1 + 0| / 2 = 0.5, as large as observed, so p = 1.)
    """
    systems = list(query_ids)
    unknown = [system for pair in (pairs or ()) for system in pair if system not in query_ids]
    if unknown:
        raise ParameterError(f"pairs: unknown system {unknown[0]!r}; systems: {listed(systems, 10)}")
    # Each system's positions in each group, in the order of the query IDs.
    positions: dict[str, dict[str, np.ndarray]] = {}
    for system in systems:
        ids = query_ids[system]
        order = id_order(ids)
        groups = np.array([grouping.group_of(ids[position]) for position in order], dtype=object)
        positions[system] = {group: order[groups == group] for group in dict.fromkeys(groups.tolist())}
    held = {group for found in positions.values() for group in found}
    groups = tuple(group for group in (*grouping.order, NO_GROUP) if group in held)
    metrics = list(dict.fromkeys(metric for system in systems for metric in values[system]))
    scales = scales or {}
    means = _group_means(positions, values, groups, metrics, confidence, bootstrap_samples, seed, draws, scales)
    compared = list(pairs if pairs is not None else combinations(systems, 2))
    comparisons = [_group_comparisons(query_ids, positions, values, groups, metric, compared, randomization_samples,
                                      seed, draws, scales.get(metric)) for metric in compare]
    queries = {query for system in systems for query in query_ids[system]}
    listed_ids = grouping.listed or frozenset()
    return GroupedScores(grouping.name, groups, means,
                         pd.concat(comparisons, ignore_index=True) if comparisons
                         else pd.DataFrame(columns=COMPARISON_COLUMNS),
                         len(queries), sum(1 for query in queries if grouping.group_of(query) == NO_GROUP),
                         tuple(sorted(listed_ids - queries)))


def _group_means(positions: dict[str, dict[str, np.ndarray]], values: Mapping[str, Mapping[str, np.ndarray]],
                 groups: tuple[str, ...], metrics: list[str], confidence: float, samples: int, seed: int,
                 draws: Kept | None, scales: Mapping[str, MeanScale]) -> pd.DataFrame:
    """The rows of :attr:`GroupedScores.means`: per group, the systems with as many queries in it share one bootstrap
    call (the resamples depend only on the number of queries and the seed), every metric a column."""
    rows = []
    for group in groups:
        empty = np.empty(0, dtype=np.int64)
        by_size: dict[int, list[str]] = {}
        for system in positions:
            by_size.setdefault(len(positions[system].get(group, empty)), []).append(system)
        found = {}
        for size, members in by_size.items():
            columns = np.empty((size, len(members) * len(metrics)), order="F")
            for column, (system, metric) in enumerate((s, m) for s in members for m in metrics):
                picked = positions[system].get(group, empty)
                columns[:, column] = np.asarray(values[system][metric], dtype=np.float64)[picked] \
                    if metric in values[system] else np.nan
            cis = bootstrap_cis(columns, confidence, samples=samples, seed=seed, draws=draws,
                                scales=[scales.get(metric) for _ in members for metric in metrics])
            for position, system in enumerate(members):
                found[system] = cis[position * len(metrics):(position + 1) * len(metrics)]
        rows += [(metric, group, system, ci.queries, ci.mean, ci.low, ci.high)
                 for metric_position, metric in enumerate(metrics) for system in positions
                 for ci in [found[system][metric_position]]]
    frame = pd.DataFrame(rows, columns=MEAN_COLUMNS)
    # metric by metric, each in the groups' order
    return frame.sort_values("metric", key=lambda column: column.map(metrics.index), kind="stable",
                             ignore_index=True)


def _group_comparisons(query_ids: Mapping[str, Sequence[str]], positions: dict[str, dict[str, np.ndarray]],
                       values: Mapping[str, Mapping[str, np.ndarray]], groups: tuple[str, ...], metric: str,
                       pairs: list[tuple[str, str]], samples: int, seed: int, draws: Kept | None,
                       scale: MeanScale | None) -> pd.DataFrame:
    """The rows of :attr:`GroupedScores.comparisons` of one metric: each pair in each group on the queries both
    systems scored there, then Holm's correction across the groups of each pair."""
    empty = np.empty(0, dtype=np.int64)

    def in_group(system: str, group: str) -> dict[str, float]:
        picked = positions[system].get(group, empty)
        ids = query_ids[system]
        scores = np.asarray(values[system][metric], dtype=np.float64)
        return {ids[position]: float(scores[position]) for position in picked}

    rows = []
    for a, b in pairs:
        tested = []
        for group in groups:
            pair = compare_systems({a: in_group(a, group), b: in_group(b, group)}, samples=samples, seed=seed,
                                   draws=draws, scale=scale)[0]
            tested.append([metric, group, a, b, pair.queries, pair.mean_difference, pair.p_randomization,
                           pair.p_t_test])
        for column in (6, 7):
            raw = [row[column] for row in tested]
            made = [position for position, p in enumerate(raw) if np.isfinite(p)]  # a group without a test is none
            adjusted = dict(zip(made, holm([raw[position] for position in made]))) if made else {}
            for position, row in enumerate(tested):
                row.append(adjusted.get(position, float("nan")))
        rows += tested
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)
