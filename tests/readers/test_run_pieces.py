"""TREC runs read a piece at a time (a path is never read whole): with tiny pieces, every run, error and line
number equals the line-by-line definition's, from a path and from bytes alike."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from evalcore.errors import InputError
from evalcore.readers import INPUT_BUDGET_VARIABLE, files, read_runs, runs
from tests import line_by_line
from tests.readers.test_vectorised_readers import generated_run, outcome, runs_as_lists, trec_files


@pytest.fixture
def tiny_pieces(monkeypatch):
    """Pieces of about 64 bytes: every file below spans several of them, and most lines start a new one."""
    monkeypatch.setattr(runs, "RUN_PIECE_BYTES", 64)


def from_path(tmp_path):
    def read(data: bytes, name: str):
        path = tmp_path / name
        path.write_bytes(data)
        return runs_as_lists(str(path), name)
    return read


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                    HealthCheck.function_scoped_fixture])
@given(data=trec_files())
def test_trec_runs_in_pieces_read_as_line_by_line(data, tiny_pieces, tmp_path):
    expected = outcome(line_by_line.read_runs, data, "r.trec")
    assert outcome(runs_as_lists, data, "r.trec") == expected
    assert outcome(from_path(tmp_path), data, "r.trec") == expected


@pytest.mark.parametrize("shuffle, tags, crlf", [(False, 1, False), (True, 2, False), (False, 3, True)])
def test_generated_runs_in_pieces_read_as_line_by_line(shuffle, tags, crlf, monkeypatch, tmp_path):
    monkeypatch.setattr(runs, "RUN_PIECE_BYTES", 4096)
    data = generated_run(5, queries=100, depth=30, tags=tags, shuffle=shuffle, crlf=crlf)
    expected = outcome(line_by_line.read_runs, data, "g.trec")
    assert expected[0] == "ok"
    assert outcome(runs_as_lists, data, "g.trec") == outcome(from_path(tmp_path), data, "g.trec") == expected


@pytest.mark.slow
@pytest.mark.parametrize("position", [0, 1_500, 2_999])
def test_errors_and_duplicates_across_pieces_name_their_lines(position, monkeypatch, tmp_path):
    """A bad field, a repeated line (its duplicate may sit pieces away) and blank lines before the error."""
    monkeypatch.setattr(runs, "RUN_PIECE_BYTES", 1000)
    lines = generated_run(3, queries=100, depth=30).decode().splitlines(keepends=True)
    for broken in (lines[position].replace(" Q0 ", " "), lines[position].rsplit(" ", 2)[0] + " nan t0\n",
                   lines[position - 1 if position else 1], "\n \n\t\n" + lines[position].replace(" t0", " x t0")):
        data = "".join(lines[:position] + [broken] + lines[position + 1:]).encode()
        expected = outcome(line_by_line.read_runs, data, "g.trec")
        assert expected[0] == "error"
        assert outcome(runs_as_lists, data, "g.trec") == outcome(from_path(tmp_path), data, "g.trec") == expected


@pytest.mark.parametrize("late", [b"\xff", b"\x00"])
def test_a_late_byte_that_is_not_text_comes_before_an_early_bad_line(late, monkeypatch, tmp_path):
    """As when the whole file is decoded first: bad UTF-8 anywhere, then a NUL anywhere, then the lines."""
    monkeypatch.setattr(runs, "RUN_PIECE_BYTES", 1000)
    lines = generated_run(4, queries=50, depth=20).decode().splitlines(keepends=True)
    data = ("q Q0 d 1\n" + "".join(lines[1:900])).encode() + late + b"\n" + "".join(lines[900:]).encode()
    expected = outcome(line_by_line.read_runs, data, "g.trec")
    assert expected[0] == "error" and expected[2] == 901
    assert outcome(runs_as_lists, data, "g.trec") == outcome(from_path(tmp_path), data, "g.trec") == expected


def test_a_run_in_pieces_keeps_to_the_byte_budget(monkeypatch, tmp_path):
    monkeypatch.setattr(runs, "RUN_PIECE_BYTES", 256)
    path = tmp_path / "g.trec"
    path.write_bytes(generated_run(2, queries=20, depth=10))
    monkeypatch.setenv(INPUT_BUDGET_VARIABLE, str(path.stat().st_size - 1))
    with pytest.raises(InputError, match=r"g.trec: expected at most [0-9,]+ bytes .*--max-input-bytes"):
        read_runs(path)
    monkeypatch.setenv(INPUT_BUDGET_VARIABLE, str(path.stat().st_size))
    assert len(read_runs(path)[0].rankings) == 20
    # A file larger than its size said (it grew after the check) is stopped while it is read.
    monkeypatch.setattr(files, "open_regular", lambda path, display, budget: (open(path, "rb"), 0))
    monkeypatch.setenv(INPUT_BUDGET_VARIABLE, "1000")
    with pytest.raises(InputError, match="g.trec: expected at most 1,000 bytes"):
        read_runs(path)


def test_progress_rises_piece_by_piece_to_the_end(monkeypatch):
    monkeypatch.setattr(runs, "RUN_PIECE_BYTES", 4096)
    seen: list[float] = []
    read_runs(generated_run(6, queries=50, depth=20), "g.trec", progress=lambda fraction, _: seen.append(fraction))
    reading = [fraction for fraction in seen if fraction < 0.9]
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(reading) >= 5


def test_pieces_still_held_are_never_overwritten(tmp_path):
    """The reader reuses a piece's memory only once nobody holds it: pieces kept stay as they were read."""
    data = generated_run(8, queries=30, depth=10)
    path = tmp_path / "g.trec"
    path.write_bytes(data)
    _, _, pieces = files.checked_pieces(str(path), None, files.DEFAULT_MAX_RUN_BYTES, 100)
    kept = [(bytes(piece), piece) for piece, _, _ in pieces]
    assert all(copy == piece for copy, piece in kept) and b"".join(copy for copy, _ in kept) == data
    released = []
    for piece, line, _ in files.checked_pieces(str(path), None, files.DEFAULT_MAX_RUN_BYTES, 100)[2]:
        released.append((bytes(piece), line))
        del piece
    assert [copy for copy, _ in released] == [copy for copy, _ in kept]
    assert [line for _, line in released] == [1 + data.count(b"\n", 0, sum(map(len, (c for c, _ in kept[:i]))))
                                               for i in range(len(kept))]
