from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from hypothesis import settings

from evalcore.data import ConceptSets, KGEdges
from evalcore.relevance.kg import KnowledgeGraph

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
ROCOV2 = SHARED / "rocov2"
OPEN_KG = SHARED / "kg" / "open_kg_edges.csv"
DEMO = ROOT / "data" / "demo"

# CI runs the same examples every time (a red CI names a change, not a draw); runs elsewhere keep exploring,
# and what they find is pinned with @example.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# Work prepared in the background (dashboard/background.py) would go on computing for one test while the next ones
# run: every test but those of that module (which turn it on) has the pages compute what they show when opened.
os.environ.setdefault("CBIR_LENS_PREPARE", "0")

# Saved workspaces of the test run go to a folder of their own (the dashboard's and the servers' the tests start),
# never to the user's store; a test that needs its own store sets CBIR_LENS_STORE itself.
# The folder goes when the test process ends, so that runs leave no store behind in the system's temporary folder.
if "CBIR_LENS_STORE" not in os.environ:
    import atexit
    import shutil
    import tempfile

    os.environ["CBIR_LENS_STORE"] = tempfile.mkdtemp(prefix="cbir-lens-test-store-")
    atexit.register(shutil.rmtree, os.environ["CBIR_LENS_STORE"], ignore_errors=True)


@pytest.fixture(autouse=True)
def _the_interpreters_main_module():
    """Each test leaves ``sys.modules["__main__"]`` as it found it. An AppTest run puts a module of the page script
    there (as the Streamlit server does), and a worker process started afterwards (forkserver, spawn) imports the
    main module by its path: it would run app.py and stop (seen when the app's tests ran before the first test that
    starts extraction workers)."""
    import sys

    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


def cli_refusal(argv: list[str], capsys) -> str:
    """The one error line of a command line that ``argv`` makes exit with status 2."""
    from evalcore.cli import main

    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("error: "), error
    return error


def random_world(seed: int, images: int = 60, vocabulary: int = 25, edges: int = 30):
    """Seeded random concept sets over C0000000.. plus a random is_a graph with extra non-CUI nodes."""
    rng = random.Random(seed)
    cuis = [f"C{i:07d}" for i in range(vocabulary)]
    nodes = cuis + [f"X:{i}" for i in range(vocabulary // 3)]
    pairs = set()
    while len(pairs) < edges:
        child, parent = rng.sample(nodes, 2)
        pairs.add((child, parent))
    kg = KnowledgeGraph.from_edges([KGEdges(tuple((c, p, "rand") for c, p in sorted(pairs)), {})])
    sets = tuple(frozenset(rng.sample(cuis, rng.randint(0, 5))) for _ in range(images))
    concepts = ConceptSets(tuple(f"img{i}" for i in range(images)), sets)
    return concepts, kg


@pytest.fixture
def worked_kg() -> KnowledgeGraph:
    """docs/DESIGN.md §2's example: vein -> blood vessel, with CT unrelated."""
    return KnowledgeGraph.from_edges([KGEdges((("C0042449", "C0005847", "test"),), {"C0042449": "Veins",
                                                                                   "C0005847": "Blood Vessels"})])


def needs(path: Path):
    """Skip the test where ``path`` is absent; a path of the real data is also marked ``rocov2``."""
    skip = pytest.mark.skipif(not path.exists(), reason=f"{path} not available")
    if not path.is_relative_to(SHARED):
        return skip
    return lambda test: pytest.mark.rocov2(skip(test))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A browser test is slow too, so that ``-m "not slow"`` (the fast lane, docs/TESTING.md) leaves it out."""
    for item in items:
        if item.get_closest_marker("browser") is not None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)


def press_if_shown(app, key: str) -> None:
    """Click an AppTest button and rerun, where it is shown: the pages keep button-computed results for the whole
    server, so a test before this one in the process may have computed them already (then no button is drawn)."""
    if any(button.key == key for button in app.button):
        app.button(key=key).click().run()
    assert not app.exception, app.exception


#: Seconds an AppTest run may take (a first ROCOv2 draw on a loaded 2-core machine).
APP_TIMEOUT = 240


def open_page(page: str | None = None, **state):
    """The app as the server runs it (app.py with its navigation), ``state`` set, switched to ``page``."""
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT)
    app.run()
    for name, value in state.items():
        app.session_state[name] = value
    if page:
        app.switch_page(page)
        app.run()
    assert not app.exception, app.exception
    return app


def declared_pages() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The clinician's pages and the researcher's others, as app.py declares them (``PAGE_FILES``,
    ``CLINICIAN_PAGES``): a new page is declared there once, and every test that walks the pages finds it.

    app.py is read, not imported: importing it would run the app."""
    import ast

    constants = {target.id: ast.literal_eval(node.value)
                 for node in ast.parse((ROOT / "app.py").read_text(encoding="utf-8")).body if isinstance(node, ast.Assign)
                 for target in node.targets if isinstance(target, ast.Name)
                 and target.id in ("PAGE_FILES", "CLINICIAN_PAGES")}
    clinician = tuple(constants["CLINICIAN_PAGES"])
    return clinician, tuple(page for page in constants["PAGE_FILES"] if page not in clinician)


def frame_with(app, column: str):
    """The first dataframe shown with this column (dataframes are not looked up by key in AppTest)."""
    for frame in app.dataframe:
        if column in frame.value.columns:
            return frame.value
    raise AssertionError(f"no dataframe with column {column!r}")


def rocov2_folder_with_a_run(tmp_path: Path, monkeypatch) -> Path:
    """A ROCOv2 folder the server may read (links to the shared test files) with ``runs/mine.trec`` of one line;
    returns the run file."""
    monkeypatch.setenv("CBIR_LENS_DATA_ROOTS", f"{tmp_path}:{ROCOV2}")
    for name in ("test_concepts.csv", "test_captions.csv", "cui_mapping.csv", "images"):
        (tmp_path / name).symlink_to(ROCOV2 / name)
    (tmp_path / "runs").mkdir()
    run = tmp_path / "runs" / "mine.trec"
    run.write_text("ROCOv2_2023_test_000001 Q0 ROCOv2_2023_test_000002 1 1.0 mine\n")
    return run
