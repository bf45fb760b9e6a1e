"""Shared state and cached computations of the dashboard. Pages read from here and draw.

The loaded inputs live in ``st.session_state["workspace"]`` (a :class:`Workspace`);
every input carries a content digest, so cached results are keyed by content.
"""

from __future__ import annotations

import contextlib
import io
import os
import warnings
import zipfile
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st
from PIL import Image

from evalcore.array_backend import gpu_available
from evalcore.cache_keys import cache_key, content_digest
from evalcore.compare import PairComparison, compare_systems
from evalcore.data import ConceptClassMap, ConceptSets, Embeddings, ImageLabels, KGEdges, Run
from evalcore.errors import CBIRLensError, InputError
from evalcore.evaluation import AlignedRun, Evaluator, unknown_ids
from evalcore.explain import Explanation, explain_pair
from evalcore.kg import KnowledgeGraph
from evalcore.loading import check_under_roots, data_roots, is_under_roots, load_rocov2_folder, shown_path
from evalcore.measures import (
    DEFAULT_MEASURE,
    MEASURES,
    MeasureSpec,
    default_measures,
    measure_spec,
    nn_iou_measure,
    parse_measure,
)
from evalcore.metrics import default_metric_names, metric_names_for_measure, parse_metric
from evalcore.options import Compute, Relevance, Scoring
from evalcore.readers import (
    read_concept_names,
    read_concepts,
    read_input_bytes,
    read_kg,
    read_labels,
    read_runs,
)
from evalcore.results import evaluate_runs

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo"
ROCOV2_LABELS = ROOT / "data" / "labels" / "rocov2_labels.csv"
MAX_ZIP_MEMBERS = 200_000
MAX_IMAGE_BYTES = 20 << 20
MAX_ZIP_TOTAL = 2 << 30
# An image is decoded only if it has at most this many pixels (README, the dashboard's images): a PNG is decoded whole
# before it is reduced, up to 4 bytes a pixel, so 40 M pixels cost at most about 160 MB for the moment of one
# thumbnail. A medical figure has far fewer; a small file of huge dimensions (a decompression bomb) is refused from
# its header.
MAX_IMAGE_PIXELS = 40_000_000
IMAGE_FORMATS = ("PNG", "JPEG")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
THUMBNAIL = (256, 256)


def digest(*parts: bytes | str | None) -> str:
    """Content digest of the bytes (or text) of one input, e.g. an uploaded file and its ID list."""
    return content_digest(parts)


# Which loaded inputs each cached result reads; its key digests exactly these, plus its parameters.
INPUTS_READ_BY = {
    "kg": ("kg", "names"),
    "evaluator": ("concepts", "kg", "names", "labels"),
    "baseline": ("concepts", "kg", "names", "captions", "embeddings"),
    "evaluation": ("concepts", "kg", "names", "labels", "captions", "embeddings", "runs"),
    "ablation": ("concepts", "kg", "names", "labels", "runs"),
    "table1": ("concepts", "kg", "names", "labels", "captions"),
    "explanation": ("kg", "names"),
    "kg_search": ("kg", "concepts", "names"),
    "kg_default_pair": ("kg", "concepts"),
    "measures": ("concepts", "kg", "names", "labels", "captions", "embeddings", "runs"),
    "sweep": ("concepts", "kg", "names", "labels", "runs"),
}


KEPT_DIGESTS = ("names", "captions")


@dataclass
class Workspace:
    """Everything loaded, each with its content digest; replaced (never mutated) on load."""

    label: str = "nothing loaded"
    synthetic: bool = False
    concepts: ConceptSets | None = None
    concepts_digest: str = ""
    names: dict[str, str] = field(default_factory=dict)
    kg_files: dict[str, tuple[str, KGEdges]] = field(default_factory=dict)
    runs: dict[str, tuple[str, Run]] = field(default_factory=dict)
    labels: ImageLabels | ConceptClassMap | None = None
    labels_digest: str = ""
    captions: dict[str, str] = field(default_factory=dict)
    embeddings: Embeddings | None = None
    embeddings_digest: str = ""
    images: dict[str, bytes] = field(default_factory=dict)
    image_folder: Path | None = None
    image_roots: tuple[Path, ...] = ()  # the data roots the image folder was loaded under; every file read is checked
    reports: list[dict] = field(default_factory=list)

    def input_digest(self, name: str) -> str:
        """Digest of one loaded input's content (file bytes where kept, else a canonical serialisation).

        The serialised ones (names, captions: 65,000 names on ROCOv2, about a second each) are kept for the
        dict object they were computed from, as long as it is the same object of the same size: a rerun asks
        for them dozens of times (every cached call and every card), and loading replaces the dicts.
        """
        if name in KEPT_DIGESTS:
            value = getattr(self, name)
            kept = self.__dict__.get("_kept_digests", {}).get(name)
            if kept is not None and kept[0] is value and kept[1] == len(value):
                return kept[2]
        digests = {
            "concepts": lambda: self.concepts_digest,
            "kg": lambda: content_digest(sorted((name, d) for name, (d, _) in self.kg_files.items())),
            "names": lambda: content_digest(self.names),
            "labels": lambda: self.labels_digest,
            "captions": lambda: content_digest(self.captions),
            "embeddings": lambda: self.embeddings_digest,
            "runs": lambda: content_digest(sorted((name, d) for name, (d, _) in self.runs.items())),
        }
        result = digests[name]()
        if name in KEPT_DIGESTS:
            self.__dict__.setdefault("_kept_digests", {})[name] = (value, len(value), result)
        return result

    def cache_key(self, purpose: str, **parameters) -> str:
        """The key of a cached result: the content of every input ``purpose`` reads, and its parameters."""
        return cache_key(purpose, {name: self.input_digest(name) for name in INPUTS_READ_BY[purpose]}, **parameters)

    def evaluation_key(self) -> str:
        """Key of everything an evaluation reads; pages pass it to :func:`cached_evaluation`."""
        return self.cache_key("evaluation")

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


