"""The false-green hunt (issue 25): every row of the table in false_greens/ is run through its
command's own ``main``; none may exit 0, each must exit with its row's code and say its cause.
The table's size is a test too: at least 40 rows across at least 8 commands."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import upstream_trees
from false_greens import CLONE, DEV_COMMANDS, FalseGreen, all_cases, commands

from lcb_conformance import cli
from lcb_conformance.common import exit_codes, paths
from lcb_conformance.offline_tokenizers import hf_cache

CASES = all_cases()
TESTS = Path(__file__).parent
EXIT_CODES = {
    value for name, value in vars(exit_codes).items() if name.isupper() and isinstance(value, int)
}


# commands whose rows no tokenizer touches (the compat-tf* envs leave them to the upstream env)
TRANSFORMERS_INDEPENDENT = {"regrade", "score"}


def _marks(case: FalseGreen) -> list:
    if "upstream" not in case.needs:
        return [pytest.mark.selftest]
    if case.command in TRANSFORMERS_INDEPENDENT:
        return [pytest.mark.upstream, pytest.mark.transformers_independent]
    return [pytest.mark.upstream]


def _expand(argument: str, tmp: Path) -> str:
    return argument.format(tmp=tmp, fixtures=paths.ROOT / "fixtures", tests=TESTS)


@pytest.mark.selftest
def test_the_table_is_large_and_broad():
    assert len(CASES) >= 40, len(CASES)
    assert len(commands(CASES)) >= 8, commands(CASES)
    assert len({case.id for case in CASES}) == len(CASES), "row ids must be unique"


def _exit_code(case: FalseGreen, argv: list[str]) -> int:
    if "checkout" in case.needs:  # its tree's lcb_runner: this process may hold another's
        done = subprocess.run(
            [sys.executable, "-m", "lcb_conformance.cli", case.command, *argv],
            capture_output=True, text=True,
        )  # fmt: skip
        sys.stdout.write(done.stdout)
        sys.stderr.write(done.stderr)
        return done.returncode
    if case.command == "pytest-plugin":
        return int(pytest.main(["-p", "lcb_conformance.plugin", "-q", *argv]))
    try:
        if case.command in DEV_COMMANDS:
            return importlib.import_module(DEV_COMMANDS[case.command]).main(argv)
        return cli.main([case.command, *argv])
    except SystemExit as stopped:  # argparse's own refusals
        return stopped.code if isinstance(stopped.code, int) else exit_codes.UNUSABLE


@pytest.mark.parametrize(
    "case", [pytest.param(case, id=case.id, marks=_marks(case)) for case in CASES]
)
def test_no_false_green(case: FalseGreen, tmp_path, capsys, monkeypatch, request):
    # tests the console's contract: a row's 'says' phrases are the message naming why
    assert case.expect in EXIT_CODES - {exit_codes.OK}, f"{case.id}: expects {case.expect}"
    monkeypatch.chdir(tmp_path)
    if "checkout" in case.needs:
        upstream_trees.checkout_copy(request.getfixturevalue("pinned_clone"), tmp_path / CLONE)
    if case.prepare is not None:
        case.prepare(tmp_path)
    argv = [_expand(argument, tmp_path) for argument in case.argv]
    monkeypatch.setattr(sys, "argv", ["lcb-conformance", case.command, *argv])
    # a row's --tokenizers serves another folder in this process: the next test's must be ours
    served = hf_cache.served()
    try:
        code = _exit_code(case, argv)
    finally:
        hf_cache.serve(served)
    out, err = capsys.readouterr()
    assert code != exit_codes.OK, f"{case.id}: exit 0 — {case.why}\n{out[-2000:]}{err[-2000:]}"
    assert code == case.expect, f"{case.id}: exit {code}, not {case.expect}\n{out[-2000:]}{err}"
    for phrase in case.says:
        assert phrase in out + err, f"{case.id}: does not say {phrase!r}\n{out[-2000:]}{err}"
