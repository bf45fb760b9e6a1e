"""Output files that are never lost, never half-written and never written over an input.

Every file the command line writes goes through this module:

* :func:`check_outputs`, before any work: an output may not resolve to an input (the same file,
  symbolic and hard links included) or to another output, and must be writable: its folder
  exists and takes new files, and an existing target is a regular file that may be written.
  A refusal names the path and says what was expected, before minutes of computation are spent.
* :func:`atomic_output`: the text goes to a temporary file beside the target, which is flushed,
  synced and then renamed into place (``os.replace``, atomic within a file system). A command
  that is stopped or fails part-way leaves the earlier file untouched and no partial one.
"""

from __future__ import annotations

import csv
import io
import os
import secrets
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO

from evalcore.data import ConceptSets
from evalcore.errors import CBIRLensError

PathLike = str | os.PathLike


def _same_file(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file: the same resolved path, or (both existing) the same inode.

    A path that cannot be looked up (a loop of links, a name too long) names no file here: reading or writing it
    is refused later with the system's reason, naming it."""
    try:
        return Path(os.path.realpath(a)) == Path(os.path.realpath(b)) or os.path.samefile(a, b)
    except (OSError, ValueError):  # either does not exist (yet) or cannot be looked up
        return False


def written_path(path: PathLike) -> Path:
    """The file an output path names: symbolic links followed (to a target that may not exist yet), as a plain
    ``open`` would write through them; the atomic write replaces that file and leaves the link in place."""
    return Path(os.path.realpath(path))


def check_output_writable(path: PathLike, option: str = "output") -> None:
    """Refuse an output that cannot be written, before any work is done.

    The folder must exist and accept a new file (probed by creating and removing one, which is
    what the atomic write will do), and an existing target must be a regular file with write
    permission: a device such as ``/dev/full`` or a file of ``/proc`` is refused, since renaming
    a temporary file over it would replace it rather than write to it. A path ending in ``/``
    names a folder, and a name too long for the file system is refused with the system's reason.

    >>> check_output_writable("/proc/version", "--json")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    evalcore.errors.CBIRLensError: --json /proc/version: expected ...
    """
    text = os.fspath(path)
    shown = f"{option} {text}" if option else text
    if text == "" or "\x00" in text:
        raise CBIRLensError(f"{option}: expected a file path, found {text!r}")
    if text.endswith(os.sep):
        raise CBIRLensError(f"{shown}: expected a file path, found a folder path (it ends in {os.sep})")
    try:
        target = written_path(text)
        try:
            # the path as given, links followed by the system: /dev/stdout leads to a pipe whose /proc name no
            # look-up of the resolved text finds
            mode = os.stat(text).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and stat.S_ISDIR(mode):
            raise CBIRLensError(f"{shown}: expected a file path, found a folder")
        if mode is not None and not stat.S_ISREG(mode):
            raise CBIRLensError(f"{shown}: expected a regular file or a new path, found a device, FIFO or socket")
        if mode is not None and not os.access(target, os.W_OK):
            raise CBIRLensError(f"{shown}: expected a file this user may write, found a read-only file")
        folder = target.parent
        if not folder.is_dir():
            raise CBIRLensError(f"{shown}: expected an existing folder for the output, found no folder {folder}")
    except OSError as error:  # a name too long, a loop of links, a folder that may not be searched
        raise CBIRLensError(f"{shown}: expected a path where a file can be written, found that it cannot be "
                            f"looked up ({error.strerror or error})") from None
    try:
        descriptor, probe = _open_temporary(target)
    except OSError as error:
        raise CBIRLensError(f"{shown}: expected a path where a new file can be written, found that {folder} does not "
                            f"accept one ({error.strerror or error})") from None
    os.close(descriptor)
    os.unlink(probe)


def check_outputs(outputs: Mapping[str, PathLike | None], inputs: Sequence[PathLike | None] = ()) -> None:
    """Refuse, before any work, outputs that would overwrite an input or each other, or that cannot be written.

    ``outputs`` maps an option name (``"--json"``) to its path (``None`` when not given);
    ``inputs`` lists every file the command reads (``None`` when not given; an empty path is refused).

    >>> check_outputs({"--json": "a.json", "--per-query": "./a.json"})
    Traceback (most recent call last):
    ...
    evalcore.errors.CBIRLensError: --per-query ./a.json: expected a path of its own, found the same file as --json a.json
    """
    given = [(option, path) for option, path in outputs.items() if path is not None]
    read = [path for path in inputs if path is not None]
    if any(os.fspath(path) == "" for path in read):  # "" would read the working folder, or silently mean none
        raise CBIRLensError("an input option was given an empty path (''): expected a file path; leave the option "
                            "out to give none")
    for position, (option, path) in enumerate(given):
        for earlier_option, earlier in given[:position]:
            if _same_file(Path(path), Path(earlier)):
                raise CBIRLensError(f"{option} {path}: expected a path of its own, found the same file as "
                                    f"{earlier_option} {earlier}")
        for source in read:
            if _same_file(Path(path), Path(source)):
                raise CBIRLensError(f"{option} {path}: expected an output path that is not one of the inputs, "
                                    f"found the input {source} (writing would destroy it)")
    for option, path in given:
        check_output_writable(path, option)


def _open_temporary(target: Path) -> tuple[int, Path]:
    """A new file beside ``target`` (same folder, so the final rename stays within one file system),
    created with the mode a plain ``open`` would give (0o666 less the umask)."""
    while True:
        # The name is cut so that the temporary file's stays within the 255 bytes a file name may have.
        temporary = target.with_name(f".{target.name[:200]}.{secrets.token_hex(4)}.part")
        try:
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temporary
        except FileExistsError:
            continue


@contextmanager
def atomic_output(path: PathLike, binary: bool = False) -> Iterator[TextIO | BinaryIO]:
    """A text handle (UTF-8, ``\\n`` line ends; bytes with ``binary``) whose content replaces ``path``
    only once complete.

    The content is written to a temporary file beside ``path``, synced to disk and renamed into
    place; on any error (or an interrupt) the temporary file is removed and ``path`` is left as
    it was. A failure to write names the path.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with atomic_output(folder / "out.txt") as handle:
    ...     _ = handle.write("complete\\n")
    >>> (folder / "out.txt").read_text(), sorted(p.name for p in folder.iterdir())
    ('complete\\n', ['out.txt'])
    """
    target = written_path(path)
    try:
        descriptor, temporary = _open_temporary(target)
    except OSError as error:
        raise CBIRLensError(f"{target}: could not create the output file ({error.strerror or error})") from None
    try:
        opened = os.fdopen(descriptor, "wb") if binary else os.fdopen(descriptor, "w", encoding="utf-8", newline="")
        with opened as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise CBIRLensError(f"{target}: could not write the output file ({error.strerror or error}); "
                            "an earlier file there is left as it was") from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_text_atomically(path: PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through :func:`atomic_output`."""
    with atomic_output(path) as handle:
        handle.write(text)


def write_texts_atomically(outputs: Sequence[tuple[PathLike, str]]) -> None:
    """Write each ``(path, text)`` of ``outputs`` through :func:`atomic_output`, all of them or none: every text is
    written and synced beside its target before the first is renamed into place, so a failure to write one (a full
    disk, a file size limit) leaves every earlier file as it was, not one command's outputs from two runs.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> write_texts_atomically([(folder / "a.csv", "a\\n"), (folder / "b.csv", "b\\n")])
    >>> sorted((p.name, p.read_text()) for p in folder.iterdir())
    [('a.csv', 'a\\n'), ('b.csv', 'b\\n')]
    """
    with ExitStack() as stack:
        for path, text in outputs:
            handle = stack.enter_context(atomic_output(path))
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())


def concepts_csv(concepts: ConceptSets) -> str:
    """Concept sets as ROCOv2 writes them: ``ID,CUIs`` with a header, the CUIs of an image sorted and joined by
    ``;`` (an image with none keeps its row, empty), in the sets' order.

    >>> print(concepts_csv(ConceptSets(("a", "b"), (frozenset({"C0040405", "C0006104"}), frozenset()))), end="")
    ID,CUIs
    a,C0006104;C0040405
    b,
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(("ID", "CUIs"))
    writer.writerows((image_id, ";".join(sorted(concept_set))) for image_id, concept_set in zip(concepts.ids, concepts.sets))
    return buffer.getvalue()
