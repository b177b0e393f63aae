"""The package installs offline with pip from its source folder, as the
README says, and carries its type information."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_pip_install_offline(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build", ".*_cache"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-index", "--no-build-isolation", "--no-deps",
                          "--quiet", str(src)], capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    out = subprocess.run([str(venv / "bin" / "python"), "-c",
                          "import deskrun, pathlib; p = pathlib.Path(deskrun.__file__).parent; "
                          "print(p, (p / 'py.typed').exists(), deskrun.Client.__name__, deskrun.AsyncClient.__name__)"],
                         capture_output=True, text=True, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    where, typed, sync, asyn = out.stdout.split()
    assert where.startswith(str(venv)) and typed == "True" and (sync, asyn) == ("Client", "AsyncClient")
