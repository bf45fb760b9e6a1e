"""The workspace (evalcore.app.workspace): one content digest per input, set with the input, and the Table-1 baselines
(evalcore.app.baselines) found by key, never by their display titles."""

from __future__ import annotations

import csv
import io
import random

import pytest

from evalcore.app.baselines import BASELINES, CAPTIONS, EMBEDDINGS, IOU, NN_IOU, available_baselines, baseline
from evalcore.app.workspace import (
    INPUTS,
    Workspace,
    load_demo,
    report_table,
    with_captions,
    with_concepts,
    with_kg,
    with_labels,
    with_names,
    with_run,
)
from evalcore.errors import CBIRLensError
from evalcore.relevance.measures import measure_spec

CONCEPTS = b"ID,CUIs\nimg1,C0000001;C0000002\nimg2,C0000002\nimg3,C0000003\n"
RUN = b"img1 Q0 img2 1 0.9 sys\nimg1 Q0 img3 2 0.5 sys\nimg2 Q0 img1 1 0.7 sys\n"
KG = b"child,parent\nC0000001,C0000002\nC0000003,C0000002\n"
LABELS = b"ID,modality,organ\nimg1,CT,abdomen\nimg2,MRI,head\nimg3,X-ray,chest\n"

LOADERS = {
    "concepts": (with_concepts, CONCEPTS),
    "runs": (with_run, RUN),
    "kg_files": (with_kg, KG),
    "labels": (with_labels, LABELS),
    "names": (with_names, b"CUI,Name\nC0000001,liver\nC0000002,organ\n"),
    "captions": (with_captions, b"ID,Caption\nimg1,CT of the liver\nimg2,MRI of the brain\n"),
}


def loaded(changes: dict[str, bytes] | None = None) -> Workspace:
    """The small workspace above, its concepts loaded first, with some files' bytes replaced."""
    ws = Workspace(label="test")
    for name, (loader, data) in LOADERS.items():
        ws = loader(ws, (changes or {}).get(name, data), f"{name}.csv")
    return ws


def test_same_content_gives_the_same_digest_and_any_changed_byte_another():
    first, second = loaded(), loaded()
    assert first.digest == second.digest and dict(first.digests) == dict(second.digests)
    rng = random.Random(3)
    for name, (_, data) in LOADERS.items():
        for _ in range(3):
            position = rng.randrange(data.index(b"\n") + 1, len(data) - 1)
            if data[position:position + 1] in (b"\n", b",", b";", b" "):
                continue
            changed = data[:position] + (b"7" if data[position:position + 1] != b"7" else b"8") + data[position + 1:]
            try:
                other = loaded({name: changed})
            except CBIRLensError:  # a byte that makes the file unreadable: refused, never loaded
                continue
            assert other.digest != first.digest, (name, position)
            assert other.digests[name] != first.digests[name]
            assert {k: v for k, v in other.digests.items() if k != name} == \
                {k: v for k, v in first.digests.items() if k != name}, name


def test_a_parsed_input_is_digested_by_content_and_kept_read_only():
    ws = Workspace(names={"C1": "a"})
    assert ws.digests["names"] == Workspace(names={"C1": "a"}).digests["names"]
    assert ws.with_inputs(names={"C1": "b"}).digests["names"] != ws.digests["names"]
    assert set(ws.digests) == set(INPUTS)
    with pytest.raises(TypeError):
        ws.names["C2"] = "c"  # a digest never outlives its content: change an input through with_inputs
    with pytest.raises(AttributeError):
        ws.names = {}


def test_a_restriction_holds_only_its_inputs_and_their_digests():
    ws = load_demo()
    part = ws.restricted_to("concepts", "captions")
    assert part.concepts is ws.concepts and dict(part.captions) == dict(ws.captions)
    assert not part.runs and not part.kg_files and part.embeddings is None and not part.images
    assert part.digests["concepts"] == ws.digests["concepts"] and part.digest != ws.digest
    assert part.restricted_to("concepts").digest == ws.restricted_to("concepts").digest
    with pytest.raises(CBIRLensError, match="unknown workspace inputs"):
        ws.restricted_to("captions", "nonsense")


