"""The engine's pure kernels, its ground floor: NumPy and SciPy on arrays handed in, no engine state.

A ranking pass summarises each block of queries with :func:`summarise_block` (pairs as relevance keys) or
:func:`summarise_groups` (pairs grouped by code, :class:`CodeGroups`); both give the ideal top ``k``, the
count reaching a threshold and the top ``depth`` candidates, relevance descending and ties by candidate
position, the rule :func:`top_indices` applies to a plain matrix of values. :func:`summarise_block` selects each row's
top (:func:`top_keyed`) rather than sorting the row.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from evalcore.relevance.formulas import reaching


@dataclass(frozen=True)
class KeyedBlock:
    """Queries ``start:stop`` against every candidate as relevance keys.

    ``keys[q, c]`` orders pairs by relevance (equal keys = equal relevance); 0 marks the
    query itself. ``values[key]`` is the relevance, ``values[0] = -1``.
    """

    start: int
    stop: int
    keys: np.ndarray
    values: np.ndarray

    def relevance(self) -> np.ndarray:
        return self.values[self.keys]

def summarise_block(block: KeyedBlock, k: int, threshold: float, depth: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One block's share of :meth:`PairwiseEngine.rank_by`: per query the ideal top ``k`` values
    (descending, padded with 0), how many candidates reach ``threshold`` and the top ``depth`` candidates
    (by key descending, ties by candidate position, padded with -1).

    The same function runs in the engine's threads and on worker processes, so every backend returns
    the same values in the same tie order. The ideal values are those of the top ``k`` candidates: the query's
    own key 0 (value -1, clipped to 0) comes after every candidate's, as would padding.

    >>> block = KeyedBlock(0, 1, np.array([[0, 2, 1, 2]], dtype=np.uint16), np.array([-1.0, 0.25, 0.5]))
    >>> ideal, relevant, top = summarise_block(block, 3, 0.5, 2)
    >>> ideal.tolist(), relevant.tolist(), top.tolist()
    ([[0.5, 0.5, 0.25]], [2], [[1, 3]])
    """
    keys, values = block.keys, block.values
    rows, columns = keys.shape
    lowest_relevant = np.searchsorted(values[1:], reaching(threshold)) + 1
    relevant = np.count_nonzero(keys >= lowest_relevant, axis=1)
    tops = top_keyed(keys, max(k, depth))
    ideal = np.zeros((rows, k))
    ideal_width = min(k, columns)
    chosen = tops[:, :ideal_width]
    chosen_values = values[np.take_along_axis(keys, np.maximum(chosen, 0), axis=1)]
    ideal[:, :ideal_width] = np.where(chosen >= 0, np.maximum(chosen_values, 0.0), 0.0)
    return ideal, relevant, tops[:, :depth]


def top_keyed(keys: np.ndarray, depth: int) -> np.ndarray:
    """Column indices of the ``depth`` largest keys per row, by (key desc, column asc), key 0 (the query itself)
    never returned; rows are padded with -1. The same as a stable sort of each row by key descending, cut at
    ``depth``, without sorting the row: a selection.

    Each row's columns fall into chunks (columns ``j, j + stride, ..``); the ``depth``-th largest chunk maximum is
    no larger than the row's ``depth``-th largest key (``depth`` chunks each hold a key at least as large), and fewer
    than ``depth`` chunks hold a key above it, so at most ``depth`` chunks' worth of keys lie above it: only those are
    sorted, and the rest of the top is the first columns whose key equals it.

    >>> top_keyed(np.array([[2, 0, 3, 2, 1, 2]], dtype=np.uint16), 4).tolist()
    [[2, 0, 3, 5]]
    >>> top_keyed(np.array([[0, 1], [1, 0]], dtype=np.uint16), 3).tolist()
    [[1, -1, -1], [0, -1, -1]]
    """
    rows, columns = keys.shape
    width = min(depth, columns)
    result = np.full((rows, depth), -1, dtype=np.int64)
    if width == 0 or rows == 0:
        return result
    bound = np.maximum(_kth_chunk_maximum(keys, width), 1)
    above_rows, above_columns = _nonzero(keys > bound[:, None])
    above_keys = keys[above_rows, above_columns].astype(np.int64)
    # Rows ascending, then key descending; a stable sort keeps each row's equal keys in column order.
    order = np.argsort(above_rows * (int(above_keys.max(initial=0)) + 1) - above_keys, kind="stable")
    above_rows, above_columns = above_rows[order], above_columns[order]
    above_counts = np.bincount(above_rows, minlength=rows)
    rank = np.arange(len(above_rows)) - (np.cumsum(above_counts) - above_counts)[above_rows]
    keep = rank < width
    result[above_rows[keep], rank[keep]] = above_columns[keep]
    # Rows with fewer than ``width`` keys above the bound: the bound is their ``width``-th key, and ties at it go
    # by column. _first_ties returns each row's ties in column order, windows one after another.
    tie_rows, tie_columns = _first_ties(keys, bound, np.maximum(width - above_counts, 0))
    by_row = np.argsort(tie_rows, kind="stable")
    tie_rows, tie_columns = tie_rows[by_row], tie_columns[by_row]
    tie_counts = np.bincount(tie_rows, minlength=rows)
    tie_rank = np.arange(len(tie_rows)) - (np.cumsum(tie_counts) - tie_counts)[tie_rows]
    result[tie_rows, above_counts[tie_rows] + tie_rank] = tie_columns
    return result


