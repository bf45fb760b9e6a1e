"""The command line's argparse parser: one small function per command, the option types that read ASCII digits
only, and the actions that refuse an option or a value given twice. What the commands do with the parsed
arguments is :mod:`evalcore.cli.commands`'."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from evalcore.decimals import decimal_integer, finite_decimal
from evalcore.engine import DEFAULT_MEMORY_PER_WORKER
from evalcore.engine.array_backend import BACKENDS, DEVICES
from evalcore.engine.executors import parse_size
from evalcore.errors import CBIRLensError
from evalcore.evaluation.options import (
    DEFAULT_ALPHA,
    DEFAULT_CUTOFFS,
    DEFAULT_HOPS,
    EMPTY_QUERY_POLICIES,
    MAX_CUTOFFS,
    MAX_METRICS,
    MIN_SAMPLES,
    QUERY_IMAGE_POLICIES,
    TIE_ORDERS,
    Statistics,
)
from evalcore.extraction.user_rules import KINDS as RULE_KINDS
from evalcore.metrics.registry import GAINS, parse_metric
from evalcore.readers import DEFAULT_MAX_FILE_BYTES, DEFAULT_MAX_RUN_BYTES, INPUT_BUDGET_VARIABLE
from evalcore.relevance.kg import KG_MODES
from evalcore.relevance.measures import MEASURES, parse_measure
from evalcore.studies.agreement import DEFAULT_BOOTSTRAP_SAMPLES, DEFAULT_FOLDS, MAX_FOLDS

from .groups import group_by_arguments

#: The parser's description, which ``--help`` prints.
DESCRIPTION = """Command line:
``python -m evalcore relevance|evaluate|report|compare|retrieve|detection|qrels|extract|app|check|agreement``
(installed: ``cbir-lens ...``).

Errors in inputs exit with status 2 and one line on stderr naming file, line and expectation.
"""

# The bound of a whole-number option: far above any sensible value, and within int()'s 4,300 digits.
MAX_OPTION_INTEGER = 10**18

_GIVEN = "_options_given"  # the destinations set so far in one parse; removed before the namespace is returned


def program_name() -> str:
    """How the user called the command line, as its messages name it."""
    return "cbir-lens" if Path(sys.argv[0]).stem == "cbir-lens" else "python -m evalcore"


def shown(value: object, limit: int = 40) -> str:
    """A value as an error message quotes it: text by repr() (spaces and odd characters visible), cut at ``limit``."""
    return repr(value[:limit]) if isinstance(value, str) else str(value)


# --- option types ----------------------------------------------------------------------------------------


def integer(raw: str) -> int:
    """A whole-number option's value in ASCII decimal digits (:func:`~evalcore.decimals.decimal_integer`): int()
    would also read other scripts' digits (``١٠``), underscores (``1_0``) and inner line breaks. Its range is the
    command's to check, naming the option."""
    value = decimal_integer(raw, MAX_OPTION_INTEGER)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a whole number in digits 0-9 such as 10 (at most 10^18), found "
                                         f"{shown(raw)}")
    return value


def number(raw: str) -> float:
    """A number option's value in ASCII decimal syntax, finite (:func:`~evalcore.decimals.finite_decimal`): float()
    would also read other scripts' digits (``٠.٥``), underscores, inner line breaks, inf and nan."""
    value = finite_decimal(raw)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a finite number in digits 0-9 such as 0.5 or 1e-3, found "
                                         f"{shown(raw)}")
    return value


def positive_bytes(raw: str) -> int:
    value = integer(raw)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 byte, found {value}")
    return value


def memory_size(raw: str) -> int:
    try:
        return parse_size(raw)
    except CBIRLensError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def same_metric(name: object) -> object:
    """A metric name's canonical form, or the name itself where it is none (refused later, naming it)."""
    try:
        return parse_metric(str(name)).name
    except CBIRLensError:
        return name


def same_measure(text: object) -> object:
    """A relevance measure's canonical text, or the text itself where it is none (refused later, naming it)."""
    try:
        return parse_measure(str(text)).name
    except CBIRLensError:
        return text


def same_file(path: object) -> object:
    """The file a path names, symbolic links and ``..`` resolved (an empty path stays itself: refused later)."""
    return os.path.realpath(path) if path else path


# --- actions: an option or a value given once ---------------------------------------------------------------


