"""Knowledge graph: the shortest path between two concepts, a concept's neighbourhood, coverage."""

from __future__ import annotations

import math
import textwrap

import networkx as nx
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from dashboard.computed import (
    concept_frequency,
    default_pair,
    kg_coverage_of,
    kg_of,
    neighbourhood_of,
    search_names,
    searchable_names,
    shortest_path_of,
)
from dashboard.library import (
    SOURCE_NAMES,
    path_phrase,
    path_steps,
    paths_dot,
    readable_path,
    shown_name,
    source_phrase,
)
from dashboard.session import audience, through_app
from dashboard.sidebar import controls
from dashboard.ui import concept_label, escape_markdown, hand_back, keep_in_address, linked_text, page_with_concepts
from dashboard.wording import hop_meaning, link_words, say

through_app()

LABELLED_NODES = 40


ws = page_with_concepts("Knowledge graph")
kg = kg_of(ws)
if kg is None:
    st.info("No knowledge graph loaded: add one on the Data page.")
    st.stop()
settings = controls()
who = audience()
frequency = concept_frequency(ws)
coverage = kg_coverage_of(ws)
c1, c2, c3 = st.columns(3)
map_word = say("map_word")
# Labels of at most 19 characters and no help icon: a 900-px page gives each metric a third of its width and cuts a
# longer label; the caption below says what they count.
c1.metric(say("kg_concepts"),
          f"{coverage.concepts_in_kg:,} / {coverage.concepts:,}")
c2.metric("Occurrences covered", f"{coverage.occurrence_share:.1%}")
c3.metric(say("kg_size"), f"{coverage.nodes:,} / {coverage.links:,}")
st.caption(f"The dataset's concepts in the {map_word}, of all of them; the share of their occurrences in the images "
           f"whose concept is in it; the {map_word}'s " + say("kg_size_words"))


names = searchable_names(ws)
in_kg = sorted((c for c in frequency if c in kg.index), key=lambda c: (-frequency[c], names[c].lower()))
pair = default_pair(ws, settings.kg_mode)


def label(node: str) -> str:
    text = concept_label(ws, node, kg)
    if frequency.get(node):
        text += f" · {frequency[node]:,} image{'s' if frequency[node] != 1 else ''}"
    elif node not in frequency:
        text += " · not in the dataset"
    return text


def find(title: str, key: str, default: str | None) -> str | None:
    """A search box and the matching concepts, best first; a new search text selects its best match. The choice is
    kept in the address (a link opens the same endpoints): a concept the address names is the default when the
    session has none."""
    natural = default
    if key not in st.session_state and (linked := linked_text(key, lambda text: text in kg.index)) is not None:
        default = linked
    chosen = _found(title, key, default)
    if chosen is not None:
        keep_in_address(key, [] if chosen == natural else [chosen])
    return chosen


def _found(title: str, key: str, default: str | None) -> str | None:
    how = say("search_how")
    text = st.text_input(f"Search {title} {how}", key=f"{key}_search").strip()
    if text:
        found = search_names(ws, text)
        if not found:
            st.warning(f"No concept matches {text!r}.")
            return None
        best = found[0]
        st.caption(f"{len(found):,} match{'es' if len(found) != 1 else ''}, best first: exact name, then names "
                   "starting with the text, then names containing it.")
    else:
        found = in_kg[:300]
        if default is not None and default not in found:
            found = [default, *found]
        if not found:
            return None
        best = default if default in found else found[0]
    # Set through the session state (not a default index), so that the browser shows the new choice too.
    marker = f"{key}__searched"
    chosen = st.session_state.get(key)
    if st.session_state.get(marker) != text or chosen not in found:
        st.session_state[marker] = text
        chosen = best
    hand_back(key, chosen, label(chosen))  # sent again where it changed, or is labelled for the other audience
    return st.selectbox(title, found, key=key, format_func=label)


def called(node: str) -> str:
    """A node's name as the reader reads it (searchable_names holds the ID where no name is known)."""
    return shown_name(node, names[node] if names.get(node, node) != node else None, who)


