"""Command line: ``python -m evalcore relevance|evaluate|compare|retrieve|detection|qrels|extract|app``
(installed: ``cbir-lens ...``).

Errors in inputs exit with status 2 and one line on stderr naming file, line and expectation.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import signal
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from evalcore.data import ConceptSets, Run
from evalcore.decimals import decimal_integer, finite_decimal
from evalcore.engine import DEFAULT_MEMORY_PER_WORKER, Compute, PairwiseEngine
from evalcore.engine.array_backend import BACKENDS, DEVICES
from evalcore.engine.executors import parse_size
from evalcore.errors import CBIRLensError, InputError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import (
    DEFAULT_CUTOFFS,
    EMPTY_QUERY_POLICIES,
    QUERY_IMAGE_POLICIES,
    TIE_ORDERS,
    Relevance,
    Scoring,
    Statistics,
)
from evalcore.evaluation.qrels import graded_judgments
from evalcore.evaluation.results import evaluate_runs, finite_or_none
from evalcore.evaluation.retrieval import (
    MAX_SVD_DIMENSIONS,
    retrieve_by_captions,
    retrieve_by_embeddings,
    retrieve_by_measure,
    write_trec_run,
)
from evalcore.io.loading import kg_names_file, load_kg, load_labels
from evalcore.io.outputs import atomic_output, check_outputs, concepts_csv, write_text_atomically
from evalcore.metrics.detection import detection_f1
from evalcore.metrics.registry import GAINS, parse_metric
from evalcore.metrics.ties import run_tie_counts, tie_message
from evalcore.readers import (
    CUI_PATTERN,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_MAX_RUN_BYTES,
    INPUT_BUDGET_VARIABLE,
    read_captions,
    read_concepts,
    read_embeddings,
    read_pairs,
    read_predictions,
    read_qrels,
    read_runs,
    read_text,
)
from evalcore.relevance.formulas import approximate_matches, check_alpha, iou, nn_iou
from evalcore.relevance.kg import KG_MODES, KnowledgeGraph, check_hops_and_mode, neighbour_sets
from evalcore.relevance.measures import MEASURES, MeasureSpec, nn_iou_measure, parse_measure
from evalcore.resources import project_root


def _kg_arguments(parser: argparse.ArgumentParser, required: bool = False) -> None:
    parser.add_argument("--kg", action="append", default=[], required=required, metavar="F", same=_same_file,
                        help="KG file (edge list CSV/TSV, MRREL.RRF or OBO); repeat to combine")
    parser.add_argument("--kg-mode", choices=KG_MODES, default="undirected")
    parser.add_argument("--kg-source", action="append", default=None, metavar="TAG",
                        help="keep only edges whose source column equals TAG (repeatable)")
    parser.add_argument("--alpha", type=_number, default=0.5, help="weight of approximate matches, 0..1")
    parser.add_argument("--n", type=_integer, default=1, help="KG distance threshold (hops)")


def _scale_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--workers", type=_integer, metavar="N",
                       help="compute the passes over the pool on N local worker processes (0 = one per core; "
                            "default: in this process)")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="compute them on a Dask cluster, e.g. tcp://10.0.0.5:8786 (needs cbir-lens[scale])")
    parser.add_argument("--memory-per-worker", type=_memory_size, default=DEFAULT_MEMORY_PER_WORKER, metavar="SIZE",
                        help="memory budget of each worker, e.g. 2GB or 512MB; sets the block size (default 2GiB)")


def _memory_size(raw: str) -> int:
    try:
        return parse_size(raw)
    except CBIRLensError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _compute(args: argparse.Namespace) -> Compute:
    """Where the passes run, from ``--workers`` / ``--scheduler`` / ``--memory-per-worker`` (and ``--backend`` /
    ``--device`` where the command has them)."""
    if args.workers is not None and args.workers < 0:
        raise CBIRLensError(f"--workers must be 0 (one per core) or more, got {args.workers}")
    backend = {"backend": args.backend, "device": args.device} if hasattr(args, "backend") else {}
    return Compute(workers=args.workers, client=args.scheduler, memory_per_worker=args.memory_per_worker, **backend)


class ProgressBar:
    """A progress bar on stderr, drawn only once the work has lasted ``after`` seconds (short commands stay
    quiet), redrawn at most every ``every`` seconds; called with the fraction done (and a label)."""

    line_open = False  # a bar is drawn and its line not yet ended: an error message must start a line of its own

    def __init__(self, after: float = 2.0, every: float = 0.25, width: int = 30):
        self.started = time.perf_counter()
        self.after, self.every, self.width = after, every, width
        self.drawn_at: float | None = None

    def __call__(self, fraction: float, label: str = "") -> None:
        now = time.perf_counter()
        if now - self.started < self.after or (self.drawn_at is not None and now - self.drawn_at < self.every
                                                and fraction < 1):
            return
        filled = int(self.width * min(1.0, max(0.0, fraction)))
        print(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {fraction:4.0%} {now - self.started:6.1f} s {label[:60]}",
              end="", file=sys.stderr, flush=True)
        self.drawn_at = now
        ProgressBar.line_open = True

    def close(self) -> None:
        end_progress_line()


def end_progress_line() -> None:
    """End the line of a progress bar left drawn, so that what is printed next stands on a line of its own."""
    if ProgressBar.line_open:
        print(file=sys.stderr, flush=True)
        ProgressBar.line_open = False


def _error(message: str) -> int:
    """Print an error as one line of its own on stderr; the exit status of a refused command."""
    end_progress_line()
    print(f"error: {message}", file=sys.stderr, flush=True)
    return 2


def _backend_arguments(parser: argparse.ArgumentParser, listed_pairs: bool = False) -> None:
    parser.add_argument("--backend", choices=tuple(BACKENDS), default="numpy",
                        help="array backend of the pairwise engine: numpy (CPU) or jax (the optional extra "
                             "cbir-lens[gpu]); the numbers are the same"
                             + ("; listed pairs are always counted on the CPU, the choice is only checked" if listed_pairs
                                else ""))
    parser.add_argument("--device", choices=DEVICES,
                        help="with --backend jax: cpu or gpu (default: a GPU when JAX sees one, else the CPU)")


def _reading_arguments(parser: argparse.ArgumentParser) -> None:
    """How the runs' lists are read (:class:`~evalcore.evaluation.options.Relevance`'s ``ties`` and ``query_image``)."""
    parser.add_argument("--ties", choices=TIE_ORDERS, default="rank",
                        help="order of items with tied scores: rank (default: score, then the file's rank, the order "
                             "the run's author wrote) or trec_eval (score as float32, then document ID descending, as "
                             "trec_eval, pytrec_eval and ir_measures order them)")
    parser.add_argument("--query-image", choices=QUERY_IMAGE_POLICIES, default="drop",
                        help="a query's own image in its list: drop (default; it is not a candidate) or keep it at its "
                             "rank as trec_eval counts it (its judged grade under --qrels, else relevance 0)")


def _print_tie_notes(counts: dict[str, dict[str, int]], ties: str) -> None:
    """One line on stderr per system with tied scores (:func:`evalcore.metrics.ties.tie_message`)."""
    for system, found in counts.items():
        message = tie_message(system, found, ties)
        if message:
            print(f"note: {message}", file=sys.stderr)


def _measure_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--measure", metavar="NAME",
                        help="relevance measure, e.g. dice, 'tversky(a=0.7,b=0.3)', 'nn-iou-hops(w1=0.5,w2=0.25)' "
                             f"(keys: {', '.join(MEASURES)}); alpha and n not written here come from --alpha and --n "
                             "(default: nn-iou)")


def _measure(args: argparse.Namespace) -> MeasureSpec:
    """The measure of ``--measure``, its alpha and n from ``--alpha``/``--n`` unless written in it."""
    return parse_measure("nn-iou" if args.measure is None else args.measure, {"alpha": args.alpha, "n": args.n})


_GIVEN = "_options_given"  # the destinations set so far in one parse; removed before the namespace is returned


class DistinctValues(argparse.Action):
    """An option whose values may not repeat (:func:`_refuse_repeats`); ``same`` (an ``add_argument`` keyword) maps
    a value to what it stands for: a metric's canonical name, a file's real path."""

    def __init__(self, *args, same: Callable[[object], object] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.same = same


class StoreOnce(DistinctValues):
    """Store an option's value, refusing the option given twice: argparse would silently keep the last one,
    so ``--json a.json ... --json b.json`` or two ``--alpha`` values would give one answer for two questions.
    A list (``nargs``) may not repeat a value either."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        given = namespace.__dict__.setdefault(_GIVEN, set())
        if self.dest in given:
            parser.error(f"{option_string or self.dest} is given twice; give it once")
        given.add(self.dest)
        if isinstance(values, list):
            _refuse_repeats(parser, option_string or self.dest, values, self.same)
        setattr(namespace, self.dest, values)


