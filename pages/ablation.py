"""Ablation: nn-IoU's metric against alpha for n = 0..3 (the paper's Fig. 3), heatmap and ranking stability; with
another measure chosen in the sidebar, a sweep of one of its parameters."""

from __future__ import annotations

import textwrap

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from dashboard.caching import HASH_FUNCS
from dashboard.computed import ablation_grid, agreement_with_iou, evaluator_of, metric_names_for, parameter_sweep
from dashboard.library import (
    DEFAULT_CUTOFFS,
    HOPS,
    SCORE_DECIMALS,
    FlatCurve,
    SweepAxis,
    ablation_title,
    flat_curves,
    grid_metrics,
    grid_options,
    grids_alpha_and_n,
    informative_systems,
    nn_iou_measure,
    parse_metric,
    retrieval_system,
    score_table,
    sweep_axis,
)
from dashboard.session import audience, through_app
from dashboard.sidebar import controls
from dashboard.ui import choose_flag, choose_many, choose_one, page_with_concepts, panel_columns
from dashboard.wording import metric_header

through_app()

# n as a sequential scale: darker = concepts further apart count as related.
N_COLOURS = dict(zip(HOPS, px.colors.sample_colorscale("Plasma", [0.0, 0.3, 0.55, 0.8])))
NN_IOU = nn_iou_measure()
ALPHA_AXIS, HOPS_AXIS = sweep_axis(NN_IOU, "alpha"), sweep_axis(NN_IOU, "n")
# The legend's title on short lines: on one it is wider than the legend and plotly cuts it at the figure's edge.
LEGEND_TITLE = f"{HOPS_AXIS.parameter}: " + "<br>".join(textwrap.wrap(HOPS_AXIS.label, 24))
def score_range(metric: str) -> list[float]:
    """The value axis of ``metric``: from 0 to the largest value it can take (1, but CAG@K's sum of discounts), a
    little beyond. A fixed axis keeps a flat curve at 1 from being drawn mid-way up an axis that plotly would stretch
    to 0..2 around it."""
    return [0, 1.02 * parse_metric(metric).largest]
#: Pixels between two rows of panels: room for the upper row's tick labels and the lower row's panel titles, which
#: plotly's default spacing (a share of the figure's height) let overlap, so that a title seemed to belong above.
ROW_GAP_PX = 90
PANEL_HEIGHT_PX = 300


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
    columns = panel_columns(len(panels))
    rows = -(-len(panels) // columns)
    height = 120 + PANEL_HEIGHT_PX * rows + ROW_GAP_PX * (rows - 1)
    figure = px.line(table, x="alpha", y="value", color="curve", facet_col="system", facet_col_wrap=columns,
                     facet_row_spacing=ROW_GAP_PX / height, markers=True,
                     category_orders={"curve": [n_label(n) for n in HOPS], "system": panels},
                     color_discrete_map={n_label(n): colour for n, colour in N_COLOURS.items()},
                     labels={"value": title, "curve": LEGEND_TITLE, "alpha": ALPHA_AXIS.title})
    figure.for_each_annotation(lambda a: a.update(text=a.text.split("=", 1)[-1]))
    figure.update_yaxes(range=score_range(metric),
                        tickvals=[0, 0.2, 0.4, 0.6, 0.8, 1.0] if parse_metric(metric).largest == 1 else None)
    figure.update_xaxes(showticklabels=True, tickvals=[0, 0.25, 0.5, 0.75, 1.0])
    figure.update_layout(height=height, margin={"t": 40}, legend={"title": LEGEND_TITLE})
    return panels, table, figure


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=HASH_FUNCS)
def metric_heatmap(grid: pd.DataFrame, metric: str, shown: tuple[str, ...], system: str, title: str) -> go.Figure:
    """``metric`` of one system over alpha x n."""
    table = metric_curves(grid, metric, shown, title)[1]
    heat = table[table.system == system].pivot(index="n", columns="alpha", values="value")
    heat.index = [n_label(n) for n in heat.index]
    return px.imshow(heat, text_auto=f".{SCORE_DECIMALS}f", aspect="auto", zmin=0, zmax=parse_metric(metric).largest,
                     color_continuous_scale="Blues", labels={"color": title, "x": ALPHA_AXIS.title, "y": ""},
                     title=f"{title} of {system}, by alpha and n")


