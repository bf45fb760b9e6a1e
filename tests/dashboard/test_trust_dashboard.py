"""Trust at the edges of the dashboard (issue #21, items 9 and 14-19): significance keyed by everything it reads,
image files only inside the data roots, clear messages for hostile folder paths, formula cells neutralised in the
CSV downloads, one LaTeX escaping, bounded image decoding, and a download that survives the page's reruns."""

from __future__ import annotations

import csv
import io
import os
import re
import struct
import subprocess
import sys
import time
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.testing.v1 import AppTest

from evalcore.app.workspace import MAX_IMAGE_PIXELS, Workspace, read_image_zip, with_concepts, with_run
from evalcore.errors import CBIRLensError
from evalcore.evaluation.evaluator import Evaluation, Evaluator, SystemResult
from evalcore.evaluation.options import Relevance, Scoring
from evalcore.evaluation.results import Results, evaluate_runs
from evalcore.io.loading import DATA_ROOTS_VARIABLE, check_under_roots, data_roots
from evalcore.io.tables import FORMULA_STARTS, latex_escape, latex_table, spreadsheet_csv
from evalcore.relevance.measures import parse_measure
from tests.browser.test_browser import CHROMIUM, idle, server  # noqa: F401  (the module's server fixture)
from tests.conftest import ROOT
from tests.dashboard.test_app_measures import first_run, frame_with


def switch(app: AppTest, page: str) -> AppTest:
    app.switch_page(page)
    app.run()
    assert not app.exception, app.exception
    return app


def huge_png(width: int, height: int) -> bytes:
    """A black bilevel PNG of the given dimensions, written row by row: a few KB however large it is."""
    compressor = zlib.compressobj(9)
    row = b"\0" * (1 + (width + 7) // 8)  # filter byte, then 8 pixels a byte
    pixels = b"".join(compressor.compress(row) for _ in range(height)) + compressor.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


def small_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), "red").save(buffer, format="PNG")
    return buffer.getvalue()


HUGE = (10_000, 9_900)  # 99 M pixels, past the limit but within Pillow's own bomb guard


# --- 9: significance keyed by the measure and its parameters --------------------------------------------------

def comparisons_shown(app: AppTest) -> dict[tuple[str, str], float]:
    table = frame_with(app, "A - B")
    return {(row["system A"], row["system B"]): row["A - B"] for _, row in table.iterrows()}


@pytest.mark.slow
def test_significance_follows_the_tversky_parameters():
    metric = "CUI@10{tversky}"
    app = switch(first_run(measure="tversky", measure_tversky_a=0.9), "pages/leaderboard.py")
    app.selectbox(key="focus_metric").set_value(metric).run()
    before = comparisons_shown(app)
    app.session_state["measure_tversky_a"] = 0.1  # the sidebar slider (moved for real in the browser)
    app.run()
    assert not app.exception, app.exception
    after = comparisons_shown(app)
    workspace = app.session_state["workspace"]
    runs = [run for _, run in workspace.runs.values()]
    expected = evaluate_runs(Evaluator(workspace.concepts), runs, Scoring([metric]),
                             Relevance.of(measure=parse_measure("tversky(a=0.1,b=0.3)"))).compare(metric)
    assert after == pytest.approx({(row.system_a, row.system_b): row.mean_difference for row in expected.itertuples()})
    assert after != pytest.approx(before)


# --- 14 and 18: image files of a folder --------------------------------------------------------------------