def draw_network(graph: nx.Graph, highlight: set[str], title: str, key: str) -> None:
    """A neighbourhood as a network; full names, wrapped, and room at the edges so no label is cut."""
    positions = nx.spring_layout(graph, seed=1) if len(graph) > 1 else {n: (0.0, 0.0) for n in graph}
    edge_x, edge_y = [], []
    for a, b in graph.edges:
        edge_x += [positions[a][0], positions[b][0], None]
        edge_y += [positions[a][1], positions[b][1], None]
    nodes = list(graph.nodes)
    # Past a few dozen nodes only the chosen and the dataset's concepts are labelled; the rest on hover.
    labelled = set(nodes) if len(nodes) <= LABELLED_NODES else {n for n in nodes if n in highlight or n in frequency}
    figure = go.Figure([
        go.Scatter(x=edge_x, y=edge_y, mode="lines", line={"color": "#999", "width": 1}, hoverinfo="none"),
        go.Scatter(x=[positions[n][0] for n in nodes], y=[positions[n][1] for n in nodes], mode="markers+text",
                   text=["<br>".join(textwrap.wrap(called(n), 22)) if n in labelled else "" for n in nodes],
                   textposition="top center", textfont={"size": 11},
                   hovertext=[f"{concept_label(ws, n, kg)}<br>{frequency.get(n, 0):,} images" for n in nodes],
                   hoverinfo="text",
                   marker={"size": [10 + 3 * math.log1p(frequency.get(n, 0)) for n in nodes],
                           "color": ["#d62728" if n in highlight else ("#1f77b4" if n in frequency else "#c7c7c7")
                                     for n in nodes]}),
    ])
    xs = [positions[n][0] for n in nodes] or [0.0]
    ys = [positions[n][1] for n in nodes] or [0.0]
    pad_x, pad_y = 0.25 * (max(xs) - min(xs) or 1), 0.15 * (max(ys) - min(ys) or 1)
    figure.update_layout(title=title, showlegend=False, height=560, margin={"t": 50, "l": 10, "r": 10, "b": 10},
                         xaxis={"visible": False, "range": [min(xs) - pad_x, max(xs) + pad_x]},
                         yaxis={"visible": False, "range": [min(ys) - pad_y, max(ys) + 1.5 * pad_y]})
    st.plotly_chart(figure, key=key)


st.subheader("Shortest path between two concepts")
st.caption(say("type_a_name"))
left, right = st.columns(2)
with left:
    source = find("From", "kg_from", pair[0] if pair else None)
with right:
    target = find("To", "kg_to", pair[1] if pair else None)
if source and target:
    missing = [concept_label(ws, c, kg) for c in (source, target) if c not in kg.index]
    path = shortest_path_of(ws, source, target, settings.kg_mode)
    if missing:
        st.warning(f"{' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} not in the knowledge graph, "
                   "so no path can reach it.")
    elif path is None:
        st.warning(f"No path between these concepts in {settings.kg_mode} mode.")
    else:
        steps = readable_path(path_steps(kg, path, names), who)
        hops = len(path) - 1
        origin = source_phrase(steps)
        st.markdown(f"**Distance: {hops} hop{'s' if hops != 1 else ''}.** "
                    + path_phrase(steps, lambda s: f"*{escape_markdown(s)}*") + "."
                    + (f" ({escape_markdown(origin[0].upper() + origin[1:])}.)" if origin else ""))
        st.graphviz_chart(paths_dot([steps], {source}, {target}, "LR"), width="content")
        st.dataframe(pd.DataFrame([{"step": i, "concept": concept_label(ws, step.node, kg),
                                    "link": link_words(step.link, step.relation),
                                    "from": ", ".join(SOURCE_NAMES.get(t, t) for t in step.sources)}
                                   for i, step in enumerate(steps)]), hide_index=True, key="kg_path_table",
                     width="stretch")

st.subheader("Neighbourhood")
st.caption("Red: the chosen concept. Blue: concepts that occur in the dataset (size = how often). Grey: other "
           f"{map_word} terms (names on hover when many).")
centre = find("Concept", "kg_concept", source or (pair[0] if pair else None))
hops_shown = st.slider("Hops shown", 1, 3, max(1, settings.n), key="kg_hops")
if centre and centre in kg.index:
    found = neighbourhood_of(ws, centre, hops_shown, settings.kg_mode)
    reached = found.distances
    if found.reached > len(reached):
        st.caption(f"{found.reached:,} nodes within {hops_shown} hops; showing the {len(reached):,} closest.")
    graph = nx.Graph()
    graph.add_nodes_from(reached)
    graph.add_edges_from(found.links)
    draw_network(graph, {centre}, f"Within {hops_shown} hop(s) of {called(centre)}", "kg_neighbourhood")
    table = pd.DataFrame([{"concept": concept_label(ws, n, kg), "hops": d, "images": frequency.get(n, 0)}
                          for n, d in sorted(reached.items(), key=lambda item: item[1]) if n != centre])
    st.dataframe(table, hide_index=True, key="kg_neighbour_table", width="stretch",
                 column_config={"images": st.column_config.NumberColumn(format="localized")})  # 9,927, as elsewhere
elif centre:
    st.info(f"{concept_label(ws, centre, kg)} is not in the {map_word}.")
if (meaning := hop_meaning()) is not None:  # a clinician's: a researcher knows what a hop is
    st.caption(meaning)
