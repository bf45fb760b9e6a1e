"""Runs made by evalcore itself: retrieval by relevance (IoU / nn-IoU) and by embeddings
(cosine), including TF-IDF caption embeddings that need no external model."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp

from evalcore.data import ConceptSets, Embeddings, RankedLists, RankedScores, Run
from evalcore.engine import top_indices
from evalcore.errors import CBIRLensError, ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.io.outputs import atomic_output
from evalcore.relevance.measures import MeasureSpec

#: Largest similarity block (bytes of float64) ranked two at a time; past it one block at a time bounds memory.
THREADED_BLOCK_BYTES = 256 << 20
TOKEN = re.compile(r"[a-z][a-z0-9]+")
STOP_WORDS = frozenset(
    "the and of in with a an on at to for from by is are was were be been this that these those as or "
    "which showing shows show shown demonstrating demonstrates arrow arrows image images figure fig".split()
)


def pool_depth(depth: int, pool_size: int) -> int:
    """The list length to compute: ``depth``, or the pool's size when ``depth`` exceeds it (a list never
    holds more than the pool, so a larger depth would only allocate padding: 14.6 TiB for 10^9 over
    ROCOv2 test). A depth below 1 is refused.

    >>> pool_depth(100, 9927), pool_depth(10**9, 9927)
    (100, 9927)
    """
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise ParameterError(f"depth: expected a whole number of at least 1, found {depth!r}")
    return int(min(depth, max(pool_size, 1)))


def run_from_indices(name: str, query_ids: tuple[str, ...], candidate_ids: tuple[str, ...], indices: np.ndarray,
                     scores: np.ndarray) -> Run:
    """A run from a queries x depth matrix of candidate indices (-1 past the end of a list), held as arrays."""
    keep = indices >= 0
    offsets = np.concatenate(([0], np.cumsum(keep.sum(axis=1))))
    rankings = RankedLists(query_ids, candidate_ids, indices[keep], offsets)
    return Run(name, rankings, f"retrieval:{name}", RankedScores(rankings, scores[keep]))


def retrieve_by_measure(evaluator: Evaluator, measure: MeasureSpec, depth: int, name: str | None = None,
                        progress: Callable[[float], None] | None = None) -> Run:
    """Rank each query's pool by any relevance measure (:mod:`evalcore.relevance.measures`), ties by position in the
    file, as a run with each item's relevance as its score (to write as a TREC run).

    The ranking is :meth:`Evaluator.relevance_ranking`'s (the one ranking of the pool by relevance; its ideal
    summary is not used, so it keeps only the top 1). A ``depth`` beyond the pool gives whole lists
    (:func:`pool_depth`)."""
    if evaluator.engine is None:
        raise ParameterError("retrieval by a relevance measure ranks concept sets: load them first")
    engine = evaluator.engine
    depth = pool_depth(depth, len(engine.candidates))
    indices = evaluator.relevance_ranking(measure, depth, 1, name=name, progress=progress).documents
    valid = indices >= 0
    rows = np.broadcast_to(np.arange(len(indices))[:, None], indices.shape)[valid]
    scores = np.zeros(indices.shape)
    scores[valid] = engine.relevance_of_pairs_by(measure, rows, indices[valid])
    return run_from_indices(name or measure.name, engine.queries.ids, engine.candidates.ids, indices, scores)


def retrieve_by_vectors(name: str, query_ids: tuple[str, ...], query_vectors, candidate_ids: tuple[str, ...],
                        candidate_vectors, depth: int, block_size: int = 512,
                        progress: Callable[[float], None] | None = None) -> Run:
    """Rank candidates by cosine similarity of L2-normalised vectors (dense or sparse), ties by position.

    A ``depth`` beyond the pool gives whole lists (:func:`pool_depth`). Blocks of ``block_size`` queries are
    ranked two at a time (NumPy and SciPy release the interpreter lock in the products, the clip and the
    partition) while each block's similarities fit in :data:`THREADED_BLOCK_BYTES`; ``progress(fraction)`` is
    called after each block."""
    depth = pool_depth(depth, len(candidate_ids))
    candidate_index = {c: i for i, c in enumerate(candidate_ids)}
    self_columns = np.array([candidate_index.get(q, -1) for q in query_ids])
    candidates_t = candidate_vectors.T.tocsr() if sp.issparse(candidate_vectors) else np.ascontiguousarray(
        candidate_vectors.T)

    def rank_block(start: int) -> tuple[np.ndarray, np.ndarray]:
        similarity = query_vectors[start:start + block_size] @ candidates_t
        similarity = similarity.toarray() if sp.issparse(similarity) else np.asarray(similarity)
        similarity = similarity.astype(np.float64, copy=False)
        # Shift to [0, 2] so that the query itself (set to -1) is never ranked.
        np.clip(similarity, -1.0, 1.0, out=similarity)
        similarity += 1.0
        own = self_columns[start:start + block_size]
        rows = np.flatnonzero(own >= 0)
        similarity[rows, own[rows]] = -1.0
        indices = top_indices(similarity, depth)
        return indices, np.where(indices >= 0, np.take_along_axis(similarity, np.maximum(indices, 0), 1) - 1.0, 0)

    starts = range(0, len(query_ids), block_size)
    threads = 2 if block_size * len(candidate_ids) * 8 <= THREADED_BLOCK_BYTES else 1
    all_indices, all_scores = [], []
    with ThreadPoolExecutor(threads) as pool:
        for done, (indices, scores) in enumerate(pool.map(rank_block, starts), start=1):
            all_indices.append(indices)
            all_scores.append(scores)
            if progress is not None:
                progress(done / len(starts))
    return run_from_indices(name, query_ids, candidate_ids, np.vstack(all_indices), np.vstack(all_scores))


def retrieve_by_embeddings(embeddings: Embeddings, concepts: ConceptSets, depth: int, name: str = "embeddings",
                           progress: Callable[[float], None] | None = None) -> Run:
    """Queries and candidates are the images that have both an embedding and a concept set."""
    row_of = {image_id: i for i, image_id in enumerate(embeddings.ids)}
    ids = tuple(i for i in concepts.ids if i in row_of)
    if not ids:
        raise CBIRLensError(f"{embeddings.source}: no embedding ID matches an image of {concepts.source}")
    vectors = embeddings.vectors[[row_of[i] for i in ids]]
    return retrieve_by_vectors(name, ids, vectors, ids, vectors, depth, progress=progress)


def tokenize(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text.lower()) if t not in STOP_WORDS]


MAX_SVD_DIMENSIONS = 1000  # LSA keeps some hundreds; each dimension costs a dense column per image and per word


def tfidf_matrix(captions: dict[str, str], ids: tuple[str, ...], dimensions: int | None = None,
                 source: str = "captions"):
    """TF-IDF caption vectors, L2-normalised: ``tf = 1 + ln(count)``, ``idf = ln((1 + N) / (1 + df)) + 1``.

    With ``dimensions`` (1 to :data:`MAX_SVD_DIMENSIONS`), the matrix is reduced by truncated SVD
    (latent semantic analysis) and re-normalised; images without a caption get a zero vector.
    ``source`` names the captions in messages.

    >>> m = tfidf_matrix({"a": "CT of the chest", "b": "chest CT scan", "c": "MRI brain"}, ("a", "b", "c"))
    >>> round(float((m[0] @ m[1].T).toarray()[0, 0]), 3), float((m[0] @ m[2].T).toarray()[0, 0])
    (0.732, 0.0)
    """
    if dimensions is not None and (isinstance(dimensions, bool) or not isinstance(dimensions, (int, np.integer))
                                   or not 1 <= dimensions <= MAX_SVD_DIMENSIONS):
        raise ParameterError(f"SVD dimensions: expected a whole number from 1 to {MAX_SVD_DIMENSIONS:,} (or none: no "
                             f"reduction), found {dimensions!r}")
    documents = [Counter(tokenize(captions.get(i, ""))) for i in ids]
    vocabulary = {term: j for j, term in enumerate(sorted(set().union(*documents)))}
    if not vocabulary:
        captioned = sum(i in captions for i in ids)
        found = (f"none of its {len(captions):,} captions belongs to one of the {len(ids):,} images" if not captioned
                 else f"the {captioned:,} captions of these images hold no word of two letters or more but those "
                      "left out as every caption's ('the', 'of', 'figure', 'arrow', ...)")
        raise CBIRLensError(f"{source}: expected captions with words for the images to rank, found that {found}")
    document_frequency = np.zeros(len(vocabulary))
    rows, cols, values = [], [], []
    for row, counts in enumerate(documents):
        for term, count in counts.items():
            rows.append(row)
            cols.append(vocabulary[term])
            values.append(1.0 + math.log(count))
            document_frequency[vocabulary[term]] += 1
    idf = np.log((1 + len(ids)) / (1 + document_frequency)) + 1.0
    matrix = sp.csr_matrix((values, (rows, cols)), shape=(len(ids), len(vocabulary))) @ sp.diags(idf)
    matrix = _normalise_rows(matrix.tocsr())
    if dimensions is not None:
        from scipy.sparse.linalg import svds

        rank = max(1, min(dimensions, min(matrix.shape) - 1))
        left, singular, _ = svds(matrix, k=rank, random_state=0)
        dense = left * singular
        norms = np.linalg.norm(dense, axis=1, keepdims=True)
        return np.divide(dense, norms, out=np.zeros_like(dense), where=norms > 0)
    return matrix


def _normalise_rows(matrix: sp.csr_matrix) -> sp.csr_matrix:
    norms = np.sqrt(np.asarray(matrix.multiply(matrix).sum(axis=1)).ravel())
    scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
    return sp.diags(scale) @ matrix


def retrieve_by_captions(captions: dict[str, str], concepts: ConceptSets, depth: int,
                         dimensions: int | None = None, name: str = "captions (TF-IDF)", source: str = "captions",
                         progress: Callable[[float], None] | None = None) -> Run:
    """Text-embedding baseline: TF-IDF (optionally LSA-reduced) caption vectors, cosine ranking; ``progress``
    moves by query block (the vectors take a few per cent of the time)."""
    matrix = tfidf_matrix(captions, concepts.ids, dimensions, source)
    return retrieve_by_vectors(name, concepts.ids, matrix, concepts.ids, matrix, depth, progress=progress)


def sentence_embeddings(captions: dict[str, str], ids: tuple[str, ...], model_path: str | Path) -> Embeddings:
    """Optional: embed captions with a locally installed sentence-transformers model (never downloaded)."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise CBIRLensError("sentence-transformers is not installed; use TF-IDF caption embeddings instead") from None
    path = Path(model_path)
    if not path.exists():
        raise CBIRLensError(f"{path}: no local model folder (models are never downloaded at run time)")
    model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
    vectors = model.encode([captions.get(i, "") for i in ids], normalize_embeddings=True)
    return Embeddings(ids, np.asarray(vectors, dtype=np.float32), str(path))


