"""The engine's ranking pass in JAX: the numpy engine's codes, keys and tie rule, on the CPU or a GPU (issue 15).

Chosen with ``PairwiseEngine(..., compute=Compute(backend="jax", device="cpu"|"gpu"))`` (CLI ``--backend jax --device gpu``);
imported only then. For a block of ``Qb`` queries and a tile of ``Pt`` candidates one XLA program computes:

1. **counts** from integer-exact products of dense 0/1 ``int8`` operands accumulated in ``int32``:
   the intersection ``X_Q X_C^T`` and, per KG level, the near matches ``X_Q G_C^T`` (the query's
   concepts near the candidate) and ``G_Q X_C^T`` (the candidate's near the query), summed when the
   measure does not split them (``G`` and ``X`` as in :mod:`evalcore.engine.codes`);
2. the **packed code** of :class:`~evalcore.engine.codes.CodeLayout`,
   ``code = sum_d stride_d count_d`` with ``union = |A| + |B| - intersection``: the very integer the
   numpy engine's product gives;
3. the **relevance key** ``table[code]`` from the engine's own look-up table (key 0: the query itself
   and padding, never returned);
4. the query's running **top keys** merged with the tile's by ``lax.top_k``: for the ideal alone on the
   keys as float32 (exact below 2^24; ties cannot change values); with indices on the unique int32
   ``key * 2^C + (2^C - 1 - position)``, position counting the running top first and then the tile
   in candidate order, so equal keys come out by candidate position (the numpy rule) whatever order
   ``top_k`` gives ties in. The count of keys at or above the threshold's key is summed alongside.

Shapes are fixed per pass (queries and candidates padded), so nothing recompiles per block; only the
columns filled on both sides of a product are kept, padded to multiples of 128. Operands are built on
the device from the sparse matrices' indices (a scatter of ones), so only the non-zeros travel. The
pool streams in chunks sized from the device's free memory (on the CPU from ``device_memory``,
default :data:`CPU_DEFAULT_MEMORY`); the queries' operands stay on the device.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp
from jax import lax

from evalcore.engine.work import ArrayPass, PoolSummary
from evalcore.errors import ParameterError
from evalcore.relevance.formulas import reaching

CPU_DEFAULT_MEMORY = 1 << 30
GPU_MEMORY_SHARE = 0.6  # of the free device memory: XLA needs room for its own scratch
LANE = 128
MIN_QUERY_BLOCK = 8
MAX_QUERY_BLOCK = 4096
MAX_TILE = 1 << 16
FLOAT32_EXACT_BITS = 24
COMPOSITE_BITS = 31
KEPT_PLANS = 4


def platform_devices(platform: str) -> tuple[list, str]:
    """JAX's devices of a platform (``cpu`` or ``gpu``) and, when it has none, JAX's reason.

    JAX raises RuntimeError for an unknown platform or a plugin that fails to start (which then fails
    every platform, the CPU too), ValueError for a bad ``XLA_*`` variable and AssertionError when
    ``JAX_PLATFORMS`` names no platform present, by version: each means no device of that platform here.
    """
    try:
        return list(jax.devices(platform)), ""
    except Exception as error:  # see above: JAX's startup raises several types
        return [], f"{type(error).__name__}: {error}".rstrip(": ")


def visible_gpus() -> list:
    """JAX's GPU devices; empty where there is none, JAX lacks its CUDA plugin or the plugin fails to start."""
    return platform_devices("gpu")[0]


