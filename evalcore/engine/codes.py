"""The code algebra of the vectorised all-pairs engine (docs/DESIGN.md §6), for every measure of
:mod:`evalcore.relevance.measures`.

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
cached codes groups each row's pairs by code once (:class:`~evalcore.engine.kernels.CodeGroups`: each group's size
and its first ``depth + 1`` columns), and every later pass of the plan, under any alpha or
measure read from the same codes, ranks the groups instead of the pairs
(:func:`~evalcore.engine.kernels.summarise_groups`), with the same values and tie order.

Other measures extend the packing (a :class:`~evalcore.relevance.measures.CountPlan` names the digits):

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

from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp

from evalcore.relevance.formulas import CREDIT_SCALE
from evalcore.relevance.measures import CountPlan, MeasureSpec, PairCounts

LOOKUP_TABLE_LIMIT = 1 << 22


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

    >>> from evalcore.relevance.measures import measure_spec
    >>> codes_give(CountPlan(levels=(1,)), measure_spec("iou")), codes_give(CountPlan(), measure_spec("nn-iou"))
    (True, False)
    """
    own = measure.plan()
    return plan == own or (own == CountPlan() and len(plan.levels) == 1
                           and not (plan.split or plan.query_size or plan.credit_hops))


def values_of_codes(layout: CodeLayout, plan: CountPlan, measure: MeasureSpec, codes: np.ndarray) -> np.ndarray:
    """Relevance of each code under ``measure``; 0 for codes no pair can have."""
    counts, feasible = layout.counts(codes, plan)
    if plan != measure.plan():
        # Codes of a plan with a near-match digit, read for a measure without one (PairwiseEngine._plan_of):
        # the measure sees no near matches, as with codes of its own plan.
        counts = replace(counts, near=tuple(np.zeros_like(near) for near in counts.near))
    return np.where(feasible, measure.value(counts), 0.0)


def keys_for(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rank keys (1 = least relevant) of ``values`` and the value of each key; key 0 is -1, the query itself."""
    distinct, inverse = np.unique(values, return_inverse=True)
    dtype = np.uint16 if len(distinct) < np.iinfo(np.uint16).max else np.uint32
    return (inverse + 1).astype(dtype), np.concatenate([[-1.0], distinct])
