"""Which image pairs judges grade, in which order, and why: a seeded pair design that can tell relevance measures
apart, and where each judge stands in it.

A design (:func:`pair_design`) draws ``size`` judgments' worth of (case, candidate) pairs from a collection, with
two relevance measures as its axes (the page gives IoU and nn-IoU at the default setting):

- **strata**: the candidate pairs related by either measure, binned into a 4 x 4 grid of the two measures' values
  (quarters of 0..1, :data:`BIN_EDGES`), drawn evenly over the non-empty cells (a cell with too few pairs gives its
  share to the others), each pair within a cell weighted toward the pairs the two measures rank furthest apart:
  weight ``1 + 3 * |rank by one - rank by the other| / depth`` (a pair past a ranking's depth ranks at the depth),
  by Efraimidis and Spirakis's weighted sampling without replacement (2006);
- **zero**: :data:`ZERO_SHARE` of the pairs related by neither measure, uniformly;
- **top**: :data:`TOP_SHARE` of the pairs, the top :data:`TOP_K` of every system given (loaded runs, the relevance
  baselines) for cases drawn one after another, whole cases only;
- **repeat**: :data:`REPEAT_SHARE` of the pairs shown a second time, at least :data:`REPEAT_GAP` pairs after the
  first, to measure each judge's consistency.

The candidate pairs are not all pairs of the pool (a collection of 10,000 images has 10^8): for up to
:data:`SAMPLED_CASES` cases drawn at random, their top ``depth`` by each measure's ranking of the whole pool (the
rankings the Leaderboard's relevance baselines compute) and :data:`RANDOM_CANDIDATES` images drawn at random; their
values come from the engine (:meth:`~evalcore.engine.pairwise.PairwiseEngine.relevance_of_pairs_by`), in one
vectorised call per measure. Every draw comes from one generator seeded by the digest of (``key``, seed, size, top
K), where ``key`` is the content digest of what the design reads: the same inputs, seed and size give the same design
on every machine, in every session. The pairs are shown in a random order, so that neither a system nor a measure
can be read from it.

A judge's place in a design (:meth:`PairDesign.progress`) is read from the judge's stored judgments, whatever their
order: an item is done when the judge has judged (or skipped) its pair at least as many times as the item is that
pair's occurrence, and the judge is at the first item not done.

>>> from evalcore.data import ConceptSets
>>> from evalcore.evaluation.evaluator import Evaluator
>>> from evalcore.relevance.measures import measure_spec
>>> sets = ConceptSets(tuple(f"img{i}" for i in range(12)),
...                    tuple(frozenset({f"C{i % 3}", f"C{i % 4 + 3}"}) for i in range(12)))
>>> evaluator = Evaluator(sets)
>>> axes = [(m, evaluator.relevance_ranking(m, 5)) for m in (measure_spec("iou"), measure_spec("dice"))]
>>> design = pair_design(evaluator, axes, {}, key="0" * 64, seed=7, size=20)
>>> len(design), design.counts()["repeat"], design == pair_design(evaluator, axes, {}, key="0" * 64, seed=7, size=20)
(20, 2, True)
>>> first = design.items[0]
>>> design.progress([]), design.progress([(first.case, first.candidate)])
((0, 0), (1, 1))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from evalcore.cache_keys import content_digest
from evalcore.data import ConceptSets
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import AlignedRun, Evaluator
from evalcore.relevance.measures import MeasureSpec

if TYPE_CHECKING:  # the class only: the image readers it imports are not needed to draw a design
    from evalcore.app.workspace import Workspace

#: The number of pairs a design asks for by default, and the most it may ask for.
DEFAULT_DESIGN_SIZE = 200
MAX_DESIGN_SIZE = 5000
DEFAULT_SEED = 1
#: Shares of a design: pairs shown twice (of all), pairs of the systems' top lists and unrelated pairs (of the rest).
REPEAT_SHARE = 0.10
TOP_SHARE = 0.25
ZERO_SHARE = 0.10
#: How many of each system's first results a "top" case contributes.
TOP_K = 3
#: The inner edges of the bins of each measure's values (4 bins: quarters of 0..1, the first holding 0).
BIN_EDGES = (0.25, 0.5, 0.75)
BINS = len(BIN_EDGES) + 1
#: The most cases whose candidates are read, and the random images added to each case's candidates.
SAMPLED_CASES = 1000
RANDOM_CANDIDATES = 8
#: A pair the two measures rank furthest apart is drawn up to 1 + this many times as often as one they agree on.
DISAGREEMENT_WEIGHT = 3.0
#: The fewest pairs between a pair and its repeat (fewer in a short design: a quarter of its pairs).
REPEAT_GAP = 10
PARTS = ("stratum", "zero", "top", "repeat")


@dataclass(frozen=True)
class DesignItem:
    """One pair to judge: the case and the candidate image, the part of the design it was drawn for
    (:data:`PARTS`), its occurrence (2 for a repeat) and, for a stratum's pair, its cell (bin of the first measure,
    bin of the second)."""

    case: str
    candidate: str
    part: str
    occurrence: int = 1
    cell: tuple[int, int] | None = None


@dataclass(frozen=True)
class PairDesign:
    """A design: its items in the order shown, the seed and size asked for, the two measures (as its sentence names them), the
    systems whose top lists it holds, K, the non-empty cells its strata were drawn from, and the sentence that
    states it (:attr:`description`)."""

    items: tuple[DesignItem, ...]
    seed: int
    size: int
    measures: tuple[str, str]
    systems: tuple[str, ...]
    top_k: int
    cells: int
    description: str

    def __len__(self) -> int:
        return len(self.items)

    def counts(self) -> dict[str, int]:
        """How many items each part holds (:data:`PARTS`)."""
        found = Counter(item.part for item in self.items)
        return {part: found[part] for part in PARTS}

    def progress(self, judged: Iterable[tuple[str, str]]) -> tuple[int, int]:
        """(items done, index of the first item not done: ``len(self)`` when all are) for a judge who judged (or
        skipped) the pairs ``judged`` (case, candidate), once per judgment, in any order."""
        times = Counter(judged)
        done = [times[(item.case, item.candidate)] >= item.occurrence for item in self.items]
        return sum(done), next((position for position, finished in enumerate(done) if not finished), len(done))


@dataclass(frozen=True)
class CandidatePairs:
    """The pairs a design's strata and unrelated pairs are drawn from, as rows of the concept sets: each pair's
    case and candidate, the two measures' values (2 x pairs) and how far apart the two rank it (0..1)."""

    cases: np.ndarray
    candidates: np.ndarray
    values: np.ndarray
    disagreement: np.ndarray


