"""Ablation: a metric against alpha for n = 0..3 (the paper's Fig. 3), heatmap, and ranking stability."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from evalcore.ablation import ALPHAS, HOPS, ablation_grid, isolated_queries, ranking_agreement
from pages.common import controls, evaluator_of, metric_names_for, require_concepts, synthetic_banner, workspace

st.title("Ablation: alpha and distance threshold n")
ws = workspace()
synthetic_banner(ws)
if not require_concepts(ws):
    st.stop()
settings = controls()
evaluator = evaluator_of(ws, settings["kg_mode"])
st.write("How the scores move when near matches count more (alpha) and when concepts further apart in the "
         "knowledge graph count as neighbours (n). n = 0 is plain IoU.")

names = metric_names_for(evaluator, (5, 10, 30))
defaults = [m for m in ("P@30[modality]", "nn-CUI@10") if m in names] or ["nn-CUI@10"]
metrics = st.multiselect("Metrics", names, default=defaults, key="ablation_metrics")
include_runs = st.toggle("Include the loaded runs", value=True, key="ablation_runs")
isolated = st.toggle("Only the isolated subset (queries whose top-30 by IoU and nn-IoU differ)", key="ablation_isolated")
if not metrics:
    st.stop()

cache = st.session_state.setdefault("ablation_cache", {})
key = (ws.concepts_digest, ws.kg_digest, ws.labels_digest, tuple(d for d, _ in ws.runs.values()) if include_runs else (),
       tuple(metrics), settings["kg_mode"], isolated, settings["alpha"], settings["n"], settings["gain"])
if key not in cache:
    bar = st.progress(0.0, text="Computing the alpha x n grid…")
    queries = isolated_queries(evaluator, settings["alpha"], max(1, settings["n"]), 30) if isolated else None
    runs = [run for _, run in ws.runs.values()] if include_runs else []
    cache[key] = ablation_grid(evaluator, runs, metrics, ALPHAS, HOPS, queries=queries, gain=settings["gain"],
                               progress=lambda f, text: bar.progress(min(1.0, f), text=f"Computing {text}"))
    cache[key].attrs["queries"] = len(queries) if queries is not None else len(ws.concepts)
    bar.empty()
grid = cache[key]
st.caption(f"Averaged over {grid.attrs.get('queries', len(ws.concepts)):,} queries.")

for metric in metrics:
    st.subheader(metric)
    table = grid[grid.metric == metric]
    figure = px.line(table, x="alpha", y="value", color="n", line_dash="system", markers=True,
                     labels={"value": metric, "n": "n (hops)"}, title=f"{metric} against alpha")
    st.plotly_chart(figure, key=f"curve_{metric}")
    system = st.selectbox("Heatmap for system", sorted(table.system.unique()), key=f"heat_system_{metric}")
    heat = table[table.system == system].pivot(index="n", columns="alpha", values="value")
    st.plotly_chart(px.imshow(heat, text_auto=".3f", aspect="auto", labels={"color": metric},
                              title=f"{metric}: alpha x n for {system}"), key=f"heat_{metric}")
    if table.system.nunique() >= 2:
        agreement = ranking_agreement(grid, metric)
        st.markdown("**Does the winner change?** Kendall tau between the system ranking at each setting and the "
                    "ranking under IoU (1 = same order).")
        st.dataframe(agreement.pivot(index="n", columns="alpha", values="kendall_tau"), key=f"tau_{metric}")
