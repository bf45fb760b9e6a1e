"""Numbers written as text, in plain ASCII decimal syntax, as trec_eval's ``atol()``/``atof()`` read them.

One syntax for every number a user writes: in input files (ranks, scores, grades, vector values), in the command
line's numeric options and in a relevance measure's parameters. Python's ``int()`` and ``float()`` also read
underscores (``1_000``), other scripts' digits (``٣``) and inner line breaks, which another tool would read as
something else or not at all.
"""

from __future__ import annotations

import math
import re

# Numbers as trec_eval's atol()/atof() read them: ASCII digits only. Python's int() and float() also take
# underscores ("1_000") and other scripts' digits ("٣"), which trec_eval would read as something else.
DECIMAL_INTEGER = re.compile(r"[+-]?[0-9]+")
NON_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
# Scores of this form convert in pyarrow exactly as float() converts them; others go through float().
PLAIN_FLOAT = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"
# A number's syntax in input files (scores, vector values): trec_eval's atof() reads exactly these (and inf, nan).
DECIMAL_NUMBER = re.compile(PLAIN_FLOAT)


def bounded_integer(text: str, limit: int) -> int | None:
    """The value of a decimal integer ``text`` (``DECIMAL_INTEGER``) if its magnitude is at most ``limit``, else None.

    Its length is checked first, and its leading zeros are not read: ``int()`` refuses texts of more than 4,300
    digits, zeros included (and is slow near them), where trec_eval's ``atol()`` reads ``000...01`` as 1.

    >>> bounded_integer("-0007", 10), bounded_integer("1" + "0" * 5000, 10), bounded_integer("0" * 5000 + "1", 10)
    (-7, None, 1)
    """
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > len(str(limit)):
        return None
    value = int(digits or "0")
    value = -value if text.startswith("-") else value
    return value if abs(value) <= limit else None


def decimal_integer(text: str, limit: int) -> int | None:
    """The value of ``text``, leading and trailing whitespace aside, if it is a decimal integer in ASCII digits
    (``DECIMAL_INTEGER``: no underscore, inner space or other script's digit) of magnitude at most ``limit``, else None.

    >>> decimal_integer(" +10 ", 100), decimal_integer("1_0", 100), decimal_integer("١٠", 100), decimal_integer("101", 100)
    (10, None, None, None)
    """
    text = text.strip()
    return bounded_integer(text, limit) if DECIMAL_INTEGER.fullmatch(text) else None


def finite_decimal(text: str) -> float | None:
    """The value of ``text``, leading and trailing whitespace aside, if it is a finite number in ASCII decimal syntax
    (``DECIMAL_NUMBER``: no underscore, inner space, other script's digit, inf or nan), else None.

    >>> finite_decimal("0.5"), finite_decimal("-.5e1"), finite_decimal("٠.٥"), finite_decimal("nan"), finite_decimal("1e999")
    (0.5, -5.0, None, None, None)
    """
    text = text.strip()
    value = float(text) if DECIMAL_NUMBER.fullmatch(text) else math.inf
    return value if math.isfinite(value) else None
