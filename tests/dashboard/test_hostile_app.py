"""Hostile uploads through the Data page's real ``st.file_uploader`` widgets (AppTest drives them).

One app session is opened on the demo and shared by the cases, as a user would keep one browser tab:
each case uploads its files, reruns, and checks that exactly one ``st.error`` names the file, the line
and what was expected, that no exception element appears, and that the demo workspace is unchanged
(same concept digest, runs, KG files, labels, embeddings, names, captions and images). A case that
nevertheless changed the workspace puts the demo back, so one failure does not spread to the next.
"""

from __future__ import annotations

import gc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from evalcore.app import workspace as workspace_module
from tests import hostile_inputs as h
from tests import zip_inputs as z
from tests.conftest import ROOT

TIMEOUT = 180
MULTIPLE = {"up_runs", "up_kg"}
UPLOADERS = ("up_concepts", "up_runs", "up_kg", "up_labels", "up_names", "up_captions", "up_images", "up_embeddings",
             "up_embedding_ids")
DUPLICATE = ("duplicate", "repeated", "already")


@dataclass(frozen=True)
class Upload:
    """Files put into uploaders at once (uploader key -> (name, bytes) pairs) and what the one error must say.

    A case with no ``expected`` fragments is a valid upload that must load without any error.
    """

    id: str
    files: Mapping[str, Sequence[tuple[str, bytes]]]
    expected: tuple[str | tuple[str, ...], ...]
    absent: tuple[str, ...] = ()
    added_runs: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


def concepts(content: bytes, name: str = "gt.csv") -> dict:
    return {"up_concepts": [(name, content)]}


def runs(*files: tuple[str, bytes]) -> dict:
    return {"up_runs": list(files)}


