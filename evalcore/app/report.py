"""The report for a paper: one self-contained HTML file (no script, no external address: it reads offline and a
Content-Security-Policy forbids loading anything) holding the leaderboard with its confidence intervals, the
significance grids, the paired effect sizes with the repeated-measures ANOVA and Tukey's HSD, the ablation curves over
alpha and n, the 11-point precision-recall curves, the measure settings, the input files with their content digests,
the evalcore version and the command line that recreates it.

:func:`report_html` is pure: it writes the text of a :class:`PaperReport`, escaping every text a user gave (system
names, file names, the command) and every table cell's text (:func:`cell`). The command line's ``report`` and the
Leaderboard's download build the :class:`PaperReport` (:func:`ablation_curves`, :func:`file_inputs`,
:func:`workspace_report`) and write or offer that text. Numbers are shown as every page shows a score
(:data:`~evalcore.io.tables.SCORE_DECIMALS` decimals), so the leaderboard reads as ``evaluate --json`` rounded to as
many decimals.
"""

from __future__ import annotations

import html
import math
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from evalcore.app.scores import MetricEffects, PrecisionRecall, metric_effects
from evalcore.app.workspace import Workspace, file_digest
from evalcore.data import Run
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.results import Results
from evalcore.io.tables import GROUP_TITLES, SCORE_DECIMALS, best_systems, format_p_value, grouped_metrics, shown_percent
from evalcore.metrics.registry import parse_metric
from evalcore.readers import DEFAULT_MAX_RUN_BYTES
from evalcore.readers.files import read_bytes
from evalcore.studies.ablation import HOPS, ablation_grid
from evalcore.version import __version__