@st.cache_resource(max_entries=64, show_spinner=False, hash_funcs=HASH_FUNCS)
def sweep_curve(sweep: pd.DataFrame, metric: str, axis: SweepAxis, title: str) -> go.Figure:
    """``metric`` against the swept parameter, one curve per system."""
    table = sweep[sweep.metric == metric]
    figure = px.line(table, x="setting", y="value", color="system", markers=True,
                     labels={"setting": axis.title, "value": title}, title=f"{title} against {axis.named}")
    figure.update_yaxes(range=score_range(metric))
    figure.update_xaxes(tickvals=axis.values(5) if not axis.integer else axis.values())
    return figure


def flat_captions(flat: list[FlatCurve], metric: str, shown: set[str]) -> None:
    """Why the flat curves of ``metric`` among the ``shown`` systems do not move: one caption per reason."""
    reasons: dict[str, list[FlatCurve]] = {}
    for curve in flat:
        if curve.metric == metric and curve.system in shown:
            reasons.setdefault(curve.reason, []).append(curve)
    for reason, curves in reasons.items():
        at = ", ".join(f"{c.system} at {c.value:.{SCORE_DECIMALS}f}" for c in curves)
        st.caption(f"Flat: {at}. {reason}")


settings = controls()
chosen = settings.measure
if not grids_alpha_and_n(chosen) and chosen.params and st.session_state.get("sweep_parameter") not in chosen.params:
    # The parameter kept from another measure is not one of this one's: its first, so that the title names the one
    # swept.
    st.session_state["sweep_parameter"] = next(iter(chosen.params))
ws = page_with_concepts(ablation_title(chosen, st.session_state.get("sweep_parameter")))
who = audience()  # bound here for the choosers' labels (drawn again outside this run)
researcher = who == "researcher"  # the ranking agreement below is a researcher's
evaluator = evaluator_of(ws, settings.kg_mode)
has_kg = evaluator.kg is not None

if not grids_alpha_and_n(chosen):
    # Another measure is chosen in the sidebar: sweep one of its parameters, the others as set there.
    title = chosen.measure.title
    if not chosen.params:
        st.info(f"{title} has no parameter to sweep: its scores are on the Leaderboard. Choose a measure with "
                "parameters in the sidebar (nn-IoU, Tversky, ...) to see how they move.")
        st.stop()
    parameter = choose_one(st.selectbox, "Parameter", list(chosen.params), "sweep_parameter",
                           format_func=lambda name: sweep_axis(chosen, name).named)
    axis = sweep_axis(chosen, parameter)
    reference = retrieval_system(chosen)
    st.write(f"Relevance: `{chosen.name}`. The parameter {axis.named} moves from "
             f"{axis.low:g} to {axis.high:g}, the other parameters stay as set in the sidebar. "
             f"{reference} is re-ranked at every value; the loaded runs keep their lists and only their graded "
             "relevance changes.")
    include_runs = bool(ws.runs) and choose_flag(st.toggle, f"Include the {len(ws.runs)} loaded run(s)", "sweep_runs",
                                                 default=True, persist_state="session")
    names = metric_names_for(evaluator, DEFAULT_CUTOFFS, chosen)
    # Retrieval by the measure scores 1 at every value under the measure's own CUI (its lists are the ideal ones), and
    # label precision of a run does not read the measure: the page opens on what moves, the runs' concept match
    # under the measure first, or without runs IoU's judgement of the re-ranked lists.
    judged = f"CUI@10{{{chosen.key}}}" if include_runs else "CUI@10"
    metrics = choose_many(st.multiselect, "Metrics", names, "sweep_metrics",
                          default=[m for m in (judged, "P@30[modality]") if m in names] or names[:1],
                          format_func=lambda metric: metric_header(metric, who))
    if not metrics:
        st.caption("Choose at least one metric.")
        st.stop()
    sweep = parameter_sweep.with_bar(f"Sweeping {axis.named} of {title}…", ws, chosen, parameter, tuple(axis.values()),
                                     tuple(metrics), include_runs, settings.kg_mode, settings.options())
    flat = flat_curves(sweep, chosen, [parameter], has_kg)
    for metric in metrics:
        st.plotly_chart(sweep_curve(sweep, metric, axis, metric_header(metric)), key=f"sweep_{metric}")
        flat_captions(flat, metric, set(sweep.system))
    st.dataframe(score_table(sweep.pivot_table(index=["metric", "system"], columns="setting", values="value",
                                               sort=False)), key="sweep_table")
    st.stop()

