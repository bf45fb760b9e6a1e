"""Every computation the pages show, cached by what it reads: the pages' one door to evalcore's computations (the
names they use as evalcore defines them come through :mod:`dashboard.library`).

Each cached function takes its real inputs and is keyed by all of them (:mod:`dashboard.caching`): a
:class:`Workspace` by its content digest, restricted to the inputs the function reads
(:meth:`Workspace.restricted_to`, so it can read nothing else: the inputs are named once, on its decorator), and
typed options (:class:`~dashboard.sidebar.Settings`, :class:`~evalcore.app.baselines.Baseline`,
:class:`~evalcore.relevance.measures.MeasureSpec`) by value. Quick results live in Streamlit's caches
(:func:`~dashboard.caching.kept_by`); a computation that draws progress while it runs, or that a download builds on
its click (the report for a paper), is :func:`~dashboard.caching.shared` by the server's sessions.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.caching import (
    HASH_FUNCS,
    kept_by,
    key_of,
    server_foreground,
    server_kept,
    server_saved_ids,
    server_workspaces,
    shared,
)
from dashboard.session import address_opens_workspace, hold_saved, server_scheduler, workspace, workspace_store
from dashboard.sidebar import Settings, controls
from dashboard.ui import StepProgress, plain_settings, shown_system
from dashboard.wording import say
from evalcore.app import paper, sweeps
from evalcore.app.baselines import BASELINES, EVALUATOR_INPUTS, IOU, NN_IOU, Baseline, PoolRanking, pool_relevance
from evalcore.app.browse import KGCoverage, Neighbourhood, kg_coverage, neighbourhood
from evalcore.app.detection import DetectionReport, extraction_report, read_and_score
from evalcore.app.explain import Explanation, example_path_pair, explain_pair, search_concepts
from evalcore.app.judged_scores import JudgedScores, judged_scores
from evalcore.app.judging import PairDesign, judged_collection, pair_design
from evalcore.app.judgments import JUDGMENTS_FILE, Judgment, JudgmentStore, judgments_csv, judgments_qrels
from evalcore.app.plain_report import plain_report, plain_report_html
from evalcore.app.report import report_html, workspace_report
from evalcore.app.saved import PreparedResults, prepared_blobs, save_workspace
from evalcore.app.scores import (
    MetricEffects,
    PrecisionRecall,
    Scores,
    curve_relevance,
    leaderboard_names,
    metric_effects,
    precision_recall_curves,
    shown_scores,
)
from evalcore.app.sources import Rocov2Folder, SavedLink
from evalcore.app.store import WorkspaceStore
from evalcore.app.workspace import Workspace, caption_concepts, concept_mentions, extraction_names
from evalcore.data import Run
from evalcore.engine import PairwiseEngine
from evalcore.engine.array_backend import gpu_available
from evalcore.errors import CBIRLensError, ParameterError
from evalcore.evaluation.evaluator import AlignedRun, Evaluator
from evalcore.evaluation.groups import BUILT_IN_GROUPINGS, query_grouping
from evalcore.evaluation.options import DEFAULT_CUTOFFS, Compute, Relevance, Scoring
from evalcore.extraction.caption_concepts import CaptionConcepts
from evalcore.extraction.extractor import ConceptDictionary, Coverage, coverage
from evalcore.io.tables import shown_metrics, shown_tables, spreadsheet_csv
from evalcore.readers.judgment_columns import read_judgment_columns
from evalcore.readers.query_attributes import read_query_attributes
from evalcore.relevance.kg import KG_MODES, KnowledgeGraph
from evalcore.relevance.measures import MeasureSpec, measure_spec, nn_iou_measure, parse_measure
from evalcore.stats.groups import GroupedScores
from evalcore.studies import reproduction as rp
from evalcore.studies.agreement import AgreementReport, agreement_study, parse_sweep
from evalcore.studies.measure_comparison import MeasureComparison, compare_measures

#: What an evaluation (and the baselines it ranks) reads.
EVALUATION_INPUTS = (*EVALUATOR_INPUTS, "captions", "embeddings", "runs")
KG_INPUTS = ("kg_files", "names")
#: What the Method page's sections read: the evaluator's inputs and the captions (Table 1's caption baseline).
PAPER_INPUTS = (*EVALUATOR_INPUTS, "captions")


# --- loading ---------------------------------------------------------------------------------------------------

@shared(server_workspaces)
def _rocov2_workspace(folder: Rocov2Folder, progress: Callable[[float, str], None] | None = None) -> Workspace:
    return folder.load(progress, finish=kg_of)


def rocov2_workspace(folder: str, roots: tuple[Path, ...], progress: Callable[[float, str], None]) -> Workspace:
    """The ROCOv2 folder's workspace (:meth:`evalcore.app.sources.Rocov2Folder.load`, the KG index built last), read
    once for every session loading the same files: kept for the server under the digest of their bytes, the folder
    and the roots. A session asking while another reads the same files waits for that read, its
    ``progress(fraction, text)`` moving with it. The workspace is shared read-only: every load or upload replaces a
    session's workspace, none changes it."""
    return _rocov2_workspace(Rocov2Folder(folder, tuple(roots)), progress=progress)


@shared(server_workspaces)
def _saved_workspace(link: SavedLink, progress: Callable[[float, str], None] | None = None) -> Workspace:
    ws = link.load(progress)
    if progress is not None:
        progress(1.0, "Reading the results kept with this link")
    keep_results_read(ws, link.prepared(ws))
    return ws


def saved_workspace(link: SavedLink, progress: Callable[[float, str], None]) -> Workspace:
    """The workspace saved under ``link`` (:meth:`evalcore.app.sources.SavedLink.load`), read once for every session
    opening the same saved content (kept for the server under the digest of its blobs): eight people opening one
    link share one workspace and, through it, every result computed on it. The results kept with it
    (:meth:`~evalcore.app.sources.SavedLink.prepared`) are put where the pages' computations find them
    (:func:`keep_results_read`), and the link is noted for :func:`keep_prepared`."""
    ws = _saved_workspace(link, progress=progress)
    note_saved(ws, link.workspace_id)
    return ws


# --- concept sets found in captions --------------------------------------------------------------------------

#: What finding concepts in captions reads (:func:`evalcore.app.workspace.caption_concepts`).
EXTRACTION_INPUTS = ("captions", "names", "kg_files")


