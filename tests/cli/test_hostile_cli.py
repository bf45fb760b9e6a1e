"""Hostile inputs through every CLI subcommand, each run as a subprocess under a 2 GiB address-space limit.

Each case of :data:`CASES` builds the small valid world of :mod:`tests.hostile_inputs` in its own
folder, replaces or adds the files it names (under ``inputs/``), and runs ``python -m evalcore`` with
the working directory set to that folder, so the path as given on the command line is
``inputs/<file>``. A bad input must end with status 2 and exactly one stderr line
``error: <path>, line N: expected ...`` (no traceback, no MemoryError, no kill), and must leave an
earlier output file untouched. Cases are started in parallel the first time a test of this module asks for a
result, each a process forked from one that imported the command line once (:data:`FORKING_RUNNER`), which sets the
limit on itself and runs ``python -m evalcore`` as the interpreter does.
"""

from __future__ import annotations

import enum
import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from tests import hostile_inputs as h
from tests import zip_inputs as z
from tests.conftest import ROOT

ADDRESS_SPACE = 2 << 30
TIMEOUT_S = 60
PARALLEL = max(2, min(8, 2 * (os.cpu_count() or 1)))  # processes mostly wait on imports and I/O
SENTINEL = b"an earlier result that a failed command must leave alone\n"
# One BLAS/OpenMP thread per process: thread pools reserve address space per thread, and four
# processes run at once on a small machine.
THREAD_ENV = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")}


class Special(enum.Enum):
    """Files that are not byte contents: made on disk by :func:`materialise`."""

    FIFO = "a named pipe"
    DIRECTORY = "a directory"
    SOCKET = "a Unix socket"
    SPARSE_3_GIB = "a 3 GiB sparse file"


OUTPUTS = {"relevance": "out.csv", "evaluate": "out.json", "retrieve": "out.trec", "detection": "out.json"}
DEFAULTS: dict[str, dict[str, str | list[str]]] = {
    "relevance": {"--concepts": "inputs/gt.csv", "--kg": "inputs/kg.csv", "--pairs": "inputs/pairs.csv",
                  "--out": "out.csv"},
    "evaluate": {"--concepts": "inputs/gt.csv", "--kg": "inputs/kg.csv", "--run": "inputs/run.trec",
                 "--k": ["1", "3"], "--json": "out.json"},
    "retrieve": {"--concepts": "inputs/gt.csv", "--by": "iou", "--depth": "2", "--out": "out.trec"},
    "detection": {"--gt": "inputs/gt.csv", "--pred": "inputs/pred.csv", "--json": "out.json"},
}


def command(subcommand: str, *before: str, **options: str | list[str] | None) -> tuple[str, ...]:
    """argv of a subcommand with its valid defaults; ``kg_mode="x"`` sets ``--kg-mode x``, ``None`` drops it.

    ``before`` holds top-level options placed before the subcommand.
    """
    merged = dict(DEFAULTS[subcommand])
    for key, value in options.items():
        merged["--" + key.replace("_", "-")] = value
    argv = [*before, subcommand]
    for flag, value in merged.items():
        if value is not None:
            argv += [flag, *value] if isinstance(value, list) else [flag, value]
    return tuple(argv)


@dataclass(frozen=True)
class Case:
    """One hostile input: the files it puts under ``inputs/``, the argv, and what the message must say.

    ``expected`` fragments are matched case-insensitively; a tuple fragment is satisfied by any of its
    members. ``kind`` is ``input`` (a file: the line must say ``expected``), ``parameter`` (a value out
    of range) or ``usage`` (argparse).
    """

    id: str
    argv: tuple[str, ...]
    expected: tuple[str | tuple[str, ...], ...]
    files: Mapping[str, bytes | Special] = field(default_factory=dict)
    absent: tuple[str, ...] = ()
    status: int = 2
    kind: str = "input"
    env: Mapping[str, str] = field(default_factory=dict)
    check: Callable[[Path], None] | None = None


def systems_are(*names: str) -> Callable[[Path], None]:
    def check(folder: Path) -> None:
        assert set(json.loads((folder / "out.json").read_text())["systems"]) == set(names)
    return check


def evaluated_queries(count: int) -> Callable[[Path], None]:
    def check(folder: Path) -> None:
        counts = json.loads((folder / "out.json").read_text())["counts"]
        assert counts["good"]["queries_evaluated"] == count, counts
    return check


def scored_images(count: int) -> Callable[[Path], None]:
    def check(folder: Path) -> None:
        assert json.loads((folder / "out.json").read_text())["counts"]["images_scored"] == count
    return check


def images_reported(count: int) -> Callable[[Path], None]:
    """The zip's members read, each reported as no image of the collection and no readable image (twenty-sixth
    pass: the report had said "none" of a zip that covered no image)."""
    def check(folder: Path) -> None:
        report = (folder / "stdout.txt").read_text()
        assert f"| images | {count} | " in report
        assert f"{count} files are not readable PNG or JPEG images" in report
    return check


CHECK_IMAGES = ("check", "--concepts", "inputs/gt.csv", "--images", "inputs/images.zip")
EVALUATE_BAD_RUN = {"run": "inputs/bad.trec"}
EMBEDDINGS = {"by": "embeddings", "depth": "2"}
CAP = ("1000", "1,000", "1 000")
DEFAULT_CAP = ("1 GiB", "1024 MiB", "1073741824", "1,073,741,824")
REGULAR = "regular file"
DUPLICATE = ("duplicate", "repeated", "already")

