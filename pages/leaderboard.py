"""Leaderboard: systems x metrics with 95% CIs, the Table-1 baselines, significance and downloads."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.background import prepare_neighbours
from dashboard.computed import (
    LeaderboardView,
    clinician_report,
    effects_of,
    evaluation,
    evaluation_with_progress,
    evaluator_of,
    graded_qrels_text,
    grouping_choices,
    judged_leaderboard,
    kg_of,
    leaderboard_metric_names,
    leaderboard_report,
    precision_recall,
    query_attribute_columns,
    scores_by_group,
    start_comparisons,
    stored_judgments_qrels,
    summary_of,
)
from dashboard.library import (
    BUILT_IN_GROUPINGS,
    NO_GROUP,
    SCORE_DECIMALS,
    SCORE_FORMAT,
    CBIRLensError,
    Scores,
    available_baselines,
    best_systems,
    curve_relevance,
    default_baselines,
    describe_metric,
    equivalent_metric,
    focus_metric,
    format_p_value,
    grouped_metrics,
    label_query_counts,
    latex_table,
    results_csv,
    spreadsheet_csv,
    summary_metrics,
    tie_message,
    wide_summary,
)
from dashboard.session import audience, through_app
from dashboard.sidebar import controls
from dashboard.ui import (
    choose_flag,
    choose_many,
    choose_one,
    escape_markdown,
    keep_default_for_dataset,
    keep_in_address,
    linked_text,
    page_with_concepts,
    plain_settings,
    shown_system,
)
from dashboard.wording import (
    family_heading,
    family_label,
    focus_chart_titles,
    group_title,
    metric_column,
    metric_header,
    metric_help,
    refusal,
    say,
    settings_line,
    significance,
    words,
)

through_app()

BEST_STYLE = "background-color: #d4edda; font-weight: bold"

ws = page_with_concepts("Leaderboard")
settings = controls()
#: The session's reader, bound here for the choosers' labels (drawn again outside this run); the words both readers
#: are shown come from dashboard.wording.
who = audience()
#: What only a researcher is shown: the ties, the tests' details, more statistics, the LaTeX table, the qrels, the
#: judged scores, the counts.
researcher = who == "researcher"
st.write(say("leaderboard_intro"))

options = available_baselines(ws)
keep_default_for_dataset("baselines", ws, default_baselines(ws))
baselines = choose_many(st.multiselect, say("baselines_label"), options, "baselines", default=default_baselines(ws),
                        format_func=shown_system, help=say("baselines_help"))
run_names = tuple(ws.runs)
# The results name a baseline by its title: the chosen baselines' are shown in the reader's words, a run by its name
# (even one titled like a baseline that is not chosen).
shown_titles = {baseline.title: shown_system(baseline) for baseline in baselines}


def shown_name(system: str) -> str:
    return shown_titles.get(system, system)


if not run_names and not baselines:
    st.info(say("no_systems"))
    st.stop()

measure_key = settings.measure.key
threshold = settings.options().threshold
try:
    evaluator_of(ws, settings.kg_mode)  # the engine, built here (and noted for the sidebar) before the metrics
    metrics = leaderboard_metric_names(ws, settings)
except CBIRLensError as error:
    st.error(words(refusal(error)))
    st.stop()
# Widgets keep their state by key while their options change; a choice the new options lack (a metric of the
# measure chosen before) moves to the same metric under the new measure before the widget is drawn.
default_focus = focus_metric(metrics)
# A link names the metric in focus (the address keeps it, below); a name the metrics lack is said and left out.
linked_focus = linked_text("focus_metric", lambda name: equivalent_metric(name, metrics, measure_key) is not None) \
    if "focus_metric" not in st.session_state else None
st.session_state["focus_metric"] = equivalent_metric(st.session_state.get("focus_metric", linked_focus), metrics,
                                                     measure_key) or default_focus

groups = grouped_metrics(metrics)
# One group at a time, and only its metrics (and the one in focus) are computed: an alpha change recomputes what is
# shown; each table is one metric family, its columns the K values.
group = choose_one(st.segmented_control, say("metrics_label"), list(groups),
                   "leaderboard_group", required=True,
                   format_func=lambda g: group_title(g, who)) or next(iter(groups))
families = groups[group]
family = choose_one(st.selectbox, say("family_label"), list(families),
                    "leaderboard_family",
                    format_func=lambda f: family_label(f, families[f][0], threshold, who)) if group == "other" else None
view = LeaderboardView(group, family, st.session_state["focus_metric"])

try:
    result = evaluation_with_progress(ws, run_names, tuple(baselines), settings, view)
except CBIRLensError as error:
    st.error(words(refusal(error)))
    st.stop()


def whole_table() -> Scores:
    """Every metric of the table, for the downloads: computed when one is clicked, not at every redraw."""
    return evaluation(ws, run_names, tuple(baselines), settings)


if researcher:
    for system, counts in result.counts.items():
        tied = tie_message(shown_name(system), counts, "rank", "the command line's --ties")
        if tied:
            st.caption(tied + ".")
if len(result.systems) >= 2:
    # The significance tests of the chosen metric run while the bootstrap intervals are computed and the tables
    # drawn (result.comparisons below then reads them back): after an alpha change, about 0.1 s of the page's
    # wall time that no longer follows the intervals.
    start_comparisons(result, st.session_state["focus_metric"])
summary: pd.DataFrame = summary_of(result)
# The next slider step's work starts now, in the background, while the reader reads this one.
prepare_neighbours(ws, run_names, tuple(baselines), settings, view)


def help_of(metric: str) -> str:
    return describe_metric(metric, threshold)


#: Pixels of an interval column (low, high): its four-decimal values whole ("0.9253"), narrower than Streamlit's
#: "small" (75), so that the system column keeps room for a long name.
INTERVAL_WIDTH = 64
#: Pixels of the system column: at least, and at most. With three K values (nine numeric columns, about 600 px) the
#: table then fits the page at 1400 px wide (about 940 px); a longer name is cut there, and shown whole in the chart.
SYSTEM_WIDTHS = (120, 320)


def system_width(names: Iterable[str]) -> int:
    """The system column's width in pixels: its longest name whole (about 7 px a character), within
    :data:`SYSTEM_WIDTHS`."""
    low, high = SYSTEM_WIDTHS
    return int(min(high, max(low, 24 + 7 * max((len(name) for name in names), default=0))))


def group_table(family: str, family_metrics: list[str], key: str) -> None:
    """Systems x (mean, CI low, CI high) for a few metrics, numeric, best mean per metric marked."""
    title, description = family_heading(family, family_metrics[0], threshold)
    st.markdown(f"**{escape_markdown(title)}**" + (f": {escape_markdown(description)}" if description else ""))
    wide = wide_summary(summary, family_metrics).rename(index=shown_name)
    # A reference system's plain name ("Reference: the most shared or related concepts") is longer than a run's: the
    # column fits the longest name, within a bound that keeps three K values' columns in the page (system_width).
    config = {"_index": st.column_config.TextColumn("system", width=system_width(wide.index), pinned=True)}
    for metric in family_metrics:
        config[metric] = st.column_config.NumberColumn(metric_column(metric), help=metric_help(metric, threshold),
                                                       width=None if researcher else "small")
        config[f"{metric} low"] = st.column_config.NumberColumn(
            say("interval_low_header"), help=say("interval_low", metric=metric), width=INTERVAL_WIDTH)
        config[f"{metric} high"] = st.column_config.NumberColumn(
            say("interval_high_header"), help=say("interval_high", metric=metric), width=INTERVAL_WIDTH)
    styled = wide.style.format(SCORE_FORMAT, na_rep="—")
    for metric in family_metrics:
        best = [shown_name(system) for system in best_systems(summary, metric)]
        styled = styled.map(lambda _: BEST_STYLE, subset=pd.IndexSlice[best, [metric]]) if best else styled
    st.dataframe(styled, column_config=config, key=key, width="content")


# The tables of the view, the metrics it computed (less the one in focus): one definition, io.tables.shown_tables.
for table_family, family_metrics in view.tables(metrics).items():
    group_table(table_family, family_metrics,
                f"leaderboard_{group}" if group == "other" else f"leaderboard_{group}_{table_family}")
if group == "relevance-graded" and any(b.by_relevance for b in baselines):
    st.caption(say("ceiling"))
if group == "label precision":
    for sentence in label_query_counts(summary, result.metrics, result.counts, plain=not researcher):
        st.caption(sentence + say("label_counts_end"))
st.caption(settings_line(settings, plain_settings(settings, kg_of(ws) is not None),
                         threshold if group == "other" else None))

focus = st.selectbox(say("focus_label"), metrics, format_func=lambda metric: metric_header(metric, who),
                     key="focus_metric", persist_state="session")
keep_in_address("focus_metric", [] if focus == default_focus else [focus])
if researcher:
    st.markdown(f"**{focus}**: {help_of(focus)}")
focus_rows = summary[summary.metric == focus].sort_values("mean", ascending=False)
chart = go.Figure(go.Bar(
    x=focus_rows.system.map(shown_name), y=focus_rows["mean"],
    error_y={"type": "data", "symmetric": False, "array": focus_rows.high - focus_rows["mean"],
             "arrayminus": focus_rows["mean"] - focus_rows.low}))
chart_title, axis_title = focus_chart_titles(focus)
if chart_title:  # a clinician's: the plain label, too long for the axis, titles the chart, which grows to hold it
    chart.update_layout(title=chart_title, yaxis_title=axis_title, height=420, margin={"t": 50})
else:
    chart.update_layout(yaxis_title=axis_title, height=380, margin={"t": 20})
chart.update_layout(xaxis={"automargin": True}, yaxis={"rangemode": "tozero"})
st.plotly_chart(chart, key="leaderboard_chart")
st.caption(say("chart_caption"))


if len(result.systems) >= 2:
    comparisons = result.comparisons(focus)
    names = list(result.systems)
    matrix = result.p_values(focus)
    statistics = result.results.statistics
    st.markdown(say("significance_intro", samples=statistics.randomization_samples,
                    smallest=statistics.smallest_randomization_p))
    shown_names = [shown_name(name) for name in names]
    heat = go.Figure(go.Heatmap(z=matrix.values, x=shown_names, y=shown_names, zmin=0, zmax=0.1,
                                colorscale=[[0, "#1a9850"], [0.5, "#fee08b"], [1, "#d73027"]],
                                text=matrix.map(lambda p: "" if np.isnan(p) else significance(p)).values,
                                texttemplate="%{text}", showscale=researcher, hoverinfo=None if researcher else "text",
                                **({"colorbar": {"title": "p (corrected)"}} if researcher else {})))
    heat.update_layout(height=200 + 45 * len(names), margin={"t": 20, "l": 10, "b": 10},
                       xaxis={"automargin": True, "tickangle": -20}, yaxis={"automargin": True, "autorange": "reversed"})
    st.plotly_chart(heat, key="significance_matrix")
    if researcher:
        table = pd.DataFrame([{
            "system A": c.system_a, "system B": c.system_b, "A - B": c.mean_difference,
            "p rand.": format_p_value(c.p_randomization), "p t-test": format_p_value(c.p_t_test),
            "p rand. Holm": format_p_value(c.p_randomization_holm), "p t-test Holm": format_p_value(c.p_t_test_holm),
            "queries": c.queries} for c in comparisons])
        help_holm = "corrected for the number of pairs compared (Holm-Bonferroni)"
        st.dataframe(table, hide_index=True, key="comparisons", width="stretch", column_config={
            "A - B": st.column_config.NumberColumn(format=f"%.{SCORE_DECIMALS}f",
                                                   help=f"mean over queries of {focus}(A) - {focus}(B)"),
            "p rand.": st.column_config.TextColumn(help="paired two-sided randomization test"),
            "p t-test": st.column_config.TextColumn(help="paired two-sided t-test"),
            "p rand. Holm": st.column_config.TextColumn(help=f"randomization test, {help_holm}"),
            "p t-test Holm": st.column_config.TextColumn(help=f"t-test, {help_holm}"),
            "queries": st.column_config.NumberColumn(help="queries both systems were scored on", format="localized")})


def effects_view() -> None:
    """How large the differences on the metric in focus are (a researcher's): every pair's mean difference and
    Cohen's d_z with their bootstrap intervals, the repeated-measures ANOVA over the systems in one sentence and
    Tukey's HSD with simultaneous intervals (dashboard.computed.effects_of)."""
    try:
        effects = effects_of(ws, run_names, tuple(baselines), settings, view, focus)
    except CBIRLensError as error:
        st.info(words(refusal(error)))
        return
    st.markdown(say("effects_intro", metric=focus))
    sizes = effects.sizes
    score = st.column_config.NumberColumn(format=f"%.{SCORE_DECIMALS}f")
    standardized = st.column_config.NumberColumn(format="%.2f")
    st.dataframe(pd.DataFrame({
        "system A": sizes.system_a.map(shown_name), "system B": sizes.system_b.map(shown_name),
        "queries": sizes.queries, "A - B": sizes.mean_difference, "A - B low": sizes.difference_low,
        "A - B high": sizes.difference_high, "d_z": sizes.d_z, "d_z low": sizes.d_z_low, "d_z high": sizes.d_z_high}),
        hide_index=True, key="effect_sizes", width="stretch", column_config={
            "queries": st.column_config.NumberColumn(help="queries both systems were scored on", format="localized"),
            "A - B": st.column_config.NumberColumn(format=f"%.{SCORE_DECIMALS}f",
                                                   help=f"mean over queries of {focus}(A) - {focus}(B)"),
            "A - B low": score, "A - B high": score,
            "d_z": st.column_config.NumberColumn(format="%.2f", help="Cohen's d_z: the mean difference over the "
                                                 "standard deviation of the per-query differences"),
            "d_z low": standardized, "d_z high": standardized})
    anova = next(effects.anova.itertuples())
    p_text = format_p_value(anova.p)
    st.markdown(say("anova_sentence", systems=int(anova.systems), metric=focus, queries=int(anova.queries),
                    df_systems=int(anova.df_systems), df_error=int(anova.df_error), f=anova.f,
                    p=p_text if p_text.startswith("<") else f"= {p_text}", partial=anova.partial_eta_squared,
                    generalized=anova.generalized_eta_squared))
    tukey = effects.tukey
    st.dataframe(pd.DataFrame({
        "system A": tukey.system_a.map(shown_name), "system B": tukey.system_b.map(shown_name),
        "A - B": tukey.mean_difference, "low": tukey.low, "high": tukey.high, "q": tukey.q,
        "p Tukey": [format_p_value(p) for p in tukey.p_tukey]}),
        hide_index=True, key="tukey_hsd", width="stretch", column_config={
            "A - B": score, "low": st.column_config.NumberColumn(format=f"%.{SCORE_DECIMALS}f",
                                                                 help="95% simultaneous interval (Tukey's HSD)"),
            "high": score, "q": standardized,
            "p Tukey": st.column_config.TextColumn(help="Tukey's HSD: corrected for every pair compared at once")})


def precision_recall_view() -> None:
    """The 11-point interpolated precision-recall curve of each system (a researcher's), under the relevance the
    metric in focus reads (nn-IoU where it reads none), relevant from the Leaderboard's threshold
    (dashboard.computed.precision_recall)."""
    key = curve_relevance(metrics, focus)
    if key is None:
        return
    curves = precision_recall(ws, run_names, tuple(baselines), settings, key)
    relevant = (f"relevant from grade {settings.options().relevance_level}" if key == "qrels"
                else f"relevant from relevance {threshold:g}")
    st.markdown(say("precision_recall_intro", first=curves.names[0], last=curves.names[-1], relevant=relevant))
    figure = go.Figure([go.Scatter(x=rows.recall, y=rows.precision, mode="lines+markers", name=shown_name(system),
                                   hovertemplate="recall %{x:.1f}: %{y:.4f}")
                        for system, rows in curves.table.groupby("system", sort=False)])
    figure.update_layout(height=380, margin={"t": 20}, legend={"orientation": "h"},
                         xaxis={"title": say("precision_recall_recall"), "range": [0, 1], "dtick": 0.1},
                         yaxis={"title": say("precision_recall_precision"), "range": [0, 1.02]})
    st.plotly_chart(figure, key="precision_recall")


# Asked for, not drawn at once: the first Leaderboard draws what its background preparation holds (issue 65).
if researcher and choose_flag(st.toggle, say("more_statistics"), "leaderboard_more"):
    if len(result.systems) >= 2:
        effects_view()
    precision_recall_view()


# --- By group: where the systems fail ---------------------------------------------------------------------------------

#: The built-in groupings by their words (dashboard.wording).
GROUPING_WORDS = {"modality": "group_modality", "organ": "group_organ", "concepts": "group_concepts"}


def grouping_label(by: str) -> str:
    if by in GROUPING_WORDS:
        return say(GROUPING_WORDS[by])
    file, _, column = by.rpartition(":")
    return f"{column} (from {file})"


def group_label(group: str) -> str:
    return say("no_group") if group == NO_GROUP else group


def by_group_view() -> None:
    """The metric in focus per group of queries (dashboard.computed.scores_by_group): a forest plot of each system's
    mean and interval per group, and the groups where two chosen systems differ beyond chance (Holm across the
    groups). A researcher may upload a query attributes file here, kept for the session (not in a saved workspace)."""
    options = grouping_choices(ws)
    attributes = None
    if researcher:
        upload = st.file_uploader("Query attributes (CSV or TSV with a header: the query ID first, then one column per "
                                  "attribute); kept for this session, not in a saved workspace",
                                  type=["csv", "tsv", "txt"], key="up_group_attributes")
        if upload is not None:
            try:
                columns = query_attribute_columns(upload.getvalue(), upload.name)
            except CBIRLensError as error:
                st.error(words(refusal(error)))
            else:
                attributes = upload.getvalue()
                options += [f"{upload.name}:{column}" for column in columns]
    if not options:
        st.info(say("no_grouping"))
        return
    by = choose_one(st.selectbox, say("group_by_label"), options, "group_by", format_func=grouping_label)
    systems = list(result.systems)
    pair = None
    if len(systems) >= 2:
        left, right = st.columns(2)
        first = choose_one(left.selectbox, say("group_system_a"), systems, "group_a", format_func=shown_name)
        second = choose_one(right.selectbox, say("group_system_b"), [s for s in systems if s != first], "group_b",
                            format_func=shown_name)
        pair = (first, second)
    try:
        grouped = scores_by_group(ws, run_names, tuple(baselines), settings, view, by,
                                  None if by in BUILT_IN_GROUPINGS else attributes, pair)
    except CBIRLensError as error:
        st.error(words(refusal(error)))
        return
    st.caption(say("by_group_intro", metric=metric_header(focus)))
    labels = [group_label(group) for group in grouped.groups]
    counted = say("group_queries")
    forest = go.Figure()
    for system in systems:
        rows = grouped.means[grouped.means.system == system].set_index("group").reindex(list(grouped.groups))
        forest.add_trace(go.Scatter(
            x=rows["mean"], y=labels, mode="markers", name=shown_name(system), orientation="h",
            error_x={"type": "data", "symmetric": False, "array": rows.ci_high - rows["mean"],
                     "arrayminus": rows["mean"] - rows.ci_low},
            customdata=rows.queries, hovertemplate=f"%{{y}}: %{{x:.4f}} (%{{customdata:,}} {counted})"))
    forest.update_layout(scattermode="group", height=160 + 36 * len(labels) * max(1, len(systems)) ** 0.5,
                         margin={"t": 20}, xaxis={"title": say("group_axis", metric=metric_header(focus)),
                                                  "rangemode": "tozero"},
                         yaxis={"autorange": "reversed", "automargin": True}, legend={"orientation": "h"})
    st.plotly_chart(forest, key="group_forest")
    if pair is None:
        return
    tested = grouped.comparisons[grouped.comparisons.p_randomization.notna()]
    different = grouped.significant(focus, *pair)
    names = {"a": shown_name(pair[0]), "b": shown_name(pair[1]), "count": len(tested)}
    if different.empty:
        st.caption(say("no_significant_group", **names))
        return
    st.markdown(say("significant_groups", **names))
    means = grouped.means.set_index(["group", "system"])["mean"]
    table = pd.DataFrame({
        "group": [group_label(group) for group in different.group],
        say("group_queries"): different.queries,
        names["a"]: [means[(group, pair[0])] for group in different.group],
        names["b"]: [means[(group, pair[1])] for group in different.group],
        say("group_difference"): different.mean_difference})
    table[say("group_p_header")] = [significance(p) for p in different.p_randomization_holm]
    if researcher:  # the t-test's beside the randomization test's
        table["p t-test (Holm across groups)"] = [format_p_value(p) for p in different.p_t_test_holm]
    st.dataframe(table.style.format(SCORE_FORMAT, subset=[names["a"], names["b"], table.columns[4]]),
                 hide_index=True, key="group_differences", width="stretch")


if choose_flag(st.toggle, say("by_group_toggle"), "by_group"):
    by_group_view()

st.subheader("Downloads")
latex_metrics = summary_metrics(metrics)
caption = f"alpha = {settings.alpha}, n = {settings.n}, {settings.kg_mode} KG, {settings.gain} gain"
kept = [equivalent_metric(m, metrics, measure_key) for m in st.session_state.get("latex_metrics", latex_metrics)]
st.session_state["latex_metrics"] = list(dict.fromkeys(m for m in kept if m))
latex_choice = st.multiselect("Metrics in the LaTeX table", metrics, key="latex_metrics", persist_state="session") \
    if researcher else latex_metrics
columns = st.columns(4 if researcher else 3)
# Downloads do not rerun the page (on_click="ignore"). Each run registers the per-query file's generator afresh and
# Streamlit drops the previous run's when a run ends, so a click whose request reached the server after the rerun of
# another download (or of its own click) found no generator: no file, and "Failed to generate file for download".
columns[0].download_button(say("download_results"),
                           lambda: results_csv(summary_of(whole_table()), metrics).encode(), "results.csv", "text/csv",
                           key="dl_results", on_click="ignore")
# Built only when clicked: on ROCOv2 the per-query table has about a million rows; the LaTeX table's cells take
# longer to write than the results CSV, and an alpha change redraws the page without writing them.
columns[1].download_button(say("download_per_query"),
                           lambda: spreadsheet_csv(whole_table().per_query_long()).encode(),
                           "per_query.csv", "text/csv", key="dl_per_query", on_click="ignore")
if researcher:
    columns[2].download_button("LaTeX table (booktabs)",
                               lambda: latex_table(summary_of(whole_table()), latex_choice or latex_metrics,
                                                   caption).encode(),
                               "results.tex", "text/plain", key="dl_latex", on_click="ignore",
                               help="Cells: mean [95% CI]; best in bold. Needs \\usepackage{booktabs}.")
# Written only when clicked (the curves evaluate the runs at a few more settings), from the settings shown here; kept
# for the server by what it reads (dashboard.computed.leaderboard_report), so that the next click reads it back. A
# clinician gets the comparison in plain words instead (dashboard.computed.clinician_report), with example cases.
if researcher:
    columns[-1].download_button(
        say("download_report"),
        lambda: leaderboard_report(ws, run_names, tuple(baselines), settings, focus).encode(),
        "cbir_lens_report.html", "text/html", key="dl_report", on_click="ignore",
        help=say("download_report_help"))
else:
    columns[-1].download_button(
        say("download_report"),
        lambda: clinician_report(ws, run_names, tuple(baselines), settings, view,
                                 tuple(shown_titles.items())).encode(),
        "cbir_lens_comparison.html", "text/html", key="dl_report", on_click="ignore",
        help=say("download_report_help"))


# The qrels grade by nn-IoU at the sliders' setting whatever measure is chosen (evalcore.evaluation.qrels): the label says so.
qrels_label = (f"Prepare graded qrels (TREC format): nn-IoU at alpha = {settings.alpha}, n = {settings.n} as an "
               "integer grade on a per-query scale"
               + (f", not {settings.measure.measure.title}" if measure_key not in ("nn-iou",) else ""))
if researcher and choose_flag(st.toggle, qrels_label, "qrels_toggle"):
    bar = st.progress(0.0, "Ideal top K over the whole pool…")
    qrels_text = graded_qrels_text(ws, tuple(baselines), settings,
                                   lambda share: bar.progress(share, "Ideal top K over the whole pool…"))
    bar.empty()
    st.download_button("Graded qrels", qrels_text.encode(), "qrels.txt", "text/plain", key="dl_qrels", on_click="ignore")
    st.caption("Each query's ideal top K over the whole pool plus every image the shown systems retrieved; grade = "
               "nn-IoU x a per-query scale, so trec_eval / ranx / ir_measures nDCG@K (K up to the largest K chosen) "
               "equals nn-CUI@K for runs without tied scores. Scale: docs/CLI.md, 'Judged relevance'.")


def judged_view(judged_qrels: str) -> None:
    """The systems scored on the judges' grades (trec_eval's measures on the stored judgments as graded qrels), and
    whether the label-free measures rank the systems as the judges do (Kendall's tau-b of the two rankings)."""
    judged = judged_leaderboard(ws, run_names, tuple(baselines), settings, judged_qrels)
    st.caption(f"On {judged.pairs:,} judged pairs of {judged.cases:,} cases (the judgments kept for this collection: "
               "each pair's grade the mean over its judges, rounded half up), with trec_eval's measures; a query "
               "without a judgment is left out, an unjudged image retrieved reads grade 0.")
    means = pd.DataFrame(judged.means).T.rename_axis("system").reset_index()
    st.dataframe(means.style.format(SCORE_FORMAT, subset=list(judged.metrics)), hide_index=True,
                 key="judged_means", width="stretch")
    taus = pd.DataFrame({"judged metric": [a.judged for a in judged.agreements],
                         "label-free counterpart": [a.concept for a in judged.agreements],
                         "Kendall's tau-b": [a.tau for a in judged.agreements],
                         "systems": [a.systems for a in judged.agreements]})
    st.markdown("**Does the label-free measure rank the systems as the judges do?** Kendall's tau-b between the "
                "systems' ranking by each judged metric and by its counterpart under concept relevance (1: the same "
                "order, 0: unrelated, -1: reversed).")
    st.dataframe(taus.style.format(SCORE_FORMAT, subset=["Kendall's tau-b"], na_rep="—"), hide_index=True,
                 key="judged_taus", width="stretch")


judged_qrels = stored_judgments_qrels(ws) if researcher else ""
if judged_qrels and choose_flag(st.toggle, "Score the systems on the judges' grades (the stored judgments as qrels)",
                                "judged_toggle"):
    try:
        judged_view(judged_qrels)
    except CBIRLensError as error:  # a system none of whose queries is judged yet
        st.error(f"The systems cannot be scored on the judgments yet: {error}")

if researcher:
    with st.expander("Counts: skipped queries, unknown IDs, excluded values (of the metrics shown)"):
        st.json(result.counts)
