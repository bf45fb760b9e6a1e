"""Immutable containers for the inputs of an evaluation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from .errors import CBIRLensError

LABEL_KINDS = ("modality", "organ")


@dataclass(frozen=True)
class ConceptSets:
    """Concept sets of images, in file order (the order breaks ties in retrieval)."""

    ids: tuple[str, ...]
    sets: tuple[frozenset[str], ...]
    source: str = "concepts"
    index: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.sets):
            raise CBIRLensError(f"{self.source}: {len(self.ids)} IDs but {len(self.sets)} concept sets")
        index = {image_id: i for i, image_id in enumerate(self.ids)}
        if len(index) != len(self.ids):
            raise CBIRLensError(f"{self.source}: image IDs must be unique")
        object.__setattr__(self, "index", MappingProxyType(index))

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, image_id: str) -> frozenset[str]:
        return self.sets[self.index[image_id]]

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """Distinct CUIs, sorted."""
        return tuple(sorted(set().union(*self.sets))) if self.sets else ()

    def occurrences(self) -> int:
        return sum(len(s) for s in self.sets)

    def subset(self, ids: list[str] | tuple[str, ...]) -> ConceptSets:
        return ConceptSets(tuple(ids), tuple(self[i] for i in ids), self.source)


@dataclass(frozen=True)
class Run:
    """A retrieval run: for each query, the retrieved image IDs in rank order."""

    name: str
    rankings: Mapping[str, tuple[str, ...]]
    source: str = "run"
    scores: Mapping[str, tuple[float, ...]] | None = None

    def __len__(self) -> int:
        return len(self.rankings)


@dataclass(frozen=True)
class ImageLabels:
    """Per-image label sets, e.g. ``{"modality": {"ID1": frozenset({"CT"})}}``."""

    by_kind: Mapping[str, Mapping[str, frozenset[str]]]
    source: str = "labels"

    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in LABEL_KINDS if k in self.by_kind)


@dataclass(frozen=True)
class ConceptClassMap:
    """A CUI-to-class mapping per label kind, applied to concept sets to derive labels."""

    by_kind: Mapping[str, Mapping[str, frozenset[str]]]
    source: str = "labels"

    def labels_for(self, concepts: ConceptSets) -> ImageLabels:
        """Label each image with the classes of its concepts (possibly several).

        >>> m = ConceptClassMap({"modality": {"C0040405": frozenset({"CT"})}})
        >>> c = ConceptSets(("a", "b"), (frozenset({"C0040405"}), frozenset()))
        >>> dict(m.labels_for(c).by_kind["modality"])
        {'a': frozenset({'CT'}), 'b': frozenset()}
        """
        by_kind = {}
        for kind, mapping in self.by_kind.items():
            by_kind[kind] = {
                image_id: frozenset().union(*(mapping.get(cui, frozenset()) for cui in cuis))
                for image_id, cuis in zip(concepts.ids, concepts.sets)
            }
        return ImageLabels(by_kind, self.source)


@dataclass(frozen=True)
class Embeddings:
    """L2-normalised vectors, one row per image ID."""

    ids: tuple[str, ...]
    vectors: np.ndarray
    source: str = "embeddings"

    def __post_init__(self) -> None:
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.ids):
            raise CBIRLensError(
                f"{self.source}: expected one vector per ID ({len(self.ids)}), got array of shape {self.vectors.shape}"
            )
