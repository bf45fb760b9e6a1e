"""Leaderboard tables: metric groups that fit a screen, the best value per metric, p-values
for people, and CSV / LaTeX exports that keep the confidence intervals.

A *summary* is a long table with one row per (system, metric) and the columns ``system``,
``metric``, ``mean``, ``low``, ``high`` (the 95% bootstrap interval) and ``queries``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from evalcore.errors import ParameterError
from evalcore.metrics.registry import NAME_PREFIXES, RELEVANCE_WORDS, default_metric_names, metric_names_for_measure, parse_metric
from evalcore.relevance.measures import MEASURES

if TYPE_CHECKING:  # pandas' Styler needs jinja2, which only the table that styles loads
    from pandas.io.formats.style import Styler

GROUPS = ("relevance-graded", "label precision", "other")
GROUP_TITLES = {
    "relevance-graded": "Graded by concept overlap (NDCG with IoU, nn-IoU or the chosen measure)",
    "label precision": "Label precision (same modality / organ)",
    "other": "Other (MAP, recall, ERR, RBP, Context-Aware Gain)",
}
PLAIN_GROUP_TITLES = {"relevance-graded": "Concept match", "label precision": "Same modality / organ",
                      "other": "Other scores"}
SUMMARY_COLUMNS = ("system", "metric", "mean", "low", "high", "queries")
_PLAIN_FAMILIES = {
    "CUI": "concept match",
    "nn-CUI": "concept match, related concepts count",
    "MAP": "how early the matching images come",
    "nn-MAP": "how early the matching images come, related concepts count",
    "MAP-min": "how early the matching images come, capped at the top",
    "nn-MAP-min": "how early the matching images come, capped at the top, related concepts count",
    "R": "share of related images found",
    "nn-R": "share of related images found, related concepts count",
    "RBP": "rank-weighted relevance",
    "nn-RBP": "rank-weighted relevance, related concepts count",
    "ERR": "reciprocal rank",
    "nn-ERR": "reciprocal rank, related concepts count",
    "CAG": "context-aware gain",
    "nn-CAG": "context-aware gain, related concepts count",
    "CAG-RBP": "context-aware gain over the list",
    "nn-CAG-RBP": "context-aware gain over the list, related concepts count",
}
_PLAIN_TARGETS = {"modality": "same modality", "organ": "same organ", "modality+organ": "same modality and organ"}


def metric_group(name: str) -> str:
    """Which leaderboard group a metric belongs to.

    >>> metric_group("nn-CUI@10"), metric_group("P@5[organ]"), metric_group("MAP@10")
    ('relevance-graded', 'label precision', 'other')
    """
    spec = parse_metric(name)
    if spec.family.key == "CUI" and spec.relevance != "qrels":
        return "relevance-graded"
    return "other" if spec.family.graded else "label precision"


def metric_family(name: str) -> str:
    """The metric without its cut-off: one sub-table per family, its columns the K values; a measure in braces
    stays, so that Dice's columns never share a table (and its title) with IoU's.

    >>> metric_family("nn-CUI@10"), metric_family("P@5[modality+organ]"), metric_family("RBP")
    ('nn-CUI', 'P[modality+organ]', 'RBP')
    >>> metric_family("CUI@10{dice}")
    'CUI{dice}'
    """
    spec = parse_metric(name)
    return replace(spec, k=None).name


def describe_family(name: str, threshold: float | None = None) -> str:
    """A metric's plain description with K left open, for a table whose columns are the K values
    (:func:`describe_metric`).

    >>> describe_family("P@5[organ]")
    'How often the top K contain an image of the same organ'
    >>> describe_family("CUI@10{dice}")[:66]
    'How close the top K come to the best possible ranking by Dice (sha'
    """
    return describe_metric(name, threshold, k="K")


def describe_metric(name: str, threshold: float | None = None, k: int | str | None = None) -> str:
    """A metric's plain description (at cut-off ``k``, default its own) in the words of the measure it reads (a
    measure in braces by its own title, not IoU's) and, given the ``threshold`` of
    :class:`~evalcore.evaluation.options.Relevance`, with the relevance at which an image counts as relevant (MAP, R).

    >>> text = describe_metric("MAP@10", 0.5)
    >>> text[:66], text[66:]
    ('Average precision in the top 10 divided by R (all relevant images)', ', relevant = IoU (concept overlap) \
at least 0.5 (trec_eval map_cut_10)')
    """
    spec = parse_metric(name)
    text = spec.description(k)
    if spec.relevance not in (None, *NAME_PREFIXES):
        measure = MEASURES[spec.relevance]
        text = text.replace(RELEVANCE_WORDS["iou"], f"{measure.title} ({measure.summary})")
    if threshold is not None:
        text = text.replace("at least the threshold", f"at least {threshold:g}")
    return text


def leaderboard_metrics(ks: Sequence[int], label_targets: Sequence[str], measure: str | None) -> list[str]:
    """The leaderboard's metrics: the standard report, nn-IoU's metrics kept whatever measure is chosen, and the
    chosen measure's own metrics (``X{measure}``) first, so that its tables open the page instead of landing
    beyond the right edge.

    >>> leaderboard_metrics([10], (), "dice")[:4]
    ['CUI@10{dice}', 'MAP@10{dice}', 'R@10{dice}', 'ERR@10{dice}']
    >>> leaderboard_metrics([10], (), "nn-iou") == leaderboard_metrics([10], (), "iou") == default_metric_names([10])
    True
    """
    standard = default_metric_names(ks, label_targets)
    own = [name for name in metric_names_for_measure(ks, label_targets, measure) if name not in standard]
    return own + standard


def equivalent_metric(name: str | None, metrics: Sequence[str], measure: str | None) -> str | None:
    """The metric among ``metrics`` that keeps a reader's choice ``name`` when the relevance measure changes to
    ``measure`` (a registry key): the same name while it is offered, else the same family, cut-off and target read
    under ``measure``; None when neither is offered.

    >>> equivalent_metric("nn-CUI@10", ["CUI@10{dice}", "nn-CUI@10"], "dice")
    'nn-CUI@10'
    >>> equivalent_metric("CUI@10{dice}", ["CUI@10{tversky}", "nn-CUI@10"], "tversky")
    'CUI@10{tversky}'
    >>> print(equivalent_metric("CUI@10{dice}", ["CUI@5", "nn-CUI@10"], "nn-iou"))
    None
    """
    if name in metrics:
        return name
    if name is None or measure in (None, *NAME_PREFIXES):
        return None
    spec = parse_metric(name)
    if spec.relevance in (None, *NAME_PREFIXES):
        return None
    moved = replace(spec, relevance=measure).name
    return moved if moved in metrics else None


def label_query_counts(summary: pd.DataFrame, metrics: Sequence[str], counts: Mapping[str, Mapping[str, int]],
                       plain: bool = False) -> list[str]:
    """Over how many queries each label target's precision averages (only queries with that label count), one
    sentence per target: the most over the systems, of the most queries any system was evaluated on
    (``counts``: :attr:`evalcore.evaluation.results.Results.counts`); ``plain``: in a clinician's words.

    >>> s = pd.DataFrame({"system": ["a", "a"], "metric": ["P@5[organ]", "P@10[organ]"], "mean": [0.5, 0.4],
    ...                   "low": [0.4, 0.3], "high": [0.6, 0.5], "queries": [5987, 5987]})
    >>> label_query_counts(s, ["P@5[organ]", "P@10[organ]"], {"a": {"queries_evaluated": 9927}})
    ['Precision on organ: 5,987 of 9,927 queries have an organ label']
    >>> label_query_counts(s, ["P@5[organ]"], {"a": {"queries_evaluated": 9927}}, plain=True)
    ['Same organ: 5,987 of 9,927 cases have an organ label']
    """
    evaluated = max((c.get("queries_evaluated", 0) for c in counts.values()), default=0)
    by_target: dict[str, int] = {}
    rows = summary[summary.metric.isin(metrics)]
    for metric, count in zip(rows.metric, rows.queries):
        target = parse_metric(metric).target
        if target is not None:
            by_target[target] = max(by_target.get(target, 0), int(count))
    what, who = ("Same {}", "cases") if plain else ("Precision on {}", "queries")
    return [f"{what.format(target)}: {count:,} of {evaluated:,} {who} have "
            f"{'an' if target[0] in 'aeiou' else 'a'} {target} label" for target, count in by_target.items()]


def grouped_metrics(metrics: Sequence[str]) -> dict[str, dict[str, list[str]]]:
    """``{group: {family: [metrics in the given order]}}``, groups in :data:`GROUPS` order, empty groups left out.

    >>> grouped_metrics(["CUI@5", "CUI@10", "P@5[organ]", "nn-RBP"])
    {'relevance-graded': {'CUI': ['CUI@5', 'CUI@10']}, 'label precision': {'P[organ]': ['P@5[organ]']}, \
'other': {'nn-RBP': ['nn-RBP']}}
    """
    grouped: dict[str, dict[str, list[str]]] = {group: {} for group in GROUPS}
    for name in metrics:
        grouped[metric_group(name)].setdefault(metric_family(name), []).append(name)
    return {group: families for group, families in grouped.items() if families}


def focus_metric(names: Sequence[str], focus: str | None = None) -> str:
    """The metric a leaderboard's chart and tests show: ``focus`` where it is one of ``names``, else nn-CUI@10,
    else the first. The focus part of :func:`shown_metrics`.

    >>> focus_metric(["CUI@10", "nn-CUI@10"]), focus_metric(["CUI@10", "nn-CUI@10"], "CUI@10"), focus_metric(["RBP"])
    ('nn-CUI@10', 'CUI@10', 'RBP')
    """
    return focus if focus in names else "nn-CUI@10" if "nn-CUI@10" in names else names[0]


def shown_tables(names: Sequence[str], group: str | None = None, family: str | None = None) -> dict[str, list[str]]:
    """The tables a leaderboard draws of ``names`` (:func:`grouped_metrics`), ``{family: [metrics]}``: those of
    ``group`` (the first group where it is none of them) and, in the group "other", which shows one family at a time,
    only ``family`` (its first where ``family`` is none of them).

    The one definition of the metrics a table shows: :func:`shown_metrics` (what the Leaderboard computes,
    :meth:`dashboard.computed.LeaderboardView.shown`) is these tables' metrics and the one in focus, and the
    Leaderboard page draws these tables.

    >>> names = ["CUI@10", "nn-CUI@10", "P@10[organ]", "MAP@10", "RBP", "ERR@10"]
    >>> shown_tables(names), shown_tables(names, "other", "ERR"), shown_tables(names, "other", "none of them")
    ({'CUI': ['CUI@10'], 'nn-CUI': ['nn-CUI@10']}, {'ERR': ['ERR@10']}, {'MAP': ['MAP@10']})
    """
    groups = grouped_metrics(names)
    families = groups.get(group) or next(iter(groups.values()))
    if (group if group in groups else next(iter(groups))) == "other":
        families = {family: families[family]} if family in families else dict([next(iter(families.items()))])
    return families


def shown_metrics(names: Sequence[str], group: str | None = None, family: str | None = None,
                  focus: str | None = None) -> tuple[str, ...]:
    """The metrics a leaderboard computes of ``names``: those of the tables it draws (:func:`shown_tables`, the one
    definition) and the metric in focus (:func:`focus_metric`), in ``names``' order.

    >>> names = ["CUI@10", "nn-CUI@10", "P@10[organ]", "MAP@10", "RBP"]
    >>> shown_metrics(names), shown_metrics(names, "other", "RBP"), shown_metrics(names, "label precision", focus="RBP")
    (('CUI@10', 'nn-CUI@10'), ('nn-CUI@10', 'RBP'), ('P@10[organ]', 'RBP'))
    """
    tables = shown_tables(names, group, family)
    wanted = {name for members in tables.values() for name in members} | {focus_metric(names, focus)}
    return tuple(name for name in names if name in wanted)


#: How many metrics a summary shows, unless the relevance-graded tables alone hold more (:func:`summary_metrics`).
SUMMARY_SIZE = 6


def summary_metrics(names: Sequence[str]) -> list[str]:
    """The metrics a summary of ``names`` shows unless told which (the Leaderboard's LaTeX table, the command line's
    line per system on stderr), in ``names``' order: every metric of the relevance-graded tables (:func:`shown_tables`:
    CUI@K and nn-CUI@K at each K, the paper's), then the others in their order up to :data:`SUMMARY_SIZE` in all.

    >>> summary_metrics(["CUI@5", "CUI@10", "CUI@30", "nn-CUI@5", "nn-CUI@10", "nn-CUI@30", "P@5[organ]", "RBP"])
    ['CUI@5', 'CUI@10', 'CUI@30', 'nn-CUI@5', 'nn-CUI@10', 'nn-CUI@30']
    >>> summary_metrics(["P@1[organ]", "CUI@1", "RBP"]), summary_metrics(["qrels-NDCG@10", "qrels-MAP@10"])
    (['P@1[organ]', 'CUI@1', 'RBP'], ['qrels-NDCG@10', 'qrels-MAP@10'])
    """
    graded = {name for members in shown_tables(names, "relevance-graded").values() for name in members} \
        if "relevance-graded" in grouped_metrics(names) else set()
    others = [name for name in names if name not in graded][:max(0, SUMMARY_SIZE - len(graded))]
    shown = graded | set(others)
    return [name for name in names if name in shown]


def plain_metric_label(name: str) -> str:
    """A metric name in plain words, for readers who do not know IR jargon.

    >>> plain_metric_label("nn-CUI@10"), plain_metric_label("P@5[modality+organ]")
    ('top 10: concept match, related concepts count', 'top 5: same modality and organ')
    >>> plain_metric_label("RBP"), plain_metric_label("CUI@5{dice}")
    ('whole list: rank-weighted relevance', 'top 5: concept match, compared by Dice')
    """
    spec = parse_metric(name)
    words = _PLAIN_TARGETS[spec.target] if spec.target else _PLAIN_FAMILIES[spec.family_name]
    if spec.relevance not in (None, *NAME_PREFIXES):
        words += f", compared by {MEASURES[spec.relevance].title}"
    return f"{'top ' + str(spec.k) if spec.k else 'whole list'}: {words}"


def plain_metric_help(name: str) -> str:
    """What a metric's score says, in plain words, for a column's tooltip (the clinician's view).

    >>> plain_metric_help("P@5[organ]")
    'How often the top 5 contain an image of the same organ as the case, from 0 (never) to 1 (always).'
    >>> plain_metric_help("nn-CUI@10")
    'Concept match of the top 10, from 0 to 1 (the best order possible), averaged over the cases: images match by \
the concepts they share with the case, related concepts counting.'
    """
    spec = parse_metric(name)
    where = f"the top {spec.k}" if spec.k else "the whole list"
    if spec.target:
        return f"How often {where} contain an image of the {_PLAIN_TARGETS[spec.target]} as the case, from 0 (never) " \
               "to 1 (always)."
    what, _, related = _PLAIN_FAMILIES[spec.family_name].partition(", ")
    return (f"{what.capitalize()} of {where}, from 0 to 1 (the best order possible), averaged over the cases: "
            f"images match by the concepts they share with the case{', ' + related + 'ing' if related else ''}.")


def wide_summary(summary: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Systems x (mean, low, high) per metric, as numbers: columns ``m``, ``m low``, ``m high``.

    >>> s = pd.DataFrame({"system": ["a", "b"], "metric": ["CUI@5", "CUI@5"], "mean": [0.5, 0.7],
    ...                   "low": [0.4, 0.6], "high": [0.6, 0.8], "queries": [10, 10]})
    >>> wide_summary(s, ["CUI@5"]).loc["b"].tolist()
    [0.7, 0.6, 0.8]
    """
    indexed = summary.set_index(["system", "metric"])
    systems = list(dict.fromkeys(summary.system))
    # One dict per field: a pandas lookup per cell took 70 ms a leaderboard draw on ROCOv2 (6 systems).
    by_field = {field: indexed[field].to_dict() for field in ("mean", "low", "high")}
    columns = {}
    for metric in metrics:
        for field, suffix in (("mean", ""), ("low", " low"), ("high", " high")):
            columns[metric + suffix] = [by_field[field].get((system, metric), np.nan) for system in systems]
    return pd.DataFrame(columns, index=pd.Index(systems, name="system"))


def best_systems(summary: pd.DataFrame, metric: str) -> list[str]:
    """The systems with the highest mean on a metric (all of them when tied; none when undefined).

    >>> s = pd.DataFrame({"system": ["a", "b", "c"], "metric": ["R@5"] * 3, "mean": [0.5, 0.7, 0.7]})
    >>> best_systems(s, "R@5")
    ['b', 'c']
    """
    rows = summary[(summary.metric == metric) & summary["mean"].notna()]
    if rows.empty:
        return []
    return rows[rows["mean"] == rows["mean"].max()].system.tolist()


#: How every page shows a score, the one rule: a value in [0, 1] (a metric's mean, an interval end, a precision)
#: with this many decimals, the same in every row of a column; a percentage (Table 1 as the paper prints it) is
#: shown as the score it is, so that a precision reads 0.9937 on every page. Counts carry thousands separators.
SCORE_DECIMALS = 4
SCORE_FORMAT = f"{{:.{SCORE_DECIMALS}f}}"


def score_table(frame: pd.DataFrame, percent: Sequence[str] = ()) -> Styler:
    """``frame`` styled by the dashboard's number rule (:data:`SCORE_DECIMALS`): the columns in ``percent``
    divided by 100 (the caller's frame is not changed), every float column with :data:`SCORE_DECIMALS` decimals,
    integer columns with thousands separators, missing values as "—".

    >>> frame = pd.DataFrame({"system": ["IoU", "TF-IDF"], "P@5": [97.545, 100.0], "queries": [9927, 5987]})
    >>> print(score_table(frame, ["P@5"]).hide(axis="index").to_string(delimiter=" | "))
    system | P@5 | queries
    IoU | 0.9755 | 9,927
    TF-IDF | 1.0000 | 5,987
    <BLANKLINE>
    """
    shown = frame.copy()
    for column in percent:
        shown[column] = shown[column] / 100
    formats = {column: SCORE_FORMAT if pd.api.types.is_float_dtype(dtype) else "{:,}"
               for column, dtype in shown.dtypes.items()
               if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)}
    return shown.style.format(formats, na_rep="—")


