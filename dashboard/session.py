"""A session's state: its workspace, who is reading, and the server's settings (data folders, scheduler, allocator)."""

from __future__ import annotations

import logging
import os
import runpy
import sys
import threading
from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard.caching import server_demo, shared
from evalcore.app.sources import EmbeddedDemo
from evalcore.app.store import WorkspaceStore, store_from_environment, utc_time_text
from evalcore.app.workspace import Workspace
from evalcore.engine.executors import reuse_freed_memory
from evalcore.io.loading import data_roots

AUDIENCES = {"Clinician": "clinician", "Researcher": "researcher"}
#: The address parameter naming the data folder a session loaded (a reload or a link opens it again).
FOLDER_PARAMETER = "folder"
#: Where the session keeps that folder while its workspace is the folder's (a reload opens the folder again; files
#: uploaded since are not in the address).
FOLDER_STATE = "data_folder"
SCHEDULER_VARIABLE = "CBIR_LENS_SCHEDULER"
#: Where the session lists the address's choices it could not use (a link made on other data, or edited by hand).
IGNORED_IN_ADDRESS = "address_ignored"
#: Where the session keeps the digest of the data folder's workspace as it was loaded: an upload or an extraction
#: since makes a workspace that the folder's address no longer opens.
FOLDER_DIGEST_STATE = "data_folder_digest"
#: The address parameter naming a saved workspace (whoever has the link opens it).
WORKSPACE_PARAMETER = "workspace"
#: Where the session keeps the saved workspace it holds: (ID, digest of the workspace, when it expires), while its
#: workspace is that one (an upload since makes another workspace, which the link does not name).
SAVED_STATE = "saved_workspace"
#: The dashboard's main script, beside this package (in the checkout and in the installed package alike).
APP = Path(__file__).resolve().parent.parent / "app.py"


def through_app() -> None:
    """Run app.py (its navigation and sidebar, then this page through them) where Streamlit runs this page alone, and
    stop this run of the page there; called first by every page.

    Streamlit's legacy multipage mode reads a ``pages/`` folder beside the main script as the app's pages: until
    app.py first calls ``st.navigation``, a server runs a page named in the address (a link to /leaderboard as its
    first request) on its own, listing every file of the folder and drawing no sidebar. Running app.py within the
    same run keeps what triggered it (a click), which a rerun would drop."""
    if PagesManager.uses_pages_directory:
        runpy.run_path(str(APP), run_name="__main__")
        st.stop()


def workspace() -> Workspace:
    if "workspace" not in st.session_state:
        st.session_state["workspace"] = demo_workspace()
    return st.session_state["workspace"]


@shared(server_demo)
def demo_workspace(demo: EmbeddedDemo = EmbeddedDemo()) -> Workspace:
    """The embedded demo, parsed once for the server (every new session opens on it: 0.3-0.6 s of parsing each, eight
    arriving at once held the interpreter for seconds) and shared read-only. Called without an argument, as the
    pages call it: its decorator fills in the default, so that it is keyed by the digest of the demo files' bytes
    (:meth:`evalcore.app.sources.EmbeddedDemo.digest`)."""
    return demo.load()


def audience() -> str:
    """"clinician" (names only, plain words) or "researcher" (everything), from the sidebar switch."""
    return AUDIENCES.get(st.session_state.get("audience", "Researcher"), "researcher")


def server_data_roots() -> tuple[Path, ...]:
    """Folders this server may read: ``CBIR_LENS_DATA_ROOTS`` and the ``data_roots`` secret, else the defaults."""
    try:
        configured = st.secrets.get("data_roots", [])
    except FileNotFoundError:  # no secrets.toml at all
        configured = []
    return data_roots([configured] if isinstance(configured, str) else list(configured))


def server_scheduler() -> str | None:
    """A Dask scheduler's address for the passes over the pool (``CBIR_LENS_SCHEDULER``, else the ``scheduler``
    secret); None computes them in this process. Its workers need cbir-lens[scale] installed."""
    address = os.environ.get(SCHEDULER_VARIABLE, "").strip()
    if not address:
        try:
            address = str(st.secrets.get("scheduler", "")).strip()
        except FileNotFoundError:  # no secrets.toml at all
            address = ""
    return address or None


@st.cache_resource
def server_allocator() -> None:
    """Once per server process: its freed arrays reused rather than unmapped and faulted in again
    (:func:`evalcore.engine.executors.reuse_freed_memory`)."""
    reuse_freed_memory()


def workspace_store() -> WorkspaceStore:
    """The server's store of saved workspaces (:func:`evalcore.app.store.store_from_environment`: ``cbir-lens app
    --store DIR``, ``CBIR_LENS_STORE`` or the user's data folder)."""
    return store_from_environment(os.environ)


def saved_link() -> tuple[str, str] | None:
    """(ID, expiry as text) of the saved workspace the session holds, while its workspace is still that one."""
    saved = st.session_state.get(SAVED_STATE)
    if saved is None or "workspace" not in st.session_state or saved[1] != workspace().digest:
        return None
    return saved[0], saved[2]


