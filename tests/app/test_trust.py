"""Trust: content-keyed caches, regular files within a byte budget, runs per tag, tie-free run files,
folder loading only under the data roots, and one-line argparse errors."""

from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from evalcore.app.baselines import CAPTIONS
from evalcore.app.workspace import INPUTS, caption_concepts, load_demo
from evalcore.cache_keys import content_digest
from evalcore.cli import main
from evalcore.data import ConceptSets
from evalcore.errors import CBIRLensError, InputError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.evaluation.options import Relevance
from evalcore.evaluation.retrieval import float32_scores_in_order, retrieve_by_measure, write_trec_run
from evalcore.io.loading import DATA_ROOTS_VARIABLE, check_under_roots, data_roots
from evalcore.readers import INPUT_BUDGET_VARIABLE, read_concepts, read_runs, read_text
from evalcore.relevance.formulas import nn_iou
from evalcore.relevance.kg import neighbour_sets
from evalcore.relevance.measures import measure_spec, nn_iou_measure
from tests.conftest import DEMO, ROOT, random_world

computed = pytest.importorskip("dashboard.computed")


# --- one cache-key function, keyed by content --------------------------------------------------

def _demo_workspace():
    return load_demo()


def _swap_words(text: str) -> str:
    words = text.split()
    return " ".join(reversed(words)) if len(words) > 1 else text + "x"


def _settings(alpha: float = 0.5, n: int = 1):
    from dashboard.sidebar import Settings

    relevance = measure_spec("nn-iou", alpha=alpha, n=n)
    return Settings(relevance, relevance, "undirected", (10,), "linear")


def _variants(ws):
    """Workspaces that differ from ``ws`` in one input only, with every size kept equal."""
    other_set = ws.concepts.sets[1] if ws.concepts.sets[1] != ws.concepts.sets[0] else ws.concepts.sets[2]
    concepts = ConceptSets(ws.concepts.ids, (other_set,) + ws.concepts.sets[1:], ws.concepts.source)
    run_name, (run_digest, run) = next(iter(ws.runs.items()))
    query = next(iter(run.rankings))
    swapped = run.rankings[query][1::-1] + run.rankings[query][2:]
    changed_run = replace(run, rankings={**run.rankings, query: swapped})
    kg_name, (_, edges) = next(iter(ws.kg_files.items()))
    child, parent, tag = edges.edges[0]
    other_parent = next(p for _, p, _ in edges.edges if p != parent)
    changed_edges = replace(edges, edges=((child, other_parent, tag),) + edges.edges[1:])
    name_cui = next(iter(ws.names))
    caption_id = next(iter(ws.captions))
    image_id = next(iter(ws.images))
    return {
        "concepts": ws.with_inputs(concepts=concepts),
        "names": ws.with_inputs(names={**ws.names, name_cui: ws.names[name_cui] + " (other)"}),
        "captions": ws.with_inputs(captions={**ws.captions, caption_id: _swap_words(ws.captions[caption_id])}),
        "runs": ws.with_inputs(runs={**ws.runs, run_name: (content_digest(changed_run), changed_run)}),
        "kg_files": ws.with_inputs(kg_files={kg_name: (content_digest(changed_edges), changed_edges)}),
        "labels": ws.with_inputs(labels=replace(ws.labels, source="other labels")),
        "embeddings": ws.with_inputs(embeddings=replace(ws.embeddings, vectors=ws.embeddings.vectors[::-1].copy())),
        "images": ws.with_inputs(images={**ws.images, image_id: ws.images[image_id] + b"\0"}),
        # The extraction that found the concept sets in the captions (its dictionary shows the words behind each).
        "extraction": ws.with_inputs(extraction=caption_concepts(ws)),
    }


@pytest.mark.slow
def test_every_input_changes_the_digest_of_every_restriction_that_holds_it():
    ws = _demo_workspace()
    variants = _variants(ws)
    assert set(variants) == set(INPUTS) - {"image_folder"}
    for changed, other in variants.items():
        assert other.digest != ws.digest, changed
        for inputs in (computed.EVALUATION_INPUTS, computed.EVALUATOR_INPUTS, computed.KG_INPUTS,
                       computed.EXTRACTION_INPUTS, ("concepts",)):
            same = ws.restricted_to(*inputs).digest == other.restricted_to(*inputs).digest
            assert same == (changed not in inputs), (inputs, changed)


