"""Speed of the vectorised engine against a straightforward per-pair reference, on ROCOv2.

Prints, for every row of the speed table: median wall time over repeats, peak memory (RSS of
this process so far, or of a child process for the large pool) and the ratio to the reference
measured in the same run. Usage: python benchmarks/bench_engine.py [--repeats 3] [--sample 60]

Then the engine near its floor, in CPU seconds against a notebook's retrieval by IoU (:func:`notebook_iou_top`, float64
and float32): ``python -m evalcore retrieve --by iou`` as a whole process, the engine's nn-CUI@10 pass and the
dashboard's two passes (ranking by nn-IoU, then by IoU on its cached codes, which groups them for later alphas).
``--floor-only`` prints these rows alone.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

from evalcore.evaluation.evaluator import Evaluator  # noqa: E402
from evalcore.evaluation.options import Relevance  # noqa: E402
from evalcore.evaluation.retrieval import retrieve_by_measure  # noqa: E402
from evalcore.io.loading import combine_concepts, load_kg, load_labels  # noqa: E402
from evalcore.readers import read_concepts  # noqa: E402
from evalcore.relevance.formulas import nn_iou  # noqa: E402
from evalcore.relevance.kg import neighbour_sets  # noqa: E402
from evalcore.relevance.measures import measure_spec  # noqa: E402
from evalcore.studies.ablation import ablation_grid  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
NOTEBOOK_DEPTH = 100


def peak_mb() -> float:
    """Peak resident memory of this process image (VmHWM; ru_maxrss would carry the parent's peak over exec)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(function, repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def reference_ndcg(concepts, neighbours, run, queries, k=10, alpha=0.5) -> dict[str, float]:
    """Straightforward: per query, nn-IoU with every candidate from Python sets, sort, DCG / IDCG."""
    values = {}
    for q in queries:
        a = concepts[q]
        pool = sorted((nn_iou(a, concepts.sets[j], neighbours, alpha) for j, c in enumerate(concepts.ids) if c != q),
                      reverse=True)
        ideal = sum(v / math.log2(i + 2) for i, v in enumerate(pool[:k]))
        ranked = [d for d in run.rankings[q] if d != q][:k]
        actual = sum(nn_iou(a, concepts[d], neighbours, alpha) / math.log2(i + 2) for i, d in enumerate(ranked))
        values[q] = actual / ideal if ideal > 0 else float("nan")
    return values


def cpu_seconds() -> float:
    """CPU time of this process, all its threads, user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def cpu_timed(function, repeats: int) -> tuple[float, float, object]:
    """Median wall and CPU seconds of ``function`` over ``repeats`` calls, and its last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), cpu_seconds()
        result = function()
        walls.append(time.perf_counter() - wall)
        cpus.append(cpu_seconds() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def notebook_iou_top(sets, dtype, depth: int = NOTEBOOK_DEPTH, block: int = 1024) -> np.ndarray:
    """Retrieval by IoU as a notebook writes it: a binary CSR matrix, intersections X @ X.T by blocks of rows, the
    union from the sizes, the query itself left out, argpartition for the top ``depth``, then those sorted."""
    vocabulary = {concept: i for i, concept in enumerate(sorted(set().union(*sets)))}
    rows = np.repeat(np.arange(len(sets)), [len(s) for s in sets])
    columns = np.fromiter((vocabulary[c] for s in sets for c in s), dtype=np.int64, count=len(rows))
    x = sp.csr_matrix((np.ones(len(rows), dtype=dtype), (rows, columns)), shape=(len(sets), len(vocabulary)))
    sizes = np.asarray(x.sum(axis=1), dtype=dtype).ravel()
    x_t = x.T.tocsc()
    tops = []
    for start in range(0, len(sets), block):
        stop = min(start + block, len(sets))
        intersection = (x[start:stop] @ x_t).toarray()
        union = sizes[start:stop, None] + sizes[None, :] - intersection
        iou = np.divide(intersection, union, out=np.zeros_like(intersection), where=union > 0)
        iou[np.arange(stop - start), np.arange(start, stop)] = -1  # the query itself
        part = np.argpartition(-iou, depth - 1, axis=1)[:, :depth]
        order = np.argsort(-np.take_along_axis(iou, part, axis=1), axis=1, kind="stable")
        tops.append(np.take_along_axis(part, order, axis=1))
    return np.vstack(tops)


def floor_rows(concepts, kg, repeats: int) -> list[dict]:
    """The engine near its floor, each row's CPU seconds against the notebook's (float64) measured here."""
    from evalcore.engine import PairwiseEngine

    rows = []
    for dtype in (np.float64, np.float32):
        wall, cpu, _ = cpu_timed(partial(notebook_iou_top, concepts.sets, dtype), repeats)
        rows.append({"work": f"notebook: retrieval by IoU, top {NOTEBOOK_DEPTH}, {np.dtype(dtype).name}",
                     "wall": wall, "cpu": cpu, "target": "reference"})
    notebook = rows[0]["cpu"]

    def retrieve_process() -> None:
        subprocess.run([sys.executable, "-m", "evalcore", "retrieve", "--concepts", str(DATA / "rocov2" /
                        "test_concepts.csv"), "--by", "iou", "--depth", str(NOTEBOOK_DEPTH), "--out",
                        "/tmp/cbir_lens_bench_retrieve_iou.trec"], cwd=ROOT, check=True, capture_output=True)

    walls, cpus = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        retrieve_process()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        walls.append(time.perf_counter() - wall)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    rows.append({"work": f"python -m evalcore retrieve --by iou --depth {NOTEBOOK_DEPTH}, whole process",
                 "wall": statistics.median(walls), "cpu": statistics.median(cpus), "target": "CPU <= 1/3 notebook"})

    nn = measure_spec("nn-iou", alpha=0.5, n=1)
    wall, cpu, _ = cpu_timed(lambda: PairwiseEngine(concepts, kg=kg).pool_summary_by(nn, 10), repeats)
    rows.append({"work": "engine: nn-CUI@10 pass (pool summary by nn-IoU, engine built)", "wall": wall, "cpu": cpu,
                 "target": "<= 0.25 s"})
    passes = {"nn-IoU pass, k 10, depth 100 (codes the pool)": [], "IoU pass, depth 100 (groups the codes)": [],
              "a later alpha (ranks the code groups)": []}
    for _ in range(repeats):
        engine = PairwiseEngine(concepts, kg=kg)
        for times, measure in zip(passes.values(), (nn, measure_spec("iou"), measure_spec("nn-iou", alpha=0.7, n=1))):
            times.append(cpu_timed(partial(engine.rank_by, measure, 10, 0.5, NOTEBOOK_DEPTH), 1)[:2])
    for name, times in passes.items():
        rows.append({"work": f"dashboard: {name}", "wall": statistics.median(t[0] for t in times),
                     "cpu": statistics.median(t[1] for t in times), "target": ""})
    print(f"\n{'the engine near its floor':72s} {'wall s':>8s} {'CPU s':>8s} {'CPU/notebook':>13s}  target")
    for row in rows:
        row["cpu_ratio"] = row["cpu"] / notebook
        print(f"{row['work'][:72]:72s} {row['wall']:8.3f} {row['cpu']:8.3f} {row['cpu_ratio']:13.3f}  {row['target']}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sample", type=int, default=60, help="queries timed for the reference")
    parser.add_argument("--skip-large", action="store_true")
    parser.add_argument("--floor-only", action="store_true", help="only the rows of the engine near its floor")
    args = parser.parse_args()
    concepts = read_concepts(DATA / "rocov2" / "test_concepts.csv")
    kg_paths = [DATA / "kg" / "open_kg_edges.csv"]
    kg = load_kg(kg_paths)
    if args.floor_only:
        print(json.dumps(floor_rows(concepts, kg, args.repeats)), file=sys.stderr)
        return
    labels = load_labels(ROOT / "data" / "labels" / "rocov2_labels.csv", concepts)
    run = retrieve_by_measure(Evaluator(concepts), measure_spec("iou"), 30, "iou")
    rows = []

    # 1. One full nn-CUI@10 evaluation, KG index included (fresh evaluator each time).
    def full_evaluation():
        return Evaluator(concepts, kg).evaluate([run], ["nn-CUI@10"], Relevance.of(0.5, 1))

    engine_time, evaluation = timed(full_evaluation, args.repeats)
    sample = list(concepts.ids[:: max(1, len(concepts) // args.sample)])[: args.sample]
    start = time.perf_counter()
    neighbours = neighbour_sets(kg, concepts.vocabulary, 1)
    reference = reference_ndcg(concepts, neighbours, run, sample)
    reference_time = (time.perf_counter() - start) * len(concepts) / len(sample)
    engine_values = dict(zip(evaluation.systems["iou"].query_ids, evaluation.systems["iou"].values["nn-CUI@10"]))
    worst = max(abs(engine_values[q] - reference[q]) for q in sample if not math.isnan(reference[q]))
    rows.append({"work": "nn-CUI@10, 9,927 queries x 9,926 candidates, KG index included",
                 "seconds": engine_time, "reference_seconds_scaled": reference_time,
                 "ratio": reference_time / engine_time, "peak_mb": peak_mb(), "max_abs_difference": worst,
                 "target": "<= 1.0 s, >= 300x"})

    # 2. Ablation grid: 44 settings of retrieval by relevance, P@30[modality] and nn-CUI@10.
    evaluator = Evaluator(concepts, kg, labels=labels)

    def grid():
        return ablation_grid(evaluator, [], ["P@30[modality]", "nn-CUI@10"])

    grid_time, table = timed(grid, 1)
    rows.append({"work": "ablation grid 11 alphas x 4 n (44 settings), retrieval by relevance",
                 "seconds": grid_time, "reference_seconds_scaled": 44 * reference_time,
                 "ratio": 44 * reference_time / grid_time, "peak_mb": peak_mb(), "target": "<= 10 s"})

    # 3. Dashboard: a new alpha with the counts already cached (what the leaderboard does).
    evaluator.evaluate([run], ["nn-CUI@10"], Relevance.of(0.5, 1))

    def new_alpha(alphas=iter(np.linspace(0.05, 0.95, 40))):
        return evaluator.evaluate([run], ["CUI@10", "nn-CUI@10", "P@10[modality]"], Relevance.of(float(next(alphas)), 1))

    alpha_time, _ = timed(new_alpha, args.repeats)
    rows.append({"work": "dashboard: change alpha, KG index and counts cached", "seconds": alpha_time,
                 "reference_seconds_scaled": reference_time, "ratio": reference_time / alpha_time,
                 "peak_mb": peak_mb(), "target": "<= 1.5 s"})

    # 4. Large pool, in a child process so that its peak memory is its own.
    if not args.skip_large:
        child = subprocess.run([sys.executable, __file__, "--large-pool-child"], capture_output=True, text=True)
        large = json.loads(child.stdout.strip().splitlines()[-1])
        large["reference_seconds_scaled"] = reference_time * 79793 / 9926
        large["ratio"] = large["reference_seconds_scaled"] / large["seconds"]
        rows.append(large)

    print(f"{'work':72s} {'seconds':>9s} {'reference':>10s} {'ratio':>8s} {'peak MB':>8s}  target")
    for row in rows:
        print(f"{row['work'][:72]:72s} {row['seconds']:9.3f} {row['reference_seconds_scaled']:10.1f} "
              f"{row['ratio']:8.1f} {row['peak_mb']:8.0f}  {row['target']}")
    print(f"engine == reference on {len(sample)} sampled queries: max |difference| = {worst:.2e}")
    print(json.dumps(rows + floor_rows(concepts, kg, args.repeats)), file=sys.stderr)


def large_pool_child() -> None:
    parts = [read_concepts(DATA / "rocov2" / f"{split}_concepts.csv") for split in ("train", "valid", "test")]
    pool = combine_concepts(parts, "train+valid+test")
    kg = load_kg([DATA / "kg" / "open_kg_edges.csv"])
    start = time.perf_counter()
    evaluator = Evaluator(pool, kg)
    from evalcore.engine import PairwiseEngine

    engine = PairwiseEngine(parts[2], pool, kg=kg, cache_bytes=0)
    summary = engine.pool_summary_by(measure_spec("nn-iou", alpha=0.5, n=1), 10)
    seconds = time.perf_counter() - start
    del evaluator
    print(json.dumps({"work": f"large pool: 9,927 queries x {len(pool):,} candidates, nn-IoU ideal top-10",
                      "seconds": seconds, "peak_mb": peak_mb(), "target": "<= 60 s, <= 4 GB",
                      "checksum": float(summary.ideal.sum())}))


if __name__ == "__main__":
    if "--large-pool-child" in sys.argv:
        large_pool_child()
    else:
        main()
