"""Knowledge graph: a concept's neighbourhood, the shortest path between two concepts, coverage."""

from __future__ import annotations

import math
from collections import Counter

import networkx as nx
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from pages.common import concept_label, controls, escape_markdown, kg_of, require_concepts, synthetic_banner, workspace

st.title("Knowledge graph")
ws = workspace()
synthetic_banner(ws)
if not require_concepts(ws):
    st.stop()
kg = kg_of(ws)
if kg is None:
    st.info("No knowledge graph loaded: add one on the Data page.")
    st.stop()
settings = controls()
frequency = Counter(c for s in ws.concepts.sets for c in s)
coverage = kg.coverage(ws.concepts.sets)
c1, c2, c3 = st.columns(3)
c1.metric("Dataset CUIs in the KG", f"{coverage['concepts_in_kg']:,} / {coverage['concepts']:,}")
c2.metric("Occurrences covered", f"{coverage['occurrence_coverage']:.1%}")
c3.metric("KG nodes / edges", f"{kg.number_of_nodes():,} / {kg.number_of_edges():,}")

options = sorted((c for c in frequency if c in kg.index), key=lambda c: -frequency[c])
labels = {c: f"{concept_label(ws, c, kg)} · {frequency[c]:,} images" for c in options}


def find(label: str, key: str, default: int = 0) -> str | None:
    text = st.text_input(f"Search {label} by CUI or name", key=f"{key}_search").strip().lower()
    found = [c for c in options if text in labels[c].lower()] if text else options
    if text:
        # Beyond the dataset's concepts, any KG term may be a path end (e.g. the parent "Blood Vessels").
        found += [n for n in kg.nodes if n not in frequency and text in concept_label(ws, n, kg).lower()][:300]
        labels.update({n: concept_label(ws, n, kg) for n in found if n not in labels})
    if not found:
        st.warning(f"No dataset concept in the KG matches {text!r}.")
        return None
    return st.selectbox(label, found[:300], index=min(default, len(found[:300]) - 1), key=key,
                        format_func=lambda c: labels[c])


def draw(graph: nx.Graph, highlight: set[str], title: str, key: str) -> None:
    positions = nx.spring_layout(graph, seed=1) if len(graph) > 1 else {n: (0, 0) for n in graph}
    edge_x, edge_y = [], []
    for a, b in graph.edges:
        edge_x += [positions[a][0], positions[b][0], None]
        edge_y += [positions[a][1], positions[b][1], None]
    nodes = list(graph.nodes)
    figure = go.Figure([
        go.Scatter(x=edge_x, y=edge_y, mode="lines", line={"color": "#999", "width": 1}, hoverinfo="none"),
        go.Scatter(x=[positions[n][0] for n in nodes], y=[positions[n][1] for n in nodes], mode="markers+text",
                   text=[concept_label(ws, n, kg).split(" (")[0][:24] for n in nodes], textposition="top center",
                   hovertext=[f"{concept_label(ws, n, kg)}<br>{frequency.get(n, 0):,} images" for n in nodes],
                   hoverinfo="text",
                   marker={"size": [10 + 3 * math.log1p(frequency.get(n, 0)) for n in nodes],
                           "color": ["#d62728" if n in highlight else ("#1f77b4" if n in frequency else "#c7c7c7")
                                     for n in nodes]}),
    ])
    figure.update_layout(title=title, showlegend=False, height=480, xaxis={"visible": False},
                         yaxis={"visible": False}, margin={"t": 40})
    st.plotly_chart(figure, key=key)


st.subheader("Neighbourhood")
st.caption("Red: the chosen concept(s). Blue: concepts that occur in the dataset (size = frequency). Grey: other KG terms.")
centre = find("Concept", "kg_concept")
hops = st.slider("Hops shown", 1, 3, max(1, settings["n"]), key="kg_hops")
if centre:
    reached = kg.distances_from(centre, hops, settings["kg_mode"])
    if len(reached) > 150:
        st.caption(f"{len(reached):,} nodes within {hops} hops; showing the 150 closest.")
        reached = dict(sorted(reached.items(), key=lambda item: item[1])[:150])
    graph = nx.Graph()
    graph.add_nodes_from(reached)
    for node in reached:
        i = kg.index[node]
        for j in kg.parents.indices[kg.parents.indptr[i]: kg.parents.indptr[i + 1]]:
            if kg.nodes[j] in reached:
                graph.add_edge(node, kg.nodes[j])
    draw(graph, {centre}, f"Within {hops} hop(s) of {concept_label(ws, centre, kg)}", "kg_neighbourhood")
    table = pd.DataFrame([{"concept": concept_label(ws, n, kg), "hops": d, "images": frequency.get(n, 0)}
                          for n, d in sorted(reached.items(), key=lambda item: item[1]) if n != centre])
    st.dataframe(table, hide_index=True, key="kg_neighbour_table")

st.subheader("Shortest path between two concepts")
left, right = st.columns(2)
with left:
    source = find("From", "kg_from")
with right:
    target = find("To", "kg_to", default=1)
if source and target:
    path = kg.shortest_path(source, target, settings["kg_mode"])
    if path is None:
        st.warning("No path between these concepts in this KG mode.")
    else:
        st.markdown(f"**Distance: {len(path) - 1} hop(s)** — " + " → ".join(
            escape_markdown(concept_label(ws, node, kg)) for node, _ in path))
        st.dataframe(pd.DataFrame([{"step": i, "concept": concept_label(ws, node, kg),
                                    "link": {"": "start", "is_a": "is a (up)", "has_child": "has child (down)"}[link]}
                                   for i, (node, link) in enumerate(path)]), hide_index=True, key="kg_path_table")
        graph = nx.path_graph([node for node, _ in path])
        draw(graph, {source, target}, "Shortest path", "kg_path")