def report(workspace: Workspace, file: str, kind: str, rows: int | str, problems: str = "") -> None:
    workspace.reports.append({"file": file, "kind": kind, "rows read": str(rows), "problems": problems or "none"})


def load_demo() -> Workspace:
    workspace = Workspace(label="Demo (SYNTHETIC data)", synthetic=True)
    workspace = with_concepts(workspace, (DEMO / "concepts.csv").read_bytes(), "demo/concepts.csv")
    workspace.names = read_concept_names(DEMO / "concept_names.csv")
    workspace = with_kg(workspace, (DEMO / "kg_edges.csv").read_bytes(), "demo/kg_edges.csv")
    for path in sorted((DEMO / "runs").glob("*.trec")):
        workspace = with_run(workspace, path.read_bytes(), f"demo/runs/{path.name}")
    workspace = with_labels(workspace, (DEMO / "labels.csv").read_bytes(), "demo/labels.csv")
    from evalcore.readers import read_captions, read_embeddings

    workspace.captions = read_captions(DEMO / "captions.csv")
    workspace.embeddings = read_embeddings(DEMO / "image_embeddings.npy", ids_source=DEMO / "image_embeddings_ids.txt")
    workspace.embeddings_digest = digest((DEMO / "image_embeddings.npy").read_bytes(),
                                         (DEMO / "image_embeddings_ids.txt").read_bytes())
    workspace.images = read_image_zip((DEMO / "images.zip").read_bytes(), "demo/images.zip")
    workspace.reports = []
    report(workspace, "data/demo/*", "demo (synthetic)", len(workspace.concepts))
    return workspace


def with_concepts(workspace: Workspace, data: bytes, name: str) -> Workspace:
    concepts = read_concepts(data, name)
    new = replace(workspace, concepts=concepts, concepts_digest=digest(data), reports=list(workspace.reports))
    report(new, name, "concept sets", len(concepts))
    return new


def with_kg(workspace: Workspace, data: bytes, name: str) -> Workspace:
    edges = read_kg(data, name)
    new = replace(workspace, kg_files={**workspace.kg_files, name: (digest(data), edges)},
                  reports=list(workspace.reports))
    report(new, name, "knowledge graph", f"{len(edges):,} edges")
    return new


def with_run(workspace: Workspace, data: bytes, name: str,
             progress: Callable[[float, str], None] | None = None) -> Workspace:
    """Add the systems of one run file (one per TREC tag); a run with no known query is refused.

    ``progress(fraction, message)`` follows the reading (a depth-1000 run has 10 million lines).
    """
    runs = read_runs(data, name, None if progress is None else lambda f, message: progress(0.9 * f, message))
    if progress is not None:
        progress(0.9, f"Fingerprinting {name}")
    content = digest(data)
    new = replace(workspace, runs={**workspace.runs, **{run.name: (content, run) for run in runs}},
                  reports=list(workspace.reports))
    for run in runs:
        problems = ""
        if workspace.concepts is not None:
            unknown_queries, unknown_docs = unknown_ids(run, workspace.concepts)
            if unknown_queries == len(run.rankings):
                first = next(iter(run.rankings))
                raise InputError(name, None, f"query IDs that have a concept set in {workspace.concepts.source}",
                                 f"none of the {len(run.rankings):,} queries of system '{run.name}' does (first: {first!r})")
            if unknown_queries or unknown_docs:
                problems = (f"{unknown_queries} queries and {unknown_docs} retrieved IDs have no concept set "
                            "(scored as relevance 0)")
        report(new, name, f"run '{run.name}'", f"{len(run.rankings):,} queries", problems)
    if progress is not None:
        progress(1.0, f"Loaded {name}")
    return new


def with_labels(workspace: Workspace, data: bytes, name: str) -> Workspace:
    labels = read_labels(data, name)
    new = replace(workspace, labels=labels, labels_digest=digest(data), reports=list(workspace.reports))
    report(new, name, "labels", sum(len(v) for v in labels.by_kind.values()))
    return new


