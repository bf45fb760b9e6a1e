"""The wheel: build it, install it into a fresh virtual environment and run `cbir-lens` outside the checkout.

Offline by construction: the wheel is built without build isolation from the installed setuptools and
wheel, the venv sees the already installed dependencies (tests/venvs.py) and the wheel is
installed with --no-deps --no-index. Sources are copied to a temporary folder first, so that the build
leaves nothing in the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

import evalcore
from tests.conftest import ROOT
from tests.venvs import make_venv

SHIPPED = ["pyproject.toml", "README.md", "app.py", "evalcore", "pages", "dashboard", "data", ".streamlit"]


def run(command: list[str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("package")
    source = base / "source"
    source.mkdir()
    for name in SHIPPED:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(origin, source / name)
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-cache-dir",
                 "--disable-pip-version-check", "-w", str(base / "dist"), str(source)], base)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    wheel = next((base / "dist").glob("cbir_lens-*.whl"))
    venv = make_venv(base / "venv")
    python = venv / "bin" / "python"
    # --without-pip: the venv runs the pip of the site packages it sees, which installs into the venv.
    install = run([str(python), "-m", "pip", "install", "--no-deps", "--no-index", "--disable-pip-version-check",
                   str(wheel)], base)
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-2000:]
    work = base / "work"
    work.mkdir()
    return {"wheel": wheel, "python": python, "command": venv / "bin" / "cbir-lens", "work": work, "venv": venv}


@pytest.mark.slow
def test_wheel_ships_the_dashboard_inside_the_package(installed):
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    top_level = {name.split("/")[0] for name in names if not name.startswith("cbir_lens-")}
    assert top_level == {"evalcore"}  # no top-level "pages" (or "data") in site-packages
    for shipped in ("evalcore/_dashboard/app.py", "evalcore/_dashboard/pages/leaderboard.py",
                    "evalcore/_dashboard/dashboard/computed.py",
                    "evalcore/_dashboard/.streamlit/config.toml", "evalcore/_dashboard/data/demo/concepts.csv",
                    "evalcore/_dashboard/data/demo/runs/overlap-noisy.trec",
                    "evalcore/_dashboard/data/labels/rocov2_labels.csv"):
        assert shipped in names
    # Every module of the library, subpackages included (pyproject lists packages by name: evalcore.engine was left out)
    modules = {path.relative_to(ROOT).as_posix() for path in (ROOT / "evalcore").rglob("*.py")}
    assert modules <= set(names), sorted(modules - set(names))


@pytest.mark.subprocess
@pytest.mark.slow
def test_installed_package_is_used_outside_the_checkout(installed):
    code = ("import evalcore, evalcore.io.loading as l, evalcore.resources as r;"
            "print(evalcore.__file__); print(r.project_root()); print(l.LABEL_MAPPING.is_file()); print(evalcore.__version__)")
    shown = run([str(installed["python"]), "-c", code], installed["work"])
    assert shown.returncode == 0, shown.stderr
    module, root, labels_found, version = shown.stdout.split()
    assert Path(module).is_relative_to(installed["venv"]) and Path(root).is_relative_to(installed["venv"])
    assert labels_found == "True" and version == evalcore.__version__


@pytest.mark.subprocess
@pytest.mark.slow
def test_cbir_lens_help_and_evaluate_on_the_shipped_demo(installed):
    work, command = installed["work"], str(installed["command"])
    shown = run([command, "--help"], work)
    assert shown.returncode == 0 and shown.stdout.startswith("usage: cbir-lens")
    for subcommand in ("relevance", "evaluate", "compare", "retrieve", "detection", "app"):
        assert subcommand in shown.stdout
    demo = installed["venv"].glob("lib/python*/site-packages/evalcore/_dashboard/data/demo")
    demo = next(demo)
    runs = sorted(str(p) for p in (demo / "runs").glob("*.trec"))
    evaluated = run([command, "evaluate", "--concepts", str(demo / "concepts.csv"), "--kg", str(demo / "kg_edges.csv"),
                     "--run", *runs, "--labels", str(demo / "labels.csv"), "--k", "10", "--json", "out.json"], work)
    assert evaluated.returncode == 0, evaluated.stderr
    payload = json.loads((work / "out.json").read_text())
    here = evalcore.evaluate(str(ROOT / "data/demo/concepts.csv"),
                             sorted(str(p) for p in (ROOT / "data/demo/runs").glob("*.trec")), evalcore.Scoring(k=10),
                             kg=[str(ROOT / "data/demo/kg_edges.csv")], labels=str(ROOT / "data/demo/labels.csv"))
    assert payload["systems"] == here.means()
    assert payload["intervals"] == json.loads(here.to_json())["intervals"]
    failed = run([command, "evaluate", "--concepts", "missing.csv", "--run", "x.trec", "--json", "o.json"], work)
    assert failed.returncode == 2 and len(failed.stderr.strip().splitlines()) == 1


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.subprocess
@pytest.mark.slow
def test_cbir_lens_app_answers_its_health_check(installed):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    process = subprocess.Popen([str(installed["command"]), "app", "--server.port", str(port), "--server.headless", "true"],
                               cwd=installed["work"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    answer, deadline = None, time.monotonic() + 45
    try:
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with urllib.request.urlopen(f"http://localhost:{port}/_stcore/health", timeout=2) as response:
                    answer = response.read().decode()
                    break
            except OSError:
                time.sleep(0.3)
    finally:
        process.terminate()
        try:
            output, _ = process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            output, _ = process.communicate()
    assert answer == "ok", output[-3000:]