@shared(server_kept, EXTRACTION_INPUTS)
def found_concepts(ws: Workspace, synonym_files: tuple[tuple[bytes, str], ...], abbreviations: bool, kg_names: bool,
                   progress: Callable[[float, str], None] | None = None) -> CaptionConcepts:
    """The concept sets of ``ws``'s captions (:func:`evalcore.app.workspace.caption_concepts`), kept for every session
    under the digest of the captions, names, KG files, synonym files and options they are made from: a second
    session with the same captions reuses them, a session with other captions never does."""
    return caption_concepts(ws, synonym_files, abbreviations, kg_names, progress=progress)


@kept_by(("concepts",), max_entries=8)
def extraction_coverage(ws: Workspace) -> Coverage:
    """The coverage report of the workspace's concept sets."""
    return coverage(ws.concepts)


@kept_by(("concepts",), max_entries=4)
def concepts_download(ws: Workspace) -> str:
    """The workspace's concept sets as the ``extract`` command writes them (``ID,CUIs``), for a spreadsheet too: like
    every other download, an image ID that a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@``) gets a
    leading ``'`` (:func:`evalcore.io.tables.spreadsheet_csv`)."""
    frame = pd.DataFrame({"ID": list(ws.concepts.ids), "CUIs": [";".join(sorted(s)) for s in ws.concepts.sets]},
                         dtype=object)
    return spreadsheet_csv(frame)


@kept_by(("extraction",), max_entries=4, spinner="Reading which captions mention each concept…")
def concept_mentions_of(ws: Workspace) -> dict[str, dict[str, bool]]:
    """Concept -> the images whose caption mentions it, kept or negated only
    (:func:`evalcore.app.workspace.concept_mentions`), once per extraction: the Data page's filter by concept."""
    return concept_mentions(ws.extraction)


# --- the knowledge graph and the evaluator -------------------------------------------------------------------

@kept_by(KG_INPUTS, kind="resource", max_entries=4, spinner="Building the knowledge graph index…")
def _kg_of(ws: Workspace) -> KnowledgeGraph:
    """The KG index of the loaded KG files, the loaded names over the KG's own (at least one KG file loaded)."""
    kg = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
    return replace(kg, names={**kg.names, **ws.names})


def kg_of(ws: Workspace) -> KnowledgeGraph | None:
    """The KG index of the loaded KG files, the loaded names over the KG's own, built once for the server; None where
    no KG file is loaded, which is not kept: a None kept per set of names would take one of the four places of the
    built indexes."""
    return _kg_of(ws) if ws.kg_files else None


@st.cache_resource(show_spinner=False)
def compute_backend() -> tuple[str, str]:
    """JAX on the GPU when JAX is installed and sees one, else the numpy engine: the numbers are the same."""
    return ("jax", "gpu") if gpu_available() else ("numpy", "cpu")


@kept_by(EVALUATOR_INPUTS, kind="resource", max_entries=4)
def engine_evaluator(ws: Workspace, mode: str) -> Evaluator:
    """The evaluator of the workspace's concept sets, KG and labels, built once for the server (the KG index and the
    pairwise engine); it touches no session, so that work prepared in the background can read it too."""
    backend, device = compute_backend()
    return Evaluator(ws.concepts, kg_of(ws), mode, ws.resolved_labels(),
                     compute=Compute(client=server_scheduler(), backend=backend, device=device))


def evaluator_of(ws: Workspace, mode: str) -> Evaluator:
    """:func:`engine_evaluator`, noted for the sidebar's line on the engine in use (a page's call)."""
    with st.spinner(say("engine_step")):  # drawn only when building takes over half a second
        evaluator = engine_evaluator(ws, mode)
    st.session_state["_engine_in_use"] = evaluator.engine  # for the sidebar's note, drawn after the page
    return evaluator


def engine_note() -> str | None:
    """Which backend the pairwise engine uses and which one ran its last ranking pass; None before it is built."""
    engine = st.session_state.get("_engine_in_use")
    if engine is None:
        return None
    backend, device = compute_backend()
    ran = engine.last_pass.text() if engine.last_pass is not None else "none yet"
    return f"Pairwise engine: {backend} on {device}; last ranking pass: {ran}"


def metric_names_for(evaluator: Evaluator, ks: tuple[int, ...], measure: MeasureSpec | None = None) -> list[str]:
    """The standard report; with a measure other than nn-IoU, its metrics replace nn-IoU's."""
    return Scoring(k=ks).metric_names(evaluator.label_targets(), Relevance.of(measure=measure))


@kept_by(("concepts", *KG_INPUTS), max_entries=8)
def kg_coverage_of(ws: Workspace) -> KGCoverage | None:
    """How much of the dataset's concepts the KG covers (None without a KG): read on every rerun by the sidebar."""
    kg = kg_of(ws)
    return kg_coverage(kg, ws.concepts) if kg is not None else None


# --- the Table-1 baselines -------------------------------------------------------------------------------------

@shared(server_kept, given=lambda ws, baseline, relevance, mode: (
    ws.restricted_to(*baseline.inputs()), baseline, *baseline.setting(relevance, mode)))
def baseline_run(ws: Workspace, baseline: Baseline, relevance: MeasureSpec | None, mode: str,
                 progress: Callable[[float], None] | None = None) -> Run:
    """A baseline's ranked lists at the setting its ranking depends on, given the session's nn-IoU setting
    ``relevance`` and KG mode: its decorator gives it the workspace restricted to what the baseline reads
    (:meth:`Baseline.inputs`) and the (measure, mode) its ranking depends on (:meth:`Baseline.setting`: (None,
    "undirected") for one that ranks by neither), so that moving a slider never recomputes a ranking it cannot
    change. Kept for every session (by what it reads), computed while ``progress(fraction)`` moves (a progress
    callback cannot run inside an ``st.cache_*`` function)."""
    return baseline.run(ws, engine_evaluator(ws, mode) if baseline.by_relevance else None, relevance, progress)


def relevance_ranking(ws: Workspace, baseline: Baseline, settings: Settings,
                      report: Callable[[float], None] | None = None) -> AlignedRun:
    """A relevance baseline over the whole pool, exactly as :func:`evaluation` ranks it (the evaluator
    keeps the ranking, so the leaderboard, Per-query and Case view share one pass), with progress per block."""
    return baseline.aligned_ranking(engine_evaluator(ws, settings.kg_mode), settings.relevance, max(settings.ks), report)


