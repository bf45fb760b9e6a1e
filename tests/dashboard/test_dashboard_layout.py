"""The dashboard's layout holds: pages/ holds only the pages app.py navigates (Streamlit's legacy convention lists
every file there as a page), the helpers live in dashboard/, evalcore never imports either, and the dashboard keeps
results through one mechanism (dashboard.caching)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def page_files() -> set[str]:
    """The keys of app.py's PAGE_FILES, read without running app.py."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    table = next(node.value for node in tree.body if isinstance(node, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "PAGE_FILES" for t in node.targets))
    return {key.value for key in table.keys}


def test_pages_holds_only_the_pages_app_navigates():
    assert {f"pages/{path.name}" for path in (ROOT / "pages").iterdir() if path.suffix == ".py"} == page_files()
    assert not (ROOT / "pages" / "__init__.py").exists()


def test_pages_import_no_page_and_evalcore_imports_neither_pages_nor_the_dashboard():
    for path in (ROOT / "pages").glob("*.py"):
        assert not {name for name in imports_of(path) if name.split(".")[0] == "pages"}, path
    for path in (ROOT / "evalcore").rglob("*.py"):
        assert not {name for name in imports_of(path) if name.split(".")[0] in ("pages", "dashboard", "app")}, path


def test_the_dashboard_keys_kept_results_only_through_its_caching_module():
    """No store, digest or key is made by hand beside dashboard/caching.py: every other kept result is a
    ``shared`` function (keyed by the content of all its arguments) or a Streamlit cache."""
    for path in [ROOT / "app.py", *(ROOT / "pages").glob("*.py"), *(ROOT / "dashboard").glob("*.py")]:
        if path.name == "caching.py":
            continue
        text = path.read_text(encoding="utf-8")
        for made_by_hand in ("content_digest", "Kept(", ".computed(", "evalcore.kept", "_digest("):
            assert made_by_hand not in text, (path.name, made_by_hand)
