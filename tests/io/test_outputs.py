"""Outputs that are never lost: refused when they would overwrite an input or each other or cannot be
written (before any work), written beside the target and renamed into place; run files that trec_eval,
pytrec_eval and ir_measures read in evalcore's order; retrieval depth bounded by the pool."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalcore.cli import main
from evalcore.data import KGEdges, Run
from evalcore.errors import CBIRLensError, ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.qrels import graded_judgments
from evalcore.evaluation.retrieval import (
    float32_scores_in_order,
    pool_depth,
    retrieve_by_captions,
    retrieve_by_measure,
    tfidf_matrix,
    write_trec_run,
)
from evalcore.io.outputs import atomic_output, check_outputs
from evalcore.readers import read_captions, read_concepts, read_runs
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import measure_spec, nn_iou_measure
from tests.conftest import DEMO, OPEN_KG, ROCOV2, ROOT, cli_refusal, needs, random_world

DEMO_RUNS = sorted(str(p) for p in (DEMO / "runs").glob("*.trec"))


def _copy(source: Path, folder: Path) -> Path:
    target = folder / source.name
    target.write_bytes(source.read_bytes())
    return target


@pytest.fixture
def demo_copy(tmp_path) -> dict[str, Path]:
    """The demo's concepts, KG and first run, copied so that a test that goes wrong cannot harm them."""
    return {"concepts": _copy(DEMO / "concepts.csv", tmp_path), "kg": _copy(DEMO / "kg_edges.csv", tmp_path),
            "run": _copy(Path(DEMO_RUNS[0]), tmp_path), "folder": tmp_path}


# --- an output never overwrites an input, nor another output ------------------------------------

def test_an_output_on_an_input_is_refused_and_the_input_kept(demo_copy, capsys):
    concepts, kg, run = demo_copy["concepts"], demo_copy["kg"], demo_copy["run"]
    pairs = demo_copy["folder"] / "pairs.csv"
    pairs.write_text("a,b\nDEMO_00001,DEMO_00002\n")
    originals = {path: path.read_bytes() for path in (concepts, kg, run, pairs)}
    for argv, clobbered in [
        (["evaluate", "--concepts", str(concepts), "--run", str(run), "--json", str(concepts)], concepts),
        (["evaluate", "--concepts", str(concepts), "--kg", str(kg), "--run", str(run), "--json",
          str(demo_copy["folder"] / "r.json"), "--per-query", str(kg)], kg),
        (["qrels", "--concepts", str(concepts), "--run", str(run), "--out", str(run)], run),
        (["relevance", "--concepts", str(concepts), "--pairs", str(pairs), "--out", str(pairs)], pairs),
        (["retrieve", "--concepts", str(concepts), "--by", "iou", "--out", str(concepts)], concepts),
        (["compare", "--concepts", str(concepts), "--run", str(run), "--metric", "CUI@10", "--json", str(run)], run),
        (["detection", "--gt", str(concepts), "--pred", str(run), "--json", str(concepts)], concepts),
    ]:
        error = cli_refusal(argv, capsys)
        assert "expected an output path that is not one of the inputs" in error and str(clobbered) in error
    assert {path: path.read_bytes() for path in originals} == originals
    assert not (demo_copy["folder"] / "r.json").exists()  # refused before any work or output


def test_links_to_an_input_are_the_input(demo_copy, capsys):
    concepts, run = demo_copy["concepts"], demo_copy["run"]
    symbolic, hard = demo_copy["folder"] / "symbolic.json", demo_copy["folder"] / "hard.json"
    symbolic.symlink_to(concepts)
    os.link(concepts, hard)
    original = concepts.read_bytes()
    for output in (symbolic, hard, demo_copy["folder"] / "." / concepts.name):
        error = cli_refusal(["evaluate", "--concepts", str(concepts), "--run", str(run), "--json", str(output)], capsys)
        assert "not one of the inputs" in error
    assert concepts.read_bytes() == original


