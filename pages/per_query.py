"""Per-query: one query's image, caption and concepts; each system's top-K as image cards that say why."""

from __future__ import annotations

import numpy as np
import pandas as pd
import plotly.express as px
import streamlit as st

from evalcore.kg import neighbour_sets
from evalcore.relevance import approximate_matches, iou, nn_iou
from pages.common import (
    available_baselines,
    baseline_run,
    cached_evaluation,
    chip,
    concept_label,
    controls,
    escape_markdown,
    kg_of,
    per_query_values,
    require_concepts,
    synthetic_banner,
    thumbnail,
    workspace,
)

st.title("Per-query view")
ws = workspace()
synthetic_banner(ws)
if not require_concepts(ws):
    st.stop()
settings = controls()
kg = kg_of(ws)
concepts = ws.concepts
st.caption("Green: the same concept as the query. Orange: a near match (a neighbour in the knowledge graph). "
           "Grey: no match.")

systems = {name: run for name, (_, run) in ws.runs.items()}
for baseline in st.multiselect("Also show baselines", available_baselines(ws), key="pq_baselines"):
    systems[baseline] = baseline_run(ws, baseline, settings["alpha"], settings["n"], settings["kg_mode"])
if not systems:
    st.info("Load runs on the Data page or choose a baseline above.")
    st.stop()

search = st.text_input("Find a query by image ID, CUI or caption word", key="pq_search").strip()
if search:
    needle = search.lower()
    matches = [i for i in concepts.ids if needle in i.lower() or search.upper() in concepts[i]
               or needle in ws.captions.get(i, "").lower()][:500]
else:
    matches = list(next(iter(systems.values())).rankings)[:500]
if not matches:
    st.warning(f"No query matches {search!r}.")
    st.stop()

names = list(systems)
chosen = st.multiselect("Systems side by side", names, default=names[:3], key="pq_systems", max_selections=4)
k = st.select_slider("Top K shown", options=[3, 5, 10], value=5, key="pq_k")

with st.expander("Largest differences between two systems", expanded=False):
    key = ws.evaluation_key()
    run_names = tuple(n for n in names if n in ws.runs)
    extra = tuple(n for n in names if n not in ws.runs)
    result = cached_evaluation(key, ws, run_names, extra, settings["alpha"], settings["n"], settings["kg_mode"],
                               settings["gain"], settings["ks"])
    metric = st.selectbox("Metric", result["metrics"], key="pq_metric",
                          index=result["metrics"].index("nn-CUI@10") if "nn-CUI@10" in result["metrics"] else 0)
    a_col, b_col = st.columns(2)
    system_a = a_col.selectbox("System A", names, key="pq_a")
    system_b = b_col.selectbox("System B", names, index=min(1, len(names) - 1), key="pq_b")
    wide = per_query_values(result, metric)
    if system_a in wide and system_b in wide and system_a != system_b:
        pair = wide[[system_a, system_b]].dropna()
        figure = px.scatter(pair, x=system_a, y=system_b, opacity=0.4, hover_name=pair.index,
                            title=f"{metric} per query: {system_a} vs {system_b}")
        figure.add_shape(type="line", x0=0, y0=0, x1=1, y1=1, line={"dash": "dot"})
        st.plotly_chart(figure, key="pq_scatter")
        differences = (pair[system_a] - pair[system_b]).rename("A - B")
        top = pd.concat([pair, differences], axis=1).reindex(differences.abs().sort_values(ascending=False).index)
        st.dataframe(top.head(20), key="pq_differences")
        if st.checkbox("Pick the query from this table", key="pq_use_differences"):
            matches = list(top.index[:20])

query = st.selectbox("Query", matches, key="pq_query")
query_set = concepts[query] if query in concepts.index else frozenset()
neighbours = neighbour_sets(kg, tuple(sorted(set(concepts.vocabulary))), settings["n"], settings["kg_mode"]) \
    if kg is not None and settings["n"] > 0 else {}

left, right = st.columns([1, 3])
with left:
    picture = ws.image_bytes(query)
    image = thumbnail(picture) if picture else None
    if image is not None:
        st.image(image, caption=query)
    else:
        st.text(f"[no image for {query}]")
with right:
    st.markdown("**Caption:**")
    st.text(ws.captions.get(query, "(no caption loaded)"))
    st.markdown("**Concepts:** " + " ".join(chip(concept_label(ws, c, kg), "blue") for c in sorted(query_set)))


def path_text(a: str, b: str) -> str:
    path = kg.shortest_path(a, b, settings["kg_mode"]) if kg is not None else None
    if not path:
        return ""
    steps = " → ".join(concept_label(ws, node, kg).split(" (")[0] for node, _ in path)
    return f"{steps} ({len(path) - 1} hop{'s' if len(path) > 2 else ''})"


def card(document: str, rank: int) -> None:
    doc_set = concepts[document] if document in concepts.index else None
    picture = ws.image_bytes(document)
    image = thumbnail(picture) if picture else None
    if image is not None:
        st.image(image, width=140)
    else:
        st.text("[no image]")
    st.markdown(f"**{rank}.** {escape_markdown(document)}")
    if doc_set is None:
        st.caption("No concept set: relevance 0.")
        return
    st.text(ws.captions.get(document, "")[:160])
    near = approximate_matches(query_set, doc_set, neighbours) if neighbours else frozenset()
    chips = []
    for cui in sorted(doc_set):
        colour = "green" if cui in query_set else ("orange" if cui in near else "gray")
        chips.append(chip(concept_label(ws, cui, kg).split(" (")[0], colour))
    st.markdown(" ".join(chips))
    st.caption(f"IoU {iou(query_set, doc_set):.3f} · nn-IoU {nn_iou(query_set, doc_set, neighbours, settings['alpha']):.3f}")
    reasons = []
    for cui in sorted(near & doc_set):
        partner = next((q for q in sorted(query_set - doc_set) if q in neighbours.get(cui, ())), None)
        if partner:
            reasons.append(path_text(partner, cui))
    shared = [concept_label(ws, c, kg).split(" (")[0] for c in sorted(query_set & doc_set)]
    why = ("Same: " + ", ".join(shared) if shared else "No shared concept")
    if reasons:
        why += ". Near: " + "; ".join(r for r in reasons if r)
    st.text(f"Why: {why}")


columns = st.columns(max(1, len(chosen)))
for column, system in zip(columns, chosen):
    with column:
        st.subheader(system)
        ranked = [d for d in systems[system].rankings.get(query, ()) if d != query][:k]
        if not ranked:
            st.caption("This system returned nothing for this query.")
        for rank, document in enumerate(ranked, start=1):
            with st.container(border=True):
                card(document, rank)
st.caption(f"{np.int64(len(matches))} candidate queries listed.")
