"""Readers for every input of docs/DESIGN.md §1, one module per format.

Each reader takes a path or the raw bytes of an upload (with a display name) and
either returns an immutable container (:mod:`evalcore.data`) or raises
:class:`~evalcore.errors.InputError` naming the file, the line and what was expected.
Nothing else escapes: malformed text, non-UTF-8 bytes, NaN scores and oversized inputs
are all reported that way.

Where the modules stand:

- :mod:`~evalcore.readers.files`: bytes in, within the byte budget, as UTF-8 text without NUL
  bytes, whole or as line-aligned pieces of bounded lines;
- :mod:`~evalcore.readers.lines`: what a line-by-line definition checks (CSV rows, IDs, CUIs,
  numbers, the delimiter of the first line);
- :mod:`~evalcore.readers.columnar`: the fast path's tools (pyarrow parsing, line numbers of
  rows) and :func:`~evalcore.readers.columnar.fast_or_by_lines`, the one rule that takes a
  format's fast path where it applies and its line-by-line definition elsewhere;
- one module per format: :mod:`~evalcore.readers.concepts`, :mod:`~evalcore.readers.runs`
  (with :mod:`~evalcore.readers.run_columns`), :mod:`~evalcore.readers.qrels`,
  :mod:`~evalcore.readers.edges` (knowledge graphs, with :mod:`~evalcore.readers.mrrel` and
  :mod:`~evalcore.readers.obo`), :mod:`~evalcore.readers.names`, :mod:`~evalcore.readers.labels`,
  :mod:`~evalcore.readers.captions`, :mod:`~evalcore.readers.synonyms`, :mod:`~evalcore.readers.pairs`,
  :mod:`~evalcore.readers.embeddings` and :mod:`~evalcore.readers.predictions`.

A new format gets its own module here: a ``read_x(source, name)`` that reads its bytes through
:mod:`~evalcore.readers.files`, a ``_x_by_lines(text, display, ...)`` definition, and, where
files get large, a ``_x_by_columns(data, display, ...)`` fast path joined to it by
:func:`~evalcore.readers.columnar.fast_or_by_lines`.
"""

from evalcore.data import KGEdges, KGEdgeTable, Predictions, Qrels
from evalcore.readers.captions import read_captions
from evalcore.readers.concepts import MAX_CONCEPTS_PER_IMAGE, read_concepts
from evalcore.readers.edges import read_kg
from evalcore.readers.embeddings import read_embeddings
from evalcore.readers.files import (
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_MRREL_BYTES,
    DEFAULT_MAX_RUN_BYTES,
    INPUT_BUDGET_VARIABLE,
    Source,
    max_input_bytes,
    read_checked_bytes,
    read_input_bytes,
    read_text,
)
from evalcore.readers.labels import read_labels
from evalcore.readers.lines import CUI_PATTERN, NODE_PATTERN
from evalcore.readers.names import read_concept_names
from evalcore.readers.pairs import ImagePairs, read_image_pairs, read_pairs
from evalcore.readers.predictions import MAX_CONCEPTS_PER_PREDICTION, read_predictions
from evalcore.readers.qrels import read_qrels
from evalcore.readers.run_columns import MAX_RANK
from evalcore.readers.runs import read_run, read_runs
from evalcore.readers.synonyms import read_synonyms

__all__ = [
    "CUI_PATTERN", "DEFAULT_MAX_FILE_BYTES", "DEFAULT_MAX_MRREL_BYTES", "DEFAULT_MAX_RUN_BYTES",
    "INPUT_BUDGET_VARIABLE", "MAX_CONCEPTS_PER_IMAGE", "MAX_CONCEPTS_PER_PREDICTION", "MAX_RANK", "NODE_PATTERN",
    "ImagePairs", "KGEdgeTable", "KGEdges", "Predictions", "Qrels", "Source", "max_input_bytes",
    "read_captions", "read_checked_bytes", "read_concept_names", "read_concepts", "read_embeddings", "read_input_bytes",
    "read_image_pairs", "read_kg", "read_labels", "read_pairs", "read_predictions", "read_qrels", "read_run",
    "read_runs", "read_synonyms", "read_text",
]
