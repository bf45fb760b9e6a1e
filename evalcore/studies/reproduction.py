"""Reproducing Wei, Kurtz & Cloppet (2025) on a loaded dataset: Table 1, the ablation of Fig. 3,
the cost of Fig. 4, and the checks that explain differences from the paper.

Every function takes loaded objects and returns tables; the script
``scripts/reproduce_paper.py`` and the Method page turn them into a report and figures.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from evalcore.data import ConceptSets, Run
from evalcore.engine import PairwiseEngine, top_indices
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import AlignedRun, Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.retrieval import retrieve_by_measure
from evalcore.io.tables import score_table
from evalcore.relevance.formulas import approximate_matches, iou, nn_iou, nn_iou_from_counts
from evalcore.relevance.kg import KnowledgeGraph, neighbour_sets
from evalcore.relevance.measures import MeasureSpec, measure_spec, nn_iou_measure
from evalcore.studies.ablation import ablation_grid, isolated_queries

if TYPE_CHECKING:  # pandas' Styler needs jinja2, which only the table that styles loads
    from pandas.io.formats.style import Styler

TABLE1_KS = (5, 10, 30)
TARGETS = ("modality", "organ", "modality+organ")
PAPER_ALPHA, PAPER_HOPS = 0.5, 1


PAPER_MEASURE = nn_iou_measure(PAPER_ALPHA, PAPER_HOPS)
#: The paper's two relevance rankings: by IoU and by nn-IoU at its setting.
PAPER_RANKINGS: Mapping[str, MeasureSpec] = MappingProxyType({"IoU": measure_spec("iou"), "nn-IoU": PAPER_MEASURE})
#: Table 1's third ranking as it is computed here: TF-IDF vectors of the captions, cosine (the paper used
#: BioMedCLIP-t caption embeddings, which need a model this project does not ship).
CAPTIONS_SYSTEM = "captions (TF-IDF)"
#: Table 1 of the paper: Precision@5/10/30 (%) on ROCOv2 test.
PAPER_TABLE1: dict[tuple[str, str], tuple[float, float, float]] = {
    ("IoU", "modality"): (99.28, 99.17, 98.99),
    ("IoU", "organ"): (94.27, 93.46, 91.15),
    ("IoU", "modality+organ"): (90.03, 88.87, 85.72),
    ("nn-IoU", "modality"): (99.34, 99.46, 99.42),
    ("nn-IoU", "organ"): (94.59, 93.78, 91.50),
    ("nn-IoU", "modality+organ"): (90.65, 89.53, 86.85),
    (CAPTIONS_SYSTEM, "modality"): (74.61, 73.25, 69.83),
    (CAPTIONS_SYSTEM, "organ"): (60.52, 56.91, 51.17),
    (CAPTIONS_SYSTEM, "modality+organ"): (37.62, 33.53, 27.44),
}
PAPER_SYSTEM_NAMES = {"IoU": "IoU", "nn-IoU": "nn-IoU (n=1, alpha=0.5)",
                      CAPTIONS_SYSTEM: "BioMedCLIP-t (paper) / TF-IDF captions (here)"}


ROCOV2_TEST_PREFIX = "ROCOv2_2023_test_"
ROCOV2_TEST_SIZE = 9927


def is_rocov2_test(ids: Sequence[str]) -> bool:
    """True for the ROCOv2 test split (9,927 IDs ``ROCOv2_2023_test_…``), the only data the paper's numbers describe.

    >>> is_rocov2_test(["ROCOv2_2023_test_000001"]), is_rocov2_test([f"ROCOv2_2023_test_{i:06d}" for i in range(9927)])
    (False, True)
    """
    return len(ids) == ROCOV2_TEST_SIZE and all(i.startswith(ROCOV2_TEST_PREFIX) for i in ids)


def precision_names(ks: Sequence[int] = TABLE1_KS, targets: Sequence[str] = TARGETS) -> list[str]:
    return [f"P@{k}[{target}]" for target in targets for k in ks]


def precision_table(evaluator: Evaluator, systems: Sequence[Run | AlignedRun], queries: Sequence[str] | None = None,
                    ks: Sequence[int] = TABLE1_KS) -> pd.DataFrame:
    """Precision@K (%) per system, label target and K; the mean over ``queries`` when given.

    Columns: system, target, k, value, queries (how many queries had the label and counted).
    """
    targets = [t for t in TARGETS if t in evaluator.label_targets()]
    evaluation = evaluator.evaluate(list(systems), precision_names(ks, targets), Relevance(PAPER_MEASURE))
    subset = set(queries) if queries is not None else None
    rows = []
    for name, result in evaluation.systems.items():
        keep = np.array([q in subset for q in result.query_ids]) if subset is not None else np.ones(
            len(result.query_ids), dtype=bool)
        for target in targets:
            for k in ks:
                values = result.values[f"P@{k}[{target}]"][keep]
                defined = values[np.isfinite(values)]
                rows.append({"system": name, "target": target, "k": k,
                             "value": 100 * float(defined.mean()) if len(defined) else float("nan"),
                             "queries": len(defined)})
    return pd.DataFrame(rows)


def table1_systems(evaluator: Evaluator, captions: Mapping[str, str] | None, depth: int = max(TABLE1_KS),
                   progress: Callable[[float, str], None] | None = None) -> list[Run | AlignedRun]:
    """The three rankings of Table 1: by IoU, by nn-IoU (n = 1, alpha = 0.5) and by caption TF-IDF.

    ``progress(fraction, text)`` is called before each ranking and at the end.
    """
    from evalcore.evaluation.retrieval import retrieve_by_captions

    steps = 1 + (evaluator.kg is not None) + bool(captions)

    def report(done: int, text: str) -> None:
        if progress:
            progress(done / steps, text)

    report(0, "Ranking the collection by IoU")
    systems: list[Run | AlignedRun] = [evaluator.relevance_ranking(measure_spec("iou"), depth, depth, name="IoU")]
    if evaluator.kg is not None:
        report(len(systems), "Ranking the collection by nn-IoU")
        systems.append(evaluator.relevance_ranking(PAPER_MEASURE, depth, depth, name="nn-IoU"))
    if captions:
        report(len(systems), "Ranking the collection by caption TF-IDF")
        systems.append(retrieve_by_captions(dict(captions), evaluator.concepts, depth, None, CAPTIONS_SYSTEM))
    report(steps, "done")
    return systems


def compare_with_paper(table: pd.DataFrame) -> pd.DataFrame:
    """Our Table 1 beside the paper's, one row per (system, target), with the differences in points."""
    rows = []
    for (system, target), group in table.groupby(["system", "target"], sort=False):
        ours = dict(zip(group.k, group.value))
        paper = PAPER_TABLE1.get((system, target))
        row = {"system": system, "target": target}
        for position, k in enumerate(TABLE1_KS):
            row[f"P@{k}"] = ours.get(k, float("nan"))
            row[f"paper P@{k}"] = paper[position] if paper else float("nan")
            row[f"diff P@{k}"] = row[f"P@{k}"] - row[f"paper P@{k}"]
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class AblationCurves:
    grid: pd.DataFrame  # subset, metric, n, alpha, value (%)
    areas: pd.DataFrame  # subset, metric, n, area between the curve and n = 0 (points x alpha)
    isolated: tuple[str, ...]


