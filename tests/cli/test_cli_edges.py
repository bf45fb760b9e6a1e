"""Odd options and option combinations found by the hostile-input hunt: each is one line naming what is wrong,
or is read as the user meant."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evalcore.cli import build_parser, main
from evalcore.errors import CBIRLensError, InputError, ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.qrels import graded_judgments
from evalcore.evaluation.retrieval import MAX_SVD_DIMENSIONS, tfidf_matrix
from evalcore.io.loading import kg_names_file
from evalcore.readers import read_concepts, read_qrels, read_runs
from evalcore.relevance.measures import nn_iou_measure, parse_measure
from tests.conftest import DEMO, ROOT, cli_refusal

DEMO_RUNS = sorted(str(p) for p in (DEMO / "runs").glob("*.trec"))
CONCEPTS = str(DEMO / "concepts.csv")
KG = str(DEMO / "kg_edges.csv")


@pytest.mark.subprocess
@pytest.mark.parametrize("repeated", [["--concepts", CONCEPTS], ["--json", "b.json"], ["--alpha", "0.1"],
                                      ["--k", "10"], ["--labels", str(DEMO / "labels.csv")], ["--workers", "1"]])
def test_a_single_valued_option_given_twice_is_refused(tmp_path, capsys, repeated):
    argv = ["evaluate", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--json", str(tmp_path / "a.json"),
            "--alpha", "0.5", "--k", "5", "--labels", str(DEMO / "labels.csv"), "--workers", "1", *repeated]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    error = capsys.readouterr().err
    assert error == f"error: python -m evalcore evaluate: {repeated[0]} is given twice; give it once (see --help)\n"


def test_repeatable_options_stay_repeatable(tmp_path):
    assert main(["evaluate", "--concepts", CONCEPTS, "--kg", str(DEMO / "kg_edges.csv"), "--run", DEMO_RUNS[0],
                 "--run", DEMO_RUNS[1], "--k", "5", "10", "--json", str(tmp_path / "a.json")]) == 0


def test_an_empty_measure_is_refused_not_taken_for_the_default(tmp_path, capsys):
    error = cli_refusal(["retrieve", "--concepts", CONCEPTS, "--measure", "", "--out", str(tmp_path / "r.trec")], capsys)
    assert "cannot read the relevance measure ''" in error


def test_concept_relevance_options_with_qrels_are_refused(tmp_path, capsys):
    qrels = tmp_path / "q.txt"
    assert main(["qrels", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--k", "5", "--out", str(qrels)]) == 0
    capsys.readouterr()
    for extra in (["--measure", "dice"], ["--kg", str(DEMO / "kg_edges.csv")]):
        error = cli_refusal(["evaluate", "--qrels", str(qrels), "--run", DEMO_RUNS[0], "--json", str(tmp_path / "a.json"),
                          *extra], capsys)
        assert "--measure and --kg choose concept relevance, which --qrels replaces" in error


def test_a_run_without_a_judged_query_is_refused_under_qrels(tmp_path, capsys):
    qrels = tmp_path / "q.txt"
    qrels.write_text("elsewhere 0 DEMO_00001 1\n")
    error = cli_refusal(["evaluate", "--qrels", str(qrels), "--run", DEMO_RUNS[0], "--json", str(tmp_path / "a.json")],
                     capsys)
    assert f"expected query IDs that have judgments in {qrels}" in error and "none of its 2,000 queries does" in error
    with pytest.raises(InputError, match="none of its"):
        Evaluator(None, qrels=read_qrels(qrels)).evaluate([read_runs(DEMO_RUNS[0])[0]], ["qrels-NDCG@10"], Relevance.of(0.5, 1))


@pytest.mark.parametrize("option, value, expected", [
    ("--alpha", "1.5", "error: --alpha must lie in [0, 1], got 1.5"),
    ("--n", "-5", "error: --n must be an integer in 0..6 (the distance threshold, in KG hops), got -5")])
def test_detection_checks_alpha_and_n_without_a_kg_too(tmp_path, capsys, option, value, expected):
    error = cli_refusal(["detection", "--gt", CONCEPTS, "--pred", CONCEPTS, option, value, "--json",
                      str(tmp_path / "d.json")], capsys)
    assert expected in error


@pytest.mark.parametrize("options, named", [(["--alpha", "0.3"], "--alpha sets"),
                                            (["--n", "2", "--kg-mode", "directed"], "--n and --kg-mode set")])
def test_detection_refuses_soft_f1_options_without_a_kg(tmp_path, capsys, options, named):
    """Was silent: --alpha, --n and --kg-mode without --kg gave a JSON without a soft F1 at exit 0."""
    out = tmp_path / "d.json"
    error = cli_refusal(["detection", "--gt", CONCEPTS, "--pred", CONCEPTS, *options, "--json", str(out)], capsys)
    assert f"error: {named} the soft F1, which needs a knowledge graph: add --kg FILE" in error
    assert not out.exists()
    assert main(["detection", "--gt", CONCEPTS, "--pred", CONCEPTS, *options, "--kg", KG, "--json", str(out)]) == 0
    params = json.loads(out.read_text())["soft_params"]
    assert params == {"alpha": 0.3, "n": 1, "kg_mode": "undirected"} if "--alpha" in options else \
        params == {"alpha": 0.5, "n": 2, "kg_mode": "directed"}


def test_detection_says_why_the_secondary_f1_is_undefined(tmp_path, capsys):
    """Was silent: a subset of no ground-truth concept gave f1_secondary null without a word."""
    subset = tmp_path / "subset.txt"
    subset.write_text("C9999999\n")
    out = tmp_path / "d.json"
    assert main(["detection", "--gt", CONCEPTS, "--pred", CONCEPTS, "--subset", str(subset), "--json", str(out)]) == 0
    assert json.loads(out.read_text())["f1_secondary"] is None
    assert "note: the secondary F1 is undefined: no image of the ground truth has a concept of the subset" in \
        capsys.readouterr().err
    subset.write_text(f"C9999999\n{sorted(read_concepts(CONCEPTS).vocabulary)[0]}\n")
    assert main(["detection", "--gt", CONCEPTS, "--pred", CONCEPTS, "--subset", str(subset), "--json", str(out)]) == 0
    assert json.loads(out.read_text())["f1_secondary"] == 1.0
    assert "secondary F1 is undefined" not in capsys.readouterr().err


def test_qrels_checks_n(tmp_path, capsys):
    error = cli_refusal(["qrels", "--concepts", CONCEPTS, "--kg", str(DEMO / "kg_edges.csv"), "--run", DEMO_RUNS[0],
                      "--n", "-1", "--out", str(tmp_path / "q.txt")], capsys)
    assert error.startswith("error: --n must be an integer in 0..6 (the distance threshold, in KG hops), got -1")
    with pytest.raises(CBIRLensError, match=r"^n must be an integer in 0..6 \(the distance threshold, in KG hops\), got 7$"):
        graded_judgments(Evaluator(read_concepts(CONCEPTS)), read_runs(DEMO_RUNS[0]), 5, nn_iou_measure(0.5, 7))


def test_the_names_file_beside_a_kg_is_looked_for_beside_it_only(tmp_path):
    (tmp_path / "my_edges").mkdir()
    (tmp_path / "my_names").mkdir()
    edges = tmp_path / "my_edges" / "kg.csv"
    edges.write_text("child,parent\nC0042449,C0005847\n")
    (tmp_path / "my_names" / "kg.csv").write_bytes(b"\0\0 not a names file")
    assert kg_names_file(edges) is None
    beside = tmp_path / "my_edges" / "open_kg_edges.csv"
    beside.write_text("child,parent\nC0042449,C0005847\n")
    (tmp_path / "my_edges" / "open_kg_names.csv").write_text("id,name\nC0042449,Veins\n")
    assert kg_names_file(beside) == tmp_path / "my_edges" / "open_kg_names.csv"


def test_captions_that_fit_no_image_are_named_and_explained(tmp_path, capsys):
    captions = tmp_path / "captions.csv"
    captions.write_text('ID,Caption\nelsewhere,"CT of the chest"\n')
    error = cli_refusal(["retrieve", "--concepts", CONCEPTS, "--by", "embeddings", "--captions", str(captions),
                      "--out", str(tmp_path / "r.trec")], capsys)
    assert error.startswith(f"error: {captions}: expected captions with words for the images to rank, found that none "
                            "of its 1 captions belongs to one of the 2,000 images")
    for words in ("1 2 .", "the", "Figure 2: arrows"):
        with pytest.raises(CBIRLensError, match=r"hold no word of two letters or more but those left out as every "
                                                r"caption's \('the', 'of', 'figure', 'arrow', ...\)$"):
            tfidf_matrix({"a": words}, ("a",))


def test_svd_dimensions_are_bounded(tmp_path, capsys):
    error = cli_refusal(["retrieve", "--concepts", CONCEPTS, "--by", "embeddings", "--captions", str(DEMO / "captions.csv"),
                      "--svd-dims", str(MAX_SVD_DIMENSIONS + 1), "--out", str(tmp_path / "r.trec")], capsys)
    assert f"--svd-dims: expected 0 (no reduction) or a number of dimensions up to {MAX_SVD_DIMENSIONS:,}" in error


@pytest.mark.parametrize("budget", ["1_000", "١٠", "1e3", "1 000", "1" + "0" * 19])
def test_the_input_budget_takes_plain_digits(capsys, budget):
    with pytest.raises(SystemExit):
        main(["--max-input-bytes", budget, "evaluate", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--json", "x.json"])
    assert (f"argument --max-input-bytes: expected a whole number in digits 0-9 such as 10 (at most 10^18), found "
            f"{budget!r}") in capsys.readouterr().err


@pytest.mark.parametrize("kg", ["", ".", "/"])
def test_a_kg_path_without_a_file_name_is_refused_in_one_line(tmp_path, capsys, kg):
    """Was a ValueError traceback: the names file beside the KG is derived from a file name these paths lack."""
    error = cli_refusal(["evaluate", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--kg", kg, "--json",
                      str(tmp_path / "a.json")], capsys)
    assert error == ("error: an input option was given an empty path (''): expected a file path; leave the option out "
                     "to give none\n" if kg == "" else f"error: {kg}: expected a regular file, found a directory\n")


@pytest.mark.parametrize("argv", [
    ["evaluate", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--labels", "", "--json", "{out}"],  # was ignored
    ["evaluate", "--concepts", CONCEPTS, "--run", "", "--json", "{out}"],  # was "error: : expected a regular file"
    ["compare", "--concepts", CONCEPTS, "--run", *DEMO_RUNS[:2], "--labels", "", "--metric", "CUI@5", "--json", "{out}"],
    ["relevance", "--concepts", CONCEPTS, "--pairs", "", "--out", "{out}"],
    ["detection", "--gt", "", "--pred", CONCEPTS, "--json", "{out}"],
    ["qrels", "--concepts", CONCEPTS, "--run", "", "--out", "{out}"],
    ["check", "--concepts", ""],  # was "error: : expected a regular file, found a directory"
    ["check", "--demo", "--labels", ""],  # was ignored
    ["check", "--demo", "--kg", ""],
])
def test_an_empty_input_path_is_refused_not_read_as_the_working_folder_or_ignored(tmp_path, capsys, argv):
    out = str(tmp_path / "out")
    error = cli_refusal([out if a == "{out}" else a for a in argv], capsys)
    assert error == ("error: an input option was given an empty path (''): expected a file path; leave the option "
                     "out to give none\n")
    assert not (tmp_path / "out").exists()


# --- numeric options: plain ASCII decimal syntax, as in the input files --------------------------------------------

OUT = "never-written.json"
REQUIRED = {
    "relevance": ["--concepts", CONCEPTS, "--pairs", CONCEPTS, "--out", OUT],
    "evaluate": ["--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--json", OUT],
    "retrieve": ["--concepts", CONCEPTS, "--by", "iou", "--out", OUT],
    "detection": ["--gt", CONCEPTS, "--pred", CONCEPTS, "--json", OUT],
    "compare": ["--concepts", CONCEPTS, "--run", *DEMO_RUNS[:2], "--metric", "CUI@5", "--json", OUT],
    "qrels": ["--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--out", OUT],
    "report": ["--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--out", "never-written.html"],
    "extract": ["--captions", CONCEPTS, "--names", CONCEPTS, "--out", OUT],
    "agreement": ["--concepts", CONCEPTS, "--judgments", CONCEPTS, "--measure", "iou", "--json", OUT],
}
WHOLE_NUMBER_OPTIONS = {
    "relevance": ["--n"], "detection": ["--n"], "qrels": ["--n", "--workers", "--k"],
    "evaluate": ["--n", "--workers", "--k", "--relevance-level"], "retrieve": ["--n", "--workers", "--svd-dims", "--depth"],
    "compare": ["--n", "--workers", "--bootstrap-samples", "--randomization-samples", "--seed"],
    "report": ["--n", "--workers", "--k", "--relevance-level"],  # evaluate's options, one definition
    "extract": ["--workers"],
    "agreement": ["--folds", "--bootstrap-samples", "--seed"],
}
NUMBER_OPTIONS = {"relevance": ["--alpha"], "detection": ["--alpha"], "qrels": ["--alpha"], "retrieve": ["--alpha"],
                  "evaluate": ["--alpha", "--threshold"], "compare": ["--alpha", "--threshold", "--confidence"],
                  "report": ["--alpha", "--threshold"], "agreement": ["--confidence"]}
# int() and float() read all of these but the inner spaces and line breaks as numbers (١٠ and 0_1 as 10 and 1).
NOT_WHOLE_NUMBERS = ["١", "١٠", "0_1", "\u0967", "１", "1 0", "1\n0"]
NOT_NUMBERS = ["٠.٥", "0_5", "0.5_0", "0 .5", "inf", "-inf", "nan", "1e999", "Infinity"]


def _numeric_cases(options: dict[str, list[str]], values: list[str]) -> list[tuple[str, str, str]]:
    return [(command, option, value) for command, names in options.items() for option in names for value in values]


@pytest.mark.parametrize("command, option, value", _numeric_cases(WHOLE_NUMBER_OPTIONS, NOT_WHOLE_NUMBERS)
                         + _numeric_cases(NUMBER_OPTIONS, NOT_NUMBERS))
def test_numeric_options_take_plain_ascii_decimals_only(tmp_path, monkeypatch, capsys, command, option, value):
    """Was accepted: argparse's int() and float() read other scripts' digits (--k ١٠ was 10), underscores, inf and
    nan, where --memory-per-worker, --max-input-bytes, metric names and every input file refuse them."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main([command, *REQUIRED[command], f"{option}={value}"])  # = : "-inf" is no option
    assert stop.value.code == 2
    error = capsys.readouterr().err
    expected = ("a whole number in digits 0-9 such as 10 (at most 10^18)" if option in WHOLE_NUMBER_OPTIONS[command]
                else "a finite number in digits 0-9 such as 0.5 or 1e-3")
    assert error == f"error: python -m evalcore {command}: argument {option}: expected {expected}, found {value!r} (see --help)\n"
    assert not (tmp_path / OUT).exists()


