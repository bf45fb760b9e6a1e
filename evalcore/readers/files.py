"""Bytes in, within limits: the one way every reader opens an input.

A path must be a regular file (never a device, FIFO, socket or directory) and an input
must fit its byte budget (:func:`max_input_bytes`); text must be UTF-8 without NUL bytes,
and a streamed file's lines are bounded by :data:`MAX_LINE_BYTES`. Every refusal is an
:class:`~evalcore.errors.InputError` naming the file and, where there is one, the line.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, Union

from evalcore.decimals import decimal_integer
from evalcore.errors import PLAIN_TEXT, InputError, ParameterError, decoded_text, file_kind
from evalcore.readers.columnar import line_aligned_pieces

Source = Union[str, Path, bytes]
DEFAULT_MAX_FILE_BYTES = 1 << 30
# A depth-1000 run over 80,000 queries with ROCOv2-length IDs: 80 M lines of about 87 bytes.
DEFAULT_MAX_RUN_BYTES = 8 << 30
# UMLS's MRREL.RRF is several GB; it is streamed, so memory follows the is_a rows kept, not the file size.
DEFAULT_MAX_MRREL_BYTES = 64 << 30
INPUT_BUDGET_VARIABLE = "CBIR_LENS_MAX_INPUT_BYTES"
READ_PIECE_BYTES = 64 << 20
# The longest line a streamed file (TREC run, MRREL.RRF) may hold: a run line is about 100 bytes and a MRREL line
# under 10 kB, so a longer one is not such a line, and refusing it bounds what is buffered while its end is sought.
MAX_LINE_BYTES = 1 << 20


def max_input_bytes(default: int = DEFAULT_MAX_FILE_BYTES) -> int:
    """The byte budget of one input file: ``CBIR_LENS_MAX_INPUT_BYTES`` if set, else ``default``.

    The default is 1 GiB, and 8 GiB for runs (:data:`DEFAULT_MAX_RUN_BYTES`: a depth-1000 run
    over 80,000 queries). The CLI's ``--max-input-bytes`` sets the same variable, so every
    reader, in this process and in its workers, enforces one budget when one is given.
    """
    raw = os.environ.get(INPUT_BUDGET_VARIABLE, "")
    if not raw:
        return default
    budget = decimal_integer(raw, 10**18)
    if budget is None:
        raise ParameterError(f"{INPUT_BUDGET_VARIABLE} must be a whole number of bytes (at most 10^18), "
                             f"got {raw[:40]!r}")
    if budget < 1:
        raise ParameterError(f"{INPUT_BUDGET_VARIABLE} must be at least 1 byte, got {budget}")
    return budget


#: What a reader expected of a path, in plain words.
PLAIN_FILE = "a file that can be read (not a folder or a device)"


def _describe_budget(budget: int) -> str:
    return f"at most {budget:,} bytes (raise it with --max-input-bytes or {INPUT_BUDGET_VARIABLE})"


def _over_budget(display: str, budget: int, found: str) -> InputError:
    """A file larger than ``budget`` bytes, in both readers' words (the plain one names no setting)."""
    return InputError(display, None, _describe_budget(budget), found,
                      plain_expected=f"a file of at most {budget:,} bytes (the research team can raise this limit)")


def read_bytes(source: Source, name: str | None, default_budget: int = DEFAULT_MAX_FILE_BYTES) -> tuple[bytes, str]:
    """Read a regular file (never a device, FIFO, socket or directory) within the byte budget.

    The budget is checked against the file's size before reading and enforced while
    reading, so a file that grows or lies about its size cannot take more memory than the
    budget allows. A file within the budget that does not fit in memory is refused too.
    """
    budget = max_input_bytes(default_budget)
    if isinstance(source, bytes):
        display = name or "upload"
        if len(source) > budget:
            raise _over_budget(display, budget, f"{len(source):,} bytes")
        return source, display
    display = name or str(source)
    handle, size = open_regular(Path(source), display, budget)
    with handle:
        try:
            data = _read_within(handle, min(size, budget), budget)
        except MemoryError:
            raise InputError(display, None, "a file that fits in this machine's memory", f"{size:,} bytes",
                             plain_expected="a file small enough for this server's memory") from None
    if len(data) > budget:
        raise _over_budget(display, budget, "more")
    return data, display