def judged_collection(workspace: Workspace) -> str:
    """The key judgments of ``workspace``'s collection are kept under: the content digest of what a judge sees and
    judges, the images' IDs (of the concept sets), their image files and their captions. Loading a run, a knowledge
    graph or other concept sets for the same images keeps the judgments; other images or captions are another
    collection."""
    ids = () if workspace.concepts is None else workspace.concepts.ids
    return content_digest(("judged collection", ids, workspace.digests["images"], workspace.digests["image_folder"],
                           workspace.digests["captions"]))


def checked_design_size(size: object) -> int:
    """``size`` where it is a whole number of pairs from 1 to :data:`MAX_DESIGN_SIZE`, else a ParameterError."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= MAX_DESIGN_SIZE:
        raise ParameterError(f"size: expected a whole number of pairs from 1 to {MAX_DESIGN_SIZE:,}, found {size!r}")
    return int(size)


def pair_design(evaluator: Evaluator, axes: Sequence[tuple[MeasureSpec, AlignedRun]],
                systems: Mapping[str, Mapping[str, Sequence[str]]], *, key: str, seed: int = DEFAULT_SEED,
                size: int = DEFAULT_DESIGN_SIZE, top_k: int = TOP_K) -> PairDesign:
    """The design of ``size`` judgments (see the module) over the evaluator's concept sets: ``axes`` the two measures
    with their rankings of the whole pool (:meth:`Evaluator.relevance_ranking`), ``systems`` each system's ranked
    lists by case ID (a run's rankings, a baseline's :class:`~evalcore.app.baselines.PoolRanking`), ``key`` the
    content digest of the inputs read, ``seed`` any whole number from 0."""
    size = checked_design_size(size)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ParameterError(f"seed: expected a whole number from 0, found {seed!r}")
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= 100:
        raise ParameterError(f"top_k: expected a whole number from 1 to 100, found {top_k!r}")
    if len(axes) != 2:
        raise ParameterError(f"axes: expected two measures with their rankings, found {len(axes)}")
    concepts = evaluator.concepts
    rng = np.random.default_rng(int(content_digest(("pair design", key, int(seed), size, top_k))[:16], 16))
    unique = size - round(size * REPEAT_SHARE)
    top, top_cases = _top_pairs(concepts, systems, rng, round(unique * TOP_SHARE), top_k)
    pool = _candidate_pairs(evaluator, axes, rng)
    n = max(1, len(concepts))
    free = ~np.isin(pool.cases * n + pool.candidates, [case * n + candidate for case, candidate in top])
    related = (pool.values > 0).any(axis=0)
    cells = np.clip(np.digitize(pool.values, BIN_EDGES, right=True), 0, BINS - 1)
    cell_of = cells[0] * BINS + cells[1]
    priority = np.log(1.0 - rng.random(len(free))) / (1.0 + DISAGREEMENT_WEIGHT * pool.disagreement)
    wanted = unique - len(top)
    strata = _stratified(cell_of, priority, free & related, wanted - round(unique * ZERO_SHARE), rng)
    free[strata] = False
    zero_pool = np.flatnonzero(free & ~related)
    zeros = rng.choice(zero_pool, max(0, min(len(zero_pool), wanted - len(strata))), replace=False)
    free[zeros] = False
    more = _stratified(cell_of, priority, free & related, wanted - len(strata) - len(zeros), rng)
    strata = np.concatenate([strata, more]).astype(np.int64)
    ids = concepts.ids
    items = [DesignItem(ids[case], ids[candidate], "top") for case, candidate in top]
    items += [DesignItem(ids[pool.cases[i]], ids[pool.candidates[i]], "stratum",
                         cell=(int(cells[0][i]), int(cells[1][i]))) for i in strata]
    items += [DesignItem(ids[pool.cases[i]], ids[pool.candidates[i]], "zero") for i in zeros]
    repeats = min(size - len(items), round(len(items) * REPEAT_SHARE / (1 - REPEAT_SHARE)))
    ordered, gap = _ordered(items, repeats, rng)
    design = PairDesign(tuple(ordered), int(seed), size, (_shown(axes[0][0]), _shown(axes[1][0])), tuple(sorted(systems)),
                        top_k, len(set(cell_of[strata].tolist())), "")
    return replace(design, description=_description(design, top_cases, gap))


def _top_pairs(concepts: ConceptSets, systems: Mapping[str, Mapping[str, Sequence[str]]], rng: np.random.Generator,
               budget: int, top_k: int) -> tuple[list[tuple[int, int]], int]:
    """The pairs of the systems' top ``top_k`` (images of the collection other than the case) for cases in a random
    order, whole cases only, until ``budget`` pairs; and how many cases they come from."""
    chosen: list[tuple[int, int]] = []
    cases = 0
    if budget <= 0 or not systems or len(concepts) < 2:
        return chosen, cases
    index, ids, names = concepts.index, concepts.ids, sorted(systems)
    for row in rng.permutation(len(concepts)).tolist():
        new: list[tuple[int, int]] = []
        for name in names:
            listed = systems[name].get(ids[row])
            found = [] if listed is None else [index.get(image) for image in tuple(listed[:top_k + 1])]
            for candidate in [c for c in found if c is not None and c != row][:top_k]:
                if (row, candidate) not in new and (row, candidate) not in chosen:
                    new.append((row, candidate))
        if not new:
            continue
        if len(chosen) + len(new) > budget:
            if chosen:
                break
            new = new[:budget]
        chosen += new
        cases += 1
        if len(chosen) >= budget:
            break
    return chosen, cases


def _candidate_pairs(evaluator: Evaluator, axes: Sequence[tuple[MeasureSpec, AlignedRun]],
                     rng: np.random.Generator) -> CandidatePairs:
    """The candidate pairs (see the module) with both measures' values and how far apart the two rank each."""
    n = len(evaluator.concepts)
    if n < 2:
        empty = np.zeros(0, dtype=np.int64)
        return CandidatePairs(empty, empty, np.zeros((2, 0)), np.zeros(0))
    cases = np.sort(rng.permutation(n)[:SAMPLED_CASES]).astype(np.int64)
    codes, listed = [], []
    for _, ranking in axes:
        row_of = np.full(n, -1, dtype=np.int64)
        row_of[ranking.query_rows] = np.arange(len(ranking.query_rows))
        have = cases[row_of[cases] >= 0]
        documents = np.asarray(ranking.documents[row_of[have]], dtype=np.int64)
        depth = documents.shape[1] if documents.ndim == 2 else 0
        case_of = np.repeat(have, depth)
        position = np.tile(np.arange(depth), len(have))
        flat = documents.ravel()
        valid = (flat >= 0) & (flat != case_of)
        code = case_of[valid] * n + flat[valid]
        order = np.argsort(code, kind="stable")
        listed.append((code[order], position[valid][order], max(1, depth)))
        codes.append(code)
    random_cases = np.repeat(cases, RANDOM_CANDIDATES)
    random_candidates = rng.integers(0, n - 1, len(random_cases))
    random_candidates += random_candidates >= random_cases  # never the case itself
    codes.append(random_cases * n + random_candidates)
    unique = np.unique(np.concatenate(codes))
    query_rows, candidate_rows = unique // n, unique % n
    values = np.vstack([np.asarray(evaluator.engine.relevance_of_pairs_by(spec, query_rows, candidate_rows),
                                   dtype=np.float64) for spec, _ in axes])
    depth = max(depth for _, _, depth in listed)
    ranks = []
    for code, position, _ in listed:
        rank = np.full(len(unique), depth, dtype=np.int64)
        at = np.minimum(np.searchsorted(code, unique), max(0, len(code) - 1))
        hit = (code[at] == unique) if len(code) else np.zeros(len(unique), dtype=bool)
        rank[hit] = position[at[hit]]
        ranks.append(rank)
    return CandidatePairs(query_rows, candidate_rows, values, np.abs(ranks[0] - ranks[1]) / depth)


