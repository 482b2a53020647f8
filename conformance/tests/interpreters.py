"""Other Python interpreters on this machine, for the tests that run an adapter under one: the
generic --impl-cmd server must serve from a harness's own environment (Python 3.8 or later,
lcb-conformance not installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import lcb_prompts

PYENV_ROOT = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")


def _runs_as(candidate: str | Path, version: str) -> bool:
    try:
        shown = subprocess.run(
            [str(candidate), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return shown.returncode == 0 and shown.stdout.strip() == version


def python(version: str) -> Path:
    """An interpreter of ``version`` ("3.10"): python3.10 on PATH, or pyenv's; a skip saying
    where it was looked for when there is none."""
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(PYENV_ROOT.glob(f"versions/{version}.*/bin/python{version}"))[::-1]
    for candidate in candidates:
        if candidate and _runs_as(candidate, version):
            return Path(candidate)
    pytest.skip(
        f"no Python {version} here (python{version} on PATH, or {PYENV_ROOT}/versions/"
        f"{version}.*): install one, e.g. `pyenv install {version}`, to run this test"
    )


def venv_with_lcb_prompts(interpreter: Path, directory: Path) -> Path:
    """A virtual environment of ``interpreter`` in which lcb_prompts (the suite's, standard
    library only) is installed as an editable install does it, by a .pth file naming a
    folder that holds it, and nothing else of the suite's; its python."""
    subprocess.run([str(interpreter), "-m", "venv", "--without-pip", str(directory)], check=True)
    source = directory / "src"
    source.mkdir()
    (source / "lcb_prompts").symlink_to(Path(lcb_prompts.__file__).parent)
    venv_python = directory / "bin" / "python"
    site = subprocess.run(
        [str(venv_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (Path(site) / "lcb_prompts.pth").write_text(f"{source}\n", "utf-8")
    return venv_python


def imports(interpreter: Path, module: str) -> bool:
    """Whether ``module`` can be imported under ``interpreter`` (the suite's environment
    variables removed)."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return (
        subprocess.run(
            [str(interpreter), "-c", f"import {module}"], capture_output=True, env=environment
        ).returncode
        == 0
    )