def ablation_curves(evaluator: Evaluator, hops: Sequence[int] = (0, 1, 2),
                    alphas: Sequence[float] = tuple(a / 10 for a in range(11)), k: int = 30,
                    isolated_at: MeasureSpec = PAPER_MEASURE,
                    progress: Callable[[float, str], None] | None = None) -> AblationCurves:
    """Fig. 3: P@k of retrieval by nn-IoU against alpha for each n, on the isolated subset and on all queries.

    The isolated subset holds the queries whose top-k by IoU and by ``isolated_at`` (the paper's nn-IoU) differ.
    The area is the trapezoid integral over alpha of (curve - curve at n = 0).
    """
    targets = [t for t in TARGETS if t in evaluator.label_targets()]
    metrics = [f"P@{k}[{t}]" for t in targets]
    isolated = isolated_queries(evaluator, isolated_at, k)
    frames = []
    for subset, queries in (("isolated", isolated), ("all", None)):
        if subset == "isolated" and not isolated:
            continue
        grid = ablation_grid(evaluator, [], metrics, alphas, hops, queries=queries, progress=progress)
        frames.append(grid.assign(subset=subset, value=100 * grid.value))
    grid = pd.concat(frames, ignore_index=True)[["subset", "metric", "n", "alpha", "value"]]
    areas = []
    for (subset, metric), group in grid.groupby(["subset", "metric"], sort=False):
        base = group[group.n == 0].sort_values("alpha")
        for n in hops:
            curve = group[group.n == n].sort_values("alpha")
            difference = curve.value.to_numpy() - base.value.to_numpy()
            areas.append({"subset": subset, "metric": metric, "n": n,
                          "area": float(np.trapezoid(difference, curve.alpha.to_numpy()))})
    return AblationCurves(grid, pd.DataFrame(areas), isolated)


