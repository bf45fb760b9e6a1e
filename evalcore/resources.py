"""Where the shipped files live: the repository checkout, or their copy inside an installed wheel.

A checkout has ``app.py``, ``pages/``, ``data/`` and ``.streamlit/`` beside ``evalcore/``; the wheel
ships the same tree as ``evalcore/_dashboard`` (see pyproject.toml), so that one root serves both.
"""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
INSTALLED_ROOT = PACKAGE / "_dashboard"


def project_root() -> Path:
    """The folder holding ``app.py``, ``pages/``, ``data/demo`` and ``data/labels``.

    >>> (project_root() / "data" / "labels" / "rocov2_labels.csv").is_file()
    True
    """
    return INSTALLED_ROOT if (INSTALLED_ROOT / "app.py").is_file() else PACKAGE.parent


def demo_path(*parts: str) -> Path:
    """A file of the embedded synthetic demo, e.g. ``demo_path("runs", "near-random.trec")``.

    >>> demo_path("concepts.csv").name
    'concepts.csv'
    """
    return project_root().joinpath("data", "demo", *parts)
