"""The pytest plugin: conformance/examples/tiny_eval (an eval package enabling the plugin and
naming its adapter in its pytest config) runs the conformance cases in its own pytest session,
next to its own tests: the cases it provides pass, the others are skipped as not provided; an
adapter chosen with --lcb-impl that differs from lcb_runner fails with the golden's readable
diff; under pytest-xdist the results file is the serial run's; a host that imported
transformers first still gets the cases; and without the plugin nothing of ours is in the
session, not even an option in --help.

Each run is a pytest subprocess restricted with -k."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import junit_record
import pytest

from lcb_conformance.common import exit_codes, paths
from lcb_conformance.reports.verdict import Verdict
from lcb_conformance.runner import results

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


SESSION = "session.xml"  # the session's JUnit XML record, in the package's folder


def pytest_in(package: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider",
         f"--junitxml={SESSION}", *args],
        cwd=package,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )  # fmt: skip


def session(package: Path) -> list[junit_record.Outcome]:
    """The last session's test cases, from its JUnit XML record."""
    return junit_record.outcomes(package / SESSION)


def test_the_ini_setting_runs_the_cases_beside_the_packages_own_tests(eval_package):
    run = pytest_in(
        eval_package, "-v", "-rs", "-k", "test_extracts_the_fenced_program or extract/codeqwen/ "
        "or prompt/",
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    found = session(eval_package)
    (own,) = [o for o in found if o.classname == "tests.test_tiny_eval"]
    assert (own.test, own.outcome) == ("test_extracts_the_fenced_program", junit_record.PASSED)
    # codeqwen's extractions and the generic and codeqwen prompts pass; the other styles'
    # prompts are skipped: tiny_eval's STYLES leaves them out.
    counted = junit_record.counts(found)
    assert counted[junit_record.PASSED] > 100 and counted[junit_record.SKIPPED] > 100, counted
    assert junit_record.FAILED not in counted
    skipped = [o.text for o in found if o.outcome == junit_record.SKIPPED]
    assert all("tiny_eval.lcb does not provide" in text for text in skipped)
    tests = {o.test.split("[")[0] for o in found}
    assert not tests & {"test_golden_case", "test_layout"}  # no self-test


def test_an_impl_option_that_differs_fails_with_the_readable_diff(eval_package):
    run = pytest_in(eval_package, "--lcb-impl", "tiny_eval.broken", "-k", "extract/qwq/")
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-2000:]
    failed = [o for o in session(eval_package) if o.outcome == junit_record.FAILED]
    # the plugin names each case by its golden key
    assert len(failed) > 10 and all(o.test.startswith("extract/qwq/") for o in failed)
    for outcome in failed:  # the golden's readable diff
        assert f"{outcome.test}: differs from the golden" in outcome.text
        assert "first difference at offset" in outcome.text


def test_an_adapter_folder_outside_the_project_is_named_with_equals(eval_package, tmp_path):
    """docs/pytest-plugin.md: with the plugin from addopts, `--lcb-impl-path=DIR` loads the
    adapter from a folder outside the project; `--lcb-impl-path DIR` makes pytest read DIR as a
    test path, look for its ini file from there and never load the plugin."""
    outside = tmp_path / "adapters"
    outside.mkdir()
    shutil.copy(eval_package / "tiny_eval" / "lcb.py", outside / "outside_lcb.py")
    adapter = ("--lcb-impl", "outside_lcb", "--lcb-only", "extract", "-k", "extract/codeqwen/")
    run = pytest_in(eval_package, f"--lcb-impl-path={outside}", *adapter)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    counted = junit_record.counts(session(eval_package))
    assert counted[junit_record.PASSED] > 10 and junit_record.FAILED not in counted, counted
    spaced = pytest_in(eval_package, "--lcb-impl-path", str(outside), *adapter)
    assert spaced.returncode == pytest.ExitCode.USAGE_ERROR, spaced.stdout[-3000:]
    assert "unrecognized arguments: --lcb-impl-path --lcb-impl" in spaced.stderr


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_an_adapter_that_cannot_be_imported_is_one_usage_error(eval_package, workers):
    """Not a failure per case (948 of them, each with the same traceback): the session stops
    before any item runs, with the gate's exit code for unusable input (2) and one line saying
    what to fix."""
    if workers:
        pytest.importorskip("xdist")
    elsewhere = eval_package / "adapters" / "elsewhere"  # a folder no --lcb-impl-path names
    elsewhere.mkdir(parents=True)
    shutil.copy(eval_package / "tiny_eval" / "lcb.py", elsewhere / "lcb.py")
    run = pytest_in(eval_package, *workers, "--lcb-impl", "elsewhere.lcb")
    assert run.returncode == exit_codes.UNUSABLE, run.stdout[-3000:] + run.stderr[-2000:]
    said = [line for line in run.stderr.splitlines() if "lcb-conformance" in line]
    assert len(said) == 1 and "cannot load elsewhere.lcb" in said[0], run.stderr[-2000:]
    assert "Traceback" not in run.stdout + run.stderr
    assert not (eval_package / SESSION).exists() or not session(eval_package)  # no item ran