def baselines_with_progress(ws: Workspace, baselines: list[Baseline], settings: Settings) -> dict[Baseline, Run]:
    """The chosen baselines' runs, named by their titles (relevance rankings read one query at a time), one
    progress step each."""
    if not baselines:
        return {}
    runs = {}
    with StepProgress(1 + len(baselines)) as progress:
        progress.run(say("engine_step"),
                     lambda _: evaluator_of(ws, settings.kg_mode))
        for baseline in baselines:
            if baseline.by_relevance:
                aligned = progress.run(f"Ranking the collection: {shown_system(baseline)} (every image against every other)",
                                       lambda report, b=baseline: relevance_ranking(ws, b, settings, report))
                runs[baseline] = Run(baseline.title, PoolRanking(aligned, ws.concepts), f"retrieval:{baseline.title}")
            else:
                runs[baseline] = progress.run(
                    f"Ranking the collection: {shown_system(baseline)}",
                    lambda report, b=baseline: baseline_run(ws, b, settings.relevance, settings.kg_mode, report))
    return runs


def pool_relevance_of(ws: Workspace, baseline: Baseline, query: str, settings: Settings) -> np.ndarray:
    """Relevance of every image to ``query`` by the relevance a relevance baseline ranks by (for its ties)."""
    return pool_relevance(evaluator_of(ws, settings.kg_mode), query, baseline.measure(settings.relevance))


# --- evaluations -----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LeaderboardView:
    """What a Leaderboard draws first: a metric group (and in the group "other" one family) and the metric in
    focus, None where the reader chose none (:func:`evalcore.io.tables.shown_tables` gives their defaults)."""

    group: str | None = None
    family: str | None = None
    focus: str | None = None

    def shown(self, names: Sequence[str]) -> tuple[str, ...]:
        """The metrics of ``names`` the view computes: its tables' and the one in focus
        (:func:`evalcore.io.tables.shown_metrics`)."""
        return shown_metrics(names, self.group, self.family, self.focus)

    def tables(self, names: Sequence[str]) -> dict[str, list[str]]:
        """The tables the view draws, ``{family: [metrics of names]}`` (:func:`evalcore.io.tables.shown_tables`, the
        one definition of the metrics a table shows, which :meth:`shown` reads too)."""
        return shown_tables(names, self.group, self.family)


def system_runs(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...],
                settings: Settings) -> list[Run | AlignedRun]:
    """The loaded runs ``run_names`` and the ``baselines``' rankings at ``settings``, as an evaluation reads them."""
    runs: list[Run | AlignedRun] = [ws.runs[name][1] for name in run_names]
    for baseline in baselines:
        # A relevance baseline is ranked and scored in one pass over the pool, without a detour through image IDs.
        runs.append(relevance_ranking(ws, baseline, settings) if baseline.by_relevance
                    else baseline_run(ws, baseline, settings.relevance, settings.kg_mode))
    return runs


@shared(server_kept, EVALUATION_INPUTS)
def evaluation(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...], settings: Settings,
               shown: tuple[str, ...] | None = None) -> Scores:
    """The per-query values of the loaded runs ``run_names`` and the ``baselines``
    (:func:`evalcore.app.scores.shown_scores`: the sidebar's measure adds its metrics before nn-IoU's), of every
    metric or only the ``shown`` ones (each with the value the whole table gives it). Kept for the whole server by
    what it reads and shared read-only: sessions asking for the same evaluation (eight users moving alpha to the
    same value) compute it once and read one copy, where a per-session cache would unpickle its own."""
    evaluator = engine_evaluator(ws, settings.kg_mode)
    return shown_scores(evaluator, system_runs(ws, run_names, baselines, settings), settings.options(), settings.ks,
                        shown)


def leaderboard_metric_names(ws: Workspace, settings: Settings) -> list[str]:
    """Every metric of the Leaderboard at ``settings`` (:func:`evalcore.app.scores.leaderboard_names`)."""
    return leaderboard_names(engine_evaluator(ws, settings.kg_mode), settings.options(), settings.ks)


def shown_evaluation(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...], settings: Settings,
                     view: LeaderboardView) -> Scores:
    """:func:`evaluation` of the metrics ``view`` shows."""
    return evaluation(ws, run_names, baselines, settings, view.shown(leaderboard_metric_names(ws, settings)))


#: A step of work shown as one step of a progress bar: its text and the work, given ``report(fraction)``.
Step = tuple[str, Callable[[Callable[[float], None]], object]]


def evaluation_steps(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...],
                     settings: Settings, view: LeaderboardView) -> list[Step]:
    """The work behind :func:`evaluation` of the metrics ``view`` shows, slowest parts first as steps of their own,
    each leaving its result where the evaluation finds it: the engine, each computed baseline, each pass over the
    pool (reporting block by block); the last step is the evaluation itself. The Leaderboard runs them behind its
    bar; a load runs them in the background (:mod:`dashboard.background`), and a page asking meanwhile waits for
    the step under way."""
    # In the engine's pass order, nn-IoU's pass first: it codes the pool, and IoU's pass then ranks the code groups
    # of those codes instead of coding the pool again. Grouping them here, not at the first alpha change, makes that
    # change as fast as the next ones (about 1.5 s less on ROCOv2 test) for a few tenths of a second more now.
    relevance = PairwiseEngine.pass_order([b for b in baselines if b.by_relevance],
                                          lambda b: b.measure(settings.relevance))
    others = [b for b in baselines if not b.by_relevance]
    # Ideal rankings the metrics need and no relevance baseline computes on the way.
    summaries = [measure for measure in ("nn-iou", "iou") if measure not in {b.key for b in relevance}]
    k, threshold, mode = max(settings.ks), settings.options().threshold, settings.kg_mode
    best_by = {"iou": say("best_by_iou"), "nn-iou": say("best_by_nn_iou")}
    steps: list[Step] = [(say("engine_step"), lambda _: engine_evaluator(ws, mode))]
    steps += [(f"Ranking the collection: {shown_system(baseline)}",
               lambda report, b=baseline: baseline_run(ws, b, settings.relevance, mode, report)) for baseline in others]
    steps += [(f"Ranking the collection: {shown_system(baseline)} (every image against every other)",
               lambda report, b=baseline: relevance_ranking(ws, b, settings, report)) for baseline in relevance]
    steps += [(f"Best possible rankings by {best_by[measure]} (every image against every other)",
               lambda report, measure=measure: engine_evaluator(ws, mode).pool_summary(
                   settings.relevance if measure == "nn-iou" else measure_spec("iou"), k, threshold, report))
              for measure in summaries]
    systems = len(run_names) + len(baselines)
    steps.append((f"Scoring {systems} system{'s' if systems != 1 else ''}",
                  lambda _: shown_evaluation(ws, run_names, baselines, settings, view)))
    return steps


