"""Paths through the Data page one step beside the tested ones (hunt 28c): concept sets of another collection over
the demo, a corrected ID list, a file of another kind, a run replaced or named like a baseline, a refused file's
message after the next click, and the sidebar after an upload. Every page still draws."""

from __future__ import annotations

import io

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, declared_pages

DEMO = ROOT / "data" / "demo"
#: As app.py declares them: a new page is walked here without being named here.
CLINICIAN_PAGES, RESEARCHER_PAGES = map(list, declared_pages())
PAGES = CLINICIAN_PAGES + RESEARCHER_PAGES
MULTIPLE = {"up_runs", "up_kg"}


@pytest.fixture
def app():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=240)
    app.run()
    assert not app.exception, app.exception
    return app


def upload(app: AppTest, key: str, name: str, content: bytes) -> AppTest:
    value = (name, content, "application/octet-stream")
    app.file_uploader(key=key).set_value([value] if key in MULTIPLE else value)
    app.run()
    assert not app.exception, app.exception
    return app


def errors(app: AppTest) -> list[str]:
    return [element.value for element in app.error]


def report_rows(app: AppTest) -> list[dict]:
    return [row.as_dict() for row in app.session_state["workspace"].reports]


def demo_concept_lines() -> list[str]:
    return (DEMO / "concepts.csv").read_text().splitlines()


def walk(app: AppTest, pages: list[str]) -> dict[str, list[str]]:
    """Every page drawn without an exception; the error messages each shows.

    The concept map is drawn last: AppTest formats a drawn concept box again at the next run, outside the script run,
    where the clinician's words cannot be read, and then finds its value missing from the options (a server formats it
    in the run)."""
    shown = {}
    for page in sorted(pages, key=lambda page: page == "pages/knowledge_graph.py"):
        app.switch_page(page)
        app.run()
        assert not app.exception, (page, app.exception)
        shown[page] = errors(app)
    return shown


@pytest.mark.slow
def test_concept_sets_of_another_collection_leave_the_demos_files_out_and_every_page_draws(app):
    """Was: the demo's runs stayed, with no query known; the Leaderboard showed only an error for good, Ablation and
    Method raised, and so did the caption baseline on Per-query."""
    lines = demo_concept_lines()
    own = "ID,CUIs\n" + "".join(f"X{i:05d},{line.split(',', 1)[1]}\n" for i, line in enumerate(lines[1:60]))
    upload(app, "up_concepts", "gt.csv", own.encode())
    workspace = app.session_state["workspace"]
    assert not workspace.runs and workspace.labels is None and workspace.embeddings is None
    assert not workspace.captions and not workspace.images
    assert report_rows(app)[-1]["problems"] == (
        "left out, being about other images: run 'near-random', run 'overlap-noisy', run 'visual-confused', labels, "
        "embeddings, captions, 2,000 images of other IDs")
    assert [(m.label, m.value) for m in app.sidebar.metric][0] == ("images", "59")
    assert not any(walk(app, PAGES).values())
    run = "".join(f"X{i:05d} Q0 X{(i + 1) % 59:05d} 1 1.0 mine\n" for i in range(59))
    app.switch_page("pages/data.py")
    app.run()
    upload(app, "up_runs", "mine.trec", run.encode())
    app.switch_page("pages/leaderboard.py")
    app.run()
    assert not errors(app) and any("mine" in frame.value.index for frame in app.dataframe)
    app.session_state["audience"] = "Clinician"
    app.run()
    assert not any(walk(app, CLINICIAN_PAGES).values())


@pytest.mark.slow
def test_concept_sets_of_some_of_the_images_keep_the_runs_and_say_how_much_of_them_lacks_a_set(app):
    upload(app, "up_concepts", "gt.csv", ("\n".join(demo_concept_lines()[:61]) + "\n").encode())
    workspace = app.session_state["workspace"]
    assert sorted(workspace.runs) == ["near-random", "overlap-noisy", "visual-confused"]
    problems = report_rows(app)[-1]["problems"]
    assert "left out, being about other images: 1,940 images of other IDs" in problems
    assert "run 'near-random': 1,940 of 2,000 queries and " in problems and "labels: 1,940 IDs are not images" in problems
    assert not any(walk(app, PAGES).values())


