"""Method: what IoU, nn-IoU and NDCG mean, the worked example drawn, and the paper's Table 1 and Fig. 3
recomputed live on the loaded dataset (beside the paper's numbers only for ROCOv2 test)."""

from __future__ import annotations

import streamlit as st

from dashboard.caching import Shared
from dashboard.computed import (
    ablation_curves,
    evaluator_of,
    kg_coverage_of,
    kg_variants,
    table1,
    tie_report,
    timing_curve,
)
from dashboard.library import (
    TIE_COLUMNS,
    ablation_figure,
    approximate_matches,
    area_table,
    iou,
    is_rocov2_test,
    nn_iou,
    shown_table,
    timing_figure,
    worked_example_figure,
)
from dashboard.session import through_app, workspace
from dashboard.sidebar import controls
from dashboard.ui import require_concepts, synthetic_banner
from dashboard.wording import say

through_app()

st.title("Method")
ws = workspace()
synthetic_banner(ws)

st.markdown(
    "**How relevance is judged without manual labels.** Every image carries the medical concepts named in its "
    "caption (UMLS CUIs: a modality such as *CT*, an anatomy such as *vein*, a finding). Two images are related "
    "as much as their concept lists overlap. **IoU** is the share of concepts they have in common: concepts in "
    "both images divided by the concepts in either. **nn-IoU** also gives partial credit (the weight *alpha*) to "
    "concepts that are not identical but close in a knowledge graph of *is a* links, such as *vein* and "
    "*blood vessel*; *n* is how many links apart they may be. A retrieval system returns a ranked list of images "
    "for a query image; **NDCG@K** (shown as CUI@K, or nn-CUI@K with nn-IoU) adds up the relevance of the first "
    "K images, counting the top positions most, and divides by the best score any ranking of the collection could "
    "reach. 1 means no better top K exists; 0 means nothing related was returned."
)

st.subheader("Worked example: a vein and a blood vessel (n = 1, alpha = 0.5)")
vein, vessel, ct = say("example_vein"), say("example_vessel"), say("example_ct")
image_a, image_b = frozenset({ct, vein}), frozenset({ct, vessel})
neighbours = {vein: frozenset({vessel}), vessel: frozenset({vein})}
matched = approximate_matches(image_a, image_b, neighbours)
st.plotly_chart(worked_example_figure(sorted(image_a), sorted(image_b), [(vein, vessel, "is_a (1 link)")],
                                      set(matched)), key="worked_example")
st.markdown(
    f"- Shared concepts: CT, so |A ∩ B| = 1; all concepts: |A ∪ B| = 3; **IoU = 1/3 = {iou(image_a, image_b):.3f}**.\n"
    f"- *vein* is a *blood vessel* (one is_a link), so both count as approximate matches: |N(A,B)| = {len(matched)}.\n"
    f"- **nn-IoU = (1 + 0.5 × 2) / 3 = {nn_iou(image_a, image_b, neighbours, 0.5):.3f}**."
)

if not require_concepts(ws):
    st.stop()
settings = controls()
evaluator = evaluator_of(ws, settings.kg_mode)
paper_data = is_rocov2_test(ws.concepts.ids)
st.subheader("The paper's Table 1 on the loaded dataset")
st.caption("Precision@K from 0 to 1 (the paper prints percentages: 0.9937 is its 99.37): retrieval by IoU, by "
           "nn-IoU (n = 1, alpha = 0.5, the paper's setting, whatever the sidebar says) and by the TF-IDF vectors of "
           "the captions (the stand-in for the paper's BioMedCLIP-t caption embeddings), ranked over the whole "
           "collection. "
           "`scripts/reproduce_paper.py` writes the full report to docs/REPRODUCTION.md, including the cost curve "
           "(Fig. 4) and the KG variants.")
if not paper_data:
    st.info("The paper's numbers are for ROCOv2 test; this dataset is not ROCOv2 test, so they are not shown "
            "beside it." + (" The demo is synthetic." if ws.synthetic else ""))


