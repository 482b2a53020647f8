"""`lcb-conformance run` on either route (in-process, --impl-cmd): a judge that differs or
raises, an outcome a message's words would decide, a family the route cannot run, a run that
checks nothing. Each row runs one family (--only), in seconds."""

from __future__ import annotations

import shlex
import sys

from false_greens import FalseGreen
from lcb_conformance.adapters import jsonl_server
from lcb_conformance.common import exit_codes


def _served(adapter: str) -> str:
    """The --impl-cmd of a test adapter served by the generic server ({tests}: expanded)."""
    server = shlex.join([sys.executable, jsonl_server.PATH])
    return f"{server} {adapter} --path {{tests}}"


def _in_process(adapter: str) -> tuple[str, ...]:
    return ("--impl", adapter, "--impl-path", "{tests}")


JUDGE_ONLY = ("--only", "judge", "--no-contract")
EXTRACT_ONLY = ("--only", "extract", "--no-contract")
SCORER_ONLY = ("--only", "test-output/score", "--no-contract")

CASES = [
    FalseGreen(
        id="run-impl-cmd-judge-differs",
        command="run",
        argv=("--impl-cmd", _served("miniature_judges:own"), *JUDGE_ONLY),
        expect=exit_codes.DIFFERS,
        why="over --impl-cmd every judge case was 'not provided' and the run passed: a judge "
        "differing from lcb_runner on most cases was never run",
        says=("NOT identical to lcb_runner",),
    ),
    FalseGreen(
        id="run-in-process-judge-differs",
        command="run",
        argv=(*_in_process("miniature_judges:own"), *JUDGE_ONLY),
        expect=exit_codes.DIFFERS,
        why="the same judge in-process differs on the same cases",
        says=("NOT identical to lcb_runner",),
    ),
    FalseGreen(
        id="run-impl-cmd-judge-raises-key-error",
        command="run",
        argv=("--impl-cmd", _served("miniature_judges:raises_key_error"), *JUDGE_ONLY),
        expect=exit_codes.DIFFERS,
        why="a judge raising KeyError on every row grades nothing; where lcb_runner raises "
        "(zlib.error) a KeyError is another answer, not a match",
    ),
    FalseGreen(
        id="run-in-process-judge-raises-key-error",
        command="run",
        argv=(*_in_process("miniature_judges:raises_key_error"), *JUDGE_ONLY),
        expect=exit_codes.DIFFERS,
        why="the same judge in its sandboxed children",
    ),
    FalseGreen(
        id="run-impl-cmd-judge-error-saying-does-not-provide",
        command="run",
        argv=("--impl-cmd", _served("miniature_judges:says_does_not_provide"), *JUDGE_ONLY),
        expect=exit_codes.DIFFERS,
        why="a ValueError whose message says 'does not provide' is an error, not 'not "
        "provided': not provided is a type",
    ),
    FalseGreen(
        id="run-in-process-scorer-error-saying-does-not-provide",
        command="run",
        argv=(*_in_process("miniatures:scorer_says_does_not_provide"), *SCORER_ONLY),
        expect=exit_codes.DIFFERS,
        why="a sandboxed scorer's ValueError mentioning 'does not provide' was credited as not "
        "provided by its words, and the run passed",
    ),
    FalseGreen(
        id="run-in-process-scorer-not-provided-checks-nothing",
        command="run",
        argv=(*_in_process("miniatures:scorer_not_provided"), *SCORER_ONLY),
        expect=exit_codes.INCOMPLETE,
        why="a scorer raising NotProvided in its sandboxed child is not provided (it was an "
        "error), and a run in which no golden case ran has checked nothing",
        says=("INCOMPLETE: no golden case ran", "cases not provided"),
    ),
    FalseGreen(
        id="run-nothing-provided-of-the-family-asked-for",
        command="run",
        argv=(*_in_process("miniatures:decode_only"), "--only", "extract", "--no-contract"),
        expect=exit_codes.INCOMPLETE,
        why="an adapter providing none of the family asked for: 'identical on every case it "
        "provides (0 cases)' is no evidence",
        says=("INCOMPLETE: no golden case ran",),
    ),
    FalseGreen(
        id="run-impl-cmd-strict-contract-cannot-cross",
        command="run",
        argv=(
            "--impl-cmd", _served("lcb_prompts"), "--strict-contract",
            "--only", "reference-impl/decode_context",
        ),  # fmt: skip
        expect=exit_codes.INCOMPLETE,
        why="--strict-contract counts the contract, and over --impl-cmd its cases passing "
        "Python objects cannot run: the route does not cover what was asked",
        says=("INCOMPLETE", "could not run here"),
    ),
    FalseGreen(
        id="run-tokenizers-missing-skips-provided-cases",
        command="run",
        argv=("--tokenizers", "{tmp}", "--only", "chat-prompt", "--no-contract"),
        expect=exit_codes.INCOMPLETE,
        why="with no tokenizer snapshots every chat-prompt case of a format_lcb_prompt it "
        "provides is skipped: nothing differs, but nothing was checked",
        says=("INCOMPLETE", "format_lcb_prompt"),
    ),
    FalseGreen(
        id="run-impl-cmd-own-exception-named-not-provided",
        command="run",
        argv=("--impl-cmd", _served("own_not_provided"), *EXTRACT_ONLY),
        expect=exit_codes.DIFFERS,
        why="an extractor raising a class of its own merely named NotProvided on the inputs it "
        "gets wrong was 'identical on every case it provides (62)' over --impl-cmd: only the "
        "protocol's not-provided answer (no module) is not provided, the program's exception "
        "is an error, as in-process",
        says=("NOT identical to lcb_runner",),
    ),
    FalseGreen(
        id="run-in-process-own-exception-named-not-provided",
        command="run",
        argv=(*_in_process("own_not_provided"), *EXTRACT_ONLY),
        expect=exit_codes.DIFFERS,
        why="the same adapter in-process: its exception is an error",
        says=("NOT identical to lcb_runner",),
    ),
    FalseGreen(
        id="run-in-process-provided-function-declines-inputs",
        command="run",
        argv=(*_in_process("miniatures:declines_inputs"), *EXTRACT_ONLY),
        expect=exit_codes.DIFFERS,
        why="an extract_code raising the suite's NotProvided on every output with more than "
        "two fences was 'identical on every case it provides (62)': not provided is decided "
        "by a function's first call, and its later NotProvided declines an input, a difference",
        says=("declined by a function it provides",),
    ),
    FalseGreen(
        id="run-in-process-adapter-os-exit-0",
        command="run",
        argv=(*_in_process("miniatures:os_exits_after_40"), *EXTRACT_ONLY),
        expect=exit_codes.INCOMPLETE,
        why="an adapter faithful for 40 calls, then os._exit(0), ended the command with 0 "
        "having printed only its 'provides' line: its cases run in a child the run outlives",
        says=("INCOMPLETE: the adapter ended the process its cases run in",),
    ),
    FalseGreen(
        id="run-in-process-adapter-sys-exit-0",
        command="run",
        argv=(*_in_process("miniatures:sys_exits_after_40"), *EXTRACT_ONLY),
        expect=exit_codes.INCOMPLETE,
        why="sys.exit(0) from an adapter: the run did not finish (it was exit 1 with a "
        "Hypothesis traceback, or the adapter's own code)",
        says=("INCOMPLETE: the adapter ended", "SystemExit"),
    ),
    FalseGreen(
        id="run-in-process-adapter-over-the-case-time-limit",
        command="run",
        argv=(
            *_in_process("miniatures:slow"), "--case-timeout", "0.5",
            "--only", "reference-impl/decode_context", "--no-contract",
        ),  # fmt: skip
        expect=exit_codes.DIFFERS,
        why="an adapter over the per-case time limit answered nothing in time: every such "
        "case is timed-out, a failure naming the limit (it ran 281 s with no limit in-process)",
        says=("case time limit of 0.5 s",),
    ),
]