CASES: list[Case] = [
    # --- concept sets, CSV form (evaluate --concepts) ------------------------------------------
    Case("concepts-binary-garbage", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "UTF-8"),
         {"bad.csv": h.GARBAGE}),
    Case("concepts-png-bytes", command("relevance", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 1", "UTF-8"),
         {"bad.csv": h.PNG_HEADER}),
    Case("concepts-non-utf8", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "UTF-8"),
         {"bad.csv": h.LATIN1_LINE3}),
    Case("concepts-nul-byte", command("retrieve", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "text"),
         {"bad.csv": h.NUL_LINE3}),
    Case("concepts-unclosed-quote", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "CSV"),
         {"bad.csv": h.UNCLOSED_QUOTE_LINE3}),
    Case("concepts-truncated-mid-character", command("evaluate", concepts="inputs/bad.csv"),
         ("inputs/bad.csv", "line 6", "UTF-8"), {"bad.csv": h.CONCEPTS + "w,Blü".encode()[:-1]}),
    Case("concepts-semicolon-delimiter", command("evaluate", concepts="inputs/bad.csv"),
         ("inputs/bad.csv", "line 1", "delimiter", ";"), {"bad.csv": h.SEMICOLON_HEADER}),
    Case("concepts-three-fields", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "2 fields"),
         {"bad.csv": b"ID,CUIs\nq,C0040405\nx,C0040405,C0005847\n"}),
    Case("concepts-malformed-cui", command("relevance", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "7 digits"),
         {"bad.csv": b"ID,CUIs\nq,C0040405\nx,C12345\n"}),
    Case("concepts-empty-cui-token", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "7 digits"),
         {"bad.csv": b"ID,CUIs\nq,C0040405;;C0042449\n"}),
    Case("concepts-empty-file", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "ID,CUIs"),
         {"bad.csv": b""}),
    Case("concepts-header-only", command("retrieve", concepts="inputs/bad.csv"), ("inputs/bad.csv", "ID,CUIs"),
         {"bad.csv": b"ID,CUIs\n"}),
    Case("concepts-duplicate-id", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 4", DUPLICATE),
         {"bad.csv": b"ID,CUIs\nq,C0040405\nx,C0005847\nq,C0024485\n"}),
    Case("concepts-id-with-space", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "ID"),
         {"bad.csv": b"ID,CUIs\nimage one,C0040405\n"}),
    Case("concepts-overlong-field", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 2"),
         {"bad.csv": b"ID,CUIs\nq," + h.LONG_FIELD + b"\n"}),
    Case("concepts-overlong-id", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "ID"),
         {"bad.csv": b"ID,CUIs\n" + b"q" * 5000 + b",C0040405\n"}),
    Case("concepts-quoted-newline-in-id", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "ID"),
         {"bad.csv": b'ID,CUIs\n"q\nx",C0040405\n'}),
    Case("concepts-fifty-thousand-commas", command("evaluate", concepts="inputs/bad.csv"),
         ("inputs/bad.csv", "line 2", "2 fields"), {"bad.csv": b"ID,CUIs\nq," + b"," * 50_000 + b"\n"}),
    Case("concepts-too-many-cuis", command("evaluate", concepts="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "500"),
         {"bad.csv": h.TOO_MANY_CUIS}),
    # --- concept sets, ImageCLEF tab form ------------------------------------------------------
    Case("concepts-tab-malformed-cui", command("evaluate", concepts="inputs/bad.tsv"), ("inputs/bad.tsv", "line 2", "7 digits"),
         {"bad.tsv": b"q\tC0040405,C0042449\nx\tC0040405,BAD\n"}),
    Case("concepts-tab-three-fields", command("retrieve", concepts="inputs/bad.tsv"), ("inputs/bad.tsv", "line 2", "tab"),
         {"bad.tsv": b"q\tC0040405\nx\tC0040405\tC0005847\n"}),
    Case("concepts-tab-duplicate-id", command("evaluate", concepts="inputs/bad.tsv"), ("inputs/bad.tsv", "line 3", DUPLICATE),
         {"bad.tsv": b"q\tC0040405\nx\tC0005847\nq\tC0024485\n"}),
    Case("detection-gt-empty", command("detection", gt="inputs/bad.csv"), ("inputs/bad.csv", "ID,CUIs"), {"bad.csv": b""}),
    Case("detection-gt-malformed", command("detection", gt="inputs/bad.tsv"), ("inputs/bad.tsv", "line 2", "7 digits"),
         {"bad.tsv": b"q\tC0040405\nx\tC004O405\n"}),
    # --- not regular files, missing files, size caps -------------------------------------------
    Case("concepts-dev-zero", command("evaluate", concepts="/dev/zero"), ("/dev/zero", REGULAR)),
    Case("concepts-fifo", command("evaluate", concepts="inputs/pipe.csv"), ("inputs/pipe.csv", REGULAR),
         {"pipe.csv": Special.FIFO}),
    Case("concepts-directory", command("relevance", concepts="inputs/folder.csv"), ("inputs/folder.csv", REGULAR),
         {"folder.csv": Special.DIRECTORY}),
    Case("concepts-socket", command("retrieve", concepts="inputs/s.csv"), ("inputs/s.csv", REGULAR),
         {"s.csv": Special.SOCKET}),
    Case("concepts-missing", command("evaluate", concepts="inputs/missing.csv"), ("inputs/missing.csv",)),
    Case("concepts-over-cli-cap", command("evaluate", "--max-input-bytes", "1000", concepts="inputs/big.csv"),
         ("inputs/big.csv", CAP), {"big.csv": h.padded_concepts(5000)}),
    Case("concepts-sparse-3gib", command("evaluate", concepts="inputs/huge.csv"), ("inputs/huge.csv", DEFAULT_CAP),
         {"huge.csv": Special.SPARSE_3_GIB}),
    Case("run-over-env-cap", command("evaluate"), ("inputs/run.trec", CAP), {"run.trec": h.padded_run(5000)},
         env={"CBIR_LENS_MAX_INPUT_BYTES": "1000"}),
    Case("run-fifo", command("evaluate", run="inputs/pipe.trec"), ("inputs/pipe.trec", REGULAR), {"pipe.trec": Special.FIFO}),
    Case("run-directory", command("evaluate", run="inputs/runs"), ("inputs/runs", REGULAR), {"runs": Special.DIRECTORY}),
    Case("kg-dev-zero", command("relevance", kg="/dev/zero"), ("/dev/zero", REGULAR)),
    Case("pred-fifo", command("detection", pred="inputs/pipe.csv"), ("inputs/pipe.csv", REGULAR), {"pipe.csv": Special.FIFO}),
    Case("embeddings-over-cli-cap", command("retrieve", "--max-input-bytes", "1000", embeddings="inputs/big.npy",
                                            embedding_ids="inputs/ids.txt", **EMBEDDINGS),
         ("inputs/big.npy", CAP), {"big.npy": h.npy(np.zeros((4, 300)))}),
    # --- concept names (the *_names.csv beside a *_edges.csv KG) -------------------------------
    Case("names-one-field", command("relevance", kg="inputs/kg_edges.csv"), ("inputs/kg_names.csv", "line 3", "2 fields"),
         {"kg_names.csv": b"CUI,Name\nC0042449,Veins\nC0005847\n"}),
    Case("names-id-with-space", command("evaluate", kg="inputs/kg_edges.csv"), ("inputs/kg_names.csv", "line 2", "concept"),
         {"kg_names.csv": b"CUI,Name\nC00 42449,Veins\n"}),
    Case("names-non-utf8", command("evaluate", kg="inputs/kg_edges.csv"), ("inputs/kg_names.csv", "line 3", "UTF-8"),
         {"kg_names.csv": b"CUI,Name\nC0042449,Veins\nC0005847,Blutgef\xe4\xdfe\n"}),
    Case("names-mrconso-short-row", command("evaluate", kg="inputs/kg_edges.csv"), ("inputs/kg_names.csv", "line 2", "MRCONSO"),
         {"kg_names.csv": h.MRCONSO_ROW + b"C0005847|ENG|P|L0002\n"}),
    # --- knowledge graph: edge list, MRREL, OBO ------------------------------------------------
    Case("kg-one-field", command("evaluate", kg="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "child,parent"),
         {"bad.csv": b"child,parent\nC0042449,C0005847\nC0003842\n"}),
    Case("kg-node-with-space", command("relevance", kg="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "node"),
         {"bad.csv": b"child,parent\nC0042449,Blood Vessels\n"}),
    Case("kg-header-only", command("evaluate", kg="inputs/bad.csv"), ("inputs/bad.csv", "edge"), {"bad.csv": b"child,parent\n"}),
    Case("kg-empty-file", command("retrieve", by="nn-iou", kg="inputs/bad.csv"), ("inputs/bad.csv", "edge"),
         {"bad.csv": b""}),
    Case("kg-binary", command("evaluate", kg="inputs/bad.csv"), ("inputs/bad.csv", "line 1", "UTF-8"), {"bad.csv": h.PNG_HEADER}),
    Case("kg-semicolon-delimiter", command("evaluate", kg="inputs/bad.csv"), ("inputs/bad.csv", "line 1", "delimiter", ";"),
         {"bad.csv": b"child;parent\nC0042449;C0005847\n"}),
    Case("kg-overlong-line", command("evaluate", kg="inputs/bad.csv"), ("inputs/bad.csv", "line 2"),
         {"bad.csv": b"child,parent\n" + h.LONG_FIELD + b",C0005847\n"}),
    Case("kg-mrrel-short-row", command("evaluate", kg="inputs/MRREL.RRF"), ("inputs/MRREL.RRF", "line 2", "MRREL"),
         {"MRREL.RRF": h.MRREL_ROW + b"C0003842|A3|AUI|PAR|C0005847\n"}),
    Case("kg-mrrel-too-few-columns", command("evaluate", kg="inputs/MRREL.RRF"), ("inputs/MRREL.RRF", "line 1", "MRREL"),
         {"MRREL.RRF": b"C0042449|A0001|AUI|PAR|C0005847|A0002|AUI\n"}, absent=("child,parent",)),
    Case("kg-pipe-rows-named-txt", command("relevance", kg="inputs/rel.txt"), ("inputs/rel.txt", "line 2", "MRREL"),
         {"rel.txt": h.MRREL_ROW + b"C0003842|A3|AUI|PAR|C0005847|A4|AUI\n"}, absent=("child,parent",)),
    Case("kg-mrrel-no-isa", command("evaluate", kg="inputs/MRREL.RRF"), ("inputs/MRREL.RRF", "PAR"),
         {"MRREL.RRF": h.MRREL_ROW.replace(b"|PAR|", b"|RO|").replace(b"inverse_isa", b"part_of")}),
    Case("kg-obo-term-without-id", command("evaluate", kg="inputs/bad.obo"), ("inputs/bad.obo", "line 4", "id"),
         {"bad.obo": h.OBO_HEADER + b"[Term]\nname: vein\nis_a: UBERON:0001638\n"}),
    Case("kg-obo-no-is-a", command("relevance", kg="inputs/bad.obo"), ("inputs/bad.obo", "is_a"),
         {"bad.obo": h.OBO_HEADER + b"[Term]\nid: UBERON:0001638\nname: vein\n"}),
    Case("kg-obo-empty-is-a", command("evaluate", kg="inputs/bad.obo"), ("inputs/bad.obo", "line 6", "node"),
         {"bad.obo": h.OBO_HEADER + b"[Term]\nid: UBERON:0001638\nis_a:\n"}),
    Case("detection-kg-bad", command("detection", kg="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "node"),
         {"bad.csv": b"child,parent\nC0042449,\n"}),
    # --- runs: TREC ----------------------------------------------------------------------------
    Case("run-trec-five-fields", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 2", "6"),
         {"bad.trec": b"q Q0 x 1 3 good\nq Q0 y 2 2\n"}),
    Case("run-trec-nan-score", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 2", "finite"),
         {"bad.trec": b"q Q0 x 1 3 good\nq Q0 y 2 nan good\n"}),
    Case("run-trec-inf-score", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 3", "finite"),
         {"bad.trec": b"q Q0 x 1 3 good\nq Q0 y 2 2 good\nq Q0 z 3 -inf good\n"}),
    Case("run-trec-text-score", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 1", "numeric"),
         {"bad.trec": b"q Q0 x 1 high good\n"}),
    Case("run-trec-text-rank", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 2", "integer"),
         {"bad.trec": b"q Q0 x 1 3 good\nq Q0 y two 2 good\n"}),
    Case("run-trec-negative-rank", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 2", "rank"),
         {"bad.trec": b"q Q0 x 1 3 good\nq Q0 y -2 2 good\n"}),
    Case("run-trec-absurd-rank", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 2", "rank"),
         {"bad.trec": b"q Q0 x 1 3 good\nq Q0 y 100000000000000000000 2 good\n"}),
    Case("run-trec-duplicate-rank", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 2", "rank"),
         {"bad.trec": b"q Q0 x 1 3 good\nq Q0 y 1 2 good\n"}),
    Case("run-trec-duplicate-image", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 3", DUPLICATE),
         {"bad.trec": b"q Q0 x 1 3 good\nq Q0 y 2 2 good\nq Q0 x 3 1 good\n"}),
    Case("run-trec-binary", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 2", "UTF-8"),
         {"bad.trec": h.GARBAGE}),
    Case("run-trec-nul-byte", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 2", "text"),
         {"bad.trec": b"q Q0 x 1 3 good\nq Q0 y\x00 2 2 good\n"}),
    Case("run-empty-file", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "run"), {"bad.trec": b""}),
    Case("run-blank-lines-only", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "run"),
         {"bad.trec": b"\n   \n\t\n"}),
    Case("run-overlong-id", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "line 1", "ID"),
         {"bad.trec": b"q Q0 " + h.LONG_FIELD + b" 1 3 good\n"}),
    Case("run-no-known-query", command("evaluate", **EVALUATE_BAD_RUN), ("inputs/bad.trec", "quer"),
         {"bad.trec": b"nope Q0 x 1 3 good\nnada Q0 y 1 2 good\n"}),
    Case("run-second-of-two-bad", command("evaluate", run=["inputs/run.trec", "inputs/bad.trec"]),
         ("inputs/bad.trec", "line 1", "6"), {"bad.trec": b"q Q0 x\n"}),
    # --- runs: CSV -----------------------------------------------------------------------------
    Case("run-csv-no-rank-column", command("evaluate", run="inputs/bad.csv"), ("inputs/bad.csv", "line 1", "rank"),
         {"bad.csv": b"query_id,image_id,score\nq,x,1\n"}),
    Case("run-csv-unclosed-quote", command("evaluate", run="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "CSV"),
         {"bad.csv": b'query_id,image_id,rank\nq,x,1\nq,"y,2\n'}),
    Case("run-csv-two-fields", command("evaluate", run="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "rank"),
         {"bad.csv": b"query_id,image_id,rank,score\nq,x,1,3\nq,y\n"}),
    Case("run-csv-inf-score", command("evaluate", run="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "finite"),
         {"bad.csv": b"query_id,image_id,rank,score\nq,x,1,inf\n"}),
    Case("run-csv-duplicate-rank", command("evaluate", run="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "rank"),
         {"bad.csv": b"query_id,image_id,rank,score\nq,x,1,3\nq,y,1,2\n"}),
    Case("run-csv-semicolon-delimiter", command("evaluate", run="inputs/bad.csv"), ("inputs/bad.csv", "line 1", "delimiter"),
         {"bad.csv": b"query_id;image_id;rank;score\nq;x;1;3\n"}),
    # --- labels: per-image and CUI-to-class ----------------------------------------------------
    Case("labels-bad-header", command("evaluate", labels="inputs/bad.csv"), ("inputs/bad.csv", "line 1", "modality"),
         {"bad.csv": b"image,colour\nq,red\n"}),
    Case("labels-empty-file", command("evaluate", labels="inputs/bad.csv"), ("inputs/bad.csv", "header"), {"bad.csv": b""}),
    Case("labels-duplicate-id", command("evaluate", labels="inputs/bad.csv"), ("inputs/bad.csv", "line 3", DUPLICATE),
         {"bad.csv": b"ID,modality,organ\nq,CT,abdomen\nq,MRI,head\n"}),
    Case("labels-non-utf8", command("evaluate", labels="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "UTF-8"),
         {"bad.csv": b"ID,modality,organ\nq,CT,\xff\xfe\n"}),
    Case("labels-semicolon-delimiter", command("evaluate", labels="inputs/bad.csv"), ("inputs/bad.csv", "line 1", "delimiter"),
         {"bad.csv": b"ID;modality;organ\nq;CT;abdomen\n"}),
    Case("classes-unknown-kind", command("evaluate", labels="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "kind"),
         {"bad.csv": b"kind,class,CUI\nmodality,CT,C0040405\ncolour,red,C0040405\n"}),
    Case("classes-malformed-cui", command("evaluate", labels="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "7 digits"),
         {"bad.csv": b"kind,class,CUI\nmodality,CT,CT-scan\n"}),
    Case("classes-two-fields", command("evaluate", labels="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "3 fields"),
         {"bad.csv": b"kind,class,CUI\nmodality,CT\n"}),
    # --- embeddings: npy + ids, csv, parquet ---------------------------------------------------
    Case("npy-text-file", command("retrieve", embeddings="inputs/text.npy", embedding_ids="inputs/ids.txt", **EMBEDDINGS),
         ("inputs/text.npy", ".npy"), {"text.npy": b"ID,v0\nq,1.0\n"}, absent=("pickle",)),
    Case("npy-pickled-objects", command("retrieve", embeddings="inputs/obj.npy", embedding_ids="inputs/ids.txt", **EMBEDDINGS),
         ("inputs/obj.npy", ".npy"), {"obj.npy": h.npy(np.array([{"a": 1}] * 4, dtype=object), allow_pickle=True)}),
    Case("npy-row-count-mismatch", command("retrieve", embeddings="inputs/emb.npy", embedding_ids="inputs/ids3.txt",
                                           **EMBEDDINGS), ("inputs/emb.npy", "3", "4"), {"ids3.txt": b"q\nx\ny\n"}),
    Case("npy-nan-row", command("retrieve", embeddings="inputs/nan.npy", embedding_ids="inputs/ids.txt", **EMBEDDINGS),
         ("inputs/nan.npy", ("line 3", "row 3"), "finite"), {"nan.npy": h.npy(h.with_nan(2))}),
    Case("npy-without-ids", command("retrieve", embeddings="inputs/emb.npy", **EMBEDDINGS), ("inputs/emb.npy", "ID")),
    Case("npy-ids-duplicate", command("retrieve", embeddings="inputs/emb.npy", embedding_ids="inputs/dup.txt", **EMBEDDINGS),
         ("inputs/dup.txt", "line 4", DUPLICATE), {"dup.txt": b"q\nx\ny\nq\n"}),
    Case("embeddings-csv-text-value", command("retrieve", embeddings="inputs/bad.csv", **EMBEDDINGS),
         ("inputs/bad.csv", "line 3", "numeric"), {"bad.csv": b"ID,v0,v1\nq,1,0\nx,0.5,high\ny,0,1\nz,1,1\n"}),
    Case("embeddings-csv-inf", command("retrieve", embeddings="inputs/bad.csv", **EMBEDDINGS),
         ("inputs/bad.csv", "line 4", "finite"), {"bad.csv": b"ID,v0,v1\nq,1,0\nx,0.5,1\ny,inf,1\nz,1,1\n"}),
    Case("embeddings-csv-ragged", command("retrieve", embeddings="inputs/bad.csv", **EMBEDDINGS),
         ("inputs/bad.csv", "line 3", "3 fields"), {"bad.csv": b"ID,v0,v1\nq,1,0\nx,0.5\n"}),
    Case("embeddings-csv-no-id-header", command("retrieve", embeddings="inputs/bad.csv", **EMBEDDINGS),
         ("inputs/bad.csv", "line 1", "ID"), {"bad.csv": b"q,1,0\nx,0.5,1\n"}),
    Case("parquet-corrupt", command("retrieve", embeddings="inputs/bad.parquet", **EMBEDDINGS), ("inputs/bad.parquet", "parquet"),
         {"bad.parquet": b"PAR1" + bytes(range(256)) + b"PAR1"}),
    Case("parquet-no-id-column", command("retrieve", embeddings="inputs/bad.parquet", **EMBEDDINGS),
         ("inputs/bad.parquet", "ID"), {"bad.parquet": h.parquet(h.vector_frame(id_column=None))}),
    Case("parquet-nan-row", command("retrieve", embeddings="inputs/bad.parquet", **EMBEDDINGS),
         ("inputs/bad.parquet", "finite"), {"bad.parquet": h.parquet(h.vector_frame(h.with_nan(1)))}),
    # --- captions ------------------------------------------------------------------------------
    Case("captions-unclosed-quote", command("retrieve", captions="inputs/bad.csv", **EMBEDDINGS),
         ("inputs/bad.csv", "line 3", "CSV"), {"bad.csv": b'ID,Caption\nq,CT\nx,"a caption never closed\ny,CT\n'}),
    Case("captions-unquoted-comma", command("retrieve", captions="inputs/bad.csv", **EMBEDDINGS),
         ("inputs/bad.csv", "line 2", "2 fields"), {"bad.csv": b"ID,Caption\nq,CT, axial view\n"}),
    Case("captions-duplicate-id", command("retrieve", captions="inputs/bad.csv", **EMBEDDINGS),
         ("inputs/bad.csv", "line 3", DUPLICATE), {"bad.csv": b"ID,Caption\nq,CT\nq,MRI\n"}),
    Case("captions-nul-byte", command("retrieve", captions="inputs/bad.csv", **EMBEDDINGS), ("inputs/bad.csv", "line 2", "text"),
         {"bad.csv": b"ID,Caption\nq,CT\x00\n"}),
    Case("captions-overlong-field", command("retrieve", captions="inputs/bad.csv", **EMBEDDINGS), ("inputs/bad.csv", "line 2"),
         {"bad.csv": b"ID,Caption\nq," + h.LONG_FIELD + b"\n"}),
    # --- pairs (relevance) ---------------------------------------------------------------------
    Case("pairs-bad-header", command("relevance", pairs="inputs/bad.csv"), ("inputs/bad.csv", "line 1", "a,b"),
         {"bad.csv": b"x,y\nq,x\n"}),
    Case("pairs-unknown-id", command("relevance", pairs="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "image ID"),
         {"bad.csv": b"a,b\nq,x\nq,nope\n"}),
    Case("pairs-one-field", command("relevance", pairs="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "a,b"),
         {"bad.csv": b"a,b\nq,x\nq\n"}),
    Case("pairs-unclosed-quote", command("relevance", pairs="inputs/bad.csv"), ("inputs/bad.csv", "line 3", "CSV"),
         {"bad.csv": b'a,b\nq,x\nq,"z\nx,y\n'}),
    Case("pairs-non-utf8", command("relevance", pairs="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "UTF-8"),
         {"bad.csv": b"a,b\nq,\xc3\x28\n"}),
    Case("pairs-empty-file", command("relevance", pairs="inputs/bad.csv"), ("inputs/bad.csv", "a,b"), {"bad.csv": b""}),
    # --- predictions and subset (detection) ----------------------------------------------------
    Case("pred-repeated-id", command("detection", pred="inputs/bad.csv"), ("inputs/bad.csv", "line 3", DUPLICATE),
         {"bad.csv": b"ID,CUIs\nq,C0040405\nq,C0042449\n"}),
    Case("pred-empty-file", command("detection", pred="inputs/bad.csv"), ("inputs/bad.csv",), {"bad.csv": b""}),
    Case("pred-header-only", command("detection", pred="inputs/bad.csv"), ("inputs/bad.csv",), {"bad.csv": b"ID,CUIs\n"}),
    Case("pred-binary", command("detection", pred="inputs/bad.csv"), ("inputs/bad.csv", "line 1", "UTF-8"),
         {"bad.csv": h.PNG_HEADER}),
    Case("pred-nul-byte", command("detection", pred="inputs/bad.csv"), ("inputs/bad.csv", "line 2", "text"),
         {"bad.csv": b"ID,CUIs\nq,C0040405\x00\n"}),
    Case("subset-no-cui", command("detection", subset="inputs/bad.txt"), ("inputs/bad.txt", "CUI"),
         {"bad.txt": b"computed tomography\n"}),
    Case("subset-non-utf8", command("detection", subset="inputs/bad.txt"), ("inputs/bad.txt", "line 2", "UTF-8"),
         {"bad.txt": b"C0040405\n\xfe\n"}),
    Case("subset-directory", command("detection", subset="inputs/subset"), ("inputs/subset", REGULAR),
         {"subset": Special.DIRECTORY}),
    # --- parameters ----------------------------------------------------------------------------
    Case("param-alpha-2", command("relevance", alpha="2"), ("alpha", "2"), kind="parameter"),
    Case("usage-alpha-nan", command("evaluate", alpha="nan"), ("--alpha", "finite", "nan"), kind="usage"),
    Case("param-n-negative", command("evaluate", n="-1"), ("n", "-1"), kind="parameter"),
    Case("param-k-zero", command("evaluate", k=["0"]), ("k", "0"), kind="parameter"),
    Case("param-depth-zero", command("retrieve", depth="0"), ("depth", "0"), kind="parameter"),
    Case("param-unknown-metric", command("evaluate", metrics=["NOPE@10"]), ("NOPE@10",), kind="parameter"),
    Case("param-detection-alpha", command("detection", kg="inputs/kg.csv", alpha="-0.5"), ("alpha", "-0.5"), kind="parameter"),
    Case("param-env-cap-not-a-number", command("evaluate"), ("CBIR_LENS_MAX_INPUT_BYTES", "lots"), kind="parameter",
         env={"CBIR_LENS_MAX_INPUT_BYTES": "lots"}),
    Case("usage-max-input-bytes-text", command("evaluate", "--max-input-bytes", "lots"), ("max-input-bytes", "lots"),
         kind="usage"),
    Case("usage-max-input-bytes-zero", command("evaluate", "--max-input-bytes", "0"), ("max-input-bytes", "0"), kind="usage"),
    Case("usage-n-not-integer", command("relevance", n="x"), ("--n", "x"), kind="usage"),
    Case("usage-missing-required", command("detection", gt=None), ("--gt",), kind="usage"),
    Case("usage-unknown-subcommand", ("summarise", "--concepts", "inputs/gt.csv"), ("summarise",), kind="usage"),
    Case("usage-unknown-by", command("retrieve", by="colour"), ("colour",), kind="usage"),
    # --- image zips (check --images): a damaged member, named with its zip -----------------------
    *(Case(f"check-images-{case}", CHECK_IMAGES, ("inputs/images.zip", z.MEMBER, expected), {"images.zip": make()})
      for case, (make, expected) in sorted(z.DAMAGED.items())),
    # --- inputs that are not errors ------------------------------------------------------------
    # 50 members of 20 MiB, 49:1: held as the 21 MB zip, read one member at a time; holding the gigabyte it expands
    # to ran out of the 2 GiB.
    Case("check-images-expanding-to-1-gb", CHECK_IMAGES, (),
         {"images.zip": z.zip_of_copies(z.compressible_payload(20 << 20), 50)}, status=0, check=images_reported(50)),
    Case("run-three-tags-three-systems", command("evaluate"), (), {"run.trec": b"q Q0 x 1 3 a\nq Q0 y 1 2 b\nq Q0 z 1 1 c\n"},
         status=0, check=systems_are("a", "b", "c")),
    Case("run-some-unknown-queries", command("evaluate"), (), {"run.trec": h.RUN_TREC + b"nope Q0 x 1 3 good\n"},
         status=0, check=evaluated_queries(1)),
    Case("pred-unknown-id-reported", command("detection", pred="inputs/pred.csv"), ("inputs/pred.csv", "line 4", "unknown"),
         {"pred.csv": h.PREDICTIONS + b"nope,C0040405\n"}, status=0, check=scored_images(4)),
    # --- the valid world passes everywhere, so each failure above is due to its one hostile file --
    Case("valid-relevance", command("relevance", kg="inputs/kg_edges.csv"), (), status=0),
    Case("valid-evaluate", command("evaluate", concepts="inputs/gt.tsv", run=["inputs/run.trec", "inputs/run.csv"],
                                   labels="inputs/labels.csv"), (), status=0, check=systems_are("good", "run")),
    Case("valid-evaluate-classes", command("evaluate", labels="inputs/classes.csv"), (), status=0),
    Case("valid-retrieve-npy", command("retrieve", embeddings="inputs/emb.npy", embedding_ids="inputs/ids.txt", **EMBEDDINGS),
         (), status=0),
    Case("valid-retrieve-csv", command("retrieve", embeddings="inputs/emb.csv", **EMBEDDINGS), (), status=0),
    Case("valid-retrieve-parquet", command("retrieve", embeddings="inputs/emb.parquet", **EMBEDDINGS), (), status=0),
    Case("valid-retrieve-captions", command("retrieve", captions="inputs/captions.csv", **EMBEDDINGS), (), status=0),
    Case("valid-retrieve-nn-iou", command("retrieve", by="nn-iou", kg="inputs/kg.csv"), (), status=0),
    Case("valid-detection", command("detection", subset="inputs/subset.txt", kg="inputs/kg.csv"), (), status=0,
         check=scored_images(4)),
]
HOSTILE = [case for case in CASES if case.status == 2]


def materialise(case: Case, folder: Path) -> None:
    inputs = folder / "inputs"
    inputs.mkdir(parents=True)
    for name, content in {**h.VALID_FILES, **case.files}.items():
        path = inputs / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif content is Special.FIFO:
            os.mkfifo(path)
        elif content is Special.DIRECTORY:
            path.mkdir()
            (path / "gt.csv").write_bytes(h.CONCEPTS)
        elif content is Special.SOCKET:
            bind_socket(path)
        elif content is Special.SPARSE_3_GIB:
            with open(path, "wb") as handle:
                handle.write(h.CONCEPTS)
                handle.truncate(3 << 30)
    output = OUTPUTS.get(next((a for a in case.argv if a in OUTPUTS), ""), "out.json")
    (folder / output).write_bytes(SENTINEL)


def bind_socket(path: Path) -> None:
    """A Unix socket file; bound from its folder, since socket paths are limited to about 100 bytes."""
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            server.bind(path.name)
    finally:
        os.chdir(here)


@dataclass
class Outcome:
    folder: Path
    returncode: int | None  # None: still running at the timeout, then killed
    stdout: str
    stderr: str


# One process imports the command line once (1-1.5 s of every command's CPU is its imports), then forks a child for
# each case, ``PARALLEL`` at a time: the child limits its own address space, takes the case's folder, files and
# environment as its own, and runs ``python -m evalcore`` as the interpreter would; an exception it does not catch
# is printed as Python prints it. Nothing runs threads in that process before it forks (THREAD_ENV, no engine work).
# It reads the cases as JSON lines and prints one line per finished case: its number, its status or null if it ran
# past the timeout and was killed.
FORKING_RUNNER = r"""
import json, os, resource, runpy, sys, time, traceback
import evalcore.cli  # what every command imports first
limit, parallel, timeout = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
pending, running = [json.loads(line) for line in sys.stdin], {}

def become(case):
    os.chdir(case["folder"])
    for descriptor, name in ((0, os.devnull), (1, "stdout.txt"), (2, "stderr.txt")):
        opened = os.open(name, os.O_RDONLY if descriptor == 0 else os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(opened, descriptor)
        os.close(opened)
    os.environ.update(case["env"])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        if case["argv"][0] == "-c":  # python -c CODE, for the runner's own test
            exec(case["argv"][1], {"__name__": "__main__"})
        else:  # python -m MODULE ARGS
            sys.argv = [case["argv"][1], *case["argv"][2:]]
            runpy.run_module(case["argv"][1], run_name="__main__", alter_sys=True)
        status = 0
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if not isinstance(stop.code, int) and stop.code is not None:
            print(stop.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)

while pending or running:
    while pending and len(running) < parallel:
        case = pending.pop(0)
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            become(case)
        running[pid] = (case["number"], time.monotonic())
    for pid, (number, started) in list(running.items()):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == 0 and time.monotonic() - started > timeout:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            returncode = None
        elif done == 0:
            continue
        else:
            returncode = os.waitstatus_to_exitcode(status)
        del running[pid]
        print(json.dumps([number, returncode]), flush=True)
    time.sleep(0.02)
"""


def forked(commands: list[tuple[Path, tuple[str, ...], Mapping[str, str]]]) -> list[int | None]:
    """Run each ``(folder, python argv, environment added)`` from :data:`FORKING_RUNNER`, its stdout and stderr into
    ``stdout.txt`` and ``stderr.txt`` of its folder; the status of each (None: killed at the timeout)."""
    environment = {k: v for k, v in os.environ.items() if k != "CBIR_LENS_MAX_INPUT_BYTES"}
    environment.update(THREAD_ENV, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    requests = "".join(json.dumps({"number": number, "folder": str(folder), "argv": list(argv), "env": dict(env)})
                       + "\n" for number, (folder, argv, env) in enumerate(commands))
    finished = subprocess.run([sys.executable, "-c", FORKING_RUNNER, str(ADDRESS_SPACE), str(PARALLEL),
                               str(TIMEOUT_S)], input=requests, capture_output=True, text=True, env=environment,
                              timeout=TIMEOUT_S * len(commands), check=True)
    statuses: list[int | None] = [None] * len(commands)
    reported = [json.loads(line) for line in finished.stdout.splitlines()]
    assert sorted(number for number, _ in reported) == list(range(len(commands))), finished.stderr
    for number, returncode in reported:
        statuses[number] = returncode
    return statuses


def run_cases(cases: list[Case], base: Path) -> dict[str, Outcome]:
    """Run the cases, each in its own folder under ``base``; collect their outputs from files."""
    folders = [base / f"{number:03d}" for number in range(len(cases))]
    for case, folder in zip(cases, folders):
        materialise(case, folder)
    statuses = forked([(folder, ("-m", "evalcore", *case.argv), case.env) for case, folder in zip(cases, folders)])
    return {case.id: Outcome(folder, status, (folder / "stdout.txt").read_text(errors="replace"),
                             (folder / "stderr.txt").read_text(errors="replace"))
            for case, folder, status in zip(cases, folders, statuses)}


@pytest.fixture(scope="module")
def outcomes(request, tmp_path_factory) -> dict[str, Outcome]:
    """Run every selected case of this module once, in parallel."""
    selected = [item.callspec.params["case"] for item in request.session.items
                if getattr(item, "module", None) is request.module and hasattr(item, "callspec") and "case" in item.callspec.params]
    return run_cases(selected, tmp_path_factory.mktemp("hostile-cli"))


def contains(text: str, fragment: str | tuple[str, ...]) -> bool:
    options = fragment if isinstance(fragment, tuple) else (fragment,)
    return any(option.lower() in text.lower() for option in options)


def test_table_is_large_and_covers_every_subcommand():
    assert len({case.id for case in CASES}) == len(CASES)
    assert len([case for case in HOSTILE if case.kind == "input"]) >= 60
    used = {argument for case in CASES for argument in case.argv}
    assert {"relevance", "evaluate", "retrieve", "detection"} <= used


@pytest.mark.slow
@pytest.mark.subprocess
def test_the_runner_limits_the_address_space_and_reports_what_python_would(tmp_path):
    """The harness itself: a child that asks for 3 GiB under the limit gets a MemoryError, printed as Python prints
    an uncaught exception; a module's exit status and its own folder, files and environment are the child's."""
    folders = [tmp_path / name for name in ("memory", "exit", "folder")]
    for folder in folders:
        folder.mkdir()
    statuses = forked([(folders[0], ("-c", "bytearray(3 << 30)"), {}),
                       (folders[1], ("-m", "evalcore", "no-such-command"), {}),
                       (folders[2], ("-c", "import os; print(os.getcwd(), os.environ['HOSTILE'])"), {"HOSTILE": "yes"})])
    assert statuses == [1, 2, 0]
    assert "Traceback" in (folders[0] / "stderr.txt").read_text() and "MemoryError" in (folders[0] / "stderr.txt").read_text()
    assert "no-such-command" in (folders[1] / "stderr.txt").read_text()
    assert (folders[2] / "stdout.txt").read_text() == f"{folders[2]} yes\n"


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_cli_case(case: Case, outcomes: dict[str, Outcome]):
    outcome = outcomes[case.id]
    shown = f"argv: {' '.join(case.argv)}\nstderr:\n{outcome.stderr[-3000:]}"
    assert outcome.returncode is not None, f"still running after {TIMEOUT_S} s (hangs?)\n{shown}"
    assert "Traceback" not in outcome.stderr and "MemoryError" not in outcome.stderr, shown
    assert outcome.returncode >= 0, f"killed by signal {-outcome.returncode} under the 2 GiB limit\n{shown}"
    assert outcome.returncode == case.status, shown
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    if case.status == 0:
        for fragment in case.expected:
            assert contains(outcome.stderr, fragment), f"{fragment!r} missing\n{shown}"
        if case.check:
            case.check(outcome.folder)
        return
    assert len(lines) == 1, f"expected one stderr line, got {len(lines)}\n{shown}"
    message = lines[0]
    assert message.startswith("error: "), shown
    if case.kind == "input":
        assert "expected" in message, shown
    for fragment in case.expected:
        assert contains(message, fragment), f"{fragment!r} missing\n{shown}"
    for fragment in case.absent:
        assert not contains(message, fragment), f"{fragment!r} should not appear\n{shown}"
    output = OUTPUTS.get(next((a for a in case.argv if a in OUTPUTS), ""), "out.json")
    assert (outcome.folder / output).read_bytes() == SENTINEL, f"{output} was changed by a failed command\n{shown}"