def test_under_xdist_the_results_file_is_the_serial_runs(eval_package):
    pytest.importorskip("xdist")
    found = {}
    for name, args in {"serial": (), "workers": ("-n", "2")}.items():
        # --lcb-only, not -k: a file narrowed by -k lacks planned cases and reads as unfinished
        only = ("--lcb-only", "extract")
        run = pytest_in(eval_package, *args, "--lcb-results", f"{name}.jsonl", *only)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
        written = results.read(eval_package / f"{name}.jsonl")  # one result per case, all
        assert written.complete and len(written.results) == written.planned
        found[name] = sorted((r.id, r.status, r.reason) for r in written.results)
    assert found["workers"] == found["serial"] and len(found["serial"]) > 900


def test_a_host_that_imported_transformers_first_gets_the_cases(eval_package):
    (eval_package / "conftest.py").write_text(
        "import transformers  # the host's own, before the plugin serves any tokenizer\n"
        "import os\n"
        "HOME = os.environ.get('HF_HOME')\n"
        "def pytest_unconfigure(config):\n"
        "    assert os.environ.get('HF_HOME') == HOME, 'the plugin changed HF_HOME'\n",
        "utf-8",
    )
    run = pytest_in(eval_package, "-k", "chat-prompt/Qwen__Qwen3-8B/")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert junit_record.counts(session(eval_package))[junit_record.PASSED] > 10


def _without(package: Path, pattern: str) -> None:
    config = package / "pyproject.toml"
    config.write_text(re.sub(pattern, "", config.read_text("utf-8"), flags=re.M), "utf-8")


def test_without_the_implementation_a_session_runs_only_its_own_tests(eval_package):
    _without(eval_package, r"^lcb_conformance_impl.*$")
    run = pytest_in(eval_package)
    assert run.returncode == 0, run.stdout[-3000:]
    assert junit_record.counts(session(eval_package)) == {junit_record.PASSED: 1}


def test_without_the_plugin_nothing_of_ours_is_in_the_session(eval_package):
    _without(eval_package, r"^(addopts|lcb_conformance_impl).*$")
    run = pytest_in(eval_package)
    assert run.returncode == 0, run.stdout[-3000:]
    assert junit_record.counts(session(eval_package)) == {junit_record.PASSED: 1}
    # tests the console's contract: pytest --help shows none of our options without the plugin
    shown = pytest_in(eval_package, "--help").stdout
    assert "--lcb" not in shown and "lcb_conformance" not in shown and "lcb-conformance" not in (
        shown
    )
    enabled = pytest_in(eval_package, "-p", "lcb_conformance.plugin", "--help").stdout
    assert "--lcb-impl" in enabled and "--impl " not in enabled


def test_a_results_file_narrowed_by_k_is_a_run_that_did_not_finish(eval_package):
    """-k leaves planned cases out: the file has no footer, and report says so (exit 4)."""
    selected = ("--lcb-only", "extract", "-k", "generic/")
    run = pytest_in(eval_package, "--lcb-results", "k.jsonl", *selected)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    written = results.read(eval_package / "k.jsonl")
    assert not written.complete and 0 < len(written.results) < written.planned
    assert Verdict(written).exit_code() == exit_codes.INCOMPLETE


def test_a_session_that_answered_no_golden_case_fails(eval_package):
    """Every selected case not provided: pytest would report all skipped, exit 0."""
    # tests the console's contract: the plugin's own line says why the session failed
    run = pytest_in(eval_package, "--lcb-only", "reference-impl/decode_context")
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, run.stdout[-3000:]
    assert "lcb-conformance: FAILED: no golden case was answered" in run.stdout
