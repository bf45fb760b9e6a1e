"""The knowledge graph at UMLS scale: read a synthetic MRREL.RRF, build the graph and the neighbour index.

The file comes from scripts/make_synthetic_kg.py (default 3.5 M nodes, 8 M edges, 10 M lines; the
CUIs of ROCOv2 train + valid + test are nodes of it) and is written once to --cache. Each measured
step runs in a fresh child process, so that its peak memory (VmHWM) is its own:

- engine: ``read_kg`` (one streaming pass, vectorised) + ``KnowledgeGraph.from_edges`` +
  ``neighbour_matrix`` of the ROCOv2 vocabulary at n = 1 and n = 2;
- reference: the line-by-line definition of the reader (tests/line_by_line.py: one Python step
  per line, a set of string triples; what the reader was before), then the same graph and index;
- depths: ``concept_depths`` (nn-IoU-depth) on a 20,000-deep is_a chain, against the relaxation it replaced
  (one pass per level, kept in tests/engine/test_hostile_scale.py), with the ratio of their times.

Usage: python benchmarks/bench_kg_scale.py [--quick] [--skip-reference] [--nodes N --edges E --lines L]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "data"
ROCOV2 = [DATA / "rocov2" / f"{split}_concepts.csv" for split in ("train", "valid", "test")]
DEMO = ROOT / "data" / "demo" / "concepts.csv"


def peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def concept_files() -> list[Path]:
    return ROCOV2 if all(path.exists() for path in ROCOV2) else [DEMO]


def child(kind: str, path: str) -> None:
    """One measured step in this (fresh) process; prints one JSON line."""
    from evalcore.data import KGEdges
    from evalcore.io.loading import combine_concepts
    from evalcore.readers import read_concepts, read_input_bytes, read_kg
    from evalcore.relevance.kg import KnowledgeGraph

    vocabulary = combine_concepts([read_concepts(p) for p in concept_files()], "pool").vocabulary
    start = time.perf_counter()
    if kind == "engine":
        edges = read_kg(path)
    else:
        sys.path.insert(0, str(ROOT / "tests"))
        import line_by_line

        data, display = read_input_bytes(path)
        edges = KGEdges(line_by_line.read_mrrel_edges(data, display), {}, display)
        del data
    read = time.perf_counter() - start
    kg = KnowledgeGraph.from_edges([edges])
    built = time.perf_counter() - start - read
    neighbours = []
    for hops in (1, 2):
        matrix = kg.neighbour_matrix(vocabulary, hops)
        neighbours.append(int(matrix.nnz))
    total = time.perf_counter() - start
    print(json.dumps({"kind": kind, "read_s": read, "graph_s": built, "index_s": total - read - built, "seconds": total,
                      "peak_mb": peak_mb(), "nodes": kg.number_of_nodes(), "edges": kg.number_of_edges(),
                      "vocabulary": len(vocabulary), "neighbour_pairs": neighbours}))


def depth_row(nodes: int = 20_000) -> None:
    """Print the times of the is_a depths on a chain of ``nodes``: the relaxation (a pass per level, quadratic on
    a chain) and the walk in topological order."""
    import numpy as np
    import scipy.sparse as sp

    from evalcore.relevance.kg import KnowledgeGraph
    from evalcore.relevance.taxonomy import concept_depths
    from tests.engine.test_hostile_scale import relaxed_depths

    parents = sp.csr_matrix((np.ones(nodes - 1, dtype=np.int8), (np.arange(1, nodes), np.arange(nodes - 1))),
                            shape=(nodes, nodes))
    chain = KnowledgeGraph(tuple(f"C{i:07d}" for i in range(nodes)), parents, {})
    times, found = [], []
    for depths in (relaxed_depths, concept_depths):
        start = time.perf_counter()
        found.append(depths(chain))
        times.append(time.perf_counter() - start)
    if not np.array_equal(*found):
        raise SystemExit("concept_depths and the relaxation disagree on the chain")
    print(f"is_a depths of a {nodes:,}-deep chain: relaxation {times[0]:.2f} s, topological order {times[1]:.3f} s "
          f"({times[0] / times[1]:.0f}x)")


def run_child(kind: str, path: Path, budget: int) -> dict:
    # The reference reads the whole file at once: its byte budget must cover the file.
    result = subprocess.run([sys.executable, __file__, "--child", kind, str(path)], capture_output=True, text=True,
                            env={**os.environ, "CBIR_LENS_MAX_INPUT_BYTES": str(budget)})
    if result.returncode != 0:
        raise SystemExit(f"{kind} step failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="a tenth of the size: 350 k nodes, 800 k edges, 1 M lines")
    parser.add_argument("--nodes", type=int)
    parser.add_argument("--edges", type=int)
    parser.add_argument("--lines", type=int)
    parser.add_argument("--skip-reference", action="store_true", help="the line-by-line reader takes minutes and GBs")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/cbir_lens_bench"))
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    nodes, edges, lines = (args.nodes or 3_500_000 // scale, args.edges or 8_000_000 // scale,
                           args.lines or 10_000_000 // scale)
    path = args.cache / f"MRREL_{nodes}_{edges}_{lines}.RRF"
    if not path.exists():
        start = time.perf_counter()
        include = [argument for concepts in concept_files() for argument in ("--include", str(concepts))]
        subprocess.run([sys.executable, str(ROOT / "scripts" / "make_synthetic_kg.py"), str(path), "--nodes", str(nodes),
                        "--edges", str(edges), "--lines", str(lines), *include], check=True)
        print(f"generated {path} in {time.perf_counter() - start:.1f} s")
    size = path.stat().st_size
    budget = 2 * size + (1 << 20)
    engine = run_child("engine", path, budget)
    rows = [engine]
    if not args.skip_reference:
        rows.append(run_child("reference", path, budget))
        if rows[1]["neighbour_pairs"] != engine["neighbour_pairs"] or rows[1]["edges"] != engine["edges"]:
            raise SystemExit("engine and reference disagree: " + json.dumps(rows))
    print(f"MRREL.RRF: {lines:,} lines, {size / 1e9:.2f} GB; graph {engine['nodes']:,} nodes, {engine['edges']:,} edges; "
          f"neighbour index of {engine['vocabulary']:,} ROCOv2 CUIs, pairs within n=1, 2: {engine['neighbour_pairs']}")
    print(f"{'step':10s} {'read s':>8s} {'graph s':>8s} {'index s':>8s} {'total s':>8s} {'peak GB':>8s}")
    for row in rows:
        print(f"{row['kind']:10s} {row['read_s']:8.1f} {row['graph_s']:8.1f} {row['index_s']:8.1f} {row['seconds']:8.1f} "
              f"{row['peak_mb'] / 1024:8.2f}")
    if len(rows) == 2:
        print(f"speed-up over the line-by-line reader: {rows[1]['seconds'] / engine['seconds']:.1f}x, "
              f"memory {rows[1]['peak_mb'] / engine['peak_mb']:.1f}x less")
    depth_row()
    target = "<= 60 s, <= 6 GB" if scale == 1 else "(full size: <= 60 s, <= 6 GB)"
    met = engine["seconds"] <= 60 and engine["peak_mb"] <= 6 * 1024
    print(f"target {target}: {'met' if met else 'missed'}")


if __name__ == "__main__":
    if "--child" in sys.argv:
        child(sys.argv[sys.argv.index("--child") + 1], sys.argv[sys.argv.index("--child") + 2])
    else:
        main()
