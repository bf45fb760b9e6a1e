"""Ablation: a metric against alpha for n = 0..3 (the paper's Fig. 3), heatmap, and ranking stability."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from evalcore.ablation import HOPS, RELEVANCE_SYSTEM, informative_systems, ranking_agreement, sweep_values
from evalcore.tables import SCORE_DECIMALS, plain_metric_label, score_table
from pages.computed import EVALUATION_INPUTS, HASH_FUNCS, ablation_of, evaluator_of, kept_with_bar, metric_names_for, sweep_of
from pages.session import audience, server_kept
from pages.sidebar import controls
from pages.ui import page_with_concepts

# n as a sequential scale: darker = concepts further apart count as related.
N_COLOURS = dict(zip(HOPS, px.colors.sample_colorscale("Plasma", [0.0, 0.3, 0.55, 0.8])))


def n_label(n: int) -> str:
    return "n = 0 (IoU)" if n == 0 else f"n = {n}"


# The figures and tables below are built once per grid and choice for every session showing them (eight sessions
# on the same data drew the same figures eight times: plotly builds a faceted figure in about 0.1 s), keyed by the
# grid's content (HASH_FUNCS) and the drawing choices; they are shared read-only.
@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=HASH_FUNCS)
def metric_curves(grid: pd.DataFrame, metric: str, shown: tuple[str, ...],
                  title: str) -> tuple[list[str], pd.DataFrame, go.Figure | None]:
    """The panels (systems that vary first), the shown systems' rows of ``metric`` with their curve label, and the
    metric against alpha, one curve per n and one panel per system (None when no system is shown)."""
    panels = [s for s in informative_systems(grid, metric) if s in shown]
    table = grid[(grid.metric == metric) & grid.system.isin(shown)].assign(
        curve=lambda t: t.n.map(n_label)).sort_values(["system", "n", "alpha"])
    if table.empty:
        return panels, table, None
    figure = px.line(table, x="alpha", y="value", color="curve", facet_col="system",
                     facet_col_wrap=min(3, len(shown)), markers=True,
                     category_orders={"curve": [n_label(n) for n in HOPS], "system": panels},
                     color_discrete_map={n_label(n): colour for n, colour in N_COLOURS.items()},
                     labels={"value": title, "curve": "distance threshold"})
    figure.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1]))
    rows = -(-len(shown) // min(3, len(shown)))
    figure.update_yaxes(range=[0, 1.02], tickvals=[0, 0.2, 0.4, 0.6, 0.8, 1.0])
    figure.update_xaxes(showticklabels=True, tickvals=[0, 0.25, 0.5, 0.75, 1.0])
    figure.update_layout(height=120 + 300 * rows, margin={"t": 40}, legend={"title": "distance threshold"})
    return panels, table, figure


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=HASH_FUNCS)
def metric_heatmap(grid: pd.DataFrame, metric: str, shown: tuple[str, ...], system: str, title: str) -> go.Figure:
    """``metric`` of one system over alpha x n."""
    table = metric_curves(grid, metric, shown, title)[1]
    heat = table[table.system == system].pivot(index="n", columns="alpha", values="value")
    heat.index = [n_label(n) for n in heat.index]
    return px.imshow(heat, text_auto=f".{SCORE_DECIMALS}f", aspect="auto", zmin=0, zmax=1,
                     color_continuous_scale="Blues", labels={"color": title, "x": "alpha", "y": ""},
                     title=f"{title}: alpha x n for {system}")


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=HASH_FUNCS)
def kendall_table(grid: pd.DataFrame, metric: str, shown: tuple[str, ...]) -> pd.DataFrame:
    """Kendall tau against the ranking under IoU, n x alpha, for the shown systems."""
    tau = ranking_agreement(grid[grid.system.isin(shown)], metric).pivot(index="n", columns="alpha",
                                                                         values="kendall_tau")
    tau.index = [n_label(n) for n in tau.index]
    return tau


ws = page_with_concepts("Ablation: alpha and distance threshold n")
settings = controls()
who = audience()
evaluator = evaluator_of(ws, settings.kg_mode)

chosen = settings.measure
if chosen.key not in ("iou", "nn-iou"):
    # Another measure is chosen in the sidebar: sweep one of its parameters, the others as set there.
    st.subheader(f"Sweep a parameter of {chosen.measure.title}")
    st.write(f"Relevance: `{chosen.name}`. One parameter moves over its range; retrieval by the measure is re-ranked "
             "at every value, the loaded runs stay fixed and only their graded relevance changes.")
    if not chosen.params:
        st.info(f"{chosen.measure.title} has no parameter to sweep: its scores are on the Leaderboard. Choose a "
                "measure with parameters in the sidebar (nn-IoU, Tversky, ...) to see how they move.")
        st.stop()
    parameter = st.selectbox("Parameter", list(chosen.params), key="sweep_parameter")
    names = metric_names_for(evaluator, (5, 10, 30), chosen.name)
    preferred = [m for m in ("P@30[modality]", f"CUI@10{{{chosen.key}}}") if m in names]
    metrics = st.multiselect("Metrics", names, default=preferred or names[:1], key="sweep_metrics")
    include_runs = st.toggle("Include the loaded runs", value=True, key="sweep_runs")
    if not metrics:
        st.stop()
    values = sweep_values(chosen, parameter)
    sweep = kept_with_bar(server_kept(), f"Sweeping {parameter}…", sweep_of, ws.restricted_to(*EVALUATION_INPUTS),
                          chosen, parameter, tuple(values), tuple(metrics), include_runs, settings.kg_mode, settings.gain)
    for metric in metrics:
        table = sweep[sweep.metric == metric]
        st.plotly_chart(px.line(table, x="setting", y="value", color="system", markers=True,
                                labels={"setting": parameter, "value": metric}, title=f"{metric} against {parameter}"),
                        key=f"sweep_{metric}")
    st.dataframe(score_table(sweep.pivot_table(index=["metric", "system"], columns="setting", values="value",
                                               sort=False)), key="sweep_table")
    st.stop()
st.write("How the scores move when related concepts count more (alpha) and when concepts further apart in the "
         "knowledge graph count as related (n). n = 0 is plain IoU: only identical concepts count. Retrieval by "
         "nn-IoU is re-ranked at every setting; loaded runs keep their lists and only their graded relevance changes.")

names = metric_names_for(evaluator, (5, 10, 30))
# Without runs only retrieval by nn-IoU is drawn, and its nn-CUI is 1 by construction: show how IoU judges it.
defaults = [m for m in ("P@30[modality]", "nn-CUI@10" if ws.runs else "CUI@10") if m in names] or ["nn-CUI@10"]
metrics = st.multiselect("Metrics", names, default=defaults, key="ablation_metrics",
                         format_func=plain_metric_label if who == "clinician" else str)
include_runs = bool(ws.runs) and st.toggle(f"Include the {len(ws.runs)} loaded run(s)", value=True,
                                           key="ablation_runs")
isolated = bool(ws.kg_files) and st.toggle(
    "Only the queries whose top 30 change when related concepts count (the paper's isolated subset)",
    key="ablation_isolated")
if not ws.kg_files:
    st.info("No knowledge graph loaded: every n gives IoU, so the curves coincide.")
if not metrics:
    st.stop()

grid = kept_with_bar(server_kept(), "Computing the alpha x n grid…", ablation_of, ws.restricted_to(*EVALUATION_INPUTS),
                     tuple(metrics), include_runs, isolated, settings.relevance, settings.kg_mode, settings.gain)
st.caption(f"Averaged over {grid.attrs.get('queries', len(ws.concepts)):,} queries.")

# Systems whose grid varies first: one constant on every setting (retrieval by nn-IoU under nn-CUI) says nothing.
systems = informative_systems(grid, metrics)
shown = st.multiselect("Systems (one panel each)", systems, default=systems[:6], key="ablation_systems")
for metric in metrics:
    title = plain_metric_label(metric) if who == "clinician" else metric
    st.subheader(title)
    panels, table, figure = metric_curves(grid, metric, tuple(shown), title)
    if table.empty:
        st.caption("Choose at least one system.")
        continue
    st.plotly_chart(figure, key=f"curve_{metric}")
    flat = [s for s, part in table.groupby("system") if np.allclose(part.value, 1.0)]
    if flat:
        st.caption(f"{', '.join(flat)} score{'s' if len(flat) == 1 else ''} 1 at every setting: "
                   f"{'it ranks' if len(flat) == 1 else 'they rank'} by the very relevance {metric} measures, "
                   "so the ranking is the ideal one.")
    if metric.startswith("P@") and any(s != RELEVANCE_SYSTEM for s in shown):
        st.caption("Label precision of a loaded run does not depend on alpha or n (its list is fixed and labels do "
                   "not use the KG): only the re-ranked retrieval by nn-IoU moves.")
    system = st.selectbox("Heatmap for system", panels, key=f"heat_system_{metric}")
    st.plotly_chart(metric_heatmap(grid, metric, tuple(shown), system, title), key=f"heat_{metric}")
    if table.system.nunique() >= 2 and who == "researcher":
        st.markdown("**Does the winner change?** Kendall tau between the system ranking at each setting and the "
                    "ranking under IoU (1 = same order). Rows: distance threshold n; columns: alpha.")
        # A styler is built per session: Streamlit writes its display values into it while drawing.
        st.dataframe(score_table(kendall_table(grid, metric, tuple(shown))), key=f"tau_{metric}")
