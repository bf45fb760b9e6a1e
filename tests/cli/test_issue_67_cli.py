"""Edges a hostile run found in the command line (issue 67): numbers in other scripts' digits or with underscores,
an empty ``--store``, and a JAX that cannot load, each refused in one line; ``evaluate`` and ``detection`` print
their table to the terminal where ``--json`` is not given."""

from __future__ import annotations

import os

import pytest

from tests.conftest import cli_refusal

# --- app's own options: numbers in ASCII digits, no empty value --------------------------------------------------


@pytest.fixture
def environment(monkeypatch):
    """The process's environment as a copy, so that what ``app`` sets in it is gone after the test."""
    copy = {key: value for key, value in os.environ.items() if not key.startswith("CBIR_LENS_STORE")}
    monkeypatch.setattr(os, "environ", copy)
    return copy


@pytest.mark.parametrize("argv, said", [
    (["--store-expiry-days", "٣٠"], "--store-expiry-days: expected a positive number of days, at most 36,525, in "
                                    "digits 0-9 such as 30 or 0.5, found '٣٠'"),
    (["--store-expiry-days=1_0"], "--store-expiry-days: expected a positive number of days, at most 36,525, in digits "
                                  "0-9 such as 30 or 0.5, found '1_0'"),
    (["--store-expiry-days", "0"], "--store-expiry-days: expected a positive number of days, at most 36,525, found '0'"),
    (["--store", ""], "--store: expected a folder, found an empty value"),
    (["--store=", "--server.port", "8502"], "--store: expected a folder, found an empty value"),
    (["--store-expiry-days", " "], "--store-expiry-days: expected a positive number of days, found an empty value"),
    (["--store"], "--store: expected a value after it"),
])
def test_app_refuses_a_store_option_in_one_line(environment, capsys, tmp_path, argv, said) -> None:
    """Were accepted: ``٣٠`` and ``1_0`` read as 30 and 10 days, ``--store ''`` the default store, and ``--store=``
    took the next option as its folder."""
    error = cli_refusal(["app", *argv], capsys)
    assert error == f"error: {said}\n"


def test_the_store_environment_takes_ascii_digits_only(environment) -> None:
    from evalcore.app.store import store_from_environment
    from evalcore.errors import ParameterError

    for variable in ("CBIR_LENS_STORE_EXPIRY_DAYS", "CBIR_LENS_STORE_MAX_MIB", "CBIR_LENS_STORE_MAX_WORKSPACE_MIB",
                     "CBIR_LENS_STORE_MAX_PREPARED_MIB"):
        for text in ("٣٠", "1_0", "１０", "nan", "inf"):
            with pytest.raises(ParameterError, match=f"^{variable}: expected .*, found '{text}'$"):
                store_from_environment({variable: text})
    assert store_from_environment({"CBIR_LENS_STORE_EXPIRY_DAYS": " 7.5 "}).expiry_days == 7.5


# --- a JAX that cannot load: one line ----------------------------------------------------------------------------

@pytest.fixture
def world(tmp_path):
    """Three images and a run of two systems, and concept detection's ground truth and predictions."""
    (tmp_path / "c.csv").write_text("ID,CUIs\na,C0000001;C0000002\nb,C0000001\nc,C0000002\n")
    (tmp_path / "r.trec").write_text("a Q0 b 1 2 s\na Q0 c 2 1 s\nb Q0 a 1 2 s\nb Q0 c 2 1 s\n"
                                     "a Q0 c 1 2 t\na Q0 b 2 1 t\nb Q0 c 1 2 t\nb Q0 a 2 1 t\n")
    (tmp_path / "pred.csv").write_text("ID,CUIs\na,C0000001\nb,C0000002\nc,C0000002\n")
    return tmp_path


def evaluate_argv(world, *more: str) -> list[str]:
    return ["evaluate", "--concepts", str(world / "c.csv"), "--run", str(world / "r.trec"), *more]


def jax_that_fails(monkeypatch, failure: BaseException | None) -> None:
    """JAX found installed, but its backend's import fails (``failure`` None: ImportError, as a native library that
    cannot be mapped under ``ulimit -v`` gives) or its start raises ``failure``."""
    import importlib.util
    import sys
    import types

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: object() if name == "jax" else real(name, *a))
    if failure is None:
        class Unmappable:
            def find_spec(self, name, path=None, target=None):
                if name == "evalcore.engine.jax_backend":
                    raise ImportError("libjax_common.so: failed to map segment from shared object")
                return None

        monkeypatch.delitem(sys.modules, "evalcore.engine.jax_backend", raising=False)
        monkeypatch.setattr(sys, "meta_path", [Unmappable(), *sys.meta_path])
        return
    module = types.ModuleType("evalcore.engine.jax_backend")

    def starting(*_args, **_kwargs):
        raise failure

    module.JaxRanker = starting
    monkeypatch.setitem(sys.modules, "evalcore.engine.jax_backend", module)