def test_every_numeric_option_is_read_by_the_plain_decimal_parsers():
    """No option reads numbers with int() or float(): the lists above name every numeric option there is."""
    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    typed = {(name, option): action.type.__name__ for name, sub in commands.items() for action in sub._actions
             if action.type is not None for option in action.option_strings if option.startswith("--")}
    assert typed == {**{(c, o): "integer" for c, options in WHOLE_NUMBER_OPTIONS.items() for o in options},
                     **{(c, o): "number" for c, options in NUMBER_OPTIONS.items() for o in options},
                     ("evaluate", "--memory-per-worker"): "memory_size", ("retrieve", "--memory-per-worker"): "memory_size",
                     ("compare", "--memory-per-worker"): "memory_size", ("qrels", "--memory-per-worker"): "memory_size",
                     ("report", "--memory-per-worker"): "memory_size"}


@pytest.mark.parametrize("k, alpha", [("+5", "+.5"), (" 5 ", " 0.5 "), ("05", "5e-1")])
def test_numeric_options_keep_their_plain_forms(tmp_path, k, alpha):
    """A sign, a leading zero, an exponent and spaces around the number stay readable, as int() and float() read them."""
    out = tmp_path / "a.json"
    assert main(["evaluate", "--concepts", CONCEPTS, "--kg", KG, "--run", DEMO_RUNS[0], "--json", str(out), f"--k={k}",
                 f"--alpha={alpha}"]) == 0
    params = json.loads(out.read_text())["params"]
    assert (params["k"], params["alpha"]) == ([5], 0.5)


