"""The layers of docs/ARCHITECTURE.md hold: imports go down or sideways, never up, and never round in a circle.

The table below is the architecture page's picture as data. A new module must be given its layer here, which is
the moment to ask whether it sits where its imports say it does.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "evalcore"

FOUNDATION, DEFINITIONS, READERS, ENGINE, EVALUATION, STUDIES, APP, DOORS = range(8)
#: The layer of each module at evalcore's top level and of each subpackage (all its modules share it).
LAYERS: dict[str, int] = {
    **dict.fromkeys(["errors", "version", "resources", "kept", "cache_keys", "data", "threads", "processes", "decimals"],
                    FOUNDATION),
    **dict.fromkeys(["relevance", "metrics", "stats", "extraction"], DEFINITIONS),
    **dict.fromkeys(["readers", "io"], READERS),
    "engine": ENGINE,
    "evaluation": EVALUATION,
    "studies": STUDIES,
    "app": APP,
    **dict.fromkeys(["__init__", "api", "__main__", "cli"], DOORS),
}
#: The engine's floors: each imports only the floors below it.
ENGINE_FLOORS = {"kernels": 0, "codes": 0, "work": 1, "executors": 2, "jax_backend": 2, "array_backend": 3,
                 "compute": 4, "pairwise": 5, "__init__": 6}
#: At most this many modules at evalcore's top level; the rest live in subpackages by responsibility.
TOP_LEVEL_MODULES = 15


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def nodes_of(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's syntax tree, parsed once per test process: the checks below all walk the same
    modules, and parsing them is what made each check take most of a second."""
    return tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))))


