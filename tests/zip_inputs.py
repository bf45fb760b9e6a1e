"""Zips of images, good and damaged, built in memory for the tests of uploads (library, Data page, CLI).

Each damaged zip holds one image member, ``scan.png``, and is damaged in one way: a byte of its stored data
flipped (the CRC-32 no longer matches), its deflate stream made invalid, its encryption flag set, or its
compression method patched to bzip2 in both headers.
"""

from __future__ import annotations

import io
import random
import struct
import zipfile
import zlib

from PIL import Image

MEMBER = "scan.png"
# Offsets of header fields: the general-purpose flags and the compression method, in the local file header
# (signature PK\3\4) and in the central directory record (signature PK\1\2).
LOCAL, CENTRAL = b"PK\x03\x04", b"PK\x01\x02"
LOCAL_FLAGS, LOCAL_METHOD, CENTRAL_FLAGS, CENTRAL_METHOD = 6, 8, 8, 10
LOCAL_HEADER_BYTES = 30


def mib(size: int) -> str:
    """A size as the messages about image budgets show it."""
    return f"{size / (1 << 20):,.1f} MiB"


def png(size: tuple[int, int] = (8, 8), seed: int = 0) -> bytes:
    """A small PNG of noise (its deflate stream does not shrink to a few bytes)."""
    rng = random.Random(seed)
    image = Image.frombytes("L", size, rng.randbytes(size[0] * size[1]))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def zipped(files: dict[str, bytes], method: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _patched_field(data: bytes, local: int, central: int, value: int, bits: bool = False) -> bytes:
    """The one-member zip ``data`` with a 16-bit field set (or, with ``bits``, or-ed) in both of its headers."""
    patched = bytearray(data)
    for signature, offset in ((LOCAL, local), (CENTRAL, central)):
        at = patched.index(signature) + offset
        old = struct.unpack_from("<H", patched, at)[0]
        struct.pack_into("<H", patched, at, old | value if bits else value)
    return bytes(patched)


def bad_crc_zip() -> bytes:
    """A stored member with one byte of its data flipped: it reads whole, then fails its CRC-32."""
    image = png()
    data = bytearray(zipped({MEMBER: image}))
    at = data.index(image) + len(image) // 2
    data[at] ^= 0xFF
    return bytes(data)


def corrupt_deflate_zip() -> bytes:
    """A deflated member whose stream starts with block type 3, which no deflate stream has."""
    data = bytearray(zipped({MEMBER: png() * 4}, zipfile.ZIP_DEFLATED))
    data[LOCAL_HEADER_BYTES + len(MEMBER)] = 0xFF  # BFINAL 1, BTYPE 11 (reserved)
    return bytes(data)


def encrypted_zip() -> bytes:
    """A member flagged as encrypted (general-purpose flag bit 0) in both headers."""
    return _patched_field(zipped({MEMBER: png()}), LOCAL_FLAGS, CENTRAL_FLAGS, 0x1, bits=True)


def bzip2_zip() -> bytes:
    """A member whose compression method reads 12 (bzip2) in both headers."""
    return _patched_field(zipped({MEMBER: png()}, zipfile.ZIP_DEFLATED), LOCAL_METHOD, CENTRAL_METHOD,
                          zipfile.ZIP_BZIP2)


#: Damaged zips by case name, with what the one message must say beside the zip's and the member's names.
DAMAGED = {
    "bad-crc": (bad_crc_zip, "CRC-32"),
    "corrupt-deflate": (corrupt_deflate_zip, "deflate stream"),
    "encrypted": (encrypted_zip, "encrypted"),
    "unsupported-method": (bzip2_zip, "compression method 12 (bzip2)"),
}


def compressible_payload(size: int, seed: int = 0) -> bytes:
    """``size`` bytes that deflate (level 1) shrinks about 49 times, the ratio of issue 33's zip of 50 members of
    20 MiB in 20 MiB: 1,000 random bytes, then 66,000 zeros, over and over."""
    chunk = random.Random(seed).randbytes(1000) + bytes(66_000)
    return (chunk * (size // len(chunk) + 1))[:size]


def zip_of_copies(payload: bytes, count: int) -> bytes:
    """A zip of ``count`` deflated members ``img0.png``, ``img1.png``, ... each holding ``payload``.

    The payload is compressed once and its stream written ``count`` times (zipfile would compress it again for
    every member: seconds for a gigabyte); each member has its own copy of the stream, as a real zip does.
    """
    compressor = zlib.compressobj(1, zlib.DEFLATED, -15)
    stream = compressor.compress(payload) + compressor.flush()
    crc = zlib.crc32(payload)
    local, central = io.BytesIO(), io.BytesIO()
    for number in range(count):
        name = f"img{number}.png".encode()
        offset = local.tell()
        local.write(struct.pack("<4s5H3L2H", LOCAL, 20, 0, zipfile.ZIP_DEFLATED, 0, 0, crc, len(stream),
                                len(payload), len(name), 0) + name + stream)
        central.write(struct.pack("<4s6H3L5H2L", CENTRAL, 20, 20, 0, zipfile.ZIP_DEFLATED, 0, 0, crc, len(stream),
                                  len(payload), len(name), 0, 0, 0, 0, 0, offset) + name)
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, count, count, central.tell(), local.tell(), 0)
    return local.getvalue() + central.getvalue() + end
