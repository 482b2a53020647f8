"""Other Python interpreters on this machine, for the tests that run an adapter under one: the
generic --impl-cmd server must serve from a harness's own environment (Python 3.8 or later,
lcb-conformance not installed)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import lcb_prompts
from lcb_conformance.adapters import interpreters


def python(version: str) -> Path:
    """An interpreter of ``version`` ("3.10") (adapters.interpreters: python3.10 on PATH, or
    pyenv's); a skip saying where it was looked for when there is none."""
    found = interpreters.python(version)
    if found is None:
        pytest.skip(
            f"no Python {version} here ({interpreters.where_looked(version)}): install one, "
            f"e.g. `pyenv install {version}`, to run this test"
        )
    return found


DEBIAN_PYTHON = Path("/usr/bin/python3")  # Debian's, not the suite's (tox's) interpreter


def other_python(which: str) -> Path:
    """Python ``which`` ("3.10", see python), or "debian": the system's python3 when it is
    not the suite's own; a skip when there is none."""
    if which != "debian":
        return python(which)
    if not DEBIAN_PYTHON.is_file() or DEBIAN_PYTHON.resolve() == Path(sys.executable).resolve():
        pytest.skip(f"no Python besides {sys.executable} at {DEBIAN_PYTHON}")
    return DEBIAN_PYTHON


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
