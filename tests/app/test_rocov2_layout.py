"""One ROCOv2 layout (issue 66): the loaders of a ROCOv2 folder read exactly the files that its digest digests, both
taking their paths from :class:`evalcore.io.loading.Rocov2Layout`, so that a file the load reads and the digest
misses cannot let two sessions share a stale workspace."""

from __future__ import annotations

import builtins
import io
import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from evalcore.app import workspace as ws
from evalcore.app.workspace import load_rocov2_complete, rocov2_digest
from evalcore.errors import CBIRLensError
from evalcore.io.loading import ROCOV2_LAYOUT, load_rocov2_folder
from tests import zip_inputs as z

IDS = ("img1", "img2", "img3")


def small_rocov2(root: Path) -> Path:
    """A small ROCOv2-shaped folder ``root/rocov2`` (three images, their concepts and captions, the concept names,
    one TREC run and a file of ``runs/`` that is no run) with a KG in ``root/kg`` beside it."""
    folder = root / "rocov2"
    (folder / "images").mkdir(parents=True)
    (folder / "runs").mkdir()
    (root / "kg").mkdir()
    (folder / "test_concepts.csv").write_text("ID,CUIs\nimg1,C0000001;C0000002\nimg2,C0000002\nimg3,C0000003\n")
    (folder / "test_captions.csv").write_text("ID,Caption\nimg1,CT of the liver\nimg2,MRI of the liver\n"
                                              "img3,X-ray of the chest\n")
    (folder / "cui_mapping.csv").write_text("CUI,Name\nC0000001,Computed tomography\nC0000002,Liver\n")
    for seed, image_id in enumerate(IDS):
        (folder / "images" / f"{image_id}.png").write_bytes(z.png(seed=seed))
    (folder / "runs" / "mine.trec").write_text("img1 Q0 img2 1 1.0 mine\nimg2 Q0 img1 1 1.0 mine\n")
    (folder / "runs" / "notes.md").write_text("not a run file: the load skips it")
    (root / "kg" / "open_kg_edges.csv").write_text("child,parent,source,relation\nC0000002,C0000003,test,is_a\n")
    (root / "kg" / "open_kg_names.csv").write_text("CUI,Name\nC0000003,Abdomen\n")
    return folder


def files_read(work: Callable[[], object], under: Path) -> set[Path]:
    """The files under ``under`` and the shipped labels mapping that ``work()`` opens, however it opens them
    (``os.open``, the readers' way; ``open``, ``Path.read_bytes``'s and ``read_text``'s), each resolved."""
    read: set[Path] = set()
    labels = ROCOV2_LAYOUT.labels.resolve()

    def noted(path: object) -> None:
        if isinstance(path, (str, Path)):
            resolved = Path(path).resolve()
            if resolved == labels or resolved.is_relative_to(under.resolve()):
                read.add(resolved)

    def recording(original):
        def opened(path, *args, **kwargs):
            noted(path)
            return original(path, *args, **kwargs)
        return opened

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "open", recording(os.open))
        patch.setattr(io, "open", recording(io.open))
        patch.setattr(builtins, "open", recording(builtins.open))
        work()
    return read


def layout_files(folder: Path | str, roots: tuple[Path, ...]) -> set[Path]:
    """The files the layout lists for the digest that exist under ``roots``, and the labels mapping, resolved."""
    listed = {path.resolve() for path in ROCOV2_LAYOUT.files(folder)
              if path.is_file() and any(path.resolve().is_relative_to(root) for root in roots)}
    return listed | {ROCOV2_LAYOUT.labels.resolve()}


def linked(tmp_path: Path) -> tuple[str, tuple[Path, ...]]:
    """A folder given through a link from another folder with a KG of its own beside the link: the load reads the
    KG beside the folder as given, and so must the digest."""
    folder = small_rocov2(tmp_path / "data")
    (tmp_path / "links" / "kg").mkdir(parents=True)
    (tmp_path / "links" / "kg" / "open_kg_edges.csv").write_text("child,parent\nC0000001,C0000003\n")
    (tmp_path / "links" / "rocov2").symlink_to(folder, target_is_directory=True)
    return str(tmp_path / "links" / "rocov2"), (tmp_path,)


