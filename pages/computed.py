"""Every computation the pages show, cached by what it reads: the dashboard's one door to the Evaluator.

Each cached function takes its real inputs and Streamlit hashes all of them: a :class:`Workspace` by its content
digest (:data:`HASH_FUNCS`), restricted to the inputs the function reads (:meth:`Workspace.restricted_to`, so it
can read nothing else), and typed options (:class:`~pages.sidebar.Settings`, :class:`~evalcore.app.baselines.Baseline`,
:class:`~evalcore.relevance.measures.MeasureSpec`) by value. A computation that draws progress while it runs cannot be an
``st.cache_*`` function (Streamlit would replay the drawing): :func:`kept_result` keeps it in a
:class:`~evalcore.kept.Kept` store under the digest of the same arguments.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from evalcore.app.baselines import EVALUATOR_INPUTS, Baseline, PoolRanking, pool_relevance
from evalcore.app.explain import Explanation, example_path_pair, explain_pair, search_concepts
from evalcore.app.workspace import (
    ReportedSteps,
    Workspace,
    caption_concepts,
    extraction_names,
    load_rocov2_complete,
    rocov2_digest,
)
from evalcore.cache_keys import content_digest
from evalcore.data import Run
from evalcore.engine.array_backend import gpu_available
from evalcore.evaluation.evaluator import AlignedRun, Evaluator
from evalcore.evaluation.options import Compute, Relevance, Scoring
from evalcore.evaluation.results import evaluate_runs
from evalcore.extraction.caption_concepts import CaptionConcepts, Coverage, coverage
from evalcore.extraction.extractor import ConceptDictionary
from evalcore.io.outputs import concepts_csv
from evalcore.io.tables import leaderboard_metrics
from evalcore.kept import Kept
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import MeasureSpec, measure_spec
from evalcore.stats.compare import PairComparison
from evalcore.studies.measure_comparison import MeasureComparison, compare_measures
from pages.session import server_kept, server_scheduler, server_workspaces
from pages.sidebar import Settings
from pages.ui import StepProgress, for_reader, shown_system

#: A workspace hashes to the digest of its inputs' content; an array to the digest of all its bytes (Streamlit's
#: own hash samples arrays of 500,000 items or more), and a DataFrame to the digest of its content (Streamlit's
#: samples large frames too).
HASH_FUNCS: dict[Any, Callable[[Any], str]] = {Workspace: lambda ws: ws.digest, np.ndarray: content_digest,
                                               pd.DataFrame: content_digest}
#: What an evaluation (and the baselines it ranks) reads.
EVALUATION_INPUTS = (*EVALUATOR_INPUTS, "captions", "embeddings", "runs")
KG_INPUTS = ("kg_files", "names")
#: The progress step that builds the evaluator, in the researcher's and the clinician's words.
ENGINE_STEP = ("Preparing the knowledge-graph index and the pairwise engine", "Preparing the concept map")


def kept_result(kept: Kept, compute: Callable[..., Any], *arguments: Any, now: bool = True,
                progress: Callable[..., None] | None = None) -> Any:
    """``compute(*arguments, progress=progress)``, kept in ``kept`` under the digest of ``compute``'s name and every
    argument (a workspace by its digest); ``progress`` (a callback that draws) is not part of it. Sessions asking
    for a result another one is computing wait for it, their bars moving with its progress
    (:meth:`~evalcore.kept.Kept.computed`). With ``now`` False, what is kept or None."""
    parts = [a.digest if isinstance(a, Workspace) else a for a in arguments]
    key = content_digest((compute.__module__, compute.__qualname__, parts))
    if not now:
        return kept.get(key)
    return kept.computed(key, lambda report: compute(*arguments, **({"progress": report} if report else {})),
                         progress)


def kept_with_bar(kept: Kept, text: str, compute: Callable[..., Any], *arguments: Any) -> Any:
    """:func:`kept_result`, drawing a progress bar (starting with ``text``, then "Computing <step>") only while it
    computes; ``compute`` takes ``progress(fraction, step)``."""
    value = kept_result(kept, compute, *arguments, now=False)
    if value is None:
        bar = st.progress(0.0, text=text)
        value = kept_result(kept, compute, *arguments,
                            progress=lambda f, step: bar.progress(min(1.0, f), text=f"Computing {step}"))
        bar.empty()
    return value


# --- loading ---------------------------------------------------------------------------------------------------

def _rocov2_workspace(files: str, folder: str, roots: tuple[str, ...],
                      progress: Callable[[float, str], None] | None = None) -> Workspace:
    """``files`` (the digest of what the load reads) only keys the result."""
    steps = ReportedSteps(progress) if progress is not None else None
    return load_rocov2_complete(folder, [Path(root) for root in roots], steps, finish=kg_of)


def rocov2_workspace(folder: str, roots: tuple[Path, ...], progress: Callable[[float, str], None]) -> Workspace:
    """The ROCOv2 folder's workspace (:func:`evalcore.app.workspace.load_rocov2_complete`, the KG index built last),
    read once for every session loading the same files: kept for the server under the digest of their bytes
    (:func:`evalcore.app.workspace.rocov2_digest`), the folder and the roots. A session asking while another reads the
    same files waits for that read, its ``progress(fraction, text)`` moving with it. The workspace is shared
    read-only: every load or upload replaces a session's workspace, none changes it."""
    return kept_result(server_workspaces(), _rocov2_workspace, rocov2_digest(folder, roots), folder,
                       tuple(str(root) for root in roots), progress=progress)