def test_two_outputs_on_one_path_are_refused(demo_copy, capsys):
    concepts, run, folder = demo_copy["concepts"], demo_copy["run"], demo_copy["folder"]
    out = folder / "out.txt"
    error = cli_refusal(["evaluate", "--concepts", str(concepts), "--run", str(run), "--json", str(out),
                      "--per-query", str(folder / "." / "out.txt")], capsys)
    assert "--per-query" in error and "expected a path of its own, found the same file as --json" in error
    error = cli_refusal(["qrels", "--concepts", str(concepts), "--run", str(run), "--out", str(out), "--scales",
                      str(out)], capsys)
    assert "--scales" in error and "same file as --out" in error
    assert not out.exists()


@pytest.mark.parametrize("output, expected", [
    ("/dev/full", "expected a regular file or a new path, found a device"),
    ("/proc/version", "expected a path where a new file can be written"),
    ("/no/such/folder/out.json", "expected an existing folder for the output"),
    ("/tmp", "expected a file path, found a folder"),
])
def test_an_unwritable_output_is_refused_before_the_work(output, expected, capsys):
    # The concept file does not exist: an output refused before any work is refused before reading it.
    error = cli_refusal(["evaluate", "--concepts", "/no/such/concepts.csv", "--run", DEMO_RUNS[0], "--json", output],
                     capsys)
    assert error.startswith(f"error: --json {output}: {expected}")


def test_a_failed_write_names_the_file_and_keeps_the_earlier_one(tmp_path, monkeypatch):
    target = tmp_path / "run.trec"
    target.write_text("earlier complete run\n")

    def full_disk(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("evalcore.io.outputs.os.fsync", full_disk)
    with pytest.raises(CBIRLensError, match=f"{target}: could not write the output file \\(No space left on device\\)"):
        with atomic_output(target) as handle:
            handle.write("new\n")
    assert target.read_text() == "earlier complete run\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.trec"]


def test_an_interrupted_per_query_write_leaves_the_earlier_files(demo_copy, monkeypatch):
    concepts, run, folder = demo_copy["concepts"], demo_copy["run"], demo_copy["folder"]
    per_query, result = folder / "per_query.csv", folder / "r.json"
    per_query.write_text("earlier per-query file\n")
    result.write_text("{}")
    original_fsync, synced = os.fsync, []

    def interrupted(descriptor):  # the per-query file is written and synced beside its target; Ctrl-C on the JSON's
        synced.append(descriptor)
        if len(synced) == 2:
            raise KeyboardInterrupt
        original_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        main(["evaluate", "--concepts", str(concepts), "--run", str(run), "--k", "10", "--json", str(result),
              "--per-query", str(per_query)])
    assert per_query.read_text() == "earlier per-query file\n" and result.read_text() == "{}"
    assert sorted(p.name for p in folder.iterdir()) == sorted(["concepts.csv", "kg_edges.csv", Path(DEMO_RUNS[0]).name,
                                                               "per_query.csv", "r.json"])


