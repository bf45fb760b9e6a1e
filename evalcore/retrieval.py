"""Runs made by evalcore itself: retrieval by relevance (IoU / nn-IoU) and by embeddings
(cosine), including TF-IDF caption embeddings that need no external model."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .data import ConceptSets, Embeddings, RankedLists, Run
from .engine import PairwiseEngine, top_indices
from .errors import CBIRLensError, ParameterError
from .measures import MeasureSpec, parse_measure

TOKEN = re.compile(r"[a-z][a-z0-9]+")
STOP_WORDS = frozenset(
    "the and of in with a an on at to for from by is are was were be been this that these those as or "
    "which showing shows show shown demonstrating demonstrates arrow arrows image images figure fig".split()
)


def run_from_indices(name: str, query_ids: tuple[str, ...], candidate_ids: tuple[str, ...], indices: np.ndarray,
                     scores: np.ndarray) -> Run:
    """A run from a queries x depth matrix of candidate indices (-1 past the end of a list), held as arrays."""
    keep = indices >= 0
    offsets = np.concatenate(([0], np.cumsum(keep.sum(axis=1))))
    rankings = RankedLists(query_ids, candidate_ids, indices[keep], offsets)
    run_scores = {query: tuple(row_scores[row_keep].tolist()) for query, row_scores, row_keep in zip(query_ids, scores, keep)}
    return Run(name, rankings, f"retrieval:{name}", run_scores)


def retrieve_by_relevance(engine: PairwiseEngine, alpha: float, n: int, depth: int, name: str | None = None,
                          progress: Callable[[float], None] | None = None) -> Run:
    """Rank each query's pool by nn-IoU (IoU when alpha = 0), ties by position in the concept file."""
    if depth < 1:
        raise ParameterError(f"depth must be >= 1, got {depth}")
    indices = engine.retrieve(alpha, n, depth, progress)
    scores = _scores_for(engine, indices, alpha, n)
    label = name or ("IoU" if alpha == 0 or n == 0 else f"nn-IoU (n={n}, alpha={alpha:g})")
    return run_from_indices(label, engine.queries.ids, engine.candidates.ids, indices, scores)


def retrieve_by_measure(engine: PairwiseEngine, measure: MeasureSpec | str, depth: int, name: str | None = None,
                        progress: Callable[[float], None] | None = None) -> Run:
    """Rank each query's pool by any relevance measure (:mod:`evalcore.measures`), ties by position in the file."""
    if depth < 1:
        raise ParameterError(f"depth must be >= 1, got {depth}")
    spec = parse_measure(measure)
    indices = engine.retrieve_by(spec, depth, progress)
    valid = indices >= 0
    rows = np.broadcast_to(np.arange(len(indices))[:, None], indices.shape)[valid]
    scores = np.zeros(indices.shape)
    scores[valid] = engine.relevance_of_pairs_by(spec, rows, indices[valid])
    return run_from_indices(name or spec.name, engine.queries.ids, engine.candidates.ids, indices, scores)


def _scores_for(engine: PairwiseEngine, indices: np.ndarray, alpha: float, n: int) -> np.ndarray:
    valid = indices >= 0
    rows = np.broadcast_to(np.arange(len(indices))[:, None], indices.shape)[valid]
    scores = np.zeros(indices.shape)
    scores[valid] = engine.relevance_of_pairs(rows, indices[valid], alpha, n)
    return scores


def retrieve_by_vectors(name: str, query_ids: tuple[str, ...], query_vectors, candidate_ids: tuple[str, ...],
                        candidate_vectors, depth: int, block_size: int = 512) -> Run:
    """Rank candidates by cosine similarity of L2-normalised vectors (dense or sparse), ties by position."""
    if depth < 1:
        raise ParameterError(f"depth must be >= 1, got {depth}")
    candidate_index = {c: i for i, c in enumerate(candidate_ids)}
    self_columns = np.array([candidate_index.get(q, -1) for q in query_ids])
    candidates_t = candidate_vectors.T.tocsr() if sp.issparse(candidate_vectors) else np.ascontiguousarray(
        candidate_vectors.T)
    all_indices, all_scores = [], []
    for start in range(0, len(query_ids), block_size):
        block = query_vectors[start:start + block_size]
        similarity = block @ candidates_t
        similarity = similarity.toarray() if sp.issparse(similarity) else np.asarray(similarity)
        # Shift to [0, 2] so that the query itself (set to -1) is never ranked.
        similarity = np.clip(similarity.astype(np.float64), -1.0, 1.0) + 1.0
        own = self_columns[start:start + block_size]
        rows = np.flatnonzero(own >= 0)
        similarity[rows, own[rows]] = -1.0
        indices = top_indices(similarity, depth)
        all_indices.append(indices)
        all_scores.append(np.where(indices >= 0, np.take_along_axis(similarity, np.maximum(indices, 0), 1) - 1.0, 0))
    return run_from_indices(name, query_ids, candidate_ids, np.vstack(all_indices), np.vstack(all_scores))


