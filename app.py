"""CBIR Lens: evaluate and compare medical image retrieval systems without manual relevance labels.

Run with ``streamlit run app.py``; it opens on the embedded (synthetic) demo.
"""

from __future__ import annotations

import streamlit as st

from evalcore.executors import reuse_freed_memory
from evalcore.kg import KG_MODES
from pages.computed import engine_note, kg_of
from pages.session import AUDIENCES, audience, workspace
from pages.sidebar import measure_controls
from pages.ui import escape_markdown

st.set_page_config(page_title="CBIR Lens", page_icon=":material/image_search:", layout="wide")


@st.cache_resource
def _server_allocator() -> None:
    """Once per server process: its freed arrays reused rather than unmapped and faulted in again."""
    reuse_freed_memory()


_server_allocator()

# Material icons ship with Streamlit's own font; emoji would need a colour-emoji font the browser may lack.
PAGES = [
    st.Page("pages/data.py", title="Data", icon=":material/folder_open:", default=True),
    st.Page("pages/leaderboard.py", title="Leaderboard", icon=":material/leaderboard:"),
    st.Page("pages/per_query.py", title="Per-query", icon=":material/view_column:"),
    st.Page("pages/case_view.py", title="Case view", icon=":material/clinical_notes:"),
    st.Page("pages/ablation.py", title="Ablation", icon=":material/tune:"),
    st.Page("pages/knowledge_graph.py", title="Knowledge graph", icon=":material/hub:"),
    st.Page("pages/concept_detection.py", title="Concept detection", icon=":material/label:"),
    st.Page("pages/method.py", title="Method", icon=":material/functions:"),
    st.Page("pages/measures.py", title="Choose a measure", icon=":material/balance:"),
]


def sidebar() -> None:
    ws = workspace()
    with st.sidebar:
        st.markdown(f"**Dataset:** {escape_markdown(ws.label)}")
        st.radio("View for", list(AUDIENCES), index=1, key="audience", horizontal=True,
                 help="Clinician: concept names and plain words only. Researcher: concept IDs, scores, formulas.")
        clinician = audience() == "clinician"
        # In clinician view the settings fold away but stay rendered, so their values are kept.
        settings = st.expander("Matching settings", expanded=False) if clinician else st.container()
        with settings:
            st.slider("alpha (weight of near matches)", 0.0, 1.0, 0.5, 0.1, key="alpha",
                      help="How much a related concept (e.g. Veins vs Blood Vessels) counts compared with the same "
                           "concept.")
            st.slider("distance threshold n (KG hops)", 0, 3, 1, 1, key="n",
                      help="Two concepts count as related when at most n is_a links apart. 0 = the same concept only.")
            st.radio("KG mode", KG_MODES, key="kg_mode", horizontal=True,
                     help="undirected: any path; directed: only ancestor/descendant paths.")
            measure_controls()
            st.multiselect("K (list cut-offs)", [1, 3, 5, 10, 20, 30, 50, 100], default=[5, 10, 30], key="ks")
            st.radio("gain", ["linear", "exponential"], key="gain", horizontal=True,
                     help="NDCG gain of a relevance r: r (linear) or 2^r - 1 (exponential).")
        st.divider()
        st.markdown("**Dataset summary**")
        if ws.concepts is None:
            st.caption("No concept sets loaded.")
            return
        vocabulary = ws.concepts.vocabulary
        kg = kg_of(ws)
        cols = st.columns(2)
        cols[0].metric("images", f"{len(ws.concepts):,}")
        cols[1].metric("distinct concepts" if clinician else "distinct CUIs", f"{len(vocabulary):,}")
        if kg is None:
            st.caption("No knowledge graph loaded: nn-IoU equals IoU.")
            return
        coverage = kg.coverage(ws.concepts.sets)
        cols = st.columns(2)
        cols[0].metric("KG nodes", f"{kg.number_of_nodes():,}")
        cols[1].metric("KG edges", f"{kg.number_of_edges():,}")
        st.caption(f"KG covers {coverage['concept_coverage']:.1%} of the dataset's concepts and "
                   f"{coverage['occurrence_coverage']:.1%} of their occurrences.")


navigation = st.navigation(PAGES)
sidebar()
# Filled after the page has run, so that it names the backend of this run's ranking passes (for researchers:
# to a clinician it is jargon).
engine_slot = st.sidebar.empty()
navigation.run()
if audience() == "researcher" and (note := engine_note()) is not None:
    engine_slot.caption(note)
