"""CBIR Lens: evaluate content-based medical image retrieval without manual relevance labels.

The Python API is :func:`evalcore.evaluate`, which takes the inputs and the option objects re-exported here
(:class:`Relevance`, :class:`Scoring`, :class:`Statistics`, :class:`Compute`) and returns :class:`evalcore.Results`
(docs/API.md); :func:`evalcore.extract_concepts` turns captions into concept sets
(docs/CONCEPTS_FROM_CAPTIONS.md); :func:`evalcore.evaluate_runs` is the same path for an
:class:`~evalcore.evaluation.evaluator.Evaluator` built once, with the option objects of :mod:`evalcore.evaluation.options`.
All are imported on first use, so that ``import evalcore`` stays light for the command line and
the dashboard.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from evalcore.version import __version__

_LAZY = {"evaluate": "evalcore.api", "extract_concepts": "evalcore.api", "evaluate_runs": "evalcore.evaluation.results",
         "Results": "evalcore.evaluation.results",
         **dict.fromkeys(["Statistics", "Relevance", "Scoring", "Compute"], "evalcore.evaluation.options")}
__all__ = ["Compute", "Relevance", "Results", "Scoring", "Statistics", "__version__", "evaluate", "evaluate_runs",
           "extract_concepts"]

if TYPE_CHECKING:
    from evalcore.api import evaluate, extract_concepts
    from evalcore.evaluation.options import Compute, Relevance, Scoring, Statistics
    from evalcore.evaluation.results import Results, evaluate_runs


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'evalcore' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
