"""The dashboard under load: 1, 2, 4 and 8 concurrent browser sessions on one Streamlit server.

One Chromium, one browser context per user (its own Streamlit session); every user of a level runs the same ROCOv2
flow at the same time (`benchmarks/browser_flow.py`): load the ROCOv2 folder, the leaderboard's first draw with the
three Table-1 baselines, an alpha change to a new value, the Per-query page's first draw and a query switch, the
Ablation page's first draw. Each level starts a fresh server, so that its users meet cold caches together as a
crowd arriving at once would (``--one-server`` keeps one server for all levels: later levels then find earlier
levels' results kept).

Per level it reports each step's median and slowest time, the ratio of the median to the one-user time (target
<= 3x), errors and timeouts, and the server's resident memory (the streamlit process and its children, summed):
at its peak during the level, and after the level's sessions closed. Streamlit keeps a disconnected session's state
for its reconnection delay (``server.disconnectedSessionTTL``) and frees it only when a later session disconnects,
so the "after close" figure is read once a probe session has connected and disconnected past that delay
(``--settle`` seconds). Targets: peak <= 3 GB; after close within 10 % of the one-user level's. It also reports
where the CPU went over the level: the server's seconds, the rest's (Chromium, Playwright's driver, this script),
and how busy the machine was.

Beside the steps, each level measures a floor: once the flow is done, the same number of sessions switch the query
three times at once on the smallest Streamlit page there is (`floor_app.py`: one select box and one line of text,
served by a server of its own). The browsers share the server's cores here, so that page's ratio is what the browsers
cost by themselves: a short step that is mostly the browser's work cannot scale better than it, whatever the
dashboard does.

``--saved`` (issue 37) measures the server as it sees the users: the ROCOv2 folder is saved once in a store
(:mod:`evalcore.app.store`) and every user opens its link instead of loading the folder, then runs the same steps.
Per level it reports the server's CPU seconds per user flow (the server's CPU over the level divided by the users;
target at 8 users <= 1.2x the one-user figure: results computed once for everyone who opens the same saved workspace
and settings), its peak memory (<= 3 GB) and its memory after the sessions closed (within 1.2x of the one-user
level's). The browsers still share the machine's cores, so the step times are reported but are no target here.

Usage: python benchmarks/bench_load.py [--users 1 2 4 8] [--json out.json] [--app-root PATH] [--one-server] [--saved]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import threading
import time
from pathlib import Path

from browser_flow import ROOT, Step, free_port, launch, new_user, start_server, stop_server

SAVED_STEP = "open the saved workspace's link"
STEPS = ("load the ROCOv2 folder", "leaderboard first draw (3 baselines)", "alpha change (new value)",
         "Per-query first draw", "query switch", "Ablation first draw")
FLOOR = "floor: one-widget page, query switch"
FLOOR_SWITCHES = 3
RATIO_TARGET = 3.0
PEAK_TARGET_BYTES = 3 << 30


def tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its descendants (psutil when installed, else /proc)."""
    try:
        import psutil
    except ImportError:
        return _proc_tree_rss(pid)
    try:
        root = psutil.Process(pid)
        return sum(p.memory_info().rss for p in [root, *root.children(recursive=True)])
    except psutil.NoSuchProcess:
        return 0


