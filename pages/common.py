"""Shared state and cached computations of the dashboard. Pages read from here and draw.

The loaded inputs live in ``st.session_state["workspace"]`` (a :class:`Workspace`);
every input carries a content digest, so cached results are keyed by content.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st
from PIL import Image

from evalcore.compare import bootstrap_cis
from evalcore.data import ConceptClassMap, ConceptSets, Embeddings, ImageLabels, Run
from evalcore.errors import CBIRLensError
from evalcore.evaluation import AlignedRun, Evaluator
from evalcore.kg import KnowledgeGraph
from evalcore.loading import load_rocov2_folder
from evalcore.metrics import default_metric_names, parse_metric
from evalcore.readers import KGEdges, read_concept_names, read_concepts, read_kg, read_labels, read_run

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "data" / "demo"
ROCOV2_LABELS = ROOT / "data" / "labels" / "rocov2_labels.csv"
MAX_ZIP_MEMBERS = 200_000
MAX_IMAGE_BYTES = 20 << 20
MAX_ZIP_TOTAL = 2 << 30
THUMBNAIL = (256, 256)
Image.MAX_IMAGE_PIXELS = 50_000_000  # Pillow raises DecompressionBombError beyond twice this


def digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else part.encode())
    return h.hexdigest()[:16]


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
    reports: list[dict] = field(default_factory=list)

    @property
    def kg_digest(self) -> str:
        return digest(*sorted(d for d, _ in self.kg_files.values())) if self.kg_files else ""

    def evaluation_key(self) -> tuple:
        """Content digests of everything an evaluation reads: the cache key shared by all pages."""
        return (self.concepts_digest, self.kg_digest, self.labels_digest, self.embeddings_digest,
                tuple(d for d, _ in self.runs.values()))

    def resolved_labels(self) -> ImageLabels | None:
        if self.labels is None or self.concepts is None:
            return None
        return self.labels.labels_for(self.concepts) if isinstance(self.labels, ConceptClassMap) else self.labels

    def image_bytes(self, image_id: str) -> bytes | None:
        if image_id in self.images:
            return self.images[image_id]
        if self.image_folder is not None:
            for extension in (".jpg", ".jpeg", ".png"):
                path = self.image_folder / f"{image_id}{extension}"
                if path.is_file() and path.stat().st_size <= MAX_IMAGE_BYTES:
                    return path.read_bytes()
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
    workspace.embeddings_digest = digest((DEMO / "image_embeddings.npy").read_bytes())
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
    report(new, name, "knowledge graph", f"{len(edges.edges):,} edges")
    return new


def with_run(workspace: Workspace, data: bytes, name: str) -> Workspace:
    run = read_run(data, name)
    new = replace(workspace, runs={**workspace.runs, run.name: (digest(data), run)}, reports=list(workspace.reports))
    problems = ""
    if workspace.concepts is not None:
        unknown_queries = sum(1 for q in run.rankings if q not in workspace.concepts.index)
        unknown_docs = sum(1 for docs in run.rankings.values() for d in docs if d not in workspace.concepts.index)
        if unknown_queries or unknown_docs:
            problems = (f"{unknown_queries} queries and {unknown_docs} retrieved IDs have no concept set "
                        "(scored as relevance 0)")
    report(new, name, f"run '{run.name}'", f"{len(run.rankings):,} queries", problems)
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
        if member.is_dir() or suffix not in {".png", ".jpg", ".jpeg"}:
            continue
        if member.file_size > MAX_IMAGE_BYTES or (member.compress_size and member.file_size / member.compress_size > 200):
            raise CBIRLensError(f"{name}: {path[:80]} is too large or too compressed (zip bomb?)")
        images[Path(path).stem] = archive.read(member)
    return images


def thumbnail(data: bytes) -> Image.Image | None:
    """Open an image safely (Pillow's decompression-bomb guard) and shrink it to a thumbnail."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.draft("RGB", THUMBNAIL)
            image.thumbnail(THUMBNAIL)
            return image.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError, SyntaxError):
        return None


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