@pytest.fixture
def image_folder(tmp_path, monkeypatch):
    """A ROCOv2-layout folder under the only data root: img1.png links to a file outside it, img2.png has 99 M
    pixels in a few KB, img3.png is an ordinary picture."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    folder = root / "rocov2"
    (folder / "images").mkdir(parents=True)
    outside.mkdir()
    (folder / "test_concepts.csv").write_text("ID,CUIs\nimg1,C0000001;C0000002\nimg2,C0000001\nimg3,C0000002\n"
                                              "img4,C0000001;C0000003\n")
    (outside / "secret.png").write_bytes(small_png())
    (folder / "images" / "img1.png").symlink_to(outside / "secret.png")
    (folder / "images" / "img2.png").write_bytes(huge_png(*HUGE))
    (folder / "images" / "img3.png").write_bytes(small_png())
    monkeypatch.setenv(DATA_ROOTS_VARIABLE, str(root))
    return folder


def per_query_left_column(folder: Path, query: str) -> tuple[list[str], list[str]]:
    """The texts and image captions the Per-query page shows for a query of the folder."""
    app = first_run()
    app.text_input(key="rocov2_folder").set_value(str(folder))
    app.button(key="load_rocov2").click().run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    switch(app, "pages/per_query.py")
    app.selectbox(key="pq_query").set_value(query).run()
    assert not app.exception, app.exception
    return [t.value for t in app.text], [caption for image in app.get("image") for caption in image.captions]


@pytest.mark.slow
def test_an_image_that_links_outside_the_data_roots_is_not_read(image_folder):
    texts, captions = per_query_left_column(image_folder, "img1")
    assert "img1" not in captions
    assert "img1.png: links to a file outside the data folders this server may read; not shown" in texts
    texts, captions = per_query_left_column(image_folder, "img3")
    assert "img3" in captions  # an ordinary file of the folder is shown


def test_an_image_of_huge_dimensions_is_refused_with_its_name_and_size(image_folder):
    texts, captions = per_query_left_column(image_folder, "img2")
    assert "img2" not in captions
    assert any(t.startswith("img2.png: 10,000 x 9,900 pixels (99 M) in a ") and t.endswith(
        f"an image may have at most {MAX_IMAGE_PIXELS // 1_000_000} M pixels") for t in texts), texts


def test_a_zip_holding_an_image_of_huge_dimensions_is_not_loaded():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("ok.png", small_png())
        archive.writestr("scans/bomb.png", huge_png(*HUGE))
    with pytest.raises(CBIRLensError, match=r"^images\.zip: scans/bomb\.png: 10,000 x 9,900 pixels \(99 M\)"):
        read_image_zip(buffer.getvalue(), "images.zip")
    app = first_run()
    before = dict(app.session_state["workspace"].images)
    app.file_uploader(key="up_images").set_value(("images.zip", buffer.getvalue(), "application/zip")).run()
    assert not app.exception, app.exception
    assert [e.value for e in app.error] == [f"Not loaded: {error_text(buffer.getvalue())}"]
    assert app.session_state["workspace"].images.keys() == before.keys()


def error_text(zip_bytes: bytes) -> str:
    try:
        read_image_zip(zip_bytes, "images.zip")
    except CBIRLensError as error:
        return str(error)
    raise AssertionError("the zip was accepted")


THUMBNAIL_MEMORY = """
import sys
from evalcore.app.workspace import thumbnail

def mib(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field)) // 1024

for path in sys.argv[1:]:
    data = open(path, "rb").read()
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")  # the peak (VmHWM) starts again from the current size
    before = mib("VmRSS:")
    image = thumbnail(data)
    print(mib("VmHWM:") - before, image is not None)
