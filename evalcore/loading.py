"""Convenience loaders that combine readers: several KG files, labels applied to concept
sets, and the ROCOv2 folder layout."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .data import ConceptClassMap, ConceptSets, ImageLabels
from .errors import CBIRLensError
from .kg import KnowledgeGraph
from .readers import Source, read_captions, read_concept_names, read_concepts, read_kg, read_labels

ROCOV2_SPLITS = ("train", "valid", "test")
LABEL_MAPPING = Path(__file__).resolve().parent.parent / "data" / "labels" / "rocov2_labels.csv"


def load_kg(paths: Sequence[Source], sources: Sequence[str] | None = None,
            names: dict[str, str] | None = None) -> KnowledgeGraph:
    """Read and combine KG files (edge lists, MRREL.RRF, OBO); optionally keep only some source tags.

    A ``*_names.csv`` file beside an edge list (``open_kg_edges.csv`` -> ``open_kg_names.csv``)
    supplies node names.
    """
    edge_files = [read_kg(p) for p in paths]
    kg = KnowledgeGraph.from_edges(edge_files, sources)
    merged = dict(kg.names)
    for path in paths:
        if isinstance(path, (str, Path)):
            sibling = Path(str(path).replace("_edges", "_names"))
            if sibling != Path(path) and sibling.exists():
                merged.update(read_concept_names(sibling))
    merged.update(names or {})
    return KnowledgeGraph(kg.nodes, kg.parents, merged, kg.sources)


def resolve_labels(labels: ImageLabels | ConceptClassMap, concepts: ConceptSets) -> ImageLabels:
    return labels.labels_for(concepts) if isinstance(labels, ConceptClassMap) else labels


def load_labels(path: Source, concepts: ConceptSets) -> ImageLabels:
    return resolve_labels(read_labels(path), concepts)


@dataclass
class Rocov2Folder:
    concepts: dict[str, ConceptSets] = field(default_factory=dict)
    captions: dict[str, dict[str, str]] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    images: Path | None = None


def load_rocov2_folder(folder: str | Path, splits: Sequence[str] = ("test",)) -> Rocov2Folder:
    """Recognise the ROCOv2 layout: ``<split>_concepts.csv``, ``<split>_captions.csv``,
    ``cui_mapping.csv`` and ``images/``."""
    root = Path(folder)
    if not root.is_dir():
        raise CBIRLensError(f"{root}: not a folder (expected the ROCOv2 layout with test_concepts.csv)")
    result = Rocov2Folder()
    for split in splits:
        concepts_path = root / f"{split}_concepts.csv"
        if not concepts_path.exists():
            raise CBIRLensError(f"{root}: no {split}_concepts.csv (expected the ROCOv2 layout)")
        result.concepts[split] = read_concepts(concepts_path)
        captions_path = root / f"{split}_captions.csv"
        if captions_path.exists():
            result.captions[split] = read_captions(captions_path)
    if (root / "cui_mapping.csv").exists():
        result.names = read_concept_names(root / "cui_mapping.csv")
    if (root / "images").is_dir():
        result.images = root / "images"
    return result


def combine_concepts(parts: Sequence[ConceptSets], source: str) -> ConceptSets:
    """Concatenate concept files (e.g. train + valid + test) in order; IDs must be unique."""
    ids = tuple(i for part in parts for i in part.ids)
    sets = tuple(s for part in parts for s in part.sets)
    if len(set(ids)) != len(ids):
        raise CBIRLensError(f"{source}: an image ID occurs in more than one concept file")
    return ConceptSets(ids, sets, source)
