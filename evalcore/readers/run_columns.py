"""The lines of a run file as columns, and the :class:`~evalcore.data.Run` objects they make.

Whatever the format (TREC, CSV, read whole or a piece at a time), a run file becomes one
:class:`RunColumns`; :func:`runs_from_columns` refuses repeated images and ranks (naming both
lines) and orders each list by (score descending, rank ascending).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import pyarrow as pa

from evalcore.data import RankedLists, RankedScores, Run
from evalcore.errors import InputError
from evalcore.readers.columnar import in_parallel

MAX_RANK = 10**9


@dataclass
class RunColumns:
    """The lines of a run file as arrays, one row per line, and how to name a row's line."""

    tags: np.ndarray
    tag_names: list[str] | pa.Array  # an Arrow array for one piece of a TREC run, until the pieces are joined
    queries: np.ndarray
    query_names: list[str] | pa.Array
    documents: np.ndarray
    document_names: list[str] | pa.Array
    ranks: np.ndarray
    scores: np.ndarray
    line_of_rows: Callable[[np.ndarray], np.ndarray]
    scored: bool = True  # False for a CSV run without a score column (its scores read 0; its ranks order it)


class LineNumbers:
    """Row -> line number over runs read a piece at a time: each piece's first row and first line, and the
    line of each of its rows where blank lines make them differ (None: row r of the piece is on its line r)."""

    def __init__(self, first_rows: list[int], first_lines: list[int], kept: list[np.ndarray | None]):
        self.first_rows = np.asarray(first_rows, dtype=np.int64)
        self.first_lines = first_lines
        self.kept = kept

    def __call__(self, rows) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        piece = np.searchsorted(self.first_rows, rows, side="right") - 1
        lines = np.empty(len(rows), dtype=np.int64)
        for number in np.unique(piece).tolist():
            chosen = piece == number
            within = rows[chosen] - self.first_rows[number]
            kept = self.kept[number]
            lines[chosen] = within + self.first_lines[number] if kept is None else kept[within]
        return lines


def _joined_codes(parts: list[tuple[np.ndarray, pa.Array]]) -> tuple[np.ndarray, list[str]]:
    """Codes of pieces, each into its own values, as codes into the values of all pieces (first seen first).

    >>> codes, names = _joined_codes([(np.array([0, 1, 0]), pa.array(["a", "b"])), (np.array([1, 0]), pa.array(["c", "a"]))])
    >>> codes.tolist(), names
    ([0, 1, 0, 0, 2], ['a', 'b', 'c'])
    """
    if len(parts) == 1:
        codes, values = parts[0]
        return codes, values.to_pylist()
    encoded = pa.concat_arrays([values for _, values in parts]).dictionary_encode()
    mapping = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False)
    joined = np.empty(sum(len(codes) for codes, _ in parts), dtype=np.int32)
    row = offset = 0
    for codes, values in parts:
        np.take(mapping[offset:offset + len(values)], codes, out=joined[row:row + len(codes)])
        row, offset = row + len(codes), offset + len(values)
    return joined, encoded.dictionary.to_pylist()


def joined_run_columns(parts: list[RunColumns]) -> RunColumns:
    """The columns of a run read a piece at a time, as one (names become lists shared by every piece)."""
    if not parts:
        return RunColumns(*([np.zeros(0, dtype=np.int32), []] * 3), np.zeros(0, dtype=np.int32), np.zeros(0),
                          LineNumbers([0], [1], [None]))
    tags, tag_names = _joined_codes([(part.tags, part.tag_names) for part in parts])
    queries, query_names = _joined_codes([(part.queries, part.query_names) for part in parts])
    documents, document_names = _joined_codes([(part.documents, part.document_names) for part in parts])
    sizes = np.cumsum([0] + [len(part.ranks) for part in parts])
    lines = LineNumbers(sizes[:-1].tolist(), [part.line_of_rows.first_lines[0] for part in parts],
                        [part.line_of_rows.kept[0] for part in parts])
    return RunColumns(tags, tag_names, queries, query_names, documents, document_names,
                      np.concatenate([part.ranks for part in parts]), np.concatenate([part.scores for part in parts]),
                      lines, all(part.scored for part in parts))