#: The report's small ablation grid: alpha at the report's n, and n (every hop count the Ablation page sweeps) at
#: the report's alpha; the report's own alpha is added where it is not among these.
REPORT_ALPHAS = (0.0, 0.25, 0.5, 0.75, 1.0)
REPORT_HOPS = HOPS
#: The cut-off whose graded metrics get a significance grid and whose nn-CUI the ablation curves show, when chosen.
HEADLINE_K = 10
#: Corrected p-values below this are marked as differences unlikely to be chance (the Leaderboard's green).
SIGNIFICANCE_LEVEL = 0.05
#: Line colours of the curves, one per system in order (then again from the first).
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf")
#: Nothing may be loaded from anywhere: styles are inline, there is no script and no image file.
CONTENT_POLICY = "default-src 'none'; style-src 'unsafe-inline'"
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; line-height: 1.4; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; vertical-align: top; }
th:first-child, td:first-child, table.settings td, table.inputs td, table.inputs th { text-align: left; }
td.best .mean { font-weight: bold; }
td.best { background: #d4edda; }
.ci { color: #555; font-size: 0.85em; }
td.significant { background: #b7e1c1; }
td.chance { background: #f8d7c9; }
td.self { background: #eee; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.85em; }
pre { background: #f5f5f5; padding: 0.8em; white-space: pre-wrap; word-break: break-all; }
.swatch { display: inline-block; width: 1.5em; height: 0.3em; vertical-align: middle; margin-right: 0.3em; }
.legend { list-style: none; padding: 0; font-size: 0.9em; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5em; }
svg text { font-size: 11px; fill: #333; }
"""


@dataclass(frozen=True)
class InputFile:
    """One file the report's numbers were computed from: its role, its name as given and its content digest
    (:func:`evalcore.app.workspace.file_digest` of its bytes, as the dashboard's Data page digests an upload)."""

    role: str
    name: str
    digest: str


@dataclass(frozen=True)
class AblationCurves:
    """The mean of ``metric`` per system against alpha at the report's n (``by_alpha``) and against n at the
    report's alpha (``by_n``): frames with columns system, alpha, n, metric, value
    (:func:`evalcore.studies.ablation.ablation_grid`)."""

    metric: str
    by_alpha: pd.DataFrame
    by_n: pd.DataFrame


@dataclass(frozen=True)
class PaperReport:
    """What the report shows: an evaluation (``results``, under ``relevance`` and ``kg_mode`` at the cut-offs
    ``cutoffs``), the metrics with a significance grid (``compared``), the ablation curves (None where they cannot
    be drawn: ``curves_note`` says why), the inputs with their digests, the command that recreates it, notes on
    what that command does not cover, the effect sizes and ANOVA of the compared metrics (``effects``, none: no
    section) and the 11-point precision-recall curves (``precision_recall``, None: no section)."""

    results: Results
    relevance: Relevance
    kg_mode: str
    cutoffs: tuple[int, ...]
    compared: tuple[str, ...]
    inputs: tuple[InputFile, ...]
    command: str
    curves: AblationCurves | None = None
    curves_note: str = ""
    notes: tuple[str, ...] = ()
    effects: tuple[MetricEffects, ...] = ()
    precision_recall: PrecisionRecall | None = None
    version: str = __version__


# --- what the report holds -------------------------------------------------------------------------------------

def headline_k(cutoffs: Sequence[int]) -> int:
    """The cut-off of the significance grids and the curves: :data:`HEADLINE_K` when chosen, else the largest.

    >>> headline_k((5, 10, 30)), headline_k((5, 20))
    (10, 20)
    """
    return HEADLINE_K if HEADLINE_K in cutoffs else max(cutoffs)


def compared_metrics(metrics: Sequence[str], cutoffs: Sequence[int], first: Sequence[str] = ()) -> tuple[str, ...]:
    """The metrics given a significance grid: ``first`` (a page's chosen metric), then the NDCG metrics at
    :func:`headline_k` (CUI, nn-CUI, the chosen measure's, qrels-NDCG); the first metric where there is none.

    >>> compared_metrics(["CUI@5", "CUI@10", "nn-CUI@10", "P@10[organ]"], (5, 10))
    ('CUI@10', 'nn-CUI@10')
    >>> compared_metrics(["qrels-NDCG@5", "qrels-NDCG@10"], (5, 10)), compared_metrics(["MAP@10", "R@10"], (10,), ["R@10"])
    (('qrels-NDCG@10',), ('R@10',))
    """
    k = headline_k(cutoffs)
    graded = [m for m in metrics if parse_metric(m).family.key == "CUI" and parse_metric(m).k == k]
    chosen = [m for m in first if m in metrics]
    return tuple(dict.fromkeys([*chosen, *graded])) or tuple(metrics[:1])


def report_effects(results: Results, compared: Sequence[str]) -> tuple[MetricEffects, ...]:
    """The effect sizes, ANOVA and Tukey's HSD of each compared metric (:func:`evalcore.app.scores.metric_effects`);
    none where fewer than two systems are compared."""
    return tuple(metric_effects(results, metric) for metric in compared) if len(results.systems) >= 2 else ()


def file_inputs(files: Sequence[tuple[str, str | Path]]) -> tuple[InputFile, ...]:
    """``(role, path)`` pairs as :class:`InputFile` rows, each file's bytes read once (a regular file within the
    run budget, :data:`~evalcore.readers.DEFAULT_MAX_RUN_BYTES`) and digested as the dashboard digests an upload."""
    return tuple(InputFile(role, str(path), file_digest(read_bytes(path, str(path), DEFAULT_MAX_RUN_BYTES)[0]))
                 for role, path in files)


def ablation_curves(evaluator: Evaluator, runs: Sequence[Run], relevance: Relevance, cutoffs: Sequence[int],
                    progress: Callable[[float, str], None] | None = None) -> AblationCurves:
    """nn-CUI@K (K: :func:`headline_k`) of ``runs`` against alpha (:data:`REPORT_ALPHAS` and the report's own) at
    the report's n, and against n (:data:`REPORT_HOPS`) at the report's alpha. The runs' lists stay fixed; only
    the relevance grading them moves (:func:`evalcore.studies.ablation.ablation_grid`)."""
    alpha, hops = relevance.nn_iou.params["alpha"], relevance.nn_iou.hops
    metric = f"nn-CUI@{headline_k(cutoffs)}"
    alphas = sorted({*REPORT_ALPHAS, alpha})
    share = len(alphas) / (len(alphas) + len(REPORT_HOPS))

    def part(start: float, width: float) -> Callable[[float, str], None] | None:
        return (lambda fraction, text: progress(start + width * fraction, text)) if progress else None

    by_alpha = ablation_grid(evaluator, runs, [metric], alphas=alphas, hops=(hops,), with_relevance_retrieval=False,
                             relevance=relevance, progress=part(0.0, share))
    by_n = ablation_grid(evaluator, runs, [metric], alphas=(alpha,), hops=REPORT_HOPS, with_relevance_retrieval=False,
                         relevance=relevance, progress=part(share, 1 - share))
    return AblationCurves(metric, by_alpha, by_n)


def workspace_report(ws: Workspace, evaluator: Evaluator, results: Results, relevance: Relevance, kg_mode: str,
                     cutoffs: Sequence[int], first: Sequence[str] = (),
                     precision_recall: PrecisionRecall | None = None) -> PaperReport:
    """The report of the dashboard's leaderboard: ``results`` of the loaded runs and the chosen baselines under the
    sidebar's settings, the curves over the loaded runs, the loaded files by name and digest, and the command that
    recreates the leaderboard of the loaded runs from those files. ``first``: the page's chosen metric, whose
    significance grid (and effect sizes) come first; ``precision_recall``: the systems' 11-point curves
    (:func:`evalcore.app.scores.precision_recall_curves`), computed by the caller, who holds every system's run."""
    inputs = [InputFile("concept sets", ws.concepts.source, ws.digests["concepts"])]
    inputs += [InputFile("knowledge graph", name, digest) for name, (digest, _) in ws.kg_files.items()]
    inputs += [InputFile(f"run (system {name})", run.source, digest) for name, (digest, run) in ws.runs.items()]
    if ws.labels is not None:
        inputs.append(InputFile("labels", ws.labels.source, ws.digests["labels"]))
    runs = [run for _, run in ws.runs.values()]
    computed = [system for system in results.systems if system not in ws.runs]
    notes = (f"Computed by the dashboard, not read from a file (the command above leaves them out; `retrieve` writes "
             f"them as runs): {', '.join(computed)}.",) if computed else ()
    compared = compared_metrics(results.metrics, cutoffs, first)
    return PaperReport(
        results, relevance, kg_mode, tuple(cutoffs), compared, tuple(inputs),
        dashboard_command(ws, results, relevance, kg_mode, cutoffs),
        ablation_curves(evaluator, runs, relevance, cutoffs) if runs else None,
        "" if runs else "No run files are loaded: the curves show loaded runs, whose lists stay fixed while alpha "
                        "and n move.", notes, report_effects(results, compared), precision_recall)


def dashboard_command(ws: Workspace, results: Results, relevance: Relevance, kg_mode: str,
                      cutoffs: Sequence[int]) -> str:
    """``cbir-lens report`` over the loaded files by their names, every setting of the leaderboard spelled out."""
    words = ["cbir-lens", "report", "--concepts", ws.concepts.source]
    for name in ws.kg_files:
        words += ["--kg", name]
    if ws.kg_files:  # without a graph nothing reads them, and report refuses them
        words += ["--kg-mode", kg_mode, "--alpha", repr(relevance.nn_iou.params["alpha"]),
                  "--n", str(relevance.nn_iou.hops)]
    files = list(dict.fromkeys(run.source for _, run in ws.runs.values()))
    if files:
        words += ["--run", *files]
    words += ["--k", *map(str, cutoffs)]
    if ws.labels is not None:
        words += ["--labels", ws.labels.source]
    words += ["--metrics", *results.metrics, "--gain", relevance.gain, "--threshold", repr(relevance.threshold)]
    if relevance.measure is not None:
        words += ["--measure", relevance.measure.name]
    words += ["--ties", relevance.ties, "--query-image", relevance.query_image, "--out", "report.html"]
    return shlex.join(words)


# --- the HTML ------------------------------------------------------------------------------------------------

def escaped(text: object) -> str:
    """Text as HTML shows it, in an element or a quoted attribute: ``<``, ``>``, ``&`` and both quotes escaped.

    >>> escaped("<script>alert('x')</script>")
    '&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;'
    """
    return html.escape(str(text), quote=True)


def cell(text: object, css_class: str = "") -> str:
    """One table cell holding ``text``, escaped once, here (:func:`escaped`): every plain cell of the report is
    written by this, so that a p-value's ``< 0.001`` or a file name's ``&`` reads as the text it is.

    >>> cell("< 0.001"), cell("—", "self")
    ('<td>&lt; 0.001</td>', '<td class="self">—</td>')
    """
    attribute = f' class="{escaped(css_class)}"' if css_class else ""
    return f"<td{attribute}>{escaped(text)}</td>"


def score(value: float | None) -> str:
    """A score as the report shows it (:data:`~evalcore.io.tables.SCORE_DECIMALS` decimals), "—" when undefined.

    >>> score(0.91012), score(float("nan")), score(None)
    ('0.9101', '—', '—')
    """
    return "—" if value is None or not math.isfinite(value) else f"{value:.{SCORE_DECIMALS}f}"


def report_html(report: PaperReport) -> str:
    """The report as one HTML document that loads nothing: no script, no link, no image file; figures are inline
    SVG. Every text a user gave is escaped."""
    results = report.results
    params = results.params
    title = "CBIR Lens report"
    pool = f", {params['candidates']:,} images in the pool" if params.get("candidates") is not None else ""
    summary = f"{len(results.systems)} systems, {len(results.metrics)} metrics{pool}; evalcore {report.version}."
    # The effect sizes and the precision-recall curves are sections only where the report holds them.
    sections = [leaderboard_section(report), significance_section(report),
                *([effects_section(report)] if report.effects else []), curves_section(report),
                *([precision_recall_section(report)] if report.precision_recall is not None else []),
                settings_section(report), inputs_section(report)]
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_POLICY}">',
        f"<title>{title}</title>", f"<style>{STYLE}</style>", "</head>", "<body>", f"<h1>{title}</h1>",
        f"<p>{escaped(summary)}</p>", *sections, "</body>", "</html>", ""])


def leaderboard_section(report: PaperReport) -> str:
    """One table per metric family (its columns the cut-offs), each cell ``mean [CI low, CI high]``, the best mean
    of each metric marked; the cells carry their system and metric (``data-system``, ``data-metric``)."""
    results = report.results
    table = results.table()
    by_cell = {(row.system, row.metric): row for row in table.itertuples(index=False)}
    best = {metric: set(best_systems(table, metric)) for metric in results.metrics}
    statistics = results.statistics
    parts = ["<h2>Leaderboard</h2>",
             f"<p>Mean over queries with its {shown_percent(statistics.confidence)} percentile bootstrap confidence interval "
             f"[low, high] ({statistics.bootstrap_samples:,} resamples, seed {statistics.seed}); the best mean of each "
             "metric is marked. Numbers as <code>evaluate --json</code> gives them, rounded to "
             f"{SCORE_DECIMALS} decimals.</p>"]
    for group, families in grouped_metrics(results.metrics).items():
        parts.append(f"<h3>{escaped(GROUP_TITLES[group])}</h3>")
        for family, metrics in families.items():
            head = "".join(f"<th>{escaped(metric)}</th>" for metric in metrics)
            rows = []
            for system in results.systems:
                cells = "".join(leaderboard_cell(system, metric, by_cell[(system, metric)], system in best[metric])
                                for metric in metrics)
                rows.append(f"<tr>{cell(system)}{cells}</tr>")
            parts.append(f'<table class="leaderboard" data-family="{escaped(family)}"><thead><tr><th>system</th>{head}'
                         f"</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    return "\n".join(parts)


def leaderboard_cell(system: str, metric: str, row: tuple, is_best: bool) -> str:
    """One leaderboard cell from a row of :meth:`Results.table`: mean and interval, the number of queries in its
    tooltip."""
    _, _, mean, low, high, queries = row
    return (f'<td class="{"best" if is_best else "score"}" data-system="{escaped(system)}" '
            f'data-metric="{escaped(metric)}" title="{int(queries):,} queries"><span class="mean">{escaped(score(mean))}'
            f'</span> <span class="ci">[<span class="low">{escaped(score(low))}</span>, <span class="high">'
            f'{escaped(score(high))}</span>]</span></td>')


def significance_section(report: PaperReport) -> str:
    """Per compared metric: the grid of Holm-corrected randomization p-values between systems, then every pair."""
    results = report.results
    statistics = results.statistics
    parts = ["<h2>Significance</h2>"]
    if len(results.systems) < 2:
        return "\n".join([*parts, "<p>One system: nothing to compare.</p>"])
    parts.append(f"<p>Paired two-sided randomization test ({statistics.randomization_samples:,} randomizations, seed "
                 f"{statistics.seed}) and paired t-test between each pair of systems on the queries both were scored "
                 "on; p-values corrected for the pairs compared (Holm). Green: corrected randomization p &lt; "
                 f"{SIGNIFICANCE_LEVEL:g}. No randomization p-value is below 1/({statistics.randomization_samples:,} "
                 f"+ 1) = {statistics.smallest_randomization_p:.2g} before the correction.</p>")
    for metric in report.compared:
        comparisons = results.comparisons(metric)
        holm = {}
        for pair in comparisons:
            holm[(pair.system_a, pair.system_b)] = holm[(pair.system_b, pair.system_a)] = pair.p_randomization_holm
        head = "".join(f"<th>{escaped(system)}</th>" for system in results.systems)
        rows = []
        for a in results.systems:
            cells = "".join(significance_cell(a, b, holm.get((a, b))) for b in results.systems)
            rows.append(f"<tr>{cell(a)}{cells}</tr>")
        parts.append(f"<h3>{escaped(metric)}</h3>")
        parts.append(f'<table class="significance" data-metric="{escaped(metric)}"><thead><tr><th></th>{head}</tr>'
                     f"</thead><tbody>{''.join(rows)}</tbody></table>")
        pairs = "".join(
            "<tr>" + "".join(cell(text) for text in (
                pair.system_a, pair.system_b, signed(pair.mean_difference), format_p_value(pair.p_randomization),
                format_p_value(pair.p_t_test), format_p_value(pair.p_randomization_holm),
                format_p_value(pair.p_t_test_holm), f"{pair.queries:,}")) + "</tr>" for pair in comparisons)
        parts.append('<table class="pairs"><thead><tr><th>system A</th><th>system B</th><th>A − B</th><th>p rand.</th>'
                     "<th>p t-test</th><th>p rand. Holm</th><th>p t-test Holm</th><th>queries</th></tr></thead>"
                     f"<tbody>{pairs}</tbody></table>")
    return "\n".join(parts)


def significance_cell(a: str, b: str, p_value: float | None) -> str:
    """A cell of the grid: the corrected p-value, green below :data:`SIGNIFICANCE_LEVEL`; "—" on the diagonal and
    where the p-value is undefined (no query both systems scored), styled as neither significant nor chance.

    >>> significance_cell("a", "b", float("nan")), significance_cell("a", "b", 0.5)
    ('<td class="self">—</td>', '<td class="chance">0.500</td>')
    """
    if a == b or p_value is None or not math.isfinite(p_value):
        return cell("—", "self")
    return cell(format_p_value(p_value), "significant" if p_value < SIGNIFICANCE_LEVEL else "chance")


def signed(value: float) -> str:
    """A difference with its sign.

    >>> signed(0.56131), signed(-0.02), signed(float("nan"))
    ('+0.5613', '-0.0200', '—')
    """
    return "—" if not math.isfinite(value) else f"{value:+.{SCORE_DECIMALS}f}"


def standardized(value: float) -> str:
    """A standardised difference (Cohen's d_z, Tukey's q) with its sign and two decimals.

    >>> standardized(1.93649), standardized(-0.4), standardized(float("inf")), standardized(float("nan"))
    ('+1.94', '-0.40', '+inf', '—')
    """
    return "—" if math.isnan(value) else f"{value:+.2f}"


def interval(low: float, high: float, shown: Callable[[float], str] = score) -> str:
    """An interval as the report writes one, ``[low, high]``.

    >>> interval(-0.01234, 0.5), interval(1.5, 2.25, standardized)
    ('[-0.0123, 0.5000]', '[+1.50, +2.25]')
    """
    return f"[{shown(low)}, {shown(high)}]"


def effects_section(report: PaperReport) -> str:
    """Per compared metric: every pair's mean difference and Cohen's d_z with their bootstrap intervals, the one-way
    repeated-measures ANOVA over the systems and Tukey's HSD with simultaneous intervals
    (:func:`evalcore.app.scores.metric_effects`)."""
    statistics = report.results.statistics
    confidence = shown_percent(statistics.confidence)
    parts = ["<h2>Effect sizes and ANOVA</h2>",
             f"<p>How large each difference is: the mean over queries of A − B and Cohen's d_z (that mean divided by "
             f"the standard deviation of the differences), each with its {confidence} percentile bootstrap interval "
             f"over the queries both systems were scored on ({statistics.bootstrap_samples:,} resamples, seed "
             f"{statistics.seed}). Then one test over all the systems: the one-way repeated-measures ANOVA, queries "
             f"as subjects, on the queries every system was scored on, and Tukey's HSD on its residual mean square "
             f"with {confidence} simultaneous intervals. Green: p &lt; {SIGNIFICANCE_LEVEL:g}.</p>"]
    for effects in report.effects:
        metric = escaped(effects.metric)
        sizes = "".join("<tr>" + "".join(cell(text) for text in (
            pair.system_a, pair.system_b, f"{pair.queries:,}", signed(pair.mean_difference),
            interval(pair.difference_low, pair.difference_high, signed), standardized(pair.d_z),
            interval(pair.d_z_low, pair.d_z_high, standardized))) + "</tr>" for pair in effects.sizes.itertuples())
        parts.append(f"<h3>{metric}</h3>")
        parts.append(f'<table class="effects" data-metric="{metric}"><thead><tr><th>system A</th><th>system B</th>'
                     f"<th>queries</th><th>A − B</th><th>{confidence} interval</th><th>d_z</th><th>{confidence} "
                     f"interval</th></tr></thead><tbody>{sizes}</tbody></table>")
        anova = next(effects.anova.itertuples())
        parts.append(f'<table class="anova" data-metric="{metric}"><thead><tr><th>systems</th><th>queries</th>'
                     "<th>F</th><th>df systems</th><th>df error</th><th>p</th><th>partial η²</th>"
                     "<th>generalized η²</th></tr></thead><tbody><tr>" + "".join(cell(text) for text in (
                         f"{anova.systems:,}", f"{anova.queries:,}", f"{anova.f:.2f}", f"{anova.df_systems:,}",
                         f"{anova.df_error:,}")) + significance_cell("", "-", anova.p)
                     + cell(f"{anova.partial_eta_squared:.3f}") + cell(f"{anova.generalized_eta_squared:.3f}")
                     + "</tr></tbody></table>")
        tukey = "".join("<tr>" + "".join(cell(text) for text in (
            pair.system_a, pair.system_b, signed(pair.mean_difference), interval(pair.low, pair.high, signed),
            f"{pair.q:.2f}")) + significance_cell("", "-", pair.p_tukey) + "</tr>"
            for pair in effects.tukey.itertuples())
        parts.append(f'<table class="tukey" data-metric="{metric}"><thead><tr><th>system A</th><th>system B</th>'
                     f"<th>A − B</th><th>{confidence} simultaneous interval</th><th>q</th><th>p Tukey</th></tr>"
                     f"</thead><tbody>{tukey}</tbody></table>")
    return "\n".join(parts)


def curves_section(report: PaperReport) -> str:
    """The ablation curves as inline SVG, their legend and their values."""
    parts = ["<h2>Ablation</h2>"]
    curves = report.curves
    if curves is None:
        return "\n".join([*parts, f"<p>{escaped(report.curves_note or 'No curves.')}</p>"])
    nn = report.relevance.nn_iou
    alpha, hops = nn.params["alpha"], nn.hops
    parts.append(f"<p>Mean {escaped(curves.metric)} over queries (NDCG graded by nn-IoU, whose parameters are alpha "
                 f"and n) of each run against alpha at n = {hops}, and against n at alpha = {alpha:g}. Each run's lists "
                 "stay as they are; only the relevance grading them moves: every other setting (the gain, the "
                 "threshold, queries without a relevant item, tied scores, a query's own image) is the "
                 "leaderboard's, listed below. At alpha = 0 or n = 0, nn-IoU is IoU.</p>")
    systems = list(dict.fromkeys([*curves.by_alpha.system, *curves.by_n.system]))
    colours = {system: COLOURS[i % len(COLOURS)] for i, system in enumerate(systems)}
    parts.append('<div class="charts">'
                 + line_chart(curves.by_alpha, "alpha", f"alpha (n = {hops})", curves.metric, colours)
                 + line_chart(curves.by_n, "n", f"n (alpha = {alpha:g})", curves.metric, colours) + "</div>")
    parts.append('<ul class="legend">' + "".join(
        f'<li><span class="swatch" style="background: {colour}"></span>{escaped(system)}</li>'
        for system, colour in colours.items()) + "</ul>")
    for frame, axis in ((curves.by_alpha, "alpha"), (curves.by_n, "n")):
        wide = frame.pivot(index="system", columns=axis, values="value").reindex(list(dict.fromkeys(frame.system)))
        head = "".join(f"<th>{axis} = {value:g}</th>" for value in wide.columns)
        rows = "".join(f"<tr>{cell(system)}" + "".join(cell(score(v)) for v in values) + "</tr>"
                       for system, values in zip(wide.index, wide.to_numpy()))
        parts.append(f'<table class="curve" data-axis="{axis}"><thead><tr><th>system</th>{head}</tr></thead>'
                     f"<tbody>{rows}</tbody></table>")
    return "\n".join(parts)


def precision_recall_section(report: PaperReport) -> str:
    """The 11-point interpolated precision-recall curves of the systems as inline SVG, their legend and their
    values (:func:`evalcore.app.scores.precision_recall_table`)."""
    curves = report.precision_recall
    assert curves is not None  # the section is written only where the report holds the curves
    names = curves.names
    relevant = (f"a grade at least {report.relevance.relevance_level}" if curves.relevance == "qrels"
                else f"a relevance at least {report.relevance.threshold:g}")
    frame = curves.table.rename(columns={"precision": "value"})
    systems = list(dict.fromkeys(frame.system))
    colours = {system: COLOURS[i % len(COLOURS)] for i, system in enumerate(systems)}
    parts = ["<h2>Precision-recall</h2>",
             f"<p>trec_eval's 11-point interpolated precision: at each recall level L = 0, 0.1, ..., 1, the best "
             "precision at any rank of the list where a share L of the query's relevant images are found, averaged "
             f"over queries (the means of <code>{escaped(names[0])}</code> ... <code>{escaped(names[-1])}</code>); "
             f"relevant: {escaped(relevant)}.</p>",
             '<div class="charts">' + line_chart(frame, "recall", "recall", "interpolated precision", colours)
             + "</div>",
             '<ul class="legend">' + "".join(
                 f'<li><span class="swatch" style="background: {colour}"></span>{escaped(system)}</li>'
                 for system, colour in colours.items()) + "</ul>"]
    wide = frame.pivot(index="system", columns="recall", values="value").reindex(systems)
    head = "".join(f"<th>recall = {value:g}</th>" for value in wide.columns)
    rows = "".join(f"<tr>{cell(system)}" + "".join(cell(score(v)) for v in values) + "</tr>"
                   for system, values in zip(wide.index, wide.to_numpy()))
    parts.append(f'<table class="precision-recall" data-relevance="{escaped(curves.relevance)}"><thead><tr>'
                 f"<th>system</th>{head}</tr></thead><tbody>{rows}</tbody></table>")
    return "\n".join(parts)


def line_chart(frame: pd.DataFrame, x: str, x_title: str, y_title: str, colours: Mapping[str, str],
               width: int = 460, height: int = 300) -> str:
    """One line per system of ``frame`` (``value`` against column ``x``), y from 0 to 1, as inline SVG; each point's
    value in its tooltip.

    >>> svg = line_chart(pd.DataFrame({"system": ["a", "a"], "n": [0, 1], "value": [0.2, 0.4]}), "n", "n", "y",
    ...                  {"a": "#000"})
    >>> svg.startswith("<svg") and svg.count("<circle") == 2 and "http" not in svg
    True
    """
    left, right, top, bottom = 50, 15, 15, 45
    xs = sorted(set(frame[x]))
    low, high = (xs[0], xs[-1]) if xs[-1] > xs[0] else (xs[0] - 1, xs[0] + 1)

    def px(value: float) -> float:
        return left + (value - low) / (high - low) * (width - left - right)

    def py(value: float) -> float:
        return top + (1 - value) * (height - top - bottom)

    shapes = [f'<line x1="{left}" y1="{py(0)}" x2="{width - right}" y2="{py(0)}" stroke="#333"/>',
              f'<line x1="{left}" y1="{py(0)}" x2="{left}" y2="{py(1)}" stroke="#333"/>']
    for tick in (0, 0.25, 0.5, 0.75, 1):
        shapes.append(f'<line x1="{left}" y1="{py(tick)}" x2="{width - right}" y2="{py(tick)}" stroke="#eee"/>'
                      f'<text x="{left - 6}" y="{py(tick) + 4}" text-anchor="end">{tick:g}</text>')
    for value in xs:
        shapes.append(f'<text x="{px(value):.1f}" y="{py(0) + 16}" text-anchor="middle">{value:g}</text>')
    for system, curve in frame.groupby("system", sort=False):
        points = [(float(a), float(v)) for a, v in sorted(zip(curve[x], curve.value)) if math.isfinite(v)]
        colour = colours[system]
        path = " ".join(f"{px(a):.1f},{py(v):.1f}" for a, v in points)
        shapes.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        shapes += [f'<circle cx="{px(a):.1f}" cy="{py(v):.1f}" r="3" fill="{colour}"><title>{escaped(system)}: '
                   f"{x} = {a:g}, {score(v)}</title></circle>" for a, v in points]
    shapes.append(f'<text x="{(left + width - right) / 2}" y="{height - 8}" text-anchor="middle">{escaped(x_title)}'
                  "</text>")
    shapes.append(f'<text x="14" y="{(top + height - bottom) / 2}" text-anchor="middle" '
                  f'transform="rotate(-90 14 {(top + height - bottom) / 2})">{escaped(y_title)}</text>')
    return (f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img" '
            f'aria-label="{escaped(y_title)} against {escaped(x_title)}">{"".join(shapes)}</svg>')


def settings_section(report: PaperReport) -> str:
    """The relevance measure and its parameters, the cut-offs, the KG mode and every other setting of the numbers."""
    relevance, results = report.relevance, report.results
    statistics, params = results.statistics, results.params
    chosen = relevance.measure if relevance.measure is not None else relevance.nn_iou
    graded_by = {parse_metric(metric).relevance for metric in results.metrics}
    judged = "qrels" in graded_by
    # Under judged grades no metric is graded by nn-IoU, so its measure, the KG and its mode set no number.
    by_concepts = [("nn- metrics graded by", relevance.nn_iou.name),
                   ("knowledge graph", "loaded" if params.get("kg") else "none: nn-IoU is IoU"),
                   ("KG mode", report.kg_mode)] if graded_by - {"qrels", None} else []
    rows = [
        ("relevance measure", "judged grades (qrels)" if judged else chosen.name),
        ("its parameters", f"relevance level {relevance.relevance_level}" if judged else
         ", ".join(f"{key} = {value:g}" for key, value in chosen.params.items()) or "none"),
        *by_concepts[:2],
        ("cut-offs K", ", ".join(map(str, report.cutoffs))),
        *by_concepts[2:],
        ("NDCG gain", relevance.gain),
        ("MAP / recall relevance threshold", f"{relevance.threshold:g}"),
        ("queries without a relevant item", relevance.empty_queries),
        ("tied scores ordered by", relevance.ties),
        ("a query's own image", relevance.query_image),
        ("confidence", f"{statistics.confidence:g}"),
        ("bootstrap resamples", f"{statistics.bootstrap_samples:,}"),
        ("randomizations", f"{statistics.randomization_samples:,}"),
        ("seed", str(statistics.seed)),
        ("images in the pool", "—" if params.get("candidates") is None else f"{params['candidates']:,}"),
    ]
    body = "".join(f"<tr>{cell(name)}{cell(value)}</tr>" for name, value in rows)
    counted = ("queries_evaluated", "queries_unknown", "retrieved_unknown_ids")
    queries = "".join(f"<tr>{cell(system)}" + "".join(cell(f"{counts.get(key, 0):,}") for key in counted) + "</tr>"
                      for system, counts in results.counts.items())
    return "\n".join(["<h2>Measure settings</h2>", f'<table class="settings"><tbody>{body}</tbody></table>',
                      '<table class="counts"><thead><tr><th>system</th><th>queries evaluated</th><th>unknown queries'
                      f"</th><th>retrieved unknown IDs</th></tr></thead><tbody>{queries}</tbody></table>"])


def inputs_section(report: PaperReport) -> str:
    """The input files with their digests, the version and the command that recreates the report."""
    rows = "".join(f"<tr>{cell(item.role)}{cell(item.name)}<td><code>{escaped(item.digest)}"
                   "</code></td></tr>" for item in report.inputs)
    notes = "".join(f"<p>{escaped(note)}</p>" for note in report.notes)
    return "\n".join([
        "<h2>Inputs</h2>",
        "<p>Content digest: SHA-256 of the file's bytes, as <code>evalcore.cache_keys.content_digest</code> "
        "serialises them (the dashboard's Data page digests an upload the same way).</p>",
        f'<table class="inputs"><thead><tr><th>role</th><th>file</th><th>content digest</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>",
        "<h2>Recreate</h2>",
        f"<p>evalcore {escaped(report.version)}. From the folder the file names are relative to, every option spelled "
        "out, defaults included:</p>",
        f'<pre class="command"><code>{escaped(report.command)}</code></pre>', notes])