def evaluation_with_progress(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...],
                             settings: Settings, view: LeaderboardView) -> Scores:
    """:func:`evaluation` of the metrics ``view`` shows, behind a progress bar, a step of :func:`evaluation_steps` at
    a time."""
    steps = evaluation_steps(ws, run_names, baselines, settings, view)
    with StepProgress(len(steps)) as progress:
        for text, work in steps:
            result = progress.run(text, work)
    evaluator_of(ws, settings.kg_mode)  # built by the first step: noted for the sidebar's line on the engine
    return result


def summary_of(result: Scores) -> pd.DataFrame:
    """Means with 95% bootstrap CIs (:meth:`Scores.summary`), computed once for every session reading the result
    when a page first asks: the leaderboard asks after starting its significance tests, which then run beside the
    bootstrap; the Per-query page never."""
    return result.summary()


def start_comparisons(result: Scores, metric: str) -> None:
    """Start :meth:`Scores.comparisons` of ``metric`` in a thread of its own and return at once: a page computes
    and draws meanwhile, and its own call then waits for that computation (one per result and metric) or reads it
    back."""
    threading.Thread(target=result.comparisons, args=(metric,), daemon=True).start()


def grouping_choices(ws: Workspace) -> list[str]:
    """The groupings of queries the workspace offers the Leaderboard's "By group" view
    (:data:`evalcore.evaluation.groups.BUILT_IN_GROUPINGS`): a label kind its labels have, the number of concepts
    where it has concept sets."""
    kinds = set(ws.labels.by_kind) if ws.labels is not None and ws.concepts is not None else set()
    return [by for by in BUILT_IN_GROUPINGS if by in kinds or (by == "concepts" and ws.concepts is not None)]


@st.cache_data(max_entries=8, show_spinner=False)
def query_attribute_columns(data: bytes, name: str) -> tuple[str, ...]:
    """The attribute columns of an uploaded query attributes file (:mod:`evalcore.readers.query_attributes`), read
    whole, so that a malformed one is refused, naming its line, as soon as it is uploaded."""
    return read_query_attributes(data, name).columns


@kept_by(EVALUATION_INPUTS, max_entries=16)
def scores_by_group(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...], settings: Settings,
                    view: LeaderboardView, by: str, attributes: bytes | None, pair: tuple[str, str] | None
                    ) -> GroupedScores:
    """The Leaderboard's metric in focus (``view.focus``, of :func:`shown_evaluation`) by group of queries: ``by``
    a built-in grouping (:func:`grouping_choices`) or ``NAME:COLUMN`` of an uploaded query attributes file
    (``attributes``, its bytes), with the paired tests of ``pair`` per group, Holm-corrected across the groups
    (:meth:`evalcore.app.scores.Scores.by_group`)."""
    grouping = query_grouping(by, ws.concepts, ws.resolved_labels(), attributes)
    return shown_evaluation(ws, run_names, baselines, settings, view).by_group(grouping, view.focus, pair)


@kept_by(EVALUATION_INPUTS, max_entries=16, spinner="Computing the precision-recall curves…")
def precision_recall(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...], settings: Settings,
                     relevance: str) -> PrecisionRecall:
    """The 11-point interpolated precision-recall curves of the systems of :func:`evaluation` under the relevance
    measure keyed ``relevance`` (:func:`evalcore.app.scores.curve_relevance` of the metric in focus), relevant as
    the Leaderboard counts it (the sidebar's threshold): :func:`evalcore.app.scores.precision_recall_curves`."""
    return precision_recall_curves(engine_evaluator(ws, settings.kg_mode),
                                   system_runs(ws, run_names, baselines, settings), settings.options(), relevance)


@kept_by(EVALUATION_INPUTS, max_entries=16, spinner="Computing the effect sizes and the ANOVA…")
def effects_of(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...], settings: Settings,
               view: LeaderboardView, metric: str) -> MetricEffects:
    """The paired effect sizes, the repeated-measures ANOVA and Tukey's HSD of ``metric`` (the metric in focus) over
    the systems of :func:`shown_evaluation` (:func:`evalcore.app.scores.metric_effects`)."""
    return metric_effects(shown_evaluation(ws, run_names, baselines, settings, view).results, metric)


def graded_qrels_text(ws: Workspace, baselines: tuple[Baseline, ...], settings: Settings,
                      progress: Callable[[float], None]) -> str:
    """Graded qrels (evalcore.evaluation.qrels): each query's ideal top K over the pool plus every image a shown system
    retrieved."""
    from evalcore.evaluation.qrels import graded_judgments

    evaluator = evaluator_of(ws, settings.kg_mode)
    runs = [r for _, r in ws.runs.values()] + [baseline_run(ws, b, settings.relevance, settings.kg_mode)
                                               for b in baselines]
    return graded_judgments(evaluator, runs, max(settings.ks), settings.relevance, progress).text()


# --- the report for a paper ------------------------------------------------------------------------------------

def report_file_names(ws: Workspace) -> tuple[str | None, str | None, tuple[str, ...]]:
    """The names the report gives the loaded concept sets, labels and run files. A workspace's digests are of the
    files' bytes, not of their names (the KG files' and the systems' names are in theirs): the same files uploaded
    under other names share every result but the report, which names them."""
    return (None if ws.concepts is None else ws.concepts.source, None if ws.labels is None else ws.labels.source,
            tuple(run.source for _, run in ws.runs.values()))