class AppendDistinct(DistinctValues):
    """Append a repeatable option's value (or its ``nargs`` list), refusing a value given before, in this or an
    earlier occurrence."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        groups = [*(getattr(namespace, self.dest, None) or []), values]  # a copy: the default list stays empty
        flat = [value for group in groups for value in (group if isinstance(group, list) else [group])]
        _refuse_repeats(parser, option_string or self.dest, flat, self.same)
        setattr(namespace, self.dest, groups)


def _refuse_repeats(parser: argparse.ArgumentParser, option: str, values: Sequence[object],
                    same: Callable[[object], object] | None) -> None:
    """Refuse a list option that names one value twice (``--k 10 10``, ``--metric X --metric X``, one run or KG
    file twice): each would be computed and printed twice, or read twice, as if it were two. ``same`` maps a
    value to what it stands for (a metric's canonical name, a file's real path)."""
    seen: dict[object, object] = {}
    for value in values:
        key = same(value) if same else value
        if key in seen:
            earlier = seen[key]
            also = "" if earlier == value else f" (the same as {_shown(earlier, 1000)})"
            parser.error(f"{option}: {_shown(value, 1000)} is given twice{also}; give each value once")
        seen[key] = value


def _same_metric(name: object) -> object:
    """A metric name's canonical form, or the name itself where it is none (refused later, naming it)."""
    try:
        return parse_metric(str(name)).name
    except CBIRLensError:
        return name


