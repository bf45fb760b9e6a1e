"""The pairwise engine: operands, caches, memory planning and dispatch of its passes (docs/DESIGN.md §6).

:class:`PairwiseEngine` builds the operands of the code product (:mod:`evalcore.engine.codes`), keeps codes,
code groups and look-up tables in a byte-bounded cache, plans blocks within a memory budget, and runs each
ranking pass in its own threads (:mod:`evalcore.engine.kernels`), on an executor (:mod:`evalcore.engine.executors`,
which receives a :class:`~evalcore.engine.work.BlockWork`) or on an array backend (:mod:`evalcore.engine.array_backend`,
which receives an :class:`~evalcore.engine.work.ArrayPass`).
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar

import numpy as np
import scipy.sparse as sp

from evalcore.data import ConceptSets
from evalcore.engine.array_backend import PassReport
from evalcore.engine.codes import LOOKUP_TABLE_LIMIT, CodeLayout, Coding, codes_give, concept_matrix, keys_for, values_of_codes
from evalcore.engine.compute import Compute
from evalcore.engine.kernels import CodeGroups, KeyedBlock, mark_self, row_max_product, summarise_block, summarise_groups
from evalcore.engine.work import ArrayPass, BlockWork, CandidateSide, PoolSummary, SplitOperand
from evalcore.errors import ParameterError
from evalcore.kept import Kept
from evalcore.relevance.kg import KnowledgeGraph, check_hops_and_mode
from evalcore.relevance.measures import CountPlan, MeasureSpec, PairCounts
from evalcore.threads import blas_single_thread

FLOAT32_EXACT = 1 << 24
DEFAULT_CACHE_BYTES = 2 << 30
#: Listed pairs are read from the codes of the whole pool, coded first where it is not, once they number at least
#: 1/128 of the pool's pairs (and its codes fit the cache): coding the pool costs about 1/170 of counting as many
#: pairs from the sparse rows (ROCOv2 test, nn-IoU: 0.19 s for its 98.5 M pairs against 0.32 s per million pairs).
PAIRS_WORTH_CODING_THE_POOL = 128
#: Bytes of the code cache that plans coded for later (:meth:`PairwiseEngine.coding_for_later`) may hold.
LATER_CODE_BYTES = 512 << 20
#: Bytes of measures' look-up tables an engine keeps (a table of the largest layout is about 64 MiB).
TABLE_CACHE_BYTES = 256 << 20

T = TypeVar("T")


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
    operands: tuple[sp.csr_matrix, SplitOperand] | None = field(default=None, repr=False)


@dataclass(frozen=True)
class CachedPlan:
    """What an engine's code cache holds of one count plan (:meth:`PairwiseEngine.cached_plans`): the bytes of its
    codes (reserved for the whole pool) and of its code groups, whether every block is coded, whether its passes
    rank code groups (False once groups did not fit beside the codes), the columns each block's groups reach (a
    pass to a depth below it ranks them; none kept: empty), and whether it was coded for later
    (:meth:`PairwiseEngine.coding_for_later`)."""

    code_bytes: int
    group_bytes: int
    coded: bool
    groupable: bool
    group_reach: tuple[int, ...]
    for_later: bool


class PairwiseEngine:
    """All-pairs relevance between query concept sets and a candidate pool, block by block.

    Every measure of :mod:`evalcore.relevance.measures` goes through the public methods as a
    :class:`~evalcore.relevance.measures.MeasureSpec` (text is parsed at the doors); :meth:`resolve` reduces it where
    its values allow (:meth:`MeasureSpec.effective`: nn-IoU at alpha = 0 or n = 0, or without a KG, is IoU), once per
    call: the private methods take the resolved spec.

    Its public surface: the passes over the pool (:meth:`rank_by`, :meth:`pool_summary_by`, :meth:`retrieve_by`,
    :meth:`group_codes_by`) and the order to make several in (:meth:`pass_order`), relevance of pairs
    (:meth:`relevance_by`, :meth:`relevance_of_pairs_by`, :meth:`pair_codes`, :meth:`values_of_pair_codes`,
    :meth:`counts_of_pairs`), the codes themselves (:meth:`coding`, :meth:`coded_blocks`) and :meth:`resolve`.

    ``compute`` (:class:`~evalcore.engine.compute.Compute`, validated when built) says where and how the passes
    run: in this process with ``threads`` blocks at once (each with one BLAS thread), on an executor (local
    processes, a Dask cluster) planning blocks within ``memory_per_worker``, or on an array backend:
    ``backend="jax"`` (``device="cpu"`` or ``"gpu"``, ``device_memory`` bytes to plan blocks with) runs the ranking
    passes of :meth:`rank_by` (pool summaries, retrieval) as fixed-shape XLA programs with the same values and
    indices; :attr:`last_pass` tells which backend ran the last one. ``group_codes``: passes over cached codes rank
    each row's code groups (:class:`~evalcore.engine.kernels.CodeGroups`); False ranks the pairs every time (the
    same values, for benchmarks that time the plain path).

    ``block_size``, ``cache_bytes`` and ``lookup_table_limit`` are tuning knobs for tests and benchmarks; so is the
    attribute :attr:`memory_per_worker`, which a test may lower below Compute's 16 MiB floor to force small blocks.
    """

    def __init__(self, queries: ConceptSets, candidates: ConceptSets | None = None,
                 kg: KnowledgeGraph | None = None, mode: str = "undirected", block_size: int | None = None,
                 cache_bytes: int = DEFAULT_CACHE_BYTES, lookup_table_limit: int = LOOKUP_TABLE_LIMIT,
                 compute: Compute | None = None):
        check_hops_and_mode(0, mode)  # the KG mode arrives loose; a spec's n was checked when the spec was built
        compute = compute if compute is not None else Compute()
        self.compute = compute
        self.memory_per_worker = compute.memory_per_worker
        # An array backend (evalcore/engine/array_backend.py) runs whole ranking passes; None: this engine does.
        self.array_backend = compute.array_backend()
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
        self.executor = compute.block_executor()
        self.group_codes = compute.group_codes
        self.threads = compute.threads
        self.lookup_table_limit = lookup_table_limit
        self._plans: dict[CountPlan, _PlanState] = {}
        self._code_cache: OrderedDict[CountPlan, dict[int, np.ndarray]] = OrderedDict()
        self._later_plans: OrderedDict[CountPlan, None] = OrderedDict()  # in _code_cache, coded for later, oldest first
        self._for_later = threading.local()  # whether this thread's passes code for later (coding_for_later)
        self._group_cache: dict[CountPlan, dict[int, CodeGroups]] = {}  # plans in _code_cache only
        self._lock = threading.Lock()
        self._near_cache: dict[tuple[str, int], sp.csr_matrix] = {}
        self._credit_cache: dict[tuple[str, int], sp.csr_matrix] = {}
        self._credit_weights: dict[int, sp.csr_matrix] = {}
        # Every alpha a slider visits is a measure of its own: the tables are bounded by their bytes.
        self._table_cache = Kept(TABLE_CACHE_BYTES)

    @property
    def _size(self) -> int:
        return len(self.queries)

    def _blocks(self, block_size: int | None = None) -> Iterator[tuple[int, int]]:
        step = block_size or self.block_size
        for start in range(0, self._size, step):
            yield start, min(start + step, self._size)

    def _rows_within_budget(self, work: BlockWork) -> int:
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

    def _neighbour_matrix(self, n: int) -> sp.csr_matrix:
        if self.kg is None or n == 0:
            return sp.csr_matrix((len(self.vocabulary), len(self.vocabulary)), dtype=np.int8)
        return self.kg.neighbour_matrix(self.vocabulary, n, self.mode)

    def resolve(self, measure: MeasureSpec) -> MeasureSpec:
        """The measure as this engine computes it (:meth:`MeasureSpec.effective`, e.g. IoU without a KG); the spec was
        validated when it was built, so only its type is checked here (a string is parsed at the doors)."""
        if not isinstance(measure, MeasureSpec):
            raise ParameterError(f"the engine takes a MeasureSpec (measure_spec or parse_measure at the door), got "
                                 f"{measure!r}")
        return measure.effective(self.kg is not None)

    # --- the operands of the product ------------------------------------------------------

    def _near(self, side: str, n: int) -> sp.csr_matrix:
        """G = [X M > 0] ∧ ¬X: concepts neighbouring a set without belonging to it."""
        if (side, n) not in self._near_cache:
            matrix = self.query_matrix if side == "query" else self.candidate_matrix
            near = ((matrix @ self._neighbour_matrix(n).astype(np.float32)) > 0).astype(np.float32)
            self._near_cache[(side, n)] = (near - near.multiply(matrix)).tocsr()
        return self._near_cache[(side, n)]

    def _credit_matrix(self, n: int) -> sp.csr_matrix:
        """V x V Wu-Palmer credit units of the vocabulary's concept pairs within n hops (nn-IoU-depth)."""
        from evalcore.relevance.taxonomy import credit_matrix, credit_sets

        return credit_matrix(credit_sets(self.kg, self.vocabulary, n, self.mode), self.vocabulary)

    def _credit(self, side: str, n: int) -> sp.csr_matrix:
        """S: per image and concept outside it, the best credit units of a partner inside it (float64)."""
        if (side, n) not in self._credit_cache:
            if n not in self._credit_weights:
                self._credit_weights[n] = self._credit_matrix(n)
            matrix = self.query_matrix if side == "query" else self.candidate_matrix
            best = row_max_product(matrix, self._credit_weights[n])
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
                                           self.group_codes and cacheable and len(self.candidates) > 0)
        return self._plans[plan]

    def _operands(self, state: _PlanState) -> tuple[sp.csr_matrix, SplitOperand]:
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
            ones_q = sp.csr_matrix(np.ones((self._size, 1), dtype=dtype))
            ones_c = sp.csr_matrix(np.ones((len(self.candidates), 1), dtype=dtype))
            sizes_q = sp.csr_matrix(self.query_sizes[:, None].astype(dtype))
            sizes_c = sp.csr_matrix(self.candidate_sizes[:, None].astype(dtype) * union)
            size_weight = union + stride.get("query_size", 0)
            left_matrix = sp.hstack([*left, ones_q, sizes_q]).tocsr()
            right_matrix = sp.hstack([first, *right, sizes_c, size_weight * ones_c]).tocsr()
            left_matrix.eliminate_zeros()
            right_matrix.eliminate_zeros()
            state.operands = (left_matrix, SplitOperand(left_matrix, right_matrix, dtype))
        return state.operands

    # --- codes, keys and blocks -----------------------------------------------------------

    def cached_plans(self) -> dict[CountPlan, CachedPlan]:
        """What the code cache holds, plan by plan, least recently used first: a read-only report (the results are
        the same whatever it holds; it tells which path a pass took and that the cache keeps within its bytes).

        >>> from evalcore.relevance.measures import measure_spec
        >>> engine = PairwiseEngine(ConceptSets(("a", "b"), (frozenset({"C1"}), frozenset({"C1", "C2"}))))
        >>> _ = engine.rank_by(measure_spec("iou"), 1)
        >>> [(plan == measure_spec("iou").plan(), kept.code_bytes, kept.coded) for plan, kept in
        ...  engine.cached_plans().items()]
        [(True, 8, True)]
        """
        with self._lock:
            return {plan: CachedPlan(
                code_bytes=self._cached_bytes(plan) - sum(g.nbytes for g in self._group_cache.get(plan, {}).values()),
                group_bytes=sum(g.nbytes for g in self._group_cache.get(plan, {}).values()),
                coded=all(start in blocks for start, _ in self._blocks()), groupable=self._plans[plan].groupable,
                group_reach=tuple(g.reach for _, g in sorted(self._group_cache.get(plan, {}).items())),
                for_later=plan in self._later_plans) for plan, blocks in self._code_cache.items()}

    @contextlib.contextmanager
    def coding_for_later(self) -> Iterator[None]:
        """Within this block, this thread's passes code the pool for work a user may want later (another page's,
        prepared in the background): a plan they code is kept only within :data:`LATER_CODE_BYTES`, in room made
        by dropping other such plans only, and is the first dropped when a pass outside the block needs room; a
        plan already kept is used without becoming the most recently used. The plans of the settings on screen
        stay kept, so the next slider step reads their codes. The values are the same either way.

        >>> from evalcore.relevance.measures import measure_spec
        >>> engine = PairwiseEngine(ConceptSets(("a", "b"), (frozenset({"C1"}), frozenset({"C1", "C2"}))))
        >>> with engine.coding_for_later():
        ...     _ = engine.rank_by(measure_spec("dice"), 1)
        >>> [kept.for_later for kept in engine.cached_plans().values()]
        [True]
        >>> _ = engine.rank_by(measure_spec("dice"), 1)  # used for the settings on screen: kept as theirs
        >>> [kept.for_later for kept in engine.cached_plans().values()]
        [False]
        """
        before = getattr(self._for_later, "active", False)
        self._for_later.active = True
        try:
            yield
        finally:
            self._for_later.active = before

    def _reserve(self, state: _PlanState) -> None:
        """Make room in the code cache for a plan, dropping the least recently used plans (for a pass coding for
        later: only plans coded for later, within their bytes; none kept where they do not make room)."""
        if not state.cacheable:
            return
        later = getattr(self._for_later, "active", False)
        with self._lock:
            if state.plan in self._code_cache:
                if not later:
                    self._code_cache.move_to_end(state.plan)
                    self._later_plans.pop(state.plan, None)  # used for the settings on screen: kept as theirs
                return
            needed = self._cached_bytes(state.plan)
            if not later:
                self._make_room(needed, keep=None)
                self._code_cache[state.plan] = {}
                return
            if not self._make_room(needed, keep=None, among=self._later_plans, limit=LATER_CODE_BYTES):
                return
            self._code_cache[state.plan] = {}
            self._code_cache.move_to_end(state.plan, last=False)  # the first dropped when others need room
            self._later_plans[state.plan] = None

    def _coded(self, state: _PlanState) -> bool:
        """Whether every block's codes of the plan are cached."""
        coded = self._code_cache.get(state.plan, {})
        return all(start in coded for start, _ in self._blocks())

    def _cached_bytes(self, plan: CountPlan) -> int:
        """What a plan holds in the code cache: its codes (all blocks, reserved up front) and the groups made so far."""
        codes = np.dtype(self._plans[plan].code_dtype).itemsize * len(self.queries) * len(self.candidates)
        return codes + sum(groups.nbytes for groups in self._group_cache.get(plan, {}).values())

    def _make_room(self, needed: int, keep: CountPlan | None, among: Iterable[CountPlan] | None = None,
                   limit: int | None = None) -> bool:
        """Drop the least recently used plans other than ``keep`` (only those of ``among`` where given) until
        ``needed`` more bytes fit the cache, and ``among``'s plans with them within ``limit`` (with the lock held);
        False if they do not fit even then."""
        def used(plans: Iterable[CountPlan]) -> int:
            return sum(self._cached_bytes(plan) for plan in plans)

        while used(self._code_cache) + needed > self.cache_bytes or (
                limit is not None and used(among or ()) + needed > limit):
            oldest = next((plan for plan in (self._code_cache if among is None else among) if plan != keep), None)
            if oldest is None:
                return False
            del self._code_cache[oldest]
            self._group_cache.pop(oldest, None)
            self._later_plans.pop(oldest, None)
        return True

    def _groups(self, state: _PlanState, start: int, stop: int, depth: int) -> CodeGroups:
        """The code groups of queries ``start:stop`` (a groupable plan) for a top ``depth``, cached with the codes;
        made again, from the cached codes, when a deeper top is asked for."""
        cached = self._group_cache.get(state.plan)
        if cached is not None and start in cached and cached[start].reach > depth:
            return cached[start]
        groups = CodeGroups.of(self._codes(state, start, stop), self.self_columns[start:stop], depth + 1)
        with self._lock:
            if state.plan in self._code_cache and state.plan not in self._later_plans:
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

    def coded_blocks(self, measure: MeasureSpec) -> Iterator[tuple[KeyedBlock, np.ndarray]]:
        """Block by block, the relevance keys of queries ``start:stop`` under ``measure`` and their packed codes under
        its own plan (their digits: :meth:`coding`), for a caller that reads the counts behind the values."""
        measure = self.resolve(measure)
        state = self._state(measure.plan())
        side = self._candidate_side(state, measure)
        for start, stop in self._blocks():
            codes = self._codes(state, start, stop)
            keys, values = side.keys_of_codes(codes)
            mark_self(keys, self.self_columns[start:stop])
            yield KeyedBlock(start, stop, keys, values), codes

    def coding(self, measure: MeasureSpec) -> Coding:
        """How the engine codes ``measure``'s own plan: the digits, the codes' dtype, a look-up table or hashing."""
        state = self._state(self.resolve(measure).plan())
        return Coding(state.layout, state.code_dtype, state.lookup)

    def _table(self, state: _PlanState, measure: MeasureSpec) -> tuple[np.ndarray, np.ndarray]:
        return self._table_cache.computed((state.plan, measure.name), lambda _: keys_for(
            values_of_codes(state.layout, state.plan, measure, np.arange(state.layout.size))))

    @staticmethod
    def pass_order(measures: Iterable[T], spec: Callable[[T], MeasureSpec] | None = None) -> list[T]:
        """The order in which to make passes (or read pairs' codes) under several measures: those whose plan's codes
        give the values of another one of them (:func:`codes_give`: nn-IoU's give IoU's and Dice's) first, the
        others after, each group in the order given. A pass under IoU after one under nn-IoU then reads nn-IoU's
        cached codes (:meth:`_plan_of`) instead of coding the pool again; the values are the same in any order.

        ``measures``: the measures as this engine computes them (:meth:`resolve`), or items whose measure
        ``spec(item)`` gives; the items come back, reordered. A static method: it reads the measures only, so a caller
        may order its steps before the engine is built.

        >>> from evalcore.relevance.measures import measure_spec
        >>> order = PairwiseEngine.pass_order([measure_spec("iou"), measure_spec("nn-iou"), measure_spec("dice")])
        >>> [m.key for m in order]
        ['nn-iou', 'iou', 'dice']
        >>> PairwiseEngine.pass_order([("b", measure_spec("iou")), ("a", measure_spec("nn-iou"))], lambda i: i[1])[0][0]
        'a'
        """
        items = list(measures)
        specs = [item if spec is None else spec(item) for item in items]
        plans = {measure.plan() for measure in specs}
        served = [any(plan != measure.plan() and codes_give(plan, measure) for plan in plans) for measure in specs]
        return [items[i] for i in sorted(range(len(items)), key=served.__getitem__)]

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

    def _array_pass(self, measure: MeasureSpec) -> ArrayPass:
        """What an array backend needs to rank the pool under ``measure`` (resolved; its own plan): the factors of the
        plan's counts, its digits and the look-up table from codes to keys."""
        state = self._state(measure.plan())
        near = tuple(None if hops == 0 else (self._near("query", hops), self._near("candidate", hops))
                     for hops in state.plan.levels)
        table = self._table(state, measure) if state.lookup else None
        return ArrayPass(state.plan, state.layout, self.query_matrix, self.candidate_matrix, self.query_sizes,
                         self.candidate_sizes, self.self_columns, near, table)

    def _keyed_by(self, measure: MeasureSpec, start: int, stop: int) -> KeyedBlock:
        """Relevance keys of queries ``start:stop`` under ``measure`` (resolved)."""
        state = self._state(self._plan_of(measure))
        keys, values = self._candidate_side(state, measure).keys_of_codes(self._codes(state, start, stop))
        mark_self(keys, self.self_columns[start:stop])
        return KeyedBlock(start, stop, keys, values)

    def _candidate_side(self, state: _PlanState, measure: MeasureSpec) -> CandidateSide:
        """What turns a block of query rows into keys, apart from the rows themselves."""
        _, operand = self._operands(state)
        lookup = self._table(state, measure) if state.lookup else None
        return CandidateSide(operand, state.code_dtype, lookup, state.layout, state.plan, measure)

    def _block_work(self, measure: MeasureSpec) -> BlockWork:
        """Everything a worker needs to rank any block of queries under ``measure`` (resolved), sent to it once."""
        state = self._state(measure.plan())
        left, _ = self._operands(state)
        return BlockWork(self._candidate_side(state, measure), left, self.self_columns)

    def _map_blocks_by(self, function: Callable[[KeyedBlock], object], measure: MeasureSpec,
                       progress: Callable[[float], None] | None = None) -> list:
        """Apply ``function`` to every block's keys under ``measure`` (resolved), two blocks at a time, in order."""
        return self._map_ranges(lambda start, stop: function(self._keyed_by(measure, start, stop)), measure, progress)

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
                distinct_keys, values = keys_for(values_of_codes(state.layout, state.plan, measure, distinct))
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
        blocks = list(self._blocks())
        results: list = [None] * len(blocks)

        later = getattr(self._for_later, "active", False)

        def work(position: int):
            self._for_later.active = later  # the block threads code as the thread that asked for the pass
            return position, function(*blocks[position])

        # One BLAS thread per block: the product is a thin GEMM, and BLAS threads on top of the block threads
        # only contend (on 2 cores, 2 BLAS threads made the product 5x slower). With every block's codes
        # cached there is no product, and setting the limit (some ms) is left out.
        limit = contextlib.nullcontext() if self._coded(state) else blas_single_thread()
        with limit, ThreadPoolExecutor(self.threads) as pool:
            for done, (position, result) in enumerate(pool.map(work, range(len(blocks))), start=1):
                results[position] = result
                if progress is not None:
                    progress(done / len(blocks))
        return results

    # --- results --------------------------------------------------------------------------

    def relevance_by(self, measure: MeasureSpec) -> np.ndarray:
        """The full Q x N relevance matrix under ``measure`` (self pairs -1); for small pools and tests."""
        parts = self._map_blocks_by(KeyedBlock.relevance, self.resolve(measure))
        return np.vstack(parts) if parts else np.zeros((0, len(self.candidates)))

    def rank_by(self, measure: MeasureSpec, k: int, threshold: float = 0.5, depth: int = 0,
                progress: Callable[[float], None] | None = None) -> tuple[PoolSummary, np.ndarray]:
        """One pass over the pool: the ideal top ``k`` summary and the top ``depth`` candidates per query.

        Candidates are ordered by ``measure`` descending, ties by candidate position; rows are
        padded with -1 when the pool is smaller than ``depth``.
        """
        if k < 1:
            raise ParameterError(f"k must be >= 1, got {k}")
        measure = self.resolve(measure)
        if self.array_backend is not None:
            work = self._array_pass(measure)
            reason = self.array_backend.unsupported(work, k, depth)
            if not reason:
                self.last_pass = PassReport(self.array_backend.name, self.array_backend.device_name)
                return self.array_backend.rank(work, k, threshold, depth, progress)
            self.last_pass = PassReport("numpy", "cpu", reason)
        else:
            self.last_pass = PassReport("numpy", "cpu")
        if self.executor is not None:
            work = self._block_work(measure)
            blocks = list(self._blocks(self._rows_within_budget(work)))
            parts = self.executor.rank(work, blocks, k, threshold, depth, progress)
        elif (state := self._state(self._plan_of(measure))).groupable and self._coded(state):
            # A later pass over cached codes: rank code groups. Not the pass that codes the pool: grouping costs
            # a little more than ranking the pairs, which a single pass (a first draw, a new n) would pay for nothing.
            parts = self._rank_groups(state, measure, k, threshold, depth, progress)
        else:
            parts = self._map_blocks_by(partial(summarise_block, k=k, threshold=threshold, depth=depth), measure, progress)
        ideal = np.vstack([p[0] for p in parts]) if parts else np.zeros((0, k))
        relevant = np.concatenate([p[1] for p in parts]) if parts else np.zeros(0, dtype=np.int64)
        indices = np.vstack([p[2] for p in parts]) if parts else np.zeros((0, depth), dtype=np.int64)
        pool_sizes = len(self.candidates) - (self.self_columns >= 0).astype(np.int64)
        return PoolSummary(ideal, relevant, pool_sizes), indices

    def group_codes_by(self, measure: MeasureSpec, depth: int,
                       progress: Callable[[float], None] | None = None) -> bool:
        """Code the pool under ``measure``'s plan and group the codes for tops up to ``depth``, in one pass, so that
        every pass under the plan that follows (any alpha) ranks code groups. :meth:`rank_by` groups only from the
        second pass over cached codes (a single pass would pay for grouping for nothing), so a caller about to make
        several (the ablation's alphas) would otherwise pay for a pass over the pairs, then for grouping. False,
        doing nothing, where passes do not rank code groups: on an executor or an array backend, or for a plan
        whose codes or groups do not fit the cache."""
        measure = self.resolve(measure)
        if self.array_backend is not None or self.executor is not None:
            return False
        state = self._state(self._plan_of(measure))
        if not state.groupable:
            return False
        self._map_ranges(lambda start, stop: self._groups(state, start, stop, depth) and None, measure, progress)
        return state.groupable and self._coded(state)

    def pool_summary_by(self, measure: MeasureSpec, k: int, threshold: float = 0.5,
                        progress: Callable[[float], None] | None = None) -> PoolSummary:
        """Best ``k`` values of ``measure`` over each query's pool."""
        return self.rank_by(measure, k, threshold, 0, progress)[0]

    def retrieve_by(self, measure: MeasureSpec, depth: int,
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

    def relevance_of_pairs_by(self, measure: MeasureSpec, query_rows: np.ndarray,
                              candidate_rows: np.ndarray) -> np.ndarray:
        """Relevance of explicit (query, candidate) pairs under ``measure``, e.g. the items of a run.

        Read from the cached codes when the whole pool has been coded for the measure's plan
        (after a pool summary or a ranking), otherwise counted from the sparse rows.
        """
        measure = self.resolve(measure)
        found = self._pair_codes(measure, query_rows, candidate_rows)
        if found is not None:
            return self._values_of_pair_codes(measure, *found)
        state = self._state(measure.plan())
        return np.asarray(measure.value(self.counts_of_pairs(state.plan, query_rows, candidate_rows)), dtype=np.float64)

    def pair_codes(self, measure: MeasureSpec, query_rows: np.ndarray, candidate_rows: np.ndarray
                   ) -> tuple[CountPlan, np.ndarray] | None:
        """The plan whose codes give ``measure``'s values (:meth:`_plan_of`) and the codes of explicit (query,
        candidate) pairs under it, read from the cached codes of the whole pool, which are made first where the pairs
        are at least 1/:data:`PAIRS_WORTH_CODING_THE_POOL` of the pool's; None where the pool is not coded for that
        plan and the pairs are fewer, or its codes do not fit the cache. A caller scoring the same pairs under several
        alphas keeps the codes and only looks the values up again (:meth:`values_of_pair_codes`)."""
        return self._pair_codes(self.resolve(measure), query_rows, candidate_rows)

    def _pair_codes(self, measure: MeasureSpec, query_rows: np.ndarray, candidate_rows: np.ndarray
                    ) -> tuple[CountPlan, np.ndarray] | None:
        """:meth:`pair_codes` of a resolved measure."""
        state = self._state(self._plan_of(measure))
        blocks = list(self._blocks())
        starts = [start for start, _ in blocks]
        query_rows, candidate_rows = np.asarray(query_rows), np.asarray(candidate_rows)
        pool_pairs = len(self.queries) * len(self.candidates)
        if not starts or not (self._coded(state) or (
                state.cacheable and len(query_rows) * PAIRS_WORTH_CODING_THE_POOL >= pool_pairs)):
            return None
        # Pairs in query order (a ranking of the pool, read row by row) take each block's pairs as a slice; others
        # are sorted by query first.
        order = None if (query_rows[1:] >= query_rows[:-1]).all() else np.argsort(query_rows, kind="stable")
        bounds = np.searchsorted(query_rows if order is None else query_rows[order], starts + [self._size])
        codes = np.zeros(len(query_rows), dtype=np.int64)
        columns = len(self.candidates)
        for (start, stop), low, high in zip(blocks, bounds[:-1], bounds[1:]):
            chosen = slice(low, high) if order is None else order[low:high]
            # Flat indices: about twice as fast as indexing with a pair of arrays.
            flat = (query_rows[chosen].astype(np.int64) - start) * columns + candidate_rows[chosen]
            codes[chosen] = self._codes(state, start, stop).ravel()[flat]
        return state.plan, codes

    def values_of_pair_codes(self, measure: MeasureSpec, plan: CountPlan, codes: np.ndarray) -> np.ndarray:
        """``measure``'s values of codes of ``plan`` (from :meth:`pair_codes`; :func:`codes_give` must hold)."""
        return self._values_of_pair_codes(self.resolve(measure), plan, codes)

    def _values_of_pair_codes(self, measure: MeasureSpec, plan: CountPlan, codes: np.ndarray) -> np.ndarray:
        """:meth:`values_of_pair_codes` of a resolved measure."""
        state = self._state(plan)
        if state.lookup:
            table, values = self._table(state, measure)
            # Each code's value first (one entry per possible code), then one look-up per pair: the same values as
            # values[table[codes]], a pass over the pairs fewer (a run has a million pairs, the plan ~60,000 codes).
            return values[table][codes]
        return values_of_codes(state.layout, state.plan, measure, codes)


def _mib(size: int) -> str:
    """A size in MiB, with enough decimals to tell small sizes apart.

    >>> _mib(3 << 20), _mib(1000)
    ('3.0 MiB', '0.001 MiB')
    """
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 / 10 else f"{size / 2**20:.3f} MiB"
