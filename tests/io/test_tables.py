"""Leaderboard tables: groups, best values, p-values, and exports that keep the intervals."""

from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest

from evalcore.io.tables import (
    GROUPS,
    best_systems,
    format_p_value,
    grouped_metrics,
    latex_table,
    plain_metric_label,
    results_csv,
    wide_summary,
)
from evalcore.metrics.registry import default_metric_names

METRICS = default_metric_names((5, 10, 30), ("modality", "organ", "modality+organ"))


def random_summary(seed: int, systems=("run_1 & co", "b%", "c")) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for system in systems:
        for metric in METRICS:
            mean = rng.choice([0.25, 0.5, rng.random()])
            rows.append({"system": system, "metric": metric, "mean": mean, "low": mean - 0.01, "high": mean + 0.02,
                         "queries": 100})
    return pd.DataFrame(rows)


def test_groups_hold_every_metric_once_and_in_order():
    grouped = grouped_metrics(METRICS)
    assert list(grouped) == list(GROUPS)
    flat = [m for families in grouped.values() for family in families.values() for m in family]
    assert sorted(flat) == sorted(METRICS) and len(flat) == len(METRICS)
    assert list(grouped["relevance-graded"]) == ["CUI", "nn-CUI"]
    assert grouped["label precision"]["P[organ]"] == ["P@5[organ]", "P@10[organ]", "P@30[organ]"]
    # A family table has one column triple per K: with three K it fits a screen.
    assert max(len(f) for families in grouped.values() for f in families.values()) == 3


def test_plain_labels_carry_no_jargon():
    for metric in METRICS:
        label = plain_metric_label(metric)
        assert not re.search(r"CUI|NDCG|MAP|ERR|RBP|CAG|@|\[", label), label


@pytest.mark.parametrize("seed", range(3))
def test_wide_summary_best_and_csv_agree_with_the_summary(seed):
    summary = random_summary(seed)
    wide = wide_summary(summary, METRICS)
    for row in summary.itertuples():
        assert wide.loc[row.system, row.metric] == row.mean
        assert (wide.loc[row.system, f"{row.metric} low"], wide.loc[row.system, f"{row.metric} high"]) == (row.low, row.high)
    for metric in METRICS:
        rows = summary[summary.metric == metric]
        assert set(best_systems(summary, metric)) == set(rows[rows["mean"] == rows["mean"].max()].system)
    back = pd.read_csv(io.StringIO(results_csv(summary, METRICS)))
    assert list(back.columns) == ["system", "metric", "mean", "ci95_low", "ci95_high", "queries"]
    assert list(dict.fromkeys(back.metric)) == METRICS
    merged = back.merge(summary, on=["system", "metric"])
    assert len(merged) == len(summary)
    np.testing.assert_allclose(merged.ci95_low, merged.low)
    np.testing.assert_allclose(merged.ci95_high, merged.high)


def test_latex_escapes_names_marks_the_best_and_keeps_intervals():
    summary = random_summary(0)
    chosen = ["CUI@10", "nn-CUI@10", "P@5[modality+organ]"]
    latex = latex_table(summary, chosen, "alpha = 0.5 & n = 1")
    assert latex.startswith("% Requires \\usepackage{booktabs}")
    assert "\\caption{alpha = 0.5 \\& n = 1}" in latex
    body = latex.split("\\midrule\n")[1].split("\n\\bottomrule")[0].splitlines()
    assert [line.split(" & ")[0] for line in body] == ["run\\_1 \\& co", "b\\%", "c"]
    assert all(len(re.findall(r"(?<!\\)&", line)) == len(chosen) for line in body)  # escaped "&" is no separator
    assert "P@5{[}modality+organ{]}" in latex
    cells = re.findall(r"(\\textbf\{)?(\d\.\d{4})\}? \{\\scriptsize \{\[\}(\d\.\d{4}), (\d\.\d{4})\{\]\}\}", latex)
    assert len(cells) == len(chosen) * 3
    assert sum(1 for bold, *_ in cells if bold) >= len(chosen)
    for _, mean, low, high in cells:
        assert float(low) <= float(mean) <= float(high)


def test_p_values_read_as_people_write_them():
    assert format_p_value(0.0000000000002) == "< 0.001"
    assert format_p_value(0.0499) == "0.0499" and format_p_value(0.05) == "0.0500"
    assert format_p_value(1.0) == "1.00" and format_p_value(float("nan")) == "—"