def read_image_zip(data: bytes, name: str) -> dict[str, bytes]:
    """Images from a zip, refusing path traversal, oversized members and zip bombs."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise CBIRLensError(f"{name}: expected a zip archive of <ID>.png/.jpg images") from None
    members = archive.infolist()
    if len(members) > MAX_ZIP_MEMBERS:
        raise CBIRLensError(f"{name}: at most {MAX_ZIP_MEMBERS:,} files per archive, found {len(members):,}")
    if sum(m.file_size for m in members) > MAX_ZIP_TOTAL:
        raise CBIRLensError(f"{name}: expands to more than {MAX_ZIP_TOTAL >> 30} GiB (zip bomb?)")
    images = {}
    for member in members:
        path = member.filename
        if path.startswith(("/", "\\")) or ".." in Path(path).parts or ":" in path:
            raise CBIRLensError(f"{name}: unsafe path {path[:80]!r} in archive")
        suffix = Path(path).suffix.lower()
        if member.is_dir() or suffix not in IMAGE_SUFFIXES:
            continue
        if member.file_size > MAX_IMAGE_BYTES or (member.compress_size and member.file_size / member.compress_size > 200):
            raise CBIRLensError(f"{name}: {path[:80]} is too large or too compressed (zip bomb?)")
        data = archive.read(member)
        check_image_pixels(data, f"{name}: {shown_path(path)}")
        images[Path(path).stem] = data
    return images


@contextlib.contextmanager
def _opened_image(data: bytes) -> Iterator[Image.Image]:
    """The PNG or JPEG in ``data``, opened lazily (header only). Pillow's warning for images between its two
    bomb limits is silenced: our own, lower limit (:data:`MAX_IMAGE_PIXELS`) refuses them with a message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        image = Image.open(io.BytesIO(data), formats=IMAGE_FORMATS)
    with image:
        yield image


def check_image_pixels(data: bytes, name: str) -> None:
    """Refuse an image of more than :data:`MAX_IMAGE_PIXELS` pixels, read from its header (nothing is decoded),
    with a message naming ``name`` and the image's size; anything that is no PNG or JPEG passes (it is not shown).
    """
    try:
        with _opened_image(data) as image:
            width, height = image.size
    except Image.DecompressionBombError:  # beyond Pillow's own limit, which stops before saying how far
        raise CBIRLensError(f"{name}: more than {2 * Image.MAX_IMAGE_PIXELS / 1e6:,.0f} M pixels in a "
                            f"{len(data) / 1024:,.0f} KB file (a decompression bomb?); an image may have at most "
                            f"{MAX_IMAGE_PIXELS / 1e6:,.0f} M pixels") from None
    except (OSError, ValueError, SyntaxError):
        return
    if width * height > MAX_IMAGE_PIXELS:
        raise CBIRLensError(f"{name}: {width:,} x {height:,} pixels ({width * height / 1e6:,.0f} M) in a "
                            f"{len(data) / 1024:,.0f} KB file; an image may have at most "
                            f"{MAX_IMAGE_PIXELS / 1e6:,.0f} M pixels")


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


def image_of(ws: Workspace, image_id: str, size: tuple[int, int] = THUMBNAIL) -> tuple[Image.Image | None, str]:
    """An image's thumbnail, or None and why: "" when it has no file, else what is wrong with the file."""
    try:
        found = ws.image_file(image_id)
        if found is None:
            return None, ""
        file_name, data = found
        check_image_pixels(data, shown_path(file_name))
    except CBIRLensError as error:
        return None, str(error)
    image = thumbnail(data, size)
    return image, "" if image is not None else f"{shown_path(file_name)}: not a readable PNG or JPEG image"


def workspace() -> Workspace:
    if "workspace" not in st.session_state:
        st.session_state["workspace"] = load_demo()
    return st.session_state["workspace"]


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


def load_rocov2(folder: str, with_labels_mapping: bool = True) -> Workspace:
    roots = server_data_roots()
    loaded = load_rocov2_folder(folder, ("test",), roots)
    concepts = loaded.concepts["test"]
    new = Workspace(label=f"ROCOv2 test ({folder})", concepts=concepts, concepts_digest=content_digest(concepts),
                    names=loaded.names, captions=loaded.captions.get("test", {}), image_folder=loaded.images,
                    image_roots=roots)
    report(new, str(Path(folder) / "test_concepts.csv"), "concept sets", len(concepts))
    kg_path = Path(folder).parent / "kg" / "open_kg_edges.csv"
    if kg_path.exists() and is_under_roots(kg_path, roots):
        new = with_kg(new, read_input_bytes(check_under_roots(kg_path, roots), str(kg_path))[0], str(kg_path))
        names_path = kg_path.parent / "open_kg_names.csv"
        if names_path.exists():
            new.names = {**read_concept_names(check_under_roots(names_path, roots), str(names_path)), **new.names}
    if with_labels_mapping:
        new = with_labels(new, ROCOV2_LABELS.read_bytes(), "data/labels/rocov2_labels.csv")
    return new


# --- shared controls -----------------------------------------------------------------------

def controls() -> dict:
    return {
        "alpha": float(st.session_state.get("alpha", 0.5)),
        "n": int(st.session_state.get("n", 1)),
        "kg_mode": st.session_state.get("kg_mode", "undirected"),
        "ks": tuple(sorted(st.session_state.get("ks", [5, 10, 30]))) or (10,),
        "gain": st.session_state.get("gain", "linear"),
        "measure": current_measure().name,
    }


