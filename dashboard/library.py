"""The pages' one door to evalcore's names: the constants, types, errors and pure functions that a page or app.py uses
as evalcore defines them, re-exported unchanged.

Pages and app.py import nothing from evalcore: a computation that reads the data goes through
:mod:`dashboard.computed` (cached there by what it reads), a drawing helper lives in :mod:`dashboard.ui` or
:mod:`dashboard.cards`, the session's inputs in :mod:`dashboard.session`; what is left is a name a page uses as it is
(an error it catches, a type it checks, a constant it formats with, a function of what it shows), which comes from here.
This module only re-exports, grouped by the evalcore module each name lives in; a name no page uses any more leaves it
(tests/project/test_architecture.py checks both).
"""

from __future__ import annotations

# app.baselines: the Table-1 baselines a page offers, and which queries' top lists two rankings change.
from evalcore.app.baselines import (
    IOU,
    NN_IOU,
    Baseline,
    available_baselines,
    changed_top,
    comparison_baselines,
    default_baselines,
    setting_read,
)

# app.browse: finding a query by its ID, a concept or a caption word.
from evalcore.app.browse import LISTED_IMAGES, find_images, image_with_id

# app.detection: the Concept detection page's choices.
from evalcore.app.detection import EXTRACTED_SOURCE, concept_codes

# app.explain: an explanation's type and the wording of KG paths.
from evalcore.app.explain import (
    SOURCE_NAMES,
    Explanation,
    path_phrase,
    path_steps,
    paths_dot,
    readable_path,
    shown_name,
    source_phrase,
)

# app.judging: the Judging page's design defaults and the key of a collection's judgments.
from evalcore.app.judging import DEFAULT_DESIGN_SIZE, DEFAULT_SEED, MAX_DESIGN_SIZE, judged_collection

# app.judgments: what a judge's name may be, and the Judging page's downloads.
from evalcore.app.judgments import MAX_JUDGE_CHARS, judge_name_problem, judgments_csv, judgments_qrels

# app.scores: the Leaderboard's scores, the queries where two systems differ most and the relevance of its
# precision-recall curves.
from evalcore.app.scores import Scores, curve_relevance, largest_differences

# app.sources: a saved workspace's link, opened by app.py.
from evalcore.app.sources import SavedLink

# app.store: sizes in words.
from evalcore.app.store import size_text

# app.sweeps: the Ablation page's default metrics and the grid's options.
from evalcore.app.sweeps import grid_metrics, grid_options

# app.workspace: the loaders the Data page hands to guarded_load, its validation report, an image's thumbnail.
from evalcore.app.workspace import (
    image_of,
    report_table,
    with_caption_extraction,
    with_captions,
    with_embeddings,
    with_images,
    with_kg,
    with_labels,
    with_names,
    with_new_concepts,
    with_run,
)

# data: a run's type.
from evalcore.data import Run

# errors: what a page catches and says.
from evalcore.errors import CBIRLensError, StoreError

# evaluation.groups: the groupings of queries read from the workspace's own inputs.
from evalcore.evaluation.groups import BUILT_IN_GROUPINGS

# evaluation.options: the default cut-offs.
from evalcore.evaluation.options import DEFAULT_CUTOFFS

# io.figures: the Method page's figures.
from evalcore.io.figures import ablation_figure, timing_figure, worked_example_figure

# io.tables: how scores are laid out, labelled, described and downloaded.
from evalcore.io.tables import (
    SCORE_DECIMALS,
    SCORE_FORMAT,
    best_systems,
    describe_metric,
    equivalent_metric,
    focus_metric,
    format_p_value,
    grouped_metrics,
    label_query_counts,
    latex_table,
    markdown_table,
    metric_family,
    metric_group,
    results_csv,
    score_table,
    spreadsheet_csv,
    summary_metrics,
    wide_summary,
)

# metrics.registry: a metric's definition (its largest value).
from evalcore.metrics.registry import parse_metric

# metrics.ties: the sentence on tied scores.
from evalcore.metrics.ties import tie_message

# relevance.formulas: the Method page's worked example.
from evalcore.relevance.formulas import approximate_matches, iou, nn_iou

