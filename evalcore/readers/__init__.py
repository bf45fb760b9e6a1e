"""Readers for every input of docs/DESIGN.md §1, one module per format.

Each reader takes a path or the raw bytes of an upload (with a display name) and
either returns an immutable container (:mod:`evalcore.data`) or raises
:class:`~evalcore.errors.InputError` naming the file, the line and what was expected.
Nothing else escapes: malformed text, non-UTF-8 bytes, NaN scores and oversized inputs
are all reported that way.

Where the modules stand:

- :mod:`~evalcore.readers.files`: bytes in, within the byte budget, as UTF-8 text without NUL
  bytes, whole or as line-aligned pieces of bounded lines;
- :mod:`~evalcore.readers.lines`: what every definition checks in a row (CSV rows, IDs, CUIs,
  numbers, the delimiter of the first line);
- :mod:`~evalcore.readers.columnar`: how the text is split into rows for a definition, by pyarrow
  (a column of lines, parsed fields) or by Python (the csv module's records, lines split at line
  feeds), and :func:`~evalcore.readers.columnar.fast_or_by_lines`, the one rule that takes
  pyarrow's splitting where it applies and Python's elsewhere;
- one module per format: :mod:`~evalcore.readers.concepts`, :mod:`~evalcore.readers.runs`
  (with :mod:`~evalcore.readers.run_columns`), :mod:`~evalcore.readers.qrels`,
  :mod:`~evalcore.readers.edges` (knowledge graphs, with :mod:`~evalcore.readers.mrrel` and
  :mod:`~evalcore.readers.obo`), :mod:`~evalcore.readers.names`, :mod:`~evalcore.readers.labels`,
  :mod:`~evalcore.readers.captions`, :mod:`~evalcore.readers.synonyms`, :mod:`~evalcore.readers.pairs`,
  :mod:`~evalcore.readers.embeddings`, :mod:`~evalcore.readers.predictions`,
  :mod:`~evalcore.readers.concept_lists`, :mod:`~evalcore.readers.query_attributes` and
  :mod:`~evalcore.readers.judgment_columns` (clinicians' judgments, as columns).

Two definitions per format at most: the library's one, and an independent oracle in the tests
(``tests/line_by_line.py``, which imports nothing from this package: tests/readers/test_one_definition.py
checks that, and that every reader gives the oracle's answer with pyarrow's splitting turned off
as with it on). A format's definition is its per-row functions (what a row holds, the error that
names its line) and one function over the rows as arrays (the header, repeated IDs, at least one
row); pyarrow and Python only split the text for it. Where pyarrow splits, the rows of the usual
form are read as arrays and every other row goes to the per-row functions; the array checks
(a usual-line pattern, :func:`~evalcore.readers.columnar.valid_ids` for
:func:`~evalcore.readers.lines.check_id`, the distinct ranks and grades read by the same number
parsers) only choose which rows those functions read, and the tests hold them to the oracle.
"Lines by pyarrow" below are :func:`~evalcore.readers.columnar.line_column`'s: split by pyarrow where it
splits them as Python does, by Python elsewhere (a lone carriage return, text pyarrow refuses).

============================  ==========================================================  ==============================
format                        the library's definition (per row; whole file) and splits   the tests' oracle
============================  ==========================================================  ==============================
concept sets                  ``concepts``: ``_concept_line_fields``, ``_concept_id``,    ``read_concepts``
                              ``_cui_set``; ``_concepts_of_rows``. Lines by pyarrow
                              (CSV without quotes, every tab-separated file), CSV
                              records by Python (CSV with quotes)
runs, TREC                    ``runs``: ``_trec_entry``;                                  ``read_runs``
                              ``run_columns.runs_from_columns``. pyarrow only
                              (whitespace collapsed first where needed)
runs, CSV                     ``runs``: ``_csv_run_columns_of``, ``_csv_run_entry``;      ``read_runs``
                              ``run_columns.runs_from_columns``. Fields by pyarrow,
                              CSV records by Python (quotes, ragged or padded rows)
qrels                         ``qrels``: ``_judgment``; ``_checked_judgments``.           ``read_qrels``
                              Fields by pyarrow, or by ``str.split()`` on Python's
                              lines (a byte-order mark inside, text pyarrow refuses)
concept names, CSV            ``names``: ``_is_names_header``, ``_name_row``;             ``read_concept_names``
                              ``_names_of_rows``. Lines by pyarrow, CSV records by
                              Python (a quoted field over two lines)
KG edge lists                 ``edges``: ``_edge_header``, ``_edge_row``,                 ``read_kg_edge_list``
                              ``_relation``; ``_edges_of_rows``. Lines by pyarrow (no     (``read_kg_edges``)
                              quotes), CSV records by Python (quotes)
KG, UMLS MRREL.RRF            ``mrrel``: ``_is_a_edges`` (and a row's field count), a     ``read_mrrel_edges``
                              piece at a time. Fields by pyarrow (printable ASCII),
                              Python's lines elsewhere
image pairs                   ``pairs``: ``_check_pairs_header``, ``_pair_row``;          ``read_pairs``
                              ``_pairs_of_rows``. Lines by pyarrow (no quotes), CSV
                              records by Python (quotes)
predictions                   ``predictions``: ``_prediction_fields``,                    ``read_predictions``
                              ``_prediction_concepts``; ``_prediction_rows`` and
                              ``read_predictions``. Lines split at line feeds, by
                              pyarrow or Python (``columnar.line_column``)
judgments (``agreement``)     ``judgment_columns``: ``_judgment_row``;                    a plain csv-module reading in
                              ``_judgments_of_rows``. Lines by pyarrow (no quotes),       tests/readers/
                              CSV records by Python (quotes); qrels by ``read_qrels``     test_judgment_columns.py
KG, OBO; names, MRCONSO;      one line-by-line reading each (``obo.read_obo``,            none: their tests pin examples
labels; captions; synonyms;   ``names._read_mrconso``, ``labels``, ``captions``,          (tests/readers/test_readers.py,
embeddings; concept lists;   ``synonyms``, ``embeddings``, ``concept_lists``,            test_fuzz_readers.py,
query attributes              ``query_attributes``); no fast path                         test_hostile_readers.py,
                                                                                          test_query_attributes.py)
============================  ==========================================================  ==============================

No format keeps a second, line-by-line definition beside its fast path: the rows a fast path
cannot read as arrays (an error among them) go to the same per-row functions, which name the
line. A new format gets its own module here: a ``read_x(source, name)`` that reads its bytes
through :mod:`~evalcore.readers.files`, its per-row functions and its function over the rows,
and, where files get large, pyarrow's splitting beside Python's, joined by
:func:`~evalcore.readers.columnar.fast_or_by_lines`; its oracle goes to ``tests/line_by_line.py``.
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
from evalcore.readers.judgment_columns import read_judgment_columns
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
    "read_image_pairs", "read_judgment_columns", "read_kg", "read_labels", "read_pairs", "read_predictions", "read_qrels",
    "read_run", "read_runs", "read_synonyms", "read_text",
]
