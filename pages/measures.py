"""Choose a relevance measure: the evidence that separates the measures on the loaded data (discriminative power as
ASL curves and pair by pair, swap rate across query sets, ties at rank K, agreement with IoU, identical and circular
systems flagged) over the loaded runs, the chosen baselines and degraded copies of the best of them, one sentence
saying which measure clearly leads which, pair by pair (a favourite only where one leads every other), then Table-1
precision of retrieval by each measure and the definitions."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from dashboard.computed import judges_agreement, measure_comparison, stored_judgments_csv
from dashboard.library import (
    ALL_POWER,
    APART,
    MEASURES,
    PAIRS_JUDGED,
    SCORE_DECIMALS,
    SIGNIFICANCE_LEVEL,
    SWAP_RATE,
    TIE_RANK,
    CBIRLensError,
    available_baselines,
    comparison_baselines,
    comparison_measures,
    markdown_table,
    parse_measure,
    sampled_power_column,
    score_table,
    setting_read,
    verdict,
)
from dashboard.session import audience, through_app, workspace
from dashboard.sidebar import controls
from dashboard.ui import choose_flag, choose_many, escape_markdown, require_concepts, synthetic_banner, system_label

through_app()

#: The judges' sweep: the paper's Fig. 3 grid.
SWEEP = ("alpha=0:1:0.1", "n=0:3:1")

st.title("Choose a relevance measure")
ws = workspace()
synthetic_banner(ws)
st.write("Relevance between a query and a retrieved image is a similarity of their concept sets. The measures "
         "differ in what they count: exact overlap only (IoU, Dice, Tversky), or also near matches in the knowledge "
         "graph (nn-IoU, nn-Tversky), graded by distance (nn-IoU-hops) or by depth in the taxonomy (nn-IoU-depth). "
         "Compare them on the loaded data below, then pick one in the sidebar: it drives the leaderboard's extra "
         "metrics and the ablation page.")
with st.expander("Definitions of the measures"):
    # A Markdown table wraps its long cells (formula, source) where a data grid would hide them off-screen right.
    st.markdown(markdown_table(pd.DataFrame([
        {"key": f"`{m.key}`", "measure": m.title, "in plain words": m.summary, "formula": f"`{m.formula}`",
         "parameters": "w1, w2, … (one per hop)" if m.weights else
         ", ".join(f"{p.name} = {p.default:g}" for p in m.parameters) or "—",
         "needs a KG": m.uses_kg, "source": m.source} for m in MEASURES.values()])))
if not require_concepts(ws):
    st.stop()
settings = controls()

st.subheader("Evidence on the loaded dataset")
measures = choose_many(st.multiselect, "Measures to compare", comparison_measures(settings.measure),
                       "measures_compared", default=comparison_measures(settings.measure),
                       help="Every measure at its default parameters, and the sidebar's measure with yours.")
# Retrieval by IoU or nn-IoU is the ideal ranking under that measure: judged under it, it wins by construction, so
# the comparison leaves it out; ranking it would cost a pass for nothing unless its measure is not compared.
baselines = choose_many(st.multiselect, "Baselines judged beside the loaded runs", available_baselines(ws),
                        "measures_baselines", default=comparison_baselines(ws),
                        format_func=system_label,
                        help="Retrieval by IoU or by nn-IoU is the ideal ranking under its own measure: where that "
                             "measure is compared, the system is left out as circular (and listed).")
# Kept for every session of this server: the key is the content of the data read and every option it reads (the
# sliders' nn-IoU setting only where a chosen baseline ranks by it).
arguments = (ws, tuple(measures), tuple(baselines), setting_read(baselines, settings.relevance), settings.kg_mode,
             max(settings.ks))
result = measure_comparison.kept(*arguments)
if result is None and st.button("Compare the measures", key="measures_run", type="primary"):
    bar = st.progress(0.0, text="Starting…")
    try:
        result = measure_comparison(*arguments, progress=lambda f, text: bar.progress(min(1.0, f), text=text))
    except CBIRLensError as error:
        st.error(str(error))
    bar.empty()


def judges_evidence() -> None:
    """Each compared measure's agreement with the judges (the judgments kept for this collection, or a file): tau-b
    with its interval and the AUCs (:func:`evalcore.studies.agreement.agreement_study`), and what they rest on; then,
    on request, tau-b against alpha for each n (Fig. 3 against people instead of labels)."""
    st.subheader("Agreement with the judges")
    upload = st.file_uploader("Judgments from a file (else those kept for this collection): CSV "
                              "judge,case,candidate,grade[,time], or graded TREC qrels", type=["csv", "qrels", "txt"],
                              key="measures_judgments_upload")
    data, name = (upload.getvalue(), upload.name) if upload is not None else (stored_judgments_csv(ws), "")
    if not data:
        st.caption("No judgments yet for this collection: grade pairs on the Judge pairs page (or load a file above) "
                   "and each measure's agreement with the judges is shown here beside the evidence below.")
        return
    try:
        report = judges_agreement(ws, tuple(measures), settings.kg_mode, data, name or "the stored judgments")
    except CBIRLensError as error:
        st.error(str(error))
        return
    pairs = report.pairs
    judges = len(set(pairs.judge_of_grading.tolist()))
    level = f"{report.statistics.confidence:.0%}"
    st.markdown(f"Rests on {len(pairs.grading):,} judgments by {judges} judge{'s' if judges != 1 else ''} of "
                f"{len(pairs.grade):,} pairs in {pairs.cases:,} cases ({'the file ' + name if name else 'kept for this collection'}"
                f"). *tau-b*: Kendall's tau-b between the measure's relevance and the pair's mean grade, with its "
                f"{level} interval resampling cases; *AUC*: how well it tells pairs graded at least 1 (and 2) from the "
                f"rest. Best by cross-validation over cases: `{report.best.setting.measure.name}` (held-out tau-b "
                f"{report.best.held_out_kendall_tau_b:.4f}).")
    table = pd.DataFrame([{"measure": name, "tau-b": s.kendall_tau_b, "tau-b low": s.ci[0], "tau-b high": s.ci[1],
                           **{f"AUC {threshold}": value for threshold, value in s.auc.items()},
                           "pairs": s.pairs, "cases": s.cases, "clearly worse than the best": s.clearly_worse}
                          for name, s in report.settings.items()])
    st.dataframe(score_table(table), hide_index=True, key="measures_judges", width="stretch")
    for note in report.notes:
        st.caption(escape_markdown(note))
    if choose_flag(st.toggle, "Agreement with the judges across alpha and n (Fig. 3 against people)",
                   "judges_sweep"):
        judges_sweep_view(data, name or "the stored judgments")


def judges_sweep_view(data: bytes, name: str) -> None:
    """tau-b of nn-IoU against the judges' grades for each alpha, one line per n, with its interval; the sidebar's
    setting marked with its interval."""
    chosen = settings.relevance.name
    try:
        report = judges_agreement(ws, (chosen,), settings.kg_mode, data, name, SWEEP)
    except CBIRLensError as error:
        st.info(str(error))
        return
    rows = pd.DataFrame([{"alpha": s.measure.params["alpha"], "n": s.measure.params["n"], "tau-b": s.kendall_tau_b,
                          "low": s.ci[0], "high": s.ci[1]} for s in report.settings.values()])
    rows = rows.drop_duplicates(["alpha", "n"]).sort_values(["n", "alpha"])
    rows["n"] = [f"n = {n:g} (IoU)" if n == 0 else f"n = {n:g}" for n in rows["n"]]
    figure = px.line(rows, x="alpha", y="tau-b", color="n", markers=True, error_y=rows["high"] - rows["tau-b"],
                     error_y_minus=rows["tau-b"] - rows["low"], color_discrete_sequence=px.colors.sequential.Viridis,
                     title="Kendall's tau-b of nn-IoU against the judges' grades")
    mine = report.settings[chosen]
    figure.add_scatter(x=[settings.alpha], y=[mine.kendall_tau_b], mode="markers", name="the sidebar's setting",
                       marker={"symbol": "star", "size": 14, "color": "crimson"},
                       error_y={"type": "data", "array": [mine.ci[1] - mine.kendall_tau_b],
                                "arrayminus": [mine.kendall_tau_b - mine.ci[0]]})
    st.plotly_chart(figure, key="judges_sweep_chart")
    st.markdown(f"The sidebar's setting `{chosen}`: tau-b {mine.kendall_tau_b:.4f} "
                f"[{mine.ci[0]:.4f}, {mine.ci[1]:.4f}]; the best by cross-validation: "
                f"`{report.best.setting.measure.name}` (tau-b {report.best.setting.kendall_tau_b:.4f}); "
                f"{len(report.best.not_clearly_worse)} of {len(report.settings)} settings are not clearly worse.")


judges_evidence()
if result is None:
    # No promise of a duration: it grows with the pool, the measures and the machine; the bar shows each step.
    st.caption("Ranks the whole collection once per measure (the longest step), then scores every system and "
               "randomization-tests every pair of systems under every measure, on all queries and on random samples "
               "of queries. The bar shows each step as it goes; the time taken is shown with the result.")
    st.stop()

st.info(verdict(result, audience()))
table = result.table
sampled = sampled_power_column(result.subsample) if result.subsample else None
deciding = [c for c in ("measure", sampled, SWAP_RATE, f"ties@{TIE_RANK}", "Kendall tau vs IoU", ALL_POWER)
            if c and c in table]
queries = f"{result.subsample} random queries" if result.subsample else "all queries"
degraded = (f", and {len(result.levels)} copies of *{result.degraded_from}* (the best of them under IoU, or a "
            f"simulated concept detector where none is left) with each image of its top {result.metric.split('@')[-1]} "
            "swapped for a random one with probability p = "
            f"{', '.join(f'{level:g}' for level in result.levels)} (seeded): pairs whose order is known and close, "
            "where measures differ") if result.degraded_from else ""
st.markdown(f"**Judged on** {len(result.systems)} systems ({len(result.systems) * (len(result.systems) - 1) // 2} "
            f"pairs): the loaded runs and the chosen baselines{degraded}. The comparison took {result.seconds:.1f} s "
            "(after the baselines' rankings).")
st.markdown(f"**What decides.** *Pairs apart*: Sakai's discriminative power, the share of the systems' pairs whose "
            f"{result.metric} under the measure differs at p < {SIGNIFICANCE_LEVEL:g} (paired randomization test, "
            f"not corrected), on {queries} (mean of the samples: with thousands of queries nearly every pair "
            "differs) and on all queries. *Swap rate*: of the pairs two disjoint query sets both order, the share "
            "they order differently (Voorhees & Buckley 2002); lower is more stable. The verdict reads the measures "
            "pair by pair: one leads another where it tells more pairs apart beyond the noise of the samples (a "
            "paired test over them), or, level on that, swaps fewer beyond the noise of the splits; it names every "
            f"such lead and favours a measure only when it leads every other. *ties@{TIE_RANK}*: queries whose "
            f"{TIE_RANK}th and {TIE_RANK + 1}th best candidates are equally relevant, so the tie rule decides the top "
            f"{TIE_RANK}. *Kendall tau vs IoU*: the systems' order under the measure against their order under IoU.")


def columns_of(shown: list[str]) -> dict[str, st.column_config.Column]:
    """A comparison table's columns: the measure's wide enough for its parameters, each other one narrow under a
    short header whose tooltip names it whole (a long name was cut at the column's width: "pairs apart at p < 0.05,")."""
    long_names = {
        sampled: ("apart (samples)", f"Pairs apart at p < {SIGNIFICANCE_LEVEL:g}, {queries}: Sakai's discriminative "
                                     "power, the first thing the verdict reads."),
        ALL_POWER: ("apart (all)", f"Pairs apart at p < {SIGNIFICANCE_LEVEL:g}, all queries."),
        SWAP_RATE: (SWAP_RATE, "Of the pairs two disjoint query sets both order, the share they order differently."),
        f"ties@{TIE_RANK}": (f"ties@{TIE_RANK}", f"Queries whose {TIE_RANK}th and {TIE_RANK + 1}th best candidates are "
                                                 "equally relevant."),
        "Kendall tau vs IoU": ("tau vs IoU", "Kendall tau: the systems' order under the measure against their order "
                                             "under IoU."),
        "discriminative power": ("power (all)", "Discriminative power after Holm's correction, all queries."),
        f"discriminative power, {result.subsample} queries": (
            "power (samples)", f"Discriminative power after Holm's correction, mean over samples of "
                               f"{result.subsample} queries."),
        "significant pairs": ("significant", "Significant pairs (Holm) of the pairs judged."),
        "swapped / decided": ("swapped/decided", "Swapped / decided: pairs ordered differently by two disjoint query sets, of "
                                         "those both order."),
        **{c: (c.removesuffix(" as IoU"), f"Queries whose {c.split()[1]} under the measure is exactly IoU's.")
           for c in shown if c.startswith("same top-")},
    }
    return {c: st.column_config.Column(width="medium") if c == "measure" else
            st.column_config.Column(long_names.get(c, (c,))[0], help=long_names.get(c, (c, None))[1], width="small")
            for c in shown}


# Many short numeric columns: narrow ones, so that the table fits the page at 1400 px.
st.dataframe(score_table(table[deciding]), hide_index=True, key="measures_deciding", width="stretch",
             column_config=columns_of(deciding))
if len(result.pairs):
    with st.expander("Which system pairs each measure tells apart"):
        pairs = result.pairs.assign(pair=result.pairs["system A"] + " vs " + result.pairs["system B"])
        st.caption(f"Each cell: the share of the samples of {result.subsample} queries on which the pair differs at "
                   f"p < {SIGNIFICANCE_LEVEL:g} under the measure" if result.subsample else
                   f"Each cell: 1 where the pair differs at p < {SIGNIFICANCE_LEVEL:g} on all queries, else 0")
        apart = pairs.pivot_table(index="pair", columns="measure", values=APART, sort=False)
        # A pair's name and a measure's are long: a table that wraps them fits the page (the expander is about 670
        # px wide at 1400) where a grid of fixed columns would not; the measures by their keys.
        st.markdown(markdown_table(apart.rename(columns=lambda name: parse_measure(name).key).reset_index(),
                                   digits=SCORE_DECIMALS))
if len(result.left_out):
    st.warning(f"{len(result.left_out)} system(s) left out of every measure's evidence: each is the ideal ranking "
               "under a compared measure, so judging it there is circular (it wins by construction); all measures "
               "are judged on the same systems without it.")
    st.dataframe(result.left_out, hide_index=True, key="measures_left_out")
if len(result.identical):
    st.warning(f"{len(result.identical)} pair(s) of systems are identical (the same values on every query under "
               "the measures named, or the same top lists): no measure can tell them apart, so they are left out "
               "of every pair count above.")
    st.dataframe(result.identical, hide_index=True, key="measures_identical")
elif len(result.systems) > 1:
    st.caption("No two systems are identical under any measure: every pair counts.")
if len(result.asl):
    figure = px.line(result.asl, x="level", y="share", color="measure", facet_col="queries", markers=True,
                     labels={"level": "significance level", "share": "share of system pairs apart",
                             "queries": "queries"},
                     title="Discriminative power at each significance level (ASL curves, Sakai 2006)")
    figure.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.25, "x": 0}, margin={"b": 120})
    figure.update_yaxes(tickformat=".0%")  # the axis spans the data: curves between 85 % and 100 % stay apart
    figure.for_each_annotation(lambda note: note.update(text=note.text.split("=", 1)[-1]))  # "100 queries"
    st.plotly_chart(figure, key="measures_asl")
    st.caption("Each panel: all queries, then the mean over random samples of queries of that size (the same samples "
               "for every measure). Higher and further left is better: the measure tells more pairs apart at a "
               "stricter level.")