def current_measure() -> MeasureSpec:
    """The sidebar's relevance measure: its own parameters, alpha and n from the shared sliders.

    nn-IoU-hops takes one weight per hop up to n; weights are made non-increasing (each at
    most the one before), as the measure requires.
    """
    key = st.session_state.get("measure", DEFAULT_MEASURE)
    measure = MEASURES.get(key, MEASURES[DEFAULT_MEASURE])
    alpha, hops = float(st.session_state.get("alpha", 0.5)), int(st.session_state.get("n", 1))
    if measure.weights:
        weights, previous = {}, 1.0
        for hop in range(1, max(1, hops) + 1):
            previous = min(previous, float(st.session_state.get(f"measure_w{hop}", 0.5 ** hop))) if hops else 0.0
            weights[f"w{hop}"] = previous
        return measure_spec(measure.key, **weights)
    values = {"alpha": alpha, "n": hops}
    for parameter in measure.parameters:
        if parameter.name not in values:
            values[parameter.name] = float(st.session_state.get(f"measure_{measure.key}_{parameter.name}",
                                                                parameter.default))
    return measure_spec(measure.key, **{p.name: values[p.name] for p in measure.parameters})


def measure_controls() -> None:
    """Sidebar: the relevance measure and its own parameters (alpha and n are the shared sliders above)."""
    key = st.selectbox("relevance measure", list(MEASURES), index=list(MEASURES).index(DEFAULT_MEASURE), key="measure",
                       format_func=lambda k: MEASURES[k].title,
                       help="How two images' concept sets are compared. IoU and nn-IoU are the paper's; the others are "
                            "explained on the 'Choose a measure' page.")
    measure = MEASURES[key]
    if measure.weights:
        for hop in range(1, max(1, int(st.session_state.get("n", 1))) + 1):
            st.slider(f"w{hop}: credit of a near match {hop} hop{'s' if hop > 1 else ''} away", 0.0, 1.0,
                      0.5 ** hop, 0.05, key=f"measure_w{hop}", disabled=int(st.session_state.get("n", 1)) == 0)
    for parameter in measure.parameters:
        if parameter.name not in ("alpha", "n"):
            st.slider(f"{parameter.name}: {parameter.help}", float(parameter.low), float(parameter.high),
                      float(parameter.default), 0.05, key=f"measure_{key}_{parameter.name}")
    st.caption(f"Relevance: `{current_measure().name}`")


# --- cached computations -------------------------------------------------------------------

@st.cache_resource(show_spinner="Building the knowledge graph index…", max_entries=4)
def cached_kg(key: str, _edge_files: tuple[KGEdges, ...], _names: dict) -> KnowledgeGraph:
    kg = KnowledgeGraph.from_edges(_edge_files)
    return KnowledgeGraph(kg.nodes, kg.parents, {**kg.names, **_names}, kg.sources)


def kg_of(ws: Workspace) -> KnowledgeGraph | None:
    if not ws.kg_files:
        return None
    return cached_kg(ws.cache_key("kg"), tuple(e for _, e in ws.kg_files.values()), ws.names)


SCHEDULER_VARIABLE = "CBIR_LENS_SCHEDULER"


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
def compute_backend() -> tuple[str, str]:
    """JAX on the GPU when JAX is installed and sees one, else the numpy engine: the numbers are the same."""
    return ("jax", "gpu") if gpu_available() else ("numpy", "cpu")


@st.cache_resource(show_spinner="Preparing the pairwise engine…", max_entries=4)
def cached_evaluator(key: str, mode: str, _ws: Workspace) -> Evaluator:
    backend, device = compute_backend()
    return Evaluator(_ws.concepts, kg_of(_ws), mode, _ws.resolved_labels(),
                     compute=Compute(client=server_scheduler(), backend=backend, device=device))


def evaluator_of(ws: Workspace, mode: str) -> Evaluator:
    evaluator = cached_evaluator(ws.cache_key("evaluator", mode=mode), mode, ws)
    st.session_state["_engine_in_use"] = evaluator.engine  # for the sidebar's note, drawn after the page
    return evaluator


def engine_note() -> str | None:
    """Which backend the pairwise engine uses and which one ran its last ranking pass; None before it is built."""
    engine = st.session_state.get("_engine_in_use")
    if engine is None:
        return None
    backend, device = compute_backend()
    ran = engine.last_pass.text() if engine.last_pass is not None else "none yet"
    return f"Pairwise engine: {backend} on {device}; last ranking pass: {ran}"


def metric_names_for(evaluator: Evaluator, ks: tuple[int, ...], measure: str | None = None) -> list[str]:
    """The standard report; with a measure (canonical text) other than nn-IoU, its metrics replace nn-IoU's."""
    if measure is None:
        return default_metric_names(ks, evaluator.label_targets())
    return metric_names_for_measure(ks, evaluator.label_targets(), parse_measure(measure).key)


@st.cache_data(show_spinner=False, max_entries=32)
def cached_evaluation(key: str, _ws: Workspace, run_names: tuple[str, ...], extra_runs: tuple[str, ...],
                      alpha: float, n: int, mode: str, gain: str, ks: tuple[int, ...], measure: str | None = None) -> dict:
    """Means with 95% bootstrap CIs and the per-query values (system -> queries x metrics), for the given runs.

    ``measure`` (canonical text, e.g. from the sidebar) adds its metrics in place of nn-IoU's.
    """
    evaluator = evaluator_of(_ws, mode)
    names = metric_names_for(evaluator, ks, measure)
    runs: list[Run | AlignedRun] = [_ws.runs[name][1] for name in run_names]
    for name in extra_runs:
        if name in RELEVANCE_BASELINES:
            # Ranked and scored in one pass over the pool, without a detour through image IDs.
            by = nn_iou_measure(alpha, n) if name == "Retrieval by nn-IoU" else measure_spec("iou")
            runs.append(evaluator.relevance_ranking(by, BASELINE_DEPTH, max(ks), name=name))
        else:
            runs.append(baseline_run(_ws, name, alpha, n, mode))
    results = evaluate_runs(evaluator, runs, Scoring(names), Relevance.of(alpha, n, measure, gain=gain))
    return {"summary": results.table().rename(columns={"ci_low": "low", "ci_high": "high"}),
            "query_ids": {system: results.query_ids(system) for system in results.systems},
            "values": {system: results.values(system) for system in results.systems},
            "counts": results.counts, "metrics": names}


