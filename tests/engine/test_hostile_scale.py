"""Hostile inputs to the scale paths (QA hunt, /tmp/hunt/report.md): sizes that overflow, Dask addresses this
installation cannot reach or peers that are no scheduler, and small KG files whose depths or neighbour matrix
used to take minutes or all memory. Each is one clear error, or the same answer as the plain definition."""

from __future__ import annotations

import contextlib
import socket
import struct
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from evalcore.engine import Compute, PairwiseEngine
from evalcore.engine.executors import DaskCluster, parse_size
from evalcore.errors import CBIRLensError, ParameterError
from evalcore.relevance import kg as kg_module
from evalcore.relevance import taxonomy
from evalcore.relevance.kg import KnowledgeGraph
from evalcore.relevance.measures import parse_measure
from tests.conftest import DEMO, ROOT, random_world

# --- 1. a memory size that overflows in bytes ------------------------------------------------------------------

@pytest.mark.parametrize("text", ["1e308GB", "1e300TiB"])
def test_a_memory_size_too_large_for_bytes_is_refused(text):
    with pytest.raises(ParameterError, match="too large"):
        parse_size(text)


@pytest.mark.subprocess
@pytest.mark.slow
def test_cli_refuses_an_overflowing_memory_size_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "evalcore", "retrieve", "--concepts", str(DEMO / "concepts.csv"),
                           "--by", "iou", "--out", str(tmp_path / "r.txt"), "--memory-per-worker", "1e308GB"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "too large" in done.stderr


# --- 2. Dask addresses that distributed cannot connect to -----------------------------------------------------

def rank_on(address: str) -> None:
    concepts, kg = random_world(1, images=30, vocabulary=6, edges=6)
    PairwiseEngine(concepts, kg=kg, compute=Compute(executor=DaskCluster(address, timeout=3))).rank_by(parse_measure("iou"), 3)


