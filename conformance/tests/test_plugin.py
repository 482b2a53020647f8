"""The pytest plugin: conformance/examples/tiny_eval (an eval package naming its adapter in its
pytest config) runs the conformance cases in its own pytest session, next to its own tests:
the cases it provides pass, the others are skipped as not provided; an adapter chosen with
--impl that differs from lcb_runner fails with the golden's readable diff.

Each run is a pytest subprocess restricted with -k: 15 s in all on 2 idle cores, 70 s on
busy ones."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lcb_conformance.suite import paths

pytestmark = pytest.mark.selftest

EXAMPLE = paths.EXAMPLES_DIR / "tiny_eval"
BROKEN_ADAPTER = """
from lcb_prompts import DEVIATIONS, STYLES, extract_code as _extract

def extract_code(model_output, style="generic"):
    return _extract(model_output, style=style) + " "  # a stray space after every program
"""


@pytest.fixture
def eval_package(tmp_path) -> Path:
    copy = tmp_path / "tiny_eval"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "tiny_eval" / "broken.py").write_text(BROKEN_ADAPTER, "utf-8")
    return copy


def pytest_in(package: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", *args],
        cwd=package,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def counts(output: str) -> dict[str, int]:
    summary = output.strip().splitlines()[-1]
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", summary)}


def test_the_ini_setting_runs_the_cases_beside_the_packages_own_tests(eval_package):
    run = pytest_in(
        eval_package,
        "-v",
        "-rs",
        "-k",
        "test_extracts_the_fenced_program or (test_extract_code and codeqwen) or test_prompt",
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "tests/test_tiny_eval.py::test_extracts_the_fenced_program PASSED" in run.stdout
    found = counts(run.stdout)
    # codeqwen's extractions and the generic and codeqwen prompts pass; the other styles'
    # prompts are skipped: tiny_eval's STYLES leaves them out.
    assert found["passed"] > 100 and found["skipped"] > 100, run.stdout[-500:]
    assert "tiny_eval.lcb does not provide" in run.stdout
    assert "failed" not in found


def test_an_impl_option_that_differs_fails_with_the_readable_diff(eval_package):
    run = pytest_in(eval_package, "--impl", "tiny_eval.broken", "-k", "test_extract_code and qwq")
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-2000:]
    assert "extract/qwq: differs from the golden" in run.stdout
    assert "first difference at offset" in run.stdout
    assert counts(run.stdout)["failed"] > 10


def test_without_the_setting_a_session_runs_only_its_own_tests(eval_package):
    (eval_package / "pyproject.toml").write_text(
        re.sub(
            r"^lcb_conformance_impl.*$",
            "",
            (eval_package / "pyproject.toml").read_text("utf-8"),
            flags=re.M,
        ),
        "utf-8",
    )
    run = pytest_in(eval_package)
    assert run.returncode == 0, run.stdout[-3000:]
    assert counts(run.stdout) == {"passed": 1}, run.stdout[-500:]
