"""``--group-by`` of ``evaluate`` and ``compare``: the scores broken down by a query attribute
(:func:`evalcore.evaluation.groups.results_by_group`), checked before any work, written to the JSON (``groups``), to
``--group-csv`` and to the terminal."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence

from evalcore.errors import CBIRLensError, listed
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.groups import BUILT_IN_GROUPINGS, needed_inputs, parse_group_by, query_grouping, results_by_group
from evalcore.evaluation.results import Results
from evalcore.io.outputs import check_outputs
from evalcore.io.tables import markdown_table
from evalcore.readers import read_labels
from evalcore.readers.query_attributes import read_query_attributes
from evalcore.stats.groups import MEAN_COLUMNS, NO_GROUP, GroupedScores, Grouping

from .console import print_note, shown_number

#: The columns of ``--group-csv`` and of the printed table (:attr:`GroupedScores.means`).
GROUP_CSV_COLUMNS = MEAN_COLUMNS


def group_by_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--group-by", metavar="BY",
                        help=f"also the scores by group of queries: {' (labels), '.join(BUILT_IN_GROUPINGS[:2])} "
                             "(labels), concepts (the number of concepts, in 4 quantile bins) or FILE:COLUMN (a CSV "
                             "or TSV with a header, the query ID first: the column COLUMN); a query without a value "
                             f"is in the group {NO_GROUP}")
    parser.add_argument("--group-csv", metavar="F",
                        help=f"with --group-by: write the scores by group as CSV ({','.join(GROUP_CSV_COLUMNS)})")


def checked_grouping(args: argparse.Namespace, outputs: Mapping[str, str | None]) -> Grouping | None:
    """Refuse, before any work, a ``--group-by`` that cannot be read: an unknown grouping, a built-in one whose input
    is not given (``--labels`` without its kind, no ``--concepts``), a query attributes file that is malformed or
    lacks the column (read here: its grouping is returned), an output that would overwrite it, and ``--group-csv``
    without ``--group-by``. None where ``--group-by`` is a built-in grouping (made from the inputs read later) or
    not given."""
    if args.group_by is None:
        if args.group_csv is not None:
            raise CBIRLensError("--group-csv writes the scores by group: add --group-by BY, or leave it out")
        return None
    by, column = parse_group_by(args.group_by)
    check_outputs(outputs, [by] if column is not None else [])
    if column is not None:
        return read_query_attributes(by).grouping(column)
    if "concepts" in needed_inputs(by) and not args.concepts:
        raise CBIRLensError(f"--group-by {by} reads each query's number of concepts from the concept sets: add "
                            "--concepts F")
    if "labels" in needed_inputs(by):
        if not args.labels:
            raise CBIRLensError(f"--group-by {by} reads each query's {by} from the images' labels: add --labels F "
                                "(ID,modality,organ or kind,class,CUI)")
        kinds = list(read_labels(args.labels).by_kind)
        if by not in kinds:
            raise CBIRLensError(f"--group-by {by}: {args.labels} has no {by} labels; it has {listed(kinds) or 'none'}")
    return None


def grouped_of(args: argparse.Namespace, read: Grouping | None, evaluator: Evaluator, results: Results,
               compare: Sequence[str] = ()) -> GroupedScores | None:
    """The scores by group of ``--group-by`` (None where it is not given): every metric of ``results``, and for those
    in ``compare`` the tests of every pair per group (Holm across the groups); what the grouping left without a value
    or could not place noted on stderr."""
    if args.group_by is None:
        return None
    grouping = read if read is not None else query_grouping(args.group_by, evaluator.concepts, evaluator.labels)
    grouped = results_by_group(results, grouping, compare=compare)
    if grouped.without_group:
        print_note(f"--group-by {args.group_by}: {grouped.without_group:,} of the {grouped.queries:,} queries have no "
                   f"value; they are the group {NO_GROUP}")
    if grouped.unknown_ids:
        print_note(f"--group-by {args.group_by}: {len(grouped.unknown_ids):,} ID{'s' if len(grouped.unknown_ids) != 1 else ''}"
                   f" of the file {'are' if len(grouped.unknown_ids) != 1 else 'is'} no query of the runs "
                   f"({listed(list(grouped.unknown_ids))}); left out")
    return grouped


def group_csv_outputs(path: str | None, grouped: GroupedScores | None) -> list[tuple[str, str]]:
    """``--group-csv``'s (path, text), none without it: the scores by group, a row per metric, group and system (for
    :func:`~evalcore.io.outputs.write_texts_atomically`, with the command's other outputs)."""
    if path is None or grouped is None:
        return []
    return [(path, grouped.means.to_csv(index=False, columns=GROUP_CSV_COLUMNS))]


def grouped_table(grouped: GroupedScores, metrics: Sequence[str]) -> str:
    """The scores by group of ``metrics`` as an aligned Markdown table: a row per metric, group and system with its
    queries, mean and interval.

    >>> import pandas as pd
    >>> means = pd.DataFrame([["P@5", "CT", "run", 3, 0.5, 0.25, 0.75]], columns=GROUP_CSV_COLUMNS)
    >>> print(grouped_table(GroupedScores("modality", ("CT",), means, pd.DataFrame(), 3, 0), ["P@5"]))
    | metric | modality | system | queries |   mean | CI low | CI high |
    |--------|----------|--------|--------:|-------:|-------:|--------:|
    | P@5    | CT       | run    |       3 | 0.5000 | 0.2500 |  0.7500 |
    """
    rows = grouped.means[grouped.means.metric.isin(metrics)]
    frame = rows.rename(columns={"group": grouped.by, "ci_low": "CI low", "ci_high": "CI high"})
    return markdown_table(frame.reset_index(drop=True), 4, aligned=True)


def print_grouped(grouped: GroupedScores, metric: str, confidence_text: str) -> None:
    """One metric's scores by group on stderr, beneath ``compare``'s lines for it: each group's systems with their
    means and intervals, then its pairs with their p-values, Holm-corrected across the groups."""
    print(f"  by {grouped.by} (mean [{confidence_text} CI]; p-values Holm-corrected across the groups):",
          file=sys.stderr)
    means = grouped.means[grouped.means.metric == metric]
    pairs = grouped.comparisons[grouped.comparisons.metric == metric] if len(grouped.comparisons) else None
    for group in grouped.groups:
        shown = ", ".join(f"{row.system} {shown_number(row.mean)}"
                          + (f" [{shown_number(row.ci_low)}, {shown_number(row.ci_high)}]" if row.queries else "")
                          + f" ({row.queries:,})" for row in means[means.group == group].itertuples())
        print(f"    {group}: {shown}", file=sys.stderr)
        for pair in ([] if pairs is None else pairs[pairs.group == group].itertuples()):
            print(f"      {pair.system_a} - {pair.system_b}: {shown_number(pair.mean_difference, '+.4f')}, "
                  f"randomization p (Holm) {shown_number(pair.p_randomization_holm, '.4g')}, t-test p (Holm) "
                  f"{shown_number(pair.p_t_test_holm, '.4g')}", file=sys.stderr)
