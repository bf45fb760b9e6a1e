"""The JAX array backend on full ROCOv2 and a 1 M-image synthetic pool, against the numpy engine (issue 15).

Rows (each measured in a fresh child process, so that its peak memory is its own):

- ``full``: all 79,793 ROCOv2 images (train + valid + test) against each other, the ideal top-10 of
  nn-IoU(alpha 0.5, n 1) with the open KG: the pool summary behind nn-CUI@10. Target <= 1.0 s on an H100.
- ``pool``: the same 79,793 queries against a synthetic pool of 1,000,000 concept sets resampled from
  ROCOv2 (seeded, so every run draws the same pool). Target <= 15 s on an H100.

Each row times, from loaded concept sets and KG: building the engine (sparse matrices, KG
neighbours) plus one ranking pass, transfers to and from the device included, with XLA's program
already compiled (``seconds``); the first pass with compilation is shown too (``cold``). The numpy
engine does the same work on this machine's CPUs; on more than ``--numpy-queries`` queries it is
timed on that many and scaled by the query count (marked ``scaled``). Both results are compared.
``int8 share``: the products' integer operations (padded shapes as run) over the whole pass time,
as a share of the device's peak dense int8 throughput (table below; none for CPUs).

Usage: python benchmarks/bench_gpu.py [--device gpu|cpu] [--queries N] [--pool-size N] [--rows full pool]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from evalcore.data import ConceptSets  # noqa: E402
from evalcore.engine import Compute, PairwiseEngine  # noqa: E402
from evalcore.io.loading import combine_concepts, load_kg  # noqa: E402
from evalcore.readers import read_concepts  # noqa: E402
from evalcore.relevance.measures import measure_spec  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
MEASURE = measure_spec("nn-iou", alpha=0.5, n=1)
K = 10
POOL_SEED = 15
# Peak dense int8 tensor throughput (TOPS, without sparsity) from the vendors' data sheets, by device name.
PEAK_INT8_TOPS = (("H100 PCIe", 1513.0), ("H100 NVL", 1671.0), ("H100", 1979.0), ("H200", 1979.0), ("GH200", 1979.0),
                  ("A100", 624.0), ("L40S", 733.0), ("L4", 242.5), ("A10", 250.0), ("T4", 130.0))
TARGETS = {"full": "<= 1.0 s (H100)", "pool": "<= 15 s (H100)"}


def peak_int8_tops(device_name: str) -> float | None:
    """Peak dense int8 TOPS of a device by its name; None when unknown (e.g. a CPU).

    >>> peak_int8_tops("NVIDIA H100 80GB HBM3"), peak_int8_tops("NVIDIA H100 PCIe"), peak_int8_tops("cpu")
    (1979.0, 1513.0, None)
    """
    return next((tops for name, tops in PEAK_INT8_TOPS if name in device_name), None)


def process_peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rocov2() -> ConceptSets:
    parts = [read_concepts(DATA / "rocov2" / f"{split}_concepts.csv") for split in ("train", "valid", "test")]
    return combine_concepts(parts, "ROCOv2 train+valid+test")


def synthetic_pool(concepts: ConceptSets, size: int) -> ConceptSets:
    """``size`` concept sets drawn with replacement from ROCOv2's, seeded: the same pool on every run."""
    drawn = np.random.default_rng(POOL_SEED).integers(0, len(concepts), size)
    return ConceptSets(tuple(f"synthetic-{i:07d}" for i in range(size)), tuple(concepts.sets[j] for j in drawn),
                       "synthetic pool")


def timed_pass(queries: ConceptSets, pool: ConceptSets, kg, compute: Compute) -> tuple[float, float, object,
                                                                                       PairwiseEngine]:
    start = time.perf_counter()
    engine = PairwiseEngine(queries, pool, kg=kg, cache_bytes=0, compute=compute)
    built = time.perf_counter() - start
    summary = engine.pool_summary_by(MEASURE, K)
    return built, time.perf_counter() - start, summary, engine


