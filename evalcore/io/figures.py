"""Plotly figures of the reproduction report, shared by ``scripts/reproduce_paper.py`` and the Method page."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

N_COLOURS = {0: "#444444", 1: "#1f77b4", 2: "#d62728", 3: "#2ca02c"}


def ablation_figure(grid: pd.DataFrame, as_scores: bool = False) -> go.Figure:
    """Fig. 3: P@K against alpha, one line per n; rows = query subset, columns = label target. The grid holds
    percentages (as the paper prints them); ``as_scores`` draws them as the dashboard shows every score, from 0
    to 1 (:data:`evalcore.io.tables.SCORE_DECIMALS`)."""
    subsets = list(dict.fromkeys(grid.subset))
    metrics = list(dict.fromkeys(grid.metric))
    figure = make_subplots(rows=len(subsets), cols=len(metrics), shared_xaxes=True,
                           subplot_titles=[f"{m} — {s} queries" for s in subsets for m in metrics])
    for row, subset in enumerate(subsets, start=1):
        for col, metric in enumerate(metrics, start=1):
            part = grid[(grid.subset == subset) & (grid.metric == metric)]
            for n, curve in part.groupby("n"):
                curve = curve.sort_values("alpha")
                figure.add_trace(go.Scatter(x=curve.alpha, y=curve.value / 100 if as_scores else curve.value,
                                            mode="lines+markers", name=f"n = {n}",
                                            line={"color": N_COLOURS.get(int(n))}, legendgroup=str(n),
                                            showlegend=row == 1 and col == 1), row=row, col=col)
            figure.update_xaxes(title_text="alpha" if row == len(subsets) else None, row=row, col=col)
            figure.update_yaxes(title_text=("P@K" if as_scores else "P@K (%)") if col == 1 else None, row=row, col=col)
    figure.update_layout(height=330 * len(subsets), width=380 * len(metrics), margin={"t": 50})
    return figure


def timing_figure(timing: pd.DataFrame) -> go.Figure:
    """Fig. 4: seconds against the number of queries (log scale); dashed = scaled from a sample."""
    figure = go.Figure()
    for method, part in timing.groupby("method", sort=False):
        figure.add_trace(go.Scatter(x=part.queries, y=part.seconds, mode="lines+markers", name=method,
                                    line={"dash": "dash" if part.scaled.any() else "solid"}))
    figure.update_layout(xaxis_title="queries (candidates: the whole split)", yaxis_title="seconds (log)",
                         yaxis_type="log", height=450, width=900, legend={"font": {"size": 11}})
    return figure


def worked_example_figure(a: list[str], b: list[str], edges: list[tuple[str, str, str]],
                          matched: set[str]) -> go.Figure:
    """Two concept sets side by side: shared concepts on one line, KG edges drawn between the sets.

    ``edges`` holds (concept in A, concept in B, label); ``matched`` the approximate matches.
    """
    shared = [c for c in a if c in b]
    only_a = [c for c in a if c not in b]
    only_b = [c for c in b if c not in a]
    position = {}
    for i, concept in enumerate(shared):
        position[("A", concept)] = (0, -i)
        position[("B", concept)] = (2, -i)
    for i, concept in enumerate(only_a, start=len(shared)):
        position[("A", concept)] = (0, -i)
    for i, concept in enumerate(only_b, start=len(shared)):
        position[("B", concept)] = (2, -i)
    figure = go.Figure()
    for concept in shared:
        (x0, y0), (x1, y1) = position[("A", concept)], position[("B", concept)]
        figure.add_trace(go.Scatter(x=[x0, x1], y=[y0, y1], mode="lines", line={"color": "#2ca02c", "width": 3},
                                    hoverinfo="skip", showlegend=False))
        figure.add_annotation(x=1, y=y0, text="exact match", showarrow=False, yshift=10)
    for left, right, label in edges:
        (x0, y0), (x1, y1) = position[("A", left)], position[("B", right)]
        figure.add_trace(go.Scatter(x=[x0, x1], y=[y0, y1], mode="lines",
                                    line={"color": "#ff7f0e", "width": 3, "dash": "dash"}, hoverinfo="skip",
                                    showlegend=False))
        figure.add_annotation(x=1, y=(y0 + y1) / 2, text=label, showarrow=False, yshift=10)
    for (side, concept), (x, y) in position.items():
        colour = "#2ca02c" if concept in shared else ("#ff7f0e" if concept in matched else "#999999")
        figure.add_trace(go.Scatter(x=[x], y=[y], mode="markers+text", text=[concept],
                                    textposition="middle left" if side == "A" else "middle right",
                                    marker={"size": 18, "color": colour}, hoverinfo="text", showlegend=False))
    for x, title in ((0, "image A"), (2, "image B")):
        figure.add_annotation(x=x, y=0.8, text=f"<b>{title}</b>", showarrow=False)
    depth = len(shared) + max(len(only_a), len(only_b))
    figure.update_layout(height=140 + 70 * depth, xaxis={"visible": False, "range": [-1.6, 3.6]},
                         yaxis={"visible": False, "range": [-depth + 0.4, 1.2]}, margin={"t": 10, "b": 10})
    return figure