def format_p_value(p: float) -> str:
    """``< 0.001`` below a thousandth, else three significant digits; ``—`` when undefined.

    >>> [format_p_value(p) for p in (0.0000000000002, 0.0004, 0.001, 0.01234, 0.5, 1.0, float("nan"))]
    ['< 0.001', '< 0.001', '0.00100', '0.0123', '0.500', '1.00', '—']
    """
    if p is None or not math.isfinite(p):
        return "—"
    return "< 0.001" if p < 0.001 else f"{p:#.3g}"


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_csv(frame: pd.DataFrame) -> str:
    r"""``frame`` as CSV for a spreadsheet: every text cell (and column name) that a spreadsheet would run as a
    formula, one beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return, gets a leading ``'`` (OWASP's
    rule against CSV injection); numbers stay numbers, negative ones included. Lines end in CRLF (RFC 4180), so that
    a cell holding a line break of either kind is quoted and cannot start a row of its own. The index is not written.

    >>> frame = pd.DataFrame({"system": ["=1+1", "@q", "-x", "a\r=2"], "value": [-0.5, 1.0, -2.0, 0.25]})
    >>> spreadsheet_csv(frame).split("\r\n")
    ['system,value', "'=1+1,-0.5", "'@q,1.0", "'-x,-2.0", '"a\r=2",0.25', '']
    """
    def neutralised(value: object) -> object:
        return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value

    safe = frame.rename(columns=neutralised)
    for position, dtype in enumerate(safe.dtypes):
        if not pd.api.types.is_numeric_dtype(dtype):
            # Each distinct value once: a per-query table repeats a few thousand IDs over a million rows.
            codes, distinct = pd.factorize(safe.iloc[:, position], use_na_sentinel=False)
            safe.isetitem(position, np.array([neutralised(value) for value in distinct], dtype=object)[codes])
    return safe.to_csv(index=False, lineterminator="\r\n")