def child(row: str, device: str, queries_wanted: int, pool_size: int, numpy_queries: int) -> dict:
    concepts = rocov2()
    kg = load_kg([DATA / "kg" / "open_kg_edges.csv"])
    pool = concepts if row == "full" else synthetic_pool(concepts, pool_size)
    count = min(queries_wanted or len(concepts), len(concepts))
    queries = concepts if count == len(concepts) else concepts.subset(concepts.ids[:: len(concepts) // count][:count])

    on_device = Compute(backend="jax", device=device)
    _, cold, _, _ = timed_pass(queries, pool, kg, on_device)
    built, seconds, summary, engine = timed_pass(queries, pool, kg, on_device)
    ranker = engine.array_backend
    assert engine.last_pass.backend == "jax", engine.last_pass.text()
    stats = ranker.last_stats
    memory = ranker.device.memory_stats() or {}  # None on the CPU
    # A stat the allocator does not keep is missing, or -1 through JAX's PJRT C API (the CUDA plugin's path).
    peak_device_mb = memory["peak_bytes_in_use"] / 2**20 if memory.get("peak_bytes_in_use", -1) >= 0 else None
    peak_process_mb = process_peak_mb()
    tops = peak_int8_tops(ranker.device.device_kind if ranker.kind == "gpu" else "cpu")
    pass_seconds = seconds - built
    achieved_tops = stats["int8_ops"] / pass_seconds / 1e12

    # The numpy engine on the same queries, or on an evenly spread subset scaled by the query count.
    reference_count = min(numpy_queries, len(queries))
    reference_queries = queries if reference_count == len(queries) else queries.subset(
        queries.ids[:: len(queries) // reference_count][:reference_count])
    numpy_built, numpy_seconds, expected, _ = timed_pass(reference_queries, pool, kg, Compute())
    rows = np.array([queries.index[i] for i in reference_queries.ids])
    same = (np.array_equal(expected.ideal, summary.ideal[rows])
            and np.array_equal(expected.relevant_counts, summary.relevant_counts[rows]))
    scale = len(queries) / len(reference_queries)
    numpy_scaled = numpy_built + (numpy_seconds - numpy_built) * scale
    return {
        "row": row, "work": f"{len(queries):,} queries x {len(pool):,} candidates, nn-IoU ideal top-{K}",
        "device": engine.last_pass.device, "seconds": seconds, "build_seconds": built, "cold_seconds": cold,
        "numpy_seconds": numpy_scaled, "numpy_scaled_from": len(reference_queries) if scale > 1 else None,
        "ratio": numpy_scaled / seconds, "peak_device_mb": peak_device_mb, "peak_process_mb": peak_process_mb,
        "int8_tops": achieved_tops, "int8_share": achieved_tops / tops if tops else None, "blocks": stats,
        "same_as_numpy": bool(same), "target": TARGETS[row] + ("" if count == 79_793 else ", for all 79,793 queries"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", choices=("gpu", "cpu"), default="gpu")
    parser.add_argument("--queries", type=int, default=0, help="queries (evenly spread over ROCOv2; 0 = all 79,793)")
    parser.add_argument("--pool-size", type=int, default=1_000_000, help="synthetic pool size of the 'pool' row")
    parser.add_argument("--numpy-queries", type=int, default=2_000, help="queries the numpy engine is timed on")
    parser.add_argument("--rows", nargs="+", choices=("full", "pool"), default=["full", "pool"])
    parser.add_argument("--json", help="also write the rows here")
    parser.add_argument("--child", choices=("full", "pool"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.device, args.queries, args.pool_size, args.numpy_queries)))
        return
    results = []
    for row in args.rows:
        command = [sys.executable, __file__, "--child", row, "--device", args.device, "--queries", str(args.queries),
                   "--pool-size", str(args.pool_size), "--numpy-queries", str(args.numpy_queries)]
        process = subprocess.run(command, capture_output=True, text=True)
        if process.returncode:
            sys.exit(f"row {row} failed:\n{process.stderr[-3000:]}")
        results.append(json.loads(process.stdout.strip().splitlines()[-1]))
    print(f"{'work':52s} {'device':>10s} {'seconds':>8s} {'cold':>7s} {'numpy':>8s} {'ratio':>7s} {'peak MB':>8s} "
          f"{'int8 share':>10s} same  target")
    for r in results:
        peak = r["peak_device_mb"] if r["peak_device_mb"] is not None else r["peak_process_mb"]
        share = f"{100 * r['int8_share']:.1f}%" if r["int8_share"] is not None else "n/a"
        scaled = "*" if r["numpy_scaled_from"] else " "
        print(f"{r['work'][:52]:52s} {r['device'][:10]:>10s} {r['seconds']:8.2f} {r['cold_seconds']:7.2f} "
              f"{r['numpy_seconds']:7.1f}{scaled} {r['ratio']:7.2f} {peak:8.0f} {share:>10s} {str(r['same_as_numpy']):5s} "
              f"{r['target']}")
    print("seconds: engine build + one pass, transfers included, program compiled; cold: the first pass with "
          "compilation; numpy*: timed on --numpy-queries queries and scaled; peak MB: device memory on a GPU, "
          "process RSS on the CPU")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