@pytest.mark.subprocess
def test_a_killed_write_never_leaves_a_partial_file(tmp_path):
    """SIGKILL in the middle of a write: the target keeps its earlier, complete content."""
    target = tmp_path / "out.txt"
    target.write_text("earlier\n")
    code = ("import sys, time; sys.path.insert(0, sys.argv[1]); from evalcore.io.outputs import atomic_output\n"
            "with atomic_output(sys.argv[2]) as handle:\n"
            "    handle.write('half of the new'); handle.flush(); print('writing', flush=True); time.sleep(60)\n")
    process = subprocess.Popen([sys.executable, "-c", code, str(ROOT), str(target)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "writing"
    process.kill()
    process.wait()
    assert target.read_text() == "earlier\n"


@pytest.mark.subprocess
@pytest.mark.slow
@needs(ROCOV2 / "test_concepts.csv")
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_stopped_retrieve_keeps_the_earlier_run_and_leaves_no_temporary_file(tmp_path, stop):
    """A signal at any moment of `retrieve` (sent twice, as `timeout` does to a process group): either the earlier
    run or the complete new one, never a part; one line saying so, never a traceback."""
    target = tmp_path / "run.trec"
    target.write_text("earlier complete run\n")
    process = subprocess.Popen([sys.executable, "-m", "evalcore", "retrieve", "--concepts",
                                str(ROCOV2 / "test_concepts.csv"), "--by", "iou", "--depth", "300", "--out",
                                str(target)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(tmp_path.glob(".run.trec.*.part")) and process.poll() is None:
        time.sleep(0.02)
    process.send_signal(stop)
    process.send_signal(stop)
    _, error = process.communicate(timeout=60)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.trec"]
    if process.returncode == 0:  # finished before the signal arrived
        assert target.read_text().count("\n") == 9927 * 300
    else:
        assert process.returncode == 128 + stop
        # Any progress bar drawn before stays on its own line ("\r" redraws); the message is one line after it.
        assert ("\n" + error).endswith(f"\nerror: stopped by signal {stop.name}; outputs not yet complete were not "
                                       "written\n")
        assert error.count("error:") == 1 and "Traceback" not in error
        assert target.read_text() == "earlier complete run\n"


def test_check_outputs_allows_distinct_new_paths(tmp_path):
    check_outputs({"--json": tmp_path / "a.json", "--per-query": tmp_path / "a.csv", "--scales": None},
                  [DEMO / "concepts.csv", None])


# --- run files read in evalcore's order by trec_eval, pytrec_eval and ir_measures ----------------

def _plain_float32_scores(scores: list[float]) -> list[np.float32]:
    """The definition of float32_scores_in_order, one item at a time (the reference)."""
    written: list[np.float32] = []
    for score in scores:
        value = np.float32(np.clip(score, -3.4028234663852886e38, 3.4028234663852886e38))
        if written:
            value = min(value, np.nextafter(written[-1], np.float32(-np.inf)))
        written.append(np.float32(value))
    return written


@given(st.lists(st.lists(st.sampled_from([1.0, 0.5, 1 / 3, 0.25, 0.0, -0.5, 0.1 + 1e-12, 0.1, 1e-30, 2.0 ** 24, 1e39]),
                         max_size=40), max_size=6))
def test_float32_scores_equal_the_plain_loop_and_decrease_strictly(lists):
    offsets = np.concatenate(([0], np.cumsum([len(scores) for scores in lists]))).astype(np.int64)
    written = float32_scores_in_order(np.array([s for scores in lists for s in scores], dtype=np.float64), offsets)
    assert written.dtype == np.float32
    assert written.tolist() == [float(value) for scores in lists for value in _plain_float32_scores(scores)]
    for start, stop in zip(offsets[:-1], offsets[1:]):
        assert np.all(np.diff(written[start:stop]) < 0)


def _trec_eval_order(path: Path) -> dict[str, list[str]]:
    """Each query's documents as trec_eval orders them: the score read as a C float, descending, then docno
    descending (trec_eval's form_res_rels; the rank column is ignored)."""
    lines = [line.split() for line in path.read_text().splitlines()]
    by_query: dict[str, list[tuple[np.float32, str]]] = {}
    for query, _, document, _, score, _ in lines:
        by_query.setdefault(query, []).append((np.float32(float(score)), document))
    return {query: [d for _, d in sorted(items, key=lambda item: (-item[0], _descending(item[1])))]
            for query, items in by_query.items()}


def _descending(text: str) -> tuple[int, ...]:
    return tuple(-byte for byte in text.encode()) + (1,)


@pytest.mark.slow
@pytest.mark.parametrize("how", [["--by", "iou"], ["--by", "nn-iou"], ["--measure", "dice"],
                                 ["--measure", "tversky(a=0.7,b=0.3)"],
                                 ["--by", "embeddings", "--captions", str(DEMO / "captions.csv")],
                                 ["--by", "embeddings", "--embeddings", str(DEMO / "image_embeddings.npy"),
                                  "--embedding-ids", str(DEMO / "image_embeddings_ids.txt")]])
def test_every_retrieve_run_is_read_by_trec_tools_in_evalcore_order(tmp_path, how):
    ir_measures = pytest.importorskip("ir_measures")
    path = tmp_path / "run.trec"
    kg = ["--kg", str(DEMO / "kg_edges.csv")] if how == ["--by", "nn-iou"] else []  # the others refuse a KG they do not read
    assert main(["retrieve", "--concepts", str(DEMO / "concepts.csv"), *kg, *how, "--depth", "60", "--out", str(path)]) == 0
    ours = read_runs(path)[0].rankings
    assert _trec_eval_order(path) == {query: list(ours[query]) for query in ours}
    # Through ir_measures (its pytrec_eval provider): grades falling with evalcore's rank give nDCG 1 exactly
    # only when the file is read in that order.
    qrels = [ir_measures.Qrel(query, document, len(ranked) - rank)
             for query, ranked in ours.items() for rank, document in enumerate(ranked)]
    values = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.nDCG], qrels,
                                                                 ir_measures.read_trec_run(str(path)))}
    assert len(values) == len(ours) and set(values.values()) == {1.0}


@pytest.mark.slow
@needs(ROCOV2 / "test_concepts.csv")
@needs(ROCOV2 / "test_captions.csv")
def test_pytrec_eval_ndcg_on_exported_qrels_equals_ours_for_rocov2_iou_and_caption_runs(tmp_path):
    """ROCOv2 test: runs written by `retrieve` (IoU and TF-IDF captions), the qrels of `qrels`, pytrec_eval's
    ndcg_cut_10 per query against evalcore's CUI@10 (qrels exact: within 1e-12; rounded: within the bound)."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    concepts = read_concepts(ROCOV2 / "test_concepts.csv")
    evaluator = Evaluator(concepts)
    runs = {"iou": retrieve_by_measure(evaluator, measure_spec("iou"), 30, "iou"),
            "captions": retrieve_by_captions(read_captions(ROCOV2 / "test_captions.csv"), concepts, 30)}
    for label, run in runs.items():
        path = tmp_path / f"{label}.trec"
        write_trec_run(run, path)
        written = read_runs(path)[0]
        judgments = graded_judgments(evaluator, [written], 10, nn_iou_measure(0.0, 0))
        qrels: dict[str, dict[str, int]] = {}
        for line in judgments.text().splitlines():
            query, _, document, grade = line.split()
            qrels.setdefault(query, {})[document] = int(grade)
        scores: dict[str, dict[str, float]] = {}
        for line in path.read_text().splitlines():
            query, _, document, _, score, _ = line.split()
            scores.setdefault(query, {})[document] = float(score)
        trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(scores)
        ours = evaluator.evaluate([written], ["CUI@10"], Relevance.of(0.0, 0, empty_queries="zero")).systems[written.name]
        compared = 0
        for query, value in zip(ours.query_ids, ours.values["CUI@10"]):
            if query in trec:
                assert trec[query]["ndcg_cut_10"] == pytest.approx(value, abs=5e-6), (label, query)
                compared += 1
        assert compared >= 9900


# --- the retrieval depth is bounded by the pool; odd options refused ---------------------------

@pytest.mark.slow
def test_a_depth_beyond_the_pool_ranks_the_whole_pool_and_says_so(tmp_path, capsys):
    path = tmp_path / "run.trec"
    assert main(["retrieve", "--concepts", str(DEMO / "concepts.csv"), "--by", "iou", "--depth", "1000000000",
                 "--out", str(path)]) == 0
    assert "--depth 1,000,000,000 is more than the pool holds" in capsys.readouterr().err
    lengths = {len(ranked) for ranked in read_runs(path)[0].rankings.values()}
    assert lengths == {len(read_concepts(DEMO / "concepts.csv")) - 1}
    assert pool_depth(10**9, 2000) == 2000
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ParameterError, match="depth: expected a whole number of at least 1"):
            pool_depth(bad, 2000)


def test_negative_svd_dimensions_are_refused(tmp_path, capsys):
    error = cli_refusal(["retrieve", "--concepts", str(DEMO / "concepts.csv"), "--by", "embeddings", "--captions",
                      str(DEMO / "captions.csv"), "--svd-dims", "-1", "--out", str(tmp_path / "r.trec")], capsys)
    assert "--svd-dims: expected 0 (no reduction)" in error
    with pytest.raises(ParameterError, match="SVD dimensions"):
        tfidf_matrix({"a": "chest CT"}, ("a",), -1)


def test_a_kg_source_tag_no_edge_has_is_refused(tmp_path, capsys):
    error = cli_refusal(["evaluate", "--concepts", str(DEMO / "concepts.csv"), "--kg", str(DEMO / "kg_edges.csv"),
                      "--kg-source", "mesh", "--run", DEMO_RUNS[0], "--json", str(tmp_path / "r.json")], capsys)
    assert "KG source tag 'mesh': expected a tag of the KG files' source column (demo)" in error
    edges = KGEdges((("vein", "vessel", "mesh"), ("hv", "vein", "uberon")), {})
    assert KnowledgeGraph.from_edges([edges], ["mesh"]).number_of_edges() == 1
    with pytest.raises(ParameterError, match="'hpo'"):
        KnowledgeGraph.from_edges([edges], ["mesh", "hpo"])


@needs(OPEN_KG)
def test_open_kg_sources_are_accepted(tmp_path):
    assert main(["retrieve", "--concepts", str(DEMO / "concepts.csv"), "--kg", str(OPEN_KG), "--kg-source", "mesh",
                 "--by", "nn-iou", "--depth", "5", "--out", str(tmp_path / "r.trec")]) == 0


# --- the streamed writer ------------------------------------------------------------------------

def test_the_run_file_is_the_same_whatever_the_piece_size(tmp_path, monkeypatch):
    concepts, kg = random_world(3, images=40)
    run = retrieve_by_measure(Evaluator(concepts, kg), nn_iou_measure(0.5, 1), 25,
                              "a tag with spaces")
    whole, pieces = tmp_path / "whole.trec", tmp_path / "pieces.trec"
    write_trec_run(run, whole)
    monkeypatch.setattr("evalcore.evaluation.retrieval.LINES_PER_PIECE", 7)
    write_trec_run(run, pieces)
    assert whole.read_bytes() == pieces.read_bytes()
    lines = whole.read_text().splitlines()
    assert len(lines) == 40 * 25 and lines[0].split()[1] == "Q0" and lines[0].endswith(" a_tag_with_spaces")
    # Each score is the shortest decimal that reads back (as a double, then a C float) as the float32 written.
    offsets = np.concatenate(([0], np.cumsum([len(ranked) for ranked in run.rankings.values()])))
    expected = float32_scores_in_order(np.concatenate([run.scores[q] for q in run.rankings]), offsets)
    read_back = np.array([float(line.split()[4]) for line in lines]).astype(np.float32)
    assert np.array_equal(read_back, expected)
    assert all(len(line.split()[4]) <= 15 for line in lines)
    # and no longer: as many significant digits as NumPy's shortest round-trip repr of that float32
    for text, value in zip((line.split()[4] for line in lines), expected):
        assert _significant_digits(text) == _significant_digits(np.format_float_scientific(value, unique=True)), text


def _significant_digits(text: str) -> int:
    mantissa = text.lower().partition("e")[0].lstrip("+-").replace(".", "")
    return max(len(mantissa.strip("0")), 1)


WRITER_MEMORY = """
import sys
import numpy as np
from evalcore.evaluation import retrieval
from evalcore.data import Run

retrieval.LINES_PER_PIECE = 1 << 14

def kib(field):
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field))