def results_csv(summary: pd.DataFrame, metrics: Sequence[str]) -> str:
    """One row per (system, metric): mean, the 95% bootstrap interval and the number of queries averaged; for a
    spreadsheet (:func:`spreadsheet_csv`).

    >>> s = pd.DataFrame({"system": ["a"], "metric": ["CUI@5"], "mean": [0.5], "low": [0.4], "high": [0.6],
    ...                   "queries": [10]})
    >>> results_csv(s, ["CUI@5"]).splitlines()
    ['system,metric,mean,ci95_low,ci95_high,queries', 'a,CUI@5,0.5,0.4,0.6,10']
    """
    rows = summary[summary.metric.isin(metrics)].copy()
    rows["metric"] = pd.Categorical(rows.metric, categories=list(metrics), ordered=True)
    rows = rows.sort_values(["metric"], kind="stable")
    table = rows[list(SUMMARY_COLUMNS)].rename(columns={"low": "ci95_low", "high": "ci95_high"})
    return spreadsheet_csv(table)


_LATEX_SPECIAL = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
                  "[": "{[}", "]": "{]}", "*": "{*}"}


def latex_escape(text: str) -> str:
    r"""Text as LaTeX prints it literally: its special characters escaped, and ``[``, ``]`` and ``*`` braced, which
    right after a row's ``\\`` would be read as its optional argument or its star; line breaks and other control
    characters become spaces (a blank line would end the table's paragraph). The one escaping of every LaTeX
    writer (:func:`latex_tabular`).

    >>> print(latex_escape("run_1 & 50% [x]"))
    run\_1 \& 50\% {[}x{]}
    >>> print(latex_escape("[-3cm]x"), latex_escape("*a\n\nb"))
    {[}-3cm{]}x {*}a  b
    """
    return "".join(_LATEX_SPECIAL.get(ch, " " if not ch.isprintable() else ch) for ch in str(text))