def _proc_tree_rss(pid: int) -> int:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo.extend(children.get(current, []))
        try:
            total += int((Path("/proc") / str(current) / "statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except OSError:
            pass
    return total


def process_cpu(pid: int) -> float:
    """CPU seconds a process has used so far, user and system, all its threads (/proc)."""
    fields = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float]:
    """CPU seconds the whole machine has been busy and has had in all, over every core (/proc/stat)."""
    ticks = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and waiting for I/O
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK"), sum(ticks) / os.sysconf("SC_CLK_TCK")


class CpuShare:
    """Where the machine's CPU went during a level: the server's seconds, everything else's (the Chromium pages, the
    Playwright driver, this script) and how busy the machine was. The browsers share the server's cores here, so a
    machine busy near 100 % bounds what the server could do faster."""

    def __init__(self, server_pid: int) -> None:
        self.server_pid = server_pid

    def __enter__(self) -> CpuShare:
        self._server, (self._busy, self._total) = process_cpu(self.server_pid), machine_cpu()
        return self

    def __exit__(self, *exc) -> None:
        busy, total = machine_cpu()
        self.server = process_cpu(self.server_pid) - self._server
        self.others = max(busy - self._busy - self.server, 0.0)
        self.busy_share = (busy - self._busy) / (total - self._total) if total > self._total else float("nan")


class PeakMemory:
    """Samples a process tree's resident memory every 0.25 s in a thread; ``peak`` is the largest seen."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss(self.pid))
            self._stop.wait(0.25)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


async def one_user(browser, base_url: str, data: Path, timeout: float, saved: str | None) -> dict[str, Step]:
    context, user = await new_user(browser, base_url, timeout)
    try:
        if saved:
            first = {SAVED_STEP: await user.open_saved(saved)}
        else:
            await user.open()
            first = {"load the ROCOv2 folder": await user.load_folder(data)}
        steps = {**first,
                 "leaderboard first draw (3 baselines)": await user.leaderboard_first(3),
                 "alpha change (new value)": await user.move_slider(0, "ArrowRight"),
                 "Per-query first draw": await user.per_query_first(),
                 "query switch": await user.query_switch(),
                 "Ablation first draw": await user.ablation_first()}
    finally:
        await context.close()
    return steps


async def floor_user(browser, floor_url: str, timeout: float, start: asyncio.Barrier) -> float:
    """One session on the floor page: the median of its query switches, each made with every other session's."""
    context, user = await new_user(browser, floor_url, timeout)
    try:
        await user.tab.goto(floor_url)
        await user.tab.get_by_text("Shown:").wait_for()
        await user.idle()
        seconds = []
        for _ in range(FLOOR_SWITCHES):
            await start.wait()
            seconds.append((await user.query_switch()).seconds)
    except BaseException:
        await start.abort()  # the other sessions would otherwise wait at the barrier for this one forever
        raise
    finally:
        await context.close()
    return statistics.median(seconds)


async def probe(browser, base_url: str) -> None:
    """Connect one session and close it: its disconnect lets Streamlit drop sessions past their reconnection delay."""
    context, user = await new_user(browser, base_url)
    await user.open()
    await context.close()


async def level(base_url: str, server_pid: int, floor_url: str, data: Path, users: int, timeout: float,
                settle: float, saved: str | None = None) -> dict:
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await launch(playwright)
        with PeakMemory(server_pid) as memory, CpuShare(server_pid) as cpu:
            started = time.perf_counter()
            outcomes = await asyncio.gather(*(one_user(browser, base_url, data, timeout, saved) for _ in range(users)),
                                            return_exceptions=True)
            wall = time.perf_counter() - started
        together = asyncio.Barrier(users)
        floor = await asyncio.gather(*(floor_user(browser, floor_url, timeout, together) for _ in range(users)),
                                     return_exceptions=True)
        await asyncio.sleep(settle)
        await probe(browser, base_url)
        await asyncio.sleep(2)
        after = tree_rss(server_pid)
        await browser.close()
    done = [o for o in outcomes if isinstance(o, dict)]
    errors = [f"{type(o).__name__}: {str(o).splitlines()[0] if str(o) else ''}" for o in [*outcomes, *floor]
              if isinstance(o, BaseException)]
    steps = {name: [user[name].seconds for user in done] for name in (SAVED_STEP, *STEPS) if done and name in done[0]}
    steps[FLOOR] = [seconds for seconds in floor if isinstance(seconds, float)]
    return {"users": users, "wall": wall, "errors": errors, "peak_rss": memory.peak, "rss_after_close": after,
            "cpu_server": cpu.server, "cpu_others": cpu.others, "machine_busy": cpu.busy_share,
            "steps": {name: {"median": statistics.median(times), "slowest": max(times), "each": times}
                      for name, times in steps.items() if times}}


def saved_folder(data: Path) -> tuple[Path, str]:
    """A new store holding the ROCOv2 folder ``data`` saved once (its recipe: the folder, read again under the
    server's data roots), and its ID."""
    import sys
    import tempfile

    sys.path.insert(0, str(ROOT))
    from evalcore.app.store import SavedInput, WorkspaceStore

    store = Path(tempfile.mkdtemp(prefix="cbir_lens_bench_store_"))
    workspace_id = WorkspaceStore(store).save([SavedInput("folder", str(data), b"")], {"label": "ROCOv2 test (saved)"})
    return store, workspace_id


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "rocov2"))
    parser.add_argument("--users", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--json", help="also write the figures to this JSON file")
    parser.add_argument("--app-root", default=str(ROOT), help="the checkout whose app.py is served (default: this one)")
    parser.add_argument("--one-server", action="store_true", help="one server for every level (caches stay warm)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a user's step may take")
    parser.add_argument("--saved", action="store_true",
                        help="every user opens a saved workspace's link (the ROCOv2 folder, saved once) instead of "
                             "loading the folder; reports the server's CPU per flow")
    parser.add_argument("--settle", type=float, default=35.0,
                        help="seconds to wait after the sessions close, before the probe session: past the served "
                             "checkout's server.disconnectedSessionTTL (30 s here; Streamlit's default is 120 s)")
    args = parser.parse_args()
    data = Path(args.data).resolve()
    app_root = Path(args.app_root).resolve()
    levels = []
    server = None
    store, saved = saved_folder(data) if args.saved else (None, None)
    environment = {"CBIR_LENS_STORE": str(store)} if store else None
    floor_port = free_port()
    floor_server = start_server(ROOT / "benchmarks", floor_port, data, script="floor_app.py")
    try:
        for users in args.users:
            if server is None or not args.one_server:
                if server is not None:
                    stop_server(server)
                port = free_port()
                server = start_server(app_root, port, data, environment=environment)
            print(f"{users} user(s)…", flush=True)
            levels.append(asyncio.run(level(f"http://127.0.0.1:{port}", server.pid, f"http://127.0.0.1:{floor_port}",
                                            data, users, args.timeout, args.settle, saved)))
    finally:
        stop_server(floor_server)
        if server is not None:
            stop_server(server)

    load = os.getloadavg()
    print(f"app: {app_root}   load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    first = levels[0]
    for result in levels:
        print(f"\n{result['users']} user(s): wall {result['wall']:.1f} s, errors {len(result['errors'])}"
              + (f" ({'; '.join(result['errors'])})" if result["errors"] else "")
              + f", server RSS peak {result['peak_rss'] / 2**30:.2f} GB (target <= 3), after close "
              f"{result['rss_after_close'] / 2**30:.2f} GB ({result['rss_after_close'] / first['rss_after_close']:.2f}"
              " of the one-user level's; target <= 1.10)")
        print(f"  CPU over the level: server {result['cpu_server']:.1f} s, browsers and driver {result['cpu_others']:.1f} s,"
              f" machine busy {100 * result['machine_busy']:.0f} % of {os.cpu_count()} cores")
        per_flow = result["cpu_server"] / result["users"]
        ratio = per_flow / (first["cpu_server"] / first["users"])
        print(f"  server CPU per user flow: {per_flow:.1f} s ({ratio:.2f}x the one-user figure"
              + ("; target <= 1.2 at 8 users" if args.saved else "") + ")")
        print(f"  {'step':40s} {'median':>8s} {'slowest':>8s} {'x 1 user':>9s}")
        for name, figures in result["steps"].items():
            base = first["steps"].get(name, {}).get("median")
            ratio = figures["median"] / base if base else float("nan")
            flag = ("  (reference, not a step)" if name == FLOOR else
                    "" if ratio <= RATIO_TARGET else "  MISSED (> 3x)")
            print(f"  {name:40s} {figures['median']:8.2f} {figures['slowest']:8.2f} {ratio:8.2f}x{flag}")
    if args.json:
        Path(args.json).write_text(json.dumps({"app_root": str(app_root), "load_average": load, "levels": levels,
                                               "targets": {"ratio": RATIO_TARGET, "peak_bytes": PEAK_TARGET_BYTES,
                                                           "after_close_ratio": 1.10}}, indent=2))


if __name__ == "__main__":
    main()
