"""Results kept for the next call that asks for the same thing, within a byte budget.

A dashboard asks again for much of what it computed one slider move before (the same runs' metrics, the same
random draws); what depends only on the key is kept here and read back instead of being computed again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence

import numpy as np

KeptValue = np.ndarray | Sequence[np.ndarray]


def nbytes_of(value: KeptValue) -> int:
    """Bytes held by an array or a sequence of arrays.

    >>> nbytes_of(np.zeros(4)), nbytes_of([np.zeros(2), np.zeros(3, dtype=np.int8)])
    (32, 19)
    """
    return value.nbytes if isinstance(value, np.ndarray) else sum(part.nbytes for part in value)


class KeptArrays:
    """Arrays (or sequences of arrays) by key, least recently used dropped first once they hold more than the
    budget given to :meth:`put`; the newest is always kept. Safe to share between threads (dashboard sessions).

    >>> kept = KeptArrays()
    >>> kept.put("a", np.zeros(4), budget=64); kept.put("b", np.zeros(4), budget=64)
    >>> kept.get("a") is not None  # "a" is now the most recently used
    True
    >>> kept.put("c", np.zeros(4), budget=64); kept.get("b") is None, kept.total()
    (True, 64)
    """

    def __init__(self) -> None:
        self._values: OrderedDict[Hashable, KeptValue] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> KeptValue | None:
        with self._lock:
            value = self._values.get(key)
            if value is not None:
                self._values.move_to_end(key)
            return value

    def put(self, key: Hashable, value: KeptValue, budget: int) -> None:
        with self._lock:
            self._values[key] = value
            self._values.move_to_end(key)
            while len(self._values) > 1 and sum(nbytes_of(v) for v in self._values.values()) > budget:
                self._values.popitem(last=False)

    def total(self) -> int:
        """Bytes held now."""
        with self._lock:
            return sum(nbytes_of(v) for v in self._values.values())

    def keys(self) -> list[Hashable]:
        with self._lock:
            return list(self._values)
