"""The commands' dispatch and exit codes, beyond the false-green table: what must stay green
stays green, and each code means what common/exit_codes.py says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lcb_conformance import cli
from lcb_conformance.common import exit_codes
from lcb_conformance.reports import judge as judge_report
from lcb_conformance.upstream import drift

pytestmark = pytest.mark.selftest

TESTS = Path(__file__).parent


def test_without_a_command_the_arguments_are_runs(tmp_path, capsys):
    argv = ["--impl", "miniatures:decode_only", "--impl-path", str(TESTS)]
    report = tmp_path / "r.json"
    code = cli.main(
        [*argv, "--only", "reference-impl/decode_context", "--no-contract", "--json", str(report)]
    )
    assert code == exit_codes.OK, capsys.readouterr()
    data = json.loads(report.read_text("utf-8"))
    assert data["impl"]["name"] == "miniatures:decode_only" and data["exit_code"] == code


@pytest.mark.parametrize("word", ["scroe", "help-me", "run.json"])
def test_a_word_that_is_no_command_is_named_with_every_command(word, capsys):
    # tests the console's contract: an unknown command is one line naming every command
    assert cli.main([word, "--help"]) == exit_codes.UNUSABLE
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1
    assert f"no command {word!r}" in err and ", ".join(cli.SUBCOMMANDS) in err


def test_the_judge_report_takes_the_runs_adapter_options(tmp_path, capsys):
    # tests the console's contract: an input error is one line naming the option
    absent = tmp_path / "absent"
    assert judge_report.main(["--impl", "x", "--impl-path", str(absent)]) == exit_codes.UNUSABLE
    assert f"--impl-path {absent}: no such folder" in capsys.readouterr().err
    assert judge_report.main([]) == exit_codes.UNUSABLE  # the reference has no judge
    assert "lcb_prompts provides no judge_program" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("verdict", "counts", "code"),
    [
        (drift.IDENTICAL, {drift.IDENTICAL: 3}, exit_codes.OK),
        (drift.MODEL_LIST, {drift.IDENTICAL: 3, drift.MODEL_LIST: 1}, exit_codes.OK),
        (drift.MISSING, {drift.IDENTICAL: 3, drift.MISSING: 1}, exit_codes.INCOMPLETE),
        (drift.IDENTICAL, {}, exit_codes.INCOMPLETE),  # nothing compared
        (drift.ERROR, {}, exit_codes.INCOMPLETE),  # a --history commit not judged
        (drift.DIFFERS, {drift.DIFFERS: 1, drift.MISSING: 1}, exit_codes.DIFFERS),
    ],
)
def test_drift_is_green_only_when_every_case_was_compared(verdict, counts, code):
    assert drift.exit_code({"verdict": verdict, "counts": counts}) == code
