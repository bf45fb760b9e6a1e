"""The loaded inputs of an interactive session (the dashboard's Data page), each with one content digest.

A :class:`Workspace` is replaced, never changed: every ``with_*`` loader returns a new one. The digest of an input
is computed when the input is set (from the bytes of its file where there is one, else from its parsed content), and
:attr:`Workspace.digest` digests them all, so a cache that hashes a workspace by its digest hashes everything the
workspace can give it. A cached computation that reads only a few inputs is handed
:meth:`Workspace.restricted_to` those inputs: what it cannot see cannot change its result, and its key moves only
when they do.

The validation report is data (:class:`ReportRow` rows), which the dashboard draws and the CLI prints
(``python -m evalcore check``).
"""

from __future__ import annotations

import contextlib
import enum
import functools
import io
import json
import os
import threading
import warnings
import weakref
import zipfile
import zlib
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Protocol

import numpy as np
from PIL import Image

from evalcore.app.store import SavedInput
from evalcore.cache_keys import content_digest
from evalcore.data import ConceptClassMap, ConceptSets, Embeddings, ImageLabels, KGEdges, Run
from evalcore.errors import CBIRLensError, InputError, StoreError, listed, quoted_id
from evalcore.evaluation.evaluator import BUILT_IN_PREFIX, is_built_in_name, unknown_ids
from evalcore.extraction.caption_concepts import CaptionConcepts, find_caption_concepts
from evalcore.extraction.evidence import EvidenceRow, evidence_rows, image_rows
from evalcore.extraction.extractor import Mention, merged_names, merged_synonyms
from evalcore.io.loading import (
    ROCOV2_LAYOUT,
    check_under_roots,
    is_under_roots,
    load_rocov2_folder,
    resolve_labels,
    shown_path,
)
from evalcore.readers import (
    read_captions,
    read_concept_names,
    read_concepts,
    read_embeddings,
    read_input_bytes,
    read_kg,
    read_labels,
    read_runs,
    read_synonyms,
)
from evalcore.readers.names import read_names_to_find
from evalcore.resources import demo_path

MAX_ZIP_MEMBERS = 200_000
MAX_IMAGE_BYTES = 20 << 20
MAX_ZIP_TOTAL = 2 << 30
# A zip of images is kept as uploaded and a member is inflated only when its image is read (ImageFiles), so what
# images cost is the zips' bytes and indexes, never what they expand to: these bound that, for the images of one
# workspace (a dashboard session's) and for those of every workspace alive in this process (the server's).
MAX_SESSION_IMAGE_BYTES = 512 << 20
MAX_SERVER_IMAGE_BYTES = 2 << 30
# An image is decoded only if it has at most this many pixels (docs/LIMITS.md, images): a PNG is decoded whole
# before it is reduced, up to 4 bytes a pixel, so 40 M pixels cost at most about 160 MB for the moment of one
# thumbnail. A medical figure has far fewer; a small file of huge dimensions (a decompression bomb) is refused from
# its header.
MAX_IMAGE_PIXELS = 40_000_000
IMAGE_FORMATS = ("PNG", "JPEG")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
#: What an image without a file has not, as a report row says it (:func:`coverage_problems`).
IMAGE_LACKING = "no image file (shown as text)"
THUMBNAIL = (256, 256)
#: The report row of a folder without run files; the first run loaded takes it away.
NO_RUNS_KIND = "runs"
LISTED_IDS = 40
#: The inputs of a workspace, each with its own digest (the field names of :class:`Workspace`).
INPUTS = ("concepts", "names", "kg_files", "runs", "labels", "captions", "embeddings", "images", "image_folder",
          "extraction")
_READ_ONLY_MAPPINGS = ("names", "captions")


#: The report rows' kinds of concept sets read from a file and found in captions.
CONCEPTS_KIND = "concept sets"
FOUND_KIND = "concept sets found in the captions"


def rocov2_labels_path() -> Path:
    """The shipped modality/organ mapping of ROCOv2's concepts (:attr:`evalcore.io.loading.Rocov2Layout.labels`)."""
    return ROCOV2_LAYOUT.labels


class StepKind(enum.Enum):
    """The kinds of a workspace's load steps (:attr:`Workspace.recipe`; the ``kind`` of a
    :class:`~evalcore.app.store.SavedInput`, as the store keeps it): the one list that the loaders record their steps
    by (:meth:`step`) and that :func:`evalcore.app.saved.replay` replays, each kind with its own action in the one
    table there. A kind recorded here but not replayed, or replayed but never recorded, fails its tests.

    >>> StepKind.RUN.step("a.trec", b"q Q0 d 1 1.0 s")
    SavedInput(kind='run', name='a.trec', data=b'q Q0 d 1 1.0 s')
    """

    #: The embedded demo (:func:`load_demo`), a base.
    DEMO = "demo"
    #: A ROCOv2 data folder of the server, named by the step (:func:`load_rocov2_complete`), a base.
    FOLDER = "folder"
    CONCEPTS = "concepts"
    KG = "kg"
    RUN = "run"
    LABELS = "labels"
    NAMES = "names"
    CAPTIONS = "captions"
    IMAGES = "images"
    #: The ID list of the embeddings file that follows it.
    EMBEDDING_IDS = "embedding_ids"
    EMBEDDINGS = "embeddings"
    #: A synonym file of the extraction that follows it.
    SYNONYMS = "synonyms"
    #: A captions file read alone by the extraction that follows it (a collection of its own).
    EXTRACTION_CAPTIONS = "extraction_captions"
    #: An extraction of concept sets from captions, its options as JSON (:func:`extraction_steps`).
    EXTRACTION = "extraction"

    def step(self, name: str, data: bytes = b"") -> SavedInput:
        """The load step of this kind for the file ``name`` with ``data``; its kind is the plain text the store
        keeps."""
        return SavedInput(self.value, name, data)


def _input_digest(workspace: Workspace, name: str) -> str:
    """Digest of one input's parsed content (used where no file bytes were given)."""
    value = getattr(workspace, name)
    if name in ("kg_files", "runs"):  # each file or system already carries the digest of its bytes
        return content_digest(sorted((key, kept) for key, (kept, _) in value.items()))
    if name == "extraction":  # the digest of what it was made from (hashing its dictionary would take seconds) and of
        # the concept sets it replaced, which travel with it
        return content_digest(None if value is None else (value.digest, workspace.curated))
    if name == "image_folder":
        return content_digest((None if value is None else str(value), [str(root) for root in workspace.image_roots]))
    if name == "images":  # its own digest names each zip by its bytes: digesting the mapping would inflate them all
        return value.digest
    return content_digest(value)


