"""The Leaderboard's "Scored on the judgments": the systems scored on the judges' grades kept for the collection (the
Judging page's, exported as graded qrels, :func:`evalcore.app.judgments.judgments_qrels`) with trec_eval's measures
(``qrels-NDCG@K``, ``qrels-Prec@K``, ``qrels-MAP@K``, ``qrels-R@K``), beside Kendall's tau-b between the systems'
ranking by each and by its concept-relevance counterpart (:mod:`evalcore.evaluation.judged`): does the label-free
measure rank the systems as the judges do?"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evalcore.data import Run
from evalcore.evaluation.evaluator import AlignedRun, Evaluator
from evalcore.evaluation.judged import RankingAgreement, ranking_agreement
from evalcore.evaluation.options import Relevance, Scoring
from evalcore.evaluation.results import evaluate_runs
from evalcore.readers import read_qrels

#: The name the stored judgments are read under (as a qrels file).
JUDGED_SOURCE = "the stored judgments"


@dataclass(frozen=True)
class JudgedScores:
    """Each system's mean of each judged metric (``{system: {metric: mean}}``, NaN where no judged query scored it),
    the tau-b of each judged metric against its nn-IoU and IoU counterparts, and what they rest on: the judged pairs
    (one grade each, the mean over the judges) and the cases they belong to."""

    means: dict[str, dict[str, float]]
    metrics: tuple[str, ...]
    agreements: tuple[RankingAgreement, ...]
    pairs: int
    cases: int


def judged_scores(evaluator: Evaluator, runs: Sequence[Run | AlignedRun], qrels_text: str, relevance: Relevance,
                  ks: Sequence[int]) -> JudgedScores:
    """``runs`` scored on the graded qrels ``qrels_text`` at the cut-offs ``ks`` (trec_eval's report, each query
    without a judgment skipped), with each metric's ranking of the systems against its counterpart under nn-IoU (at
    ``relevance``'s setting, where ``evaluator`` has a knowledge graph) and under IoU, computed by ``evaluator``'s
    engine (its concept sets, graph and kept rankings).

    >>> from evalcore.data import ConceptSets
    >>> concepts = ConceptSets(("q", "x", "y"), (frozenset({"C1"}), frozenset({"C1"}), frozenset({"C2"})))
    >>> runs = [Run("good", {"q": ("x", "y")}), Run("bad", {"q": ("y", "x")})]
    >>> scores = judged_scores(Evaluator(concepts), runs, "q 0 x 2\\nq 0 y 0\\n", Relevance(), [2])
    >>> scores.metrics, scores.pairs, scores.cases, [(a.concept, a.tau) for a in scores.agreements][:1]
    (('qrels-NDCG@2', 'qrels-Prec@2', 'qrels-MAP@2', 'qrels-R@2'), 2, 1, [('CUI@2', 1.0)])
    """
    qrels = read_qrels(qrels_text.encode(), JUDGED_SOURCE)
    judged_evaluator = Evaluator(evaluator.concepts, evaluator.kg, evaluator.mode, engine=evaluator.engine,
                                 qrels=qrels)
    judged = evaluate_runs(judged_evaluator, runs, Scoring(k=tuple(ks)), relevance)
    keys = ("nn-iou", "iou") if evaluator.kg is not None else ("iou",)
    agreements = tuple(agreement for key in keys
                       for agreement in ranking_agreement(judged_evaluator, runs, judged, relevance, key))
    lines = [line.split() for line in qrels_text.splitlines() if line.strip()]
    return JudgedScores(judged.means(), tuple(judged.metrics), agreements, len(lines),
                        len({line[0] for line in lines}))