@pytest.mark.parametrize("failure, named", [
    (None, "ImportError: libjax_common.so: failed to map segment from shared object"),
    (OSError("libjax_common.so: failed to map segment from shared object"), "OSError: libjax_common.so: failed"),
    (RuntimeError("Unable to initialize backend 'cpu'\nsecond line"), "RuntimeError: Unable to initialize backend "
                                                                      "'cpu'\\nsecond line"),
    (MemoryError(), "MemoryError"),
])
def test_a_jax_that_cannot_load_or_start_ends_in_one_line(monkeypatch, capsys, world, failure, named) -> None:
    """Was an ImportError traceback (issue 67) where the README promises one line: JAX's native library under an
    address-space limit of 2 GB (``ulimit -v 2000000``) fails to map."""
    jax_that_fails(monkeypatch, failure)
    error = cli_refusal(evaluate_argv(world, "--backend", "jax", "--device", "cpu"), capsys)
    assert error.startswith(f"error: the jax backend cannot load jax ({named}")
    assert "use --backend numpy" in error


def test_a_jax_that_cannot_load_sees_no_gpu(monkeypatch) -> None:
    """The dashboard asks whether JAX sees a GPU: a JAX that cannot load sees none, rather than failing the page."""
    from evalcore.engine import array_backend

    jax_that_fails(monkeypatch, None)
    monkeypatch.setattr(array_backend, "gpu_plugin_installed", lambda: True)
    assert array_backend.gpu_available() is False


@pytest.mark.subprocess
@pytest.mark.slow
@pytest.mark.parametrize("threads", [{}, {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}])
def test_jax_under_a_2_gb_address_space_ends_in_one_line(world, threads) -> None:
    """The hostile run's own case: ``ulimit -v 2000000`` then ``--backend jax``: JAX's library fails to map (an
    ImportError), or, with one BLAS thread leaving it room to load, its CPU client aborts the process as it starts
    its threads (a native check, caught by the trial start in a child process)."""
    import importlib.util
    import subprocess
    import sys

    from tests.conftest import ROOT

    if importlib.util.find_spec("jax") is None:
        pytest.skip("JAX is not installed")
    limited = ("import os, resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2_000_000 * 1024,) * 2); "
               "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")
    process = subprocess.run([sys.executable, "-c", limited, "-m", "evalcore",
                              *evaluate_argv(world, "--backend", "jax", "--device", "cpu")],
                             capture_output=True, text=True, cwd=ROOT, timeout=300,
                             env={**os.environ, **threads})
    if process.returncode == 0:
        pytest.skip("JAX loads within 2 GB of address space here")
    assert process.returncode == 2 and process.stderr.count("\n") == 1, process.stderr
    assert process.stderr.startswith("error: the jax backend cannot load jax (")


# --- evaluate and detection print their table without --json -----------------------------------------------------

def test_evaluate_without_json_prints_the_table_of_means_it_would_write(capsys, world) -> None:
    """Was refused (issue 67: --json was required), where trec_eval, ranx and ir_measures print to the terminal."""
    import json

    from evalcore.cli import main

    assert main(evaluate_argv(world, "--metrics", "CUI@1", "MAP@2", "--json", str(world / "out.json"))) == 0
    written = json.loads((world / "out.json").read_text())["systems"]
    capsys.readouterr()
    assert main(evaluate_argv(world, "--metrics", "CUI@1", "MAP@2")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("|")[1:-1] == [" metric ", "      s ", "      t "]
    assert len({len(line) for line in lines}) == 1  # aligned
    for line in lines[2:]:
        metric, *means = (cell.strip() for cell in line.split("|")[1:-1])
        assert [float(mean) for mean in means] == [round(written[system][metric], 4) for system in ("s", "t")]
    assert [line.split("|")[1].strip() for line in lines[2:]] == ["CUI@1", "MAP@2"]


def test_detection_without_json_prints_its_scores(capsys, world) -> None:
    from evalcore.cli import main

    assert main(["detection", "--gt", str(world / "c.csv"), "--pred", str(world / "pred.csv")]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[2].split("|")[1:-1] == [" F1                          ", " 0.5556 "]
    assert "| images scored               |      3 |" in table
    assert not list(world.glob("*.json"))
