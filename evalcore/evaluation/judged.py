"""Does a label-free measure rank the systems as the judges do? (``evaluate --qrels F --concepts F``, the
Leaderboard's "Scored on the judgments".)

Each metric read on judged grades (``qrels-NDCG@10``, ``qrels-MAP@10``, ...: trec_eval's measures) is paired with its
concept-relevance counterpart, the same family and cut-off under IoU or nn-IoU
(:func:`evalcore.metrics.registry.concept_counterpart`: ``CUI@10``, ``MAP@10``, ...), and the two rankings of the
systems by their means are compared by Kendall's tau-b (:func:`evalcore.stats.agreement.ranking_tau`): 1 where the
concept measure orders the systems exactly as the judges' grades do.

>>> from evalcore.data import ConceptSets, Run
>>> from evalcore.evaluation.evaluator import Evaluator
>>> from evalcore.readers import read_qrels
>>> concepts = ConceptSets(("q", "x", "y"), (frozenset({"C1"}), frozenset({"C1"}), frozenset({"C2"})))
>>> qrels = read_qrels(b"q 0 x 2\\nq 0 y 0\\n", "judgments.qrels")
>>> evaluator = Evaluator(concepts, qrels=qrels)
>>> runs = [Run("good", {"q": ("x", "y")}), Run("bad", {"q": ("y", "x")})]
>>> judged = evaluate_runs(evaluator, runs, Scoring(["qrels-NDCG@2"]))
>>> [(a.judged, a.concept, a.tau, a.systems) for a in ranking_agreement(evaluator, runs, judged)]
[('qrels-NDCG@2', 'CUI@2', 1.0, 2)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalcore.data import Run
from evalcore.evaluation.evaluator import AlignedRun, Evaluator
from evalcore.evaluation.options import Relevance, Scoring
from evalcore.evaluation.results import Results, evaluate_runs
from evalcore.metrics.registry import concept_counterpart
from evalcore.stats.agreement import ranking_tau


@dataclass(frozen=True)
class RankingAgreement:
    """Kendall's tau-b between the systems' ranking by the judged metric ``judged`` and by its concept counterpart
    ``concept`` (NaN where fewer than two systems score both), over ``systems`` systems."""

    judged: str
    concept: str
    tau: float
    systems: int

    def to_dict(self) -> dict:
        return {"judged": self.judged, "concept": self.concept,
                "kendall_tau_b": self.tau if self.tau == self.tau else None, "systems": self.systems}


def agreement_of_means(judged: dict[str, dict[str, float]], concept: dict[str, dict[str, float]],
                       pairs: dict[str, str]) -> tuple[RankingAgreement, ...]:
    """The tau-b of each ``{judged metric: concept metric}`` pair between the systems' means ``{system: {metric:
    mean}}`` of the two evaluations."""
    found = []
    for judged_name, concept_name in pairs.items():
        first = {system: values[judged_name] for system, values in judged.items() if judged_name in values}
        second = {system: values[concept_name] for system, values in concept.items() if concept_name in values}
        tau = ranking_tau(first, second)
        found.append(RankingAgreement(judged_name, concept_name, tau, len(first.keys() & second.keys())))
    return tuple(found)


def ranking_agreement(evaluator: Evaluator, runs: Sequence[Run | AlignedRun], judged: Results,
                      relevance: Relevance | None = None, key: str = "iou") -> tuple[RankingAgreement, ...]:
    """For each metric of ``judged`` (an evaluation of ``runs`` on judged grades) that reads the grades, the tau-b
    between the systems' ranking by it and by its counterpart under the concept relevance ``key`` ("iou",
    "nn-iou"), which ``evaluator`` (holding the concept sets beside the judgments) computes on the same runs."""
    pairs = {name: counterpart for name in judged.metrics
             if (counterpart := concept_counterpart(name, key)) is not None}
    if not pairs:
        return ()
    concept = evaluate_runs(evaluator, runs, Scoring(tuple(pairs.values())), relevance)
    return agreement_of_means(judged.means(), concept.means(), pairs)
