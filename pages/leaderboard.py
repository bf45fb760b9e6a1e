"""Leaderboard: systems x metrics with 95% CIs, the Table-1 baselines, significance and downloads."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from evalcore.compare import compare_systems
from evalcore.errors import CBIRLensError
from evalcore.evaluation import align_run
from pages.common import (
    available_baselines,
    baseline_run,
    cached_evaluation,
    controls,
    describe_metric,
    evaluator_of,
    per_query_long,
    require_concepts,
    synthetic_banner,
    workspace,
)

st.title("Leaderboard")
ws = workspace()
synthetic_banner(ws)
if not require_concepts(ws):
    st.stop()
settings = controls()
st.write("Each row is a retrieval system; each column a metric averaged over queries, with its 95% bootstrap "
         "confidence interval. Relevance between two images is the overlap of their concepts (IoU), or nn-IoU, "
         "which also credits concepts that are neighbours in the knowledge graph.")

baselines = st.multiselect("Table-1 baselines (computed here, ranked over the whole pool)", available_baselines(ws),
                           default=[], key="baselines",
                           help="The paper's Table 1: retrieval by IoU, by nn-IoU and by embeddings.")
run_names = tuple(ws.runs)
if not run_names and not baselines:
    st.info("No runs loaded: upload run files on the Data page or choose a Table-1 baseline.")
    st.stop()

key = ws.evaluation_key()
try:
    with st.spinner("Evaluating runs (ideal rankings over the whole pool)…"):
        result = cached_evaluation(key, ws, run_names, tuple(baselines), settings["alpha"], settings["n"],
                                   settings["kg_mode"], settings["gain"], settings["ks"])
except CBIRLensError as error:
    st.error(str(error))
    st.stop()

summary: pd.DataFrame = result["summary"]
metrics = result["metrics"]
means = summary.pivot(index="system", columns="metric", values="mean")[metrics]
shown = summary.assign(text=summary.apply(
    lambda r: "—" if np.isnan(r["mean"]) else f"{r['mean']:.4f} [{r['low']:.4f}, {r['high']:.4f}]", axis=1))
table = shown.pivot(index="system", columns="metric", values="text")[metrics]
default_columns = [m for m in metrics if m.split("@")[0] in ("CUI", "nn-CUI", "P")][:12] or metrics[:12]
columns = st.multiselect("Metrics shown", metrics, default=default_columns, key="leaderboard_metrics")
st.dataframe(table[columns] if columns else table, width="stretch", key="leaderboard_table",
             column_config={m: st.column_config.TextColumn(m, help=describe_metric(m)) for m in metrics})
st.caption(f"alpha = {settings['alpha']}, n = {settings['n']}, KG mode {settings['kg_mode']}, "
           f"{settings['gain']} gain. Hover a column name for its meaning in plain words.")

focus = st.selectbox("Metric for the chart and the significance tests", metrics,
                     index=metrics.index("nn-CUI@10") if "nn-CUI@10" in metrics else 0, key="focus_metric")
st.markdown(f"**{focus}** — {describe_metric(focus)}")
focus_rows = summary[summary.metric == focus].sort_values("mean", ascending=False)
chart = go.Figure(go.Bar(
    x=focus_rows.system, y=focus_rows["mean"],
    error_y={"type": "data", "symmetric": False, "array": focus_rows.high - focus_rows["mean"],
             "arrayminus": focus_rows["mean"] - focus_rows.low}))
chart.update_layout(yaxis_title=focus, height=360, margin={"t": 20})
st.plotly_chart(chart, key="leaderboard_chart")

focus_column = metrics.index(focus)
values = {system: dict(zip(result["query_ids"][system], per_system[:, focus_column]))
          for system, per_system in result["values"].items()}
if len(values) >= 2:
    comparisons = compare_systems(values, samples=2000)
    names = list(values)
    matrix = pd.DataFrame(np.nan, index=names, columns=names)
    for c in comparisons:
        matrix.loc[c.system_a, c.system_b] = matrix.loc[c.system_b, c.system_a] = c.p_randomization_holm
    st.markdown("**Is the difference real?** Paired randomization test between each pair of systems, "
                "p-values corrected for multiple comparisons (Holm). Green: p < 0.05.")
    heat = go.Figure(go.Heatmap(z=matrix.values, x=names, y=names, zmin=0, zmax=0.1,
                                colorscale=[[0, "#1a9850"], [0.5, "#fee08b"], [1, "#d73027"]],
                                text=matrix.map(lambda p: "" if np.isnan(p) else f"{p:.4f}").values,
                                texttemplate="%{text}", colorbar={"title": "Holm p"}))
    heat.update_layout(height=120 + 40 * len(names), margin={"t": 20})
    st.plotly_chart(heat, key="significance_matrix")
    st.dataframe(pd.DataFrame([c.__dict__ for c in comparisons]), hide_index=True, key="comparisons")

st.subheader("Downloads")
numeric = summary.pivot(index="system", columns="metric", values="mean")[metrics]
st.download_button("Results (CSV)", numeric.to_csv().encode(), "results.csv", "text/csv", key="dl_results")
# Built only when clicked: on ROCOv2 the per-query table has about a million rows.
st.download_button("Per-query values (CSV)", lambda: per_query_long(result).to_csv(index=False).encode(), "per_query.csv",
                   "text/csv", key="dl_per_query")
latex_columns = columns or default_columns
latex = means[latex_columns].to_latex(float_format="%.4f", caption=f"alpha={settings['alpha']}, n={settings['n']}")
st.download_button("LaTeX table", latex.encode(), "results.tex", "text/plain", key="dl_latex")


def graded_qrels() -> str:
    """Pooled qrels: every (query, image) retrieved by a shown system, nn-IoU scaled to 0..100."""
    evaluator = evaluator_of(ws, settings["kg_mode"])
    runs = [r for _, r in ws.runs.values()] + [baseline_run(ws, b, settings["alpha"], settings["n"],
                                                            settings["kg_mode"]) for b in baselines]
    depth = max(settings["ks"])
    pairs = set()
    for run in runs:
        aligned = align_run(run, ws.concepts, depth)
        for row, docs in zip(aligned.query_rows, aligned.documents):
            pairs.update((int(row), int(d)) for d in docs if d >= 0)
    pairs = sorted(pairs)
    rows = np.array([p[0] for p in pairs], dtype=np.int64)
    cols = np.array([p[1] for p in pairs], dtype=np.int64)
    grades = np.rint(100 * evaluator.engine.relevance_of_pairs(rows, cols, settings["alpha"], settings["n"])).astype(int)
    ids = ws.concepts.ids
    return "".join(f"{ids[r]} 0 {ids[c]} {g}\n" for r, c, g in zip(rows, cols, grades))


if st.toggle("Prepare graded qrels (TREC format, nn-IoU x 100 as integer grade 0-100)", key="qrels_toggle"):
    st.download_button("Graded qrels", graded_qrels().encode(), "qrels.txt", "text/plain", key="dl_qrels")
    st.caption("Pooled over the top-K of the shown systems; use with trec_eval or ranx (relevance scale 0-100).")

with st.expander("Counts: skipped queries, unknown IDs, excluded values"):
    st.json(result["counts"])
