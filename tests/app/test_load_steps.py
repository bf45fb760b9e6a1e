"""One table of load-step kinds (issue 66): every kind of step a loader records
(:class:`evalcore.app.workspace.StepKind`) is replayed by :func:`evalcore.app.saved.replay` (its table
:data:`~evalcore.app.saved.REPLAYED`) to a workspace of the same digest and the same recipe; a kind recorded but
not replayed, or replayed but recorded by no loader, fails here."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest

from evalcore.app.saved import REPLAYED, extraction_steps, replay
from evalcore.app.store import SavedInput
from evalcore.app.workspace import (
    StepKind,
    Workspace,
    load_demo,
    load_rocov2_complete,
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
from evalcore.errors import StoreError
from tests import zip_inputs as z
from tests.app.test_rocov2_layout import small_rocov2
from tests.conftest import DEMO, ROOT

DEMO_IDS = [line for line in (DEMO / "image_embeddings_ids.txt").read_text().splitlines() if line]
MESH = b"D014680\tVeins\tVein|Venae|Portal vein structure\tA07.015.908\t\n"


def npy(rows: int, seed: int = 0) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.random.default_rng(seed).normal(size=(rows, 4)))
    return buffer.getvalue()


def uploaded_run() -> bytes:
    lines = (DEMO / "runs" / "overlap-noisy.trec").read_text().splitlines()
    return ("\n".join(" ".join(line.split()[:5] + ["uploaded-a"]) for line in lines) + "\n").encode()


def demo_file(name: str) -> bytes:
    return (DEMO / name).read_bytes()


def made(case: str, tmp_path: Path) -> tuple[Workspace, tuple[Path, ...]]:
    """The workspace of one load path of the Data page (the loader its button or uploader calls, with what it is
    given), and the data roots it was read under."""
    if case == "demo":
        return load_demo(), ()
    if case == "folder":
        folder = small_rocov2(tmp_path)
        return load_rocov2_complete(str(folder), (tmp_path,)), (tmp_path,)
    if case == "folder, then uploads":
        folder = small_rocov2(tmp_path)
        loaded = load_rocov2_complete(str(folder), (tmp_path,))
        loaded = with_run(loaded, b"img3 Q0 img1 1 1.0 theirs\n", "theirs.trec")
        return with_captions(loaded, b"ID,Caption\nimg3,PET of the liver\n", "more.csv"), (tmp_path,)
    demo = load_demo()
    if case == "concepts":
        return with_new_concepts(demo, b"ID,CUIs\nDEMO_00001,C0040405\nDEMO_00002,C0000726\nX,C0000726\n",
                                 "mine.csv"), ()
    if case == "concepts of an empty workspace":
        return with_new_concepts(Workspace(), demo_file("concepts.csv"), "concepts.csv"), ()
    if case == "kg":
        return with_kg(demo, b"child,parent\nC0040405,C0000726\n", "more_kg.csv"), ()
    if case == "runs":
        return with_run(with_run(demo, uploaded_run(), "uploaded-a.trec"),
                        b"DEMO_00001 Q0 DEMO_00002 1 1.0 other\n", "other.run"), ()
    if case == "labels":
        return with_labels(demo, b"ID,modality,organ\nDEMO_00001,MRI,liver\nDEMO_00002,CT,abdomen\n", "l.csv"), ()
    if case == "names":
        return with_names(demo, b"CUI,Name\nC0000726,Belly\n", "names.csv"), ()
    if case == "captions":
        return with_captions(demo, b"ID,Caption\nDEMO_00001,MRI of the brain\n", "captions.csv"), ()
    if case == "images":
        return with_images(demo, z.zipped({"DEMO_00001.png": z.png(seed=7), "NEW.jpg": z.png(seed=8)}), "imgs.zip"), ()
    if case == "embeddings with an ID list":
        ids = "\n".join(DEMO_IDS).encode() + b"\n"
        return with_embeddings(demo, npy(len(DEMO_IDS)), "vectors.npy", ids, "vector_ids.txt"), ()
    if case == "embeddings with their IDs":
        rows = "\n".join(f"{image_id},{i},1.0,0.5" for i, image_id in enumerate(DEMO_IDS[:5], start=1))
        return with_embeddings(demo, f"ID,a,b,c\n{rows}\n".encode(), "vectors.csv"), ()
    if case == "extraction":
        return with_caption_extraction(demo), ()
    if case == "extraction with a synonyms file":
        return with_caption_extraction(demo, ((MESH, "mesh.tsv"), (MESH, "again.tsv")), False), ()
    if case == "extraction of a captions file read alone":
        alone = (b"ID,Caption\nA1,CT of the abdomen\nA2,MRI with portal vein structure\n", "alone.csv")
        return with_caption_extraction(demo, (), True, alone), ()
    if case == "everything, in turn":
        loaded = with_run(demo, uploaded_run(), "uploaded-a.trec")
        loaded = with_names(with_kg(loaded, b"child,parent\nC0040405,C0000726\n", "more_kg.csv"),
                            b"CUI,Name\nC0000726,Belly\n", "names.csv")
        loaded = with_images(with_captions(loaded, b"ID,Caption\nDEMO_00001,MRI of the brain\n", "c.csv"),
                             z.zipped({"DEMO_00001.png": z.png(seed=7)}), "imgs.zip")
        loaded = with_embeddings(loaded, npy(len(DEMO_IDS)), "v.npy", "\n".join(DEMO_IDS).encode(), "ids.txt")
        loaded = with_caption_extraction(loaded, ((MESH, "mesh.tsv"),), True)
        loaded = with_labels(loaded, demo_file("labels.csv"), "labels.csv")
        return with_caption_extraction(loaded, (), False, (b"ID,Caption\nA1,Belly and aorta\n", "alone.csv")), ()
    raise AssertionError(case)


CASES = ["demo", "folder", "folder, then uploads", "concepts", "concepts of an empty workspace", "kg", "runs",
         "labels", "names", "captions", "images", "embeddings with an ID list", "embeddings with their IDs",
         "extraction", "extraction with a synonyms file", "extraction of a captions file read alone",
         "everything, in turn"]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_each_load_path_replays_to_the_same_digest_and_recipe(case, tmp_path):
    workspace, roots = made(case, tmp_path)
    again = replay(workspace.recipe, roots)
    assert again.digest == workspace.digest
    assert again.digests == workspace.digests
    assert again.recipe == workspace.recipe
    assert all(type(step.kind) is str for step in workspace.recipe)  # the text the store keeps, never the enum


@pytest.mark.slow
def test_the_kinds_recorded_are_the_kinds_replayed(tmp_path):
    recorded = set()
    for position, case in enumerate(CASES):
        workspace, _ = made(case, tmp_path / str(position))
        recorded |= {step.kind for step in workspace.recipe}
    replayed = {kind.value for kind in REPLAYED}
    assert recorded == replayed == {kind.value for kind in StepKind}


def test_the_kinds_are_the_ones_saved_workspaces_hold():
    """The kinds are the text the store keeps: renaming one would leave every saved workspace unopenable."""
    assert [kind.value for kind in StepKind] == [
        "demo", "folder", "concepts", "kg", "run", "labels", "names", "captions", "images", "embedding_ids",
        "embeddings", "synonyms", "extraction_captions", "extraction"]


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(StoreError, match="'video'"):
        replay([SavedInput("video", "clip.mp4", b"")])


@pytest.mark.slow
def test_the_extraction_steps_are_built_in_one_place():
    assert [(step.kind, step.name) for step in extraction_steps([(MESH, "mesh.tsv")], False, (b"ID,Caption\n",
                                                                                               "c.csv"))] == [
        ("synonyms", "mesh.tsv"), ("extraction_captions", "c.csv"), ("extraction", "options")]
    extracted = with_caption_extraction(load_demo(), ((MESH, "mesh.tsv"),), False)
    assert extracted.recipe[1:] == extraction_steps([(MESH, "mesh.tsv")], False)
    # The Data page runs the one extraction step and builds no step of its own.
    page = (ROOT / "pages" / "data.py").read_text()
    assert "with_caption_extraction(" in page
    assert not re.search(r"SavedInput\(|extraction_steps\(|with_extracted_concepts\(|StepKind\.", page)