class DistinctValues(argparse.Action):
    """An option whose values may not repeat (:func:`refuse_repeats`); ``same`` (an ``add_argument`` keyword) maps
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
            refuse_repeats(parser, option_string or self.dest, values, self.same)
        setattr(namespace, self.dest, values)


class AppendDistinct(DistinctValues):
    """Append a repeatable option's value (or its ``nargs`` list), refusing a value given before, in this or an
    earlier occurrence."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        groups = [*(getattr(namespace, self.dest, None) or []), values]  # a copy: the default list stays empty
        flat = [value for group in groups for value in (group if isinstance(group, list) else [group])]
        refuse_repeats(parser, option_string or self.dest, flat, self.same)
        setattr(namespace, self.dest, groups)


def refuse_repeats(parser: argparse.ArgumentParser, option: str, values: Sequence[object],
                   same: Callable[[object], object] | None) -> None:
    """Refuse a list option that names one value twice (``--k 10 10``, ``--metric X --metric X``, one run or KG
    file twice): each would be computed and printed twice, or read twice, as if it were two. ``same`` maps a
    value to what it stands for (a metric's canonical name, a file's real path)."""
    seen: dict[object, object] = {}
    for value in values:
        key = same(value) if same else value
        if key in seen:
            earlier = seen[key]
            also = "" if earlier == value else f" (the same as {shown(earlier, 1000)})"
            parser.error(f"{option}: {shown(value, 1000)} is given twice{also}; give each value once")
        seen[key] = value


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


# --- option groups shared by several commands ---------------------------------------------------------------


def kg_arguments(parser: argparse.ArgumentParser) -> None:
    # --kg-mode, --kg-source, --alpha and --n are None where not given: a command refuses them without --kg (and
    # wherever its method reads no KG) rather than ignore them; it reads the defaults of the help.
    parser.add_argument("--kg", action="append", default=[], metavar="F", same=same_file,
                        help="KG file (edge list CSV/TSV, MRREL.RRF or OBO); repeat to combine")
    parser.add_argument("--kg-mode", choices=KG_MODES, help="with --kg: edge direction (default undirected)")
    parser.add_argument("--kg-source", action="append", default=None, metavar="TAG",
                        help="with --kg: keep only edges whose source column equals TAG (repeatable)")
    parser.add_argument("--alpha", type=number,
                        help=f"with --kg: weight of approximate matches, 0..1 (default {DEFAULT_ALPHA})")
    parser.add_argument("--n", type=integer, help=f"with --kg: KG distance threshold in hops (default {DEFAULT_HOPS})")


def scale_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--workers", type=integer, metavar="N",
                       help="compute the passes over the pool on N local worker processes (0 = one per core; "
                            "default: in this process)")
    group.add_argument("--scheduler", metavar="ADDRESS",
                       help="compute them on a Dask cluster, e.g. tcp://10.0.0.5:8786 (needs cbir-lens[scale])")
    parser.add_argument("--memory-per-worker", type=memory_size, metavar="SIZE",
                        help="memory budget of each worker, e.g. 2GB or 512MB; sets the block size (default "
                             f"{DEFAULT_MEMORY_PER_WORKER >> 30}GiB)")


def backend_arguments(parser: argparse.ArgumentParser, listed_pairs: bool = False) -> None:
    parser.add_argument("--backend", choices=tuple(BACKENDS),
                        help="array backend of the pairwise engine: numpy (CPU, the default) or jax (the optional extra "
                             "cbir-lens[gpu]); the numbers are the same"
                             + ("; listed pairs are always counted on the CPU, the choice is only checked" if listed_pairs
                                else ""))
    parser.add_argument("--device", choices=DEVICES,
                        help="with --backend jax: cpu or gpu (default: a GPU when JAX sees one, else the CPU)")


def reading_arguments(parser: argparse.ArgumentParser) -> None:
    """How the runs' lists are read (:class:`~evalcore.evaluation.options.Relevance`'s ``ties`` and ``query_image``)."""
    parser.add_argument("--ties", choices=TIE_ORDERS, default="rank",
                        help="order of items with tied scores: rank (default: score, then the file's rank, the order "
                             "the run's author wrote) or trec_eval (score as float32, then document ID descending, as "
                             "trec_eval, pytrec_eval and ir_measures order them)")
    parser.add_argument("--query-image", choices=QUERY_IMAGE_POLICIES, default="drop",
                        help="a query's own image in its list: drop (default; it is not a candidate) or keep it at its "
                             "rank as trec_eval counts it (its judged grade under --qrels, else relevance 0)")


