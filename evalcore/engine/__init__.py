"""The vectorised all-pairs engine (docs/DESIGN.md §6), for every measure of :mod:`evalcore.relevance.measures`.

Its floors, each importing only those below it:

- :mod:`~evalcore.engine.codes`: the code algebra (how a pair's counts pack into one integer, derived there)
  and the map from codes to relevance keys;
- :mod:`~evalcore.engine.kernels`: pure functions over arrays (block summaries, code groups, top indices);
- :mod:`~evalcore.engine.work`: the pass objects that executors (:class:`BlockWork`) and array backends
  (:class:`ArrayPass`) receive, never the engine itself;
- :mod:`~evalcore.engine.compute`: :class:`Compute`, the one frozen option of where and how passes run
  (threads, an executor and its workers' memory, an array backend and its device), validated when built;
- :mod:`~evalcore.engine.pairwise`: :class:`PairwiseEngine`, which owns operands, caches and memory planning
  and dispatches each pass to its threads, an executor (:mod:`evalcore.engine.executors`) or an array backend
  (:mod:`evalcore.engine.array_backend`).
"""

from evalcore.engine.codes import LOOKUP_TABLE_LIMIT, CodeLayout, Coding, codes_give, concept_matrix
from evalcore.engine.compute import DEFAULT_MEMORY_PER_WORKER, DEFAULT_THREADS, Compute
from evalcore.engine.kernels import CodeGroups, KeyedBlock, summarise_block, summarise_groups, top_indices
from evalcore.engine.pairwise import DEFAULT_CACHE_BYTES, CachedPlan, PairwiseEngine
from evalcore.engine.work import ArrayPass, BlockWork, CandidateSide, PoolSummary

__all__ = ["DEFAULT_CACHE_BYTES", "DEFAULT_MEMORY_PER_WORKER", "DEFAULT_THREADS", "LOOKUP_TABLE_LIMIT", "ArrayPass",
           "BlockWork", "CachedPlan", "CandidateSide", "CodeGroups", "CodeLayout", "Coding", "Compute", "KeyedBlock",
           "PairwiseEngine", "PoolSummary", "codes_give", "concept_matrix", "summarise_block", "summarise_groups", "top_indices"]
