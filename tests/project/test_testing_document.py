"""docs/TESTING.md stays true: its markers are the ones pytest declares, its table names every folder of tests/, the
folders mirror the package, and every folder keeps tests in the fast lane (``-m "not slow"``)."""

from __future__ import annotations

import ast
import re
import tomllib

from tests.conftest import ROOT

DOCUMENT = (ROOT / "docs" / "TESTING.md").read_text(encoding="utf-8")
TESTS = ROOT / "tests"
FOLDERS = sorted(p.name for p in TESTS.iterdir() if p.is_dir() and (p / "__init__.py").is_file())


def declared_markers() -> set[str]:
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    return {marker.split(":")[0] for marker in options["markers"]}


def test_the_markers_documented_are_the_markers_declared():
    documented = set(re.findall(r"^\| `(\w+)` \|", DOCUMENT, re.M))
    assert documented == declared_markers()


def test_a_marker_not_declared_fails_the_run():
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "--strict-markers" in options["addopts"].split()


def test_the_suite_runs_on_two_worker_processes_as_the_document_says():
    """docs/TESTING.md: two worker processes (pytest-xdist, pinned), work stolen between them; ``-n 0`` for one."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert " -n 2 --dist worksteal" in f" {options['addopts']}"
    assert re.search(r"^pytest-xdist==\d", (ROOT / "requirements.txt").read_text(encoding="utf-8"), re.M)
    assert "`-n 2 --dist worksteal`" in DOCUMENT and "`-n 0`" in DOCUMENT


def test_the_table_names_every_top_level_module_and_only_test_files_that_exist():
    """A change to a module at evalcore's top level finds its tests in the table, as a change in a subpackage does."""
    named = set(re.findall(r"^\| `evalcore/(\w+)\.py` \|", DOCUMENT, re.M))
    top = {path.stem for path in (ROOT / "evalcore").glob("*.py") if path.stem != "__init__"}
    assert top <= named, sorted(top - named)
    files = re.findall(r"`(tests/[\w/]+\.py)`", DOCUMENT)
    assert files and not [name for name in files if not (ROOT / name).is_file()]


def test_the_table_names_every_folder_and_every_folder_exists():
    named = set(re.findall(r"`tests/(\w+)`", DOCUMENT))
    assert named == set(FOLDERS)
    assert not list(TESTS.glob("test_*.py")), "a test file outside the folders that mirror the package"


def test_the_folders_mirror_the_library():
    packages = {p.name for p in (ROOT / "evalcore").iterdir() if (p / "__init__.py").is_file()}
    assert packages <= set(FOLDERS), sorted(packages - set(FOLDERS))


def fast_tests(path) -> list[str]:
    """The test functions of a file that the fast lane runs: not marked slow or browser, here or for the module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module_marks = " ".join(ast.unparse(node.value) for node in tree.body if isinstance(node, ast.Assign)
                            and any(getattr(target, "id", "") == "pytestmark" for target in node.targets))
    if re.search(r"mark\.(slow|browser)|\bpytestmark\b", module_marks) or re.search(
            r"^from \S+ import .*\bpytestmark\b", path.read_text(encoding="utf-8"), re.M):
        return []
    return [node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name.startswith("test_")
            and not any(re.search(r"mark\.(slow|browser)", ast.unparse(d)) for d in node.decorator_list)]


def test_every_folder_keeps_tests_in_the_fast_lane():
    """The lane covers every part of the house but the browser's flows (which are slow by nature)."""
    empty = [folder for folder in FOLDERS if folder != "browser"
             and not any(fast_tests(path) for path in (TESTS / folder).glob("test_*.py"))]
    assert not empty, f"folders with no test in the fast lane: {empty}"
    assert not any(fast_tests(path) for path in (TESTS / "browser").glob("test_*.py"))


def test_every_worked_example_of_the_project_runs_in_the_suite():
    """The document says the suite runs the doctests of evalcore/ and dashboard/: every top-level folder whose modules
    hold a worked example (``>>>``) is one of pytest's test paths, collected with ``--doctest-modules``."""
    options = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    with_examples = {path.relative_to(ROOT).parts[0] for path in ROOT.glob("*/**/*.py")
                     if path.relative_to(ROOT).parts[0] not in {"tests", "benchmarks", "scripts"}
                     and ">>>" in path.read_text(encoding="utf-8")}
    assert {"evalcore", "dashboard"} <= with_examples
    assert with_examples <= set(options["testpaths"]), sorted(with_examples - set(options["testpaths"]))
    assert "--doctest-modules" in options["addopts"].split()