def measure_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--measure", metavar="NAME",
                        help="relevance measure, e.g. dice, 'tversky(a=0.7,b=0.3)', 'nn-iou-hops(w1=0.5,w2=0.25)' "
                             f"(keys: {', '.join(MEASURES)}); alpha and n not written here come from --alpha and --n "
                             "(default: nn-iou)")


def run_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--run", action="append", required=True, nargs="+", metavar="F", same=same_file)


# --- one function per command ------------------------------------------------------------------------------

def relevance_command(commands: argparse._SubParsersAction) -> None:
    relevance = commands.add_parser("relevance", help="IoU and nn-IoU for given image pairs")
    relevance.add_argument("--concepts", required=True)
    kg_arguments(relevance)
    relevance.add_argument("--pairs", required=True, help="CSV with header a,b (image IDs)")
    measure_argument(relevance)
    backend_arguments(relevance, listed_pairs=True)
    relevance.add_argument("--out", required=True)


def evaluation_arguments(evaluate: argparse.ArgumentParser) -> None:
    """The inputs and options of ``evaluate``, which ``report`` takes too (their outputs are their own)."""
    evaluate.add_argument("--concepts", help="concept sets: the relevance source (needed unless --qrels; and for --labels)")
    kg_arguments(evaluate)
    scale_arguments(evaluate)
    run_argument(evaluate)
    evaluate.add_argument("--k", type=integer, nargs="+",
                          help=f"cut-offs of the standard report, at most {MAX_CUTOFFS} (default "
                               f"{' '.join(map(str, DEFAULT_CUTOFFS))}; --metrics names each metric's own)")
    evaluate.add_argument("--labels", help="ID,modality,organ or kind,class,CUI")
    evaluate.add_argument("--metrics", nargs="+", same=same_metric,
                          help=f"canonical metric names, at most {MAX_METRICS} (default: the standard report)")
    evaluate.add_argument("--gain", choices=GAINS, default="linear")
    evaluate.add_argument("--threshold", type=number, default=0.5, help="relevance threshold of MAP and recall")
    measure_argument(evaluate)
    backend_arguments(evaluate)
    evaluate.add_argument("--qrels", metavar="F", help="TREC qrels 'qid iter docid grade': the relevance source of qrels- "
                                                         "metrics instead of the concept sets")
    evaluate.add_argument("--relevance-level", type=integer,
                          help="with --qrels: a grade at least this counts as relevant (trec_eval -l; default 1)")
    evaluate.add_argument("--empty-queries", choices=EMPTY_QUERY_POLICIES, default="exclude",
                          help="queries with no relevant item: left out of every metric (default) or scored 0")
    reading_arguments(evaluate)


def evaluate_command(commands: argparse._SubParsersAction) -> None:
    evaluate = commands.add_parser("evaluate", help="evaluate runs")
    evaluation_arguments(evaluate)
    evaluate.add_argument("--json", help="write the results as JSON to this file (without it: the table of means on "
                                          "standard output)")
    evaluate.add_argument("--per-query")
    group_by_arguments(evaluate)


def report_command(commands: argparse._SubParsersAction) -> None:
    report = commands.add_parser("report", help="evaluate runs as evaluate does and write the report for a paper: "
                                                "one self-contained HTML file")
    evaluation_arguments(report)
    report.add_argument("--out", required=True, metavar="FILE.html",
                        help="the report: leaderboard with confidence intervals, significance grids, ablation curves "
                             "over alpha and n, settings, input digests and the command that recreates it")


def retrieve_command(commands: argparse._SubParsersAction) -> None:
    retrieve = commands.add_parser("retrieve", help="write a TREC run made by relevance or embeddings")
    retrieve.add_argument("--concepts", required=True)
    kg_arguments(retrieve)
    scale_arguments(retrieve)
    retrieve.add_argument("--by", choices=["iou", "nn-iou", "embeddings"],
                          help="or --measure NAME; an option the method does not read is refused")
    measure_argument(retrieve)
    retrieve.add_argument("--embeddings", help="with --by embeddings: .npy (with --embedding-ids), .csv or .parquet")
    retrieve.add_argument("--embedding-ids", help="with --embeddings F.npy: its ID list, one per line")
    retrieve.add_argument("--captions", help="with --by embeddings: ID,Caption CSV: TF-IDF caption embeddings")
    retrieve.add_argument("--svd-dims", type=integer, help="with --captions: reduce TF-IDF by truncated SVD (0 = off, "
                                                           "the default)")
    retrieve.add_argument("--depth", type=integer, default=100)
    retrieve.add_argument("--name", help="system name (TREC tag)")
    backend_arguments(retrieve)
    retrieve.add_argument("--out", required=True)


