"""Speed of the vectorised engine against a straightforward per-pair reference, on ROCOv2.

Prints, for every row of the speed table: median wall time over repeats, peak memory (RSS of
this process so far, or of a child process for the large pool) and the ratio to the reference
measured in the same run. Usage: python benchmarks/bench_engine.py [--repeats 3] [--sample 60]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sample", type=int, default=60, help="queries timed for the reference")
    parser.add_argument("--skip-large", action="store_true")
    args = parser.parse_args()
    concepts = read_concepts(DATA / "rocov2" / "test_concepts.csv")
    kg_paths = [DATA / "kg" / "open_kg_edges.csv"]
    kg = load_kg(kg_paths)
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
    print(json.dumps(rows), file=sys.stderr)


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
