"""`lcb-conformance regrade` on lcb_runner's test output prediction and code execution results:
a dataset nothing checks graded without saying so, rows that are not the run's, options of the
code generation regrade that would be silently dropped, an upstream whose scorer differs, and
predictions graded as programs; each refused and named before anything is scored."""

from __future__ import annotations

import json
from pathlib import Path

import regrade_inputs as inputs

from false_greens import FalseGreen
from lcb_conformance.common import exit_codes
from lcb_conformance.suite import scenario_cases, scenarios

OUTPUT = inputs.AUDIT / "lcb_runner" / "{run}" / "output" / "GPT-4O-2024-08-06"
TEST_OUTPUT = str(OUTPUT).format(run="test-output") + (
    "/Scenario.testoutputprediction_3_0.2_eval_all.json"
)
CODE_EXECUTION_COT = str(OUTPUT).format(run="code-execution") + (
    "/Scenario.codeexecution_3_0.2_cot_eval_all.json"
)
TEST_OUTPUT_ROWS = str(scenario_cases.fixture_file(scenarios.TEST_OUTPUT.inputs))
EXECUTION_ROWS = str(scenario_cases.fixture_file(scenarios.CODE_EXECUTION.inputs))


def _execution_rows(tmp: Path, change) -> None:
    rows = [json.loads(line) for line in Path(EXECUTION_ROWS).read_text("utf-8").splitlines()]
    change(rows)
    (tmp / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")


def _rows_without_one(tmp: Path) -> None:
    _execution_rows(tmp, lambda rows: rows.pop(1))


def _rows_other_output(tmp: Path) -> None:
    _execution_rows(tmp, lambda rows: rows[0].update(output="10"))


def _code_generation_rows(tmp: Path) -> None:
    inputs.write(tmp / "dataset", inputs.rows(inputs.cases.FIXTURES_DIR / "problems.jsonl"))


CASES = [
    FalseGreen(
        id="regrade-scenario-dataset-unchecked-unsaid",
        command="regrade",
        argv=(TEST_OUTPUT, "--dataset", TEST_OUTPUT_ROWS),
        expect=exit_codes.UNUSABLE,
        why="no release manifest checks a test output prediction dataset: a 0 must say so",
        says=("--not-a-release",),
    ),
    FalseGreen(
        id="regrade-scenario-stand-in-scorer",
        command="regrade",
        argv=(CODE_EXECUTION_COT, "--dataset", EXECUTION_ROWS, "--not-a-release"),
        expect=exit_codes.UNUSABLE,
        why="the stand-in's code execution pass@1 is 0-1, not lcb_runner's x100",
        says=("scores differently",),
    ),
    FalseGreen(
        id="regrade-scenario-dataset-lacks-a-problem",
        command="regrade",
        argv=(CODE_EXECUTION_COT, "--dataset", "{tmp}/rows.jsonl", "--not-a-release"),
        prepare=_rows_without_one,
        expect=exit_codes.UNUSABLE,
        why="a problem scored against no row is not scored by lcb_runner",
        says=("'sample_1' is not in",),
    ),
    FalseGreen(
        id="regrade-scenario-dataset-other-output",
        command="regrade",
        argv=(CODE_EXECUTION_COT, "--dataset", "{tmp}/rows.jsonl", "--not-a-release"),
        prepare=_rows_other_output,
        expect=exit_codes.UNUSABLE,
        why="predictions scored against another expected output are another number",
        says=("differs from", "output"),
    ),
    FalseGreen(
        id="regrade-scenario-slice-dropped",
        command="regrade",
        argv=(TEST_OUTPUT, "--dataset", TEST_OUTPUT_ROWS, "--not-a-release", "--shard", "1/2"),
        expect=exit_codes.UNUSABLE,
        why="a slice option ignored would give the whole run's number as a slice's",
        says=("--shard", "not for"),
    ),
    FalseGreen(
        id="regrade-scenario-with-code-generation-rows",
        command="regrade",
        argv=(TEST_OUTPUT, "--dataset", "{tmp}/dataset", "--not-a-release"),
        prepare=_code_generation_rows,
        expect=exit_codes.UNUSABLE,
        why="code generation rows are not the test_generation rows its predictions are for",
        says=("no such file",),
    ),
    FalseGreen(
        id="regrade-test-output-forced-as-code-generation",
        command="regrade",
        argv=(TEST_OUTPUT, "--dataset", "{tmp}/dataset", "--not-a-release",
              "--format", "lcb_runner", "--style", "OpenAIChat"),  # fmt: skip
        prepare=_code_generation_rows,
        expect=exit_codes.UNUSABLE,
        why="--format lcb_runner on a test output prediction file would judge its assertions",
        says=("hold no programs",),
    ),
]