"""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's peak-memory reset")
def test_a_thumbnail_decode_stays_small(tmp_path):
    """Peak memory of one thumbnail, in a process of its own: the 99 M-pixel PNG is refused from its header (it cost
    about 95 MB, and more in colour), and a 36 M-pixel JPEG is decoded at 1/8 scale, not whole (108 MB)."""
    bomb, photo = tmp_path / "bomb.png", tmp_path / "large.jpg"
    bomb.write_bytes(huge_png(*HUGE))
    Image.new("RGB", (6000, 6000), "white").save(photo, format="JPEG")
    done = subprocess.run([sys.executable, "-c", THUMBNAIL_MEMORY, str(bomb), str(photo)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=True)
    (bomb_mib, bomb_shown), (photo_mib, photo_shown) = (line.split() for line in done.stdout.splitlines())
    assert bomb_shown == "False" and int(bomb_mib) < 8, done.stdout
    assert photo_shown == "True" and int(photo_mib) < 16, done.stdout


# --- 15: hostile text in the folder box --------------------------------------------------------------------

@pytest.mark.parametrize("folder, expected", [
    ("../shared/data/rocov2\0/etc", r"^Not loaded: \.\./shared/data/rocov2\\x00/etc: expected a path, found a NUL "
                                    r"character \(\\0\) in it$"),
    (str(ROOT / "data" / ("a" * 5000)), r"^Not loaded: .{80}… \(\d,\d{3} characters\): expected a path the system can "
                                        r"open, found one too long for it \(Linux allows names of at most 255 bytes"),
    ("shared/data/rocov2", r"^Not loaded: shared/data/rocov2: no such file or folder; a relative path is read from "
                           r"the app's working folder$"),
])
def test_a_bad_folder_path_gets_one_clear_message(monkeypatch, folder, expected):
    monkeypatch.delenv(DATA_ROOTS_VARIABLE, raising=False)
    app = first_run()
    before = app.session_state["workspace"].digest
    app.text_input(key="rocov2_folder").set_value(folder)
    app.button(key="load_rocov2").click().run()
    assert not app.exception, app.exception
    messages = [e.value for e in app.error]
    assert len(messages) == 1 and re.match(expected, messages[0]), messages
    assert "Errno" not in messages[0] and "to allow it" not in messages[0] and len(messages[0]) < 300
    assert app.session_state["workspace"].digest == before


# --- 16: formula cells neutralised in the CSV downloads ----------------------------------------------------

def test_spreadsheet_csv_neutralises_text_cells_and_keeps_negative_numbers():
    frame = pd.DataFrame({"system": ["=1+1", "+x", "-2", "@q", "\tt", "\rr", "plain", None],
                          "delta": [-0.25, -1.0, 2.0, 0.0, -3.5, 1.0, -0.5, 0.5],
                          "queries": [-1, 2, 3, 4, 5, 6, 7, 8]})
    rows = list(csv.reader(io.StringIO(spreadsheet_csv(frame), newline="")))
    assert rows[0] == ["system", "delta", "queries"]
    assert [row[0] for row in rows[1:]] == ["'=1+1", "'+x", "'-2", "'@q", "'\tt", "'\rr", "plain", ""]
    assert [float(row[1]) for row in rows[1:]] == frame.delta.tolist()  # written as numbers, not as '-0.25
    assert [int(row[2]) for row in rows[1:]] == frame.queries.tolist()
    assert frame.system[0] == "=1+1"  # the caller's frame is left alone


HOSTILE_IDS = ["@q", "=1+1", "-5", "+x", '=HYPERLINK("http://x","y")', "img6"]
HOSTILE_SYSTEMS = ['=HYPERLINK("http://evil","click")', "-2", "@sys"]


def hostile_workspace() -> Workspace:
    """Image IDs and system names that a spreadsheet would run as formulas."""
    rows = "".join(f'"{i.replace(chr(34), chr(34) * 2)}",C000000{n % 3 + 1};C000000{n % 2 + 4}\n'
                   for n, i in enumerate(HOSTILE_IDS))
    ws = with_concepts(Workspace(label="hostile"), f"ID,CUIs\n{rows}".encode(), "hostile.csv")
    lines = [f"{query} Q0 {document} {rank} {1.0 / rank} {system}"
             for system in HOSTILE_SYSTEMS for query in HOSTILE_IDS
             for rank, document in enumerate((d for d in HOSTILE_IDS if d != query), start=1)]
    return with_run(ws, ("\n".join(lines) + "\n").encode(), "hostile.trec")


@pytest.fixture
def downloads(monkeypatch) -> dict:
    """What every download button hands over, by file name: bytes, or the callable of a deferred download."""
    handed = {}
    add, add_deferred = MediaFileManager.add, MediaFileManager.add_deferred

    def kept_add(self, data, mimetype, coordinates, file_name=None, is_for_static_download=False):
        if is_for_static_download:
            handed[file_name] = data
        return add(self, data, mimetype, coordinates, file_name=file_name,
                   is_for_static_download=is_for_static_download)

    def kept_deferred(self, data_callable, mimetype, coordinates, file_name=None, **keywords):
        handed[file_name] = data_callable
        return add_deferred(self, data_callable, mimetype, coordinates, file_name=file_name, **keywords)

    monkeypatch.setattr(MediaFileManager, "add", kept_add)
    monkeypatch.setattr(MediaFileManager, "add_deferred", kept_deferred)
    return handed


def test_leaderboard_csv_downloads_neutralise_formula_cells(downloads):
    app = first_run(workspace=hostile_workspace())
    switch(app, "pages/leaderboard.py")
    results = list(csv.DictReader(io.StringIO(downloads["results.csv"]().decode(), newline="")))
    per_query = list(csv.DictReader(io.StringIO(downloads["per_query.csv"]().decode(), newline="")))
    assert {row["system"] for row in results} == {"'" + s for s in HOSTILE_SYSTEMS}
    assert {row["system"] for row in per_query} == {"'" + s for s in HOSTILE_SYSTEMS}
    assert {row["query_id"] for row in per_query} == {"'" + i if i.startswith(FORMULA_STARTS) else i
                                                      for i in HOSTILE_IDS}
    for rows, numbers in ((results, ("mean", "ci95_low", "ci95_high", "queries")), (per_query, ("value",))):
        for row in rows:
            assert not any(cell.startswith(FORMULA_STARTS) for name, cell in row.items() if name not in numbers)
            for name in numbers:
                float(row[name] or "nan")  # numbers stay numbers


# --- 17: one LaTeX writer, one escaping ---------------------------------------------------------------------

def test_both_latex_writers_escape_names_the_same_way():
    systems = ["[-3cm]x", "*star", "a_b & 50% #1 {x} ~^\\ <|>", "line\nbreak"]
    metric = "P@5[organ]"
    results = Results(Evaluation({s: SystemResult(s, ("q1", "q2"), {metric: np.array([0.25, 0.75])}, {})
                                  for s in systems}, {"alpha": 0.5, "n": 1}, [metric]))
    summary = results.table().rename(columns={"ci_low": "low", "ci_high": "high"})

    def table_rows(latex: str) -> list[str]:
        lines = latex.splitlines()
        return lines[lines.index(r"\toprule") + 1:lines.index(r"\bottomrule")]

    api, dashboard = table_rows(results.to_latex([metric])), table_rows(latex_table(summary, [metric], "c"))
    assert [row.split(" & ")[0] for row in api] == [row.split(" & ")[0] for row in dashboard]
    assert api[0] == dashboard[0] == r"System & P@5{[}organ{]} \\"
    names = [row.rsplit(" & ", 1)[0] for row in api[2:]]
    assert names == [latex_escape(s) for s in systems]
    assert names[0] == "{[}-3cm{]}x" and names[1] == "{*}star" and names[3] == "line break"
    assert names[2] == (r"a\_b \& 50\% \#1 \{x\} \textasciitilde{}\textasciicircum{}\textbackslash{} "
                        r"\textless{}\textbar{}\textgreater{}")
    for latex in (results.to_latex([metric]), latex_table(summary, [metric], "c")):
        assert not re.search(r"\\\\\s*[\[*]", latex)  # no row starts with an optional argument or a star
        assert "[0." not in latex  # the intervals' brackets are braced too


# --- 19: a download survives the reruns around it ----------------------------------------------------------

@pytest.mark.slow
def test_no_download_button_reruns_the_page():
    app = switch(first_run(), "pages/leaderboard.py")
    app.toggle(key="qrels_toggle").set_value(True).run()
    assert not app.exception, app.exception
    buttons = app.get("download_button")
    assert {b.proto.label for b in buttons} == {"Results with 95% CIs (CSV)", "Per-query values (CSV)",
                                                "LaTeX table (booktabs)", "Graded qrels", "Report for the paper (HTML)"}
    assert all(b.proto.ignore_rerun for b in buttons)


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian chromium is not installed")
def test_per_query_download_right_after_another_download_yields_the_file(server, tmp_path):  # noqa: F811
    """The browser's request for the per-query file is held back until every rerun in flight has finished (a busy
    server answers it that late), then let through: the file must still come, without an error under the button."""
    from playwright.sync_api import sync_playwright
    from streamlit.proto.BackMsg_pb2 import BackMsg

    held = []

    def hold_file_requests(socket) -> None:
        to_server = socket.connect_to_server()

        def from_page(message) -> None:
            if isinstance(message, bytes):
                request = BackMsg()
                request.ParseFromString(message)
                if request.WhichOneof("type") == "backend_operation_request":
                    held.append((to_server, message))
                    return
            to_server.send(message)

        socket.on_message(from_page)
        to_server.on_message(socket.send)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox",
                                                                            "--disable-gpu"])
        try:
            tab = browser.new_page(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
            tab.set_default_timeout(120_000)
            tab.route_web_socket(re.compile(r".*/_stcore/stream"), hold_file_requests)
            files = {}
            tab.on("download", lambda download: files.setdefault(download.suggested_filename, download))
            tab.goto(server)
            tab.get_by_role("heading", name="Data").first.wait_for()
            tab.locator('[data-testid="stSidebarNav"]').get_by_text("Leaderboard", exact=True).click()
            tab.get_by_role("button", name="Per-query values (CSV)").wait_for()
            idle(tab)
            tab.get_by_role("button", name="Results with 95% CIs (CSV)").click()
            tab.get_by_role("button", name="Per-query values (CSV)").click()
            idle(tab)
            assert len(held) == 2  # both files are written when asked for
            for to_server, message in held:
                to_server.send(message)
            deadline = time.time() + 60
            errors = tab.locator('[data-testid="stDownloadButtonError"]')
            while not {"per_query.csv", "results.csv"} <= set(files) and not errors.count() and time.time() < deadline:
                tab.wait_for_timeout(200)
            assert not errors.count(), errors.all_inner_texts()
            path = files["per_query.csv"].path()
            with open(path, encoding="utf-8") as handle:
                assert handle.readline().strip() == "system,query_id,metric,value"
            assert "results.csv" in files and os.path.getsize(path) > 1_000_000
        finally:
            browser.close()


def test_the_folder_box_never_tells_whether_a_path_outside_the_data_roots_exists(monkeypatch, tmp_path):
    monkeypatch.setenv(DATA_ROOTS_VARIABLE, str(tmp_path))
    messages = []
    for outside in ("/etc/passwd", "/etc/no-such-file-here"):
        with pytest.raises(CBIRLensError) as refused:
            check_under_roots(outside, data_roots())
        messages.append(str(refused.value).replace(outside, "PATH"))
    assert messages[0] == messages[1] and "outside them" in messages[0]
    with pytest.raises(CBIRLensError, match="no such file or folder"):
        check_under_roots(tmp_path / "missing", data_roots())
