"""lcb_runner's code execution results, direct or CoT as the file's name says (a problem named by
its id).

lcb_runner's code execution results, ``Scenario.codeexecution_<n>_<t>[_cot][_eval_all].json``
(run_formats/lcb_runner_predictions.py): an execution-v2 row per problem (code, input, output,
id, ...), its raw outputs, the values extract_execution_code kept and, in the _eval_all file,
their verdicts. A problem is named by the row's ``id``; whether the run was CoT
(``--cot_code_execution``, which changes the extraction) only the file's name records."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lcb_conformance.run_formats import lcb_runner_files, lcb_runner_predictions
from lcb_conformance.run_formats.samples import Logged
from lcb_conformance.suite import scenarios

NAME = "lcb_runner_code_execution"
DECLARED = scenarios.by_run_format(NAME)  # its scenario's declaration
SCENARIO = DECLARED.lcb_runner
DESCRIBED = "lcb_runner's code execution results (rows with numsteps and pred_list)"
model = lcb_runner_predictions.model
problem_name = DECLARED.name_problem


def detect(peek) -> bool:
    return lcb_runner_predictions.detect(peek, DECLARED.audit.marker)


def cot(path: Path) -> bool:
    """--cot_code_execution, as the file's name records it (False for a renamed file)."""
    parsed = lcb_runner_files.parse(path.name)
    return parsed is not None and parsed.cot


def samples(path: Path) -> Iterator[Logged]:
    return lcb_runner_predictions.samples(path, SCENARIO, problem_name)
