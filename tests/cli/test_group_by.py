"""``--group-by`` of evaluate and compare (issue 67, "Results by group"): the scores by group in the JSON, in
--group-csv and on the terminal, and each refusal in one line, before any work."""

from __future__ import annotations

import csv
import json
import subprocess
import sys

import pytest

from evalcore.cli import main
from tests.conftest import ROOT, cli_refusal


@pytest.fixture
def world(tmp_path):
    (tmp_path / "gt.csv").write_text("ID,CUIs\nq1,C0000001;C0000002\nq2,C0000001\nq3,C0000002;C0000003;C0000004\n"
                                     "q4,C0000003\nx,C0000001;C0000002\ny,C0000003\n")
    (tmp_path / "labels.csv").write_text("ID,modality,organ\nq1,CT,chest\nq2,CT,\nq3,MRI,head\nq4,,head\n")
    (tmp_path / "a.trec").write_text("".join(f"{q} Q0 {d} {r} {3 - r} A\n" for q in ("q1", "q2", "q3", "q4")
                                             for r, d in enumerate(("x", "y"), start=1)))
    (tmp_path / "b.trec").write_text("".join(f"{q} Q0 {d} {r} {3 - r} B\n" for q in ("q1", "q2", "q3", "q4")
                                             for r, d in enumerate(("y", "x"), start=1)))
    (tmp_path / "attributes.tsv").write_text("query_id\tsite\nq1\tLyon\nq2\tParis\nq3\tLyon\nzz\tParis\n")
    return tmp_path


def common(world) -> list[str]:
    return ["--concepts", str(world / "gt.csv"), "--run", str(world / "a.trec"), str(world / "b.trec")]


def test_evaluate_writes_the_groups_in_its_json_and_csv(world):
    out = world / "r.json"
    assert main(["evaluate", *common(world), "--labels", str(world / "labels.csv"), "--metrics", "CUI@1", "CUI@2",
                 "--group-by", "modality", "--json", str(out), "--group-csv", str(world / "g.csv")]) == 0
    payload = json.loads(out.read_text())
    groups = payload["groups"]
    assert groups["by"] == "modality" and groups["groups"] == ["CT", "MRI", "(none)"]
    assert (groups["queries"], groups["without_group"], groups["unknown_ids"]) == (4, 1, 0)
    rows = groups["means"]["CUI@1"]
    assert [(row["group"], row["system"], row["queries"]) for row in rows] == [
        ("CT", "A", 2), ("CT", "B", 2), ("MRI", "A", 1), ("MRI", "B", 1), ("(none)", "A", 1), ("(none)", "B", 1)]
    for system in ("A", "B"):  # the groups' means weighted by their queries: the system's mean
        mine = [row for row in rows if row["system"] == system]
        weighted = sum(row["mean"] * row["queries"] for row in mine) / sum(row["queries"] for row in mine)
        assert weighted == pytest.approx(payload["systems"][system]["CUI@1"])
    assert "comparisons" not in groups  # evaluate tests nothing
    table = list(csv.DictReader(open(world / "g.csv")))
    assert list(table[0]) == ["metric", "group", "system", "queries", "mean", "ci_low", "ci_high"]
    assert len(table) == 12 and {row["metric"] for row in table} == {"CUI@1", "CUI@2"}


def test_evaluate_without_json_prints_the_groups_beneath_its_table(world, capsys):
    assert main(["evaluate", *common(world), "--metrics", "CUI@1", "--group-by", "concepts"]) == 0
    out = capsys.readouterr().out
    assert "\nBy concepts:\n| metric | concepts | system | queries |" in out
    assert "| CUI@1  | 1        | A      |       2 |" in out


def test_compare_tests_every_pair_per_group_and_reports_unknown_ids(world, capsys):
    out = world / "c.json"
    assert main(["compare", *common(world), "--metric", "CUI@1", "--group-by", f"{world / 'attributes.tsv'}:site",
                 "--json", str(out), "--randomization-samples", "100", "--bootstrap-samples", "100"]) == 0
    err = capsys.readouterr().err
    groups = json.loads(out.read_text())["groups"]
    assert groups["groups"] == ["Lyon", "Paris", "(none)"]
    assert (groups["unknown_ids"], groups["unknown_examples"], groups["without_group"]) == (1, ["zz"], 1)
    pairs = groups["comparisons"]["CUI@1"]
    assert [(row["group"], row["system_a"], row["system_b"], row["queries"]) for row in pairs] == [
        ("Lyon", "A", "B", 2), ("Paris", "A", "B", 1), ("(none)", "A", "B", 1)]
    for row in pairs:
        assert row["p_randomization_holm"] >= row["p_randomization"]
    assert "note: --group-by" in err and "1 ID of the file is no query of the runs (zz); left out" in err
    assert "p-values Holm-corrected across the groups" in err and "    Lyon: A " in err