# relevance.kg: the KG modes of the sidebar.
from evalcore.relevance.kg import KG_MODES

# relevance.measures: the registry of relevance measures.
from evalcore.relevance.measures import MEASURES, nn_iou_measure, parse_measure

# resources: the shipped demo files.
from evalcore.resources import demo_path

# stats.groups: the group of the queries without a value.
from evalcore.stats.groups import NO_GROUP

# studies.ablation: the sweeps' axes, titles and flat curves.
from evalcore.studies.ablation import (
    HOPS,
    FlatCurve,
    SweepAxis,
    ablation_title,
    flat_curves,
    grids_alpha_and_n,
    informative_systems,
    retrieval_system,
    sweep_axis,
)

# studies.measure_comparison: the columns and the verdict of the comparison of measures.
from evalcore.studies.measure_comparison import (
    ALL_POWER,
    APART,
    PAIRS_JUDGED,
    SIGNIFICANCE_LEVEL,
    SWAP_RATE,
    TIE_RANK,
    comparison_measures,
    sampled_power_column,
    verdict,
)

# studies.reproduction: the Method page's tables.
from evalcore.studies.reproduction import TIE_COLUMNS, area_table, is_rocov2_test, shown_table

__all__ = [
    # app.baselines
    "IOU", "NN_IOU", "Baseline", "available_baselines", "changed_top", "comparison_baselines", "default_baselines",
    "setting_read",
    # app.browse
    "LISTED_IMAGES", "find_images", "image_with_id",
    # app.detection
    "EXTRACTED_SOURCE", "concept_codes",
    # app.explain
    "SOURCE_NAMES", "Explanation", "path_phrase", "path_steps", "paths_dot", "readable_path",
    "shown_name", "source_phrase",
    # app.judging
    "DEFAULT_DESIGN_SIZE", "DEFAULT_SEED", "MAX_DESIGN_SIZE", "judged_collection",
    # app.judgments
    "MAX_JUDGE_CHARS", "judge_name_problem", "judgments_csv", "judgments_qrels",
    # app.scores
    "Scores", "curve_relevance", "largest_differences",
    # app.sources
    "SavedLink",
    # app.store
    "size_text",
    # app.sweeps
    "grid_metrics", "grid_options",
    # app.workspace
    "image_of", "report_table", "with_caption_extraction", "with_captions", "with_embeddings", "with_images",
    "with_kg", "with_labels", "with_names", "with_new_concepts", "with_run",
    # data
    "Run",
    # errors
    "CBIRLensError", "StoreError",
    # evaluation.groups
    "BUILT_IN_GROUPINGS",
    # evaluation.options
    "DEFAULT_CUTOFFS",
    # io.figures
    "ablation_figure", "timing_figure", "worked_example_figure",
    # io.tables
    "SCORE_DECIMALS", "SCORE_FORMAT", "best_systems",
    "describe_metric", "equivalent_metric", "focus_metric", "format_p_value", "grouped_metrics", "label_query_counts",
    "latex_table", "markdown_table", "metric_family", "metric_group",
    "results_csv", "score_table", "spreadsheet_csv", "summary_metrics", "wide_summary",
    # metrics.registry
    "parse_metric",
    # metrics.ties
    "tie_message",
    # relevance.formulas
    "approximate_matches", "iou", "nn_iou",
    # relevance.kg
    "KG_MODES",
    # relevance.measures
    "MEASURES", "nn_iou_measure", "parse_measure",
    # resources
    "demo_path",
    # stats.groups
    "NO_GROUP",
    # studies.ablation
    "HOPS", "FlatCurve", "SweepAxis", "ablation_title", "flat_curves", "grids_alpha_and_n", "informative_systems",
    "retrieval_system", "sweep_axis",
    # studies.measure_comparison
    "ALL_POWER", "APART", "PAIRS_JUDGED", "SIGNIFICANCE_LEVEL", "SWAP_RATE", "TIE_RANK", "comparison_measures",
    "sampled_power_column", "verdict",
    # studies.reproduction
    "TIE_COLUMNS", "area_table", "is_rocov2_test", "shown_table",
]