@dataclass(frozen=True, eq=False)
class Workspace:
    """Everything loaded, with one content digest per input; replaced (never mutated) on load.

    ``names``, ``captions`` and ``images`` are read-only mappings: change them through :meth:`with_inputs` (or a
    ``with_*`` loader), which digests the new value, so a digest never outlives its content.

    >>> a = Workspace(captions={"img1": "CT of the liver"})
    >>> b = a.with_inputs(captions={"img1": "MRI of the liver"})
    >>> a.digest == b.digest, a.digests["names"] == b.digests["names"]
    (False, True)
    >>> a.restricted_to("names").digest == b.restricted_to("names").digest
    True
    """

    label: str = "nothing loaded"
    synthetic: bool = False
    concepts: ConceptSets | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    kg_files: Mapping[str, tuple[str, KGEdges]] = field(default_factory=dict)  # file name -> (digest, edges)
    runs: Mapping[str, tuple[str, Run]] = field(default_factory=dict)  # system -> (digest of its file, run)
    labels: ImageLabels | ConceptClassMap | None = None
    captions: Mapping[str, str] = field(default_factory=dict)
    embeddings: Embeddings | None = None
    images: Mapping[str, bytes] = field(default_factory=dict)
    image_folder: Path | None = None
    image_roots: tuple[Path, ...] = ()  # the data roots the image folder was loaded under; every file read is checked
    #: Where the concept sets were found in the captions: the extraction that made them (its dictionary gives the
    #: caption words behind each concept); None for concept sets read from a file.
    extraction: CaptionConcepts | None = None
    #: The concept sets the extraction replaced (read from a file, with their name as ``source``), kept to score the
    #: extraction against; None where none were loaded or they are about other images. Part of the extraction input:
    #: digested and restricted with it.
    curated: ConceptSets | None = None
    reports: tuple[ReportRow, ...] = ()
    #: How the workspace was loaded, step by step (a base, "demo" or "folder", then each file with its bytes, as the
    #: ``with_*`` loaders were called): what "Save" stores and :func:`evalcore.app.saved.replay` loads again.
    recipe: tuple[SavedInput, ...] = field(default=(), repr=False)
    #: input name -> digest of its content; missing ones are computed at construction.
    digests: Mapping[str, str] = field(default_factory=dict, repr=False)
    digest: str = field(init=False, repr=False)

    def __post_init__(self) -> None:
        for name in _READ_ONLY_MAPPINGS:
            value = getattr(self, name)
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, name, MappingProxyType(dict(value)))
        object.__setattr__(self, "images", ImageFiles.of(self.images))
        digests = {name: self.digests[name] if name in self.digests else _input_digest(self, name) for name in INPUTS}
        object.__setattr__(self, "digests", MappingProxyType(digests))
        object.__setattr__(self, "digest", content_digest(digests))

    def with_inputs(self, digests: Mapping[str, str] | None = None, **changes: Any) -> Workspace:
        """A copy with some inputs (or the label, reports, ...) replaced. A replaced input is digested again unless
        ``digests`` gives the digest of the file it was read from."""
        kept = {name: value for name, value in self.digests.items() if name not in changes}
        return replace(self, **changes, digests={**kept, **(digests or {})})

    def restricted_to(self, *inputs: str) -> Workspace:
        """A workspace holding only ``inputs`` (the others empty), with their digests: what a cached computation
        reading only these is given, so that its key is their content and it cannot read anything else."""
        unknown = set(inputs) - set(INPUTS)
        if unknown:
            raise CBIRLensError(f"unknown workspace inputs {sorted(unknown)}; the inputs are {', '.join(INPUTS)}")
        kept = {name: getattr(self, name) for name in inputs}
        if "image_folder" in inputs:
            kept["image_roots"] = self.image_roots
        if "extraction" in inputs:
            kept["curated"] = self.curated
        return Workspace(label=self.label, **kept, digests={name: self.digests[name] for name in inputs})

    def with_report(self, file: str, kind: str, rows: int | str, problems: str = "") -> Workspace:
        """The workspace with one more row of its validation report; a count of rows is written as every count is
        (``9,927``, not ``9927`` beside another row's ``9,927``)."""
        shown = f"{rows:,}" if isinstance(rows, int) else rows
        return replace(self, reports=(*self.reports, ReportRow(file, kind, shown, problems or "none")))

    def without_reports(self, kind: str) -> Workspace:
        """The workspace without the report rows of ``kind`` (a row that a later input made untrue)."""
        return replace(self, reports=tuple(row for row in self.reports if row.kind != kind))

    @functools.cached_property
    def shown_names(self) -> Mapping[str, str]:
        """The names concepts are shown and found by: the loaded concept names, and the KG's node names for the
        concepts they leave unnamed (the names a caption extraction looks for are :func:`extraction_names`').

        >>> ws = Workspace(names={"C1": "Vein"}, kg_files={"kg.csv": ("d", KGEdges((), {"C1": "Veins", "C2": "Artery"}))})
        >>> dict(ws.shown_names)
        {'C1': 'Vein', 'C2': 'Artery'}
        """
        return MappingProxyType({**{concept: name for _, edges in self.kg_files.values()
                                    for concept, name in edges.names.items()}, **self.names})

    def resolved_labels(self) -> ImageLabels | None:
        if self.labels is None or self.concepts is None:
            return None
        return self.labels.labels_for(self.concepts) if isinstance(self.labels, ConceptClassMap) else self.labels

    def image_file(self, image_id: str) -> tuple[str, bytes] | None:
        """The name and bytes of an image's file (uploaded, or in the loaded folder); None when there is none.

        A file of the folder is read only if its real path (links followed) lies under the data roots it was
        loaded under: a link inside ``images/`` to a file elsewhere is refused, not followed.
        """
        if image_id in self.images:
            return image_id, self.images[image_id]
        if self.image_folder is None or Path(image_id).name != image_id:
            return None
        for extension in IMAGE_SUFFIXES:
            path = self.image_folder / f"{image_id}{extension}"
            if not path.is_file():
                continue
            if not is_under_roots(path, self.image_roots):
                raise CBIRLensError(f"{shown_path(path.name)}: links to a file outside the data folders this server "
                                    "may read; not shown")
            size = path.stat().st_size
            if size > MAX_IMAGE_BYTES:
                raise CBIRLensError(f"{shown_path(path.name)}: {size / (1 << 20):,.0f} MiB, more than the "
                                    f"{MAX_IMAGE_BYTES >> 20} MiB an image may have; not shown")
            return path.name, path.resolve().read_bytes()
        return None


@dataclass(frozen=True)
class ReportRow:
    """One row of the validation report: a file read, what it held, how much, and what is wrong with it."""

    file: str
    kind: str
    rows_read: str
    problems: str = "none"

    def as_dict(self) -> dict[str, str]:
        """The row under the report's column names (the Data page's table, the CLI's ``check``)."""
        return {"file": self.file, "kind": self.kind, "rows read": self.rows_read, "problems": self.problems}


def report_table(workspace: Workspace) -> list[dict[str, str]]:
    """The validation report as rows of {file, kind, rows read, problems}."""
    return [row.as_dict() for row in workspace.reports]


def coverage_problems(concepts: ConceptSets | None, ids: Sequence[str], lacking: str) -> list[str]:
    """What a file about a collection's images (captions, embeddings, image files) misses and adds, one sentence
    each for its report row or a note: how many images of the concept sets it has nothing for (``lacking``: what
    those images have not, e.g. "no caption"), and the IDs it names that no concept set has, the first few listed.
    The one definition of both; nothing without concept sets, where there is no collection to compare with.

    >>> concepts = ConceptSets(("A", "B", "C", "D"), (frozenset(),) * 4, "c.csv")
    >>> coverage_problems(concepts, ["A", "E"], "no caption")
    ['3 of 4 images have no caption', '1 ID is not an image of the collection: E']
    >>> coverage_problems(concepts, ["A", "B", "C", "D"], "no caption"), coverage_problems(None, ["A"], "no caption")
    ([], [])
    """
    if concepts is None:
        return []
    present = set(ids)
    missing = sum(1 for image_id in concepts.ids if image_id not in present)
    unknown = [image_id for image_id in ids if image_id not in concepts.index]
    problems = []
    if missing:
        problems.append(f"{missing:,} of {len(concepts):,} images {'has' if missing == 1 else 'have'} {lacking}")
    if unknown:
        problems.append(f"{len(unknown):,} {'ID is not an image' if len(unknown) == 1 else 'IDs are not images'} of "
                        f"the collection: {listed(unknown)}")
    return problems


def kg_coverage_problems(concepts: ConceptSets | None, nodes: Collection[str]) -> list[str]:
    """One sentence where a knowledge graph (its ``nodes``: every file loaded, together) names none of the concepts
    of the collection: nn-IoU then gives IoU's numbers, which a wrong file (labels given as a graph) or a graph of
    other IDs would hide. Nothing without concept sets.

    >>> concepts = ConceptSets(("A", "B"), (frozenset({"C0000001"}), frozenset({"C0000002"})), "c.csv")
    >>> kg_coverage_problems(concepts, {"DEMO_1", "CT"})
    ['the knowledge graph (2 nodes) names none of the concepts of the collection (e.g. C0000001): nn-IoU gives the numbers of IoU']
    >>> kg_coverage_problems(concepts, {"C0000002", "C0000009"})
    []
    """
    if concepts is None or not concepts.vocabulary or any(concept in nodes for concept in concepts.vocabulary):
        return []
    return [f"the knowledge graph ({len(nodes):,} node{'s' if len(nodes) != 1 else ''}) names none of the concepts "
            f"of the collection (e.g. {listed(sorted(concepts.vocabulary)[:1])}): nn-IoU gives the numbers of IoU"]


def zero_vector_problems(embeddings: Embeddings) -> list[str]:
    """The embeddings that are all zeros, one sentence for a report row or a note: such a vector has no direction,
    so its cosine similarity to every image is 0 and, as a query, it ranks them all tied.

    >>> zero_vector_problems(Embeddings(("A", "B", "C"), np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])))
    ['1 embedding is all zeros (no direction: cosine similarity 0 to every image, all tied): B']
    """
    zero = [image_id for image_id, row in zip(embeddings.ids, np.any(embeddings.vectors != 0, axis=1)) if not row]
    if not zero:
        return []
    what = "embedding is" if len(zero) == 1 else "embeddings are"
    return [f"{len(zero):,} {what} all zeros (no direction: cosine similarity 0 to every image, all tied): "
            f"{listed(zero)}"]


def file_digest(*parts: bytes | str | None) -> str:
    """Content digest of the bytes (or text) of one input, e.g. an uploaded file and its ID list."""
    return content_digest(parts)


# --- loaders: each returns a new workspace with the input set, its digest and its report row ----------------------