queries, depth = 2_000, 1_000
documents = [f"DOC_{i:07d}" for i in range(10_000)]
rankings = {f"QUERY_{q:06d}": tuple(documents[(q + r * 7) % len(documents)] for r in range(depth)) for q in range(queries)}
scores = {query: np.linspace(1.0, 0.0, depth) for query in rankings}
run = Run("a run", rankings, scores=scores)
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # the peak (VmHWM) starts again from the current size
before = kib("VmRSS:")
retrieval.write_trec_run(run, sys.argv[1])
print(kib("VmHWM:") - before)
"""


@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="needs Linux's peak-memory reset")
def test_writing_a_deep_run_takes_far_less_memory_than_its_text(tmp_path):
    """#21 item 13: the writer built every line as a Python string (3.7 GB for a depth-1000 run of ROCOv2 test;
    here 2 M lines of 96 MB took 455 MB more). Streamed in pieces of 16 K lines, writing them adds the run's
    arrays (about 15 bytes a line) and one piece's text: 37 MB here, below half the text."""
    path = tmp_path / "deep.trec"
    done = subprocess.run([sys.executable, "-c", WRITER_MEMORY, str(path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=True)
    text_kib = path.stat().st_size // 1024
    assert sum(1 for _ in path.open()) == 2_000_000
    assert int(done.stdout) < text_kib // 2, (done.stdout, text_kib)


def test_runs_without_scores_and_mappings_are_written_in_their_order(tmp_path):
    run = Run("plain", {"q1": ("b", "a", "c"), "q2": ("a",)})
    path = tmp_path / "plain.trec"
    write_trec_run(run, path)
    assert path.read_text() == "q1 Q0 b 1 3 plain\nq1 Q0 a 2 2 plain\nq1 Q0 c 3 1 plain\nq2 Q0 a 1 1 plain\n"


# --- the README's test command in a virtual environment -----------------------------------------

@pytest.mark.subprocess
def test_a_venv_made_from_a_venv_sees_the_outer_environments_packages(tmp_path):
    """tests/venvs.py makes the nested environment of test_package; from inside a venv it must see that venv's
    packages (a --system-site-packages venv would see only the base interpreter's)."""
    outer, nested, extra = tmp_path / "outer", tmp_path / "nested", tmp_path / "extra"
    extra.mkdir()
    (extra / "only_in_outer.py").write_text("VALUE = 42\n")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(outer)], check=True)
    outer_site = next(outer.glob("lib/python*/site-packages"))
    (outer_site / "extra.pth").write_text(f"{extra}\n")
    code = f"import sys; sys.path.insert(0, {str(ROOT / 'tests')!r}); import venvs; venvs.make_venv({str(nested)!r})"
    subprocess.run([str(outer / "bin" / "python"), "-c", code], check=True)
    shown = subprocess.run([str(nested / "bin" / "python"), "-c", "import only_in_outer; print(only_in_outer.VALUE)"],
                           capture_output=True, text=True)
    assert shown.returncode == 0 and shown.stdout.strip() == "42", shown.stderr