def test_two_workspaces_with_equal_sizes_get_their_own_numbers():
    """The reported leak: same number of captions, different captions, same cached TF-IDF score."""
    ws = _demo_workspace()
    shuffled = dict(zip(ws.captions, list(ws.captions.values())[1:] + list(ws.captions.values())[:1]))
    other = ws.with_inputs(captions=shuffled)
    assert len(other.captions) == len(ws.captions)
    mine = computed.evaluation(ws, (), (CAPTIONS,), _settings())
    theirs = computed.evaluation(other, (), (CAPTIONS,), _settings())
    score = {name: computed.summary_of(result).set_index(["system", "metric"]).loc[(CAPTIONS.title, "CUI@10"), "mean"]
             for name, result in (("mine", mine), ("theirs", theirs))}
    assert score["mine"] > 0.5 > score["theirs"]


def test_names_of_one_workspace_never_reach_another():
    ws = _demo_workspace()
    other = _variants(ws)["names"]
    cui = next(iter(ws.names))
    assert computed.kg_of(ws).names.get(cui) == ws.names[cui]
    assert computed.kg_of(other).names.get(cui) == ws.names[cui] + " (other)"
    assert computed.kg_of(ws).names.get(cui) == ws.names[cui]


def test_content_digest_is_canonical_and_refuses_what_it_cannot_serialise():
    assert content_digest(("x", {"a": {"k": 1, "j": 2}})) == content_digest(("x", {"a": {"j": 2, "k": 1}}))
    assert content_digest(("x", {"a": b"1"})) != content_digest(("x", {"a": "1"}))
    with pytest.raises(CBIRLensError, match="cannot build a cache key"):
        content_digest(object())


# --- regular files within the byte budget ------------------------------------------------------

def test_devices_fifos_sockets_and_folders_are_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    sock_path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    try:
        for path, kind in [("/dev/zero", "a character device"), (fifo, "a FIFO"), (tmp_path, "a directory"),
                           (sock_path, "a socket")]:
            with pytest.raises(InputError) as error:
                read_text(path)
            assert str(error.value).startswith(f"{path}: expected a regular file, found {kind}")
    finally:
        server.close()


def test_the_budget_is_enforced_while_reading(tmp_path, monkeypatch):
    path = tmp_path / "gt.csv"
    path.write_text("ID,CUIs\n" + "".join(f"img{i},C0000001\n" for i in range(100)))
    monkeypatch.setenv(INPUT_BUDGET_VARIABLE, "200")
    with pytest.raises(InputError, match=r"gt.csv: expected at most 200 bytes .*--max-input-bytes"):
        read_concepts(path)
    with pytest.raises(InputError, match="expected at most 200 bytes"):
        read_concepts(path.read_bytes(), "upload.csv")
    monkeypatch.setenv(INPUT_BUDGET_VARIABLE, str(path.stat().st_size))
    assert len(read_concepts(path)) == 100


@pytest.mark.subprocess
@pytest.mark.slow
def test_cli_budget_flag_and_dev_zero_under_an_address_space_limit(tmp_path):
    code = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)); "
            "from evalcore.cli import main; sys.exit(main(sys.argv[1:]))")
    environment = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    for argv, expected in [
        (["evaluate", "--concepts", "/dev/zero", "--run", str(DEMO / "runs" / "overlap-noisy.trec"), "--json", "x"],
         "error: /dev/zero: expected a regular file, found a character device"),
        (["--max-input-bytes", "1000", "evaluate", "--concepts", str(DEMO / "concepts.csv"), "--run",
          str(DEMO / "runs" / "overlap-noisy.trec"), "--json", "x"],
         f"error: {DEMO / 'concepts.csv'}: expected at most 1,000 bytes"),
    ]:
        done = subprocess.run([sys.executable, "-c", code, *argv], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120, env=environment)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and done.stderr.startswith(expected), done.stderr