def imports_of(path: Path, name: str) -> list[tuple[str, list[str], int]]:
    """(imported module, names taken, line) for every import in module ``name``'s file, relative ones resolved."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in nodes_of(path):
        if isinstance(node, ast.Import):
            found += [(alias.name, [], node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            target = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module or ""
            found.append((target, [alias.name for alias in node.names], node.lineno))
    return found


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer_of(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    return LAYERS[top]


def internal_target(module: str, names: list[str]) -> list[str]:
    """The evalcore modules an import reaches: ``from evalcore.engine import work`` reaches evalcore.engine.work."""
    if not module.startswith("evalcore"):
        return []
    reached = [f"{module}.{name}" for name in names if f"{module}.{name}" in MODULES]
    return reached or ([module] if module in MODULES else [])


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_has_a_layer(module):
    top = module.split(".")[1] if "." in module else "__init__"
    assert top in LAYERS, f"{module}: give it a layer in tests/project/test_architecture.py and docs/ARCHITECTURE.md"


def test_evalcore_top_level_stays_small():
    top = sorted(path.stem for path in PACKAGE.glob("*.py"))
    assert len(top) <= TOP_LEVEL_MODULES, f"{len(top)} modules at evalcore's top level: {top}"


#: No function in evalcore is longer than this many lines (docstring included): a longer one is several steps.
LONGEST_FUNCTION = 100


def test_no_function_over_the_longest():
    long = [f"{path.relative_to(ROOT)}:{node.lineno}: {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in MODULES.values() for node in nodes_of(path)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > LONGEST_FUNCTION]
    assert not long, "\n".join(long)


def test_imports_never_go_up_a_layer():
    upward = []
    for module, path in MODULES.items():
        for target, names, line in imports_of(path, module):
            for reached in internal_target(target, names):
                if layer_of(reached) > layer_of(module):
                    upward.append(f"{path.relative_to(ROOT)}:{line}: {module} imports {reached}")
    assert not upward, "\n".join(upward)


def test_the_engine_floors_only_look_down():
    upward = []
    for module, path in MODULES.items():
        if not module.startswith("evalcore.engine"):
            continue
        floor = ENGINE_FLOORS[module.split(".")[2] if module.count(".") > 1 else "__init__"]
        for target, names, line in imports_of(path, module):
            for reached in internal_target(target, names):
                if reached.startswith("evalcore.engine.") and ENGINE_FLOORS[reached.split(".")[2]] >= floor \
                        and reached != module:
                    upward.append(f"{path.relative_to(ROOT)}:{line}: {module} imports {reached}")
    assert not upward, "\n".join(upward)


def test_no_import_circle():
    edges = {module: {reached for target, names, _ in imports_of(path, module) for reached in internal_target(target, names)
                      if reached != module and not module.startswith(reached + ".")}
             for module, path in MODULES.items()}
    state: dict[str, int] = {}
    circles = []

    def visit(module: str, stack: list[str]) -> None:
        state[module] = 1
        for nxt in sorted(edges[module]):
            if state.get(nxt) == 1:
                circles.append(" -> ".join(stack[stack.index(nxt):] + [nxt]))
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[module] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module, [module])
    assert not circles, "\n".join(circles)


def test_no_module_takes_another_modules_private_names():
    taken = []
    for module, path in MODULES.items():
        for target, names, line in imports_of(path, module):
            if target.startswith("evalcore") and target != module:
                taken += [f"{path.relative_to(ROOT)}:{line}: {target}.{name}" for name in names
                          if name.startswith("_") and not name.startswith("__")]
    assert not taken, "\n".join(taken)


def test_evalcore_never_imports_streamlit_or_the_pages():
    """The library is pure; the one exception is the CLI's ``app`` command, which starts Streamlit's own CLI."""
    found = [f"{path.relative_to(ROOT)}:{line}: {target}" for module, path in MODULES.items()
             for target, _, line in imports_of(path, module)
             if target.split(".")[0] in ("streamlit", "pages", "app", "dashboard")
             and (module, target) != ("evalcore.cli.commands", "streamlit.web")]
    assert not found, "\n".join(found)


def test_the_checks_see_an_upward_import(tmp_path):
    """The checks read real imports: a definitions module importing the engine is an upward import."""
    path = tmp_path / "registry.py"
    path.write_text("from ..engine import PairwiseEngine\nfrom ..errors import _hidden\n", encoding="utf-8")
    found = imports_of(path, "evalcore.metrics.registry")
    assert found == [("evalcore.engine", ["PairwiseEngine"], 1), ("evalcore.errors", ["_hidden"], 2)]
    assert layer_of("evalcore.engine") > layer_of("evalcore.metrics.registry")


# --- the dashboard's one door ------------------------------------------------------------------------------------

#: What Streamlit runs: app.py and the pages. They reach evalcore only through dashboard/.
PAGES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
#: The pages' one door to evalcore's names (constants, types, errors, pure functions), re-exported unchanged.
LIBRARY = ROOT / "dashboard" / "library.py"


def evalcore_imports(path: Path) -> list[str]:
    """Every import of evalcore in ``path``, at any depth (inside a function too), as ``file:line: module``."""
    name = "app" if path.name == "app.py" else f"pages.{path.stem}"
    return [f"{path.relative_to(ROOT)}:{line}: {target}" for target, _, line in imports_of(path, name)
            if target.split(".")[0] == "evalcore"]


@pytest.mark.parametrize("path", PAGES, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_pages_reach_evalcore_only_through_the_dashboard(path):
    """A page imports dashboard/ only: a computation through dashboard/computed.py, a name through
    dashboard/library.py."""
    found = evalcore_imports(path)
    assert not found, "import these through dashboard/ (computed.py, library.py, ...):\n" + "\n".join(found)


def library_exports() -> tuple[list[str], list[str]]:
    """The names dashboard/library.py imports from evalcore, and its ``__all__``."""
    tree = ast.parse(LIBRARY.read_text(encoding="utf-8"))
    imported = [alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                and (node.module or "").split(".")[0] == "evalcore" for alias in node.names]
    listed = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                  and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets))
    return imported, listed


def test_the_library_only_re_exports():
    """dashboard/library.py holds a docstring, imports from evalcore and its ``__all__``: no function, class or other
    statement (behaviour belongs in computed.py, ui.py, cards.py or session.py), and ``__all__`` lists exactly what it
    imports, once each."""
    tree = ast.parse(LIBRARY.read_text(encoding="utf-8"))
    defined = [f"line {node.lineno}: {type(node).__name__}" for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))]
    assert not defined, "\n".join(defined)
    for index, node in enumerate(tree.body):
        docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        imported = isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("evalcore", "__future__")
        listing = isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["__all__"]
        assert docstring or imported or listing, f"dashboard/library.py:{node.lineno}: {ast.unparse(node)[:80]}"
    imported, listed = library_exports()
    assert len(listed) == len(set(listed)) and sorted(listed) == sorted(imported)


def test_every_name_of_the_library_is_used():
    """A name no page, app.py or dashboard module takes from dashboard/library.py any more leaves it."""
    used = set()
    for path in [*PAGES, *sorted((ROOT / "dashboard").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "dashboard.library":
                used |= {alias.name for alias in node.names}
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "library":
                used.add(node.attr)
    assert not set(library_exports()[1]) - used, sorted(set(library_exports()[1]) - used)


def test_the_door_check_sees_an_import_inside_a_function(tmp_path):
    """The check reads every import, not only the top-level ones: one inside a function is found."""
    page = tmp_path / "pages" / "late.py"
    page.parent.mkdir()
    page.write_text("import streamlit as st\n\n\ndef draw():\n    from evalcore.errors import CBIRLensError\n"
                    "    import evalcore.io.tables\n", encoding="utf-8")
    found = [(target, line) for target, _, line in imports_of(page, "pages.late") if target.startswith("evalcore")]
    assert found == [("evalcore.errors", 5), ("evalcore.io.tables", 6)]
