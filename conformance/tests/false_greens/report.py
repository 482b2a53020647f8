"""`lcb-conformance report RESULTS`: a results file that is not a finished, passing run."""

from __future__ import annotations

from false_greens import FalseGreen
from lcb_conformance.common import exit_codes

CASES = [
    FalseGreen(
        id="report-missing-file",
        command="report",
        argv=("{tmp}/absent.jsonl",),
        expect=exit_codes.UNUSABLE,
        why="a results file that does not exist has no verdict",
    ),
]
