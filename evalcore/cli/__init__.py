"""Command line: ``python -m evalcore relevance|evaluate|compare|retrieve|detection|qrels|extract|app|check``
(installed: ``cbir-lens ...``): the parser (:mod:`evalcore.cli.parser`) and the commands
(:mod:`evalcore.cli.commands`), which call the evaluation layer and the API.

Errors in inputs exit with status 2 and one line on stderr naming file, line and expectation.
"""

from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
from collections.abc import Sequence
from typing import NoReturn

from evalcore.errors import CBIRLensError, ParameterError
from evalcore.readers import INPUT_BUDGET_VARIABLE

from .commands import COMMANDS
from .console import print_error
from .parser import build_parser

__all__ = ["build_parser", "main", "run"]

#: The errors of a write to a full device or a pipe closed by its reader.
_FULL_OR_CLOSED = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EPIPE})


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: the process's arguments) and run the command; 0, or 2 after an error's one line."""
    args = build_parser().parse_args(argv)
    previous_budget = os.environ.get(INPUT_BUDGET_VARIABLE)
    if args.max_input_bytes is not None:
        os.environ[INPUT_BUDGET_VARIABLE] = str(args.max_input_bytes)
    try:
        COMMANDS[args.command](args)
    except ParameterError as error:
        return print_error(as_option(str(error), args))
    except CBIRLensError as error:
        return print_error(str(error))
    except OSError as error:
        if error.filename is None and error.errno in _FULL_OR_CLOSED:
            # (every file the commands read or write is named by its error: this is the table or the notes printed,
            # "python -m evalcore evaluate ... > /dev/full")
            return print_error(f"could not write to the standard output ({error.strerror or error})")
        return print_error(f"{error.filename or args.command}: {error.strerror or error}")
    except MemoryError:
        return print_error(f"{args.command} ran out of memory; give it smaller inputs or, for passes over the pool, a "
                           "smaller --memory-per-worker (outputs not yet complete were not written)")
    finally:
        if args.max_input_bytes is not None:
            if previous_budget is None:
                os.environ.pop(INPUT_BUDGET_VARIABLE, None)
            else:
                os.environ[INPUT_BUDGET_VARIABLE] = previous_budget
    return 0


def as_option(message: str, args: argparse.Namespace) -> str:
    """A library's parameter error as the command line says it: a message that says what a parameter the command
    has an option for must be names the option ("alpha must lie in [0, 1]" is "--alpha must lie in [0, 1]").

    >>> as_option("bootstrap_samples must be an integer in 100..1000000, got 0", argparse.Namespace(bootstrap_samples=0))
    '--bootstrap-samples must be an integer in 100..1000000, got 0'
    >>> as_option("nn-iou: alpha must lie in [0, 1], got 2", argparse.Namespace(alpha=2.0))
    'nn-iou: alpha must lie in [0, 1], got 2'
    >>> as_option("metrics ['modality'] need labels", argparse.Namespace(metrics=["P@5[modality]"]))
    "metrics ['modality'] need labels"

    A list parameter whose option is named in the singular (compare's ``--metric``) is named so:

    >>> as_option("metrics must name at most 200 metrics, got 201", argparse.Namespace(metric=[["CUI@5"]]))
    '--metric must name at most 200 metrics, got 201'
    """
    name, _, rest = message.partition(" ")
    if rest.startswith("must ") and name.isidentifier():
        for option in (name, name.removesuffix("s")):
            if hasattr(args, option):
                return f"--{option.replace('_', '-')} {rest}"
    return message


STOPPING_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _stop_on_signal(number: int, _frame: object) -> NoReturn:
    """Unwind like an error (so the temporary file of an output being written is removed), saying so once: a
    second signal while unwinding (``timeout`` signals the whole process group) is ignored."""
    for stopping in STOPPING_SIGNALS:
        signal.signal(stopping, signal.SIG_IGN)
    print_error(f"stopped by signal {signal.Signals(number).name}; outputs not yet complete were not written")
    raise SystemExit(128 + number)


def run() -> NoReturn:
    """Console entry point (``cbir-lens``, ``python -m evalcore``): :func:`main`, then leave without the
    interpreter's native teardown.

    Arrow's C++ thread pools, started by the first columnar read, can still be spawning a worker when a
    short command (say, one that stops at a bad input) ends; destroying them at process exit then
    aborts with SIGABRT ("terminate called without an active exception", apache/arrow#34314). Every
    output file is closed by the command itself, so flushing the two streams is all that is left.
    The process is the command's own, so its allocator reuses freed arrays (:func:`reuse_freed_memory`).
    """
    from evalcore.engine.executors import reuse_freed_memory

    reuse_freed_memory()
    # A stopped command (Ctrl-C, kill, a closed terminal, a job scheduler's time limit) unwinds like an error, so
    # the temporary file of an output being written is removed and the earlier file is left as it was.
    for stopping in STOPPING_SIGNALS:
        signal.signal(stopping, _stop_on_signal)
    try:
        status = main()
    except SystemExit as stop:  # argparse's usage errors and --help
        if not (stop.code is None or isinstance(stop.code, int)):
            raise
        status = stop.code or 0
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
