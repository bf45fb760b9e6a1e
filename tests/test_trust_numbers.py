"""Issue #21, "Trust at the edges": inputs that used to give a number silently (an empty run score, a measure
parameter named twice, complex embeddings), a self-retrieval that moved CAG-RBP, and p-values rounded or
tolerated away."""

from __future__ import annotations

import pytest

from evalcore.errors import InputError
from evalcore.readers import read_runs

from . import line_by_line


def outcome(reader, data: bytes, name: str):
    try:
        return "ok", reader(data, name)
    except InputError as error:
        return "error", str(error), error.line


def runs_as_lists(data: bytes, name: str):
    return [(run.name, list(run.rankings.items())) for run in read_runs(data, name)]


# --- 6. a run's missing score ----------------------------------------------------------------------------

def deep_csv_run(rows: int, broken_row: int, broken: str, header: str = "query_id,image_id,rank,score") -> bytes:
    """A CSV run of ``rows`` rows (no quotes: the columnar path reads it) with row ``broken_row`` replaced."""
    lines = [header] if header else []
    lines += [f"q{i // 50},d{i},{i % 50 + 1},{1 - (i % 50) / 100}" for i in range(rows)]
    lines[broken_row + bool(header)] = broken
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("data, line, found", [
    (b"query_id,image_id,rank,score\nq1,a,1,0.9\nq1,b,2,\nq1,c,3,0.1\n", 3, "an empty field"),
    (b"query_id,image_id,rank,score\nq1,a,1,0.9\nq1,b,2,  \nq1,c,3,0.1\n", 3, "an empty field"),
    (b'query_id,image_id,rank,score\nq1,"a",1,0.9\nq1,b,2,\nq1,c,3,0.1\n', 3, "an empty field"),  # quoted: by lines
    (b"image_id,query_id,score,rank\na,q1,0.9,1\nb,q1,,2\n", 3, "an empty field"),
    (b"q1,a,1,0.9\nq1,b,2,\n", 2, "an empty field"),  # no header: the first row has a score column
    (b"q1,a,1,\nq1,b,2,0.5\n", 1, "an empty field"),
    (b"query_id,image_id,rank,score\nq1,a,1,0.9\nq1,b,2\n", 3, "3 fields"),  # a ragged row: no score at all
    (b"q1,a,1,0.9\nq1,b,2\n", 2, "3 fields"),
    (deep_csv_run(3000, 2500, "q50,d2500,1,"), 2502, "an empty field"),
    (deep_csv_run(3000, 2500, "q50,d2500,1,", header=""), 2501, "an empty field"),
], ids=["header", "blank", "quoted", "columns-swapped", "no-header", "no-header-first-row", "ragged", "ragged-no-header",
        "deep", "deep-no-header"])
def test_a_csv_run_row_without_its_score_is_refused_on_both_paths(data, line, found):
    """Before: the empty cell read as score 0 and moved its image to the end of the list (q1: a, c, b)."""
    with pytest.raises(InputError) as error:
        read_runs(data, "r.csv")
    assert error.value.line == line and error.value.found == found
    assert "score" in error.value.expected and str(error.value).startswith(f"r.csv, line {line}: expected a score")
    assert outcome(runs_as_lists, data, "r.csv") == outcome(line_by_line.read_runs, data, "r.csv")


def test_a_headerless_csv_run_has_a_score_on_every_row_or_on_none():
    with pytest.raises(InputError, match=r"r.csv, line 2: expected 3 fields .*\(a score on every row or on none\)"):
        read_runs(b"q1,a,1\nq1,b,2,0.5\nq1,c,3\n", "r.csv")
    data = b"q1,a,1\nq1,b,2,0.5\n"
    assert outcome(runs_as_lists, data, "r.csv") == outcome(line_by_line.read_runs, data, "r.csv")


@pytest.mark.parametrize("data, order", [
    (b"query_id,image_id,rank\nq1,b,2\nq1,a,1\n", ("a", "b")),  # no score column: ranks give the order
    (b"q1,b,2\nq1,a,1\n", ("a", "b")),
    (b"query_id,image_id,rank,score\nq1,a,1,0.1\nq1,b,2,0.9\n", ("b", "a")),
    (b"query_id,image_id,rank\nq1,b,2,extra\nq1,a,1\n", ("a", "b")),  # a column the header does not name
])
def test_csv_runs_with_a_score_on_every_row_or_none_still_read(data, order):
    assert dict(read_runs(data, "r.csv")[0].rankings) == {"q1": order}
    assert outcome(runs_as_lists, data, "r.csv") == outcome(line_by_line.read_runs, data, "r.csv")


@pytest.mark.parametrize("data", [b"q1\tQ0\ta\t1\t\tsys\n", b"q1 Q0 a 1  sys\n", b"q1 Q0 b 2 0.5 s\nq1 Q0 a 1 s\n"])
def test_a_trec_line_without_its_score_is_refused_as_five_fields(data):
    error = outcome(runs_as_lists, data, "r.trec")
    assert error[0] == "error" and "found 5 fields" in error[1]
    assert error == outcome(line_by_line.read_runs, data, "r.trec")
