"""The command line's commands: each reads its parsed arguments, builds the option objects once, calls the
evaluation layer (or the API) and writes its outputs or prints its report. The parser is
:mod:`evalcore.cli.parser`'s; errors reach :func:`evalcore.cli.main` as the project's own."""

from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from evalcore.app.report import (
    PaperReport,
    ablation_curves,
    compared_metrics,
    file_inputs,
    report_effects,
    report_html,
)
from evalcore.app.scores import curve_relevance, precision_recall_curves
from evalcore.data import ConceptSets, Run
from evalcore.engine import DEFAULT_MEMORY_PER_WORKER, Compute
from evalcore.errors import MAX_NAME_CHARS, CBIRLensError, InputError, ParameterError, joined, listed, one_line
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.judged import RankingAgreement, ranking_agreement
from evalcore.evaluation.listed_pairs import listed_pair_relevance
from evalcore.evaluation.options import DEFAULT_ALPHA, DEFAULT_CUTOFFS, DEFAULT_HOPS, Relevance, Scoring, Statistics
from evalcore.evaluation.qrels import graded_judgments
from evalcore.evaluation.results import Results, evaluate_runs, finite_or_none
from evalcore.evaluation.retrieval import (
    MAX_SVD_DIMENSIONS,
    retrieve_by_captions,
    retrieve_by_embeddings,
    retrieve_by_measure,
    write_trec_run,
)
from evalcore.io.loading import kg_names_file, load_kg, load_labels
from evalcore.io.outputs import atomic_output, check_outputs, concepts_csv, write_text_atomically, write_texts_atomically
from evalcore.io.tables import shown_percent, summary_metrics
from evalcore.metrics.detection import DetectionScores, detection_scores
from evalcore.metrics.registry import parse_metric
from evalcore.metrics.ties import run_tie_counts, tie_message
from evalcore.readers import (
    read_captions,
    read_concepts,
    read_embeddings,
    read_image_pairs,
    read_predictions,
    read_qrels,
    read_runs,
)
from evalcore.readers.concept_lists import read_concept_list
from evalcore.readers.lines import MAX_ID_CHARS
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import MEASURES, MeasureSpec, nn_iou_measure, parse_measure
from evalcore.resources import project_root

from .agreement import command_agreement
from .console import ProgressBar, print_note, print_tie_notes, print_unknown_id_notes, print_unscored_notes, shown_number
from .groups import checked_grouping, group_csv_outputs, grouped_of, grouped_table, print_grouped
from .parser import program_name, recreating_command

# --- options given and options read ------------------------------------------------------------------------

#: The defaults of the options whose parser default is None, so that a command can tell an option its user gave from
#: one left out, and refuse one it would not read rather than ignore it; the commands read them through
#: :func:`with_defaults`.
LATER_DEFAULTS: dict[str, object] = {"kg_mode": "undirected", "alpha": DEFAULT_ALPHA, "n": DEFAULT_HOPS,
                                     "relevance_level": 1, "k": DEFAULT_CUTOFFS, "svd_dims": 0, "backend": "numpy",
                                     "memory_per_worker": DEFAULT_MEMORY_PER_WORKER}
#: The options that set how a knowledge graph's near matches count: read only beside --kg.
KG_SETTINGS = ("--kg-mode", "--kg-source", "--alpha", "--n")


def given(args: argparse.Namespace, option: str) -> bool:
    """Whether the user gave ``option`` (``"--kg-mode"``): its value is neither None nor an empty list."""
    value = getattr(args, option[2:].replace("-", "_"), None)
    return value is not None and value != []