def detection_command(commands: argparse._SubParsersAction) -> None:
    detection = commands.add_parser("detection", help="ImageCLEFmedical concept detection F1")
    detection.add_argument("--gt", required=True)
    detection.add_argument("--pred", required=True)
    detection.add_argument("--subset", help="concept list for the secondary F1 (one CUI per line or CSV)")
    detection.add_argument("--kg", action="append", default=[], same=same_file,
                           help="knowledge graph for the soft F1 (near misses credited alpha)")
    # None where not given, so that a soft-F1 option without --kg is refused rather than ignored
    detection.add_argument("--kg-mode", choices=KG_MODES, help="soft F1: edge direction (default undirected)")
    detection.add_argument("--alpha", type=number, help=f"soft F1: credit of a near miss (default {DEFAULT_ALPHA})")
    detection.add_argument("--n", type=integer, help=f"soft F1: KG distance threshold (default {DEFAULT_HOPS})")
    detection.add_argument("--json", help="write the scores as JSON to this file (without it: a table of them on "
                                           "standard output)")


def compare_command(commands: argparse._SubParsersAction) -> None:
    compare = commands.add_parser("compare", help="confidence intervals and pairwise significance tests (Holm)")
    compare.add_argument("--concepts", required=True)
    kg_arguments(compare)
    scale_arguments(compare)
    run_argument(compare)
    compare.add_argument("--metric", action="append", required=True, nargs="+", metavar="NAME", same=same_metric,
                         help=f"canonical metric name(s), e.g. nn-CUI@10, at most {MAX_METRICS} in all; Holm "
                              "correction runs over the pairs per metric")
    compare.add_argument("--labels", help="ID,modality,organ or kind,class,CUI (for P@K metrics)")
    compare.add_argument("--gain", choices=GAINS, default="linear")
    compare.add_argument("--threshold", type=number, default=0.5, help="relevance threshold of MAP and recall")
    compare.add_argument("--confidence", type=number, default=Statistics.confidence)
    compare.add_argument("--bootstrap-samples", type=integer, default=Statistics.bootstrap_samples,
                         help=f"bootstrap resamples of each interval, {MIN_SAMPLES:,} to 1,000,000 (default "
                              f"{Statistics.bootstrap_samples:,})")
    compare.add_argument("--randomization-samples", type=integer, default=Statistics.randomization_samples,
                         help=f"randomizations of each test, {MIN_SAMPLES:,} to 1,000,000 (default "
                              f"{Statistics.randomization_samples:,})")
    compare.add_argument("--seed", type=integer, default=Statistics.seed)
    compare.add_argument("--effect-sizes", action="store_true",
                         help="also each pair's mean difference and Cohen's d_z, with bootstrap intervals")
    compare.add_argument("--anova", action="store_true",
                         help="also the repeated-measures ANOVA over the systems and Tukey's HSD for every pair")
    compare.add_argument("--json", required=True)
    group_by_arguments(compare)
    measure_argument(compare)
    reading_arguments(compare)


def extract_command(commands: argparse._SubParsersAction) -> None:
    extract = commands.add_parser("extract", help="concept sets (ID,CUIs) from captions by dictionary matching")
    extract.add_argument("--captions", required=True, help="ID,Caption CSV")
    extract.add_argument("--names", required=True, nargs="+", metavar="F", same=same_file,
                         help="concept names: ROCOv2 cui_mapping.csv, MRCONSO.RRF or a KG's id,name file (the "
                              "first file naming an ID gives its name, the others synonyms)")
    extract.add_argument("--synonyms", nargs="+", metavar="F", same=same_file,
                         help="synonyms: OBO (UBERON, HPO), DOID allXREFinDO.tsv, MeSH descriptors TSV, MRCONSO.RRF")
    extract.add_argument("--rules", nargs="+", metavar="F", same=same_file,
                         help="your own rules: a tab-separated file with the header kind, words, concept, source "
                              f"(kind: {', '.join(RULE_KINDS)})")
    extract.add_argument("--no-abbreviations", action="store_true",
                         help="leave out the built-in imaging vocabulary (CT, MRI, US, X-ray, views, ...) and the "
                              "built-in synonyms (rules/synonyms.tsv)")
    extract.add_argument("--ontology-ids", action="store_true", help="also emit concept IDs that are not CUIs")
    extract.add_argument("--workers", type=integer, default=0, metavar="N",
                         help="read the captions on N local worker processes (default 0: one per core; 1: in this "
                              "process); the same concept sets, faster, used from 20,000 captions on (fewer are read "
                              "in this process; --evidence still reads each caption again in this process)")
    extract.add_argument("--out", required=True, help="ID,CUIs CSV to write")
    extract.add_argument("--evidence", metavar="FILE",
                         help="CSV to write, one row per mention: image_id, concept, start, end (0-based character "
                              "offsets in the caption, end exclusive), words, matched (name, synonym, abbreviation, "
                              "assumed, defined: as the caption defines it), status (kept, negated, hypothetical, "
                              "history, other exam, literature), rule; cells a spreadsheet would run get a leading '")