def latex_interval(low: float, high: float, digits: int) -> str:
    r"""A confidence interval as a table cell shows it, its brackets braced.

    >>> print(latex_interval(0.4, 0.6, 3))
    {[}0.400, 0.600{]}
    """
    return f"{{[}}{low:.{digits}f}, {high:.{digits}f}{{]}}"


def latex_tabular(systems: Sequence[str], metrics: Sequence[str], cell: Callable[[str, str], str]) -> list[str]:
    r"""The lines of a booktabs ``tabular``: a header ``System & metric ...``, then one row per system of
    ``cell(system, metric)`` (LaTeX made from numbers); system and metric names escaped by :func:`latex_escape`.
    The body of :func:`latex_table`, the one LaTeX writer.

    >>> print("\n".join(latex_tabular(["[-3cm]x"], ["P@5[organ]"], lambda system, metric: "0.5")))
    \begin{tabular}{lr}
    \toprule
    System & P@5{[}organ{]} \\
    \midrule
    {[}-3cm{]}x & 0.5 \\
    \bottomrule
    \end{tabular}
    """
    lines = [rf"\begin{{tabular}}{{l{'r' * len(metrics)}}}", r"\toprule",
             " & ".join(["System", *(latex_escape(m) for m in metrics)]) + r" \\", r"\midrule"]
    lines += [" & ".join([latex_escape(system), *(cell(system, m) for m in metrics)]) + r" \\" for system in systems]
    return lines + [r"\bottomrule", r"\end{tabular}"]


