"""Choose a relevance measure: each measure's definition, Table-1 precision of retrieval by it, its discriminative
power over the loaded runs and baselines, its agreement with IoU and its ties at rank K."""

from __future__ import annotations

import pandas as pd
import plotly.express as px
import streamlit as st

from evalcore.baselines import available_baselines
from evalcore.errors import CBIRLensError
from evalcore.measure_comparison import comparison_measures
from evalcore.measures import MEASURES
from pages.computed import measure_comparison
from pages.session import session_kept, workspace
from pages.sidebar import controls
from pages.ui import require_concepts, synthetic_banner

st.title("Choose a relevance measure")
ws = workspace()
synthetic_banner(ws)
st.write("Relevance between a query and a retrieved image is a similarity of their concept sets. The measures below "
         "differ in what they count: exact overlap only (IoU, Dice, Tversky), or also near matches in the knowledge "
         "graph (nn-IoU, nn-Tversky), graded by distance (nn-IoU-hops) or by depth in the taxonomy (nn-IoU-depth). "
         "Pick one in the sidebar; it drives the leaderboard's extra metrics and the ablation page.")
st.dataframe(pd.DataFrame([{"key": m.key, "measure": m.title, "in plain words": m.summary, "formula": m.formula,
                            "parameters": "w1, w2, … (one per hop)" if m.weights else
                            ", ".join(f"{p.name} = {p.default:g}" for p in m.parameters) or "—",
                            "needs a KG": m.uses_kg, "source": m.source} for m in MEASURES.values()]),
             hide_index=True, key="measure_registry")
if not require_concepts(ws):
    st.stop()
settings = controls()

st.subheader("Evidence on the loaded dataset")
measures = st.multiselect("Measures to compare", comparison_measures(settings.measure),
                          default=comparison_measures(settings.measure), key="measures_compared",
                          help="Every measure at its default parameters, and the sidebar's measure with yours.")
baselines = st.multiselect("Baselines judged beside the loaded runs", available_baselines(ws),
                           default=available_baselines(ws), key="measures_baselines", format_func=lambda b: b.title)
arguments = (session_kept(), ws, tuple(measures), tuple(baselines), settings)
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
               "systems under every measure: about a minute on ROCOv2 test, seconds on the demo.")
    st.stop()

table = result.table
cells = [c for c in table.columns if c.startswith("P@")]
if cells:
    winners = table[table["beats IoU on every cell"] & (table.measure != "iou")].measure.tolist()
    st.markdown("**Beats IoU on every Table-1 cell:** " + (", ".join(f"`{w}`" for w in winners) if winners else "none")
                + ". Cells are Precision@5/10/30 of retrieval by the measure on modality, organ and both.")
    precision = result.precision.pivot_table(index=["measure", "target"], columns="k", values="value", sort=False)
    precision.columns = [f"P@{k}" for k in precision.columns]
    st.dataframe(precision.style.format(precision=2), key="measures_table1")
else:
    st.info("Table 1 needs modality/organ labels: load a labels file on the Data page.")
st.markdown(f"**Per measure.** *discriminative power*: share of the {len(result.systems)} systems' pairs whose "
            f"{result.metric} under the measure differs significantly (randomization test, Holm, p < 0.05), on all "
            "queries and on 100 random queries (mean of 5 draws: with thousands of queries nearly every pair "
            "differs). *Kendall "
            "tau vs IoU*: the systems' order under the measure against their order under IoU. *ties@K*: queries whose "
            "K-th and (K+1)-th best candidates are equally relevant, so the tie rule decides the top K.")
st.dataframe(table, hide_index=True, key="measures_summary",
             column_config={"discriminative power": st.column_config.NumberColumn(format="%.2f")})
if "discriminative power" in table:
    st.plotly_chart(px.bar(table, x="measure", y="discriminative power", range_y=[0, 1],
                           title="Share of system pairs told apart"), key="measures_power")
if len(result.means):
    st.markdown(f"**Mean {result.metric} of each system under each measure**")
    st.dataframe(result.means.style.format(precision=4), key="measures_means")
