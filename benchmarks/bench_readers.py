"""Readers at TREC scale, in one run on the same files: a depth-1000 run over ROCOv2 test (9.9 M lines)
read and evaluated, against pyarrow's bare CSV reader, ranx and ir_measures (benchmark-only comparisons,
not dependencies of evalcore), and the line-by-line definition of the readers.

The script writes its runs itself, with ``python -m evalcore retrieve --depth 1000`` (and ``--depth 10``),
into a temporary folder outside the repository. Every timing of a whole process is the wall time of a fresh
``python -m evalcore`` and its peak resident memory (the child's ``ru_maxrss``); reading times are medians
over ``--repeats`` in one warmed-up child process per tool. Each row prints its figure, what it is compared
with, the ratio and the target.

Usage: python benchmarks/bench_readers.py [--repeats 3] [--keep DIR] [--skip-ranx] [--baseline REV] [--qrels]

``--baseline REV`` also runs the depth-10 evaluation with the evalcore of a git revision (extracted with
``git archive`` into the temporary folder), for the ratio old / new.

``--qrels`` runs another table instead: ``evaluate --qrels`` against pytrec_eval (a benchmark-only comparison)
on the same files, runs of depth 100 and 1000 over ROCOv2 test and qrels written from them (every item judged but
each fifth, grades -1..2 from the rank and the query), each tool a whole fresh process: CPU seconds (user +
system, the median over ``--repeats``), peak resident memory, their ratios, and the largest difference of the
means; with ``--baseline REV``, also the evalcore of REV once per depth.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
CONCEPTS = DATA / "rocov2" / "test_concepts.csv"
KG = DATA / "kg" / "open_kg_edges.csv"
SPLITS = [DATA / "rocov2" / f"{split}_concepts.csv" for split in ("train", "valid", "test")]


def run_child(argv: list[str], cwd: Path = ROOT) -> tuple[float, float, str]:
    """Wall seconds, peak resident memory (GB) and stdout of one child Python process."""
    seconds, _, peak, stdout = child_usage(argv, cwd)
    return seconds, peak, stdout


def child_usage(argv: list[str], cwd: Path = ROOT) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + system), peak resident memory (GB) and stdout of one child Python process.

    CPU and peak are the child's ``ru_utime + ru_stime`` and ``ru_maxrss`` from ``wait4``, as ``/usr/bin/time -v``
    reports them (the CLI leaves through ``os._exit``, so a hook inside the child could not report them at exit).
    """
    environment = {**os.environ, "PYTHONPATH": str(cwd)}
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, *argv], cwd=cwd, env=environment, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if child.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)[:200]} failed ({child.returncode}): {stderr[-2000:]}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024 / 1e9, stdout


def evalcore_process(arguments: list[str], source: Path = ROOT) -> tuple[float, float]:
    """``python -m evalcore ARGS`` in a fresh process: wall seconds and peak resident memory (GB)."""
    seconds, peak, _ = run_child(["-m", "evalcore", *arguments], cwd=source)
    return seconds, peak


def median_process(arguments: list[str], repeats: int, source: Path = ROOT) -> tuple[float, float]:
    results = [evalcore_process(arguments, source) for _ in range(repeats)]
    return statistics.median(s for s, _ in results), max(p for _, p in results)


# --- measurements inside one child process per tool -----------------------------------------------