#: The tie report's columns (:func:`tie_report`) as a reader sees them: a name and what it holds.
TIE_COLUMNS: Mapping[str, tuple[str, str]] = MappingProxyType({
    "system": ("ranking", "The relevance the collection is ranked by"),
    "k": ("K", "The cut-off"),
    "queries_with_tie": ("queries tied at K", "Queries whose K-th and (K+1)-th best relevance are equal, so that "
                                              "the tie rule decides which images fill the top K"),
    "stable": ("file order", "P@K on the label target (modality+organ) with ties broken by the order of the concept file"),
    "random_mean": ("random order: mean", "Mean P@K over the random orders of the collection"),
    "random_sd": ("random order: SD", "Standard deviation of P@K over the random orders"),
    "random_min": ("random order: lowest", "Lowest P@K over the random orders"),
    "random_max": ("random order: highest", "Highest P@K over the random orders"),
})


def area_table(areas: pd.DataFrame) -> pd.DataFrame:
    """Fig. 3's areas (:attr:`AblationCurves.areas`) as a table: one row per (subset, metric), one column per
    distance threshold, headed "n = 0", "n = 1", ...

    >>> areas = pd.DataFrame({"subset": ["all"] * 2, "metric": ["P@30[organ]"] * 2, "n": [0, 1], "area": [0.0, 1.5]})
    >>> area_table(areas).columns.tolist(), area_table(areas).iloc[0].tolist()
    (['n = 0', 'n = 1'], [0.0, 1.5])
    """
    table = areas.pivot_table(index=["subset", "metric"], columns="n", values="area", sort=False)
    table.columns = [f"n = {n}" for n in table.columns]
    return table


def shown_table(table: pd.DataFrame) -> Styler:
    """A reproduction table for the dashboard: its float columns are percentages (as the paper prints them), shown
    by the dashboard's one number rule (:func:`evalcore.io.tables.score_table`) as the scores they are.

    >>> print(shown_table(pd.DataFrame({"system": ["IoU"], "P@5": [99.37]})).hide(axis="index").to_string())
    system P@5
    IoU 0.9937
    <BLANKLINE>
    """
    return score_table(table, [c for c, dtype in table.dtypes.items() if pd.api.types.is_float_dtype(dtype)])