def rocov2_workspace_ready(folder: str, roots: tuple[Path, ...], progress: Callable[[float, str], None]) -> Workspace:
    """:func:`rocov2_workspace`, then the dictionary the explanations read its captions with
    (:func:`caption_dictionary_of`, about a second for ROCOv2's names), so that the Per-query and Case view pages do
    not build it on their first draw with no progress to show."""
    ws = rocov2_workspace(folder, roots, lambda fraction, text: progress(0.9 * fraction, text))
    progress(0.9, "Reading the concept names the explanations look for in the captions")
    caption_dictionary_of(ws)
    progress(1.0, "Read")
    return ws


# --- concept sets found in captions --------------------------------------------------------------------------

#: What finding concepts in captions reads (:func:`evalcore.app.workspace.caption_concepts`).
EXTRACTION_INPUTS = ("captions", "names", "kg_files")


def found_concepts(ws: Workspace, synonym_files: tuple[tuple[bytes, str], ...], abbreviations: bool,
                   progress: Callable[[float, str], None]) -> CaptionConcepts:
    """The concept sets of ``ws``'s captions (:func:`evalcore.app.workspace.caption_concepts`), kept for every session
    under the digest of the captions, names, KG files, synonym files and option they are made from: a second
    session with the same captions reuses them, a session with other captions never does."""
    return kept_result(server_kept(), caption_concepts, ws.restricted_to(*EXTRACTION_INPUTS), synonym_files,
                       abbreviations, progress=progress)


