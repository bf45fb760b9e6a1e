"""Evidence for choosing a relevance measure on a loaded dataset (the "Choose a relevance measure" page and
``scripts/compare_measures.py``).

For each measure, over a set of systems scored by NDCG@K under that measure:

- discriminative power as achieved-significance-level (ASL) curves (Sakai 2006, "Evaluating evaluation metrics
  based on the bootstrap", SIGIR'06): the share of system pairs whose paired randomization-test p-value (not
  corrected) lies below each level of a grid, on all queries and averaged over random subsets of a few queries
  (with thousands of queries nearly every pair differs; 50-100 topics is a test collection's size); and, as
  before, the share below 0.05 after Holm's correction over the pairs;
- stability: the swap rate across disjoint query sets (Voorhees & Buckley 2002, "The effect of topic set size on
  retrieval experiment error", SIGIR'02): of the pairs that both sets order, the share ordered differently;
- Kendall's tau between the systems' order under the measure and under IoU;
- ties at rank K: queries whose K-th and (K+1)-th best candidates are equally relevant, so the tie rule (file
  order) decides what enters the top K; and Table-1 precision of retrieval by the measure.

Pairs of identical systems (the same per-query values under a measure, or the same top-K lists) cannot be told
apart by any test: they are listed in :attr:`MeasureComparison.identical` and left out of every pair count of the
measures under which they are identical (counting them would lower the discriminative power for nothing).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
import pandas as pd

from .compare import holm, kendall_tau, randomization_tests
from .data import ConceptSets, Run
from .engine import PairwiseEngine
from .evaluation import AlignedRun, Evaluator, align_run
from .measures import MeasureSpec, default_measures, metric_tag, parse_measure
from .options import Relevance, Statistics
from .retrieval import retrieve_by_measure
from .threads import blas_single_thread

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


def comparison_measures(chosen: MeasureSpec | str) -> list[str]:
    """Every registry measure at its defaults, and ``chosen`` (canonical text) where its parameters differ.

    >>> comparison_measures("tversky(a=0.8,b=0.3)")[-1], "tversky(a=0.8,b=0.3)" in comparison_measures("iou")
    ('tversky(a=0.8,b=0.3)', False)
    """
    names = [spec.name for spec in default_measures()]
    chosen = parse_measure(chosen).name
    return names + ([chosen] if chosen not in names else [])


def sampled_power_column(subsample: int) -> str:
    """The table's column of Sakai's discriminative power at 0.05 on ``subsample``-query samples."""
    return f"pairs apart at p < {SIGNIFICANCE_LEVEL:g}, {subsample} queries"


SWAP_RATE = "swap rate"
ALL_POWER = f"pairs apart at p < {SIGNIFICANCE_LEVEL:g}, all queries"


@dataclass(frozen=True)
class MeasureComparison:
    """``table``: one row per measure, the deciding columns first; ``precision``: long Table-1 values (%);
    ``means``: systems x measures; ``asl``: long ASL curves (measure, queries, level, share of pairs with p below
    the level); ``identical``: the pairs of identical systems (system A, system B, why), left out of the pair
    counts; ``subsample``: the size of the query samples (0: none drawn)."""

    table: pd.DataFrame
    precision: pd.DataFrame
    means: pd.DataFrame
    metric: str
    systems: tuple[str, ...]
    queries: int
    asl: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["measure", "queries", "level", "share"]))
    identical: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=["system A", "system B", "identical"]))
    subsample: int = 0


def ndcg_metric(measure: MeasureSpec, k: int) -> str:
    """The NDCG@k metric name under ``measure``: ``CUI@k``, ``nn-CUI@k`` or ``CUI@k{key}``.

    >>> ndcg_metric(parse_measure("iou"), 10), ndcg_metric(parse_measure("nn-iou"), 10), ndcg_metric(parse_measure("dice"), 5)
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
    """Of the (split, pair) cases that both query sets order (``decided``), how many they order differently."""

    swaps: int
    decided: int

    @property
    def rate(self) -> float:
        return self.swaps / self.decided if self.decided else float("nan")


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
    return SwapCount(int((decided & (np.sign(a) != np.sign(b))).sum()), int(decided.sum()))


def paired_p_values(values: np.ndarray, pairs: Sequence[tuple[int, int]], *, samples: int, draws) -> list[float]:
    """The randomization test's p-value (:func:`evalcore.compare.randomization_tests`) of each pair of columns."""
    return randomization_tests([(values[:, a], values[:, b]) for a, b in pairs], samples=samples, draws=draws)


def _sample_rows(query_ids: Sequence[str], subsample: int, seed: int) -> np.ndarray:
    chosen = set(np.random.default_rng(seed).choice(query_ids, subsample, replace=False).tolist())
    return np.array([row for row, query in enumerate(query_ids) if query in chosen], dtype=np.int64)


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


