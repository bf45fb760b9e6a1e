"""Scale-out of the engine: local worker processes and a Dask LocalCluster against the in-process engine,
every ratio measured in this run on the same work (docs/SCALE.md).

"before" is the in-process engine as it ran before this change, reproduced in this run: the same block
function in two threads, BLAS left at its own thread count (the engine now holds it at one thread per block;
that is the only difference). Every backend's arrays are checked identical to it.

Rows: full ROCOv2 (79,793 x 79,793) nn-IoU ideal top-10; speed-up from 1 to N local workers (each timed
twice per round, in the order tN t1 t1 tN; --rounds R gives the median of R rounds, the lower one for an even R); 10,000 queries x
1,000,000 synthetic images (scripts/make_synthetic_pool.py) within 2 GB per worker; the ablation grid
(44 settings, ROCOv2 test); a LocalCluster of 2 workers against in-process on ROCOv2 test.

The ablation row's reference is the grid with every pass ranking the pairs' keys (before code groups), in
the same run; the grid as it ran before the backends is given in its note.

Usage: python benchmarks/bench_scale.py [--workers N] [--quick] [--only ablation] [--rounds R]
  --quick: 10,000 queries of full ROCOv2 and a 200,000-image synthetic pool (about a minute); targets are
  then only indicative.
  --only ablation: only the ablation grid's row (about a minute under load).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import numpy as np  # noqa: E402

import evalcore.engine.pairwise as engine_module  # noqa: E402
from evalcore.data import ConceptSets  # noqa: E402
from evalcore.engine import Compute, PairwiseEngine  # noqa: E402
from evalcore.engine.executors import DaskCluster, LocalProcesses  # noqa: E402
from evalcore.evaluation.evaluator import Evaluator  # noqa: E402
from evalcore.io.loading import combine_concepts, load_kg, load_labels  # noqa: E402
from evalcore.readers import read_concepts  # noqa: E402
from evalcore.relevance.measures import measure_spec  # noqa: E402
from evalcore.studies.ablation import ablation_grid  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
MEASURE = measure_spec("nn-iou", alpha=0.5, n=1)
GB = 10**9


@contextlib.contextmanager
def before_backends():
    """The in-process engine as it was: BLAS threads left at the library's default."""
    kept = engine_module.blas_single_thread
    engine_module.blas_single_thread = contextlib.nullcontext
    try:
        yield
    finally:
        engine_module.blas_single_thread = kept


