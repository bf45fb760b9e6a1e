"""The leaderboard's re-draw after an alpha change, in process, on issue 23's setting: ROCOv2 test with the open KG,
the three Table-1 baselines and the three depth-100 runs of `browser_flow.make_runs` (six systems).

Two figures per checkout, each in a child process of its own (a checkout is imported as ``evalcore``):

- ``core``: the evaluator's work for one alpha, split into its parts: the new ranking by nn-IoU over the pool, the
  scoring of the six systems, the summary (means and bootstrap intervals) and the significance tests on nn-CUI@10,
  as the leaderboard computes them; median over six alphas not computed before (after a first change).
- ``page``: the leaderboard page script run by Streamlit's AppTest (the whole script, as a rerun in the browser
  runs it, without the browser's own painting and the websocket), median over the same alphas; ``page CPU``: the
  process's CPU seconds over the same rerun (all its threads), which other processes on the machine inflate less.

``--app-root`` names the checkout to compare with ("before"); the two run alternately, ``--rounds`` times, and
the script prints each part's median over the rounds and the ratio after / before, with the load average. Both
checkouts must give the same numbers: each child prints a digest of every value, interval and p-value it computed,
and the script says whether they agree.

Usage: python benchmarks/bench_redraw.py --app-root PATH [--rounds 2] [--runs-dir /tmp/cbir_lens_bench/runs]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from browser_flow import ROOT, make_runs

ALPHAS = (0.6, 0.7, 0.8, 0.9, 0.4, 0.3, 0.2)
PARTS = ("re-rank", "scoring", "summary", "significance", "core total", "page", "page CPU")

CHILD = r'''
import hashlib, json, os, statistics, sys, time
from dataclasses import replace
from pathlib import Path
root, data, runs, alphas = sys.argv[1], Path(sys.argv[2]), sys.argv[3].split(","), [float(a) for a in sys.argv[4].split(",")]
sys.path.insert(0, root)
os.chdir(root)
from evalcore.app.baselines import available_baselines
from evalcore.evaluation.evaluator import Evaluator
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import nn_iou_measure
from evalcore.evaluation.options import Relevance, Scoring
from evalcore.evaluation.results import evaluate_runs
from evalcore.io.tables import leaderboard_metrics
from evalcore.app.workspace import load_rocov2, with_run

ws = load_rocov2(str(data), [data.parent])
for path in runs:
    ws = with_run(ws, Path(path).read_bytes(), Path(path).name)
kg = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
evaluator = Evaluator(ws.concepts, replace(kg, names={**kg.names, **ws.names}), "undirected", ws.resolved_labels())
baselines = available_baselines(ws)
ks = (5, 10, 30)
fixed = [ws.runs[name][1] for name in ws.runs] + [b.run(ws, None, b.measure(nn_iou_measure(0.5, 1)), None)
                                                  for b in baselines if not b.by_relevance]
digest = hashlib.sha256()

def core(alpha):
    relevance = nn_iou_measure(alpha, 1)
    start = time.perf_counter()
    runs = fixed + [b.aligned_ranking(evaluator, relevance, max(ks)) for b in baselines if b.by_relevance]
    ranked = time.perf_counter()
    scoring = Scoring(leaderboard_metrics(ks, evaluator.label_targets(), "nn-iou"))
    results = evaluate_runs(evaluator, runs, scoring, Relevance(relevance, None, "linear"))
    scored = time.perf_counter()
    table = results.table()
    summarised = time.perf_counter()
    comparisons = results.compare("nn-CUI@10")
    tested = time.perf_counter()
    digest.update(table.to_csv().encode() + comparisons.to_csv().encode())
    for system in results.systems:
        digest.update(results.values(system).tobytes())
    parts = [ranked - start, scored - ranked, summarised - scored, tested - summarised]
    return parts + [sum(parts)]

core(0.5)
measured = [core(alpha) for alpha in alphas]

from streamlit.testing.v1 import AppTest
os.environ["CBIR_LENS_DATA_ROOTS"] = str(data.parent)
app = AppTest.from_file(str(Path(root) / "app.py"), default_timeout=900)
app.run()
app.text_input(key="rocov2_folder").set_value(str(data))
app.button(key="load_rocov2").click().run()
app.switch_page("pages/leaderboard.py")
app.run()
loaded = app.session_state["workspace"]
for path in runs:
    loaded = with_run(loaded, Path(path).read_bytes(), Path(path).name)
app.session_state["workspace"] = loaded
app.run()
page, cpu = [], []
for alpha in alphas:
    app.session_state["alpha"] = alpha
    start, start_cpu = time.perf_counter(), time.process_time()
    app.run()
    page.append(time.perf_counter() - start)
    cpu.append(time.process_time() - start_cpu)
    assert not app.exception, app.exception
medians = [statistics.median(part) for part in zip(*measured)] + [statistics.median(page), statistics.median(cpu)]
print(json.dumps({"medians": medians, "digest": digest.hexdigest()}))
'''


def child(root: Path, data: Path, runs: list[Path]) -> dict:
    found = subprocess.run([sys.executable, "-c", CHILD, str(root), str(data), ",".join(map(str, runs)),
                            ",".join(map(str, ALPHAS))], capture_output=True, text=True, check=True,
                           env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return json.loads(found.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--app-root", required=True, help="the checkout to compare with (before)")
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "rocov2"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--runs-dir", default="/tmp/cbir_lens_bench/runs", help="where the three runs are made once")
    args = parser.parse_args()
    data = Path(args.data).resolve()
    runs = make_runs(data, Path(args.runs_dir))
    roots = {"before": Path(args.app_root).resolve(), "after": ROOT}
    found: dict[str, list[dict]] = {"before": [], "after": []}
    loads = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for label, root in roots.items():
            found[label].append(child(root, data, runs))
            loads.append(os.getloadavg()[0])
    print(f"ROCOv2 test, 6 systems, alpha moved to {len(ALPHAS)} values not computed before (median); "
          f"load average (1 min) {min(loads):.2f}-{max(loads):.2f}")
    print(f"{'seconds':14s} {'before':>8s} {'after':>8s} {'after/before':>13s}")
    for position, part in enumerate(PARTS):
        before = statistics.median(r["medians"][position] for r in found["before"])
        after = statistics.median(r["medians"][position] for r in found["after"])
        print(f"{part:14s} {before:8.3f} {after:8.3f} {after / before:13.2f}")
    digests = {r["digest"] for rounds in found.values() for r in rounds}
    print("same values, intervals and p-values before and after:", "yes" if len(digests) == 1 else "NO")


if __name__ == "__main__":
    main()
