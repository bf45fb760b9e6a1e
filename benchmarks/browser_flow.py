"""A user's ROCOv2 flow through the dashboard in Chromium, shared by `bench_browser.py` (one user) and
`bench_load.py` (several at once): the server, the three uploaded runs, and each timed step.

Every step is timed from the user's action (a click, a key press) to the finished page: the expected content is on
screen and Streamlit has stopped running the script (it stays stopped 300 ms). While a step runs, the progress bar
is sampled at every poll: whether one was shown, and the longest time it stood at one value while the step went on.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
VIEWPORT = {"width": 1400, "height": 1000}
RUNNING = "document.querySelector('[data-testid=\"stStatusWidget\"]')"
PROGRESS = ("(() => { const bar = document.querySelector('[data-testid=\"stProgress\"]');"
            " if (!bar) return null; const value = bar.querySelector('[role=\"progressbar\"]');"
            " return (value ? value.getAttribute('aria-valuenow') : '') + '|' + bar.innerText; })()")
#: An exception or a refused load on the page: the step cannot finish.
FAILED = ("(() => { const shown = [...document.querySelectorAll('[data-testid=\"stException\"], [data-testid=\"stAlert\"]')]"
          ".map(e => e.innerText).filter(t => t.includes('Traceback') || t.startsWith('Not loaded')"
          " || t.includes('Error')); return shown.length ? shown.join(' | ') : null; })()")
CHART_Y = ("(() => { const p = document.querySelector('.js-plotly-plot');"
           " return p && p._fullData && p._fullData[0] && p._fullData[0].y ? Array.from(p._fullData[0].y) : null; })()")
CHART_CHANGED = (f"(() => {{ const y = {CHART_Y}; return y !== null && y.length === arg.length"
                 " && y.some((v, i) => Math.abs(v - arg[i]) > 1e-12); })()")
#: One step watched inside the page: every 25 ms, whether CONDITION holds (with ``arg``) and the script stopped, and the
#: progress bar's value; done once both held for 300 ms (Streamlit shows its running badge after a short delay).
#: Resolves to when it was done (ms before the answer), whether a bar was shown and the longest time it stood still.
WATCH = ("async ({arg, timeout}) => await new Promise(resolve => {"
         " const start = performance.now(); let shown = false, stall = 0, lastBar, barSince = start, idleSince = null;"
         " const finish = (fields) => resolve({failed: null, timed_out: false, shown, stall,"
         "  done_before_answer: idleSince === null ? 0 : performance.now() - idleSince, ...fields});"
         " const tick = () => {"
         f"  const failed = {FAILED}; if (failed) return finish({{failed}});"
         f"  const ok = (CONDITION), running = !!{RUNNING}, bar = {PROGRESS}, now = performance.now();"
         "  if (bar !== lastBar) { if (lastBar !== undefined) stall = Math.max(stall, now - barSince);"
         "   lastBar = bar; barSince = now; }"
         "  shown = shown || bar !== null;"
         "  if (ok && !running) { if (idleSince === null) idleSince = now;"
         "   if (now - idleSince >= 300) return finish({}); } else idleSince = null;"
         "  if (now - start > timeout) return finish({timed_out: true});"
         "  setTimeout(tick, 25); };"
         " tick(); })")
#: How each uploaded run reorders the IoU ranking it starts from (seeded: the same files on every machine).
RUN_NOISE = {"swapped": 0.15, "jittered": 8.0, "diluted": 0.4}


# --- the runs and the server ------------------------------------------------------------------------------------

def make_runs(data: Path, folder: Path, depth: int = 100, seed: int = 23) -> list[Path]:
    """Three depth-``depth`` TREC runs over ROCOv2 test, made once into ``folder``: retrieval by IoU (written by
    ``python -m evalcore retrieve``), then per run a seeded perturbation: ``swapped`` exchanges neighbours in 15 %
    of the ranks, ``jittered`` re-sorts by rank plus Gaussian noise (sd 8), ``diluted`` replaces 40 % of the
    retrieved images by random ones of the pool."""
    paths = [folder / f"{name}.trec" for name in RUN_NOISE]
    if all(path.exists() for path in paths):
        return paths
    folder.mkdir(parents=True, exist_ok=True)
    base = folder / "iou_depth.trec"
    subprocess.run([sys.executable, "-m", "evalcore", "retrieve", "--concepts", str(data / "test_concepts.csv"),
                    "--by", "iou", "--depth", str(depth), "--out", str(base)], cwd=ROOT, check=True)
    table = pd.read_csv(base, sep=" ", header=None, names=["query", "q0", "doc", "rank", "score", "tag"],
                        dtype={"query": str, "doc": str})
    rng = np.random.default_rng(seed)
    queries = table["query"].to_numpy().reshape(-1, depth)[:, 0]
    docs = table["doc"].to_numpy().reshape(-1, depth)
    pool = pd.read_csv(data / "test_concepts.csv", usecols=[0]).iloc[:, 0].astype(str).to_numpy()
    for (name, noise), path in zip(RUN_NOISE.items(), paths):
        ranked = docs.copy()
        if name == "swapped":
            starts = rng.random((len(ranked), depth - 1)) < noise
            starts[:, 1:] &= ~starts[:, :-1]  # no two swaps share a rank
            rows, columns = np.nonzero(starts)
            ranked[rows, columns], ranked[rows, columns + 1] = ranked[rows, columns + 1], ranked[rows, columns]
        elif name == "jittered":
            order = np.argsort(np.arange(depth) + rng.normal(0, noise, ranked.shape), axis=1, kind="stable")
            ranked = np.take_along_axis(ranked, order, axis=1)
        else:
            for row in range(len(ranked)):
                replaced = np.nonzero(rng.random(depth) < noise)[0]
                drawn = pd.unique(pool[rng.integers(0, len(pool), 2 * depth)])
                ranked[row, replaced] = drawn[~np.isin(drawn, ranked[row])][:len(replaced)]
        lines = pd.DataFrame({"query": np.repeat(queries, depth), "q0": "Q0", "doc": ranked.ravel(),
                              "rank": np.tile(np.arange(1, depth + 1), len(queries)),
                              "score": np.tile(np.arange(depth, 0, -1), len(queries)), "tag": name})
        lines.to_csv(path, sep=" ", header=False, index=False)
    base.unlink()
    return paths


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(app_root: Path, port: int, data: Path, script: str = "app.py",
                 environment: dict[str, str] | None = None) -> subprocess.Popen:
    """``streamlit run app.py`` (or ``script``) of the checkout at ``app_root``, with its own settings
    (.streamlit/config.toml), allowed to read ``data``'s parent (ROCOv2 and the KG beside it) and the checkout's demo;
    ``environment`` adds variables (a store of saved workspaces)."""
    roots = os.pathsep.join([str(data.parent), str(app_root / "data")])
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(app_root / script), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=app_root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONUNBUFFERED": "1", "CBIR_LENS_DATA_ROOTS": roots, **(environment or {})})
    deadline = time.time() + 90
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                return process
        except OSError:
            time.sleep(0.3)
    process.terminate()
    sys.exit("streamlit did not answer within 90 s")


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


# --- timing one user's steps ------------------------------------------------------------------------------------

@dataclass
class Step:
    seconds: float
    progress_shown: bool
    #: Longest time the progress bar stood at one value (fraction and text) while the step ran.
    longest_stall: float
    #: The server process's CPU seconds during the step, where the caller measured them.
    server_cpu: float = float("nan")

    def bar_note(self) -> str:
        if not self.progress_shown:
            return "no progress bar seen" + (" (step over 1 s)" if self.seconds > 1.0 else "")
        return f"progress bar shown, longest still {self.longest_stall:.1f} s"


class User:
    """One browser tab and its timed steps."""

    def __init__(self, tab, base_url: str, timeout: float = 600.0) -> None:
        self.tab = tab
        self.base_url = base_url
        self.timeout = timeout

    async def until(self, action, condition: str, arg=None) -> Step:
        """Await ``action()``, then watch the page every 25 ms until ``condition`` (JavaScript) holds and the script
        stopped.

        The watch runs inside the page (one call that returns when the step is done) rather than as a call from here
        per poll: with eight users, polling from here made 320 calls a second through Playwright's driver process
        and this interpreter, on the cores the server uses.
        """
        watch = WATCH.replace("CONDITION", condition)
        start = time.perf_counter()
        await action()
        outcome = await self.tab.evaluate(watch, {"arg": arg, "timeout": self.timeout * 1000})
        # The page reports how long before it answered the step was done; the answer's way back is counted.
        seconds = time.perf_counter() - start - outcome["done_before_answer"] / 1000
        if outcome["failed"]:
            raise RuntimeError(f"the page failed: {outcome['failed'][:300]}")
        if outcome["timed_out"]:
            await self.tab.screenshot(path=str(Path(os.environ.get("TMPDIR", "/tmp")) / "bench_timeout.png"))
            raise TimeoutError(f"not done within {self.timeout} s (screenshot: bench_timeout.png): {condition}")
        return Step(seconds, outcome["shown"], outcome["stall"] / 1000)

    async def idle(self) -> None:
        await asyncio.sleep(0.5)
        await self.tab.wait_for_function(f"!{RUNNING}", timeout=self.timeout * 1000)
        await asyncio.sleep(0.5)

    async def go(self, title: str) -> None:
        await self.tab.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()

    async def open(self) -> None:
        await self.tab.goto(self.base_url)
        await self.tab.get_by_role("heading", name="Data").first.wait_for()
        await self.idle()

    async def load_folder(self, data: Path) -> Step:
        folder = self.tab.get_by_label("ROCOv2 folder", exact=True).and_(self.tab.locator("input"))
        await folder.fill(str(data))
        await folder.press("Enter")
        await self.idle()
        return await self.until(lambda: self.tab.get_by_role("button", name="Load ROCOv2 folder").click(),
                                "document.body.innerText.includes('ROCOv2 test')")

    async def open_saved(self, workspace_id: str) -> Step:
        """Open a saved workspace's link (a fresh session), until its data is shown."""
        return await self.until(lambda: self.tab.goto(f"{self.base_url}/?workspace={workspace_id}"),
                                "document.body.innerText.includes('ROCOv2 test')")

    async def upload_runs(self, paths: list[Path]) -> Step:
        """All run files at once into the Data page's "Run files" uploader, until each is reported loaded."""
        uploader = self.tab.locator('[data-testid="stFileUploader"]').filter(has_text="Run files")
        names = [path.name for path in paths]
        return await self.until(lambda: uploader.locator("input[type=file]").set_input_files([str(p) for p in paths]),
                                "arg.every(name => document.body.innerText.includes('Loaded ' + name))", names)

    async def leaderboard_first(self, systems: int) -> Step:
        return await self.until(lambda: self.go("Leaderboard"),
                                f"(() => {{ const y = {CHART_Y}; return y !== null && y.length === {systems}; }})()")

    async def move_slider(self, index: int, key: str) -> Step:
        """Move the ``index``-th slider of the page (0: alpha, 1: n) one step; done when the chart's values change."""
        slider = self.tab.get_by_role("slider").nth(index)
        before = await self.tab.evaluate(CHART_Y)

        async def press() -> None:
            await slider.focus()
            await self.tab.keyboard.press(key)

        return await self.until(press, CHART_CHANGED, before)

    async def per_query_first(self) -> Step:
        return await self.until(lambda: self.go("Per-query"), "document.body.innerText.includes('Why:')")

    async def query_switch(self) -> Step:
        query_box = self.tab.get_by_role("combobox", name="Query", exact=True)
        current = await query_box.input_value()
        # The query list follows the concept file, whose IDs are numbered: pick a later one by typing it.
        wanted = current[:-6] + f"{int(current[-6:]) + 1:06d}"

        async def choose() -> None:
            await query_box.fill(wanted)
            await query_box.press("Enter")

        return await self.until(choose, "document.body.innerText.includes(arg)", wanted)

    async def ablation_first(self) -> Step:
        return await self.until(lambda: self.go("Ablation"),
                                "document.body.innerText.includes('Averaged over')"
                                " && !!document.querySelector('.js-plotly-plot')")

    async def compare_measures(self) -> Step:
        evidence = "!!document.querySelector('.js-plotly-plot') || document.body.innerText.includes('Kendall')"
        button = self.tab.get_by_role("button", name="Compare the measures")
        opened = await self.until(lambda: self.go("Choose a measure"),
                                  f"({evidence}) || document.body.innerText.includes('Compare the measures')")
        if not await button.count():  # prepared in the background: the evidence is drawn when the page opens
            return opened
        await self.idle()
        # The run that computes still draws the button (the page drew it before the press was read): the evidence
        # is there when its first chart or its Kendall tau column is.
        return await self.until(button.click, "!!document.querySelector('.js-plotly-plot')"
                                " || document.body.innerText.includes('Kendall')")

    async def kg_path(self) -> Step:
        await self.go("Knowledge graph")
        await self.tab.get_by_role("heading", name="Knowledge graph").first.wait_for()
        await self.idle()
        source = self.tab.get_by_label("Search From by name or CUI")
        await source.fill("Veins")
        await source.press("Enter")
        await self.idle()
        target = self.tab.get_by_label("Search To by name or CUI")
        await target.fill("Blood vessels")
        return await self.until(lambda: target.press("Enter"), "document.body.innerText.includes('Distance: 1 hop.')")


async def launch(playwright):
    return await playwright.chromium.launch(executable_path=CHROMIUM,
                                            args=["--headless", "--no-sandbox", "--disable-gpu"])


async def new_user(browser, base_url: str, timeout: float = 600.0) -> tuple[object, User]:
    """A fresh browser context (its own cookies: its own Streamlit session) with one tab."""
    context = await browser.new_context(viewport=VIEWPORT)
    tab = await context.new_page()
    tab.set_default_timeout(timeout * 1000)
    return context, User(tab, base_url, timeout)