class WorkerPeak:
    """Largest peak resident memory (VmHWM) of this process's children while it runs: the worker processes.

    VmHWM is a high-water mark, so a read every half second loses nothing as long as a worker lives that long;
    polling every 50 ms took 6 % of a core (psutil scans every process of the machine to find the children),
    taken from the workers while the N-worker pass was timed, and not while the 1-worker pass was.
    """

    INTERVAL = 0.5

    def __init__(self):
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        import psutil

        me = psutil.Process()
        while not self._stop.wait(self.INTERVAL):
            for child in me.children(recursive=True):
                with contextlib.suppress(OSError):
                    for line in Path(f"/proc/{child.pid}/status").read_text().splitlines():
                        if line.startswith("VmHWM:"):
                            self.peak = max(self.peak, int(line.split()[1]) * 1024)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def timed(function: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def same(a, b) -> bool:
    (sa, ta), (sb, tb) = a, b
    return (np.array_equal(sa.ideal, sb.ideal) and np.array_equal(sa.relevant_counts, sb.relevant_counts)
            and np.array_equal(ta, tb))


def rank(queries: ConceptSets, pool: ConceptSets | None, kg, executor=None, memory=2 << 30):
    engine = PairwiseEngine(queries, pool, kg=kg, cache_bytes=0,
                            compute=Compute(executor=executor, memory_per_worker=memory))
    return engine.rank_by(MEASURE, 10, 0.5, 0)


ROWS: list[dict] = []


def row(work: str, seconds: float, reference: float | None, target: str, met: bool, note: str = "") -> None:
    ROWS.append({"work": work, "seconds": seconds, "reference": reference, "target": target, "met": met, "note": note})
    ratio = f"{reference / seconds:7.2f}x" if reference else "        "
    shown = f"{reference:9.2f}" if reference else "         "
    print(f"{work[:64]:64s} {seconds:8.2f} {shown} {ratio}  {'met ' if met else 'MISSED'} {target} {note}", flush=True)


def load() -> str:
    """The 1, 5 and 15 minute load averages (other work on the machine slows every row)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def ablation(test: ConceptSets, kg) -> bool:
    """4. The ablation grid on ROCOv2 test, 44 settings of retrieval by relevance: before the backends, before
    code groups, then now (each with a fresh evaluator; the first run also pays the process's first touches of
    its memory and the KG's cached indexes, 1-2 s under load). True if the three tables are identical."""
    labels = load_labels(ROOT / "data" / "labels" / "rocov2_labels.csv", test)

    def grid(group_codes: bool = True):
        # group_codes=False: the engine as it ranked before code groups, every pass ranking the pairs' keys.
        evaluator = Evaluator(test, kg, labels=labels, compute=Compute(group_codes=group_codes))
        return ablation_grid(evaluator, [], ["P@30[modality]", "nn-CUI@10"])

    with before_backends():
        before, table_before = timed(lambda: grid(group_codes=False))
    plain, table_plain = timed(lambda: grid(group_codes=False))
    seconds, table = timed(grid)
    identical = table.equals(table_plain) and table.equals(table_before)
    row("ablation grid, 44 settings, ROCOv2 test (fresh evaluator)", seconds, plain, "<= 5 s", seconds <= 5,
        f"identical={identical}, before the backends {before:.2f} s, load average {load()}")
    return identical


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="N local workers (default: cores)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--only", choices=["ablation"], help="run only this row")
    parser.add_argument("--rounds", type=int, default=1, help="rounds of tN t1 t1 tN for the speed-up (median)")
    args = parser.parse_args()
    n = args.workers
    kg = load_kg([DATA / "kg" / "open_kg_edges.csv"])
    print(f"{'work':64s} {'seconds':>8s} {'before':>9s} {'ratio':>8s}  target  (taken with {n} workers, "
          f"{os.cpu_count()} cores; other work may run on this machine; load average {load()})")
    if args.only == "ablation":
        ablation(read_concepts(DATA / "rocov2" / "test_concepts.csv"), kg)
        return
    parts = [read_concepts(DATA / "rocov2" / f"{split}_concepts.csv") for split in ("train", "valid", "test")]
    full = combine_concepts(parts, "ROCOv2 train+valid+test")
    test = parts[2]
    queries = ConceptSets(full.ids[:10_000], full.sets[:10_000], "first 10,000") if args.quick else full
    size = f"{len(queries):,} x {len(full):,}"

    # 1. Full ROCOv2: before, in-process now, N local workers.
    with before_backends():
        before, expected = timed(lambda: rank(queries, full, kg))
    now, result = timed(lambda: rank(queries, full, kg))
    identical = same(expected, result)
    row(f"ROCOv2 {size} nn-IoU ideal top-10, in-process", now, before,
        "<= 20 s" if not args.quick else "(quick)", now <= 20 * len(queries) / len(full), f"identical={identical}")
    # The fork server of local workers starts once per process (about 0.6 s of imports): start it before timing,
    # so that neither t1 nor tN carries it (it used to fall on tN, the first pass with workers).
    rank(ConceptSets(queries.ids[:200], queries.sets[:200], "warm-up"), full, kg, LocalProcesses(1))
    with WorkerPeak() as peak:
        parallel, result = timed(lambda: rank(queries, full, kg, LocalProcesses(n)))
    identical &= same(expected, result)
    row(f"ROCOv2 {size} nn-IoU ideal top-10, {n} local workers", parallel, before,
        "<= 20 s" if not args.quick else "(quick)", parallel <= 20 * len(queries) / len(full),
        f"identical={same(expected, result)}, peak {peak.peak / GB:.2f} GB per worker")

    # 2. Speed-up from 1 to N local workers on the same work. Each round is timed in the order tN t1 t1 tN (the first
    # round's first tN is row 1's), so that a machine drifting slower or faster weighs on both sides alike; the
    # row is the median round.
    def timed_pass(workers: int) -> float:
        nonlocal identical
        seconds, result = timed(lambda: rank(queries, full, kg, LocalProcesses(workers)))
        identical &= same(expected, result)
        return seconds

    rounds = []
    for position in range(args.rounds):
        first = parallel if position == 0 else timed_pass(n)
        ones = [timed_pass(1), timed_pass(1)]
        rounds.append((sum(ones) / 2, (first + timed_pass(n)) / 2))
    one, parallel = sorted(rounds, key=lambda r: r[0] / r[1])[(len(rounds) - 1) // 2]  # the lower median
    row(f"speed-up 1 -> {n} local workers (t1 / t{n}, median of {len(rounds)} rounds)", parallel, one,
        f">= {0.8 * n:.1f}x", one / parallel >= 0.8 * n,
        "rounds (mean t1 / mean tN): " + ", ".join(f"{a:.2f}/{b:.2f} s = {a / b:.2f}x" for a, b in rounds))

    # 3. 10,000 queries x a synthetic pool of 1,000,000 (quick: 200,000) images, 2 GB per worker.
    from make_synthetic_pool import make_pool

    pool_size = 200_000 if args.quick else 1_000_000
    started = time.perf_counter()
    pool = make_pool(full, pool_size, seed=0)
    big_queries = ConceptSets(pool.ids[:10_000], pool.sets[:10_000], "first 10,000 of the pool")
    print(f"  (synthetic pool of {pool_size:,} made in {time.perf_counter() - started:.1f} s)", flush=True)
    with before_backends():
        before, expected_big = timed(lambda: rank(big_queries, pool, kg))
    with WorkerPeak() as peak:
        seconds, result = timed(lambda: rank(big_queries, pool, kg, LocalProcesses(n), memory=2 * GB))
    identical &= same(expected_big, result)
    row(f"10,000 x {pool_size:,} synthetic, {n} local workers, 2 GB each", seconds, before,
        "<= 45 s, <= 2 GB per worker", seconds <= 45 * pool_size / 1e6 and peak.peak <= 2 * GB,
        f"identical={same(expected_big, result)}, peak {peak.peak / GB:.2f} GB per worker")

    identical &= ablation(test, kg)

    # 5. A LocalCluster of 2 workers against in-process, ROCOv2 test nn-CUI@10 ideal.
    from distributed import Client, LocalCluster

    in_process, expected_test = timed(lambda: rank(test, None, kg))
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, silence_logs=40) as cluster, \
            Client(cluster) as client:
        rank(test, None, kg, DaskCluster(client))  # warm: workers import evalcore once
        on_cluster = min(timed(lambda: rank(test, None, kg, DaskCluster(client)))[0] for _ in range(3))
        result = rank(test, None, kg, DaskCluster(client))
    identical &= same(expected_test, result)
    overhead = on_cluster / in_process - 1
    row("LocalCluster 2 workers vs in-process, ROCOv2 test nn-IoU top-10", on_cluster, in_process,
        "overhead <= 30 %", overhead <= 0.30, f"overhead {overhead:+.0%}, identical={same(expected_test, result)}")
    print(f"every backend identical to in-process: {identical}")


if __name__ == "__main__":
    main()