st.write(f"How the scores move with alpha, the {ALPHA_AXIS.label} (from {ALPHA_AXIS.low:g} to {ALPHA_AXIS.high:g}), "
         f"and n, the {HOPS_AXIS.label} in the knowledge graph (from {HOPS_AXIS.low:g} to {HOPS_AXIS.high:g}). n = 0 is "
         "plain IoU: only identical concepts count. Retrieval by nn-IoU is re-ranked at every setting; loaded runs keep "
         "their lists and only their graded relevance changes.")
if chosen.key == "iou":
    st.caption("IoU, chosen in the sidebar, has no parameter of its own: it is nn-IoU at n = 0, the first curve of "
               "every panel.")

names = metric_names_for(evaluator, DEFAULT_CUTOFFS)
metrics = choose_many(st.multiselect, "Metrics", names, "ablation_metrics", default=grid_metrics(names, bool(ws.runs)),
                      format_func=lambda metric: metric_header(metric, who))
include_runs = bool(ws.runs) and choose_flag(st.toggle, f"Include the {len(ws.runs)} loaded run(s)", "ablation_runs",
                                             default=True, persist_state="session")
isolated = bool(ws.kg_files) and choose_flag(
    st.toggle, "Only the queries whose top 30 change when related concepts count (the paper's isolated subset)",
    "ablation_isolated", persist_state="session")
if not ws.kg_files:
    st.info("No knowledge graph loaded: every n gives IoU, so the curves coincide.")
if not metrics:
    st.caption("Choose at least one metric.")
    st.stop()

grid = ablation_grid.with_bar("Computing the alpha x n grid…", ws, tuple(metrics), include_runs, isolated,
                              grid_options(settings.options(), isolated), settings.kg_mode)
st.caption(f"Averaged over {grid.attrs.get('queries', len(ws.concepts)):,} queries.")
flat = flat_curves(grid, settings.relevance, ["alpha", "n"], has_kg)

# Systems whose grid varies first: one constant on every setting (retrieval by nn-IoU under nn-CUI) says nothing.
systems = informative_systems(grid, metrics)
shown = choose_many(st.multiselect, "Systems (one panel each)", systems, "ablation_systems", default=systems[:6])
for metric in metrics:
    title = metric_header(metric)
    st.subheader(title)
    panels, table, figure = metric_curves(grid, metric, tuple(shown), title)
    if table.empty:
        st.caption("Choose at least one system.")
        continue
    st.plotly_chart(figure, key=f"curve_{metric}")
    flat_captions(flat, metric, set(shown))
    system = choose_one(st.selectbox, "Heatmap for system", panels, f"heat_system_{metric}")
    st.plotly_chart(metric_heatmap(grid, metric, tuple(shown), system, title), key=f"heat_{metric}")
    if researcher and table.system.nunique() >= 2:
        st.markdown("**Does the winner change?** Kendall tau between the system ranking at each setting and the "
                    "ranking under IoU (1 = same order). Rows: distance threshold n; columns: alpha.")
        # A styler is built per session: Streamlit writes its display values into it while drawing.
        tau = agreement_with_iou(grid, metric, tuple(shown))
        st.dataframe(score_table(tau.rename(index=n_label)), key=f"tau_{metric}")