cells = [c for c in table.columns if c.startswith("P@")]
st.subheader("Precision of retrieval by each measure (Table 1)")
if cells:
    winners = table[table["beats IoU on every cell"] & (table.measure != "iou")].measure.tolist()
    st.markdown("**Beats IoU on every Table-1 cell:** " + (", ".join(f"`{w}`" for w in winners) if winners else "none")
                + ". Cells are Precision@5/10/30 of retrieval by the measure on modality, organ and both.")
    precision = result.precision.pivot_table(index=["measure", "target"], columns="k", values="value", sort=False)
    precision.columns = [f"P@{k}" for k in precision.columns]
    st.dataframe(score_table(precision, percent=list(precision.columns)), key="measures_table1")
else:
    st.info("Table 1 needs modality/organ labels: load a labels file on the Data page.")
more = ["measure", PAIRS_JUDGED, "discriminative power", f"discriminative power, {result.subsample} queries",
        "significant pairs", "swapped / decided",
        *[c for c in table.columns if c.startswith("ties@") and c != f"ties@{TIE_RANK}"],
        *[c for c in table.columns if c.startswith("same top-")]]
with st.expander("More evidence: Holm-corrected power, counts, ties at other ranks"):
    st.caption("*pairs judged*: the pairs of systems not identical under the measure; *discriminative power*: the "
               "share of them apart at p < 0.05 after Holm's correction over the pairs (on all queries, then the mean "
               "over the query samples); *significant pairs* and *swapped / decided* count them; *same top-K as "
               "IoU*: queries whose top K under the measure is exactly IoU's.")
    # Two tables of a few columns each: one of a dozen is wider than the page.
    counts, ties = more[:6], ["measure", *more[6:]]
    for part, key in ((counts, "measures_summary"), (ties, "measures_ties")):
        shown = [c for c in part if c in table]
        if len(shown) > 1:
            st.dataframe(score_table(table[shown]), hide_index=True, key=key, width="stretch",
                         column_config=columns_of(shown))
engine = ["measure", "ranking s", "codes", "code bytes", "keys", "digits"]
with st.expander("How the engine computes each measure"):
    st.markdown(markdown_table(table[[c for c in engine if c in table]].rename(columns={"ranking s": "ranking (s)"})))
if len(result.means):
    means = result.means.rename_axis("system").reset_index().melt(id_vars="system", var_name="measure",
                                                                   value_name="mean")
    figure = px.line(means, x="measure", y="mean", color="system", markers=True,
                     labels={"mean": f"mean {result.metric}", "measure": "relevance measure"},
                     title=f"Mean {result.metric} of each system under each measure (crossing lines: the order changes)")
    figure.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.35, "x": 0}, margin={"b": 160})
    st.plotly_chart(figure, key="measures_means_chart")
    with st.expander(f"Mean {result.metric} of each system under each measure, in numbers"):
        st.dataframe(means, hide_index=True, key="measures_means",
                     column_config={"mean": st.column_config.NumberColumn(format="%.4f")})
