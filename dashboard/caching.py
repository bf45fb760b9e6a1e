"""How the dashboard keeps what it computes: one mechanism, keyed by the content of what a computation reads.

Streamlit's caches (``st.cache_data``, ``st.cache_resource``) hash a function's arguments, our classes through
:data:`HASH_FUNCS`. A computation on a workspace is kept by :func:`kept_by`, which gives it the workspace restricted
to the inputs it names (:meth:`~evalcore.app.workspace.Workspace.restricted_to`): its key is their content and it
can read nothing else, with no twin function restricting by hand. A computation that draws progress while it runs
cannot be one of them (a bar drawn outside the function cannot be replayed): :func:`shared` keeps its result in a
server-wide :class:`~evalcore.kept.Kept` store under :func:`~evalcore.cache_keys.content_digest` of the function and
of its arguments, each hashed by the same :data:`HASH_FUNCS` (a first workspace argument restricted the same way).
Sessions asking for a result another one is computing wait for that computation, their bars moving with it
(:meth:`~evalcore.kept.Kept.computed`), and then read the one copy, shared read-only. Its decorator also does what a
private twin did by hand before the call (:class:`Shared`): defaults filled in, lists given as tuples, arguments
narrowed to what the result depends on (``given``), and what the computation reads that no content digest holds
added to its key (``keyed_also``): each computation is one public function (``tests/dashboard/test_caching.py``).
"""

from __future__ import annotations

import functools
import inspect
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Concatenate, Generic, Literal, ParamSpec, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from evalcore.app.sources import EmbeddedDemo, Rocov2Folder, SavedLink
from evalcore.app.workspace import Workspace
from evalcore.cache_keys import content_digest
from evalcore.kept import Kept, callers_waiting, one_value

T = TypeVar("T")
P = ParamSpec("P")
#: A workspace hashes to the digest of its inputs' content; an array to the digest of all its bytes (Streamlit's
#: own hash samples arrays of 500,000 items or more), a DataFrame to the digest of its content (Streamlit's samples
#: large frames too), and a data source to the digest of the files it reads.
HASH_FUNCS: dict[Any, Callable[[Any], str]] = {Workspace: lambda ws: ws.digest, np.ndarray: content_digest,
                                               pd.DataFrame: content_digest, EmbeddedDemo: EmbeddedDemo.digest,
                                               Rocov2Folder: Rocov2Folder.digest, SavedLink: SavedLink.digest}
#: Bytes of results kept for the whole server (by content: sessions with the same data share them; a session keeps
#: none of its own, so a closed tab leaves only its workspace behind).
SERVER_KEPT_BYTES = 512 << 20
#: Workspaces loaded from folders or saved ones, kept for every session (about 40 MB each on ROCOv2 test).
SERVER_WORKSPACES = 4
#: A progress bar is redrawn at most this often (seconds).
REDRAW_SECONDS = 0.2
#: The parameter a :func:`shared` computation is given its progress callback by (never part of its key).
PROGRESS = "progress"


@st.cache_resource(show_spinner=False)
def server_kept() -> Kept:
    """Results kept for every session of this server, by the content of what they read."""
    return Kept(SERVER_KEPT_BYTES)


@st.cache_resource(show_spinner=False)
def server_workspaces() -> Kept:
    """Workspaces loaded from a data folder, shared by the sessions loading the same files (read-only: a workspace
    is replaced on every load, never changed), the last :data:`SERVER_WORKSPACES` of them."""
    return Kept(SERVER_WORKSPACES, size=one_value)


@st.cache_resource(show_spinner=False)
def server_demo() -> Kept:
    """The embedded demo's workspace, kept apart from the loaded ones so that no load drops it: every new session
    opens on it (one value, the workspace of the demo's files as they are now)."""
    return Kept(1, size=one_value)