CASES = [
    Upload("concepts-non-utf8", concepts(h.LATIN1_LINE3), ("gt.csv", "line 3", "UTF-8")),
    Upload("concepts-nul-byte", concepts(h.NUL_LINE3), ("gt.csv", "line 3", "text")),
    Upload("concepts-malformed-cui", concepts(b"ID,CUIs\nq,C0040405\nx,C12345\n"), ("gt.csv", "line 3", "7 digits")),
    Upload("concepts-duplicate-id", concepts(b"ID,CUIs\nq,C0040405\nx,C0005847\nq,C0024485\n"),
           ("gt.csv", "line 4", DUPLICATE)),
    Upload("concepts-semicolon-delimiter", concepts(h.SEMICOLON_HEADER), ("gt.csv", "line 1", "delimiter", ";")),
    Upload("concepts-empty-file", concepts(b""), ("gt.csv", "ID,CUIs")),
    Upload("concepts-unclosed-quote", concepts(h.UNCLOSED_QUOTE_LINE3), ("gt.csv", "line 3", "CSV")),
    Upload("concepts-tab-three-fields", concepts(b"q\tC0040405\nx\tC0040405\tC0005847\n", "gt.tsv"),
           ("gt.tsv", "line 2", "tab")),
    Upload("concepts-over-env-cap", concepts(h.padded_concepts(5000), "big.csv"), ("big.csv", ("1000", "1,000")),
           env={"CBIR_LENS_MAX_INPUT_BYTES": "1000"}),
    Upload("run-nan-score", runs(("bad.trec", b"q Q0 x 1 3 good\nq Q0 y 2 nan good\n")), ("bad.trec", "line 2", "finite")),
    Upload("run-duplicate-rank", runs(("bad.trec", b"q Q0 x 1 3 good\nq Q0 y 1 2 good\n")), ("bad.trec", "line 2", "rank")),
    Upload("run-absurd-rank", runs(("bad.trec", b"q Q0 x 1 3 good\nq Q0 y 9999999999999 2 good\n")),
           ("bad.trec", "line 2", "rank")),
    Upload("run-binary", runs(("bad.run", h.GARBAGE)), ("bad.run", "line 2", "UTF-8")),
    Upload("run-csv-inf-score", runs(("bad.csv", b"query_id,image_id,rank,score\nq,x,1,inf\n")),
           ("bad.csv", "line 2", "finite")),
    Upload("run-good-beside-bad", runs(("extra.trec", b"DEMO_00001 Q0 DEMO_00002 1 1.0 extra\n"),
                                       ("bad.trec", b"q Q0 x 1 3 good\nq Q0 y 2 2\n")),
           ("bad.trec", "line 2", "6"), added_runs=("extra",)),
    Upload("run-no-known-query", runs(("unknown.trec", b"nope Q0 DEMO_00001 1 1.0 unknown\n")), ("unknown.trec", "quer")),
    Upload("run-three-tags-three-systems", runs(("tags.trec", b"DEMO_00001 Q0 DEMO_00002 1 1.0 a\n"
                                                              b"DEMO_00001 Q0 DEMO_00003 1 1.0 b\n"
                                                              b"DEMO_00002 Q0 DEMO_00001 1 1.0 c\n")),
           (), added_runs=("a", "b", "c")),
    Upload("kg-one-field", {"up_kg": [("kg.csv", b"child,parent\nC0042449,C0005847\nC0003842\n")]},
           ("kg.csv", "line 3", "child,parent")),
    Upload("kg-mrrel-too-few-columns", {"up_kg": [("MRREL.RRF", b"C0042449|A0001|AUI|PAR|C0005847|A0002|AUI\n")]},
           ("MRREL.RRF", "line 1", "MRREL"), absent=("child,parent",)),
    Upload("kg-obo-term-without-id", {"up_kg": [("bad.obo", h.OBO_HEADER + b"[Term]\nname: vein\nis_a: UBERON:0001638\n")]},
           ("bad.obo", "line 4", "id")),
    Upload("labels-bad-header", {"up_labels": [("labels.csv", b"image,colour\nq,red\n")]}, ("labels.csv", "line 1", "modality")),
    Upload("classes-malformed-cui", {"up_labels": [("classes.csv", b"kind,class,CUI\nmodality,CT,CT-scan\n")]},
           ("classes.csv", "line 2", "7 digits")),
    Upload("names-one-field", {"up_names": [("names.csv", b"CUI,Name\nC0042449,Veins\nC0005847\n")]},
           ("names.csv", "line 3", "2 fields")),
    Upload("names-mrconso-short-row", {"up_names": [("MRCONSO.RRF", h.MRCONSO_ROW + b"C0005847|ENG|P|L0002\n")]},
           ("MRCONSO.RRF", "line 2", "MRCONSO")),
    Upload("captions-unclosed-quote", {"up_captions": [("captions.csv", b'ID,Caption\nq,CT\nx,"never closed\ny,CT\n')]},
           ("captions.csv", "line 3", "CSV")),
    Upload("captions-unquoted-comma", {"up_captions": [("captions.csv", b"ID,Caption\nq,CT, axial view\n")]},
           ("captions.csv", "line 2", "2 fields")),
    Upload("npy-text-file", {"up_embeddings": [("vectors.npy", b"ID,v0\nq,1.0\n")],
                             "up_embedding_ids": [("ids.txt", h.EMBEDDING_IDS)]},
           ("vectors.npy", ".npy"), absent=("pickle",)),
    Upload("npy-ids-duplicate", {"up_embeddings": [("vectors.npy", h.npy(h.VECTORS))],
                                 "up_embedding_ids": [("ids.txt", b"q\nx\ny\nq\n")]}, ("ids.txt", "line 4", DUPLICATE)),
    Upload("embeddings-csv-text-value", {"up_embeddings": [("vectors.csv", b"ID,v0,v1\nq,1,0\nx,0.5,high\n")]},
           ("vectors.csv", "line 3", "numeric")),
    Upload("parquet-corrupt", {"up_embeddings": [("vectors.parquet", b"PAR1" + bytes(range(256)) + b"PAR1")]},
           ("vectors.parquet", "parquet")),
    Upload("parquet-nan-row", {"up_embeddings": [("vectors.parquet", h.parquet(h.vector_frame(h.with_nan(1))))]},
           ("vectors.parquet", "finite")),
    Upload("images-not-a-zip", {"up_images": [("images.zip", b"PK\x03\x04 truncated")]}, ("images.zip", "zip")),
    *(Upload(f"images-{case}", {"up_images": [("images.zip", make())]}, ("images.zip", z.MEMBER, expected))
      for case, (make, expected) in sorted(z.DAMAGED.items())),
]


