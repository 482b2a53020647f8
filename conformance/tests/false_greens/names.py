"""The shared options (common/shared_options.py, adapters/impl_options.py) on the commands that
took them over: `resolve --json FILE` held to its file like every --json, `diff` reading the
implementation options (--impl-path, --impl-cmd) and --variants like `run`."""

from __future__ import annotations

import shlex
import sys

from false_greens import FalseGreen
from false_greens.commands import _one_problem
from lcb_conformance.adapters import jsonl_server
from lcb_conformance.common import exit_codes
from lcb_conformance.common.report_files import REPORT_NOT_WRITTEN

SERVED_MESSAGES_ONLY = (
    f"{shlex.join([sys.executable, jsonl_server.PATH])} miniatures:messages_only --path {{tests}}"
)

CASES = [
    FalseGreen(
        id="resolve-json-not-written",
        command="resolve",
        argv=("gpt-4o-2024-05-13", "--json", "{tmp}"),
        expect=REPORT_NOT_WRITTEN,
        why="the answer was printed and --json FILE named a folder: an exit 0 says the JSON "
        "asked for is there",
        says=("JSON report not written",),
    ),
    FalseGreen(
        id="resolve-all-json",
        command="resolve",
        argv=("--all", "--json", "{tmp}/all.json"),
        expect=exit_codes.UNUSABLE,
        why="--all prints the table and writes no JSON: an exit 0 would leave the file asked "
        "for unwritten",
        says=("--json answers for one MODEL_ID",),
    ),
    FalseGreen(
        id="diff-impl-path-not-a-folder",
        command="diff",
        argv=("{tmp}/one.jsonl", "--impl-path", "{tmp}/no-such-folder"),
        expect=exit_codes.UNUSABLE,
        why="a mistyped --impl-path would import the adapter from elsewhere (or lcb_prompts)",
        prepare=_one_problem,
        says=("--impl-path", "no such folder"),
    ),
    FalseGreen(
        id="diff-impl-cmd-nothing-compared",
        command="diff",
        argv=("{tmp}/one.jsonl", "--impl-cmd", SERVED_MESSAGES_ONLY, "--variants", "codeqwen"),
        expect=exit_codes.INCOMPLETE,
        why="the program behind --impl-cmd gives messages only: codeqwen's prompt was never "
        "compared",
        prepare=_one_problem,
        needs=("upstream",),
        says=("INCOMPLETE", "not compared: every variant asked for"),
    ),
]