def load_demo() -> Workspace:
    """The embedded synthetic demo (``data/demo``): concepts, names, KG, runs, labels, captions, embeddings, images."""
    workspace = Workspace(label="Demo (SYNTHETIC data)", synthetic=True)
    workspace = with_concepts(workspace, demo_path("concepts.csv").read_bytes(), "demo/concepts.csv")
    workspace = workspace.with_inputs(names=read_concept_names(demo_path("concept_names.csv")))
    workspace = with_kg(workspace, demo_path("kg_edges.csv").read_bytes(), "demo/kg_edges.csv")
    for path in sorted(demo_path("runs").glob("*.trec")):
        workspace = with_run(workspace, path.read_bytes(), f"demo/runs/{path.name}")
    workspace = with_labels(workspace, demo_path("labels.csv").read_bytes(), "demo/labels.csv")
    vectors, ids = demo_path("image_embeddings.npy"), demo_path("image_embeddings_ids.txt")
    workspace = workspace.with_inputs(
        captions=read_captions(demo_path("captions.csv")), embeddings=read_embeddings(vectors, ids_source=ids),
        images=read_image_zip(demo_path("images.zip").read_bytes(), "demo/images.zip"),
        digests={"embeddings": file_digest(vectors.read_bytes(), ids.read_bytes())}, reports=())
    return replace(workspace.with_report("data/demo/*", "demo (synthetic)", len(workspace.concepts)),
                   recipe=(StepKind.DEMO.step("the embedded demo"),))


def demo_digest() -> str:
    """Digest of the bytes of every file of the embedded demo (``data/demo``, which holds all :func:`load_demo`
    reads): two loads with the same digest give the same workspace, so the sessions of a server can share one. Reading
    the bytes (about 9 MB) costs a tenth of parsing them.

    >>> demo_digest() == demo_digest()
    True
    """
    files = sorted(path for path in demo_path().rglob("*") if path.is_file())
    return content_digest([(str(path.relative_to(demo_path())), path.read_bytes()) for path in files])


def with_concepts(workspace: Workspace, data: bytes, name: str) -> Workspace:
    concepts = read_concepts(data, name)
    new = workspace.with_inputs(concepts=concepts, extraction=None, curated=None, digests={"concepts": file_digest(data)})
    # The rows of the concept sets these replace describe concept sets no longer loaded.
    new = new.without_reports(CONCEPTS_KIND).without_reports(FOUND_KIND)
    # A file of image IDs alone (an embeddings ID list given as concept sets) reads as images without a concept.
    problems = "" if concepts.vocabulary else "no image has a concept: every score is undefined"
    return _recorded(new.with_report(name, CONCEPTS_KIND, len(concepts), problems), StepKind.CONCEPTS.step(name, data))


def _recorded(workspace: Workspace, *steps: SavedInput) -> Workspace:
    """``workspace`` with ``steps`` added to its recipe."""
    return replace(workspace, recipe=(*workspace.recipe, *steps))


def with_new_concepts(workspace: Workspace, data: bytes, name: str) -> Workspace:
    r"""New ground truth (an upload): the label says so; names and KG stay, and so does every input about some of the
    new images. What is about none of them (the demo's runs, labels, embeddings, captions and images under the
    concept sets of the user's own collection) is left out, as for concept sets found in a captions file read
    alone: kept, a run of no known query blocked every table and a caption baseline raised. The report row says what
    was left out and how much of what stays lacks a concept set (the loaded files' own rows were true of the concept
    sets they were read with).

    >>> ws = with_run(with_concepts(Workspace(), b"ID,CUIs\na,C0000001\nb,C0000002\n", "demo.csv"),
    ...               b"a Q0 b 1 1.0 s\n", "s.trec")
    >>> other = with_new_concepts(ws, b"ID,CUIs\nx,C0000001\n", "mine.csv")
    >>> sorted(other.runs), other.reports[-1].problems
    ([], "left out, being about other images: run 's'")
    >>> some = with_new_concepts(ws, b"ID,CUIs\na,C0000001\n", "mine.csv")
    >>> sorted(some.runs), some.reports[-1].problems
    (['s'], "run 's': 1 of 1 retrieved IDs have no concept set (scored as relevance 0)")
    """
    new = with_concepts(workspace, data, name)
    new, left_out = _only_about(new, frozenset(new.concepts.ids))
    row = new.reports[-1]  # the file's own, with its own problem (no concept at all) first
    problems = [*([row.problems] if row.problems != "none" else []), *left_out, *_uncovered(new)]
    row = replace(row, problems="; ".join(problems) or "none")
    return replace(new, label=f"Uploaded ({name})", synthetic=False, reports=(*new.reports[:-1], row))


def run_kind(system: str) -> str:
    """A run's report kind, which names its system: "run 'near-random'"."""
    return f"run '{system}'"


def _run_coverage(run: Run, concepts: ConceptSets) -> list[str]:
    """How much of a run has no concept set, one sentence (none where all of it has).

    >>> concepts = ConceptSets(("a", "b"), (frozenset({"C0000001"}),) * 2, "c.csv")
    >>> _run_coverage(Run("s", {"a": ("b", "x"), "q": ("a",)}), concepts)
    ['1 of 2 queries and 1 of 3 retrieved IDs have no concept set (scored as relevance 0)']
    """
    unknown_queries, unknown_docs = unknown_ids(run, concepts)
    retrieved = sum(len(ranking) for ranking in run.rankings.values())
    parts = ([f"{unknown_queries:,} of {len(run.rankings):,} queries"] if unknown_queries else []) + \
        ([f"{unknown_docs:,} of {retrieved:,} retrieved IDs"] if unknown_docs else [])
    return [f"{' and '.join(parts)} have no concept set (scored as relevance 0)"] if parts else []


def _uncovered(workspace: Workspace) -> list[str]:
    """How much of the loaded runs, labels, embeddings and captions has no concept set in ``workspace``'s concept
    sets, one sentence each (nothing where all of it has)."""
    concepts = workspace.concepts
    problems = [f"{run_kind(system)}: {problem}" for system, (_, run) in workspace.runs.items()
                for problem in _run_coverage(run, concepts)]
    if isinstance(workspace.labels, ImageLabels):
        problems += [f"labels: {problem}"
                     for problem in coverage_problems(concepts, _labelled_ids(workspace.labels), "no label")]
    if workspace.embeddings is not None:
        problems += [f"embeddings: {problem}"
                     for problem in coverage_problems(concepts, workspace.embeddings.ids, "no embedding")]
    if workspace.captions:
        problems += [f"captions: {problem}" for problem in coverage_problems(concepts, list(workspace.captions),
                                                                             "no caption")]
    return problems


def with_kg(workspace: Workspace, data: bytes, name: str) -> Workspace:
    edges = read_kg(data, name)
    new = workspace.with_inputs(kg_files={**workspace.kg_files, name: (file_digest(data), edges)})
    # The sidebar counts the graph's links: a (child, parent) pair given by several rows (several sources) once.
    links = len({(child, parent) for child, parent, _ in edges.edges if child != parent})
    merged = f" ({links:,} distinct)" if links != len(edges) else ""
    # the graph is every KG file loaded together: a file of links between other files' nodes is no problem
    nodes = {node for _, kg_edges in new.kg_files.values() for child, parent, _ in kg_edges.edges
             for node in (child, parent)}
    return _recorded(new.with_report(name, "knowledge graph", f"{len(edges):,} edge{'s' if len(edges) != 1 else ''}{merged}",
                                     "; ".join(kg_coverage_problems(workspace.concepts, nodes))),
                     StepKind.KG.step(name, data))


def with_kg_names(workspace: Workspace, kg_file: str, data: bytes, name: str) -> Workspace:
    """The node names of a names file read with the KG file ``kg_file`` (``open_kg_names.csv`` beside
    ``open_kg_edges.csv``, as the command line's ``--kg`` reads it): they are the KG's, over its file's own, not the
    concept names (:func:`extraction_names` looks for them in captions only when asked); the KG input's digest
    covers both files.

    >>> ws = with_kg(Workspace(), b"child,parent\\nC1,C2\\n", "kg_edges.csv")
    >>> named = with_kg_names(ws, "kg_edges.csv", b"CUI,Name\\nC2,Vessel\\n", "kg_names.csv")
    >>> named.kg_files["kg_edges.csv"][1].names, dict(named.names), ws.digests["kg_files"] != named.digests["kg_files"]
    ({'C2': 'Vessel'}, {}, True)
    """
    digest, edges = workspace.kg_files[kg_file]
    named = replace(edges, names={**edges.names, **read_concept_names(data, name)})
    return workspace.with_inputs(kg_files={**workspace.kg_files, kg_file: (content_digest((digest, file_digest(data))),
                                                                           named)})


