"""Which array library computes the engine's ranking passes, and on which device (issue 15).

- ``numpy``: the engine itself (SciPy sparse products, NumPy sorts), on the CPU.
- ``jax``: the same packed codes, look-up table and tie rule as fixed-shape XLA programs, on the
  CPU or a GPU (:mod:`evalcore.engine.jax_backend`). It is the optional extra ``cbir-lens[gpu]``; JAX is
  imported only when this backend is chosen, so ``import evalcore`` stays light.

Both give the same values and the same indices (relevance descending, ties by candidate
position). A ranking pass that the array backend cannot run exactly (see
:func:`evalcore.engine.jax_backend.JaxRanker.unsupported`) runs on the numpy engine instead, and the
engine's :attr:`~evalcore.engine.PairwiseEngine.last_pass` says so and why.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
from dataclasses import dataclass

from evalcore.errors import CBIRLensError, ParameterError, one_line

# Canonical backend name -> module that builds its ranker (None: the numpy engine itself).
BACKENDS: dict[str, str | None] = {"numpy": None, "jax": "evalcore.engine.jax_backend"}
DEVICES = ("cpu", "gpu")
INSTALL_HINT = "install the optional extra: pip install 'cbir-lens[gpu]' (JAX; on a GPU machine also its CUDA plugin)"


@dataclass(frozen=True)
class PassReport:
    """Who ran a ranking pass: backend, device, and why the numpy engine stood in (empty if it did not).

    >>> PassReport("numpy", "cpu", "no array backend chosen").text()
    'numpy on cpu (no array backend chosen)'
    """

    backend: str
    device: str
    fallback_reason: str = ""

    def text(self) -> str:
        return f"{self.backend} on {self.device}" + (f" ({self.fallback_reason})" if self.fallback_reason else "")


def check_backend(backend: str, device: str | None) -> tuple[str, str | None]:
    """Validate a backend name and device; the device stays None where the backend picks it.

    >>> check_backend("NumPy", None)
    ('numpy', 'cpu')
    >>> check_backend("numpy", "gpu")
    Traceback (most recent call last):
    ...
    evalcore.errors.ParameterError: the numpy backend runs on the CPU only: use --backend jax (backend='jax') for --device gpu
    """
    name = str(backend).strip().lower()
    if name not in BACKENDS:
        raise ParameterError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    chosen = None if device is None else str(device).strip().lower()
    if chosen is not None and chosen not in DEVICES:
        raise ParameterError(f"unknown device {device!r}: expected one of {', '.join(DEVICES)}")
    if BACKENDS[name] is None:
        if chosen == "gpu":
            raise ParameterError("the numpy backend runs on the CPU only: use --backend jax (backend='jax') for --device gpu")
        return name, "cpu"
    return name, chosen


def open_backend(backend: str, device: str | None = None, device_memory: int | None = None):
    """The ranker of an array backend (None for numpy), with its library imported and its device found.

    The choice comes checked (:class:`~evalcore.engine.compute.Compute` validates backend, device and device memory
    once); raises :class:`ParameterError` naming the fix when the library is missing or no such device is visible,
    and :class:`~evalcore.errors.CBIRLensError`, one line with the library's reason, when it is installed but fails
    to import or to start (a native library that cannot be mapped under an address-space limit, a broken install).
    """
    module_name = BACKENDS[backend]
    if module_name is None:
        return None
    if importlib.util.find_spec(backend) is None:
        raise ParameterError(f"the {backend} backend needs the {backend} package, which is not installed: {INSTALL_HINT}")
    failed = startup_failure(backend)
    try:
        if failed is None:
            return importlib.import_module(module_name).JaxRanker(device, device_memory)
    except CBIRLensError:
        raise
    except Exception as error:  # JAX's import and startup raise ImportError, OSError, RuntimeError, MemoryError, ...
        failed = f"{type(error).__name__}: {error}".rstrip(": ")
    raise CBIRLensError(f"the {backend} backend cannot load {backend} ({one_line(failed)}): it may lack memory (an "
                        "address-space limit such as ulimit -v) or be installed broken; use --backend numpy "
                        f"(backend='numpy'), or {INSTALL_HINT}")


#: How long the trial start of :func:`startup_failure` may take before the backend is loaded without it.
STARTUP_TRIAL_SECONDS = 120
# The trial start: the room this process has left as the child's own limit, then the library, its CPU client and
# one small program compiled and run.
_TRIAL = ("import resource, sys\n"
          "used = next(int(line.split()[1]) * 1024 for line in open('/proc/self/status') if line.startswith('VmSize:'))\n"
          "resource.setrlimit(resource.RLIMIT_AS, (used + int(sys.argv[1]), resource.getrlimit(resource.RLIMIT_AS)[1]))\n"
          "import jax\n"
          "jax.block_until_ready(jax.jit(lambda x: x + 1)(jax.numpy.zeros(8, 'int32')))\n")


def startup_failure(backend: str) -> str | None:
    """Why ``backend``'s library cannot start within this process's address-space limit (``ulimit -v``), or None.

    Under such a limit JAX fails to map its native library (an ImportError, caught in-process) or aborts the whole
    process where its CPU client cannot start its threads or its compiler runs out of room, which no handler
    catches. So where a limit is set and the library is not loaded yet, it is first started in a child process given
    the room this process has left (the limit less this process's address space), compiling one small program;
    without a limit, or where the room cannot be read (no ``/proc``), nothing is tried. (A larger program may still
    need more room than the trial did.)
    """
    if backend != "jax" or "jax" in sys.modules:
        return None
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        with open("/proc/self/status", encoding="ascii") as status:
            used = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmSize:"))
    except (ImportError, OSError, StopIteration, ValueError):
        return None
    if limit == resource.RLIM_INFINITY:
        return None
    try:
        trial = subprocess.run([sys.executable, "-c", _TRIAL, str(max(0, limit - used))], capture_output=True,
                               text=True, errors="replace", timeout=STARTUP_TRIAL_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if trial.returncode == 0:
        return None
    return _reason(trial.stderr) or f"its start ended with status {trial.returncode}"


def _reason(stderr: str) -> str:
    """The line of a failed start that says why: Python's exception, else a native check that failed, else the first.

    >>> _reason("Traceback (most recent call last):\\n  File ...\\nImportError: libjax_common.so: failed to map segment\\n")
    'ImportError: libjax_common.so: failed to map segment'
    >>> _reason("F1128 env.cc:93] Check failed: ret == 0 (11 vs. 0) Thread creation failed.\\n*** stack ***\\n")
    'Check failed: ret == 0 (11 vs. 0) Thread creation failed.'
    """
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    raised = [line for line in lines if re.match(r"[A-Za-z_.]*(?:Error|Exception)\b", line)]
    checked = [line[line.index("Check failed"):] for line in lines if "Check failed" in line]
    return (raised[-1:] or checked[:1] or lines[:1] or [""])[0]


#: Modules of JAX's GPU plugins, any of which a GPU needs: the namespace package ``jax_plugins`` that JAX scans
#: (``jax-cuda13-pjrt`` 0.11 installs ``jax_plugins.xla_cuda13`` there) and the CUDA kernels' packages
#: (``jax-cuda13-plugin`` installs ``jax_cuda13_plugin``).
GPU_PLUGIN_MODULES = ("jax_plugins", "jax_cuda12_plugin", "jax_cuda13_plugin")
#: JAX's other way to find a plugin: an entry point in this group naming the plugin's module.
PLUGIN_ENTRY_POINTS = "jax_plugins"


def gpu_plugin_installed() -> bool:
    """Whether a JAX plugin is installed, found by JAX's own two rules (a module, or an entry point)."""
    if any(importlib.util.find_spec(plugin) is not None for plugin in GPU_PLUGIN_MODULES):
        return True
    from importlib.metadata import entry_points

    return bool(entry_points(group=PLUGIN_ENTRY_POINTS))


def gpu_available() -> bool:
    """Whether JAX is installed and sees a GPU. JAX is imported only when a GPU plugin for it is installed too
    (JAX finds GPUs through one), so a CPU-only machine with JAX never pays for the import here."""
    if importlib.util.find_spec("jax") is None or not gpu_plugin_installed():
        return False
    try:
        from evalcore.engine.jax_backend import visible_gpus
    except Exception:  # a JAX that cannot load (see open_backend) sees no GPU
        return False
    return bool(visible_gpus())
