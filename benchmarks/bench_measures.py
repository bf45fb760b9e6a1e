"""'Choose a measure' → Compare on ROCOv2 test: :func:`evalcore.studies.measure_comparison.compare_measures` over the three
baselines the page offers there (retrieval by IoU, by nn-IoU, by captions TF-IDF) and three uploaded depth-100 runs
(made here: the TF-IDF lists shuffled by seeded noise, written as TREC runs and read by the Data page's reader).

The reference in the same run is the comparison as it was before the ASL curves (commit 8655131): the pool ranked
twice per measure (once for Table 1, once more for NDCG's ideal) and every pair tested through
``compare_systems`` (randomization and t-test) on all queries and on 5 samples of 100. The new path ranks once per
measure (IoU and Dice reading the codes the KG measures leave), tests with the randomization test alone, on 20
samples of 100 queries and 20 of 30 (the ASL curves), and adds the swap rate: more evidence in fewer passes. Each path gets a fresh
evaluator (nothing kept between them); scipy is imported before either. Target: <= 5 s on a quiet 2-core machine
(issue 65; it was 15 s).
Both paths judge the same systems: the runs and the captions baseline (retrieval by IoU and by nn-IoU are each a
measure's own ideal ranking, which compare_measures leaves out as circular since issue 33), without the degraded
copies the page adds (``levels=()``); ``--page`` times the page as a user meets it, copies included, then moves the
alpha slider to 0.6, adds the sidebar's measure at it and compares again.
Usage: python benchmarks/bench_measures.py [--repeats 1] [--page]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT))

from evalcore.app.baselines import CAPTIONS, IOU, NN_IOU  # noqa: E402
from evalcore.app.workspace import load_rocov2, with_run  # noqa: E402
from evalcore.evaluation.evaluator import AlignedRun, Evaluator  # noqa: E402
from evalcore.evaluation.options import Relevance  # noqa: E402
from evalcore.relevance.kg import KnowledgeGraph  # noqa: E402
from evalcore.relevance.measures import measure_spec, parse_measure  # noqa: E402
from evalcore.stats.compare import compare_systems  # noqa: E402
from evalcore.studies.measure_comparison import compare_measures, comparison_measures, ndcg_metric  # noqa: E402

TARGET_SECONDS = 5.0


def workspace_with_runs():
    """ROCOv2 test as the Data page loads it, its three baselines' runs, and three depth-100 runs uploaded."""
    ws = load_rocov2(str(DATA / "rocov2"), [DATA])
    plain = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
    kg = KnowledgeGraph(plain.nodes, plain.parents, {**plain.names, **ws.names}, plain.sources)
    evaluator = Evaluator(ws.concepts, kg, "undirected", ws.resolved_labels())
    relevance = measure_spec("nn-iou")
    baselines = [b.run(ws, evaluator if b.by_relevance else None, b.measure(relevance)) for b in (IOU, NN_IOU, CAPTIONS)]
    rng = np.random.default_rng(7)
    for copy in range(3):
        lines = []
        for query, documents in baselines[2].rankings.items():
            documents = list(documents)[:100]
            order = np.argsort(np.arange(len(documents)) + rng.normal(0, 5 * (copy + 1), len(documents)))
            lines += [f"{query} Q0 {documents[j]} {rank} {100 - rank} synthetic{copy}" for rank, j in enumerate(order, 1)]
        ws = with_run(ws, ("\n".join(lines) + "\n").encode(), f"synthetic{copy}.trec")
    return ws, kg, [run for _, run in ws.runs.values()] + baselines


def reference_comparison(evaluator: Evaluator, measures, systems, samples: int = 2000) -> dict[str, float]:
    """The work of the comparison as it was: two passes over the pool per measure, compare_systems per sample."""
    rankings = []
    for spec in measures:
        _, indices = evaluator.engine.rank_by(spec, 31, 0.5, 30)
        rankings.append(AlignedRun.over_pool(f"Retrieval by {spec.name}", indices))
    evaluator.evaluate(rankings, [f"P@{k}[{t}]" for t in evaluator.label_targets() for k in (5, 10, 30)])
    power = {}
    for spec in measures:
        metric = ndcg_metric(spec, 10)
        evaluation = evaluator.evaluate(list(systems), [metric], Relevance.of(measure=spec))
        per_query = {name: dict(zip(r.query_ids, r.values[metric])) for name, r in evaluation.systems.items()}
        comparisons = compare_systems(per_query, samples=samples, draws=evaluator.draws)
        power[spec.name] = float(np.mean([c.p_randomization_holm < 0.05 for c in comparisons]))
        queries = sorted(set().union(*(set(values) for values in per_query.values())))
        for seed in range(5):
            chosen = set(np.random.default_rng(seed).choice(queries, 100, replace=False).tolist())
            compare_systems({name: {q: v for q, v in values.items() if q in chosen} for name, values in per_query.items()},
                            samples=samples, draws=evaluator.draws)
    return power