class Foreground:
    """How many pages are computing behind a progress bar now, so that work prepared in the background waits for
    them between its steps (on two cores a background pass would take half the machine from the page a reader is
    waiting for)."""

    def __init__(self) -> None:
        self._working = 0
        self._scripts = 0
        self._last_script_end = float("-inf")
        self._quiet = threading.Condition()
        #: The threads doing work for later: what they compute is never a page's (their pauses would wait for
        #: themselves).
        self.background_threads: set[int] = set()

    @contextmanager
    def working(self) -> Iterator[None]:
        if threading.get_ident() in self.background_threads:
            yield
            return
        with self._quiet:
            self._working += 1
        try:
            yield
        finally:
            with self._quiet:
                self._working -= 1
                self._quiet.notify_all()

    @contextmanager
    def script_running(self) -> Iterator[None]:
        """Around a session's run of the app's script: what it sends is drawn by the browser after it ends."""
        with self._quiet:
            self._scripts += 1
        try:
            yield
        finally:
            with self._quiet:
                self._scripts -= 1
                self._last_script_end = time.monotonic()
                self._quiet.notify_all()

    def wait_until_quiet(self) -> None:
        with self._quiet:
            self._quiet.wait_for(lambda: self._working == 0)

    def wait_until_drawn(self, settle: float, interrupted: Callable[[], bool] = lambda: False) -> bool:
        """Wait until no page computes, no session's script runs, and none ended in the last ``settle`` seconds: the
        browser lays out what a run sent after it ends (on the first Leaderboard of ROCOv2 test, 2.5 s of drawing
        after a 1 s script), and work for later would take the cores it draws with where both run on one machine.
        False, at once, where ``interrupted()`` holds first (checked at each :meth:`nudge`)."""
        with self._quiet:
            while True:
                self._quiet.wait_for(lambda: interrupted() or (self._working == 0 and self._scripts == 0))
                if interrupted():
                    return False
                remaining = self._last_script_end + settle - time.monotonic()
                if remaining <= 0:
                    return True
                self._quiet.wait(remaining)

    def nudge(self) -> None:
        """Wake the waits, so that they ask their ``interrupted`` again."""
        with self._quiet:
            self._quiet.notify_all()

    def pause_while_busy(self, poll: float = 0.05) -> None:
        """Wait while a page computes, unless a page waits for a result under way (which may be the caller's: a
        pause would then hold that page up for ever, :func:`evalcore.kept.callers_waiting`). Work done for later
        calls it at each report, so that a pass of many blocks yields the cores to a page between two blocks."""
        with self._quiet:
            while self._working and not callers_waiting():
                self._quiet.wait(poll)


@st.cache_resource(show_spinner=False)
def server_foreground() -> Foreground:
    """The pages of this server's sessions computing now (:class:`Foreground`)."""
    return Foreground()


#: Workspaces whose saved IDs the server remembers (dashboard.computed.note_saved), the most recent ones.
REMEMBERED_SAVED = 64


@st.cache_resource(show_spinner=False)
def server_saved_ids() -> Kept:
    """By workspace digest, the IDs its workspace is saved under in the server's store, as this server saw it
    saved or opened (the last :data:`REMEMBERED_SAVED` workspaces)."""
    return Kept(REMEMBERED_SAVED, size=one_value)


def hashed(argument: Any) -> Any:
    """What an argument is keyed by: its :data:`HASH_FUNCS` hash, else the argument itself."""
    hash_function = HASH_FUNCS.get(type(argument))
    return argument if hash_function is None else hash_function(argument)


def key_of(*parts: Any) -> str:
    """The one key of what a computation reads: the content digest of its parts, each :func:`hashed`."""
    return content_digest([hashed(part) for part in parts])


#: Parameter names that would make a cache's key by hand, or that Streamlit leaves out of the key (a leading
#: underscore): a :func:`kept_by` computation has none (``tests/project/test_architecture_document.py`` checks the
#: ``st.cache_*`` functions written out).
KEY_PARAMETERS = ("key", "cache_key", "digest")


def kept_by(inputs: tuple[str, ...], *, kind: Literal["data", "resource"] = "data", max_entries: int | None = None,
            spinner: bool | str = False) -> Callable[[Callable[Concatenate[Workspace, P], T]],
                                                     Callable[Concatenate[Workspace, P], T]]:
    """Keep a computation whose first argument is a :class:`Workspace` in a Streamlit cache (``st.cache_data`` for
    ``kind`` "data": each call gets its own copy; ``st.cache_resource`` for "resource": one object shared read-only),
    at most ``max_entries`` results, ``spinner`` its text while it computes (False: none). The workspace is
    restricted to ``inputs`` before the call (:meth:`Workspace.restricted_to`): the key is the content of those
    inputs and of the other arguments (each through :data:`HASH_FUNCS`), and two workspaces differing only in
    another input share one result. The function returned has the computation's name and signature, ``inputs`` and
    ``clear()`` (which empties its cache)."""
    if kind not in ("data", "resource"):
        raise ValueError(f"kind must be 'data' or 'resource', not {kind!r}")
    cache = st.cache_data if kind == "data" else st.cache_resource

    def decorate(compute: Callable[Concatenate[Workspace, P], T]) -> Callable[Concatenate[Workspace, P], T]:
        keyed_by_hand = [name for name in inspect.signature(compute).parameters
                         if name.startswith("_") or name in KEY_PARAMETERS]
        if keyed_by_hand:
            raise TypeError(f"{compute.__qualname__}: parameters {keyed_by_hand} would key its cache by hand or be "
                            "left out of its key")
        cached = cache(max_entries=max_entries, show_spinner=spinner, hash_funcs=HASH_FUNCS)(compute)

        @functools.wraps(compute)
        def restricting(ws: Workspace, *arguments: P.args, **keywords: P.kwargs) -> T:
            if not isinstance(ws, Workspace):
                raise TypeError(f"{compute.__qualname__} takes a Workspace first, not {type(ws).__name__}")
            return cached(ws.restricted_to(*inputs), *arguments, **keywords)

        restricting.inputs = inputs  # type: ignore[attr-defined]
        restricting.clear = cached.clear  # type: ignore[attr-defined]
        return restricting

    return decorate


