"""The commands besides report, score and audit (and the plugin): inputs on which each must
not exit 0, each failing in seconds (`--only`, one problem, refusals before any work)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from false_greens import FalseGreen
from lcb_conformance.common import exit_codes, paths
from lcb_conformance.offline_tokenizers import hf_cache

SNAPSHOT = "{fixtures}/tokenizers/Qwen__Qwen2.5-Coder-7B-Instruct"
OTHER_SNAPSHOT = "{fixtures}/tokenizers/Qwen__Qwen3-8B"
ONE_PROBLEM = ("--problems", "1", "--styles", "generic")
# The plugin's codes are pytest's: a usage error stops the session before any test runs.
TESTS_FAILED = int(pytest.ExitCode.TESTS_FAILED)


def _write(name: str, data: bytes):
    def prepare(tmp: Path) -> None:
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_bytes(data)

    return prepare


def _one_problem(tmp: Path) -> None:
    rows = (paths.ROOT / "fixtures" / "problems.jsonl").read_bytes()
    (tmp / "one.jsonl").write_bytes(rows.split(b"\n", 1)[0] + b"\n")


def _offline(tmp: Path) -> None:
    os.environ.update(hf_cache.OFFLINE_ENV)  # what every offline test process already has


CASES = [
    # run: the subcommand dispatch and the run's options
    FalseGreen(
        id="run-mistyped-command",
        command="scroe",
        argv=("run.json",),
        expect=exit_codes.UNUSABLE,
        why="a mistyped command ran as `run` (or as nothing) instead of naming the mistake",
        says=("no command 'scroe'", "did you mean score?", "report, resolve"),
    ),
    FalseGreen(
        id="run-missing-impl-path",
        command="run",
        argv=("--impl-path", "{tmp}/absent", "--only", "extract"),
        expect=exit_codes.UNUSABLE,
        why="an --impl-path folder that does not exist: the adapter would come from elsewhere",
        says=("absent: no such folder", "--impl-path"),
    ),
    FalseGreen(
        id="run-missing-tokenizers",
        command="run",
        argv=("--tokenizers", "{tmp}/absent", "--only", "extract"),
        expect=exit_codes.UNUSABLE,
        why="a --tokenizers folder that does not exist: every tokenizer case would be skipped",
        says=("absent: no such folder", "--tokenizers"),
    ),
    FalseGreen(
        id="run-unknown-family",
        command="run",
        argv=("--only", "prompts"),
        expect=exit_codes.UNUSABLE,
        why="--only naming no family selects no golden case: a green on nothing",
        says=("--only prompts: no such golden family",),
    ),
    FalseGreen(
        id="run-only-two-families-in-one-flag",
        command="run",
        argv=("--only", "prompt", "messages"),
        expect=exit_codes.UNUSABLE,
        why="`--only a b` is not `--only a --only b`: say so rather than run something else",
        says=("repeat it (--only prompt --only messages)",),
    ),
    FalseGreen(
        id="run-impl-given-empty",
        command="run",
        argv=("--impl", "", "--only", "extract"),
        expect=exit_codes.UNUSABLE,
        why="`--impl \"$IMPL\"` with $IMPL unset ran lcb_prompts, the reference, and was green",
        says=("--impl '': names no module",),
    ),
    FalseGreen(
        id="run-impl-cmd-given-empty",
        command="run",
        argv=("--impl-cmd", "", "--only", "extract"),
        expect=exit_codes.UNUSABLE,
        why="`--impl-cmd \"$HARNESS\"` with $HARNESS unset ran lcb_prompts, the reference, "
        "and was green",
        says=("cannot load '': --impl-cmd: empty command",),
    ),
    # diff
    FalseGreen(
        id="diff-missing-dataset",
        command="diff",
        argv=("{tmp}/absent.jsonl",),
        expect=exit_codes.UNUSABLE,
        why="a dataset that does not exist compares nothing",
        says=("absent.jsonl: no such file",),
    ),
    FalseGreen(
        id="diff-directory-as-dataset",
        command="diff",
        argv=("{tmp}",),
        expect=exit_codes.UNUSABLE,
        why="a folder is no dataset",
        says=("is a directory, not a dataset file",),
    ),
    FalseGreen(
        id="diff-empty-dataset",
        command="diff",
        argv=("{tmp}/empty.jsonl",),
        expect=exit_codes.UNUSABLE,
        why="a dataset without rows compares nothing",
        prepare=_write("empty.jsonl", b"\n"),
        needs=("upstream",),
        says=("empty.jsonl: no rows",),
    ),
    FalseGreen(
        id="diff-garbage-dataset",
        command="diff",
        argv=("{tmp}/garbage.jsonl",),
        expect=exit_codes.UNUSABLE,
        why="bytes that are not JSON lines are no dataset (and no traceback)",
        prepare=_write("garbage.jsonl", b"\x00\xff{[ not json\n"),
        needs=("upstream",),
        says=("garbage.jsonl:1: not UTF-8",),
    ),
    FalseGreen(
        id="diff-nothing-compared",
        command="diff",
        argv=("{tmp}/one.jsonl", "--impl", "miniatures:messages_only", "--variants", "codeqwen"),
        expect=exit_codes.INCOMPLETE,
        why="every variant asked for is outside the implementation: no prompt was compared",
        prepare=_one_problem,
        needs=("upstream",),
        says=("INCOMPLETE", "not compared: every variant asked for"),
    ),
    FalseGreen(
        id="diff-variant-not-in-this-upstream",
        command="diff",
        argv=("{tmp}/one.jsonl", "--variants", "qwq,generic"),
        expect=exit_codes.INCOMPLETE,
        why="the stand-in cannot build QwQ's prompt: lcb_prompts' qwq was not compared",
        prepare=_one_problem,
        needs=("upstream",),
        says=("not compared: qwq (not in this upstream)",),
    ),
    # resolve
    FalseGreen(
        id="resolve-unlisted-model",
        command="resolve",
        argv=("some-org/not-a-listed-model-7B",),
        expect=exit_codes.UNUSABLE,
        why="a model lcb_runner does not list has no official prompt, only a suggestion",
        says=("NOT LISTED",),
    ),
    FalseGreen(
        id="resolve-unlisted-folder-name",
        command="resolve",
        argv=("Not-A-Listed-Model-2024-09-12 (N=1)",),
        expect=exit_codes.UNUSABLE,
        why="a leaderboard-style folder name whose model_repr lcb_runner does not list",
        says=("NOT LISTED",),
    ),
    FalseGreen(
        id="resolve-style-neither",
        command="resolve",
        argv=("--style", "generik"),
        expect=exit_codes.UNUSABLE,
        why="a name that is neither an lcb_prompts style nor an LMStyle maps to nothing",
        says=("--style generik: neither an lcb_prompts style",),
    ),
    FalseGreen(
        id="resolve-style-lmstyle-without-style",
        command="resolve",
        argv=("--style", "CodeLLaMaInstruct"),
        expect=exit_codes.DIFFERS,
        why="an LMStyle lcb_prompts has no style for gives no call to make",
        says=("no lcb_prompts style",),
    ),
    FalseGreen(
        id="resolve-scenario-lcb-runner-raises",
        command="resolve",
        argv=("Qwen/QwQ-32B-Preview", "--scenario", "code-execution"),
        expect=exit_codes.DIFFERS,
        why="lcb_runner raises instead of building this scenario's prompt for the model",
        says=("RAISES",),
    ),
    # drift
    FalseGreen(
        id="drift-no-such-upstream",
        command="drift",
        argv=("--upstream", "{tmp}/absent"),
        expect=exit_codes.UNUSABLE,
        why="an upstream that is not there judges nothing",
        says=("no lcb_runner/ package there",),
    ),
    FalseGreen(
        id="drift-history-no-such-repository",
        command="drift",
        argv=("--history", "{tmp}/absent", "28fef95"),
        expect=exit_codes.UNUSABLE,
        why="a --history repository that is not there judges no commit",
        says=("cannot change to",),
    ),
    # regen
    FalseGreen(
        id="regen-check-no-such-upstream",
        command="regen",
        argv=("--check", "--upstream", "{tmp}/absent"),
        expect=exit_codes.UNUSABLE,
        why="--check against nothing compares no golden",
        says=("no lcb_runner/ package there",),
    ),
    FalseGreen(
        id="regen-from-the-stand-in",
        command="regen",
        argv=("--upstream", "installed"),
        expect=exit_codes.UNUSABLE,
        why="goldens come from lcb_runner 28fef95 only: writing them from another is refused",
        needs=("upstream",),
        says=("goldens come from lcb_runner at 28fef95 only",),
    ),
    # tokenizer-diff
    FalseGreen(
        id="tokenizer-diff-no-problem",
        command="tokenizer-diff",
        argv=(SNAPSHOT, SNAPSHOT, "--problems", "0"),
        expect=exit_codes.UNUSABLE,
        why="a comparison over no problem finds nothing changed, on nothing",
        says=("not a number of problems",),
    ),
    FalseGreen(
        id="tokenizer-diff-no-style",
        command="tokenizer-diff",
        argv=(SNAPSHOT, SNAPSHOT, "--styles", ","),
        expect=exit_codes.UNUSABLE,
        why="a comparison over no style finds nothing changed, on nothing",
        says=("--styles: none given",),
    ),
    FalseGreen(
        id="tokenizer-diff-a-file-not-a-tokenizer",
        command="tokenizer-diff",
        argv=("{tmp}/tokenizer.json", SNAPSHOT, *ONE_PROBLEM),
        expect=exit_codes.UNUSABLE,
        why="a file is no tokenizer directory (and not a Hub repo id to look up)",
        prepare=_write("tokenizer.json", b"{}"),
        says=("tokenizer.json is not a directory",),
    ),
    FalseGreen(
        id="tokenizer-diff-another-template",
        command="tokenizer-diff",
        argv=(SNAPSHOT, OTHER_SNAPSHOT, *ONE_PROBLEM),
        expect=exit_codes.DIFFERS,
        why="another model's tokenizer renders and tokenizes the prompt otherwise",
        says=("verdict: changed",),
    ),
    # hub-check
    FalseGreen(
        id="hub-check-offline",
        command="hub-check",
        argv=(),
        expect=exit_codes.INCOMPLETE,
        why="offline, no Hub template was loaded: nothing was checked",
        prepare=_offline,
        says=("needs the network", "nothing checked"),
    ),
    FalseGreen(
        id="hub-check-repo-without-a-snapshot",
        command="hub-check",
        argv=("some-org/no-such-model",),
        expect=exit_codes.UNUSABLE,
        why="a repo the snapshots do not hold has nothing to be checked against",
        says=("no snapshot of some-org/no-such-model",),
    ),
    # peers
    FalseGreen(
        id="peers-render-without-runs",
        command="peers",
        argv=("render", "--out-dir", "{tmp}", "--output", "{tmp}/peers.md"),
        expect=exit_codes.UNUSABLE,
        why="a peers page from no run reports on nobody",
        says=("no peer runs in",),
    ),
    FalseGreen(
        id="peers-render-a-run-that-is-not-json",
        command="peers",
        argv=("render", "--out-dir", "{tmp}/runs", "--output", "{tmp}/peers.md"),
        expect=exit_codes.UNUSABLE,
        why="a stored run that cannot be read is no run (and no traceback)",
        prepare=_write("runs/evalscope_lcb.json", b"{ cut"),
        says=("evalscope_lcb.json: not a stored peer run",),
    ),
    # the pytest plugin (its codes are pytest's)
    FalseGreen(
        id="plugin-a-case-differs",
        command="pytest-plugin",
        argv=(
            "--lcb-impl", "miniatures:trailing_newline", "--lcb-impl-path", "{tests}",
            "--lcb-only", "extract", "-k", "extract/generic/",
        ),  # fmt: skip
        expect=TESTS_FAILED,
        why="a session in which a case differs from lcb_runner's golden",
    ),
    FalseGreen(
        id="plugin-a-provided-function-declines-inputs",
        command="pytest-plugin",
        argv=(
            "--lcb-impl", "miniatures:declines_inputs", "--lcb-impl-path", "{tests}",
            "--lcb-only", "extract",
        ),  # fmt: skip
        expect=TESTS_FAILED,
        why="an extract_code raising NotProvided on the inputs it gets wrong: 63 passed, 886 "
        "skipped; a function it provides declining an input is a failure (declined), never a "
        "skip",
    ),
    FalseGreen(
        id="plugin-adapter-os-exit-0",
        command="pytest-plugin",
        argv=(
            "--lcb-impl", "miniatures:os_exits_after_40", "--lcb-impl-path", "{tests}",
            "--lcb-only", "extract", "-k", "extract/claude/",
        ),  # fmt: skip
        expect=TESTS_FAILED,
        why="an adapter's os._exit(0) ended the pytest session with 0; the case it ended on "
        "fails, in one line",
        says=("the adapter ended the process its cases run in",),
    ),
    FalseGreen(
        id="plugin-unknown-family",
        command="pytest-plugin",
        argv=("--lcb-impl", "lcb_prompts", "--lcb-only", "prompts"),
        expect=exit_codes.UNUSABLE,
        why="--lcb-only naming no family adds no case: the package's own tests would be green",
        says=("--lcb-only prompts: no such golden family",),
    ),
    FalseGreen(
        id="plugin-results-into-a-folder",
        command="pytest-plugin",
        argv=("--lcb-impl", "lcb_prompts", "--lcb-only", "extract", "--lcb-results", "{tmp}"),
        expect=exit_codes.UNUSABLE,
        why="the results asked for cannot be written: a session without them is not the one asked",
        says=("cannot write --lcb-results", "Is a directory"),
    ),
    FalseGreen(
        id="plugin-missing-impl-path",
        command="pytest-plugin",
        argv=("--lcb-impl", "lcb_prompts", "--lcb-impl-path", "{tmp}/absent"),
        expect=exit_codes.UNUSABLE,
        why="an --lcb-impl-path folder that does not exist: the adapter would come from elsewhere",
        says=("absent: no such folder", "--lcb-impl-path"),
    ),
    FalseGreen(
        id="plugin-impl-given-empty",
        command="pytest-plugin",
        argv=("--lcb-impl", "", "--lcb-only", "extract"),
        expect=exit_codes.UNUSABLE,
        why="`--lcb-impl \"$IMPL\"` with $IMPL unset added no case: the package's own tests "
        "would be green",
        says=("--impl '': names no module",),
    ),
]
