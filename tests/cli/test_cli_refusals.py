"""Options that nothing would read, and messages that named what was not there, found by the hostile-input hunt:
each option is refused in one line naming it (and what would read it), each message names what the command has."""

from __future__ import annotations

import json

import pytest

from evalcore.cli import build_parser, main
from evalcore.cli.commands import RETRIEVE_OPTIONS
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import MAX_CUTOFFS, MAX_METRICS, Scoring, Statistics
from evalcore.io.tables import shown_percent
from evalcore.readers import read_concepts, read_runs
from tests.conftest import DEMO, cli_refusal

CONCEPTS = str(DEMO / "concepts.csv")
KG = str(DEMO / "kg_edges.csv")
CAPTIONS = str(DEMO / "captions.csv")
DEMO_RUN = str(DEMO / "runs" / "overlap-noisy.trec")


@pytest.fixture
def tiny(tmp_path):
    """Four images, a run with two systems, labels with an organ but no modality for any image."""
    (tmp_path / "c.csv").write_text("ID,CUIs\na,C0000001;C0000002\nb,C0000001\nc,C0000002\nd,C0000003\n")
    lists = {"s": {"a": "bcd", "b": "acd"}, "t": {"a": "bcd", "b": "dca"}}
    (tmp_path / "r.trec").write_text("".join(f"{query} Q0 {image} {rank} {5 - rank} {tag}\n"
                                             for tag, queries in lists.items() for query, ranked in queries.items()
                                             for rank, image in enumerate(ranked, start=1)))
    (tmp_path / "labels.csv").write_text("ID,modality,organ\na,,chest\nb,,chest\nc,,head\nd,,head\n")
    (tmp_path / "modality.csv").write_text("ID,modality\na,CT\nb,CT\nc,MR\nd,MR\n")
    (tmp_path / "q.txt").write_text("a 0 b 1\nb 0 a 2\n")
    return tmp_path


# --- 2. retrieve: an option the chosen way of ranking does not read ---------------------------------------------

@pytest.mark.parametrize("way, extra, said", [
    (["--by", "iou"], ["--embeddings", "nowhere.npy", "--svd-dims", "5"],
     "--embeddings and --svd-dims are not read by --by iou: leave them out"),
    (["--by", "iou"], ["--kg", KG, "--alpha", "0.9", "--n", "3"],
     "--kg, --alpha and --n are not read by --by iou: leave them out (--kg is read by --by nn-iou)"),
    (["--by", "iou"], ["--captions", CAPTIONS], "--captions is not read by --by iou: leave it out"),
    (["--by", "nn-iou"], ["--kg", KG, "--svd-dims", "5"], "--svd-dims is not read by --by nn-iou"),
    (["--by", "embeddings", "--embeddings", "vectors.csv"], ["--captions", CAPTIONS, "--svd-dims", "7"],
     "--captions and --svd-dims are not read by --by embeddings --embeddings F.csv/.parquet"),
    (["--by", "embeddings", "--embeddings", "vectors.parquet"], ["--embedding-ids", "ids.txt"],
     "--embedding-ids is not read by --by embeddings --embeddings F.csv/.parquet: leave it out (--embedding-ids is "
     "read by --by embeddings --embeddings F.npy)"),
    (["--by", "embeddings", "--captions", CAPTIONS], ["--embedding-ids", "ids.txt"],
     "--embedding-ids is not read by --by embeddings --captions F"),
    (["--by", "embeddings", "--captions", CAPTIONS], ["--workers", "2", "--backend", "numpy"],
     "--workers and --backend are not read by --by embeddings --captions F"),
    (["--measure", "dice"], ["--kg", KG], "--kg is not read by --measure dice: leave it out"),
    (["--measure", "nn-iou(alpha=0.3)"], ["--kg", KG, "--alpha", "0.9"],
     "--alpha is not read by --measure nn-iou(alpha=0.3): leave it out"),
])
def test_retrieve_refuses_an_option_its_way_of_ranking_does_not_read(tmp_path, capsys, way, extra, said):
    """Was: ignored at exit 0 (--by iou --kg F --alpha 0.9 wrote IoU's run; the .npy file need not even exist)."""
    out = tmp_path / "r.trec"
    error = cli_refusal(["retrieve", "--concepts", CONCEPTS, *way, *extra, "--out", str(out)], capsys)
    assert error.startswith(f"error: {said}")
    assert not out.exists()


def test_every_retrieve_option_but_the_shared_ones_is_in_the_table():
    """The rule is the table: an option added to retrieve and read by some ways only must be listed there."""
    retrieve = next(a for a in build_parser()._actions if a.dest == "command").choices["retrieve"]
    options = {max(action.option_strings, key=len) for action in retrieve._actions if action.option_strings}
    assert options - {"--help", "--concepts", "--by", "--measure", "--depth", "--name", "--out"} == set(RETRIEVE_OPTIONS)