def compare_measures(evaluator: Evaluator, measures: Sequence[MeasureSpec | str],
                     systems: Sequence[Run | AlignedRun] = (), ks: Sequence[int] = TABLE1_KS, ndcg_k: int = 10,
                     samples: int = Statistics.randomization_samples, level: float = SIGNIFICANCE_LEVEL,
                     subsample: int = SUBSAMPLE, subsample_repeats: int = SUBSAMPLE_REPEATS,
                     swap_repeats: int = SWAP_SPLITS,
                     progress: Callable[[float, str], None] | None = None) -> MeasureComparison:
    """Compare relevance measures on one dataset; ``systems`` are the runs whose order each measure judges.

    IoU is always included, first (it is the reference for the gaps and for Kendall's tau). The
    systems compared for discriminative power are ``systems`` as given; retrieval by each
    measure is scored for precision only (under its own measure it is the ideal ranking).
    ``subsample`` queries are drawn ``subsample_repeats`` times (seeds 0, 1, ...; the same subsets
    for every measure) for the subsampled discriminative power; none when there are not more queries;
    the ASL curves add samples of each smaller size of :data:`SMALLER_SAMPLES`.
    The swap rate compares ``swap_repeats`` pairs of disjoint sets of ``min(subsample, queries // 2)``
    queries (seed 0).
    """
    specs = [parse_measure(m) for m in measures]
    reference = parse_measure(REFERENCE)
    names = list(dict.fromkeys([reference.name] + [spec.name for spec in specs]))
    specs = [parse_measure(name) for name in names]
    depth = max(ks)
    threshold = Relevance().threshold
    steps = 2 * len(specs) + 1
    rows: dict[str, dict] = {}
    rankings: dict[str, AlignedRun] = {}
    # Measures with the KG first: IoU and Dice then read the codes they leave, as the evaluation does.
    for step, spec in enumerate(sorted(specs, key=lambda spec: not spec.uses_kg)):
        if progress:
            progress(step / steps, f"Ranking the pool by {spec.name}")
        started = time.perf_counter()
        # Through the evaluator, which keeps the pass's ideal summary: NDCG under the measure reads it below
        # instead of ranking the pool a second time.
        ranking = evaluator.relevance_ranking(
            spec, depth, depth + 1, threshold, name=ranking_name(spec),
            progress=(lambda done, step=step, text=f"Ranking the pool by {spec.name}": progress((step + done) / steps,
                                                                                                 text))
            if progress else None)
        summary = evaluator.pool_summary(spec, depth + 1, threshold)
        seconds = time.perf_counter() - started
        rankings[spec.name] = ranking
        row: dict[str, object] = {"measure": spec.name}
        for k in ks:
            row[f"ties@{k}"] = int((summary.ideal[:, k - 1] == summary.ideal[:, k]).sum())
        row["ranking s"] = seconds
        row.update(engine_path(evaluator.engine, spec))
        rows[spec.name] = row
    for name, ranking in rankings.items():
        rows[name][f"same top-{depth} as IoU"] = int((ranking.documents == rankings[reference.name].documents
                                                      ).all(axis=1).sum())
    rows = {name: rows[name] for name in names}
    rankings = {name: rankings[name] for name in names}

    targets = [t for t in TARGETS if t in evaluator.label_targets()]
    precision_rows = []
    if targets:
        if progress:
            progress(len(specs) / steps, "Precision of each ranking on the labels")
        metrics = [f"P@{k}[{t}]" for t in targets for k in ks]
        evaluation = evaluator.evaluate(list(rankings.values()), metrics)
        for spec, ranking in zip(specs, rankings.values()):
            result = evaluation.systems[ranking.name]
            for target in targets:
                for k in ks:
                    values = result.values[f"P@{k}[{target}]"]
                    defined = values[np.isfinite(values)]
                    precision_rows.append({"measure": spec.name, "target": target, "k": k,
                                           "value": 100 * float(defined.mean()) if len(defined) else float("nan"),
                                           "queries": len(defined)})
    precision = pd.DataFrame(precision_rows, columns=["measure", "target", "k", "value", "queries"])

    means: dict[str, dict[str, float]] = {}
    system_names = tuple(s.name for s in systems)
    same_lists = set(same_list_pairs(systems, evaluator.concepts, ndcg_k)) if len(systems) > 1 else set()
    identical: dict[tuple[str, str], list[str]] = {pair: [f"same top-{ndcg_k} lists"] for pair in same_lists}
    asl_rows: list[dict] = []
    sampled = 0
    for step, spec in enumerate(specs):
        if len(systems) < 2:
            break
        if progress:
            progress((len(specs) + 1 + step) / steps, f"Significance tests under {spec.name}")
        metric = ndcg_metric(spec, ndcg_k)
        evaluation = evaluator.evaluate(list(systems), [metric], Relevance.of(measure=spec))
        query_ids = sorted(set().union(*(result.query_ids for result in evaluation.systems.values())))
        position = {query: row for row, query in enumerate(query_ids)}
        values = np.full((len(query_ids), len(system_names)), np.nan)
        for column, name in enumerate(system_names):
            result = evaluation.systems[name]
            values[[position[q] for q in result.query_ids], column] = result.values[metric]
        means[spec.name] = {name: m[metric] for name, m in evaluation.means().items()}
        same = set(identical_pairs(values, system_names)) | same_lists
        for pair in same - same_lists:
            identical.setdefault(pair, []).append(spec.name)
        pairs = [(a, b) for a, b in combinations(range(len(system_names)), 2)
                 if (system_names[a], system_names[b]) not in same]
        p_values = paired_p_values(values, pairs, samples=samples, draws=evaluator.draws)
        significant = sum(p < level for p in holm(p_values)) if pairs else 0
        row = rows[spec.name]
        row["significant pairs"] = f"{significant}/{len(pairs)}"
        row["discriminative power"] = significant / len(pairs) if pairs else float("nan")
        row[ALL_POWER] = asl_curve(p_values, (level,))[0]
        asl_rows += [{"measure": spec.name, "queries": ALL_QUERIES, "level": at, "share": share}
                     for at, share in zip(ASL_LEVELS, asl_curve(p_values))]
        if pairs and len(query_ids) > subsample:
            sampled = subsample
            corrected, at_level = [], []
            for size in (subsample, *(size for size in SMALLER_SAMPLES if size < subsample)):
                curves = []
                for seed in range(subsample_repeats):
                    sample_p = paired_p_values(values[_sample_rows(query_ids, size, seed)], pairs, samples=samples,
                                               draws=evaluator.draws)
                    curves.append(asl_curve(sample_p))
                    if size == subsample:
                        corrected.append(np.mean([p < level for p in holm(sample_p)]))
                        at_level.append(asl_curve(sample_p, (level,))[0])
                asl_rows += [{"measure": spec.name, "queries": f"{size} queries", "level": at, "share": float(share)}
                             for at, share in zip(ASL_LEVELS, np.mean(curves, axis=0))]
            row[f"discriminative power, {subsample} queries"] = float(np.mean(corrected))
            row[sampled_power_column(subsample)] = float(np.mean(at_level))
        half = min(subsample, len(query_ids) // 2)
        swaps = swap_count(values, pairs, swap_splits(len(query_ids), half, swap_repeats))
        row[SWAP_RATE] = swaps.rate
        row["swapped / decided"] = f"{swaps.swaps}/{swaps.decided}"
    if progress:
        progress(1.0, "done")

    table = pd.DataFrame(list(rows.values()))
    if means:
        table["Kendall tau vs IoU"] = [kendall_tau(means[reference.name], means[name]) for name in table.measure]
    if len(precision):
        wide = precision.pivot_table(index="measure", columns=["target", "k"], values="value", sort=False)
        wide.columns = [f"P@{k}[{target}]" for target, k in wide.columns]
        gaps = wide - wide.loc[reference.name]
        wide["worst cell vs IoU"] = gaps.min(axis=1)
        wide["best cell vs IoU"] = gaps.max(axis=1)
        wide["beats IoU on every cell"] = (gaps > 0).all(axis=1)
        table = wide.reset_index().merge(table, on="measure", how="right")
    ordered = ["measure", sampled_power_column(subsample), SWAP_RATE, f"ties@{TIE_RANK}", "Kendall tau vs IoU",
               ALL_POWER, "discriminative power", f"discriminative power, {subsample} queries", "significant pairs",
               "swapped / decided", *[f"ties@{k}" for k in ks if k != TIE_RANK],
               *[c for c in table.columns if c.startswith("P@")], "worst cell vs IoU", "best cell vs IoU",
               "beats IoU on every cell", f"same top-{max(ks)} as IoU", "ranking s", "digits", "codes", "code bytes",
               "keys"]
    table = table[[c for c in ordered if c in table.columns]]
    flagged = pd.DataFrame([{"system A": a, "system B": b, "identical": "; ".join(why)}
                            for (a, b), why in sorted(identical.items())], columns=["system A", "system B", "identical"])
    return MeasureComparison(table, precision, pd.DataFrame(means), f"CUI@{ndcg_k}", system_names,
                             len(evaluator.concepts), pd.DataFrame(asl_rows, columns=["measure", "queries", "level",
                                                                                      "share"]), flagged, sampled)


def verdict(comparison: MeasureComparison) -> str:
    """One sentence on what the evidence favours and why: the measure that tells the most system pairs apart at
    p < 0.05 on the query samples (fewer swaps across query sets break a tie; then the table's order, IoU first),
    against IoU on that, on the swap rate and on the ties at rank 5. A lead under :data:`CLEAR_MARGIN` is said to
    be slight (a few of the sampled pair tests).

    >>> table = pd.DataFrame({"measure": ["iou", "nn-iou"], sampled_power_column(100): [0.40, 0.67],
    ...                       SWAP_RATE: [0.08, 0.03], "ties@5": [80, 92]})
    >>> print(verdict(MeasureComparison(table, pd.DataFrame(), pd.DataFrame(), "CUI@10", ("a", "b", "c"), 100,
    ...                                 subsample=100)))  # doctest: +NORMALIZE_WHITESPACE
    nn-iou tells more system pairs apart at p < 0.05 on 100-query samples (0.67 vs 0.40 for iou) and swaps fewer
    pairs across query sets (3% vs 8%), at a cost of more ties at rank 5 (92% of queries vs 80%).
    """
    table = comparison.table
    sample = sampled_power_column(comparison.subsample) if comparison.subsample else ALL_POWER
    where = f"on {comparison.subsample}-query samples" if comparison.subsample else "on all queries"
    if len(comparison.systems) < 2 or sample not in table or not table[sample].notna().any():
        return ("No verdict: the evidence needs at least two systems that differ (load runs or choose baselines), "
                "to see which measure tells them apart.")
    rows = table.set_index("measure")
    reference = rows.index[0]
    swaps = rows[SWAP_RATE].fillna(np.inf) if SWAP_RATE in rows else pd.Series(0.0, index=rows.index)
    order = sorted(range(len(rows)), key=lambda i: (-np.nan_to_num(rows[sample].iloc[i], nan=-1.0), swaps.iloc[i], i))
    best = rows.index[order[0]]
    power, power_ref = rows.at[best, sample], rows.at[reference, sample]
    if not power > 0:
        text = (f"No measure tells any pair of the systems apart at p < {SIGNIFICANCE_LEVEL:g} {where}: the evidence "
                "favours none (more queries or more different systems would tell)")
    elif best == reference:
        text = (f"The evidence favours {reference}: no other measure tells more system pairs apart at p < "
                f"{SIGNIFICANCE_LEVEL:g} {where} ({power:.2f}) or swaps fewer pairs across query sets")
    else:
        more = "as many" if round(power, 2) <= round(power_ref, 2) else \
            "slightly more" if power - power_ref < CLEAR_MARGIN else "more"
        text = (f"{best} tells {more} system pairs apart at p < {SIGNIFICANCE_LEVEL:g} {where} ({power:.2f} vs "
                f"{power_ref:.2f} for {reference})")
        if SWAP_RATE in rows and np.isfinite(rows.at[best, SWAP_RATE]) and np.isfinite(rows.at[reference, SWAP_RATE]):
            mine, theirs = rows.at[best, SWAP_RATE], rows.at[reference, SWAP_RATE]
            relation = "and swaps fewer" if round(mine, 2) < round(theirs, 2) else \
                "but swaps more" if round(mine, 2) > round(theirs, 2) else "and swaps as many"
            text += f" {relation} pairs across query sets ({mine:.0%} vs {theirs:.0%})"
        ties = f"ties@{TIE_RANK}"
        if ties in rows:
            mine, theirs = rows.at[best, ties] / comparison.queries, rows.at[reference, ties] / comparison.queries
            clause = "at a cost of more" if round(mine, 2) > round(theirs, 2) else \
                "with fewer" if round(mine, 2) < round(theirs, 2) else "with as many"
            text += f", {clause} ties at rank {TIE_RANK} ({mine:.0%} of queries vs {theirs:.0%})"
    left_out = len(comparison.identical)
    if left_out:
        text += (f"; {left_out} pair{'s' if left_out > 1 else ''} of identical systems "
                 f"{'are' if left_out > 1 else 'is'} left out of the counts")
    return text + "."


def simulated_detector_run(concepts: ConceptSets, miss: float, seed: int, depth: int,
                           name: str | None = None) -> Run:
    """A stand-in CBIR system: a concept detector that misses a share ``miss`` of each image's concepts and
    replaces half of the missed ones by concepts drawn at random (by frequency), then retrieval by IoU of
    the detected concepts. Seeded; used where no real runs exist (ROCOv2 in the report).
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
    return retrieve_by_measure(PairwiseEngine(noisy), "iou", depth, name or f"simulated detector (miss {miss:g})")