@pytest.mark.parametrize("content, expected", [
    (b"ID;CUIs\nI1;C0000001\n", "line 1: expected 'ID,CUIs' (or ImageCLEF 'ID<TAB>C1,C2') with fields separated by "
                                "',' or a tab, found ';' as the delimiter"),
    (b"ID,CUIs\nI1,C0000001\nI2;C0000002\n", "line 3: expected 2 fields 'ID,CUIs' separated by ','"),
    (b"ID|CUIs\nI1|C0000001\n", "found '|' as the delimiter"),
])
def test_a_foreign_delimiter_is_named(content, expected):
    with pytest.raises(InputError) as error:
        read_concepts(content, "gt.csv")
    assert expected in str(error.value)


# --- runs: one system per tag, ranks checked, unknown queries ---------------------------------

def _tiny(tmp_path):
    (tmp_path / "gt.csv").write_text("ID,CUIs\nq,C0040405;C0042449\nx,C0040405;C0005847\ny,C0040405\nz,C0024485\n")
    return tmp_path / "gt.csv"


def test_a_file_with_three_tags_is_three_systems(tmp_path):
    gt = _tiny(tmp_path)
    lines = [f"q Q0 {doc} {rank} {4 - rank} {tag}" for tag in ("a", "b", "c") for rank, doc in
             enumerate(("x", "y", "z") if tag != "b" else ("z", "y", "x"), start=1)]
    (tmp_path / "three.trec").write_text("\n".join(lines) + "\n")
    assert [run.name for run in read_runs(tmp_path / "three.trec")] == ["a", "b", "c"]
    assert main(["evaluate", "--concepts", str(gt), "--run", str(tmp_path / "three.trec"), "--k", "1",
                 "--json", str(tmp_path / "r.json")]) == 0
    systems = json.loads((tmp_path / "r.json").read_text())["systems"]
    assert set(systems) == {"a", "b", "c"} and systems["a"]["CUI@1"] == systems["c"]["CUI@1"] != systems["b"]["CUI@1"]