@pytest.mark.parametrize("case", ["whole", "kg outside the roots", "through a link"])
def test_the_load_reads_exactly_the_files_the_layout_lists_and_the_digest_digests(tmp_path, case):
    if case == "through a link":
        folder, roots = linked(tmp_path)
    else:
        real = small_rocov2(tmp_path)
        folder, roots = str(real), (tmp_path,) if case == "whole" else (real,)
    loaded = files_read(lambda: load_rocov2_complete(folder, roots), tmp_path)
    digested = files_read(lambda: rocov2_digest(folder, roots), tmp_path)
    assert loaded == layout_files(folder, roots) == digested
    names = {path.name for path in loaded}
    assert {"test_concepts.csv", "test_captions.csv", "cui_mapping.csv", "mine.trec", "rocov2_labels.csv"} <= names
    assert "notes.md" not in names and not any(path.suffix == ".png" for path in loaded)  # images are read when shown
    assert ("open_kg_edges.csv" in names) == (case != "kg outside the roots")


def test_the_folder_loader_reads_only_the_layout_s_files(tmp_path):
    folder = small_rocov2(tmp_path)
    loaded = files_read(lambda: load_rocov2_folder(folder, ("test",), (tmp_path,)), tmp_path)
    assert loaded == {ROCOV2_LAYOUT.concepts_file(folder, "test"), ROCOV2_LAYOUT.captions_file(folder, "test"),
                      ROCOV2_LAYOUT.names_file(folder)}


def test_changing_any_file_the_load_reads_changes_the_digest(tmp_path, monkeypatch):
    folder = small_rocov2(tmp_path)
    labels = tmp_path / "rocov2_labels.csv"
    labels.write_bytes(ROCOV2_LAYOUT.labels.read_bytes())
    monkeypatch.setattr(ws, "ROCOV2_LAYOUT", replace(ROCOV2_LAYOUT, labels=labels))
    roots = (tmp_path,)
    seen = {rocov2_digest(str(folder), roots)}
    changed = [path for path in ROCOV2_LAYOUT.files(folder) if path.is_file()]
    assert len(changed) == 6  # concepts, captions, names, KG edges and names, the run
    for path in (*changed, labels):
        path.write_bytes(path.read_bytes() + b"\n")
        seen.add(rocov2_digest(str(folder), roots))
    (folder / "runs" / "other.run").write_text("img1 Q0 img3 1 1.0 other\n")  # a new run file
    seen.add(rocov2_digest(str(folder), roots))
    (folder / "images" / "img4.png").write_bytes(z.png(seed=4))  # a new image
    seen.add(rocov2_digest(str(folder), roots))
    assert len(seen) == 1 + len(changed) + 3
    (folder / "runs" / "more-notes.md").write_text("no run file: neither read nor digested")
    assert rocov2_digest(str(folder), roots) in seen


def test_the_root_checks_are_as_strict_as_before(tmp_path):
    folder = small_rocov2(tmp_path)
    with pytest.raises(CBIRLensError, match="outside"):
        rocov2_digest(str(folder), (tmp_path / "elsewhere",))
    with pytest.raises(CBIRLensError, match="outside"):
        load_rocov2_complete(str(folder), (tmp_path / "elsewhere",))
    # a file of the layout that links outside the roots is refused, not read
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "cui_mapping.csv").write_text("CUI,Name\nC0000001,Secret\n")
    (folder / "cui_mapping.csv").unlink()
    (folder / "cui_mapping.csv").symlink_to(outside / "cui_mapping.csv")
    with pytest.raises(CBIRLensError, match="outside"):
        load_rocov2_complete(str(folder), (folder,))
    # the KG's names beside a KG under the roots, linking outside them, are refused as before
    (folder / "cui_mapping.csv").unlink()
    (tmp_path / "kg" / "open_kg_names.csv").unlink()
    (tmp_path / "kg" / "open_kg_names.csv").symlink_to(outside / "cui_mapping.csv")
    with pytest.raises(CBIRLensError, match="outside"):
        load_rocov2_complete(str(folder), (folder, tmp_path / "kg"))


def test_the_workspace_names_its_files_as_before(tmp_path):
    """The layout changed no name a report row, a KG file or a saved recipe holds (they are part of the digest)."""
    folder = small_rocov2(tmp_path)
    loaded = load_rocov2_complete(str(folder), (tmp_path,))
    assert sorted(loaded.kg_files) == [str(folder.parent / "kg" / "open_kg_edges.csv")]
    assert [row.file for row in loaded.reports] == [
        str(folder / "test_concepts.csv"), str(tmp_path / "kg" / "open_kg_edges.csv"), "data/labels/rocov2_labels.csv",
        str(folder / "test_captions.csv"), str(folder / "cui_mapping.csv"), str(tmp_path / "kg" / "open_kg_names.csv"),
        str(folder / "images"), str(folder / "runs" / "mine.trec")]
    assert set(loaded.runs) == {"mine"} and loaded.shown_names["C0000003"] == "Abdomen"  # the KG's names file
    assert [(step.kind, step.name) for step in loaded.recipe] == [("folder", str(folder))]
