"""The vectorised all-pairs engine (DESIGN §6).

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
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .data import ConceptSets
from .errors import ParameterError
from .kg import KnowledgeGraph, check_hops_and_mode
from .relevance import check_alpha, nn_iou_from_counts

DENSE_PAIR_SHARE = 0.002
MAX_DENSE_COLUMNS = 256
LOOKUP_TABLE_LIMIT = 1 << 22
FLOAT32_EXACT = 1 << 24
DEFAULT_CACHE_BYTES = 2 << 30
WORKERS = max(1, min(2, os.cpu_count() or 1))


def concept_matrix(sets: tuple[frozenset[str], ...], vocabulary_index: dict[str, int]) -> sp.csr_matrix:
    """Binary N x V CSR matrix of concept sets over a vocabulary."""
    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(s) for s in sets])
    indices = np.fromiter((vocabulary_index[c] for s in sets for c in sorted(s)), dtype=np.int32, count=int(indptr[-1]))
    return sp.csr_matrix((np.ones(len(indices), dtype=np.float32), indices, indptr),
                         shape=(len(sets), len(vocabulary_index)))


@dataclass(frozen=True)
class CodeLayout:
    """Mixed-radix packing of (intersection, approximate, union) counts into one integer.

    >>> layout = CodeLayout(3, 5, 7)
    >>> int(layout.encode(2, 1, 4))
    65
    >>> [int(x[0]) for x in layout.decode(np.array([65]))]
    [2, 1, 4]
    """

    intersections: int
    approximates: int
    unions: int

    @classmethod
    def for_sizes(cls, largest_query: int, largest_candidate: int) -> CodeLayout:
        largest_union = largest_query + largest_candidate
        return cls(min(largest_query, largest_candidate) + 1, largest_union + 1, largest_union + 1)

    @property
    def size(self) -> int:
        return self.intersections * self.approximates * self.unions

    def encode(self, intersection, approximate, union):
        return intersection + self.intersections * (approximate + self.approximates * union)

    def decode(self, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        codes = codes.astype(np.int64)
        rest, intersection = np.divmod(codes, self.intersections)
        union, approximate = np.divmod(rest, self.approximates)
        return intersection, approximate, union

    def relevance(self, codes: np.ndarray, alpha: float) -> np.ndarray:
        """nn-IoU of each code; 0 for codes no pair can have (``i + a > u``)."""
        intersection, approximate, union = self.decode(codes)
        feasible = intersection + approximate <= union
        return np.where(feasible, nn_iou_from_counts(intersection, approximate, union, alpha), 0.0)


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


class PairwiseEngine:
    """All-pairs relevance between query concept sets and a candidate pool, block by block."""

    def __init__(self, queries: ConceptSets, candidates: ConceptSets | None = None,
                 kg: KnowledgeGraph | None = None, mode: str = "undirected", block_size: int | None = None,
                 cache_bytes: int = DEFAULT_CACHE_BYTES, lookup_table_limit: int = LOOKUP_TABLE_LIMIT):
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
        self.layout = CodeLayout.for_sizes(int(self.query_sizes.max(initial=0)), int(self.candidate_sizes.max(initial=0)))
        self._code_dtype = np.uint16 if self.layout.size <= 1 << 16 else np.uint32
        self._product_dtype = np.float32 if 4 * self.layout.size < FLOAT32_EXACT else np.float64
        self._use_lookup_table = self.layout.size <= lookup_table_limit
        self.self_columns = np.array([self.candidates.index.get(i, -1) for i in queries.ids], dtype=np.int64)
        self._self_rows = np.flatnonzero(self.self_columns >= 0)
        self.block_size = block_size or int(np.clip(16_000_000 // max(1, 4 * len(self.candidates)), 16, 2048))
        self._cacheable = np.dtype(self._code_dtype).itemsize * len(queries) * len(self.candidates) <= cache_bytes
        self._code_cache: dict[tuple[int, int], np.ndarray] = {}
        self._operand_cache: dict[int, tuple[sp.csr_matrix, _SplitOperand]] = {}
        self._near_cache: dict[tuple[str, int], sp.csr_matrix] = {}
        self._table_cache: dict[tuple[float, int], tuple[np.ndarray, np.ndarray]] = {}

    @property
    def size(self) -> int:
        return len(self.queries)

    def blocks(self) -> Iterator[tuple[int, int]]:
        for start in range(0, self.size, self.block_size):
            yield start, min(start + self.block_size, self.size)

    def neighbour_matrix(self, n: int) -> sp.csr_matrix:
        check_hops_and_mode(n, self.mode)
        if self.kg is None or n == 0:
            return sp.csr_matrix((len(self.vocabulary), len(self.vocabulary)), dtype=np.int8)
        return self.kg.neighbour_matrix(self.vocabulary, n, self.mode)

    def effective_hops(self, alpha: float, n: int) -> int:
        """n, or 0 where approximate matches cannot change relevance (alpha = 0 or no KG)."""
        check_hops_and_mode(n, self.mode)
        return n if alpha > 0 and self.kg is not None else 0

    def _near(self, side: str, n: int) -> sp.csr_matrix:
        """G = [X M > 0] ∧ ¬X: concepts neighbouring a set without belonging to it."""
        if (side, n) not in self._near_cache:
            matrix = self.query_matrix if side == "query" else self.candidate_matrix
            near = ((matrix @ self.neighbour_matrix(n).astype(np.float32)) > 0).astype(np.float32)
            self._near_cache[(side, n)] = (near - near.multiply(matrix)).tocsr()
        return self._near_cache[(side, n)]

    def _operands(self, n: int) -> tuple[sp.csr_matrix, _SplitOperand]:
        """The left matrix of all queries and the split right operand whose product is the codes."""
        if n not in self._operand_cache:
            layout, dtype = self.layout, self._product_dtype
            ones_q = sp.csr_matrix(np.ones((self.size, 1), dtype=dtype))
            ones_c = sp.csr_matrix(np.ones((len(self.candidates), 1), dtype=dtype))
            union_weight = float(layout.intersections * layout.approximates)
            sizes_q = sp.csr_matrix(self.query_sizes[:, None].astype(dtype))
            sizes_c = sp.csr_matrix(self.candidate_sizes[:, None].astype(dtype) * union_weight)
            x_q, x_c = self.query_matrix.astype(dtype), self.candidate_matrix.astype(dtype)
            if n > 0:
                left = sp.hstack([x_q, self._near("query", n).astype(dtype), ones_q, sizes_q])
                near_c = self._near("candidate", n).astype(dtype)
                right = sp.hstack([(1 - union_weight) * x_c + layout.intersections * near_c,
                                   layout.intersections * x_c, sizes_c, union_weight * ones_c])
            else:
                left = sp.hstack([x_q, ones_q, sizes_q])
                right = sp.hstack([(1 - union_weight) * x_c, sizes_c, union_weight * ones_c])
            left, right = left.tocsr(), right.tocsr()
            left.eliminate_zeros()
            right.eliminate_zeros()
            self._operand_cache[n] = (left, _SplitOperand(left, right, self._product_dtype))
        return self._operand_cache[n]

    def codes(self, start: int, stop: int, n: int) -> np.ndarray:
        """Packed (intersection, approximate, union) codes of queries ``start:stop`` x every candidate."""
        codes = self._code_cache.get((start, n))
        if codes is None:
            left, operand = self._operands(n)
            codes = operand.product(left[start:stop]).astype(self._code_dtype)
            if self._cacheable:
                self._code_cache[(start, n)] = codes
        return codes

    def _lookup_table(self, alpha: float, n: int) -> tuple[np.ndarray, np.ndarray]:
        if (alpha, n) not in self._table_cache:
            self._table_cache[(alpha, n)] = _keys_for(self.layout.relevance(np.arange(self.layout.size), alpha))
        return self._table_cache[(alpha, n)]

    def keyed(self, start: int, stop: int, alpha: float, n: int) -> KeyedBlock:
        """Relevance keys of a block under nn-IoU(alpha, n); n must already be effective."""
        codes = self.codes(start, stop, n)
        if self._use_lookup_table:
            table, values = self._lookup_table(alpha, n)
            keys = np.empty(codes.shape, dtype=table.dtype)
            # In row chunks: NumPy widens the indices to intp, and a small chunk keeps that copy in cache.
            step = max(1, (1 << 16) // max(1, codes.shape[1]))
            for row in range(0, codes.shape[0], step):
                np.take(table, codes[row:row + step], out=keys[row:row + step])
        else:
            distinct, inverse = np.unique(codes, return_inverse=True)
            distinct_keys, values = _keys_for(self.layout.relevance(distinct, alpha))
            keys = distinct_keys[inverse].reshape(codes.shape)
        rows = self._self_rows[(self._self_rows >= start) & (self._self_rows < stop)]
        keys[rows - start, self.self_columns[rows]] = 0
        return KeyedBlock(start, stop, keys, values)

    def map_blocks(self, function: Callable[[KeyedBlock], object], alpha: float, n: int,
                   progress: Callable[[float], None] | None = None) -> list:
        """Apply ``function`` to every block's keys under nn-IoU(alpha, n), two blocks at a time, in order."""
        alpha = check_alpha(alpha)
        n = self.effective_hops(alpha, n)
        blocks = list(self.blocks())
        results: list = [None] * len(blocks)

        def work(position: int):
            start, stop = blocks[position]
            return position, function(self.keyed(start, stop, alpha, n))

        with ThreadPoolExecutor(WORKERS) as pool:
            for done, (position, result) in enumerate(pool.map(work, range(len(blocks))), start=1):
                results[position] = result
                if progress is not None:
                    progress(done / len(blocks))
        return results

    def relevance(self, alpha: float, n: int) -> np.ndarray:
        """The full Q x N nn-IoU matrix (self pairs -1); for small pools and tests."""
        parts = self.map_blocks(KeyedBlock.relevance, alpha, n)
        return np.vstack(parts) if parts else np.zeros((0, len(self.candidates)))

    def rank(self, alpha: float, n: int, k: int, threshold: float = 0.5, depth: int = 0,
             progress: Callable[[float], None] | None = None) -> tuple[PoolSummary, np.ndarray]:
        """One pass over the pool: the ideal top ``k`` summary and the top ``depth`` candidates per query.

        Candidates are ordered by nn-IoU(alpha, n) descending, ties by candidate position;
        rows are padded with -1 when the pool is smaller than ``depth``.
        """
        if k < 1:
            raise ParameterError(f"k must be >= 1, got {k}")

        def summarise(block: KeyedBlock):
            ordered = np.sort(block.keys, axis=1)
            width = min(k, ordered.shape[1])
            ideal = np.zeros((ordered.shape[0], k))
            ideal[:, :width] = np.maximum(block.values[ordered[:, ::-1][:, :width]], 0.0)
            lowest_relevant = np.searchsorted(block.values[1:], threshold) + 1
            relevant = ordered.shape[1] - _row_lower_bounds(ordered, lowest_relevant)
            top_width = min(depth, ordered.shape[1])
            kth = ordered[:, -top_width] if top_width else None
            return ideal, relevant, _top_given_kth(block.keys, kth, depth, floor=1)

        parts = self.map_blocks(summarise, alpha, n, progress)
        ideal = np.vstack([p[0] for p in parts]) if parts else np.zeros((0, k))
        relevant = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        indices = np.vstack([p[2] for p in parts]) if parts else np.zeros((0, depth), dtype=np.int64)
        pool_sizes = len(self.candidates) - (self.self_columns >= 0).astype(np.int64)
        return PoolSummary(ideal, relevant, pool_sizes), indices

    def pool_summary(self, alpha: float, n: int, k: int, threshold: float = 0.5,
                     progress: Callable[[float], None] | None = None) -> PoolSummary:
        """Best ``k`` values of nn-IoU(alpha, n) over each query's pool (IoU: alpha = 0 or n = 0)."""
        return self.rank(alpha, n, k, threshold, 0, progress)[0]

    def retrieve(self, alpha: float, n: int, depth: int,
                 progress: Callable[[float], None] | None = None) -> np.ndarray:
        """Top ``depth`` candidate indices per query by nn-IoU, ties broken by candidate position."""
        return self.rank(alpha, n, 1, 0.5, depth, progress)[1]

    def pair_counts(self, query_rows: np.ndarray, candidate_rows: np.ndarray, n: int | None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Counts for explicit (query, candidate) pairs, e.g. the items of a run."""
        left = self.query_matrix[query_rows]
        right = self.candidate_matrix[candidate_rows]
        intersection = np.asarray(left.multiply(right).sum(axis=1)).ravel()
        union = self.query_sizes[query_rows] + self.candidate_sizes[candidate_rows] - intersection
        approximate = np.zeros_like(intersection)
        if n is not None and n > 0 and self.kg is not None:
            approximate = np.asarray(self._near("query", n)[query_rows].multiply(right).sum(axis=1)).ravel() + \
                np.asarray(left.multiply(self._near("candidate", n)[candidate_rows]).sum(axis=1)).ravel()
        return intersection, union, approximate

    def relevance_of_pairs(self, query_rows: np.ndarray, candidate_rows: np.ndarray, alpha: float, n: int
                           ) -> np.ndarray:
        """nn-IoU(alpha, n) of explicit (query, candidate) pairs, e.g. the items of a run.

        Read from the cached codes when the whole pool has been coded for this n (after a
        pool summary or a ranking), otherwise counted from the sparse rows.
        """
        alpha = check_alpha(alpha)
        n = self.effective_hops(alpha, n)
        starts = [start for start, _ in self.blocks()]
        if starts and all((start, n) in self._code_cache for start in starts):
            query_rows, candidate_rows = np.asarray(query_rows), np.asarray(candidate_rows)
            order = np.argsort(query_rows, kind="stable")
            bounds = np.searchsorted(query_rows[order], starts + [self.size])
            codes = np.zeros(len(query_rows), dtype=np.int64)
            for start, low, high in zip(starts, bounds[:-1], bounds[1:]):
                chosen = order[low:high]
                codes[chosen] = self._code_cache[(start, n)][query_rows[chosen] - start, candidate_rows[chosen]]
            if self._use_lookup_table:
                table, values = self._lookup_table(alpha, n)
                return values[table[codes]]
            return self.layout.relevance(codes, alpha)
        intersection, union, approximate = self.pair_counts(query_rows, candidate_rows, n)
        return nn_iou_from_counts(intersection, approximate, union, alpha)


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
