"""Saved workspaces loaded again: a workspace's recipe (:attr:`evalcore.app.workspace.Workspace.recipe`, its load
steps with their bytes) replayed through the very loaders that made it, so that a saved workspace opens with the
same inputs, the same digests and so the same numbers, on another machine or after a restart.

A recipe starts with its base, ``demo`` (the embedded demo) or ``folder`` (a data folder of the server, read again
through the server's own checks), or none (an empty workspace); then each file in the order it was loaded. An
extraction is three kinds of steps: the synonym files and a captions file read alone (each with its bytes), then
``extraction`` with its options as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from evalcore.app.store import SavedInput, SavedWorkspace, WorkspaceStore
from evalcore.app.workspace import (
    Workspace,
    caption_concepts,
    load_demo,
    load_rocov2_complete,
    with_captions,
    with_embeddings,
    with_extracted_concepts,
    with_images,
    with_kg,
    with_labels,
    with_names,
    with_new_concepts,
    with_run,
)
from evalcore.errors import StoreError
from evalcore.readers import read_captions


def extraction_steps(synonym_files: Sequence[tuple[bytes, str]], abbreviations: bool,
                     captions_alone: tuple[bytes, str] | None = None) -> tuple[SavedInput, ...]:
    """The recipe steps of an extraction from the workspace's captions (or ``captions_alone``, a captions file
    read as a collection of its own), with ``synonym_files`` ((bytes, name) pairs) and the imaging vocabulary on
    or off.

    >>> [(step.kind, step.name) for step in extraction_steps([(b"...", "mesh.tsv")], True)]
    [('synonyms', 'mesh.tsv'), ('extraction', 'options')]
    """
    return (*(SavedInput("synonyms", name, data) for data, name in synonym_files),
            *([SavedInput("extraction_captions", captions_alone[1], captions_alone[0])] if captions_alone else []),
            SavedInput("extraction", "options", json.dumps({"abbreviations": bool(abbreviations)}).encode()))


@dataclass
class _Replay:
    """The state of a replay: the workspace so far and the steps waiting for the one that uses them."""

    roots: Sequence[Path]
    workspace: Workspace = field(default_factory=Workspace)
    embedding_ids: SavedInput | None = None
    synonyms: list[SavedInput] = field(default_factory=list)
    captions_alone: SavedInput | None = None

    def base(self, step: SavedInput) -> None:
        self.workspace = load_demo() if step.kind == "demo" else load_rocov2_complete(step.name, self.roots)

    def add(self, loader: Callable[[Workspace, bytes, str], Workspace]) -> Callable[[SavedInput], None]:
        def added(step: SavedInput) -> None:
            self.workspace = loader(self.workspace, step.data, step.name)
        return added

    def wait_for_embeddings(self, step: SavedInput) -> None:
        self.embedding_ids = step

    def embeddings(self, step: SavedInput) -> None:
        ids, self.embedding_ids = self.embedding_ids, None
        self.workspace = with_embeddings(self.workspace, step.data, step.name, *((ids.data, ids.name) if ids else ()))

    def wait_for_extraction(self, step: SavedInput) -> None:
        if step.kind == "synonyms":
            self.synonyms.append(step)
        else:
            self.captions_alone = step

    def extraction(self, step: SavedInput) -> None:
        try:
            options = json.loads(step.data.decode("utf-8"))
        except ValueError:  # UnicodeDecodeError is one
            options = None
        if not isinstance(options, dict) or not isinstance(options.get("abbreviations", True), bool):
            raise StoreError("This saved workspace's extraction step is damaged (its options are no JSON object with "
                             "a true or false 'abbreviations'); load its inputs again and save them.")
        synonyms, self.synonyms = [(s.data, s.name) for s in self.synonyms], []
        alone, self.captions_alone = self.captions_alone, None
        reading = self.workspace if alone is None else self.workspace.with_inputs(
            captions=read_captions(alone.data, alone.name))
        found = caption_concepts(reading, synonyms, bool(options.get("abbreviations", True)))
        self.workspace = with_extracted_concepts(
            self.workspace, found, "loaded captions" if alone is None else alone.name,
            extraction_steps(synonyms, bool(options.get("abbreviations", True)),
                             None if alone is None else (alone.data, alone.name)))


def replay(steps: Sequence[SavedInput], roots: Sequence[Path] = (),
           progress: Callable[[float, str], None] | None = None) -> Workspace:
    """The workspace the recipe ``steps`` make (``roots``: the data folders a ``folder`` base may be read under);
    ``progress(fraction, text)`` after each step. An unknown kind of step raises a :class:`StoreError`.

    >>> from evalcore.app.workspace import with_captions
    >>> made = with_captions(Workspace(), b"ID,Caption\\na,CT of the chest\\n", "captions.csv")
    >>> again = replay(made.recipe)
    >>> again.digest == made.digest, [step.kind for step in again.recipe]
    (True, ['captions'])
    """
    state = _Replay(roots)
    loaders: dict[str, Callable[[SavedInput], None]] = {
        "demo": state.base, "folder": state.base, "concepts": state.add(with_new_concepts), "kg": state.add(with_kg),
        "run": state.add(with_run), "labels": state.add(with_labels), "names": state.add(with_names),
        "captions": state.add(with_captions), "images": state.add(with_images),
        "embedding_ids": state.wait_for_embeddings, "embeddings": state.embeddings,
        "synonyms": state.wait_for_extraction, "extraction_captions": state.wait_for_extraction,
        "extraction": state.extraction}
    for position, step in enumerate(steps, start=1):
        if step.kind not in loaders:
            raise StoreError(f"This saved workspace holds an input of a kind this version does not read "
                             f"({step.kind!r}); open it with the version that saved it.")
        loaders[step.kind](step)
        if progress is not None:
            progress(position / len(steps), f"Loaded {step.name}")
    return state.workspace


def save_workspace(store: WorkspaceStore, workspace: Workspace, settings: dict[str, str] | None = None) -> str:
    """Save ``workspace``'s recipe (and the workspace's label) in ``store``; its new ID."""
    if not workspace.recipe:
        raise StoreError("Nothing is loaded that could be saved: load the demo, a data folder or files first.")
    return store.save(workspace.recipe, {"label": workspace.label, **(settings or {})})


def open_saved(store: WorkspaceStore, workspace_id: str, roots: Sequence[Path] = (),
               progress: Callable[[float, str], None] | None = None) -> tuple[Workspace, SavedWorkspace]:
    """The workspace saved under ``workspace_id``, loaded again (:func:`replay`), with its record (when it
    expires); its label says it is a saved workspace."""
    saved = store.open(workspace_id)
    workspace = replay(saved.inputs, roots, progress)
    return replace(workspace, label=saved.settings.get("label", workspace.label)), saved
