"""Saved workspaces: the inputs a session loaded, kept on a shared server under an unguessable ID for a while.

A store is a folder holding ``index.sqlite3`` (which workspaces exist, their load steps in order, their settings and
when they expire) and ``blobs/``, one file per distinct content, named by its digest
(:func:`evalcore.cache_keys.content_digest`), so that identical uploads are kept once.

Crash safety. A save writes each new blob to a temporary file in ``blobs/``, syncs it and renames it into place, and
only then writes the index rows, in one transaction: a process killed at any moment leaves the whole workspace or
none of it. A blob is deleted only while its deleter holds the index's write lock and no row refers to it, and a
save checks that its blobs are in place while it holds that lock, before it writes its rows (a blob collected in
between is written again): no row ever refers to a missing blob. What a killed save leaves behind, a temporary file
or a blob no row refers to, is reused by a later save of the same bytes or collected once a minute old.

Prepared results. Beside its inputs, a workspace may keep results computed on them (whatever bytes the caller
encodes: :mod:`evalcore.app.saved` keeps pool rankings and ideal summaries), each under a name of the caller's, as a
blob like the inputs' (written, synced and renamed before its row, in one transaction), at most
``max_prepared_bytes`` per workspace (the oldest dropped first to make room) and counted within the store's bound.
They are an optimisation: one that does not fit is not kept, a damaged one reads as absent, and they go with their
workspace when it is forgotten or expires.

There is deliberately no listing of workspaces: a workspace is opened only by whoever holds its ID.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     store = WorkspaceStore(folder)
...     saved = store.save([SavedInput("concepts", "concepts.csv", b"ID,CUIs")], {"alpha": "0.5"})
...     opened = store.open(saved)
...     kept = store.keep_prepared(saved, "ranking", b"...")
...     sizes = store.prepared_sizes(saved)
...     store.forget(saved)
>>> [(step.kind, step.name, step.data) for step in opened.inputs], opened.settings
([('concepts', 'concepts.csv', b'ID,CUIs')], {'alpha': '0.5'})
>>> round((opened.expires - opened.created) / 86400)
30
>>> kept, sizes
(True, {'ranking': 3})
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import secrets
import sqlite3
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from evalcore.cache_keys import content_digest
from evalcore.decimals import finite_decimal
from evalcore.errors import ParameterError, StoreError

#: The most bytes the inputs of one saved workspace may hold together.
DEFAULT_MAX_WORKSPACE_BYTES = 2 * 1024**3
#: The most bytes the blobs of all saved workspaces of a store may hold together.
DEFAULT_MAX_STORE_BYTES = 20 * 1024**3
#: The most bytes the prepared results kept with one saved workspace may hold together (ROCOv2 test's Leaderboard
#: with the three Table-1 baselines keeps about 10 MiB; each other slider setting adds a ranking of about 3 MiB).
DEFAULT_MAX_PREPARED_BYTES = 128 * 1024**2
#: How long a saved workspace is kept, in days from its saving.
DEFAULT_EXPIRY_DAYS = 30
#: The longest a workspace may be kept: a century (a longer one would end past the dates a clock can show).
MAX_EXPIRY_DAYS = 36_525
#: The latest time a record may hold, in seconds since the epoch: the year 9999, the last a date text shows.
MAX_SHOWN_SECONDS = 253_402_300_799
#: The environment variable that chooses the store's folder.
STORE_VARIABLE = "CBIR_LENS_STORE"
#: The index's file name in the store's folder.
INDEX_FILE = "index.sqlite3"
#: The folder of content-addressed files in the store's folder.
BLOB_FOLDER = "blobs"
#: Random bytes in a workspace ID: 192 bits, written as 32 URL-safe characters (base64, 6 bits each).
ID_RANDOM_BYTES = 24
ID_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{{ID_RANDOM_BYTES * 8 // 6}}}")
KIND_PATTERN = re.compile(r"[a-z_]{1,32}")
BLOB_NAME_PATTERN = re.compile(r"[0-9a-f]{64}")
MAX_NAME_CHARS = 1024
#: A prepared result's name: printable ASCII (JSON text, say), at most 512 characters.
PREPARED_NAME_PATTERN = re.compile(r"[ -~]{1,512}")
#: A temporary file, or a blob no workspace refers to, this many seconds old belongs to no save still running.
STALE_SECONDS = 60
#: How long a process waits for another's write to the index before giving up.
BUSY_TIMEOUT_SECONDS = 60
TEMPORARY_SUFFIX = ".part"
NO_SETTINGS: Mapping[str, str] = MappingProxyType({})
SECONDS_PER_DAY = 86400

SCHEMA = """
CREATE TABLE IF NOT EXISTS workspaces (
    id TEXT PRIMARY KEY, created REAL NOT NULL, expires REAL NOT NULL, settings TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS workspaces_by_expiry ON workspaces (expires);
CREATE TABLE IF NOT EXISTS inputs (
    workspace TEXT NOT NULL, position INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
    blob TEXT NOT NULL, size INTEGER NOT NULL, PRIMARY KEY (workspace, position));
CREATE INDEX IF NOT EXISTS inputs_by_blob ON inputs (blob);
CREATE TABLE IF NOT EXISTS prepared (
    workspace TEXT NOT NULL, name TEXT NOT NULL, blob TEXT NOT NULL, size INTEGER NOT NULL, kept REAL NOT NULL,
    PRIMARY KEY (workspace, name));
CREATE INDEX IF NOT EXISTS prepared_by_blob ON prepared (blob);
"""
#: Whether a row refers to a blob (``?`` twice: the digest), and every blob referred to with its size.
REFERS_TO_BLOB = "SELECT 1 FROM inputs WHERE blob = ? UNION ALL SELECT 1 FROM prepared WHERE blob = ? LIMIT 1"
BLOBS_REFERRED_TO = "SELECT blob, size FROM inputs UNION SELECT blob, size FROM prepared"


@dataclass(frozen=True)
class SavedInput:
    """One load step of a workspace: the kind of input (``"concepts"``, ``"run"``, ``"kg"``, ... any ``[a-z_]+``), the
    file's name as loaded and its bytes. The caller replays the steps in order."""

    kind: str
    name: str
    data: bytes


@dataclass(frozen=True)
class SavedWorkspace:
    """A workspace as saved: its load steps in order, its settings, and when it was saved and expires (seconds since
    the epoch; :func:`utc_time_text` writes them for a reader)."""

    workspace_id: str
    inputs: tuple[SavedInput, ...]
    settings: dict[str, str]
    created: float
    expires: float


@dataclass(frozen=True)
class SavedSummary:
    """A saved workspace's record without its bytes: the digest of its content, when it was saved and expires."""

    contents: str
    created: float
    expires: float


#: The environment variables of a server's store: its folder (:data:`STORE_VARIABLE`), how many days a saved
#: workspace is kept, and the most MiB of one workspace, of the whole store and of one workspace's prepared results.
EXPIRY_VARIABLE = "CBIR_LENS_STORE_EXPIRY_DAYS"
WORKSPACE_MIB_VARIABLE = "CBIR_LENS_STORE_MAX_WORKSPACE_MIB"
STORE_MIB_VARIABLE = "CBIR_LENS_STORE_MAX_MIB"
PREPARED_MIB_VARIABLE = "CBIR_LENS_STORE_MAX_PREPARED_MIB"


def store_from_environment(environment: Mapping[str, str] = os.environ,
                           named: Mapping[str, str] = MappingProxyType({})) -> WorkspaceStore:
    """The server's store, configured by its environment: the folder of :func:`default_store_directory`, and
    :data:`EXPIRY_VARIABLE`, :data:`WORKSPACE_MIB_VARIABLE`, :data:`STORE_MIB_VARIABLE`,
    :data:`PREPARED_MIB_VARIABLE` where set, each a number in ASCII decimal syntax
    (:func:`~evalcore.decimals.finite_decimal`: ``float()`` would also read ``٣٠`` and ``1_0``). A refusal names the
    variable, or what ``named`` calls it (the command line's option that set it).

    >>> store = store_from_environment({"CBIR_LENS_STORE": "/srv/store", "CBIR_LENS_STORE_EXPIRY_DAYS": "7"})
    >>> str(store.directory), store.expiry_days, store.max_workspace_bytes == DEFAULT_MAX_WORKSPACE_BYTES
    ('/srv/store', 7.0, True)
    >>> store_from_environment({"CBIR_LENS_STORE_MAX_PREPARED_MIB": "16"}).max_prepared_bytes // 2**20
    16
    >>> store_from_environment({"CBIR_LENS_STORE_EXPIRY_DAYS": "1_0"})
    Traceback (most recent call last):
    evalcore.errors.ParameterError: CBIR_LENS_STORE_EXPIRY_DAYS: expected a positive number of days, ... found '1_0'
    """
    def number(variable: str, default: float, least: float, most: float, what: str) -> float:
        text = environment.get(variable, "").strip()
        if not text:
            return default
        value = finite_decimal(text)
        if value is None or not least <= value <= most:
            syntax = ", in digits 0-9 such as 30 or 0.5" if value is None else ""
            raise ParameterError(f"{named.get(variable, variable)}: expected {what}{syntax}, found {text[:60]!r}")
        return value

    def mebibytes(variable: str, default: int) -> int:
        return int(number(variable, default / 2**20, 1 / 2**20, 2**40, "a number of MiB from 1/1048576 (one byte) "
                          "to 1099511627776") * 2**20)

    days = number(EXPIRY_VARIABLE, DEFAULT_EXPIRY_DAYS, math.ulp(0.0), MAX_EXPIRY_DAYS,
                  f"a positive number of days, at most {MAX_EXPIRY_DAYS:,}")
    return WorkspaceStore(default_store_directory(environment), expiry_days=days,
                          max_workspace_bytes=mebibytes(WORKSPACE_MIB_VARIABLE, DEFAULT_MAX_WORKSPACE_BYTES),
                          max_store_bytes=mebibytes(STORE_MIB_VARIABLE, DEFAULT_MAX_STORE_BYTES),
                          max_prepared_bytes=mebibytes(PREPARED_MIB_VARIABLE, DEFAULT_MAX_PREPARED_BYTES))


def default_store_directory(environment: Mapping[str, str] = os.environ) -> Path:
    """The store's folder: ``$CBIR_LENS_STORE`` when set, else a folder of the user's data folder (XDG).

    >>> default_store_directory({"CBIR_LENS_STORE": "/srv/cbir-lens"})
    PosixPath('/srv/cbir-lens')
    >>> default_store_directory({"XDG_DATA_HOME": "/home/ana/.data"})
    PosixPath('/home/ana/.data/cbir-lens/store')
    >>> default_store_directory({}) == Path.home() / ".local/share/cbir-lens/store"
    True
    """
    chosen = environment.get(STORE_VARIABLE, "")
    if chosen:
        return Path(chosen)
    data_home = environment.get("XDG_DATA_HOME", "")  # the XDG specification ignores a relative one
    return (Path(data_home) if os.path.isabs(data_home) else Path.home() / ".local" / "share") / "cbir-lens" / "store"


def utc_time_text(seconds: float) -> str:
    """A time as a reader sees it, in UTC.

    >>> utc_time_text(0)
    '1970-01-01 00:00 UTC'
    """
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))


