"""The layers of docs/ARCHITECTURE.md hold: imports go down or sideways, never up, and never round in a circle.

The table below is the architecture page's picture as data. A new module must be given its layer here, which is
the moment to ask whether it sits where its imports say it does.
"""

from __future__ import annotations

import ast
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


def imports_of(path: Path, name: str) -> list[tuple[str, list[str], int]]:
    """(imported module, names taken, line) for every import in module ``name``'s file, relative ones resolved."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
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


@pytest.mark.slow
def test_no_function_over_the_longest():
    long = [f"{path.relative_to(ROOT)}:{node.lineno}: {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for path in MODULES.values() for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > LONGEST_FUNCTION]
    assert not long, "\n".join(long)


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_no_module_takes_another_modules_private_names():
    taken = []
    for module, path in MODULES.items():
        for target, names, line in imports_of(path, module):
            if target.startswith("evalcore") and target != module:
                taken += [f"{path.relative_to(ROOT)}:{line}: {target}.{name}" for name in names
                          if name.startswith("_") and not name.startswith("__")]
    assert not taken, "\n".join(taken)


@pytest.mark.slow
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