def tie_report(evaluator: Evaluator, settings: Mapping[str, MeasureSpec] = PAPER_RANKINGS, seeds: Sequence[int] = range(5),
               ks: Sequence[int] = TABLE1_KS, target: str = "modality+organ",
               progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """How ties at rank K affect P@K of retrieval by each of ``settings``' measures: stable tie-breaking (file
    order) against random orders of the pool.

    ``queries_with_tie`` counts queries whose K-th and (K+1)-th best relevance values are
    equal, so that which images fill the top K depends on the tie rule. ``progress(fraction,
    text)`` is called before each ranking.
    """
    concepts = evaluator.concepts
    depth = max(ks)
    names = [f"P@{k}[{target}]" for k in ks]
    rows = []
    rankings = len(settings) * (1 + len(seeds))
    # P@K on labels reads no relevance measure: the evaluation's relevance options are its defaults.
    for position, (system, measure) in enumerate(settings.items()):
        if progress:
            progress(position * (1 + len(seeds)) / rankings, f"{system}: file order")
        summary = evaluator.engine.pool_summary_by(measure, depth + 1)
        stable = evaluator.evaluate([evaluator.relevance_ranking(measure, depth, depth, name=system)], names
                                    ).means()[system]
        shuffled: dict[int, list[float]] = {k: [] for k in ks}
        for done, seed in enumerate(seeds, start=1):
            if progress:
                progress((position * (1 + len(seeds)) + done) / rankings, f"{system}: random order {done} of {len(seeds)}")
            order = np.random.default_rng(seed).permutation(len(concepts))
            permuted = ConceptSets(tuple(concepts.ids[i] for i in order), tuple(concepts.sets[i] for i in order),
                                   f"{concepts.source} (shuffled, seed {seed})")
            run = retrieve_by_measure(Evaluator(permuted, evaluator.kg, evaluator.mode), measure, depth,
                                      f"{system} seed {seed}")
            means = evaluator.evaluate([run], names).means()[run.name]
            for k in ks:
                shuffled[k].append(means[f"P@{k}[{target}]"])
        for k in ks:
            tied = summary.ideal[:, k - 1] == summary.ideal[:, k]
            rows.append({"system": system, "k": k, "queries_with_tie": int(tied.sum()),
                         "stable": 100 * stable[f"P@{k}[{target}]"],
                         "random_mean": 100 * float(np.mean(shuffled[k])),
                         "random_sd": 100 * float(np.std(shuffled[k], ddof=1)) if len(shuffled[k]) > 1 else 0.0,
                         "random_min": 100 * float(np.min(shuffled[k])),
                         "random_max": 100 * float(np.max(shuffled[k]))})
    if progress:
        progress(1.0, "done")
    return pd.DataFrame(rows)


def strict_approximate_matches(a: frozenset[str], b: frozenset[str],
                               neighbours: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """The stricter reading of N(A,B): a concept of A \\ B counts only with a neighbour in B \\ A (and vice versa).

    >>> nbrs = {"vein": frozenset({"vessel"}), "vessel": frozenset({"vein"})}
    >>> sorted(strict_approximate_matches(frozenset({"vein", "vessel"}), frozenset({"vessel"}), nbrs))
    []
    >>> sorted(strict_approximate_matches(frozenset({"CT", "vein"}), frozenset({"CT", "vessel"}), nbrs))
    ['vein', 'vessel']
    """
    only_a, only_b = a - b, b - a
    return frozenset({x for x in only_a if neighbours.get(x, frozenset()) & only_b}
                     | {y for y in only_b if neighbours.get(y, frozenset()) & only_a})


def strict_relevance_ranking(evaluator: Evaluator, measure: MeasureSpec, depth: int, name: str) -> AlignedRun:
    """Retrieval by nn-IoU (``measure``, an nn-IoU spec) with :func:`strict_approximate_matches`, over the whole pool.

    Only pairs with an approximate match under docs/DESIGN.md §2 can differ; those are rescored
    pair by pair, the rest keep the engine's values.
    """
    if measure.key != "nn-iou":
        raise ParameterError(f"the strict reading of N(A,B) is nn-IoU's: give an nn-iou MeasureSpec, got {measure.name}")
    engine = evaluator.engine
    concepts = evaluator.concepts
    alpha = measure.params["alpha"]
    neighbours = neighbour_sets(evaluator.kg, engine.vocabulary, measure.hops, evaluator.mode)
    parts = []
    layout = engine.coding(measure).layout
    for block, codes in engine.coded_blocks(measure):
        start = block.start
        values = block.relevance()
        _, approximate, _ = layout.decode(codes)
        rows, columns = np.nonzero(approximate > 0)
        for row, column in zip(rows.tolist(), columns.tolist()):
            if start + row == column:
                continue
            a, b = concepts.sets[start + row], concepts.sets[column]
            values[row, column] = nn_iou_from_counts(len(a & b), len(strict_approximate_matches(a, b, neighbours)),
                                                     len(a | b), alpha)
        parts.append(top_indices(values, depth))
    return AlignedRun.over_pool(name, np.vstack(parts))


def kg_variants(evaluator: Evaluator, edge_files: Sequence, sources: Sequence[str],
                depth: int = max(TABLE1_KS), strict_hops: Sequence[int] = (1, 2),
                progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Table-1 precision of retrieval by nn-IoU (alpha = 0.5) under each KG reading, beside IoU.

    Variants: n = 1 and 2 in both KG modes; the strict neighbour reading; each ontology
    source alone (n = 1, undirected). ``beats_iou_everywhere`` is True when the variant
    is >= IoU on every (target, K) cell. ``progress(text)`` is called before each ranking and
    each precision table (twice per variant).
    """
    concepts, labels = evaluator.concepts, evaluator.labels

    def starting(name: str) -> str:
        if progress:
            progress(name)
        return name

    systems: list[tuple[str, Evaluator, Run | AlignedRun]] = [
        ("IoU", evaluator, evaluator.relevance_ranking(measure_spec("iou"), depth, depth, name=starting("IoU")))]
    for mode in ("undirected", "directed"):
        variant = evaluator if mode == evaluator.mode else Evaluator(concepts, evaluator.kg, mode, labels)
        for n in (1, 2):
            name = starting(f"nn-IoU n={n} {mode}")
            systems.append((name, variant, variant.relevance_ranking(nn_iou_measure(PAPER_ALPHA, n), depth, depth, name=name)))
    for n in strict_hops:
        name = starting(f"nn-IoU n={n} undirected, strict N(A,B)")
        systems.append((name, evaluator, strict_relevance_ranking(evaluator, nn_iou_measure(PAPER_ALPHA, n), depth, name)))
    for source in sources:
        name = starting(f"nn-IoU n=1 undirected, {source} only")
        kg = KnowledgeGraph.from_edges(edge_files, [source])
        variant = Evaluator(concepts, kg, "undirected", labels)
        systems.append((name, variant, variant.relevance_ranking(nn_iou_measure(PAPER_ALPHA, 1), depth, depth, name=name)))
    frames = []
    for name, variant, ranking in systems:
        starting(f"precision of {name}")
        frames.append(precision_table(variant, [ranking]))
    table = pd.concat(frames, ignore_index=True)
    wide = table.pivot_table(index="system", columns=["target", "k"], values="value", sort=False)
    iou_row = wide.loc["IoU"]
    wide.columns = [f"P@{k}[{target}]" for target, k in wide.columns]
    wide["beats_iou_everywhere"] = [bool((row >= iou_row.to_numpy() - 1e-12).all()) for row in
                                    wide.iloc[:, :len(iou_row)].to_numpy()]
    wide.loc["IoU", "beats_iou_everywhere"] = False
    return wide.reset_index()


def changed_top_examples(evaluator: Evaluator, kg: KnowledgeGraph, k: int = 5, target: str = "modality+organ",
                         measure: MeasureSpec = PAPER_MEASURE, count: int = 2) -> list[dict]:
    """Queries where nn-IoU (``measure``, an nn-IoU spec) changes the top k: the ``count`` largest gains and losses
    in P@k[target].

    Each example lists both top-k lists and, for images that nn-IoU brought in, the KG paths
    behind their approximate matches with the query.
    """
    setting = Relevance(measure)
    alpha, n = measure.params["alpha"], measure.hops
    by_iou = evaluator.relevance_ranking(measure_spec("iou"), k, k, name="IoU")
    by_nn = evaluator.relevance_ranking(setting.nn_iou, k, k, name="nn-IoU")
    metric = f"P@{k}[{target}]"
    evaluation = evaluator.evaluate([by_iou, by_nn], [metric], setting)
    gain = evaluation.systems["nn-IoU"].values[metric] - evaluation.systems["IoU"].values[metric]
    gain = np.where(np.isfinite(gain), gain, 0.0)
    order = np.argsort(gain, kind="stable")
    concepts = evaluator.concepts
    neighbours = neighbour_sets(kg, evaluator.engine.vocabulary, n, evaluator.mode)
    label_of = evaluator.labels
    examples = []
    for kind, rows in (("better", order[::-1][:count]), ("worse", order[:count])):
        for row in rows:
            if gain[row] == 0:
                continue
            query = concepts.ids[row]
            a = concepts.sets[row]
            iou_ids = [concepts.ids[j] for j in by_iou.documents[row] if j >= 0]
            nn_ids = [concepts.ids[j] for j in by_nn.documents[row] if j >= 0]
            paths = []
            for image in nn_ids:
                if image in iou_ids:
                    continue
                b = concepts[image]
                matched = approximate_matches(a, b, neighbours)
                for x in sorted(a):
                    for y in sorted(neighbours.get(x, frozenset()) & b):
                        if x in matched or y in matched:
                            paths.append({"image": image, "path": kg.shortest_path(x, y, evaluator.mode, max_hops=n)})
            examples.append({
                "kind": kind, "query": query, "gain": float(gain[row]), "concepts": sorted(a),
                "labels": {kind_: sorted(label_of.by_kind[kind_].get(query, ())) for kind_ in label_of.by_kind}
                if label_of is not None else {},
                "iou_top": [(i, iou(a, concepts[i])) for i in iou_ids],
                "nn_top": [(i, nn_iou(a, concepts[i], neighbours, alpha)) for i in nn_ids],
                "paths": paths,
            })
    return examples


def timing_curve(concepts: ConceptSets, kg: KnowledgeGraph, sizes: Sequence[int], reference_sample: int = 20,
                 k: int = 10, measure: MeasureSpec = PAPER_MEASURE,
                 progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """Fig. 4: time of the ideal CUI@k / nn-CUI@k computation (nn-CUI@k under ``measure``, an nn-IoU spec) against the
    number of queries.

    Queries are the first ``size`` images, candidates the whole split. The engine is timed
    for real at every size (KG index included for nn-IoU). The per-pair Python
    implementations, with the neighbour dictionary precomputed once and without it
    (neighbours found by breadth-first search in the KG for every pair), are timed on
    ``reference_sample`` queries and scaled linearly; the scaled rows say so. ``progress(fraction,
    text)`` is called before each timed part.
    """
    alpha, n = measure.params["alpha"], measure.hops
    rows = []
    pool = list(concepts.sets)
    parts = 3 + 2 * len(sizes)

    def report(done: int, text: str) -> None:
        if progress:
            progress(done / parts, text)

    def per_pair_seconds(relevance: Callable[[frozenset[str], frozenset[str]], float], sample: int) -> float:
        start = time.perf_counter()
        for q in range(sample):
            a = pool[q]
            values = sorted((relevance(a, b) for j, b in enumerate(pool) if j != q), reverse=True)
            del values[k:]
        return (time.perf_counter() - start) / sample

    report(0, "Timing IoU per pair in Python")
    started = time.perf_counter()
    dictionary = neighbour_sets(kg, concepts.vocabulary, n)
    dictionary_seconds = time.perf_counter() - started
    iou_per_query = per_pair_seconds(iou, reference_sample)
    report(1, "Timing nn-IoU per pair with a neighbour dictionary")
    dictionary_per_query = per_pair_seconds(lambda a, b: nn_iou(a, b, dictionary, alpha), reference_sample)

    def neighbours_by_search(a: frozenset[str], b: frozenset[str]) -> float:
        found = {x: frozenset(kg.distances_from(x, n)) - {x} for x in (a ^ b)}
        return nn_iou(a, b, found, alpha)

    report(2, "Timing nn-IoU per pair with a KG search per pair")
    search_per_query = per_pair_seconds(neighbours_by_search, max(1, reference_sample // 10))
    for position, size in enumerate(sizes):
        queries = concepts.subset(concepts.ids[:size])
        report(3 + 2 * position, f"Timing the engine on {size:,} queries (IoU)")
        start = time.perf_counter()
        PairwiseEngine(queries, concepts).pool_summary_by(measure_spec("iou"), k)
        engine_iou = time.perf_counter() - start
        report(4 + 2 * position, f"Timing the engine on {size:,} queries (nn-IoU)")
        start = time.perf_counter()
        PairwiseEngine(queries, concepts, kg=kg).pool_summary_by(measure, k)
        engine_nn = time.perf_counter() - start
        rows += [
            {"queries": size, "method": "IoU, vectorised engine", "seconds": engine_iou, "scaled": False},
            {"queries": size, "method": "nn-IoU, vectorised engine (KG index built)", "seconds": engine_nn,
             "scaled": False},
            {"queries": size, "method": "IoU, per pair in Python", "seconds": iou_per_query * size, "scaled": True},
            {"queries": size, "method": "nn-IoU, per pair, with neighbour dictionary",
             "seconds": dictionary_seconds + dictionary_per_query * size, "scaled": True},
            {"queries": size, "method": "nn-IoU, per pair, without dictionary (KG search per pair)",
             "seconds": search_per_query * size, "scaled": True},
        ]
    report(parts, "done")
    return pd.DataFrame(rows)