@contextlib.contextmanager
def fake_scheduler(greeting: bytes) -> Iterator[str]:
    """A server on localhost that sends ``greeting`` to whoever connects, then keeps the connection open."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                connection, _ = server.accept()
                connection.sendall(greeting)
                held.append(connection)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        server.close()
        for connection in held:
            connection.close()


def test_tls_without_dask_tls_settings_says_what_is_needed():
    pytest.importorskip("distributed")
    with pytest.raises(CBIRLensError, match=r"tls://127\.0\.0\.1:1: a tls:// scheduler needs Dask's TLS"):
        rank_on("tls://127.0.0.1:1")


def test_ucx_without_distributed_ucxx_says_to_install_it():
    pytest.importorskip("distributed")
    if sys.modules.get("distributed_ucxx") is not None:
        pytest.skip("distributed-ucxx is installed here")
    with pytest.raises(CBIRLensError, match=r"ucx://127\.0\.0\.1:1: .*needs `distributed-ucxx` installed"):
        rank_on("ucx://127.0.0.1:1")


@pytest.mark.parametrize("scheme", ["tcp", "ws"])
def test_a_host_name_too_long_for_dns_is_one_clear_error(scheme):
    pytest.importorskip("distributed")
    address = f"{scheme}://{'a' * 300}:1"
    with pytest.raises(CBIRLensError, match="not a valid host name") as refused:
        rank_on(address)
    assert address in str(refused.value)


@pytest.mark.subprocess
@pytest.mark.parametrize("greeting", [
    struct.pack("<Q", 1) + struct.pack("<Q", 16) + b"\xff" * 16,  # the hunt's: a 1-byte message, then garbage
    struct.pack("<Q", 24) + struct.pack("<QQ", 1, 8) + b"\xc1" * 8,  # well framed, not msgpack
    struct.pack("<Q", 17) + struct.pack("<QQ", 1, 1) + b"\x01",  # msgpack, not a mapping of settings
], ids=["garbage-frame", "not-msgpack", "not-a-mapping"])
def test_a_peer_with_a_plausible_length_then_garbage_is_no_scheduler(greeting):
    pytest.importorskip("distributed")
    with fake_scheduler(greeting) as address, pytest.raises(CBIRLensError, match="is not a Dask scheduler") as refused:
        rank_on(address)
    assert address in str(refused.value) and "\n" not in str(refused.value)


# --- 3. is_a depths in linear time ----------------------------------------------------------------------------

def relaxed_depths(kg: KnowledgeGraph) -> np.ndarray:
    """The definition ``concept_depths`` had: relax 1 + the largest parent depth on the graph of is_a cycles
    collapsed until nothing changes, one pass per level (quadratic on a chain); the reference it must equal."""
    count, component = connected_components(kg.parents, directed=True, connection="strong")
    edges = kg.parents.tocoo()
    child, parent = component[edges.row], component[edges.col]
    between = child != parent
    collapsed = sp.csr_matrix((np.ones(int(between.sum()), dtype=np.int8), (child[between], parent[between])),
                              shape=(count, count))
    collapsed.sum_duplicates()
    depth = np.ones(count, dtype=np.int64)
    with_parent = np.flatnonzero(np.diff(collapsed.indptr) > 0)
    starts = collapsed.indptr[with_parent]
    for _ in range(count):
        updated = depth.copy()
        if len(with_parent):
            updated[with_parent] = np.maximum.reduceat(depth[collapsed.indices], starts) + 1
        if np.array_equal(updated, depth):
            break
        depth = updated
    return depth[component]


def graph_of(nodes: int, child: np.ndarray, parent: np.ndarray) -> KnowledgeGraph:
    keep = child != parent
    parents = sp.csr_matrix((np.ones(int(keep.sum()), dtype=np.int8), (child[keep], parent[keep])),
                            shape=(nodes, nodes))
    parents.sum_duplicates()
    parents.data[:] = 1
    return KnowledgeGraph(tuple(f"C{i:07d}" for i in range(nodes)), parents, {})


def random_taxonomy(seed: int) -> KnowledgeGraph:
    """A random is_a graph: mostly a DAG (child above parent in index), with some edges back up making cycles
    on odd seeds, wide and deep parts, and isolated nodes."""
    rng = np.random.default_rng(seed)
    nodes = int(rng.integers(1, 400))
    edges = int(rng.integers(0, 3 * nodes))
    first, second = rng.integers(0, nodes, edges), rng.integers(0, nodes, edges)
    child, parent = np.maximum(first, second), np.minimum(first, second)
    if seed % 2:
        back = rng.random(edges) < 0.03
        child[back], parent[back] = parent[back], child[back]
    return graph_of(nodes, child, parent)


@pytest.mark.parametrize("wide_level", [1, 4, 10**9])  # NumPy levels throughout, mixed, node by node throughout
def test_concept_depths_equal_the_relaxation_on_random_graphs_with_cycles(monkeypatch, wide_level):
    monkeypatch.setattr(taxonomy, "WIDE_LEVEL", wide_level)
    for seed in range(60):
        kg = random_taxonomy(seed)
        np.testing.assert_array_equal(taxonomy.concept_depths(kg), relaxed_depths(kg), err_msg=f"seed {seed}")


def test_concept_depths_of_a_long_chain_take_linear_time():
    """A chain 8 times as long takes about 8 times as long (the relaxation, one pass over all nodes per level, took
    64 times: ~25 s at 50,000 nodes); the bound, 24 times, leaves a loaded machine room."""
    def seconds(nodes: int) -> float:
        kg = graph_of(nodes, np.arange(1, nodes), np.arange(nodes - 1))
        start = time.perf_counter()
        depths = taxonomy.concept_depths(kg)
        elapsed = time.perf_counter() - start
        np.testing.assert_array_equal(depths, np.arange(1, nodes + 1))
        return elapsed

    reference = min(seconds(6_250) for _ in range(3))
    assert min(seconds(50_000) for _ in range(2)) < 24 * reference + 0.05


# --- 4. a hub KG whose neighbours within n hops would fill memory ----------------------------------------------

def hub_kg(children: int) -> KnowledgeGraph:
    """One parent (C0000000) with ``children`` children."""
    return graph_of(children + 1, np.arange(1, children + 1), np.zeros(children, dtype=np.int64))


def test_a_hub_whose_pairs_within_n_hops_exceed_the_limit_is_refused_before_the_product():
    kg = hub_kg(20_000)  # 4e8 sibling pairs at n = 2: gigabytes, and minutes
    tracemalloc.start()
    try:
        with pytest.raises(ParameterError,
                           match=r"20,001 nodes.*n = 2 \(undirected\).*smaller n, or the directed mode"):
            kg.neighbour_matrix(kg.nodes, 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20  # refused before the product, which would take gigabytes
    directed = kg.neighbour_matrix(kg.nodes, 2, "directed")  # child and parent only: 40,000 pairs
    assert directed.nnz == 2 * 20_000


def test_the_limit_on_pairs_changes_no_neighbours_below_it(monkeypatch):
    kg = hub_kg(300)
    plain = kg.neighbour_matrix(kg.nodes, 2)
    assert plain.nnz == 301 * 300  # all pairs: siblings through the parent, and parent-child
    # the products' sizes: hop 1, the parent to its 300 children and each child to the parent; hop 2, each child
    # on to its 300 siblings and itself (removed after the product), the parent back to itself from each child
    products = 2 * 300 + 300 * 300 + 300
    monkeypatch.setattr(kg_module, "MAX_NEIGHBOUR_PAIRS", products)
    np.testing.assert_array_equal(kg.neighbour_matrix(kg.nodes, 2).toarray(), plain.toarray())
    monkeypatch.setattr(kg_module, "MAX_NEIGHBOUR_PAIRS", products - 1)
    with pytest.raises(ParameterError, match="up to 90,900 concepts within 2 hop.*limit of 90,899 concept pairs"):
        kg.neighbour_matrix(kg.nodes, 2)


@pytest.mark.subprocess
@pytest.mark.slow
def test_cli_refuses_a_hub_kg_in_one_line(tmp_path):
    children = [f"C{i:07d}" for i in range(1, 20_001)]
    (tmp_path / "kg.csv").write_text("child,parent\n" + "".join(f"{c},C0000000\n" for c in children))
    (tmp_path / "c.csv").write_text("ID,CUIs\n" + "".join(f"img{i},{c}\n" for i, c in enumerate(children)))
    (tmp_path / "run.trec").write_text("img0 Q0 img1 1 1.0 r\n")
    done = subprocess.run([sys.executable, "-m", "evalcore", "evaluate", "--concepts", str(tmp_path / "c.csv"),
                           "--kg", str(tmp_path / "kg.csv"), "--run", str(tmp_path / "run.trec"), "--k", "1",
                           "--n", "2", "--json", str(tmp_path / "out.json")], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "directed mode" in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


@pytest.mark.parametrize("text", ["٢GB", "2\nGB", "1_000MB", "1e3000MB"])
def test_a_memory_size_takes_plain_ascii_decimals(text):
    with pytest.raises(ParameterError, match="expected a memory size such as 2GB"):
        parse_size(text)
