"""Command line: ``python -m evalcore relevance|evaluate|retrieve|detection``.

Errors in inputs exit with status 2 and one line on stderr naming file, line and expectation.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .detection import detection_f1, read_predictions
from .engine import PairwiseEngine
from .errors import CBIRLensError, InputError
from .evaluation import Evaluator
from .kg import KG_MODES, KnowledgeGraph, neighbour_sets
from .loading import load_kg, load_labels
from .metrics import GAINS, default_metric_names
from .readers import CUI_PATTERN, read_captions, read_concepts, read_embeddings, read_run, read_text
from .relevance import approximate_matches, check_alpha, iou, nn_iou
from .retrieval import retrieve_by_captions, retrieve_by_embeddings, retrieve_by_relevance, write_trec_run


def _kg_arguments(parser: argparse.ArgumentParser, required: bool = False) -> None:
    parser.add_argument("--kg", action="append", default=[], required=required, metavar="F",
                        help="KG file (edge list CSV/TSV, MRREL.RRF or OBO); repeat to combine")
    parser.add_argument("--kg-mode", choices=KG_MODES, default="undirected")
    parser.add_argument("--kg-source", action="append", default=None, metavar="TAG",
                        help="keep only edges whose source column equals TAG (repeatable)")
    parser.add_argument("--alpha", type=float, default=0.5, help="weight of approximate matches, 0..1")
    parser.add_argument("--n", type=int, default=1, help="KG distance threshold (hops)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m evalcore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    relevance = commands.add_parser("relevance", help="IoU and nn-IoU for given image pairs")
    relevance.add_argument("--concepts", required=True)
    _kg_arguments(relevance)
    relevance.add_argument("--pairs", required=True, help="CSV with header a,b (image IDs)")
    relevance.add_argument("--out", required=True)

    evaluate = commands.add_parser("evaluate", help="evaluate runs")
    evaluate.add_argument("--concepts", required=True)
    _kg_arguments(evaluate)
    evaluate.add_argument("--run", action="append", required=True, nargs="+", metavar="F")
    evaluate.add_argument("--k", type=int, nargs="+", default=[5, 10, 30])
    evaluate.add_argument("--labels", help="ID,modality,organ or kind,class,CUI")
    evaluate.add_argument("--metrics", nargs="+", help="canonical metric names (default: the standard report)")
    evaluate.add_argument("--gain", choices=GAINS, default="linear")
    evaluate.add_argument("--threshold", type=float, default=0.5, help="relevance threshold of MAP and recall")
    evaluate.add_argument("--json", required=True)
    evaluate.add_argument("--per-query")

    retrieve = commands.add_parser("retrieve", help="write a TREC run made by relevance or embeddings")
    retrieve.add_argument("--concepts", required=True)
    _kg_arguments(retrieve)
    retrieve.add_argument("--by", choices=["iou", "nn-iou", "embeddings"], required=True)
    retrieve.add_argument("--embeddings", help=".npy (with --embedding-ids), .csv or .parquet")
    retrieve.add_argument("--embedding-ids", help="ID list for a .npy file, one per line")
    retrieve.add_argument("--captions", help="ID,Caption CSV: TF-IDF caption embeddings")
    retrieve.add_argument("--svd-dims", type=int, default=0, help="reduce TF-IDF by truncated SVD (0 = off)")
    retrieve.add_argument("--depth", type=int, default=100)
    retrieve.add_argument("--name", help="system name (TREC tag)")
    retrieve.add_argument("--out", required=True)

    detection = commands.add_parser("detection", help="ImageCLEFmedical concept detection F1")
    detection.add_argument("--gt", required=True)
    detection.add_argument("--pred", required=True)
    detection.add_argument("--subset", help="concept list for the secondary F1 (one CUI per line or CSV)")
    detection.add_argument("--kg", action="append", default=[])
    detection.add_argument("--kg-mode", choices=KG_MODES, default="undirected")
    detection.add_argument("--alpha", type=float, default=0.5)
    detection.add_argument("--n", type=int, default=1)
    detection.add_argument("--json", required=True)
    return parser


def _kg(args: argparse.Namespace) -> KnowledgeGraph | None:
    return load_kg(args.kg, args.kg_source) if args.kg else None


def _finite(value: float) -> float | None:
    return value if isinstance(value, (int, float)) and math.isfinite(value) else None


def command_relevance(args: argparse.Namespace) -> None:
    concepts = read_concepts(args.concepts)
    alpha = check_alpha(args.alpha)
    kg = _kg(args)
    neighbours = neighbour_sets(kg, concepts.vocabulary, args.n, args.kg_mode)
    text, display = read_text(args.pairs)
    rows = list(csv.reader(text.splitlines()))
    if not rows or [c.strip().lower() for c in rows[0][:2]] != ["a", "b"]:
        raise InputError(display, 1, "a header 'a,b'", ",".join(rows[0])[:60] if rows else "an empty file")
    with open(args.out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["a", "b", "iou", "nn_iou", "approximate_matches"])
        for line, row in enumerate(rows[1:], start=2):
            if not row:
                continue
            if len(row) < 2:
                raise InputError(display, line, "2 image IDs 'a,b'", f"{len(row)} field")
            a, b = row[0].strip(), row[1].strip()
            for image_id in (a, b):
                if image_id not in concepts.index:
                    raise InputError(display, line, f"an image ID present in {concepts.source}", repr(image_id))
            sa, sb = concepts[a], concepts[b]
            matches = approximate_matches(sa, sb, neighbours)
            writer.writerow([a, b, repr(iou(sa, sb)), repr(nn_iou(sa, sb, neighbours, alpha)),
                             ";".join(sorted(matches))])


def command_evaluate(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    concepts = read_concepts(args.concepts)
    kg = _kg(args)
    labels = load_labels(args.labels, concepts) if args.labels else None
    runs = [read_run(path) for group in args.run for path in group]
    evaluator = Evaluator(concepts, kg, args.kg_mode, labels)
    metric_names = args.metrics or default_metric_names(args.k, evaluator.label_targets())
    evaluation = evaluator.evaluate(runs, metric_names, args.alpha, args.n, args.gain, args.threshold)
    means = evaluation.means()
    payload = {
        "systems": {name: {m: _finite(v) for m, v in values.items()} for name, values in means.items()},
        "params": {**evaluation.params, "k": args.k, "kg_files": args.kg, "kg_sources": args.kg_source,
                   "concepts": args.concepts, "labels": args.labels},
        "counts": {"images": len(concepts), **{name: c for name, c in evaluation.counts.items()}},
        "wall_seconds": round(time.perf_counter() - started, 3),
    }
    Path(args.json).write_text(json.dumps(payload, indent=2), encoding="utf-8")
    if args.per_query:
        evaluation.per_query_frame().to_csv(args.per_query, index=False)
    for name, values in means.items():
        shown = ", ".join(f"{m}={values[m]:.4f}" for m in evaluation.metric_names[:6])
        print(f"{name}: {shown}", file=sys.stderr)


def command_retrieve(args: argparse.Namespace) -> None:
    concepts = read_concepts(args.concepts)
    if args.by == "embeddings":
        if args.embeddings:
            embeddings = read_embeddings(args.embeddings, ids_source=args.embedding_ids)
            run = retrieve_by_embeddings(embeddings, concepts, args.depth, args.name or Path(args.embeddings).stem)
        elif args.captions:
            captions = read_captions(args.captions)
            run = retrieve_by_captions(captions, concepts, args.depth, args.svd_dims or None,
                                       args.name or "captions-tfidf")
        else:
            raise CBIRLensError("--by embeddings needs --embeddings F or --captions F")
    else:
        kg = _kg(args) if args.by == "nn-iou" else None
        if args.by == "nn-iou" and kg is None:
            raise CBIRLensError("--by nn-iou needs at least one --kg file")
        engine = PairwiseEngine(concepts, kg=kg, mode=args.kg_mode)
        alpha = args.alpha if args.by == "nn-iou" else 0.0
        run = retrieve_by_relevance(engine, alpha, args.n, args.depth, args.name or args.by)
    write_trec_run(run, args.out)


def _read_subset(path: str) -> frozenset[str]:
    text, display = read_text(path)
    subset = set()
    for raw in text.splitlines():
        for token in re.split(r"[,;\t\s]+", raw.strip()):
            token = token.upper()
            if CUI_PATTERN.match(token):
                subset.add(token)
    if not subset:
        raise InputError(display, None, "a list of CUIs (C + 7 digits)", "none")
    return frozenset(subset)


def command_detection(args: argparse.Namespace) -> None:
    truth = read_concepts(args.gt)
    predictions = read_predictions(args.pred, known_ids=truth.index)
    primary = detection_f1(truth, predictions.sets)
    payload: dict = {
        "f1": _finite(primary.f1),
        "counts": {"images_scored": primary.images_scored,
                   "images_empty_ground_truth": primary.images_empty_ground_truth,
                   "images_missing_prediction": primary.images_missing_prediction,
                   "predictions_read": len(predictions.sets)},
        "problems": [{"line": line, "problem": problem} for line, problem in predictions.problems],
    }
    if args.subset:
        secondary = detection_f1(truth, predictions.sets, subset=_read_subset(args.subset))
        payload["f1_secondary"] = _finite(secondary.f1)
        payload["counts"]["secondary_images_scored"] = secondary.images_scored
    if args.kg:
        kg = load_kg(args.kg)
        vocabulary = tuple(sorted(set(truth.vocabulary) | set().union(*predictions.sets.values())))
        soft = detection_f1(truth, predictions.sets, neighbours=neighbour_sets(kg, vocabulary, args.n, args.kg_mode),
                            alpha=args.alpha)
        payload["soft_f1"] = _finite(soft.f1)
        payload["soft_params"] = {"alpha": args.alpha, "n": args.n, "kg_mode": args.kg_mode}
    for line, problem in predictions.problems[:20]:
        print(f"{predictions.source}, line {line}: {problem}", file=sys.stderr)
    Path(args.json).write_text(json.dumps(payload, indent=2), encoding="utf-8")


COMMANDS = {"relevance": command_relevance, "evaluate": command_evaluate, "retrieve": command_retrieve,
            "detection": command_detection}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        COMMANDS[args.command](args)
    except CBIRLensError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"error: {error.filename or ''}: {error.strerror or error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