def test_json_outputs_stay_valid_json(tmp_path):
    out = tmp_path / "r.json"
    assert main(["evaluate", "--concepts", str(DEMO / "concepts.csv"), "--run", DEMO_RUNS[0], "--k", "10",
                 "--json", str(out)]) == 0
    assert "systems" in json.loads(out.read_text())


def test_running_out_of_memory_is_one_line(monkeypatch, tmp_path, capsys):
    def exhausted(*_args, **_kwargs):
        raise MemoryError

    monkeypatch.setattr("evalcore.cli.commands.read_concepts", exhausted)
    error = cli_refusal(["retrieve", "--concepts", str(DEMO / "concepts.csv"), "--by", "iou", "--out",
                      str(tmp_path / "r.trec")], capsys)
    assert error.startswith("error: retrieve ran out of memory") and not (tmp_path / "r.trec").exists()


def test_odd_output_paths(tmp_path, capsys):
    retrieve = ["retrieve", "--concepts", str(DEMO / "concepts.csv"), "--by", "iou", "--depth", "2", "--out"]
    assert "expected a file path, found a folder path (it ends in /)" in cli_refusal([*retrieve, f"{tmp_path}/out/"], capsys)
    too_long = cli_refusal([*retrieve, str(tmp_path / ("o" * 256))], capsys)
    assert "cannot be looked up (File name too long)" in too_long
    assert main([*retrieve, str(tmp_path / ("o" * 250))]) == 0  # the longest names work, their temporary file too
    # A link is written through, as open() would: the file it names gets the run, the link stays.
    (tmp_path / "link.trec").symlink_to(tmp_path / "target.trec")
    assert main([*retrieve, str(tmp_path / "link.trec")]) == 0
    assert (tmp_path / "link.trec").is_symlink() and (tmp_path / "target.trec").read_text().startswith("DEMO_00001 Q0")


@pytest.mark.subprocess
@pytest.mark.slow
def test_standard_output_as_an_output_path_is_refused_as_the_pipe_it_is():
    """Was: '/proc/PID/fd does not accept one (No such file or directory)', a folder the user never named."""
    done = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "--concepts", str(DEMO / "concepts.csv"),
                           "--run", str(DEMO / "runs" / "overlap-noisy.trec"), "--json", "/dev/stdout"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.endswith("error: --json /dev/stdout: expected a regular file or a new path, found a device, "
                                "FIFO or socket\n")