def open_regular(path: Path, display: str, budget: int) -> tuple[BinaryIO, int]:
    """An open binary handle on a regular file whose size is within ``budget``, and that size."""
    if "\0" in str(path):  # (no file system path holds one; os.stat would raise a bare ValueError)
        raise InputError(display.replace("\0", "\\0"), None, "a file path", "a NUL character in the path",
                         plain_expected=PLAIN_FILE)
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise InputError(display, None, "a readable regular file", error.strerror or str(error),
                         plain_expected=PLAIN_FILE) from None
    if not stat.S_ISREG(mode):
        raise InputError(display, None, "a regular file", file_kind(mode), plain_expected=PLAIN_FILE)
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO after the check, open() must not wait for a writer.
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as error:
        raise InputError(display, None, "a readable regular file", error.strerror or str(error),
                         plain_expected=PLAIN_FILE) from None
    handle = os.fdopen(descriptor, "rb")
    opened = os.fstat(handle.fileno())
    if not stat.S_ISREG(opened.st_mode):
        handle.close()
        raise InputError(display, None, "a regular file", file_kind(opened.st_mode), plain_expected=PLAIN_FILE)
    if opened.st_size > budget:
        handle.close()
        raise _over_budget(display, budget, f"{opened.st_size:,} bytes")
    return handle, opened.st_size


def _read_within(handle, expected: int, budget: int) -> bytes:
    """Read ``expected`` bytes and one more; if the file grew meanwhile, go on a piece at a time up to
    ``budget + 1`` bytes (a single read of the whole budget would reserve that much memory at once)."""
    pieces = [handle.read(expected + 1)]
    total = len(pieces[0])
    while expected < total <= budget:
        piece = handle.read(min(READ_PIECE_BYTES, budget + 1 - total))
        if not piece:
            break
        pieces.append(piece)
        total += len(piece)
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def read_input_bytes(source: Source, name: str | None = None) -> tuple[bytes, str]:
    """The bytes of a regular file within the byte budget, and its display name (see :func:`max_input_bytes`).

    >>> read_input_bytes(b"a,b", "pairs.csv")
    (b'a,b', 'pairs.csv')
    """
    return read_bytes(source, name)


def read_text(source: Source, name: str | None = None) -> tuple[str, str]:
    """Decode a file as UTF-8 (a BOM is dropped); return ``(text, display name)``.

    >>> read_text(b"\\xef\\xbb\\xbfID,CUIs\\r\\n", "x.csv")
    ('ID,CUIs\\r\\n', 'x.csv')
    """
    data, display = read_bytes(source, name)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    return decoded_text(data, display), display


def read_checked_bytes(source: Source, name: str | None, default_budget: int = DEFAULT_MAX_FILE_BYTES) -> tuple[bytes, str]:
    """The file's bytes, checked as :func:`read_text` checks them (UTF-8, no NUL; a BOM is dropped) but not decoded.

    >>> read_checked_bytes(b"a\\n\\xff\\n", "x.txt")
    Traceback (most recent call last):
    ...
    evalcore.errors.InputError: x.txt, line 2: expected UTF-8 text, found byte 0xff
    """
    data, display = read_bytes(source, name, default_budget)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    _check_text(data, display)
    return data, display


def _check_text(data: bytes, display: str) -> None:
    """Refuse bytes that are not UTF-8 or hold a NUL, naming the line."""
    _check_utf8(data, display)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise _nul_error(data, nul, display)


