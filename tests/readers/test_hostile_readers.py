"""Reader defects found by the hostile-input hunt (/tmp/hunt/report.md), each pinned by a small synthetic file.

The endless-line cases use sparse files of gigabytes with a small line limit and piece size, so that a reader that
buffers a whole line would run out of memory while the fixed one reads a few hundred kilobytes."""

from __future__ import annotations

import io
import struct
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from evalcore.errors import InputError, ParameterError
from evalcore.metrics.registry import parse_metric
from evalcore.readers import (
    files,
    read_concepts,
    read_embeddings,
    read_kg,
    read_labels,
    read_predictions,
    read_qrels,
    read_runs,
    runs,
)
from tests.conftest import ROOT

SMALL_LINE_LIMIT = 1 << 16
MRREL_ROW = b"C0000001|A1|S|PAR|C0000002|A2|S|isa|R1||MSH|MSH|||N||\n"
ARABIC_CUI = "C\u0660\u0660\u0664\u0660\u0664\u0660\u0665"  # C٠٠٤٠٤٠٥: Arabic-Indic digits


@pytest.fixture
def small_pieces(monkeypatch):
    """A line limit of 64 KiB and pieces of 16 KiB, so that a refusal comes after reading little."""
    monkeypatch.setattr(files, "MAX_LINE_BYTES", SMALL_LINE_LIMIT)
    monkeypatch.setattr(runs, "RUN_PIECE_BYTES", 1 << 14)
    monkeypatch.setattr(files, "READ_PIECE_BYTES", 1 << 14)


def sparse_file(path, head: bytes, size: int = 3 << 30):
    """``head`` followed by NUL bytes up to ``size`` bytes, without writing them (a sparse file)."""
    with open(path, "wb") as handle:
        handle.write(head)
        handle.truncate(size)
    return path


def refusal(reader, *args) -> str:
    with pytest.raises(InputError) as caught:
        reader(*args)
    return str(caught.value)


# 1. An endless line in a streamed file is refused once it passes the line limit, not buffered to its end.

def test_run_of_nul_bytes_without_line_feed_is_refused_early(tmp_path, small_pieces):
    path = sparse_file(tmp_path / "run.trec", b"q1 Q0 d1 1 0.5 a\n")
    assert refusal(read_runs, str(path)) == f"{path}, line 2: expected text, found a NUL byte (binary file?)"


def test_run_line_longer_than_the_limit_is_refused_naming_it(tmp_path, small_pieces):
    data = b"q1 Q0 d1 1 0.5 a\nq1 Q0 d2 2 0.4 a\n" + b"x" * (3 * SMALL_LINE_LIMIT)
    path = tmp_path / "run.trec"
    path.write_bytes(data)
    expected = (f"line 3: expected a line of at most {SMALL_LINE_LIMIT:,} bytes, found one of more than "
                f"{SMALL_LINE_LIMIT:,} bytes with no line feed")
    assert refusal(read_runs, str(path)) == f"{path}, {expected}"
    assert refusal(read_runs, data, "run.trec") == f"run.trec, {expected}"  # the same from memory
    assert refusal(read_runs, data + b"\n", "run.trec") == f"run.trec, {expected}"  # a finished long line too


def test_invalid_utf8_in_an_unfinished_line_is_named_without_reading_to_its_end(tmp_path, small_pieces):
    path = tmp_path / "run.trec"
    path.write_bytes(b"q1 Q0 d1 1 0.5 a\n" + b"x" * 100 + b"\xff" + b"x" * (3 * SMALL_LINE_LIMIT))
    assert refusal(read_runs, str(path)) == f"{path}, line 2: expected UTF-8 text, found byte 0xff"


def test_mrrel_of_nul_bytes_without_line_feed_is_refused_early(tmp_path, small_pieces):
    path = sparse_file(tmp_path / "MRREL.RRF", MRREL_ROW)
    assert refusal(read_kg, str(path)) == f"{path}, line 2: expected text, found a NUL byte (binary file?)"


def test_mrrel_line_longer_than_the_limit_is_refused(tmp_path, small_pieces):
    data = MRREL_ROW + b"C" * (3 * SMALL_LINE_LIMIT)
    path = tmp_path / "MRREL.RRF"
    path.write_bytes(data)
    expected = f"line 2: expected a line of at most {SMALL_LINE_LIMIT:,} bytes"
    assert refusal(read_kg, str(path)).startswith(f"{path}, {expected}")
    assert refusal(read_kg, data, "MRREL.RRF").startswith(f"MRREL.RRF, {expected}")


def test_mrrel_nul_before_an_endless_line_comes_first(tmp_path, small_pieces):
    path = tmp_path / "MRREL.RRF"
    path.write_bytes(MRREL_ROW + b"C0000003|\x00\n" + b"C" * (3 * SMALL_LINE_LIMIT))
    assert refusal(read_kg, str(path)) == f"{path}, line 2: expected text, found a NUL byte (binary file?)"


# 2. Numbers of more than 4,300 digits (Python's int() limit) are refused as out of range, not a ValueError.

