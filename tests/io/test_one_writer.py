"""One LaTeX writer: Results.to_latex is a call into evalcore.io.tables.latex_table (the dashboard's download), whose
parameters carry every difference between the two doors' texts."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluation, SystemResult
from evalcore.evaluation.results import Results
from evalcore.io.tables import latex_table

ROOT = Path(__file__).resolve().parents[2]
METRICS = ["CUI@10", "nn-CUI@10", "P@5[organ]"]


def random_results(seed: int) -> Results:
    rng = np.random.default_rng(seed)
    systems = ["run_1 & co", "[-3cm]x", "b%", "undefined"]
    queries = tuple(f"q{i}" for i in range(int(rng.integers(3, 12))))
    per_system = {}
    for system in systems:
        values = {metric: rng.random(len(queries)).round(int(rng.integers(1, 4))) for metric in METRICS}
        if system == "undefined":
            values["CUI@10"] = np.full(len(queries), np.nan)
        per_system[system] = SystemResult(system, queries, values, {})
    params = {"alpha": 0.5, "n": 1, "kg_mode": "undirected", "gain": "linear"}
    return Results(Evaluation(per_system, params, METRICS))


def summary_of(results: Results):
    return results.table().rename(columns={"ci_low": "low", "ci_high": "high"})


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("intervals", [True, False])
@pytest.mark.parametrize("digits", [0, 2, 4])
def test_both_doors_give_the_same_text_for_the_same_table(seed, intervals, digits):
    results = random_results(seed)
    chosen = METRICS[seed % 3:] + METRICS[:seed % 3]
    api = results.to_latex(chosen, intervals=intervals, digits=digits)
    note = api.splitlines()[0]
    assert note.startswith("% CBIR Lens: alpha=0.5, n=1")
    assert api == latex_table(summary_of(results), chosen, None, digits, systems=results.systems,
                              intervals="inline" if intervals else None, best_in_bold=False, notes=[note],
                              final_newline=True)


@pytest.mark.parametrize("seed", range(3))
def test_the_dashboards_table_differs_only_by_its_parameters(seed):
    """The download's rows are the API's rows with the best means in bold and the intervals small."""
    results = random_results(seed)
    summary = summary_of(results)
    dashboard = latex_table(summary, METRICS, "caption & more")
    assert dashboard == latex_table(summary, METRICS, "caption & more", 4, systems=results.systems, intervals="small",
                                    best_in_bold=True)

    def rows(latex: str) -> list[str]:
        lines = latex.splitlines()
        return lines[lines.index(r"\begin{tabular}{lrrr}"):lines.index(r"\end{tabular}") + 1]

    plain = [re.sub(r"\\textbf\{([^}]*)\}", r"\1", re.sub(r"\{\\scriptsize (\{\[\}[^{]*\{\]\})\}", r"\1", line))
             for line in rows(dashboard)]
    assert plain == rows(results.to_latex(METRICS))
    assert r"\textbf{" in dashboard and r"\textbf{" not in results.to_latex(METRICS)


def test_an_unknown_interval_style_is_refused():
    with pytest.raises(ParameterError, match="intervals"):
        latex_table(summary_of(random_results(0)), METRICS, None, intervals="large")


def test_results_writes_no_latex_of_its_own():
    """No table lines (\\toprule, \\begin{tabular}, cell formats) outside evalcore/io/tables.py."""
    tree = ast.parse((ROOT / "evalcore" / "evaluation" / "results.py").read_text(encoding="utf-8"))
    texts = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]
    assert not [text for text in texts if re.search(r"\\(toprule|midrule|bottomrule|begin\{|textbf|scriptsize)", text)]
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module == "evalcore.io.tables" for alias in node.names}
    assert "latex_table" in imported and not imported & {"latex_tabular", "latex_interval"}


# --- one definition of the metrics a table shows (io.tables.shown_tables) -----------------------------------------

def test_the_metrics_computed_are_the_tables_drawn_and_the_focus():
    from evalcore.io.tables import focus_metric, grouped_metrics, shown_metrics, shown_tables
    from evalcore.metrics.registry import default_metric_names

    names = ["RBP", "ERR@10", *default_metric_names((5, 10), ("organ",)), "CUI@10{dice}"]
    for group, families in [*grouped_metrics(names).items(), (None, {None: []}), ("no group", {"no family": []})]:
        for family in [*families, None]:
            tables = shown_tables(names, group, family)
            assert len(tables) == 1 or group != "other"
            for focus in (None, "RBP", "P@5[organ]", "unknown"):
                drawn = {name for members in tables.values() for name in members}
                expected = tuple(name for name in names if name in drawn | {focus_metric(names, focus)})
                assert shown_metrics(names, group, family, focus) == expected