def _stratified(cell_of: np.ndarray, priority: np.ndarray, allowed: np.ndarray, budget: int,
                rng: np.random.Generator) -> np.ndarray:
    """Indices of up to ``budget`` allowed pairs spread evenly over their cells (a cell with too few gives its share
    to the others; the last pairs to the cells a random order puts first), each cell's by highest ``priority``."""
    if budget <= 0:
        return np.zeros(0, dtype=np.int64)
    by_cell = {int(cell): members[np.argsort(-priority[members], kind="stable")]
               for cell in np.unique(cell_of[allowed])
               for members in [np.flatnonzero(allowed & (cell_of == cell))]}
    taken = dict.fromkeys(by_cell, 0)
    left = budget
    while left > 0:
        open_cells = [cell for cell in by_cell if taken[cell] < len(by_cell[cell])]
        if not open_cells:
            break
        share = left // len(open_cells)
        if share == 0:
            open_cells = [open_cells[i] for i in rng.permutation(len(open_cells))][:left]
        for cell in open_cells:
            give = min(max(share, 1), len(by_cell[cell]) - taken[cell], left)
            taken[cell] += give
            left -= give
    return np.concatenate([by_cell[cell][:count] for cell, count in taken.items()] or [np.zeros(0, dtype=np.int64)]
                          ).astype(np.int64)