def page_compare(ws) -> None:
    """The page's Compare in the dashboard (AppTest): the workspace with the three runs as the Data page leaves it,
    the leaderboard drawn first with the three baselines (as a user arrives), then Compare; the second session
    with the same data reads the comparison kept for the server."""
    from streamlit.testing.v1 import AppTest

    from evalcore.app.baselines import available_baselines

    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=900)
    app.session_state["workspace"] = ws
    app.run()
    app.switch_page("pages/leaderboard.py")
    started = time.perf_counter()
    app.run()
    app.multiselect(key="baselines").set_value(available_baselines(ws)).run()
    leaderboard = time.perf_counter() - started
    app.switch_page("pages/measures.py")
    app.run()
    started = time.perf_counter()
    app.button(key="measures_run").click().run()
    seconds = time.perf_counter() - started
    if app.exception:
        sys.exit(f"the page failed: {app.exception}")
    print(f"dashboard: leaderboard with the 3 baselines {leaderboard:6.2f} s, then Compare {seconds:6.2f} s (target "
          f"<= {TARGET_SECONDS:g} s: {'met' if seconds <= TARGET_SECONDS else 'MISSED'}); load average "
          f"{os.getloadavg()[0]:.2f}")
    print("verdict:", app.info[0].value)
    # The slider moved: the sidebar's measure (nn-IoU) at the new alpha joins the measures compared; the captions
    # baseline reads no alpha, so the other measures' parts are kept and only the new measure is computed.
    app.sidebar.slider(key="alpha").set_value(0.6).run()
    app.multiselect(key="measures_compared").set_value(app.multiselect(key="measures_compared").options).run()
    started = time.perf_counter()
    if any(button.key == "measures_run" for button in app.button):
        app.button(key="measures_run").click().run()
    seconds = time.perf_counter() - started
    if app.exception:
        sys.exit(f"the page failed: {app.exception}")
    print(f"dashboard: alpha 0.6, nn-iou(alpha=0.6,n=1) added, then Compare {seconds:6.2f} s; load average "
          f"{os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--page", action="store_true", help="time the page's Compare in the dashboard instead")
    args = parser.parse_args()
    from scipy import stats  # noqa: F401  (imported by the dashboard long before Compare; not part of either path)

    ws, kg, systems = workspace_with_runs()
    systems = [s for s in systems if s.name not in (IOU.title, NN_IOU.title)]
    if args.page:
        page_compare(ws)
        return
    measures = [parse_measure(name) for name in comparison_measures(measure_spec("nn-iou"))]
    print(f"ROCOv2 test: {len(ws.concepts):,} queries, {len(systems)} systems, {len(measures)} measures; "
          f"load average at start {os.getloadavg()[0]:.2f}")
    for repeat in range(args.repeats):
        seconds: dict[str, float] = {}
        # The two paths alternate which goes first, so that a change of load on the shared machine falls on both.
        for path in (("new", "reference") if repeat % 2 == 0 else ("reference", "new")):
            evaluator = Evaluator(ws.concepts, kg, "undirected", ws.resolved_labels())
            started = time.perf_counter()
            if path == "new":
                result = compare_measures(evaluator, measures, systems, levels=())
            else:
                power = reference_comparison(evaluator, measures, systems)
            seconds[path] = time.perf_counter() - started
        same = all(result.table.set_index("measure").at[name, "discriminative power"] == value
                   for name, value in power.items())
        print(f"round {repeat + 1}: compare_measures {seconds['new']:6.2f} s (target <= {TARGET_SECONDS:g} s: "
              f"{'met' if seconds['new'] <= TARGET_SECONDS else 'MISSED'}); as it was {seconds['reference']:6.2f} s; "
              f"ratio {seconds['reference'] / seconds['new']:4.2f}x; same discriminative power: {same}; load average "
              f"{os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