#: The comment lines the dashboard's LaTeX table opens with (:func:`latex_table`'s default ``notes``).
LATEX_NOTES = (r"% Requires \usepackage{booktabs} (for \toprule, \midrule, \bottomrule).",
               "% Cells: mean over queries [95% bootstrap confidence interval]; bold: best mean per column.")
#: How :func:`latex_table` writes a cell's interval: after the mean in ``\scriptsize`` ("small", the dashboard's),
#: after it in the text's size ("inline", :meth:`~evalcore.evaluation.results.Results.to_latex`'s), or not at all.
LATEX_INTERVALS = ("small", "inline", None)


def latex_table(summary: pd.DataFrame, metrics: Sequence[str], caption: str | None, digits: int = SCORE_DECIMALS, *,
                systems: Sequence[str] | None = None, intervals: str | None = "small", best_in_bold: bool = True,
                notes: Sequence[str] = LATEX_NOTES, final_newline: bool = False) -> str:
    r"""A booktabs table: systems x metrics, each cell ``mean [low, high]``, the best mean per metric in bold; with
    the dashboard's :data:`SCORE_DECIMALS` digits, so that a number copied from the file reads as on the screen.

    The one LaTeX writer: the dashboard's download calls it with its defaults, and
    :meth:`evalcore.evaluation.results.Results.to_latex` with the differences of its text as parameters:
    ``caption`` None writes the ``tabular`` alone (no ``table`` float, no caption); ``systems``: the rows, in that
    order (default: the systems of ``summary``, in its order); ``intervals``: one of :data:`LATEX_INTERVALS`;
    ``best_in_bold``: the best mean per metric (all of them when tied) in bold; ``notes``: the comment lines written
    first; ``final_newline``: end the text with a line break. ``summary`` has :data:`SUMMARY_COLUMNS` (``queries``
    is not read); an undefined mean is written ``--``; names are escaped by :func:`latex_escape`.

    >>> s = pd.DataFrame({"system": ["a", "b"], "metric": ["CUI@5"] * 2, "mean": [0.5, 0.7], "low": [0.4, 0.6],
    ...                   "high": [0.6, 0.8], "queries": [10, 10]})
    >>> print(latex_table(s, ["CUI@5"], "alpha = 0.5"))
    % Requires \usepackage{booktabs} (for \toprule, \midrule, \bottomrule).
    % Cells: mean over queries [95% bootstrap confidence interval]; bold: best mean per column.
    \begin{table}[ht]
    \centering
    \caption{alpha = 0.5}
    \begin{tabular}{lr}
    \toprule
    System & CUI@5 \\
    \midrule
    a & 0.5000 {\scriptsize {[}0.4000, 0.6000{]}} \\
    b & \textbf{0.7000} {\scriptsize {[}0.6000, 0.8000{]}} \\
    \bottomrule
    \end{tabular}
    \end{table}
    >>> print(latex_table(s, ["CUI@5"], None, 2, systems=["b", "a"], intervals="inline", best_in_bold=False,
    ...                   notes=["% two systems"]))
    % two systems
    \begin{tabular}{lr}
    \toprule
    System & CUI@5 \\
    \midrule
    b & 0.70 {[}0.60, 0.80{]} \\
    a & 0.50 {[}0.40, 0.60{]} \\
    \bottomrule
    \end{tabular}
    """
    if intervals not in LATEX_INTERVALS:
        raise ParameterError(f"intervals: expected one of {LATEX_INTERVALS}, got {intervals!r:.60}")
    wide = wide_summary(summary, metrics)
    best = {metric: set(best_systems(summary, metric)) if best_in_bold else set() for metric in metrics}

    def cell(system: str, metric: str) -> str:
        mean, low, high = (wide.loc[system, metric + suffix] for suffix in ("", " low", " high"))
        if not np.isfinite(mean):
            return "--"
        value = f"{mean:.{digits}f}"
        if system in best[metric]:
            value = rf"\textbf{{{value}}}"
        if intervals == "small":
            return rf"{value} {{\scriptsize {latex_interval(low, high, digits)}}}"
        return f"{value} {latex_interval(low, high, digits)}" if intervals == "inline" else value

    tabular = latex_tabular(list(wide.index) if systems is None else systems, metrics, cell)
    if caption is not None:
        tabular = [r"\begin{table}[ht]", r"\centering", rf"\caption{{{latex_escape(caption)}}}", *tabular,
                   r"\end{table}"]
    return "\n".join([*notes, *tabular]) + ("\n" if final_newline else "")


