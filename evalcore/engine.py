"""The vectorised all-pairs engine (DESIGN §6), for every measure of :mod:`evalcore.measures`.

nn-IoU depends on a pair only through three small integers: ``i = |A ∩ B|``,
``a = |N(A,B)|`` and ``u = |A ∪ B|``. The engine packs them into one integer code

    code = i + R_i (a + R_a u)

and gets the codes of a whole block of queries from a single matrix product. With X the
binary N x V concept matrix, ``G = [X M > 0] ∧ ¬X`` the concepts that neighbour a set
without belonging to it (M: "within n hops" in the KG), ``s`` the set sizes and 1 a
column of ones:

    code(Q, C) = [X_Q | G_Q | 1 | s_Q] · [(1 - R_i R_a) X + R_i G | R_i X | R_i R_a s | R_i R_a]^T

because ``u = |A| + |B| - i`` and ``a = G_Q X^T + X_Q G^T``. The product's columns are split:
columns dense on both sides (CT, X-ray, MRI, ...) go through a BLAS GEMM, the long tail
through a sparse product. Codes do not depend on alpha and depend on n only through ``a``,
so they are cached per (block, n); a new alpha is one table look-up per pair that maps
each code to the rank of its relevance among the distinct values (its *key*). Keys are
small unsigned integers, so ranking a row is an integer sort instead of a float partition.

A row has few distinct codes (about 50 of ROCOv2's 9,927 candidates). A ranking pass over
cached codes groups each row's pairs by code once (:class:`CodeGroups`: each group's size
and its first ``depth + 1`` columns), and every later pass of the plan, under any alpha or
measure read from the same codes, ranks the groups instead of the pairs
(:func:`summarise_groups`), with the same values and tie order.

Other measures extend the packing (a :class:`~evalcore.measures.CountPlan` names the digits):

- Tversky with a != b needs ``|A|`` (a digit fed by the ``s_Q`` column) and, with a KG, the
  near matches of each side apart: ``|N_A| = X_Q G_C^T`` and ``|N_B| = G_Q X_C^T`` get their own
  strides instead of sharing one. Dice and Tversky with a = b use nn-IoU's codes.
- nn-IoU-hops packs one cumulative count per distance d = 1..n, from ``G`` within d hops.
- nn-IoU-depth packs the near matches' summed credit: ``S`` holds, for each image and each
  concept outside it, the best Wu-Palmer credit (in units of 2^-16) of a partner in the image
  (a max-product of X with the credit matrix), and the credit is ``X_Q S_C^T + S_Q X_C^T``.

Codes up to ``LOOKUP_TABLE_LIMIT`` go through the look-up table; larger layouts (asymmetric
nn-Tversky, hops with n >= 3, depth) map each block's distinct codes to keys by hashing
(``pandas.factorize``), still exact and vectorised but slower (figures in docs/MEASURES.md).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .array_backend import PassReport, open_backend
from .data import ConceptSets
from .errors import ParameterError
from .executors import BlockExecutor, blas_single_thread, check_memory_per_worker
from .kg import KnowledgeGraph, check_hops_and_mode
from .measures import CountPlan, MeasureSpec, PairCounts, parse_measure
from .relevance import CREDIT_SCALE

DENSE_PAIR_SHARE = 0.002
MAX_DENSE_COLUMNS = 256
LOOKUP_TABLE_LIMIT = 1 << 22
FLOAT32_EXACT = 1 << 24
DEFAULT_CACHE_BYTES = 2 << 30
DEFAULT_MEMORY_PER_WORKER = 2 << 30
WORKERS = max(1, min(2, os.cpu_count() or 1))
GROUP_CODES = True  # rank passes over cached codes through CodeGroups (False: the plain path, for benchmarks)


def concept_matrix(sets: tuple[frozenset[str], ...], vocabulary_index: dict[str, int]) -> sp.csr_matrix:
    """Binary N x V CSR matrix of concept sets over a vocabulary."""
    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(s) for s in sets])
    indices = np.fromiter((vocabulary_index[c] for s in sets for c in sorted(s)), dtype=np.int32, count=int(indptr[-1]))
    return sp.csr_matrix((np.ones(len(indices), dtype=np.float32), indices, indptr),
                         shape=(len(sets), len(vocabulary_index)))


@dataclass(frozen=True)
class CodeLayout:
    """Mixed-radix packing of a pair's counts into one integer, the first digit least significant.

    >>> layout = CodeLayout.for_sizes(2, 2)  # nn-IoU's digits: intersection, near matches, union
    >>> [name for name, _ in layout.digits], layout.size
    (['intersection', 'near_0', 'union'], 75)
    >>> int(layout.encode(intersection=2, near_0=1, union=4))
    65
    >>> [int(x[0]) for x in layout.decode(np.array([65]))]
    [2, 1, 4]
    """

    digits: tuple[tuple[str, int], ...]

    @classmethod
    def for_plan(cls, plan: CountPlan, largest_query: int, largest_candidate: int) -> CodeLayout:
        largest_union = largest_query + largest_candidate
        digits = [("intersection", min(largest_query, largest_candidate) + 1)]
        for level in range(len(plan.levels)):
            if plan.split:
                digits += [(f"near_query_{level}", largest_query + 1), (f"near_candidate_{level}", largest_candidate + 1)]
            else:
                digits.append((f"near_{level}", largest_union + 1))
        if plan.credit_hops:
            digits.append(("credit", largest_union * CREDIT_SCALE + 1))
        digits.append(("union", largest_union + 1))
        if plan.query_size:
            digits.append(("query_size", largest_query + 1))
        return cls(tuple(digits))

    @classmethod
    def for_sizes(cls, largest_query: int, largest_candidate: int) -> CodeLayout:
        """nn-IoU's layout: (intersection, approximate, union)."""
        return cls.for_plan(CountPlan(levels=(1,)), largest_query, largest_candidate)

    @property
    def size(self) -> int:
        return int(np.prod([radix for _, radix in self.digits], dtype=object))

    @property
    def strides(self) -> dict[str, int]:
        strides, stride = {}, 1
        for name, radix in self.digits:
            strides[name] = stride
            stride *= radix
        return strides

    def encode(self, **counts):
        strides = self.strides
        return sum(strides[name] * value for name, value in counts.items())

    def decode(self, codes: np.ndarray) -> tuple[np.ndarray, ...]:
        """Every digit of each code, in layout order."""
        rest = np.asarray(codes).astype(np.int64)
        digits = []
        for _, radix in self.digits:
            rest, digit = np.divmod(rest, radix)
            digits.append(digit)
        return tuple(digits)

    def counts(self, codes: np.ndarray, plan: CountPlan) -> tuple[PairCounts, np.ndarray]:
        """The counts behind each code, and whether a pair can have them at all."""
        d = dict(zip((name for name, _ in self.digits), self.decode(codes)))
        levels = range(len(plan.levels))
        counts = PairCounts(
            intersection=d["intersection"], union=d["union"], query_size=d.get("query_size"),
            near=tuple(d[f"near_{j}"] for j in levels) if not plan.split else (),
            near_query=tuple(d[f"near_query_{j}"] for j in levels) if plan.split else (),
            near_candidate=tuple(d[f"near_candidate_{j}"] for j in levels) if plan.split else (),
            credit=d.get("credit"))
        outside = counts.union - counts.intersection
        feasible = outside >= 0
        for j in levels:
            feasible &= counts.near_total(j) <= outside
            if j:
                feasible &= counts.near_total(j - 1) <= counts.near_total(j)
        if counts.query_size is not None:
            feasible &= (counts.intersection <= counts.query_size) & (counts.query_size <= counts.union)
            if plan.split and len(levels):
                feasible &= counts.near_query[-1] <= counts.query_size - counts.intersection
                feasible &= counts.near_candidate[-1] <= counts.union - counts.query_size
        if counts.credit is not None:
            feasible &= counts.credit <= outside * CREDIT_SCALE
        return counts, feasible