@pytest.mark.parametrize("reader", [read_concepts, read_embeddings, read_kg, read_labels, read_predictions,
                                    read_qrels, read_runs], ids=lambda reader: reader.__name__)
def test_a_path_with_a_nul_character_is_refused_naming_it(reader):
    """No file system path holds a NUL: the operating system's calls raise a bare ValueError on one, which names no
    file; the readers refuse it as any other unreadable path."""
    assert refusal(reader, "inputs/a\0b.csv") == "inputs/a\\0b.csv: expected a file path, found a NUL character in " \
                                                "the path"


def test_qrels_grade_of_5000_digits_is_out_of_range():
    message = refusal(read_qrels, b"q1 0 d1 " + b"1" * 5000 + b"\n", "x.qrels")
    assert message.startswith("x.qrels, line 1: expected a grade between -2^53 and 2^53, found 111")


def test_run_rank_of_5000_digits_is_out_of_range():
    message = refusal(read_runs, b"q1 Q0 d1 " + b"1" * 5000 + b" 0.5 a\n", "run.trec")
    assert message.startswith("run.trec, line 1: expected a rank between 0 and 1,000,000,000")


def test_metric_k_of_5000_digits_is_a_parameter_error():
    with pytest.raises(ParameterError, match="@K"):
        parse_metric("CUI@" + "1" * 5000)


def test_input_budget_of_5000_digits_is_a_parameter_error(monkeypatch):
    monkeypatch.setenv(files.INPUT_BUDGET_VARIABLE, "9" * 5000)
    with pytest.raises(ParameterError, match="whole number of bytes") as caught:
        files.max_input_bytes()
    assert len(str(caught.value)) < 200


# 3. A .npy header is read before the array: a damaged header or a claimed size the file does not hold is refused.

def npy_bytes(header: str) -> bytes:
    encoded = header.encode("latin1")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(encoded)) + encoded


def test_npy_header_cut_off_is_refused():
    data = npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,".ljust(117) + "\n")
    assert refusal(read_embeddings, data, "e.npy", b"a\nb\n", "ids.txt").startswith(
        "e.npy: expected a numeric .npy array (N x d), found an unreadable header")


def test_npy_header_claiming_a_huge_shape_is_refused_naming_the_sizes():
    data = npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000, 3), }".ljust(117) + "\n")
    assert len(data) == 128
    assert refusal(read_embeddings, data, "e.npy", b"a\nb\n", "ids.txt") == (
        "e.npy: expected 24,000,000,000,000 data bytes after the header, as its shape (1000000000000, 3) of float64 "
        "says, found 0")


# 4. A CUI has ASCII digits only, everywhere one is checked.

@pytest.mark.parametrize("data", [f"ID,CUIs\nimg1,{ARABIC_CUI}\n", f'ID,CUIs\n"img1",{ARABIC_CUI}\n'],
                         ids=["columnar", "line-by-line"])
def test_concepts_refuse_a_cui_with_other_digits(data):
    assert "CUIs of the form C + 7 digits" in refusal(read_concepts, data.encode(), "gt.csv")


def test_class_map_refuses_a_cui_with_other_digits():
    data = f"kind,class,CUI\nmodality,CT,{ARABIC_CUI}\n".encode()
    assert "a CUI of the form C + 7 digits" in refusal(read_labels, data, "m.csv")


def test_predictions_report_a_cui_with_other_digits():
    predictions = read_predictions(f"img1,{ARABIC_CUI}\nimg2,C0000001\n".encode(), "run.csv")
    assert [problem for _, problem in predictions.problems] == [f"malformed CUI {ARABIC_CUI!r}"]


def test_metric_k_with_a_full_width_digit_is_refused():
    with pytest.raises(ParameterError):
        parse_metric("CUI@\uff13")


# 5. Numbers in run files (and other inputs) are read as trec_eval reads them: plain ASCII decimal syntax.

@pytest.mark.parametrize(("rank", "score", "expected"), [
    ("1", "1_000", "a numeric score, found '1_000'"), ("1", "\u0663", "a numeric score, found '\u0663'"),
    ("1_0", "0.5", "an integer rank, found '1_0'"), ("\u0661", "0.5", "an integer rank, found '\u0661'")])
def test_run_numbers_in_python_only_syntax_are_refused(rank, score, expected):
    trec = f"q1 Q0 d1 {rank} {score} a\n".encode()
    assert refusal(read_runs, trec, "run.trec") == f"run.trec, line 1: expected {expected}"
    csv = f"query_id,image_id,rank,score\nq1,d1,{rank},{score}\n".encode()
    assert refusal(read_runs, csv, "run.csv") == f"run.csv, line 2: expected {expected}"


def test_embedding_values_in_python_only_syntax_are_refused():
    message = refusal(read_embeddings, "ID,v1,v2\na,1_0,\u0663\n".encode(), "e.csv")
    assert message == "e.csv, line 2: expected numeric vector values, found '1_0'"


# 6. Embedding IDs: a null parquet ID is refused; the ID file is named when it is the cause.

