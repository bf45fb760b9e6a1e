"""What the command line imports: `evaluate` reads, scores and writes intervals without scipy.stats (half a
second to import; only significance tests need it) or the dashboard's libraries."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import DEMO, ROOT


@pytest.mark.subprocess
@pytest.mark.slow
def test_evaluate_does_not_import_significance_tests_or_the_dashboard(tmp_path):
    code = ("import sys; from evalcore.cli import main; status = main(sys.argv[1:]); "
            "print(status, [m for m in ('scipy.stats', 'streamlit', 'plotly') if m in sys.modules])")
    argv = ["evaluate", "--concepts", str(DEMO / "concepts.csv"), "--kg", str(DEMO / "kg_edges.csv"),
            "--run", str(DEMO / "runs" / "overlap-noisy.trec"), "--json", str(tmp_path / "r.json")]
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "[]"], done.stdout
    assert (tmp_path / "r.json").is_file()