def test_a_run_with_no_known_query_is_refused_and_some_unknown_is_counted(tmp_path, capsys):
    gt = _tiny(tmp_path)
    (tmp_path / "none.trec").write_text("u1 Q0 x 1 1 s\nu2 Q0 y 1 1 s\n")
    (tmp_path / "some.trec").write_text("u1 Q0 x 1 1 s\nq Q0 x 1 1 s\n")
    assert main(["evaluate", "--concepts", str(gt), "--run", str(tmp_path / "none.trec"), "--json",
                 str(tmp_path / "r.json")]) == 2
    message = capsys.readouterr().err
    assert message.startswith(f"error: {tmp_path / 'none.trec'}: expected query IDs that have a concept set in")
    assert "none of its 2 queries does (first: 'u1')" in message and message.count("\n") == 1
    assert main(["evaluate", "--concepts", str(gt), "--run", str(tmp_path / "some.trec"), "--json",
                 str(tmp_path / "r.json")]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["counts"]["s"]["queries_unknown"] == 1


# --- run files every TREC tool reads in evalcore's order ---------------------------------------

def test_float32_scores_keep_order_and_first_of_each_tie():
    scores = np.array([1.0, 1.0, 0.5, 0.5, 0.5, 0.0, 0.0])
    written = float32_scores_in_order(scores, np.array([0, len(scores)]))
    assert written.dtype == np.float32 and all(a > b for a, b in zip(written, written[1:]))
    assert written[0] == 1.0 and written[2] == 0.5 and written[5] == 0.0
    assert max(abs(a - b) for a, b in zip(scores, written.astype(float))) <= 2 * 2.0 ** -24


@pytest.mark.parametrize("seed", range(3))
def test_trec_eval_reads_a_retrieve_written_run_as_evalcore_scores_it(tmp_path, seed):
    """pytrec_eval (test-only oracle) on exact integer grades: nDCG@10 equals nn-CUI@10 per query."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    concepts, kg = random_world(seed, images=50, vocabulary=12, edges=14)
    run = retrieve_by_measure(Evaluator(concepts, kg), nn_iou_measure(0.5, 1), depth=49, name="nn")
    path = tmp_path / "nn.trec"
    write_trec_run(run, path)
    written = {}
    for line in path.read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        written.setdefault(qid, {})[doc] = float(score)
    assert all(len(set(docs.values())) == len(docs) for docs in written.values())  # no ties left
    neighbours = neighbour_sets(kg, concepts.vocabulary, 1)
    qrels = {}
    for query, query_set in zip(concepts.ids, concepts.sets):
        grades = {doc: Fraction(nn_iou(query_set, doc_set, neighbours, 0.5)).limit_denominator(10_000)
                  for doc, doc_set in zip(concepts.ids, concepts.sets) if doc != query}
        scale = 1
        for grade in grades.values():
            scale = scale * grade.denominator // math.gcd(scale, grade.denominator)
        qrels[query] = {doc: int(grade * scale) for doc, grade in grades.items()}
    trec = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10"}).evaluate(written)
    ours = Evaluator(concepts, kg).evaluate([read_runs(path)[0]], ["nn-CUI@10"], Relevance.of(0.5, 1))
    values = ours.systems["nn"].values["nn-CUI@10"]
    for query, value in zip(ours.systems["nn"].query_ids, values):
        if value == value:  # queries with IDCG = 0 are excluded by us, scored 0 by trec_eval
            assert trec[query]["ndcg_cut_10"] == pytest.approx(value, abs=1e-12)


# --- folders only under the data roots ---------------------------------------------------------

def test_folders_outside_the_data_roots_are_refused(tmp_path, monkeypatch):
    monkeypatch.delenv(DATA_ROOTS_VARIABLE, raising=False)
    roots = data_roots()
    assert (ROOT / "data").resolve() in roots
    for outside in ("/etc", "/proc/self", str(ROOT / "data" / ".." / "evalcore")):
        with pytest.raises(CBIRLensError, match="outside them; to allow it, add its folder to the CBIR_LENS_DATA_ROOTS"):
            check_under_roots(outside, roots)
    link = ROOT / "data" / "demo"
    assert check_under_roots(link, roots) == link.resolve()
    monkeypatch.setenv(DATA_ROOTS_VARIABLE, str(tmp_path))
    assert data_roots() == (tmp_path.resolve(),)
    (tmp_path / "escape").symlink_to("/etc")
    with pytest.raises(CBIRLensError, match="outside them"):
        check_under_roots(tmp_path / "escape", data_roots())


def test_a_data_root_given_as_a_link_holds_what_lies_under_its_folder(tmp_path):
    """A root passed as a symbolic link (a checkout beside a linked data folder) is its real folder: a path under it,
    by either spelling, is inside; one the link's folder does not hold is still outside."""
    (tmp_path / "real" / "rocov2").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real")
    roots = (tmp_path / "link",)
    for spelling in (tmp_path / "link" / "rocov2", tmp_path / "real" / "rocov2"):
        assert check_under_roots(spelling, roots) == (tmp_path / "real" / "rocov2").resolve()
    with pytest.raises(CBIRLensError, match="outside them"):
        check_under_roots(tmp_path, roots)


def test_the_data_page_refuses_etc_and_keeps_the_demo():
    from streamlit.testing.v1 import AppTest

    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    app.run()
    before = app.session_state["workspace"].digest
    for folder in ("/etc", "/proc/self"):
        app.text_input(key="rocov2_folder").set_value(folder)
        app.button(key="load_rocov2").click().run()
        assert not app.exception
        assert any("outside them; to allow it" in e.value for e in app.error), [e.value for e in app.error]
        assert app.session_state["workspace"].digest == before


# --- argparse errors in one line ---------------------------------------------------------------

@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.parametrize("argv, fragment", [
    (["evaluate", "--n", "x"], "argument --n: expected a whole number in digits 0-9 such as 10 (at most 10^18), found 'x'"),
    (["evaluate"], "the following arguments are required"),
    (["nonsense"], "invalid choice: 'nonsense'"),
    (["--max-input-bytes", "0", "evaluate"], "expected at least 1 byte"),
])
def test_usage_errors_are_one_line(argv, fragment):
    done = subprocess.run([sys.executable, "-m", "evalcore", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("error: ") and fragment in done.stderr