@pytest.mark.parametrize("value", ["٠.٧", "0_7", "inf", "nan", "1e999"])
def test_measure_parameters_take_plain_ascii_decimals_only(value):
    """Was accepted: 'tversky(a=٠.٧)' read as a = 0.7, 'tversky(a=0_7)' as a = 7."""
    with pytest.raises(ParameterError, match=f"tversky: a must be a number in digits 0-9 such as 0.5 \\(finite\\), "
                                             f"got {value!r}"):
        parse_measure(f"tversky(a={value})")


# --- list options: each value once ---------------------------------------------------------------------------------



@pytest.mark.parametrize("command, given, option, shown, earlier", [
    ("evaluate", ["--k", "5", "5"], "--k", "5", None),
    ("evaluate", ["--k", "5", "10", "05"], "--k", "5", None),
    ("evaluate", ["--metrics", "CUI@5", "nn-CUI@5", "CUI@5"], "--metrics", "'CUI@5'", None),
    ("evaluate", ["--metrics", "nn-CUI@5", "CUI@5{nn-iou}"], "--metrics", "'CUI@5{nn-iou}'", "'nn-CUI@5'"),
    ("compare", ["--metric", "CUI@5", "CUI@5"], "--metric", "'CUI@5'", None),
    ("compare", ["--metric", "CUI@5", "--metric", "MAP@5", "CUI@5"], "--metric", "'CUI@5'", None),
    ("evaluate", ["--run", DEMO_RUNS[0]], "--run", repr(DEMO_RUNS[0]), None),
    ("evaluate", ["--run", DEMO_RUNS[1], DEMO_RUNS[1] + "/../" + DEMO_RUNS[1].rsplit("/", 1)[1]], "--run",
     repr(DEMO_RUNS[1] + "/../" + DEMO_RUNS[1].rsplit("/", 1)[1]), repr(DEMO_RUNS[1])),
    ("qrels", ["--run", DEMO_RUNS[0]], "--run", repr(DEMO_RUNS[0]), None),
    ("compare", ["--run", DEMO_RUNS[0]], "--run", repr(DEMO_RUNS[0]), None),
    ("evaluate", ["--kg", KG, "--kg", KG], "--kg", repr(KG), None),
    ("detection", ["--kg", KG, "--kg", KG], "--kg", repr(KG), None),
    ("evaluate", ["--kg", KG, "--kg-source", "a", "--kg-source", "a"], "--kg-source", "'a'", None),
    ("check", ["--run", DEMO_RUNS[0], DEMO_RUNS[0]], "--run", repr(DEMO_RUNS[0]), None),
    ("check", ["--kg", KG, KG], "--kg", repr(KG), None),
])
def test_a_list_option_naming_one_value_twice_is_refused(tmp_path, monkeypatch, capsys, command, given, option, shown,
                                                        earlier):
    """Was computed and printed twice (--k 10 10, --metrics X X), silently dropped (compare --metric X X) or refused
    only after reading the inputs (one run twice: two systems of one name)."""
    monkeypatch.chdir(tmp_path)
    required = ["--concepts", CONCEPTS] if command == "check" else REQUIRED[command]
    with pytest.raises(SystemExit) as stop:
        main([command, *required, *given])
    assert stop.value.code == 2
    also = f" (the same as {earlier})" if earlier else ""
    assert capsys.readouterr().err == (f"error: python -m evalcore {command}: {option}: {shown} is given twice{also}; "
                                       "give each value once (see --help)\n")
    assert not (tmp_path / OUT).exists()