def _same_file(path: object) -> object:
    """The file a path names, symbolic links and ``..`` resolved (an empty path stays itself: refused later)."""
    return os.path.realpath(path) if path else path


class OneLineArgumentParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line on stderr (exit 2), like every other input error, and whose
    single-valued options may be given once (:class:`StoreOnce`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, StoreOnce)
        self.register("action", "store", StoreOnce)
        self.register("action", "append", AppendDistinct)

    def parse_known_args(self, args=None, namespace=None):
        parsed, extras = super().parse_known_args(args, namespace)
        vars(parsed).pop(_GIVEN, None)
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {self.prog}: {message} (see --help)\n")


# The bound of a whole-number option: far above any sensible value, and within int()'s 4,300 digits.
MAX_OPTION_INTEGER = 10**18


def _integer(raw: str) -> int:
    """A whole-number option's value in ASCII decimal digits (:func:`~evalcore.decimals.decimal_integer`): int()
    would also read other scripts' digits (``١٠``), underscores (``1_0``) and inner line breaks. Its range is the
    command's to check, naming the option."""
    value = decimal_integer(raw, MAX_OPTION_INTEGER)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a whole number in digits 0-9 such as 10 (at most 10^18), found "
                                         f"{_shown(raw)}")
    return value


def _number(raw: str) -> float:
    """A number option's value in ASCII decimal syntax, finite (:func:`~evalcore.decimals.finite_decimal`): float()
    would also read other scripts' digits (``٠.٥``), underscores, inner line breaks, inf and nan."""
    value = finite_decimal(raw)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a finite number in digits 0-9 such as 0.5 or 1e-3, found "
                                         f"{_shown(raw)}")
    return value


def _positive_bytes(raw: str) -> int:
    value = _integer(raw)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 byte, found {value}")
    return value


