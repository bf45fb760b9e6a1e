"""Relevance of listed image pairs (the ``relevance`` command): IoU, nn-IoU, the approximate matches behind it and a
chosen measure, pair by pair. A few pairs are counted on the CPU by the per-pair formulas; a pass over the pool is
the engine's (:mod:`evalcore.evaluation.evaluator`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from evalcore.data import ConceptSets
from evalcore.errors import InputError, ParameterError
from evalcore.relevance.formulas import approximate_matches, iou, nn_iou
from evalcore.relevance.kg import KnowledgeGraph, neighbour_sets
from evalcore.relevance.measures import MeasureSpec


@dataclass(frozen=True)
class PairRelevance:
    """One pair's relevance: IoU, nn-IoU, the concepts matched approximately (sorted) and the chosen measure's value."""

    a: str
    b: str
    iou: float
    nn_iou: float
    approximate_matches: tuple[str, ...]
    value: float


def listed_pair_relevance(concepts: ConceptSets, pairs: Iterable[tuple[int, str, str]], source: str,
                          kg: KnowledgeGraph | None, mode: str, nn_iou_spec: MeasureSpec,
                          measure: MeasureSpec) -> Iterator[PairRelevance]:
    """The relevance of each ``(line, a, b)`` pair of ``source`` (:func:`~evalcore.readers.read_image_pairs`), nn-IoU
    by ``nn_iou_spec``, the value by ``measure``, one pair at a time (a caller writes each as it comes, so millions of
    pairs are never held as rows); a pair naming an image outside ``concepts`` is refused when it is reached, naming
    its line.

    >>> from evalcore.relevance.measures import measure_spec, nn_iou_measure
    >>> sets = ConceptSets(("x", "y"), (frozenset({"C1", "C2"}), frozenset({"C1"})))
    >>> list(listed_pair_relevance(sets, [(2, "x", "y")], "pairs.csv", None, "undirected", nn_iou_measure(0.5, 1),
    ...                            measure_spec("dice")))
    [PairRelevance(a='x', b='y', iou=0.5, nn_iou=0.5, approximate_matches=(), value=0.6666666666666666)]
    """
    if not isinstance(nn_iou_spec, MeasureSpec) or nn_iou_spec.key != "nn-iou":
        raise ParameterError(f"nn_iou_spec must be an nn-iou MeasureSpec, got {nn_iou_spec!r}")
    neighbours = neighbour_sets(kg, concepts.vocabulary, nn_iou_spec.hops, mode)
    return _scored_pairs(concepts, pairs, source, neighbours, nn_iou_spec.params["alpha"],
                         measure.pair_function(kg, concepts.vocabulary, mode))


def _scored_pairs(concepts: ConceptSets, pairs: Iterable[tuple[int, str, str]], source: str,
                  neighbours: Mapping[str, frozenset[str]], alpha: float,
                  chosen: Callable[[frozenset[str], frozenset[str]], float]) -> Iterator[PairRelevance]:
    """:func:`listed_pair_relevance`'s rows, made as they are asked for (its arguments checked before the first)."""
    for line, a, b in pairs:
        for image_id in (a, b):
            if image_id not in concepts.index:
                raise InputError(source, line, f"an image ID present in {concepts.source}", repr(image_id))
        sa, sb = concepts[a], concepts[b]
        yield PairRelevance(a, b, iou(sa, sb), nn_iou(sa, sb, neighbours, alpha),
                            tuple(sorted(approximate_matches(sa, sb, neighbours))), chosen(sa, sb))
