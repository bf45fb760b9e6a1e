"""Dashboard responsiveness in a real browser: Debian's Chromium driven by Playwright against `streamlit run app.py`.

Every figure is the time from the user's action (a click, a key press) to the finished page: the expected content
is on screen and Streamlit has stopped running the script (`benchmarks/browser_flow.py`). On ROCOv2 test
(`../shared/data/rocov2`, with the open KG beside it) and three depth-100 TREC runs (made once, seeded, into
`--runs-dir`) the script times, as issue 23's table lists them:

1. loading the ROCOv2 folder on the Data page, and later uploading the three runs through its file uploader;
2. the leaderboard's first draw with the three Table-1 baselines, then again after the three runs are uploaded
   (the baselines stay chosen: with runs loaded the page proposes none);
3. an alpha change on the leaderboard to a value not computed yet (median of ``--repeats``);
4. an n change on the leaderboard, to a new n and back to one already seen;
5. the Per-query page's first draw, then switching the query (median of ``--repeats``);
6. the Ablation page's first draw;
7. Choose a measure: the Compare button until the evidence is drawn;
8. a knowledge-graph path (Veins -> Blood vessels) after typing the second concept.

For each step it notes whether a progress bar was shown, and the longest time the bar stood still; a step over a
second with no bar is flagged. ``--app-root`` runs the same flow against another checkout (its app.py and its
.streamlit/config.toml), for "before" figures.

Usage: python benchmarks/bench_browser.py [--data ../shared/data/rocov2] [--repeats 3] [--json out.json]
                                          [--app-root PATH] [--runs-dir /tmp/cbir_lens_bench/runs]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
from pathlib import Path

from browser_flow import ROOT, Step, free_port, launch, make_runs, new_user, start_server, stop_server

#: Issue 65's targets, in seconds in the browser.
TARGETS = {"leaderboard first draw (3 baselines)": 2.5, "leaderboard with the 3 runs added (6 systems)": 2.5,
           "alpha change (new value)": 0.4, "n change to a new n (1 -> 2)": 1.0, "query switch": 0.3,
           "Ablation first draw": 3.0, "Choose a measure: Compare": 5.0}


class Steps(dict):
    """Steps by name, each printed as it is done (a stalled step shows where the flow stands)."""

    def __setitem__(self, name: str, step: Step | list[Step]) -> None:
        each = step if isinstance(step, list) else [step]
        print(f"  done: {name} ({', '.join(f'{s.seconds:.2f}' for s in each)} s)", flush=True)
        super().__setitem__(name, step)


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a process, all its threads (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def flow(base_url: str, data: Path, runs: list[Path], repeats: int, timeout: float, server_pid: int,
               think: float, settle: float) -> dict[str, Step | list[Step]]:
    """The user's steps; after each the user reads the page for ``think`` seconds, after a load ``settle`` seconds
    (what the dashboard prepares in the background meanwhile is off the user's path; the server's CPU seconds
    during each step are noted with it)."""
    from playwright.async_api import async_playwright

    async def timed(step, pause: float | None = None) -> Step:
        before = cpu_seconds(server_pid)
        done = await step
        done.server_cpu = cpu_seconds(server_pid) - before
        await asyncio.sleep(think if pause is None else pause)
        return done

    steps = Steps()
    async with async_playwright() as playwright:
        browser = await launch(playwright)
        _, user = await new_user(browser, base_url, timeout)
        await user.open()
        steps["load the ROCOv2 folder"] = await timed(user.load_folder(data), settle)
        steps["leaderboard first draw (3 baselines)"] = await timed(user.leaderboard_first(3))
        # With runs loaded the leaderboard proposes no baseline; the three chosen above stay chosen.
        await user.go("Data")
        await user.idle()
        steps["upload 3 depth-100 runs"] = await timed(user.upload_runs(runs), settle)
        steps["leaderboard with the 3 runs added (6 systems)"] = await timed(user.leaderboard_first(3 + len(runs)))
        # Each change moves alpha one step right from 0.5 (steps of 0.1) to a value not computed yet.
        steps["alpha change (new value)"] = [await timed(user.move_slider(0, "ArrowRight")) for _ in range(repeats)]
        steps["n change to a new n (1 -> 2)"] = await timed(user.move_slider(1, "ArrowRight"))
        steps["n change back (2 -> 1)"] = await timed(user.move_slider(1, "ArrowLeft"))
        steps["Per-query first draw"] = await timed(user.per_query_first())
        steps["query switch"] = [await timed(user.query_switch()) for _ in range(repeats)]
        steps["Ablation first draw"] = await timed(user.ablation_first())
        steps["Choose a measure: Compare"] = await timed(user.compare_measures())
        steps["KG path (Veins -> Blood vessels)"] = await timed(user.kg_path())
        await browser.close()
    return steps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "rocov2"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--app-root", default=str(ROOT), help="the checkout whose app.py is served (default: this one)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a step may take")
    parser.add_argument("--runs-dir", default="/tmp/cbir_lens_bench/runs", help="where the three runs are made once")
    parser.add_argument("--think", type=float, default=3.0, help="seconds the user reads a page before the next action")
    parser.add_argument("--settle", type=float, default=25.0,
                        help="seconds the user looks at the Data page after loading the folder or the runs")
    args = parser.parse_args()
    if not 1 <= args.repeats <= 5:
        parser.error("--repeats must lie in 1..5 (alpha moves from 0.5 in steps of 0.1 to values not computed yet)")
    data = Path(args.data).resolve()
    runs = make_runs(data, Path(args.runs_dir))
    port = free_port()
    server = start_server(Path(args.app_root).resolve(), port, data)
    try:
        steps = asyncio.run(flow(f"http://127.0.0.1:{port}", data, runs, args.repeats, args.timeout, server.pid,
                                 args.think, args.settle))
    finally:
        stop_server(server)

    load = os.getloadavg()
    print(f"app: {Path(args.app_root).resolve()}   load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
          f"   think {args.think:g} s, settle {args.settle:g} s")
    print(f"{'user action -> finished page':48s} {'seconds':>8s} {'server CPU':>10s}  {'target':>8s}  notes")
    report = {}
    for name, step in steps.items():
        each = step if isinstance(step, list) else [step]
        seconds = statistics.median(s.seconds for s in each)
        target = TARGETS.get(name)
        slow = [s for s in each if s.seconds > 1.0]
        bar = "every step over 1 s showed a moving bar" if slow and all(s.progress_shown for s in slow) else ""
        bar = each[0].bar_note() if len(each) == 1 else bar or ("a step over 1 s had no bar" if slow else "")
        note = (f"median; each: {', '.join(f'{s.seconds:.2f}' for s in each)}; " if len(each) > 1 else "") + bar
        met = "" if target is None else ("met" if seconds <= target else "MISSED")
        server_cpu = statistics.median(s.server_cpu for s in each)
        print(f"{name:48s} {seconds:8.2f} {server_cpu:10.2f}  {'<= ' + format(target, 'g') if target else '':>8s}  "
              f"{met} {note}")
        report[name] = {"seconds": seconds, "server_cpu": server_cpu, "each": [s.seconds for s in each], "target": target,
                        "progress_shown": [s.progress_shown for s in each],
                        "longest_stall": [s.longest_stall for s in each], "note": note}
    if args.json:
        Path(args.json).write_text(json.dumps({"app_root": str(Path(args.app_root).resolve()), "load_average": load,
                                               "steps": report}, indent=2))


if __name__ == "__main__":
    main()
