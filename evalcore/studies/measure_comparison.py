"""Evidence for choosing a relevance measure on a loaded dataset (the "Choose a relevance measure" page and
``scripts/compare_measures.py``).

For each measure, over a set of systems scored by NDCG@K under that measure:

- discriminative power as achieved-significance-level (ASL) curves (Sakai 2006, "Evaluating evaluation metrics
  based on the bootstrap", SIGIR'06): the share of system pairs whose paired randomization-test p-value (not
  corrected) lies below each level of a grid, on all queries and averaged over random subsets of a few queries
  (with thousands of queries nearly every pair differs; 50-100 topics is a test collection's size); and, as
  before, the share below 0.05 after Holm's correction over the pairs; and, pair by pair, which pairs each measure
  tells apart (:attr:`MeasureComparison.pairs`);
- stability: the swap rate across disjoint query sets (Voorhees & Buckley 2002, "The effect of topic set size on
  retrieval experiment error", SIGIR'02): of the pairs that both sets order, the share ordered differently;
- Kendall's tau between the systems' order under the measure and under IoU;
- ties at rank K: queries whose K-th and (K+1)-th best candidates are equally relevant, so the tie rule (file
  order) decides what enters the top K; and Table-1 precision of retrieval by the measure.

The systems judged: the runs given, less the *circular* ones, plus copies of a good one degraded by a known amount
(:func:`degraded_rankings`), so that there are pairs close enough for the measures to differ on. A system that is
the ideal ranking under a compared measure (retrieval by IoU under IoU: NDCG 1 on every query) wins under that
measure by construction: it is listed in :attr:`MeasureComparison.left_out` and judged under no measure, so that
every measure is judged on the same systems.

Pairs of identical systems (the same per-query values under a measure, or the same top-K lists) cannot be told
apart by any test: they are listed in :attr:`MeasureComparison.identical` and left out of every pair count of the
measures under which they are identical (counting them would lower the discriminative power for nothing).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from itertools import combinations

import numpy as np
import pandas as pd

from evalcore.data import ConceptSets, Run
from evalcore.engine import PairwiseEngine
from evalcore.errors import ParameterError, joined
from evalcore.evaluation.evaluator import PADDING, AlignedRun, Evaluator, align_run
from evalcore.evaluation.options import Relevance, Statistics
from evalcore.evaluation.retrieval import retrieve_by_measure
from evalcore.io.tables import SCORE_DECIMALS
from evalcore.kept import Kept
from evalcore.metrics.ties import in_tie_order
from evalcore.relevance.measures import MeasureSpec, default_measures, measure_spec, metric_tag
from evalcore.stats.compare import holm, kendall_tau, randomization_tests
from evalcore.threads import blas_single_thread

TABLE1_KS = (5, 10, 30)
TARGETS = ("modality", "organ", "modality+organ")
SIGNIFICANCE_LEVEL = 0.05
REFERENCE = "iou"
SUBSAMPLE = 100
SUBSAMPLE_REPEATS = 20
SWAP_SPLITS = 50
#: Smaller query samples drawn for the ASL curves besides ``subsample`` (where 100 queries still tell nearly
#: every pair apart, 30 separate the measures).
SMALLER_SAMPLES = (30,)
#: The significance levels of the ASL curves (Sakai 2006 reads discriminative power at 0.05 off such a curve).
ASL_LEVELS = (0.001, 0.005, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10)
ALL_QUERIES = "all queries"
#: Mean differences this close to 0 are ties made of rounding, not orders.
ROUNDING = 1e-12
#: A lead in the share of pairs apart smaller than this is worded "slightly more" by :func:`verdict`.
CLEAR_MARGIN = 0.05
TIE_RANK = 5
#: The shares of a good ranking's top K swapped for random images in the degraded copies judged beside the runs:
#: half a position of ten more at each step, so that neighbouring copies are close enough for the measures to differ
#: on a few queries.
DEGRADATION_LEVELS = (0.05, 0.1, 0.15, 0.2, 0.25)
DEGRADATION_SEED = 0
#: A system scoring NDCG this close to 1 on every query under a measure is that measure's own ideal ranking.
IDEAL_ROUNDING = 1e-9
#: The miss rate of the simulated concept detector degraded when no run given is neutral.
FALLBACK_MISS = 0.3
#: A ranking pass's share of the progress bar, in units of scoring (or testing) the systems under one measure: on
#: ROCOv2 test (2 cores) a pass took 0.1-3.0 s (1.8 s on average), scoring and testing under a measure 0.2-0.6 s.
PASS_STEPS = 8
#: The pair's share of query samples (or, without samples, 1 or 0 on all queries) with p below the level.
APART = "share apart"


def comparison_measures(chosen: MeasureSpec) -> list[str]:
    """The canonical texts of every registry measure at its defaults, and of ``chosen`` where its parameters differ.

    >>> comparison_measures(measure_spec("tversky", a=0.8))[-1], "tversky(a=0.8,b=0.3)" in comparison_measures(measure_spec("iou"))
    ('tversky(a=0.8,b=0.3)', False)
    """
    names = [spec.name for spec in default_measures()]
    return names + ([chosen.name] if chosen.name not in names else [])


def sampled_power_column(subsample: int) -> str:
    """The table's column of Sakai's discriminative power at 0.05 on ``subsample``-query samples."""
    return f"pairs apart at p < {SIGNIFICANCE_LEVEL:g}, {subsample} queries"


SWAP_RATE = "swap rate"
ALL_POWER = f"pairs apart at p < {SIGNIFICANCE_LEVEL:g}, all queries"
PAIRS_JUDGED = "pairs judged"
PAIR_COLUMNS = ["measure", "system A", "system B", "A - B", "p, all queries", APART]
RESAMPLE_COLUMNS = ["measure", "criterion", "resample", "value"]


@dataclass(frozen=True)
class MeasureComparison:
    """``table``: one row per measure, the deciding columns first; ``precision``: long Table-1 values (%, shown
    0-1 by :func:`evalcore.io.tables.score_table`); ``means``: systems x measures; ``metric``: the NDCG judged;
    ``systems``: the systems judged; ``queries``: the pool's size; ``asl``: long ASL curves (measure, queries,
    level, share of pairs with p below the level); ``identical``: the pairs of identical systems (system A, system
    B, why), left out of the pair counts; ``subsample``: the size of the query samples (0: none drawn);
    ``pairs``: one row per measure and pair judged (the mean difference A - B on all queries, its p-value, and
    :data:`APART`); ``left_out``: the systems given but judged under no measure (system, why); ``degraded_from``:
    the system whose degraded copies are judged ("" for none) and ``levels`` their shares swapped; ``seconds``:
    how long the comparison took; ``resamples``: the power on each query sample and the swap rate on each split
    (measure, criterion, resample, value), which :func:`verdict` reads for the noise of a lead."""

    table: pd.DataFrame
    precision: pd.DataFrame
    means: pd.DataFrame
    metric: str
    systems: tuple[str, ...]
    queries: int
    asl: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["measure", "queries", "level", "share"]))
    identical: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["system A", "system B", "identical"]))
    subsample: int = 0
    pairs: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=PAIR_COLUMNS))
    left_out: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["system", "left out"]))
    degraded_from: str = ""
    levels: tuple[float, ...] = ()
    seconds: float = float("nan")
    resamples: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=RESAMPLE_COLUMNS))


def ndcg_metric(measure: MeasureSpec, k: int) -> str:
    """The NDCG@k metric name under ``measure``: ``CUI@k``, ``nn-CUI@k`` or ``CUI@k{key}``.

    >>> ndcg_metric(measure_spec("iou"), 10), ndcg_metric(measure_spec("nn-iou"), 10), ndcg_metric(measure_spec("dice"), 5)
    ('CUI@10', 'nn-CUI@10', 'CUI@5{dice}')
    """
    tag = metric_tag(measure)
    return f"nn-CUI@{k}" if tag == "nn-" else f"CUI@{k}{tag}"


def ranking_name(measure: MeasureSpec) -> str:
    return f"Retrieval by {measure.name}"


def engine_path(engine: PairwiseEngine, measure: MeasureSpec) -> dict[str, object]:
    """How the engine computes a measure: its packed digits, code size and key path."""
    coding = engine.coding(measure)
    return {"digits": ", ".join(name for name, _ in coding.layout.digits), "codes": f"{coding.layout.size:,}",
            "code bytes": np.dtype(coding.code_dtype).itemsize,
            "keys": "look-up table" if coding.lookup else "hashed per block"}


# --- the evidence, one measure's per-query values at a time ---------------------------------------------------

def asl_curve(p_values: Sequence[float], levels: Sequence[float] = ASL_LEVELS) -> list[float]:
    """Sakai's discriminative power at each level: the share of the pairs' achieved significance levels
    (p-values) strictly below it (Sakai 2006, SIGIR'06, sec. 4); NaN without pairs.

    >>> asl_curve([0.004, 0.03, 0.2], levels=(0.001, 0.01, 0.05))
    [0.0, 0.3333333333333333, 0.6666666666666666]
    """
    p = np.asarray(p_values, dtype=np.float64)
    return [float((p < level).mean()) if len(p) else float("nan") for level in levels]


def identical_pairs(values: np.ndarray, names: Sequence[str]) -> list[tuple[str, str]]:
    """The pairs of columns of a queries x systems matrix holding the same value on every query (NaN = NaN).

    >>> identical_pairs(np.array([[0.5, 0.5, 0.1], [np.nan, np.nan, 0.2]]), ["a", "b", "c"])
    [('a', 'b')]
    """
    return [(names[a], names[b]) for a, b in combinations(range(values.shape[1]), 2)
            if np.array_equal(values[:, a], values[:, b], equal_nan=True)]


@dataclass(frozen=True)
class SwapCount:
    """Of the (split, pair) cases that both query sets order (``decided``), how many they order differently;
    ``by_split``: (swaps, decided) of each split, for the noise of the rate."""

    swaps: int
    decided: int
    by_split: tuple[tuple[int, int], ...] = field(default=(), compare=False, repr=False)

    @property
    def rate(self) -> float:
        return self.swaps / self.decided if self.decided else float("nan")

    def split_rates(self) -> np.ndarray:
        """The swap rate of each split (NaN where it decides no pair)."""
        counts = np.array(self.by_split, dtype=np.float64).reshape(-1, 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts[:, 1] > 0, counts[:, 0] / counts[:, 1], np.nan)


def swap_splits(queries: int, half: int, splits: int, seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``splits`` pairs of disjoint random query sets of ``half`` rows each (seeded; a permutation per split)."""
    rng = np.random.default_rng(seed)
    orders = [rng.permutation(queries) for _ in range(splits)]
    return [(np.sort(order[:half]), np.sort(order[half:2 * half])) for order in orders]


def swap_count(values: np.ndarray, pairs: Sequence[tuple[int, int]], splits: Sequence[tuple[np.ndarray, np.ndarray]],
               min_difference: float = 0.0) -> SwapCount:
    """Voorhees & Buckley's (2002) swaps: for each split of the queries into sets A and B and each pair of systems
    (columns of the queries x systems ``values``; NaN = undefined, a pair's mean over the queries both define), the
    pair is decided when its mean difference exceeds ``min_difference`` (at least :data:`ROUNDING`) in absolute
    value on both sets, and swapped when the two differences have opposite signs.

    >>> values = np.array([[0.9, 0.1], [0.2, 0.4], [0.8, 0.3], [0.1, 0.6]])  # differences 0.8, -0.2, 0.5, -0.5
    >>> split = [(np.array([0, 1]), np.array([2, 3])), (np.array([0, 2]), np.array([1, 3]))]
    >>> swap_count(values, [(0, 1)], split)  # means 0.3 / 0.0 (undecided), then 0.65 / -0.35 (swapped)
    SwapCount(swaps=1, decided=1)
    """
    if not pairs or not splits:
        return SwapCount(0, 0)
    first, second = (np.array(side) for side in zip(*pairs))
    differences = values[:, first] - values[:, second]
    defined = np.isfinite(differences)
    filled = np.where(defined, differences, 0.0)
    sides = []
    for half in (0, 1):
        members = np.zeros((len(splits), len(values)))
        for row, split in enumerate(splits):
            members[row, split[half]] = 1.0
        # One BLAS thread: the sums then do not depend on the machine's core count (see compare.bootstrap_cis).
        with blas_single_thread(), np.errstate(invalid="ignore", divide="ignore"):
            sides.append((members @ filled) / (members @ defined))
    a, b = sides
    # A mean difference within rounding of 0 (sums of decimals that cancel) orders nothing; NaN compares False.
    above = max(min_difference, ROUNDING)
    decided = (np.abs(a) > above) & (np.abs(b) > above)
    swapped = decided & (np.sign(a) != np.sign(b))
    return SwapCount(int(swapped.sum()), int(decided.sum()),
                     tuple(zip(swapped.sum(axis=1).tolist(), decided.sum(axis=1).tolist())))


def clear_lead(ahead: Sequence[float], behind: Sequence[float]) -> bool:
    """Whether ``ahead`` leads ``behind`` beyond the noise of the resamples they were measured on (the same query
    samples, or the same splits, for both): the mean of the paired differences ``d = ahead - behind`` (NaN pairs
    dropped) exceeds twice its standard error, ``mean(d) > 2 sd(d) / sqrt(n)`` (a paired z-test, two-sided at about
    0.05); with one resample, a plain ``d > 0``.

    >>> clear_lead([0.9, 0.8, 0.9, 0.8], [0.5, 0.4, 0.5, 0.5]), clear_lead([0.9, 0.5, 0.9, 0.4], [0.5, 0.6, 0.6, 0.5])
    (True, False)
    >>> clear_lead([1.0, 1.0], [1.0, 1.0]), clear_lead([0.3], [0.2])
    (False, True)
    """
    d = np.asarray(ahead, dtype=np.float64) - np.asarray(behind, dtype=np.float64)
    d = d[np.isfinite(d)]
    if len(d) < 2:
        return bool(len(d) and d[0] > 0)
    return bool(d.mean() > 2 * d.std(ddof=1) / np.sqrt(len(d)))


def paired_p_values(values: np.ndarray, pairs: Sequence[tuple[int, int]], *, samples: int, draws) -> list[float]:
    """The randomization test's p-value (:func:`evalcore.stats.compare.randomization_tests`) of each pair of columns."""
    return randomization_tests([(values[:, a], values[:, b]) for a, b in pairs], samples=samples, draws=draws)


def sampled_p_values(values: np.ndarray, pairs: Sequence[tuple[int, int]], subsample: int, repeats: int, samples: int,
                     draws) -> dict[int, list[list[float]]]:
    """Each pair's randomization-test p-value on each query sample: for ``subsample`` and each smaller size of
    :data:`SMALLER_SAMPLES`, ``repeats`` samples (seeds 0, 1, ...), each a list of the pairs' p-values. One call
    tests every pair on every sample: samples of one size share the sign matrix (it depends only on the seed and
    the number of queries), which is then converted and read once per chunk rather than once per sample; each
    p-value is the one of the pair tested alone (:func:`randomization_tests`)."""
    sizes = (subsample, *(size for size in SMALLER_SAMPLES if size < subsample))
    drawn = [(size, sample_rows(len(values), size, seed)) for size in sizes for seed in range(repeats)]
    every = randomization_tests([(values[rows, a], values[rows, b]) for _, rows in drawn for a, b in pairs],
                                samples=samples, draws=draws)
    by_size: dict[int, list[list[float]]] = {size: [] for size in sizes}
    for position, (size, _) in enumerate(drawn):
        by_size[size].append(every[position * len(pairs):(position + 1) * len(pairs)])
    return by_size


@lru_cache(maxsize=4 * SUBSAMPLE_REPEATS)
def sample_rows(queries: int, subsample: int, seed: int) -> np.ndarray:
    """The rows of ``subsample`` of ``queries`` queries drawn at random (seeded), in order: the draw of
    ``rng.choice(query_ids, subsample, replace=False)`` (numpy draws the positions, then takes them), without a
    look-up per query. Drawn once per sample and shared read-only: every measure reads the same samples, and a
    draw without replacement permutes all the queries (0.3 s for 20 samples of ROCOv2 test under 7 measures)."""
    rows = np.sort(np.random.default_rng(seed).choice(queries, subsample, replace=False))
    rows.flags.writeable = False
    return rows


def same_list_pairs(systems: Sequence[Run | AlignedRun], concepts: ConceptSets, depth: int) -> list[tuple[str, str]]:
    """The pairs of systems returning the same top ``depth`` for every query (they agree under every measure)."""
    arrays = {}
    for system in systems:
        aligned = system if isinstance(system, AlignedRun) else align_run(system, concepts, depth)
        order = np.argsort(aligned.query_rows, kind="stable")
        documents = aligned.documents[order, :depth]
        if documents.shape[1] < depth:
            documents = np.pad(documents, ((0, 0), (0, depth - documents.shape[1])), constant_values=-1)
        arrays[system.name] = (aligned.query_rows[order], np.where(documents >= 0, documents, -1))
    return [(a, b) for a, b in combinations(arrays, 2)
            if np.array_equal(arrays[a][0], arrays[b][0]) and np.array_equal(arrays[a][1], arrays[b][1])]


# --- the systems judged ---------------------------------------------------------------------------------------

def ideal_systems(values: np.ndarray, names: Sequence[str]) -> list[str]:
    """The columns of a queries x systems NDCG matrix that are the ideal ranking under its measure: 1 (within
    :data:`IDEAL_ROUNDING`) on every query where defined, and defined somewhere. Judging such a system under that
    measure is circular: it wins by construction (NDCG = DCG / ideal DCG, Järvelin & Kekäläinen 2002).

    >>> ideal_systems(np.array([[1.0, 1.0, 0.5], [np.nan, 0.9, 1.0]]), ["own ranking", "b", "c"])
    ['own ranking']
    """
    defined = np.isfinite(values)
    ideal = np.where(defined, values >= 1.0 - IDEAL_ROUNDING, True).all(axis=0) & defined.any(axis=0)
    return [name for name, is_ideal in zip(names, ideal) if is_ideal]


def _outsiders(rng: np.random.Generator, documents: np.ndarray, query_rows: np.ndarray, pool: int) -> np.ndarray:
    """For each row of ``documents``, as many distinct pool rows drawn uniformly at random as it has columns, none
    of them the query or an item of its list (rejection: redrawn until none collides)."""
    rows, k = documents.shape
    if pool - 1 - k < k:
        raise ParameterError(f"a pool of {pool} images is too small to swap up to {k} of a top {k} for other images")
    before = np.tri(k, k, -1, dtype=bool)  # column j' < j: a draw equal to an earlier one in its row collides

    def draw(count: int, queries: np.ndarray) -> np.ndarray:
        drawn = rng.integers(0, pool - 1, size=count)
        return drawn + (drawn >= queries)  # pool - 1 values, never the query itself

    drawn = draw(rows * k, np.repeat(query_rows, k)).reshape(rows, k)
    while True:
        collides = (drawn[:, :, None] == documents[:, None, :]).any(axis=2)
        collides |= ((drawn[:, :, None] == drawn[:, None, :]) & before).any(axis=2)
        if not collides.any():
            return drawn
        at = np.nonzero(collides)
        drawn[at] = draw(len(at[0]), query_rows[at[0]])


def degraded_rankings(source: AlignedRun, pool: int, levels: Sequence[float] = DEGRADATION_LEVELS,
                      seed: int = DEGRADATION_SEED, k: int = 10) -> list[AlignedRun]:
    """Copies of a ranking made worse by a known amount: at level p, every filled position of every query's top
    ``k`` is swapped with probability p for an image drawn at random from the ``pool`` (never the query, an image
    of the list or another drawn one): a share p of the top ``k`` on average. Each level draws on its own
    generator, seeded by ``seed`` and the level, so a copy depends on nothing else.

    A random image is as relevant as the pool's average, so when the source's images are better than that, quality
    falls with p, by construction. Two close levels (0.05 apart) swap different positions for different images:
    on a query either may come out ahead, so their order, known on average, may not show on a few queries, which
    is where measures differ in discriminative power. Swapping in random documents to make systems of known order
    is this project's construction (issue 33), not a published protocol.

    >>> source = AlignedRun.over_pool("s", np.array([[1, 2, 3, 4], [0, 2, 3, -1]]))  # query 1 lists 3 images
    >>> copies = degraded_rankings(source, 20, (0.0, 0.5, 1.0), k=4)
    >>> [copy.name for copy in copies]
    ['s, 0 of top 4 random', 's, 0.5 of top 4 random', 's, 1 of top 4 random']
    >>> [(copy.documents != source.documents).sum(axis=1).tolist() for copy in copies]  # never the padding
    [[0, 0], [3, 1], [4, 3]]
    """
    documents = source.documents[:, :k]
    if documents.shape[1] < k:
        documents = np.pad(documents, ((0, 0), (0, k - documents.shape[1])), constant_values=PADDING)
    filled = documents != PADDING  # padding is never swapped: a short list stays as short
    copies = []
    for level in levels:
        if not 0 <= level <= 1:
            raise ParameterError(f"a share of the top {k} to swap must lie in [0, 1], got {level}")
        rng = np.random.default_rng([seed, round(level * 1_000_000)])
        swapped = filled & (rng.random(documents.shape) < level)
        drawn = _outsiders(rng, documents, source.query_rows, pool)
        copies.append(AlignedRun(f"{source.name}, {level:g} of top {k} random", source.query_rows,
                                 np.where(swapped, drawn, documents), dict(source.counts)))
    return copies


def top_lists(evaluator: Evaluator, systems: Sequence[Run | AlignedRun], k: int) -> list[AlignedRun]:
    """The systems as :meth:`Evaluator.evaluate` aligns them under the default options (ties in the readers' order,
    the query's own image dropped), cut to their top ``k``. NDCG@k reads nothing deeper (its ideal comes from the
    pool), so their NDCG@k is the systems' own, and scoring them codes k pairs per query where a depth-100 run
    codes 100.

    >>> from evalcore.data import ConceptSets
    >>> concepts = ConceptSets(("q", "a", "b"), (frozenset({"C1"}),) * 3, "three")
    >>> run = Run("r", {"q": ("q", "a", "b"), "a": ("b",)})
    >>> aligned = top_lists(Evaluator(concepts), [run], 1)[0]
    >>> aligned.name, aligned.documents.tolist()  # the query's own image dropped, then the top 1 kept
    ('r', [[1], [2]])
    """
    options = Relevance()
    return [replace(system, documents=system.documents[:, :k]) if isinstance(system, AlignedRun) else
            align_run(in_tie_order(system, options.ties), evaluator.concepts, k, options.query_image == "keep")
            for system in systems]


def _scores(evaluator: Evaluator, systems: Sequence[Run | AlignedRun], spec: MeasureSpec,
            metric: str) -> dict[str, pd.Series]:
    """Each system's per-query ``metric`` under ``spec`` (NaN: undefined), indexed by query ID."""
    if not systems:
        return {}
    evaluation = evaluator.evaluate(list(systems), [metric], Relevance.of(measure=spec))
    return {name: pd.Series(result.values[metric], index=list(result.query_ids), dtype=np.float64)
            for name, result in evaluation.systems.items()}


# --- the comparison --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Measured:
    """What one measure gives on its own, whatever else is compared: its pass's table row (ties at each K, seconds,
    the engine's path), its ranking of the pool (depth ``max(ks)``), its Table-1 precision rows (%) and each system
    given's per-query NDCG under it. Kept per measure (:class:`_Parts`): shared read-only."""

    row: dict[str, object]
    ranking: AlignedRun
    precision: list[dict]
    scores: dict[str, pd.Series]


def _measure(evaluator: Evaluator, spec: MeasureSpec, systems: Callable[[], Sequence[AlignedRun]], ks: Sequence[int],
             ndcg_k: int, report: Callable[[float, str], None]) -> _Measured:
    """:class:`_Measured` of ``spec``: one pass over the pool, then the ``systems()`` (:func:`top_lists`) scored;
    ``report(step, text)`` moves within the pass (step 0 to :data:`PASS_STEPS`), then says the scoring."""
    depth, threshold = max(ks), Relevance().threshold
    text = f"Ranking the pool by {spec.name}"
    report(0, text)
    started = time.perf_counter()
    # Through the evaluator, which keeps the pass's ideal summary: NDCG under the measure reads it below instead of
    # ranking the pool a second time.
    ranking = evaluator.relevance_ranking(spec, depth, depth + 1, threshold, name=ranking_name(spec),
                                          progress=lambda done: report(PASS_STEPS * done, text))
    summary = evaluator.pool_summary(spec, depth + 1, threshold)
    row: dict[str, object] = {"measure": spec.name}
    for k in ks:
        row[f"ties@{k}"] = int((summary.ideal[:, k - 1] == summary.ideal[:, k]).sum())
    row["ranking s"] = time.perf_counter() - started
    row.update(engine_path(evaluator.engine, spec))
    report(PASS_STEPS, f"Scoring the systems under {spec.name}")
    return _Measured(row, ranking, _table1(evaluator, spec.name, ranking, ks),
                     _scores(evaluator, systems(), spec, ndcg_metric(spec, ndcg_k)))


def _table1(evaluator: Evaluator, name: str, ranking: AlignedRun, ks: Sequence[int]) -> list[dict]:
    """Table 1's rows of measure ``name``: precision (%) of its ranking at each K on each label target loaded."""
    targets = [t for t in TARGETS if t in evaluator.label_targets()]
    if not targets:
        return []
    result = evaluator.evaluate([ranking], [f"P@{k}[{t}]" for t in targets for k in ks]).systems[ranking.name]
    rows = []
    for target in targets:
        for k in ks:
            values = result.values[f"P@{k}[{target}]"]
            defined = values[np.isfinite(values)]
            rows.append({"measure": name, "target": target, "k": k,
                         "value": 100 * float(defined.mean()) if len(defined) else float("nan"),
                         "queries": len(defined)})
    return rows


@dataclass(frozen=True)
class _Parts:
    """Where a comparison keeps its parts per measure (:class:`_Measured`, each measure's tests): in ``kept`` under
    keys that start with ``context``, so that comparing one more measure (the sidebar's at a new alpha) computes
    that measure's parts only; without a store, nothing is kept."""

    kept: Kept | None
    context: Hashable

    def get(self, key: tuple, compute: Callable[[], object]) -> object:
        """The part under ``key`` (after the context), computed once by ``compute``."""
        if self.kept is None:
            return compute()
        return self.kept.computed((self.context, *key), lambda _: compute())


def _matrix(scores: Mapping[str, pd.Series], names: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """The queries x systems matrix of ``scores`` over every query any of ``names`` defines (NaN elsewhere)."""
    frame = pd.concat([scores[name] for name in names], axis=1, keys=list(names)).sort_index()
    return [str(query) for query in frame.index], frame.to_numpy(dtype=np.float64)


@dataclass
class _Judged:
    """One measure's evidence over the systems judged."""

    row: dict[str, object]
    asl: list[dict]
    pairs: list[dict]
    identical: list[tuple[str, str]]
    sampled: bool
    resamples: list[dict]


def _judge(spec: MeasureSpec, query_ids: Sequence[str], values: np.ndarray, names: Sequence[str],
           same_lists: set[tuple[str, str]], *, samples: int, level: float, subsample: int, subsample_repeats: int,
           swap_repeats: int, draws) -> _Judged:
    """Discriminative power (ASL curves, Holm), pair by pair, and the swap rate of one measure's values."""
    same = set(identical_pairs(values, names)) | same_lists
    pairs = [(a, b) for a, b in combinations(range(len(names)), 2) if (names[a], names[b]) not in same]
    p_values = paired_p_values(values, pairs, samples=samples, draws=draws)
    significant = sum(p < level for p in holm(p_values)) if pairs else 0
    row: dict[str, object] = {PAIRS_JUDGED: len(pairs), "significant pairs": f"{significant}/{len(pairs)}",
                              "discriminative power": significant / len(pairs) if pairs else float("nan"),
                              ALL_POWER: asl_curve(p_values, (level,))[0]}
    asl = [{"measure": spec.name, "queries": ALL_QUERIES, "level": at, "share": share}
           for at, share in zip(ASL_LEVELS, asl_curve(p_values))]
    apart = np.array([p < level for p in p_values], dtype=np.float64)
    sampled = bool(pairs) and len(query_ids) > subsample
    if sampled:
        corrected, at_level, apart_in_samples = [], [], []
        for size, by_sample in sampled_p_values(values, pairs, subsample, subsample_repeats, samples, draws).items():
            for sample_p in by_sample if size == subsample else ():
                corrected.append(np.mean([p < level for p in holm(sample_p)]))
                at_level.append(asl_curve(sample_p, (level,))[0])
                apart_in_samples.append([p < level for p in sample_p])
            asl += [{"measure": spec.name, "queries": f"{size} queries", "level": at, "share": float(share)}
                    for at, share in zip(ASL_LEVELS, np.mean([asl_curve(p) for p in by_sample], axis=0))]
        row[f"discriminative power, {subsample} queries"] = float(np.mean(corrected))
        row[sampled_power_column(subsample)] = float(np.mean(at_level))
        apart = np.mean(apart_in_samples, axis=0)
    half = min(subsample, len(query_ids) // 2)
    swaps = swap_count(values, pairs, swap_splits(len(query_ids), half, swap_repeats))
    row[SWAP_RATE] = swaps.rate
    row["swapped / decided"] = f"{swaps.swaps}/{swaps.decided}"
    resamples = [{"measure": spec.name, "criterion": SWAP_RATE, "resample": split, "value": rate}
                 for split, rate in enumerate(swaps.split_rates().tolist())]
    if sampled:
        resamples += [{"measure": spec.name, "criterion": sampled_power_column(subsample), "resample": sample,
                       "value": share} for sample, share in enumerate(at_level)]
    with np.errstate(invalid="ignore"):
        differences = [float(np.nanmean(values[:, a] - values[:, b])) for a, b in pairs]
    pair_rows = [{"measure": spec.name, "system A": names[a], "system B": names[b], "A - B": difference,
                  "p, all queries": p, APART: float(share)}
                 for (a, b), difference, p, share in zip(pairs, differences, p_values, apart)]
    return _Judged(row, asl, pair_rows, sorted(same - same_lists), sampled, resamples)


def compare_measures(evaluator: Evaluator, measures: Sequence[MeasureSpec],
                     systems: Sequence[Run | AlignedRun] = (), ks: Sequence[int] = TABLE1_KS, ndcg_k: int = 10,
                     samples: int = Statistics.randomization_samples, level: float = SIGNIFICANCE_LEVEL,
                     subsample: int = SUBSAMPLE, subsample_repeats: int = SUBSAMPLE_REPEATS,
                     swap_repeats: int = SWAP_SPLITS, levels: Sequence[float] = DEGRADATION_LEVELS,
                     seed: int = DEGRADATION_SEED, progress: Callable[[float, str], None] | None = None,
                     kept: Kept | None = None, context: Hashable = ()) -> MeasureComparison:
    """Compare relevance measures on one dataset; ``systems`` are the runs whose order each measure judges.

    IoU is always included, first (it is the reference for the gaps, for Kendall's tau and for picking the
    ranking to degrade). Retrieval by each measure is scored for precision only (Table 1). The systems judged
    are ``systems`` less those that are the ideal ranking under a compared measure (:func:`ideal_systems`; left
    out under every measure, so that all are judged on the same systems), plus :func:`degraded_rankings` of the
    best of them by NDCG@``ndcg_k`` under IoU at each of ``levels`` (``seed``); of a simulated concept detector
    (:func:`simulated_detector_run`) when none is left; none when ``levels`` is empty.
    ``subsample`` queries are drawn ``subsample_repeats`` times (seeds 0, 1, ...; the same subsets
    for every measure) for the subsampled discriminative power; none when there are not more queries;
    the ASL curves add samples of each smaller size of :data:`SMALLER_SAMPLES`.
    The swap rate compares ``swap_repeats`` pairs of disjoint sets of ``min(subsample, queries // 2)``
    queries (seed 0).

    Each measure's parts (its pass, its scores, its tests) are kept in ``kept`` where given, under keys that start
    with ``context``, which must name everything else they read: the evaluator's data and KG mode and the
    ``systems`` (a digest of their content); another comparison with one more measure then computes only that one.
    """
    started = time.perf_counter()
    specs = list(dict.fromkeys([measure_spec(REFERENCE), *measures]))
    bar, parts = _Bar(specs, progress), _Parts(kept, context)
    given = tuple(system.name for system in systems)
    tops = cache(lambda: top_lists(evaluator, systems, ndcg_k))  # aligned once, for the measures not kept
    measured: dict[str, _Measured] = {}
    # In the engine's order: IoU and Dice then read the codes nn-IoU's pass leaves, as the evaluation does.
    for step, spec in enumerate(evaluator.engine.pass_order(specs, evaluator.engine.resolve)):
        at = (PASS_STEPS + 1) * step
        measured[spec.name] = parts.get(("measured", spec.name, tuple(ks), ndcg_k, given), lambda spec=spec, at=at: (
            _measure(evaluator, spec, tops, ks, ndcg_k, lambda done, text: bar(at + done, text))))
    rows = _pass_rows(measured, specs, max(ks))
    precision = pd.DataFrame([row for spec in specs for row in measured[spec.name].precision],
                             columns=["measure", "target", "k", "value", "queries"])
    scores = {spec.name: dict(measured[spec.name].scores) for spec in specs}
    circular = _circular(scores, specs, list(given))
    neutral = [system for system in systems if system.name not in circular]
    judged, source = _systems_judged(evaluator, neutral, scores[specs[0].name], levels, seed, ndcg_k, bar)
    # The degraded copies (named by their source and level) are drawn by the seed: the tests' parts read it too.
    evidence = _judge_each(evaluator, specs, judged, scores, ndcg_k, bar, _Parts(kept, (context, seed)),
                           samples=samples, level=level,
                           subsample=subsample, subsample_repeats=subsample_repeats, swap_repeats=swap_repeats)
    bar(bar.steps, "done")
    for name, row in evidence.rows.items():
        rows[name].update(row)
    flagged = pd.DataFrame([{"system A": a, "system B": b, "identical": "; ".join(why)}
                            for (a, b), why in sorted(evidence.identical.items())],
                           columns=["system A", "system B", "identical"])
    left_out = pd.DataFrame([{"system": name, "left out": f"the ideal ranking under {', '.join(under)} (NDCG@{ndcg_k} "
                              "= 1 on every query): circular"} for name, under in circular.items()],
                            columns=["system", "left out"])
    degraded = source is not None
    return MeasureComparison(_summary_table(rows, evidence.means, precision, specs[0].name, subsample, ks), precision,
                             pd.DataFrame(evidence.means), f"CUI@{ndcg_k}", tuple(system.name for system in judged),
                             len(evaluator.concepts),
                             pd.DataFrame(evidence.asl, columns=["measure", "queries", "level", "share"]), flagged,
                             evidence.sampled, pd.DataFrame(evidence.pairs, columns=PAIR_COLUMNS), left_out,
                             source.name if degraded else "", tuple(levels) if degraded else (),
                             time.perf_counter() - started, pd.DataFrame(evidence.resamples, columns=RESAMPLE_COLUMNS))


def _pass_rows(measured: Mapping[str, _Measured], specs: Sequence[MeasureSpec], depth: int) -> dict[str, dict]:
    """Each measure's table row so far (a copy of its kept one), in the order of ``specs``, with the queries whose
    top ``depth`` under it is exactly IoU's (``specs[0]``)."""
    reference = measured[specs[0].name].ranking
    rows = {}
    for spec in specs:
        rows[spec.name] = dict(measured[spec.name].row)
        same = (measured[spec.name].ranking.documents == reference.documents).all(axis=1)
        rows[spec.name][f"same top-{depth} as IoU"] = int(same.sum())
    return rows


class _Bar:
    """The comparison's progress bar, in steps: per measure, its ranking pass (:data:`PASS_STEPS`, moving as the
    pass goes), then its Table 1 and the systems given scored under it (1); the simulated detector where it is
    needed, then the tests under each measure."""

    def __init__(self, specs: Sequence[MeasureSpec], progress: Callable[[float, str], None] | None):
        self.measures, self.progress = len(specs), progress
        self.first = (PASS_STEPS + 1) * self.measures
        self.steps = self.first + self.measures + 1

    def __call__(self, step: float, text: str) -> None:
        if self.progress:
            self.progress(min(step / self.steps, 1.0), text)


def _circular(scores: Mapping[str, Mapping[str, pd.Series]], specs: Sequence[MeasureSpec],
              given: Sequence[str]) -> dict[str, list[str]]:
    """The systems given that are the ideal ranking under a compared measure -> those measures."""
    circular: dict[str, list[str]] = {}
    for spec in specs if given else ():
        for name in ideal_systems(_matrix(scores[spec.name], given)[1], given):
            circular.setdefault(name, []).append(spec.name)
    return circular


def _systems_judged(evaluator: Evaluator, neutral: list[Run | AlignedRun], reference: Mapping[str, pd.Series],
                    levels: Sequence[float], seed: int, ndcg_k: int,
                    bar: _Bar) -> tuple[list[Run | AlignedRun], Run | AlignedRun | None]:
    """The systems judged: ``neutral`` and degraded copies of the best of them under IoU (``reference``), or of a
    simulated concept detector, judged in their place, when none is neutral; and the system degraded (None for
    none)."""
    if not levels:
        return list(neutral), None
    source = max(neutral, key=lambda system: np.nan_to_num(reference[system.name].mean(), nan=-1.0), default=None)
    if source is None:
        text, step = "Simulating a concept detector to degrade", bar.first
        bar(step, text)
        source = simulated_detector_run(evaluator.concepts, FALLBACK_MISS, seed, ndcg_k,
                                        progress=lambda done: bar(step + done, text))
        neutral = [source]
    aligned = source if isinstance(source, AlignedRun) else align_run(source, evaluator.concepts, ndcg_k)
    return [*neutral, *degraded_rankings(aligned, len(evaluator.concepts), levels, seed, ndcg_k)], source


@dataclass
class _Evidence:
    """The tests' results under every measure, gathered for the comparison's tables."""

    rows: dict[str, dict[str, object]] = field(default_factory=dict)
    means: dict[str, dict[str, float]] = field(default_factory=dict)
    asl: list[dict] = field(default_factory=list)
    pairs: list[dict] = field(default_factory=list)
    resamples: list[dict] = field(default_factory=list)
    identical: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    sampled: int = 0


def _judge_each(evaluator: Evaluator, specs: Sequence[MeasureSpec], judged: Sequence[Run | AlignedRun],
                scores: dict[str, dict[str, pd.Series]], ndcg_k: int, bar: _Bar, parts: _Parts,
                **tests: int | float) -> _Evidence:
    """:func:`_judge` under each measure (``tests``: its options), the systems scored where they are not yet, each
    measure's means and judgement kept in ``parts``; nothing with fewer than two systems."""
    names = tuple(system.name for system in judged)
    same_lists = set(same_list_pairs(judged, evaluator.concepts, ndcg_k)) if len(judged) > 1 else set()
    evidence = _Evidence(identical={pair: [f"same top-{ndcg_k} lists"] for pair in same_lists})

    def judge(spec: MeasureSpec) -> tuple[dict[str, float], _Judged]:
        new = [system for system in judged if system.name not in scores[spec.name]]
        query_ids, values = _matrix({**scores[spec.name], **_scores(evaluator, new, spec, ndcg_metric(spec, ndcg_k))},
                                    names)
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a system undefined on every query has no mean: NaN
            means = dict(zip(names, np.nanmean(values, axis=0).tolist()))
        return means, _judge(spec, query_ids, values, names, same_lists, draws=evaluator.draws, **tests)

    for step, spec in enumerate(specs if len(judged) > 1 else ()):
        bar(bar.first + 1 + step, f"Significance tests under {spec.name}")
        means, judgement = parts.get(("judged", spec.name, names, ndcg_k, *sorted(tests.items())),
                                     lambda spec=spec: judge(spec))
        evidence.means[spec.name] = means
        evidence.rows[spec.name] = judgement.row
        evidence.asl += judgement.asl
        evidence.pairs += judgement.pairs
        evidence.resamples += judgement.resamples
        for pair in judgement.identical:
            evidence.identical.setdefault(pair, []).append(spec.name)
        evidence.sampled = tests["subsample"] if judgement.sampled else evidence.sampled
    return evidence


def _summary_table(rows: Mapping[str, dict], means: Mapping[str, dict[str, float]], precision: pd.DataFrame,
                   reference: str, subsample: int, ks: Sequence[int]) -> pd.DataFrame:
    """One row per measure, the deciding columns first: the tests, Kendall's tau and Table 1's gaps to IoU
    (``reference``), the ties and the engine's path."""
    table = pd.DataFrame(list(rows.values()))
    if means:
        table["Kendall tau vs IoU"] = [kendall_tau(means[reference], means[name]) for name in table.measure]
    if len(precision):
        wide = precision.pivot_table(index="measure", columns=["target", "k"], values="value", sort=False)
        wide.columns = [f"P@{k}[{target}]" for target, k in wide.columns]
        gaps = wide - wide.loc[reference]
        wide["worst cell vs IoU"] = gaps.min(axis=1)
        wide["best cell vs IoU"] = gaps.max(axis=1)
        wide["beats IoU on every cell"] = (gaps > 0).all(axis=1)
        table = wide.reset_index().merge(table, on="measure", how="right")
    ordered = ["measure", sampled_power_column(subsample), SWAP_RATE, f"ties@{TIE_RANK}", "Kendall tau vs IoU",
               ALL_POWER, PAIRS_JUDGED, "discriminative power", f"discriminative power, {subsample} queries",
               "significant pairs", "swapped / decided", *[f"ties@{k}" for k in ks if k != TIE_RANK],
               *[c for c in table.columns if c.startswith("P@")], "worst cell vs IoU", "best cell vs IoU",
               "beats IoU on every cell", f"same top-{max(ks)} as IoU", "ranking s", "digits", "codes", "code bytes",
               "keys"]
    return table[[c for c in ordered if c in table.columns]]


def _share(value: float) -> str:
    return f"{value:.{SCORE_DECIMALS}f}" if np.isfinite(value) else "—"


#: The readers :func:`verdict` words its sentence for, as the explanations do (evalcore.app.explain).
AUDIENCES = ("clinician", "researcher")


def verdict(comparison: MeasureComparison, audience: str = "researcher") -> str:
    """What the evidence says, pair by pair of measures, in ``audience``'s words ("researcher" or "clinician").

    The criterion: the share of system pairs told apart at p < 0.05 on the query samples (Sakai's discriminative
    power; on all queries without samples); for two measures level on it, fewer swaps across query sets. Each pair
    of measures is read on its own: one leads the other where it is ahead beyond the noise of the query samples (or
    splits) by :func:`clear_lead`, where :attr:`MeasureComparison.resamples` has them, else strictly at the
    :data:`~evalcore.io.tables.SCORE_DECIMALS` decimals shown. The sentence states every such lead and no other: it
    favours a measure only where that one leads every other; otherwise it names each measure that leads with those
    it leads, and says that every other pair ties (or, where no pair is clear, that all tie). A measure ahead of
    every other on power is described further to researchers: the pairs told apart (a mean count per sample), the
    next measure, the pairs it tells apart more often, swaps and ties (a lead under :data:`CLEAR_MARGIN` is slight).
    What was left out of the counts closes the sentence. The clinician's sentence says the same leads without the
    statistics' words.

    >>> table = pd.DataFrame({"measure": ["iou", "nn-iou"], sampled_power_column(100): [0.40, 0.67],
    ...                       SWAP_RATE: [0.08, 0.03], "ties@5": [80, 92]})
    >>> comparison = MeasureComparison(table, pd.DataFrame(), pd.DataFrame(), "CUI@10", ("a", "b", "c"), 100,
    ...                                subsample=100)
    >>> print(verdict(comparison))  # doctest: +NORMALIZE_WHITESPACE
    The evidence favours nn-iou: it tells more system pairs apart at p < 0.05 on 100-query samples than any other
    measure, 2.0 of 3 on average (0.6700), against 1.2 of 3 (0.4000) for iou, the next; it swaps fewer pairs across
    query sets (0.0300 vs 0.0800), at a cost of more ties at rank 5 (0.9200 of queries vs 0.8000).
    >>> print(verdict(comparison, "clinician"))  # doctest: +NORMALIZE_WHITESPACE
    The evidence favours nn-iou, ahead of every other way of matching: nn-iou clearly tells retrieval systems apart
    more often than iou.
    >>> table[sampled_power_column(100)] = [1.0, 1.0]
    >>> table[SWAP_RATE] = [0.0, 0.0]
    >>> print(verdict(MeasureComparison(table, pd.DataFrame(), pd.DataFrame(), "CUI@10", ("a", "b", "c"), 100,
    ...                                 subsample=100)))  # doctest: +NORMALIZE_WHITESPACE
    A tie: no measure clearly leads another; both measures tell as many system pairs apart at p < 0.05 on
    100-query samples, 3.0 of 3 on average (1.0000), and swap as many pairs across query sets (0.0000); the
    evidence favours none of them.
    """
    if audience not in AUDIENCES:
        raise ParameterError(f"audience must be one of {AUDIENCES}, got {audience!r}")
    plain = audience == "clinician"
    standing = _Standing.of(comparison)
    if standing is None:
        return ("No verdict: the comparison needs at least two retrieval systems with different results (load "
                "results of retrieval systems or choose reference systems), to see which way of matching tells them "
                "apart." if plain else
                "No verdict: the evidence needs at least two systems that differ (load runs or choose baselines), "
                "to see which measure tells them apart.")
    ranked = standing.ranked()
    best, power, where = ranked[0], standing.power, standing.where
    if len(standing.rows) == 1:
        text = (f"Only {best} is compared: choose more ways of matching to compare" if plain else
                f"Only {best} is compared: it tells {standing.told(best)} of {standing.judged[best]} system pairs "
                f"apart at p < {SIGNIFICANCE_LEVEL:g} {where} on average ({_share(standing.shown(best, power))}); "
                "choose more measures to compare")
    elif not standing.shown(best, power) > 0:
        text = ("No way of matching clearly tells any two retrieval systems apart: the evidence favours none (more "
                "cases or more different systems would tell)" if plain else
                f"No measure tells any pair of the systems apart at p < {SIGNIFICANCE_LEVEL:g} {where}: the evidence "
                "favours none (more queries or more different systems would tell)")
    else:
        text = (_plain_leads_sentence if plain else _leads_sentence)(standing, standing.leads())
    return text + _left_out_clause(comparison, plain) + "."


@dataclass(frozen=True)
class _Leads:
    """Which measure clearly leads which, pair by pair (:meth:`_Standing.ahead`): ``more``, on the pairs told apart;
    ``steadier``, on the swap rate, of the pairs level on those. Keyed by every measure, most pairs apart first; each
    tuple in the table's order."""

    more: Mapping[str, tuple[str, ...]]
    steadier: Mapping[str, tuple[str, ...]]

    def led_by(self, measure: str) -> set[str]:
        return {*self.more[measure], *self.steadier[measure]}

    @property
    def favoured(self) -> str | None:
        """The measure that leads every other one, None where none does (a lead goes one way: at most one does)."""
        return next((m for m in self.more if len(self.led_by(m)) == len(self.more) - 1), None)

    @property
    def tied(self) -> bool:
        """Whether some pair of measures is level on both criteria."""
        count = len(self.more)
        return sum(len(self.led_by(m)) for m in self.more) < count * (count - 1) // 2


@dataclass(frozen=True)
class _Standing:
    """A comparison's table read for :func:`verdict`: each measure's power and swap rate as shown, the pairs each
    judged, and the values on each query sample (or split) that say whether a lead is beyond noise."""

    comparison: MeasureComparison
    rows: pd.DataFrame  # indexed by measure, with a swap-rate column
    power: str  # the column of the criterion: pairs apart on the samples, else on all queries
    where: str
    judged: pd.Series
    resamples: Mapping[tuple[str, str], np.ndarray]

    @classmethod
    def of(cls, comparison: MeasureComparison) -> _Standing | None:
        """The standing, None where there is nothing to judge (fewer than two systems, no power)."""
        table = comparison.table
        power = sampled_power_column(comparison.subsample) if comparison.subsample else ALL_POWER
        if len(comparison.systems) < 2 or power not in table or not table[power].notna().any():
            return None
        rows = table.set_index("measure")
        if SWAP_RATE not in rows:
            rows[SWAP_RATE] = np.nan
        judged = rows[PAIRS_JUDGED] if PAIRS_JUDGED in rows else \
            pd.Series(len(comparison.systems) * (len(comparison.systems) - 1) // 2, index=rows.index)
        resamples = {key: group.sort_values("resample").value.to_numpy()
                     for key, group in comparison.resamples.groupby(["criterion", "measure"])}
        where = f"on {comparison.subsample}-query samples" if comparison.subsample else "on all queries"
        return cls(comparison, rows, power, where, judged, resamples)

    @property
    def samples(self) -> int:
        return len(self.resamples.get((self.power, self.rows.index[0]), ()))

    @property
    def splits(self) -> int:
        return len(self.resamples.get((SWAP_RATE, self.rows.index[0]), ()))

    @property
    def noise(self) -> str:
        return f", differences within the noise of the {self.samples} query samples" if self.samples > 1 else ""

    def shown(self, measure: str, criterion: str) -> float:
        return round(float(self.rows.at[measure, criterion]), SCORE_DECIMALS)

    def ahead(self, a: str, b: str, criterion: str) -> bool:
        """``a`` better than ``b`` on ``criterion`` (power: higher; swap rate: lower), beyond noise."""
        mine, theirs = self.resamples.get((criterion, a)), self.resamples.get((criterion, b))
        lower = criterion == SWAP_RATE
        if mine is None or theirs is None or len(mine) != len(theirs):
            shown_a, shown_b = self.shown(a, criterion), self.shown(b, criterion)
            return shown_a < shown_b if lower else shown_a > shown_b
        return clear_lead(theirs, mine) if lower else clear_lead(mine, theirs)

    def told(self, measure: str) -> str:
        """The pairs apart as a count (a mean over the samples, exact on all queries) of the pairs judged."""
        count = self.rows.at[measure, self.power] * self.judged[measure]
        return f"{count:.1f}" if self.comparison.subsample else f"{count:.0f}"

    def spread(self, measures: Sequence[str], criterion: str) -> str:
        """The range of ``criterion`` over ``measures`` (power: with the pairs apart as counts)."""
        low = min(measures, key=lambda m: self.shown(m, criterion))
        high = max(measures, key=lambda m: self.shown(m, criterion))
        upper = f" to {_share(self.shown(high, criterion))}" if self.shown(low, criterion) != self.shown(high, criterion) else ""
        if criterion != self.power:
            return _share(self.shown(low, criterion)) + upper
        counts = self.told(low) if self.told(low) == self.told(high) else f"{self.told(low)} to {self.told(high)}"
        judged = self.judged
        of = f"{judged[low]}" if judged[low] == judged[high] else f"{judged[low]} to {judged[high]}"
        return f"{counts} of {of} on average ({_share(self.shown(low, criterion))}{upper})"

    def ranked(self) -> list[str]:
        """The measures, most pairs apart first, then fewest swaps."""
        return sorted(self.rows.index, key=lambda m: (-np.nan_to_num(self.shown(m, self.power), nan=-1.0),
                                                      np.nan_to_num(self.shown(m, SWAP_RATE), nan=np.inf)))

    def leads(self) -> _Leads:
        """Every pair of measures read by :meth:`ahead` on its own: on power, then, where neither is ahead on power,
        on the swap rate. No group is cut from a ranking: a measure can lead some of those level with a third."""
        measures, ranked = list(self.rows.index), self.ranked()
        ahead = {(a, b): self.ahead(a, b, self.power) for a in measures for b in measures if a != b}
        more = {m: tuple(o for o in measures if o != m and ahead[m, o]) for m in ranked}
        steadier = {m: tuple(o for o in measures if o != m and not ahead[m, o] and not ahead[o, m]
                             and self.ahead(m, o, SWAP_RATE)) for m in ranked}
        return _Leads(more, steadier)

    def versus(self, measure: str, others: Sequence[str], criterion: str) -> str:
        """``measure``'s value on ``criterion`` against those of ``others``, as shown: "0.9300 vs 0.9100 and 0.9000"."""
        return f"{_share(self.shown(measure, criterion))} vs {joined([_share(self.shown(o, criterion)) for o in others])}"


def _favoured_sentence(standing: _Standing, best: str, runner: str) -> str:
    """``best`` tells more pairs apart than every other measure, ``runner`` next."""
    power, samples = standing.power, standing.samples
    lead = standing.shown(best, power) - standing.shown(runner, power)
    text = (f"The evidence favours {best}: it tells {'slightly more' if lead < CLEAR_MARGIN else 'more'} system "
            f"pairs apart at p < {SIGNIFICANCE_LEVEL:g} {standing.where} than any other measure, {standing.told(best)} of "
            f"{standing.judged[best]} on average ({_share(standing.shown(best, power))}), against "
            f"{standing.told(runner)} of {standing.judged[runner]} ({_share(standing.shown(runner, power))}) for "
            f"{runner}, the next{f', beyond the noise of the {samples} query samples' if samples > 1 else ''}")
    return (text + _pairs_clause(standing.comparison.pairs, best, runner)
            + _swaps_and_ties(standing.comparison, standing.rows, best, runner))


def _leads_sentence(standing: _Standing, leads: _Leads) -> str:
    """The researcher's sentence: every clear lead, pair by pair, the favoured measure first where there is one,
    and the ties left."""
    favoured, ranked = leads.favoured, list(leads.more)
    if favoured is None:
        clauses = _lead_clauses(standing, leads, ranked)
        return f"No measure leads every other: {clauses}{_ties_clause(standing, leads)}" if clauses else \
            _tie_sentence(standing)
    others = [m for m in ranked if m != favoured]
    if len(leads.more[favoured]) == len(others):
        head = _favoured_sentence(standing, favoured, others[0])
    elif not any(leads.more.values()):
        head = _steadiest_sentence(standing, favoured)
    else:
        head = f"The evidence favours {favoured}, which leads every other measure: " + \
            _lead_clauses(standing, leads, [favoured])
    rest = _lead_clauses(standing, leads, others, stated=bool(leads.more[favoured]))
    return head + (f"; of the others, {rest}" if rest else "") + _ties_clause(standing, leads)


def _lead_clauses(standing: _Standing, leads: _Leads, measures: Sequence[str], stated: bool = False) -> str:
    """Each of ``measures`` with those it clearly leads: on pairs apart (the criterion named once, unless already
    ``stated``), then on swaps where level on pairs apart; "" where none of them leads."""
    clauses, criterion = [], "" if stated else f" at p < {SIGNIFICANCE_LEVEL:g} {standing.where}"
    for m in measures:
        if leads.more[m]:
            clauses.append(f"{m} tells more system pairs apart{criterion} than {joined(leads.more[m])} "
                           f"({standing.versus(m, leads.more[m], standing.power)})")
            criterion = ""
    steady = [m for m in measures if leads.steadier[m]]
    steadier = [f"{m} {'fewer' if at else 'swaps fewer pairs across query sets'} than {joined(leads.steadier[m])} "
                f"({standing.versus(m, leads.steadier[m], SWAP_RATE)})" for at, m in enumerate(steady)]
    return "; ".join(clauses + ([f"level on pairs apart, {', '.join(steadier)}"] if steadier else []))


def _ties_clause(standing: _Standing, leads: _Leads) -> str:
    """Where some pair of measures is level on both criteria: that every pair not named ties."""
    if not leads.tied:
        return ""
    noise = [f"the {standing.samples} query samples"] if standing.samples > 1 else []
    noise += [f"the {standing.splits} splits into query sets"] if standing.splits > 1 else []
    return "; every other pair of measures ties" + (f" within the noise of {joined(noise)}" if noise else "")


def _all_level(standing: _Standing, measures: Sequence[str]) -> str:
    """That ``measures`` (all of them) tell as many pairs apart, with the range of the counts."""
    power = standing.power
    same = len({standing.shown(m, power) for m in measures}) == 1
    who = "both measures" if len(measures) == 2 else f"all {len(measures)} measures"
    return (f"{who} tell {'as many' if same else 'about as many'} system pairs apart at p < {SIGNIFICANCE_LEVEL:g} "
            f"{standing.where}, {standing.spread(measures, power)}{'' if same else standing.noise}")


def _steadiest_sentence(standing: _Standing, steadiest: str) -> str:
    """No measure ahead of another on power, ``steadiest`` ahead of every other one on swaps."""
    measures = list(standing.rows.index)
    runner = min((m for m in measures if m != steadiest),
                 key=lambda m: np.nan_to_num(standing.shown(m, SWAP_RATE), nan=np.inf))
    return (f"The evidence favours {steadiest} on stability alone: {_all_level(standing, measures)}, and {steadiest} "
            f"swaps fewer pairs across query sets ({standing.versus(steadiest, [runner], SWAP_RATE)} for {runner}, "
            "the next)")


def _tie_sentence(standing: _Standing) -> str:
    """No pair of measures with a clear lead on either criterion."""
    measures = list(standing.rows.index)
    swaps = standing.spread(measures, SWAP_RATE)
    return (f"A tie: no measure clearly leads another; {_all_level(standing, measures)}, and "
            + (f"swap as many pairs across query sets ({swaps})" if " to " not in swaps else
               f"swap from {swaps} of the pairs across query sets") + "; the evidence favours none of them")


def _plain_leads_sentence(standing: _Standing, leads: _Leads) -> str:
    """The clinician's sentence: the researcher's leads, pair by pair, without the statistics' words."""
    ranked = list(leads.more)
    clauses = [f"{m} clearly tells retrieval systems apart more often than {joined(leads.more[m])}"
               for m in ranked if leads.more[m]]
    clauses += [f"{m} tells retrieval systems apart as often as {joined(leads.steadier[m])}, but more consistently "
                "from one set of cases to another" for m in ranked if leads.steadier[m]]
    if not clauses:
        return ("A tie: no way of matching is clearly ahead of another at telling retrieval systems apart; they are "
                "too close to call")
    favoured = leads.favoured
    head = f"The evidence favours {favoured}, ahead of every other way of matching: " if favoured else \
        "No way of matching is ahead of every other: "
    return head + "; ".join(clauses) + ("; every other comparison between them is too close to call" if leads.tied else "")


def _left_out_clause(comparison: MeasureComparison, plain: bool = False) -> str:
    """The systems left out as circular and the pairs of identical systems left out of the counts (``plain``: in a
    clinician's words)."""
    text = ""
    if len(comparison.left_out):
        systems = joined(comparison.left_out.system.tolist())
        text += (f"; not judged: {systems}, each the perfect list under one of these ways of matching (it would win "
                 "by construction)" if plain else
                 f"; left out as circular (the ideal ranking under a compared measure): {systems}")
    identical = len(comparison.identical)
    if identical:
        many = identical > 1
        text += (f"; {identical} pair{'s' if many else ''} of systems with the same results {'are' if many else 'is'} "
                 "not counted" if plain else
                 f"; {identical} pair{'s' if many else ''} of identical systems {'are' if many else 'is'} left out of "
                 "the counts")
    return text


def _pairs_clause(pairs: pd.DataFrame, favoured: str, runner: str, shown: int = 3) -> str:
    """The pairs ``favoured`` tells apart more often than ``runner`` (the largest gaps first, ``shown`` of them)."""
    if pairs.empty:
        return ""
    keyed = pairs.set_index(["system A", "system B"])
    mine, theirs = keyed[keyed.measure == favoured][APART], keyed[keyed.measure == runner][APART]
    gaps = (mine - theirs).dropna()
    gaps = gaps[gaps.round(SCORE_DECIMALS) > 0].sort_values(ascending=False, kind="stable")
    if gaps.empty:
        return ""
    listed = [f"{a} vs {b} ({_share(mine[(a, b)])} vs {_share(theirs[(a, b)])})" for a, b in gaps.index[:shown]]
    more = f" and {len(gaps) - shown} more" if len(gaps) > shown else ""
    return f"; the pairs it tells apart more often: {'; '.join(listed)}{more}"


def _swaps_and_ties(comparison: MeasureComparison, rows: pd.DataFrame, favoured: str, runner: str) -> str:
    """How the favoured measure compares with the next one on the swap rate and the ties at rank 5."""
    text = ""
    if SWAP_RATE in rows and np.isfinite(rows.at[favoured, SWAP_RATE]) and np.isfinite(rows.at[runner, SWAP_RATE]):
        mine, theirs = (round(rows.at[m, SWAP_RATE], SCORE_DECIMALS) for m in (favoured, runner))
        relation = "fewer" if mine < theirs else "more" if mine > theirs else "as many"
        text += f"; it swaps {relation} pairs across query sets ({_share(mine)} vs {_share(theirs)})"
    ties = f"ties@{TIE_RANK}"
    if ties in rows:
        mine, theirs = (round(rows.at[m, ties] / comparison.queries, SCORE_DECIMALS) for m in (favoured, runner))
        clause = "at a cost of more" if mine > theirs else "with fewer" if mine < theirs else "with as many"
        text += f", {clause} ties at rank {TIE_RANK} ({_share(mine)} of queries vs {_share(theirs)})"
    return text


def simulated_detector_run(concepts: ConceptSets, miss: float, seed: int, depth: int,
                           name: str | None = None, progress: Callable[[float], None] | None = None) -> Run:
    """A stand-in CBIR system: a concept detector that misses a share ``miss`` of each image's concepts and
    replaces half of the missed ones by concepts drawn at random (by frequency), then retrieval by IoU of
    the detected concepts. Seeded; used where no real runs exist (ROCOv2 in the report). ``progress(fraction)``
    moves as the retrieval goes through the queries.
    """
    rng = np.random.default_rng(seed)
    vocabulary = list(concepts.vocabulary)
    frequency = np.array([0.0] * len(vocabulary))
    position = {c: i for i, c in enumerate(vocabulary)}
    for concept_set in concepts.sets:
        for concept in concept_set:
            frequency[position[concept]] += 1
    frequency /= frequency.sum() if frequency.sum() else 1.0
    detected = []
    for concept_set in concepts.sets:
        kept = {c for c in sorted(concept_set) if rng.random() >= miss}
        invented = int(rng.binomial(len(concept_set) - len(kept), 0.5)) if len(concept_set) > len(kept) else 0
        if invented:
            kept |= {vocabulary[i] for i in rng.choice(len(vocabulary), invented, p=frequency)}
        detected.append(frozenset(kept))
    noisy = ConceptSets(concepts.ids, tuple(detected), f"{concepts.source} (simulated detector, miss {miss:g})")
    return retrieve_by_measure(Evaluator(noisy), measure_spec("iou"), depth, name or f"simulated detector (miss {miss:g})",
                               progress)
