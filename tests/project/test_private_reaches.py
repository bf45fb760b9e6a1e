"""The tests reach into private names (``engine._code_cache``, ``monkeypatch.setattr(threads, "_controller", ...)``,
``from module import _helper``) only where no public name observes the same thing (issue 66): each reach left is
listed below with why, a reach not listed fails, and their number is a ceiling, so that it can only go down. A test
that seems to need a new one observes the public behaviour instead (a public method or property, the function the
private one implements, a documented constant, a spy on a public name); where it must read an internal (a cache's
content, to prove that a shortcut is taken), it is listed here with its reason."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

from tests.conftest import ROOT

#: Names whose private attributes belong to the test itself or to pytest, not to the code under test.
OWN_NAMES = frozenset({"self", "cls", "pytest", "monkeypatch", "request"})

UNIT = ("a unit test of a private helper against a plain reference implementation on random inputs (a property "
        "that the public functions built on it show only in part); evalcore/extraction keeps its names private")
SHORTCUT = ("turns a private predicate of the extractor on for every word and then off, to show that its shortcut "
            "gives the same mentions and that the test can tell the two paths apart: both read alike by design")
FAST_PATH = ("the qrels reader's pyarrow path alone (None where it leaves a file to Python's splitting), checked on "
             "random files: read_qrels gives the same answers either way by design, so no public name tells them apart")
CACHED = ("drops the module's cached threadpoolctl controller, so that the recorded stand-in is made: the cache has "
          "no public reset")
ARGPARSE = "argparse keeps a parser's actions in _actions, with no public accessor (evalcore.cli.parser reads it so too)"
STREAMLIT = ("Streamlit's AppTest: the whole element tree (main, sidebar and event containers) and the pages "
             "st.navigation registered with their titles have no public accessor")
JAX = "JAX: a jitted function's count of compilations, which proves one compilation serves every block"
STDLIB = "os._exit is a documented standard-library function, not a private reach"

#: Each private reach left, as (test file, what it reads, how many times, why).
ALLOWED: tuple[tuple[str, str, int, str], ...] = (
    ("tests/extraction/test_extraction.py", "from evalcore.extraction.extractor import _nearest_modality", 1, UNIT),
    ("tests/extraction/test_extraction.py", "extractor._read_for_denial", 2, SHORTCUT),
    ("tests/readers/test_qrels_columns.py", "from evalcore.readers.qrels import _qrels_by_columns", 1, FAST_PATH),
    ("tests/engine/test_threads.py", "threads._controller", 1, CACHED),
    ("tests/cli/test_cli_edges.py", "build_parser()._actions", 1, ARGPARSE),
    ("tests/cli/test_cli_edges.py", "sub._actions", 1, ARGPARSE),
    ("tests/cli/test_cli_refusals.py", "build_parser()._actions", 1, ARGPARSE),
    ("tests/cli/test_cli_refusals.py", "retrieve._actions", 1, ARGPARSE),
    ("tests/project/test_document_figures.py", "parser._actions", 1, ARGPARSE),
    ("tests/project/test_document_figures.py", "command._actions", 1, ARGPARSE),
    ("tests/project/test_document_figures.py", "argparse._SubParsersAction", 1, ARGPARSE),
    ("tests/dashboard/test_app_audience.py", "app._tree", 2, STREAMLIT),
    ("tests/dashboard/test_app_audience.py", "app._registered_pages", 2, STREAMLIT),
    ("tests/dashboard/test_app_audience.py", "researcher._registered_pages", 1, STREAMLIT),
    ("tests/engine/test_jax_backend.py", "program._cache_size", 1, JAX),
    ("tests/extraction/test_extraction.py", "os._exit", 1, STDLIB),
)
CEILING = sum(count for _, _, count, _ in ALLOWED)


def is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def root_name(node: ast.expr) -> str | None:
    """The name an attribute chain starts from (``evaluator`` of ``evaluator.engine._group_cache``, ``build_parser``
    of ``build_parser()._actions``), or None."""
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


#: Calls that reach an attribute named by a string: ``monkeypatch.setattr(module, "_name", ...)``, ``getattr(...)``.
BY_STRING = frozenset({"getattr", "setattr", "delattr", "hasattr"})


def named_by_string(node: ast.Call) -> str | None:
    """The private attribute a call names by a string (``threads._controller`` of ``monkeypatch.setattr(threads,
    "_controller", None)``, ``evalcore.x._y`` of ``monkeypatch.setattr("evalcore.x._y", 1)``), or None."""
    callee = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
    if callee not in BY_STRING or not node.args:
        return None
    first, second = node.args[0], node.args[1] if len(node.args) > 1 else None
    if isinstance(second, ast.Constant) and isinstance(second.value, str):
        if is_private(second.value) and root_name(first) not in OWN_NAMES:
            return f"{ast.unparse(first)}.{second.value}"
    elif isinstance(first, ast.Constant) and isinstance(first.value, str) and "." in first.value:
        if is_private(first.value.rsplit(".", 1)[1]):
            return first.value
    return None


def private_reaches(source: str) -> list[str]:
    """Each reach into a private name in ``source``: an attribute whose name starts with one underscore (but not of
    the test's own objects or pytest's), written as an attribute or named by a string (:func:`named_by_string`), and a
    name imported from a module other than the tests' own."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and is_private(node.attr) and root_name(node.value) not in OWN_NAMES:
            found.append(f"{ast.unparse(node.value)}.{node.attr}")
        elif isinstance(node, ast.Call) and (reach := named_by_string(node)) is not None:
            found.append(reach)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and not (node.module or "").startswith("tests"):
            found += [f"from {node.module} import {alias.name}" for alias in node.names if is_private(alias.name)]
    return found


