"""Where a dashboard's workspace is read from, as values: each says what a load reads and digests those bytes, so that
a cache keyed by the source shares one workspace between the sessions that load the same files.

>>> EmbeddedDemo().digest() == EmbeddedDemo().digest()
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evalcore.app.saved import PreparedResults, open_saved, read_prepared
from evalcore.app.store import WorkspaceStore
from evalcore.app.workspace import ReportedSteps, Workspace, demo_digest, load_demo, load_rocov2_complete, rocov2_digest
from evalcore.cache_keys import content_digest


@dataclass(frozen=True)
class EmbeddedDemo:
    """The embedded synthetic demo (``data/demo``)."""

    def digest(self) -> str:
        """The digest of the bytes of every demo file (:func:`evalcore.app.workspace.demo_digest`)."""
        return demo_digest()

    def load(self) -> Workspace:
        return load_demo()


@dataclass(frozen=True)
class Rocov2Folder:
    """A ROCOv2 folder read under the data roots ``roots`` (a file outside them is skipped or refused)."""

    folder: str
    roots: tuple[Path, ...]

    def digest(self) -> str:
        """The digest of every file a load reads (:func:`evalcore.app.workspace.rocov2_digest`), the folder as given
        and the roots (they bound which images the workspace may show)."""
        return content_digest((rocov2_digest(self.folder, self.roots), self.folder, [str(root) for root in self.roots]))

    def load(self, progress: Callable[[float, str], None] | None = None,
             finish: Callable[[Workspace], object] | None = None) -> Workspace:
        """:func:`evalcore.app.workspace.load_rocov2_complete`, ``progress(fraction, text)`` moved step by step and
        ``finish(workspace)`` run as its last step."""
        steps = ReportedSteps(progress) if progress is not None else None
        return load_rocov2_complete(self.folder, self.roots, steps, finish=finish)


@dataclass(frozen=True)
class SavedLink:
    """A workspace saved in ``store`` under ``workspace_id`` (:mod:`evalcore.app.store`), loaded again through the
    data roots ``roots`` (a saved data folder is read under them)."""

    store: WorkspaceStore
    workspace_id: str
    roots: tuple[Path, ...]

    def digest(self) -> str:
        """The digest of what is saved (:meth:`evalcore.app.store.WorkspaceStore.summary`: every input's blob digest
        and the settings) and of the roots: two links to the same saved content share one workspace. An unknown or
        expired ID raises its :class:`~evalcore.errors.StoreError`."""
        return content_digest((self.store.summary(self.workspace_id).contents, [str(root) for root in self.roots]))

    def load(self, progress: Callable[[float, str], None] | None = None) -> Workspace:
        """:func:`evalcore.app.saved.open_saved`: the saved inputs read again, in order."""
        return open_saved(self.store, self.workspace_id, self.roots, progress)[0]

    def prepared(self, workspace: Workspace) -> PreparedResults:
        """The results kept with the saved workspace (:func:`evalcore.app.saved.read_prepared`) that were computed
        on ``workspace`` (the workspace :meth:`load` gives, by its digest): none where it has no concept sets, and a
        result that cannot be read is left out."""
        if workspace.concepts is None:
            return PreparedResults()
        return read_prepared(self.store.prepared(self.workspace_id), workspace.concepts, workspace.digest)
