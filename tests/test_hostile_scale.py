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
from collections.abc import Iterator

import pytest

from evalcore.engine import PairwiseEngine
from evalcore.errors import CBIRLensError, ParameterError
from evalcore.executors import DaskCluster, parse_size

from .conftest import DEMO, ROOT, random_world

# --- 1. a memory size that overflows in bytes ------------------------------------------------------------------

@pytest.mark.parametrize("text", ["1e308GB", "1e300TiB"])
def test_a_memory_size_too_large_for_bytes_is_refused(text):
    with pytest.raises(ParameterError, match="too large"):
        parse_size(text)


def test_cli_refuses_an_overflowing_memory_size_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "evalcore", "retrieve", "--concepts", str(DEMO / "concepts.csv"),
                           "--by", "iou", "--out", str(tmp_path / "r.txt"), "--memory-per-worker", "1e308GB"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "too large" in done.stderr


# --- 2. Dask addresses that distributed cannot connect to -----------------------------------------------------

def rank_on(address: str) -> None:
    concepts, kg = random_world(1, images=30, vocabulary=6, edges=6)
    PairwiseEngine(concepts, kg=kg, executor=DaskCluster(address, timeout=3)).rank_by("iou", 3)


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
