"""evalcore/decimals.py: a number a user writes is read in plain ASCII decimal syntax, as trec_eval's atol()/atof()
read it; what Python's int() and float() also take (underscores, other scripts' digits, inf and nan) is refused."""

from __future__ import annotations

import pytest

from evalcore.decimals import DECIMAL_INTEGER, DECIMAL_NUMBER, NON_FINITE, bounded_integer, decimal_integer, finite_decimal


@pytest.mark.parametrize(("text", "limit", "expected"), [
    ("7", 10, 7), (" +10\t", 10, 10), ("-0007", 10, -7), ("10", 9, None), ("-10", 9, None), ("-9", 9, -9),
    ("000000000000000000005", 10, 5),  # leading zeros do not count towards the length checked first
    ("1_0", 100, None), ("١٠", 100, None), ("1 0", 100, None), ("1.0", 100, None), ("0x10", 100, None),
    ("", 100, None), ("+", 100, None), ("--1", 100, None),
])
def test_decimal_integer_reads_ascii_digits_within_the_limit(text, limit, expected):
    assert decimal_integer(text, limit) == expected
    assert (int(text) if expected is not None else None) == expected  # Python agrees where a value is read


def test_a_bounded_integer_of_thousands_of_digits_is_refused_by_its_length():
    # int() itself refuses texts of over 4,300 digits with a ValueError; the length check answers first.
    assert bounded_integer("1" + "0" * 5000, 10**6) is None
    assert bounded_integer("-" + "0" * 5000 + "42", 100) == -42  # was a ValueError from int(): 5,002 digits
    assert bounded_integer("100", 99) is None and bounded_integer("99", 99) == 99


@pytest.mark.parametrize(("text", "expected"), [
    ("0.5", 0.5), ("-.5e1", -5.0), ("5.", 5.0), ("+1e-3", 0.001), (" 2.5\n", 2.5), ("1E2", 100.0), ("007", 7.0),
    ("1e308", 1e308),
    ("1e309", None),  # overflows to inf
    ("nan", None), ("-Infinity", None), ("inf", None), ("1_000.0", None), ("١.٥", None), ("0x1p3", None),
    ("1e", None), (".", None), ("", None), ("1.5.2", None), ("1 .5", None),
])
def test_finite_decimal_reads_plain_decimals_and_refuses_the_rest(text, expected):
    assert finite_decimal(text) == expected


def test_the_patterns_name_what_python_reads_beyond_them():
    # float() and int() read all of these; the patterns (the one syntax of every number a user writes) do not.
    for text in ("1_000", "١٠", "inf", "nan"):
        float(text)
        assert not DECIMAL_NUMBER.fullmatch(text) and not DECIMAL_INTEGER.fullmatch(text)
    assert [bool(NON_FINITE.fullmatch(text)) for text in ("inf", "-Infinity", "NaN", "+nan", "infinite")] == \
        [True, True, True, True, False]