def timed(function, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def child_read(path: str, repeats: int) -> dict:
    """evalcore's reader and pyarrow's bare read_csv on the same file, interleaved, after a warm-up."""
    import pyarrow.csv as pa_csv

    from evalcore.readers import read_runs

    def bare():
        return pa_csv.read_csv(path, parse_options=pa_csv.ParseOptions(delimiter=" "),
                               read_options=pa_csv.ReadOptions(autogenerate_column_names=True))

    read_runs(path)
    bare()
    ours, arrow = [], []
    for _ in range(repeats):
        ours.append(timed(lambda: read_runs(path), 1))
        arrow.append(timed(bare, 1))
    return {"evalcore": statistics.median(ours), "pyarrow": statistics.median(arrow)}


def child_read_once(path: str) -> dict:
    from evalcore.readers import read_runs

    start = time.perf_counter()
    runs = read_runs(path)
    return {"seconds": time.perf_counter() - start, "items": int(sum(len(r.rankings.documents) for r in runs))}


def child_ranx(path: str, warm_up: str) -> dict:
    from ranx import Run

    Run.from_file(warm_up, kind="trec")  # numba compiles on first use: not counted
    start = time.perf_counter()
    Run.from_file(path, kind="trec")
    return {"seconds": time.perf_counter() - start}


def child_ir_measures(path: str) -> dict:
    import ir_measures

    start = time.perf_counter()
    lines = sum(1 for _ in ir_measures.read_trec_run(path))
    return {"seconds": time.perf_counter() - start, "lines": lines}


def child_concepts(repeats: int) -> dict:
    sys.path.insert(0, str(ROOT))
    from evalcore.readers import read_concepts
    from tests import line_by_line

    def ours():
        return sum(len(read_concepts(path)) for path in SPLITS)

    def definition():
        return sum(len(line_by_line.read_concepts(path.read_bytes(), str(path))) for path in SPLITS)

    sets = ours()
    return {"evalcore": timed(ours, repeats), "line_by_line": timed(definition, repeats), "sets": sets}


def child_pytrec_eval(qrels: str, run: str, depth: int) -> dict:
    """pytrec_eval on files, as a user of it evaluates them: parse both, then the measures of ``evaluate``'s table."""
    import pytrec_eval

    with open(qrels) as handle:
        judgments = pytrec_eval.parse_qrel(handle)
    with open(run) as handle:
        ranked = pytrec_eval.parse_run(handle)
    measures = pytrec_measures(depth)
    values = pytrec_eval.RelevanceEvaluator(judgments, set(measures)).evaluate(ranked)
    return {name: statistics.fmean(per_query[measure] for per_query in values.values())
            for name, measure in zip(qrels_metrics(depth), measures)}


CHILDREN = {"read": child_read, "read-once": child_read_once, "ranx": child_ranx, "ir-measures": child_ir_measures,
            "concepts": child_concepts, "pytrec-eval": child_pytrec_eval}


# --- evaluate --qrels against pytrec_eval ----------------------------------------------------------

def qrels_metrics(depth: int) -> list[str]:
    """The metrics of the table at a run's depth, and (below) pytrec_eval's names of the same measures."""
    return ["qrels-NDCG@10", "qrels-Prec@10", f"qrels-MAP@{depth}", f"qrels-R@{depth}"]


def pytrec_measures(depth: int) -> list[str]:
    return ["ndcg_cut_10", "P_10", f"map_cut_{depth}", f"recall_{depth}"]


def write_qrels(run: Path, qrels: Path) -> int:
    """Judgments of a run's items (all but each fifth rank), grade ``(31 rank + 7 query) mod 4 - 1`` (-1..2): as many
    lines as a pooled qrels of the run's depth, written by pyarrow. Returns the line count."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pa_csv

    table = pa_csv.read_csv(run, read_options=pa_csv.ReadOptions(column_names=["qid", "q0", "docid", "rank", "score", "tag"]),
                            parse_options=pa_csv.ParseOptions(delimiter=" "),
                            convert_options=pa_csv.ConvertOptions(include_columns=["qid", "docid", "rank"]))
    ranks = table.column("rank").to_numpy()
    queries = table.column("qid").combine_chunks().dictionary_encode().indices.to_numpy().astype(np.int64)
    judged = pa.array(ranks % 5 != 0)
    grades = ((ranks * 31 + queries * 7) % 4 - 1)[judged.to_numpy(zero_copy_only=False)]
    lines = pc.binary_join_element_wise(table.column("qid").combine_chunks().filter(judged), "0",
                                        table.column("docid").combine_chunks().filter(judged),
                                        pa.array(grades.astype(str)), " ")
    with open(qrels, "w") as handle:
        for start in range(0, len(lines), 1 << 20):
            handle.write("\n".join(lines.slice(start, 1 << 20).to_pylist()) + "\n")
    return len(lines)


def baseline_source(folder: Path, revision: str) -> Path:
    """The evalcore of a git revision, extracted with ``git archive`` into ``folder/baseline``."""
    old = folder / "baseline"
    old.mkdir(exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision, "evalcore"], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    return old


def qrels_table(folder: Path, repeats: int, baseline: str | None = None) -> list[dict]:
    """The rows of ``--qrels``: evaluate --qrels and pytrec_eval on the same run and qrels, at depth 100 and 1000
    (and, with ``baseline``, the evalcore of that git revision once per depth)."""
    rows: list[dict] = []
    old = baseline_source(folder, baseline) if baseline else None
    for depth in (100, 1000):
        run, qrels = folder / f"depth{depth}.trec", folder / f"depth{depth}.qrels"
        if not run.exists():
            evalcore_process(["retrieve", "--concepts", str(CONCEPTS), "--by", "iou", "--depth", str(depth), "--out", str(run)])
        if not qrels.exists():
            write_qrels(run, qrels)
        judgments = sum(1 for _ in open(qrels, "rb"))
        out = folder / f"qrels{depth}.json"
        evaluate = ["-m", "evalcore", "evaluate", "--qrels", str(qrels), "--run", str(run), "--metrics",
                    *qrels_metrics(depth), "--json", str(out)]
        ours, theirs = [], []
        for _ in range(repeats):  # interleaved, so that a change of the machine's load touches both alike
            ours.append(child_usage(evaluate))
            theirs.append(child_usage([__file__, "--child", "pytrec-eval", str(qrels), str(run), str(depth)]))
        cpu, peak = statistics.median(u[1] for u in ours), max(u[2] for u in ours)
        pytrec_cpu, pytrec_peak = statistics.median(u[1] for u in theirs), max(u[2] for u in theirs)
        means = json.loads(out.read_text())["systems"]
        ours_means = next(iter(means.values()))
        pytrec_means = json.loads(theirs[-1][3].strip().splitlines()[-1])
        difference = max(abs(ours_means[name] - pytrec_means[name]) for name in qrels_metrics(depth))
        work = f"evaluate --qrels, depth {depth} ({judgments:,} judgments), {', '.join(qrels_metrics(depth))}"
        row(rows, f"{work}: CPU", f"{cpu:.2f} s", f"pytrec_eval {pytrec_cpu:.2f} s", f"{cpu / pytrec_cpu:.2f}x",
            "<= 1x pytrec_eval", cpu <= pytrec_cpu)
        target = "<= 2 GB" if depth == 1000 else "(information)"
        row(rows, f"{work}: peak memory", f"{peak:.2f} GB", f"pytrec_eval {pytrec_peak:.2f} GB",
            f"{peak / pytrec_peak:.2f}x", target, peak <= 2 if depth == 1000 else None)
        row(rows, f"{work}: means against pytrec_eval's", f"{difference:.1e}", "pytrec_eval", "-",
            "<= 1e-9 apart", difference <= 1e-9)
        if old is not None:
            _, old_cpu, old_peak, _ = child_usage(evaluate, cwd=old)
            row(rows, f"{work}: evalcore {baseline}", f"{old_cpu:.2f} s, {old_peak:.2f} GB",
                f"pytrec_eval {pytrec_cpu:.2f} s, {pytrec_peak:.2f} GB",
                f"{old_cpu / pytrec_cpu:.2f}x CPU, {old_peak / pytrec_peak:.2f}x memory", "(before)", None)
    return rows


def print_table(rows: list[dict]) -> None:
    width = max(len(r["work"]) for r in rows)
    print(f"{'work':{width}s}  {'value':>22s}  {'compared with':44s}  {'ratio':>24s}  {'target':32s} met")
    for r in rows:
        print(f"{r['work']:{width}s}  {r['value']:>22s}  {r['compared with']:44s}  {r['ratio']:>24s}  {r['target']:32s} {r['met']}")


def in_child(kind: str, *arguments) -> tuple[dict, float]:
    """One measurement in a fresh process (this script with ``--child``): its result and peak memory (GB)."""
    _, peak, stdout = run_child([__file__, "--child", kind, *map(str, arguments)])
    return json.loads(stdout.strip().splitlines()[-1]), peak


# --- the table ---------------------------------------------------------------------------------

def row(rows: list, work: str, value: str, compared: str, ratio: str, target: str, met: bool | None) -> None:
    rows.append({"work": work, "value": value, "compared with": compared, "ratio": ratio, "target": target,
                 "met": "-" if met is None else ("yes" if met else "NO")})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--keep", help="write the runs here instead of a temporary folder (kept afterwards)")
    parser.add_argument("--skip-ranx", action="store_true", help="ranx needs about a minute for 10 M lines")
    parser.add_argument("--baseline", help="git revision whose evalcore also evaluates the depth-10 run")
    parser.add_argument("--qrels", action="store_true", help="instead: evaluate --qrels against pytrec_eval, depth 100 "
                        "and 1000 (CPU, peak memory, ratios)")
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="cbir-lens-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; runs in {folder}")
    if args.qrels:
        rows = qrels_table(folder, args.repeats, args.baseline)
        print_table(rows)
        print(f"load average {os.getloadavg()[0]:.1f} at the end")
        print(json.dumps(rows), file=sys.stderr)
        return
    deep, shallow = folder / "depth1000.trec", folder / "depth10.trec"
    setup = {}
    for path, depth in ((deep, 1000), (shallow, 10)):
        if not path.exists():
            setup[depth] = evalcore_process(["retrieve", "--concepts", str(CONCEPTS), "--by", "iou", "--depth",
                                             str(depth), "--out", str(path)])
    lines = sum(1 for _ in open(deep, "rb"))
    size_gb = deep.stat().st_size / 1e9
    tiny = folder / "tiny.trec"
    with open(shallow) as source, open(tiny, "w") as target:
        target.writelines(next(source) for _ in range(100))
    rows: list[dict] = []

    evaluate = ["evaluate", "--concepts", str(CONCEPTS), "--kg", str(KG), "--json", str(folder / "out.json")]
    seconds, peak = median_process([*evaluate, "--run", str(deep), "--metrics", "nn-CUI@10"], args.repeats)
    row(rows, f"evaluate depth-1000 run ({lines:,} lines, {size_gb:.2f} GB), nn-CUI@10, whole process",
        f"{seconds:.2f} s, {peak:.2f} GB", "target; run file size", f"{seconds / 10:.2f} of 10 s; {peak / size_gb:.1f}x file",
        "<= 10 s, <= 3 GB (about 3x file)", seconds <= 10 and peak <= 3)
    seconds_all, peak_all = evalcore_process([*evaluate, "--run", str(deep)])
    row(rows, "evaluate depth-1000 run, default metrics (CUI/nn-CUI, MAP, R, ERR, CAG at 5/10/30, RBP)",
        f"{seconds_all:.2f} s, {peak_all:.2f} GB", "-", f"{peak_all / size_gb:.1f}x file", "(information)", None)

    reading, _ = in_child("read", str(deep), args.repeats)
    once, read_peak = in_child("read-once", str(deep))
    row(rows, "read the depth-1000 run (read_runs, checked and ordered)", f"{reading['evalcore']:.2f} s",
        f"pyarrow.csv.read_csv bare file {reading['pyarrow']:.2f} s", f"{reading['evalcore'] / reading['pyarrow']:.2f}x",
        "<= 1.5x pyarrow", reading["evalcore"] <= 1.5 * reading["pyarrow"])
    row(rows, "read the depth-1000 run, fresh process: peak memory", f"{read_peak:.2f} GB", "run file size",
        f"{read_peak / size_gb:.1f}x file", "(information)", None)
    if not args.skip_ranx:
        ranx, ranx_peak = in_child("ranx", str(deep), str(tiny))
        row(rows, "ranx Run.from_file on the depth-1000 run (numba warm)", f"{ranx['seconds']:.1f} s, {ranx_peak:.2f} GB",
            f"evalcore {reading['evalcore']:.2f} s", f"{ranx['seconds'] / reading['evalcore']:.1f}x faster",
            ">= 5x faster than ranx", ranx["seconds"] >= 5 * reading["evalcore"])
    irm, irm_peak = in_child("ir-measures", str(deep))
    row(rows, "ir_measures read_trec_run over the depth-1000 run (consumed, not stored)",
        f"{irm['seconds']:.1f} s", f"evalcore {reading['evalcore']:.2f} s", f"{irm['seconds'] / reading['evalcore']:.1f}x faster",
        "(information)", None)

    seconds, peak = median_process([*evaluate, "--run", str(shallow)], args.repeats)
    baseline_note, ratio = "target", f"{seconds / 1.5:.2f} of 1.5 s"
    if args.baseline:
        old = baseline_source(folder, args.baseline)
        old_seconds, _ = median_process([*evaluate, "--run", str(shallow)], args.repeats, source=old)
        baseline_note, ratio = f"evalcore {args.baseline} {old_seconds:.2f} s", f"{old_seconds / seconds:.1f}x faster"
    row(rows, "evaluate depth-10 run (99,270 lines), default metrics with the KG, whole process",
        f"{seconds:.2f} s, {peak:.2f} GB", baseline_note, ratio, "<= 1.5 s", seconds <= 1.5)

    concepts, _ = in_child("concepts", args.repeats)
    row(rows, f"read all {concepts['sets']:,} ROCOv2 concept sets (train + valid + test), warm process",
        f"{concepts['evalcore']:.3f} s", f"line-by-line definition {concepts['line_by_line']:.3f} s",
        f"{concepts['line_by_line'] / concepts['evalcore']:.1f}x faster", "<= 0.5 s", concepts["evalcore"] <= 0.5)

    print_table(rows)
    for depth, (seconds, peak) in setup.items():
        print(f"setup: retrieve --depth {depth} took {seconds:.1f} s, {peak:.2f} GB")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    print(json.dumps(rows), file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--child":
        sys.path.insert(0, str(ROOT))
        kind, arguments = sys.argv[2], sys.argv[3:]
        numeric = [int(a) if a.isdigit() else a for a in arguments]
        print(json.dumps(CHILDREN[kind](*numeric)))
    else:
        main()