def runs_from_columns(columns: RunColumns, display: str) -> tuple[Run, ...]:
    """One :class:`Run` per tag: duplicates refused with both line numbers, lists ordered by (score desc, rank asc).

    A file whose lines already come grouped by query in that order (as every TREC tool
    writes them) is taken as it is; otherwise the rows are sorted. Each run keeps its scores
    (:class:`~evalcore.data.RankedScores`, in the lists' order), from which an evaluation counts tied
    scores and may order ties as trec_eval does (:mod:`evalcore.metrics.ties`); a file without scores keeps none.
    """
    c = columns
    rows = len(c.ranks)
    if rows == 0:
        raise InputError(display, None, "at least one run line", "none",
                         plain_expected="at least one result line of a retrieval system")
    pair = c.queries if len(c.tag_names) == 1 else c.tags.astype(np.int64) * max(len(c.query_names), 1) + c.queries
    boundaries = np.flatnonzero(pair[1:] != pair[:-1]) + 1
    starts = np.concatenate(([0], boundaries))
    contiguous = len(np.unique(pair[starts])) == len(starts)
    if contiguous:
        group = np.zeros(rows, dtype=np.int64)
        group[boundaries] = 1
        np.cumsum(group, out=group)
        first_rows = starts
        # The order checks and the search for a repeated image are independent: one on each core.
        (ranks_unique, in_order), repeated_image = in_parallel(
            partial(_ordered_within_groups, c.ranks, c.scores, boundaries),
            partial(_repeated_image, group, c.documents, len(c.document_names), True))
    else:
        _, first_of_value, value_of_row = np.unique(pair, return_index=True, return_inverse=True)
        appearance = np.argsort(first_of_value, kind="stable")
        number = np.empty(len(appearance), dtype=np.int64)
        number[appearance] = np.arange(len(appearance))
        group, first_rows = number[value_of_row], first_of_value[appearance]
        ranks_unique = in_order = False
        repeated_image = _repeated_image(group, c.documents, len(c.document_names), False)
    del pair
    _refuse_duplicates(c, group, repeated_image, ranks_unique, display)
    # Systems in order of their tag's first line; each system's queries in order of their first line.
    tag_of_group = c.tags[first_rows]
    tag_values, first_group_of_tag = np.unique(tag_of_group, return_index=True)
    tag_order = tag_values[np.argsort(first_group_of_tag, kind="stable")]
    tag_position = np.empty(len(c.tag_names), dtype=np.int64)
    tag_position[tag_order] = np.arange(len(tag_order))
    group_key = tag_position[tag_of_group]
    groups_in_order = bool(np.all(group_key[1:] >= group_key[:-1]))
    group_order = np.arange(len(first_rows)) if groups_in_order else np.argsort(group_key, kind="stable")
    if contiguous and in_order and groups_in_order:
        documents, scores = c.documents, c.scores
    else:
        position = np.empty(len(group_order), dtype=np.int64)
        position[group_order] = np.arange(len(group_order))
        order = np.lexsort((c.ranks, -c.scores, position[group]))
        documents, scores = c.documents[order], c.scores[order]
        del order
    sizes = np.bincount(group, minlength=len(first_rows))[group_order]
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    query_names = np.asarray(c.query_names, dtype=object)
    document_names = np.asarray(c.document_names, dtype=object)
    tag_bounds = np.searchsorted(group_key[group_order], np.arange(len(tag_order) + 1))
    runs = []
    for tag, low, high in zip(tag_order, tag_bounds[:-1], tag_bounds[1:]):
        chosen = group_order[low:high]
        queries = query_names[c.queries[first_rows[chosen]]].tolist()
        lists = RankedLists(queries, document_names, documents[offsets[low]:offsets[high]],
                            offsets[low:high + 1] - offsets[low])
        kept = RankedScores(lists, scores[offsets[low]:offsets[high]]) if c.scored else None
        runs.append(Run(c.tag_names[tag], lists, display, kept))
    return tuple(runs)


def _ordered_within_groups(ranks: np.ndarray, scores: np.ndarray, boundaries: np.ndarray) -> tuple[bool, bool]:
    """For rows grouped by query: whether ranks rise within each group, and whether each group is already
    in (score descending, rank ascending) order."""
    across = np.zeros(len(ranks) - 1, dtype=bool)
    across[boundaries - 1] = True
    rank_rises = ranks[1:] > ranks[:-1]
    ranks_unique = bool(np.all(across | rank_rises))
    in_order = bool(np.all(across | (scores[1:] < scores[:-1]) | ((scores[1:] == scores[:-1]) & rank_rises)))
    return ranks_unique, in_order


