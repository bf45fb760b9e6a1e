"""Choose a relevance measure: the evidence that separates the measures on the loaded data (discriminative power as
ASL curves, swap rate across query sets, ties at rank K, agreement with IoU, identical systems flagged), one
sentence saying what it favours, then Table-1 precision of retrieval by each measure and the definitions."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from evalcore.baselines import available_baselines
from evalcore.errors import CBIRLensError
from evalcore.measure_comparison import (
    ALL_POWER,
    SIGNIFICANCE_LEVEL,
    SWAP_RATE,
    TIE_RANK,
    comparison_measures,
    sampled_power_column,
    verdict,
)
from evalcore.measures import MEASURES
from evalcore.tables import markdown_table
from pages.computed import measure_comparison
from pages.session import server_kept, workspace
from pages.sidebar import controls
from pages.ui import require_concepts, synthetic_banner

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
measures = st.multiselect("Measures to compare", comparison_measures(settings.measure),
                          default=comparison_measures(settings.measure), key="measures_compared",
                          help="Every measure at its default parameters, and the sidebar's measure with yours.")
baselines = st.multiselect("Baselines judged beside the loaded runs", available_baselines(ws),
                           default=available_baselines(ws), key="measures_baselines", format_func=lambda b: b.title)
# Kept for every session of this server: the key is the content of the data read and every option.
arguments = (server_kept(), ws, tuple(measures), tuple(baselines), settings)
result = measure_comparison(*arguments, compute=False)
if result is None and st.button("Compare the measures", key="measures_run", type="primary"):
    bar = st.progress(0.0, text="Starting…")
    try:
        result = measure_comparison(*arguments, progress=lambda f, text: bar.progress(min(1.0, f), text=text))
    except CBIRLensError as error:
        st.error(str(error))
    bar.empty()
if result is None:
    st.caption("Ranks the whole collection once per measure, then runs a randomization test for every pair of "
               "systems under every measure, on all queries and on random samples of queries: about ten seconds "
               "on ROCOv2 test, a few on the demo.")
    st.stop()

st.info(verdict(result))
table = result.table
sampled = sampled_power_column(result.subsample) if result.subsample else None
deciding = [c for c in ("measure", sampled, SWAP_RATE, f"ties@{TIE_RANK}", "Kendall tau vs IoU", ALL_POWER)
            if c and c in table]
queries = f"{result.subsample} random queries" if result.subsample else "all queries"
st.markdown(f"**What decides.** *Pairs apart*: Sakai's discriminative power, the share of the "
            f"{len(result.systems)} systems' pairs whose {result.metric} under the measure differs at "
            f"p < {SIGNIFICANCE_LEVEL:g} (paired randomization test, not corrected), on {queries} (mean of the "
            "samples: with thousands of queries nearly every pair differs) and on all queries. *Swap rate*: of the "
            "pairs two disjoint query sets both order, the share they order differently (Voorhees & Buckley 2002); "
            f"lower is more stable. *ties@{TIE_RANK}*: queries whose {TIE_RANK}th and {TIE_RANK + 1}th best "
            f"candidates are equally relevant, so the tie rule decides the top {TIE_RANK}. *Kendall tau vs IoU*: the "
            "systems' order under the measure against their order under IoU.")
st.dataframe(table[deciding], hide_index=True, key="measures_deciding",
             column_config={c: st.column_config.NumberColumn(format="%.2f") for c in deciding[1:]
                            if c != f"ties@{TIE_RANK}"} | {SWAP_RATE: st.column_config.NumberColumn(format="%.3f")})
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
    st.dataframe(precision.style.format(precision=2), key="measures_table1")
else:
    st.info("Table 1 needs modality/organ labels: load a labels file on the Data page.")
more = ["measure", "discriminative power", f"discriminative power, {result.subsample} queries", "significant pairs",
        "swapped / decided", *[c for c in table.columns if c.startswith("ties@") and c != f"ties@{TIE_RANK}"],
        *[c for c in table.columns if c.startswith("same top-")]]
with st.expander("More evidence: Holm-corrected power, counts, ties at other ranks"):
    st.caption("*discriminative power*: the share of pairs apart at p < 0.05 after Holm's correction over the pairs "
               "(on all queries, then the mean over the query samples); *significant pairs* and *swapped / decided* "
               "count them; *same top-K as IoU*: queries whose top K under the measure is exactly IoU's.")
    st.dataframe(table[[c for c in more if c in table]], hide_index=True, key="measures_summary",
                 column_config={"discriminative power": st.column_config.NumberColumn("power (Holm)", format="%.2f"),
                                f"discriminative power, {result.subsample} queries": st.column_config.NumberColumn(
                                    f"power (Holm), {result.subsample} q.", format="%.2f"),
                                "significant pairs": "pairs (Holm)", "swapped / decided": "swapped"})
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