def _kth_chunk_maximum(keys: np.ndarray, width: int) -> np.ndarray:
    """Per row, the ``width``-th largest maximum over chunks of its columns (``width <= columns``), a lower bound
    of its ``width``-th largest key. Chunks of up to 16 columns, at least ``4 * width`` of them: a tighter bound
    leaves fewer keys above it to sort.

    >>> _kth_chunk_maximum(np.array([[5, 1, 4, 2, 9, 3, 7, 0]]), 2).tolist()
    [7]
    """
    rows, columns = keys.shape
    size = int(np.clip(columns // (4 * width), 1, 16))
    stride = columns // size
    # Chunk j holds columns j, j + stride, ..: the maximum over ``size`` whole rows of ``stride`` keys vectorises.
    maxima = keys[:, :size * stride].reshape(rows, size, stride).max(axis=1)
    if size * stride < columns:
        maxima = np.hstack([maxima, keys[:, size * stride:]])
    return np.partition(maxima, maxima.shape[1] - width, axis=1)[:, maxima.shape[1] - width]


@dataclass(frozen=True)
class CodeGroups:
    """One block's pairs grouped by (row, code): each group's size and its first columns, ascending.

    Codes do not depend on alpha, and a row has few distinct codes (about 50 of ROCOv2's 9,927 columns),
    so a pass under any measure of the plan ranks a row's groups instead of its pairs
    (:func:`summarise_groups`). A top ``depth`` list never needs more than ``depth + 1`` columns of a
    group (one more than ``depth`` in case the query's own column is among them), so only the first
    ``reach`` columns of each are kept: a pass with ``depth < reach`` can use these groups.
    Groups run by row, then by code; ``heads[head_starts[g]:head_starts[g] + min(sizes[g], reach)]``
    are group g's first columns. ``pool_sizes`` leaves out the query's own column.
    """

    rows: np.ndarray
    codes: np.ndarray
    sizes: np.ndarray
    pool_sizes: np.ndarray
    head_starts: np.ndarray
    heads: np.ndarray
    reach: int
    columns: int
    self_columns: np.ndarray  # per row, its own column or -1

    @classmethod
    def of(cls, codes: np.ndarray, self_columns: np.ndarray, reach: int) -> CodeGroups:
        """Group a block of codes (at least one column) whose rows' own columns are ``self_columns``.

        >>> groups = CodeGroups.of(np.array([[7, 3, 7, 3, 5, 3]], dtype=np.uint16), np.array([2]), reach=2)
        >>> groups.codes.tolist(), groups.sizes.tolist(), groups.pool_sizes.tolist(), groups.heads.tolist()
        ([3, 5, 7], [3, 1, 2], [3, 1, 1], [1, 3, 4, 0, 2])
        """
        rows, columns = codes.shape
        column_dtype = np.uint16 if columns <= 1 << 16 else np.uint32
        parts = []
        # In row chunks: argsort returns intp, and a small chunk keeps that copy in cache (a sort of 16-bit codes
        # is a radix sort; sorting the codes again is faster than gathering them through the order). Only the
        # heads are kept: far less memory to touch than the whole order.
        step = max(1, (1 << 18) // columns)
        for row in range(0, rows, step):
            chunk = codes[row:row + step]
            order = np.argsort(chunk, axis=1, kind="stable")
            ordered = sorted_rows(chunk)
            first = np.ones(ordered.shape, dtype=bool)
            np.not_equal(ordered[:, 1:], ordered[:, :-1], out=first[:, 1:])
            flat_starts = np.flatnonzero(first)
            sizes = np.diff(np.append(flat_starts, chunk.size))
            lengths = np.minimum(sizes, reach)
            heads = order.ravel()[np.repeat(flat_starts, lengths) + _ragged_arange(lengths)].astype(column_dtype)
            group_rows, group_codes = flat_starts // columns, ordered.ravel()[flat_starts]
            pool_sizes = sizes.copy()
            own_rows = np.flatnonzero(self_columns[row:row + step] >= 0)
            if len(own_rows):
                # The query's own column lies in the group of (its row, its own code). Groups run by (row, code):
                # with codes replaced by their rank among the chunk's codes, that pair is one searchable int64.
                distinct, ranks = np.unique(group_codes, return_inverse=True)
                own_codes = chunk[own_rows, self_columns[row + own_rows]]
                own_keys = own_rows * len(distinct) + np.searchsorted(distinct, own_codes)
                pool_sizes[np.searchsorted(group_rows * len(distinct) + ranks, own_keys)] -= 1
            parts.append((group_rows + row, group_codes, sizes, pool_sizes, lengths, heads))
        group_rows, group_codes, sizes, pool_sizes, lengths, heads = (np.concatenate(p) for p in zip(*parts))
        return cls(group_rows, group_codes, sizes, pool_sizes, np.cumsum(lengths) - lengths, heads, reach, columns,
                   self_columns)

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.rows, self.codes, self.sizes, self.pool_sizes, self.head_starts,
                                      self.heads, self.self_columns))


def _ragged_arange(lengths: np.ndarray) -> np.ndarray:
    """0, 1, .., lengths[0] - 1, 0, 1, .., lengths[1] - 1, ...

    >>> _ragged_arange(np.array([3, 0, 2])).tolist()
    [0, 1, 2, 0, 1]
    """
    return np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)


