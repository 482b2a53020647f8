"""lcb_runner's test output prediction results (a problem named question_id/test_id).

lcb_runner's test output prediction results, ``Scenario.testoutputprediction_<n>_<t>
[_eval_all].json`` (run_formats/lcb_runner_predictions.py): a test_generation row per problem
(question_id, test_id, the statement, starter_code, function_name), its raw outputs, the
assertions extract_test_output_code kept and, in the _eval_all file, their verdicts. A problem
is named ``question_id/test_id``, as the audit names it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lcb_conformance.run_formats import lcb_runner_predictions
from lcb_conformance.run_formats.samples import Logged
from lcb_conformance.suite import scenarios

NAME = "lcb_runner_test_output"
DECLARED = scenarios.by_run_format(NAME)  # its scenario's declaration
SCENARIO = DECLARED.lcb_runner
DESCRIBED = "lcb_runner's test output prediction results (rows with test_id and pred_list)"
model = lcb_runner_predictions.model
problem_name = DECLARED.name_problem


def detect(peek) -> bool:
    return lcb_runner_predictions.detect(peek, DECLARED.audit.marker)


def samples(path: Path) -> Iterator[Logged]:
    return lcb_runner_predictions.samples(path, SCENARIO, problem_name)