def npy(rows: int) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.load(DEMO / "image_embeddings.npy")[:rows])
    return buffer.getvalue()


@pytest.mark.slow
def test_a_corrected_id_list_beside_the_same_vectors_is_loaded(app):
    """Was: the uploads were told apart by the vectors file alone, so the corrected list was never read."""
    ids = (DEMO / "image_embeddings_ids.txt").read_text().split()[:100]
    app.file_uploader(key="up_embeddings").set_value(("vec.npy", npy(100), "application/octet-stream"))
    app.run()
    assert [info.value for info in app.info if "vec.npy holds no image IDs" in info.value]
    app.file_uploader(key="up_embedding_ids").set_value(("ids.txt", "\n".join(ids[:-1] + ids[:1]).encode(), "text/plain"))
    app.run()
    assert errors(app) and "line 100" in errors(app)[0] and len(app.session_state["workspace"].embeddings.ids) == 2000
    app.file_uploader(key="up_embedding_ids").set_value(("ids_fixed.txt", "\n".join(ids).encode(), "text/plain"))
    app.run()
    assert not errors(app) and app.session_state["workspace"].embeddings.ids == tuple(ids)
    app.file_uploader(key="up_embedding_ids").set_value(None)  # the vectors stay loaded: nothing asked, no error
    app.run()
    assert not errors(app) and not [info for info in app.info if "holds no image IDs" in info.value]
    assert app.session_state["workspace"].embeddings.ids == tuple(ids)


@pytest.mark.slow
@pytest.mark.parametrize("key, name, content, expected", [
    ("up_embeddings", "header_only.csv", b"ID,Caption\n", "header_only.csv, line 1: expected rows of an image ID"),
    ("up_captions", "concepts.csv", (DEMO / "concepts.csv").read_bytes(),
     "concepts.csv, line 1: expected rows 'ID,Caption', found the header of concept sets"),
    ("up_names", "concepts.csv", (DEMO / "concepts.csv").read_bytes(),
     "found the header of concept sets ('ID,CUIs'): load it as concept sets"),
    ("up_kg", "captions.csv", b"ID,Caption\n", "expected an edge list 'child,parent', found the header of captions"),
])
def test_a_file_of_another_kind_is_refused_and_nothing_loaded_is_lost(app, key, name, content, expected):
    """Was: a header-only file replaced the embeddings with 0 x 1 of them; concept sets became 2,000 captions of
    concept codes or names of image IDs; a captions header became a KG edge from 'ID' to 'Caption'."""
    before = app.session_state["workspace"].digest
    upload(app, key, name, content)
    assert len(errors(app)) == 1 and expected in errors(app)[0], errors(app)
    assert app.session_state["workspace"].digest == before


@pytest.mark.slow
def test_a_run_of_a_loaded_name_replaces_it_with_one_row_that_says_so(app):
    """Was: three rows for one run ('2 queries', '1 queries', '3 queries') and no word of the replacement."""
    upload(app, "up_runs", "mine.trec", b"DEMO_00001 Q0 DEMO_00002 1 1 mine\nDEMO_00003 Q0 DEMO_00002 1 1 mine\n")
    upload(app, "up_runs", "mine2.trec", b"DEMO_00005 Q0 DEMO_00002 1 1 mine\n")
    rows = [row for row in report_rows(app) if row["kind"] == "run 'mine'"]
    assert rows == [{"file": "mine2.trec", "kind": "run 'mine'", "rows read": "1 queries",
                     "problems": "replaces the run of that name read before from mine.trec"}]
    assert list(app.session_state["workspace"].runs["mine"][1].rankings) == ["DEMO_00005"]