@shared(server_kept, EVALUATION_INPUTS, keyed_also=lambda ws, *_: report_file_names(ws))
def leaderboard_report(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...], settings: Settings,
                       focus: str) -> str:
    """The Leaderboard's report for a paper, one self-contained HTML file (:func:`evalcore.app.report.report_html` of
    :func:`evalcore.app.report.workspace_report`): every metric of the loaded runs ``run_names`` and the
    ``baselines`` at the sidebar's ``settings``, ``focus``'s significance grid and effect sizes first, the curves over
    alpha and n, the 11-point precision-recall curves under ``focus``'s relevance, the loaded files and the command
    that recreates it. Built when asked (the download's click), then kept for the
    whole server under everything it reads: the workspace's inputs it reads by their content, the names it gives
    the files (:func:`report_file_names`: ``workspace_report`` reads them through ``ws``, whose digest leaves
    them out, so its decorator adds them to the key), the systems, the settings and the metric in focus; a second
    click, or another session with the same data and choices, reads it back."""
    results = evaluation(ws, run_names, baselines, settings).results
    key = curve_relevance(results.metrics, focus)
    curves = None if key is None else precision_recall(ws, run_names, baselines, settings, key)
    return report_html(workspace_report(ws, engine_evaluator(ws, settings.kg_mode), results, settings.options(),
                                        settings.kg_mode, settings.ks, [focus], curves))


# --- explanations ----------------------------------------------------------------------------------------------

#: What the dictionary of the loaded names reads (:func:`evalcore.app.workspace.extraction_names`).
NAMES_DICTIONARY_INPUTS = ("names", "kg_files")


@kept_by(NAMES_DICTIONARY_INPUTS, kind="resource", max_entries=4, spinner="Reading the concept names…")
def names_dictionary(ws: Workspace) -> ConceptDictionary:
    """The dictionary of the loaded names and the KG's with the imaging vocabulary
    (:func:`evalcore.app.workspace.extraction_names`)."""
    return ConceptDictionary.build(*extraction_names(ws))


def caption_dictionary_of(ws: Workspace) -> ConceptDictionary:
    """The dictionary the explanations read captions with, the one concept extraction reads them with: the
    extraction's own where the concept sets were found in the captions (its synonym files and options included),
    else one of the loaded names and the KG's with the imaging vocabulary (as finding concepts in captions builds
    it), built once for every session with the same names (about a second for ROCOv2's 65,000)."""
    if ws.extraction is not None:
        return ws.extraction.dictionary
    return names_dictionary(ws)


#: What an explanation reads: the concept sets, the captions (and the extraction that reads them) and the KG.
EXPLANATION_INPUTS = ("concepts", "captions", "extraction", *KG_INPUTS)


@kept_by(EXPLANATION_INPUTS, kind="resource", max_entries=4096)
def pair_explanation(ws: Workspace, query: str, result: str, relevance: MeasureSpec, mode: str) -> Explanation:
    """Why image ``result`` relates to image ``query`` at the nn-IoU setting ``relevance`` in KG ``mode``
    (:func:`evalcore.app.explain.explain_pair`)."""
    kg = kg_of(ws)
    measure = relevance.effective(has_kg=kg is not None)
    captions = (ws.captions.get(query, ""), ws.captions.get(result, "")) if ws.captions else None
    return explain_pair(ws.concepts[query], ws.concepts[result], kg, measure, mode,
                        names=ws.names if kg is None else {}, captions=captions,
                        dictionary=caption_dictionary_of(ws) if captions is not None else None)


@kept_by(EXPLANATION_INPUTS, kind="resource", max_entries=1024)
def explanations_of(ws: Workspace, query: str, results: tuple[str, ...], relevance: MeasureSpec,
                    mode: str) -> tuple[Explanation, ...]:
    """Why each image of ``results`` relates to image ``query`` at the nn-IoU setting ``relevance`` in KG ``mode``
    (:func:`pair_explanation` of each), their captions read for negated mentions by :func:`caption_dictionary_of`
    (every image needs a concept set). Kept per list as well as per pair: a system's list costs one cache lookup
    (each hashes the workspace and the setting) rather than one per card, and a pair in several lists is explained
    once."""
    return tuple(pair_explanation(ws, query, result, relevance, mode) for result in results)


# --- the comparison in a clinician's words ----------------------------------------------------------------------

#: What the clinician's report reads: an evaluation's inputs and an explanation's.
PLAIN_REPORT_INPUTS = tuple(dict.fromkeys((*EVALUATION_INPUTS, *EXPLANATION_INPUTS)))


@shared(server_kept, PLAIN_REPORT_INPUTS)
def clinician_report(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...], settings: Settings,
                     view: LeaderboardView, shown: tuple[tuple[str, str], ...]) -> str:
    """The Leaderboard's comparison in a clinician's words, one self-contained HTML page
    (:func:`evalcore.app.plain_report.plain_report_html`): on the metric in focus of ``view`` (the evaluation the
    page drew, :func:`shown_evaluation`), which system finds more similar images, by how much and how sure, every
    system's score, and example cases with the first image each of the best two found and why (:func:`pair_explanation`,
    the Case view's reasons). ``shown``: the systems' names as the clinician reads them (a baseline's title, its
    plain name). Built when asked (the download's click), then kept for the server under everything it reads."""
    scores = shown_evaluation(ws, run_names, baselines, settings, view)
    rankings = {name: ws.runs[name][1].rankings for name in run_names}
    for baseline in baselines:
        rankings[baseline.title] = (
            PoolRanking(relevance_ranking(ws, baseline, settings), ws.concepts) if baseline.by_relevance
            else baseline_run(ws, baseline, settings.relevance, settings.kg_mode).rankings)

    def explain(case: str, image: str) -> Explanation | None:
        known = case in ws.concepts.index and image in ws.concepts.index
        return pair_explanation(ws, case, image, settings.relevance, settings.kg_mode) if known else None

    return plain_report_html(plain_report(scores, view.focus, ws, dict(shown), rankings, explain,
                                          plain_settings(settings, kg_of(ws) is not None)))


# --- comparing relevance measures ------------------------------------------------------------------------------

BASELINES_SHARE = 0.2