def _shown(value: object, limit: int = 40) -> str:
    """A value as an error message quotes it: text by repr() (spaces and odd characters visible), cut at ``limit``."""
    return repr(value[:limit]) if isinstance(value, str) else str(value)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineArgumentParser(prog=_program_name(), description=__doc__)
    parser.add_argument("--max-input-bytes", type=_positive_bytes, metavar="N",
                        help=f"largest input file read, in bytes (default {DEFAULT_MAX_FILE_BYTES:,}, runs "
                             f"{DEFAULT_MAX_RUN_BYTES:,}; also the {INPUT_BUDGET_VARIABLE} environment variable)")
    commands = parser.add_subparsers(dest="command", required=True)

    relevance = commands.add_parser("relevance", help="IoU and nn-IoU for given image pairs")
    relevance.add_argument("--concepts", required=True)
    _kg_arguments(relevance)
    relevance.add_argument("--pairs", required=True, help="CSV with header a,b (image IDs)")
    _measure_argument(relevance)
    _backend_arguments(relevance, listed_pairs=True)
    relevance.add_argument("--out", required=True)

    evaluate = commands.add_parser("evaluate", help="evaluate runs")
    evaluate.add_argument("--concepts", help="concept sets: the relevance source (needed unless --qrels; and for --labels)")
    _kg_arguments(evaluate)
    _scale_arguments(evaluate)
    evaluate.add_argument("--run", action="append", required=True, nargs="+", metavar="F", same=_same_file)
    evaluate.add_argument("--k", type=_integer, nargs="+", default=list(DEFAULT_CUTOFFS))
    evaluate.add_argument("--labels", help="ID,modality,organ or kind,class,CUI")
    evaluate.add_argument("--metrics", nargs="+", same=_same_metric, help="canonical metric names (default: the standard report)")
    evaluate.add_argument("--gain", choices=GAINS, default="linear")
    evaluate.add_argument("--threshold", type=_number, default=0.5, help="relevance threshold of MAP and recall")
    evaluate.add_argument("--json", required=True)
    _measure_argument(evaluate)
    _backend_arguments(evaluate)
    evaluate.add_argument("--per-query")
    evaluate.add_argument("--qrels", metavar="F", help="TREC qrels 'qid iter docid grade': the relevance source of qrels- "
                                                         "metrics instead of the concept sets")
    evaluate.add_argument("--relevance-level", type=_integer, default=1,
                          help="with --qrels: a grade at least this counts as relevant (trec_eval -l)")
    evaluate.add_argument("--empty-queries", choices=EMPTY_QUERY_POLICIES, default="exclude",
                          help="queries with no relevant item: left out of every metric (default) or scored 0")
    _reading_arguments(evaluate)

    retrieve = commands.add_parser("retrieve", help="write a TREC run made by relevance or embeddings")
    retrieve.add_argument("--concepts", required=True)
    _kg_arguments(retrieve)
    _scale_arguments(retrieve)
    retrieve.add_argument("--by", choices=["iou", "nn-iou", "embeddings"], help="or --measure NAME")
    _measure_argument(retrieve)
    retrieve.add_argument("--embeddings", help=".npy (with --embedding-ids), .csv or .parquet")
    retrieve.add_argument("--embedding-ids", help="ID list for a .npy file, one per line")
    retrieve.add_argument("--captions", help="ID,Caption CSV: TF-IDF caption embeddings")
    retrieve.add_argument("--svd-dims", type=_integer, default=0, help="reduce TF-IDF by truncated SVD (0 = off)")
    retrieve.add_argument("--depth", type=_integer, default=100)
    retrieve.add_argument("--name", help="system name (TREC tag)")
    _backend_arguments(retrieve)
    retrieve.add_argument("--out", required=True)

    detection = commands.add_parser("detection", help="ImageCLEFmedical concept detection F1")
    detection.add_argument("--gt", required=True)
    detection.add_argument("--pred", required=True)
    detection.add_argument("--subset", help="concept list for the secondary F1 (one CUI per line or CSV)")
    detection.add_argument("--kg", action="append", default=[], same=_same_file)
    detection.add_argument("--kg-mode", choices=KG_MODES, default="undirected")
    detection.add_argument("--alpha", type=_number, default=0.5)
    detection.add_argument("--n", type=_integer, default=1)
    detection.add_argument("--json", required=True)

    compare = commands.add_parser("compare", help="confidence intervals and pairwise significance tests (Holm)")
    compare.add_argument("--concepts", required=True)
    _kg_arguments(compare)
    _scale_arguments(compare)
    compare.add_argument("--run", action="append", required=True, nargs="+", metavar="F", same=_same_file)
    compare.add_argument("--metric", action="append", required=True, nargs="+", metavar="NAME", same=_same_metric,
                         help="canonical metric name(s), e.g. nn-CUI@10; Holm correction runs over the pairs per metric")
    compare.add_argument("--labels", help="ID,modality,organ or kind,class,CUI (for P@K metrics)")
    compare.add_argument("--gain", choices=GAINS, default="linear")
    compare.add_argument("--threshold", type=_number, default=0.5, help="relevance threshold of MAP and recall")
    compare.add_argument("--confidence", type=_number, default=Statistics.confidence)
    compare.add_argument("--bootstrap-samples", type=_integer, default=Statistics.bootstrap_samples)
    compare.add_argument("--randomization-samples", type=_integer, default=Statistics.randomization_samples)
    compare.add_argument("--seed", type=_integer, default=Statistics.seed)
    compare.add_argument("--json", required=True)
    _measure_argument(compare)
    _reading_arguments(compare)

    extract = commands.add_parser("extract", help="concept sets (ID,CUIs) from captions by dictionary matching")
    extract.add_argument("--captions", required=True, help="ID,Caption CSV")
    extract.add_argument("--names", required=True, nargs="+", metavar="F", same=_same_file,
                         help="concept names: ROCOv2 cui_mapping.csv, MRCONSO.RRF or a KG's id,name file (the "
                              "first file naming an ID gives its name, the others synonyms)")
    extract.add_argument("--synonyms", nargs="+", metavar="F", same=_same_file,
                         help="synonyms: OBO (UBERON, HPO), DOID allXREFinDO.tsv, MeSH descriptors TSV, MRCONSO.RRF")
    extract.add_argument("--no-abbreviations", action="store_true",
                         help="leave out the built-in imaging vocabulary (CT, MRI, US, X-ray, views, ...)")
    extract.add_argument("--ontology-ids", action="store_true", help="also emit concept IDs that are not CUIs")
    extract.add_argument("--out", required=True, help="ID,CUIs CSV to write")

    # Options go to `streamlit run` untouched ('+' is no prefix of theirs), e.g. --server.port 8502.
    app = commands.add_parser("app", prefix_chars="+", add_help=False,
                              help="start the dashboard; options are those of `streamlit run`")
    app.add_argument("streamlit_options", nargs="*")

    qrels = commands.add_parser("qrels", help="write graded TREC qrels: ideal top K over the pool plus retrieved images")
    qrels.add_argument("--concepts", required=True)
    _kg_arguments(qrels)
    _scale_arguments(qrels)
    qrels.add_argument("--run", action="append", required=True, nargs="+", metavar="F", same=_same_file)
    qrels.add_argument("--k", type=_integer, default=10, help="ideal top K written per query (nDCG@k exact for k <= K)")
    qrels.add_argument("--out", required=True)
    qrels.add_argument("--scales", metavar="F", help="CSV query_id,scale,exact (relevance = grade / scale)")

    check = commands.add_parser("check", help="read inputs as the dashboard's Data page does and print its validation "
                                              "report (file, kind, rows read, problems; a run's tied scores "
                                              "among them)")
    source = check.add_mutually_exclusive_group(required=True)
    source.add_argument("--concepts", help="concept sets (ID,CUIs)")
    source.add_argument("--rocov2", metavar="FOLDER", help="a folder in the ROCOv2 layout (test split), its runs/ and "
                                                           "the KG in ../kg, as the Data page loads it")
    source.add_argument("--demo", action="store_true", help="the embedded synthetic demo")
    check.add_argument("--kg", nargs="+", default=[], metavar="F", same=_same_file, help="knowledge-graph files")
    check.add_argument("--run", nargs="+", default=[], metavar="F", same=_same_file, help="run files (TREC or CSV)")
    check.add_argument("--labels", help="labels (ID,modality,organ or kind,class,CUI)")
    check.add_argument("--names", help="concept names (CUI,Name or MRCONSO.RRF)")
    check.add_argument("--captions", help="captions (ID,Caption)")
    check.add_argument("--embeddings", help="embeddings (.npy with --embedding-ids, .csv or .parquet)")
    check.add_argument("--embedding-ids", help="the ID list of a .npy file, one per line")
    check.add_argument("--images", help="a zip of <ID>.png/.jpg images")
    check.add_argument("--csv", action="store_true", help="print CSV instead of a Markdown table")
    return parser