@pytest.mark.slow
def test_a_run_named_like_a_baseline_is_refused(app):
    """Was: loaded, and the Leaderboard showed only an error once the baseline was chosen; "Retrieval by ..." names
    the tool's own systems (the Ablation page's ranking by a measure too)."""
    upload(app, "up_runs", "Retrieval by IoU.csv", b"query_id,image_id,rank\nDEMO_00001,DEMO_00002,1\n")
    assert errors(app) == ["Not loaded: Retrieval by IoU.csv: expected a system name not beginning 'Retrieval by ', "
                           "found 'Retrieval by IoU', named as the tool's own systems (baselines, a measure's own "
                           "ranking): rename the file or its TREC tag"]
    from evalcore.app.baselines import BASELINES
    from evalcore.evaluation.evaluator import is_built_in_name
    from evalcore.relevance.measures import MEASURES, measure_spec
    from evalcore.studies.ablation import retrieval_system

    assert all(is_built_in_name(baseline.title) for baseline in BASELINES)
    assert all(is_built_in_name(retrieval_system(measure_spec(key))) for key in MEASURES)


@pytest.mark.slow
def test_a_refused_files_message_stays_while_the_uploader_holds_it(app):
    """Was: the message went at the next click, the file still in the uploader and nothing saying it was not loaded."""
    upload(app, "up_runs", "bad.trec", b"DEMO_00001 Q0 DEMO_00002 1 nan bad\n")
    message = errors(app)
    assert len(message) == 1 and "bad.trec, line 1" in message[0]
    app.run()
    assert errors(app) == message
    app.file_uploader(key="up_runs").set_value([])
    app.run()
    assert not errors(app)


@pytest.mark.slow
def test_the_sidebar_counts_what_an_upload_loaded_in_the_same_click(app):
    """Was: the sidebar, drawn before the page, still counted the demo's 2,000 images (and the KG's edges before the
    upload) until the next click."""
    upload(app, "up_kg", "extra.csv", b"child,parent\nC0040405,C0000726\n")
    assert dict((m.label, m.value) for m in app.sidebar.metric)["KG edges"] == "45"
    assert [s.value for s in app.success] == ["Loaded extra.csv"]


@pytest.mark.slow
def test_a_file_of_image_ids_as_concept_sets_says_no_image_has_a_concept(app):
    """Found in the browser (hunt 28w): the embeddings' ID list in the concept sets uploader loaded 2,000 images with
    no concept, the report saying 'none'."""
    upload(app, "up_concepts", "ids.txt", (DEMO / "image_embeddings_ids.txt").read_bytes())
    assert report_rows(app)[-1]["problems"] == "no image has a concept: every score is undefined"


@pytest.mark.slow
@pytest.mark.parametrize("key, name, content, expected", [
    ("up_kg", "run.csv", b"query_id,image_id,rank,score\nDEMO_00001,DEMO_00002,1,1\n", "found the header of a run"),
    ("up_concepts", "labels.csv", (DEMO / "labels.csv").read_bytes(), "found the header of labels"),
    ("up_runs", "kg.csv", (DEMO / "kg_edges.csv").read_bytes(), "found the header of a knowledge graph"),
])
def test_more_files_of_another_kind_are_named_by_their_header(app, key, name, content, expected):
    """Found in the browser (hunt 28w): a CSV run became KG edges from 'query_id' to 'image_id'; the others were
    refused at a line without saying what the file was."""
    before = app.session_state["workspace"].digest
    upload(app, key, name, content)
    assert len(errors(app)) == 1 and expected in errors(app)[0], errors(app)
    assert app.session_state["workspace"].digest == before


@pytest.mark.slow
def test_a_clinicians_report_and_messages_keep_the_names_of_files_and_systems(app):
    """Found in the browser (hunt 28w): the plain words turned 'my-run' into 'my-result of a retrieval system' and
    'run.trec' into 'result of a retrieval system.trec'; 'CUIs' reached a clinician in an upload's error."""
    app.session_state["audience"] = "Clinician"
    app.run()
    upload(app, "up_runs", "my-run.trec", b"DEMO_00001 Q0 DEMO_00002 1 1 my-run\n")
    upload(app, "up_concepts", "bad-run.csv", b"ID,CUIs\nx,C12\n")
    report = next(frame.value for frame in app.dataframe if "problems" in frame.value.columns)
    row = report[report["file"] == "my-run.trec"].iloc[0]
    assert row["kind"] == "result of a retrieval system 'my-run'"
    message = [error for error in errors(app) if "bad-run.csv" in error][0]
    assert message.startswith("Not loaded: bad-run.csv, line 2: expected concept codes") and "CUI" not in message