COMPARISON_SAMPLES = 2000


@st.cache_data(max_entries=16, show_spinner=False)
def _cached_comparisons(key: str, _per_query: dict[str, dict[str, float]]) -> list[PairComparison]:
    return compare_systems(_per_query, samples=COMPARISON_SAMPLES)


def system_comparisons(result: dict, metric: str) -> list[PairComparison]:
    """Paired randomization and t-tests between every two systems of a :func:`cached_evaluation` result on one
    metric, Holm-corrected over the pairs; cached under the content of the per-query values they read, so that
    any setting that changes a value (alpha, n, the measure and its parameters, ...) changes the key."""
    column = result["metrics"].index(metric)
    columns = [(system, result["query_ids"][system], values[:, column]) for system, values in result["values"].items()]
    key = cache_key("comparisons", {"per_query": columns}, samples=COMPARISON_SAMPLES)
    return _cached_comparisons(key, {system: dict(zip(ids, values)) for system, ids, values in columns})


def per_query_values(result: dict, metric: str) -> pd.DataFrame:
    """One metric of a :func:`cached_evaluation` result as a queries x systems table."""
    column = result["metrics"].index(metric)
    return pd.DataFrame({system: pd.Series(values[:, column], index=result["query_ids"][system])
                         for system, values in result["values"].items()})


def per_query_long(result: dict) -> pd.DataFrame:
    """Every per-query value of a :func:`cached_evaluation` result, one row per (system, query, metric)."""
    frames = [pd.DataFrame({"system": system, "query_id": np.repeat(result["query_ids"][system], len(result["metrics"])),
                            "metric": np.tile(result["metrics"], len(result["query_ids"][system])),
                            "value": values.ravel()})
              for system, values in result["values"].items()]
    return pd.concat(frames, ignore_index=True)


RELEVANCE_BASELINES = ("Retrieval by IoU", "Retrieval by nn-IoU")
BASELINES = RELEVANCE_BASELINES + ("Retrieval by embeddings", "Retrieval by captions (TF-IDF)")
BASELINE_DEPTH = 100


def baseline_settings(name: str, alpha: float, n: int, mode: str) -> tuple[float, int, str]:
    """The (alpha, n, mode) a baseline's ranking depends on: IoU ignores alpha and n, embeddings and captions all three
    so that moving a slider never recomputes a ranking it cannot change."""
    if name == "Retrieval by nn-IoU":
        effective = nn_iou_measure(alpha, n).effective(has_kg=True)
        return effective.params.get("alpha", 0.0), effective.hops, mode
    if name == "Retrieval by IoU":
        return 0.0, 0, mode
    return 0.0, 0, "undirected"


def baseline_run(ws: Workspace, name: str, alpha: float, n: int, mode: str) -> Run:
    alpha, n, mode = baseline_settings(name, alpha, n, mode)
    key = ws.cache_key("baseline", name=name, alpha=alpha, n=n, mode=mode)
    return cached_baseline(key, name, alpha, n, mode, _ws=ws)


@st.cache_resource(show_spinner="Ranking the pool for the Table-1 baselines…", max_entries=16)
def cached_baseline(key: str, name: str, alpha: float, n: int, mode: str, _ws: Workspace) -> Run:
    from evalcore.retrieval import retrieve_by_captions, retrieve_by_embeddings, retrieve_by_relevance

    depth = BASELINE_DEPTH
    if name == "Retrieval by IoU":
        return retrieve_by_relevance(evaluator_of(_ws, mode).engine, 0.0, 0, depth, name)
    if name == "Retrieval by nn-IoU":
        return retrieve_by_relevance(evaluator_of(_ws, mode).engine, alpha, n, depth, name)
    if name == "Retrieval by embeddings":
        if _ws.embeddings is None:
            raise CBIRLensError("no embeddings loaded: upload them on the Data page")
        return retrieve_by_embeddings(_ws.embeddings, _ws.concepts, depth, name)
    if not _ws.captions:
        raise CBIRLensError("no captions loaded: upload them on the Data page")
    return retrieve_by_captions(_ws.captions, _ws.concepts, depth, None, name)


def available_baselines(ws: Workspace) -> list[str]:
    options = ["Retrieval by IoU"]
    if ws.kg_files:
        options.append("Retrieval by nn-IoU")
    if ws.embeddings is not None:
        options.append("Retrieval by embeddings")
    if ws.captions:
        options.append("Retrieval by captions (TF-IDF)")
    return options


def describe_metric(name: str) -> str:
    try:
        return parse_metric(name).describe()
    except CBIRLensError:
        return name