def _program_name() -> str:
    return "cbir-lens" if Path(sys.argv[0]).stem == "cbir-lens" else "python -m evalcore"


def _kg(args: argparse.Namespace) -> KnowledgeGraph | None:
    return load_kg(args.kg, args.kg_source) if args.kg else None


def _kg_inputs(args: argparse.Namespace) -> list[str | Path]:
    """The KG files a command reads: each ``--kg`` and the names file read beside it."""
    return [path for kg_file in args.kg for path in (kg_file, kg_names_file(kg_file)) if path is not None]


def _runs(args: argparse.Namespace) -> list[str]:
    return [path for group in args.run for path in group]


def command_relevance(args: argparse.Namespace) -> None:
    check_outputs({"--out": args.out}, [args.concepts, args.pairs, *_kg_inputs(args)])
    Compute(backend=args.backend, device=args.device).array_backend()  # a bad choice fails here as in evaluate
    concepts = read_concepts(args.concepts)
    alpha = check_alpha(args.alpha)
    kg = _kg(args)
    neighbours = neighbour_sets(kg, concepts.vocabulary, args.n, args.kg_mode)
    chosen = _measure(args).pair_function(kg, concepts.vocabulary, args.kg_mode)
    pairs = read_pairs(args.pairs)
    rows = []
    for line, a, b in pairs:
        for image_id in (a, b):
            if image_id not in concepts.index:
                raise InputError(args.pairs, line, f"an image ID present in {concepts.source}", repr(image_id))
        sa, sb = concepts[a], concepts[b]
        matches = approximate_matches(sa, sb, neighbours)
        rows.append([a, b, repr(iou(sa, sb)), repr(nn_iou(sa, sb, neighbours, alpha)), ";".join(sorted(matches)),
                     repr(chosen(sa, sb))])
    # Written only once every pair is valid, so a refused input leaves an earlier output as it was.
    with atomic_output(args.out) as handle:
        writer = csv.writer(handle)
        writer.writerow(["a", "b", "iou", "nn_iou", "approximate_matches", "value"])
        writer.writerows(rows)


