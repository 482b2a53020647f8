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


# One bad input per command: (command line, the input its line must name). hub-check has no
# exit 2 (a repo it cannot check is FAILED, exit 4).
ABSENT = "absent-input"
BAD_INPUTS = {
    "run": (["run", "--impl", "x", "--impl-path", ABSENT], ABSENT),
    "report": (["report", ABSENT], ABSENT),
    "resolve": (["resolve", "--style", "generik"], "generik"),
    "resolve-unlisted": (["resolve", "some-org/not-a-listed-model-7B"], "not-a-listed-model"),
    "regen": (["regen", "--check", "--upstream", ABSENT], ABSENT),
    "drift": (["drift", "--upstream", ABSENT], ABSENT),
    "diff": (["diff", ABSENT], ABSENT),
    "audit": (["audit", ABSENT], ABSENT),
    "score": (["score", ABSENT], ABSENT),
    "regrade": (["regrade", ABSENT, "--dataset", ABSENT], ABSENT),
    "regrade-show": (["regrade", "show", ABSENT], ABSENT),
    "regrade-merge": (["regrade", "merge", ABSENT, "--results", "merged.jsonl"], ABSENT),
    "tokenizer-diff": (["tokenizer-diff", ABSENT, ABSENT], ABSENT),
}


def test_every_command_has_a_bad_input_below():
    assert {argv[0] for argv, _ in BAD_INPUTS.values()} == set(cli.SUBCOMMANDS) - {"hub-check"}


@pytest.mark.parametrize("name", BAD_INPUTS)
def test_a_refusal_is_one_stderr_line_naming_the_input(name, tmp_path, capsys, monkeypatch):
    # tests the console's contract: exit 2 is one line on stderr saying why (exit_codes.py)
    monkeypatch.chdir(tmp_path)
    # transformers' advice that PyTorch is absent, printed once where it is: not a refusal
    monkeypatch.setenv("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    argv, named = BAD_INPUTS[name]
    assert cli.main(argv) == exit_codes.UNUSABLE
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    (line,) = [line for line in err.splitlines() if line.strip()]
    assert named in line and err.count("\n") == 1, err
    assert line not in out, out
