"""The install `audit`, `score` and `regrade` share (common/runs_install.py): each of them, run
where a piece of it is missing, says in one line, exit 2, the command line that installs it;
that command is first_verdict's option in the checkout's .venv, one pip line elsewhere; the
stand-in it pins is tox.ini's.

A piece is made missing in the child process as an install without it would be: its import
fails as a module not installed does, and its distribution has no metadata."""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

import pytest
import regrade_inputs

from lcb_conformance.common import exit_codes, paths, runs_install

# The gate's console in a process lacking a piece of the install, as the missing extra's
# refusals are tested (test_run_audit.py): with the self-tests.
pytestmark = pytest.mark.selftest

# lcb_runner's generations beside its cache (the audit's prompt record)
LCB_RUNNER_RUN = regrade_inputs.LCB_RUNNER_RUN.with_name("Scenario.codegeneration_3_0.2.json")
# the console, where the modules of argv[1] and the distributions of argv[2] are not installed
WITHOUT = """
import importlib.abc, importlib.metadata, sys
modules, distributions = (set(sys.argv.pop(1).split(",")) for _ in "md")
class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in modules:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NotInstalled())
found = importlib.metadata.distribution
def distribution(name):
    if name in distributions:
        raise importlib.metadata.PackageNotFoundError(name)
    return found(name)
importlib.metadata.distribution = distribution
from lcb_conformance.cli import main
sys.exit(main(sys.argv[1:]))
"""
UNUSABLE_UPSTREAM = "from nvidia-livecodebench (not installed)"


def without(missing: str, *argv: str, cwd: Path) -> subprocess.CompletedProcess:
    # the stand-in's import name is not its distribution's
    hidden = runs_install.STAND_IN_DISTRIBUTION if missing == "livecodebench" else ""
    return subprocess.run(
        [sys.executable, "-c", WITHOUT, missing, hidden, *argv],
        capture_output=True, text=True, cwd=cwd, timeout=300,
    )  # fmt: skip


@pytest.fixture
def dataset(tmp_path) -> Path:
    """A dataset folder in LiveCodeBench's layout holding the fixture runs' four problems."""
    return regrade_inputs.write(tmp_path / "dataset", regrade_inputs.rows(), "test.jsonl")


def cases(upstream: str) -> dict[str, tuple[str, list[str], str]]:
    """name: (the modules missing, the command line, what its refusal must say)."""
    lighteval = str(regrade_inputs.LIGHTEVAL_RUN)
    return {
        "audit, no stand-in": ("livecodebench", ["audit", str(LCB_RUNNER_RUN)], UNUSABLE_UPSTREAM),
        # lcb_runner's own imports, from the stand-in or a checkout alike
        "audit, no extra": (
            "datasets",
            ["audit", str(LCB_RUNNER_RUN), "--upstream", upstream],
            "lcb_runner's own dependencies (anthropic<1 for HUMAN_PROMPT, datasets) come with",
        ),
        "score, lighteval without pyarrow": ("pyarrow", ["score", lighteval], "needs pyarrow"),
        "score --dataset, lighteval without pyarrow": (
            "pyarrow",
            ["score", lighteval, "--dataset", "DATASET"],
            "needs pyarrow",
        ),
        "regrade, no stand-in": (
            "livecodebench",
            ["regrade", str(LCB_RUNNER_RUN), "--dataset", "DATASET", "--not-a-release"],
            UNUSABLE_UPSTREAM,
        ),
        "regrade, lighteval without pyarrow": (
            "pyarrow",
            ["regrade", lighteval, "--dataset", "DATASET", "--style", "OpenAIChat"],
            "needs pyarrow",
        ),
    }


@pytest.mark.parametrize("name", list(cases("installed")))
def test_a_missing_piece_is_one_line_naming_the_install(name, pytestconfig, dataset, tmp_path):
    # tests the console's contract: a missing extra is one line saying what to install
    missing, argv, says = cases(pytestconfig.getoption("--upstream"))[name]
    argv = [str(dataset) if arg == "DATASET" else arg for arg in argv]
    report = tmp_path / "report.json"
    done = without(missing, *argv, "--json", str(report), cwd=tmp_path)
    assert done.returncode == exit_codes.UNUSABLE, done
    assert "Traceback" not in done.stdout + done.stderr and not report.exists()
    assert done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"{argv[0]}: ") and says in done.stderr
    assert f"`{runs_install.command()}`" in done.stderr


def test_the_command_is_first_verdicts_in_the_checkouts_venv(monkeypatch):
    assert paths.CHECKOUT is not None
    monkeypatch.setattr(sys, "prefix", str(paths.CHECKOUT / ".venv"))
    assert runs_install.command() == "python3 dev/first_verdict.py --runs"
    monkeypatch.setattr(sys, "prefix", str(paths.CHECKOUT / ".tox" / "report"))
    assert runs_install.command() == (
        "pip install 'lcb-conformance[upstream]' && pip install --no-deps "
        "nvidia-livecodebench==26.3"
    )


def test_the_stand_in_is_the_one_tox_installs():
    tox = configparser.ConfigParser(interpolation=None)
    tox.read(paths.CHECKOUT / "tox.ini", encoding="utf-8")
    install = tox["upstream"]["install"]
    assert install == f"python -m pip install --no-deps {runs_install.STAND_IN}"
