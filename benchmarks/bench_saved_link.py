"""A saved link to the Leaderboard opened on a fresh server (issue 65): in-process with Streamlit's AppTest, each open
in a fresh Python process, with and without the results kept with the saved workspace, alternating.

First an original session (a process of its own) loads the ROCOv2 folder on the Data page, draws the Leaderboard
(the three Table-1 baselines: retrieval by IoU, by nn-IoU, by captions TF-IDF), then saves the workspace on the Data
page, which keeps the results the server holds with it. The same recipe is then saved a second
time straight into the store, under an ID with no results kept: opening that one is what every open cost before
(the workspace replayed, then every pass over the pool recomputed). Each open is a new process (a fresh server: no
cache holds anything) whose first script run is the link's address on the Leaderboard page; it is timed from the
run's start to the Leaderboard drawn (the modules the app imports are imported before, as a server does before its
first session; their time is reported on its own). The Leaderboard's table of each open is compared with the
original session's.

Usage: python benchmarks/bench_saved_link.py [--repeats 3] [--data /work/shared/data/rocov2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET_SECONDS = 3.0

ORIGINAL = r"""
import json, os, sys
sys.path.insert(0, os.getcwd())
from streamlit.testing.v1 import AppTest
from evalcore.app.store import store_from_environment
folder = sys.argv[1]
app = AppTest.from_file(os.path.join(os.getcwd(), "app.py"), default_timeout=900)
app.run()
app.switch_page("pages/data.py")
app.run()
app.text_input(key="rocov2_folder").set_value(folder)
app.button(key="load_rocov2").click().run()
app.switch_page("pages/leaderboard.py")
app.run()
assert not app.exception, app.exception
table = next(frame.value for frame in app.dataframe if "nn-CUI@10" in frame.value.columns)
app.switch_page("pages/data.py")
app.run()
app.button(key="save_workspace").click().run()
assert not app.exception and not app.error, (app.exception, [e.value for e in app.error])
workspace_id = app.query_params["workspace"]
kept = store_from_environment().prepared_sizes(workspace_id)
print(json.dumps({"id": workspace_id, "table": table.to_json(), "kept": sum(kept.values()), "results": len(kept)}))
"""

OPEN = r"""
import json, os, sys, time
sys.path.insert(0, os.getcwd())
started = time.perf_counter()
from streamlit.testing.v1 import AppTest
import dashboard.background, dashboard.computed, pages  # what the app's first run imports
imported = time.perf_counter() - started
app = AppTest.from_file(os.path.join(os.getcwd(), "app.py"), default_timeout=900)
app.query_params["workspace"] = sys.argv[1]
app.switch_page("pages/leaderboard.py")
started = time.perf_counter()
app.run()
seconds = time.perf_counter() - started
assert not app.exception and not app.warning, (app.exception, [w.value for w in app.warning])
assert not app.session_state["workspace"].synthetic
table = next(frame.value for frame in app.dataframe if "nn-CUI@10" in frame.value.columns)
print(json.dumps({"seconds": seconds, "imports": imported, "table": table.to_json()}))
"""


def python(script: str, *arguments: str, environment: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-c", script, *arguments], cwd=ROOT, capture_output=True, text=True,
                          env=environment, check=False)
    if done.returncode:
        sys.exit(f"a step failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "rocov2"))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from evalcore.app.store import WorkspaceStore

    store = Path(tempfile.mkdtemp(prefix="cbir_lens_bench_saved_"))
    environment = {**os.environ, "CBIR_LENS_STORE": str(store),
                   "CBIR_LENS_DATA_ROOTS": str(Path(args.data).resolve().parent)}
    original = python(ORIGINAL, args.data, environment=environment)
    saved = WorkspaceStore(store).open(original["id"])
    links = {"kept results": original["id"], "nothing kept (before)": WorkspaceStore(store).save(saved.inputs,
                                                                                              saved.settings)}
    print(f"saved {original['id'][:6]}…: {original['results']} results kept with it, {original['kept'] / 2**20:.1f} MiB",
          flush=True)
    seconds: dict[str, list[float]] = {which: [] for which in links}
    imports: list[float] = []
    for repeat in range(args.repeats):
        # Alternating which goes first: a machine growing busier favours neither.
        for which in (list(links) if repeat % 2 == 0 else list(reversed(links))):
            opened = python(OPEN, links[which], environment=environment)
            if opened["table"] != original["table"]:
                sys.exit(f"{which}: the Leaderboard's numbers differ from the original session's")
            seconds[which].append(opened["seconds"])
            imports.append(opened["imports"])
            print(f"  {which}: {opened['seconds']:.2f} s (imports before it: {opened['imports']:.2f} s)", flush=True)
    load = os.getloadavg()
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; the Leaderboard's numbers equal the "
          "original session's in every open")
    print(f"{'saved link -> Leaderboard, fresh server (s)':45s} {'each':>24s} {'median':>8s}")
    for which, values in seconds.items():
        print(f"{which:45s} {' / '.join(f'{s:.2f}' for s in values):>24s} {statistics.median(values):8.2f}")
    print(f"{'imports before the first run':45s} {' / '.join(f'{s:.2f}' for s in imports):>24s}")
    print(f"target <= {TARGET_SECONDS:g} s with kept results: "
          f"{'met' if statistics.median(seconds['kept results']) <= TARGET_SECONDS else 'missed'}")


if __name__ == "__main__":
    main()