@dataclass(frozen=True)
class Coding:
    """How the engine codes a plan: its digits, the dtype of its codes, and whether codes map to keys through a
    look-up table (else each block's distinct codes are hashed)."""

    layout: CodeLayout
    code_dtype: type
    lookup: bool


def codes_give(plan: CountPlan, measure: MeasureSpec) -> bool:
    """Whether codes of ``plan`` give ``measure``'s values: those of its own plan, or, for a measure of intersection
    and union only (IoU, Dice), those of a plan with one near-match level and nothing else (its digit is ignored).

    >>> from evalcore.measures import measure_spec
    >>> codes_give(CountPlan(levels=(1,)), measure_spec("iou")), codes_give(CountPlan(), measure_spec("nn-iou"))
    (True, False)
    """
    own = measure.plan()
    return plan == own or (own == CountPlan() and len(plan.levels) == 1
                           and not (plan.split or plan.query_size or plan.credit_hops))


def _values_of_codes(layout: CodeLayout, plan: CountPlan, measure: MeasureSpec, codes: np.ndarray) -> np.ndarray:
    """Relevance of each code under ``measure``; 0 for codes no pair can have."""
    counts, feasible = layout.counts(codes, plan)
    if plan != measure.plan():
        # Codes of a plan with a near-match digit, read for a measure without one (PairwiseEngine._plan_of):
        # the measure sees no near matches, as with codes of its own plan.
        counts = replace(counts, near=tuple(np.zeros_like(near) for near in counts.near))
    return np.where(feasible, measure.value(counts), 0.0)