def _check_utf8(data: bytes, display: str, first_line: int = 1) -> None:
    """Refuse bytes that are not UTF-8, naming the line (``data`` begins on line ``first_line``)."""
    if not data.isascii():
        for start, end in line_aligned_pieces(data):
            try:
                data[start:end].decode("utf-8")
            except UnicodeDecodeError as error:
                position = start + error.start
                raise InputError(display, first_line + data.count(b"\n", 0, position), "UTF-8 text",
                                 f"byte 0x{data[position]:02x}", plain_expected=PLAIN_TEXT) from None


def _nul_error(data: bytes, position: int, display: str, first_line: int = 1) -> InputError:
    return InputError(display, first_line + data.count(b"\n", 0, position), "text", "a NUL byte (binary file?)",
                      plain_expected=PLAIN_TEXT)


def _checked_in_order(pieces: Iterator[Piece], display: str) -> Iterator[Piece]:
    """Pieces checked as :func:`_check_text` checks a whole file: a byte that is not UTF-8 anywhere comes before
    a NUL byte anywhere, so after a NUL the remaining pieces are still checked for UTF-8. Then a line longer than
    :data:`MAX_LINE_BYTES` is refused (whether the pieces were read from a file or from memory)."""
    for piece, line, line_feeds in pieces:
        _check_utf8(piece, display, line)
        nul = piece.find(b"\x00")
        if nul >= 0:
            try:
                for later, later_line, _ in pieces:
                    _check_utf8(later, display, later_line)
            except InputError as error:
                if error.expected == "UTF-8 text":
                    raise
            raise _nul_error(piece, nul, display, line)
        long_line = first_long_line(piece)
        if long_line is not None:
            raise long_line_error(piece, long_line, display, line)
        yield piece, line, line_feeds
        del piece  # so that the reader may reuse the piece's memory


def first_long_line(data: bytes | bytearray) -> int | None:
    """The offset of the first line of ``data`` longer than :data:`MAX_LINE_BYTES` (line feed not counted), or None.

    Each step looks for the last line feed within the next ``MAX_LINE_BYTES + 1`` bytes, so a piece of usual
    lines is crossed in about ``len(data) / MAX_LINE_BYTES`` steps.

    >>> first_long_line(b"ab\\n" + b"x" * (MAX_LINE_BYTES + 1)), first_long_line(b"ab\\n" + b"x" * MAX_LINE_BYTES)
    (3, None)
    """
    position = 0
    while len(data) - position > MAX_LINE_BYTES:
        newline = data.rfind(b"\n", position, position + MAX_LINE_BYTES + 1)
        if newline < 0:
            return position
        position = newline + 1
    return None


def long_line_error(data: bytes | bytearray, position: int, display: str, first_line: int) -> InputError:
    return InputError(display, first_line + data.count(b"\n", 0, position), f"a line of at most {MAX_LINE_BYTES:,} bytes",
                      f"one of more than {MAX_LINE_BYTES:,} bytes with no line feed",
                      plain_expected=f"lines of at most {MAX_LINE_BYTES:,} bytes (a text file, not a binary one)")


def _unfinished_line_error(line_start: bytes, line: int, display: str) -> InputError:
    """Why a line whose first ``MAX_LINE_BYTES`` and more bytes hold no line feed is refused, without reading on to
    its end: a byte that is not UTF-8 in what was read, else a NUL byte, else its length."""
    end = len(line_start) - 1
    while end > 0 and line_start[end] & 0xC0 == 0x80:  # the read may have cut the last character: leave it out
        end -= 1
    _check_utf8(line_start[:end], display, line)
    nul = line_start.find(b"\x00")
    if nul >= 0:
        return _nul_error(line_start, nul, display, line)
    return long_line_error(line_start, 0, display, line)


# A piece of a file: its bytes (ending with a line feed, but for the file's last), the number of the line
# it begins on, and the number of line feeds in it.
Piece = tuple[Union[bytes, bytearray], int, int]


