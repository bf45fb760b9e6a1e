"""Where a dashboard's workspace is read from, as values: each says what a load reads and digests those bytes, so that
a cache keyed by the source shares one workspace between the sessions that load the same files.

>>> EmbeddedDemo().digest() == EmbeddedDemo().digest()
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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
