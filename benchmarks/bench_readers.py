"""Readers at TREC scale, in one run on the same files: a depth-1000 run over ROCOv2 test (9.9 M lines)
read and evaluated, against pyarrow's bare CSV reader, ranx and ir_measures (benchmark-only comparisons,
not dependencies of evalcore), and the line-by-line definition of the readers.

The script writes its runs itself, with ``python -m evalcore retrieve --depth 1000`` (and ``--depth 10``),
into a temporary folder outside the repository. Every timing of a whole process is the wall time of a fresh
``python -m evalcore`` and its peak resident memory (the child's ``ru_maxrss``); reading times are medians
over ``--repeats`` in one warmed-up child process per tool. Each row prints its figure, what it is compared
with, the ratio and the target.

Usage: python benchmarks/bench_readers.py [--repeats 3] [--keep DIR] [--skip-ranx] [--baseline REV]

``--baseline REV`` also runs the depth-10 evaluation with the evalcore of a git revision (extracted with
``git archive`` into the temporary folder), for the ratio old / new.
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
    """Wall seconds, peak resident memory (GB) and stdout of one child Python process.

    The peak is the child's ``ru_maxrss`` from ``wait4``, as ``/usr/bin/time -v`` reports it (the CLI leaves
    through ``os._exit``, so a hook inside the child could not report it at exit).
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
    return seconds, usage.ru_maxrss * 1024 / 1e9, stdout


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


CHILDREN = {"read": child_read, "read-once": child_read_once, "ranx": child_ranx, "ir-measures": child_ir_measures,
            "concepts": child_concepts}


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
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="cbir-lens-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start; runs in {folder}")
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
        old = folder / "baseline"
        old.mkdir(exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.baseline, "evalcore"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        old_seconds, _ = median_process([*evaluate, "--run", str(shallow)], args.repeats, source=old)
        baseline_note, ratio = f"evalcore {args.baseline} {old_seconds:.2f} s", f"{old_seconds / seconds:.1f}x faster"
    row(rows, "evaluate depth-10 run (99,270 lines), default metrics with the KG, whole process",
        f"{seconds:.2f} s, {peak:.2f} GB", baseline_note, ratio, "<= 1.5 s", seconds <= 1.5)

    concepts, _ = in_child("concepts", args.repeats)
    row(rows, f"read all {concepts['sets']:,} ROCOv2 concept sets (train + valid + test), warm process",
        f"{concepts['evalcore']:.3f} s", f"line-by-line definition {concepts['line_by_line']:.3f} s",
        f"{concepts['line_by_line'] / concepts['evalcore']:.1f}x faster", "<= 0.5 s", concepts["evalcore"] <= 0.5)

    width = max(len(r["work"]) for r in rows)
    print(f"{'work':{width}s}  {'value':>22s}  {'compared with':44s}  {'ratio':>24s}  {'target':32s} met")
    for r in rows:
        print(f"{r['work']:{width}s}  {r['value']:>22s}  {r['compared with']:44s}  {r['ratio']:>24s}  {r['target']:32s} {r['met']}")
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