def app_command(commands: argparse._SubParsersAction) -> None:
    # Options go to `streamlit run` untouched ('+' is no prefix of theirs), e.g. --server.port 8502.
    app = commands.add_parser("app", prefix_chars="+", add_help=False,
                              help="start the dashboard; options are those of `streamlit run`")
    app.add_argument("streamlit_options", nargs="*")


def qrels_command(commands: argparse._SubParsersAction) -> None:
    qrels = commands.add_parser("qrels", help="write graded TREC qrels: ideal top K over the pool plus retrieved images")
    qrels.add_argument("--concepts", required=True)
    kg_arguments(qrels)
    scale_arguments(qrels)
    run_argument(qrels)
    qrels.add_argument("--k", type=integer, default=10, help="ideal top K written per query (nDCG@k exact for k <= K)")
    qrels.add_argument("--out", required=True)
    qrels.add_argument("--scales", metavar="F", help="CSV query_id,scale,exact (relevance = grade / scale)")


def check_command(commands: argparse._SubParsersAction) -> None:
    check = commands.add_parser("check", help="read inputs as the dashboard's Data page does and print its validation "
                                              "report (file, kind, rows read, problems; a run's tied scores "
                                              "among them)")
    source = check.add_mutually_exclusive_group(required=True)
    source.add_argument("--concepts", help="concept sets (ID,CUIs)")
    source.add_argument("--rocov2", metavar="FOLDER", help="a folder in the ROCOv2 layout (test split), its runs/ and "
                                                           "the KG in ../kg, as the Data page loads it")
    source.add_argument("--demo", action="store_true", help="the embedded synthetic demo")
    check.add_argument("--kg", nargs="+", default=[], metavar="F", same=same_file, help="knowledge-graph files")
    check.add_argument("--run", nargs="+", default=[], metavar="F", same=same_file, help="run files (TREC or CSV)")
    check.add_argument("--labels", help="labels (ID,modality,organ or kind,class,CUI)")
    check.add_argument("--names", help="concept names (CUI,Name or MRCONSO.RRF)")
    check.add_argument("--captions", help="captions (ID,Caption)")
    check.add_argument("--embeddings", help="embeddings (.npy with --embedding-ids, .csv or .parquet)")
    check.add_argument("--embedding-ids", help="the ID list of a .npy file, one per line")
    check.add_argument("--images", help="a zip of <ID>.png/.jpg images")
    check.add_argument("--csv", action="store_true", help="print CSV instead of a Markdown table")


