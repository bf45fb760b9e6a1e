"""A child process killed at a chosen step of its changes to a saved-workspace store (evalcore/app/store.py).

The child counts the steps that change the store on disk (a file opened, synced, renamed or removed, an index
transaction committed or rolled back) and SIGKILLs itself at the step its second argument names. A test kills it at
each step in turn: deterministic, where a kill after a random sleep missed some steps in some runs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

#: The start of the child's script: ``sys.argv[1]`` is the store's folder, ``sys.argv[2]`` the step to die at (0: none);
#: ``module`` is evalcore.app.store. Nothing is counted until the body sets ``steps[0] = 0`` (opening a store, or a
#: first save that the test does not mean to kill, is not counted).
STEP_COUNTING = """
import os, signal, sqlite3, sys
from evalcore.app import store as module
kill_at, steps = int(sys.argv[2]), [-1]
def step():
    if steps[0] >= 0:
        steps[0] += 1
        if steps[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
def counted(function):
    def call(*args, **kwargs):
        step()
        return function(*args, **kwargs)
    return call
class Index(sqlite3.Connection):
    def execute(self, sql, *args):
        if sql in ("COMMIT", "ROLLBACK"):
            step()
        return super().execute(sql, *args)
connect = sqlite3.connect
module.sqlite3.connect = lambda *args, **kwargs: connect(*args, factory=Index, **kwargs)
for name in ("open", "fsync", "replace", "unlink"):
    setattr(module.os, name, counted(getattr(os, name)))
"""
#: The end of the child's script: with no step to die at, the count of the steps it took (read by ``counted_steps``).
STEP_COUNT = """
if kill_at == 0:
    print("steps", steps[0], flush=True)
"""


def killed_at(body: str, folder: Path, kill_at: int, *arguments: str) -> subprocess.CompletedProcess:
    """The child running ``body`` on the store in ``folder`` (its further arguments ``arguments``), killed at step
    ``kill_at``; with 0 it runs to its end and prints its count of steps."""
    return subprocess.run([sys.executable, "-c", STEP_COUNTING + body + STEP_COUNT, str(folder), str(kill_at), *arguments],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def counted_steps(done: subprocess.CompletedProcess) -> int:
    """The steps a child run with ``kill_at`` 0 took (the last line of its output)."""
    assert done.returncode == 0, done.stderr
    what, count = done.stdout.splitlines()[-1].split()
    assert what == "steps", done.stdout
    return int(count)
