"""Embeddings: ``.npy`` (N x d, with an ID list file) or ``.csv``/``.parquet`` with an ``ID`` column."""

from __future__ import annotations

import io
import math

import numpy as np

from evalcore.data import Embeddings
from evalcore.decimals import DECIMAL_NUMBER, NON_FINITE
from evalcore.errors import InputError
from evalcore.readers.files import Source, read_bytes, read_text
from evalcore.readers.lines import check_id, csv_rows, split_lines

NPY_MAGIC = b"\x93NUMPY"


def read_embeddings(source: Source, name: str | None = None, ids_source: Source | None = None,
                    ids_name: str | None = None) -> Embeddings:
    """Read embeddings: ``.npy`` (N x d, with an ID list file) or ``.csv``/``.parquet`` with an ``ID`` column.

    Vectors are L2-normalised. Their values are real numbers, integers or floats (text columns of a
    parquet file are read as numbers, as in a CSV file); complex values (whose imaginary part would be
    lost), booleans, dates, time spans and other types are an error naming the type, and NaN or
    infinite values an error naming the row.
    """
    data, display = read_bytes(source, name)
    lowered = display.lower()
    if lowered.endswith(".npy"):
        if ids_source is None:
            raise InputError(display, None, "an ID list file (one ID per line) beside the .npy file", "none",
                             plain_expected="a list of image IDs beside this file (one per line, in the order of its "
                                            "vectors)")
        if not data.startswith(NPY_MAGIC):
            raise InputError(display, None, "a NumPy .npy array file (it starts with the bytes \\x93NUMPY)",
                             "text" if _looks_like_text(data) else "other binary data", plain_expected=PLAIN_ARRAY)
        matrix = _read_npy(data, display)
        ids_text, ids_display = read_text(ids_source, ids_name)
        numbered = [(number, check_id(line, ids_display, number)) for number, line in split_lines(ids_text, ids_display)]
        first_seen: dict[str, int] = {}
        for number, image_id in numbered:
            if image_id in first_seen:
                raise InputError(ids_display, number, f"each ID once ({image_id!r} already on line {first_seen[image_id]})",
                                 "a duplicate",
                                 plain_expected=f"each image ID once ({image_id!r} already on line {first_seen[image_id]})")
            first_seen[image_id] = number
        ids = [image_id for _, image_id in numbered]
        if not ids:
            raise InputError(ids_display, None, f"one ID per line for the rows of {display}", "no IDs",
                             plain_expected="one image ID per line, one for each vector")
        if matrix.ndim != 2 or matrix.shape[0] != len(ids):
            raise InputError(display, None, f"an N x d array with N = {len(ids)} IDs (the lines of {ids_display})",
                             f"shape {matrix.shape}",
                             plain_expected=f"one vector for each image ID of its list ({len(ids):,} IDs)")
        _check_vector_type(matrix.dtype, display)
        return _embeddings(ids, matrix, display, first_line=1)
    if lowered.endswith(".parquet"):
        import pandas as pd

        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as error:  # pyarrow raises many types for corrupt files
            raise InputError(display, None, "a readable parquet file", str(error)[:80],
                             plain_expected=PLAIN_ARRAY) from None
        return _embeddings_from_frame(frame, display, first_line=1)
    text, display = read_text(data, display)
    rows = list(csv_rows(text, display))
    if not rows or rows[0][1][0].lower() not in {"id", "image_id"}:
        raise InputError(display, 1, "a header starting with 'ID' followed by vector columns", "none",
                         plain_expected="a first line naming the columns: ID, then one column per vector value")
    ids, vectors = [], []
    width = len(rows[0][1]) - 1
    if width < 1:
        raise InputError(display, 1, "at least one vector column after ID", "none",
                         plain_expected="at least one column of vector values after ID")
    for line, fields in rows[1:]:
        if len(fields) != width + 1:
            raise InputError(display, line, f"{width + 1} fields", f"{len(fields)}",
                             plain_expected=f"{width + 1} fields, as the first line names them")
        ids.append(check_id(fields[0], display, line))
        text_value = next((v for v in fields[1:] if not _is_number(v)), None)
        if text_value is not None:
            raise InputError(display, line, "numeric vector values", repr(text_value)[:40], plain_expected=PLAIN_VALUES)
        vectors.append([float(v) for v in fields[1:]])
    return _embeddings(ids, np.asarray(vectors, dtype=np.float64).reshape(len(ids), width), display, first_line=2)


def _read_npy(data: bytes, display: str) -> np.ndarray:
    """The array of a .npy file, its header read first: a header that claims more (or fewer) bytes than the file
    holds is refused before anything is allocated for it."""
    what = "a numeric .npy array (N x d)"
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        # Version 3.0 differs from 2.0 only in the header's encoding (UTF-8 field names, which no N x d array has).
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read_header(stream)
    except Exception as error:  # a damaged header raises ValueError, SyntaxError, tokenize.TokenError, ...
        raise InputError(display, None, what, f"an unreadable header ({type(error).__name__}: {error})"[:120],
                         plain_expected=PLAIN_ARRAY) from None
    if dtype.hasobject:
        raise InputError(display, None, what, "Python objects (pickled data)", plain_expected=PLAIN_ARRAY)
    claimed = math.prod(shape) * dtype.itemsize
    held = len(data) - stream.tell()
    if claimed != held:
        raise InputError(display, None, f"{claimed:,} data bytes after the header, as its shape {shape} of "
                         f"{dtype} says", f"{held:,}", plain_expected=PLAIN_ARRAY)
    try:
        return np.load(io.BytesIO(data), allow_pickle=False)
    except (ValueError, OSError, EOFError) as error:
        raise InputError(display, None, what, str(error)[:80], plain_expected=PLAIN_ARRAY) from None


