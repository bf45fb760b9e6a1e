"""Upload limits: zip traversal and bombs, decompression bombs, oversized lists, the configured upload cap."""

from __future__ import annotations

import io
import tomllib
import zipfile

import pytest
from PIL import Image

from evalcore.app.workspace import read_image_zip, thumbnail
from evalcore.errors import CBIRLensError, InputError
from evalcore.readers import DEFAULT_MAX_RUN_BYTES, MAX_CONCEPTS_PER_IMAGE, read_concepts
from tests.conftest import ROOT


def zipped(name: str, data: bytes, compress: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as archive:
        archive.writestr(name, data)
    return buffer.getvalue()


def png(size=(8, 8)) -> bytes:
    buffer = io.BytesIO()
    Image.new("L", size).save(buffer, format="PNG")
    return buffer.getvalue()


def test_zip_path_traversal_and_bombs_are_refused():
    assert set(read_image_zip(zipped("img1.png", png()), "ok.zip")) == {"img1"}
    for name in ("../evil.png", "/etc/evil.png", "a/../../evil.png"):
        with pytest.raises(CBIRLensError, match="unsafe path"):
            read_image_zip(zipped(name, png()), "bad.zip")
    with pytest.raises(CBIRLensError, match="zip bomb"):
        read_image_zip(zipped("big.png", b"\0" * (5 << 20), compress=True), "bomb.zip")
    with pytest.raises(CBIRLensError, match="zip archive"):
        read_image_zip(b"not a zip", "x.zip")


def test_images_open_only_as_safe_thumbnails():
    image = thumbnail(png((1000, 600)))
    assert image is not None and max(image.size) <= 256
    assert thumbnail(b"garbage") is None
    huge = io.BytesIO()
    Image.new("1", (12000, 12000)).save(huge, format="PNG")  # 144 Mpx, beyond Pillow's bomb limit
    assert thumbnail(huge.getvalue()) is None


def test_too_many_concepts_per_image_is_reported():
    row = ";".join(f"C{i:07d}" for i in range(MAX_CONCEPTS_PER_IMAGE + 1))
    with pytest.raises(InputError, match="concepts per image") as error:
        read_concepts(f"ID,CUIs\nimg,{row}\n".encode(), "many.csv")
    assert error.value.line == 2


# A depth-1000 run over ROCOv2 test with 20-character tags and 18-character scores: 9,927,000 lines of 96 bytes.
LONG_DEPTH_1000_RUN_BYTES = 9_927_000 * 96


def test_upload_size_fits_a_depth_1000_run_and_stays_within_the_run_budget():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    limit = config["server"]["maxUploadSize"] << 20  # Streamlit's limit is in MiB
    assert LONG_DEPTH_1000_RUN_BYTES < limit < min(DEFAULT_MAX_RUN_BYTES, 1 << 31)