class Shared(Generic[T]):
    """A computation kept in a server store (see the module's docstring); call it as the function it wraps, with
    ``progress`` (a callback that draws, never part of the key) by keyword or in its place.

    The arguments are normalised before they key it or reach it, so that no twin function does it by hand: bound to
    the computation's signature with its defaults (a call leaving out an argument with a default and one giving that
    default share one result), a list as a tuple, then ``given(*arguments)`` where it is set (the arguments the
    computation is given and keyed by, from the call's: a workspace restricted to the inputs of one argument, a
    setting narrowed to what the result depends on), then a first workspace argument restricted to ``inputs``. The
    key is the function's module and name, those arguments (each :func:`hashed`) and ``keyed_also(*arguments)``
    where it is set: what the computation reads through an argument that no content digest holds (the names the
    report for a paper gives the loaded files, which a workspace's digest of their bytes leaves out)."""

    def __init__(self, compute: Callable[..., T], store: Callable[[], Kept], inputs: tuple[str, ...] | None,
                 given: Callable[..., tuple[Any, ...]] | None = None,
                 keyed_also: Callable[..., Any] | None = None) -> None:
        functools.update_wrapper(self, compute)
        self.compute = compute
        self.store = store
        self.inputs = inputs
        self.given = given
        self.keyed_also = keyed_also
        self.signature = inspect.signature(compute)
        unbound = [name for name, parameter in self.signature.parameters.items() if name != PROGRESS
                   and parameter.kind not in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD)]
        if unbound:
            raise TypeError(f"{compute.__qualname__}: parameters {unbound} cannot be given in order")

    def _read(self, arguments: tuple[Any, ...], keywords: dict[str, Any]) -> tuple[tuple[Any, ...], Any]:
        """The arguments the computation is given (normalised as the class's docstring says) and the progress
        callback given with them (None where none is)."""
        bound = self.signature.bind(*arguments, **keywords)
        bound.apply_defaults()
        progress = bound.arguments.get(PROGRESS)
        read = tuple(tuple(value) if isinstance(value, list) else value
                     for name, value in bound.arguments.items() if name != PROGRESS)
        if self.given is not None:
            read = tuple(self.given(*read))
        if self.inputs is not None and read and isinstance(read[0], Workspace):
            read = (read[0].restricted_to(*self.inputs), *read[1:])
        return read, progress

    def _key(self, read: tuple[Any, ...]) -> str:
        also = () if self.keyed_also is None else (self.keyed_also(*read),)
        return key_of(self.compute.__module__, self.compute.__qualname__, *read, *also)

    def __call__(self, *arguments: Any, **keywords: Any) -> T:
        read, progress = self._read(arguments, keywords)
        return self.store().computed(
            self._key(read), lambda report: self.compute(*read, **({PROGRESS: report} if report else {})), progress)

    def kept(self, *arguments: Any, **keywords: Any) -> T | None:
        """The kept result, or None when it was not computed yet."""
        return self.store().get(self._key(self._read(arguments, keywords)[0]))

    def keep(self, value: T, *arguments: Any, **keywords: Any) -> None:
        """Keep ``value`` as the result of a call with ``arguments`` (one read back from where it was kept, say: it
        must be exactly what the call computes), so that the call finds it; a result kept already stays."""
        key = self._key(self._read(arguments, keywords)[0])
        store = self.store()
        if store.get(key) is None:
            store.put(key, value)

    def with_bar(self, text: str, *arguments: Any, **keywords: Any) -> T:
        """The result, drawing a progress bar (``text``, then "Computing <step>") only while it is computed; the
        computation reports ``progress(fraction, step)``."""
        value = self.kept(*arguments, **keywords)
        if value is None:
            bar = st.progress(0.0, text=text)
            last_drawn = [0.0]

            def draw(fraction: float, step: str) -> None:
                # Each draw is a message the browser lays out on the cores the computation runs on: the ablation
                # grid reported 208 times in 6 s (Ablation's first draw 5.5 -> 6.7-8.0 s); one draw per
                # REDRAW_SECONDS keeps the bar moving (still at most about half a second) for a fifth of them.
                now = time.monotonic()
                if now - last_drawn[0] >= REDRAW_SECONDS:
                    last_drawn[0] = now
                    bar.progress(min(1.0, fraction), text=f"Computing {step}")

            with server_foreground().working():
                value = self(*arguments, **keywords, progress=draw)
            bar.empty()
        return value


def shared(store: Callable[[], Kept], inputs: tuple[str, ...] | None = None, *,
           given: Callable[..., tuple[Any, ...]] | None = None,
           keyed_also: Callable[..., Any] | None = None) -> Callable[[Callable[..., T]], Shared[T]]:
    """Keep a computation's results in ``store()`` (:class:`Shared`); ``inputs``: the workspace inputs it reads,
    when its first argument is a workspace; ``given``: the arguments it is given and keyed by, from the call's (after
    its defaults, lists as tuples); ``keyed_also``: what joins the key beside them, of the arguments it is given."""
    return lambda compute: Shared(compute, store, inputs, given, keyed_also)