def size_text(count: int) -> str:
    """A number of bytes in binary units, rounded up to one decimal (so that an amount over a limit never reads as
    the limit).

    >>> size_text(512), size_text(3 * 1024**2), size_text(2 * 1024**3 + 1)
    ('512 bytes', '3 MiB', '2.1 GiB')
    """
    for unit, scale in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if count >= scale:
            return f"{math.ceil(count / scale * 10) / 10:g} {unit}"
    return f"{count} bytes"


class WorkspaceStore:
    """Saved workspaces in the folder ``directory`` (created on first use), shared by the processes of a server.

    ``max_workspace_bytes`` bounds one workspace's inputs, ``max_store_bytes`` all the blobs of the store (inputs and
    prepared results), ``max_prepared_bytes`` one workspace's prepared results, and a workspace is removed
    ``expiry_days`` after it was saved, by the clock ``clock`` (seconds since the epoch). Every problem is raised
    as a :class:`evalcore.errors.StoreError` whose message names no server path.
    """

    def __init__(self, directory: str | os.PathLike[str], *, max_workspace_bytes: int = DEFAULT_MAX_WORKSPACE_BYTES,
                 max_store_bytes: int = DEFAULT_MAX_STORE_BYTES, expiry_days: float = DEFAULT_EXPIRY_DAYS,
                 clock: Callable[[], float] = time.time,
                 max_prepared_bytes: int = DEFAULT_MAX_PREPARED_BYTES) -> None:
        text = os.fspath(directory)
        if not text or "\x00" in text:
            raise ParameterError(f"directory: expected a folder path, found {text!r}")
        for option, value in (("max_workspace_bytes", max_workspace_bytes), ("max_store_bytes", max_store_bytes),
                              ("max_prepared_bytes", max_prepared_bytes)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ParameterError(f"{option}: expected a positive whole number of bytes, found {value!r}")
        if isinstance(expiry_days, bool) or not isinstance(expiry_days, (int, float)) or \
                not 0 < expiry_days <= MAX_EXPIRY_DAYS:
            raise ParameterError(f"expiry_days: expected a positive number of days, at most {MAX_EXPIRY_DAYS:,}, "
                                 f"found {expiry_days!r}")
        self.directory = Path(text)
        self.max_workspace_bytes = max_workspace_bytes
        self.max_store_bytes = max_store_bytes
        self.max_prepared_bytes = max_prepared_bytes
        self.expiry_days = expiry_days
        self.clock = clock
        self.blobs = self.directory / BLOB_FOLDER

    def save(self, inputs: Sequence[SavedInput], settings: Mapping[str, str] = NO_SETTINGS) -> str:
        """Save the load steps ``inputs`` (in order) and ``settings``; return the new workspace's ID, 32 URL-safe
        characters of 192 random bits. Expired workspaces are removed first."""
        steps = _checked_inputs(inputs)
        settings_text = _settings_json(settings)
        total = sum(len(step.data) for step in steps)
        if total > self.max_workspace_bytes:
            raise StoreError(f"These inputs hold {size_text(total)}, more than the {size_text(self.max_workspace_bytes)} "
                             "a saved workspace may hold; save fewer or smaller inputs.")
        digests = [content_digest(step.data) for step in steps]
        contents = dict(zip(digests, (step.data for step in steps)))
        with self._index_connection() as index:
            self._remove_expired(index)
            self._check_store_room(index, contents)
            self._put_blobs(contents)
            index.execute("BEGIN IMMEDIATE")  # from here no process deletes a blob until the rows are written
            self._check_store_room(index, contents)
            self._put_blobs(contents)  # those collected since they were written
            workspace_id = secrets.token_urlsafe(ID_RANDOM_BYTES)
            created = self.clock()
            index.execute("INSERT INTO workspaces VALUES (?, ?, ?, ?)",
                          (workspace_id, created, created + self.expiry_days * SECONDS_PER_DAY, settings_text))
            index.executemany("INSERT INTO inputs VALUES (?, ?, ?, ?, ?, ?)",
                              [(workspace_id, position, step.kind, step.name, digest, len(step.data))
                               for position, (step, digest) in enumerate(zip(steps, digests))])
            index.execute("COMMIT")
        return workspace_id

    def open(self, workspace_id: str) -> SavedWorkspace:
        """The workspace saved under ``workspace_id``, each blob checked against its digest. Expired workspaces are
        removed afterwards."""
        _checked_id(workspace_id)
        with self._index_connection() as index:
            index.execute("BEGIN")  # the workspace and its inputs as one snapshot, against a concurrent forget
            found = index.execute("SELECT created, expires, settings FROM workspaces WHERE id = ?",
                                  (workspace_id,)).fetchone()
            steps = index.execute("SELECT kind, name, blob, size FROM inputs WHERE workspace = ? ORDER BY position",
                                  (workspace_id,)).fetchall()
            index.execute("COMMIT")
            record = None if found is None else _record(found)
            if record is None or record[1] <= self.clock():
                self._remove_expired(index)
                raise self._unknown_id() if record is None else self._expired(record[1])
            inputs = tuple(SavedInput(kind, name, self._read_blob(digest, size)) for kind, name, digest, size in steps)
            self._remove_expired(index)
        created, expires, settings = record
        return SavedWorkspace(workspace_id, inputs, settings, created, expires)

    def summary(self, workspace_id: str) -> SavedSummary:
        """What is saved under ``workspace_id`` without reading its bytes: the content digest of its record (each
        input's kind, name and blob digest in order, and the settings: the same digest for the same saved content)
        and when it was saved and expires. An unknown or expired ID raises as :meth:`open` does."""
        _checked_id(workspace_id)
        with self._index_connection() as index:
            index.execute("BEGIN")
            found = index.execute("SELECT created, expires, settings FROM workspaces WHERE id = ?",
                                  (workspace_id,)).fetchone()
            steps = index.execute("SELECT kind, name, blob FROM inputs WHERE workspace = ? ORDER BY position",
                                  (workspace_id,)).fetchall()
            index.execute("COMMIT")
        if found is None:
            raise self._unknown_id()
        created, expires, _ = _record(found)
        if expires <= self.clock():
            raise self._expired(expires)
        return SavedSummary(content_digest((steps, found[2])), created, expires)

    def forget(self, workspace_id: str) -> None:
        """Delete the workspace saved under ``workspace_id``, its prepared results, and every blob no other workspace
        uses."""
        _checked_id(workspace_id)
        with self._index_connection() as index:
            index.execute("BEGIN IMMEDIATE")
            digests = [row[0] for row in index.execute(
                "SELECT blob FROM inputs WHERE workspace = ? UNION SELECT blob FROM prepared WHERE workspace = ?",
                (workspace_id, workspace_id))]
            forgotten = index.execute("DELETE FROM workspaces WHERE id = ?", (workspace_id,)).rowcount
            index.execute("DELETE FROM inputs WHERE workspace = ?", (workspace_id,))
            index.execute("DELETE FROM prepared WHERE workspace = ?", (workspace_id,))
            index.execute("COMMIT")
            self._collect_blobs(index, digests)
        if not forgotten:
            raise self._unknown_id()

    def expire(self) -> None:
        """Remove the workspaces whose time is up, their blobs, and what killed saves left a minute ago or more."""
        with self._index_connection() as index:
            self._remove_expired(index)

    def keep_prepared(self, workspace_id: str, name: str, data: bytes) -> bool:
        """Keep ``data``, a result prepared on the workspace saved under ``workspace_id``, under ``name`` (printable
        ASCII, at most 512 characters; a result of the same name is replaced); whether it was kept. The workspace's
        oldest prepared results are dropped to keep its own within :attr:`max_prepared_bytes`; a result larger than
        that, one that would take the store over :attr:`max_store_bytes`, or one of a workspace that is unknown or
        expired is not kept."""
        _checked_id(workspace_id)
        if not isinstance(name, str) or not PREPARED_NAME_PATTERN.fullmatch(name):
            raise ParameterError(f"name: expected 1 to 512 printable ASCII characters, found {name!r:.80}")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ParameterError(f"data: expected bytes, found {type(data).__name__}")
        data = bytes(data)
        if len(data) > self.max_prepared_bytes:
            return False
        digest = content_digest(data)
        with self._index_connection() as index:
            if not self._holds(index, workspace_id):
                return False
            self._put_blobs({digest: data})
            index.execute("BEGIN IMMEDIATE")  # from here no process deletes a blob until the rows are written
            kept = self._holds(index, workspace_id)
            if kept:
                self._put_blobs({digest: data})  # collected since it was written
                older = index.execute("SELECT name, blob, size FROM prepared WHERE workspace = ? AND name != ? "
                                      "ORDER BY kept, rowid", (workspace_id, name)).fetchall()
                room = self.max_prepared_bytes - len(data) - sum(size for _, _, size in older)
                dropped = []
                while room < 0:
                    dropped.append(older.pop(0))
                    room += dropped[-1][2]
                replaced = index.execute("SELECT blob FROM prepared WHERE workspace = ? AND name = ?",
                                         (workspace_id, name)).fetchall()
                index.execute("DELETE FROM prepared WHERE workspace = ? AND name = ?", (workspace_id, name))
                index.executemany("DELETE FROM prepared WHERE workspace = ? AND name = ?",
                                  [(workspace_id, old) for old, _, _ in dropped])
                held, new = self._store_room(index, {digest: data})
                kept = not new or held + new <= self.max_store_bytes
            if kept:
                index.execute("INSERT INTO prepared VALUES (?, ?, ?, ?, ?)",
                              (workspace_id, name, digest, len(data), self.clock()))
                index.execute("COMMIT")
                self._collect_blobs(index, [blob for blob, in replaced] + [blob for _, blob, _ in dropped])
            else:  # the rows as they were; the blob just written, if no row refers to it
                index.execute("ROLLBACK")
                self._collect_blobs(index, [digest])
        return kept

    def prepared(self, workspace_id: str) -> dict[str, bytes]:
        """The prepared results kept with the workspace saved under ``workspace_id``, by name, each blob checked
        against its digest: a missing or damaged one is left out (its row and file dropped, so that it can be kept
        again), and an unknown or expired workspace has none."""
        _checked_id(workspace_id)
        with self._index_connection() as index:
            index.execute("BEGIN")
            rows = index.execute("SELECT name, blob, size FROM prepared WHERE workspace = ? ORDER BY kept, rowid",
                                 (workspace_id,)).fetchall() if self._holds(index, workspace_id) else []
            index.execute("COMMIT")
            found, damaged = {}, []
            for name, digest, size in rows:
                try:
                    found[name] = self._read_blob(digest, size)
                except StoreError:
                    damaged.append((workspace_id, name, digest))
            if damaged:  # rows and files dropped, so that keeping the same bytes again writes them anew
                index.execute("BEGIN IMMEDIATE")
                index.executemany("DELETE FROM prepared WHERE workspace = ? AND name = ? AND blob = ?", damaged)
                index.execute("COMMIT")
                self._collect_blobs(index, [digest for _, _, digest in damaged])
        return found

    def prepared_sizes(self, workspace_id: str) -> dict[str, int]:
        """The names and sizes in bytes of the prepared results kept with the workspace saved under
        ``workspace_id``, without reading them (none for an unknown or expired workspace)."""
        _checked_id(workspace_id)
        with self._index_connection() as index:
            index.execute("BEGIN")
            rows = index.execute("SELECT name, size FROM prepared WHERE workspace = ? ORDER BY kept, rowid",
                                 (workspace_id,)).fetchall() if self._holds(index, workspace_id) else []
            index.execute("COMMIT")
        return dict(rows)

    def _holds(self, index: sqlite3.Connection, workspace_id: str) -> bool:
        """Whether a workspace is saved under ``workspace_id`` and not expired."""
        found = index.execute("SELECT expires FROM workspaces WHERE id = ?", (workspace_id,)).fetchone()
        return found is not None and isinstance(found[0], (int, float)) and found[0] > self.clock()

    def _expired(self, expires: float) -> StoreError:
        return StoreError(f"This saved workspace expired on {utc_time_text(expires)} (a saved workspace is kept "
                          f"{self.expiry_days:g} days); load its inputs again and save them.")

    def _unknown_id(self) -> StoreError:
        return StoreError(f"No saved workspace has this ID: it was forgotten, or it expired (a saved workspace is kept "
                          f"{self.expiry_days:g} days); load its inputs again and save them.")

    @contextlib.contextmanager
    def _index_connection(self) -> Iterator[sqlite3.Connection]:
        """A connection to the index in WAL mode (the store's folders and tables made on first use), closed after
        use, which rolls back a transaction left open; the system's and the index's errors become a StoreError."""
        connection = None
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.blobs.mkdir(mode=0o700, exist_ok=True)
            connection = sqlite3.connect(self.directory / INDEX_FILE, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
            use_write_ahead_log(connection)
            connection.execute("PRAGMA synchronous=FULL")
            connection.executescript(SCHEMA)
            yield connection
        except OSError as error:
            raise StoreError(f"The store of saved workspaces cannot be read or written ({error.strerror or error}); no "
                             "workspace was saved half-way. The server's administrator can free space or allow writing "
                             f"in its folder (chosen by {STORE_VARIABLE}).") from None
        except sqlite3.Error as error:
            raise _index_failure(error) from None
        finally:
            if connection is not None:
                connection.close()

    def _check_store_room(self, index: sqlite3.Connection, contents: Mapping[str, bytes]) -> None:
        """Refuse contents whose blobs not yet referred to would take the store over its limit."""
        held, new = self._store_room(index, contents)
        if new and held + new > self.max_store_bytes:
            raise StoreError(f"The store of saved workspaces holds {size_text(held)} of its "
                             f"{size_text(self.max_store_bytes)}, too little room for the {size_text(new)} these inputs "
                             "add; forget a saved workspace you no longer need, or ask the server's administrator to "
                             "raise the store's limit.")

    def _store_room(self, index: sqlite3.Connection, contents: Mapping[str, bytes]) -> tuple[int, int]:
        """The bytes of the blobs rows refer to, and those of ``contents`` no row refers to yet."""
        held = index.execute(f"SELECT COALESCE(SUM(size), 0) FROM ({BLOBS_REFERRED_TO})").fetchone()[0]
        new = sum(len(data) for digest, data in contents.items()
                  if index.execute(REFERS_TO_BLOB, (digest, digest)).fetchone() is None)
        return held, new

    def _blob_path(self, digest: object) -> Path | None:
        """The path of the blob named ``digest``, or None where the name is no blob's (64 lower-case hex digits,
        :data:`BLOB_NAME_PATTERN`): a name read from the index is checked on every path that reads, writes or deletes
        a blob, so that a damaged or hostile row ("../../file") never reaches a file outside the blob folder."""
        if not isinstance(digest, str) or not BLOB_NAME_PATTERN.fullmatch(digest):
            return None
        return self.blobs / digest

    def _put_blobs(self, contents: Mapping[str, bytes]) -> None:
        """Write the blobs of ``contents`` that are not in place (missing, or of another size), each to a temporary
        file synced and renamed into place, then sync the folder so that the renames last."""
        missing = [(digest, data) for digest, data in contents.items() if not self._blob_in_place(digest, len(data))]
        for digest, data in missing:
            target = self._blob_path(digest)
            if target is None:  # (a digest this store computed: never so, unless the code is wrong)
                raise StoreError("A saved workspace's file has a malformed name, so it was not saved.")
            temporary = self.blobs / f".{digest[:16]}.{secrets.token_hex(8)}{TEMPORARY_SUFFIX}"
            try:
                descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with open(descriptor, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(temporary, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    temporary.unlink(missing_ok=True)
                raise
        if missing:
            folder = os.open(self.blobs, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)

    def _blob_in_place(self, digest: str, size: int) -> bool:
        path = self._blob_path(digest)
        try:
            return path is not None and os.stat(path).st_size == size
        except FileNotFoundError:
            return False

    def _read_blob(self, digest: str, size: int) -> bytes:
        """A blob's bytes, refused unless they are the ones saved (their digest recomputed)."""
        path = self._blob_path(digest)
        try:
            data = None if path is None else path.read_bytes()
        except FileNotFoundError:
            data = None
        if data is None or len(data) != size or content_digest(data) != digest:
            raise StoreError("A file of this saved workspace is missing or damaged (its content is no longer what was "
                             "saved), so it cannot be opened; load its inputs again and save them.")
        return data

    def _remove_expired(self, index: sqlite3.Connection) -> None:
        """Delete the workspaces whose time is up, their prepared results and their blobs no other workspace uses,
        then what killed saves left: temporary files and blobs no workspace refers to, once a minute old."""
        index.execute("BEGIN IMMEDIATE")
        now = self.clock()
        digests = [row[0] for row in index.execute(
            "SELECT blob FROM inputs JOIN workspaces ON workspaces.id = inputs.workspace WHERE expires <= ? UNION "
            "SELECT blob FROM prepared JOIN workspaces ON workspaces.id = prepared.workspace WHERE expires <= ?",
            (now, now))]
        index.execute("DELETE FROM inputs WHERE workspace IN (SELECT id FROM workspaces WHERE expires <= ?)", (now,))
        index.execute("DELETE FROM prepared WHERE workspace IN (SELECT id FROM workspaces WHERE expires <= ?)", (now,))
        index.execute("DELETE FROM workspaces WHERE expires <= ?", (now,))
        index.execute("COMMIT")
        self._collect_blobs(index, digests)
        stale_before = time.time() - STALE_SECONDS  # file times are the system's, whatever clock the store was given
        old_files = []
        with os.scandir(self.blobs) as entries:
            for entry in entries:
                with contextlib.suppress(FileNotFoundError):  # renamed or collected by another process meanwhile
                    # only what a save writes: a folder or a link put there by hand is left, never a reason to fail
                    if entry.is_file(follow_symlinks=False) and entry.stat(follow_symlinks=False).st_mtime < stale_before:
                        old_files.append(entry.name)
        for name in old_files:
            if name.endswith(TEMPORARY_SUFFIX):
                (self.blobs / name).unlink(missing_ok=True)
        self._collect_blobs(index, [name for name in old_files if BLOB_NAME_PATTERN.fullmatch(name)], stale_before)

    def _collect_blobs(self, index: sqlite3.Connection, digests: Iterable[str], stale_before: float = math.inf) -> None:
        """Delete the blobs among ``digests`` that no workspace refers to (and, where given, last written before
        ``stale_before``), holding the index's write lock so that no save refers to one meanwhile. A name that is
        no blob's (a damaged or hostile row of the index) deletes nothing."""
        index.execute("BEGIN IMMEDIATE")
        for digest in digests:
            path = self._blob_path(digest)
            if path is not None and index.execute(REFERS_TO_BLOB, (digest, digest)).fetchone() is None:
                with contextlib.suppress(FileNotFoundError):
                    found = os.lstat(path)
                    if stat.S_ISREG(found.st_mode) and found.st_mtime < stale_before:
                        os.unlink(path)
        index.execute("COMMIT")


def _record(row: tuple) -> tuple[float, float, dict[str, str]]:
    """A workspace's row of the index (created, expires, settings as JSON text) as values, or the one StoreError of
    a record damaged in place: times that are no finite numbers a clock can show, settings that are no JSON object
    of texts."""
    created, expires, settings_text = row
    times_valid = all(isinstance(t, (int, float)) and not isinstance(t, bool) and 0 <= t <= MAX_SHOWN_SECONDS
                      for t in (created, expires))
    try:
        settings = json.loads(settings_text) if isinstance(settings_text, str) else None
    except ValueError:
        settings = None
    if not times_valid or not isinstance(settings, dict) or not all(
            isinstance(key, str) and isinstance(value, str) for key, value in settings.items()):
        raise StoreError("This saved workspace's record in the store is damaged; load its inputs again and save them.")
    return float(created), float(expires), settings


def _checked_id(workspace_id: object) -> str:
    """``workspace_id`` if it has the form of an ID, refused before the store is touched otherwise.

    >>> _checked_id("../../index.sqlite3")
    Traceback (most recent call last):
    ...
    evalcore.errors.StoreError: This is not the ID of a saved workspace: ...
    """
    if not isinstance(workspace_id, str) or not ID_PATTERN.fullmatch(workspace_id):
        raise StoreError("This is not the ID of a saved workspace: an ID is the 32 letters, digits, '-' and '_' given "
                         "when the workspace was saved; copy all of it again.")
    return workspace_id


def _checked_inputs(inputs: Sequence[SavedInput]) -> list[SavedInput]:
    """The load steps with their data as bytes, each step checked.

    >>> _checked_inputs([SavedInput("Run", "a.trec", b"")])
    Traceback (most recent call last):
    ...
    evalcore.errors.ParameterError: input 1 (a.trec): expected a kind of 1 to 32 letters a-z and '_', found 'Run'
    """
    if isinstance(inputs, (str, bytes)) or not isinstance(inputs, Sequence):
        raise ParameterError(f"inputs: expected a sequence of SavedInput, found {type(inputs).__name__}")
    steps = []
    for position, step in enumerate(inputs, start=1):
        if not isinstance(step, SavedInput):
            raise ParameterError(f"input {position}: expected a SavedInput, found {type(step).__name__}")
        if not isinstance(step.name, str) or "\x00" in step.name or not 0 < len(step.name) <= MAX_NAME_CHARS or \
                not _is_unicode_text(step.name):
            raise ParameterError(f"input {position}: expected a file name of 1 to {MAX_NAME_CHARS} characters of text "
                                 f"without NUL, found {step.name!r:.80}")
        if not isinstance(step.kind, str) or not KIND_PATTERN.fullmatch(step.kind):
            raise ParameterError(f"input {position} ({step.name}): expected a kind of 1 to 32 letters a-z and '_', "
                                 f"found {step.kind!r:.80}")
        if not isinstance(step.data, (bytes, bytearray, memoryview)):
            raise ParameterError(f"input {position} ({step.name}): expected bytes, found {type(step.data).__name__}")
        steps.append(SavedInput(step.kind, step.name, bytes(step.data)))
    return steps


def _is_unicode_text(text: str) -> bool:
    """Whether ``text`` is text a file can hold: no lone surrogate (a byte a file name's decoding could not read).

    >>> _is_unicode_text("é.trec"), _is_unicode_text(chr(0xDCE9) + ".trec")
    (True, False)
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _settings_json(settings: Mapping[str, str]) -> str:
    """The settings as JSON text, in their order, each name and value checked to be text.

    >>> _settings_json({"alpha": "0.5", "n": "1"})
    '{"alpha": "0.5", "n": "1"}'
    """
    if not isinstance(settings, Mapping):
        raise ParameterError(f"settings: expected a mapping of text to text, found {type(settings).__name__}")
    wrong = [name for name, value in settings.items() if not isinstance(name, str) or not isinstance(value, str)]
    if wrong:
        raise ParameterError(f"settings: expected text names and values, found {wrong[0]!r:.80} with "
                             f"{type(settings[wrong[0]]).__name__}")
    return json.dumps(dict(settings))


def use_write_ahead_log(connection: sqlite3.Connection) -> None:
    """Put an SQLite file of the store (its index, the judgments) in WAL mode (a no-op once it is). SQLite does not
    wait for the lock this switch takes: a process switching a new file while another does is answered SQLITE_BUSY at
    once, so the switch is tried again until the busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_SECONDS
    while True:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if not getattr(error, "sqlite_errorname", "").startswith("SQLITE_BUSY") or time.monotonic() > deadline:
                raise
        time.sleep(0.01)


def _index_failure(error: sqlite3.Error) -> StoreError:
    """The index's error in words that name the file but not its path."""
    code = getattr(error, "sqlite_errorname", "")
    if code.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")):
        return StoreError(f"The store's index file {INDEX_FILE} is damaged ({error}), so no saved workspace can be "
                          "opened or saved; the server's administrator can move it away to start an empty store.")
    if code.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return StoreError(f"The store of saved workspaces stayed busy with another save for {BUSY_TIMEOUT_SECONDS} "
                          "seconds; try again in a minute.")
    return StoreError(f"The store's index file {INDEX_FILE} cannot be read or written ({error}); no workspace was "
                      "saved half-way. The server's administrator can free space or allow writing in the store's "
                      f"folder (chosen by {STORE_VARIABLE}).")
