"""Large runs end to end: a 200,000-line run read with progress, uploaded through the Data page, and evaluated
by the CLI exactly as the line-by-line reading and a per-query alignment evaluate it."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from evalcore.cli import main
from evalcore.data import RankedLists, Run
from evalcore.evaluation.evaluator import Evaluator, align_run
from evalcore.readers import read_concepts
from tests import line_by_line
from tests.conftest import DEMO, ROOT, random_world
from tests.evaluation.test_evaluation import straightforward_alignment

QUERIES, DEPTH = 2000, 100  # 200,000 lines over the demo's 2,000 images


@pytest.fixture(scope="module")
def large_run() -> bytes:
    """A depth-100 run over every demo image, as retrieval tools write it, with ties and a few unknown IDs."""
    rng = random.Random(11)
    ids = [f"DEMO_{i:05d}" for i in range(1, QUERIES + 1)]
    lines = []
    for query in ids:
        documents = rng.sample(ids, DEPTH - 1) + ["NOT_IN_POOL"]
        scores = sorted((round(rng.random(), 2) for _ in documents), reverse=True)
        lines += [f"{query} Q0 {doc} {rank} {score} big" for rank, (doc, score) in enumerate(zip(documents, scores), 1)]
    return ("\n".join(lines) + "\n").encode()


def test_with_run_reports_progress_until_done(large_run):
    from evalcore.app.workspace import load_demo, with_run

    seen: list[tuple[float, str]] = []
    workspace = with_run(load_demo(), large_run, "big.trec", progress=lambda f, m: seen.append((f, m)))
    fractions = [fraction for fraction, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0 and len(seen) >= 3
    assert any("Reading big.trec" in message for _, message in seen)
    assert workspace.runs["big"][1].rankings["DEMO_00001"][-1] == "NOT_IN_POOL"
    assert workspace.reports[-1].problems.startswith("2,000 of 200,000 retrieved IDs have no concept set")


def test_the_data_page_takes_a_large_run_upload(large_run):
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    app.run()
    app.file_uploader(key="up_runs").set_value([("big.trec", large_run, "application/octet-stream")])
    app.run()
    assert not app.exception and not app.error, [e.value for e in app.error]
    run = app.session_state["workspace"].runs["big"][1]
    assert len(run.rankings) == QUERIES and len(run.rankings["DEMO_00002"]) == DEPTH


@pytest.mark.slow
def test_cli_scores_a_large_run_as_the_line_by_line_reading_does(large_run, tmp_path):
    path = tmp_path / "big.trec"
    path.write_bytes(large_run)
    assert main(["evaluate", "--concepts", str(DEMO / "concepts.csv"), "--kg", str(DEMO / "kg_edges.csv"), "--run",
                 str(path), "--metrics", "nn-CUI@10", "RBP", "--json", str(tmp_path / "r.json")]) == 0
    ours = json.loads((tmp_path / "r.json").read_text())
    (name, lists), = line_by_line.read_runs(large_run, "big.trec")
    concepts = read_concepts(DEMO / "concepts.csv")
    from evalcore.io.loading import load_kg

    reference = Evaluator(concepts, load_kg([DEMO / "kg_edges.csv"])).evaluate([Run(name, dict(lists))], ["nn-CUI@10", "RBP"])
    for metric, value in reference.means()[name].items():
        assert ours["systems"]["big"][metric] == pytest.approx(value, abs=1e-12)
    assert ours["counts"]["big"]["retrieved_unknown_ids"] == QUERIES
    assert ours["counts"]["big"]["unknown_id_examples"] == ", ".join(["NOT_IN_POOL"] * 5)
    assert np.isfinite(ours["systems"]["big"]["RBP"])


@pytest.mark.parametrize("seed", range(4))
def test_alignment_of_runs_as_written_equals_a_loop_over_queries(seed):
    """Equal-length lists without the query or unknown IDs take one gather; a single exception takes the general way."""
    concepts, _ = random_world(seed, images=40)
    rng = random.Random(seed)
    ids = list(concepts.ids)
    rankings = {query: tuple(rng.sample([i for i in ids if i != query], 7)) for query in ids}
    spoilt = dict(rankings)
    spoilt[ids[seed]] = (ids[seed],) + rankings[ids[seed]][1:]
    for run in (Run("written", rankings), Run("spoilt", spoilt)):
        for depth in (5, 7, 12):
            lists = RankedLists.from_mapping(run.rankings) if depth != 12 else run.rankings
            aligned = align_run(Run(run.name, lists), concepts, depth)
            rows, documents, counts = straightforward_alignment(run, concepts, depth)
            assert aligned.query_rows.tolist() == rows and aligned.documents.tolist() == documents
            assert aligned.counts["query_dropped_from_own_list"] == counts["query_dropped_from_own_list"]
