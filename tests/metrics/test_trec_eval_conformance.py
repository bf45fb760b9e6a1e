"""Conformance with trec_eval's own test files (usnistgov/trec_eval ``test/``, in ../shared/data/trec_eval_test):
every measure we share with trec_eval equals trec_eval's printed output (``out.test.aq`` per query, ``out.test.a``
the means) to its 4 decimals, through the Python API and the command line.

Shared measures (trec_eval name -> ours, under judged grades): ``ndcg_cut_K`` -> ``qrels-NDCG@K``, ``map_cut_K`` ->
``qrels-MAP@K``, ``P_K`` -> ``qrels-Prec@K``, ``recall_K`` -> ``qrels-R@K``, at each K trec_eval prints (5, 10, 15,
20, 30, 100, 200, 500, 1000). trec_eval's measures of the whole list (``recip_rank``, ``Rprec``, ``bpref``,
``success_K``, ...) are checked on the same files by tests/metrics/test_trec_measures.py; we offer no ``map`` or
``ndcg`` without a cut-off, and our ``RBP`` and ``ERR`` are defined otherwise (docs/TREC_COMPATIBILITY.md, table of
names). ``results.test`` has tied scores in every query; its ranks happen to
order them as trec_eval does (document ID descending), so both tie orders give trec_eval's numbers here.
"""

from __future__ import annotations

import json

import pytest

import evalcore
from evalcore.cli import main
from tests.conftest import SHARED, needs

FILES = SHARED / "trec_eval_test"
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
SHARED_MEASURES = {"NDCG": "ndcg_cut", "MAP": "map_cut", "Prec": "P", "R": "recall"}
NAMES = [f"qrels-{family}@{k}" for family in SHARED_MEASURES for k in CUTOFFS]


def printed() -> dict[tuple[str, str], str]:
    """trec_eval's output, ``(measure, query or "all") -> value as printed``."""
    values = {}
    for name in ("out.test.aq", "out.test.a"):
        for line in (FILES / name).read_text(encoding="ascii").splitlines():
            measure, query, value = line.split()
            values[measure, query] = value
    return values


def trec_name(ours: str) -> str:
    family, k = ours.removeprefix("qrels-").split("@")
    return f"{SHARED_MEASURES[family]}_{k}"


@needs(FILES / "out.test.aq")
@pytest.mark.parametrize("ties", ["rank", "trec_eval"])
def test_every_shared_measure_equals_trec_eval_on_its_test_files(ties):
    expected = printed()
    assert {trec_name(name) for name in NAMES} <= {measure for measure, _ in expected}
    results = evalcore.evaluate(None, str(FILES / "results.test"), evalcore.Scoring(NAMES),
                                evalcore.Relevance.of(ties=ties, empty_queries="zero"), qrels=str(FILES / "qrels.test"))
    [system] = results.systems
    assert system == "STANDARD" and results.query_ids(system) == ("301", "302", "303")
    assert results.counts[system]["queries_tied"] == 3  # ties in every query ...
    assert results.counts[system]["queries_tie_order_differs"] == 0  # ... which its ranks order as trec_eval does
    compared = 0
    for row, query in enumerate(results.query_ids(system)):
        for column, name in enumerate(results.metrics):
            assert f"{results.values(system)[row, column]:.4f}" == expected[trec_name(name), query], (name, query)
            compared += 1
    for name, mean in results.means()[system].items():
        assert f"{mean:.4f}" == expected[trec_name(name), "all"], name
    assert compared == 3 * len(NAMES) == 108


@needs(FILES / "out.test.a")
def test_the_command_line_gives_trec_eval_s_means(tmp_path):
    out = tmp_path / "trec.json"
    assert main(["evaluate", "--qrels", str(FILES / "qrels.test"), "--run", str(FILES / "results.test"),
                 "--k", *map(str, CUTOFFS), "--empty-queries", "zero", "--ties", "trec_eval", "--json", str(out)]) == 0
    payload = json.loads(out.read_text())
    means = payload["systems"]["STANDARD"]
    assert set(means) == set(NAMES)  # the default report under qrels is trec_eval's shared measures
    expected = printed()
    for name, mean in means.items():
        assert f"{mean:.4f}" == expected[trec_name(name), "all"], name
    assert payload["params"]["ties"] == "trec_eval"
