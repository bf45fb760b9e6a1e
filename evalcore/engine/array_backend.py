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
from dataclasses import dataclass

from evalcore.errors import ParameterError

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
    once); raises :class:`ParameterError` naming the fix when the library is missing or no such device is visible.
    """
    module_name = BACKENDS[backend]
    if module_name is None:
        return None
    if importlib.util.find_spec(backend) is None:
        raise ParameterError(f"the {backend} backend needs the {backend} package, which is not installed: {INSTALL_HINT}")
    return importlib.import_module(module_name).JaxRanker(device, device_memory)


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
    from evalcore.engine.jax_backend import visible_gpus

    return bool(visible_gpus())
