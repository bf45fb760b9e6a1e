"""Hand-made inputs for the hostile-input suites: one small valid world and the bad files built from it.

The valid world is the worked example of docs/DESIGN.md §2 (q shares CT with every image, its vein is one
hop from x's blood vessel), so every subcommand succeeds on it; each hostile case replaces or adds
one file. Binary formats (.npy, .parquet) are built here so the tests hold no opaque blobs.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

CONCEPTS = b"ID,CUIs\nq,C0040405;C0042449\nx,C0040405;C0005847\ny,C0040405\nz,C0024485\n"
CONCEPTS_TAB = b"q\tC0040405,C0042449\nx\tC0040405,C0005847\ny\tC0040405\nz\tC0024485\n"
KG = b"child,parent\nC0042449,C0005847\n"
NAMES = b"CUI,Name\nC0042449,Veins\nC0005847,Blood Vessels\n"
RUN_TREC = b"q Q0 x 1 3 good\nq Q0 y 2 2 good\nq Q0 z 3 1 good\n"
RUN_CSV = b"query_id,image_id,rank,score\nq,z,1,3\nq,x,2,2\nq,y,3,1\n"
LABELS = b"ID,modality,organ\nq,CT,abdomen\nx,CT,abdomen\ny,CT,chest\nz,MRI,head\n"
CLASS_MAP = b"kind,class,CUI\nmodality,CT,C0040405\nmodality,MRI,C0024485\n"
CAPTIONS = b'ID,Caption\nq,"CT, portal vein"\nx,CT of a blood vessel\ny,CT\nz,MRI of the head\n'
PAIRS = b"a,b\nq,x\nq,z\n"
PREDICTIONS = b"ID,CUIs\nq,C0040405\nx,C0040405;C0042449\n"
SUBSET = b"C0040405\n"
IDS = ("q", "x", "y", "z")
EMBEDDING_IDS = "\n".join(IDS).encode() + b"\n"
VECTORS = np.array([[1.0, 0.0, 0.0], [0.9, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])

# A line of MRREL.RRF: CUI1|AUI1|STYPE1|REL|CUI2|AUI2|STYPE2|RELA|RUI|SRUI|SAB|SL|RG|DIR|SUPPRESS|CVF|
MRREL_ROW = b"C0042449|A0001|AUI|PAR|C0005847|A0002|AUI|inverse_isa|R0001||MSH|MSH|||N||\n"
# A line of MRCONSO.RRF: CUI|LAT|TS|LUI|STT|SUI|ISPREF|AUI|SAUI|SCUI|SDUI|SAB|TTY|CODE|STR|SRL|SUPPRESS|CVF|
MRCONSO_ROW = b"C0042449|ENG|P|L0001|PF|S0001|Y|A0001||M0001|D014680|MSH|MH|D014680|Veins|0|N||\n"
OBO_HEADER = b"format-version: 1.2\nontology: test\n\n"


def npy(array: np.ndarray, allow_pickle: bool = False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def vector_frame(vectors: np.ndarray = VECTORS, ids=IDS, id_column: str | None = "ID") -> pd.DataFrame:
    frame = pd.DataFrame(vectors, columns=[f"v{i}" for i in range(vectors.shape[1])])
    if id_column:
        frame.insert(0, id_column, list(ids))
    return frame


def vector_csv(vectors: np.ndarray = VECTORS, ids=IDS) -> bytes:
    return vector_frame(vectors, ids).to_csv(index=False).encode()


def with_nan(row: int) -> np.ndarray:
    vectors = VECTORS.copy()
    vectors[row, 1] = np.nan
    return vectors


VALID_FILES: dict[str, bytes] = {
    "gt.csv": CONCEPTS,
    "gt.tsv": CONCEPTS_TAB,
    "kg.csv": KG,
    "kg_edges.csv": KG,
    "kg_names.csv": NAMES,
    "run.trec": RUN_TREC,
    "run.csv": RUN_CSV,
    "labels.csv": LABELS,
    "classes.csv": CLASS_MAP,
    "captions.csv": CAPTIONS,
    "pairs.csv": PAIRS,
    "pred.csv": PREDICTIONS,
    "subset.txt": SUBSET,
    "emb.npy": npy(VECTORS),
    "ids.txt": EMBEDDING_IDS,
    "emb.csv": vector_csv(),
    "emb.parquet": parquet(vector_frame()),
}

# Hostile bytes shared by both suites.
GARBAGE = bytes(range(256)) * 4  # every byte value: control characters, NUL, then invalid UTF-8 from 0x80 (line 2)
PNG_HEADER = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"
LATIN1_LINE3 = b"ID,CUIs\nq,C0040405\nr\xe9sum\xe9,C0040405\n"
NUL_LINE3 = b"ID,CUIs\nq,C0040405\nx\x00y,C0040405\n"
UNCLOSED_QUOTE_LINE3 = b'ID,CUIs\nq,C0040405\nx,"C0040405\ny,C0040405\n'
SEMICOLON_HEADER = b"ID;CUIs\nI1;C0000001\n"
LONG_FIELD = b"x" * 200_000
TOO_MANY_CUIS = b"ID,CUIs\nq," + b";".join(b"C%07d" % i for i in range(600)) + b"\n"


def padded_concepts(size: int) -> bytes:
    """A valid concept file of at least ``size`` bytes (for the size cap)."""
    rows = [CONCEPTS]
    number = 0
    while sum(map(len, rows)) < size:
        rows.append(b"pad%06d,C0040405\n" % number)
        number += 1
    return b"".join(rows)


def padded_run(size: int) -> bytes:
    rows = [RUN_TREC]
    number = 0
    while sum(map(len, rows)) < size:
        rows.append(b"q Q0 pad%06d %d 0.5 good\n" % (number, number + 4))
        number += 1
    return b"".join(rows)
