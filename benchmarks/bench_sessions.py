"""What each further session costs the server once the first has computed everything: the in-process script time
of the load benchmark's steps (`bench_load.py`), this checkout against another (``--app-root``), as ratios.

Under load, every session's script runs in the server's one Python process: what a session computes or builds for
itself (not kept for the server) is paid once per session, and eight sessions pay it eight times under one
interpreter lock. Here, in a child process per checkout, Streamlit's AppTest runs issue 23's ROCOv2 flow (open the
app, load ROCOv2 test, the leaderboard's first draw with the three Table-1 baselines, alpha 0.5 -> 0.6, the Per-query
page's first draw, a query switch, the Ablation page's first draw) in 1 + ``--sessions`` sessions, step by step as
the load benchmark's crowd does: every session takes a step, one after the other, before any takes the next. The
first session's step fills the server's caches; each step's figure is the median over the other sessions of the
rerun's wall time (``script``) and of the process's CPU seconds over it (``CPU``: all threads). The browser's own
work and the websocket are not included.

Each child prints a digest of what every step drew (element types and values, chart specs, table data); the script
says whether both checkouts drew the same pages.

Usage: python benchmarks/bench_sessions.py --app-root PATH [--sessions 7] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from browser_flow import ROOT

DATA = ROOT.parent / "shared" / "data"
STEPS = ("open the app", "load the ROCOv2 folder", "leaderboard first draw (3 baselines)", "alpha change (new value)",
         "Per-query first draw", "query switch", "Ablation first draw")

CHILD = r'''
import hashlib, json, os, re, statistics, sys, time
root, data, sessions = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, root)
os.chdir(root)
from streamlit.testing.v1 import AppTest

# Random per drawing: a Styler's CSS id and a deferred download's file id. The drawn values are compared.
RANDOM_IDS = re.compile(r'T_[0-9a-f]{5}|uuid: "[0-9a-f]{5}"|deferred_file_id: "[0-9a-f]{32}"')


def drawn(app) -> str:
    digest = hashlib.sha256()
    for element in app.main:
        digest.update(type(element).__name__.encode())
        proto = getattr(element, "proto", None)
        digest.update(RANDOM_IDS.sub("", str(proto) if proto is not None else repr(getattr(element, "value", ""))).encode())
    return digest.hexdigest()


def load(app):
    app.text_input(key="rocov2_folder").set_value(data)
    app.button(key="load_rocov2").click().run()


def page(path):
    return lambda app: app.switch_page(path).run()


def alpha(app):
    app.session_state["alpha"] = 0.6
    app.run()


def switch(app):
    query = app.selectbox(key="pq_query")
    query.set_value(query.options[query.options.index(query.value) + 1]).run()


STEPS = {"open the app": lambda app: app.run(), "load the ROCOv2 folder": load,
         "leaderboard first draw (3 baselines)": page("pages/leaderboard.py"), "alpha change (new value)": alpha,
         "Per-query first draw": page("pages/per_query.py"), "query switch": switch,
         "Ablation first draw": page("pages/ablation.py")}
# As in bench_load, every session takes each step before any takes the next: the first pays for what the server
# keeps, the others only for what they do themselves.
apps = [AppTest.from_file(os.path.join(root, "app.py"), default_timeout=900) for _ in range(1 + sessions)]
first, later, digests = {}, {}, {}
for name, action in STEPS.items():
    for position, app in enumerate(apps):
        start, cpu = time.perf_counter(), time.process_time()
        action(app)
        figures = (time.perf_counter() - start, time.process_time() - cpu)
        assert not app.exception, app.exception
        if position == 0:
            first[name], digests[name] = figures[0], drawn(app)
        else:
            later.setdefault(name, []).append(figures)
medians = {name: [statistics.median(f[0] for f in found), statistics.median(f[1] for f in found)]
           for name, found in later.items()}
print(json.dumps({"first": first, "later": medians, "digests": digests}))
'''


def child(root: Path, sessions: int) -> dict:
    env = {**os.environ, "PYTHONWARNINGS": "ignore", "CBIR_LENS_DATA_ROOTS": str(DATA)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(root), str(DATA / "rocov2"), str(sessions)],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        sys.exit(f"the flow failed in {root}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--app-root", required=True, help="the checkout to compare with (before)")
    parser.add_argument("--sessions", type=int, default=7, help="sessions after the first (per round)")
    parser.add_argument("--rounds", type=int, default=2, help="child processes per checkout, alternating")
    args = parser.parse_args()
    roots = {"before": Path(args.app_root).resolve(), "after": ROOT}
    found: dict[str, list[dict]] = {"before": [], "after": []}
    loads = [os.getloadavg()[0]]
    for round_ in range(args.rounds):
        # Alternating which goes first: a machine growing busier favours neither.
        for label in (("before", "after") if round_ % 2 == 0 else ("after", "before")):
            found[label].append(child(roots[label], args.sessions))
            loads.append(os.getloadavg()[0])
    print(f"ROCOv2 test, 3 Table-1 baselines; per step the median over {args.sessions} sessions after the first, "
          f"{args.rounds} round(s) per checkout; load average (1 min) {min(loads):.2f}-{max(loads):.2f}")
    print(f"before: {roots['before']}")
    print(f"{'seconds per further session':40s} {'script before':>13s} {'after':>7s} {'ratio':>6s}   "
          f"{'CPU before':>10s} {'after':>7s} {'ratio':>6s}   {'first session before / after':>28s}")
    for name in STEPS:
        figures = []
        for part in (0, 1):
            before = statistics.median(r["later"][name][part] for r in found["before"])
            after = statistics.median(r["later"][name][part] for r in found["after"])
            figures.append(f"{before:13.3f} {after:7.3f} {after / before:6.2f}" if part == 0 else
                           f"{before:10.3f} {after:7.3f} {after / before:6.2f}")
        first = [statistics.median(r["first"][name] for r in found[label]) for label in ("before", "after")]
        print(f"{name:40s} {figures[0]}   {figures[1]}   {first[0]:13.2f} / {first[1]:.2f}")
    totals = [sum(statistics.median(r["later"][name][0] for r in found[label]) for name in STEPS)
              for label in ("before", "after")]
    print(f"{'whole flow, script':40s} {totals[0]:13.3f} {totals[1]:7.3f} {totals[1] / totals[0]:6.2f}")
    differing = [name for name in STEPS if len({r["digests"][name] for rounds in found.values() for r in rounds}) > 1]
    print("same pages drawn before and after:", f"NO ({', '.join(differing)})" if differing else "yes")


if __name__ == "__main__":
    main()