def retrieve_by_embeddings(embeddings: Embeddings, concepts: ConceptSets, depth: int, name: str = "embeddings") -> Run:
    """Queries and candidates are the images that have both an embedding and a concept set."""
    row_of = {image_id: i for i, image_id in enumerate(embeddings.ids)}
    ids = tuple(i for i in concepts.ids if i in row_of)
    if not ids:
        raise CBIRLensError(f"{embeddings.source}: no embedding ID matches an image of {concepts.source}")
    vectors = embeddings.vectors[[row_of[i] for i in ids]]
    return retrieve_by_vectors(name, ids, vectors, ids, vectors, depth)


def tokenize(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text.lower()) if t not in STOP_WORDS]


def tfidf_matrix(captions: dict[str, str], ids: tuple[str, ...], dimensions: int | None = None):
    """TF-IDF caption vectors, L2-normalised: ``tf = 1 + ln(count)``, ``idf = ln((1 + N) / (1 + df)) + 1``.

    With ``dimensions``, the matrix is reduced by truncated SVD (latent semantic analysis)
    and re-normalised; images without a caption get a zero vector.

    >>> m = tfidf_matrix({"a": "CT of the chest", "b": "chest CT scan", "c": "MRI brain"}, ("a", "b", "c"))
    >>> round(float((m[0] @ m[1].T).toarray()[0, 0]), 3), float((m[0] @ m[2].T).toarray()[0, 0])
    (0.732, 0.0)
    """
    documents = [Counter(tokenize(captions.get(i, ""))) for i in ids]
    vocabulary = {term: j for j, term in enumerate(sorted(set().union(*documents)))}
    if not vocabulary:
        raise CBIRLensError("captions: no words found to build TF-IDF embeddings")
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
    if dimensions:
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
                         dimensions: int | None = None, name: str = "captions (TF-IDF)") -> Run:
    """Text-embedding baseline: TF-IDF (optionally LSA-reduced) caption vectors, cosine ranking."""
    matrix = tfidf_matrix(captions, concepts.ids, dimensions)
    return retrieve_by_vectors(name, concepts.ids, matrix, concepts.ids, matrix, depth)


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


TIE_BREAK_STEP = 1e-9


def strictly_decreasing(scores: Sequence[float]) -> list[float]:
    """Scores for a TREC file that every tool reads in the given order: strictly decreasing.

    ``s'_1 = s_1`` and ``s'_i = min(s_i, s'_{i-1} - step)`` with ``step = max(1e-9, 1e-12 |s'_{i-1}|)``.
    The first item of a group of tied scores keeps its score and each further tied item
    lies one step below the previous one, so trec_eval, ranx and ir_measures (which sort by
    score and break ties by document ID) see exactly the order evalcore ranked, and every
    written score is within (tied items before it) x step of the true one.

    >>> strictly_decreasing([0.5, 0.5, 0.5, 0.25])
    [0.5, 0.499999999, 0.499999998, 0.25]
    """
    written: list[float] = []
    for score in map(float, scores):
        if written:
            previous = written[-1]
            score = min(score, previous - max(TIE_BREAK_STEP, 1e-12 * abs(previous)))
        written.append(float(f"{score:.15g}"))
    return written


def write_trec_run(run: Run, path: str | Path) -> None:
    """Write ``qid Q0 docid rank score tag`` lines in the run's order, with strictly decreasing scores.

    Scores are the run's own made tie-free by :func:`strictly_decreasing` (descending ranks
    when the run has none), printed with 15 significant digits.
    """
    lines = []
    tag = re.sub(r"\s+", "_", run.name)
    for query, documents in run.rankings.items():
        scores = run.scores[query] if run.scores else tuple(float(len(documents) - r) for r in range(len(documents)))
        lines += [f"{query} Q0 {doc} {rank} {score:.15g} {tag}" for rank, (doc, score) in
                  enumerate(zip(documents, strictly_decreasing(scores)), start=1)]
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
