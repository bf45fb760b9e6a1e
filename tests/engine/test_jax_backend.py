"""The JAX array backend (issue 15): the numpy engine's values AND indices, on the CPU here and on a GPU where one is.

Layers: a hand-worked pool; seeded random pools full of ties, with block shapes forced small so that
queries, tiles and pool chunks are all padded and streamed; the demo and ROCOv2 test against the numpy
engine; the CLI and the Python API; the fallback to numpy with its reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import evalcore
from evalcore.cli import main
from evalcore.data import ConceptSets
from evalcore.engine import Compute, PairwiseEngine
from evalcore.engine.array_backend import check_backend, gpu_available, gpu_plugin_installed, open_backend
from evalcore.errors import ParameterError
from evalcore.evaluation.evaluator import Evaluator
from evalcore.io.loading import load_kg
from evalcore.readers import read_concepts, read_runs
from evalcore.relevance.measures import nn_iou_measure, parse_measure
from tests.conftest import DEMO, OPEN_KG, ROCOV2, ROOT, needs, random_world

jax = pytest.importorskip("jax")
from evalcore.engine import jax_backend  # noqa: E402
from evalcore.engine.jax_backend import CPU_DEFAULT_MEMORY, PROGRAMS, JaxRanker, visible_gpus  # noqa: E402

GPU = pytest.mark.skipif(not visible_gpus(), reason="JAX sees no GPU here")


def assert_same_pass(reference: PairwiseEngine, engine: PairwiseEngine, measure: str, k: int, threshold: float,
                     depth: int) -> None:
    spec = parse_measure(measure)  # the test's measures are written as the CLI's --measure
    expected, expected_indices = reference.rank_by(spec, k, threshold, depth)
    summary, indices = engine.rank_by(spec, k, threshold, depth)
    assert engine.last_pass.backend == "jax", engine.last_pass.text()
    assert summary.ideal.tolist() == expected.ideal.tolist()
    assert summary.relevant_counts.tolist() == expected.relevant_counts.tolist()
    assert summary.pool_sizes.tolist() == expected.pool_sizes.tolist()
    assert indices.dtype == expected_indices.dtype and indices.tolist() == expected_indices.tolist()


@pytest.mark.subprocess
@pytest.mark.slow
def test_import_evalcore_does_not_import_jax():
    code = "import sys, evalcore, evalcore.__main__; print([m for m in ('jax', 'jaxlib') if m in sys.modules])"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
    assert output.split() == ["[]"]


def test_backend_and_device_are_validated_with_the_fix_named(monkeypatch):
    assert check_backend("JAX", None) == ("jax", None) and check_backend("numpy", "cpu") == ("numpy", "cpu")
    with pytest.raises(ParameterError, match="unknown backend 'torch'"):
        check_backend("torch", None)
    with pytest.raises(ParameterError, match="unknown device 'tpu'"):
        Compute(backend="jax", device="tpu")
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "jax" else real(name, *a))
    with pytest.raises(ParameterError, match=r"pip install 'cbir-lens\[gpu\]'"):
        open_backend("jax", "cpu")


@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.skipif(bool(visible_gpus()), reason="a GPU is visible")
def test_device_gpu_without_a_gpu_is_one_clear_error(tmp_path):
    (tmp_path / "c.csv").write_text("ID,CUIs\nq,C0040405\nx,C0040405\n")
    (tmp_path / "r.trec").write_text("q Q0 x 1 1 s\n")
    process = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "--concepts", str(tmp_path / "c.csv"),
                              "--run", str(tmp_path / "r.trec"), "--json", str(tmp_path / "o.json"), "--backend", "jax",
                              "--device", "gpu"], capture_output=True, text=True, cwd=ROOT)
    assert process.returncode == 2
    assert process.stderr.strip().splitlines() == [
        "error: --device gpu: JAX sees no GPU (jax.devices('gpu') is empty); install JAX with its CUDA plugin on a GPU "
        "machine, or use --device cpu"]


@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_jax_that_cannot_start_is_one_clear_error(tmp_path, device):
    # A platform JAX does not know fails every platform, as a CUDA plugin that fails to start does on a GPU machine.
    (tmp_path / "c.csv").write_text("ID,CUIs\nq,C0040405\nx,C0040405\n")
    (tmp_path / "r.trec").write_text("q Q0 x 1 1 s\n")
    process = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "--concepts", str(tmp_path / "c.csv"),
                              "--run", str(tmp_path / "r.trec"), "--json", str(tmp_path / "o.json"), "--backend", "jax",
                              "--device", device], capture_output=True, text=True, cwd=ROOT,
                             env={**os.environ, "JAX_PLATFORMS": "nosuchplatform"})
    assert process.returncode == 2, process.stderr
    [line] = process.stderr.strip().splitlines()
    start = "error: --backend jax: JAX has no CPU device (" if device == "cpu" else "error: --device gpu: JAX could not start ("
    assert line.startswith(start) and "nosuchplatform" in line and line.endswith("JAX_PLATFORMS=cpu" + (
        " (or unset it), or fix the GPU plugin that fails to start" if device == "cpu" else ""))


# The two wheels of JAX's CUDA 13 plugin as JAX 0.11.2 ships them, and JAX's other discovery rule (an entry point).
PLUGIN_LAYOUTS = {
    "jax-cuda13-pjrt": {"jax_plugins/xla_cuda13/__init__.py": ""},  # a namespace package: no jax_plugins/__init__.py
    "jax-cuda13-plugin": {"jax_cuda13_plugin/__init__.py": ""},
    "entry point": {"fake_gpu_plugin-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: fake-gpu-plugin\nVersion: 1.0\n",
                    "fake_gpu_plugin-1.0.dist-info/entry_points.txt": "[jax_plugins]\nfake_gpu = fake_gpu_plugin_module\n"},
}


@pytest.mark.parametrize("layout", PLUGIN_LAYOUTS)
def test_dashboard_finds_jaxs_gpu_plugin_as_jax_does(tmp_path, monkeypatch, layout):
    if gpu_plugin_installed():
        pytest.skip("a real JAX plugin is installed here")
    calls = []
    monkeypatch.setattr(jax_backend, "visible_gpus", lambda: calls.append("probed") or ["a GPU"])
    assert not gpu_available() and calls == []  # no plugin: JAX is not even asked
    for relative, text in PLUGIN_LAYOUTS[layout].items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))  # also invalidates the import system's caches
    assert gpu_plugin_installed() and gpu_available() and calls == ["probed"]


class FakeGpu:
    """A device whose allocator reports these memory stats (None: it keeps none, as the CPU)."""

    def __init__(self, stats):
        self.stats = stats

    def memory_stats(self):
        return self.stats


@pytest.mark.parametrize("stats, budget", [
    ({"bytes_limit": 1000, "bytes_in_use": 100, "peak_bytes_in_use": 300}, 540),  # 0.6 x (1000 - 100) free
    ({"bytes_limit": 1000, "bytes_in_use": -1}, 600),  # an unset stat reads -1 through the PJRT C API
    ({"bytes_in_use": 100, "peak_bytes_in_use": -1}, CPU_DEFAULT_MEMORY),  # no limit known: the CPU default
    ({"bytes_limit": -1, "bytes_in_use": 0}, CPU_DEFAULT_MEMORY),
    (None, CPU_DEFAULT_MEMORY),
])
def test_gpu_budget_from_the_allocators_stats(stats, budget):
    ranker = JaxRanker("cpu")
    ranker.device, ranker.kind = FakeGpu(stats), "gpu"
    assert ranker.budget() == budget
    assert JaxRanker("cpu", device_memory=123).budget() == 123

def test_hand_worked_pool(worked_kg):
    # docs/DESIGN.md §2: q = {CT, vein}; x = {CT, vessel} nn-IoU 2/3 (IoU 1/3); y = {CT} 1/2; z = {MRI} 0;
    # w = {CT, vein} 1.
    concepts = ConceptSets(("q", "x", "y", "z", "w"), (
        frozenset({"C0040405", "C0042449"}), frozenset({"C0040405", "C0005847"}), frozenset({"C0040405"}),
        frozenset({"C0024485"}), frozenset({"C0040405", "C0042449"})))
    engine = PairwiseEngine(concepts, kg=worked_kg, compute=Compute(backend="jax", device="cpu"))
    summary, indices = engine.rank_by(nn_iou_measure(0.5, 1), k=6, threshold=0.5, depth=6)
    assert summary.ideal[0].tolist() == [1.0, 2 / 3, 0.5, 0.0, 0.0, 0.0]
    assert indices[0].tolist() == [4, 1, 2, 3, -1, -1]
    assert summary.relevant_counts[0] == 3 and summary.pool_sizes[0] == 4
    # By IoU (alpha = 0) y's 1/2 beats x's 1/3.
    assert engine.retrieve_by(nn_iou_measure(0.0, 0), 3)[0].tolist() == [4, 2, 1]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("measure", ["iou", "nn-iou(alpha=0.5,n=1)", "nn-iou(alpha=1,n=2)", "dice",
                                     "nn-tversky(alpha=0.5,n=1,a=0.7,b=0.3)", "nn-iou-hops(w1=0.5,w2=0.25)"])
def test_random_pools_with_many_ties_give_the_numpy_values_and_indices(seed, measure):
    # 8 concepts over 300 images: most pairs tie with many others. device_memory=1 forces the smallest
    # shapes: 8-query blocks, 128-candidate tiles, one tile per streamed chunk, padding everywhere.
    concepts, kg = random_world(seed, images=260, vocabulary=8, edges=10)
    reference = PairwiseEngine(concepts, kg=kg)
    small = PairwiseEngine(concepts, kg=kg, compute=Compute(backend="jax", device="cpu", device_memory=1))
    for k, depth in ((10, 0), (5, 40), (3, 259)):
        assert_same_pass(reference, small, measure, k, 0.4, depth)
    assert_same_pass(reference, PairwiseEngine(concepts, kg=kg, compute=Compute(backend="jax", device="cpu")), measure, 10, 0.4, 30)


@pytest.mark.slow
def test_queries_apart_from_the_pool_and_a_pool_smaller_than_k():
    concepts, kg = random_world(11, images=150, vocabulary=10)
    queries = ConceptSets(concepts.ids[:20] + ("new1", "new2"), concepts.sets[:20] + concepts.sets[5:7])
    assert_same_pass(PairwiseEngine(queries, concepts, kg=kg),
                     PairwiseEngine(queries, concepts, kg=kg, compute=Compute(backend="jax", device="cpu", device_memory=1)),
                     "nn-iou(alpha=0.5,n=1)", 4, 0.3, 25)
    tiny = concepts.subset(concepts.ids[:6])
    assert_same_pass(PairwiseEngine(tiny, kg=kg), PairwiseEngine(tiny, kg=kg, compute=Compute(backend="jax", device="cpu")),
                     "nn-iou(alpha=0.5,n=1)", 10, 0.5, 10)


@pytest.mark.slow
def test_one_compilation_serves_every_block():
    concepts, kg = random_world(4, images=400, vocabulary=12)
    engine = PairwiseEngine(concepts, kg=kg, compute=Compute(backend="jax", device="cpu", device_memory=1))
    PROGRAMS.clear()
    engine.rank_by(nn_iou_measure(0.5, 1), 10, 0.5, 20)
    engine.rank_by(nn_iou_measure(0.25, 1), 10, 0.5, 20)  # a new alpha: a new table of the same shape
    # 50 query blocks x 4 pool chunks, the last of each padded, twice over: one program, compiled once.
    assert [program._cache_size() for program in PROGRAMS.values()] == [1]


@pytest.mark.slow
def test_passes_it_cannot_run_exactly_fall_back_to_numpy_and_say_why():
    concepts, kg = random_world(2, images=80)
    reference = PairwiseEngine(concepts, kg=kg)
    engine = PairwiseEngine(concepts, kg=kg, compute=Compute(backend="jax", device="cpu"))
    expected = reference.rank_by(parse_measure("nn-iou-depth(alpha=1,n=1)"), 10, 0.5, 5)
    result = engine.rank_by(parse_measure("nn-iou-depth(alpha=1,n=1)"), 10, 0.5, 5)
    assert engine.last_pass.backend == "numpy" and "credit" in engine.last_pass.fallback_reason
    assert result[0].ideal.tolist() == expected[0].ideal.tolist() and result[1].tolist() == expected[1].tolist()
    hashed = PairwiseEngine(concepts, kg=kg, lookup_table_limit=10, compute=Compute(backend="jax", device="cpu"))
    measure = nn_iou_measure(0.5, 1)
    assert hashed.retrieve_by(measure, 7).tolist() == reference.retrieve_by(measure, 7).tolist()
    assert "look-up table" in hashed.last_pass.fallback_reason
    engine.retrieve_by(nn_iou_measure(0.5, 1), 7)
    assert engine.last_pass.text() == "jax on cpu"


@pytest.mark.slow
def test_demo_evaluation_and_rankings_are_the_numpy_ones():
    concepts = read_concepts(DEMO / "concepts.csv")
    kg = load_kg([DEMO / "kg_edges.csv"])
    runs = read_runs(DEMO / "runs" / "visual-confused.trec")
    metrics = ["CUI@10", "nn-CUI@10", "nn-MAP@10", "nn-R@30"]
    numpy_side, jax_side = Evaluator(concepts, kg), Evaluator(concepts, kg, compute=Compute(backend="jax", device="cpu"))
    assert jax_side.evaluate(runs, metrics).means() == numpy_side.evaluate(runs, metrics).means()
    assert jax_side.engine.last_pass.backend == "jax"
    ranked = jax_side.relevance_ranking(nn_iou_measure(0.5, 1), 30)
    assert ranked.documents.tolist() == numpy_side.relevance_ranking(nn_iou_measure(0.5, 1), 30).documents.tolist()


@pytest.mark.slow
@needs(ROCOV2 / "test_concepts.csv")
@needs(OPEN_KG)
def test_rocov2_test_queries_against_the_whole_test_pool():
    concepts = read_concepts(ROCOV2 / "test_concepts.csv")
    kg = load_kg([OPEN_KG])
    queries = concepts.subset(concepts.ids[::40])  # 249 queries x 9,927 candidates
    reference = PairwiseEngine(queries, concepts, kg=kg)
    engine = PairwiseEngine(queries, concepts, kg=kg, compute=Compute(backend="jax", device="cpu"))
    assert_same_pass(reference, engine, "nn-iou(alpha=0.5,n=1)", 10, 0.5, 30)
    assert_same_pass(reference, engine, "iou", 10, 0.5, 0)


@pytest.mark.slow
def test_cli_and_api_choose_the_backend(tmp_path):
    concepts, kg_path, run = DEMO / "concepts.csv", DEMO / "kg_edges.csv", DEMO / "runs" / "near-random.trec"
    outputs = {}
    for backend in ("numpy", "jax"):
        out = tmp_path / f"{backend}.json"
        assert main(["evaluate", "--concepts", str(concepts), "--kg", str(kg_path), "--run", str(run), "--k", "10",
                     "--json", str(out), "--backend", backend, "--device", "cpu"]) == 0
        outputs[backend] = json.loads(out.read_text())
        assert main(["retrieve", "--concepts", str(concepts), "--kg", str(kg_path), "--by", "nn-iou", "--depth", "20",
                     "--out", str(tmp_path / f"{backend}.trec"), "--backend", backend]) == 0
    assert outputs["jax"]["systems"] == outputs["numpy"]["systems"]
    assert (outputs["numpy"]["backend"], outputs["jax"]["backend"]) == ("numpy on cpu", "jax on cpu")
    assert (tmp_path / "jax.trec").read_text() == (tmp_path / "numpy.trec").read_text()
    scoring = evalcore.Scoring(["nn-CUI@10"])
    result = evalcore.evaluate(concepts, run, scoring, evalcore.Compute(backend="jax", device="cpu"), kg=kg_path)
    assert result.means() == evalcore.evaluate(concepts, run, scoring, kg=kg_path).means()


@pytest.mark.gpu
@GPU
def test_gpu_gives_the_numpy_values_and_indices():
    concepts, kg = random_world(0, images=2000, vocabulary=30, edges=40)
    reference = PairwiseEngine(concepts, kg=kg)
    engine = PairwiseEngine(concepts, kg=kg, compute=Compute(backend="jax", device="gpu"))
    assert engine.last_pass is None  # nothing ran yet
    for measure in ("iou", "nn-iou(alpha=0.5,n=1)", "nn-tversky(alpha=0.5,n=1,a=0.7,b=0.3)"):
        assert_same_pass(reference, engine, measure, 10, 0.5, 0)
        assert_same_pass(reference, engine, measure, 10, 0.5, 100)
    assert engine.last_pass.device.startswith("gpu")
    if (ROCOV2 / "test_concepts.csv").exists() and OPEN_KG.exists():
        concepts = read_concepts(ROCOV2 / "test_concepts.csv")
        kg = load_kg([OPEN_KG])
        on_gpu = Compute(backend="jax", device="gpu")
        assert_same_pass(PairwiseEngine(concepts, kg=kg), PairwiseEngine(concepts, kg=kg, compute=on_gpu),
                         "nn-iou(alpha=0.5,n=1)", 10, 0.5, 30)
