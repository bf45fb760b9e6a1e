"""First draws of the leaderboard (3 Table-1 baselines) and of the Ablation page, in-process, this checkout against
another (``--before``), alternating, each flow in a fresh process.

Drives the app with Streamlit's AppTest (the whole page script runs as on the server; the browser's painting is not
included), following `bench_browser.py`'s flow: load ROCOv2 test, the leaderboard's first draw with the three
baselines (timed), the same folder with the three depth-100 runs beside it (`browser_flow.make_runs`), the leaderboard
with the 6 systems, alpha 0.5 -> 0.6, n 1 -> 2 -> 1, the Per-query page, then the Ablation page's first draw (timed).
The folder with runs is made once under ``--runs-dir`` (links to ../shared/data and hard links to the runs).

Usage: python benchmarks/bench_first_draw.py --before PATH [--repeats 2] [--runs-dir /tmp/cbir_lens_bench/runs]
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

DATA = ROOT.parent / "shared" / "data"

FLOW = r"""
import json, os, sys, time
sys.path.insert(0, os.getcwd())
from streamlit.testing.v1 import AppTest
plain, with_runs = sys.argv[1:3]
app = AppTest.from_file(os.path.join(os.getcwd(), "app.py"), default_timeout=600)
app.run()

def load(folder):
    app.switch_page("pages/data.py")
    app.run()
    app.text_input(key="rocov2_folder").set_value(folder)
    app.button(key="load_rocov2").click().run()
    assert not app.exception and not app.error, (app.exception, [e.value for e in app.error])

def timed(action):
    start = time.perf_counter()
    action()
    assert not app.exception, app.exception
    return time.perf_counter() - start

def page(name):
    app.switch_page(name)
    app.run()

def setting(key, value):
    app.session_state[key] = value
    app.run()

load(plain)
figures = {"leaderboard first draw (3 baselines)": timed(lambda: page("pages/leaderboard.py"))}
load(with_runs)
page("pages/leaderboard.py")
for key, value in (("alpha", 0.6), ("n", 2), ("n", 1)):
    setting(key, value)
page("pages/per_query.py")
figures["Ablation first draw"] = timed(lambda: page("pages/ablation.py"))
print(json.dumps(figures))
"""


def folder_with_runs(runs: list[Path]) -> Path:
    """A ROCOv2 folder (links to the shared files, the open KG beside it) holding the runs in ``runs/``: loading it
    adds them, as the browser's upload does."""
    top = runs[0].parent.parent / "with_runs"
    folder = top / "rocov2"
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    if not (top / "kg").exists():
        (top / "kg").symlink_to(DATA / "kg")
    for name in ("test_concepts.csv", "test_captions.csv", "cui_mapping.csv", "images"):
        if not (folder / name).exists():
            (folder / name).symlink_to(DATA / "rocov2" / name)
    for run in runs:
        if not (folder / "runs" / run.name).exists():
            os.link(run, folder / "runs" / run.name)  # a hard link: the server refuses paths leading outside its roots
    return folder


def one_flow(app_root: Path, plain: Path, with_runs: Path) -> dict[str, float]:
    roots = os.pathsep.join([str(with_runs.parent.parent), str(DATA)])
    done = subprocess.run([sys.executable, "-c", FLOW, str(plain), str(with_runs)], cwd=app_root, capture_output=True,
                          text=True, env={**os.environ, "CBIR_LENS_DATA_ROOTS": roots}, check=False)
    if done.returncode:
        sys.exit(f"the flow failed in {app_root}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True, help="the checkout to compare with (e.g. a worktree of main)")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--runs-dir", default="/tmp/cbir_lens_bench/runs")
    args = parser.parse_args()
    runs = make_runs(DATA / "rocov2", Path(args.runs_dir))
    with_runs = folder_with_runs(runs)
    roots = {"before": Path(args.before).resolve(), "after": ROOT}
    seconds: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for repeat in range(args.repeats):
        # Alternating which goes first: a machine growing busier favours neither.
        for which in (("before", "after") if repeat % 2 == 0 else ("after", "before")):
            for step, value in one_flow(roots[which], DATA / "rocov2", with_runs).items():
                seconds[which].setdefault(step, []).append(value)
            print(f"  {which}: {json.dumps({k: round(v[-1], 2) for k, v in seconds[which].items()})}", flush=True)
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; before: {roots['before']}")
    print(f"{'first draw (AppTest, seconds)':40s} {'before':>22s} {'after':>22s}  after / before (medians)")
    for step, before in seconds["before"].items():
        after = seconds["after"][step]
        print(f"{step:40s} {' / '.join(f'{s:.2f}' for s in before):>22s} {' / '.join(f'{s:.2f}' for s in after):>22s}"
              f"  {statistics.median(after) / statistics.median(before):.2f}")


if __name__ == "__main__":
    main()
