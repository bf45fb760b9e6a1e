"""The paper's Table-1 baselines: retrieval by IoU, by nn-IoU, by image embeddings and by captions (TF-IDF).

A :class:`Baseline` says once what it is called, what it needs loaded and which relevance setting its ranking
depends on; code finds it by object or by :attr:`Baseline.key` (:func:`baseline`), never by its display title. The
ranking of a baseline by concept relevance covers the whole pool; :class:`PoolRanking` reads it one query at a time.

>>> baseline("nn-iou").title, [b.key for b in BASELINES]
('Retrieval by nn-IoU', ['iou', 'nn-iou', 'embeddings', 'captions'])
>>> setting = measure_spec("nn-iou", alpha=0.5, n=2)
>>> IOU.measure(setting).name, NN_IOU.measure(setting).name, NN_IOU.measure(setting.with_parameters(alpha=0)).name
('iou', 'nn-iou(alpha=0.5,n=2)', 'iou')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from evalcore.data import ConceptSets, Run
from evalcore.errors import CBIRLensError, ParameterError
from evalcore.evaluation.evaluator import AlignedRun, Evaluator, built_in_system
from evalcore.relevance.measures import MeasureSpec, measure_spec, nn_iou_measure

if TYPE_CHECKING:  # the class only: the image readers it imports are not needed to rank
    from evalcore.app.workspace import Workspace

#: Depth of a baseline's ranked lists.
BASELINE_DEPTH = 100


@dataclass(frozen=True)
class Baseline:
    """One Table-1 baseline.

    ``needs``: the workspace input it ranks by, besides the concept sets ("" for IoU); ``by_relevance``: it ranks
    the pool by concept relevance (IoU or nn-IoU), in one pass of the evaluator's engine; ``plain``: what it does, in
    plain words (the clinician's view).
    """

    key: str
    title: str
    plain: str
    needs: str
    by_relevance: bool

    @property
    def short_plain(self) -> str:
        """The plain words as a choice's label, without "the most", which a narrow select box cuts.

        >>> NN_IOU.short_plain
        'Shared or related concepts'
        """
        return self.plain.removeprefix("the most ").capitalize()

    def available(self, workspace: Workspace) -> bool:
        """Whether ``workspace`` holds what the baseline needs: for embeddings and captions, some about an image of
        the concept sets (those of another collection rank nothing, and the ranking refuses them)."""
        if workspace.concepts is None:
            return False
        if self.needs == "embeddings":
            return workspace.embeddings is not None and any(i in workspace.concepts.index for i in workspace.embeddings.ids)
        if self.needs == "captions":
            return any(image_id in workspace.concepts.index for image_id in workspace.captions)
        return not self.needs or bool(getattr(workspace, self.needs))

    def measure(self, relevance: MeasureSpec) -> MeasureSpec | None:
        """The relevance a relevance baseline ranks by, given the session's nn-IoU setting ``relevance``: IoU at any
        setting, nn-IoU at its effective one (:meth:`MeasureSpec.effective`: IoU at alpha = 0 or n = 0); None for
        the baselines that do not rank by concepts."""
        if not self.by_relevance:
            return None
        return measure_spec("iou") if self.key == "iou" else relevance.effective(has_kg=True)

    def setting(self, relevance: MeasureSpec, mode: str) -> tuple[MeasureSpec | None, str]:
        """The (measure, KG mode) the ranking depends on, so that moving a slider never recomputes a ranking it
        cannot change: embeddings and captions depend on neither."""
        return (self.measure(relevance), mode) if self.by_relevance else (None, "undirected")

    def inputs(self) -> tuple[str, ...]:
        """The workspace inputs its ranking reads (:meth:`Workspace.restricted_to`)."""
        return EVALUATOR_INPUTS if self.by_relevance else ("concepts", self.needs)

    def aligned_ranking(self, evaluator: Evaluator, relevance: MeasureSpec, k: int,
                        progress: Callable[[float], None] | None = None) -> AlignedRun:
        """A relevance baseline's ranking of the whole pool, as the evaluator keeps it for scoring (``k``: the
        largest cut-off whose ideal the pass also keeps)."""
        if not self.by_relevance:
            raise ParameterError(f"{self.title} does not rank by concept relevance")
        return evaluator.relevance_ranking(self.measure(relevance), BASELINE_DEPTH, k, name=self.title,
                                           progress=progress)

    def run(self, workspace: Workspace, evaluator: Evaluator | None, relevance: MeasureSpec | None,
            progress: Callable[[float], None] | None = None) -> Run:
        """The baseline's ranked lists (depth :data:`BASELINE_DEPTH`) as a run named by its title; the relevance
        baselines need the ``evaluator`` built over ``workspace`` and the session's nn-IoU setting ``relevance``.
        ``progress(fraction)`` moves as the ranking goes through the queries."""
        from evalcore.evaluation.retrieval import retrieve_by_captions, retrieve_by_embeddings, retrieve_by_measure

        if self.by_relevance:
            return retrieve_by_measure(evaluator, self.measure(relevance), BASELINE_DEPTH, self.title, progress)
        if self.key == "embeddings":
            if workspace.embeddings is None:
                raise CBIRLensError("no embeddings loaded: upload them on the Data page")
            return retrieve_by_embeddings(workspace.embeddings, workspace.concepts, BASELINE_DEPTH, self.title,
                                          progress)
        if not workspace.captions:
            raise CBIRLensError("no captions loaded: upload them on the Data page")
        return retrieve_by_captions(dict(workspace.captions), workspace.concepts, BASELINE_DEPTH, None, self.title,
                                    progress=progress)


#: What an :class:`~evalcore.evaluation.evaluator.Evaluator` over a workspace reads.
EVALUATOR_INPUTS = ("concepts", "kg_files", "names", "labels")

IOU = Baseline("iou", built_in_system("IoU"), "the most shared concepts", "", True)
NN_IOU = Baseline("nn-iou", built_in_system("nn-IoU"), "the most shared or related concepts", "kg_files", True)
EMBEDDINGS = Baseline("embeddings", built_in_system("embeddings"), "the most similar pictures", "embeddings", False)
CAPTIONS = Baseline("captions", built_in_system("captions (TF-IDF)"), "the most similar captions", "captions", False)
BASELINES = (IOU, NN_IOU, EMBEDDINGS, CAPTIONS)
_BY_KEY = {b.key: b for b in BASELINES}


def baseline(key: str | Baseline) -> Baseline:
    """The baseline of a key ("iou", "nn-iou", "embeddings", "captions"), or the baseline itself."""
    if isinstance(key, Baseline):
        return key
    if key not in _BY_KEY:
        raise ParameterError(f"unknown baseline {key!r}; known: {', '.join(_BY_KEY)}")
    return _BY_KEY[key]


def available_baselines(workspace: Workspace) -> list[Baseline]:
    """The baselines ``workspace`` can compute, in Table-1 order."""
    return [b for b in BASELINES if b.available(workspace)]


def setting_read(baselines: Iterable[Baseline], relevance: MeasureSpec) -> MeasureSpec:
    """The session's nn-IoU setting ``relevance`` as ``baselines`` read it: itself where one of them ranks by a
    measure that depends on it (retrieval by nn-IoU, the only one), else the default setting. A result keyed by it
    (the Choose-a-measure comparison) is then kept across the sliders' values where nothing it computes reads them.

    >>> moved, default = measure_spec("nn-iou", alpha=0.7, n=2), measure_spec("nn-iou")
    >>> setting_read([IOU, CAPTIONS], moved) == default, setting_read([], moved) == default
    (True, True)
    >>> setting_read([IOU, NN_IOU], moved) == moved, setting_read([NN_IOU], default) == default
    (True, True)
    """
    default = nn_iou_measure()
    return relevance if any(b.measure(relevance) != b.measure(default) for b in baselines) else default


def comparison_baselines(workspace: Workspace) -> list[Baseline]:
    """The baselines Choose a measure judges at first: those not ranking by a relevance measure (retrieval by IoU or
    nn-IoU is the ideal ranking under its own measure, left out as circular where that measure is compared)."""
    return [b for b in available_baselines(workspace) if not b.by_relevance]


def default_baselines(workspace: Workspace) -> list[Baseline]:
    """With no runs loaded, every baseline that can be computed (the paper's Table 1); else none."""
    return [] if workspace.runs else available_baselines(workspace)


class PoolRanking(Mapping):
    """A ranking of the whole pool (:class:`AlignedRun` from the evaluator) read as {query ID: retrieved IDs},
    converted one query at a time, so that a page showing one query never converts a million IDs."""

    def __init__(self, aligned: AlignedRun, concepts: ConceptSets):
        self.aligned, self.concepts = aligned, concepts

    def __getitem__(self, query: str) -> tuple[str, ...]:
        row = self.concepts.index[query]
        ids = self.concepts.ids
        return tuple(ids[d] for d in self.aligned.documents[row] if d >= 0)

    def __iter__(self) -> Iterator[str]:
        ids = self.concepts.ids
        return (ids[row] for row in self.aligned.query_rows)

    def __len__(self) -> int:
        return len(self.aligned.query_rows)


def changed_top(a: Run, b: Run, count: int) -> set[str]:
    """Queries whose top ``count`` differ (as sets) between two rankings of the same pool."""
    if isinstance(a.rankings, PoolRanking) and isinstance(b.rankings, PoolRanking):
        first = np.sort(a.rankings.aligned.documents[:, :count], axis=1)
        second = np.sort(b.rankings.aligned.documents[:, :count], axis=1)
        ids = a.rankings.concepts.ids
        return {ids[row] for row in a.rankings.aligned.query_rows[(first != second).any(axis=1)]}
    return {q for q in a.rankings if set(a.rankings[q][:count]) != set(b.rankings.get(q, ())[:count])}


def pool_relevance(evaluator: Evaluator, query_id: str, measure: MeasureSpec) -> np.ndarray:
    """Relevance by ``measure`` of every image of the pool to one query (-1 for the query itself), for counting
    ties."""
    concepts = evaluator.concepts
    row = concepts.index[query_id]
    size = len(concepts)
    values = np.asarray(evaluator.engine.relevance_of_pairs_by(measure, np.full(size, row), np.arange(size)),
                        dtype=np.float64)
    values[row] = -1.0
    return values