def markdown_table(frame: pd.DataFrame, digits: int = 2, aligned: bool = False) -> str:
    """A GitHub-flavoured Markdown table of ``frame``: floats to ``digits`` places (NaN as "—"), booleans as
    yes / no, numeric columns right-aligned; for the written reports in docs/ and, ``aligned``, for a terminal
    (``evaluate`` and ``detection`` without ``--json``): each column padded to its widest cell, whole numbers with
    thousands separators, a column of numbers of mixed kinds (counts and scores) right-aligned too.

    >>> print(markdown_table(pd.DataFrame({"system": ["a|b"], "P@5": [0.5], "beats IoU": [True]})))
    | system | P@5 | beats IoU |
    |---|---:|---|
    | a\\|b | 0.50 | yes |
    >>> print(markdown_table(pd.DataFrame({"metric": ["P@5", "nDCG@10"], "run": [0.5, float("nan")]}), 4, aligned=True))
    | metric  |    run |
    |---------|-------:|
    | P@5     | 0.5000 |
    | nDCG@10 |      — |
    """
    def cell(value) -> str:
        if isinstance(value, (bool, np.bool_)):
            return "yes" if value else "no"
        if isinstance(value, (float, np.floating)):
            return "—" if np.isnan(value) else f"{value:.{digits}f}"
        if aligned and isinstance(value, (int, np.integer)):
            return f"{value:,}"
        return str(value).replace("|", "\\|")

    def numeric(column: str) -> bool:  # (a column of numbers of mixed kinds, ints and floats, too)
        values = frame[column]
        return (pd.api.types.is_numeric_dtype(values) and values.dtype != bool) or (
            aligned and len(values) > 0 and all(isinstance(v, (int, float, np.integer, np.floating))
                                    and not isinstance(v, (bool, np.bool_)) for v in values))

    names = [str(c).replace("|", "\\|") for c in frame.columns]
    rows = [[cell(v) for v in row] for row in frame.itertuples(index=False)]
    right = [numeric(c) for c in frame.columns]
    widths = [max([len(name), 3, *(len(row[i]) for row in rows)]) if aligned else 0 for i, name in enumerate(names)]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(text.rjust(width) if is_right else text.ljust(width)
                                 for text, width, is_right in zip(cells, widths, right)) + " |"

    if aligned:
        rule = "|" + "|".join("-" * (width + 1) + ":" if is_right else "-" * (width + 2)
                              for width, is_right in zip(widths, right)) + "|"
    else:
        rule = "|" + "|".join("---:" if is_right else "---" for is_right in right) + "|"
    return "\n".join([line(names), rule, *(line(row) for row in rows)])


def shown_percent(level: float) -> str:
    """A level in (0, 1) as a percentage with the fewest decimals that show it (to 1e-9 of itself), never rounded to
    0% or 100%.

    >>> shown_percent(0.95), shown_percent(0.999), shown_percent(0.9999999999), shown_percent(1e-12)
    ('95%', '99.9%', '99.99999999%', '0.0000000001%')
    """
    percent = level * 100
    for decimals in range(21):
        text = f"{percent:.{decimals}f}"
        if float(text) not in (0.0, 100.0) and math.isclose(float(text), percent, rel_tol=1e-9):
            return f"{text}%"
    return f"{percent!r}%"