def with_run(workspace: Workspace, data: bytes, name: str,
             progress: Callable[[float, str], None] | None = None) -> Workspace:
    """Add the systems of one run file (one per TREC tag); a run with no known query is refused, and so is one named
    as the tool names its own systems, "Retrieval by ..." (:func:`~evalcore.evaluation.evaluator.built_in_system`).

    ``progress(fraction, message)`` follows the reading (a depth-1000 run has 10 million lines).
    """
    runs = read_runs(data, name, None if progress is None else lambda f, message: progress(0.9 * f, message))
    if progress is not None:
        progress(0.9, f"Fingerprinting {name}")
    content = file_digest(data)
    new = workspace.with_inputs(runs={**workspace.runs, **{run.name: (content, run) for run in runs}})
    # Runs are loaded now: the folder's "no run files" row no longer describes the workspace.
    new = new.without_reports(NO_RUNS_KIND)
    for run in runs:
        if is_built_in_name(run.name):
            # Its table would hold two systems of that name once the baseline is chosen, and show only an error.
            raise InputError(name, None, f"a system name not beginning '{BUILT_IN_PREFIX}'",
                             f"'{run.name}', named as the tool's own systems (baselines, a measure's own ranking): "
                             "rename the file or its TREC tag",
                             plain_expected=f"a system name not beginning '{BUILT_IN_PREFIX}', which names the tool's "
                                            f"own reference systems (found '{run.name}': rename the file or the system "
                                            "named on its lines)")
        problems = []
        if workspace.concepts is not None:
            unknown_queries, _ = unknown_ids(run, workspace.concepts)
            if unknown_queries == len(run.rankings):
                first = next(iter(run.rankings))
                raise InputError(name, None, f"query IDs that have a concept set in {workspace.concepts.source}",
                                 f"none of the {len(run.rankings):,} queries of system '{run.name}' does "
                                 f"(first: {quoted_id(first)})",
                                 plain_expected=f"the results of cases whose images have concepts in "
                                                f"{workspace.concepts.source} (none of the {len(run.rankings):,} "
                                                f"cases of system '{run.name}' has)")
            problems += _run_coverage(run, workspace.concepts)
        kind = run_kind(run.name)
        if run.name in workspace.runs:
            # The run of that name read before is replaced: its row describes a run no longer loaded.
            replaced = [row.file for row in new.reports if row.kind == kind]
            new = new.without_reports(kind)
            problems.append(f"replaces the run of that name read before{f' from {replaced[-1]}' if replaced else ''}")
        new = new.with_report(name, kind, f"{len(run.rankings):,} queries", "; ".join(problems))
    if progress is not None:
        progress(1.0, f"Loaded {name}")
    return _recorded(new, StepKind.RUN.step(name, data))


def with_labels(workspace: Workspace, data: bytes, name: str) -> Workspace:
    """Add a labels file. With concept sets loaded, per-image labels of none of their images are refused, as the
    command line and the API refuse them (:func:`evalcore.io.loading.resolve_labels`), and the report row says how
    many images they leave unlabelled and which IDs they add (:func:`coverage_problems`)."""
    labels = read_labels(data, name)
    problems: list[str] = []
    if workspace.concepts is not None:
        resolve_labels(labels, workspace.concepts)
        if isinstance(labels, ImageLabels):
            problems = coverage_problems(workspace.concepts, _labelled_ids(labels), "no label")
    new = workspace.with_inputs(labels=labels, digests={"labels": file_digest(data)}).without_reports("labels")
    return _recorded(new.with_report(name, "labels", _label_rows(labels), "; ".join(problems)),
                     StepKind.LABELS.step(name, data))


def _labelled_ids(labels: ImageLabels) -> list[str]:
    """The images per-image labels label, each once, in the file's order."""
    return list(dict.fromkeys(image_id for by_image in labels.by_kind.values() for image_id in by_image))


def _label_rows(labels: ImageLabels | ConceptClassMap) -> int:
    """The data rows of a labels file: one per image of per-image labels (each row labels every kind of one image,
    so counting per kind would count it once a kind), one per (kind, class, CUI) of a mapping (a row repeated word
    for word counted once).

    >>> per_image = {"a": frozenset({"CT"}), "b": frozenset()}
    >>> _label_rows(ImageLabels({"modality": per_image, "organ": per_image}))
    2
    >>> _label_rows(ConceptClassMap({"modality": {"C0040405": frozenset({"CT", "X-ray"})}}))
    2
    """
    if isinstance(labels, ImageLabels):
        return len(set().union(*labels.by_kind.values()))
    return sum(len(classes) for by_cui in labels.by_kind.values() for classes in by_cui.values())


def with_names(workspace: Workspace, data: bytes, name: str) -> Workspace:
    names = read_names_to_find(data, name)
    return _recorded(workspace.with_inputs(names={**workspace.names, **names}).with_report(name, "concept names", len(names)),
                     StepKind.NAMES.step(name, data))


def with_captions(workspace: Workspace, data: bytes, name: str) -> Workspace:
    captions = read_captions(data, name)
    new = workspace.with_inputs(captions={**workspace.captions, **captions})
    problems = coverage_problems(workspace.concepts, list(captions), "no caption")
    return _recorded(new.with_report(name, "captions", len(captions), "; ".join(problems)),
                     StepKind.CAPTIONS.step(name, data))


def with_images(workspace: Workspace, data: bytes, name: str) -> Workspace:
    """Add the images of a zip; its report row says how many images of the collection it lacks, which IDs it adds
    that the collection has not, and which of its image files are no PNG or JPEG (kept, and shown as unreadable)."""
    loaded = ImageFiles.of(workspace.images)
    images, unreadable = _zip_images(data, name, adding_to=loaded)
    problems = coverage_problems(workspace.concepts, list(images), IMAGE_LACKING)
    if unreadable:
        what = "file is not a readable PNG or JPEG image" if len(unreadable) == 1 else \
            "files are not readable PNG or JPEG images"
        problems.append(f"{len(unreadable):,} {what}: {listed(unreadable)}")
    new = workspace.with_inputs(images=loaded.merged(images))
    return _recorded(new.with_report(name, "images", len(images), "; ".join(problems)), StepKind.IMAGES.step(name, data))


def with_embeddings(workspace: Workspace, data: bytes, name: str, ids: bytes | None = None,
                    ids_name: str | None = None) -> Workspace:
    embeddings = read_embeddings(data, name, ids, ids_name)
    new = workspace.with_inputs(embeddings=embeddings, digests={"embeddings": file_digest(data, ids)})
    new = new.without_reports("embeddings")  # the embeddings these replace
    new = new.with_report(name, "embeddings", f"{len(embeddings.ids):,} x {embeddings.vectors.shape[1]}",
                          "; ".join([*coverage_problems(workspace.concepts, embeddings.ids, "no embedding"),
                                     *zero_vector_problems(embeddings)]))
    return _recorded(new, *([StepKind.EMBEDDING_IDS.step(ids_name or "ids.txt", ids)] if ids is not None else []),
                     StepKind.EMBEDDINGS.step(name, data))


def extraction_names(workspace: Workspace, kg_names: bool = True) -> tuple[dict[str, str], dict[str, list[str]]]:
    """The names concepts are found by in captions: the loaded concept names, then, with ``kg_names``, the names of
    the knowledge graph's nodes; a node the KG names otherwise than the concept names keeps the concept name, and the
    KG's name becomes its synonym (as :func:`evalcore.api.extract_concepts` reads several names files).

    >>> ws = Workspace(names={"C0000001": "Vein"}, kg_files={"kg.csv": ("d", KGEdges((), {
    ...     "C0000001": "Veins", "C0000002": "Blood vessel"}))})
    >>> extraction_names(ws)
    ({'C0000001': 'Vein', 'C0000002': 'Blood vessel'}, {'C0000001': ['Veins']})
    >>> extraction_names(ws, kg_names=False)
    ({'C0000001': 'Vein'}, {})
    """
    return merged_names([workspace.names, *(edges.names for _, edges in workspace.kg_files.values() if kg_names)])


def caption_concepts(workspace: Workspace, synonym_files: Sequence[tuple[bytes, str]] = (), abbreviations: bool = True,
                     kg_names: bool = False, progress: Callable[[float, str], None] | None = None) -> CaptionConcepts:
    """The concept sets of the workspace's captions (:func:`evalcore.extraction.caption_concepts.find_caption_concepts`, the
    one extraction, which :func:`evalcore.extract_concepts` runs on files) by the loaded concept names (and, with
    ``kg_names``, the KG's node names: :func:`extraction_names`), the synonyms of ``synonym_files`` ((bytes, file
    name) pairs, any format :func:`~evalcore.readers.read_synonyms` reads; its message names the file and line of bad
    input) and, with ``abbreviations``, the built-in imaging vocabulary. Reads only the captions, names and KG files.

    The dictionary without the KG's names is the command line's (``extract --names`` with the collection's names
    file): on ROCOv2 test both give F1 0.7344 against the curated sets; the KG's names add words the curators did not
    tag (0.6734)."""
    if not workspace.captions:
        raise CBIRLensError("no captions loaded: load an 'ID,Caption' file first")
    names, kg_synonyms = extraction_names(workspace, kg_names)
    synonyms = merged_synonyms(kg_synonyms, *(read_synonyms(data, file_name, names) for data, file_name in synonym_files))
    named_by = "the concept names and the KG's node names" if kg_names and workspace.kg_files else "the concept names"
    sources = (f"{len(names):,} names ({named_by})", *(f"synonyms from {file_name}" for _, file_name in synonym_files),
               *(("the built-in imaging vocabulary and clinical synonyms",) if abbreviations else ()))
    found = find_caption_concepts(workspace.captions, names, synonyms, abbreviations, sources, progress)
    # Concept sets that are all empty would leave every page with nothing to score: said here, nothing replaced
    # (names without a CUI are refused by find_caption_concepts).
    if not any(found.concepts.sets):
        captions = len(found.concepts)
        raise CBIRLensError(f"none of the {captions:,} caption{'s' if captions != 1 else ''} names one of the "
                            f"{len(found.dictionary):,} concepts loaded; the concept sets were left as they were")
    return found