def snapshot(ws) -> dict:
    """What a failed upload must leave alone, by content."""
    return {
        "label": ws.label,
        "concepts": ws.digests["concepts"],
        "runs": {name: run_digest for name, (run_digest, _) in ws.runs.items()},
        "kg": {name: kg_digest for name, (kg_digest, _) in ws.kg_files.items()},
        "labels": ws.digests["labels"],
        "labels_source": ws.labels.source if ws.labels else None,
        "embeddings": ws.digests["embeddings"],
        "embedding_ids": len(ws.embeddings.ids) if ws.embeddings else 0,
        "names": sorted(ws.names.items()),
        "captions": sorted(ws.captions.items()),
        "images": sorted(ws.images),
    }


@pytest.fixture(scope="module")
def session():
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    app.run()
    assert not app.exception, app.exception
    demo = app.session_state["workspace"]
    return app, demo, snapshot(demo)


def contains(text: str, fragment: str | tuple[str, ...]) -> bool:
    options = fragment if isinstance(fragment, tuple) else (fragment,)
    return any(option.lower() in text.lower() for option in options)


def test_table_has_enough_cases():
    assert len({case.id for case in CASES}) == len(CASES)
    assert len([case for case in CASES if case.expected]) >= 15


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_hostile_upload(case: Upload, session, monkeypatch):
    app, demo, before = session
    for name, value in case.env.items():
        monkeypatch.setenv(name, value)
    try:
        for key, files in case.files.items():
            uploads = [(name, content, "application/octet-stream") for name, content in files]
            app.file_uploader(key=key).set_value(uploads if key in MULTIPLE else uploads[0])
        app.run()
        assert not app.exception, app.exception
        errors = [e.value for e in app.error]
        after = snapshot(app.session_state["workspace"])
    finally:
        monkeypatch.undo()
        for key in case.files:
            app.file_uploader(key=key).set_value(None)
        app.session_state["workspace"] = demo
        app.run()
    assert len(errors) == (1 if case.expected else 0), errors
    for message in errors:
        assert "\n" not in message.strip() and "expected" in message, message
        for fragment in case.expected:
            assert contains(message, fragment), f"{fragment!r} missing from {message!r}"
        for fragment in case.absent:
            assert not contains(message, fragment), f"{fragment!r} should not appear in {message!r}"
    added = set(after["runs"]) - set(before["runs"])
    assert added == set(case.added_runs), f"runs added: {sorted(added)}"
    after["runs"] = {name: run_digest for name, run_digest in after["runs"].items() if name not in added}
    changed = [part for part in before if after[part] != before[part]]
    assert not changed, f"the loaded workspace changed: {changed}"


@pytest.mark.parametrize("budget, holder", [("MAX_SESSION_IMAGE_BYTES", "a session may hold"),
                                            ("MAX_SERVER_IMAGE_BYTES", "the server may hold")])
def test_an_image_zip_over_a_budget_is_refused_and_the_session_keeps_its_images(budget, holder, session, monkeypatch):
    app, demo, before = session
    upload = z.zipped({f"new{number}.png": z.png(seed=number) for number in range(3)})
    gc.collect()  # the server's count drops the zips of workspaces no longer alive
    in_use = demo.images.held_bytes if budget == "MAX_SESSION_IMAGE_BYTES" else workspace_module.server_image_bytes()
    monkeypatch.setattr(workspace_module, budget, in_use + len(upload) // 2)
    try:
        app.file_uploader(key="up_images").set_value(("images.zip", upload, "application/zip")).run()
        assert not app.exception, app.exception
        errors = [e.value for e in app.error]
        after = snapshot(app.session_state["workspace"])
    finally:
        monkeypatch.undo()
        app.file_uploader(key="up_images").set_value(None)
        app.session_state["workspace"] = demo
        app.run()
    assert len(errors) == 1 and errors[0].startswith("Not loaded: images.zip: holding its images takes "), errors
    assert f"{holder} ({z.mib(in_use)} already in use)" in errors[0], errors
    assert after == before


def test_app_still_draws_the_leaderboard_after_hostile_uploads(session):
    app, _, _ = session
    app.switch_page("pages/leaderboard.py")
    app.run()
    assert not app.exception, app.exception
    table = next(frame.value for frame in app.dataframe if "nn-CUI@10" in frame.value.columns)
    assert sorted(table.index) == ["near-random", "overlap-noisy", "visual-confused"]
    assert np.isfinite(table["nn-CUI@10"].map(lambda cell: float(str(cell).split()[0]))).all()