def agreement_command(commands: argparse._SubParsersAction) -> None:
    agreement = commands.add_parser("agreement", help="how relevance measures agree with clinicians' grades of image "
                                                      "pairs (tau-b, rho, AUC; bootstrap CIs over cases), the best "
                                                      "setting of a sweep by cross-validation, and the judges' agreement")
    agreement.add_argument("--concepts", required=True, help="concept sets (ID,CUIs) of the judged images")
    agreement.add_argument("--kg", action="append", default=[], metavar="F", same=same_file,
                           help="KG file (edge list CSV/TSV, MRREL.RRF or OBO); repeat to combine")
    agreement.add_argument("--kg-mode", choices=KG_MODES, help="with --kg: edge direction (default undirected)")
    agreement.add_argument("--kg-source", action="append", default=None, metavar="TAG",
                           help="with --kg: keep only edges whose source column equals TAG (repeatable)")
    agreement.add_argument("--judgments", required=True, metavar="F",
                           help="CSV judge,case,candidate,grade[,time] (grades 0 not similar, 1 partly, 2 very similar, "
                                "or skipped) or TREC graded qrels 'case 0 candidate grade'")
    agreement.add_argument("--measure", required=True, nargs="+", metavar="M", same=same_measure,
                           help=f"relevance measures, e.g. iou 'nn-iou(alpha=0.5,n=1)' 'tversky(a=0.7,b=0.3)' (keys: "
                                f"{', '.join(MEASURES)})")
    agreement.add_argument("--sweep", nargs="+", metavar="NAME=START:STOP:STEP",
                           help="sweep a parameter of the measures that have it, STOP included (alpha=0:1:0.1 n=0:3:1, "
                                "a=0:1:0.1); several sweeps give every combination")
    agreement.add_argument("--folds", type=integer, default=DEFAULT_FOLDS,
                           help=f"folds of the cross-validation over cases that chooses the best setting, 2 to "
                                f"{MAX_FOLDS} (default {DEFAULT_FOLDS})")
    agreement.add_argument("--confidence", type=number, default=Statistics.confidence)
    agreement.add_argument("--bootstrap-samples", type=integer, default=DEFAULT_BOOTSTRAP_SAMPLES,
                           help=f"bootstrap resamples of the cases (default {DEFAULT_BOOTSTRAP_SAMPLES:,}; Holm's "
                                "correction over many settings needs many)")
    agreement.add_argument("--seed", type=integer, default=Statistics.seed, help="seed of the resamples and the folds")
    agreement.add_argument("--json", required=True, help="write the agreement as JSON to this file")


#: The commands in the order ``--help`` lists them.
COMMAND_PARSERS = (relevance_command, evaluate_command, report_command, retrieve_command, detection_command,
                   compare_command, extract_command, app_command, qrels_command, check_command, agreement_command)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineArgumentParser(prog=program_name(), description=DESCRIPTION)
    parser.add_argument("--max-input-bytes", type=positive_bytes, metavar="N",
                        help=f"largest input file read, in bytes (default {DEFAULT_MAX_FILE_BYTES:,}, runs "
                             f"{DEFAULT_MAX_RUN_BYTES:,}; also the {INPUT_BUDGET_VARIABLE} environment variable)")
    commands = parser.add_subparsers(dest="command", required=True)
    for add_command in COMMAND_PARSERS:
        add_command(commands)
    return parser


def recreating_command(args: argparse.Namespace) -> list[str]:
    """The words of a command line that parses to ``args``: the program, the global options given, the command
    and every one of its options with its value, defaults included (a later version's defaults cannot change it),
    but for the options whose default is none, so that the command can refuse them where they do not apply
    (--alpha without --kg, --k beside --metrics): those are written where given.

    >>> given = ["report", "--run", "a.trec", "--kg", "kg.csv", "--alpha", "0", "--n", "0", "--out", "r.html"]
    >>> words = recreating_command(build_parser().parse_args(given))
    >>> words[words.index("--alpha"):words.index("--alpha") + 4], words[words.index("--gain"):words.index("--gain") + 2]
    (['--alpha', '0.0', '--n', '0'], ['--gain', 'linear'])
    >>> build_parser().parse_args(words[len(program_name().split()):]) == build_parser().parse_args(given)
    True
    """
    parser = build_parser()
    words = [*program_name().split(), *option_words(parser, args)]
    commands = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return [*words, args.command, *option_words(commands.choices[args.command], args)]


def option_words(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The options of ``parser`` as ``args`` holds them: one occurrence per repeat of a repeatable option, a
    switch only when on, an option without a value left out."""
    words: list[str] = []
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        given = not (value is None or value is False or value == [])  # 0 and 0.0 are values (--n 0, --alpha 0)
        if not action.option_strings or isinstance(action, argparse._HelpAction) or not given:
            continue
        flag = max(action.option_strings, key=len)
        if value is True:
            words.append(flag)
            continue
        groups = value if isinstance(action, AppendDistinct) else [value]
        for group in groups:
            words += [flag, *(shown_value(item) for item in (group if isinstance(group, list) else [group]))]
    return words


def shown_value(value: object) -> str:
    """An option's value as typed: a float by its shortest exact form (``repr``), anything else as text."""
    return repr(value) if isinstance(value, float) else str(value)