def with_extracted_concepts(workspace: Workspace, extracted: CaptionConcepts, source: str,
                            steps: Sequence[SavedInput] = ()) -> Workspace:
    """The workspace with the concept sets found in captions (:func:`caption_concepts`) as its ground truth,
    keeping the extraction (for the caption words behind each concept) and its digest; the report says how many
    images have no concept. Captions other than the workspace's (a captions file read alone) replace them and make
    the collection the user's own: what is about none of its images (runs, per-image labels, embeddings, images) is
    left out and the report says so; names and KG stay.

    The concept sets read from a file that the extraction replaces are kept as ``curated`` (a second extraction keeps
    the first one's), to score the extraction against, unless they hold none of its images. ``steps`` (the inputs
    and options the extraction was run with, :func:`extraction_steps`) go to the recipe;
    :func:`with_caption_extraction` runs an extraction and records them.

    >>> ws = Workspace(names={"C0040405": "X-Ray Computed Tomography"}, captions={"a": "CT", "b": "Normal."},
    ...                concepts=ConceptSets(("a", "b"), (frozenset({"C0040405"}), frozenset()), "truth.csv"))
    >>> new = with_extracted_concepts(ws, caption_concepts(ws), "captions.csv")
    >>> [sorted(s) for s in new.concepts.sets], new.reports[-1].problems
    ([['C0040405'], []], '1 image (50.0%) has no concept found in the caption')
    >>> new.digests["concepts"] != ws.digests["concepts"], new.extraction is not None, new.curated.source
    (True, True, 'truth.csv')
    >>> again = with_extracted_concepts(new, caption_concepts(new), "captions.csv")
    >>> again.curated is ws.concepts, again.digests["extraction"] == new.digests["extraction"]
    (True, True)
    """
    same_captions = content_digest(extracted.captions) == workspace.digests["captions"]
    concepts = extracted.concepts
    curated = workspace.concepts if workspace.extraction is None else workspace.curated
    if curated is not None and not any(image_id in curated.index for image_id in concepts.ids):
        curated = None
    new = workspace.with_inputs(concepts=concepts, extraction=extracted, curated=curated, captions=extracted.captions,
                                digests={"concepts": content_digest(("caption concepts", extracted.digest))})
    empty = sum(1 for concept_set in concepts.sets if not concept_set)
    problems = [f"{empty:,} image{'s' if empty != 1 else ''} ({empty / len(concepts):.1%}) "
                f"{'has' if empty == 1 else 'have'} no concept found in the caption"] if empty else []
    if not same_captions:
        new, left_out = _only_about(new, frozenset(concepts.ids))
        new = replace(new, label=f"Uploaded ({source})", synthetic=False)
        problems += left_out
    # a second extraction's row replaces the first's (the concept sets read from a file stay: kept as curated)
    return _recorded(new.without_reports(FOUND_KIND).with_report(source, FOUND_KIND, len(concepts), "; ".join(problems)),
                     *steps)


def extraction_steps(synonym_files: Sequence[tuple[bytes, str]], abbreviations: bool,
                     captions_alone: tuple[bytes, str] | None = None, kg_names: bool = False) -> tuple[SavedInput, ...]:
    """The recipe steps of an extraction from the workspace's captions (or ``captions_alone``, a captions file
    read as a collection of its own), with ``synonym_files`` ((bytes, name) pairs), the imaging vocabulary and the
    KG's names on or off: the one place they are made (:func:`with_caption_extraction`; :func:`extraction_options`
    reads the options back).

    >>> [(step.kind, step.name) for step in extraction_steps([(b"...", "mesh.tsv")], True)]
    [('synonyms', 'mesh.tsv'), ('extraction', 'options')]
    """
    return (*(StepKind.SYNONYMS.step(name, data) for data, name in synonym_files),
            *([StepKind.EXTRACTION_CAPTIONS.step(captions_alone[1], captions_alone[0])] if captions_alone else []),
            StepKind.EXTRACTION.step("options", json.dumps({"abbreviations": bool(abbreviations),
                                                            "kg_names": bool(kg_names)}).encode()))


