"""Adapters held to every case of what they provide (issue 33): a provided function declining
an input is a difference (declined), an in-process adapter ending the process its cases run in
ends no run with a green (exit 4, one line), and a case over the time limit is timed-out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from lcb_conformance import cli
from lcb_conformance.common import exit_codes
from lcb_conformance.runner import results
from lcb_conformance.runner import run as runner

TESTS = Path(__file__).parent
EXTRACT_ONLY = ["--only", "extract", "--no-contract"]

pytestmark = pytest.mark.selftest


def _in_process(adapter: str) -> list[str]:
    return ["--impl", f"miniatures:{adapter}", "--impl-path", str(TESTS)]


def test_a_provided_function_declining_inputs_differs(capsys):
    assert cli.main(["run", *_in_process("declines_inputs"), *EXTRACT_ONLY]) == exit_codes.DIFFERS
    assert "declined by a function it provides, 17 case(s)" in capsys.readouterr().out


@pytest.mark.parametrize("adapter", ["os_exits_after_40", "sys_exits_after_40"])
def test_an_adapter_ending_its_process_is_incomplete_in_one_line(adapter, tmp_path):
    """Run as the console script runs (an os._exit in this process would end the test run)."""
    found = tmp_path / "results.jsonl"
    command = [sys.executable, "-m", "lcb_conformance.cli", *_in_process(adapter)]
    done = subprocess.run(
        [*command, *EXTRACT_ONLY, "--results", str(found)], capture_output=True, text=True
    )
    assert done.returncode == exit_codes.INCOMPLETE, done.stderr
    assert "Traceback" not in done.stderr and "ExceptionGroup" not in done.stderr
    [said] = [line for line in done.stderr.splitlines() if "INCOMPLETE" in line]
    assert "the adapter ended the process its cases run in" in said
    assert "the 40 results so far" in said
    lines = [json.loads(line) for line in found.read_text("ascii").splitlines()]
    assert len(lines) == 41 and not any("footer" in line for line in lines)
    assert not results.read(found).complete  # no footer: a run that did not finish


def test_a_results_file_without_its_footer_is_incomplete(tmp_path):
    found = tmp_path / "results.jsonl"
    command = [sys.executable, "-m", "lcb_conformance.cli", *_in_process("os_exits_after_40")]
    subprocess.run([*command, *EXTRACT_ONLY, "--results", str(found)], capture_output=True)
    assert cli.main(["report", str(found)]) == exit_codes.INCOMPLETE


def test_the_plugin_fails_the_case_an_adapter_ended_its_process_on(tmp_path):
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-p", "lcb_conformance.plugin", "-q",
            "-p", "no:randomly", "-p", "no:cacheprovider", "--lcb-impl",
            "miniatures:os_exits_after_40", "--lcb-impl-path", str(TESTS),
            "--lcb-only", "extract", "-k", "extract/claude/",
        ],  # fmt: skip
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout
    assert "lcb-conformance: the adapter ended the process its cases run in" in done.stdout
    assert done.stdout.startswith("." * 40 + "F")  # 40 answered, then the child ended


def test_a_case_over_the_time_limit_is_timed_out_and_the_next_starts_afresh():
    spec = runner.Spec(impl="miniatures:slow", impl_path=(str(TESTS),), case_timeout=1)
    cases = [c for c in runner.golden_cases() if c["call"]["function"] == "decode_context"][:2]
    child = runner.InChild(spec)
    try:
        found = [child.result(case) for case in cases]
    finally:
        child.close()
    assert [result.status for result in found] == [results.TIMED_OUT] * 2
    assert "case time limit of 1 s (--case-timeout" in found[0].reason
    assert all(result.not_ok and result.ran for result in found)