FLOAT32_KEY_STRIDE = 1 << 34  # > the span of float32 order keys plus any list length: lists never mix
LARGEST_FLOAT32 = float(np.finfo(np.float32).max)
LINES_PER_PIECE = 1 << 20  # a TREC file is formatted and written this many lines at a time


def _float32_order_keys(values: np.ndarray) -> np.ndarray:
    """Integers in the order of the float32 values (consecutive floats differ by 1; -0 and +0 share 0)."""
    bits = values.view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def _float32_from_order_keys(keys: np.ndarray) -> np.ndarray:
    return np.where(keys < 0, (-keys) | 0x80000000, keys).astype(np.uint32).view(np.float32)


def float32_scores_in_order(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Strictly decreasing 32-bit scores for ranked lists, as close to the given scores as float32 allows.

    trec_eval keeps a run's score as a C ``float`` (so do pytrec_eval and ir_measures, which
    evaluate through it), sorts by it and orders tied scores by document ID descending; ranx sorts
    ties in no documented order. A file whose scores are strictly decreasing *as float32* is read
    in the run's own order by all of them. For list ``i`` (``scores[offsets[i]:offsets[i + 1]]``,
    in rank order) the written score is

        ``w_1 = f(s_1)`` and ``w_j = min(f(s_j), w_{j-1} - 1 ulp)``,

    with ``f`` rounding to the nearest float32 and ``w - 1 ulp`` the next float32 below ``w``: a score
    keeps its float32 value unless items tied with it (in float32) come earlier, and the ``t``-th
    further item of a tie lies ``t`` float32 steps below the first (``t`` x 6e-8 at 0.5, and a
    tie at 0 steps through the smallest negative floats, -1.4e-45, -2.8e-45, ...). Computed
    without a loop: in the integer order of float32 values, ``w_j + j`` is the running minimum of
    ``f(s_j) + j``.

    >>> float32_scores_in_order(np.array([0.5, 0.5, 0.5, 0.25, 0.0, 0.0]), np.array([0, 4, 6])).tolist()
    [0.5, 0.4999999701976776, 0.4999999403953552, 0.25, 0.0, -1.401298464324817e-45]
    """
    rounded = np.clip(np.asarray(scores, dtype=np.float64), -LARGEST_FLOAT32, LARGEST_FLOAT32).astype(np.float32)
    lengths = np.diff(offsets)
    position = np.arange(len(rounded), dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    list_shift = np.repeat(np.arange(len(lengths), dtype=np.int64) * FLOAT32_KEY_STRIDE, lengths)
    running = np.minimum.accumulate(_float32_order_keys(rounded) + position - list_shift)
    keys = np.maximum(running + list_shift - position, _float32_order_keys(np.float32([-LARGEST_FLOAT32]))[0])
    return _float32_from_order_keys(keys)


def write_trec_run(run: Run, path: str | Path) -> None:
    """Write ``qid Q0 docid rank score tag`` lines in the run's order, atomically, a piece at a time.

    Scores are the run's own (descending ranks when it has none) made strictly decreasing in
    float32 by :func:`float32_scores_in_order`, and printed as the shortest decimal that reads back
    as that float32 (``0.49999997``), so trec_eval, pytrec_eval, ir_measures and ranx all read the
    file in the run's order. The text is built by Arrow a piece of :data:`LINES_PER_PIECE` lines at a
    time, so a depth-1000 run never sits in memory as Python strings; the file replaces ``path``
    only once complete (:func:`evalcore.io.outputs.atomic_output`).
    """
    lists = RankedLists.from_mapping(run.rankings)
    tag = re.sub(r"\s+", "_", run.name)
    names = pa.array(lists.names.tolist(), pa.large_string())
    queries = pa.array(lists.queries, pa.large_string())
    with atomic_output(path, binary=True) as handle:
        first = 0
        while first < len(lists.queries):
            last = int(np.searchsorted(lists.offsets, lists.offsets[first] + LINES_PER_PIECE, side="right")) - 1
            last = min(max(last, first + 1), len(lists.queries))
            handle.write(_trec_lines(run, lists, names, queries, first, last, tag))
            first = last


def _trec_lines(run: Run, lists: RankedLists, names: pa.Array, queries: pa.Array, first: int, last: int,
                tag: str) -> memoryview | bytes:
    """The TREC lines of queries ``first`` to ``last - 1`` of ``lists``, as UTF-8 bytes."""
    offsets = lists.offsets[first:last + 1] - lists.offsets[first]
    lengths = np.diff(offsets)
    rank = np.arange(offsets[-1], dtype=np.int64) - np.repeat(offsets[:-1], lengths)
    if run.scores:
        scores = np.fromiter(itertools.chain.from_iterable(run.scores[q] for q in lists.queries[first:last]),
                             dtype=np.float64, count=int(offsets[-1]))
    else:
        scores = (np.repeat(lengths, lengths) - rank).astype(np.float64)
    written = float32_scores_in_order(scores, offsets)
    text = pa.large_string()
    lines = pc.binary_join_element_wise(
        queries.take(pa.array(np.repeat(np.arange(first, last), lengths))), pa.scalar("Q0", text),
        names.take(pa.array(lists.documents[lists.offsets[first]:lists.offsets[last]])),
        pa.array(rank + 1).cast(text), pa.array(written + np.float32(0)).cast(text), pa.scalar(tag + "\n", text),
        pa.scalar(" ", text))
    _, line_offsets, text_bytes = lines.buffers()
    bounds = np.frombuffer(line_offsets, dtype=np.int64)[[lines.offset, lines.offset + len(lines)]]
    return memoryview(text_bytes)[bounds[0]:bounds[1]] if len(lines) else b""