@pytest.mark.parametrize("content, said", [
    ("query_id\tsite\nq1\tLyon\nq2\n", "attributes.tsv, line 3: expected 2 fields (query_id\\tsite), an empty one for "
                                       "no value, found 1 field"),
    ("query_id\tsite\nq1\tLyon\nq1\tParis\n", "attributes.tsv, line 3: expected a query ID listed once, found 'q1' again"),
    ("query_id\tsite\n", "attributes.tsv: expected a row after the header, found a header-only file"),
])
def test_a_malformed_attributes_file_is_refused_in_one_line_naming_file_and_line(world, capsys, content, said):
    (world / "attributes.tsv").write_text(content)
    error = cli_refusal(["evaluate", *common(world), "--group-by", f"{world / 'attributes.tsv'}:site", "--json",
                         str(world / "r.json")], capsys)
    assert error.startswith(f"error: {world / said}"), error
    assert not (world / "r.json").exists()


def test_an_unknown_column_is_refused_naming_the_file_its_header_line_and_its_columns(world, capsys):
    error = cli_refusal(["compare", *common(world), "--metric", "CUI@1", "--group-by",
                         f"{world / 'attributes.tsv'}:hospital", "--json", str(world / "c.json")], capsys)
    assert error == (f"error: {world / 'attributes.tsv'}, line 1: expected a column named 'hospital', found the "
                     "attribute columns site\n")


@pytest.mark.parametrize("extra, said", [
    (["--group-by", "scanner"], "error: group by: expected modality, organ, concepts or FILE:COLUMN (a query "
                                "attributes file and one of its columns), found 'scanner'\n"),
    (["--group-by", "organ"], "error: --group-by organ reads each query's organ from the images' labels: add --labels F "
                              "(ID,modality,organ or kind,class,CUI)\n"),
    (["--group-csv", "g.csv"], "error: --group-csv writes the scores by group: add --group-by BY, or leave it out\n"),
    (["--group-by", "modality", "--labels", "modality-only.csv"],
     "error: --group-by modality: modality-only.csv has no modality labels; it has organ\n"),
])
def test_a_group_by_that_cannot_be_read_is_refused_in_one_line(world, capsys, monkeypatch, extra, said):
    monkeypatch.chdir(world)
    (world / "modality-only.csv").write_text("ID,organ\nq1,chest\n")
    assert cli_refusal(["evaluate", *common(world), *extra, "--json", "r.json"], capsys) == said


def test_the_group_csv_may_not_overwrite_the_attributes_file_or_the_json(world, capsys):
    attributes = world / "attributes.tsv"
    error = cli_refusal(["compare", *common(world), "--metric", "CUI@1", "--group-by", f"{attributes}:site",
                         "--json", str(world / "c.json"), "--group-csv", str(attributes)], capsys)
    assert error.startswith(f"error: --group-csv {attributes}: expected an output path that is not one of the inputs")
    error = cli_refusal(["compare", *common(world), "--metric", "CUI@1", "--group-by", "concepts",
                         "--json", str(world / "c.json"), "--group-csv", str(world / "c.json")], capsys)
    assert "expected a path of its own, found the same file as --json" in error


@pytest.mark.subprocess
@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_a_failed_json_write_leaves_the_earlier_group_csv_too(world, command) -> None:
    """The scores by group and the JSON replace the earlier files together or not at all: with the JSON over the
    file size limit, the command fails and both earlier files are left as they were (not a new --group-csv beside
    an old --json, one command's files from two runs). The CSVs are a few hundred bytes, the JSONs several KB."""
    earlier = b"an earlier result that a failed command must leave alone\n"
    for name in ("g.csv", "q.csv", "e.json"):
        (world / name).write_bytes(earlier)
    argv = [command, *common(world), "--metric" if command == "compare" else "--metrics", "CUI@1", "--group-by",
            "modality", "--labels", str(world / "labels.csv"), "--group-csv", str(world / "g.csv"),
            "--json", str(world / "e.json")] + (["--per-query", str(world / "q.csv")] if command == "evaluate" else [])
    # The child limits its own file size, then runs the command line as `python -m evalcore` does (a preexec_fn would
    # fork this test process, which may hold JAX's threads).
    limited = ("import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048)); "
               "sys.argv[0] = 'evalcore'; runpy.run_module('evalcore', run_name='__main__', alter_sys=True)")
    done = subprocess.run([sys.executable, "-c", limited, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "e.json: could not write the output file" in done.stderr, done.stderr
    assert [(world / name).read_bytes() for name in ("g.csv", "q.csv", "e.json")] == [earlier] * 3
    assert not [path.name for path in world.iterdir() if path.name.startswith(".")]  # no temporary left beside them