def reaches_in_tests() -> Counter[tuple[str, str]]:
    """``{(test file, reach): times}`` over every Python file under tests/."""
    found: Counter[tuple[str, str]] = Counter()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        found.update((name, reach) for reach in private_reaches(path.read_text(encoding="utf-8")))
    return found


def test_the_scan_finds_private_attributes_and_imports_but_not_the_tests_own():
    source = """
from evalcore.engine.kernels import _top_given_kth, top_indices
from tests.conftest import _helper
from . import _sibling
engine._code_cache.clear()
evaluator.engine._group_cache[plan]
build_parser()._actions
self._seen, cls._made, pytest._internal, monkeypatch._setattr, request._pyfuncitem
obj.__dict__, obj.public, _local.public
monkeypatch.setattr(threads, "_controller", None)
monkeypatch.setattr("evalcore.app.store._checked_id", str)
getattr(engine.kernels, "_first_ties")
monkeypatch.setattr(threads, "limit", None), monkeypatch.setattr("evalcore.x.y", 1), setattr(self, "_seen", 1)
getattr(obj, "__name__"), hasattr(obj, name), monkeypatch.delenv("_VARIABLE")
"""
    assert sorted(private_reaches(source)) == ["build_parser()._actions", "engine._code_cache",
                                               "engine.kernels._first_ties", "evalcore.app.store._checked_id",
                                               "evaluator.engine._group_cache",
                                               "from evalcore.engine.kernels import _top_given_kth",
                                               "threads._controller"]


def test_private_reaches_in_the_tests_only_go_down():
    found = reaches_in_tests()
    total = sum(found.values())
    listed = Counter({(path, reach): count for path, reach, count, _ in ALLOWED})
    allowed = "\n".join(f"{why}:\n" + "\n".join(f"  {path}: {reach} (x{count})"
                                                 for path, reach, count, reason in ALLOWED if reason == why)
                        for why in dict.fromkeys(why for _, _, _, why in ALLOWED))
    new = "\n".join(f"  {path}: {reach} (x{count})" for (path, reach), count in sorted((found - listed).items()))
    assert total <= CEILING and not found - listed, (
        f"{total} reaches into private names in tests/, at most {CEILING} allowed: observe the public behaviour "
        f"instead (or, where a test must read an internal, list it in {Path(__file__).name} with why).\n"
        f"Not among the allowed:\n{new}\nAllowed:\n{allowed}")