def _looks_like_text(data: bytes) -> bool:
    try:
        data[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\x00" not in data[:4096]


def _is_number(text: str) -> bool:
    """Whether ``text`` is a number in ASCII decimal syntax, or inf or nan (refused later, naming the row)."""
    return bool(DECIMAL_NUMBER.fullmatch(text) or NON_FINITE.fullmatch(text))


#: What the readers of embeddings expected of a file and of its values, for a reader who is not a researcher.
PLAIN_ARRAY = "a readable file of picture similarity vectors (from the research team)"
PLAIN_VALUES = "numbers as vector values (no text, NaN or infinity)"

# What a vector of another type holds, by NumPy's dtype kind (integers "iu" and floats "f" are read).
VECTOR_TYPE_NAMES = {"b": "booleans", "c": "complex values (the imaginary part would be lost)", "m": "time spans",
                     "M": "dates", "O": "Python objects", "S": "bytes", "U": "text", "V": "records"}


def _check_vector_type(dtype, display: str, where: str = "") -> None:
    """Vector values are real numbers: refuse any other NumPy or pandas dtype, naming it."""
    if dtype.kind not in "iuf":
        raise InputError(display, None, "real vector values (integers or floats)",
                         f"{VECTOR_TYPE_NAMES.get(dtype.kind, 'values')} of type {dtype}{where}",
                         plain_expected=PLAIN_VALUES)


def _embeddings_from_frame(frame, display: str, first_line: int) -> Embeddings:
    columns = [str(c) for c in frame.columns]
    id_column = next((c for c in frame.columns if str(c).lower() in {"id", "image_id"}), None)
    if id_column is None:
        raise InputError(display, None, "an 'ID' column", ", ".join(columns)[:80], plain_expected="a column named ID")
    vector_frame = frame.drop(columns=[id_column])
    for column, dtype in vector_frame.dtypes.items():
        if dtype.kind != "O":  # text columns are read as numbers below, as a CSV file's are
            _check_vector_type(dtype, display, f" in column {str(column)!r}")
    try:
        matrix = vector_frame.to_numpy(dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(display, None, "numeric vector columns", "non-numeric values",
                         plain_expected=PLAIN_VALUES) from None
    null_ids = np.flatnonzero(frame[id_column].isna().to_numpy())
    if len(null_ids):
        raise InputError(display, None, f"an ID on every row (row {int(null_ids[0]) + 1} of {len(frame):,})", "a null ID",
                         plain_expected=f"an image ID on every row (row {int(null_ids[0]) + 1} of {len(frame):,})")
    ids = [check_id(str(v), display, i + first_line) for i, v in enumerate(frame[id_column])]
    return _embeddings(ids, matrix, display, first_line)


EXTREME_MAGNITUDE = 1e150  # a row's largest value beyond it (or its inverse) is scaled before its norm is taken


def _embeddings(ids: list[str], matrix: np.ndarray, display: str, first_line: int) -> Embeddings:
    if not ids:  # a header alone (another file's, such as ID,Caption) would replace loaded embeddings with none
        raise InputError(display, first_line - 1 or None, "rows of an image ID and its vector after the header",
                         "none", plain_expected="rows of an image ID and its vector after the first line")
    matrix = np.asarray(matrix, dtype=np.float64)
    first_position: dict[str, int] = {}
    for position, image_id in enumerate(ids):
        if image_id in first_position:
            raise InputError(display, first_line + position,
                             f"each ID once ({image_id!r} already on line {first_line + first_position[image_id]})",
                             "a duplicate", plain_expected=f"each image ID once ({image_id!r} already on line "
                                                           f"{first_line + first_position[image_id]})")
        first_position[image_id] = position
    if matrix.shape[1] == 0:
        raise InputError(display, None, "at least one vector value per ID", "vectors of length 0",
                         plain_expected="at least one vector value per image")
    bad = np.flatnonzero(~np.isfinite(matrix).all(axis=1)) if matrix.size else []
    if len(bad):
        raise InputError(display, first_line + int(bad[0]), "finite vector values", "NaN or infinity",
                         plain_expected=PLAIN_VALUES)
    # Squares of values beyond about 1e154 overflow and those below about 1e-154 lose their digits, so that such a
    # row would come out as a zero vector or skewed: it is first divided by its largest magnitude.
    largest = np.abs(matrix).max(axis=1) if matrix.size else np.zeros(len(matrix))
    extreme = (largest > EXTREME_MAGNITUDE) | ((largest > 0) & (largest < 1 / EXTREME_MAGNITUDE))
    if extreme.any():
        matrix = matrix.copy()  # without a copy, a float64 array handed in would be scaled in place
        matrix[extreme] /= largest[extreme, None]
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return Embeddings(tuple(ids), matrix.astype(np.float32), display)