@pytest.mark.subprocess
def test_a_full_standard_output_ends_in_one_line_naming_it() -> None:
    """``evaluate ... > /dev/full``: the table cannot be printed; one line says it was the standard output (it said
    ": No space left on device", naming nothing)."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "--concepts", CONCEPTS, "--run",
                               DEMO_RUNS[0], "--metrics", "CUI@10"], cwd=ROOT, stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=120)
    errors = [line for line in done.stderr.splitlines() if not line.startswith("note:")]
    assert (done.returncode, errors) == (2, ["error: could not write to the standard output (No space left on device)"])


def test_compare_says_a_pair_is_compared_on_the_queries_both_systems_scored(tmp_path, capsys) -> None:
    """Two runs over 100 and 1 queries: the pair's difference is over the one query both scored, not the difference
    of the means printed above it, and the terminal says so (the JSON's "queries" did)."""
    lines = (DEMO / "runs" / "overlap-noisy.trec").read_text().splitlines()
    (tmp_path / "a.trec").write_text("\n".join(lines[:1000]) + "\n")
    first_query = [line for line in lines if line.split()[0] == lines[0].split()[0]]
    (tmp_path / "b.trec").write_text("".join(line.replace("overlap-noisy", "one") + "\n" for line in first_query))
    assert main(["compare", "--concepts", CONCEPTS, "--run", str(tmp_path / "a.trec"), str(tmp_path / "b.trec"),
                 "--metric", "CUI@10", "--json", str(tmp_path / "c.json")]) == 0
    err = capsys.readouterr().err
    assert ", 1 query\n" in err and "  overlap-noisy - one: +" in err
    assert "over the 1 query both scored, randomization p" in err
    assert json.loads((tmp_path / "c.json").read_text())["comparisons"]["CUI@10"][0]["queries"] == 1


def test_ids_without_a_concept_set_get_a_note_naming_their_counts(tmp_path, capsys) -> None:
    """A run query and a retrieved image without a concept set move the scores (the query is left out, the image is
    not relevant): the terminal says how many, not only the JSON's counts."""
    lines = (DEMO / "runs" / "overlap-noisy.trec").read_text().splitlines()[:40]
    query = lines[0].split()[0]
    run = tmp_path / "run.trec"
    run.write_text("\n".join([*lines, "NOPE_Q Q0 DEMO_00002 1 1.0 overlap-noisy",
                              f"{query} Q0 NOPE_1 99 0.0001 overlap-noisy", f"{query} Q0 NOPE_2 98 0.0002 overlap-noisy"])
                   + "\n")
    assert main(["evaluate", "--concepts", CONCEPTS, "--run", str(run), "--metrics", "CUI@10"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "concept set" in line]
    queries = len({line.split()[0] for line in lines}) + 1
    assert notes == [f"note: system 'overlap-noisy': 1 of {queries} queries have no concept set and are left out; 2 "
                     "retrieved images have none and count as not relevant (the JSON's counts: queries_unknown, "
                     "retrieved_unknown_ids)"]
    assert main(["evaluate", "--concepts", CONCEPTS, "--run", DEMO_RUNS[0], "--metrics", "CUI@10"]) == 0
    assert "concept set" not in capsys.readouterr().err
