"""Dashboard responsiveness on ROCOv2 test: how long the leaderboard takes to redraw after alpha moves.

Drives the real app with Streamlit's AppTest (the whole page script runs, as on a rerun in
the browser, but without the browser's own painting). The ROCOv2 test split is loaded through
the Data page, the leaderboard is shown with retrieval by IoU and by nn-IoU as systems, and
then alpha is moved. The reference is the first draw in the same run, which builds the
engine and the KG index from nothing. Usage: python benchmarks/bench_dashboard.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
ROCOV2 = ROOT.parent / "shared" / "data" / "rocov2"
sys.path.insert(0, str(ROOT))

from evalcore.app.baselines import IOU, NN_IOU  # noqa: E402

ALPHAS = (0.3, 0.7, 0.4, 0.9, 0.2, 0.6, 0.8, 0.1)


def rerun_with(app: AppTest, control: str, value) -> float:
    """Set one sidebar control, rerun the page and return the seconds the rerun took."""
    app.session_state[control] = value
    start = time.perf_counter()
    app.run()
    seconds = time.perf_counter() - start
    if app.exception:
        sys.exit(f"the leaderboard failed at {control} = {value}: {app.exception}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    app.run()
    app.text_input(key="rocov2_folder").set_value(str(ROCOV2))
    app.button(key="load_rocov2").click().run()
    app.switch_page("pages/leaderboard.py")
    start = time.perf_counter()
    app.run()
    app.multiselect(key="baselines").set_value([IOU, NN_IOU]).run()
    first_draw = time.perf_counter() - start
    if app.exception:
        sys.exit(f"the leaderboard failed: {app.exception}")
    times = [rerun_with(app, "alpha", alpha) for alpha in ALPHAS[: args.repeats]]
    n_times = [rerun_with(app, "n", hops) for hops in (2, 3, 0, 1)]
    median = statistics.median(times)
    print(f"{'work':64s} {'seconds':>8s}  target")
    print(f"{'leaderboard first draw on ROCOv2 test (engine + KG index built)':64s} {first_draw:8.3f}")
    print(f"{'leaderboard redraw after alpha changes (median)':64s} {median:8.3f}  <= 1.5 s")
    print(f"{'leaderboard redraw after n changes (median of n = 2, 3, 0, 1)':64s} "
          f"{statistics.median(n_times):8.3f}  <= 1.5 s")
    print(f"first draw / redraw: {first_draw / median:.1f}x; alpha redraws: {', '.join(f'{t:.2f}' for t in times)}; "
          f"n redraws: {', '.join(f'{t:.2f}' for t in n_times)}")


if __name__ == "__main__":
    main()