def extraction_options(step: SavedInput) -> tuple[bool, bool]:
    """Whether the extraction of an ``extraction`` step (:func:`extraction_steps`) read the imaging vocabulary
    (``abbreviations``) and the KG's names (``kg_names``); a :class:`~evalcore.errors.StoreError` where its options
    are damaged. A step saved before the KG's names were a choice read them (they were always read then), and
    replays so.

    >>> extraction_options(extraction_steps((), False)[-1])
    (False, False)
    >>> extraction_options(SavedInput("extraction", "options", b'{"abbreviations": true}'))
    (True, True)
    """
    try:
        options = json.loads(step.data.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError is one
        options = None
    if not isinstance(options, dict) or not all(isinstance(options.get(name, True), bool)
                                                for name in ("abbreviations", "kg_names")):
        raise StoreError("This saved workspace's extraction step is damaged (its options are no JSON object with "
                         "a true or false 'abbreviations' and 'kg_names'); load its inputs again and save them.")
    return bool(options.get("abbreviations", True)), bool(options.get("kg_names", True))


def with_caption_extraction(workspace: Workspace, synonym_files: Sequence[tuple[bytes, str]] = (),
                            abbreviations: bool = True, captions_alone: tuple[bytes, str] | None = None,
                            find: Callable[..., CaptionConcepts] | None = None,
                            progress: Callable[[float, str], None] | None = None, kg_names: bool = False) -> Workspace:
    """The workspace with the concept sets found in its captions, or in ``captions_alone`` ((bytes, name) of a
    captions file read as a collection of its own), by the names, the ``synonym_files`` ((bytes, name) pairs) and,
    with ``abbreviations``, the imaging vocabulary (:func:`with_extracted_concepts`), its steps recorded
    (:func:`extraction_steps`): the one extraction step, which the Data page runs and a saved workspace replays.
    ``find(workspace, synonym_files, abbreviations, progress)`` finds the concepts (:func:`caption_concepts`, or a
    cache of it).

    >>> ws = Workspace(names={"C0040405": "X-Ray Computed Tomography"}, captions={"a": "CT"})
    >>> new = with_caption_extraction(ws, captions_alone=(b"ID,Caption\\nb,CT\\n", "mine.csv"))
    >>> new.concepts.ids, new.label, [step.kind for step in new.recipe]
    (('b',), 'Uploaded (mine.csv)', ['extraction_captions', 'extraction'])
    """
    synonym_files = tuple(synonym_files)
    reading = workspace if captions_alone is None else workspace.with_inputs(
        captions=read_captions(captions_alone[0], captions_alone[1]))
    found = (find or caption_concepts)(reading, synonym_files, abbreviations, kg_names, progress=progress)
    source = "loaded captions" if captions_alone is None else captions_alone[1]
    return with_extracted_concepts(workspace, found, source,
                                   extraction_steps(synonym_files, abbreviations, captions_alone, kg_names))


def image_evidence(extracted: CaptionConcepts, image_id: str,
                   mentions: Sequence[Mention] | None = None) -> list[EvidenceRow]:
    """The evidence rows of one image of ``extracted`` (:func:`~evalcore.extraction.evidence.evidence_rows`, as
    ``extract --evidence`` writes them): its caption's mentions in text order, what matched, kept or negated, and
    the rule; ``mentions``: the caption's, where the caller has found them already
    (:meth:`~evalcore.extraction.caption_concepts.CaptionConcepts.mentions_of`).

    >>> found = caption_concepts(Workspace(names={"C0040405": "X-Ray Computed Tomography", "C0019080": "Hemorrhage"},
    ...                                    captions={"a": "MRI.", "b": "CT without hemorrhage"}))
    >>> rows = image_evidence(found, "b")
    >>> [(row.words, row.status) for row in rows], rows[1].rule.endswith(" in: CT without hemorrhage")
    ([('CT', 'kept'), ('hemorrhage', 'negated')], True)
    """
    if image_id not in extracted.concepts.index:
        return []
    return image_rows(extracted, image_id, extracted.mentions_of(image_id) if mentions is None else mentions)


def concept_mentions(extracted: CaptionConcepts) -> dict[str, dict[str, bool]]:
    """Concept -> the images whose caption mentions it, in the collection's order, each with whether the mention
    put the concept in the image's set (True) or none did (False: each negated, hypothetical, of the history, of
    another examination or of the literature): what finding the images of one concept reads (a pass over every
    caption, :func:`~evalcore.extraction.evidence.evidence_rows`).

    >>> found = caption_concepts(Workspace(names={"C0040405": "X-Ray Computed Tomography", "C0019080": "Hemorrhage"},
    ...                                    captions={"a": "CT: hemorrhage.", "b": "No hemorrhage.", "c": "MRI."}))
    >>> concept_mentions(found)
    {'C0040405': {'a': True}, 'C0019080': {'a': True, 'b': False}}
    """
    index: dict[str, dict[str, bool]] = {}
    for row in evidence_rows(extracted):
        images = index.setdefault(row.concept, {})
        images[row.image_id] = images.get(row.image_id, False) or row.status == "kept"
    return index


def _only_about(workspace: Workspace, ids: frozenset[str]) -> tuple[Workspace, list[str]]:
    """The workspace without the inputs about images none of which is in ``ids`` (runs without such a query,
    per-image labels, embeddings, captions and images of other images, an image folder) and their report rows, and
    the report's sentence on what was left out (none where nothing was): a new collection's pages would otherwise
    score the demo's runs on queries it does not have."""
    runs = {name: kept for name, kept in workspace.runs.items() if not ids.isdisjoint(kept[1].rankings)}
    # The report kinds of the inputs left out whole: their rows describe inputs no longer loaded (a run loaded again
    # under its name then had two).
    dropped = [run_kind(name) for name in workspace.runs if name not in runs]
    changes: dict[str, Any] = {"runs": runs} if dropped else {}
    labels = workspace.labels
    if isinstance(labels, ImageLabels) and all(ids.isdisjoint(by_id) for by_id in labels.by_kind.values()):
        changes["labels"] = None
        dropped.append("labels")
    if workspace.embeddings is not None and ids.isdisjoint(workspace.embeddings.ids):
        changes["embeddings"] = None
        dropped.append("embeddings")
    if workspace.captions and ids.isdisjoint(workspace.captions):
        changes["captions"] = {}
        dropped.append("captions")
    left_out = list(dropped)
    images = ImageFiles.of(workspace.images).only(ids)
    if len(images) < len(workspace.images):
        changes["images"] = images
        left_out.append(f"{len(workspace.images) - len(images):,} images of other IDs")
    if workspace.image_folder is not None and not _folder_has_image_of(workspace.image_folder, ids):
        changes.update(image_folder=None, image_roots=())
        left_out.append(f"the image folder {shown_path(str(workspace.image_folder))}")
    new = workspace.with_inputs(**changes) if changes else workspace
    for kind in dropped:
        new = new.without_reports(kind)
    return new, [f"left out, being about other images: {', '.join(left_out)}"] if left_out else []


def _folder_has_image_of(folder: Path, ids: frozenset[str]) -> bool:
    """Whether ``folder`` holds an image file of one of ``ids`` (read until the first; a folder gone since it was
    loaded holds none)."""
    try:
        with os.scandir(folder) as entries:
            return any(Path(entry.name).suffix.lower() in IMAGE_SUFFIXES and Path(entry.name).stem in ids
                       for entry in entries)
    except OSError:
        return False


class Steps(Protocol):
    """Progress over a number of steps (the dashboard's progress bar): ``run(text, work)`` runs one step."""

    steps: int

    def run(self, text: str, work: Callable[[Callable[[float], None]], Any]) -> Any: ...


def load_rocov2(folder: str, roots: Sequence[Path], with_labels_mapping: bool = True) -> Workspace:
    """The test split of a ROCOv2 folder (concepts, captions, names, images) and the KG of ``../kg`` beside it, every
    file read only under ``roots``; with the shipped modality/organ mapping as labels. Every path is the layout's
    (:data:`evalcore.io.loading.ROCOV2_LAYOUT`), which :func:`rocov2_digest` digests."""
    layout = ROCOV2_LAYOUT
    loaded = load_rocov2_folder(folder, ("test",), roots, layout)
    concepts = loaded.concepts["test"]
    new = Workspace(label=f"ROCOv2 test ({folder})", concepts=concepts, names=loaded.names,
                    captions=loaded.captions.get("test", {}), image_folder=loaded.images, image_roots=tuple(roots))
    new = new.with_report(str(layout.concepts_file(folder, "test")), CONCEPTS_KIND, len(concepts))
    kg_path = layout.kg_edges_file(folder)
    if kg_path.exists() and is_under_roots(kg_path, roots):
        new = with_kg(new, read_input_bytes(check_under_roots(kg_path, roots), str(kg_path))[0], str(kg_path))
        names_path = layout.kg_names_file(folder)
        if names_path.exists():
            new = with_kg_names(new, str(kg_path), read_input_bytes(check_under_roots(names_path, roots),
                                                                     str(names_path))[0], str(names_path))
    if with_labels_mapping:
        new = with_labels(new, layout.labels.read_bytes(), "data/labels/rocov2_labels.csv")
    return new


class ReportedSteps:
    """:class:`Steps` reported as ``report(fraction of all steps done, text)``: a loader's steps moving a progress
    bar that lives elsewhere (another session's, waiting for the same load).

    >>> reports = []
    >>> steps = ReportedSteps(lambda fraction, text: reports.append((fraction, text)))
    >>> steps.steps = 2
    >>> steps.run("Reading", lambda report: report(0.5)), reports
    (None, [(0.0, 'Reading (step 1 of 2)'), (0.25, 'Reading (step 1 of 2)')])
    """

    def __init__(self, report: Callable[[float, str], None]) -> None:
        self.report = report
        self.steps = 1
        self.finished = 0

    def run(self, text: str, work: Callable[[Callable[[float], None]], Any]) -> Any:
        shown = f"{text} (step {self.finished + 1} of {self.steps})"

        def moved(fraction: float) -> None:
            self.report((self.finished + min(1.0, max(0.0, fraction))) / max(1, self.steps), shown)

        moved(0.0)
        result = work(moved)
        self.finished += 1
        return result


def rocov2_digest(folder: str, roots: Sequence[Path]) -> str:
    """Digest of the bytes of every file :func:`load_rocov2_complete` reads from ``folder``, as the layout lists
    them (:meth:`evalcore.io.loading.Rocov2Layout.files`: the test concepts and captions, the concept names, the KG
    and its names beside it, every run file; and its shipped labels mapping), and of the names in ``images/``: two
    loads with the same digest (and folder) give the same workspace. Reading the bytes costs a fraction of parsing
    them, so sessions loading the same folder can share one workspace."""
    root = check_under_roots(folder, roots)
    layout = ROCOV2_LAYOUT
    images = layout.images_folder(root)
    listed = sorted(p.name for p in images.iterdir()) if images.is_dir() else None
    # A file outside the roots is not read here either (the loader skips or refuses it).
    read = [(str(path), path.read_bytes() if path.is_file() and is_under_roots(path, roots) else None)
            for path in layout.files(folder)]
    return content_digest((str(root), read, layout.labels.read_bytes(), listed))


def load_rocov2_complete(folder: str, roots: Sequence[Path], progress: Steps | None = None,
                         finish: Callable[[Workspace], object] | None = None) -> Workspace:
    """:func:`load_rocov2`, then the run files of a ``runs/`` folder beside the concepts and a report row for every
    file read (captions, names and the concept IDs they leave unnamed, images); ``finish(workspace)`` runs as the
    last step (the dashboard builds the KG index there)."""
    root = check_under_roots(folder, roots)
    layout = ROCOV2_LAYOUT
    runs_folder = layout.runs_folder(root)
    run_files = layout.run_files(root)

    if progress is not None:
        progress.steps = 1 + len(run_files) + (finish is not None)

    def step(text: str, work: Callable[[Callable[[float], None]], Any]) -> Any:
        return progress.run(text, work) if progress is not None else work(lambda _: None)

    new = step("Reading the concepts, captions, concept names, knowledge graph and labels",
               lambda _: load_rocov2(folder, roots))
    vocabulary = set(new.concepts.vocabulary)
    captions_path = layout.captions_file(root, "test")
    if captions_path.exists():
        new = new.with_report(str(captions_path), "captions", f"{len(new.captions):,}",
                              "; ".join(coverage_problems(new.concepts, list(new.captions), "no caption")))
    mapping_path = layout.names_file(root)
    mapped: dict[str, str] = {}
    if mapping_path.exists():
        mapped = read_concept_names(mapping_path)
        unnamed = sorted(vocabulary - set(mapped))
        problems = ""
        if unnamed:
            from_kg = sum(1 for c in unnamed if c in new.shown_names)
            problems = (f"{len(unnamed):,} concept IDs of the concept file have no name here: "
                        f"{listed(unnamed, LISTED_IDS)}"
                        + (f" ({from_kg:,} named by the KG's names file)" if from_kg else ""))
        new = new.with_report(str(mapping_path), "concept names", f"{len(mapped):,}", problems)
    names_path = layout.kg_names_file(folder)
    if str(layout.kg_edges_file(folder)) in new.kg_files and names_path.exists():  # the names read with the KG
        added = sum(1 for c in new.shown_names if c not in mapped)
        new = new.with_report(str(names_path), "KG node names", f"{added:,} names beyond the concept names")
    if new.image_folder is not None:
        files = sorted({p.stem for p in new.image_folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES})
        new = new.with_report(str(new.image_folder), "images", f"{len(files):,} files",
                              "; ".join(coverage_problems(new.concepts, files, IMAGE_LACKING)))
    if not run_files:
        new = new.with_report(str(runs_folder), NO_RUNS_KIND, 0,
                              "no run files: the leaderboard computes the Table-1 baselines")
    for path in run_files:
        # Named under the folder as given, not where it resolved to: a refusal names no path the user did not write.
        given = str(Path(folder) / path.relative_to(root))
        new = step(f"Reading run {path.name}", lambda _, given=given, current=new: with_run(
            current, read_input_bytes(check_under_roots(given, roots), given)[0], given))
    if finish is not None:
        step("Building the knowledge-graph index", lambda _: finish(new))
    return replace(new, recipe=(StepKind.FOLDER.step(folder),))


# --- images ----------------------------------------------------------------------------------------------------

# The compression methods a zip of images may use: those zip tools write by default. zipfile also reads bzip2 (at a
# tenth of deflate's speed: a minute for the 2 GiB every member of a zip may expand to, all read at load) and LZMA;
# a zip of PNG and JPEG files, already compressed, gains nothing from either.
_ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
# What a zip's index costs beside its bytes, per member: zipfile's ZipInfo with its name and the entry of its image
# here, about 770 bytes in all (CPython 3.11, tracemalloc over a zip of 50,000 members).
_INDEX_BYTES_PER_MEMBER = 800


def _mib(size: int) -> str:
    return f"{size / (1 << 20):,.1f} MiB"


class _ServerImageBytes:
    """The bytes held by the zips of images alive in this process, against :data:`MAX_SERVER_IMAGE_BYTES`: a zip
    reserves its bytes before its members are read and gives them back when it is garbage, that is when the last
    workspace holding one of its images is dropped (its session closed, or loaded other data)."""

    def __init__(self) -> None:
        # Sessions load in threads of their own: check and add at once. Re-entrant, since a zip the garbage collector
        # frees while this thread reserves gives its bytes back from inside reserve.
        self._lock = threading.RLock()
        self.held = 0

    def reserve(self, size: int, name: str) -> None:
        with self._lock:
            if self.held + size > MAX_SERVER_IMAGE_BYTES:
                raise CBIRLensError(
                    f"{name}: holding its images takes {_mib(size)}; the images of all this server's sessions would "
                    f"then take {_mib(self.held + size)}, more than the {_mib(MAX_SERVER_IMAGE_BYTES)} the server may "
                    f"hold ({_mib(self.held)} already in use); try again once other sessions have closed or loaded "
                    "other data, or load a large collection from a folder on the server (ROCOv2 folder)")
            self.held += size

    def release(self, size: int) -> None:
        with self._lock:
            self.held -= size


_SERVER_IMAGES = _ServerImageBytes()


def server_image_bytes() -> int:
    """Bytes held by the zips of images alive in this process (counted against :data:`MAX_SERVER_IMAGE_BYTES`)."""
    return _SERVER_IMAGES.held


class _Zip:
    """One zip of images, kept as it was read: a member is inflated when its image is read, so the zip costs its
    bytes and its index (:attr:`held`), not what it expands to."""

    def __init__(self, name: str, data: bytes, archive: zipfile.ZipFile) -> None:
        self.name = name
        self._data = data  # the same bytes object the archive reads from (io.BytesIO shares it, copying nothing)
        self._archive = archive
        self.held = len(data) + len(archive.filelist) * _INDEX_BYTES_PER_MEMBER
        self._release: weakref.finalize | None = None
        self._digest: str | None = None

    def reserve(self) -> None:
        """Count :attr:`held` against the server's budget until this zip is garbage (or :meth:`release`)."""
        _SERVER_IMAGES.reserve(self.held, self.name)
        self._release = weakref.finalize(self, _SERVER_IMAGES.release, self.held)

    def release(self) -> None:
        """Give the reservation back now: a refused zip may live on a while in the traceback that refused it."""
        if self._release is not None:
            self._release()

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = content_digest(self._data)
        return self._digest

    def read(self, member: zipfile.ZipInfo) -> bytes:
        """A member's bytes, inflated and checked against its CRC-32 (at most its ``file_size``, which
        :func:`read_image_zip` bounds); a damaged member raises an :class:`InputError` naming the zip and it."""
        try:
            with self._archive.open(member) as stream:
                # Its size, not read(): zipfile reads to the end by growing one bytes object, 3-4x slower for
                # 20 MiB; reaching the size ends the stream, where zipfile checks the CRC-32.
                return stream.read(member.file_size)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError) as error:
            raise _damaged(f"{self.name}: {shown_path(member.filename)}", error) from None