def test_the_validation_report_is_data():
    ws = with_run(with_concepts(Workspace(), CONCEPTS, "c.csv"), RUN + b"ghost Q0 img1 1 0.1 sys\n", "r.trec")
    rows = report_table(ws)
    assert [row["kind"] for row in rows] == ["concept sets", "run 'sys'"]
    assert rows[0] == {"file": "c.csv", "kind": "concept sets", "rows read": "3", "problems": "none"}
    assert rows[1]["problems"].startswith("1 of 3 queries have no concept set")


def test_baselines_are_found_by_key_and_by_object_never_by_title():
    assert [baseline(b.key) for b in BASELINES] == list(BASELINES)
    assert baseline(NN_IOU) is NN_IOU
    with pytest.raises(CBIRLensError, match="unknown baseline 'Retrieval by IoU'"):
        baseline("Retrieval by IoU")
    assert len({b.title for b in BASELINES}) == len(BASELINES)


def test_available_baselines_follow_what_is_loaded():
    ws = with_concepts(Workspace(), CONCEPTS, "c.csv")
    assert available_baselines(ws) == [IOU]
    assert available_baselines(with_kg(ws, KG, "kg.csv")) == [IOU, NN_IOU]
    assert available_baselines(load_demo()) == [IOU, NN_IOU, EMBEDDINGS, CAPTIONS]
    assert available_baselines(Workspace()) == []


def test_a_baseline_depends_only_on_the_setting_its_ranking_reads():
    setting = measure_spec("nn-iou", alpha=0.5, n=2)
    assert IOU.setting(setting, "directed") == (measure_spec("iou"), "directed")
    assert NN_IOU.setting(setting, "directed") == (setting, "directed")
    assert NN_IOU.setting(setting.with_parameters(n=0), "directed") == (measure_spec("iou"), "directed")
    assert CAPTIONS.setting(setting, "directed") == (None, "undirected")


def test_the_cli_prints_the_data_pages_validation_report(tmp_path, capsys):
    from evalcore.cli import main

    concepts, run = tmp_path / "c.csv", tmp_path / "r.trec"
    concepts.write_bytes(CONCEPTS)
    run.write_bytes(RUN + b"ghost Q0 img1 1 0.1 sys\n")
    assert main(["check", "--concepts", str(concepts), "--run", str(run), "--csv"]) == 0
    expected = report_table(with_run(with_concepts(Workspace(), CONCEPTS, str(concepts)), run.read_bytes(), str(run)))
    printed = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert printed == expected and printed[1]["problems"].startswith("1 of 3 queries have no concept set")
    assert main(["check", "--demo"]) == 0
    assert "| data/demo/* | demo (synthetic) | 2,000 | none |" in capsys.readouterr().out  # as every count is written
    run.write_bytes(b"nobody Q0 img1 1 0.1 sys\n")
    assert main(["check", "--concepts", str(concepts), "--run", str(run)]) != 0
    assert "none of the 1 queries of system 'sys'" in capsys.readouterr().err


def test_a_kg_files_report_gives_its_rows_and_the_distinct_links_the_sidebar_counts():
    """Issue 33: 79,624 edges on the Data page and 79,531 in the sidebar; the report now gives both."""
    from evalcore.app.workspace import Workspace, with_kg
    from evalcore.relevance.kg import KnowledgeGraph

    data = b"child,parent,source\nC0000001,C0000002,mesh\nC0000001,C0000002,uberon\nC0000003,C0000002,mesh\n"
    workspace = with_kg(Workspace(), data, "kg.csv")
    row = workspace.reports[-1].as_dict()
    assert row["rows read"] == "3 edges (2 distinct)"
    kg = KnowledgeGraph.from_edges([edges for _, edges in workspace.kg_files.values()])
    assert kg.number_of_edges() == 2