def round_up(value: int, multiple: int) -> int:
    """``value`` rounded up to a multiple (at least one multiple).

    >>> round_up(0, 128), round_up(129, 128)
    (128, 256)
    """
    return max(multiple, -(-value // multiple) * multiple)


@dataclass(frozen=True)
class BlockPlan:
    """Fixed shapes of one ranking pass: query block, candidate tile, tiles per streamed chunk, composite shift."""

    query_block: int
    tile: int
    tiles_per_chunk: int
    shift: int


def plan_blocks(queries: int, candidates: int, kept: int, key_bits: int, with_indices: bool, products: int,
                operand_bytes_per_candidate: int, budget: int) -> BlockPlan | None:
    """Block shapes within ``budget`` bytes; None when positions do not fit beside the keys in 31 bits.

    Half the budget goes to one step's int32 temporaries (``products`` products, code, keys,
    ranking key, top-k scratch per pair), a quarter to the streamed chunk of candidate operands.

    >>> plan_blocks(10_000, 80_000, 10, 12, False, 2, 4_000, 8 << 30)
    BlockPlan(query_block=2688, tile=65536, tiles_per_chunk=2, shift=0)
    >>> plan_blocks(100, 300, 10, 12, True, 2, 100, 1)
    BlockPlan(query_block=8, tile=128, tiles_per_chunk=1, shift=8)
    >>> plan_blocks(100, 300, 1000, 23, True, 2, 100, 1 << 30) is None  # 8 bits left for positions
    True
    """
    tile = min(round_up(candidates, LANE), MAX_TILE)
    if with_indices:
        # Positions 0 .. kept + tile - 1 must fit in the bits the keys leave free.
        room = (1 << (COMPOSITE_BITS - key_bits)) - kept
        if room < LANE:
            return None
        tile = min(tile, room // LANE * LANE)
    pair_bytes = 4 * (products + 4)
    step_budget = budget // 2
    tile = max(LANE, min(tile, (step_budget // (pair_bytes * MIN_QUERY_BLOCK) - kept) // LANE * LANE))
    block = step_budget // (pair_bytes * (tile + kept))
    block = block // LANE * LANE if block >= LANE else block // MIN_QUERY_BLOCK * MIN_QUERY_BLOCK
    block = max(MIN_QUERY_BLOCK, min(block, MAX_QUERY_BLOCK, round_up(queries, MIN_QUERY_BLOCK)))
    tiles = -(-candidates // tile)
    per_chunk = max(1, min(tiles, (budget // 4) // max(1, tile * operand_bytes_per_candidate)))
    shift = (kept + tile - 1).bit_length() if with_indices else 0
    return BlockPlan(block, tile, per_chunk, shift)


@dataclass
class _Operands:
    """One count plan's products: pruned 0/1 CSR operands per product, their strides, and the queries on the device."""

    strides: tuple[int, ...]
    left: tuple[sp.csr_matrix, ...]
    right: tuple[sp.csr_matrix, ...]
    widths: tuple[int, ...]
    query_base: np.ndarray  # int32 per query: the code's terms that depend on the query alone
    candidate_base: np.ndarray  # int32 per candidate
    device_queries: dict  # query block -> (operands, base, self columns) on the device
    device_pool: dict  # (tile, tiles per chunk) -> the pool's one chunk, when it fits in one


def _binary(matrix: sp.csr_matrix) -> sp.csr_matrix:
    matrix = matrix.tocsr(copy=True)
    matrix.eliminate_zeros()  # G = [X M > 0] - that * X keeps explicit zeros
    return matrix


def _products(work: ArrayPass) -> _Operands:
    """The terms of each count of the plan, with each term's columns cut to those filled on both sides."""
    plan, stride = work.plan, work.layout.strides
    x_q, x_c = _binary(work.query_matrix), _binary(work.candidate_matrix)
    # union = |A| + |B| - intersection: the intersection's own stride less the union's.
    counts = [(stride["intersection"] - stride["union"], [(x_q, x_c)])]
    for level, near in enumerate(work.near):
        if near is None:
            continue
        g_q, g_c = _binary(near[0]), _binary(near[1])
        if plan.split:
            counts += [(stride[f"near_query_{level}"], [(x_q, g_c)]), (stride[f"near_candidate_{level}"], [(g_q, x_c)])]
        else:
            counts.append((stride[f"near_{level}"], [(x_q, g_c), (g_q, x_c)]))
    strides, lefts, rights, widths = [], [], [], []
    for weight, terms in counts:
        pieces = []
        for left, right in terms:
            both = np.flatnonzero((left.getnnz(axis=0) > 0) & (right.getnnz(axis=0) > 0))
            if len(both):
                pieces.append((left[:, both], right[:, both]))
        if not pieces:
            continue  # this count is 0 for every pair
        left = sp.hstack([p[0] for p in pieces]).tocsr()
        right = sp.hstack([p[1] for p in pieces]).tocsr()
        strides.append(int(weight))
        lefts.append(left)
        rights.append(right)
        widths.append(round_up(left.shape[1], LANE))
    query_base = (stride["union"] + stride.get("query_size", 0)) * work.query_sizes.astype(np.int64)
    candidate_base = stride["union"] * work.candidate_sizes.astype(np.int64)
    return _Operands(tuple(strides), tuple(lefts), tuple(rights), tuple(widths), query_base.astype(np.int32),
                     candidate_base.astype(np.int32), {}, {})


class JaxRanker:
    """Runs :meth:`~evalcore.engine.PairwiseEngine.rank_by` passes with JAX on one device, each handed over as an
    :class:`~evalcore.engine.work.ArrayPass`."""

    name = "jax"

    def __init__(self, device: str | None, device_memory: int | None = None):
        gpus, gpu_failure = platform_devices("gpu")
        if gpus and device != "cpu":
            self.device, self.kind = gpus[0], "gpu"
        else:
            cpus, cpu_failure = platform_devices("cpu")
            if device == "gpu":
                # JAX without its CUDA plugin still has the CPU; with neither, JAX itself did not start.
                raise ParameterError(
                    "--device gpu: JAX sees no GPU (jax.devices('gpu') is empty); install JAX with its CUDA plugin on "
                    "a GPU machine, or use --device cpu" if cpus else
                    f"--device gpu: JAX could not start ({gpu_failure}); fix its CUDA plugin or JAX_PLATFORMS, or use "
                    "--device cpu with JAX_PLATFORMS=cpu")
            if not cpus:
                raise ParameterError(f"--backend jax: JAX has no CPU device ({cpu_failure}); run with JAX_PLATFORMS=cpu "
                                     "(or unset it), or fix the GPU plugin that fails to start")
            self.device, self.kind = cpus[0], "cpu"
        self.device_memory = device_memory
        self._operands: OrderedDict[object, _Operands] = OrderedDict()
        self.last_stats: dict[str, object] = {}  # shapes and integer operations of the last pass, for benchmarks

    @property
    def device_name(self) -> str:
        """``cpu``, or the GPU's model, e.g. ``gpu (NVIDIA H100 80GB HBM3)``."""
        return f"gpu ({self.device.device_kind})" if self.kind == "gpu" else "cpu"

    def budget(self) -> int:
        """Bytes a pass may plan with: ``device_memory``, else a share of the GPU's free memory, else the CPU default."""
        if self.device_memory is not None:
            return self.device_memory
        stats = self.device.memory_stats() if self.kind == "gpu" else None
        # An allocator that does not report a stat leaves it out, or (through JAX's PJRT C API) at -1.
        if stats and stats.get("bytes_limit", -1) > 0:
            free = stats["bytes_limit"] - max(0, stats.get("bytes_in_use", 0))
            return max(1, int(free * GPU_MEMORY_SHARE))
        return CPU_DEFAULT_MEMORY

    @staticmethod
    def _key_bits(table: tuple[np.ndarray, np.ndarray]) -> int:
        return max(1, (len(table[1]) - 1).bit_length())

    def unsupported(self, work: ArrayPass, k: int, depth: int) -> str:
        """Why this pass must run on the numpy engine; empty when the array backend runs it exactly."""
        table = work.table
        if work.queries == 0 or work.candidates == 0:
            return "nothing to rank"
        if work.plan.credit_hops:
            return "nn-IoU-depth sums 16-bit credit units, which 0/1 int8 products do not carry"
        if table is None:
            return (f"the measure's {work.layout.size:,} possible codes exceed the look-up table limit; "
                    "the numpy engine maps each block's codes by hashing")
        if work.layout.size >= 1 << 30:
            return "the packed codes do not fit int32 with room for their partial sums"
        if depth and plan_blocks(work.queries, work.candidates, max(k, depth), self._key_bits(table), True, 1,
                                 1, 1 << 40) is None:
            return (f"{len(table[1]) - 1:,} distinct relevance values leave too few of a 32-bit ranking key's bits "
                    f"for candidate positions at depth {depth}")
        return ""

    def _prepared(self, work: ArrayPass) -> _Operands:
        # A ranker serves the one engine that opened it, so the plan alone keys its operands.
        if work.plan not in self._operands:
            self._operands[work.plan] = _products(work)
            while len(self._operands) > KEPT_PLANS:
                self._operands.popitem(last=False)
        self._operands.move_to_end(work.plan)
        return self._operands[work.plan]

    def _dense(self, matrix: sp.csr_matrix, rows: int, width: int) -> jax.Array:
        """The 0/1 matrix as a dense ``rows x width`` int8 device array, built from its non-zeros' indices."""
        coo = matrix.tocoo()
        size = 1 << max(10, int(coo.nnz).bit_length())  # few index shapes, so few compilations
        row_ids = np.full(size, rows, dtype=np.int32)  # out of range: dropped
        col_ids = np.zeros(size, dtype=np.int32)
        row_ids[:coo.nnz], col_ids[:coo.nnz] = coo.row, coo.col
        return _ones_at(jax.device_put(row_ids, self.device), jax.device_put(col_ids, self.device), rows, width)

    def _padded(self, values: np.ndarray, size: int, fill: int) -> jax.Array:
        out = np.full(size, fill, dtype=np.int32)
        out[:len(values)] = values
        return jax.device_put(out, self.device)

    def _queries(self, work: ArrayPass, operands: _Operands, block: int) -> tuple:
        if block not in operands.device_queries:
            rows = round_up(work.queries, block)
            operands.device_queries.clear()
            operands.device_queries[block] = (
                tuple(self._dense(left, rows, width) for left, width in zip(operands.left, operands.widths)),
                self._padded(operands.query_base, rows, 0),
                self._padded(work.self_columns, rows, -1))
        return operands.device_queries[block]

    def _chunk(self, operands: _Operands, start: int, width: int, whole_pool: bool) -> tuple:
        """Candidate operands and base codes of candidates ``start : start + width`` on the device (padded)."""
        if whole_pool and width in operands.device_pool:
            return operands.device_pool[width]
        stop = start + width
        chunk = (tuple(self._dense(right[start:stop], width, padded) for right, padded in zip(operands.right,
                                                                                              operands.widths)),
                 self._padded(operands.candidate_base[start:stop], width, 0))
        if whole_pool:
            operands.device_pool.clear()
            operands.device_pool[width] = chunk
        return chunk

    def rank(self, work: ArrayPass, k: int, threshold: float, depth: int,
             progress: Callable[[float], None] | None = None) -> tuple[PoolSummary, np.ndarray]:
        """:meth:`~evalcore.engine.PairwiseEngine.rank_by` for a pass that :meth:`unsupported` accepts."""
        table = work.table
        keys_of_codes, values = table
        queries, candidates = work.queries, work.candidates
        kept = max(k, depth)
        key_bits = self._key_bits(table)
        operands = self._prepared(work)
        per_candidate = max(1, sum(operands.widths))
        blocks = plan_blocks(queries, candidates, kept, key_bits, depth > 0, len(operands.widths), per_candidate,
                             self.budget())
        use_float = key_bits <= FLOAT32_EXACT_BITS
        program = chunk_program(blocks.query_block, blocks.tile, kept, operands.strides, depth > 0, use_float,
                                blocks.shift)
        query_ops, query_base, query_self = self._queries(work, operands, blocks.query_block)
        table_device = jax.device_put(keys_of_codes.astype(np.int32), self.device)
        lowest = jnp.int32(int(np.searchsorted(values[1:], reaching(threshold))) + 1)
        chunk_width = blocks.tile * blocks.tiles_per_chunk
        starts = list(range(0, candidates, chunk_width))
        block_starts = list(range(0, queries, blocks.query_block))
        carries = [(jnp.zeros((blocks.query_block, kept), jnp.int32), jnp.full((blocks.query_block, kept), -1, jnp.int32),
                    jnp.zeros(blocks.query_block, jnp.int32)) for _ in block_starts]
        carries = [jax.device_put(c, self.device) for c in carries]
        done, total = 0, len(starts) * len(block_starts)
        for start in starts:
            pool_ops, pool_base = self._chunk(operands, start, chunk_width, len(starts) == 1)
            tiles = jnp.int32(-(-min(chunk_width, candidates - start) // blocks.tile))
            for position, query_start in enumerate(block_starts):
                carries[position] = program(*carries[position], query_ops, query_base, query_self, jnp.int32(query_start),
                                            pool_ops, pool_base, jnp.int32(start), tiles, jnp.int32(candidates),
                                            table_device, lowest)
                done += 1
                if progress is not None:
                    jax.block_until_ready(carries[position])
                    progress(done / total)
        tiles_run = sum(-(-min(chunk_width, candidates - start) // blocks.tile) for start in starts)
        self.last_stats = {"query_block": blocks.query_block, "tile": blocks.tile, "chunks": len(starts),
                           "product_widths": operands.widths,
                           "int8_ops": 2 * len(block_starts) * blocks.query_block * tiles_run * blocks.tile
                           * sum(operands.widths)}
        top_keys = np.concatenate([np.asarray(c[0]) for c in carries])[:queries].astype(np.int64)
        top_columns = np.concatenate([np.asarray(c[1]) for c in carries])[:queries].astype(np.int64)
        relevant = np.concatenate([np.asarray(c[2]) for c in carries])[:queries].astype(np.int64)
        ideal = np.maximum(values[top_keys[:, :k]], 0.0)
        indices = np.where(top_keys[:, :depth] >= 1, top_columns[:, :depth], -1)
        pool_sizes = candidates - (work.self_columns >= 0).astype(np.int64)
        return PoolSummary(ideal, relevant, pool_sizes), indices


def _ones_at_impl(row_ids: jax.Array, col_ids: jax.Array, rows: int, width: int) -> jax.Array:
    return jnp.zeros((rows, width), jnp.int8).at[row_ids, col_ids].set(1, mode="drop")


_ones_at = jax.jit(_ones_at_impl, static_argnums=(2, 3))


PROGRAMS: dict[tuple, Callable] = {}  # configuration -> jitted program, shared by every engine and pass


def chunk_program(block: int, tile: int, kept: int, strides: tuple[int, ...], with_indices: bool, use_float: bool,
                  shift: int) -> Callable:
    """The jitted program of a configuration; XLA compiles it once per argument shape."""
    config = (block, tile, kept, strides, with_indices, use_float, shift)
    if config not in PROGRAMS:
        PROGRAMS[config] = jax.jit(_chunk_pass(*config))
    return PROGRAMS[config]


def _chunk_pass(block: int, tile: int, kept: int, strides: tuple[int, ...], with_indices: bool, use_float: bool,
                shift: int) -> Callable:
    """The program for one query block against one streamed chunk of the pool, tile after tile.

    Carries (top keys, their candidate columns, relevant count) of the block in and out.
    """
    low_mask = (1 << shift) - 1
    contract = (((1,), (1,)), ((), ()))

    def run(top_keys, top_columns, relevant, query_ops, query_base, query_self, query_start, pool_ops, pool_base,
            chunk_start, tiles, candidates, table, lowest):
        left = [lax.dynamic_slice_in_dim(op, query_start, block, 0) for op in query_ops]
        base = lax.dynamic_slice_in_dim(query_base, query_start, block)
        self_column = lax.dynamic_slice_in_dim(query_self, query_start, block)
        positions = jnp.arange(tile, dtype=jnp.int32)

        def one_tile(t, carry):
            top_keys, top_columns, relevant = carry
            offset = t * tile
            code = base[:, None] + lax.dynamic_slice_in_dim(pool_base, offset, tile)[None, :]
            for stride, op, query_op in zip(strides, pool_ops, left):
                right = lax.dynamic_slice_in_dim(op, offset, tile, 0)
                code = code + stride * lax.dot_general(query_op, right, contract, preferred_element_type=jnp.int32)
            column = chunk_start + offset + positions
            outside = (column[None, :] == self_column[:, None]) | (column[None, :] >= candidates)
            keys = jnp.where(outside, 0, jnp.take(table, code, mode="clip"))
            relevant = relevant + jnp.sum(keys >= lowest, axis=1, dtype=jnp.int32)
            both = jnp.concatenate([top_keys, keys], axis=1)
            if not with_indices:
                best, _ = lax.top_k(both.astype(jnp.float32) if use_float else both, kept)
                return best.astype(jnp.int32), top_columns, relevant
            order = jnp.arange(kept + tile, dtype=jnp.int32)
            best, _ = lax.top_k((both << shift) | (low_mask - order), kept)
            chosen = low_mask - (best & low_mask)
            columns = jnp.concatenate([top_columns, jnp.broadcast_to(column, (block, tile))], axis=1)
            return best >> shift, jnp.take_along_axis(columns, chosen, axis=1), relevant

        return lax.fori_loop(0, tiles, one_tile, (top_keys, top_columns, relevant))

    return run
