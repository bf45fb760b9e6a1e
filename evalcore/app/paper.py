"""The Method page's sections: the paper's Table 1, Fig. 3's ablation curves, the tie report, the KG readings and
Fig. 4's cost curve, each recomputed on the loaded workspace (:mod:`evalcore.studies.reproduction`)."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from evalcore.app.workspace import Workspace
from evalcore.evaluation.evaluator import Evaluator
from evalcore.studies import reproduction as rp

Progress = Callable[[float, str], None]


def table1(evaluator: Evaluator, captions: dict[str, str], beside_paper: bool, progress: Progress) -> pd.DataFrame:
    """Table 1 (precision of retrieval by IoU, nn-IoU and the captions' TF-IDF vectors) on the evaluator's pool,
    beside the paper's numbers when ``beside_paper`` (ROCOv2 test), else one column per K."""
    systems = rp.table1_systems(evaluator, captions, progress=lambda f, text: progress(0.8 * f, text))
    progress(0.8, "Precision of each ranking")
    table = rp.precision_table(evaluator, systems)
    return rp.compare_with_paper(table) if beside_paper else table.pivot_table(
        index=["system", "target"], columns="k", values="value", sort=False).rename(
        columns=lambda k: f"P@{k}").reset_index()


def kg_variants(evaluator: Evaluator, ws: Workspace, progress: Progress) -> pd.DataFrame:
    """:func:`evalcore.studies.reproduction.kg_variants` over the workspace's KG files, its progress (a name before
    each ranking and each precision table: twice per variant, IoU, four mode x n readings, the strict one and one
    per ontology source) said as a fraction."""
    sources = sorted(evaluator.kg.sources)
    total = 2 * (5 + 1 + len(sources))
    started: list[str] = []

    def report(name: str) -> None:
        started.append(name)
        progress(len(started) / total, name)

    return rp.kg_variants(evaluator, [edges for _, edges in ws.kg_files.values()], sources, strict_hops=(1,),
                          progress=report)


def timing_curve(evaluator: Evaluator, progress: Progress) -> pd.DataFrame:
    """Fig. 4 at a quarter, half and all of the pool's images, the per-pair references timed on 5 queries."""
    size = len(evaluator.concepts)
    sizes = sorted({max(1, size // 4), max(1, size // 2), size})
    return rp.timing_curve(evaluator.concepts, evaluator.kg, sizes, reference_sample=5, progress=progress)
