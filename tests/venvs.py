"""Virtual environments for tests that install the wheel (standard library only: it also runs inside a
fresh venv, to test itself)."""

from __future__ import annotations

import site
import subprocess
import sys
from pathlib import Path


def make_venv(path: str | Path) -> Path:
    """A new venv at ``path`` that sees the packages of the environment running this function.

    ``--system-site-packages`` is not enough: from inside a venv it makes the new one see the *base*
    interpreter's packages, not the venv's, so a user who installed the requirements into a venv
    would lack them in the nested one. Instead a ``.pth`` file adds each site-packages folder of
    the running environment (processing their own ``.pth`` files, as ``site`` does). The venv has
    no pip of its own: ``python -m pip`` runs the pip it sees, which installs into the venv.
    """
    venv = Path(path)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True)
    folders = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        folders.append(site.getusersitepackages())
    own = next(venv.glob("lib/python*/site-packages"))
    lines = [f"import site; site.addsitedir({folder!r})" for folder in folders if Path(folder).is_dir()]
    (own / "_running_environment.pth").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return venv