def _keys_for(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank keys (1 = least relevant) of ``values`` and the value of each key; key 0 is -1, the query itself."""
    distinct, inverse = np.unique(values, return_inverse=True)
    dtype = np.uint16 if len(distinct) < np.iinfo(np.uint16).max else np.uint32
    return (inverse + 1).astype(dtype), np.concatenate([[-1.0], distinct])


class _SplitOperand:
    """The right-hand operand R of ``L @ R.T``, split into columns for a dense GEMM and a sparse tail.

    A column goes dense when it is filled on both sides often enough that BLAS beats
    a sparse product over its non-zero pairs.
    """

    def __init__(self, left: sp.csr_matrix, right: sp.csr_matrix, dtype: type):
        left_share = np.bincount(left.indices, minlength=left.shape[1]) / max(1, left.shape[0])
        right_share = np.bincount(right.indices, minlength=right.shape[1]) / max(1, right.shape[0])
        pair_share = left_share * right_share
        order = np.argsort(-pair_share, kind="stable")[:MAX_DENSE_COLUMNS]
        self.dense_columns = np.sort(order[pair_share[order] >= DENSE_PAIR_SHARE])
        sparse_mask = np.ones(right.shape[1], dtype=bool)
        sparse_mask[self.dense_columns] = False
        self.sparse_columns = np.flatnonzero(sparse_mask)
        self.dtype = dtype
        self.dense_t = np.ascontiguousarray(right[:, self.dense_columns].toarray().T, dtype=dtype)
        self.sparse_t = right[:, self.sparse_columns].T.tocsr().astype(dtype)

    def product(self, left: sp.csr_matrix) -> np.ndarray:
        """Dense ``left @ R.T``."""
        if len(self.dense_columns):
            out = left[:, self.dense_columns].toarray().astype(self.dtype, copy=False) @ self.dense_t
        else:
            out = np.zeros((left.shape[0], self.dense_t.shape[1]), dtype=self.dtype)
        tail = (left[:, self.sparse_columns].astype(self.dtype) @ self.sparse_t).tocoo()
        if tail.nnz:
            out[tail.row, tail.col] += tail.data
        return out


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


@dataclass(frozen=True)
class PoolSummary:
    """Per query: the best ``k`` relevance values of the pool (descending) and how many reach a threshold."""

    ideal: np.ndarray  # Q x k, padded with 0
    relevant_counts: np.ndarray  # Q
    pool_sizes: np.ndarray  # Q


def summarise_block(block: KeyedBlock, k: int, threshold: float, depth: int
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One block's share of :meth:`PairwiseEngine.rank_by`: per query the ideal top ``k`` values
    (descending, padded with 0), how many candidates reach ``threshold`` and the top ``depth`` candidates
    (by key descending, ties by candidate position, padded with -1).

    The same function runs in the engine's threads and on worker processes, so every backend returns
    the same values in the same tie order.

    >>> block = KeyedBlock(0, 1, np.array([[0, 2, 1, 2]], dtype=np.uint16), np.array([-1.0, 0.25, 0.5]))
    >>> ideal, relevant, top = summarise_block(block, 3, 0.5, 2)
    >>> ideal.tolist(), relevant.tolist(), top.tolist()
    ([[0.5, 0.5, 0.25]], [2], [[1, 3]])
    """
    ordered = np.sort(block.keys, axis=1)  # keys are small unsigned integers: a radix sort, linear in the row
    width = min(k, ordered.shape[1])
    ideal = np.zeros((ordered.shape[0], k))
    ideal[:, :width] = np.maximum(block.values[ordered[:, ::-1][:, :width]], 0.0)
    lowest_relevant = np.searchsorted(block.values[1:], threshold) + 1
    relevant = ordered.shape[1] - _row_lower_bounds(ordered, lowest_relevant)
    top_width = min(depth, ordered.shape[1])
    kth = ordered[:, -top_width] if top_width else None
    return ideal, relevant, _top_given_kth(block.keys, kth, depth, floor=1)


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
            ordered = np.sort(chunk, axis=1)
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

    relevant = per_row(keys >= np.searchsorted(values[1:], threshold) + 1)
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


def _mark_self(keys: np.ndarray, self_columns: np.ndarray) -> None:
    """Key 0 for each query's own column (``self_columns[row]``, -1 when the query is not in the pool)."""
    rows = np.flatnonzero(self_columns >= 0)
    keys[rows, self_columns[rows]] = 0


@dataclass(frozen=True)
class CandidateSide:
    """The candidate side of one measure: the product's right operand and the map from codes to keys.

    Picklable, so that a worker process receives it once and then ranks any block of query rows.
    ``lookup`` is the (table, values) pair of measures whose codes fit a look-up table, else None
    (each block's distinct codes are then hashed).
    """

    operand: _SplitOperand
    code_dtype: type
    lookup: tuple[np.ndarray, np.ndarray] | None
    layout: CodeLayout
    plan: CountPlan
    measure: MeasureSpec

    def codes(self, left_rows: sp.csr_matrix) -> np.ndarray:
        return self.operand.product(left_rows).astype(self.code_dtype)

    def keys_of_codes(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Relevance keys of a block of codes and the value of each key (see :class:`KeyedBlock`)."""
        if self.lookup is not None:
            table, values = self.lookup
            keys = np.empty(codes.shape, dtype=table.dtype)
            # In row chunks: NumPy widens the indices to intp, and a small chunk keeps that copy in cache.
            step = max(1, (1 << 16) // max(1, codes.shape[1]))
            for row in range(0, codes.shape[0], step):
                np.take(table, codes[row:row + step], out=keys[row:row + step])
            return keys, values
        # Hashing the block's codes is linear; only their few distinct values are evaluated.
        labels, distinct = pd.factorize(codes.ravel())
        distinct_keys, values = _keys_for(_values_of_codes(self.layout, self.plan, self.measure, np.asarray(distinct)))
        return distinct_keys[labels].reshape(codes.shape), values

    def bytes_per_pair(self) -> int:
        """Peak working memory of a block per (query, candidate) pair: the product, its codes, the keys
        and their sorted copy, a mask, and the hash labels when codes are hashed."""
        key_bytes = np.dtype(self.lookup[0].dtype).itemsize if self.lookup is not None else 4
        hashing = 0 if self.lookup is not None else 8
        return np.dtype(self.operand.dtype).itemsize + np.dtype(self.code_dtype).itemsize + 2 * key_bytes + 1 + hashing

    def nbytes(self) -> int:
        """Memory held by the candidate side (what every worker keeps for the whole pass)."""
        sparse = self.operand.sparse_t
        table = sum(a.nbytes for a in self.lookup) if self.lookup is not None else 0
        return self.operand.dense_t.nbytes + sparse.data.nbytes + sparse.indices.nbytes + sparse.indptr.nbytes + table


@dataclass(frozen=True)
class BlockWork:
    """A whole pass, as sent once to each worker: the candidate side, the left operand of every query
    and each query's own column in the pool (-1 if none); a task then names only its query rows."""

    side: CandidateSide
    left: sp.csr_matrix
    self_columns: np.ndarray

    def summarise(self, start: int, stop: int, k: int, threshold: float, depth: int
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`summarise_block` of queries ``start:stop``."""
        keys, values = self.side.keys_of_codes(self.side.codes(self.left[start:stop]))
        _mark_self(keys, self.self_columns[start:stop])
        return summarise_block(KeyedBlock(start, stop, keys, values), k, threshold, depth)

    @property
    def pool_size(self) -> int:
        return self.side.operand.dense_t.shape[1]

    def nbytes(self) -> int:
        left = self.left
        return self.side.nbytes() + left.data.nbytes + left.indices.nbytes + left.indptr.nbytes + self.self_columns.nbytes


@dataclass
class _PlanState:
    """What the engine keeps per count plan: the layout, dtypes and the product's operands."""

    plan: CountPlan
    layout: CodeLayout
    code_dtype: type
    product_dtype: type
    lookup: bool
    cacheable: bool
    groupable: bool  # passes rank code groups (CodeGroups), kept with the cached codes while they fit
    operands: tuple[sp.csr_matrix, _SplitOperand] | None = field(default=None, repr=False)


class PairwiseEngine:
    """All-pairs relevance between query concept sets and a candidate pool, block by block.

    Every measure of :mod:`evalcore.measures` goes through the ``*_by(measure, ...)`` methods, as a
    :class:`~evalcore.measures.MeasureSpec` or its canonical text; :meth:`resolve` reduces it where its values
    allow (:meth:`MeasureSpec.effective`: nn-IoU at alpha = 0 or n = 0, or without a KG, is IoU).

    ``backend="jax"`` (``device="cpu"`` or ``"gpu"``, ``device_memory`` bytes to plan blocks with)
    runs the ranking passes of :meth:`rank_by` (pool summaries, retrieval) as fixed-shape XLA
    programs with the same values and indices; :attr:`last_pass` tells which backend ran the last one.
    """

    def __init__(self, queries: ConceptSets, candidates: ConceptSets | None = None,
                 kg: KnowledgeGraph | None = None, mode: str = "undirected", block_size: int | None = None,
                 cache_bytes: int = DEFAULT_CACHE_BYTES, lookup_table_limit: int = LOOKUP_TABLE_LIMIT,
                 executor: BlockExecutor | None = None, memory_per_worker: int = DEFAULT_MEMORY_PER_WORKER,
                 backend: str = "numpy", device: str | None = None, device_memory: int | None = None):
        # Any positive budget: the engine's own users (tests, benchmarks) force small blocks with small ones. The
        # public entry points (Evaluator, the command line) also refuse one below MIN_MEMORY_PER_WORKER.
        self.memory_per_worker = check_memory_per_worker(memory_per_worker, minimum=1)
        # An array backend (evalcore/array_backend.py) runs whole ranking passes; None: this engine does.
        self.array_backend = open_backend(backend, device, device_memory)
        self.last_pass: PassReport | None = None
        self.queries = queries
        self.candidates = candidates if candidates is not None else queries
        self.kg = kg
        self.mode = mode
        vocabulary = tuple(sorted(set(queries.vocabulary) | set(self.candidates.vocabulary)))
        self.vocabulary = vocabulary
        self._vocab_index = {c: i for i, c in enumerate(vocabulary)}
        self.query_matrix = concept_matrix(queries.sets, self._vocab_index)
        self.candidate_matrix = concept_matrix(self.candidates.sets, self._vocab_index)
        self.query_sizes = np.diff(self.query_matrix.indptr).astype(np.int32)
        self.candidate_sizes = np.diff(self.candidate_matrix.indptr).astype(np.int32)
        self._largest = (int(self.query_sizes.max(initial=0)), int(self.candidate_sizes.max(initial=0)))
        self.layout = CodeLayout.for_sizes(*self._largest)
        self.self_columns = np.array([self.candidates.index.get(i, -1) for i in queries.ids], dtype=np.int64)
        self._self_rows = np.flatnonzero(self.self_columns >= 0)
        self.block_size = block_size or int(np.clip(16_000_000 // max(1, 4 * len(self.candidates)), 16, 2048))
        self.cache_bytes = cache_bytes
        self.executor = executor
        self.lookup_table_limit = lookup_table_limit
        self._plans: dict[CountPlan, _PlanState] = {}
        self._code_cache: OrderedDict[CountPlan, dict[int, np.ndarray]] = OrderedDict()
        self._group_cache: dict[CountPlan, dict[int, CodeGroups]] = {}  # plans in _code_cache only
        self._lock = threading.Lock()
        self._near_cache: dict[tuple[str, int], sp.csr_matrix] = {}
        self._credit_cache: dict[tuple[str, int], sp.csr_matrix] = {}
        self._credit_weights: dict[int, sp.csr_matrix] = {}
        self._table_cache: dict[tuple[CountPlan, str], tuple[np.ndarray, np.ndarray]] = {}

    @property
    def size(self) -> int:
        return len(self.queries)

    def blocks(self, block_size: int | None = None) -> Iterator[tuple[int, int]]:
        step = block_size or self.block_size
        for start in range(0, self.size, step):
            yield start, min(start + step, self.size)

    def rows_within_budget(self, work: BlockWork) -> int:
        """Query rows per block such that a worker holding ``work`` stays within ``memory_per_worker``.

        A worker keeps the whole pass's operands (``work.nbytes()``) and works on one block at a time,
        whose arrays take ``bytes_per_pair`` per (query, candidate) pair.
        """
        pairs_per_row = max(1, len(self.candidates)) * work.side.bytes_per_pair()
        free = self.memory_per_worker - work.nbytes()
        if free < pairs_per_row:
            raise ParameterError(
                f"memory per worker {_mib(self.memory_per_worker)} is too small for a pool of {len(self.candidates):,} "
                f"images: the operands take {_mib(work.nbytes())} and one query row {_mib(pairs_per_row)}; give at least "
                f"{_mib(work.nbytes() + pairs_per_row)} (more makes fewer, larger blocks)")
        return min(self.block_size, free // pairs_per_row)

    def neighbour_matrix(self, n: int) -> sp.csr_matrix:
        check_hops_and_mode(n, self.mode)
        if self.kg is None or n == 0:
            return sp.csr_matrix((len(self.vocabulary), len(self.vocabulary)), dtype=np.int8)
        return self.kg.neighbour_matrix(self.vocabulary, n, self.mode)

    def resolve(self, measure: MeasureSpec | str) -> MeasureSpec:
        """The measure as this engine computes it: parsed, validated, reduced (e.g. IoU without a KG)."""
        spec = parse_measure(measure)
        check_hops_and_mode(spec.hops, self.mode)
        return spec.effective(self.kg is not None)

    # --- the operands of the product ------------------------------------------------------

    def _near(self, side: str, n: int) -> sp.csr_matrix:
        """G = [X M > 0] ∧ ¬X: concepts neighbouring a set without belonging to it."""
        if (side, n) not in self._near_cache:
            matrix = self.query_matrix if side == "query" else self.candidate_matrix
            near = ((matrix @ self.neighbour_matrix(n).astype(np.float32)) > 0).astype(np.float32)
            self._near_cache[(side, n)] = (near - near.multiply(matrix)).tocsr()
        return self._near_cache[(side, n)]

    def credit_matrix(self, n: int) -> sp.csr_matrix:
        """V x V Wu-Palmer credit units of the vocabulary's concept pairs within n hops (nn-IoU-depth)."""
        from .taxonomy import credit_matrix, credit_sets

        check_hops_and_mode(n, self.mode)
        return credit_matrix(credit_sets(self.kg, self.vocabulary, n, self.mode), self.vocabulary)

    def _credit(self, side: str, n: int) -> sp.csr_matrix:
        """S: per image and concept outside it, the best credit units of a partner inside it (float64)."""
        if (side, n) not in self._credit_cache:
            if n not in self._credit_weights:
                self._credit_weights[n] = self.credit_matrix(n)
            matrix = self.query_matrix if side == "query" else self.candidate_matrix
            best = _row_max_product(matrix, self._credit_weights[n])
            best = (best - best.multiply(matrix > 0)).tocsr()
            best.eliminate_zeros()
            self._credit_cache[(side, n)] = best
        return self._credit_cache[(side, n)]

    def _state(self, plan: CountPlan) -> _PlanState:
        if plan not in self._plans:
            layout = CodeLayout.for_plan(plan, *self._largest)
            size = layout.size
            code_dtype = np.uint16 if size <= 1 << 16 else np.uint32 if size <= 1 << 32 else np.uint64
            exact_in_float32 = 4 * size < FLOAT32_EXACT and not plan.credit_hops
            full_bytes = np.dtype(code_dtype).itemsize * len(self.queries) * len(self.candidates)
            cacheable = full_bytes <= self.cache_bytes
            self._plans[plan] = _PlanState(plan, layout, code_dtype, np.float32 if exact_in_float32 else np.float64,
                                           size <= self.lookup_table_limit, cacheable,
                                           GROUP_CODES and cacheable and len(self.candidates) > 0)
        return self._plans[plan]

    def _operands(self, state: _PlanState) -> tuple[sp.csr_matrix, _SplitOperand]:
        """The left matrix of all queries and the split right operand whose product is the codes."""
        if state.operands is None:
            plan, dtype, stride = state.plan, state.product_dtype, state.layout.strides
            union = float(stride["union"])
            x_q, x_c = self.query_matrix.astype(dtype), self.candidate_matrix.astype(dtype)
            first = (stride["intersection"] - union) * x_c
            left, right = [x_q], []
            for level, hops in enumerate(plan.levels):
                if hops == 0:
                    continue
                query_side = stride[f"near_query_{level}" if plan.split else f"near_{level}"]
                candidate_side = stride[f"near_candidate_{level}" if plan.split else f"near_{level}"]
                first = first + query_side * self._near("candidate", hops).astype(dtype)
                left.append(self._near("query", hops).astype(dtype))
                right.append(candidate_side * x_c)
            if plan.credit_hops:
                first = first + stride["credit"] * self._credit("candidate", plan.credit_hops).astype(dtype)
                left.append(self._credit("query", plan.credit_hops).astype(dtype))
                right.append(stride["credit"] * x_c)
            ones_q = sp.csr_matrix(np.ones((self.size, 1), dtype=dtype))
            ones_c = sp.csr_matrix(np.ones((len(self.candidates), 1), dtype=dtype))
            sizes_q = sp.csr_matrix(self.query_sizes[:, None].astype(dtype))
            sizes_c = sp.csr_matrix(self.candidate_sizes[:, None].astype(dtype) * union)
            size_weight = union + stride.get("query_size", 0)
            left_matrix = sp.hstack([*left, ones_q, sizes_q]).tocsr()
            right_matrix = sp.hstack([first, *right, sizes_c, size_weight * ones_c]).tocsr()
            left_matrix.eliminate_zeros()
            right_matrix.eliminate_zeros()
            state.operands = (left_matrix, _SplitOperand(left_matrix, right_matrix, dtype))
        return state.operands

    # --- codes, keys and blocks -----------------------------------------------------------

    def _reserve(self, state: _PlanState) -> None:
        """Make room in the code cache for a plan, dropping the least recently used plans."""
        if not state.cacheable:
            return
        with self._lock:
            if state.plan in self._code_cache:
                self._code_cache.move_to_end(state.plan)
                return
            self._make_room(self._cached_bytes(state.plan), keep=None)
            self._code_cache[state.plan] = {}

    def _coded(self, state: _PlanState) -> bool:
        """Whether every block's codes of the plan are cached."""
        coded = self._code_cache.get(state.plan, {})
        return all(start in coded for start, _ in self.blocks())

    def _cached_bytes(self, plan: CountPlan) -> int:
        """What a plan holds in the code cache: its codes (all blocks, reserved up front) and the groups made so far."""
        codes = np.dtype(self._plans[plan].code_dtype).itemsize * len(self.queries) * len(self.candidates)
        return codes + sum(groups.nbytes for groups in self._group_cache.get(plan, {}).values())

    def _make_room(self, needed: int, keep: CountPlan | None) -> bool:
        """Drop the least recently used plans other than ``keep`` until ``needed`` more bytes fit the cache (with
        the lock held); False if they do not fit even then."""
        def used() -> int:
            return sum(self._cached_bytes(plan) for plan in self._code_cache)

        while used() + needed > self.cache_bytes:
            oldest = next((plan for plan in self._code_cache if plan != keep), None)
            if oldest is None:
                return False
            del self._code_cache[oldest]
            self._group_cache.pop(oldest, None)
        return True

    def _groups(self, state: _PlanState, start: int, stop: int, depth: int) -> CodeGroups:
        """The code groups of queries ``start:stop`` (a groupable plan) for a top ``depth``, cached with the codes;
        made again, from the cached codes, when a deeper top is asked for."""
        cached = self._group_cache.get(state.plan)
        if cached is not None and start in cached and cached[start].reach > depth:
            return cached[start]
        groups = CodeGroups.of(self._codes(state, start, stop), self.self_columns[start:stop], depth + 1)
        with self._lock:
            if state.plan in self._code_cache:
                kept = self._group_cache.setdefault(state.plan, {})
                kept.pop(start, None)  # shallower groups of the block, replaced
                if self._make_room(groups.nbytes, keep=state.plan):
                    kept[start] = groups
                else:
                    # Groups that do not fit beside the codes would be made again at every pass, which costs more
                    # than ranking the pairs: this plan's later passes rank the pairs.
                    state.groupable = False
                    self._group_cache.pop(state.plan, None)
        return groups

    def _codes(self, state: _PlanState, start: int, stop: int) -> np.ndarray:
        cached = self._code_cache.get(state.plan)
        if cached is not None and start in cached:
            return cached[start]
        left, operand = self._operands(state)
        codes = operand.product(left[start:stop]).astype(state.code_dtype)
        if state.cacheable:
            self._reserve(state)
            with self._lock:
                self._code_cache.get(state.plan, {})[start] = codes
        return codes

    def codes_by(self, measure: MeasureSpec | str, start: int, stop: int) -> np.ndarray:
        """The packed codes of queries ``start:stop`` x every candidate under ``measure``'s own plan (their
        digits: :meth:`coding`)."""
        return self._codes(self._state(self.resolve(measure).plan()), start, stop)

    def coding(self, measure: MeasureSpec | str) -> Coding:
        """How the engine codes ``measure``'s own plan: the digits, the codes' dtype, a look-up table or hashing."""
        state = self._state(self.resolve(measure).plan())
        return Coding(state.layout, state.code_dtype, state.lookup)

    def _table(self, state: _PlanState, measure: MeasureSpec) -> tuple[np.ndarray, np.ndarray]:
        key = (state.plan, measure.name)
        if key not in self._table_cache:
            every_code = np.arange(state.layout.size)
            self._table_cache[key] = _keys_for(_values_of_codes(state.layout, state.plan, measure, every_code))
        return self._table_cache[key]

    def _plan_of(self, measure: MeasureSpec) -> CountPlan:
        """The plan whose codes give ``measure``'s values: its own, or, for a measure of intersection and union
        only (IoU, Dice), a plan that adds one near-match digit and whose codes are cached for the whole pool.
        A pool summary by IoU after one by nn-IoU is then one table look-up per pair instead of a product."""
        plan = measure.plan()
        if plan != CountPlan():
            return plan
        with self._lock:
            for cached in reversed(self._code_cache):
                if codes_give(cached, measure) and self._coded(self._plans[cached]):
                    return cached
        return plan

    def keyed_by(self, measure: MeasureSpec | str, start: int, stop: int) -> KeyedBlock:
        """Relevance keys of queries ``start:stop`` under ``measure``."""
        measure = self.resolve(measure)
        state = self._state(self._plan_of(measure))
        keys, values = self._candidate_side(state, measure).keys_of_codes(self._codes(state, start, stop))
        _mark_self(keys, self.self_columns[start:stop])
        return KeyedBlock(start, stop, keys, values)

    def _candidate_side(self, state: _PlanState, measure: MeasureSpec) -> CandidateSide:
        """What turns a block of query rows into keys, apart from the rows themselves."""
        _, operand = self._operands(state)
        lookup = self._table(state, measure) if state.lookup else None
        return CandidateSide(operand, state.code_dtype, lookup, state.layout, state.plan, measure)

    def block_work(self, measure: MeasureSpec | str) -> BlockWork:
        """Everything a worker needs to rank any block of queries under ``measure``, sent to it once."""
        measure = self.resolve(measure)
        state = self._state(measure.plan())
        left, _ = self._operands(state)
        return BlockWork(self._candidate_side(state, measure), left, self.self_columns)

    def map_blocks_by(self, function: Callable[[KeyedBlock], object], measure: MeasureSpec | str,
                      progress: Callable[[float], None] | None = None) -> list:
        """Apply ``function`` to every block's keys under ``measure``, two blocks at a time, in order."""
        measure = self.resolve(measure)
        return self._map_ranges(lambda start, stop: function(self.keyed_by(measure, start, stop)), measure, progress)

    def _rank_groups(self, state: _PlanState, measure: MeasureSpec, k: int, threshold: float, depth: int,
                     progress: Callable[[float], None] | None) -> list:
        """:func:`summarise_groups` of every block (``state``: a groupable plan whose codes are cached, giving
        ``measure``): a pass under another alpha (or IoU on nn-IoU's codes) ranks each row's few distinct codes,
        not its pairs."""
        lookup = self._table(state, measure) if state.lookup else None

        def summarise(start: int, stop: int):
            groups = self._groups(state, start, stop, depth)
            if lookup is not None:
                table, values = lookup
                keys = table[groups.codes]
            else:
                distinct, labels = np.unique(groups.codes, return_inverse=True)
                distinct_keys, values = _keys_for(_values_of_codes(state.layout, state.plan, measure, distinct))
                keys = distinct_keys[labels]
            return summarise_groups(groups, keys, values, k, threshold, depth)

        return self._map_ranges(summarise, measure, progress)

    def _map_ranges(self, function: Callable[[int, int], object], measure: MeasureSpec,
                    progress: Callable[[float], None] | None) -> list:
        """``function(start, stop)`` of every block, coded under ``measure``'s plan, two blocks at a time, in order."""
        state = self._state(self._plan_of(measure))
        self._operands(state)
        self._reserve(state)
        if state.lookup:
            self._table(state, measure)
        blocks = list(self.blocks())
        results: list = [None] * len(blocks)

        def work(position: int):
            return position, function(*blocks[position])

        # One BLAS thread per block: the product is a thin GEMM, and BLAS threads on top of the block threads
        # only contend (on 2 cores, 2 BLAS threads made the product 5x slower). With every block's codes
        # cached there is no product, and setting the limit (some ms) is left out.
        limit = contextlib.nullcontext() if self._coded(state) else blas_single_thread()
        with limit, ThreadPoolExecutor(WORKERS) as pool:
            for done, (position, result) in enumerate(pool.map(work, range(len(blocks))), start=1):
                results[position] = result
                if progress is not None:
                    progress(done / len(blocks))
        return results

    # --- results --------------------------------------------------------------------------

    def relevance_by(self, measure: MeasureSpec | str) -> np.ndarray:
        """The full Q x N relevance matrix under ``measure`` (self pairs -1); for small pools and tests."""
        parts = self.map_blocks_by(KeyedBlock.relevance, measure)
        return np.vstack(parts) if parts else np.zeros((0, len(self.candidates)))

    def rank_by(self, measure: MeasureSpec | str, k: int, threshold: float = 0.5, depth: int = 0,
                progress: Callable[[float], None] | None = None) -> tuple[PoolSummary, np.ndarray]:
        """One pass over the pool: the ideal top ``k`` summary and the top ``depth`` candidates per query.

        Candidates are ordered by ``measure`` descending, ties by candidate position; rows are
        padded with -1 when the pool is smaller than ``depth``.
        """
        if k < 1:
            raise ParameterError(f"k must be >= 1, got {k}")
        measure = self.resolve(measure)
        if self.array_backend is not None:
            state = self._state(measure.plan())
            table = self._table(state, measure) if state.lookup else None
            reason = self.array_backend.unsupported(self, state, table, k, depth)
            if not reason:
                self.last_pass = PassReport(self.array_backend.name, self.array_backend.device_name)
                return self.array_backend.rank(self, state, table, k, threshold, depth, progress)
            self.last_pass = PassReport("numpy", "cpu", reason)
        else:
            self.last_pass = PassReport("numpy", "cpu")
        if self.executor is not None:
            work = self.block_work(measure)
            blocks = list(self.blocks(self.rows_within_budget(work)))
            parts = self.executor.rank(work, blocks, k, threshold, depth, progress)
        elif (state := self._state(self._plan_of(measure))).groupable and self._coded(state):
            # A later pass over cached codes: rank code groups. Not the pass that codes the pool: grouping costs
            # a little more than ranking the pairs, which a single pass (a first draw, a new n) would pay for nothing.
            parts = self._rank_groups(state, measure, k, threshold, depth, progress)
        else:
            parts = self.map_blocks_by(partial(summarise_block, k=k, threshold=threshold, depth=depth), measure, progress)
        ideal = np.vstack([p[0] for p in parts]) if parts else np.zeros((0, k))
        relevant = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        indices = np.vstack([p[2] for p in parts]) if parts else np.zeros((0, depth), dtype=np.int64)
        pool_sizes = len(self.candidates) - (self.self_columns >= 0).astype(np.int64)
        return PoolSummary(ideal, relevant, pool_sizes), indices

    def pool_summary_by(self, measure: MeasureSpec | str, k: int, threshold: float = 0.5,
                        progress: Callable[[float], None] | None = None) -> PoolSummary:
        """Best ``k`` values of ``measure`` over each query's pool."""
        return self.rank_by(measure, k, threshold, 0, progress)[0]

    def retrieve_by(self, measure: MeasureSpec | str, depth: int,
                    progress: Callable[[float], None] | None = None) -> np.ndarray:
        """Top ``depth`` candidate indices per query by ``measure``, ties broken by candidate position."""
        return self.rank_by(measure, 1, 0.5, depth, progress)[1]

    def counts_of_pairs(self, plan: CountPlan, query_rows: np.ndarray, candidate_rows: np.ndarray) -> PairCounts:
        """The counts of ``plan`` for explicit (query, candidate) pairs, from the sparse rows."""
        query_rows, candidate_rows = np.asarray(query_rows), np.asarray(candidate_rows)
        left = self.query_matrix[query_rows]
        right = self.candidate_matrix[candidate_rows]

        def row_sums(a: sp.csr_matrix, b: sp.csr_matrix) -> np.ndarray:
            return np.rint(np.asarray(a.multiply(b).sum(axis=1), dtype=np.float64).ravel()).astype(np.int64)

        intersection = row_sums(left, right)
        query_size = self.query_sizes[query_rows].astype(np.int64)
        union = query_size + self.candidate_sizes[candidate_rows] - intersection
        near_query, near_candidate = [], []
        for hops in plan.levels:
            if hops == 0 or self.kg is None:
                near_query.append(np.zeros_like(intersection))
                near_candidate.append(np.zeros_like(intersection))
                continue
            near_query.append(row_sums(left, self._near("candidate", hops)[candidate_rows]))
            near_candidate.append(row_sums(self._near("query", hops)[query_rows], right))
        credit = None
        if plan.credit_hops:
            credit = row_sums(left, self._credit("candidate", plan.credit_hops)[candidate_rows]) + \
                row_sums(self._credit("query", plan.credit_hops)[query_rows], right)
        if plan.split:
            return PairCounts(intersection, union, query_size if plan.query_size else None,
                              near_query=tuple(near_query), near_candidate=tuple(near_candidate), credit=credit)
        return PairCounts(intersection, union, query_size if plan.query_size else None,
                          near=tuple(q + c for q, c in zip(near_query, near_candidate)), credit=credit)

    def relevance_of_pairs_by(self, measure: MeasureSpec | str, query_rows: np.ndarray,
                              candidate_rows: np.ndarray) -> np.ndarray:
        """Relevance of explicit (query, candidate) pairs under ``measure``, e.g. the items of a run.

        Read from the cached codes when the whole pool has been coded for the measure's plan
        (after a pool summary or a ranking), otherwise counted from the sparse rows.
        """
        measure = self.resolve(measure)
        found = self.pair_codes(measure, query_rows, candidate_rows)
        if found is not None:
            return self.values_of_pair_codes(measure, *found)
        state = self._state(measure.plan())
        return np.asarray(measure.value(self.counts_of_pairs(state.plan, query_rows, candidate_rows)), dtype=np.float64)

    def pair_codes(self, measure: MeasureSpec | str, query_rows: np.ndarray, candidate_rows: np.ndarray
                   ) -> tuple[CountPlan, np.ndarray] | None:
        """The plan whose codes give ``measure``'s values (:meth:`_plan_of`) and the codes of explicit (query,
        candidate) pairs under it, read from the cached codes of the whole pool; None when the pool is not coded
        for that plan. A caller scoring the same pairs under several alphas keeps the codes and only looks the
        values up again (:meth:`values_of_pair_codes`)."""
        state = self._state(self._plan_of(self.resolve(measure)))
        starts = [start for start, _ in self.blocks()]
        if not starts or not self._coded(state):
            return None
        cached = self._code_cache[state.plan]
        query_rows, candidate_rows = np.asarray(query_rows), np.asarray(candidate_rows)
        order = np.argsort(query_rows, kind="stable")
        bounds = np.searchsorted(query_rows[order], starts + [self.size])
        codes = np.zeros(len(query_rows), dtype=np.int64)
        columns = len(self.candidates)
        for start, low, high in zip(starts, bounds[:-1], bounds[1:]):
            chosen = order[low:high]
            # Flat indices: about twice as fast as indexing with a pair of arrays.
            flat = (query_rows[chosen].astype(np.int64) - start) * columns + candidate_rows[chosen]
            codes[chosen] = cached[start].ravel()[flat]
        return state.plan, codes

    def values_of_pair_codes(self, measure: MeasureSpec | str, plan: CountPlan, codes: np.ndarray) -> np.ndarray:
        """``measure``'s values of codes of ``plan`` (from :meth:`pair_codes`; :func:`codes_give` must hold)."""
        measure = self.resolve(measure)
        state = self._state(plan)
        if state.lookup:
            table, values = self._table(state, measure)
            return values[table[codes]]
        return _values_of_codes(state.layout, state.plan, measure, codes)



def _mib(size: int) -> str:
    """A size in MiB, with enough decimals to tell small sizes apart.

    >>> _mib(3 << 20), _mib(1000)
    ('3.0 MiB', '0.001 MiB')
    """
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 / 10 else f"{size / 2**20:.3f} MiB"


def _row_max_product(rows: sp.csr_matrix, weights: sp.csr_matrix) -> sp.csr_matrix:
    """``out[r, x] = max over the concepts y of row r of weights[y, x]`` (a max-plus product for binary rows).

    >>> rows = sp.csr_matrix(np.array([[1, 1, 0], [0, 0, 1]]))
    >>> weights = sp.csr_matrix(np.array([[0, 0, 5], [0, 0, 7], [2, 0, 0]]))
    >>> _row_max_product(rows, weights).toarray().tolist()
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


def _row_lower_bounds(ordered: np.ndarray, value) -> np.ndarray:
    """Per row of an ascending-sorted matrix, the first position whose entry is >= ``value``.

    >>> _row_lower_bounds(np.array([[1, 2, 2, 5], [0, 0, 0, 0]]), 2).tolist()
    [1, 4]
    """
    rows, columns = ordered.shape
    low, high = np.zeros(rows, dtype=np.int64), np.full(rows, columns, dtype=np.int64)
    row_ids = np.arange(rows)
    while (low < high).any():
        middle = (low + high) // 2
        below = ordered[row_ids, np.minimum(middle, columns - 1)] < value
        active = low < high
        low = np.where(active & below, middle + 1, low)
        high = np.where(active & ~below, middle, high)
    return low


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
