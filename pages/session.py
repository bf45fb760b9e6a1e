"""A session's state: its workspace, who is reading, the server's settings (data folders, scheduler), and the owner
of kept results (:class:`evalcore.kept.Kept`): the server's, shared by sessions by the content of what they read."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from evalcore.app.workspace import Workspace, demo_digest, load_demo
from evalcore.errors import CBIRLensError
from evalcore.io.loading import data_roots
from evalcore.kept import Kept, one_value

AUDIENCES = {"Clinician": "clinician", "Researcher": "researcher"}
#: The address parameter naming the data folder a session loaded (a reload or a link opens it again).
FOLDER_PARAMETER = "folder"
#: Where the session keeps that folder while its workspace is the folder's (a reload opens the folder again; files
#: uploaded since are not in the address).
FOLDER_STATE = "data_folder"
SCHEDULER_VARIABLE = "CBIR_LENS_SCHEDULER"
#: Bytes of results kept for the whole server (by content: sessions with the same data share them; a session keeps
#: none of its own, so a closed tab leaves only its workspace behind).
SERVER_KEPT_BYTES = 512 << 20
#: Workspaces loaded from folders, kept for every session (about 40 MB each on ROCOv2 test).
SERVER_WORKSPACES = 4


def workspace() -> Workspace:
    if "workspace" not in st.session_state:
        st.session_state["workspace"] = demo_workspace()
    return st.session_state["workspace"]


@st.cache_resource(show_spinner=False, max_entries=1)
def _shared_demo(files: str) -> Workspace:
    """``files`` (the digest of the demo's files) only keys the result."""
    return load_demo()


def demo_workspace() -> Workspace:
    """The embedded demo, parsed once for the server (every new session opens on it: 0.3-0.6 s of parsing each, eight
    arriving at once held the interpreter for seconds) and shared read-only, keyed by the digest of its files'
    bytes (:func:`evalcore.app.workspace.demo_digest`)."""
    return _shared_demo(demo_digest())


def audience() -> str:
    """"clinician" (names only, plain words) or "researcher" (everything), from the sidebar switch."""
    return AUDIENCES.get(st.session_state.get("audience", "Researcher"), "researcher")


def guarded_load(loader: Callable[[], Workspace]) -> bool:
    """Run a loader; on bad input show its message and keep what was loaded before."""
    try:
        st.session_state["workspace"] = loader()
        return True
    except CBIRLensError as error:
        st.error(f"Not loaded: {error}")
    except (OSError, zipfile.BadZipFile) as error:
        st.error(f"Not loaded: {error}")
    return False


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


@st.cache_resource(show_spinner=False)
def server_kept() -> Kept:
    """Results kept for every session of this server, by the content of what they read."""
    return Kept(SERVER_KEPT_BYTES)


@st.cache_resource(show_spinner=False)
def server_workspaces() -> Kept:
    """Workspaces loaded from a data folder, shared by the sessions loading the same files (read-only: a workspace
    is replaced on every load, never changed), the last :data:`SERVER_WORKSPACES` of them."""
    return Kept(SERVER_WORKSPACES, size=one_value)