def _repeated_image(group: np.ndarray, documents: np.ndarray, size: int, contiguous: bool) -> tuple[int, int] | None:
    """The first row repeating an image of its group, and the row it repeats (None if none)."""
    documents = documents.astype(np.int64)
    if contiguous and not _repeats_within_groups(group, documents, size):
        return None
    return _first_repeat(group, documents, size)


def _refuse_duplicates(c: RunColumns, group: np.ndarray, repeated_image: tuple[int, int] | None, ranks_unique: bool,
                       display: str) -> None:
    """The first line repeating an image, or a rank, of its system and query, named with the line it repeats."""
    repeated_rank = None if ranks_unique else _first_repeat(group, c.ranks, MAX_RANK + 1)
    found = [repeat for repeat in (repeated_image, repeated_rank) if repeat is not None]
    if not found:
        return
    row, earlier = min(found, key=lambda repeat: repeat[0])
    line, earlier_line = (int(n) for n in c.line_of_rows(np.array([row, earlier])))
    if repeated_image is not None and row == repeated_image[0]:
        image = c.document_names[c.documents[row]]
        raise InputError(display, line, f"each image once per query ({image!r} already on line {earlier_line})",
                         "a duplicate", plain_expected=f"each image found once per case ({image!r} already on line "
                                                       f"{earlier_line})")
    query = c.query_names[c.queries[row]]
    raise InputError(display, line, f"each rank once per query (rank {int(c.ranks[row])} of query {query!r} already "
                     f"on line {earlier_line})", "a duplicate rank",
                     plain_expected=f"each rank once per case (rank {int(c.ranks[row])} of case {query!r} already on "
                                    f"line {earlier_line})")


def _repeats_within_groups(group: np.ndarray, values: np.ndarray, size: int, block: int = 1 << 22) -> bool:
    """Whether a value repeats within a group, for rows sorted by group, without sorting: each row writes its
    number into the slot of its (group, value), a block of groups at a time; a repeat reads back another number.

    >>> _repeats_within_groups(np.array([0, 0, 1, 1]), np.array([3, 4, 4, 3]), 5), \\
    ...     _repeats_within_groups(np.array([0, 0, 1]), np.array([3, 3, 4]), 5)
    (False, True)
    """
    if len(values) <= block:
        # Few rows: sorting them is cheaper than touching the slots of a whole block.
        ordered = np.sort(group * size + values)
        return bool(np.any(ordered[1:] == ordered[:-1]))
    per_block = max(1, block // max(size, 1))
    last = int(group[-1]) + 1
    block_starts = np.arange(0, last, per_block)
    bounds = np.searchsorted(group, np.concatenate((block_starts, [last])))
    slots = np.empty(per_block * size, dtype=np.int64)
    for first_group, low, high in zip(block_starts, bounds[:-1], bounds[1:]):
        key = (group[low:high] - first_group) * size + values[low:high]
        number = np.arange(high - low)
        slots[key] = number
        if np.any(slots[key] != number):
            return True
    return False


def _first_repeat(major: np.ndarray, minor: np.ndarray, minor_size: int) -> tuple[int, int] | None:
    """The first row whose ``(major, minor)`` pair occurs on an earlier row, and the first such earlier row.

    >>> _first_repeat(np.array([0, 0, 1, 0]), np.array([5, 6, 5, 6]), 10)
    (3, 1)
    """
    if (int(major.max()) + 1) * minor_size < 1 << 62:
        key = major * minor_size + minor
        order = np.argsort(key, kind="stable")
        ordered = key[order]
        same = ordered[1:] == ordered[:-1]
    else:
        order = np.lexsort((minor, major))
        same = (major[order][1:] == major[order][:-1]) & (minor[order][1:] == minor[order][:-1])
    if not same.any():
        return None
    positions = np.flatnonzero(same) + 1
    earliest = int(np.argmin(order[positions]))
    position = positions[earliest]
    breaks = np.flatnonzero(~same[:position])
    return int(order[position]), int(order[breaks[-1] + 1 if len(breaks) else 0])
