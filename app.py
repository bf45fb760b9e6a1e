"""CBIR Lens: evaluate and compare medical image retrieval systems without manual relevance labels.

Run with ``streamlit run app.py``; it opens on the embedded (synthetic) demo.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import streamlit as st

from dashboard.background import prepare_pages
from dashboard.caching import server_foreground
from dashboard.computed import (
    LINK_NOT_SAVED,
    engine_note,
    kg_coverage_of,
    rocov2_workspace,
    save_for_link,
    saved_workspace,
)
from dashboard.library import KG_MODES, CBIRLensError, SavedLink, StoreError
from dashboard.session import (
    AUDIENCES,
    FOLDER_PARAMETER,
    FOLDER_STATE,
    IGNORED_IN_ADDRESS,
    WORKSPACE_PARAMETER,
    address_opens_workspace,
    audience,
    hold_folder,
    hold_saved,
    saved_link,
    server_allocator,
    server_data_roots,
    workspace,
    workspace_store,
)
from dashboard.sidebar import (
    CUTOFF_CHOICES,
    GAINS,
    MAX_HOPS,
    controls,
    measure_controls,
    settings_from_address,
    settings_to_address,
)
from dashboard.ui import escape_markdown, view_link
from dashboard.wording import navigation_title_for, say

st.set_page_config(page_title="CBIR Lens", page_icon=":material/image_search:", layout="wide")
server_allocator()

# Material icons ship with Streamlit's own font; emoji would need a colour-emoji font the browser may lack.
PAGE_FILES = {
    "pages/data.py": ("Data", ":material/folder_open:"),
    "pages/leaderboard.py": ("Leaderboard", ":material/leaderboard:"),
    "pages/per_query.py": ("Per-query", ":material/view_column:"),
    "pages/case_view.py": ("Case view", ":material/clinical_notes:"),
    "pages/ablation.py": ("Ablation", ":material/tune:"),
    "pages/knowledge_graph.py": ("Knowledge graph", ":material/hub:"),
    "pages/concept_detection.py": ("Concept detection", ":material/label:"),
    "pages/method.py": ("Method", ":material/functions:"),
    "pages/measures.py": ("Choose a measure", ":material/balance:"),
    "pages/judging.py": ("Judge pairs", ":material/rate_review:"),
}
OPENING_PAGE = "pages/data.py"
#: What a clinician reads: the data, which system finds similar images best, why an image was retrieved, and the
#: pairs of images a clinician rates.
#: The others tune, define or choose measures, for researchers.
CLINICIAN_PAGES = ("pages/data.py", "pages/leaderboard.py", "pages/per_query.py", "pages/case_view.py",
                   "pages/knowledge_graph.py", "pages/judging.py")
#: Where a clinician lands when switching the view on a researcher's page: the comparison of systems.
CLINICIAN_LANDING = "pages/leaderboard.py"


def pages_for(reader: str) -> dict[str, st.Page]:
    """The navigation for one audience: a clinician gets only the clinician's pages, under plain titles. A page keeps
    its file (and so its address) in both, so that switching the audience stays on it where it can."""
    clinician = reader == "clinician"
    return {path: st.Page(path, title=navigation_title_for(title, reader), icon=icon,
                          default=path == OPENING_PAGE)
            for path, (title, icon) in PAGE_FILES.items() if not clinician or path in CLINICIAN_PAGES}


def page_in_address(url: str | None) -> str | None:
    """The page file an address's path names ("http://host:8501/ablation?audience=Clinician": "pages/ablation.py"),
    None for the opening page or a path that names none."""
    name = urlsplit(url or "").path.rstrip("/").rsplit("/", 1)[-1]
    return next((file for file in PAGE_FILES if Path(file).stem == name), None)


def reopen_linked_folder() -> None:
    """Keep the loaded data folder in the address, so that a reload (or the address, sent to someone) opens it again.

    A new session whose address names a folder opens it, through the same checks as the Data page's button; one
    that cannot be opened is said in one sentence (the Data page's message names the server's data folders: an
    address is not the place for them) and the session opens on the demo."""
    if "workspace" in st.session_state:
        if (folder := st.session_state.get(FOLDER_STATE)) is not None and st.query_params.get(FOLDER_PARAMETER) != folder:
            st.query_params[FOLDER_PARAMETER] = folder
        return
    folder = st.query_params.get(FOLDER_PARAMETER)
    if not folder:
        return
    bar = st.progress(0.0, text="Opening the data folder of this address")
    try:
        st.session_state["workspace"] = rocov2_workspace(
            folder, server_data_roots(), lambda fraction, text: bar.progress(min(1.0, fraction), text))
        hold_folder(folder, st.session_state["workspace"])
    except (CBIRLensError, OSError):
        st.query_params.pop(FOLDER_PARAMETER, None)
        st.warning("The data folder named in this address cannot be opened on this server; showing the demo instead.")
    finally:
        bar.empty()


def reopen_linked_workspace() -> None:
    """Open the saved workspace the address names, once per session (a link, a reload, another browser), through
    the store's checks; an unknown, expired or malformed ID, or a store that cannot be read, is said in one sentence
    and the session opens on the demo. While the session holds a saved workspace, the address keeps naming it (a
    page switch clears the address's parameters)."""
    if "workspace" in st.session_state:
        held = saved_link()
        if held is not None and st.query_params.get(WORKSPACE_PARAMETER) != held[0]:
            st.query_params[WORKSPACE_PARAMETER] = held[0]
        elif held is None and WORKSPACE_PARAMETER in st.query_params:
            del st.query_params[WORKSPACE_PARAMETER]
        return
    workspace_id = st.query_params.get(WORKSPACE_PARAMETER)
    if not workspace_id:
        return
    bar = st.progress(0.0, text="Opening the saved workspace of this link")
    try:
        store = workspace_store()
        link = SavedLink(store, workspace_id, server_data_roots())
        expires = store.summary(workspace_id).expires
        opened = saved_workspace(link, lambda fraction, text: bar.progress(min(1.0, fraction), text=text))
        st.session_state["workspace"] = opened
        hold_saved(workspace_id, opened, expires)
    except (CBIRLensError, OSError) as error:
        st.query_params.pop(WORKSPACE_PARAMETER, None)
        reason = str(error) if isinstance(error, StoreError) else "the saved workspace could not be read"
        st.warning(f"This link's saved workspace cannot be opened: {reason} Showing the demo instead.")
    finally:
        bar.empty()


VIEW_LINK = "view_link"


def link_words() -> str:
    """What "Link to this view" opens: this page, these choices and the data on screen, or what it leaves out."""
    if address_opens_workspace():
        held = saved_link()
        return ("Opens this page with these choices and this data in any browser" +
                (f", while the data stays saved (until {held[1]})." if held else "."))
    opens = "the data folder as it was loaded" if st.session_state.get(FOLDER_STATE) else "the demo"
    refused = st.session_state.get(LINK_NOT_SAVED)
    return (f"This link opens these choices on {opens}: what was loaded since (uploads, concepts found in the "
            "captions) is not in it" + (f", since saving it was refused ({refused})." if refused else
                                        "; open this again to save it and get a link that holds it."))


def sidebar() -> None:
    ws = workspace()
    with st.sidebar:
        st.markdown(f"**Dataset:** {escape_markdown(ws.label)}")
        st.radio("View for", list(AUDIENCES), key="audience", horizontal=True, persist_state="session",
                 help="Clinician: concept names and plain words only. Researcher: concept codes, scores, formulas.")
        clinician = audience() == "clinician"
        # In clinician view the matching settings fold away, in plain words, and the researcher's own are not drawn;
        # every one keeps its value for the session (persist_state), so switching back finds them as they were.
        settings = st.expander("Matching settings", expanded=False) if clinician else st.container()
        with settings:
            st.slider(say("alpha_label"), 0.0, 1.0, step=0.1, key="alpha", persist_state="session",
                      help=say("alpha_help"))
            st.slider(say("hops_label"), 0, MAX_HOPS, step=1, key="n", persist_state="session", help=say("hops_help"))
            if not clinician:
                st.radio("KG mode", KG_MODES, key="kg_mode", horizontal=True, persist_state="session",
                         help="undirected: any path; directed: only ancestor/descendant paths.")
                measure_controls()
                st.multiselect("K (list cut-offs)", CUTOFF_CHOICES, key="ks", persist_state="session")
                st.radio("gain", GAINS, key="gain", horizontal=True, persist_state="session",
                         help="NDCG gain of a relevance r: r (linear) or 2^r - 1 (exponential).")
        st.divider()
        st.markdown("**Dataset summary**")
        if ws.concepts is None:
            st.caption("No concept sets loaded.")
            return
        vocabulary = ws.concepts.vocabulary
        cols = st.columns(2)
        cols[0].metric("images", f"{len(ws.concepts):,}")
        cols[1].metric(say("distinct_concepts"), f"{len(vocabulary):,}")
        coverage = kg_coverage_of(ws)
        if coverage is None:
            st.caption(say("no_kg"))
            return
        cols = st.columns(2)
        cols[0].metric(say("kg_nodes"), f"{coverage.nodes:,}")
        cols[1].metric(say("kg_edges"), f"{coverage.links:,}",
                       help="Distinct links: one given by several rows or files counts once (the Data page's report "
                            "gives each file's rows and its distinct links).")
        st.caption(f"The {say('map_word')} covers {coverage.concept_share:.1%} of the dataset's concepts and "
                   f"{coverage.occurrence_share:.1%} of their occurrences.")


def show_page() -> None:
    """One run of the app: the session's data and settings, the navigation, the page, the link to the view."""
    reopen_linked_workspace()
    reopen_linked_folder()
    settings_from_address()
    reader = audience()
    pages = pages_for(reader)
    navigation = st.navigation(list(pages.values()))
    shown = next(path for path, page in pages.items() if page is navigation)
    # A researcher's page that the clinician's navigation lacks resolves to the opening page; the comparison of systems
    # is the closer page to land on.
    # So does a first visit whose address names such a page (/ablation?audience=Clinician).
    left = st.session_state.get("page_shown")
    if shown == OPENING_PAGE and (left not in (None, *pages) or (left is None and page_in_address(st.context.url)
                                                                  not in (None, *pages))):
        st.session_state["page_shown"] = CLINICIAN_LANDING
        st.switch_page(pages[CLINICIAN_LANDING])
    st.session_state["page_shown"] = shown
    sidebar()
    settings_to_address()
    # What the pages read of this data at these settings starts now, in the background, whatever page is shown.
    prepare_pages(workspace(), controls())
    # Filled after the page has run, so that it names the backend of this run's ranking passes (for researchers:
    # to a clinician it is jargon).
    engine_slot = st.sidebar.empty()
    link_slot = st.sidebar.empty()
    navigation.run()
    if reader == "researcher" and (note := engine_note()) is not None:
        engine_slot.caption(note)
    # After the page has run: the address then holds the page's own choices too.
    # Folded: a link's parameters are the researcher's names (alpha, n), which a clinician's sidebar does not show unasked.
    # Opening it saves what the address cannot name (an upload, an extraction), so that the link never lies.
    with link_slot.expander("Link to this view", key=VIEW_LINK, on_change=save_for_link, args=(VIEW_LINK,)):
        st.code(view_link(st.context.url or "", {key: st.query_params.get_all(key) for key in st.query_params}), language=None,
                wrap_lines=True)
        st.caption(link_words())
    if ignored := st.session_state.pop(IGNORED_IN_ADDRESS, None):
        st.toast("Part of this link does not fit the data loaded here or the settings' ranges (" + ", ".join(ignored)
                 + "); the nearest view is shown instead.")


# While a script runs, and for a moment after (the browser draws what it sent), the work prepared for later waits.
with server_foreground().script_running():
    show_page()