def test_retrieve_reads_the_options_of_its_way(tmp_path):
    out = tmp_path / "r.trec"
    assert main(["retrieve", "--concepts", CONCEPTS, "--by", "nn-iou", "--kg", KG, "--alpha", "0.9", "--n", "2",
                 "--kg-mode", "directed", "--depth", "3", "--out", str(out)]) == 0
    assert main(["retrieve", "--concepts", CONCEPTS, "--by", "embeddings", "--captions", CAPTIONS, "--svd-dims", "7",
                 "--depth", "3", "--out", str(out)]) == 0


# --- 3. KG settings without a KG, concept settings under --qrels, --relevance-level without --qrels ---------------

@pytest.mark.parametrize("command, outputs", [("evaluate", ["--json", "e.json"]), ("report", ["--out", "r.html"]),
                                              ("compare", ["--metric", "CUI@3", "--json", "e.json"]),
                                              ("qrels", ["--out", "q.txt"])])
@pytest.mark.parametrize("options, said", [
    (["--alpha", "0.9"], "--alpha applies only with a knowledge graph: add --kg FILE, or leave it out (without a KG, "
                         "nn-IoU is IoU)"),
    (["--n", "2", "--kg-mode", "directed", "--kg-source", "mesh"],
     "--kg-mode, --kg-source and --n apply only with a knowledge graph: add --kg FILE, or leave them out"),
])
def test_kg_settings_without_a_kg_are_refused(tmp_path, capsys, monkeypatch, command, outputs, options, said):
    """Was: nn-CUI equalled CUI while params recorded alpha 0.9, at exit 0."""
    monkeypatch.chdir(tmp_path)
    error = cli_refusal([command, "--concepts", CONCEPTS, "--run", DEMO_RUN, *options, *outputs], capsys)
    assert error.startswith(f"error: {said}")
    assert list(tmp_path.iterdir()) == []


def test_relevance_refuses_kg_settings_without_a_kg(tiny, capsys):
    (tiny / "pairs.csv").write_text("a,b\na,b\n")
    error = cli_refusal(["relevance", "--concepts", str(tiny / "c.csv"), "--alpha", "0.2", "--pairs",
                         str(tiny / "pairs.csv"), "--out", str(tiny / "out.csv")], capsys)
    assert "--alpha applies only with a knowledge graph" in error


@pytest.mark.parametrize("options, said", [
    (["--alpha", "0.9"], "--alpha sets concept relevance (near matches in a KG), which --qrels replaces: leave it out "
                         "with --qrels"),
    (["--kg-mode", "directed", "--n", "2"], "--kg-mode and --n set concept relevance (near matches in a KG), which "
                                            "--qrels replaces: leave them out with --qrels"),
])
def test_concept_settings_under_qrels_are_refused(tiny, capsys, options, said):
    error = cli_refusal(["evaluate", "--qrels", str(tiny / "q.txt"), "--run", str(tiny / "r.trec"), *options, "--json",
                         str(tiny / "e.json")], capsys)
    assert error == f"error: {said}\n"


def test_a_relevance_level_without_qrels_is_refused(tiny, capsys):
    error = cli_refusal(["evaluate", "--concepts", str(tiny / "c.csv"), "--run", str(tiny / "r.trec"),
                         "--relevance-level", "2", "--json", str(tiny / "e.json")], capsys)
    assert error.startswith("error: --relevance-level applies only to the judged grades of --qrels F: add --qrels F")
    assert main(["evaluate", "--qrels", str(tiny / "q.txt"), "--run", str(tiny / "r.trec"), "--relevance-level", "2",
                 "--json", str(tiny / "e.json")]) == 0
    assert json.loads((tiny / "e.json").read_text())["params"]["relevance_level"] == 2


def test_left_out_settings_are_recorded_at_their_defaults(tiny):
    assert main(["evaluate", "--concepts", str(tiny / "c.csv"), "--run", str(tiny / "r.trec"), "--json",
                 str(tiny / "e.json")]) == 0
    params = json.loads((tiny / "e.json").read_text())["params"]
    assert (params["alpha"], params["n"], params["kg_mode"], params["k"]) == (0.5, 1, "undirected", [5, 10, 30])


# --- 4. --k beside --metrics that name other cut-offs ----------------------------------------------------------------