@shared(server_kept, EVALUATION_INPUTS)
def measure_comparison(ws: Workspace, measures: tuple[str, ...], baselines: tuple[Baseline, ...],
                       relevance: MeasureSpec, mode: str, k: int, samples: int = 2000,
                       progress: Callable[[float, str], None] | None = None) -> MeasureComparison:
    """:func:`evalcore.studies.measure_comparison.compare_measures` over the loaded runs and the chosen baselines (the
    relevance baselines at the sidebar's nn-IoU setting ``relevance``, ranked to depth ``k``). Each measure's parts
    are kept for the server under what they read (the data, the systems, the KG mode), so that comparing one more
    measure (the sidebar's at a new alpha) computes that one only; work prepared in the background waits meanwhile,
    as for a page's bar (:meth:`~dashboard.caching.Shared.with_bar`), rather than take a core from it."""
    evaluator = engine_evaluator(ws, mode)
    systems: list[Run | AlignedRun] = [run for _, run in ws.runs.values()]
    # The baselines (seconds each when not cached: TF-IDF over the captions) take the bar's first fifth. A relevance
    # baseline is the pool ranking the evaluator keeps for the leaderboard (the same lists as its run, no new pass).
    share = BASELINES_SHARE if baselines else 0.0
    with server_foreground().working():
        for step, baseline in enumerate(baselines):
            if progress:
                progress(share * step / len(baselines), f"Ranking by the baseline: {baseline.title}")
            systems.append(baseline.aligned_ranking(evaluator, relevance, k) if baseline.by_relevance
                           else baseline_run(ws, baseline, relevance, mode))
        return compare_measures(evaluator, [parse_measure(name) for name in measures], systems, samples=samples,
                                progress=(lambda done, text: progress(share + (1 - share) * done, text)) if progress
                                else None, kept=server_kept(), context=key_of(ws, baselines, relevance, mode, k))


# --- the ablation page -----------------------------------------------------------------------------------------

