"""What the pages look up in the loaded data: images by a text, how much of the dataset the KG covers, and a
concept's neighbourhood in the KG."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evalcore.app.workspace import Workspace
from evalcore.data import ConceptSets
from evalcore.relevance.kg import KnowledgeGraph

#: The most images a search lists.
LISTED_IMAGES = 500


def find_images(ws: Workspace, candidates: Iterable[str], text: str, limit: int = LISTED_IMAGES) -> list[str]:
    """The first ``limit`` of ``candidates`` (image IDs with a concept set) whose ID, caption, or one of whose
    concepts (its code or its name) contains ``text``, ignoring case; every candidate (up to ``limit``) for an
    empty text.

    >>> from evalcore.data import ConceptSets
    >>> ws = Workspace(concepts=ConceptSets(("img1", "img2"), (frozenset({"C0000001"}), frozenset({"C0000002"}))),
    ...                names={"C0000002": "Liver"}, captions={"img1": "CT of the head"})
    >>> [find_images(ws, ["img1", "img2"], text) for text in ("IMG2", "c0000001", "liver", "head", "lung")]
    [['img2'], ['img1'], ['img2'], ['img1'], []]
    """
    needle = text.strip().lower()
    concepts, captions, names = ws.concepts, ws.captions, ws.shown_names
    found = []
    for image in candidates:
        if len(found) >= limit:
            break
        if (not needle or needle in image.lower() or needle in captions.get(image, "").lower()
                or any(needle in c.lower() or needle in names.get(c, "").lower() for c in concepts[image])):
            found.append(image)
    return found


def image_with_id(ws: Workspace, text: str) -> str | None:
    """The image of the concept sets whose ID is ``text``, surrounding spaces and case ignored (the ID as written
    first), or None: an ID typed whole, which a list cut at :data:`LISTED_IMAGES` may leave out.

    >>> ws = Workspace(concepts=ConceptSets(("img1", "IMG2"), (frozenset(), frozenset())))
    >>> image_with_id(ws, " img2 "), image_with_id(ws, "img"), image_with_id(ws, "img1"), image_with_id(ws, " ")
    ('IMG2', None, 'img1', None)
    """
    wanted = text.strip()
    if wanted in ws.concepts.index:
        return wanted
    folded = wanted.casefold()
    return next((image for image in ws.concepts.ids if image.casefold() == folded), None) if folded else None


@dataclass(frozen=True)
class KGCoverage:
    """How many of the dataset's distinct concepts (``concepts``), and of their occurrences, are KG nodes; and the
    KG's size (``nodes``, distinct ``links``)."""

    nodes: int
    links: int
    concepts: int
    concepts_in_kg: int
    occurrences: int
    occurrences_in_kg: int

    @property
    def concept_share(self) -> float:
        return self.concepts_in_kg / self.concepts if self.concepts else 0.0

    @property
    def occurrence_share(self) -> float:
        return self.occurrences_in_kg / self.occurrences if self.occurrences else 0.0


def kg_coverage(kg: KnowledgeGraph, concepts: ConceptSets) -> KGCoverage:
    """:meth:`evalcore.relevance.kg.KnowledgeGraph.coverage` of the concept sets, typed."""
    found = kg.coverage(concepts.sets)
    return KGCoverage(kg.number_of_nodes(), kg.number_of_edges(), found["concepts"], found["concepts_in_kg"],
                      found["occurrences"], found["occurrences_in_kg"])


@dataclass(frozen=True)
class Neighbourhood:
    """The concepts within a few hops of one (``distances``: concept -> hops, the closest first, at most the
    page's limit of them, out of ``reached``) and the KG links between them (``links``: concept, parent)."""

    distances: dict[str, int]
    links: tuple[tuple[str, str], ...]
    reached: int


def neighbourhood(kg: KnowledgeGraph, centre: str, hops: int, mode: str, limit: int = 150) -> Neighbourhood:
    """The ``limit`` concepts closest to ``centre`` within ``hops`` links in ``mode``, and their links."""
    reached = kg.distances_from(centre, hops, mode)
    shown = dict(sorted(reached.items(), key=lambda item: item[1])[:limit]) if len(reached) > limit else reached
    links = []
    for node in shown:
        i = kg.index[node]
        for j in kg.parents.indices[kg.parents.indptr[i]: kg.parents.indptr[i + 1]]:
            if kg.nodes[j] in shown:
                links.append((node, kg.nodes[j]))
    return Neighbourhood(shown, tuple(links), len(reached))
