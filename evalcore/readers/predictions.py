"""Concept-detection predictions ``ID,C...;C...``, checked as the ImageCLEFmedical Caption validator checks them.

A repeated image ID, an empty or header-only file, lines split by another delimiter and a file none of whose lines
names an image of the ground truth are refused; every other problem is reported with its line in
:attr:`~evalcore.data.Predictions.problems` (the first :data:`MAX_PROBLEMS`, the rest counted) and the rest is
scored (:mod:`evalcore.metrics.detection`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from itertools import chain
from operator import itemgetter

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalcore.data import Predictions
from evalcore.errors import InputError, quoted_id
from evalcore.readers.columnar import (
    first_repeated,
    frozensets,
    line_column,
    present,
    repeated_in_lists,
    take,
    usual_only,
)
from evalcore.readers.files import Source, read_checked_bytes
from evalcore.readers.lines import CUI_PATTERN, check_delimiter, first_line_of

MAX_CONCEPTS_PER_PREDICTION = 100


def read_predictions(source: Source, name: str | None = None, known_ids: Mapping[str, int] | None = None) -> Predictions:
    """Parse predictions, naming every problem with its line as the official validator does.

    As in the ImageCLEFmedical validator, a repeated image ID and an empty file are refused
    (:class:`InputError`), and so are lines split by another delimiter and, given ``known_ids``, a file that names
    none of them (another collection's file would score 0); unknown IDs, duplicate concepts, empty or malformed CUI
    tokens and over-long lists are reported in ``problems`` (the first :data:`MAX_PROBLEMS` by line, the others
    counted in ``problems_not_listed``) and the rest is scored. Lines of the
    usual form (``ID,C...;C...``) are split and checked as arrays; any other line goes
    through :func:`_prediction_fields` and :func:`_prediction_concepts`, the definition's per-line functions.

    >>> read_predictions(b"a,C0000001\\na,C0000002\\n", "run.csv")
    Traceback (most recent call last):
    ...
    evalcore.errors.InputError: run.csv, line 2: expected each image ID once ('a' already on line 1), found a repeated ID
    """
    data, display = read_checked_bytes(source, name)
    first_line, first = first_line_of(data)
    check_delimiter(first, first_line, display, (",", "\t", "|"), "prediction lines 'ID,CUI;CUI'")
    ids, scored, lines, unknown = _prediction_rows(data, known_ids)
    kept = np.flatnonzero(present(ids) & ~unknown)
    if not len(kept):
        if unknown.any():  # another collection's file, or IDs written otherwise: F1 0 would hide it
            row = int(np.flatnonzero(unknown)[0])
            raise InputError(display, int(lines[row]), "prediction lines whose image IDs are in the ground truth",
                             f"none in its {int(unknown.sum()):,} lines (the first: {quoted_id(ids[row])})",
                             plain_expected="predicted concepts of images that have known concepts")
        raise InputError(display, None, "at least one prediction line 'ID,CUI;CUI'",
                         "a header-only file" if first_line else "an empty file",
                         plain_expected="at least one line of an image ID and its predicted concept codes")
    kept_ids = take(ids, kept)
    repeat = first_repeated(kept_ids)
    if repeat is not None:
        later, earlier = (kept[position] for position in repeat)
        raise InputError(display, int(lines[later]), f"each image ID once ({ids[later]!r} already on line "
                         f"{int(lines[earlier])})", "a repeated ID",
                         plain_expected=f"each image ID once ({ids[later]!r} already on line {int(lines[earlier])})")
    problems = [(int(lines[row]), f"unknown image ID {quoted_id(ids[row])}")
                for row in np.flatnonzero(unknown)[:MAX_PROBLEMS]]
    scored_kept = take(scored, kept)
    problems += chain.from_iterable(map(itemgetter(1), scored_kept))
    problems.sort(key=lambda problem: problem[0])  # stable: a line's problems keep their order
    sets = dict(zip(kept_ids, map(itemgetter(0), scored_kept)))
    # the first problems by line: every unknown ID left out above lies after the last one kept
    not_listed = max(0, len(problems) - MAX_PROBLEMS) + max(0, int(unknown.sum()) - MAX_PROBLEMS)
    return Predictions(sets, problems[:MAX_PROBLEMS], display, not_listed)


#: The problems a predictions file keeps with their lines; the rest are counted (a file of another collection's
#: million IDs must not hold a million messages).
MAX_PROBLEMS = 1000


#: A line's set and its problems (a list where the fast path may add a repeated concept, empty and shared where no
#: set is made).
Scored = tuple[frozenset[str], Sequence[tuple[int, str]]]
#: Per non-empty line: its image ID (None: blank or a header), its set with its problems, its number, and whether its ID is
#: one the ground truth lacks.
PredictionRows = tuple[list[str | None], list[Scored], np.ndarray, np.ndarray]


def _prediction_fields(number: int, raw: str) -> tuple[str, list[str], int] | None:
    """The image ID, the first :data:`MAX_CONCEPTS_PER_PREDICTION` CUI tokens and the count of all of them of one line,
    split as the official validator splits them (None: blank or header); a line of millions of tokens is not split
    into millions of strings."""
    line = raw.strip()
    if not line:
        return None
    parts = re.split(r"[,\t|]", line, maxsplit=1)
    image_id = parts[0].strip()
    if number == 1 and image_id.lower() in {"id", "image_id", "imageid"}:
        return None
    if len(parts) < 2 or not parts[1].strip():
        return image_id, [], 0
    pieces = re.split(r"[;,]", parts[1], maxsplit=MAX_CONCEPTS_PER_PREDICTION)[:MAX_CONCEPTS_PER_PREDICTION]
    return image_id, [t.strip() for t in pieces], parts[1].count(";") + parts[1].count(",") + 1


def _prediction_concepts(number: int, tokens: list[str], count: int) -> Scored:
    """The predicted set of one line and its problems, in token order (``count`` tokens on the line, of which
    ``tokens`` holds the first :data:`MAX_CONCEPTS_PER_PREDICTION`)."""
    problems: list[tuple[int, str]] = []
    if count > MAX_CONCEPTS_PER_PREDICTION:
        problems.append((number, f"{count} concepts (at most {MAX_CONCEPTS_PER_PREDICTION} allowed)"))
    concepts: set[str] = set()
    for token in tokens:
        cui = token.upper()
        if not cui:
            problems.append((number, "empty CUI token"))
        elif not CUI_PATTERN.match(cui):
            problems.append((number, f"malformed CUI {token[:40]!r}"))
        elif cui in concepts:
            problems.append((number, f"duplicate concept {cui}"))
        else:
            concepts.add(cui)
    return frozenset(concepts), problems


def _scored_line(number: int, raw: str, known: Mapping[str, int] | None) -> tuple[str | None, Scored]:
    fields = _prediction_fields(number, raw)
    if fields is None:
        return None, _NOT_SCORED
    return fields[0], (_NOT_SCORED if known is not None and fields[0] not in known
                       else _prediction_concepts(number, *fields[1:]))


#: What a line of an image the ground truth lacks holds: no set is made for it (a file of another collection's
#: million lines would make a million), and it is reported as an unknown ID.
_NOT_SCORED: Scored = (frozenset(), ())


def _is_unknown(image_id: str | None, known: Mapping[str, int] | None) -> bool:
    return known is not None and image_id is not None and image_id not in known


# An ID (no whitespace, ',' or '|'), then CUIs joined by ';' or ',', all ASCII.
_USUAL_LINE = r"^[!-+\--{}~]{1,300}(?:,(?:[Cc][0-9]{7}(?:[;,][Cc][0-9]{7})*)?)?$"


def _prediction_rows(data: bytes, known: Mapping[str, int] | None) -> PredictionRows:
    """Per non-empty line: its image ID (None: blank or a header), its set with its problems, its number and whether
    the ground truth lacks its ID.

    Lines are split at line feeds only (a lone carriage return is whitespace within a line
    here, as the validator reads it). Usual lines are split and checked as arrays (their only
    possible problem is a repeated concept); the others are read by the definition's per-line
    functions. Lines of IDs ``known`` lacks get no set.
    """
    column, index = line_column(data)
    numbers = index.line_of_rows(np.arange(len(column)))
    usual = pc.match_substring_regex(column, _USUAL_LINE).to_numpy(zero_copy_only=False) & (numbers != 1)
    usual &= pc.count_substring_regex(column, "[;,]").to_numpy() <= MAX_CONCEPTS_PER_PREDICTION
    column = usual_only(column, usual)  # (the other lines are read one by one below)
    id_column = pc.replace_substring_regex(column, ",.*", "", max_replacements=1)
    ids: list[str | None] = id_column.to_pylist()
    unknown = np.zeros(len(column), dtype=bool) if known is None else ~pc.is_in(
        id_column, value_set=pa.array(list(known), type=pa.string())).to_numpy(zero_copy_only=False)
    scored_rows = np.flatnonzero(~unknown)
    every_line = len(scored_rows) == len(column)
    scored_lines = column if every_line else column.take(pa.array(scored_rows, type=pa.int64()))
    cui_lists = pc.split_pattern_regex(pc.utf8_upper(pc.replace_substring_regex(
        scored_lines, "^[^,]*,?", "", max_replacements=1)), "[;,]")
    scored: list[Scored] = [_NOT_SCORED] * len(column)
    for row, concepts in zip(scored_rows.tolist(), frozensets(cui_lists)):
        scored[row] = (concepts, [])
    for position, cui in repeated_in_lists(cui_lists):
        row = int(scored_rows[position])
        if usual[row]:
            scored[row][1].append((int(numbers[row]), f"duplicate concept {cui}"))
    for row in np.flatnonzero(~usual):  # the definition strips the ID the columns took whole
        number = int(numbers[row])
        ids[row], scored[row] = _scored_line(number, index.text(number), known)
        unknown[row] = _is_unknown(ids[row], known)
    return ids, scored, numbers, unknown
