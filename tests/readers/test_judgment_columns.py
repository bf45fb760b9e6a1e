"""Clinicians' judgments as columns (evalcore/readers/judgment_columns.py, issue 68): CSV judge,case,candidate,grade[,time]
and TREC graded qrels; the same gradings however the text is split (pyarrow's lines, Python's, the csv module's
records) and as a plain csv-module reading written here; every refusal one message naming the file, the line and
what was expected."""

from __future__ import annotations

import csv
import io
import math
import random

import numpy as np
import pytest

from evalcore.errors import InputError
from evalcore.readers import judgment_columns
from evalcore.readers.columnar import split_by_python
from evalcore.readers.files import MAX_LINE_BYTES
from evalcore.readers.judgment_columns import MAX_JUDGE_CHARS, SKIPPED, read_judgment_columns

HEADER = "judge,case,candidate,grade\n"
TIMED = "judge,case,candidate,grade,time\n"


def refusal(data: bytes | str, name: str = "j.csv") -> InputError:
    with pytest.raises(InputError) as raised:
        read_judgment_columns(data.encode() if isinstance(data, str) else data, name)
    error = raised.value
    assert str(error).startswith(name) and "\n" not in str(error)
    return error


def test_a_csv_file_and_a_qrels_file():
    judged = read_judgment_columns((TIMED + "ann,q1,x,2,1.5\nDr Bob,q1,x,skipped,2\nann,q2,y,0,3\n").encode(), "j.csv")
    assert judged.judges == ("ann", "Dr Bob") and judged.form == "csv" and judged.timed
    assert judged.rows() == [("ann", "q1", "x", 2), ("Dr Bob", "q1", "x", SKIPPED), ("ann", "q2", "y", 0)]
    assert judged.time.tolist() == [1.5, 2.0, 3.0] and judged.lines.tolist() == [2, 3, 4]
    qrels = read_judgment_columns(b"# graded by hand\nq1 0 x 2\n\nq1 Q0 y 0\n", "j.qrels")
    assert qrels.form == "qrels" and qrels.judges == ("qrels",) and not qrels.timed
    assert qrels.rows() == [("qrels", "q1", "x", 2), ("qrels", "q1", "y", 0)] and qrels.lines.tolist() == [2, 4]


def test_date_times_are_seconds_in_utc():
    judged = read_judgment_columns((TIMED + "ann,q,x,1,2026-01-02T03:04:05.678Z\nann,q,x,2,2026-01-02 03:04:06\n"
                                    "ann,q,x,0,2026-01-02T04:04:07+01:00\n").encode(), "j.csv")
    assert judged.time.tolist() == pytest.approx([1767323045.678, 1767323046.0, 1767323047.0])
    assert judged.timed and len(judged) == 3  # one judge grading one pair at three times: repeated gradings


def test_the_header_may_be_quoted_or_in_capitals_and_the_file_may_have_a_byte_order_mark():
    judged = read_judgment_columns(b'\xef\xbb\xbf"Judge","Case","Candidate","Grade"\r\n"ann","q","x","1"\r\n', "j.csv")
    assert judged.rows() == [("ann", "q", "x", 1)]


def plain_reading(text: str) -> list[tuple[str, str, str, int, float]]:
    """The CSV as the csv module reads it, row by row, without the library: the oracle of the tests below."""
    rows = [[field.strip() for field in row] for row in csv.reader(io.StringIO(text, newline="")) if any(
        field.strip() for field in row)]
    timed = len(rows[0]) == 5
    found = []
    for row in rows[1:]:
        grade = -1 if row[3] == "skipped" else int(row[3])
        found.append((row[0], row[1], row[2], grade, float(row[4]) if timed else math.nan))
    return found


