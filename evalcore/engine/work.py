"""The engine's pass objects: what a ranking pass hands to where it runs.

:class:`BlockWork` (the candidate side, :class:`CandidateSide`, and every query's left operand) is what the
executors of :mod:`evalcore.engine.executors` receive, once per worker; :class:`ArrayPass` is what an array backend
(:mod:`evalcore.engine.array_backend`) receives; both return, or build, a :class:`PoolSummary`. They hold arrays and
the engine's pure functions only, never the engine, so that they pickle and a backend reads no engine state.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from evalcore.engine.codes import CodeLayout, keys_for, values_of_codes
from evalcore.engine.kernels import KeyedBlock, mark_self, summarise_block
from evalcore.relevance.measures import CountPlan, MeasureSpec

DENSE_PAIR_SHARE = 0.002
MAX_DENSE_COLUMNS = 256


class SplitOperand:
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
class PoolSummary:
    """Per query: the best ``k`` relevance values of the pool (descending) and how many reach a threshold."""

    ideal: np.ndarray  # Q x k, padded with 0
    relevant_counts: np.ndarray  # Q
    pool_sizes: np.ndarray  # Q

@dataclass(frozen=True)
class CandidateSide:
    """The candidate side of one measure: the product's right operand and the map from codes to keys.

    Picklable, so that a worker process receives it once and then ranks any block of query rows.
    ``lookup`` is the (table, values) pair of measures whose codes fit a look-up table, else None
    (each block's distinct codes are then hashed).
    """

    operand: SplitOperand
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
        distinct_keys, values = keys_for(values_of_codes(self.layout, self.plan, self.measure, np.asarray(distinct)))
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
        mark_self(keys, self.self_columns[start:stop])
        return summarise_block(KeyedBlock(start, stop, keys, values), k, threshold, depth)

    @property
    def pool_size(self) -> int:
        return self.side.operand.dense_t.shape[1]

    def nbytes(self) -> int:
        left = self.left
        return self.side.nbytes() + left.data.nbytes + left.indices.nbytes + left.indptr.nbytes + self.self_columns.nbytes


@dataclass(frozen=True)
class ArrayPass:
    """A ranking pass as an array backend receives it (:mod:`evalcore.engine.array_backend`): the plan's digits and the
    0/1 factors of its counts, from which the backend computes each pair's code itself, each query's own column in
    the pool (-1 if none) and the look-up table from codes to keys (None where codes are hashed).

    ``near[level]`` holds the level's (query side, candidate side) near-match matrices ``G`` (see
    :mod:`evalcore.engine.codes`), None for a level of 0 hops.
    """

    plan: CountPlan
    layout: CodeLayout
    query_matrix: sp.csr_matrix
    candidate_matrix: sp.csr_matrix
    query_sizes: np.ndarray
    candidate_sizes: np.ndarray
    self_columns: np.ndarray
    near: tuple[tuple[sp.csr_matrix, sp.csr_matrix] | None, ...]
    table: tuple[np.ndarray, np.ndarray] | None

    @property
    def queries(self) -> int:
        return self.query_matrix.shape[0]

    @property
    def candidates(self) -> int:
        return self.candidate_matrix.shape[0]