def test_parquet_null_id_is_refused_naming_the_row(tmp_path):
    buffer = io.BytesIO()
    pd.DataFrame({"ID": ["a", None, "c"], "v": [1.0, 2.0, 3.0]}).to_parquet(buffer)
    assert refusal(read_embeddings, buffer.getvalue(), "e.parquet") == (
        "e.parquet: expected an ID on every row (row 2 of 3), found a null ID")


def npy_of(rows: int) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ones((rows, 3)))
    return buffer.getvalue()


def test_empty_embedding_id_file_is_named():
    assert refusal(read_embeddings, npy_of(2), "e.npy", b"\n", "ids.txt") == (
        "ids.txt: expected one ID per line for the rows of e.npy, found no IDs")


def test_embedding_count_mismatch_names_both_files():
    message = refusal(read_embeddings, npy_of(2), "e.npy", b"a\n", "ids.txt")
    assert message == "e.npy: expected an N x d array with N = 1 IDs (the lines of ids.txt), found shape (2, 3)"


# 7. A quoted field is cut in the message.

def test_long_found_text_is_cut_in_the_message():
    message = refusal(read_runs, b"q1 Q0 d1 1 " + b"9" * 5000 + b" a\n", "run.trec")  # beyond the float range
    assert message.startswith("run.trec, line 1: expected a finite score, found 999")
    assert len(message) < 300 and message.endswith("\u2026 (5,000 characters)")
    assert "\n" not in message


#: What making and reading one line of a million CUIs may take, in bytes of memory per byte of the file: at the peak of
#: the process's resident set, and at the peak of pyarrow's memory pool. The line is refused (concepts) or its first
#: 100 CUIs read (predictions), never split whole: 7-9 and 3.0 times the file. Split whole as arrays, then as Python
#: strings, it took up to 17-21 and 5.2-5.6 times (the resident set's figures vary with what the interpreter's start
#: left to reuse).
MEMORY_PER_BYTE, ARROW_MEMORY_PER_BYTE = 11, 4
PEAK_OF_READING = """
import resource, sys
import pyarrow as pa
from evalcore.errors import InputError
from evalcore.readers import read_concepts, read_predictions
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
data = b"ID,CUIs\\nDEMO_00001,C0000001\\nDEMO_00002," + b"C0000726;" * 1_000_000 + b"C0000726\\n"
try:
    said = str(read_predictions(data, "x.csv").problems[0]) if sys.argv[1] == "predictions" else repr(
        read_concepts(data, "x.csv"))
except InputError as error:
    said = str(error)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024 / len(data))
print(pa.default_memory_pool().max_memory() / len(data))
print(said)
"""


@pytest.mark.subprocess
@pytest.mark.parametrize(("reader", "said"), [
    ("concepts", "x.csv, line 3: expected well-formed CSV, found field larger than field limit (100000)"),
    ("predictions", "(3, '1000001 concepts (at most 100 allowed)')"),
])
def test_a_line_of_a_million_cuis_is_not_split_whole(reader, said):
    done = subprocess.run([sys.executable, "-c", PEAK_OF_READING, reader], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=True)
    per_byte, arrow_per_byte, message = done.stdout.splitlines()
    assert message == said
    assert float(per_byte) < MEMORY_PER_BYTE, f"{float(per_byte):.1f} bytes of memory per byte of the file"
    assert float(arrow_per_byte) < ARROW_MEMORY_PER_BYTE, f"{float(arrow_per_byte):.1f} bytes of pyarrow's memory"


#: What making and reading 16 million blank lines before one row may take, in bytes of memory (the peak of the
#: resident set) per byte of the file: the line feeds' offsets at 4 bytes each, no other array an entry per blank line
#: (13.5 times the file). With the bounds of every line as arrays it took 36 times, and 64 MB of blank lines ran out of
#: 3 GB.
BLANK_LINES_MEMORY_PER_BYTE = 20
PEAK_OF_BLANK_LINES = """
import resource, sys
from evalcore.readers import read_concepts, read_run
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
blank = b"\\n" * 16_000_000
if sys.argv[1] == "run":
    data = blank + b"q1 Q0 d1 1 0.5 a\\n"
    said = sorted(read_run(data, "x.trec").rankings["q1"])
else:
    data = b"ID,CUIs\\n" + blank + b"img1,C0000001\\n"
    concepts = read_concepts(data, "x.csv")
    said = [sorted(concept_set) for concept_set in concepts.sets]
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024 / len(data))
print(said)
"""


@pytest.mark.slow
@pytest.mark.subprocess
@pytest.mark.parametrize(("reader", "said"), [("run", "['d1']"), ("concepts", "[['C0000001']]")])
def test_millions_of_blank_lines_take_a_few_bytes_each(reader, said):
    done = subprocess.run([sys.executable, "-c", PEAK_OF_BLANK_LINES, reader], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, check=True)
    per_byte, read = done.stdout.splitlines()
    assert read == said
    assert float(per_byte) < BLANK_LINES_MEMORY_PER_BYTE, f"{float(per_byte):.1f} bytes of memory per byte of the file"