if not evaluator.label_targets():
    st.info("Table 1 needs modality/organ labels: load a labels file on the Data page.")
else:
    bar = st.empty()
    table = table1(ws, settings.kg_mode, paper_data,
                   progress=lambda f, text: bar.progress(min(1.0, f), text=f"Table 1: {text}…"))
    bar.empty()
    st.dataframe(shown_table(table), hide_index=True, key="table1")

coverage = kg_coverage_of(ws)
if coverage is not None:
    st.markdown(f"**KG coverage:** {coverage.concepts_in_kg:,} of {coverage.concepts:,} distinct concepts "
                f"({100 * coverage.concept_share:.1f} %), {100 * coverage.occurrence_share:.1f} % of "
                "concept occurrences. Concepts outside the graph can only match exactly, so nn-IoU cannot help them.")

st.subheader("Fig. 3: P@30 against alpha for n = 0, 1, 2")
if not evaluator.label_targets() or coverage is None:
    st.info("The ablation needs labels and a knowledge graph.")
    st.stop()


curves = ablation_curves.kept(ws, settings.kg_mode)
if curves is None and st.button("Compute the ablation (P@30 at 33 settings, twice)", key="method_ablation_run"):
    bar = st.progress(0.0, text="Computing…")
    curves = ablation_curves(ws, settings.kg_mode, progress=lambda f, text: bar.progress(min(1.0, f), text=text))
    bar.empty()
if curves is not None:
    st.caption(f"Isolated subset: {len(curves.isolated):,} queries whose top-30 by IoU and by nn-IoU (n = 1, "
               "alpha = 0.5) differ. Area: integral over alpha of the gap between the curve of each n and the curve "
               "of n = 0 (plain IoU), in P@30 (0 to 1) x alpha.")
    st.plotly_chart(ablation_figure(curves.grid, as_scores=True), key="method_fig3")
    st.dataframe(shown_table(area_table(curves.areas)), key="method_areas")


def on_demand(title: str, label: str, button_key: str, section: Shared):
    """A section computed when its button is pressed, kept for every session by what it reads (the workspace's
    evaluator inputs and captions, the KG mode); its bar moves as the computation reports."""
    st.subheader(title)
    result = section.kept(ws, settings.kg_mode)
    if result is None and st.button(label, key=button_key):
        bar = st.progress(0.0, text="Starting…")
        result = section(ws, settings.kg_mode, progress=lambda f, text: bar.progress(min(1.0, f), text=f"{text}…"))
        bar.empty()
    return result


ties = on_demand("Tie handling", "Count ties and compare tie rules (5 random orders)", "method_ties_run", tie_report)
if ties is not None:
    st.caption("Queries whose K-th and (K+1)-th best relevance are equal, so the tie rule decides the top K; P@K "
               "(0 to 1) on modality+organ with ties broken by file order and by 5 random orders of the pool. "
               "Hover a column name for what it holds.")
    st.dataframe(shown_table(ties), hide_index=True, key="method_ties", column_config={
        column: st.column_config.Column(label, help=text) for column, (label, text) in TIE_COLUMNS.items()})


variants = on_demand("KG readings", "Compare KG modes, the strict N(A,B) and each ontology source",
                     "method_variants_run", kg_variants)
if variants is not None:
    st.caption("Precision (0 to 1) of retrieval by nn-IoU (alpha = 0.5) under each reading of the KG, beside IoU.")
    st.dataframe(shown_table(variants), hide_index=True, key="method_variants", column_config={
        "beats_iou_everywhere": st.column_config.CheckboxColumn(
            "beats IoU everywhere", help="At least IoU's precision on every label and K")})


timing = on_demand("Fig. 4: cost against the number of queries", "Time the engine and the per-pair references",
                   "method_timing_run", timing_curve)
if timing is not None:
    st.caption("Seconds for every query's ideal top 10 over the whole collection; dashed lines are per-pair Python "
               "implementations timed on 5 queries and scaled.")
    st.plotly_chart(timing_figure(timing), key="method_fig4")