def load_rocov2(folder: str, with_labels_mapping: bool = True) -> Workspace:
    loaded = load_rocov2_folder(folder, ("test",))
    concepts = loaded.concepts["test"]
    data = (Path(folder) / "test_concepts.csv").read_bytes()
    new = Workspace(label=f"ROCOv2 test ({folder})", concepts=concepts, concepts_digest=digest(data),
                    names=loaded.names, captions=loaded.captions.get("test", {}), image_folder=loaded.images)
    report(new, str(Path(folder) / "test_concepts.csv"), "concept sets", len(concepts))
    kg_path = Path(folder).parent / "kg" / "open_kg_edges.csv"
    if kg_path.exists():
        new = with_kg(new, kg_path.read_bytes(), str(kg_path))
        names_path = kg_path.parent / "open_kg_names.csv"
        if names_path.exists():
            new.names = {**read_concept_names(names_path), **new.names}
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
    }


# --- cached computations -------------------------------------------------------------------

@st.cache_resource(show_spinner="Building the knowledge graph index…", max_entries=4)
def cached_kg(kg_digest: str, _edge_files: tuple[KGEdges, ...], _names_digest: str, _names: dict) -> KnowledgeGraph:
    kg = KnowledgeGraph.from_edges(_edge_files)
    return KnowledgeGraph(kg.nodes, kg.parents, {**kg.names, **_names}, kg.sources)


def kg_of(ws: Workspace) -> KnowledgeGraph | None:
    if not ws.kg_files:
        return None
    return cached_kg(ws.kg_digest, tuple(e for _, e in ws.kg_files.values()), digest(str(len(ws.names))), ws.names)


@st.cache_resource(show_spinner="Preparing the pairwise engine…", max_entries=4)
def cached_evaluator(concepts_digest: str, kg_digest: str, mode: str, labels_digest: str, _ws: Workspace) -> Evaluator:
    return Evaluator(_ws.concepts, kg_of(_ws), mode, _ws.resolved_labels())


def evaluator_of(ws: Workspace, mode: str) -> Evaluator:
    return cached_evaluator(ws.concepts_digest, ws.kg_digest, mode, ws.labels_digest, ws)


def metric_names_for(evaluator: Evaluator, ks: tuple[int, ...]) -> list[str]:
    return default_metric_names(ks, evaluator.label_targets())


@st.cache_data(show_spinner=False, max_entries=32)
def cached_evaluation(key: tuple, _ws: Workspace, run_names: tuple[str, ...], extra_runs: tuple[str, ...],
                      alpha: float, n: int, mode: str, gain: str, ks: tuple[int, ...]) -> dict:
    """Means with 95% bootstrap CIs and the per-query values (system -> queries x metrics), for the given runs."""
    evaluator = evaluator_of(_ws, mode)
    names = metric_names_for(evaluator, ks)
    runs: list[Run | AlignedRun] = [_ws.runs[name][1] for name in run_names]
    for name in extra_runs:
        if name in RELEVANCE_BASELINES:
            # Ranked and scored in one pass over the pool, without a detour through image IDs.
            hops = n if name == "Retrieval by nn-IoU" else 0
            runs.append(evaluator.relevance_ranking(alpha if hops else 0.0, hops, BASELINE_DEPTH, max(ks), name=name))
        else:
            runs.append(baseline_run(_ws, name, alpha, n, mode))
    evaluation = evaluator.evaluate(runs, names, alpha, n, gain)
    rows, query_ids, values = [], {}, {}
    for system, result in evaluation.systems.items():
        query_ids[system] = result.query_ids
        values[system] = np.column_stack([result.values[m] for m in names])
        for metric, ci in zip(names, bootstrap_cis(values[system], samples=500)):
            rows.append({"system": system, "metric": metric, "mean": ci.mean, "low": ci.low, "high": ci.high,
                         "queries": ci.queries})
    return {"summary": pd.DataFrame(rows), "query_ids": query_ids, "values": values, "counts": evaluation.counts,
            "metrics": names}


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


def baseline_run(ws: Workspace, name: str, alpha: float, n: int, mode: str) -> Run:
    return cached_baseline(ws.concepts_digest, ws.kg_digest, ws.embeddings_digest, digest(str(len(ws.captions))), name,
                           alpha, n, mode, _ws=ws)


@st.cache_resource(show_spinner="Ranking the pool for the Table-1 baselines…", max_entries=16)
def cached_baseline(concepts_digest: str, kg_digest: str, embeddings_digest: str, captions_digest: str, name: str,
                    alpha: float, n: int, mode: str, _ws: Workspace) -> Run:
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
    name = ws.names.get(cui) or (kg.names.get(cui) if kg else None)
    return f"{name} ({cui})" if name else cui


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