def concept_label(ws: Workspace, cui: str, kg: KnowledgeGraph | None = None) -> str:
    """"Name (CUI)" for researchers, the name alone for clinicians; the ID where no name is known."""
    name = ws.names.get(cui) or (kg.names.get(cui) if kg else None)
    if name and audience() == "clinician":
        return name
    return f"{name} ({cui})" if name else cui


def page_with_concepts(title: str) -> Workspace:
    """A page's title, the session's workspace and its demo banner; the page stops here, pointing to the Data
    page, while no concept sets are loaded."""
    st.title(title)
    ws = workspace()
    synthetic_banner(ws)
    if not require_concepts(ws):
        st.stop()
    return ws


def require_concepts(ws: Workspace) -> bool:
    if ws.concepts is None:
        st.info("Load concept sets on the Data page first.")
        return False
    return True


def synthetic_banner(ws: Workspace) -> None:
    if ws.synthetic:
        st.caption("⚠️ Showing the embedded demo: **synthetic data**, modelled on ROCOv2, not real patients.")


def as_array(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


MARKDOWN_SPECIAL = set("\\`*_{}[]()#+-.!|<>~:$&")


def escape_markdown(text: str) -> str:
    """Backslash-escape every markdown/HTML-significant character so user text shows literally."""
    return "".join("\\" + ch if ch in MARKDOWN_SPECIAL else ch for ch in str(text)).replace("\n", " ")


def chip(text: str, colour: str) -> str:
    """A coloured, escaped markdown chip (Streamlit colour directive; never raw HTML)."""
    return f":{colour}-background[{escape_markdown(text)}]"


# --- views: who is reading, honest progress, explanations ------------------------------------

AUDIENCES = {"Clinician": "clinician", "Researcher": "researcher"}


def audience() -> str:
    """"clinician" (names only, plain words) or "researcher" (everything), from the sidebar switch."""
    return AUDIENCES.get(st.session_state.get("audience", "Researcher"), "researcher")


class StepProgress:
    """A progress bar over a known number of steps, moved by the work itself: a step advances it when done,
    and a step that reports its own fraction (a pass over the pool, block by block) moves it within."""

    def __init__(self, steps: int):
        self.steps = max(1, steps)
        self.finished = 0
        self.text = ""
        self.bar = st.empty()

    def _draw(self, fraction: float) -> None:
        self.bar.progress(min(1.0, (self.finished + min(1.0, max(0.0, fraction))) / self.steps), text=self.text)

    def run(self, text: str, work: Callable[[Callable[[float], None]], object]):
        """Show ``text``, run ``work(report)`` (``report(fraction)`` may be called with 0..1), count the step."""
        self.text = f"{text} (step {self.finished + 1} of {self.steps})"
        self._draw(0.0)
        result = work(self._draw)
        self.finished += 1
        return result

    def __enter__(self) -> StepProgress:
        return self

    def __exit__(self, *exc) -> None:
        self.bar.empty()


class PoolRanking(Mapping):
    """A ranking of the whole pool (:class:`AlignedRun` from the evaluator) read as {query ID: retrieved IDs},
    converted one query at a time, so that a page showing one query never converts a million IDs."""

    def __init__(self, aligned: AlignedRun, concepts: ConceptSets):
        self.aligned, self.concepts = aligned, concepts

    def __getitem__(self, query: str) -> tuple[str, ...]:
        row = self.concepts.index[query]
        ids = self.concepts.ids
        return tuple(ids[d] for d in self.aligned.documents[row] if d >= 0)

    def __iter__(self):
        ids = self.concepts.ids
        return (ids[row] for row in self.aligned.query_rows)

    def __len__(self) -> int:
        return len(self.aligned.query_rows)


def relevance_baseline(ws: Workspace, name: str, settings: dict,
                       report: Callable[[float], None] | None = None) -> AlignedRun:
    """Retrieval by IoU or nn-IoU over the whole pool, exactly as :func:`cached_evaluation` ranks it (the evaluator
    keeps the ranking, so the leaderboard, Per-query and Case view share one pass), with progress per block."""
    by = nn_iou_measure(settings["alpha"], settings["n"]) if name == "Retrieval by nn-IoU" else measure_spec("iou")
    return evaluator_of(ws, settings["kg_mode"]).relevance_ranking(
        by, BASELINE_DEPTH, max(settings["ks"]), name=name, progress=report)


def evaluation_with_progress(ws: Workspace, run_names: tuple[str, ...], extra_runs: tuple[str, ...],
                             settings: dict) -> dict:
    """:func:`cached_evaluation` behind a progress bar. The slow parts run first as steps of their own, each
    leaving its result where the evaluation finds it: the engine, each computed baseline, each pass over the pool
    (moving the bar block by block); then the scoring."""
    mode, alpha, n, k = settings["kg_mode"], settings["alpha"], settings["n"], max(settings["ks"])
    relevance = [name for name in extra_runs if name in RELEVANCE_BASELINES]
    others = [name for name in extra_runs if name not in RELEVANCE_BASELINES]
    # Ideal rankings the metrics need and no relevance baseline computes on the way.
    summaries = [measure for measure, baseline in (("iou", "Retrieval by IoU"), ("nn-iou", "Retrieval by nn-IoU"))
                 if baseline not in relevance]
    with StepProgress(2 + len(others) + len(relevance) + len(summaries)) as progress:
        evaluator = progress.run("Preparing the knowledge-graph index and the pairwise engine",
                                 lambda _: evaluator_of(ws, mode))
        for name in others:
            progress.run(f"Ranking the collection: {name}",
                         lambda _, name=name: baseline_run(ws, name, alpha, n, mode))
        for name in relevance:
            progress.run(f"Ranking the collection: {name} (every image against every other)",
                         lambda report, name=name: relevance_baseline(ws, name, settings, report))
        for measure in summaries:
            progress.run(f"Best possible rankings by {'IoU' if measure == 'iou' else 'nn-IoU'} (every image against "
                         "every other)", lambda report, measure=measure: evaluator.pool_summary(
                             nn_iou_measure(alpha, n) if measure == "nn-iou" else measure_spec("iou"), k, 0.5, report))
        systems = len(run_names) + len(extra_runs)
        return progress.run(f"Scoring {systems} system{'s' if systems != 1 else ''} and bootstrapping 95% intervals",
                            lambda _: cached_evaluation(ws.evaluation_key(), ws, run_names, extra_runs, alpha, n, mode,
                                                        settings["gain"], settings["ks"], settings.get("measure")))


def baselines_with_progress(ws: Workspace, names: list[str], settings: dict) -> dict[str, Run]:
    """The chosen Table-1 baselines as runs (relevance rankings read one query at a time), one progress step each."""
    if not names:
        return {}
    runs = {}
    with StepProgress(1 + len(names)) as progress:
        progress.run("Preparing the knowledge-graph index and the pairwise engine",
                     lambda _: evaluator_of(ws, settings["kg_mode"]))
        for name in names:
            if name in RELEVANCE_BASELINES:
                aligned = progress.run(f"Ranking the collection: {name} (every image against every other)",
                                       lambda report, name=name: relevance_baseline(ws, name, settings, report))
                runs[name] = Run(name, PoolRanking(aligned, ws.concepts), f"retrieval:{name}")
            else:
                runs[name] = progress.run(f"Ranking the collection: {name}", lambda _, name=name: baseline_run(
                    ws, name, settings["alpha"], settings["n"], settings["kg_mode"]))
    return runs


def changed_top(a: Run, b: Run, count: int) -> set[str]:
    """Queries whose top ``count`` differ (as sets) between two rankings of the same pool."""
    if isinstance(a.rankings, PoolRanking) and isinstance(b.rankings, PoolRanking):
        first = np.sort(a.rankings.aligned.documents[:, :count], axis=1)
        second = np.sort(b.rankings.aligned.documents[:, :count], axis=1)
        ids = a.rankings.concepts.ids
        return {ids[row] for row in a.rankings.aligned.query_rows[(first != second).any(axis=1)]}
    return {q for q in a.rankings if set(a.rankings[q][:count]) != set(b.rankings.get(q, ())[:count])}


def default_baselines(ws: Workspace) -> list[str]:
    """With no runs loaded, every baseline that can be computed (the paper's Table 1); else none."""
    return [] if ws.runs else available_baselines(ws)


def keep_default_for_dataset(key: str, ws: Workspace, default: list[str]) -> None:
    """Set a keyed multiselect to ``default`` whenever another dataset is loaded (the user's choice stays otherwise)."""
    marker = f"{key}__dataset"
    if st.session_state.get(marker) != ws.concepts_digest:
        st.session_state[marker] = ws.concepts_digest
        st.session_state[key] = default


@st.cache_resource(max_entries=4096, show_spinner=False)
def _cached_explanation(kg_key: str, query: tuple[str, ...], result: tuple[str, ...], n: int, mode: str, alpha: float,
                        measure: str, _kg: KnowledgeGraph | None, _names: dict) -> Explanation:
    spec = nn_iou_measure(alpha, n) if measure == "nn-iou" else parse_measure(measure)
    return explain_pair(query, result, _kg, spec, mode, names=_names)


def explanation_of(ws: Workspace, query: frozenset[str], result: frozenset[str], settings: dict,
                   measure: str = "nn-iou") -> Explanation:
    """Why ``result`` relates to ``query`` at the sidebar's settings (cached per pair and settings)."""
    kg = kg_of(ws)
    n = settings["n"] if kg is not None else 0
    key = ws.cache_key("explanation")
    return _cached_explanation(key, tuple(sorted(query)), tuple(sorted(result)), n, settings["kg_mode"],
                               settings["alpha"], measure, kg, ws.names if kg is None else {})


def pool_relevance(ws: Workspace, query_id: str, alpha: float, n: int, mode: str) -> np.ndarray:
    """Relevance of every image of the pool to one query (-1 for the query itself), for counting ties."""
    engine = evaluator_of(ws, mode).engine
    row = ws.concepts.index[query_id]
    size = len(ws.concepts)
    values = np.asarray(engine.relevance_of_pairs_by(nn_iou_measure(alpha, n, mode), np.full(size, row), np.arange(size)),
                        dtype=np.float64)
    values[row] = -1.0
    return values


RUN_SUFFIXES = (".trec", ".run", ".txt", ".csv")
LISTED_IDS = 40


def load_rocov2_complete(folder: str, progress: StepProgress | None = None) -> Workspace:
    """:func:`load_rocov2`, then the run files of a ``runs/`` folder beside the concepts, a report row for every
    file read (captions, names and the concept IDs they leave unnamed, images), and the KG index built."""
    roots = server_data_roots()
    root = check_under_roots(folder, roots)
    runs_folder = root / "runs"
    run_files = sorted(p for p in runs_folder.iterdir() if p.suffix.lower() in RUN_SUFFIXES) \
        if runs_folder.is_dir() else []

    if progress is not None:
        progress.steps = 2 + len(run_files)

    def step(text: str, work: Callable[[Callable[[float], None]], object]):
        return progress.run(text, work) if progress is not None else work(lambda _: None)

    new = step("Reading the concepts, captions, concept names, knowledge graph and labels",
               lambda _: load_rocov2(folder))
    vocabulary = set(new.concepts.vocabulary)
    captions_path = root / "test_captions.csv"
    if captions_path.exists():
        without = sum(1 for i in new.concepts.ids if i not in new.captions)
        report(new, str(captions_path), "captions", f"{len(new.captions):,}",
               f"{without:,} images have no caption" if without else "")
    mapping_path = root / "cui_mapping.csv"
    mapped: dict[str, str] = {}
    if mapping_path.exists():
        mapped = read_concept_names(mapping_path)
        unnamed = sorted(vocabulary - set(mapped))
        problems = ""
        if unnamed:
            from_kg = sum(1 for c in unnamed if c in new.names)
            listed = ", ".join(unnamed[:LISTED_IDS]) + (f" and {len(unnamed) - LISTED_IDS:,} more"
                                                        if len(unnamed) > LISTED_IDS else "")
            problems = (f"{len(unnamed):,} concept IDs of the concept file have no name here: {listed}"
                        + (f" ({from_kg:,} named by the KG's names file)" if from_kg else ""))
        report(new, str(mapping_path), "concept names", f"{len(mapped):,}", problems)
    for kg_file in new.kg_files:
        names_path = Path(kg_file).parent / "open_kg_names.csv"
        if names_path.exists():
            added = sum(1 for c in new.names if c not in mapped)
            report(new, str(names_path), "KG node names", f"{added:,} names beyond the concept names")
    if new.image_folder is not None:
        files = {p.stem for p in new.image_folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES}
        found = len(files & set(new.concepts.ids))
        report(new, str(new.image_folder), "images", f"{len(files):,} files",
               f"{found:,} of {len(new.concepts):,} images have a file; the others show as text")
    if not run_files:
        report(new, str(runs_folder), "runs", 0, "no run files: the leaderboard computes the Table-1 baselines")
    for path in run_files:
        new = step(f"Reading run {path.name}", lambda _, path=path, current=new: with_run(
            current, read_input_bytes(check_under_roots(path, roots), str(path))[0], str(path)))
    step("Building the knowledge-graph index", lambda _: kg_of(new))
    return new



@st.cache_resource
def _remembered_stores() -> dict[str, OrderedDict]:
    return {}


def remembered(store: str, key: str, compute: Callable[[], object], max_entries: int = 8):
    """``compute()`` once per key (from :func:`evalcore.cache_keys.cache_key`, like every cached result), shared by
    every session (like ``st.cache_resource``) but free to draw progress while it runs, which a cached function may
    not (Streamlit would replay the drawing)."""
    entries = _remembered_stores().setdefault(store, OrderedDict())
    if key in entries:
        entries.move_to_end(key)
        return entries[key]
    value = compute()
    entries[key] = value
    while len(entries) > max_entries:
        entries.popitem(last=False)
    return value


# --- choosing a relevance measure ------------------------------------------------------------

def comparison_measures(chosen: str) -> list[str]:
    """Every registry measure at its defaults, and the sidebar's measure where its parameters differ."""
    names = [spec.name for spec in default_measures()]
    return names + ([chosen] if chosen not in names else [])


def measure_comparison_key(ws: Workspace, measures: tuple[str, ...], baselines: tuple[str, ...], alpha: float, n: int,
                           mode: str, samples: int) -> str:
    return ws.cache_key("measures", measures=measures, baselines=baselines, alpha=alpha, n=n, mode=mode, samples=samples)


def measure_comparison(ws: Workspace, measures: tuple[str, ...], baselines: tuple[str, ...], alpha: float, n: int,
                       mode: str, samples: int = 2000, progress: Callable[[float, str], None] | None = None,
                       compute: bool = True):
    """:func:`evalcore.measure_comparison.compare_measures` over the loaded runs and the chosen baselines
    (the relevance baselines at the sidebar's alpha and n); None when not computed yet and ``compute`` is False.

    Kept for the session under :func:`measure_comparison_key`, so that progress can be shown while it runs.
    """
    from evalcore.measure_comparison import compare_measures

    key = measure_comparison_key(ws, measures, baselines, alpha, n, mode, samples)
    store = st.session_state.setdefault("measure_comparisons", {})
    if key not in store and compute:
        evaluator = evaluator_of(ws, mode)
        systems: list[Run | AlignedRun] = [run for _, run in ws.runs.values()]
        systems += [baseline_run(ws, name, alpha, n, mode) for name in baselines]
        store[key] = compare_measures(evaluator, measures, systems, samples=samples, progress=progress)
    return store.get(key)
