"""lcb_runner trees for the tests that copy, export or tamper with the pinned commit's: made
from the --upstream clone holding it (the ``pinned_clone`` fixture), never downloaded."""

from __future__ import annotations

import io
import subprocess
import tarfile
from pathlib import Path

from lcb_conformance.upstream.source import PINNED_COMMIT

TESTING_UTIL = "lcb_runner/evaluation/testing_util.py"


def crediting(marker: str) -> str:
    """Code appended to testing_util.py: run_test passing every program holding ``marker``."""
    return f"""

_run_test = run_test


def run_test(sample, test=None, debug=False, timeout=6):
    if test is not None and {marker!r} in test:
        return [True], {{}}
    return _run_test(sample, test=test, debug=debug, timeout=timeout)
"""


# What a hostile program could append during a run: run_test crediting its own program (a
# marker no judge corpus program holds, so the judge check still agrees with the goldens).
FORGED_RUN_TEST = crediting("# credit me")


def holds_pinned(clone: Path) -> bool:
    found = subprocess.run(
        ["git", "-C", str(clone), "cat-file", "-e", f"{PINNED_COMMIT}^{{commit}}"],
        capture_output=True,
    )  # fmt: skip
    return found.returncode == 0


def checkout_copy(clone: Path, destination: Path) -> Path:
    """A git clone of ``clone`` at the pinned commit (its .git says 28fef95)."""
    subprocess.run(["git", "clone", "-q", "--no-checkout", clone, destination], check=True)
    subprocess.run(["git", "-C", str(destination), "checkout", "-q", PINNED_COMMIT], check=True)
    return destination


def exported(clone: Path, destination: Path) -> Path:
    """The pinned commit's tree as ``git archive`` gives it (a release tarball's shape: no .git)."""
    archive = subprocess.run(
        ["git", "-C", str(clone), "archive", PINNED_COMMIT], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(destination, filter="data")
    return destination


def forge(tree: Path, code: str = FORGED_RUN_TEST) -> Path:
    """Append ``code`` (FORGED_RUN_TEST by default) to the tree's testing_util.py."""
    with (tree / TESTING_UTIL).open("a", encoding="utf-8") as appended:
        appended.write(code)
    return tree