def random_file(seed: int, quoted: bool) -> str:
    rng = random.Random(seed)
    timed = rng.random() < 0.5
    judges = ["ann", "Dr Bob", "Zoë", "r-3", "J 7"]
    rows = [TIMED if timed else HEADER]
    seen = set()
    for line in range(rng.randint(1, 40)):
        judge, case, candidate = rng.choice(judges), f"img{rng.randint(0, 5)}", f"img{rng.randint(6, 12)}"
        time = f"{line}.{rng.randint(0, 9)}"
        if (judge, case, candidate, time if timed else None) in seen:
            continue
        seen.add((judge, case, candidate, time if timed else None))
        fields = [judge, case, candidate, rng.choice(["0", "1", "2", "skipped"])] + ([time] if timed else [])
        if quoted:
            fields = [f'"{field}"' if rng.random() < 0.5 else field for field in fields]
        rows.append(",".join(fields) + rng.choice(["\n", "\r\n", "\n\n"]))
    return "".join(rows)


@pytest.mark.parametrize("seed", range(25))
def test_every_split_reads_what_the_csv_module_reads(seed):
    for quoted in (False, True):
        text = random_file(seed, quoted)
        expected = plain_reading(text)
        for by_python in (False, True):
            if by_python:
                with split_by_python():
                    judged = read_judgment_columns(text.encode(), "j.csv")
            else:
                judged = read_judgment_columns(text.encode(), "j.csv")
            found = [(*row, time) for row, time in zip(judged.rows(), judged.time.tolist())]
            assert len(found) == len(expected)
            for got, want in zip(found, expected):
                assert got[:4] == want[:4] and (got[4] == want[4] or math.isnan(got[4]) and math.isnan(want[4]))


# --- refusals ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("grade", ["3", "-1", "1.5", "", "two", "02", "+1"])
def test_a_grade_outside_0_to_2_is_refused_naming_its_line(grade):
    error = refusal(HEADER + "ann,q,x,1\n" + f"ann,q,y,{grade}\n")
    assert error.line == 3 and "a grade 0 (not similar), 1 (partly similar), 2 (very similar) or skipped" in str(error)


@pytest.mark.parametrize("name, shown", [
    ("<script>alert(1)</script>", "'<'"), ("Ann & Bob", "'&'"), ('say "hi"', "'\"'"), ("O'Brien", '"\'"'),
    ("tick`", "'`'"), ("an\x1bn", "'\\x1b'"), ("a\u202eb", "'\\u202e'"), ("zero\u200bwidth", "'\\u200b'"),
])
def test_a_judge_name_with_html_or_control_characters_is_refused_without_being_shown(name, shown):
    text = HEADER + "ann,q,x,1\n" + f'"{name.replace(chr(34), chr(34) * 2)}",q,y,1\n'
    error = refusal(text)
    assert error.line == 3 and f"found a name holding {shown}" in str(error)
    assert "<script" not in str(error) and "\x1b" not in str(error) and "\u202e" not in str(error)


def test_an_empty_or_overlong_judge_name_is_refused():
    assert "an empty name" in str(refusal(HEADER + ",q,x,1\n"))
    long = "j" * (MAX_JUDGE_CHARS + 1)
    assert f"a name of {MAX_JUDGE_CHARS + 1} characters" in str(refusal(HEADER + f"{long},q,x,1\n"))
    assert read_judgment_columns((HEADER + f"{'j' * MAX_JUDGE_CHARS},q,x,1\n").encode(), "j.csv").judges[0] == \
        "j" * MAX_JUDGE_CHARS


def test_a_grading_repeated_without_a_time_of_its_own_is_refused_naming_both_lines():
    error = refusal(HEADER + "ann,q,x,1\nbob,q,x,2\nann,q,y,0\nann,q,x,2\n")
    assert error.line == 5 and "judge 'ann' graded 'x' for the case 'q' on line 2 already" in str(error)
    assert "a repeated grading needs a 'time' column" in str(error)
    error = refusal(TIMED + "ann,q,x,1,10\nann,q,x,2,11\nann,q,x,2,10\n")
    assert error.line == 4 and "on line 2 already at the same time" in str(error)