def checked_pieces(source: Source, name: str | None, default_budget: int, size: int
                   ) -> tuple[str, int, Iterator[Piece]]:
    """A file as line-aligned pieces of about ``size`` bytes, checked as :func:`read_checked_bytes` checks a whole
    file (see :func:`_checked_in_order`): the display name, the file's size, and the pieces.

    A path is read one piece at a time, so the whole file is never in memory; the byte budget is checked
    before reading and enforced while reading, as :func:`read_checked_bytes` does.
    """
    budget = max_input_bytes(default_budget)
    if isinstance(source, bytes):
        data, display = read_bytes(source, name, default_budget)
        total = len(data)

        def from_memory() -> Iterator[Piece]:
            start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
            line = 1
            for begin, end in line_aligned_pieces(data, size, start):
                piece = data[begin:end]
                line_feeds = piece.count(b"\n")
                yield piece, line, line_feeds
                line += line_feeds

        return display, total, _checked_in_order(from_memory(), display)
    display = name or str(source)
    handle, total = open_regular(Path(source), display, budget)

    def from_file() -> Iterator[Piece]:
        with handle:
            carried, read, line = b"", 0, 1  # carried: the unfinished last line of what was read
            buffer = bytearray()
            while True:
                if len(carried) > MAX_LINE_BYTES:  # refused before reading more of it: what is buffered stays bounded
                    raise _unfinished_line_error(carried, line, display)
                # Read into a buffer that already holds the carried line, so a piece is never copied; a line
                # longer than a piece doubles the next read, so that a huge line is not copied over and over.
                # No more than the file holds (plus a byte, to see its end): a small file gets a small buffer.
                wanted = len(carried) + min(max(size, len(carried)), budget + 1 - read, max(total + 1 - read, 1 << 16))
                if sys.getrefcount(buffer) == 2:  # nobody holds the last piece: reuse its memory (no page faults)
                    del buffer[wanted:]
                    buffer.extend(bytes(wanted - len(buffer)))
                else:
                    buffer = bytearray(wanted)
                buffer[:len(carried)] = carried
                got = _read_into(handle, buffer, len(carried))
                read += got
                if read > budget:
                    raise _over_budget(display, budget, "more")
                del buffer[len(carried) + got:]
                if got:
                    cut = buffer.rfind(b"\n") + 1
                    if not cut:
                        carried = bytes(buffer)
                        continue
                    carried = bytes(buffer[cut:])
                    del buffer[cut:]
                else:
                    carried = b""
                if line == 1 and buffer.startswith(b"\xef\xbb\xbf"):
                    del buffer[:3]
                if buffer:
                    line_feeds = buffer.count(b"\n")
                    yield buffer, line, line_feeds
                    line += line_feeds
                if not got:
                    return

    return display, total, _checked_in_order(from_file(), display)


def _read_into(handle: BinaryIO, buffer: bytearray, start: int) -> int:
    """Fill ``buffer`` from ``start`` on (less only at the end of the file); the number of bytes read."""
    with memoryview(buffer) as view:
        done = start
        while done < len(buffer):
            with view[done:] as rest:
                got = handle.readinto(rest)
            if not got:
                break
            done += got
    return done - start


def line_aligned_reads(handle, display: str, budget: int) -> Iterator[tuple[bytes, int]]:
    """Pieces of about :data:`READ_PIECE_BYTES` that end after a line feed (or at the end), with the number of
    their first line; a file that grows past the budget while it is read is refused."""
    carry, line, total = b"", 1, 0
    while True:
        if len(carry) > MAX_LINE_BYTES:  # refused before reading more of it: what is buffered stays bounded
            raise _unfinished_line_error(carry, line, display)
        block = handle.read(READ_PIECE_BYTES)
        total += len(block)
        if total > budget:
            raise _over_budget(display, budget, "more")
        if not block:
            if carry:
                yield carry, line
            return
        cut = block.rfind(b"\n")
        if cut < 0:
            carry += block
            continue
        whole = block if cut == len(block) - 1 else block[: cut + 1]
        piece, carry = (carry + whole if carry else whole), block[cut + 1:]
        yield piece, line
        line += piece.count(b"\n")