def summarise_groups(groups: CodeGroups, keys: np.ndarray, values: np.ndarray, k: int, threshold: float,
                     depth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`summarise_block` of a block given as code groups (``depth < groups.reach``), ``keys[g]`` being
    group g's relevance key and ``values[key]`` its relevance.

    The same values and the same top ``depth`` (key descending, ties by column ascending): groups are
    ordered by key per row; the top is drawn from the groups whose key reaches the row's
    ``depth``-th key, at most as many columns of each as can still be taken, in column order.

    >>> groups = CodeGroups.of(np.array([[7, 3, 7, 3, 5]], dtype=np.uint16), np.array([2]), reach=4)
    >>> ideal, relevant, top = summarise_groups(groups, np.array([1, 2, 1]), np.array([-1.0, 0.25, 0.5]), 3, 0.5, 3)
    >>> ideal.tolist(), relevant.tolist(), top.tolist()
    ([[0.5, 0.25, 0.25]], [1], [[4, 0, 1]])
    """
    block_rows, columns = len(groups.self_columns), groups.columns
    keys = keys.astype(np.int64)
    # By row, then key descending, as one int64 (rows < 2^31, keys < 2^32): faster than a lexsort. Groups of
    # equal key may come in any order: they have equal values, and their columns are merged below.
    by_key = np.argsort(groups.rows * (int(keys.max(initial=0)) + 1) - keys)
    rows, keys, pool = groups.rows[by_key], keys[by_key], groups.pool_sizes[by_key]
    row_first = np.searchsorted(rows, np.arange(block_rows + 1))
    ends = np.cumsum(pool)
    before = np.concatenate([[0], ends])
    base = before[row_first[:-1]]
    pool_per_row = before[row_first[1:]] - base

    width = min(k, columns)
    ideal = np.zeros((block_rows, k))
    position = base[:, None] + np.arange(width)
    found = np.minimum(np.searchsorted(ends, position, side="right"), len(ends) - 1)
    ideal[:, :width] = np.where(np.arange(width) < pool_per_row[:, None], np.maximum(values[keys[found]], 0.0), 0.0)

    def per_row(mask: np.ndarray) -> np.ndarray:
        """Pool columns per row in the groups of ``mask``."""
        counted = np.concatenate([[0], np.cumsum(np.where(mask, pool, 0))])
        return counted[row_first[1:]] - counted[row_first[:-1]]

    relevant = per_row(keys >= np.searchsorted(values[1:], reaching(threshold)) + 1)
    top = np.full((block_rows, depth), -1, dtype=np.int64)
    taken = np.minimum(depth, pool_per_row)
    if depth == 0 or not taken.any():
        return ideal, relevant, top
    kth = keys[np.minimum(np.searchsorted(ends, base + np.maximum(taken - 1, 0), side="right"), len(ends) - 1)]
    kth = np.where(taken > 0, kth, np.iinfo(np.int64).max)
    needed = taken - per_row(keys > kth[rows])
    # Groups above the row's kth key are taken whole (fewer than ``depth`` columns in all); of those at it,
    # the first ``needed`` columns each (one more in case the query's own column is among them).
    chosen = np.flatnonzero(keys >= kth[rows])
    chosen_rows, chosen_keys, sizes = rows[chosen], keys[chosen], groups.sizes[by_key][chosen]
    lengths = np.where(chosen_keys > kth[chosen_rows], sizes, np.minimum(sizes, needed[chosen_rows] + 1))
    owner = np.repeat(np.arange(len(chosen)), lengths)
    row_ids = chosen_rows[owner]
    column_ids = groups.heads[groups.head_starts[by_key][chosen][owner] + _ragged_arange(lengths)].astype(np.int64)
    keep = column_ids != groups.self_columns[row_ids]
    # The chosen groups run by row and key descending, each in column order: only groups of equal key in a
    # row interleave, so sort by (run of equal row and key, column), again as one int64.
    runs = np.cumsum(np.r_[True, (chosen_rows[1:] != chosen_rows[:-1]) | (chosen_keys[1:] != chosen_keys[:-1])])
    row_ids, column_ids = row_ids[keep], column_ids[keep]
    ranked = np.argsort(runs[owner[keep]] * (int(column_ids.max(initial=0)) + 1) + column_ids)  # no equal pairs
    row_ids, column_ids = row_ids[ranked], column_ids[ranked]
    rank = np.arange(len(row_ids)) - np.searchsorted(row_ids, np.arange(block_rows))[row_ids]
    keep = rank < taken[row_ids]
    top[row_ids[keep], rank[keep]] = column_ids[keep]
    return ideal, relevant, top

def sorted_rows(values: np.ndarray) -> np.ndarray:
    """Each row of ``values`` sorted ascending. For integers of 16 bits or less NumPy's stable sort is a radix sort,
    linear in the row: on ROCOv2's 16-bit codes its default introsort took 2.3x as long. The sorted values are the
    same whatever the kind.

    >>> sorted_rows(np.array([[3, 1, 2], [0, 5, 5]], dtype=np.uint16)).tolist()
    [[1, 2, 3], [0, 5, 5]]
    """
    return np.sort(values, axis=1, kind="stable" if values.dtype.kind in "iub" and values.dtype.itemsize <= 2 else None)


def mark_self(keys: np.ndarray, self_columns: np.ndarray) -> None:
    """Key 0 for each query's own column (``self_columns[row]``, -1 when the query is not in the pool)."""
    rows = np.flatnonzero(self_columns >= 0)
    keys[rows, self_columns[rows]] = 0

def row_max_product(rows: sp.csr_matrix, weights: sp.csr_matrix) -> sp.csr_matrix:
    """``out[r, x] = max over the concepts y of row r of weights[y, x]`` (a max-plus product for binary rows).

    >>> rows = sp.csr_matrix(np.array([[1, 1, 0], [0, 0, 1]]))
    >>> weights = sp.csr_matrix(np.array([[0, 0, 5], [0, 0, 7], [2, 0, 0]]))
    >>> row_max_product(rows, weights).toarray().tolist()
    [[0.0, 0.0, 7.0], [2.0, 0.0, 0.0]]
    """
    rows, weights = rows.tocsr(), weights.tocsr()
    columns = weights.shape[1]
    owners = np.repeat(np.arange(rows.shape[0]), np.diff(rows.indptr))
    lengths = np.diff(weights.indptr)[rows.indices]
    total = int(lengths.sum())
    if total == 0:
        return sp.csr_matrix((rows.shape[0], columns), dtype=np.float64)
    entry = np.repeat(np.arange(len(rows.indices)), lengths)
    position = weights.indptr[rows.indices][entry] + np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    flat = owners[entry].astype(np.int64) * columns + weights.indices[position]
    value = weights.data[position].astype(np.float64)
    order = np.lexsort((value, flat))
    flat, value = flat[order], value[order]
    last = np.r_[flat[1:] != flat[:-1], True]
    flat, value = flat[last], value[last]
    return sp.csr_matrix((value, (flat // columns, flat % columns)), shape=(rows.shape[0], columns))


def _top_given_kth(values: np.ndarray, kth: np.ndarray | None, depth: int, floor) -> np.ndarray:
    """Column indices of the ``depth`` largest entries per row, by (value desc, column asc).

    ``kth`` is each row's ``min(depth, columns)``-th largest value. Entries below ``floor``
    (the query itself) are never returned; rows are padded with -1.
    """
    rows, columns = values.shape
    width = min(depth, columns)
    result = np.full((rows, depth), -1, dtype=np.int64)
    if width == 0 or rows == 0:
        return result
    kth = np.maximum(kth, floor)
    above_rows, above_columns = _nonzero(values > kth[:, None])
    needed = width - np.bincount(above_rows, minlength=rows)
    tie_rows, tie_columns = _first_ties(values, kth, needed)
    row_ids = np.concatenate([above_rows, tie_rows])
    col_ids = np.concatenate([above_columns, tie_columns])
    chosen_values = values[row_ids, col_ids].astype(np.float64)
    order = np.lexsort((col_ids, -chosen_values, row_ids))
    row_ids, col_ids = row_ids[order], col_ids[order]
    result[row_ids, np.arange(len(row_ids)) - np.searchsorted(row_ids, row_ids)] = col_ids
    return result


def _first_ties(values: np.ndarray, kth: np.ndarray, needed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row r, the first ``needed[r]`` columns whose value equals ``kth[r]``.

    Ties can fill most of a row (e.g. every candidate sharing only the modality), so rows
    are scanned in widening column windows and leave the scan once they have enough.
    """
    rows, columns = values.shape
    found = np.zeros(rows, dtype=np.int64)
    pending = np.flatnonzero(needed > 0)
    tie_rows, tie_columns = [], []
    start, window = 0, 4 * int(needed.max(initial=1)) + 64
    while len(pending) and start < columns:
        stop = min(columns, start + window)
        local_rows, local_columns = _nonzero(values[pending, start:stop] == kth[pending, None])
        hit_rows = pending[local_rows]
        rank = found[hit_rows] + np.arange(len(hit_rows)) - np.searchsorted(local_rows, local_rows)
        keep = rank < needed[hit_rows]
        tie_rows.append(hit_rows[keep])
        tie_columns.append(local_columns[keep] + start)
        found += np.bincount(hit_rows, minlength=rows)
        pending = pending[found[pending] < needed[pending]]
        start, window = stop, 4 * window
    if not tie_rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(tie_rows), np.concatenate(tie_columns)


def _nonzero(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of a 2-D mask (via the flat indices: several times faster than np.nonzero)."""
    return np.divmod(np.flatnonzero(mask), mask.shape[1])


def top_indices(values: np.ndarray, depth: int) -> np.ndarray:
    """Column indices of the ``depth`` largest values per row, by (value desc, column asc).

    Entries below 0 (the query itself) are never returned; rows are padded with -1.

    >>> top_indices(np.array([[0.5, 1.0, 0.5, -1.0, 0.5]]), 3)
    array([[1, 0, 2]])
    """
    width = min(depth, values.shape[1])
    if width == 0:
        return np.full((values.shape[0], depth), -1, dtype=np.int64)
    kth = -np.partition(-values, width - 1, axis=1)[:, width - 1]
    return _top_given_kth(values, kth, depth, floor=0.0)