#: What a zip's member was expected to be, for a reader who is not a researcher.
PLAIN_MEMBER = "a complete, undamaged picture (zip the images again)"
#: What a zip of images was expected to be, in both readers' words.
ZIP_EXPECTED = "a zip archive of <ID>.png/.jpg images"
PLAIN_ZIP = "a zip file of pictures, each named by its image ID (.png or .jpg)"


def _damaged(where: str, error: Exception) -> InputError:
    """The message for a member that could not be read; zipfile's own names neither the zip nor what to do."""
    if isinstance(error, zipfile.BadZipFile) and str(error).startswith("Bad CRC-32"):
        return InputError(where, None, "bytes that match the CRC-32 checksum the zip records for them",
                          "other bytes (the zip was damaged in transfer or on disk: zip the images again)",
                          plain_expected="a picture whose bytes match the checksum the zip records for them")
    if isinstance(error, zlib.error):
        return InputError(where, None, "a complete deflate stream",
                          f"a corrupt one ({str(error).split(': ', 1)[-1]}): zip the images again",
                          plain_expected=PLAIN_MEMBER)
    if isinstance(error, EOFError):
        return InputError(where, None, "a complete deflate stream", "one cut short: zip the images again",
                          plain_expected=PLAIN_MEMBER)
    return InputError(where, None, "a readable zip member", f"a damaged one ({error}): zip the images again",
                      plain_expected=PLAIN_MEMBER)


def _unreadable(member: zipfile.ZipInfo, where: str) -> InputError | None:
    """Why zipfile could not read ``member`` (encrypted, or compressed otherwise than :data:`_ZIP_METHODS`), from
    the zip's directory; None when it can try."""
    if member.flag_bits & 0x1:
        return InputError(where, None, "a member without a password (zip the images again without encryption)",
                          "an encrypted one",
                          plain_expected="a picture without a password (zip the images again without encryption)")
    if member.compress_type not in _ZIP_METHODS:
        method = member.compress_type
        return InputError(where, None, "a member stored or compressed with deflate (what zip tools write by default)",
                          f"compression method {method} ({zipfile.compressor_names.get(method, 'unknown')})",
                          plain_expected="a picture compressed as zip tools do by default (zip the images again)")
    return None