@pytest.mark.parametrize("command, output", [("evaluate", "--json"), ("report", "--out")])
def test_k_beside_metrics_with_other_cut_offs_is_refused(tiny, capsys, command, output):
    """Was: evaluate --metrics CUI@3 --k 5 dropped --k without a word (params.k = [3])."""
    out = tiny / "out"
    argv = [command, "--concepts", str(tiny / "c.csv"), "--run", str(tiny / "r.trec"), "--metrics", "CUI@3"]
    error = cli_refusal([*argv, "--k", "5", output, str(out)], capsys)
    assert error == ("error: --metrics names its own cut-offs (3), so --k 5 would be ignored: leave --k out, or write "
                     "each cut-off in a metric's name (e.g. CUI@5)\n")
    assert not out.exists()
    # the same cut-offs (the dashboard's report command writes both) and a name without a cut-off (RBP) are read
    assert main([*argv, "CUI@1", "--k", "1", "3", output, str(out)]) == 0
    assert main([command, "--concepts", str(tiny / "c.csv"), "--run", str(tiny / "r.trec"), "--metrics", "RBP", "--k",
                 "2", output, str(out)]) == 0


# --- 5. the number of cut-offs and of metrics ------------------------------------------------------------------------

def test_cut_offs_and_metrics_are_capped(tiny, capsys):
    """Was: memory grew with the cut-offs without bound (--k $(seq 1 3000) peaked at 2.1 GB on the demo)."""
    base = ["--concepts", str(tiny / "c.csv"), "--run", str(tiny / "r.trec"), "--json", str(tiny / "e.json")]
    error = cli_refusal(["evaluate", *base, "--k", *map(str, range(1, MAX_CUTOFFS + 2))], capsys)
    assert error == f"error: --k must name at most {MAX_CUTOFFS} cut-offs (each adds a column to every metric), got 101\n"
    names = [f"CUI@{k}" for k in range(1, MAX_METRICS + 2)]
    error = cli_refusal(["evaluate", *base, "--metrics", *names], capsys)
    assert error == f"error: --metrics must name at most {MAX_METRICS} metrics, got 201\n"
    error = cli_refusal(["compare", *base, "--metric", *names], capsys)
    assert error == f"error: --metric must name at most {MAX_METRICS} metrics, got 201\n"
    assert not (tiny / "e.json").exists()
    assert len(Scoring(k=range(1, MAX_CUTOFFS + 1)).k) == MAX_CUTOFFS
    with pytest.raises(ParameterError, match="at most 100 cut-offs"):
        Scoring(k=range(1, MAX_CUTOFFS + 2))


# --- 6. messages that named an option the command lacks, or a file as missing that was given ----------------------

def test_qrels_metrics_are_refused_in_the_words_of_each_command(tiny, capsys):
    """Was: compare said "give a qrels file (--qrels)", an option compare does not have."""
    base = ["--concepts", str(tiny / "c.csv"), "--run", str(tiny / "r.trec"), "--json", str(tiny / "e.json")]
    error = cli_refusal(["compare", *base, "--metric", "qrels-NDCG@3"], capsys)
    assert error == ("error: qrels-NDCG@3: qrels- metrics read judgments, and compare reads concept relevance only (it "
                     "has no --qrels): compare concept-relevance metrics, or give these to evaluate --qrels F\n")
    error = cli_refusal(["evaluate", *base, "--metrics", "qrels-NDCG@3"], capsys)
    assert error == "error: qrels-NDCG@3: qrels- metrics read judgments: add --qrels F (a TREC qrels file)\n"
    concepts = read_concepts(tiny / "c.csv")
    with pytest.raises(ParameterError, match=r"^qrels- metrics read judgments, which need a qrels file \(qrels=\)$"):
        Evaluator(concepts).evaluate(read_runs(tiny / "r.trec"), ["qrels-NDCG@3"])


def test_a_labels_file_without_the_kind_is_named(tiny, capsys, monkeypatch):
    """Was: "need labels: a labels file (--labels F ...)" although --labels was given. (Paths relative to the data's
    folder: a long temporary path would be shortened in the one-line message.)"""
    monkeypatch.chdir(tiny)
    error = cli_refusal(["evaluate", "--concepts", "c.csv", "--run", "r.trec", "--labels", "modality.csv",
                         "--metrics", "P@3[organ]", "--json", "e.json"], capsys)
    assert error == ("error: P@3[organ] needs organ labels, which the labels file modality.csv does not "
                     "have (its labels: modality): give a labels file with the column organ\n")


# --- 8. the console: undefined numbers, the confidence level, the fewest samples -------------------------------------