@st.cache_data(max_entries=8, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_coverage(ws: Workspace) -> Coverage:
    return coverage(ws.concepts, ws.captions)


def extraction_coverage(ws: Workspace) -> Coverage:
    """The coverage report of the workspace's concept sets over its captions."""
    return cached_coverage(ws.restricted_to("concepts", "captions"))


@st.cache_data(max_entries=4, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_concepts_csv(ws: Workspace) -> str:
    return concepts_csv(ws.concepts)


def concepts_download(ws: Workspace) -> str:
    """The workspace's concept sets as the ``extract`` command writes them (``ID,CUIs``)."""
    return cached_concepts_csv(ws.restricted_to("concepts"))


# --- the knowledge graph and the evaluator -------------------------------------------------------------------

@st.cache_resource(show_spinner="Building the knowledge graph index…", max_entries=4, hash_funcs=HASH_FUNCS)
def cached_kg(ws: Workspace) -> KnowledgeGraph:
    kg = KnowledgeGraph.from_edges(tuple(edges for _, edges in ws.kg_files.values()))
    return replace(kg, names={**kg.names, **ws.names})


def kg_of(ws: Workspace) -> KnowledgeGraph | None:
    return cached_kg(ws.restricted_to(*KG_INPUTS)) if ws.kg_files else None


@st.cache_resource(show_spinner=False)
def compute_backend() -> tuple[str, str]:
    """JAX on the GPU when JAX is installed and sees one, else the numpy engine: the numbers are the same."""
    return ("jax", "gpu") if gpu_available() else ("numpy", "cpu")


@st.cache_resource(show_spinner="Preparing the pairwise engine…", max_entries=4, hash_funcs=HASH_FUNCS)
def cached_evaluator(ws: Workspace, mode: str) -> Evaluator:
    backend, device = compute_backend()
    return Evaluator(ws.concepts, kg_of(ws), mode, ws.resolved_labels(),
                     compute=Compute(client=server_scheduler(), backend=backend, device=device))


def evaluator_of(ws: Workspace, mode: str) -> Evaluator:
    evaluator = cached_evaluator(ws.restricted_to(*EVALUATOR_INPUTS), mode)
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


def metric_names_for(evaluator: Evaluator, ks: tuple[int, ...], measure: str | None = None) -> list[str]:
    """The standard report; with a measure (canonical text) other than nn-IoU, its metrics replace nn-IoU's."""
    return Scoring(k=ks).metric_names(evaluator.label_targets(), Relevance.of(measure=measure))


# --- the Table-1 baselines -------------------------------------------------------------------------------------

def _baseline_ranking(ws: Workspace, baseline: Baseline, measure: MeasureSpec | None, mode: str,
                      progress: Callable[[float], None] | None = None) -> Run:
    return baseline.run(ws, evaluator_of(ws, mode) if baseline.by_relevance else None, measure, progress)


def baseline_run(ws: Workspace, baseline: Baseline, relevance: MeasureSpec, mode: str,
                 progress: Callable[[float], None] | None = None) -> Run:
    """A baseline's ranked lists at the setting its ranking depends on (:meth:`Baseline.setting`), given the
    session's nn-IoU setting ``relevance`` and KG mode; kept for every session (by what it reads), computed while
    ``progress(fraction)`` moves (a progress callback cannot run inside an ``st.cache_*`` function)."""
    return kept_result(server_kept(), _baseline_ranking, ws.restricted_to(*baseline.inputs()), baseline,
                       *baseline.setting(relevance, mode), progress=progress)


def relevance_ranking(ws: Workspace, baseline: Baseline, settings: Settings,
                      report: Callable[[float], None] | None = None) -> AlignedRun:
    """A relevance baseline over the whole pool, exactly as :func:`evaluation` ranks it (the evaluator
    keeps the ranking, so the leaderboard, Per-query and Case view share one pass), with progress per block."""
    return baseline.aligned_ranking(evaluator_of(ws, settings.kg_mode), settings.relevance, max(settings.ks), report)


def baselines_with_progress(ws: Workspace, baselines: list[Baseline], settings: Settings) -> dict[Baseline, Run]:
    """The chosen baselines' runs, named by their titles (relevance rankings read one query at a time), one
    progress step each."""
    if not baselines:
        return {}
    runs = {}
    with StepProgress(1 + len(baselines)) as progress:
        progress.run(for_reader(*ENGINE_STEP),
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

def _evaluation(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...], settings: Settings) -> dict:
    evaluator = evaluator_of(ws, settings.kg_mode)
    runs: list[Run | AlignedRun] = [ws.runs[name][1] for name in run_names]
    for baseline in baselines:
        # A relevance baseline is ranked and scored in one pass over the pool, without a detour through image IDs.
        runs.append(relevance_ranking(ws, baseline, settings) if baseline.by_relevance
                    else baseline_run(ws, baseline, settings.relevance, settings.kg_mode))
    relevance = Relevance(settings.relevance, settings.measure, settings.gain)
    scoring = Scoring(leaderboard_metrics(settings.ks, evaluator.label_targets(), settings.measure.key))
    results = evaluate_runs(evaluator, runs, scoring, relevance)
    return {"query_ids": {system: results.query_ids(system) for system in results.systems},
            "systems": results.systems, "counts": results.counts, "metrics": results.metrics,
            "threshold": relevance.threshold, "results": results}


def evaluation(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...], settings: Settings) -> dict:
    """The per-query values of the loaded runs ``run_names`` and the ``baselines`` as
    :class:`~evalcore.evaluation.results.Results` (``results``: read-only; their means with bootstrap CIs, :func:`summary_of`,
    and the tests of systems against each other are computed once each, when first asked for); the sidebar's
    measure adds its metrics before nn-IoU's
    (:func:`evalcore.io.tables.leaderboard_metrics`). Kept for the whole server by what it reads and shared read-only:
    sessions asking for the same evaluation (eight users moving alpha to the same value) compute it once and read
    one copy, where a per-session cache would unpickle its own (:func:`kept_result`)."""
    return kept_result(server_kept(), _evaluation, ws.restricted_to(*EVALUATION_INPUTS), tuple(run_names),
                       tuple(baselines), settings)


def evaluation_with_progress(ws: Workspace, run_names: tuple[str, ...], baselines: tuple[Baseline, ...],
                             settings: Settings) -> dict:
    """:func:`evaluation` behind a progress bar. The slow parts run first as steps of their own, each
    leaving its result where the evaluation finds it: the engine, each computed baseline, each pass over the pool
    (moving the bar block by block); then the scoring."""
    # nn-IoU's pass first: it codes the pool, and IoU's pass then ranks the code groups of those codes instead of
    # coding the pool again. Grouping them here, not at the first alpha change, makes that change as fast as the
    # next ones (about 1.5 s less on ROCOv2 test) for a few tenths of a second more now.
    relevance = sorted((b for b in baselines if b.by_relevance), key=lambda b: b.key == "iou")
    others = [b for b in baselines if not b.by_relevance]
    # Ideal rankings the metrics need and no relevance baseline computes on the way.
    summaries = [measure for measure in ("nn-iou", "iou") if measure not in {b.key for b in relevance}]
    k = max(settings.ks)
    best_by = {"iou": for_reader("IoU", "shared concepts"),
               "nn-iou": for_reader("nn-IoU", "shared concepts, related ones counting")}
    with StepProgress(2 + len(others) + len(relevance) + len(summaries)) as progress:
        evaluator = progress.run(for_reader(*ENGINE_STEP),
                                 lambda _: evaluator_of(ws, settings.kg_mode))
        for baseline in others:
            progress.run(f"Ranking the collection: {shown_system(baseline)}",
                         lambda report, b=baseline: baseline_run(ws, b, settings.relevance, settings.kg_mode, report))
        for baseline in relevance:
            progress.run(f"Ranking the collection: {shown_system(baseline)} (every image against every other)",
                         lambda report, b=baseline: relevance_ranking(ws, b, settings, report))
        for measure in summaries:
            progress.run(f"Best possible rankings by {best_by[measure]} (every image against every other)",
                         lambda report, measure=measure: evaluator.pool_summary(
                             settings.relevance if measure == "nn-iou" else measure_spec("iou"), k, 0.5, report))
        systems = len(run_names) + len(baselines)
        return progress.run(f"Scoring {systems} system{'s' if systems != 1 else ''}",
                            lambda _: evaluation(ws, run_names, baselines, settings))


def summary_of(result: dict) -> pd.DataFrame:
    """Means with 95% bootstrap CIs (columns ``low`` and ``high``) of an :func:`evaluation` result, computed once
    for every session reading it (:meth:`evalcore.evaluation.results.Results.table`) when a page first asks: the leaderboard
    asks after starting its significance tests, which then run beside the bootstrap; the Per-query page never."""
    return result["results"].table().rename(columns={"ci_low": "low", "ci_high": "high"})


def system_comparisons(result: dict, metric: str) -> list[PairComparison]:
    """Paired randomization and t-tests between every two systems of an :func:`evaluation` result on one metric,
    Holm-corrected over the pairs (:meth:`evalcore.evaluation.results.Results.comparisons`): computed once per result and
    metric for every session reading that result."""
    return result["results"].comparisons(metric)


def start_comparisons(result: dict, metric: str) -> None:
    """Start :func:`system_comparisons` of ``metric`` in a thread of its own and return at once: a page computes
    and draws meanwhile, and its own call then waits for that computation (one per result and metric) or reads it
    back."""
    threading.Thread(target=system_comparisons, args=(result, metric), daemon=True).start()


def per_query_values(result: dict, metric: str) -> pd.DataFrame:
    """One metric of a :func:`evaluation` result as a queries x systems table."""
    results = result["results"]
    return pd.DataFrame({system: pd.Series(results.metric_values(system, metric), index=result["query_ids"][system])
                         for system in result["systems"]})


def per_query_long(result: dict) -> pd.DataFrame:
    """Every per-query value of a :func:`evaluation` result, one row per (system, query, metric)."""
    frames = [pd.DataFrame({"system": system, "query_id": np.repeat(result["query_ids"][system], len(result["metrics"])),
                            "metric": np.tile(result["metrics"], len(result["query_ids"][system])),
                            "value": result["results"].values(system).ravel()})
              for system in result["systems"]]
    return pd.concat(frames, ignore_index=True)


def graded_qrels_text(ws: Workspace, baselines: tuple[Baseline, ...], settings: Settings,
                      progress: Callable[[float], None]) -> str:
    """Graded qrels (evalcore.evaluation.qrels): each query's ideal top K over the pool plus every image a shown system
    retrieved."""
    from evalcore.evaluation.qrels import graded_judgments

    evaluator = evaluator_of(ws, settings.kg_mode)
    runs = [r for _, r in ws.runs.values()] + [baseline_run(ws, b, settings.relevance, settings.kg_mode)
                                               for b in baselines]
    return graded_judgments(evaluator, runs, max(settings.ks), settings.relevance, progress).text()


# --- explanations ----------------------------------------------------------------------------------------------

#: What the dictionary of the loaded names reads (:func:`evalcore.app.workspace.extraction_names`).
NAMES_DICTIONARY_INPUTS = ("names", "kg_files")


@st.cache_resource(show_spinner="Reading the concept names…", max_entries=4, hash_funcs=HASH_FUNCS)
def cached_names_dictionary(ws: Workspace) -> ConceptDictionary:
    return ConceptDictionary.build(*extraction_names(ws))


def caption_dictionary_of(ws: Workspace) -> ConceptDictionary:
    """The dictionary the explanations read captions with, the one concept extraction reads them with: the
    extraction's own where the concept sets were found in the captions (its synonym files and options included),
    else one of the loaded names and the KG's with the imaging vocabulary (as finding concepts in captions builds
    it), built once for every session with the same names (about a second for ROCOv2's 65,000)."""
    if ws.extraction is not None:
        return ws.extraction.dictionary
    return cached_names_dictionary(ws.restricted_to(*NAMES_DICTIONARY_INPUTS))


@st.cache_resource(max_entries=4096, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_explanation(ws: Workspace, query: str, result: str, relevance: MeasureSpec, mode: str) -> Explanation:
    kg = kg_of(ws)
    measure = relevance if kg is not None else relevance.with_parameters(n=0)
    captions = (ws.captions.get(query, ""), ws.captions.get(result, "")) if ws.captions else None
    return explain_pair(ws.concepts[query], ws.concepts[result], kg, measure, mode,
                        names=ws.names if kg is None else {}, captions=captions,
                        dictionary=caption_dictionary_of(ws) if captions is not None else None)


@st.cache_resource(max_entries=1024, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_explanations(ws: Workspace, query: str, results: tuple[str, ...], relevance: MeasureSpec,
                        mode: str) -> tuple[Explanation, ...]:
    return tuple(cached_explanation(ws, query, result, relevance, mode) for result in results)


def explanations_of(ws: Workspace, query: str, results: tuple[str, ...], settings: Settings) -> tuple[Explanation, ...]:
    """Why each image of ``results`` relates to image ``query`` at the sidebar's relevance setting, their captions
    read for negated mentions by :func:`caption_dictionary_of` (every image needs a concept set). Cached per pair and
    settings, and per list: a system's list costs one cache lookup (each hashes the workspace and the settings)
    rather than one per card."""
    return cached_explanations(ws.restricted_to("concepts", "captions", "extraction", *KG_INPUTS), query,
                               tuple(results), settings.relevance, settings.kg_mode)


# --- comparing relevance measures ------------------------------------------------------------------------------

BASELINES_SHARE = 0.2


def _compare_measures(ws: Workspace, measures: tuple[str, ...], baselines: tuple[Baseline, ...],
                      relevance: MeasureSpec, mode: str, k: int, samples: int,
                      progress: Callable[[float, str], None] | None = None) -> MeasureComparison:
    evaluator = evaluator_of(ws, mode)
    systems: list[Run | AlignedRun] = [run for _, run in ws.runs.values()]
    # The baselines (seconds each when not cached: TF-IDF over the captions) take the bar's first fifth. A relevance
    # baseline is the pool ranking the evaluator keeps for the leaderboard (the same lists as its run, no new pass).
    share = BASELINES_SHARE if baselines else 0.0
    for step, baseline in enumerate(baselines):
        if progress:
            progress(share * step / len(baselines), f"Ranking by the baseline: {baseline.title}")
        systems.append(baseline.aligned_ranking(evaluator, relevance, k) if baseline.by_relevance
                       else baseline_run(ws, baseline, relevance, mode))
    return compare_measures(evaluator, measures, systems, samples=samples,
                            progress=(lambda done, text: progress(share + (1 - share) * done, text)) if progress else None)


def measure_comparison(kept: Kept, ws: Workspace, measures: tuple[str, ...], baselines: tuple[Baseline, ...],
                       settings: Settings, samples: int = 2000, progress: Callable[[float, str], None] | None = None,
                       compute: bool = True) -> MeasureComparison | None:
    """:func:`evalcore.studies.measure_comparison.compare_measures` over the loaded runs and the chosen baselines (the
    relevance baselines at the sidebar's alpha and n), kept in ``kept``; None when not computed yet and
    ``compute`` is False."""
    return kept_result(kept, _compare_measures, ws.restricted_to(*EVALUATION_INPUTS), tuple(measures),
                       tuple(baselines), settings.relevance, settings.kg_mode, max(settings.ks), samples, now=compute,
                       progress=progress)


# --- the ablation page -----------------------------------------------------------------------------------------

def ablation_of(ws: Workspace, metrics: tuple[str, ...], include_runs: bool, isolated: bool, relevance: MeasureSpec,
                mode: str, gain: str, progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """The alpha x n grid (:func:`evalcore.studies.ablation.ablation`) of the loaded runs (if ``include_runs``) and
    retrieval by nn-IoU; ``isolated``: over the queries whose top 30 change at the sidebar's ``relevance``. The grid's
    ``attrs["queries"]`` says over how many queries."""
    from evalcore.studies.ablation import ablation

    evaluator = evaluator_of(ws, mode)
    # At n = 0 no top 30 would change: the subset is taken at n = 1, the paper's distance.
    at = (relevance if relevance.hops else relevance.with_parameters(n=1)) if isolated else None
    runs = [run for _, run in ws.runs.values()] if include_runs else []
    return ablation(evaluator, runs, list(metrics), at, gain=gain, progress=progress)


def sweep_of(ws: Workspace, measure: MeasureSpec, parameter: str, values: tuple[float, ...], metrics: tuple[str, ...],
             include_runs: bool, mode: str, gain: str,
             progress: Callable[[float, str], None] | None = None) -> pd.DataFrame:
    """One parameter of ``measure`` swept over ``values`` (:func:`evalcore.studies.ablation.parameter_sweep`)."""
    from evalcore.studies.ablation import parameter_sweep

    runs = [run for _, run in ws.runs.values()] if include_runs else []
    return parameter_sweep(evaluator_of(ws, mode), runs, list(metrics), measure, parameter, list(values), gain=gain,
                           progress=progress)


# --- the knowledge-graph page ----------------------------------------------------------------------------------

@st.cache_data(max_entries=8, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_frequency(ws: Workspace) -> Counter:
    return Counter(c for s in ws.concepts.sets for c in s)


def concept_frequency(ws: Workspace) -> Counter:
    """How many images show each concept."""
    return cached_frequency(ws.restricted_to("concepts"))


@st.cache_resource(max_entries=4, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_searchable_names(ws: Workspace) -> dict[str, str]:
    kg = kg_of(ws)
    names = {node: kg.names.get(node, node) for node in kg.nodes}
    names.update({c: ws.names.get(c) or names.get(c, c) for c in concept_frequency(ws)})
    return names


def searchable_names(ws: Workspace) -> dict[str, str]:
    """Every KG node and dataset concept with its name (the ID where none is known)."""
    return cached_searchable_names(ws.restricted_to("concepts", *KG_INPUTS))


@st.cache_data(max_entries=8, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_default_pair(ws: Workspace, mode: str) -> tuple[str, str] | None:
    return example_path_pair(kg_of(ws), dict(concept_frequency(ws)), mode)


def default_pair(ws: Workspace, mode: str) -> tuple[str, str] | None:
    """Two frequent concepts a few links apart, to open the path finder with."""
    return cached_default_pair(ws.restricted_to("concepts", *KG_INPUTS), mode)


@st.cache_data(max_entries=64, show_spinner=False, hash_funcs=HASH_FUNCS)
def cached_search(ws: Workspace, text: str) -> list[str]:
    return search_concepts(text, searchable_names(ws), concept_frequency(ws))


def search_names(ws: Workspace, text: str) -> list[str]:
    """Search results, kept per text: every rerun of the page would otherwise scan the 65,000 names again."""
    return cached_search(ws.restricted_to("concepts", *KG_INPUTS), text)
