"""lcb_runner's code execution results, ``Scenario.codeexecution_<n>_<t>[_cot][_eval_all].json``
(run_formats/lcb_runner_predictions.py): an execution-v2 row per problem (code, input, output,
id, ...), its raw outputs, the values extract_execution_code kept and, in the _eval_all file,
their verdicts. A problem is named by the row's ``id``; whether the run was CoT
(``--cot_code_execution``, which changes the extraction) only the file's name records."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from lcb_conformance.run_formats import lcb_runner_files, lcb_runner_predictions
from lcb_conformance.suite import scenario_cases

NAME = "lcb_runner_code_execution"
SCENARIO = scenario_cases.LCB_RUNNER_NAMES[scenario_cases.CODE_EXECUTION]
DESCRIBED = "lcb_runner's code execution results (rows with numsteps and pred_list)"
model = lcb_runner_files.model


def problem_name(row: dict) -> str:
    return row["id"]


def cot(path: Path) -> bool:
    """--cot_code_execution, as the file's name records it (False for a renamed file)."""
    parsed = lcb_runner_files.parse(path.name)
    return parsed is not None and parsed.cot


# the scenario's rows carry "numsteps"; lcb_runner_predictions reads them
detect = partial(lcb_runner_predictions.detect, marker="numsteps")
samples = partial(lcb_runner_predictions.samples, scenario=SCENARIO, name_of=problem_name)