def test_the_console_prints_undefined_numbers_as_undefined(tiny, capsys):
    """Was: P@3[modality]=nan and t-test p (Holm) nan, where docs/CLI.md promises "undefined" (the JSON: null)."""
    base = ["--concepts", str(tiny / "c.csv"), "--run", str(tiny / "r.trec"), "--labels", str(tiny / "labels.csv")]
    assert main(["evaluate", *base, "--metrics", "P@1[modality]", "CUI@1", "--json", str(tiny / "e.json")]) == 0
    err = capsys.readouterr().err
    assert "s: P@1[modality]=undefined, CUI@1=" in err and "nan" not in err
    assert json.loads((tiny / "e.json").read_text())["systems"]["s"]["P@1[modality]"] is None
    assert main(["compare", *base, "--metric", "P@1[modality]", "--confidence", "0.9999999999", "--json",
                 str(tiny / "c.json")]) == 0
    err = capsys.readouterr().err
    assert "P@1[modality] (mean [99.99999999% CI]):\n  s: undefined, 0 queries\n" in err
    assert "s - t: undefined, randomization p (Holm) undefined, t-test p (Holm) undefined" in err and "nan" not in err


def test_a_confidence_level_is_never_shown_as_0_or_100_percent():
    assert [shown_percent(level) for level in (0.95, 0.9, 0.999, 0.9999999999, 1 - 1e-15, 1e-12)] == \
        ["95%", "90%", "99.9%", "99.99999999%", "99.9999999999999%", "0.0000000001%"]


@pytest.mark.parametrize("option, value", [("--bootstrap-samples", "1"), ("--randomization-samples", "99")])
def test_too_few_samples_are_refused(tiny, capsys, option, value):
    """Was: --bootstrap-samples 1 gave an interval that did not hold the mean, at exit 0."""
    error = cli_refusal(["compare", "--concepts", str(tiny / "c.csv"), "--run", str(tiny / "r.trec"), "--metric",
                         "CUI@1", option, value, "--json", str(tiny / "c.json")], capsys)
    assert error.startswith(f"error: {option} must be an integer in 100..1000000 (fewer ")
    assert error.endswith(f"mostly chance), got {value}\n")
    with pytest.raises(ParameterError, match="bootstrap_samples must be an integer in 100..1000000"):
        Statistics(bootstrap_samples=99)
    assert Statistics(bootstrap_samples=100, randomization_samples=100).bootstrap_samples == 100


# --- 9. the length of a run's tag --------------------------------------------------------------------------------------

def test_a_system_name_is_at_most_as_long_as_an_image_id(tiny, capsys):
    """Was: --name of 5,000 characters wrote a run with that tag, which evaluate read back."""
    out = tiny / "run.trec"
    argv = ["retrieve", "--concepts", str(tiny / "c.csv"), "--by", "iou", "--out", str(out)]
    error = cli_refusal([*argv, "--name", "x" * 301], capsys)
    assert error == "error: --name: expected a system name of at most 300 characters (as an image ID), found 301 characters\n"
    assert not out.exists()
    assert main([*argv, "--name", "x" * 300]) == 0
    assert [run.name for run in read_runs(out)] == ["x" * 300]


@pytest.mark.parametrize("argv, said", [
    (["evaluate", "--concepts", CONCEPTS, "--kg", KG, "--run", DEMO_RUN, "--measure", "dice", "--alpha", "0.9"],
     "--kg and --alpha are read by no metric of this table"),
    (["evaluate", "--concepts", CONCEPTS, "--kg", KG, "--run", DEMO_RUN, "--metrics", "CUI@5", "MAP@5"],
     "--kg is read by no metric of this table (none of its relevance measures uses a knowledge graph)"),
    (["compare", "--concepts", CONCEPTS, "--kg", KG, "--run", DEMO_RUN, str(DEMO / "runs" / "near-random.trec"),
      "--metric", "CUI@5"],
     "--kg is read by no metric of this table"),
])
def test_a_graph_no_metric_of_the_table_reads_is_refused(argv, said, tmp_path, capsys):
    """Found by the review of hunt 28's fixes: --measure dice gives IoU and Dice metrics, and --kg with --alpha 0.9
    exited 0 recording an alpha no number depended on."""
    assert main([*argv, "--json", str(tmp_path / "out.json")]) == 2
    assert said in capsys.readouterr().err


def test_a_graph_some_metric_reads_is_kept(tmp_path):
    for argv in (["evaluate", "--metrics", "nn-CUI@5"], ["evaluate", "--measure", "nn-tversky(a=0.5,b=0.5,alpha=0.5,n=1)"]):
        assert main([argv[0], "--concepts", CONCEPTS, "--kg", KG, "--run", DEMO_RUN, *argv[1:], "--json",
                     str(tmp_path / "out.json")]) == 0