def hold_saved(workspace_id: str, loaded: Workspace, expires: float) -> None:
    """Note that the session's workspace ``loaded`` is saved under ``workspace_id``, and name it in the address."""
    st.session_state[SAVED_STATE] = (workspace_id, loaded.digest, utc_time_text(expires))
    st.query_params[WORKSPACE_PARAMETER] = workspace_id


def hold_folder(folder: str, loaded: Workspace) -> None:
    """Note that the session's workspace ``loaded`` is the data folder ``folder`` as loaded, and name it in the
    address (a reload, or the link, opens it again)."""
    st.session_state[FOLDER_STATE] = folder
    st.session_state[FOLDER_DIGEST_STATE] = loaded.digest
    st.query_params[FOLDER_PARAMETER] = folder


def address_opens_workspace() -> bool:
    """Whether the address alone opens the session's workspace: a saved workspace it names, the data folder as it
    was loaded, or the demo. Anything loaded since (an upload, concepts found in the captions) is in no address
    until it is saved."""
    if saved_link() is not None:
        return True
    ws = workspace()
    if st.session_state.get(FOLDER_STATE):
        return st.session_state.get(FOLDER_DIGEST_STATE) == ws.digest
    return ws.digest == demo_workspace().digest


def forget_saved() -> None:
    """The session no longer holds a saved workspace (it was forgotten): the address stops naming it."""
    st.session_state.pop(SAVED_STATE, None)
    st.query_params.pop(WORKSPACE_PARAMETER, None)


#: Streamlit reads no parameter of a link holding more than this many (or more than 512 KiB of query): it logs a
#: warning, and the app sees none (:func:`say_if_link_dropped` says so).
LINK_PARAMETER_LIMIT = 1000
# The logger of Streamlit's module that drops such a query, and the start of what it says then.
_QUERY_LOGGER = "streamlit.runtime.state.query_params"
_DROPPED_QUERY = "Ignoring query string"
#: Where a session notes that it said so.
LINK_DROPPED_SAID = "link_dropped_said"


class _DroppedLinks(logging.Handler):
    """Streamlit's warning that it read none of a link's query, kept by the session it was meant for until that
    session's run says so. The warning is logged before the run: on the server's event loop while the session asks
    for a run (the session is then the ``AppSession`` whose frame logged it), or in the run's own thread."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.dropped: dict[str, tuple] = {}
        self.guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        if not str(record.msg).startswith(_DROPPED_QUERY):
            return
        session = _logging_session()
        if session is not None:
            with self.guard:
                self.dropped[session] = (str(record.msg), record.args)

    def pop(self, session: str) -> tuple | None:
        with self.guard:
            return self.dropped.pop(session, None)


def _logging_session() -> str | None:
    """The ID of the session whose run or request is logging now, or None."""
    context = get_script_run_ctx(suppress_warning=True)
    if context is not None:
        return context.session_id
    frame = sys._getframe(1)
    while frame is not None:
        owner = frame.f_locals.get("self")
        if type(owner).__name__ == "AppSession":
            return getattr(owner, "id", None)
        frame = frame.f_back
    return None


def _dropped_links() -> _DroppedLinks:
    """The one handler of Streamlit's warning in this server process (a module reloaded finds the one installed)."""
    logger = logging.getLogger(_QUERY_LOGGER)
    installed = next((handler for handler in logger.handlers if type(handler).__name__ == "_DroppedLinks"), None)
    if installed is None:
        installed = _DroppedLinks()
        logger.addHandler(installed)
    return installed


_DROPPED_LINKS = _dropped_links()


def say_if_link_dropped() -> None:
    """Every run: where Streamlit read none of this session's link (more than :data:`LINK_PARAMETER_LIMIT`
    parameters, or too long), say so in one sentence, once a session, since the view shown is then the default one,
    silently."""
    context = get_script_run_ctx(suppress_warning=True)
    dropped = None if context is None else _DROPPED_LINKS.pop(context.session_id)
    if dropped is None or st.session_state.get(LINK_DROPPED_SAID):
        return  # (said once a session: until the app writes the address, each run sends the same link)
    st.session_state[LINK_DROPPED_SAID] = True
    message, values = dropped
    size, limit = (values + (None, None))[:2] if isinstance(values, tuple) else (None, None)
    unit = "parameters" if "parameter" in message else "characters"
    holds = f"{size:,} {unit}" if isinstance(size, int) else f"too many {unit}"
    most = f"{limit:,}" if isinstance(limit, int) else "the most"
    st.toast(f"This link holds {holds}, more than the {most} Streamlit reads, so none of its choices were read; the "
             "default view is shown instead.")


def note_ignored_in_address(key: str) -> None:
    """Note that the address's ``key`` could not be used as it is: app.py says so in one sentence, once."""
    ignored = st.session_state.setdefault(IGNORED_IN_ADDRESS, [])
    if key not in ignored:
        ignored.append(key)
