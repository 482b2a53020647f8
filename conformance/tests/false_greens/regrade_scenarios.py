"""`lcb-conformance regrade` on lcb_runner's test output prediction and code execution
results: their samples are predictions, not programs; graded as code generation they would
give a number of another scenario. Refused, named, before any grading."""

from __future__ import annotations

from pathlib import Path

import regrade_inputs as inputs

from false_greens import FalseGreen
from lcb_conformance.suite import exit_codes

OUTPUT = inputs.AUDIT / "lcb_runner" / "{run}" / "output" / "GPT-4O-2024-08-06"
TEST_OUTPUT = str(OUTPUT).format(run="test-output") + (
    "/Scenario.testoutputprediction_3_0.2_eval_all.json"
)
CODE_EXECUTION_COT = str(OUTPUT).format(run="code-execution") + (
    "/Scenario.codeexecution_3_0.2_cot_eval_all.json"
)
ONLY_CODE_GENERATION = "code generation samples only"


def _fixture_rows(tmp: Path) -> None:
    inputs.write(tmp / "dataset", inputs.rows(inputs.cases.FIXTURES_DIR / "problems.jsonl"))


def _renamed_test_output(tmp: Path) -> None:
    _fixture_rows(tmp)
    (tmp / "run.json").write_bytes(Path(TEST_OUTPUT).read_bytes())


CASES = [
    FalseGreen(
        id="regrade-test-output-as-programs",
        command="regrade",
        argv=(TEST_OUTPUT, "--dataset", "{tmp}/dataset", "--not-a-release"),
        prepare=_fixture_rows,
        expect=exit_codes.UNUSABLE,
        why="predicted assertions judged as programs are no test output prediction score",
        says=("test output prediction", ONLY_CODE_GENERATION),
    ),
    FalseGreen(
        id="regrade-code-execution-cot-as-programs",
        command="regrade",
        argv=(CODE_EXECUTION_COT, "--dataset", "{tmp}/dataset", "--not-a-release"),
        prepare=_fixture_rows,
        expect=exit_codes.UNUSABLE,
        why="predicted values judged as programs are no code execution score",
        says=("code execution", ONLY_CODE_GENERATION),
    ),
    FalseGreen(
        id="regrade-renamed-test-output-run",
        command="regrade",
        argv=("{tmp}/run.json", "--dataset", "{tmp}/dataset", "--not-a-release"),
        prepare=_renamed_test_output,
        expect=exit_codes.UNUSABLE,
        why="a renamed file loses its scenario's name, not its rows: still no programs",
        says=(ONLY_CODE_GENERATION,),
    ),
    FalseGreen(
        id="regrade-test-output-forced-as-code-generation",
        command="regrade",
        argv=(TEST_OUTPUT, "--dataset", "{tmp}/dataset", "--not-a-release",
              "--format", "lcb_runner", "--style", "OpenAIChat"),  # fmt: skip
        prepare=_fixture_rows,
        expect=exit_codes.UNUSABLE,
        why="--format lcb_runner on a test output prediction file would judge its assertions",
        says=("hold no programs",),
    ),
]
