"""The commands' dispatch and exit codes, beyond the false-green table: what must stay green
stays green, and each code means what common/exit_codes.py says."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import upstream_trees

from lcb_conformance import cli
from lcb_conformance.common import exit_codes, shared_options
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.reports import judge as judge_report
from lcb_conformance.runner import options
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


def _commands() -> list[list[str]]:
    """Every command line's command words, from the dispatchers: run without a word, each of
    cli.SUBCOMMANDS, and the subcommands of a command that has its own (regrade merge)."""
    found = [[]]
    for name, (entry_point, _) in cli.SUBCOMMANDS.items():
        found.append([name])
        module = entry_point.partition(":")[0]
        if module != cli.RUN:
            own = getattr(importlib.import_module(module), "SUBCOMMANDS", {})
            found += [[name, word] for word in own]
    return found


class _Parsed(Exception):
    """Raised in place of parsing: the command's parser, caught before it reads anything."""


def _parser_of(command: list[str], monkeypatch) -> shared_options.CommandParser:
    """The parser the command parses its arguments with (it must be the one-line parser)."""

    def record(parser, *args, **kwargs):
        raise _Parsed(parser)

    with monkeypatch.context() as patched:
        patched.setattr(shared_options.CommandParser, "parse_known_args", record)
        with pytest.raises(_Parsed) as parsed:
            cli.main([*command, "--no-such-option"])
    return parsed.value.args[0]


def _required(parser: argparse.ArgumentParser) -> list[str]:
    """A value for each argument the parser requires: the rest of a line is all it can refuse."""
    given = []
    for action in parser._actions:
        if action.required:
            given += [*action.option_strings[:1], "value"]
    return given


@pytest.mark.parametrize("command", _commands(), ids=lambda words: " ".join(words) or "(run)")
def test_a_bad_option_is_one_line_naming_it_and_the_commands_help(command, capsys, monkeypatch):
    # tests the console's contract: a usage error is one stderr line, exit 2 (exit_codes.py)
    parser = _parser_of(command, monkeypatch)
    prog = parser.prog
    assert prog == " ".join(["lcb-conformance", *(command or ["run"])])
    with pytest.raises(SystemExit) as stopped:
        cli.main([*command, *_required(parser), "--no-such-option"])
    assert stopped.value.code == exit_codes.UNUSABLE
    out, err = capsys.readouterr()
    assert not out and err.count("\n") == 1, err
    assert err == f"{prog}: unrecognized arguments: --no-such-option ({prog} --help)\n"


def test_a_green_command_loading_a_tokenizer_prints_nothing_on_stderr(monkeypatch):
    # tests the console's contract: transformers' advice that PyTorch is absent is not printed,
    # nor its warning that a prompt is longer than a model takes (no model runs)
    monkeypatch.delenv("TRANSFORMERS_NO_ADVISORY_WARNINGS", raising=False)
    advised = subprocess.run([sys.executable, "-c", "import transformers"], capture_output=True)
    if not advised.stderr:
        pytest.skip("transformers gives no advice on import here (PyTorch is installed)")
    # its longest prompt (65587 ids) is over its model_max_length (32768): no warning says so
    snapshot = str(hf_cache.SNAPSHOTS_DIR / "Qwen__Qwen2.5-Coder-7B-Instruct")
    done = subprocess.run(
        [sys.executable, "-m", "lcb_conformance.cli", "tokenizer-diff", snapshot, snapshot],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == exit_codes.OK and "verdict: identical" in done.stdout, done.stderr
    assert done.stderr == ""


def _to_a_closed_pipe(*argv: str) -> subprocess.CompletedProcess:
    """The console command with stdout a pipe whose reader has gone (`| head -1`, once head
    has its line): every write to it fails."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "lcb_conformance.cli", *argv],
            stdout=write, stderr=subprocess.PIPE, text=True, timeout=120,
        )  # fmt: skip
    finally:
        os.close(write)


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["regrade", "--help"]])
def test_a_closed_stdout_ends_the_command_quietly(argv):
    # tests the console's contract: a reader closing stdout early is no traceback; what the
    # command printed itself (not argparse's help, which ignores the failed write) is not all
    # there, exit 6 (exit_codes.py), never 0
    done = _to_a_closed_pipe(*argv)
    assert done.stderr == ""
    if argv != ["regrade", "--help"]:
        assert done.returncode == exit_codes.REPORT_NOT_WRITTEN


def test_another_broken_pipe_is_not_taken_for_a_closed_stdout():
    # tests the console's contract: only stdout's reader going is the quiet exit 6; a pipe
    # of another's breaking (a harness's, a child's) stays a fault, never a quiet code
    program = (
        "import sys\nfrom lcb_conformance import cli\n"
        "def command():\n    raise BrokenPipeError('a harness pipe')\n"
        "sys.exit(cli.to_a_closed_stdout(command))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode != exit_codes.REPORT_NOT_WRITTEN and done.returncode != exit_codes.OK
    assert "BrokenPipeError: a harness pipe" in done.stderr


TYPED = [name for name, arguments in options.for_plugin() if "type" in arguments]


@pytest.mark.parametrize("name", TYPED)
def test_a_bad_option_value_under_the_plugin_is_one_line_and_exit_2(name, tmp_path, capsys):
    # tests the console's contract: the plugin's usage error is the gate's, not pytest's (4)
    flag = f"--{options.PLUGIN_PREFIX}{name}"
    argv = ["-p", "lcb_conformance.plugin", "-q", "--lcb-impl", "lcb_prompts", flag, "x"]
    assert pytest.main([*argv, "--rootdir", str(tmp_path), str(tmp_path)]) == exit_codes.UNUSABLE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{flag}: invalid " in err and "value: 'x'" in err, err


def test_regen_without_lcb_runners_dependencies_is_one_line(pinned_clone, tmp_path):
    # tests the console's contract: a missing dependency (the [upstream] extra) is one line,
    # exit 2, not a traceback per golden and exit 4
    tree = upstream_trees.checkout_copy(pinned_clone, tmp_path / "LiveCodeBench")
    benchmark = tree / "lcb_runner" / "benchmarks" / "code_generation.py"
    benchmark.write_text("import no_such_dependency\n" + benchmark.read_text("utf-8"), "utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "lcb_conformance.cli", "regen", "--check", "--upstream", str(tree)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == exit_codes.UNUSABLE and not done.stdout, done.stdout[-2000:]
    assert done.stderr.count("\n") == 1 and "No module named 'no_such_dependency'" in done.stderr


HEAVY = ("transformers", "tokenizers", "jinja2", "hypothesis", "datasets", "lcb_runner", "numpy")


LIGHT_COMMANDS = [
    ["--help"],
    ["resolve", "--help"],
    ["score", "--help"],
    ["regrade", "--help"],
    ["regrade", "--no-such-option"],
]


@pytest.mark.parametrize("command", LIGHT_COMMANDS)
def test_a_light_command_imports_no_heavy_stack(command):
    """cli.SUBCOMMANDS names entry points, imported when their command runs: --help, a usage
    error and the commands that load no tokenizer start without the tokenizer stack,
    Hypothesis or lcb_runner (what made regrade's first verdict wait)."""
    probe = (
        "import contextlib, io, json, sys\n"
        "from lcb_conformance import cli\n"
        "quiet = io.StringIO()\n"
        "with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):\n"
        "    try:\n"
        f"        cli.main({command!r})\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print(json.dumps(sorted(set({HEAVY!r}) & set(sys.modules))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