def test_refused_times():
    assert "a time: seconds" in str(refusal(TIMED + "ann,q,x,1,\n"))
    assert refusal(TIMED + "ann,q,x,1,1\nann,q,y,1,2026-02-30\n").line == 3  # no 30 February
    error = refusal(TIMED + "ann,q,x,1,2026-01-02T03:04:05Z\nann,q,y,1,12.5\n")
    assert error.line == 3 and "times of one kind, as on line 2: ISO 8601 date-times throughout" in str(error)
    assert "found an ISO 8601 date-time" in str(refusal(TIMED + "ann,q,x,1,5\nann,q,y,1,2026-01-02\n"))


def test_refused_shapes():
    assert "an empty file" in str(refusal(b""))
    assert "a header-only file" in str(refusal(HEADER))
    assert "found ';' as the delimiter" in str(refusal("judge;case;candidate;grade\nann;q;x;1\n"))
    assert refusal("judge,image,candidate,grade\nann,q,x,1\n").line == 1
    assert "5 fields" in str(refusal(HEADER + "ann,q,x,1,7\n"))
    assert "an image ID without spaces" in str(refusal(HEADER + 'ann,"q 1",x,1\n'))
    error = refusal(HEADER + "ann,q,x,1\nann,q,q,1\n")
    assert error.line == 3 and "a candidate image other than the case image" in str(error)
    assert "UTF-8" in str(refusal(HEADER.encode() + b"ann,q,\xff,1\n"))


def test_the_first_offending_line_is_named_whichever_way_it_is_read():
    text = HEADER + "ann,q,x,1\nann,q,q,1\n<b>,q,y,1\n"  # line 3: usual, refused by the definition; line 4: unusual
    assert refusal(text).line == 3
    with split_by_python():
        assert refusal(text).line == 3


def test_qrels_refusals():
    error = refusal("q 0 x 2\nq 0 y 3\n", "j.qrels")
    assert error.line == 2 and "a grade 0 (not similar), 1 (partly similar) or 2 (very similar)" in str(error)
    assert refusal("# c\n\nq 0 q 1\n", "j.qrels").line == 3
    assert "judged once" in str(refusal("q 0 x 1\nq 0 x 2\n", "j.qrels"))
    assert refusal("q 0 x 1\nq 0 y 1.5\n", "j.qrels").line == 2


def test_a_line_over_the_limit_and_a_file_over_the_budget_are_refused(monkeypatch):
    error = refusal(HEADER + "ann,q,x,1\n" + "a" * (MAX_LINE_BYTES + 1) + "\n")
    assert error.line == 3 and f"a line of at most {MAX_LINE_BYTES:,} bytes" in str(error)
    monkeypatch.setenv("CBIR_LENS_MAX_INPUT_BYTES", "40")
    assert "at most 40 bytes" in str(refusal(HEADER + "ann,q,x,1\nann,q,y,1\n"))


def test_more_gradings_than_the_limit_are_refused(monkeypatch):
    monkeypatch.setattr(judgment_columns, "MAX_JUDGMENTS", 2)
    assert "at most 2 gradings" in str(refusal(HEADER + "ann,q,x,1\nann,q,y,1\nann,q,z,1\n"))
    assert len(read_judgment_columns((HEADER + "ann,q,x,1\nann,q,y,1\n").encode(), "j.csv")) == 2


@pytest.mark.slow
def test_a_million_gradings_are_read_as_columns():
    """A million rows (2 cores: 1.3 s as CSV, 2.2 s as qrels when measured): the arrays hold every grading."""
    rng = np.random.default_rng(0)
    cases, grades = rng.integers(0, 20_000, 1_000_000), rng.integers(0, 3, 1_000_000)
    text = HEADER + "".join(f"judge{i % 3},case{c},img{i},{g}\n" for i, (c, g) in enumerate(zip(cases, grades)))
    judged = read_judgment_columns(text.encode(), "big.csv")
    assert len(judged) == 1_000_000 and judged.judges == ("judge0", "judge1", "judge2")
    assert np.array_equal(judged.grade, grades) and judged.lines[-1] == 1_000_001
    assert judged.images[judged.case[123_456]] == f"case{cases[123_456]}"
