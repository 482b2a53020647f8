"""Another Python of this machine (`python3.10` on PATH, or pyenv's) and a virtual environment of
it holding a harness `--no-deps`, for a harness that needs another interpreter (tox -e
peer-skythought).

Another Python interpreter of this machine, for a harness that needs one (SkyThought 0.1.0
allows only Python < 3.11): ``python{version}`` on PATH, or pyenv's. The generic --impl-cmd
server then serves the harness's adapter from a virtual environment of it.

    python -m lcb_conformance.adapters.interpreters venv VERSION DIR PACKAGE...
        a virtual environment of Python VERSION in DIR (made anew) with PACKAGEs installed
        --no-deps; prints its python
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from lcb_conformance.common import exit_codes, shared_options

PYENV_ROOT = Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")


def runs_as(candidate: str | Path, version: str) -> bool:
    """Whether ``candidate`` starts and is Python ``version`` (a pyenv shim of a version that
    is not selected fails to start)."""
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


def python(version: str) -> Path | None:
    """An interpreter of ``version`` ("3.10"): python3.10 on PATH, or pyenv's newest; None."""
    candidates = [shutil.which(f"python{version}")]
    candidates += sorted(PYENV_ROOT.glob(f"versions/{version}.*/bin/python{version}"))[::-1]
    return next((Path(found) for found in candidates if found and runs_as(found, version)), None)


def where_looked(version: str) -> str:
    return f"python{version} on PATH, or {PYENV_ROOT}/versions/{version}.*"


def venv(version: str, directory: Path, packages: list[str]) -> Path:
    """A virtual environment of Python ``version`` in ``directory`` (made anew) holding
    ``packages`` installed --no-deps; its python."""
    interpreter = python(version)
    if interpreter is None:
        raise LookupError(f"no Python {version} here ({where_looked(version)})")
    subprocess.run([str(interpreter), "-m", "venv", "--clear", str(directory)], check=True)
    venv_python = directory / "bin" / "python"
    if packages:
        subprocess.run(
            [str(venv_python), "-m", "pip", "install", "--quiet", "--no-deps", *packages],
            check=True,
        )
    return venv_python


def main(argv: list[str] | None = None) -> int:
    parser = shared_options.CommandParser(prog="python -m lcb_conformance.adapters.interpreters")
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("venv", help="a virtual environment of another Python")
    made.add_argument("version", help='e.g. "3.10"')
    made.add_argument("directory", type=Path)
    made.add_argument("packages", nargs="*", help="installed --no-deps")
    args = parser.parse_args(argv)
    try:
        print(venv(args.version, args.directory, args.packages))
    except LookupError as missing:
        print(f"{parser.prog}: {missing}", file=sys.stderr)
        return exit_codes.UNUSABLE
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(main())
