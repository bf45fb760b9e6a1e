"""Saved workspaces loaded again: a workspace's recipe (:attr:`evalcore.app.workspace.Workspace.recipe`, its load
steps with their bytes) replayed through the very loaders that made it, so that a saved workspace opens with the
same inputs, the same digests and so the same numbers, on another machine or after a restart.

A recipe starts with its base, ``demo`` (the embedded demo) or ``folder`` (a data folder of the server, read again
through the server's own checks), or none (an empty workspace); then each file in the order it was loaded. An
extraction is three kinds of steps: the synonym files and a captions file read alone (each with its bytes), then
``extraction`` with its options as JSON. The kinds are :class:`evalcore.app.workspace.StepKind`'s, each replayed
as the one table :data:`REPLAYED` says.

Results prepared on a saved workspace (:class:`PreparedResults`: the evaluator's pool rankings and ideal summaries,
the baselines' runs) are kept with it in the store (:meth:`WorkspaceStore.keep_prepared`), each one as the arrays
of an ``.npz`` file under a name that says what it is (:func:`prepared_blobs`), and read back without running any
code of the file (:func:`read_prepared`): a result whose file is not what this module writes is left out.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from evalcore.app.store import SavedInput, SavedWorkspace, WorkspaceStore
from evalcore.app.workspace import (
    StepKind,
    Workspace,
    extraction_options,
    load_demo,
    load_rocov2_complete,
    with_caption_extraction,
    with_captions,
    with_embeddings,
    with_images,
    with_kg,
    with_labels,
    with_names,
    with_new_concepts,
    with_run,
)
from evalcore.app.workspace import extraction_steps as extraction_steps  # defined here first: still found here
from evalcore.data import ConceptSets, RankedLists, RankedScores, Run
from evalcore.engine import PoolSummary
from evalcore.errors import StoreError
from evalcore.evaluation.evaluator import MAX_DEPTH


@dataclass
class _Replay:
    """The state of a replay: the workspace so far and the steps waiting for the one that uses them."""

    roots: Sequence[Path]
    workspace: Workspace = field(default_factory=Workspace)
    embedding_ids: SavedInput | None = None
    synonyms: list[SavedInput] = field(default_factory=list)
    captions_alone: SavedInput | None = None

    def demo(self, step: SavedInput) -> None:
        self.workspace = load_demo()

    def folder(self, step: SavedInput) -> None:
        self.workspace = load_rocov2_complete(step.name, self.roots)

    @staticmethod
    def adding(loader: Callable[[Workspace, bytes, str], Workspace]) -> Callable[[_Replay, SavedInput], None]:
        """The action of a step that adds its file through ``loader`` (a ``with_*`` loader)."""
        def added(state: _Replay, step: SavedInput) -> None:
            state.workspace = loader(state.workspace, step.data, step.name)
        return added

    def wait_for_embeddings(self, step: SavedInput) -> None:
        self.embedding_ids = step

    def embeddings(self, step: SavedInput) -> None:
        ids, self.embedding_ids = self.embedding_ids, None
        self.workspace = with_embeddings(self.workspace, step.data, step.name, *((ids.data, ids.name) if ids else ()))

    def wait_for_extraction(self, step: SavedInput) -> None:
        if step.kind == StepKind.SYNONYMS.value:
            self.synonyms.append(step)
        else:
            self.captions_alone = step

    def extraction(self, step: SavedInput) -> None:
        abbreviations, kg_names = extraction_options(step)
        synonyms, self.synonyms = tuple((s.data, s.name) for s in self.synonyms), []
        alone, self.captions_alone = self.captions_alone, None
        self.workspace = with_caption_extraction(self.workspace, synonyms, abbreviations,
                                                 None if alone is None else (alone.data, alone.name), kg_names=kg_names)


#: What replaying each kind of load step does (:class:`~evalcore.app.workspace.StepKind`, the kinds the loaders
#: record): the one table :func:`replay` reads; every kind has its row.
REPLAYED: Mapping[StepKind, Callable[[_Replay, SavedInput], None]] = {
    StepKind.DEMO: _Replay.demo,
    StepKind.FOLDER: _Replay.folder,
    StepKind.CONCEPTS: _Replay.adding(with_new_concepts),
    StepKind.KG: _Replay.adding(with_kg),
    StepKind.RUN: _Replay.adding(with_run),
    StepKind.LABELS: _Replay.adding(with_labels),
    StepKind.NAMES: _Replay.adding(with_names),
    StepKind.CAPTIONS: _Replay.adding(with_captions),
    StepKind.IMAGES: _Replay.adding(with_images),
    StepKind.EMBEDDING_IDS: _Replay.wait_for_embeddings,
    StepKind.EMBEDDINGS: _Replay.embeddings,
    StepKind.SYNONYMS: _Replay.wait_for_extraction,
    StepKind.EXTRACTION_CAPTIONS: _Replay.wait_for_extraction,
    StepKind.EXTRACTION: _Replay.extraction,
}
if set(REPLAYED) != set(StepKind):  # a kind the loaders record that a saved workspace could not open again
    raise ImportError(f"no replay of the load steps {sorted(k.value for k in set(StepKind) - set(REPLAYED))}")


def replay(steps: Sequence[SavedInput], roots: Sequence[Path] = (),
           progress: Callable[[float, str], None] | None = None) -> Workspace:
    """The workspace the recipe ``steps`` make (``roots``: the data folders a ``folder`` base may be read under),
    each step done as :data:`REPLAYED` says for its kind; ``progress(fraction, text)`` after each step. An unknown
    kind of step raises a :class:`StoreError`.

    >>> from evalcore.app.workspace import with_captions
    >>> made = with_captions(Workspace(), b"ID,Caption\\na,CT of the chest\\n", "captions.csv")
    >>> again = replay(made.recipe)
    >>> again.digest == made.digest, [step.kind for step in again.recipe]
    (True, ['captions'])
    """
    state = _Replay(roots)
    kinds = {kind.value: kind for kind in StepKind}
    for position, step in enumerate(steps, start=1):
        if step.kind not in kinds:
            raise StoreError(f"This saved workspace holds an input of a kind this version does not read "
                             f"({step.kind!r}); open it with the version that saved it.")
        REPLAYED[kinds[step.kind]](state, step)
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


@dataclass(frozen=True)
class PreparedResults:
    """Results computed on a workspace's data that a saved workspace keeps: per KG mode, the pool rankings and ideal
    summaries of its evaluator under their keys (:meth:`Evaluator.kept_rankings
    <evalcore.evaluation.evaluator.Evaluator.kept_rankings>`, :meth:`~evalcore.evaluation.evaluator.Evaluator.\
kept_summaries`), and runs (a baseline's, by its key) ranking the workspace's own images."""

    rankings: Mapping[str, Mapping[tuple, np.ndarray]] = field(default_factory=dict)
    summaries: Mapping[str, Mapping[tuple, PoolSummary]] = field(default_factory=dict)
    runs: Mapping[str, Run] = field(default_factory=dict)


#: The most arrays in a prepared result's file.
MAX_PREPARED_ARRAYS = 8


def prepared_blobs(results: PreparedResults, concepts: ConceptSets, basis: str,
                   leave_out: Collection[str] = ()) -> dict[str, bytes]:
    """Each result of ``results`` as a name (JSON text: its kind, ``basis``, its KG mode or baseline, its key) and
    the bytes of an ``.npz`` file of its arrays, but for the names in ``leave_out`` (kept already: they are not
    encoded) and the runs that do not rank exactly ``concepts``' images against each other. ``basis`` names the
    data the results were computed on (a workspace's digest): :func:`read_prepared` reads back only those of the
    same basis, so that a saved data folder whose files changed since gets none of them.

    >>> sets = ConceptSets(("a", "b"), (frozenset({"C1"}), frozenset({"C1", "C2"})))
    >>> ranking = np.array([[1], [0]])
    >>> blobs = prepared_blobs(PreparedResults({"undirected": {("iou", 1, 10, 0.5): ranking}}), sets, "d1")
    >>> list(blobs)
    ['["ranking", "d1", "undirected", "iou", 1, 10, 0.5]']
    >>> read_prepared(blobs, sets, "d1").rankings["undirected"][("iou", 1, 10, 0.5)].tolist()
    [[1], [0]]
    >>> read_prepared(blobs, sets, "other data").rankings
    {}
    """
    named: dict[str, Callable[[], dict[str, np.ndarray]]] = {}
    for mode, kept in results.rankings.items():
        for key, documents in kept.items():
            named[json.dumps(["ranking", basis, mode, *key])] = lambda documents=documents: {"documents": documents}
    for mode, kept in results.summaries.items():
        for key, summary in kept.items():
            named[json.dumps(["summary", basis, mode, *key])] = lambda summary=summary: {
                "ideal": summary.ideal, "relevant_counts": summary.relevant_counts, "pool_sizes": summary.pool_sizes}
    for key, run in results.runs.items():
        lists = run.rankings
        if isinstance(lists, RankedLists) and isinstance(run.scores, RankedScores) and run.scores.lists is lists \
                and lists.queries == concepts.ids and np.array_equal(lists.names, np.asarray(concepts.ids, dtype=object)):
            named[json.dumps(["run", basis, key])] = lambda run=run, lists=lists: {
                "documents": lists.documents, "offsets": lists.offsets, "scores": run.scores.values,
                "name": _text_array(run.name), "source": _text_array(run.source)}
    blobs = {}
    for name, arrays in named.items():
        if name not in leave_out:
            buffer = io.BytesIO()
            np.savez(buffer, **arrays())
            blobs[name] = buffer.getvalue()
    return blobs


def read_prepared(blobs: Mapping[str, bytes], concepts: ConceptSets, basis: str) -> PreparedResults:
    """The results of ``blobs`` (names and bytes as :func:`prepared_blobs` writes them) computed on the data
    ``basis`` names, over ``concepts``' images, read without running any code the bytes may hold: a result whose
    name or arrays are not what :func:`prepared_blobs` writes (another kind, arrays of another type, shape or range,
    a damaged or hostile file) is left out. A ranking's or summary's shape against the pool is checked where it is put back
    (:meth:`Evaluator.keep_ranking <evalcore.evaluation.evaluator.Evaluator.keep_ranking>`).

    >>> sets = ConceptSets(("a", "b"), (frozenset({"C1"}), frozenset({"C1", "C2"})))
    >>> read_prepared({'["ranking", "d1", "undirected", "iou", 1, 10, 0.5]': b"PK not a zip"}, sets, "d1")
    PreparedResults(rankings={}, summaries={}, runs={})
    """
    rankings: dict[str, dict[tuple, np.ndarray]] = {}
    summaries: dict[str, dict[tuple, PoolSummary]] = {}
    runs: dict[str, Run] = {}
    # A pool ranking and a run hold at most MAX_DEPTH items per image, each of 8 bytes, in at most two arrays.
    limit = 2 * 8 * len(concepts) * min(len(concepts), MAX_DEPTH) + (1 << 20)
    for name, data in blobs.items():
        try:
            described = json.loads(name)
        except ValueError:
            continue
        if not isinstance(described, list) or len(described) < 2 or described[1] != basis or not all(
                isinstance(part, (str, int, float)) and not isinstance(part, bool) for part in described):
            continue
        try:
            arrays = _npz_arrays(data, limit)
        except Exception:  # noqa: BLE001 - whatever a damaged or hostile file raises, the result is absent
            continue
        kind, _, *rest = described
        if kind == "ranking" and len(rest) == 5 and isinstance(rest[0], str) and _fits(
                arrays, {"documents": ("iu", 2)}):
            rankings.setdefault(rest[0], {})[tuple(rest[1:])] = arrays["documents"]
        elif kind == "summary" and len(rest) == 4 and isinstance(rest[0], str) and _fits(
                arrays, {"ideal": ("f", 2), "relevant_counts": ("iu", 1), "pool_sizes": ("iu", 1)}):
            summaries.setdefault(rest[0], {})[tuple(rest[1:])] = PoolSummary(
                arrays["ideal"], arrays["relevant_counts"], arrays["pool_sizes"])
        elif kind == "run" and len(rest) == 1 and isinstance(rest[0], str):
            run = _run_of(arrays, concepts)
            if run is not None:
                runs[rest[0]] = run
    return PreparedResults(rankings, summaries, runs)


def _text_array(text: str) -> np.ndarray:
    """A text as an array of its UTF-8 bytes (an array of text would be read back as such, never as code: this
    only keeps the arrays of one kind)."""
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def _fits(arrays: Mapping[str, np.ndarray], expected: Mapping[str, tuple[str, int]]) -> bool:
    """Whether ``arrays`` are exactly the ``expected`` names, each of a dtype kind among the given ones and of the
    given number of dimensions."""
    return set(arrays) == set(expected) and all(
        arrays[name].dtype.kind in kinds and arrays[name].ndim == dimensions
        for name, (kinds, dimensions) in expected.items())


def _run_of(arrays: Mapping[str, np.ndarray], concepts: ConceptSets) -> Run | None:
    """The run of ``arrays`` ranking ``concepts``' images against each other, None where they cannot be one."""
    if not _fits(arrays, {"documents": ("iu", 1), "offsets": ("iu", 1), "scores": ("f", 1), "name": ("u", 1),
                          "source": ("u", 1)}):
        return None
    documents, offsets, scores = arrays["documents"], arrays["offsets"], arrays["scores"]
    try:
        name, source = (arrays[part].astype(np.uint8).tobytes().decode("utf-8") for part in ("name", "source"))
    except UnicodeDecodeError:
        return None
    images = len(concepts)
    if not (len(offsets) == images + 1 and offsets[0] == 0 and offsets[-1] == len(documents) == len(scores)
            and (np.diff(offsets) >= 0).all() and (documents.size == 0 or 0 <= documents.min() <= documents.max()
                                                    < images)):
        return None
    lists = RankedLists(concepts.ids, concepts.ids, documents, offsets)
    return Run(name, lists, source, RankedScores(lists, scores))


def _npz_arrays(data: bytes, limit: int) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file, read-only, refused (ValueError, or the zip reader's own error) unless it
    holds at most :data:`MAX_PREPARED_ARRAYS` ``.npy`` files of plain numbers, in C order, whose sizes say they hold
    at most ``limit`` bytes together and whose bytes are exactly their arrays: no pickled object is ever loaded,
    and nothing larger than the files' own bytes is allocated."""
    arrays = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = archive.infolist()
        if len(members) > MAX_PREPARED_ARRAYS or sum(member.file_size for member in members) > limit:
            raise ValueError("too many or too large arrays")
        for member in members:
            if not member.filename.endswith(".npy"):
                raise ValueError(f"not an array: {member.filename!r:.80}")
            raw = archive.read(member)  # the zip reader stops at the size it was given and checks the CRC
            stream = io.BytesIO(raw)
            version = np.lib.format.read_magic(stream)
            header = {(1, 0): np.lib.format.read_array_header_1_0,
                      (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if header is None:
                raise ValueError(f"an array file of version {version}")
            shape, fortran_order, dtype = header(stream)
            if fortran_order or dtype.hasobject or dtype.kind not in "iuf" or min(shape, default=0) < 0 or \
                    math.prod(shape) * dtype.itemsize != len(raw) - stream.tell():
                raise ValueError("not an array of plain numbers")
            array = np.frombuffer(raw, dtype=dtype, offset=stream.tell()).reshape(shape)
            arrays[member.filename.removesuffix(".npy")] = array
    return arrays