@shared(server_kept, EVALUATION_INPUTS)
def ablation_grid(ws: Workspace, metrics: tuple[str, ...], include_runs: bool, isolated: bool, relevance: Relevance,
                  mode: str, progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """The alpha x n grid (:func:`evalcore.app.sweeps.ablation_grid`) of the loaded runs (if ``include_runs``) and
    retrieval by nn-IoU, under the sidebar's options (``relevance``)."""
    runs = [run for _, run in ws.runs.values()] if include_runs else []
    return sweeps.ablation_grid(engine_evaluator(ws, mode), runs, metrics, isolated, relevance, progress)


@shared(server_kept, EVALUATION_INPUTS)
def parameter_sweep(ws: Workspace, measure: MeasureSpec, parameter: str, values: tuple[float, ...],
                    metrics: tuple[str, ...], include_runs: bool, mode: str, relevance: Relevance,
                    progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """One parameter of ``measure`` swept over ``values`` (:func:`evalcore.studies.ablation.parameter_sweep`) under
    the sidebar's other options (``relevance``)."""
    from evalcore.studies.ablation import parameter_sweep

    runs = [run for _, run in ws.runs.values()] if include_runs else []
    return parameter_sweep(engine_evaluator(ws, mode), runs, list(metrics), measure, parameter, list(values),
                           relevance=relevance, progress=progress)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=HASH_FUNCS)
def agreement_with_iou(grid: pd.DataFrame, metric: str, systems: tuple[str, ...]) -> pd.DataFrame:
    """:func:`evalcore.app.sweeps.agreement_with_iou`, once per grid and choice."""
    return sweeps.agreement_with_iou(grid, metric, systems)


# --- the Method page --------------------------------------------------------------------------------------------

@shared(server_kept, PAPER_INPUTS)
def table1(ws: Workspace, mode: str, beside_paper: bool,
           progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """:func:`evalcore.app.paper.table1` on the loaded data."""
    return paper.table1(engine_evaluator(ws, mode), dict(ws.captions), beside_paper, progress or (lambda *_: None))


@shared(server_kept, PAPER_INPUTS)
def ablation_curves(ws: Workspace, mode: str, progress: Callable[[float, str], None] | None = None) -> rp.AblationCurves:
    """Fig. 3 on the loaded data (:func:`evalcore.studies.reproduction.ablation_curves`)."""
    return rp.ablation_curves(engine_evaluator(ws, mode), progress=progress)


@shared(server_kept, PAPER_INPUTS)
def tie_report(ws: Workspace, mode: str, progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """How ties at rank K move P@K (:func:`evalcore.studies.reproduction.tie_report`)."""
    return rp.tie_report(engine_evaluator(ws, mode), progress=progress)


@shared(server_kept, PAPER_INPUTS)
def kg_variants(ws: Workspace, mode: str, progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """Table-1 precision under each reading of the KG (:func:`evalcore.app.paper.kg_variants`)."""
    return paper.kg_variants(engine_evaluator(ws, mode), ws, progress or (lambda *_: None))


@shared(server_kept, PAPER_INPUTS)
def timing_curve(ws: Workspace, mode: str, progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """Fig. 4 on the loaded data (:func:`evalcore.app.paper.timing_curve`)."""
    return paper.timing_curve(engine_evaluator(ws, mode), progress or (lambda *_: None))


# --- the Concept detection page ---------------------------------------------------------------------------------

@kept_by(("concepts", *KG_INPUTS), max_entries=8)
def detection_report(ws: Workspace, data: bytes, name: str, drop_some: bool, subset: frozenset[str],
                     relevance: MeasureSpec, mode: str) -> DetectionReport:
    """The predictions file ``data`` scored against the loaded concept sets
    (:func:`evalcore.app.detection.read_and_score`, the soft F1 at the sidebar's nn-IoU setting ``relevance`` in KG
    ``mode``), once per file and setting: kept by these two, not by every setting of the sidebar."""
    return read_and_score(ws.concepts, data, name, drop_some, subset, kg_of(ws), relevance, mode, ws.shown_names)


@kept_by(("extraction", *KG_INPUTS), max_entries=8)
def extraction_detection_report(ws: Workspace, subset: frozenset[str], relevance: MeasureSpec,
                                mode: str) -> DetectionReport:
    """The concept sets found in the captions scored against the curated ones they replaced
    (:func:`evalcore.app.detection.extraction_report`, at the nn-IoU setting ``relevance`` in KG ``mode``), once per
    extraction and setting; ``ws.curated`` must be set."""
    return extraction_report(ws.curated, ws.extraction.concepts, subset, kg_of(ws), relevance, mode, ws.shown_names)


# --- the knowledge-graph page ----------------------------------------------------------------------------------

@kept_by(("concepts",), max_entries=8)
def concept_frequency(ws: Workspace) -> Counter:
    """How many images show each concept."""
    return Counter(c for s in ws.concepts.sets for c in s)


@kept_by(("concepts", *KG_INPUTS), kind="resource", max_entries=4)
def searchable_names(ws: Workspace) -> dict[str, str]:
    """Every KG node and dataset concept with its name (the ID where none is known)."""
    kg = kg_of(ws)
    names = {node: kg.names.get(node, node) for node in kg.nodes}
    names.update({c: ws.names.get(c) or names.get(c, c) for c in concept_frequency(ws)})
    return names


@kept_by(("concepts", *KG_INPUTS), max_entries=8)
def default_pair(ws: Workspace, mode: str) -> tuple[str, str] | None:
    """Two frequent concepts a few links apart, to open the path finder with."""
    return example_path_pair(kg_of(ws), dict(concept_frequency(ws)), mode)


@kept_by(("concepts", *KG_INPUTS), max_entries=64)
def search_names(ws: Workspace, text: str) -> list[str]:
    """Search results, kept per text: every rerun of the page would otherwise scan the 65,000 names again."""
    return search_concepts(text, searchable_names(ws), concept_frequency(ws))


@kept_by(KG_INPUTS, kind="resource", max_entries=64)
def neighbourhood_of(ws: Workspace, centre: str, hops: int, mode: str) -> Neighbourhood:
    """The concepts within ``hops`` links of ``centre`` and the links between them
    (:func:`evalcore.app.browse.neighbourhood`), once per concept and setting."""
    return neighbourhood(kg_of(ws), centre, hops, mode)


@kept_by(KG_INPUTS, max_entries=64)
def shortest_path_of(ws: Workspace, source: str, target: str, mode: str) -> list[tuple[str, str]] | None:
    """The shortest path from ``source`` to ``target`` in the KG as ``[(node, step)]`` (None when there is none), once
    per pair (:meth:`~evalcore.relevance.kg.KnowledgeGraph.shortest_path`)."""
    return kg_of(ws).shortest_path(source, target, mode)


# --- judging pairs ---------------------------------------------------------------------------------------------

#: What a judging design reads: the evaluator's inputs (its two measures' rankings) and the loaded runs (their top lists).
DESIGN_INPUTS = (*EVALUATOR_INPUTS, "runs")


@kept_by(DESIGN_INPUTS, kind="resource", max_entries=8,
         spinner="Choosing the pairs to judge (the first time: ranking the collection)…")
def judging_design(ws: Workspace, seed: int, size: int) -> PairDesign:
    """The pairs to judge (:func:`evalcore.app.judging.pair_design`): its axes IoU and nn-IoU at the default setting
    and KG mode, whatever the sidebar's (so that every judge of a link judges the same pairs), ranked as the
    Leaderboard's baselines rank them by default (the same kept rankings), with the top lists of the loaded runs
    and of those baselines; once per inputs, seed and size."""
    relevance, mode = nn_iou_measure(), KG_MODES[0]
    evaluator = engine_evaluator(ws, mode)
    baselines = [b for b in (IOU, NN_IOU) if b.available(ws)] or [IOU]
    rankings = {b: b.aligned_ranking(evaluator, relevance, max(DEFAULT_CUTOFFS)) for b in baselines}
    axes = [(b.measure(relevance), rankings.get(b, rankings[IOU])) for b in (IOU, NN_IOU)]
    systems = {name: run.rankings for name, (_, run) in ws.runs.items()}
    systems.update({b.title: PoolRanking(ranking, ws.concepts) for b, ranking in rankings.items()})
    return pair_design(evaluator, axes, systems, key=ws.digest, seed=seed, size=size)


def judgment_store() -> JudgmentStore:
    """The server's judgments, kept beside its saved workspaces (the folder of
    :func:`dashboard.session.workspace_store`)."""
    return JudgmentStore(workspace_store().directory)


def import_judgments(ws: Workspace, data: bytes, name: str) -> int:
    """Import a judgments CSV or TREC qrels file (read by
    :func:`evalcore.readers.judgment_columns.read_judgment_columns`: a qrels file's judge is ``qrels``) as judgments
    of the collection ``ws`` shows, every ID checked against it: all its rows or, on a refusal, none; returns how
    many."""
    return judgment_store().add(judged_collection(ws), read_judgment_columns(data, name), ws.concepts.index)


def stored_judgments(ws: Workspace) -> tuple[Judgment, ...]:
    """Every judgment the server keeps of the collection ``ws`` shows (the Judging page's); none where the store
    cannot be read (a full, read-only or damaged store is the Judging page's to say) and where nobody judged yet (the
    file is not made by reading it)."""
    try:
        store = judgment_store()
        if not (store.directory / JUDGMENTS_FILE).is_file():
            return ()
        return store.judgments(judged_collection(ws))
    except CBIRLensError:
        return ()


def stored_judgments_qrels(ws: Workspace) -> str:
    """:func:`stored_judgments` as graded qrels (one line a judged pair, the mean grade over the judges), "" where
    none is graded."""
    return judgments_qrels(stored_judgments(ws))


def stored_judgments_csv(ws: Workspace) -> bytes:
    """:func:`stored_judgments` as the judgments CSV the ``agreement`` command reads, b"" where none is graded."""
    kept = stored_judgments(ws)
    return judgments_csv(kept).encode() if any(judgment.grade is not None for judgment in kept) else b""


@kept_by(EVALUATION_INPUTS, max_entries=16, spinner="Scoring the systems on the judges' grades…")
def judged_leaderboard(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...],
                       settings: Settings, qrels_text: str) -> JudgedScores:
    """The loaded runs ``run_names`` and the ``baselines`` scored on the graded qrels ``qrels_text`` (the stored
    judgments, :func:`stored_judgments_qrels`) with trec_eval's measures, and Kendall's tau-b between the systems'
    ranking by each and by its nn-IoU and IoU counterparts (:func:`evalcore.app.judged_scores.judged_scores`); kept by
    the data, the systems, the settings and the judgments."""
    evaluator = engine_evaluator(ws, settings.kg_mode)
    return judged_scores(evaluator, system_runs(ws, run_names, baselines, settings), qrels_text, settings.options(),
                         settings.ks)


@kept_by(("concepts", *KG_INPUTS), kind="resource", max_entries=16,
         spinner="Comparing the measures with the judges' grades…")
def judges_agreement(ws: Workspace, measures: tuple[str, ...], mode: str, data: bytes, name: str,
                     sweeps: tuple[str, ...] = ()) -> AgreementReport:
    """How each measure of ``measures`` (canonical names), and each setting of ``sweeps`` (``alpha=0:1:0.1``), agrees
    with the judgments ``data`` (a judgments CSV or graded qrels, read as the ``agreement`` command reads them, named
    ``name``): :func:`evalcore.studies.agreement.agreement_study` on the loaded concept sets and KG."""
    judgments = read_judgment_columns(data, name)
    return agreement_study(ws.concepts, judgments, [parse_measure(measure) for measure in measures], kg=kg_of(ws),
                           mode=mode, sweeps=[parse_sweep(sweep) for sweep in sweeps])


# --- results kept with a saved workspace -----------------------------------------------------------------------

LOG = logging.getLogger(__name__)
_NOTING_SAVED = threading.Lock()


def note_saved(ws: Workspace, workspace_id: str) -> None:
    """Note that ``ws`` is saved under ``workspace_id``: :func:`keep_prepared` keeps its results with it."""
    with _NOTING_SAVED:
        server_saved_ids().put(ws.digest, (server_saved_ids().get(ws.digest) or frozenset()) | {workspace_id})


def _kept_apart(ws: Workspace) -> dict[str, Baseline]:
    """The baselines of ``ws`` whose runs are kept apart from the evaluator's rankings (those not ranking by
    relevance: their setting is always (None, "undirected"), :meth:`Baseline.setting`), by key."""
    return {b.key: b for b in BASELINES if not b.by_relevance and b.available(ws)}


def keep_prepared(ws: Workspace, settings: Settings) -> None:
    """Keep what the server holds of ``ws``'s compact results with every saved workspace ``ws`` was saved or opened
    as (:func:`note_saved`; nothing for one that was not): the pool rankings the Leaderboard reads at ``settings``
    (by IoU and by the sidebar's nn-IoU; not the Ablation grid's or the measure comparison's) and the ideal
    summaries of its evaluator in the settings' KG mode, and the runs of the baselines that do not rank by relevance
    (captions, embeddings), each once (:meth:`evalcore.app.store.WorkspaceStore.keep_prepared`, within the store's
    bounds). Called on saving, and
    after the background's Leaderboard job; a store that cannot keep them is logged, never raised: the link opens
    all the same and computes them."""
    ids = server_saved_ids().get(ws.digest)
    if not ids or ws.concepts is None:
        return
    mode = settings.kg_mode
    evaluator = engine_evaluator(ws, mode)
    runs = {key: run for key, b in _kept_apart(ws).items()
            if (run := baseline_run.kept(ws, b, None, "undirected")) is not None}
    leaderboard = [b.measure(settings.relevance) for b in BASELINES if b.by_relevance]
    results = PreparedResults({mode: evaluator.kept_rankings(leaderboard)}, {mode: evaluator.kept_summaries()}, runs)
    try:
        store = workspace_store()
        for workspace_id in sorted(ids):
            for name, data in prepared_blobs(results, ws.concepts, ws.digest,
                                             leave_out=store.prepared_sizes(workspace_id)).items():
                store.keep_prepared(workspace_id, name, data)
    except CBIRLensError as error:
        LOG.info("results not kept with a saved workspace: %s", error)


def save_and_keep(store: WorkspaceStore, ws: Workspace, settings: Settings) -> None:
    """The Data page's Save: ``ws`` saved in ``store`` (:func:`evalcore.app.saved.save_workspace`), held by the
    session as its saved workspace (:func:`dashboard.session.hold_saved`, so that the address names it), noted as
    saved (:func:`note_saved`) and its results at ``settings`` kept with it (:func:`keep_prepared`). A store that
    cannot save raises :class:`~evalcore.errors.CBIRLensError`, and nothing is held."""
    saved_id = save_workspace(store, ws)
    hold_saved(saved_id, ws, store.summary(saved_id).expires)
    note_saved(ws, saved_id)
    keep_prepared(ws, settings)


#: Where the session keeps why "Link to this view" could not save what is loaded (its words say what the link leaves
#: out).
LINK_NOT_SAVED = "link_not_saved"


def save_for_link(expander_key: str) -> None:
    """The "Link to this view" expander's callback: as it opens, a workspace the address cannot open by itself (an
    upload, concepts found in the captions: :func:`dashboard.session.address_opens_workspace`) is saved first, so that
    the link reopens what is on screen. The same data again takes the saved ID this server knows for it, if it is
    still in the store (the store keeps each file's bytes once in any case). A store that refuses is noted under
    :data:`LINK_NOT_SAVED` for the expander's words."""
    st.session_state.pop(LINK_NOT_SAVED, None)
    if not st.session_state.get(expander_key) or address_opens_workspace():
        return
    ws = workspace()
    try:
        store = workspace_store()
        for known in sorted(server_saved_ids().get(ws.digest) or ()):
            try:
                hold_saved(known, ws, store.summary(known).expires)
                return
            except CBIRLensError:  # forgotten or expired since: saved again below
                continue
        save_and_keep(store, ws, controls())
    except CBIRLensError as error:
        st.session_state[LINK_NOT_SAVED] = str(error)


def keep_results_read(ws: Workspace, results: PreparedResults) -> None:
    """Put ``results`` read back for ``ws`` (:meth:`evalcore.app.sources.SavedLink.prepared`) where the pages'
    computations look first: its evaluators' rankings and summaries (:meth:`Evaluator.keep_ranking`,
    :meth:`Evaluator.keep_summary`, building the evaluator of each KG mode they were kept in) and the baselines'
    runs (:meth:`dashboard.caching.Shared.keep`). One that does not fit ``ws``'s pool is left out."""
    for mode in sorted((results.rankings.keys() | results.summaries.keys()) & set(KG_MODES)):
        evaluator = engine_evaluator(ws, mode)
        for key, documents in results.rankings.get(mode, {}).items():
            with contextlib.suppress(ParameterError):
                evaluator.keep_ranking(key, documents)
        for key, summary in results.summaries.get(mode, {}).items():
            with contextlib.suppress(ParameterError):
                evaluator.keep_summary(key, summary)
    kept_apart = _kept_apart(ws)
    for key, run in results.runs.items():
        if key in kept_apart:
            b = kept_apart[key]
            baseline_run.keep(run, ws, b, None, "undirected")
