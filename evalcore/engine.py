"""The vectorised all-pairs engine (DESIGN §6).

Concept sets are rows of a sparse N x V matrix X. For a block of queries Q:

- intersections ``|A ∩ B| = X_Q X^T``;
- unions ``|A ∪ B| = |A| + |B| - |A ∩ B|``;
- approximate matches ``|N(A,B)| = G_Q X^T + X_Q G^T`` where ``G = [X M > 0] ∧ ¬X``
  marks, for each set, the concepts that neighbour one of its concepts without
  belonging to it (M is the V x V "within n hops" matrix of the KG).

Products are split by column: the few frequent concepts (CT, X-ray, MRI, ...) go
through a dense float32 GEMM, the long tail through a sparse product, so each block
costs little more than the number of its non-zero pairs. Intersections and unions
do not depend on alpha or n, approximate counts depend on n only, and alpha is
arithmetic on top: counts are cached per block and reused across settings.
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

DENSE_COLUMN_SHARE = 0.004
MAX_DENSE_COLUMNS = 192
DEFAULT_CACHE_BYTES = 2 << 30
WORKERS = max(1, min(2, os.cpu_count() or 1))


def concept_matrix(sets: tuple[frozenset[str], ...], vocabulary_index: dict[str, int]) -> sp.csr_matrix:
    """Binary N x V CSR matrix of concept sets over a vocabulary."""
    indptr = np.zeros(len(sets) + 1, dtype=np.int64)
    indptr[1:] = np.cumsum([len(s) for s in sets])
    indices = np.fromiter((vocabulary_index[c] for s in sets for c in sorted(s)), dtype=np.int32, count=int(indptr[-1]))
    return sp.csr_matrix((np.ones(len(indices), dtype=np.float32), indices, indptr),
                         shape=(len(sets), len(vocabulary_index)))


class _SplitOperand:
    """The right-hand operand B of ``A @ B.T``, split into dense frequent columns and a sparse tail."""

    def __init__(self, matrix: sp.csr_matrix):
        column_counts = np.asarray((matrix > 0).sum(axis=0)).ravel()
        threshold = max(2.0, DENSE_COLUMN_SHARE * matrix.shape[0])
        order = np.argsort(-column_counts, kind="stable")
        dense = order[: MAX_DENSE_COLUMNS][column_counts[order[:MAX_DENSE_COLUMNS]] >= threshold]
        self.dense_columns = np.sort(dense)
        sparse_mask = np.ones(matrix.shape[1], dtype=bool)
        sparse_mask[self.dense_columns] = False
        self.sparse_columns = np.flatnonzero(sparse_mask)
        self.dense_t = np.ascontiguousarray(matrix[:, self.dense_columns].toarray().T, dtype=np.float32)
        self.sparse_t = matrix[:, self.sparse_columns].T.tocsr()

    def product(self, left: sp.csr_matrix) -> np.ndarray:
        """Dense ``left @ B.T`` as float32 (exact for counts below 2**24)."""
        out = left[:, self.dense_columns].toarray() @ self.dense_t if len(self.dense_columns) else None
        if out is None:
            out = np.zeros((left.shape[0], self.dense_t.shape[1]), dtype=np.float32)
        tail = (left[:, self.sparse_columns] @ self.sparse_t).tocoo()
        if tail.nnz:
            out[tail.row, tail.col] += tail.data
        return out


@dataclass(frozen=True)
class BlockCounts:
    """Counts for queries ``start:stop`` against every candidate; ``self_columns`` is -1 where absent."""

    start: int
    stop: int
    intersection: np.ndarray
    union: np.ndarray
    approximate: np.ndarray | None
    self_columns: np.ndarray

    def relevance(self, alpha: float) -> np.ndarray:
        """nn-IoU (IoU when ``approximate`` is None or alpha = 0); self pairs get -1."""
        approximate = self.approximate if self.approximate is not None else 0
        values = nn_iou_from_counts(self.intersection, approximate, self.union, alpha)
        rows = np.flatnonzero(self.self_columns >= 0)
        values[rows, self.self_columns[rows]] = -1.0
        return values


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
                 cache_bytes: int = DEFAULT_CACHE_BYTES):
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
        self._candidate_operand = _SplitOperand(self.candidate_matrix)
        self.self_columns = np.array([self.candidates.index.get(i, -1) for i in queries.ids], dtype=np.int64)
        count_bytes = 3 * len(self.candidates)  # uint8 intersection, union and approximate per pair
        self.block_size = block_size or int(np.clip(32_000_000 // max(1, 8 * len(self.candidates)), 16, 2048))
        self._cacheable = count_bytes * len(queries) <= cache_bytes
        self._count_dtype = np.uint8 if int(self.query_sizes.max(initial=0) + self.candidate_sizes.max(initial=0)) < 256 \
            else np.uint16
        self._base_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._approx_cache: dict[tuple[int, int], np.ndarray] = {}
        self._neighbour_operands_cache: dict[int, tuple[sp.csr_matrix, _SplitOperand]] = {}
        self._candidate_near_cache: dict[int, sp.csr_matrix] = {}

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

    def _near_not_in(self, matrix: sp.csr_matrix, neighbours: sp.csr_matrix) -> sp.csr_matrix:
        """G = [X M > 0] ∧ ¬X: concepts neighbouring a set without belonging to it."""
        near = ((matrix @ neighbours.astype(np.float32)) > 0).astype(np.float32)
        return (near - near.multiply(matrix)).tocsr()

    def _neighbour_operands(self, n: int) -> tuple[sp.csr_matrix, _SplitOperand]:
        if n not in self._neighbour_operands_cache:
            neighbours = self.neighbour_matrix(n)
            query_near = self._near_not_in(self.query_matrix, neighbours)
            self._neighbour_operands_cache[n] = (query_near, _SplitOperand(self._candidate_near(n)))
        return self._neighbour_operands_cache[n]

    def counts(self, start: int, stop: int, n: int | None) -> BlockCounts:
        """Intersection, union and (for n given) approximate-match counts of a query block."""
        base = self._base_cache.get(start)
        if base is None:
            intersection = self._candidate_operand.product(self.query_matrix[start:stop])
            union = self.query_sizes[start:stop, None] + self.candidate_sizes[None, :] - intersection
            base = (intersection.astype(self._count_dtype), union.astype(self._count_dtype))
            if self._cacheable:
                self._base_cache[start] = base
        approximate = None
        if n is not None and n > 0 and self.kg is not None:
            approximate = self._approx_cache.get((start, n))
            if approximate is None:
                query_near, candidate_near = self._neighbour_operands(n)
                near_query = self._candidate_operand.product(query_near[start:stop])
                near_candidate = candidate_near.product(self.query_matrix[start:stop])
                approximate = (near_query + near_candidate).astype(self._count_dtype)
                if self._cacheable:
                    self._approx_cache[(start, n)] = approximate
        return BlockCounts(start, stop, base[0], base[1], approximate, self.self_columns[start:stop])

    def map_blocks(self, function: Callable[[BlockCounts], object], n: int | None,
                   progress: Callable[[float], None] | None = None) -> list:
        """Apply ``function`` to every block's counts, two blocks at a time; results in block order."""
        blocks = list(self.blocks())
        results: list = [None] * len(blocks)

        def work(position: int):
            start, stop = blocks[position]
            return position, function(self.counts(start, stop, n))

        with ThreadPoolExecutor(WORKERS) as pool:
            for done, (position, result) in enumerate(pool.map(work, range(len(blocks))), start=1):
                results[position] = result
                if progress is not None:
                    progress(done / len(blocks))
        return results

    def pool_summary(self, alpha: float, n: int, k: int, threshold: float = 0.5,
                     progress: Callable[[float], None] | None = None) -> PoolSummary:
        """Best ``k`` values of nn-IoU(alpha, n) over each query's pool (IoU: alpha = 0 or n = 0)."""
        alpha = check_alpha(alpha)
        if k < 1:
            raise ParameterError(f"k must be >= 1, got {k}")
        use_n = n if alpha > 0 else None

        def summarise(block: BlockCounts):
            values = block.relevance(alpha)
            width = min(k, values.shape[1])
            top = -np.partition(-values, width - 1, axis=1)[:, :width]
            top.sort(axis=1)
            top = np.maximum(top[:, ::-1], 0.0)
            padded = np.zeros((values.shape[0], k))
            padded[:, :width] = top
            return padded, (values >= threshold).sum(axis=1)

        parts = self.map_blocks(summarise, use_n, progress)
        ideal = np.vstack([p[0] for p in parts]) if parts else np.zeros((0, k))
        counts = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        pool_sizes = len(self.candidates) - (self.self_columns >= 0).astype(np.int64)
        return PoolSummary(ideal, counts, pool_sizes)

    def retrieve(self, alpha: float, n: int, depth: int,
                 progress: Callable[[float], None] | None = None) -> np.ndarray:
        """Top ``depth`` candidate indices per query by nn-IoU, ties broken by candidate position.

        Rows are padded with -1 when the pool is smaller than ``depth``.
        """
        alpha = check_alpha(alpha)
        use_n = n if alpha > 0 else None
        return np.vstack(self.map_blocks(lambda block: top_indices(block.relevance(alpha), depth), use_n, progress))

    def pair_counts(self, query_rows: np.ndarray, candidate_rows: np.ndarray, n: int | None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Counts for explicit (query, candidate) pairs, e.g. the items of a run."""
        left = self.query_matrix[query_rows]
        right = self.candidate_matrix[candidate_rows]
        intersection = np.asarray(left.multiply(right).sum(axis=1)).ravel()
        union = self.query_sizes[query_rows] + self.candidate_sizes[candidate_rows] - intersection
        approximate = np.zeros_like(intersection)
        if n is not None and n > 0 and self.kg is not None:
            query_near, _ = self._neighbour_operands(n)
            candidate_near = self._candidate_near(n)
            approximate = np.asarray(query_near[query_rows].multiply(right).sum(axis=1)).ravel() + np.asarray(
                left.multiply(candidate_near[candidate_rows]).sum(axis=1)).ravel()
        return intersection, union, approximate

    def _candidate_near(self, n: int) -> sp.csr_matrix:
        if n not in self._candidate_near_cache:
            self._candidate_near_cache[n] = self._near_not_in(self.candidate_matrix, self.neighbour_matrix(n))
        return self._candidate_near_cache[n]


def top_indices(values: np.ndarray, depth: int) -> np.ndarray:
    """Column indices of the ``depth`` largest values per row, by (value desc, column asc).

    Entries below 0 (the query itself) are never returned; rows are padded with -1.

    >>> top_indices(np.array([[0.5, 1.0, 0.5, -1.0, 0.5]]), 3)
    array([[1, 0, 2]])
    """
    rows, columns = values.shape
    width = min(depth, columns)
    result = np.full((rows, depth), -1, dtype=np.int64)
    if width == 0 or rows == 0:
        return result
    kth = -np.partition(-values, width - 1, axis=1)[:, width - 1]
    above = values > kth[:, None]
    ties = values == kth[:, None]
    needed = width - above.sum(axis=1)
    chosen = above | (ties & (np.cumsum(ties, axis=1) <= needed[:, None]))
    chosen &= values >= 0
    row_ids, col_ids = np.nonzero(chosen)
    chosen_values = values[row_ids, col_ids]
    order = np.lexsort((col_ids, -chosen_values, row_ids))
    row_ids, col_ids = row_ids[order], col_ids[order]
    starts = np.searchsorted(row_ids, np.arange(rows))
    positions = np.arange(len(row_ids)) - starts[row_ids]
    result[row_ids, positions] = col_ids
    return result