def _ordered(items: list[DesignItem], repeats: int, rng: np.random.Generator) -> tuple[list[DesignItem], int]:
    """The items in a random order with ``repeats`` of them shown again, each at least the gap after its first
    showing (:data:`REPEAT_GAP`, or a quarter of the items in a short design); and that gap."""
    shuffled = [items[i] for i in rng.permutation(len(items))]
    count = len(shuffled)
    gap = min(REPEAT_GAP, max(1, count // 4))
    repeats = max(0, min(repeats, count))
    eligible = np.arange(count - gap) if count - gap >= repeats else np.arange(count)
    chosen = np.sort(rng.choice(eligible, repeats, replace=False)) if repeats else np.zeros(0, dtype=np.int64)
    places = [float(i) for i in range(count)]
    shown = list(shuffled)
    for first in chosen.tolist():
        low = first + gap
        places.append(low + rng.random() * (count - low) if low < count else count + rng.random())
        item = shuffled[first]
        shown.append(DesignItem(item.case, item.candidate, "repeat", 2, item.cell))
    order = np.argsort(np.asarray(places), kind="stable")
    return [shown[i] for i in order], gap


def _shown(measure: MeasureSpec) -> str:
    """A measure as the design's sentence names it: its title and parameters (``nn-IoU (alpha=0.5, n=1)``)."""
    parameters = ", ".join(f"{name}={value:g}" for name, value in measure.parameters)
    return f"{measure.measure.title} ({parameters})" if parameters else measure.measure.title


def _description(design: PairDesign, top_cases: int, gap: int) -> str:
    """The sentence that states a design."""
    counts = design.counts()
    first, second = design.measures
    text = (f"{len(design)} pairs, seed {design.seed}: {counts['stratum']} drawn evenly over the {design.cells} "
            f"non-empty cells of a 4 x 4 grid of {first} by {second} (quarters of 0 to 1) among pairs related by "
            f"either, weighted up to {1 + DISAGREEMENT_WEIGHT:g} times toward the pairs the two rank furthest apart; "
            f"{counts['zero']} related by neither; the top {design.top_k} of each of {len(design.systems)} systems "
            f"for {top_cases} cases ({counts['top']} pairs); and {counts['repeat']} shown again, at least {gap} pairs "
            "later, to measure each judge's consistency.")
    if len(design) < design.size:
        text += f" The collection offers fewer pairs than the {design.size} asked for."
    return text