def with_defaults(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` with each option of :data:`LATER_DEFAULTS` that was left out at its default: what a command reads,
    once it has refused what it would not read."""
    return argparse.Namespace(**{name: LATER_DEFAULTS[name] if value is None and name in LATER_DEFAULTS else value
                                 for name, value in vars(args).items()})


def refuse_given(args: argparse.Namespace, options: tuple[str, ...], one: str, several: str) -> None:
    """Refuse those of ``options`` the user gave, in one line: their names, then ``one`` (one of them given) or
    ``several``."""
    named = [option for option in options if given(args, option)]
    if named:
        raise CBIRLensError(f"{joined(named)} {one if len(named) == 1 else several}")


def refuse_kg_settings_without_kg(args: argparse.Namespace) -> None:
    """Refuse --kg-mode, --kg-source, --alpha and --n without --kg: nothing would read them (nn-IoU without a KG is
    IoU, whatever alpha and n), while the JSON would record them."""
    if not args.kg:
        refuse_given(args, KG_SETTINGS,
                     "applies only with a knowledge graph: add --kg FILE, or leave it out (without a KG, nn-IoU is IoU)",
                     "apply only with a knowledge graph: add --kg FILE, or leave them out (without a KG, nn-IoU is IoU)")


def refuse_kg_no_metric_reads(args: argparse.Namespace, scoring: Scoring) -> None:
    """Refuse --kg and its settings where no metric of the table reads a knowledge graph (``--measure dice`` gives
    IoU and Dice metrics; ``--metrics CUI@5``): the graph would be read for nothing and the JSON would record an
    alpha and an n that no number depends on. (Label metrics read no graph either.)"""
    if not args.kg:
        return
    relevance = relevance_of(with_defaults(args), measure_of(args) if args.measure is not None else None)
    keys = {parse_metric(name).relevance for name in scoring.metric_names((), relevance)} - {None, "qrels"}
    if not any(relevance.spec_for(key).uses_kg for key in keys):
        unread = "read by no metric of this table (none of its relevance measures uses a knowledge graph): leave {} " \
                 "out, or add a metric that reads the graph (nn-CUI@10)"
        refuse_given(args, ("--kg", *KG_SETTINGS), "is " + unread.format("it"), "are " + unread.format("them"))


# --- the option objects and inputs of the parsed arguments -------------------------------------------------


def compute_of(args: argparse.Namespace) -> Compute:
    """Where the passes run, from ``--workers`` / ``--scheduler`` / ``--memory-per-worker`` (and ``--backend`` /
    ``--device`` where the command has them)."""
    if args.workers is not None and args.workers < 0:
        raise CBIRLensError(f"--workers must be 0 (one per core) or more, got {args.workers}")
    backend = {"backend": args.backend, "device": args.device} if hasattr(args, "backend") else {}
    return Compute(workers=args.workers, client=args.scheduler, memory_per_worker=args.memory_per_worker, **backend)


def measure_of(args: argparse.Namespace) -> MeasureSpec:
    """The measure of ``--measure``, its alpha and n from ``--alpha``/``--n`` unless written in it."""
    return parse_measure("nn-iou" if args.measure is None else args.measure, {"alpha": args.alpha, "n": args.n})


def relevance_of(args: argparse.Namespace, measure: MeasureSpec | None) -> Relevance:
    """The relevance options of ``evaluate`` and ``compare`` (only ``evaluate`` has ``--relevance-level`` and
    ``--empty-queries``), recording ``measure`` as the table's chosen one."""
    judged = {name: value for name, value in vars(args).items() if name in ("relevance_level", "empty_queries")}
    return Relevance.of(args.alpha, args.n, measure, gain=args.gain, threshold=args.threshold, ties=args.ties,
                        query_image=args.query_image, **judged)


def kg_of(args: argparse.Namespace, concepts: ConceptSets | None) -> KnowledgeGraph | None:
    """The graph of ``--kg`` (None without one); a note on stderr where it names none of ``concepts``' concepts."""
    from evalcore.app.workspace import kg_coverage_problems

    if not args.kg:
        return None
    kg = load_kg(args.kg, getattr(args, "kg_source", None))
    for problem in kg_coverage_problems(concepts, kg.index):
        print_note(f"--kg: {problem}")
    return kg


def kg_inputs(args: argparse.Namespace) -> list[str | Path]:
    """The KG files a command reads: each ``--kg`` and the names file read beside it."""
    return [path for kg_file in args.kg for path in (kg_file, kg_names_file(kg_file)) if path is not None]


def run_paths(args: argparse.Namespace) -> list[str]:
    return [path for group in args.run for path in group]


def runs_of(args: argparse.Namespace) -> list[Run]:
    return [run for path in run_paths(args) for run in read_runs(path)]


# --- relevance, evaluate, compare ---------------------------------------------------------------------------


def command_relevance(args: argparse.Namespace) -> None:
    refuse_kg_settings_without_kg(args)
    args = with_defaults(args)
    check_outputs({"--out": args.out}, [args.concepts, args.pairs, *kg_inputs(args)])
    Compute(backend=args.backend, device=args.device).array_backend()  # a bad choice fails here as in evaluate
    concepts = read_concepts(args.concepts)
    near = nn_iou_measure(args.alpha, args.n, args.kg_mode)
    kg = kg_of(args, concepts)
    measure = measure_of(args)
    rows = listed_pair_relevance(concepts, read_image_pairs(args.pairs), args.pairs, kg, args.kg_mode, near, measure)
    # Written as the pairs are scored, into a file renamed into place only once every pair was valid: a refused
    # input leaves an earlier output as it was.
    with atomic_output(args.out) as handle:
        writer = csv.writer(handle)
        writer.writerow(["a", "b", "iou", "nn_iou", "approximate_matches", "value"])
        writer.writerows([row.a, row.b, repr(row.iou), repr(row.nn_iou), ";".join(row.approximate_matches),
                          repr(row.value)] for row in rows)


def check_evaluation(args: argparse.Namespace, outputs: dict[str, str | None]) -> None:
    """Refuse, before any work, what ``evaluate`` and ``report`` cannot do: options that contradict each other, and
    ``outputs`` that would overwrite an input or cannot be written."""
    if not args.concepts and not args.qrels:
        raise CBIRLensError("evaluate needs a relevance source: --concepts F (IoU / nn-IoU) or --qrels F (judgments)")
    if args.labels and not args.concepts:
        raise CBIRLensError("--labels needs --concepts (labels belong to the images of the concept file)")
    if args.qrels and (args.measure is not None or args.kg):
        raise CBIRLensError("--measure and --kg choose concept relevance, which --qrels replaces: give them with "
                            "--concepts alone, or leave them out with --qrels")
    if args.qrels:
        refuse_given(args, KG_SETTINGS,
                     "sets concept relevance (near matches in a KG), which --qrels replaces: leave it out with --qrels",
                     "set concept relevance (near matches in a KG), which --qrels replaces: leave them out with --qrels")
    refuse_kg_settings_without_kg(args)
    if args.relevance_level is not None and not args.qrels:
        raise CBIRLensError("--relevance-level applies only to the judged grades of --qrels F: add --qrels F, or leave "
                            "it out (concept relevance counts as relevant from --threshold)")
    check_metric_cutoffs(args)
    scoring = scoring_of(args)  # the number of cut-offs and metrics checked before any input is read
    if args.command == "evaluate":  # report's curves read the graph whatever its table's metrics
        refuse_kg_no_metric_reads(args, scoring)
    judged = judged_metrics(scoring.metrics or ())
    if judged and not args.qrels:
        raise CBIRLensError(f"{listed(judged)}: qrels- metrics read judgments: add --qrels F (a TREC qrels file)")
    check_outputs(outputs, [args.concepts, args.qrels, args.labels, *kg_inputs(args), *run_paths(args)])


def judged_metrics(names: Sequence[str]) -> list[str]:
    """The names of ``names`` that read qrels judgments (qrels- metrics)."""
    return [name for name in names if parse_metric(name).relevance == "qrels"]


def check_metric_cutoffs(args: argparse.Namespace) -> None:
    """Refuse --k beside --metrics whose names give other cut-offs: the table is at the names' cut-offs, and --k
    would be dropped without a word (--k beside names without a cut-off, RBP alone, is read: the report's curves are
    at it)."""
    if args.metrics is None or args.k is None:
        return
    named = sorted({parse_metric(name).k for name in args.metrics} - {None})
    if named and named != sorted(args.k):
        raise CBIRLensError(f"--metrics names its own cut-offs ({', '.join(map(str, named))}), so --k "
                            f"{' '.join(map(str, args.k))} would be ignored: leave --k out, or write each cut-off in a "
                            f"metric's name (e.g. CUI@{args.k[0]})")


def scoring_of(args: argparse.Namespace) -> Scoring:
    """The metrics of ``evaluate`` and ``report``: ``--metrics``, or the standard report at ``--k``."""
    return Scoring(args.metrics, DEFAULT_CUTOFFS if args.k is None else args.k)


def evaluated(args: argparse.Namespace) -> tuple[Evaluator, list[Run], Relevance, Results]:
    """The evaluation of ``evaluate`` and ``report`` (their shared inputs and options, checked by
    :func:`check_evaluation`): the inputs read and evaluated, ties noted on stderr."""
    concepts = read_concepts(args.concepts) if args.concepts else None
    qrels = read_qrels(args.qrels) if args.qrels else None
    kg = kg_of(args, concepts)
    labels = load_labels(args.labels, concepts) if args.labels else None
    runs = runs_of(args)
    evaluator = Evaluator(concepts, kg, args.kg_mode, labels, qrels=qrels, compute=compute_of(args))
    # Under --qrels the table's measure is the judgments': --measure is refused above and not recorded.
    relevance = relevance_of(args, measure_of(args) if qrels is None else None)
    bar = ProgressBar()
    results = evaluate_runs(evaluator, runs, scoring_of(args), relevance, Statistics(), bar)
    bar.close()
    print_tie_notes(results.counts, args.ties)
    print_unknown_id_notes(results.counts)
    print_unscored_notes(results.table(), "; --empty-queries zero scores a query without one as 0")
    return evaluator, runs, relevance, results


def command_evaluate(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    outputs = {"--json": args.json, "--per-query": args.per_query, "--group-csv": args.group_csv}
    check_evaluation(args, outputs)
    grouping = checked_grouping(args, outputs)
    args = with_defaults(args)
    evaluator, runs, relevance, results = evaluated(args)
    grouped = grouped_of(args, grouping, evaluator, results)
    # --qrels beside --concepts: does concept relevance (IoU) rank the systems as the judged grades do?
    ranked = judged_ranking(evaluator, runs, results, relevance) if args.qrels and args.concepts else ()
    # (the outputs replace the earlier files together, or none does: never one command's files from two runs)
    files = [(args.per_query, results.per_query().to_csv(index=False))] if args.per_query else []
    files += group_csv_outputs(args.group_csv, grouped)
    if args.json is None:  # as trec_eval, ranx and ir_measures do: the table on the terminal
        write_texts_atomically(files)
        print(means_table(results.means(), results.metrics))
        if grouped is not None:
            print(f"\nBy {grouped.by}:\n{grouped_table(grouped, results.metrics)}")
        if ranked:
            print(f"\n{ranking_agreement_text(ranked)}")
        return
    payload = results.to_dict()
    if ranked:
        payload["ranking_agreement"] = [agreement.to_dict() for agreement in ranked]
    if grouped is not None:
        payload["groups"] = grouped.to_dict()
    payload["params"].update({"k": list(scoring_of(args).cutoffs), "kg_files": args.kg, "kg_sources": args.kg_source,
                              "concepts": args.concepts, "labels": args.labels})
    payload["wall_seconds"] = round(time.perf_counter() - started, 3)
    payload["backend"] = evaluator.engine.last_pass.text() if evaluator.engine and evaluator.engine.last_pass else None
    write_texts_atomically([*files, (args.json, json.dumps(payload, indent=2))])
    summary = summary_metrics(results.metrics)
    for name, values in results.means().items():
        shown = ", ".join(f"{m}={shown_number(values[m])}" for m in summary)
        print(f"{name}: {shown}", file=sys.stderr)
    if grouped is not None:  # the first metric's; every metric's in the JSON's groups
        print(f"by {grouped.by}:\n{grouped_table(grouped, results.metrics[:1])}", file=sys.stderr)
    if ranked:
        print(ranking_agreement_text(ranked), file=sys.stderr)


def judged_ranking(evaluator: Evaluator, runs: Sequence[Run], results: Results, relevance: Relevance
                   ) -> tuple[RankingAgreement, ...]:
    """:func:`evalcore.evaluation.judged.ranking_agreement` of ``evaluate --qrels --concepts``; none, said on stderr,
    where the concept sets cannot score the runs (the judged table is written all the same)."""
    try:
        return ranking_agreement(evaluator, runs, results, relevance)
    except CBIRLensError as error:
        print(f"note: no ranking agreement with concept relevance: {one_line(str(error), 300)}", file=sys.stderr)
        return ()


def ranking_agreement_text(ranked: Sequence[RankingAgreement]) -> str:
    """``evaluate --qrels --concepts``'s lines on the systems' rankings: Kendall's tau-b between the ranking by each
    judged metric and by its concept counterpart.

    >>> print(ranking_agreement_text([RankingAgreement("qrels-NDCG@10", "CUI@10", 0.6, 5)]))
    Kendall's tau-b between the systems' rankings (judged grades vs concept relevance):
      qrels-NDCG@10 vs CUI@10: 0.6000 (5 systems)
    """
    lines = ["Kendall's tau-b between the systems' rankings (judged grades vs concept relevance):"]
    lines += [f"  {a.judged} vs {a.concept}: {shown_number(a.tau)} ({a.systems} systems)" for a in ranked]
    return "\n".join(lines)


def means_table(means: dict[str, dict[str, float]], metrics: Sequence[str]) -> str:
    """``evaluate``'s table on standard output without ``--json``: a row per metric, a column per system, each mean
    to 4 decimals ("—" where no query scored it), aligned (:func:`evalcore.io.tables.markdown_table`).

    >>> print(means_table({"run": {"P@5": 0.5, "nDCG@10": float("nan")}}, ["P@5", "nDCG@10"]))
    | metric  |    run |
    |---------|-------:|
    | P@5     | 0.5000 |
    | nDCG@10 |      — |
    """
    import pandas as pd

    from evalcore.io.tables import markdown_table

    frame = pd.DataFrame({"metric": list(metrics),
                          **{system: [float(values[metric]) for metric in metrics] for system, values in means.items()}})
    return markdown_table(frame, 4, aligned=True)


def command_report(args: argparse.Namespace) -> None:
    """``evaluate``'s evaluation written as the report for a paper (:mod:`evalcore.app.report`): the inputs digested
    first (each read once more), the ablation curves computed unless the relevance is judged (``--qrels``)."""
    roles = [("concept sets", args.concepts), ("qrels", args.qrels), ("labels", args.labels),
             *(("knowledge graph", path) for path in kg_inputs(args)), *(("run", path) for path in run_paths(args))]
    check_evaluation(args, {"--out": args.out})
    command = shlex.join(recreating_command(args))  # the options as given: one left out stays out
    args = with_defaults(args)
    inputs = file_inputs([(role, path) for role, path in roles if path is not None])
    evaluator, runs, relevance, results = evaluated(args)
    cutoffs = scoring_of(args).cutoffs
    curves, note = None, "The relevance is judged (--qrels): alpha and n do not apply."
    if args.qrels is None:
        bar = ProgressBar()
        curves, note = ablation_curves(evaluator, runs, relevance, cutoffs, bar), ""
        bar.close()
    compared = compared_metrics(results.metrics, cutoffs)
    key = curve_relevance(results.metrics)  # the 11-point curves: nn-IoU's where the table reads it
    report = PaperReport(results, relevance, args.kg_mode, cutoffs, compared, tuple(inputs), command, curves, note,
                         effects=report_effects(results, compared),
                         precision_recall=None if key is None else precision_recall_curves(evaluator, runs, relevance,
                                                                                           key))
    write_text_atomically(args.out, report_html(report))


def command_compare(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    metrics = [m for group in args.metric for m in group]  # distinct: a repeated name is refused as it is read
    refuse_kg_settings_without_kg(args)
    refuse_kg_no_metric_reads(args, Scoring(metrics))
    judged = judged_metrics(metrics)
    if judged:
        raise CBIRLensError(f"{listed(judged)}: qrels- metrics read judgments, and compare reads concept relevance "
                            "only (it has no --qrels): compare concept-relevance metrics, or give these to evaluate "
                            "--qrels F")
    args = with_defaults(args)
    paths = run_paths(args)
    outputs = {"--json": args.json, "--group-csv": args.group_csv}
    check_outputs(outputs, [args.concepts, args.labels, *kg_inputs(args), *paths])
    grouping = checked_grouping(args, outputs)
    compute = compute_of(args)
    statistics = Statistics(args.confidence, args.bootstrap_samples, args.randomization_samples, args.seed)
    scoring, relevance = Scoring(metrics), relevance_of(args, measure_of(args) if args.measure is not None else None)
    concepts = read_concepts(args.concepts)
    kg = kg_of(args, concepts)
    labels = load_labels(args.labels, concepts) if args.labels else None
    evaluator = Evaluator(concepts, kg, args.kg_mode, labels, compute=compute)
    bar = ProgressBar()
    results = evaluate_runs(evaluator, runs_of(args), scoring, relevance, statistics, bar)
    bar.close()
    print_tie_notes(results.counts, args.ties)
    print_unknown_id_notes(results.counts)
    print_unscored_notes(results.table())
    grouped = grouped_of(args, grouping, evaluator, results, metrics)
    payload = results.to_dict(compare=metrics)
    payload["params"].update({"kg_files": args.kg, "kg_sources": args.kg_source, "concepts": args.concepts,
                              "labels": args.labels, "runs": paths})
    sizes, anovas = compare_effects(args, results, metrics)
    payload.update(effects_payload(sizes, anovas))
    if grouped is not None:
        payload["groups"] = grouped.to_dict()
    payload["wall_seconds"] = round(time.perf_counter() - started, 3)
    # (the scores by group and the JSON replace the earlier files together, or neither does)
    write_texts_atomically([*group_csv_outputs(args.group_csv, grouped), (args.json, json.dumps(payload, indent=2))])
    print(f"randomization test: {statistics.randomization_samples:,} randomizations, so no p-value below "
          f"1/({statistics.randomization_samples:,} + 1) = {statistics.smallest_randomization_p:.4g} before Holm "
          "(--randomization-samples raises it)", file=sys.stderr)
    table = results.table()
    for metric in metrics:
        # an undefined number (no query scored, no pair to test) is printed "undefined", as the JSON's null
        print(f"{metric} (mean [{shown_percent(statistics.confidence)} CI]):", file=sys.stderr)
        scored = {}
        for row in table[table.metric == metric].itertuples():
            interval = f" [{shown_number(row.ci_low)}, {shown_number(row.ci_high)}]" if row.mean == row.mean else ""
            print(f"  {row.system}: {shown_number(row.mean)}{interval}, {row.queries:,} quer{'y' if row.queries == 1 else 'ies'}",
                  file=sys.stderr)
            scored[row.system] = row.queries
        for pair in results.compare(metric).itertuples():
            floor = (f" (raw p {pair.p_randomization:.4g}, the floor)"
                     if pair.p_randomization <= statistics.smallest_randomization_p else "")
            # (a pair is compared on the queries both systems scored: its difference is not that of the means above)
            shared = (f", over the {pair.queries:,} quer{'y' if pair.queries == 1 else 'ies'} both scored"
                      if pair.queries < max(scored[pair.system_a], scored[pair.system_b]) else "")
            print(f"  {pair.system_a} - {pair.system_b}: {shown_number(pair.mean_difference, '+.4f')}{shared}, "
                  f"randomization p (Holm) {shown_number(pair.p_randomization_holm, '.4g')}{floor}, t-test p (Holm) "
                  f"{shown_number(pair.p_t_test_holm, '.4g')}", file=sys.stderr)
        print_effects(sizes.get(metric), anovas.get(metric), statistics.confidence)
        if grouped is not None:
            print_grouped(grouped, metric, shown_percent(statistics.confidence))


def compare_effects(args: argparse.Namespace, results: Results, metrics: list[str]) -> tuple[dict, dict]:
    """``compare --effect-sizes`` and ``--anova``: per metric, the pairs' effect sizes and the repeated-measures
    ANOVA with Tukey's HSD (:func:`evalcore.api.effect_sizes`, :func:`evalcore.api.repeated_measures_anova`); empty
    where not asked for, so that the default output stays as it was."""
    from evalcore.api import effect_sizes, repeated_measures_anova  # scipy.stats: only what tests pays its import

    sizes = {metric: effect_sizes(results, metric) for metric in metrics} if args.effect_sizes else {}
    anovas = {metric: repeated_measures_anova(results, metric) for metric in metrics} if args.anova else {}
    return sizes, anovas


def effects_payload(sizes: dict, anovas: dict) -> dict:
    """The JSON keys of :func:`compare_effects`: ``effect_sizes`` ({metric: [pair, ...]}) and ``anova`` ({metric:
    {"summary": {...}, "tukey": [pair, ...]}}), each only where asked for; undefined or infinite numbers are null."""
    def records(frame) -> list[dict]:
        return [{key: finite_or_none(value) if isinstance(value, float) else value for key, value in row.items()}
                for row in frame.to_dict(orient="records")]

    payload: dict = {}
    if sizes:
        payload["effect_sizes"] = {metric: records(frame) for metric, frame in sizes.items()}
    if anovas:
        payload["anova"] = {metric: {"summary": records(tables.summary)[0], "tukey": records(tables.tukey)}
                            for metric, tables in anovas.items()}
    return payload


def print_effects(sizes, anova, confidence: float) -> None:
    """One metric's effect sizes and ANOVA with Tukey's HSD on stderr, beneath its pairs (each where asked for)."""
    level = shown_percent(confidence)
    if sizes is not None:
        print(f"  effect sizes (mean difference and Cohen's d_z, [{level} bootstrap CI]):", file=sys.stderr)
        for pair in sizes.itertuples():
            print(f"    {pair.system_a} - {pair.system_b}: {shown_number(pair.mean_difference, '+.4f')} "
                  f"[{shown_number(pair.difference_low, '+.4f')}, {shown_number(pair.difference_high, '+.4f')}], "
                  f"d_z {shown_number(pair.d_z, '+.3f')} [{shown_number(pair.d_z_low, '+.3f')}, "
                  f"{shown_number(pair.d_z_high, '+.3f')}], {pair.queries} queries", file=sys.stderr)
    if anova is not None:
        row = next(anova.summary.itertuples())
        print(f"  repeated-measures ANOVA over the {row.queries} queries every system scored: F({row.df_systems}, "
              f"{row.df_error}) = {shown_number(row.f, '.4g')}, p {shown_number(row.p, '.4g')}, partial eta^2 "
              f"{shown_number(row.partial_eta_squared)}, generalized eta^2 {shown_number(row.generalized_eta_squared)}",
              file=sys.stderr)
        print(f"  Tukey HSD (difference [{level} simultaneous CI], on the ANOVA's residual mean square):",
              file=sys.stderr)
        for pair in anova.tukey.itertuples():
            print(f"    {pair.system_a} - {pair.system_b}: {shown_number(pair.mean_difference, '+.4f')} "
                  f"[{shown_number(pair.low, '+.4f')}, {shown_number(pair.high, '+.4f')}], q "
                  f"{shown_number(pair.q, '.4g')}, p {shown_number(pair.p_tukey, '.4g')}", file=sys.stderr)


# --- retrieve, qrels ------------------------------------------------------------------------------------------


_POOL_OPTIONS = ("--workers", "--scheduler", "--memory-per-worker", "--backend", "--device")
#: What each way of ranking of ``retrieve`` reads of :data:`RETRIEVE_OPTIONS` (every way reads --concepts, --depth,
#: --name and --out); ``--measure NAME`` reads what :func:`measure_reads` says. Any other of them given is refused,
#: naming it and the way (was: ignored, so that --by iou --kg F --alpha 0.9 wrote IoU's run at exit 0).
RETRIEVE_READS: dict[str, tuple[str, ...]] = {
    "--by iou": _POOL_OPTIONS,
    "--by nn-iou": (*_POOL_OPTIONS, "--kg", *KG_SETTINGS),
    "--by embeddings --embeddings F.npy": ("--embeddings", "--embedding-ids"),
    "--by embeddings --embeddings F.csv/.parquet": ("--embeddings",),  # its IDs are a column of the file
    "--by embeddings --captions F": ("--captions", "--svd-dims"),
}
RETRIEVE_OPTIONS = (*_POOL_OPTIONS, "--kg", *KG_SETTINGS, "--embeddings", "--embedding-ids", "--captions", "--svd-dims")


def measure_reads(text: str) -> tuple[str, ...]:
    """What ``retrieve --measure TEXT`` reads of :data:`RETRIEVE_OPTIONS`: the passes over the pool, the KG options
    where the measure uses a KG, and --alpha and --n where the measure has that parameter and TEXT does not write it.

    >>> measure_reads("dice")[-1], measure_reads("nn-iou(alpha=0.3)")[-2:], measure_reads("nn-iou-hops")[-1]
    ('--device', ('--kg-source', '--n'), '--kg-source')
    """
    key = parse_measure(text).key
    low, high = parse_measure(text, {"alpha": 0.0, "n": 0}).params, parse_measure(text, {"alpha": 1.0, "n": 1}).params
    kg = ("--kg", "--kg-mode", "--kg-source") if MEASURES[key].uses_kg else ()
    return (*_POOL_OPTIONS, *kg, *(f"--{name}" for name in ("alpha", "n") if low.get(name) != high.get(name)))


def retrieve_method(args: argparse.Namespace) -> tuple[str, tuple[str, ...]]:
    """The way ``retrieve`` ranks, as its messages name it, and the options of :data:`RETRIEVE_OPTIONS` it reads."""
    if args.measure is not None:
        return f"--measure {one_line(args.measure, MAX_NAME_CHARS)}", measure_reads(args.measure)
    if args.by != "embeddings":
        way = f"--by {args.by}"
    elif args.embeddings is not None:  # the reader tells .npy by its name, as here
        way = f"--by embeddings --embeddings {'F.npy' if args.embeddings.lower().endswith('.npy') else 'F.csv/.parquet'}"
    elif args.captions is not None:
        way = "--by embeddings --captions F"
    else:
        raise CBIRLensError("--by embeddings needs --embeddings F or --captions F")
    return way, RETRIEVE_READS[way]


def refuse_unread_retrieve_options(args: argparse.Namespace) -> None:
    """Refuse the options of :data:`RETRIEVE_OPTIONS` given that the chosen way of ranking does not read, naming them
    and the way, and (for a --by way) the ways that read the first of them."""
    way, reads = retrieve_method(args)
    unread = [option for option in RETRIEVE_OPTIONS if option not in reads and given(args, option)]
    if unread:
        readers = [other for other, its in RETRIEVE_READS.items() if unread[0] in its and args.measure is None]
        them = "it" if len(unread) == 1 else "them"
        raise CBIRLensError(f"{joined(unread)} {'is' if len(unread) == 1 else 'are'} not read by {way}: leave {them} "
                            "out" + (f" ({unread[0]} is read by {joined(readers)})" if readers else ""))


def command_retrieve(args: argparse.Namespace) -> None:
    if (args.by is None) == (args.measure is None):
        raise CBIRLensError("retrieve needs --by iou|nn-iou|embeddings or --measure NAME (one of them)")
    refuse_unread_retrieve_options(args)
    args = with_defaults(args)
    if args.depth < 1:
        raise CBIRLensError(f"--depth: expected a whole number of at least 1, found {args.depth}")
    if args.name is not None and len(args.name) > MAX_ID_CHARS:  # the tag column holds no more than an image ID
        raise CBIRLensError(f"--name: expected a system name of at most {MAX_ID_CHARS} characters (as an image ID), "
                            f"found {len(args.name):,} characters")
    if args.name is not None and (not args.name or any(character.isspace() for character in args.name)):
        raise CBIRLensError(f"--name: expected a system name without spaces (the tag column of a TREC run), found "
                            f"{args.name!r}")
    if not 0 <= args.svd_dims <= MAX_SVD_DIMENSIONS:
        raise CBIRLensError(f"--svd-dims: expected 0 (no reduction) or a number of dimensions up to "
                            f"{MAX_SVD_DIMENSIONS:,}, found {args.svd_dims}")
    check_outputs({"--out": args.out}, [args.concepts, args.embeddings, args.embedding_ids, args.captions,
                                        *kg_inputs(args)])
    concepts = read_concepts(args.concepts)
    if len(concepts.ids) < 2:  # each query ranks the other images: one image would write an empty run
        raise InputError(concepts.source, None, "at least 2 images (each query ranks the others)",
                         f"{len(concepts.ids)}")
    run = retrieved_by_embeddings(args, concepts) if args.by == "embeddings" else retrieved_by_measure(args, concepts)
    longest = int(max((len(ranked) for ranked in run.rankings.values()), default=0))
    if args.depth > longest:
        print_note(f"--depth {args.depth:,} is more than the pool holds: each list ranks the whole pool, at most "
                   f"{longest:,} images (the query itself left out)")
    write_trec_run(run, args.out)


def retrieved_by_measure(args: argparse.Namespace, concepts: ConceptSets) -> Run:
    """The run of ``--measure NAME`` or ``--by iou|nn-iou``: each query's pool ranked by the measure."""
    if args.measure is not None:
        measure = measure_of(args)
        kg = kg_of(args, concepts)
        if measure.uses_kg and kg is None:
            raise CBIRLensError(f"--measure {measure.key} needs at least one --kg file")
    else:
        kg = kg_of(args, concepts) if args.by == "nn-iou" else None
        if args.by == "nn-iou" and kg is None:
            raise CBIRLensError("--by nn-iou needs at least one --kg file")
        measure = nn_iou_measure(args.alpha if args.by == "nn-iou" else 0.0, args.n, args.kg_mode)
    evaluator = Evaluator(concepts, kg, args.kg_mode, compute=compute_of(args))
    bar = ProgressBar()
    run = retrieve_by_measure(evaluator, measure, args.depth, args.name or args.by or measure.name, bar)
    bar.close()
    return run


def retrieved_by_embeddings(args: argparse.Namespace, concepts: ConceptSets) -> Run:
    """The run of ``--by embeddings``: by the vectors of ``--embeddings`` or the TF-IDF of ``--captions``."""
    from evalcore.app.workspace import coverage_problems, zero_vector_problems

    # what the vectors lack and add is said once the run is made (a refusal stays the one line)
    if args.embeddings is not None:
        embeddings = read_embeddings(args.embeddings, ids_source=args.embedding_ids)
        run = retrieve_by_embeddings(embeddings, concepts, args.depth, args.name or Path(args.embeddings).stem)
        notes = [f"{embeddings.source}: {problem}" for problem in coverage_problems(
            concepts, embeddings.ids, "no embedding, so none is a query or retrieved")]
        notes += [f"{embeddings.source}: {problem}" for problem in zero_vector_problems(embeddings)]
    else:  # --captions (one of the two, retrieve_method checked)
        captions = read_captions(args.captions)
        run = retrieve_by_captions(captions, concepts, args.depth, args.svd_dims or None, args.name or "captions-tfidf",
                                   args.captions)
        notes = [f"{args.captions}: {problem}" for problem in coverage_problems(
            concepts, list(captions), "no caption, so each is ranked as an empty text")]
    for note in notes:
        print_note(note)
    return run


def command_qrels(args: argparse.Namespace) -> None:
    refuse_kg_settings_without_kg(args)
    args = with_defaults(args)
    check_outputs({"--out": args.out, "--scales": args.scales}, [args.concepts, *kg_inputs(args), *run_paths(args)])
    concepts = read_concepts(args.concepts)
    runs = runs_of(args)
    evaluator = Evaluator(concepts, kg_of(args, concepts), args.kg_mode, compute=compute_of(args))
    bar = ProgressBar()
    judgments = graded_judgments(evaluator, runs, args.k, nn_iou_measure(args.alpha, args.n, args.kg_mode), bar)
    bar.close()
    outputs = [(args.out, judgments.text())]
    if args.scales:
        outputs.append((args.scales, judgments.scales_csv()))
    # (the judgments and their scales replace the earlier files together, or neither does)
    write_texts_atomically(outputs)
    counts = judgments.counts
    print(f"{counts['judgments']:,} judgments for {counts['queries']:,} queries; grade = relevance x a per-query scale "
          f"(exact for {counts['queries_exact']:,} queries, rounded for {counts['queries_rounded']:,}); largest grade "
          f"{counts['largest_grade']:,}", file=sys.stderr)


# --- detection, extract --------------------------------------------------------------------------------------


def command_detection(args: argparse.Namespace) -> None:
    defaulted = with_defaults(args)
    measure = nn_iou_measure(defaulted.alpha, defaulted.n, defaulted.kg_mode)  # a bad value is named first
    if not args.kg:
        soft = "the soft F1, which needs a knowledge graph: add --kg FILE (or leave them out for the official F1 alone)"
        refuse_given(args, ("--alpha", "--n", "--kg-mode"), f"sets {soft}", f"set {soft}")
    args = defaulted
    check_outputs({"--json": args.json}, [args.gt, args.pred, args.subset, *kg_inputs(args)])
    truth = read_concepts(args.gt)
    predictions = read_predictions(args.pred, known_ids=truth.index)
    subset = read_concept_list(args.subset) if args.subset else None
    scores = detection_scores(truth, predictions.sets, measure, subset, kg_of(args, truth), args.kg_mode)
    payload = detection_payload(scores, len(predictions.sets), predictions.problems, predictions.problems_not_listed)
    if scores.secondary_note:
        print_note(scores.secondary_note)
    for line, problem in predictions.problems[:20]:
        print(f"{predictions.source}, line {line}: {problem}", file=sys.stderr)
    more = len(predictions.problems) - 20 + predictions.problems_not_listed
    if more > 0:
        print(f"{predictions.source}: {more:,} more problem{'s' if more != 1 else ''} (the first "
              f"{len(predictions.problems):,} in the JSON)", file=sys.stderr)
    if args.json is None:  # the scores on the terminal, as evaluate's
        print(detection_table(payload))
        return
    write_text_atomically(args.json, json.dumps(payload, indent=2))


def detection_table(payload: dict) -> str:
    """``detection``'s table on standard output without ``--json``: its JSON's scores and counts, a row each, aligned
    (:func:`evalcore.io.tables.markdown_table`).

    >>> print(detection_table({"f1": 0.5, "counts": {"images_scored": 1200, "images_empty_ground_truth": 0,
    ...                        "images_missing_prediction": 3, "predictions_read": 1197}}))
    | score                       |  value |
    |-----------------------------|-------:|
    | F1                          | 0.5000 |
    | images scored               |  1,200 |
    | images with no ground truth |      0 |
    | images with no prediction   |      3 |
    | predictions read            |  1,197 |
    """
    import pandas as pd

    from evalcore.io.tables import markdown_table

    def score(value: float | None) -> float:
        return float("nan") if value is None else float(value)

    rows: list[tuple[str, float | int]] = [("F1", score(payload["f1"]))]
    if "f1_secondary" in payload:
        rows.append(("F1 on the --subset concepts", score(payload["f1_secondary"])))
    if "soft_f1" in payload:
        params = payload["soft_params"]
        rows.append((f"soft F1 (alpha={params['alpha']:g}, n={params['n']}, {params['kg_mode']})",
                     score(payload["soft_f1"])))
    counts = payload["counts"]
    rows += [("images scored", counts["images_scored"]),
             ("images with no ground truth", counts["images_empty_ground_truth"]),
             ("images with no prediction", counts["images_missing_prediction"]),
             ("predictions read", counts["predictions_read"])]
    if "secondary_images_scored" in counts:
        rows.append(("images scored on the --subset concepts", counts["secondary_images_scored"]))
    return markdown_table(pd.DataFrame(rows, columns=["score", "value"], dtype=object), 4, aligned=True)


def detection_payload(scores: DetectionScores, predictions_read: int, problems: list[tuple[int, str]],
                      problems_not_listed: int = 0) -> dict:
    """The JSON of ``detection``: F1, its counts and the problems of the predictions file (the first of them, and
    how many more there were); the secondary and soft F1 where they were computed."""
    primary = scores.primary
    payload: dict = {
        "f1": finite_or_none(primary.f1),
        "counts": {"images_scored": primary.images_scored,
                   "images_empty_ground_truth": primary.images_empty_ground_truth,
                   "images_missing_prediction": primary.images_missing_prediction,
                   "predictions_read": predictions_read},
        "problems": [{"line": line, "problem": problem} for line, problem in problems],
        "problems_not_listed": problems_not_listed,
    }
    if scores.secondary is not None:
        payload["f1_secondary"] = finite_or_none(scores.secondary.f1)
        payload["counts"]["secondary_images_scored"] = scores.secondary.images_scored
    if scores.soft is not None:
        payload["soft_f1"] = finite_or_none(scores.soft.f1)
        payload["soft_params"] = {"alpha": scores.measure.params["alpha"], "n": scores.measure.hops,
                                  "kg_mode": scores.kg_mode}
    return payload


def command_extract(args: argparse.Namespace) -> None:
    from evalcore.api import extract_concepts
    from evalcore.extraction.extractor import coverage

    check_outputs({"--out": args.out, "--evidence": args.evidence},
                  [args.captions, *args.names, *(args.synonyms or []), *(args.rules or [])])
    bar = ProgressBar()
    found = extract_concepts(args.captions, args.names, synonyms=args.synonyms, rules=args.rules,
                             abbreviations=not args.no_abbreviations, ontology_ids=args.ontology_ids,
                             progress=bar, evidence=args.evidence is not None, workers=args.workers)
    bar.close()
    concepts, rows = found if isinstance(found, tuple) else (found, None)
    outputs = [(args.out, concepts_csv(concepts))]
    if rows is not None:
        import pandas as pd

        from evalcore.extraction.evidence import EVIDENCE_COLUMNS
        from evalcore.io.tables import spreadsheet_csv

        # For a reader's spreadsheet, like the other CSV reports: a cell it would run as a formula is neutralised.
        outputs.append((args.evidence, spreadsheet_csv(pd.DataFrame(rows, columns=list(EVIDENCE_COLUMNS)))))
    # (the sets and their evidence replace the earlier files together, or neither does)
    write_texts_atomically(outputs)
    report = coverage(concepts, top=0)
    print(f"{report.images:,} captions: {report.images - len(report.without_concept):,} with at least one concept, "
          f"{report.distinct_concepts:,} distinct concepts, {report.occurrences:,} in all", file=sys.stderr)
    from evalcore.extraction.language import languages_of
    from evalcore.readers import read_captions

    # (a French caption gives no concept: only the captions left without one are read for their language)
    captions = read_captions(args.captions) if report.without_concept else {}
    french = languages_of(captions[image_id] for image_id in report.without_concept).get("fr", 0)
    if french:  # (issue 69: the dictionary's names are English)
        print(f"{french:,} captions in French: no concepts found (the names are English)", file=sys.stderr)


# --- app, check ----------------------------------------------------------------------------------------------


def command_app(args: argparse.Namespace) -> None:
    """Run the dashboard in this process: ``streamlit run [options] <root>/app.py``, where root is the
    checkout or the installed package's copy; the ``.streamlit/config.toml`` beside app.py applies."""
    app = project_root() / "app.py"
    if not app.is_file():
        raise CBIRLensError(f"{app}: the dashboard's files are missing; reinstall cbir-lens")
    options = _with_store_options(list(args.streamlit_options))  # (refused before Streamlit is imported)
    from streamlit.web import cli as streamlit_cli

    if {"-h", "--help"} & set(options):
        print(f"usage: {program_name()} app [--store DIR] [--store-expiry-days DAYS] [OPTIONS]  "
              f"(runs `streamlit run [OPTIONS] {app}`; saved workspaces go to DIR)\n")
    streamlit_cli.main(["run", *options, str(app)], prog_name="streamlit")


#: ``app``'s own options, each set in the environment the dashboard reads its store from
#: (:func:`evalcore.app.store.store_from_environment`); every other option goes to ``streamlit run``.
APP_STORE_OPTIONS = {"--store": "CBIR_LENS_STORE", "--store-expiry-days": "CBIR_LENS_STORE_EXPIRY_DAYS"}
#: What each of ``app``'s own options expects, as a refusal says it.
APP_STORE_VALUES = {"--store": "a folder", "--store-expiry-days": "a positive number of days"}


def _with_store_options(options: list[str]) -> list[str]:
    """``options`` less ``app``'s own (``--store DIR``, ``--store-expiry-days DAYS``, or ``--store=DIR``), which are
    set in this process's environment, checked as the dashboard will read them."""
    from evalcore.app.store import store_from_environment

    left: list[str] = []
    given: dict[str, str] = {}  # variable -> the option that set it
    position = 0
    while position < len(options):
        option, equals, attached = options[position].partition("=")
        if option in APP_STORE_OPTIONS:
            if not equals and position + 1 >= len(options):
                raise ParameterError(f"{option}: expected a value after it")
            value = attached if equals else options[position + 1]
            if not value.strip():  # (an empty folder or number would quietly be the default)
                raise ParameterError(f"{option}: expected {APP_STORE_VALUES[option]}, found an empty value")
            os.environ[APP_STORE_OPTIONS[option]] = value
            given[APP_STORE_OPTIONS[option]] = option
            position += 1 if equals else 2
            continue
        left.append(options[position])
        position += 1
    # a bad number is refused here, naming the option that set it, not on the first save
    store_from_environment(os.environ, given)
    return left


def command_check(args: argparse.Namespace) -> None:
    import pandas as pd

    from evalcore.io.tables import markdown_table, spreadsheet_csv

    check_outputs({}, [args.concepts, args.rocov2, *args.kg, *args.run, args.labels, args.names, args.captions,
                       args.images, args.embeddings, args.embedding_ids])
    loaded = checked_workspace(args)
    from evalcore.app.workspace import report_table, run_kind

    rows = report_table(loaded)
    for row in rows:  # a run's tied scores, which the evaluation orders by rank unless --ties trec_eval
        run = next((kept for name, (_, kept) in loaded.runs.items() if row["kind"] == run_kind(name)), None)
        found = run_tie_counts(run) if run is not None else None
        message = tie_message(run.name, {**found.as_counts(), "queries_in_run": found.queries}, "rank",
                              "evaluate --ties") if found is not None else None
        if message:
            row["problems"] = "; ".join(part for part in (row["problems"], message) if part and part != "none")
    report = pd.DataFrame(rows, columns=["file", "kind", "rows read", "problems"])
    print(spreadsheet_csv(report) if args.csv else markdown_table(report), end="" if args.csv else "\n")


def checked_workspace(args: argparse.Namespace):
    """The workspace ``check`` reads, as the dashboard's Data page loads it: the demo, a ROCOv2 folder or the
    concept sets, then every other input named."""
    from evalcore.app import workspace as ws
    from evalcore.readers import read_input_bytes

    def data(path: str) -> bytes:
        return read_input_bytes(path, path)[0]

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
    return loaded


COMMANDS = {"relevance": command_relevance, "evaluate": command_evaluate, "report": command_report,
            "retrieve": command_retrieve,
            "detection": command_detection, "compare": command_compare, "qrels": command_qrels, "extract": command_extract,
            "app": command_app, "check": command_check, "agreement": command_agreement}