class ImageFiles(Mapping[str, bytes]):
    """Image files by ID, read-only: members of zips (:func:`read_image_zip`), each zip kept as uploaded and a
    member inflated when its image is read, or bytes given as they are (:meth:`Workspace.with_inputs`).

    >>> images = ImageFiles({"a": b"PNG bytes"})
    >>> sorted(images), images["a"], "b" in images, images.held_bytes
    (['a'], b'PNG bytes', False, 9)
    """

    def __init__(self, files: Mapping[str, bytes | tuple[_Zip, zipfile.ZipInfo]] | None = None) -> None:
        self._files = dict(files or {})
        zips = {id(file[0]): file[0] for file in self._files.values() if isinstance(file, tuple)}
        #: The bytes these images hold: each zip they are read from counted once (all of it, however few of its
        #: images are kept), and the bytes given as they are.
        self.held_bytes = (sum(archive.held for archive in zips.values())
                           + sum(len(file) for file in self._files.values() if not isinstance(file, tuple)))
        self._digest: str | None = None

    @classmethod
    def of(cls, images: Mapping[str, bytes]) -> ImageFiles:
        """``images`` as image files: itself if it is already, else its bytes as they are."""
        return images if isinstance(images, ImageFiles) else cls(images)

    def __getitem__(self, image_id: str) -> bytes:
        file = self._files[image_id]
        if isinstance(file, tuple):
            archive, member = file
            return archive.read(member)
        return file

    def __contains__(self, image_id: object) -> bool:  # Mapping's own would read the image to find it
        return image_id in self._files

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)

    def __repr__(self) -> str:  # a workspace's repr would otherwise show every image's bytes
        return f"ImageFiles({len(self):,} images, {self.held_bytes:,} bytes held)"

    def merged(self, other: ImageFiles) -> ImageFiles:
        """These images and ``other``'s, an ID in both taking ``other``'s file."""
        return ImageFiles({**self._files, **other._files})

    def only(self, ids: Collection[str]) -> ImageFiles:
        """The images of ``ids``; a zip none of whose images is kept is no longer held."""
        return ImageFiles({image_id: file for image_id, file in self._files.items() if image_id in ids})

    @property
    def digest(self) -> str:
        """Content digest: a zip's member by the digest of the zip's bytes and its name, other files by their bytes."""
        if self._digest is None:
            self._digest = content_digest({image_id: (file[0].digest, file[1].filename) if isinstance(file, tuple)
                                           else file for image_id, file in self._files.items()})
        return self._digest


def read_image_zip(data: bytes, name: str, adding_to: ImageFiles | None = None) -> ImageFiles:
    """Images from a zip, refusing path traversal, oversized members, zip bombs and members that cannot be read
    (encrypted, compressed otherwise than stored or deflate, a corrupt stream, a wrong CRC-32), each with a message
    naming the zip and the member.

    The zip is kept as it is and a member inflated when its image is read (:class:`ImageFiles`), so the images
    hold the zip's bytes and index, not what it expands to: that is counted against :data:`MAX_SESSION_IMAGE_BYTES`
    with ``adding_to`` (the images of the workspace they are added to) and against :data:`MAX_SERVER_IMAGE_BYTES`
    with every zip alive in this process. Every member is read once here, one at a time, so that a damaged one is
    refused on loading rather than when it is shown.
    """
    return _zip_images(data, name, adding_to)[0]


def _zip_images(data: bytes, name: str, adding_to: ImageFiles | None = None) -> tuple[ImageFiles, list[str]]:
    """:func:`read_image_zip`'s images, and the names of its image files that are no PNG or JPEG (found as every
    member is read): they are kept, shown as unreadable, and :func:`with_images` reports them."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise InputError(name, None, ZIP_EXPECTED, plain_expected=PLAIN_ZIP) from None
    except NotImplementedError as error:  # a zip64 directory of a version zipfile does not read
        raise InputError(name, None, ZIP_EXPECTED, f"one of {error}", plain_expected=PLAIN_ZIP) from None
    except UnicodeDecodeError:
        raise InputError(name, None, ZIP_EXPECTED, "a member name that is not the UTF-8 the zip says it is (a damaged "
                         "zip?)", plain_expected=PLAIN_ZIP) from None
    members = archive.infolist()
    if len(members) > MAX_ZIP_MEMBERS:
        raise CBIRLensError(f"{name}: at most {MAX_ZIP_MEMBERS:,} files per archive, found {len(members):,}")
    if sum(m.file_size for m in members) > MAX_ZIP_TOTAL:
        raise CBIRLensError(f"{name}: expands to more than {MAX_ZIP_TOTAL >> 30} GiB (zip bomb?)")
    found: dict[str, zipfile.ZipInfo] = {}
    for member in members:
        path = member.filename
        if path.startswith(("/", "\\")) or ".." in Path(path).parts or ":" in path:
            raise CBIRLensError(f"{name}: unsafe path {path[:80]!r} in archive")
        suffix = Path(path).suffix.lower()
        if suffix not in IMAGE_SUFFIXES or member.is_dir():  # is_dir fails on an empty name, which has no suffix
            continue
        if member.file_size > MAX_IMAGE_BYTES or (member.compress_size and member.file_size / member.compress_size > 200):
            raise CBIRLensError(f"{name}: {path[:80]} is too large or too compressed (zip bomb?)")
        unreadable = _unreadable(member, f"{name}: {shown_path(path)}")
        if unreadable is not None:
            raise unreadable
        found[Path(path).stem] = member
    if not found:  # (as an empty concepts, run or names file is refused: loaded, it would add nothing, silently)
        raise InputError(name, None, ZIP_EXPECTED, f"no .png or .jpg file among its {len(members):,} files",
                         plain_expected=PLAIN_ZIP)
    held = _Zip(name, data, archive)
    images = ImageFiles({image_id: (held, member) for image_id, member in found.items()})
    if adding_to is not None:
        total = adding_to.merged(images).held_bytes
        if total > MAX_SESSION_IMAGE_BYTES:
            raise CBIRLensError(
                f"{name}: holding its images takes {_mib(held.held)} (the zip as uploaded); this session's images "
                f"would then take {_mib(total)}, more than the {_mib(MAX_SESSION_IMAGE_BYTES)} a session may hold "
                f"({_mib(adding_to.held_bytes)} already in use); load a smaller zip, reload the demo to drop the "
                "images loaded, or load a large collection from a folder on the server (ROCOv2 folder)")
    held.reserve()
    try:
        unreadable = [member.filename for member in found.values()
                      if not check_image_pixels(held.read(member), f"{name}: {shown_path(member.filename)}")]
    except CBIRLensError:
        held.release()
        raise
    return images, unreadable


@contextlib.contextmanager
def _opened_image(data: bytes) -> Iterator[Image.Image]:
    """The PNG or JPEG in ``data``, opened lazily (header only). Pillow's warning for images between its two
    bomb limits is silenced: our own, lower limit (:data:`MAX_IMAGE_PIXELS`) refuses them with a message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        image = Image.open(io.BytesIO(data), formats=IMAGE_FORMATS)
    with image:
        yield image


def check_image_pixels(data: bytes, name: str) -> bool:
    """Refuse an image of more than :data:`MAX_IMAGE_PIXELS` pixels, read from its header (nothing is decoded),
    with a message naming ``name`` and the image's size; anything that is no PNG or JPEG passes (it is not shown),
    and the answer says which it was: True for a PNG or JPEG header.

    >>> check_image_pixels(b"not an image", "B.png")
    False
    """
    try:
        with _opened_image(data) as image:
            width, height = image.size
    except Image.DecompressionBombError:  # beyond Pillow's own limit, which stops before saying how far
        raise CBIRLensError(f"{name}: more than {2 * Image.MAX_IMAGE_PIXELS / 1e6:,.0f} M pixels in a "
                            f"{len(data) / 1024:,.0f} KB file (a decompression bomb?); an image may have at most "
                            f"{MAX_IMAGE_PIXELS / 1e6:,.0f} M pixels") from None
    except (OSError, ValueError, SyntaxError):
        return False
    if width * height > MAX_IMAGE_PIXELS:
        raise CBIRLensError(f"{name}: {width:,} x {height:,} pixels ({width * height / 1e6:,.0f} M) in a "
                            f"{len(data) / 1024:,.0f} KB file; an image may have at most "
                            f"{MAX_IMAGE_PIXELS / 1e6:,.0f} M pixels")
    return True


def thumbnail(data: bytes, size: tuple[int, int] = THUMBNAIL) -> Image.Image | None:
    """An image shrunk to fit ``size``, decoded reduced; None when it is no readable PNG or JPEG or has more than
    :data:`MAX_IMAGE_PIXELS` pixels (:func:`check_image_pixels` says so).

    The pixel count is read from the header before anything is decoded; a JPEG is then decoded at the smallest
    scale that still covers ``size`` (1/2 to 1/8, ``Image.draft``), a PNG reduced by whole factors (``reduce``)
    before the last resampling.
    """
    try:
        with _opened_image(data) as image:
            if image.width * image.height > MAX_IMAGE_PIXELS:
                return None
            image.draft("RGB", size)
            image.thumbnail(size)
            return image.convert("RGB")
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError):
        return None


def image_of(workspace: Workspace, image_id: str, size: tuple[int, int] = THUMBNAIL) -> tuple[Image.Image | None, str]:
    """An image's thumbnail, or None and why: "" when it has no file, else what is wrong with the file."""
    try:
        found = workspace.image_file(image_id)
        if found is None:
            return None, ""
        file_name, data = found
        check_image_pixels(data, shown_path(file_name))
    except CBIRLensError as error:
        return None, str(error)
    image = thumbnail(data, size)
    return image, "" if image is not None else f"{shown_path(file_name)}: not a readable PNG or JPEG image"

