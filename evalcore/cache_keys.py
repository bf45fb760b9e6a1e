"""Content digests for cache keys: one function, so that two users with different data never share a result.

A key is the SHA-256 of a canonical serialisation of everything a result depends on: the
bytes of each input file (or the parsed object itself), and every parameter. Serialising
tags each value with its type and length, so ``("ab", "c")`` and ``("a", "bc")``, ``1``
and ``1.0``, or a dict and the list of its items never collide.
"""

from __future__ import annotations

import dataclasses
import hashlib
import struct
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from evalcore.errors import ParameterError


def _feed(h: Any, value: Any) -> None:
    if value is None:
        h.update(b"N")
    elif isinstance(value, bool):
        h.update(b"T" if value else b"F")
    elif isinstance(value, int):
        text = str(value).encode()
        h.update(b"i" + struct.pack("<Q", len(text)) + text)
    elif isinstance(value, float):
        h.update(b"f" + struct.pack("<d", value))
    elif isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        h.update(b"s" + struct.pack("<Q", len(data)) + data)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        h.update(b"b" + struct.pack("<Q", len(data)) + data)
    elif isinstance(value, np.ndarray):
        array = np.ascontiguousarray(value)
        _feed(h, (str(array.dtype), array.shape))
        if array.dtype == object:
            _feed(h, array.tolist())
        else:
            _feed(h, array.tobytes())
    elif isinstance(value, np.generic):
        _feed(h, value.item())
    elif isinstance(value, pd.DataFrame):
        # Column names, each column's values, the index and ``attrs``: what a table shows and carries.
        _feed(h, ("DataFrame", list(value.columns), [value[column].to_numpy() for column in value.columns],
                  value.index.to_numpy(), dict(value.attrs)))
    elif isinstance(value, Mapping):
        items = sorted(((content_digest(k), v) for k, v in value.items()), key=lambda item: item[0])
        h.update(b"m" + struct.pack("<Q", len(items)))
        for key_digest, item in items:
            h.update(key_digest.encode())
            _feed(h, item)
    elif isinstance(value, (set, frozenset)):
        digests = sorted(content_digest(item) for item in value)
        h.update(b"S" + struct.pack("<Q", len(digests)) + "".join(digests).encode())
    elif isinstance(value, (tuple, list)):
        h.update(b"l" + struct.pack("<Q", len(value)))
        for item in value:
            _feed(h, item)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        _feed(h, type(value).__qualname__)
        _feed(h, {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.init})
    else:
        raise ParameterError(f"cannot build a cache key from a {type(value).__name__}")


def content_digest(value: Any) -> str:
    """SHA-256 (hex) of a canonical serialisation of ``value``.

    Bytes, text, numbers, None, tuples/lists (ordered), sets and mappings (unordered),
    numpy arrays, pandas DataFrames (by content) and dataclasses are accepted; anything else is
    refused rather than hashed by identity.

    >>> content_digest({"b": 1, "a": {2, 3}}) == content_digest({"a": {3, 2}, "b": 1})
    True
    >>> content_digest(("ab", "c")) == content_digest(("a", "bc")), content_digest(1) == content_digest(1.0)
    (False, False)
    >>> table = pd.DataFrame({"system": ["x", "y"], "value": [0.5, 1.0]})
    >>> content_digest(table) == content_digest(table.copy()), content_digest(table) == content_digest(
    ...     table.assign(value=[0.5, 0.9]))
    (True, False)
    """
    h = hashlib.sha256()
    _feed(h, value)
    return h.hexdigest()

