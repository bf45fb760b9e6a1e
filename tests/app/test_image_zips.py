"""Zips of images held as uploaded: bounded by what they hold per session and per server, and damaged members
refused with one message naming the zip and the member (issue 33, item 9)."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from evalcore.app import workspace as w
from evalcore.app.workspace import (
    MAX_IMAGE_BYTES,
    ImageFiles,
    Workspace,
    read_image_zip,
    server_image_bytes,
    with_images,
)
from evalcore.errors import CBIRLensError, InputError
from tests import zip_inputs as z

MIB = 1 << 20


@pytest.fixture(scope="module")
def big_zip() -> tuple[bytes, bytes]:
    """Issue 33's zip: 50 members of 20 MiB, about 49:1 (under the bomb ratio of 200), and one member's bytes."""
    payload = z.compressible_payload(MAX_IMAGE_BYTES)
    return z.zip_of_copies(payload, 50), payload


def settled_server_bytes() -> int:
    """The server's image bytes once the workspaces other tests dropped are collected."""
    gc.collect()
    return server_image_bytes()


@pytest.mark.parametrize("case", sorted(z.DAMAGED))
def test_a_damaged_member_is_refused_naming_the_zip_the_member_and_what_is_wrong(case: str):
    make, expected = z.DAMAGED[case]
    before = with_images(Workspace(), z.zipped({"img1.png": z.png()}), "good.zip")
    in_use = settled_server_bytes()
    with pytest.raises(InputError) as refused:
        with_images(before, make(), "images.zip")
    message = str(refused.value)
    assert message.startswith(f"images.zip: {z.MEMBER}: expected ") and expected in message, message
    assert "\n" not in message
    # The refused zip gave its reservation back at once, though the traceback that refused it is still alive.
    assert server_image_bytes() == in_use
    assert before.images["img1"] == z.png() and list(before.images) == ["img1"]


@pytest.mark.slow
def test_a_zip_expanding_to_1_gb_holds_its_compressed_bytes_and_reads_one_member_at_a_time(big_zip):
    data, payload = big_zip
    assert len(data) < 30 * MIB and 45 < 50 * len(payload) / len(data) < 53
    in_use = settled_server_bytes()
    tracemalloc.start()
    try:
        ws = with_images(Workspace(), data, "big.zip")
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(ws.images) == 50
    # The zip's bytes were allocated before tracing: what loading kept beside them is its index, and what it
    # inflated was one member at a time (zipfile's read buffers on top), never the gigabyte.
    assert kept < 1 * MIB and peak < 3 * MAX_IMAGE_BYTES, (kept, peak)
    assert len(data) < ws.images.held_bytes < len(data) + 50 * 1024
    assert server_image_bytes() - in_use == ws.images.held_bytes
    assert ws.images["img7"] == payload


@pytest.mark.slow
def test_a_few_sessions_loading_it_hold_a_few_times_the_zip_not_gigabytes(big_zip):
    data, _ = big_zip
    in_use = settled_server_bytes()
    sessions = [with_images(Workspace(), data, f"big{number}.zip") for number in range(3)]
    held = server_image_bytes() - in_use
    assert held == sum(ws.images.held_bytes for ws in sessions) < 3 * (len(data) + MIB)
    del sessions
    assert settled_server_bytes() == in_use


def test_a_session_may_hold_at_most_its_budget_and_a_replaced_zip_no_longer_counts(monkeypatch):
    first = z.zipped({f"a{n}.png": z.png(seed=n) for n in range(4)})
    second = z.zipped({f"b{n}.png": z.png(seed=n) for n in range(4)})
    ws = with_images(Workspace(), first, "first.zip")
    one_zip = ws.images.held_bytes
    monkeypatch.setattr(w, "MAX_SESSION_IMAGE_BYTES", one_zip + one_zip // 2)
    with pytest.raises(CBIRLensError) as refused:
        with_images(ws, second, "second.zip")
    assert str(refused.value).startswith("second.zip: holding its images takes ")
    assert f"more than the {z.mib(one_zip + one_zip // 2)} a session may hold ({z.mib(one_zip)} already in use)" \
        in str(refused.value)
    # The same images again replace the first zip's, which is then held no more: within the budget.
    again = with_images(ws, first, "first-again.zip")
    assert again.images.held_bytes == one_zip and sorted(again.images) == sorted(ws.images)
    # Another session has a budget of its own.
    assert sorted(with_images(Workspace(), second, "second.zip").images) == [f"b{n}" for n in range(4)]


def test_the_server_budget_counts_every_session_and_is_given_back_when_a_session_drops_its_images(monkeypatch):
    first = z.zipped({"a.png": z.png(seed=1)})
    second = z.zipped({"b.png": z.png(seed=2)})
    in_use = settled_server_bytes()
    session = with_images(Workspace(), first, "first.zip")
    size = session.images.held_bytes
    monkeypatch.setattr(w, "MAX_SERVER_IMAGE_BYTES", in_use + size + size // 2)
    with pytest.raises(CBIRLensError) as refused:
        with_images(Workspace(), second, "second.zip")
    assert str(refused.value).startswith("second.zip: holding its images takes ")
    assert f"the server may hold ({z.mib(in_use + size)} already in use)" in str(refused.value)
    assert server_image_bytes() == in_use + size
    session = session.with_inputs(images={})  # the session loads other data: its zip is garbage
    assert settled_server_bytes() == in_use
    assert list(with_images(Workspace(), second, "second.zip").images) == ["b"]


def test_a_zip_none_of_whose_images_is_kept_is_no_longer_held():
    images = read_image_zip(z.zipped({"a.png": z.png(), "b.png": z.png(seed=1)}), "ab.zip")
    in_memory = ImageFiles({"c": b"bytes"})
    assert images.only({"a"}).held_bytes == images.held_bytes
    assert images.only({"c"}).held_bytes == 0
    assert images.merged(in_memory).only({"c"}).held_bytes == 5
    assert images.only({"a"}).digest != images.digest and ImageFiles().digest == ImageFiles({}).digest


@pytest.mark.slow
def test_a_workspace_of_zip_images_digests_them_by_the_zip_without_inflating_them(big_zip):
    data, _ = big_zip
    ws = with_images(Workspace(), data, "big.zip")
    same = with_images(Workspace(), data, "again.zip")
    assert ws.digests["images"] == same.digests["images"]
    other = with_images(Workspace(), z.zip_of_copies(z.compressible_payload(MIB, seed=1), 50), "other.zip")
    assert other.digests["images"] != ws.digests["images"]
    assert repr(ws.images) == f"ImageFiles(50 images, {ws.images.held_bytes:,} bytes held)"


@pytest.mark.parametrize(("members", "found"), [({}, "0 files"), ({"notes.txt": b"x", "scans/": b""}, "2 files")])
def test_a_zip_without_an_image_is_refused_as_an_empty_file_is(members, found):
    """Loaded, it added nothing and said nothing (an empty concepts, run or names file is refused)."""
    with pytest.raises(InputError, match=rf"^e\.zip: expected a zip archive of <ID>\.png/\.jpg images, found no \.png "
                                         rf"or \.jpg file among its {found}$"):
        with_images(Workspace(), z.zipped(members), "e.zip")
