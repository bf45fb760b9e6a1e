"""``agreement``: how the label-free relevance measures agree with clinicians' grades of image pairs
(:func:`evalcore.studies.agreement.agreement_study`): Kendall's tau-b, Spearman's rho and two AUCs per measure and per
setting of a sweep, with bootstrap intervals over cases, the best setting by cross-validation over cases, and the
judges' agreement with each other and with themselves. Refusals are one line; the JSON is written beside its target
and renamed into place. Its options are :func:`evalcore.cli.parser.agreement_command`'s."""

from __future__ import annotations

import argparse
import json
import sys
import time

from evalcore.errors import CBIRLensError, listed
from evalcore.evaluation.options import Statistics
from evalcore.io.loading import kg_names_file, load_kg
from evalcore.io.outputs import check_outputs, write_text_atomically
from evalcore.readers import read_concepts
from evalcore.readers.judgment_columns import read_judgment_columns
from evalcore.relevance.measures import parse_measure
from evalcore.studies.agreement import AUC_THRESHOLDS, AgreementReport, agreement_study, parse_sweep, swept_settings

from .console import print_note, shown_number


def command_agreement(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    if not args.kg and (args.kg_mode is not None or args.kg_source is not None):
        named = [option for option, value in (("--kg-mode", args.kg_mode), ("--kg-source", args.kg_source)) if value]
        raise CBIRLensError(f"{' and '.join(named)} appl{'ies' if len(named) == 1 else 'y'} only with a knowledge "
                            "graph: add --kg FILE, or leave it out")
    kg_files = [path for kg_file in args.kg for path in (kg_file, kg_names_file(kg_file)) if path is not None]
    check_outputs({"--json": args.json}, [args.concepts, args.judgments, *kg_files])
    measures = [parse_measure(text) for text in args.measure]
    sweeps = [parse_sweep(text) for text in args.sweep or []]
    settings = swept_settings(measures, sweeps, bool(args.kg))  # refused here, before any file is read
    if args.kg and not any(setting.uses_kg for setting in settings):
        raise CBIRLensError(f"--kg is read by none of the measures ({listed([m.name for m in measures])}): leave it out, "
                            "or add a measure that reads it, such as nn-iou")
    statistics = Statistics(args.confidence, args.bootstrap_samples, seed=args.seed)
    concepts = read_concepts(args.concepts)
    judgments = read_judgment_columns(args.judgments)
    kg = load_kg(args.kg, args.kg_source) if args.kg else None
    if kg is None:
        graphless = [measure.name for measure in measures if measure.uses_kg]
        if graphless:
            print_note(f"{listed(graphless)} weigh{'s' if len(graphless) == 1 else ''} near matches in a knowledge "
                       "graph: without --kg each gives IoU's numbers")
    report = agreement_study(concepts, judgments, measures, kg=kg, mode=args.kg_mode or "undirected", sweeps=sweeps,
                             folds=args.folds, statistics=statistics)
    payload = report.to_dict()
    payload["params"] = {"concepts": args.concepts, "judgments": args.judgments, "judgments_form": judgments.form,
                         "kg_files": args.kg, "kg_sources": args.kg_source, "kg_mode": args.kg_mode or "undirected",
                         "measures": [measure.name for measure in measures],
                         "sweeps": {sweep.parameter: list(sweep.values) for sweep in sweeps}}
    payload["wall_seconds"] = round(time.perf_counter() - started, 3)
    write_text_atomically(args.json, json.dumps(payload, indent=2))
    print_report(report, [measure.name for measure in measures])


def print_report(report: AgreementReport, given: list[str]) -> None:
    """The measures given, the best setting and the judges, on stderr (the JSON holds every setting)."""
    pairs, statistics, best = report.pairs, report.statistics, report.best
    print(f"agreement on {len(pairs.grade):,} judged pairs of {pairs.cases:,} cases ({len(pairs.pair_of_grading):,} "
          f"gradings); {statistics.confidence:.0%} bootstrap CIs over cases ({statistics.bootstrap_samples:,} "
          "resamples):", file=sys.stderr)
    for name in given:
        print(f"  {name}: {setting_line(report, name)}", file=sys.stderr)
    chosen = best.setting.measure.name
    how = f"{best.folds}-fold cross-validation over cases" if best.folds > 1 else "tau-b (no cross-validation)"
    print(f"best by {how}: {chosen}: {setting_line(report, chosen)}; held-out tau-b of choosing so "
          f"{shown_number(best.held_out_kendall_tau_b)}; not clearly worse ({len(best.not_clearly_worse)} of "
          f"{len(report.settings)} settings): {listed(list(best.not_clearly_worse), 5)}", file=sys.stderr)
    judges = report.judges
    line = f"judges: {len(judges.judges)} ({listed(list(judges.judges), 5)})"
    if len(judges.judges) == 2:
        line += f"; weighted kappa (quadratic) {shown_number(judges.weighted_kappa)}"
    elif len(judges.judges) > 2:
        line += f"; Krippendorff's alpha (ordinal) {shown_number(judges.krippendorff_alpha_ordinal)}"
    for name, consistency in judges.self_consistency.items():
        line += (f"; {name} graded {consistency.repeated_pairs:,} pairs twice: {consistency.identical_share:.0%} the "
                 f"same, kappa {shown_number(consistency.weighted_kappa)}")
    print(line, file=sys.stderr)
    for note in report.notes:
        print_note(note)


def setting_line(report: AgreementReport, name: str) -> str:
    setting = report.settings[name]
    aucs = ", ".join(f"AUC({threshold}) {shown_number(setting.auc[threshold])}" for threshold, _ in AUC_THRESHOLDS)
    worse = " (clearly worse than the best)" if setting.clearly_worse else ""
    return (f"tau-b {shown_number(setting.kendall_tau_b)} [{shown_number(setting.ci[0])}, {shown_number(setting.ci[1])}],"
            f" rho {shown_number(setting.spearman_rho)}, {aucs}{worse}")
