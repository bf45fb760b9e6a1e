"""docs/ARCHITECTURE.md stays true: every file and every `module.name` it cites exists, its layer table is the
one tests/project/test_architecture.py checks, and the rules it states that a test can check are checked here or there.
"""

from __future__ import annotations

import ast
import importlib
import re

import pytest

from tests.project.test_architecture import LAYERS, MODULES, PACKAGE, ROOT, imports_of

DOCUMENT = ROOT / "docs" / "ARCHITECTURE.md"
TEXT = DOCUMENT.read_text(encoding="utf-8")
#: Code spans of the document: `...`.
SPANS = re.findall(r"`([^`\n]+)`", TEXT)
#: Dashboard code that, like evalcore, must reach the one digest function rather than hash on its own.
DASHBOARD = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py")), *sorted((ROOT / "dashboard").glob("*.py"))]


def cited_paths() -> list[str]:
    """Spans that name a file or folder of the checkout: `evalcore/kept.py`, `pages/`, `tests/test_x.py`."""
    return sorted({span for span in SPANS if re.fullmatch(r"[\w.]+(/[\w.]*)+|[\w]+\.(py|md|toml)", span)
                   and not span.startswith(("..", "/"))})


def cited_names() -> list[str]:
    """Spans that name a module and an attribute of it: `kept.Kept`, `evaluation.options.Relevance`, `Kept.get`."""
    found = set()
    for span in SPANS:
        match = re.fullmatch(r"(?:evalcore\.)?([a-z_]+(?:\.[a-z_]+)*)\.([A-Za-z_]\w*)(?:\(.*\))?", span)
        if match and not span.endswith((".py", ".md", ".toml")) and "/" not in span:
            found.add(f"{match.group(1)}.{match.group(2)}")
    return sorted(found)


def resolve(dotted: str) -> object:
    """The object `dotted` names inside evalcore, the dashboard package or pages, by the longest importable module."""
    parts = dotted.split(".")
    if parts[0] == "st":
        parts[0] = "streamlit"
    for cut in range(len(parts), 0, -1):
        for prefix in ("evalcore.", "", "dashboard."):
            try:
                found: object = importlib.import_module(prefix + ".".join(parts[:cut]))
            except ImportError:
                continue
            for attribute in parts[cut:]:
                found = getattr(found, attribute)
            return found
    raise LookupError(dotted)


def test_the_document_cites_files_and_names():
    """The checks below are not vacuous: the document cites both kinds."""
    assert len(cited_paths()) >= 10 and len(cited_names()) >= 10, (cited_paths(), cited_names())


@pytest.mark.parametrize("path", cited_paths())
def test_every_cited_file_exists(path):
    assert (ROOT / path).exists(), f"docs/ARCHITECTURE.md cites `{path}`, which does not exist"


@pytest.mark.parametrize("name", cited_names())
def test_every_cited_name_exists(name):
    try:
        resolve(name)
    except (LookupError, AttributeError) as error:
        pytest.fail(f"docs/ARCHITECTURE.md cites `{name}`, which does not exist ({error})")


def test_the_layer_table_is_the_tested_one():
    """Every module or subpackage the layer test knows appears in the document's table, on its layer's row."""
    table = TEXT[TEXT.index("## The layers"):]
    table = table[table.index("```") + 3:]
    table = table[:table.index("```")]
    rows = {}
    for line in table.splitlines():
        words = line.split()
        if words and words[0].isalpha() and not set(line.strip()) <= {"─"}:
            rows[words[0]] = {word.strip("/") for word in words[1:]}
    layer_rows = list(rows)
    for name, layer in LAYERS.items():
        row = layer_rows[len(layer_rows) - 1 - layer]
        assert name in rows[row], f"`{name}` (layer {layer}) is not on the `{row}` row of docs/ARCHITECTURE.md"


@pytest.mark.slow
def test_one_digest_function():
    """`cache_keys.content_digest` is the one digest: nothing else in evalcore or the dashboard imports hashlib."""
    hashing = [f"{path.relative_to(ROOT)}:{line}" for path in [*MODULES.values(), *DASHBOARD]
               if path != PACKAGE / "cache_keys.py"
               for target, _, line in imports_of(path, f"x.{path.stem}") if target.split(".")[0] == "hashlib"]
    assert not hashing, "\n".join(hashing)


def test_the_dashboard_caches_hash_what_they_read():
    """Streamlit caches in the dashboard take our classes through hash_funcs, never a key written by hand: no
    cached function has a parameter named like a key, and none ignores an argument (Streamlit's leading underscore)."""
    offenders = []
    for path in DASHBOARD:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            cached = any("cache_data" in ast.unparse(d) or "cache_resource" in ast.unparse(d) for d in node.decorator_list)
            if cached:
                offenders += [f"{path.relative_to(ROOT)}:{node.lineno}: {node.name}({a.arg})" for a in node.args.args
                              if a.arg.startswith("_") or a.arg in ("key", "cache_key", "digest")]
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("page", sorted((ROOT / "pages").glob("*.py")), ids=lambda path: path.name)
def test_every_page_calls_through_app_first(page):
    """"it calls `dashboard.session.through_app` first": after its docstring and imports, a page's first statement is
    ``through_app()``, taken from dashboard.session (a direct link then still runs app.py's navigation and sidebar)."""
    body = ast.parse(page.read_text(encoding="utf-8")).body
    imported = {alias.asname or alias.name for node in body if isinstance(node, ast.ImportFrom)
                and node.module == "dashboard.session" for alias in node.names}
    first = next(node for node in body if not isinstance(node, (ast.Import, ast.ImportFrom))
                 and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)))
    assert "through_app" in imported and ast.unparse(first) == "through_app()", ast.unparse(first)


def test_the_module_main_only_calls_cli_run():
    """"`evalcore/__main__.py` only calls `cli.run`": it imports ``run`` from evalcore.cli and makes no other call."""
    body = ast.parse((PACKAGE / "__main__.py").read_text(encoding="utf-8"))
    calls = [ast.unparse(node) for node in ast.walk(body) if isinstance(node, ast.Call)]
    imports = [(node.module, [alias.name for alias in node.names]) for node in ast.walk(body)
               if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert calls == ["run()"] and imports == [("evalcore.cli", ["run"])], (calls, imports)


def test_evaluate_takes_the_parameters_the_document_states():
    """"(eight parameters: `concepts`, ...) and `**old_keywords`": the count, the names and their order as
    ``evalcore.evaluate`` declares them."""
    import inspect

    import evalcore

    counts = {"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
    stated = re.search(r"`evalcore\.evaluate` takes .*?\((\w+) parameters: ([^)]*)\) and `\*\*(\w+)`", TEXT, re.S)
    assert stated, "docs/ARCHITECTURE.md no longer states evaluate's parameters"
    names = re.findall(r"`\**(\w+)`", stated.group(2))
    parameters = inspect.signature(evalcore.evaluate).parameters.values()
    declared = [p.name for p in parameters if p.kind is not inspect.Parameter.VAR_KEYWORD]
    keywords = [p.name for p in parameters if p.kind is inspect.Parameter.VAR_KEYWORD]
    assert counts[stated.group(1)] == len(names) and names == declared and keywords == [stated.group(3)]