def command_evaluate(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    if not args.concepts and not args.qrels:
        raise CBIRLensError("evaluate needs a relevance source: --concepts F (IoU / nn-IoU) or --qrels F (judgments)")
    if args.labels and not args.concepts:
        raise CBIRLensError("--labels needs --concepts (labels belong to the images of the concept file)")
    if args.qrels and (args.measure is not None or args.kg):
        raise CBIRLensError("--measure and --kg choose concept relevance, which --qrels replaces: give them with "
                            "--concepts alone, or leave them out with --qrels")
    check_outputs({"--json": args.json, "--per-query": args.per_query},
                  [args.concepts, args.qrels, args.labels, *_kg_inputs(args), *_runs(args)])
    concepts = read_concepts(args.concepts) if args.concepts else None
    qrels = read_qrels(args.qrels) if args.qrels else None
    kg = _kg(args)
    labels = load_labels(args.labels, concepts) if args.labels else None
    runs = [run for path in _runs(args) for run in read_runs(path)]
    evaluator = Evaluator(concepts, kg, args.kg_mode, labels, qrels=qrels, compute=_compute(args))
    # Under --qrels the table's measure is the judgments': --measure is refused above and not recorded.
    relevance = Relevance.of(args.alpha, args.n, _measure(args) if qrels is None else None, gain=args.gain,
                             threshold=args.threshold, relevance_level=args.relevance_level,
                             empty_queries=args.empty_queries, ties=args.ties, query_image=args.query_image)
    bar = ProgressBar()
    results = evaluate_runs(evaluator, runs, Scoring(args.metrics, args.k), relevance, Statistics(), bar)
    bar.close()
    _print_tie_notes(results.counts, args.ties)
    payload = results.to_dict()
    payload["params"].update({"k": args.k, "kg_files": args.kg, "kg_sources": args.kg_source,
                              "concepts": args.concepts, "labels": args.labels})
    payload["wall_seconds"] = round(time.perf_counter() - started, 3)
    payload["backend"] = evaluator.engine.last_pass.text() if evaluator.engine and evaluator.engine.last_pass else None
    # The per-query values first: the JSON, written last, marks a complete evaluation.
    if args.per_query:
        with atomic_output(args.per_query) as handle:
            results.per_query().to_csv(handle, index=False)
    write_text_atomically(args.json, json.dumps(payload, indent=2))
    for name, values in results.means().items():
        shown = ", ".join(f"{m}={values[m]:.4f}" for m in results.metrics[:6])
        print(f"{name}: {shown}", file=sys.stderr)


def command_retrieve(args: argparse.Namespace) -> None:
    if (args.by is None) == (args.measure is None):
        raise CBIRLensError("retrieve needs --by iou|nn-iou|embeddings or --measure NAME (one of them)")
    if args.depth < 1:
        raise CBIRLensError(f"--depth: expected a whole number of at least 1, found {args.depth}")
    if not 0 <= args.svd_dims <= MAX_SVD_DIMENSIONS:
        raise CBIRLensError(f"--svd-dims: expected 0 (no reduction) or a number of dimensions up to "
                            f"{MAX_SVD_DIMENSIONS:,}, found {args.svd_dims}")
    check_outputs({"--out": args.out}, [args.concepts, args.embeddings, args.embedding_ids, args.captions,
                                        *_kg_inputs(args)])
    run = _retrieved_run(args, read_concepts(args.concepts))
    longest = int(max((len(ranked) for ranked in run.rankings.values()), default=0))
    if args.depth > longest:
        print(f"note: --depth {args.depth:,} is more than the pool holds: each list ranks the whole pool, at most "
              f"{longest:,} images (the query itself left out)", file=sys.stderr)
    write_trec_run(run, args.out)


def _retrieved_run(args: argparse.Namespace, concepts: ConceptSets) -> Run:
    """The run ``retrieve`` asked for: by ``--measure``, by relevance (``--by iou|nn-iou``) or by embeddings."""
    if args.measure is not None:
        measure = _measure(args)
        kg = _kg(args)
        if measure.uses_kg and kg is None:
            raise CBIRLensError(f"--measure {measure.key} needs at least one --kg file")
        engine = PairwiseEngine(concepts, kg=kg, mode=args.kg_mode, compute=_compute(args))
        bar = ProgressBar()
        run = retrieve_by_measure(engine, measure, args.depth, args.name or measure.name, bar)
        bar.close()
        return run
    if args.by == "embeddings":
        if args.embeddings:
            embeddings = read_embeddings(args.embeddings, ids_source=args.embedding_ids)
            return retrieve_by_embeddings(embeddings, concepts, args.depth, args.name or Path(args.embeddings).stem)
        if args.captions:
            captions = read_captions(args.captions)
            return retrieve_by_captions(captions, concepts, args.depth, args.svd_dims or None,
                                        args.name or "captions-tfidf", args.captions)
        raise CBIRLensError("--by embeddings needs --embeddings F or --captions F")
    kg = _kg(args) if args.by == "nn-iou" else None
    if args.by == "nn-iou" and kg is None:
        raise CBIRLensError("--by nn-iou needs at least one --kg file")
    engine = PairwiseEngine(concepts, kg=kg, mode=args.kg_mode, compute=_compute(args))
    alpha = args.alpha if args.by == "nn-iou" else 0.0
    bar = ProgressBar()
    run = retrieve_by_measure(engine, nn_iou_measure(alpha, args.n, args.kg_mode), args.depth, args.name or args.by, bar)
    bar.close()
    return run


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
    check_alpha(args.alpha)
    check_hops_and_mode(args.n, args.kg_mode)
    check_outputs({"--json": args.json}, [args.gt, args.pred, args.subset, *_kg_inputs(args)])
    truth = read_concepts(args.gt)
    predictions = read_predictions(args.pred, known_ids=truth.index)
    primary = detection_f1(truth, predictions.sets)
    payload: dict = {
        "f1": finite_or_none(primary.f1),
        "counts": {"images_scored": primary.images_scored,
                   "images_empty_ground_truth": primary.images_empty_ground_truth,
                   "images_missing_prediction": primary.images_missing_prediction,
                   "predictions_read": len(predictions.sets)},
        "problems": [{"line": line, "problem": problem} for line, problem in predictions.problems],
    }
    if args.subset:
        secondary = detection_f1(truth, predictions.sets, subset=_read_subset(args.subset))
        payload["f1_secondary"] = finite_or_none(secondary.f1)
        payload["counts"]["secondary_images_scored"] = secondary.images_scored
    if args.kg:
        kg = load_kg(args.kg)
        vocabulary = tuple(sorted(set(truth.vocabulary) | set().union(*predictions.sets.values())))
        soft = detection_f1(truth, predictions.sets, neighbours=neighbour_sets(kg, vocabulary, args.n, args.kg_mode),
                            alpha=args.alpha)
        payload["soft_f1"] = finite_or_none(soft.f1)
        payload["soft_params"] = {"alpha": args.alpha, "n": args.n, "kg_mode": args.kg_mode}
    for line, problem in predictions.problems[:20]:
        print(f"{predictions.source}, line {line}: {problem}", file=sys.stderr)
    write_text_atomically(args.json, json.dumps(payload, indent=2))


def command_compare(args: argparse.Namespace) -> None:
    from evalcore.api import evaluate

    started = time.perf_counter()
    metrics = [m for group in args.metric for m in group]  # distinct: a repeated name is refused as it is read
    runs = _runs(args)
    check_outputs({"--json": args.json}, [args.concepts, args.labels, *_kg_inputs(args), *runs])
    compute = _compute(args)
    bar = ProgressBar()
    results = evaluate(args.concepts, runs, kg=args.kg or None, alpha=args.alpha, n=args.n, labels=args.labels,
                       metrics=metrics, kg_mode=args.kg_mode, kg_sources=args.kg_source, gain=args.gain,
                       threshold=args.threshold, confidence=args.confidence, bootstrap_samples=args.bootstrap_samples,
                       randomization_samples=args.randomization_samples, seed=args.seed,
                       measure=_measure(args) if args.measure is not None else None, progress=bar,
                       workers=compute.workers, client=compute.client, memory_per_worker=compute.memory_per_worker,
                       ties=args.ties, query_image=args.query_image)
    bar.close()
    _print_tie_notes(results.counts, args.ties)
    payload = results.to_dict(compare=metrics)
    payload["params"].update({"kg_files": args.kg, "kg_sources": args.kg_source, "concepts": args.concepts,
                              "labels": args.labels, "runs": runs})
    payload["wall_seconds"] = round(time.perf_counter() - started, 3)
    write_text_atomically(args.json, json.dumps(payload, indent=2))
    table = results.table()
    statistics = results.statistics
    print(f"randomization test: {statistics.randomization_samples:,} randomizations, so no p-value below "
          f"1/({statistics.randomization_samples:,} + 1) = {statistics.smallest_randomization_p:.4g} before Holm "
          "(--randomization-samples raises it)", file=sys.stderr)
    for metric in metrics:
        print(f"{metric} (mean [{results.statistics.confidence:.0%} CI]):", file=sys.stderr)
        for row in table[table.metric == metric].itertuples():
            print(f"  {row.system}: {row.mean:.4f} [{row.ci_low:.4f}, {row.ci_high:.4f}], {row.queries} queries",
                  file=sys.stderr)
        for pair in results.compare(metric).itertuples():
            floor = (f" (raw p {pair.p_randomization:.4g}, the floor)"
                     if pair.p_randomization <= statistics.smallest_randomization_p else "")
            print(f"  {pair.system_a} - {pair.system_b}: {pair.mean_difference:+.4f}, randomization p (Holm) "
                  f"{pair.p_randomization_holm:.4g}{floor}, t-test p (Holm) {pair.p_t_test_holm:.4g}", file=sys.stderr)


def command_extract(args: argparse.Namespace) -> None:
    from evalcore.api import extract_concepts
    from evalcore.extraction.extractor import coverage

    check_outputs({"--out": args.out}, [args.captions, *args.names, *(args.synonyms or [])])
    bar = ProgressBar()
    concepts = extract_concepts(args.captions, args.names, synonyms=args.synonyms,
                                abbreviations=not args.no_abbreviations, ontology_ids=args.ontology_ids,
                                progress=lambda fraction: bar(fraction, "captions"))
    bar.close()
    write_text_atomically(args.out, concepts_csv(concepts))
    report = coverage(concepts, top=0)
    print(f"{report.images:,} captions: {report.images - len(report.without_concept):,} with at least one concept, "
          f"{report.distinct_concepts:,} distinct concepts, {report.occurrences:,} in all", file=sys.stderr)


def command_app(args: argparse.Namespace) -> None:
    """Run the dashboard in this process: ``streamlit run [options] <root>/app.py``, where root is the
    checkout or the installed package's copy; the ``.streamlit/config.toml`` beside app.py applies."""
    app = project_root() / "app.py"
    if not app.is_file():
        raise CBIRLensError(f"{app}: the dashboard's files are missing; reinstall cbir-lens")
    from streamlit.web import cli as streamlit_cli

    if {"-h", "--help"} & set(args.streamlit_options):
        print(f"usage: {_program_name()} app [OPTIONS]  (runs `streamlit run [OPTIONS] {app}`)\n")
    streamlit_cli.main(["run", *args.streamlit_options, str(app)], prog_name="streamlit")


def command_qrels(args: argparse.Namespace) -> None:
    check_outputs({"--out": args.out, "--scales": args.scales}, [args.concepts, *_kg_inputs(args), *_runs(args)])
    concepts = read_concepts(args.concepts)
    runs = [run for path in _runs(args) for run in read_runs(path)]
    evaluator = Evaluator(concepts, _kg(args), args.kg_mode, compute=_compute(args))
    bar = ProgressBar()
    judgments = graded_judgments(evaluator, runs, args.k, nn_iou_measure(args.alpha, args.n, args.kg_mode), bar)
    bar.close()
    if args.scales:
        write_text_atomically(args.scales, judgments.scales_csv())
    write_text_atomically(args.out, judgments.text())
    counts = judgments.counts
    print(f"{counts['judgments']:,} judgments for {counts['queries']:,} queries; grade = relevance x a per-query scale "
          f"(exact for {counts['queries_exact']:,} queries, rounded for {counts['queries_rounded']:,}); largest grade "
          f"{counts['largest_grade']:,}", file=sys.stderr)


def command_check(args: argparse.Namespace) -> None:
    import pandas as pd

    from evalcore.app import workspace as ws
    from evalcore.io.tables import markdown_table, spreadsheet_csv
    from evalcore.readers import read_input_bytes

    def data(path: str) -> bytes:
        return read_input_bytes(path, path)[0]

    check_outputs({}, [args.concepts, args.rocov2, *args.kg, *args.run, args.labels, args.names, args.captions,
                       args.images, args.embeddings, args.embedding_ids])
    if args.demo:
        loaded = ws.load_demo()
    elif args.rocov2:
        loaded = ws.load_rocov2_complete(args.rocov2, (Path("/"),))  # the command line reads what its user names
    else:
        loaded = ws.with_concepts(ws.Workspace(), data(args.concepts), args.concepts)
    for path in args.kg:
        loaded = ws.with_kg(loaded, data(path), path)
    for path in args.run:
        loaded = ws.with_run(loaded, data(path), path)
    for loader, path in ((ws.with_labels, args.labels), (ws.with_names, args.names),
                         (ws.with_captions, args.captions), (ws.with_images, args.images)):
        if path:
            loaded = loader(loaded, data(path), path)
    if args.embeddings:
        ids = data(args.embedding_ids) if args.embedding_ids else None
        loaded = ws.with_embeddings(loaded, data(args.embeddings), args.embeddings, ids, args.embedding_ids)
    rows = ws.report_table(loaded)
    for row in rows:  # a run's tied scores, which the evaluation orders by rank unless --ties trec_eval
        run = next((kept for name, (_, kept) in loaded.runs.items() if row["kind"] == f"run '{name}'"), None)
        found = run_tie_counts(run) if run is not None else None
        message = tie_message(run.name, {**found.as_counts(), "queries_in_run": found.queries}, "rank",
                              "evaluate --ties") if found is not None else None
        if message:
            row["problems"] = "; ".join(part for part in (row["problems"], message) if part and part != "none")
    report = pd.DataFrame(rows, columns=["file", "kind", "rows read", "problems"])
    print(spreadsheet_csv(report) if args.csv else markdown_table(report), end="" if args.csv else "\n")


COMMANDS = {"relevance": command_relevance, "evaluate": command_evaluate, "retrieve": command_retrieve,
            "detection": command_detection, "compare": command_compare, "qrels": command_qrels, "extract": command_extract,
            "app": command_app, "check": command_check}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    previous_budget = os.environ.get(INPUT_BUDGET_VARIABLE)
    if args.max_input_bytes is not None:
        os.environ[INPUT_BUDGET_VARIABLE] = str(args.max_input_bytes)
    try:
        COMMANDS[args.command](args)
    except CBIRLensError as error:
        return _error(str(error))
    except OSError as error:
        return _error(f"{error.filename or ''}: {error.strerror or error}")
    except MemoryError:
        return _error(f"{args.command} ran out of memory; give it smaller inputs or, for passes over the pool, a "
                      "smaller --memory-per-worker (outputs not yet complete were not written)")
    finally:
        if args.max_input_bytes is not None:
            if previous_budget is None:
                os.environ.pop(INPUT_BUDGET_VARIABLE, None)
            else:
                os.environ[INPUT_BUDGET_VARIABLE] = previous_budget
    return 0


STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _stop_on_signal(number: int, _frame: object) -> NoReturn:
    """Unwind like an error (so the temporary file of an output being written is removed), saying so once: a
    second signal while unwinding (``timeout`` signals the whole process group) is ignored."""
    for stopping in STOPPING_SIGNALS:
        signal.signal(stopping, signal.SIG_IGN)
    _error(f"stopped by signal {signal.Signals(number).name}; outputs not yet complete were not written")
    raise SystemExit(128 + number)


def run() -> NoReturn:
    """Console entry point: :func:`main`, then leave without the interpreter's native teardown.

    Arrow's C++ thread pools, started by the first columnar read, can still be spawning a worker when a
    short command (say, one that stops at a bad input) ends; destroying them at process exit then
    aborts with SIGABRT ("terminate called without an active exception", apache/arrow#34314). Every
    output file is closed by the command itself, so flushing the two streams is all that is left.
    The process is the command's own, so its allocator reuses freed arrays (:func:`reuse_freed_memory`).
    """
    from evalcore.engine.executors import reuse_freed_memory

    reuse_freed_memory()
    # A stopped command (Ctrl-C, kill, a closed terminal, a job scheduler's time limit) unwinds like an error, so
    # the temporary file of an output being written is removed and the earlier file is left as it was.
    for stopping in STOPPING_SIGNALS:
        signal.signal(stopping, _stop_on_signal)
    try:
        status = main()
    except SystemExit as stop:  # argparse's usage errors and --help
        if not (stop.code is None or isinstance(stop.code, int)):
            raise
        status = stop.code or 0
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    run()

